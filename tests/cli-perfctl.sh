#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli-perfctl.sh - pft --perf-ctl writes perf's control commands around
# each run: "enable" before, "disable" after, through a FIFO path or an
# inherited file descriptor, and waits for "ack" lines when asked.  perf
# itself is used only where it can count instructions.
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

command -v timeout >/dev/null || skip "timeout is not installed"
mkfifo "$tmp/ctl" "$tmp/ack" || skip "cannot make FIFOs here"

# Reads N bytes from fd 3 (the FIFO, held open read-write so that pft's
# open finds a reader and nothing blocks), within 10 s.
read_ctl() {
	timeout 10 dd bs=1 count="$1" 2>/dev/null <&3
}

exec 3<>"$tmp/ctl"

# A FIFO path, two runs: the commands come in pairs, in order.
run_pft fifo --perf-ctl="$tmp/ctl" --repeat=2 -t 1 -m 4M
got=$(read_ctl 30)
want=$(printf 'enable\ndisable\nenable\ndisable')
[ "$rc" -eq 0 ] && ok || fail "--perf-ctl=FIFO exited $rc: $(cat "$tmp/fifo.err")"
[ "$got" = "$want" ] && ok || fail "--perf-ctl=FIFO wrote '$got'"
[ "$(count_results "$tmp/fifo.out")" -eq 2 ] && ok || fail "--perf-ctl=FIFO: results missing"

# An inherited descriptor.
run_pft fd --perf-ctl=3 -n 2 --oversubscribe -m 4M 3<>"$tmp/ctl"
got=$(read_ctl 15)
[ "$rc" -eq 0 ] && [ "$got" = "$(printf 'enable\ndisable')" ] && ok ||
	fail "--perf-ctl=3: exit $rc, wrote '$got': $(cat "$tmp/fd.err")"

# A regular file works too.
run_pft file --perf-ctl=5 -t 1 -m 4M 5>"$tmp/ctl.txt"
[ "$rc" -eq 0 ] && [ "$(cat "$tmp/ctl.txt")" = "$(printf 'enable\ndisable')" ] && ok ||
	fail "--perf-ctl=FILE: exit $rc, wrote '$(cat "$tmp/ctl.txt")'"

# With an ack FIFO pft waits for perf's "ack" after each command: with the
# acks there, the run completes.
exec 4<>"$tmp/ack"
printf 'ack\nack\n' >&4
run_pft ack --perf-ctl="$tmp/ctl,$tmp/ack" -t 1 -m 4M
got=$(read_ctl 15)
[ "$rc" -eq 0 ] && [ "$got" = "$(printf 'enable\ndisable')" ] && ok ||
	fail "--perf-ctl=CTL,ACK: exit $rc, wrote '$got': $(cat "$tmp/ack.err")"
[ "$(count_results "$tmp/ack.out")" -eq 1 ] && ok || fail "--perf-ctl=CTL,ACK: no result"

# Without acks it waits (perf has not answered): stopped by SIGTERM, 143.
start_pft noack --perf-ctl="$tmp/ctl,$tmp/ack" -t 1 -m 4M
got=$(read_ctl 7)
[ "$got" = enable ] && ok || fail "--perf-ctl=CTL,ACK without acks wrote '$got'"
kill -TERM "$pid"
wait "$bg"
[ $? -eq 143 ] && ok || fail "--perf-ctl waiting for an ack: not stopped by SIGTERM"
[ -s "$tmp/noack.out" ] && fail "--perf-ctl: ran before perf acknowledged 'enable'"
check_no_leftovers "$sid" noack
exec 3>&- 4>&-

# perf itself, where this machine lets it count.
if command -v perf >/dev/null &&
	perf stat -e instructions true 2>&1 | grep -q '[0-9][0-9,]* *instructions'; then
	exec 3<>"$tmp/ctl" 4<>"$tmp/ack"
	perf stat -x, -D -1 --control fd:3,4 -e page-faults -- \
		"$PFT" --perf-ctl=3,4 -t 1 -m 16M >"$tmp/perf.out" 2>"$tmp/perf.err"
	prc=$?
	exec 3>&- 4>&-
	faults=$(sed -n 's/^\([0-9]*\),.*page-faults.*/\1/p' "$tmp/perf.err")
	# 4096 pages faulted inside the window, and few faults besides.
	if [ "$prc" -eq 0 ] && [ -n "$faults" ] && [ "$faults" -ge 4096 ] &&
		[ "$faults" -lt 4600 ]; then
		ok
	else
		fail "perf stat --control: exit $prc, page-faults '$faults': $(cat "$tmp/perf.err")"
	fi
else
	echo "$test_name: perf cannot count instructions here: perf itself not run" >&2
fi

finish
