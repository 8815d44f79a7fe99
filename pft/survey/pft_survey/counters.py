# SPDX-License-Identifier: GPL-2.0-or-later
# pft_survey.counters - the kernel's fault counters as the snapshots read
# them (/proc/PID/stat, /proc/PID/task/TID/stat), set against perf's
# fault events of the same thread or process up to the moment of each
# reading (both on CLOCK_MONOTONIC): the faults that raised no event.
# And the count of a thread that ended between two readings of its
# process: what its process's counters gained beyond its live threads'.
#
# Copyright (C) 2026 The libfaultgen authors

import bisect


class Events:
    """perf's fault events by thread and by process, in time order: how
    many (faults, each sample its period) came by a moment."""

    def __init__(self, rec):
        self.by = {}
        for (t, pid, tid, _addr, per) in sorted(rec.faults):
            for key in (("tid", tid), ("pid", pid)):
                times, sums = self.by.setdefault(key, ([], []))
                times.append(t)
                sums.append((sums[-1] if sums else 0) + per)

    def until(self, key, ns=None, since=None):
        """The faults of key (("tid", N) or ("pid", N)) whose events came
        before ns (all where None), and after since (where given)."""
        times, sums = self.by.get(key, ((), ()))

        def upto(x):
            i = len(times) if x is None else bisect.bisect_left(times, x)
            return sums[i - 1] if i else 0
        return upto(ns) - (upto(since) if since is not None else 0)


def ends(snaps, rec):
    """{tid: its faults in all} for each thread that ended, alone of its
    process's, between two readings of the process (task records: its
    exit; the first reading it was missing from): the process's counters
    keep an ended thread's faults, so what they gained beyond the live
    threads' is that thread's whole count.  A process the survey saw
    begin had no ended threads before its first reading; an attached
    one's first reading is where its count starts."""
    exits = {}
    for (t, pid, tid) in rec.exits:
        exits.setdefault(pid, {})[tid] = t
    out = {}
    for pid, readings in (getattr(snaps, "readings", None) or {}).items():
        gone = exits.get(pid, {})
        done = set()
        before = None if getattr(snaps, "attached", False) else 0
        for r in readings:
            ended = r["faults"] - sum(r["threads"].values())
            group = [tid for tid, t in gone.items()
                     if tid not in done and tid not in r["threads"] and
                     t <= r["end"]]
            done.update(group)
            if before is not None and len(group) == 1:
                out[group[0]] = ended - before
            before = ended
    return out


def thread_counts(snaps, rec):
    """Each thread's faults as the kernel counted them and the faults of
    its events over the same span: {tid: (pid, counted, events)}; a
    thread that ended alone between two readings of its process counted
    in all (ends), any other from its last reading (an attached one's
    from its first)."""
    ev = Events(rec) if rec is not None else None
    whole = ends(snaps, rec) if rec is not None else {}
    pids = {tid: pid for (_t, pid, tid) in getattr(rec, "exits", ())}
    out = {}
    for tid, k in snaps.threads.items():
        n = k["minflt"] + k["majflt"] - k.get("base", 0)
        if ev is None:
            out[tid] = (k["pid"], n, None)
        elif tid in whole:
            out[tid] = (k["pid"], whole[tid] - k.get("base", 0),
                        ev.until(("tid", tid), None, k.get("base_ns")))
        else:
            out[tid] = (k["pid"], n, ev.until(("tid", tid), k.get("ns"),
                                              k.get("base_ns")))
    for tid, n in whole.items():
        if tid not in out:
            out[tid] = (pids[tid], n, ev.until(("tid", tid)))
    return out


def process_counts(snaps, rec):
    """Each process's faults as last read (an attached one's from its
    first reading) and the faults of its events up to that reading:
    {pid: (counted, events)}; events None without a recording."""
    ev = Events(rec) if rec is not None else None
    first = getattr(snaps, "readings", None) or {}
    when = getattr(snaps, "procs_ns", None) or {}
    out = {}
    for pid, (minflt, majflt) in snaps.procs.items():
        base = sum(snaps.first_procs.get(pid, (0, 0))) \
            if getattr(snaps, "attached", False) else 0
        since = first[pid][0]["begin"] \
            if getattr(snaps, "attached", False) and first.get(pid) else None
        out[pid] = (minflt + majflt - base,
                    ev and ev.until(("pid", pid), when.get(pid), since))
    return out


def after_last_readings(snaps, rec, kernel_faults, lost_faults=0):
    """The faults without an event that no reading of a process's
    counters held: the program's count (getrusage, its processes and
    their waited-for children) beyond each process's last reading and
    the events after it.  Which threads took them is not known."""
    if kernel_faults is None or getattr(snaps, "attached", False):
        return None
    ev = Events(rec)
    read = process_counts(snaps, rec)
    pids = set(read) | {pid for (_t, pid, _tid, _a, _p) in rec.faults}
    later = sum(ev.until(("pid", p)) - (read[p][1] if p in read else 0)
                for p in pids)
    held = sum(n for n, _ in read.values())
    return max(0, kernel_faults - held - later - lost_faults)
