# SPDX-License-Identifier: GPL-2.0-or-later
# test_lockpaths.py - pft-survey's lock paths from perf script's text of
# the mmap_lock and exceptions tracepoints: per thread the read and write
# acquisitions, the failed trylocks and the fallbacks (a read acquisition
# right after the thread's user fault), per object the user faults that
# fell back; and the one line saying why they were not recorded.
#
# Copyright (C) 2026 The libfaultgen authors

import io
import unittest
from unittest import mock

from pft_survey import analysis, kinds, perfscript, render

from . import fakesys

setUpModule, tearDownModule = fakesys.two_cpus()

# perf script -F comm,pid,tid,time,period,event,addr,trace of
# perf record -e mmap_lock:mmap_lock_start_locking -e
# mmap_lock:mmap_lock_acquire_returned -e exceptions:page_fault_user -d
# -c 1 (pft -t 2 --writers=1,mmap on Linux 6.18, perf 6.1; the mm
# pointers and memcg ids shortened).  Thread 11 a worker, 12 another, 13
# the writer: 11's first fault falls back (a trylock, then the lock),
# its second does not; 12's fault finds the trylock failed (the writer
# holds the lock) and takes it blocking; 13 maps and faults its own
# mapping, which falls back.
W = "mmap_lock:mmap_lock_start_locking: mm=0xffff88810ba67080 memcg_id=34 "
R = ("mmap_lock:mmap_lock_acquire_returned: mm=0xffff88810ba67080 "
     "memcg_id=34 ")
F = "exceptions:page_fault_user: address=0x%x ip=0x401000 error_code=0x6"


def line(tid, t, rest):
    return ("             pft  10/%d  100.%06d:          1 %s"
            "               0\n" % (tid, t, rest))


SCRIPT = [
    line(11, 1, F % 0x7f0000000000),
    line(11, 2, W + "write=false"),
    line(11, 3, R + "write=false success=true"),
    line(11, 4, F % 0x7f0000001000),
    line(13, 5, W + "write=true"),
    line(13, 6, R + "write=true success=true"),
    line(12, 7, F % 0x7f0000002000),
    line(12, 8, W + "write=false"),
    line(12, 9, R + "write=false success=false"),
    line(12, 10, W + "write=false"),
    line(12, 11, R + "write=false success=true"),
    line(13, 12, F % 0x7e0000000000),
    line(13, 13, W + "write=false"),
    line(13, 14, R + "write=false success=true"),
    # A write after a fault is no fallback.
    line(11, 15, F % 0x7f0000003000),
    line(11, 16, W + "write=true"),
    line(11, 17, R + "write=true success=true"),
]

SNAP = {10: {
    (0x7f0000000000, 0x7f0000400000): {
        "start": 0x7f0000000000, "end": 0x7f0000400000, "perms": "rw-p",
        "path": "", "last_ns": 1},
    (0x7e0000000000, 0x7e0000001000): {
        "start": 0x7e0000000000, "end": 0x7e0000001000, "perms": "rw-p",
        "path": "", "last_ns": 1}}}


class Snaps:
    def __init__(self, vmas=None):
        self.vmas = vmas or {}
        self.threads = {}
        self.procs = {}


def recorded():
    rec = perfscript.parse_script(SCRIPT)
    rec.source = kinds.TRACEPOINTS
    rec.locks_recorded = True
    return rec


class Parse(unittest.TestCase):
    def test_every_line_understood(self):
        rec = recorded()
        self.assertEqual((rec.lines, rec.lost), (len(SCRIPT), 0))
        self.assertEqual(len(rec.faults), 5)

    def test_per_thread(self):
        th = recorded().lock_threads
        self.assertEqual(th[11], {"pid": 10, "read": 1, "write": 1,
                                  "trylock_failed": 0, "fallbacks": 1})
        self.assertEqual(th[12], {"pid": 10, "read": 1, "write": 0,
                                  "trylock_failed": 1, "fallbacks": 1})
        self.assertEqual(th[13], {"pid": 10, "read": 1, "write": 1,
                                  "trylock_failed": 0, "fallbacks": 1})

    def test_the_faults_that_fell_back(self):
        self.assertEqual(sorted(recorded().fell_back), [
            (100000001000, 11, 0x7f0000000000),
            (100000007000, 12, 0x7f0000002000),
            (100000012000, 13, 0x7e0000000000)])

    def test_another_event_between_is_no_fallback(self):
        rec = perfscript.parse_script(SCRIPT[:1] + [
            line(11, 2, "syscalls:sys_enter_madvise: start: 0x7f0000000000,"
                 " len_in: 0x00001000, behavior: 0x00000004")] + SCRIPT[1:3])
        self.assertEqual(rec.lock_threads[11]["read"], 1)
        self.assertEqual(rec.lock_threads[11]["fallbacks"], 0)
        self.assertEqual(rec.fell_back, set())


class Report(unittest.TestCase):
    def doc(self, rec, period=1):
        with mock.patch.object(kinds, "locks_traceable", lambda: True):
            return analysis.analyse(rec, Snaps(SNAP), None, period, True)

    def test_objects_and_threads(self):
        lp = self.doc(recorded())["lock_paths"]
        self.assertTrue(lp["recorded"])
        objs = {o["object"]: (o["user_faults"], o["fallbacks"])
                for o in lp["objects"]}
        self.assertEqual(sorted(objs.values()), [(1, 1), (4, 2)])
        rows = {t["tid"]: (t["user_faults"], t["read"], t["write"],
                           t["trylock_failed"], t["fallbacks"])
                for t in lp["threads"]}
        self.assertEqual(rows, {11: (3, 1, 1, 0, 1), 12: (1, 1, 0, 1, 1),
                                13: (1, 1, 1, 0, 1)})

    def test_text_section(self):
        out = io.StringIO()
        render.render(self.doc(recorded()), out)
        text = out.getvalue()
        self.assertIn("\nlock paths (mmap_lock tracepoints", text)
        self.assertIn(": 4 user faults, 2 fell back to mmap_lock\n", text)
        self.assertIn("thread pft (12): 1 user faults; mmap_lock 1 read (1 "
                      "trylocks failed), 0 write; 1 fallbacks\n", text)
        self.assertNotIn("lock paths not recorded", text)

    def test_not_recorded_says_why(self):
        rec = perfscript.parse_script([
            "  pft  10/11  1.000001: 1 page-faults:  7f0000000000\n"])
        with mock.patch.object(kinds, "may_trace", lambda: "no"):
            doc = self.doc(rec)
        self.assertFalse(doc["lock_paths"]["recorded"])
        out = io.StringIO()
        render.render(doc, out)
        lines = [x for x in out.getvalue().splitlines()
                 if "lock paths" in x]
        self.assertEqual(lines, [
            "  lock paths not recorded: the mmap_lock tracepoints need "
            "root, CAP_PERFMON or perf_event_paranoid -1 (the page-faults "
            "event was recorded)"])

    def test_reasons(self):
        why = kinds.locks_not_recorded
        self.assertIn("-c 16 samples the events",
                      why(kinds.PAGE_FAULTS, 16, True, True))
        self.assertIn("not with the page-faults event",
                      why(kinds.PAGE_FAULTS, 1, True, True))
        self.assertIn("no mmap_lock tracepoints",
                      why(kinds.TRACEPOINTS, 1, False, True))
        self.assertIsNone(why(kinds.TRACEPOINTS, 1, True, True))


class Events(unittest.TestCase):
    def test_recorded_with_the_tracepoints_alone(self):
        ev = kinds.events(kinds.TRACEPOINTS, False, True)
        for e in kinds.LOCK_EVENTS:
            self.assertIn(e, ev)
            self.assertNotIn(e, kinds.events(kinds.TRACEPOINTS))
            self.assertNotIn(e, kinds.events(kinds.PAGE_FAULTS, True, True))
        self.assertEqual(ev[ev.index(kinds.LOCK_EVENTS[0]) - 1], "-e")

    def test_traceable_needs_both(self):
        seen = []
        with mock.patch("os.path.exists",
                        lambda p: seen.append(p) or "start_locking" in p):
            self.assertFalse(kinds.locks_traceable())
        self.assertTrue(any("mmap_lock/mmap_lock_acquire_returned/id" in p
                            for p in seen))


if __name__ == "__main__":
    unittest.main()
