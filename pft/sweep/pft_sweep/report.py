# SPDX-License-Identifier: GPL-2.0-or-later
# pft_sweep.report - the tables on stdout: a sweep's, and --compare's plain,
# Markdown and email layouts.
#
# Copyright (C) 2026 The libfaultgen authors

import sys

from .common import PROG
from .pft import runs_once
from .runs import FRACTIONS, LOWER_BETTER, METRICS, find_point, num
from .stats import TEST_NAME


def print_table(rows, header, markdown, out=None):
    """Right-aligned columns (the first left-aligned), or Markdown."""
    out = out or sys.stdout
    if markdown:
        out.write("| " + " | ".join(header) + " |\n")
        out.write("|" + "|".join(":---" if i == 0 else "---:"
                                 for i in range(len(header))) + "|\n")
        for r in rows:
            out.write("| " + " | ".join(r) + " |\n")
        return
    widths = [max(len(str(x[i])) for x in [header] + rows)
              for i in range(len(header))]
    for r in [header] + rows:
        cells = []
        for i, x in enumerate(r):
            cells.append(str(x).ljust(widths[i]) if i == 0
                         else str(x).rjust(widths[i]))
        out.write("  ".join(cells).rstrip() + "\n")


def sweep_table(c):
    layouts = any(r["layout"] for r in c.rows)
    header = ["layout" if layouts else "workers"]
    for p in c.patterns:
        header += [p, "spread"]
    for p in c.patterns[1:]:
        header.append("%s/%s" % (p, c.patterns[0]))
    if c.latency:
        for p in c.patterns:
            header += ["%s p50 us" % p, "p99 us"]
    header += lock_path_header(c)
    # qemu-prealloc's figures: the threads that ran, the faults of the
    # process, the seconds of the preallocation (medians of the runs).
    qemu = "qemu-prealloc" in c.patterns
    if qemu:
        header += ["threads", "started", "process faults", "prealloc s"]
    rows = []
    for r in c.rows:
        key = r["layout"] or str(r["workers"])
        row = [r["label"] or str(r["workers"])]
        for pat in c.patterns:
            p = find_point(c.points, pat, key)
            s = p.get("stats") if p else None
            if s:
                row += [value_format(c.metric)(s["median"]),
                        num(s["spread_pct"], "%.1f%%")]
            else:
                row += ["failed" if p and p.get("status") else
                        "not counted" if p and p.get("runs") else
                        "not run", "-"]
        for pat in c.patterns[1:]:
            p = find_point(c.points, pat, key)
            row.append(num(p.get("ratio"), "%.3f") if p and
                       p.get("ratio") is not None else "-")
        for pat in c.patterns if c.latency else ():
            p = find_point(c.points, pat, key)
            s = p.get("stats") if p else None
            for k in ("lat_p50_ns_median", "lat_p99_ns_median"):
                v = s.get(k) if s else None
                row.append(num(v / 1e3, "%.2f") if v is not None else "-")
        row += lock_path_cells(c, key)
        if qemu:
            p = find_point(c.points, "qemu-prealloc", key)
            s = p.get("stats") if p else None
            for k, fmt in (("threads_median", "%g"),
                           ("threads_started_median", "%g"),
                           ("process_faults_median", "%g"),
                           ("prealloc_s_median", "%.4f")):
                v = s.get(k) if s else None
                row.append(num(v, fmt) if v is not None else "-")
        rows.append(row)
    return header, rows


# pft --lock-paths: the medians the table shows, per pattern.
LOCK_PATH_CELLS = (("user faults", "lp_user_faults_median"),
                   ("mmap read", "lp_mmap_read_median"),
                   ("fallbacks", "lp_fallbacks_median"))


def lock_path_header(c):
    if not getattr(c, "lock_paths", False):
        return []
    return ["%s %s" % (p, w) if i == 0 else w for p in c.patterns
            for i, (w, _) in enumerate(LOCK_PATH_CELLS)]


def lock_path_cells(c, key):
    """The medians of a row's lock-path counts, "-" where pft counted
    none (not permitted: the sweep said why)."""
    if not getattr(c, "lock_paths", False):
        return []
    cells = []
    for pat in c.patterns:
        p = find_point(c.points, pat, key)
        s = p.get("stats") if p else None
        for _, k in LOCK_PATH_CELLS:
            v = s.get(k) if s else None
            cells.append(num(v, "%.0f") if v is not None else "-")
    return cells


def describe(c):
    if c.size_per_worker:
        size = "%s per worker" % c.size_per_worker
    else:
        size = c.size
    if c.heap:
        size += ", pretouch heap %s" % c.heap
    if c.mode == "duration":
        how = "duration %g s, %d warm-up round(s)" % (c.duration, c.warmup)
    elif c.mode == "rounds":
        how = "%d rounds, %d warm-up round(s)" % (c.rounds, c.warmup)
    else:
        how = "one-shot, %d warm-up run(s)" % c.warmup
    once = [p for p in c.patterns if runs_once(c, p)]
    if once and c.mode != "one-shot":
        how += " (%s: one-shot, %d warm-up run(s))" % ("/".join(once),
                                                       c.warmup)
    how += ", points in turn, a pft per run" if c.interleave else \
        ", a point's runs in one pft"
    return "%s, %s, %d run(s) per point; %s, median; spread = (max - " \
        "min) / median" % (size, how, c.repeat, METRICS[c.metric][1])


def tested(table):
    return any(t and t["welch"] for r in table for t in r["tests"])


def gain_columns(c, n):
    """The sweeps (indexes) whose gain against the base gets a column."""
    return list(range(1, n)) if c.gains == "each" else [n - 1]


def fmt_gain(t):
    return "%+.1f%%" % (t["gain"] * 100) if t and t["gain"] is not None \
        else "-"


def fmt_interval(t):
    w = t and t["welch"]
    if not w:
        return "-"
    return "[%+.1f%%, %+.1f%%]" % ((w["low"] - 1) * 100,
                                   (w["high"] - 1) * 100)


def single(cell):
    """A cell of one run, which no test can take."""
    return bool(cell and cell["values"] is not None and
                len(cell["values"]) < 2)


def any_single(table):
    return any(single(x) for r in table for x in r["cells"])


SINGLE_NOTE = "(n=1): a single run, no significance"


def mark_text(t, marks, cell):
    if single(cell):
        return " (n=1)"
    if not marks:
        return ""
    m = t["mark"] if t else ""
    return " (%s)" % m if m else "    "


def compare_cells(c, row, names, marks, value):
    """A row's cells after its label: the sweeps' medians (with marks,
    and (n=1) on a cell of one run), the gains and their intervals."""
    cells = []
    for i, cell in enumerate(row["cells"]):
        text = value(cell["median"]) if cell else "-"
        if i:
            text += mark_text(row["tests"][i], marks, cell)
        elif single(cell):
            text += " (n=1)"
        cells.append(text)
    for i in gain_columns(c, len(names)):
        cells.append(fmt_gain(row["tests"][i]))
        if c.interval:
            cells.append(fmt_interval(row["tests"][i]))
    return cells


def gain_headers(c, names):
    out = []
    for i in gain_columns(c, len(names)):
        out.append("gain" if c.gains != "each" or len(names) == 2
                   else "gain %s" % names[i])
        if c.interval:
            out.append("95% interval")
    return out


def key_header(table):
    return "workers" if all(r["point"].isdigit() for r in table) \
        else "layout"


def noise(row):
    spreads = [x["spread"] for x in row["cells"]
               if x and x["spread"] is not None]
    return "%.1f%%" % max(spreads) if spreads else "-"


def print_compare_plain(c, sweeps, table, names, metric):
    marks = tested(table)
    header = ["pattern", key_header(table)] + names + \
        gain_headers(c, names) + ["noise"]
    rows = [[r["pattern"], r["label"]] +
            compare_cells(c, r, names, marks, value_format(metric)) +
            [noise(r)] for r in table]
    text = "%s: base %s, new %s; %s, median; gain: %s against %s; " \
        "noise = the larger min-max spread" % (
            PROG, sweeps[0].arg, ", ".join(s.arg for s in sweeps[1:]),
            METRICS.get(metric, (None, metric))[1],
            "each" if c.gains == "each" else names[-1], names[0])
    if marks:
        text += "; (I)/(R): %s than %s at 95%% (%s)" % (
            "/".join(mark_words(metric)), names[0], TEST_NAME)
    if any_single(table):
        text += "; " + SINGLE_NOTE
    print(text)
    print_table(rows, header, c.format == "markdown")


def mark_words(metric):
    """What (I) and (R) say of the new figure: better, worse."""
    return ("lower", "higher") if metric in LOWER_BETTER else \
        ("higher", "lower")


def value_format(metric):
    """Fallbacks per user fault are fractions: six places."""
    if metric in FRACTIONS:
        return lambda v: "%.6f" % v
    return lambda v: "%.0f" % v


def unit(values):
    top = max(values) if values else 0
    if top >= 1e6:
        return lambda v: "%.3fM" % (v / 1e6)
    if top >= 1e3:
        return lambda v: "%.3fK" % (v / 1e3)
    return lambda v: "%.3f" % v


def runs_text(rows):
    ns = sorted({len(x["values"]) for r in rows for x in r["cells"]
                 if x and x["values"]})
    if not ns:
        return ""
    return ", median of %s runs" % (str(ns[0]) if len(ns) == 1 else
                                    "%d-%d" % (ns[0], ns[-1]))


def print_compare_email(c, sweeps, table, names, metric):
    """A block per pattern, laid out as the tables posted to linux-mm."""
    marks = tested(table)
    first = True
    for pattern in dict.fromkeys(r["pattern"] for r in table):
        rows = [r for r in table if r["pattern"] == pattern]
        value = unit([x["median"] for r in rows for x in r["cells"] if x]) \
            if metric not in FRACTIONS else value_format(metric)
        if not first:
            print()
        first = False
        print("%s, %s%s" % (pattern, METRICS.get(metric, (None, metric))[1],
                            runs_text(rows)))
        header = ["CPUs" if key_header(rows) == "layout" else "workers"] + \
            names + gain_headers(c, names)
        print_table([[r["label"]] + compare_cells(c, r, names, marks, value)
                     for r in rows], header, False)
    if marks or any_single(table):
        print()
    if marks:
        print("(I), (R): %s than %s at 95%% confidence (%s)" %
              (", ".join(mark_words(metric)), names[0], TEST_NAME))
    if any_single(table):
        print(SINGLE_NOTE)
    kernels = [(n, s.host.get("kernel")) for n, s in zip(names, sweeps)
               if s.host]
    if kernels:
        print("kernels: " + "; ".join("%s %s" % k for k in kernels))
