// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * check_writers.c - the shared VMA with mapping writers beside its
 * faulters (faultgen_attr_set_writers): no writers is the plain run, the
 * writers' calls are figures of their own and none of the workers'
 * faults, their regions never touch the faulters' VMA and are gone with
 * the run, and forked workers are refused.
 *
 * Counts and states only, never a timing.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "check-util.h"

#include <unistd.h>

#include "internal.h"

#define MIB (1ULL << 20)

static struct faultgen_attr *writers_attr(unsigned int workers,
					  unsigned int writers,
					  enum faultgen_writer_op op)
{
	struct faultgen_attr *a;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 16 * MIB), 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, workers,
						   FAULTGEN_THREADS), 0);
	ck_assert_int_eq(faultgen_attr_set_thp(a, FAULTGEN_THP_NOHUGEPAGE), 0);
	ck_assert_int_eq(faultgen_attr_set_writers(a, writers, op), 0);
	fgc_allow_workers(a, workers + writers);
	return a;
}

static struct faultgen_run *run_ok(const struct faultgen_attr *a)
{
	struct faultgen_run *run = NULL;
	int ret = faultgen_run_new(a, &run);

	ck_assert_msg(ret == 0, "run failed: %d %s", ret,
		      faultgen_strerror(ret));
	return run;
}

static void result_of(const struct faultgen_run *run,
		      struct faultgen_result *r)
{
	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	ck_assert_int_eq(faultgen_run_result(run, r), 0);
}

/* Figure `name` of the run; fails the test when it has none such. */
static double figure_of(const struct faultgen_run *run, const char *name)
{
	double v = fgc_figure_or(run, name, -1);

	ck_assert_msg(v >= 0, "no figure %s", name);
	return v;
}

START_TEST(setter_takes_counts_and_ops_and_refuses_others)
{
	struct faultgen_attr *a;
	enum faultgen_writer_op op = FAULTGEN_WRITER_MADVISE;
	unsigned int m = 7;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_get_writers(a, &m, &op), 0);
	ck_assert_uint_eq(m, 0);
	ck_assert_int_eq(op, FAULTGEN_WRITER_MMAP);
	ck_assert_int_eq(faultgen_attr_set_writers(a, 3,
						   FAULTGEN_WRITER_MPROTECT),
			 0);
	ck_assert_int_eq(faultgen_attr_set_writers(a, FAULTGEN_MAX_WRITERS + 1,
						   FAULTGEN_WRITER_MMAP),
			 -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_writers(
				 a, 1, (enum faultgen_writer_op)3),
			 -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_writers(NULL, 1,
						   FAULTGEN_WRITER_MMAP),
			 -EINVAL);
	/* A refused value left the attr as it was. */
	ck_assert_int_eq(faultgen_attr_get_writers(a, &m, &op), 0);
	ck_assert_uint_eq(m, 3);
	ck_assert_int_eq(op, FAULTGEN_WRITER_MPROTECT);
	ck_assert_int_eq(faultgen_attr_get_writers(NULL, &m, &op), -EINVAL);
	ck_assert_int_eq(faultgen_attr_get_writers(a, NULL, &op), -EINVAL);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(only_the_shared_vma_reads_writers)
{
	ck_assert_int_eq(faultgen_pattern_reads(FAULTGEN_SHARED_VMA,
						FAULTGEN_SETTING_WRITERS),
			 1);
	for (int p = 1; p < faultgen_pattern_count(); p++)
		ck_assert_int_eq(faultgen_pattern_reads(
					 p, FAULTGEN_SETTING_WRITERS),
				 0);
}
END_TEST

START_TEST(writers_refused_beside_processes)
{
	struct faultgen_attr *a = writers_attr(2, 1, FAULTGEN_WRITER_MMAP);
	struct faultgen_run *run = NULL;

	ck_assert_int_eq(faultgen_attr_set_workers(a, 2, FAULTGEN_PROCESSES),
			 0);
	FGC_ASSERT_CONFLICT_WITH(a, FAULTGEN_SETTING_WRITERS, FAULTGEN_SETTING_WORKERS);
	ck_assert_int_eq(faultgen_run_new(a, &run), -EINVAL);
	ck_assert_ptr_null(run);
	ck_assert(fgc_no_children());
	/* No writers: processes run as ever. */
	ck_assert_int_eq(faultgen_attr_set_writers(a, 0, FAULTGEN_WRITER_MMAP),
			 0);
	ck_assert_int_eq(faultgen_attr_check(a, NULL), 0);
	faultgen_attr_free(a);
}
END_TEST

/*
 * No writers is the plain run: the same path (the state says no writer
 * ran), no figure, no mapping beyond the plain run's, the same counts.
 */
START_TEST(no_writers_is_the_plain_run)
{
	struct faultgen_attr *plain = writers_attr(2, 0, FAULTGEN_WRITER_MMAP);
	struct faultgen_attr *zero = writers_attr(2, 0, FAULTGEN_WRITER_MPROTECT);
	struct faultgen_figure f = { .size = sizeof(f) };
	struct faultgen_result rp, rz;
	struct faultgen_run *run;
	const struct fg_writers *st;

	/* plain: writers never set. */
	faultgen_attr_free(plain);
	ck_assert_int_eq(faultgen_attr_new(&plain), 0);
	ck_assert_int_eq(faultgen_attr_set_size(plain, 16 * MIB), 0);
	ck_assert_int_eq(faultgen_attr_set_workers(plain, 2, FAULTGEN_THREADS),
			 0);
	ck_assert_int_eq(faultgen_attr_set_thp(plain, FAULTGEN_THP_NOHUGEPAGE),
			 0);
	fgc_allow_workers(plain, 2);

	run = run_ok(plain);
	result_of(run, &rp);
	ck_assert_int_eq(faultgen_run_figure(run, 0, &f), -ERANGE);
	faultgen_run_free(run);

	run = run_ok(zero);
	result_of(run, &rz);
	st = fg_pattern_state(run);
	ck_assert_ptr_nonnull(st);
	ck_assert(!st->ran);
	ck_assert_ptr_null(st->resv.raw);
	ck_assert_ptr_null(st->guard[0]);
	ck_assert_ptr_null(st->guard[1]);
	ck_assert_int_eq(faultgen_run_figure(run, 0, &f), -ERANGE);
	faultgen_run_free(run);

	ck_assert_uint_eq(rz.workers, rp.workers);
	ck_assert_uint_eq(rz.bytes, rp.bytes);
	ck_assert_uint_eq(rz.pages, rp.pages);
	ck_assert_uint_eq(rz.expected_faults, rp.expected_faults);
	ck_assert(rz.faults_agree && rp.faults_agree);
	faultgen_attr_free(plain);
	faultgen_attr_free(zero);
}
END_TEST

/*
 * Each op: the workers' faults are their pages (the writers' own faults
 * are not theirs), the writers counted whole cycles of two calls, the
 * shared VMA is still one maps line of its own size (no writer region or
 * stack merged into it), and the writers' mappings are gone with the run.
 */
START_TEST(writers_count_calls_apart_from_the_faults)
{
	enum faultgen_writer_op op = (enum faultgen_writer_op)_i;
	struct faultgen_attr *a = writers_attr(1, 2, op);
	struct faultgen_result r;
	struct faultgen_run *run;
	struct fgc_vma *v;
	const struct fg_writers *st;
	void *resv, *guard[2];
	size_t resv_len, ps = (size_t)fgc_pagesize();
	int nv, first;
	double calls, wall, rate;
	void *addr;
	size_t len;

	/* Rounds: long enough for the writers to get CPU time beside the
	 * worker on a busy machine. */
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 20, FAULTGEN_ZAP_DONTNEED),
			 0);
	run = run_ok(a);
	result_of(run, &r);
	ck_assert_uint_eq(r.pages, 20 * fgc_pages_for(16 * MIB, 1));
	ck_assert_msg(fgc_close(r.pages, r.minflt, 1) && r.faults_agree,
		      "%llu faults for %llu pages",
		      (unsigned long long)r.minflt,
		      (unsigned long long)r.pages);
	ck_assert_int_eq((int)figure_of(run, "writers"), 2);
	calls = figure_of(run, "writer_calls");
	wall = figure_of(run, "writer_s");
	rate = figure_of(run, "writer_calls_per_s");
	ck_assert_msg(calls > 0 && (uint64_t)calls % 2 == 0, "%g calls",
		      calls);
	ck_assert(wall > 0);
	ck_assert_msg(rate > 0 && rate * wall - calls <= 1e-6 * calls &&
			      calls - rate * wall <= 1e-6 * calls,
		      "%g calls/s over %g s for %g calls", rate, wall, calls);

	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	nv = fgc_maps_read(&v);
	ck_assert_int_eq(fgc_vmas_over(v, nv, addr, len, &first), 1);
	ck_assert_uint_eq(v[first].start, (unsigned long)addr);
	ck_assert_uint_eq(v[first].end, (unsigned long)addr + len);
	/* The guards and the reservation, as the run left them. */
	st = fg_pattern_state(run);
	resv = st->resv.raw;
	resv_len = st->resv.raw_len;
	guard[0] = st->guard[0];
	guard[1] = st->guard[1];
	ck_assert_ptr_nonnull(resv);
	/* mmap: each region is mapped back PROT_NONE and merges into the
	 * reservation again; the others: two regions and three guards. */
	ck_assert_int_eq(fgc_vmas_over(v, nv, resv, resv_len, &first),
			 op == FAULTGEN_WRITER_MMAP ? 1 : 5);
	for (int g = 0; g < 2; g++)
		ck_assert(!guard[g] ||
			  fgc_vmas_over(v, nv, guard[g], ps, &first) == 1);
	free(v);
	faultgen_run_free(run);
	ck_assert_int_eq(fgc_threads_settle(1), 1);
	/* Gone with the run, unless a sanitizer's allocator has mapped the
	 * freed range for itself meanwhile. */
	nv = fgc_maps_read(&v);
	if (!fgc_under_sanitizer()) {
		ck_assert_int_eq(fgc_vmas_over(v, nv, resv, resv_len, &first),
				 0);
		for (int g = 0; g < 2; g++)
			ck_assert(!guard[g] ||
				  fgc_vmas_over(v, nv, guard[g], ps, &first) ==
					  0);
	}
	free(v);
	faultgen_attr_free(a);
}
END_TEST

/*
 * The writers' window is the measured phase: writer_s is the result's
 * elapsed time, also when the workers go on after it (the count of
 * their pages per node that --json and --per-worker ask for, which in a
 * repeat run faults the slice once more, unmeasured), and the rate is
 * the calls over it.
 */
START_TEST(writers_window_is_the_measured_phase)
{
	struct faultgen_attr *a = writers_attr(1, 2, FAULTGEN_WRITER_MMAP);
	struct faultgen_result r;
	struct faultgen_run *run;
	double calls, wall;

	ck_assert_int_eq(faultgen_attr_set_rounds(a, 4, FAULTGEN_ZAP_DONTNEED),
			 0);
	ck_assert_int_eq(faultgen_attr_set_warmup(a, 2), 0);
	ck_assert_int_eq(faultgen_attr_set_node_pages(a, 1), 0);
	run = run_ok(a);
	result_of(run, &r);
	calls = figure_of(run, "writer_calls");
	wall = figure_of(run, "writer_s");
	ck_assert_msg(wall == r.elapsed_s, "writers over %.9f s, the "
		      "measured phase %.9f s", wall, r.elapsed_s);
	ck_assert_msg(calls == 0 || figure_of(run, "writer_calls_per_s") ==
					    calls / r.elapsed_s,
		      "%g calls/s for %g calls over %.9f s",
		      figure_of(run, "writer_calls_per_s"), calls,
		      r.elapsed_s);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

static _Atomic uint32_t writers_seen_stopped;

/* A worker that, once its measured interval is over, waits for the
 * writers to stop before it is through (at most a minute: a failure
 * must not hang the suite). */
static int waits_for_writers(struct faultgen_run *run, unsigned int i)
{
	const struct fg_writers *st = fg_pattern_state(run);
	struct fg_wstat *w = &run->sh->w[i];
	int64_t until = fg_now_ns() + 60 * 1000000000LL;
	struct fg_usage at;
	int ret;

	fg_stat_begin(w, &at, false);
	fg_measure_begin(run);
	ret = fg_touch(run, run->waddr[i], run->wlen[i], run->sh);
	fg_stat_end(w, &at, false);
	fg_measure_end(run);
	while (atomic_load(&st->stopped) < run->attr.writers &&
	       fg_now_ns() < until)
		usleep(1000);
	atomic_store(&writers_seen_stopped, atomic_load(&st->stopped));
	return ret;
}

/* The writers stop as the measured phase ends, not when the workers are
 * through: a worker still busy after its phase sees them stopped, and
 * the calls they count stay those made within the phase. */
START_TEST(writers_stop_when_the_measured_phase_ends)
{
	struct faultgen_attr *a = writers_attr(2, 3, FAULTGEN_WRITER_MPROTECT);
	const struct fg_work work = { .body = waits_for_writers,
				      .barrier = true,
				      .helpers = fg_writers_count,
				      .helper = fg_writer_run };
	const struct fg_writers *st;
	struct faultgen_run *run;
	uint64_t calls;

	ck_assert_int_eq(fg_run_create(a, &run), 0);
	faultgen_attr_free(a);
	ck_assert_int_eq(fg_run_prepare(run), 0);
	ck_assert_int_eq(fg_memory_setup(run), 0);
	ck_assert_int_eq(fg_writers_setup(run), 0);
	atomic_store(&writers_seen_stopped, 0);
	ck_assert_int_eq(fg_workers_run(run, &work), 0);
	ck_assert_uint_eq(atomic_load(&writers_seen_stopped), 3);
	ck_assert_uint_eq(atomic_load(&run->sh->measure_begun), 2);
	ck_assert_uint_eq(atomic_load(&run->sh->measure_ended), 2);
	st = fg_pattern_state(run);
	calls = atomic_load(&st->calls);
	ck_assert_uint_eq(calls % 2, 0);
	ck_assert_uint_eq(atomic_load(&run->sh->cancel), 0);
	fg_run_free(run);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("writers");
	TCase *tc = tcase_create("attr");

	tcase_add_test(tc, setter_takes_counts_and_ops_and_refuses_others);
	tcase_add_test(tc, only_the_shared_vma_reads_writers);
	tcase_add_test(tc, writers_refused_beside_processes);
	suite_add_tcase(s, tc);
	tc = tcase_create("run");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, no_writers_is_the_plain_run);
	tcase_add_loop_test(tc, writers_count_calls_apart_from_the_faults,
			    FAULTGEN_WRITER_MMAP, FAULTGEN_WRITER_MADVISE + 1);
	tcase_add_test(tc, writers_window_is_the_measured_phase);
	tcase_add_test(tc, writers_stop_when_the_measured_phase_ends);
	suite_add_tcase(s, tc);
	return fgc_main(s);
}
