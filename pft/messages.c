// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * messages.c - every diagnostic pft writes: one line on stderr that
 * starts with "pft: ".
 *
 * Bad usage adds the hint line and exits 2 (nothing has run yet, so there
 * is nothing to release but this process); a runtime failure before the
 * run exits 1.  Every such line holds letters, so a harness that merges
 * stderr into what it parses never takes one for a result.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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

void pft_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	fputs("Try 'pft --help' for more information.\n", stderr);
	exit(PFT_EXIT_USAGE);
}

void pft_fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	exit(PFT_EXIT_FAIL);
}
