# SPDX-License-Identifier: GPL-2.0-or-later
# test_files.py - the files pft-sweep and pft-survey write, in a directory
# other users can write: a name is replaced only when it is a regular
# file or no file (never a device, FIFO, link or directory), temporary
# files have names nobody can guess and are never followed through a
# link, and the sweep's preflight checks a list of counts in a bounded
# number of pft runs.
#
# Copyright (C) 2026 The libfaultgen authors

import os
import signal
import stat
import tempfile
import unittest

from filetests import special_files, state
from pft_common import safefile

from .fakesys import fake_pft
from .test_compare import run_main
from .test_sweep import FAKE


class SafeFile(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.dir = self.tmp.name
        self.victim = os.path.join(self.dir, "victim")

    def victim_text(self):
        with open(self.victim) as f:
            return f.read()

    def test_refuses_all_but_regular_files(self):
        for name, path in special_files(self.dir).items():
            before = state(path)
            with self.subTest(name), self.assertRaises(OSError) as e:
                with safefile.replacing(path) as f:
                    f.write("report\n")
            self.assertEqual(e.exception.filename, path)
            self.assertEqual(state(path), before)
            with self.assertRaises(OSError):
                safefile.check_writable(path)
        self.assertEqual(self.victim_text(), "precious\n")
        self.assertEqual(sorted(os.listdir(self.dir)),
                         sorted(["fifo", "victim", "link", "dir"] +
                                (["null"] if os.geteuid() == 0 else [])))

    def test_replaces_a_regular_file_and_writes_a_new_name(self):
        path = os.path.join(self.dir, "r")
        with safefile.replacing(path) as f:
            f.write("one\n")
        with safefile.replacing(path) as f:
            f.write("two\n")
        with open(path) as f:
            self.assertEqual(f.read(), "two\n")
        self.assertEqual(os.listdir(self.dir), ["r"])
        mask = safefile.umask()
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode),
                         0o666 & ~mask)

    def test_a_link_at_a_predictable_name_is_not_followed(self):
        """Another user's links at the names the tools wrote before
        (PATH.tmp, PATH.new) are left alone, and so is their target."""
        with open(self.victim, "w") as f:
            f.write("precious\n")
        path = os.path.join(self.dir, "r")
        for suffix in (".tmp", ".new"):
            os.symlink(self.victim, path + suffix)
        safefile.check_writable(path)
        with safefile.replacing(path) as f:
            f.write("report\n")
        self.assertEqual(self.victim_text(), "precious\n")
        self.assertEqual(sorted(os.listdir(self.dir)),
                         ["r", "r.new", "r.tmp", "victim"])

    def test_temporary_names_differ(self):
        path = os.path.join(self.dir, "r")
        names = []
        for _ in range(2):
            fd, tmp = safefile.create_temp(path)
            os.close(fd)
            names.append(tmp)
        self.assertNotEqual(names[0], names[1])
        self.assertTrue(all(os.path.dirname(n) == self.dir for n in names))

    def test_a_failure_leaves_the_file_and_no_temporary(self):
        path = os.path.join(self.dir, "r")
        with open(path, "w") as f:
            f.write("old\n")
        with self.assertRaises(ZeroDivisionError):
            with safefile.replacing(path) as f:
                f.write("new\n")
                raise ZeroDivisionError()
        with open(path) as f:
            self.assertEqual(f.read(), "old\n")
        self.assertEqual(os.listdir(self.dir), ["r"])

    def test_a_long_name(self):
        path = os.path.join(self.dir, "x" * 250)
        with safefile.replacing(path) as f:
            f.write("report\n")
        self.assertEqual(os.listdir(self.dir), ["x" * 250])

    def test_create_new_refuses_a_link(self):
        os.symlink(self.victim, os.path.join(self.dir, "l"))
        with self.assertRaises(OSError):
            safefile.create_new(os.path.join(self.dir, "l"))
        self.assertFalse(os.path.exists(self.victim))

    def test_own_directory(self):
        d = os.path.join(self.dir, "perf")
        safefile.own_directory(d)
        safefile.own_directory(d)
        self.assertTrue(stat.S_ISDIR(os.lstat(d).st_mode))
        os.symlink(d, d + "-link")
        with self.assertRaises(OSError):
            safefile.own_directory(d + "-link")
        os.mkdir(d + "-open")
        os.chmod(d + "-open", 0o777)
        with self.assertRaises(OSError):
            safefile.own_directory(d + "-open")
        if os.geteuid() == 0:
            os.mkdir(d + "-other")
            os.chown(d + "-other", 65534, 65534)
            with self.assertRaises(OSError):
                safefile.own_directory(d + "-other")


class SweepFiles(unittest.TestCase):
    """pft-sweep with a fake pft: what it writes in a directory where
    another user put links and special files."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.dir = self.tmp.name
        self.pft = fake_pft(self.dir, FAKE)
        self.prefix = os.path.join(self.dir, "s")
        self.victim = os.path.join(self.dir, "victim")
        with open(self.victim, "w") as f:
            f.write("precious\n")
        os.environ["FAKE_PFT_DIR"] = self.dir
        os.environ.pop("FAKE_PFT_HOOK", None)
        self.addCleanup(os.environ.pop, "FAKE_PFT_DIR", None)
        for signo in (signal.SIGINT, signal.SIGTERM):
            self.addCleanup(signal.signal, signo, signal.getsignal(signo))

    def sweep(self, *args):
        return run_main("--pft=" + self.pft, "-w", "1", "-p", "shared-vma",
                        "-r", "1", "-m", "4M", "-o", self.prefix, *args)

    def test_links_at_the_old_temporary_names_are_not_followed(self):
        for suffix in (".csv", "-runs.csv", ".json", ".gp"):
            os.symlink(self.victim, self.prefix + suffix + ".new")
        rc, out, err = self.sweep("--no-plot")
        self.assertEqual(rc, 0, err)
        with open(self.victim) as f:
            self.assertEqual(f.read(), "precious\n")
        for suffix in (".csv", "-runs.csv", ".json"):
            self.assertTrue(stat.S_ISREG(os.lstat(self.prefix +
                                                  suffix).st_mode))

    def test_a_link_or_fifo_named_is_refused_even_with_force(self):
        for suffix, make in (("-runs.csv", lambda p: os.symlink(
                self.victim, p)), (".csv", os.mkfifo)):
            with self.subTest(suffix):
                path = self.prefix + suffix
                make(path)
                before = state(path)
                rc, out, err = self.sweep("--no-plot", "--force")
                self.assertEqual(rc, 1, err)
                self.assertEqual(len(err.splitlines()), 1, err)
                self.assertIn("not a regular file", err)
                self.assertEqual(state(path), before)
                os.unlink(path)
        with open(self.victim) as f:
            self.assertEqual(f.read(), "precious\n")
        self.assertFalse(os.path.exists(os.path.join(self.dir, "count")))

    def test_a_link_as_the_perf_directory_is_refused(self):
        os.mkdir(os.path.join(self.dir, "elsewhere"))
        os.symlink(os.path.join(self.dir, "elsewhere"), self.prefix + "-perf")
        rc, out, err = self.sweep("--no-plot", "--force", "--perf=stat",
                                  "--dry-run")
        self.assertEqual(rc, 1, err)
        self.assertIn("a symbolic link, not a directory", err)
        self.assertEqual(os.listdir(os.path.join(self.dir, "elsewhere")), [])

    @unittest.skipUnless(any(os.access(os.path.join(d, "gnuplot"), os.X_OK)
                             for d in os.environ.get("PATH", "").split(":")),
                         "gnuplot is not installed")
    def test_plots_are_not_written_through_links(self):
        for suffix in (".png", ".svg"):
            os.symlink(self.victim, self.prefix + suffix)
        rc, out, err = self.sweep("--force")
        self.assertEqual(rc, 1, err)
        self.assertIn("not a regular file", err)
        with open(self.victim) as f:
            self.assertEqual(f.read(), "precious\n")
        self.assertEqual(sorted(n for n in os.listdir(self.dir)
                                if n.startswith(".")), [])


# A fake pft that notes each check run's options in FAKE_PFT_DIR/checks.
CHECKS = r'''
for a; do
	case $a in 1P) echo "$*" >>"$FAKE_PFT_DIR/checks" ;; esac
done
''' + FAKE


class Preflight(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.dir = self.tmp.name
        self.pft = fake_pft(self.dir, CHECKS)
        os.environ["FAKE_PFT_DIR"] = self.dir
        self.addCleanup(os.environ.pop, "FAKE_PFT_DIR", None)

    def checks(self, *args):
        rc, out, err = run_main("--pft=" + self.pft, "-w", "1", "--dry-run",
                                "-m", "4M", "-o",
                                os.path.join(self.dir, "s"), *args)
        self.assertEqual(rc, 0, err)
        with open(os.path.join(self.dir, "checks")) as f:
            return f.read().splitlines(), out

    def test_a_list_of_counts_is_checked_at_its_bounds(self):
        """201 writer counts: two check runs, the least and the greatest,
        and every point planned."""
        lines, out = self.checks("--writers=%s" % ",".join(
            str(n) for n in range(200, -1, -1)))
        self.assertEqual(len(lines), 2, lines)
        self.assertEqual(sorted(a for line in lines for a in line.split()
                                if a.startswith("--writers=")),
                         ["--writers=0", "--writers=200"])
        self.assertEqual(len(out.splitlines()), 201)

    def test_every_backing_is_checked_with_each_bound(self):
        lines, _ = self.checks("--writers=1,2,3,4", "--backing=anon,memfd",
                               "-p", "shared-vma")
        self.assertEqual(len(lines), 4, lines)
        self.assertEqual(sorted(
            " ".join(a for a in line.split() if a.startswith(
                ("--writers=", "--backing="))) for line in lines),
            ["--writers=1 --backing=anon", "--writers=1 --backing=memfd",
             "--writers=4 --backing=anon", "--writers=4 --backing=memfd"])


if __name__ == "__main__":
    unittest.main()
