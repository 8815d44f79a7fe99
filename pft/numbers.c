// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * numbers.c - the figures as every printer writes them (the result line,
 * --json, the collapse line, the figures line): finite and not
 * negative, and 0.12x's gigabytes.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <math.h>

#include "pft.h"

/* A figure for a line a tool parses: finite and not negative. */
double pft_printable(double v)
{
	return isfinite(v) && v > 0 ? v : 0;
}

/* 0.12x's arithmetic: gbyte counts one page more per worker (its rates
 * are pages, not measured faults, over time, 0 when the time is 0). */
long pft_legacy_gbyte(const struct faultgen_result *r)
{
	return (long)((r->bytes + (uint64_t)r->pagesize * r->workers) >> 30);
}
