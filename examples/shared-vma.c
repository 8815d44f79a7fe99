// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * shared-vma.c - many threads fault one shared anonymous VMA, each its own
 * slice: the per-VMA lock and refcount contention case.
 *
 * Copyright (C) 2026 The libfaultgen authors
 *
 * Build: cc shared-vma.c $(pkg-config --cflags --libs libfaultgen)
 * Use:   ./a.out [SIZE [THREADS]]     e.g. ./a.out 1G 2
 */
#include <faultgen.h>
#include <stdio.h>
#include <stdlib.h>

static int fail(const char *what, int err)
{
	fprintf(stderr, "shared-vma: %s: %s\n", what, faultgen_strerror(err));
	return 1;
}

int main(int argc, char **argv)
{
	struct faultgen_result res = { .size = sizeof(res) };
	unsigned int threads =
		argc > 2 ? (unsigned int)strtoul(argv[2], NULL, 10) : 1;
	struct faultgen_attr *attr;
	struct faultgen_run *run;
	uint64_t size = 64 << 20;
	int err;

	if (argc > 1 && (err = faultgen_parse_size(argv[1], &size)))
		return fail("size", err);
	err = faultgen_attr_new(&attr);
	if (err)
		return fail("attr", err);
	err = faultgen_attr_set_pattern(attr, FAULTGEN_SHARED_VMA);
	if (!err)
		err = faultgen_attr_set_size(attr, size);
	if (!err)
		err = faultgen_attr_set_workers(attr, threads, FAULTGEN_THREADS);
	if (!err)
		err = faultgen_attr_set_oversubscribe(attr, 1);
	if (err) {
		faultgen_attr_free(attr);
		return fail("settings", err);
	}
	err = faultgen_run_new(attr, &run);
	faultgen_attr_free(attr);
	if (err)
		return fail("run", err);
	faultgen_run_result(run, &res);
	printf("%u threads faulted %llu pages of one VMA in %.3f s: "
	       "%.0f faults/s (kernel counted %llu minor faults)\n",
	       res.workers, (unsigned long long)res.pages, res.elapsed_s,
	       res.faults_per_wall_s, (unsigned long long)res.minflt);
	err = res.faults_agree ? 0 : 1;
	faultgen_run_free(run);
	return err;
}
