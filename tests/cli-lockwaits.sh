#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# cli-lockwaits.sh - pft --lock-waits as root, with the mmap_lock and
# lock:contention tracepoints: two threads faulting a shared VMA beside
# two mmap writers.  The writers' write acquisitions are about their
# calls (each call takes mmap_lock for writing: at least the calls
# counted), the workers' far fewer; on both sides waits are at most the
# acquisitions, the decades sum to the waits, the percentiles are in
# order; each worker's user faults, seen one by one, about its pages,
# those that took mmap_lock and their retries among the read
# acquisitions; --latency beside it times as many touches as without;
# the workers' --json objects add up to the run's; the text
# lines follow the result line.  Counts only, never timings.  (Without
# the privilege: cli-lockpaths-note.sh.)
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

have_python || skip "python3 is needed"
[ "$(id -u)" -eq 0 ] || skip "timing tracepoints needs root here"
[ -r /sys/kernel/tracing/events/lock/contention_begin/id ] ||
	[ -r /sys/kernel/debug/tracing/events/lock/contention_begin/id ] ||
	skip "no lock:contention_begin tracepoint in a readable tracefs"

two="-t 2"
[ "$(nr_allowed)" -lt 2 ] && two="-t 2 --oversubscribe"

cat >"$tmp/check.py" <<'PY'
import json, sys

r = json.loads(open(sys.argv[1]).readline())
lw = r.get("lock_waits")
problems = []

def check(cond, what):
    if not cond:
        problems.append(what)

def consistent(who, side, s):
    check(s["waits"] <= s["acquisitions"],
          "%s %s: %d waits of %d acquisitions"
          % (who, side, s["waits"], s["acquisitions"]))
    check(sum(s["buckets"].values()) == s["waits"],
          "%s %s: buckets %r, %d waits" % (who, side, s["buckets"], s["waits"]))
    check(len(s["buckets"]) == 8, "%s %s: %d buckets" % (who, side, len(s["buckets"])))
    check(s["p50_ns"] <= s["p99_ns"] <= s["p999_ns"] <= s["max_ns"]
          <= s["total_ns"], "%s %s: percentiles out of order %r" % (who, side, s))
    if s["waits"] == 0:
        check(s["max_ns"] == 0 and s["total_ns"] == 0,
              "%s %s: times without waits %r" % (who, side, s))

if not isinstance(lw, dict) or not isinstance(lw.get("helpers"), dict):
    print("no lock_waits object with helpers: %r" % (lw,))
    sys.exit(1)
helpers = lw["helpers"]
calls = r["figures"]["writer_calls"]["value"]
check(lw["threads"] == 2 and helpers["threads"] == 2,
      "threads %d, helpers %d" % (lw["threads"], helpers["threads"]))
for who, g in (("workers", lw), ("helpers", helpers)):
    for side in ("read", "write"):
        consistent(who, side, g[side])
# Each counted writer call takes mmap_lock for writing (the mmap writer
# makes two a cycle); the calls are those of the phase, as the waits'.
check(helpers["write"]["acquisitions"] >= calls,
      "helpers: %d write acquisitions, %d calls"
      % (helpers["write"]["acquisitions"], calls))
check(lw["write"]["acquisitions"] < calls // 10 + 16,
      "workers: %d write acquisitions" % lw["write"]["acquisitions"])
for side in ("read", "write"):
    for k in ("acquisitions", "waits", "total_ns"):
        total = sum(w["lock_waits"][side][k] for w in r["workers"])
        check(total == lw[side][k], "workers' %s %s %d, the run's %d"
              % (side, k, total, lw[side][k]))
    for b in lw[side]["buckets"]:
        total = sum(w["lock_waits"][side]["buckets"][b] for w in r["workers"])
        check(total == lw[side]["buckets"][b], "%s bucket %s" % (side, b))
check(lw["lost"] == sum(w["lock_waits"]["lost"] for w in r["workers"]),
      "lost")
# The user faults one by one: the workers' add up to the run's, each
# faulted its pages (one user fault a page, within faults_agree's
# slack), those that took mmap_lock and their retries are among the
# read acquisitions, and the bounds are said lower where events were
# lost.
for k in ("faults", "faults_mmap_read", "retries"):
    total = sum(w["lock_waits"][k] for w in r["workers"])
    check(total == lw[k], "workers' %s %d, the run's %d" % (k, total, lw[k]))
check(lw["most_in_fault"] ==
      max(w["lock_waits"]["most_in_fault"] for w in r["workers"]),
      "most_in_fault %d" % lw["most_in_fault"])
for w in r["workers"]:
    f = w["lock_waits"]["faults"]
    check(abs(f - w["pages"]) <= w["pages"] // 100 + 64,
          "worker %d: %d user faults, %d pages" % (w["index"], f, w["pages"]))
for who, g in (("workers", lw), ("helpers", helpers)):
    check(g["faults_mmap_read"] <= g["faults"],
          "%s: %d of %d faults took mmap_lock"
          % (who, g["faults_mmap_read"], g["faults"]))
    check(g["faults_mmap_read"] + g["retries"] <= g["read"]["acquisitions"],
          "%s: %d faults took mmap_lock, %d retries, %d read acquisitions"
          % (who, g["faults_mmap_read"], g["retries"],
             g["read"]["acquisitions"]))
    check((g["most_in_fault"] == 0) == (g["faults_mmap_read"] == 0),
          "%s: most_in_fault %d" % (who, g["most_in_fault"]))
    check(g["lower_bounds"] == (g["lost"] > 0),
          "%s: lower_bounds %r, %d lost" % (who, g["lower_bounds"], g["lost"]))
if problems:
    print("\n".join(problems))
    sys.exit(1)
PY

# shellcheck disable=SC2086
"$PFT" $two -m 8M --duration=0.5 --writers=2,mmap --lock-waits --json \
	--per-worker >"$tmp/json.out" 2>"$tmp/json.err"
rc=$?
if [ "$rc" -eq 0 ] && [ ! -s "$tmp/json.err" ] &&
	python3 "$tmp/check.py" "$tmp/json.out" >"$tmp/check.out" 2>&1
then ok; else
	fail "--json: exit $rc: $(cat "$tmp/check.out" "$tmp/json.err")"
fi

# The text: eight lines after the result, four of the workers', four of
# the writers', each saying what it counts.
# shellcheck disable=SC2086
"$PFT" $two -m 8M --writers=2,mmap --lock-waits >"$tmp/text.out" \
	2>"$tmp/text.err"
rc=$?
check_result_line "$(sed -n 1p "$tmp/text.out")" 2 1 "--lock-waits"
if [ "$rc" -eq 0 ] &&
	[ "$(grep -c '^lock waits of 2 workers, mmap_lock \(read\|write\): [0-9]* acquisitions, [0-9]* waited: p50 ' "$tmp/text.out")" -eq 2 ] &&
	[ "$(grep -c '^lock waits of 2 helper threads (writers), mmap_lock \(read\|write\): ' "$tmp/text.out")" -eq 2 ] &&
	[ "$(grep -c '^lock waits of .*: [0-9]* events lost (ring buffer full), [0-9]* waits whose end was not seen$' "$tmp/text.out")" -eq 2 ] &&
	[ "$(grep -c "^lock waits of \(2 workers\|2 helper threads (writers)\), user faults: [0-9]* seen, [0-9]* took mmap_lock for reading, [0-9]* retries (read acquisitions beyond a fault's first, before its thread's next fault or system call), [0-9]* acquisitions at most in one fault" "$tmp/text.out")" -eq 2 ]
then ok; else
	fail "text: exit $rc: $(cat "$tmp/text.out" "$tmp/text.err")"
fi

# --latency beside it: the loop read in pieces times one touch in 10 of
# the 4096 pages as without --lock-waits, the count carried from piece
# to piece.
"$PFT" -t 1 -m 16M --latency=10 --lock-waits --json >"$tmp/lat.out" \
	2>"$tmp/lat.err"
count=$(python3 -c 'import json, sys
print(json.loads(open(sys.argv[1]).readline())["latency"]["count"])' \
	"$tmp/lat.out" 2>&1)
if [ "$count" = 410 ]; then ok; else
	fail "--latency=10: $count timed of 4096 pages: $(cat "$tmp/lat.err")"; fi

# --per-worker: each worker's line ends its lw_ columns.
# shellcheck disable=SC2086
"$PFT" $two -m 8M --lock-waits --per-worker >"$tmp/pw.out" 2>"$tmp/pw.err"
if [ "$(grep -c ' lw_read [0-9]* lw_read_waits [0-9]* lw_read_p99_us [0-9.]* lw_write [0-9]* lw_write_waits [0-9]* lw_write_p99_us [0-9.]* lw_lost [0-9]* lw_faults [0-9]* lw_faults_mmap_read [0-9]* lw_retries [0-9]* lw_most_in_fault [0-9]*$' "$tmp/pw.out")" -eq 2 ]
then ok; else fail "--per-worker: $(cat "$tmp/pw.out" "$tmp/pw.err")"; fi
finish
