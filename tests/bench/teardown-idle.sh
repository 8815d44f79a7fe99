#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# teardown-idle.sh - a benchmark, not a test: the CPU it costs to unmap
# faulted memory right after the faults, against after a short sleep,
# with no pft in the way.  It accounts for the -t 1 CPU that pft spends
# beyond pft 0.12x outside the fault loop (README, "Measured figures"):
# 0.12x's launcher sleeps 0.5 ms (its reaping poll) between its loop and
# its exit, pft frees the region at once.
#
#   tests/bench/teardown-idle.sh
#
# A small C program (built here with $CC) maps SIZE MiB of private
# anonymous memory, writes one byte per page, reads its CPU clock, sleeps
# (or not), unmaps and exits.  The variants (no sleep, IDLE_US, 50 us)
# run ROUNDS times each, in turns rotated and reversed back to back, all
# on CPU.  For each: the CPU the process spends after its clock reading
# (whole-process CPU from wait4 minus that reading: the unmap and exit),
# and the busy time of the whole machine over the run (2 x wall time minus
# the cpuidle residency of every CPU, so work moved to another task would
# show there); medians, and the median of the paired differences against
# "no sleep" with a 95% bootstrap interval.
#
# Environment: SIZE (MiB, default 1024), ROUNDS (150), CPU (0), IDLE_US
# (500), CC (cc).  Requires python3, taskset and cpuidle in sysfs (for
# the machine's busy time; without it only the process's CPU is shown).
#
# Copyright (C) 2026 The libfaultgen authors
set -u
SIZE=${SIZE:-1024}
ROUNDS=${ROUNDS:-150}
CPU=${CPU:-0}
IDLE_US=${IDLE_US:-500}
CC=${CC:-cc}
for c in python3 taskset "$CC"; do
	command -v "$c" >/dev/null ||
		{ echo "teardown-idle: $c is needed" >&2; exit 2; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/teardown-idle.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/td.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

/* td MIB SLEEP_US */
int main(int argc, char **argv)
{
	size_t len = (size_t)atol(argv[1]) << 20;
	long us = atol(argv[2]);
	struct timespec c, ts = { us / 1000000, us % 1000000 * 1000 };
	char *p;

	(void)argc;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	for (size_t o = 0; o < len; o += 4096)
		p[o] = 1;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c);
	printf("%.6f\n", c.tv_sec * 1e3 + c.tv_nsec / 1e6);
	fflush(stdout);
	if (us > 0)
		nanosleep(&ts, NULL);
	munmap(p, len);
	return 0;
}
EOF
"$CC" -O2 -o "$tmp/td" "$tmp/td.c" || exit 1

python3 - "$tmp/td" "$SIZE" "$IDLE_US" "$ROUNDS" "$CPU" <<'EOF'
import glob, os, random, statistics as st, subprocess, sys, time
td, size, idle_us, rounds, cpu = sys.argv[1:]
idle_files = glob.glob("/sys/devices/system/cpu/cpu[0-9]*/cpuidle/state*/time")
ncpu = len(glob.glob("/sys/devices/system/cpu/cpu[0-9]*/cpuidle"))
variants = ["0"] + [u for u in (idle_us, "50") if u != "0"]
variants = list(dict.fromkeys(variants))

def idle_ms():
    return sum(int(open(f).read()) for f in idle_files) / 1e3

def run(us):
    i0, t0 = idle_ms(), time.monotonic()
    p = subprocess.Popen(["taskset", "-c", cpu, td, size, us],
                         stdout=subprocess.PIPE, text=True)
    before = float(p.stdout.read())
    _, status, ru = os.wait4(p.pid, 0)
    t1, i1 = time.monotonic(), idle_ms()
    if os.waitstatus_to_exitcode(status):
        sys.exit("teardown-idle: the program failed")
    return ((ru.ru_utime + ru.ru_stime) * 1e3 - before,
            ncpu * (t1 - t0) * 1e3 - (i1 - i0))

for v in variants:  # warm-up
    run(v)
res = {v: [] for v in variants}
k = len(variants)
for i in range(int(rounds)):
    order = variants[i % k:] + variants[:i % k]
    if (i // k) % 2:
        order.reverse()
    for v in order:
        res[v].append(run(v))
print("teardown-idle: %s MiB, %s rounds, CPU %s" % (size, rounds, cpu))
rng = random.Random(1)
what = [(0, "process CPU after the faults")]
if idle_files:
    what.append((1, "machine busy time over the run"))
for j, name in what:
    print("%s, ms:" % name)
    for v in variants:
        d = [a[j] - b[j] for a, b in zip(res[v], res["0"])]
        boot = sorted(st.median(rng.choices(d, k=len(d)))
                      for _ in range(2000))
        label = "no sleep" if v == "0" else "sleep %s us" % v
        print("  %-14s median %8.2f   vs no sleep %+6.2f [%.2f, %.2f]"
              % (label, st.median([a[j] for a in res[v]]), st.median(d),
                 boot[49], boot[1949]))
EOF
