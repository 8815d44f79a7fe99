#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# precision.sh - how far apart repeated pft invocations land: RUNS
# invocations of each case, interleaved back to back, and the max/min of
# their fault/wsec.  The cases, at each size of SIZES with THREADS
# threads: the duration mode as a user types it (pft's own defaults), the
# naive zap loop (--warmup=0) when that is not already the default, the
# duration mode with WARMUP warm-up rounds, and the one-shot run of 0.12x.
# For duration runs the max/min of the median rate of their rounds too,
# and for all the max/min of flt/cpu/s (pages per CPU second: time the
# workers did not run, other programs' load, does not count).
#
#   PFT=build/pft/pft tests/bench/precision.sh
#
# Environment: PFT (default: pft in PATH), RUNS (10), THREADS (2), SIZES
# ("256M 1G"), DURATION (2), WARMUP (2), EXTRA (more pft arguments for
# every case, e.g. -a), PAUSE (seconds of sleep before each invocation,
# default 0: back to back), TARGET (1.08: max/min of the first size's
# default duration case), QUICK=1 (tiny sizes and short runs, to try the
# script, not to measure).
#
# Copyright (C) 2026 The libfaultgen authors
set -u
LC_ALL=C
export LC_ALL
PFT=${PFT:-pft}
RUNS=${RUNS:-10}
THREADS=${THREADS:-2}
SIZES=${SIZES:-256M 1G}
DURATION=${DURATION:-2}
WARMUP=${WARMUP:-2}
PAUSE=${PAUSE:-0}
TARGET=${TARGET:-1.08}
if [ "${QUICK:-0}" = 1 ]; then
	RUNS=3
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
	[ "$WARMUP" -ne "$default_warmup" ] &&
		echo "warm-$size $base --duration=$DURATION --warmup=$WARMUP" \
			>>"$cases"
	echo "once-$size $base" >>"$cases"
done

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date +%s)
i=1
while [ "$i" -le "$RUNS" ]; do
	while read -r name args; do
		# A pause lets the host take back the memory the last run
		# freed, as it does between spaced invocations.
		[ "$PAUSE" = 0 ] || sleep "$PAUSE"
		# shellcheck disable=SC2086
		out=$("$PFT" --json $args 2>"$tmp/err") ||
			die "pft $args failed: $(tail -n 1 "$tmp/err")"
		printf '%s\n' "$out" | sed -n \
			's/.*"round_rate_median":\([0-9.e+-]*\).*"flt_per_cpu_s":\([0-9.e+-]*\),"fault_per_wsec":\([0-9.e+-]*\).*/\3 \1 \2/p' \
			>>"$tmp/$name"
	done <"$cases"
	echo "precision: iteration $i of $RUNS done, $(($(date +%s) - start)) s" >&2
	i=$((i + 1))
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

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

echo "precision: $RUNS invocations of each case, interleaved, $PAUSE s" \
	"apart; pft $PFT"
echo "load average before $load_before, after $load_after; $(nproc) CPUs;" \
	"default warm-up rounds: $default_warmup"
printf '%-46s %12s %12s %12s %8s  %s\n' "pft arguments (figure)" min median \
	max max/min target
first=1
missed=0
while read -r name args; do
	line=$(stats "$tmp/$name" 1)
	target=
	if [ $first = 1 ]; then
		ratio=$(echo "$line" | awk '{ print $4 }')
		if awk -v r="$ratio" -v t="$TARGET" 'BEGIN { exit !(r <= t) }'; then
			target="<= $TARGET met"
		else
			target="<= $TARGET MISSED"
			missed=3
		fi
		first=0
	fi
	printf '%-46s %s  %s\n' "$args" "$line" "$target"
	case $name in
	once-*) ;;
	*) printf '%-46s %s\n' "  (median round rate of each run)" \
		"$(stats "$tmp/$name" 2)" ;;
	esac
	printf '%-46s %s\n' "  (flt/cpu/s: pages per CPU second)" \
		"$(stats "$tmp/$name" 3)"
done <"$cases"
echo "fault/wsec: pages of all measured rounds / elapsed, zap included"
for f in "$tmp"/dur-* "$tmp"/naive-* "$tmp"/warm-* "$tmp"/once-*; do
	[ -f "$f" ] || continue
	printf '%s: %s\n' "$(basename "$f")" "$(cut -d' ' -f1 "$f" |
		awk '{ printf "%s%.0f", (NR > 1 ? " " : ""), $1 }')"
done
exit $missed
