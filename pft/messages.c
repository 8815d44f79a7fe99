// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * messages.c - every diagnostic pft writes: one line on stderr that
 * starts with "pft: ".
 *
 * Bad usage adds the hint line, and its caller returns PFT_EXIT_USAGE up
 * to main(); a failure before the run returns PFT_EXIT_FAIL.  Every such
 * line holds letters, so a harness that merges stderr into what it
 * parses never takes one for a result.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "pft.h"

/* The analyzer takes the va_list parameter for uninitialized (its
 * callers va_start it). */
static void vmsg(const char *fmt, va_list ap)
{
	fputs("pft: ", stderr);
	vfprintf(stderr, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)
	fputc('\n', stderr);
}

void pft_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

/* Says what was wrong with the command line; returns PFT_EXIT_USAGE. */
int pft_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	fputs("Try 'pft --help' for more information.\n", stderr);
	return PFT_EXIT_USAGE;
}

/* Says why pft cannot run; returns PFT_EXIT_FAIL. */
int pft_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	return PFT_EXIT_FAIL;
}
