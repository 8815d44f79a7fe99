# SPDX-License-Identifier: GPL-2.0-or-later
# pft_survey.lockpaths - which lock the faults took: each thread's
# mmap_lock acquisitions (the mmap_lock tracepoints, with the exceptions
# tracepoints), and per object the user faults that fell back from the
# per-VMA lock to mmap_lock.
#
# Copyright (C) 2026 The libfaultgen authors

from . import kinds, objects

# What the figures count, for the report and its readers.
DESCRIPTION = (
    "a fallback is a read acquisition of mmap_lock by a thread whose last "
    "event was a user-mode fault: the fault took mmap_lock (the per-VMA "
    "lock failed or was dropped to retry); a failed trylock and the "
    "acquisition after it count once; a system call that takes mmap_lock "
    "right after a fault with no other event between counts too")


def user_fault(rec, i):
    code = rec.codes[i]
    return code is not None and bool(code & kinds.PF_USER)


def object_rows(rec, vma_of):
    """Per object its user faults and those that fell back, the objects
    with fallbacks first."""
    fell_back = getattr(rec, "fell_back", set())
    rows = {}
    for i, (t, pid, tid, addr, per) in enumerate(rec.faults):
        v = vma_of[i]
        if v is None or not user_fault(rec, i):
            continue
        key = objects.object_key(pid, v)
        e = rows.setdefault(key, {"object": "%s:%s:%s" % key,
                                  "path": v.get("path", ""),
                                  "user_faults": 0, "fallbacks": 0})
        e["user_faults"] += per
        if (t, tid, addr) in fell_back:
            e["fallbacks"] += per
    return sorted(rows.values(), key=lambda e: (-e["fallbacks"],
                                               -e["user_faults"],
                                               e["object"]))


def thread_rows(rec, tname):
    """Per thread with user faults or mmap_lock events: its user faults,
    read and write acquisitions, failed read trylocks and fallbacks."""
    threads = {}
    for i, (_t, pid, tid, _addr, per) in enumerate(rec.faults):
        if user_fault(rec, i):
            th = threads.setdefault(tid, {"pid": pid, "user_faults": 0})
            th["user_faults"] += per
    for tid, e in getattr(rec, "lock_threads", {}).items():
        th = threads.setdefault(tid, {"pid": e["pid"], "user_faults": 0})
        th.update((k, e[k]) for k in ("read", "write", "trylock_failed",
                                      "fallbacks"))
    out = []
    for tid, th in threads.items():
        row = {"tid": tid, "pid": th["pid"], "name": tname(tid),
               "user_faults": th["user_faults"]}
        for k in ("read", "write", "trylock_failed", "fallbacks"):
            row[k] = th.get(k, 0)
        out.append(row)
    return sorted(out, key=lambda r: (-r["write"] - r["read"],
                                      -r["user_faults"], r["tid"]))


def lock_paths(rec, vma_of, tname, source, period):
    """The report's "lock_paths": recorded, and per thread and object;
    or not recorded and why (one sentence)."""
    if not getattr(rec, "locks_recorded", False):
        why = kinds.locks_not_recorded(
            source, period, kinds.locks_traceable(),
            kinds.may_trace() is None) or \
            "the mmap_lock tracepoints were not recorded"
        return {"recorded": False, "not_recorded": why}
    return {"recorded": True, "description": DESCRIPTION,
            "threads": thread_rows(rec, tname),
            "objects": object_rows(rec, vma_of)}
