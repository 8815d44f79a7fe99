// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pretouch.c - the JVM's AlwaysPreTouch (FAULTGEN_PRETOUCH).
 *
 * How HotSpot pretouches, as observed on Linux (-Xlog:gc+heap=debug
 * prints one line per pretouch task): the heap is reserved PROT_NONE and committed
 * read-write as one mapping; each pretouch task runs on up to
 * min(chunks, ParallelGCThreads) worker threads that claim fixed-size
 * chunks from one shared cursor in ascending order and touch every page of
 * a chunk in ascending order.  Before them, with AlwaysPreTouch, the main
 * thread alone pretouches the memory the JVM commits at start-up: the
 * calling thread plays that part, so that the workers' threads fault the
 * heap and tables alone, as the GC threads do.  G1 then pretouches each
 * of its auxiliary tables (mark bitmaps, block offset table, card table,
 * card counts) as a task of its own, each a mapping of its own; Parallel
 * pretouches its spaces (eden, the two survivors, old) one task after the
 * other.  A task starts when the previous one is complete.  The workers
 * are created on demand, so their creation counts in the pretouch time,
 * and they persist from one task to the next.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#define MIB (1ULL << 20)
/* Fast modes populate a slice in pieces, to notice a cancel in between. */
#define POPULATE_PIECE (256 * MIB)
/* A worker waiting for a task to open looks for a cancel this often. */
#define WAIT_POLL_NS (10 * 1000 * 1000LL)

/* The pattern's state (fg_pattern_state): what the workers share. */
struct pt_state {
	_Atomic uint64_t cursor; /* the next chunk's offset */
};

struct pt_task {
	uint64_t off; /* from run->base */
	uint64_t len;
	unsigned int workers; /* 0: the calling thread's (caller_tasks) */
};

struct pt_plan {
	unsigned int nr;
	struct pt_task t[FG_JVM_MAX_RANGES];
	uint64_t bytes; /* all tasks */
	uint64_t span;  /* of the memory from run->base, guard pages included */
};

static uint64_t chunks_of(uint64_t len, uint64_t chunk)
{
	return (len + chunk - 1) / chunk;
}

/*
 * Claims the next chunk of [start, end) from the shared cursor: chunks
 * start at start + k * chunk and are handed out in ascending order, each
 * once.  Tasks run one after the other at ascending offsets, so the
 * cursor left past one task's end is simply moved to the next one's start.
 * A compare-and-swap, as recent HotSpot, so the cursor never overshoots.
 */
FG_TESTABLE bool fg_pretouch_claim(_Atomic uint64_t *cursor, uint64_t start,
				   uint64_t end, uint64_t chunk,
				   uint64_t *off, uint64_t *len)
{
	uint64_t cur = atomic_load_explicit(cursor, memory_order_relaxed);
	uint64_t from, to;

	do {
		from = cur < start ? start : cur;
		if (from >= end)
			return false;
		to = end - from > chunk ? from + chunk : end;
	} while (!atomic_compare_exchange_weak_explicit(
		cursor, &cur, to, memory_order_relaxed, memory_order_relaxed));
	*off = from;
	*len = to - from;
	return true;
}

/* The heap (or the caller's region) in bytes, as the plan sizes it. */
static uint64_t heap_bytes(const struct faultgen_run *run)
{
	const struct faultgen_attr *a = &run->attr;

	if (a->region)
		return a->region_len;
	return fg_jvm_heap_bytes(a->gc, a->size, (uint64_t)run->pagesize);
}

/*
 * Offsets are from run->base, the start of the first range.  Each range
 * of the library's own starts 2 MiB-aligned (so that huge pages can back
 * it whole) after at least one PROT_NONE page, and one more follows the
 * last (fg_reserve): the ranges stay distinct mappings, as the JVM's are,
 * and never merge with a neighbour (a thread stack, say) that happens to
 * have the same flags.  Parallel's spaces are the exception: they follow
 * each other, one mapping, as in the JVM's heap.
 */
static void plan_build(const struct faultgen_run *run, unsigned int workers,
		       struct pt_plan *p)
{
	const struct faultgen_attr *a = &run->attr;
	uint64_t lens[FG_JVM_MAX_RANGES], page = (uint64_t)run->pagesize;
	uint64_t at = 0;
	unsigned int serial = a->region ? 0 : fg_jvm_serial_ranges(a->gc);
	bool adjoin = !a->region && fg_jvm_spaces_adjoin(a->gc);

	memset(p, 0, sizeof(*p));
	if (a->region) {
		lens[0] = a->region_len;
		p->nr = 1;
	} else {
		p->nr = fg_jvm_ranges(a->jdk, a->gc, a->size, page, lens,
				      FG_JVM_MAX_RANGES);
	}
	for (unsigned int i = 0; i < p->nr; i++) {
		uint64_t c = chunks_of(lens[i], a->chunk);

		if (i && !(adjoin && i > serial))
			at = fg_round_up(at + page, FG_HPAGE_SIZE);
		p->t[i].off = at;
		p->t[i].len = lens[i];
		p->t[i].workers = i < serial ? 0 :
				  c < workers ? (unsigned int)c : workers;
		at += lens[i];
		p->bytes += lens[i];
	}
	p->span = at;
}

/* As HotSpot: min(chunks of the heap, ParallelGCThreads). */
static unsigned int pretouch_default_workers(const struct faultgen_run *run)
{
	uint64_t chunks = chunks_of(heap_bytes(run), run->attr.chunk);
	unsigned int n = fg_jvm_gc_threads(run->cpus.count);

	return chunks < n ? (unsigned int)chunks : n;
}

/*
 * The THP advice of a range: the fast mode is the fastest way to 4 KiB
 * pages, so memory of the library's own is kept from huge pages even
 * where THP is "always", unless asked for.
 */
static enum faultgen_thp range_thp(const struct faultgen_attr *a, bool owned)
{
	if (a->thp == FAULTGEN_THP_HUGEPAGE ||
	    a->pretouch_touch == FAULTGEN_PRETOUCH_FAST_HUGE)
		return FAULTGEN_THP_HUGEPAGE;
	if (a->thp == FAULTGEN_THP_NOHUGEPAGE ||
	    (a->thp == FAULTGEN_THP_DEFAULT &&
	     a->pretouch_touch == FAULTGEN_PRETOUCH_FAST && owned))
		return FAULTGEN_THP_NOHUGEPAGE;
	return FAULTGEN_THP_DEFAULT;
}

/*
 * Reserve the whole span PROT_NONE and NORESERVE, the first range
 * 2 MiB-aligned, then commit each range read-write over it with MAP_FIXED,
 * as HotSpot commits its heap and tables.  The guard pages and gaps stay
 * reserved: releasing the reservation releases everything.
 */
static int map_plan(struct faultgen_run *run, const struct pt_plan *p)
{
	enum faultgen_thp thp = range_thp(&run->attr, true);
	int ret;

	ret = fg_reserve((size_t)p->span, FG_HPAGE_SIZE, &run->resv,
			 &run->base);
	if (ret)
		return ret;
	run->base_len = (size_t)p->span;
	run->base_owned = true;
	for (unsigned int i = 0; i < p->nr; i++) {
		char *at = run->base + p->t[i].off;

		if (mmap(at, p->t[i].len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, -1,
			 0) == MAP_FAILED)
			return -errno;
		ret = fg_advise(run, at, p->t[i].len, thp);
		if (ret)
			return ret;
	}
	return 0;
}

static int use_region(struct faultgen_run *run, const struct pt_plan *p)
{
	run->base = run->attr.region;
	run->base_len = run->attr.region_len;
	run->base_owned = false;
	return fg_advise(run, run->base, p->t[0].len,
			 range_thp(&run->attr, false));
}

/* JDK 17: a plain byte store at the start of each page. */
FG_NO_ASAN static void touch_store(char *addr, size_t len, size_t ps)
{
	for (size_t o = 0; o < len; o += ps)
		*(volatile char *)(addr + o) = 0;
}

/* JDK 19+: a relaxed atomic add of 0 to the first int of each page. */
FG_NO_ASAN static void touch_atomic_add(char *addr, size_t len, size_t ps)
{
	for (size_t o = 0; o < len; o += ps)
		atomic_fetch_add_explicit((_Atomic int *)(void *)(addr + o), 0,
					  memory_order_relaxed);
}

/* One MADV_POPULATE_WRITE; a kernel without it (EINVAL) gets the
 * atomic add, as HotSpot falls back. */
static int populate(char *addr, size_t len, size_t ps)
{
	if (madvise(addr, len, MADV_POPULATE_WRITE) == 0)
		return 0;
	if (errno != EINVAL)
		return -errno;
	touch_atomic_add(addr, len, ps);
	return 0;
}

static int touch_chunk(const struct faultgen_run *run, char *addr, size_t len)
{
	size_t ps = (size_t)run->pagesize;

	switch (run->attr.pretouch_touch) {
	case FAULTGEN_PRETOUCH_STORE:
		touch_store(addr, len, ps);
		return 0;
	case FAULTGEN_PRETOUCH_POPULATE:
		return populate(addr, len, ps);
	default:
		touch_atomic_add(addr, len, ps);
		return 0;
	}
}

/*
 * With latency (latency.c), worker i's touches: of the page loops (store,
 * atomic add) one page in N is timed, counted across the worker's chunks
 * by *left; a populate is made and timed per piece of TIMED_PIECE at
 * most, as fault.c's per-call touches are.  Apart from the untimed
 * touches, which stay as they were.
 */
#define TIMED_PIECE FG_HPAGE_SIZE

FG_NO_ASAN static void timed_pages(struct faultgen_run *run, unsigned int i,
				   char *addr, size_t len, unsigned int *left)
{
	bool store = run->attr.pretouch_touch == FAULTGEN_PRETOUCH_STORE;
	unsigned int every = run->attr.latency;
	size_t ps = (size_t)run->pagesize;

	for (size_t o = 0; o < len; o += ps) {
		int64_t t0;

		if (--*left) {
			if (store)
				touch_store(addr + o, ps, ps);
			else
				touch_atomic_add(addr + o, ps, ps);
			continue;
		}
		t0 = fg_now_ns();
		if (store)
			touch_store(addr + o, ps, ps);
		else
			touch_atomic_add(addr + o, ps, ps);
		fg_lat_add(run, i, (uint64_t)(fg_now_ns() - t0));
		*left = every;
	}
}

static int timed_populate(struct faultgen_run *run, unsigned int i,
			  char *addr, size_t len)
{
	size_t ps = (size_t)run->pagesize;

	for (size_t o = 0; o < len; o += TIMED_PIECE) {
		size_t n = len - o < TIMED_PIECE ? len - o : TIMED_PIECE;
		int64_t t0 = fg_now_ns();
		int ret = populate(addr + o, n, ps);

		if (ret)
			return ret;
		fg_lat_add(run, i, (uint64_t)(fg_now_ns() - t0));
	}
	return 0;
}

static int timed_chunk(struct faultgen_run *run, unsigned int i, char *addr,
		       size_t len, unsigned int *left)
{
	if (run->attr.pretouch_touch == FAULTGEN_PRETOUCH_POPULATE)
		return timed_populate(run, i, addr, len);
	timed_pages(run, i, addr, len, left);
	return 0;
}

/* The JVM's task: claim chunks from the shared cursor until none is left. */
static int run_chunks(struct faultgen_run *run, const struct pt_task *t,
		      unsigned int i, unsigned int *left)
{
	struct fg_shared *sh = run->sh;
	struct fg_wstat *w = &sh->w[i];
	struct pt_state *st = fg_pattern_state(run);
	uint64_t off, len;
	int ret;

	while (fg_pretouch_claim(&st->cursor, t->off, t->off + t->len,
				 run->attr.chunk, &off, &len)) {
		if (fg_cancel_requested(sh))
			return -ECANCELED;
		if (run->lat)
			ret = timed_chunk(run, i, run->base + off, (size_t)len,
					  left);
		else
			ret = touch_chunk(run, run->base + off, (size_t)len);
		if (ret)
			return ret;
		w->pages += len / (uint64_t)run->pagesize;
	}
	return 0;
}

/* Where slice i of the task starts: len * i / workers without overflow. */
static uint64_t slice_start(const struct pt_task *t, unsigned int i)
{
	uint64_t q = t->len / t->workers, r = t->len % t->workers;

	return q * i + r * i / t->workers;
}

/*
 * Beyond the JVM: worker i populates its own contiguous slice of the task
 * (2 MiB-aligned with huge pages, so that no huge page straddles two).
 */
static int run_slice(struct faultgen_run *run, const struct pt_task *t,
		     unsigned int i)
{
	struct fg_wstat *w = &run->sh->w[i];
	uint64_t align = (uint64_t)run->pagesize, from, to;
	uintptr_t start = (uintptr_t)(run->base + t->off);
	size_t ps = (size_t)run->pagesize;
	int ret;

	if (run->attr.pretouch_touch == FAULTGEN_PRETOUCH_FAST_HUGE)
		align = FG_HPAGE_SIZE;
	from = i ? fg_round_down(start + slice_start(t, i), align) : start;
	to = i + 1 < t->workers ?
		     fg_round_down(start + slice_start(t, i + 1), align) :
		     start + t->len;
	if (from < start)
		from = start;
	if (to < from)
		to = from;
	for (uint64_t at = from; at < to; at += POPULATE_PIECE) {
		size_t n = to - at < POPULATE_PIECE ? to - at : POPULATE_PIECE;

		if (fg_cancel_requested(run->sh))
			return -ECANCELED;
		if (run->lat)
			ret = timed_populate(run, i, (char *)at, n);
		else
			ret = populate((char *)at, n, ps);
		if (ret)
			return ret;
		w->pages += n / ps;
	}
	return 0;
}

/*
 * Pretouch has neither a start barrier nor measured rounds, so the
 * measure gate's arrival word is free: it counts the workers that have
 * finished a task.  Task k opens when every worker of tasks 0..k-1 is
 * done, as the JVM runs one task after the other.
 */
static int wait_open(struct fg_shared *sh, uint32_t need)
{
	_Atomic uint32_t *word = &sh->measure.ready;
	uint32_t seen;

	while ((seen = atomic_load(word)) < need) {
		if (fg_cancel_requested(sh))
			return -ECANCELED;
		fg_futex_wait(word, seen, WAIT_POLL_NS);
	}
	return 0;
}

static void task_done(struct fg_shared *sh, uint32_t all_done)
{
	if (atomic_fetch_add(&sh->measure.ready, 1) + 1 == all_done)
		fg_futex_wake(&sh->measure.ready);
}

static int pretouch_body(struct faultgen_run *run, unsigned int i)
{
	bool fast = run->attr.pretouch_touch == FAULTGEN_PRETOUCH_FAST ||
		    run->attr.pretouch_touch == FAULTGEN_PRETOUCH_FAST_HUGE;
	struct fg_wstat *w = &run->sh->w[i];
	unsigned int left = 1; /* the timed page loop's: the first is timed */
	uint32_t before = 0;
	struct fg_usage at;
	struct pt_plan p;
	int ret = 0;

	plan_build(run, run->attr.nr_workers, &p);
	if (run->lat)
		fg_lat_begin(run, i, false);
	fg_stat_begin(w, &at, false);
	for (unsigned int k = 0; k < p.nr && !ret; k++) {
		const struct pt_task *t = &p.t[k];

		if (i < t->workers) {
			ret = wait_open(run->sh, before);
			if (!ret)
				ret = fast ? run_slice(run, t, i) :
					     run_chunks(run, t, i, &left);
			/* Even on failure: the others must not wait. */
			task_done(run->sh, before + t->workers);
		}
		before += t->workers;
	}
	fg_stat_end(w, &at, false);
	if (run->lat)
		fg_lat_end(run, i, false);
	w->fault_ns = w->end_ns - w->start_ns;
	w->rounds = ret ? 0 : 1;
	return ret;
}

static void fold(struct faultgen_run *run, const struct pt_plan *p,
		 const struct fg_wstat *cw, int64_t t0)
{
	struct faultgen_result *r = &run->result;
	int64_t end = t0;

	fg_measure_fold(run);
	fg_measure_add_caller(run, cw);
	for (unsigned int i = 0; i < run->attr.nr_workers; i++)
		if (run->sh->w[i].end_ns > end)
			end = run->sh->w[i].end_ns;
	/* As HotSpot times it: from before the workers exist. */
	r->elapsed_s = (double)(end - t0) / 1e9;
	r->bytes = p->bytes;
	r->pages_per_round = p->bytes / (uint64_t)run->pagesize;
	r->rounds = 1;
	fg_measure_rates(r);
}

/*
 * The tasks of no worker (the start-up memory), touched by the calling
 * thread before the workers exist, as the JVM's main thread does, and
 * counted in *cw.
 */
static int caller_tasks(struct faultgen_run *run, const struct pt_plan *p,
			struct fg_wstat *cw)
{
	bool fast = run->attr.pretouch_touch == FAULTGEN_PRETOUCH_FAST ||
		    run->attr.pretouch_touch == FAULTGEN_PRETOUCH_FAST_HUGE;
	size_t ps = (size_t)run->pagesize;
	struct fg_usage at;
	int ret = 0;

	memset(cw, 0, sizeof(*cw));
	fg_stat_begin(cw, &at, false);
	for (unsigned int k = 0; k < p->nr && !ret; k++) {
		char *addr = run->base + p->t[k].off;
		size_t len = (size_t)p->t[k].len;

		if (p->t[k].workers)
			continue;
		if (fg_cancel_requested(run->sh))
			ret = -ECANCELED;
		else if (fast)
			ret = populate(addr, len, ps);
		else
			ret = touch_chunk(run, addr, len);
		if (!ret)
			cw->pages += len / ps;
	}
	fg_stat_end(cw, &at, false);
	return ret;
}

static const struct fg_work pretouch_work = { .body = pretouch_body };

static int pretouch_exec(struct faultgen_run *run)
{
	struct faultgen_attr *a = &run->attr;
	struct fg_wstat cw;
	struct pt_plan p;
	uint64_t most = 0;
	int64_t t0;
	int ret;

	plan_build(run, a->nr_workers, &p);
	/* As the JVM creates them on demand: never more than one worker per
	 * chunk of the largest task. */
	for (unsigned int k = 0; k < p.nr; k++)
		if (p.t[k].workers > most)
			most = p.t[k].workers;
	a->nr_workers = most ? (unsigned int)most : 1;
	ret = a->region ? use_region(run, &p) : map_plan(run, &p);
	if (ret)
		return ret;
	atomic_store(&((struct pt_state *)fg_pattern_state(run))->cursor, 0);
	atomic_store(&run->sh->measure.ready, 0);
	/* The start-up memory (the first tasks) is faulted on the run's CPUs
	 * as the rest is; pinned, on worker 0's CPU, before any worker. */
	if (!p.t[0].workers)
		ret = fg_caller_place(
			run, a->pin ? fg_cpu_for_worker(&run->cpus, 0) : -1);
	t0 = fg_now_ns();
	if (!ret)
		ret = caller_tasks(run, &p, &cw);
	fg_caller_restore(run);
	if (!ret)
		ret = fg_workers_run(run, &pretouch_work);
	if (ret)
		return ret;
	fold(run, &p, &cw, t0);
	return 0;
}

/*
 * The JVM's heap is private anonymous memory, pretouched once by threads;
 * the tables are the library's own mappings, which a caller's region
 * cannot hold.
 */
static int pretouch_check(const struct faultgen_attr *a,
			  struct faultgen_conflict *c)
{
	if (a->region && a->gc != FAULTGEN_GC_NONE)
		return fg_conflict(c, FAULTGEN_SETTING_REGION,
				   FAULTGEN_SETTING_JVM,
				   "the GC tables are mappings of the library's "
				   "own, which a caller's region cannot hold");
	return 0;
}

static void pretouch_release(struct faultgen_run *run)
{
	fg_resv_release(&run->resv);
	run->base = NULL;
	run->base_owned = false;
}

/* The JVM's pretouch may run more workers than CPUs. */
/* The JVM's populate per chunk, and the fast modes' per slice, are cut
 * into calls of 2 MiB at most (timed_chunk). */
static const char *pretouch_timed_call(const struct faultgen_run *run,
				       uint64_t *bytes)
{
	*bytes = FG_LAT_CALL_BYTES;
	switch (run->attr.pretouch_touch) {
	case FAULTGEN_PRETOUCH_POPULATE:
	case FAULTGEN_PRETOUCH_FAST:
	case FAULTGEN_PRETOUCH_FAST_HUGE:
		return "MADV_POPULATE_WRITE";
	default:
		return NULL;
	}
}

static const char *const pretouches[] = {
	"store", "atomic-add", "populate", "fast", "fast-huge", NULL,
};
static const char *const gcs[] = { "none", "g1", "parallel", NULL };

static const struct fg_setting pretouch_settings[] = {
	{ .name = "pretouch", .id = FAULTGEN_SETTING_PRETOUCH_TOUCH,
	  .type = FAULTGEN_TYPE_KEYWORD, .keywords = pretouches,
	  .offset = FG_AT(pretouch_touch),
	  .def = { .e = FAULTGEN_PRETOUCH_ATOMIC_ADD },
	  .def_text = "atomic-add", .value_name = "HOW",
	  .help = "store (JDK 17), atomic-add (default, JDK 19+),\n"
		  "populate (JDK 21u+), fast, fast-huge" },
	{ .name = "chunk-size", .id = FAULTGEN_SETTING_CHUNK_SIZE,
	  .type = FAULTGEN_TYPE_SIZE, .offset = FG_AT(chunk), .min = 1,
	  .max = FAULTGEN_MAX_CHUNK,
	  .flags = FAULTGEN_SETTING_PAGES | FAULTGEN_SETTING_GIVEN,
	  .def = { .u64 = FG_DEFAULT_CHUNK }, .def_text = "4M",
	  .value_name = "SIZE",
	  .help = "pages claimed at a time (default 4M)" },
	{ .name = "jdk", .id = FAULTGEN_SETTING_JVM,
	  .type = FAULTGEN_TYPE_UINT, .offset = FG_AT(jdk),
	  .min = FAULTGEN_MIN_JDK, .max = FAULTGEN_MAX_JDK,
	  .def = { .u = 21 }, .def_text = "21", .value_name = "N",
	  .help = "JDK feature release to model (default 21)" },
	{ .name = "gc", .id = FAULTGEN_SETTING_JVM,
	  .type = FAULTGEN_TYPE_KEYWORD, .keywords = gcs, .offset = FG_AT(gc),
	  .def_text = "none", .value_name = "GC",
	  .help = "none (default: the heap only), g1, parallel" },
};

const struct fg_pattern fg_pretouch_pattern = {
	.name = "pretouch",
	.title = "JVM heap pretouch",
	.note = "-t: the JVM's count by default",
	.timed_call = pretouch_timed_call,
	.caps = {
		.processes_why = "pretouch runs threads, as the JVM does",
		.repeat_why = "pretouch runs once",
		.backings = FG_BACKING(FAULTGEN_BACKING_ANON),
		.backings_why = "a JVM heap is private anonymous memory",
		.share_why = "a JVM heap is private anonymous memory",
		.numa_why = "pretouch workers claim chunks as they go, they "
			    "own no slice to bind",
		.node_pages_why = "pretouch workers own no slice to count",
	},
	.settings = pretouch_settings,
	.nr_settings = sizeof(pretouch_settings) /
		       sizeof(pretouch_settings[0]),
	.reads = (FG_READS_COMMON | FG_SETTING(FAULTGEN_SETTING_THP) |
		  FG_SETTING(FAULTGEN_SETTING_LATENCY)),
	.state_size = sizeof(struct pt_state),
	.check = pretouch_check,
	.default_workers = pretouch_default_workers,
	.exec = pretouch_exec,
	.release = pretouch_release,
	.unbound_workers = true,
};
