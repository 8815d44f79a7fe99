#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# run.sh - builds the libFuzzer harnesses with clang (ASan + UBSan) against
# the library's sources and runs each for a bounded time.
# Use: tests/fuzz/run.sh BUILDDIR [SECONDS]   (BUILDDIR: a configured tree)
#
# Copyright (C) 2026 The libfaultgen authors
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$(cd "${1:?usage: run.sh BUILDDIR [SECONDS]}" && pwd)
secs=${2:-60}
out=$(mktemp -d /tmp/fg-fuzz.XXXXXX)
flags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
 -D_GNU_SOURCE -I$build -I$build/libfaultgen -I$src/libfaultgen"
libsrc=$(ls "$src"/libfaultgen/*.c)
libs="-lpthread"
# libcpuset is loaded with dlopen: only the library that provides it.
libs="$libs $(sed -n 's/^CPUSET_LIBS = //p' "$build/Makefile")"
libs="$libs $(sed -n 's/^NUMA_LIBS = //p' "$build/Makefile")"
status=0
for h in "$here"/fuzz-*.c; do
	name=$(basename "$h" .c)
	corpus="$here/corpus-${name#fuzz-}"
	work="$out/$name-corpus"
	mkdir -p "$work"
	extra=
	opts=
	case $name in
	fuzz-pft-args)
		# pft without its main(), exit() wrapped to return here.
		extra="-I$src/pft -Wl,--wrap=exit $(ls "$src"/pft/*.c | grep -v '/pft\.c$') -lm"
		opts=-close_fd_mask=3
		;;
	esac
	# shellcheck disable=SC2086
	clang $flags -o "$out/$name" "$h" $libsrc $extra $libs
	echo "fuzz: $name for ${secs}s" >&2
	if "$out/$name" -max_total_time="$secs" -print_final_stats=1 \
		-detect_leaks=1 -artifact_prefix="$out/" $opts "$work" "$corpus" >"$out/$name.log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$name.log")
		echo "fuzz: $name: $runs executions in ${secs}s, no crash, leak or UB" >&2
	else
		tail -n 30 "$out/$name.log" >&2
		echo "fuzz: $name: FAILED" >&2
		status=1
	fi
done
exit $status
