#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# cli-survey-lockpaths.sh - pft-survey's lock paths as root: a survey of
# pft with a mapping writer beside two workers (pft -t 2 -m 8M
# --writers=1,mmap) reports write acquisitions of mmap_lock for the
# writer thread and none for the worker that is not pft's main thread
# (the main one, a worker too, maps the region and starts the threads:
# fewer than the writer), the workers' user faults beside them, and an
# object with the shared VMA's faults.  With -c 4 the lock paths are not recorded
# and the report says why in one line.  SKIP unprivileged, without
# perf, or without the exceptions or mmap_lock tracepoints.
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

need_survey
[ "$(id -u)" -eq 0 ] || skip "the mmap_lock tracepoints need root here"
for ev in exceptions/page_fault_user mmap_lock/mmap_lock_start_locking \
	mmap_lock/mmap_lock_acquire_returned; do
	[ -r "/sys/kernel/tracing/events/$ev/id" ] ||
		[ -r "/sys/kernel/debug/tracing/events/$ev/id" ] ||
		skip "no $ev tracepoint in a readable tracefs"
done

# shellcheck disable=SC2086
"$survey" --json -- "$PFT" -t 2 -m 8M --writers=1,mmap $thp $over \
	>"$tmp/w.json" 2>"$tmp/w.err"
rc=$?
[ "$rc" -eq 0 ] || fail "survey exited $rc: $(tail -n 3 "$tmp/w.err")"

cat >"$tmp/check.py" <<'PY'
import json, sys

d = json.load(open(sys.argv[1]))
lp = d.get("lock_paths") or {}
problems = []

def check(cond, what):
    if not cond:
        problems.append(what)

check(lp.get("recorded") is True, "lock paths not recorded: %r" % lp)
threads = lp.get("threads") or []
# The workers: the threads that faulted the shared 8 MiB VMA, each about
# half its 2048 pages.
big = max(d["vmas"], key=lambda v: v["faults"]) if d["vmas"] else None
check(big and big["size"] == 8 << 20, "no 8 MiB VMA: %r" % big)
workers = {t["tid"] for t in (big or {}).get("top_threads", [])
           if t["faults"] >= 900}
check(len(workers) == 2, "workers (>= 900 faults of the VMA): %r" %
      (big or {}).get("top_threads"))
rows = {t["tid"]: t for t in threads}
pid = big["pid"] if big else None
for w in workers:
    t = rows.get(w)
    check(t is not None, "worker %d not among the lock paths' threads" % w)
    # pft's main thread is a worker too, and maps the region, starts the
    # threads and stops them under mmap_lock before and after: a worker
    # thread of its own takes it for writing never.
    if t and w != pid:
        check(t["write"] == 0, "worker %d: %d write acquisitions" %
              (w, t["write"]))
        check(t["user_faults"] >= 900, "worker %d: %d user faults" %
              (w, t["user_faults"]))
        check(t["fallbacks"] <= t["read"], "worker %d: %d fallbacks, %d "
              "reads" % (w, t["fallbacks"], t["read"]))
writers = [t for t in threads if t["pid"] == pid and t["tid"] != pid
           and t["tid"] not in workers and t["write"] >= 2]
check(len(writers) == 1, "not one writer thread with write acquisitions "
      "in pft's process: %r" % threads)
main = rows.get(pid, {"write": 0})
check(not writers or writers[0]["write"] > main["write"], "the writer's %d "
      "write acquisitions not above the main thread's %d" %
      (writers[0]["write"] if writers else 0, main["write"]))
objs = [o for o in lp.get("objects") or [] if o["user_faults"] >= 2048]
check(objs, "no object with the shared VMA's 2048 user faults: %r" %
      lp.get("objects"))
for x in problems:
    print(x)
sys.exit(1 if problems else 0)
PY
if python3 "$tmp/check.py" "$tmp/w.json" >"$tmp/check.out" 2>&1; then
	ok
else
	fail "$(cat "$tmp/check.out")"
fi

# Sampled: not recorded, and the text report says why.
# shellcheck disable=SC2086
"$survey" -c 4 -- "$PFT" -t 2 -m 8M $thp $over >"$tmp/c.out" 2>"$tmp/c.err"
rc=$?
n=$(grep -c "lock paths" "$tmp/c.out")
if [ "$rc" -ne 0 ] || [ "$n" -ne 1 ] ||
	! grep -q "^  lock paths not recorded: -c 4 samples the events" \
		"$tmp/c.out"; then
	fail "-c 4: exit $rc, $n lines of lock paths: $(grep "lock paths" "$tmp/c.out")"
else
	ok
fi
finish
