#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# replay-fidelity.sh - a benchmark, not a test: how faithfully pft
# replays a recorded program.  For each case: pft-survey --record=A of
# the program, pft-survey --record=B of `pft --replay=A`, then
# pft-survey --compare A B (in the profile's bins and in 100 ms bins).
# One Markdown row a case: the object of A with the most faults beside
# its match in B (faults by kind, B/A), threads, processes, the most
# threads faulting it in one bin, the time shape (r) and the lag the
# comparison took, and the faults without an event of the whole
# profiles.  With SELF=1 a program started by the script is recorded a
# second time (A2) and the time shape of A against A2 is given beside:
# how alike two runs of the program itself are in time, this machine's
# resolution for the replay's.  Needs root for the tracepoints (the
# kinds).
#
#   tests/bench/replay-fidelity.sh [CASE]...
#
# CASEs: the pft patterns (shared-vma per-thread-vma processes share
# sysv memfd file hugetlb thp populate read cow-reads cow-writes
# pretouch qemu-prealloc, and rounds: pages given back between passes,
# MADV_DONTNEED; all of them by default), and the programs
# jvm-g1 jvm-parallel (a JDK 17), qemu (qemu-system-x86_64), redis
# (redis-server, redis-benchmark) and pg (PostgreSQL 15, pgbench).
# Environment: PFT (default pft/.libs/pft of this tree, with
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

# roundtrip NAME [-p PID] -- CMD...: A, B and the comparisons in OUT/NAME.
roundtrip() {
	local name=$1 d=$OUT/$1 rc
	shift
	mkdir -p "$d/files" || return 1
	if [ "$1" = -p ]; then
		"$SURVEY" --record="$d/A.json" -p "$2" --duration=12 \
			>"$d/a.out" 2>&1
	else
		shift
		"$SURVEY" --record="$d/A.json" -- "$@" >"$d/a.out" 2>&1
		rc=$?
		if [ "${SELF:-0}" = 1 ]; then
			"$SURVEY" --record="$d/A2.json" -- "$@" >"$d/a2.out" 2>&1
			"$SURVEY" --compare "$d/A.json" "$d/A2.json" --json \
				>"$d/cmpself.json"
		fi
		(exit $rc)
	fi
	rc=$?
	[ -s "$d/A.json" ] || { echo "| $name | not recorded (rc $rc) |"; return 1; }
	(cd "$d" && "$SURVEY" --record="$d/B.json" -- "$PFT" \
		--replay="$d/A.json" --backing=file:"$d/files" >"$d/b.out" 2>&1)
	[ -s "$d/B.json" ] || {
		echo "| $name | not replayed: $(grep -m1 '^pft:' "$d/b.out") |"
		return 1
	}
	"$SURVEY" --compare "$d/A.json" "$d/B.json" --json >"$d/cmp.json"
	"$SURVEY" --compare "$d/A.json" "$d/B.json" --bin-ms=100 --json \
		>"$d/cmp100.json"
	"$SURVEY" --compare "$d/A.json" "$d/B.json" >"$d/cmp.txt"
	row "$name" "$d"
}

# The case's row, from its two comparisons.
row() {
	python3 - "$1" "$2" <<'EOF'
import json, os, sys
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
self_r = "-"
if os.path.exists(os.path.join(d, "cmpself.json")):
    cs = json.load(open(os.path.join(d, "cmpself.json")))
    mine = [o for o in cs["objects"] if o["a"] == top["a"] and every(o)]
    if mine:
        self_r = "%s (lag %g ms)" % (
            fmt(every(mine[0])["time_shape_correlation"]), cs["lag_ms"])
print("| %s | %s, %d bytes | %s | %d / %d | %d / %d | %g / %g | %s (lag %g ms); %s (lag %g ms) | %s | %s |" % (
    name, top["backing"], top["size_a"], "; ".join(kinds),
    *ab(al, "threads"), *ab(al, "processes"), *ab(al, "concurrency most"),
    fmt(r), c["lag_ms"], fmt(r100), c100["lag_ms"], self_r,
    ", ".join("%s %d / %d" % (k, v["a"], v["b"])
              for k, v in c["without_event"].items()) or "-"))
EOF
}

pft_case() {
	local args
	case $1 in
	shared-vma) args="-t 2 -m 64M" ;;
	per-thread-vma) args="-M -t 2 -m 64M" ;;
	processes) args="-n 2 -m 64M" ;;
	share) args="-n 2 -m 64M --share" ;;
	sysv) args="-n 2 -m 64M -S" ;;
	memfd) args="-n 2 -m 64M --backing=memfd" ;;
	file) args="-t 2 -m 64M --backing=file:$OUT/pftfiles" ;;
	hugetlb) args="-t 2 -m 32M --backing=hugetlb" ;;
	thp) args="-t 2 -m 64M --thp=always" ;;
	populate) args="-t 2 -m 64M --touch=populate" ;;
	read) args="-t 2 -m 64M --touch=read" ;;
	cow-reads) args="--pattern=cow-fork -t 1 -m 32M --cow-child=reads" ;;
	cow-writes) args="--pattern=cow-fork -t 1 -m 32M --cow-child=writes" ;;
	pretouch) args="--pattern=pretouch -t 2 -m 128M" ;;
	qemu-prealloc) args="--pattern=qemu-prealloc -t 2 -m 128M" ;;
	rounds) args="-t 2 -m 16M --rounds=3" ;;
	*) echo "| $1 | no such case |"; return 0 ;;
	esac
	mkdir -p "$OUT/pftfiles"
	# shellcheck disable=SC2086
	roundtrip "pft-$1" -- "$PFT" $args
}

redis_case() {
	local d=$OUT/redis-server pid
	mkdir -p "$d"
	redis-server --port 6399 --save "" --appendonly no --dir "$d" \
		>"$d/log" 2>&1 &
	pid=$!
	sleep 1
	redis-benchmark -p 6399 -t set -n 300000 -r 300000 -d 1024 -q \
		>/dev/null
	(sleep 2; redis-cli -p 6399 bgsave >/dev/null
	 redis-benchmark -p 6399 -t set -n 200000 -r 300000 -d 1024 -q \
		>/dev/null) &
	roundtrip redis -p "$pid"
	wait $!
	redis-cli -p 6399 shutdown nosave >/dev/null 2>&1
	wait "$pid" 2>/dev/null
}

pg_case() {
	local d=$OUT/pg-data pm
	mkdir -p "$d" && chown postgres "$d" || return 1
	su postgres -c "$PGBIN/initdb -D '$d' -A trust" >/dev/null || return 1
	su postgres -c "$PGBIN/pg_ctl -D '$d' -o '-p 5499 -k /tmp -c shared_buffers=256MB' -l '$d/log' start" >/dev/null || return 1
	su postgres -c "$PGBIN/pgbench -h /tmp -p 5499 -i -s 10 postgres" \
		>/dev/null 2>&1
	pm=$(head -n 1 "$d/postmaster.pid")
	(sleep 1; su postgres -c "$PGBIN/pgbench -h /tmp -p 5499 -c 4 -j 2 -T 10 postgres" >"$d/pgbench.out" 2>&1) &
	roundtrip pg -p "$pm"
	wait $!
	su postgres -c "$PGBIN/pg_ctl -D '$d' stop -m fast" >/dev/null
}

case_of() {
	case $1 in
	jvm-g1) roundtrip "$1" -- "$JAVA" -Xms256m -Xmx256m \
		-XX:+AlwaysPreTouch -XX:+UseG1GC -version ;;
	jvm-parallel) roundtrip "$1" -- "$JAVA" -Xms256m -Xmx256m \
		-XX:+AlwaysPreTouch -XX:+UseParallelGC -version ;;
	# Not twice (SELF): its quit comes down a pipe that the first run
	# reads to its end.
	qemu) (sleep 6; echo quit) | SELF=0 roundtrip qemu -- qemu-system-x86_64 \
		-nodefaults -display none -S -m 256M -object \
		memory-backend-ram,id=ram,size=256M,prealloc=on,prealloc-threads=2 \
		-machine pc,memory-backend=ram -monitor stdio ;;
	redis) redis_case ;;
	pg) pg_case ;;
	*) pft_case "$1" ;;
	esac
}

[ $# -gt 0 ] || set -- shared-vma per-thread-vma processes share sysv memfd \
	file hugetlb thp populate read cow-reads cow-writes pretouch \
	qemu-prealloc rounds
echo "Results in $OUT"
echo
echo "| case | largest object of A | faults by kind, A / B = B/A | threads | processes | most concurrent | time shape: profile bins; 100 ms | A against A2 (SELF=1): profile bins | without an event |"
echo "|---|---|---|---|---|---|---|---|---|"
for c in "$@"; do
	case_of "$c"
done
