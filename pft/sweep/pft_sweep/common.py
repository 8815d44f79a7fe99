# SPDX-License-Identifier: GPL-2.0-or-later
# pft_sweep.common - what every part of pft-sweep shares: its name, its
# messages, usage errors.
#
# Copyright (C) 2026 The libfaultgen authors

import sys


PROG = "pft-sweep"


class UsageError(Exception):
    pass


def msg(text):
    print("%s: %s" % (PROG, text), file=sys.stderr, flush=True)


def usage_error(text):
    msg(text)
    print("Try '%s --help' for more information." % PROG, file=sys.stderr)
    sys.exit(2)


def read_text(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None
