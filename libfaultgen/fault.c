// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fault.c - the shared-VMA and per-thread-VMA patterns: each worker
 * touches its slice (or its own mapping) once, or faults it, zaps it and
 * faults it again for N rounds or T seconds.
 *
 * The touch loops run in forked workers too: they only make system calls
 * and touch memory (async-signal-safe).
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

FG_NO_ASAN static int touch_write(const struct faultgen_run *run, char *addr,
				  size_t len, const struct fg_shared *sh)
{
	size_t cl = run->cacheline, step = fg_touch_step(run);
	unsigned int lines = run->attr.cachelines;
	uint64_t touches = fg_touched_pages(run, len / (size_t)run->pagesize);

	for (uint64_t t = 0; t < touches; t++) {
		volatile char *p = addr + t * step;

		for (unsigned int c = 0; c < lines; c++)
			p[c * cl] = 1;
		if (fg_cancel_at(sh, t))
			return -ECANCELED;
	}
	return 0;
}

FG_NO_ASAN static int touch_read(const struct faultgen_run *run, char *addr,
				 size_t len, const struct fg_shared *sh)
{
	size_t step = fg_touch_step(run);
	uint64_t touches = fg_touched_pages(run, len / (size_t)run->pagesize);
	unsigned int sum = 0;

	for (uint64_t t = 0; t < touches; t++) {
		sum += *(volatile char *)(addr + t * step);
		if (fg_cancel_at(sh, t))
			return -ECANCELED;
	}
	(void)sum;
	return 0;
}

/*
 * memset of the slice.  Under AddressSanitizer memset is intercepted and
 * checks (so faults) the shadow of the whole range: a plain store loop
 * there instead.
 */
FG_NO_ASAN static void touch_memset(char *addr, size_t len)
{
#ifdef FG_ASAN
	volatile uint64_t *p = (volatile uint64_t *)addr;

	for (size_t i = 0; i < len / sizeof(*p); i++)
		p[i] = 0;
#else
	memset(addr, 0, len);
#endif
}

/* Async-signal-safe: forked workers call it.  A write or a read touches
 * one page in run->touch_stride (fg_touched_pages); the calls cover the
 * range (a pattern with a stride refuses them). */
int fg_touch(const struct faultgen_run *run, char *addr, size_t len,
	     const struct fg_shared *sh)
{
	if (!len)
		return 0;
	switch (run->attr.touch) {
	case FAULTGEN_TOUCH_WRITE:
		return touch_write(run, addr, len, sh);
	case FAULTGEN_TOUCH_READ:
		return touch_read(run, addr, len, sh);
	case FAULTGEN_TOUCH_MEMSET:
		touch_memset(addr, len);
		return 0;
	case FAULTGEN_TOUCH_MLOCK:
		return mlock(addr, len) < 0 ? -errno : 0;
	case FAULTGEN_TOUCH_POPULATE:
		return madvise(addr, len, MADV_POPULATE_WRITE) < 0 ? -errno : 0;
	}
	return -EINVAL;
}

/* A range of worker i's slice: timed into its histogram (latency.c)
 * with left, the count of touches to the next timed one, untimed
 * without. */
static int touch_piece(struct faultgen_run *run, unsigned int i, char *addr,
		       size_t len, unsigned int *left)
{
	if (left)
		return fg_lat_touch_piece(run, i, addr, len, run->sh, fg_touch,
					  left);
	return fg_touch(run, addr, len, run->sh);
}

/*
 * With its lock waits timed (lockwaits.c), each user fault of worker i
 * writes a sample into its ring: a write or read loop goes in pieces of
 * FG_WAIT_TOUCHES touches, the ring read between two when half full, so
 * that a large slice does not overflow it in one round.  A cancel is
 * looked for between pieces.
 */
static int touch_in_pieces(struct faultgen_run *run, unsigned int i,
			   unsigned int *left)
{
	size_t piece = FG_WAIT_TOUCHES * fg_touch_step(run);
	size_t len = run->wlen[i];
	int ret = 0;

	for (size_t off = 0; off < len && !ret; off += piece) {
		ret = touch_piece(run, i, run->waddr[i] + off,
				  len - off < piece ? len - off : piece, left);
		fg_wait_worker_tick(run, i);
		if (!ret && off + piece < len && fg_cancel_requested(run->sh))
			ret = -ECANCELED;
	}
	return ret;
}

/* Worker i's whole slice, timed or not: in pieces where its ring is
 * read as it goes (the warm-up's and the pages' count's touches too,
 * whose samples would fill it as well). */
static int touch_all(struct faultgen_run *run, unsigned int i, bool timed)
{
	unsigned int left = 1, *l = timed ? &left : NULL;

	if (fg_wait_worker_on(run, i) &&
	    (run->attr.touch == FAULTGEN_TOUCH_WRITE ||
	     run->attr.touch == FAULTGEN_TOUCH_READ))
		return touch_in_pieces(run, i, l);
	return touch_piece(run, i, run->waddr[i], run->wlen[i], l);
}

/* The measured touch of worker i's slice: timed (latency.c) when asked,
 * else the plain loop. */
static int touch_slice(struct faultgen_run *run, unsigned int i)
{
	return touch_all(run, i, run->lat != NULL);
}

static bool rounds_done(const struct faultgen_run *run,
			const struct fg_wstat *w, int64_t deadline)
{
	if (run->attr.rounds)
		return w->rounds >= run->attr.rounds;
	return fg_now_ns() >= deadline;
}

/*
 * Warm-up in this very process, with no pause: memory the host took back
 * costs more to fault again.  Then every worker passes the measure gate,
 * failed or not, or the others would wait for it: measuring starts
 * together.
 */
static int warm_up(struct faultgen_run *run, unsigned int i)
{
	struct fg_shared *sh = run->sh;
	int ret = 0;

	for (unsigned int r = 0; r < run->attr.warmup && !ret; r++) {
		ret = touch_all(run, i, false);
		if (!ret)
			ret = fg_zap(run, i);
	}
	if (!fg_gate_pass(run, &sh->measure) && !ret)
		ret = -ECANCELED;
	return ret;
}

/*
 * Cold (faultgen_attr_set_cold): worker i's pages out of the page cache
 * before a measured round, outside the measured time.  The drop's time
 * moves the worker's interval on (its start and end), and what the
 * drop counted (CPU time, faults) moves the usage it started from on:
 * its figures are those of its rounds alone.
 */
static int cold_pause(struct faultgen_run *run, unsigned int i,
		      struct fg_usage *at, bool process)
{
	struct fg_wstat *w = &run->sh->w[i];
	struct fg_usage before, after, d;
	int64_t ns = 0;
	int ret;

	if (!run->attr.cold)
		return 0;
	fg_wait_worker_flush(run, i);
	fg_usage_now(&before, process, fg_wstat_lock_fd(w));
	ret = fg_cold_drop(run, i, &ns);
	fg_usage_now(&after, process, fg_wstat_lock_fd(w));
	fg_usage_sub(&d, &after, &before);
	/* All the drop counted, its mmap_lock acquisitions too (mincore
	 * takes it): not the faults'. */
	fg_usage_add(at, &d);
	w->start_ns += ns;
	w->end_ns += ns;
	return ret;
}

/*
 * Fault, zap, again.  The figures are taken again after each round, so
 * that a cancel in the middle of one leaves those of the rounds that
 * finished.  One deadline for all, from the moment the measure gate
 * opened: with more workers than CPUs the late starters must not extend
 * the run by their own delay.
 */
static int fault_rounds(struct faultgen_run *run, unsigned int i)
{
	const struct faultgen_attr *a = &run->attr;
	struct fg_shared *sh = run->sh;
	struct fg_wstat *w = &sh->w[i];
	bool process = fg_counts_process(run, i);
	int64_t *round_ns = run->round_ns + (size_t)i * FG_ROUND_SAMPLES;
	uint64_t pages = fg_touched_pages(run, run->wlen[i] /
					       (size_t)run->pagesize);
	int64_t deadline, t0, t1;
	struct fg_usage at;
	int ret = warm_up(run, i);

	if (ret)
		return ret;
	/* Before the figures start: the round times' first page (a
	 * worker's first write of it is a fault) and the deadline's
	 * constants (a forked worker's first read of them is one). */
	round_ns[0] = 0;
	deadline = atomic_load(&sh->measure.open_ns) +
		   (int64_t)(a->duration * 1e9);
	if (run->lat)
		fg_lat_begin(run, i, process);
	fg_stat_begin(w, &at, process);
	fg_measure_begin(run);
	do {
		ret = cold_pause(run, i, &at, process);
		if (ret)
			break;
		t0 = fg_now_ns();
		ret = touch_slice(run, i);
		t1 = fg_now_ns();
		if (!ret)
			ret = fg_zap(run, i);
		if (ret)
			break;
		w->fault_ns += t1 - t0;
		if (w->rounds < FG_ROUND_SAMPLES)
			round_ns[w->rounds] = fg_now_ns() - t0;
		w->rounds++;
		w->pages += pages;
		fg_stat_end(w, &at, process);
	} while (!rounds_done(run, w, deadline) && !fg_cancel_requested(sh));
	if (run->lat)
		fg_lat_end(run, i, process);
	return ret;
}

/* One worker of the shared-VMA and per-thread-VMA patterns. */
static int fault_body(struct faultgen_run *run, unsigned int i)
{
	struct fg_wstat *w = &run->sh->w[i];
	bool process = fg_counts_process(run, i);
	struct fg_usage at;
	int64_t ns = 0;
	int ret;

	if (fg_attr_repeats(&run->attr))
		return fault_rounds(run, i);
	/* Cold: the one pass's pages out of the cache before it starts. */
	ret = run->attr.cold ? fg_cold_drop(run, i, &ns) : 0;
	if (ret)
		return ret;
	if (run->lat)
		fg_lat_begin(run, i, process);
	fg_stat_begin(w, &at, process);
	fg_measure_begin(run);
	ret = touch_slice(run, i);
	if (ret)
		return ret;
	fg_stat_end(w, &at, process);
	if (run->lat)
		fg_lat_end(run, i, process);
	w->fault_ns = w->end_ns - w->start_ns;
	w->rounds = 1;
	w->pages = fg_touched_pages(run, run->wlen[i] / (size_t)run->pagesize);
	return 0;
}

/*
 * Where the worker's pages are, when asked (set_node_pages), after its
 * measured loop: a repeat run zapped them, so they are faulted once more,
 * unmeasured.
 */
static int count_nodes(struct faultgen_run *run, unsigned int i)
{
	uint64_t *counts = run->node_pages + (size_t)i * run->report_nodes;
	int ret = 0;

	if (fg_attr_repeats(&run->attr))
		ret = touch_all(run, i, false);
	if (ret)
		return ret;
	return fg_numa_count(run->waddr[i], run->wlen[i],
			     (size_t)run->pagesize, counts, run->report_nodes);
}

/* The measured loop, then (unmeasured, the writers stopped) the count
 * of its pages per node. */
static int fault_work(struct faultgen_run *run, unsigned int i)
{
	int ret = fault_body(run, i);

	fg_measure_end(run);
	if (!ret && run->node_pages)
		ret = count_nodes(run, i);
	return ret;
}

/* Before the start gate: a worker-local policy binds the slice. */
static int fault_prepare(struct faultgen_run *run, unsigned int i)
{
	return fg_numa_worker(run, run->waddr[i], run->wlen[i]);
}

static const struct fg_work fault_workers = {
	.prepare = fault_prepare,
	.body = fault_work,
	.barrier = true,
};

/*
 * The workers of work on memory fg_memory_setup maps, with what the
 * pattern adds: its setup of that memory before they start, and helpers
 * beside them when it asks for any.  A cancelled run keeps the figures
 * of the rounds its workers finished (fault_rounds took them after each
 * round): they are folded too.
 */
static int fault_run(struct faultgen_run *run, struct fg_work *work,
		     const struct fg_fault_extra *x)
{
	int ret = fg_memory_setup(run);

	if (!ret && x && x->setup)
		ret = x->setup(run);
	if (ret)
		return ret;
	if (x && x->helpers && x->helpers(run)) {
		work->helpers = x->helpers;
		work->helper = x->helper;
	}
	ret = fg_workers_run(run, work);
	if (!ret || ret == -ECANCELED)
		fg_measure_fold(run);
	return ret;
}

/* The per-thread VMA's exec, and that of other patterns of these
 * workers (sparse.c, uffd.c): x may be NULL. */
int fg_fault_exec_with(struct faultgen_run *run,
		       const struct fg_fault_extra *x)
{
	struct fg_work work = fault_workers;

	return fault_run(run, &work, x);
}

int fg_fault_exec(struct faultgen_run *run)
{
	return fg_fault_exec_with(run, NULL);
}

/* The shared VMA's writers (writers.c) and its striped layout
 * (interleave.c), set up once the VMA is mapped. */
static int shared_vma_setup(struct faultgen_run *run)
{
	int ret = fg_writers_setup(run);

	if (!ret && run->attr.interleave)
		fg_interleave_layout(run);
	return ret;
}

static const struct fg_fault_extra shared_vma_extra = {
	.setup = shared_vma_setup,
	.helpers = fg_writers_count,
	.helper = fg_writer_run,
};

/* With writers beside the workers, and with the pages striped instead
 * of in slices.  Neither asked for, it is the plain run, by the very
 * same path. */
static int shared_vma_exec(struct faultgen_run *run)
{
	struct fg_work work = fault_workers;

	if (run->attr.interleave) {
		work.prepare = NULL;
		work.body = fg_interleave_work;
	}
	int ret = fault_run(run, &work, &shared_vma_extra);

	if (!ret || ret == -ECANCELED)
		fg_writers_fold(run);
	return ret;
}

/* Both patterns: a caller's region has a page per worker at least. */
static int fault_check(const struct faultgen_attr *a,
		       struct faultgen_conflict *c)
{
	if (a->region &&
	    a->region_len / (size_t)fg_pagesize() < a->nr_workers)
		return fg_conflict(c, FAULTGEN_SETTING_REGION,
				   FAULTGEN_SETTING_WORKERS,
				   "the region has fewer pages than workers");
	return 0;
}

/* The rules of one VMA faulted in slices (sparse.c's pattern too). */
int fg_one_vma_check(const struct faultgen_attr *a,
		     struct faultgen_conflict *c)
{
	if (a->zap == FAULTGEN_ZAP_MUNMAP && fg_attr_repeats(a))
		return fg_conflict(c, FAULTGEN_SETTING_ZAP,
				   FAULTGEN_SETTING_PATTERN,
				   "zap by munmap would split the shared VMA");
	return fault_check(a, c);
}

static int shared_vma_check(const struct faultgen_attr *a,
			    struct faultgen_conflict *c)
{
	int ret = fg_writers_check(a, c);

	if (!ret)
		ret = fg_interleave_check(a, c);
	return ret ? ret : fg_one_vma_check(a, c);
}

static int per_thread_vma_check(const struct faultgen_attr *a,
				struct faultgen_conflict *c)
{
	if (a->zap == FAULTGEN_ZAP_MUNMAP && fg_attr_repeats(a) &&
	    !fg_backing_of(a)->remap)
		return fg_conflict(c, FAULTGEN_SETTING_ZAP,
				   FAULTGEN_SETTING_BACKING,
				   "zap by munmap would keep the pages of "
				   "SysV memory, a memfd or a file");
	return fault_check(a, c);
}

static void fault_release(struct faultgen_run *run)
{
	fg_memory_release(run);
}

static void shared_vma_release(struct faultgen_run *run)
{
	fg_writers_release(run);
	fg_memory_release(run);
}

/* What both read beyond every pattern's settings. */
#define FAULT_READS (FG_READS_SLICES | FG_SETTING(FAULTGEN_SETTING_LATENCY))

/* The touches made in calls, timed per call (latency.c). */
static const char *fault_timed_call(const struct faultgen_run *run,
				    uint64_t *bytes)
{
	*bytes = FG_LAT_CALL_BYTES;
	switch (run->attr.touch) {
	case FAULTGEN_TOUCH_MEMSET:
		return "memset";
	case FAULTGEN_TOUCH_MLOCK:
		return "mlock";
	case FAULTGEN_TOUCH_POPULATE:
		return "MADV_POPULATE_WRITE";
	default:
		return NULL;
	}
}

static const char *const writer_ops[] = { "mmap",	      "mprotect",
					  "madvise",      "munmap",
					  "mprotect-vma", "madvise-vma",
					  NULL };

/* writer-nice: a nice value, -20 to 19, as text (a setting has no
 * signed type). */
static int writer_nice_check(const struct faultgen_attr *a,
			     const union fg_slot *v)
{
	char *end;
	long n;

	(void)a;
	if (!v->s)
		return 0;
	errno = 0;
	n = strtol(v->s, &end, 10);
	if (end == v->s || *end || errno || n < -20 || n > 19)
		return -EINVAL;
	return 0;
}

/* The shared VMA's own settings: writers beside the faulters (writers.c)
 * and the layout of the pages (interleave.c). */
static const struct fg_setting shared_vma_settings[] = {
	{ .name = "writers", .id = FAULTGEN_SETTING_WRITERS,
	  .type = FAULTGEN_TYPE_UINT, .offset = FG_AT(writers),
	  .max = FAULTGEN_MAX_WRITERS, .flags = FAULTGEN_SETTING_ZERO,
	  .def_text = "0", .value_name = "M",
	  .help = "M threads beside the workers changing mappings of\n"
		  "their own" },
	{ .name = "writer-op", .id = FAULTGEN_SETTING_WRITERS,
	  .type = FAULTGEN_TYPE_KEYWORD, .keywords = writer_ops,
	  .offset = FG_AT(writer_op), .def_text = "mmap", .value_name = "OP",
	  .help = "what the writers do: mmap (default), mprotect,\n"
		  "madvise, munmap to a region of their own;\n"
		  "mprotect-vma, madvise-vma to a range of the\n"
		  "faulted VMA, which they write-lock" },
	{ .name = "writer-nice", .type = FAULTGEN_TYPE_TEXT,
	  .offset = FG_OWN(6), .check = writer_nice_check,
	  .def_text = "inherited", .value_name = "N",
	  .help = "the writers' nice value, -20 to 19 (below the\n"
		  "caller's: CAP_SYS_NICE or RLIMIT_NICE)" },
	{ .name = "writer-fifo", .type = FAULTGEN_TYPE_UINT,
	  .offset = FG_OWN(7), .min = 1, .max = 99,
	  .flags = FAULTGEN_SETTING_ZERO, .def_text = "0",
	  .value_name = "PRIO",
	  .help = "run the writers SCHED_FIFO at PRIO, 1 to 99\n"
		  "(CAP_SYS_NICE or RLIMIT_RTPRIO; 0: not, the\n"
		  "default)" },
	/* "interleave" is a NUMA policy's word: the layout was
	 * interleave-pages in 1.2. */
	{ .name = "stripe-pages", .alias = "interleave-pages",
	  .id = FAULTGEN_SETTING_INTERLEAVE, .type = FAULTGEN_TYPE_UINT,
	  .offset = FG_AT(interleave), .max = FAULTGEN_MAX_INTERLEAVE,
	  .flags = FAULTGEN_SETTING_ZERO, .def_text = "0", .value_name = "K",
	  .help = "stripe the pages over the workers: blocks of K\n"
		  "pages dealt round robin (0: slices, the default)" },
};

const struct fg_pattern fg_shared_vma_pattern = {
	.name = "shared-vma",
	.title = "Many workers faulting one shared VMA",
	.timed_call = fault_timed_call,
	.settings = shared_vma_settings,
	.nr_settings = sizeof(shared_vma_settings) /
		       sizeof(shared_vma_settings[0]),
	.reads = FAULT_READS,
	.state_size = sizeof(struct fg_writers),
	.check = shared_vma_check,
	.exec = shared_vma_exec,
	.slices = true,
	.release = shared_vma_release,
	.figure = fg_writers_figure,
	.drops_cold = true,
};

const struct fg_pattern fg_per_thread_vma_pattern = {
	.name = "per-thread-vma",
	.title = "One VMA per worker",
	.timed_call = fault_timed_call,
	.caps = {
		.region_why = "per-thread VMAs are mappings of the library's "
			      "own",
	},
	.reads = FAULT_READS,
	.check = per_thread_vma_check,
	.exec = fg_fault_exec,
	.slices = true,
	.release = fault_release,
	.own_mappings = true,
	.drops_cold = true,
};
