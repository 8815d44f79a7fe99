// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * qemu-prealloc.c - QEMU's preallocation of guest RAM without QEMU.
 *
 * Copyright (C) 2026 The libfaultgen authors
 *
 * Does to the kernel what
 *   qemu-system-x86_64 -object memory-backend-BACKEND,size=SIZE,\
 *       prealloc=on,prealloc-threads=THREADS[,share=on]
 * does when the backend is created (QEMU 7.0 and later): the same
 * mapping, the same probe, as many threads as QEMU would start, each
 * populating (or touching) its slice.
 *
 *   qemu-prealloc [SIZE [THREADS [BACKEND [HOW]]]]
 *     SIZE     guest RAM, e.g. 256M, 4G              (default 256M)
 *     THREADS  prealloc-threads                     (default 2)
 *     BACKEND  ram, ram-shared, memfd (share=on, QEMU's default for it)
 *              or memfd-private                     (default ram)
 *     HOW      auto (as QEMU) or touch (as on a kernel without
 *              MADV_POPULATE_WRITE)                 (default auto)
 *
 * Prints one line of key=value figures.
 *
 * Build: cc qemu-prealloc.c $(pkg-config --cflags --libs libfaultgen)
 */
#include <faultgen.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_backend(const char *s, enum faultgen_backing *b, int *share)
{
	static const struct {
		const char *name;
		enum faultgen_backing backing;
		int share;
	} t[] = {
		{ "ram", FAULTGEN_BACKING_ANON, 0 },
		{ "ram-shared", FAULTGEN_BACKING_ANON, 1 },
		{ "memfd", FAULTGEN_BACKING_MEMFD, 1 },
		{ "memfd-private", FAULTGEN_BACKING_MEMFD, 0 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (strcmp(s, t[i].name) == 0) {
			*b = t[i].backing;
			*share = t[i].share;
			return 0;
		}
	}
	return -1;
}

/* Figure `name` of the run, or -1. */
static double figure(const struct faultgen_run *run, const char *name)
{
	struct faultgen_figure f = { .size = sizeof(f) };
	int n = faultgen_run_figure(run, 0, &f);

	for (int i = 0; i < n; i++)
		if (faultgen_run_figure(run, (unsigned int)i, &f) > 0 &&
		    strcmp(f.name, name) == 0)
			return f.value;
	return -1;
}

int main(int argc, char **argv)
{
	struct faultgen_result res = { .size = sizeof(res) };
	const char *size_s = argc > 1 ? argv[1] : "256M";
	const char *backend = argc > 3 ? argv[3] : "ram";
	const char *how_s = argc > 4 ? argv[4] : "auto";
	unsigned long threads = argc > 2 ? strtoul(argv[2], NULL, 10) : 2;
	enum faultgen_backing backing;
	enum faultgen_qemu how;
	struct faultgen_attr *attr;
	struct faultgen_run *run = NULL;
	uint64_t size;
	int share, err;

	if (argc > 5 || faultgen_parse_size(size_s, &size) < 0 ||
	    threads < 1 || threads > 4096 ||
	    parse_backend(backend, &backing, &share) < 0 ||
	    (strcmp(how_s, "auto") != 0 && strcmp(how_s, "touch") != 0)) {
		fprintf(stderr, "usage: %s [SIZE [THREADS [ram|ram-shared|"
				"memfd|memfd-private [auto|touch]]]]\n",
			argv[0]);
		return 2;
	}
	how = strcmp(how_s, "touch") == 0 ? FAULTGEN_QEMU_TOUCH : FAULTGEN_QEMU_AUTO;
	err = faultgen_attr_new(&attr);
	if (!err)
		err = faultgen_attr_set_pattern(attr, FAULTGEN_QEMU_PREALLOC);
	if (!err)
		err = faultgen_attr_set_size(attr, size);
	if (!err)
		err = faultgen_attr_set_workers(attr, (unsigned int)threads,
						FAULTGEN_THREADS);
	if (!err)
		err = faultgen_attr_set_backing(attr, backing);
	if (!err)
		err = faultgen_attr_set_share(attr, share);
	if (!err)
		err = faultgen_attr_set_qemu(attr, how);
	if (!err)
		err = faultgen_run_new(attr, &run);
	faultgen_attr_free(attr);
	if (!err)
		err = faultgen_run_result(run, &res);
	if (err) {
		fprintf(stderr, "qemu-prealloc: %s\n", faultgen_strerror(err));
		faultgen_run_free(run);
		return 1;
	}
	printf("size=%s backend=%s prealloc_threads=%lu threads=%u "
	       "populate=%s faults=%llu process_faults=%.0f "
	       "huge_page_bytes=%.0f prealloc_s=%.6f\n",
	       size_s, backend, threads, res.workers,
	       figure(run, "populate") > 0 ? "yes" : "no",
	       (unsigned long long)res.minflt + res.majflt,
	       figure(run, "process_faults"), figure(run, "huge_page_bytes"),
	       figure(run, "prealloc_s"));
	faultgen_run_free(run);
	return 0;
}
