#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli-signals.sh - SIGINT and SIGTERM stop pft with 128+signal after
# cancelling the run; a run killed outright is reported; -P waits for
# SIGUSR1; and nothing is left behind: no process of pft's session, no
# SysV segment.  Runs are long (--duration) and stopped early: nothing
# here depends on how long anything takes.
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

command -v setsid >/dev/null || skip "setsid is not installed"

# "stop NAME SIGNAL STATUS DESCENDANTS ARGS...": start pft, wait until it
# has DESCENDANTS processes below it (its run child, which is worker 0 as
# in 0.12x, and in process mode the other workers), send SIGNAL to pft,
# expect STATUS.
stop() {
	sname=$1
	sig=$2
	want=$3
	desc=$4
	shift 4
	snapshot_segments
	start_pft "$sname" "$@"
	if ! wait_descendants "$pid" "$desc"; then
		fail "$sname: pft $* never started its run"
		kill -9 "$pid" 2>/dev/null
	fi
	kill -"$sig" "$pid"
	wait "$bg"
	src=$?
	[ "$src" -eq "$want" ] && ok ||
		fail "$sname: pft $* stopped by SIG$sig exited $src, not $want: $(cat "$tmp/$sname.err")"
	[ -s "$tmp/$sname.out" ] &&
		fail "$sname: a stopped run printed a result: $(cat "$tmp/$sname.out")"
	check_no_leftovers "$sid" "$sname"
	check_no_new_segment "$sname"
}

stop int-threads INT 130 1 -t 2 --oversubscribe -m 16M --duration=60
stop term-threads TERM 143 1 -t 2 --oversubscribe -m 16M --duration=60
stop int-procs INT 130 2 -n 2 --oversubscribe -m 16M --duration=60
stop term-procs TERM 143 2 -n 2 --oversubscribe -m 16M --duration=60
stop int-sysv INT 130 2 -S -n 2 --oversubscribe -m 16M --duration=60
stop term-sysv-threads TERM 143 1 -S -t 2 --oversubscribe -m 16M --duration=60
stop int-sleep INT 130 1 -t 1 -m 4M -s 60

# -P: SIGUSR1 lets the run go on and print; exit 0.
start_pft pause -t 1 -m 4M -P
i=0
while ! grep -q 'paused' "$tmp/pause.err" && [ $i -lt 1000 ]; do
	sleep 0.01
	i=$((i + 1))
done
kill -USR1 "$pid"
wait "$bg"
prc=$?
[ "$prc" -eq 0 ] && [ "$(count_results "$tmp/pause.out")" -eq 1 ] && ok ||
	fail "-P then SIGUSR1: exit $prc, output '$(cat "$tmp/pause.out")'"
check_lines_have_letters "$tmp/pause.err" "-P stderr"

# -P then SIGTERM: the result was printed, the memory is released, 143.
snapshot_segments
start_pft pause-term -S -t 1 -m 4M -P
i=0
while ! grep -q 'paused' "$tmp/pause-term.err" && [ $i -lt 1000 ]; do
	sleep 0.01
	i=$((i + 1))
done
kill -TERM "$pid"
wait "$bg"
prc=$?
[ "$prc" -eq 143 ] && [ "$(count_results "$tmp/pause-term.out")" -eq 1 ] && ok ||
	fail "-P then SIGTERM: exit $prc, output '$(cat "$tmp/pause-term.out")'"
check_no_leftovers "$sid" pause-term
check_no_new_segment pause-term

# The run child killed outright (as the OOM killer would): pft says which
# signal, exits 128+9, and kills the workers the dead child left.
killed() {
	kname=$1
	desc=$2
	shift 2
	snapshot_segments
	start_pft "$kname" "$@"
	wait_descendants "$pid" "$desc" || fail "$kname: the run never started"
	child=$(children_of "$pid")
	kill -9 $child
	wait "$bg"
	krc=$?
	[ "$krc" -eq 137 ] && grep -q '^pft: the run was killed by signal 9' "$tmp/$kname.err" &&
		ok || fail "$kname: exit $krc: $(cat "$tmp/$kname.err")"
	check_no_leftovers "$sid" "$kname"
	check_no_new_segment "$kname"
}
killed kill-threads 1 -t 2 --oversubscribe -m 16M --duration=60
killed kill-procs 2 -n 2 --oversubscribe -m 16M --duration=60
killed kill-sysv-procs 2 -S -n 2 --oversubscribe -m 16M --duration=60

finish
