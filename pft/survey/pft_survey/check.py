# SPDX-License-Identifier: GPL-2.0-or-later
# pft_survey.check - the program's survey beside the survey of the pft
# line that reproduces it (pft-survey --check): per dimension, both
# figures and their ratio.
#
# Copyright (C) 2026 The libfaultgen authors

from . import kinds as K
from .verdict import human


def pattern_objects(doc):
    """The objects the verdict's pattern is made of: the one that took
    the most bytes and, for private memory, those like it (the same
    backing and path, at least half its bytes) and those of its backing
    that its workers faulted most of (1% of all bytes or more)."""
    objs = doc.get("objects") or []
    if not objs:
        return []
    top = objs[0]
    if top["shared"]:
        return [top]
    # Those like it, and those its own workers faulted most of (a JVM's
    # spaces, a heap split in two).
    mine = set(workers([top]))
    total = sum(o["bytes"] for o in objs)

    def by_workers(o):
        b = sum(t["bytes"] for t in o["top_threads"] if t["tid"] in mine)
        return b * 2 > o["bytes"] and o["bytes"] * 100 >= total
    return [o for o in objs if not o["shared"] and
            o["backing"] == top["backing"] and (
                (o["path"] == top["path"] and o["bytes"] >= top["bytes"] / 2)
                or by_workers(o))]


def workers(objs):
    """The threads with at least 1% of the objects' bytes."""
    total = sum(o["bytes"] for o in objs)
    tids = {}
    for o in objs:
        for t in o["top_threads"]:
            tids[t["tid"]] = tids.get(t["tid"], 0) + t["bytes"]
    return [t for t, b in tids.items() if total and b * 100 >= total]


def dimensions(doc):
    """The figures --check compares, in order: (name, value)."""
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
    out = []
    kinds = {}
    for o in objs:
        for k, e in o["kinds"].items():
            kinds[k] = kinds.get(k, 0) + e["faults"]
    out.append(("pattern objects", len(objs)))
    out.append(("faults on them", sum(o["faults"] for o in objs)))
    for k in K.EVENT_KINDS:
        if k in kinds:
            out.append(("  of kind " + k, kinds[k]))
    out.append(("bytes faulted", sum(o["bytes"] for o in objs)))
    out.append(("bytes in huge pages", sum(
        (o["kinds"].get(K.HUGE_KIND) or {}).get("bytes", 0) for o in objs)))
    out.append(("processes", len({p for o in objs for p in o["pids"]})))
    ws = workers(objs)
    out.append(("workers (threads with 1% or more)", len(ws)))
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
    da, db = dict(dimensions(a)), dict(dimensions(b))
    names = [n for n, _ in dimensions(a)]
    names += [n for n, _ in dimensions(b) if n not in names]
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
