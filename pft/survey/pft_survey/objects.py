# SPDX-License-Identifier: GPL-2.0-or-later
# pft_survey.objects - the memory objects a program's faults fell on, and
# the facts of a survey: per object, process, thread and kind, the
# faults, their bytes and their times.
#
# Copyright (C) 2026 The libfaultgen authors
#
# VMAs that map the same object are one object, whatever process maps
# it: a file (and a shmem file: a memfd, a SysV segment, shared
# anonymous memory inherited over fork, /dev/zero mapped shared, a
# hugetlbfs file) is its device and inode, as /proc/PID/maps and perf's
# MMAP2 records name them.  Private anonymous memory (and /dev/zero
# mapped private) is the process's own: one object per VMA, the pieces
# of a split VMA or a moved one together (pft_survey.vmas).  A page of an
# object is its offset in the file, so that two processes faulting the
# same shared page are seen to.

import math

from . import kinds as K
from pft_common.util import median

WINDOW_NS = 1000000             # the concurrency window: 1 ms


def is_private_anon(v):
    path = v.get("path") or ""
    perms = v.get("perms") or ""
    if path in ("", "//anon", "[heap]") or path.startswith("[stack"):
        return perms[3:4] != "s"
    return path.startswith("/dev/zero") and perms[3:4] == "p" and \
        not path.endswith("(deleted)")


def object_key(pid, v):
    """The object a VMA maps: ("file", dev, inode) or ("vma", pid, n)."""
    ino = v.get("ino") or 0
    # A SysV segment's inode number is its shmid: 0 for the first one
    # of an IPC namespace.
    sysv = (v.get("path") or "").startswith("/SYSV")
    if (ino or sysv) and not is_private_anon(v):
        return ("file", v.get("dev") or "?", ino)
    return ("vma", pid, v.get("object") or v["start"])


def page_index(v, addr):
    """The page of its object that addr maps: the file offset's page for
    a file, the address's page for private memory."""
    if (v.get("ino") or (v.get("path") or "").startswith("/SYSV")) and \
            not is_private_anon(v):
        start = v["cur"][0] if v.get("cur") else v["start"]
        off = v.get("off", 0)
        return (off + addr - start) // K.PAGE
    return addr // K.PAGE


def file_at(v):
    """Where a VMA maps its file: its offset, at the start maps showed
    last (page_index)."""
    return v.get("off"), v["cur"][0] if v.get("cur") else v["start"]


class Cell:
    """The faults of one object, process, thread and kind."""

    __slots__ = ("faults", "bytes", "first_ns", "last_ns")

    def __init__(self):
        self.faults = self.bytes = 0
        self.first_ns = self.last_ns = None

    def add(self, t, faults, nbytes):
        self.faults += faults
        self.bytes += nbytes
        if self.first_ns is None or t < self.first_ns:
            self.first_ns = t
        if self.last_ns is None or t > self.last_ns:
            self.last_ns = t


class Facts:
    """What a survey recorded, kept for the report, the verdict and a
    profile: objects, and per (object, pid, tid, kind) a Cell."""

    def __init__(self, source, events=False):
        self.source = source
        # Each fault, for a profile (events=True): (t, pid, tid, key,
        # kind, page, faults).
        self.events = [] if events else None
        self.objects = {}       # key -> {"backing", "path", "vmas", ...}
        self.cells = {}         # (key, pid, tid, kind) -> Cell
        self.pages = {}         # key -> {page: {pid: {tids}}}
        self.huge_pages = {}    # key -> {page: bytes of its huge page}
        self.times = {}         # key -> [(t, pid, tid)]
        self.vma_tids = {}      # key -> {(pid, VMA start): {tids}}
        self.forks = []         # (t, child pid, parent pid)
        # The mapping calls, for a profile where perf recorded them
        # (pft_survey.calls.join), else None.
        self.calls = None
        self.exits = {}         # pid -> time

    def add_vma(self, key, pid, v, backing):
        o = self.objects.get(key)
        if o is None:
            o = self.objects[key] = {
                "key": key, "backing": backing, "path": v.get("path") or "",
                "shared": (v.get("perms") or "")[3:4] == "s" or
                backing == "SysV shm",
                "vmas": {}, "size": 0, "huge_seen": 0, "writable": False}
        o["writable"] = o["writable"] or (v.get("perms") or "")[1:2] == "w"
        vk = (pid, v["start"], v["end"])
        if vk not in o["vmas"]:
            o["vmas"][vk] = v
            o["size"] = max(o["size"], v["end"] - v["start"])
            o["huge_seen"] = max(o["huge_seen"], v.get("huge_max", 0))
        elif file_at(o["vmas"][vk]) != file_at(v) and \
                all(file_at(x) != file_at(v) for _, x in o.get("remapped", ())):
            # The same range of the file mapped again at another offset
            # (a remap over it): its pages too.
            o.setdefault("remapped", []).append((vk, v))
        return o

    def add(self, key, pid, tid, kind, t, faults, nbytes, page, vma=None):
        c = self.cells.get((key, pid, tid, kind))
        if c is None:
            c = self.cells[(key, pid, tid, kind)] = Cell()
        c.add(t, faults, nbytes)
        # A write fault on it: writable then, whatever the views of
        # its VMAs saw (a range made writable and written between two).
        if kind in K.WRITE_KINDS and key in self.objects:
            self.objects[key]["writable"] = True
        if self.events is not None:
            self.events.append((t, pid, tid, key, kind, page, faults))
        if page is not None:
            self.pages.setdefault(key, {}).setdefault(page, {}) \
                .setdefault(pid, set()).add(tid)
            if kind == K.HUGE_KIND and faults:
                self.huge_pages.setdefault(key, {})[page] = nbytes // faults
        self.times.setdefault(key, []).append((t, pid, tid))
        if vma is not None:
            self.vma_tids.setdefault(key, {}).setdefault((pid, vma),
                                                         set()).add(tid)

    def by_object(self, key):
        return [(k, c) for k, c in self.cells.items() if k[0] == key]


def concurrency(times, who):
    """The most and the median number of distinct processes (who=1) or
    threads (who=2) faulting within the same 1 ms window."""
    windows = {}
    for x in times:
        windows.setdefault(x[0] // WINDOW_NS, set()).add(x[who])
    sizes = [len(s) for s in windows.values()]
    if not sizes:
        return 0, 0
    return max(sizes), median(sizes)


def runs(pages):
    """The runs of consecutive pages in a sorted list, and the chunk they
    are made of: the greatest common divisor of their lengths (the last
    run left out: it can end with a partial chunk).  A worker that
    claims chunks of memory in turn has many runs, a chunk or a few
    adjacent chunks long."""
    lengths = []
    i = 0
    while i < len(pages):
        j = i
        while j + 1 < len(pages) and pages[j + 1] == pages[j] + 1:
            j += 1
        lengths.append(j - i + 1)
        i = j + 1
    chunk = 0
    for n in lengths[:-1] or lengths:
        chunk = math.gcd(chunk, n)
    return len(lengths), chunk


def tallies(facts, key):
    """An object's faults and bytes by kind, by process and by thread
    (each with its kinds): three dicts."""
    kinds, pids, tids = {}, {}, {}
    for (_k, pid, tid, kind), c in facts.by_object(key):
        e = kinds.setdefault(kind, {"faults": 0, "bytes": 0})
        e["faults"] += c.faults
        e["bytes"] += c.bytes
        p = pids.setdefault(pid, {"faults": 0, "bytes": 0})
        p["faults"] += c.faults
        p["bytes"] += c.bytes
        th = tids.setdefault(tid, {"tid": tid, "pid": pid, "faults": 0,
                                   "bytes": 0, "kinds": {}})
        th["faults"] += c.faults
        th["bytes"] += c.bytes
        th["kinds"][kind] = th["kinds"].get(kind, 0) + c.faults
    return kinds, pids, tids


def thread_pages(threads, pages, huge, names):
    """Each thread's pages of the object: how many, their bytes, its runs
    of pages and the gaps between them that other threads filled."""
    per_tid_pages = {}
    for page, pg in pages.items():
        for tset in pg.values():
            for tid in tset:
                per_tid_pages.setdefault(tid, []).append(page)
    # The thread of each page faulted by one alone: whose pages lie in
    # the gaps between a thread's runs (chunks claimed in turn fill each
    # other's gaps; lost samples leave holes no one filled).
    owner = {}
    for page, pg in pages.items():
        ts = set().union(*pg.values())
        if len(ts) == 1:
            owner[page] = next(iter(ts))
    for th in threads:
        th["name"] = names.get(th["tid"], "?")
        mine = sorted(per_tid_pages.get(th["tid"], ()))
        th["pages"] = len(mine)
        th["distinct_bytes"] = sum(huge.get(pg, K.PAGE) for pg in mine)
        th["runs"], th["run_pages"] = runs(mine)
        th["gaps_filled_by_others"] = sum(
            1 for a, b in zip(mine, mine[1:])
            if b != a + 1 and owner.get(a + 1, th["tid"]) != th["tid"])


def one_vma_per_thread(facts, key):
    """A process's VMAs of the object each faulted by a thread of its
    own (pft -M)."""
    vt = facts.vma_tids.get(key, {})
    return len(vt) > 1 and len({p for p, _ in vt}) == 1 and \
        all(len(x) == 1 for x in vt.values()) and \
        len(set().union(*vt.values())) == len(vt)


def summary(facts, key, names):
    """One object's report: its faults and bytes by kind, processes and
    threads, concurrency across them, and the pages more than one of
    them faulted.  names: tid -> thread name."""
    o = facts.objects[key]
    kinds, pids, tids = tallies(facts, key)
    pages = facts.pages.get(key, {})
    huge = facts.huge_pages.get(key, {})
    times = facts.times.get(key, [])
    pmost, pmed = concurrency(times, 1)
    tmost, tmed = concurrency(times, 2)
    threads = sorted(tids.values(), key=lambda x: (-x["bytes"], x["tid"]))
    thread_pages(threads, pages, huge, names)
    first = min((c.first_ns for _, c in facts.by_object(key)), default=None)
    last = max((c.last_ns for _, c in facts.by_object(key)), default=None)
    return {
        "id": "%s:%s:%s" % key,
        "backing": o["backing"], "path": o["path"], "shared": o["shared"],
        "writable": o["writable"],
        "size": o["size"],
        "vmas": len(o["vmas"]),
        # Resident memory of its VMAs when smaps last saw them: a fault
        # on a file or shmem page can map several (fault-around, a large
        # folio).
        "rss": sum(v.get("Rss", 0) for v in o["vmas"].values()),
        "rss_max": max((v.get("Rss", 0) for v in o["vmas"].values()),
                       default=0),
        # Its distinct pages faulted, a huge page as its bytes.
        "distinct_bytes": sum(huge.get(pg, K.PAGE) for pg in pages),
        # Its pages faulted in each process's own page tables: a page
        # that two processes faulted counts twice.
        "process_bytes": sum(huge.get(pg, K.PAGE) * len(pp)
                             for pg, pp in pages.items()),
        "per_thread_vmas": one_vma_per_thread(facts, key),
        "huge_bytes_seen": o["huge_seen"],
        "faults": sum(e["faults"] for e in kinds.values()),
        "bytes": sum(e["bytes"] for e in kinds.values()),
        "kinds": kinds,
        "processes": len(pids), "pids": sorted(pids),
        "threads": len(tids),
        "top_threads": threads,
        "pages": len(pages),
        "pages_by_more_than_one_process": sum(1 for pg in pages.values()
                                              if len(pg) > 1),
        "pages_by_more_than_one_thread": sum(
            1 for pg in pages.values()
            if sum(len(s) for s in pg.values()) > 1),
        "concurrency_processes_max": pmost,
        "concurrency_processes_median": pmed,
        "concurrency_threads_max": tmost,
        "concurrency_threads_median": tmed,
        "first_ns": first, "last_ns": last,
    }


def cells_json(facts):
    """The facts as a list, for --json and a profile: one entry per
    object, process, thread and kind."""
    out = []
    for (key, pid, tid, kind), c in sorted(
            facts.cells.items(), key=lambda x: (str(x[0][0]),) + x[0][1:]):
        out.append({"object": "%s:%s:%s" % key, "pid": pid, "tid": tid,
                    "kind": kind, "faults": c.faults, "bytes": c.bytes,
                    "first_ns": c.first_ns, "last_ns": c.last_ns})
    return out
