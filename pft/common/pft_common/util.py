# SPDX-License-Identifier: GPL-2.0-or-later
# pft_common.util - a command's messages on standard error, its usage
# errors, text made printable, an OSError in one line, standard output
# after a broken pipe, and the median.
#
# Copyright (C) 2026 The libfaultgen authors

import os
import sys


class Messages:
    """The messages of the command prog: "PROG: text" lines on standard
    error."""

    def __init__(self, prog):
        self.prog = prog

    def msg(self, text):
        """One line: what a terminal would act on in text (a program's
        name, a path) escaped (printable; a backslash kept, for text
        that its caller escaped already)."""
        print("%s: %s" % (self.prog, printable(text, backslash=False)),
              file=sys.stderr, flush=True)

    def usage_error(self, text):
        """A bad command line: its line, the hint, exit status 2."""
        self.msg(text)
        print("Try '%s --help' for more information." % self.prog,
              file=sys.stderr)
        sys.exit(2)


def printable(text, backslash=True):
    """text with what a terminal would act on escaped: control
    characters (C0, DEL, C1) and other unprintable ones as \\xNN or
    \\uNNNN, and the backslash doubled (backslash), so that a program's
    thread name or path cannot clear the screen or forge a line."""
    out = []
    for ch in text:
        if ch == "\\" and backslash:
            out.append("\\\\")
        elif ch.isprintable():
            out.append(ch)
        elif ord(ch) < 0x100:
            out.append("\\x%02x" % ord(ch))
        else:
            out.append("\\u%04x" % ord(ch) if ord(ch) < 0x10000 else
                       "\\U%08x" % ord(ch))
    return "".join(out)


def os_error(e):
    """An OSError in one line: "PATH: what"."""
    if e.filename:
        return "%s: %s" % (e.filename, e.strerror or e)
    return e.strerror or str(e)


def quiet_stdout():
    """After a broken pipe: stdout to /dev/null, so that Python's flush
    at exit does not complain again."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stdout.fileno())
        os.close(fd)
    except (OSError, ValueError, AttributeError):
        pass


def read_text(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def median(vals):
    """The median of a list of numbers, None for none."""
    vals = sorted(vals)
    n = len(vals)
    if not n:
        return None
    if n % 2:
        return vals[n // 2]
    return (vals[n // 2 - 1] + vals[n // 2]) / 2
