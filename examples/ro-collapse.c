// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ro-collapse.c - does this kernel collapse read-only anonymous memory
 * into huge pages?  MADV_COLLAPSE of 4 KiB pages made read-only by
 * mprotect, next to a writable control, with the verdict of each.
 *
 * Copyright (C) 2026 The libfaultgen authors
 *
 * Build: cc ro-collapse.c $(pkg-config --cflags --libs libfaultgen)
 * Use:   ./a.out [SIZE [THREADS]]     e.g. ./a.out 64M 2
 */
#include <faultgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *verdict_name(enum faultgen_verdict v)
{
	switch (v) {
	case FAULTGEN_VERDICT_COLLAPSED:
		return "collapsed";
	case FAULTGEN_VERDICT_PARTIAL:
		return "partly collapsed";
	case FAULTGEN_VERDICT_REFUSED_RO:
		return "refused: the kernel does not collapse read-only PTEs";
	case FAULTGEN_VERDICT_REFUSED_SHARED:
		return "refused: too many shared PTEs";
	case FAULTGEN_VERDICT_UNSUPPORTED:
		return "unsupported: this kernel has no MADV_COLLAPSE";
	default:
		return "not collapsed";
	}
}

static int fail(const char *what, int err)
{
	fprintf(stderr, "ro-collapse: %s: %s\n", what, faultgen_strerror(err));
	return 1;
}

/* One run of the pattern; prints one line.  The kernel's refusal is an
 * answer, not a failure: only a run that could not run returns 1. */
static int collapse(const char *name, enum faultgen_protect protect,
		    uint64_t size, unsigned int threads)
{
	struct faultgen_collapse_result res = { .size = sizeof(res) };
	struct faultgen_attr *attr;
	struct faultgen_run *run;
	double per_range, ratio;
	int err;

	err = faultgen_attr_new(&attr);
	if (err)
		return fail("attr", err);
	err = faultgen_attr_set_pattern(attr, FAULTGEN_RO_COLLAPSE);
	if (!err)
		err = faultgen_attr_set_size(attr, size);
	if (!err)
		err = faultgen_attr_set_workers(attr, threads, FAULTGEN_THREADS);
	if (!err)
		err = faultgen_attr_set_oversubscribe(attr, 1);
	if (!err)
		err = faultgen_attr_set_protect(attr, protect);
	if (!err)
		err = faultgen_attr_set_collapse(attr, FAULTGEN_COLLAPSE_MADVISE);
	if (err) {
		faultgen_attr_free(attr);
		return fail("settings", err);
	}
	err = faultgen_run_new(attr, &run);
	faultgen_attr_free(attr);
	if (err)
		return fail(name, err);
	err = faultgen_run_collapse(run, &res);
	faultgen_run_free(run);
	if (err)
		return fail(name, err);
	per_range = res.ranges ? res.collapse_s * 1e3 / res.ranges : 0;
	ratio = res.sweep_after_ns > 0 ?
			res.sweep_before_ns / res.sweep_after_ns : 0;
	printf("%s: collapsed %u/%u ranges in %.1f ms (%.2f ms/range), "
	       "read sweep %.1fx faster, content %s; verdict: %s",
	       name, res.collapsed, res.ranges, res.collapse_s * 1e3,
	       per_range, ratio, res.content_ok ? "unchanged" : "CHANGED",
	       verdict_name(res.verdict));
	if (res.first_error)
		printf(" (MADV_COLLAPSE: %s)", strerror(-res.first_error));
	printf("\n");
	return res.content_ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	unsigned int threads =
		argc > 2 ? (unsigned int)strtoul(argv[2], NULL, 10) : 1;
	uint64_t size = 32 << 20;
	int err;

	if (argc > 1 && (err = faultgen_parse_size(argv[1], &size)))
		return fail("size", err);
	err = collapse("read-only", FAULTGEN_PROTECT_MPROTECT, size, threads);
	err |= collapse("writable", FAULTGEN_PROTECT_WRITABLE, size, threads);
	return err;
}
