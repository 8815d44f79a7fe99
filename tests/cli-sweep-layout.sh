#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli-sweep-layout.sh - pft-sweep --cpu-groups=KIND[=NAME]:GxW,... chooses
# the CPUs of each layout from sysfs topology: checked against fake sysfs
# trees (PFT_SWEEP_SYSFS) of an 84-CPU machine with 12 L3 domains of 7
# CPUs and 4 nodes of 3 L3 domains, of a 16-CPU machine whose hardware
# threads are numbered in pairs, and of the 84-CPU machine with a CPU
# offline; labels in the table's words; layouts that do not fit; a real
# layout sweep on this machine with its labels in the table and files.
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

have_python || skip "python3 is needed (pft-sweep is a Python 3 script)"
sweep=$top_builddir/pft/pft-sweep

# mkfake DIR NCPUS PER_L3 PER_NODE THREADS: a sysfs tree.  Core k holds
# THREADS consecutive CPUs; an L3 domain PER_L3 consecutive CPUs; a node
# PER_NODE consecutive CPUs.  Lists are written as the kernel writes them.
mkfake() {
	python3 - "$@" <<'EOF'
import os, sys
root, n, per_l3, per_node, threads = sys.argv[1], *map(int, sys.argv[2:])
def span(lo, count):
    return "%d-%d" % (lo, lo + count - 1) if count > 1 else str(lo)
def put(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text + "\n")
cpu = os.path.join(root, "devices/system/cpu")
put(cpu + "/online", span(0, n))
for c in range(n):
    d = "%s/cpu%d" % (cpu, c)
    if c:
        put(d + "/online", "1")
    core = span(c - c % threads, threads)
    put(d + "/topology/core_cpus_list", core)
    put(d + "/topology/thread_siblings_list", core)
    put(d + "/topology/core_id", str(c // threads))
    caches = ((1, "Data", core, c // threads),
              (1, "Instruction", core, c // threads),
              (2, "Unified", core, c // threads),
              (3, "Unified", span(c - c % per_l3, per_l3), c // per_l3))
    for i, (level, kind, shared, ident) in enumerate(caches):
        put("%s/cache/index%d/level" % (d, i), str(level))
        put("%s/cache/index%d/type" % (d, i), kind)
        put("%s/cache/index%d/shared_cpu_list" % (d, i), shared)
        put("%s/cache/index%d/id" % (d, i), str(ident))
    node = c // per_node
    put("%s/devices/system/node/node%d/cpulist" % (root, node),
        span(node * per_node, per_node))
    os.symlink("../../node/node%d" % node, "%s/node%d" % (d, node))
EOF
}

mkfake "$tmp/epyc" 84 7 21 1 || skip "cannot write a fake sysfs tree"
mkfake "$tmp/smt" 16 8 16 2 || skip "cannot write a fake sysfs tree"
mkfake "$tmp/off" 84 7 21 1 && echo 0 >"$tmp/off/devices/system/cpu/cpu3/online"

# layouts TREE SPEC...: the dry run's "WORKERS CPUS LABEL" lines, in
# $tmp/lay.out; status in $rc.
layouts() {
	tree=$1
	shift
	PFT_SWEEP_SYSFS=$tree "$sweep" --pft="$PFT" --dry-run -p shared-vma \
		-m 4M "$@" >"$tmp/lay.cmd" 2>"$tmp/lay.err"
	rc=$?
	sed -n 's/.* -t \([0-9]*\) .*--cpus=\([0-9,-]*\) -a  # \(.*\)$/\1 \2 \3/p' \
		"$tmp/lay.cmd" >"$tmp/lay.out"
}

# expect WHAT: $tmp/lay.out is the text on stdin.
expect() {
	cat >"$tmp/want"
	if [ "$rc" -ne 0 ] || ! cmp -s "$tmp/lay.out" "$tmp/want"; then
		fail "$1: exit $rc, got:
$(cat "$tmp/lay.out" "$tmp/lay.err")
expected:
$(cat "$tmp/want")"
	else
		ok
	fi
}

# The seed table's rows: one L3 domain with 7 workers, 7 domains with one
# worker each, all 12 with one each; then all 12 with 2 each.
layouts "$tmp/epyc" --cpu-groups=l3:1x7,7x1,allx1,allx2
expect "84 CPUs, l3" <<'EOF'
7 0-6 1 L3 domain, 7 workers
7 0,7,14,21,28,35,42 7 L3 domains, 1 worker each
12 0,7,14,21,28,35,42,49,56,63,70,77 12 L3 domains, 1 worker each
24 0-1,7-8,14-15,21-22,28-29,35-36,42-43,49-50,56-57,63-64,70-71,77-78 12 L3 domains, 2 workers each
EOF

# The groups named as the table names them.
layouts "$tmp/epyc" --cpu-groups=l3=CCD:1x7,7x1,allx1
expect "l3=CCD labels" <<'EOF'
7 0-6 1 CCD, 7 workers
7 0,7,14,21,28,35,42 7 CCDs, 1 worker each
12 0,7,14,21,28,35,42,49,56,63,70,77 12 CCDs, 1 worker each
EOF

# Nodes and cores, two --cpu-groups in one sweep, rows in order given.
layouts "$tmp/epyc" --cpu-groups=node:1x3,allx1,4x3,1xall \
	--cpu-groups=core:2x1
expect "84 CPUs, node and core" <<'EOF'
3 0-2 1 node, 3 workers
4 0,21,42,63 4 nodes, 1 worker each
12 0-2,21-23,42-44,63-65 4 nodes, 3 workers each
21 0-20 1 node, all 21 CPUs
2 0-1 2 cores, 1 worker each
EOF

# Without :GxW, --workers N puts one worker in each of the first N groups.
layouts "$tmp/epyc" --cpu-groups=l3 -w 1,3
expect "--cpu-groups=l3 -w 1,3" <<'EOF'
1 0 1 L3 domain, 1 worker
3 0,7,14 3 L3 domains, 1 worker each
EOF
# ... and the default counts go 1, 2, 4, 8 and the number of groups.
layouts "$tmp/epyc" --cpu-groups=l3
if [ "$rc" -eq 0 ] &&
	[ "$(cut -d' ' -f1 "$tmp/lay.out" | tr '\n' ' ')" = "1 2 4 8 12 " ]; then
	ok
else
	fail "--cpu-groups=l3 default counts: $(cat "$tmp/lay.out" "$tmp/lay.err")"
fi

# Hardware threads numbered in pairs (core k = CPUs 2k, 2k+1): W workers
# in a group take one thread of W cores before any second thread.
layouts "$tmp/smt" --cpu-groups=l3:1x4,1x6,allx4,1xall --cpu-groups=core:1x2,4x1
expect "SMT pairs" <<'EOF'
4 0,2,4,6 1 L3 domain, 4 workers
6 0-4,6 1 L3 domain, 6 workers
8 0,2,4,6,8,10,12,14 2 L3 domains, 4 workers each
8 0-7 1 L3 domain, all 8 CPUs
2 0-1 1 core, 2 workers
4 0,2,4,6 4 cores, 1 worker each
EOF

# An offline CPU is not in any group: the first L3 domain has 6 CPUs.
layouts "$tmp/off" --cpu-groups=l3:1x6,2x1,1xall
expect "CPU 3 offline" <<'EOF'
6 0-2,4-6 1 L3 domain, 6 workers
2 0,7 2 L3 domains, 1 worker each
6 0-2,4-6 1 L3 domain, all 6 CPUs
EOF

# The plain commands: the layout's workers, pinned, in every pattern;
# one run each, as the runs of a point are pfts of their own.
PFT_SWEEP_SYSFS=$tmp/epyc "$sweep" --pft="$PFT" --dry-run -m 4M --rounds=1 \
	-r 2 --cpu-groups=l3:7x1 -p shared-vma,per-thread-vma,processes \
	>"$tmp/pat.out" 2>"$tmp/pat.err"
cat >"$tmp/want" <<EOF
$PFT --json -m 4M --pattern=shared-vma -t 7 --rounds=1 --warmup=1 --cpus=0,7,14,21,28,35,42 -a  # 7 L3 domains, 1 worker each
$PFT --json -m 4M --pattern=per-thread-vma -t 7 --rounds=1 --warmup=1 --cpus=0,7,14,21,28,35,42 -a  # 7 L3 domains, 1 worker each
$PFT --json -m 4M -n 7 --rounds=1 --warmup=1 --cpus=0,7,14,21,28,35,42 -a  # 7 L3 domains, 1 worker each
EOF
if cmp -s "$tmp/pat.out" "$tmp/want"; then
	ok
else
	fail "layout commands: $(cat "$tmp/pat.out" "$tmp/pat.err")"
fi

# Layouts that do not fit, and bad specifications: one line saying why,
# the hint, exit 2.  "bad_layout REASON ARGS...".
bad_layout() {
	why=$1
	shift
	PFT_SWEEP_SYSFS=$tmp/epyc "$sweep" --pft="$PFT" --dry-run "$@" \
		>"$tmp/bad.out" 2>"$tmp/bad.err"
	rc=$?
	if [ "$rc" -ne 2 ] || [ "$(wc -l <"$tmp/bad.err")" -ne 2 ] ||
		! head -n 1 "$tmp/bad.err" | grep -qF -- "$why" ||
		[ -s "$tmp/bad.out" ]; then
		fail "'$*': exit $rc, $(cat "$tmp/bad.err")"
	else
		ok
	fi
}
bad_layout "13 L3 domains asked, the allowed CPUs span 12" --cpu-groups=l3:13x1
bad_layout "8 workers per L3 domain asked, the L3 domain of CPU 0 has 7" \
	--cpu-groups=l3:1x8
bad_layout "2 workers per core asked, the core of CPU 0 has 1" \
	--cpu-groups=core:1x2
bad_layout "5 nodes asked, the allowed CPUs span 4" --cpu-groups=node:5x1
bad_layout "'0x1' is not GxW" --cpu-groups=l3:0x1
bad_layout "'1x0' is not GxW" --cpu-groups=l3:1x0
bad_layout "'1y7' is not GxW" --cpu-groups=l3:1y7
bad_layout "KIND one of l3, l2, core, node" --cpu-groups=socket:1x1
bad_layout "an empty group name" --cpu-groups=l3=
bad_layout "--workers and --cpu-groups=l3:1x1 exclude" --cpu-groups=l3:1x1 -w 2
bad_layout "cannot be combined" --cpu-groups=l3 --cpu-groups=node:1x1
bad_layout "--cpu-groups and --cpu-list exclude" --cpu-groups=l3:1x1 --cpu-list=0
bad_layout "'--cpus=0' after '--': pft-sweep sets it itself" \
	--cpu-groups=l3:1x1 -- --cpus=0

# A machine whose sysfs has no cache directories: a clear error, exit 1.
rm -rf "$tmp/epyc/devices/system/cpu/cpu0/cache"
PFT_SWEEP_SYSFS=$tmp/epyc "$sweep" --pft="$PFT" --dry-run --cpu-groups=l3:1x1 \
	>"$tmp/nc.out" 2>"$tmp/nc.err"
rc=$?
if [ "$rc" -eq 1 ] && grep -q "no L3 cache for CPU 0" "$tmp/nc.err"; then
	ok
else
	fail "no cache in sysfs: exit $rc, $(cat "$tmp/nc.err")"
fi

# This machine, for real: one layout per core and one for the first node,
# the labels in the table, the CSV and the JSON.
ncores=$("$sweep" --pft="$PFT" --dry-run -p shared-vma --cpu-groups=core:allx1 \
	2>/dev/null | sed -n 's/.* -t \([0-9]*\) .*/\1/p')
[ -n "$ncores" ] || skip "no core topology in this machine's sysfs"
if [ "$ncores" -lt 2 ]; then
	# One allowed core (taskset -c 0): both layouts are the same point.
	echo "cli-sweep-layout: one allowed core: the real sweep not counted" >&2
	finish
fi
"$sweep" --pft="$PFT" -m 4M --rounds=1 --warmup=0 -r 2 -p shared-vma \
	--cpu-groups=core:1x1,allx1 -o "$tmp/real" --no-plot -q \
	>"$tmp/real.out" 2>"$tmp/real.err"
rc=$?
if [ "$rc" -ne 0 ]; then
	fail "a core layout sweep exited $rc: $(cat "$tmp/real.err")"
else
	label=$(if [ "$ncores" -eq 1 ]; then echo "1 core, 1 worker"; else
		echo "$ncores cores, 1 worker each"; fi)
	sed -n 2p "$tmp/real.out" | grep -q '^layout  *shared-vma  *spread$' ||
		fail "layout table header: $(sed -n 2p "$tmp/real.out")"
	sed -n 3p "$tmp/real.out" | grep -q '^1 core, 1 worker  *[0-9]' ||
		fail "layout table row 1: $(sed -n 3p "$tmp/real.out")"
	sed -n 4p "$tmp/real.out" | grep -q "^$label  *[0-9]" ||
		fail "layout table row 2: $(sed -n 4p "$tmp/real.out")"
	out=$(python3 - "$tmp/real" "$ncores" "$label" <<'EOF'
import csv, json, sys
prefix, ncores, label = sys.argv[1], int(sys.argv[2]), sys.argv[3]
pts = list(csv.DictReader(open(prefix + ".csv")))
runs = list(csv.DictReader(open(prefix + "-runs.csv")))
doc = json.load(open(prefix + ".json"))
got = [(p["layout"], p["label"], p["workers"]) for p in pts]
want = [("core:1x1", "1 core, 1 worker", "1"),
        ("core:%dx1" % ncores, label, str(ncores))]
if got != want:
    print("points CSV layouts %s, expected %s" % (got, want))
if sorted({r["layout"] for r in runs}) != sorted(x[0] for x in want) or \
        len(runs) != 4:
    print("runs CSV: %d rows, layouts %s" % (len(runs),
                                               {r["layout"] for r in runs}))
if [l["layout"] for l in doc["config"]["layouts"]] != [x[0] for x in want]:
    print("JSON config.layouts %s" % doc["config"]["layouts"])
host = doc["host"]
for k in ("kernel", "cmdline", "cpu_model", "topology", "thp", "pft",
          "libfaultgen"):
    if host.get(k) in (None, ""):
        print("JSON host lacks %s" % k)
if host["topology"]["cores"] != ncores:
    print("JSON host.topology.cores %s" % host["topology"]["cores"])
for p in pts:
    if len(p["cpus"].replace("-", ",").split(",")) > int(p["workers"]):
        print("point %s pinned to %s" % (p["layout"], p["cpus"]))
EOF
)
	if [ -z "$out" ]; then
		ok
	else
		fail "layout sweep files: $out"
	fi
fi

finish
