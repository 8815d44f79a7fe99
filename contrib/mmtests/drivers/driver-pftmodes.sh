# libfaultgen's pft in its new modes (PFT_MODES, comma-separated:
# zap-shared, zap-per-thread, zap-processes, pretouch); the logs,
# pft-MODE-N.log, are what ExtractPftmodes reads.  THP is set per mapping
# by pft (PFT_THP: default, always, never), not in sysfs.
#
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The libfaultgen authors
# mmtests' own functions and the config's settings:
# shellcheck shell=bash disable=SC2154
"$SHELLPACK_TOPLEVEL/shellpack_src/src/refresh.sh" pft

run_bench() {
	local opts=()

	[ -n "$PFT_MAPPING_SIZE" ] && opts+=(--mapping-size "$PFT_MAPPING_SIZE")
	[ -n "$PFT_JDK" ] && opts+=(--jdk "$PFT_JDK")
	[ -n "$PFT_GC" ] && opts+=(--gc "$PFT_GC")
	"$SHELLPACK_INCLUDE/shellpack-bench-pft" --modes "$PFT_MODES" \
		--min-threads "$PFT_MIN_CLIENTS" --max-threads "$PFT_MAX_CLIENTS" \
		--iterations "$PFT_ITERATIONS" \
		--duration "${PFT_DURATION:-5}" --slice "${PFT_SLICE:-64M}" \
		--thp "${PFT_THP:-default}" "${opts[@]}"
}
