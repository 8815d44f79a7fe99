// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * zap-loop.c - the repeat-with-zap benchmark: every thread faults its
 * slice of one VMA, drops it with MADV_DONTNEED and faults it again, for a
 * while, after warm-up rounds in the same process.
 *
 * Copyright (C) 2026 The libfaultgen authors
 *
 * Build: cc zap-loop.c $(pkg-config --cflags --libs libfaultgen)
 * Use:   ./a.out [SIZE [THREADS [SECONDS]]]     e.g. ./a.out 128M 2 2
 */
#include <faultgen.h>
#include <stdio.h>
#include <stdlib.h>

static int fail(const char *what, int err)
{
	fprintf(stderr, "zap-loop: %s: %s\n", what, faultgen_strerror(err));
	return 1;
}

int main(int argc, char **argv)
{
	struct faultgen_result res = { .size = sizeof(res) };
	unsigned int threads =
		argc > 2 ? (unsigned int)strtoul(argv[2], NULL, 10) : 2;
	double seconds = argc > 3 ? strtod(argv[3], NULL) : 1.0;
	struct faultgen_attr *attr;
	struct faultgen_run *run;
	uint64_t size = 64 << 20;
	int err;

	if (argc > 1 && (err = faultgen_parse_size(argv[1], &size)))
		return fail("size", err);
	err = faultgen_attr_new(&attr);
	if (err)
		return fail("attr", err);
	err = faultgen_attr_set_size(attr, size);
	if (!err)
		err = faultgen_attr_set_workers(attr, threads, FAULTGEN_THREADS);
	if (!err)
		err = faultgen_attr_set_oversubscribe(attr, 1);
	if (!err)
		err = faultgen_attr_set_duration(attr, seconds,
						 FAULTGEN_ZAP_DONTNEED);
	if (!err)
		err = faultgen_attr_set_warmup(attr, 2);
	if (err) {
		faultgen_attr_free(attr);
		return fail("settings", err);
	}
	err = faultgen_run_new(attr, &run);
	faultgen_attr_free(attr);
	if (err)
		return fail("run", err);
	faultgen_run_result(run, &res);
	printf("%u threads, %llu rounds: %llu pages in %.3f s (%.3f s "
	       "faulting), %.0f faults/s\n",
	       res.workers, (unsigned long long)res.rounds,
	       (unsigned long long)res.pages, res.elapsed_s, res.fault_s,
	       res.pages_per_wall_s);
	faultgen_run_free(run);
	return res.rounds ? 0 : 1;
}
