#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli-json.sh - pft --json prints one valid JSON object per run, one line
# each, schema first, and its numbers agree with the legacy line of the
# same run, with the workers' figures and with the kernel's counters.
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

have_python || skip "python3 is needed"
ncpu=$(nr_allowed)
two=2
[ "$ncpu" -lt 2 ] && two=1

# The checks of one run's object; prints one line per problem.
cat >"$tmp/check.py" <<'EOF'
import json, os, sys

want_workers, want_kind, want_pattern = int(sys.argv[1]), sys.argv[2], sys.argv[3]
problems = []
def check(cond, what):
    if not cond:
        problems.append(what)

lines = sys.stdin.read().splitlines()
check(len(lines) == 1, "%d lines on stdout, not 1" % len(lines))
text = lines[0]
d = json.loads(text)
check(text.startswith('{"schema":"pft-run/1",'), "schema is not the first member")
for bad in ("inf", "nan", "Infinity", "NaN"):
    check(('"%s' % bad) not in text and (':%s' % bad) not in text, "a non-number " + bad)
c, r, leg, ws = d["config"], d["result"], d["legacy"], d["workers"]
check(c["workers"] == want_workers, "config.workers %s" % c["workers"])
check(c["kind"] == want_kind, "config.kind %s" % c["kind"])
check(c["pattern"] == want_pattern, "config.pattern %s" % c["pattern"])
check(len(ws) == want_workers, "%d worker objects" % len(ws))

# The legacy line of the same run, by mmtests' rule, against the numbers.
line = leg["line"]
f = line.replace("s", "").split()
check(len(f) == 8, "legacy line has %d fields" % len(f))
ps = c["pagesize"]
check(int(f[0]) == (r["bytes"] + ps * want_workers) >> 30, "Gb column")
check(int(f[1]) == want_workers, "Thr column")
check(int(f[2]) == c["cachelines"], "CLine column")
check(f[3] == "%.2f" % r["user_s"], "User %s vs %r" % (f[3], r["user_s"]))
check(f[4] == "%.2f" % r["sys_s"], "System %s vs %r" % (f[4], r["sys_s"]))
check(f[5] == "%.2f" % r["elapsed_s"], "Wall %s vs %r" % (f[5], r["elapsed_s"]))
check(f[6] == "%.3f" % r["pages_per_cpu_s"], "flt/cpu/s %s vs %r" % (f[6], r["pages_per_cpu_s"]))
# fault/wsec: pages over elapsed time for one-shot runs, the median of the
# per-round rates when three rounds or more were sampled.
src = leg["fault_per_wsec_is"]
want_src = ("round_rate_median" if r["rounds_sampled"] >= 3 and
            r["round_rate_median"] > 0 else "pages_per_wall_s")
check(src == want_src, "fault_per_wsec_is %s, want %s" % (src, want_src))
check(f[7] == "%.3f" % r[src], "fault/wsec %s vs %r" % (f[7], r[src]))
check(line == " %3d %4d %3d %8.2fs %8.2fs %8.2fs  %10.3f %10.3f" % (
    leg["gbyte"], leg["workers"], leg["cachelines"], leg["user_s"],
    leg["sys_s"], leg["wall_s"], leg["flt_per_cpu_s"], leg["fault_per_wsec"]),
    "legacy members do not print as the line")

# The rates are 0.12x's: pages over time.
cpu = r["user_s"] + r["sys_s"]
if r["elapsed_s"] > 0:
    check(abs(r["pages_per_wall_s"] - r["pages"] / r["elapsed_s"]) <= 1e-6 * r["pages_per_wall_s"], "pages_per_wall_s")
if cpu > 0:
    check(abs(r["pages_per_cpu_s"] - r["pages"] / cpu) <= 1e-6 * r["pages_per_cpu_s"], "pages_per_cpu_s")
check(abs(r["cpu_s"] - cpu) <= 1e-9, "cpu_s is not user + sys")

# Totals are the workers' sums; expected faults are the pages.
check(sum(w["pages"] for w in ws) == r["pages"], "pages is not the workers' sum")
check(sum(w["minflt"] for w in ws) == r["minflt"], "minflt is not the workers' sum")
check(r["expected_faults"] == r["pages"], "expected_faults is not pages")
if want_pattern != "pretouch":  # one task of chunks, not slices in rounds
    check(sum(w["rounds"] for w in ws) == r["rounds"], "rounds is not the workers' sum")
    check(r["pages"] == r["rounds"] * r["pages_per_round"] // want_workers, "pages vs rounds")
check(isinstance(r["faults_agree"], bool), "faults_agree is not a boolean")
check(0 <= r["start_skew_s"] <= r["elapsed_s"], "start_skew_s out of range")
check(max(w["start_s"] for w in ws) == r["start_skew_s"], "start skew vs workers")
check(min(w["start_s"] for w in ws) == 0, "no worker started first")
check(sorted(w["index"] for w in ws) == list(range(want_workers)), "worker indexes")
# Lock paths only where asked (--lock-paths): none of these runs asks.
check("lock_paths" not in d and all("lock_paths" not in w for w in ws),
      "lock_paths without --lock-paths")

# Where the workers ran: inside the allowed CPUs.
allowed = set()
for part in d["cpus"]["allowed"].split(","):
    lo, _, hi = part.partition("-")
    allowed.update(range(int(lo), int(hi or lo) + 1))
check(len(allowed) == d["cpus"]["count"], "cpus.count")
check(allowed <= os.sched_getaffinity(0), "allowed CPUs outside the mask")
for w in ws:
    check(w["last_cpu"] in allowed, "worker %d ran on CPU %d" % (w["index"], w["last_cpu"]))
pids = set(w["pid"] for w in ws)
if want_kind == "threads":
    check(len(pids) == 1, "threads in %d processes" % len(pids))
else:
    check(len(pids) == want_workers, "%d processes for %d workers" % (len(pids), want_workers))

# The system: kernel, THP, and the vmstat deltas (system-wide counters
# count at least this run's faults).
check(d["kernel"] == os.uname().release, "kernel release")
check(d["thp"]["enabled"] in ("always", "madvise", "never", ""), "thp.enabled %r" % d["thp"]["enabled"])
vm = d["vmstat_delta"]
check("pgfault" in vm, "no pgfault delta")
check(vm.get("pgfault", 0) >= r["minflt"], "pgfault delta %s < minflt %s" % (vm.get("pgfault"), r["minflt"]))
check(isinstance(d["mthp_stats_delta"], dict), "mthp_stats_delta")
for p in problems:
    print(p)
EOF

# "json_case NAME WORKERS KIND PATTERN ARGS..."
json_case() {
	jname=$1
	workers=$2
	kind=$3
	pattern=$4
	shift 4
	run_pft "$jname" --json "$@"
	if [ "$rc" -ne 0 ]; then
		fail "$jname: pft --json $* exited $rc: $(head -n 2 "$tmp/$jname.err")"
		return
	fi
	if ! python3 -m json.tool <"$tmp/$jname.out" >/dev/null 2>"$tmp/$jname.tool"; then
		fail "$jname: python3 -m json.tool rejects it: $(cat "$tmp/$jname.tool")"
		return
	fi
	problems=$(python3 "$tmp/check.py" "$workers" "$kind" "$pattern" <"$tmp/$jname.out" 2>&1)
	if [ -n "$problems" ]; then
		fail "$jname (pft --json $*): $(echo "$problems" | tr '\n' ';')"
		return
	fi
	check_lines_have_letters "$tmp/$jname.out" "$jname stdout"
	check_lines_have_letters "$tmp/$jname.err" "$jname stderr"
	ok
}

json_case threads "$two" threads shared-vma -t "$two" -m 16M
json_case processes "$two" processes shared-vma -n "$two" -m 16M
json_case pinned "$two" threads shared-vma -a -t "$two" -m 16M
json_case per-thread "$two" threads per-thread-vma -M -t "$two" -m 16M
json_case sysv "$two" processes shared-vma -S -n "$two" -m 8M
json_case cachelines "$two" threads shared-vma -c 4 -t "$two" -m 8M
json_case duration "$two" threads shared-vma -t "$two" -m 8M --duration=0.2
json_case rounds "$two" processes per-thread-vma --pattern=per-thread-vma -n "$two" -m 8M --rounds=4 --zap=munmap
json_case tiny 1 threads shared-vma -m 1
json_case many 16 threads shared-vma --oversubscribe -t 16 -m 16M
json_case pretouch 2 threads pretouch --pattern=pretouch -t 2 -m 16M
json_case writers 2 threads shared-vma --oversubscribe -t 2 -m 16M --writers=1,mprotect
json_case interleave 3 threads shared-vma --oversubscribe -t 3 -m 8M --stripe-pages=8
json_case cow-fork "$two" threads cow-fork --pattern=cow-fork -t "$two" -m 16M
json_case cow-fork-n "$two" processes cow-fork --pattern=cow-fork -n "$two" -m 16M
json_case cow-fork-rounds 2 threads cow-fork --oversubscribe --pattern=cow-fork -t 2 -m 8M --rounds=3
json_case cow-fork-rounds-n 2 processes cow-fork --oversubscribe --pattern=cow-fork -n 2 -m 8M --rounds=3
json_case cow-fork-child 2 threads cow-fork --oversubscribe --pattern=cow-fork -t 2 -m 8M --rounds=2 --cow-child=writes

# cow-fork rounds: a fresh fork each round (one per worker with
# processes), every page of every round written and copied.
for k in rounds:1 rounds-n:2; do
	python3 - "$tmp/cow-fork-${k%:*}.out" "${k#*:}" <<'EOF' >"$tmp/cow-${k%:*}.check" 2>&1
import json, sys
d = json.loads(open(sys.argv[1]).readline())
per_round = int(sys.argv[2])
r, f = d["result"], d["figures"]
pages = r["pages_per_round"] * 3
assert d["config"]["rounds"] == 3, d["config"]
assert all(w["rounds"] == 3 for w in d["workers"]), [w["rounds"] for w in d["workers"]]
assert r["pages"] == pages and r["minflt"] >= pages and r["faults_agree"], r
assert f["forks"]["value"] == 3 * per_round, f
assert f["fork_s"]["value"] > 0, f
assert "pages_copied" not in f or f["pages_copied"]["value"] == pages, f
EOF
	[ $? -eq 0 ] && ok || fail "cow-fork --rounds=3 (${k%:*}): $(cat "$tmp/cow-${k%:*}.check")"
done

# cow-fork's child: the config names what it does; writing every page,
# its own faults are at least the pages, the parent's still one a page
# (check_cow.c says why).  A child that waits has no child_faults.
python3 - "$tmp/cow-fork-child.out" "$tmp/cow-fork.out" <<'EOF' >"$tmp/cow-child.check" 2>&1
import json, sys
d = json.loads(open(sys.argv[1]).readline())
r, f = d["result"], d["figures"]
assert d["config"]["cow_child"] == "writes", d["config"]
assert r["pages"] == r["pages_per_round"] * 2, r
assert r["minflt"] >= r["pages"] and r["faults_agree"], r
assert f["child_faults"]["value"] >= r["pages"], f
w = json.loads(open(sys.argv[2]).readline())
assert w["config"]["cow_child"] == "waits", w["config"]
assert "child_faults" not in w["figures"], w["figures"]
EOF
[ $? -eq 0 ] && ok || fail "cow-fork --cow-child=writes: $(cat "$tmp/cow-child.check")"

# Writers: the config names them, the figures count their calls, which
# come in whole cycles of two; without writers there are no figures.
python3 - "$tmp/writers.out" "$tmp/threads.out" <<'EOF' >"$tmp/writers.check" 2>&1
import json, sys
d = json.loads(open(sys.argv[1]).readline())
c, f = d["config"], d["figures"]
assert (c["writers"], c["writer_op"]) == (1, "mprotect"), c
assert f["writers"] == {"value": 1, "unit": "threads"}, f
calls = f["writer_calls"]["value"]
assert calls == int(calls) and calls % 2 == 0, calls
assert f["writer_calls_per_s"]["unit"] == "calls/s", f
plain = json.loads(open(sys.argv[2]).readline())
assert "figures" not in plain and plain["config"]["writers"] == 0, plain["config"]
assert plain["config"]["interleave_pages"] == 0, plain["config"]
EOF
[ $? -eq 0 ] && ok || fail "--writers: $(cat "$tmp/writers.check")"

# Threads after processes: the later option wins (0.12x kept processes).
json_case t-after-n "$two" threads shared-vma -n "$two" -t "$two" -m 8M
json_case n-after-t "$two" processes shared-vma -t "$two" -n "$two" -m 8M

# Rounds: every worker ran its 4 rounds.
python3 - "$tmp/rounds.out" <<'EOF' >"$tmp/rounds.check" 2>&1
import json, sys
d = json.loads(open(sys.argv[1]).readline())
assert all(w["rounds"] == 4 for w in d["workers"]), [w["rounds"] for w in d["workers"]]
assert d["config"]["zap"] == "munmap" and d["config"]["rounds"] == 4
# Two unmeasured rounds first by default, in rounds mode as in duration
# mode, and fault/wsec is the median of the 4 rounds.
assert d["config"]["warmup"] == 2, d["config"]["warmup"]
assert d["result"]["rounds_sampled"] == 4, d["result"]["rounds_sampled"]
assert d["legacy"]["fault_per_wsec_is"] == "round_rate_median"
assert d["legacy"]["fault_per_wsec"] == d["result"]["round_rate_median"]
EOF
[ $? -eq 0 ] && ok || fail "--rounds=4: $(cat "$tmp/rounds.check")"

# -N: the region's numa_maps lines in the object.
run_pft numa --json -N -t 1 -m 8M
python3 -c '
import json, sys
d = json.loads(open(sys.argv[1]).readline())
assert d["numa_maps"] and all("anon=" in l or "N" in l for l in d["numa_maps"]), d.get("numa_maps")
' "$tmp/numa.out" 2>"$tmp/numa.check" && ok || fail "--json -N: $(cat "$tmp/numa.check")"

# --repeat: one object per run, then the summary object; its median is the
# median of the runs' fault/wsec.
run_pft repeat --json --repeat=3 -t 1 -m 4M
python3 - "$tmp/repeat.out" <<'EOF' >"$tmp/repeat.check" 2>&1
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
assert len(objs) == 4, len(objs)
assert [o["run"] for o in objs[:3]] == [1, 2, 3]
assert all(o["runs"] == 3 for o in objs[:3])
s = objs[3]
assert s["schema"] == "pft-summary/1" and s["runs"] == 3, s
rates = sorted(o["legacy"]["fault_per_wsec"] for o in objs[:3])
f = s["fault_per_wsec"]
assert (f["min"], f["median"], f["max"]) == tuple(rates), (f, rates)
EOF
[ $? -eq 0 ] && ok || fail "--json --repeat=3: $(cat "$tmp/repeat.check")"

# A UTF-8 TAG comes back as it was, in strict JSON.
run_pft utf8 --json -t 1 -m 4M "$(printf 'caf\303\251 \342\234\223')"
python3 -c '
import json, sys
d = json.loads(open(sys.argv[1], encoding="utf-8", errors="strict").readline())
assert d["config"]["tag"] == "caf\u00e9 \u2713", d["config"]["tag"]
' "$tmp/utf8.out" 2>"$tmp/utf8.check" && [ "$rc" -eq 0 ] && ok ||
	fail "--json with a UTF-8 TAG: exit $rc: $(cat "$tmp/utf8.check" "$tmp/utf8.err")"

# --latency: an additive "latency" object, in the result and in each
# worker: values = touches timed (every page, or one in N per slice and
# round), its buckets add up to them, and what the scheduler did; none
# without --latency.  A touch made in one call is timed per 2 MiB call.
cat >"$tmp/latency.py" <<'EOF'
import json, sys
d = json.loads(open(sys.argv[1]).readline())
every, per_call = int(sys.argv[2]), sys.argv[3] == "calls"
r, ws, l = d["result"], d["workers"], d["latency"]
assert d["schema"] == "pft-run/1"
# Additive: every member of a thread run without --latency (node_pages
# only where the run counted them), and "latency".
plain = json.loads(open(sys.argv[4]).readline())
assert set(d) - set(plain) == {"latency"}, set(d) ^ set(plain)
assert set(plain) - set(d) <= {"node_pages"}, set(plain) - set(d)
assert set(ws[0]) - set(plain["workers"][0]) == {"latency"}
ps = d["config"]["pagesize"]
def want(w):
    rounds = max(w["rounds"], 1)
    slice_pages = w["pages"] // rounds
    if per_call:
        return rounds * -(-(slice_pages * ps) // (2 << 20))
    return rounds * -(-slice_pages // every)
total = 0
for w in ws:
    wl = w["latency"]
    assert wl["count"] == want(w), (wl["count"], want(w), w["pages"])
    assert sum(b[2] for b in wl["buckets"]) == wl["count"]
    total += wl["count"]
assert l["count"] == total, (l["count"], total)
assert l["sample_every"] == every and l["per_call"] == per_call
assert l["timed"] == ("calls" if per_call else "touches")
assert (l["call"], l["call_bytes"]) == (
    ("MADV_POPULATE_WRITE", 2 << 20) if per_call else (None, None)), l
assert sum(b[2] for b in l["buckets"]) == l["count"]
assert all(b[0] < b[1] for b in l["buckets"])
v = [l[k] for k in ("min_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns")]
assert v == sorted(v), v
s = l["sched"]
assert s["tail_values"] == l["count"] - int(0.99 * l["count"])
assert s["involuntary_switches"] == sum(
    w["latency"]["sched"]["involuntary_switches"] for w in ws)
assert isinstance(s["tail_within_sched"], bool)
assert s["run_delay_s"] is None or s["run_delay_s"] >= 0
EOF
run_pft nolatency --json -t 1 -m 4M
if grep -q '"latency"' "$tmp/nolatency.out"; then
	fail "--json without --latency has a latency object"
else
	ok
fi
run_pft latency --json --latency -t "$two" -m 8M
python3 "$tmp/latency.py" "$tmp/latency.out" 1 touches "$tmp/nolatency.out" \
	>"$tmp/latency.check" 2>&1 && ok ||
	fail "--json --latency: $(cat "$tmp/latency.check" "$tmp/latency.err")"
run_pft latency4 --json --latency=4 --rounds=2 -n "$two" -m 8M
python3 "$tmp/latency.py" "$tmp/latency4.out" 4 touches "$tmp/nolatency.out" \
	>"$tmp/latency4.check" 2>&1 && ok ||
	fail "--json --latency=4 --rounds=2: $(cat "$tmp/latency4.check" "$tmp/latency4.err")"
run_pft latencypop --json --latency --touch=populate -t "$two" -m 9M
python3 "$tmp/latency.py" "$tmp/latencypop.out" 1 calls "$tmp/nolatency.out" \
	>"$tmp/latencypop.check" 2>&1 && ok ||
	fail "--json --latency --touch=populate: $(cat "$tmp/latencypop.check" "$tmp/latencypop.err")"
# --backing=memfd and --share: named in the config; faults = pages, over
# rounds, under both patterns; the bad name and the conflicts are usage
# errors naming the options.
for args in "-t 2" "-M -t 2" "-n 2" "-t 2 --share=" "-M -t 2 --share="; do
	run_pft memfd --json -m 4M --rounds=2 --backing=memfd ${args%=}
	share=false
	case $args in *--share=) share=true ;; esac
	python3 -c '
import json, sys
d = json.loads(open(sys.argv[1]).readline())
c, r = d["config"], d["result"]
assert c["backing"] == "memfd" and c["share"] is (sys.argv[2] == "true"), c
assert r["pages"] == 2048 and r["faults_agree"] is True, r
# Each page faulted once, a few faults of each worker setup beside;
# under a sanitizer the workers allocations fault its shadow memory
# too, and the agreement the library judged (faults_agree) bounds it.
if sys.argv[3] == "":
    assert abs(r["minflt"] - r["pages"]) <= 2 * r["workers"] + 2, r
else:
    assert r["minflt"] >= r["pages"], r
' "$tmp/memfd.out" "$share" "${ASAN_OPTIONS:-}" 2>"$tmp/memfd.check" && [ "$rc" -eq 0 ] && ok ||
		fail "--backing=memfd ${args%=}: exit $rc: $(cat "$tmp/memfd.check" "$tmp/memfd.err")"
done
run_pft share --json -t 2 -m 4M --share
python3 -c '
import json, sys
d = json.loads(open(sys.argv[1]).readline())
assert d["config"]["backing"] == "anon" and d["config"]["share"] is True, d["config"]
assert d["result"]["faults_agree"] is True, d["result"]
' "$tmp/share.out" 2>"$tmp/share.check" && [ "$rc" -eq 0 ] && ok ||
	fail "--share: exit $rc: $(cat "$tmp/share.check" "$tmp/share.err")"
for bad in "--backing=tmpfs|--backing 'tmpfs'" "-S --share|--share conflicts with -S" \
	"--backing=memfd -S|-S conflicts with --backing" \
	"--pattern=pretouch --share|--share" \
	"-M --backing=memfd --rounds=2 --zap=munmap|--zap=munmap"; do
	run_pft bad ${bad%%|*}
	[ "$rc" -eq 2 ] && [ ! -s "$tmp/bad.out" ] &&
		head -n 1 "$tmp/bad.err" | grep -qF -- "${bad#*|}" && ok ||
		fail "${bad%%|*}: exit $rc: $(cat "$tmp/bad.err")"
done

# --backing=file:DIR on tmpfs: the backing and its path in the config,
# faults = pages over rounds (no major fault), the page size faulted, and
# the directory empty after; a file given that is smaller than the run
# fails in one line naming it, and stays as it was.
shm=
for d in "${TMPDIR:-/tmp}" /dev/shm; do
	[ "$(stat -f -c %T "$d" 2>/dev/null)" = tmpfs ] && shm=$d && break
done
if [ -n "$shm" ]; then
	dir=$(mktemp -d "$shm/cli-json.XXXXXX")
	for args in "-t 2" "-M -t 2 --share" "-n 2 --share" "-M -n 2"; do
		# shellcheck disable=SC2086
		run_pft file --json -m 4M --rounds=3 --backing=file:"$dir" $args
		python3 -c '
import json, sys
d = json.loads(open(sys.argv[1]).readline())
c, r = d["config"], d["result"]
assert c["backing"] == "file" and c["backing_path"] == sys.argv[2], c
assert r["pages"] == 3072 and r["faults_agree"] is True, r
assert r["majflt"] == 0 and r["fault_pagesize"] == c["pagesize"], r
# Under a sanitizer its shadow memory faults too (faults_agree bounds).
assert 0 <= r["minflt"] - r["pages"] <= 2 * r["workers"] + 2 or \
    (sys.argv[3] != "" and r["minflt"] >= r["pages"]), r
' "$tmp/file.out" "$dir" "${ASAN_OPTIONS:-}" 2>"$tmp/file.check" && [ "$rc" -eq 0 ] &&
			[ -z "$(ls -A "$dir")" ] && ok ||
			fail "--backing=file:$dir $args: exit $rc: $(cat "$tmp/file.check" "$tmp/file.err"; ls -A "$dir")"
	done
	head -c 1048576 /dev/zero >"$dir/small"
	run_pft small -t 1 -m 4M --backing=file:"$dir/small"
	[ "$rc" -eq 1 ] && [ "$(wc -l <"$tmp/small.err")" -eq 1 ] &&
		grep -q "^pft: --backing=file:$dir/small: the file is smaller" "$tmp/small.err" &&
		[ "$(stat -c %s "$dir/small")" -eq 1048576 ] && ok ||
		fail "a file smaller than the run: exit $rc: $(cat "$tmp/small.err")"
	# As large as -m, but not as the run's mappings: 40960 bytes, 10
	# pages of 4 KiB, dealt to 3 workers are whole pages of 4 each,
	# 49152 bytes; both sizes named.
	if [ "$(getconf PAGESIZE)" -eq 4096 ]; then
		head -c 40960 /dev/zero >"$dir/small"
		run_pft small -t 3 --oversubscribe -m 40960 --backing=file:"$dir/small"
		[ "$rc" -eq 1 ] && [ "$(wc -l <"$tmp/small.err")" -eq 1 ] &&
			grep -qx "pft: --backing=file:$dir/small: the file is smaller (40960 bytes) than the 49152 bytes the run maps (-m 40960 in whole pages for each worker, 3); the run never grows a file it did not create" "$tmp/small.err" &&
			ok || fail "a file of -m, smaller than whole pages per worker: exit $rc: $(cat "$tmp/small.err")"
		rm -f "$dir/small"
	fi
	rmdir "$dir"
else
	echo "no tmpfs directory: the file backing's JSON cases skipped"
fi
# --backing=file:DIR where the tests' files are (any file system): a
# private mapping counts one fault a page, minor or major, and no worker
# is called short for its major faults; a shared one whose workers count
# fewer faults than pages says a file's large folios map several pages.
for share in "" --share; do
	run_pft fs -t 2 -m 4M --json --backing=file:"$tmp" $share
	python3 -c '
import json, sys
r = json.loads(open(sys.argv[1]).readline())["result"]
err = open(sys.argv[2]).read()
short = "workers counted fewer" in err
assert r["pages"] == 1024, r
if sys.argv[3] == "":
    assert r["faults_agree"] is True and not short, (r, err)
elif short:
    assert "large folio" in err, err
' "$tmp/fs.out" "$tmp/fs.err" "$share" 2>"$tmp/fs.check" && [ "$rc" -eq 0 ] &&
		ok || fail "--backing=file:$tmp $share: exit $rc: $(cat "$tmp/fs.check" "$tmp/fs.err")"
done
run_pft nullpath --json -m 4M
python3 -c '
import json, sys
d = json.loads(open(sys.argv[1]).readline())
assert d["config"]["backing_path"] is None, d["config"]
assert d["result"]["fault_pagesize"] == d["config"]["pagesize"], d["result"]
' "$tmp/nullpath.out" 2>"$tmp/nullpath.check" && ok ||
	fail "backing_path without a file: $(cat "$tmp/nullpath.check")"

# Standard error merged into standard output (2>&1), with warnings: each
# JSON line is whole (every line that starts with "{" parses), the
# warnings come between lines.  A fresh sparse file of a disk file system
# is read in at the first touch: at least one major fault, and its
# warning.  $TMPDIR when it is not tmpfs, else /var/tmp.
disk=
for d in "${TMPDIR:-/tmp}" /var/tmp; do
	if [ -d "$d" ] && [ -w "$d" ] &&
		[ "$(stat -f -c %T "$d" 2>/dev/null)" != tmpfs ]; then
		disk=$(mktemp -d "$d/pft-cli-json.XXXXXX") && break
	fi
done
if [ -n "$disk" ]; then
	truncate -s 4M "$disk/sparse"
	"$PFT" --json --repeat=2 --backing=file:"$disk/sparse" -t 1 -m 4M \
		>"$tmp/merged.out" 2>&1
	rc=$?
	python3 -c '
import json, sys
lines = open(sys.argv[1], "rb").read().decode().split("\n")
objects = [json.loads(l) for l in lines if l.startswith("{")]
others = [l for l in lines if l and not l.startswith("{")]
assert [o.get("run") for o in objects if "result" in o] == [1, 2], objects
assert others and all(l.startswith("pft: ") for l in others), others
assert any(l.startswith("pft: warning: ") for l in others), others
' "$tmp/merged.out" 2>"$tmp/merged.check" && [ "$rc" -eq 0 ] && ok ||
		fail "--json 2>&1 with warnings: exit $rc: $(tail -n 1 "$tmp/merged.check"): $(grep -v '^{' "$tmp/merged.out" | cut -c1-200)"
	rm -rf "$disk"
else
	echo "$test_name: no disk file system to read a file from: merged output not tried" >&2
fi

# --backing=hugetlb asking more 2 MiB pages than are free: one line naming
# nr_hugepages, the pages needed and free; exit 1.  Nothing is taken from
# the pool (the run is refused before it maps).
hp=/sys/kernel/mm/hugepages/hugepages-2048kB
if [ -r "$hp/free_hugepages" ]; then
	free=$(( $(cat "$hp/free_hugepages") - $(cat "$hp/resv_hugepages") ))
	[ "$free" -lt 0 ] && free=0
	# 64 above the free: a pool that another program changes meanwhile
	# does not make it fit.
	need=$((free + 64))
	run_pft huge -t 1 -m $((need * 2))M --backing=hugetlb
	[ "$rc" -eq 1 ] && [ "$(wc -l <"$tmp/huge.err")" -eq 1 ] &&
		grep -q "^pft: --backing=hugetlb: the run needs $need huge pages of 2048 KiB, [0-9]* are free (nr_hugepages [0-9]*): raise /proc/sys/vm/nr_hugepages" "$tmp/huge.err" &&
		ok || fail "--backing=hugetlb beyond the free pages: exit $rc: $(cat "$tmp/huge.err")"
else
	echo "no 2 MiB huge pages: the hugetlb case skipped"
fi

# Numbers in the C locale, even with LC_ALL set.
env LC_ALL=de_DE.UTF-8 LC_NUMERIC=de_DE.UTF-8 "$PFT" --json -t 1 -m 4M \
	>"$tmp/locale.out" 2>/dev/null
python3 -m json.tool <"$tmp/locale.out" >/dev/null 2>&1 && ok ||
	fail "--json under LC_ALL=de_DE.UTF-8 is not valid JSON"

finish
