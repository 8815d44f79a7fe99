# SPDX-License-Identifier: GPL-2.0-or-later
# The mapping calls of a fault profile (pft-profile/1's "calls"): perf
# script's lines of the syscall tracepoints read back, the events asked
# of perf, each call's argument's word, its range joined to the VMAs it
# covered, the profile's rows (bins, objects, clipping, first and last
# page and pages, the same pages twice, no object, order; null where not
# recorded), the reader's errors (a row of 8, last below first)
# and --compare's rows per call and argument.
#
# Copyright (C) 2026 The libfaultgen authors

import contextlib
import io
import json
import os
import tempfile
import unittest
from unittest import mock

from pft_survey import (analysis, calls, cli, compare, kinds,
                        perfscript, profile, readprofile)
from pft_survey.fromsurvey import recording
from pft_survey.profile import Recording
from pft_survey.vmas import VmaIndex

from . import schemacheck

MS = 1000000
T0 = 1000000000
MiB = 1 << 20

# perf 6.1's perf script -F comm,pid,tid,time,period,event,addr,trace of
# the syscall tracepoints on Linux 6.18 (the addr field last: 0).
MPROTECT_LINE = (
    "         python3 14976/14976 77112.731217:          1 "
    "syscalls:sys_enter_mprotect: start: 0x7f32eee01000, len: 0x00001000, "
    "prot: 0x00000000               0")
MUNMAP_LINE = (
    "         python3 14976/14976 77112.714585:          1   "
    "syscalls:sys_enter_munmap: addr: 0x7f32ef361000, len: 0x0000b007"
    "               0")
MMAP_LINE = (
    "         python3 14976/14976 77112.716065:          1     "
    "syscalls:sys_enter_mmap: addr: 0x00000000, len: 0x00400000, prot: "
    "0x00000003, flags: 0x00000022, fd: 0xffffffffffffffff, off: "
    "0x00000000               0")
MMAP_FILE_LINE = (
    "         python3 14976/14977 77112.714337:          1     "
    "syscalls:sys_enter_mmap: addr: 0x7f32ef35d000, len: 0x00002000, prot: "
    "0x00000001, flags: 0x00000812, fd: 0x00000003, off: 0x00008000"
    "               0")
MADVISE_LINE = (
    "         python3 14976/14976 77112.727712:          1  "
    "syscalls:sys_enter_madvise: start: 0x7f32eef00000, len_in: 0x00100000,"
    " behavior: 0x00000004               0")
FAULT_LINE = (
    "         python3 14976/14976 77112.727700:          1  "
    "exceptions:page_fault_user: address=0x7f32eee00010 ip=0x7f589c6ceb70 "
    "error_code=0x6               0")
LOCK_LINE = (
    "         python3 14976/14976 77112.731300:          1  "
    "mmap_lock:mmap_lock_acquire_returned: mm=0000000012345678 memcg_id=0 "
    "write=false success=true")


class Parse(unittest.TestCase):
    def test_reads_each_calls_line(self):
        rec = perfscript.parse_script([MPROTECT_LINE, MUNMAP_LINE, MMAP_LINE,
                                       MMAP_FILE_LINE, MADVISE_LINE])
        self.assertEqual((rec.lost, rec.lines, rec.faults), (0, 5, []))
        self.assertEqual(rec.mprotects, [
            (77112731217000, 14976, 0x7f32eee01000, 0x1000, 0, 14976)])
        self.assertEqual(rec.munmaps, [
            (77112714585000, 14976, 0x7f32ef361000, 0xb007, None, 14976)])
        self.assertEqual(rec.mmap_calls, [
            (77112716065000, 14976, 0, 0x400000, (3, 0x22, -1, 0), 14976),
            (77112714337000, 14976, 0x7f32ef35d000, 0x2000,
             (1, 0x812, 3, 0x8000), 14977)])
        self.assertEqual(rec.madvises, [
            (77112727712000, 14976, 0x7f32eef00000, 0x100000, 4, 14976)])

    def test_a_call_after_a_fault_is_no_fallback(self):
        rec = perfscript.parse_script([FAULT_LINE, MPROTECT_LINE, LOCK_LINE])
        self.assertEqual(rec.lock_threads[14976]["fallbacks"], 0)
        rec = perfscript.parse_script([FAULT_LINE, LOCK_LINE])
        self.assertEqual(rec.lock_threads[14976]["fallbacks"], 1)

    def test_another_syscall_is_not_understood(self):
        rec = perfscript.parse_script([MPROTECT_LINE.replace(
            "sys_enter_mprotect", "sys_enter_mremap")])
        self.assertEqual((rec.lost, rec.mprotects), (1, []))


class Events(unittest.TestCase):
    def test_the_calls_tracepoints_with_the_tracepoints_alone(self):
        ev = kinds.events(kinds.TRACEPOINTS, True, False,
                          ("madvise", "mprotect", "munmap", "mmap"))
        for e in (kinds.MADVISE_EVENT, "syscalls:sys_enter_mprotect",
                  "syscalls:sys_enter_munmap", "syscalls:sys_enter_mmap"):
            self.assertEqual(ev.count(e), 1, e)
            self.assertEqual(ev[ev.index(e) - 1], "-e")
            self.assertNotIn(e, kinds.events(kinds.PAGE_FAULTS, True,
                                             False, ("mprotect",)))
        self.assertNotIn("syscalls:sys_enter_mmap",
                         kinds.events(kinds.TRACEPOINTS, True))

    def test_each_where_traceable_none_without_madvise(self):
        have = {kinds.MADVISE_EVENT, "syscalls:sys_enter_munmap"}
        with mock.patch.object(kinds, "traceable", lambda e: e in have):
            self.assertEqual(kinds.calls_traceable(), ("madvise", "munmap"))
        have = {"syscalls:sys_enter_munmap", "syscalls:sys_enter_mmap"}
        with mock.patch.object(kinds, "traceable", lambda e: e in have):
            self.assertEqual(kinds.calls_traceable(), ())


class Words(unittest.TestCase):
    def test_advice_names(self):
        for n, w in ((0, "normal"), (4, "dontneed"), (8, "free"),
                     (14, "hugepage"), (15, "nohugepage"),
                     (22, "populate_read"), (23, "populate_write"),
                     (25, "collapse"), (24, "24"), (103, "103")):
            self.assertEqual(calls.call_arg("madvise", n), w)

    def test_protections(self):
        for prot, w in ((0, "none"), (1, "r"), (3, "rw"), (5, "rx"),
                        (7, "rwx"), (2, "w"), (0x1000003, "rw")):
            self.assertEqual(calls.call_arg("mprotect", prot), w)
        self.assertIsNone(calls.call_arg("munmap", None))
        self.assertIsNone(calls.call_arg("mmap", (3, 0x22, -1, 0)))


def a_vma(start, end, **more):
    v = {"start": start, "end": end, "perms": "rw-p", "path": "",
         "first_ns": T0, "last_ns": T0 + 100 * MS}
    v.update(more)
    return v


class Join(unittest.TestCase):
    """Process 5: 16 pages of anonymous memory at 0x100000 and a file's
    pages 4-7 at 0x200000."""

    def setUp(self):
        self.anon = a_vma(0x100000, 0x110000, object=1)
        self.file = a_vma(0x200000, 0x204000, path="/data/x", ino=42,
                          dev="8:1", off=4 * 4096, perms="rw-s")
        self.index = {5: VmaIndex([self.anon, self.file], [])}

    def spans(self, start, end, t=T0 + MS):
        def find(pid, addr, t):
            return self.index[pid].find(addr, t) if pid in self.index \
                else None
        return calls.spans(self.index, find, 5, t, start, end)

    def test_a_range_in_one_vma(self):
        self.assertEqual(self.spans(0x104000, 0x106000),
                         [(("vma", 5, 1), 0x104, 0x106)])

    def test_a_range_over_two_vmas_and_a_hole_clipped_to_each(self):
        self.assertEqual(self.spans(0x10c000, 0x202000), [
            (("vma", 5, 1), 0x10c, 0x110), (("file", "8:1", 42), 4, 6)])

    def test_a_range_over_none(self):
        self.assertEqual(self.spans(0x300000, 0x400000), [])
        self.assertEqual(self.spans(0x104000, 0x104000), [])

    def test_lengths_rounded_up_calls_before_exec_left_out(self):
        rec = perfscript.Record()
        rec.munmaps = [(T0 + MS, 5, 0x104000, 0x1001, None, 5),
                       (T0 - MS, 5, 0x104000, 0x1000, None, 5)]
        rec.execs = {5: T0}
        out = calls.join(rec, self.index,
                         lambda pid, a, t: self.index[pid].find(a, t))
        self.assertEqual(out, [(T0 + MS, 5, 5, "munmap", None,
                                [(("vma", 5, 1), 0x104, 0x106)])])


def rec_of(recorded=("madvise", "mprotect", "munmap", "mmap")):
    """A program (pid 5, exec'd at T0) that maps 4 MiB (its MMAP record),
    faults its first page and its page at 1 MiB, advises 1 MiB of it
    away from 1 MiB, protects a page, and a thread (6) that faults
    nothing unmaps the last MiB."""
    base = 0x7f0000000000
    lines = [
        "prog 5/5 1.000000000: PERF_RECORD_COMM exec: prog:5/5",
        "prog 5/5 1.001000000: 1 syscalls:sys_enter_mmap: addr: 0x00000000,"
        " len: 0x00400000, prot: 0x00000003, flags: 0x00000022, fd: "
        "0xffffffffffffffff, off: 0x00000000 0",
        "prog 5/5 1.001000100: PERF_RECORD_MMAP2 5/5: [0x%x(0x400000) @ "
        "0x%x 00:00 0 0]: rw-p //anon" % (base, base),
        "prog 5/5 1.002000000: 1 exceptions:page_fault_user: address=0x%x "
        "ip=0x1000 error_code=0x6 0" % base,
        "prog 5/5 1.003000000: 1 exceptions:page_fault_user: address=0x%x "
        "ip=0x1000 error_code=0x6 0" % (base + MiB),
        "prog 5/5 1.013000000: 1 syscalls:sys_enter_madvise: start: 0x%x, "
        "len_in: 0x00100000, behavior: 0x00000004 0" % (base + MiB),
        "prog 5/5 1.014000000: 1 syscalls:sys_enter_mprotect: start: 0x%x, "
        "len: 0x00001000, prot: 0x00000001 0" % base,
        "prog 5/6 1.025000000: PERF_RECORD_FORK(5:6):(5:5)",
        "prog 5/6 1.026000000: 1 syscalls:sys_enter_munmap: addr: 0x%x, "
        "len: 0x00100000 0" % (base + 3 * MiB),
        "prog 7/7 1.027000000: 1 syscalls:sys_enter_munmap: addr: 0x%x, "
        "len: 0x00100000 0" % base,
    ]
    rec = perfscript.parse_script(lines)
    assert rec.lost == 0, rec.lost
    rec.source = kinds.TRACEPOINTS
    rec.calls_recorded = recorded
    return rec


class Snaps:
    def __init__(self):
        self.vmas, self.threads, self.procs = {}, {}, {}


def valid(test, prof):
    schema = schemacheck.load_schema()
    test.assertEqual(schemacheck.validate(prof, schema), [])
    test.assertEqual(schemacheck.validate(
        json.loads(profile.dumps(prof)), schema), [])
    readprofile.check("test", json.loads(profile.dumps(prof)))
    return prof


class FromSurvey(unittest.TestCase):
    def profile_of(self, rec, bin_ms=10):
        keep = {}
        doc = analysis.analyse(rec, Snaps(), None, 1, True, keep)
        r = recording(keep["facts"], rec, doc, 5, None, 1, 4096)
        return valid(self, profile.build(r, bin_ms))

    def test_the_calls_of_a_recording(self):
        prof = self.profile_of(rec_of())
        # The first event (the mmap call) at 0; the calls of 7 (no
        # process of the profile) left out; thread 6 added for its call.
        self.assertEqual([(t["id"], t["main"]) for t in prof["threads"]],
                         [(0, True), (1, False)])
        self.assertEqual(prof["calls"], [
            [0, None, 0, "mmap", None, 1, 0, 0, 0],
            [0, 0, 1, "madvise", "dontneed", 1, 256, 511, 256],
            [0, 0, 1, "mprotect", "r", 1, 0, 0, 1],
            [1, 0, 2, "munmap", None, 1, 768, 1023, 256]])
        self.assertEqual(prof["faults"][0][:3], [0, 0, 0])
        self.assertEqual(prof["duration_ms"], 25.0)

    def test_null_where_not_recorded_empty_where_none_made(self):
        rec = rec_of(())
        self.assertIsNone(self.profile_of(rec)["calls"])
        rec = rec_of()
        rec.madvises = rec.mprotects = rec.munmaps = rec.mmap_calls = []
        prof = self.profile_of(rec)
        self.assertEqual(prof["calls"], [])
        self.assertIn('"calls": []', profile.dumps(prof))

    def test_calls_in_wider_bins(self):
        prof = self.profile_of(rec_of(), 20)
        self.assertEqual([(c[0], c[2], c[3]) for c in prof["calls"]],
                         [(0, 0, "mmap"), (0, 0, "madvise"),
                          (0, 0, "mprotect"), (1, 1, "munmap")])


def a_recording():
    """Process 10 (threads 10, 11): an anonymous object of 16 pages
    (key a) and a file of 4 (key f); the first fault at T0."""
    r = Recording(kinds.TRACEPOINTS)
    a, f = ("vma", 10, 1), ("file", "8:1", 42)
    for key, size, backing in ((a, 16 * 4096, "anonymous"),
                               (f, 4 * 4096, "file")):
        r.objects[key] = {"backing": backing, "size": size, "writable": True,
                          "thp": False, "huge_bytes": 0, "creator": 10,
                          "path": ""}
    r.processes[10] = {"parent": None, "fork_ns": None, "exit_ns": None,
                       "objects": {a, f}, "command": None}
    for tid in (10, 11):
        r.threads[tid] = {"pid": 10, "start_ns": None, "end_ns": None,
                          "name": None}
    r.events = [(T0, 10, a, "first-touch", 0, 1),
                (T0 + MS, 10, f, "read", 0, 1)]
    return r, a, f


class Rows(unittest.TestCase):
    def build(self, cs, bin_ms=10):
        r, _, _ = a_recording()
        r.calls = cs
        return valid(self, profile.build(r, bin_ms))

    def test_none_recorded_is_null(self):
        self.assertIsNone(self.build(None)["calls"])
        self.assertEqual(self.build([])["calls"], [])

    def test_a_row_per_thread_object_bin_call_and_arg(self):
        _, a, f = a_recording()
        rows = self.build([
            (T0 + 2 * MS, 10, "madvise", "dontneed", a, 4, 2),
            (T0 + 3 * MS, 10, "madvise", "dontneed", a, 1, 2),
            (T0 + 4 * MS, 10, "madvise", "willneed", a, 0, 16),
            (T0 + 15 * MS, 10, "madvise", "dontneed", a, 0, 1),
            (T0 + 5 * MS, 11, "mprotect", "none", a, 8, 1),
            (T0 + 6 * MS, 11, "mprotect", "rw", f, 2, 1),
            (T0 + 7 * MS, 10, "munmap", None, None, 0, 0),
            (T0 + 8 * MS, 10, "mmap", None, None, 0, 0),
            (T0 + 9 * MS, 10, "mmap", None, None, 0, 0),
        ])["calls"]
        # Two dontneed calls of bin 0: pages 1 to 5, 4 pages in all.
        self.assertEqual(rows, [
            [0, None, 0, "mmap", None, 2, 0, 0, 0],
            [0, None, 0, "munmap", None, 1, 0, 0, 0],
            [0, 0, 0, "madvise", "dontneed", 2, 1, 5, 4],
            [0, 0, 0, "madvise", "willneed", 1, 0, 15, 16],
            [1, 0, 0, "mprotect", "none", 1, 8, 8, 1],
            [1, 1, 0, "mprotect", "rw", 1, 2, 2, 1],
            [0, 0, 1, "madvise", "dontneed", 1, 0, 0, 1]])

    def test_ranges_clipped_to_the_object(self):
        _, a, f = a_recording()
        rows = self.build([
            (T0, 10, "munmap", None, a, -4, 8),         # pages 0-3
            (T0, 11, "munmap", None, f, 2, 100),        # pages 2-3
            (T0, 11, "mprotect", "r", f, 4, 2),         # beyond it
            (T0, 11, "mprotect", "r", f, -3, 2),        # below it
        ])["calls"]
        self.assertEqual(rows, [
            [0, 0, 0, "munmap", None, 1, 0, 3, 4],
            [1, None, 0, "mprotect", "r", 2, 0, 0, 0],
            [1, 1, 0, "munmap", None, 1, 2, 3, 2]])

    def test_last_tells_the_same_pages_twice_from_others(self):
        _, a, _ = a_recording()
        rows = self.build([
            # The same 8 pages given back twice (a program zapping the
            # pages it faulted again between two passes).
            (T0, 10, "madvise", "dontneed", a, 4, 8),
            (T0 + 5 * MS, 10, "madvise", "dontneed", a, 4, 8),
            # Two disjoint ranges, the higher first: last is its end.
            (T0, 11, "madvise", "free", a, 10, 3),          # pages 10-12
            (T0 + MS, 11, "madvise", "free", a, 0, 2),      # pages 0-1
        ])["calls"]
        self.assertEqual(rows, [
            [0, 0, 0, "madvise", "dontneed", 2, 4, 11, 16],
            [1, 0, 0, "madvise", "free", 2, 0, 12, 5]])

    def test_calls_of_unknown_threads_and_objects(self):
        _, a, _ = a_recording()
        rows = self.build([
            (T0, 99, "munmap", None, a, 0, 1),              # no thread
            (T0, 10, "munmap", None, ("vma", 10, 9), 0, 1),  # no object
        ])["calls"]
        self.assertEqual(rows, [[0, None, 0, "munmap", None, 1, 0, 0, 0]])

    def test_a_call_before_the_first_fault_starts_the_profile(self):
        _, a, _ = a_recording()
        prof = self.build([(T0 - 25 * MS, 10, "mmap", None, None, 0, 0)])
        self.assertEqual(prof["calls"],
                         [[0, None, 0, "mmap", None, 1, 0, 0, 0]])
        self.assertEqual([r[2] for r in prof["faults"]], [2, 2])
        self.assertEqual(prof["duration_ms"], 26.0)

    def test_sized_for_mail_with_the_calls(self):
        r, a, _ = a_recording()
        # A call every 10 ms for 10 s: a row a bin, merged in wider bins.
        r.calls = [(T0 + i * 10 * MS, 10, "madvise", "dontneed", a, 0, 1)
                   for i in range(1000)]
        at10 = len(profile.dumps(profile.build(r)))
        at20 = len(profile.dumps(profile.build(r, 20)))
        self.assertLess(at20, at10)
        prof, text, first = profile.build_sized(r, limit=at20)
        self.assertEqual((first, len(text), prof["bin_ms"]), (at10, at20, 20))
        self.assertEqual(sum(c[5] for c in prof["calls"]), 1000)
        self.assertEqual(len([x for x in text.splitlines()
                              if '"madvise"' in x]), 500)
        prof, text, _ = profile.build_sized(r, limit=at20 - 1)
        self.assertEqual(prof["bin_ms"], 50)
        self.assertLess(len(text), at20)


def a_profile(cs, period=1):
    return {"schema": "pft-profile/1", "recorder": "test",
            "source": "tracepoints", "period": period, "bin_ms": 10,
            "duration_ms": 40.0, "page_size": 4096, "names": False,
            "objects": [{"id": 0, "backing": "anonymous", "size": MiB,
                         "writable": True, "thp": False, "huge_bytes": 0,
                         "creator": 0}],
            "processes": [{"id": 0, "parent": None, "fork_ms": 0.0,
                           "exit_ms": None, "objects": [0]}],
            "threads": [{"id": 0, "process": 0, "start_ms": 0.0,
                         "end_ms": None, "main": True}],
            "faults": [[0, 0, 0, 1, "first-touch", 4, 0, 3, "seq", 1]],
            "without_event": [], "calls": cs}


ROWS = [[0, None, 0, "mmap", None, 1, 0, 0, 0],
        [0, 0, 1, "madvise", "dontneed", 2, 128, 255, 256],
        [0, 0, 2, "madvise", "dontneed", 1, 0, 0, 1],
        [0, 0, 2, "mprotect", "r", 3, 0, 2, 3]]


class Read(unittest.TestCase):
    def refused(self, edit, words):
        doc = a_profile([list(r) for r in ROWS])
        edit(doc)
        with self.assertRaises(readprofile.ProfileError) as e:
            readprofile.check("p.json", doc)
        self.assertEqual(len(str(e.exception).splitlines()), 1)
        self.assertIn(words, str(e.exception))

    def test_rows_and_null_are_read(self):
        for cs in (None, [], ROWS):
            doc = a_profile(cs)
            self.assertEqual(schemacheck.validate(
                doc, schemacheck.load_schema()), [])
            self.assertIs(readprofile.check("p.json", doc), doc)

    def test_bad_rows_name_the_field(self):
        self.refused(lambda d: d.pop("calls"), "member 'calls' missing")
        self.refused(lambda d: d.update(calls={}),
                     "member 'calls': a list or null expected")
        self.refused(lambda d: d["calls"][1].pop(),
                     "member 'calls[1]': a list of 9 values")
        # A row of before last was given (first, then pages).
        self.refused(lambda d: d["calls"].__setitem__(
            1, [0, 0, 1, "madvise", "dontneed", 2, 128, 256]),
                     "member 'calls[1]': a list of 9 values (thread, "
                     "object, bin, call, arg, count, first, last, pages)")
        self.refused(lambda d: d["calls"][1].__setitem__(3, "mremap"),
                     "member 'calls[1][3]': one of madvise")
        self.refused(lambda d: d["calls"][1].__setitem__(4, 4),
                     "member 'calls[1][4]': a string or null (arg) expected")
        self.refused(lambda d: d["calls"][2].__setitem__(5, -1),
                     "member 'calls[2][5]'")
        self.refused(lambda d: d["calls"][2].__setitem__(6, 1.5),
                     "member 'calls[2][6]'")
        self.refused(lambda d: d["calls"][2].__setitem__(7, -1),
                     "member 'calls[2][7]': an integer of 0 or more (last)")
        self.refused(lambda d: d["calls"][3].__setitem__(8, "3"),
                     "member 'calls[3][8]': an integer of 0 or more (pages)")
        self.refused(lambda d: d["calls"][1].__setitem__(1, 1),
                     "member 'calls[1][1]': one of the objects")
        self.refused(lambda d: d["calls"][3].__setitem__(0, 2),
                     "member 'calls[3][0]': one of the threads")

    def test_last_below_first_refused_where_an_object_is_given(self):
        self.refused(lambda d: d["calls"][1].__setitem__(7, 127),
                     "member 'calls[1][7]': last of first (128) or more "
                     "expected where an object is given, not 127")
        self.refused(lambda d: d["calls"][3].__setitem__(6, 3),
                     "member 'calls[3][7]': last of first (3) or more")
        # No object: first and last say nothing.
        doc = a_profile([[0, None, 0, "munmap", None, 1, 0, 0, 0]])
        self.assertIs(readprofile.check("p.json", doc), doc)

    def test_first_and_last_within_the_objects_size(self):
        # The object: 1 MiB, pages 0 to 255 (libfaultgen's reader
        # refuses a page beyond them too).
        self.refused(lambda d: d["calls"][1].__setitem__(7, 256),
                     "member 'calls[1][7]': a page of object 0 (0 to 255: "
                     "1048576 bytes) expected, not 256")
        self.refused(lambda d: d["calls"][1][6:8].__len__() and
                     d["calls"][1].__setitem__(6, 1 << 40),
                     "member 'calls[1][6]': a page of object 0 (0 to 255")
        self.refused(lambda d: d["faults"][0].__setitem__(7, 256),
                     "member 'faults[0][7]': a page of object 0 (0 to 255")
        self.refused(lambda d: d["faults"][0].__setitem__(6, 300),
                     "member 'faults[0][6]': a page of object 0 (0 to 255")
        self.refused(lambda d: d["faults"][0].__setitem__(6, 4),
                     "member 'faults[0][7]': last_page of first_page (4) "
                     "or more expected, not 3")
        self.refused(lambda d: d["objects"][0].__setitem__("size", 6000),
                     "member 'objects[0].size': a whole number of pages "
                     "of 4096 bytes, 1 or more expected, not 6000")
        self.refused(lambda d: d["objects"][0].__setitem__("size", 0),
                     "member 'objects[0].size'")
        # Its last page, and any pages where no object is given.
        doc = a_profile([[0, 0, 0, "madvise", "dontneed", 1, 255, 255, 1],
                         [0, None, 0, "munmap", None, 1, 1 << 40,
                          1 << 41, 0]])
        doc["faults"][0][6:8] = [255, 255]
        self.assertIs(readprofile.check("p.json", doc), doc)

    def test_a_stride_within_the_objects_pages(self):
        # As libfaultgen's reader: 0 to the object's pages (256), and 1
        # or more where the order is strided.
        self.refused(lambda d: d["faults"][0].__setitem__(9, 257),
                     "member 'faults[0][9]': a stride of 0 to 256 pages "
                     "(object 0's) expected, not 257")
        def strided_by_0(d):
            d["faults"][0][8:10] = ["stride", 0]
        self.refused(strided_by_0,
                     "member 'faults[0][9]': a stride of 1 page or more "
                     "(order stride) expected, not 0")
        doc = a_profile([list(r) for r in ROWS])
        doc["faults"][0][8:10] = ["stride", 256]
        self.assertIs(readprofile.check("p.json", doc), doc)
        doc["faults"][0][8:10] = ["random", 0]
        self.assertIs(readprofile.check("p.json", doc), doc)

    def test_the_schema_refuses_them_too(self):
        schema = schemacheck.load_schema()
        for i, v in ((3, "mremap"), (4, 4), (1, -1), (7, None), (8, -1)):
            row = list(ROWS[1])
            row[i] = v
            self.assertNotEqual(schemacheck.validate(
                a_profile([row]), schema), [], (i, v))
        for row in (ROWS[1][:8], ROWS[1] + [0]):
            self.assertNotEqual(schemacheck.validate(
                a_profile([row]), schema), [], row)


class Compare(unittest.TestCase):
    def test_per_call_and_arg(self):
        b = [[0, 0, 0, "madvise", "dontneed", 6, 0, 9],
             [0, 0, 0, "munmap", None, 1, 0, 1]]
        self.assertEqual(compare.calls(a_profile(ROWS), a_profile(b)), [
            {"call": "madvise", "arg": "dontneed", "a": 3, "b": 6,
             "ratio": 2.0},
            {"call": "mmap", "arg": None, "a": 1, "b": 0, "ratio": 0.0},
            {"call": "mprotect", "arg": "r", "a": 3, "b": 0, "ratio": 0.0},
            {"call": "munmap", "arg": None, "a": 0, "b": 1, "ratio": None}])

    def test_scaled_by_the_period_none_where_not_recorded(self):
        self.assertEqual(compare.calls(a_profile(ROWS[:1], period=4),
                                       a_profile(None)),
                         [{"call": "mmap", "arg": None, "a": 4, "b": None,
                           "ratio": None}])
        self.assertIsNone(compare.calls(a_profile(None), a_profile(None)))
        self.assertEqual(compare.calls(a_profile([]), a_profile(None)), [])

    def run_cli(self, a, b, *more):
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for name, doc in (("a.json", a), ("b.json", b)):
                paths.append(os.path.join(d, name))
                with open(paths[-1], "w") as f:
                    json.dump(doc, f)
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), \
                    contextlib.redirect_stderr(err):
                rc = cli.main(["--compare"] + paths + list(more))
        self.assertEqual((rc, err.getvalue()), (0, ""))
        return out.getvalue()

    def test_text_and_json(self):
        a, b = a_profile(ROWS), a_profile(ROWS[1:2])
        d = json.loads(self.run_cli(a, b, "--json"))
        self.assertEqual(d["calls"][0], {"call": "madvise",
                                         "arg": "dontneed", "a": 3, "b": 2,
                                         "ratio": 2 / 3})
        text = self.run_cli(a, b)
        self.assertIn("\nmapping calls", text)
        self.assertRegex(text, r"\n  madvise +dontneed +3 +2 +0\.667\n")
        self.assertRegex(text, r"\n  mmap +- +1 +0 +0\.000\n")

    def test_nothing_where_neither_recorded_them(self):
        a = a_profile(None)
        self.assertNotIn("calls", json.loads(self.run_cli(a, a, "--json")))
        self.assertNotIn("mapping calls", self.run_cli(a, a))


if __name__ == "__main__":
    unittest.main()
