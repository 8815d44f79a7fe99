#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# survey-overhead.sh - a benchmark, not a test: how much pft-survey slows
# the program it surveys.  The same pft run (shared VMA, 2 threads, one
# pass over SIZE) alone and under pft-survey, recording every fault and
# one in 16 and one in 256, RUNS times each, interleaved (alone, full,
# -c 16, -c 256, alone, ...) so that a drift of the machine falls on
# every mode alike.  Per mode: the median of pft's own faults per wall
# second (its "faults_per_wall_s", the faulting phase only) and per CPU
# second of its workers ("faults_per_cpu_s": less sensitive to other
# programs on a shared machine), their ratios to the run alone, and the
# median wall time of the whole survey (perf record, the snapshots and
# the analysis of perf's data).
#
#   PFT=pft/pft tests/bench/survey-overhead.sh
#
# Environment: PFT (default pft/pft of this tree), SURVEY (default
# pft/pft-survey next to it), SIZE (default 256M), WORKERS (default 2),
# RUNS (default 5).  Prints a Markdown table.
#
# Copyright (C) 2026 The libfaultgen authors
set -eu
PFT=${PFT:-pft/pft}
SURVEY=${SURVEY:-$(dirname "$PFT")/pft-survey}
SIZE=${SIZE:-256M}
WORKERS=${WORKERS:-2}
RUNS=${RUNS:-5}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/survey-overhead.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

for r in $(seq "$RUNS"); do
	for mode in alone full c16 c256; do
		case $mode in
		alone) set -- ;;
		full) set -- "$SURVEY" -o "$tmp/report" -- ;;
		c16) set -- "$SURVEY" -c 16 -o "$tmp/report" -- ;;
		c256) set -- "$SURVEY" -c 256 -o "$tmp/report" -- ;;
		esac
		t0=$(date +%s.%N)
		"$@" "$PFT" --json -t "$WORKERS" -m "$SIZE" >"$tmp/out" 2>"$tmp/err" || {
			echo "survey-overhead: $mode run $r failed: $(head -n 1 "$tmp/err")" >&2
			exit 1
		}
		t1=$(date +%s.%N)
		rate=$(python3 -c 'import json, sys
for line in open(sys.argv[1]):
    line = line.strip()
    if line.startswith("{"):
        r = json.loads(line)["result"]
        print(r["faults_per_wall_s"], r["faults_per_cpu_s"])' "$tmp/out")
		echo "$mode $rate $t0 $t1" >>"$tmp/all"
	done
done

python3 - "$tmp/all" "$SIZE" "$WORKERS" "$RUNS" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    mode, rate, cpu, t0, t1 = line.split()
    rows.setdefault(mode, []).append((float(rate), float(t1) - float(t0),
                                      float(cpu)))
names = {"alone": "pft alone", "full": "pft-survey (every fault)",
         "c16": "pft-survey -c 16", "c256": "pft-survey -c 256"}
base = statistics.median(r for r, _, _ in rows["alone"])
print("pft --json -t %s -m %s, %s runs per mode, interleaved\n" %
      (sys.argv[3], sys.argv[2], sys.argv[4]))
print("runs (mode: pft faults/wall s, faults/CPU s, command wall s):")
for m in ("alone", "full", "c16", "c256"):
    print("    %s: %s" % (m, ", ".join("%.0f %.0f %.2f" % (r, c, w)
                                      for r, w, c in rows[m])))
print()
cbase = statistics.median(c for _, _, c in rows["alone"])
print("| mode | pft faults/wall s (median) | min-max | vs alone | "
      "pft faults/CPU s (median) | vs alone | whole command, wall s "
      "(median) |")
print("|---|---:|---:|---:|---:|---:|---:|")
for m in ("alone", "full", "c16", "c256"):
    rates = [r for r, _, _ in rows[m]]
    cpus = [c for _, _, c in rows[m]]
    med = statistics.median(rates)
    cmed = statistics.median(cpus)
    print("| %s | %.0f | %.0f-%.0f | %.2fx | %.0f | %.2fx | %.2f |" % (
        names[m], med, min(rates), max(rates), med / base, cmed,
        cmed / cbase, statistics.median(w for _, w, _ in rows[m])))
PY
