#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli-numa-maps.sh - -N prints the numa_maps line of the mapping that holds
# the region, in the text output and in --json, also when the region's
# mapping merged with the anonymous mapping below it: a thread stack has
# the region's flags under --thp=never on kernels that mark stacks
# VM_NOHUGEPAGE (and any stack on older kernels), and the merged line
# then starts below the region.  A size that is not a multiple of 2 MiB
# keeps the kernel from aligning the region away from its neighbours.
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:-$(dirname "$0")/..}/tests/cli-lib.sh"

[ -r /proc/self/numa_maps ] || skip "no /proc/self/numa_maps (kernel without NUMA)"
have_python || skip "python3 is needed to read the JSON"
pages=1000

# The lines with pages, and their anon= counts summed.
anon_sum() {
	sed -n 's/.* anon=\([0-9]*\).*/\1/p' "$1" | awk '{ s += $1 } END { print s + 0 }'
}

for args in "-t 1" "-t 2 --oversubscribe" \
	"-t 2 --oversubscribe --thp=never" "-t 4 --oversubscribe --thp=never" \
	"-t 2 --oversubscribe --thp=always"; do
	# shellcheck disable=SC2086
	run_pft text $args -m 4000K -N
	if [ "$rc" -ne 0 ]; then
		fail "$args -N: exit $rc: $(tail -n 1 "$tmp/text.err")"
		continue
	fi
	grep ' anon=' "$tmp/text.out" >"$tmp/lines"
	n=$(wc -l <"$tmp/lines")
	sum=$(anon_sum "$tmp/lines")
	# One line (a merged neighbour adds its own few pages to it).
	if [ "$n" -ne 1 ] || [ "$sum" -lt $pages ]; then
		fail "$args -N: $n numa_maps lines, $sum pages, want one line with $pages or more: $(cat "$tmp/text.out")"
	else
		ok
	fi
	# shellcheck disable=SC2086
	run_pft json $args -m 4000K -N --json
	python3 -c 'import json, sys
d = json.loads(open(sys.argv[1]).readline())
for line in d["numa_maps"]:
    print(line)' "$tmp/json.out" | grep ' anon=' >"$tmp/jlines"
	n=$(wc -l <"$tmp/jlines")
	sum=$(anon_sum "$tmp/jlines")
	if [ "$rc" -ne 0 ] || [ "$n" -ne 1 ] || [ "$sum" -lt $pages ]; then
		fail "$args -N --json: exit $rc, $n numa_maps lines, $sum pages: $(cat "$tmp/jlines")"
	else
		ok
	fi
done

# One mapping per worker, with guards: one line each, their pages only.
run_pft per -M -t 4 --oversubscribe -m 4000K -N
grep ' anon=' "$tmp/per.out" >"$tmp/lines"
if [ "$rc" -ne 0 ] || [ "$(wc -l <"$tmp/lines")" -ne 4 ] ||
	[ "$(anon_sum "$tmp/lines")" -ne $pages ]; then
	fail "-M -t 4 -N: exit $rc: $(cat "$tmp/per.out")"
else
	ok
fi
finish
