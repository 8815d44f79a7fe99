# SPDX-License-Identifier: GPL-2.0-or-later
# pft_sweep.runs - the schema of a sweep's files: the points CSV, the runs
# CSV and the JSON document; writing them, and reading them back for
# --compare.
#
# Copyright (C) 2026 The libfaultgen authors

import csv
import io
import json
import os
import statistics
import time

from .topology import format_cpus


SCHEMA = "pft-sweep/1"
METRICS = {
    # name: (key of a run record, what the table calls it)
    "legacy": ("fault_per_wsec", "fault/wsec"),
    "round": ("round_rate_median", "median round rate"),
    "faults": ("faults_per_wall_s", "measured faults/wall s"),
}

POINT_COLUMNS = [
    "pattern", "workers", "cpus", "size", "runs", "metric", "median",
    "min", "max", "spread_pct", "ratio", "fault_per_wsec_median",
    "round_rate_median", "faults_per_wall_s_median",
    "flt_per_cpu_s_median", "start_skew_s_median", "layout", "label",
]
RUN_COLUMNS = [
    "pattern", "workers", "cpus", "size", "run", "pages", "rounds",
    "minflt", "faults_agree", "elapsed_s", "fault_s", "user_s", "sys_s",
    "start_skew_s", "fault_per_wsec", "flt_per_cpu_s", "faults_per_wall_s",
    "round_rate_median", "round_rate_min", "round_rate_max", "layout",
]
SECONDS = ("elapsed_s", "fault_s", "user_s", "sys_s", "start_skew_s")


def point_key(p):
    return p.get("layout") or str(p["workers"])


def run_record(point, obj, discard):
    r = obj.get("result", {})
    leg = obj.get("legacy", {})
    rec = {k: point[k] for k in ("pattern", "workers", "cpus", "size",
                                 "layout")}
    rec["run"] = obj.get("run", 0) - discard
    for k in ("pages", "rounds", "minflt", "faults_agree", "elapsed_s",
              "fault_s", "user_s", "sys_s", "start_skew_s",
              "faults_per_wall_s", "round_rate_median", "round_rate_min",
              "round_rate_max", "pages_per_wall_s"):
        rec[k] = r.get(k)
    if not r.get("rounds_sampled"):
        # A one-shot run has no rounds: 0 there would read as a rate.
        for k in ("round_rate_median", "round_rate_min", "round_rate_max"):
            rec[k] = None
    rec["fault_per_wsec"] = leg.get("fault_per_wsec", r.get(
        "pages_per_wall_s"))
    rec["flt_per_cpu_s"] = leg.get("flt_per_cpu_s", r.get(
        "pages_per_cpu_s"))
    rec["legacy_line"] = leg.get("line")
    return rec


def find_point(points, pattern, key):
    for p in points:
        if p["pattern"] == pattern and point_key(p) == key:
            return p
    return None


# ---- output -------------------------------------------------------------

def num(v, fmt="%.3f"):
    return "" if v is None else fmt % v


def write_csv(path, columns, rows):
    with open(path, "w", newline="") as f:
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
               p["label"]]


def run_rows(c):
    for p in c.points:
        for r in p.get("runs", []):
            row = []
            for k in RUN_COLUMNS:
                v = r.get(k)
                if isinstance(v, bool):
                    v = int(v)
                elif isinstance(v, float):
                    v = "%.9f" % v if k in SECONDS else "%.3f" % v
                row.append("" if v is None else v)
            yield row


def sweep_config(c):
    return {
        "patterns": c.patterns, "workers": c.counts,
        "layouts": [dict(layout=r["layout"], label=r["label"],
                         workers=r["workers"], cpus=format_cpus(r["cpus"]))
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
        "perf_options": c.perf_options,
    }


def write_json(c, path):
    doc = {
        "schema": SCHEMA,
        "started": c.started, "finished": time.strftime(
            "%Y-%m-%dT%H:%M:%S%z"),
        "host": c.host,
        "pft": c.pft_path,
        "config": sweep_config(c),
        "points": [{
            "pattern": p["pattern"], "workers": p["workers"],
            "layout": p["layout"], "label": p["label"],
            "cpus": p["cpus"], "size": p["size"],
            "command": p["command"], "status": p.get("status"),
            "perf_file": p.get("perf_file"),
            "stderr": p.get("stderr", []),
            "stats": p.get("stats"), "ratio": p.get("ratio"),
            "runs": p.get("runs", []),
        } for p in c.points],
    }
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
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
        # None: not known (no JSON file).  JSON files of pft-sweeps
        # before --interleave have no key: their runs were not.
        self.interleaved = None


def sniff(path):
    """("points" | "runs", rows) or ("json", document) of a file."""
    try:
        with open(path, newline="") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise RuntimeError("cannot read %s: %s" %
                           (path, getattr(e, "strerror", None) or e))
    if text.lstrip().startswith("{"):
        try:
            return "json", json.loads(text)
        except ValueError as e:
            raise RuntimeError("%s: not a JSON document: %s" % (path, e))
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
                           (arg, os.strerror(2)))
    return files


def row_key(r):
    return (r["pattern"], r.get("layout") or str(int(r["workers"])))


def to_float(v):
    return float(v) if v not in (None, "") else None


def load_sweep(arg, name):
    s = Sweep(arg, name)
    files = sweep_files(arg)
    s.files = {k: v[0] for k, v in files.items()}
    doc = files.get("json", (None, None))[1]
    if doc:
        s.host, s.config = doc.get("host"), doc.get("config")
        s.interleaved = bool((s.config or {}).get("interleave"))
    points = files.get("points", (None, None))[1]
    s.metric = (points[0].get("metric") if points else None) or \
        (s.config or {}).get("metric") or "legacy"
    try:
        for r in points or []:
            s.points[row_key(r)] = {
                "label": r.get("label") or "", "workers": int(r["workers"]),
                "median": float(r["median"]), "min": to_float(r.get("min")),
                "max": to_float(r.get("max")),
                "spread": to_float(r.get("spread_pct")), "values": None}
        runs = files.get("runs", (None, None))[1]
        if runs is None and doc:
            runs = doc_runs(doc)
        if runs is not None:
            add_runs(s, runs)
    except (KeyError, ValueError, TypeError, AttributeError):
        raise RuntimeError("%s: a row lacks a number where one is due" %
                           arg)
    if not s.points:
        raise RuntimeError("%s: no points" % arg)
    return s


def doc_runs(doc):
    """The runs of a sweep's JSON document, as rows of its runs CSV."""
    rows = []
    for p in doc.get("points", []):
        for r in p.get("runs", []):
            rows.append(dict(r, pattern=p["pattern"], workers=p["workers"],
                             layout=p.get("layout") or "",
                             label=p.get("label") or ""))
    return rows


def add_runs(s, runs):
    """Each point's figures of its runs; points without a points CSV row
    get their median, extremes and spread from them."""
    key = METRICS.get(s.metric, METRICS["legacy"])[0]
    vals = {}
    for r in runs:
        v = to_float(r.get(key))
        if v is not None:
            vals.setdefault(row_key(r), ([], r))[0].append(v)
    for k, (v, r) in vals.items():
        med = statistics.median(v)
        p = s.points.setdefault(k, {
            "label": r.get("label") or "", "workers": int(r["workers"]),
            "median": med, "min": min(v), "max": max(v),
            "spread": (max(v) - min(v)) / med * 100 if med else None})
        p["values"] = v
