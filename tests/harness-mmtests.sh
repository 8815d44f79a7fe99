#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# harness-mmtests.sh - contrib/mmtests against this pft.  The shellpack's
# bench script, its ###SHELLPACK lines expanded by a small stand-in
# (tests/harness/shellpack.sed), runs pft-static (what the install script
# installs) at tiny sizes: in legacy mode its logs, stdout and stderr
# merged, give every run's sample under mmtests' rule for pft (delete
# each 's', skip a line with a letter left, split on blanks: user,
# system, wall, faults per CPU second and per wall second), which is how
# ExtractPft reads them; in the new modes ExtractPftmodes, on a stand-in
# of mmtests' summary class (tests/harness/mmtests-stub), gives one
# sample a run, checked against pft's JSON read with python3.  Fixture
# logs in tests/harness/mmtests-logs give both readers' exact output.
#
# Copyright (C) 2026 The libfaultgen authors
: "${top_srcdir:?}" "${top_builddir:?}"
PFT=$top_builddir/pft/pft-static
. "$top_srcdir/tests/cli-lib.sh"
need_cpus 2

contrib=$top_srcdir/contrib/mmtests
fixtures=$top_srcdir/tests/harness
pack=$contrib/shellpack_src/src/pft

perl -MJSON::PP -e 1 2>/dev/null || skip "no perl with JSON::PP"
have_python || skip "no python3 to read pft's JSON independently"
[ -x "$PFT" ] || skip "no pft/pft-static (configured with --disable-static)"

# mmtests' rule for a pft log: "OPERATION SAMPLE VALUE" lines.
legacy_extract() {
	for log in "$1"/pft-[0-9]*.log; do
		client=$(basename "$log" .log)
		client=${client#pft-}
		tr -d s <"$log" | awk -v c="$client" '
		/[A-Za-z]/ { next }
		{
			n = split($0, f, /[ \t\n]+/)
			if (n < 9)
				next
			i++
			printf "faults/cpu-%s %d %s\nfaults/sec-%s %d %s\n", c, i, f[8], c, i, f[9]
		}'
	done
}

modes_extract() {
	perl -I "$fixtures/mmtests-stub" -I "$contrib/bin/lib" -e '
		use MMTests::ExtractPftmodes;
		my $m = MMTests::ExtractPftmodes->new;
		$m->initialise();
		$m->extractReport($ARGV[0]);
		print "operations @{$m->{_Operations}}\n";' "$1"
}

# Both readers on the fixture logs.
legacy_extract "$fixtures/mmtests-logs" >"$tmp/legacy.got"
if diff -u "$fixtures/mmtests-legacy.out" "$tmp/legacy.got" >"$tmp/legacy.diff"; then
	ok
else
	fail "legacy rule on the fixture logs: $(cat "$tmp/legacy.diff")"
fi
if ! modes_extract "$fixtures/mmtests-logs" >"$tmp/modes.got" 2>"$tmp/modes.err"; then
	fail "ExtractPftmodes on the fixture logs: $(cat "$tmp/modes.err")"
elif ! diff -u "$fixtures/mmtests-modes.out" "$tmp/modes.got" >"$tmp/modes.diff"; then
	fail "ExtractPftmodes on the fixture logs: $(cat "$tmp/modes.diff")"
else
	ok
fi

# The shellpack installs this version, and installs pft-static as ./pft.
version=$(sed -n 's/^PACKAGE_VERSION = //p' "$top_builddir/Makefile")
for f in pft-install pft-bench; do
	v=$(sed -n 's/^###SHELLPACK preamble [^ ]* //p' "$pack/$f")
	if [ "$v" = "$version" ]; then
		ok
	else
		fail "$f installs version $v, the package is $version"
	fi
done
# shellcheck disable=SC2016
if grep -q 'cp pft/pft-static "\$SHELLPACK_SOURCES/pft-\${VERSION}-installed/pft"' \
	"$pack/pft-install"; then
	ok
else
	fail "pft-install does not install pft/pft-static as ./pft"
fi

installed=$tmp/pft-installed
mkdir "$installed" "$tmp/include" "$tmp/top"
cp "$PFT" "$installed/pft"
sed -f "$fixtures/shellpack.sed" "$pack/pft-bench" >"$tmp/include/shellpack-bench-pft"
chmod +x "$tmp/include/shellpack-bench-pft"
mkdir -p "$tmp/top/shellpack_src/src"
printf '#!/bin/sh\n' >"$tmp/top/shellpack_src/src/refresh.sh"
chmod +x "$tmp/top/shellpack_src/src/refresh.sh"

# bench NAME DRIVER SETTINGS... runs the driver's run_bench with the
# config's settings, THP changes recorded instead of made; logs in
# $tmp/NAME.
bench() {
	name=$1
	driver=$contrib/drivers/driver-$2.sh
	shift 2
	mkdir "$tmp/$name"
	# shellcheck disable=SC2016
	env LOGDIR_RESULTS="$tmp/$name" PFT_INSTALLED="$installed" \
		SHELLPACK_INCLUDE="$tmp/include" SHELLPACK_TOPLEVEL="$tmp/top" \
		SHELLPACK_ERROR=1 PFT_MIN_CLIENTS=1 PFT_MAX_CLIENTS=2 "$@" \
		bash -c '
		for f in reset disable enable; do
			eval "${f}_transhuge() { echo $f >>\"\$LOGDIR_RESULTS/thp\"; }"
		done
		. "$1" && run_bench' sh "$driver" >"$tmp/$name.out" 2>&1
	rc=$?
	[ $rc -eq 0 ] || fail "bench $name exited $rc: $(cat "$tmp/$name.out")"
	return $rc
}

# Legacy: 3 samples a worker count, the workers' field the count, the
# cachelines 1, whatever pft printed on stderr (a tiny region takes more
# faults than pages: a warning) in the same log.
check_legacy() {
	name=$1
	legacy_extract "$tmp/$name" >"$tmp/$name.samples"
	for c in 1 2; do
		n=$(grep -c "^faults/sec-$c " "$tmp/$name.samples")
		if [ "$n" -eq 3 ]; then
			ok
		else
			fail "bench $name: $n samples of faults/sec-$c, expected 3: $(cat "$tmp/$name/pft-$c.log")"
		fi
		lines=$(tr -d s <"$tmp/$name/pft-$c.log" | awk '!/[A-Za-z]/ && NF == 8' |
			awk -v c="$c" '$2 != c || $3 != 1 { bad++ } END { print NR - bad }')
		if [ "$lines" -eq 3 ]; then
			ok
		else
			fail "bench $name: pft-$c.log: $lines lines with $c workers and 1 cacheline, expected 3"
		fi
	done
}
bench threads pft PFT_ITERATIONS=3 PFT_MAPPING_SIZE=262144 \
	PFT_USE_PROCESSES=no PFT_PAGESIZES=base && check_legacy threads
bench processes pft PFT_ITERATIONS=3 PFT_MAPPING_SIZE=8192 \
	PFT_USE_PROCESSES=yes && check_legacy processes
# THP in sysfs as the config says, and back to the boot-time mode.
for run in threads:"disable reset" processes:"reset reset"; do
	got=$(tr '\n' ' ' <"$tmp/${run%%:*}/thp" 2>/dev/null)
	if [ "$got" = "${run#*:} " ]; then
		ok
	else
		fail "bench ${run%%:*}: THP calls '$got', expected '${run#*:}'"
	fi
done

# New modes: ExtractPftmodes' samples are the runs' JSON figures.  The
# pretouch heap has two 4 MiB chunks, one for each of two workers.
if bench modes pftmodes PFT_MODES=zap-shared,zap-per-thread,zap-processes,pretouch \
	PFT_ITERATIONS=2 PFT_DURATION=0.2 PFT_SLICE=256K PFT_MAPPING_SIZE=8388608; then
	if ! modes_extract "$tmp/modes" >"$tmp/modes.samples" 2>"$tmp/modes.err"; then
		fail "ExtractPftmodes: $(cat "$tmp/modes.err")"
	fi
	python3 - "$tmp/modes" >"$tmp/modes.want" 2>&1 <<'EOF' || fail "pft's JSON: $(cat "$tmp/modes.want")"
import json, os, re, sys
rows, ops = [], []
runs = sorted((m.group(1), int(m.group(2)), f) for f in os.listdir(sys.argv[1])
              for m in [re.match(r'pft-([a-z-]+)-([0-9]+)\.log$', f)] if m)
for mode, n, f in runs:
    objs = [json.loads(l) for l in open(os.path.join(sys.argv[1], f)) if l.startswith('{')]
    done = [o for o in objs if o['schema'] == 'pft-run/1']
    if len(done) != 2 or objs[-1]['schema'] != 'pft-summary/1':
        sys.exit('%s: %d runs, expected 2 and a summary' % (f, len(done)))
    for i, o in enumerate(done, 1):
        if o['result']['workers'] != n:
            sys.exit('%s: %d workers' % (f, o['result']['workers']))
        rows.append('faults/cpu-%s-%d %d %r' % (mode, n, i, o['legacy']['flt_per_cpu_s']))
        rows.append('faults/sec-%s-%d %d %r' % (mode, n, i, o['legacy']['fault_per_wsec']))
print('\n'.join(rows))
print('operations ' + ' '.join(['faults/cpu-%s-%d' % (m, n) for m, n, f in runs] +
                               ['faults/sec-%s-%d' % (m, n) for m, n, f in runs]))
EOF
	# Values as numbers: Perl prints 15 significant digits, Python 17.
	if awk 'function off(a, b) { d = a - b; if (d < 0) d = -d; return d > 1e-12 * (a < 0 ? -a : a) }
		NR == FNR { want[FNR] = $0; n = FNR; next }
		{ split(want[FNR], w, " ")
		  if (w[1] != $1 || (w[1] != "operations" && (w[2] != $2 || off(w[3] + 0, $3 + 0))) ||
		      (w[1] == "operations" && want[FNR] != $0)) { print FNR ": " want[FNR] " / " $0; bad = 1 } }
		END { if (FNR != n) { print "lines: " n " / " FNR; bad = 1 }; exit bad }' \
		"$tmp/modes.want" "$tmp/modes.samples" >"$tmp/modes.diff"; then
		ok
	else
		fail "ExtractPftmodes differs from pft's JSON: $(head -n 5 "$tmp/modes.diff")"
	fi
fi
finish
