# SPDX-License-Identifier: GPL-2.0-or-later
# pft_survey.compare - two fault profiles side by side (pft-survey
# --compare A B): per object and kind, the faults, bytes, processes,
# threads, concurrency, the time shape, and the ratio B/A of each; the
# mapping calls per call and argument, where either recorded them.
#
# Copyright (C) 2026 The libfaultgen authors
#
# Objects are matched within each backing by size and faults: the pairs
# of an object of A and one of B whose sizes and faults are nearest
# (the factors between them, in powers of two) are taken first.  (A
# replay makes its objects in its own order, beside its own heap and
# stacks: their ids and their rank by size say nothing.)  Concurrency is over the profiles' bins: the
# threads with a fault of the object (and kind) in the same bin, the
# median over the bins that had one and the most.  The time shape is
# Pearson's correlation of the two per-bin fault counts, over the bins
# of the longer profile (a run of bins counts its faults evenly in
# each); it is undefined (null) where either count is the same in every
# bin.  Profiles of different bins are compared in the coarser, or in
# wider bins asked for (--bin-ms): a run's pace jitters from bin to bin.
#
# A replay starts its clock once it has read the profile and made its
# objects: its faults come later after its first event than the
# original's did.  So B's times are shifted earlier by a lag: the one,
# from 0 to half the bins, at which the per-bin faults of the objects
# matched in both (every kind) correlate best with A's, or the one asked
# for (--lag-ms): the replay's own memory (its program, libraries and
# set-up, which A has no object for) takes no part.  Every time shape is
# B's shifted so, and the lag is printed beside them.

import decimal
import json
import math

from . import kinds as K
from pft_common.util import median

ALL = "all"
DIMENSIONS = ("faults", "bytes", "processes", "threads",
              "concurrency median", "concurrency most")


class Stat:
    """The faults of one object (and kind) in one profile."""

    def __init__(self):
        self.faults = 0
        self.bytes = 0
        self.threads = set()
        self.processes = set()
        self.bins = {}          # bin -> faults
        self.active = {}        # bin -> {threads}

    def add(self, row, thread_proc, period, nbytes, scale):
        th, _ob, b, nb, _kind, count = row[:6]
        n = count * period
        self.faults += n
        self.bytes += n * nbytes
        self.threads.add(th)
        self.processes.add(thread_proc[th])
        for i in range(nb):
            c = int((b + i) * scale)
            self.bins[c] = self.bins.get(c, 0) + n / nb
            self.active.setdefault(c, set()).add(th)

    def figures(self):
        sizes = [len(s) for s in self.active.values()]
        return {"faults": self.faults, "bytes": self.bytes,
                "processes": len(self.processes),
                "threads": len(self.threads),
                "concurrency median": median(sizes) if sizes else 0,
                "concurrency most": max(sizes, default=0)}


def stats(prof, common_ms):
    """{object id: {kind or ALL: Stat}} of a profile, in bins of
    common_ms."""
    thread_proc = {t["id"]: t["process"] for t in prof["threads"]}
    scale = prof["bin_ms"] / common_ms
    out = {o["id"]: {} for o in prof["objects"]}
    for row in prof["faults"]:
        kind = row[4]
        nbytes = K.HUGE if kind == K.HUGE_KIND else prof["page_size"]
        per = out.setdefault(row[1], {})
        for k in (kind, ALL):
            per.setdefault(k, Stat()).add(row, thread_proc, prof["period"],
                                          nbytes, scale)
    return out


def nbins(prof, common_ms):
    """The bins of common_ms a profile spans: its duration, and its last
    run of bins."""
    end = max((r[2] + r[3] for r in prof["faults"]), default=0)
    return max(int(math.ceil(prof["duration_ms"] / common_ms)),
               int(math.ceil(end * prof["bin_ms"] / common_ms)))


def pearson(xs, ys):
    """Pearson's correlation of two series of one length; None where
    either is constant."""
    n = len(xs)
    if n < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx <= 0 or syy <= 0:
        return None
    return max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))


def ratio(a, b):
    return None if not a else b / a


def match_objects(a, b):
    """[(A's object or None, B's object or None)] within each backing:
    the pairs closest in size and faults first (match_cost), A's
    objects in their rank, B's left over after them."""
    ra, rb = ranked(a), ranked(b)
    pairs = []
    for backing in sorted(set(ra) | set(rb)):
        la, lb = ra.get(backing, []), rb.get(backing, [])
        cost = sorted((match_cost(x, y), i, j)
                      for i, x in enumerate(la) for j, y in enumerate(lb))
        of_a, taken = {}, set()
        for _, i, j in cost:
            if i not in of_a and j not in taken:
                of_a[i] = j
                taken.add(j)
        pairs += [(x[0], lb[of_a[i]][0] if i in of_a else None)
                  for i, x in enumerate(la)]
        pairs += [(None, y[0]) for j, y in enumerate(lb) if j not in taken]
    return pairs


def ranked(prof):
    """{backing: [(object, its faults)]}, largest first, then most
    faults, then id."""
    faults = {}
    for r in prof["faults"]:
        faults[r[1]] = faults.get(r[1], 0) + r[5]
    by = {}
    for o in prof["objects"]:
        by.setdefault(o["backing"], []).append((o, faults.get(o["id"], 0)))
    for lst in by.values():
        lst.sort(key=lambda x: (-x[0]["size"], -x[1], x[0]["id"]))
    return by


def match_cost(x, y):
    """How far two (object, faults) are apart: the factors between their
    sizes and between their faults, in powers of two.  A replay makes
    its objects of the recorded sizes and faults, beside objects of its
    own (its heap, its threads' stacks) whose rank in size would
    otherwise push them between."""
    return abs(math.log2(max(y[0]["size"], 1) / max(x[0]["size"], 1))) + \
        abs(math.log2((y[1] + 1) / (x[1] + 1)))


def whole_series(st, n):
    """The per-bin faults of every object of stats st, n bins."""
    xs = [0.0] * n
    for per in st.values():
        for b, c in per.get(ALL, Stat()).bins.items():
            if 0 <= b < n:
                xs[b] += c
    return xs


def matched_stats(sa, sb, pairs):
    """The stats of the objects matched in both profiles (pairs:
    match_objects), A's and B's: a replay's own memory (its program,
    libraries and set-up, which the recording has no object for) takes
    no part in the lag."""
    both = [(oa["id"], ob["id"]) for oa, ob in pairs if oa and ob]
    return ({i: sa[i] for i, _ in both if i in sa},
            {j: sb[j] for _, j in both if j in sb})


def best_lag(sa, sb, n):
    """The shift (bins, 0 to n // 2) of the per-bin faults of B's objects
    (stats sb) earlier that correlates best with those of A's (sa) over
    all n bins (B's last ones empty once shifted); the smallest of
    equals, 0 where none correlates.

    Exact, and in one pass over the lags: the series made whole numbers
    (whole_numbers: a correlation does not change with the scale), the
    sums of products of every lag at once (lag_products), B's sums over
    its window less one bin at each lag, and the correlations compared
    as fractions (so that equal ones are equal)."""
    xa = whole_numbers(whole_series(sa, n))
    xb = whole_numbers(whole_series(sb, n))
    sx, sxx = sum(xa), sum(x * x for x in xa)
    if n < 2 or n * sxx - sx * sx <= 0:
        return 0
    products = lag_products(xa, xb, n // 2)
    sy, syy = sum(xb), sum(y * y for y in xb)
    best, best_num, best_dy = 0, None, None
    for lag, sxy in enumerate(products):
        if lag:
            sy -= xb[lag - 1]
            syy -= xb[lag - 1] ** 2
        dy = n * syy - sy * sy
        if dy <= 0:
            continue
        # r = cov / sqrt(n sxx - sx^2) / sqrt(dy), cov = n sxy - sx sy:
        # r's order over the lags is that of cov |cov| / dy.
        cov = n * sxy - sx * sy
        num = cov * abs(cov)
        if best_num is None or num * best_dy > best_num * dy:
            best, best_num, best_dy = lag, num, dy
    return best


def whole_numbers(xs):
    """xs (floats) times the least power of two that makes them all
    whole, as ints: exactly."""
    ratios = [float(x).as_integer_ratio() for x in xs]
    den = max((d for _, d in ratios), default=1)
    return [p * (den // d) for p, d in ratios]


def lag_products(a, b, most):
    """[the sum of a[i] * b[i + lag] over i, for lag 0 to most] of two
    series of ints of one length, exactly, all by one multiplication:
    each series written as the digits of one number, k decimal digits a
    bin (more than any sum of products has), a in its order and b
    reversed; the product's digits are then every lag's sum.  (decimal
    multiplies long numbers in n log n.)"""
    if min(a, default=0) < 0 or min(b, default=0) < 0:
        ap, an = [max(x, 0) for x in a], [max(-x, 0) for x in a]
        bp, bn = [max(y, 0) for y in b], [max(-y, 0) for y in b]
        return [w - x - y + z for w, x, y, z in zip(
            lag_products(ap, bp, most), lag_products(ap, bn, most),
            lag_products(an, bp, most), lag_products(an, bn, most))]
    n = len(a)
    if not n:
        return []
    k = len(str(n * max(a) * max(b)))
    ctx = decimal.Context(prec=decimal.MAX_PREC, Emax=decimal.MAX_EMAX,
                          traps=[decimal.Inexact, decimal.Rounded])
    da = decimal.Decimal("".join(str(x).zfill(k) for x in a))
    db = decimal.Decimal("".join(str(y).zfill(k) for y in reversed(b)))
    digits = str(ctx.multiply(da, db)).zfill((2 * n - 1) * k)
    end = len(digits)
    # Lag j is the number's digits n - 1 + j from the right (k each).
    return [int(digits[end - (n + j) * k:end - (n - 1 + j) * k])
            for j in range(min(most, n - 1) + 1)]


def kind_rows(sa, sb, n, lag=0):
    """The rows of one object pair: per kind (ALL first), each dimension
    with A, B and B/A, and the time shape's correlation (B shifted lag
    bins earlier)."""
    kinds = sorted(set(sa) | set(sb), key=lambda k: (
        k != ALL, K.EVENT_KINDS.index(k) if k in K.EVENT_KINDS else 99, k))
    out = []
    for kind in kinds:
        fa = (sa.get(kind) or Stat()).figures()
        fb = (sb.get(kind) or Stat()).figures()
        dims = {d: {"a": fa[d], "b": fb[d], "ratio": ratio(fa[d], fb[d])}
                for d in DIMENSIONS}
        xa = [(sa.get(kind) or Stat()).bins.get(i, 0) for i in range(n)]
        xb = [(sb.get(kind) or Stat()).bins.get(i + lag, 0)
              for i in range(n)]
        out.append({"kind": kind, "dimensions": dims,
                    "time_shape_correlation": pearson(xa, xb)})
    return out


def without_event(a, b):
    """The faults without an event per kind: A, B and B/A."""
    def per_kind(prof):
        out = {}
        for _th, kind, n in prof["without_event"]:
            out[kind] = out.get(kind, 0) + n * prof["period"]
        return out
    wa, wb = per_kind(a), per_kind(b)
    return {k: {"a": wa.get(k, 0), "b": wb.get(k, 0),
                "ratio": ratio(wa.get(k, 0), wb.get(k, 0))}
            for k in sorted(set(wa) | set(wb))}


def compare(a, b, bin_ms=None, lag_ms=None):
    """The comparison of profiles a and b (dicts read by readprofile) as
    a dict (what --json prints), in bins of bin_ms where it is wider
    than both profiles' own; B's times shifted lag_ms earlier, or by the
    lag that matches best where None."""
    common = max(a["bin_ms"], b["bin_ms"], bin_ms or 0)
    n = max(nbins(a, common), nbins(b, common))
    sa, sb = stats(a, common), stats(b, common)
    pairs = match_objects(a, b)
    lag = (best_lag(*matched_stats(sa, sb, pairs), n) if lag_ms is None
           else int(round(lag_ms / common)))
    objs = []
    for oa, ob in pairs:
        objs.append({
            "backing": (oa or ob)["backing"],
            "a": oa and oa["id"], "b": ob and ob["id"],
            "size_a": oa and oa["size"], "size_b": ob and ob["size"],
            "kinds": kind_rows(sa.get(oa["id"], {}) if oa else {},
                               sb.get(ob["id"], {}) if ob else {}, n,
                               lag)})
    whole = {"processes": (len(a["processes"]), len(b["processes"])),
             "threads": (len(a["threads"]), len(b["threads"])),
             "duration_ms": (a["duration_ms"], b["duration_ms"])}
    return {"schema": "pft-survey-compare/1", "bin_ms": common,
            "bins": n, "lag_ms": lag * common,
            "lag": "given" if lag_ms is not None else "best match",
            "objects": objs,
            "profile": {k: {"a": x, "b": y, "ratio": ratio(x, y)}
                        for k, (x, y) in whole.items()},
            "without_event": without_event(a, b)}


def call_counts(prof):
    """{(call, arg): calls} of a profile, its period counted; None where
    it has no calls recorded."""
    if prof.get("calls") is None:
        return None
    out = {}
    for row in prof["calls"]:
        k = (row[3], row[4])
        out[k] = out.get(k, 0) + row[5] * prof["period"]
    return out


def calls(a, b):
    """The mapping calls per (call, arg), by call and arg: A's count, B's
    and B/A (None for a profile that did not record them); None where
    neither profile did."""
    ca, cb = call_counts(a), call_counts(b)
    if ca is None and cb is None:
        return None
    out = []
    for call, arg in sorted(set(ca or ()) | set(cb or ()),
                            key=lambda k: (k[0], k[1] is not None,
                                           k[1] or "")):
        x = None if ca is None else ca.get((call, arg), 0)
        y = None if cb is None else cb.get((call, arg), 0)
        out.append({"call": call, "arg": arg, "a": x, "b": y,
                    "ratio": None if y is None else ratio(x, y)})
    return out


def add_calls(doc, a, b):
    """The mapping calls' comparison into doc (a compare()'s) as "calls",
    where either profile recorded them."""
    rows = calls(a, b)
    if rows is not None:
        doc["calls"] = rows


def render_calls(doc, out):
    """The mapping calls' rows of doc, where it has them (add_calls)."""
    if "calls" not in doc:
        return
    fmt = "  %-13s %-20s %12s %12s %8s\n"
    out.write("\nmapping calls, per call and argument (A or B -: not "
              "recorded)\n")
    out.write(fmt % ("call", "argument", "A", "B", "B/A"))
    if not doc["calls"]:
        out.write("  none\n")
    for c in doc["calls"]:
        out.write(fmt % (c["call"], "-" if c["arg"] is None else c["arg"],
                         num(c["a"]), num(c["b"]),
                         "-" if c["ratio"] is None else "%.3f" % c["ratio"]))


def num(x):
    if x is None:
        return "-"
    if isinstance(x, float) and not x.is_integer():
        return "%.1f" % x
    return "%d" % x


def render(doc, names, out):
    """The comparison as text (names: what A and B are)."""
    out.write("A: %s\nB: %s\n" % names)
    out.write("objects matched within each backing by size and faults; "
              "concurrency: threads faulting in the same %g ms bin\n" %
              doc["bin_ms"])
    out.write("time shape: B's times %g ms earlier (%s: %s)\n" % (
        doc["lag_ms"], doc["lag"],
        "--lag-ms" if doc["lag"] == "given" else
        "the shift of the matched objects' per-bin faults that "
        "correlates best with A's, a replay's start-up"))
    fmt = "  %-13s %-20s %12s %12s %8s\n"
    for o in doc["objects"]:
        out.write("\nobject A%s B%s: %s, %s / %s bytes\n" % (
            num(o["a"]), num(o["b"]), o["backing"], num(o["size_a"]),
            num(o["size_b"])))
        out.write(fmt % ("kind", "dimension", "A", "B", "B/A"))
        for k in o["kinds"]:
            for d, v in k["dimensions"].items():
                out.write(fmt % (k["kind"], d, num(v["a"]), num(v["b"]),
                                 "-" if v["ratio"] is None else
                                 "%.3f" % v["ratio"]))
            r = k["time_shape_correlation"]
            out.write(fmt % (k["kind"], "time shape (r)", "", "",
                             "-" if r is None else "%.3f" % r))
    out.write("\nwhole profile\n")
    rows = list(doc["profile"].items()) + [
        ("without event: " + k, v) for k, v in doc["without_event"].items()]
    for d, v in rows:
        out.write(fmt % ("", d, num(v["a"]), num(v["b"]),
                         "-" if v["ratio"] is None else "%.3f" % v["ratio"]))


def write(doc, names, as_json, out):
    if as_json:
        json.dump(dict(doc, a_file=names[0], b_file=names[1]), out,
                  indent=1, sort_keys=True)
        out.write("\n")
    else:
        render(doc, names, out)
        render_calls(doc, out)
