# SPDX-License-Identifier: GPL-2.0-or-later
# test_sweep.py - a sweep end to end with a fake pft (a shell script that
# prints one pft-run/1 record per run): -o checked before the first run,
# an earlier sweep not replaced without --force, the runs written as they
# are measured and kept when the files cannot be written at the end, the
# table printed first, the number of points bounded before the plan is
# made, and SIGINT and interruptions without a traceback.
#
# Copyright (C) 2026 The libfaultgen authors

import contextlib
import csv
import io
import json
import os
import signal
import tempfile
import unittest

from pft_sweep import cli

from .fakesys import fake_pft
from .test_compare import run_main

# One record per run (--repeat=N: N of them); the check run (-m 1P) is
# not logged.  FAKE_PFT_HOOK is run before each record of a measured
# run, with $n the number of measured runs so far.
FAKE = r'''
if [ "$1" = --list-patterns ]; then printf '%s\n' shared-vma per-thread-vma
exit 0; fi
runs=1 check=0
for a; do
	case $a in --repeat=*) runs=${a#--repeat=} ;; 1P) check=1 ;; esac
done
i=1
while [ $i -le $runs ]; do
	if [ $check = 0 ]; then
		n=$(($(cat "$FAKE_PFT_DIR/count" 2>/dev/null || echo 0) + 1))
		echo $n >"$FAKE_PFT_DIR/count"
		eval "${FAKE_PFT_HOOK:-:}"
	fi
	echo '{"schema":"pft-run/1","run":'$i',"cpus":{"count":2},' \
		'"result":{"pages":1,"rounds_sampled":0},' \
		'"legacy":{"fault_per_wsec":'$((1000 + i))'}}'
	i=$((i + 1))
done
'''


class Sweep(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.dir = self.tmp.name
        self.pft = fake_pft(self.dir, FAKE)
        self.prefix = os.path.join(self.dir, "s")
        os.environ["FAKE_PFT_DIR"] = self.dir
        os.environ.pop("FAKE_PFT_HOOK", None)
        self.addCleanup(os.environ.pop, "FAKE_PFT_DIR", None)
        self.addCleanup(os.environ.pop, "FAKE_PFT_HOOK", None)
        # A sweep leaves its handlers of SIGINT and SIGTERM behind.
        for signo in (signal.SIGINT, signal.SIGTERM):
            self.addCleanup(signal.signal, signo, signal.getsignal(signo))

    def sweep(self, *args, prefix=None):
        return run_main("--pft=" + self.pft, "-w", "1", "-p", "shared-vma",
                        "-r", "3", "-m", "4M", "--no-plot", "-o",
                        prefix or self.prefix, *args)

    def measured(self):
        try:
            with open(os.path.join(self.dir, "count")) as f:
                return int(f.read())
        except OSError:
            return 0

    def runs(self, prefix=None):
        with open((prefix or self.prefix) + "-runs.csv") as f:
            return list(csv.DictReader(f))

    def test_a_sweep(self):
        rc, out, err = self.sweep()
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.measured(), 3)
        self.assertEqual([r["run"] for r in self.runs()], ["1", "2", "3"])
        self.assertRegex(out, r"\n1 +1001 +0\.0%\n$")

    def unwritable_dir(self):
        if os.geteuid() != 0:
            d = os.path.join(self.dir, "ro")
            os.mkdir(d, 0o555)
            return d
        # root writes in any directory of a writable file system; sysfs
        # takes no new file.
        try:
            with tempfile.TemporaryFile(dir="/sys"):
                pass
        except OSError:
            return "/sys"
        self.skipTest("no directory this user cannot write in")

    def test_unwritable_output(self):
        """Refused before the first run, in one line."""
        d = self.unwritable_dir()
        rc, out, err = self.sweep(prefix=os.path.join(d, "s"))
        self.assertEqual((rc, out), (1, ""))
        self.assertRegex(err, r"^pft-sweep: cannot write the output in %s: "
                         r"[^\n]*\n$" % d)
        self.assertEqual(self.measured(), 0)
        # --dry-run tells as much.
        rc, out, err = self.sweep("--dry-run", prefix=os.path.join(d, "s"))
        self.assertEqual((rc, out), (1, ""))

    def test_no_directory(self):
        rc, out, err = self.sweep(prefix=os.path.join(self.dir, "no", "s"))
        self.assertEqual((rc, err), (1, "pft-sweep: no directory '%s' for "
                                        "the output\n" %
                                        os.path.join(self.dir, "no")))
        self.assertEqual(self.measured(), 0)

    def test_runs_written_as_measured(self):
        """Each run is in PREFIX-runs.csv before the next one starts."""
        os.environ["FAKE_PFT_HOOK"] = \
            'wc -l <"%s-runs.csv" >>"%s/lines"' % (self.prefix, self.dir)
        rc, out, err = self.sweep()
        self.assertEqual(rc, 0, err)
        with open(os.path.join(self.dir, "lines")) as f:
            self.assertEqual(f.read().split(), ["1", "2", "3"])

    def test_runs_kept_when_the_files_fail(self):
        """A file that cannot be written at the end: the table is on
        stdout all the same, the runs are in PREFIX-runs.csv, exit 1."""
        os.environ["FAKE_PFT_HOOK"] = 'mkdir -p "%s.json"' % self.prefix
        rc, out, err = self.sweep()
        self.assertEqual(rc, 1)
        self.assertEqual(self.measured(), 3)
        self.assertRegex(out, r"\n1 +1001 +0\.0%\n$")
        self.assertIn("pft-sweep: cannot write the results: %s.json: Is a "
                      "directory\n" % self.prefix, err)
        self.assertIn("pft-sweep: the runs measured are in %s-runs.csv\n" %
                      self.prefix, err)
        self.assertEqual([float(r["fault_per_wsec"]) for r in self.runs()],
                         [1001.0] * 3)
        self.assertNotIn("Traceback", err)

    def test_an_earlier_sweep_is_kept(self):
        with open(self.prefix + ".csv", "w") as f:
            f.write("earlier\n")
        rc, out, err = self.sweep()
        self.assertEqual((rc, out), (2, ""))
        self.assertEqual(err, "pft-sweep: -o %s: %s.csv already exists (an "
                         "earlier sweep or comparison?): give --force to "
                         "replace it, or another prefix\nTry 'pft-sweep "
                         "--help' for more information.\n" %
                         (self.prefix, self.prefix))
        self.assertEqual(self.measured(), 0)
        with open(self.prefix + ".csv") as f:
            self.assertEqual(f.read(), "earlier\n")
        # --force replaces it, and takes away the rest of the earlier
        # sweep (its plot) before the first run.
        with open(self.prefix + ".png", "w") as f:
            f.write("earlier\n")
        rc, out, err = self.sweep("--force")
        self.assertEqual(rc, 0, err)
        self.assertFalse(os.path.exists(self.prefix + ".png"))
        with open(self.prefix + ".csv") as f:
            self.assertTrue(f.read().startswith("pattern,"))

    def test_a_directory_is_no_prefix(self):
        rc, out, err = self.sweep(prefix=self.dir + "/")
        self.assertEqual(rc, 2)
        self.assertIn("a directory; give a prefix", err)

    def test_points_bounded_before_the_plan(self):
        rc, out, err = run_main("--pft=" + self.pft, "-w", "1-1000000",
                                "--dry-run")
        self.assertEqual((rc, out), (2, ""))
        self.assertIn("'1-1000000' asks for 1000000 worker counts or more: a "
                      "sweep takes 10000 points at most", err)
        rc, out, err = run_main("--pft=" + self.pft, "-w", "1-6000",
                                "--dry-run", "-p", "shared-vma,processes")
        self.assertEqual((rc, out), (2, ""))
        self.assertIn("--workers: 12000 points (6000 worker counts, 2 "
                      "patterns): a sweep takes 10000 at most", err)
        # -o: a dry run still asks that the output can be written, and
        # the working directory may be read-only (make distcheck's).
        rc, out, err = run_main("--pft=" + self.pft, "-w", "1-5000,3-7",
                                "--dry-run", "-p", "shared-vma,processes",
                                "-o", self.prefix)
        self.assertEqual(rc, 0, err)
        self.assertEqual(len(out.splitlines()), 10000)

    def test_sigint_keeps_the_runs(self):
        """SIGINT during the second run: pft stopped, what was measured
        written (the JSON says so), exit 130, no traceback."""
        # A person's Ctrl-C: SIGINT not ignored, also where the tests
        # were started in the background (sh gives such commands SIGINT
        # ignored, and pft-sweep keeps an ignored SIGINT ignored).
        self.addCleanup(signal.signal, signal.SIGINT,
                        signal.getsignal(signal.SIGINT))
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.environ["FAKE_PFT_HOOK"] = \
            '[ $n -eq 2 ] && kill -INT $PPID && sleep 5'
        rc, out, err = self.sweep()
        self.assertEqual(rc, 130, err)
        self.assertNotIn("Traceback", err)
        self.assertIn("pft-sweep: stopped: writing the points measured so "
                      "far\n", err)
        self.assertEqual(len(self.runs()), 1)
        with open(self.prefix + ".json") as f:
            self.assertEqual(json.load(f)["stopped"], "SIGINT")
        # --compare marks the point of one run, and says why.
        rc, out, err = run_main("--compare", self.prefix, self.prefix)
        self.assertEqual(rc, 0, err)
        self.assertIn("1001 (n=1)", out)
        self.assertIn("(n=1): a single run, no significance", out)
        self.assertIn("pft-sweep: warning: base (%s): stopped by SIGINT "
                      "before its end; 1 of its 1 points have fewer runs "
                      "than the 3 asked; 1 point has a single run, marked "
                      "(n=1): no significance there" % self.prefix, err)

    def test_output_not_utf8(self):
        """A byte of pft's output that is not UTF-8: no traceback."""
        os.environ["FAKE_PFT_HOOK"] = "printf '\\377\\n'; printf 'x\\377' >&2"
        rc, out, err = self.sweep()
        self.assertEqual(rc, 0, err)
        self.assertEqual(len(self.runs()), 3)

    def test_reader_gone(self):
        """pft-sweep | true: the table cannot be printed, the files are
        written all the same, exit 141."""
        class Gone(io.StringIO):
            def write(self, text):
                raise BrokenPipeError(32, "Broken pipe")
        err = io.StringIO()
        with contextlib.redirect_stdout(Gone()), \
                contextlib.redirect_stderr(err):
            rc = cli.main(["--pft=" + self.pft, "-w", "1", "-p",
                           "shared-vma", "-r", "2", "-m", "4M", "--no-plot",
                           "-q", "-o", self.prefix])
        self.assertEqual((rc, err.getvalue()), (141, ""))
        self.assertEqual(len(self.runs()), 2)
        self.assertTrue(os.path.exists(self.prefix + ".json"))

    def test_interrupted_before_any_run(self):
        def interrupted(argv):
            raise KeyboardInterrupt
        real = cli.parse_args
        cli.parse_args = interrupted
        try:
            rc, out, err = run_main("-w", "1")
        finally:
            cli.parse_args = real
        self.assertEqual((rc, out, err), (130, "", "pft-sweep: stopped\n"))


if __name__ == "__main__":
    unittest.main()
