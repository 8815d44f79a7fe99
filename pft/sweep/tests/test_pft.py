# SPDX-License-Identifier: GPL-2.0-or-later
# test_pft.py - the patterns a sweep takes come from the pft it runs
# (pft --list-patterns), with the sweep's own "processes": their order,
# the defaults, the message for an unknown one, and one line with exit 1
# for a pft that cannot say.  Fake pfts are shell scripts.
#
# Copyright (C) 2026 The libfaultgen authors

import contextlib
import io
import os
import tempfile
import unittest

from pft_sweep import cli, pft

from .fakesys import fake_pft

LISTS = 'if [ "$1" = --list-patterns ]; then printf "%s\\n" {}; exit 0; fi\n' \
    'exit 3'


def lister(dirname, names):
    return fake_pft(dirname, LISTS.replace("{}", " ".join(names)))


class Patterns(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def test_list_and_order(self):
        path = lister(self.tmp.name, ["shared-vma", "per-thread-vma",
                                      "ro-collapse", "pretouch"])
        self.assertEqual(pft.list_patterns(path), [
            "shared-vma", "per-thread-vma", "ro-collapse", "pretouch"])
        self.assertEqual(pft.sweep_patterns(pft.list_patterns(path)), [
            "shared-vma", "per-thread-vma", "processes", "ro-collapse",
            "pretouch"])

    def test_a_pft_with_fewer_patterns(self):
        path = lister(self.tmp.name, ["pretouch", "shared-vma"])
        self.assertEqual(pft.sweep_patterns(pft.list_patterns(path)),
                         ["shared-vma", "processes", "pretouch"])

    def test_what_the_library_says(self):
        """pft --list-patterns --json: one object a pattern, whose
        runs_once makes a sweep's points of it one-shot."""
        lines = "\n".join(
            '{"schema":"pft-patterns/1","pattern":"%s","runs_once":%s}' %
            (n, once) for n, once in (("shared-vma", "false"),
                                      ("ro-collapse", "true"),
                                      ("new-once", "true")))
        path = fake_pft(self.tmp.name,
                        'if [ "$1 $2" = "--list-patterns --json" ]; then '
                        "cat <<'E'\n%s\nE\nexit 0; fi\nexit 3" % lines)
        table = pft.pattern_table(path)
        self.assertEqual(list(table), ["shared-vma", "ro-collapse",
                                       "new-once"])
        c = cli.parse_args(["--pft=" + path, "-p", "new-once,processes"])
        self.assertEqual([pft.runs_once(c, p) for p in c.patterns],
                         [True, False])

    def failure(self, path):
        with self.assertRaises(RuntimeError) as e:
            pft.list_patterns(path)
        text = str(e.exception)
        self.assertNotIn("\n", text)
        return text

    def test_pft_that_cannot_say(self):
        d = self.tmp.name
        missing = os.path.join(d, "missing")
        self.assertEqual(self.failure(missing), "cannot run pft ('%s'): No "
                         "such file or directory" % missing)
        old = fake_pft(d, "echo \"pft: unrecognized option '$1'\" >&2\n"
                       "echo \"Try 'pft --help' for more information.\" "
                       ">&2\nexit 2")
        self.assertEqual(self.failure(old), "'%s --list-patterns --json' failed "
                         "(exit 2): pft: unrecognized option "
                         "'--list-patterns'" % old)
        silent = fake_pft(d, "exit 0")
        self.assertEqual(self.failure(silent), "'%s --list-patterns --json' listed "
                         "no patterns: not this project's pft?" % silent)
        other = fake_pft(d, "echo 'Usage: something else'")
        self.assertIn("listed no patterns", self.failure(other))
        killed = fake_pft(d, "kill -9 $$")
        self.assertEqual(self.failure(killed), "'%s --list-patterns --json' was "
                         "killed by signal 9" % killed)

    def main(self, *args):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), \
                contextlib.redirect_stderr(err):
            try:
                rc = cli.main(list(args))
            except SystemExit as e:
                rc = e.code
        return rc, out.getvalue(), err.getvalue()

    def test_command_line(self):
        path = lister(self.tmp.name, ["shared-vma", "per-thread-vma",
                                      "ro-collapse", "pretouch"])
        c = cli.parse_args(["--pft=" + path, "--dry-run"])
        self.assertEqual(c.patterns,
                         ["shared-vma", "per-thread-vma", "processes"])
        c = cli.parse_args(["--pft=" + path, "-p",
                            "pretouch,ro-collapse,pretouch"])
        self.assertEqual(c.patterns, ["pretouch", "ro-collapse"])
        rc, out, err = self.main("--pft=" + path, "-p", "shared-vma,bogus")
        self.assertEqual((rc, out), (2, ""))
        self.assertEqual(err, "pft-sweep: argument -p/--patterns: 'bogus' is "
                         "not one of shared-vma, per-thread-vma, processes, "
                         "ro-collapse, pretouch\nTry 'pft-sweep --help' for "
                         "more information.\n")

    def test_command_line_without_pft(self):
        broken = fake_pft(self.tmp.name, "exit 1")
        rc, out, err = self.main("--pft=" + broken, "-w", "1")
        self.assertEqual((rc, out), (1, ""))
        self.assertEqual(err, "pft-sweep: '%s --list-patterns --json' failed "
                         "(exit 1): no message\n" % broken)
        none = os.path.join(self.tmp.name, "none")
        rc, out, err = self.main("--pft=" + none)
        self.assertEqual((rc, err), (1, "pft-sweep: cannot find pft ('%s'): "
                                        "give --pft=PATH\n" % none))


if __name__ == "__main__":
    unittest.main()
