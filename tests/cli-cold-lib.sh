# SPDX-License-Identifier: GPL-2.0-or-later
# cli-cold-lib.sh - the helpers of cli-cold.sh and cli-cold-fuse.sh.
#
# Copyright (C) 2026 The libfaultgen authors

# "majflt cold_pages cold_stayed pages" of a --json run's line.
cold_figures() {
	python3 -c '
import json, sys
d = json.loads(sys.stdin.readline())
r, f = d["result"], d.get("figures", {})
def v(n):
    return int(f[n]["value"]) if n in f else -1
print(r["majflt"], v("cold_pages"), v("cold_stayed"), r["pages"],
      d["config"]["cold"])'
}

# A cold run in $1 with the options after it: each page is counted out
# of the cache or as one that stayed (rare with one worker: a page the
# kernel held a moment longer; at most 1 in 64 here), every page counted
# out is a major fault, and the directory holds nothing after it.
check_cold_run() {
	dir=$1
	shift
	if ! "$PFT" --backing=file:"$dir" --cold --json "$@" \
		>"$tmp/out" 2>"$tmp/err"; then
		fail "$*: exit $?: $(head -c 300 "$tmp/err")"
		return
	fi
	set -- $(cold_figures <"$tmp/out") "$*"
	majflt=$1 cold=$2 stayed=$3 pages=$4 on=$5
	shift 5
	if [ "$on" = True ] && [ $((cold + stayed)) -eq "$pages" ] &&
		[ "$stayed" -le $((pages / 64)) ] && [ "$majflt" -ge "$cold" ] &&
		[ "$majflt" -le $((pages + 8)) ]; then ok; else
		fail "$*: $majflt major faults, cold_pages $cold," \
			"cold_stayed $stayed for $pages pages (cold $on)"
	fi
	if [ -z "$(ls -A "$dir")" ]; then ok; else
		fail "$*: left in $dir: $(ls -A "$dir")"; fi
}

