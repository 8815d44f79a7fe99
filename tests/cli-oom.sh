#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli-oom.sh - a run that the OOM killer ends is reported as such, with
# exit status 1, for threads (the killer takes pft's whole run child) and
# processes (it takes a worker: a child, or the run child, which is
# worker 0 as in 0.12x), and leaves nothing behind.  Needs root
# and a memory cgroup to confine the OOM to a 32 MiB group; no swap.
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root to make a memory cgroup"
[ "$(wc -l </proc/swaps)" -le 1 ] || skip "swap is on: the group would swap, not OOM"

group=
if [ -f /sys/fs/cgroup/memory/cgroup.procs ]; then
	group=/sys/fs/cgroup/memory/pft-oom-$$
	mkdir "$group" || skip "cannot make $group"
	echo 32M >"$group/memory.limit_in_bytes"
elif grep -qw memory /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
	group=/sys/fs/cgroup/pft-oom-$$
	mkdir "$group" || skip "cannot make $group"
	echo 32M >"$group/memory.max"
	echo 0 >"$group/memory.swap.max" 2>/dev/null
else
	skip "no memory cgroup controller"
fi
trap 'rmdir "$group" 2>/dev/null; rm -rf "$tmp"' EXIT

# Runs pft inside the group: "in_group NAME ARGS...".
in_group() {
	gname=$1
	shift
	snapshot_segments
	setsid -w sh -c 'echo $$ >"$0/cgroup.procs" && echo $$ >"$1" && shift && exec "$@"' \
		"$group" "$tmp/$gname.pid" "$PFT" "$@" >"$tmp/$gname.out" 2>"$tmp/$gname.err"
	rc=$?
	sid=$(cat "$tmp/$gname.pid")
}

in_group threads -t 2 --oversubscribe -m 256M
[ "$rc" -eq 1 ] && grep -qx 'pft: the run was killed by the OOM killer' "$tmp/threads.err" &&
	ok || fail "threads: exit $rc: $(cat "$tmp/threads.err")"
[ -s "$tmp/threads.out" ] && fail "threads: a result after the OOM kill"
check_no_leftovers "$sid" threads

in_group procs -n 2 --oversubscribe -m 256M
[ "$rc" -eq 1 ] && grep -Eq '^pft: (worker [0-9]*|the run) was killed by the OOM killer$' "$tmp/procs.err" &&
	ok || fail "processes: exit $rc: $(cat "$tmp/procs.err")"
check_no_leftovers "$sid" procs

in_group sysv -S -n 2 --oversubscribe -m 256M
[ "$rc" -eq 1 ] && grep -q 'killed by the OOM killer$' "$tmp/sysv.err" &&
	ok || fail "SysV: exit $rc: $(cat "$tmp/sysv.err")"
check_no_leftovers "$sid" sysv
check_no_new_segment sysv

finish
