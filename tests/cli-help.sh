#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# cli-help.sh - pft --help, built from pft's table of options and the
# library's tables of settings, says what pft 1.2's written-out text said
# (tests/pft-help-1.2.txt), line for line: each section's lines the same
# and in the same order; the pattern sections may come in another order
# (they follow the library's patterns), an option renamed since is listed
# where it was (its old name still taken), and the options added since
# are the only new lines, each in its pattern's section (a pattern of
# 1.2 may have a section only they fill).  --list-patterns
# --json gives a line of each pattern, with what the library's tables say.
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

# Options renamed since 1.2, OLD=NEW: "interleave" is a NUMA policy's
# word.  The old name is still taken; the new one is listed where the old
# one was.
renamed='--interleave-pages=--stripe-pages'

# pft's own options added since 1.2, OPTION=SECTION: each listed in that
# section of pft's own (the others added since are patterns' settings).
own_added='--lock-paths=Output: --lock-waits=Output: --cold=Workload:'

# The long options a help text lists at the start of a line.
options_of() {
	sed -n 's/^  \(--[a-z0-9-]*\).*/\1/p' "$1" | sort -u
}

# The help text $2 without the lines of options $1 (each option's lead
# and the lines indented under it).
drop() {
	awk -v opts="$1" '
		/^  [^ ]/ {
			skip = 0
			n = split(opts, a, " ")
			for (i = 1; i <= n; i++)
				if (index($0, "  " a[i] "=") == 1 ||
				    index($0, "  " a[i] " ") == 1)
					skip = 1
		}
		/^[^ ]/ { skip = 0 }
		!skip' "$2"
}

# The sections of a help text, one a line: "heading<TAB>line<TAB>...",
# sorted.
sections() {
	awk 'function flush() { if (sec != "") print sec }
		/^[^ ]/ { flush(); sec = $0; next }
		{ sec = sec "\t" $0 }
		END { flush() }' "$1" | sort
}

# "heading<TAB>n": the section of option $1 in help text $2, and how many
# options come before it there.
place() {
	awk -v o="$1" '/^[^ ]/ { h = $0; n = 0; next }
		index($0, "  " o "=") == 1 || index($0, "  " o " ") == 1 {
			print h "\t" n; exit }
		/^  [^ ]/ { n++ }' "$2"
}

"$PFT" --help >"$tmp/help" 2>"$tmp/err"
if [ $? -ne 0 ] || [ -s "$tmp/err" ]; then
	fail "pft --help: exit or stderr: $(cat "$tmp/err")"
fi
old_help=$top_srcdir/tests/pft-help-1.2.txt
olds= news=
for pair in $renamed; do
	old=${pair%%=*} new=${pair#*=}
	olds="$olds $old" news="$news $new"
	if [ "$(place "$old" "$old_help")" = "$(place "$new" "$tmp/help")" ] &&
		[ -n "$(place "$new" "$tmp/help")" ]; then ok; else
		fail "$new is not listed where $old was"; fi
	if "$PFT" "$old=0" -V >/dev/null 2>"$tmp/err"; then ok; else
		fail "$old is no longer taken: $(cat "$tmp/err")"; fi
done
# Options added since 1.2: a pattern's settings, each in its section.
options_of "$old_help" >"$tmp/old-options"
owns=
for pair in $own_added; do
	owns="$owns ${pair%%=*}"
done
added=$(options_of "$tmp/help" | comm -13 "$tmp/old-options" - |
	grep -vxF -e "$(echo $news $owns | tr ' ' '\n')")
# Patterns added since 1.2, named nowhere in its help: each is a name
# more at the end of --pattern's list, and a section of its own that
# holds only options added since (each checked below to be in a
# pattern's section); the names and headings go with those options.
new_patterns=$("$PFT" --list-patterns | while read -r p; do
	grep -qF -e "$p" "$old_help" || echo "$p"; done)
# --pattern's list on one line, however it wraps: a name more may carry
# the last names to a line of their own.
join_patterns() {
	awk '/^  --pattern=/ { list = $0; next }
		list != "" && /^                         [^ ]/ {
			sub(/^ +/, " "); list = list $0; next }
		list != "" { print list; list = "" }
		{ print }
		END { if (list != "") print list }'
}
drop "$olds" "$old_help" | join_patterns >"$tmp/old-kept"
drop "$news $added $owns" "$tmp/help" | join_patterns >"$tmp/new-kept"
# The last added first: each is then at the end of the list.
for p in $(echo "$new_patterns" | sed -n '1!G;h;$p'); do
	awk -v p="$p" '/^[^ ]/ && index($0, "(--pattern=" p) { next }
		{ n = index($0, ", " p); if (n && n + length(p) + 1 == length($0))
			$0 = substr($0, 1, n - 1); print }' \
		"$tmp/new-kept" >"$tmp/new-kept.p" && mv "$tmp/new-kept.p" "$tmp/new-kept"
done
# A pattern of 1.2 whose section holds only options added since (the
# shared VMA's writer-nice, writer-fifo): its heading goes with them.
drop_empty_patterns() {
	awk '/^[^ ].*\(--pattern=/ { held = $0; next }
		held != "" && /^[^ ]/ { held = "" }
		held != "" { print held; held = "" }
		{ print }' "$1" >"$1.e" && mv "$1.e" "$1"
}
drop_empty_patterns "$tmp/old-kept"
drop_empty_patterns "$tmp/new-kept"
sections "$tmp/old-kept" >"$tmp/before"
sections "$tmp/new-kept" >"$tmp/after"
if cmp -s "$tmp/before" "$tmp/after"; then
	ok
else
	fail "the help's sections differ from 1.2's: $(diff "$tmp/before" \
		"$tmp/after" | tr '\t' '|' | head -c 600)"
fi
# The usage line and pft's own sections keep their place: all up to the
# first pattern's heading.
own() {
	awk '/^[^ ].*\(--pattern=/ { exit } { print }' "$1"
}
if [ "$(own "$tmp/new-kept")" = "$(own "$tmp/old-kept")" ]; then
	ok
else
	fail "pft's own options moved: $(diff "$tmp/old-kept" \
		"$tmp/new-kept" | head -c 300)"
fi
# Each added option is in a pattern's section (its heading names
# --pattern=), after the sections of pft's own options.
for opt in $added; do
	heading=$(awk -v o="$opt" '/^[^ ]/ { h = $0 }
		index($0, "  " o "=") == 1 || index($0, "  " o " ") == 1 {
			print h; exit }' "$tmp/help")
	case $heading in
	*"(--pattern="*) ok ;;
	*) fail "$opt is listed under '$heading', not a pattern's" ;;
	esac
done

for pair in $own_added; do
	opt=${pair%%=*} want=${pair#*=}
	heading=$(awk -v o="$opt" '/^[^ ]/ { h = $0 }
		index($0, "  " o "=") == 1 || index($0, "  " o " ") == 1 {
			print h; exit }' "$tmp/help")
	if [ "$heading" = "$want" ]; then ok; else
		fail "$opt is listed under '$heading', not '$want'"; fi
done

# The patterns as data: a line each, as the library says.
"$PFT" --list-patterns --json >"$tmp/patterns" 2>"$tmp/err"
"$PFT" --list-patterns >"$tmp/names"
if python3 - "$tmp/patterns" "$tmp/names" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
names = open(sys.argv[2]).read().split()
docs = [json.loads(l) for l in lines]
assert [d["pattern"] for d in docs] == names, names
by = {d["pattern"]: d for d in docs}
assert all(d["schema"] == "pft-patterns/1" for d in docs)
assert by["pretouch"]["runs_once"] and by["qemu-prealloc"]["runs_once"]
assert not by["shared-vma"]["runs_once"]
assert by["cow-fork"]["backings"] == ["anon"]
assert by["pretouch"]["worker_kinds"] == ["threads"]
cow = {s["name"]: s for s in by["cow-fork"]["settings"]}
assert cow["cow-child"]["keywords"] == ["waits", "reads", "writes"]
assert cow["cow-child"]["default"] == "waits"
pre = {s["name"]: s for s in by["pretouch"]["settings"]}
assert pre["jdk"]["min"] == 8 and pre["jdk"]["default"] == 21
assert pre["chunk-size"]["page_multiple"] is True
assert "cachelines" in by["shared-vma"]["reads"]
assert "cachelines" not in by["pretouch"]["reads"]
assert "stride-pages" not in by["sparse-vma"]["reads"]
PY
then ok; else fail "pft --list-patterns --json: $(head -c 300 "$tmp/patterns")"; fi
"$PFT" --json --list-patterns >"$tmp/patterns2"
if cmp -s "$tmp/patterns" "$tmp/patterns2"; then ok; else
	fail "--json --list-patterns differs from --list-patterns --json"; fi
finish
