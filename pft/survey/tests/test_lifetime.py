# SPDX-License-Identifier: GPL-2.0-or-later
# test_lifetime.py - pft-survey's processes and files: a child started
# with the survey's preexec dies with the survey, the temporary directory
# of a survey that is gone is removed by the next (only that: named as a
# survey names it, a directory, this user's, its owner gone), perf record
# -p of processes that come and go is retried and then given fewer of
# them (and the report says which were not followed), /proc files with
# bytes that are not UTF-8 are read, and -o refuses what is not a
# regular file.
#
# Copyright (C) 2026 The libfaultgen authors

import io
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from types import SimpleNamespace
from unittest import mock

from pft_survey import cli, lifetime, perfscript, proc, record

from filetests import special_files, state

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def alive(pid):
    """Process pid exists and is not a zombie."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            text = f.read()
    except OSError:
        return False
    return text[text.rindex(b")") + 2:].split()[0] != b"Z"


def wait_gone(pid, tries=1000):
    for _ in range(tries):
        if not alive(pid):
            return True
        time.sleep(0.01)
    return False


class DiesWithParent(unittest.TestCase):
    def test_a_child_dies_when_the_survey_is_killed(self):
        """A parent (a Python process standing for the survey) starts
        sleep with lifetime.preexec, then is killed with SIGKILL: sleep
        ends too."""
        code = ("import subprocess, sys, time\n"
                "from pft_survey import lifetime\n"
                "p = subprocess.Popen(['sleep', '300'], "
                "preexec_fn=lifetime.preexec(None))\n"
                "print(p.pid, flush=True)\n"
                "time.sleep(300)\n")
        parent = subprocess.Popen([sys.executable, "-c", code], cwd=HERE,
                                  stdout=subprocess.PIPE)
        child = int(parent.stdout.readline())
        self.assertTrue(alive(child))
        parent.kill()
        parent.wait()
        parent.stdout.close()
        gone = wait_gone(child)
        if not gone:
            os.kill(child, signal.SIGKILL)
        self.assertTrue(gone, "sleep outlived its parent")

    def test_the_child_gets_the_mask_and_default_handlers(self):
        old = signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM])
        self.addCleanup(signal.pthread_sigmask, signal.SIG_SETMASK, old)
        out = subprocess.run(["grep", "^SigBlk", "/proc/self/status"],
                             stdout=subprocess.PIPE, universal_newlines=True,
                             preexec_fn=lifetime.preexec(old)).stdout
        blocked = int(out.split()[1], 16)
        self.assertFalse(blocked & (1 << (signal.SIGTERM - 1)), out)


class StaleDirs(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.dir = self.tmp.name

    def dead_pid(self):
        p = subprocess.Popen(["true"])
        p.wait()
        return p.pid

    def test_only_the_dirs_of_surveys_gone(self):
        mine = lifetime.make_temp_dir(self.dir)
        self.assertRegex(os.path.basename(mine),
                         r"^pft-survey\.%d\." % os.getpid())
        # A survey killed: its pid is gone.
        dead = self.dead_pid()
        killed = os.path.join(self.dir, "pft-survey.%d.abcd1234" % dead)
        os.mkdir(killed)
        with open(os.path.join(killed, "perf.data"), "w") as f:
            f.write("x")
        # Killed before its owner file: gone when its pid is.
        bare = os.path.join(self.dir, "pft-survey.%d.zz" % dead)
        os.mkdir(bare)
        # A pid in use again by another process: its start time differs.
        reused = os.path.join(self.dir, "pft-survey.1.reused")
        os.mkdir(reused)
        with open(os.path.join(reused, "owner"), "w") as f:
            f.write("1 1 %d\n" % lifetime.pid_namespace())
        # Alive: this process, with its true start time.
        live = os.path.join(self.dir, "pft-survey.%d.live" % os.getppid())
        os.mkdir(live)
        with open(os.path.join(live, "owner"), "w") as f:
            f.write("%d %s %d\n" % (os.getppid(),
                                    lifetime.start_time(os.getppid()),
                                    lifetime.pid_namespace()))
        # Another pid namespace's survey: not judged here.
        other_ns = os.path.join(self.dir, "pft-survey.%d.ns" % dead)
        os.mkdir(other_ns)
        with open(os.path.join(other_ns, "owner"), "w") as f:
            f.write("%d 1 %d\n" % (dead, lifetime.pid_namespace() + 1))
        # Not a survey's name, a link, a file.
        os.mkdir(os.path.join(self.dir, "pft-survey-%d" % dead))
        target = os.path.join(self.dir, "target")
        os.mkdir(target)
        os.symlink(target, os.path.join(self.dir,
                                        "pft-survey.%d.link" % dead))
        with open(os.path.join(self.dir, "pft-survey.%d.file" % dead),
                  "w"):
            pass
        if os.geteuid() == 0:
            theirs = os.path.join(self.dir, "pft-survey.%d.theirs" % dead)
            os.mkdir(theirs)
            os.chown(theirs, 65534, 65534)
        removed = lifetime.remove_stale_temp_dirs(self.dir)
        self.assertEqual(sorted(removed), sorted([killed, bare, reused]))
        left = sorted(os.listdir(self.dir))
        expect = sorted([os.path.basename(p) for p in (mine, live, other_ns)]
                        + ["pft-survey-%d" % dead, "target",
                           "pft-survey.%d.link" % dead,
                           "pft-survey.%d.file" % dead] +
                        (["pft-survey.%d.theirs" % dead]
                         if os.geteuid() == 0 else []))
        self.assertEqual(left, expect)


def fake_perf_failing(times, text="Couldn't create thread/CPU maps: "
                      "No such process"):
    """A stand-in for record.Perf that fails `times` times as perf does
    when a process it is given is gone, and notes the pids of each
    try."""
    tries = []

    def perf(_perf, _tmp, _pid, _period, pids=None, _mask=None,
             synth=False, source=None):
        tries.append((list(pids), synth, source))
        if len(tries) <= times:
            raise record.PerfStartError("perf record failed (exit status "
                                        "244): " + text, text)
        return SimpleNamespace(pids=pids)
    return perf, tries


class AttachTries(unittest.TestCase):
    """-p of a process whose children come and go."""

    def start(self, fails, tree=(100, 201, 202, 203), ages=None,
              text=None):
        ages = ages or {201: 5.0, 202: 0.05, 203: 0.5}
        args = (fails,) if text is None else (fails, text)
        perf, tries = fake_perf_failing(*args)
        c = SimpleNamespace(pid=100, no_follow=False, period=1,
                            source="tracepoints")
        with mock.patch.object(record, "Perf", perf), \
                mock.patch.object(record, "descendants",
                                  lambda _pid: list(tree)), \
                mock.patch.object(record, "maps_unreadable",
                                  lambda _pids: []), \
                mock.patch.object(record, "older_than",
                                  lambda pids, s: [p for p in pids
                                                   if ages[p] >= s]):
            out = record.start_attached(c, "perf", "/nonexistent", None)
        return out, tries

    def test_all_of_them_when_perf_can(self):
        (p, given, missed, hidden), tries = self.start(0)
        self.assertEqual(given, [100, 201, 202, 203])
        self.assertIsNone(missed)
        self.assertEqual(len(tries), 1)
        # perf records the events the survey chose.
        self.assertEqual(tries[0][2], "tracepoints")

    def test_a_fresh_list_then_the_older_ones(self):
        (p, given, missed, _), tries = self.start(2)
        self.assertEqual([t[0] for t in tries],
                         [[100, 201, 202, 203], [100, 201, 202, 203],
                          [100, 201, 203]])
        self.assertEqual(given, [100, 201, 203])
        self.assertEqual(missed["pids"], [202])
        self.assertIn("younger than 0.1 s were left out", missed["reason"])
        self.assertIn("thread/CPU maps", missed["reason"])

    def test_the_process_alone_at_last(self):
        (p, given, missed, _), tries = self.start(4)
        self.assertEqual(len(tries), 5)
        self.assertEqual(given, [100])
        self.assertEqual(missed["pids"], [201, 202, 203])

    def test_other_failures_are_not_retried_but_once_without_mappings(self):
        with self.assertRaises(record.PerfStartError):
            self.start(5, text="")
        _, tries = self.start(1, text="")
        self.assertEqual([t[1] for t in tries], [False, True])


class PerfGoneAtEnable(unittest.TestCase):
    def test_a_perf_that_failed_after_opening_its_fifo(self):
        """perf opened its control FIFO, failed and closed it before the
        survey wrote "enable": perf's message, not a broken pipe (which
        main takes for a reader gone, exit 141 without a word)."""
        p = object.__new__(record.Perf)
        p.err = tempfile.TemporaryFile("w+")
        p.proc = subprocess.Popen(
            ["sh", "-c", "echo \"Couldn't create thread/CPU maps: No "
             "such process\" >&2; exit 244"], stderr=p.err)
        p.proc.wait()
        r, w = os.pipe()
        os.close(r)
        try:
            with self.assertRaises(record.PerfStartError) as e:
                p.enable(w)
        finally:
            os.close(w)
        self.assertIn("thread/CPU maps", e.exception.text)
        self.assertIn("exit status 244", str(e.exception))


class Descendants(unittest.TestCase):
    def test_the_survey_is_not_its_own_subject(self):
        """-p of the survey's parent: the survey and its children are
        left out of the processes followed."""
        child = subprocess.Popen(["sleep", "60"])
        self.addCleanup(child.wait)
        self.addCleanup(child.kill)
        pids = proc.descendants(os.getppid())
        self.assertIn(os.getppid(), pids)
        self.assertNotIn(os.getpid(), pids)
        self.assertNotIn(child.pid, pids)
        self.assertIn(child.pid, proc.descendants(os.getpid()))


class NotUtf8(unittest.TestCase):
    def test_a_proc_file_with_bytes_not_utf8_is_read(self):
        with tempfile.NamedTemporaryFile(suffix=".maps") as f:
            f.write(b"7f0000000000-7f0000400000 rw-s 00000000 00:2a 12 "
                    b"/tmp/map\xff\n"
                    b"7f0000400000-7f0000401000 r--p 00000000 00:00 0 \n")
            f.flush()
            text = proc.read(f.name)
        vmas = proc.parse_maps(text)
        self.assertEqual(len(vmas), 2)
        self.assertEqual(os.fsencode(vmas[0]["path"]), b"/tmp/map\xff")

    def test_perfs_path_and_the_snapshots_agree(self):
        """perf script's text is read the same way: the MMAP record's
        path is the maps path."""
        line = ("python3 9/9 1.000000001: PERF_RECORD_MMAP2 9/9: "
                "[0x7f0000000000(0x400000) @ 0 00:2a 12 0]: rw-s "
                "/tmp/map\xff\n").encode("latin-1")
        with tempfile.NamedTemporaryFile() as f:
            f.write(line)
            f.flush()
            with open(f.name, errors="surrogateescape") as t:
                rec = perfscript.parse_script(t)
        self.assertEqual(os.fsencode(rec.mmaps[0][5]), b"/tmp/map\xff")


class Output(unittest.TestCase):
    def test_o_refuses_all_but_regular_files(self):
        with tempfile.TemporaryDirectory() as d:
            for name, path in special_files(d).items():
                before = state(path)
                err = io.StringIO()
                with self.subTest(name), \
                        mock.patch.object(cli, "check_perf",
                                          lambda: "perf"), \
                        mock.patch.object(sys, "stderr", err):
                    rc = cli.main(["-o", path, "--", "true"])
                    self.assertEqual(rc, 1)
                    self.assertEqual(len(err.getvalue().splitlines()), 1,
                                     err.getvalue())
                    self.assertIn(path, err.getvalue())
                    self.assertEqual(state(path), before)
            with open(os.path.join(d, "victim")) as f:
                self.assertEqual(f.read(), "precious\n")
            self.assertFalse([n for n in os.listdir(d)
                              if n.startswith(".") or n.endswith(".tmp")])


if __name__ == "__main__":
    unittest.main()
