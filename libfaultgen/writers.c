// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * writers.c - mapping writers beside the shared-VMA faulters
 * (faultgen_attr_set_writers): helper threads of the workers' process,
 * none of them a worker, that change a small region of their own in a
 * loop while the workers fault the shared VMA, each call taking the mmap
 * lock for writing.  What per-VMA locks were made for: do such writers
 * stall the faults of a VMA they never touch?
 *
 * The regions lie in one PROT_NONE reservation, a guard page between
 * each two and either side (fg_reserve).  So a writer's region never
 * merges with the faulters' VMA: an anonymous mapping placed anywhere
 * often lands right below the last one mapped, the shared VMA, and
 * would extend it, changing the VMA the faulters fault.  And the region
 * is never left unmapped (the mmap writer maps PROT_NONE back over it,
 * which unmaps what was there), so no other thread's mmap can take its
 * place between two calls.  The shared VMA gets a PROT_NONE page either
 * side too: the writers' thread stacks, mapped after it, would otherwise
 * merge into it where their flags agree (since Linux 6.7 a stack is
 * VM_NOHUGEPAGE, as is a shared VMA advised MADV_NOHUGEPAGE), and a
 * writer would fault its own stack in the faulters' VMA.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <sys/mman.h>

/* Pages of each writer's region. */
#define WRITER_PAGES 16

static size_t region_len(const struct faultgen_run *run)
{
	return WRITER_PAGES * (size_t)run->pagesize;
}

/* Writer h's region. */
static char *region_of(const struct faultgen_run *run, unsigned int h)
{
	const struct fg_writers *st = fg_pattern_state(run);

	return st->start + (size_t)h * (region_len(run) + (size_t)run->pagesize);
}

/* Writers share the workers' memory map: threads only. */
int fg_writers_check(const struct faultgen_attr *a,
		     struct faultgen_conflict *c)
{
	if (a->writers && a->kind != FAULTGEN_THREADS)
		return fg_conflict(c, FAULTGEN_SETTING_WRITERS,
				   FAULTGEN_SETTING_WORKERS,
				   "writers are threads beside the faulters: "
				   "forked workers fault a memory map of their "
				   "own");
	return 0;
}

unsigned int fg_writers_count(const struct faultgen_run *run)
{
	return run->attr.writers;
}

/*
 * A PROT_NONE page at `at` where nothing is mapped; none where something
 * is (it did not merge with the shared VMA when that was mapped) or the
 * kernel has no MAP_FIXED_NOREPLACE (before 4.17 it is a hint).
 */
static void *guard_at(char *at, size_t page)
{
	void *p = mmap(at, page, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
			       MAP_FIXED_NOREPLACE,
		       -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (p != at) {
		munmap(p, page);
		return NULL;
	}
	return p;
}

/*
 * Before the workers start: the guards of the shared VMA, the reservation, and for the writers that
 * change a mapping in place (mprotect, madvise) their mappings.
 */
int fg_writers_setup(struct faultgen_run *run)
{
	struct fg_writers *st = fg_pattern_state(run);
	unsigned int m = run->attr.writers;
	size_t len = region_len(run), page = (size_t)run->pagesize;
	int ret;

	if (!m)
		return 0;
	st->ran = true;
	if (run->base_owned) {
		st->guard[0] = guard_at(run->base - page, page);
		st->guard[1] = guard_at(run->base + run->base_len, page);
	}
	ret = fg_reserve((size_t)m * (len + page) - page, 0, &st->resv,
			 &st->start);
	if (ret || run->attr.writer_op == FAULTGEN_WRITER_MMAP)
		return ret;
	for (unsigned int h = 0; h < m; h++)
		if (mmap(region_of(run, h), len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
			 0) == MAP_FAILED)
			return -errno;
	return 0;
}

void fg_writers_release(struct faultgen_run *run)
{
	struct fg_writers *st = fg_pattern_state(run);

	if (!st)
		return;
	fg_resv_release(&st->resv);
	for (int i = 0; i < 2; i++) {
		if (st->guard[i])
			munmap(st->guard[i], (size_t)run->pagesize);
		st->guard[i] = NULL;
	}
}

/* One cycle of two calls on the region [at, at + len). */
FG_NO_ASAN static int cycle(enum faultgen_writer_op op, char *at, size_t len)
{
	switch (op) {
	case FAULTGEN_WRITER_MMAP:
		if (mmap(at, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
			 0) == MAP_FAILED)
			return -errno;
		*(volatile char *)at = 1;
		if (mmap(at, len, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED |
				 MAP_NORESERVE,
			 -1, 0) == MAP_FAILED)
			return -errno;
		return 0;
	case FAULTGEN_WRITER_MPROTECT:
		if (mprotect(at, len, PROT_READ) < 0 ||
		    mprotect(at, len, PROT_READ | PROT_WRITE) < 0)
			return -errno;
		return 0;
	case FAULTGEN_WRITER_MADVISE:
		if (madvise(at, len, MADV_HUGEPAGE) < 0 ||
		    madvise(at, len, MADV_NOHUGEPAGE) < 0)
			return -errno;
		return 0;
	}
	return -EINVAL;
}

/*
 * Writer h (struct fg_work's helper): cycles from the start gate until
 * the measured phase is over (every worker ended its measured interval:
 * what a worker does after it, such as counting its pages per node, has
 * no writers beside it), or the run stops.  A cycle counts when the
 * phase was open as it began and not over as it ended: the calls are
 * those made within the phase, whose span (the result's elapsed time)
 * their rate is over.
 */
int fg_writer_run(struct faultgen_run *run, unsigned int h)
{
	struct fg_writers *st = fg_pattern_state(run);
	char *at = region_of(run, h);
	size_t len = region_len(run);
	uint64_t calls = 0;
	bool open;
	int ret = 0;

	while (!ret && !fg_helpers_stop(run) && !fg_measure_over(run)) {
		open = fg_measure_open(run);
		ret = cycle(run->attr.writer_op, at, len);
		if (!ret && open && !fg_measure_over(run))
			calls += 2;
	}
	atomic_fetch_add(&st->calls, calls);
	atomic_fetch_add(&st->stopped, 1);
	return ret;
}

/* The writers' figures; none without writers, as the plain run has. */
int fg_writers_figure(const struct faultgen_run *run, unsigned int index,
		      struct faultgen_figure *f)
{
	const struct fg_writers *st = fg_pattern_state(run);
	bool ran = st && st->ran;
	/* The measured phase: the result's elapsed time. */
	double wall = ran ? run->result.elapsed_s : 0;
	double calls = ran ? (double)atomic_load(&st->calls) : 0;
	const struct fg_figure_row figs[] = {
		{ "writers", run->attr.writers, "threads" },
		{ "writer_calls", calls, "calls" },
		{ "writer_s", wall, "s" },
		{ "writer_calls_per_s", wall > 0 ? calls / wall : 0,
		  "calls/s" },
	};
	unsigned int n = sizeof(figs) / sizeof(figs[0]);

	if (!ran)
		return -ERANGE;
	return fg_figure_pick(figs, n, index, f);
}
