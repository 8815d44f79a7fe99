#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# sweep-trust.sh - a benchmark, not a test: how far the marks of
# pft-sweep --compare can be trusted on this machine, and how long a
# seed-style table takes.
#
#   PFT=pft/pft tests/bench/sweep-trust.sh
#
# Parts (PARTS, default "aa known table"):
#   aa     PAIRS pairs of sweeps of the same build, each pair back to back
#          (shared-vma, per-thread-vma, processes and pretouch at 1 and 2
#          workers: 8 cells a pair, 40 with the default 5 pairs), each
#          pair compared: the cells marked (I) or (R).  Every mark is a
#          false positive; at 95% about 5% of the cells are expected, and
#          the target is the upper end of the binomial 95% range for that
#          many cells.
#   known  Differences whose direction is known, each a pair of sweeps
#          back to back, compared both ways: --thp=never against
#          --thp=always (huge pages fault 512 pages at once: more pages
#          per second, (I) expected on every cell; (R) the other way) and
#          --touch=write against --touch=populate (MADV_POPULATE_WRITE
#          faults in the kernel, without a user-space fault per page:
#          (I) expected), whose target is every cell marked, in the right
#          direction; and, reported without a target, --cachelines=1
#          against --cachelines=64 (the whole page written instead of one
#          cacheline: fewer pages per second, (R) expected), a difference
#          that can be smaller than the noise where a fault costs much
#          more than writing a page.
#   table  The time of a seed-style table: 4 CPU layouts (one core, every
#          core, one node with one worker, the whole node), 3 patterns,
#          5 runs each, at TABLE_SIZE and pft-sweep's default duration;
#          the dry run's estimate beside it.
#
# Environment:
#   PFT         the pft under test (default: pft/pft of this build tree)
#   SWEEP       the pft-sweep to run (default: pft/pft-sweep next to it)
#   SIZE        -m of the aa and known sweeps (default 64M)
#   DURATION    their --duration (default 0.5)
#   RUNS        runs per point (default 5)
#   WORKERS     worker counts of the aa and known sweeps (default 1,2)
#   PAIRS       A/A pairs (default 5)
#   TABLE_SIZE  -m of the table (default 256M)
#   PARTS       which parts, in order (default "aa known table")
#   OUT         keep the sweeps' files in this directory (default: a
#               temporary one, removed at the end)
#   SWEEP_OPTIONS  more pft-sweep options for every sweep, e.g.
#               --no-interleave
#   AA_SETS     A/A with several sets of pft-sweep options, separated by
#               ';', their pairs taking turns, e.g. "--no-interleave; ": a
#               pair with, a pair without, and so on (default: one set,
#               none but SWEEP_OPTIONS)
#   QUICK=1     tiny sizes and short runs, 1 pair, the known differences
#               of shared-vma alone: checks that the script runs,
#               measures nothing
#
# Prints the load average before and after: on a shared machine the A/A
# figure measures the machine as much as the test.  Exit status 0 when
# every target is met, 3 when one is missed, 1 when it cannot run.
#
# Copyright (C) 2026 The libfaultgen authors

here=$(cd "$(dirname "$0")/../.." && pwd)
PFT=${PFT:-$here/pft/pft}
SWEEP=${SWEEP:-$here/pft/pft-sweep}
SIZE=${SIZE:-64M}
DURATION=${DURATION:-0.5}
RUNS=${RUNS:-5}
WORKERS=${WORKERS:-1,2}
PAIRS=${PAIRS:-5}
TABLE_SIZE=${TABLE_SIZE:-256M}
SWEEP_OPTIONS=${SWEEP_OPTIONS:-}
PARTS=${PARTS:-aa known table}
mode="--duration=$DURATION"
known_patterns=shared-vma,per-thread-vma,processes
if [ "${QUICK:-0}" = 1 ]; then
	SIZE=4M
	TABLE_SIZE=4M
	RUNS=2
	PAIRS=1
	mode="--rounds=1"
	known_patterns=shared-vma
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pft-trust.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
out=${OUT:-$tmp}
mkdir -p "$out" || exit 1
status=0

die() {
	echo "sweep-trust: $*" >&2
	exit 1
}

[ -x "$PFT" ] || command -v "$PFT" >/dev/null 2>&1 ||
	die "no pft: set PFT=path/to/pft"
[ -x "$SWEEP" ] || die "no pft-sweep: set SWEEP=path/to/pft-sweep"
command -v python3 >/dev/null 2>&1 || die "python3 is needed"

# run_sweep NAME ARGS...: one sweep, its files $out/NAME.*.
run_sweep() {
	name=$1
	shift
	# --force: a sweep of an earlier run of this benchmark in $OUT is
	# replaced.
	# shellcheck disable=SC2086
	"$SWEEP" --pft="$PFT" -q --no-plot --force -o "$out/$name" \
		$SWEEP_OPTIONS "$@" \
		>"$tmp/$name.out" 2>"$tmp/$name.err" ||
		die "pft-sweep $* failed: $(tail -n 2 "$tmp/$name.err")"
	echo "sweep-trust: $name done, $(($(date +%s) - start)) s" >&2
}

# marks BASE NEW: "cells I R" of the comparison (new against base).
# From the runs CSV files alone, without the JSON files that say how the
# sweeps were made: --compare marks nothing against sweeps made with
# --no-interleave, and the A/A part measures how many of those marks
# would be false.
marks() {
	cp "$out/$1-runs.csv" "$tmp/m-$1-runs.csv"
	cp "$out/$2-runs.csv" "$tmp/m-$2-runs.csv"
	"$SWEEP" --compare "$tmp/m-$1" "$tmp/m-$2" --format=csv 2>/dev/null |
		python3 -c '
import csv, sys
rows = [r for r in csv.DictReader(sys.stdin) if r["sweep"] == "1" and
        r["p_value"] != ""]
print(len(rows), sum(r["mark"] == "I" for r in rows),
      sum(r["mark"] == "R" for r in rows))'
}

# The largest number of false marks among $1 cells that stays within the
# binomial 95% range at p = 0.05.
binomial_bound() {
	python3 -c '
import math, sys
n, p, k, cdf = int(sys.argv[1]), 0.05, 0, 0.0
while True:
    cdf += math.comb(n, k) * p ** k * (1 - p) ** (n - k)
    if cdf >= 0.975:
        break
    k += 1
print(k)' "$1"
}

# judge STATUS: $word is "met" for 0, else "MISSED" (and the exit status
# becomes 3).
judge() {
	if [ "$1" -eq 0 ]; then
		word=met
	else
		word=MISSED
		status=3
	fi
}

common="-m $SIZE $mode -r $RUNS"
# aa_pair I K OPTIONS: A/A pair I with the K-th set of options; adds its
# cells and marks to total_K and marked_K.
aa_pair() {
	for s in a b; do
		# shellcheck disable=SC2086
		run_sweep "aa$1-$2$s" $common $3 -w "$WORKERS" --heap="$SIZE" \
			-p shared-vma,per-thread-vma,processes,pretouch
	done
	# shellcheck disable=SC2046
	set -- "$1" "$2" "$3" $(marks "aa$1-$2a" "aa$1-$2b")
	printf '%-44s %5s cells, %s (I), %s (R)\n' \
		"A/A pair $1${3:+ ($3)}" "$4" "$5" "$6"
	eval "total_$2=\$((total_$2 + $4)) marked_$2=\$((marked_$2 + $5 + $6))"
}

part_aa() {
	printf '%s\n' "${AA_SETS:- }" | tr ';' '\n' >"$tmp/sets"
	nsets=$(wc -l <"$tmp/sets")
	k=1
	while [ "$k" -le "$nsets" ]; do
		eval "total_$k=0 marked_$k=0"
		k=$((k + 1))
	done
	i=1
	while [ "$i" -le "$PAIRS" ]; do
		k=1
		while [ "$k" -le "$nsets" ]; do
			aa_pair "$i" "$k" "$(sed -n "${k}p" "$tmp/sets" | sed 's/^ *//; s/ *$//')"
			k=$((k + 1))
		done
		i=$((i + 1))
	done
	k=1
	while [ "$k" -le "$nsets" ]; do
		opts=$(sed -n "${k}p" "$tmp/sets" | sed 's/^ *//; s/ *$//')
		total=0 marked=0
		eval "total=\$total_$k marked=\$marked_$k"
		bound=$(binomial_bound "$total")
		[ "$marked" -le "$bound" ]
		judge $?
		printf '%-44s %5s of %s cells (%s%%), expected %s; <= %s %s\n' \
			"A/A: cells marked${opts:+ ($opts)}" "$marked" "$total" \
			"$(awk -v m="$marked" -v t="$total" 'BEGIN { printf "%.1f", t ? 100 * m / t : 0 }')" \
			"$(awk -v t="$total" 'BEGIN { printf "%.1f", t * 0.05 }')" "$bound" \
			"$word"
		k=$((k + 1))
	done
}

# known NAME BASE-OPTION NEW-OPTION WANT [report]: a pair with one pft
# option changed, compared both ways; WANT is the mark expected of new
# against base; every cell so marked is the target, unless "report".
known() {
	# shellcheck disable=SC2086
	run_sweep "$1-base" $common -w "$WORKERS" -p "$known_patterns" -- "$2"
	# shellcheck disable=SC2086
	run_sweep "$1-new" $common -w "$WORKERS" -p "$known_patterns" -- "$3"
	other=R
	[ "$4" = R ] && other=I
	target=${5:-target}
	for way in "$1-base $1-new $4 $3 $2" "$1-new $1-base $other $2 $3"; do
		# shellcheck disable=SC2086
		set -- $way
		# shellcheck disable=SC2046
		set -- "$@" $(marks "$1" "$2")
		# $6 cells, $7 marked (I), $8 marked (R)
		right=$7
		[ "$3" = R ] && right=$8
		wrong=$(($7 + $8 - right))
		if [ "$target" = report ]; then
			word="(report)"
		else
			[ "$right" -eq "$6" ] && [ "$6" -gt 0 ]
			judge $?
			word="all $word"
		fi
		printf '%-44s %5s cells, %s (%s), %s the wrong way; %s\n' \
			"$4 against $5" "$6" "$right" "$3" "$wrong" "$word"
	done
}

part_known() {
	known thp --thp=never --thp=always I
	known touch --touch=write --touch=populate I
	known cachelines --cachelines=1 --cachelines=64 R report
}

part_table() {
	layouts="--cpu-groups=core:1x1,allx1 --cpu-groups=node:1x1,1xall"
	tmode=
	[ "${QUICK:-0}" = 1 ] && tmode="--rounds=1 -r 2"
	# shellcheck disable=SC2086
	estimate=$("$SWEEP" --pft="$PFT" --dry-run -m "$TABLE_SIZE" $layouts $tmode \
		2>&1 >/dev/null | sed -n 's/.*about \([0-9:]*\)$/\1/p')
	t0=$(date +%s)
	# shellcheck disable=SC2086
	run_sweep table -m "$TABLE_SIZE" $layouts $tmode
	t1=$(date +%s)
	points=$(($(wc -l <"$out/table.csv") - 1))
	printf '%-44s %5s s for %s points (dry-run estimate %s)\n' \
		"seed-style table, -m $TABLE_SIZE" "$((t1 - t0))" "$points" "$estimate"
}

echo "sweep-trust: $PFT, $(cut -d' ' -f1-3 /proc/loadavg) load before; $(nproc) CPU(s)"
echo "sweep-trust: -m $SIZE $mode, $RUNS runs per point${SWEEP_OPTIONS:+, $SWEEP_OPTIONS}; marks: Welch's t on log rates, 95%"
start=$(date +%s)
for part in $PARTS; do
	case $part in
	aa) part_aa ;;
	known) part_known ;;
	table) part_table ;;
	*) die "unknown part '$part' (aa, known, table)" ;;
	esac
done
echo "sweep-trust: load average after $(cut -d' ' -f1-3 /proc/loadavg); $(($(date +%s) - start)) s in all"
exit $status
