# SPDX-License-Identifier: GPL-2.0-or-later
# pft_survey.vmas - one VMA over its life, from snapshots of
# /proc/PID/maps and perf's MMAP records, and the lookup of a fault's
# address among them.
#
# Copyright (C) 2026 The libfaultgen authors
#
# A snapshot shows the kernel's VMAs at one moment; between two of them
# a VMA can grow (brk, a stack, a mapping merged below or above it),
# shrink, split (mprotect or munmap of a middle part) or move (mremap).
# A sighting is one VMA followed over the snapshots: it keeps every
# extent it was seen with (its history) and spans the most it held.
# Pieces of a split, and a VMA moved whole, keep the object of the VMA
# they came from, so that a region's faults stay together however the
# kernel cut it.  perf's MMAP records are the authority for what was
# mapped between two snapshots: a record that overlaps a sighting of
# the same memory, made while the sighting lived, is an extent it had
# (the kernel reports a merged VMA whole).

import bisect
import os
import struct

from . import objects

# The smaps fields of transparent huge pages mapped by PMD.
HUGE_FIELDS = ("AnonHugePages", "ShmemPmdMapped", "FilePmdMapped")
BIG = 2 << 20                   # a VMA that can hold a huge page


def same_memory(a, b):
    """Whether two views of a range map the same kind of memory: the
    same path (anonymous, a file) and permissions."""
    return a.get("path") == b.get("path") and a.get("perms") == b.get("perms")


def huge_bytes(v):
    return sum(v.get(k, 0) for k in HUGE_FIELDS)


class Sightings:
    """The VMAs of one process as the snapshots saw them.  all: every
    sighting by (start, end, first seen); current: the last snapshot's,
    by range."""

    def __init__(self, objects=None):
        self.all = {}
        self.current = {}
        # The program the process ran at the last snapshot (its exe).
        self.exe = None
        # Object numbers, shared by the processes of a survey.
        self.objects = objects if objects is not None else [0]

    def new_object(self):
        self.objects[0] += 1
        return self.objects[0]

    def update(self, views, now, smaps, exe=None):
        """Follows the VMAs over one more snapshot (views: parse_maps;
        exe: the program the process runs, where known).  Returns the
        number of VMAs of 2 MiB or more it saw first, or grow to that.
        After an exec (another exe) no VMA is one of before it: a stack
        of the same size elsewhere is not the old one moved."""
        if exe is not None and self.exe is not None and exe != self.exe:
            self.current = {}
        if exe is not None:
            self.exe = exe
        ranges = {(v["start"], v["end"]) for v in views}
        gone = {k: o for k, o in self.current.items() if k not in ranges}
        cur = {}
        pending = self.same_ranges(views, gone, cur, now, smaps)
        rest, big = self.resized(pending, gone, cur, now, smaps)
        for v in rest:
            if self.first_sighting(v, gone, cur, now, smaps):
                big += 1
        self.current = cur
        return big

    def again(self, now, smaps):
        """The last snapshot's VMAs seen again as they were (the same
        text of maps, or of smaps where smaps): what update makes of
        them, each one's last sighting now."""
        for v in self.current.values():
            v["last_ns"] = now
            if smaps:
                v["smaps_ns"] = now

    def same_ranges(self, views, gone, cur, now, smaps):
        """The VMAs of views on the same range as before, into cur: the
        same VMA.  Returns the others."""
        prev = self.current
        pending = []
        for v in views:
            key = (v["start"], v["end"])
            old = prev.get(key)
            # Other permissions on the same range: mprotect of the VMA,
            # unless a range of the same size and memory went away (a
            # VMA moved over a reservation, as mremap does).
            if old is not None and old["path"] == v.get("path") and \
                    (old.get("perms") == v.get("perms") or not any(
                        k[1] - k[0] == key[1] - key[0] and same_memory(o, v)
                        for k, o in gone.items())):
                cur[key] = self.seen(old, v, now, smaps)
            else:
                pending.append(v)
        return pending

    def resized(self, pending, gone, cur, now, smaps):
        """A range gone whose start, path and permissions come back with
        another end is the same VMA grown or shrunk at its end (brk, a
        neighbour merged, mremap in place); one whose end comes back
        with another start moved at its start (a mapping merged below
        it, a stack grown).  Those into cur; returns the VMAs of pending
        that are none of them, and how many grew to 2 MiB or more."""
        rest = []
        big = 0
        for v in pending:
            was = next((o for k, o in gone.items()
                        if (k[0] == v["start"] or k[1] == v["end"]) and
                        same_memory(o, v)), None)
            if was is None:
                rest.append(v)
                continue
            del gone[(was["cur"][0], was["cur"][1])]
            if v["end"] - v["start"] > was["cur"][1] - was["cur"][0] and \
                    v["end"] - v["start"] >= BIG:
                big += 1
            cur[(v["start"], v["end"])] = self.seen(was, v, now, smaps)
        return rest, big

    def first_sighting(self, v, gone, cur, now, smaps):
        """v a new sighting, into cur and all: a piece of a VMA split, a
        VMA moved whole, or a new object.  Returns whether it is of 2
        MiB or more."""
        key = (v["start"], v["end"])
        # A piece of a VMA split (mprotect, munmap of a middle part):
        # within an extent another sighting had, the same path.
        parent = next((o for o in list(cur.values()) + list(gone.values())
                       if o["start"] <= v["start"] and
                       v["end"] <= o["end"] and
                       o.get("path") == v.get("path")), None)
        # A VMA moved whole (mremap): a range gone of the same size
        # and memory.
        moved = next((o for k, o in gone.items()
                      if k[1] - k[0] == v["end"] - v["start"] and
                      same_memory(o, v)), None) \
            if parent is None else None
        v["first_ns"] = v["last_ns"] = now
        v["cur"] = key
        v["history"] = [(now, v["start"], v["end"])]
        if "Rss" in v:
            v["first_rss"] = v["Rss"]
        if smaps:
            v["smaps_ns"] = now
            v["huge_max"] = huge_bytes(v)
        if parent is not None:
            v["object"] = parent["object"]
            v["split_from"] = (parent["start"], parent["end"])
        elif moved is not None:
            v["object"] = moved["object"]
            v["moved_from"] = moved["cur"]
            del gone[moved["cur"]]
        else:
            v["object"] = self.new_object()
        self.all[key + (now,)] = v
        cur[key] = v
        return v["end"] - v["start"] >= BIG

    @staticmethod
    def seen(old, v, now, smaps):
        """A sighting seen again, as v."""
        if old["cur"] != (v["start"], v["end"]):
            old["history"].append((now, v["start"], v["end"]))
            old["cur"] = (v["start"], v["end"])
        old["start"] = min(old["start"], v["start"])
        old["end"] = max(old["end"], v["end"])
        old["last_ns"] = now
        # What maps shows of it now (mprotect changes the permissions).
        for k in ("perms", "off"):
            if k in v:
                old[k] = v[k]
        if smaps:
            if "first_rss" not in old and "Rss" in v:
                old["first_rss"] = v["Rss"]
            for k, x in v.items():
                if k not in ("start", "end", "first_ns", "first_rss"):
                    old[k] = x
            old["smaps_ns"] = now
            old["huge_max"] = max(old.get("huge_max", 0), huge_bytes(v))
        return old


def extent_at(v, t):
    """The extents a sighting had in the snapshots around time t: the
    last one before it and the first one after it."""
    hist = v.get("history")
    if not hist:
        return [(v["start"], v["end"])]
    i = bisect.bisect_right([h[0] for h in hist], t)
    out = []
    if i > 0:
        out.append(hist[i - 1][1:])
    if i < len(hist):
        out.append(hist[i][1:])
    return out


def mmap_vmas(mmaps, files=None):
    """VMAs rebuilt from perf's MMAP records of one process, for ranges
    no snapshot saw: the latest record wins where they overlap, and
    adjacent anonymous private records with the same protection are
    merged, as the kernel merges them (a hint: flags the records do not
    carry, such as MADV_HUGEPAGE, can keep the kernel from merging).
    files: the (dev, ino, pgoff) of each record, in their order."""
    recs = sorted(zip(mmaps, files or [None] * len(mmaps)),
                  key=lambda x: x[0])
    spans = []
    for (t, _pid, start, end, prot, path), f in recs:
        spans = [s for s in spans if s[1] <= start or s[0] >= end] + \
            [s2 for s in spans if not (s[1] <= start or s[0] >= end)
             for s2 in ((s[0], start) + s[2:], (end, s[1]) + s[2:])
             if s2[0] < s2[1]]
        spans.append((start, end, prot, path, f, t, start))
    spans.sort()
    out = []
    for s in spans:
        if out and out[-1][1] == s[0] and s[3] == "//anon" and \
                out[-1][3] == "//anon" and out[-1][2] == s[2] and \
                s[2][3:4] == "p":
            out[-1] = (out[-1][0], s[1]) + out[-1][2:]
        else:
            out.append(s)
    vmas = []
    for (start, end, prot, path, f, t, mapped) in out:
        v = {"start": start, "end": end, "perms": prot, "path": path,
             "source": "perf MMAP records", "mmap_ns": t}
        if f is not None and f[1]:
            # The file, and its offset at the start of this piece (a
            # record's pgoff is at its own start, a piece of it left
            # by a later record can begin further on).  An anonymous
            # record's pgoff is its address's: no offset.
            v["dev"], v["ino"] = f[0], f[1]
            v["off"] = f[2] + start - mapped
        vmas.append(v)
    return vmas


def record_extends(v, r, sightings):
    """Whether MMAP record r (a VMA as perf saw it mapped) is an extent
    of sighting v: the same memory, overlapping or adjacent, recorded
    while v lived and not before another sighting of its range."""
    if not (r["start"] <= v["end"] and v["start"] <= r["end"]):
        return False
    path = v.get("path") or ""
    rpath = r.get("path") or ""
    anon = path == "" and rpath == "//anon"
    if not (anon or path == rpath) or r.get("perms") != v.get("perms"):
        return False
    if anon and v.get("perms", "")[3:4] != "p":
        return False
    if not anon and not (r["start"] < v["end"] and v["start"] < r["end"]):
        return False
    t = r.get("mmap_ns", 0)
    if t > v["last_ns"]:
        return False
    # A record of a range another sighting held then or later is that
    # sighting's (a thread's stack beside a heap: not merged).
    if any(o is not v and o["start"] < r["end"] and r["start"] < o["end"]
           and o["last_ns"] >= t for o in sightings):
        return False
    # Mapped before v was first seen: v's own mapping, unless another
    # sighting held the range after the record was made.
    return not any(o is not v and o["last_ns"] < v["first_ns"] and
                   o["last_ns"] >= t and o["start"] < r["end"] and
                   r["start"] < o["end"] for o in sightings)


def file_key(v):
    """The object of a VMA that maps a file (objects.object_key), or
    None for memory that is no file's."""
    key = objects.object_key(0, v)
    return key if key[0] == "file" else None


def seen_since(v, addr, t):
    """Whether a snapshot after time t saw sighting v hold addr: a later
    extent of its history holds it, or the extent it had then, seen
    unchanged after t."""
    hist = v["history"]
    later = [h for h in hist if h[0] > t]
    if later:
        return any(s <= addr < e for _, s, e in later)
    return v["last_ns"] > t and hist[-1][1] <= addr < hist[-1][2]


class VmaIndex:
    """Looks a fault's address up among one process's VMAs: of the
    snapshots' VMAs that hold it, the one seen nearest the fault's time
    (the same range can belong to different VMAs over a run: two buffers
    merged into one, then one of them unmapped), extended by the MMAP
    records of their extents; then the MMAP records for ranges no
    snapshot saw."""

    BLOCK = 1 << 21

    def __init__(self, snap_vmas, mmap_list, files=None):
        self.snap = []
        for v in snap_vmas:
            v = dict(v)
            v["history"] = list(v.get("history") or
                                [(v.get("first_ns", 0), v["start"],
                                  v["end"])])
            v.setdefault("source", "/proc/PID/maps")
            self.snap.append(v)
        records = mmap_vmas(mmap_list, files)
        # A record of a sighting's memory made while it lived: an extent
        # it had between two snapshots (a mapping merged into it and
        # unmapped again before a snapshot saw it).
        for v in self.snap:
            for r in records:
                if (r["start"] < v["start"] or r["end"] > v["end"]) and \
                        record_extends(v, r, self.snap):
                    v["start"] = min(v["start"], r["start"])
                    v["end"] = max(v["end"], r["end"])
                    v.setdefault("history", []).append(
                        (r["mmap_ns"], r["start"], r["end"]))
                    v["history"].sort()
                    v["source"] = "/proc/PID/maps and perf MMAP records"
        self.records, self.over = [], []
        for v in records:
            under = [o for o in self.snap
                     if v["start"] < o["end"] and o["start"] < v["end"]]
            if not under:
                self.records.append(v)
            elif file_key(v) and any(file_key(o) != file_key(v)
                                     for o in under):
                self.over.append(v)
        self.over_blocks = {}
        self.join_moved_records()
        self.vmas = sorted(self.snap + self.records,
                           key=lambda v: (v["start"], v["end"]))
        self.starts = [v["start"] for v in self.vmas]
        self.maxlen = max((v["end"] - v["start"] for v in self.vmas),
                          default=0)
        self.blocks = {}
        # Stacks (and MAP_GROWSDOWN mappings) grow down on a fault below
        # their start: the kernel faults nothing else there.
        self.growsdown = sorted(
            (v for v in self.snap if v.get("path", "").startswith("[stack")
             or "gd" in (v.get("VmFlags") or ())),
            key=lambda v: v["start"])

    def join_moved_records(self):
        """A mapping no snapshot saw, and a VMA of its size and memory
        first seen after it was made, that came from nowhere a snapshot
        saw (not grown, split or moved from a sighting): the mapping
        moved there by mremap before a snapshot saw it (perf records no
        move).  One object."""
        for v in self.snap:
            if v.get("moved_from") or v.get("split_from") or \
                    (v.get("path") or "") != "" or \
                    (v.get("perms") or "")[3:4] != "p":
                continue
            size = v["history"][0][2] - v["history"][0][1]
            r = next((r for r in self.records if r["path"] == "//anon" and
                      r.get("perms") == v.get("perms") and
                      r["end"] - r["start"] == size and
                      r["mmap_ns"] < v["first_ns"] and
                      "object" not in r), None)
            if r is not None:
                r["object"] = v.get("object")
                r["moved_to"] = v["history"][0][1:]

    def overlapping(self, lo, hi):
        """The VMAs that overlap [lo, hi), highest start first."""
        i = bisect.bisect_left(self.starts, hi)
        out = []
        while i > 0:
            i -= 1
            v = self.vmas[i]
            if v["start"] < lo - self.maxlen:
                break
            if v["end"] > lo:
                out.append(v)
        return out

    def in_block(self, cache, addr, overlapping):
        """Of a list, those that overlap the BLOCK that holds addr
        (overlapping(lo, hi)), kept in cache by block."""
        b = addr // self.BLOCK
        c = cache.get(b)
        if c is None:
            c = cache[b] = overlapping(b * self.BLOCK, (b + 1) * self.BLOCK)
        return c

    def candidates(self, addr):
        return self.in_block(self.blocks, addr, self.overlapping)

    def find(self, addr, t=None):
        best, dist = None, None
        for v in self.candidates(addr):
            if not v["start"] <= addr < v["end"]:
                continue
            if "last_ns" not in v:
                d = (float("inf"), 0)   # an MMAP record: a last resort
            elif t is None:
                d = (-v["last_ns"], 0)
            else:
                if t < v.get("first_ns", v["last_ns"]):
                    d = v.get("first_ns", v["last_ns"]) - t
                elif t > v["last_ns"]:
                    d = t - v["last_ns"]
                else:
                    d = 0
                # Of those alive then, one whose extent held the address
                # in the snapshots around the fault.
                held = any(s <= addr < e for s, e in extent_at(v, t))
                d = (d, 0 if held else 1)
            # A fault the program survived was not on a PROT_NONE VMA (a
            # reservation a mapping was moved over, a guard).
            d = (1 if (v.get("perms") or "")[:3] == "---" else 0,) + d
            if dist is None or d < dist:
                best, dist = v, d
        if best is None:
            best = self.grown_down(addr, t)
        elif t is not None and "last_ns" in best:
            best = self.mapped_over(best, addr, t) or best
        return best

    def mapped_over(self, v, addr, t):
        """The mapping of another file made over sighting v's memory
        (MAP_FIXED: a JVM's archived heap mapped over its heap's last
        MiB) before time t, after which no snapshot saw v hold addr:
        the file's record, the latest such; or None."""
        over = self.in_block(self.over_blocks, addr, lambda lo, hi: [
            r for r in self.over if r["start"] < hi and lo < r["end"]])
        out = None
        for r in over:
            if r["start"] <= addr < r["end"] and r["mmap_ns"] <= t and \
                    file_key(r) != file_key(v) and \
                    not seen_since(v, addr, r["mmap_ns"]) and \
                    (out is None or r["mmap_ns"] > out["mmap_ns"]):
                out = r
        return out

    def grown_down(self, addr, t):
        """The stack or grows-down mapping whose growth below its start
        took a fault at addr that no view holds: the nearest above it,
        with nothing in between."""
        i = bisect.bisect_right([v["start"] for v in self.growsdown], addr)
        if i >= len(self.growsdown):
            return None
        v = self.growsdown[i]
        if any(addr < o["start"] < v["start"] or addr < o["end"] <= v["start"]
               for o in self.vmas if o is not v):
            return None
        if t is not None and t > v["last_ns"] + 10 ** 9:
            return None
        return v


PM_PRESENT = 1 << 63
PM_SWAP = 1 << 62


def present_pages(pid, views, page=4096):
    """The pages of a process's private writable VMAs (views: its maps)
    that are present or swapped now, from /proc/PID/pagemap (readable
    for one's own processes): a fault on one later is a refault, also
    where no fault of it was recorded (a survey that attaches).  An
    empty set where pagemap cannot be read."""
    out = set()
    try:
        fd = os.open("/proc/%d/pagemap" % pid, os.O_RDONLY)
    except OSError:
        return out
    try:
        for v in views:
            perms = v.get("perms") or ""
            if perms[1:2] != "w" or perms[3:4] != "p" or \
                    (v.get("path") or "").startswith("[v"):
                continue
            first = v["start"] // page
            n = (v["end"] - v["start"]) // page
            for at in range(0, n, 65536):
                count = min(65536, n - at)
                try:
                    data = os.pread(fd, 8 * count, 8 * (first + at))
                except OSError:
                    break
                for i, (e,) in enumerate(struct.iter_unpack("<Q", data)):
                    if e & (PM_PRESENT | PM_SWAP):
                        out.add(first + at + i)
    finally:
        os.close(fd)
    return out
