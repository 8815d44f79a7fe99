#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli-memory.sh - a size beyond the available memory is refused before
# anything is mapped, with the figures; --force runs it, and the kernel's
# refusal is then a clean runtime error.  No process or segment is left.
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:-$(dirname "$0")/..}/tests/cli-lib.sh"

avail_kib=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
[ -n "$avail_kib" ] || skip "no MemAvailable in /proc/meminfo"
# Twice the available memory, in MiB: refused without --force.
# --oversubscribe keeps two workers on one CPU from adding the clipping
# message.
big=$((avail_kib / 512))M

snapshot_segments
for args in "-t 1" "-n 2 --oversubscribe" "-S -t 2 --oversubscribe" \
	"-M -t 2 --oversubscribe"; do
	# shellcheck disable=SC2086
	run_pft refused $args -m "$big"
	[ "$rc" -eq 1 ] || fail "$args -m $big: exit $rc, want 1"
	[ "$(wc -l <"$tmp/refused.err")" -eq 1 ] ||
		fail "$args -m $big: want one line on stderr, got: $(cat "$tmp/refused.err")"
	grep -q '^pft: -m: .* GiB is more than the .* GiB of memory available (MemAvailable); --force runs it anyway$' \
		"$tmp/refused.err" || fail "$args -m $big: message: $(cat "$tmp/refused.err")"
	[ ! -s "$tmp/refused.out" ] || fail "$args -m $big: printed a result"
	check_no_leftovers "$sid" "$args -m $big"
done
check_no_new_segment "refused sizes"

# --force: far more than the address space can hold, so mmap refuses it:
# a runtime error (exit 1) naming the cause, nothing faulted or left.
run_pft forced -t 1 -m 100T --force
[ "$rc" -eq 1 ] || fail "--force -m 100T: exit $rc, want 1"
grep -q 'not enough memory' "$tmp/forced.err" ||
	fail "--force -m 100T: stderr: $(cat "$tmp/forced.err")"
check_no_leftovers "$sid" "--force -m 100T"

# A size that fits still runs, --force or not.
run_pft fits -t 1 -m 4M --force
[ "$rc" -eq 0 ] && [ "$(count_results "$tmp/fits.out")" -eq 1 ] ||
	fail "-m 4M --force: exit $rc, $(cat "$tmp/fits.err")"
check_no_new_segment "forced sizes"
finish
