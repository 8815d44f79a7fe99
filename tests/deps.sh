#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# deps.sh - the library's files depend on each other in one direction,
# and so do pft's: read from the built objects (which file calls a
# function, or uses data, that another file defines), each graph has no
# cycle, and the order found is printed; pft.h's picture of pft's files
# holds every file and agrees with the objects; only api.c defines exported
# faultgen_* functions, and no file of the library calls them (internal
# code never goes back through the API layer).
#
# Copyright (C) 2026 The libfaultgen authors
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fg-deps.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
	echo "deps: FAIL: $*" >&2
	failures=$((failures + 1))
}

. "$top_srcdir/tests/make-var.sh"

# objects_of "VAR [VAR...]" DIR: in $objects, the object of each C file
# of the make variables VAR of the build's DIR (PIC where built).
objects_of() {
	objects=
	for src in $(make_var "$1" "$2"); do
		case $src in *.c) ;; *) continue ;; esac
		base=${src%.c}
		if [ -f "$top_builddir/$2/.libs/$base.o" ]; then
			objects="$objects $top_builddir/$2/.libs/$base.o"
		elif [ -f "$top_builddir/$2/$base.o" ]; then
			objects="$objects $top_builddir/$2/$base.o"
		else
			fail "no object for $2/$src (build $2 first)"
		fi
	done
	[ -n "$objects" ] || fail "no object found in $top_builddir/$2"
}

# loops FILE: the files of each loop that tsort reported in FILE, as
# "a.c b.c; c.c d.c".
loops() {
	awk '/input contains a loop/ { printf "%s", n++ ? "; " : ""; s = ""; next }
		{ sub(/^tsort: /, ""); printf "%s%s", s, $0; s = " " }' "$1"
}

# graph NAME: from $objects, "file symbol" of every defined global
# (NAME.defs) and of every undefined one (NAME.uses), the edges "user
# definer" between two of the files (NAME.edges); fails on a cycle, else
# prints the files in a one-way order: each uses only files after it.
graph() {
	for o in $objects; do
		f=$(basename "$o" .o).c
		nm --defined-only -g "$o" |
			awk -v f="$f" 'NF == 3 { sub(/@.*/, "", $3); print $3, f }'
	done | sort -u >"$tmp/$1.defs"
	for o in $objects; do
		f=$(basename "$o" .o).c
		nm -u "$o" | awk -v f="$f" '{ print $NF, f }'
	done | sort -u >"$tmp/$1.uses"
	join "$tmp/$1.uses" "$tmp/$1.defs" | awk '$2 != $3 { print $2, $3 }' |
		sort -u >"$tmp/$1.edges"
	if [ ! -s "$tmp/$1.edges" ]; then
		fail "$1: no dependency found between the files"
		return
	fi
	# "f f" for each file: in the order even when nothing uses it.
	for o in $objects; do
		f=$(basename "$o" .o).c
		echo "$f $f"
	done | cat - "$tmp/$1.edges" >"$tmp/$1.pairs"
	if ! LC_ALL=C tsort "$tmp/$1.pairs" >"$tmp/$1.order" 2>"$tmp/tsort"; then
		fail "$1: the files depend on each other in a cycle:" \
			"$(loops "$tmp/tsort")"
		return
	fi
	# shellcheck disable=SC2086
	echo "deps: $1: $(wc -l <"$tmp/$1.edges") dependencies between" \
		"$(echo $objects | wc -w) files, no cycle; in one-way order:"
	echo "deps: $1: $(paste -sd ' ' "$tmp/$1.order")"
}

# The installed library.
objects_of libfaultgen_la_SOURCES libfaultgen
graph libfaultgen

# Exported functions: defined in api.c only, called by no file.
awk '$1 ~ /^faultgen_/ && $2 != "api.c" { print $2 ": " $1 }' \
	"$tmp/libfaultgen.defs" >"$tmp/stray"
[ -s "$tmp/stray" ] &&
	fail "exports defined outside api.c: $(tr '\n' ' ' <"$tmp/stray")"
awk '$1 ~ /^faultgen_/ { print $2 ": " $1 }' "$tmp/libfaultgen.uses" \
	>"$tmp/calls"
[ -s "$tmp/calls" ] &&
	fail "files call the public API: $(tr '\n' ' ' <"$tmp/calls")"

# pft, with the archive of its options that it links.
objects_of "pft_SOURCES libpft_options_la_SOURCES" pft
graph pft

# pft.h's picture of them: every file on a line of its own ("-> a.c,
# b.c"), and each edge going down to a later line.
awk '/^ \*   (-> )?[a-z-]+\.c/ {
		sub(/^ \*   (-> )?/, ""); gsub(/,/, "")
		line++
		for (i = 1; i <= NF; i++) print $i, line
	}' "$top_srcdir/pft/pft.h" >"$tmp/pft.lines"
for o in $objects; do
	f=$(basename "$o" .o).c
	grep -q "^$f " "$tmp/pft.lines" ||
		fail "pft.h: $f is not in the picture of pft's files"
done
awk 'NR == FNR { line[$1] = $2; next }
	($1 in line) && ($2 in line) && line[$2] <= line[$1] {
		print $1 " uses " $2 }' "$tmp/pft.lines" "$tmp/pft.edges" \
	>"$tmp/upward"
[ -s "$tmp/upward" ] &&
	fail "pft.h's picture has files use others on their line or above:" \
		"$(paste -sd ',' "$tmp/upward")"

if [ "$failures" -ne 0 ]; then
	echo "deps: $failures failure(s)" >&2
	exit 1
fi
exit 0
