#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# replay-fidelity.sh - a benchmark, not a test: how faithfully pft
# replays a recorded program.  For each case: pft-survey --record=A of
# the program, pft-survey --record=B of `pft --replay=A`, then
# pft-survey --compare A B (in the profile's bins and in 100 ms bins).
# One Markdown row a case: the object of A with the most faults beside
# its match in B (faults by kind, B/A), threads, processes, the most
# threads faulting it in one bin (and in every other run), the time
# shape (r) and the lag the comparison took, and the faults without an
# event of the whole profiles.  A replay's time shape is as alike to A as this machine
# lets a second run be: SELF=N records the program N more times (A2...,
# each started afresh: a server a new one) and gives the time shape of
# A against each of them (each shifted earlier or later, the better:
# --compare shifts a replay's later start only), the machine's
# resolution for the replay's;
# REPEAT=N replays A N times (B, B2...); FROM=DIR replays the
# recordings of an earlier run's OUT again (its A and A2...: none is
# made), by this tree's pft, on this machine now.  The replays' and
# the other runs' medians and ranges are given, and a verdict: r >= 0.9
# (the replays' median), within the program's own (the replays' median
# at or above the least of A's against its other runs), or below.
# Needs root for the tracepoints (the kinds).
#
#   tests/bench/replay-fidelity.sh [CASE]...
#
# CASEs: the pft patterns (shared-vma per-thread-vma processes share
# sysv memfd file hugetlb thp populate read cow-reads cow-writes
# pretouch qemu-prealloc, and rounds: pages given back between passes,
# MADV_DONTNEED; all of them by default), and the programs
# jvm-g1 jvm-parallel (a JDK 17), qemu (qemu-system-x86_64), redis
# (redis-server, redis-benchmark) and pg (PostgreSQL 15, pgbench).
# Environment: SELF, REPEAT, FROM (above), PFT (default pft/.libs/pft of this tree, with
# LD_LIBRARY_PATH set to its library), SURVEY (default pft/pft-survey),
# OUT (default a new directory under $TMPDIR, kept).
#
# Copyright (C) 2026 The libfaultgen authors
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
PFT=${PFT:-$here/pft/.libs/pft}
SURVEY=${SURVEY:-$here/pft/pft-survey}
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-$here/libfaultgen/.libs}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/replay-fidelity.XXXXXX")}
JAVA=${JAVA:-/usr/lib/jvm/java-17-openjdk-amd64/bin/java}
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}

# record NAME FILE LOG: one recording of case NAME into FILE (the
# program started afresh: a server a new one, with a new data
# directory, so that every run faults what the first did).
record() {
	local name=$1 f=$2 log=$3
	case $name in
	jvm-g1) "$SURVEY" --record="$f" -- "$JAVA" -Xms256m -Xmx256m \
		-XX:+AlwaysPreTouch -XX:+UseG1GC -version >"$log" 2>&1 ;;
	jvm-parallel) "$SURVEY" --record="$f" -- "$JAVA" -Xms256m -Xmx256m \
		-XX:+AlwaysPreTouch -XX:+UseParallelGC -version >"$log" 2>&1 ;;
	# Its quit comes down a pipe of each run's own.
	qemu) (sleep 6; echo quit) | "$SURVEY" --record="$f" -- \
		qemu-system-x86_64 -nodefaults -display none -S -m 256M \
		-object memory-backend-ram,id=ram,size=256M,prealloc=on,prealloc-threads=2 \
		-machine pc,memory-backend=ram -monitor stdio >"$log" 2>&1 ;;
	redis) redis_run "$f" "$log" ;;
	pg) pg_run "$f" "$log" ;;
	pft-*) # shellcheck disable=SC2046
		"$SURVEY" --record="$f" -- "$PFT" $(pft_args "${name#pft-}") \
			>"$log" 2>&1 ;;
	esac
}

# roundtrip NAME: A (and with SELF=N, N more recordings of the program:
# A2...), B (and with REPEAT=N, N replays of A: B, B2...), and the
# comparisons, in OUT/NAME.
roundtrip() {
	local name=$1 d=$OUT/$1 rc=0 i self=${SELF:-0}
	mkdir -p "$d/files" || return 1
	if [ -n "${FROM:-}" ]; then
		# An earlier run's recordings, replayed again: its A and
		# the program's other runs (A2...), as many as it made.
		[ "$FROM/$name" -ef "$d" ] ||
			cp "$FROM/$name"/A*.json "$d/" 2>/dev/null
		self=$(find "$d" -maxdepth 1 -name 'A[0-9]*.json' | wc -l)
	else
		record "$name" "$d/A.json" "$d/a.out"
		rc=$?
	fi
	[ -s "$d/A.json" ] || { echo "| $name | not recorded (rc $rc) |"; return 1; }
	for ((i = 2; i <= self + 1; i++)); do
		[ -n "${FROM:-}" ] || record "$name" "$d/A$i.json" "$d/a$i.out"
		# Both ways: --compare shifts its second profile earlier
		# only (a replay starts later), and a run of the program
		# may start earlier or later than A.
		[ -s "$d/A$i.json" ] && "$SURVEY" --compare "$d/A.json" \
			"$d/A$i.json" --json >"$d/cmp-a$i.json" &&
			"$SURVEY" --compare "$d/A$i.json" "$d/A.json" \
				--json >"$d/rcmp-a$i.json"
	done
	# An earlier run's replays in this directory (FROM=OUT) are not
	# this run's.
	rm -f "$d"/B[0-9]*.json "$d"/cmp-b[0-9]*.json
	for ((i = 1; i <= ${REPEAT:-1}; i++)); do
		local b=B; [ "$i" = 1 ] || b=B$i
		(cd "$d" && "$SURVEY" --record="$d/$b.json" -- "$PFT" \
			--replay="$d/A.json" --backing=file:"$d/files" \
			>"$d/b${b#B}.out" 2>&1)
		[ -s "$d/$b.json" ] || {
			echo "| $name | not replayed: $(grep -m1 '^pft:' "$d/b${b#B}.out") |"
			return 1
		}
		"$SURVEY" --compare "$d/A.json" "$d/$b.json" --json \
			>"$d/cmp${b#B}.json"
		[ "$i" = 1 ] || mv "$d/cmp${b#B}.json" "$d/cmp-b$i.json"
	done
	"$SURVEY" --compare "$d/A.json" "$d/B.json" --bin-ms=100 --json \
		>"$d/cmp100.json"
	"$SURVEY" --compare "$d/A.json" "$d/B.json" >"$d/cmp.txt"
	row "$name" "$d"
}

# The case's row, from its two comparisons.
row() {
	python3 - "$1" "$2" <<'EOF'
import json, os, re, statistics, sys
name, d = sys.argv[1:3]
c = json.load(open(os.path.join(d, "cmp.json")))
c100 = json.load(open(os.path.join(d, "cmp100.json")))
def every(o):
    return ([k for k in o["kinds"] if k["kind"] == "all"] or [None])[0]
def ab(k, dim):
    return k["dimensions"][dim]["a"], k["dimensions"][dim]["b"]
top = max((o for o in c["objects"] if o["a"] is not None and every(o)),
          key=lambda o: ab(every(o), "bytes")[0])
kinds = []
for k in top["kinds"]:
    a, b = ab(k, "faults")
    kinds.append("%s %d / %d = %s" % (k["kind"], a, b,
                                      "%.3f" % (b / a) if a else "-"))
al = every(top)
same = [o for o in c100["objects"] if o["a"] == top["a"]]
r100 = every(same[0])["time_shape_correlation"] if same else None
r = al["time_shape_correlation"]
fmt = lambda x: "-" if x is None else "%.3f" % x

def others(prefix):
    """Top's "all" row in each comparison prefixN.json (N = 2, 3, ...),
    None where it had none."""
    out = []
    for f in sorted(os.listdir(d)):
        m = re.fullmatch(re.escape(prefix) + r"(\d+)\.json", f)
        if not m:
            continue
        cs = json.load(open(os.path.join(d, f)))
        mine = [o for o in cs["objects"] if o["a"] == top["a"] and every(o)]
        out.append(every(mine[0]) if mine else None)
    return out

def shapes(prefix):
    """The time shape of top against each run of prefix (others); where
    the run was compared the other way too (rprefixN.json), the better
    of the two (the run shifted later, or earlier)."""
    out = []
    for f in sorted(os.listdir(d)):
        m = re.fullmatch(re.escape(prefix) + r"(\d+)\.json", f)
        if not m:
            continue
        rs = []
        cs = json.load(open(os.path.join(d, f)))
        rs += [every(o)["time_shape_correlation"] for o in cs["objects"]
               if o["a"] == top["a"] and every(o)]
        back = os.path.join(d, "r" + f)
        if os.path.exists(back):
            cs = json.load(open(back))
            rs += [every(o)["time_shape_correlation"] for o in cs["objects"]
                   if o["b"] == top["a"] and every(o)]
        rs = [x for x in rs if x is not None]
        out.append(max(rs) if rs else None)
    return out

def most(prefix):
    """The most threads faulting top's match at once in each run of
    prefix (others), as text."""
    return ["-" if k is None else "%g" % k["dimensions"]["concurrency most"]["b"]
            for k in others(prefix)]

def spread(rs):
    rs = sorted(0.0 if x is None else x for x in rs)
    if not rs:
        return None, "-"
    med = statistics.median(rs)
    if len(rs) == 1:
        return med, fmt(med)
    return med, "%s [%s, %s] of %d" % (fmt(med), fmt(rs[0]), fmt(rs[-1]),
                                       len(rs))

rb, replays = spread([r] + shapes("cmp-b"))
selfs = shapes("cmp-a")
_, own = spread(selfs)
if rb is not None and rb >= 0.9:
    verdict = "r >= 0.9"
elif rb is not None and selfs and rb >= min(0.0 if x is None else x
                                            for x in selfs):
    verdict = "within the program's own"
else:
    verdict = "below"
conc = "%g / %g" % ab(al, "concurrency most")
if most("cmp-b") or most("cmp-a"):
    conc += " (replays %s; other runs %s)" % (
        ", ".join(["%g" % ab(al, "concurrency most")[1]] + most("cmp-b")),
        ", ".join(most("cmp-a")) or "-")
print("| %s | %s, %d bytes | %s | %d / %d | %d / %d | %s | %s (lag %g ms); %s (lag %g ms) | %s | %s | %s | %s |" % (
    name, top["backing"], top["size_a"], "; ".join(kinds),
    *ab(al, "threads"), *ab(al, "processes"), conc,
    fmt(r), c["lag_ms"], fmt(r100), c100["lag_ms"], replays, own, verdict,
    ", ".join("%s %d / %d" % (k, v["a"], v["b"])
              for k, v in c["without_event"].items()) or "-"))
EOF
}

# The pft arguments of case pft-NAME.
pft_args() {
	case $1 in
	shared-vma) echo "-t 2 -m 64M" ;;
	per-thread-vma) echo "-M -t 2 -m 64M" ;;
	processes) echo "-n 2 -m 64M" ;;
	share) echo "-n 2 -m 64M --share" ;;
	sysv) echo "-n 2 -m 64M -S" ;;
	memfd) echo "-n 2 -m 64M --backing=memfd" ;;
	file) echo "-t 2 -m 64M --backing=file:$OUT/pftfiles" ;;
	hugetlb) echo "-t 2 -m 32M --backing=hugetlb" ;;
	thp) echo "-t 2 -m 64M --thp=always" ;;
	populate) echo "-t 2 -m 64M --touch=populate" ;;
	read) echo "-t 2 -m 64M --touch=read" ;;
	cow-reads) echo "--pattern=cow-fork -t 1 -m 32M --cow-child=reads" ;;
	cow-writes) echo "--pattern=cow-fork -t 1 -m 32M --cow-child=writes" ;;
	pretouch) echo "--pattern=pretouch -t 2 -m 128M" ;;
	qemu-prealloc) echo "--pattern=qemu-prealloc -t 2 -m 128M" ;;
	rounds) echo "-t 2 -m 16M --rounds=3" ;;
	*) return 1 ;;
	esac
}

# redis_run FILE LOG: a new server, loaded, recorded through a BGSAVE
# under writes.
redis_run() {
	local d=$OUT/redis-server pid load
	rm -rf "$d" && mkdir -p "$d" || return 1
	redis-server --port 6399 --save "" --appendonly no --dir "$d" \
		>"$d/log" 2>&1 &
	pid=$!
	sleep 1
	redis-benchmark -p 6399 -t set -n 300000 -r 300000 -d 1024 -q \
		>/dev/null
	(sleep 2; redis-cli -p 6399 bgsave >/dev/null
	 redis-benchmark -p 6399 -t set -n 200000 -r 300000 -d 1024 -q \
		>/dev/null) &
	load=$!
	"$SURVEY" --record="$1" -p "$pid" --duration=12 >"$2" 2>&1
	wait "$load"
	redis-cli -p 6399 shutdown nosave >/dev/null 2>&1
	wait "$pid" 2>/dev/null
	return 0
}

# pg_run FILE LOG: a new cluster, initialised, its postmaster recorded
# through ten seconds of pgbench.
pg_run() {
	local d=$OUT/pg-data pm load
	rm -rf "$d" && mkdir -p "$d" && chown postgres "$d" || return 1
	su postgres -c "$PGBIN/initdb -D '$d' -A trust" >/dev/null || return 1
	su postgres -c "$PGBIN/pg_ctl -D '$d' -o '-p 5499 -k /tmp -c shared_buffers=256MB' -l '$d/log' start" >/dev/null || return 1
	su postgres -c "$PGBIN/pgbench -h /tmp -p 5499 -i -s 10 postgres" \
		>/dev/null 2>&1
	pm=$(head -n 1 "$d/postmaster.pid")
	(sleep 1; su postgres -c "$PGBIN/pgbench -h /tmp -p 5499 -c 4 -j 2 -T 10 postgres" >"$d/pgbench.out" 2>&1) &
	load=$!
	"$SURVEY" --record="$1" -p "$pm" --duration=12 >"$2" 2>&1
	wait "$load"
	su postgres -c "$PGBIN/pg_ctl -D '$d' stop -m fast" >/dev/null
	return 0
}

case_of() {
	case $1 in
	jvm-g1 | jvm-parallel | qemu | redis | pg) roundtrip "$1" ;;
	*)	if ! pft_args "$1" >/dev/null; then
			echo "| $1 | no such case |"
			return 0
		fi
		mkdir -p "$OUT/pftfiles"
		roundtrip "pft-$1" ;;
	esac
}

[ $# -gt 0 ] || set -- shared-vma per-thread-vma processes share sysv memfd \
	file hugetlb thp populate read cow-reads cow-writes pretouch \
	qemu-prealloc rounds
echo "Results in $OUT"
echo
echo "| case | largest object of A | faults by kind, A / B = B/A | threads | processes | most concurrent | time shape: profile bins; 100 ms | time shape, every replay (REPEAT): median [least, most] | A against its other runs (SELF): median [least, most] | verdict | without an event |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for c in "$@"; do
	case_of "$c"
done
