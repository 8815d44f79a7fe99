# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=sh
# make-var.sh - make_var, for the tests that ask the configured build what
# it was configured with; sourced, not run.
#
# Copyright (C) 2026 The libfaultgen authors

# make_var "VAR [VAR...]" [SUBDIR]: the values of the build's make
# variables, as make sees them in SUBDIR of the build tree (default: its
# top), on one line.  The flags of the make running the test (its
# jobserver) are not this make's.
make_var() {
	# shellcheck disable=SC2016,SC2086
	printf 'print-var: ; @echo $(strip %s)\n' "$(printf '$(%s) ' $1)" |
		MAKEFLAGS='' MFLAGS='' MAKELEVEL='' make -s --no-print-directory \
			-C "${top_builddir:?}/${2:-}" -f Makefile -f - print-var
}
