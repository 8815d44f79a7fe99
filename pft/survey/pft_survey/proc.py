# SPDX-License-Identifier: GPL-2.0-or-later
# pft_survey.proc - /proc while the program runs: maps and smaps, the
# processes' and threads' fault counters, the descendants of a process,
# and the periodic Snapshots of them (a VMA's sightings: pft_survey.vmas).
#
# Copyright (C) 2026 The libfaultgen authors

import os
import re
import time

from .base import SMAPS_CHEAP_NS, SMAPS_EVERY
from .vmas import Sightings


MAPS_LINE = re.compile(r"^(?P<start>[0-9a-f]+)-(?P<end>[0-9a-f]+)\s+"
                       r"(?P<perms>\S+)\s+(?P<off>[0-9a-f]+)\s+"
                       r"(?P<dev>\S+)\s+(?P<ino>\d+)\s*(?P<path>.*)$")


def parse_maps(text):
    """/proc/PID/maps or smaps text: a list of dicts (start, end, perms,
    path, ino and, from smaps, the fields in kB as bytes)."""
    vmas = []
    for line in text.splitlines():
        m = MAPS_LINE.match(line)
        if m:
            vmas.append({"start": int(m.group("start"), 16),
                         "end": int(m.group("end"), 16),
                         "perms": m.group("perms"),
                         "off": int(m.group("off"), 16),
                         "dev": m.group("dev"),
                         "ino": int(m.group("ino")),
                         "path": m.group("path").strip()})
            continue
        if vmas and line.startswith("VmFlags:"):
            vmas[-1]["VmFlags"] = line[len("VmFlags:"):].split()
            continue
        if vmas and ":" in line:
            key, _, val = line.partition(":")
            val = val.split()
            if len(val) == 2 and val[1] == "kB" and val[0].isdigit():
                vmas[-1][key.strip()] = int(val[0]) * 1024
            elif key.strip() == "THPeligible" and val:
                vmas[-1]["THPeligible"] = val[0] == "1"
    return vmas


def parse_stat(text):
    """/proc/PID/stat: (name, state, minflt, majflt)."""
    lp, rp = text.find("("), text.rfind(")")
    if lp < 0 or rp < 0:
        return None
    f = text[rp + 2:].split()
    try:
        return text[lp + 1:rp], f[0], int(f[7]), int(f[9])
    except (IndexError, ValueError):
        return None


def exe_of(pid):
    """The program process pid runs (its /proc exe link), or None."""
    try:
        return os.readlink("/proc/%d/exe" % pid)
    except OSError:
        return None


def read(path):
    """A /proc file's text, or None.  Bytes that are not UTF-8 (a mapped
    file's name, a thread's) are kept as surrogate escapes: the line and
    its process stay, and the name is written back as the same bytes
    (os.fsencode)."""
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "surrogateescape")
    except OSError:
        return None


def descendants(pid):
    """pid and its descendant processes, from /proc/PID/task/*/children,
    but the survey itself and its own children (perf) when it is one of
    them (-p of its parent, or of pid 1 of its namespace)."""
    out, todo = [], [pid]
    me = os.getpid()
    while todo:
        p = todo.pop()
        if p in out or (p == me and p != pid):
            continue
        out.append(p)
        try:
            tids = os.listdir("/proc/%d/task" % p)
        except OSError:
            continue
        for t in tids:
            kids = read("/proc/%d/task/%s/children" % (p, t)) or ""
            todo.extend(int(k) for k in kids.split())
    return out


class Snapshots:
    """Periodic views of the surveyed processes: their VMAs (maps, and
    smaps now and then), their threads' names and fault counters."""

    def __init__(self, root, follow=True, attached=False):
        self.root = root
        self.attached = attached
        self.follow = follow
        self.count = 0
        self.smaps_soon = set()  # pids to read smaps of next time
        self.smaps_ns = {}      # pid -> what its last smaps read took
        self.vmas = {}          # pid -> {(start, end, first seen): vma}
        self.trackers = {}      # pid -> vmas.Sightings
        self.objects = [0]      # the last object number given
        # tid -> {"pid", "name", "minflt", "majflt", "ns": when last
        # read; attached: "base" its count and "base_ns" when first read}
        self.threads = {}
        self.procs = {}         # pid -> (minflt, majflt) last seen
        self.procs_ns = {}      # pid -> when its counters were last read
        self.first_procs = {}   # pid -> (minflt, majflt) first seen
        # pid -> [reading]: each snapshot that read the process's and
        # its threads' counters (pft_survey.counters).
        self.readings = {}

    def forget(self, pid):
        """Leaves out process pid (one perf did not record)."""
        for d in (self.vmas, self.trackers, self.smaps_ns, self.procs,
                  self.procs_ns, self.first_procs, self.readings):
            d.pop(pid, None)
        for tid in [t for t, k in self.threads.items() if k["pid"] == pid]:
            del self.threads[tid]

    def take(self, smaps=None):
        now = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        asked = smaps
        if smaps is None:
            smaps = self.count % SMAPS_EVERY == 0
        soon, self.smaps_soon = self.smaps_soon, set()
        self.count += 1
        pids = descendants(self.root) if self.follow else [self.root]
        for pid in pids:
            # smaps every SMAPS_EVERY-th snapshot; for a process whose
            # smaps costs little (pft), every time; after a large VMA
            # came, at the next: a short program's huge pages are seen.
            full = smaps or (asked is None and (
                pid in soon or self.smaps_ns.get(pid, 0) < SMAPS_CHEAP_NS))
            t0 = time.monotonic_ns()
            text = read("/proc/%d/%s" % (pid, "smaps" if full else "maps"))
            if full:
                self.smaps_ns[pid] = time.monotonic_ns() - t0
            if text:
                # A VMA is one sighting from the snapshot that first saw
                # it to the last one in a row (pft_survey.vmas).
                tr = self.trackers.get(pid)
                if tr is None:
                    tr = self.trackers[pid] = Sightings(self.objects)
                    self.vmas[pid] = tr.all
                if tr.update(parse_maps(text), now, full,
                             exe_of(pid)) and not full:
                    self.smaps_soon.add(pid)
            self.read_counters(pid)

    def read_counters(self, pid):
        """The fault counters of process pid and of each of its threads,
        and when each was read (time.monotonic_ns: CLOCK_MONOTONIC, the
        clock perf records with here); the snapshot's reading of them
        all (pft_survey.counters)."""
        begin = time.monotonic_ns()
        st = parse_stat(read("/proc/%d/stat" % pid) or "")
        if st and st[1] == "Z":
            st = None
        if st:
            self.procs[pid] = (st[2], st[3])
            self.procs_ns[pid] = begin
            self.first_procs.setdefault(pid, (st[2], st[3]))
        try:
            tids = os.listdir("/proc/%d/task" % pid)
        except OSError:
            return
        counted = {}
        for t in tids:
            ns = time.monotonic_ns()
            st2 = parse_stat(read("/proc/%d/task/%s/stat" % (pid, t)) or "")
            if st2 and st2[1] != "Z":
                old = self.threads.get(int(t))
                # Attached: count from the first snapshot on.
                base = (old["base"] if old else
                        (st2[2] + st2[3] if self.attached else 0))
                self.threads[int(t)] = {
                    "pid": pid, "name": st2[0], "minflt": st2[2],
                    "majflt": st2[3], "base": base, "ns": ns,
                    "base_ns": (old["base_ns"] if old else
                                (ns if self.attached else None))}
                counted[int(t)] = st2[2] + st2[3]
        if st:
            self.readings.setdefault(pid, []).append({
                "begin": begin,
                "end": time.monotonic_ns(),
                "faults": st[2] + st[3], "threads": counted})
