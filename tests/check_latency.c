// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * check_latency.c - the latency of each fault: the histogram against a
 * sorted-array oracle on synthetic data (percentiles, the relative error
 * bound, merging, the range's overflow), the rule that names the
 * scheduler's share, the setter and the result's errors, and runs whose
 * counts are known: values = touches timed (pages, or one in N), = calls
 * for a touch made in one call, and 2 MiB faults against 4 KiB ones.
 *
 * No assertion is on a time: the runs' assertions are on counts, and on
 * the order of values that differ by orders of magnitude whatever the
 * load (a store to a present page against a fault, see thp_*).
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "check-util.h"

#include <inttypes.h>
#include <math.h>

#include "internal.h"

#define MIB (1ULL << 20)

/* A deterministic generator (xorshift64*), so that a failure repeats. */
static uint64_t rng_state;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

/* Log-uniform from 100 ns to 10 s: every decade the histogram covers. */
static uint64_t log_uniform(void)
{
	double e = 2.0 + 8.0 * (double)(rng() >> 11) / (double)(1ULL << 53);

	return (uint64_t)pow(10.0, e);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The oracle: the value of nearest rank ceil(q * n) of sorted v. */
static uint64_t oracle(const uint64_t *sorted, size_t n, double q)
{
	size_t rank = (size_t)ceil(q * (double)n);

	if (rank < 1)
		rank = 1;
	return sorted[rank - 1];
}

static struct fg_hist *hist_new(void)
{
	struct fg_hist *h = malloc(sizeof(*h));

	ck_assert_ptr_nonnull(h);
	fg_hist_init(h);
	return h;
}

/* Whether v lies in its bucket, and the bucket is no wider than 1/64
 * of its lowest value (or 1). */
static bool bucket_holds(uint64_t v)
{
	unsigned int i = fg_hist_index(v);
	uint64_t width, lo;

	if (i >= FG_HIST_BUCKETS)
		return false;
	lo = fg_hist_lo(i, &width);
	return lo <= v && v < lo + width && (width == 1 || width * 64 <= lo);
}

START_TEST(every_value_falls_in_a_bucket_narrower_than_1_64th_of_it)
{
	uint64_t width, lo, bad = 0, first_bad = 0;

	/* One assertion at the end: Check's are too slow for 300000. */
	rng_state = 0x9e3779b97f4a7c15ULL;
	for (uint64_t v = 0; v < 100000; v++)
		if (!bucket_holds(v) && !bad++)
			first_bad = v;
	for (int k = 0; k < 200000; k++) {
		uint64_t v = rng() % FG_HIST_TOP;

		if (!bucket_holds(v) && !bad++)
			first_bad = v;
	}
	ck_assert_msg(!bad, "%" PRIu64 " values outside their bucket, first %"
		      PRIu64, bad, first_bad);
	/* The last bucket ends at the top, exactly. */
	lo = fg_hist_lo(FG_HIST_BUCKETS - 1, &width);
	ck_assert_uint_eq(lo + width, FG_HIST_TOP);
	ck_assert_uint_eq(fg_hist_index(FG_HIST_TOP - 1), FG_HIST_BUCKETS - 1);
}
END_TEST

/* Three shapes: log-uniform, two modes (4 KiB faults and a few 2 MiB
 * ones), and a narrow one around 1 us. */
static uint64_t synthetic(int shape)
{
	switch (shape) {
	case 0:
		return log_uniform();
	case 1:
		return rng() % 512 ? 800 + rng() % 400 :
				     100000 + rng() % 50000;
	default:
		return 1000 + rng() % 64;
	}
}

START_TEST(percentiles_match_a_sorted_oracle_within_1_64th)
{
	static const double qs[] = { 0.001, 0.25, 0.5, 0.9, 0.99, 0.999, 1.0 };
	size_t n = 100003;
	uint64_t *v = malloc(n * sizeof(*v));
	struct fg_hist *h = hist_new();

	ck_assert_ptr_nonnull(v);
	rng_state = 12345 + (uint64_t)_i;
	for (size_t k = 0; k < n; k++) {
		v[k] = synthetic(_i);
		fg_hist_record(h, v[k]);
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	ck_assert_uint_eq(h->count, n);
	ck_assert_uint_eq(h->min, v[0]);
	ck_assert_uint_eq(h->max, v[n - 1]);
	for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
		uint64_t want = oracle(v, n, qs[k]);
		uint64_t got = fg_hist_value_at(h, qs[k]);

		/* Never below, and above by less than 1/64 of the value. */
		ck_assert_msg(got >= want && (got - want) * 64 < want + 64,
			      "q %g: histogram %" PRIu64 ", oracle %" PRIu64,
			      qs[k], got, want);
	}
	free(v);
	free(h);
}
END_TEST

START_TEST(merged_histograms_equal_the_histogram_of_all_values)
{
	struct fg_hist *all = hist_new(), *merged = hist_new();
	struct fg_hist *part[4];

	for (int p = 0; p < 4; p++)
		part[p] = hist_new();
	rng_state = 777;
	for (int k = 0; k < 40000; k++) {
		/* Uneven parts, one empty: as workers stopped early are. */
		uint64_t v = log_uniform();
		int p = (int)(rng() % 3);

		fg_hist_record(all, v);
		fg_hist_record(part[p], v);
	}
	fg_hist_record(all, FG_HIST_TOP + 5);
	fg_hist_record(part[1], FG_HIST_TOP + 5);
	for (int p = 0; p < 4; p++)
		fg_hist_merge(merged, part[p]);
	ck_assert_uint_eq(merged->count, all->count);
	ck_assert_uint_eq(merged->overflow, 1);
	ck_assert_uint_eq(merged->sum, all->sum);
	ck_assert_uint_eq(merged->min, all->min);
	ck_assert_uint_eq(merged->max, all->max);
	ck_assert_int_eq(memcmp(merged->b, all->b, sizeof(all->b)), 0);
	ck_assert_uint_eq(fg_hist_value_at(merged, 0.99),
			  fg_hist_value_at(all, 0.99));
	for (int p = 0; p < 4; p++)
		free(part[p]);
	free(all);
	free(merged);
}
END_TEST

START_TEST(values_beyond_the_top_are_counted_and_kept_as_the_maximum)
{
	struct fg_hist *h = hist_new();
	uint64_t in = 0;

	for (int k = 0; k < 98; k++)
		fg_hist_record(h, 1000);
	fg_hist_record(h, FG_HIST_TOP);
	fg_hist_record(h, FG_HIST_TOP * 3);
	for (unsigned int i = 0; i < FG_HIST_BUCKETS; i++)
		in += h->b[i];
	ck_assert_uint_eq(h->count, 100);
	ck_assert_uint_eq(h->overflow, 2);
	ck_assert_uint_eq(in, 98);
	ck_assert_uint_eq(h->max, FG_HIST_TOP * 3);
	/* Ranks among the overflow read as the maximum. */
	ck_assert_uint_eq(fg_hist_value_at(h, 0.99), FG_HIST_TOP * 3);
	ck_assert_uint_eq(fg_hist_value_at(h, 1.0), FG_HIST_TOP * 3);
	/* The highest value of 1000's bucket, [1000, 1008). */
	ck_assert_uint_eq(fg_hist_value_at(h, 0.5), 1007);
	free(h);
}
END_TEST

START_TEST(an_empty_histogram_reads_zero)
{
	struct fg_hist *h = hist_new(), *e = hist_new();

	ck_assert_uint_eq(fg_hist_value_at(h, 0.5), 0);
	ck_assert_uint_eq(fg_hist_value_at(h, 1.0), 0);
	fg_hist_record(h, 42);
	fg_hist_merge(h, e); /* merging nothing changes nothing */
	ck_assert_uint_eq(h->count, 1);
	ck_assert_uint_eq(h->min, 42);
	ck_assert_uint_eq(fg_hist_value_at(h, 0.5), 42);
	free(h);
	free(e);
}
END_TEST

START_TEST(the_tail_is_the_schedulers_only_with_enough_long_preemptions)
{
	/* 1000 values: 10 above p99. */
	ck_assert(fg_lat_tail_sched(1000, 50000, 10, 10 * 50000));
	ck_assert(!fg_lat_tail_sched(1000, 50000, 9, 9 * 1000000));
	ck_assert(!fg_lat_tail_sched(1000, 50000, 100, 100 * 49999));
	ck_assert(!fg_lat_tail_sched(1000, 50000, 100, -1));
	ck_assert(!fg_lat_tail_sched(1000, 50000, 0, 0));
	ck_assert(!fg_lat_tail_sched(0, 0, 5, 1000));
}
END_TEST

START_TEST(the_setter_takes_0_to_the_maximum_and_refuses_more)
{
	struct faultgen_attr *a;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_uint_eq(faultgen_attr_get_latency(a), 0);
	ck_assert_int_eq(faultgen_attr_set_latency(a, 16), 0);
	ck_assert_uint_eq(faultgen_attr_get_latency(a), 16);
	ck_assert_int_eq(
		faultgen_attr_set_latency(a, FAULTGEN_MAX_LATENCY_EVERY + 1),
		-EINVAL);
	ck_assert_uint_eq(faultgen_attr_get_latency(a), 16);
	ck_assert_int_eq(
		faultgen_attr_set_latency(a, FAULTGEN_MAX_LATENCY_EVERY), 0);
	ck_assert_int_eq(faultgen_attr_set_latency(a, 0), 0);
	ck_assert_int_eq(faultgen_attr_set_latency(NULL, 1), -EINVAL);
	ck_assert_uint_eq(faultgen_attr_get_latency(NULL), 0);
	faultgen_attr_free(a);
	/* The patterns whose workers touch pages or make the calls that
	 * fault read it. */
	ck_assert_int_eq(faultgen_pattern_reads(FAULTGEN_SHARED_VMA,
						FAULTGEN_SETTING_LATENCY),
			 1);
	ck_assert_int_eq(faultgen_pattern_reads(FAULTGEN_PER_THREAD_VMA,
						FAULTGEN_SETTING_LATENCY),
			 1);
	ck_assert_int_eq(faultgen_pattern_reads(FAULTGEN_PRETOUCH,
						FAULTGEN_SETTING_LATENCY),
			 1);
	ck_assert_int_eq(faultgen_pattern_reads(FAULTGEN_RO_COLLAPSE,
						FAULTGEN_SETTING_LATENCY),
			 1);
}
END_TEST

struct spec {
	enum faultgen_pattern pattern;
	enum faultgen_workers kind;
	unsigned int workers;
	uint64_t bytes; /* per worker */
	unsigned int rounds;
	unsigned int every;
	enum faultgen_touch touch;
	enum faultgen_thp thp;
	enum faultgen_backing backing;
};

static struct faultgen_run *run_of(const struct spec *s)
{
	struct faultgen_attr *a;
	struct faultgen_run *run;
	int ret;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, s->pattern), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, s->bytes * s->workers), 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, s->workers, s->kind), 0);
	ck_assert_int_eq(faultgen_attr_set_thp(a, s->thp), 0);
	ck_assert_int_eq(faultgen_attr_set_touch(a, s->touch), 0);
	ck_assert_int_eq(faultgen_attr_set_latency(a, s->every), 0);
	ck_assert_int_eq(faultgen_attr_set_backing(a, s->backing), 0);
	fgc_allow_workers(a, s->workers);
	if (s->rounds)
		ck_assert_int_eq(faultgen_attr_set_rounds(
					 a, s->rounds, FAULTGEN_ZAP_DONTNEED),
				 0);
	ret = faultgen_run_new(a, &run);
	faultgen_attr_free(a);
	ck_assert_msg(ret == 0, "run: %s", faultgen_strerror(ret));
	return run;
}

static void latency_of(const struct faultgen_run *run, int worker,
		       struct faultgen_latency *l)
{
	memset(l, 0, sizeof(*l));
	l->size = sizeof(*l);
	ck_assert_int_eq(faultgen_run_latency(run, worker, l), 0);
}

/* Values = touches timed: every page, or the first and every N-th of
 * each slice in each round, in both patterns, threads and processes,
 * every backing; the kernel's faults = pages as ever. */
START_TEST(values_are_the_touches_timed)
{
	static const struct {
		enum faultgen_pattern pattern;
		enum faultgen_workers kind;
		unsigned int rounds, every;
		enum faultgen_backing backing;
	} cases[] = {
		{ FAULTGEN_SHARED_VMA, FAULTGEN_THREADS, 0, 1,
		  FAULTGEN_BACKING_ANON },
		{ FAULTGEN_SHARED_VMA, FAULTGEN_PROCESSES, 0, 1,
		  FAULTGEN_BACKING_ANON },
		{ FAULTGEN_PER_THREAD_VMA, FAULTGEN_THREADS, 3, 1,
		  FAULTGEN_BACKING_ANON },
		{ FAULTGEN_SHARED_VMA, FAULTGEN_THREADS, 2, 7,
		  FAULTGEN_BACKING_ANON },
		{ FAULTGEN_PER_THREAD_VMA, FAULTGEN_PROCESSES, 0, 1000,
		  FAULTGEN_BACKING_ANON },
		{ FAULTGEN_SHARED_VMA, FAULTGEN_THREADS, 0, 1,
		  FAULTGEN_BACKING_DEVZERO },
		{ FAULTGEN_PER_THREAD_VMA, FAULTGEN_THREADS, 0, 3,
		  FAULTGEN_BACKING_SYSV },
	};
	struct spec s = { .pattern = cases[_i].pattern,
			  .kind = cases[_i].kind,
			  .workers = 2,
			  .bytes = 8 * MIB,
			  .rounds = cases[_i].rounds,
			  .every = cases[_i].every,
			  .touch = FAULTGEN_TOUCH_WRITE,
			  .thp = FAULTGEN_THP_NOHUGEPAGE,
			  .backing = cases[_i].backing };
	struct faultgen_run *run = run_of(&s);
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_latency l, w;
	uint64_t pages = s.bytes / (uint64_t)fgc_pagesize();
	uint64_t rounds = s.rounds ? s.rounds : 1;
	uint64_t per_slice = (pages + s.every - 1) / s.every;
	uint64_t sum = 0;

	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	ck_assert_uint_eq(r.pages, pages * rounds * s.workers);
	ck_assert_msg(fg_faults_agree(r.pages, r.minflt, s.workers),
		      "pages %" PRIu64 ", minflt %" PRIu64, r.pages, r.minflt);
	for (unsigned int i = 0; i < s.workers; i++) {
		latency_of(run, (int)i, &w);
		ck_assert_uint_eq(w.count, per_slice * rounds);
		ck_assert_uint_eq(w.sample_every, s.every);
		ck_assert_int_eq(w.per_call, 0);
		ck_assert_uint_eq(w.overflow, 0);
		ck_assert(w.min_ns <= w.p50_ns && w.p50_ns <= w.p90_ns &&
			  w.p90_ns <= w.p99_ns && w.p99_ns <= w.p999_ns &&
			  w.p999_ns <= w.max_ns);
		sum += w.count;
	}
	latency_of(run, -1, &l);
	ck_assert_uint_eq(l.count, sum);
	if (s.every == 1)
		ck_assert_uint_eq(l.count, r.pages);
	ck_assert_str_eq(l.clock, "monotonic");
	faultgen_run_free(run);
}
END_TEST

/*
 * An interleaved layout: each worker's touches over all its blocks, one
 * in N counted across the blocks, so values = its pages (or
 * ceil(pages / N)); the kernel's faults = pages as ever.  Blocks of 1, 3
 * and 8 pages, 2 and 3 workers, threads and processes, write and read.
 */
START_TEST(interleaved_values_are_each_workers_touches)
{
	static const struct {
		unsigned int k, workers, every;
		enum faultgen_workers kind;
		enum faultgen_touch touch;
	} cases[] = {
		{ 1, 2, 1, FAULTGEN_THREADS, FAULTGEN_TOUCH_WRITE },
		{ 3, 3, 1, FAULTGEN_PROCESSES, FAULTGEN_TOUCH_WRITE },
		{ 8, 2, 5, FAULTGEN_THREADS, FAULTGEN_TOUCH_WRITE },
		{ 3, 2, 1, FAULTGEN_THREADS, FAULTGEN_TOUCH_READ },
	};
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_latency l, w;
	struct faultgen_run *run;
	struct faultgen_attr *a;
	unsigned int n = cases[_i].workers, every = cases[_i].every;
	uint64_t sum = 0, pages = 0;
	int ret;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	/* 4 MiB + 5 pages: the last block is short. */
	ck_assert_int_eq(faultgen_attr_set_size(a, 4 * MIB + 5 * (uint64_t)
							     fgc_pagesize()),
			 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, n, cases[_i].kind), 0);
	ck_assert_int_eq(faultgen_attr_set_thp(a, FAULTGEN_THP_NOHUGEPAGE), 0);
	ck_assert_int_eq(faultgen_attr_set_touch(a, cases[_i].touch), 0);
	ck_assert_int_eq(faultgen_attr_set_interleave(a, cases[_i].k), 0);
	ck_assert_int_eq(faultgen_attr_set_latency(a, every), 0);
	fgc_allow_workers(a, n);
	ret = faultgen_run_new(a, &run);
	faultgen_attr_free(a);
	ck_assert_msg(ret == 0, "run: %s", faultgen_strerror(ret));
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	for (unsigned int i = 0; i < n; i++) {
		struct faultgen_worker_result wr = { .size = sizeof(wr) };

		ck_assert_int_eq(faultgen_run_worker(run, i, &wr), 0);
		latency_of(run, (int)i, &w);
		ck_assert_uint_gt(wr.pages, 0);
		ck_assert_uint_eq(w.count, (wr.pages + every - 1) / every);
		ck_assert_int_eq(w.per_call, 0);
		ck_assert_uint_eq(w.sample_every, every);
		sum += w.count;
		pages += wr.pages;
	}
	ck_assert_uint_eq(pages, r.pages);
	latency_of(run, -1, &l);
	ck_assert_uint_eq(l.count, sum);
	if (every == 1)
		ck_assert_uint_eq(l.count, r.pages);
	if (cases[_i].touch == FAULTGEN_TOUCH_WRITE)
		ck_assert_msg(fg_faults_agree(r.pages, r.minflt, n),
			      "pages %" PRIu64 ", minflt %" PRIu64, r.pages,
			      r.minflt);
	faultgen_run_free(run);
}
END_TEST

/*
 * Pretouch: the page loops (store, atomic add) time one page in N of
 * each worker's chunks, counted across them; a populate is timed per call
 * of up to 2 MiB (a 1 MiB chunk is one call, a fast mode's 4 MiB slice
 * two), and the result says so.  8 MiB of heap, 2 workers.
 */
START_TEST(pretouch_times_its_touches_or_its_calls)
{
	static const struct {
		enum faultgen_pretouch_touch how;
		unsigned int every;
	} cases[] = {
		{ FAULTGEN_PRETOUCH_STORE, 1 },
		{ FAULTGEN_PRETOUCH_ATOMIC_ADD, 3 },
		{ FAULTGEN_PRETOUCH_POPULATE, 1 },
		{ FAULTGEN_PRETOUCH_FAST, 1 },
	};
	enum faultgen_pretouch_touch how = cases[_i].how;
	unsigned int every = cases[_i].every;
	bool calls = how == FAULTGEN_PRETOUCH_POPULATE ||
		     how == FAULTGEN_PRETOUCH_FAST;
	uint64_t ps = (uint64_t)fgc_pagesize(), sum = 0, pages = 0;
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_latency l, w;
	struct faultgen_run *run;
	struct faultgen_attr *a;
	int ret;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, FAULTGEN_PRETOUCH), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 8 * MIB), 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, 2, FAULTGEN_THREADS), 0);
	ck_assert_int_eq(faultgen_attr_set_pretouch_touch(a, how), 0);
	ck_assert_int_eq(faultgen_attr_set_chunk_size(a, MIB), 0);
	ck_assert_int_eq(faultgen_attr_set_thp(a, FAULTGEN_THP_NOHUGEPAGE), 0);
	ck_assert_int_eq(faultgen_attr_set_latency(a, every), 0);
	fgc_allow_workers(a, 2);
	ret = faultgen_run_new(a, &run);
	faultgen_attr_free(a);
	ck_assert_msg(ret == 0, "run: %s", faultgen_strerror(ret));
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	ck_assert_uint_eq(r.pages, 8 * MIB / ps);
	for (unsigned int i = 0; i < r.workers; i++) {
		struct faultgen_worker_result wr = { .size = sizeof(wr) };
		uint64_t want;

		ck_assert_int_eq(faultgen_run_worker(run, i, &wr), 0);
		latency_of(run, (int)i, &w);
		if (how == FAULTGEN_PRETOUCH_POPULATE)
			want = wr.pages * ps / MIB; /* one call per chunk */
		else if (calls)
			want = (wr.pages * ps + 2 * MIB - 1) / (2 * MIB);
		else
			want = (wr.pages + every - 1) / every;
		ck_assert_uint_eq(w.count, want);
		ck_assert_int_eq(w.per_call, calls);
		sum += w.count;
		pages += wr.pages;
	}
	ck_assert_uint_eq(pages, r.pages);
	latency_of(run, -1, &l);
	ck_assert_uint_eq(l.count, sum);
	ck_assert_int_eq(l.per_call, calls);
	if (calls) {
		ck_assert_str_eq(l.call, "MADV_POPULATE_WRITE");
		ck_assert_uint_eq(l.call_bytes, 2 * MIB);
	} else {
		ck_assert_ptr_null(l.call);
		ck_assert_uint_eq(l.call_bytes, 0);
		if (every == 1)
			ck_assert_uint_eq(l.count, r.pages);
	}
	faultgen_run_free(run);
}
END_TEST

/*
 * ro-collapse: each MADV_COLLAPSE call (one per huge-page range) is a
 * value of its worker, whatever the kernel answers; the populate and the
 * read sweeps are not timed.  Refused with khugepaged, which makes no
 * call.
 */
START_TEST(ro_collapse_times_each_madv_collapse_call)
{
	struct faultgen_collapse_result c = { .size = sizeof(c) };
	struct faultgen_conflict conflict = { .size = sizeof(conflict) };
	struct faultgen_latency l, w;
	struct faultgen_run *run;
	struct faultgen_attr *a;
	uint64_t sum = 0;
	int ret;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, FAULTGEN_RO_COLLAPSE), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 8 * MIB), 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, 2, FAULTGEN_THREADS), 0);
	ck_assert_int_eq(faultgen_attr_set_latency(a, 1), 0);
	fgc_allow_workers(a, 2);
	ck_assert_int_eq(faultgen_attr_set_collapse(
				 a, FAULTGEN_COLLAPSE_KHUGEPAGED), 0);
	ck_assert_int_eq(faultgen_attr_check(a, &conflict), -EINVAL);
	ck_assert_int_eq(conflict.setting, FAULTGEN_SETTING_LATENCY);
	ck_assert_int_eq(conflict.with, FAULTGEN_SETTING_COLLAPSE);
	ck_assert_int_eq(faultgen_attr_set_collapse(a, FAULTGEN_COLLAPSE_MADVISE),
			 0);
	ret = faultgen_run_new(a, &run);
	faultgen_attr_free(a);
	if (ret)
		FGC_SKIP("no read-only collapse run here: %s",
			 faultgen_strerror(ret));
	ck_assert_int_eq(faultgen_run_collapse(run, &c), 0);
	/* 8 MiB: 4 ranges of 2 MiB (or 1 of a larger huge page, then 2,
	 * one per worker), each worker calls for its half. */
	ck_assert_uint_gt(c.ranges, 0);
	for (int i = 0; i < 2; i++) {
		latency_of(run, i, &w);
		ck_assert_uint_eq(w.count, c.ranges / 2);
		ck_assert_int_eq(w.per_call, 1);
		sum += w.count;
	}
	latency_of(run, -1, &l);
	ck_assert_uint_eq(l.count, sum);
	ck_assert_uint_eq(l.count, c.ranges);
	ck_assert_int_eq(l.per_call, 1);
	ck_assert_str_eq(l.call, "MADV_COLLAPSE");
	ck_assert_uint_gt(l.call_bytes, 0);
	faultgen_run_free(run);
}
END_TEST

/* The buckets hold every value, in ascending order. */
START_TEST(buckets_add_up_to_the_count)
{
	struct spec s = { .pattern = FAULTGEN_SHARED_VMA,
			  .kind = FAULTGEN_THREADS,
			  .workers = 2,
			  .bytes = 4 * MIB,
			  .every = 1,
			  .touch = FAULTGEN_TOUCH_WRITE,
			  .thp = FAULTGEN_THP_NOHUGEPAGE };
	struct faultgen_run *run = run_of(&s);
	struct faultgen_latency_bucket b[FG_HIST_BUCKETS + 1];
	struct faultgen_latency l;
	uint64_t sum = 0;
	int n;

	for (int w = -1; w < 2; w++) {
		latency_of(run, w, &l);
		n = faultgen_run_latency_buckets(run, w, b, FG_HIST_BUCKETS + 1);
		ck_assert_int_gt(n, 0);
		sum = 0;
		for (int k = 0; k < n; k++) {
			ck_assert(b[k].lo_ns < b[k].hi_ns);
			ck_assert(k == 0 || b[k - 1].hi_ns <= b[k].lo_ns);
			ck_assert_uint_gt(b[k].count, 0);
			sum += b[k].count;
		}
		ck_assert_uint_eq(sum, l.count);
		/* Asked for fewer, it fills those and says how many. */
		ck_assert_int_eq(faultgen_run_latency_buckets(run, w, b, 1), n);
		ck_assert_int_eq(faultgen_run_latency_buckets(run, w, NULL, 0),
				 n);
	}
	faultgen_run_free(run);
}
END_TEST

START_TEST(results_are_refused_without_latency_or_out_of_range)
{
	struct spec s = { .pattern = FAULTGEN_SHARED_VMA,
			  .kind = FAULTGEN_THREADS,
			  .workers = 1,
			  .bytes = MIB,
			  .every = 0,
			  .touch = FAULTGEN_TOUCH_WRITE,
			  .thp = FAULTGEN_THP_NOHUGEPAGE };
	struct faultgen_run *run = run_of(&s);
	struct faultgen_latency l = { .size = sizeof(l) };
	struct faultgen_latency_bucket b[4];

	ck_assert_int_eq(faultgen_run_latency(run, -1, &l), -ENODATA);
	ck_assert_int_eq(faultgen_run_latency_buckets(run, -1, b, 4),
			 -ENODATA);
	faultgen_run_free(run);
	s.every = 1;
	run = run_of(&s);
	ck_assert_int_eq(faultgen_run_latency(run, 1, &l), -ERANGE);
	ck_assert_int_eq(faultgen_run_latency(run, -3, &l), -ERANGE);
	/* -2 is FAULTGEN_LATENCY_WRITERS: none in this run. */
	ck_assert_int_eq(faultgen_run_latency(run, -2, &l), -ENODATA);
	ck_assert_int_eq(faultgen_run_latency(run, 0, NULL), -EINVAL);
	ck_assert_int_eq(faultgen_run_latency(NULL, 0, &l), -EINVAL);
	l.size = sizeof(size_t);
	ck_assert_int_eq(faultgen_run_latency(run, 0, &l), -EINVAL);
	ck_assert_int_eq(faultgen_run_latency_buckets(run, 0, NULL, 4),
			 -EINVAL);
	ck_assert_int_eq(faultgen_run_latency_buckets(run, 1, b, 4), -ERANGE);
	faultgen_run_free(run);
}
END_TEST

/* A touch made in one call is timed per call of up to 2 MiB: values =
 * calls, and the result says so. */
START_TEST(populate_and_mlock_are_timed_per_call)
{
	static const enum faultgen_touch touches[] = {
		FAULTGEN_TOUCH_POPULATE, FAULTGEN_TOUCH_MLOCK,
		FAULTGEN_TOUCH_MEMSET };
	/* 5 MiB + a page: calls of 2, 2, 1 MiB and a page. */
	struct spec s = { .pattern = FAULTGEN_PER_THREAD_VMA,
			  .kind = FAULTGEN_THREADS,
			  .workers = 2,
			  .bytes = 5 * MIB + (uint64_t)fgc_pagesize(),
			  .rounds = 0,
			  .every = 1000,
			  .touch = touches[_i],
			  .thp = FAULTGEN_THP_NOHUGEPAGE };
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_latency l;
	struct faultgen_run *run;
	struct faultgen_attr *a;
	int ret;

	/* Its interceptor returns 0 and locks (so faults) nothing. */
	if (s.touch == FAULTGEN_TOUCH_MLOCK && FGC_ASAN)
		FGC_SKIP("AddressSanitizer makes mlock a no-op");
	if (s.touch == FAULTGEN_TOUCH_MLOCK && !fgc_is_root())
		s.bytes = MIB + (uint64_t)fgc_pagesize(); /* RLIMIT_MEMLOCK */
	/* A kernel without MADV_POPULATE_WRITE (before 5.14). */
	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_touch(a, s.touch), 0);
	ret = faultgen_run_new(a, &run);
	faultgen_attr_free(a);
	if (ret)
		FGC_SKIP("this touch fails here: %s", faultgen_strerror(ret));
	faultgen_run_free(run);
	if (s.touch != FAULTGEN_TOUCH_MLOCK)
		s.rounds = 2;
	run = run_of(&s);
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	latency_of(run, -1, &l);
	ck_assert_int_eq(l.per_call, 1);
	ck_assert_uint_eq(l.count, s.workers * (s.rounds ? s.rounds : 1) *
					   ((s.bytes + 2 * MIB - 1) /
					    (2 * MIB)));
	ck_assert_msg(fg_faults_agree(r.pages, r.minflt, s.workers),
		      "pages %" PRIu64 ", minflt %" PRIu64, r.pages, r.minflt);
	faultgen_run_free(run);
}
END_TEST

static bool thp_available(void)
{
	char buf[256];

	return fgc_read_file("/sys/kernel/mm/transparent_hugepage/enabled",
			     buf, sizeof(buf)) > 0 &&
	       !strstr(buf, "[never]");
}

/*
 * The known difference: 2 MiB faults against 4 KiB ones.  With huge
 * pages, 1 touch in 512 faults (a whole 2 MiB page is cleared) and the
 * others store to a present page: the faults the kernel counted are
 * pages / 512, the median is a store, and at least as many values as
 * huge faults lie beyond 8 times the median, a second mode.  With
 * 4 KiB pages every touch faults, and the median is a fault: above the
 * huge-page run's median (a store).  A store and a fault differ by two
 * orders of magnitude; load only lengthens a few values.
 */
START_TEST(thp_faults_show_as_a_mode_of_pages_over_512)
{
	struct spec s = { .pattern = FAULTGEN_SHARED_VMA,
			  .kind = FAULTGEN_THREADS,
			  .workers = 1,
			  .bytes = 64 * MIB,
			  .every = 1,
			  .touch = FAULTGEN_TOUCH_WRITE,
			  .thp = FAULTGEN_THP_HUGEPAGE };
	struct faultgen_latency_bucket *b;
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_latency huge, small;
	struct faultgen_run *run;
	uint64_t pages = s.bytes / (uint64_t)fgc_pagesize(), beyond = 0;
	uint64_t hfaults, smalls, start, end;
	void *addr;
	size_t len;
	int n;

	if (fgc_pagesize() != 4096 || !thp_available())
		FGC_SKIP("no 2 MiB transparent huge pages here");
	run = run_of(&s);
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	/* The whole 2 MiB ranges of the mapping fault once each, the pages
	 * outside them one by one. */
	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	start = fg_round_up((uintptr_t)addr, 2 * MIB);
	end = fg_round_down((uintptr_t)addr + len, 2 * MIB);
	hfaults = end > start ? (end - start) / (2 * MIB) : 0;
	smalls = pages - hfaults * 512;
	/* Huge pages may be short (fragmented memory): not this test's.
	 * A range that fell back to 4 KiB pages adds 511 faults. */
	if (!hfaults || r.minflt > hfaults + smalls + 64 + hfaults / 4) {
		faultgen_run_free(run);
		FGC_SKIP("%" PRIu64 " faults for %" PRIu64
			 " pages: no huge pages to be had",
			 r.minflt, pages);
	}
	latency_of(run, -1, &huge);
	ck_assert_uint_eq(huge.count, pages);
	b = calloc(FG_HIST_BUCKETS + 1, sizeof(*b));
	ck_assert_ptr_nonnull(b);
	n = faultgen_run_latency_buckets(run, -1, b, FG_HIST_BUCKETS + 1);
	ck_assert_int_gt(n, 0);
	for (int k = 0; k < n; k++)
		if (b[k].lo_ns >= 8 * huge.p50_ns)
			beyond += b[k].count;
	/* Past the skip, every 2 MiB range was one fault. */
	ck_assert_msg(beyond >= hfaults,
		      "%" PRIu64 " values beyond 8 x p50 (%g ns), %" PRIu64
		      " huge faults",
		      beyond, huge.p50_ns, hfaults);
	ck_assert(huge.max_ns >= 8 * huge.p50_ns);
	free(b);
	faultgen_run_free(run);

	s.thp = FAULTGEN_THP_NOHUGEPAGE;
	run = run_of(&s);
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	ck_assert(fg_faults_agree(pages, r.minflt, 1));
	latency_of(run, -1, &small);
	ck_assert_uint_eq(small.count, pages);
	ck_assert_msg(small.p50_ns > huge.p50_ns,
		      "4 KiB p50 %g ns, 2 MiB run's p50 %g ns", small.p50_ns,
		      huge.p50_ns);
	faultgen_run_free(run);
}
END_TEST

/* The scheduler's figures are read around the loop: a loop that does
 * not sleep has (nearly) no voluntary switch; the delay is known where
 * the kernel keeps schedstat. */
START_TEST(scheduler_figures_are_read_around_the_loop)
{
	struct spec s = { .pattern = FAULTGEN_SHARED_VMA,
			  .kind = FAULTGEN_PROCESSES,
			  .workers = 2,
			  .bytes = 4 * MIB,
			  .every = 1,
			  .touch = FAULTGEN_TOUCH_WRITE,
			  .thp = FAULTGEN_THP_NOHUGEPAGE };
	struct faultgen_run *run = run_of(&s);
	struct faultgen_latency l, w0, w1;
	char buf[128];

	latency_of(run, -1, &l);
	latency_of(run, 0, &w0);
	latency_of(run, 1, &w1);
	ck_assert_uint_eq(l.nivcsw, w0.nivcsw + w1.nivcsw);
	ck_assert_uint_eq(l.nvcsw, w0.nvcsw + w1.nvcsw);
	if (fgc_read_file("/proc/thread-self/schedstat", buf, sizeof(buf)) >
	    0) {
		ck_assert(w0.run_delay_s >= 0 && w1.run_delay_s >= 0);
		ck_assert(l.run_delay_s >= w0.run_delay_s);
	} else {
		ck_assert(l.run_delay_s == -1);
	}
	faultgen_run_free(run);
}
END_TEST

static Suite *latency_suite(void)
{
	Suite *s = suite_create("latency");
	TCase *tc = tcase_create("histogram");

	tcase_add_test(tc,
		       every_value_falls_in_a_bucket_narrower_than_1_64th_of_it);
	tcase_add_loop_test(tc, percentiles_match_a_sorted_oracle_within_1_64th,
			    0, 3);
	tcase_add_test(tc, merged_histograms_equal_the_histogram_of_all_values);
	tcase_add_test(tc,
		       values_beyond_the_top_are_counted_and_kept_as_the_maximum);
	tcase_add_test(tc, an_empty_histogram_reads_zero);
	tcase_add_test(tc,
		       the_tail_is_the_schedulers_only_with_enough_long_preemptions);
	suite_add_tcase(s, tc);

	tc = tcase_create("runs");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, the_setter_takes_0_to_the_maximum_and_refuses_more);
	tcase_add_loop_test(tc, values_are_the_touches_timed, 0, 7);
	tcase_add_loop_test(tc, interleaved_values_are_each_workers_touches, 0,
			    4);
	tcase_add_loop_test(tc, pretouch_times_its_touches_or_its_calls, 0, 4);
	tcase_add_test(tc, ro_collapse_times_each_madv_collapse_call);
	tcase_add_test(tc, buckets_add_up_to_the_count);
	tcase_add_test(tc, results_are_refused_without_latency_or_out_of_range);
	tcase_add_loop_test(tc, populate_and_mlock_are_timed_per_call, 0, 3);
	tcase_add_test(tc, thp_faults_show_as_a_mode_of_pages_over_512);
	tcase_add_test(tc, scheduler_figures_are_read_around_the_loop);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return fgc_main(latency_suite());
}
