# SPDX-License-Identifier: GPL-2.0-or-later
# test_lockpaths.py - pft --lock-paths in a sweep: a run's counts from
# pft's JSON line (and none where pft did not count them), the fallbacks
# per user fault as a metric whose lower figure --compare marks (I), and
# the one note where pft may not read the tracepoints.
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

from pft_sweep import compare, plot, report, runs, stats, sweep

POINT = {"pattern": "shared-vma", "workers": 2, "cpus": "0-1",
         "size": "16M", "layout": ""}

# A run's line as pft --json --lock-paths prints it (trimmed to the
# members read here), as root on a kernel with per-VMA locks.
COUNTED = ('{"schema":"pft-run/1","run":1,"runs":1,"result":{"pages":4096,'
           '"minflt":4100,"elapsed_s":0.01},"lock_paths":{"threads":2,'
           '"user_faults":4096,"kernel_faults":0,"gup_faults":0,'
           '"mmap_read":3,"mmap_read_trylock_failed":0,"mmap_write":0,'
           '"fallbacks":2,"zap_mmap_read":1,"zap_mmap_write":0,"helpers":'
           '{"threads":0,"user_faults":0,"kernel_faults":0,"gup_faults":0,'
           '"mmap_read":0,"mmap_read_trylock_failed":0,"mmap_write":0,'
           '"fallbacks":0,"zap_mmap_read":0,"zap_mmap_write":0}}}')
# Unprivileged: asked, not counted.
NOT_COUNTED = ('{"schema":"pft-run/1","run":1,"runs":1,"result":'
               '{"pages":4096},"lock_paths":null}')


class RunCounts(unittest.TestCase):
    def test_counts_of_the_workers(self):
        r = runs.run_record(POINT, json.loads(COUNTED), 0)
        self.assertEqual((r["lp_user_faults"], r["lp_mmap_read"],
                          r["lp_fallbacks"]), (4096, 3, 2))
        self.assertEqual(r["lp_fallbacks_per_fault"], 2 / 4096)
        row = dict(zip(runs.RUN_COLUMNS, runs.run_row(r)))
        self.assertEqual(row["lp_fallbacks"], 2)
        self.assertEqual(float(row["lp_fallbacks_per_fault"]), 2 / 4096)

    def test_none_where_not_counted(self):
        for obj in (json.loads(NOT_COUNTED), {"run": 1}):
            r = runs.run_record(POINT, obj, 0)
            for k in ("lp_user_faults", "lp_mmap_read", "lp_fallbacks",
                      "lp_fallbacks_per_fault"):
                self.assertIsNone(r[k], k)

    def test_no_user_faults_no_ratio(self):
        obj = json.loads(COUNTED)
        obj["lock_paths"]["user_faults"] = 0
        self.assertIsNone(runs.run_record(POINT, obj, 0)
                          ["lp_fallbacks_per_fault"])
        obj["lock_paths"]["fallbacks"] = -1
        self.assertIsNone(runs.run_record(POINT, obj, 0)["lp_fallbacks"])

    def test_medians_of_a_point(self):
        recs = []
        for fb in (1, 7, 3):
            obj = json.loads(COUNTED)
            obj["lock_paths"]["fallbacks"] = fb
            recs.append(runs.run_record(POINT, obj, 0))
        c = types.SimpleNamespace(metric="fallbacks", patterns=[
            "shared-vma"], points=[dict(POINT, runs=recs)])
        stats.summarize(c)
        s = c.points[0]["stats"]
        self.assertEqual(s["lp_fallbacks_median"], 3)
        self.assertEqual(s["lp_user_faults_median"], 4096)
        self.assertEqual(s["median"], 3 / 4096)


def write_fallbacks(prefix, rates):
    """A runs CSV of one point whose runs fell back at these rates."""
    recs = [{"pattern": "shared-vma", "workers": 2, "cpus": "",
             "size": "1G", "layout": "", "run": i, "fault_per_wsec": 1e5,
             "lp_user_faults": 100000, "lp_fallbacks_per_fault": v}
            for i, v in enumerate(rates, 1)]
    c = types.SimpleNamespace(points=[{"runs": recs}])
    runs.write_csv(prefix + "-runs.csv", runs.RUN_COLUMNS,
                   list(runs.run_rows(c)))


class CompareFallbacks(unittest.TestCase):
    BASE = [0.01 * math.exp(x) for x in (-0.1, 0.0, 0.1)]

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def mark(self, factor, metric="fallbacks"):
        a = os.path.join(self.tmp.name, "a")
        b = os.path.join(self.tmp.name, "b%g" % factor)
        write_fallbacks(a, self.BASE)
        write_fallbacks(b, [v * factor for v in self.BASE])
        table = compare.compare_table([runs.load_sweep(a, "base", metric),
                                       runs.load_sweep(b, "new", metric)])
        return table[0]["tests"][1]["mark"]

    def test_fewer_fallbacks_improve(self):
        self.assertEqual(self.mark(0.5), "I")
        self.assertEqual(self.mark(2.0), "R")
        self.assertEqual(self.mark(1.0), "")

    def test_rates_keep_their_direction(self):
        # The same files compared by fault/wsec: equal, no mark.
        self.assertEqual(self.mark(0.5, "legacy"), "")
        self.assertEqual(compare.marks("fallbacks")["I"], "lower than base")
        self.assertEqual(compare.marks("legacy")["I"], "higher than base")

    def test_plot_keeps_the_fractions(self):
        a = os.path.join(self.tmp.name, "a")
        write_fallbacks(a, [0.0, 0.00025, 0.0005])
        s = runs.load_sweep(a, "base", "fallbacks")
        table = compare.compare_table([s])
        text, any_data = plot.compare_plot_script(
            table, ["base"], "fallbacks", "out", "png")
        self.assertTrue(any_data)
        # The median, and the least run's 0 as its own bar end.
        self.assertIn("\n2 0.00025 0 0.0005\n", text)
        self.assertIn("fallbacks per user fault", text)

    def test_plain_table_names_the_direction(self):
        a = os.path.join(self.tmp.name, "a")
        b = os.path.join(self.tmp.name, "b")
        write_fallbacks(a, self.BASE)
        write_fallbacks(b, [v / 4 for v in self.BASE])
        out = io.StringIO()
        with contextlib.redirect_stdout(out), \
                contextlib.redirect_stderr(io.StringIO()):
            from pft_sweep import cli
            rc = cli.main(["--compare", a, b, "--metric=fallbacks",
                           "--pft=" + os.path.join(self.tmp.name, "none")])
        self.assertEqual(rc, 0)
        text = out.getvalue()
        self.assertIn("fallbacks per user fault", text)
        self.assertIn("(I)/(R): lower/higher than base", text)
        self.assertIn("0.010000", text)
        self.assertIn("0.002500 (I)", text)


class Table(unittest.TestCase):
    def table(self, line):
        rec = runs.run_record(POINT, json.loads(line), 0)
        c = types.SimpleNamespace(
            metric="fallbacks", patterns=["shared-vma"], latency=None,
            lock_paths=True, rows=[{"layout": "", "label": "",
                                    "workers": 2}],
            points=[dict(POINT, runs=[rec], status=0)])
        stats.summarize(c)
        return report.sweep_table(c)

    def test_counted(self):
        header, rows = self.table(COUNTED)
        self.assertEqual(header[-3:], ["shared-vma user faults", "mmap read",
                                       "fallbacks"])
        self.assertEqual(rows, [["2", "0.000488", "0.0%", "4096", "3",
                                 "2"]])

    def test_not_counted(self):
        header, rows = self.table(NOT_COUNTED)
        self.assertEqual(rows, [["2", "not counted", "-", "-", "-", "-"]])


class Command(unittest.TestCase):
    def config(self, lock_paths):
        return types.SimpleNamespace(
            pft_path="pft", interleave=True, repeat=3, mode="duration",
            duration=1.0, warmup=1, latency=None, extra=[],
            pretouch_options=[], lock_paths=lock_paths, pattern_table={})

    def test_lock_paths_passed_to_pft(self):
        self.assertIn("--lock-paths", sweep.pft_command(
            self.config(True), "shared-vma", 2, "16M", None))
        self.assertNotIn("--lock-paths", sweep.pft_command(
            self.config(False), "shared-vma", 2, "16M", None))

    def test_note_said_once(self):
        c = self.config(True)
        err = io.StringIO()
        note = ("pft: note: lock paths not counted: tracefs "
                "(/sys/kernel/tracing) or the tracepoints may not be read")
        with contextlib.redirect_stderr(err):
            sweep.note_lock_paths(c, "warning: other\n" + note)
            sweep.note_lock_paths(c, note)
        lines = err.getvalue().splitlines()
        self.assertEqual(len(lines), 1)
        self.assertIn("lock-path columns stay empty: tracefs", lines[0])


if __name__ == "__main__":
    unittest.main()
