#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli-signals.sh - SIGINT, SIGTERM and every other terminating signal
# stop pft with 128+signal after cancelling the run, and pft exits only
# once the run is gone; a run killed outright is reported; -P waits for a
# SIGUSR1 sent after its message; SIGCHLD ignored by pft's parent changes
# nothing; and nothing is left behind: no process of pft's session, no
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
# cow-fork in rounds: the run child and the snapshot's holder it forked;
# with processes, worker 1 and worker 0's holder (worker 1's own is one
# level further down).  The holders go with the run.
stop int-cow-threads INT 130 2 --pattern=cow-fork -t 2 --oversubscribe -m 16M --duration=60
stop term-cow-procs TERM 143 3 --pattern=cow-fork -n 2 --oversubscribe -m 16M --duration=60

# --backing=file:DIR: the run's file is gone after SIGINT and SIGTERM, of
# threads and of processes (the test's own directory, empty after).
mkdir "$tmp/files"
for f in "int-file-threads INT 130 1 -t 2" "term-file-procs TERM 143 2 -n 2 --share"; do
	# shellcheck disable=SC2086
	stop $f --oversubscribe -m 16M --duration=60 --backing=file:"$tmp/files"
	[ -z "$(ls -A "$tmp/files")" ] && ok ||
		fail "${f%% *}: left in $tmp/files: $(ls -A "$tmp/files")"
done

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

# -P after a SIGUSR1 that came during the run: that one does not count;
# pft pauses until the next.
alive() {
	[ -d "/proc/$1" ] && [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" != Z ]
}
# The run lasts 3 s so that the signal comes during it; on a machine so
# busy that the pause began first, the case says so and is not counted.
start_pft early-usr1 -t 1 -m 4M --duration=3 -P
wait_descendants "$pid" 1 || fail "early SIGUSR1: the run never started"
if grep -q 'paused' "$tmp/early-usr1.err"; then
	echo "cli-signals: the pause began before the early SIGUSR1 could be sent: not counted" >&2
	kill -INT "$pid"
	wait "$bg"
else
	kill -USR1 "$pid"
	i=0
	while ! grep -q 'paused' "$tmp/early-usr1.err" && alive "$pid" && [ $i -lt 1000 ]; do
		sleep 0.01
		i=$((i + 1))
	done
	# Paused means still there a while later (a fixed pft waits
	# forever; the defect returned at once).
	i=0
	while alive "$pid" && [ $i -lt 100 ]; do
		sleep 0.02
		i=$((i + 1))
	done
	if alive "$pid"; then
		ok
		kill -USR1 "$pid"
	else
		fail "-P returned without waiting after a SIGUSR1 sent during the run"
	fi
	wait "$bg"
	prc=$?
	[ "$prc" -eq 0 ] && [ "$(count_results "$tmp/early-usr1.out")" -eq 1 ] && ok ||
		fail "-P, early SIGUSR1: exit $prc, output '$(cat "$tmp/early-usr1.out")'"
fi

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
killed kill-cow-threads 2 --pattern=cow-fork -t 2 --oversubscribe -m 16M --duration=60
killed kill-cow-procs 3 --pattern=cow-fork -n 2 --oversubscribe -m 16M --duration=60

# The number of a signal (dash's kill -l does not give it).
signum() {
	case $1 in
	HUP) echo 1 ;; INT) echo 2 ;; QUIT) echo 3 ;; KILL) echo 9 ;; USR1) echo 10 ;;
	USR2) echo 12 ;; ALRM) echo 14 ;; TERM) echo 15 ;; XCPU) echo 24 ;;
	VTALRM) echo 26 ;; PROF) echo 27 ;; *) echo 0 ;;
	esac
}

# Every terminating signal pft can catch is passed on to the run, and pft
# exits only once the run is gone, with 128+signal: a harness that starts
# its next run when pft exits must not find this one still holding its
# memory.  "gone NAME SIGNAL DESCENDANTS ARGS...".
gone() {
	gname=$1
	gsig=$2
	desc=$3
	shift 3
	snapshot_segments
	start_pft "$gname" "$@"
	wait_descendants "$pid" "$desc" || fail "$gname: the run never started"
	child=$(children_of "$pid")
	kill -"$gsig" "$pid"
	wait "$bg"
	grc=$?
	# pft has exited: its run child must be gone already (not merely
	# going), so look once, without waiting.
	if [ -n "$child" ] && [ -d "/proc/$child" ] &&
		[ "$(awk '{ print $3 }' "/proc/$child/stat" 2>/dev/null)" != Z ]; then
		fail "$gname: pft exited on SIG$gsig while its run ($child) went on"
		kill -9 "$child" 2>/dev/null
	fi
	want=$((128 + $(signum "$gsig")))
	[ "$grc" -eq "$want" ] && ok ||
		fail "$gname: SIG$gsig: exit $grc, not $want: $(cat "$tmp/$gname.err")"
	[ -s "$tmp/$gname.out" ] &&
		fail "$gname: a stopped run printed a result: $(cat "$tmp/$gname.out")"
	check_no_leftovers "$sid" "$gname"
	check_no_new_segment "$gname"
}
# A signal ignored by whoever started pft stays ignored: a script's
# background command (SIGINT and SIGQUIT ignored) is not stopped by them,
# and its run ends with its result; SIGTERM still stops it.
start_ignoring="INT QUIT" start_pft ignored -t 1 -m 4M --duration=2
start_ignoring=
wait_descendants "$pid" 1 || fail "ignored: the run never started"
kill -INT "$pid"
kill -QUIT "$pid"
wait "$bg"
irc=$?
[ "$irc" -eq 0 ] && [ "$(count_results "$tmp/ignored.out")" -eq 1 ] && ok ||
	fail "SIGINT and SIGQUIT ignored at start: exit $irc, output '$(cat "$tmp/ignored.out")' $(cat "$tmp/ignored.err")"
check_no_leftovers "$sid" ignored
start_ignoring="INT QUIT" start_pft ignored-term -t 1 -m 4M --duration=60
start_ignoring=
wait_descendants "$pid" 1 || fail "ignored-term: the run never started"
kill -INT "$pid"
kill -TERM "$pid"
wait "$bg"
irc=$?
[ "$irc" -eq 143 ] && ok ||
	fail "SIGINT ignored, then SIGTERM: exit $irc, not 143: $(cat "$tmp/ignored-term.err")"
check_no_leftovers "$sid" ignored-term

# A SIGHUP ignored by whoever started the tests (nohup) stays ignored in
# pft, as pft(1) says, and a shell cannot undo it: then the SIGHUP cases
# are said and not counted.
hup=HUP
if [ $((0x$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/self/status) & 1)) -ne 0 ]; then
	echo "cli-signals: SIGHUP is ignored here (nohup?): its cases not counted" >&2
	hup=
fi
for sig in $hup QUIT USR2 ALRM XCPU VTALRM PROF; do
	gone "gone-$sig" "$sig" 1 -t 2 --oversubscribe -m 16M --duration=60
done
[ -z "$hup" ] ||
	gone gone-procs-HUP HUP 2 -n 2 --oversubscribe -m 16M --duration=60
gone gone-sysv-QUIT QUIT 2 -S -n 2 --oversubscribe -m 16M --duration=60

# A run that does not stop (here: stopped with SIGSTOP) is killed after a
# bounded wait, and pft still exits only after it is gone.
start_pft bounded -t 2 --oversubscribe -m 16M --duration=60
wait_descendants "$pid" 1 || fail "bounded: the run never started"
child=$(children_of "$pid")
kill -STOP "$child"
kill -TERM "$pid"
wait "$bg"
brc=$?
[ "$brc" -eq 143 ] && ok || fail "bounded: exit $brc, not 143: $(cat "$tmp/bounded.err")"
check_no_leftovers "$sid" bounded

# The supervisor killed outright: the run ends with it, even a run that
# would not see a polite signal (stopped).  Thread mode: the library's
# worker processes of process mode follow their own parent.
start_pft orphaned -t 2 --oversubscribe -m 16M --duration=60
wait_descendants "$pid" 1 || fail "orphaned: the run never started"
child=$(children_of "$pid")
kill -STOP "$child"
kill -KILL "$pid"
{ wait "$bg"; } 2>/dev/null
i=0
while [ -n "$(session_procs "$sid")" ] && [ $i -lt 500 ]; do
	sleep 0.01
	i=$((i + 1))
done
check_no_leftovers "$sid" "orphaned (supervisor SIGKILLed)"

# Random timings: a random signal at a random moment (start-up, run,
# teardown, or after the run), to threads, processes, SysV memory or
# cow-fork rounds (threads or processes, each round a fresh holder).
# Whenever pft exits, nothing of its run is left, the holders included;
# SIGKILL to pft (thread mode and cow-fork: the library's worker
# processes and holders follow their own parent) ends the run with it.
# TRIALS=N for more.
rand() {
	echo $(($(od -An -N2 -tu2 /dev/urandom) % $1))
}
trials=${TRIALS:-12}
t=0
while [ $t -lt "$trials" ]; do
	t=$((t + 1))
	set -- HUP INT QUIT TERM USR2 ALRM KILL
	shift "$(rand 7)"
	rsig=$1
	case $(rand 5) in
	0) rargs="-t 2" ;;
	1) rargs="-n 2" ;;
	2) rargs="-S -n 2" ;;
	3) rargs="--pattern=cow-fork -t 2" ;;
	*) rargs="--pattern=cow-fork -n 2" ;;
	esac
	if [ "$rsig" = KILL ]; then
		case $rargs in
		*cow-fork*) ;;
		*) rargs="-t 2" ;;
		esac
	fi
	snapshot_segments
	# shellcheck disable=SC2086
	start_pft "trial$t" $rargs --oversubscribe -m 16M --duration=0.$((1 + $(rand 9)))
	sleep "0.$(rand 6)$(rand 10)"
	kill -"$rsig" "$pid" 2>/dev/null
	# (the shell's own word on a job killed by a signal is not wanted)
	{ wait "$bg"; } 2>/dev/null
	trc=$?
	if [ "$rsig" = KILL ]; then
		i=0
		while [ -n "$(session_procs "$sid")" ] && [ $i -lt 500 ]; do
			sleep 0.01
			i=$((i + 1))
		done
	else
		case $trc in
		0 | $((128 + $(signum "$rsig")))) ok ;;
		*) fail "trial $t: SIG$rsig to pft $rargs: exit $trc: $(cat "$tmp/trial$t.err")" ;;
		esac
	fi
	check_no_leftovers "$sid" "trial $t (SIG$rsig, $rargs)"
	check_no_new_segment "trial $t (SIG$rsig, $rargs)"
done

# SIGCHLD ignored by whoever started pft (inherited through exec): pft
# sets the dispositions it needs and reports the run as usual.
for args in "-t 2" "-n 2"; do
	have_python || break
	# shellcheck disable=SC2086
	python3 -c '
import os, signal, sys
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
os.execv(sys.argv[1], sys.argv[1:])' "$PFT" $args --oversubscribe -m 4M \
		>"$tmp/sigchld.out" 2>"$tmp/sigchld.err"
	crc=$?
	[ "$crc" -eq 0 ] && [ "$(count_results "$tmp/sigchld.out")" -eq 1 ] && ok ||
		fail "SIGCHLD ignored, pft $args: exit $crc: $(cat "$tmp/sigchld.err")"
done

# A page the kernel cannot give raises SIGBUS in the worker that touches
# it: the run ends with one line naming the cause, exit 1, and no core
# (ulimit -c unlimited; a core_pattern of "core" writes it in the
# directory of the run).  The file shrank under a shared run (truncated
# meanwhile), with threads and with processes.
# bus_run NAME FILE ARGS...: pft in $tmp/NAME (its cwd), in the background.
bus_run() {
	bname=$1
	shift
	rm -rf "$tmp/$bname"
	mkdir "$tmp/$bname"
	(cd "$tmp/$bname" && ulimit -c unlimited 2>/dev/null
		exec "$PFT" "$@") >"$tmp/$bname.out" 2>"$tmp/$bname.err" &
	bg=$!
}

# bus_check NAME CAUSE: exit 1, the one line, no core (bdone: the run's
# exit status where it was waited for already).
bus_check() {
	if [ -n "$bdone" ]; then
		brc=$bdone
		bdone=
	else
		wait "$bg"
		brc=$?
	fi
	[ "$brc" -eq 1 ] && [ "$(wc -l <"$tmp/$1.err")" -eq 1 ] &&
		grep -Eq "^pft: --backing=file:[^ ]*: worker [0-9]+ could not fault a page \(SIGBUS\): $2" "$tmp/$1.err" &&
		[ -z "$(ls "$tmp/$1" | grep '^core')" ] &&
		ok || fail "$1: exit $brc, $(ls "$tmp/$1"): $(cat "$tmp/$1.err")"
}

# Waits until file $1 is mapped by some process (10 s at most).
wait_mapped() {
	i=0
	while [ $i -lt 1000 ]; do
		grep -qF "$1" /proc/[0-9]*/maps 2>/dev/null && return 0
		sleep 0.01
		i=$((i + 1))
	done
	return 1
}

for args in "-t 2" "-n 2"; do
	truncate -s 8M "$tmp/shrinks"
	# shellcheck disable=SC2086
	bus_run shrank --backing=file:"$tmp/shrinks" --share --duration=60 \
		-m 8M --oversubscribe $args
	wait_mapped "$tmp/shrinks" || fail "shrank, $args: the file was never mapped"
	truncate -s 0 "$tmp/shrinks"
	bus_check shrank "the file shrank during the run"
	rm -f "$tmp/shrinks"
done

# As root, on mounts of the test's own: a tmpfs of 16 MiB filled by a
# run of 64 MiB, private or shared, threads or processes; a sparse file
# on hugetlbfs larger than the mount's size= limit, faulted privately by
# a forked worker (which reserves nothing).
if [ "$(id -u)" -eq 0 ]; then
	mkdir "$tmp/small"
	if mount -t tmpfs -o size=16M none "$tmp/small" 2>/dev/null; then
		for args in "-t 2" "-n 2" "-t 2 --share" "-n 2 --share"; do
			# shellcheck disable=SC2086
			bus_run full --backing=file:"$tmp/small" -m 64M \
				--oversubscribe $args
			wait "$bg"
			bdone=$?
			# Once in many runs, under a packager's make check -j2,
			# the cause read after the fault found the tmpfs not
			# full (a memory or I/O error): tried once more then.
			if grep -q "a memory or I/O error" "$tmp/full.err"; then
				echo "full, $args: $(cat "$tmp/full.err"); again" >&2
				bdone=
				# shellcheck disable=SC2086
				bus_run full --backing=file:"$tmp/small" -m 64M \
					--oversubscribe $args
			fi
			bus_check full "no space left on the file system"
			[ -z "$(ls -A "$tmp/small")" ] || fail "full, $args: left $(ls -A "$tmp/small")"
		done
		umount "$tmp/small"
	else
		echo "$test_name: no tmpfs mount: the full file system not tried" >&2
	fi
	rmdir "$tmp/small"
	nr=/proc/sys/vm/nr_hugepages
	if [ -w "$nr" ]; then
		orig=$(cat "$nr")
		echo $((orig + 4)) >"$nr"
		echo "$test_name: nr_hugepages $orig -> $((orig + 4)) for a case, put back after it" >&2
		mkdir "$tmp/huge"
		if mount -t hugetlbfs -o pagesize=2M,size=4M none "$tmp/huge" 2>/dev/null; then
			# One page of the two is the run's; between its rounds
			# (which give the page back) another program takes the
			# mount's pages (a shared mapping reserves them).
			bus_run hugelimit --backing=file:"$tmp/huge" -m 2M -n 1 \
				--duration=60
			wait_mapped "$tmp/huge/libfaultgen-" ||
				fail "hugelimit: the run's file was never mapped"
			python3 - "$tmp/huge" "$bg" <<'EOF2' &
import mmap, os, sys, time
held = []
end = time.time() + 60
while time.time() < end and os.path.exists("/proc/%s" % sys.argv[2]):
    path = "%s/filler%d" % (sys.argv[1], len(held))
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    os.ftruncate(fd, 2 << 20)
    try:
        held.append(mmap.mmap(fd, 2 << 20, mmap.MAP_SHARED))
    except OSError:
        os.unlink(path)
        time.sleep(0.002)
    os.close(fd)
EOF2
			filler=$!
			bus_check hugelimit "the hugetlbfs mount's size= limit was reached"
			wait "$filler"
			rm -f "$tmp/huge"/filler*
			umount "$tmp/huge"
		else
			echo "$test_name: no hugetlbfs: its size= limit not tried" >&2
		fi
		rmdir "$tmp/huge"
		echo "$orig" >"$nr"
	fi
fi

finish
