# SPDX-License-Identifier: LGPL-2.1-or-later
# cases.sh - the cases of each shape, run inside the guest by /init;
# sourced, not run (busybox sh).
#
# A case is a function run in a subshell in its own directory; it exits 0
# (pass), 77 (skip, its last line says why) or anything else (fail, its
# last lines say why).  Every pft run is checked by check.py against the
# mask the case asked for and the guest's sysfs: where each worker ran,
# how many workers, pages and faults, which VMAs, which nodes.  Times
# measured in a TCG guest mean nothing and are never looked at.
#
# On fd 3 (the runner's serial port): "PLAN name..." first, then for each
# case "CASE name" when it starts and "RESULT name PASS|FAIL|SKIP [why]"
# when it ends, with "LOG name line" lines after a failure.
#
# Copyright (C) 2026 The libfaultgen authors

M=1048576
case_timeout=900
cg=/sys/fs/cgroup

say() {
	echo "$*" >&3
}

# Every command of a case runs under a timeout: a hung pft fails its case
# instead of hanging the guest until the runner's own timeout.
tmo() {
	timeout -s KILL "$case_timeout" "$@"
}

# run COMMAND...: out and err hold its output; fails unless it exits 0.
run() {
	tmo "$@" >out 2>err
	rc=$?
	[ "$rc" -eq 0 ] && return 0
	echo "'$*' exited $rc: $(tail -n 3 err)"
	return 1
}

# check.py's flags for pft options: -a pins, -n processes, --oversubscribe
# oversubscribes (-F is accepted and ignored, as in 0.12x).
check_flags() {
	for a; do
		case $a in
		-a) printf ' --pin' ;;
		-n) printf ' --processes' ;;
		--oversubscribe) printf ' --oversubscribe' ;;
		esac
	done
}

# The CPUs this shell may run on, as a list.
my_cpus() {
	taskset -cp $$ | sed 's/.*: *//'
}

# ---- the cases ------------------------------------------------------------

c_topology() {
	check.py topology --cpus "$1" --l3 "$2" --nodes "$3" --smt "$4" \
		--packages "$5"
}

# c_taskset MASK N PFT-ARGS...: taskset -c MASK pft PFT-ARGS (N workers
# asked, 1 MiB each): workers inside MASK, pinned in order with -a,
# clipped as 0.12x clips.
c_taskset() {
	mask=$1 n=$2
	shift 2
	run taskset -c "$mask" pft --json -m $((n * M)) "$@" || return 1
	# shellcheck disable=SC2046
	check.py run out err --mask "$mask" --requested "$n" \
		--size $((n * M)) $(check_flags "$@")
}

# c_cpus MASK N PFT-ARGS...: the same with pft --cpus=MASK.
c_cpus() {
	mask=$1 n=$2
	shift 2
	run pft --json -m $((n * M)) --cpus="$mask" "$@" || return 1
	# shellcheck disable=SC2046
	check.py run out err --mask "$mask" --requested "$n" \
		--size $((n * M)) $(check_flags "$@")
}

# c_all N PFT-ARGS...: no mask but the one this shell has.
c_all() {
	n=$1
	shift
	mask=$(my_cpus)
	run pft --json -m $((n * M)) "$@" || return 1
	# shellcheck disable=SC2046
	check.py run out err --mask "$mask" --requested "$n" \
		--size $((n * M)) $(check_flags "$@")
}

# c_qemu THREADS SIZE PFT-ARGS...: pft --pattern=qemu-prealloc of SIZE
# bytes starts THREADS threads (QEMU's count, worked out for the case)
# and counts one fault for each page the RAM is mapped by.
c_qemu() {
	want=$1 size=$2
	shift 2
	run pft --json --pattern=qemu-prealloc -m "$size" "$@" || return 1
	check.py qemu out --threads "$want" --size "$size"
}

# c_refused STATUS TEXT COMMAND...: COMMAND exits STATUS and its first
# line on stderr contains TEXT.
c_refused() {
	want=$1 text=$2
	shift 2
	tmo "$@" >out 2>err
	check.py usage err --rc $? --want-rc "$want" --names "$text"
}

# c_sysctl_refused SYSCTL VALUE WANT TEXT COMMAND...: c_refused with
# /proc/sys/SYSCTL set to VALUE meanwhile (the guest is the test's own
# machine: no other program meets the lowered limit).
c_sysctl_refused() {
	file=/proc/sys/$1 val=$2
	shift 2
	old=$(cat "$file") || { echo "no $file"; exit 77; }
	echo "$val" >"$file" || { echo "cannot set $file"; exit 77; }
	c_refused "$@"
	rc=$?
	echo "$old" >"$file"
	return $rc
}

# c_legacy WORKERS PFT-ARGS...: pft's stdout and stderr merged, as mmtests
# read them: exactly one result line, in 0.12x's format, WORKERS workers.
c_legacy() {
	w=$1
	shift
	tmo pft "$@" >merged 2>&1
	rc=$?
	[ "$rc" -eq 0 ] || { echo "pft $* exited $rc"; tail -n 3 merged; return 1; }
	check.py legacy merged --workers "$w"
}

# c_lockpaths N: pft --lock-paths of N threads faulting a shared VMA of
# N MiB: which lock the faults took, as the guest's kernel has them
# (Debian's 6.1: no per-VMA lock, every fault under mmap_lock).
c_lockpaths() {
	n=$1
	lock_tracepoints || return 77
	run pft --json --lock-paths -t "$n" -m $((n * M)) || return 1
	grep -q '^pft: note: lock paths not counted' err &&
		{ echo "$(cat err)"; return 1; }
	check.py lockpaths out --pages $((n * M / 4096))
}

# lock_tracepoints: tracefs mounted, with the tracepoints --lock-paths
# counts; otherwise says what is missing and fails.
lock_tracepoints() {
	t=/sys/kernel/tracing
	[ -e "$t/events" ] || mount -t tracefs nodev "$t" 2>/dev/null
	[ -e "$t/events/mmap_lock" ] && [ -e "$t/events/exceptions" ] ||
		{ echo "no mmap_lock or exceptions tracepoints in tracefs"; return 1; }
}

slow=/mnt/slow

# dm_delay_mount MS: an ext2 file system (through the ext4 module) on a
# dm-delay device whose reads wait MS ms and whose writes do not, over a
# loop device on a file in tmpfs, mounted on $slow; made once a guest.
# Returns 77 (and says why) when the initramfs has no modules of this
# kernel or no dmdelay.
dm_delay_mount() {
	grep -q " $slow " /proc/mounts && return 0
	[ -e /opt/shapes/no-modules ] && { cat /opt/shapes/no-modules; return 77; }
	moddir=/lib/modules/$(uname -r)
	[ -r "$moddir/shapes.load" ] ||
		{ echo "no modules of $(uname -r) in the initramfs"; return 77; }
	while read -r ko; do
		mod=${ko##*/}
		mod=$(echo "${mod%.ko}" | tr - _)
		grep -q "^$mod " /proc/modules && continue
		insmod "$moddir/$ko" || { echo "insmod $ko failed"; return 1; }
	done <"$moddir/shapes.load"
	truncate -s 32M /tmp/slow.img && loop=$(losetup -f) &&
		losetup "$loop" /tmp/slow.img ||
		{ echo "no loop device over /tmp/slow.img"; return 1; }
	if ! dm=$(dmdelay create shapes-slow "$loop" "$1"); then
		losetup -d "$loop"
		return 1
	fi
	if ! dm_delay_fs "$dm"; then
		dmdelay remove shapes-slow
		losetup -d "$loop"
		return 1
	fi
	echo "$slow: ext2 on $dm (dm-delay, reads $1 ms) over $loop"
}

# dm_delay_fs DEVICE: ext2 made on DEVICE and mounted on $slow.
dm_delay_fs() {
	[ -b "$1" ] || { echo "dmdelay made no block device $1"; return 1; }
	mke2fs -q -b 4096 "$1" >mke2fs.out 2>&1 ||
		{ echo "mke2fs $1 failed: $(tail -n 1 mke2fs.out)"; return 1; }
	mkdir -p "$slow" && mount -t ext2 "$1" "$slow" ||
		{ echo "cannot mount $1 (ext2) on $slow: $(dmesg | tail -n 1)"; return 1; }
}

# c_coldlock MS WRITERS [PFT-ARGS...]: two threads read-fault a file of
# 4 MiB on the dm-delay device (reads MS ms late), out of the page cache
# before each of 2 rounds (--cold), with WRITERS mprotect writers beside
# them (0: none): every page a major fault, which lock the faults took as
# the guest's kernel has them, the writers' acquisitions apart.
c_coldlock() {
	ms=$1 w=$2
	shift 2
	lock_tracepoints || return 77
	[ -e "$t/events/lock/contention_begin" ] ||
		{ echo "no lock:contention_begin tracepoint (--lock-waits)"; return 77; }
	dm_delay_mount "$ms" || return $?
	set -- --lock-paths --lock-waits --latency "$@"
	[ "$w" -gt 0 ] && set -- "$@" --writers="$w",mprotect
	run pft --json -t 2 -m 4M --rounds=2 --warmup=0 --touch=read --cold \
		--backing=file:"$slow" "$@" || return 1
	grep -q '^pft: note: lock' err && { cat err; return 1; }
	check.py coldlock out --pages $((2 * 4 * M / 4096)) --writers "$w"
}

# c_vmas N [PFT-ARGS...]: pft with N pinned threads pauses after its run
# (-P); its maps then hold one anonymous VMA per worker (-M), and for the
# shared-VMA control one VMA for all.
c_vmas() {
	n=$1
	shift
	for pattern in per-thread-vma shared-vma; do
		flag=
		[ "$pattern" = shared-vma ] && flag=--shared
		tmo pft --json -N -P -a -t "$n" -m $((n * M)) \
			--pattern=$pattern "$@" >out 2>err &
		bg=$!
		pid=
		i=0
		while [ -z "$pid" ] && [ $i -lt "$case_timeout" ] &&
			kill -0 $bg 2>/dev/null; do
			sleep 1
			i=$((i + 1))
			pid=$(sed -n 's/.*paused.*pid \([0-9]*\).*/\1/p' err)
		done
		if [ -z "$pid" ]; then
			echo "$pattern: pft never paused: $(tail -n 3 err)"
			kill -9 $bg 2>/dev/null
			return 1
		fi
		cp "/proc/$pid/maps" maps
		kill -USR1 "$pid"
		wait $bg || { echo "$pattern: pft exited $?"; return 1; }
		# shellcheck disable=SC2046
		check.py run out err --mask "$(my_cpus)" --requested "$n" \
			--size $((n * M)) --pin $(check_flags "$@") || return 1
		# shellcheck disable=SC2086
		check.py vmas maps out --workers "$n" $flag || return 1
	done
}

# c_numa MASK N POLICY PFT-ARGS...: one pinned worker per CPU of MASK;
# the pages of each worker are on the node of its CPU (policy "local"
# with -p, the default policy otherwise, which is local too).
c_numa() {
	mask=$1 n=$2 policy=$3
	shift 3
	run pft --json -N -a --cpus="$mask" -t "$n" -m $((n * M)) "$@" ||
		return 1
	check.py run out err --mask "$mask" --requested "$n" \
		--size $((n * M)) --pin || return 1
	per=
	for a; do [ "$a" = -M ] && per=--per-thread; done
	# shellcheck disable=SC2086
	check.py numa out --policy "$policy" $per
}

# c_pft_policy MASK N POLICY PFT-ARGS...: one pinned worker per CPU of
# MASK under pft's policy option; the pages pft counted per node (--json
# node_pages) are where POLICY (check.py nodepages) puts them.
c_pft_policy() {
	mask=$1 n=$2 policy=$3
	shift 3
	run pft --json -a --cpus="$mask" -t "$n" -m $((n * M)) "$@" ||
		return 1
	# shellcheck disable=SC2046
	check.py run out err --mask "$mask" --requested "$n" \
		--size $((n * M)) --pin $(check_flags "$@") || return 1
	check.py nodepages out --policy "$policy"
}

# c_policies CPUS: libfaultgen's BIND, PREFERRED (each node), INTERLEAVE
# (all nodes) and WORKER_LOCAL (a pinned worker on each CPU of CPUS) put
# the pages where numa_maps says the policy names.
c_policies() {
	check.py policies --cpus "$1"
}

# c_sweep KIND COUNTS: pft-sweep --cpu-groups=KIND over COUNTS; every
# point holds one CPU of distinct groups, and its workers ran there (read
# back from the JSON of each pft run).
c_sweep() {
	PFT_LOG=$PWD/runs.jsonl
	export PFT_LOG
	run pft-sweep --pft=/opt/shapes/pft-log --cpu-groups="$1" -w "$2" \
		-p shared-vma --one-shot --warmup=0 -r 1 --size-per-worker=1M \
		--no-plot -q -o sweep || return 1
	check.py sweep runs.jsonl sweep.json --groups "$1" --counts "$2"
}

# c_offline CPU...: takes the CPUs offline.
c_offline() {
	for c; do
		echo 0 >"/sys/devices/system/cpu/cpu$c/online" ||
			{ echo "cannot offline CPU $c"; return 1; }
		[ "$(cat "/sys/devices/system/cpu/cpu$c/online")" = 0 ] ||
			{ echo "CPU $c still online"; return 1; }
	done
}

c_online() {
	for c; do
		echo 1 >"/sys/devices/system/cpu/cpu$c/online" ||
			{ echo "cannot online CPU $c"; return 1; }
	done
}

# c_cgroup2 NAME CPUS MEMS: a cgroup v2 cpuset NAME (cgroup2 is mounted
# on /sys/fs/cgroup first).
c_cgroup2() {
	if [ ! -e $cg/cgroup.controllers ]; then
		mount -t cgroup2 none $cg || { echo "no cgroup2"; exit 77; }
	fi
	grep -q cpuset $cg/cgroup.subtree_control ||
		echo +cpuset >$cg/cgroup.subtree_control ||
		{ echo "cannot enable the cpuset controller"; return 1; }
	mkdir -p "$cg/$1" && echo "$2" >"$cg/$1/cpuset.cpus" &&
		echo "$3" >"$cg/$1/cpuset.mems"
}

# c_cgroup1 NAME CPUS MEMS: a cgroup v1 cpuset at /sys/fs/cgroup/cpuset,
# where Debian's hybrid layout has it.
c_cgroup1() {
	if [ ! -d $cg/cpuset ] || ! grep -q " $cg/cpuset cgroup " /proc/mounts; then
		mount -t tmpfs cgroup $cg && mkdir -p $cg/cpuset &&
			mount -t cgroup -o cpuset cpuset $cg/cpuset ||
			{ echo "cannot mount the v1 cpuset controller"; exit 77; }
	fi
	mkdir -p "$cg/cpuset/$1" &&
		echo "$2" >"$cg/cpuset/$1/cpuset.cpus" &&
		echo "$3" >"$cg/cpuset/$1/cpuset.mems"
}

# c_enter NAME: moves the guest's init shell (pid 1), and so every later
# case, into cgroup v2 cpuset NAME.
c_enter() {
	echo 1 >"$cg/$1/cgroup.procs" || return 1
	[ "$(cat "$cg/$1/cpuset.cpus.effective")" = "$(taskset -cp 1 |
		sed 's/.*: *//')" ] || { echo "pid 1 not confined"; return 1; }
}

# c_cpuset NAME MASK N SOURCE PFT-ARGS...: pft --cpuset=NAME moves itself
# there; its workers run inside MASK (the cpuset's CPUs), their pages on
# the nodes of their CPUs, which are the cpuset's nodes.
c_cpuset() {
	name=$1 mask=$2 n=$3 source=$4
	shift 4
	run pft --json -N --cpuset="$name" -t "$n" -m $((n * M)) "$@" ||
		return 1
	# shellcheck disable=SC2046
	check.py run out err --mask "$mask" --requested "$n" \
		--size $((n * M)) --source "$source" $(check_flags "$@") ||
		return 1
	# The library binds the region to the cpuset's memory nodes.
	mems=$cg/$name/cpuset.mems.effective
	[ "$source" = cgroup-v1 ] && mems=$cg/cpuset/$name/cpuset.mems
	check.py numa out --policy "bind:$(cat "$mems")"
}

# ---- running them ---------------------------------------------------------

# case_ci and case_full NAME FUNCTION ARGS...: a case of both sets, or of
# the full set only.  With plan=1 they only name themselves.
case_ci() {
	one_case "$@"
}

case_full() {
	[ "$set" = ci ] || one_case "$@"
}

one_case() {
	name=$1
	shift
	if [ "$plan" = 1 ]; then
		planned="$planned $name"
		return
	fi
	dir=/tmp/case/$name
	mkdir -p "$dir"
	say "CASE $name"
	(cd "$dir" && "$@") >"$dir/log" 2>&1
	rc=$?
	case $rc in
	# A passing case may leave one "NOTE ..." line: its figures.
	0) say "RESULT $name PASS $(sed -n 's/^NOTE //p' "$dir/log" | tail -n 1)" ;;
	77) say "RESULT $name SKIP $(tail -n 1 "$dir/log")" ;;
	*)
		say "RESULT $name FAIL exit $rc"
		tail -n 12 "$dir/log" | sed "s/^/LOG $name /" >&3
		[ "$debug" = 1 ] && dump_case "$name" "$dir"
		;;
	esac
}

# With shapes.debug=1, the files of a failed case follow its LOG lines.
dump_case() {
	for f in "$2"/*; do
		say "LOG $1 ==== ${f##*/}"
		head -c 6000 "$f" | sed "s/^/LOG $1 /" >&3
	done
}

run_shape() {
	set=$2
	fn=shape_$(echo "$1" | tr - _)
	if ! type "$fn" >/dev/null 2>&1; then
		say "PLAN"
		say "ERROR no shape named '$1'"
		return
	fi
	plan=1
	planned=
	"$fn"
	say "PLAN$planned"
	plan=0
	"$fn"
}

# ---- the shapes -------------------------------------------------------------

# EPYC 9634: 84 CPUs, 12 L3 domains (CCDs) of 7, one node.
shape_epyc_9634() {
	case_ci topology c_topology 84 12 1 1 12
	case_ci taskset-7-13 c_taskset 7-13 7 -t 7
	case_ci taskset-7-13-pin c_taskset 7-13 7 -t 7 -a
	case_ci taskset-60-70-pin c_taskset 60-70 11 -t 11 -a
	case_ci ccd-last-core-pin c_taskset 6-83:7 12 -t 12 -a
	case_full ccd-last-core-procs c_taskset 6-83:7 12 -n 12 -a
	case_full taskset-clip c_taskset 70-73 8 -t 8
	case_ci cpus-stride-pin c_cpus 0-83:7 12 -t 12 -a
	case_full cpus-list-pin c_cpus 1,9,17,63-65,83 6 -t 6 -a
	case_full cpus-outside c_refused 2 --cpus taskset -c 0-9 pft --cpus=10
	case_ci all-84-threads-pin c_all 84 -t 84 -a
	case_full all-84-procs-pin c_all 84 -n 84 -a
	case_full writers-84-pin c_all 84 -t 84 -a --writers=4
	case_full interleave-8-84-pin c_all 84 -t 84 -a --interleave-pages=8
	case_full cow-fork-84-pin c_all 84 -t 84 -a --pattern=cow-fork
	# QEMU starts a thread per 64 MiB: 8 for 512 MiB, prealloc-threads=84.
	case_full qemu-prealloc-512m-84 c_qemu 8 $((512 * M)) -t 84
	case_ci per-thread-vma-84 c_vmas 84
	case_ci sweep-l3 c_sweep l3 1,6,12
	case_full sweep-core c_sweep core 1,84
	case_ci legacy-threads c_legacy 84 -t 84 -m 84M
	case_full legacy-processes c_legacy 84 -n 84 -m 84M
	case_full cgroup2-ccd5 c_cgroup2 ccd5 35-41 0
	case_full cpuset-v2-ccd5 c_cpuset ccd5 35-41 7 cgroup-v2 -a
	case_full offline-40-41 c_offline 40 41
	case_full offline-taskset c_taskset 35-45 11 -t 11 -a
	case_full offline-cpus c_refused 2 --cpus pft --cpus=35-45 -t 1
	case_full online-40-41 c_online 40 41
}

# Two sockets of 24 cores, 2 threads a core, 4 NUMA nodes of 24 CPUs.
shape_two_sockets() {
	case_ci topology c_topology 96 2 4 2 2
	case_full siblings-pin c_taskset 0-1 2 -t 2 -a
	case_ci thread0-socket1 c_taskset 48-95:2 24 -t 24 -a
	case_full taskset-60-70-pin c_taskset 60-70 11 -t 11 -a
	case_full all-96-threads c_all 96 -t 96
	# QEMU starts 16 threads at most: 1 GiB, prealloc-threads=96.
	case_full qemu-prealloc-1g-96 c_qemu 16 $((1024 * M)) -t 96
	case_ci sweep-core c_sweep core 1,24,48
	case_ci sweep-node c_sweep node 1,2,4
	case_full sweep-l3 c_sweep l3 1,2
	case_ci numa-local-shared c_numa 0,24,48,72 4 local -p
	case_ci numa-local-per-thread c_numa 0-95:12 8 local -p -M
	case_full numa-local-all c_numa 0-95 96 local -p
	case_full numa-default c_numa 0,24,48,72 4 default
	case_ci numa-policies c_policies 0,24,48,72
	case_ci pft-membind-2 c_pft_policy 0,24,48,72 4 bind:2 --membind=2
	case_full pft-membind-3-procs c_pft_policy 0,24,48,72 4 bind:3 -n 4 --membind=3
	case_ci pft-interleave c_pft_policy 0,24,48,72 4 interleave:0-3 --interleave=all
	case_full pft-interleave-1-3 c_pft_policy 0,24,48,72 4 interleave:1,3 --interleave=1,3
	case_ci pft-preferred-1 c_pft_policy 0,24,48,72 4 preferred:1 --preferred=1
	case_ci pft-worker-local c_pft_policy 0,24,48,72 4 worker-local --numa=worker-local
	case_full pft-worker-local-per-thread c_pft_policy 0-95:12 8 worker-local -M --numa=worker-local
	case_full cgroup1-node2 c_cgroup1 node2 48-71 2
	case_full cpuset-v1-node2 c_cpuset node2 48-71 24 cgroup-v1 -a
	case_ci legacy-threads c_legacy 96 -t 96 -m 96M
	case_full legacy-processes c_legacy 96 -n 96 -m 96M
}

# More than 128 CPUs (2 sockets of 40 cores, 2 threads a core, a node
# each), some offline, the whole guest in a cgroup v2 cpuset without the
# first 64.
shape_big_sparse() {
	case_ci topology c_topology 160 2 2 2 2
	case_ci offline c_offline 70 100 101 129
	case_ci cgroup2-upper c_cgroup2 upper 64-159 0-1
	case_ci enter-upper c_enter upper
	case_ci all-threads-pin c_all 160 -t 160 -a
	case_full all-procs-pin c_all 90 -n 90 -a
	case_ci taskset-120-140-pin c_taskset 120-140 21 -t 21 -a
	case_full taskset-sparse c_taskset 64,99,102,127,128,131,158 7 -t 7
	case_ci cpus-stride-pin c_cpus 64-159:16 6 -t 6 -a
	case_full cpus-offline c_refused 2 --cpus pft --cpus=120-140 -t 1
	case_full cpus-outside c_refused 2 --cpus pft --cpus=0-63 -t 1
	case_ci cgroup2-pftset c_cgroup2 pftset 128-140 1
	case_ci cpuset-v2-pftset c_cpuset pftset 128-140 13 cgroup-v2 -a
	case_ci cpuset-membind-outside c_refused 2 "node 0 is not allowed" pft --cpuset=pftset --membind=0 -t 1
	case_ci membind-beyond-node c_refused 1 "the --membind nodes have free" pft --membind=1 -m 1200M -t 1
	case_ci shmmni-named c_sysctl_refused kernel/shmmni 8 1 kernel.shmmni pft -M -S -n 16 --oversubscribe -m 16P
	case_ci max-map-count-named c_sysctl_refused vm/max_map_count 400 1 vm.max_map_count pft -M -t 200 --oversubscribe -m 200P
	case_full per-thread-vma-90 c_vmas 90
	case_ci numa-local-2-nodes c_numa 72-87 16 local -p
	case_ci numa-policies-2-nodes c_policies 64,66,80,82
	case_full sweep-core c_sweep core 1,24,47
	case_full sweep-node c_sweep node 1,2
	case_ci legacy-threads c_legacy 90 -t 90 -m 90M
	case_full legacy-processes c_legacy 90 -n 90 -m 90M
}

# One CPU.
shape_one_cpu() {
	case_ci topology c_topology 1 1 1 1 1
	case_ci clip c_all 4 -t 4
	case_full f-ignored c_all 4 -t 4 -F
	case_ci oversubscribe-pin c_all 4 -t 4 -a --oversubscribe
	case_full procs-oversubscribe c_all 2 -n 2 --oversubscribe
	case_full cpus-outside c_refused 2 --cpus pft --cpus=1
	case_ci per-thread-vma c_vmas 8 --oversubscribe
	case_ci sweep-l3 c_sweep l3 1
	case_ci legacy-threads c_legacy 1 -t 4 -m 4M
	case_full legacy-processes c_legacy 1 -n 4 -m 4M
}

# Two nodes, the second with CPUs and no memory (a CPU-only node): a
# worker there gets its slice from the node with memory, as the kernel's
# local policy does, instead of failing.
shape_memoryless() {
	case_ci topology c_topology 4 2 2 1 2
	case_ci worker-local-cpu-only-node c_cpus 0,2 2 -t 2 -a --numa=worker-local
	case_ci worker-local-procs c_cpus 2-3 2 -n 2 -a --numa=worker-local
	case_ci membind-cpu-only-node c_refused 2 "--membind" pft --membind=1 -t 1
	case_ci lock-paths c_lockpaths 4
	case_ci cold-dm-delay c_coldlock 2 0
	case_ci cold-dm-delay-writers c_coldlock 2 2
}
