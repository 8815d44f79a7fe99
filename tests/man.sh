#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# man.sh - the manual covers the library: every exported function has a
# page in man/man3 (a one-line ".so" link to a shared page counts), every
# section-3 page has the sections a C programmer needs, every page is
# listed for installation, mandoc -Tlint and groff find nothing wrong, and
# the program in each page's EXAMPLES section compiles without a warning,
# links against the library just built and runs (exit 0, or 77 when it
# lacks a privilege or kernel feature).
#
# The EXAMPLES program is every .EX/.EE block of that section, joined;
# blocks that show a shell session (first line "$ " or "# ") or output (no
# ';' at all) are left out.  Roff escapes allowed in those blocks: \e \- \&
# \(aq \(dq \(ti \(ha \(rs.
#
# Copyright (C) 2026 The libfaultgen authors
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
man=$top_srcdir/man
lib=$top_builddir/libfaultgen
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fg-man.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
	echo "man: FAIL: $*" >&2
	failures=$((failures + 1))
}

. "$top_srcdir/tests/make-var.sh"

# The exported functions: the version script, and the built library when
# there is a shared one (abi.sh checks that the two agree).
symbols() {
	sed -n 's/^[[:space:]]*\(faultgen_[A-Za-z0-9_]*\);.*/\1/p' \
		"$top_srcdir/libfaultgen/libfaultgen.map"
	if [ -f "$lib/.libs/libfaultgen.so" ]; then
		nm -D --defined-only "$lib/.libs/libfaultgen.so" |
			sed -n 's/^.* [TtWiDdBbRr] \(faultgen_[A-Za-z0-9_]*\)@.*/\1/p'
	fi
}

# The target of a ".so man3/x.3" page, or nothing for a real page.
so_target() {
	IFS= read -r first <"$1" || first=
	case $first in
	.so[[:space:]]*)
		set -f
		# shellcheck disable=SC2086
		set -- $first
		set +f
		[ $# -ne 2 ] || echo "$2"
		;;
	esac
}

# The NAME section's text of a page.
name_line() {
	awk '/^\.SH/ { in_name = ($2 == "NAME"); next }
	     in_name { printf "%s ", $0 }' "$1"
}

check_symbols_have_pages() {
	for sym in $(symbols | sort -u); do
		page=$man/man3/$sym.3
		if [ ! -f "$page" ]; then
			fail "$sym has no page man/man3/$sym.3"
			continue
		fi
		target=$(so_target "$page")
		[ -n "$target" ] && page=$man/$target
		if ! name_line "$page" 2>/dev/null | grep -qw "$sym"; then
			fail "the NAME section of ${target:-man3/$sym.3} does not name $sym"
		fi
	done
}

check_links() {
	for page in "$man"/man*/*.[0-9]; do
		target=$(so_target "$page")
		[ -n "$target" ] || continue
		if [ "$(wc -l <"$page")" -ne 1 ]; then
			fail "${page#"$man"/}: a .so link must be one line"
		fi
		if [ ! -f "$man/$target" ] || [ -n "$(so_target "$man/$target")" ]; then
			fail "${page#"$man"/}: .so target $target is not a page"
		fi
	done
}

check_sections() {
	page=$1
	rel=${page#"$man"/}
	awk 'BEGIN {
		n = split("NAME,SYNOPSIS,DESCRIPTION,RETURN VALUE,ERRORS," \
			  "VERSIONS,EXAMPLES,SEE ALSO", want, ",")
	}
	/^\.SH / {
		t = $0
		sub(/^\.SH "?/, "", t)
		sub(/"?[[:space:]]*$/, "", t)
		seen[t] = 1
	}
	END { for (i = 1; i <= n; i++) if (!(want[i] in seen)) print want[i] }
	' "$page" >"$tmp/sections"
	while read -r s; do
		fail "$rel has no $s section"
	done <"$tmp/sections"
	grep -q '^\.B #include <faultgen\.h>' "$page" ||
		fail "$rel: SYNOPSIS lacks #include <faultgen.h>"
	grep -Eq 'lfaultgen|pkg\\?-config' "$page" ||
		fail "$rel: SYNOPSIS lacks the link line"
}

# A reference to a page of ours, such as .BR faultgen_run_new (3), leads to
# a page.
check_xrefs() {
	# One pass over every page: "PAGE REF SEC" of each reference.
	(cd "$man" && grep -H '^\.[BIR][BIR] ' man*/*.[0-9]) |
		sed -n 's/^\([^:]*\):\.[BIR][BIR] \(( \)\{0,1\}\(faultgen[A-Za-z0-9_]*\|pft\) (\([0-9]\)).*/\1 \3 \4/p' |
		sort -u | while read -r rel ref sec; do
		[ -f "$man/man$sec/$ref.$sec" ] || echo "$rel refers to $ref($sec)"
	done >"$tmp/xrefs"
	while read -r line; do
		fail "$line, which has no page"
	done <"$tmp/xrefs"
}

# Every page is listed for installation (and so for the tarball).
check_listed() {
	listed=" $(make_var dist_man1_MANS man) \
$(make_var dist_man3_MANS man) \
$(make_var dist_man5_MANS man) \
$(make_var dist_man7_MANS man) "
	for page in "$man"/man*/*.[0-9]; do
		rel=${page#"$man"/}
		case $listed in
		*" $rel "*) ;;
		*) fail "$rel is not listed in man/Makefile.am" ;;
		esac
	done
	for rel in $listed; do
		[ -f "$man/$rel" ] || fail "man/Makefile.am lists $rel, not found"
	done
}

lint() {
	page=$1
	rel=${page#"$man"/}
	if [ -n "$(so_target "$page")" ]; then
		return # its target is checked; mandoc only dislikes .so itself
	fi
	if ! out=$(cd "$man" && mandoc -Tlint -W warning "$rel" 2>&1) ||
		[ -n "$out" ]; then
		fail "mandoc -Tlint: $out"
	fi
	if command -v groff >/dev/null; then
		out=$(cd "$man" && groff -man -ww -z -Tutf8 "$rel" 2>&1)
		[ -z "$out" ] || fail "groff -ww $rel: $out"
	fi
}

# Prints the C program of a page's EXAMPLES section.
example_source() {
	awk '
	/^\.SH/ { in_ex = ($2 == "EXAMPLES"); next }
	!in_ex { next }
	/^\.EX/ { n = 0; inblock = 1; next }
	/^\.EE/ {
		inblock = 0
		first = ""
		semi = 0
		for (i = 1; i <= n; i++) {
			if (first == "" && line[i] !~ /^[[:space:]]*$/)
				first = line[i]
			if (line[i] ~ /;/)
				semi = 1
		}
		if (first ~ /^(\$|#) / || !semi)
			next
		for (i = 1; i <= n; i++)
			print line[i]
		next
	}
	inblock && /^\.\\"/ { next }
	inblock && /^[.\047]/ { print "#error roff request in EXAMPLES: " $0; next }
	inblock { line[++n] = $0 }
	' "$1"
}

unescape() {
	sed -e 's/\\e/\x01/g' -e 's/\\-/-/g' -e 's/\\&//g' \
		-e "s/\\\\(aq/'/g" -e 's/\\(dq/"/g' -e 's/\\(ti/~/g' \
		-e 's/\\(ha/^/g' -e 's/\\(rs/\x01/g' -e 's/\x01/\\/g'
}

# Links the program $1 from the source $2 against the library built here:
# its shared object straight (libtool's link mode costs more than the
# compiler, 53 times), or through libtool where none was built.
link_example() {
	so=$lib/.libs/libfaultgen.so
	if [ -f "$so" ]; then
		# shellcheck disable=SC2086
		$cc $san -Wall -Wextra -Werror -I"$lib" -o "$1" "$2" "$so" \
			-Wl,-rpath,"$lib/.libs"
	else
		# shellcheck disable=SC2086
		"$top_builddir/libtool" --quiet --tag=CC --mode=link \
			$cc $san -Wall -Wextra -Werror -I"$lib" -o "$1" "$2" \
			"$lib/libfaultgen.la"
	fi
}

check_example() {
	page=$1
	rel=${page#"$man"/}
	name=$(basename "$page" .3)
	src=$tmp/$name.c
	example_source "$page" >"$tmp/$name.roff"
	if ! grep -q 'main' "$tmp/$name.roff"; then
		fail "$rel: EXAMPLES has no program"
		return
	fi
	bad=$(sed -e 's/\\e//g' -e 's/\\-//g' -e 's/\\&//g' \
		-e 's/\\(aq//g' -e 's/\\(dq//g' -e 's/\\(ti//g' \
		-e 's/\\(ha//g' -e 's/\\(rs//g' "$tmp/$name.roff" | grep '\\')
	[ -z "$bad" ] || fail "$rel: unknown roff escape in EXAMPLES: $bad"
	unescape <"$tmp/$name.roff" >"$src"
	# shellcheck disable=SC2086
	if ! out=$(link_example "$tmp/$name" "$src" 2>&1) || [ -n "$out" ]; then
		fail "$rel: EXAMPLES does not compile cleanly: $out"
		return
	fi
	out=$(cd "$tmp" && timeout 120 "./$name" </dev/null 2>&1)
	rc=$?
	case $rc in
	0)
		examples=$((examples + 1))
		echo "$out" | sed "s,^,man: $rel: ,"
		;;
	77) echo "man: $rel: EXAMPLES skipped: $out" >&2 ;;
	*) fail "$rel: EXAMPLES program exited $rc: $out" ;;
	esac
}

cc=$(make_var CC)
san=$(make_var SAN_CFLAGS)
examples=0

check_symbols_have_pages
check_links
check_xrefs
check_listed
for page in "$man"/man3/*.3; do
	[ -z "$(so_target "$page")" ] || continue
	check_sections "$page"
	check_example "$page"
done
have_mandoc=yes
if command -v mandoc >/dev/null; then
	for page in "$man"/man*/*.[0-9]; do
		lint "$page"
	done
else
	have_mandoc=no
fi

pages=$(ls "$man"/man*/*.[0-9] | wc -l)
if [ "$failures" -ne 0 ]; then
	echo "man: $failures failure(s) in $pages pages" >&2
	exit 1
fi
echo "man: $pages pages, $examples EXAMPLES programs built and run"
if [ $have_mandoc = no ]; then
	echo "man: SKIP: mandoc not installed, pages not linted" >&2
	exit 77
fi
exit 0
