# SPDX-License-Identifier: GPL-2.0-or-later
# test_axes.py - the shared VMA's axes (--interleave-pages, --writers):
# a point per value (every pair of both) beside each worker count, side
# by side in the table, with their values in the CSV and JSON files and
# their options in each pft command; --compare keys them apart; and the
# combinations refused, in one line naming the option.
#
# Copyright (C) 2026 The libfaultgen authors

import csv
import json
import os
import signal
import tempfile
import types
import unittest

from pft_sweep import sweep

from .fakesys import fake_pft
from .test_compare import run_main
from .test_sweep import FAKE


def config(**kw):
    c = types.SimpleNamespace(interleave_pages=None, writers=None,
                              backing=None)
    c.__dict__.update(kw)
    return c


class Variants(unittest.TestCase):
    def test_none_swept(self):
        self.assertEqual(sweep.variants(config()),
                         [{"key": "", "words": "", "options": [],
                           "interleave_pages": None, "writers": None,
                           "backing": None}])

    def test_one_axis(self):
        v = sweep.variants(config(interleave_pages=[0, 1, 512]))
        self.assertEqual([x["key"] for x in v],
                         ["+interleave-pages=0", "+interleave-pages=1",
                          "+interleave-pages=512"])
        self.assertEqual([x["words"] for x in v],
                         [", slices", ", stripes of 1", ", stripes of 512"])
        self.assertEqual([x["options"] for x in v],
                         [["--stripe-pages=0"], ["--stripe-pages=1"],
                          ["--stripe-pages=512"]])
        self.assertEqual({x["writers"] for x in v}, {None})

    def test_every_pair(self):
        v = sweep.variants(config(interleave_pages=[0, 8], writers=[0, 1, 2]))
        self.assertEqual(len(v), 6)
        self.assertEqual(v[1]["options"],
                         ["--stripe-pages=0", "--writers=1"])
        self.assertEqual(v[5]["words"], ", stripes of 8, 2 writers")
        self.assertEqual(v[4]["key"], "+interleave-pages=8+writers=1")
        self.assertEqual((v[4]["interleave_pages"], v[4]["writers"]), (8, 1))

    def test_rows_side_by_side(self):
        """Each worker count (or CPU layout) once per value, in turn."""
        rows = [{"layout": "", "label": "", "workers": n, "cpus": None}
                for n in (1, 2)]
        out = sweep.axis_rows(config(writers=[0, 1]), rows)
        self.assertEqual([(r["workers"], r["layout"], r["label"])
                          for r in out],
                         [(1, "1w+writers=0", "1 worker, 0 writers"),
                          (1, "1w+writers=1", "1 worker, 1 writer"),
                          (2, "2w+writers=0", "2 workers, 0 writers"),
                          (2, "2w+writers=1", "2 workers, 1 writer")])
        layout = [{"layout": "l3:1x2", "label": "1 L3 x 2", "workers": 2,
                   "cpus": [0, 1]}]
        out = sweep.axis_rows(config(interleave_pages=[0, 1]), layout)
        self.assertEqual([(r["layout"], r["label"], r["cpus"]) for r in out],
                         [("l3:1x2+interleave-pages=0", "1 L3 x 2, slices",
                           [0, 1]),
                          ("l3:1x2+interleave-pages=1",
                           "1 L3 x 2, stripes of 1", [0, 1])])
        # Without an axis the rows are as they were.
        self.assertEqual(sweep.axis_rows(config(), rows)[0]["layout"], "")


class AxesSweep(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.dir = self.tmp.name
        self.pft = fake_pft(self.dir, FAKE)
        os.environ["FAKE_PFT_DIR"] = self.dir
        # Each measured run's arguments, a line each.
        os.environ["FAKE_PFT_HOOK"] = 'echo "$*" >>"$FAKE_PFT_DIR/args"'
        self.addCleanup(os.environ.pop, "FAKE_PFT_DIR", None)
        self.addCleanup(os.environ.pop, "FAKE_PFT_HOOK", None)
        for signo in (signal.SIGINT, signal.SIGTERM):
            self.addCleanup(signal.signal, signo, signal.getsignal(signo))

    def sweep(self, prefix, *args):
        return run_main("--pft=" + self.pft, "-r", "2", "-m", "4M",
                        "--one-shot", "--warmup=0", "--no-plot", "-q",
                        "-o", os.path.join(self.dir, prefix), *args)

    def args(self):
        with open(os.path.join(self.dir, "args")) as f:
            return f.read().splitlines()

    def test_layouts_and_writers_side_by_side(self):
        rc, out, err = self.sweep("s", "-w", "1,2",
                                  "--stripe-pages=0,1,8",
                                  "--writers=0,1")
        self.assertEqual(rc, 0, err)
        labels = ["%d worker%s, %s, %s" % (n, "" if n == 1 else "s", k, w)
                  for n in (1, 2)
                  for k in ("slices", "stripes of 1", "stripes of 8")
                  for w in ("0 writers", "1 writer")]
        lines = out.splitlines()
        # The description, the header, a row per point: shared-vma alone
        # (the default pattern of the axes).
        self.assertEqual(lines[1].split(), ["layout", "shared-vma",
                                            "spread"])
        self.assertEqual([ln[:len(lb)] for ln, lb in zip(lines[2:], labels)],
                         labels)
        self.assertEqual(len(lines), 2 + len(labels))
        with open(os.path.join(self.dir, "s.csv")) as f:
            points = list(csv.DictReader(f))
        self.assertEqual([(p["workers"], p["interleave_pages"], p["writers"])
                          for p in points],
                         [(str(n), str(k), str(w)) for n in (1, 2)
                          for k in (0, 1, 8) for w in (0, 1)])
        self.assertEqual({p["pattern"] for p in points}, {"shared-vma"})
        with open(os.path.join(self.dir, "s-runs.csv")) as f:
            runs = list(csv.DictReader(f))
        self.assertEqual(len(runs), 24)
        self.assertEqual({(r["layout"], r["interleave_pages"], r["writers"])
                          for r in runs},
                         {(p["layout"], p["interleave_pages"], p["writers"])
                          for p in points})
        with open(os.path.join(self.dir, "s.json")) as f:
            doc = json.load(f)
        self.assertEqual(doc["config"]["interleave_pages"], [0, 1, 8])
        self.assertEqual(doc["config"]["writers"], [0, 1])
        self.assertEqual(doc["config"]["workers"], [1, 2])
        for p in doc["points"]:
            want = ["--stripe-pages=%d" % p["interleave_pages"],
                    "--writers=%d" % p["writers"]]
            self.assertEqual(p["options"], want)
            self.assertEqual(p["command"][-2:], want)
            self.assertEqual(p["layout"], "%dw+interleave-pages=%d+"
                             "writers=%d" % (p["workers"],
                                             p["interleave_pages"],
                                             p["writers"]))
            self.assertEqual({r["interleave_pages"] for r in p["runs"]},
                             {p["interleave_pages"]})
        # What each pft run was given: every point's options, twice.
        ran = [a.split() for a in self.args()]
        self.assertEqual(len(ran), 24)
        for p in doc["points"]:
            n = sum(1 for a in ran if a[-2:] == p["options"] and
                    a[a.index("-t") + 1] == str(p["workers"]))
            self.assertEqual(n, 2, p["label"])

    def test_backings_side_by_side(self):
        d = os.path.join(self.dir, "files")
        os.mkdir(d)
        rc, out, err = self.sweep("b", "-w", "1,2", "--share",
                                  "--backing=anon,memfd,file:" + d)
        self.assertEqual(rc, 0, err)
        backings = ["anon", "memfd", "file:" + d]
        lines = out.splitlines()
        # shared-vma and per-thread-vma, the default patterns of --backing.
        self.assertEqual(lines[1].split()[:5], ["layout", "shared-vma",
                                                "spread", "per-thread-vma",
                                                "spread"])
        labels = ["%d worker%s, %s" % (n, "" if n == 1 else "s", b)
                  for n in (1, 2) for b in backings]
        self.assertEqual([ln[:len(lb)] for ln, lb in zip(lines[2:], labels)],
                         labels)
        self.assertEqual(len(lines), 2 + len(labels))
        with open(os.path.join(self.dir, "b.csv")) as f:
            points = list(csv.DictReader(f))
        self.assertEqual([(p["pattern"], p["workers"], p["backing"])
                          for p in points],
                         [(pat, str(n), b) for n in (1, 2) for b in backings
                          for pat in ("shared-vma", "per-thread-vma")])
        self.assertEqual(points[4]["layout"], "1w+backing=file:" + d)
        with open(os.path.join(self.dir, "b-runs.csv")) as f:
            runs = list(csv.DictReader(f))
        self.assertEqual(len(runs), 24)
        self.assertEqual({(r["layout"], r["backing"]) for r in runs},
                         {(p["layout"], p["backing"]) for p in points})
        with open(os.path.join(self.dir, "b.json")) as f:
            doc = json.load(f)
        self.assertEqual((doc["config"]["backing"], doc["config"]["share"]),
                         (backings, True))
        ran = [a.split() for a in self.args()]
        self.assertEqual(len(ran), 24)
        for p in doc["points"]:
            want = ["--backing=" + p["backing"], "--share"]
            self.assertEqual(p["options"], want[:1])
            self.assertEqual(p["command"][-2:], want)
            n = sum(1 for a in ran if a[-2:] == want and
                    a[a.index("-t") + 1] == str(p["workers"]) and
                    "--pattern=" + p["pattern"] in a)
            self.assertEqual(n, 2, p["label"])

    def test_compare_keeps_the_values_apart(self):
        for prefix in ("a", "b"):
            rc, out, err = self.sweep(prefix, "-w", "2", "-p", "shared-vma",
                                      "--stripe-pages=0,1")
            self.assertEqual(rc, 0, err)
        rc, out, err = run_main("--compare", os.path.join(self.dir, "a"),
                                os.path.join(self.dir, "b"), "--format=csv")
        self.assertEqual(rc, 0, err)
        rows = list(csv.DictReader(out.splitlines()))
        self.assertEqual(sorted({(r["point"], r["label"]) for r in rows}),
                         [("2w+interleave-pages=0", "2 workers, slices"),
                          ("2w+interleave-pages=1",
                           "2 workers, stripes of 1")])

    def refused(self, *args):
        rc, out, err = self.sweep("r", "-w", "1", *args)
        self.assertEqual((rc, out), (2, ""), err)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "args")))
        return err.splitlines()[0]

    def test_refused(self):
        self.assertEqual(self.refused("--writers=0,x"),
                         "pft-sweep: argument --writers: '0,x' is not a "
                         "list of counts from 0")
        self.assertEqual(self.refused("--stripe-pages=-1"),
                         "pft-sweep: argument --stripe-pages/"
                         "--interleave-pages: '-1' is not a list of counts "
                         "from 0")
        self.assertEqual(self.refused("--writers=1", "--", "--writers=2"),
                         "pft-sweep: '--writers=2' after '--': pft-sweep "
                         "sets it itself")
        self.assertEqual(self.refused("--stripe-pages=0,1", "--",
                                      "--interleave-pages", "2"),
                         "pft-sweep: '--interleave-pages' after '--': "
                         "pft-sweep sets it itself")
        self.assertEqual(self.refused("--backing=anon,,memfd"),
                         "pft-sweep: argument --backing: 'anon,,memfd': an "
                         "empty backing (a file:PATH holds no comma)")
        self.assertEqual(self.refused("--backing=file:"),
                         "pft-sweep: argument --backing: 'file:': an "
                         "empty backing (a file:PATH holds no comma)")
        self.assertEqual(self.refused("--backing=anon", "--",
                                      "--backing=memfd"),
                         "pft-sweep: '--backing=memfd' after '--': "
                         "pft-sweep sets it itself")
        self.assertEqual(self.refused("--share", "--", "--share"),
                         "pft-sweep: '--share' after '--': pft-sweep sets "
                         "it itself")
        # The pages are dealt in one pass.
        rc, out, err = run_main("--pft=" + self.pft, "-w", "1",
                                "--stripe-pages=0,8", "-o",
                                os.path.join(self.dir, "r"))
        self.assertEqual(rc, 2)
        self.assertEqual(err.splitlines()[0],
                         "pft-sweep: --stripe-pages=0,8: pft stripes the "
                         "pages in one pass; add --one-shot")
        rc, out, err = run_main("--compare", "--writers=0,1", "x", "y")
        self.assertEqual(err.splitlines()[0],
                         "pft-sweep: --writers works with a sweep only, not "
                         "--compare")
        # Without an axis, pft's options after "--" are the user's.
        rc, out, err = self.sweep("r", "-w", "1", "-p", "shared-vma", "--",
                                  "--writers=1")
        self.assertEqual(rc, 0, err)


if __name__ == "__main__":
    unittest.main()


class OneShotPatterns(unittest.TestCase):
    """pretouch and qemu-prealloc run once: their points pass pft no
    --rounds, --duration or --warmup, their warm-up runs are runs of
    the same pft."""

    def conf(self, **kw):
        c = config(pft_path="pft", interleave=False, repeat=3, warmup=1,
                   mode="duration", duration=1.0, rounds=None, latency=None,
                   extra=[], pretouch_options=[],
                   pattern_table={"qemu-prealloc": {"runs_once": True},
                                  "pretouch": {"runs_once": True},
                                  "shared-vma": {"runs_once": False}})
        c.__dict__.update(kw)
        return c

    def test_qemu_prealloc_runs_once(self):
        for warmup in (0, 2):
            c = self.conf(warmup=warmup)
            cmd = sweep.pft_command(c, "qemu-prealloc", 4, "256M", None)
            self.assertEqual(cmd, ["pft", "--json", "-m", "256M",
                                   "--pattern=qemu-prealloc", "-t", "4",
                                   "--repeat=%d" % (3 + warmup)])
            self.assertEqual(sweep.warmup_runs(c, "qemu-prealloc"), warmup)
        check = sweep.pft_command(self.conf(), "qemu-prealloc", 1, "256M",
                                  None, check=True)
        self.assertFalse([a for a in check if a.startswith(
            ("--rounds", "--duration", "--warmup", "--repeat"))])

    def test_pretouch_without_warmup_gets_no_rounds(self):
        cmd = sweep.pft_command(self.conf(warmup=0), "pretouch", 2, "4M",
                                None)
        self.assertFalse([a for a in cmd if a.startswith(
            ("--rounds", "--duration", "--warmup"))])

    def test_other_patterns_keep_their_rounds(self):
        cmd = sweep.pft_command(self.conf(), "shared-vma", 2, "4M", None)
        self.assertIn("--duration=1", cmd)
        self.assertIn("--warmup=1", cmd)
