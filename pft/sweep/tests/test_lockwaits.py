# SPDX-License-Identifier: GPL-2.0-or-later
# test_lockwaits.py - pft --lock-waits in a sweep: a run's read-wait p99
# from pft's JSON line (none where pft did not time them), the metric
# wait-p99 whose lower figure --compare marks (I), the option passed to
# pft (that the metric needs it: cli-sweep-lockpaths.sh), and the one note where pft may not read
# the tracepoints.
#
# Copyright (C) 2026 The libfaultgen authors

import contextlib
import io
import json
import math
import os
import tempfile
import types
import unittest

from pft_sweep import compare, runs, stats, sweep

from .test_compare import write_metric

POINT = {"pattern": "shared-vma", "workers": 2, "cpus": "0-1",
         "size": "16M", "layout": ""}


def side(acq, waits, p99):
    return {"acquisitions": acq, "waits": waits, "total_ns": 9 * p99,
            "p50_ns": p99 // 2, "p99_ns": p99, "p999_ns": p99,
            "max_ns": p99, "buckets": {"<1us": 0}}


def line(lock_waits):
    return json.dumps({"schema": "pft-run/1", "run": 1, "runs": 1,
                       "result": {"pages": 4096},
                       "lock_waits": lock_waits})


TIMED = {"threads": 2, "lost": 0, "unended": 0,
         "read": side(82, 41, 23939719), "write": side(0, 0, 0),
         "faults": 4098, "faults_mmap_read": 80, "retries": 2,
         "most_in_fault": 3, "lower_bounds": False,
         "helpers": {"threads": 2, "lost": 0, "unended": 0,
                     "read": side(4, 1, 5), "write": side(9, 3, 777)}}


class Record(unittest.TestCase):
    def test_the_workers_read_p99(self):
        rec = runs.run_record(POINT, json.loads(line(TIMED)), 0)
        self.assertEqual(rec["lw_read_p99_ns"], 23939719)

    def test_the_workers_faults_one_by_one(self):
        rec = runs.run_record(POINT, json.loads(line(TIMED)), 0)
        self.assertEqual((rec["lw_faults_mmap_read"], rec["lw_retries"]),
                         (80, 2))
        row = dict(zip(runs.RUN_COLUMNS, runs.run_row(rec)))
        self.assertEqual((row["lw_faults_mmap_read"], row["lw_retries"]),
                         (80, 2))
        # A pft before them, not timed, or not counts: empty.
        for lw in (dict(TIMED, retries=None), None,
                   dict(TIMED, retries=-1), dict(TIMED, retries=True)):
            if lw and "retries" in lw and lw["retries"] is None:
                del lw["retries"]
            rec = runs.run_record(POINT, json.loads(line(lw)), 0)
            self.assertIsNone(rec["lw_retries"], lw)

    def test_none_where_not_timed(self):
        for lw in (None, {}, {"read": None}, {"read": {"p99_ns": -1}},
                   {"read": {"p99_ns": True}}, {"read": {"p99_ns": 1.5}}):
            obj = json.loads(line(lw))
            self.assertIsNone(runs.run_record(POINT, obj, 0)[
                "lw_read_p99_ns"], lw)
        obj = json.loads(line(None))
        del obj["lock_waits"]
        self.assertIsNone(runs.run_record(POINT, obj, 0)["lw_read_p99_ns"])

    def test_median_of_a_point_is_the_metric(self):
        recs = []
        for p99 in (300, 100, 200):
            obj = json.loads(line(TIMED))
            obj["lock_waits"]["read"]["p99_ns"] = p99
            recs.append(runs.run_record(POINT, obj, 0))
        c = types.SimpleNamespace(metric="wait-p99", patterns=[
            "shared-vma"], points=[dict(POINT, runs=recs, label="")])
        stats.summarize(c)
        s = c.points[0]["stats"]
        self.assertEqual(s["median"], 200)
        self.assertEqual(s["lw_read_p99_ns_median"], 200)
        self.assertEqual(s["lw_retries_median"], 2)
        self.assertEqual(s["lw_faults_mmap_read_median"], 80)
        row = dict(zip(runs.POINT_COLUMNS, list(runs.point_rows(c))[0]))
        self.assertEqual((row["lw_faults_mmap_read_median"],
                          row["lw_retries_median"]), ("80", "2"))
        self.assertEqual((s["min"], s["max"]), (100, 300))


class Compare(unittest.TestCase):
    BASE = [20000 * math.exp(x) for x in (-0.1, 0.0, 0.1)]

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def mark(self, factor):
        a = os.path.join(self.tmp.name, "a")
        b = os.path.join(self.tmp.name, "b%g" % factor)
        write_metric(a, "lw_read_p99_ns", self.BASE)
        write_metric(b, "lw_read_p99_ns", [v * factor for v in self.BASE])
        table = compare.compare_table([
            runs.load_sweep(a, "base", "wait-p99"),
            runs.load_sweep(b, "new", "wait-p99")])
        return table[0]["tests"][1]["mark"]

    def test_shorter_waits_improve(self):
        self.assertEqual(self.mark(0.5), "I")
        self.assertEqual(self.mark(2.0), "R")
        self.assertEqual(self.mark(1.0), "")
        self.assertEqual(compare.marks("wait-p99")["I"], "lower than base")


class Command(unittest.TestCase):
    def config(self, lock_waits):
        return types.SimpleNamespace(
            pft_path="pft", interleave=True, repeat=3, mode="duration",
            duration=1.0, warmup=1, latency=None, extra=[],
            pretouch_options=[], lock_paths=False, lock_waits=lock_waits,
            pattern_table={})

    def test_lock_waits_passed_to_pft(self):
        self.assertIn("--lock-waits", sweep.pft_command(
            self.config(True), "shared-vma", 2, "16M", None))
        self.assertNotIn("--lock-waits", sweep.pft_command(
            self.config(False), "shared-vma", 2, "16M", None))

    def test_notes_said_once_each(self):
        c = self.config(True)
        err = io.StringIO()
        waits = ("pft: note: lock waits not timed: tracefs "
                 "(/sys/kernel/tracing) or the tracepoints may not be read")
        paths = waits.replace("lock waits not timed", "lock paths not counted")
        with contextlib.redirect_stderr(err):
            sweep.note_lock_paths(c, "warning: other\n" + waits)
            sweep.note_lock_paths(c, waits + "\n" + paths)
            sweep.note_lock_paths(c, paths)
        lines = err.getvalue().splitlines()
        self.assertEqual(len(lines), 2)
        self.assertIn("--lock-waits: the lock-wait columns stay empty: "
                      "tracefs", lines[0])
        self.assertIn("--lock-paths: the lock-path columns stay empty",
                      lines[1])


if __name__ == "__main__":
    unittest.main()
