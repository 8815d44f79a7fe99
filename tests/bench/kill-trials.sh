#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# kill-trials.sh - random-timing kill trials: nothing outlives pft, and a
# stop takes effect soon.  Not a test (it takes minutes and is about
# timing); run it by hand and quote its summary lines.
#
#   tests/bench/kill-trials.sh [TRIALS [PARTS]]  (default 50 each, and
#                                                 "orphans ctrl_c sysv")
#
# orphans: pft -n 256 --oversubscribe, SIGKILL to pft and its run process
#          at a random moment of the start-up or the run; then count the
#          processes of that trial (found by their unique TAG argument).
# ctrl-c:  pft -n 4096 --oversubscribe, SIGINT to pft during start-up;
#          the seconds until pft exits, and the trial's processes left.
# sysv:    pft -M -S -n 2000 --oversubscribe, SIGKILL to pft's run
#          process during the set-up of its segments; the segments that
#          process created, left behind (/proc/sysvipc/shm, by creator).
#
# PFT (default pft/pft of this tree) is the program tried.
#
# Copyright (C) 2026 The libfaultgen authors
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
pft=${PFT:-$top/pft/pft}
trials=${1:-50}
[ -x "$pft" ] || { echo "kill-trials: no $pft (build first)" >&2; exit 2; }

# Processes whose command line holds the word $1 (a tag no other
# command line has).
procs_with() {
	# "[k]t-..." matches the tag but not grep's own command line.
	first=$(printf '%s' "$1" | cut -c1)
	rest=$(printf '%s' "$1" | cut -c2-)
	grep -las -- "[$first]$rest" /proc/[0-9]*/cmdline 2>/dev/null | wc -l
}

# A random number of milliseconds in [0, $1).
random_ms() {
	od -An -N2 -tu2 /dev/urandom | awk -v max="$1" '{ print $1 % max }'
}

sleep_ms() {
	sleep "$(awk -v ms="$1" 'BEGIN { printf "%.3f", ms / 1000 }')"
}

# Waits up to $2 seconds for the processes of tag $1 to go; prints how
# many are left.
settle() {
	i=0
	left=$(procs_with "$1")
	while [ "$left" -gt 0 ] && [ "$i" -lt $(($2 * 10)) ]; do
		sleep 0.1
		i=$((i + 1))
		left=$(procs_with "$1")
	done
	echo "$left"
}

# The run process pft forked (its only child), or nothing.
run_child() {
	cat "/proc/$1/task/$1/children" 2>/dev/null | awk '{ print $1 }'
}

orphans() {
	bad=0
	for t in $(seq "$trials"); do
		tag=kt-orphan-$$-$t
		"$pft" -n 256 --oversubscribe -m 64M --duration=30 "$tag" \
			>/dev/null 2>&1 &
		p=$!
		sleep_ms "$(random_ms 1500)"
		c=$(run_child "$p")
		kill -9 "$p" ${c:+"$c"} 2>/dev/null
		wait "$p" 2>/dev/null
		left=$(settle "$tag" 5)
		if [ "$left" -gt 0 ]; then
			bad=$((bad + 1))
			echo "orphans: trial $t: $left processes left" >&2
			pkill -9 -f -- "$tag" 2>/dev/null
		fi
	done
	echo "orphans: $trials trials, $bad with processes left behind"
}

ctrl_c() {
	bad=0
	worst=0
	for t in $(seq "$trials"); do
		tag=kt-int-$$-$t
		# (at SIGINT's default: a script's background command starts
		# with it ignored, which pft keeps)
		env --default-signal=INT "$pft" -n 4096 --oversubscribe \
			-m 16M --duration=30 "$tag" \
			>/dev/null 2>&1 &
		p=$!
		sleep_ms "$(random_ms 500)"
		t0=$(date +%s.%N)
		kill -INT "$p" 2>/dev/null
		wait "$p" 2>/dev/null
		took=$(awk -v a="$t0" -v b="$(date +%s.%N)" \
			'BEGIN { printf "%.2f", b - a }')
		worst=$(awk -v a="$worst" -v b="$took" \
			'BEGIN { print (b > a ? b : a) }')
		left=$(settle "$tag" 5)
		if [ "$left" -gt 0 ]; then
			bad=$((bad + 1))
			echo "ctrl-c: trial $t: $left processes left" >&2
			pkill -9 -f -- "$tag" 2>/dev/null
		fi
	done
	echo "ctrl-c: $trials trials, slowest exit ${worst} s after SIGINT," \
		"$bad with processes left behind"
}

# Segments whose creator is pid $1.
segments_of() {
	awk -v pid="$1" 'NR > 1 && $5 == pid { n++ } END { print n + 0 }' \
		/proc/sysvipc/shm
}

sysv() {
	bad=0
	for t in $(seq "$trials"); do
		tag=kt-shm-$$-$t
		"$pft" -M -S -n 2000 --oversubscribe -m 8000P --duration=30 \
			"$tag" >/dev/null 2>&1 &
		p=$!
		c=
		while [ -z "$c" ] && kill -0 "$p" 2>/dev/null; do
			c=$(run_child "$p")
		done
		sleep_ms "$(random_ms 300)"
		kill -9 "$c" "$p" 2>/dev/null
		wait "$p" 2>/dev/null
		settle "$tag" 5 >/dev/null
		left=$(segments_of "$c")
		if [ "$left" -gt 0 ]; then
			bad=$((bad + 1))
			echo "sysv: trial $t: $left segments of $c left" >&2
			awk -v pid="$c" 'NR > 1 && $5 == pid { print $2 }' \
				/proc/sysvipc/shm | xargs -r -n1 ipcrm -m
		fi
	done
	echo "sysv: $trials trials, $bad with segments left behind"
}

for part in ${2:-orphans ctrl_c sysv}; do
	case $part in
	orphans | ctrl_c | sysv) "$part" ;;
	*) echo "kill-trials: no part '$part'" >&2; exit 2 ;;
	esac
done
