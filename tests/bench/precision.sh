#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# precision.sh - how far apart repeated pft invocations land.
#
# First the target, as a user meets it: BATCHES batches of RUNS
# invocations of `pft -t THREADS -m SIZE --duration=DURATION` (the first
# size, pft's own defaults), back to back, one after the other; the
# max/min of fault/wsec of each batch against TARGET.  Then the cases side
# by side, RUNS invocations of each, interleaved back to back, at each size
# of SIZES: the duration mode with pft's defaults, the naive zap loop
# (--warmup=0, pages / elapsed) when that is not already the default, the
# duration mode with WARMUP warm-up rounds when that differs from the
# default, and the one-shot run of 0.12x.  For duration runs the max/min
# of pages / elapsed too, and for all the max/min of flt/cpu/s (pages per
# CPU second: time the workers did not run, other programs' load, does not
# count).
#
#   PFT=build/pft/pft tests/bench/precision.sh
#
# Environment: PFT (default: pft in PATH), RUNS (10), BATCHES (3), THREADS
# (2), SIZES ("256M 1G"), DURATION (2), WARMUP (a third warm-up count to
# compare, off by default), EXTRA (more pft arguments for every case, e.g.
# -a), PAUSE (seconds of sleep before each invocation, default 0: back to
# back), TARGET (1.08), CONTROL=1 (before each invocation of the target,
# time a fixed compute loop that makes no page fault: its rate tracks the
# speed the host gives this VM, and the report gives its max/min per batch
# and its correlation with pft's figures), QUICK=1 (tiny sizes and short
# runs, to try the script, not to measure).
# Exits 3 when a batch misses the target.
#
# Copyright (C) 2026 The libfaultgen authors
set -u
LC_ALL=C
export LC_ALL
PFT=${PFT:-pft}
RUNS=${RUNS:-10}
BATCHES=${BATCHES:-3}
THREADS=${THREADS:-2}
SIZES=${SIZES:-256M 1G}
DURATION=${DURATION:-2}
WARMUP=${WARMUP:-}
PAUSE=${PAUSE:-0}
TARGET=${TARGET:-1.08}
CONTROL=${CONTROL:-0}
if [ "${QUICK:-0}" = 1 ]; then
	RUNS=3
	BATCHES=1
	SIZES="4M 8M"
	DURATION=0.05
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pft-precision.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

die() {
	echo "precision: $*" >&2
	exit 1
}

command -v "$PFT" >/dev/null 2>&1 || die "no pft: set PFT=path/to/pft"
[ "$THREADS" -le "$(nproc)" ] ||
	die "THREADS=$THREADS, but $(nproc) CPU(s) allowed: set THREADS"

# The default number of warm-up rounds of this pft's duration mode.
default_warmup=$("$PFT" --json -m 4M --duration=0.01 2>/dev/null |
	sed -n 's/.*"warmup":\([0-9]*\).*/\1/p' | head -n 1)
[ -n "$default_warmup" ] || die "$PFT --json --duration does not run"

# Cases: a name (file of figures) and pft's arguments.  Sizes first, so
# that one iteration runs each case once, back to back.
cases=$tmp/cases
: >"$cases"
for size in $SIZES; do
	base="-t $THREADS -m $size${EXTRA:+ $EXTRA}"
	echo "dur-$size $base --duration=$DURATION" >>"$cases"
	[ "$default_warmup" -ne 0 ] &&
		echo "naive-$size $base --duration=$DURATION --warmup=0" >>"$cases"
	[ -n "$WARMUP" ] && [ "$WARMUP" -ne "$default_warmup" ] &&
		[ "$WARMUP" -ne 0 ] &&
		echo "warm-$size $base --duration=$DURATION --warmup=$WARMUP" \
			>>"$cases"
	echo "once-$size $base" >>"$cases"
done

# One invocation of pft with arguments $2...: "fault/wsec pages/elapsed
# flt/cpu/s" appended to file $1.  A pause first lets the host take back
# the memory the last run freed, as it does between spaced invocations.
measure() {
	file=$1
	shift
	[ "$PAUSE" = 0 ] || sleep "$PAUSE"
	out=$("$PFT" --json "$@" 2>"$tmp/err") ||
		die "pft $* failed: $(tail -n 1 "$tmp/err")"
	printf '%s\n' "$out" | sed -n \
		's/.*"pages_per_wall_s":\([0-9.e+-]*\).*"flt_per_cpu_s":\([0-9.e+-]*\),"fault_per_wsec":\([0-9.e+-]*\).*/\3 \1 \2/p' \
		>>"$file"
}

# The control: CONTROL_N iterations of an awk loop (no page fault once
# awk runs), its rate in iterations per wall second appended to file $1.
CONTROL_N=3000000
[ "${QUICK:-0}" = 1 ] && CONTROL_N=100000
control() {
	t0=$(date +%s.%N)
	awk -v n="$CONTROL_N" 'BEGIN { for (i = 0; i < n; i++) s += i % 7; exit s < 0 }'
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" -v n="$CONTROL_N" \
		'BEGIN { printf "%.0f\n", (b > a ? n / (b - a) : 0) }' >>"$1"
}

# The target: batches of invocations of the first case alone.
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date +%s)
read -r _ target_args <"$cases"
b=1
while [ "$b" -le "$BATCHES" ]; do
	: >"$tmp/batch-$b"
	: >"$tmp/control-$b"
	i=1
	while [ "$i" -le "$RUNS" ]; do
		[ "$CONTROL" = 1 ] && control "$tmp/control-$b"
		# shellcheck disable=SC2086
		measure "$tmp/batch-$b" $target_args
		i=$((i + 1))
	done
	echo "precision: batch $b of $BATCHES done, $(($(date +%s) - start)) s" >&2
	b=$((b + 1))
done

i=1
while [ "$i" -le "$RUNS" ]; do
	while read -r name args; do
		# shellcheck disable=SC2086
		measure "$tmp/$name" $args
	done <"$cases"
	echo "precision: iteration $i of $RUNS done, $(($(date +%s) - start)) s" >&2
	i=$((i + 1))
done

# min median max max/min of column $2 of file $1.
stats() {
	cut -d' ' -f"$2" "$1" | sort -g | awk '
		{ v[NR] = $1 }
		END {
			med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%12.0f %12.0f %12.0f %8.3f", v[1], med, v[NR],
				(v[1] > 0 ? v[NR] / v[1] : 0)
		}'
}

verdict() {
	if awk -v r="$1" -v t="$TARGET" 'BEGIN { exit !(r <= t) }'; then
		echo "<= $TARGET met"
	else
		echo "<= $TARGET MISSED"
	fi
}

echo "precision: pft $PFT; $(nproc) CPUs; default warm-up rounds:" \
	"$default_warmup; load average before $load_before, after" \
	"$(cut -d' ' -f1-3 /proc/loadavg)"
echo "precision: $BATCHES batches of $RUNS invocations of pft" \
	"$target_args, back to back, $PAUSE s apart"
printf '%-46s %12s %12s %12s %8s  %s\n' "batch (figure)" min median max \
	max/min target
missed=0
met=0
b=1
while [ "$b" -le "$BATCHES" ]; do
	line=$(stats "$tmp/batch-$b" 1)
	v=$(verdict "$(echo "$line" | awk '{ print $4 }')")
	case $v in
	*met) met=$((met + 1)) ;;
	*) missed=3 ;;
	esac
	printf '%-46s %s  %s\n' "batch $b (fault/wsec)" "$line" "$v"
	printf '%-46s %s\n' "  (pages / elapsed of each run)" \
		"$(stats "$tmp/batch-$b" 2)"
	printf '%-46s %s\n' "  (flt/cpu/s: pages per CPU second)" \
		"$(stats "$tmp/batch-$b" 3)"
	[ "$CONTROL" = 1 ] &&
		printf '%-46s %s\n' "  (control: compute loop iterations/s)" \
			"$(stats "$tmp/control-$b" 1)"
	printf 'batch %s: %s\n' "$b" "$(cut -d' ' -f1 "$tmp/batch-$b" |
		awk '{ printf "%s%.0f", (NR > 1 ? " " : ""), $1 }')"
	b=$((b + 1))
done
echo "target met in $met of $BATCHES batches"
if [ "$CONTROL" = 1 ]; then
	# Pearson's r over all the target's invocations: fault/wsec against
	# the control's rate just before it.
	b=1
	while [ "$b" -le "$BATCHES" ]; do
		paste -d' ' "$tmp/batch-$b" "$tmp/control-$b"
		b=$((b + 1))
	done | awk '
		{ x = $1; y = $4; n++; sx += x; sy += y; sxx += x * x
		  syy += y * y; sxy += x * y }
		END {
			vx = n * sxx - sx * sx; vy = n * syy - sy * sy
			if (n > 2 && vx > 0 && vy > 0)
				printf "control: fault/wsec against the control rate " \
				       "before it, r = %.2f over %d invocations\n",
				       (n * sxy - sx * sy) / sqrt(vx * vy), n
			else
				print "control: too few or constant figures for r"
		}'
fi
echo
echo "precision: $RUNS invocations of each case, interleaved, $PAUSE s apart"
printf '%-46s %12s %12s %12s %8s\n' "pft arguments (figure)" min median \
	max max/min
while read -r name args; do
	printf '%-46s %s\n' "$args" "$(stats "$tmp/$name" 1)"
	case $name in
	once-*) ;;
	*) printf '%-46s %s\n' "  (pages / elapsed of each run)" \
		"$(stats "$tmp/$name" 2)" ;;
	esac
	printf '%-46s %s\n' "  (flt/cpu/s: pages per CPU second)" \
		"$(stats "$tmp/$name" 3)"
done <"$cases"
echo "fault/wsec: as pft prints it; in duration mode the median of the"
echo "rounds' rates (pages of a round over its time, zap included)"
for f in "$tmp"/dur-* "$tmp"/naive-* "$tmp"/warm-* "$tmp"/once-*; do
	[ -f "$f" ] || continue
	printf '%s: %s\n' "$(basename "$f")" "$(cut -d' ' -f1 "$f" |
		awk '{ printf "%s%.0f", (NR > 1 ? " " : ""), $1 }')"
done
exit $missed
