#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# cli-cold-fuse.sh - pft --cold on the tests' slow FUSE file system
# (slowfs.c, reads wait 1 ms), mounted in this test's directory: major
# faults = the pages of the rounds, cold_pages the same, read and shared
# write touches, the file removed, and the mount gone after (the file
# system runs in the foreground under this test, unmounted and killed at
# its end whatever happens).  SKIP without slowfs (libfuse3 at build),
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
if kill -0 "$fs_pid" 2>/dev/null; then ok; else
	fail "slowfs ended during the runs: $(head -c 300 "$tmp/fs-err")"; fi
unmount
if grep -qF " $mnt " /proc/self/mounts; then
	fail "the slow file system is still mounted on $mnt"; else ok; fi
if [ -z "$(ls -A "$mnt")" ]; then ok; else
	fail "left under the mount point: $(ls -A "$mnt")"; fi
finish
