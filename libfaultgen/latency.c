// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * latency.c - the latency of each fault (faultgen_attr_set_latency): a
 * worker times the touches of its loop into a log-linear histogram of its
 * own, and notes what the scheduler did to it meanwhile; the histograms
 * are merged when the run's figures are folded.
 *
 * The histogram (HDR-style): values below 2 * FG_HIST_SUB units are
 * counted exactly; above, each power of two is cut into FG_HIST_SUB
 * buckets, so a bucket is never wider than 1/FG_HIST_SUB of its lower
 * bound (1/64: 1.6%).  Its memory is fixed (FG_HIST_BUCKETS counters)
 * and mapped before the run, faulted by the worker before its loop:
 * the loop allocates nothing and takes no fault of its own.
 *
 * The clock: CLOCK_MONOTONIC, through the vDSO (~35 ns a reading where
 * a fault takes microseconds; tests/bench/latency-2026-12-02.md).  The
 * TSC is cheaper (~15 ns) but needs calibrating, and where the kernel
 * does not trust it as a clocksource (guests on kvm-clock) it cannot be
 * checked: nanoseconds everywhere, so that histograms of any workers and
 * runs merge bucket by bucket.
 *
 * The timed loops run in forked workers too: system calls and stores
 * only (async-signal-safe).
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

/* A touch the kernel does in one system call (mlock, populate) or the C
 * library in one call (memset) is timed per piece of this size. */

/* ---- the histogram --------------------------------------------------- */

FG_TESTABLE unsigned int fg_hist_index(uint64_t v)
{
	unsigned int msb, shift;

	if (v < 2 * FG_HIST_SUB)
		return (unsigned int)v;
	msb = 63u - (unsigned int)__builtin_clzll(v);
	shift = msb - FG_HIST_SUB_BITS;
	return 2 * FG_HIST_SUB + (shift - 1) * FG_HIST_SUB +
	       (unsigned int)((v >> shift) - FG_HIST_SUB);
}

/* The lowest value of bucket idx, and its width. */
FG_TESTABLE uint64_t fg_hist_lo(unsigned int idx, uint64_t *width)
{
	unsigned int k, shift;

	if (idx < 2 * FG_HIST_SUB) {
		*width = 1;
		return idx;
	}
	k = idx - 2 * FG_HIST_SUB;
	shift = k / FG_HIST_SUB + 1;
	*width = 1ULL << shift;
	return ((uint64_t)FG_HIST_SUB + k % FG_HIST_SUB) << shift;
}

static inline void hist_add(struct fg_hist *h, uint64_t v)
{
	h->count++;
	h->sum += v;
	if (v > h->max)
		h->max = v;
	if (v < h->min)
		h->min = v;
	if (v >= FG_HIST_TOP)
		h->overflow++;
	else
		h->b[fg_hist_index(v)]++;
}

FG_TESTABLE void fg_hist_init(struct fg_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

FG_TESTABLE void fg_hist_record(struct fg_hist *h, uint64_t v)
{
	hist_add(h, v);
}

FG_TESTABLE void fg_hist_merge(struct fg_hist *dst, const struct fg_hist *src)
{
	if (!src->count)
		return;
	dst->count += src->count;
	dst->overflow += src->overflow;
	dst->sum += src->sum;
	if (src->max > dst->max)
		dst->max = src->max;
	if (src->min < dst->min)
		dst->min = src->min;
	for (unsigned int i = 0; i < FG_HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
}

/*
 * The value of rank ceil(q * count) (nearest rank, 1-based), as the
 * highest value its bucket holds, within [min, max]: never below the true
 * value, above it by less than 1/FG_HIST_SUB of it.  A rank among the
 * values beyond the top is the maximum.  0 when empty.
 */
FG_TESTABLE uint64_t fg_hist_value_at(const struct fg_hist *h, double q)
{
	uint64_t rank, seen = 0, width;

	if (!h->count)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	rank = (uint64_t)(q * (double)h->count);
	if ((double)rank < q * (double)h->count)
		rank++;
	if (!rank)
		rank = 1;
	for (unsigned int i = 0; i < FG_HIST_BUCKETS; i++) {
		uint64_t hi;

		seen += h->b[i];
		if (seen < rank)
			continue;
		hi = fg_hist_lo(i, &width) + width - 1;
		if (hi > h->max)
			hi = h->max;
		if (hi < h->min)
			hi = h->min;
		return hi;
	}
	return h->max;
}

/* ---- the clock ------------------------------------------------------- */

static inline uint64_t lat_now(void)
{
	return (uint64_t)fg_now_ns();
}

/* ---- a run's latency state ------------------------------------------- */

/* Before the workers exist: their histograms, in shared memory. */
int fg_lat_prepare(struct faultgen_run *run)
{
	size_t len = (size_t)run->attr.nr_workers * sizeof(*run->lat);
	void *p;
	int ret;

	if (!run->attr.latency)
		return 0;
	/* NORESERVE: each worker faults its own histogram, before its
	 * loop. */
	ret = fg_map_figures(run, len, true, &p);
	if (ret)
		return ret;
	run->lat = p;
	run->lat_len = len;
	run->lat_total = malloc(sizeof(*run->lat_total));
	if (!run->lat_total)
		return -ENOMEM;
	fg_hist_init(&run->lat_total->h);
	return 0;
}

void fg_lat_release(struct faultgen_run *run)
{
	if (run->lat)
		munmap(run->lat, run->lat_len);
	run->lat = NULL;
	free(run->lat_total);
	run->lat_total = NULL;
}

/* schedstat's second field: nanoseconds spent waiting on a run queue.
 * -1 when the kernel has no schedstat (CONFIG_SCHED_INFO). */
static int64_t run_delay_ns(void)
{
	char buf[128], *p = buf;
	uint64_t v = 0;

	if (fg_read_file("/proc/thread-self/schedstat", buf, sizeof(buf)) < 0)
		return -1;
	while (*p && *p != ' ')
		p++;
	if (*p++ != ' ' || *p < '0' || *p > '9')
		return -1;
	while (*p >= '0' && *p <= '9')
		v = v * 10 + (uint64_t)(*p++ - '0');
	return (int64_t)v;
}

static void sched_now(bool process, uint64_t *nvcsw, uint64_t *nivcsw,
		      int64_t *delay)
{
	struct rusage ru;

	getrusage(process ? RUSAGE_SELF : RUSAGE_THREAD, &ru);
	*nvcsw = (uint64_t)ru.ru_nvcsw;
	*nivcsw = (uint64_t)ru.ru_nivcsw;
	*delay = run_delay_ns();
}

/*
 * Right before a measured loop, outside it: the histogram is written
 * through (so its pages are faulted now, not in the loop), the
 * scheduler's counts read.
 */
void fg_wlat_begin(struct fg_wlat *l, bool process)
{
	fg_hist_init(&l->h);
	sched_now(process, &l->nvcsw, &l->nivcsw, &l->run_delay_ns);
}

/* Right after it: what the scheduler did meanwhile. */
void fg_wlat_end(struct fg_wlat *l, bool process)
{
	uint64_t nvcsw, nivcsw;
	int64_t delay;

	sched_now(process, &nvcsw, &nivcsw, &delay);
	l->nvcsw = nvcsw - l->nvcsw;
	l->nivcsw = nivcsw - l->nivcsw;
	l->run_delay_ns = delay >= 0 && l->run_delay_ns >= 0 ?
				  delay - l->run_delay_ns :
				  -1;
	l->done = true;
}

/* Worker i's measured loop begins, or ends. */
void fg_lat_begin(struct faultgen_run *run, unsigned int i, bool process)
{
	fg_wlat_begin(&run->lat[i], process);
}

void fg_lat_end(struct faultgen_run *run, unsigned int i, bool process)
{
	fg_wlat_end(&run->lat[i], process);
}

/* ---- the timed touches ----------------------------------------------- */

/*
 * fault.c's write and read loops, with one touch in every `every` timed:
 * the first page of the call, then every every-th.  Kept apart from the
 * untimed loops so that those stay as they are.  *left carries the count
 * from one call to the next (interleave.c's blocks); without sh the
 * caller looks for a cancel itself.
 */
FG_NO_ASAN static int timed_write(const struct faultgen_run *run, char *addr,
				  size_t len, const struct fg_shared *sh,
				  struct fg_hist *h, unsigned char value,
				  unsigned int *left)
{
	size_t ps = (size_t)run->pagesize, cl = run->cacheline;
	unsigned int lines = run->attr.cachelines;
	unsigned int every = run->attr.latency;
	size_t pages = len / ps;

	for (size_t pg = 0; pg < pages; pg++) {
		volatile unsigned char *p =
			(volatile unsigned char *)addr + pg * ps;

		if (--*left == 0) {
			uint64_t t0 = lat_now(), t1;

			for (unsigned int c = 0; c < lines; c++)
				p[c * cl] = value;
			t1 = lat_now();
			hist_add(h, t1 - t0);
			*left = every;
		} else {
			for (unsigned int c = 0; c < lines; c++)
				p[c * cl] = value;
		}
		if (sh && fg_cancel_at(sh, pg))
			return -ECANCELED;
	}
	return 0;
}

FG_NO_ASAN static int timed_read(const struct faultgen_run *run, char *addr,
				 size_t len, const struct fg_shared *sh,
				 struct fg_hist *h, unsigned int *left)
{
	size_t ps = (size_t)run->pagesize, pages = len / ps;
	unsigned int every = run->attr.latency;
	unsigned int sum = 0;

	for (size_t pg = 0; pg < pages; pg++) {
		if (--*left == 0) {
			uint64_t t0 = lat_now(), t1;

			sum += *(volatile char *)(addr + pg * ps);
			t1 = lat_now();
			hist_add(h, t1 - t0);
			*left = every;
		} else {
			sum += *(volatile char *)(addr + pg * ps);
		}
		if (sh && fg_cancel_at(sh, pg))
			return -ECANCELED;
	}
	(void)sum;
	return 0;
}

/*
 * The touches done in one call (memset, mlock, MADV_POPULATE_WRITE):
 * the call is made per piece of FG_LAT_CALL_BYTES bytes and each call is
 * timed, whatever `every` (there are few of them).  A value is then a
 * call's latency over up to 512 pages, not one fault's: the result says
 * so (per_call).
 */
static int timed_calls(const struct faultgen_run *run, char *addr,
		       size_t len, const struct fg_shared *sh,
		       struct fg_hist *h, fg_touch_fn *touch)
{
	int ret = 0;

	for (size_t off = 0; off < len && !ret; off += FG_LAT_CALL_BYTES) {
		size_t n = len - off < FG_LAT_CALL_BYTES ? len - off :
							 FG_LAT_CALL_BYTES;
		uint64_t t0 = lat_now(), t1;

		ret = touch(run, addr + off, n, sh);
		t1 = lat_now();
		if (!ret)
			hist_add(h, t1 - t0);
		if (!ret && fg_cancel_requested(sh))
			ret = -ECANCELED;
	}
	return ret;
}

/* What each value of a run times: the pattern says (timed_call); by
 * default, page touches. */
static const char *lat_call(const struct faultgen_run *run, uint64_t *bytes)
{
	const char *call = run->ops->timed_call ?
				   run->ops->timed_call(run, bytes) :
				   NULL;

	if (!call)
		*bytes = 0;
	return call;
}

/* A value of worker i, timed by a pattern's own loop (pretouch.c,
 * collapse.c).  Async-signal-safe. */
void fg_lat_add(struct faultgen_run *run, unsigned int i, uint64_t ns)
{
	hist_add(&run->lat[i].h, ns);
}

/*
 * The touch of worker i, timed into its histogram: the page loops here,
 * the calls through `touch` (the pattern's untimed touch, fg_touch).
 * Async-signal-safe.
 */
int fg_lat_touch(struct faultgen_run *run, unsigned int i, char *addr,
		 size_t len, const struct fg_shared *sh, fg_touch_fn *touch)
{
	unsigned int left = 1;

	return fg_lat_touch_piece(run, i, addr, len, sh, touch, &left);
}

/* The same over one piece of a range touched in pieces (fault.c, with
 * lock waits): *left carries the count from one piece to the next, as
 * interleave.c's blocks do (1 before the first piece). */
int fg_lat_touch_piece(struct faultgen_run *run, unsigned int i, char *addr,
		       size_t len, const struct fg_shared *sh,
		       fg_touch_fn *touch, unsigned int *left)
{
	struct fg_hist *h = &run->lat[i].h;

	if (!len)
		return 0;
	switch (run->attr.touch) {
	case FAULTGEN_TOUCH_WRITE:
		return timed_write(run, addr, len, sh, h, 1, left);
	case FAULTGEN_TOUCH_READ:
		return timed_read(run, addr, len, sh, h, left);
	default:
		return timed_calls(run, addr, len, sh, h, touch);
	}
}

/*
 * One block of an interleaved layout (interleave.c), written with the
 * worker's stamp or read: one touch in `every` of the worker's pages is
 * timed, counted across its blocks by *left (1 before the first block).
 * The caller looks for a cancel between blocks.  Async-signal-safe.
 */
void fg_lat_block(struct faultgen_run *run, unsigned int i, char *addr,
		  size_t len, unsigned char stamp, unsigned int *left)
{
	struct fg_hist *h = &run->lat[i].h;

	if (run->attr.touch == FAULTGEN_TOUCH_WRITE)
		timed_write(run, addr, len, NULL, h, stamp, left);
	else
		timed_read(run, addr, len, NULL, h, left);
}

/* ---- folding and reading --------------------------------------------- */

/* Merges the workers' histograms and scheduler figures. */
void fg_lat_fold(struct faultgen_run *run)
{
	struct fg_wlat *t = run->lat_total;

	if (!run->lat || !t)
		return;
	fg_hist_init(&t->h);
	t->nvcsw = t->nivcsw = 0;
	t->run_delay_ns = 0;
	for (unsigned int i = 0; i < run->attr.nr_workers; i++)
		fg_wlat_merge(t, &run->lat[i]);
	t->done = true;
}

/* One loop's histogram and scheduler figures into t (a loop that did
 * not run adds nothing). */
void fg_wlat_merge(struct fg_wlat *t, const struct fg_wlat *l)
{
	if (!l->done)
		return;
	fg_hist_merge(&t->h, &l->h);
	t->nvcsw += l->nvcsw;
	t->nivcsw += l->nivcsw;
	if (l->run_delay_ns < 0 || t->run_delay_ns < 0)
		t->run_delay_ns = -1;
	else
		t->run_delay_ns += l->run_delay_ns;
}

/* Of a measured run (the caller checks: fg_run_measured): worker i's,
 * all workers' (-1) or the writers' (FAULTGEN_LATENCY_WRITERS). */
static const struct fg_wlat *lat_of(const struct faultgen_run *run,
				    int worker, int *err)
{
	*err = 0;
	if (worker == FAULTGEN_LATENCY_WRITERS) {
		if (!run->helper_lat)
			*err = -ENODATA;
		return run->helper_lat;
	}
	if (!run->lat || !run->lat_total || !run->lat_total->done) {
		*err = -ENODATA;
		return NULL;
	}
	if (worker < -1 || worker >= (int)run->attr.nr_workers) {
		*err = -ERANGE;
		return NULL;
	}
	return worker < 0 ? run->lat_total : &run->lat[worker];
}

/*
 * The tail is within the scheduler's delays when the worker was
 * preempted at least as often as it has values above p99, and its wait
 * on a run queue per preemption is at least p99: each value of the tail
 * may then be a preemption rather than a slow fault.
 */
FG_TESTABLE bool fg_lat_tail_sched(uint64_t count, double p99_ns,
				   uint64_t nivcsw, int64_t run_delay_ns)
{
	uint64_t tail = count - (uint64_t)(0.99 * (double)count);

	if (!count || !nivcsw || run_delay_ns < 0)
		return false;
	return nivcsw >= tail &&
	       (double)run_delay_ns / (double)nivcsw >= p99_ns;
}

int fg_run_latency(const struct faultgen_run *run, int worker,
		   struct faultgen_latency *r)
{
	const struct fg_wlat *l;
	const struct fg_hist *h;
	int ret;

	l = lat_of(run, worker, &ret);
	if (!l)
		return ret;
	h = &l->h;
	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	if (worker == FAULTGEN_LATENCY_WRITERS) {
		/* Every call of theirs. */
		r->sample_every = 1;
		r->call = run->helper_call;
		r->call_bytes = run->helper_call_bytes;
	} else {
		r->sample_every = run->attr.latency;
		r->call = lat_call(run, &r->call_bytes);
	}
	r->per_call = r->call != NULL;
	r->clock = "monotonic";
	r->count = h->count;
	r->overflow = h->overflow;
	if (h->count) {
		r->min_ns = (double)h->min;
		r->p50_ns = (double)fg_hist_value_at(h, 0.5);
		r->p90_ns = (double)fg_hist_value_at(h, 0.9);
		r->p99_ns = (double)fg_hist_value_at(h, 0.99);
		r->p999_ns = (double)fg_hist_value_at(h, 0.999);
		r->max_ns = (double)h->max;
		r->mean_ns = (double)h->sum / (double)h->count;
	}
	r->nvcsw = l->nvcsw;
	r->nivcsw = l->nivcsw;
	r->run_delay_s = l->run_delay_ns < 0 ? -1 :
					       (double)l->run_delay_ns / 1e9;
	r->tail_sched = fg_lat_tail_sched(h->count, r->p99_ns, l->nivcsw,
					  l->run_delay_ns);
	return 0;
}

/* The non-empty buckets, lowest first, the values beyond the top last
 * (from the top to the maximum): how many there are. */
int fg_run_latency_buckets(const struct faultgen_run *run, int worker,
			   struct faultgen_latency_bucket *b, size_t max)
{
	const struct fg_wlat *l;
	size_t n = 0;
	uint64_t width;
	int ret;

	l = lat_of(run, worker, &ret);
	if (!l)
		return ret;
	for (unsigned int i = 0; i < FG_HIST_BUCKETS; i++) {
		uint64_t lo;

		if (!l->h.b[i])
			continue;
		lo = fg_hist_lo(i, &width);
		if (n < max) {
			b[n].lo_ns = (double)lo;
			b[n].hi_ns = (double)(lo + width);
			b[n].count = l->h.b[i];
		}
		n++;
	}
	if (l->h.overflow) {
		if (n < max) {
			b[n].lo_ns = (double)FG_HIST_TOP;
			b[n].hi_ns = (double)l->h.max;
			b[n].count = l->h.overflow;
		}
		n++;
	}
	return (int)n;
}
