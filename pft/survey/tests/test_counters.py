# SPDX-License-Identifier: GPL-2.0-or-later
# pft-survey's fault counters (/proc/PID/stat, /proc/PID/task/TID/stat as
# the snapshots read them) set against perf's events of the same thread
# up to each reading; a thread's count at its end from its process's
# counters; the faults no reading held; the MADV_POPULATE_* calls that
# name the populate workers.  The figures are those of
# `pft-survey -- pft -t 2 -m 64M --touch=populate --thp=always` on a busy
# machine of 2 CPUs: worker process 2 (worker 0 its first thread, worker
# 1 thread 3) populated 64 MiB in 32 huge-page faults, 16 each, and the
# exec'd supervisor (process 1) took its exec's arguments in the kernel.
#
# Copyright (C) 2026 The libfaultgen authors

import unittest
from unittest import mock

from pft_survey import analysis, proc, verdict

from . import fakesys

setUpModule, tearDownModule = fakesys.two_cpus()

MiB = 1 << 20
MS = 1000000
VMA = 0x7f0000000000


def stat(pid, faults, state="S"):
    """A /proc/PID/stat line of that many minor faults."""
    return "%d (pft) %s 1 1 1 0 -1 4194304 %d 0 0 0 0 0 20 0 1 0\n" % (
        pid, state, faults)


def read_at(snaps, ns, pid, faults, threads):
    """One snapshot's reading of process pid at ns: its counters
    (faults; None: gone) and its threads' ({tid: faults}; None: a
    zombie, the task left to read)."""
    def fake(path):
        parts = path.split("/")
        if parts[-2] == "task":
            return None
        if "task" in parts:
            n = threads[int(parts[-2])]
            return stat(int(parts[-2]), 0, "Z") if n is None else \
                stat(int(parts[-2]), n)
        return None if faults is None else stat(pid, faults)
    with mock.patch.object(proc, "read", side_effect=fake), \
            mock.patch("os.listdir",
                       return_value=[str(t) for t in threads]), \
            mock.patch("time.monotonic_ns", return_value=ns):
        snaps.read_counters(pid)


class Rec:
    """perf's recording: fault events (time, pid, tid, address, period),
    task records."""

    def __init__(self, events, exits):
        self.faults = []
        for (pid, tid, times) in events:
            self.faults += [(t, pid, tid, VMA, 1) for t in times]
        self.faults.sort()
        self.exits = exits
        self.names = {}
        self.madvises = []


def spread(n, first_ms, last_ms):
    """n event times from first_ms to last_ms."""
    step = (last_ms - first_ms) * MS // max(1, n - 1)
    return [first_ms * MS + i * step for i in range(n)]


def doc_of(rec, kernel, source="page-faults"):
    """The report's facts before add_kernel_side: the threads' events,
    the populated VMA, the kernel's count."""
    threads = {}
    for (_t, pid, tid, _a, per) in rec.faults:
        th = threads.setdefault(tid, {"tid": tid, "pid": pid, "faults": 0,
                                      "name": "pft"})
        th["faults"] += per
    return {"objects": [], "source": source, "threads": list(threads.values()),
            "perf": {"lost_faults": 0}, "exec_pids": [1],
            "kernel": {"faults": kernel},
            "kernel_minus_perf": kernel - len(rec.faults),
            "short_threads": [[2, 3]], "short_threads_by_name": {"pft": 1},
            "resident": [{"pid": 2, "start": "%x" % VMA,
                          "end": "%x" % (VMA + 64 * MiB), "size": 64 * MiB,
                          "rss": 64 * MiB, "grown": 64 * MiB,
                          "event_bytes": 0, "huge_bytes": 64 * MiB,
                          "backing": "anonymous", "path": "",
                          "flags": ["rd", "wr", "hg"], "shared": False,
                          "unseen": 0}]}


def supervisor(snaps):
    """Process 1, the exec'd supervisor: 470 faults, 130 of them events
    (its exec's arguments copied in the kernel)."""
    for ms in (10, 100, 200, 300):
        read_at(snaps, ms * MS, 1, 470, {1: 470})
    return (1, 1, spread(130, 0, 290))


def sides(d, snaps, rec):
    """The threads' faults without an event as add_kernel_side counts
    them: {tid: faults}."""
    analysis.add_kernel_side(d, snaps, rec)
    return {t["tid"]: t["kernel_side_faults"]
            for t in d["kernel_side_threads"]}


def line_of(d):
    return verdict.quote(verdict.verdict(d)[2])


class Counters(unittest.TestCase):
    def test_events_after_a_reading_do_not_hide_its_faults(self):
        # Worker 0 (thread 2) read last at 300 ms: 72 faults, 56 of them
        # events by then; its 16 more user faults came after (results,
        # teardown).  Against all its 72 events it took none in the
        # kernel: one worker seen.
        snaps = proc.Snapshots(1)
        events = [supervisor(snaps)]
        for ms, p, t2, t3 in ((100, 70, 62, 8), (200, 80, 68, 12),
                              (300, 88, 72, 16)):
            read_at(snaps, ms * MS, 2, p, {2: t2, 3: t3})
        events += [(2, 2, spread(56, 5, 290) + spread(16, 310, 400)),
                   (2, 3, spread(4, 20, 30))]
        rec = Rec(events, [(399 * MS, 2, 3), (401 * MS, 2, 2)])
        d = doc_of(rec, 470 + 88 + 32)
        side = sides(d, snaps, rec)
        self.assertEqual(side, {1: 340, 2: 16, 3: 12})
        self.assertEqual(d["kernel_side_processes"], {1: 340, 2: 28})
        self.assertEqual(line_of(d),
                         "pft -t 2 -m 64M --touch=populate --thp=always")

    def test_a_thread_that_ended_between_readings_counted_at_its_end(self):
        # Worker 1 (thread 3) came and went before any reading: the
        # process's counters beyond its live thread's hold its 19 faults
        # (3 events).  Worker 0 populated after its last good reading;
        # the next read its process's counters, itself a zombie: its
        # 89 faults (73 events) are what they gained.
        snaps = proc.Snapshots(1)
        events = [supervisor(snaps)]
        read_at(snaps, 80 * MS, 2, 79, {2: 60})
        read_at(snaps, 340 * MS, 2, 91, {2: 72})
        read_at(snaps, 395 * MS, 2, 108, {2: None})
        events += [(2, 2, spread(73, 1, 370)), (2, 3, spread(3, 3, 40))]
        rec = Rec(events, [(43 * MS, 2, 3), (375 * MS, 2, 2)])
        d = doc_of(rec, 470 + 108 + 2)
        side = sides(d, snaps, rec)
        self.assertEqual(side, {1: 340, 2: 16, 3: 16})
        self.assertEqual(line_of(d),
                         "pft -t 2 -m 64M --touch=populate --thp=always")

    def test_two_threads_ended_together_are_no_ones_count(self):
        # Both ended between the same two readings: what the process
        # gained is theirs together, neither's alone.
        snaps = proc.Snapshots(1)
        read_at(snaps, 10 * MS, 2, 10, {2: 10, 3: 0, 4: 0})
        read_at(snaps, 90 * MS, 2, 60, {2: 20})
        rec = Rec([(2, 2, spread(20, 1, 80))],
                  [(40 * MS, 2, 3), (50 * MS, 2, 4)])
        d = doc_of(rec, 60)
        analysis.add_kernel_side(d, snaps, rec)
        self.assertEqual(d["kernel_side_threads"], [])
        self.assertEqual(d["kernel_side_processes"], {2: 40})

    def test_faults_no_reading_held_are_said_not_counted(self):
        # A run shorter than two snapshots: worker process 2's counters
        # were never read (its smaps once, 4 MiB short of the peak);
        # getrusage counted its 32 populate faults (and 2 more).
        snaps = proc.Snapshots(1)
        events = [supervisor(snaps)]
        events += [(2, 2, spread(69, 1, 70)), (2, 3, spread(4, 2, 40))]
        rec = Rec(events, [(44 * MS, 2, 3), (72 * MS, 2, 2)])
        d = doc_of(rec, 470 + 69 + 4 + 34)
        d["resident"][0]["unseen"] = 4 * MiB
        analysis.add_kernel_side(d, snaps, rec)
        self.assertEqual(d["kernel_side_after_last_readings"], 34)
        _, line, args = verdict.verdict(d)
        self.assertIn("34 of those faults came after the last reading of "
                      "the processes' counters", line)
        self.assertIn("which threads took them was not recorded, and 1 "
                      "counts the workers seen", line)
        self.assertEqual(d["populated"]["faults_after_last_readings"], 34)
        # What one reading held is not said so.
        snaps2 = proc.Snapshots(1)
        events = [supervisor(snaps2)]
        read_at(snaps2, 300 * MS, 2, 69 + 4 + 34, {2: 69 + 16})
        events += [(2, 2, spread(69, 1, 70)), (2, 3, spread(4, 2, 40))]
        rec = Rec(events, [(44 * MS, 2, 3), (372 * MS, 2, 2)])
        d = doc_of(rec, 470 + 69 + 4 + 34)
        analysis.add_kernel_side(d, snaps2, rec)
        self.assertEqual(d["kernel_side_after_last_readings"], 0)
        _, line, _ = verdict.verdict(d)
        self.assertIn("the populate pattern", line)
        self.assertNotIn("after the last reading", line)

    def test_attached_counts_from_the_first_reading(self):
        # Attached: a thread's count and its events from its first
        # reading on (what came before is no part of the survey).
        snaps = proc.Snapshots(2, attached=True)
        read_at(snaps, 100 * MS, 2, 500, {2: 500})
        read_at(snaps, 200 * MS, 2, 560, {2: 560})
        rec = Rec([(2, 2, spread(20, 50, 250))], [])
        d = doc_of(rec, 0)
        analysis.add_kernel_side(d, snaps, rec)
        # 60 faults between the readings, 10 events between them.
        self.assertEqual(d["kernel_side_threads"][0]["kernel_side_faults"],
                         50)
        self.assertEqual(d["kernel_side_processes"], {2: 50})
        self.assertIsNone(d["kernel_side_after_last_readings"])


class PopulateCalls(unittest.TestCase):
    def doc(self, calls):
        # As root: one worker's counters seen, the other's populate
        # after every reading.
        d = doc_of(Rec([(2, 2, spread(72, 1, 300)), (2, 3, spread(4, 2, 9))],
                       []), 470 + 76 + 32, "tracepoints")
        d["kernel_side_threads"] = [
            {"tid": 1, "pid": 1, "name": "pft", "kernel_side_faults": 340},
            {"tid": 3, "pid": 2, "name": "pft", "kernel_side_faults": 12}]
        d["kernel_side_processes"] = {1: 340, 2: 12}
        d["short_threads"] = []
        d["populate_calls"] = calls
        return d

    def call(self, tid, at, pid=2):
        return {"pid": pid, "tid": tid, "start": "%x" % (VMA + at),
                "length": 32 * MiB, "advice": "MADV_POPULATE_WRITE"}

    def test_each_thread_that_called_populate_is_a_worker(self):
        d = self.doc([self.call(3, 0), self.call(2, 32 * MiB)])
        _, line, args = verdict.verdict(d)
        self.assertEqual(verdict.quote(args),
                         "pft -t 2 -m 64M --touch=populate --thp=always")
        self.assertIn("taken by 2 threads (pft 3, pft 2)", line)
        # No counter held either's populate: the calls name both.
        d = self.doc([self.call(3, 0), self.call(2, 32 * MiB)])
        del d["kernel_side_threads"][1]
        _, line, args = verdict.verdict(d)
        self.assertEqual(verdict.quote(args),
                         "pft -t 2 -m 64M --touch=populate --thp=always")
        self.assertIn("taken by 2 threads (pft 2, pft 3)", line)

    def test_calls_elsewhere_are_no_workers(self):
        # Another process's call, and one beyond the VMA.
        d = self.doc([self.call(3, 0), self.call(5, 0, pid=4),
                      self.call(2, 64 * MiB)])
        self.assertEqual(line_of(d),
                         "pft -t 1 -m 64M --touch=populate --thp=always")

    def test_calls_recorded_from_perf_script(self):
        rec = Rec([], [])
        rec.madvises = [(5, 2, VMA, 32 * MiB, 23, 3),
                        (6, 2, VMA, 64 * MiB, 14, 2),
                        (7, 2, VMA + 32 * MiB, 32 * MiB, 22, 2)]
        self.assertEqual(analysis.populate_calls(rec), [
            self.call(3, 0),
            dict(self.call(2, 32 * MiB), advice="MADV_POPULATE_READ")])


if __name__ == "__main__":
    unittest.main()
