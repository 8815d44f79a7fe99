#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli-sweep-perf.sh - pft-sweep --perf=stat|record runs each point's pft
# under perf with the events off until pft says "enable" (--perf-ctl), a
# file per point named after it; perf stat counts the pages the measured
# runs faulted and not much more; without perf, one clear line and exit 1.
# The runs with perf SKIP where perf cannot count page faults here.
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

have_python || skip "python3 is needed (pft-sweep is a Python 3 script)"
sweep=$top_builddir/pft/pft-sweep

# Without perf in PATH: python3 alone there.
mkdir "$tmp/bin"
ln -s "$(python3 -c 'import sys; print(sys.executable)')" "$tmp/bin/python3"
PATH=$tmp/bin "$sweep" --pft="$PFT" --perf=stat -m 4M -w 1 -p shared-vma \
	-o "$tmp/none" >"$tmp/none.out" 2>"$tmp/none.err"
rc=$?
if [ "$rc" -ne 1 ] || [ "$(wc -l <"$tmp/none.err")" -ne 1 ] ||
	! grep -q '^pft-sweep: --perf=stat: perf is not installed (Debian: apt-get install linux-perf)$' \
		"$tmp/none.err" || [ -e "$tmp/none.csv" ]; then
	fail "without perf: exit $rc, $(cat "$tmp/none.err")"
else
	ok
fi

# Options that clash or need --perf.
for args in "--perf=stat -- --perf-ctl=3" "--perf-options=-g" "--perf=trace"; do
	# shellcheck disable=SC2086
	"$sweep" --pft="$PFT" $args >"$tmp/bad.out" 2>"$tmp/bad.err"
	rc=$?
	if [ "$rc" -ne 2 ] || [ "$(wc -l <"$tmp/bad.err")" -ne 2 ]; then
		fail "'$args': exit $rc, $(cat "$tmp/bad.err")"
	else
		ok
	fi
done

command -v perf >/dev/null 2>&1 || skip "perf is not installed"
perf stat -e page-faults true 2>&1 | grep -q '[0-9] *page-faults' ||
	skip "perf cannot count page faults here"

# The dry run shows perf's command around pft's, one file per point.
"$sweep" --pft="$PFT" --dry-run --perf=record --perf-options='-F 999' \
	-m 4M -w 1,2 -p shared-vma -o "$tmp/d" >"$tmp/d.out" 2>"$tmp/d.err"
rc=$?
perf=$(command -v perf)
n=0
for w in 1 2; do
	grep -qxF "$perf record -D -1 --control fd:CTL,ACK -o $tmp/d-perf/shared-vma-${w}w.data -F 999 -- $PFT --json -m 4M --pattern=shared-vma -t $w --duration=1 --warmup=1 --repeat=5 --perf-ctl=CTL,ACK" \
		"$tmp/d.out" && n=$((n + 1))
done
if [ "$rc" -ne 0 ] || [ "$n" -ne 2 ]; then
	fail "--perf=record --dry-run: exit $rc, $(cat "$tmp/d.out" "$tmp/d.err")"
else
	ok
fi

# perf stat, page faults only: 2 runs of 1024 pages (4M) per point, the
# window also maps the region and starts the workers (a few faults more).
"$sweep" --pft="$PFT" --perf=stat --perf-options='-e page-faults' -m 4M \
	--rounds=1 --warmup=0 -r 2 -w 1,2 -p shared-vma,processes -o "$tmp/s" \
	--no-plot -q >"$tmp/s.out" 2>"$tmp/s.err"
rc=$?
[ "$rc" -eq 0 ] || fail "--perf=stat exited $rc: $(cat "$tmp/s.err")"
for f in shared-vma-1w shared-vma-2w processes-1w processes-2w; do
	stat=$tmp/s-perf/$f.stat
	faults=$(sed -n 's/^ *\([0-9][0-9,]*\) *page-faults.*/\1/p' "$stat" 2>/dev/null | tr -d ,)
	if [ -z "$faults" ] || [ "$faults" -lt 2048 ] || [ "$faults" -gt 2600 ]; then
		fail "$f.stat: page-faults '$faults': $(cat "$stat" 2>&1)"
	else
		ok
	fi
	grep -q 'task-clock' "$stat" 2>/dev/null &&
		fail "$f.stat: --perf-options did not reach perf"
done
grep -q "\"perf_file\": \"$tmp/s-perf/processes-2w.stat\"" "$tmp/s.json" ||
	fail "the JSON does not name the perf file of a point"

# perf record: a perf.data file per point.
"$sweep" --pft="$PFT" --perf=record -m 4M --rounds=1 --warmup=0 -r 1 -w 1 \
	-p shared-vma -o "$tmp/r" --no-plot -q >"$tmp/r.out" 2>"$tmp/r.err"
rc=$?
if [ "$rc" -ne 0 ] || [ ! -s "$tmp/r-perf/shared-vma-1w.data" ]; then
	fail "--perf=record: exit $rc, $(ls "$tmp/r-perf" 2>&1) $(cat "$tmp/r.err")"
else
	ok
fi

finish
