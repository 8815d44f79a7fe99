#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli-sweep.sh - pft-sweep runs one pft per point (pattern, workers) over
# the default worker counts of the allowed CPUs, writes a points CSV with
# its columns and one row per point, a runs CSV with one row per measured
# run (warm-up runs left out), a JSON document that parses and agrees with
# both, the table on stdout and progress on stderr; the pretouch pattern;
# --dry-run, --cpu-list, pft's own checks of sizes, CPU lists and options
# reported as pft words them, and bad command lines; no file written
# through another user's link, a FIFO or link named refused.
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

have_python || skip "python3 is needed (pft-sweep is a Python 3 script)"
sweep=$top_builddir/pft/pft-sweep
ncpu=$(nr_allowed)
first_cpu=$(python3 -c 'import os; print(min(os.sched_getaffinity(0)))')

# The default worker counts: 1, 2, 4, ... below the allowed CPUs, then
# their number.
counts=
n=1
while [ "$n" -lt "$ncpu" ]; do
	counts="$counts $n"
	n=$((n * 2))
done
counts="${counts# } $ncpu"
counts=${counts# }
# shellcheck disable=SC2086
ncounts=$(printf '%s\n' $counts | wc -l)

points_header=pattern,workers,cpus,size,runs,metric,median,min,max,spread_pct,ratio,fault_per_wsec_median,round_rate_median,faults_per_wall_s_median,flt_per_cpu_s_median,start_skew_s_median,layout,label,lat_p50_ns_median,lat_p99_ns_median,interleave_pages,writers,threads_median,threads_started_median,process_faults_median,prealloc_s_median,backing,lp_user_faults_median,lp_mmap_read_median,lp_fallbacks_median,lp_fallbacks_per_fault_median,lw_read_p99_ns_median,lw_faults_mmap_read_median,lw_retries_median
runs_header=pattern,workers,cpus,size,run,pages,rounds,minflt,faults_agree,elapsed_s,fault_s,user_s,sys_s,start_skew_s,fault_per_wsec,flt_per_cpu_s,faults_per_wall_s,round_rate_median,round_rate_min,round_rate_max,layout,lat_count,lat_p50_ns,lat_p99_ns,interleave_pages,writers,threads,threads_started,populate,step_bytes,probe_faults,process_faults,prealloc_s,huge_page_bytes,backing,lp_user_faults,lp_mmap_read,lp_fallbacks,lp_fallbacks_per_fault,lw_read_p99_ns,lw_faults_mmap_read,lw_retries

# run_sweep NAME ARGS...: output in $tmp/NAME.out, .err, status in $rc.
run_sweep() {
	name=$1
	shift
	"$sweep" --pft="$PFT" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
}

# The structure of a sweep's files: $1 prefix, $2 patterns (comma
# separated), $3 counts (space separated), $4 runs per point, $5 pages
# per run of one point with one worker (a multiple for more workers is
# not checked: pft rounds slices up), $6 the mode.
cat >"$tmp/check.py" <<'EOF'
import csv, json, sys

prefix, patterns, counts, runs, mode = sys.argv[1], sys.argv[2].split(","), \
    [int(x) for x in sys.argv[3].split()], int(sys.argv[4]), sys.argv[5]
problems = []
def check(cond, what):
    if not cond:
        problems.append(what)

points = list(csv.DictReader(open(prefix + ".csv")))
allruns = list(csv.DictReader(open(prefix + "-runs.csv")))
doc = json.load(open(prefix + ".json"))
check(len(points) == len(patterns) * len(counts),
      "%d point rows, expected %d" % (len(points), len(patterns) * len(counts)))
check(len(allruns) == len(patterns) * len(counts) * runs,
      "%d run rows, expected %d" % (len(allruns), len(patterns) * len(counts) * runs))
want = [(p, n) for n in counts for p in patterns]
check([(r["pattern"], int(r["workers"])) for r in points] == want,
      "points not in (workers, pattern) order: %s" %
      [(r["pattern"], r["workers"]) for r in points])
for r in points:
    what = "%s/%s" % (r["pattern"], r["workers"])
    med, lo, hi = float(r["median"]), float(r["min"]), float(r["max"])
    check(r["runs"] == str(runs), what + ": runs " + r["runs"])
    check(r["metric"] == "legacy", what + ": metric " + r["metric"])
    check(0 < lo <= med <= hi, what + ": not 0 < min <= median <= max")
    check(abs(float(r["spread_pct"]) - (hi - lo) / med * 100) < 0.01,
          what + ": spread_pct is not (max - min) / median")
    mine = [float(x["fault_per_wsec"]) for x in allruns
            if x["pattern"] == r["pattern"] and x["workers"] == r["workers"]]
    mine.sort()
    m = mine[len(mine) // 2] if len(mine) % 2 else \
        (mine[len(mine) // 2 - 1] + mine[len(mine) // 2]) / 2
    check(abs(m - med) <= 0.001 + 1e-9 * med,
          what + ": median %s is not that of its runs (%s)" % (med, m))
    base = [x for x in points if x["pattern"] == patterns[0] and
            x["workers"] == r["workers"]][0]
    check(abs(float(r["ratio"]) - med / float(base["median"])) < 1e-3,
          what + ": ratio is not median / %s's" % patterns[0])
    check(r["round_rate_median"] == "" if mode == "one-shot" else
          float(r["round_rate_median"]) > 0, what + ": round_rate_median " +
          r["round_rate_median"])
for x in allruns:
    what = "run %s/%s/%s" % (x["pattern"], x["workers"], x["run"])
    check(1 <= int(x["run"]) <= runs, what + ": run number")
    check(x["faults_agree"] == "1", what + ": faults do not agree")
    check(int(x["pages"]) > 0 and int(x["minflt"]) > 0, what + ": no pages")
    check(int(x["rounds"]) == (1 if mode == "one-shot" else 2) *
          int(x["workers"]), what + ": rounds " + x["rounds"])
check(doc["schema"] == "pft-sweep/1", "JSON schema")
check(doc["config"]["patterns"] == patterns, "JSON config.patterns")
check(doc["config"]["workers"] == counts, "JSON config.workers")
check(doc["config"]["mode"] == mode, "JSON config.mode")
check(len(doc["points"]) == len(points), "JSON points")
for p in doc["points"]:
    check(p["status"] == 0, "JSON point status %s" % p["status"])
    check(len(p["runs"]) == runs, "JSON point runs %d" % len(p["runs"]))
    check(p["command"][0].endswith("pft") and "--json" in p["command"],
          "JSON point command %s" % p["command"])
    check(abs(p["stats"]["median"] -
              float([r for r in points if r["pattern"] == p["pattern"] and
                     int(r["workers"]) == p["workers"]][0]["median"])) < 0.01,
          "JSON median differs from the CSV's")
for p in problems:
    print(p)
EOF

# Every pattern at the default counts, two measured rounds after one
# warm-up round, two runs per point, no plot.
run_sweep rounds -m 4M --rounds=2 --warmup=1 -r 2 -o "$tmp/r" --no-plot
if [ "$rc" -ne 0 ]; then
	fail "rounds sweep exited $rc: $(tail -n 3 "$tmp/rounds.err")"
else
	ok
	[ "$(head -n 1 "$tmp/r.csv")" = "$points_header" ] ||
		fail "points CSV header: $(head -n 1 "$tmp/r.csv")"
	[ "$(head -n 1 "$tmp/r-runs.csv")" = "$runs_header" ] ||
		fail "runs CSV header: $(head -n 1 "$tmp/r-runs.csv")"
	python3 -m json.tool "$tmp/r.json" >/dev/null 2>&1 ||
		fail "r.json does not parse with python3 -m json.tool"
	out=$(python3 "$tmp/check.py" "$tmp/r" shared-vma,per-thread-vma,processes \
		"$counts" 2 rounds 2>&1)
	[ -z "$out" ] || fail "rounds sweep: $out"
	for f in r.gp r.png r.svg; do
		[ ! -e "$tmp/$f" ] || fail "--no-plot wrote $f"
	done
	# The table: a description, a header naming the patterns and the
	# ratios, one row per worker count.
	lines=$(wc -l <"$tmp/rounds.out")
	[ "$lines" -eq $((ncounts + 2)) ] ||
		fail "table has $lines lines, expected $((ncounts + 2))"
	sed -n 2p "$tmp/rounds.out" | grep -q \
		'^workers  *shared-vma  *spread  *per-thread-vma  *spread  *processes  *spread  *per-thread-vma/shared-vma  *processes/shared-vma$' ||
		fail "table header: $(sed -n 2p "$tmp/rounds.out")"
	rows=$(sed -n '3,$p' "$tmp/rounds.out" | awk '{ print $1 }' | tr '\n' ' ')
	[ "$rows" = "$counts " ] || fail "table rows for workers '$rows'"
	bad=$(sed -n '3,$p' "$tmp/rounds.out" | awk 'NF != 9')
	[ -z "$bad" ] || fail "table row without 9 columns: $bad"
	# Progress: each point named, with elapsed and left times.
	npoints=$((3 * ncounts))
	for i in $(seq 1 $npoints); do
		grep -q "^pft-sweep: point $i of $npoints: .* elapsed, ~[0-9:]* left$" \
			"$tmp/rounds.err" || fail "no progress line for point $i"
	done
fi

# --no-interleave, one-shot with a warm-up run: each point's runs in one
# pft process; the warm-up runs are not in the results, the measured runs
# are numbered from 1.
run_sweep oneshot -m 4M --one-shot --warmup=1 -r 3 -p processes,shared-vma \
	-o "$tmp/o" --no-plot -q --no-interleave
if [ "$rc" -ne 0 ]; then
	fail "one-shot sweep exited $rc: $(tail -n 3 "$tmp/oneshot.err")"
else
	out=$(python3 "$tmp/check.py" "$tmp/o" processes,shared-vma "$counts" 3 \
		one-shot 2>&1)
	[ -z "$out" ] || fail "one-shot sweep: $out"
	[ ! -s "$tmp/oneshot.err" ] || fail "-q still wrote: $(cat "$tmp/oneshot.err")"
	grep -q -- '--repeat=4' "$tmp/o.json" ||
		fail "one-shot with a warm-up run does not ask pft for 4 runs"
	interleave=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["config"]["interleave"])' "$tmp/o.json" 2>&1)
	[ "$interleave" = False ] ||
		fail "--no-interleave: the JSON's config says interleave '$interleave'"
fi

# By default every point runs once, then every point again; each run is
# a pft of its own (one-shot: with its warm-up run), numbered in order.
for flag in "" --interleave; do
	# shellcheck disable=SC2086
	run_sweep ildry --dry-run $flag --one-shot --warmup=1 -r 3 -m 4M -w 1 \
		-p shared-vma
	if [ "$rc" -ne 0 ] ||
		! grep -q -- '--json -m 4M --pattern=shared-vma -t 1 --repeat=2$' "$tmp/ildry.out" ||
		! grep -q '^pft-sweep: 1 point(s), 6 runs in 3 pft process(es), about ' "$tmp/ildry.err"; then
		fail "--dry-run $flag: exit $rc, $(cat "$tmp/ildry.out" "$tmp/ildry.err")"
	else
		ok
	fi
done
run_sweep il -m 4M --rounds=1 --warmup=0 -r 2 -w 1 \
	-p shared-vma,processes -o "$tmp/il" --no-plot
order=$(sed -n 's/^pft-sweep: point \([0-9]\) of 2: .*, run \([0-9]\) of 2; .*/\1.\2/p' \
	"$tmp/il.err" | tr '\n' ' ')
runs=$(cut -d, -f1,2,5 "$tmp/il-runs.csv" 2>/dev/null | sed 1d | tr '\n' ' ')
interleave=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["config"]["interleave"])' "$tmp/il.json" 2>&1)
if [ "$rc" -ne 0 ] || [ "$order" != "1.1 2.1 1.2 2.2 " ] ||
	[ "$runs" != "shared-vma,1,1 shared-vma,1,2 processes,1,1 processes,1,2 " ] ||
	[ "$interleave" != True ] ||
	! grep -q '^pft-sweep: 2 points (.*, points in turn, a pft per run, 2 run(s) per point;' "$tmp/il.err"; then
	fail "interleaved by default: exit $rc, order '$order', runs '$runs', interleave '$interleave', $(head -n 1 "$tmp/il.err")"
else
	ok
fi

# --dry-run: one pft command line per point, nothing run or written.
run_sweep dry --dry-run -m 8M --duration=0.5 --warmup=2 -r 3 -o "$tmp/d" -- -c 2
n=$(wc -l <"$tmp/dry.out")
if [ "$rc" -ne 0 ] || [ "$n" -ne $((3 * ncounts)) ]; then
	fail "--dry-run: exit $rc, $n command lines"
else
	bad=$(grep -v -- '--json -m 8M .*--duration=0.5 --warmup=2 -c 2$' \
		"$tmp/dry.out")
	[ -z "$bad" ] || fail "--dry-run command: $bad"
	[ "$(grep -c -- ' -n [0-9]* ' "$tmp/dry.out")" -eq "$ncounts" ] ||
		fail "--dry-run: not one process point per count"
	[ ! -e "$tmp/d.csv" ] || fail "--dry-run wrote d.csv"
	ok
fi

# --size-per-worker scales -m with the workers, in the unit given.
run_sweep spw --dry-run --size-per-worker=2M -p shared-vma
got=$(sed 's/.* -m \([0-9]*M\) .* -t \([0-9]*\) .*/\1:\2/' "$tmp/spw.out" | tr '\n' ' ')
want=
for n in $counts; do
	want="$want$((n * 2))M:$n "
done
[ "$got" = "$want" ] || fail "--size-per-worker: '$got', expected '$want'"

# --cpu-list: the point with N workers is pinned to the first N CPUs.
run_sweep list --dry-run --cpu-list="$first_cpu" -p shared-vma
if [ "$rc" -ne 0 ] || ! grep -q -- "-t 1 .*--cpus=$first_cpu -a$" "$tmp/list.out" ||
	[ "$(wc -l <"$tmp/list.out")" -ne 1 ]; then
	fail "--cpu-list=$first_cpu: exit $rc, $(cat "$tmp/list.out" "$tmp/list.err")"
else
	ok
fi
# A pft that fails at run time (a region larger than the memory): the
# sweep goes on, says why, exits 1.
run_sweep failing -m 100T --rounds=1 -r 1 -p shared-vma -w 1 -o "$tmp/f" \
	--no-plot
if [ "$rc" -ne 1 ] || ! grep -q 'pft exited 1: pft: -m: .*available' "$tmp/failing.err"; then
	fail "a failing pft: exit $rc, $(cat "$tmp/failing.err")"
else
	ok
fi

# The pretouch pattern: one-shot runs of the heap asked, warm-up runs in
# the same pft process, --pretouch-options for those runs only.
run_sweep ptdry --dry-run -p shared-vma,pretouch --heap=8M -m 4M -r 3 \
	--warmup=1 -w 1 --pretouch-options='--pretouch=store --gc=g1'
if [ "$rc" -ne 0 ] || [ "$(wc -l <"$tmp/ptdry.out")" -ne 2 ] ||
	! sed -n 1p "$tmp/ptdry.out" | grep -q -- '--json -m 4M --pattern=shared-vma -t 1 --duration=1 --warmup=1$' ||
	! sed -n 2p "$tmp/ptdry.out" | grep -q -- '--json -m 8M --pattern=pretouch -t 1 --repeat=2 --pretouch=store --gc=g1$'; then
	fail "pretouch commands: exit $rc, $(cat "$tmp/ptdry.out" "$tmp/ptdry.err")"
else
	ok
fi
run_sweep pt -p pretouch --heap=4M -r 2 --warmup=1 -w 1 -o "$tmp/pt" --no-plot -q
runs=$(cut -d, -f1,2,5,6 "$tmp/pt-runs.csv" 2>/dev/null | sed 1d | tr '\n' ' ')
if [ "$rc" -ne 0 ] || [ "$runs" != "pretouch,1,1,1024 pretouch,1,2,1024 " ]; then
	fail "pretouch sweep: exit $rc, runs '$runs', $(cat "$tmp/pt.err")"
else
	ok
fi

# The qemu-prealloc pattern: -t W prealloc-threads, one-shot runs with
# their warm-up in the same pft (no --rounds, --duration or --warmup for
# pft), the pattern's figures in the table and the files.  Without
# warm-up, a pft per run; with it, the warm-up run first in that pft.
run_sweep qdry --dry-run -p qemu-prealloc -m 16M -r 2 --warmup=0 -w 1,2
if [ "$rc" -ne 0 ] || [ "$(wc -l <"$tmp/qdry.out")" -ne 2 ] ||
	! sed -n 1p "$tmp/qdry.out" | grep -q -- '--json -m 16M --pattern=qemu-prealloc -t 1$' ||
	! sed -n 2p "$tmp/qdry.out" | grep -q -- '--json -m 16M --pattern=qemu-prealloc -t 2$'; then
	fail "qemu-prealloc commands: exit $rc, $(cat "$tmp/qdry.out" "$tmp/qdry.err")"
else
	ok
fi
run_sweep q -p qemu-prealloc -m 16M -r 2 --warmup=1 -w 1,2 -o "$tmp/q" --no-plot -q
runs=$(cut -d, -f1,2,5,6,8 "$tmp/q-runs.csv" 2>/dev/null | sed 1d | tr '\n' ' ')
figs=$(python3 -c 'import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(r["workers"], r["runs"], r["process_faults_median"] != "",
          r["prealloc_s_median"] != "", r["threads_median"] != "")' \
	"$tmp/q.csv" 2>&1 | tr '\n' ' ')
if [ "$rc" -ne 0 ] ||
	[ "$runs" != "qemu-prealloc,1,1,4096,8 qemu-prealloc,1,2,4096,8 qemu-prealloc,2,1,4096,8 qemu-prealloc,2,2,4096,8 " ] ||
	[ "$figs" != "1 2 True True True 2 2 True True True " ] ||
	! grep -q '^workers  *qemu-prealloc  *spread  *threads  *started  *process faults  *prealloc s$' "$tmp/q.out"; then
	fail "qemu-prealloc sweep: exit $rc, runs '$runs', figures '$figs', $(cat "$tmp/q.out" "$tmp/q.err")"
else
	ok
fi

# SIGTERM: pft is stopped, what was measured is written, exit 128+15,
# no process of the sweep's session is left.
# shellcheck disable=SC2016
setsid -w sh -c 'echo $$ >"$0"; exec "$@"' "$tmp/term.pid" "$sweep" \
	--pft="$PFT" -m 4M --duration=0.3 --warmup=0 -r 5 -p shared-vma -w 1 \
	-o "$tmp/t" --no-plot >"$tmp/term.out" 2>"$tmp/term.err" &
bg=$!
i=0
while ! grep -q 'run 2 of 5' "$tmp/term.err" 2>/dev/null && [ $i -lt 1000 ]; do
	sleep 0.01
	i=$((i + 1))
done
sid=$(cat "$tmp/term.pid")
kill -TERM "$sid"
wait "$bg"
rc=$?
if [ "$rc" -ne 143 ] || ! grep -q 'stopped: writing' "$tmp/term.err" ||
	[ "$(wc -l <"$tmp/t-runs.csv" 2>/dev/null)" -lt 2 ]; then
	fail "SIGTERM: exit $rc, $(tail -n 2 "$tmp/term.err")"
else
	ok
fi
check_no_leftovers "$sid" "SIGTERM"
stopped=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["stopped"])' "$tmp/t.json" 2>&1)
[ "$stopped" = SIGTERM ] || fail "SIGTERM: the JSON's stopped is '$stopped'"

# SIGKILL, which nothing can catch: the runs measured are in the runs
# file all the same, as they were written when measured, and --compare
# reads them.
# shellcheck disable=SC2016
setsid -w sh -c 'echo $$ >"$0"; exec "$@"' "$tmp/kill.pid" "$sweep" \
	--pft="$PFT" -m 4M --duration=0.3 --warmup=0 -r 5 -p shared-vma -w 1 \
	-o "$tmp/k9" --no-plot >"$tmp/kill.out" 2>"$tmp/kill.err" &
bg=$!
i=0
# (until the third run starts, however slow the machine: the sweep ends
# by itself after its fifth run, so this wait ends too)
while ! grep -q 'run 3 of 5' "$tmp/kill.err" 2>/dev/null &&
	kill -0 "$bg" 2>/dev/null && [ $i -lt 30000 ]; do
	sleep 0.01
	i=$((i + 1))
done
sid=$(cat "$tmp/kill.pid")
kill -KILL "-$sid"
wait "$bg"
rc=$?
rows=$(sed 1d "$tmp/k9-runs.csv" 2>/dev/null | wc -l)
"$sweep" --compare "$tmp/k9" "$tmp/k9" >"$tmp/k9cmp.out" 2>"$tmp/k9cmp.err"
crc=$?
if [ "$rc" -ne 137 ] || [ "$rows" -lt 2 ] || [ -e "$tmp/k9.csv" ] ||
	[ "$crc" -ne 0 ] || ! grep -q '^shared-vma  *1 ' "$tmp/k9cmp.out"; then
	fail "SIGKILL: exit $rc, $rows runs in k9-runs.csv, --compare exit $crc: $(cat "$tmp/k9cmp.err")"
else
	ok
fi
# Killed processes take a moment to be gone (the kernel tears down their
# memory): waited for, up to 5 s, before anything counts as left.
i=0
while [ -n "$(session_procs "$sid")" ] && [ $i -lt 500 ]; do
	sleep 0.01
	i=$((i + 1))
done
check_no_leftovers "$sid" "SIGKILL"

# The output is checked before the first run: a directory that takes no
# new file (sysfs takes none, even from root) is one line, exit 1, and
# nothing runs.
if [ "$(id -u)" -eq 0 ]; then
	ro=/sys
else
	mkdir "$tmp/ro" && chmod 555 "$tmp/ro"
	ro=$tmp/ro
fi
if ! (: >"$ro/pft-sweep-probe") 2>/dev/null; then
	# (one line: no "run N of M" line, so no run started)
	run_sweep ro -m 4M --duration=5 -r 5 -p shared-vma -w 1 \
		-o "$ro/pft-sweep-test" --no-plot
	if [ "$rc" -ne 1 ] || [ -s "$tmp/ro.out" ] ||
		[ "$(wc -l <"$tmp/ro.err")" -ne 1 ] ||
		! grep -q "^pft-sweep: cannot write the output in $ro: " "$tmp/ro.err"; then
		fail "-o in $ro: exit $rc, $(cat "$tmp/ro.err")"
	else
		ok
	fi
else
	rm -f "$ro/pft-sweep-probe"
fi

# An earlier sweep is not replaced without --force (exit 2, nothing
# run); with it, it is.
cp "$tmp/il.csv" "$tmp/il.csv.before"
run_sweep again -m 4M --rounds=1 --warmup=0 -r 1 -w 1 -p shared-vma \
	-o "$tmp/il" --no-plot
if [ "$rc" -ne 2 ] || ! cmp -s "$tmp/il.csv" "$tmp/il.csv.before" ||
	! grep -q "^pft-sweep: -o $tmp/il: $tmp/il.csv, $tmp/il-runs.csv, $tmp/il.json already exist .*--force" "$tmp/again.err"; then
	fail "-o of an earlier sweep: exit $rc, $(cat "$tmp/again.err")"
else
	ok
fi
run_sweep again -m 4M --rounds=1 --warmup=0 -r 1 -w 1 -p shared-vma \
	-o "$tmp/il" --no-plot --force
if [ "$rc" -ne 0 ] || [ "$(wc -l <"$tmp/il-runs.csv")" -ne 2 ]; then
	fail "--force: exit $rc, $(cat "$tmp/again.err")"
else
	ok
fi

# In a directory other users write: another user's links at the names
# pft-sweep wrote before renaming (PREFIX.csv.new, PREFIX.json.new) are
# not followed, and a FIFO or link named by the output is refused, also
# with --force, and left as it is.
mkdir "$tmp/w"
echo precious >"$tmp/w/victim"
for f in s.csv.new s-runs.csv.new s.json.new; do
	ln -s "$tmp/w/victim" "$tmp/w/$f"
done
run_sweep links -m 4M --rounds=1 --warmup=0 -r 1 -w 1 -p shared-vma \
	-o "$tmp/w/s" --no-plot
if [ "$rc" -eq 0 ] && [ "$(cat "$tmp/w/victim")" = precious ] &&
	[ -f "$tmp/w/s.csv" ] && [ ! -L "$tmp/w/s.csv" ]; then
	ok
else
	fail "links at PREFIX.csv.new: exit $rc, victim: $(cat "$tmp/w/victim"): $(cat "$tmp/links.err")"
fi
mkfifo "$tmp/w/f.csv"
ln -s "$tmp/w/victim" "$tmp/w/l-runs.csv"
for p in f l; do
	before=$(ls -l "$tmp/w" | grep " $p")
	run_sweep "special-$p" -m 4M --rounds=1 --warmup=0 -r 1 -w 1 \
		-p shared-vma -o "$tmp/w/$p" --no-plot --force
	if [ "$rc" -eq 1 ] && [ "$(wc -l <"$tmp/special-$p.err")" -eq 1 ] &&
		grep -q "not a regular file" "$tmp/special-$p.err" &&
		[ "$(ls -l "$tmp/w" | grep " $p")" = "$before" ]; then
		ok
	else
		fail "-o $p with a FIFO or link: exit $rc: $(cat "$tmp/special-$p.err")"
	fi
done
[ "$(cat "$tmp/w/victim")" = precious ] && ok ||
	fail "the link's target written: $(cat "$tmp/w/victim")"

# The points are bounded before they are planned.
run_sweep many -w 1-1000000 --dry-run -m 4M
if [ "$rc" -ne 2 ] || [ -s "$tmp/many.out" ] ||
	! grep -q "asks for 1000000 worker counts or more: a sweep takes 10000 points at most" "$tmp/many.err"; then
	fail "-w 1-1000000 --dry-run: exit $rc, $(head -c 300 "$tmp/many.err")"
else
	ok
fi

# Bad command lines: one line naming the problem, the hint, exit 2.
bad_usage() {
	"$sweep" --pft="$PFT" "$@" >"$tmp/bad.out" 2>"$tmp/bad.err"
	rc=$?
	if [ "$rc" -ne 2 ] || [ "$(wc -l <"$tmp/bad.err")" -ne 2 ] ||
		! tail -n 1 "$tmp/bad.err" | grep -q "^Try 'pft-sweep --help'" ||
		[ -s "$tmp/bad.out" ]; then
		fail "'$*': exit $rc, $(cat "$tmp/bad.err")"
		return
	fi
	ok
}
bad_usage --repeat=0
bad_usage --patterns=shared-vma,bogus
bad_usage --workers=0
bad_usage --workers=2-1
bad_usage --duration=soon
bad_usage --duration=1 --rounds=3
bad_usage --one-shot --metric=round
bad_usage --metric=round -p pretouch
bad_usage --metric=fastest
bad_usage --cpu-groups=socket
bad_usage --cpu-groups=core --cpu-list="$first_cpu"
bad_usage --size=1G --size-per-worker=1M
bad_usage --heap=1G
bad_usage --pretouch-options=--gc=g1
bad_usage --perf=top
bad_usage --perf-options=-g
bad_usage --interleave --perf=stat
bad_usage --alternate --perf=stat
bad_usage --format=email
bad_usage --names=a,b
bad_usage --interval
bad_usage --bogus
bad_usage stray
bad_usage --compare only-one.csv
bad_usage --compare a b --names=x
bad_usage -- -t 4
bad_usage -- --json
bad_usage --cpu-list="$first_cpu" -- --cpus=0
# pft judges sizes, CPU lists and its own options: its words are shown.
pft_refuses() {
	bad_usage "$@"
	grep -q "^pft-sweep: pft refused the options: pft: " "$tmp/bad.err" ||
		fail "'$*': not pft's words: $(head -n 1 "$tmp/bad.err")"
}
pft_refuses --size=12Q
pft_refuses --size=1G5
pft_refuses --size-per-worker=4X
pft_refuses --heap=0x10 -p pretouch
pft_refuses --cpu-list=1-0
pft_refuses --cpu-list=100000
pft_refuses --cpu-list=seven
pft_refuses -- --zap=munmap
pft_refuses -p pretouch --pretouch-options=--jdk=x
# A size pft takes is taken (the sweep does not restate pft's units).
run_sweep tsize --dry-run -m 1T -w 1 -p shared-vma
if [ "$rc" -ne 0 ] || ! grep -q -- '--json -m 1T ' "$tmp/tsize.out"; then
	fail "-m 1T: exit $rc, $(cat "$tmp/tsize.err")"
else
	ok
fi

if ! "$sweep" --help >"$tmp/help.out" 2>&1 ||
	! grep -q '^Usage: pft-sweep' "$tmp/help.out"; then
	fail "--help"
else
	ok
fi
"$sweep" --pft="$PFT" --version >"$tmp/version.out" 2>&1
grep -q '^pft-sweep (libfaultgen [0-9]' "$tmp/version.out" ||
	fail "--version: $(cat "$tmp/version.out")"

# --latency: pft times every fault; the table has p50 and p99 columns,
# the runs CSV each run's count (= its pages, one worker) and
# percentiles, the points CSV their medians; --metric=p99 without
# --latency is refused.
run_sweep lat -p shared-vma -w 1 -m 4M -r 2 --one-shot --latency \
	-o "$tmp/lat" --no-plot
if [ "$rc" -ne 0 ]; then
	fail "--latency sweep exited $rc: $(tail -n 3 "$tmp/lat.err")"
elif ! grep -q 'shared-vma p50 us  *p99 us' "$tmp/lat.out"; then
	fail "--latency: no p50/p99 columns: $(cat "$tmp/lat.out")"
elif ! python3 - "$tmp/lat" <<'PYEOF'
import csv, sys
runs = list(csv.DictReader(open(sys.argv[1] + "-runs.csv")))
assert len(runs) == 2, runs
for r in runs:
    assert int(r["lat_count"]) == int(r["pages"]), r
    assert 0 < float(r["lat_p50_ns"]) <= float(r["lat_p99_ns"]), r
pts = list(csv.DictReader(open(sys.argv[1] + ".csv")))
assert float(pts[0]["lat_p99_ns_median"]) > 0, pts
PYEOF
then
	fail "--latency: the CSV files"
else
	ok
fi
# Beside the rate plot, where gnuplot is: PREFIX-latency.gp, a p50 and a
# p99 line per pattern.
if command -v gnuplot >/dev/null; then
	run_sweep latplot -p shared-vma -w 1 -m 4M -r 1 --one-shot --latency \
		-o "$tmp/latplot"
	if [ "$rc" -eq 0 ] && [ -s "$tmp/latplot-latency.png" ] &&
		grep -q "title 'shared-vma p99'" "$tmp/latplot-latency.gp"; then
		ok
	else
		fail "--latency plot: exit $rc: $(tail -n 3 "$tmp/latplot.err")"
	fi
fi
run_sweep latnot -p shared-vma -w 1 -m 4M --metric=p99
if [ "$rc" -eq 2 ] && grep -q -- '--metric=p99 needs --latency' "$tmp/latnot.err"; then
	ok
else
	fail "--metric=p99 without --latency: exit $rc: $(cat "$tmp/latnot.err")"
fi

finish
