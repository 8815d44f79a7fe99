# SPDX-License-Identifier: GPL-2.0-or-later
# pft_survey.plot - a heatmap of one or two fault profiles, side by side
# (pft-survey --plot=FILE.svg): time on x (the same scale for both), each
# object's pages on y, one lane per thread (per process where there are
# more than MAX_LANES threads), each run of bins a rectangle over the
# pages it faulted, coloured by its faults per bin (a log scale shared
# by the whole picture).  SVG written with the standard library.
#
# Copyright (C) 2026 The libfaultgen authors

import math
from xml.sax.saxutils import escape

from pft_common.util import printable

from .profile import create_new

WIDTH = 640                     # a profile's plot area
LEFT = 150                      # the lane labels
LANE_MIN = 14
OBJECT_HEIGHT = 160
MAX_OBJECTS = 4
MAX_LANES = 16
LOW, HIGH = (255, 255, 178), (189, 0, 38)


def colour(faults, most):
    """The fill of faults per bin, on a log scale up to most."""
    f = 0.0 if most <= 1 else math.log(max(1.0, faults)) / math.log(most)
    f = max(0.0, min(1.0, f))
    return "#%02x%02x%02x" % tuple(round(lo + (hi - lo) * f)
                                   for lo, hi in zip(LOW, HIGH))


def lanes_of(prof, oid):
    """The lanes of an object: [(label, {thread ids})], a thread each,
    or a process each where the threads are many."""
    procs = {t["id"]: t["process"] for t in prof["threads"]}
    tids = sorted({r[0] for r in prof["faults"] if r[1] == oid})
    if len(tids) <= MAX_LANES:
        return [("thread %d (process %d)" % (t, procs[t]), {t})
                for t in tids]
    by = {}
    for t in tids:
        by.setdefault(procs[t], set()).add(t)
    return [("process %d (%d threads)" % (p, len(s)), s)
            for p, s in sorted(by.items())]


def top_objects(prof):
    faults = {}
    for r in prof["faults"]:
        faults[r[1]] = faults.get(r[1], 0) + r[5]
    objs = [o for o in prof["objects"] if faults.get(o["id"])]
    objs.sort(key=lambda o: (-faults[o["id"]], o["id"]))
    return objs[:MAX_OBJECTS]


def object_panel(prof, o, x0, y0, span_ms, most):
    """An object's lanes and rectangles: (SVG lines, height)."""
    lanes = lanes_of(prof, o["id"])
    lane_h = max(LANE_MIN, OBJECT_HEIGHT / max(1, len(lanes)))
    pages = max(1, o["size"] // prof["page_size"])
    out = ['<text x="%d" y="%d" class="obj">%s</text>' % (
        x0, y0 + 12, escape("object %d: %s, %d pages" % (
            o["id"], o["backing"], pages)))]
    y = y0 + 18
    for label, tids in lanes:
        out.append('<rect x="%d" y="%.1f" width="%d" height="%.1f" '
                   'class="lane"/>' % (x0 + LEFT, y, WIDTH, lane_h))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>' % (
            x0 + LEFT - 4, y + lane_h / 2 + 4, escape(label)))
        for r in prof["faults"]:
            if r[1] != o["id"] or r[0] not in tids:
                continue
            out.append(cell(prof, r, x0 + LEFT, y, lane_h, pages, span_ms,
                            most))
        y += lane_h
    return out, y - y0 + 8


def cell(prof, r, x0, y0, lane_h, pages, span_ms, most):
    """One run of bins as a rectangle, with its row as a tooltip."""
    t0 = r[2] * prof["bin_ms"]
    x = x0 + WIDTH * t0 / span_ms
    w = max(0.5, WIDTH * r[3] * prof["bin_ms"] / span_ms)
    y = y0 + lane_h * r[6] / pages
    h = max(0.5, lane_h * (r[7] - r[6] + 1) / pages)
    per_bin = r[5] * prof["period"] / r[3]
    tip = "%s: %d faults in %g ms, pages %d-%d, %s" % (
        r[4], r[5] * prof["period"], r[3] * prof["bin_ms"], r[6], r[7],
        r[8] if r[8] != "stride" else "stride %d" % r[9])
    return ('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s">'
            '<title>%s</title></rect>' % (x, y, w, h, colour(per_bin, most),
                                          escape(tip)))


def profile_column(prof, name, x0, span_ms, most):
    """A profile's title and object panels: (SVG lines, height)."""
    out = ['<text x="%d" y="20" class="title">%s</text>' % (
        x0, escape(printable(name))),
        '<text x="%d" y="36">%s</text>' % (x0, escape(
            "%s, period %d, bins of %g ms, %.1f ms, %d threads" % (
                prof["source"], prof["period"], prof["bin_ms"],
                prof["duration_ms"], len(prof["threads"]))))]
    y = 48
    for o in top_objects(prof):
        lines, h = object_panel(prof, o, x0, y, span_ms, most)
        out += lines
        y += h
    out.append('<text x="%d" y="%d">0 ms</text>' % (x0 + LEFT, y + 12))
    out.append('<text x="%d" y="%d" text-anchor="end">%.1f ms</text>' % (
        x0 + LEFT + WIDTH, y + 12, span_ms))
    return out, y + 20


def legend(x0, y0, most):
    out = ['<text x="%d" y="%d">faults per bin:</text>' % (x0, y0 + 12)]
    for i in range(11):
        f = most ** (i / 10) if most > 1 else 1
        out.append('<rect x="%d" y="%d" width="20" height="14" fill="%s"/>'
                   % (x0 + 100 + 20 * i, y0, colour(f, most)))
    out.append('<text x="%d" y="%d">1 to %s</text>' % (
        x0 + 330, y0 + 12, escape("%d" % most)))
    return out


def svg(profiles):
    """The picture of [(name, profile)] (one or two) as SVG text."""
    span = max(max(p["duration_ms"], max(
        ((r[2] + r[3]) * p["bin_ms"] for r in p["faults"]), default=0))
        for _, p in profiles) or 1.0
    most = max((r[5] * p["period"] / r[3] for _, p in profiles
                for r in p["faults"]), default=1)
    body, height = [], 0
    for i, (name, prof) in enumerate(profiles):
        lines, h = profile_column(prof, name, 10 + i * (LEFT + WIDTH + 30),
                                  span, most)
        body += lines
        height = max(height, h)
    body += legend(10, height + 4, most)
    width = 10 + len(profiles) * (LEFT + WIDTH + 30)
    head = ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d"'
            ' font-family="sans-serif" font-size="11">\n<style>'
            '.title{font-size:14px;font-weight:bold} .obj{font-weight:bold}'
            ' .lane{fill:#f4f4f4;stroke:#ccc} text{fill:#222}</style>\n'
            % (width, height + 30))
    head += '<title>%s</title>\n' % escape(" | ".join(
        printable(n) for n, _ in profiles))
    return head + "\n".join(body) + "\n</svg>\n"


def plot(path, profiles):
    """Writes the picture of [(name, profile)] to path, a new file."""
    create_new(path, svg(profiles).encode("utf-8"))

