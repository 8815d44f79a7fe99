#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# lock-paths-overhead.sh - what counting the lock paths (pft --lock-paths:
# five tracepoint counters per worker, perf's counting mode) costs in
# throughput: pft runs without (A) and with (B) it, side by side, in
# pairs, the order alternating from pair to pair (A B, B A, ...), so
# that a drift of the machine weighs on both sides alike, for each worker
# count.
#
# For each pair the ratio of the two fault/wsec figures (with / without)
# is taken; the summary line gives the medians of both sides, the median
# ratio with its range over the pairs, and the loss in throughput
# (1 - median ratio) in per cent; the same for flt/cpu/s, pages per CPU
# second of the workers, which a worker waiting for a CPU does not lower.
# The target: a loss within 2%.  Needs root (the counters); without it
# the B runs count nothing and the script says so and stops.
#
# -b and -a change what the two sides run: -b --lock-waits measures the
# ring buffers of pft --lock-waits instead, -a --lock-paths -b
# --lock-waits the one against the other.
#
# Not a make-check test: its figures are timings and take minutes.
#
#   tests/bench/lock-paths-overhead.sh [-m SIZE] [-t THREADS,...]
#       [-n PAIRS] [-l LOG] [-a OPTION] [-b OPTION] [-- PFT-OPTIONS...]
#
#   -m  memory of each run, pft's -m (default 128M)
#   -t  worker counts, threads (default 1,2)
#   -n  pairs per case (default 10)
#   -l  file for every single measurement (default: none)
#   -a  an option of the A runs only (default: none)
#   -b  the option of the B runs (default --lock-paths)
#   PFT-OPTIONS: more options of every run (--writers=1,mprotect, ...)
#
# PFT (default pft/pft of this tree) is the program measured.
#
# Copyright (C) 2026 The libfaultgen authors
set -u
export LC_ALL=C

size=128M
threads=1,2
pairs=10
log=/dev/null
a_opt=
b_opt=--lock-paths
pft=${PFT:-pft/pft}

while getopts m:t:n:l:a:b: opt; do
	case $opt in
	m) size=$OPTARG ;;
	t) threads=$OPTARG ;;
	n) pairs=$OPTARG ;;
	l) log=$OPTARG ;;
	a) a_opt=$OPTARG ;;
	b) b_opt=$OPTARG ;;
	*) echo "usage: $0 [-m SIZE] [-t N,...] [-n PAIRS] [-l LOG]" \
		"[-a OPTION] [-b OPTION]" \
		"[-- PFT-OPTIONS...]" >&2
	   exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ -x "$pft" ] || { echo "lock-paths-overhead: no $pft (set PFT)" >&2; exit 1; }
: >"$log"

. "$(dirname "$0")/overhead-lib.sh"

if ! "$pft" -m 1M "$b_opt" 2>&1 | grep -q '^lock \(paths\|waits\) of'; then
	echo "lock-paths-overhead: pft $b_opt counts nothing here:" \
		"$("$pft" -m 1M "$b_opt" 2>&1 >/dev/null)" >&2
	exit 1
fi

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -r), $(nproc) CPUs," \
	"load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# pft -m $size -t T $*, with ${a_opt:-nothing} (A) and with" \
	"$b_opt (B), $pairs pairs each, A B then B A"
printf '%-3s %11s %11s %8s %17s %6s | %8s %17s %6s\n' T A_wall/s \
	B_wall/s wall "ratio min..max" loss% cpu "ratio min..max" loss%
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lp-overhead.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
for t in $(echo "$threads" | tr , ' '); do
	: >"$tmp/off"
	: >"$tmp/on"
	: >"$tmp/wall"
	: >"$tmp/cpu"
	p=0
	while [ "$p" -lt "$pairs" ]; do
		if [ $((p % 2)) -eq 0 ]; then
			off=$(rate -t "$t" -m "$size" $a_opt "$@")
			on=$(rate -t "$t" -m "$size" "$b_opt" "$@")
		else
			on=$(rate -t "$t" -m "$size" "$b_opt" "$@")
			off=$(rate -t "$t" -m "$size" $a_opt "$@")
		fi
		p=$((p + 1))
		case "$off $on" in
		*[!0-9.\ ]* | ' ') continue ;;
		esac
		echo "${off#* }" >>"$tmp/off"
		echo "${on#* }" >>"$tmp/on"
		ratio "$on" "$off" 2 >>"$tmp/wall"
		ratio "$on" "$off" 1 >>"$tmp/cpu"
		echo "t=$t pair=$p off=$off on=$on" >>"$log"
	done
	printf '%-3s %11.1f %11.1f %s | %s\n' "$t" \
		"$(median <"$tmp/off")" "$(median <"$tmp/on")" \
		"$(summary "$tmp/wall")" "$(summary "$tmp/cpu")"
done
