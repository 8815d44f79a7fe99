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


if __name__ == "__main__":
    unittest.main()
