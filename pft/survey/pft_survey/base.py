# SPDX-License-Identifier: GPL-2.0-or-later
# pft_survey.base - what every part of pft-survey shares: its name, its
# messages, its one-line errors, the page size and how often it looks.
#
# Copyright (C) 2026 The libfaultgen authors

import os

from pft_common.util import Messages

PROG = "pft-survey"
PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
MiB = 1 << 20
# Snapshots of /proc while the program runs: maps and the threads'
# counters every SNAP_S, smaps (which walks the page tables) every
# SMAPS_EVERY-th snapshot (for a process, every one while reading its
# smaps took less than SMAPS_CHEAP_NS, and the next after a large VMA
# came), and at the end of an attached survey.
SNAP_S = 0.01
SMAPS_EVERY = 10
SMAPS_CHEAP_NS = 5000000        # smaps every time while it takes less
TOP_VMAS = 5
TOP_THREADS = 4
TOP_OBJECTS = 3


class SurveyError(Exception):
    """One line for the user, and the exit status."""

    def __init__(self, text, status=1):
        super().__init__(text)
        self.status = status


msg = Messages(PROG).msg
usage_error = Messages(PROG).usage_error
