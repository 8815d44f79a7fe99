#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# cli-sweep-lockpaths.sh - pft-sweep --lock-paths as root: a tiny sweep
# of the shared VMA whose points CSV, runs CSV and JSON carry the user
# faults, mmap_lock reads and fallbacks of every run as counts (numbers,
# the medians of the runs), and on a kernel with per-VMA locks (6.4 and
# later) far fewer fallbacks than user faults.  --metric=fallbacks
# without --lock-paths is a usage error.  (Where pft prints its "lock
# paths not counted" note the sweep's own note is what the unit tests
# check: this one SKIPs.)
#
# --lock-waits and --metric=wait-p99: the read-wait p99 of each run and
# its medians (and the usage error of the metric without the option).
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

have_python || skip "python3 is needed (pft-sweep is a Python 3 script)"
sweep=$top_builddir/pft/pft-sweep

# Each metric without its option: a usage error.
for pair in fallbacks:lock-paths wait-p99:lock-waits; do
	metric=${pair%%:*}
	opt=${pair#*:}
	"$sweep" --pft="$PFT" --metric="$metric" -w 1 >"$tmp/bad.out" \
		2>"$tmp/bad.err"
	rc=$?
	if [ "$rc" -ne 2 ] || [ -s "$tmp/bad.out" ] ||
		! grep -q "^pft-sweep: --metric=$metric needs --$opt\$" \
			"$tmp/bad.err"; then
		fail "--metric=$metric without --$opt: exit $rc, $(cat "$tmp/bad.err")"
	else
		ok
	fi
done

[ "$(id -u)" -eq 0 ] || skip "counting tracepoints needs root here"
two="-w 1,2"
[ "$(nr_allowed)" -lt 2 ] && two="-w 1"

# shellcheck disable=SC2086
"$sweep" --pft="$PFT" --lock-paths $two -p shared-vma -m 4M --rounds=2 \
	-r 2 --no-plot -q -o "$tmp/lp" >"$tmp/lp.out" 2>"$tmp/lp.err"
rc=$?
if grep -q "lock-path columns stay empty" "$tmp/lp.err"; then
	skip "pft counts no lock paths here: $(cat "$tmp/lp.err")"
fi
[ "$rc" -eq 0 ] || fail "the sweep exited $rc: $(cat "$tmp/lp.err")"

kver=$(uname -r | sed 's/^\([0-9]*\)\.\([0-9]*\).*/\1 \2/')
# shellcheck disable=SC2086
set -- $kver
per_vma=0
{ [ "$1" -gt 6 ] || { [ "$1" -eq 6 ] && [ "$2" -ge 4 ]; }; } && per_vma=1

cat >"$tmp/check.py" <<'PY'
import csv, json, sys

prefix, per_vma = sys.argv[1], sys.argv[2] == "1"
problems = []

def check(cond, what):
    if not cond:
        problems.append(what)

def count(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None

points = list(csv.DictReader(open(prefix + ".csv")))
runs = list(csv.DictReader(open(prefix + "-runs.csv")))
doc = json.load(open(prefix + ".json"))
check(points and runs, "no rows")
for r in runs:
    user, read, fb = (count(r[k]) for k in ("lp_user_faults",
                                            "lp_mmap_read", "lp_fallbacks"))
    check(None not in (user, read, fb), "run row not counted: %r" % r)
    if None in (user, read, fb):
        continue
    # 4M in 2 rounds: 2048 pages faulted in the measured rounds.
    check(user >= 2048, "%s workers: %g user faults, 2048 pages faulted"
          % (r["workers"], user))
    check(fb <= read, "more fallbacks (%g) than mmap_lock reads (%g)"
          % (fb, read))
    per = count(r["lp_fallbacks_per_fault"])
    check(per is not None and abs(per - fb / user) <= 1e-6,
          "fallbacks per fault %r, not %g / %g" % (r["lp_fallbacks_per_fault"],
                                                  fb, user))
    if per_vma:
        check(fb * 10 < user, "%g fallbacks of %g user faults on a kernel "
              "with per-VMA locks" % (fb, user))
for p in points:
    for k in ("lp_user_faults_median", "lp_mmap_read_median",
              "lp_fallbacks_median", "lp_fallbacks_per_fault_median"):
        check(count(p[k]) is not None, "point %s: %s %r" % (p["workers"], k,
                                                            p[k]))
check(doc["config"]["lock_paths"] is True, "config.lock_paths not true")
for p in doc["points"]:
    for r in p["runs"]:
        check(isinstance(r.get("lp_fallbacks"), int), "JSON run without "
              "lp_fallbacks: %r" % r.get("lp_fallbacks"))
for x in problems:
    print(x)
sys.exit(1 if problems else 0)
PY
if python3 "$tmp/check.py" "$tmp/lp" "$per_vma" >"$tmp/check.out" 2>&1; then
	ok
else
	fail "$(cat "$tmp/check.out")"
fi
# The table: the three columns, numbers in every row.
if ! grep -q "user faults  mmap read  fallbacks$" "$tmp/lp.out" ||
	grep -q " -$" "$tmp/lp.out"; then
	fail "table: $(cat "$tmp/lp.out")"
else
	ok
fi

# --lock-waits with its metric: each run's read-wait p99 (0 where no read
# waited), the points' medians of it, which are the metric.
"$sweep" --pft="$PFT" --lock-waits --metric=wait-p99 -w 1 -p shared-vma \
	-m 4M --rounds=2 -r 2 --no-plot -q -o "$tmp/lw" >"$tmp/lw.out" \
	2>"$tmp/lw.err"
rc=$?
if [ "$rc" -eq 0 ] && python3 - "$tmp/lw" >"$tmp/lwcheck.out" 2>&1 <<'PY'
import csv, sys
prefix = sys.argv[1]
runs = list(csv.DictReader(open(prefix + "-runs.csv")))
points = list(csv.DictReader(open(prefix + ".csv")))
assert len(runs) == 2 and len(points) == 1, (runs, points)
vals = sorted(float(r["lw_read_p99_ns"]) for r in runs)
assert all(v >= 0 for v in vals), vals
p = points[0]
assert p["metric"] == "wait-p99", p["metric"]
assert float(p["median"]) == float(p["lw_read_p99_ns_median"]) == \
    sum(vals) / 2, (p, vals)
PY
then ok; else
	fail "--lock-waits: exit $rc: $(cat "$tmp/lw.err" "$tmp/lwcheck.out")"
fi
finish
