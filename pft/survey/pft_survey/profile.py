# SPDX-License-Identifier: GPL-2.0-or-later
# pft_survey.profile - the fault profile (pft-profile/1, pft-profile(5)):
# a survey's facts in time bins per thread, object and kind, with the
# order of the pages in each bin, written to a new file
# (pft-survey --record).  libfaultgen's replay pattern reads it.
#
# Copyright (C) 2026 The libfaultgen authors
#
# The profile is built from a Recording: plain facts (objects, processes,
# threads, each fault's time, thread, object, kind and page, the faults
# without an event), so that it can be built by hand in the tests as
# well as from a survey (pft_survey.recording).  It holds no memory
# contents, and no path, command line or thread name unless asked.

import json
import os

from . import kinds as K

SCHEMA = "pft-profile/1"
BIN_MS = 10
# Sized for mail: a profile in BIN_MS bins larger than this is written
# in the first of WIDER_MS that brings it under (build_sized).
MAIL_BYTES = 512 * 1024
WIDER_MS = (20, 50, 100, 200, 500, 1000)
# Bins of a row merged into one run: the same order, the pages going
# on, and each bin's count within RATE_TOLERANCE of the run's mean per
# bin (the replay spreads a run's faults evenly over its bins).
RATE_TOLERANCE = 0.25
SEQ, STRIDE, RANDOM = "seq", "stride", "random"


class Recording:
    """What a profile is made of.  objects: key -> {"backing" (the
    profile's word), "size", "writable", "thp", "huge_bytes", "creator"
    (a pid), "path"}; processes: pid -> {"parent" (a pid or None),
    "fork_ns", "exit_ns" (None: not seen), "objects" (keys), "command"};
    threads: tid -> {"pid", "start_ns", "end_ns", "name"}; events:
    (time_ns, tid, object key, kind, page of the object, faults);
    without_event: (tid, kind, faults); calls: the mapping calls, None
    where they were not recorded, else (time_ns, tid, call, argument's
    word or None, object key or None, first page of the object, pages),
    its range in the object's pages (clipped to it when built)."""

    def __init__(self, source, period=1, page_size=4096):
        self.source = source
        self.period = period
        self.page_size = page_size
        self.objects = {}
        self.processes = {}
        self.threads = {}
        self.events = []
        self.without_event = []
        self.calls = None
        self.threads_pid = {}   # tid -> pid, while it is made
        self.recorder = "pft-survey"


# The runs of pages a bin's row may be split into before it is random.
MAX_PIECES = 8
MIN_RUN = 4


def page_order(pages, period=1):
    """The order of the pages of one bin, in the order they were faulted:
    (SEQ, 1) each one page above the last (or a single page), (STRIDE,
    n) each n pages above it, else (RANDOM, 0).  Sampled one in
    `period`, a stride of a multiple of period is that multiple: the
    faults between two samples lay between their pages."""
    steps = {b - a for a, b in zip(pages, pages[1:])}
    if not steps:
        return SEQ, 1
    if len(steps) > 1:
        return RANDOM, 0
    step = steps.pop()
    if step <= 0:
        return RANDOM, 0
    if period > 1 and step % period == 0:
        step //= period
    return (SEQ, 1) if step == 1 else (STRIDE, step)


def pieces(pages, counts):
    """The runs a bin's pages (in fault order, with their faults) form:
    [(pages, faults)], each run's pages one step above the last by the
    same step (a run of one page takes the next page above it)."""
    out = []
    for page, n in zip(pages, counts):
        if out:
            run, _ = out[-1]
            step = run[1] - run[0] if len(run) > 1 else page - run[-1]
            if step > 0 and page - run[-1] == step:
                run.append(page)
                out[-1] = (run, out[-1][1] + n)
                continue
        out.append(([page], n))
    return out


def piece_rows(b, pages, counts, period):
    """A bin's rows: one where its pages are in one order; one a run
    where they are a few runs (up to MAX_PIECES, of MIN_RUN pages on
    average: two threads taking chunks in turn); else one random
    row."""
    order, stride = page_order(pages, period)
    runs = pieces(pages, counts) if order == RANDOM else []
    if not runs or len(runs) > MAX_PIECES or \
            len(pages) < MIN_RUN * len(runs):
        return [[b, 1, sum(counts), min(pages), max(pages), order, stride]]
    out = []
    for run, n in runs:
        order, stride = page_order(run, period)
        out.append([b, 1, n, min(run), max(run), order, stride])
    return out


def bin_rows(events, t0, bin_ns, period=1):
    """The rows of one (thread, object, kind): events (time_ns, page,
    faults), in time order, into a row a bin, or one a run of pages
    (piece_rows): [bin, 1, count, first_page, last_page, order,
    stride]."""
    rows = []
    cur, pages, counts = None, [], []
    for t, page, n in events + [(None, None, 0)]:
        b = None if t is None else (t - t0) // bin_ns
        if b != cur and pages:
            rows += piece_rows(cur, pages, counts, period)
            pages, counts = [], []
        cur = b
        if t is not None:
            pages.append(page)
            counts.append(n)
    return rows


def continues(run, row):
    """Whether row (the next bin's) goes on from run: the next bin, the
    same order and stride, its pages going on (the same range for
    random ones) and its count near the run's mean per bin."""
    b, nb, count, first, last, order, stride = run
    if row[0] != b + nb or row[5] != order or row[6] != stride:
        return False
    if order == RANDOM:
        if (row[3], row[4]) != (first, last):
            return False
    elif row[3] != last + stride:
        return False
    mean = count / nb
    return abs(row[2] - mean) <= RATE_TOLERANCE * mean


def merge_runs(rows):
    """Consecutive rows that go on from each other as one run of bins."""
    out = []
    for row in rows:
        if out and continues(out[-1], row):
            run = out[-1]
            run[1] += 1
            run[2] += row[2]
            run[4] = row[4]
        else:
            out.append(list(row))
    return out


def kept_calls(r):
    """The calls of threads the profile has (none where not recorded)."""
    return [c for c in r.calls or () if c[1] in r.threads]


def start_ns(r):
    """The profile's start: its first fault, fork, thread start or
    call."""
    times = [e[0] for e in r.events] + [c[0] for c in kept_calls(r)]
    times += [p["fork_ns"] for p in r.processes.values() if p["fork_ns"]]
    times += [t["start_ns"] for t in r.threads.values() if t["start_ns"]]
    return min(times, default=0)


def end_ns(r, t0):
    times = [e[0] for e in r.events] + [c[0] for c in kept_calls(r)]
    times += [p["exit_ns"] for p in r.processes.values() if p["exit_ns"]]
    times += [t["end_ns"] for t in r.threads.values() if t["end_ns"]]
    return max(times, default=t0)


def ms(t, t0):
    """A time as ms from the profile's start (None stays None)."""
    return None if t is None else round(max(0, t - t0) / 1e6, 3)


def numbering(r):
    """Profile ids: processes from the first forked (the root) on, their
    threads main first, objects by their first fault."""
    pids = sorted(r.processes, key=lambda p: (
        r.processes[p]["fork_ns"] or 0, r.processes[p]["parent"] is not
        None, p))
    pid_id = {p: i for i, p in enumerate(pids)}
    tids = sorted(r.threads, key=lambda t: (
        pid_id[r.threads[t]["pid"]], t != r.threads[t]["pid"],
        r.threads[t]["start_ns"] or 0, t))
    first = {}
    for e in r.events:
        first[e[2]] = min(first.get(e[2], e[0]), e[0])
    keys = sorted(r.objects, key=lambda k: (first.get(k, 0), str(k)))
    return pid_id, {t: i for i, t in enumerate(tids)}, \
        {k: i for i, k in enumerate(keys)}


def object_members(r, key, oid, pid_id, names):
    o = r.objects[key]
    page = r.page_size
    out = {"id": oid, "backing": o["backing"],
           "size": -(-o["size"] // page) * page,
           "writable": bool(o["writable"]), "thp": bool(o["thp"]),
           "huge_bytes": o["huge_bytes"],
           "creator": pid_id.get(o["creator"], 0)}
    if names:
        out["path"] = o.get("path") or ""
    return out


def process_members(r, pid, pid_id, obj_id, t0, names):
    p = r.processes[pid]
    out = {"id": pid_id[pid],
           "parent": pid_id.get(p["parent"]),
           "fork_ms": ms(p["fork_ns"], t0) or 0.0,
           "exit_ms": ms(p["exit_ns"], t0),
           "objects": sorted(obj_id[k] for k in p["objects"]
                             if k in obj_id)}
    if names and p.get("command"):
        out["command"] = list(p["command"])
    return out


def thread_members(r, tid, tid_id, pid_id, t0, names):
    t = r.threads[tid]
    p = r.processes[t["pid"]]
    out = {"id": tid_id[tid], "process": pid_id[t["pid"]],
           "start_ms": ms(t["start_ns"] or p["fork_ns"], t0) or 0.0,
           "end_ms": ms(t["end_ns"], t0), "main": tid == t["pid"]}
    if names:
        out["name"] = t.get("name") or ""
    return out


def fault_rows(r, t0, bin_ns, tid_id, obj_id):
    """The faults rows: [thread, object, bin, nbins, kind, count,
    first_page, last_page, order, stride], by first bin, thread,
    object and kind."""
    groups = {}
    for t, tid, key, kind, page, n in sorted(r.events, key=lambda e: e[0]):
        groups.setdefault((tid_id[tid], obj_id[key], kind), []).append(
            (t, page, n))
    out = []
    for (th, ob, kind), evs in groups.items():
        for b, nb, c, first, last, order, stride in merge_runs(
                bin_rows(evs, t0, bin_ns, r.period)):
            out.append([th, ob, b, nb, kind, c, first, last, order, stride])
    out.sort(key=lambda x: (x[2], x[0], x[1], K.EVENT_KINDS.index(x[4])
                            if x[4] in K.EVENT_KINDS else 99, x[4]))
    return out


def call_rows(r, t0, bin_ns, tid_id, obj_id):
    """The calls rows: [thread, object, bin, call, arg, count, first,
    last, pages], a row per (thread, object, bin, call, arg): its calls,
    the lowest and the highest page of the object they covered and their
    pages summed, each call's range clipped to the object (0, 0 and 0
    for no object); by bin, thread, object (null first), call and arg.
    Calls over the same pages twice have pages above last - first + 1.
    None where the calls were not recorded."""
    if r.calls is None:
        return None
    groups = {}
    for t, tid, call, arg, key, first, pages in kept_calls(r):
        ob = obj_id.get(key)
        lo = hi = 0
        if ob is not None:
            size = r.objects[key]["size"]
            lo = max(0, first)
            hi = min(first + pages, -(-size // r.page_size))
            if hi <= lo:
                ob, lo, hi = None, 0, 0
        k = (tid_id[tid], ob, (t - t0) // bin_ns, call, arg)
        g = groups.setdefault(k, [0, None, 0, 0])
        g[0] += 1
        if ob is not None:
            g[1] = lo if g[1] is None else min(g[1], lo)
            g[2] = max(g[2], hi - 1)
            g[3] += hi - lo
    out = [[th, ob, b, call, arg, n, first or 0, last, pages]
           for (th, ob, b, call, arg), (n, first, last, pages)
           in groups.items()]
    out.sort(key=lambda x: (x[2], x[0], x[1] is not None, x[1] or 0, x[3],
                            x[4] is not None, x[4] or ""))
    return out


def build(r, bin_ms=BIN_MS, names=False):
    """The profile (a dict) of Recording r, in bins of bin_ms."""
    t0 = start_ns(r)
    bin_ns = int(bin_ms * 1000000)
    pid_id, tid_id, obj_id = numbering(r)
    without = {}
    for tid, kind, n in r.without_event:
        k = (tid_id[tid], kind)
        without[k] = without.get(k, 0) + n
    return {
        "schema": SCHEMA, "recorder": r.recorder, "source": r.source,
        "period": r.period, "bin_ms": bin_ms,
        "duration_ms": ms(end_ns(r, t0), t0),
        "page_size": r.page_size, "names": bool(names),
        "objects": [object_members(r, k, obj_id[k], pid_id, names)
                    for k in sorted(obj_id, key=obj_id.get)],
        "processes": [process_members(r, p, pid_id, obj_id, t0, names)
                      for p in sorted(pid_id, key=pid_id.get)],
        "threads": [thread_members(r, t, tid_id, pid_id, t0, names)
                    for t in sorted(tid_id, key=tid_id.get)],
        "faults": fault_rows(r, t0, bin_ns, tid_id, obj_id),
        "without_event": [[th, kind, n] for (th, kind), n in
                          sorted(without.items()) if n > 0],
        "calls": call_rows(r, t0, bin_ns, tid_id, obj_id),
    }


def build_sized(r, names=False, limit=MAIL_BYTES):
    """(profile, its text, the bytes of the text in BIN_MS bins): in
    BIN_MS bins, or in the first of WIDER_MS whose text is under limit
    where BIN_MS's is not (a long program's faults scattered over many
    bins: a row each), else the widest."""
    prof = build(r, BIN_MS, names)
    text = dumps(prof)
    first = len(text)
    for ms_ in WIDER_MS:
        if len(text) <= limit:
            break
        prof = build(r, ms_, names)
        text = dumps(prof)
    return prof, text, first


def dumps(prof):
    """The profile as text: its members one a line, the rows of faults
    and calls one a line (small, and readable with a pager or diff)."""
    lines = []
    for k, v in prof.items():
        if isinstance(v, list) and v:
            inner = ",\n".join(" " + json.dumps(x, separators=(",", ":"))
                               for x in v)
            lines.append("%s: [\n%s\n ]" % (json.dumps(k), inner))
        else:
            lines.append("%s: %s" % (json.dumps(k), json.dumps(v)))
    return "{\n" + ",\n".join(" " + x for x in lines) + "\n}\n"


def create_new(path, data):
    """Writes bytes to path, a new file: created exclusively, never
    through a link nor over any file; a failure removes what it wrote.
    OSError naming path."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW |
                 os.O_CLOEXEC, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    except OSError as e:
        os.close(fd)
        os.unlink(path)
        raise OSError(e.errno, e.strerror, path) from None
    os.close(fd)


def write_new(path, prof):
    """The profile written to path, a new file (create_new)."""
    create_new(path, dumps(prof).encode("ascii"))
