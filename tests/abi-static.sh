#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# abi-static.sh - libfaultgen.a, as 'make install' installs it, is safe to
# link statically into any program: its only global symbols are the
# faultgen_* functions of the version script, every one of them defined;
# the library's internal helpers are local, so a program that defines
# functions of the same names links and runs, and the library still calls
# its own; the archive holds no dates or owners (reproducible builds).
#
# Copyright (C) 2026 The libfaultgen authors
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
map=$top_srcdir/libfaultgen/libfaultgen.map
lib=$top_builddir/libfaultgen
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fg-abi-static.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest
failures=0

fail() {
	echo "abi-static: FAIL: $*" >&2
	failures=$((failures + 1))
}

. "$top_srcdir/tests/make-var.sh"

if [ ! -f "$lib/.libs/libfaultgen.a" ]; then
	echo "abi-static: SKIP: no static library (configured with --disable-static)"
	exit 77
fi
cc=$(make_var CC)
san=$(make_var SAN_CFLAGS)
cpuset_libs=$(make_var CPUSET_LIBS)
numa_libs=$(make_var NUMA_LIBS)
libdir=$(make_var libdir)

# Installed the way 'make install' does it (libtool copies the archive
# and runs ranlib on the copy).
if ! out=$(MAKEFLAGS='' MFLAGS='' MAKELEVEL='' make -s --no-print-directory \
	-C "$lib" install-libLTLIBRARIES DESTDIR="$dest" 2>&1); then
	echo "$out" >&2
	fail "make install-libLTLIBRARIES DESTDIR=$dest"
	exit 1
fi
a=$dest$libdir/libfaultgen.a
[ -f "$a" ] || { fail "not installed: $libdir/libfaultgen.a"; exit 1; }

# The exported names, from the version script.
awk '
/^[[:space:]]*#/ || /^[[:space:]]*\/\*/ { next }
/\{/ || /^[[:space:]]*(global|local):/ || /\}/ { next }
/;/ { sym = $1; sub(/;.*/, "", sym); if (sym != "*") print sym }' "$map" |
	sort -u >"$tmp/map"
[ -s "$tmp/map" ] || fail "no symbol found in $map"

# Global symbols the archive defines: exactly the map's, all functions.  A
# name with versions counts once, by its default (NAME@@VERSION, which a
# static link binds NAME to); its older versions (NAME@VERSION) only serve
# the shared library.
nm -g --defined-only "$a" | awk 'NF == 3 && $3 !~ /[^@]@[^@]/ { sub(/@@.*/, "", $3); print $3 }' |
	sort -u >"$tmp/globals"
comm -13 "$tmp/map" "$tmp/globals" >"$tmp/extra"
comm -23 "$tmp/map" "$tmp/globals" >"$tmp/missing"
[ -s "$tmp/extra" ] &&
	fail "global in libfaultgen.a, not in the map ($(wc -l <"$tmp/extra")): $(tr '\n' ' ' <"$tmp/extra")"
[ -s "$tmp/missing" ] &&
	fail "in the map, not defined in libfaultgen.a: $(tr '\n' ' ' <"$tmp/missing")"
nm -g --defined-only "$a" | awk 'NF == 3 && $2 != "T" { print $3 " (" $2 ")" }' \
	>"$tmp/notext"
[ -s "$tmp/notext" ] &&
	fail "exported symbols that are not functions: $(tr '\n' ' ' <"$tmp/notext")"

# One member, without a date, an owner or a group: what 'ar D' writes.
# ar tv prints a member's date in local time, so the date 0 reads as
# 1969 west of UTC: it is read at UTC, where 0 is Jan  1 00:00 1970.
members=$(ar t "$a" | wc -l)
[ "$members" -eq 1 ] || fail "$members members in libfaultgen.a, expected 1"
TZ=UTC0 LC_ALL=C ar tv "$a" | awk '$2 != "0/0" || NF < 8 ||
	$(NF - 4) " " $(NF - 3) " " $(NF - 2) " " $(NF - 1) != "Jan 1 00:00 1970" {
		bad = 1 }
	END { exit bad }' ||
	fail "archive members carry owners or dates: $(TZ=UTC0 LC_ALL=C ar tv "$a")"

# The internal helpers' names: the globals of the tests' convenience
# library, which is the same code with nothing localized.  Names a C
# program cannot define are left out: the compiler's own (a sanitizer
# build's __odr_asan.NAME, anything else reserved with two underscores).
internal=$lib/.libs/libfaultgen-internal.a
if [ -f "$internal" ]; then
	nm -g --defined-only "$internal" | awk 'NF == 3 { print $3 }' |
		grep -v '^faultgen_' | grep -E '^[A-Za-z_][A-Za-z0-9_]*$' |
		grep -v '^__' | sort -u >"$tmp/internal"
else
	: >"$tmp/internal"
fi
n_internal=$(wc -l <"$tmp/internal")
[ "$n_internal" -gt 0 ] || fail "no internal symbol found in $internal"

# A program that defines a function under every internal name, each of
# which aborts if the library ever called it instead of its own, links
# the installed archive and runs a small fault workload through it.
{
	printf '#include <faultgen.h>\n#include <stdio.h>\n#include <stdlib.h>\n'
	printf '#include <string.h>\n\n'
	awk '{ printf "void %s(void);\nvoid %s(void)\n{\n\tabort();\n}\n\n", $1, $1 }' \
		"$tmp/internal"
	cat <<'EOF'
int main(void)
{
	struct faultgen_result res;
	struct faultgen_attr *attr;
	struct faultgen_run *run;
	uint64_t size = 0;
	int err;

	memset(&res, 0, sizeof(res));
	res.size = sizeof(res);
	err = faultgen_parse_size("16P", &size);
	if (!err)
		err = faultgen_attr_new(&attr);
	if (err) {
		printf("%s\n", faultgen_strerror(err));
		return 1;
	}
	err = faultgen_attr_set_size(attr, size);
	if (!err)
		err = faultgen_attr_set_workers(attr, 2, FAULTGEN_THREADS);
	/* Two workers also where one CPU is allowed (taskset -c 0). */
	if (!err)
		err = faultgen_attr_set_oversubscribe(attr, 1);
	if (!err)
		err = faultgen_run_new(attr, &run);
	if (!err) {
		err = faultgen_run_result(run, &res);
		faultgen_run_free(run);
	}
	faultgen_attr_free(attr);
	if (err) {
		printf("%s\n", faultgen_strerror(err));
		return 1;
	}
	printf("%llu pages %u workers\n", (unsigned long long)res.pages,
	       res.workers);
	return 0;
}
EOF
} >"$tmp/clash.c"
# shellcheck disable=SC2086
if ! out=$($cc $san -Wall -Wextra -Werror -I"$dest$(make_var includedir)" \
	-I"$lib" -o "$tmp/clash" "$tmp/clash.c" "$a" $cpuset_libs $numa_libs -pthread 2>&1); then
	fail "a program defining the library's internal names does not link statically: $(printf '%s' "$out" | head -n 5)"
elif ! out=$("$tmp/clash" 2>&1); then
	fail "the statically linked program failed: $out"
elif [ "$out" != "16 pages 2 workers" ]; then
	fail "the statically linked program printed '$out', expected '16 pages 2 workers'"
fi
# It carries no libfaultgen.so dependency.
readelf -d "$tmp/clash" 2>/dev/null | grep -q 'NEEDED.*libfaultgen' &&
	fail "the static link still needs libfaultgen.so"

if [ "$failures" -ne 0 ]; then
	echo "abi-static: $failures failure(s)" >&2
	exit 1
fi
echo "abi-static: $(wc -l <"$tmp/globals") globals, all faultgen_*; $n_internal internal names free for the program"
exit 0
