#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli-legacy.sh - pft's result, title and TAG lines keep pft 0.12x's
# formats byte for byte, and a harness that merges stderr and parses as
# mmtests did reads exactly one result per run, for every kind of memory,
# touch and worker.
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

have_python || skip "python3 is needed"
ncpu=$(nr_allowed)
two=2
[ "$ncpu" -lt 2 ] && two=1

# "case NAME WORKERS CACHELINES ARGS...": one run, its result line and the
# merged output.
run_case() {
	cname=$1
	workers=$2
	lines=$3
	shift 3
	run_pft "$cname" "$@"
	if [ "$rc" -ne 0 ]; then
		fail "$cname: pft $* exited $rc: $(head -n 2 "$tmp/$cname.err")"
		return
	fi
	if [ "$(wc -l <"$tmp/$cname.out")" -ne 1 ]; then
		fail "$cname: pft $* printed $(wc -l <"$tmp/$cname.out") lines on stdout"
		return
	fi
	check_result_line "$(cat "$tmp/$cname.out")" "$workers" "$lines" \
		"$cname (pft $*)"
	check_lines_have_letters "$tmp/$cname.err" "$cname stderr"
	cat "$tmp/$cname.out" "$tmp/$cname.err" >"$tmp/$cname.merged"
	n=$(count_results "$tmp/$cname.merged")
	[ "$n" -eq 1 ] && ok ||
		fail "$cname: merged output holds $n result lines, not 1"
}

# Locked memory beyond RLIMIT_MEMLOCK fails for an unprivileged user: that
# is a runtime error (1) with a message, never a result.
run_lock_case() {
	cname=$1
	shift
	run_pft "$cname.probe" "$@"
	if [ "$rc" -eq 1 ] && [ "$(id -u)" -ne 0 ] &&
		grep -q 'cannot lock' "$tmp/$cname.probe.err"; then
		echo "$test_name: $cname: not allowed to lock memory here" >&2
		ok
		return
	fi
	run_case "$cname" "$two" 1 "$@"
}

run_case default 1 1
grep -qx 'Using 1 thread' "$tmp/default.err" && ok ||
	fail "default: no 'Using 1 thread' on stderr"
run_case threads "$two" 1 -t "$two" -m 16M
run_case processes "$two" 1 -n "$two" -m 16M
run_case sysv "$two" 1 -S -t "$two" -m 16M
run_case devzero "$two" 1 -Z -t "$two" -m 16M
run_case memset "$two" 1 -z -t "$two" -m 16M
run_case cachelines "$two" 8 -c 8 -t "$two" -m 16M
run_case local "$two" 1 -p -t "$two" -m 16M
run_case sysv-procs "$two" 1 -S -n "$two" -m 16M
run_case per-thread "$two" 1 -M -t "$two" -m 16M
run_case duration "$two" 1 -t "$two" -m 8M --duration=0.2
run_case rounds "$two" 1 -n "$two" -m 8M --rounds=3 --warmup=1
# Seconds in exponent form are seconds: 1e-9 is taken as 0.000000001 is
# (the previous parser said "not a number of seconds").
run_case duration-exp "$two" 1 -t "$two" -m 8M --duration=1e-9
run_case long-opts "$two" 2 --threads="$two" --size=16M --cachelines=2
run_lock_case mlock -l -t "$two" -m 4M
run_lock_case shmlock -L -t "$two" -m 4M

# The JVM's pretouch: as many workers as HotSpot's ParallelGCThreads for
# the allowed CPUs (as many as CPUs, up to 8), or -t, never clipped.
run_case pretouch "$ncpu" 1 --pattern=pretouch -m 64M
run_case pretouch-t3 3 1 --pattern=pretouch -t 3 -m 64M
run_case pretouch-g1 "$ncpu" 1 --pattern=pretouch --gc=g1 --jdk=25 -m 64M
for how in store atomic-add populate fast fast-huge; do
	run_case "pretouch-$how" 2 1 --pattern=pretouch --pretouch=$how \
		--chunk-size=1M -t 2 -m 16M
done
if grep -q 'Using 1 thread' "$tmp/pretouch.err"; then
	fail "--pattern=pretouch: says 'Using 1 thread'"
fi

# One page per worker, the smallest run: rates stay numbers.
run_case tiny "$two" 1 -t "$two" -m 1

# The Gb column: (bytes + pagesize * workers) / 2^30 of the run's bytes
# (whole slices); 16 MiB is 0.
set -- $(cat "$tmp/threads.out")
[ "$1" = 0 ] && ok || fail "threads: Gb column $1 for 16 MiB"

# -T: the title line exactly, and the TAG line with a tag.
title='  Gb  Thr CLine   User     System     Wall    flt/cpu/s fault/wsec'
run_pft title -T -t 1 -m 4M
[ "$(sed -n 1p "$tmp/title.out")" = "$title" ] && ok ||
	fail "-T: title line is '$(sed -n 1p "$tmp/title.out")'"
[ "$(wc -l <"$tmp/title.out")" -eq 2 ] && ok ||
	fail "-T without a tag: $(wc -l <"$tmp/title.out") lines, not 2"
check_result_line "$(sed -n 2p "$tmp/title.out")" 1 1 "-T"

check_tag() {
	expect=$1
	shift
	run_pft tag -T "$@"
	got=$(sed -n 1p "$tmp/tag.out")
	[ "$got" = "$expect" ] && ok || fail "pft -T $*: TAG line '$got', expected '$expect'"
	[ "$(sed -n 2p "$tmp/tag.out")" = "$title" ] && ok ||
		fail "pft -T $*: no title after the TAG line"
}
check_tag 'TAG pft:anon-sys-default:mytag' -m 4M mytag
check_tag 'TAG pft:anon-vma-policy:x' -p -m 4M x
check_tag 'TAG pft:shmem-sys-default:seg' -S -m 4M seg
check_tag 'TAG pft:shmem-vma-policy-shm_locked:lk' -L -p -m 4M lk
check_tag 'TAG pft:anon-sys-default-mlocked:ml' -l -m 4M ml
check_tag 'TAG pft:anon-sys-default:dz' -Z -m 4M dz

# More workers than allowed CPUs: clipped with 0.12x's message.
run_pft clip -t $((ncpu + 1)) -m 8M
grep -qx "clipping nr_tests to nr_cpus_allowed \[$ncpu\]" "$tmp/clip.err" && ok ||
	fail "no clipping message: $(cat "$tmp/clip.err")"
check_result_line "$(cat "$tmp/clip.out")" "$ncpu" 1 "clipped -t $((ncpu + 1))"

# -F as lkp-tests passes it ("pft -m SIZE -n N -F"): accepted with no
# effect, as in 0.12x, whose -F case was compiled out: still clipped, with
# 0.12x's message, in thread and in process mode.
for kind in -t -n; do
	run_pft "clip-F$kind" "$kind" $((ncpu + 1)) -F -m 8M
	[ "$rc" -eq 0 ] || fail "-F $kind $((ncpu + 1)): exit $rc: $(cat "$tmp/clip-F$kind.err")"
	grep -qx "clipping nr_tests to nr_cpus_allowed \[$ncpu\]" "$tmp/clip-F$kind.err" && ok ||
		fail "-F $kind $((ncpu + 1)): not clipped: $(cat "$tmp/clip-F$kind.err")"
	check_result_line "$(cat "$tmp/clip-F$kind.out")" "$ncpu" 1 "-F $kind $((ncpu + 1))"
done

# --oversubscribe really runs more workers than CPUs.
run_case oversubscribe $((ncpu * 4)) 1 --oversubscribe -t $((ncpu * 4)) -m 16M
run_case oversubscribe-procs $((ncpu + 1)) 1 --oversubscribe -n $((ncpu + 1)) -m 16M

# Numbers in the C locale whatever the environment says.
for loc in de_DE.UTF-8 fr_FR.UTF-8 C.UTF-8; do
	env LC_ALL="$loc" LANG="$loc" LC_NUMERIC="$loc" "$PFT" -t 1 -m 4M \
		>"$tmp/locale.out" 2>"$tmp/locale.err"
	case $(cat "$tmp/locale.out") in
	*,[0-9][0-9]s*) fail "LC_ALL=$loc: decimal comma in '$(cat "$tmp/locale.out")'" ;;
	*) ok ;;
	esac
	check_result_line "$(cat "$tmp/locale.out")" 1 1 "LC_ALL=$loc"
done

# --repeat: one result line per run; the summary has letters.
run_pft repeat --repeat=3 -t 1 -m 4M
cat "$tmp/repeat.out" "$tmp/repeat.err" >"$tmp/repeat.merged"
[ "$(count_results "$tmp/repeat.merged")" -eq 3 ] && ok ||
	fail "--repeat=3: $(count_results "$tmp/repeat.merged") results, not 3"
grep -q '^summary of 3 runs, fault/wsec: min [0-9.]* median [0-9.]* max [0-9.]* spread [0-9.]*%$' \
	"$tmp/repeat.out" && ok || fail "--repeat=3: no summary line"

# --per-worker: a line per worker, every one with letters.
run_pft perworker --per-worker -t "$two" -m 8M
check_result_line "$(sed -n 1p "$tmp/perworker.out")" "$two" 1 "--per-worker"
[ "$(grep -c '^worker [0-9]* cpu -\{0,1\}[0-9]* last_cpu [0-9]* pid ' "$tmp/perworker.out")" -eq "$two" ] &&
	ok || fail "--per-worker: not one line per worker"
[ "$(count_results "$tmp/perworker.out")" -eq 1 ] && ok ||
	fail "--per-worker: the worker lines read as results"

finish
