# SPDX-License-Identifier: GPL-2.0-or-later
# pft_survey.calls - the mapping calls perf recorded (madvise, mprotect,
# munmap, mmap: the syscall tracepoints) with the profile's word for
# each call's argument, and each call's range joined to the VMAs it
# covered, as a profile's calls are made of (pft-profile(5)).
#
# Copyright (C) 2026 The libfaultgen authors

from . import objects
from .base import PAGE

CALLS = ("madvise", "mprotect", "munmap", "mmap")

# madvise(2)'s advice, by number: the name without MADV_, lowercase
# (another number is its decimal string).
ADVICE = {0: "normal", 1: "random", 2: "sequential", 3: "willneed",
          4: "dontneed", 8: "free", 9: "remove", 10: "dontfork",
          11: "dofork", 12: "mergeable", 13: "unmergeable", 14: "hugepage",
          15: "nohugepage", 16: "dontdump", 17: "dodump", 18: "wipeonfork",
          19: "keeponfork", 20: "cold", 21: "pageout", 22: "populate_read",
          23: "populate_write", 25: "collapse"}
PROT_READ, PROT_WRITE, PROT_EXEC = 1, 2, 4


def advice_name(advice):
    return ADVICE.get(advice, "%d" % advice)


def prot_letters(prot):
    """mprotect's protection as "r", "w", "x" in that order, or "none"."""
    out = "".join(c for bit, c in ((PROT_READ, "r"), (PROT_WRITE, "w"),
                                   (PROT_EXEC, "x")) if prot & bit)
    return out or "none"


def call_arg(call, raw):
    """The profile's word for a call's argument: madvise's advice,
    mprotect's protection; None for munmap and mmap."""
    if call == "madvise":
        return advice_name(raw)
    if call == "mprotect":
        return prot_letters(raw)
    return None


def recorded(rec):
    """The calls of perf's Record, in time order: (time_ns, pid, tid,
    call, argument's word, start, end), the end rounded up to a page as
    the kernel rounds the length."""
    out = []
    for call, lst in (("madvise", rec.madvises),
                      ("mprotect", getattr(rec, "mprotects", ())),
                      ("munmap", getattr(rec, "munmaps", ())),
                      ("mmap", getattr(rec, "mmap_calls", ()))):
        for (t, pid, start, length, raw, *rest) in lst:
            tid = rest[0] if rest else pid
            end = start + -(-length // PAGE) * PAGE
            out.append((t, pid, tid, call, call_arg(call, raw), start, end))
    out.sort(key=lambda c: (c[0], c[2]))
    return out


def spans(index, find, pid, t, start, end):
    """What one call's range [start, end) covered at time t: [(object key,
    its first page, the page after its last)], a VMA each (find(pid,
    addr, t): the VMA alive at t that holds addr, the process's own or
    one it inherited; index: pid -> VmaIndex), in address order."""
    out, seen = [], set()
    vi = index.get(pid)
    if end <= start:
        return out
    addrs = [max(start, v["start"])
             for v in reversed(vi.overlapping(start, end))] \
        if vi is not None else []
    for addr in addrs or [start]:
        v = find(pid, addr, t)
        if v is None or id(v) in seen or not (v["start"] < end and
                                              start < v["end"]):
            continue
        seen.add(id(v))
        lo, hi = max(start, v["start"]), min(end, v["end"])
        out.append((objects.object_key(pid, v), objects.page_index(v, lo),
                    objects.page_index(v, hi - 1) + 1))
    return out


def join(rec, index, find):
    """The calls of rec, each (time_ns, pid, tid, call, argument, spans);
    a process's calls before its exec are left out (those of the program
    it was before, as its faults are)."""
    out = []
    for (t, pid, tid, call, arg, start, end) in recorded(rec):
        if pid in rec.execs and t < rec.execs[pid]:
            continue
        out.append((t, pid, tid, call, arg,
                    spans(index, find, pid, t, start, end)))
    return out
