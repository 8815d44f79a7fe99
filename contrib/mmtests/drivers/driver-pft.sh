# pft 0.12x's run by libfaultgen's pft (--modes legacy): its logs,
# pft-N.log, are what ExtractPft reads.  PFT_PAGESIZES sets the THP mode
# in sysfs for the run, as before: base (never), transhuge (always) or
# default (the mode the machine booted with).
#
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The libfaultgen authors
# mmtests' own functions and the config's settings:
# shellcheck shell=bash disable=SC2154

run_bench() {
	local processes=() ret

	case ${PFT_PAGESIZES:-default} in
	base)
		disable_transhuge
		;;
	transhuge)
		if [ "$TRANSHUGE_AVAILABLE" != "yes" ]; then
			echo THP support unavailable for transhuge
			return "$SHELLPACK_ERROR"
		fi
		enable_transhuge
		;;
	*)
		reset_transhuge
		;;
	esac
	[ "$PFT_USE_PROCESSES" = "yes" ] && processes=(--processes)
	"$SHELLPACK_INCLUDE/shellpack-bench-pft" --modes legacy \
		--min-threads "$PFT_MIN_CLIENTS" --max-threads "$PFT_MAX_CLIENTS" \
		--iterations "$PFT_ITERATIONS" \
		--mapping-size "$PFT_MAPPING_SIZE" "${processes[@]}"
	ret=$?
	reset_transhuge
	return $ret
}
