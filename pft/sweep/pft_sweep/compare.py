# SPDX-License-Identifier: GPL-2.0-or-later
# pft_sweep.compare - --compare: sweeps side by side, the gains, the marks
# of Welch's test, what else differs between the sweeps, and the CSV and
# JSON forms.
#
# Copyright (C) 2026 The libfaultgen authors

import csv
import json
import os
import sys

from .common import (UsageError, check_output, clean, finite, msg, os_error,
                     ratio)
from .plot import compare_plot_script, make_plot
from .report import print_compare_email, print_compare_plain, single
from .runs import LOWER_BETTER, METRICS, load_sweep
from pft_common.safefile import replacing
from .stats import LEVEL, TEST_NAME, verdict, welch_log


COMPARE_SCHEMA = "pft-sweep-compare/1"
COMPARE_COLUMNS = [
    "pattern", "point", "label", "workers", "sweep", "name", "runs",
    "median", "min", "max", "spread_pct", "gain_pct", "ci_low_pct",
    "ci_high_pct", "p_value", "mark",
]
# ---- comparison: what differs besides the kernel ------------------------

HOST_FACTS = (
    ("hostname", "host name"), ("machine", "machine"),
    ("cpu_model", "CPU model"), ("cmdline", "kernel command line"),
    ("topology", "topology"), ("thp", "THP settings"),
    ("pft", "pft version"), ("libfaultgen", "libfaultgen version"),
)
CONFIG_FACTS = ("size", "size_per_worker", "heap", "repeat", "mode",
                "duration_s", "rounds", "warmup", "interleave", "metric",
                "pft_options", "pretouch_options")


def flatten(v, path=""):
    if isinstance(v, dict):
        out = {}
        for k in v:
            out.update(flatten(v[k], "%s.%s" % (path, k) if path else k))
        return out
    return {path: v}


def normal_cmdline(text):
    """The kernel command line without the boot loader's word for the
    kernel image, which names the kernel."""
    if text is None:
        return None
    return " ".join(w for w in text.split() if not w.startswith(
        ("BOOT_IMAGE=", "initrd=")))


def differences(a, b):
    fa, fb = flatten(a), flatten(b)
    for k in sorted(set(fa) | set(fb), key=str):
        if fa.get(k) != fb.get(k):
            yield k, fa.get(k), fb.get(k)


def show(v):
    return "none" if v is None else json.dumps(v) if not isinstance(
        v, str) else v


def fact_warnings(sweeps):
    warns = []
    for s in sweeps:
        if s.host is None:
            warns.append("%s (%s): no JSON file, so what it ran on is not "
                          "known and not checked" % (s.name, s.arg))
        elif "cmdline" not in s.host:
            warns.append("%s (%s): its JSON file records only the kernel "
                         "and host name (an older pft-sweep)" %
                         (s.name, s.arg))
    base = sweeps[0]
    for s in sweeps[1:]:
        if base.host is None or s.host is None:
            continue
        for key, what in HOST_FACTS:
            a, b = base.host.get(key), s.host.get(key)
            if key == "cmdline":
                a, b = normal_cmdline(a), normal_cmdline(b)
            for path, x, y in differences(a, b):
                warns.append("%s differs from %s in %s%s: %s against %s" %
                             (s.name, base.name, what,
                              " (%s)" % path if path else "", show(y),
                              show(x)))
        ca = {k: (base.config or {}).get(k) for k in CONFIG_FACTS}
        cb = {k: (s.config or {}).get(k) for k in CONFIG_FACTS}
        for path, x, y in differences(ca, cb):
            warns.append("%s differs from %s in the sweep's %s: %s against "
                         "%s" % (s.name, base.name, path, show(y), show(x)))
    return warns


# ---- comparison: the table ----------------------------------------------

def compare_keys(sweeps):
    """(pattern, point) of every sweep, patterns in order of appearance,
    points by workers when all are counts, else in order of appearance."""
    keys = []
    for s in sweeps:
        keys += [k for k in s.points if k not in keys]
    patterns = list(dict.fromkeys(k[0] for k in keys))
    numeric = all(k[1].isdigit() for k in keys)
    return sorted(keys, key=lambda k: (patterns.index(k[0]),
                                       int(k[1]) if numeric else
                                       keys.index(k)))


def compare_table(sweeps):
    rows = []
    for k in compare_keys(sweeps):
        cells = [s.points.get(k) for s in sweeps]
        known = [x for x in cells if x]
        row = {"pattern": k[0], "point": k[1], "cells": cells,
               "label": next((x["label"] for x in known if x["label"]),
                             k[1]),
               "workers": known[0]["workers"], "tests": [None]}
        base = cells[0]
        for s, cell in zip(sweeps[1:], cells[1:]):
            t = None
            if base and cell:
                r = ratio(cell["median"], base["median"])
                t = {"gain": finite(r - 1) if r is not None else None,
                     "welch": None}
                if base["values"] and cell["values"] and \
                        testable(sweeps[0]) and testable(s):
                    t["welch"] = welch_log(base["values"], cell["values"])
                t["mark"] = verdict(t["welch"],
                                    sweeps[0].metric in LOWER_BETTER)
            row["tests"].append(t)
        rows.append(row)
    return rows


def testable(s):
    """Runs of a point made one after the other in one pft have a spread
    too small for the test: it would take the machine's drift between
    two sweeps for a difference."""
    return s.interleaved is not False


def compare_records(table, names):
    """One record per row and sweep: the long form of the CSV and JSON."""
    for r in table:
        for i, cell in enumerate(r["cells"]):
            t = r["tests"][i]
            w = t and t["welch"]
            yield {
                "pattern": r["pattern"], "point": r["point"],
                "label": r["label"], "workers": r["workers"], "sweep": i,
                "name": names[i],
                "runs": len(cell["values"]) if cell and cell["values"]
                else None,
                "median": cell and cell["median"],
                "min": cell and cell["min"], "max": cell and cell["max"],
                "spread_pct": cell and cell["spread"],
                "gain_pct": t["gain"] * 100 if t and t["gain"] is not None
                else None,
                "ci_low_pct": (w["low"] - 1) * 100 if w else None,
                "ci_high_pct": (w["high"] - 1) * 100 if w else None,
                "p_value": w["p"] if w else None,
                "mark": t["mark"] if t else None,
            }


def compare_csv(table, names, out):
    w = csv.writer(out, lineterminator="\n")
    w.writerow(COMPARE_COLUMNS)
    for rec in compare_records(table, names):
        rec = clean(rec)
        w.writerow(["" if rec[k] is None else rec[k]
                    for k in COMPARE_COLUMNS])


def marks(metric):
    """What (I) and (R) mean for a metric: better and worse than base."""
    if metric in LOWER_BETTER:
        return {"I": "lower than base", "R": "higher than base"}
    return {"I": "higher than base", "R": "lower than base"}


def compare_json(sweeps, table, names, metric, warnings):
    return {
        "schema": COMPARE_SCHEMA, "metric": metric,
        "metric_key": METRICS.get(metric, (metric,))[0],
        "test": {"name": "welch-t-log", "description": TEST_NAME,
                 "level": LEVEL, "marks": marks(metric)},
        "sweeps": [{"name": n, "arg": s.arg, "files": s.files,
                    "host": s.host, "config": s.config,
                    "stopped": s.stopped}
                   for n, s in zip(names, sweeps)],
        "warnings": warnings,
        "rows": list(compare_records(table, names)),
    }


def write_compare(c, sweeps, table, names, metric, warnings):
    prefix = c.output
    with replacing(prefix + ".csv", newline="") as f:
        compare_csv(table, names, f)
    with replacing(prefix + ".json") as f:
        json.dump(clean(compare_json(sweeps, table, names, metric,
                                     warnings)), f, indent=1,
                  allow_nan=False)
        f.write("\n")
    files = [prefix + ".csv", prefix + ".json"]
    if not c.no_plot:
        files += make_plot(c, prefix, lambda pre, term: compare_plot_script(
            table, names, metric, pre, term))
    return files


def short_warnings(sweeps):
    """A sweep stopped before its end, or whose points have fewer runs
    than it asked: its gains rest on fewer runs, and a point of one run
    is not tested (Welch's test needs two a side)."""
    warns = []
    for s in sweeps:
        counted = [p for p in s.points.values() if p["values"] is not None]
        asked = (s.config or {}).get("repeat")
        short = [p for p in counted if asked and len(p["values"]) < asked]
        few = [p for p in counted if single(p)]
        parts = []
        if s.stopped:
            parts.append("stopped by %s before its end" % s.stopped)
        if short:
            parts.append("%d of its %d points have fewer runs than the %d "
                         "asked" % (len(short), len(s.points), asked))
        if few:
            parts.append("%d point%s a single run, marked (n=1): no "
                         "significance there (the test needs 2 runs a "
                         "side)" % (len(few), " has" if len(few) == 1
                                    else "s have"))
        if parts:
            warns.append("%s (%s): %s" % (s.name, s.arg, "; ".join(parts)))
    return warns


def default_names(n):
    if n == 2:
        return ["base", "new"]
    return ["base"] + ["new %d" % i for i in range(1, n)]


COMPARE_FILES = (".csv", ".json", ".gp", ".png", ".svg")


def check_compare_output(c, sweeps):
    for s in sweeps:
        if os.path.abspath(s.prefix) == os.path.abspath(c.output):
            raise UsageError("-o %s: the prefix of %s, a sweep compared: "
                             "its files and the comparison's would mix" %
                             (c.output, s.arg))
    check_output(c.output, COMPARE_FILES, c.force,
                 [f for s in sweeps for f in s.files.values()])


def compare(c):
    names = c.names or default_names(len(c.files))
    try:
        sweeps = [load_sweep(a, n, c.metric)
                  for a, n in zip(c.files, names)]
        if c.output:
            check_compare_output(c, sweeps)
    except RuntimeError as e:
        msg(str(e))
        return 1
    metric = sweeps[0].metric
    warnings = []
    if len({s.metric for s in sweeps}) > 1:
        warnings.append("the sweeps measure different figures (%s)" %
                        ", ".join(s.metric for s in sweeps))
    warnings += fact_warnings(sweeps)
    missing = [s.name for s in sweeps if not any(
        p["values"] for p in s.points.values())]
    if missing:
        warnings.append("no per-run figures (PREFIX-runs.csv) for %s: no "
                        "significance" % ", ".join(missing))
    warnings += short_warnings(sweeps)
    batched = [s.name for s in sweeps if not testable(s)]
    if batched:
        warnings.append("%s: each point's runs ran one after the other in "
                        "one pft (--no-alternate, --perf or an older "
                        "pft-sweep), their spread leaves out the machine's "
                        "drift: no significance marks against %s (see "
                        "pft-sweep(1), SIGNIFICANCE)" %
                        (", ".join(batched), "them" if len(batched) > 1
                         else "it"))
    for w in warnings:
        msg("warning: " + w)
    table = compare_table(sweeps)
    if c.format == "csv":
        compare_csv(table, names, sys.stdout)
    elif c.format == "json":
        json.dump(clean(compare_json(sweeps, table, names, metric,
                                     warnings)), sys.stdout, indent=1,
                  allow_nan=False)
        print()
    elif c.format == "email":
        print_compare_email(c, sweeps, table, names, metric)
    else:
        print_compare_plain(c, sweeps, table, names, metric)
    sys.stdout.flush()
    if c.output:
        try:
            files = write_compare(c, sweeps, table, names, metric, warnings)
        except OSError as e:
            msg("cannot write the comparison: %s" % os_error(e))
            return 1
        if not c.quiet:
            msg("wrote " + ", ".join(files))
    return 0
