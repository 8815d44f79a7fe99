#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# latency-overhead.sh - what timing each fault (pft --latency) costs in
# throughput: pft runs without and with --latency, side by side, in
# pairs, interleaved (the order alternates from pair to pair, so that a
# drift of the machine weighs on both sides alike), for each worker
# count and each sampling (--latency=N).
#
# For each pair the ratio of the two fault/wsec figures (with / without)
# is taken; the summary line gives the medians of both sides, the median
# ratio with its range over the pairs, and the loss in throughput
# (1 - median ratio) in per cent.  Ratios of pairs, not a ratio of
# medians: pairs taken moments apart share the machine's state.  The
# same for flt/cpu/s (pages per CPU second of the workers), which a
# worker waiting for a CPU does not lower: on a machine shared with
# other work, the closer figure of what the timing costs the worker.
#
# Not a make-check test: its figures are timings and take minutes.
#
#   tests/bench/latency-overhead.sh [-m SIZE] [-t THREADS,...]
#       [-e EVERY,...] [-n PAIRS] [-l LOG]
#
#   -m  memory of each run, pft's -m (default 128M)
#   -t  worker counts, threads (default 1,2)
#   -e  --latency=N values to try (default 1,16; 1 times every fault)
#   -n  pairs per case (default 10)
#   -l  file for every single measurement (default: none)
#
# PFT (default pft/pft of this tree) is the program measured.
#
# Copyright (C) 2026 The libfaultgen authors
set -u
export LC_ALL=C

size=128M
threads=1,2
everies=1,16
pairs=10
log=/dev/null
pft=${PFT:-pft/pft}

while getopts m:t:e:n:l: opt; do
	case $opt in
	m) size=$OPTARG ;;
	t) threads=$OPTARG ;;
	e) everies=$OPTARG ;;
	n) pairs=$OPTARG ;;
	l) log=$OPTARG ;;
	*) echo "usage: $0 [-m SIZE] [-t N,...] [-e N,...] [-n PAIRS] [-l LOG]" >&2
	   exit 2 ;;
	esac
done
[ -x "$pft" ] || { echo "latency-overhead: no $pft (set PFT)" >&2; exit 1; }
: >"$log"

. "$(dirname "$0")/overhead-lib.sh"

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -r), $(nproc) CPUs," \
	"load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# pft -m $size -t T, without and with --latency=N, $pairs pairs each"
printf '%-3s %-7s %11s %11s %8s %17s %6s | %8s %17s %6s\n' T latency \
	off_wall/s on_wall/s wall "ratio min..max" loss% cpu \
	"ratio min..max" loss%
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lat-overhead.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
for t in $(echo "$threads" | tr , ' '); do
	for e in $(echo "$everies" | tr , ' '); do
		: >"$tmp/off"
		: >"$tmp/on"
		: >"$tmp/wall"
		: >"$tmp/cpu"
		p=0
		while [ "$p" -lt "$pairs" ]; do
			if [ $((p % 2)) -eq 0 ]; then
				off=$(rate -t "$t" -m "$size")
				on=$(rate -t "$t" -m "$size" --latency="$e")
			else
				on=$(rate -t "$t" -m "$size" --latency="$e")
				off=$(rate -t "$t" -m "$size")
			fi
			p=$((p + 1))
			case "$off $on" in
			*[!0-9.\ ]* | ' ') continue ;;
			esac
			echo "${off#* }" >>"$tmp/off"
			echo "${on#* }" >>"$tmp/on"
			ratio "$on" "$off" 2 >>"$tmp/wall"
			ratio "$on" "$off" 1 >>"$tmp/cpu"
			echo "t=$t every=$e pair=$p off=$off on=$on" >>"$log"
		done
		printf '%-3s %-7s %11.1f %11.1f %s | %s\n' "$t" "1/$e" \
			"$(median <"$tmp/off")" "$(median <"$tmp/on")" \
			"$(summary "$tmp/wall")" "$(summary "$tmp/cpu")"
	done
done
