#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# sweep-unit.sh - the unit tests of pft-sweep's package (pft/sweep/tests,
# stdlib unittest): its statistics, --compare's marks and significance,
# the runs schema read back, the topology of fake sysfs trees, and the
# patterns taken from pft.  Run against the source tree, with no compiled
# files written there (a distcheck's source tree is read-only).
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

have_python || skip "python3 is needed (pft-sweep is a Python 3 package)"

python_unit_tests pft/sweep

finish
