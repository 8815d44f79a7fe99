#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# harness-lkp.sh - contrib/lkp-tests against this pft.  The PKGBUILD's
# package step installs pft-static as the benchmark's ./pft; the run
# script, with small stand-ins for the lkp-tests functions it calls
# (tests/harness/lkp-stub), runs that pft at tiny sizes in every mode;
# the parse script turns its output into lkp's keys, checked against the
# result lines and JSON objects pft printed (read here with awk and
# python3, not with the parse script's code); the fixtures of
# tests/harness give the parse script's exact output for known input;
# every stderr line pft printed is one lkp-tests is told to ignore; the
# job files' parameters are the run script's.
#
# Copyright (C) 2026 The libfaultgen authors
: "${top_srcdir:?}" "${top_builddir:?}"
PFT=$top_builddir/pft/pft-static
. "$top_srcdir/tests/cli-lib.sh"
need_cpus 2

contrib=$top_srcdir/contrib/lkp-tests
fixtures=$top_srcdir/tests/harness
parse=$contrib/programs/pft/parse

command -v ruby >/dev/null 2>&1 || skip "no ruby (lkp-tests' parse scripts are Ruby)"
have_python || skip "no python3 to read pft's JSON independently"
[ -x "$PFT" ] || skip "no pft/pft-static (configured with --disable-static)"

# The parse script on the fixtures: exact output.
for f in "$fixtures"/lkp-*.in; do
	name=$(basename "$f" .in)
	if ! ruby "$parse" <"$f" >"$tmp/$name.got" 2>"$tmp/$name.err"; then
		fail "parse < $name.in failed: $(cat "$tmp/$name.err")"
	elif ! diff -u "$fixtures/$name.out" "$tmp/$name.got" >"$tmp/$name.diff"; then
		fail "parse < $name.in differs from $name.out: $(cat "$tmp/$name.diff")"
	else
		ok
	fi
done
# A summary that the runs do not give is an error.
sed 's/"median":891556.125/"median":1/' "$fixtures/lkp-modes.in" >"$tmp/badsum.in"
if ruby "$parse" <"$tmp/badsum.in" >/dev/null 2>&1; then
	fail "parse accepted a summary the runs do not give"
else
	ok
fi
# No result line at all: empty stats and exit 0, as lkp-tests' own pft
# parse gives (its run-stats then marks the run incomplete); on an empty
# log and on iterations that printed nothing.
for input in '' 'Clients: 2\nIteration: 1\n'; do
	if ! printf "$input" | ruby "$parse" >"$tmp/none.out" 2>/dev/null; then
		fail "parse of no result lines ($input) exited non-zero"
	elif [ -s "$tmp/none.out" ]; then
		fail "parse of no result lines ($input) printed stats: $(cat "$tmp/none.out")"
	else
		ok
	fi
done
# A JSON line it cannot read is still an error.
if printf '{"schema":"pft-run/1"\n' | ruby "$parse" >/dev/null 2>&1; then
	fail "parse accepted an unreadable JSON line"
else
	ok
fi

# The PKGBUILD: its version is this package's, its package step installs
# pft-static as ./pft with the licences, and that ./pft runs alone.
version=$(sed -n 's/^PACKAGE_VERSION = //p' "$top_builddir/Makefile")
pkgver=$(sed -n 's/^pkgver=//p' "$contrib/programs/pft/pkg/PKGBUILD")
if [ "$pkgver" = "$version" ]; then
	ok
else
	fail "PKGBUILD pkgver=$pkgver, the package is $version"
fi
mkdir -p "$tmp/src/libfaultgen-$version/pft" "$tmp/pkg"
ln -s "$PFT" "$tmp/src/libfaultgen-$version/pft/pft-static"
ln -s "$top_srcdir/COPYING" "$top_srcdir/COPYING.LIB" "$tmp/src/libfaultgen-$version/"
# PKGBUILDs are bash.  build() is configure and make, which make check
# has run: only its command line is checked.
if ! (cd "$tmp/src" && LKP_SRC=$fixtures/lkp-stub srcdir=$tmp/src \
	pkgdir=$tmp/pkg bash -c '
	. "$1" || exit 1
	type build | grep -q -- "./configure --disable-jni" ||
		{ echo "build() does not run ./configure --disable-jni"; exit 1; }
	prepare && package' sh "$contrib/programs/pft/pkg/PKGBUILD") \
	>"$tmp/pkgbuild.out" 2>&1; then
	fail "PKGBUILD prepare, package: $(cat "$tmp/pkgbuild.out")"
fi
bench=$tmp/pkg/lkp/benchmarks
for f in pft COPYING COPYING.LIB; do
	if [ -f "$bench/pft/$f" ]; then ok; else fail "PKGBUILD did not install $f"; fi
done
if cmp -s "$PFT" "$bench/pft/pft"; then
	ok
else
	fail "the installed ./pft is not pft-static"
fi

# run: the benchmark directory holds that ./pft alone.
run_lkp() {
	name=$1
	shift
	env LKP_SRC="$fixtures/lkp-stub" BENCHMARK_ROOT="$bench" "$@" \
		bash "$contrib/programs/pft/run" >"$tmp/$name.run" 2>"$tmp/$name.stderr"
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "run $name exited $rc: $(cat "$tmp/$name.stderr")"
		return 1
	fi
	if ! ruby "$parse" <"$tmp/$name.run" >"$tmp/$name.stats" 2>"$tmp/$name.perr"; then
		fail "parse of run $name: $(cat "$tmp/$name.perr")"
		return 1
	fi
	# lkp-tests reports any stderr line its ignore list does not match.
	if grep -Ev -f "$contrib/etc/ignore-stderr/pft" "$tmp/$name.stderr" \
		>"$tmp/$name.noise"; then
		fail "run $name: stderr lines lkp-tests would report: $(cat "$tmp/$name.noise")"
	fi
	ok
}

# Legacy: every iteration's result line, fields as lkp's keys.
check_legacy() {
	name=$1
	awk '
	/^Clients: / { c = $2 }
	/^Iteration: / { want = 1; next }
	want && /^ / && NF == 8 {
		split("gbyte nr_tests cachelines user_time sys_time elapsed_time faults_per_sec_per_cpu faults_per_sec", k, " ")
		for (i = 1; i <= 8; i++) { v = $i; sub(/s$/, "", v); printf "# %s.%s: %s\n", c, k[i], v }
		printf "faults_per_sec_per_cpu: %s\n", $7
		want = 0
	}' "$tmp/$name.run" >"$tmp/$name.want"
	samples=$(grep -c '^faults_per_sec_per_cpu: ' "$tmp/$name.stats")
	if [ "$samples" -ne "$2" ]; then
		fail "run $name: $samples samples, expected $2"
	elif ! diff -u "$tmp/$name.want" "$tmp/$name.stats" >"$tmp/$name.diff"; then
		fail "run $name: parse differs from the result lines: $(cat "$tmp/$name.diff")"
	else
		ok
	fi
	awk -v w="$3" '/^# [0-9]+\.nr_tests: / && $3 != w { bad = 1 } END { exit bad }' \
		"$tmp/$name.stats" || fail "run $name: nr_tests other than $3"
}

run_lkp iterations nr_task=2 iterations=3 test_memory_size=256K mode=legacy &&
	check_legacy iterations 3 2
run_lkp clients iterations=2 test_memory_size=256K STUB_THREADS=1 &&
	check_legacy clients 2 1
# nr_task above the allowed CPUs: as in 0.12x, -F does not oversubscribe
# (lkp-tests passes it), the run is clipped with 0.12x's message.  A pft
# whose -F still means --oversubscribe is told apart by its JSON.
n=$(nr_allowed)
if "$PFT" --json -F -m 4K -t 1 2>/dev/null | grep -q '"oversubscribe":true'; then
	echo "$test_name: note: this pft's -F oversubscribes; the clipping of lkp-tests' nr_task is not checked" >&2
else
	run_lkp clipped nr_task=$((n + 2)) iterations=1 test_memory_size=256K &&
		check_legacy clipped 1 "$n"
	if grep -q "clipping nr_tests to nr_cpus_allowed \[$n\]" "$tmp/clipped.stderr"; then
		ok
	else
		fail "nr_task=$((n + 2)): no 0.12x clipping message on stderr"
	fi
fi

# The new modes: each pft-run/1 object, its figures as lkp's keys.
check_modes() {
	name=$1
	python3 - "$tmp/$name.run" "$2" "$3" >"$tmp/$name.want" <<'EOF' || fail "run $name: $(cat "$tmp/$name.want")"
import json, sys
runs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
done = [r for r in runs if r.get('schema') == 'pft-run/1']
summ = [r for r in runs if r.get('schema') == 'pft-summary/1']
if len(done) != int(sys.argv[2]) or len(summ) != 1:
    sys.exit('%d runs and %d summaries, expected %s and 1' % (len(done), len(summ), sys.argv[2]))
keys = [('faults_per_sec', 'legacy', 'fault_per_wsec'),
        ('faults_per_sec_per_cpu', 'legacy', 'flt_per_cpu_s'),
        ('user_time', 'legacy', 'user_s'), ('sys_time', 'legacy', 'sys_s'),
        ('elapsed_time', 'legacy', 'wall_s'),
        ('nr_tests', 'result', 'workers'), ('pages', 'result', 'pages'),
        ('rounds', 'result', 'rounds'), ('minflt', 'result', 'minflt'),
        ('majflt', 'result', 'majflt'),
        ('kernel_faults_per_sec', 'result', 'faults_per_wall_s'),
        ('round_rate_median', 'result', 'round_rate_median'),
        ('round_rate_min', 'result', 'round_rate_min'),
        ('round_rate_max', 'result', 'round_rate_max'),
        ('start_skew', 'result', 'start_skew_s')]
for r in done:
    if sys.argv[3] != '-' and r['result']['workers'] != int(sys.argv[3]):
        sys.exit('%d workers, expected %s' % (r['result']['workers'], sys.argv[3]))
    for k, s, f in keys:
        print('%s: %r' % (k, float(r[s][f])))
    print('faults_agree: %d' % int(r['result']['faults_agree']))
EOF
	# Numbers compared as numbers: Ruby and Python print floats alike,
	# integers differ ("7168" and "7168.0").
	if ! awk -F': ' 'NR == FNR { want[FNR] = $0; n = FNR; next }
		{ split(want[FNR], w, ": ")
		  if (w[1] != $1 || w[2] + 0 != $2 + 0) { print FNR ": " want[FNR] " / " $0; bad = 1 } }
		END { if (FNR != n) { print "lines: " n " / " FNR; bad = 1 }; exit bad }' \
		"$tmp/$name.want" "$tmp/$name.stats" >"$tmp/$name.diff"; then
		fail "run $name: parse differs from pft's JSON: $(head -n 5 "$tmp/$name.diff")"
	else
		ok
	fi
}

for mode in zap-shared zap-per-thread zap-processes; do
	run_lkp "$mode" mode="$mode" nr_task=2 iterations=2 duration=0.2 slice=256K &&
		check_modes "$mode" 2 2
done
run_lkp pretouch mode=pretouch test_memory_size=4M iterations=2 &&
	check_modes pretouch 2 -

# The job files, and the small ones the README runs, use the run
# script's parameters only.
params=$(sed -n 's/^# - //p' "$contrib/programs/pft/run" | tr '\n' ' ')
for job in "$contrib"/jobs/*.yaml "$contrib"/small/*.yaml; do
	if ! out=$(ruby -ryaml -e '
		job = YAML.load_file(ARGV[0])
		params = ARGV[1].split
		abort "no pft: section" unless job.key?("pft")
		(job["pft"] || {}).each_key { |k| abort "pft: #{k} is no run parameter" unless params.include?(k) }
		' "$job" "$params" 2>&1); then
		fail "$(basename "$job"): $out"
	else
		ok
	fi
done
finish
