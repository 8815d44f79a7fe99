#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pft-static.sh - the self-contained pft a harness copies: pft/pft-static,
# copied alone into an empty directory and run from there with no
# library path, runs 0.12x's command lines and prints their lines; it
# needs no libfaultgen.so and points at no build directory.
#
# Copyright (C) 2026 The libfaultgen authors
: "${top_builddir:?}" "${top_srcdir:?}"
PFT=$top_builddir/pft/pft-static
. "$top_srcdir/tests/cli-lib.sh"
need_cpus 2

[ -x "$PFT" ] || skip "no pft/pft-static (configured with --disable-static)"

dir=$tmp/alone
mkdir "$dir"
cp "$PFT" "$dir/pft"
PFT=$dir/pft

needed=$(readelf -d "$PFT" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
case $needed in
*libfaultgen*) fail "pft-static needs libfaultgen.so: $needed" ;;
*libnuma*)
	# configure names libnuma.a's path when it found the archive.
	. "$top_srcdir/tests/make-var.sh"
	numa_static=$(make_var NUMA_STATIC_LIBS)
	if [ -f "$numa_static" ]; then
		fail "pft-static needs libnuma.so though $numa_static is there: $needed"
	else
		ok
	fi
	;;
*) ok ;;
esac
if readelf -d "$PFT" | grep -Eq '\((RPATH|RUNPATH)\)'; then
	fail "pft-static carries a library path: $(readelf -d "$PFT" | grep -E 'R(UN)?PATH')"
else
	ok
fi

# As lkp-tests runs it (processes, -F), and as mmtests did (threads), from
# the copy's directory and from another one.
(cd "$dir" && env -u LD_LIBRARY_PATH ./pft -m 64K -n 2 -F) \
	>"$tmp/n.out" 2>"$tmp/n.err"
rc=$?
if [ $rc -ne 0 ]; then
	fail "./pft -m 64K -n 2 -F exited $rc: $(cat "$tmp/n.err")"
else
	check_result_line "$(cat "$tmp/n.out")" "$(awk '{ print $2 }' "$tmp/n.out")" 1 \
		"pft -n 2 -F"
fi
(cd / && env -u LD_LIBRARY_PATH "$PFT" -T -m 64K -t 2) >"$tmp/t.out" 2>"$tmp/t.err"
rc=$?
if [ $rc -ne 0 ]; then
	fail "pft -T -m 64K -t 2 exited $rc: $(cat "$tmp/t.err")"
else
	head -n 1 "$tmp/t.out" | grep -q '^  Gb  Thr CLine' ||
		fail "no title line: $(cat "$tmp/t.out")"
	check_result_line "$(sed -n 2p "$tmp/t.out")" 2 1 "pft -T -t 2"
fi
env -u LD_LIBRARY_PATH "$PFT" --json -m 64K -t 1 >"$tmp/j.out" 2>"$tmp/j.err"
if grep -q '^{"schema":"pft-run/1"' "$tmp/j.out"; then
	ok
else
	fail "pft --json: $(cat "$tmp/j.out" "$tmp/j.err")"
fi

# The same version as the shared build.
v_static=$("$PFT" -V 2>&1)
v_shared=$("$top_builddir/pft/pft" -V 2>&1)
if [ "$v_static" = "$v_shared" ]; then
	ok
else
	fail "pft-static -V says '$v_static', pft -V '$v_shared'"
fi
finish
