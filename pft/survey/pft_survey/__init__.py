# SPDX-License-Identifier: GPL-2.0-or-later
# pft_survey - pft-survey: which VMAs of a real program take its page
# faults, from how many threads at once, and the pft command line that
# generates the same pattern.  Shipped as one command, pft-survey, a
# zipapp of this package and pft_common (pft/common/mkzipapp.py).
#
# Copyright (C) 2026 The libfaultgen authors
