# SPDX-License-Identifier: GPL-2.0-or-later
# pft_sweep.runs - the schema of a sweep's files: the points CSV, the runs
# CSV and the JSON document; writing them, and reading them back for
# --compare.
#
# Copyright (C) 2026 The libfaultgen authors

import csv
import io
import json
import math
import os
import re
import time

from .common import clean, finite, ratio, safe_median
from pft_common.safefile import replacing
from .topology import format_cpus


SCHEMA = "pft-sweep/1"
METRICS = {
    # name: (key of a run record, what the table calls it)
    "legacy": ("fault_per_wsec", "fault/wsec"),
    "round": ("round_rate_median", "median round rate"),
    "faults": ("faults_per_wall_s", "measured faults/wall s"),
    # With --latency: the runs' latency percentiles (lower is better).
    "p50": ("lat_p50_ns", "latency p50 ns"),
    "p99": ("lat_p99_ns", "latency p99 ns"),
    # With --lock-paths: the faults that took mmap_lock, per user fault
    # (lower is better).
    "fallbacks": ("lp_fallbacks_per_fault", "fallbacks per user fault"),
    # With --lock-waits: the p99 of the workers' mmap_lock read waits, in
    # nanoseconds (lower is better).
    "wait-p99": ("lw_read_p99_ns", "mmap_lock read wait p99 ns"),
}
# The metrics that need pft --latency.
LATENCY_METRICS = ("p50", "p99")
# The metrics whose lower figure --compare marks (I).
LOWER_BETTER = ("p50", "p99", "fallbacks", "wait-p99")
# The metrics that are fractions (printed with six places, plotted with
# nine digits), not rates or nanoseconds.
FRACTIONS = ("fallbacks",)
# pft --lock-paths: a run's counts (its "lock_paths" member), the columns
# of the runs CSV; the points CSV has their medians.
LOCK_PATHS = (("lp_user_faults", "user_faults"), ("lp_mmap_read", "mmap_read"),
              ("lp_fallbacks", "fallbacks"))
# pft --lock-waits: the workers' faults counted one by one (faults that
# took the mmap_lock, the retries of a fault beyond its first), columns
# of the runs CSV; the points CSV has their medians.
LOCK_WAIT_COUNTS = (("lw_faults_mmap_read", "faults_mmap_read"),
                    ("lw_retries", "retries"))

POINT_COLUMNS = [
    "pattern", "workers", "cpus", "size", "runs", "metric", "median",
    "min", "max", "spread_pct", "ratio", "fault_per_wsec_median",
    "round_rate_median", "faults_per_wall_s_median",
    "flt_per_cpu_s_median", "start_skew_s_median", "layout", "label",
    "lat_p50_ns_median", "lat_p99_ns_median", "interleave_pages",
    "writers", "threads_median", "threads_started_median",
    "process_faults_median", "prealloc_s_median", "backing",
    "lp_user_faults_median", "lp_mmap_read_median", "lp_fallbacks_median",
    "lp_fallbacks_per_fault_median", "lw_read_p99_ns_median",
    "lw_faults_mmap_read_median", "lw_retries_median",
]
RUN_COLUMNS = [
    "pattern", "workers", "cpus", "size", "run", "pages", "rounds",
    "minflt", "faults_agree", "elapsed_s", "fault_s", "user_s", "sys_s",
    "start_skew_s", "fault_per_wsec", "flt_per_cpu_s", "faults_per_wall_s",
    "round_rate_median", "round_rate_min", "round_rate_max", "layout",
    "lat_count", "lat_p50_ns", "lat_p99_ns", "interleave_pages", "writers",
    "threads", "threads_started", "populate", "step_bytes", "probe_faults",
    "process_faults", "prealloc_s", "huge_page_bytes", "backing",
    "lp_user_faults", "lp_mmap_read", "lp_fallbacks",
    "lp_fallbacks_per_fault", "lw_read_p99_ns", "lw_faults_mmap_read",
    "lw_retries",
]
SECONDS = ("elapsed_s", "fault_s", "user_s", "sys_s", "start_skew_s",
           "prealloc_s")
# qemu-prealloc's "figures" (pft --json), a run's own columns; None in
# the other patterns' runs.
QEMU_FIGURES = ("threads", "threads_started", "populate", "step_bytes",
                "probe_faults", "process_faults", "prealloc_s",
                "huge_page_bytes")


def point_key(p):
    return p.get("layout") or str(p["workers"])


def run_record(point, obj, discard):
    r = obj.get("result")
    r = r if isinstance(r, dict) else {}
    leg = obj.get("legacy")
    leg = leg if isinstance(leg, dict) else {}
    rec = {k: point[k] for k in ("pattern", "workers", "cpus", "size",
                                 "layout")}
    # The shared VMA's axes (None: not swept).
    for k in ("interleave_pages", "writers", "backing"):
        rec[k] = point.get(k)
    rec["run"] = obj.get("run", 0) - discard
    for k in ("pages", "rounds", "minflt", "elapsed_s",
              "fault_s", "user_s", "sys_s", "start_skew_s",
              "faults_per_wall_s", "round_rate_median", "round_rate_min",
              "round_rate_max", "pages_per_wall_s"):
        # A figure that is not a finite number (pft never prints one)
        # is not one: None.
        rec[k] = finite(r.get(k))
    rec["faults_agree"] = r.get("faults_agree") if isinstance(
        r.get("faults_agree"), bool) else None
    if not r.get("rounds_sampled"):
        # A one-shot run has no rounds: 0 there would read as a rate.
        for k in ("round_rate_median", "round_rate_min", "round_rate_max"):
            rec[k] = None
    rec["fault_per_wsec"] = finite(leg.get("fault_per_wsec", r.get(
        "pages_per_wall_s")))
    rec["flt_per_cpu_s"] = finite(leg.get("flt_per_cpu_s", r.get(
        "pages_per_cpu_s")))
    rec["legacy_line"] = leg.get("line") if isinstance(leg.get("line"),
                                                       str) else None
    # pft --latency: the run's percentiles of all workers (None without).
    lat = obj.get("latency")
    lat = lat if isinstance(lat, dict) else {}
    rec["lat_count"] = lat.get("count") if isinstance(
        lat.get("count"), int) else None
    rec["lat_p50_ns"] = finite(lat.get("p50_ns"))
    rec["lat_p99_ns"] = finite(lat.get("p99_ns"))
    rec["lat_per_call"] = lat.get("per_call") if isinstance(
        lat.get("per_call"), bool) else None
    rec["lat_buckets"] = lat_buckets(lat.get("buckets"))
    rec.update(lock_path_counts(obj.get("lock_paths")))
    rec["lw_read_p99_ns"] = read_wait_p99(obj.get("lock_waits"))
    rec.update(counts_of(obj.get("lock_waits"), LOCK_WAIT_COUNTS))
    fig = obj.get("figures")
    fig = fig if isinstance(fig, dict) else {}
    for k in QEMU_FIGURES:
        # Each figure is {"value": V, "unit": U}.
        v = fig.get(k)
        v = v.get("value") if isinstance(v, dict) else None
        if isinstance(v, bool):
            rec[k] = v
        elif k == "prealloc_s":
            rec[k] = finite(v)
        else:
            rec[k] = v if isinstance(v, int) else None
    return rec


def lock_path_counts(lp):
    """The workers' lock paths of a run (pft --lock-paths): the counts
    of LOCK_PATHS and the fallbacks per user fault; None each where pft
    did not count them (no --lock-paths, or null: not permitted)."""
    rec = counts_of(lp, LOCK_PATHS)
    user, fb = rec["lp_user_faults"], rec["lp_fallbacks"]
    rec["lp_fallbacks_per_fault"] = fb / user if user and fb is not None \
        else None
    return rec


def counts_of(obj, columns):
    """The counts of a run's object (lock_paths, lock_waits) by the
    (column, key) pairs of columns: None each that is not a count (no
    such object: not asked, or null: not permitted)."""
    obj = obj if isinstance(obj, dict) else {}
    rec = {}
    for col, key in columns:
        v = obj.get(key)
        rec[col] = v if isinstance(v, int) and not isinstance(v, bool) \
            and v >= 0 else None
    return rec


def read_wait_p99(lw):
    """The p99 of the workers' mmap_lock read waits of a run (pft
    --lock-waits), in ns; None where pft did not time them (no
    --lock-waits, or null: not permitted).  0 where no read waited."""
    read = lw.get("read") if isinstance(lw, dict) else None
    v = read.get("p99_ns") if isinstance(read, dict) else None
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 \
        else None


def lat_buckets(v):
    """pft's compact histogram, [[lo_ns, hi_ns, count], ...]: kept as it
    is when every bucket is one, None otherwise (or without --latency)."""
    if not isinstance(v, list):
        return None
    out = []
    for b in v:
        if not (isinstance(b, list) and len(b) == 3 and
                all(finite(x) is not None for x in b[:2]) and
                isinstance(b[2], int) and not isinstance(b[2], bool) and
                b[2] >= 0 and b[0] <= b[1]):
            return None
        out.append([float(b[0]), float(b[1]), b[2]])
    return out


def find_point(points, pattern, key):
    for p in points:
        if p["pattern"] == pattern and point_key(p) == key:
            return p
    return None


# ---- output -------------------------------------------------------------

def num(v, fmt="%.3f"):
    return "" if v is None else fmt % v


def write_csv(path, columns, rows):
    with replacing(path, newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(columns)
        for r in rows:
            w.writerow(r)


def point_rows(c):
    for p in c.points:
        s = p.get("stats")
        if not s:
            continue
        yield [p["pattern"], p["workers"], p["cpus"], p["size"],
               len(p["runs"]), c.metric, num(s["median"]), num(s["min"]),
               num(s["max"]), num(s["spread_pct"], "%.2f"),
               num(p["ratio"], "%.4f"), num(s["fault_per_wsec_median"]),
               num(s["round_rate_median"]),
               num(s["faults_per_wall_s_median"]),
               num(s["flt_per_cpu_s_median"]),
               num(s["start_skew_s_median"], "%.9f"), p["layout"],
               p["label"], num(s.get("lat_p50_ns_median"), "%.0f"),
               num(s.get("lat_p99_ns_median"), "%.0f"),
               num(p.get("interleave_pages"), "%d"),
               num(p.get("writers"), "%d"),
               num(s.get("threads_median"), "%g"),
               num(s.get("threads_started_median"), "%g"),
               num(s.get("process_faults_median"), "%g"),
               num(s.get("prealloc_s_median"), "%.6f"),
               p.get("backing") or "",
               num(s.get("lp_user_faults_median"), "%g"),
               num(s.get("lp_mmap_read_median"), "%g"),
               num(s.get("lp_fallbacks_median"), "%g"),
               num(s.get("lp_fallbacks_per_fault_median"), "%.9g"),
               num(s.get("lw_read_p99_ns_median"), "%.0f"),
               num(s.get("lw_faults_mmap_read_median"), "%g"),
               num(s.get("lw_retries_median"), "%g")]


def run_row(r):
    """A run record as a row of the runs CSV."""
    row = []
    for k in RUN_COLUMNS:
        v = r.get(k)
        if isinstance(v, bool):
            v = int(v)
        elif isinstance(v, float):
            v = "%.9f" % v if k in SECONDS else "%.9g" % v \
                if k == "lp_fallbacks_per_fault" else "%.3f" % v
        row.append("" if v is None else v)
    return row


def run_rows(c):
    for p in c.points:
        for r in p.get("runs", []):
            yield run_row(r)


def sweep_config(c):
    return {
        "patterns": c.patterns, "workers": c.counts,
        "layouts": [dict(layout=r["layout"], label=r["label"],
                         workers=r["workers"],
                         cpus=format_cpus(r["cpus"]) if r["cpus"] else None)
                    for r in c.rows if r["layout"]],
        "size": c.size, "size_per_worker": c.size_per_worker,
        "heap": c.heap, "repeat": c.repeat, "mode": c.mode,
        "duration_s": c.duration if c.mode == "duration" else None,
        "rounds": c.rounds if c.mode == "rounds" else None,
        "warmup": c.warmup, "interleave": c.interleave,
        "metric": c.metric, "metric_key": METRICS[c.metric][0],
        "cpu_groups": [g["text"] for g in c.cpu_groups or []] or None,
        "cpu_list": c.cpu_list, "pft_options": c.extra,
        "pretouch_options": c.pretouch_options, "perf": c.perf,
        "perf_options": c.perf_options, "latency": c.latency,
        "lock_paths": getattr(c, "lock_paths", False),
        "lock_waits": getattr(c, "lock_waits", False),
        "interleave_pages": getattr(c, "interleave_pages", None),
        "writers": getattr(c, "writers", None),
        "backing": getattr(c, "backing", None),
        "share": getattr(c, "share", False),
    }


def write_json(c, path):
    doc = {
        "schema": SCHEMA,
        "started": c.started, "finished": time.strftime(
            "%Y-%m-%dT%H:%M:%S%z"),
        "stopped": getattr(c, "stopped", None),
        "host": c.host,
        "pft": c.pft_path,
        "config": sweep_config(c),
        "points": [{
            "pattern": p["pattern"], "workers": p["workers"],
            "layout": p["layout"], "label": p["label"],
            "cpus": p["cpus"], "size": p["size"],
            "interleave_pages": p.get("interleave_pages"),
            "writers": p.get("writers"), "backing": p.get("backing"),
            "options": p.get("options", []),
            "command": p["command"], "status": p.get("status"),
            "perf_file": p.get("perf_file"),
            "stderr": p.get("stderr", []),
            "stats": p.get("stats"), "ratio": p.get("ratio"),
            "runs": p.get("runs", []),
        } for p in c.points],
    }
    with replacing(path) as f:
        json.dump(clean(doc), f, indent=1, allow_nan=False)
        f.write("\n")


# ---- comparison: reading sweeps -----------------------------------------

class Sweep:
    """One sweep's points: {(pattern, key): point}, point = {label,
    workers, median, min, max, spread, values (the runs' figures or
    None)}; its metric, host and config when it has a JSON file."""

    def __init__(self, arg, name):
        self.arg, self.name = arg, name
        self.points, self.metric = {}, None
        self.host = self.config = None
        self.files = {}
        self.prefix = arg
        # None: not known (no JSON file).  JSON files of pft-sweeps
        # before --interleave have no key: their runs were not.
        self.interleaved = None
        # The signal that stopped the sweep, as its JSON file says.
        self.stopped = None


def reject_constant(name):
    raise ValueError("%s is not a number JSON allows" % name)


def sniff(path):
    """("points" | "runs", rows) or ("json", document) of a file."""
    try:
        with open(path, newline="") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise RuntimeError("cannot read %s: %s" %
                           (path, getattr(e, "strerror", None) or e))
    if not text.strip():
        raise RuntimeError("%s: an empty file" % path)
    if text.lstrip().startswith(("{", "[")) or path.endswith(".json"):
        try:
            doc = json.loads(text, parse_constant=reject_constant)
        except ValueError as e:
            raise RuntimeError("%s: not a JSON document: %s" % (path, e))
        except RecursionError:
            raise RuntimeError("%s: not a JSON document: nested too deeply"
                               % path)
        check_document(path, doc)
        return "json", doc
    try:
        rows = list(csv.DictReader(io.StringIO(text)))
    except csv.Error as e:
        raise RuntimeError("%s: not a CSV file: %s" % (path, e))
    if not rows:
        raise RuntimeError("%s: no points" % path)
    cols = rows[0].keys()
    if "median" in cols:
        return "points", rows
    if "run" in cols and "fault_per_wsec" in cols:
        return "runs", rows
    raise RuntimeError("%s: not a pft-sweep CSV (no median or "
                       "fault_per_wsec column)" % path)


def kind_of(v):
    return {dict: "an object", list: "an array", str: "a string",
            bool: "true or false", type(None): "null"}.get(
                type(v), "a number")


def depth(v):
    """How deep lists and objects nest in v (without recursion)."""
    most, todo = 0, [(v, 1)]
    while todo:
        x, d = todo.pop()
        if isinstance(x, (dict, list)):
            most = max(most, d)
            todo += [(y, d + 1) for y in (x.values() if isinstance(x, dict)
                                          else x)]
    return most


def check_document(path, doc):
    """A sweep's JSON document has the shape this package reads from it;
    RuntimeError, one line naming the file and the member, when not."""
    def bad(what, v, want):
        raise RuntimeError("%s: %s is %s, not %s" % (path, what, kind_of(v),
                                                     want))
    if not isinstance(doc, dict):
        bad("the document", doc, "an object (a pft-sweep JSON file)")
    schema = doc.get("schema")
    if schema is not None and (not isinstance(schema, str) or
                               not schema.startswith("pft-sweep/")):
        raise RuntimeError("%s: schema %s is not a sweep's (%s)" %
                           (path, json.dumps(schema), SCHEMA))
    for key in ("host", "config"):
        v = doc.get(key)
        if v is not None and not isinstance(v, dict):
            bad('"%s"' % key, v, "an object")
        if depth(v) > 32:
            raise RuntimeError('%s: "%s" nests too deeply' % (path, key))
    config = doc.get("config") or {}
    metric = config.get("metric")
    if metric is not None and (not isinstance(metric, str) or
                               metric not in METRICS):
        raise RuntimeError('%s: "config"."metric" %s is not one of %s' %
                           (path, json.dumps(metric), ", ".join(METRICS)))
    for key, want in (("interleave", bool), ("repeat", int)):
        v = config.get(key)
        if v is not None and (not isinstance(v, want) or
                              (want is int and (isinstance(v, bool) or
                                                v < 1))):
            bad('"config"."%s"' % key, v, "true or false" if want is bool
                else "a count")
    if not isinstance(doc.get("stopped"), (str, type(None))):
        bad('"stopped"', doc["stopped"], "a signal's name or null")
    points = doc.get("points", [])
    if not isinstance(points, list):
        bad('"points"', points, "an array")
    for i, p in enumerate(points):
        what = '"points"[%d]' % i
        if not isinstance(p, dict):
            bad(what, p, "an object")
        if not isinstance(p.get("runs", []), list):
            bad(what + '."runs"', p["runs"], "an array")
        for j, r in enumerate(p.get("runs", [])):
            if not isinstance(r, dict):
                bad('%s."runs"[%d]' % (what, j), r, "an object")


def sweep_files(arg):
    """{kind: (path, content)} of a sweep named by PREFIX or one of its
    files, with the other files of the same prefix."""
    files = {}
    prefix = arg
    if os.path.isfile(arg):
        kind, data = sniff(arg)
        files[kind] = (arg, data)
        for suffix in ("-runs.csv", ".csv", ".json"):
            if arg.endswith(suffix):
                prefix = arg[:-len(suffix)]
                break
    for suffix in (".csv", "-runs.csv", ".json"):
        path = prefix + suffix
        if path != arg and os.path.isfile(path):
            kind, data = sniff(path)
            files.setdefault(kind, (path, data))
    if not files:
        raise RuntimeError("cannot read %s: %s" %
                           (arg, "a directory, not a sweep's file or prefix"
                            if os.path.isdir(arg) else os.strerror(2)))
    return prefix, files


def row_key(r, where):
    """(pattern, point) of a row, checked: RuntimeError naming `where`."""
    pattern = r.get("pattern")
    if not isinstance(pattern, str) or not pattern:
        raise RuntimeError("%s: no pattern" % where)
    workers = r.get("workers")
    if isinstance(workers, str) and re.fullmatch(r"[0-9]+", workers):
        workers = int(workers)
    if isinstance(workers, bool) or not isinstance(workers, int) or \
            workers < 1:
        raise RuntimeError("%s: workers %s is not a count of workers" %
                           (where, json.dumps(r.get("workers"))))
    layout = r.get("layout") or ""
    if not isinstance(layout, str):
        raise RuntimeError("%s: layout %s is not a string" %
                           (where, json.dumps(layout)))
    label = r.get("label") or ""
    if not isinstance(label, str):
        raise RuntimeError("%s: label %s is not a string" %
                           (where, json.dumps(label)))
    return (pattern, layout or str(workers)), workers, label


def to_float(v, what="", where=None):
    """A figure of a file: a finite number, not negative, or None when
    the cell is empty; RuntimeError naming `where` else."""
    if v is None or v == "":
        return None
    try:
        if isinstance(v, bool) or not isinstance(v, (int, float, str)):
            raise ValueError
        x = float(v)
    except (ValueError, OverflowError):
        x = None
    if x is None or not math.isfinite(x) or x < 0:
        raise RuntimeError("%s: %s %s is not a rate (a finite number, 0 or "
                           "more)" % (where, what, json.dumps(v)))
    return x


def load_sweep(arg, name, want=None):
    """A sweep's points and runs; `want` (a metric) replaces the sweep's
    own, its figures then taken from the runs."""
    s = Sweep(arg, name)
    s.prefix, files = sweep_files(arg)
    s.files = {k: v[0] for k, v in files.items()}
    doc = files.get("json", (None, None))[1]
    if doc:
        s.host, s.config = doc.get("host"), doc.get("config")
        s.interleaved = bool((s.config or {}).get("interleave"))
        s.stopped = doc.get("stopped")
    points = files.get("points", (None, None))[1]
    metric = (points[0].get("metric") if points else None) or \
        (s.config or {}).get("metric") or "legacy"
    if metric not in METRICS:
        raise RuntimeError("%s: metric %s is not one of %s" %
                           (files["points"][0], json.dumps(metric),
                            ", ".join(METRICS)))
    own = metric
    s.metric = metric = want or metric
    # The points' medians are of the sweep's own metric.
    for i, r in enumerate((points or []) if own == metric else [], 1):
        where = "%s: row %d" % (files["points"][0], i)
        key, workers, label = row_key(r, where)
        med = to_float(r.get("median"), "median", where)
        if med is None:
            raise RuntimeError("%s: no median" % where)
        s.points[key] = {
            "label": label, "workers": workers, "median": med,
            "min": to_float(r.get("min"), "min", where),
            "max": to_float(r.get("max"), "max", where),
            "spread": to_float(r.get("spread_pct"), "spread_pct", where),
            "values": None}
    runs = files.get("runs", (None, None))[1]
    # A format, with the % of the file's name doubled.
    where = files["runs"][0].replace("%", "%%") + ": row %d" \
        if runs is not None else None
    if runs is None and doc:
        runs = doc_runs(doc)
        where = files["json"][0].replace("%", "%%") + ": %s"
    if runs is not None:
        add_runs(s, runs, where)
    if not s.points and metric in LATENCY_METRICS:
        raise RuntimeError("%s: no latency figures (a sweep without "
                           "--latency?)" % arg)
    if not s.points:
        raise RuntimeError("%s: no points" % arg)
    return s


def doc_runs(doc):
    """The runs of a sweep's JSON document, as rows of its runs CSV
    (check_document has seen their shape)."""
    rows = []
    for i, p in enumerate(doc.get("points", [])):
        for j, r in enumerate(p.get("runs", [])):
            rows.append(dict(r, pattern=p.get("pattern"),
                             workers=p.get("workers"),
                             layout=p.get("layout") or "",
                             label=p.get("label") or "",
                             _where='"points"[%d]."runs"[%d]' % (i, j)))
    return rows


def add_runs(s, runs, where):
    """Each point's figures of its runs; points without a points CSV row
    get their median, extremes and spread from them.  `where` % the row
    number (or the JSON member) names a row in errors."""
    key = METRICS[s.metric][0]
    vals = {}
    for i, r in enumerate(runs, 1):
        at = where % r.pop("_where", i)
        k, workers, label = row_key(r, at)
        v = to_float(r.get(key), key, at)
        if v is not None:
            vals.setdefault(k, ([], workers, label))[0].append(v)
    for k, (v, workers, label) in vals.items():
        med = safe_median(v)
        p = s.points.setdefault(k, {
            "label": label, "workers": workers,
            "median": med, "min": min(v), "max": max(v),
            "spread": ratio(max(v) - min(v), med / 100)})
        p["values"] = v
