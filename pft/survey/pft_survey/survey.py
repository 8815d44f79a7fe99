# SPDX-License-Identifier: GPL-2.0-or-later
# pft_survey.survey - pft-survey: which VMAs of a real program take its
# page faults, from how many threads at once, and the pft command line
# that generates the same pattern.
#
# Copyright (C) 2026 The libfaultgen authors
#
# perf does the recording: "perf record -e page-faults -d" gives each
# fault's process, thread, time and data address, and perf's MMAP records
# the mappings.  This module runs perf, snapshots /proc/PID/maps, smaps
# and the threads' fault counters while the program runs, joins each
# fault to the kernel's VMA that holds its address and reports per VMA.
#
# Which counter counts what: perf's page-faults software event fires in
# the architecture's fault handler, for faults taken by user space and by
# the kernel touching user memory (copy_to_user).  The kernel's minflt
# and majflt (/proc/PID/stat, getrusage) also count faults taken in the
# kernel on the task's behalf without a fault exception: get_user_pages
# paths such as MADV_POPULATE_READ/WRITE, mlock, MAP_POPULATE.  The
# difference between the two is reported as such.

import argparse
import copy
import json
import math
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from pft_common import safefile
from pft_common.pft import find_pft, print_version
from pft_common.util import Messages, os_error, quiet_stdout

from . import check, kinds, lifetime, objects
from .verdict import check_line, human, quote, size_arg, small_args
from .verdict import verdict as judge
from .vmas import Sightings, VmaIndex, mmap_vmas, present_pages

PROG = "pft-survey"
PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
MiB = 1 << 20
# Snapshots of /proc while the program runs: maps and the threads'
# counters every SNAP_S, smaps (which walks the page tables) every
# SMAPS_EVERY-th snapshot (for a process, every one while reading its
# smaps took less than SMAPS_CHEAP_NS, and the next after a large VMA
# came), and at the end of an attached survey.
SNAP_S = 0.01
SMAPS_EVERY = 10
SMAPS_CHEAP_NS = 5000000        # smaps every time while it takes less
TOP_VMAS = 5
TOP_THREADS = 4
TOP_OBJECTS = 3


class SurveyError(Exception):
    """One line for the user, and the exit status."""

    def __init__(self, text, status=1):
        super().__init__(text)
        self.status = status


msg = Messages(PROG).msg
usage_error = Messages(PROG).usage_error


# ---- perf's text ----------------------------------------------------------

# "COMM PID/TID TIME: REST"; a thread name may hold spaces, so the name
# is everything before the last "PID/TID TIME:" that the line holds.
HEAD = re.compile(r"^\s*(?P<comm>.*?)\s+(?P<pid>-?\d+)/(?P<tid>-?\d+)\s+"
                  r"(?P<time>\d+\.\d+):\s+(?P<rest>.*)$")
SAMPLE = re.compile(r"^(?:(?P<period>\d+)\s+)?(?P<event>[\w:-]+):\s+"
                    r"(?P<addr>[0-9a-fA-F]+)\s*$")
MMAP = re.compile(r"^PERF_RECORD_MMAP2?\s+(?P<pid>-?\d+)/(?P<tid>-?\d+):\s+"
                  r"\[0x(?P<start>[0-9a-f]+)\(0x(?P<len>[0-9a-f]+)\)\s+@\s+"
                  r"(?P<pgoff>\S+)(?:\s+(?P<maj>[0-9a-f]+):(?P<min>[0-9a-f]+)"
                  r"\s+(?P<ino>\d+)\s+\d+)?\]:"
                  r"\s+(?P<prot>\S+)\s+(?P<path>.*)$")
# The exceptions tracepoints (root, or perf_event_paranoid -1): each
# fault exception's address and x86 error code, user or kernel mode.
TRACE = re.compile(r"^(?:(?P<period>\d+)\s+)?exceptions:page_fault_"
                   r"(?P<mode>user|kernel):\s+address=0x(?P<addr>[0-9a-f]+)"
                   r"\s.*?error_code=0x(?P<code>[0-9a-f]+)")
# Addresses from here up are the kernel's own (x86-64, 4 or 5 levels).
KERNEL_SPACE = 1 << 63
COMM = re.compile(r"^PERF_RECORD_COMM(?P<exec> exec)?:\s+(?P<name>.*):"
                  r"(?P<pid>-?\d+)/(?P<tid>-?\d+)$")
# perf script --show-lost-events: samples the ring buffer had no room for
# (PERF_RECORD_LOST, one per overflow); a perf that also writes a total
# at the end (PERF_RECORD_LOST_SAMPLES) counts the same samples again.
LOST = re.compile(r"^PERF_RECORD_LOST(?P<total>_SAMPLES)?:?\s+lost\s+"
                  r"(?P<n>\d+)")
# perf report --stats: after "Aggregated stats:" (records of each kind),
# a section per event ("page-faults stats:") whose LOST_SAMPLES line is
# the sum of the totals perf record read from the kernel at the end
# (PERF_FORMAT_LOST: Linux 6.0 and perf 6.1 on).  Those count every
# sample the kernel dropped, also those dropped after the last
# PERF_RECORD_LOST (a buffer still full when the program ended: the
# kernel writes the record only with the next sample that fits).  perf
# script does not print them.
STATS_EVENT = re.compile(r"^(?P<name>\S.*) stats:$")
STATS_LOST = re.compile(r"^\s*LOST_SAMPLES events:\s+(?P<n>\d+)\s*$")
TASK = re.compile(r"^PERF_RECORD_(?P<kind>FORK|EXIT)\((?P<pid>-?\d+):"
                  r"(?P<tid>-?\d+)\):\((?P<ppid>-?\d+):(?P<ptid>-?\d+)\)")


def parse_time_ns(text):
    sec, _, frac = text.partition(".")
    return int(sec) * 1000000000 + int((frac + "000000000")[:9])


class Record:
    """What perf script showed: the faults, mappings, names and tasks."""

    def __init__(self):
        self.faults = []        # (time_ns, pid, tid, addr, period)
        # The x86 error code of each fault (in the order of faults), or
        # None where the page-faults event recorded it (no code).
        self.codes = []
        self.majors = []        # (time_ns, pid, tid, addr, period)
        self.mmaps = []         # (time_ns, pid, start, end, prot, path)
        # (dev, ino, pgoff) of each MMAP record, in the order of mmaps:
        # the object mapped (dev "0:0" for anonymous memory).
        self.mmap_files = []
        self.kernel_addr_faults = 0  # kernel-mode faults on its own memory
        self.names = {}         # tid -> the last name seen
        self.execs = {}         # pid -> time of its last exec
        self.forks = []         # (time_ns, pid, tid, ppid, ptid)
        self.exits = []         # (time_ns, pid, tid)
        self.lost = 0           # lines not understood
        self.lost_overflows = 0  # samples dropped, from PERF_RECORD_LOST
        self.lost_totals = 0    # the same, from PERF_RECORD_LOST_SAMPLES
        self.lines = 0
        self.source = None      # kinds.TRACEPOINTS or kinds.PAGE_FAULTS

    def keep(self, pred):
        """Keeps the faults (and their codes) and major faults for which
        pred(fault) holds; returns the faults left out, period counted."""
        kept = [(f, c) for f, c in zip(self.faults, self.codes) if pred(f)]
        dropped = sum(f[4] for f in self.faults) - sum(f[4] for f, _ in kept)
        self.faults = [f for f, _ in kept]
        self.codes = [c for _, c in kept]
        self.majors = [f for f in self.majors if pred(f)]
        return dropped

    @property
    def lost_samples(self):
        """The samples perf's ring buffer had no room for."""
        return max(self.lost_overflows, self.lost_totals)


def parse_script(lines, rec=None):
    """Reads perf script's text (fields comm,pid,tid,time,period,event,
    addr and the mmap and task events) into a Record."""
    rec = rec or Record()
    for line in lines:
        line = line.rstrip("\n")
        if not line.strip():
            continue
        rec.lines += 1
        m = HEAD.match(line)
        if not m:
            rec.lost += 1
            continue
        t = parse_time_ns(m.group("time"))
        pid, tid = int(m.group("pid")), int(m.group("tid"))
        rest = m.group("rest")
        tp = TRACE.match(rest)
        if tp:
            addr = int(tp.group("addr"), 16)
            if addr >= KERNEL_SPACE:
                rec.kernel_addr_faults += 1
                continue
            rec.faults.append((t, pid, tid, addr,
                               int(tp.group("period") or 1)))
            rec.codes.append(int(tp.group("code"), 16))
            if tid not in rec.names and m.group("comm"):
                rec.names[tid] = m.group("comm")
            continue
        s = SAMPLE.match(rest)
        if s and not rest.startswith("PERF_RECORD"):
            f = (t, pid, tid, int(s.group("addr"), 16),
                 int(s.group("period") or 1))
            if s.group("event") == "major-faults":
                rec.majors.append(f)
                continue
            rec.faults.append(f)
            rec.codes.append(None)
            if tid not in rec.names and m.group("comm"):
                rec.names[tid] = m.group("comm")
            continue
        mm = MMAP.match(rest)
        if mm:
            start = int(mm.group("start"), 16)
            rec.mmaps.append((t, int(mm.group("pid")), start,
                              start + int(mm.group("len"), 16),
                              mm.group("prot"), mm.group("path").strip()))
            try:
                pgoff = int(mm.group("pgoff"), 0)
            except ValueError:
                pgoff = 0
            rec.mmap_files.append((
                "%x:%x" % (int(mm.group("maj") or "0", 16),
                           int(mm.group("min") or "0", 16)),
                int(mm.group("ino") or 0), pgoff))
            continue
        c = COMM.match(rest)
        if c:
            ctid = int(c.group("tid"))
            rec.names[ctid] = c.group("name")
            if c.group("exec"):
                rec.execs[int(c.group("pid"))] = t
            continue
        k = TASK.match(rest)
        if k:
            if k.group("kind") == "FORK":
                rec.forks.append((t, int(k.group("pid")), int(k.group("tid")),
                                  int(k.group("ppid")), int(k.group("ptid"))))
            else:
                rec.exits.append((t, int(k.group("pid")), int(k.group("tid"))))
            continue
        lo = LOST.match(rest)
        if lo:
            if lo.group("total"):
                rec.lost_totals += int(lo.group("n"))
            else:
                rec.lost_overflows += int(lo.group("n"))
            continue
        if rest.startswith("PERF_RECORD"):
            continue            # other records: not needed
        rec.lost += 1
    return rec


def parse_stats(lines):
    """The samples the kernel dropped, from perf report --stats: the sum
    of the LOST_SAMPLES lines of the per-event sections, or 0."""
    lost, in_event = 0, False
    for line in lines:
        line = line.rstrip("\n")
        h = STATS_EVENT.match(line)
        if h:
            in_event = h.group("name") != "Aggregated"
            continue
        m = STATS_LOST.match(line)
        if m and in_event:
            lost += int(m.group("n"))
    return lost


# ---- /proc ------------------------------------------------------------------

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
        self.threads = {}       # tid -> {"pid", "name", "minflt", "majflt"}
        self.procs = {}         # pid -> (minflt, majflt) last seen
        self.first_procs = {}   # pid -> (minflt, majflt) first seen

    def forget(self, pid):
        """Leaves out process pid (one perf did not record)."""
        for d in (self.vmas, self.trackers, self.smaps_ns, self.procs,
                  self.first_procs):
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
                if tr.update(parse_maps(text), now, full) and not full:
                    self.smaps_soon.add(pid)
            st = parse_stat(read("/proc/%d/stat" % pid) or "")
            if st and st[1] != "Z":
                self.procs[pid] = (st[2], st[3])
                self.first_procs.setdefault(pid, (st[2], st[3]))
            try:
                tids = os.listdir("/proc/%d/task" % pid)
            except OSError:
                continue
            for t in tids:
                st = parse_stat(read("/proc/%d/task/%s/stat" % (pid, t)) or "")
                if st and st[1] != "Z":
                    old = self.threads.get(int(t))
                    # Attached: count from the first snapshot on.
                    base = (old["base"] if old else
                            (st[2] + st[3] if self.attached else 0))
                    self.threads[int(t)] = {"pid": pid, "name": st[0],
                                            "minflt": st[2], "majflt": st[3],
                                            "base": base}


# ---- joining faults to VMAs -----------------------------------------------

def hugetlbfs_mounts(text):
    """The hugetlbfs mount points of /proc/mounts text."""
    out = []
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 3 and f[2] == "hugetlbfs":
            out.append(f[1].replace("\\040", " "))
    return out


def on_mount(path, mounts):
    return any(path == m or path.startswith(m.rstrip("/") + "/")
               for m in mounts)


def backing(path, perms="", hugetlb=False, mounts=()):
    """The kind of memory behind a VMA, from its maps name (mounts: the
    hugetlbfs mount points)."""
    if hugetlb or path.startswith("/anon_hugepage") or \
            (path.startswith("/") and on_mount(path, mounts)):
        return "hugetlb"
    if path in ("", "//anon"):
        return "anonymous" if perms[3:4] != "s" else "shmem"
    if path == "[heap]":
        return "heap"
    if path.startswith("[stack"):
        return "stack"
    if path.startswith("/memfd:"):
        return "memfd/shmem"
    if path.startswith("/SYSV"):
        return "SysV shm"
    if path.startswith("/dev/zero") or path.startswith("/dev/shm/"):
        return "shmem"
    if path.startswith("["):
        return "special " + path
    return "file"


def inherited(index, parents, pid, addr, execs):
    """The VMA a forked process inherited that holds addr: its parent's
    (or an ancestor's) at the time of the fork, unless the process
    exec'd since."""
    depth = 0
    while pid in parents and pid not in execs and depth < 64:
        pid, t = parents[pid]
        v = index[pid].find(addr, t) if pid in index else None
        if v is not None:
            return v
        depth += 1
    return None


def concurrency(faults):
    """faults: (time_ns, tid) pairs.  The most and the median number of
    distinct threads faulting within the same 1 ms window (windows that
    saw a fault only)."""
    return objects.concurrency(faults, 1)


def sampling_error(samples, period):
    """The relative standard error of a count scaled from `samples`
    events recorded one in `period`: sqrt(n)/n, as for a Poisson count
    (0 when every event was recorded)."""
    if period <= 1 or samples <= 0:
        return 0.0
    return 1 / math.sqrt(samples)


def vma_indexes(rec, snaps):
    """pid -> VmaIndex of its sightings and MMAP records (those after its
    exec), and the parents of processes forked (pid -> (parent, time))."""
    pids = sorted({f[1] for f in rec.faults} | set(snaps.vmas))
    index = {}
    for pid in pids:
        mine = [i for i, m in enumerate(rec.mmaps) if m[1] == pid and
                m[0] >= rec.execs.get(pid, -1)]
        index[pid] = VmaIndex(list(snaps.vmas.get(pid, {}).values()),
                              [rec.mmaps[i] for i in mine],
                              [rec.mmap_files[i] for i in mine]
                              if rec.mmap_files else None)
    # A process forked and never seen by a snapshot (a shell's subshell)
    # faults the VMAs it inherited: its parent's at the fork.
    parents = {f[1]: (f[3], f[0]) for f in rec.forks
               if f[1] == f[2] and f[1] != f[3]}
    for pid in set(parents) | {p for p, _ in parents.values()}:
        if pid not in index:
            index[pid] = VmaIndex(list(snaps.vmas.get(pid, {}).values()),
                                  [m for m in rec.mmaps if m[1] == pid])
    return index, parents


def join_faults(rec, index, parents, mounts):
    """Each fault's VMA (None: before its exec or outside any VMA seen),
    and the counts: total, samples, before_exec, outside."""
    n = {"total": 0, "samples": 0, "before_exec": 0, "outside": 0}
    vma_of = []
    for (t, pid, _tid, addr, per) in rec.faults:
        n["total"] += per
        n["samples"] += 1
        v = None
        if pid in rec.execs and t < rec.execs[pid]:
            n["before_exec"] += per
        else:
            v = index[pid].find(addr, t) if pid in index else None
            if v is None:
                v = inherited(index, parents, pid, addr, rec.execs)
            if v is None:
                n["outside"] += per
            elif v.get("path") and on_mount(v["path"], mounts):
                v["hugetlb"] = True
        vma_of.append(v)
    return vma_of, n


def vma_tallies(rec, vma_of, fkinds, fbytes, mounts, facts):
    """(pid, start, end) -> the VMA's faults, bytes, kinds, threads and
    times; each fault added to its object in facts."""
    per_vma = {}
    for i, (t, pid, tid, addr, per) in enumerate(rec.faults):
        v = vma_of[i]
        if v is None:
            continue
        key = (pid, v["start"], v["end"])
        e = per_vma.get(key)
        if e is None:
            hugetlb = kinds.hugetlb_page(v) is not None
            e = per_vma[key] = {
                "vma": v, "faults": 0, "samples": 0, "bytes": 0,
                "tids": {}, "times": [], "kinds": {},
                "backing": backing(v.get("path", ""), v.get("perms", ""),
                                   hugetlb, mounts)}
            e["object"] = objects.object_key(pid, v)
            facts.add_vma(e["object"], pid, v, e["backing"])
        e["faults"] += per
        e["samples"] += 1
        e["bytes"] += fbytes[i]
        e["kinds"][fkinds[i]] = e["kinds"].get(fkinds[i], 0) + per
        e["tids"][tid] = e["tids"].get(tid, 0) + per
        e["times"].append((t, tid))
        facts.add(e["object"], pid, tid, fkinds[i], t, per, fbytes[i],
                  objects.page_index(v, addr), v["start"])
    return per_vma


def vma_reports(per_vma, tname):
    """The VMAs' reports, by bytes faulted (a huge page's fault is 512 of
    a 4 KiB page's)."""
    vmas = []
    for (pid, start, end), e in per_vma.items():
        v = e["vma"]
        most, med = concurrency(e["times"])
        ts = [t for t, _ in e["times"]]
        span_ns = max(ts) - min(ts)
        thp = None
        if "AnonHugePages" in v or "THPeligible" in v:
            thp = {"eligible": v.get("THPeligible"),
                   "huge_bytes": v.get("AnonHugePages", 0),
                   "huge_bytes_most": v.get("huge_max", 0)}
        tids = sorted(e["tids"].items(), key=lambda x: (-x[1], x[0]))
        vmas.append({
            "pid": pid, "start": "%x" % start, "end": "%x" % end,
            "size": end - start, "perms": v.get("perms", ""),
            "path": v.get("path", ""),
            "backing": e["backing"],
            "object": "%s:%s:%s" % e["object"],
            "source": v.get("source"),
            "thp": thp,
            "rss": v.get("Rss"), "first_rss": v.get("first_rss"),
            "faults": e["faults"], "samples": e["samples"],
            "bytes": e["bytes"], "kinds": e["kinds"],
            "threads": len(tids),
            "top_threads": [{"tid": t, "name": tname(t), "faults": n}
                            for t, n in tids],
            "concurrency_max": most, "concurrency_median": med,
            "span_s": span_ns / 1e9,
            "rate_per_s": (e["faults"] / (span_ns / 1e9)) if span_ns else None,
        })
    vmas.sort(key=lambda x: (-x["bytes"], -x["faults"], x["pid"],
                             x["start"]))
    return vmas


def thread_reports(rec, snaps, tname):
    """The threads with fault events, by faults, with the kernel's count
    of each as last seen."""
    threads = {}
    for (_t, pid, tid, _addr, per) in rec.faults:
        th = threads.setdefault(tid, {"tid": tid, "pid": pid, "faults": 0})
        th["faults"] += per
    for tid, th in threads.items():
        th["name"] = tname(tid)
        k = snaps.threads.get(tid)
        if k:
            th["kernel_faults_last_seen"] = k["minflt"] + k["majflt"]
    return sorted(threads.values(), key=lambda x: (-x["faults"], x["tid"]))


def threads_by_name(rec, processes, tname):
    """Threads by name as perf's task and name records saw them, also
    those that lived between two snapshots, of names no process's main
    thread has (a program whose threads keep its own name says nothing
    so); and those (not a process's first) that began and ended during
    the survey with few fault events of their own: workers that faulted
    in the kernel and ended between two snapshots."""
    procs = set(processes) | set(rec.execs) | \
        {f[1] for f in rec.forks if f[1] == f[2]}
    mains = {rec.names[p] for p in procs if p in rec.names}
    named = {}
    for tid, name in rec.names.items():
        if tid > 0 and tid not in procs and name not in mains:
            named[name] = named.get(name, 0) + 1
    began = {f[2] for f in rec.forks if f[1] == f[3] and f[2] != f[1]}
    ended = {f[2] for f in rec.exits}
    events = {}
    for f in rec.faults:
        events[f[2]] = events.get(f[2], 0) + 1
    short = {}
    for tid in began & ended:
        if events.get(tid, 0) <= 64:
            name = tname(tid)
            short[name] = short.get(name, 0) + 1
    return named, short


def analyse(rec, snaps, kernel, period, followed):
    """The survey's report as a dict (what --json prints)."""
    index, parents = vma_indexes(rec, snaps)
    mounts = hugetlbfs_mounts(read("/proc/self/mounts") or "")
    vma_of, n = join_faults(rec, index, parents, mounts)
    source = rec.source or (kinds.TRACEPOINTS if any(
        c is not None for c in rec.codes) else kinds.PAGE_FAULTS)
    fkinds, fbytes, majors_unmatched = kinds.classify(
        rec, vma_of, getattr(snaps, "present", None),
        (kernel or {}).get("maxrss"))
    facts = objects.Facts(source)
    per_vma = vma_tallies(rec, vma_of, fkinds, fbytes, mounts, facts)

    def tname(tid):
        th = snaps.threads.get(tid)
        return rec.names.get(tid) or (th and th["name"]) or "?"

    processes = sorted({f[1] for f in rec.faults} | set(snaps.procs))
    lost_faults = rec.lost_samples * period
    doc = {
        "period": period,
        "sampling_rel_error": sampling_error(n["samples"], period),
        "followed_children": followed,
        "processes": processes,
        "perf": {"faults": n["total"], "samples": n["samples"],
                 "before_exec": n["before_exec"],
                 "outside_known_vmas": n["outside"],
                 "lines_not_understood": rec.lost,
                 # Samples perf's ring buffer dropped (perf read it too
                 # late), and the faults they stood for.
                 "lost_samples": rec.lost_samples,
                 "lost_faults": lost_faults},
        "kernel": kernel,
        "vmas": vma_reports(per_vma, tname),
        "threads": thread_reports(rec, snaps, tname),
        "exec_pids": sorted(rec.execs),
    }
    doc["threads_by_name"], doc["short_threads_by_name"] = \
        threads_by_name(rec, processes, tname)
    if kernel and kernel.get("faults") is not None:
        # Faults perf dropped are user faults too, not the kernel's own.
        doc["kernel_minus_perf"] = kernel["faults"] - n["total"] - \
            lost_faults
    add_kinds(doc, facts, fkinds, fbytes, majors_unmatched, rec, tname,
              getattr(snaps, "attached", False))
    doc["verdict"], doc["reproduce"] = verdict(doc)
    return doc


def add_kinds(doc, facts, fkinds, fbytes, majors_unmatched, rec, tname,
              attached=False):
    """The faults by kind, the objects and the facts (pft_survey.kinds,
    pft_survey.objects) into the report."""
    source = facts.source
    doc["source"] = source
    doc["events"] = [x for x in kinds.events(source)
                     if not x.startswith("-")]
    doc["not_told_apart"] = kinds.not_told_apart(source)
    if source == kinds.PAGE_FAULTS and attached:
        doc["not_told_apart"].append(
            "attached: the pages of private writable VMAs present when "
            "the survey began (pagemap) count as faulted before it; other "
            "pages faulted before it began (shared ones) do not, and a "
            "refault of one is told as a first fault")
    totals = {}
    for i, f in enumerate(rec.faults):
        e = totals.setdefault(fkinds[i], {"faults": 0, "bytes": 0})
        e["faults"] += f[4]
        e["bytes"] += fbytes[i]
    hidden = doc.get("kernel_minus_perf")
    if hidden is not None and hidden > 0:
        totals[kinds.GUP if source == kinds.TRACEPOINTS else
               kinds.KERNEL_SIDE] = {"faults": hidden, "bytes": None}
    doc["kinds"] = totals
    doc["kind_descriptions"] = {k: kinds.DESCRIPTION[k] for k in totals}
    doc["majors_without_event"] = majors_unmatched
    facts.forks = sorted((f[0], f[1], f[3]) for f in rec.forks
                         if f[1] == f[2] and f[1] != f[3])
    facts.exits = {f[1]: f[0] for f in rec.exits if f[1] == f[2]}
    names = {}
    for (_key, _pid, tid, _kind) in facts.cells:
        names[tid] = tname(tid)
    objs = [objects.summary(facts, key, names) for key in facts.objects]
    objs.sort(key=lambda o: (-o["bytes"], -o["faults"], o["id"]))
    doc["objects"] = objs
    doc["forks"] = [{"time_ns": t, "pid": c, "parent": p,
                     "exit_ns": facts.exits.get(c)}
                    for (t, c, p) in facts.forks]
    doc["facts"] = objects.cells_json(facts)


# ---- the verdict -------------------------------------------------------------

def verdict(doc):
    """The verdict line and the pft command line of the pattern (quoted
    for a POSIX shell), from the report's facts (pft_survey.verdict);
    the pattern's name and the line's arguments go into doc."""
    pattern, line, args = judge(doc)
    doc["pattern"] = pattern
    doc["reproduce_args"] = args
    return line, quote(args) if args else None


def pft_of(c):
    """The pft to check a line with: the one surveyed, or pft-survey's
    own (beside it, $PFT, or on PATH)."""
    cmd = c.command or []
    if cmd and os.path.basename(cmd[0]) == "pft":
        return shutil.which(cmd[0]) or cmd[0]
    c.pft = getattr(c, "pft", None)
    return find_pft(c)


def add_check(doc, c):
    """Whether pft takes the reproduce line's options: a run of the line
    with the least memory (pft_survey.verdict.check_line)."""
    args = doc.get("reproduce_args")
    if not args:
        return
    ok, what = check_line(args, pft_of(c))
    doc["reproduce_checked"] = ok
    if ok is True:
        doc["reproduce_check"] = "%s (%s)" % (what, quote(
            small_args(args)))
    elif ok is False:
        doc["reproduce_check"] = "pft refused it: %s" % what
    else:
        doc["reproduce_check"] = "pft took the options but could not run " \
            "here: %s" % what


def add_resident(doc, snaps):
    """Growth of each VMA's resident memory between the snapshots that
    saw it (smaps): memory that came in with or without user faults."""
    out = []
    execd = set(doc.get("exec_pids") or [])
    parent = {f["pid"]: f["parent"] for f in doc.get("forks") or []
              if f["pid"] not in execd}

    def inherited(pid, v):
        """A forked child's VMA its parent had too (its pages shared)."""
        pp = parent.get(pid)
        return pp is not None and any(
            o["start"] == v["start"] and o["end"] == v["end"]
            for o in snaps.vmas.get(pp, {}).values())
    for pid, seen in snaps.vmas.items():
        for v in seen.values():
            # File pages come in by fault-around too, many a fault.
            if "Rss" not in v or backing(v["path"], v["perms"]) in (
                    "file",) or v["path"].startswith("["):
                continue
            grown = v["Rss"] - v.get("first_rss", v["Rss"])
            if v.get("first_rss") is None:
                grown = v["Rss"]
            # A VMA first seen already resident: count it all; and all
            # of a program's own memory came during the survey, but for
            # what a forked child shares with its parent.
            if (v["first_ns"] == v["last_ns"] or grown <= 0 or
                    not getattr(snaps, "attached", False)) and \
                    not inherited(pid, v):
                grown = v["Rss"]
            if grown <= 0:
                continue
            out.append({"pid": pid, "start": "%x" % v["start"],
                        "end": "%x" % v["end"], "size": v["end"] - v["start"],
                        "backing": backing(v["path"], v["perms"]),
                        "path": v["path"], "rss": v["Rss"], "grown": grown,
                        "shared": v["perms"][3:4] == "s",
                        "flags": v.get("VmFlags") or [],
                        "writable": v["perms"][1:2] == "w",
                        "huge_bytes": max(v.get("AnonHugePages", 0),
                                          v.get("huge_max", 0))})
    for r in out:
        # The report's VMA of the sighting (its extent may be wider).
        s0, e0 = int(r["start"], 16), int(r["end"], 16)
        v = next((v for v in doc["vmas"] if v["pid"] == r["pid"] and
                  int(v["start"], 16) <= s0 and e0 <= int(v["end"], 16)),
                 {})
        r["user_faults"] = v.get("faults", 0)
        # The bytes the fault events brought in (a huge page's whole).
        r["event_bytes"] = v.get("bytes", 0)
    out.sort(key=lambda x: -x["grown"])
    doc["resident"] = out[:TOP_VMAS]


def add_kernel_side(doc, snaps):
    """Threads whose own fault counters (/proc/PID/task/TID/stat, last
    seen) exceed the user faults perf saw from them: the threads that
    took faults in the kernel (populate, mlock, GUP)."""
    seen = {t["tid"]: t["faults"] for t in doc["threads"]}
    hidden = doc.get("kernel_minus_perf") or 0
    out = []
    for tid, k in snaps.threads.items():
        extra = k["minflt"] + k["majflt"] - k.get("base", 0) - \
            seen.get(tid, 0)
        if extra > max(8, hidden / 100):
            out.append({"tid": tid, "pid": k["pid"], "name": k["name"],
                        "kernel_side_faults": extra})
    out.sort(key=lambda x: (-x["kernel_side_faults"], x["tid"]))
    doc["kernel_side_threads"] = out
    # Those that took most of them: the populate workers.


# ---- running perf ------------------------------------------------------------

def check_perf():
    perf = shutil.which("perf")
    if not perf:
        raise SurveyError("perf not found: install Debian's linux-perf "
                          "package (perf record does the recording)")
    text = read("/proc/sys/kernel/perf_event_paranoid")
    try:
        level = int(text)
    except (TypeError, ValueError):
        level = None
    if level is not None and level > 2 and os.geteuid() != 0:
        raise SurveyError("perf_event_paranoid is %d: recording one's own "
                          "processes needs 2 or lower (sysctl "
                          "kernel.perf_event_paranoid=2)" % level)
    return perf


def check_pid(pid):
    st = None
    try:
        st = os.stat("/proc/%d" % pid)
    except OSError:
        pass
    if st is None or parse_stat(read("/proc/%d/stat" % pid) or "") is None:
        raise SurveyError("no process %d" % pid)
    if st.st_uid != os.geteuid() and os.geteuid() != 0:
        raise SurveyError("process %d belongs to another user (uid %d): "
                          "perf records one's own processes only" %
                          (pid, st.st_uid))


def first_line(text):
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("[ perf record"):
            return line
    return ""


def buffer_pages(euid, ncpus):
    """perf record's -m: the pages of each CPU's ring buffer, or None for
    perf's own size.  A sample takes about 50 bytes (perf.data of 900 KB
    for 17,761 here): a fault a microsecond is 50 MB/s, and where perf
    reads late (a busy machine) a larger buffer loses fewer.  Only
    root is not held to perf_event_mlock_kb (perf's default, 512 KiB);
    root gets 32 MiB in all, from 512 KiB to 8 MiB a CPU, a power of 2."""
    if euid != 0:
        return None
    per_cpu = 32 * MiB // max(1, ncpus or 1)
    per_cpu = max(512 * 1024, min(8 * MiB, per_cpu))
    pages = per_cpu // PAGE
    return 1 << (pages.bit_length() - 1)


class PerfStartError(SurveyError):
    """perf record did not start: text is the first line it wrote."""

    def __init__(self, line, text):
        super().__init__(line)
        self.text = text


class Perf:
    """perf record of one process tree, started with its events disabled
    and enabled through its control FIFO before the program runs.  perf
    ends with the survey, killed or not (PR_SET_PDEATHSIG).  mask: the
    signal mask perf runs with; synth_task: perf synthesizes the tasks
    present, not their mappings (which it may be unable to read); source:
    the events recorded (kinds.TRACEPOINTS or kinds.PAGE_FAULTS)."""

    def __init__(self, perf, tmp, pid, period, pids=None, mask=None,
                 synth_task=False, source=None):
        self.tmp = tmp
        self.data = os.path.join(tmp, "perf.data")
        ctl, ack = os.path.join(tmp, "ctl"), os.path.join(tmp, "ack")
        for fifo in (ctl, ack):
            if os.path.lexists(fifo):       # an earlier attempt's
                os.unlink(fifo)
            os.mkfifo(fifo)
        self.err = open(os.path.join(tmp, "perf.err"), "w+")
        self.source = source or kinds.PAGE_FAULTS
        cmd = [perf, "record"] + kinds.events(self.source) + [
               "-c", str(period),
               "-k", "CLOCK_MONOTONIC", "-o", self.data, "-D", "-1",
               "--control", "fifo:%s,%s" % (ctl, ack), "-p",
               ",".join(str(p) for p in (pids or [pid]))]
        if synth_task:
            cmd[2:2] = ["--synth=task"]
        pages = buffer_pages(os.geteuid(), os.cpu_count())
        if pages:
            cmd[2:2] = ["-m", str(pages)]
        # A session of its own: Ctrl-C stops the program, and then perf.
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL,
                                     stderr=self.err, start_new_session=True,
                                     preexec_fn=lifetime.preexec(mask))
        ackfd = os.open(ack, os.O_RDONLY | os.O_NONBLOCK)
        try:
            ctlfd = self.open_ctl(ctl)
            try:
                self.enable(ctlfd)
                self.wait_ack(ackfd)
            finally:
                os.close(ctlfd)
        finally:
            os.close(ackfd)

    def enable(self, ctlfd):
        try:
            os.write(ctlfd, b"enable\n")
        except BrokenPipeError:
            # perf opened its FIFO and failed before reading it.
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
            raise self.failure() from None

    def failure(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
            return PerfStartError("perf record did not start recording in "
                                  "30 s", "")
        self.err.seek(0)
        text = first_line(self.err.read())
        self.err.close()
        return PerfStartError("perf record failed (exit status %d)%s" % (
            self.proc.returncode, ": " + text if text else ""), text)

    def open_ctl(self, ctl):
        deadline = time.monotonic() + 30
        while True:
            try:
                return os.open(ctl, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise self.failure()
            time.sleep(0.005)

    def wait_ack(self, fd):
        # Until perf opens its end, the FIFO reads as empty (EOF).
        deadline = time.monotonic() + 30
        got = b""
        while b"ack" not in got:
            r, _, _ = select.select([fd], [], [], 0.05)
            data = b""
            if r:
                try:
                    data = os.read(fd, 64)
                except BlockingIOError:
                    pass
            got += data
            if b"ack" in got:
                break
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise self.failure()
            if not data:
                time.sleep(0.005)

    def stop(self, wait_s=5):
        """perf ends by itself when its process is gone; else SIGINT."""
        try:
            self.proc.wait(timeout=wait_s)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.err.close()

    def script(self, perf):
        cmd = [perf, "script", "-i", self.data, "-F",
               "comm,pid,tid,time,period,event,addr,trace",
               "--show-mmap-events", "--show-task-events",
               "--show-lost-events"]
        out = os.path.join(self.tmp, "script.txt")
        with open(out, "w") as f, open(os.path.join(self.tmp, "script.err"),
                                       "w+") as e:
            rc = subprocess.call(cmd, stdin=subprocess.DEVNULL, stdout=f,
                                 stderr=e)
            if rc != 0:
                e.seek(0)
                raise SurveyError("perf script failed: %s" %
                                  first_line(e.read()))
        # A path as the kernel has it, bytes not UTF-8 kept (see read).
        with open(out, errors="surrogateescape") as f:
            rec = parse_script(f)
        rec.source = getattr(self, "source", None)
        rec.lost_totals = max(rec.lost_totals, self.kernel_lost(perf))
        return rec

    def kernel_lost(self, perf):
        """The kernel's own count of the samples it dropped (0 where perf
        or the kernel has none, or perf report fails)."""
        cmd = [perf, "report", "-i", self.data, "--stats"]
        try:
            out = subprocess.run(cmd, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, timeout=600,
                                 errors="replace").stdout
        except (OSError, subprocess.SubprocessError):
            return 0
        return parse_stats(out.splitlines())


# ---- the survey --------------------------------------------------------------

# After a stop signal, the program has STOP_GRACE_S seconds to end before
# it is killed (pft gives its run as long).
STOP_GRACE_S = 5
# perf record -p of processes that come and go: the least age (seconds)
# of the child processes given to perf in each try (0: all of them)
# before perf is given the process alone.
PERF_ATTACH_AGES = (0, 0, 0.1, 1.0)


def spawn(cmd, stdout_to_stderr=False, mask=None):
    """Forks the program, held before its exec until a byte comes on its
    pipe (it ends without one: the survey is gone).  stdout_to_stderr:
    its standard output goes to standard error (stdout carries the JSON
    report).  It dies with the survey, and runs with the signal mask
    `mask`."""
    go_r, go_w = os.pipe()
    err_r, err_w = os.pipe2(os.O_CLOEXEC)
    setup = lifetime.preexec(mask)
    pid = os.fork()
    if pid == 0:
        try:
            os.close(go_w)
            os.close(err_r)
            setup()
            if os.read(go_r, 1) != b"x":
                os._exit(127)
            os.close(go_r)
            if stdout_to_stderr:
                os.dup2(2, 1)
            os.execvp(cmd[0], cmd)
        except OSError as e:
            os.write(err_w, str(e.errno).encode())
        finally:
            os._exit(127)
    os.close(go_r)
    os.close(err_w)
    return pid, go_w, err_r


def exec_error(err_r):
    data = os.read(err_r, 32)
    os.close(err_r)
    return int(data) if data else None


def signal_tree(pid, sig, spare_group=None):
    """Sends sig to process pid and its descendants, but those in process
    group spare_group (they had the signal from the terminal)."""
    for p in descendants(pid):
        try:
            if spare_group is not None and os.getpgid(p) == spare_group:
                continue
            os.kill(p, sig)
        except OSError:
            pass


def stop_program(c, pid, info):
    """A stop signal (info, its siginfo) came: the program and its
    children have it too, and STOP_GRACE_S seconds to end, or less if
    another comes; then SIGKILL.  Returns the program's status and
    rusage."""
    spare = os.getpgrp() if lifetime.from_terminal(info) else None
    signal_tree(pid, info.si_signo, spare)
    deadline = time.monotonic() + STOP_GRACE_S
    while True:
        wpid, status, rusage = os.wait4(pid, os.WNOHANG)
        if wpid:
            return status, rusage
        left = deadline - time.monotonic()
        if left <= 0 or lifetime.wait_stop_signal(min(left, SNAP_S)):
            break
    msg("%s did not end %s after %s: killed (SIGKILL)" % (
        c.command[0], "within %d s" % STOP_GRACE_S if left <= 0 else
        "at a second signal", signal.Signals(info.si_signo).name))
    signal_tree(pid, signal.SIGKILL)
    _, status, rusage = os.wait4(pid, 0)
    return status, rusage


def run_program(c, perf, tmp):
    """Runs and surveys the program.  Its stop signals are taken here
    (held pending meanwhile): the program is stopped, the report still
    written."""
    mask = lifetime.block_stop_signals()
    try:
        return watch_program(c, perf, tmp, mask)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def watch_program(c, perf, tmp, mask):
    pid, go, err_r = spawn(c.command, c.json and not c.output, mask)
    snaps = Snapshots(pid, follow=not c.no_follow)
    rec = None
    stop = None
    status = None
    rusage = None
    try:
        try:
            p = Perf(perf, tmp, pid, c.period, mask=mask, source=c.source)
        except BaseException:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise
        os.write(go, b"x")
        os.close(go)
        while True:
            wpid, st, ru = os.wait4(pid, os.WNOHANG)
            if wpid:
                status, rusage = st, ru
                break
            snaps.take()
            info = lifetime.wait_stop_signal(SNAP_S)
            if info:
                stop = info.si_signo
                status, rusage = stop_program(c, pid, info)
                break
        late = lifetime.pending_stop_signals()
        stop = stop or (late[0].si_signo if late else None)
        p.stop()
        errno = exec_error(err_r)
        err_r = None
        if errno is not None:
            raise SurveyError("%s: %s" % (c.command[0], os.strerror(errno)),
                              127 if errno == 2 else 126)
        rec = p.script(perf)
    finally:
        if err_r is not None:
            os.close(err_r)
    kernel = {"source": "getrusage of the program (its threads and the "
                        "children it waited for)",
              "minflt": rusage.ru_minflt, "majflt": rusage.ru_majflt,
              # The largest peak resident memory of the program's
              # processes (Linux: KiB).
              "maxrss": rusage.ru_maxrss * 1024,
              "faults": rusage.ru_minflt + rusage.ru_majflt}
    return rec, snaps, kernel, status, stop


def maps_unreadable(pids):
    """Those of pids whose /proc/PID/maps cannot be read (perf fails
    when it cannot read them to synthesize their mappings)."""
    out = []
    for p in pids:
        try:
            with open("/proc/%d/maps" % p, "rb"):
                pass
        except PermissionError:
            out.append(p)
        except OSError:
            pass
    return out


def older_than(pids, seconds):
    """Those of pids that have run for `seconds` at least."""
    try:
        with open("/proc/uptime") as f:
            now = float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return list(pids)
    tick = os.sysconf("SC_CLK_TCK")
    out = []
    for p in pids:
        t = lifetime.start_time(p)
        if t is not None and now - t / tick >= seconds:
            out.append(p)
    return out


def start_attached(c, perf, tmp, mask):
    """perf record -p of the process and, unless --no-follow, of its
    descendants, as perf allows: perf fails when a process it is given
    is gone before it starts, as a short-lived child of a process that
    forks often is.  Tried with every descendant, twice, then with those
    that have run for PERF_ATTACH_AGES seconds, then with the process
    alone; perf follows the children of those it has from then on.
    Returns the Perf, the pids given to it, what was left out
    ({"pids", "reason"} or None), and the pids whose mappings perf
    cannot read."""
    root = c.pid
    if c.no_follow:
        return Perf(perf, tmp, root, c.period, [root], mask,
                    source=c.source), [root], None, []
    synth = False
    err = None
    for age in PERF_ATTACH_AGES + (None,):
        everyone = descendants(root)
        pids = [root] if age is None else \
            [root] + older_than(everyone[1:], age) if age else everyone
        hidden = maps_unreadable(pids)
        try:
            p = Perf(perf, tmp, root, c.period, pids, mask,
                     synth or bool(hidden), source=c.source)
        except PerfStartError as e:
            if "thread/CPU maps" in e.text and age is not None:
                err = e
                continue
            if synth or hidden or age is None:
                raise
            # perf fails without a word when it cannot read a process's
            # mappings: once more without them.
            synth = True
            err = e
            continue
        left = [x for x in everyone if x not in pids]
        missed = None
        if left:
            missed = {"pids": left, "reason": "perf could not attach to "
                      "every child process present at the start, which "
                      "came and went (%s): those younger than %g s were "
                      "left out" % (err.text or str(err), age or 0)
                      if age is not None else "perf could not attach to "
                      "the child processes present at the start, which "
                      "came and went (%s)" % (err.text or str(err))}
        return p, pids, missed, hidden
    raise AssertionError("not reached")


def present_at_start(c):
    """pid -> the pages present in the process (and its descendants)
    before the survey attaches.  Without an error code a copy-on-write
    is told as a refault: the pages present before the survey are those
    faulted before."""
    return {p: present_pages(p, parse_maps(read("/proc/%d/maps" % p) or ""),
                             PAGE)
            for p in (descendants(c.pid) if not c.no_follow else [c.pid])}


def attached_notes(c, rec, snaps, start, given, missed, hidden):
    """What an attached survey did not follow ("not_followed") and whose
    mappings perf could not read ("maps_not_read"); the processes perf
    has no record of are left out of snaps and start."""
    notes = {}
    if not c.no_follow:
        # A process perf has no record of was not followed (one forked
        # by a process perf was not given, or before perf started): its
        # counters are left out with it.
        seen = set(given) | {f[1] for f in rec.forks} | \
            {f[1] for f in rec.faults} | {m[1] for m in rec.mmaps} | \
            {e[1] for e in rec.exits} | set(rec.execs)
        gone = sorted(x for x in set(snaps.procs) | set(snaps.vmas) |
                      set((missed or {}).get("pids", [])) if x not in seen)
        for x in gone:
            snaps.forget(x)
            start.pop(x, None)
        if missed or gone:
            notes["not_followed"] = {
                "pids": gone,
                "reason": (missed or {}).get("reason") or
                "perf has no record of them: processes that came before "
                "perf attached, children of those"}
    if hidden:
        notes["maps_not_read"] = {
            "pids": hidden,
            "reason": "perf may not read their /proc/PID/maps: their "
                      "mappings from before the survey are not in perf's "
                      "records"}
    return notes


def attach(c, perf, tmp):
    """Surveys process c.pid (and its descendants) until it ends,
    --duration passes or a stop signal comes; the process is left
    alone."""
    check_pid(c.pid)
    snaps = Snapshots(c.pid, follow=not c.no_follow, attached=True)
    if c.source == kinds.PAGE_FAULTS:
        snaps.present = present_at_start(c)
    mask = lifetime.block_stop_signals()
    stop = None
    try:
        p, given, missed, hidden = start_attached(c, perf, tmp, mask)
        snaps.take(smaps=True)
        start = dict(snaps.procs)
        end = time.monotonic() + c.duration if c.duration else None
        while True:
            st = parse_stat(read("/proc/%d/stat" % c.pid) or "")
            if not st or st[1] == "Z":
                break
            snaps.take()
            left = SNAP_S if end is None else \
                min(SNAP_S, end - time.monotonic())
            info = lifetime.wait_stop_signal(max(0, left))
            if info:
                stop = info.si_signo
                break
            if end is not None and time.monotonic() >= end:
                break
        snaps.take(smaps=True)
        late = lifetime.pending_stop_signals()
        stop = stop or (late[0].si_signo if late else None)
        p.proc.send_signal(signal.SIGINT)
        p.stop()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    rec = p.script(perf)
    notes = attached_notes(c, rec, snaps, start, given, missed, hidden)
    mn = sum(snaps.procs[k][0] - start.get(k, (0, 0))[0] for k in snaps.procs)
    mj = sum(snaps.procs[k][1] - start.get(k, (0, 0))[1] for k in snaps.procs)
    kernel = {"source": "/proc/PID/stat, the last snapshot less the first",
              "minflt": mn, "majflt": mj, "faults": mn + mj}
    return rec, snaps, kernel, None, stop, notes


# ---- output ------------------------------------------------------------------

def scaled(n, doc):
    if doc["period"] > 1:
        return "~%d" % n
    return "%d" % n


def printable(text):
    """text with what a terminal would act on escaped: control
    characters (C0, DEL, C1) and other unprintable ones as \\xNN or
    \\uNNNN, and the backslash doubled, so that a program's thread name
    or path cannot clear the screen or forge a line."""
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch.isprintable():
            out.append(ch)
        elif ord(ch) < 0x100:
            out.append("\\x%02x" % ord(ch))
        else:
            out.append("\\u%04x" % ord(ch) if ord(ch) < 0x10000 else
                       "\\U%08x" % ord(ch))
    return "".join(out)


def shell_line(line):
    """A line quote() made, as printed: as it is (printable characters
    alone, a shell reads it back), but for an argument that ends with a
    newline, the one a shell cannot be given on one line: escaped then,
    and said."""
    if "\n" not in line:
        return line
    return printable(line) + "  (an argument ends with a newline: shown " \
        "escaped, not for a shell)"


def kinds_text(kd, doc):
    """Faults by kind: "first-touch 16384 (64 MiB), ..." in the report's
    order of kinds."""
    order = kinds.EVENT_KINDS + (kinds.GUP, kinds.KERNEL_SIDE)
    return ", ".join(
        "%s %s%s" % (k, scaled((kd[k] or {}).get("faults", 0)
                               if isinstance(kd[k], dict) else kd[k], doc),
                     " (%s)" % human(kd[k]["bytes"])
                     if isinstance(kd[k], dict) and kd[k].get("bytes")
                     else "")
        for k in order if k in kd)


def escaped(out):
    """A write function of out that escapes what a terminal would act on
    (printable), line by line."""
    def w(text):
        out.write("\n".join(printable(x) for x in text.split("\n")))
    return w


def render_head(doc, w):
    """Sampling, the processes and what was recorded."""
    per = doc["period"]
    if per > 1:
        w("sampling: one fault event in %d recorded; counts scaled by %d, "
          "relative error about %.1f%% (1/sqrt(samples))\n" %
          (per, per, 100 * doc["sampling_rel_error"]))
    w("processes: %s (%s)\n" % (
        " ".join(str(p) for p in doc["processes"]) or "none",
        "children followed" if doc["followed_children"] else
        "children not followed"))
    src = doc.get("source")
    if src:
        w("recorded: %s (%s)\n" % (
            "the exceptions tracepoints: each fault's kind from its error "
            "code, user and kernel mode" if src == kinds.TRACEPOINTS else
            "perf's page-faults event: user-mode faults, without their kind",
            ", ".join(doc.get("events") or [])))
        for line in doc.get("not_told_apart") or []:
            w("  not told apart: %s\n" % line)


def render_vmas(doc, w):
    """The VMAs that took the most bytes."""
    w("\nVMAs by bytes faulted (fault events joined to the kernel's "
      "VMAs):\n")
    for v in doc["vmas"][:TOP_VMAS]:
        w("  pid %d  %s-%s  %s  %s%s\n" % (
            v["pid"], v["start"], v["end"], human(v["size"]), v["backing"],
            "  " + v["path"] if v["path"] and v["backing"] not in
            ("anonymous", "heap", "stack") else ""))
        w("    VMA from: %s\n" % v["source"])
        if v["thp"]:
            w("    THP: eligible %s, %s in huge pages (smaps, last seen; "
              "most seen %s)\n" % (
                  "yes" if v["thp"]["eligible"] else "no",
                  human(v["thp"]["huge_bytes"]),
                  human(v["thp"].get("huge_bytes_most") or 0)))
        w("    faults: %s, %s: %s\n" % (
            scaled(v["faults"], doc), human(v.get("bytes") or 0),
            kinds_text({k: {"faults": n} for k, n in
                        (v.get("kinds") or {}).items()}, doc)))
        tops = ", ".join("%s (%d): %s" % (t["name"], t["tid"],
                                          scaled(t["faults"], doc))
                         for t in v["top_threads"][:TOP_THREADS])
        w("    threads that faulted it: %d; top: %s\n" % (v["threads"], tops))
        w("    threads faulting it in the same 1 ms window: most %d, "
          "median %s\n" % (v["concurrency_max"],
                           "%g" % v["concurrency_median"]))
        if v["rate_per_s"]:
            w("    fault rate: %.0f faults/s over the %.3f s it was "
              "faulted\n" % (v["rate_per_s"], v["span_s"]))
    if len(doc["vmas"]) > TOP_VMAS:
        rest = sum(v["faults"] for v in doc["vmas"][TOP_VMAS:])
        w("  ... %d more VMAs with %s faults (--json lists them all)\n" % (
            len(doc["vmas"]) - TOP_VMAS, scaled(rest, doc)))


def render_totals(doc, w):
    """perf's totals: the events, by kind, those left out and lost."""
    pf = doc["perf"]
    w("\ntotals:\n")
    w("  fault events perf saw (%s): %s in %d samples\n" % (
        "user and kernel mode" if doc.get("source") == kinds.TRACEPOINTS
        else "user mode", scaled(pf["faults"], doc), pf["samples"]))
    if doc.get("kinds"):
        w("  by kind: %s\n" % kinds_text(doc["kinds"], doc))
    if pf["before_exec"]:
        w("    of which before the program's exec: %s\n" %
          scaled(pf["before_exec"], doc))
    if pf.get("in_children_not_followed"):
        w("  left out: %s faults of child processes (not followed)\n" %
          scaled(pf["in_children_not_followed"], doc))
    if pf["outside_known_vmas"]:
        w("    of which outside any VMA seen: %s\n" %
          scaled(pf["outside_known_vmas"], doc))
    if pf.get("lost_samples"):
        w("  lost: %d samples (about %d faults) perf's buffer had no room "
          "for; the counts above are short by as many (sample with -c, or "
          "survey on a quieter machine)\n" % (pf["lost_samples"],
                                              pf["lost_faults"]))


def render_kernel(doc, w):
    """The kernel's count beside perf's, and where the difference went."""
    per = doc["period"]
    pf = doc["perf"]
    k = doc.get("kernel")
    if k:
        w("  faults the kernel counted (minflt %d + majflt %d, %s): %d\n" % (
            k["minflt"], k["majflt"], k["source"], k["faults"]))
        d = doc.get("kernel_minus_perf", 0)
        w("  difference, kernel less perf%s: %s%s\n" % (
            " and its lost samples" if pf.get("lost_samples") else "",
            ("~%d" if per > 1 else "%d") % d,
            (": faults without a fault event (get_user_pages: "
             "MADV_POPULATE_*, mlock, MAP_POPULATE, an execve's arguments)"
             if doc.get("source") == kinds.TRACEPOINTS else
             ": faults without a user-mode fault event (kernel-mode faults "
             "and get_user_pages, not told apart)") if d > 0 else ""))
    res = doc.get("resident") or []
    if res and doc.get("kernel_minus_perf", 0) > 0:
        r = res[0]
        w("  largest resident growth (smaps Rss): pid %d %s-%s %s %s, "
          "+%s\n" % (r["pid"], r["start"], r["end"], human(r["size"]),
                     r["backing"], human(r["grown"])))
    ks = doc.get("kernel_side_threads") or []
    if ks:
        w("  threads with faults beyond their user fault events (their "
          "minflt+majflt, last seen, less perf's): %s\n" % ", ".join(
              "%s (%d): %d" % (t["name"], t["tid"], t["kernel_side_faults"])
              for t in ks[:TOP_THREADS]))


def render_objects(doc, w):
    """The objects that took the most bytes (one across processes)."""
    objs = doc.get("objects") or []
    if objs:
        w("\nobjects by bytes faulted (a file, shmem or SysV object is one "
          "across processes):\n")
    for o in objs[:TOP_OBJECTS]:
        w("  %s  %s%s  %s in %s faults; %d process%s, %d thread%s\n" % (
            human(o["size"]), o["backing"], "  " + o["path"] if o["path"] and
            o["backing"] not in ("anonymous", "heap", "stack") else "",
            human(o["bytes"]), scaled(o["faults"], doc), o["processes"],
            "" if o["processes"] == 1 else "es", o["threads"],
            "" if o["threads"] == 1 else "s"))
        w("    by kind: %s\n" % kinds_text(o["kinds"], doc))
        if o["processes"] > 1:
            w("    processes faulting it within the same 1 ms: most %d, "
              "median %g; pages faulted by more than one process: %d of "
              "%d\n" % (o["concurrency_processes_max"],
                        o["concurrency_processes_median"],
                        o["pages_by_more_than_one_process"], o["pages"]))


def render(doc, out):
    w = escaped(out)
    render_head(doc, w)
    render_vmas(doc, w)
    render_totals(doc, w)
    render_kernel(doc, w)
    render_objects(doc, w)
    w("\nverdict: %s\n" % doc["verdict"])
    if doc["reproduce"]:
        out.write("reproduce with: %s\n" % shell_line(doc["reproduce"]))
        chk = doc.get("reproduce_check")
        if chk:
            w("  checked: %s\n" % chk)



# ---- the command line -------------------------------------------------------

USAGE = """\
Usage: pft-survey [OPTION]... -- COMMAND [ARG]...
       pft-survey [OPTION]... -p PID [--duration=SECONDS]
Run COMMAND, or attach to process PID, record its page faults with perf,
and report which of its VMAs take them, from how many threads at once,
and the pft command line that generates the same pattern.

  -p, --pid=PID          survey a running process (and its threads) until
                         it exits, --duration ends or Ctrl-C
  -d, --duration=SECONDS with -p: survey for SECONDS
  -c, --sample=N         record one fault event in N (perf record -c N);
                         counts are scaled by N, their error stated
  -o, --output=FILE      write the report to FILE (a regular file or a new
                         name), not standard output
      --check            then survey the pft line of the verdict the same
                         way and print both side by side, with the
                         ratio of each figure
      --no-follow        do not follow the program's child processes
      --events=SOURCE    tracepoints: the exceptions tracepoints (each
                         fault's kind; root, CAP_PERFMON or
                         perf_event_paranoid -1); page-faults: perf's
                         page-faults event (user-mode faults, no kind);
                         auto (default): the tracepoints where allowed
      --json             the report as JSON; on standard output, the
                         program's standard output goes to standard error
  -h, --help             print this help and exit
  -V, --version          print the version and exit

Exit status: COMMAND's own status (the survey still reports); 1 when the
survey could not run; 2 for a bad command line; 128 + the signal after
SIGINT (Ctrl-C: 130), SIGTERM or SIGHUP, which stop COMMAND and still
report.
"""


class Parser(argparse.ArgumentParser):
    def error(self, message):
        usage_error(message)


def parse_args(argv):
    if "--" in argv:
        i = argv.index("--")
        opts, command = argv[:i], argv[i + 1:]
    else:
        opts, command = argv, []
    p = Parser(prog=PROG, add_help=False, usage=USAGE)
    p.add_argument("-p", "--pid", type=int)
    p.add_argument("-d", "--duration", type=float)
    p.add_argument("-c", "--sample", dest="period", type=int, default=1)
    p.add_argument("--no-follow", action="store_true")
    p.add_argument("--json", action="store_true")
    p.add_argument("--check", action="store_true")
    p.add_argument("--events", choices=("auto", kinds.TRACEPOINTS,
                                        kinds.PAGE_FAULTS), default="auto")
    p.add_argument("-o", "--output")
    p.add_argument("-h", "--help", action="store_true")
    p.add_argument("-V", "--version", action="store_true")
    c, rest = p.parse_known_args(opts)
    if c.help:
        sys.stdout.write(USAGE)
        sys.exit(0)
    if c.version:
        c.pft = None
        print_version(c, PROG)
        sys.exit(0)
    if rest:
        if not command and not rest[0].startswith("-"):
            command = rest
        else:
            p.error("unknown option %s" % rest[0])
    c.command = command
    if c.pid is None and not command:
        p.error("give a command after --, or -p PID")
    if c.pid is not None and command:
        p.error("-p and a command: give one of them")
    if c.pid is not None and c.pid <= 0:
        p.error("-p %d: not a process ID" % c.pid)
    if c.duration is not None:
        if c.pid is None:
            p.error("--duration goes with -p (a command is surveyed to its "
                    "end)")
        if not math.isfinite(c.duration) or c.duration <= 0:
            p.error("--duration=%g: give a positive number of seconds" %
                    c.duration)
    if c.period < 1:
        p.error("-c %d: give a positive number of events" % c.period)
    return c


def check_command(cmd):
    prog = cmd[0]
    if "/" in prog:
        if not os.path.exists(prog):
            raise SurveyError("%s: program not found" % prog, 127)
        if os.path.isdir(prog) or not os.access(prog, os.X_OK):
            raise SurveyError("%s: not an executable program" % prog, 126)
    elif not shutil.which(prog):
        raise SurveyError("%s: program not found" % prog, 127)


def exit_status(status):
    if status is None:
        return 0
    if os.WIFEXITED(status):
        return os.WEXITSTATUS(status)
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return 1


class Stopped(Exception):
    """A stop signal outside the program's run: the exit status is 128 +
    the signal."""

    def __init__(self, signo):
        super().__init__(signo)
        self.signo = signo


def on_stop_signal(signo, _frame):
    raise Stopped(signo)


def write_report(c, doc, out):
    if c.json:
        json.dump(doc, out, indent=1, sort_keys=True)
        out.write("\n")
    else:
        if c.command:
            out.write("command: %s\n" % shell_line(quote(c.command)))
        render(doc, out)
        chk = doc.get("check")
        if chk and chk.get("rows"):
            check.render(chk["rows"], shell_line(chk["line"]), out)
        elif chk:
            out.write("\ncheck: not run: %s\n" % printable(chk["why"]))


def say_notes(notes):
    """One line on standard error for each process not followed and
    each whose mappings were not read."""
    for key, what in (("not_followed", "not followed"),
                      ("maps_not_read", "mappings not read")):
        if notes.get(key):
            n = notes[key]
            msg("%s: %s: %s" % (
                what, " ".join(str(x) for x in n["pids"][:8]) +
                (" and %d more" % (len(n["pids"]) - 8)
                 if len(n["pids"]) > 8 else "") or "none left",
                n["reason"]))


def collect(c, perf, tmp):
    """Runs the program (or attaches to it) under perf and returns the
    report as a dict, the program's wait status and the stop signal that
    ended the survey (None)."""
    notes = {}
    if c.command:
        rec, snaps, kernel, status, stop = run_program(c, perf, tmp)
    else:
        rec, snaps, kernel, status, stop, notes = attach(c, perf, tmp)
    dropped = 0
    if c.no_follow:
        # perf follows children whatever it is told (inherit is how
        # it sees new threads): their faults are left out here.
        root = c.pid or snaps.root
        dropped = rec.keep(lambda f: f[1] == root)
    doc = analyse(rec, snaps, kernel, c.period, not c.no_follow)
    doc["perf"]["in_children_not_followed"] = dropped
    if dropped and doc.get("kernel_minus_perf") is not None:
        # The kernel's count holds the children's faults too.
        doc["kernel_minus_perf"] -= dropped
    add_resident(doc, snaps)
    add_kernel_side(doc, snaps)
    if c.command:
        doc["command"] = c.command
    doc["verdict"], doc["reproduce"] = verdict(doc)
    add_check(doc, c)
    if c.command:
        doc["exit_status"] = exit_status(status)
    else:
        doc["attached_pid"] = c.pid
    doc.update(notes)
    doc["interrupted"] = bool(stop)
    doc["stopped_by"] = signal.Signals(stop).name if stop else None
    say_notes(notes)
    return doc, status, stop


def recheck(c, doc, perf, tmp):
    """--check: the reproduce line surveyed the same way, and the two
    side by side (pft_survey.check) into doc["check"].  Returns the stop
    signal that ended the check (None)."""
    args = doc.get("reproduce_args")
    if not args:
        doc["check"] = {"line": None, "why": "no pft line to check"}
        return None
    if doc.get("reproduce_checked") is False:
        doc["check"] = {"line": quote(args), "why": doc["reproduce_check"]}
        return None
    c2 = copy.copy(c)
    c2.command = [pft_of(c)] + args[1:]
    c2.pid = None
    c2.check = False
    # pft's own lines go to standard error, apart from the report.
    c2.json, c2.output = True, None
    tmp2 = os.path.join(tmp, "check")
    os.mkdir(tmp2)
    msg("checking: %s" % quote(args))
    doc2, status, stopped = collect(c2, perf, tmp2)
    doc["check"] = {
        "line": quote(args),
        "rows": check.compare(doc, doc2),
        "reproduced": {k: doc2.get(k) for k in (
            "verdict", "reproduce", "pattern", "exit_status", "source")},
    }
    if stopped:
        doc["check"]["why"] = "the check was stopped"
    return stopped


def survey(c):
    perf = check_perf()
    if c.command:
        check_command(c.command)
    if c.output:
        # Before the program runs: can the report be written?
        safefile.check_writable(c.output)
    tempdir = tempfile.gettempdir()
    for d in lifetime.remove_stale_temp_dirs(tempdir):
        msg("removed %s, left by a survey that was killed" % d)
    tmp = lifetime.make_temp_dir(tempdir)
    try:
        # SIGTERM and SIGHUP end the survey as Ctrl-C does: report, clean
        # up (while the program runs, they are taken as they come).
        for sig in (signal.SIGTERM, signal.SIGHUP):
            if signal.getsignal(sig) != signal.SIG_IGN:
                signal.signal(sig, on_stop_signal)
        try:
            c.source = kinds.pick_source(perf, tmp, c.events, c.period)
        except RuntimeError as e:
            raise SurveyError(str(e))
        doc, status, stop = collect(c, perf, tmp)
        if c.check and not stop:
            stop = recheck(c, doc, perf, tmp)
        if c.output:
            with safefile.replacing(c.output,
                                    errors="backslashreplace") as out:
                write_report(c, doc, out)
        else:
            # A name the kernel holds in bytes that are not UTF-8 is
            # written escaped, never a failure.
            if hasattr(sys.stdout, "reconfigure"):
                sys.stdout.reconfigure(errors="backslashreplace")
            write_report(c, doc, sys.stdout)
            sys.stdout.flush()
        if stop:
            msg("stopped: the report shows what was seen until then")
            return 128 + stop
        rc = exit_status(status)
        if rc:
            msg("%s exited with status %d (the report above is of its run)"
                % (c.command[0], rc))
        return rc
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv):
    try:
        c = parse_args(argv)
        return survey(c)
    except SurveyError as e:
        msg(str(e))
        return e.status
    except KeyboardInterrupt:
        msg("stopped")
        return 130
    except Stopped as e:
        msg("stopped")
        return 128 + e.signo
    except BrokenPipeError:
        quiet_stdout()
        return 141
    except OSError as e:
        msg(os_error(e))
        return 1
    except Exception as e:      # pylint: disable=broad-except
        msg("internal error (%s: %s), please report it" %
            (type(e).__name__, e))
        return 1
