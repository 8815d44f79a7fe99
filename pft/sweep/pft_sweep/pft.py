# SPDX-License-Identifier: GPL-2.0-or-later
# pft_sweep.pft - the pft to run (pft_common.pft finds it), what patterns
# it runs, and reading its JSON Lines.
#
# Copyright (C) 2026 The libfaultgen authors

import json
import os
import re
import shutil
import subprocess

from pft_common.pft import find_pft


# The sweep's own pattern, not one of pft's: shared-vma in processes
# (pft -n).
PROCESSES = "processes"
# The patterns of a sweep without -p (those of them the pft runs).
DEFAULT_PATTERNS = ("shared-vma", "per-thread-vma", PROCESSES)


def locate_pft(c):
    """The pft to run; RuntimeError when there is none."""
    path = find_pft(c)
    if not (os.path.isfile(path) or shutil.which(path)):
        raise RuntimeError("cannot find pft ('%s'): give --pft=PATH" % path)
    return path


def pattern_table(path):
    """What pft's patterns are, by name in pft's order: what the library's
    tables say of each (pft --list-patterns --json: runs_once, backings,
    worker_kinds, its own settings), or {} for a pft that lists only
    names.  RuntimeError, one line, when it cannot say."""
    cmd = "%s --list-patterns --json" % path
    try:
        res = subprocess.run([path, "--list-patterns", "--json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             universal_newlines=True, errors="replace",
                             timeout=30)
    except subprocess.TimeoutExpired:
        raise RuntimeError("'%s' did not finish in 30 s" % cmd)
    except (OSError, ValueError) as e:
        raise RuntimeError("cannot run pft ('%s'): %s" %
                           (path, getattr(e, "strerror", None) or e))
    if res.returncode < 0:
        raise RuntimeError("'%s' was killed by signal %d" %
                           (cmd, -res.returncode))
    if res.returncode != 0:
        raise RuntimeError("'%s' failed (exit %d): %s" %
                           (cmd, res.returncode, pft_error(res.stderr)))
    table = {obj["pattern"]: obj for obj in json_records(
        res.stdout.splitlines()) if obj.get("schema") == "pft-patterns/1"
        and isinstance(obj.get("pattern"), str)}
    names = list(table) or res.stdout.split()
    if not names or not all(re.fullmatch(r"[a-z0-9][a-z0-9_-]*", n)
                            for n in names):
        raise RuntimeError("'%s' listed no patterns: not this project's "
                           "pft?" % cmd)
    return {n: table.get(n, {}) for n in names}


def list_patterns(path):
    """The names pft's --pattern takes, as that pft lists them."""
    return list(pattern_table(path))


def runs_once(c, pattern):
    """pft runs the pattern once, by the library's table (no rounds, no
    --duration, no --warmup): the sweep's points of it are one-shot."""
    name = "shared-vma" if pattern == PROCESSES else pattern
    return bool(getattr(c, "pattern_table", {}).get(name, {})
                .get("runs_once"))


def sweep_patterns(names):
    """The patterns a sweep with a pft of these patterns takes: the
    default ones first, in their order, then pft's others in pft's."""
    return [p for p in DEFAULT_PATTERNS if p == PROCESSES or p in names] + \
        [n for n in names if n not in DEFAULT_PATTERNS]


def pft_error(stderr):
    """pft's line saying what was wrong (before its "Try" hint)."""
    lines = [x for x in stderr.strip().splitlines() if x.strip()]
    while lines and lines[-1].startswith("Try '"):
        lines.pop()
    return lines[-1] if lines else "no message"


def json_records(lines):
    for line in lines:
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(obj, dict):
            yield obj
