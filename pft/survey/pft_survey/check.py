# SPDX-License-Identifier: GPL-2.0-or-later
# pft_survey.check - the program's survey beside the survey of the pft
# line that reproduces it (pft-survey --check): per dimension, both
# figures and their ratio.
#
# Copyright (C) 2026 The libfaultgen authors

from . import kinds as K
from .verdict import human, pattern_objects, untold_bytes, workers


def copies_seen(doc):
    """The kind the survey of an attached program compares alone: the
    copies (cow; refault without the tracepoints) of a copy-on-write
    after fork of memory faulted before the survey began, which it
    could not see faulted.  None for another survey."""
    if doc.get("attached_pid") is None or doc.get("pattern") != "cow-fork":
        return None
    return K.COW if doc.get("source") == K.TRACEPOINTS else K.REFAULT


def object_rows(objs, only=None):
    """The faults, bytes, processes and workers of the pattern's
    objects: all their faults, or those of kind `only`."""
    def faults(o):
        if only is None:
            return o["faults"]
        return (o["kinds"].get(only) or {}).get("faults", 0)

    def nbytes(o):
        if only is None:
            return o["bytes"]
        return (o["kinds"].get(only) or {}).get("bytes", 0)
    if only is None:
        pids = {p for o in objs for p in o["pids"]}
        ws = workers(objs)
        what = ""
    else:
        # The threads' faults of that kind, a page each.
        pids = {t["pid"] for o in objs for t in o["top_threads"]
                if t["kinds"].get(only)}
        ws = workers([dict(o, bytes=nbytes(o), top_threads=[
            dict(t, bytes=t["kinds"].get(only, 0) * K.PAGE)
            for t in o["top_threads"]]) for o in objs])
        what = ", of kind %s alone (attached: the copies)" % only
    return [("faults on them" + what, sum(faults(o) for o in objs)),
            ("bytes faulted" + what, sum(nbytes(o) for o in objs)),
            ("processes" + what, len(pids)),
            ("workers (threads with 1% or more)" + what, len(ws))]


def dimensions(doc, only=None, grown=False):
    """The figures --check compares, in order: (name, value).  only: a
    kind to compare the faults, bytes, processes and workers of (those
    an attached program's survey saw: copies_seen); grown: the shared
    object's resident growth in its processes too (faults without an
    event went into it: shared_untold)."""
    pop = doc.get("populated")
    if pop:
        # Populated memory raised no fault event: its resident bytes and
        # the kernel's count are the figures.
        return [("populated VMA resident bytes", pop["resident"]),
                ("bytes without a fault event", pop["bytes_without_events"]),
                ("bytes in huge pages", pop["huge_bytes"]),
                ("workers (threads with faults without events)",
                 pop["workers"]),
                ("faults without an event (%s)" % (
                    K.GUP if doc.get("source") == K.TRACEPOINTS
                    else K.KERNEL_SIDE),
                 max(0, doc.get("kernel_minus_perf") or 0))]
    objs = pattern_objects(doc)
    untold = doc.get("shared_untold")
    if untold:
        # Its faults without an event: the shared object they went into.
        objs = [o for o in doc.get("objects") or ()
                if o["id"] == untold["object"]]
    out = []
    kinds = {}
    for o in objs:
        for k, e in o["kinds"].items():
            kinds[k] = kinds.get(k, 0) + e["faults"]
    out.append(("pattern objects", len(objs)))
    faults, nbytes, procs, ws = object_rows(objs, only)
    out.append(faults)
    for k in K.EVENT_KINDS:
        if k in kinds:
            out.append(("  of kind " + k, kinds[k]))
    out.append(nbytes)
    out.append(("bytes in huge pages", sum(
        (o["kinds"].get(K.HUGE_KIND) or {}).get("bytes", 0) for o in objs)))
    out.append(procs)
    out.append(ws)
    if grown and objs and objs[0]["shared"]:
        # Its growth in resident memory in all its processes (smaps):
        # the pages each mapped, with a fault event or without.
        grown = (doc.get("resident_objects") or {}).get(objs[0]["id"], {})
        out.append(("bytes its processes mapped (smaps resident growth)",
                    grown.get("grown", 0)))
        # Like with like: the program's faults on it are mostly without
        # an event (kernel-mode), pft's all user-mode events; both
        # counted as the line was sized, events and those without one.
        out.append(("faults on it, with its processes' faults without "
                    "an event", faults[1] + (untold_bytes(doc, grown) //
                                             K.PAGE if grown else 0)))
    out.append(("most threads at once (1 ms)",
                max((o["concurrency_threads_max"] for o in objs), default=0)))
    out.append(("most processes at once (1 ms)",
                max((o["concurrency_processes_max"] for o in objs),
                    default=0)))
    hidden = doc.get("kernel_minus_perf")
    if hidden is not None:
        out.append(("faults without an event (%s)" % (
            K.GUP if doc.get("source") == K.TRACEPOINTS else K.KERNEL_SIDE),
            max(0, hidden)))
    return out


def compare(a, b):
    """Rows (dimension, the program's, pft's, ratio pft/program or None)
    for the dimensions either survey has."""
    # An attached program's copy-on-write: its copies against the
    # line's (whose memory was first touched under the survey).
    only = copies_seen(a)
    grown = bool(a.get("shared_untold"))
    dima, dimb = dimensions(a, only, grown), dimensions(b, only, grown)
    da, db = dict(dima), dict(dimb)
    names = [n for n, _ in dima]
    names += [n for n, _ in dimb if n not in names]
    rows = []
    for n in names:
        x, y = da.get(n, 0), db.get(n, 0)
        rows.append({"dimension": n.strip(), "program": x, "pft": y,
                     "ratio": (y / x) if x else (None if y else 1.0)})
    return rows


def value(name, v):
    return human(v) if name.startswith("bytes") and v else "%d" % v


def render(rows, line, out):
    """The table --check prints after the report."""
    w = out.write
    w("\ncheck: the program beside %s, surveyed the same way\n" % line)
    width = max(len(r["dimension"]) for r in rows) + 2
    w("  %-*s %14s %14s %8s\n" % (width, "", "program", "pft", "ratio"))
    for r in rows:
        w("  %-*s %14s %14s %8s\n" % (
            width, r["dimension"], value(r["dimension"], r["program"]),
            value(r["dimension"], r["pft"]),
            "-" if r["ratio"] is None else "%.3f" % r["ratio"]))
