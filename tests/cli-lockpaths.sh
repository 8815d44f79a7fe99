#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# cli-lockpaths.sh - pft --lock-paths as root, on a kernel with per-VMA
# locks (6.4 and later) and the exceptions and mmap_lock tracepoints:
# the counts of runs whose lock paths are known.  A shared VMA faulted
# by two threads: user faults about the pages (within faults_agree's
# slack), mmap_lock read acquisitions far fewer (the per-VMA lock took
# the faults); populated with MADV_POPULATE_WRITE: the GUP faults carry
# the pages, the user faults do not; with two mmap writers: the write
# acquisitions are the writers' (about their calls), not the workers';
# per-thread VMAs zapped by munmap: two write acquisitions a round, in
# the zaps' share.
# The sums of the --json workers are the run's; the text line follows
# the result line, which stays 0.12x's.  Counts only, never timings.
# (Without the privilege: cli-lockpaths-note.sh.)
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

have_python || skip "python3 is needed"
[ "$(id -u)" -eq 0 ] || skip "counting tracepoints needs root here"
[ -r /sys/kernel/tracing/events/exceptions/page_fault_user/id ] ||
	[ -r /sys/kernel/debug/tracing/events/exceptions/page_fault_user/id ] ||
	skip "no exceptions:page_fault_user tracepoint in a readable tracefs"
kver=$(uname -r | sed 's/^\([0-9]*\)\.\([0-9]*\).*/\1 \2/')
set -- $kver
[ "$1" -gt 6 ] || { [ "$1" -eq 6 ] && [ "$2" -ge 4 ]; } ||
	skip "Linux $1.$2 has no per-VMA locks (6.4)"

# Two workers, on one CPU too.
two="-t 2"
[ "$(nr_allowed)" -lt 2 ] && two="-t 2 --oversubscribe"

cat >"$tmp/check.py" <<'PY'
import json, sys

case = sys.argv[1]
r = json.loads(open(sys.argv[2]).readline())
res, lp = r["result"], r.get("lock_paths")
problems = []

def check(cond, what):
    if not cond:
        problems.append(what)

def slack(expected, workers):
    # faults_agree's: 1% plus 48 plus 16 a worker
    return expected // 100 + 48 + 16 * workers

if not isinstance(lp, dict):
    print("%s: no lock_paths object: %r" % (case, lp))
    sys.exit(1)
pages, workers = res["pages"], res["workers"]
s = slack(pages, workers)
# The workers' objects add up to the run's.
for k in ("user_faults", "kernel_faults", "mmap_read", "mmap_write",
          "mmap_read_trylock_failed", "zap_mmap_read", "zap_mmap_write"):
    total = sum(w["lock_paths"][k] for w in r["workers"])
    check(total == lp[k], "%s: workers' %s %d, the run's %d"
          % (case, k, total, lp[k]))
check(lp["threads"] == workers, "%s: threads %d" % (case, lp["threads"]))
if case == "shared":
    check(abs(lp["user_faults"] - pages) <= s,
          "shared: user_faults %d, pages %d" % (lp["user_faults"], pages))
    check(lp["mmap_read"] * 20 <= lp["user_faults"],
          "shared: mmap_read %d not far below user_faults %d"
          % (lp["mmap_read"], lp["user_faults"]))
    check(lp["gup_faults"] <= s, "shared: gup_faults %d" % lp["gup_faults"])
    check(lp["kernel_faults"] <= s,
          "shared: kernel_faults %d" % lp["kernel_faults"])
elif case == "populate":
    check(abs(lp["gup_faults"] - pages) <= s,
          "populate: gup_faults %d, pages %d" % (lp["gup_faults"], pages))
    check(lp["user_faults"] <= s,
          "populate: user_faults %d" % lp["user_faults"])
    # One read acquisition per call at least (a worker's one call).
    check(lp["mmap_read"] >= workers,
          "populate: mmap_read %d" % lp["mmap_read"])
elif case == "writers":
    h = lp.get("helpers", {})
    calls = r["figures"]["writer_calls"]["value"]
    check(h.get("threads") == 2, "writers: helpers %r" % h)
    # Each mmap call takes mmap_lock for writing; a call on either edge
    # of the measured phase may be on one side only.
    check(h.get("mmap_write", 0) >= calls // 2 and calls > 0,
          "writers: the writers' mmap_write %r, calls %d"
          % (h.get("mmap_write"), calls))
    check(lp["mmap_write"] * 100 <= h.get("mmap_write", 0),
          "writers: the workers' mmap_write %d, the writers' %r"
          % (lp["mmap_write"], h.get("mmap_write")))
    check(abs(lp["user_faults"] - pages) <= s,
          "writers: user_faults %d, pages %d" % (lp["user_faults"], pages))
elif case == "vma-writers":
    # A writer that write-locks the faulted VMA itself (MADV_DONTFORK
    # and back on a range inside it): some faults find it locked and
    # fall back to mmap_lock; the writers own-region mprotect never
    # locks the faulters VMA.
    own = json.loads(open(sys.argv[3]).readline())["lock_paths"]
    check(lp["fallbacks"] >= 1 and lp["fallbacks"] > own["fallbacks"],
          "vma-writers: %d fallbacks with madvise-vma, %d with own-region "
          "mprotect" % (lp["fallbacks"], own["fallbacks"]))
    check(abs(lp["user_faults"] - pages) <= s,
          "vma-writers: user_faults %d, pages %d" % (lp["user_faults"], pages))
elif case == "zaps":
    # Per-thread VMAs zapped by munmap and mmap again: two write
    # acquisitions a round, the zaps', read around each zap.
    want = 2 * res["rounds"]
    check(lp["zap_mmap_write"] == want,
          "zaps: zap_mmap_write %d, 2 a round: %d"
          % (lp["zap_mmap_write"], want))
    check(lp["mmap_write"] >= lp["zap_mmap_write"],
          "zaps: mmap_write %d below the zaps'" % lp["mmap_write"])
    check(abs(lp["user_faults"] - pages) <= s,
          "zaps: user_faults %d, pages %d" % (lp["user_faults"], pages))
print("\n".join(problems))
sys.exit(1 if problems else 0)
PY

one_case() {
	case=$1
	shift
	run_pft "$case" $two -m 16M --lock-paths --json "$@"
	if [ "$rc" -ne 0 ]; then
		fail "$case: exit $rc: $(cat "$tmp/$case.err")"
		return
	fi
	if [ -s "$tmp/$case.err" ]; then
		fail "$case: stderr: $(cat "$tmp/$case.err")"
	fi
	if out=$(python3 "$tmp/check.py" "$case" "$tmp/$case.out" 2>&1); then
		ok
	else
		fail "$out"
	fi
}

one_case shared
one_case populate --touch=populate
one_case writers --writers=2,mmap
one_case zaps -M --rounds=3 --zap=munmap

# A writer beside the faulters that write-locks their VMA: the faults
# that found it locked fell back, and the count shows it; a writer of a
# region of its own: none.  Both run at once only on two CPUs.
if [ "$(nr_allowed)" -ge 2 ]; then
	run_pft own $two -m 16M --duration=2 --lock-paths --json --writers=2,mprotect
	[ "$rc" -eq 0 ] || fail "own: exit $rc: $(cat "$tmp/own.err")"
	run_pft vma $two -m 16M --duration=2 --lock-paths --json --writers=2,madvise-vma
	if [ "$rc" -ne 0 ]; then
		fail "vma-writers: exit $rc: $(cat "$tmp/vma.err")"
	elif out=$(python3 "$tmp/check.py" vma-writers "$tmp/vma.out" "$tmp/own.out" 2>&1); then
		ok
	else
		fail "$out"
	fi
else
	echo "cli-lockpaths: the VMA writers case needs two CPUs"
fi

# The text: the result line first, 0.12x's, then the labelled line.
run_pft text $two -m 8M --lock-paths
if [ "$rc" -eq 0 ]; then
	check_result_line "$(sed -n 1p "$tmp/text.out")" 2 1 "--lock-paths"
	if grep -q '^lock paths of 2 workers: [0-9]* user faults, ' \
		"$tmp/text.out" && [ "$(count_results "$tmp/text.out")" -eq 1 ]
	then ok; else fail "text: $(cat "$tmp/text.out")"; fi
else
	fail "text: exit $rc: $(cat "$tmp/text.err")"
fi
# --per-worker: each worker's line ends with its columns.
run_pft perw $two -m 8M --lock-paths --per-worker
if [ "$rc" -eq 0 ] && [ "$(grep -c '^worker .* lp_user [0-9]* lp_kernel [0-9]* lp_gup [0-9]* lp_read [0-9]* lp_trylock_failed [0-9]* lp_write [0-9]* lp_fallbacks [0-9]* lp_zap_read [0-9]* lp_zap_write [0-9]*$' "$tmp/perw.out")" -eq 2 ]
then ok; else fail "--per-worker: exit $rc: $(cat "$tmp/perw.out")"; fi
finish
