# SPDX-License-Identifier: GPL-2.0-or-later
# The mapping calls: perf script's lines of the syscall tracepoints read
# back, and the events asked of perf.
#
# Copyright (C) 2026 The libfaultgen authors

import unittest
from unittest import mock

from pft_survey import kinds, perfscript

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
