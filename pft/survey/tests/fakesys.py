# SPDX-License-Identifier: GPL-2.0-or-later
# fakesys.py - the machine the survey's verdicts are judged for, whatever
# machine the tests run on.
#
# Copyright (C) 2026 The libfaultgen authors

from unittest import mock

from pft_survey import verdict


def two_cpus():
    """setUpModule and tearDownModule of a module whose verdicts are of
    a machine of 2 CPUs (the pft line adds --oversubscribe for more
    workers than that), whatever CPUs the tests run on."""
    patch = mock.patch.object(verdict, "cpus_here", lambda: 2)
    return patch.start, patch.stop
