#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli-collapse.sh - pft --pattern=ro-collapse prints its human line and
# its JSON object, for every protection and both ways of collapsing, and
# exits 0 whatever the kernel decided.  The test skips while the library
# answers that the pattern is not supported, or the kernel lacks
# MADV_COLLAPSE; it asserts on the reported state, never on timings.
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

have_python || skip "python3 is needed"

run_pft probe --pattern=ro-collapse -m 4M
if [ "$rc" -eq 1 ] && grep -q 'not supported by this kernel or build' "$tmp/probe.err"; then
	skip "the library does not run --pattern=ro-collapse here"
fi
if grep -q 'not supported here' "$tmp/probe.out"; then
	skip "this kernel has no MADV_COLLAPSE"
fi
[ "$rc" -eq 0 ] && ok || fail "--pattern=ro-collapse exited $rc: $(cat "$tmp/probe.err")"

num='[0-9][0-9]*\.[0-9]'
madv_line() {
	printf '^collapsed [0-9]*/%s %s by MADV_COLLAPSE in %s ms, %s ms/range' \
		"$1" "$2" "$num" "${num}[0-9]"
}

# "human NAME RANGES WORDS ARGS...": exit 0, one line of the format.
human() {
	hname=$1
	ranges=$2
	words=$3
	shift 3
	run_pft "$hname" --pattern=ro-collapse "$@"
	[ "$rc" -eq 0 ] && ok || fail "$hname: pft --pattern=ro-collapse $* exited $rc: $(cat "$tmp/$hname.err")"
	[ "$(wc -l <"$tmp/$hname.out")" -eq 1 ] && grep -q "$(madv_line "$ranges" "$words")" "$tmp/$hname.out" &&
		ok || fail "$hname: line '$(cat "$tmp/$hname.out")'"
	check_lines_have_letters "$tmp/$hname.out" "$hname stdout"
	check_lines_have_letters "$tmp/$hname.err" "$hname stderr"
}

human mprotect 4 'read-only ranges (mprotect)' -m 8M
human fork 4 'read-only shared ranges (fork)' -m 8M --protect=fork
human writable 4 'writable ranges (control)' -m 8M --protect=writable
human rounded 2 'read-only ranges (mprotect)' -m 3M
human threads 4 'read-only ranges (mprotect)' -t 2 --oversubscribe -m 8M

# The JSON object: one line, valid, and what it says holds together.
run_pft json --json --pattern=ro-collapse -m 8M
python3 - "$tmp/json.out" <<'EOF' >"$tmp/json.check" 2>&1
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, len(lines)
assert lines[0].startswith('{"schema":"pft-run/1",')
d = json.loads(lines[0])
c = d["collapse"]
assert d["config"]["pattern"] == "ro-collapse"
assert d["config"]["protect"] == "mprotect" and d["config"]["collapse"] == "madvise"
assert c["ranges"] == 4, c
assert 0 <= c["collapsed"] <= c["ranges"] and 0 <= c["failed"] <= c["ranges"], c
assert c["verdict"] in ("collapsed", "partial", "refused-read-only",
                        "refused-shared", "unsupported", "none"), c
assert (c["verdict"] == "collapsed") == (c["collapsed"] == c["ranges"]), c
assert len(d["ranges"]) == 4, d["ranges"]
states = [r["state"] for r in d["ranges"]]
assert states.count("collapsed") == c["collapsed"], (states, c)
assert states.count("failed") == c["failed"], (states, c)
assert all(r["error"] is None for r in d["ranges"] if r["state"] == "collapsed")
assert c["content_ok"] is True, c
assert "vmstat_delta" in d and "thp" in d
# The pattern's figures, named by the library, agree with its result.
f = d["figures"]
for name in ("ranges", "collapsed", "failed"):
    assert f[name] == {"value": c[name], "unit": "ranges"}, (name, f[name])
assert f["collapse_s"]["unit"] == "s" and f["collapse_s"]["value"] == c["collapse_s"], f
assert f["content_ok"] == {"value": True, "unit": "bool"}, f
EOF
[ $? -eq 0 ] && [ "$rc" -eq 0 ] && ok || fail "--json: exit $rc: $(cat "$tmp/json.check")"

# -v adds the figures line after the pattern's own line.
run_pft verbose -v --pattern=ro-collapse -m 8M
[ "$rc" -eq 0 ] && [ "$(grep -c . "$tmp/verbose.out")" -eq 2 ] &&
	sed -n 2p "$tmp/verbose.out" | grep -q '^figures: ranges 4 ranges, collapsed [0-4] ranges, failed [0-4] ranges, collapse_s [0-9.e-]* s, .*, content_ok yes$' &&
	ok || fail "-v: exit $rc: '$(cat "$tmp/verbose.out")'"

# khugepaged: it runs and reports, whatever khugepaged managed in 1 s,
# unless THP is "never" (then it cannot work at all).
if [ "$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)" != never ]; then
	run_pft khugepaged --pattern=ro-collapse --collapse=khugepaged --timeout=1 -m 4M
	[ "$rc" -eq 0 ] &&
		grep -q '^collapsed [0-9]*/2 read-only ranges (mprotect) by khugepaged in [0-9.]* s (timeout 1 s)' \
			"$tmp/khugepaged.out" && ok ||
		fail "--collapse=khugepaged: exit $rc: '$(cat "$tmp/khugepaged.out")' $(cat "$tmp/khugepaged.err")"
	# --poll, ro-collapse's own setting: counted every --poll seconds,
	# so with a poll beyond the timeout, at the start and at the end.
	run_pft poll --json --pattern=ro-collapse --collapse=khugepaged \
		--timeout=1 --poll=5 -m 4M
	[ "$rc" -eq 0 ] && python3 - "$tmp/poll.out" <<'EOF2' && ok ||
import json, sys
d = json.loads(open(sys.argv[1]).read())
assert d["config"]["poll_s"] == 5 and d["config"]["timeout_s"] == 1, d
assert 1 <= len(d["progress"]) <= 2, d["progress"]
EOF2
		fail "--poll=5: exit $rc: $(cat "$tmp/poll.out" "$tmp/poll.err")"
else
	echo "$test_name: THP is never: khugepaged not tried" >&2
fi
for bad in '--poll=0|must be more than 0 seconds' \
	'--poll=x|not a number of seconds'; do
	run_pft badpoll --pattern=ro-collapse "${bad%%|*}" -m 4M
	[ "$rc" -eq 2 ] && grep -q "^pft: --poll '.*': ${bad#*|}" \
		"$tmp/badpoll.err" && ok ||
		fail "${bad%%|*}: exit $rc: $(cat "$tmp/badpoll.err")"
done
run_pft pollpattern --poll=1 -m 4M
[ "$rc" -eq 2 ] && grep -q '^pft: --poll needs --pattern=ro-collapse$' \
	"$tmp/pollpattern.err" && ok ||
	fail "--poll without ro-collapse: exit $rc: $(cat "$tmp/pollpattern.err")"

finish
