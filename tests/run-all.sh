#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# run-all.sh - every test the project has, the way CI runs them: make check
# as root, as an unprivileged user, and confined to one CPU
# (taskset -c 0, as distributions build), then make distcheck.
# Run ./bootstrap.sh first (it installs the packages and builds).
#
# Copyright (C) 2026 The libfaultgen authors
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
jobs=$(nproc)
failed_steps=
logdir=$(mktemp -d /tmp/fg-run-all.XXXXXX)
chmod 755 "$logdir"

step() {
	name=$1
	shift
	echo "run-all: == $name" >&2
	if "$@"; then
		echo "run-all: $name: ok" >&2
	else
		echo "run-all: $name: FAILED" >&2
		failed_steps="$failed_steps $name"
	fi
}

# Adds the counts of one test-suite run (its test-suite.log files).
tally() {
	for f in $(find "$1" -name test-suite.log); do
		sed -n 's/^# \(PASS\|FAIL\|SKIP\|ERROR\|XPASS\|XFAIL\): *\([0-9]*\)/\1 \2/p' "$f"
	done >>"$logdir/counts"
}

check_dump() {
	# Show the logs of failed tests so CI output says why.
	for f in $(find "$1" -name '*.log' ! -name test-suite.log ! -name config.log); do
		if grep -q '^:test-result: \(FAIL\|ERROR\)' "${f%.log}.trs" 2>/dev/null; then
			echo "---- $f" >&2
			tail -n 40 "$f" >&2
		fi
	done
}

check_root() {
	make -j"$jobs" -s check >"$logdir/root.out" 2>&1
	rc=$?
	tally "$top"
	[ $rc -eq 0 ] || { tail -n 30 "$logdir/root.out" >&2; check_dump "$top"; }
	return $rc
}

check_one_cpu() {
	find "$top/tests" -name '*.log' -o -name '*.trs' | xargs rm -f
	taskset -c 0 make -j1 -s check >"$logdir/cpu0.out" 2>&1
	rc=$?
	tally "$top"
	[ $rc -eq 0 ] || { tail -n 30 "$logdir/cpu0.out" >&2; check_dump "$top"; }
	return $rc
}

# An unprivileged user builds and checks a copy of the tree, as a
# distribution's builder does.
check_user() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "run-all: not root: the unprivileged run is this one" >&2
		return 0
	fi
	id fgbuild >/dev/null 2>&1 || useradd -m -s /bin/sh fgbuild || return 1
	src=/tmp/fg-user-src
	rm -rf "$src" && mkdir -p "$src"
	git -C "$top" ls-files -z | (cd "$top" && xargs -0 cp --parents -t "$src")
	chown -R fgbuild: "$src"
	runuser -u fgbuild -- sh -c "cd '$src' && ./autogen.sh >/dev/null &&
		./configure -q && make -j$jobs -s >/dev/null &&
		make -j$jobs -s check" >"$logdir/user.out" 2>&1
	rc=$?
	tally "$src"
	[ $rc -eq 0 ] || { tail -n 30 "$logdir/user.out" >&2; check_dump "$src"; }
	return $rc
}

distcheck() {
	make -j"$jobs" -s distcheck >"$logdir/distcheck.out" 2>&1
	rc=$?
	[ $rc -eq 0 ] || tail -n 40 "$logdir/distcheck.out" >&2
	return $rc
}

step "make check (as $(id -un))" check_root
step "make check (unprivileged user)" check_user
step "make check (taskset -c 0)" check_one_cpu
step "make distcheck" distcheck

pass=$(awk '$1=="PASS"{s+=$2} END{print s+0}' "$logdir/counts" 2>/dev/null || echo 0)
fail=$(awk '$1=="FAIL"||$1=="ERROR"||$1=="XPASS"{s+=$2} END{print s+0}' "$logdir/counts" 2>/dev/null || echo 0)
skip=$(awk '$1=="SKIP"{s+=$2} END{print s+0}' "$logdir/counts" 2>/dev/null || echo 0)
if [ -n "$failed_steps" ]; then
	echo "run-all: failed steps:$failed_steps" >&2
	[ "$fail" -gt 0 ] || fail=1
fi
echo "tests: $pass passed, $fail failed, $skip skipped"
[ -z "$failed_steps" ]
