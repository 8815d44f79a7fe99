#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli-profile.sh - pft-survey --record, --compare and --plot against pft
# itself: "pft -t 2 -m 8M" recorded as a fault profile holds the
# survey's own faults (in all, and per kind on the 8 MiB object), from
# 2 threads, and with the syscall tracepoints the mapping calls (pft's
# munmap of the 8 MiB object, on its 2048 pages, a row from its first
# page, 0, to its last, 2047; null without them),
# no names unless --keep-names, and validates against the
# installed JSON Schema (man/man5/pft-profile.schema.json); a sampled
# recording carries its period; --compare of a profile with itself gives
# a ratio of 1 in every dimension; --plot draws an SVG; --record and
# --plot refuse an existing file and a link, leaving them as they were.
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

need_survey
schema=$top_srcdir/man/man5/pft-profile.schema.json

# validate FILE...: each validates against the schema file.
validate() {
	if out=$(cd "$top_srcdir/pft/survey" && PYTHONDONTWRITEBYTECODE=1 \
		python3 -m tests.schemacheck "$schema" "$@" 2>&1); then
		ok
	else
		fail "not valid against $schema: $out"
	fi
}

# record NAME ARGS...: a survey that must succeed, its output in
# $tmp/NAME.out and .err.
record() {
	name=$1
	shift
	"$survey" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
	[ "$rc" -eq 0 ] || fail "$name: exit $rc: $(cat "$tmp/$name.err")"
}

# check REPORT PROFILE PYTHON-CONDITIONS...: d the survey's JSON report,
# p the profile, text its text, total(p) its faults (period counted),
# on(p, size) the faults per kind of its anonymous object of that size,
# big the report's anonymous object of 8 MiB.
check() {
	report=$1
	prof=$2
	shift 2
	if out=$(python3 - "$report" "$prof" "$@" <<'PY' 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
p = json.loads(text)
MiB = 1 << 20
def total(p):
    return sum(r[5] for r in p["faults"]) * p["period"]
def on(p, size):
    o = [o["id"] for o in p["objects"] if o["size"] == size and
         o["backing"] == "anonymous"]
    out = {}
    for r in p["faults"]:
        if r[1] in o:
            out[r[4]] = out.get(r[4], 0) + r[5] * p["period"]
    return out
def threads_on(p, size):
    o = [o["id"] for o in p["objects"] if o["size"] == size]
    return len({r[0] for r in p["faults"] if r[1] in o})
def munmaps(p, size):
    o = [o["id"] for o in p["objects"] if o["size"] == size]
    return [c for c in p["calls"] if c[3] == "munmap" and c[1] in o]
def munmapped(p, size):
    return sum(c[8] for c in munmaps(p, size))
big = next(o for o in d["objects"] if o["size"] == 8 * MiB and
           o["backing"] == "anonymous")
bad = [c for c in sys.argv[3:] if not eval(c)]
if bad:
    print("; ".join(bad), "| report:", sum(o["faults"] for o in d["objects"]),
          {k: v["faults"] for k, v in big["kinds"].items()},
          "| profile:", total(p), on(p, 8 * MiB))
    sys.exit(1)
PY
	); then
		ok
	else
		fail "$prof: not true: $out"
	fi
}

record a --json --record="$tmp/a.json" -- "$PFT" -t 2 -m 8M $thp $over
check "$tmp/a.out" "$tmp/a.json" \
	'p["schema"] == "pft-profile/1" and p["period"] == 1 and p["bin_ms"] == 10' \
	'p["source"] == d["source"]' \
	'total(p) == sum(o["faults"] for o in d["objects"])' \
	'on(p, 8 * MiB) == {k: v["faults"] for k, v in big["kinds"].items()}' \
	'sum(on(p, 8 * MiB).values()) >= 2048 - d["perf"]["lost_faults"]' \
	'threads_on(p, 8 * MiB) == big["threads"] == 2' \
	'not p["names"] and "pft" not in text.replace("pft-profile", "").replace("pft-survey", "")' \
	'all(k not in text for k in ("\"path\"", "\"command\"", "\"name\""))' \
	'(p["calls"] is not None) == ("syscalls:sys_enter_madvise" in d["events"])' \
	'p["calls"] is None or munmapped(p, 8 * MiB) == 2048' \
	'p["calls"] is None or [c[6:8] for c in munmaps(p, 8 * MiB)] == [[0, 2047]]'
validate "$tmp/a.json"

# Names when asked; wider bins.
record names --record="$tmp/names.json" --keep-names --bin-ms=50 -- \
	"$PFT" -t 2 -m 8M $thp $over
check "$tmp/a.out" "$tmp/names.json" 'p["names"] and p["bin_ms"] == 50' \
	"p['processes'][0]['command'][1:] == ['-t', '2', '-m', '8M'] + '$thp $over'.split()" \
	'all("name" in t for t in p["threads"]) and all("path" in o for o in p["objects"])'
validate "$tmp/names.json"

# Sampled: one event in 16, the period in the profile.
record s --json -c 16 --events=page-faults --record="$tmp/s.json" -- \
	"$PFT" -t 2 -m 8M $thp $over
check "$tmp/s.out" "$tmp/s.json" 'p["period"] == 16 and p["calls"] is None' \
	'total(p) == sum(o["faults"] for o in d["objects"])' \
	'on(p, 8 * MiB) == {k: v["faults"] for k, v in big["kinds"].items()}'
validate "$tmp/s.json"

# A profile beside itself: 1 in every dimension.
"$survey" --compare "$tmp/a.json" "$tmp/a.json" --json >"$tmp/cmp.out" \
	2>"$tmp/cmp.err"
rc=$?
[ "$rc" -eq 0 ] || fail "--compare: exit $rc: $(cat "$tmp/cmp.err")"
if out=$(python3 - "$tmp/cmp.out" "$tmp/a.json" <<'PY' 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
r = [v["ratio"] for o in d["objects"] for k in o["kinds"]
     for v in k["dimensions"].values()]
r += [v["ratio"] for v in d["profile"].values()]
r += [v["ratio"] for v in d["without_event"].values()]
a = json.load(open(sys.argv[2]))
assert ("calls" in d) == (a["calls"] is not None), "calls"
r += [c["ratio"] for c in d.get("calls", [])]
assert d["objects"] and set(r) == {1.0}, sorted(set(map(str, r)))
PY
); then ok; else fail "--compare A A: $out"; fi
"$survey" --compare "$tmp/a.json" "$tmp/a.json" >"$tmp/cmpt.out" 2>&1 &&
	grep -q "^  all  *faults  *[0-9][0-9]*  *[0-9][0-9]*  *1\.000$" "$tmp/cmpt.out" &&
	ok || fail "--compare as text: $(head -n 12 "$tmp/cmpt.out")"

# The picture of both.
"$survey" --plot="$tmp/ab.svg" "$tmp/a.json" "$tmp/s.json" >"$tmp/plot.out" \
	2>&1 && python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' \
	"$tmp/ab.svg" && ok || fail "--plot: $(cat "$tmp/plot.out")"

# Never over a file, nor through a link.
echo precious >"$tmp/victim"
ln -s "$tmp/victim" "$tmp/link"
cp "$tmp/a.json" "$tmp/a.before"
for name in a.json link; do
	"$survey" --record="$tmp/$name" -- "$PFT" -t 1 -m 1M >"$tmp/exists.out" \
		2>"$tmp/exists.err"
	rc=$?
	[ "$rc" -eq 1 ] || fail "--record at $name: exit $rc"
	check_one_line exists "$name: exists"
done
cmp -s "$tmp/a.json" "$tmp/a.before" || fail "--record changed an existing file"
"$survey" --plot="$tmp/link" "$tmp/a.json" >"$tmp/plotlink.out" \
	2>"$tmp/plotlink.err"
rc=$?
[ "$rc" -eq 1 ] || fail "--plot at a link: exit $rc"
check_one_line plotlink "link: exists"
[ "$(cat "$tmp/victim")" = precious ] && [ -L "$tmp/link" ] && ok ||
	fail "the link or the file it names changed"

# A bad profile: one line naming the member.
sed 's/"faults"/"fault"/' "$tmp/a.json" >"$tmp/bad.json"
"$survey" --compare "$tmp/a.json" "$tmp/bad.json" >"$tmp/bad.out" \
	2>"$tmp/bad.err"
rc=$?
[ "$rc" -eq 1 ] || fail "a bad profile: exit $rc"
check_one_line bad "member 'faults' missing"

# Nothing left by the surveys.
[ -z "$(ls -A "$tmp/t")" ] || fail "temporary files left: $(ls -A "$tmp/t")"

finish
