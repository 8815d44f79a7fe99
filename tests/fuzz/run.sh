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
common="-g -O1 -fno-sanitize-recover=all -D_GNU_SOURCE -I$build
 -I$build/libfaultgen -I$src/libfaultgen"
# The library's and pft's objects are built once, instrumented for the
# fuzzer (no main of its own), and linked into each harness.
objflags="$common -fsanitize=fuzzer-no-link,address,undefined"
flags="$common -fsanitize=fuzzer,address,undefined"
libs="-lpthread"
# libcpuset is loaded with dlopen: only the library that provides it.
libs="$libs $(sed -n 's/^CPUSET_LIBS = //p' "$build/Makefile")"
libs="$libs $(sed -n 's/^NUMA_LIBS = //p' "$build/Makefile")"
mkdir "$out/lib" "$out/pft"
# $1: the objects' directory, $2: a source (the flags in FUZZ_OBJFLAGS).
compile='clang $FUZZ_OBJFLAGS -c -o "$1/$(basename "$2" .c).o" "$2"'
FUZZ_OBJFLAGS=$objflags
export FUZZ_OBJFLAGS
printf "%s\n" "$src"/libfaultgen/*.c | xargs -P "$(nproc)" -I{} sh -c "$compile" \
	sh "$out/lib" {}
# pft without its main(): the harness calls its parser.
FUZZ_OBJFLAGS="$objflags -I$src/pft"
printf "%s\n" "$src"/pft/*.c | grep -v '/pft\.c$' |
	xargs -P "$(nproc)" -I{} sh -c "$compile" sh "$out/pft" {}
libobj=$(ls "$out"/lib/*.o)
# Each harness built, with the options it runs with in $out/NAME.opts.
for h in "$here"/fuzz-*.c; do
	name=$(basename "$h" .c)
	mkdir -p "$out/$name-corpus"
	extra=
	opts=
	case $name in
	fuzz-pft-args)
		# exit() wrapped to return here.
		extra="-I$src/pft -Wl,--wrap=exit $(ls "$out"/pft/*.o) -lm"
		opts=-close_fd_mask=3
		;;
	esac
	# shellcheck disable=SC2086
	clang $flags -o "$out/$name" "$h" $libobj $extra $libs
	echo "$opts" >"$out/$name.opts"
done
# As many harnesses at a time as there are CPUs, each for $secs seconds
# (its log in $out/NAME.log, its status in $out/NAME.rc).
# $1: the output directory, $2: the harness's name, $3: its corpus.
fuzz_one='"$1/$2" -max_total_time="$FUZZ_SECONDS" -print_final_stats=1 \
	-detect_leaks=1 -artifact_prefix="$1/" $(cat "$1/$2.opts") \
	"$1/$2-corpus" "$3" >"$1/$2.log" 2>&1; echo $? >"$1/$2.rc"'
FUZZ_SECONDS=$secs
export FUZZ_SECONDS
echo "fuzz: $(ls "$here"/fuzz-*.c | wc -l) harnesses for ${secs}s, $(nproc) at a time" >&2
for h in "$here"/fuzz-*.c; do
	name=$(basename "$h" .c)
	echo "$name $here/corpus-${name#fuzz-}"
done | xargs -P "$(nproc)" -L 1 sh -c "$fuzz_one" sh "$out"
status=0
for h in "$here"/fuzz-*.c; do
	name=$(basename "$h" .c)
	if [ "$(cat "$out/$name.rc")" = 0 ]; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$name.log")
		echo "fuzz: $name: $runs executions in ${secs}s, no crash, leak or UB" >&2
	else
		tail -n 30 "$out/$name.log" >&2
		echo "fuzz: $name: FAILED (the harness, its log and artifacts in $out)" >&2
		status=1
	fi
done
# What this run made, unless a harness failed.
[ $status -ne 0 ] || rm -rf "$out"
exit $status
