#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli-numa.sh - pft's memory policies: each policy naming this machine's
# nodes runs, --json says which policy it was, and the pages each worker
# has on each node (counted by the library after the faults) add up to
# the pages it touched and sit where the policy put them.  The kernel's
# own view of the region (numa_maps, with -N) is the second witness.
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

have_python || { skip "no python3"; finish; }
[ -d /sys/devices/system/node/node0 ] || { skip "no NUMA nodes in sysfs"; finish; }
# The nodes this process may allocate on (its cpuset's mems).
mems=$(sed -n 's/^Mems_allowed_list:[[:space:]]*//p' /proc/self/status)
first=${mems%%[-,]*}

# "NAME POLICY NODES ARGS...": NODES, the nodes the pages may be on ("*":
# any allowed node).
while read -r name policy nodes args; do
	[ -n "$name" ] || continue
	# shellcheck disable=SC2086
	run_pft "$name" --json -t 2 -m 8M $args
	if [ "$rc" -ne 0 ]; then
		fail "$name: pft --json -t 2 -m 8M $args exited $rc: $(cat "$tmp/$name.err")"
		continue
	fi
	python3 - "$tmp/$name.out" "$policy" "$nodes" "$mems" <<'PY' \
		>"$tmp/$name.check" 2>&1 && ok || fail "$name ($args): $(cat "$tmp/$name.check")"
import json, sys
d = json.loads(open(sys.argv[1]).readline())
policy, nodes, mems = sys.argv[2], sys.argv[3], sys.argv[4]

def nodelist(s):
    out = set()
    for part in s.split(","):
        a, _, b = part.partition("-")
        out.update(range(int(a), int(b or a) + 1))
    return out

allowed = nodelist(mems)
want = allowed if nodes == "*" else nodelist(nodes)
assert d["config"]["numa"] == policy, (d["config"]["numa"], policy)
total = [0] * len(d["node_pages"])
for w in d["workers"]:
    np = w["node_pages"]
    assert sum(np) == w["pages"], ("worker", w["index"], np, w["pages"])
    for n, p in enumerate(np):
        assert p == 0 or n in want, ("worker", w["index"], "node", n, p)
        total[n] += p
assert total == d["node_pages"], (total, d["node_pages"])
assert sum(total) == d["result"]["pages"], (sum(total), d["result"]["pages"])
PY
done <<LIST
default default * 
local local * -p
localalloc local * --localalloc
membind bind $first --membind=$first
membind-all bind * --membind=all
interleave interleave $mems --interleave=$mems
preferred preferred $first --preferred=$first
worker-local worker-local * --numa=worker-local
per-thread-membind bind $first -M --membind=$first
processes-membind bind $first -n 2 --membind=$first
LIST

# --per-worker prints each worker's pages on each node, which add up to
# the worker's pages.
run_pft perworker --per-worker -t 2 -m 8M --membind="$first"
bad=$(awk '/^worker / {
	pages = 0; sum = -1
	for (i = 1; i < NF; i++) {
		if ($i == "pages") pages = $(i + 1)
		if ($i == "node_pages") {
			sum = 0; n = split($(i + 1), kv, ",")
			for (k = 1; k <= n; k++) { split(kv[k], p, ":"); sum += p[2] }
		}
	}
	if (sum != pages) print
}' "$tmp/perworker.out")
if [ "$rc" -eq 0 ] && [ -z "$bad" ] && grep -q "node_pages $first:" "$tmp/perworker.out"; then
	ok
else
	fail "--per-worker node_pages: exit $rc: ${bad:-$(cat "$tmp/perworker.out" "$tmp/perworker.err")}"
fi

# -N: the kernel's numa_maps of the region agree: its pages are on the
# bound node.
run_pft maps --json -N -t 2 -m 8M --membind="$first"
python3 - "$tmp/maps.out" "$first" <<'PY' >"$tmp/maps.check" 2>&1 &&
import json, re, sys
d = json.loads(open(sys.argv[1]).readline())
node = sys.argv[2]
lines = d["numa_maps"]
assert lines and all("bind:" + node in l for l in lines), lines
on = sum(int(m) for l in lines for m in re.findall(r"\bN%s=(\d+)" % node, l))
assert on >= d["result"]["pages"], (on, d["result"]["pages"])
PY
	ok || fail "--membind with -N: $(cat "$tmp/maps.check" "$tmp/maps.err")"

finish
