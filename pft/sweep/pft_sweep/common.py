# SPDX-License-Identifier: GPL-2.0-or-later
# pft_sweep.common - what every part of pft-sweep shares: its name, its
# messages and usage errors (pft_common.util's, under its name), its
# figures' checks and the preflight of its output files.
#
# Copyright (C) 2026 The libfaultgen authors

import math
import os
import tempfile

from pft_common.safefile import check_target, own_directory
from pft_common.util import Messages, os_error, quiet_stdout, read_text

__all__ = ["PROG", "UsageError", "msg", "usage_error", "os_error",
           "quiet_stdout", "read_text", "finite", "clean", "safe_median",
           "ratio", "check_output"]

PROG = "pft-sweep"


class UsageError(Exception):
    pass


msg = Messages(PROG).msg
usage_error = Messages(PROG).usage_error


def finite(v):
    """v when it is a finite number (not a bool), else None: what the
    files and tables show of a figure that cannot be computed."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return v if math.isfinite(v) else None


def clean(v):
    """v with every non-finite float made None, for strict JSON."""
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [clean(x) for x in v]
    return v


def safe_median(vals):
    """The median of numbers that are finite and not negative, without
    the overflow of (a + b) / 2 near the largest float."""
    vals = sorted(vals)
    n = len(vals)
    if n % 2:
        return vals[n // 2]
    lo, hi = vals[n // 2 - 1], vals[n // 2]
    return lo + (hi - lo) / 2


def ratio(a, b):
    """a / b, or None when b is 0 or the quotient is not finite."""
    if not b:
        return None
    try:
        return finite(a / b)
    except (OverflowError, ZeroDivisionError):
        return None


# ---- output files -------------------------------------------------------

def check_output(prefix, suffixes, force, inputs=()):
    """Before anything runs: the files PREFIX + suffix can be written.
    Returns those that exist (which --force replaces).  UsageError when
    they exist without force or are files being read (inputs),
    RuntimeError when they cannot be written."""
    if prefix.endswith(os.sep) or os.path.isdir(prefix):
        raise UsageError("-o %s: a directory; give a prefix of file names "
                         "in it, e.g. %s" % (prefix, os.path.join(prefix,
                                                                  "base")))
    d = os.path.dirname(prefix) or "."
    if not os.path.isdir(d):
        raise RuntimeError("no directory '%s' for the output" % d)
    paths = [prefix + suf for suf in suffixes]
    for p in paths:
        for i in inputs:
            try:
                same = os.path.samefile(p, i)
            except OSError:
                same = False
            if same:
                raise UsageError("-o %s would replace %s, which is read "
                                 "here" % (prefix, i))
    found = [p for p in paths if os.path.lexists(p)]
    if found and not force:
        raise UsageError("-o %s: %s already exist%s (an earlier sweep or "
                         "comparison?): give --force to replace %s, or "
                         "another prefix" %
                         (prefix, ", ".join(found), "s" if len(found) == 1
                          else "", "it" if len(found) == 1 else "them"))
    try:
        # A file with no name, gone when closed: can the directory take
        # a new file?
        with tempfile.TemporaryFile(dir=d):
            pass
    except OSError as e:
        raise RuntimeError("cannot write the output in %s: %s" %
                           (d, e.strerror or e))
    for p in found:
        try:
            if p.endswith("-perf"):
                own_directory(p, create=False)
                continue
            check_target(p)
        except OSError as e:
            raise RuntimeError("cannot write %s: %s" % (p, e.strerror))
        if not os.access(p, os.W_OK):
            raise RuntimeError("cannot write %s: %s" %
                               (p, os.strerror(13)))
    return found
