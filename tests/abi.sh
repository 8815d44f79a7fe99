#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# abi.sh - the library exports exactly what its version script lists:
# every dynamic symbol is a faultgen_* function at the node the map gives
# it (LIBFAULTGEN_x.y, the default version), none missing, none extra; a
# function the map lists at two nodes has one default version and the
# older ones kept as non-default versions (.symver), for programs built
# against them; the
# header declares every one of them and nothing else; the header compiles
# cleanly as C99 and as C++ (with C linkage); the soname is versioned and
# the version macros agree with the library at run time; it links only
# libc and libnuma (libcpuset is loaded at run time, and declared).
#
# Copyright (C) 2026 The libfaultgen authors
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
map=$top_srcdir/libfaultgen/libfaultgen.map
lib=$top_builddir/libfaultgen
so=$lib/.libs/libfaultgen.so
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fg-abi.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
	echo "abi: FAIL: $*" >&2
	failures=$((failures + 1))
}

. "$top_srcdir/tests/make-var.sh"

if [ ! -f "$so" ]; then
	echo "abi: SKIP: no shared library (configured with --disable-shared)"
	exit 77
fi
cc=$(make_var CC)
san=$(make_var SAN_CFLAGS)

# "symbol node" pairs of the version script.
awk '
/^[[:space:]]*#/ || /^[[:space:]]*\/\*/ { next }
/^[[:space:]]*[A-Za-z0-9_.]+[[:space:]]*\{/ { node = $1; sub(/\{.*/, "", node); next }
/^[[:space:]]*(global|local):/ { next }
/^[[:space:]]*\}/ { node = ""; next }
node != "" && /;/ {
	sym = $1
	sub(/;.*/, "", sym)
	if (sym != "*")
		print sym, node
}' "$map" | sort >"$tmp/map"

# Every node is LIBFAULTGEN_<major>.<minor>, every symbol faultgen_*.
badnodes=$(awk '{ print $2 }' "$tmp/map" | sort -u |
	grep -Evx 'LIBFAULTGEN_[0-9]+\.[0-9]+')
[ -z "$badnodes" ] || fail "version nodes not named LIBFAULTGEN_x.y: $badnodes"
awk '$1 !~ /^faultgen_/ { print $1 }' "$tmp/map" >"$tmp/badmap"
[ -s "$tmp/badmap" ] && fail "map lists non-faultgen symbols: $(cat "$tmp/badmap")"
uniq -d "$tmp/map" >"$tmp/dup"
[ -s "$tmp/dup" ] && fail "map lists symbols twice at one node: $(cat "$tmp/dup")"
awk '{ print $1 }' "$tmp/map" | uniq -d >"$tmp/changed"
[ -s "$tmp/map" ] || fail "no symbol found in $map"

# "symbol node" pairs the library defines.  The nodes themselves show up
# as absolute symbols; a symbol without @ is unversioned.  "@@" is the
# default version, "@" an older one kept for old programs.
nm -D --defined-only "$so" | awk '
$2 == "A" { next }
{
	name = $3
	if (name !~ /@/) {
		print name, "UNVERSIONED"
		next
	}
	sep = name ~ /@@/ ? "@@" : "@"
	split(name, part, sep)
	print part[1], part[2]
}' | sort >"$tmp/nm"
nm -D --defined-only "$so" | awk '$2 != "A" && $3 ~ /@@/' |
	sed 's/^.* \([^ ]*\)@@.*/\1/' | sort | uniq -d >"$tmp/twodefaults"
[ -s "$tmp/twodefaults" ] &&
	fail "more than one default version: $(tr '\n' ' ' <"$tmp/twodefaults")"
for sym in $(cat "$tmp/changed"); do
	nm -D --defined-only "$so" | grep -q " $sym@@" ||
		fail "$sym: listed at two nodes, but no default version"
	nm -D --defined-only "$so" | grep -q " $sym@[^@]" ||
		fail "$sym: listed at two nodes, but no older version kept"
done

comm -23 "$tmp/map" "$tmp/nm" >"$tmp/missing"
comm -13 "$tmp/map" "$tmp/nm" >"$tmp/extra"
[ -s "$tmp/missing" ] &&
	fail "in the map, not exported as listed: $(tr '\n' ' ' <"$tmp/missing")"
[ -s "$tmp/extra" ] &&
	fail "exported, not in the map as listed: $(tr '\n' ' ' <"$tmp/extra")"
nm -D --defined-only "$so" | awk '$2 == "A" { print $3 }' | sed 's/@@.*//' |
	sort -u >"$tmp/nodes"
awk '{ print $2 }' "$tmp/map" | sort -u | comm -3 - "$tmp/nodes" >"$tmp/nodediff"
[ -s "$tmp/nodediff" ] &&
	fail "version nodes differ from the map: $(tr '\n' ' ' <"$tmp/nodediff")"

# The soname carries the ABI major number.
soname=$(readelf -d "$so" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
echo "$soname" | grep -Eqx 'libfaultgen\.so\.[0-9]+' ||
	fail "soname '$soname' is not libfaultgen.so.N"

# Linked against libc and libnuma only: libcpuset, where built in, is
# loaded with dlopen and declared in a .note.dlopen ELF note instead.
needed=$(readelf -d "$so" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' |
	tr '\n' ' ')
for n in $needed; do
	case $n in
	libc.so.* | libnuma.so.* | libpthread.so.* | libdl.so.* | libasan.so.* | \
		libubsan.so.* | libm.so.* | libgcc_s.so.* | libstdc++.so.*) ;;
	*) fail "links $n (NEEDED: $needed)" ;;
	esac
done
if grep -q 'define HAVE_LIBCPUSET 1' "$top_builddir/config.h"; then
	readelf -p .note.dlopen "$so" 2>/dev/null | tr -d '\n' |
		grep -q '"soname":\["libcpuset\.so\.1"\]' ||
		fail "no .note.dlopen naming libcpuset.so.1"
fi

# The header declares exactly the exported functions.
printf '#include <faultgen.h>\n' >"$tmp/h.c"
# shellcheck disable=SC2086
$cc -E -P -I"$lib" "$tmp/h.c" |
	grep -o '\bfaultgen_[A-Za-z0-9_]*[[:space:]]*(' | tr -d ' (\t' |
	sort -u >"$tmp/decl"
awk '{ print $1 }' "$tmp/map" | sort -u | comm -3 - "$tmp/decl" >"$tmp/decldiff"
[ -s "$tmp/decldiff" ] &&
	fail "declared in faultgen.h vs exported differ (left: map only, right: header only): $(tr '\n' ' ' <"$tmp/decldiff")"

# A program that takes the address of every exported function links
# against the library and checks the version macros at run time.
{
	printf '#include <faultgen.h>\n#include <stdio.h>\n#include <string.h>\n'
	printf 'typedef void (*fn)(void);\nstatic const fn all[] = {\n'
	awk '{ print $1 }' "$tmp/map" | sort -u |
		awk '{ printf "\t(fn)%s,\n", $1 }'
	printf '};\n'
	cat <<'EOF'
int main(void)
{
	char v[64];

	snprintf(v, sizeof(v), "%d.%d.%d", FAULTGEN_VERSION_MAJOR,
		 FAULTGEN_VERSION_MINOR, FAULTGEN_VERSION_MICRO);
	if (strcmp(v, FAULTGEN_VERSION_STRING) ||
	    strcmp(faultgen_version(), FAULTGEN_VERSION_STRING) ||
	    FAULTGEN_VERSION_NUMBER != ((FAULTGEN_VERSION_MAJOR << 16) |
					(FAULTGEN_VERSION_MINOR << 8) |
					FAULTGEN_VERSION_MICRO)) {
		printf("header %s, library %s\n", FAULTGEN_VERSION_STRING,
		       faultgen_version());
		return 1;
	}
	return all[0] == NULL;
}
EOF
} >"$tmp/all.c"
# shellcheck disable=SC2086
if ! out=$($cc $san -std=c99 -Wall -Wextra -pedantic -Werror -I"$lib" \
	-o "$tmp/all" "$tmp/all.c" -L"$lib/.libs" -lfaultgen 2>&1); then
	fail "C99 build against every symbol: $out"
elif ! out=$(LD_LIBRARY_PATH=$lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
	"$tmp/all" 2>&1); then
	fail "version macros and faultgen_version() differ: $out"
fi
pkgversion=$(make_var PACKAGE_VERSION)
grep -q "FAULTGEN_VERSION_STRING \"$pkgversion\"" "$lib/faultgen.h" ||
	fail "FAULTGEN_VERSION_STRING is not the package version $pkgversion"

# The header alone, strict C99 and C11.
for std in c99 c11; do
	# shellcheck disable=SC2086
	out=$($cc -std=$std -Wall -Wextra -pedantic -Werror -fsyntax-only \
		-I"$lib" "$tmp/h.c" 2>&1) || fail "faultgen.h as $std: $out"
done

# C++: the header compiles and its functions have C linkage.
cxx=
for c in "${CXX:-}" g++ c++ clang++; do
	if [ -n "$c" ] && command -v "$c" >/dev/null; then
		cxx=$c
		break
	fi
done
if [ -n "$cxx" ]; then
	cat >"$tmp/h.cc" <<'EOF'
#include <faultgen.h>
#include <cstdio>

int main()
{
	faultgen_attr *attr = nullptr;
	int err = faultgen_attr_new(&attr);

	if (!err)
		err = faultgen_attr_set_pattern(attr, FAULTGEN_PER_THREAD_VMA);
	std::printf("%s %s\n", faultgen_version(), faultgen_strerror(err));
	faultgen_attr_free(attr);
	return err != 0;
}
EOF
	# shellcheck disable=SC2086
	if ! out=$($cxx $san -std=c++11 -Wall -Wextra -pedantic -Werror \
		-I"$lib" -o "$tmp/cxx" "$tmp/h.cc" -L"$lib/.libs" \
		-lfaultgen 2>&1); then
		fail "faultgen.h as C++11: $out"
	elif ! out=$(LD_LIBRARY_PATH=$lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
		"$tmp/cxx" 2>&1); then
		fail "C++ program: $out"
	fi
fi

n=$(wc -l <"$tmp/map")
if [ "$failures" -ne 0 ]; then
	echo "abi: $failures failure(s)" >&2
	exit 1
fi
echo "abi: $n symbols, each at its node; header C99/C11${cxx:+ and C++}"
if [ -z "$cxx" ]; then
	echo "abi: SKIP: no C++ compiler, the header was not tried as C++" >&2
	exit 77
fi
exit 0
