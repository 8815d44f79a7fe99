#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli-isolation.sh - the leak checks of the CLI tests see only this test's
# own SysV segments: a segment another program creates meanwhile (as a
# parallel build's tests do) is not taken for a leak, while one of this
# test's own is.  In an IPC namespace of the test's own where allowed
# (cli-lib.sh), else by the creator's pid.
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

command -v ipcmk >/dev/null && command -v ipcrm >/dev/null ||
	skip "ipcmk and ipcrm (util-linux) are needed"

# Runs "$@" as another program would: in the IPC namespace the test was
# started in (outside this test's own, if it has one), in a session of
# its own.
foreign() {
	if [ "$PFT_TEST_IPCNS" = private ]; then
		setsid nsenter --ipc="/proc/$outer/ns/ipc" -- "$@"
	else
		setsid "$@"
	fi
}
# The process the test was started by (before cli-lib.sh's unshare).
outer=$(awk '{ print $4 }' /proc/$$/stat)
if [ "$PFT_TEST_IPCNS" = private ] &&
	[ "$(readlink "/proc/$outer/ns/ipc")" = "$(readlink /proc/$$/ns/ipc)" ]; then
	# unshare --ipc exec'd this shell: its parent is the test driver.
	skip "cannot find the namespace outside the test's own"
fi

snapshot_segments
id=$(foreign ipcmk -M 4096 | awk '{ print $NF }')
[ -n "$id" ] || skip "cannot create a SysV segment"
check_no_new_segment "a segment of another program"
foreign ipcrm -m "$id" || fail "cannot remove the other program's segment $id"

# One of the test's own, left unattached, is seen.
if [ "$PFT_TEST_IPCNS" = private ]; then
	snapshot_segments
	own=$(ipcmk -M 4096 | awk '{ print $NF }')
	orphan_segments | grep -qx "$own" && ok ||
		fail "the test's own unattached segment $own is not seen"
	ipcrm -m "$own"
fi

# And pft's own runs leave nothing, seen through the same checks.
snapshot_segments
run_pft sysv -S -n 2 --oversubscribe -m 4M
[ "$rc" -eq 0 ] && ok || fail "pft -S -n 2: exit $rc: $(cat "$tmp/sysv.err")"
check_no_leftovers "$sid" sysv
check_no_new_segment sysv
finish
