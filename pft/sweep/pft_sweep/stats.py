# SPDX-License-Identifier: GPL-2.0-or-later
# pft_sweep.stats - statistics: the medians of a sweep's points, and Welch's
# t-test on the logarithms of two samples of rates for --compare's marks.
#
# Copyright (C) 2026 The libfaultgen authors

import math
import statistics

from .common import finite, ratio, safe_median
from .runs import METRICS, find_point, point_key


LEVEL = 0.95
TEST_NAME = "Welch's t-test on the logarithms of the runs' rates"


def figures(runs, key):
    """The finite figures `key` of runs (run_record has made the others
    None)."""
    return [r[key] for r in runs if finite(r.get(key)) is not None]


def median_of(runs, key):
    vals = figures(runs, key)
    return safe_median(vals) if vals else None


def summarize(c):
    key = METRICS[c.metric][0]
    for p in c.points:
        vals = figures(p.get("runs", []), key)
        if not vals:
            p["stats"] = None
            continue
        med = safe_median(vals)
        p["stats"] = {
            "median": med, "min": min(vals), "max": max(vals),
            "spread_pct": ratio(max(vals) - min(vals), med / 100)
            if med else 0,
            "fault_per_wsec_median": median_of(p["runs"], "fault_per_wsec"),
            "round_rate_median": median_of(p["runs"], "round_rate_median"),
            "faults_per_wall_s_median": median_of(p["runs"],
                                                  "faults_per_wall_s"),
            "flt_per_cpu_s_median": median_of(p["runs"], "flt_per_cpu_s"),
            "start_skew_s_median": median_of(p["runs"], "start_skew_s"),
            "lat_p50_ns_median": median_of(p["runs"], "lat_p50_ns"),
            "lat_p99_ns_median": median_of(p["runs"], "lat_p99_ns"),
            # qemu-prealloc's figures (None in the other patterns).
            "threads_median": median_of(p["runs"], "threads"),
            "threads_started_median": median_of(p["runs"],
                                                "threads_started"),
            "process_faults_median": median_of(p["runs"], "process_faults"),
            "prealloc_s_median": median_of(p["runs"], "prealloc_s"),
        }
        for k in ("lp_user_faults", "lp_mmap_read", "lp_fallbacks",
                  "lp_fallbacks_per_fault", "lw_read_p99_ns",
                  "lw_faults_mmap_read", "lw_retries"):
            p["stats"][k + "_median"] = median_of(p["runs"], k)
    first = c.patterns[0]
    for p in c.points:
        base = find_point(c.points, first, point_key(p))
        p["ratio"] = None
        if p["stats"] and base and base.get("stats"):
            p["ratio"] = ratio(p["stats"]["median"], base["stats"]["median"])


# ---- significance -------------------------------------------------------

def betacf(a, b, x):
    """The continued fraction of the incomplete beta function (modified
    Lentz's method)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 1000):
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)),
                   -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + aa / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def betainc(a, b, x):
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) +
                     a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * betacf(a, b, x) / a
    return 1.0 - front * betacf(b, a, 1.0 - x) / b


def t_two_sided_p(t, df):
    """P(|T| >= |t|) for Student's t with df degrees of freedom."""
    return betainc(df / 2.0, 0.5, df / (df + t * t))


def t_quantile(level, df):
    """q with P(|T| <= q) = level, by bisection on the p-value."""
    alpha = 1.0 - level
    lo, hi = 0.0, 1.0
    while t_two_sided_p(hi, df) > alpha:
        lo, hi = hi, hi * 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if t_two_sided_p(mid, df) > alpha:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def welch_log(base, new, level=LEVEL):
    """Welch's t-test on the logarithms of two samples of rates: the ratio
    of their geometric means, its interval at `level`, the two-sided p
    and the degrees of freedom; None with fewer than 2 rates a side."""
    la = [math.log(x) for x in base if finite(x) and x > 0]
    lb = [math.log(x) for x in new if finite(x) and x > 0]
    if len(la) < 2 or len(lb) < 2:
        return None
    va = statistics.variance(la) / len(la)
    vb = statistics.variance(lb) / len(lb)
    d = statistics.mean(lb) - statistics.mean(la)
    se2 = va + vb
    try:
        if se2 == 0:
            # Identical runs on each side: any difference is certain.
            test = {"ratio": math.exp(d), "low": math.exp(d),
                    "high": math.exp(d), "p": 0.0 if d else 1.0,
                    "df": None}
        else:
            df = se2 * se2 / (va * va / (len(la) - 1) +
                              vb * vb / (len(lb) - 1))
            half = t_quantile(level, df) * math.sqrt(se2)
            test = {"ratio": math.exp(d), "low": math.exp(d - half),
                    "high": math.exp(d + half),
                    "p": t_two_sided_p(d / math.sqrt(se2), df), "df": df}
    except (OverflowError, ValueError, ZeroDivisionError):
        # Rates so far apart (1e-320 against 1e5) that the ratio is
        # beyond a float: no test.
        return None
    if not all(finite(test[k]) is not None for k in ("ratio", "low",
                                                      "high", "p")):
        return None
    return test


def verdict(test, lower_better=False):
    """I (improvement: higher, or lower where lower_better) or R
    (regression: the other way) when the interval of the ratio leaves
    out 1, else ""."""
    if not test:
        return ""
    better, worse = ("R", "I") if lower_better else ("I", "R")
    if test["low"] > 1.0:
        return better
    if test["high"] < 1.0:
        return worse
    return ""
