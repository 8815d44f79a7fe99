#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# kill-trials.sh - random-timing kill trials: nothing outlives pft, and a
# stop takes effect soon.  Not a test (it takes minutes and is about
# timing); run it by hand and quote its summary lines.
#
#   tests/bench/kill-trials.sh [TRIALS [PARTS]]  (default 50 each, and
#                                   "orphans ctrl_c sysv sysv_group cow")
#
# orphans: pft -n 256 --oversubscribe, SIGKILL to pft and its run process
#          at a random moment of the start-up or the run; then count the
#          processes of that trial (found by their unique TAG argument).
# ctrl-c:  pft -n 4096 --oversubscribe, SIGINT to pft during start-up;
#          the seconds until pft exits, and the trial's processes left.
# sysv:    pft -M -S -n 2000 --oversubscribe, SIGKILL to pft's run
#          process during the set-up of its segments; the segments that
#          process created, left behind (/proc/sysvipc/shm, by creator).
# sysv_group: pft -M -S -t 2000 --oversubscribe in a process group of
#          its own, niced, SIGKILL to the whole group 0-400 ms (or
#          0-$GROUP_KILL_MS ms) after the
#          start; the segments of libfaultgen's key range left with
#          their creator gone, and those still there after the next
#          pft -S run (which removes them).
# cow:     pft --pattern=cow-fork in rounds, -t 64 and -n 64 in turn
#          (--oversubscribe), SIGKILL or SIGINT (in turn) to pft, and
#          SIGKILL also to its run process, at a random moment of the
#          start-up or the rounds; then the processes of that trial,
#          snapshot holders included (a fork of pft carries its tag).
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

# Segments of libfaultgen's key range (0x70660000 to 0x7066ffff, decimal
# in /proc/sysvipc/shm) that nothing attaches, created since second $1,
# whose creator is gone: what a killed run left.
stale_since() {
	awk -v t0="$1" 'NR > 1 && $1 >= 1885732864 && $1 <= 1885798399 &&
		$7 == 0 && $14 >= t0 { print $5 }' /proc/sysvipc/shm |
		while read -r cpid; do
			# gone, or a zombie not reaped yet
			read -r _ _ st _ <"/proc/$cpid/stat" 2>/dev/null &&
				[ "$st" != Z ] || echo gone
		done | wc -l
}

sysv_group() {
	bad=0
	kept=0
	# The killer must get the CPU among 2000 niced threads: as root,
	# this script runs at a higher priority.
	[ "$(id -u)" -ne 0 ] || renice -n -10 -p $$ >/dev/null
	for t in $(seq "$trials"); do
		tag=kt-grp-$$-$t
		t0=$(date +%s)
		delay=$(awk -v ms="$(random_ms "${GROUP_KILL_MS:-400}")" 'BEGIN { printf "%.3f", ms / 1000 }')
		# Its own session and process group (setsid execs in place:
		# $! is pft), niced as a harness's runs often are; SIGINT at
		# its default.
		env --default-signal=INT setsid nice -n 10 "$pft" -m 64M \
			-t 2000 --oversubscribe -M -S --duration=30 "$tag" \
			>/dev/null 2>&1 &
		p=$!
		# From the moment the group exists (setsid has run).
		pg=
		while [ "$pg" != "$p" ] && kill -0 "$p" 2>/dev/null; do
			read -r _ _ _ _ pg _ <"/proc/$p/stat" 2>/dev/null
		done
		sleep "$delay"
		kill -9 -"$p" 2>/dev/null # (dash takes no "--")
		wait "$p" 2>/dev/null
		settle "$tag" 5 >/dev/null
		left=$(stale_since "$t0")
		[ "$left" -gt 0 ] || continue
		bad=$((bad + 1))
		# The next run with SysV memory removes them.
		"$pft" -S -t 1 -m 4K >/dev/null 2>&1
		after=$(stale_since "$t0")
		echo "sysv-group: trial $t: $left segments left, $after after" \
			"the next pft -S run" >&2
		[ "$after" -eq 0 ] || kept=$((kept + 1))
	done
	echo "sysv-group: $trials whole-group kills, $bad left a segment," \
		"$kept still there after the next pft -S run"
}

cow() {
	bad=0
	for t in $(seq "$trials"); do
		tag=kt-cow-$$-$t
		case $((t % 2)) in
		0) kind=-t ;;
		*) kind=-n ;;
		esac
		env --default-signal=INT "$pft" --pattern=cow-fork "$kind" 64 \
			--oversubscribe -m 64M --duration=30 "$tag" \
			>/dev/null 2>&1 &
		p=$!
		sleep_ms "$(random_ms 1500)"
		c=$(run_child "$p")
		case $((t % 4)) in
		0 | 1) kill -9 "$p" ${c:+"$c"} 2>/dev/null ;;
		*) kill -INT "$p" 2>/dev/null ;;
		esac
		wait "$p" 2>/dev/null
		left=$(settle "$tag" 5)
		if [ "$left" -gt 0 ]; then
			bad=$((bad + 1))
			echo "cow: trial $t ($kind): $left processes left" >&2
			pkill -9 -f -- "$tag" 2>/dev/null
		fi
	done
	echo "cow: $trials trials, $bad with processes left behind"
}

for part in ${2:-orphans ctrl_c sysv sysv_group cow}; do
	case $part in
	orphans | ctrl_c | sysv | sysv_group | cow) "$part" ;;
	*) echo "kill-trials: no part '$part'" >&2; exit 2 ;;
	esac
done
