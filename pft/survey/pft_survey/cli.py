# SPDX-License-Identifier: GPL-2.0-or-later
# pft_survey.cli - pft-survey's command line: the options, the survey of a
# command or a process (and of the pft line of its verdict, --check),
# the report written, the exit status.
#
# Copyright (C) 2026 The libfaultgen authors

import argparse
import copy
import json
import math
import os
import shutil
import signal
import sys
import tempfile

from pft_common import safefile
from pft_common.pft import print_version
from pft_common.util import os_error, printable, quiet_stdout

from . import (check, compare, fromsurvey, kinds, lifetime, plot, profile,
               readprofile)
from .analysis import (add_check, add_kernel_side, add_resident, analyse,
                       pft_of, verdict)
from .base import PAGE, PROG, SurveyError, msg, usage_error
from .record import attach, check_perf, run_program
from .render import render, shell_line
from .verdict import quote

USAGE = """\
Usage: pft-survey [OPTION]... -- COMMAND [ARG]...
       pft-survey [OPTION]... -p PID [--duration=SECONDS]
       pft-survey --compare A.json B.json [--json] [--plot=FILE.svg]
       pft-survey --plot=FILE.svg PROFILE [PROFILE]
Run COMMAND, or attach to process PID, record its page faults with perf,
and report which of its VMAs take them, from how many threads at once,
and the pft command line that generates the same pattern; or compare
and plot fault profiles (pft-profile(5)).

  -p, --pid=PID          survey a running process (and its threads) until
                         it exits, --duration ends or Ctrl-C
  -d, --duration=SECONDS with -p: survey for SECONDS
  -c, --sample=N         record one fault event in N (perf record -c N);
                         counts are scaled by N, their error stated
  -o, --output=FILE      write the report to FILE (a regular file or a new
                         name), not standard output
      --check            then survey the pft line of the verdict the same
                         way and print both side by side, with the
                         ratio of each figure
      --no-follow        do not follow the program's child processes
      --events=SOURCE    tracepoints: the exceptions tracepoints (each
                         fault's kind; root, CAP_PERFMON or
                         perf_event_paranoid -1); page-faults: perf's
                         page-faults event (user-mode faults, no kind);
                         auto (default): the tracepoints where allowed
      --json             the report as JSON; on standard output, the
                         program's standard output goes to standard error
      --record=FILE      also write the fault profile (pft-profile/1) to
                         FILE, a new file (never over an existing one)
      --bin-ms=N         the profile's time bins: N ms (default 10, or the
                         first of 20, 50, 100, 200, 500, 1000 that keeps
                         the profile under 512 KiB); with --compare,
                         compare in bins of N ms (or wider)
      --keep-names       the profile keeps paths, the command line and
                         thread names (left out by default)
      --compare A B      compare two profiles per object and kind, with
                         the ratio B/A of each figure (--json: as JSON)
      --lag-ms=N         with --compare, B's times N ms earlier for the
                         time shapes (default: the shift that matches the
                         objects matched in both best, printed)
      --plot=FILE.svg    a heatmap of the profiles (of --compare, or
                         those given) to FILE.svg, a new file
  -h, --help             print this help and exit
  -V, --version          print the version and exit

Exit status: COMMAND's own status (the survey still reports); 1 when the
survey could not run; 2 for a bad command line; 128 + the signal after
SIGINT (Ctrl-C: 130), SIGTERM or SIGHUP, which stop COMMAND and still
report.  --compare and --plot: 0, or 1 when a profile cannot be read or
the picture written.
"""


class Parser(argparse.ArgumentParser):
    def error(self, message):
        usage_error(message)


def parse_args(argv):
    if "--" in argv:
        i = argv.index("--")
        opts, command = argv[:i], argv[i + 1:]
    else:
        opts, command = argv, []
    p = Parser(prog=PROG, add_help=False, usage=USAGE)
    p.add_argument("-p", "--pid", type=int)
    p.add_argument("-d", "--duration", type=float)
    p.add_argument("-c", "--sample", dest="period", type=int, default=1)
    p.add_argument("--no-follow", action="store_true")
    p.add_argument("--json", action="store_true")
    p.add_argument("--check", action="store_true")
    p.add_argument("--events", choices=("auto", kinds.TRACEPOINTS,
                                        kinds.PAGE_FAULTS), default="auto")
    p.add_argument("-o", "--output")
    p.add_argument("--record")
    p.add_argument("--bin-ms", dest="bin_ms", type=float)
    p.add_argument("--keep-names", action="store_true")
    p.add_argument("--compare", nargs=2)
    p.add_argument("--lag-ms", dest="lag_ms", type=float)
    p.add_argument("--plot")
    p.add_argument("-h", "--help", action="store_true")
    p.add_argument("-V", "--version", action="store_true")
    c, rest = p.parse_known_args(opts)
    if c.help:
        sys.stdout.write(USAGE)
        sys.exit(0)
    if c.version:
        c.pft = None
        print_version(c, PROG)
        sys.exit(0)
    if rest:
        if not command and not rest[0].startswith("-"):
            command = rest
        else:
            p.error("unknown option %s" % rest[0])
    c.command = command
    c.profiles = None
    if c.compare or c.plot:
        return profile_mode(p, c)
    check_record(p, c)
    if c.pid is None and not command:
        p.error("give a command after --, or -p PID")
    if c.pid is not None and command:
        p.error("-p and a command: give one of them")
    if c.pid is not None and c.pid <= 0:
        p.error("-p %d: not a process ID" % c.pid)
    if c.duration is not None:
        if c.pid is None:
            p.error("--duration goes with -p (a command is surveyed to its "
                    "end)")
        if not math.isfinite(c.duration) or c.duration <= 0:
            p.error("--duration=%g: give a positive number of seconds" %
                    c.duration)
    if c.period < 1:
        p.error("-c %d: give a positive number of events" % c.period)
    return c


def profile_mode(p, c):
    """--compare and --plot: the profiles to read (those of --compare, or
    those given to --plot), and nothing to run."""
    if c.pid is not None or c.record or (c.compare and c.command):
        p.error("--compare and --plot read profiles: no command, -p or "
                "--record with them")
    check_bin_ms(p, c)
    if c.lag_ms is not None and (not c.compare or
                                 not math.isfinite(c.lag_ms) or
                                 not 0 <= c.lag_ms <= 3600000):
        p.error("--lag-ms=%g: give a number of ms from 0 to 3600000, with "
                "--compare" % c.lag_ms)
    c.profiles = list(c.compare or c.command)
    c.command = []
    if not 1 <= len(c.profiles) <= 2:
        p.error("--plot: give one or two profiles")
    return c


def check_bin_ms(p, c):
    if c.bin_ms is not None and (not math.isfinite(c.bin_ms) or
                                 not 0.1 <= c.bin_ms <= 60000):
        p.error("--bin-ms=%g: give a number of ms from 0.1 to 60000" %
                c.bin_ms)


def check_record(p, c):
    check_bin_ms(p, c)
    if c.lag_ms is not None:
        p.error("--lag-ms: it goes with --compare")
    c.bin_ms_given = c.bin_ms is not None
    if c.bin_ms is None:
        c.bin_ms = profile.BIN_MS
    if c.record is not None and not c.record:
        p.error("--record: give a file name")
    if c.keep_names and not c.record:
        p.error("--keep-names goes with --record")


def check_new_file(path):
    """Before the survey: path can be made, a new file (--record and
    --plot never write over one, nor through a link)."""
    if os.path.lexists(path):
        raise SurveyError("%s: exists: a new file is written, never over "
                          "one (give a new name)" % path)
    d = os.path.dirname(path) or "."
    if not os.path.isdir(d) or not os.access(d, os.W_OK | os.X_OK):
        raise SurveyError("%s: cannot create a file in %s" % (path, d))


def profiles_main(c):
    """--compare and --plot: read, compare, draw."""
    if c.plot:
        check_new_file(c.plot)
    profs = [(path, readprofile.load(path)) for path in c.profiles]
    if c.compare:
        doc = compare.compare(profs[0][1], profs[1][1], c.bin_ms,
                              c.lag_ms)
        compare.add_calls(doc, profs[0][1], profs[1][1])
        compare.write(doc, tuple(c.compare), c.json, sys.stdout)
        sys.stdout.flush()
    if c.plot:
        plot.plot(c.plot, profs)
    return 0


def check_command(cmd):
    prog = cmd[0]
    if "/" in prog:
        if not os.path.exists(prog):
            raise SurveyError("%s: program not found" % prog, 127)
        if os.path.isdir(prog) or not os.access(prog, os.X_OK):
            raise SurveyError("%s: not an executable program" % prog, 126)
    elif not shutil.which(prog):
        raise SurveyError("%s: program not found" % prog, 127)


def exit_status(status):
    if status is None:
        return 0
    if os.WIFEXITED(status):
        return os.WEXITSTATUS(status)
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return 1


class Stopped(Exception):
    """A stop signal outside the program's run: the exit status is 128 +
    the signal."""

    def __init__(self, signo):
        super().__init__(signo)
        self.signo = signo


def on_stop_signal(signo, _frame):
    raise Stopped(signo)


def write_report(c, doc, out):
    if c.json:
        json.dump(doc, out, indent=1, sort_keys=True)
        out.write("\n")
    else:
        if c.command:
            out.write("command: %s\n" % shell_line(quote(c.command)))
        render(doc, out)
        chk = doc.get("check")
        if chk and chk.get("rows"):
            check.render(chk["rows"], shell_line(chk["line"]), out)
        elif chk:
            out.write("\ncheck: not run: %s\n" % printable(chk["why"]))


def say_notes(notes):
    """One line on standard error for each process not followed and
    each whose mappings were not read."""
    for key, what in (("not_followed", "not followed"),
                      ("maps_not_read", "mappings not read")):
        if notes.get(key):
            n = notes[key]
            msg("%s: %s: %s" % (
                what, " ".join(str(x) for x in n["pids"][:8]) +
                (" and %d more" % (len(n["pids"]) - 8)
                 if len(n["pids"]) > 8 else "") or "none left",
                n["reason"]))


def collect(c, perf, tmp):
    """Runs the program (or attaches to it) under perf and returns the
    report as a dict, the program's wait status, the stop signal that
    ended the survey (None) and the profile (--record; else None)."""
    notes = {}
    if c.command:
        rec, snaps, kernel, status, stop = run_program(c, perf, tmp)
    else:
        rec, snaps, kernel, status, stop, notes = attach(c, perf, tmp)
    dropped = 0
    if c.no_follow:
        # perf follows children whatever it is told (inherit is how
        # it sees new threads): their faults are left out here.
        root = c.pid or snaps.root
        dropped = rec.keep(lambda f: f[1] == root)
    keep = {} if getattr(c, "record", None) else None
    doc = analyse(rec, snaps, kernel, c.period, not c.no_follow, keep)
    doc["perf"]["in_children_not_followed"] = dropped
    if dropped and doc.get("kernel_minus_perf") is not None:
        # The kernel's count holds the children's faults too.
        doc["kernel_minus_perf"] -= dropped
    add_resident(doc, snaps, rec.mmaps, rec.madvises)
    add_kernel_side(doc, snaps, rec)
    if c.command:
        doc["command"] = c.command
    doc["verdict"], doc["reproduce"] = verdict(doc)
    add_check(doc, c)
    if c.command:
        doc["exit_status"] = exit_status(status)
    else:
        doc["attached_pid"] = c.pid
    doc.update(notes)
    doc["interrupted"] = bool(stop)
    doc["stopped_by"] = signal.Signals(stop).name if stop else None
    say_notes(notes)
    prof = None
    if keep is not None:
        r = fromsurvey.recording(keep["facts"], rec, doc, c.pid or snaps.root,
                                 c.command or None, c.period, PAGE)
        prof = record_profile(r, c)
    return doc, status, stop, prof


def record_profile(r, c):
    """The profile of recording r as --record writes it, in the bins of
    --bin-ms, or sized for mail (profile.build_sized, said where its
    bins are wider than the default)."""
    if c.bin_ms_given:
        return profile.build(r, c.bin_ms, c.keep_names)
    prof, text, first = profile.build_sized(r, c.keep_names)
    if prof["bin_ms"] != profile.BIN_MS:
        msg("the profile in %g ms bins took %d bytes: written in %g ms "
            "bins (%d bytes), under %d KiB for mail; --bin-ms=%g keeps "
            "%g ms" % (profile.BIN_MS, first, prof["bin_ms"], len(text),
                       profile.MAIL_BYTES // 1024, profile.BIN_MS,
                       profile.BIN_MS))
    return prof


def recheck(c, doc, perf, tmp):
    """--check: the reproduce line surveyed the same way, and the two
    side by side (pft_survey.check) into doc["check"].  Returns the stop
    signal that ended the check (None)."""
    args = doc.get("reproduce_args")
    if not args:
        doc["check"] = {"line": None, "why": "no pft line to check"}
        return None
    if doc.get("reproduce_checked") is False:
        doc["check"] = {"line": quote(args), "why": doc["reproduce_check"]}
        return None
    c2 = copy.copy(c)
    c2.command = [pft_of(c)] + args[1:]
    c2.pid = None
    c2.check = False
    # pft's own lines go to standard error, apart from the report.
    c2.json, c2.output, c2.record = True, None, None
    tmp2 = os.path.join(tmp, "check")
    os.mkdir(tmp2)
    msg("checking: %s" % quote(args))
    doc2, status, stopped, _ = collect(c2, perf, tmp2)
    doc["check"] = {
        "line": quote(args),
        "rows": check.compare(doc, doc2),
        "reproduced": {k: doc2.get(k) for k in (
            "verdict", "reproduce", "pattern", "exit_status", "source")},
    }
    if stopped:
        doc["check"]["why"] = "the check was stopped"
    return stopped


def survey(c):
    perf = check_perf()
    if c.command:
        check_command(c.command)
    if c.output:
        # Before the program runs: can the report be written?
        safefile.check_writable(c.output)
    if c.record:
        check_new_file(c.record)
    tempdir = tempfile.gettempdir()
    for d in lifetime.remove_stale_temp_dirs(tempdir):
        msg("removed %s, left by a survey that was killed" % d)
    tmp = lifetime.make_temp_dir(tempdir)
    try:
        # SIGTERM and SIGHUP end the survey as Ctrl-C does: report, clean
        # up (while the program runs, they are taken as they come).
        for sig in (signal.SIGTERM, signal.SIGHUP):
            if signal.getsignal(sig) != signal.SIG_IGN:
                signal.signal(sig, on_stop_signal)
        try:
            c.source = kinds.pick_source(perf, tmp, c.events, c.period)
        except RuntimeError as e:
            raise SurveyError(str(e))
        doc, status, stop, prof = collect(c, perf, tmp)
        if c.check and not stop:
            stop = recheck(c, doc, perf, tmp)
        if c.output:
            with safefile.replacing(c.output,
                                    errors="backslashreplace") as out:
                write_report(c, doc, out)
        else:
            # A name the kernel holds in bytes that are not UTF-8 is
            # written escaped, never a failure.
            if hasattr(sys.stdout, "reconfigure"):
                sys.stdout.reconfigure(errors="backslashreplace")
            write_report(c, doc, sys.stdout)
            sys.stdout.flush()
        if prof is not None:
            profile.write_new(c.record, prof)
        if stop:
            msg("stopped: the report shows what was seen until then")
            return 128 + stop
        rc = exit_status(status)
        if rc:
            msg("%s exited with status %d (the report above is of its run)"
                % (c.command[0], rc))
        return rc
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv):
    try:
        c = parse_args(argv)
        if c.profiles is not None:
            return profiles_main(c)
        return survey(c)
    except SurveyError as e:
        msg(str(e))
        return e.status
    except KeyboardInterrupt:
        msg("stopped")
        return 130
    except Stopped as e:
        msg("stopped")
        return 128 + e.signo
    except BrokenPipeError:
        quiet_stdout()
        return 141
    except OSError as e:
        msg(os_error(e))
        return 1
    except Exception as e:      # pylint: disable=broad-except
        msg("internal error (%s: %s), please report it" %
            (type(e).__name__, e))
        return 1
