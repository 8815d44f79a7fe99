# SPDX-License-Identifier: GPL-2.0-or-later
# test_runs.py - the runs schema of pft_sweep.runs: a pft record made a
# run, the rows of the runs and points CSV files, and the files read back
# (runs CSV, points CSV, JSON document) as --compare reads them.
#
# Copyright (C) 2026 The libfaultgen authors

import csv
import json
import os
import tempfile
import types
import unittest

from pft_sweep import runs

from .fakesys import write_runs


def pft_record(run, legacy=True, sampled=2):
    rec = {"schema": "pft-run/1", "run": run, "result": {
        "pages": 1024, "rounds": 4, "minflt": 1030, "faults_agree": True,
        "elapsed_s": 0.5, "fault_s": 0.25, "user_s": 0.0, "sys_s": 0.125,
        "start_skew_s": 0.000001, "faults_per_wall_s": 2060.0,
        "round_rate_median": 2100.0, "round_rate_min": 2000.0,
        "round_rate_max": 2200.0, "rounds_sampled": sampled,
        "pages_per_wall_s": 2048.0, "pages_per_cpu_s": 8192.0}}
    if legacy:
        rec["legacy"] = {"fault_per_wsec": 2047.5, "flt_per_cpu_s": 8190.0,
                         "line": "legacy line"}
    return rec


POINT = {"pattern": "shared-vma", "workers": 2, "cpus": "0-1",
         "size": "4M", "layout": ""}


class RunRecord(unittest.TestCase):
    def test_fields_and_numbering(self):
        r = runs.run_record(POINT, pft_record(3), 1)
        self.assertEqual(r["run"], 2)
        self.assertEqual((r["pattern"], r["workers"], r["cpus"]),
                         ("shared-vma", 2, "0-1"))
        self.assertEqual(r["fault_per_wsec"], 2047.5)
        self.assertEqual(r["flt_per_cpu_s"], 8190.0)
        self.assertEqual(r["round_rate_median"], 2100.0)
        self.assertEqual(r["legacy_line"], "legacy line")

    def test_one_shot_has_no_round_rates(self):
        r = runs.run_record(POINT, pft_record(1, sampled=0), 0)
        self.assertIsNone(r["round_rate_median"])
        self.assertIsNone(r["round_rate_min"])
        self.assertIsNone(r["round_rate_max"])

    def test_without_legacy_figures(self):
        r = runs.run_record(POINT, pft_record(1, legacy=False), 0)
        self.assertEqual(r["fault_per_wsec"], 2048.0)
        self.assertEqual(r["flt_per_cpu_s"], 8192.0)
        self.assertIsNone(r["legacy_line"])

    def test_latency_percentiles_when_pft_timed(self):
        rec = pft_record(1)
        r = runs.run_record(POINT, rec, 0)
        self.assertIsNone(r["lat_p50_ns"])
        self.assertIsNone(r["lat_p99_ns"])
        self.assertIsNone(r["lat_count"])
        rec["latency"] = {"count": 1024, "p50_ns": 1500.0,
                          "p99_ns": 9000.0, "buckets": []}
        r = runs.run_record(POINT, rec, 0)
        self.assertEqual((r["lat_count"], r["lat_p50_ns"], r["lat_p99_ns"]),
                         (1024, 1500.0, 9000.0))
        rec["latency"]["p99_ns"] = "fast"
        self.assertIsNone(runs.run_record(POINT, rec, 0)["lat_p99_ns"])

    def test_latency_metrics_read_the_runs_percentiles(self):
        self.assertEqual(runs.METRICS["p50"][0], "lat_p50_ns")
        self.assertEqual(runs.METRICS["p99"][0], "lat_p99_ns")
        for m in runs.LATENCY_METRICS:
            self.assertIn(runs.METRICS[m][0], runs.RUN_COLUMNS)


class Rows(unittest.TestCase):
    def test_run_row_formats(self):
        rec = runs.run_record(POINT, pft_record(1), 0)
        c = types.SimpleNamespace(points=[{"runs": [rec]}])
        row = dict(zip(runs.RUN_COLUMNS, list(runs.run_rows(c))[0]))
        self.assertEqual(row["faults_agree"], 1)
        self.assertEqual(row["elapsed_s"], "0.500000000")
        self.assertEqual(row["start_skew_s"], "0.000001000")
        self.assertEqual(row["fault_per_wsec"], "2047.500")
        self.assertEqual(row["pages"], 1024)
        self.assertEqual(row["layout"], "")

    def test_point_row(self):
        c = types.SimpleNamespace(metric="legacy", points=[
            {"pattern": "processes", "workers": 4, "cpus": "", "size": "1G",
             "layout": "l3:1x4", "label": "1 L3 domain, 4 workers",
             "runs": [{}, {}], "ratio": 0.5, "stats": {
                 "median": 10.0, "min": 9.0, "max": 12.0,
                 "spread_pct": 30.0, "fault_per_wsec_median": 10.0,
                 "round_rate_median": None, "faults_per_wall_s_median": 11,
                 "flt_per_cpu_s_median": 1.5,
                 "start_skew_s_median": 0.0000025}},
            {"pattern": "shared-vma", "workers": 4, "stats": None}])
        rows = list(runs.point_rows(c))
        self.assertEqual(len(rows), 1)
        row = dict(zip(runs.POINT_COLUMNS, rows[0]))
        self.assertEqual(row["runs"], 2)
        self.assertEqual(row["median"], "10.000")
        self.assertEqual(row["spread_pct"], "30.00")
        self.assertEqual(row["ratio"], "0.5000")
        self.assertEqual(row["round_rate_median"], "")
        self.assertEqual(row["start_skew_s_median"], "0.000002500")
        self.assertEqual(row["label"], "1 L3 domain, 4 workers")


class ReadBack(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)

    def test_runs_csv(self):
        prefix = self.path("a")
        write_runs(prefix, [("shared-vma", 1, "", [90.0, 120.0, 100.0]),
                            ("shared-vma", 7, "l3:7x1", [10.0, 30.0])])
        with open(prefix + "-runs.csv") as f:
            self.assertEqual(next(csv.reader(f)), runs.RUN_COLUMNS)
        for arg in (prefix, prefix + "-runs.csv"):
            s = runs.load_sweep(arg, "base")
            self.assertEqual(s.metric, "legacy")
            self.assertIsNone(s.interleaved)
            p = s.points[("shared-vma", "1")]
            self.assertEqual((p["median"], p["min"], p["max"]),
                             (100.0, 90.0, 120.0))
            self.assertAlmostEqual(p["spread"], 30.0)
            self.assertEqual(p["values"], [90.0, 120.0, 100.0])
            lay = s.points[("shared-vma", "l3:7x1")]
            self.assertEqual((lay["workers"], lay["median"]), (7, 20.0))

    def test_points_csv_and_json(self):
        prefix = self.path("b")
        runs.write_csv(prefix + ".csv", runs.POINT_COLUMNS, [
            ["per-thread-vma", 2, "", "1G", 3, "round", "50.000", "40.000",
             "60.000", "40.00", "1.0000", "", "", "", "", "", "", ""]])
        s = runs.load_sweep(prefix + ".csv", "new")
        self.assertEqual(s.metric, "round")
        p = s.points[("per-thread-vma", "2")]
        self.assertEqual((p["median"], p["spread"], p["values"]),
                         (50.0, 40.0, None))
        doc = {"schema": runs.SCHEMA, "host": {"kernel": "6.1"},
               "config": {"interleave": True, "metric": "round"},
               "points": [{"pattern": "per-thread-vma", "workers": 2,
                           "layout": "", "label": "", "runs": [
                               {"round_rate_median": 45.0},
                               {"round_rate_median": 55.0}]}]}
        with open(prefix + ".json", "w") as f:
            json.dump(doc, f)
        s = runs.load_sweep(prefix, "new")
        self.assertEqual(s.host, {"kernel": "6.1"})
        self.assertTrue(s.interleaved)
        self.assertEqual(s.files, {"points": prefix + ".csv",
                                   "json": prefix + ".json"})
        # The points CSV gives the median, the JSON the runs' figures.
        p = s.points[("per-thread-vma", "2")]
        self.assertEqual((p["median"], p["values"]), (50.0, [45.0, 55.0]))

    def test_errors(self):
        other = self.path("other.csv")
        with open(other, "w") as f:
            f.write("a,b\n1,2\n")
        cases = (
            (self.path("none"), "cannot read %s: No such file or directory"
             % self.path("none")),
            (other, "%s: not a pft-sweep CSV (no median or fault_per_wsec "
             "column)" % other),
        )
        for arg, text in cases:
            with self.assertRaises(RuntimeError) as e:
                runs.load_sweep(arg, "x")
            self.assertEqual(str(e.exception), text)
        bad = self.path("bad")
        write_runs(bad, [("shared-vma", "two", "", [1.0])])
        with self.assertRaises(RuntimeError) as e:
            runs.load_sweep(bad, "x")
        self.assertEqual(str(e.exception), "%s-runs.csv: row 1: workers "
                         "\"two\" is not a count of workers" % bad)


if __name__ == "__main__":
    unittest.main()


class QemuFigures(unittest.TestCase):
    """qemu-prealloc's "figures", each {"value", "unit"}, a run's own
    columns; None in the runs of the other patterns."""

    def test_figures_taken(self):
        rec = pft_record(1, sampled=0)
        rec["figures"] = {
            "threads": {"value": 4, "unit": "threads"},
            "threads_started": {"value": 3, "unit": "threads"},
            "populate": {"value": True, "unit": "bool"},
            "step_bytes": {"value": 4096, "unit": "bytes"},
            "probe_faults": {"value": 1, "unit": "faults"},
            "process_faults": {"value": 65544, "unit": "faults"},
            "prealloc_s": {"value": 0.25, "unit": "s"},
            "huge_page_bytes": {"value": 0, "unit": "bytes"}}
        r = runs.run_record(POINT, rec, 0)
        self.assertEqual((r["threads"], r["threads_started"],
                          r["process_faults"], r["prealloc_s"]),
                         (4, 3, 65544, 0.25))
        self.assertIs(r["populate"], True)
        row = dict(zip(runs.RUN_COLUMNS, runs.run_row(r)))
        self.assertEqual((row["threads"], row["populate"],
                          row["prealloc_s"]), (4, 1, "0.250000000"))

    def test_none_without_figures(self):
        r = runs.run_record(POINT, pft_record(1), 0)
        for k in runs.QEMU_FIGURES:
            self.assertIsNone(r[k])
        rec = pft_record(1)
        rec["figures"] = {"threads": 4, "prealloc_s": {"value": "slow"}}
        r = runs.run_record(POINT, rec, 0)
        self.assertIsNone(r["threads"])
        self.assertIsNone(r["prealloc_s"])
