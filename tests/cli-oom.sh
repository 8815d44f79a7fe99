#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli-oom.sh - a run that the OOM killer ends is reported as such, with
# exit status 1, for threads (the killer takes pft's whole run child) and
# processes (it takes a worker: a child, or the run child, which is
# worker 0 as in 0.12x), and leaves nothing behind; a run killed by hand
# while the OOM killer works elsewhere is not blamed on it; and a size
# beyond the memory cgroup's limit is refused before anything runs.
# Needs root and a memory cgroup to confine the OOM to a 32 MiB group; no
# swap.
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root to make a memory cgroup"
[ "$(wc -l </proc/swaps)" -le 1 ] || skip "swap is on: the group would swap, not OOM"
# A sanitizer's memory (its shadow, its quarantine of freed memory, the
# leak check's tracer process at exit) takes part in the OOM killer's
# choices in a 32 MiB group: the supervisor's leak check, charged there
# while the killed run's memory is still being freed, makes it the next
# victim, and the tracer is a child the test would take for the run's.
[ "${SANITIZERS:-no}" = no ] || skip "built with sanitizers: their memory changes whom the OOM killer takes"

group=
if [ -f /sys/fs/cgroup/memory/cgroup.procs ]; then
	root=/sys/fs/cgroup/memory
	group=$root/pft-oom-$$
	mkdir "$group" || skip "cannot make $group"
	echo 32M >"$group/memory.limit_in_bytes"
	oom_file=memory.oom_control
elif grep -qw memory /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
	root=/sys/fs/cgroup
	group=$root/pft-oom-$$
	mkdir "$group" || skip "cannot make $group"
	echo 32M >"$group/memory.max"
	echo 0 >"$group/memory.swap.max" 2>/dev/null
	oom_file=memory.events
else
	skip "no memory cgroup controller"
fi
# A group without a limit, for runs killed by hand.
free=$root/pft-oom-free-$$
mkdir "$free" || skip "cannot make $free"
trap 'rmdir "$group" "$free" 2>/dev/null; rm -rf "$tmp"' EXIT
echo "cli-oom: made memory cgroups $group and $free, removed at the end" >&2

oom_kills() {
	awk '$1 == "oom_kill" { print $2 }' "$1/$oom_file"
}

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

in_group threads -t 2 --oversubscribe -m 256M --force
[ "$rc" -eq 1 ] && grep -qx 'pft: the run was killed by the OOM killer' "$tmp/threads.err" &&
	ok || fail "threads: exit $rc: $(cat "$tmp/threads.err")"
[ -s "$tmp/threads.out" ] && fail "threads: a result after the OOM kill"
check_no_leftovers "$sid" threads

in_group procs -n 2 --oversubscribe -m 256M --force
[ "$rc" -eq 1 ] && grep -Eq '^pft: (worker [0-9]*|the run) was killed by the OOM killer$' "$tmp/procs.err" &&
	ok || fail "processes: exit $rc: $(cat "$tmp/procs.err")"
check_no_leftovers "$sid" procs

in_group sysv -S -n 2 --oversubscribe -m 256M --force
[ "$rc" -eq 1 ] && grep -q 'killed by the OOM killer$' "$tmp/sysv.err" &&
	ok || fail "SysV: exit $rc: $(cat "$tmp/sysv.err")"
check_no_leftovers "$sid" sysv
check_no_new_segment sysv

# Beyond the group's limit, without --force: refused before anything is
# mapped, naming the cgroup's limit; nothing killed.
before=$(oom_kills "$group")
in_group refused -t 1 -m 256M
[ "$rc" -eq 1 ] && [ "$(wc -l <"$tmp/refused.err")" -eq 1 ] &&
	grep -q '^pft: -m: 0.25 GiB is more than the .* GiB its memory cgroup allows (.*limit.*32.00 MiB.*); --force runs it anyway$' "$tmp/refused.err" &&
	ok || fail "-m 256M in a 32 MiB group: exit $rc: $(cat "$tmp/refused.err")"
[ "$(oom_kills "$group")" = "$before" ] && ok ||
	fail "-m 256M in a 32 MiB group: the OOM killer ran"
check_no_leftovers "$sid" refused

# A run that holds each page twice is checked for twice -m: 20 MiB of a
# written private memfd (the file's page and its copy) or of cow-fork
# (the parent's pages and their copies) is refused before anything runs
# in the 32 MiB group, saying why, where 20 MiB of anonymous memory fits.
for args in "--backing=memfd|a private mapping of shmem: each page in the file and its copy" \
	"--pattern=cow-fork|cow-fork: the parent's pages and their copies"; do
	before=$(oom_kills "$group")
	in_group twice -t 1 -m 20M "${args%%|*}"
	[ "$rc" -eq 1 ] && [ "$(wc -l <"$tmp/twice.err")" -eq 1 ] &&
		grep -q "^pft: -m: 0.02 GiB, which this run holds twice (${args#*|}), 0.04 GiB, is more than the .* GiB its memory cgroup allows (.*limit.*32.00 MiB.*); --force runs it anyway$" "$tmp/twice.err" &&
		[ "$(oom_kills "$group")" = "$before" ] &&
		ok || fail "-m 20M ${args%%|*} in a 32 MiB group: exit $rc: $(cat "$tmp/twice.err")"
	check_no_leftovers "$sid" twice
done
in_group once -t 1 -m 20M
[ "$rc" -eq 0 ] && ok || fail "-m 20M in a 32 MiB group: exit $rc: $(cat "$tmp/once.err")"

# cow-fork's worker processes fork children of their own (the snapshots):
# they are the run's, not other programs', and the OOM kill is claimed.
in_group cowprocs --pattern=cow-fork -n 2 --oversubscribe -m 24M --force
[ "$rc" -eq 1 ] && grep -Eq '^pft: (worker [0-9]*|the run) was killed by the OOM killer$' "$tmp/cowprocs.err" &&
	ok || fail "cow-fork, processes: exit $rc: $(cat "$tmp/cowprocs.err")"
check_no_leftovers "$sid" cowprocs

# A run killed by hand while the OOM killer kills in another group is not
# reported as killed by the OOM killer: in a memory cgroup of its own
# (the group without a limit), and in the root group, where pft has none
# of its own.  "by_hand NAME CGROUP VICTIM ARGS...": VICTIM "child" kills
# pft's run child, "worker" a worker process of it.
by_hand() {
	hname=$1
	hgroup=$2
	victim=$3
	shift 3
	rm -f "$tmp/$hname.pid"
	setsid -w sh -c 'echo $$ >"$0/cgroup.procs" && echo $$ >"$1" && shift && exec "$@"' \
		"$hgroup" "$tmp/$hname.pid" "$PFT" "$@" >"$tmp/$hname.out" 2>"$tmp/$hname.err" &
	hbg=$!
	i=0
	while [ ! -s "$tmp/$hname.pid" ] && [ $i -lt 500 ]; do
		sleep 0.01
		i=$((i + 1))
	done
	hpid=$(cat "$tmp/$hname.pid")
	want=1
	[ "$victim" = worker ] && want=2
	wait_descendants "$hpid" "$want" || fail "$hname: the run never started"
	# Meanwhile the OOM killer kills a run in the limited group.
	in_group "$hname-oomer" -t 1 -m 256M --force
	# (in a shared group the oomer too may only say "meanwhile")
	grep -q 'killed by the OOM killer\|OOM killer killed a process of pft.s memory cgroup meanwhile' \
		"$tmp/$hname-oomer.err" ||
		fail "$hname: no OOM kill in the limited group: $(cat "$tmp/$hname-oomer.err")"
	target=$(children_of "$hpid")
	[ "$victim" = worker ] && target=$(children_of "$target")
	kill -9 $target
	wait "$hbg"
	hrc=$?
	if grep -q 'killed by the OOM killer' "$tmp/$hname.err"; then
		fail "$hname: a run killed by hand blamed on the OOM killer: $(cat "$tmp/$hname.err")"
	elif grep -q 'killed by signal 9' "$tmp/$hname.err"; then
		ok
	else
		fail "$hname: exit $hrc: $(cat "$tmp/$hname.err")"
	fi
	check_no_leftovers "$(cat "$tmp/$hname.pid")" "$hname"
}
# In a memory cgroup that other programs share (here: a sleep), an OOM
# kill counted there meanwhile is mentioned, not claimed: pft names the
# signal and says the kill may not have been this run.
sh -c 'echo $$ >"$0/cgroup.procs" && exec sleep 600' "$group" &
companion=$!
by_hand shared "$group" child -t 1 -m 4M --duration=60
grep -q 'killed by signal 9.*OOM killer killed a process of pft.s memory cgroup meanwhile, which other programs share' "$tmp/shared.err" &&
	ok || fail "shared: no note of the kill meanwhile: $(cat "$tmp/shared.err")"
kill "$companion"
wait "$companion" 2>/dev/null
by_hand own-threads "$free" child -t 2 --oversubscribe -m 16M --duration=60
by_hand own-procs "$free" worker -n 2 --oversubscribe -m 16M --duration=60
if sh -c 'echo $$ >"$0/cgroup.procs"' "$root" 2>/dev/null; then
	by_hand root-threads "$root" child -t 2 --oversubscribe -m 16M --duration=60
else
	echo "$test_name: cannot move into the root memory cgroup: not tried there" >&2
fi

finish
