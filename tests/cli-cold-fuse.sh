#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# cli-cold-fuse.sh - pft --cold on the tests' slow FUSE file system
# (slowfs.c, reads wait 1 ms), mounted in this test's directory: major
# faults = the pages of the rounds, cold_pages the same, read and shared
# write touches, the file removed, and the mount gone after (the file
# system runs in the foreground under this test, unmounted and killed at
# its end whatever happens); as root, each worker's cold faults took the
# mmap_lock (--lock-waits: faults that took it at least the major
# faults), without and with writers.  SKIP without slowfs (libfuse3 at build),
# /dev/fuse or fusermount3, or where mounting is refused (an
# unprivileged user without fusermount3's set-user-ID).
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"
. "$top_srcdir/tests/cli-cold-lib.sh"

have_python || skip "no python3"
slowfs=${top_builddir:?}/tests/slowfs
[ -x "$slowfs" ] || skip "no slowfs (libfuse3 not found at build)"
[ -c /dev/fuse ] || skip "no /dev/fuse"
command -v fusermount3 >/dev/null || skip "no fusermount3"
mnt=$tmp/mnt
mkdir "$mnt"
fs_pid=
unmount() {
	if grep -qF " $mnt " /proc/self/mounts; then
		fusermount3 -u "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null
	fi
	if [ -n "$fs_pid" ]; then
		kill "$fs_pid" 2>/dev/null
		wait "$fs_pid" 2>/dev/null
	fi
	fs_pid=
}
trap 'unmount; rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
"$slowfs" -f --delay-ms=1 "$mnt" 2>"$tmp/fs-err" &
fs_pid=$!
for _ in $(seq 100); do
	grep -qF " $mnt " /proc/self/mounts && break
	kill -0 "$fs_pid" 2>/dev/null || break
	sleep 0.1
done
if ! grep -qF " $mnt " /proc/self/mounts; then
	why=$(head -c 200 "$tmp/fs-err")
	unmount
	skip "slowfs could not mount on $mnt: $why"
fi
check_cold_run "$mnt" -t 1 -m 2M --rounds=2 --warmup=0 --touch=read
check_cold_run "$mnt" -t 1 -m 1M --rounds=2 --warmup=0 --touch=write --share

# As root, with the tracepoints: the cold faults' mmap_lock acquisitions
# one by one (--lock-waits).  A major fault takes the mmap_lock for
# reading, on a kernel with per-VMA locks too (the fault that waits for
# its read drops the per-VMA lock and is retried under the mmap_lock):
# each worker's faults that took it are at least its major faults, and
# those faults and their retries are among its read acquisitions; with
# two mprotect writers beside them the same (a failed trylock and the
# blocking lock after it are one acquisition, not a retry).
cat >"$tmp/waits.py" <<'PY'
import json, sys

r = json.loads(open(sys.argv[1]).readline())
lw = r.get("lock_waits")
problems = []
if not isinstance(lw, dict):
    print("no lock_waits object: %r" % (lw,))
    sys.exit(1)
for w in r["workers"]:
    g, maj = w["lock_waits"], w["majflt"]
    if g["lost"]:
        continue  # lower bounds only
    if not (maj > 0 and g["faults_mmap_read"] >= maj and g["faults"] >= maj):
        problems.append("worker %d: %d major faults, %d user faults, %d "
                        "took mmap_lock" % (w["index"], maj, g["faults"],
                                            g["faults_mmap_read"]))
    if g["faults_mmap_read"] + g["retries"] > g["read"]["acquisitions"]:
        problems.append("worker %d: %d faults took mmap_lock, %d retries, "
                        "%d read acquisitions" % (w["index"],
                        g["faults_mmap_read"], g["retries"],
                        g["read"]["acquisitions"]))
    if g["most_in_fault"] < 1:
        problems.append("worker %d: most_in_fault %d"
                        % (w["index"], g["most_in_fault"]))
if problems:
    print("\n".join(problems))
    sys.exit(1)
PY
two="-t 2"
[ "$(nr_allowed)" -lt 2 ] && two="-t 2 --oversubscribe"
if [ "$(id -u)" -ne 0 ] ||
	! [ -r /sys/kernel/tracing/events/exceptions/page_fault_user/id ]; then
	echo "cli-cold-fuse: the lock waits' cases need root and tracefs" >&2
else
	for writers in "" --writers=2,mprotect; do
		# shellcheck disable=SC2086
		"$PFT" $two -m 4M --rounds=2 --warmup=0 --touch=read --cold \
			--backing=file:"$mnt" --lock-waits --json --per-worker \
			$writers >"$tmp/waits.out" 2>"$tmp/waits.err"
		rc=$?
		if [ "$rc" -eq 0 ] && python3 "$tmp/waits.py" "$tmp/waits.out" \
			>"$tmp/waits.check" 2>&1; then ok; else
			fail "--lock-waits $writers: exit $rc:" \
				"$(cat "$tmp/waits.check" "$tmp/waits.err")"
		fi
	done
fi
if kill -0 "$fs_pid" 2>/dev/null; then ok; else
	fail "slowfs ended during the runs: $(head -c 300 "$tmp/fs-err")"; fi
unmount
if grep -qF " $mnt " /proc/self/mounts; then
	fail "the slow file system is still mounted on $mnt"; else ok; fi
if [ -z "$(ls -A "$mnt")" ]; then ok; else
	fail "left under the mount point: $(ls -A "$mnt")"; fi
finish
