#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli-writers.sh - the shared VMA's writers on pft's command line: each
# op that changes the faulted VMA, and munmap, runs and prints the
# writers' latency line beside the figures (its count the calls the
# figures count, its percentiles in order), and a "writers" object in
# --json; a run without writers prints neither.  A nice value below
# the caller's, or SCHED_FIFO, refused to an unprivileged user: one
# line naming the option, exit 1.  Counts and order only, no timing.
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

have_python || skip "python3 is needed"

# "writers: p50 A us, p99 B us, p99.9 C us, max D us, count N OP calls
# timed ..." against the figures line's writer_calls.
cat >"$tmp/check_text.py" <<'EOF'
import re, sys
text, op = open(sys.argv[1]).read(), sys.argv[2]
calls = re.search(r"writer_calls (\d+) calls", text)
assert calls, text
m = re.search(r"^writers: p50 ([\d.]+) us, p99 ([\d.]+) us, p99\.9 ([\d.]+) us, "
              r"max ([\d.]+) us, count (\d+) (\w+) calls timed \(every call", text, re.M)
assert m, text
p50, p99, p999, mx = map(float, m.groups()[:4])
assert p50 <= p99 <= p999 <= mx, m.group(0)
assert int(m.group(5)) == int(calls.group(1)), (m.group(0), calls.group(0))
assert m.group(6) == op.split("-")[0], m.group(6)
EOF
cat >"$tmp/check_json.py" <<'EOF'
import json, sys
d = json.loads(open(sys.argv[1]).read())
c, f, w = d["config"], d["figures"], d["writers"]
assert (c["writers"], c["writer_op"]) == (1, sys.argv[2]), c
assert w["count"] == f["writer_calls"]["value"], (w["count"], f["writer_calls"])
assert w["sample_every"] == 1 and w["per_call"] and w["timed"] == "calls", w
assert w["p50_ns"] <= w["p99_ns"] <= w["p999_ns"] <= w["max_ns"], w
assert sum(b[2] for b in w["buckets"]) == w["count"], w["buckets"]
r = d["result"]
assert r["faults_agree"], r
EOF

for op in mprotect-vma madvise-vma munmap; do
	run_pft "$op" --oversubscribe -t 2 -m 16M "--writers=1,$op"
	if [ "$rc" -ne 0 ] || [ -s "$tmp/$op.err" ]; then
		fail "--writers=1,$op: exit $rc: $(cat "$tmp/$op.err")"
	elif python3 "$tmp/check_text.py" "$tmp/$op.out" "$op" >"$tmp/$op.check" 2>&1; then
		ok
	else
		fail "--writers=1,$op: $(tail -1 "$tmp/$op.check")"
	fi
	run_pft "$op-json" --oversubscribe -t 2 -m 16M "--writers=1,$op" --json
	if [ "$rc" -ne 0 ]; then
		fail "--writers=1,$op --json: exit $rc: $(cat "$tmp/$op-json.err")"
	elif python3 "$tmp/check_json.py" "$tmp/$op-json.out" "$op" >"$tmp/$op-json.check" 2>&1; then
		ok
	else
		fail "--writers=1,$op --json: $(tail -1 "$tmp/$op-json.check")"
	fi
done

# No writers: no writers line, no "writers" object.
run_pft plain --oversubscribe -t 2 -m 16M
if grep -q '^writers:' "$tmp/plain.out"; then
	fail "a run without writers printed: $(grep '^writers:' "$tmp/plain.out")"
else ok; fi
run_pft plain-json --oversubscribe -t 2 -m 16M --json
if python3 -c 'import json, sys; assert "writers" not in json.loads(open(sys.argv[1]).read())' \
	"$tmp/plain-json.out"; then ok; else
	fail "a run without writers has a writers object"; fi

# As a user without privileges: a nice value raised, or SCHED_FIFO,
# refused in one line naming the option; a lowered one runs.
as_user=
if [ "$(id -u)" -eq 0 ]; then
	command -v setpriv >/dev/null &&
		as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
elif [ "$(ulimit -e 2>/dev/null || echo 0)" = 0 ] &&
	[ "$(ulimit -r 2>/dev/null || echo 0)" = 0 ]; then
	as_user=env
fi
if [ -n "$as_user" ]; then
	for c in "nice|--writer-nice=-5|--writer-nice=-5: a nice value below" \
		"fifo|--writer-fifo=1|--writer-fifo=1: SCHED_FIFO is not permitted"; do
		name=${c%%|*} rest=${c#*|} opt=${rest%%|*} want=${rest#*|}
		# shellcheck disable=SC2086
		(cd "$tmp" && $as_user "$PFT" --oversubscribe -t 2 -m 4M \
			--writers=1,mprotect-vma "$opt") >"$tmp/$name.out" \
			2>"$tmp/$name.err"
		rc=$?
		if [ "$rc" -eq 1 ] && [ "$(wc -l <"$tmp/$name.err")" -eq 1 ] &&
			grep -qF "pft: $want" "$tmp/$name.err"; then ok; else
			fail "$opt as an unprivileged user: exit $rc: $(cat "$tmp/$name.err")"
		fi
	done
	# shellcheck disable=SC2086
	if (cd "$tmp" && $as_user "$PFT" --oversubscribe -t 2 -m 4M \
		--writers=1,mprotect-vma --writer-nice=5) >"$tmp/nice5.out" 2>&1
	then ok; else fail "--writer-nice=5 as a user: $(cat "$tmp/nice5.out")"; fi
else
	echo "$test_name: the unprivileged cases skipped: no setpriv, or RLIMIT_NICE or RLIMIT_RTPRIO raised" >&2
fi
finish
