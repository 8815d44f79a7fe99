# SPDX-License-Identifier: GPL-2.0-or-later
# pft_survey.analysis - each fault joined to its VMA, the VMAs', threads'
# and objects' reports, the kinds of faults, resident growth and the
# faults taken in the kernel: the report as a dict (what --json prints).
#
# Copyright (C) 2026 The libfaultgen authors

import math
import os
import shutil

from pft_common.pft import find_pft

from . import calls, counters, kinds, lockpaths, objects
from .base import PAGE, MiB, TOP_VMAS
from .proc import read
from .verdict import EXEC_GUP, check_line, quote, small_args
from .verdict import verdict as judge
from .vmas import VmaIndex


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
    exec'd since; none where the parent exec'd after the fork (its
    VMAs then were another program's, which its index does not hold: a
    shell's child forked before the shell exec'd the program)."""
    depth = 0
    while pid in parents and pid not in execs and depth < 64:
        pid, t = parents[pid]
        if execs.get(pid, t) > t:
            return None
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
    """pid -> VmaIndex of its sightings and MMAP records (those since its
    exec), and the parents of processes forked (pid -> (parent, time))."""
    def vma_index(pid):
        # Those of the program it was before its exec (a snapshot that
        # saw the survey's own child before it exec'd) are none of its.
        since = rec.execs.get(pid, -1)
        mine = [i for i, m in enumerate(rec.mmaps) if m[1] == pid and
                m[0] >= since]
        return VmaIndex([v for v in snaps.vmas.get(pid, {}).values()
                         if v.get("last_ns", since) >= since],
                        [rec.mmaps[i] for i in mine],
                        [rec.mmap_files[i] for i in mine]
                        if rec.mmap_files else None)
    pids = sorted({f[1] for f in rec.faults} | set(snaps.vmas))
    index = {pid: vma_index(pid) for pid in pids}
    # A process forked and never seen by a snapshot (a shell's subshell)
    # faults the VMAs it inherited: its parent's at the fork (its files
    # and their offsets, as any process's).
    parents = {f[1]: (f[3], f[0]) for f in rec.forks
               if f[1] == f[2] and f[1] != f[3]}
    for pid in set(parents) | {p for p, _ in parents.values()}:
        if pid not in index:
            index[pid] = vma_index(pid)
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
    """(pid, start, end, object) -> the VMA's faults, bytes, kinds,
    threads and times; each fault added to its object in facts.  Two
    VMAs of one range over a run (a library's reservation seen by a
    snapshot, then the anonymous memory mapped over it) are each their
    own object: a fault's object and its page are of the VMA it joined."""
    per_vma = {}
    for i, (t, pid, tid, addr, per) in enumerate(rec.faults):
        v = vma_of[i]
        if v is None:
            continue
        obj = objects.object_key(pid, v)
        key = (pid, v["start"], v["end"], obj)
        e = per_vma.get(key)
        if e is None:
            hugetlb = kinds.hugetlb_page(v) is not None
            e = per_vma[key] = {
                "vma": v, "faults": 0, "samples": 0, "bytes": 0,
                "tids": {}, "times": [], "kinds": {},
                "backing": backing(v.get("path", ""), v.get("perms", ""),
                                   hugetlb, mounts)}
            e["object"] = obj
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


def join_calls(rec, index, parents):
    """The mapping calls perf recorded, each joined to the VMAs its range
    covered, as faults are (pft_survey.calls.join)."""
    def find(pid, addr, t):
        v = index[pid].find(addr, t) if pid in index else None
        return v or inherited(index, parents, pid, addr, rec.execs)
    return calls.join(rec, index, find)


def vma_reports(per_vma, tname):
    """The VMAs' reports, by bytes faulted (a huge page's fault is 512 of
    a 4 KiB page's)."""
    vmas = []
    for (pid, start, end, _obj), e in per_vma.items():
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
    short = {}
    for _, tid in short_threads(rec):
        name = tname(tid)
        short[name] = short.get(name, 0) + 1
    return named, short


def short_threads(rec):
    """The threads (not a process's first) that began and ended during
    the survey with few fault events of their own (task records): [pid,
    tid] each, by tid."""
    began = {f[2]: f[1] for f in rec.forks if f[1] == f[3] and f[2] != f[1]}
    ended = {f[2] for f in rec.exits}
    events = {}
    for f in rec.faults:
        events[f[2]] = events.get(f[2], 0) + 1
    return sorted([pid, tid] for tid, pid in began.items()
                  if tid in ended and events.get(tid, 0) <= 64)


# MADV_POPULATE_READ and MADV_POPULATE_WRITE: get_user_pages, no fault
# event.
POPULATE_ADVICE = {22: "MADV_POPULATE_READ", 23: "MADV_POPULATE_WRITE"}


def populate_calls(rec):
    """The MADV_POPULATE_* calls perf recorded (the madvise tracepoint):
    which thread populated which range."""
    return [{"pid": m[1], "tid": m[5], "start": "%x" % m[2], "length": m[3],
             "advice": POPULATE_ADVICE[m[4]]}
            for m in sorted(rec.madvises)
            if m[4] in POPULATE_ADVICE and len(m) > 5]


def analyse(rec, snaps, kernel, period, followed, keep=None):
    """The survey's report as a dict (what --json prints).  keep: a dict
    that takes the survey's facts with each fault ("facts": for a
    profile), or None."""
    index, parents = vma_indexes(rec, snaps)
    mounts = hugetlbfs_mounts(read("/proc/self/mounts") or "")
    vma_of, n = join_faults(rec, index, parents, mounts)
    source = rec.source or (kinds.TRACEPOINTS if any(
        c is not None for c in rec.codes) else kinds.PAGE_FAULTS)
    fkinds, fbytes, majors_unmatched = kinds.classify(
        rec, vma_of, getattr(snaps, "present", None),
        (kernel or {}).get("maxrss"))
    facts = objects.Facts(source, events=keep is not None)
    if keep is not None:
        keep["facts"] = facts
    per_vma = vma_tallies(rec, vma_of, fkinds, fbytes, mounts, facts)
    if keep is not None and getattr(rec, "calls_recorded", ()):
        facts.calls = join_calls(rec, index, parents)

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
    if getattr(rec, "madvise_recorded", False):
        doc["populate_calls"] = populate_calls(rec)
    doc["threads_by_name"], doc["short_threads_by_name"] = \
        threads_by_name(rec, processes, tname)
    doc["short_threads"] = short_threads(rec)
    if kernel and kernel.get("faults") is not None:
        # Faults perf dropped are user faults too, not the kernel's own.
        doc["kernel_minus_perf"] = kernel["faults"] - n["total"] - \
            lost_faults
    add_kinds(doc, facts, fkinds, fbytes, majors_unmatched, rec, tname,
              getattr(snaps, "attached", False))
    doc["lock_paths"] = lockpaths.lock_paths(rec, vma_of, tname,
                                             doc["source"], period)
    doc["verdict"], doc["reproduce"] = verdict(doc)
    return doc


def add_kinds(doc, facts, fkinds, fbytes, majors_unmatched, rec, tname,
              attached=False):
    """The faults by kind, the objects and the facts (pft_survey.kinds,
    pft_survey.objects) into the report."""
    source = facts.source
    doc["source"] = source
    doc["events"] = [x for x in kinds.events(
        source, getattr(rec, "madvise_recorded", False),
        getattr(rec, "locks_recorded", False),
        getattr(rec, "calls_recorded", ()))
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


# ---- the verdict ------------------------------------------------------------

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


def last_totals(snaps, anon_only=False):
    """Each process's resident bytes as its last smaps read saw them:
    the Rss of the sightings that read saw (of its anonymous ones)."""
    out = {}
    for pid, seen in snaps.vmas.items():
        read_ = [v for v in seen.values() if "smaps_ns" in v]
        if read_:
            last = max(v["smaps_ns"] for v in read_)
            out[pid] = sum(v.get("Rss", 0) for v in read_
                           if v["smaps_ns"] == last and not (
                               anon_only and backing(v["path"], v["perms"])
                               == "file"))
    return out


def unread_records(snaps, mmaps):
    """Sightings of the writable anonymous ranges perf's MMAP records
    hold that no smaps read of their process saw (mapped and gone
    between two snapshots): (pid, sighting), nothing resident seen."""
    out = []
    for t, pid, start, end, prot, path in mmaps:
        seen = snaps.vmas.get(pid) or {}
        if path != "//anon" or prot[1:2] != "w" or any(
                "smaps_ns" in v and v["start"] < end and start < v["end"]
                for v in seen.values()):
            continue
        out.append((pid, {"start": start, "end": end, "cur": (start, end),
                          "perms": prot, "path": "", "Rss": 0,
                          "first_ns": t, "last_ns": t, "smaps_ns": t,
                          "source": "perf MMAP records"}))
    return out


def unseen_peak(doc, snaps, mmaps=()):
    """The resident memory no smaps read saw, and the VMA it was in:
    (pid, sighting, bytes) or None.  A process that fills memory and
    ends between two snapshots (a short populate) is seen part way, or
    not at all; the kernel keeps its peak (getrusage ru_maxrss of the
    program: the largest hiwater_rss of its processes).  The peak
    beyond the most any process was last seen with went into the
    private or shared anonymous VMA with the most room (its size less
    its Rss) of the process that reached the peak: a sighting, or a
    range perf's MMAP records hold that no smaps read saw.  None of
    it where a process's fault events brought in the peak."""
    peak = (doc.get("kernel") or {}).get("maxrss")
    totals = last_totals(snaps)
    if not peak or getattr(snaps, "attached", False) or \
            peak <= max(totals.values(), default=0):
        return None
    # The anonymous memory each process's fault events brought in (its
    # VMAs' bytes) explains as much of the peak as its anonymous memory
    # seen: faulted after the last read, it is no sign of memory that
    # came without events.  A process they bring to the peak reached
    # it: none is unseen (a worker whose smaps was read once, early,
    # beside its parent's empty range of the same size).
    events = {}
    for e in doc.get("vmas") or ():
        if e.get("backing") != "file":
            events[e.get("pid")] = events.get(e.get("pid"), 0) + \
                e.get("bytes", 0)
    anon = last_totals(snaps, anon_only=True)

    def unexplained(pid):
        a = anon.get(pid, 0)
        return peak - totals.get(pid, 0) + a - max(a, events.get(pid, 0))
    if any(unexplained(pid) < MiB for pid in events):
        return None
    room = [(v["cur"][1] - v["cur"][0] - v.get("Rss", 0), pid, v)
            for pid, seen in snaps.vmas.items() for v in seen.values()
            if "smaps_ns" in v and v["perms"][1:2] == "w" and
            backing(v["path"], v["perms"]) != "file" and
            not v["path"].startswith("[")]
    room += [(v["end"] - v["start"], pid, v)
             for pid, v in unread_records(snaps, mmaps)]
    if not room:
        return None
    # The process that reached the peak: the one whose memory seen and
    # a VMA's room make the most; in it, the largest VMA with room.
    seen = {}
    for pid, vs in snaps.vmas.items():
        seen[pid] = sum(v.get("Rss", 0) for v in vs.values())
    best = max(room, key=lambda x: (x[0] + seen.get(x[1], 0), -x[1]))[1]
    free, pid, v = max((r for r in room if r[1] == best and r[0] >= MiB),
                       key=lambda x: (x[2]["cur"][1] - x[2]["cur"][0], x[0]),
                       default=(0, best, None))
    extra = min(free, unexplained(pid))
    return (pid, v, extra) if extra >= MiB else None


def resident_of(v, extra, gup):
    """A sighting's resident bytes and of them in huge pages, with extra
    bytes no smaps read saw: in huge pages where what was seen of it
    was (90% or more), or, none seen, where the faults the kernel
    counted without an event beyond the execs' (gup) are too few for
    4 KiB pages.  No more than those faults brought in: memory that
    came with fault events after the last read is not theirs."""
    huge = max(v.get("AnonHugePages", 0), v.get("huge_max", 0))
    rss = v["Rss"]
    in_huge = huge * 10 >= rss * 9 if rss else gup * PAGE * 2 < extra
    if extra > gup * (kinds.HUGE if in_huge else PAGE):
        extra = 0
    return rss + extra, huge + (extra if in_huge else 0), extra


def resident_grown(snaps, pid, v, rss, inherited):
    """How much of a sighting's resident memory came during the survey:
    all of it for a program the survey started, but for what a forked
    child shares with its parent; attached, its growth (all of it for a
    VMA seen once)."""
    grown = rss - v.get("first_rss", rss)
    if v.get("first_rss") is None:
        grown = rss
    if (v["first_ns"] == v["last_ns"] or grown <= 0 or
            not getattr(snaps, "attached", False)) and \
            not inherited(pid, v):
        grown = rss
    return grown


# The VmFlags (smaps) of a madvise(2) advice.
ADVICE_FLAGS = {10: "dc", 12: "mg", 14: "hg", 15: "nh", 16: "dd"}


def advised_flags(madvises, pid, v):
    """The VmFlags the madvise(2) calls of process pid that covered VMA v
    set (a VMA no smaps read saw: perf's MMAP record has none), the
    later call winning (MADV_NOHUGEPAGE after MADV_HUGEPAGE)."""
    flags = []
    undo = {14: "nh", 15: "hg", 11: "dc", 13: "mg", 17: "dd"}
    for (_, p, start, length, advice, *_) in sorted(madvises):
        if p != pid or not (start <= v["start"] and
                            v["end"] <= start + length):
            continue
        if advice in undo and undo[advice] in flags:
            flags.remove(undo[advice])
        f = ADVICE_FLAGS.get(advice)
        if f and f not in flags:
            flags.append(f)
    return flags


def add_resident(doc, snaps, mmaps=(), madvises=()):
    """Growth of each VMA's resident memory between the snapshots that
    saw it (smaps, and the peak no smaps saw: unseen_peak; mmaps:
    perf's MMAP records; madvises: the madvise calls perf recorded, for
    the advice of a VMA no smaps read saw): memory that came in with or
    without user faults."""
    out = []
    execd = set(doc.get("exec_pids") or [])
    parent = {f["pid"]: f["parent"] for f in doc.get("forks") or []
              if f["pid"] not in execd}
    unseen = unseen_peak(doc, snaps, mmaps)
    # The faults without an event beyond what the execs can have taken.
    gup = (doc.get("kernel_minus_perf") or 0) - EXEC_GUP * len(execd)
    seen = [(pid, v) for pid, vs in snaps.vmas.items() for v in vs.values()]
    if unseen and unseen[1].get("source") == "perf MMAP records":
        seen.append(unseen[:2])

    def inherited(pid, v):
        """A forked child's VMA its parent had too (its pages shared)."""
        pp = parent.get(pid)
        return pp is not None and any(
            o["start"] == v["start"] and o["end"] == v["end"]
            for o in snaps.vmas.get(pp, {}).values())
    for pid, v in seen:
        # File pages come in by fault-around too, many a fault.
        if "Rss" not in v or backing(v["path"], v["perms"]) in (
                "file",) or v["path"].startswith("["):
            continue
        rss, huge, extra = resident_of(
            v, unseen[2] if unseen and unseen[1] is v else 0, gup)
        grown = resident_grown(snaps, pid, v, rss, inherited)
        if grown <= 0:
            continue
        out.append({"pid": pid, "start": "%x" % v["start"],
                    "end": "%x" % v["end"], "size": v["end"] - v["start"],
                    "backing": backing(v["path"], v["perms"]),
                    "path": v["path"], "rss": rss, "grown": grown,
                    "unseen": extra, "shared": v["perms"][3:4] == "s",
                    "flags": v.get("VmFlags") or
                    advised_flags(madvises, pid, v),
                    "writable": v["perms"][1:2] == "w", "huge_bytes": huge,
                    "object": "%s:%s:%s" % objects.object_key(pid, v)})
    add_event_bytes(doc, out)
    # A shared object's growth in all its processes: the pages each
    # mapped in its own page tables.
    objs = {}
    for r in out:
        if r["shared"]:
            o = objs.setdefault(r["object"], {"grown": 0, "event_bytes": 0,
                                              "pids": []})
            o["grown"] += r["grown"]
            o["event_bytes"] += r["event_bytes"]
            o["pids"] = sorted(set(o["pids"]) | {r["pid"]})
    doc["resident_objects"] = objs
    out.sort(key=lambda x: -x["grown"])
    doc["resident"] = out[:TOP_VMAS]


def add_event_bytes(doc, out):
    """Each resident growth's user faults and the bytes they brought in
    (a huge page's whole), from the report's VMA of the sighting (its
    extent may be wider)."""
    for r in out:
        s0, e0 = int(r["start"], 16), int(r["end"], 16)
        v = next((v for v in doc["vmas"] if v["pid"] == r["pid"] and
                  int(v["start"], 16) <= s0 and e0 <= int(v["end"], 16)),
                 {})
        r["user_faults"] = v.get("faults", 0)
        r["event_bytes"] = v.get("bytes", 0)


def kernel_side_processes(doc, snaps, rec=None):
    """The processes whose fault counters (/proc/PID/stat, last seen:
    their threads' and those of their threads that ended) exceed the
    fault events perf saw from them up to that reading (rec: the
    recording; all their events without it), by how many: {pid:
    faults}.  A thread that populated and ended between two snapshots
    is seen there only."""
    events = {}
    for t in doc["threads"]:
        events[t.get("pid")] = events.get(t.get("pid"), 0) + t["faults"]
    out = {}
    for pid, (n, ev) in counters.process_counts(snaps, rec).items():
        extra = n - (events.get(pid, 0) if ev is None else ev)
        if extra > 0:
            out[pid] = extra
    return out


def add_kernel_side(doc, snaps, rec=None):
    """Threads whose own fault counters (/proc/PID/task/TID/stat, last
    seen; or their process's, for one that ended alone between two
    readings of them) exceed the user faults perf saw from them up to
    that reading: the threads that took faults in the kernel (populate,
    mlock, GUP); and the faults without an event no reading held."""
    seen = {t["tid"]: t["faults"] for t in doc["threads"]}
    hidden = doc.get("kernel_minus_perf") or 0
    names = getattr(rec, "names", {})
    out = []
    for tid, (pid, n, ev) in counters.thread_counts(snaps, rec).items():
        extra = n - (seen.get(tid, 0) if ev is None else ev)
        if extra > max(8, hidden / 100):
            k = snaps.threads.get(tid) or {}
            out.append({"tid": tid, "pid": pid,
                        "name": k.get("name") or names.get(tid) or "?",
                        "kernel_side_faults": extra})
    out.sort(key=lambda x: (-x["kernel_side_faults"], x["tid"]))
    doc["kernel_side_threads"] = out
    doc["kernel_side_processes"] = kernel_side_processes(doc, snaps, rec)
    if rec is not None:
        doc["kernel_side_after_last_readings"] = \
            counters.after_last_readings(
                snaps, rec, (doc.get("kernel") or {}).get("faults"),
                doc["perf"].get("lost_faults", 0))
    # Those that took most of them: the populate workers.
