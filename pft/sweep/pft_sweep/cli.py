# SPDX-License-Identifier: GPL-2.0-or-later
# pft_sweep.cli - the command line: options, their checks, and main().
#
# Copyright (C) 2026 The libfaultgen authors

import argparse
import re
import shlex
import signal
import sys

from pft_common.pft import print_version

from .common import (PROG, UsageError, msg, os_error, quiet_stdout,
                     usage_error)
from .compare import compare
from .pft import DEFAULT_PATTERNS, locate_pft, pattern_table, sweep_patterns
from .runs import LATENCY_METRICS, METRICS
from .sweep import MAX_POINTS, Stopped, check_points, sweep
from .topology import GROUPS, GROUP_NAMES


FORMATS = ("plain", "email", "markdown", "csv", "json")
# pft options the sweep sets itself: given after "--" they would clash.
RESERVED = re.compile(
    r"^(-[tnmMhVTP]|--(threads|processes|size|json|repeat|duration|"
    r"rounds|warmup|pattern|per-worker|help|version|title|pause)(=|$))")
RESERVED_PINNED = re.compile(r"^--(cpus|cpuset)(=|$)")
RESERVED_PERF = re.compile(r"^--perf-ctl(=|$)")
# The options of the shared VMA's axes (sweep.AXES), the sweep's own
# when it sweeps them.
RESERVED_AXES = {"interleave_pages":
                 re.compile(r"^--(stripe|interleave)-pages(=|$)"),
                 "writers": re.compile(r"^--writers(=|$)"),
                 "backing": re.compile(r"^--backing(=|$)"),
                 "share": re.compile(r"^--share$")}

USAGE = """\
Usage: pft-sweep [OPTION]... [-- PFT-OPTION...]
       pft-sweep --compare [OPTION]... BASE NEW [NEW...]
Run pft over a list of worker counts or CPU layouts for each pattern,
several runs per point, and report the median faults per second of each
point: a table on stdout, CSV and JSON files, and a plot when gnuplot is
installed.  Compare sweeps, with a mark where a difference is significant.

Sweep:
  -w, --workers=LIST     worker counts, e.g. 1,2,4,8 or 1-4 (default 1, 2,
                         4, ... below the allowed CPUs, and their number)
  -p, --patterns=LIST    patterns, comma separated: those pft
                         --list-patterns prints, and processes (pft -n)
                         (default: shared-vma, per-thread-vma, processes)
  -m, --size=SIZE        pft -m for every point, as pft reads it (default
                         1G)
      --size-per-worker=SIZE
                         pft -m is SIZE times the workers of the point
      --heap=SIZE        pft -m of the pretouch points (the JVM heap)
      --pretouch-options=OPTIONS
                         pft options for the pretouch points only, e.g.
                         --pretouch-options='--gc=g1 --jdk=25'
  -r, --repeat=N         measured runs per point (default 5)
      --duration=SECONDS each run faults, zaps and faults again for
                         SECONDS (pft --duration; default 1)
      --rounds=N         ... or N rounds per worker (pft --rounds)
      --one-shot         each run faults the region once (pft 0.12x)
      --warmup=N         duration and rounds: N unmeasured rounds first in
                         every run; one-shot and pretouch: N unmeasured
                         runs first in the same pft process (default 1)
      --no-alternate     each point's runs one after the other in one pft
                         (the default with --perf) instead of every point
                         once, then every point again, ..., each run a pft
                         of its own; --compare marks no such sweep
      --metric=M         the figure of a run: legacy (fault/wsec, the
                         default), round (median rate of its rounds),
                         faults (faults the kernel counted per wall s),
                         p50 or p99 (latency percentiles, with
                         --latency), fallbacks (faults under mmap_lock
                         per user fault, with --lock-paths; lower is
                         better), wait-p99 (the p99 of the workers'
                         mmap_lock read waits in ns, with --lock-waits;
                         lower is better); with --compare, the figure
                         compared (default: the sweeps' own)
      --lock-paths       pft --lock-paths: each point's user faults,
                         mmap_lock reads and fallbacks (medians) in the
                         table, CSV and JSON; empty where pft may not
                         read the tracepoints (the sweep says why once)
      --lock-waits       pft --lock-waits: the p99 of each run's mmap_lock
                         read waits in the CSVs and JSON (lw_read_p99_ns)
      --latency[=N]      pft --latency=N (default 1, every fault timed):
                         p50 and p99 columns in the table, and in the
                         CSV and JSON; with gnuplot PREFIX-latency (p50
                         and p99) and PREFIX-latency-cdf (each point's
                         distribution) plots
      --cpu-groups=KIND[=NAME][:GxW[,GxW]...]
                         points by CPU layout, from sysfs topology: KIND
                         is l3, l2, core or node; GxW is G groups with W
                         workers each, G and W numbers or 'all', e.g.
                         l3=CCD:1x7,7x1,allx1; NAME names the groups in
                         the labels; repeatable.  Without :GxW, the point
                         with N workers (--workers) has one in each of
                         the first N groups
      --cpu-list=LIST    pft --cpus=LIST -a for every point: the point
                         with N workers runs on the first N CPUs of LIST
      --stripe-pages=LIST
                         shared VMA layouts side by side, a point each:
                         pft --stripe-pages=K for each K of LIST, 0
                         the slices, e.g. 0,1,8,512 (with --one-shot:
                         pft stripes the pages in one pass)
      --writers=LIST     mapping writers side by side, a point each: pft
                         --writers=M for each M of LIST, e.g. 0,1,2
                         (threads); with --stripe-pages, every pair.
                         Either makes shared-vma the default pattern
      --backing=LIST     backings side by side, a point each: pft
                         --backing=B for each B of LIST, e.g.
                         anon,memfd,file:/mnt/pmem (a PATH holds no
                         comma); with another axis, every combination.
                         Makes shared-vma and per-thread-vma the
                         default patterns
      --share            pft --share for every point (MAP_SHARED)
      --perf=stat|record perf stat or perf record around the measured runs
                         of each point (pft --perf-ctl): a file per point
                         in PREFIX-perf/; a point's runs in one pft
      --perf-options=OPTIONS
                         more options for perf, e.g. '-e page-faults'
      --pft=PATH         the pft to run (default: $PFT, else the pft
                         next to this script, else pft in PATH)
  PFT-OPTION...          more options for every pft run, e.g. -- -c 4 -a

Output:
  -o, --output=PREFIX    write PREFIX.csv (points), PREFIX-runs.csv (each
                         run as it is measured), PREFIX.json, and with
                         gnuplot PREFIX.gp, PREFIX.png and PREFIX.svg
                         (default pft-sweep-DATE-TIME in the current
                         directory); checked before the first run
      --force            replace the files of an earlier sweep (or
                         comparison) with this PREFIX, refused without it
      --no-plot          no plot even with gnuplot installed
      --gnuplot=PATH     the gnuplot to run (default: gnuplot in PATH)
      --dry-run          check the options with pft (one page), print the
                         pft command lines and stop
  -q, --quiet            no progress on stderr
      --format=F         plain (default), markdown; with --compare also
                         email, csv, json
      --markdown         --format=markdown

Comparison:
      --compare BASE NEW [NEW...]
                         compare sweeps (each PREFIX, PREFIX.csv,
                         PREFIX-runs.csv or PREFIX.json): a column per
                         sweep, the gain of the last against BASE, and
                         (I) or (R) where a new median is significantly
                         higher or lower than BASE's at 95% (Welch's
                         t-test on the logarithms of the runs' rates)
      --names=LIST       the columns' titles, comma separated (default
                         base, new or base, new 1, new 2, ...)
      --gains=each       a gain column for every new sweep
      --interval         the 95% interval of each gain
  -o, --output=PREFIX    also write PREFIX.csv, PREFIX.json and the plot

  -h, --help             print this help and exit
  -V, --version          print the version and exit

Exit status: 0 success, 1 a run failed, 2 bad usage, 128+N stopped by
signal N (SIGINT, SIGTERM; what was measured is written).
See pft-sweep(1).
"""


# ---- the command line ---------------------------------------------------

class ArgParser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def type_count(lo, hi):
    def conv(text):
        if not re.fullmatch(r"[0-9]+", text):
            raise argparse.ArgumentTypeError("'%s' is not a number" % text)
        n = int(text)
        if n < lo or n > hi:
            raise argparse.ArgumentTypeError("%d is out of range %d..%d" %
                                             (n, lo, hi))
        return n
    return conv


def type_seconds(text):
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("'%s' is not a number of seconds"
                                         % text)
    if not 0 < v <= 1e6:
        raise argparse.ArgumentTypeError("%s is out of range (0, 1e6]" %
                                         text)
    return v


def type_workers(text):
    """Worker counts (not CPUs): "1,2,4", "1-4"; at most MAX_POINTS of
    them, counted before the ranges are expanded."""
    ranges, total = [], 0
    for item in text.split(","):
        m = re.fullmatch(r"([0-9]+)(?:-([0-9]+))?", item)
        if not m:
            raise argparse.ArgumentTypeError("'%s' is not a list of counts"
                                             % text)
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) else lo
        if lo < 1 or hi < lo:
            raise argparse.ArgumentTypeError("bad count '%s'" % item)
        ranges.append((lo, hi))
        total += hi - lo + 1
        if total > MAX_POINTS:
            raise argparse.ArgumentTypeError(
                "'%s' asks for %d worker counts or more: a sweep takes %d "
                "points at most" % (text, total, MAX_POINTS))
    counts, seen = [], set()
    for lo, hi in ranges:
        for n in range(lo, hi + 1):
            if n not in seen:
                seen.add(n)
                counts.append(n)
    return counts


def _unique_list(text, item_of):
    """The comma-separated items of text, each once, in order; item_of
    turns one item into its value (or raises ArgumentTypeError); at most
    MAX_POINTS of them."""
    values, seen = [], set()
    for item in text.split(","):
        value = item_of(item)
        if value not in seen:
            seen.add(value)
            values.append(value)
    if len(values) > MAX_POINTS:
        raise argparse.ArgumentTypeError("'%s': more than %d values" %
                                         (text, MAX_POINTS))
    return values


def type_axis(text):
    """The values of an axis of pft options: counts from 0, comma
    separated, each once; at most MAX_POINTS of them."""
    def count(item):
        if not re.fullmatch(r"[0-9]+", item):
            raise argparse.ArgumentTypeError("'%s' is not a list of counts "
                                             "from 0" % text)
        n = int(item)
        if n >= 1 << 31:
            raise argparse.ArgumentTypeError("%d is out of range" % n)
        return n
    return _unique_list(text, count)


def type_backings(text):
    """The backings to sweep: pft's words, comma separated, each once;
    pft judges each (its check run).  A file:PATH's PATH cannot hold a
    comma."""
    def backing(item):
        if not item or item == "file:":
            raise argparse.ArgumentTypeError(
                "'%s': an empty backing (a file:PATH holds no comma)" % text)
        return item
    return _unique_list(text, backing)


def type_patterns(text):
    """Checked against pft's list once the pft to run is known."""
    names = []
    for name in text.split(","):
        if name not in names:
            names.append(name)
    return names


def type_groups(text):
    """KIND[=NAME][:GxW,...]: the groups and the layouts asked in them."""
    m = re.fullmatch(r"([a-z0-9]+)(?:=([^:]*))?(?::(.*))?", text, re.S)
    if not m or m.group(1) not in GROUPS:
        raise argparse.ArgumentTypeError(
            "'%s' is not KIND[=NAME][:GxW,...] with KIND one of %s" %
            (text, ", ".join(GROUPS)))
    kind, name, specs = m.groups()
    names = GROUP_NAMES[kind]
    if name is not None:
        if not name.strip():
            raise argparse.ArgumentTypeError("an empty group name")
        one, _, many = name.partition("/")
        names = (one, many or one + "s")
    layouts = None
    if specs is not None:
        layouts = []
        for item in specs.split(","):
            s = re.fullmatch(r"([0-9]+|all)x([0-9]+|all)", item)
            if not s or any(x != "all" and int(x) < 1 for x in s.groups()):
                raise argparse.ArgumentTypeError(
                    "'%s' is not GxW (G groups, W workers each: numbers "
                    "from 1, or all)" % item)
            layouts.append(tuple(x if x == "all" else int(x)
                                 for x in s.groups()))
    return {"kind": kind, "names": names, "specs": layouts, "text": text}


def type_words(text):
    try:
        return shlex.split(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError("'%s': %s" % (text, e))


def type_names(text):
    return text.split(",")


def type_prefix(text):
    if not text:
        raise argparse.ArgumentTypeError("an empty prefix")
    return text


def build_parser():
    ap = ArgParser(prog=PROG, add_help=False)
    a = ap.add_argument
    a("-h", "--help", action="store_true")
    a("-V", "--version", action="store_true")
    a("-w", "--workers", type=type_workers)
    a("-p", "--patterns", type=type_patterns)
    size = ap.add_mutually_exclusive_group()
    size.add_argument("-m", "--size")
    size.add_argument("--size-per-worker")
    a("--heap")
    a("--pretouch-options", type=type_words, default=[])
    a("-r", "--repeat", type=type_count(1, 100000), default=5)
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--duration", type=type_seconds)
    mode.add_argument("--rounds", type=type_count(1, 1 << 31))
    mode.add_argument("--one-shot", action="store_true")
    a("--warmup", type=type_count(0, 100000), default=1)
    # --interleave, --no-interleave: their names until 1.3 (interleave is
    # a NUMA policy's word).
    a("--alternate", "--interleave", dest="interleave",
      action="store_const", const=True)
    a("--no-alternate", "--no-interleave", dest="interleave",
      action="store_const", const=False)
    a("--metric", choices=tuple(METRICS))
    a("--latency", nargs="?", const=1, type=type_count(1, 1 << 20))
    a("--lock-paths", action="store_true")
    a("--lock-waits", action="store_true")
    a("--cpu-groups", type=type_groups, action="append")
    a("--cpu-list")
    a("--stripe-pages", "--interleave-pages", dest="interleave_pages",
      type=type_axis)
    a("--writers", type=type_axis)
    a("--backing", type=type_backings)
    a("--share", action="store_true")
    a("--perf", choices=("stat", "record"))
    a("--perf-options", type=type_words, default=[])
    a("--pft")
    a("-o", "--output", type=type_prefix)
    a("--force", action="store_true")
    a("--no-plot", action="store_true")
    a("--gnuplot")
    a("--dry-run", action="store_true")
    a("-q", "--quiet", action="store_true")
    a("--format", choices=FORMATS)
    a("--markdown", action="store_true")
    a("--compare", action="store_true")
    a("--names", type=type_names)
    a("--gains", choices=("last", "each"))
    a("--interval", action="store_true")
    a("files", nargs="*")
    return ap


def parse_args(argv):
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    c = build_parser().parse_intermixed_args(argv)
    if c.help:
        sys.stdout.write(USAGE)
        sys.exit(0)
    if c.version:
        print_version(c, PROG)
        sys.exit(0)
    c.extra = extra
    if not c.compare:
        c.pft_path = locate_pft(c)
        c.pattern_table = pattern_table(c.pft_path)
        check_patterns(c, sweep_patterns(list(c.pattern_table)))
    check_format(c)
    if c.compare:
        check_compare_args(c)
    else:
        check_sweep_args(c)
        check_axes(c)
    return c


def check_patterns(c, known):
    """The patterns asked (-p, or the default ones) against those the
    sweep takes with the pft it runs."""
    if c.patterns is None:
        # The axes of the shared VMA: its pattern alone by default.
        axes = c.interleave_pages or c.writers
        c.patterns = [p for p in (("shared-vma",) if axes else
                                  ("shared-vma", "per-thread-vma")
                                  if c.backing else DEFAULT_PATTERNS)
                      if p in known]
        return
    for name in c.patterns:
        if name not in known:
            raise UsageError("argument -p/--patterns: '%s' is not one of %s"
                             % (name, ", ".join(known)))


def check_format(c):
    if c.markdown:
        if c.format not in (None, "markdown"):
            raise UsageError("--markdown and --format=%s exclude each other"
                             % c.format)
        c.format = "markdown"
    c.format = c.format or "plain"


def check_compare_args(c):
    if len(c.files) < 2:
        raise UsageError("--compare needs two sweeps or more: BASE NEW "
                         "[NEW...]")
    if c.names and len(c.names) != len(c.files):
        raise UsageError("--names: %d names for %d sweeps" %
                         (len(c.names), len(c.files)))
    c.gains = c.gains or "last"
    if c.latency:
        raise UsageError("--latency works with a sweep only, not --compare")
    for opt, val in (("--lock-paths", c.lock_paths),
                     ("--lock-waits", c.lock_waits),
                     ("--stripe-pages", c.interleave_pages),
                     ("--writers", c.writers), ("--backing", c.backing),
                     ("--share", c.share)):
        if val:
            raise UsageError("%s works with a sweep only, not --compare" %
                             opt)


def check_sweep_args(c):
    if c.files:
        raise UsageError("unexpected argument '%s' (pft options go after "
                         "'--')" % c.files[0])
    for opt, val in (("--names", c.names), ("--gains", c.gains),
                     ("--interval", c.interval)):
        if val:
            raise UsageError("%s works with --compare only" % opt)
    if c.format not in ("plain", "markdown"):
        raise UsageError("--format=%s works with --compare only" % c.format)
    c.mode = "rounds" if c.rounds else "one-shot" if c.one_shot else \
        "duration"
    c.duration = c.duration or 1.0
    if c.size is None and c.size_per_worker is None:
        c.size = "1G"
    c.metric = c.metric or "legacy"
    if c.metric in LATENCY_METRICS and not c.latency:
        raise UsageError("--metric=%s needs --latency" % c.metric)
    if c.metric == "fallbacks" and not c.lock_paths:
        raise UsageError("--metric=fallbacks needs --lock-paths")
    if c.metric == "wait-p99" and not c.lock_waits:
        raise UsageError("--metric=wait-p99 needs --lock-waits")
    if c.metric == "round" and c.mode == "one-shot":
        raise UsageError("--metric=round needs --duration or --rounds")
    if c.metric == "round" and "pretouch" in c.patterns:
        raise UsageError("--metric=round: pretouch runs once, it has no "
                         "rounds")
    if (c.heap or c.pretouch_options) and "pretouch" not in c.patterns:
        raise UsageError("--heap and --pretouch-options need the pretouch "
                         "pattern (-p ...,pretouch)")
    if c.perf_options and not c.perf:
        raise UsageError("--perf-options needs --perf")
    if c.perf and c.interleave:
        raise UsageError("--perf and --alternate exclude each other (perf "
                         "writes one file per point)")
    if c.interleave is None:
        c.interleave = not c.perf
    if c.workers:
        check_points(len(c.workers), len(c.patterns), "--workers: ",
                     "worker counts")
    check_cpu_args(c)
    check_reserved(c)


def check_cpu_args(c):
    if c.cpu_groups and c.cpu_list is not None:
        raise UsageError("--cpu-groups and --cpu-list exclude each other")
    groups = c.cpu_groups or []
    legacy = [g for g in groups if g["specs"] is None]
    if legacy and len(groups) > 1:
        raise UsageError("--cpu-groups=%s (one worker per group) cannot be "
                         "combined with another --cpu-groups" %
                         legacy[0]["text"])
    if groups and not legacy and c.workers:
        raise UsageError("--workers and --cpu-groups=%s exclude each other "
                         "(the layouts give the workers)" % groups[0]["text"])


def check_axes(c):
    """The shared VMA's axes: what pft runs them with, and their points
    bounded before the plan is made."""
    if c.interleave_pages and any(c.interleave_pages) and \
            c.mode != "one-shot":
        raise UsageError("--stripe-pages=%s: pft stripes the pages in "
                         "one pass; add --one-shot" %
                         ",".join(str(k) for k in c.interleave_pages))
    variants = len(c.interleave_pages or [0]) * len(c.writers or [0]) * \
        len(c.backing or [0])
    if c.workers:
        check_points(len(c.workers) * variants, len(c.patterns),
                     "--workers: ", "worker counts and layouts")


def check_reserved(c):
    pinned = c.cpu_groups or c.cpu_list is not None
    for words, where in ((c.extra, "after '--'"),
                         (c.pretouch_options, "in --pretouch-options")):
        for a in words:
            if RESERVED.match(a) or (pinned and RESERVED_PINNED.match(a)) \
                    or (c.perf and RESERVED_PERF.match(a)) or \
                    any(getattr(c, k) and r.match(a)
                        for k, r in RESERVED_AXES.items()):
                raise UsageError("'%s' %s: pft-sweep sets it itself" %
                                 (a, where))


def main(argv):
    try:
        c = parse_args(argv)
        if c.compare:
            return compare(c)
        return sweep(c)
    except UsageError as e:
        usage_error(str(e))
    except BrokenPipeError:
        quiet_stdout()
        return 141
    except Stopped as e:
        # SIGTERM just before the first run.
        msg("stopped")
        return 128 + e.signo
    except KeyboardInterrupt:
        # Before or after the points, or in --compare: nothing measured
        # to write.
        msg("stopped")
        return 128 + signal.SIGINT
    except OSError as e:
        msg(os_error(e))
        return 1
    except (RuntimeError, MemoryError) as e:
        msg(str(e) or type(e).__name__)
        return 1
    except Exception as e:      # pylint: disable=broad-except
        # A bug: one line, not a traceback; the type says where to look.
        msg("internal error (%s: %s), please report it" %
            (type(e).__name__, e))
        return 1
