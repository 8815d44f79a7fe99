# SPDX-License-Identifier: GPL-2.0-or-later
# pft_sweep.topology - CPU groups (L3, L2, core, node) from sysfs, or from a
# fake sysfs tree (PFT_SWEEP_SYSFS), and the points of --cpu-groups.
#
# Copyright (C) 2026 The libfaultgen authors

import os
import re

from .common import UsageError, read_text


GROUPS = ("l3", "l2", "core", "node")
GROUP_NAMES = {
    "l3": ("L3 domain", "L3 domains"), "l2": ("L2 domain", "L2 domains"),
    "core": ("core", "cores"), "node": ("node", "nodes"),
}
# ---- CPUs ---------------------------------------------------------------

def format_cpus(cpus):
    """"0-3,7" for [0, 1, 2, 3, 7]: pft parses it."""
    out, cpus = [], sorted(cpus)
    i = 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else "%d-%d" % (cpus[i], cpus[j]))
        i = j + 1
    return ",".join(out)


class Topology:
    """CPU groups from sysfs.  PFT_SWEEP_SYSFS names another directory to
    read instead of /sys (a fake machine, for tests): its CPUs are then the
    allowed ones, as this machine's affinity mask has nothing to do with
    it.  Groups are told apart by the text sysfs gives for them (the list
    of CPUs sharing a cache, a core's sibling list, the node link), never
    by parsing CPU lists: pft and the library own that syntax."""

    def __init__(self):
        self.fake = os.environ.get("PFT_SWEEP_SYSFS") or None
        self.root = self.fake or "/sys"
        self.cpu_dir = os.path.join(self.root, "devices", "system", "cpu")
        self.keys = {}

    def allowed(self):
        if not self.fake:
            return sorted(os.sched_getaffinity(0))
        try:
            names = os.listdir(self.cpu_dir)
        except OSError as e:
            raise RuntimeError("PFT_SWEEP_SYSFS: cannot read %s: %s" %
                               (self.cpu_dir, e.strerror))
        cpus = []
        for name in names:
            m = re.fullmatch(r"cpu([0-9]+)", name)
            if m and read_text(os.path.join(self.cpu_dir, name,
                                            "online")) != "0":
                cpus.append(int(m.group(1)))
        return sorted(cpus)

    def path(self, cpu, *parts):
        return os.path.join(self.cpu_dir, "cpu%d" % cpu, *parts)

    def key(self, cpu, kind):
        if (cpu, kind) not in self.keys:
            self.keys[(cpu, kind)] = self.read_key(cpu, kind)
        return self.keys[(cpu, kind)]

    def read_key(self, cpu, kind):
        if kind in ("l3", "l2"):
            return self.cache_key(cpu, kind[1])
        if kind == "core":
            for f in ("core_cpus_list", "thread_siblings_list"):
                v = read_text(self.path(cpu, "topology", f))
                if v:
                    return v
            return None
        try:
            names = os.listdir(self.path(cpu))
        except OSError:
            return None
        nodes = sorted(n for n in names if re.fullmatch(r"node[0-9]+", n))
        return nodes[0] if nodes else None

    def cache_key(self, cpu, level):
        base = self.path(cpu, "cache")
        try:
            indexes = sorted(os.listdir(base))
        except OSError:
            return None
        for idx in indexes:
            d = os.path.join(base, idx)
            if read_text(d + "/level") == level and \
                    read_text(d + "/type") in ("Unified", "Data"):
                return read_text(d + "/shared_cpu_list") or \
                    read_text(d + "/id")
        return None

    def missing(self, kind, cpu):
        where = {"l3": "cache", "l2": "cache", "core": "topology",
                 "node": "nodeN link"}[kind]
        return "--cpu-groups=%s: sysfs gives no %s for CPU %d (%s)" % (
            kind, {"l3": "L3 cache", "l2": "L2 cache", "core": "core",
                   "node": "NUMA node"}[kind], cpu,
            self.path(cpu, "" if kind == "node" else where))

    def groups(self, kind, allowed):
        """The allowed CPUs by group, groups in the order of their lowest
        CPU; in a group, one hardware thread of each core comes before
        any core's second thread, so that W workers in a group use W
        cores when it has them."""
        by_key = {}
        for cpu in allowed:
            key = self.key(cpu, kind)
            if key is None:
                raise RuntimeError(self.missing(kind, cpu))
            by_key.setdefault(key, []).append(cpu)
        rank, seen = {}, {}
        for cpu in allowed:
            core = self.key(cpu, "core") or cpu
            rank[cpu] = seen.get(core, 0)
            seen[core] = rank[cpu] + 1
        return [sorted(cpus, key=lambda x: (rank[x], x))
                for cpus in by_key.values()]

    def summary(self, allowed):
        out = {"cpus": len(allowed), "cpus_allowed": format_cpus(allowed),
               "cpus_online": read_text(os.path.join(self.cpu_dir,
                                                     "online"))}
        names = {"l3": "l3_domains", "l2": "l2_domains", "core": "cores",
                 "node": "nodes"}
        for kind in GROUPS:
            try:
                g = self.groups(kind, allowed)
            except RuntimeError:
                g = None
            out[names[kind]] = len(g) if g is not None else None
            if kind == "core":
                out["threads_per_core"] = max(map(len, g)) if g else None
        return out


def layout_rows(c, topo, allowed):
    """The points of --cpu-groups: layout key, label, workers, CPUs."""
    rows, keys = [], set()
    for g in c.cpu_groups:
        groups = topo.groups(g["kind"], allowed)
        specs = g["specs"]
        if specs is None:
            specs = [(n, 1) for n in c.workers or
                     default_counts(len(groups))]
        for ng, nw in specs:
            row = layout_row(g, groups, ng, nw)
            if row["layout"] not in keys:
                keys.add(row["layout"])
                rows.append(row)
    return rows


def layout_row(g, groups, ng, nw):
    one, many = g["names"]
    opt = "--cpu-groups=%s" % g["text"]
    n = len(groups) if ng == "all" else ng
    if n > len(groups):
        raise UsageError("%s: %d %s asked, the allowed CPUs span %d" %
                         (opt, n, many, len(groups)))
    chosen = groups[:n]
    if nw == "all":
        per = [len(x) for x in chosen]
    else:
        short = [x for x in chosen if len(x) < nw]
        if short:
            raise UsageError("%s: %d workers per %s asked, the %s of CPU "
                             "%d has %d allowed CPU(s)" %
                             (opt, nw, one, one, min(short[0]),
                              len(short[0])))
        per = [nw] * n
    cpus = sorted(cpu for x, k in zip(chosen, per) for cpu in x[:k])
    return {"layout": "%s:%sx%s" % (g["kind"], n, nw),
            "label": layout_label(one, many, n, nw, len(cpus)),
            "workers": len(cpus), "cpus": cpus}


def layout_label(one, many, n, nw, total):
    """In the words of the tables kernel developers post."""
    if nw == "all":
        return "%d %s, all %d CPUs" % (n, one if n == 1 else many, total)
    workers = "%d worker%s" % (nw, "" if nw == 1 else "s")
    if n == 1:
        return "1 %s, %s" % (one, workers)
    return "%d %s, %s each" % (n, many, workers)


def default_counts(limit):
    counts, n = [], 1
    while n < limit:
        counts.append(n)
        n *= 2
    counts.append(limit)
    return counts
