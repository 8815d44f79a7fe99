# SPDX-License-Identifier: GPL-2.0-or-later
# fakesys.py - small fake sysfs trees in a temporary directory, as
# PFT_SWEEP_SYSFS reads them, a fake pft, and runs CSV files in the
# package's schema.
#
# Copyright (C) 2026 The libfaultgen authors

import os
import stat
import types

from pft_sweep import runs


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text + "\n")


def cpu_dir(root, cpu):
    return os.path.join(root, "devices", "system", "cpu", "cpu%d" % cpu)


def add_cpu(root, cpu, l3=None, l2=None, core=None, node=None,
            online=None):
    """CPU `cpu`: its L3 and L2 (shared_cpu_list texts), its core's
    sibling list, its node number, its online file."""
    d = cpu_dir(root, cpu)
    os.makedirs(d, exist_ok=True)
    if online is not None:
        write(os.path.join(d, "online"), online)
    # index0 is an L1 instruction cache, which never makes a group.
    write(os.path.join(d, "cache", "index0", "level"), "1")
    write(os.path.join(d, "cache", "index0", "type"), "Instruction")
    write(os.path.join(d, "cache", "index0", "shared_cpu_list"), str(cpu))
    for idx, level, shared in (("index2", 2, l2), ("index3", 3, l3)):
        if shared is None:
            continue
        base = os.path.join(d, "cache", idx)
        write(os.path.join(base, "level"), str(level))
        write(os.path.join(base, "type"), "Unified")
        write(os.path.join(base, "shared_cpu_list"), shared)
    if core is not None:
        write(os.path.join(d, "topology", "core_cpus_list"), core)
    if node is not None:
        os.symlink("../../node/node%d" % node,
                   os.path.join(d, "node%d" % node))


def fake_pft(dirname, body):
    """An executable shell script standing for pft."""
    path = os.path.join(dirname, "pft")
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body + "\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


def write_runs(prefix, points):
    """A runs CSV in the package's schema: points is a list of (pattern,
    workers, layout, figures)."""
    recs = []
    for pattern, workers, layout, figures in points:
        for i, v in enumerate(figures, 1):
            recs.append({"pattern": pattern, "workers": workers, "cpus": "",
                         "size": "1G", "layout": layout, "run": i,
                         "fault_per_wsec": v})
    c = types.SimpleNamespace(points=[{"runs": recs}])
    runs.write_csv(prefix + "-runs.csv", runs.RUN_COLUMNS,
                   list(runs.run_rows(c)))
