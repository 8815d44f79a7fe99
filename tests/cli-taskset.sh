#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli-taskset.sh - pft honours an affinity mask that does not start at
# CPU 0 (0.12x died with SIGFPE under "taskset -c 1 pft -t 1"): threads
# and processes, with and without -a, really run on CPU 1, and --cpus
# narrows the mask.
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

have_python || skip "python3 is needed"
command -v taskset >/dev/null || skip "taskset is not installed"
cpu_allowed 1 || skip "CPU 1 is not in this test's affinity mask"

# "where NAME PINNED-CPU ARGS...": every worker ran on CPU 1 only; with -a
# it was pinned there.  The legacy line of the same arguments is sound.
where() {
	wname=$1
	pinned=$2
	shift 2
	run_pft "$wname" --json "$@"
	if [ "$rc" -ne 0 ]; then
		fail "$wname: pft $* exited $rc: $(head -n 2 "$tmp/$wname.err")"
		return
	fi
	problems=$(python3 - "$pinned" "$tmp/$wname.out" <<'EOF' 2>&1
import json, sys
pinned = int(sys.argv[1])
d = json.loads(open(sys.argv[2]).readline())
if d["cpus"]["allowed"] != "1":
    print("allowed CPUs %s, not 1" % d["cpus"]["allowed"])
for w in d["workers"]:
    if w["last_cpu"] != 1:
        print("worker %d ran on CPU %d" % (w["index"], w["last_cpu"]))
    if w["cpu"] != pinned:
        print("worker %d pinned to %d, not %d" % (w["index"], w["cpu"], pinned))
EOF
)
	[ -z "$problems" ] && ok || fail "$wname (pft $*): $problems"
}

# The taskset cases run pft under "taskset -c 1".
PFT_REAL=$PFT
cat >"$tmp/pft-on-1" <<EOF
#!/bin/sh
exec taskset -c 1 "$PFT_REAL" "\$@"
EOF
chmod +x "$tmp/pft-on-1"
PFT=$tmp/pft-on-1

where threads -1 -t 1 -m 16M
where threads-pinned 1 -a -t 1 -m 16M
where procs -1 -n 1 -m 16M
where procs-pinned 1 -a -n 1 -m 16M
where per-thread-pinned 1 -a -M -t 1 -m 16M
where oversubscribed 1 -a --oversubscribe -t 3 -m 16M
where oversubscribed-procs -1 --oversubscribe -n 3 -m 16M

# The legacy line under taskset -c 1.
run_pft legacy -t 1 -m 16M
[ "$rc" -eq 0 ] && check_result_line "$(cat "$tmp/legacy.out")" 1 1 "taskset -c 1 pft -t 1" ||
	fail "taskset -c 1 pft -t 1 exited $rc: $(cat "$tmp/legacy.err")"
run_pft legacy-a -a -n 1 -m 16M
[ "$rc" -eq 0 ] && check_result_line "$(cat "$tmp/legacy-a.out")" 1 1 "taskset -c 1 pft -a -n 1" ||
	fail "taskset -c 1 pft -a -n 1 exited $rc: $(cat "$tmp/legacy-a.err")"

# Two workers on one allowed CPU: clipped to 1, with 0.12x's message.
run_pft clip -t 2 -m 16M
grep -qx 'clipping nr_tests to nr_cpus_allowed \[1\]' "$tmp/clip.err" && ok ||
	fail "taskset -c 1 pft -t 2: no clipping message: $(cat "$tmp/clip.err")"
check_result_line "$(cat "$tmp/clip.out")" 1 1 "taskset -c 1 pft -t 2"

# -F changes nothing (as in 0.12x): still clipped to the one CPU.
run_pft clip-F -F -n 2 -m 16M
grep -qx 'clipping nr_tests to nr_cpus_allowed \[1\]' "$tmp/clip-F.err" && ok ||
	fail "taskset -c 1 pft -F -n 2: no clipping message: $(cat "$tmp/clip-F.err")"
check_result_line "$(cat "$tmp/clip-F.out")" 1 1 "taskset -c 1 pft -F -n 2"

# --cpus inside the mask, without taskset.
PFT=$PFT_REAL
where cpus-list 1 --cpus=1 -a -t 1 -m 16M
where cpus-procs -1 --cpus=1 -n 1 -m 16M

# numactl, as the CCD benchmarks use it.
if command -v numactl >/dev/null; then
	cat >"$tmp/pft-numactl" <<EOF
#!/bin/sh
exec numactl --physcpubind=1 "$PFT_REAL" "\$@"
EOF
	chmod +x "$tmp/pft-numactl"
	PFT=$tmp/pft-numactl
	where numactl 1 -a -t 1 -m 16M
	PFT=$PFT_REAL
fi

finish
