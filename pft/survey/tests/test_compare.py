# SPDX-License-Identifier: GPL-2.0-or-later
# Fault profiles read back, compared and plotted: the ratios, the
# correlation of hand-made series, concurrency per bin, objects matched
# by backing and size, bins of other widths; bad profiles (truncated,
# not JSON, a later version, a member missing or wrong) refused with one
# line naming the member; the SVG picture.
#
# Copyright (C) 2026 The libfaultgen authors

import contextlib
import io
import json
import os
import random
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET
from fractions import Fraction

import filetests
from pft_survey import cli, compare, plot, readprofile

from . import schemacheck


def prof(rows, objects=(("anonymous", 1 << 20),), threads=(0,),
         duration=40.0, bin_ms=10, period=1, without=()):
    """A profile of the objects ((backing, size)), threads (their
    processes) and fault rows given."""
    procs = sorted(set(threads))
    doc = {"schema": "pft-profile/1", "recorder": "test",
           "source": "tracepoints", "period": period, "bin_ms": bin_ms,
           "duration_ms": duration, "page_size": 4096, "names": False,
           "objects": [{"id": i, "backing": b, "size": s, "writable": True,
                        "thp": False, "huge_bytes": 0, "creator": 0}
                       for i, (b, s) in enumerate(objects)],
           "processes": [{"id": p, "parent": None if p == 0 else 0,
                          "fork_ms": 0.0, "exit_ms": None,
                          "objects": list(range(len(objects)))}
                         for p in procs],
           "threads": [{"id": i, "process": p, "start_ms": 0.0,
                        "end_ms": None, "main": i == p}
                       for i, p in enumerate(threads)],
           "faults": [list(r) for r in rows],
           "without_event": [list(w) for w in without], "calls": None}
    assert schemacheck.validate(doc, schemacheck.load_schema()) == []
    return readprofile.check("test", doc)


def row(thread, obj, b, count, kind="first-touch", nbins=1, first=0):
    return [thread, obj, b, nbins, kind, count, first, first + count - 1,
            "seq", 1]


def series(counts, thread=0, obj=0):
    return [row(thread, obj, b, n) for b, n in enumerate(counts) if n]


def dims(doc, obj=0, kind="all"):
    k = next(x for x in doc["objects"][obj]["kinds"] if x["kind"] == kind)
    return k


class Compare(unittest.TestCase):
    def test_ratios_per_dimension(self):
        a = prof([row(0, 0, 0, 100)])
        b = prof([row(0, 0, 0, 150), row(1, 0, 1, 50)], threads=(0, 1))
        d = dims(compare.compare(a, b))["dimensions"]
        self.assertEqual((d["faults"]["a"], d["faults"]["b"]), (100, 200))
        self.assertEqual(d["faults"]["ratio"], 2.0)
        self.assertEqual(d["bytes"]["b"], 200 * 4096)
        self.assertEqual(d["bytes"]["ratio"], 2.0)
        self.assertEqual(d["threads"]["ratio"], 2.0)
        self.assertEqual(d["processes"]["ratio"], 2.0)

    def test_a_sampled_profiles_counts_are_scaled_by_its_period(self):
        objs = (("anonymous", 8 << 20),)
        a = prof([row(0, 0, 0, 1600)], objects=objs)
        b = prof([row(0, 0, 0, 100)], objects=objs, period=16)
        self.assertEqual(dims(compare.compare(a, b))["dimensions"]
                         ["faults"]["ratio"], 1.0)

    def test_correlation_of_hand_made_series(self):
        a = prof(series([1, 2, 3, 4]))
        same = prof(series([2, 4, 6, 8]))
        mixed = prof(series([1, 3, 2, 4]))
        reverse = prof(series([4, 3, 2, 1]))
        r = dims(compare.compare(a, same, lag_ms=0))[
            "time_shape_correlation"]
        self.assertAlmostEqual(r, 1.0)
        # dx = dy = (-1.5, -0.5, 0.5, 1.5) reordered: 4 / 5.
        r = dims(compare.compare(a, mixed, lag_ms=0))[
            "time_shape_correlation"]
        self.assertAlmostEqual(r, 0.8)
        r = dims(compare.compare(a, reverse, lag_ms=0))[
            "time_shape_correlation"]
        self.assertAlmostEqual(r, -1.0)

    def test_a_replay_started_later_is_shifted_back(self):
        # B is A two bins later (a replay's start-up).
        a = prof(series([0, 1, 3, 2, 0, 0, 0, 0]), duration=80.0)
        b = prof(series([0, 0, 0, 1, 3, 2, 0, 0]), duration=80.0)
        doc = compare.compare(a, b)
        self.assertEqual((doc["lag_ms"], doc["lag"]), (20, "best match"))
        self.assertAlmostEqual(dims(doc)["time_shape_correlation"], 1.0)
        # Unshifted, (0,1,3,2,0,0,0,0) beside (0,0,0,1,3,2,0,0): means
        # 3/4, sum x*y = 2, so sum dx*dy = 2 - 8 * 9/16 = -5/2; sum dx^2
        # = sum dy^2 = 14 - 9/2 = 19/2: r = -5/19.
        doc = compare.compare(a, b, lag_ms=0)
        self.assertEqual((doc["lag_ms"], doc["lag"]), (0, "given"))
        self.assertAlmostEqual(dims(doc)["time_shape_correlation"], -5 / 19)
        # A shift asked for is rounded to whole bins.
        self.assertEqual(compare.compare(a, b, lag_ms=14)["lag_ms"], 10)

    def test_the_replays_own_memory_takes_no_part_in_the_shift(self):
        # B: A's object two bins later, and an object of the replay's
        # own (its program, its set-up: none of A's) whose 12 faults
        # in bin 4 would pull the whole profile's best match to 30 ms.
        a = prof(series([0, 4, 2, 0, 0, 0, 0, 0]), duration=80.0)
        b = prof(series([0, 0, 0, 4, 2, 0, 0, 0]) +
                 series([0, 0, 0, 0, 12, 0, 0, 0], obj=1),
                 objects=(("anonymous", 1 << 20), ("anonymous", 1 << 16)),
                 duration=80.0)
        doc = compare.compare(a, b)
        self.assertEqual(doc["lag_ms"], 20)
        self.assertAlmostEqual(dims(doc)["time_shape_correlation"], 1.0)

    def test_the_shift_is_never_more_than_half_the_bins(self):
        # B's burst 6 bins after A's in 8: a match would need 6 > 8 // 2.
        a = prof(series([4, 0, 0, 0, 0, 0, 0, 0]), duration=80.0)
        b = prof(series([0, 0, 0, 0, 0, 0, 4, 0]), duration=80.0)
        self.assertLessEqual(compare.compare(a, b)["lag_ms"], 40)

    def test_constant_profiles_are_not_shifted(self):
        a = prof(series([2, 2, 2, 2]))
        self.assertEqual(compare.compare(a, a)["lag_ms"], 0)

    def test_correlation_in_wider_bins(self):
        a = prof(series([1, 3, 2, 4, 0, 0]), duration=60.0)
        b = prof(series([3, 1, 4, 2, 0, 0]), duration=60.0)
        # Means 5/3: sum dx*dy = 16/3, sum dx^2 = sum dy^2 = 40/3.
        self.assertAlmostEqual(dims(compare.compare(a, b, lag_ms=0))
                               ["time_shape_correlation"], 0.4)
        # In bins of 20 ms: (4, 6, 0) beside (4, 6, 0).
        doc = compare.compare(a, b, 20, lag_ms=0)
        self.assertEqual(doc["bin_ms"], 20)
        self.assertAlmostEqual(dims(doc)["time_shape_correlation"], 1.0)

    def test_a_constant_series_has_no_correlation(self):
        self.assertIsNone(compare.pearson([1, 1, 1], [1, 2, 3]))
        self.assertIsNone(compare.pearson([5], [5]))

    def test_a_run_of_bins_counts_evenly_in_each(self):
        a = prof([row(0, 0, 1, 6, nbins=3)])
        self.assertEqual(compare.stats(a, 10)[0]["all"].bins,
                         {1: 2.0, 2: 2.0, 3: 2.0})
        # In bins twice as wide: 0-19 ms and 20-39 ms.
        self.assertEqual(compare.stats(a, 20)[0]["all"].bins,
                         {0: 2.0, 1: 4.0})

    def test_concurrency_per_bin(self):
        a = prof([row(0, 0, 0, 5), row(1, 0, 0, 5), row(2, 0, 0, 5),
                  row(0, 0, 1, 5), row(0, 0, 2, 5, nbins=2),
                  row(1, 0, 3, 5)], threads=(0, 0, 1))
        d = dims(compare.compare(a, a))["dimensions"]
        # Bins 0..3 have 3, 1, 1, 2 threads.
        self.assertEqual(d["concurrency most"]["a"], 3)
        self.assertEqual(d["concurrency median"]["a"], 1.5)
        self.assertEqual(d["processes"]["a"], 2)

    def test_objects_matched_by_backing_and_size(self):
        objs_a = (("anonymous", 8 << 20), ("anonymous", 1 << 20),
                  ("file", 131072))
        objs_b = (("file", 131072), ("anonymous", 1 << 20),
                  ("anonymous", 8 << 20))
        a = prof([row(0, 0, 0, 10), row(0, 1, 0, 20), row(0, 2, 0, 30)],
                 objects=objs_a)
        b = prof([row(0, 0, 0, 30), row(0, 1, 0, 20), row(0, 2, 0, 10)],
                 objects=objs_b)
        doc = compare.compare(a, b)
        self.assertEqual([(o["backing"], o["a"], o["b"])
                          for o in doc["objects"]],
                         [("anonymous", 0, 2), ("anonymous", 1, 1),
                          ("file", 2, 0)])
        for o in doc["objects"]:
            k = next(x for x in o["kinds"] if x["kind"] == "all")
            self.assertEqual(k["dimensions"]["faults"]["ratio"], 1.0)

    def test_a_replayers_own_larger_object_is_not_matched(self):
        # B has the replay's heap (larger, few faults) beside the object
        # replayed: by rank of size A's 16 MiB object would meet it.
        a = prof([row(0, 0, 0, 2330), row(0, 1, 0, 10)],
                 objects=(("anonymous", 16 << 20), ("anonymous", 135168)))
        b = prof([row(0, 0, 0, 30), row(0, 1, 0, 2330), row(0, 2, 0, 12)],
                 objects=(("anonymous", 64 << 20), ("anonymous", 16 << 20),
                          ("anonymous", 135168)))
        doc = compare.compare(a, b)
        self.assertEqual([(o["a"], o["b"]) for o in doc["objects"]],
                         [(0, 1), (1, 2), (None, 0)])
        self.assertEqual(dims(doc)["dimensions"]["faults"]["ratio"], 1.0)

    def test_an_object_one_side_lacks_has_no_ratio(self):
        a = prof([row(0, 0, 0, 10)])
        b = prof([row(0, 0, 0, 10), row(0, 1, 0, 5)],
                 objects=(("anonymous", 1 << 20), ("memfd", 20480)))
        doc = compare.compare(a, b)
        memfd = next(o for o in doc["objects"] if o["backing"] == "memfd")
        self.assertIsNone(memfd["a"])
        self.assertIsNone(memfd["kinds"][0]["dimensions"]["faults"]["ratio"])

    def test_a_profile_beside_itself_is_1_everywhere(self):
        a = prof(series([5, 0, 7, 9]) + [row(1, 1, 1, 3, "read")],
                 objects=(("anonymous", 1 << 20), ("file", 12288)),
                 threads=(0, 1), without=[(1, "gup", 64)])
        doc = compare.compare(a, a)
        ratios = [v["ratio"] for o in doc["objects"] for k in o["kinds"]
                  for v in k["dimensions"].values()]
        ratios += [v["ratio"] for v in doc["without_event"].values()]
        ratios += [v["ratio"] for v in doc["profile"].values()]
        self.assertTrue(ratios)
        self.assertEqual(set(ratios), {1.0})
        self.assertAlmostEqual(dims(doc)["time_shape_correlation"], 1.0)

    def test_text_names_each_dimension(self):
        a = prof(series([1, 2, 3, 4]))
        out = io.StringIO()
        compare.write(compare.compare(a, a), ("A.json", "B.json"), False,
                      out)
        text = out.getvalue()
        for what in ("A: A.json", "faults", "concurrency most",
                     "time shape (r)", "1.000"):
            self.assertIn(what, text)


def whole(xs):
    """Stats (compare.stats) of one object whose faults per bin are xs."""
    st = compare.Stat()
    st.bins = {i: x for i, x in enumerate(xs) if x}
    return {0: {compare.ALL: st}}


def lag_by_definition(xa, xb):
    """best_lag's contract, lag by lag in exact fractions: the lag, 0 to
    n // 2, where B's series shifted so many bins earlier (zeros after)
    has the greatest Pearson correlation with A's; the first of equals;
    0 where none is defined.  r1 > r2 is compared as r1 |r1| > r2 |r2|."""
    n = len(xa)
    xs = [Fraction(x) for x in xa]
    mx = sum(xs, Fraction(0)) / n
    best, best_r = 0, None
    for lag in range(n // 2 + 1):
        ys = [Fraction(y) for y in xb[lag:]] + [Fraction(0)] * lag
        my = sum(ys, Fraction(0)) / n
        sxy = sum(((x - mx) * (y - my) for x, y in zip(xs, ys)), Fraction(0))
        sxx = sum(((x - mx) ** 2 for x in xs), Fraction(0))
        syy = sum(((y - my) ** 2 for y in ys), Fraction(0))
        if n < 2 or sxx == 0 or syy == 0:
            continue
        r = sxy * abs(sxy) / (sxx * syy)
        if best_r is None or r > best_r:
            best, best_r = lag, r
    return best


def sparse(rng, n, density, values):
    return [rng.choice(values) if rng.random() < density else 0
            for _ in range(n)]


class BestLag(unittest.TestCase):
    """best_lag against its definition, and its work bounded."""

    def lag(self, xa, xb):
        return compare.best_lag(whole(xa), whole(xb), len(xa))

    def test_random_series_agree_with_the_definition(self):
        rng = random.Random(41)
        values = (1, 2, 3, 7, 40, 0.5, 1 / 3, 2.25, 1e-3, 12345.678)
        for trial in range(200):
            n = rng.randrange(1, 33)
            xa = sparse(rng, n, rng.choice((0.1, 0.3, 0.7, 1.0)), values)
            xb = sparse(rng, n, rng.choice((0.1, 0.3, 0.7, 1.0)), values)
            with self.subTest(trial=trial, xa=xa, xb=xb):
                self.assertEqual(self.lag(xa, xb), lag_by_definition(xa, xb))

    def test_equal_correlations_give_the_smallest_lag(self):
        # A's fault at bin 3; B's at 4 and 6: shifted 1 or 3 bins
        # earlier B has one fault on A's, the other inside the window.
        xa = [0, 0, 0, 1, 0, 0, 0, 0, 0, 0]
        xb = [0, 0, 0, 0, 1, 0, 1, 0, 0, 0]
        self.assertEqual(lag_by_definition(xa, xb), 1)
        self.assertEqual(self.lag(xa, xb), 1)
        # So with three of B's, in thirds, and A's in tenths: lags 1, 3
        # and 5 each put one of B's on A's, the others inside.
        xa = [0] * 6 + [0.1] + [0] * 9
        xb = [0] * 7 + [1 / 3, 0, 1 / 3, 0, 1 / 3] + [0] * 4
        self.assertEqual(lag_by_definition(xa, xb), 1)
        self.assertEqual(self.lag(xa, xb), 1)

    def test_series_without_a_correlation_give_0(self):
        zeros, burst = [0] * 12, [0, 0, 0, 5, 1, 0, 0, 0, 0, 0, 0, 0]
        for xa, xb in ((zeros, zeros), (zeros, burst), (burst, zeros),
                       ([3] * 12, burst), ([2], [2]), ([], [])):
            with self.subTest(xa=xa, xb=xb):
                self.assertEqual(self.lag(xa, xb), 0)

    def test_a_known_shift_is_recovered(self):
        rng = random.Random(7)
        xa = sparse(rng, 3000, 0.2, range(1, 200)) + [0] * 1000
        xb = [0] * 617 + xa[:-617]
        self.assertEqual(self.lag(xa, xb), 617)

    def test_every_lags_sum_of_products(self):
        rng = random.Random(5)
        for trial in range(100):
            n = rng.randrange(0, 30)
            a = [rng.choice((0, 0, 1, 9, 10 ** 12, -3)) for _ in range(n)]
            b = [rng.choice((0, 0, 2, 99, -10 ** 9)) for _ in range(n)]
            most = rng.randrange(0, n) if n else 0
            want = [sum(a[i] * b[i + lag] for i in range(n - lag))
                    for lag in range(min(most, n - 1) + 1)]
            with self.subTest(a=a, b=b, most=most):
                self.assertEqual(compare.lag_products(a, b, most), want)

    def test_48000_bins_take_a_bounded_number_of_steps(self):
        # An 8-minute profile in 10 ms bins, a fifth of them with faults,
        # B 1,234 bins later.  Every Python line run under best_lag is
        # counted: trying each lag's correlation over all bins would be
        # some 10^9; the bound is 40 a bin (the counting stops there).
        n, limit = 48000, 40 * 48000
        rng = random.Random(8)
        xa = sparse(rng, n, 0.2, range(1, 300))
        xb = [0] * 1234 + xa[:-1234]
        sa, sb = whole(xa), whole(xb)
        lines = 0

        def trace(frame, event, arg):
            nonlocal lines
            if event == "line":
                lines += 1
                if lines > limit:
                    raise RuntimeError("more than %d lines run" % limit)
            return trace

        sys.settrace(trace)
        try:
            lag = compare.best_lag(sa, sb, n)
        finally:
            sys.settrace(None)
        self.assertEqual(lag, 1234)
        self.assertLess(lines, limit, lines)


class Files(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.d = self.dir.name
        self.good = json.dumps(prof(series([1, 2, 3, 4])), indent=1)

    def tearDown(self):
        self.dir.cleanup()

    def file(self, name, text):
        path = os.path.join(self.d, name)
        with open(path, "wb") as f:
            f.write(text if isinstance(text, bytes) else text.encode())
        return path

    def run_cli(self, argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = cli.main(argv)
            except SystemExit as e:
                rc = e.code
        return rc, out.getvalue(), err.getvalue()

    def refused(self, text, words):
        bad = self.file("bad.json", text)
        good = self.file("good.json", self.good)
        for argv in (["--compare", good, bad],
                     ["--plot=" + os.path.join(self.d, "x.svg"), bad]):
            rc, out, err = self.run_cli(argv)
            self.assertEqual(rc, 1, err)
            self.assertEqual(len(err.splitlines()), 1, err)
            self.assertTrue(err.startswith("pft-survey: %s: " % bad), err)
            self.assertIn(words, err)
            self.assertNotIn("Traceback", err)
            self.assertEqual(out, "")
            self.assertFalse(os.path.exists(os.path.join(self.d, "x.svg")))

    def edited(self, edit):
        doc = json.loads(self.good)
        edit(doc)
        return json.dumps(doc)

    def test_truncated_and_not_json(self):
        self.refused(self.good[:len(self.good) // 2], "truncated")
        self.refused(self.good.replace(",", ";", 1), "not JSON")
        self.refused("", "empty")
        self.refused(b"{\"schema\": \"\xff\"}", "not UTF-8")
        self.refused("[1, 2]", "a JSON object is expected")

    def test_a_later_version(self):
        self.refused(self.good.replace("pft-profile/1", "pft-profile/2"),
                     "member 'schema' is \"pft-profile/2\"")
        self.refused(self.edited(lambda d: d.pop("schema")),
                     "member 'schema' missing")

    def test_a_member_missing_or_wrong(self):
        self.refused(self.edited(lambda d: d.pop("faults")),
                     "member 'faults' missing")
        self.refused(self.edited(lambda d: d["objects"][0].pop("backing")),
                     "member 'objects[0].backing' missing")
        self.refused(self.edited(lambda d: d["faults"][0].pop()),
                     "member 'faults[0]': a list of 10 values")
        self.refused(self.edited(
            lambda d: d["faults"][0].__setitem__(4, "bogus")),
            "member 'faults[0][4]'")
        self.refused(self.edited(
            lambda d: d["faults"][0].__setitem__(0, 7)),
            "member 'faults[0][0]': one of the threads")
        self.refused(self.edited(
            lambda d: d["processes"][0]["objects"].append(3)),
            "member 'processes[0].objects[1]': one of the objects")
        self.refused(self.edited(
            lambda d: d["processes"][0].__setitem__("parent", 9)),
            "member 'processes[0].parent': one of the processes")
        self.refused(self.good.replace('"duration_ms": 40.0',
                                       '"duration_ms": NaN'),
                     "member 'duration_ms'")

    def test_a_missing_file(self):
        rc, _, err = self.run_cli(["--compare", self.file("a", self.good),
                                   os.path.join(self.d, "nothing")])
        self.assertEqual((rc, len(err.splitlines())), (1, 1))
        self.assertIn("No such file", err)

    def test_unknown_members_are_ignored(self):
        a = self.file("a.json", self.edited(
            lambda d: d.update(later={"x": 1}) or
            d["objects"][0].update(numa=[0])))
        rc, out, err = self.run_cli(["--compare", a, a, "--json"])
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(json.loads(out)["objects"][0]["kinds"][0]
                         ["dimensions"]["faults"]["ratio"], 1.0)

    def test_usage(self):
        a = self.file("a.json", self.good)
        for argv in (["--plot=x.svg"], ["--plot=x.svg", a, a, a],
                     ["--compare", a, a, "-p", "1"],
                     ["--keep-names", "--", "true"],
                     ["--bin-ms=0", "--record=x", "--", "true"],
                     ["--compare", a, a, "--lag-ms=-10"],
                     ["--compare", a, a, "--lag-ms=nan"],
                     ["--plot=x.svg", a, "--lag-ms=10"],
                     ["--lag-ms=10", "--", "true"]):
            rc, _, err = self.run_cli(argv)
            self.assertEqual(rc, 2, argv)
            self.assertIn("Try 'pft-survey --help'", err)


class Plot(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.d = self.dir.name

    def tearDown(self):
        self.dir.cleanup()

    def test_a_rectangle_per_row_in_lanes_per_thread(self):
        a = prof(series([1, 2, 3, 4]) + [row(1, 0, 2, 8, first=100)],
                 threads=(0, 1))
        b = prof(series([4, 4]))
        path = os.path.join(self.d, "<a&b>.svg")
        plot.plot(path, [("A <&> \x1b[2J", a), ("B", b)])
        tree = ET.parse(path)
        ns = "{http://www.w3.org/2000/svg}"
        cells = [r for r in tree.iter(ns + "rect")
                 if r.find(ns + "title") is not None]
        self.assertEqual(len(cells), 5 + 2)
        texts = [t.text for t in tree.iter(ns + "text")]
        self.assertIn("A <&> \\x1b[2J", texts)
        self.assertIn("thread 1 (process 1)", texts)
        # The hottest bins are the darkest.
        fills = {c.find(ns + "title").text: c.get("fill") for c in cells}
        self.assertEqual(fills["first-touch: 8 faults in 10 ms, pages "
                               "100-107, seq"], plot.colour(8, 8))

    def test_never_over_a_file_nor_through_a_link(self):
        a = prof(series([1]))
        for name, path in filetests.special_files(self.d).items():
            before = filetests.state(path)
            with self.assertRaises(OSError, msg=name):
                plot.plot(path, [("a", a)])
            self.assertEqual(filetests.state(path), before)


if __name__ == "__main__":
    unittest.main()
