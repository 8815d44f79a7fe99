#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli-latency.sh - pft --latency: the legacy line stays 0.12x's, byte for
# byte, and mmtests still finds one result per run; the percentiles and
# the scheduler's line follow it, with letters; --per-worker lines carry
# each worker's; counts are the touches timed.  (--json: cli-json.sh;
# bad values: cli-badargs.sh.)
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

ncpu=$(nr_allowed)
two=2
[ "$ncpu" -lt 2 ] && two=1

# "latency: p50 X us, ..., count N touches timed (1 in E, ...)"
count_of() {
	sed -n 's/^latency: .* count \([0-9]*\) .*/\1/p' "$1"
}

run_pft plain -t "$two" -m 8M --latency
pages=$((8 * 1024 * 1024 / $(getconf PAGESIZE)))
if [ "$rc" -ne 0 ]; then
	fail "--latency: exit $rc: $(cat "$tmp/plain.err")"
else
	check_result_line "$(sed -n 1p "$tmp/plain.out")" "$two" 1 "--latency"
	if [ "$(count_results "$tmp/plain.out")" -eq 1 ]; then
		ok
	else
		fail "--latency: not one result line: $(cat "$tmp/plain.out")"
	fi
	case $(sed -n 2p "$tmp/plain.out") in
	"latency: p50 "*" us, p90 "*" us, p99 "*" us, p99.9 "*" us, max "*" us, count $pages touches timed (1 in 1, monotonic clock)")
		ok ;;
	*) fail "--latency: second line: $(sed -n 2p "$tmp/plain.out")" ;;
	esac
	case $(sed -n 3p "$tmp/plain.out") in
	"sched: "*" preemptions, "*" voluntary switches, run-queue wait "*"; "*" values above p99: "*"within the scheduler's delays")
		ok ;;
	*) fail "--latency: third line: $(sed -n 3p "$tmp/plain.out")" ;;
	esac
	if [ "$(wc -l <"$tmp/plain.out")" -eq 3 ]; then
		ok
	else
		fail "--latency: $(wc -l <"$tmp/plain.out") lines"
	fi
fi

# One in 3 of each slice: ceil(slice pages / 3) per worker.
run_pft third -t 1 -m 8M --latency=3
if [ "$rc" -eq 0 ] &&
	[ "$(count_of "$tmp/third.out")" = $(((pages + 2) / 3)) ]; then
	ok
else
	fail "--latency=3: $(cat "$tmp/third.out" "$tmp/third.err")"
fi

# Without --latency, nothing but the result line.
run_pft off -t 1 -m 4M
if [ "$rc" -eq 0 ] && [ "$(wc -l <"$tmp/off.out")" -eq 1 ]; then
	ok
else
	fail "without --latency: $(cat "$tmp/off.out")"
fi

# --per-worker: each worker's line ends with its latency; their counts
# add up to the total.
run_pft workers -t "$two" -m 8M --latency --per-worker
n=$(grep -c '^worker [0-9]* .* lat_p50 [0-9.]*us .* lat_count [0-9]* lat_timed touches preempt [0-9]* .*tail_sched \(yes\|no\)$' "$tmp/workers.out")
if [ "$rc" -eq 0 ] && [ "$n" -eq "$two" ]; then
	ok
else
	fail "--latency --per-worker: $n worker lines with latency: $(cat "$tmp/workers.out")"
fi
sum=0
for c in $(sed -n 's/.* lat_count \([0-9]*\) .*/\1/p' "$tmp/workers.out"); do
	sum=$((sum + c))
done
if [ "$sum" = "$(count_of "$tmp/workers.out")" ]; then
	ok
else
	fail "--per-worker: workers' counts $sum, total $(count_of "$tmp/workers.out")"
fi

# An interleaved layout: every page's touch timed, each worker's over its
# blocks; the workers' counts add up to the pages.
run_pft interleave -t "$two" -m 8M --thp=never --interleave-pages=3 \
	--latency --per-worker
sum=0
for c in $(sed -n 's/.* lat_count \([0-9]*\) .*/\1/p' "$tmp/interleave.out"); do
	sum=$((sum + c))
done
if [ "$rc" -eq 0 ] && [ "$(count_of "$tmp/interleave.out")" = "$pages" ] &&
	[ "$sum" = "$pages" ] &&
	grep -q "count $pages touches timed (1 in 1, monotonic" "$tmp/interleave.out"; then
	ok
else
	fail "--interleave-pages=3 --latency: $(cat "$tmp/interleave.out" "$tmp/interleave.err")"
fi

# populate: one value per 2 MiB call (2, 2 and 1 MiB), and the line says
# so.  A kernel without MADV_POPULATE_WRITE fails the run: not this test's.
run_pft populate -t 1 -m 5M --latency --touch=populate
if grep -q 'count 3 calls timed (1 in 1; each value one MADV_POPULATE_WRITE call over up to 2 MiB, not one fault' "$tmp/populate.out"; then
	ok
elif [ "$rc" -eq 1 ]; then
	ok
else
	fail "--touch=populate --latency: $(cat "$tmp/populate.out" "$tmp/populate.err")"
fi

# cow-fork: every write of every round timed, each a copy-on-write fault.
run_pft cow -t "$two" --oversubscribe -m 8M --pattern=cow-fork --rounds=2 --latency
if [ "$rc" -eq 0 ] && [ "$(count_of "$tmp/cow.out")" = $((pages * 2)) ] &&
	grep -q '^figures: .*forks 2 forks' "$tmp/cow.out"; then
	ok
else
	fail "cow-fork --rounds=2 --latency: $(cat "$tmp/cow.out" "$tmp/cow.err")"
fi

# qemu-prealloc: QEMU's one populate call per thread is one value (8 MiB:
# one thread, the caller); its touch times pages.
run_pft qemu --pattern=qemu-prealloc -t "$two" -m 8M --latency
if [ "$rc" -eq 0 ] &&
	grep -q 'count 1 calls timed (1 in 1; each value one MADV_POPULATE_WRITE call over up to 8 MiB' "$tmp/qemu.out"; then
	ok
else
	fail "--pattern=qemu-prealloc --latency: $(cat "$tmp/qemu.out" "$tmp/qemu.err")"
fi
run_pft qemutouch --pattern=qemu-prealloc -t "$two" -m 8M --qemu=touch --latency
if [ "$rc" -eq 0 ] && [ "$(count_of "$tmp/qemutouch.out")" = "$pages" ] &&
	grep -q "count $pages touches timed" "$tmp/qemutouch.out"; then
	ok
else
	fail "--qemu=touch --latency: $(cat "$tmp/qemutouch.out" "$tmp/qemutouch.err")"
fi

# pretouch: the JVM's page loop is timed page by page; its populate per
# chunk of 1 MiB is timed per call (8 of them), and says so.
run_pft pretouch --pattern=pretouch -t "$two" -m 8M --latency
if [ "$rc" -eq 0 ] && [ "$(count_of "$tmp/pretouch.out")" = "$pages" ] &&
	grep -q "count $pages touches timed (1 in 1, monotonic" "$tmp/pretouch.out"; then
	ok
else
	fail "--pattern=pretouch --latency: $(cat "$tmp/pretouch.out" "$tmp/pretouch.err")"
fi
run_pft ptpop --pattern=pretouch --pretouch=populate --chunk-size=1M \
	-t "$two" -m 8M --latency --per-worker
if grep -q 'count 8 calls timed (1 in 1; each value one MADV_POPULATE_WRITE call over up to 2 MiB, not one fault' "$tmp/ptpop.out" &&
	[ "$(grep -c ' lat_timed MADV_POPULATE_WRITE ' "$tmp/ptpop.out")" -ge 1 ]; then
	ok
else
	fail "--pretouch=populate --latency: $(cat "$tmp/ptpop.out" "$tmp/ptpop.err")"
fi

# ro-collapse: one value per MADV_COLLAPSE call, one per 2 MiB range (4
# here), whatever the kernel answers; each worker's line says so.  Not
# checked (said on stderr) without 4 KiB pages and THP.
if [ "$(getconf PAGESIZE)" -ne 4096 ] ||
	[ ! -e /sys/kernel/mm/transparent_hugepage/hpage_pmd_size ]; then
	echo "$test_name: note: ro-collapse --latency not checked: no 2 MiB THP" >&2
else
	run_pft collapse --pattern=ro-collapse -t "$two" -m 8M --latency \
		--per-worker
	if [ "$rc" -eq 0 ] &&
		grep -q 'count 4 calls timed (1 in 1; each value one MADV_COLLAPSE call over up to 2 MiB, not one fault' "$tmp/collapse.out" &&
		[ "$(grep -c ' lat_timed MADV_COLLAPSE ' "$tmp/collapse.out")" -eq "$two" ]; then
		ok
	else
		fail "--pattern=ro-collapse --latency: $(cat "$tmp/collapse.out" "$tmp/collapse.err")"
	fi
	# --json: the "latency" object beside "collapse" says per call.
	run_pft collapsejson --pattern=ro-collapse -t "$two" -m 8M --latency --json
	if [ "$rc" -eq 0 ] && python3 -c '
import json, sys
d = json.loads(open(sys.argv[1]).readline())
l = d["latency"]
assert l["per_call"] is True and l["timed"] == "calls", l
assert l["call"] == "MADV_COLLAPSE" and l["call_bytes"] == 2 << 20, l
assert l["count"] == 4 == sum(b[2] for b in l["buckets"]), l
' "$tmp/collapsejson.out" >"$tmp/collapsejson.check" 2>&1; then
		ok
	else
		fail "ro-collapse --latency --json: $(cat "$tmp/collapsejson.check" "$tmp/collapsejson.err")"
	fi
fi

finish
