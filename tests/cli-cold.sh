#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# cli-cold.sh - pft --cold: the file's pages out of the page cache before
# each round, so that every fault reads the file (a major fault).
#   * On a disk (this test's directory when it is not tmpfs, else
#     /var/tmp): major faults too, read and write touches.
#   * On tmpfs (/dev/shm): one line, "--cold: ... stay in the page
#     cache (tmpfs?)", exit 1, nothing left.
#   * --cold without the file backing: a usage error naming both.
# The slow file system's case: cli-cold-fuse.sh.
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

. "$top_srcdir/tests/cli-cold-lib.sh"

have_python || skip "no python3"

# --cold needs the file backing: a usage error naming both.
"$PFT" --cold --rounds=1 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 2 ] && grep -q -- "--cold conflicts with --backing" "$tmp/err" &&
	[ "$(grep -vc '^Try ' "$tmp/err")" -eq 1 ]; then ok; else
	fail "--cold without a file: exit $rc: $(cat "$tmp/err")"; fi

# tmpfs: its pages are memory, they stay.
if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
	shm=$(mktemp -d /dev/shm/pft-cold.XXXXXX) || exit 99
	"$PFT" --backing=file:"$shm" --cold -t 1 --rounds=1 -m 64K \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
		grep -q -- "^pft: --cold: .* stay in the page cache (tmpfs?)$" \
			"$tmp/err" && [ ! -s "$tmp/out" ]; then ok; else
		fail "--cold on tmpfs: exit $rc: $(cat "$tmp/err")"; fi
	if [ -z "$(ls -A "$shm")" ]; then ok; else
		fail "--cold on tmpfs left $(ls -A "$shm")"; fi
	rmdir "$shm"
fi

# A disk: this test's directory unless it is tmpfs.
disk=$tmp/disk
case $(stat -f -c %T "$tmp") in
tmpfs | ramfs) disk=$(mktemp -d /var/tmp/pft-cold.XXXXXX) || exit 99 ;;
*) mkdir "$disk" ;;
esac
check_cold_run "$disk" -t 1 -m 1M --rounds=2 --touch=read
check_cold_run "$disk" -t 1 -m 1M --rounds=2 --touch=write
check_cold_run "$disk" -t 1 -m 1M --rounds=2 --touch=write --share
[ "$disk" = "$tmp/disk" ] || rmdir "$disk"
finish
