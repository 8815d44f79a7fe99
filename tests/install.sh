#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# install.sh - what a packager and a consumer of the library see: 'make
# install DESTDIR=...' lays out the program, the library (shared, with its
# links, and static), the header, the pkg-config file and the manual; a
# program built out of tree with nothing but
#     cc x.c $(pkg-config --cflags --libs libfaultgen)
# against that staging prefix links and runs, and links statically with
# 'pkg-config --static'; 'make uninstall' then leaves no file behind.
#
# Copyright (C) 2026 The libfaultgen authors
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fg-install.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest
failures=0
skipped=

fail() {
	echo "install: FAIL: $*" >&2
	failures=$((failures + 1))
}

. "$top_srcdir/tests/make-var.sh"

# The build's own make flags (a jobserver of the make running this test)
# are not ours.
run_make() {
	MAKEFLAGS= MFLAGS= MAKELEVEL= make -s --no-print-directory \
		-C "$top_builddir" \
		"$@" DESTDIR="$dest"
}

cc=$(make_var CC)
san=$(make_var SAN_CFLAGS)
version=$(make_var PACKAGE_VERSION)
bindir=$(make_var bindir)
libdir=$(make_var libdir)
includedir=$(make_var includedir)
mandir=$(make_var mandir)
pkgconfigdir=$(make_var pkgconfigdir libfaultgen)
pkg_config=$(make_var PKG_CONFIG)
[ -n "$pkg_config" ] || pkg_config=pkg-config

if ! out=$(run_make install 2>&1); then
	echo "$out" >&2
	fail "make install DESTDIR=$dest"
	exit 1
fi

# The layout: pft and its front-end scripts, the header, the pkg-config
# file, the overview pages, and the JNI shim and jar where they are built.
for f in $(make_var "bin_PROGRAMS bin_SCRIPTS dist_bin_SCRIPTS" pft); do
	[ -x "$dest$bindir/$f" ] || fail "not installed: $bindir/$f"
done
for f in "$includedir/faultgen.h" "$pkgconfigdir/libfaultgen.pc" \
	"$mandir/man1/pft.1" "$mandir/man7/faultgen.7" \
	"$mandir/man5/pft-profile.5" \
	"$(make_var profileschemadir man)/pft-profile.schema.json"; do
	[ -f "$dest$f" ] || fail "not installed: $f"
done
if [ -n "$(make_var jni_LTLIBRARIES bindings/java)" ]; then
	jnidir=$(make_var jnidir bindings/java)
	javadir=$(make_var javadir bindings/java)
	[ -f "$dest$jnidir/libfaultgen-jni.so" ] ||
		fail "not installed: $jnidir/libfaultgen-jni.so"
	# One jar, a file, in a directory of no one architecture, holding no
	# native code: 'java -p $javadir' sees one module (a versioned link,
	# or the -sources and -javadoc jars, beside it would be more).
	jar=faultgen.jar
	[ -f "$dest$javadir/$jar" ] && [ ! -L "$dest$javadir/$jar" ] ||
		fail "not installed: $javadir/$jar"
	others=$(cd "$dest$javadir" && ls | grep -v -x "$jar")
	[ -z "$others" ] || fail "more than $jar in $javadir: $others"
	case $javadir/ in
	"$libdir"/*) fail "the jar's directory $javadir is under $libdir" ;;
	esac
	if unzip -Z1 "$dest$javadir/$jar" 2>/dev/null | grep -E '\.(so|dll|dylib)$'; then
		fail "$jar holds native code"
	fi
fi
shared=$(cd "$dest$libdir" 2>/dev/null && ls libfaultgen.so.*.*.* 2>/dev/null)
# --disable-shared: no shared library, and consumers link the static one.
have_so=yes
[ -e "$top_builddir/libfaultgen/.libs/libfaultgen.so" ] || have_so=no
if [ $have_so = no ]; then
	skipped="$skipped shared library (configured with --disable-shared),"
elif [ -z "$shared" ]; then
	fail "no libfaultgen.so.N.N.N in $libdir"
else
	major=$(readelf -d "$dest$libdir/$shared" |
		sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
	[ -L "$dest$libdir/$major" ] || fail "no soname link $libdir/$major"
	[ -L "$dest$libdir/libfaultgen.so" ] ||
		fail "no development link $libdir/libfaultgen.so"
fi
static=$dest$libdir/libfaultgen.a
[ -f "$static" ] || skipped="$skipped static library (configured without),"
for sym in $(sed -n 's/^[[:space:]]*\(faultgen_[A-Za-z0-9_]*\);.*/\1/p' \
	"$top_srcdir/libfaultgen/libfaultgen.map"); do
	[ -f "$dest$mandir/man3/$sym.3" ] ||
		fail "no manual page $mandir/man3/$sym.3"
done
if grep -l '@[A-Za-z_]*@' "$dest$includedir/faultgen.h" \
	"$dest$pkgconfigdir/libfaultgen.pc" 2>/dev/null; then
	fail "unsubstituted @VARIABLE@ in the files above"
fi

# A consumer that knows only the staging prefix.  The sysroot makes
# pkg-config put the staging directory in front of every path; the
# system-directory filters are off, so that -I/usr/include of a --prefix=/usr
# build is kept (pointing into the staging directory).
PKG_CONFIG_PATH=$dest$pkgconfigdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
PKG_CONFIG_SYSROOT_DIR=$dest
PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1
PKG_CONFIG_ALLOW_SYSTEM_LIBS=1
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_ALLOW_SYSTEM_CFLAGS \
	PKG_CONFIG_ALLOW_SYSTEM_LIBS
if ! command -v "$pkg_config" >/dev/null; then
	fail "no $pkg_config: a consumer cannot find the library"
	exit 1
fi
pcdir=$("$pkg_config" --variable=pcfiledir libfaultgen 2>&1)
case $pcdir in
"$dest"/*) ;;
*) fail "pkg-config found libfaultgen.pc in '$pcdir', not the staging dir" ;;
esac
pcversion=$("$pkg_config" --modversion libfaultgen 2>&1)
[ "$pcversion" = "$version" ] ||
	fail "pkg-config --modversion says '$pcversion', not $version"
cflags=$("$pkg_config" --cflags libfaultgen) || fail "pkg-config --cflags"
libs=$("$pkg_config" --libs libfaultgen) || fail "pkg-config --libs"
static_libs=$("$pkg_config" --static --libs libfaultgen) ||
	fail "pkg-config --static --libs"

src=$top_srcdir/examples/shared-vma.c
if [ ! -f "$src" ]; then
	src=$tmp/consumer.c
	cat >"$src" <<'EOF'
#include <faultgen.h>
#include <stdio.h>

int main(void)
{
	struct faultgen_result res = { .size = sizeof(res) };
	struct faultgen_attr *attr;
	struct faultgen_run *run;
	int err = faultgen_attr_new(&attr);

	if (!err)
		err = faultgen_attr_set_size(attr, 1 << 20);
	if (!err)
		err = faultgen_run_new(attr, &run);
	faultgen_attr_free(attr);
	if (err)
		return 1;
	faultgen_run_result(run, &res);
	printf("faulted %llu pages of one VMA\n", (unsigned long long)res.pages);
	faultgen_run_free(run);
	return 0;
}
EOF
fi
# 1 MiB, 2 threads: 256 pages of 4 KiB, too little for a huge page.
pages=$((1048576 / $(getconf PAGESIZE)))

# shellcheck disable=SC2086
if ! out=$(cd "$tmp" && $cc $san -o consumer "$src" $cflags $libs 2>&1); then
	fail "cc $src \$(pkg-config --cflags --libs libfaultgen): $out"
else
	used=$(LD_LIBRARY_PATH=$dest$libdir ldd "$tmp/consumer" 2>/dev/null |
		sed -n 's/.*libfaultgen\.so[^ ]* => \([^ ]*\).*/\1/p')
	case $have_so:$used in
	yes:"$dest"/* | no:) ;;
	*) fail "the consumer loads libfaultgen from '$used'" ;;
	esac
	out=$(LD_LIBRARY_PATH=$dest$libdir "$tmp/consumer" 1M 2 </dev/null 2>&1)
	rc=$?
	if [ $rc -ne 0 ] || ! echo "$out" | grep -q "faulted $pages pages"; then
		fail "the consumer (exit $rc): $out"
	fi
fi

if [ -n "$san" ]; then
	skipped="$skipped static link (sanitizer build),"
elif [ -f "$static" ]; then
	# shellcheck disable=SC2086
	if ! out=$(cd "$tmp" && $cc -static -o consumer-static "$src" \
		$cflags $static_libs 2>&1); then
		fail "cc -static ... \$(pkg-config --static --libs libfaultgen): $out"
	elif readelf -d "$tmp/consumer-static" 2>/dev/null | grep -q NEEDED; then
		fail "the static consumer still needs shared libraries"
	else
		out=$("$tmp/consumer-static" 1M 2 </dev/null 2>&1)
		rc=$?
		if [ $rc -ne 0 ] || ! echo "$out" | grep -q "faulted $pages pages"; then
			fail "the static consumer (exit $rc): $out"
		fi
	fi
fi

if ! out=$(run_make uninstall 2>&1); then
	echo "$out" >&2
	fail "make uninstall DESTDIR=$dest"
fi
left=$(find "$dest" ! -type d 2>/dev/null)
[ -z "$left" ] || fail "left after make uninstall: $left"

if [ "$failures" -ne 0 ]; then
	echo "install: $failures failure(s)" >&2
	exit 1
fi
if [ -n "$skipped" ]; then
	linked="shared only"
else
	linked="shared and static"
fi
echo "install: layout, pkg-config consumer ($linked), uninstall: ok"
if [ -n "$skipped" ]; then
	echo "install: SKIP: not checked:${skipped%,}" >&2
	exit 77
fi
exit 0
