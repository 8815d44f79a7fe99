#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# run.sh - boots each machine shape in QEMU (TCG) with Debian's kernel and
# an initramfs holding the freshly built pft, runs the shape's cases in
# the guest and prints a table: shape, case, result, seconds.
#
#   run.sh [--set=ci|full] [--out=DIR] [SHAPE...]
#
# Shapes: epyc-9634 two-sockets big-sparse one-cpu memoryless (default:
# all).
# --set=ci runs the cases marked for CI (see cases.sh), full all of them.
# Environment: top_srcdir, top_builddir (default: this tree), QEMU (the
# binary), SHAPES_KERNEL (a bzImage; default the newest /boot/vmlinuz-*;
# the dm-delay case loads its modules, from /lib/modules/RELEASE),
# SHAPES_TIMEOUT (seconds a guest may take, default 2400 per shape),
# SHAPES_SILENCE (seconds a booting guest's console may stay silent before
# /init: then the boot hung, and the guest is booted once more; default
# 90),
# SHAPES_BUDGET (seconds for everything; a shape that would start after
# it is skipped, and a guest is stopped when it runs out), SHAPES_TCG
# (multi or single: QEMU's TCG threads), SHAPES_DEBUG=1 (the files of a
# failed case in $out/SHAPE/results).
#
# A shape that cannot boot (no QEMU, no kernel, not enough memory, no
# /init before the timeout) is a SKIP with the reason; a case whose
# placement, counts, VMAs or nodes are wrong is a FAIL.  Exit status: 1
# when a case failed, 77 when nothing ran, 0 otherwise.
#
# Copyright (C) 2026 The libfaultgen authors
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=${top_srcdir:-$(cd "$here/../.." && pwd)}
build=${top_builddir:-$src}
set_name=full
out=$build/tests/shapes/out
shapes=
for arg; do
	case $arg in
	--set=ci | --set=full) set_name=${arg#--set=} ;;
	--out=*) out=${arg#--out=} ;;
	-h | --help)
		sed -n '3,23p' "$0" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	-*)
		echo "run.sh: unknown option '$arg'" >&2
		exit 2
		;;
	*) shapes="$shapes $arg" ;;
	esac
done
[ -n "$shapes" ] || shapes="epyc-9634 two-sockets big-sparse one-cpu memoryless"
qemu=${QEMU:-qemu-system-x86_64}
shape_timeout=${SHAPES_TIMEOUT:-2400}
silence=${SHAPES_SILENCE:-90}
budget=${SHAPES_BUDGET:-0}
started=$(date +%s)
mkdir -p "$out" || exit 1
table=$out/table
: >"$table"

now() {
	date +%s.%N
}

# row SHAPE CASE RESULT SECONDS DETAIL
row() {
	printf '%-12s %-24s %-4s %7s  %s\n' "$1" "$2" "$3" "$4" "$5" >>"$table"
}

# Each shape: memory (MiB), QEMU's -smp, NUMA nodes (0: none), CPU model.
# QEMU 7.2's EPYC reports one L3 per socket, so sockets are the L3
# domains; under TCG it has no topoext, so no SMT: the shapes with threads
# use Skylake-Server, whose L3 is the socket and whose sub-NUMA nodes the
# kernel accepts inside one L3.  Without cx16 the guest's SLUB takes its
# lock instead of cmpxchg16b, which multi-threaded TCG runs by stopping
# every vCPU: with 160 vCPUs on a busy 2-CPU host that stalls the boot
# for good.
shape_def() {
	memless=0
	case $1 in
	epyc-9634) mem=1024 smp=84,sockets=12,cores=7,threads=1 nodes=0 \
		model=EPYC ;;
	two-sockets) mem=2048 smp=96,sockets=2,cores=24,threads=2 nodes=4 \
		model=Skylake-Server ;;
	big-sparse) mem=2048 smp=160,sockets=2,cores=40,threads=2 nodes=2 \
		model=Skylake-Server ;;
	one-cpu) mem=512 smp=1 nodes=0 model=EPYC ;;
	memoryless) mem=512 smp=4,sockets=2,cores=2,threads=1 nodes=2 \
		memless=1 model=EPYC ;;
	*) return 1 ;;
	esac
}

# QEMU's NUMA options: $nodes nodes, equal memory, consecutive CPUs; with
# memless=1 the last node has CPUs and no memory (a CPU-only node).
numa_args() {
	[ "$nodes" -gt 0 ] || return 0
	cpus=${smp%%,*}
	per=$((cpus / nodes))
	with_mem=$((nodes - ${memless:-0}))
	i=0
	while [ $i -lt "$nodes" ]; do
		if [ $i -lt "$with_mem" ]; then
			printf ' -object memory-backend-ram,id=m%d,size=%dM' $i \
				$((mem / with_mem))
			printf ' -numa node,nodeid=%d,cpus=%d-%d,memdev=m%d' \
				$i $((i * per)) $(((i + 1) * per - 1)) $i
		else
			printf ' -numa node,nodeid=%d,cpus=%d-%d' $i \
				$((i * per)) $(((i + 1) * per - 1))
		fi
		i=$((i + 1))
	done
}

skip_all() {
	for s in $shapes; do
		row "$s" boot SKIP - "$1"
	done
	finish
}

finish() {
	end=$(date +%s)
	printf '%-12s %-24s %-4s %7s  %s\n' shape case res seconds detail
	cat "$table"
	pass=$(awk '$3 == "PASS"' "$table" | wc -l)
	fail=$(awk '$3 == "FAIL"' "$table" | wc -l)
	skip=$(awk '$3 == "SKIP"' "$table" | wc -l)
	echo "shapes: $pass passed, $fail failed, $skip skipped in" \
		"$((end - started)) s (logs in $out)"
	[ "$fail" -eq 0 ] || exit 1
	[ "$pass" -gt 0 ] || exit 77
	exit 0
}

# ---- what every guest needs ----------------------------------------------

command -v "$qemu" >/dev/null ||
	skip_all "$qemu not found (Debian package qemu-system-x86)"
kernel=${SHAPES_KERNEL:-$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1)}
[ -n "$kernel" ] && [ -r "$kernel" ] ||
	skip_all "no readable kernel (/boot/vmlinuz-*: Debian package linux-image-amd64)"
# The release of $kernel, for its modules: a bzImage's header names it
# (the string at the kernel_version field, 0x20e, plus 512), else its file
# name does (vmlinuz-RELEASE).
kernel_release() {
	if [ "$(dd if="$kernel" bs=1 skip=514 count=4 2>/dev/null)" = HdrS ]; then
		at=$(od -An -tu2 -j 526 -N 2 "$kernel" | tr -d ' ')
		if [ "${at:-0}" -gt 0 ]; then
			dd if="$kernel" bs=1 skip=$((at + 512)) count=64 2>/dev/null |
				tr '\0' '\n' | head -n 1 | cut -d' ' -f1
			return
		fi
	fi
	case ${kernel##*/} in
	vmlinuz-*) echo "${kernel##*/vmlinuz-}" ;;
	esac
}
initrd=$out/initramfs.cpio
if ! "$here/mkinitramfs.sh" "$src" "$build" "$initrd" "$(kernel_release)" \
	2>"$out/mkinitramfs.err"; then
	skip_all "no initramfs: $(tail -n 1 "$out/mkinitramfs.err")"
fi

# The kernel's ELF image, booted through its PVH entry, spares the guest
# decompressing the bzImage under TCG; the bzImage is the fallback.
pvh_kernel() {
	stamp=$(stat -c '%n %s %Y' "$kernel")
	if [ -s "$out/vmlinux" ] && [ "$(cat "$out/vmlinux.stamp" 2>/dev/null)" = "$stamp" ]; then
		echo "$out/vmlinux"
		return
	fi
	off=$(python3 -c 'import sys
d = open(sys.argv[1], "rb").read()
print(d.find(b"\xfd7zXZ\x00"))' "$kernel" 2>/dev/null) || off=-1
	if [ "${off:--1}" -ge 0 ] &&
		tail -c +$((off + 1)) "$kernel" | xz -dc --single-stream \
			>"$out/vmlinux" 2>/dev/null &&
		[ "$(head -c 4 "$out/vmlinux" | od -An -c | tr -d ' ')" = '177ELF' ]; then
		echo "$stamp" >"$out/vmlinux.stamp"
		echo "$out/vmlinux"
	else
		rm -f "$out/vmlinux"
		echo "$kernel"
	fi
}
boot_image=$(pvh_kernel)

# ---- one shape --------------------------------------------------------------

# stamp: each line of stdin prefixed with the time it arrived.
stamp() {
	while IFS= read -r line; do
		printf '%s %s\n' "$(now)" "$line" | tr -d '\r'
	done
}

# seconds A B: B - A, one decimal.
seconds() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'
}

# On SIGINT or SIGTERM: stops the running guest (timeout passes the signal
# on to QEMU) before exiting.
stop_guest() {
	[ -n "${dir:-}" ] && [ -s "$dir/pid" ] && kill "$(cat "$dir/pid")" 2>/dev/null
	exit 130
}
trap stop_guest INT TERM

avail_mib() {
	awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo
}

# watch_boot PID: until the guest reaches /init, stops it (PID: its
# timeout) when its console has printed nothing for $silence seconds,
# and writes those seconds to $dir/hung; the longest silence of a boot
# that reached /init goes to $dir/silence.  A booting kernel prints
# often; a hung one (an 84-CPU TCG boot after "sched_clock: Marking
# stable") prints nothing until the limit.
watch_boot() {
	last=-1
	still=0
	most=0
	while kill -0 "$1" 2>/dev/null; do
		if [ -n "$(field INIT)" ]; then
			echo "$most" >"$dir/silence"
			return 0
		fi
		size=$(wc -c <"$dir/console" 2>/dev/null || echo 0)
		if [ "$size" -ne "$last" ]; then
			last=$size
			still=0
		else
			still=$((still + 1))
			[ "$still" -gt "$most" ] && most=$still
		fi
		if [ "$still" -ge "$silence" ]; then
			echo "$still" >"$dir/hung"
			kill "$1" 2>/dev/null
			return 0
		fi
		sleep 1
	done
}

# boot SHAPE: runs the guest; its stamped results in $dir/results.
boot() {
	dir=$out/$1
	rm -rf "$dir"
	mkdir -p "$dir"
	limit=$shape_timeout
	if [ "$budget" -gt 0 ]; then
		left=$((budget - ($(date +%s) - started)))
		# timeout takes 0 for no limit at all.
		[ "$left" -gt 0 ] || left=1
		[ "$left" -lt "$limit" ] && limit=$left
	fi
	echo "$limit" >"$dir/limit"
	# shellcheck disable=SC2046
	set -- -machine q35 -accel tcg,thread="${SHAPES_TCG:-multi}" \
		-cpu "$model,-cx16" -smp "$smp" -m "${mem}M" $(numa_args) \
		-nodefaults -no-reboot -nographic -monitor none \
		-kernel "$boot_image" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 tsc=reliable lpj=106000 rcupdate.rcu_cpu_stall_suppress=1 numa_balancing=disable transparent_hugepage=madvise shapes.shape=$1 shapes.set=$set_name shapes.debug=${SHAPES_DEBUG:-0}" \
		-serial "file:$dir/console" -serial stdio
	echo "$qemu $*" >"$dir/command"
	now >"$dir/t0"
	{
		# In this process group (--foreground), so that a signal to
		# the group stops QEMU too; stop_guest stops it otherwise.
		timeout --foreground -k 10 "$limit" "$qemu" "$@" </dev/null \
			2>"$dir/qemu.err" &
		qpid=$!
		echo $qpid >"$dir/pid"
		watch_boot $qpid </dev/null >/dev/null 2>&1 &
		wpid=$!
		wait $qpid 2>/dev/null
		echo $? >"$dir/status"
		kill $wpid 2>/dev/null
		wait $wpid 2>/dev/null
	} | stamp >"$dir/results"
}

# result lines of the guest: "SECONDS WORD ARGS..."
field() {
	awk -v w="$1" '$2 == w' "$dir/results"
}

# report SHAPE: the table rows of one guest.
report() {
	shape=$1
	t0=$(cat "$dir/t0")
	status=$(cat "$dir/status")
	limit=$(cat "$dir/limit")
	init=$(field INIT | head -n 1)
	if [ -z "$init" ]; then
		why="no /init within $limit s"
		[ "$limit" -lt "$shape_timeout" ] &&
			why="$why, what was left of the time budget ($budget s)"
		[ "$status" -ne 124 ] && [ "$status" -ne 137 ] &&
			why="QEMU exited $status: $(grep -v 'TCG doesn' "$dir/qemu.err" | tail -n 1)"
		[ -f "$dir/hung" ] &&
			why="the boot hung twice (console silent $(cat "$dir/hung") s before /init)"
		row "$shape" boot SKIP - "$why"
		return
	fi
	set -- $init
	row "$shape" boot PASS "$(seconds "$t0" "$1")" "to /init; CPUs online $4"
	plan=$(field PLAN | head -n 1 | cut -d' ' -f3-)
	err=$(field ERROR | head -n 1 | cut -d' ' -f3-)
	[ -z "$err" ] || row "$shape" setup FAIL - "$err"
	prev=$1
	for c in $plan; do
		start=$(awk -v c="$c" '$2 == "CASE" && $3 == c { print $1 }' "$dir/results")
		res=$(awk -v c="$c" '$2 == "RESULT" && $3 == c' "$dir/results")
		if [ -n "$res" ]; then
			set -- $res
			t=$(seconds "${start:-$prev}" "$1")
			prev=$1
			r=$4
			shift 4
			row "$shape" "$c" "$r" "$t" "$*"
			awk -v c="$c" '$2 == "LOG" && $3 == c' "$dir/results" |
				cut -d' ' -f4- | head -n 12 |
				sed 's/^/        /' >>"$table"
		elif [ -n "$start" ]; then
			if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
				if [ "$limit" -lt "$shape_timeout" ]; then
					row "$shape" "$c" SKIP - "the time budget ran out during it"
				else
					row "$shape" "$c" FAIL - "no result after $limit s: hung?"
				fi
			else
				row "$shape" "$c" FAIL - "the guest stopped during it: $(grep -a -i 'panic\|oops\|BUG' "$dir/console" | head -n 1)"
			fi
			start=
		elif [ "$limit" -lt "$shape_timeout" ] &&
			{ [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; }; then
			row "$shape" "$c" SKIP - "not run: the time budget ran out"
		else
			row "$shape" "$c" SKIP - "not run: the guest stopped before it"
		fi
	done
}

set -f
for s in $shapes; do
	if ! shape_def "$s"; then
		row "$s" boot FAIL - "no such shape"
		continue
	fi
	if [ "$budget" -gt 0 ] && [ $(($(date +%s) - started)) -ge "$budget" ]; then
		row "$s" boot SKIP - "the time budget ($budget s) ran out"
		continue
	fi
	need=$((mem + 512))
	if [ "$(avail_mib)" -lt "$need" ]; then
		row "$s" boot SKIP - "not enough memory: $(avail_mib) MiB available, $need MiB needed"
		continue
	fi
	echo "shapes: booting $s (-smp $smp, $mem MiB)" >&2
	boot "$s"
	if [ -f "$dir/hung" ] && [ -z "$(field INIT)" ]; then
		echo "shapes: $s: the boot hung (console silent $(cat "$dir/hung") s before /init), booting it once more" >&2
		rm -rf "$dir.hung"
		mv "$dir" "$dir.hung"
		boot "$s"
	fi
	report "$s"
	echo "shapes: $s: $(awk -v s="$s" '$1 == s && $3 != "PASS" { n++ } END { print n + 0 }' "$table") not passed," \
		"$(seconds "$(cat "$dir/t0")" "$(now)") s" >&2
done
finish
