# SPDX-License-Identifier: GPL-2.0-or-later
# pft-survey's parts without perf: perf script's text read back, VMAs
# from maps and from MMAP records, the join, concurrency windows, the
# sampling error, the verdict and its pft command line, and the errors.
#
# Copyright (C) 2026 The libfaultgen authors

import contextlib
import io
import os
import shlex
import subprocess
import tempfile
import unittest
from unittest import mock

from pft_survey import (analysis, base, cli, fromsurvey, kinds, objects,
                        perfscript, proc, render, verdict)
from pft_survey import record as recording
from pft_survey.vmas import VmaIndex, mmap_vmas

from . import fakesys


# The verdicts below are of a machine of 2 CPUs, whatever CPUs the
# tests run on.
setUpModule, tearDownModule = fakesys.two_cpus()

# perf script -F comm,pid,tid,time,period,event,addr --show-mmap-events
# --show-task-events, as perf 6.1 prints it (a thread name with spaces,
# a synthesized record at time 0, a line that is none of these).
SCRIPT = """\
       perf-exec     0/0         0.000000: PERF_RECORD_COMM: perf-exec:100/100
            java   100/100   10.000000100: PERF_RECORD_COMM exec: java:100/100
            java   100/100   10.000000200: PERF_RECORD_MMAP2 100/100: [0x7f0000000000(0x100000) @ 0x7f0000000000 00:00 0 0]: rw-p //anon
            java   100/100   10.000000300: PERF_RECORD_MMAP2 100/100: [0x7f0000100000(0x100000) @ 0x7f0000100000 00:00 0 0]: rw-p //anon
            java   100/100   10.000000400: PERF_RECORD_MMAP2 100/100: [0x555500000000(0x2000) @ 0 fe:00 1234 0]: r--p /usr/bin/java
            java   100/101   10.000000500: PERF_RECORD_FORK(100:101):(100:100)
     GC Thread#0   100/101   10.000100000:          1 page-faults:     7f0000000010
     GC Thread#0   100/101   10.000200000:          1 page-faults:     7f0000001010
     GC Thread#1   100/102   10.000300000:          1 page-faults:     7f0000150000
     GC Thread#1   100/102   10.002300000:          1 page-faults:     7f0000151000
            java   100/100   10.002400000:          1 page-faults:     555500000100
            java   100/100   10.003000000: PERF_RECORD_EXIT(100:100):(1:1)
this line is not perf's
"""


def record():
    return perfscript.parse_script(io.StringIO(SCRIPT))


class ParseScript(unittest.TestCase):
    def test_reads_faults_with_thread_names_holding_spaces(self):
        rec = record()
        self.assertEqual(len(rec.faults), 5)
        self.assertEqual(rec.faults[0],
                         (10000100000, 100, 101, 0x7f0000000010, 1))
        self.assertEqual(rec.names[101], "GC Thread#0")
        self.assertEqual(rec.names[102], "GC Thread#1")

    def test_reads_mmap_records_exec_and_tasks(self):
        rec = record()
        self.assertEqual(len(rec.mmaps), 3)
        self.assertEqual(rec.mmaps[0][2:], (0x7f0000000000, 0x7f0000100000,
                                            "rw-p", "//anon"))
        self.assertEqual(rec.mmaps[2][5], "/usr/bin/java")
        self.assertEqual(rec.execs, {100: 10000000100})
        self.assertEqual(rec.forks, [(10000000500, 100, 101, 100, 100)])
        self.assertEqual(rec.exits, [(10003000000, 100, 100)])

    def test_counts_lines_it_does_not_understand(self):
        self.assertEqual(record().lost, 1)

    def test_reads_the_period_of_sampled_events(self):
        rec = perfscript.parse_script([
            "  pft  5/6  1.5: 16 page-faults:  7f0000001000\n"])
        self.assertEqual(rec.faults, [(1500000000, 5, 6, 0x7f0000001000, 16)])


class Maps(unittest.TestCase):
    def test_reads_maps_and_smaps_fields(self):
        text = ("7f0000000000-7f0004000000 rw-p 00000000 00:00 0 \n"
                "Rss:               65536 kB\n"
                "AnonHugePages:     2048 kB\n"
                "THPeligible:    1\n"
                "555500000000-555500002000 r--p 00000000 fe:00 1234   "
                "/usr/bin/pft\n")
        vmas = proc.parse_maps(text)
        self.assertEqual(len(vmas), 2)
        self.assertEqual(vmas[0]["end"] - vmas[0]["start"], 64 << 20)
        self.assertEqual(vmas[0]["Rss"], 64 << 20)
        self.assertEqual(vmas[0]["AnonHugePages"], 2 << 20)
        self.assertTrue(vmas[0]["THPeligible"])
        self.assertEqual(vmas[1]["path"], "/usr/bin/pft")

    def test_names_the_backing(self):
        cases = {"": "anonymous", "//anon": "anonymous", "[heap]": "heap",
                 "[stack]": "stack", "/memfd:guest (deleted)": "memfd/shmem",
                 "/SYSV00000000 (deleted)": "SysV shm",
                 "/dev/zero (deleted)": "shmem",
                 "/anon_hugepage (deleted)": "hugetlb",
                 "/usr/lib/libc.so.6": "file"}
        for path, kind in cases.items():
            self.assertEqual(analysis.backing(path, "rw-p"), kind, path)
        self.assertEqual(analysis.backing("", "rw-s"), "shmem")

    def test_merges_adjacent_anonymous_records_as_the_kernel_does(self):
        rec = record()
        vmas = mmap_vmas(rec.mmaps)
        anon = [v for v in vmas if v["path"] == "//anon"]
        self.assertEqual(len(anon), 1)
        self.assertEqual(anon[0]["end"] - anon[0]["start"], 2 << 20)

    def test_keeps_records_apart_across_a_guard_page(self):
        m = [(1, 5, 0x10000, 0x20000, "rw-p", "//anon"),
             (2, 5, 0x21000, 0x31000, "rw-p", "//anon")]
        self.assertEqual(len(mmap_vmas(m)), 2)

    def test_keeps_records_of_other_protection_apart(self):
        m = [(1, 5, 0x10000, 0x20000, "rw-p", "//anon"),
             (2, 5, 0x20000, 0x30000, "r--p", "//anon")]
        self.assertEqual(len(mmap_vmas(m)), 2)

    def test_a_later_record_replaces_the_overlapped_part(self):
        m = [(1, 5, 0x10000, 0x40000, "rw-p", "/a"),
             (2, 5, 0x20000, 0x30000, "rw-p", "/b")]
        vmas = mmap_vmas(m)
        self.assertEqual([(v["start"], v["end"], v["path"]) for v in vmas],
                         [(0x10000, 0x20000, "/a"), (0x20000, 0x30000, "/b"),
                          (0x30000, 0x40000, "/a")])

    def test_a_files_records_pieces_at_their_own_offsets(self):
        # A library mapped whole from offset 0x26000 (the loader's
        # reservation), its middle mapped over: each piece left is at
        # its own offset in the file, an anonymous record at none.
        m = [(1, 5, 0x10000, 0x40000, "r--p", "/lib/x"),
             (2, 5, 0x20000, 0x30000, "rw-p", "//anon")]
        files = [("8:1", 77, 0x26000), ("0:0", 0, 0x20000)]
        vmas = mmap_vmas(m, files)
        self.assertEqual([(v["start"], v.get("off")) for v in vmas],
                         [(0x10000, 0x26000), (0x20000, None),
                          (0x30000, 0x46000)])
        self.assertEqual(objects.page_index(vmas[2], 0x31000),
                         (0x46000 + 0x1000) // 4096)

    def test_snapshots_win_over_mmap_records(self):
        snap = [{"start": 0x10000, "end": 0x30000, "perms": "rw-p",
                 "path": "", "last_ns": 5}]
        m = [(1, 5, 0x10000, 0x20000, "rw-p", "//anon"),
             (1, 5, 0x40000, 0x50000, "rw-p", "//anon")]
        idx = VmaIndex(snap, m)
        self.assertEqual(idx.find(0x25000)["source"], "/proc/PID/maps")
        self.assertEqual(idx.find(0x45000)["source"], "perf MMAP records")
        self.assertIsNone(idx.find(0x35000))


def snapshots_of(views, smaps, attached=False):
    """The Snapshots of process 5 whose maps (smaps) read views in turn,
    a microsecond apart."""
    snaps = proc.Snapshots(5, follow=False, attached=attached)
    clock = iter(range(1000, 100000, 1000))
    for text in views:
        with mock.patch.object(proc, "read",
                               side_effect=lambda path, t=text:
                               t if path.endswith("maps") else None), \
                mock.patch("time.clock_gettime_ns",
                           side_effect=lambda _c: next(clock)), \
                mock.patch("os.listdir", return_value=[]):
            snaps.take(smaps=smaps)
    return snaps


class Sightings(unittest.TestCase):
    """Snapshots of a process whose range 0x10000-0x30000 is buffer A
    alone, then A merged with B below it, then A alone again (B freed)."""

    A = "0000000000020000-0000000000030000 rw-p 00000000 00:00 0 \n"
    AB = "0000000000010000-0000000000030000 rw-p 00000000 00:00 0 \n"

    def snapshots(self, views):
        return snapshots_of(views, smaps=False)

    def test_a_range_gone_and_back_is_another_vma(self):
        other = "0000000000050000-0000000000060000 rw-p 00000000 00:00 0 \n"
        snaps = self.snapshots([self.A, other, self.A])
        seen = sorted((v["start"], v["end"], v["first_ns"], v["last_ns"])
                      for v in snaps.vmas[5].values())
        self.assertEqual(seen, [(0x20000, 0x30000, 1000, 1000),
                                (0x20000, 0x30000, 3000, 3000),
                                (0x50000, 0x60000, 2000, 2000)])

    def test_the_same_text_again_is_not_parsed_again(self):
        # A process that waits shows the same maps: parsed once, its
        # sighting's last view the last snapshot's.
        parse = mock.Mock(side_effect=proc.parse_maps)
        with mock.patch.object(proc, "parse_maps", parse):
            snaps = self.snapshots([self.A, self.A, self.A, self.AB])
        self.assertEqual(parse.call_count, 2)
        seen = sorted((v["start"], v["end"], v["first_ns"], v["last_ns"])
                      for v in snaps.vmas[5].values())
        self.assertEqual(seen, [(0x10000, 0x30000, 1000, 4000)])

    def test_a_vma_whose_start_moves_is_one_vma(self):
        # B mapped below A and merged, then freed: the kernel's one VMA.
        snaps = self.snapshots([self.A, self.AB, self.AB, self.A])
        seen = sorted((v["start"], v["end"], v["first_ns"], v["last_ns"])
                      for v in snaps.vmas[5].values())
        self.assertEqual(seen, [(0x10000, 0x30000, 1000, 4000)])

    def test_a_vma_whose_end_moves_is_one_vma(self):
        heap = "0000000000100000-%016x rw-p 00000000 00:00 0  [heap]\n"
        snaps = self.snapshots([heap % 0x200000, heap % 0x400000,
                                heap % 0x300000, self.A])
        seen = sorted((v["start"], v["end"], v["first_ns"], v["last_ns"])
                      for v in snaps.vmas[5].values())
        self.assertEqual(seen, [(0x20000, 0x30000, 4000, 4000),
                                (0x100000, 0x400000, 1000, 3000)])

    def test_a_start_of_other_permissions_leaves_the_end_to_match(self):
        # A gone range shares the new one's start but not its
        # permissions; another shares its end and its permissions.
        ro = "0000000000010000-0000000000018000 r--p 00000000 00:00 0 \n"
        snaps = self.snapshots([ro + self.A, self.AB])
        seen = sorted((v["start"], v["end"], v["perms"], v["first_ns"],
                       v["last_ns"]) for v in snaps.vmas[5].values())
        self.assertEqual(seen, [(0x10000, 0x18000, "r--p", 1000, 1000),
                                (0x10000, 0x30000, "rw-p", 1000, 2000)])

    def test_another_mapping_at_the_same_start_is_another_vma(self):
        f = "0000000000100000-0000000000300000 r--p 00000000 08:01 7 /lib/x\n"
        g = "0000000000100000-0000000000200000 rw-p 00000000 00:00 0 \n"
        snaps = self.snapshots([f, g])
        self.assertEqual(len(snaps.vmas[5]), 2)

    def test_a_fault_joins_the_vma_seen_nearest_its_time(self):
        other = "0000000000050000-0000000000060000 rw-p 00000000 00:00 0 \n"
        snaps = self.snapshots([self.A, other, self.A, self.A])
        idx = VmaIndex(list(snaps.vmas[5].values()), [])
        self.assertEqual(idx.find(0x28000, 1400)["first_ns"], 1000)
        self.assertEqual(idx.find(0x28000, 2600)["first_ns"], 3000)
        self.assertEqual(idx.find(0x28000, 9000)["first_ns"], 3000)
        self.assertEqual(idx.find(0x58000, 9000)["first_ns"], 2000)

    def test_a_process_forgotten_is_left_out(self):
        snaps = self.snapshots([self.A])
        snaps.threads[6] = {"pid": 5, "name": "x", "minflt": 1,
                            "majflt": 0, "base": 0}
        snaps.procs[5] = snaps.first_procs[5] = (1, 0)
        snaps.forget(5)
        self.assertEqual((snaps.vmas, snaps.trackers, snaps.procs,
                          snaps.first_procs, snaps.threads),
                         ({}, {}, {}, {}, {}))

    def test_a_fault_before_a_merge_joins_the_merged_vma(self):
        # A faulted while B's mapping came below it: one VMA, whatever
        # snapshot the fault was nearest.
        snaps = self.snapshots([self.A, self.A, self.AB, self.AB])
        idx = VmaIndex(list(snaps.vmas[5].values()), [])
        for t in (1500, 2400, 2600, 5000):
            self.assertEqual(idx.find(0x28000, t)["start"], 0x10000)
        self.assertEqual(idx.find(0x18000, 2400)["start"], 0x10000)


class OneRangeTwoVmas(unittest.TestCase):
    """A library's tail seen mapped from its file by a snapshot taken
    while the dynamic loader mapped it (its reservation), then the same
    range anonymous (its .bss, mapped over it): two VMAs of one range,
    a fault on each."""

    LIB = ("00007f2e8b3b4000-00007f2e8b3c1000 r--p 001d5000 08:01 77 "
           "/lib/libc.so.6\n")
    BSS = "00007f2e8b3b4000-00007f2e8b3c1000 rw-p 00000000 00:00 0 \n"

    def analysed(self):
        snaps = snapshots_of([self.LIB, self.BSS], smaps=False)
        snaps.procs = {}
        # Faults at 1.2 and 2.5 us: on either side of the second view.
        rec = perfscript.parse_script([
            "  pft  5/5  0.0000012: 1 page-faults:  7f2e8b3b5000\n",
            "  pft  5/5  0.0000025: 1 page-faults:  7f2e8b3b6000\n"])
        keep = {}
        doc = analysis.analyse(rec, snaps, None, 1, True, keep)
        return doc, keep["facts"], rec

    def test_each_fault_on_the_object_of_its_own_vma(self):
        _, facts, _ = self.analysed()
        lib = ("file", "08:01", 77)
        self.assertEqual({e[3][0] for e in facts.events}, {"file", "vma"})
        # The file's page: its offset's, never the address's.
        self.assertEqual([e[5] for e in facts.events if e[3] == lib],
                         [0x1d5000 // 4096 + 1])
        self.assertEqual([e[5] for e in facts.events if e[3] != lib],
                         [0x7f2e8b3b6])

    def test_the_file_object_is_no_larger_than_its_mapping(self):
        doc, facts, rec = self.analysed()
        r = fromsurvey.recording(facts, rec, doc, 5, ["pft"], 1, 4096)
        self.assertEqual(r.objects[("file", "08:01", 77)]["size"],
                         0xd000)


class ForkedUnseen(unittest.TestCase):
    def test_a_childs_fault_on_its_parents_file_is_on_the_file(self):
        # Process 5 maps a file (offset 0x26000) and forks 6; neither
        # is seen by a snapshot, 5 takes no fault: 6's fault is on the
        # file's page, as 5's would be.
        rec = perfscript.parse_script([
            "  pft  5/5  0.000001: PERF_RECORD_MMAP2 5/5: [0x7f0000010000"
            "(0x10000) @ 0x26000 08:01 77 0]: r--p /lib/x\n",
            "  pft  6/6  0.000002: PERF_RECORD_FORK(6:6):(5:5)\n",
            "  pft  6/6  0.000003: 1 page-faults:  7f0000011000\n"])
        keep = {}
        analysis.analyse(rec, Snaps(), None, 1, True, keep)
        self.assertEqual([(e[3], e[5]) for e in keep["facts"].events],
                         [(("file", "08:01", 77), 0x27)])


class ForkedBeforeItsParentsExec(unittest.TestCase):
    def test_a_childs_fault_is_on_no_vma_of_the_program_after_it(self):
        # Process 5 (a shell) forks 6 and then execs the program, which
        # maps memory at 6's address: 6's fault was on the shell's
        # memory, not on the program's mapped after the fork.
        rec = perfscript.parse_script([
            "  pft  6/6  0.000002: PERF_RECORD_FORK(6:6):(5:5)\n",
            "  pft  5/5  0.000003: PERF_RECORD_COMM exec: pft:5/5\n",
            "  pft  5/5  0.000004: PERF_RECORD_MMAP2 5/5: [0x7f0000010000"
            "(0x10000) @ 0x7f0000010000 00:00 0 0]: rw-p //anon\n",
            "  pft  6/6  0.000005: 1 page-faults:  7f0000011000\n"])
        keep = {}
        analysis.analyse(rec, Snaps(), None, 1, True, keep)
        self.assertEqual(keep["facts"].events, [])


class Exec(unittest.TestCase):
    def test_a_fault_after_the_exec_is_on_no_vma_of_before_it(self):
        # The survey's child seen before its exec with a file where,
        # after it, the program maps anonymous memory (an MMAP record
        # alone saw): the fault is on that.
        pre = ("00007f0000010000-00007f0000020000 r--p 00000000 08:01 99 "
               "/usr/bin/python3\n")
        snaps = snapshots_of([pre, ""], smaps=False)
        snaps.procs = {}
        rec = perfscript.parse_script([
            "  pft  5/5  0.0000015: PERF_RECORD_COMM exec: pft:5/5\n",
            "  pft  5/5  0.0000016: PERF_RECORD_MMAP2 5/5: [0x7f0000010000"
            "(0x10000) @ 0x7f0000010000 00:00 0 0]: rw-p //anon\n",
            "  pft  5/5  0.0000017: 1 page-faults:  7f0000011000\n"])
        keep = {}
        analysis.analyse(rec, snaps, None, 1, True, keep)
        self.assertEqual([(e[3][0], e[5]) for e in keep["facts"].events],
                         [("vma", 0x7f0000011)])


class Figures(unittest.TestCase):
    def test_concurrency_counts_distinct_threads_per_millisecond(self):
        ms = objects.WINDOW_NS
        faults = [(0, 1), (10, 2), (20, 2), (ms + 1, 1), (5 * ms, 1),
                  (5 * ms + 1, 2), (5 * ms + 2, 3)]
        # windows: {1,2}, {1}, {1,2,3}
        self.assertEqual(analysis.concurrency(faults), (3, 2))
        self.assertEqual(analysis.concurrency([]), (0, 0))

    def test_sampling_error_is_one_over_the_root_of_the_samples(self):
        self.assertAlmostEqual(analysis.sampling_error(100, 16), 0.1)
        self.assertEqual(analysis.sampling_error(100, 1), 0.0)

    def test_sizes_read_as_pft_reads_them(self):
        self.assertEqual(verdict.size_arg(64 << 20), "64M")
        self.assertEqual(verdict.size_arg(2 << 30), "2G")
        self.assertEqual(verdict.size_arg(4096), "1M")


class Madvise(unittest.TestCase):
    def test_reads_madvise_calls(self):
        # perf script of syscalls:sys_enter_madvise, as perf 6.1 prints
        # it (the addr field last: 0).
        rec = perfscript.parse_script([
            "  pft 15320/15321 40095.965344:   1 syscalls:sys_enter_madvise:"
            " start: 0x7f043b800000, len_in: 0x01000000, behavior: "
            "0x0000000a               0\n"])
        self.assertEqual(rec.madvises, [(40095965344000, 15320,
                                         0x7f043b800000, 0x1000000, 10,
                                         15321)])
        self.assertEqual((rec.faults, rec.lost), ([], 0))

    def test_recorded_with_the_tracepoints_alone(self):
        self.assertIn(kinds.MADVISE_EVENT,
                      kinds.events(kinds.TRACEPOINTS, True))
        self.assertNotIn(kinds.MADVISE_EVENT,
                         kinds.events(kinds.TRACEPOINTS))
        self.assertNotIn(kinds.MADVISE_EVENT,
                         kinds.events(kinds.PAGE_FAULTS, True))


class Snaps:
    """A Snapshots stand-in: what /proc said."""

    def __init__(self, vmas=None, threads=None):
        self.vmas = vmas or {}
        self.threads = threads or {}
        self.procs = {}


class UnseenPeak(unittest.TestCase):
    """A short program's worker process whose populate outran the
    snapshots: smaps saw its 64 MiB VMA once, part resident, and the
    process ended before the next read.  The kernel's peak resident
    memory of the program (getrusage ru_maxrss) holds the rest."""

    M = 1 << 20

    def smaps(self, rss_kib, huge_kib=0, eligible=0):
        return ("7f0000000000-7f0000100000 r-xp 00000000 08:01 42 /lib/x\n"
                "Rss:                2048 kB\n"
                "7f1000000000-7f1004000000 rw-p 00000000 00:00 0 \n"
                "Rss:            %8d kB\n"
                "AnonHugePages:  %8d kB\n"
                "THPeligible:    %d\n" % (rss_kib, huge_kib, eligible))

    @staticmethod
    def two_processes(views):
        """One snapshot of processes 5 and 6 (its child) whose smaps
        read views[pid]."""
        snaps = proc.Snapshots(5)
        with mock.patch.object(proc, "read", side_effect=lambda path:
                               views[int(path.split("/")[2])]
                               if path.endswith("maps") else None), \
                mock.patch.object(proc, "descendants",
                                  return_value=[5, 6]), \
                mock.patch("os.listdir", return_value=[]):
            snaps.take(smaps=True)
        return snaps

    def resident(self, views, maxrss, attached=False, mmaps=(),
                 hidden=16700):
        snaps = snapshots_of(views, smaps=True, attached=attached)
        doc = {"vmas": [], "kernel": {"maxrss": maxrss},
               "kernel_minus_perf": hidden}
        analysis.add_resident(doc, snaps, mmaps)
        return doc["resident"]

    def test_the_peak_no_smaps_read_saw(self):
        # Seen 37.5 MiB of 64; the process peaked at 64 MiB and the
        # 2 MiB of its library.
        r = self.resident([self.smaps(38400)], 66 * self.M)
        self.assertEqual(len(r), 1)
        self.assertEqual(r[0]["size"], 64 * self.M)
        self.assertEqual(r[0]["rss"], 64 * self.M)
        self.assertEqual(r[0]["grown"], 64 * self.M)
        self.assertEqual(r[0]["unseen"], 26.5 * self.M)
        self.assertEqual(r[0]["huge_bytes"], 0)

    def test_in_huge_pages_where_what_was_seen_was(self):
        r = self.resident([self.smaps(53248, 53248, 1)], 66 * self.M)
        self.assertEqual((r[0]["rss"], r[0]["huge_bytes"]),
                         (64 * self.M, 64 * self.M))

    def test_seen_empty_filled_with_few_faults(self):
        # Nothing resident seen: 64 MiB in 360 faults without an event
        # came in huge pages; in 16,700, in 4 KiB pages.
        r = self.resident([self.smaps(0, 0, 1)], 66 * self.M, hidden=360)
        self.assertEqual((r[0]["rss"], r[0]["huge_bytes"]),
                         (64 * self.M, 64 * self.M))
        r = self.resident([self.smaps(0, 0, 1)], 66 * self.M,
                          hidden=16700)
        self.assertEqual((r[0]["rss"], r[0]["huge_bytes"]), (64 * self.M, 0))

    def test_a_range_mapped_after_the_last_read(self):
        # The one smaps read came before the populated range was mapped:
        # perf's MMAP record holds it; a file's record and a read-only
        # range are not where memory was populated.
        lib = "7f0000000000-7f0000100000 r-xp 00000000 08:01 42 /lib/x\n" \
            "Rss:                2048 kB\n"
        mmaps = [(900, 5, 0x7f2000000000, 0x7f2004000000, "rw-p", "//anon"),
                 (950, 5, 0x7f3000000000, 0x7f3008000000, "r--p", "//anon"),
                 (960, 5, 0x7f4000000000, 0x7f4008000000, "rw-p", "/f")]
        r = self.resident([lib], 66 * self.M, mmaps=mmaps, hidden=16700)
        self.assertEqual(len(r), 1)
        self.assertEqual((r[0]["start"], r[0]["rss"], r[0]["unseen"],
                          r[0]["huge_bytes"]),
                         ("7f2000000000", 64 * self.M, 64 * self.M, 0))

    def test_the_advice_of_a_range_no_smaps_read_saw(self):
        # QEMU's guest RAM, mapped and populated after the last smaps
        # read: its MADV_DONTFORK and MADV_MERGEABLE (perf's madvise
        # tracepoint) are its flags; a call on another range or of
        # another process is not, MADV_NOHUGEPAGE undoes MADV_HUGEPAGE.
        lib = "7f0000000000-7f0000100000 r-xp 00000000 08:01 42 /lib/x\n" \
            "Rss:                2048 kB\n"
        mmaps = [(900, 5, 0x7f2000000000, 0x7f2004000000, "rw-p", "//anon")]
        advice = [(910, 5, 0x7f2000000000, 64 * self.M, 14),
                  (911, 5, 0x7f2000000000, 64 * self.M, 10),
                  (912, 5, 0x7f2000000000, 64 * self.M, 12),
                  (913, 5, 0x7f1000000000, 64 * self.M, 16),
                  (914, 7, 0x7f2000000000, 64 * self.M, 16),
                  (915, 5, 0x7f2000000000, 64 * self.M, 15)]
        snaps = snapshots_of([lib], smaps=True)
        doc = {"vmas": [], "kernel": {"maxrss": 66 * self.M},
               "kernel_minus_perf": 16700}
        analysis.add_resident(doc, snaps, mmaps, advice)
        self.assertEqual(sorted(doc["resident"][0]["flags"]),
                         ["dc", "mg", "nh"])
        # None recorded (unprivileged): no flags, as before.
        analysis.add_resident(doc, snaps, mmaps)
        self.assertEqual(doc["resident"][0]["flags"], [])

    def test_the_process_that_reached_the_peak(self):
        # The worker (pid 6) seen with 61.5 MiB of its 64 MiB VMA; its
        # parent (pid 5) has a 3 MiB range with nothing resident: the
        # peak is the worker's, not a range with more room.
        views = {5: "7f0000000000-7f0000300000 rw-p 00000000 00:00 0 \n"
                    "Rss:                   0 kB\n"
                    "7f0001000000-7f0001200000 r-xp 00000000 08:01 4 /l\n"
                    "Rss:                2048 kB\n",
                 6: self.smaps(62976)}
        snaps = self.two_processes(views)
        doc = {"vmas": [], "kernel": {"maxrss": 66 * self.M},
               "kernel_minus_perf": 16700}
        analysis.add_resident(doc, snaps)
        r = doc["resident"][0]
        self.assertEqual((r["pid"], r["size"], r["rss"]),
                         (6, 64 * self.M, 64 * self.M))
        self.assertEqual(len(doc["resident"]), 1)

    def test_none_where_another_process_s_fault_events_brought_it(self):
        # A replay's worker (pid 6) seen once with 6 MiB of its 64 MiB,
        # then faulting the rest with events; its parent (pid 5) maps
        # the same range, empty: the parent's room is not the peak.
        empty = self.smaps(0).replace("/lib/x", "/lib/y")
        views = {5: empty, 6: self.smaps(6144)}
        snaps = self.two_processes(views)
        doc = {"vmas": [{"pid": 6, "backing": "anonymous",
                         "bytes": 64 * self.M, "faults": 16384,
                         "start": "7f1000000000", "end": "7f1004000000"}],
               "kernel": {"maxrss": 66 * self.M},
               "kernel_minus_perf": 379}
        self.assertIsNone(analysis.unseen_peak(doc, snaps))
        doc["vmas"][0]["bytes"] = 6 * self.M
        self.assertIsNotNone(analysis.unseen_peak(doc, snaps))

    def test_the_largest_vma_of_that_process(self):
        # QEMU's guest RAM seen with 126 of its 128 MiB, beside a thread
        # stack of 8 MiB with 8 KiB resident: the last 2 MiB are the
        # guest RAM's, though the stack has more room.
        text = ("7f0000000000-7f0000800000 rw-p 00000000 00:00 0 \n"
                "Rss:                   8 kB\n"
                "7f1000000000-7f1008000000 rw-p 00000000 00:00 0 \n"
                "Rss:              129024 kB\n"
                "AnonHugePages:    129024 kB\n")
        r = self.resident([text], 130 * self.M)
        self.assertEqual((r[0]["start"], r[0]["rss"], r[0]["huge_bytes"]),
                         ("7f1000000000", 128 * self.M, 128 * self.M))

    def test_no_more_than_the_faults_without_an_event_brought(self):
        # dd's buffer, filled by read(2) (fault events) after the last
        # smaps read: 333 faults without an event are not 26.5 MiB.
        r = self.resident([self.smaps(38400)], 66 * self.M, hidden=333)
        self.assertEqual((r[0]["rss"], r[0]["unseen"]), (37.5 * self.M, 0))

    def test_none_where_fault_events_brought_the_peak(self):
        # A 24 MiB range written page by page after the one smaps read:
        # 6,144 fault events of 4 KiB bring in the peak; the 334 faults
        # without an event (the exec's and the setup's) are not it.
        snaps = snapshots_of([self.smaps(3456)], smaps=True)
        doc = {"vmas": [{"pid": 5, "backing": "anonymous",
                         "bytes": 6144 * 4096, "faults": 6144,
                         "start": "7f1000000000", "end": "7f1004000000"}],
               "kernel": {"maxrss": 26 * self.M},
               "kernel_minus_perf": 334}
        self.assertIsNone(analysis.unseen_peak(doc, snaps))
        doc["vmas"][0]["bytes"] = 512 * 4096
        self.assertIsNotNone(analysis.unseen_peak(doc, snaps))

    def test_no_more_than_the_vma_nor_than_was_seen(self):
        # A peak beyond the VMA's room is not put in it; a peak no
        # larger than what smaps saw adds nothing; attached, the
        # program's own peak is not known.
        r = self.resident([self.smaps(38400)], 200 * self.M)
        self.assertEqual(r[0]["rss"], 64 * self.M)
        r = self.resident([self.smaps(38400), self.smaps(65536)],
                          66 * self.M)
        self.assertEqual((r[0]["rss"], r[0]["unseen"]), (64 * self.M, 0))
        r = self.resident([self.smaps(38400)], 66 * self.M, attached=True)
        self.assertEqual((r[0]["rss"], r[0]["unseen"]), (37.5 * self.M, 0))


class LostSamples(unittest.TestCase):
    LINES = [
        "  pft  5/6  1.5: 16 page-faults:  7f0000001000\n",
        "  pft  5/6  1.6: PERF_RECORD_LOST lost 250\n",
        "  pft  5/7  1.7: PERF_RECORD_LOST lost 205\n",
        "  pft  5/7  1.8: 16 page-faults:  7f0000002000\n"]

    def test_reads_the_samples_each_overflow_dropped(self):
        rec = perfscript.parse_script(self.LINES)
        self.assertEqual(rec.lost_samples, 455)
        self.assertEqual(len(rec.faults), 2)
        self.assertEqual(rec.lost, 0)

    def test_a_total_at_the_end_counts_the_same_samples(self):
        rec = perfscript.parse_script(self.LINES + [
            "  pft  5/5  1.9: PERF_RECORD_LOST_SAMPLES: lost 455\n"])
        self.assertEqual(rec.lost_samples, 455)
        rec = perfscript.parse_script(
            ["  :-1  -1/-1  1.9: PERF_RECORD_LOST_SAMPLES lost 7\n"])
        self.assertEqual(rec.lost_samples, 7)

    def test_lost_faults_are_not_the_kernels_own(self):
        rec = perfscript.parse_script(self.LINES)
        snap = {5: {(0x7f0000000000, 0x7f0004000000): {
            "start": 0x7f0000000000, "end": 0x7f0004000000,
            "perms": "rw-p", "path": "", "last_ns": 1}}}
        # 2 samples seen and 455 lost at 16 faults each: 7,312 faults.
        kernel = {"faults": 7400, "minflt": 7400, "majflt": 0,
                  "source": "t"}
        doc = analysis.analyse(rec, Snaps(snap), kernel, 16, True)
        self.assertEqual(doc["perf"]["lost_samples"], 455)
        self.assertEqual(doc["perf"]["lost_faults"], 7280)
        self.assertEqual(doc["kernel_minus_perf"], 7400 - 32 - 7280)
        self.assertNotIn("populate", doc["verdict"])
        out = io.StringIO()
        render.render(doc, out)
        self.assertIn("lost: 455 samples (about 7280 faults)",
                      out.getvalue())


class KernelLost(unittest.TestCase):
    # perf 6.1's perf report --stats of a run that lost 25 samples, of
    # which perf script showed one PERF_RECORD_LOST of 2: the other 23
    # were dropped after it, the buffer still full when the program ended.
    STATS = """Aggregated stats:
           TOTAL events:        132
            LOST events:          1  ( 0.8%)
          SAMPLE events:         76  (57.6%)
    LOST_SAMPLES events:          1  ( 0.8%)
  FINISHED_ROUND events:          2  ( 1.5%)
page-faults stats:
          SAMPLE events:         76
    LOST_SAMPLES events:         25
"""

    def test_sums_the_lost_samples_of_each_event_not_the_records(self):
        self.assertEqual(perfscript.parse_stats(self.STATS.splitlines()), 25)
        two = self.STATS + "minor-faults stats:\n" \
            "    LOST_SAMPLES events:          4\n"
        self.assertEqual(perfscript.parse_stats(two.splitlines()), 29)

    def test_none_without_a_section_per_event(self):
        # An older perf: records of each kind only.
        self.assertEqual(perfscript.parse_stats(
            self.STATS.split("page-faults")[0].splitlines()), 0)
        self.assertEqual(perfscript.parse_stats([]), 0)

    def fake_perf(self, tmp, report):
        """A perf whose script prints one sample and one PERF_RECORD_LOST
        of 2, and whose report prints REPORT (or fails when None)."""
        path = os.path.join(tmp, "perf")
        with open(os.path.join(tmp, "stats"), "w") as f:
            f.write(report or "")
        with open(path, "w") as f:
            f.write("#!/bin/sh\n"
                    "case $1 in\n"
                    "script) echo '  pft  5/6  1.5: 1 page-faults:  "
                    "7f0000001000'; echo '  pft  5/6  1.6: PERF_RECORD_LOST "
                    "lost 2';;\n"
                    "report) %s;;\n"
                    "esac\n" % ("cat %s/stats" % tmp if report is not None
                                 else "exit 1"))
        os.chmod(path, 0o755)
        p = recording.Perf.__new__(recording.Perf)
        p.tmp, p.data = tmp, os.path.join(tmp, "perf.data")
        return p, path

    def test_the_kernels_total_counts_what_no_record_said(self):
        with tempfile.TemporaryDirectory() as tmp:
            p, perf = self.fake_perf(tmp, self.STATS)
            rec = p.script(perf)
        self.assertEqual(rec.lost_overflows, 2)
        self.assertEqual(rec.lost_samples, 25)
        self.assertEqual(len(rec.faults), 1)

    def test_the_records_stand_when_perf_report_fails(self):
        with tempfile.TemporaryDirectory() as tmp:
            p, perf = self.fake_perf(tmp, None)
            rec = p.script(perf)
        self.assertEqual(rec.lost_samples, 2)


class Buffer(unittest.TestCase):
    def test_root_gets_32_mib_in_all_from_512_kib_to_8_mib_a_cpu(self):
        page = base.PAGE
        self.assertIsNone(recording.buffer_pages(1000, 2))
        self.assertEqual(recording.buffer_pages(0, 2) * page, 8 << 20)
        self.assertEqual(recording.buffer_pages(0, 8) * page, 4 << 20)
        self.assertEqual(recording.buffer_pages(0, 12) * page, 2 << 20)
        self.assertEqual(recording.buffer_pages(0, 84) * page, 512 << 10)
        self.assertEqual(recording.buffer_pages(0, 384) * page, 512 << 10)
        self.assertEqual(recording.buffer_pages(0, None) * page, 8 << 20)


class Analyse(unittest.TestCase):
    def test_joins_faults_to_one_merged_vma_with_its_threads(self):
        doc = analysis.analyse(record(), Snaps(), {"faults": 9, "minflt": 9,
                                                 "majflt": 0, "source": "t"},
                             1, True)
        top = doc["vmas"][0]
        self.assertEqual(top["size"], 2 << 20)
        self.assertEqual(top["backing"], "anonymous")
        self.assertEqual(top["faults"], 4)
        self.assertEqual(top["threads"], 2)
        self.assertEqual([t["name"] for t in top["top_threads"]],
                         ["GC Thread#0", "GC Thread#1"])
        # 10.0001 and 10.0002 in one window, 10.0003 in it too (thread
        # 102), 10.0023 alone.
        self.assertEqual(top["concurrency_max"], 2)
        self.assertEqual(doc["perf"]["faults"], 5)
        self.assertEqual(doc["kernel_minus_perf"], 4)
        self.assertIn("80% of the bytes faulted (16 KiB in 4 faults) on a 2 "
                      "MiB anonymous VMA from 2 threads (GC Thread#0, GC "
                      "Thread#1), up to 2 at once: the shared-VMA pattern",
                      doc["verdict"])
        # Sized from the bytes faulted (16 KiB), not the VMA's size.
        self.assertEqual(doc["reproduce"], "pft -t 2 -m 1M")

    def test_scales_sampled_counts(self):
        rec = perfscript.parse_script([
            "  pft  5/6  1.5: 16 page-faults:  7f0000001000\n",
            "  pft  5/7  1.5: 16 page-faults:  7f0000002000\n"])
        snap = {5: {(0x7f0000000000, 0x7f0004000000): {
            "start": 0x7f0000000000, "end": 0x7f0004000000,
            "perms": "rw-p", "path": "", "last_ns": 1}}}
        doc = analysis.analyse(rec, Snaps(snap), None, 16, True)
        self.assertEqual(doc["perf"]["faults"], 32)
        self.assertEqual(doc["perf"]["samples"], 2)
        self.assertEqual(doc["vmas"][0]["faults"], 32)


def vma(pid, start, size, faults, tids, backing="anonymous"):
    return {"pid": pid, "start": "%x" % start, "end": "%x" % (start + size),
            "size": size, "backing": backing, "faults": faults,
            "threads": len(tids), "thp": None, "concurrency_max": 1,
            "top_threads": [{"tid": t, "name": "w", "faults": faults //
                             len(tids)} for t in tids]}


def objects_of(vmas, source=kinds.PAGE_FAULTS):
    """The report's objects of VMAs of the fixtures above, through the
    survey's own facts: each thread faults its share of the VMA's pages
    once, in order, one a microsecond."""
    facts = objects.Facts(source)
    names = {}
    offsets = {}
    for v in vmas:
        start = int(v["start"], 16)
        # VMAs of one file map one range of it each, one after another.
        off = offsets.get(v.get("path"), 0)
        offsets[v.get("path")] = off + v["size"]
        sv = {"start": start, "end": int(v["end"], 16),
              "perms": v.get("perms", "rw-p"), "path": v.get("path", ""),
              "ino": v.get("ino", 0), "dev": v.get("dev", "00:01"),
              "off": off, "object": start + 1}
        key = objects.object_key(v["pid"], sv)
        facts.add_vma(key, v["pid"], sv, v["backing"])
        tids = [t["tid"] for t in v["top_threads"]]
        per = v["faults"] // len(tids)
        for n, tid in enumerate(tids):
            names[tid] = "w"
            for i in range(per):
                addr = start + (n * per + i) * base.PAGE
                facts.add(key, v["pid"], tid, kinds.USER, 1000 * i, 1,
                          base.PAGE, objects.page_index(sv, addr), start)
    out = [objects.summary(facts, k, names) for k in facts.objects]
    out.sort(key=lambda o: -o["bytes"])
    return out


def doc_of(vmas, total, kernel=None, resident=None, kside=None):
    d = {"vmas": vmas, "perf": {"faults": total},
         "kernel": {"faults": kernel} if kernel is not None else None,
         "resident": resident or [], "kernel_side_threads": kside or [],
         "objects": objects_of(vmas), "source": kinds.PAGE_FAULTS}
    if kernel is not None:
        d["kernel_minus_perf"] = kernel - total
    return d


class Verdict(unittest.TestCase):
    M = 1 << 20

    def test_per_thread_vmas(self):
        d = doc_of([vma(1, 0, 32 * self.M, 8192, [2]),
                    vma(1, 40 * self.M, 32 * self.M, 8192, [3])], 16500)
        line, cmd = analysis.verdict(d)
        self.assertIn("per-thread-VMA pattern", line)
        self.assertEqual(cmd, "pft -M -t 2 -m 64M")

    def test_processes_each_with_its_vma(self):
        d = doc_of([vma(1, 0, 64 * self.M, 8192, [1]),
                    vma(2, 0, 64 * self.M, 8192, [2])], 16500)
        line, cmd = analysis.verdict(d)
        self.assertIn("2 processes", line)
        self.assertEqual(cmd, "pft -n 2 -m 64M")

    def test_populate_from_resident_growth(self):
        res = [{"pid": 1, "size": 256 * self.M, "backing": "anonymous",
                "grown": 256 * self.M, "user_faults": 1,
                "huge_bytes": 256 * self.M, "rss": 256 * self.M}]
        ks = [{"tid": 5, "name": "qemu", "kernel_side_faults": 70},
              {"tid": 6, "name": "qemu", "kernel_side_faults": 64}]
        d = doc_of([vma(1, 0, 4 * self.M, 3000, [1], "file")], 3000,
                   kernel=3134, resident=res, kside=ks)
        line, cmd = analysis.verdict(d)
        self.assertIn("populate pattern", line)
        self.assertIn("256 MiB anonymous VMA", line)
        self.assertEqual(cmd, "pft -t 2 -m 256M --touch=populate "
                              "--thp=always")
        self.assertIn("256 MiB in huge pages", line)

    def test_an_exec_is_no_populate_worker(self):
        res = [{"pid": 1, "size": 256 * self.M, "backing": "anonymous",
                "grown": 256 * self.M, "user_faults": 0,
                "huge_bytes": 256 * self.M, "rss": 256 * self.M}]
        ks = [{"tid": 1, "name": "qemu", "kernel_side_faults": 115},
              {"tid": 5, "name": "qemu", "kernel_side_faults": 63},
              {"tid": 6, "name": "qemu", "kernel_side_faults": 59}]
        d = doc_of([vma(1, 0, 4 * self.M, 3000, [1], "file")], 3000,
                   kernel=3351, resident=res, kside=ks)
        d["exec_pids"] = [1]
        line, cmd = analysis.verdict(d)
        self.assertIn("taken by 2 threads", line)
        self.assertTrue(cmd.startswith("pft -t 2 -m 256M --touch=populate"))

    def test_a_vma_filled_after_its_threads_were_last_seen(self):
        # The worker process's counters were last read before its
        # populate: only the exec'd parent is seen taking faults without
        # events; the worker's VMA filled unseen (the peak) is where.
        res = [{"pid": 2, "size": 64 * self.M, "backing": "anonymous",
                "grown": 64 * self.M, "user_faults": 0, "huge_bytes": 0,
                "rss": 64 * self.M, "unseen": 20 * self.M},
               {"pid": 1, "size": 3 * self.M, "backing": "anonymous",
                "grown": 3 * self.M, "user_faults": 0, "huge_bytes": 0,
                "rss": 3 * self.M, "unseen": 0}]
        ks = [{"tid": 1, "pid": 1, "name": "pft",
               "kernel_side_faults": 313}]
        d = doc_of([vma(1, 0, 4 * self.M, 200, [1], "file")], 200,
                   kernel=16919, resident=res, kside=ks)
        d["exec_pids"] = [1]
        line, cmd = analysis.verdict(d)
        self.assertIn("one 64 MiB anonymous VMA", line)
        self.assertTrue(cmd.startswith("pft -t 1 -m 64M --touch=populate"),
                        cmd)
        self.assertEqual(d["populated"]["resident"], 64 * self.M)

    def test_an_exec_in_another_process_is_no_worker_of_a_private_vma(self):
        # pft's parent exec'd (its argument copy and a few more faults
        # without events) and its child populated 64 MiB of huge pages:
        # one worker, not two processes.
        res = [{"pid": 2, "size": 64 * self.M, "backing": "anonymous",
                "grown": 64 * self.M, "user_faults": 0,
                "huge_bytes": 64 * self.M, "rss": 64 * self.M,
                "unseen": 0, "shared": False}]
        ks = [{"tid": 1, "pid": 1, "name": "pft", "kernel_side_faults": 328},
              {"tid": 3, "pid": 2, "name": "pft", "kernel_side_faults": 32}]
        d = doc_of([vma(1, 0, 4 * self.M, 200, [1], "file")], 200,
                   kernel=560, resident=res, kside=ks)
        d["exec_pids"] = [1]
        line, cmd = analysis.verdict(d)
        self.assertEqual(cmd, "pft -t 1 -m 64M --touch=populate "
                              "--thp=always")

    def test_a_worker_that_ended_before_its_counters_were_read(self):
        # The populating threads ended between two snapshots: their
        # process's counters (/proc/PID/stat) hold their faults, no
        # thread's does; the exec'd parent's are its exec's.
        res = [{"pid": 2, "size": 128 * self.M, "backing": "anonymous",
                "grown": 128 * self.M, "user_faults": 0,
                "huge_bytes": 128 * self.M, "rss": 128 * self.M,
                "unseen": 0, "shared": False}]
        ks = [{"tid": 1, "pid": 1, "name": "pft", "kernel_side_faults": 317}]
        d = doc_of([vma(1, 0, 4 * self.M, 200, [1], "file")], 200,
                   kernel=596, resident=res, kside=ks)
        d["exec_pids"] = [1]
        d["kernel_side_processes"] = {1: 317, 2: 79}
        line, cmd = analysis.verdict(d)
        self.assertIn("one 128 MiB anonymous VMA", line)
        self.assertTrue(cmd.startswith("pft -t 1 -m 128M --touch=populate"),
                        cmd)

    def test_kernel_side_processes(self):
        snaps = Snaps(threads={})
        snaps.procs = {1: (400, 1), 2: (90, 0), 3: (10, 0)}
        d = {"threads": [{"tid": 1, "pid": 1, "faults": 84},
                         {"tid": 7, "pid": 2, "faults": 11},
                         {"tid": 8, "pid": 3, "faults": 12}]}
        self.assertEqual(analysis.kernel_side_processes(d, snaps),
                         {1: 317, 2: 79})

    def test_an_exec_alone_is_not_a_populate_pattern(self):
        d = doc_of([vma(1, 0, 4 * self.M, 40, [1], "file")], 48, kernel=268)
        line, _ = analysis.verdict(d)
        self.assertNotIn("populate", line)

    def test_nothing_seen(self):
        self.assertEqual(analysis.verdict(doc_of([], 0)),
                         ("no page faults seen", None))


class Errors(unittest.TestCase):
    def test_perf_missing_names_the_package(self):
        with mock.patch("shutil.which", return_value=None):
            with self.assertRaises(base.SurveyError) as e:
                recording.check_perf()
        self.assertIn("linux-perf", str(e.exception))

    def test_paranoid_level_and_what_is_needed(self):
        with mock.patch("shutil.which", return_value="/usr/bin/perf"), \
                mock.patch.object(recording, "read", return_value="3\n"), \
                mock.patch("os.geteuid", return_value=1000):
            with self.assertRaises(base.SurveyError) as e:
                recording.check_perf()
        self.assertIn("perf_event_paranoid is 3", str(e.exception))
        self.assertIn("2 or lower", str(e.exception))

    def test_no_such_process(self):
        with mock.patch("os.stat", side_effect=FileNotFoundError()):
            with self.assertRaises(base.SurveyError) as e:
                recording.check_pid(4242)
        self.assertEqual(str(e.exception), "no process 4242")

    def test_another_users_process(self):
        st = os.stat_result((0o40555, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        with mock.patch("os.stat", return_value=st), \
                mock.patch.object(recording, "read",
                                  return_value="7 (x) S 1 7 7 0 -1 0 5 0 "
                                               "0 0 0 0 0 0"), \
                mock.patch("os.geteuid", return_value=1000):
            with self.assertRaises(base.SurveyError) as e:
                recording.check_pid(7)
        self.assertIn("another user (uid 0)", str(e.exception))

    def test_program_not_found(self):
        with self.assertRaises(base.SurveyError) as e:
            cli.check_command(["/nonexistent/prog"])
        self.assertEqual(e.exception.status, 127)
        self.assertIn("program not found", str(e.exception))

    def test_bad_command_lines_exit_2(self):
        for argv in ([], ["-p", "5", "--", "true"], ["--duration=1", "--",
                                                      "true"],
                     ["-c", "0", "--", "true"], ["--bogus", "--", "true"]):
            err = io.StringIO()
            with contextlib.redirect_stderr(err), \
                    self.assertRaises(SystemExit) as e:
                cli.parse_args(argv)
            self.assertEqual(e.exception.code, 2, argv)
            self.assertTrue(err.getvalue().startswith("pft-survey: "), argv)

    def test_exit_status_passed_on(self):
        self.assertEqual(cli.exit_status(3 << 8), 3)
        self.assertEqual(cli.exit_status(9), 137)


if __name__ == "__main__":
    unittest.main()


class ReproduceBacking(unittest.TestCase):
    """The reproduce line names the memory of the VMA: memfd, SysV,
    hugetlb, a written file; from synthetic maps lines."""
    M = 1 << 20
    MOUNTS = "hugetlbfs /dev/hugepages hugetlbfs rw,relatime 0 0\n" \
        "tmpfs /dev/shm tmpfs rw 0 0\n"

    def cmd(self, line, threads=(2, 3), hugetlb=False):
        m = proc.parse_maps(line)[0]
        mounts = analysis.hugetlbfs_mounts(self.MOUNTS)
        v = vma(1, m["start"], m["end"] - m["start"], 16384, list(threads),
                analysis.backing(m["path"], m["perms"], hugetlb, mounts))
        v.update(path=m["path"], perms=m["perms"], ino=m["ino"],
                 dev=m["dev"])
        return analysis.verdict(doc_of([v], 16400))[1]

    def test_memfd(self):
        self.assertEqual(self.cmd(
            "7f0000000000-7f0004000000 rw-s 00000000 00:01 1234 "
            "/memfd:guest-ram (deleted)"),
            "pft -t 2 -m 64M --backing=memfd --share")
        self.assertEqual(self.cmd(
            "7f0000000000-7f0004000000 rw-p 00000000 00:01 1234 "
            "/memfd:guest-ram (deleted)"), "pft -t 2 -m 64M --backing=memfd")

    def test_sysv(self):
        self.assertEqual(self.cmd(
            "7f0000000000-7f0004000000 rw-s 00000000 00:01 32768 "
            "/SYSV00000000 (deleted)"), "pft -t 2 -m 64M -S")

    def test_hugetlb(self):
        self.assertEqual(self.cmd(
            "7f0000000000-7f0004000000 rw-s 00000000 00:0f 5678 "
            "/dev/hugepages/vm-ram"),
            "pft -t 2 -m 64M --backing=hugetlb --share")
        self.assertEqual(self.cmd(
            "7f0000000000-7f0004000000 rw-p 00000000 00:0f 5678 "
            "/anon_hugepage (deleted)"), "pft -t 2 -m 64M --backing=hugetlb")
        # A memfd of huge pages (smaps KernelPageSize above the page).
        self.assertEqual(self.cmd(
            "7f0000000000-7f0004000000 rw-s 00000000 00:01 1234 "
            "/memfd:ram (deleted)", hugetlb=True),
            "pft -t 2 -m 64M --backing=hugetlb --share")

    def test_written_file(self):
        self.assertEqual(self.cmd(
            "7f0000000000-7f0004000000 rw-s 00000000 08:01 99 "
            "/var/lib/db/data.bin"),
            "pft -t 2 -m 64M --backing=file:/var/lib/db --share")
        self.assertEqual(self.cmd(
            "7f0000000000-7f0004000000 rw-p 00000000 08:01 99 "
            "/var/lib/db/data.bin (deleted)"),
            "pft -t 2 -m 64M --backing=file:/var/lib/db")
        # Read only: no file backing to reproduce the writes.
        self.assertEqual(self.cmd(
            "7f0000000000-7f0004000000 r--p 00000000 08:01 99 "
            "/usr/lib/libbig.so"), "pft -t 2 -m 64M")
        # A directory that is not one word of a command line: quoted
        # for a POSIX shell.
        self.assertEqual(self.cmd(
            "7f0000000000-7f0004000000 rw-s 00000000 08:01 99 "
            "/var/my db/data.bin"),
            "pft -t 2 -m 64M '--backing=file:/var/my db' --share")

    def test_a_shell_reads_the_line_back_as_its_words(self):
        for d in ("/tmp/d;id", "/tmp/$(id)", "/tmp/it's", "/tmp/a`b`",
                  "/tmp/-x"):
            line = self.cmd("7f0000000000-7f0004000000 rw-s 00000000 08:01 "
                            "99 %s/data.bin" % d)
            words = subprocess.run(
                ["sh", "-c", 'for a in "$@"; do printf "%s\\0" "$a"; done',
                 "sh"] + shlex.split(line), stdout=subprocess.PIPE,
                check=True).stdout.split(b"\0")[:-1]
            self.assertIn(("--backing=file:" + d).encode(), words, line)
            self.assertEqual(shlex.split(line)[-1], "--share")
            echoed = subprocess.run(["sh", "-c", "printf '%s\\n' " + line],
                                    stdout=subprocess.PIPE, check=True)
            self.assertIn(("--backing=file:" + d).encode(), echoed.stdout)

    def test_names_a_terminal_acts_on_are_escaped_for_the_shell(self):
        # An escape sequence, a backslash, a newline, a byte not UTF-8.
        # (maps gives a newline in a path as \\012.)
        for d in ("/tmp/x\x1b[2Jy", "/tmp/a\\b", "/tmp/t\tb",
                  "/tmp/\udcff;id"):
            line = self.cmd("7f0000000000-7f0004000000 rw-s 00000000 08:01 "
                            "99 %s/data.bin" % d)
            self.assertTrue(line.isprintable(), repr(line))
            echoed = subprocess.run(["sh", "-c", "printf '%s\\n' " + line],
                                    stdout=subprocess.PIPE, check=True)
            self.assertIn(os.fsencode("--backing=file:" + d + "\n"),
                          echoed.stdout, line)

    def test_a_command_with_newlines(self):
        # Within an argument: on one line, read back.
        line = verdict.quote(["prog", "a\nb", "\n\nc"])
        self.assertTrue(line.isprintable(), line)
        echoed = subprocess.run(["sh", "-c", "printf '%s|' " + line],
                                stdout=subprocess.PIPE, check=True)
        self.assertEqual(echoed.stdout, b"prog|a\nb|\n\nc|")
        # At its end: read back by a shell, but printed escaped, as such.
        line = verdict.quote(["prog", "c\n"])
        echoed = subprocess.run(["sh", "-c", "printf '%s|' " + line],
                                stdout=subprocess.PIPE, check=True)
        self.assertEqual(echoed.stdout, b"prog|c\n|")
        self.assertEqual(render.shell_line(line), "prog c'\\x0a'  (an "
                         "argument ends with a newline: shown escaped, not "
                         "for a shell)")

    def test_the_text_report_gives_the_line_as_a_shell_reads_it(self):
        d = "/tmp/a\\b\x1b[2J"
        rec = perfscript.parse_script([
            "  pft  5/%d  1.%d: 1 page-faults:  7f00000%02x000\n" % (
                6 + i % 2, i, i) for i in range(64)])
        snap = {5: {(0x7f0000000000, 0x7f0004000000): {
            "start": 0x7f0000000000, "end": 0x7f0004000000,
            "perms": "rw-s", "path": d + "/data.bin", "dev": "08:01",
            "ino": 99, "last_ns": 1}}}
        doc = analysis.analyse(rec, Snaps(snap), None, 1, True)
        out = io.StringIO()
        render.render(doc, out)
        text = out.getvalue()
        self.assertNotIn("\x1b", text)
        line = [x for x in text.splitlines()
                if x.startswith("reproduce with: ")][0]
        echoed = subprocess.run(["sh", "-c", "printf '%s\\n' " + line[16:]],
                                stdout=subprocess.PIPE, check=True)
        self.assertIn(os.fsencode("--backing=file:" + d + "\n"),
                      echoed.stdout, line)

    def test_anonymous_unchanged(self):
        self.assertEqual(self.cmd(
            "7f0000000000-7f0004000000 rw-p 00000000 00:00 0 "),
            "pft -t 2 -m 64M")

    def test_per_thread_and_processes(self):
        line = "7f0000000000-7f0002000000 rw-s 00000000 00:01 1 " \
            "/memfd:a (deleted)"
        m = proc.parse_maps(line)[0]
        vs = []
        for pid, tid in ((1, 2), (1, 3)):
            v = vma(pid, m["start"] + (tid - 2) * 64 * self.M, 32 * self.M,
                    8192, [tid], "memfd/shmem")
            v.update(path=m["path"], perms=m["perms"], ino=m["ino"],
                     dev=m["dev"])
            vs.append(v)
        self.assertEqual(analysis.verdict(doc_of(vs, 16500))[1],
                         "pft -M -t 2 -m 64M --backing=memfd --share")
        vs[1]["pid"] = 2
        # Each process faulted 32 MiB: pft -n 2 gives each 1/2 of -m.
        self.assertEqual(analysis.verdict(doc_of(vs, 16500))[1],
                         "pft -n 2 -m 64M --backing=memfd --share")

    def test_hugetlbfs_mounts(self):
        self.assertEqual(analysis.hugetlbfs_mounts(
            self.MOUNTS + "none /mnt/huge\\0401G hugetlbfs rw 0 0\n"),
            ["/dev/hugepages", "/mnt/huge 1G"])
        self.assertEqual(analysis.backing("/dev/hugepagesX/f", "rw-s", False,
                                        ["/dev/hugepages"]), "file")
