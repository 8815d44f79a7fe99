# SPDX-License-Identifier: GPL-2.0-or-later
# pft_sweep.sweep - a sweep: pft's command lines, the points, running them
# with progress and signals, and writing what was measured.
#
# Copyright (C) 2026 The libfaultgen authors

import csv
import itertools
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from .common import (PROG, UsageError, check_output, msg, os_error,
                     quiet_stdout, read_text)
from .pft import json_records, pft_error, runs_once
from .plot import gnuplot_script, latency_cdf_script, latency_script, \
    make_plot
from .report import describe, print_table, sweep_table
from .runs import (POINT_COLUMNS, RUN_COLUMNS, point_rows, run_record,
                   run_row, run_rows, write_csv, write_json)
from pft_common.safefile import create_new, own_directory
from .stats import summarize
from .topology import Topology, default_counts, format_cpus, layout_rows


class Stopped(Exception):
    """SIGINT or SIGTERM: the exit status is 128 + the signal."""

    def __init__(self, signo):
        super().__init__(signo)
        self.signo = signo


def on_signal(signo, frame):
    raise Stopped(signo)


def defer_signals(c):
    """From now on SIGINT and SIGTERM are noted in c.late, not obeyed at
    once: what was measured gets written first.  (A handler, not
    SIG_IGN, so that gnuplot, run meanwhile, can still be stopped.)"""
    def note(signo, frame):
        c.late.append(signo)
    signal.signal(signal.SIGINT, note)
    signal.signal(signal.SIGTERM, note)


# The most points a sweep takes: each is a pft run or more, and a sweep
# of more would take days; its plan alone would take minutes and
# gigabytes.
MAX_POINTS = 10000


class RunsLog:
    """PREFIX-runs.csv written as the runs are measured, a row per run
    in the order measured, so that a sweep that dies or cannot write its
    files at the end keeps its runs; write_sweep replaces it with the
    rows in the order of the points."""

    def __init__(self, path):
        self.path = path
        self.ok = True
        # A new file: start_output removed the one --force replaces, and
        # a link put there since is not followed.
        self.f = create_new(path, newline="")
        self.w = csv.writer(self.f, lineterminator="\n")
        self.w.writerow(RUN_COLUMNS)
        self.f.flush()

    def add(self, rec):
        if not self.f:
            return
        try:
            self.w.writerow(run_row(rec))
            self.f.flush()
        except OSError as e:
            msg("warning: cannot write %s: %s: the runs go on, and are "
                "written at the end" % (self.path, e.strerror or e))
            self.ok = False
            self.close()

    def close(self):
        if self.f:
            try:
                self.f.close()
            except OSError:
                pass
            self.f = None


def scale_size(text, n):
    """SIZE times n, in SIZE's unit: "256M" x 4 = "1024M".  The number and
    the unit stay pft's to judge."""
    m = re.match(r"([0-9]+)(.*)\Z", text, re.S)
    if not m:
        return text
    return "%d%s" % (int(m.group(1)) * n, m.group(2))


def point_size(c, pattern, n):
    if pattern == "pretouch" and c.heap:
        return c.heap
    if c.size_per_worker:
        return scale_size(c.size_per_worker, n)
    return c.size


def warmup_runs(c, pattern):
    """Unmeasured runs at the start of a point's pft: the points of a
    pattern pft runs once (runs_once) are one-shot whatever the sweep's
    mode."""
    return c.warmup if runs_once(c, pattern) or \
        c.mode == "one-shot" else 0


def pft_command(c, pattern, n, size, cpus, check=False, options=()):
    """pft's argument vector for a point (options: its variant's, see
    variants).  A check runs one page: the later -m wins, the first has
    been parsed by pft all the same."""
    cmd = [c.pft_path, "--json", "-m", size] + (["-m", "1P"] if check
                                                  else [])
    if pattern == "processes":
        cmd += ["-n", str(n)]
    else:
        cmd += ["--pattern=" + pattern, "-t", str(n)]
    runs = (1 if c.interleave else c.repeat) + warmup_runs(c, pattern)
    if not runs_once(c, pattern) and c.mode != "one-shot" and \
            not warmup_runs(c, pattern):
        if check:
            cmd += ["--rounds=1", "--warmup=0"]
        elif c.mode == "duration":
            cmd += ["--duration=%g" % c.duration, "--warmup=%d" % c.warmup]
        else:
            cmd += ["--rounds=%d" % c.rounds, "--warmup=%d" % c.warmup]
    if runs > 1 and not check:
        cmd.append("--repeat=%d" % runs)
    if cpus:
        cmd += ["--cpus=" + cpus, "-a"]
    if c.latency:
        cmd.append("--latency=%d" % c.latency)
    if getattr(c, "lock_paths", False):
        cmd.append("--lock-paths")
    if getattr(c, "lock_waits", False):
        cmd.append("--lock-waits")
    cmd += list(options)
    if getattr(c, "share", False):
        cmd.append("--share")
    cmd += c.extra
    if pattern == "pretouch":
        cmd += c.pretouch_options
    return cmd


# The axes of counts, which pft takes within bounds: the check runs take
# their least and greatest values, not each (a run with 4096 writers
# starts 4096 threads: one check run per value made a sweep of 4,097
# values check for hours).
COUNT_AXES = ("interleave_pages", "writers")


def check_variants(c):
    """The variants pft checks before the sweep: every value of the other
    axes, the least and greatest of each count axis, in every
    combination."""
    bounds = {}
    for attr in COUNT_AXES:
        values = getattr(c, attr, None)
        if values:
            bounds[attr] = sorted({min(values), max(values)})
    return variants(c, bounds)


def check_pft(c):
    """One run of one page per pattern, with the sweep's sizes, CPU list
    and pft options: pft judges them all before the sweep starts.  Returns
    pft's first JSON record (what it ran on)."""
    first = None
    for pattern, v in itertools.product(c.patterns, check_variants(c)):
        cmd = pft_command(c, pattern, 1, point_size(c, pattern, 1),
                          c.cpu_list, check=True, options=v["options"])
        try:
            res = subprocess.run(cmd, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE,
                                 universal_newlines=True, errors="replace",
                                 timeout=120)
        except subprocess.TimeoutExpired:
            raise RuntimeError("pft did not finish a one-page check run in "
                               "120 s")
        except OSError as e:
            raise RuntimeError("cannot run pft ('%s'): %s" %
                               (cmd[0], e.strerror))
        if res.returncode == 2:
            raise UsageError("pft refused the options: %s" %
                             pft_error(res.stderr))
        if res.returncode != 0:
            raise RuntimeError("pft failed a one-page check run (exit %d): "
                               "%s" % (res.returncode,
                                       pft_error(res.stderr)))
        rec = next((r for r in json_records(res.stdout.splitlines())
                    if r.get("schema") == "pft-run/1"), None)
        if rec is None:
            raise RuntimeError("'%s' printed no pft-run/1 record: not this "
                               "project's pft?" % cmd[0])
        first = first or rec
    return first


def find_perf(c):
    path = shutil.which("perf")
    if not path:
        raise RuntimeError("--perf=%s: perf is not installed (Debian: "
                           "apt-get install linux-perf)" % c.perf)
    try:
        res = subprocess.run([path, "version"], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT,
                             universal_newlines=True, errors="replace",
                             timeout=60)
    except (OSError, subprocess.SubprocessError) as e:
        raise RuntimeError("--perf=%s: cannot run %s: %s" % (c.perf, path, e))
    if res.returncode != 0:
        raise RuntimeError("--perf=%s: '%s version' failed: %s" %
                           (c.perf, path, pft_error(res.stdout)))
    return path


def perf_command(c, point, control, ctl):
    """perf with events off until pft's "enable" (--control, -D -1)."""
    return [c.perf_path, c.perf, "-D", "-1", "--control", control, "-o",
            point["perf_file"]] + c.perf_options + ["--"] + \
        point["command"] + ["--perf-ctl=" + ctl]


# ---- the points ---------------------------------------------------------

# The axes of pft options beside the workers: (the sweep's attribute,
# pft's option, the words of a value in a point's label).  A point of
# each value, every combination when several are swept.  A value is a
# count or, for --backing, pft's word (anon, memfd, file:PATH, ...).
AXES = (
    ("interleave_pages", "--stripe-pages",
     lambda k: "slices" if k == 0 else "stripes of %d" % k),
    ("writers", "--writers",
     lambda m: "%d writer%s" % (m, "" if m == 1 else "s")),
    ("backing", "--backing", lambda b: b),
)


def variants(c, only=None):
    """The points of the axes swept, each a dict: key (added to the
    point's layout key), words (to its label), options (pft's), and the
    value of each axis (None when it is not swept).  One of none without
    an axis.  only: {axis: values} taken instead of the sweep's."""
    only = only or {}
    swept = [(attr, opt, words, only.get(attr, getattr(c, attr, None)))
             for attr, opt, words in AXES if getattr(c, attr, None)]
    out = []
    for values in itertools.product(*[s[3] for s in swept]):
        v = {"key": "", "words": "", "options": []}
        for attr, _, _ in AXES:
            v[attr] = None
        for (attr, opt, words, _), value in zip(swept, values):
            # The attribute's name: a key of 1.2's sweeps too.
            v["key"] += "+%s=%s" % (attr.replace("_", "-"), value)
            v["words"] += ", " + words(value)
            v["options"].append("%s=%s" % (opt, value))
            v[attr] = value
        out.append(v)
    return out


def axis_rows(c, rows):
    """Each row (a worker count or a CPU layout) once for each variant,
    side by side: its layout key and label name the variant."""
    out = []
    for r in rows:
        for v in variants(c):
            row = dict(r, options=v["options"])
            for attr, _, _ in AXES:
                row[attr] = v[attr]
            if v["key"]:
                row["layout"] = (r["layout"] or "%dw" % r["workers"]) + \
                    v["key"]
                row["label"] = (r["label"] or point_words(r)) + v["words"]
            out.append(row)
    return out


def plan(c, topo):
    """Fills c.rows (layouts or counts) and c.points, one per row and
    pattern: the pft command of each."""
    allowed = topo.allowed()
    if c.cpu_groups:
        c.rows = layout_rows(c, topo, allowed)
    else:
        limit = c.list_count if c.cpu_list is not None else len(allowed)
        counts = c.workers or default_counts(limit)
        if c.cpu_list is not None and max(counts) > limit:
            raise UsageError("--workers: %d workers, but only %d CPU(s) in "
                             "--cpu-list to pin them to" %
                             (max(counts), limit))
        c.rows = [{"layout": "", "label": "", "workers": n, "cpus": None}
                  for n in counts]
    c.counts = [r["workers"] for r in c.rows]
    c.rows = axis_rows(c, c.rows)
    check_points(len(c.rows), len(c.patterns))
    c.points = []
    for r in c.rows:
        for pattern in c.patterns:
            c.points.append(make_point(c, pattern, r))


def check_points(rows, patterns, what="", noun="worker counts or layouts"):
    """At most MAX_POINTS points, checked before they are made."""
    if rows * patterns > MAX_POINTS:
        raise UsageError("%s%d points (%d %s, %d pattern%s): a sweep takes "
                         "%d at most" % (what, rows * patterns, rows, noun,
                                         patterns,
                                         "s" if patterns > 1 else "",
                                         MAX_POINTS))


def make_point(c, pattern, row):
    n = row["workers"]
    cpus = format_cpus(row["cpus"]) if row["cpus"] else c.cpu_list
    size = point_size(c, pattern, n)
    p = {"pattern": pattern, "workers": n, "layout": row["layout"],
         "label": row["label"], "cpus": cpus or "", "size": size,
         "discard": warmup_runs(c, pattern),
         "options": row.get("options", []),
         "command": pft_command(c, pattern, n, size, cpus,
                                options=row.get("options", []))}
    for attr, _, _ in AXES:
        p[attr] = row.get(attr)
    if c.perf:
        name = "%s-%s.%s" % (pattern, re.sub(r"[:/]", "-", row["layout"]) or
                             "%dw" % n, "stat" if c.perf == "stat" else
                             "data")
        p["perf_file"] = os.path.join(c.prefix + "-perf", name)
    return p


def run_seconds(c):
    """A guess of one run's seconds before any was measured."""
    if c.mode == "duration":
        return c.duration * (1 + 0.2 * c.warmup) + 0.1
    return 0.5


def total_runs(c):
    if c.interleave:
        return sum(c.repeat * (1 + p["discard"]) for p in c.points)
    return sum(c.repeat + p["discard"] for p in c.points)


def fmt_time(s):
    s = int(round(max(s, 0)))
    if s >= 3600:
        return "%d:%02d:%02d" % (s // 3600, s % 3600 // 60, s % 60)
    return "%d:%02d" % (s // 60, s % 60)


def point_words(point):
    if point["label"]:
        return point["label"]
    n = point["workers"]
    return "%d worker%s" % (n, "" if n == 1 else "s")


class Progress:
    def __init__(self, c):
        self.c = c
        self.total = total_runs(c)
        self.done = 0
        self.start = time.monotonic()
        self.tty = sys.stderr.isatty()

    def left(self):
        spent = time.monotonic() - self.start
        per = spent / self.done if self.done else run_seconds(self.c)
        return per * (self.total - self.done)

    def show(self, index, point, run):
        """Before run `run` (1-based) of a point; warm-up runs are 0."""
        if self.c.quiet or run > self.c.repeat:
            return
        text = ("point %d of %d: %s, %s, %s; %s elapsed, ~%s left" %
                (index + 1, len(self.c.points), point["pattern"],
                 point_words(point), "run %d of %d" %
                 (run, self.c.repeat) if run else "warm-up",
                 fmt_time(time.monotonic() - self.start),
                 fmt_time(self.left())))
        if self.tty:
            sys.stderr.write("\r\033[K%s: %s" % (PROG, text))
            sys.stderr.flush()
        else:
            msg(text)

    def finish(self):
        if self.tty and not self.c.quiet:
            sys.stderr.write("\n")
        if not self.c.quiet:
            msg("%d runs in %s" % (self.done,
                                   fmt_time(time.monotonic() - self.start)))


# The child runs in a process group of its own, so that a signal to the
# sweep stops pft, and perf's workload with it, through one killpg.
if sys.version_info >= (3, 11):
    OWN_GROUP = {"process_group": 0}
else:
    OWN_GROUP = {"preexec_fn": os.setpgrp}


def start_child(c, point, errf):
    cmd, fds = point["command"], ()
    if c.perf:
        ctl_r, ctl_w = os.pipe()    # pft writes commands, perf reads
        ack_r, ack_w = os.pipe()    # perf acknowledges, pft reads
        fds = (ctl_r, ctl_w, ack_r, ack_w)
        cmd = perf_command(c, point, "fd:%d,%d" % (ctl_r, ack_w),
                           "%d,%d" % (ctl_w, ack_r))
    try:
        return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=errf,
                                universal_newlines=True, errors="replace",
                                pass_fds=fds, **OWN_GROUP)
    finally:
        for fd in fds:
            os.close(fd)


def stop_child(c):
    if c.child:
        try:
            os.killpg(c.child.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        c.child.wait()
        c.child.stdout.close()


def run_point(c, index, point, progress, done=0):
    """Runs one pft of a point, whose measured runs follow the `done`
    ones; fills point["runs"], point["status"] and point["stderr"]."""
    discard = point["discard"]
    if not done:
        point["runs"] = []
    progress.show(index, point, 0 if discard else done + 1)
    # stderr to a file: a pipe read only at the end could fill and block
    # a verbose pft.
    with tempfile.TemporaryFile("w+", errors="replace") as errf:
        proc = start_child(c, point, errf)
        c.child = proc
        for obj in json_records(proc.stdout):
            if obj.get("schema") != "pft-run/1":
                continue
            k = obj.get("run", 0)
            if isinstance(k, bool) or not isinstance(k, int):
                continue
            progress.done += 1
            if k == 1 and not point["runs"]:
                note_cpus(point, obj)
            if k > discard:
                point["runs"].append(run_record(point, obj, discard - done))
                if c.log:
                    c.log.add(point["runs"][-1])
            if not c.interleave or k <= discard:
                progress.show(index, point, 0 if k + 1 <= discard else
                              done + k + 1 - discard)
        proc.wait()
        proc.stdout.close()
        # Only now: a signal above must still find the child to stop.
        c.child = None
        errf.seek(0)
        err = errf.read().strip()
    note_lock_paths(c, err)
    if not point.get("status"):
        point["status"] = proc.returncode
        point["stderr"] = err.splitlines()[-3:] if err else []
    if proc.returncode != 0:
        if progress.tty and not c.quiet:
            sys.stderr.write("\n")
        msg("%s, %s: %s exited %d%s" %
            (point["pattern"], point_words(point),
             "perf" if c.perf else "pft", proc.returncode,
             (": " + point["stderr"][-1]) if point["stderr"] else ""))


# pft's notes where it may not read the tracepoints of --lock-paths and
# --lock-waits: (its words, the sweep's option, its columns, the flag).
LOCK_NOTES = (("lock paths not counted", "--lock-paths", "lock-path",
               "lock_paths_noted"),
              ("lock waits not timed", "--lock-waits", "lock-wait",
               "lock_waits_noted"))


def note_lock_paths(c, err):
    """Says once, in pft's words, why the lock-path (lock-wait) columns
    are empty."""
    for note, opt, columns, flag in LOCK_NOTES:
        if getattr(c, flag, False):
            continue
        for line in err.splitlines():
            if note in line:
                setattr(c, flag, True)
                msg("%s: the %s columns stay empty: %s" %
                    (opt, columns, line.split(note, 1)[1].lstrip(": ")))
                break


def note_cpus(point, obj):
    """The CPUs pft pinned the workers to, as pft reports them."""
    workers = obj.get("workers")
    cpus = sorted({w["cpu"] for w in workers if isinstance(w, dict) and
                   isinstance(w.get("cpu"), int) and w["cpu"] >= 0}
                  if isinstance(workers, list) else ())
    if cpus:
        point["cpus"] = format_cpus(cpus)


# ---- what a sweep ran on ------------------------------------------------

def cpu_model():
    text = read_text("/proc/cpuinfo") or ""
    for field in ("model name", "Model", "Hardware", "cpu model",
                  "Processor"):
        m = re.search(r"^%s\s*:\s*(.+)$" % re.escape(field), text, re.M)
        if m:
            return m.group(1).strip()
    return None


def host_info(topo, facts):
    u = os.uname()
    allowed = topo.allowed()
    return {
        "kernel": u.release, "kernel_version": u.version,
        "cmdline": read_text("/proc/cmdline"),
        "machine": u.machine, "hostname": u.nodename,
        "cpu_model": cpu_model(),
        "cpus_allowed": format_cpus(allowed),
        "topology": topo.summary(allowed),
        "sysfs": topo.root,
        "thp": facts.get("thp"),
        "pft": facts.get("pft"), "libfaultgen": facts.get("libfaultgen"),
        "loadavg_start": read_text("/proc/loadavg"),
    }


# ---- sweep --------------------------------------------------------------

def shell_quote(a):
    if re.fullmatch(r"[A-Za-z0-9_./=,:+%@-]+", a):
        return a
    return "'" + a.replace("'", "'\\''") + "'"


def print_plan(c):
    for p in c.points:
        cmd = perf_command(c, p, "fd:CTL,ACK", "CTL,ACK") if c.perf \
            else p["command"]
        print(" ".join(shell_quote(a) for a in cmd) +
              ("  # " + p["label"] if p["label"] else ""))
    procs = len(c.points) * (c.repeat if c.interleave else 1)
    msg("%d point(s), %d runs in %d pft process(es), about %s" %
        (len(c.points), total_runs(c), procs,
         fmt_time(total_runs(c) * run_seconds(c))))


SWEEP_FILES = (".csv", "-runs.csv", ".json", ".gp", ".png", ".svg")


def start_output(c):
    """Just before the first run: the files of an earlier sweep that
    --force replaces removed (-perf/ is kept: perf replaces its files),
    the perf directory made, the runs file started.  OSError when
    any cannot be."""
    for path in c.replaced:
        if not os.path.isdir(path):
            os.unlink(path)
    if c.perf:
        own_directory(c.prefix + "-perf")
    c.log = RunsLog(c.prefix + "-runs.csv")


def prepare(c, topo):
    """Everything before the first run (pft found by the command line):
    pft's options checked,
    perf found, the points planned.  Returns pft's first record."""
    c.prefix = c.output or time.strftime("pft-sweep-%Y%m%d-%H%M%S")
    c.replaced = check_output(c.prefix, SWEEP_FILES + (
        ("-perf",) if c.perf else ()), c.force)
    c.perf_path = find_perf(c) if c.perf else None
    facts = check_pft(c)
    c.list_count = facts.get("cpus", {}).get("count")
    plan(c, topo)
    return facts


def run_points(c, progress):
    """Runs every point; returns the exit status."""
    status = 0
    try:
        if not c.interleave:
            for i, p in enumerate(c.points):
                run_point(c, i, p, progress)
        for done in range(c.repeat if c.interleave else 0):
            # A point that failed once is not run again.
            for i, p in enumerate(c.points):
                if not p.get("status"):
                    run_point(c, i, p, progress, done)
        status = int(any(p.get("status") for p in c.points))
    except (KeyboardInterrupt, Stopped) as e:
        # Another signal meanwhile must not cut the writing short.
        defer_signals(c)
        # pft cancels its run on SIGTERM and releases its memory.
        stop_child(c)
        c.stopped = signal.Signals(e.signo if isinstance(e, Stopped) else
                                   signal.SIGINT).name
        if progress.tty and not c.quiet:
            sys.stderr.write("\n")
        msg("stopped: writing the points measured so far")
        status = 128 + (e.signo if isinstance(e, Stopped) else
                        signal.SIGINT)
    return status


def write_sweep(c):
    prefix = c.prefix
    files = [prefix + ".csv", prefix + "-runs.csv", prefix + ".json"]
    # The runs first: then the rest.
    write_csv(prefix + "-runs.csv", RUN_COLUMNS, list(run_rows(c)))
    c.runs_written = True
    write_csv(prefix + ".csv", POINT_COLUMNS, list(point_rows(c)))
    write_json(c, prefix + ".json")
    if not c.no_plot:
        files += make_plot(c, prefix, lambda pre, term:
                           gnuplot_script(c, pre, term))
        if c.latency:
            files += make_plot(c, prefix + "-latency", lambda pre, term:
                               latency_script(c, pre, term))
            files += make_plot(c, prefix + "-latency-cdf", lambda pre, term:
                               latency_cdf_script(c, pre, term))
    return files


def sweep(c):
    topo = Topology()
    try:
        facts = prepare(c, topo)
    except RuntimeError as e:
        msg(str(e))
        return 1
    if c.dry_run:
        print_plan(c)
        return 0
    c.started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    c.host = host_info(topo, facts)
    c.child = c.log = c.stopped = None
    c.runs_written = False
    c.late = []
    try:
        start_output(c)
    except OSError as e:
        msg("cannot write the output: %s" % os_error(e))
        return 1
    progress = Progress(c)
    signal.signal(signal.SIGTERM, on_signal)
    if not c.quiet:
        msg("%d points (%s; %s): %s" %
            (len(c.points), ", ".join(c.patterns),
             "; ".join(r["label"] for r in c.rows) if c.rows[0]["layout"]
             else "workers " + ",".join(str(n) for n in c.counts),
             describe(c)))
    try:
        status = run_points(c, progress)
    finally:
        defer_signals(c)
    c.log.close()
    progress.finish()
    c.host["loadavg_end"] = read_text("/proc/loadavg")
    summarize(c)
    # The table first: a file that cannot be written loses nothing.  A
    # reader gone (pft-sweep | head) does not keep the files unwritten.
    broken = False
    try:
        print("%s: %s" % (PROG, describe(c)))
        header, rows = sweep_table(c)
        print_table(rows, header, c.format == "markdown")
        sys.stdout.flush()
    except BrokenPipeError:
        quiet_stdout()
        broken = True
    try:
        files = write_sweep(c)
    except OSError as e:
        msg("cannot write the results: %s" % os_error(e))
        if c.runs_written or c.log.ok:
            msg("the runs measured are in %s-runs.csv" % c.prefix)
        return 1
    if not c.quiet:
        msg("wrote " + ", ".join(files))
    if c.late and status < 128:
        return 128 + c.late[0]
    return status or (128 + signal.SIGPIPE if broken else 0)
