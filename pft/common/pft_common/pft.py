# SPDX-License-Identifier: GPL-2.0-or-later
# pft_common.pft - the pft a command runs (the one beside it, $PFT, or on
# PATH), and the version line that names pft's library.
#
# Copyright (C) 2026 The libfaultgen authors

import os
import re
import shutil
import subprocess


def command_dir():
    """The directory of the command, links followed: the one its zipapp
    is in, or pft/ for a package run from the source tree (pft/sweep/,
    pft/survey/)."""
    path = getattr(__spec__.loader, "archive", None) or \
        os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    return os.path.dirname(os.path.realpath(path))


def find_pft(c):
    if c.pft:
        return c.pft
    if os.environ.get("PFT"):
        return os.environ["PFT"]
    sibling = os.path.join(command_dir(), "pft")
    if os.access(sibling, os.X_OK) and os.path.isfile(sibling):
        return sibling
    return shutil.which("pft") or "pft"


def print_version(c, prog):
    version = "unknown"
    try:
        out = subprocess.run([find_pft(c), "-V"], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT,
                             universal_newlines=True, errors="replace",
                             timeout=30).stdout
        m = re.search(r"libfaultgen ([^\s,]+)", out)
        if m:
            version = m.group(1)
    except (OSError, subprocess.SubprocessError):
        pass
    print("%s (libfaultgen %s)" % (prog, version))
