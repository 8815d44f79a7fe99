# SPDX-License-Identifier: GPL-2.0-or-later
# filetests.py - for the unit tests of pft_sweep and pft_survey: the
# files other users could leave where a report is written (a FIFO, a
# link, a directory, a device), and what a path is, to see it unchanged.
#
# Copyright (C) 2026 The libfaultgen authors

import os
import stat


def special_files(d):
    """{name: path} of a FIFO, a link to a file, a directory and, as
    root, a character device like /dev/null, made in d."""
    out = {}
    out["fifo"] = os.path.join(d, "fifo")
    os.mkfifo(out["fifo"])
    victim = os.path.join(d, "victim")
    with open(victim, "w") as f:
        f.write("precious\n")
    out["link"] = os.path.join(d, "link")
    os.symlink(victim, out["link"])
    out["dir"] = os.path.join(d, "dir")
    os.mkdir(out["dir"])
    if os.geteuid() == 0:
        out["device"] = os.path.join(d, "null")
        os.mknod(out["device"], 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    return out


def state(path):
    st = os.lstat(path)
    return stat.S_IFMT(st.st_mode), st.st_ino
