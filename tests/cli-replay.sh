#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli-replay.sh - pft --replay=FILE: a hand-written profile replayed
# (text and --json, the figures by kind); bad profiles (truncated,
# malformed, a later version, a member missing or of the wrong type, a
# thread of an unknown process, pages beyond the object, an unknown
# kind, write-notify faults outside a shared file) refused in one line
# naming the member, exit 2; write-notify faults in a file object on a
# disk; more memory than the machine has, a hugetlb object without huge
# pages, a file object without a directory: one line, exit 1; and a
# replay killed with SIGKILL mid-run (pft, or the process running the
# replay) leaves no process, SysV segment or file.  Nothing here depends
# on timings.
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

command -v setsid >/dev/null || skip "setsid is not installed"

head='{"schema":"pft-profile/1","recorder":"cli-replay","period":1,"bin_ms":10,"duration_ms":100,"page_size":4096,'
one_process='"processes":[{"id":0,"parent":null,"fork_ms":0,"exit_ms":null,"objects":[0]}]'

# A profile of one anonymous object of 4 MiB, two threads.
cat >"$tmp/good.json" <<EOT
$head"objects":[{"id":0,"backing":"anonymous","size":4194304,"writable":true}],
$one_process,
"threads":[{"id":0,"process":0,"start_ms":0},{"id":1,"process":0,"start_ms":0}],
"faults":[[0,0,0,2,"first-touch",512,0,511,"seq",1],[1,0,0,2,"first-touch",512,512,1023,"seq",1]],
"without_event":[],"calls":null}
EOT

run_pft good --replay="$tmp/good.json" --as-fast --per-worker
[ "$rc" -eq 0 ] && ok || fail "good: exit $rc: $(cat "$tmp/good.err")"
grep -q '^figures: first-touch 1024 faults, bins 4 bins, bins_late 0 bins$' \
	"$tmp/good.out" && ok || fail "good: figures: $(cat "$tmp/good.out")"
[ "$(grep -c '^worker [01] .* pages 512 ' "$tmp/good.out")" -eq 2 ] && ok ||
	fail "good: per worker: $(cat "$tmp/good.out")"
# Its object, in pft-survey's terms: the faults by kind, the threads.
grep -q '^  objects\[0\]  anonymous  4.0 MiB$' "$tmp/good.out" &&
	grep -q '^    faults: 1024: first-touch 1024$' "$tmp/good.out" &&
	grep -q '^    threads that faulted it: 2; top: worker 0: 512, worker 1: 512$' \
		"$tmp/good.out" &&
	grep -Eq '^    threads faulting it in the same 1 ms window: most [12], median [0-9.]+$' \
		"$tmp/good.out" &&
	grep -Eq '^    fault rate: [0-9]+ faults/s over the [0-9.]+ s it was faulted$' \
		"$tmp/good.out" && ok || fail "good: objects: $(cat "$tmp/good.out")"

# Pages populated that were present already (a gup row over pages the
# thread first touched): the faults made are 128, the kernel counts 64;
# the worker is not called short of faults.
cat >"$tmp/populated.json" <<EOT
$head"objects":[{"id":0,"backing":"anonymous","size":262144,"writable":true}],
$one_process,
"threads":[{"id":0,"process":0,"start_ms":0}],
"faults":[[0,0,0,1,"first-touch",64,0,63,"seq",1],[0,0,1,1,"gup",64,0,63,"seq",1]],
"without_event":[],"calls":null}
EOT
run_pft populated --replay="$tmp/populated.json" --as-fast --per-worker
[ "$rc" -eq 0 ] && grep -q '^worker 0 .* pages 128 ' "$tmp/populated.out" &&
	! grep -q 'workers counted fewer' "$tmp/populated.err" && ok ||
	fail "populated: exit $rc: $(cat "$tmp/populated.out" "$tmp/populated.err")"

run_pft json --replay="$tmp/good.json" --speed=2 --json
[ "$rc" -eq 0 ] && ok || fail "json: exit $rc: $(cat "$tmp/json.err")"
if have_python; then
	python3 - "$tmp/json.out" <<'EOT' && ok || fail "json: $(cat "$tmp/json.out")"
import json, sys
d = json.loads(open(sys.argv[1]).read())
c, r, f = d["config"], d["result"], d["figures"]
assert c["pattern"] == "replay" and c["speed"] == "2", c
assert r["workers"] == 2 and r["pages"] == 1024, r
assert f["first-touch"]["value"] == 1024, f
assert f["bins"]["value"] == 4, f
o = d["objects"]
assert len(o) == 1 and o[0]["object"] == 0, o
assert o[0]["backing"] == "anonymous" and o[0]["bytes"] == 4 << 20, o
assert o[0]["faults"] == 1024 and o[0]["kinds"] == {"first-touch": 1024}, o
assert o[0]["threads"] == 2 and o[0]["processes"] == 1, o
# 512 a thread, but a thread late (paced) helped by the other: a
# thread's faults of the object are the pages its worker counted.
top = sorted((t["worker"], t["faults"], t["kinds"]["first-touch"])
	     for t in o[0]["top_threads"])
assert [t[0] for t in top] == [0, 1] and sum(t[1] for t in top) == 1024, o
assert all(t[1] == t[2] == d["workers"][t[0]]["pages"] for t in top), d
assert 1 <= o[0]["concurrency_threads_max"] <= 2, o
assert o[0]["concurrency_processes_max"] == 1, o
assert 0 <= o[0]["first_s"] <= o[0]["last_s"], o
assert d["objects_windows_merged"] == 0, d
EOT
fi
grep -q 'Using 1 thread' "$tmp/json.err" &&
	fail "json: a replay's workers are the profile's: $(cat "$tmp/json.err")" || ok

# The run's options of every pattern: --latency times each fault of
# each thread; --cpus holds every thread; --lock-paths counts each
# thread's faults (or says why not: tracefs is root's).
run_pft lat --replay="$tmp/good.json" --as-fast --latency
[ "$rc" -eq 0 ] && ok || fail "lat: exit $rc: $(cat "$tmp/lat.err")"
grep -q '^latency: .* count 1024 touches timed (1 in 1, ' "$tmp/lat.out" &&
	ok || fail "lat: $(cat "$tmp/lat.out")"
if have_python; then
	cpu=$(python3 -c 'import os; print(max(os.sched_getaffinity(0)))')
	run_pft cpus --replay="$tmp/good.json" --as-fast --cpus="$cpu" \
		--per-worker
	[ "$rc" -eq 0 ] && ok || fail "cpus: exit $rc: $(cat "$tmp/cpus.err")"
	[ "$(grep -c "^worker [01] cpu -1 last_cpu $cpu " "$tmp/cpus.out")" \
		-eq 2 ] && ok || fail "cpus: $(cat "$tmp/cpus.out")"
fi
run_pft lp --replay="$tmp/good.json" --as-fast --lock-paths
[ "$rc" -eq 0 ] && ok || fail "lp: exit $rc: $(cat "$tmp/lp.err")"
user=$(sed -n 's/^lock paths of 2 workers: \([0-9]*\) user faults.*/\1/p' \
	"$tmp/lp.out")
if [ -n "$user" ]; then
	[ "$user" -ge 1024 ] && [ "$user" -le 1100 ] && ok ||
		fail "lp: $user user faults: $(cat "$tmp/lp.out")"
else
	grep -q 'lock paths' "$tmp/lp.out" "$tmp/lp.err" && ok ||
		fail "lp: no lock paths line: $(cat "$tmp/lp.out" "$tmp/lp.err")"
fi

# "bad NAME SED-SCRIPT MESSAGE": good.json changed by the sed script is
# refused with one line holding MESSAGE, and the usage hint, exit 2.
bad() {
	sed "$2" "$tmp/good.json" >"$tmp/$1.json"
	run_pft "$1" --replay="$tmp/$1.json"
	[ "$rc" -eq 2 ] && ok || fail "$1: exit $rc, not 2: $(cat "$tmp/$1.err")"
	grep -qF -- "$3" "$tmp/$1.err" && ok ||
		fail "$1: no \"$3\" in: $(cat "$tmp/$1.err")"
	[ "$(wc -l <"$tmp/$1.err")" -eq 2 ] && grep -q "^Try 'pft --help'" "$tmp/$1.err" &&
		ok || fail "$1: not one line and the hint: $(cat "$tmp/$1.err")"
	[ -s "$tmp/$1.out" ] && fail "$1: printed: $(cat "$tmp/$1.out")" || ok
}
head -c 200 "$tmp/good.json" >"$tmp/cut.json"
run_pft cut --replay="$tmp/cut.json"
[ "$rc" -eq 2 ] && grep -q 'the input ends early' "$tmp/cut.err" && ok ||
	fail "truncated: exit $rc: $(cat "$tmp/cut.err")"
bad future 's#pft-profile/1#pft-profile/2#' 'schema: "pft-profile/2": a version this library does not read'
bad malformed 's/"period":1,/"period":1,,/' 'line 1, column'
bad missing 's/"bin_ms":10,//' 'bin_ms: missing'
bad type 's/"page_size":4096/"page_size":"4096"/' 'page_size: not a number'
bad process 's/{"id":1,"process":0/{"id":1,"process":5/' 'threads[1].process: no process has id 5'
bad beyond 's/512,1023,"seq"/512,1024,"seq"/' 'faults[1][7]: 1024 is more than 1023'
bad kind 's/"first-touch",512,0,/"frist-touch",512,0,/' 'faults[0][4]: unknown kind "frist-touch"'
bad notify 's/"first-touch",512,0,/"write-notify",512,0,/' 'faults[0][4]: write-notify faults in objects[0], anonymous, not a shared file: not replayed'
run_pft dir --replay="$tmp"
[ "$rc" -eq 2 ] && grep -q 'not a regular file' "$tmp/dir.err" && ok ||
	fail "dir: exit $rc: $(cat "$tmp/dir.err")"

# Write-notify faults in a shared file's pages read before, on a disk
# (this test's directory unless it is tmpfs, which tracks no dirty pages).
if [ "$(stat -f -c %T "$tmp")" != tmpfs ]; then
	mkdir "$tmp/notify"
	sed -e 's/"backing":"anonymous","size":4194304/"backing":"file","size":262144/' \
		-e 's/"faults":.*/"faults":[[0,0,0,1,"read",64,0,63,"seq",1],[0,0,1,1,"write-notify",128,0,63,"seq",1]],/' \
		"$tmp/good.json" >"$tmp/notify.json"
	run_pft notify --replay="$tmp/notify.json" --as-fast --backing=file:"$tmp/notify"
	[ "$rc" -eq 0 ] && ok || fail "notify: exit $rc: $(cat "$tmp/notify.err")"
	grep -q '^figures: read 64 faults, write-notify 128 faults, bins 2 bins, bins_late 0 bins$' \
		"$tmp/notify.out" && ok || fail "notify: figures: $(cat "$tmp/notify.out")"
	[ -z "$(ls -A "$tmp/notify")" ] && ok || fail "notify: files left: $(ls -A "$tmp/notify")"
fi

# Runtime refusals: one line, exit 1.
refused() {
	[ "$rc" -eq 1 ] && ok || fail "$1: exit $rc, not 1: $(cat "$tmp/$1.err")"
	grep -qF -- "$2" "$tmp/$1.err" && ok ||
		fail "$1: no \"$2\" in: $(cat "$tmp/$1.err")"
	[ "$(grep -vc '^Using' "$tmp/$1.err")" -eq 1 ] && ok ||
		fail "$1: not one line: $(cat "$tmp/$1.err")"
}
sed 's/"size":4194304/"size":1099511627776/' "$tmp/good.json" >"$tmp/big.json"
run_pft big --replay="$tmp/big.json"
refused big "--replay: the profile's objects, 1024.00 GiB, is more than"
# One huge page more than are free, and at least the 4 MiB the rows fault.
free=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages 2>/dev/null || echo 0)
want=$((free + 1))
[ "$want" -ge 2 ] || want=2
sed "s/\"backing\":\"anonymous\",\"size\":4194304/\"backing\":\"hugetlb\",\"size\":$((want * 2097152))/" \
	"$tmp/good.json" >"$tmp/huge.json"
run_pft huge --replay="$tmp/huge.json"
refused huge "--replay: objects[0]: hugetlb: $want huge pages of 2048 kB wanted"
sed 's/"backing":"anonymous"/"backing":"file"/' "$tmp/good.json" >"$tmp/file.json"
run_pft nodir --replay="$tmp/file.json"
refused nodir "--replay: objects[0]: cannot map its 4194304 bytes (file): a file object needs a directory"

# Killed mid-run: a 10-minute profile (bins of 1 s) of three processes
# (a child and a grandchild) over a SysV, a file and an anonymous
# object, so that nothing of it ends by itself within the test's waits.
mkdir "$tmp/files"
cat >"$tmp/long.json" <<EOT
$(echo "$head" | sed 's/"bin_ms":10,/"bin_ms":1000,/')"objects":[{"id":0,"backing":"sysv","size":2097152,"writable":true},
{"id":1,"backing":"file","size":2097152,"writable":true},
{"id":2,"backing":"anonymous","size":2097152,"writable":true}],
"processes":[{"id":0,"parent":null,"fork_ms":0,"exit_ms":null,"objects":[0,1,2]},
{"id":1,"parent":0,"fork_ms":10,"exit_ms":null,"objects":[0,1,2]},
{"id":2,"parent":1,"fork_ms":20,"exit_ms":null,"objects":[0,1,2]}],
"threads":[{"id":0,"process":0,"start_ms":0},{"id":1,"process":1,"start_ms":10},
{"id":2,"process":2,"start_ms":20}],
"faults":[[0,0,0,600,"first-touch",512,0,511,"seq",1],[1,1,0,600,"first-touch",512,0,511,"seq",1],
[2,2,0,600,"first-touch",512,0,511,"seq",1]],"calls":null}
EOT
# The children of process $1: its threads' children in /proc (a
# replay's children are forked by a thread of its own), or those whose
# parent it is where the kernel lists no children.
kids_of() {
	if [ -r "/proc/$1/task/$1/children" ]; then
		kids=$(cat /proc/"$1"/task/*/children 2>/dev/null)
		echo "$1" $kids >>"$tmp/seen.pids"
		[ -z "$kids" ] || echo $kids
	else
		children_of "$1"
	fi
}
# "PID STARTTIME" of process $1 while it runs (not a zombie).
running() {
	sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null |
		awk -v p="$1" '$1 != "Z" { print p, $20 }'
}
# The processes of list $1 ("PID STARTTIME" lines) still running.
still_running() {
	while read -r p start; do
		[ "$(running "$p")" = "$p $start" ] && echo "$p"
	done <"$1"
}
# "killed NAME WHICH": SIGKILL to pft (WHICH top) or to the process that
# runs the replay (child), once the replay's child and grandchild are
# forked; then, within a bounded wait, none of pft's processes may be
# left (each looked for by its pid and start time).  pft killed, its run
# dies with it, and the replay's processes with theirs: the library's
# PR_SET_PDEATHSIG, nothing else (no subreaper is left to kill them).
# The run killed, pft (their subreaper) kills and reaps what it left.
killed() {
	snapshot_segments
	start_pft "$1" --replay="$tmp/long.json" --backing=file:"$tmp/files"
	i=0
	while [ $i -lt 1000 ]; do
		runner=$(kids_of "$pid")
		child=$(for p in $runner; do kids_of "$p"; done)
		grand=$(for p in $child; do kids_of "$p"; done)
		[ -n "$grand" ] && break
		sleep 0.01
		i=$((i + 1))
	done
	[ -n "$grand" ] && ok ||
		fail "$1: the replay's processes never started: $(cat "$tmp/$1.err")"
	for p in $pid $runner $child $grand; do
		running "$p"
	done >"$tmp/$1.procs"
	[ "$(wc -l <"$tmp/$1.procs")" -eq 4 ] && ok ||
		fail "$1: not pft, its run and the replay's two: $(cat "$tmp/$1.procs")"
	victim=$pid
	[ "$2" = child ] && victim=$runner
	kill -KILL $victim
	{ wait "$bg"; } 2>/dev/null
	i=0
	while [ -n "$(still_running "$tmp/$1.procs")" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	left=$(still_running "$tmp/$1.procs" | tr '\n' ' ')
	if [ -n "$left" ]; then
		fail "$1: processes left behind: $left"
		kill -KILL $left 2>/dev/null
	else
		ok
	fi
	check_no_new_segment "$1"
	[ -z "$(ls -A "$tmp/files")" ] && ok ||
		fail "$1: files left: $(ls -A "$tmp/files")"
}
killed killed-pft top
killed killed-runner child

finish
