#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# dmdelay.sh - tests/dmdelay, which makes the shapes' dm-delay device:
# bad command lines exit 2 and bad devices 1, each with one line on
# stderr naming what was wrong, and nothing on stdout; none of them
# reaches the device-mapper (each is refused before /dev/mapper/control
# is opened), so the test runs anywhere, unprivileged too.
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

dmdelay=${top_builddir:?}/tests/dmdelay
[ -x "$dmdelay" ] || skip "no $dmdelay (make builds it)"

# refused STATUS TEXT ARGS...: dmdelay ARGS exits STATUS with one line on
# stderr that contains TEXT, and prints nothing on stdout.
refused() {
	want=$1 text=$2
	shift 2
	"$dmdelay" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	lines=$(wc -l <"$tmp/err")
	if [ "$rc" -eq "$want" ] && [ "$lines" -eq 1 ] &&
		grep -qF -- "$text" "$tmp/err" && [ ! -s "$tmp/out" ]; then
		ok
	else
		fail "dmdelay $*: exit $rc (want $want), $lines lines on stderr" \
			"(want 1 naming '$text'): $(head -n 2 "$tmp/err")"
	fi
}

: >"$tmp/file"
refused 2 "a command and a device name"
refused 2 "a command and a device name" create
refused 2 "create takes NAME DEVICE READ_MS" create slow /dev/null
refused 2 "READ_MS" create slow /dev/null 5x
refused 2 "READ_MS" create slow /dev/null -1
refused 2 "READ_MS" create slow /dev/null 60001
refused 2 "READ_MS" create slow /dev/null ""
refused 2 "bad device name" create a/b /dev/null 5
refused 2 "bad device name" create "" /dev/null 5
refused 2 "bad device name" remove "$(printf '%0128d' 0)"
refused 2 "unknown command" resume slow
refused 2 "unknown command" remove slow extra
refused 1 "/dev/null: not a block device" create slow /dev/null 5
refused 1 "$tmp/file: not a block device" create slow "$tmp/file" 5
refused 1 "$tmp/none: No such file or directory" create slow "$tmp/none" 5
finish
