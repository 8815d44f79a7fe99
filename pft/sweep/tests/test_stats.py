# SPDX-License-Identifier: GPL-2.0-or-later
# test_stats.py - the statistics of pft_sweep.stats against closed forms
# and printed tables: the incomplete beta function, Student's t, Welch's
# test on log rates, the marks, and the medians of a sweep's points.
#
# Copyright (C) 2026 The libfaultgen authors

import math
import types
import unittest

from pft_sweep import stats


class IncompleteBeta(unittest.TestCase):
    def test_closed_forms(self):
        for x in (0.01, 0.2, 0.5, 0.77, 0.99):
            self.assertAlmostEqual(stats.betainc(1, 1, x), x, places=12)
            self.assertAlmostEqual(stats.betainc(3, 1, x), x ** 3,
                                   places=12)
            self.assertAlmostEqual(stats.betainc(1, 4, x),
                                   1 - (1 - x) ** 4, places=12)

    def test_symmetry_and_middle(self):
        self.assertAlmostEqual(stats.betainc(7.5, 7.5, 0.5), 0.5,
                               places=12)
        self.assertAlmostEqual(stats.betainc(2.5, 0.5, 0.3),
                               1 - stats.betainc(0.5, 2.5, 0.7), places=12)

    def test_ends(self):
        self.assertEqual(stats.betainc(2, 3, 0.0), 0.0)
        self.assertEqual(stats.betainc(2, 3, -1.0), 0.0)
        self.assertEqual(stats.betainc(2, 3, 1.0), 1.0)


class StudentT(unittest.TestCase):
    def test_p_one_degree_is_cauchy(self):
        for t in (0.0, 0.5, 1.0, 3.0, 12.0):
            self.assertAlmostEqual(stats.t_two_sided_p(t, 1),
                                   1 - 2 / math.pi * math.atan(t),
                                   places=10)

    def test_p_two_degrees(self):
        for t in (0.3, 1.0, 2.0, 4.302653):
            self.assertAlmostEqual(stats.t_two_sided_p(t, 2),
                                   1 - t / math.sqrt(2 + t * t), places=10)

    def test_p_four_degrees(self):
        for t in (0.5, 1.5, 2.776445, 5.0):
            a = 1 + t * t / 4
            want = 2 * (0.5 - 3 / 8 * t / math.sqrt(a) *
                        (1 - t * t / (12 * a)))
            self.assertAlmostEqual(stats.t_two_sided_p(t, 4), want,
                                   places=10)

    def test_p_sign_does_not_matter(self):
        self.assertAlmostEqual(stats.t_two_sided_p(-2.0, 7),
                               stats.t_two_sided_p(2.0, 7), places=14)

    def test_quantiles_from_tables(self):
        # t(0.975, df), two-sided 95%, from the printed tables.
        for df, q in ((1, 12.7062), (2, 4.3027), (4, 2.7764),
                      (10, 2.2281), (30, 2.0423), (1000, 1.9623)):
            self.assertAlmostEqual(stats.t_quantile(0.95, df), q, places=3)

    def test_quantile_other_level(self):
        # t(0.995, 5) = 4.0321 (tables), the two-sided 99% quantile.
        self.assertAlmostEqual(stats.t_quantile(0.99, 5), 4.0321, places=3)


def rates(logs, scale=1e5):
    return [scale * math.exp(x) for x in logs]


class Welch(unittest.TestCase):
    def test_equal_variances_four_degrees(self):
        # Logs -0.1, 0, 0.1 on each side, shifted by 0.3: variances 0.01,
        # Welch's degrees of freedom exactly 4.
        base = rates((-0.1, 0.0, 0.1))
        new = rates((0.2, 0.3, 0.4))
        w = stats.welch_log(base, new)
        half = 2.776445 * 0.1 * math.sqrt(2 / 3)
        self.assertAlmostEqual(w["df"], 4.0, places=9)
        self.assertAlmostEqual(w["ratio"], math.exp(0.3), places=9)
        self.assertAlmostEqual(w["low"], math.exp(0.3 - half), places=5)
        self.assertAlmostEqual(w["high"], math.exp(0.3 + half), places=5)
        t = 0.3 / (0.1 * math.sqrt(2 / 3))
        a = 1 + t * t / 4
        p = 2 * (0.5 - 3 / 8 * t / math.sqrt(a) * (1 - t * t / (12 * a)))
        self.assertAlmostEqual(w["p"], p, places=9)
        self.assertEqual(stats.verdict(w), "I")
        self.assertEqual(stats.verdict(stats.welch_log(new, base)), "R")

    def test_unequal_variances(self):
        # Logs (0, 0.2): variance 0.02 / 2 runs; (0.1, 0.2, 0.3): 0.01 /
        # 3 runs.  df = (1/75)^2 / ((1/100)^2 / 1 + (1/300)^2 / 2) = 32/19.
        w = stats.welch_log(rates((0.0, 0.2)), rates((0.1, 0.2, 0.3)))
        self.assertAlmostEqual(w["df"], 32 / 19, places=9)
        self.assertAlmostEqual(w["ratio"], math.exp(0.1), places=9)

    def test_not_significant(self):
        w = stats.welch_log(rates((-0.1, 0.0, 0.1)),
                            rates((0.1, 0.2, 0.3)))
        self.assertLess(w["low"], 1.0)
        self.assertGreater(w["high"], 1.0)
        self.assertEqual(stats.verdict(w), "")

    def test_too_few_runs(self):
        self.assertIsNone(stats.welch_log([1.0], [1.0, 2.0]))
        # Rates that are not positive have no logarithm: left out.
        self.assertIsNone(stats.welch_log([0.0, -1.0, 5.0], [1.0, 2.0]))
        self.assertEqual(stats.verdict(None), "")

    def test_identical_runs(self):
        same = stats.welch_log([2.0, 2.0], [2.0, 2.0, 2.0])
        self.assertEqual((same["ratio"], same["p"], same["df"]),
                         (1.0, 1.0, None))
        self.assertEqual(stats.verdict(same), "")
        up = stats.welch_log([2.0, 2.0], [4.0, 4.0])
        self.assertAlmostEqual(up["ratio"], 2.0, places=12)
        self.assertEqual((up["p"], up["df"]), (0.0, None))
        self.assertEqual(stats.verdict(up), "I")

    def test_verdict_by_interval(self):
        self.assertEqual(stats.verdict({"low": 1.01, "high": 2}), "I")
        self.assertEqual(stats.verdict({"low": 0.5, "high": 0.99}), "R")
        self.assertEqual(stats.verdict({"low": 0.99, "high": 1.01}), "")


def run(v, **more):
    return dict({"fault_per_wsec": v, "round_rate_median": None,
                 "faults_per_wall_s": None, "flt_per_cpu_s": None,
                 "start_skew_s": None}, **more)


class PointMedians(unittest.TestCase):
    def sweep(self, metric="legacy"):
        return types.SimpleNamespace(
            metric=metric, patterns=["shared-vma", "processes"],
            points=[
                {"pattern": "shared-vma", "workers": 1, "layout": "",
                 "runs": [run(100.0, start_skew_s=0.002), run(300.0),
                          run(200.0, start_skew_s=0.001)]},
                {"pattern": "processes", "workers": 1, "layout": "",
                 "runs": [run(50.0), run(70.0), run(None)]},
                {"pattern": "shared-vma", "workers": 2, "layout": "",
                 "runs": []},
                {"pattern": "processes", "workers": 2, "layout": "",
                 "runs": [run(10.0)]},
            ])

    def test_median_extremes_spread_ratio(self):
        c = self.sweep()
        stats.summarize(c)
        one, procs, empty, lone = c.points
        self.assertEqual((one["stats"]["median"], one["stats"]["min"],
                          one["stats"]["max"]), (200.0, 100.0, 300.0))
        self.assertAlmostEqual(one["stats"]["spread_pct"], 100.0)
        self.assertAlmostEqual(one["stats"]["start_skew_s_median"], 0.0015)
        self.assertIsNone(one["stats"]["round_rate_median"])
        self.assertEqual(one["ratio"], 1.0)
        # A run without the figure is left out.
        self.assertEqual(procs["stats"]["median"], 60.0)
        self.assertAlmostEqual(procs["stats"]["spread_pct"], 100 / 3)
        self.assertAlmostEqual(procs["ratio"], 0.3)
        self.assertIsNone(empty["stats"])
        self.assertIsNone(empty["ratio"])
        # No base to divide by: no ratio.
        self.assertEqual(lone["stats"]["spread_pct"], 0.0)
        self.assertIsNone(lone["ratio"])

    def test_metric_chooses_the_figure(self):
        c = self.sweep("faults")
        for p in c.points:
            for r in p["runs"]:
                r["faults_per_wall_s"] = 7.0
        stats.summarize(c)
        self.assertEqual(c.points[0]["stats"]["median"], 7.0)
        self.assertEqual(c.points[0]["stats"]["fault_per_wsec_median"],
                         200.0)


if __name__ == "__main__":
    unittest.main()
