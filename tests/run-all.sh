#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# run-all.sh - every test the project has, the way CI runs them: make check
# as root, then make distcheck as an unprivileged user confined to one
# CPU (taskset -c, as small distribution builders build).
# Run ./bootstrap.sh --tests first (it installs the packages the tests
# use, and builds).
#
# Copyright (C) 2026 The libfaultgen authors
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
jobs=$(nproc)
failed_steps=
logdir=$(mktemp -d /tmp/fg-run-all.XXXXXX)
chmod 755 "$logdir"

start=$(date +%s)

# Runs one step, and says how long it took (CI has a time budget).
# RUN_ALL_ONLY=PATTERN runs only the steps whose name matches (grep -E).
step() {
	name=$1
	shift
	if [ -n "${RUN_ALL_ONLY:-}" ] && ! echo "$name" | grep -Eq "$RUN_ALL_ONLY"; then
		return 0
	fi
	echo "run-all: == $name" >&2
	t0=$(date +%s)
	if "$@"; then
		result=ok
	else
		result=FAILED
		failed_steps="$failed_steps $name"
	fi
	t1=$(date +%s)
	echo "run-all: $name: $result ($((t1 - t0)) s, $((t1 - start)) s in all)" >&2
	printf '%6d s  %s  %s\n' $((t1 - t0)) "$result" "$name" >>"$logdir/times"
}

# Adds the counts of one test-suite run (its test-suite.log files).
tally() {
	for f in $(find "$1" -name test-suite.log); do
		sed -n 's/^# \(PASS\|FAIL\|SKIP\|ERROR\|XPASS\|XFAIL\): *\([0-9]*\)/\1 \2/p' "$f"
	done >>"$logdir/counts"
}

check_dump() {
	# Show the logs of failed tests so CI output says why.
	for f in $(find "$1" -name '*.log' ! -name test-suite.log ! -name config.log); do
		if grep -q '^:test-result: \(FAIL\|ERROR\)' "${f%.log}.trs" 2>/dev/null; then
			echo "---- $f" >&2
			tail -n 40 "$f" >&2
			# The first lines that say why, repeated at the end.
			grep -E ': FAIL: |:[0-9]+:[FE]:' "$f" | head -n 3 |
				cut -c 1-400 | sed "s|^|$(basename "$f" .log): |" \
				>>"$logdir/why"
		fi
	done
}

check_root() {
	make -j"$jobs" -s check >"$logdir/root.out" 2>&1
	rc=$?
	tally "$top"
	[ $rc -eq 0 ] || { tail -n 30 "$logdir/root.out" >&2; check_dump "$top"; }
	return $rc
}

# The first CPU of this process's affinity mask: where the one-CPU
# steps run (taskset -c), as a small distribution builder would.
one_cpu() {
	python3 -c 'import os; print(min(os.sched_getaffinity(0)))' 2>/dev/null ||
		echo 0
}

# A copy of the tracked files, for builds that must not share this tree.
copy_tree() {
	rm -rf "$1" && mkdir -p "$1"
	git -C "$top" ls-files -z | (cd "$top" && xargs -0 cp --parents -t "$1")
}

# The tests of tests/Makefile.am's groups ($1, e.g. "cli_tests
# dist_tests") in the configured tree $2.
tests_of() {
	(top_builddir=$2 && . "$top/tests/make-var.sh" && make_var "$1" tests)
}

# make check in a copy built with ASan and UBSan ($1: compiler), of the
# tests named by $2.
check_sanitized() {
	dir=/tmp/fg-san-$1
	copy_tree "$dir"
	(cd "$dir" && ./autogen.sh >/dev/null && CC=$1 ./configure -q \
		--enable-sanitizers && make -j"$jobs" -s >/dev/null &&
		export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 &&
		make -j"$jobs" -s check TESTS="$2") >"$logdir/san-$1.out" 2>&1
	rc=$?
	tally "$dir"
	[ $rc -eq 0 ] || { tail -n 30 "$logdir/san-$1.out" >&2; check_dump "$dir"; }
	return $rc
}

# A packager's build: hardening flags from the environment, a check run
# of the C suites, pft's command line and the examples (what
# _FORTIFY_SOURCE and the stack protector could stop), and a second build
# of the library and pft in the same tree that must give identical
# binaries (pft/.libs/pft: pft/pft is libtool's wrapper script).
packager_build() {
	dir=/tmp/fg-pkg
	copy_tree "$dir"
	(cd "$dir" && ./autogen.sh >/dev/null &&
		CFLAGS="-g -O2 -fstack-protector-strong -Wformat -Werror=format-security -ffile-prefix-map=$dir=." \
		CPPFLAGS="-Wdate-time -D_FORTIFY_SOURCE=2" \
		LDFLAGS="-Wl,-z,relro -Wl,-z,now" ./configure -q &&
		make -j"$jobs" -s >/dev/null &&
		make -j"$jobs" -s check TESTS="$(tests_of \
			"suite_programs cli_tests example_tests" "$dir")" &&
		sha256sum libfaultgen/.libs/libfaultgen.so.* pft/.libs/pft \
			libfaultgen/.libs/libfaultgen.a >first.sha &&
		make -s -C pft clean >/dev/null &&
		make -s -C libfaultgen clean >/dev/null &&
		make -j"$jobs" -s -C libfaultgen >/dev/null &&
		make -j"$jobs" -s -C pft >/dev/null &&
		sha256sum -c --quiet first.sha) >"$logdir/pkg.out" 2>&1
	rc=$?
	tally "$dir"
	[ $rc -eq 0 ] || { tail -n 30 "$logdir/pkg.out" >&2; check_dump "$dir"; }
	return $rc
}

# A distribution's build, out of tree: Debian's hardening flags with
# link-time optimisation (-flto=auto -ffat-lto-objects, as Ubuntu,
# Fedora, openSUSE and Arch build); every test program compiled with the
# warnings packagers add and -Werror (the objects: an LTO link warns
# about the library's and pft's code too); the ABI tests, pft-static and two
# check suites (a library module's, and pft's, which --wrap links) run
# on the LTO build; abi-static.sh again west of UTC (reproducible-builds
# also builds at UTC-12 and UTC+14).  Only what those need is built and
# linked (an LTO link is slow): CI's time is a budget.
lto_build() {
	src=/tmp/fg-lto-src
	dir=/tmp/fg-lto-build
	copy_tree "$src"
	rm -rf "$dir" && mkdir -p "$dir"
	(eval "$(DEB_BUILD_MAINT_OPTIONS='hardening=+all optimize=+lto' \
		dpkg-buildflags --export=sh)" &&
		case $CFLAGS in *-flto*) ;; *) false ;; esac &&
		werror="$CFLAGS -Wall -Wextra -Wmissing-prototypes -Wformat-truncation=2 -Werror" &&
		(cd "$src" && ./autogen.sh >/dev/null) &&
		cd "$dir" && "$src/configure" -q --disable-jni &&
		make -j"$jobs" -s -C libfaultgen >/dev/null &&
		make -j"$jobs" -s -C pft >/dev/null &&
		objs=$(for p in $(tests_of check_PROGRAMS "$dir"); do
			# slowfs has flags of its own (libfuse3's): automake
			# names its object after it.
			case $p in slowfs) echo slowfs-slowfs.o ;;
			*) echo "$p.o" ;; esac; done) &&
		make -j"$jobs" -s -C tests $objs CFLAGS="$werror" &&
		make -j"$jobs" -s -C tests check \
			check_PROGRAMS="check_cpuset check_pft_setup" \
			TESTS="abi.sh abi-static.sh pft-static.sh check_cpuset check_pft_setup" &&
		tally "$dir" &&
		TZ=Etc/GMT+12 make -s -C tests check check_PROGRAMS= \
			TESTS=abi-static.sh) >"$logdir/lto.out" 2>&1
	rc=$?
	# This run's test-suite.log (abi-static.sh's) replaced the first's.
	tally "$dir"
	[ $rc -eq 0 ] || { tail -n 30 "$logdir/lto.out" >&2; check_dump "$dir"; }
	return $rc
}

# distcheck with optional parts left out ($1: configure flags), and the
# tests those parts touch ($2): the whole suite already ran from the
# tarball in the full distcheck.
distcheck_without() {
	make -j"$jobs" -s distcheck DISTCHECK_CONFIGURE_FLAGS="$1" \
		TESTS="abi.sh man.sh install.sh deps.sh examples.sh $2" \
		>"$logdir/distcheck-without.out" 2>&1
	rc=$?
	[ $rc -eq 0 ] || tail -n 40 "$logdir/distcheck-without.out" >&2
	return $rc
}

# Valgrind memcheck on thread-mode runs of the examples, pft and the pure
# suites: no error, no definite or indirect leak.  (Valgrind caps threads
# near 500; these use a few.)
memcheck() {
	vg="$top/libtool --mode=execute valgrind -q --error-exitcode=99
		--leak-check=full --errors-for-leak-kinds=definite,indirect
		--show-leak-kinds=definite,indirect"
	ex=$top/examples
	rc=0
	n=0
	for cmd in "$ex/shared-vma 8M 2" "$ex/per-thread-vma 8M 4" \
		"$ex/zap-loop 8M 2 0.2" "$top/pft/pft -t 2 -m 16M" \
		"$top/pft/pft -M -t 2 -F -m 8M --json" \
		"$top/pft/pft -t 2 -m 8M --duration=0.2 --per-worker" \
		"$top/tests/check_parse" "$top/tests/check_cpus"; do
		# shellcheck disable=SC2086
		if CK_FORK=no $vg $cmd >"$logdir/vg.out" 2>&1; then
			n=$((n + 1))
		else
			echo "memcheck: $cmd:" >&2
			tail -n 30 "$logdir/vg.out" >&2
			rc=1
		fi
	done
	echo "memcheck: $n commands clean" >&2
	return $rc
}

fuzz() {
	"$top/tests/fuzz/run.sh" "$top" "${FUZZ_SECONDS:-30}"
}

# cppcheck and clang-tidy (its checks in .clang-tidy) on every C file.
static_analysis() {
	files=$(git -C "$top" ls-files '*.c' | grep -v '^tests/fuzz/')
	# The tests' slow file system includes libfuse3's <fuse.h>.
	inc="-I$top -I$top/libfaultgen $(pkg-config --cflags fuse3 2>/dev/null)"
	# shellcheck disable=SC2086
	cppcheck -q -j "$jobs" --error-exitcode=1 --enable=warning,portability \
		--inline-suppr --std=c11 -D__linux__ -D_GNU_SOURCE \
		--suppress=missingIncludeSystem $inc $files || return 1
	# A few files to a clang-tidy, as many at a time as there are CPUs.
	FG_TIDY_FLAGS="-std=gnu11 -D_GNU_SOURCE $inc
		-I/usr/lib/jvm/java-17-openjdk-amd64/include
		-I/usr/lib/jvm/java-17-openjdk-amd64/include/linux"
	export FG_TIDY_FLAGS
	# shellcheck disable=SC2016,SC2086
	printf '%s\n' $files | (cd "$top" && xargs -n 4 -P "$jobs" sh -c \
		'clang-tidy --quiet "$@" -- $FG_TIDY_FLAGS' sh) \
		>"$logdir/tidy.out" 2>&1
	if grep -q 'warning:\|error:' "$logdir/tidy.out"; then
		grep -A3 'warning:\|error:' "$logdir/tidy.out" | head -n 60 >&2
		return 1
	fi
	return 0
}

# An unprivileged user builds a copy of the tree and runs make distcheck
# in it on one CPU (taskset -c), as a small distribution builder does:
# the tarball is complete, it builds out of its tree, which is read-only
# (as root it would not be), and every test passes from it without
# privileges and with one CPU, adapting to it or skipping with its
# reason.  (As root, make check above ran every test in the tree on
# every CPU.)
distcheck_user() {
	dsrc=$top
	cpu=$(one_cpu)
	if [ "$(id -u)" -ne 0 ]; then
		taskset -c "$cpu" make -j"$jobs" -s distcheck \
			>"$logdir/distcheck.out" 2>&1
		rc=$?
	else
		id fgbuild >/dev/null 2>&1 || useradd -m -s /bin/sh fgbuild ||
			return 1
		src=/tmp/fg-user-src
		dsrc=$src
		copy_tree "$src"
		chown -R fgbuild: "$src"
		runuser -u fgbuild -- taskset -c "$cpu" sh -c "cd '$src' &&
			./autogen.sh >/dev/null && ./configure -q &&
			make -j$jobs -s distcheck" \
			>"$logdir/distcheck.out" 2>&1
		rc=$?
	fi
	if [ $rc -ne 0 ]; then
		tail -n 40 "$logdir/distcheck.out" >&2
		# The failed distcheck leaves its tree (libfaultgen-VERSION/).
		for d in "$dsrc"/libfaultgen-*/; do
			[ -d "$d" ] && check_dump "$d"
		done
	fi
	return $rc
}

step "make check (as $(id -un))" check_root
step "make distcheck (unprivileged user, one CPU)" distcheck_user
step "make distcheck (--without-cpuset --disable-jni)" distcheck_without \
	"--without-cpuset --disable-jni" "check_cpuset check_attr pretouch-jni.sh"
step "packager build (hardening flags, reproducible)" packager_build
step "LTO build out of tree (hardening flags, -Werror tests, TZ=Etc/GMT+12)" \
	lto_build
# gcc's sanitizers on the tests that run the library's and pft's code:
# not pft-sweep's (they drive pft through Python, along paths the CLI
# tests take), nor the packaging checks and the harnesses' jobs (pft's
# options again); CI's time is a budget.
step "make check (gcc, ASan+UBSan; suites, pft, examples, Java)" \
	check_sanitized gcc \
	"$(tests_of "suite_programs cli_tests example_tests jni_tests" "$top")"
# clang's sanitizers on the library's suites and pft's option and output
# paths; gcc's above run all but pft-sweep's (CI's time is a budget).
step "make check (clang, ASan+UBSan; C suites, pft options and output)" \
	check_sanitized clang "$(tests_of suite_programs "$top") cli-badargs.sh \
cli-json.sh cli-numa.sh"
step "valgrind memcheck" memcheck
step "fuzzing" fuzz
step "cppcheck and clang-tidy" static_analysis
# QEMU guests of the machine shapes (tests/shapes/README): the CI cases of
# SHAPES_CI within SHAPES_BUDGET seconds; what cannot boot or would not fit
# is a SKIP in the table, with the reason; make check-shapes runs them all.
shapes_ci() {
	# shellcheck disable=SC2086
	SHAPES_BUDGET=${SHAPES_BUDGET:-480} top_srcdir=$top top_builddir=$top \
		sh "$top/tests/shapes/run.sh" --set=ci ${SHAPES_CI:-epyc-9634 big-sparse memoryless}
	rc=$?
	[ $rc -eq 77 ] && echo "run-all: shapes: SKIP, no shape booted" >&2
	[ $rc -eq 0 ] || [ $rc -eq 77 ]
}
step "machine shapes (QEMU, SHAPES_SET=ci)" shapes_ci

pass=$(awk '$1=="PASS"{s+=$2} END{print s+0}' "$logdir/counts" 2>/dev/null || echo 0)
fail=$(awk '$1=="FAIL"||$1=="ERROR"||$1=="XPASS"{s+=$2} END{print s+0}' "$logdir/counts" 2>/dev/null || echo 0)
skip=$(awk '$1=="SKIP"{s+=$2} END{print s+0}' "$logdir/counts" 2>/dev/null || echo 0)
if [ -n "$failed_steps" ]; then
	echo "run-all: failed steps:$failed_steps" >&2
	[ "$fail" -gt 0 ] || fail=1
fi
if [ -s "$logdir/why" ]; then
	echo "run-all: why, from the failed tests' logs:" >&2
	sort -u "$logdir/why" | head -n 20 >&2
fi
echo "run-all: wall time of each step:" >&2
cat "$logdir/times" >&2
echo "tests: $pass passed, $fail failed, $skip skipped"
[ -z "$failed_steps" ]
