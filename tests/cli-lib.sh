# SPDX-License-Identifier: LGPL-2.1-or-later
# cli-lib.sh - helpers for the pft CLI tests; sourced, not run.
#
# Each test sources this file, calls its checks, then `finish`.  A check
# that fails prints one line and the test goes on, so that one run shows
# every failure.
#
# Copyright (C) 2026 The libfaultgen authors

: "${PFT:?PFT must name the pft binary under test}"
# SysV segments are machine-wide: other programs (another build's tests)
# create and remove them at any time.  Where allowed, each test runs in an
# IPC namespace of its own, so its leak checks see its own segments only;
# elsewhere they keep to segments whose creator was one of this test's
# processes (cpid_ours).
if [ -z "${PFT_TEST_IPCNS:-}" ] && command -v unshare >/dev/null &&
	unshare --ipc true 2>/dev/null; then
	PFT_TEST_IPCNS=private
	export PFT_TEST_IPCNS
	exec unshare --ipc -- /bin/sh "$0" "$@"
fi
PFT_TEST_IPCNS=${PFT_TEST_IPCNS:-shared}
LC_ALL=C
export LC_ALL
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pft-cli.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
failures=0
passes=0
test_name=$(basename "$0" .sh)

fail() {
	echo "$test_name: FAIL: $*" >&2
	failures=$((failures + 1))
}

ok() {
	passes=$((passes + 1))
}

skip() {
	echo "$test_name: SKIP: $*" >&2
	exit 77
}

finish() {
	if [ "$failures" -ne 0 ]; then
		echo "$test_name: $failures failed, $passes passed" >&2
		exit 1
	fi
	echo "$test_name: $passes passed"
	exit 0
}

have_python() {
	command -v python3 >/dev/null 2>&1
}

# The unit tests of the Python package in $top_srcdir/$1 (its tests/,
# stdlib unittest), with no compiled files written there (a distcheck's
# source tree is read-only): ok, or fail with their output.
python_unit_tests() {
	if (cd "$top_srcdir/$1" && PYTHONDONTWRITEBYTECODE=1 \
		python3 -m unittest discover -s tests -t . -v) >"$tmp/unit.out" 2>&1; then
		ok
	else
		fail "python3 -m unittest in $1:
$(cat "$tmp/unit.out")"
	fi
	grep -q '^OK$' "$tmp/unit.out" || fail "no OK from unittest: $(tail -n 3 "$tmp/unit.out")"
}

# pft-survey's CLI tests: skips unless pft-survey was built and perf
# records page faults here; $survey names it, and each survey's
# temporary files go to $tmp/t (TMPDIR), for the test to check it empty
# at the end; $thp and $over are the pft options the machine needs.
need_survey() {
	have_python || skip "python3 is needed (pft-survey is a Python 3 program)"
	survey=$top_builddir/pft/pft-survey
	[ -x "$survey" ] || skip "pft-survey was not built (no python3 at configure)"
	command -v perf >/dev/null 2>&1 ||
		skip "perf is missing (Debian's linux-perf package)"
	paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)
	if [ "$(id -u)" -ne 0 ] && [ "$paranoid" -gt 2 ]; then
		skip "perf_event_paranoid is $paranoid: perf record needs 2 or lower"
	fi
	perf record -q -e page-faults -d -o "$tmp/probe.data" -- true \
		>"$tmp/probe.out" 2>&1 ||
		skip "perf record -e page-faults does not work here: $(head -n 1 "$tmp/probe.out")"
	mkdir "$tmp/t"
	TMPDIR=$tmp/t
	export TMPDIR
	# THP in "always" mode would make pft's 4 KiB faults huge ones.
	thp=
	grep -q '\[always\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null &&
		thp=--thp=never
	# pft clips its workers to the allowed CPUs: on one CPU the cases of
	# 2 workers ask for them, and a reproduce line then keeps
	# --oversubscribe (more workers than the CPUs the survey may use).
	over=
	[ "$(nr_allowed)" -ge 2 ] || over=--oversubscribe
}

# pft-survey's error: $tmp/$1.err is one line "pft-survey: ..." holding
# $2, no traceback.
check_one_line() {
	if [ "$(wc -l <"$tmp/$1.err")" -ne 1 ] ||
		! grep -q "^pft-survey: .*$2" "$tmp/$1.err"; then
		fail "$1: expected one line with '$2' on stderr: $(cat "$tmp/$1.err")"
		return
	fi
	ok
}

# True when CPU $1 is in this process's affinity mask.
cpu_allowed() {
	python3 -c 'import os, sys; sys.exit(int(sys.argv[1]) not in os.sched_getaffinity(0))' "$1"
}

# The number of CPUs this process may run on.
nr_allowed() {
	python3 -c 'import os; print(len(os.sched_getaffinity(0)))'
}

# Skips unless N CPUs are allowed, for tests of 0.12x's command lines
# with N workers: pft clips the workers to the allowed CPUs, as 0.12x does.
need_cpus() {
	[ "$(nr_allowed)" -ge "$1" ] ||
		skip "needs $1 allowed CPUs: pft clips the workers to them, as 0.12x does"
}

# mmtests' rule: delete every 's'; a line with a letter left is skipped.
is_result_line() {
	! printf '%s\n' "$1" | tr -d s | grep -q '[A-Za-z]'
}

# The number of lines of file $1 that mmtests would take for results.
count_results() {
	n=0
	while IFS= read -r line || [ -n "$line" ]; do
		is_result_line "$line" && n=$((n + 1))
	done <"$1"
	echo "$n"
}

# Checks one result line against 0.12x's format, byte for byte, and the
# parsing rule: $1 the line, $2 the workers, $3 the cachelines, $4 what
# produced it (for messages).
check_result_line() {
	line=$1
	what=$4
	if ! is_result_line "$line"; then
		fail "$what: result line has letters other than s: '$line'"
		return
	fi
	case $line in
	" "*) ;;
	*) fail "$what: result line does not begin with a space: '$line'"; return ;;
	esac
	# Split as mmtests does after deleting the s: 8 fields (awk drops the
	# empty one before the leading space).
	fields=$(printf '%s\n' "$line" | tr -d s | awk '{ print NF }')
	if [ "$fields" != 8 ]; then
		fail "$what: $fields fields instead of 8: '$line'"
		return
	fi
	# Printing the numbers again with 0.12x's format gives the same bytes.
	# shellcheck disable=SC2046
	set -- $(printf '%s\n' "$line" | tr -d s) "$2" "$3"
	again=$(printf ' %3d %4d %3d %8.2fs %8.2fs %8.2fs  %10.3f %10.3f' \
		"$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8")
	if [ "$again" != "$line" ]; then
		fail "$what: not 0.12x's format: '$line' (expected '$again')"
		return
	fi
	if [ "$2" != "$9" ]; then
		fail "$what: $2 workers in the line, expected $9"
		return
	fi
	if [ "${10}" != "$3" ]; then
		fail "$what: $3 cachelines in the line, expected ${10}"
		return
	fi
	ok
}

# Every line of file $1 (stderr) has a letter other than 's'.
check_lines_have_letters() {
	while IFS= read -r line || [ -n "$line" ]; do
		if is_result_line "$line"; then
			fail "$2: a line without letters would be read as a result: '$line'"
			return
		fi
	done <"$1"
	ok
}

# Runs pft in a session of its own, so that every process it leaves
# behind can be found: "run_pft NAME ARGS...".  Output in $tmp/NAME.out
# and $tmp/NAME.err; status in $rc; the session in $sid.
run_pft() {
	name=$1
	shift
	setsid -w sh -c 'echo $$ >"$0"; exec "$@"' "$tmp/$name.pid" "$PFT" "$@" \
		>"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
	sid=$(cat "$tmp/$name.pid" 2>/dev/null)
}

# Starts pft in the background in a session of its own; $pid is pft.
start_pft() {
	name=$1
	shift
	rm -f "$tmp/$name.pid"
	# A background command of a script starts with SIGINT and SIGQUIT
	# ignored, which pft keeps: these runs start with them at their
	# default, as from a terminal, and with the signals named in
	# $start_ignoring ignored.
	PFT_IGNORE=${start_ignoring:-} setsid -w env --default-signal=INT,QUIT \
		sh -c '[ -z "$PFT_IGNORE" ] || trap "" $PFT_IGNORE
			unset PFT_IGNORE; echo $$ >"$0"; exec "$@"' \
		"$tmp/$name.pid" "$PFT" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
	bg=$!
	i=0
	while [ ! -s "$tmp/$name.pid" ] && [ $i -lt 500 ]; do
		sleep 0.01
		i=$((i + 1))
	done
	pid=$(cat "$tmp/$name.pid")
	sid=$pid
	# Until pft itself runs in that process (a libtool wrapper script
	# runs first, whose SIGINT is ignored in the background and whose
	# sed children must not pass for pft's), a signal would be lost.
	i=0
	while [ $i -lt 1000 ]; do
		case $(readlink "/proc/$pid/exe" 2>/dev/null) in
		*/pft | */lt-pft | "") break ;;
		esac
		sleep 0.01
		i=$((i + 1))
	done
}

# The processes of session $1 still alive (zombies do not count).
session_procs() {
	cat /proc/[0-9]*/stat 2>/dev/null |
		sed 's/^\([0-9]*\) (.*) /\1 /' |
		awk -v s="$1" '$5 == s && $2 != "Z" { print $1 }'
}

# Children of process $1 (remembered as this test's: cpid_ours).
children_of() {
	kids=$(cat /proc/[0-9]*/stat 2>/dev/null |
		sed 's/^\([0-9]*\) (.*) /\1 /' |
		awk -v p="$1" '$3 == p && $2 != "Z" { print $1 }')
	echo "$1" $kids >>"$tmp/seen.pids"
	[ -z "$kids" ] || echo "$kids"
}

# Waits until process $1 has at least $2 descendants (children and
# grandchildren) or 10 s passed; the run is then under way.
wait_descendants() {
	i=0
	while [ $i -lt 1000 ]; do
		n=0
		for c in $(children_of "$1"); do
			n=$((n + 1 + $(children_of "$c" | wc -l)))
		done
		[ "$n" -ge "$2" ] && return 0
		sleep 0.01
		i=$((i + 1))
	done
	return 1
}

check_no_leftovers() {
	left=$(session_procs "$1")
	if [ -n "$left" ]; then
		fail "$2: processes left behind: $left"
		kill -9 $left 2>/dev/null
		return
	fi
	ok
}

# SysV segments nobody has attached: what a killed 0.12x leaked.  Segments
# in use by runs going on at the same time are attached, so not counted.
# In the machine's IPC namespace, only those created by a process of this
# test (its session, or a pid it saw: $seen_pids).
orphan_segments() {
	awk 'NR > 1 && $7 == 0 { print $2, $5 }' /proc/sysvipc/shm 2>/dev/null |
		while read -r id cpid; do
			[ "$PFT_TEST_IPCNS" = private ] || cpid_ours "$cpid" ||
				continue
			echo "$id"
		done | sort
}

# True when pid $1 is, or was seen as, one of this test's processes.
cpid_ours() {
	grep -qw "$1" "$tmp/seen.pids" 2>/dev/null && return 0
	[ -r "/proc/$1/stat" ] || return 1
	[ "$(sed 's/^[0-9]* (.*) //' "/proc/$1/stat" | awk '{ print $4 }')" = "${sid:-x}" ]
}

snapshot_segments() {
	orphan_segments >"$tmp/shm.before"
}

check_no_new_segment() {
	orphan_segments >"$tmp/shm.after"
	new=$(comm -13 "$tmp/shm.before" "$tmp/shm.after")
	if [ -n "$new" ]; then
		fail "$1: SysV segments left behind: $new"
		return
	fi
	ok
}
