// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * check_measure.c - how the workers' figures become a run's result: the
 * totals against the workers' own figures, the rates, the rounds summed
 * over workers, the rate of each round, the figure of record, the fault
 * count check, and faultgen_stats on known values.
 *
 * Expected values are worked out here from the figures each worker
 * reports (faultgen_run_worker, faultgen_run_rounds), never from the
 * library's own fold, and never from timings.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "check-util.h"

#include <math.h>

#include "internal.h"

#define MAX_ROUNDS 16

/*
 * A run of `workers` workers of `kind`, each with `pages` 4 KiB pages (no
 * THP), on one shared VMA or a VMA each, for `rounds` measured rounds
 * (0: one pass) or, with rounds 0 and seconds > 0, a duration.
 */
static struct faultgen_run *measured_run(enum faultgen_pattern pattern,
					 enum faultgen_workers kind,
					 unsigned int workers, uint64_t pages,
					 unsigned int rounds, double seconds)
{
	struct faultgen_attr *a;
	struct faultgen_run *run;
	int ret;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, pattern), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, pages * workers *
						       (uint64_t)fgc_pagesize()),
			 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, workers, kind), 0);
	ck_assert_int_eq(faultgen_attr_set_thp(a, FAULTGEN_THP_NOHUGEPAGE), 0);
	fgc_allow_workers(a, workers);
	if (rounds)
		ck_assert_int_eq(faultgen_attr_set_rounds(
					 a, rounds, FAULTGEN_ZAP_DONTNEED),
				 0);
	else if (seconds > 0)
		ck_assert_int_eq(faultgen_attr_set_duration(
					 a, seconds, FAULTGEN_ZAP_DONTNEED),
				 0);
	ret = faultgen_run_new(a, &run);
	ck_assert_msg(ret == 0, "run: %s", faultgen_strerror(ret));
	faultgen_attr_free(a);
	return run;
}

static void totals(const struct faultgen_run *run, struct faultgen_result *r)
{
	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	ck_assert_int_eq(faultgen_run_result(run, r), 0);
}

static void worker(const struct faultgen_run *run, unsigned int i,
		   struct faultgen_worker_result *w)
{
	memset(w, 0, sizeof(*w));
	w->size = sizeof(*w);
	ck_assert_int_eq(faultgen_run_worker(run, i, w), 0);
}

/* ---- totals and rates ------------------------------------------------- */

START_TEST(result_figures_are_consistent)
{
	enum faultgen_workers kind = _i ? FAULTGEN_PROCESSES : FAULTGEN_THREADS;
	struct faultgen_run *run = measured_run(FAULTGEN_SHARED_VMA, kind, 2,
						512, 0, 0);
	struct faultgen_worker_result w;
	struct faultgen_result res;
	double cpu;

	totals(run, &res);
	ck_assert(res.elapsed_s > 0);
	ck_assert(res.start_skew_s >= 0 && res.start_skew_s <= res.elapsed_s);
	ck_assert(res.user_s >= 0 && res.sys_s >= 0);
	cpu = res.user_s + res.sys_s;
	ck_assert_double_eq_tol(res.pages_per_wall_s,
				(double)res.pages / res.elapsed_s,
				1e-6 * res.pages_per_wall_s);
	ck_assert_double_eq_tol(res.faults_per_wall_s,
				(double)res.minflt / res.elapsed_s,
				1e-6 * res.faults_per_wall_s);
	if (cpu > 0)
		ck_assert_double_eq_tol(res.pages_per_cpu_s,
					(double)res.pages / cpu,
					1e-6 * res.pages_per_cpu_s);
	else
		ck_assert(res.pages_per_cpu_s == 0);
	for (unsigned int i = 0; i < 2; i++) {
		worker(run, i, &w);
		ck_assert(w.start_s >= 0 && w.start_s <= res.start_skew_s);
		ck_assert(w.wall_s >= 0 && w.wall_s <= res.elapsed_s);
		ck_assert(w.user_s >= 0 && w.sys_s >= 0);
	}
	ck_assert_int_eq(faultgen_run_worker(run, 2, &w), -ERANGE);
	faultgen_run_free(run);
}
END_TEST

START_TEST(faults_agree_within_one_percent_and_slack)
{
	/* slack = 1% + 48 + 16 per worker */
	ck_assert(fg_faults_agree(10000, 10000, 1));
	ck_assert(fg_faults_agree(10000, 10164, 1));
	ck_assert(!fg_faults_agree(10000, 10165, 1));
	ck_assert(fg_faults_agree(10000, 9836, 1));
	ck_assert(!fg_faults_agree(10000, 9835, 1));
	ck_assert(fg_faults_agree(0, 64, 1));
	ck_assert(!fg_faults_agree(0, 65, 1));
	ck_assert(fg_faults_agree(10000, 10000 + 100 + 48 + 16 * 8, 8));
	ck_assert(!fg_faults_agree(10000, 10000 + 100 + 48 + 16 * 8 + 1, 8));
	/* Half the faults (THP, or a broken count) never agree. */
	ck_assert(!fg_faults_agree(1ULL << 20, 1ULL << 19, 64));
	ck_assert(!fg_faults_agree(UINT64_MAX / 2, 0, 1));
}
END_TEST

/* ---- rounds, summed over workers --------------------------------------- */

/* The sum and the span of the workers' own counts, read one by one. */
static void assert_rounds_of_workers(const struct faultgen_run *run,
				     const struct faultgen_result *res)
{
	uint64_t sum = 0, least = UINT64_MAX, most = 0;
	struct faultgen_worker_result w;

	for (unsigned int i = 0; i < res->workers; i++) {
		worker(run, i, &w);
		sum += w.rounds;
		if (w.rounds < least)
			least = w.rounds;
		if (w.rounds > most)
			most = w.rounds;
	}
	ck_assert_uint_eq(res->rounds, sum);
	ck_assert_uint_eq(res->worker_rounds_min, least);
	ck_assert_uint_eq(res->worker_rounds_max, most);
}

START_TEST(rounds_are_summed_over_workers)
{
	enum faultgen_workers kind = _i ? FAULTGEN_PROCESSES : FAULTGEN_THREADS;
	struct faultgen_result res;
	struct faultgen_run *run;

	/* Five rounds of two workers are ten rounds of the run. */
	run = measured_run(FAULTGEN_SHARED_VMA, kind, 2, 64, 5, 0);
	totals(run, &res);
	ck_assert_uint_eq(res.rounds, 10);
	ck_assert_uint_eq(res.worker_rounds_min, 5);
	ck_assert_uint_eq(res.worker_rounds_max, 5);
	ck_assert_uint_eq(res.pages, 5 * 2 * 64);
	assert_rounds_of_workers(run, &res);
	faultgen_run_free(run);
	/* A single pass is one round of each worker. */
	run = measured_run(FAULTGEN_PER_THREAD_VMA, kind, 2, 64, 0, 0);
	totals(run, &res);
	ck_assert_uint_eq(res.rounds, 2);
	ck_assert_uint_eq(res.worker_rounds_min, 1);
	ck_assert_uint_eq(res.worker_rounds_max, 1);
	assert_rounds_of_workers(run, &res);
	faultgen_run_free(run);
	/* A duration: workers make what they can, the totals follow. */
	run = measured_run(FAULTGEN_SHARED_VMA, kind, 2, 64, 0, 0.05);
	totals(run, &res);
	ck_assert_uint_ge(res.worker_rounds_min, 1);
	ck_assert_uint_le(res.worker_rounds_min, res.worker_rounds_max);
	assert_rounds_of_workers(run, &res);
	faultgen_run_free(run);
}
END_TEST

/* ---- the rate of each round -------------------------------------------- */

/*
 * Round r's rate worked out by hand: the sum over workers of the pages of
 * the worker's slice over the worker's round r, in seconds.
 */
static unsigned int rates_by_hand(const struct faultgen_run *run,
				  unsigned int workers, double *rates)
{
	double sec[MAX_ROUNDS];
	unsigned int common = MAX_ROUNDS;
	struct faultgen_worker_result w;
	size_t ps = (size_t)fgc_pagesize();

	for (unsigned int r = 0; r < MAX_ROUNDS; r++)
		rates[r] = 0;
	for (unsigned int i = 0; i < workers; i++) {
		int n = faultgen_run_rounds(run, i, sec, MAX_ROUNDS);

		ck_assert_int_ge(n, 0);
		ck_assert_int_le(n, MAX_ROUNDS);
		if ((unsigned int)n < common)
			common = (unsigned int)n;
		worker(run, i, &w);
		for (int r = 0; r < n; r++) {
			ck_assert(sec[r] > 0);
			rates[r] += (double)w.len / (double)ps / sec[r];
		}
	}
	return common;
}

/* The value with no more than n/2 values below it and above it. */
static double median_by_rank(const double *v, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		unsigned int below = 0, above = 0;

		for (unsigned int j = 0; j < n; j++) {
			below += v[j] < v[i];
			above += v[j] > v[i];
		}
		if (below <= n / 2 && above <= n / 2)
			return v[i];
	}
	ck_abort_msg("no median among %u values", n);
	return 0;
}

START_TEST(round_rates_sum_slice_pages_over_round_seconds)
{
	enum faultgen_pattern pattern =
		_i ? FAULTGEN_PER_THREAD_VMA : FAULTGEN_SHARED_VMA;
	struct faultgen_run *run = measured_run(pattern, FAULTGEN_THREADS, 2,
						64, 5, 0);
	double want[MAX_ROUNDS], got[MAX_ROUNDS], least = INFINITY, most = 0;
	struct faultgen_result res;
	unsigned int n = rates_by_hand(run, 2, want);

	ck_assert_uint_eq(n, 5);
	ck_assert_int_eq(faultgen_run_round_rates(run, got, MAX_ROUNDS), 5);
	for (unsigned int r = 0; r < n; r++) {
		ck_assert_double_eq_tol(got[r], want[r], 1e-9 * want[r]);
		least = fmin(least, want[r]);
		most = fmax(most, want[r]);
	}
	totals(run, &res);
	ck_assert_uint_eq(res.rounds_sampled, 5);
	ck_assert_double_eq_tol(res.round_rate_min, least, 1e-9 * least);
	ck_assert_double_eq_tol(res.round_rate_max, most, 1e-9 * most);
	ck_assert_double_eq_tol(res.round_rate_median, median_by_rank(want, n),
				1e-9 * most);
	/* Fewer places than rounds: the count all the same, no more
	 * written than asked. */
	for (unsigned int r = 0; r < MAX_ROUNDS; r++)
		got[r] = -1;
	ck_assert_int_eq(faultgen_run_round_rates(run, got, 2), 5);
	ck_assert(got[0] > 0 && got[1] > 0 && got[2] == -1);
	ck_assert_int_eq(faultgen_run_round_rates(run, NULL, 0), 5);
	ck_assert_int_eq(faultgen_run_round_rates(run, NULL, 1), -EINVAL);
	ck_assert_int_eq(faultgen_run_round_rates(NULL, got, 2), -EINVAL);
	faultgen_run_free(run);
}
END_TEST

START_TEST(round_rates_need_a_measured_repeat_run)
{
	struct faultgen_attr *a;
	struct faultgen_run *run;
	struct faultgen_result res;
	double rates[4];

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 3, FAULTGEN_ZAP_DONTNEED),
			 0);
	ck_assert_int_eq(faultgen_run_create(a, &run), 0);
	ck_assert_int_eq(faultgen_run_round_rates(run, rates, 4), -ENODATA);
	faultgen_run_free(run);
	faultgen_attr_free(a);
	/* A single pass has no rounds to rate. */
	run = measured_run(FAULTGEN_SHARED_VMA, FAULTGEN_THREADS, 2, 64, 0, 0);
	ck_assert_int_eq(faultgen_run_round_rates(run, rates, 4), 0);
	totals(run, &res);
	ck_assert_uint_eq(res.rounds_sampled, 0);
	ck_assert(res.round_rate_median == 0);
	faultgen_run_free(run);
}
END_TEST

/* ---- the figure of record ---------------------------------------------- */

START_TEST(rate_of_record_is_the_round_median_from_three_rounds)
{
	static const unsigned int rounds[] = { 0, 1, 2, 3, 4 };
	unsigned int r = rounds[_i];
	struct faultgen_run *run = measured_run(
		FAULTGEN_SHARED_VMA, FAULTGEN_THREADS, 2, 64, r, 0);
	struct faultgen_result res;

	totals(run, &res);
	ck_assert_uint_eq(res.rounds_sampled, r);
	if (r >= 3) {
		ck_assert_int_eq(res.rate_kind, FAULTGEN_RATE_ROUND_MEDIAN);
		ck_assert(res.rate > 0);
		ck_assert(res.rate == res.round_rate_median);
	} else {
		ck_assert_int_eq(res.rate_kind, FAULTGEN_RATE_WALL);
		ck_assert(res.rate > 0);
		ck_assert(res.rate == res.pages_per_wall_s);
	}
	faultgen_run_free(run);
}
END_TEST

/* ---- faultgen_stats ----------------------------------------------------- */

static void stats_of(const double *v, size_t n, struct faultgen_stats *st)
{
	memset(st, 0x5a, sizeof(*st)); /* every figure must be written */
	st->size = sizeof(*st);
	ck_assert_int_eq(faultgen_stats(v, n, st), 0);
	ck_assert_uint_eq(st->size, sizeof(*st));
	ck_assert_uint_eq(st->n, n);
}

START_TEST(stats_of_an_odd_count)
{
	const double v[] = { 5, 1, 4, 2, 3 };
	double copy[5];
	struct faultgen_stats st;

	memcpy(copy, v, sizeof(v));
	stats_of(copy, 5, &st);
	ck_assert(st.min == 1 && st.median == 3 && st.max == 5);
	ck_assert_double_eq_tol(st.mean, 3, 1e-12);
	/* The caller's values are left as they were. */
	for (int i = 0; i < 5; i++)
		ck_assert(copy[i] == v[i]);
	{
		const double w[] = { -1.5, 7, -1.5 };

		stats_of(w, 3, &st);
		ck_assert(st.min == -1.5 && st.median == -1.5 && st.max == 7);
		ck_assert_double_eq_tol(st.mean, 4.0 / 3, 1e-12);
	}
	{
		const double one = 42.25;

		stats_of(&one, 1, &st);
		ck_assert(st.min == 42.25 && st.median == 42.25 &&
			  st.max == 42.25 && st.mean == 42.25);
	}
}
END_TEST

START_TEST(stats_of_an_even_count_take_the_middle_two)
{
	const double v[] = { 10, 2, 8, 4 };
	const double w[] = { 1e6, 3e6 };
	struct faultgen_stats st;

	stats_of(v, 4, &st);
	ck_assert(st.min == 2 && st.max == 10);
	ck_assert(st.median == 6); /* (4 + 8) / 2 */
	ck_assert_double_eq_tol(st.mean, 6, 1e-12);
	stats_of(w, 2, &st);
	ck_assert(st.median == 2e6 && st.min == 1e6 && st.max == 3e6);
}
END_TEST

START_TEST(stats_of_nothing_are_zero)
{
	const double v[] = { 1 };
	struct faultgen_stats st;

	stats_of(NULL, 0, &st);
	ck_assert(st.min == 0 && st.median == 0 && st.max == 0 &&
		  st.mean == 0);
	stats_of(v, 0, &st);
	ck_assert(st.min == 0 && st.median == 0 && st.max == 0 &&
		  st.mean == 0);
}
END_TEST

START_TEST(stats_reject_bad_arguments_writing_nothing)
{
	const double v[] = { 3, 1, 2 };
	unsigned char buf[sizeof(struct faultgen_stats) + 16];
	struct faultgen_stats *st = (struct faultgen_stats *)buf;
	size_t cut = offsetof(struct faultgen_stats, median);

	memset(buf, 0xa5, sizeof(buf));
	st->size = sizeof(*st);
	ck_assert_int_eq(faultgen_stats(NULL, 3, st), -EINVAL);
	ck_assert_int_eq(faultgen_stats(v, 3, NULL), -EINVAL);
	st->size = sizeof(size_t) - 1;
	ck_assert_int_eq(faultgen_stats(v, 3, st), -EINVAL);
	for (size_t i = sizeof(size_t); i < sizeof(buf); i++)
		ck_assert_int_eq(buf[i], 0xa5);
	/* An older, smaller struct: what fits, nothing past it. */
	st->size = cut;
	ck_assert_int_eq(faultgen_stats(v, 3, st), 0);
	ck_assert_uint_eq(st->n, 3);
	ck_assert(st->min == 1);
	for (size_t i = cut; i < sizeof(buf); i++)
		ck_assert_msg(buf[i] == 0xa5, "byte %zu written", i);
}
END_TEST

static Suite *measure_suite(void)
{
	Suite *s = suite_create("measure");
	TCase *tc = tcase_create("result");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, result_figures_are_consistent, 0, 2);
	tcase_add_test(tc, faults_agree_within_one_percent_and_slack);
	tcase_add_loop_test(tc, rounds_are_summed_over_workers, 0, 2);
	tcase_add_loop_test(tc, round_rates_sum_slice_pages_over_round_seconds,
			    0, 2);
	tcase_add_test(tc, round_rates_need_a_measured_repeat_run);
	tcase_add_loop_test(tc,
			    rate_of_record_is_the_round_median_from_three_rounds,
			    0, 5);
	suite_add_tcase(s, tc);

	tc = tcase_create("stats");
	tcase_add_test(tc, stats_of_an_odd_count);
	tcase_add_test(tc, stats_of_an_even_count_take_the_middle_two);
	tcase_add_test(tc, stats_of_nothing_are_zero);
	tcase_add_test(tc, stats_reject_bad_arguments_writing_nothing);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return fgc_main(measure_suite());
}
