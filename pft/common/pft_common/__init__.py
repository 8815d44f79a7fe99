# SPDX-License-Identifier: GPL-2.0-or-later
# pft_common - what pft-sweep's package (pft_sweep) and pft-survey's
# (pft_survey) share: their messages and error lines, the median, writing
# files where other users can write (safefile), and finding pft
# (pft).  Built into each command's zipapp beside its own package
# (mkzipapp.py).
#
# Copyright (C) 2026 The libfaultgen authors
