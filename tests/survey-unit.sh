#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# survey-unit.sh - the unit tests of pft-survey's package (pft/survey/tests,
# stdlib unittest): perf script's text read back, the VMAs over their
# life, the kinds of faults, the objects, the verdicts and their pft
# lines, the text report, and the lifetime of what the survey starts.
# Run against the source tree, with no compiled files written there (a
# distcheck's source tree is read-only).
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

have_python || skip "python3 is needed (pft-survey is a Python 3 package)"

python_unit_tests pft/survey

finish
