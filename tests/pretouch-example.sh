#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# pretouch-example.sh - examples/pretouch runs with tiny heaps and gives
# the JVM model's page counts and a fault count that agrees.
# Copyright (C) 2026 The libfaultgen authors
set -u
ex=${EXAMPLES:?}
mib=$((1024 * 1024 / $(getconf PAGESIZE)))
fail=0

run() { # want-pages, arguments...
	want=$1
	shift
	out=$("$ex/pretouch" "$@") || { echo "FAIL: pretouch $*"; fail=1; return; }
	case $out in
	*" pages=$want "*"agree=1"*) echo "ok: pretouch $*: $out" ;;
	*) echo "FAIL: pretouch $*: want pages=$want agree=1: $out"; fail=1 ;;
	esac
}

# The heap, G1's tables less what JDK 17 fills anyway (its card table and
# each 1 MiB region's first block offset entry) or JDK 21+ (the card
# table), and the start-up memory: 7160 KiB (JDK 17 G1), 11176 KiB (21+
# G1), 9384 KiB (21+ Parallel).
kib=$(($(getconf PAGESIZE) / 1024))
run $((8 * mib + 2 * (mib / 8) + mib / 64 + 7160 / kib)) 8M 17 g1 2 store
run $((8 * mib + mib / 8 + mib / 64 + 11176 / kib)) 8M 25 g1 0 add
run $((8 * mib + 9384 / kib)) 8M 21 parallel 3 populate
run $((6 * mib)) 6M 25 none 2 fast
if "$ex/pretouch" 8M 17 cms >/dev/null 2>&1; then
	echo "FAIL: an unknown GC was accepted"
	fail=1
fi
exit $fail
