# SPDX-License-Identifier: GPL-2.0-or-later
# pft-survey's facts without perf: the kind of each fault (from the
# tracepoints' error code, or without it), the objects across
# processes, VMAs followed over snapshots and MMAP records, and the
# verdict from those facts.
#
# Copyright (C) 2026 The libfaultgen authors

import io
import unittest
from unittest import mock

from pft_survey import check, kinds, objects, perfscript, proc, verdict, vmas

from . import fakesys


# The verdicts below are of a machine of 2 CPUs, whatever CPUs the
# tests run on.
setUpModule, tearDownModule = fakesys.two_cpus()

PAGE = kinds.PAGE
MiB = 1 << 20

# perf script of the tracepoints and major-faults, as perf 6.1 prints
# them with -F comm,pid,tid,time,period,event,addr,trace.
TRACE = """\
  pft 10/10  1.000000100: PERF_RECORD_MMAP2 10/10: [0x7f0000000000(0x400000) @ 0x7f0000000000 00:00 0 0]: rw-p //anon
  pft 10/10  1.000000200: PERF_RECORD_MMAP2 10/10: [0x7f1000000000(0x400000) @ 0 00:01 77 0]: rw-s /dev/zero (deleted)
  pft 10/10  1.000001000:          1   exceptions:page_fault_user: address=0x7f0000000010 ip=0x55 error_code=0x6               0
  pft 10/11  1.000002000:          1   exceptions:page_fault_user: address=0x7f0000001010 ip=0x55 error_code=0x7               0
  pft 10/10  1.000003000:          1 exceptions:page_fault_kernel: address=0x7f0000002000 ip=_copy_to_user error_code=0x2               0
  pft 10/10  1.000004000:          1 exceptions:page_fault_kernel: address=0xffffc90000001000 ip=vmalloc error_code=0x0               0
  pft 10/10  1.000005000:          1   exceptions:page_fault_user: address=0x7f0000003000 ip=0x55 error_code=0x4               0
  pft 10/10  1.000006000:          1   exceptions:page_fault_user: address=0x7f1000000000 ip=0x55 error_code=0x7               0
  pft 10/10  1.000007000:          1 major-faults:     7f0000003000
"""


def rec_of(text):
    return perfscript.parse_script(io.StringIO(text))


class Tracepoints(unittest.TestCase):
    def test_reads_the_error_code_and_leaves_kernel_addresses_out(self):
        rec = rec_of(TRACE)
        self.assertEqual(len(rec.faults), 5)
        self.assertEqual(rec.codes, [6, 7, 2, 4, 7])
        self.assertEqual(rec.kernel_addr_faults, 1)
        self.assertEqual(rec.majors, [(1000007000, 10, 10, 0x7f0000003000,
                                       1)])

    def test_reads_the_object_of_mmap_records(self):
        rec = rec_of(TRACE)
        self.assertEqual(rec.mmap_files[1], ("00:01", 77, 0))
        self.assertEqual(rec.mmap_files[0][1], 0)

    def test_a_files_record_and_its_snapshot_are_one_object(self):
        # perf prints the device as maps does: a file that one process's
        # snapshot saw and another's record alone is one object.
        rec = rec_of("  java 20/20  1.000000300: PERF_RECORD_MMAP2 20/20: "
                     "[0x7f2000000000(0x2000) @ 0x3000 fe:00 42 0]: "
                     "rw-p /usr/lib/x.jsa\n")
        seen = proc.parse_maps("7f3000000000-7f3000002000 r--p 00003000 "
                               "fe:00 42 /usr/lib/x.jsa\n")[0]
        v = vmas.mmap_vmas(rec.mmaps, rec.mmap_files)[0]
        self.assertEqual(objects.object_key(20, v),
                         objects.object_key(21, seen))

    def test_error_code_bits(self):
        self.assertEqual(kinds.from_code(0x6, False), kinds.FIRST_TOUCH)
        self.assertEqual(kinds.from_code(0x4, False), kinds.READ)
        self.assertEqual(kinds.from_code(0x14, False), kinds.READ)
        self.assertEqual(kinds.from_code(0x7, False), kinds.COW)
        self.assertEqual(kinds.from_code(0x7, True), kinds.WRITE_NOTIFY)
        self.assertEqual(kinds.from_code(0x2, False), kinds.KERNEL)
        self.assertEqual(kinds.from_code(0x0, False), kinds.KERNEL)

    def test_each_fault_its_kind_and_major_from_its_event(self):
        rec = rec_of(TRACE)
        anon = {"start": 0x7f0000000000, "end": 0x7f0000400000,
                "perms": "rw-p", "path": ""}
        shm = {"start": 0x7f1000000000, "end": 0x7f1000400000,
               "perms": "rw-s", "path": "/dev/zero (deleted)", "ino": 77}
        vma_of = [anon, anon, anon, anon, shm]
        k, b, unmatched = kinds.classify(rec, vma_of)
        self.assertEqual(k, [kinds.FIRST_TOUCH, kinds.COW, kinds.KERNEL,
                             kinds.MAJOR, kinds.WRITE_NOTIFY])
        self.assertEqual(b, [PAGE] * 5)
        self.assertEqual(unmatched, 0)

    def test_a_major_fault_without_an_event_is_counted_apart(self):
        rec = rec_of("  x 5/5  1.0: 1 major-faults:  7f0000009000\n")
        self.assertEqual(kinds.classify(rec, [])[2], 1)


def fault_lines(faults):
    """perf script lines of page-faults events: (time_s, pid, tid, addr)."""
    return "".join("  p %d/%d  %.6f: 1 page-faults:  %x\n" % (pid, tid, t, a)
                   for (t, pid, tid, a) in faults)


class WithoutTracepoints(unittest.TestCase):
    def test_a_page_faulted_again_is_a_refault_also_in_a_forked_child(self):
        a = 0x7f0000000000
        text = fault_lines([(1.0, 5, 5, a), (1.1, 5, 5, a + PAGE)]) + \
            "  p 6/6  1.2: PERF_RECORD_FORK(6:6):(5:5)\n" + \
            fault_lines([(1.3, 5, 5, a), (1.4, 6, 6, a + PAGE),
                         (1.5, 6, 6, a + 2 * PAGE), (1.6, 5, 5, a + 2 * PAGE)])
        rec = rec_of(text)
        v = {"start": a, "end": a + MiB, "perms": "rw-p", "path": ""}
        k, _, _ = kinds.classify(rec, [v] * len(rec.faults))
        self.assertEqual(k, [kinds.USER, kinds.USER, kinds.REFAULT,
                             kinds.REFAULT, kinds.USER, kinds.USER])

    def test_a_page_present_when_the_survey_attached_is_a_refault(self):
        a = 0x7f0000000000
        rec = rec_of(fault_lines([(1.0, 5, 5, a), (1.1, 5, 5, a + PAGE)]) +
                     "  p 6/6  1.2: PERF_RECORD_FORK(6:6):(5:5)\n" +
                     fault_lines([(1.3, 6, 6, a + PAGE)]))
        v = {"start": a, "end": a + MiB, "perms": "rw-p", "path": ""}
        k, _, _ = kinds.classify(rec, [v] * 3, {5: {(a + PAGE) // PAGE}})
        self.assertEqual(k, [kinds.USER, kinds.REFAULT, kinds.REFAULT])

    def test_pagemap_tells_the_pages_present(self):
        import mmap
        import os
        import ctypes
        m = mmap.mmap(-1, 4 * PAGE, flags=mmap.MAP_PRIVATE |
                      mmap.MAP_ANONYMOUS)
        m[PAGE] = 1             # one page of four written
        with open("/proc/self/maps") as f:
            views = proc.parse_maps(f.read())
        pages = vmas.present_pages(os.getpid(), views, PAGE)
        buf = ctypes.c_char.from_buffer(m)
        first = ctypes.addressof(buf) // PAGE
        del buf
        self.assertTrue(first + 1 in pages)
        self.assertFalse(first + 2 in pages)
        m.close()
        self.assertEqual(vmas.present_pages(2 ** 22 + 7, views), set())

    def test_the_report_says_what_is_not_told_apart(self):
        untold = " ".join(kinds.not_told_apart(kinds.PAGE_FAULTS))
        self.assertIn("read, write and copy-on-write", untold)
        self.assertIn("kernel-mode faults", untold)
        self.assertNotIn("read, write and copy-on-write",
                         " ".join(kinds.not_told_apart(kinds.TRACEPOINTS)))


class Huge(unittest.TestCase):
    START = 0x7f0000000000

    def vma(self, huge, smaps_ns=None):
        return {"start": self.START, "end": self.START + 8 * MiB,
                "perms": "rw-p", "path": "", "huge_max": huge,
                "smaps_ns": smaps_ns}

    def classify(self, v, faults):
        rec = rec_of(fault_lines(faults))
        return kinds.classify(rec, [v] * len(rec.faults))

    def test_one_fault_per_2_mib_with_huge_pages_seen_is_2_mib(self):
        faults = [(1 + i / 10, 5, 5, self.START + i * 2 * MiB + 64)
                  for i in range(4)]
        k, b, _ = self.classify(self.vma(8 * MiB, 2000000000), faults)
        self.assertEqual(k, [kinds.HUGE_KIND] * 4)
        self.assertEqual(sum(b), 8 * MiB)

    def test_no_huge_pages_seen_no_huge_fault(self):
        faults = [(1 + i / 10, 5, 5, self.START + i * 2 * MiB)
                  for i in range(4)]
        k, b, _ = self.classify(self.vma(0, 2000000000), faults)
        self.assertEqual(k, [kinds.USER] * 4)
        self.assertEqual(sum(b), 4 * PAGE)

    def test_as_many_as_smaps_saw_and_4k_faults_stay_4k(self):
        # 2 ranges of one fault each, smaps saw one huge page after both;
        # a third range faulted page by page.
        faults = [(1.0, 5, 5, self.START), (1.1, 5, 5, self.START + 2 * MiB)]
        faults += [(1.2 + i / 1000, 5, 5, self.START + 4 * MiB + i * PAGE)
                   for i in range(3)]
        k, _, _ = self.classify(self.vma(2 * MiB, 1500000000), faults)
        self.assertEqual(k.count(kinds.HUGE_KIND), 1)
        self.assertEqual(k[2:], [kinds.USER] * 3)

    def test_a_vma_smaps_never_saw_after_its_faults_takes_the_peak(self):
        faults = [(1 + i / 10, 5, 5, self.START + i * 2 * MiB + 64)
                  for i in range(4)]
        rec = rec_of(fault_lines(faults))
        v = self.vma(0, 500000000)          # seen before the faults only
        k, b, _ = kinds.classify(rec, [v] * 4, None, 9 * MiB)
        self.assertEqual(k, [kinds.HUGE_KIND] * 4)
        # A peak that cannot hold them: 4 KiB faults.
        k, b, _ = kinds.classify(rec, [v] * 4, None, 2 * MiB)
        self.assertEqual(k, [kinds.USER] * 4)
        # Seen by smaps after them, without huge pages: 4 KiB faults.
        v = self.vma(0, 9000000000)
        k, b, _ = kinds.classify(rec, [v] * 4, None, 9 * MiB)
        self.assertEqual(k, [kinds.USER] * 4)

    def test_the_last_fault_of_a_range_faulted_page_by_page(self):
        # A replay's 4 MiB object written page by page, smaps's last view
        # (no huge page) before the last fault of its one whole 2 MiB
        # range: that fault is not alone in its range, not a huge page.
        faults = [(1 + i / 1000, 5, 5, self.START + i * PAGE)
                  for i in range(512)]
        rec = rec_of(fault_lines(faults))
        v = self.vma(0, 1510000000)
        k, b, _ = kinds.classify(rec, [v] * 512, None, 9 * MiB)
        self.assertNotIn(kinds.HUGE_KIND, k)
        self.assertEqual(sum(b), 512 * PAGE)

    def test_hugetlb_faults_are_its_pages(self):
        v = dict(self.vma(0), KernelPageSize=2 * MiB)
        k, b, _ = self.classify(v, [(1.0, 5, 5, self.START)])
        self.assertEqual((k, b), ([kinds.HUGE_KIND], [2 * MiB]))


class Objects(unittest.TestCase):
    def test_keys(self):
        shm = {"start": 0x1000, "end": 0x2000, "perms": "rw-s",
               "path": "/dev/zero (deleted)", "dev": "00:01", "ino": 9}
        self.assertEqual(objects.object_key(5, shm), ("file", "00:01", 9))
        self.assertEqual(objects.object_key(6, dict(shm, start=0x9000)),
                         ("file", "00:01", 9))
        # A SysV segment of a fresh IPC namespace: shmid, so inode, 0.
        sysv = dict(shm, path="/SYSV00000000 (deleted)", ino=0)
        self.assertEqual(objects.object_key(5, sysv), ("file", "00:01", 0))
        # /dev/zero mapped private is anonymous memory of the process.
        zero = dict(shm, perms="rw-p", path="/dev/zero", ino=4, object=3)
        self.assertEqual(objects.object_key(5, zero), ("vma", 5, 3))
        anon = {"start": 0x1000, "end": 0x2000, "perms": "rw-p", "path": "",
                "object": 7}
        self.assertEqual(objects.object_key(5, anon), ("vma", 5, 7))

    def test_shared_pages_and_processes_at_once(self):
        facts = objects.Facts(kinds.TRACEPOINTS)
        key = ("file", "00:01", 9)
        v = {"start": 0x1000, "end": 0x9000, "perms": "rw-s",
             "path": "/memfd:x (deleted)", "ino": 9, "off": 0}
        facts.add_vma(key, 5, v, "memfd/shmem")
        # Processes 5 and 6 map it at other addresses, and 6 at an offset.
        v6 = dict(v, start=0x11000, end=0x19000, off=PAGE)
        facts.add_vma(key, 6, v6, "memfd/shmem")
        for (t, pid, tid, vv, addr) in (
                (100, 5, 5, v, 0x1000), (200, 6, 6, v6, 0x11000),
                (300, 5, 5, v, 0x3000), (2000000, 6, 7, v6, 0x14000)):
            facts.add(key, pid, tid, kinds.FIRST_TOUCH, t, 1, PAGE,
                      objects.page_index(vv, addr))
        o = objects.summary(facts, key, {})
        self.assertEqual((o["processes"], o["threads"]), (2, 3))
        # File pages 0 and 2 by process 5, 1 and 4 by process 6 (its
        # VMA starts at the file's page 1): none by both.
        self.assertEqual(o["pages"], 4)
        self.assertEqual(o["pages_by_more_than_one_process"], 0)
        facts.add(key, 6, 6, kinds.FIRST_TOUCH, 400, 1, PAGE,
                  objects.page_index(v6, 0x12000))   # file page 2
        o = objects.summary(facts, key, {})
        self.assertEqual(o["pages_by_more_than_one_process"], 1)
        self.assertEqual(o["concurrency_processes_max"], 2)
        self.assertEqual(o["kinds"][kinds.FIRST_TOUCH]["bytes"], 5 * PAGE)
        # 4 distinct pages; 5 in the processes' page tables (page 2 in
        # both).
        self.assertEqual(o["distinct_bytes"], 4 * PAGE)
        self.assertEqual(o["process_bytes"], 5 * PAGE)

    def test_gaps_a_thread_leaves_that_another_filled(self):
        facts = objects.Facts(kinds.PAGE_FAULTS)
        key = ("vma", 1, 1)
        facts.add_vma(key, 1, {"start": 0, "end": 64 * PAGE, "perms": "rw-p",
                               "path": ""}, "anonymous")
        # Thread 2: pages 0-7 and 16-23, thread 3 pages 8-15 (chunks in
        # turn); thread 4 pages 32-39 and 44-47 (a hole nobody faulted).
        for tid, pgs in ((2, list(range(0, 8)) + list(range(16, 24))),
                         (3, range(8, 16)),
                         (4, list(range(32, 40)) + list(range(44, 48)))):
            for pg in pgs:
                facts.add(key, 1, tid, kinds.USER, pg, 1, PAGE, pg)
        th = {t["tid"]: t for t in
              objects.summary(facts, key, {})["top_threads"]}
        self.assertEqual(th[2]["gaps_filled_by_others"], 1)
        self.assertEqual(th[3]["gaps_filled_by_others"], 0)
        self.assertEqual(th[4]["runs"], 2)
        self.assertEqual(th[4]["gaps_filled_by_others"], 0)

    def test_chunks_claimed_in_turn(self):
        self.assertEqual(objects.runs([1, 2, 3, 4]), (1, 4))
        self.assertEqual(objects.runs(list(range(0, 4)) + list(range(8, 16))
                                      + list(range(20, 22))), (3, 4))


class Tracking(unittest.TestCase):
    """VMAs followed over snapshots (smaps or maps) and MMAP records."""

    A = "0000000000020000-0000000000030000 rw-p 00000000 00:00 0 \n"
    AB = "0000000000010000-0000000000030000 rw-p 00000000 00:00 0 \n"

    def track(self, views, smaps=True):
        tr = vmas.Sightings()
        for n, text in enumerate(views):
            tr.update(proc.parse_maps(text), 1000 * (n + 1), smaps)
        return tr

    def test_a_smaps_view_after_a_shrink_keeps_the_extent_it_had(self):
        # Grown down over B, then shrunk back, each seen by smaps: the
        # faults made in B's range while it was there stay this VMA's.
        tr = self.track([self.A, self.AB, self.A])
        (v,) = tr.all.values()
        self.assertEqual((v["start"], v["end"]), (0x10000, 0x30000))
        self.assertEqual(vmas.extent_at(v, 1500), [(0x20000, 0x30000),
                                                   (0x10000, 0x30000)])

    def test_a_stack_after_an_exec_is_not_the_old_one_moved(self):
        # A shell's stack, then after its exec the program's, of the same
        # size elsewhere: two objects (one, moved, spanned both).
        old = "00007ffd00000000-00007ffd00021000 rw-p 00000000 00:00 0 [stack]\n"
        new = "00007ffe10000000-00007ffe10021000 rw-p 00000000 00:00 0 [stack]\n"
        tr = vmas.Sightings()
        tr.update(proc.parse_maps(old), 1000, True, "/usr/bin/dash")
        tr.update(proc.parse_maps(new), 2000, True, "/usr/bin/pft")
        self.assertEqual(len({v["object"] for v in tr.all.values()}), 2)
        # Without an exec, the same is a stack moved (mremap): one.
        tr = vmas.Sightings()
        tr.update(proc.parse_maps(old), 1000, True, "/usr/bin/pft")
        tr.update(proc.parse_maps(new), 2000, True, "/usr/bin/pft")
        self.assertEqual(len({v["object"] for v in tr.all.values()}), 1)

    def test_pieces_of_a_split_and_a_moved_vma_keep_their_object(self):
        whole = "0000000000100000-0000000000400000 rw-p 00000000 00:00 0 \n"
        parts = "0000000000100000-0000000000200000 rw-p 00000000 00:00 0 \n" \
            "0000000000200000-0000000000300000 r--p 00000000 00:00 0 \n" \
            "0000000000300000-0000000000400000 rw-p 00000000 00:00 0 \n"
        tr = self.track([whole, parts])
        self.assertEqual(len({v["object"] for v in tr.all.values()}), 1)
        moved = "0000000000900000-0000000000a00000 rw-p 00000000 00:00 0 \n"
        tr = self.track([moved.replace("09", "05").replace("0a", "06"),
                         moved])
        self.assertEqual(len(tr.all), 2)
        self.assertEqual(len({v["object"] for v in tr.all.values()}), 1)
        # Moved over a range reserved for it (PROT_NONE) beforehand.
        src = moved.replace("09", "05").replace("0a", "06")
        tr = self.track([src + moved.replace("rw-p", "---p"), moved])
        objs = {(v["start"], v["perms"]): v["object"]
                for v in tr.all.values()}
        self.assertEqual(objs[(0x900000, "rw-p")], objs[(0x500000, "rw-p")])
        self.assertNotEqual(objs[(0x900000, "---p")],
                            objs[(0x500000, "rw-p")])
        # mprotect of a whole VMA, nothing gone: the same VMA.
        tr = self.track([moved, moved.replace("rw-p", "r--p")])
        self.assertEqual(len(tr.all), 1)

    def test_a_merge_no_snapshot_saw_comes_from_the_mmap_record(self):
        # Snapshots saw A alone; B was mapped below it and merged (perf
        # records the merged VMA), faulted and freed between them.
        tr = self.track([self.A, self.A], smaps=False)
        rec = [(1500, 5, 0x10000, 0x30000, "rw-p", "//anon")]
        idx = vmas.VmaIndex(list(tr.all.values()), rec,
                            [("0:0", 0, 0x10000)])
        v = idx.find(0x18000, 1600)
        self.assertIsNotNone(v)
        self.assertEqual((v["start"], v["end"]), (0x10000, 0x30000))
        self.assertIs(idx.find(0x28000, 1600), v)
        self.assertEqual(idx.records, [])

    def test_a_mapping_moved_before_a_snapshot_saw_it_is_one_object(self):
        # Mapped at 0x500000 and faulted, moved over a reservation at
        # 0x900000 (seen PROT_NONE, then read-write), all unseen at first.
        res = "0000000000900000-0000000000a00000 ---p 00000000 00:00 0 \n"
        tr = self.track([res, res.replace("---p", "rw-p")], smaps=False)
        rec = [(100, 5, 0x500000, 0x600000, "rw-p", "//anon"),
               (200, 5, 0x900000, 0xa00000, "---p", "//anon")]
        idx = vmas.VmaIndex(list(tr.all.values()), rec,
                            [("0:0", 0, 0), ("0:0", 0, 0)])
        src, dst = idx.find(0x580000, 150), idx.find(0x980000, 2500)
        self.assertEqual(src["source"], "perf MMAP records")
        self.assertEqual(objects.object_key(5, src),
                         objects.object_key(5, dst))

    def test_the_same_text_again_is_what_an_update_makes_of_it(self):
        text = self.A + "7f0000000000-7f0000002000 r--p 00001000 fe:00 42 " \
            "/usr/lib/x.so\nRss: 8 kB\nAnonHugePages: 0 kB\n" \
            "VmFlags: rd mr\n"
        one, two = vmas.Sightings(), vmas.Sightings()
        for tr in (one, two):
            tr.update(proc.parse_maps(text), 1000, True)
        self.assertEqual(one.update(proc.parse_maps(text), 2000, True), 0)
        two.again(2000, True)
        self.assertEqual(one.all, two.all)
        self.assertEqual(one.current, two.current)
        one.update(proc.parse_maps(text), 3000, False)
        two.again(3000, False)
        self.assertEqual(one.all, two.all)

    def test_a_file_mapped_over_a_vma_takes_its_faults_from_then(self):
        # A heap seen at 1000 and 2000; at 2500 a file is mapped over its
        # last 16 KiB (a JVM's archived heap), which no snapshot saw.
        tr = self.track([self.A, self.A], smaps=False)
        rec = [(2500, 5, 0x2c000, 0x30000, "rw-p", "/usr/lib/x.jsa")]
        idx = vmas.VmaIndex(list(tr.all.values()), rec,
                            [("fe:00", 42, 0x5000)])
        heap = objects.object_key(5, idx.find(0x2c000, 1500))
        self.assertEqual(heap[0], "vma")
        v = idx.find(0x2d000, 2600)
        self.assertEqual(objects.object_key(5, v), ("file", "fe:00", 42))
        self.assertEqual(objects.page_index(v, 0x2d000), 6)
        self.assertEqual(objects.object_key(5, idx.find(0x2b000, 2600)),
                         heap)
        # Seen holding the range again after the call: the heap's still.
        tr = self.track([self.A, self.A, self.A], smaps=False)
        idx = vmas.VmaIndex(list(tr.all.values()), rec,
                            [("fe:00", 42, 0x5000)])
        self.assertEqual(objects.object_key(5, idx.find(0x2d000, 3100)),
                         heap)

    def test_a_stacks_record_beside_a_vma_is_not_merged(self):
        stack = "0000000000030000-0000000000040000 rw-p 00000000 00:00 0 \n"
        tr = self.track([self.A + stack], smaps=False)
        rec = [(500, 5, 0x30000, 0x40000, "rw-p", "//anon")]
        idx = vmas.VmaIndex(list(tr.all.values()), rec, [("0:0", 0, 0)])
        self.assertEqual(idx.find(0x28000, 600)["end"], 0x30000)

    def test_a_fault_below_a_stack_is_the_stacks_growth(self):
        stack = "00007ff000020000-00007ff000030000 rw-p 00000000 00:00 0 " \
            "[stack]\n"
        other = "00007f0000000000-00007f0000001000 rw-p 00000000 00:00 0 \n"
        tr = self.track([other + stack], smaps=False)
        idx = vmas.VmaIndex(list(tr.all.values()), [])
        self.assertEqual(idx.find(0x7ff000010000, 1000)["path"], "[stack]")
        self.assertIsNone(idx.find(0x7f0000002000 - 0x10000000, 1000))


def obj(oid, size, nbytes, threads, kinds_bytes, pids=(1,), shared=False,
        backing="anonymous", path=""):
    """A report object: threads (tid, pid, bytes, {kind: faults})."""
    return {
        "id": oid, "backing": backing, "path": path, "shared": shared,
        "writable": True, "size": size, "vmas": 1, "rss": 0,
        "bytes": nbytes, "faults": nbytes // PAGE,
        "kinds": {k: {"faults": b // PAGE, "bytes": b}
                  for k, b in kinds_bytes.items()},
        "processes": len(pids), "pids": list(pids),
        "threads": len(threads),
        "top_threads": [{"tid": t, "pid": p, "name": "w", "bytes": b,
                         "faults": b // PAGE, "kinds": k,
                         "distinct_bytes": b, "pages": b // PAGE,
                         "runs": 1, "run_pages": b // PAGE}
                        for (t, p, b, k) in threads],
        "concurrency_processes_max": len(pids),
        "concurrency_threads_max": len(threads),
        "pages_by_more_than_one_process": 0, "per_thread_vmas": False}


class Verdicts(unittest.TestCase):
    def judge(self, doc, cpus=2):
        doc.setdefault("source", kinds.TRACEPOINTS)
        pattern, line, args = verdict.verdict(doc, cpus)
        return pattern, line, verdict.quote(args) if args else None

    def test_an_execs_gup_faults_beside_huge_pages_are_no_populate(self):
        # pft -t 2 -m 512M --thp=always: 256 faults of 2 MiB; the kernel
        # counted 232 more, an execve's.
        o = obj("vma:1:1", 512 * MiB, 512 * MiB,
                [(2, 1, 256 * MiB, {kinds.HUGE_KIND: 128}),
                 (3, 1, 256 * MiB, {kinds.HUGE_KIND: 128})],
                {kinds.HUGE_KIND: 512 * MiB})
        doc = {"objects": [o], "kernel_minus_perf": 232,
               "kernel": {"faults": 600}, "exec_pids": [1],
               "resident": [{"pid": 1, "size": 512 * MiB, "grown": 466 * MiB,
                             "rss": 466 * MiB, "huge_bytes": 466 * MiB,
                             "event_bytes": 512 * MiB, "backing": "anonymous",
                             "path": ""}],
               "kernel_side_threads": [{"tid": 1, "name": "pft",
                                        "kernel_side_faults": 210}]}
        pattern, line, cmd = self.judge(doc)
        self.assertEqual(pattern, "shared-vma")
        self.assertNotIn("populate", line)
        self.assertEqual(cmd, "pft -t 2 -m 512M --thp=always")

    def test_the_most_bytes_and_the_most_faults_when_they_differ(self):
        # 64 MiB in 32 huge-page faults; 8 MiB in 2,048 faults of 4 KiB.
        big = obj("vma:1:1", 64 * MiB, 64 * MiB,
                  [(2, 1, 32 * MiB, {kinds.HUGE_KIND: 16}),
                   (3, 1, 32 * MiB, {kinds.HUGE_KIND: 16})],
                  {kinds.HUGE_KIND: 64 * MiB})
        big["faults"] = 32
        big["kinds"][kinds.HUGE_KIND]["faults"] = 32
        small = obj("vma:1:2", 8 * MiB, 8 * MiB,
                    [(2, 1, 8 * MiB, {kinds.FIRST_TOUCH: 2048})],
                    {kinds.FIRST_TOUCH: 8 * MiB}, path="/x")
        pattern, line, _ = self.judge({"objects": [big, small]})
        self.assertEqual(pattern, "shared-vma")
        self.assertIn("(64 MiB in 32 faults) on a 64 MiB anonymous", line)
        self.assertIn("(the most faults, 2048, were on ", line)
        # The same object: said once.
        _, line, _ = self.judge({"objects": [small]})
        self.assertNotIn("the most faults", line)

    def test_copy_on_write_after_fork(self):
        o = obj("vma:1:1", 512 * MiB, 1024 * MiB,
                [(1, 1, 512 * MiB, {kinds.FIRST_TOUCH: 131072}),
                 (2, 1, 512 * MiB, {kinds.COW: 131072})],
                {kinds.FIRST_TOUCH: 512 * MiB, kinds.COW: 512 * MiB})
        doc = {"objects": [o], "forks": [{"pid": 9, "parent": 1,
                                          "time_ns": 5}]}
        pattern, line, cmd = self.judge(doc)
        self.assertEqual(pattern, "cow-fork")
        self.assertIn("copy-on-write after fork", line)
        self.assertEqual(cmd, "pft --pattern=cow-fork -t 1 -m 512M")
        # The child wrote its copies too.
        child = obj("vma:9:1", 512 * MiB, 512 * MiB,
                    [(9, 9, 512 * MiB, {kinds.COW: 131072})],
                    {kinds.COW: 512 * MiB}, pids=(9,))
        doc["objects"].append(child)
        self.assertEqual(self.judge(doc)[2], "pft --pattern=cow-fork -t 1 "
                         "-m 512M --cow-child=writes")
        # Without the tracepoints: refaults, and said to be untold.
        o["kinds"] = {kinds.USER: o["kinds"][kinds.FIRST_TOUCH],
                      kinds.REFAULT: o["kinds"][kinds.COW]}
        o["top_threads"][1]["kinds"] = {kinds.REFAULT: 131072}
        doc["objects"] = [o]
        doc["source"] = kinds.PAGE_FAULTS
        pattern, line, _ = self.judge(doc)
        self.assertEqual(pattern, "cow-fork")
        self.assertIn("not told apart", line)

    def test_copies_of_all_the_pattern_objects_size_the_line(self):
        # Redis's heap in two VMAs: the parent's copies after the fork
        # are of both, pft's -m their bytes (160M), not the largest's.
        big = obj("vma:1:1", 256 * MiB, 128 * MiB,
                  [(1, 1, 128 * MiB, {kinds.COW: 32768})],
                  {kinds.COW: 128 * MiB})
        other = obj("vma:1:2", 64 * MiB, 32 * MiB,
                    [(1, 1, 32 * MiB, {kinds.COW: 8192})],
                    {kinds.COW: 32 * MiB})
        doc = {"objects": [big, other],
               "forks": [{"pid": 9, "parent": 1, "time_ns": 5}]}
        pattern, line, cmd = self.judge(doc)
        self.assertEqual(pattern, "cow-fork")
        self.assertEqual(cmd, "pft --pattern=cow-fork -t 1 -m 160M")
        self.assertIn("160 MiB in writes to present pages", line)
        self.assertIn("in 2 objects", line)

    def test_a_shared_object_of_processes_is_shared_and_sized_in_all(self):
        o = obj("file:00:01:9", 1 << 30, 1 << 30,
                [(t, t, 256 * MiB, {kinds.FIRST_TOUCH: 65536})
                 for t in (1, 2, 3, 4)],
                {kinds.FIRST_TOUCH: 1 << 30}, pids=(1, 2, 3, 4),
                shared=True, backing="shmem", path="/dev/zero (deleted)")
        pattern, line, cmd = self.judge({"objects": [o]})
        self.assertEqual(pattern, "shared-object")
        self.assertIn("4 processes", line)
        self.assertEqual(cmd, "pft -n 4 -m 1G --share --oversubscribe")
        self.assertEqual(self.judge({"objects": [o]}, cpus=4)[2],
                         "pft -n 4 -m 1G --share")

    def test_pages_several_processes_faulted_size_the_line_each(self):
        # PostgreSQL's shared buffers: 4 backends fault 76 MiB in their
        # page tables, 51 MiB of distinct pages (some pages by more than
        # one).  pft --share faults a page in one process: -m 76M makes
        # as many faults, and the line says the overlap is not
        # reproduced.
        o = obj("file:00:01:9", 278 * MiB, 76 * MiB,
                [(t, t, 19 * MiB, {kinds.KERNEL: 19 * MiB // PAGE})
                 for t in (1, 2, 3, 4)],
                {kinds.KERNEL: 76 * MiB}, pids=(1, 2, 3, 4),
                shared=True, backing="shmem", path="/dev/zero (deleted)")
        o.update(distinct_bytes=51 * MiB, process_bytes=76 * MiB,
                 rss_max=40 * MiB, pages_by_more_than_one_process=6400)
        pattern, line, cmd = self.judge({"objects": [o]}, cpus=4)
        self.assertEqual(pattern, "shared-object")
        self.assertEqual(cmd, "pft -n 4 -m 76M --share")
        self.assertIn("6400 pages faulted by more than one process (not "
                      "reproduced: pft --share faults each page in one "
                      "process; -m is the 76 MiB of its faults, a page "
                      "each, taken by its processes each in its own page "
                      "tables, 51 MiB of distinct pages)", line)

    def test_processes_each_with_their_memory_are_sized_in_all(self):
        objs = [obj("vma:%d:1" % p, 64 * MiB, 64 * MiB,
                    [(p, p, 64 * MiB, {kinds.FIRST_TOUCH: 16384})],
                    {kinds.FIRST_TOUCH: 64 * MiB}, pids=(p,))
                for p in (1, 2)]
        pattern, _, cmd = self.judge({"objects": objs})
        self.assertEqual(pattern, "processes")
        self.assertEqual(cmd, "pft -n 2 -m 128M")

    def test_no_single_pattern_lists_the_top_objects(self):
        objs = [obj("vma:1:%d" % i, 8 * MiB, 8 * MiB,
                    [(1, 1, 8 * MiB, {kinds.READ: 2048})],
                    {kinds.READ: 8 * MiB}, backing=b, path="/f%d" % i)
                for i, b in enumerate(("file", "heap", "stack"))]
        pattern, line, cmd = self.judge({"objects": objs})
        self.assertEqual((pattern, cmd), ("none", None))
        self.assertIn("no single pattern", line)
        self.assertIn("/f0", line)

    def test_a_jvm_with_pretouch(self):
        o = obj("vma:1:1", 256 * MiB, 256 * MiB,
                [(2, 1, 128 * MiB, {kinds.FIRST_TOUCH: 32768}),
                 (3, 1, 128 * MiB, {kinds.FIRST_TOUCH: 32768})],
                {kinds.FIRST_TOUCH: 256 * MiB})
        doc = {"objects": [o], "command": [
            "/usr/lib/jvm/java-17-openjdk-amd64/bin/java",
            "-XX:+AlwaysPreTouch", "-XX:+UseParallelGC", "-Xms256m", "X"]}
        pattern, _, cmd = self.judge(doc)
        self.assertEqual(pattern, "pretouch")
        self.assertEqual(cmd, "pft --pattern=pretouch --jdk=17 --gc=parallel "
                         "-t 2 -m 256M")


    def test_chunks_in_turn_are_pretouch_holes_alone_are_not(self):
        o = obj("vma:1:1", 64 * MiB, 64 * MiB,
                [(2, 1, 32 * MiB, {kinds.FIRST_TOUCH: 8192}),
                 (3, 1, 32 * MiB, {kinds.FIRST_TOUCH: 8192})],
                {kinds.FIRST_TOUCH: 64 * MiB})
        for t in o["top_threads"]:
            t.update(runs=8, run_pages=1024, gaps_filled_by_others=7)
        self.assertEqual(self.judge({"objects": [o]})[0], "pretouch")
        # Runs whose gaps no other thread filled (samples lost in a
        # shared-VMA run): no chunks claimed in turn.
        for t in o["top_threads"]:
            t["gaps_filled_by_others"] = 0
        pattern, _, cmd = self.judge({"objects": [o]})
        self.assertEqual((pattern, cmd), ("shared-vma", "pft -t 2 -m 64M"))


class SideBySide(unittest.TestCase):
    def doc(self, faults, tids, huge=0):
        o = obj("vma:1:1", 64 * MiB, faults * PAGE,
                [(t, 1, faults * PAGE // len(tids),
                  {kinds.FIRST_TOUCH: faults // len(tids)}) for t in tids],
                {kinds.FIRST_TOUCH: faults * PAGE})
        lib = obj("file:fe:00:1", MiB, 40 * PAGE,
                  [(1, 1, 40 * PAGE, {kinds.READ: 40})],
                  {kinds.READ: 40 * PAGE}, backing="file", path="/lib/c")
        return {"objects": [o, lib], "kernel_minus_perf": 230,
                "source": kinds.TRACEPOINTS}

    def test_each_dimension_and_its_ratio(self):
        rows = {r["dimension"]: r for r in check.compare(
            self.doc(16384, (2, 3)), self.doc(16220, (5, 6, 7)))}
        self.assertEqual(rows["faults on them"]["program"], 16384)
        self.assertEqual(rows["faults on them"]["pft"], 16220)
        self.assertAlmostEqual(rows["faults on them"]["ratio"], 0.98999,
                               places=4)
        self.assertEqual(rows["of kind first-touch"]["pft"], 16220)
        self.assertEqual(rows["workers (threads with 1% or more)"]["ratio"],
                         1.5)
        self.assertEqual(rows["faults without an event (gup)"]["ratio"], 1)
        # The library's faults are no object of the pattern.
        self.assertNotIn("of kind read", rows)

    def test_a_dimension_one_side_lacks_has_no_ratio(self):
        b = self.doc(16384, (2, 3))
        b["objects"][0]["kinds"][kinds.COW] = {"faults": 5, "bytes": 0}
        rows = {r["dimension"]: r for r in check.compare(
            self.doc(16384, (2, 3)), b)}
        self.assertIsNone(rows["of kind cow"]["ratio"])
        out = io.StringIO()
        check.render(check.compare(self.doc(16384, (2, 3)), b), "pft -t 2",
                     out)
        self.assertIn("of kind cow", out.getvalue())
        self.assertIn("1.000", out.getvalue())


class UntoldSharedSideBySide(unittest.TestCase):
    """PostgreSQL unprivileged: the backends fault their shared buffers
    mostly in kernel mode (no event at perf_event_paranoid 2), pft's
    processes in user mode (all events): the faults on it with those
    without an event of its processes are compared, as the line was
    sized."""

    def program(self):
        # 1,000 events on it; its 4 processes took 3,000 faults without
        # an event (JSON keys: strings), a fifth process 500 that are no
        # object's; it grew 40 MiB beyond the events' 3.9 MiB.
        o = obj("file:00:01:9", 278 * MiB, 1000 * PAGE,
                [(p, p, 250 * PAGE, {kinds.USER: 250}) for p in (2, 3, 4, 5)],
                {kinds.USER: 1000 * PAGE}, pids=(2, 3, 4, 5), shared=True,
                backing="shmem", path="/dev/zero (deleted)")
        return {"objects": [o], "source": kinds.PAGE_FAULTS,
                "kernel_minus_perf": 3500,
                "shared_untold": {"object": "file:00:01:9"},
                "resident_objects": {"file:00:01:9": {
                    "grown": 1000 * PAGE + 40 * MiB,
                    "event_bytes": 1000 * PAGE, "pids": [2, 3, 4, 5]}},
                "kernel_side_processes": {"2": 750, "3": 750, "4": 750,
                                          "5": 750, "9": 500}}

    def line(self, growth_without_events):
        # pft -n 4: 4,000 user-mode events on its object; its processes
        # took 40 faults without an event each (their set-up).
        o = obj("file:00:01:7", 16 * MiB, 4000 * PAGE,
                [(p, p, 1000 * PAGE, {kinds.USER: 1000})
                 for p in (6, 7, 8, 9)],
                {kinds.USER: 4000 * PAGE}, pids=(6, 7, 8, 9), shared=True,
                backing="shmem", path="/dev/zero (deleted)")
        return {"objects": [o], "source": kinds.PAGE_FAULTS,
                "kernel_minus_perf": 160,
                "resident_objects": {"file:00:01:7": {
                    "grown": 4000 * PAGE + growth_without_events,
                    "event_bytes": 4000 * PAGE, "pids": [6, 7, 8, 9]}},
                "kernel_side_processes": {6: 40, 7: 40, 8: 40, 9: 40}}

    def test_faults_with_those_without_an_event(self):
        name = "faults on it, with its processes' faults without an event"
        rows = {r["dimension"]: r for r in check.compare(
            self.program(), self.line(0))}
        # 1,000 + 3,000 against 4,000 + none (it grew no more than its
        # events): like with like.
        self.assertEqual(rows[name]["program"], 4000)
        self.assertEqual(rows[name]["pft"], 4000)
        self.assertEqual(rows[name]["ratio"], 1)
        # The events alone differ fourfold, and still say so.
        self.assertEqual(rows["faults on them"]["ratio"], 4)
        # pft's faults without an event count where its object grew
        # beyond its events, no more than it grew: 8 pages of 160.
        rows = {r["dimension"]: r for r in check.compare(
            self.program(), self.line(8 * PAGE))}
        self.assertEqual(rows[name]["pft"], 4008)

    def test_growth_bounds_the_faults_without_an_event(self):
        # Grown 2 MiB beyond the events: 512 of the 3,000 count.
        a = self.program()
        a["resident_objects"]["file:00:01:9"]["grown"] = \
            1000 * PAGE + 2 * MiB
        rows = {r["dimension"]: r for r in check.compare(a, self.line(0))}
        self.assertEqual(rows["faults on it, with its processes' faults "
                              "without an event"]["program"], 1512)


class AttachedCopies(unittest.TestCase):
    """An attached survey of a copy-on-write after fork sees the copies
    of memory faulted before it; the line's survey sees pft first-touch
    its memory too: the copies are compared, and said to be."""

    def doc(self, threads, kb, **extra):
        o = obj("vma:1:1", 256 * MiB, sum(kb.values()), threads, kb)
        d = {"objects": [o], "source": kinds.TRACEPOINTS,
             "pattern": "cow-fork", "kernel_minus_perf": 0}
        d.update(extra)
        return d

    def program(self):
        # The copies (cow) and some new memory (first-touch) while the
        # child saved.
        return self.doc([(1, 1, 145 * MiB, {kinds.COW: 37120,
                                            kinds.FIRST_TOUCH: 6784})],
                        {kinds.COW: 145 * MiB,
                         kinds.FIRST_TOUCH: 6784 * PAGE},
                        attached_pid=1)

    def line(self, copies):
        # pft: its setup thread's first touches, then its copies.
        return self.doc([(5, 5, 145 * MiB, {kinds.FIRST_TOUCH: 37120}),
                         (6, 5, copies * PAGE, {kinds.COW: copies})],
                        {kinds.FIRST_TOUCH: 145 * MiB,
                         kinds.COW: copies * PAGE})

    def test_the_copies_against_the_lines_copies(self):
        rows = {r["dimension"]: r for r in check.compare(
            self.program(), self.line(37120))}
        name = "faults on them, of kind cow alone (attached: the copies)"
        self.assertEqual(rows[name]["program"], 37120)
        self.assertEqual(rows[name]["pft"], 37120)
        self.assertEqual(rows[name]["ratio"], 1)
        self.assertEqual(rows["workers (threads with 1% or more), of kind "
                              "cow alone (attached: the copies)"]["ratio"], 1)
        # Every kind is still listed: pft's first touches are seen.
        self.assertEqual(rows["of kind first-touch"]["pft"], 37120)
        self.assertNotIn("faults on them", rows)

    def test_copies_that_differ_are_shown(self):
        rows = {r["dimension"]: r for r in check.compare(
            self.program(), self.line(32512))}
        r = rows["faults on them, of kind cow alone (attached: the copies)"]
        self.assertAlmostEqual(r["ratio"], 32512 / 37120)

    def test_a_command_surveyed_compares_all_its_faults(self):
        prog = self.program()
        del prog["attached_pid"]
        rows = {r["dimension"]: r for r in check.compare(
            prog, self.line(37120))}
        self.assertEqual(rows["faults on them"]["program"], 37120 + 6784)


class Populate(unittest.TestCase):
    def doc(self, flags):
        return {"objects": [], "source": kinds.TRACEPOINTS,
                "kernel_minus_perf": 128 + 230, "kernel": {"faults": 400},
                "exec_pids": [1],
                "resident": [{"pid": 2, "size": 256 * MiB, "rss": 256 * MiB,
                              "grown": 256 * MiB, "event_bytes": 0,
                              "huge_bytes": 256 * MiB, "backing": "anonymous",
                              "path": "", "flags": flags}],
                "kernel_side_threads": [
                    {"tid": 1, "pid": 1, "name": "p", "kernel_side_faults": 230},
                    {"tid": 3, "pid": 2, "name": "p", "kernel_side_faults": 64},
                    {"tid": 4, "pid": 2, "name": "p", "kernel_side_faults": 64}]}

    def test_guest_ram_as_qemu_advises_it(self):
        pattern, _, args = verdict.verdict(
            self.doc(["rd", "wr", "mr", "mw", "me", "dc", "ac", "hg", "mg"]))
        self.assertEqual(pattern, "qemu-prealloc")
        self.assertEqual(verdict.quote(args),
                         "pft --pattern=qemu-prealloc -t 2 -m 256M")

    def test_populate_with_huge_pages(self):
        pattern, line, args = verdict.verdict(self.doc(["rd", "wr", "hg"]))
        self.assertEqual(pattern, "populate")
        self.assertIn("taken by 2 threads", line)
        self.assertEqual(verdict.quote(args),
                         "pft -t 2 -m 256M --touch=populate --thp=always")

    def test_workers_of_processes_of_their_own_are_processes(self):
        d = self.doc(["rd", "wr", "hg"])
        d["kernel_side_threads"][2]["pid"] = 3
        d["resident"][0]["shared"] = True
        d["resident"][0]["backing"] = "shmem"
        pattern, line, args = verdict.verdict(d)
        self.assertIn("of 2 processes", line)
        self.assertEqual(verdict.quote(args),
                         "pft -n 2 -m 256M --touch=populate --thp=always "
                         "--share")

    def one_worker_seen(self, short):
        # pft -t 2 -m 64M --touch=populate: its worker process 2 (worker
        # 0 its first thread) populated 64 MiB in 16,384 faults; thread
        # 4 ended between two snapshots, its 8,192 faults kept in the
        # process's counters alone.
        d = self.doc(["rd", "wr"])
        d["resident"][0].update(size=64 * MiB, rss=64 * MiB, grown=64 * MiB,
                                huge_bytes=0)
        d["kernel_minus_perf"] = 16384 + 300
        d["kernel"] = {"faults": 17000}
        d["kernel_side_threads"] = [
            {"tid": 2, "pid": 2, "name": "pft", "kernel_side_faults": 8186},
            {"tid": 1, "pid": 1, "name": "pft", "kernel_side_faults": 300}]
        d["kernel_side_processes"] = {"1": 300, "2": 16378}
        d["short_threads"] = short
        return d

    def test_a_worker_that_ended_unseen_is_counted(self):
        _, line, args = verdict.verdict(self.one_worker_seen([[2, 4]]))
        self.assertEqual(verdict.quote(args),
                         "pft -t 2 -m 64M --touch=populate")
        # No thread came and went unseen: the faults are no worker's.
        _, _, args = verdict.verdict(self.one_worker_seen([]))
        self.assertEqual(verdict.quote(args),
                         "pft -t 1 -m 64M --touch=populate")
        # Another process's short thread is not this one's worker.
        _, _, args = verdict.verdict(self.one_worker_seen([[1, 5]]))
        self.assertEqual(verdict.quote(args),
                         "pft -t 1 -m 64M --touch=populate")

    def test_unseen_workers_no_more_than_the_faults_left(self):
        # Three threads came and went, the faults left one share.
        _, _, args = verdict.verdict(
            self.one_worker_seen([[2, 4], [2, 5], [2, 6]]))
        self.assertEqual(verdict.quote(args),
                         "pft -t 2 -m 64M --touch=populate")
        # All seen: nothing left, whatever came and went.
        d = self.one_worker_seen([[2, 4], [2, 5]])
        d["kernel_side_threads"].insert(1, {"tid": 4, "pid": 2, "name": "pft",
                                            "kernel_side_faults": 8192})
        _, _, args = verdict.verdict(d)
        self.assertEqual(verdict.quote(args),
                         "pft -t 2 -m 64M --touch=populate")

    def test_a_shared_object_of_processes_untold_is_no_populate(self):
        # PostgreSQL unprivileged: 4 backends pread(2) into their shared
        # buffers; at perf_event_paranoid 2 those kernel-mode faults
        # raise no event, as get_user_pages' would not.  The shared
        # object of processes is named, its faults said to be untold,
        # -m its growth in all its processes.
        d = self.doc(["rd", "wr", "sh"])
        d["source"] = kinds.PAGE_FAULTS
        d["kernel_minus_perf"] = 18000
        d["kernel"] = {"faults": 26000}
        d["resident"] = [{"pid": p, "size": 278 * MiB, "rss": 20 * MiB,
                          "grown": 18 * MiB, "event_bytes": MiB,
                          "huge_bytes": 0, "backing": "shmem",
                          "path": "/dev/zero (deleted)", "shared": True,
                          "writable": True, "flags": [],
                          "object": "file:00:01:9"} for p in (2, 3, 4, 5)]
        d["resident_objects"] = {"file:00:01:9": {
            "grown": 72 * MiB, "event_bytes": 4 * MiB,
            "pids": [2, 3, 4, 5]}}
        d["kernel_side_threads"] = [
            {"tid": p, "pid": p, "name": "postgres",
             "kernel_side_faults": 4500} for p in (2, 3, 4, 5)]
        d["kernel_side_processes"] = {p: 4500 for p in (2, 3, 4, 5)}
        # 4 MiB in fault events on it, 18,000 faults without one
        # (70.3 MiB): -m 74M, not its 72 MiB of growth.
        o = obj("file:00:01:9", 278 * MiB, 4 * MiB,
                [(p, p, MiB, {kinds.USER: 256}) for p in (2, 3, 4, 5)],
                {kinds.USER: 4 * MiB}, pids=(2, 3, 4, 5), shared=True,
                backing="shmem", path="/dev/zero (deleted)")
        d["objects"] = [o]
        d["resident_objects"]["file:00:01:9"]["grown"] = 80 * MiB
        pattern, line, args = verdict.verdict(d)
        self.assertEqual(pattern, "shared-object")
        self.assertNotIn("populate", line)
        self.assertIn("of 4 processes", line)
        self.assertIn("kernel-mode (read(2), copy_to_user into it) or "
                      "get_user_pages, not told apart without the "
                      "tracepoints", line)
        self.assertIn("grew 80 MiB resident in its 4 processes (76 MiB of "
                      "it with no fault event)", line)
        self.assertEqual(verdict.quote(args),
                         "pft -n 4 -m 74M --share --oversubscribe")
        self.assertNotIn("populated", d)
        # With the tracepoints, faults without an event are
        # get_user_pages': a populate.
        d["source"] = kinds.TRACEPOINTS
        self.assertEqual(verdict.verdict(d)[0], "populate")

    def test_an_execs_own_faults_and_a_parents_memory_are_no_populate(self):
        d = self.doc([])
        d["kernel_minus_perf"] = 230
        d["kernel_side_threads"] = d["kernel_side_threads"][:1]
        self.assertNotEqual(verdict.verdict(d)[0], "populate")


class Source(unittest.TestCase):
    def test_who_may_record_the_tracepoints(self):
        self.assertIsNone(kinds.may_trace("", 2, 0))
        self.assertIsNone(kinds.may_trace("", -1, 1000))
        perfmon = "CapEff:\t%016x\n" % (1 << kinds.CAP_PERFMON)
        self.assertIsNone(kinds.may_trace(perfmon, 2, 1000))
        self.assertIn("perf_event_paranoid is 2",
                      kinds.may_trace("CapEff:\t0000000000000000\n", 2,
                                      1000))

    def test_asking_for_what_cannot_be_is_one_line(self):
        with mock.patch.object(kinds, "may_trace", return_value="no"):
            self.assertEqual(kinds.pick_source("perf", "/tmp"),
                             kinds.PAGE_FAULTS)
            with self.assertRaises(RuntimeError) as e:
                kinds.pick_source("perf", "/tmp", kinds.TRACEPOINTS)
            self.assertIn("--events=tracepoints", str(e.exception))
        with self.assertRaises(RuntimeError) as e:
            kinds.pick_source("perf", "/tmp", kinds.TRACEPOINTS, 16)
        self.assertIn("-c 16", str(e.exception))
        # Sampling takes the page-faults event.
        self.assertEqual(kinds.pick_source("perf", "/tmp", "auto", 16),
                         kinds.PAGE_FAULTS)


class Check(unittest.TestCase):
    def test_the_line_runs_with_the_least_memory(self):
        self.assertEqual(verdict.small_args(
            ["pft", "-n", "4", "-m", "1G", "--share"]),
            ["pft", "-n", "4", "-m", "4P", "--share"])
        self.assertEqual(verdict.small_args(
            ["pft", "-t", "2", "-m", "64M", "--backing=hugetlb"])[4], "4M")

    def test_pft_refusing_the_line_is_said(self):
        res = mock.Mock(returncode=2, stdout="",
                        stderr="pft: -t 0: not a count\nTry 'pft --help'\n")
        with mock.patch("subprocess.run", return_value=res):
            self.assertEqual(verdict.check_line(["pft", "-t", "0"], "pft"),
                             (False, "pft: -t 0: not a count"))


if __name__ == "__main__":
    unittest.main()
