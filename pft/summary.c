// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * summary.c - the summary of --repeat: the spread of the runs' fault/wsec,
 * as a line or a JSON object.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "pft.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median_of(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	if (!n)
		return 0;
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void pft_print_summary(const struct pft_opts *o, const double *rates,
		       unsigned int n)
{
	double *v = malloc(n * sizeof(*v));
	double med, spread;
	struct pft_json j;

	if (!v || !n) {
		free(v);
		return;
	}
	memcpy(v, rates, n * sizeof(*v));
	med = median_of(v, n);
	spread = med > 0 ? (v[n - 1] - v[0]) / med * 100 : 0;
	if (o->json) {
		pj_begin(&j, stdout);
		pj_str(&j, "schema", "pft-summary/1");
		pj_u64(&j, "runs", n);
		pj_obj(&j, "fault_per_wsec");
		pj_dbl(&j, "min", v[0]);
		pj_dbl(&j, "median", med);
		pj_dbl(&j, "max", v[n - 1]);
		pj_dbl(&j, "spread_pct", spread);
		pj_obj_end(&j);
		pj_end(&j);
	} else {
		printf("summary of %u runs, fault/wsec: min %.3f median %.3f "
		       "max %.3f spread %.1f%%\n",
		       n, pft_printable(v[0]), pft_printable(med),
		       pft_printable(v[n - 1]), pft_printable(spread));
	}
	free(v);
}

