#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# cli-lockpaths-note.sh - pft --lock-paths where the lock paths cannot be
# counted (an unprivileged user: tracefs is root's, perf_event_paranoid
# above 1): the run goes on, exit 0, the result line as without the
# option, one line on stderr that says what is missing and what would
# allow it, and no lock paths line; --json prints "lock_paths": null.
# With --repeat, the note once.  The same of --lock-waits (its own note,
# "lock_waits": null), and of both (a note each).  As root the test runs pft as uid 65534
# (setpriv), where the build can be read by it; else it SKIPs.
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

as=
if [ "$(id -u)" -eq 0 ]; then
	command -v setpriv >/dev/null 2>&1 || skip "root, and no setpriv"
	as="setpriv --reuid=65534 --regid=65534 --clear-groups"
	$as "$PFT" -V >/dev/null 2>&1 ||
		skip "root, and uid 65534 cannot run $PFT"
	chmod 777 "$tmp"
fi

# $1: name; the rest: pft's arguments, as the unprivileged user.
run_user() {
	name=$1
	shift
	(cd "$tmp" && $as "$PFT" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err")
	rc=$?
}

run_user plain -t 1 -m 4M --lock-paths
# A user who may count them after all (CAP_PERFMON, a tracefs of theirs):
# nothing to test here.
if [ "$rc" -eq 0 ] && [ ! -s "$tmp/plain.err" ] &&
	grep -q '^lock paths' "$tmp/plain.out"; then
	skip "this user may count the tracepoints"
fi
if [ "$rc" -ne 0 ]; then
	fail "exit $rc: $(cat "$tmp/plain.err")"
fi
if [ "$(wc -l <"$tmp/plain.err")" -eq 1 ] &&
	grep -q '^pft: note: lock paths not counted: .*(needs ' \
		"$tmp/plain.err"; then ok; else
	fail "not one note on stderr: $(cat "$tmp/plain.err")"; fi
check_result_line "$(sed -n 1p "$tmp/plain.out")" 1 1 "--lock-paths"
if [ "$(wc -l <"$tmp/plain.out")" -eq 1 ]; then ok; else
	fail "lines beyond the result: $(cat "$tmp/plain.out")"; fi

run_user rep -t 1 -m 4M --lock-paths --repeat 2
if [ "$rc" -eq 0 ] && [ "$(grep -c 'lock paths not counted' "$tmp/rep.err")" -eq 1 ]
then ok; else fail "--repeat 2: exit $rc, $(cat "$tmp/rep.err")"; fi

run_user waits -t 1 -m 4M --lock-waits
if [ "$rc" -eq 0 ] && [ "$(wc -l <"$tmp/waits.err")" -eq 1 ] &&
	grep -q '^pft: note: lock waits not timed: .*(needs ' "$tmp/waits.err" &&
	[ "$(wc -l <"$tmp/waits.out")" -eq 1 ]; then ok; else
	fail "--lock-waits: exit $rc: $(cat "$tmp/waits.out" "$tmp/waits.err")"
fi
run_user both -t 1 -m 4M --lock-waits --lock-paths --repeat 2
if [ "$rc" -eq 0 ] && [ "$(wc -l <"$tmp/both.err")" -eq 2 ] &&
	[ "$(grep -c 'lock waits not timed' "$tmp/both.err")" -eq 1 ] &&
	[ "$(grep -c 'lock paths not counted' "$tmp/both.err")" -eq 1 ] &&
	! grep -q "^lock " "$tmp/both.out"; then ok; else
	fail "both: exit $rc: $(cat "$tmp/both.out" "$tmp/both.err")"
fi

if have_python; then
	run_user jsonw -t 1 -m 4M --lock-waits --json --per-worker
	if [ "$rc" -eq 0 ] && python3 -c '
import json, sys
r = json.loads(open(sys.argv[1]).readline())
assert "lock_waits" in r and r["lock_waits"] is None, r.get("lock_waits")
assert "lock_paths" not in r
assert all(w["lock_waits"] is None for w in r["workers"])
' "$tmp/jsonw.out"; then ok; else
		fail "--json: exit $rc: $(cat "$tmp/jsonw.out" "$tmp/jsonw.err")"
	fi
	run_user json -t 1 -m 4M --lock-paths --json --per-worker
	if [ "$rc" -eq 0 ] && python3 -c '
import json, sys
r = json.loads(open(sys.argv[1]).readline())
assert "lock_paths" in r and r["lock_paths"] is None, r.get("lock_paths")
assert all(w["lock_paths"] is None for w in r["workers"])
' "$tmp/json.out"; then ok; else
		fail "--json: exit $rc: $(cat "$tmp/json.out" "$tmp/json.err")"
	fi
fi
finish
