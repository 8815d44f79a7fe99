# SPDX-License-Identifier: GPL-2.0-or-later
# pft_sweep.plot - the gnuplot scripts of a sweep and of a comparison, and
# running gnuplot.
#
# Copyright (C) 2026 The libfaultgen authors

import os
import shutil
import subprocess
import tempfile

from .common import PROG, msg, safe_median
from pft_common.safefile import put_in_place, replacing
from .report import describe
from .runs import FRACTIONS, METRICS, find_point


# ---- plots --------------------------------------------------------------

def gp_string(s):
    return "'" + s.replace("'", "''") + "'"


def gp_xaxis(ticks, numeric):
    """gnuplot lines for an x axis of (x, label) ticks."""
    xs = [x for x, _ in ticks]
    lines = ["set xtics (%s)" % ", ".join(
        "%s %s" % (gp_string(label), x) for x, label in ticks)]
    if not numeric:
        lines += ["set xtics rotate by -30 noenhanced",
                  "set bmargin 8"]
    if numeric and max(xs) >= 8:
        lines.append("set logscale x 2")
    else:
        lines.append("set xrange [%g:%g]" % (min(xs) - 0.5, max(xs) + 0.5))
    return lines


def gp_plot(blocks, prefix, terminal,
            how="using 1:2:3:4 with yerrorlines lw 2"):
    """The plot command for (data block, title[, style]) tuples, PNG then
    SVG; each block drawn as `how` says (x, median, min, max by
    default)."""
    plot = "plot " + ", \\\n     ".join(
        "%s %s %stitle %s" %
        (b[0], how, b[2] + " " if len(b) > 2 else "", gp_string(b[1]))
        for b in blocks)
    return [
        "set terminal %s size 900,600" % terminal,
        "set output %s" % gp_string(prefix + ".png"),
        plot,
        "set terminal svg size 900,600 dynamic",
        "set output %s" % gp_string(prefix + ".svg"),
        "replot",
        "unset output",
    ]


def gnuplot_script(c, prefix, terminal):
    lines = ["# %s: %s" % (PROG, describe(c))]
    layouts = any(r["layout"] for r in c.rows)
    ticks = [(i if layouts else r["workers"],
              r["label"] if layouts else str(r["workers"]))
             for i, r in enumerate(c.rows)]
    blocks = []
    for i, pat in enumerate(c.patterns):
        data = []
        for (x, _), r in zip(ticks, c.rows):
            p = find_point(c.points, pat, r["layout"] or str(r["workers"]))
            s = p.get("stats") if p else None
            if s:
                data.append("%s %s" % (x, figures_text(
                    c.metric, s["median"], s["min"], s["max"])))
        if data:
            lines += ["$p%d << EOD" % i] + data + ["EOD"]
            blocks.append(("$p%d" % i, pat))
    title = "pft: %s against %s (%s)" % (
        METRICS[c.metric][1], "CPU layout" if layouts else "workers",
        c.host["kernel"])
    lines += [
        "set title %s noenhanced" % gp_string(title),
        "set xlabel %s" % gp_string("" if layouts else "workers"),
        "set ylabel %s noenhanced" % gp_string(
            "%s, median of %d runs; bars: min to max" %
            (METRICS[c.metric][1], c.repeat)),
        "set key top left noenhanced",
        "set grid",
        "set yrange [0:*]",
        "set format y '%.1s%c'",
    ] + gp_xaxis(ticks, not layouts)
    return "\n".join(lines + gp_plot(blocks, prefix, terminal)) + "\n", \
        bool(blocks)


def latency_script(c, prefix, terminal):
    """With --latency: each pattern's p50 and p99 (medians of the runs,
    bars from min to max) against the points, in microseconds on a log
    scale, beside the rate plot."""
    lines = ["# %s: %s" % (PROG, describe(c))]
    layouts = any(r["layout"] for r in c.rows)
    ticks = [(i if layouts else r["workers"],
              r["label"] if layouts else str(r["workers"]))
             for i, r in enumerate(c.rows)]
    blocks = []
    for i, pat in enumerate(c.patterns):
        for j, (key, name) in enumerate((("lat_p50_ns", "p50"),
                                         ("lat_p99_ns", "p99"))):
            data = []
            for (x, _), r in zip(ticks, c.rows):
                p = find_point(c.points, pat, r["layout"] or
                               str(r["workers"]))
                v = [run[key] for run in (p or {}).get("runs", [])
                     if run.get(key)]
                if v:
                    data.append("%s %.3f %.3f %.3f" %
                                (x, safe_median(v) / 1e3, min(v) / 1e3,
                                 max(v) / 1e3))
            if data:
                lines += ["$l%d_%d << EOD" % (i, j)] + data + ["EOD"]
                blocks.append(("$l%d_%d" % (i, j), "%s %s" % (pat, name),
                               "lc %d dt %d" % (i + 1, j + 1)))
    lines += [
        "set title %s noenhanced" % gp_string(
            "pft: fault latency against %s (%s)" % (
                "CPU layout" if layouts else "workers", c.host["kernel"])),
        "set xlabel %s" % gp_string("" if layouts else "workers"),
        "set ylabel %s noenhanced" % gp_string(
            "latency, us (1 fault in %d timed), median of %d runs; bars: "
            "min to max" % (c.latency, c.repeat)),
        "set key top left noenhanced",
        "set grid",
        "set logscale y 10",
    ] + gp_xaxis(ticks, not layouts)
    return "\n".join(lines + gp_plot(blocks, prefix, terminal)) + "\n", \
        bool(blocks)


def merge_buckets(histograms):
    """Histograms in pft's compact form ([[lo_ns, hi_ns, count], ...], the
    "buckets" of its --json "latency") merged into one: pft's bucket
    bounds are the same in every run, so the counts of equal bounds add
    up.  Lowest first; None for a run without them is skipped."""
    counts = {}
    for h in histograms:
        for lo, hi, n in h or []:
            counts[(lo, hi)] = counts.get((lo, hi), 0) + n
    return [[lo, hi, counts[(lo, hi)]] for lo, hi in sorted(counts)]


def latency_cdf(buckets):
    """The cumulative distribution of a histogram as (ns, fraction)
    points: 0 at the lowest bound, then at the upper bound of each bucket
    the fraction of the values below it; the last is 1.  [] when the
    histogram is empty."""
    total = sum(n for _, _, n in buckets)
    if not total:
        return []
    points, seen = [(buckets[0][0], 0.0)], 0
    for _, hi, n in buckets:
        if n:
            seen += n
            points.append((hi, seen / total))
    return points


def cdf_quantile(points, q):
    """The value of quantile q (0 < q <= 1) read off a CDF: the first
    bound at which the fraction reaches q, which is the upper bound of
    the bucket that holds the value of nearest rank ceil(q * count)."""
    for x, f in points:
        if f >= q:
            return x
    return None


def point_title(pattern, row, layouts):
    if layouts:
        return "%s, %s" % (pattern, row["label"])
    return "%s, %d worker%s" % (pattern, row["workers"],
                                "" if row["workers"] == 1 else "s")


def latency_cdf_script(c, prefix, terminal):
    """With --latency: the distribution of each point, the histograms of
    its runs merged (pft's --json buckets), as a CDF against latency in
    microseconds on a log scale; a colour per worker count or layout, a
    dash pattern per pattern."""
    lines = ["# %s: %s" % (PROG, describe(c))]
    layouts = any(r["layout"] for r in c.rows)
    blocks, per_call = [], False
    for i, pat in enumerate(c.patterns):
        for k, r in enumerate(c.rows):
            p = find_point(c.points, pat, r["layout"] or str(r["workers"]))
            runs = (p or {}).get("runs", [])
            points = latency_cdf(merge_buckets(
                run.get("lat_buckets") for run in runs))
            if not points:
                continue
            per_call = per_call or any(run.get("lat_per_call")
                                       for run in runs)
            name = "$c%d_%d" % (i, k)
            lines += ["%s << EOD" % name] + [
                "%.3f %.6f" % (x / 1e3, f) for x, f in points] + ["EOD"]
            blocks.append((name, point_title(pat, r, layouts),
                           "lc %d dt %d" % (k + 1, i + 1)))
    what = "calls" if per_call else "faults"
    lines += [
        "set title %s noenhanced" % gp_string(
            "pft: fault latency per point, %d runs merged (%s)" % (
                c.repeat, c.host["kernel"])),
        "set xlabel %s noenhanced" % gp_string(
            "latency, us (1 in %d timed; a value per %s)" %
            (c.latency, what[:-1])),
        "set ylabel %s noenhanced" % gp_string(
            "fraction of the %s timed at or below" % what),
        "set key bottom right noenhanced",
        "set grid",
        "set logscale x 10",
        "set yrange [0:1]",
    ]
    return "\n".join(lines + gp_plot(blocks, prefix, terminal,
                                     "using 1:2 with lines lw 2")) + "\n", \
        bool(blocks)


def make_plot(c, prefix, script_of):
    """PREFIX.gp, .png and .svg from script_of(prefix, terminal); returns
    the files written."""
    gp = c.gnuplot or shutil.which("gnuplot")
    if not gp or not os.access(gp, os.X_OK) or os.path.isdir(gp):
        msg("gnuplot not found: no plot (install gnuplot-nox)")
        return []
    # pngcairo draws better; gnuplot-nox builds may have only libgd's png.
    try:
        probe = subprocess.run([gp, "-e", "set terminal pngcairo"],
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    except OSError as e:
        msg("cannot run gnuplot ('%s'): %s: no plot" % (gp, e.strerror or e))
        return []
    terminal = "pngcairo" if probe.returncode == 0 else "png"
    script, any_data = script_of(prefix, terminal)
    if not any_data:
        msg("no point has data: no plot")
        return []
    with replacing(prefix + ".gp") as f:
        f.write(script)
    # gnuplot opens the files it draws as named, through links: it draws
    # in a new directory of the sweep's own, beside them, and the
    # drawings are then renamed to their names.
    work = tempfile.mkdtemp(dir=os.path.dirname(prefix) or ".",
                            prefix=".pft-plot.")
    try:
        inner = os.path.join(work, "plot")
        with open(inner + ".gp", "w") as f:
            f.write(script_of(inner, terminal)[0])
        try:
            res = subprocess.run([gp, inner + ".gp"], stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT,
                                 universal_newlines=True, errors="replace")
        except OSError as e:
            msg("cannot run gnuplot ('%s'): %s: no plot" %
                (gp, e.strerror or e))
            return [prefix + ".gp"]
        if res.returncode != 0:
            msg("gnuplot failed: %s" % (res.stdout.strip().splitlines() or
                                        ["exit %d" % res.returncode])[-1])
            return [prefix + ".gp"]
        for ext in (".png", ".svg"):
            try:
                put_in_place(inner + ext, prefix + ext)
            except OSError as e:
                raise OSError(e.errno, e.strerror, prefix + ext) from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return [prefix + ".gp", prefix + ".png", prefix + ".svg"]


def figures_text(metric, *values):
    """A data line's figures: rates to 3 places, fallbacks per user
    fault (fractions) to 9 significant digits."""
    fmt = "%.9g" if metric in FRACTIONS else "%.3f"
    return " ".join(fmt % v for v in values)


def compare_plot_script(table, names, metric, prefix, terminal):
    """One line per sweep (and pattern), bars from min to max."""
    points = list(dict.fromkeys(r["point"] for r in table))
    labels = {r["point"]: r["label"] for r in table}
    numeric = all(p.isdigit() for p in points)
    ticks = [(int(p) if numeric else i, labels[p])
             for i, p in enumerate(points)]
    x = dict(zip(points, (t[0] for t in ticks)))
    patterns = list(dict.fromkeys(r["pattern"] for r in table))
    lines, blocks = ["# %s --compare" % PROG], []
    for i, name in enumerate(names):
        for j, pat in enumerate(patterns):
            data = ["%s %s" % (x[r["point"]], figures_text(
                metric, cell["median"], *[cell["median"] if cell[k] is None
                                          else cell[k]
                                          for k in ("min", "max")]))
                    for r in table if r["pattern"] == pat
                    for cell in [r["cells"][i]] if cell]
            if data:
                lines += ["$s%d_%d << EOD" % (i, j)] + data + ["EOD"]
                # A colour per pattern, a dash pattern per sweep.
                blocks.append(("$s%d_%d" % (i, j), name if len(patterns) ==
                               1 else "%s, %s" % (name, pat),
                               "lc %d dt %d" % (j + 1, i + 1)))
    lines += [
        "set title %s noenhanced" % gp_string(
            "pft: %s, %s" % (METRICS.get(metric, (None, metric))[1],
                             " against ".join(names))),
        "set ylabel %s noenhanced" % gp_string(
            "%s, median; bars: min to max" %
            METRICS.get(metric, (None, metric))[1]),
        "set xlabel %s" % gp_string("workers" if numeric else ""),
        "set key top left noenhanced", "set grid", "set yrange [0:*]",
        "set format y '%.1s%c'",
    ] + gp_xaxis(ticks, numeric)
    return "\n".join(lines + gp_plot(blocks, prefix, terminal)) + "\n", \
        bool(blocks)
