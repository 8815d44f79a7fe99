# SPDX-License-Identifier: GPL-2.0-or-later
# pft_sweep - runs pft over worker counts or CPU layouts and patterns, and
# compares sweeps: tables, CSV, JSON, plots.  Shipped as one command,
# pft-sweep, a zipapp of this package (mkzipapp.py).
#
# Copyright (C) 2026 The libfaultgen authors
#
# Python 3 standard library only, so that it runs wherever pft is packaged.
# pft does every measurement and owns the syntax of sizes and CPU lists:
# this package passes them through, chooses the command lines, reads pft's
# JSON Lines and folds the runs of each point into a median.
