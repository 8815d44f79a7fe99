# SPDX-License-Identifier: GPL-2.0-or-later
# test_plot.py - the latency distribution of pft_sweep.plot on synthetic
# histograms in pft's compact form: buckets merged across runs, the CDF
# monotone from 0 to exactly 1, its quantiles those of nearest rank, and
# the per-point CDF script (one curve per point that has buckets); pft's
# compact histogram kept by pft_sweep.runs.
#
# Copyright (C) 2026 The libfaultgen authors

import math
import random
import types
import unittest
from unittest import mock

from pft_sweep import plot, runs


def log_linear_bounds(v):
    """The bucket of v as pft's histogram cuts them (64 per power of two,
    exact below 128 ns): [lo, hi)."""
    if v < 128:
        return v, v + 1
    shift = v.bit_length() - 1 - 6
    lo = (v >> shift) << shift
    return lo, lo + (1 << shift)


def histogram(values):
    """values in pft's --json "buckets" form, lowest first."""
    counts = {}
    for v in values:
        b = log_linear_bounds(v)
        counts[b] = counts.get(b, 0) + 1
    return [[float(lo), float(hi), n] for (lo, hi), n in sorted(counts.items())]


def nearest_rank_bucket_hi(values, q):
    """The upper bound of the bucket of the value of nearest rank
    ceil(q * n): what a CDF built from the buckets must read at q."""
    s = sorted(values)
    rank = max(1, math.ceil(q * len(s)))
    return float(log_linear_bounds(s[rank - 1])[1])


def synthetic(seed, n):
    """Two modes, as 4 KiB faults and a few 2 MiB ones, with a tail."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.9:
            out.append(int(rng.lognormvariate(math.log(14000), 0.2)))
        elif r < 0.99:
            out.append(int(rng.uniform(40000, 60000)))
        else:
            out.append(int(rng.uniform(1e6, 2e7)))
    return out


class MergeBuckets(unittest.TestCase):
    def test_equal_bounds_add_up_and_the_order_is_kept(self):
        a = [[100.0, 101.0, 3], [2048.0, 2080.0, 5]]
        b = [[64.0, 65.0, 1], [2048.0, 2080.0, 2], [4096.0, 4160.0, 7]]
        self.assertEqual(plot.merge_buckets([a, None, b]), [
            [64.0, 65.0, 1], [100.0, 101.0, 3], [2048.0, 2080.0, 7],
            [4096.0, 4160.0, 7]])

    def test_merged_equals_the_histogram_of_all_values(self):
        v1, v2 = synthetic(1, 3000), synthetic(2, 5000)
        self.assertEqual(plot.merge_buckets([histogram(v1), histogram(v2)]),
                         histogram(v1 + v2))

    def test_nothing_to_merge(self):
        self.assertEqual(plot.merge_buckets([]), [])
        self.assertEqual(plot.merge_buckets([None, []]), [])


class LatencyCdf(unittest.TestCase):
    def test_monotone_from_0_to_exactly_1(self):
        for seed in range(5):
            points = plot.latency_cdf(histogram(synthetic(seed, 10007)))
            xs = [x for x, _ in points]
            fs = [f for _, f in points]
            self.assertEqual(fs[0], 0.0)
            self.assertEqual(fs[-1], 1.0)
            self.assertEqual(xs, sorted(xs))
            self.assertEqual(fs, sorted(fs))
            self.assertTrue(all(0 <= f <= 1 for f in fs))

    def test_quantiles_are_those_of_nearest_rank(self):
        for seed in range(5):
            values = synthetic(seed, 9999)
            points = plot.latency_cdf(histogram(values))
            for q in (0.001, 0.25, 0.5, 0.9, 0.99, 0.999, 1.0):
                self.assertEqual(plot.cdf_quantile(points, q),
                                 nearest_rank_bucket_hi(values, q),
                                 (seed, q))

    def test_a_known_median(self):
        # 10 values at 100 ns, 30 in [200, 204), 60 in [400, 408): the
        # 50th is in the third bucket, the 40th in the second.
        h = [[100.0, 101.0, 10], [200.0, 204.0, 30], [400.0, 408.0, 60]]
        points = plot.latency_cdf(h)
        self.assertEqual(points, [(100.0, 0.0), (101.0, 0.1),
                                  (204.0, 0.4), (408.0, 1.0)])
        self.assertEqual(plot.cdf_quantile(points, 0.5), 408.0)
        self.assertEqual(plot.cdf_quantile(points, 0.4), 204.0)
        self.assertEqual(plot.cdf_quantile(points, 0.1), 101.0)

    def test_an_empty_histogram_has_no_curve(self):
        self.assertEqual(plot.latency_cdf([]), [])
        self.assertEqual(plot.latency_cdf([[100.0, 101.0, 0]]), [])
        self.assertIsNone(plot.cdf_quantile([], 0.5))


def sweep_of(point_runs, layouts=False):
    rows = [{"workers": n, "layout": "", "label": str(n)}
            for n in (1, 2)]
    points = [{"pattern": "shared-vma", "workers": n, "layout": "",
               "label": str(n), "runs": point_runs[k]}
              for k, n in enumerate((1, 2))]
    return types.SimpleNamespace(
        patterns=["shared-vma"], rows=rows, points=points, repeat=2,
        latency=1, host={"kernel": "test"})


class LatencyCdfScript(unittest.TestCase):
    def script(self, c):
        with mock.patch.object(plot, "describe", lambda c: "a sweep"):
            return plot.latency_cdf_script(c, "/tmp/x-latency-cdf", "png")

    def test_one_curve_per_point_from_its_runs_merged(self):
        h1, h2 = histogram(synthetic(7, 500)), histogram(synthetic(8, 700))
        c = sweep_of([[{"lat_buckets": h1}, {"lat_buckets": h2}],
                      [{"lat_buckets": h2}]])
        text, any_data = self.script(c)
        self.assertTrue(any_data)
        self.assertIn("title 'shared-vma, 1 worker'", text)
        self.assertIn("title 'shared-vma, 2 workers'", text)
        self.assertIn("set logscale x 10", text)
        self.assertIn("set output '/tmp/x-latency-cdf.svg'", text)
        blocks = text.split("<< EOD\n")[1:]
        self.assertEqual(len(blocks), 2)
        first = [line.split() for line in
                 blocks[0].split("EOD")[0].strip().splitlines()]
        want = plot.latency_cdf(plot.merge_buckets([h1, h2]))
        self.assertEqual(len(first), len(want))
        self.assertEqual(first[-1][1], "1.000000")
        self.assertAlmostEqual(float(first[-1][0]), want[-1][0] / 1e3,
                               places=3)
        self.assertIn("fraction of the faults timed", text)

    def test_calls_are_named_and_points_without_buckets_left_out(self):
        h = [[2.0e6, 2.1e6, 4]]
        c = sweep_of([[{"lat_buckets": h, "lat_per_call": True}],
                      [{"lat_buckets": None}]])
        text, any_data = self.script(c)
        self.assertTrue(any_data)
        self.assertEqual(text.count("<< EOD"), 1)
        self.assertIn("fraction of the calls timed", text)
        c = sweep_of([[{"lat_buckets": None}], []])
        self.assertFalse(self.script(c)[1])


class RunRecordBuckets(unittest.TestCase):
    POINT = {"pattern": "shared-vma", "workers": 1, "cpus": "0",
             "size": "4M", "layout": ""}

    def record(self, latency):
        obj = {"schema": "pft-run/1", "run": 1, "result": {},
               "latency": latency}
        return runs.run_record(self.POINT, obj, 0)

    def test_kept_when_well_formed(self):
        r = self.record({"count": 3, "per_call": False,
                         "buckets": [[100, 101, 1], [200.0, 204.0, 2]]})
        self.assertEqual(r["lat_buckets"], [[100.0, 101.0, 1],
                                            [200.0, 204.0, 2]])
        self.assertIs(r["lat_per_call"], False)

    def test_none_when_malformed_or_absent(self):
        for bad in ([[100, 101]], [[100, 101, -1]], [[100, 101, 1.5]],
                    [[101, 100, 1]], [["a", 101, 1]], "x",
                    [[100, 101, True]]):
            self.assertIsNone(self.record({"buckets": bad})["lat_buckets"],
                              bad)
        self.assertIsNone(self.record(None)["lat_buckets"])


if __name__ == "__main__":
    unittest.main()
