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
from .vmas import HUGE_FIELDS, Sightings


# A VMA's line of maps or smaps, or a line after it of the fields of
# smaps that the survey reads: sizes in kB (SMAPS_KB), THPeligible,
# VmFlags.  The fields first: most lines are smaps fields.
SMAPS_KB = ("Rss", "KernelPageSize") + HUGE_FIELDS
SMAPS_LINE = re.compile(
    r"^(?:(%s):[ \t]*(\d+)[ \t]+kB[ \t]*"
    r"|THPeligible:[ \t]*(\S+).*"
    r"|VmFlags:(.*)"
    r"|([0-9a-f]+)-([0-9a-f]+)[ \t]+(\S+)[ \t]+([0-9a-f]+)"
    r"[ \t]+(\S+)[ \t]+(\d+)[ \t]*(.*))$" % "|".join(SMAPS_KB), re.M)


def parse_maps(text):
    """/proc/PID/maps or smaps text: a list of dicts (start, end, perms,
    path, ino and, from smaps, the fields of SMAPS_KB as bytes,
    THPeligible and VmFlags).  Only the lines read, by one pattern over
    the whole text: a snapshot reads smaps while the program runs, and
    what it costs is taken from the program's CPUs."""
    vmas, v = [], None
    for (key, kb, thp, flags, start, end, perms, off, dev, ino,
         path) in SMAPS_LINE.findall(text):
        if start:
            v = {"start": int(start, 16), "end": int(end, 16),
                 "perms": perms, "off": int(off, 16), "dev": dev,
                 "ino": int(ino), "path": path.strip()}
            vmas.append(v)
        elif v is None:
            continue
        elif key:
            v[key] = int(kb) * 1024
        elif thp:
            v["THPeligible"] = thp == "1"
        else:
            v["VmFlags"] = flags.split()
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
        # pid -> (smaps, exe, length and hash of the text) of its last
        # read: a process that waits (a parent, an idle server's worker)
        # shows the same text again, and its VMAs are the same
        # sightings (Sightings.again).  Not the text: a survey of a
        # thousand processes would keep 100 MB of it.
        self.texts = {}
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
        for d in (self.vmas, self.trackers, self.texts, self.smaps_ns,
                  self.procs, self.procs_ns, self.first_procs,
                  self.readings):
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
                seen = (full, exe_of(pid), len(text), hash(text))
                if self.texts.get(pid) == seen:
                    tr.again(now, full)
                else:
                    self.texts[pid] = seen
                    if tr.update(parse_maps(text), now, full,
                                 seen[1]) and not full:
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
