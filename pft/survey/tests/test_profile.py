# SPDX-License-Identifier: GPL-2.0-or-later
# The fault profile (pft-profile/1) written from a survey's facts: the
# order of pages in a bin, the bins, runs of bins merged, the members,
# names left out, the survey's objects of forked children, the faults
# without an event, the file created exclusively; every profile built
# here validates against the installed schema file.
#
# Copyright (C) 2026 The libfaultgen authors

import contextlib
import io
import json
import os
import tempfile
import unittest

import filetests
from pft_survey import kinds, objects, profile
from pft_survey.fromsurvey import recording
from pft_survey.profile import RANDOM, SEQ, STRIDE, Recording

from . import schemacheck

MS = 1000000
T0 = 1000000000


def valid(test, prof):
    """prof validates against the schema file, also as written."""
    schema = schemacheck.load_schema()
    test.assertEqual(schemacheck.validate(prof, schema), [])
    test.assertEqual(schemacheck.validate(
        json.loads(profile.dumps(prof)), schema), [])
    return prof


class Order(unittest.TestCase):
    def test_ascending_by_one_is_seq_by_n_stride_else_random(self):
        self.assertEqual(profile.page_order([5, 6, 7]), (SEQ, 1))
        self.assertEqual(profile.page_order([7]), (SEQ, 1))
        self.assertEqual(profile.page_order([0, 4, 8, 12]), (STRIDE, 4))
        self.assertEqual(profile.page_order([3, 1, 2]), (RANDOM, 0))
        self.assertEqual(profile.page_order([1, 2, 4]), (RANDOM, 0))
        self.assertEqual(profile.page_order([4, 3, 2]), (RANDOM, 0))
        self.assertEqual(profile.page_order([4, 4]), (RANDOM, 0))

    def test_sampled_strides_are_in_faults_between_samples(self):
        self.assertEqual(profile.page_order([0, 16, 32], 16), (SEQ, 1))
        self.assertEqual(profile.page_order([0, 32, 64], 16), (STRIDE, 2))
        self.assertEqual(profile.page_order([0, 24, 48], 16), (STRIDE, 24))


class Bins(unittest.TestCase):
    def test_a_row_per_bin_with_its_pages(self):
        evs = [(T0 + 1 * MS, 0, 1), (T0 + 2 * MS, 1, 1), (T0 + 9 * MS, 2, 1),
               (T0 + 12 * MS, 7, 2), (T0 + 13 * MS, 3, 1),
               (T0 + 35 * MS, 9, 1)]
        self.assertEqual(profile.bin_rows(evs, T0, 10 * MS), [
            [0, 1, 3, 0, 2, SEQ, 1],
            [1, 1, 3, 3, 7, RANDOM, 0],
            [3, 1, 1, 9, 9, SEQ, 1]])

    def test_a_bins_chunks_are_a_row_each(self):
        # One thread's bin: pages 10-17, then 40-47 (another thread took
        # 18-39 meanwhile), then 60, 62, 64, 66: three runs, a row each.
        pages = list(range(10, 18)) + list(range(40, 48)) + [60, 62, 64, 66]
        evs = [(T0 + i * 100, p, 1) for i, p in enumerate(pages)]
        self.assertEqual(profile.bin_rows(evs, T0, 10 * MS), [
            [0, 1, 8, 10, 17, SEQ, 1],
            [0, 1, 8, 40, 47, SEQ, 1],
            [0, 1, 4, 60, 66, STRIDE, 2]])
        # Nine runs of 4 pages: more than MAX_PIECES, one random row.
        pages = [p for c in range(9) for p in range(c * 10, c * 10 + 4)]
        evs = [(T0 + i * 100, p, 1) for i, p in enumerate(pages)]
        self.assertEqual(profile.bin_rows(evs, T0, 10 * MS), [
            [0, 1, 36, 0, 83, RANDOM, 0]])
        # Runs shorter than MIN_RUN pages on average: random.
        evs = [(T0 + i * 100, p, 1) for i, p in enumerate([5, 4, 3, 2])]
        self.assertEqual(profile.bin_rows(evs, T0, 10 * MS), [
            [0, 1, 4, 2, 5, RANDOM, 0]])

    def test_runs_merge_where_pages_go_on_at_the_same_rate(self):
        rows = [[0, 1, 100, 0, 99, SEQ, 1], [1, 1, 110, 100, 209, SEQ, 1],
                [2, 1, 90, 210, 299, SEQ, 1],
                # twice the run's rate: a row of its own
                [3, 1, 200, 300, 499, SEQ, 1],
                # a bin without faults before it
                [5, 1, 200, 500, 699, SEQ, 1],
                # its pages do not go on from the last
                [6, 1, 200, 800, 999, SEQ, 1]]
        self.assertEqual(profile.merge_runs(rows), [
            [0, 3, 300, 0, 299, SEQ, 1], [3, 1, 200, 300, 499, SEQ, 1],
            [5, 1, 200, 500, 699, SEQ, 1], [6, 1, 200, 800, 999, SEQ, 1]])

    def test_strides_go_on_by_their_stride_random_over_one_range(self):
        rows = [[0, 1, 3, 0, 4, STRIDE, 2], [1, 1, 3, 6, 10, STRIDE, 2],
                [2, 1, 3, 11, 15, STRIDE, 2],
                [3, 1, 5, 0, 99, RANDOM, 0], [4, 1, 5, 0, 99, RANDOM, 0],
                [5, 1, 5, 0, 98, RANDOM, 0]]
        self.assertEqual(profile.merge_runs(rows), [
            [0, 2, 6, 0, 10, STRIDE, 2], [2, 1, 3, 11, 15, STRIDE, 2],
            [3, 2, 10, 0, 99, RANDOM, 0], [5, 1, 5, 0, 98, RANDOM, 0]])

    def test_orders_do_not_merge_with_each_other(self):
        rows = [[0, 1, 3, 0, 2, SEQ, 1], [1, 1, 3, 3, 7, STRIDE, 2]]
        self.assertEqual(profile.merge_runs(rows), rows)


def a_recording():
    """A process (10) with a worker thread (12) and a child (11) forked
    at 25 ms: an anonymous object of 16 pages, a file of 2."""
    r = Recording(kinds.TRACEPOINTS)
    anon, f = ("vma", 10, 1), ("file", "8:1", 42)
    r.objects[anon] = {"backing": "anonymous", "size": 65536,
                       "writable": True, "thp": False, "huge_bytes": 0,
                       "creator": 10, "path": ""}
    r.objects[f] = {"backing": "file", "size": 8192, "writable": False,
                    "thp": False, "huge_bytes": 0, "creator": 10,
                    "path": "/data/x"}
    r.processes[10] = {"parent": None, "fork_ns": None,
                       "exit_ns": T0 + 50 * MS, "objects": {anon, f},
                       "command": ["prog", "--x"]}
    r.processes[11] = {"parent": 10, "fork_ns": T0 + 25 * MS,
                       "exit_ns": T0 + 45 * MS, "objects": {anon},
                       "command": None}
    r.threads[10] = {"pid": 10, "start_ns": None, "end_ns": T0 + 50 * MS,
                     "name": "prog"}
    r.threads[12] = {"pid": 10, "start_ns": T0 + 1 * MS,
                     "end_ns": T0 + 40 * MS, "name": "worker"}
    r.threads[11] = {"pid": 11, "start_ns": T0 + 25 * MS,
                     "end_ns": T0 + 45 * MS, "name": "prog"}
    ev = [(0, 12, anon, "first-touch", 0), (2, 12, anon, "first-touch", 1),
          (4, 12, anon, "first-touch", 2), (11, 12, anon, "first-touch", 3),
          (13, 12, anon, "first-touch", 4), (15, 12, anon, "first-touch", 5),
          (21, 12, anon, "first-touch", 8),
          (5, 10, f, "read", 1), (6, 10, f, "read", 0),
          (31, 10, anon, "read", 0), (32, 10, anon, "read", 2),
          (33, 10, anon, "read", 4), (41, 10, anon, "read", 6),
          (42, 10, anon, "read", 8), (43, 10, anon, "read", 10),
          (26, 11, anon, "cow", 0), (27, 11, anon, "cow", 1)]
    r.events = [(T0 + t * MS, tid, k, kind, pg, 1)
                for t, tid, k, kind, pg in ev]
    r.without_event = [(12, kinds.GUP, 100), (12, kinds.GUP, 28)]
    return r


class Build(unittest.TestCase):
    def test_rows_by_bin_thread_object_and_kind(self):
        prof = valid(self, profile.build(a_recording()))
        self.assertEqual(prof["faults"], [
            [0, 1, 0, 1, "read", 2, 0, 1, "random", 0],
            [1, 0, 0, 2, "first-touch", 6, 0, 5, "seq", 1],
            [1, 0, 2, 1, "first-touch", 1, 8, 8, "seq", 1],
            [2, 0, 2, 1, "cow", 2, 0, 1, "seq", 1],
            [0, 0, 3, 2, "read", 6, 0, 10, "stride", 2]])
        self.assertEqual(prof["without_event"], [[1, "gup", 128]])

    def test_members(self):
        prof = valid(self, profile.build(a_recording(), bin_ms=10))
        head = {k: prof[k] for k in ("schema", "source", "period", "bin_ms",
                                     "duration_ms", "page_size", "names",
                                     "calls")}
        self.assertEqual(head, {
            "schema": "pft-profile/1", "source": "tracepoints", "period": 1,
            "bin_ms": 10, "duration_ms": 50.0, "page_size": 4096,
            "names": False, "calls": None})
        self.assertEqual(prof["objects"], [
            {"id": 0, "backing": "anonymous", "size": 65536,
             "writable": True, "thp": False, "huge_bytes": 0, "creator": 0},
            {"id": 1, "backing": "file", "size": 8192, "writable": False,
             "thp": False, "huge_bytes": 0, "creator": 0}])
        self.assertEqual(prof["processes"], [
            {"id": 0, "parent": None, "fork_ms": 0.0, "exit_ms": 50.0,
             "objects": [0, 1]},
            {"id": 1, "parent": 0, "fork_ms": 25.0, "exit_ms": 45.0,
             "objects": [0]}])
        self.assertEqual(prof["threads"], [
            {"id": 0, "process": 0, "start_ms": 0.0, "end_ms": 50.0,
             "main": True},
            {"id": 1, "process": 0, "start_ms": 1.0, "end_ms": 40.0,
             "main": False},
            {"id": 2, "process": 1, "start_ms": 25.0, "end_ms": 45.0,
             "main": True}])

    def test_wider_bins(self):
        prof = valid(self, profile.build(a_recording(), bin_ms=25))
        # 0-24 ms, 25-49 ms: the worker's faults in bin 0 (7), the
        # main thread's stride of 6 in bin 1.
        self.assertEqual(prof["faults"], [
            [0, 1, 0, 1, "read", 2, 0, 1, "random", 0],
            [1, 0, 0, 1, "first-touch", 7, 0, 8, "random", 0],
            [0, 0, 1, 1, "read", 6, 0, 10, "stride", 2],
            [2, 0, 1, 1, "cow", 2, 0, 1, "seq", 1]])

    def test_sized_for_mail_in_wider_bins_only_where_needed(self):
        r = a_recording()
        at10 = len(profile.dumps(profile.build(r)))
        prof, text, first = profile.build_sized(r, limit=at10)
        self.assertEqual((prof["bin_ms"], len(text), first), (10, at10, at10))
        # A byte less: the first wider bins that bring it under.
        prof, text, first = profile.build_sized(r, limit=at10 - 1)
        valid(self, prof)
        self.assertEqual(first, at10)
        self.assertGreater(prof["bin_ms"], 10)
        self.assertLess(len(text), at10)
        self.assertEqual(text, profile.dumps(profile.build(r, prof["bin_ms"])))
        for w in profile.WIDER_MS:
            if w < prof["bin_ms"]:      # narrower ones were too large
                self.assertGreaterEqual(
                    len(profile.dumps(profile.build(r, w))), at10)
        # Nothing small enough: the widest.
        prof, _, _ = profile.build_sized(r, limit=10)
        self.assertEqual(prof["bin_ms"], profile.WIDER_MS[-1])
        self.assertEqual(sum(x[5] for x in prof["faults"]),
                         sum(e[5] for e in r.events))

    def test_sampled_recordings_carry_their_period(self):
        r = a_recording()
        r.period = 16
        prof = valid(self, profile.build(r))
        self.assertEqual(prof["period"], 16)

    def test_no_names_unless_asked(self):
        text = profile.dumps(valid(self, profile.build(a_recording())))
        for name in ("prog", "worker", "/data/x", "--x"):
            self.assertNotIn(name, text)
        for member in ('"path"', '"command"', '"name"'):
            self.assertNotIn(member, text)
        prof = valid(self, profile.build(a_recording(), names=True))
        self.assertTrue(prof["names"])
        self.assertEqual(prof["objects"][1]["path"], "/data/x")
        self.assertEqual(prof["processes"][0]["command"], ["prog", "--x"])
        self.assertNotIn("command", prof["processes"][1])
        self.assertEqual([t["name"] for t in prof["threads"]],
                         ["prog", "worker", "prog"])

    def test_an_empty_survey(self):
        r = Recording(kinds.PAGE_FAULTS)
        r.processes[5] = {"parent": None, "fork_ns": None, "exit_ns": None,
                          "objects": set(), "command": None}
        r.threads[5] = {"pid": 5, "start_ns": None, "end_ns": None}
        prof = valid(self, profile.build(r))
        self.assertEqual((prof["faults"], prof["duration_ms"]), ([], 0.0))


class Rec:
    """perf's Record, as much as a profile reads of it."""

    def __init__(self, forks=(), exits=(), execs=None):
        self.forks = list(forks)
        self.exits = list(exits)
        self.execs = execs or {}
        self.names = {5: "parent", 6: "child"}


class FromSurvey(unittest.TestCase):
    """A process (5) maps 16 pages at 0x10000 and touches them; its child
    (6, forked at 10 ms) writes 4 of them."""

    def facts(self, child_vma, period=1):
        facts = objects.Facts(kinds.TRACEPOINTS, events=True)
        v = {"start": 0x10000, "end": 0x20000, "perms": "rw-p", "path": "",
             "object": 1, "first_ns": T0}
        facts.add_vma(("vma", 5, 1), 5, v, "anonymous")
        for i in range(16):
            facts.add(("vma", 5, 1), 5, 5, kinds.FIRST_TOUCH, T0 + i * 1000,
                      period, 4096 * period, 16 + i * period)
        key = ("vma", 6, child_vma["object"])
        facts.add_vma(key, 6, child_vma, "anonymous")
        for i in range(4):
            facts.add(key, 6, 6, kinds.COW, T0 + 11 * MS + i * 1000, 1,
                      4096, 16 + i)
        facts.forks = [(T0 + 10 * MS, 6, 5)]
        facts.exits = {6: T0 + 20 * MS, 5: T0 + 30 * MS}
        return facts

    def build(self, facts, rec, doc=None, period=1):
        r = recording(facts, rec, doc or {}, 5, ["prog"], period, 4096)
        return valid(self, profile.build(r))

    def test_sampled_rows_count_samples(self):
        child = {"start": 0x30000, "end": 0x40000, "perms": "rw-p",
                 "path": "", "object": 7, "first_ns": T0 + 12 * MS}
        rec = Rec([(T0 + 10 * MS, 6, 6, 5, 5)], [], {6: T0 + 10.5 * MS})
        facts = self.facts(child, period=16)
        facts.objects[("vma", 5, 1)]["size"] = 16 * 16 * 4096
        prof = self.build(facts, rec, period=16)
        # 16 samples of the parent's, a page in 16 apart: seq faults.
        self.assertEqual(prof["faults"][0],
                         [0, 0, 0, 1, "first-touch", 16, 0, 240, "seq", 1])

    def test_an_object_written_is_writable_whatever_its_views_saw(self):
        # Seen read-only (PROT_NONE, or r--) by every view, written
        # between two: a profile whose replay writes it.
        facts = objects.Facts(kinds.TRACEPOINTS, events=True)
        for obj, kind in ((1, kinds.FIRST_TOUCH), (2, kinds.READ),
                          (3, kinds.COW)):
            v = {"start": obj << 20, "end": (obj << 20) + 0x10000,
                 "perms": "---p", "path": "", "object": obj,
                 "first_ns": T0}
            facts.add_vma(("vma", 5, obj), 5, v, "anonymous")
            facts.add(("vma", 5, obj), 5, 5, kind, T0 + obj * 1000, 1,
                      4096, (obj << 8))
        prof = self.build(facts, Rec())
        self.assertEqual(sorted(o["writable"] for o in prof["objects"]),
                         [False, True, True])

    def test_a_files_vma_is_at_the_offsets_its_faults_are(self):
        # A library's VMA seen at 0x30000-0x40000 (offset 0x100000)
        # after 0x10000-0x40000 (its widest): its pages are the
        # offsets' 0xe0-0x10f, as a fault below its last start is told.
        key = ("file", "08:01", 77)
        facts = objects.Facts(kinds.TRACEPOINTS, events=True)
        v = {"start": 0x10000, "end": 0x40000, "cur": (0x30000, 0x40000),
             "off": 0x100000, "ino": 77, "dev": "08:01", "perms": "r--p",
             "path": "/lib/x", "first_ns": T0}
        facts.add_vma(key, 5, v, "file")
        facts.add(key, 5, 5, kinds.READ, T0, 1, 4096,
                  objects.page_index(v, 0x10000))
        r = recording(facts, Rec(), {}, 5, ["prog"], 1, 4096)
        self.assertEqual(r.objects[key]["size"], 0x30000)
        self.assertEqual(r.events[0][4], 0)

    def test_pages_beyond_what_its_mappings_could_hold_are_said(self):
        # A file object given a page at a virtual address: said on
        # standard error, the object sized from its mapping (13 pages
        # at offset 0x1d5000), the event left out; its own kept.
        key = ("file", "08:01", 77)
        facts = objects.Facts(kinds.TRACEPOINTS, events=True)
        v = {"start": 0x7f2e8b3b4000, "end": 0x7f2e8b3c1000,
             "off": 0x1d5000, "ino": 77, "dev": "08:01", "perms": "r--p",
             "path": "/nonexistent/libc.so.6", "first_ns": T0}
        facts.add_vma(key, 5, v, "file")
        facts.add(key, 5, 5, kinds.READ, T0, 1, 4096, 0x1d5 + 1)
        facts.add(key, 5, 5, kinds.FIRST_TOUCH, T0 + 1000, 1, 4096,
                  0x7f2e8b3b6)
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            r = recording(facts, Rec(), {}, 5, ["prog"], 1, 4096)
        self.assertEqual(r.objects[key]["size"], 0xd000)
        self.assertEqual([e[4] for e in r.events], [1])
        self.assertEqual(err.getvalue(),
                         "pft-survey: object file:08:01:77 "
                         "(/nonexistent/libc.so.6): its faults' pages "
                         "span %d pages, more than its mappings could "
                         "(13): sized from its mappings, 1 fault event "
                         "outside them left out of the profile\n"
                         % (0x7f2e8b3b6 - 0x1d5 + 1))
        valid(self, profile.build(r))

    def test_a_range_mapped_again_at_another_offset_spans_both(self):
        # A memfd's first 16 pages mapped, then its pages at 1 GiB over
        # the same range: both offsets are the object's.
        key = ("file", "00:01", 9)
        facts = objects.Facts(kinds.TRACEPOINTS, events=True)
        for i, off in enumerate((0, 1 << 30)):
            v = {"start": 0x7f0000000000, "end": 0x7f0000010000,
                 "off": off, "ino": 9, "dev": "00:01", "perms": "rw-s",
                 "path": "/memfd:x (deleted)", "first_ns": T0 + i}
            facts.add_vma(key, 5, v, "memfd/shmem")
            facts.add(key, 5, 5, kinds.FIRST_TOUCH, T0 + i * 1000, 1,
                      4096, objects.page_index(v, 0x7f000000f000))
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            r = recording(facts, Rec(), {}, 5, ["prog"], 1, 4096)
        self.assertEqual((err.getvalue(), r.objects[key]["size"],
                          [e[4] for e in r.events]),
                         ("", (1 << 30) + 0x10000,
                          [15, ((1 << 30) >> 12) + 15]))

    def test_a_stack_grown_below_its_vma_is_no_absurd_span(self):
        key = ("vma", 5, 1)
        facts = objects.Facts(kinds.TRACEPOINTS, events=True)
        v = {"start": 0x7ff000100000, "end": 0x7ff000121000,
             "perms": "rw-p", "path": "[stack]", "object": 1,
             "first_ns": T0}
        facts.add_vma(key, 5, v, "stack")
        facts.add(key, 5, 5, kinds.FIRST_TOUCH, T0, 1, 4096,
                  0x7ff000100000 // 4096 - 16)
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            r = recording(facts, Rec(), {}, 5, ["prog"], 1, 4096)
        self.assertEqual((err.getvalue(), r.objects[key]["size"]),
                         ("", 0x21000 + 16 * 4096))

    def test_a_process_forked_before_the_recording_is_the_roots_child(self):
        # Attached to 5 after it forked 6: no fork record of 6.
        child = {"start": 0x30000, "end": 0x40000, "perms": "rw-p",
                 "path": "", "object": 7, "first_ns": T0 + 12 * MS}
        facts = self.facts(child)
        facts.forks = []
        prof = self.build(facts, Rec())
        self.assertEqual([(p["id"], p["parent"], p["fork_ms"])
                          for p in prof["processes"]],
                         [(0, None, 0.0), (1, 0, 0.0)])

    def test_a_vma_populated_without_events_is_an_object(self):
        # 4 MiB grown with no event on it (populated), and 16 pages
        # grown beyond 4 pages of events (too few).
        def grown(n, size, grew, events):
            return {"pid": 5, "start": "%x" % (n << 24),
                    "end": "%x" % ((n << 24) + size), "size": size,
                    "backing": "anonymous", "path": "", "grown": grew,
                    "event_bytes": events, "writable": True,
                    "huge_bytes": 0, "object": "vma:5:%d" % n}
        doc = {"resident": [grown(40, 4 << 20, 4 << 20, 0),
                            grown(41, 1 << 20, 16 * 4096, 4 * 4096)]}
        child = {"start": 0x30000, "end": 0x40000, "perms": "rw-p",
                 "path": "", "object": 7, "first_ns": T0 + 12 * MS}
        rec = Rec([(T0 + 10 * MS, 6, 6, 5, 5)], [(T0 + 20 * MS, 6, 6)])
        plain = self.build(self.facts(child), rec)
        prof = self.build(self.facts(child), rec, doc)
        self.assertEqual(len(prof["objects"]), len(plain["objects"]) + 1)
        big = [o["id"] for o in prof["objects"] if o["size"] == 4 << 20]
        self.assertEqual(len(big), 1)
        self.assertIn(big[0], prof["processes"][0]["objects"])
        self.assertEqual(prof["objects"][big[0]]["backing"], "anonymous")

    def test_faults_no_reading_held_are_the_roots(self):
        # 500 faults without an event after every reading of the
        # counters (threads that ended unseen).
        child = {"start": 0x30000, "end": 0x40000, "perms": "rw-p",
                 "path": "", "object": 7, "first_ns": T0 + 12 * MS}
        rec = Rec([(T0 + 10 * MS, 6, 6, 5, 5)], [(T0 + 20 * MS, 6, 6)])
        prof = self.build(self.facts(child), rec,
                          {"kernel_side_after_last_readings": 500})
        self.assertEqual(prof["without_event"], [[0, "gup", 500]])
        # A few, as any run has: none.
        prof = self.build(self.facts(child), rec,
                          {"kernel_side_after_last_readings": 8})
        self.assertEqual(prof["without_event"], [])

    def test_faults_no_reading_held_go_to_the_process_that_populated(self):
        # The child (6) grew 64 MiB resident with no event on it: the
        # 16384 faults no reading held are its, not the root's.
        child = {"start": 0x30000, "end": 0x40000, "perms": "rw-p",
                 "path": "", "object": 7, "first_ns": T0 + 12 * MS}
        rec = Rec([(T0 + 10 * MS, 6, 6, 5, 5)], [(T0 + 20 * MS, 6, 6)])
        doc = {"kernel_side_after_last_readings": 16384,
               "resident": [{"pid": 6, "start": "%x" % (40 << 24),
                             "end": "%x" % ((40 << 24) + (64 << 20)),
                             "size": 64 << 20, "backing": "anonymous",
                             "path": "", "grown": 64 << 20,
                             "event_bytes": 0, "writable": True,
                             "huge_bytes": 0, "object": "vma:6:40"}]}
        prof = self.build(self.facts(child), rec, doc)
        main = [t["id"] for t in prof["threads"]
                if prof["processes"][t["process"]]["parent"] == 0 and
                t["main"]]
        self.assertEqual(prof["without_event"], [[main[0], "gup", 16384]])

    def test_a_childs_copies_fall_on_its_parents_object(self):
        child = {"start": 0x10000, "end": 0x20000, "perms": "rw-p",
                 "path": "", "object": 7, "first_ns": T0 + 12 * MS}
        rec = Rec([(T0 + 10 * MS, 6, 6, 5, 5)], [(T0 + 20 * MS, 6, 6)])
        prof = self.build(self.facts(child), rec)
        self.assertEqual(len(prof["objects"]), 1)
        self.assertEqual(prof["objects"][0]["size"], 65536)
        self.assertEqual(prof["faults"], [
            [0, 0, 0, 1, "first-touch", 16, 0, 15, "seq", 1],
            [1, 0, 1, 1, "cow", 4, 0, 3, "seq", 1]])
        self.assertEqual([p["objects"] for p in prof["processes"]],
                         [[0], [0]])
        self.assertEqual([(p["parent"], p["fork_ms"], p["exit_ms"])
                          for p in prof["processes"]],
                         [(None, 0.0, 30.0), (0, 10.0, 20.0)])

    def test_a_child_that_execd_has_its_own(self):
        child = {"start": 0x10000, "end": 0x20000, "perms": "rw-p",
                 "path": "", "object": 7, "first_ns": T0 + 12 * MS}
        rec = Rec([(T0 + 10 * MS, 6, 6, 5, 5)], [], {6: T0 + 10.5 * MS})
        prof = self.build(self.facts(child), rec)
        self.assertEqual(len(prof["objects"]), 2)
        self.assertEqual([p["objects"] for p in prof["processes"]],
                         [[0], [1]])

    def test_faults_without_an_event_less_an_execs_own(self):
        child = {"start": 0x10000, "end": 0x20000, "perms": "rw-p",
                 "path": "", "object": 7, "first_ns": T0 + 12 * MS}
        rec = Rec([(T0 + 10 * MS, 6, 6, 5, 5)], [], {5: T0 - MS})
        doc = {"kernel_side_threads": [
            {"tid": 5, "pid": 5, "name": "p", "kernel_side_faults": 350},
            {"tid": 6, "pid": 6, "name": "c", "kernel_side_faults": 64}],
            "kernel_side_processes": {5: 350, 6: 564}}
        prof = self.build(self.facts(child), rec, doc)
        # 350 less the exec's (up to 300); the child's 500 beyond its
        # thread's on its main thread.
        self.assertEqual(prof["without_event"],
                         [[0, "gup", 50], [1, "gup", 564]])


class WriteNew(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.d = self.dir.name

    def tearDown(self):
        self.dir.cleanup()

    def test_writes_a_new_file_whole(self):
        path = os.path.join(self.d, "p.json")
        prof = profile.build(a_recording())
        profile.write_new(path, prof)
        with open(path) as f:
            self.assertEqual(json.load(f), json.loads(json.dumps(prof)))

    def test_never_over_a_file_nor_through_a_link(self):
        prof = profile.build(a_recording())
        for name, path in filetests.special_files(self.d).items():
            before = filetests.state(path)
            with self.assertRaises(OSError, msg=name) as e:
                profile.write_new(path, prof)
            self.assertEqual(e.exception.filename, path)
            self.assertEqual(filetests.state(path), before)
        with open(os.path.join(self.d, "victim")) as f:
            self.assertEqual(f.read(), "precious\n")
        path = os.path.join(self.d, "victim")
        with self.assertRaises(FileExistsError):
            profile.write_new(path, prof)


if __name__ == "__main__":
    unittest.main()
