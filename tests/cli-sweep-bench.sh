#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli-sweep-bench.sh - the benchmarks of tests/bench (run by hand to
# measure) still run, pft-sweep's sweep-trust.sh among them: with QUICK=1
# (tiny sizes, short runs) each prints its table, a number in every
# measured row and a verdict for every target, and exits 0 or 3 (a target
# missed: on tiny runs that is noise, not a failure).  Nothing here
# asserts a figure.
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

have_python || skip "python3 is needed"
bench=$top_srcdir/tests/bench
ncpu=$(nr_allowed)
threads=2
[ "$ncpu" -lt 2 ] && threads=1

# precision.sh: a row per target batch (and its control's), then one per
# case (3 cases per size: default, naive, one-shot) and a pages / elapsed
# row per duration row.
QUICK=1 CONTROL=1 THREADS=$threads PFT=$PFT "$bench/precision.sh" \
	>"$tmp/p.out" 2>"$tmp/p.err"
rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
	fail "precision.sh exited $rc: $(tail -n 3 "$tmp/p.err")"
else
	ok
	n=$(grep -c "^-t $threads -m [0-9]*M" "$tmp/p.out")
	r=$(grep -c '^  (pages / elapsed of each run) ' "$tmp/p.out")
	bad=$(grep -e "^-t $threads" -e '^  (pages' -e '^batch [0-9]* (' \
		"$tmp/p.out" |
		sed 's/.*)//; s/^-t [^ ]* -m [^ ]*\( --[a-z]*=[0-9.]*\)*//' |
		awk '!($1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ &&
		       $4 ~ /^[0-9]+\.[0-9]+$/)')
	[ -z "$bad" ] || fail "precision.sh rows without figures: $bad"
	# Each case once per size; duration rows have a pages / elapsed row,
	# and so has the batch.
	cases=$(grep -c '^-t' "$tmp/p.out")
	if [ "$cases" -ne 6 ] || [ "$r" -ne 5 ] || [ "$n" -ne "$cases" ]; then
		fail "precision.sh: $cases cases, $r pages / elapsed rows"
	fi
	grep -q '^batch 1 (fault/wsec) .* <= 1.08 \(met\|MISSED\)$' \
		"$tmp/p.out" || fail "precision.sh gives no verdict for its target"
	grep -q '^target met in [01] of 1 batches$' "$tmp/p.out" ||
		fail "precision.sh does not count the batches that met the target"
	grep -q "load average before [0-9.]* [0-9.]* [0-9.]*, after" \
		"$tmp/p.out" || fail "precision.sh does not report the load"
	grep -Eq '^  \(control: compute loop iterations/s\) +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+\.[0-9]+$' \
		"$tmp/p.out" || fail "precision.sh: no control row with CONTROL=1"
	grep -Eq '^control: fault/wsec against the control rate before it, r = -?[0-9]\.[0-9]+ over 3 invocations$' \
		"$tmp/p.out" || fail "precision.sh: no correlation with CONTROL=1"
fi

# limit.sh: its rows, each with a number or a reason to skip.
PRETOUCH=$EXAMPLES/pretouch QUICK=1 PFT=$PFT "$bench/limit.sh" \
	>"$tmp/l.out" 2>"$tmp/l.err"
rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
	fail "limit.sh exited $rc: $(tail -n 3 "$tmp/l.err")"
else
	ok
	for label in "1 worker(s): touch / populate, fault-only" \
		"1 worker(s): CPU outside / in the loop, %" \
		"memset 16M, 1 thread (pft -z -t 1), pages/s"; do
		grep -q "^$label  *[0-9][0-9.]*\( \|$\)" "$tmp/l.out" ||
			fail "limit.sh: no figure for '$label'"
	done
	if [ "$ncpu" -ge 2 ]; then
		grep -q "^start skew, 2 workers, us  *[0-9.]*  < 100 \(met\|MISSED\)" \
			"$tmp/l.out" || fail "limit.sh: no start skew"
		grep -q "^2 worker(s): touch / populate, fault-only  *[0-9.]*  (report)" \
			"$tmp/l.out" || fail "limit.sh: no 2-worker populate ratio"
	fi
	[ -x "$EXAMPLES/pretouch" ] &&
		! grep -q "^pretouch 16M fast, [0-9]* worker(s), pages/s  *[0-9]" \
			"$tmp/l.out" && fail "limit.sh: no pretouch figure"
	verdicts=$(grep -c '\(met\|MISSED\)' "$tmp/l.out")
	[ "$verdicts" -ge 2 ] || fail "limit.sh: $verdicts verdicts"
	if [ "$rc" -eq 3 ] && ! grep -q MISSED "$tmp/l.out"; then
		fail "limit.sh exited 3 with no target missed"
	fi
fi

# sweep-trust.sh: an A/A pair with --no-interleave and one without, the
# known differences both ways, the seed-style table, each row with its
# figures and a verdict per target.
workers=1
[ "$threads" -eq 2 ] && workers=1,2
QUICK=1 WORKERS=$workers AA_SETS='--no-interleave; ' PFT=$PFT SWEEP=$top_builddir/pft/pft-sweep \
	"$bench/sweep-trust.sh" >"$tmp/t.out" 2>"$tmp/t.err"
rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
	fail "sweep-trust.sh exited $rc: $(tail -n 3 "$tmp/t.err")"
else
	ok
	cells=$((4 * threads))
	for set in " \\(--no-interleave\\)" ""; do
		grep -Eq "^A/A pair 1$set +$cells cells, [0-9]+ \(I\), [0-9]+ \(R\)$" "$tmp/t.out" ||
			fail "sweep-trust.sh: no A/A pair row '$set'"
		grep -Eq "^A/A: cells marked$set +[0-9]+ of $cells cells \([0-9.]+%\), expected [0-9.]+; <= [0-9]+ (met|MISSED)$" \
			"$tmp/t.out" || fail "sweep-trust.sh: no A/A verdict '$set'"
	done
	n=$(grep -Ec "^--(thp|touch|cachelines)=[a-z0-9]+ against --(thp|touch|cachelines)=[a-z0-9]+ +$threads cells, [0-9]+ \([IR]\), [0-9]+ the wrong way; (all (met|MISSED)|\(report\))$" \
		"$tmp/t.out")
	[ "$n" -eq 6 ] || fail "sweep-trust.sh: $n known-difference rows of 6"
	grep -Eq '^seed-style table, -m 4M +[0-9]+ s for [0-9]+ points \(dry-run estimate [0-9:]+\)$' \
		"$tmp/t.out" || fail "sweep-trust.sh: no table time"
	if [ "$rc" -eq 3 ] && ! grep -q MISSED "$tmp/t.out"; then
		fail "sweep-trust.sh exited 3 with no target missed"
	fi
fi

finish
