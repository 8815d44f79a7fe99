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
 * The munmap writer leaves its region unmapped between its two calls:
 * the one op that does.  It maps the region back with
 * MAP_FIXED_NOREPLACE, so a mapping another thread made in that hole
 * meanwhile is never replaced: the writer goes on in a fresh region of
 * its own (a reservation with a guard page either side, as the others
 * have), that cycle uncounted, and the run's release leaves that
 * mapping alone.  A process whose allocator maps often (a sanitizer's)
 * takes such holes now and then.
 *
 * The _VMA ops change a page range inside the faulted VMA itself,
 * which splits it and write-locks it (vma_start_write) until the mmap
 * lock is released: a fault on it meanwhile cannot take the per-VMA
 * lock and falls back to the mmap lock, behind the writer.  A flag the
 * call does not change takes no VMA lock (mprotect_fixup and
 * madvise_update_vma return early when the flags are the same), so
 * each cycle sets a flag and clears it, one that leaves what the
 * faulters see as it was: PROT_EXEC (present pages keep their
 * writable entries: the faulters take no second fault), or
 * VM_DONTCOPY (MADV_DONTFORK, MADV_DOFORK).  The second call merges
 * the range back: after each cycle the VMA is one again.
 *
 * Each call is timed (CLOCK_MONOTONIC around it) into the writer's own
 * histogram; those of the calls it counts are merged once the run is
 * through (FAULTGEN_LATENCY_WRITERS).
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

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

static bool op_on_vma(enum faultgen_writer_op op)
{
	return op == FAULTGEN_WRITER_MPROTECT_VMA ||
	       op == FAULTGEN_WRITER_MADVISE_VMA;
}

/*
 * Writer h's page range inside the faulted VMA: up to WRITER_PAGES
 * pages in the middle of an m-th of it (one page, shared, when there
 * are more writers than pages).
 */
static char *vma_range_of(const struct faultgen_run *run, unsigned int h,
			  size_t *len)
{
	size_t ps = (size_t)run->pagesize;
	uint64_t pages = run->base_len / ps, m = run->attr.writers;
	uint64_t share, n, first;

	/* Called for a writer of a run with writers and memory. */
	if (!m)
		m = 1;
	if (!pages)
		pages = 1;
	share = pages / m;
	n = share / 2;

	if (n > WRITER_PAGES)
		n = WRITER_PAGES;
	if (!n)
		n = 1;
	first = share ? h * share + (share - n) / 2 : h % pages;
	*len = (size_t)n * ps;
	return run->base + (size_t)first * ps;
}

/* Writers share the workers' memory map: threads only.  Those that
 * change the faulted VMA change the library's own mapping only. */
int fg_writers_check(const struct faultgen_attr *a,
		     struct faultgen_conflict *c)
{
	if (a->writers && a->kind != FAULTGEN_THREADS)
		return fg_conflict(c, FAULTGEN_SETTING_WRITERS,
				   FAULTGEN_SETTING_WORKERS,
				   "writers are threads beside the faulters: "
				   "forked workers fault a memory map of their "
				   "own");
	if (a->writers && op_on_vma(a->writer_op) && a->region)
		return fg_conflict(c, FAULTGEN_SETTING_WRITERS,
				   FAULTGEN_SETTING_REGION,
				   "writers that change the faulted VMA would "
				   "change the caller's region");
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

/* The writers' slots (their histograms) in a reservation of their own,
 * faulted by each writer before its loop. */
static int slots_setup(struct faultgen_run *run)
{
	struct fg_writers *st = fg_pattern_state(run);
	size_t len = fg_round_up((uint64_t)run->attr.writers *
					 sizeof(*st->slots),
				 (uint64_t)run->pagesize);
	char *at;
	int ret = fg_reserve(len, 0, &st->slot_resv, &at);

	if (ret)
		return ret;
	if (mmap(at, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1,
		 0) == MAP_FAILED)
		return -errno;
	st->slots = (struct fg_writer_slot *)(void *)at;
	return 0;
}

/*
 * A private VMA gets its anon_vma at its first write fault.  Split by a
 * _VMA writer before that, its pieces would each get one of their own
 * as the workers fault them, and pieces with different anon_vmas never
 * merge again: the VMA would stay cut in two or three.  So it gets one
 * now: a page written with the value it holds, then zapped, so that
 * the workers still fault every page.  Best effort (a hugetlb VMA
 * before 5.18 refuses the zap: that page is then not faulted again).
 */
FG_NO_ASAN static void prepare_anon_vma(struct faultgen_run *run)
{
	volatile char *p = (volatile char *)run->base;

	// cppcheck-suppress selfAssignment
	*p = *p; /* a write of what the page holds: its first write fault */
	madvise(run->base, (size_t)run->pagesize, MADV_DONTNEED);
}

/*
 * Before the workers start: the guards of the shared VMA, the writers'
 * slots, the reservation, and for the writers that change a region of
 * their own in place (mprotect, madvise, munmap) their mappings.
 */
int fg_writers_setup(struct faultgen_run *run)
{
	struct fg_writers *st = fg_pattern_state(run);
	unsigned int m = run->attr.writers;
	enum faultgen_writer_op op = run->attr.writer_op;
	size_t len = region_len(run), page = (size_t)run->pagesize;
	int ret;

	if (!m)
		return 0;
	st->ran = true;
	if (run->base_owned) {
		st->guard[0] = guard_at(run->base - page, page);
		st->guard[1] = guard_at(run->base + run->base_len, page);
	}
	if (op_on_vma(op))
		prepare_anon_vma(run);
	ret = slots_setup(run);
	if (!ret)
		ret = fg_reserve((size_t)m * (len + page) - page, 0, &st->resv,
				 &st->start);
	if (ret || op == FAULTGEN_WRITER_MMAP || op_on_vma(op))
		return ret;
	for (unsigned int h = 0; h < m; h++)
		if (mmap(region_of(run, h), len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
			 0) == MAP_FAILED)
			return -errno;
	return 0;
}

/* The reservation, but the regions of munmap writers that found another
 * mapping in their place: that one is not ours to unmap. */
static void resv_release(struct fg_writers *st, unsigned int m, size_t len,
			 size_t page)
{
	char *from = st->resv.raw, *end = st->resv.raw + st->resv.raw_len;

	for (unsigned int h = 0; st->slots && h < m; h++) {
		char *at = st->start + (size_t)h * (len + page);

		if (!st->slots[h].lost)
			continue;
		if (at > from)
			munmap(from, (size_t)(at - from));
		from = at + len;
	}
	if (from < end)
		munmap(from, (size_t)(end - from));
	st->resv.raw = NULL;
	st->resv.raw_len = 0;
}

void fg_writers_release(struct faultgen_run *run)
{
	struct fg_writers *st = fg_pattern_state(run);
	size_t page = (size_t)run->pagesize;

	if (!st)
		return;
	if (st->resv.raw)
		resv_release(st, run->attr.writers, region_len(run), page);
	for (unsigned int h = 0; st->slots && h < run->attr.writers; h++)
		fg_resv_release(&st->slots[h].moved);
	fg_resv_release(&st->slot_resv);
	st->slots = NULL;
	run->helper_lat = NULL;
	for (int i = 0; i < 2; i++) {
		if (st->guard[i])
			munmap(st->guard[i], page);
		st->guard[i] = NULL;
	}
}

/* What writer h works on: its region, or its range of the faulted
 * VMA. */
struct target {
	enum faultgen_writer_op op;
	char *at;
	size_t len;
};

/* 0, or the -errno of a call that returned -1. */
static int call_rc(int ret)
{
	return ret < 0 ? -errno : 0;
}

#define RW (PROT_READ | PROT_WRITE)

/* munmap's second call: its region mapped back, never over another
 * thread's mapping. */
static int map_back(const struct target *t)
{
	void *p = mmap(t->at, t->len, RW,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1,
		       0);

	if (p == MAP_FAILED)
		return -errno;
	/* Before 4.17 the flag is a hint: placed elsewhere. */
	if (p != t->at) {
		munmap(p, t->len);
		return -EEXIST;
	}
	return 0;
}

/* Call `step` (0 or 1) of a cycle on the target. */
static int writer_call(const struct target *t, int step)
{
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED;

	switch (t->op) {
	case FAULTGEN_WRITER_MMAP:
		if (step)
			return mmap(t->at, t->len, PROT_NONE,
				    flags | MAP_NORESERVE, -1,
				    0) == MAP_FAILED ? -errno : 0;
		return mmap(t->at, t->len, RW, flags, -1, 0) == MAP_FAILED ?
			       -errno :
			       0;
	case FAULTGEN_WRITER_MPROTECT:
		return call_rc(mprotect(t->at, t->len, step ? RW : PROT_READ));
	case FAULTGEN_WRITER_MADVISE:
		return call_rc(madvise(t->at, t->len,
				       step ? MADV_NOHUGEPAGE : MADV_HUGEPAGE));
	case FAULTGEN_WRITER_MUNMAP:
		return step ? map_back(t) : call_rc(munmap(t->at, t->len));
	case FAULTGEN_WRITER_MPROTECT_VMA:
		return call_rc(mprotect(t->at, t->len,
					step ? RW : RW | PROT_EXEC));
	case FAULTGEN_WRITER_MADVISE_VMA:
		return call_rc(madvise(t->at, t->len,
				       step ? MADV_DOFORK : MADV_DONTFORK));
	}
	return -EINVAL;
}

/* The ops that map a region touch it once it is mapped, outside the
 * timed call. */
static bool touches_after(enum faultgen_writer_op op, int step)
{
	return (op == FAULTGEN_WRITER_MMAP && step == 0) ||
	       (op == FAULTGEN_WRITER_MUNMAP && step == 1);
}

/*
 * Writer `slot`'s region was taken by another mapping while unmapped:
 * not ours any more.  It goes on in a fresh reservation, mapped
 * read-write; the guards of one it had moved to before are unmapped
 * (the region between them is not ours either).
 */
static int move_region(struct fg_writer_slot *slot, struct target *t,
		       size_t page)
{
	struct fg_resv *r = &slot->moved;
	char *at;
	int ret;

	if (r->raw) {
		munmap(r->raw, page);
		munmap(r->raw + r->raw_len - page, page);
		r->raw = NULL;
		r->raw_len = 0;
	} else {
		slot->lost = true;
	}
	ret = fg_reserve(t->len, 0, r, &at);
	if (ret)
		return ret;
	if (mmap(at, t->len, RW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
		 0) == MAP_FAILED) {
		ret = -errno;
		fg_resv_release(r);
		return ret;
	}
	t->at = at;
	slot->moves++;
	return 0;
}

/* One cycle of two calls, each timed into ns[]; *failed the call that
 * failed. */
FG_NO_ASAN static int cycle(const struct target *t, uint64_t ns[2],
			    int *failed)
{
	for (int step = 0; step < 2; step++) {
		int64_t t0 = fg_now_ns();
		int ret = writer_call(t, step);

		ns[step] = (uint64_t)(fg_now_ns() - t0);
		*failed = step;
		if (ret)
			return ret;
		if (touches_after(t->op, step))
			*(volatile char *)t->at = 1;
	}
	return 0;
}

/* writer-nice's text, checked by its setting: -20 to 19. */
static int nice_of(const char *text)
{
	return (int)strtol(text, NULL, 10);
}

/*
 * The writer's own priority (writer-nice, writer-fifo), on its own
 * thread: a nice value is per thread on Linux.  Raising it (a nice
 * below the thread's) without CAP_SYS_NICE or RLIMIT_NICE, or SCHED_FIFO
 * without CAP_SYS_NICE or RLIMIT_RTPRIO, is -EPERM.
 */
static int set_priority(const struct faultgen_run *run)
{
	const char *nice = fg_own_setting(run, "writer-nice").s;
	unsigned int fifo = fg_own_setting(run, "writer-fifo").u;

	if (nice && setpriority(PRIO_PROCESS, (id_t)fg_gettid(),
				nice_of(nice)) < 0)
		return errno == EACCES ? -EPERM : -errno;
	if (fifo) {
		struct sched_param sp = { .sched_priority = (int)fifo };

		if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
			return -errno;
	}
	return 0;
}

/*
 * Writer h (struct fg_work's helper): cycles from the start gate until
 * the measured phase is over (every worker ended its measured interval:
 * what a worker does after it, such as counting its pages per node, has
 * no writers beside it), or the run stops.  A cycle counts when the
 * phase was open as it began and not over as it ended: the calls are
 * those made within the phase, whose span (the result's elapsed time)
 * their rate is over; their times are those in its histogram.
 */
int fg_writer_run(struct faultgen_run *run, unsigned int h)
{
	struct fg_writers *st = fg_pattern_state(run);
	struct fg_writer_slot *slot = &st->slots[h];
	struct target t = { .op = run->attr.writer_op };
	uint64_t calls = 0, ns[2];
	int ret = set_priority(run), failed = 0;
	bool open;

	if (op_on_vma(t.op)) {
		t.at = vma_range_of(run, h, &t.len);
	} else {
		t.at = region_of(run, h);
		t.len = region_len(run);
	}
	fg_wlat_begin(&slot->lat, false);
	while (!ret && !fg_helpers_stop(run) && !fg_measure_over(run)) {
		open = fg_measure_open(run);
		fg_wait_helper_tick(run, h);
		ret = cycle(&t, ns, &failed);
		if (ret == -EEXIST && t.op == FAULTGEN_WRITER_MUNMAP &&
		    failed == 1) {
			ret = move_region(slot, &t, (size_t)run->pagesize);
			continue;
		}
		if (!ret && open && !fg_measure_over(run)) {
			calls += 2;
			fg_hist_record(&slot->lat.h, ns[0]);
			fg_hist_record(&slot->lat.h, ns[1]);
		}
	}
	fg_wlat_end(&slot->lat, false);
	/* Unmapped, not mapped back: what is there now is not ours. */
	if (ret && t.op == FAULTGEN_WRITER_MUNMAP && failed == 1) {
		if (slot->moved.raw) {
			munmap(slot->moved.raw, (size_t)run->pagesize);
			slot->moved.raw += slot->moved.raw_len -
					   (size_t)run->pagesize;
			slot->moved.raw_len = (size_t)run->pagesize;
		} else {
			slot->lost = true;
		}
	}
	atomic_fetch_add(&st->calls, calls);
	atomic_fetch_add(&st->moves, slot->moves);
	atomic_fetch_add(&st->stopped, 1);
	return ret;
}

/* The calls each op times, as faultgen_latency names them. */
static const char *const op_calls[] = {
	[FAULTGEN_WRITER_MMAP] = "mmap",
	[FAULTGEN_WRITER_MPROTECT] = "mprotect",
	[FAULTGEN_WRITER_MADVISE] = "madvise",
	[FAULTGEN_WRITER_MUNMAP] = "munmap",
	[FAULTGEN_WRITER_MPROTECT_VMA] = "mprotect",
	[FAULTGEN_WRITER_MADVISE_VMA] = "madvise",
};

/* Once the writers are through: their histograms merged, for
 * faultgen_run_latency's FAULTGEN_LATENCY_WRITERS. */
void fg_writers_fold(struct faultgen_run *run)
{
	struct fg_writers *st = fg_pattern_state(run);
	size_t len = region_len(run);

	if (!st || !st->ran || !st->slots)
		return;
	memset(&st->lat, 0, sizeof(st->lat));
	fg_hist_init(&st->lat.h);
	for (unsigned int h = 0; h < run->attr.writers; h++)
		fg_wlat_merge(&st->lat, &st->slots[h].lat);
	st->lat.done = true;
	if (op_on_vma(run->attr.writer_op))
		vma_range_of(run, 0, &len);
	run->helper_lat = &st->lat;
	run->helper_call = op_calls[run->attr.writer_op];
	run->helper_call_bytes = len;
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
	double moves = ran ? (double)atomic_load(&st->moves) : 0;
	const struct fg_figure_row figs[] = {
		{ "writers", run->attr.writers, "threads" },
		{ "writer_calls", calls, "calls" },
		{ "writer_s", wall, "s" },
		{ "writer_calls_per_s", wall > 0 ? calls / wall : 0,
		  "calls/s" },
		/* munmap's, last: holes another mapping took meanwhile */
		{ "writer_moves", moves, "regions" },
	};
	unsigned int n = sizeof(figs) / sizeof(figs[0]);

	if (run->attr.writer_op != FAULTGEN_WRITER_MUNMAP)
		n--;

	if (!ran)
		return -ERANGE;
	return fg_figure_pick(figs, n, index, f);
}
