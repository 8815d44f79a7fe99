// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * per-thread-vma.c - the same faults as shared-vma.c, but every thread has
 * a mapping of its own, so no VMA is shared between them.
 *
 * Copyright (C) 2026 The libfaultgen authors
 *
 * Build: cc per-thread-vma.c $(pkg-config --cflags --libs libfaultgen)
 * Use:   ./a.out [SIZE [THREADS]]     e.g. ./a.out 1G 2
 */
#include <faultgen.h>
#include <stdio.h>
#include <stdlib.h>

static int fail(const char *what, int err)
{
	fprintf(stderr, "per-thread-vma: %s: %s\n", what,
		faultgen_strerror(err));
	return 1;
}

int main(int argc, char **argv)
{
	unsigned int threads =
		argc > 2 ? (unsigned int)strtoul(argv[2], NULL, 10) : 2;
	struct faultgen_attr *attr;
	struct faultgen_run *run;
	uint64_t size = 64 << 20;
	int err;

	if (argc > 1 && (err = faultgen_parse_size(argv[1], &size)))
		return fail("size", err);
	err = faultgen_attr_new(&attr);
	if (err)
		return fail("attr", err);
	err = faultgen_attr_set_pattern(attr, FAULTGEN_PER_THREAD_VMA);
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
	for (unsigned int i = 0; i < threads; i++) {
		struct faultgen_worker_result w = { .size = sizeof(w) };

		faultgen_run_worker(run, i, &w);
		printf("worker %u: its own mapping %p (%zu KiB), %llu faults "
		       "in %.3f s\n",
		       i, w.addr, w.len >> 10, (unsigned long long)w.minflt,
		       w.wall_s);
	}
	faultgen_run_free(run);
	return 0;
}
