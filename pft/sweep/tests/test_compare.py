# SPDX-License-Identifier: GPL-2.0-or-later
# test_compare.py - --compare from pft_sweep.compare: the rows and their
# order, the gains, the marks where Welch's test says so (and none for
# sweeps whose runs were not interleaved), the long records of the CSV
# and JSON, the warnings about what else differs, and the command end to
# end on runs files written in the package's schema.
#
# Copyright (C) 2026 The libfaultgen authors

import contextlib
import csv
import io
import json
import math
import os
import tempfile
import unittest

from pft_sweep import cli, compare, runs

from .fakesys import write_runs

BASE = [1e5 * math.exp(x) for x in (-0.1, 0.0, 0.1)]


def shifted(d):
    return [v * math.exp(d) for v in BASE]


class Table(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.a = os.path.join(self.tmp.name, "a")
        self.b = os.path.join(self.tmp.name, "b")
        write_runs(self.a, [("shared-vma", 1, "", BASE),
                            ("shared-vma", 4, "", BASE),
                            ("shared-vma", 2, "", BASE),
                            ("per-thread-vma", 1, "", BASE)])
        write_runs(self.b, [("shared-vma", 1, "", shifted(0.3)),
                            ("shared-vma", 2, "", shifted(-0.3)),
                            ("shared-vma", 4, "", BASE[::-1]),
                            ("processes", 1, "", [5.0, 6.0])])

    def tearDown(self):
        self.tmp.cleanup()

    def sweeps(self):
        return [runs.load_sweep(self.a, "base"),
                runs.load_sweep(self.b, "new")]

    def test_rows_gains_marks(self):
        table = compare.compare_table(self.sweeps())
        got = [(r["pattern"], r["point"]) for r in table]
        self.assertEqual(got, [("shared-vma", "1"), ("shared-vma", "2"),
                               ("shared-vma", "4"), ("per-thread-vma", "1"),
                               ("processes", "1")])
        marks = [r["tests"][1] and r["tests"][1]["mark"] for r in table]
        self.assertEqual(marks, ["I", "R", "", None, None])
        self.assertAlmostEqual(table[0]["tests"][1]["gain"],
                               math.exp(0.3) - 1, places=6)
        self.assertAlmostEqual(table[1]["tests"][1]["gain"],
                               math.exp(-0.3) - 1, places=6)
        self.assertAlmostEqual(table[2]["tests"][1]["gain"], 0.0, places=9)
        # A point of one sweep only: its cell in the other is empty.
        self.assertIsNone(table[3]["cells"][1])
        self.assertIsNone(table[4]["cells"][0])
        self.assertEqual(table[4]["workers"], 1)

    def test_not_interleaved_no_marks(self):
        sweeps = self.sweeps()
        sweeps[1].interleaved = False
        self.assertFalse(compare.testable(sweeps[1]))
        table = compare.compare_table(sweeps)
        self.assertEqual([r["tests"][1] and r["tests"][1]["mark"]
                          for r in table], ["", "", "", None, None])
        self.assertIsNone(table[0]["tests"][1]["welch"])
        self.assertAlmostEqual(table[0]["tests"][1]["gain"],
                               math.exp(0.3) - 1, places=6)

    def test_records(self):
        table = compare.compare_table(self.sweeps())
        recs = list(compare.compare_records(table, ["base", "new"]))
        self.assertEqual(len(recs), 2 * len(table))
        first_new = recs[1]
        self.assertEqual((first_new["point"], first_new["sweep"],
                          first_new["name"], first_new["runs"],
                          first_new["mark"]), ("1", 1, "new", 3, "I"))
        half = 2.776445 * 0.1 * math.sqrt(2 / 3)
        self.assertAlmostEqual(first_new["ci_low_pct"],
                               (math.exp(0.3 - half) - 1) * 100, places=3)
        self.assertAlmostEqual(first_new["gain_pct"],
                               (math.exp(0.3) - 1) * 100, places=4)
        base = recs[0]
        self.assertIsNone(base["gain_pct"])
        self.assertIsNone(base["mark"])
        out = io.StringIO()
        compare.compare_csv(table, ["base", "new"], out)
        rows = list(csv.reader(io.StringIO(out.getvalue())))
        self.assertEqual(rows[0], compare.COMPARE_COLUMNS)
        self.assertEqual(len(rows), 1 + len(recs))

    def test_keys_of_layouts_in_order_of_appearance(self):
        a = runs.Sweep("a", "base")
        for key in ("l3:7x1", "l3:1x7"):
            a.points[("shared-vma", key)] = {"workers": 7}
        self.assertEqual(compare.compare_keys([a]),
                         [("shared-vma", "l3:7x1"), ("shared-vma", "l3:1x7")])

    def test_command(self):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            # --compare runs no pft: a missing one does not matter.
            rc = cli.main(["--compare", self.a, self.b, "--format=csv",
                           "--pft=" + os.path.join(self.tmp.name, "none")])
        self.assertEqual(rc, 0)
        rows = list(csv.DictReader(io.StringIO(out.getvalue())))
        self.assertEqual([(r["point"], r["mark"]) for r in rows
                          if r["sweep"] == "1" and r["pattern"] ==
                          "shared-vma"], [("1", "I"), ("2", "R"), ("4", "")])
        self.assertIn("pft-sweep: warning: base (%s): no JSON file" % self.a,
                      err.getvalue())


class SingleRuns(unittest.TestCase):
    """Against a sweep stopped early: its points of one run are marked
    (n=1) and a warning says why there is no significance."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.a = os.path.join(self.tmp.name, "a")
        self.b = os.path.join(self.tmp.name, "b")
        write_runs(self.a, [("shared-vma", 1, "", BASE),
                            ("shared-vma", 2, "", BASE)])
        doc = sweep_doc([], stopped="SIGINT")
        doc["config"]["repeat"] = 3
        doc["points"] = [
            {"pattern": "shared-vma", "workers": 1, "layout": "",
             "label": "", "runs": [{"fault_per_wsec": 1.4e5}]},
            {"pattern": "shared-vma", "workers": 2, "layout": "",
             "label": "", "runs": [{"fault_per_wsec": v}
                                   for v in shifted(0.3)]}]
        with open(self.b + ".json", "w") as f:
            json.dump(doc, f)

    def test_marks_and_warning(self):
        rc, out, err = run_main("--compare", self.a, self.b)
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        self.assertIn("; (n=1): a single run, no significance", lines[0])
        self.assertRegex(lines[2], r"^shared-vma +1 +100000 +140000 \(n=1\) "
                         r"+\+40\.0%")
        self.assertRegex(lines[3], r"^shared-vma +2 +100000 +134986 \(I\) ")
        self.assertIn("pft-sweep: warning: new (%s): stopped by SIGINT "
                      "before its end; 1 of its 2 points have fewer runs "
                      "than the 3 asked; 1 point has a single run, marked "
                      "(n=1): no significance there (the test needs 2 runs "
                      "a side)\n" % self.b, err)
        rc, out, err = run_main("--compare", self.a, self.b, "--format=email")
        self.assertIn("140.000K (n=1)", out)
        self.assertIn("\n(n=1): a single run, no significance\n", out)
        rc, out, err = run_main("--compare", self.a, self.b, "--format=json")
        doc = strict_json(out)
        self.assertEqual(doc["sweeps"][1]["stopped"], "SIGINT")
        self.assertEqual([(r["point"], r["runs"]) for r in doc["rows"]
                          if r["sweep"] == 1], [("1", 1), ("2", 3)])


def sweep(name, host, config):
    s = runs.Sweep(name, name)
    s.host, s.config = host, config
    return s


class Warnings(unittest.TestCase):
    HOST = {"kernel": "6.1", "hostname": "h", "thp": {"enabled": "madvise"},
            "cmdline": "BOOT_IMAGE=/vmlinuz-6.1 root=/dev/sda quiet"}

    def test_another_kernel_alone_is_silent(self):
        new = dict(self.HOST, kernel="6.2",
                   cmdline="BOOT_IMAGE=/vmlinuz-6.2 root=/dev/sda quiet")
        self.assertEqual(compare.fact_warnings(
            [sweep("base", self.HOST, {"size": "1G"}),
             sweep("new", new, {"size": "1G"})]), [])

    def test_differences(self):
        new = dict(self.HOST, thp={"enabled": "always"},
                   cmdline="root=/dev/sda quiet mitigations=off")
        warns = compare.fact_warnings(
            [sweep("base", self.HOST, {"size": "1G"}),
             sweep("new", new, {"size": "4G"})])
        self.assertEqual(sorted(warns), sorted([
            "new differs from base in kernel command line: root=/dev/sda "
            "quiet mitigations=off against root=/dev/sda quiet",
            "new differs from base in THP settings (enabled): always "
            "against madvise",
            "new differs from base in the sweep's size: 4G against 1G"]))

    def test_unknown_and_old_hosts(self):
        warns = compare.fact_warnings(
            [sweep("base", None, None), sweep("new", {"kernel": "6.1"}, {})])
        self.assertEqual(warns, [
            "base (base): no JSON file, so what it ran on is not known and "
            "not checked",
            "new (new): its JSON file records only the kernel and host name "
            "(an older pft-sweep)"])


def run_main(*args):
    """cli.main's exit status, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = cli.main(list(args))
        except SystemExit as e:
            rc = e.code
    return rc, out.getvalue(), err.getvalue()


def strict_json(text):
    def refuse(name):
        raise ValueError("%s in the JSON" % name)
    return json.loads(text, parse_constant=refuse)


def sweep_doc(values, **extra):
    doc = {"schema": runs.SCHEMA, "host": {"kernel": "6.1"},
           "config": {"metric": "legacy", "interleave": True, "repeat": 3},
           "points": [{"pattern": "shared-vma", "workers": 1, "layout": "",
                       "label": "", "runs": [{"run": i, "fault_per_wsec": v}
                                             for i, v in enumerate(values,
                                                                   1)]}]}
    doc.update(extra)
    return doc


class Malformed(unittest.TestCase):
    """Every malformed input is one line naming the file and what is
    wrong, exit 1; odd but valid figures give no traceback, and the JSON
    written is strict (null where a figure cannot be computed)."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.base = os.path.join(self.tmp.name, "base")
        write_runs(self.base, [("shared-vma", 1, "", BASE)])

    def write(self, name, text):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            f.write(text if isinstance(text, str) else json.dumps(text))
        return path

    def refused(self, name, text, words):
        path = self.write(name, text)
        rc, out, err = run_main("--compare", self.base, path)
        self.assertEqual((rc, out), (1, ""), err)
        self.assertNotIn("Traceback", err)
        self.assertEqual(err.count("\n"), 1, err)
        self.assertTrue(err.startswith("pft-sweep: %s: " % path) or
                        err.startswith("pft-sweep: cannot read %s" % path),
                        err)
        self.assertIn(words, err)

    def test_json_documents(self):
        good = sweep_doc(BASE)
        self.refused("config.json", dict(good, config=[1, 2]),
                     '"config" is an array, not an object')
        self.refused("host.json", dict(good, host="h"),
                     '"host" is a string, not an object')
        self.refused("array.json", [1, 2],
                     "the document is an array, not an object")
        self.refused("points.json", dict(good, points=[1]),
                     '"points"[0] is a number, not an object')
        self.refused("points2.json", dict(good, points={}),
                     '"points" is an object, not an array')
        self.refused("runs.json", dict(good, points=[{"runs": 5}]),
                     '"points"[0]."runs" is a number, not an array')
        self.refused("truncated.json", json.dumps(good)[:40],
                     "not a JSON document")
        self.refused("nan.json", json.dumps(sweep_doc([1.0, float("nan")])),
                     "NaN is not a number JSON allows")
        self.refused("inf.json", json.dumps(sweep_doc([float("inf")])),
                     "Infinity is not a number JSON allows")
        self.refused("deep.json", "[" * 100000 + "]" * 100000,
                     "not a JSON document")
        self.refused("deephost.json", dict(good, host={"a": json.loads(
            "[" * 500 + "]" * 500)}), '"host" nests too deeply')
        self.refused("metric.json", dict(good, config={"metric": ["x"]}),
                     '"config"."metric" ["x"] is not one of')
        self.refused("repeat.json", dict(good, config={"repeat": "5"}),
                     '"config"."repeat" is a string, not a count')
        self.refused("schema.json", dict(good, schema="pft-sweep-compare/1"),
                     'schema "pft-sweep-compare/1" is not a sweep\'s')
        self.refused("workers.json", sweep_doc(BASE, points=[
            {"pattern": "shared-vma", "workers": True,
             "runs": [{"fault_per_wsec": 1.0}]}]),
            'workers true is not a count of workers')
        self.refused("pattern.json", sweep_doc(BASE, points=[
            {"pattern": 7, "workers": 1,
             "runs": [{"fault_per_wsec": 1.0}]}]), "no pattern")
        self.refused("figure.json", sweep_doc(["fast", 1.0]),
                     'fault_per_wsec "fast" is not a rate')
        self.refused("negative.json", sweep_doc([-1.0, 1.0]),
                     "fault_per_wsec -1.0 is not a rate")
        self.refused("empty.json", "", "an empty file")
        self.refused("100%.json", sweep_doc(["fast"]),
                     'fault_per_wsec "fast" is not a rate')

    def test_csv_files(self):
        head = ",".join(runs.POINT_COLUMNS) + "\n"
        row = "shared-vma,1,,1G,3,legacy,%s,1,2,1,,,,,,,,\n"
        self.refused("empty.csv", "", "an empty file")
        self.refused("blank.csv", "\n\n", "an empty file")
        self.refused("nan.csv", head + row % "nan",
                     'row 1: median "nan" is not a rate')
        self.refused("inf.csv", head + row % "inf",
                     'row 1: median "inf" is not a rate')
        self.refused("big.csv", head + row % "1e999",
                     'row 1: median "1e999" is not a rate')
        self.refused("text.csv", head + row % "fast",
                     'row 1: median "fast" is not a rate')
        self.refused("nomedian.csv", head + row % "", "row 1: no median")
        self.refused("short.csv", head + "shared-vma\n",
                     "row 1: workers null is not a count of workers")
        self.refused("workers.csv", head + row.replace(",1,", ",²,", 1) %
                     "5", 'row 1: workers "\\u00b2" is not a count')
        self.refused("metric.csv", head + row.replace("legacy", "best") %
                     "5", 'metric "best" is not one of')
        runs_head = ",".join(runs.RUN_COLUMNS) + "\n"
        self.refused("r-runs.csv", runs_head + "shared-vma,1,,1G,1,,,,,,,,,,"
                     "NaN,,,,,,\n", 'row 1: fault_per_wsec "NaN" is not '
                     'a rate')

    def test_a_directory_and_a_gnuplot_that_is_one(self):
        rc, out, err = run_main("--compare", self.base, self.tmp.name)
        self.assertEqual((rc, err), (1, "pft-sweep: cannot read %s: a "
                                        "directory, not a sweep's file or "
                                        "prefix\n" % self.tmp.name))
        out = os.path.join(self.tmp.name, "cmp")
        rc, text, err = run_main("--compare", self.base, self.base, "-o", out,
                                 "--gnuplot=" + self.tmp.name)
        self.assertEqual(rc, 0, err)
        self.assertIn("pft-sweep: gnuplot not found: no plot", err)
        self.assertTrue(os.path.exists(out + ".json"))

    def test_extreme_rates(self):
        """1e-320 against 1e5, and rates near the largest float: no
        traceback, gains that cannot be computed are null, and the JSON
        written is strict."""
        tiny = self.write("tiny.json", sweep_doc([1e-320, 2e-320, 3e-320]))
        huge = self.write("huge.json", sweep_doc([1e308, 1.7e308, 1.79e308]))
        norm = self.write("norm.json", sweep_doc([1e5, 1.1e5, 0.9e5]))
        out = os.path.join(self.tmp.name, "cmp")
        for a, b in ((tiny, norm), (norm, tiny), (tiny, huge), (huge, tiny),
                     (huge, huge), (tiny, tiny)):
            for fmt in ("plain", "json", "csv", "email"):
                rc, text, err = run_main("--compare", a, b, "--format=" + fmt,
                                         "--interval", "--no-plot")
                self.assertEqual(rc, 0, err)
                self.assertNotIn("Traceback", err)
                # The files' names (a random directory's) are left out.
                body = text.replace(self.tmp.name, "").lower()
                self.assertNotIn("nan", body)
                self.assertNotIn("inf", body)
                if fmt == "json":
                    strict_json(text)
            rc, text, err = run_main("--compare", a, b, "-o", out,
                                     "--no-plot", "-q", "--force")
            self.assertEqual(rc, 0, err)
            with open(out + ".json") as f:
                strict_json(f.read())
        rc, text, err = run_main("--compare", tiny, norm, "--format=json")
        row = strict_json(text)["rows"][1]
        self.assertEqual((row["sweep"], row["gain_pct"], row["p_value"]),
                         (1, None, None))


if __name__ == "__main__":
    unittest.main()


def write_metric(prefix, column, values):
    """A runs CSV of one point whose runs had these figures in column."""
    recs = [{"pattern": "shared-vma", "workers": 2, "cpus": "",
             "size": "1G", "layout": "", "run": i, "fault_per_wsec": 1e5,
             column: v} for i, v in enumerate(values, 1)]
    c = type("Sweep", (), {"points": [{"runs": recs}]})
    runs.write_csv(prefix + "-runs.csv", runs.RUN_COLUMNS,
                   list(runs.run_rows(c)))


class LowerIsBetter(unittest.TestCase):
    """Latency percentiles: a higher one is a regression (R), a lower one
    an improvement (I), as for the fallbacks."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def mark(self, metric, column, factor):
        a = os.path.join(self.tmp.name, "a")
        b = os.path.join(self.tmp.name, "b%g" % factor)
        base = [20000 * math.exp(x) for x in (-0.1, 0.0, 0.1)]
        write_metric(a, column, base)
        write_metric(b, column, [v * factor for v in base])
        table = compare.compare_table([runs.load_sweep(a, "base", metric),
                                       runs.load_sweep(b, "new", metric)])
        return table[0]["tests"][1]["mark"]

    def test_higher_latency_is_a_regression(self):
        for metric, column in (("p50", "lat_p50_ns"), ("p99", "lat_p99_ns")):
            self.assertEqual(self.mark(metric, column, 2.0), "R", metric)
            self.assertEqual(self.mark(metric, column, 0.5), "I", metric)
            self.assertEqual(compare.marks(metric)["I"], "lower than base")
