// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * print-figures.c - a pattern's own figures, as the library names them
 * (faultgen_run_figure): whatever the pattern, one "figures:" line after
 * its result, or a "figures" object in its JSON.  A pattern with no
 * figures prints neither, so 0.12x's output stays as it was.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <string.h>

#include "pft.h"

/* Figure i of the run into f: how many the run has, or <= 0 when none. */
static int figure(struct faultgen_run *run, unsigned int i,
		  struct faultgen_figure *f)
{
	memset(f, 0, sizeof(*f));
	f->size = sizeof(*f);
	return faultgen_run_figure(run, i, f);
}

static bool is_bool(const struct faultgen_figure *f)
{
	return f->unit && strcmp(f->unit, "bool") == 0;
}

/* A whole number that %.6g would round (bytes, faults): in full. */
static bool is_count(double v)
{
	return v >= 1e6 && v < 1e15 && v == (double)(long long)v;
}

/* "figures: collapsed 3 ranges, collapse_s 0.00121 s, content_ok yes" */
void pft_print_figures(FILE *out, struct faultgen_run *run)
{
	struct faultgen_figure f;
	int n = figure(run, 0, &f);

	if (n <= 0)
		return;
	fputs("figures:", out);
	for (int i = 0; i < n && figure(run, (unsigned int)i, &f) > 0; i++) {
		fprintf(out, "%s %s ", i ? "," : "", f.name);
		if (is_bool(&f))
			fputs(f.value != 0 ? "yes" : "no", out);
		else if (is_count(f.value))
			fprintf(out, "%.0f %s", f.value, f.unit ? f.unit : "");
		else
			fprintf(out, "%.6g %s", pft_printable(f.value),
				f.unit ? f.unit : "");
	}
	fputc('\n', out);
}

/* "figures": {"collapsed": {"value": 3, "unit": "ranges"}, ...} */
void pft_json_figures(struct pft_json *j, struct faultgen_run *run)
{
	struct faultgen_figure f;
	int n = figure(run, 0, &f);

	if (n <= 0)
		return;
	pj_obj(j, "figures");
	for (int i = 0; i < n && figure(run, (unsigned int)i, &f) > 0; i++) {
		pj_obj(j, f.name);
		if (is_bool(&f))
			pj_bool(j, "value", f.value != 0);
		else
			pj_dbl(j, "value", f.value);
		pj_str_or_null(j, "unit", f.unit);
		pj_obj_end(j);
	}
	pj_obj_end(j);
}
