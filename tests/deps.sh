#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# deps.sh - the library's files depend on each other in one direction:
# read from the built objects (which file calls a function, or uses data,
# that another file defines), the graph has no cycle; only api.c defines
# exported faultgen_* functions, and no file calls them (internal code
# never goes back through the API layer).
#
# Copyright (C) 2026 The libfaultgen authors
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
lib=$top_builddir/libfaultgen
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fg-deps.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
	echo "deps: FAIL: $*" >&2
	failures=$((failures + 1))
}

. "$top_srcdir/tests/make-var.sh"

# The object of each C file of the installed library (PIC where built).
objects=
for src in $(make_var libfaultgen_la_SOURCES libfaultgen); do
	case $src in *.c) ;; *) continue ;; esac
	base=${src%.c}
	if [ -f "$lib/.libs/$base.o" ]; then
		objects="$objects $lib/.libs/$base.o"
	elif [ -f "$lib/$base.o" ]; then
		objects="$objects $lib/$base.o"
	else
		fail "no object for $src (build the library first)"
	fi
done
[ -n "$objects" ] || fail "no object found in $lib"

# "file symbol" of every defined global, and of every undefined one.
for o in $objects; do
	f=$(basename "$o" .o).c
	nm --defined-only -g "$o" |
		awk -v f="$f" 'NF == 3 { sub(/@.*/, "", $3); print $3, f }'
done | sort -u >"$tmp/defs"
for o in $objects; do
	f=$(basename "$o" .o).c
	nm -u "$o" | awk -v f="$f" '{ print $NF, f }'
done | sort -u >"$tmp/uses"

# Edges "user definer" between two files of the library.
join "$tmp/uses" "$tmp/defs" | awk '$2 != $3 { print $2, $3 }' |
	sort -u >"$tmp/edges"
[ -s "$tmp/edges" ] || fail "no dependency found between the files"
if ! tsort "$tmp/edges" >/dev/null 2>"$tmp/tsort"; then
	fail "the files depend on each other in a cycle: $(tr '\n' ' ' <"$tmp/tsort")"
fi

# Exported functions: defined in api.c only, called by no file.
awk '$1 ~ /^faultgen_/ && $2 != "api.c" { print $2 ": " $1 }' "$tmp/defs" \
	>"$tmp/stray"
[ -s "$tmp/stray" ] &&
	fail "exports defined outside api.c: $(tr '\n' ' ' <"$tmp/stray")"
awk '$1 ~ /^faultgen_/ { print $2 ": " $1 }' "$tmp/uses" >"$tmp/calls"
[ -s "$tmp/calls" ] &&
	fail "files call the public API: $(tr '\n' ' ' <"$tmp/calls")"

if [ "$failures" -ne 0 ]; then
	echo "deps: $failures failure(s)" >&2
	exit 1
fi
echo "deps: $(wc -l <"$tmp/edges") dependencies between $(echo $objects | wc -w) files, no cycle"
exit 0
