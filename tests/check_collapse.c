// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * check_collapse.c - the read-only THP collapse pattern: MADV_COLLAPSE of
 * mprotect-read-only, fork-shared and writable memory, the khugepaged
 * variant, the verdict logic, the result getters, and the example.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "check-util.h"
#include "internal.h"

#include <limits.h>
#include <numaif.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>

#define MIB (1ULL << 20)

static uint64_t hpage(void)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size",
			"re");
	char buf[64];
	uint64_t v = 0;

	if (f) {
		if (fgets(buf, sizeof(buf), f))
			v = strtoull(buf, NULL, 10);
		fclose(f);
	}
	return v ? v : 2 * MIB;
}

static struct faultgen_attr *collapse_attr(uint64_t size, unsigned int n,
					   enum faultgen_protect protect,
					   enum faultgen_collapse collapse)
{
	struct faultgen_attr *a;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, FAULTGEN_RO_COLLAPSE), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, size), 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, n, FAULTGEN_THREADS), 0);
	fgc_allow_workers(a, n);
	ck_assert_int_eq(faultgen_attr_set_protect(a, protect), 0);
	ck_assert_int_eq(faultgen_attr_set_collapse(a, collapse), 0);
	return a;
}

static struct faultgen_run *run_collapse(uint64_t size, unsigned int n,
					 enum faultgen_protect protect,
					 enum faultgen_collapse collapse,
					 double timeout,
					 struct faultgen_collapse_result *res)
{
	struct faultgen_attr *a = collapse_attr(size, n, protect, collapse);
	struct faultgen_run *run;
	int err;

	if (timeout > 0)
		ck_assert_int_eq(faultgen_attr_set_timeout(a, timeout), 0);
	err = faultgen_run_new(a, &run);
	faultgen_attr_free(a);
	ck_assert_msg(err == 0, "run: %s", faultgen_strerror(err));
	memset(res, 0, sizeof(*res));
	res->size = sizeof(*res);
	ck_assert_int_eq(faultgen_run_collapse(run, res), 0);
	return run;
}

/* Ranges in each state, as the per-range getter reports them. */
static void count_states(const struct faultgen_run *run, unsigned int ranges,
			 unsigned int *collapsed, unsigned int *failed)
{
	*collapsed = *failed = 0;
	for (unsigned int i = 0; i < ranges; i++) {
		struct faultgen_collapse_range r = { .size = sizeof(r) };

		ck_assert_int_eq(faultgen_run_collapse_range(run, i, &r), 0);
		ck_assert_uint_eq(r.index, i);
		*collapsed += r.state == FAULTGEN_RANGE_COLLAPSED;
		*failed += r.state == FAULTGEN_RANGE_FAILED;
		ck_assert(r.state != FAULTGEN_RANGE_FAILED || r.error < 0);
	}
}

/* The verdict must follow from the counts, whatever the kernel did. */
static void assert_verdict_consistent(const struct faultgen_collapse_result *r)
{
	if (r->collapsed == r->ranges)
		ck_assert_int_eq(r->verdict, FAULTGEN_VERDICT_COLLAPSED);
	else if (r->collapsed > 0)
		ck_assert_int_eq(r->verdict, FAULTGEN_VERDICT_PARTIAL);
	else
		ck_assert(r->verdict != FAULTGEN_VERDICT_COLLAPSED &&
			  r->verdict != FAULTGEN_VERDICT_PARTIAL);
}

/* ---- the verdict logic, fed the kernel's answers ---------------------- */

START_TEST(judges_einval_on_read_only_as_refused)
{
	ck_assert_int_eq(faultgen_collapse_verdict(FAULTGEN_PROTECT_MPROTECT,
						   8, 0, -EINVAL),
			 FAULTGEN_VERDICT_REFUSED_RO);
	/* fork write-protects the PTEs too; MADV_COLLAPSE ignores sharing. */
	ck_assert_int_eq(faultgen_collapse_verdict(FAULTGEN_PROTECT_FORK, 8, 0,
						   -EINVAL),
			 FAULTGEN_VERDICT_REFUSED_RO);
}
END_TEST

START_TEST(judges_einval_on_writable_as_unsupported)
{
	ck_assert_int_eq(faultgen_collapse_verdict(FAULTGEN_PROTECT_WRITABLE,
						   8, 0, -EINVAL),
			 FAULTGEN_VERDICT_UNSUPPORTED);
	ck_assert_int_eq(faultgen_collapse_verdict(FAULTGEN_PROTECT_MPROTECT,
						   8, 0, -EOPNOTSUPP),
			 FAULTGEN_VERDICT_UNSUPPORTED);
}
END_TEST

START_TEST(judges_counts_before_errors)
{
	const enum faultgen_protect p = FAULTGEN_PROTECT_MPROTECT;

	ck_assert_int_eq(faultgen_collapse_verdict(p, 8, 8, 0),
			 FAULTGEN_VERDICT_COLLAPSED);
	ck_assert_int_eq(faultgen_collapse_verdict(p, 8, 3, -EINVAL),
			 FAULTGEN_VERDICT_PARTIAL);
	ck_assert_int_eq(faultgen_collapse_verdict(p, 8, 0, -ENOMEM),
			 FAULTGEN_VERDICT_NONE);
	ck_assert_int_eq(faultgen_collapse_verdict(p, 8, 0, -EAGAIN),
			 FAULTGEN_VERDICT_NONE);
	ck_assert_int_eq(faultgen_collapse_verdict(p, 8, 0, 0),
			 FAULTGEN_VERDICT_NONE);
	ck_assert_int_eq(faultgen_collapse_verdict(p, 0, 0, -EINVAL),
			 FAULTGEN_VERDICT_NONE);
	ck_assert_int_eq(faultgen_collapse_verdict((enum faultgen_protect)7,
						   8, 0, -EINVAL),
			 FAULTGEN_VERDICT_NONE);
}
END_TEST

START_TEST(judges_khugepaged_from_its_evidence)
{
	const enum faultgen_protect ro = FAULTGEN_PROTECT_MPROTECT;
	const enum faultgen_protect fork = FAULTGEN_PROTECT_FORK;
	const enum faultgen_protect wr = FAULTGEN_PROTECT_WRITABLE;

	/* THP never: khugepaged does not run. */
	ck_assert_int_eq(fg_khugepaged_verdict(ro, 4, 0, false, 0, 0, 0),
			 FAULTGEN_VERDICT_UNSUPPORTED);
	/* Shared PTEs counted while nothing collapsed. */
	ck_assert_int_eq(fg_khugepaged_verdict(fork, 4, 0, true, 0, 8, 0),
			 FAULTGEN_VERDICT_REFUSED_SHARED);
	/* The counter is global: it accuses only fork's sharing. */
	ck_assert_int_eq(fg_khugepaged_verdict(ro, 4, 0, true, 0, 8, 0),
			 FAULTGEN_VERDICT_NONE);
	/* Two full scans past every range, nothing collapsed. */
	ck_assert_int_eq(fg_khugepaged_verdict(ro, 4, 0, true, 2, 0, 0),
			 FAULTGEN_VERDICT_REFUSED_RO);
	/* One scan may have begun after our ranges: not enough. */
	ck_assert_int_eq(fg_khugepaged_verdict(ro, 4, 0, true, 1, 0, 0),
			 FAULTGEN_VERDICT_NONE);
	/* An allocation failure explains it otherwise. */
	ck_assert_int_eq(fg_khugepaged_verdict(ro, 4, 0, true, 3, 0, 1),
			 FAULTGEN_VERDICT_NONE);
	ck_assert_int_eq(fg_khugepaged_verdict(wr, 4, 0, true, 3, 0, 0),
			 FAULTGEN_VERDICT_NONE);
	ck_assert_int_eq(fg_khugepaged_verdict(fork, 4, 2, true, 3, 8, 0),
			 FAULTGEN_VERDICT_PARTIAL);
	ck_assert_int_eq(fg_khugepaged_verdict(ro, 4, 4, true, 0, 0, 0),
			 FAULTGEN_VERDICT_COLLAPSED);
}
END_TEST

/* ---- MADV_COLLAPSE ---------------------------------------------------- */

/* Skips (returns false) where the kernel does not know MADV_COLLAPSE. */
static bool have_madv_collapse(const char **why)
{
	int err = fg_collapse_probe();

	*why = err == -EINVAL ? "this kernel has no MADV_COLLAPSE" :
				"MADV_COLLAPSE probe failed";
	return err != -EINVAL;
}

START_TEST(probe_collapses_a_writable_range)
{
	int err = fg_collapse_probe();

	if (err == -EINVAL)
		FGC_SKIP("this kernel has no MADV_COLLAPSE");
	ck_assert_int_eq(err, 0);
}
END_TEST

static void check_all_collapsed(enum faultgen_protect protect,
				unsigned int workers, int _i)
{
	struct faultgen_collapse_result res;
	struct faultgen_result r = { .size = sizeof(r) };
	uint64_t size = 8 * hpage(), kb;
	unsigned int collapsed, failed;
	struct faultgen_run *run;
	const char *why;
	char flags[512];
	size_t len;
	void *addr;

	(void)_i;
	run = run_collapse(size, workers, protect, FAULTGEN_COLLAPSE_MADVISE,
			   0, &res);
	if (res.verdict == FAULTGEN_VERDICT_UNSUPPORTED &&
	    !have_madv_collapse(&why)) {
		faultgen_run_free(run);
		fgc_skip_note(__func__, _i, "%s", why);
		return;
	}
	ck_assert_uint_eq(res.ranges, 8);
	ck_assert_msg(res.collapsed == 8, "collapsed %u/8, first error %d",
		      res.collapsed, res.first_error);
	ck_assert_uint_eq(res.failed, 0);
	ck_assert_int_eq(res.first_error, 0);
	ck_assert_int_eq(res.verdict, FAULTGEN_VERDICT_COLLAPSED);
	ck_assert_int_eq(res.content_ok, 1);
	ck_assert_uint_eq(res.progress_samples, 0);
	/* A monotonic counter: others may add to it, never take away. */
	ck_assert_uint_ge(res.thp_collapse_alloc, 8);
	count_states(run, res.ranges, &collapsed, &failed);
	ck_assert_uint_eq(collapsed, 8);
	ck_assert_uint_eq(failed, 0);

	/* The kernel's own account agrees: every range is a huge page. */
	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	ck_assert_uint_eq(len, size);
	ck_assert_uint_eq((uintptr_t)addr % hpage(), 0);
	ck_assert_int_eq(fg_smaps_anon_huge(addr, len, &kb), 0);
	ck_assert_uint_eq(kb * 1024, size);
	ck_assert_int_eq(fgc_vmflags(addr, flags, sizeof(flags)), 0);
	ck_assert_msg(fgc_vmflag_has(flags, "wr") ==
			      (protect != FAULTGEN_PROTECT_MPROTECT),
		      "VmFlags:%s", flags);

	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	ck_assert_uint_eq(r.workers, workers);
	ck_assert_uint_eq(r.bytes, size);
	ck_assert_uint_eq(r.pages, size / (uint64_t)fgc_pagesize());
	faultgen_run_free(run);
}

START_TEST(collapses_every_mprotect_range_with_content_unchanged)
{
	check_all_collapsed(FAULTGEN_PROTECT_MPROTECT, 1, _i);
}
END_TEST

START_TEST(collapses_every_writable_control_range)
{
	check_all_collapsed(FAULTGEN_PROTECT_WRITABLE, 1, _i);
}
END_TEST

START_TEST(splits_ranges_between_two_threads)
{
	struct faultgen_worker_result w = { .size = sizeof(w) };
	struct faultgen_collapse_result res;
	struct faultgen_run *run;
	size_t len;
	void *addr;

	check_all_collapsed(FAULTGEN_PROTECT_MPROTECT, 2, _i);
	run = run_collapse(4 * hpage(), 2, FAULTGEN_PROTECT_MPROTECT,
			   FAULTGEN_COLLAPSE_MADVISE, 0, &res);
	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	for (unsigned int i = 0; i < 2; i++) {
		ck_assert_int_eq(faultgen_run_worker(run, i, &w), 0);
		ck_assert_ptr_eq(w.addr, (char *)addr + i * 2 * hpage());
		ck_assert_uint_eq(w.len, 2 * hpage());
	}
	faultgen_run_free(run);
}
END_TEST

START_TEST(fork_variant_reports_outcome_and_reaps_its_child)
{
	struct faultgen_collapse_result res;
	unsigned int collapsed, failed;
	struct faultgen_run *run;
	pid_t kids[4];

	run = run_collapse(8 * hpage(), 1, FAULTGEN_PROTECT_FORK,
			   FAULTGEN_COLLAPSE_MADVISE, 0, &res);
	ck_assert_uint_eq(res.ranges, 8);
	ck_assert_uint_le(res.collapsed + res.failed, res.ranges);
	ck_assert_int_eq(res.content_ok, 1);
	assert_verdict_consistent(&res);
	if (res.failed)
		ck_assert_int_lt(res.first_error, 0);
	if (res.verdict == FAULTGEN_VERDICT_REFUSED_RO)
		ck_assert_int_eq(res.first_error, -EINVAL);
	count_states(run, res.ranges, &collapsed, &failed);
	ck_assert_uint_eq(collapsed, res.collapsed);
	ck_assert_uint_eq(failed, res.failed);
	/* The child that shared the pages is gone, reaped. */
	ck_assert_int_eq(fgc_children(getpid(), kids, 4), 0);
	printf("fork + MADV_COLLAPSE: %u/%u collapsed, verdict %d, "
	       "first error %d\n",
	       res.collapsed, res.ranges, res.verdict, res.first_error);
	faultgen_run_free(run);
}
END_TEST

START_TEST(rounds_size_up_to_whole_ranges_and_slices)
{
	struct faultgen_collapse_result res;
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_run *run;

	/* 2.5 huge pages, two workers: 3 ranges, then 4 for whole slices. */
	run = run_collapse(5 * hpage() / 2, 2, FAULTGEN_PROTECT_WRITABLE,
			   FAULTGEN_COLLAPSE_MADVISE, 0, &res);
	ck_assert_uint_eq(res.ranges, 4);
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	ck_assert_uint_eq(r.bytes, 4 * hpage());
	faultgen_run_free(run);
}
END_TEST

/* ---- khugepaged --------------------------------------------------------- */

static void check_khugepaged(enum faultgen_protect protect, int _i)
{
	struct faultgen_collapse_result res;
	struct faultgen_progress p = { .size = sizeof(p) };
	struct faultgen_progress last = { .size = sizeof(last) };
	unsigned int collapsed, failed;
	struct faultgen_run *run;
	pid_t kids[4];

	run = run_collapse(4 * hpage(), 1, protect,
			   FAULTGEN_COLLAPSE_KHUGEPAGED, 2.0, &res);
	if (res.verdict == FAULTGEN_VERDICT_UNSUPPORTED) {
		faultgen_run_free(run);
		fgc_skip_note(__func__, _i, "THP is never: no khugepaged");
		return;
	}
	ck_assert_uint_eq(res.ranges, 4);
	ck_assert_uint_le(res.collapsed, res.ranges);
	ck_assert_uint_eq(res.failed, 0);
	ck_assert_int_eq(res.first_error, 0);
	ck_assert_int_eq(res.content_ok, 1);
	assert_verdict_consistent(&res);
	ck_assert_uint_ge(res.progress_samples, 1);
	for (unsigned int i = 0; i < res.progress_samples; i++) {
		ck_assert_int_eq(faultgen_run_collapse_progress(run, i, &p), 0);
		ck_assert(p.t_s >= last.t_s);
		ck_assert_uint_ge(p.collapsed, last.collapsed);
		ck_assert_uint_le(p.collapsed, res.ranges);
		last = p;
	}
	ck_assert_uint_eq(last.collapsed, res.collapsed);
	ck_assert_int_eq(faultgen_run_collapse_progress(
				 run, res.progress_samples, &p),
			 -ERANGE);
	count_states(run, res.ranges, &collapsed, &failed);
	ck_assert_uint_eq(collapsed, res.collapsed);
	ck_assert_uint_eq(failed, 0);
	if (res.verdict == FAULTGEN_VERDICT_REFUSED_SHARED) {
		ck_assert_int_eq(protect, FAULTGEN_PROTECT_FORK);
		ck_assert_uint_gt(res.thp_scan_exceed_share_pte, 0);
	}
	if (res.verdict == FAULTGEN_VERDICT_REFUSED_RO)
		ck_assert_uint_ge(res.khugepaged_full_scans, 2);
	ck_assert_int_eq(fgc_children(getpid(), kids, 4), 0);
	printf("khugepaged (protect %d): %u/%u collapsed in %u samples, "
	       "verdict %d, %llu full scans, %llu shared refusals\n",
	       protect, res.collapsed, res.ranges, res.progress_samples,
	       res.verdict, (unsigned long long)res.khugepaged_full_scans,
	       (unsigned long long)res.thp_scan_exceed_share_pte);
	faultgen_run_free(run);
}

START_TEST(khugepaged_variant_reports_a_consistent_state)
{
	check_khugepaged(FAULTGEN_PROTECT_MPROTECT, _i);
}
END_TEST

START_TEST(khugepaged_fork_variant_reports_a_consistent_state)
{
	check_khugepaged(FAULTGEN_PROTECT_FORK, _i);
}
END_TEST

static void *cancel_later(void *arg)
{
	struct timespec ts = { 0, 300 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	faultgen_run_cancel(arg);
	return NULL;
}

START_TEST(cancel_ends_the_khugepaged_wait_and_reaps_the_child)
{
	struct faultgen_attr *a;
	struct faultgen_run *run;
	pthread_t t;
	pid_t kids[4];
	int err;

	/* Larger than khugepaged can finish in the test's time. */
	a = collapse_attr(16 * hpage(), 1, FAULTGEN_PROTECT_FORK,
			  FAULTGEN_COLLAPSE_KHUGEPAGED);
	ck_assert_int_eq(faultgen_attr_set_timeout(a, 600), 0);
	ck_assert_int_eq(faultgen_run_create(a, &run), 0);
	faultgen_attr_free(a);
	ck_assert_int_eq(pthread_create(&t, NULL, cancel_later, run), 0);
	err = faultgen_run_exec(run);
	pthread_join(t, NULL);
	/* Unless THP is never: then nothing waits and the run completes. */
	if (err == 0) {
		struct faultgen_collapse_result res = { .size = sizeof(res) };

		ck_assert_int_eq(faultgen_run_collapse(run, &res), 0);
		ck_assert_int_eq(res.verdict, FAULTGEN_VERDICT_UNSUPPORTED);
	} else {
		ck_assert_int_eq(err, -ECANCELED);
	}
	ck_assert_int_eq(fgc_children(getpid(), kids, 4), 0);
	faultgen_run_free(run);
}
END_TEST

/*
 * The LIBFAULTGEN_1.0 version of faultgen_run_collapse_progress, which
 * programs built against 1.0 call (faultgen_run_collapse_progress@
 * LIBFAULTGEN_1.0); the convenience library exports it under this name.
 * Its struct had no size member.
 */
struct progress_1_0 {
	double t_s;
	unsigned int collapsed;
};
int faultgen_run_collapse_progress_1_0(const struct faultgen_run *run,
				       unsigned int index,
				       struct progress_1_0 *p);

START_TEST(progress_1_0_fills_the_old_struct_and_nothing_past_it)
{
	size_t end = offsetof(struct progress_1_0, collapsed) +
		     sizeof(unsigned int);
	struct faultgen_collapse_result res;
	unsigned char buf[sizeof(struct progress_1_0) + 16];
	struct progress_1_0 *old = (struct progress_1_0 *)buf;
	struct faultgen_run *run;

	run = run_collapse(hpage(), 1, FAULTGEN_PROTECT_MPROTECT,
			   FAULTGEN_COLLAPSE_KHUGEPAGED, 1.0, &res);
	if (res.verdict == FAULTGEN_VERDICT_UNSUPPORTED) {
		faultgen_run_free(run);
		FGC_SKIP("THP is never: no khugepaged progress");
	}
	ck_assert_uint_ge(res.progress_samples, 1);
	for (unsigned int i = 0; i < res.progress_samples; i++) {
		struct faultgen_progress now = { .size = sizeof(now) };

		ck_assert_int_eq(faultgen_run_collapse_progress(run, i, &now),
				 0);
		memset(buf, 0xa5, sizeof(buf));
		ck_assert_int_eq(faultgen_run_collapse_progress_1_0(run, i, old),
				 0);
		ck_assert(old->t_s == now.t_s);
		ck_assert_uint_eq(old->collapsed, now.collapsed);
		for (size_t b = end; b < sizeof(buf); b++)
			ck_assert_msg(buf[b] == 0xa5, "sample %u: byte %zu "
				      "written", i, b);
	}
	ck_assert_int_eq(faultgen_run_collapse_progress_1_0(
				 run, res.progress_samples, old),
			 -ERANGE);
	ck_assert_int_eq(faultgen_run_collapse_progress_1_0(run, 0, NULL),
			 -EINVAL);
	ck_assert_int_eq(faultgen_run_collapse_progress_1_0(NULL, 0, old),
			 -EINVAL);
	faultgen_run_free(run);
}
END_TEST

/* ---- the pattern's named figures (faultgen_run_figure) ------------------- */

/* The figures name the collapse result's fields, whatever the kernel
 * did with the ranges. */
START_TEST(figures_name_the_collapse_result)
{
	static const char *const names[] = { "ranges", "collapsed", "failed",
					     "content_ok" };
	struct faultgen_collapse_result res;
	struct faultgen_figure f = { .size = sizeof(f) };
	struct faultgen_run *run;
	double want[4], got[4] = { -1, -1, -1, -1 };
	int n;

	run = run_collapse(4ULL << 20, 1, FAULTGEN_PROTECT_WRITABLE,
			   FAULTGEN_COLLAPSE_MADVISE, 0, &res);
	want[0] = res.ranges;
	want[1] = res.collapsed;
	want[2] = res.failed;
	want[3] = res.content_ok;
	n = faultgen_run_figure(run, 0, &f);
	ck_assert_int_ge(n, 4);
	for (int i = 0; i < n; i++) {
		ck_assert_int_eq(faultgen_run_figure(run, (unsigned int)i, &f),
				 n);
		ck_assert_ptr_nonnull(f.name);
		ck_assert_ptr_nonnull(f.unit);
		for (int k = 0; k < 4; k++)
			if (strcmp(f.name, names[k]) == 0)
				got[k] = f.value;
		if (strcmp(f.name, "collapse_s") == 0)
			ck_assert(f.value == res.collapse_s);
	}
	for (int k = 0; k < 4; k++)
		ck_assert_msg(got[k] == want[k], "%s: %g, not %g", names[k],
			      got[k], want[k]);
	ck_assert_int_eq(faultgen_run_figure(run, (unsigned int)n, &f),
			 -ERANGE);
	ck_assert_int_eq(faultgen_run_figure(run, 0, NULL), -EINVAL);
	f.size = 0;
	ck_assert_int_eq(faultgen_run_figure(run, 0, &f), -EINVAL);
	ck_assert_int_eq(faultgen_run_figure(NULL, 0, &f), -EINVAL);
	faultgen_run_free(run);
}
END_TEST

/* A pattern without figures of its own has none; a run not yet run has
 * nothing to read. */
START_TEST(figures_absent_where_the_pattern_has_none)
{
	struct faultgen_figure f = { .size = sizeof(f) };
	struct faultgen_attr *a;
	struct faultgen_run *run;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_run_create(a, &run), 0);
	ck_assert_int_eq(faultgen_run_figure(run, 0, &f), -ENODATA);
	ck_assert_int_eq(faultgen_run_exec(run), 0);
	ck_assert_int_eq(faultgen_run_figure(run, 0, &f), -ERANGE);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(names_every_verdict)
{
	static const struct {
		enum faultgen_verdict v;
		const char *name;
	} names[] = {
		{ FAULTGEN_VERDICT_COLLAPSED, "collapsed" },
		{ FAULTGEN_VERDICT_PARTIAL, "partial" },
		{ FAULTGEN_VERDICT_REFUSED_RO, "refused-read-only" },
		{ FAULTGEN_VERDICT_REFUSED_SHARED, "refused-shared" },
		{ FAULTGEN_VERDICT_UNSUPPORTED, "unsupported" },
		{ FAULTGEN_VERDICT_NONE, "none" },
		{ (enum faultgen_verdict)6, "unknown" },
		{ (enum faultgen_verdict)-1, "unknown" },
		{ (enum faultgen_verdict)INT_MAX, "unknown" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		ck_assert_str_eq(faultgen_verdict_name(names[i].v),
				 names[i].name);
}
END_TEST

/* ---- settings and getters ---------------------------------------------- */

START_TEST(rejects_processes_and_non_anonymous_backing)
{
	struct faultgen_attr *a;
	struct faultgen_run *run;

	a = collapse_attr(2 * MIB, 1, FAULTGEN_PROTECT_MPROTECT,
			  FAULTGEN_COLLAPSE_MADVISE);
	ck_assert_int_eq(faultgen_attr_set_workers(a, 1, FAULTGEN_PROCESSES),
			 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), -EINVAL);
	ck_assert_ptr_null(run);
	ck_assert_int_eq(faultgen_attr_set_workers(a, 1, FAULTGEN_THREADS), 0);
	ck_assert_int_eq(faultgen_attr_set_backing(a, FAULTGEN_BACKING_SYSV),
			 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_backing(a, FAULTGEN_BACKING_DEVZERO),
			 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), -EINVAL);
	faultgen_attr_free(a);
}
END_TEST

/* The local policy (pft -p) is the region's policy, as the kernel has
 * it (get_mempolicy of the address). */
START_TEST(applies_the_local_policy_to_its_region)
{
	struct faultgen_attr *a;
	struct faultgen_run *run;
	int mode = -1, ret;
	size_t len;
	void *addr;

	a = collapse_attr(2 * hpage(), 1, FAULTGEN_PROTECT_MPROTECT,
			  FAULTGEN_COLLAPSE_MADVISE);
	ret = faultgen_attr_set_numa(a, FAULTGEN_NUMA_LOCAL);
	if (ret == -EOPNOTSUPP) {
		faultgen_attr_free(a);
		FGC_SKIP("no NUMA support in this kernel");
	}
	ck_assert_int_eq(ret, 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	ck_assert_int_eq(syscall(SYS_get_mempolicy, &mode, NULL, 0UL, addr,
				 (unsigned long)MPOL_F_ADDR), 0);
	/* An empty MPOL_PREFERRED reads back as MPOL_LOCAL on newer
	 * kernels. */
	ck_assert_msg(mode == MPOL_PREFERRED || mode == MPOL_LOCAL,
		      "policy %d", mode);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(rejects_bad_collapse_settings)
{
	struct faultgen_attr *a;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_protect(a, (enum faultgen_protect)3),
			 -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_collapse(a,
						    (enum faultgen_collapse)2),
			 -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_timeout(a, 0), -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_timeout(a, -1), -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_protect(NULL,
						   FAULTGEN_PROTECT_FORK),
			 -EINVAL);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(getters_answer_only_a_completed_collapse_run)
{
	struct faultgen_collapse_result res = { .size = sizeof(res) };
	struct faultgen_collapse_range r = { .size = sizeof(r) };
	struct faultgen_progress p = { .size = sizeof(p) };
	struct faultgen_attr *a;
	struct faultgen_run *run;

	ck_assert_int_eq(faultgen_run_collapse(NULL, &res), -EINVAL);
	a = collapse_attr(2 * MIB, 1, FAULTGEN_PROTECT_WRITABLE,
			  FAULTGEN_COLLAPSE_MADVISE);
	ck_assert_int_eq(faultgen_run_create(a, &run), 0);
	ck_assert_int_eq(faultgen_run_collapse(run, NULL), -EINVAL);
	ck_assert_int_eq(faultgen_run_collapse(run, &res), -ENODATA);
	ck_assert_int_eq(faultgen_run_collapse_range(run, 0, &r), -ENODATA);
	ck_assert_int_eq(faultgen_run_collapse_progress(run, 0, &p), -ENODATA);
	ck_assert_int_eq(faultgen_run_exec(run), 0);
	ck_assert_int_eq(faultgen_run_collapse(run, &res), 0);
	ck_assert_int_eq(faultgen_run_collapse_range(run, res.ranges, &r),
			 -ERANGE);
	ck_assert_int_eq(faultgen_run_collapse_range(run, 0, NULL), -EINVAL);
	r.size = 0;
	ck_assert_int_eq(faultgen_run_collapse_range(run, 0, &r), -EINVAL);
	ck_assert_int_eq(faultgen_run_collapse_progress(run, 0, &p), -ERANGE);
	ck_assert_int_eq(faultgen_run_collapse_progress(run, 0, NULL),
			 -EINVAL);
	faultgen_run_free(run);

	/* Another pattern has no collapse result. */
	ck_assert_int_eq(faultgen_attr_set_pattern(a, FAULTGEN_SHARED_VMA), 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	ck_assert_int_eq(faultgen_run_collapse(run, &res), -ENODATA);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(copies_no_more_than_the_callers_size)
{
	struct {
		struct faultgen_collapse_result res;
		char guard[8];
	} old;
	struct faultgen_collapse_result full;
	size_t cut = offsetof(struct faultgen_collapse_result, collapsed);
	struct faultgen_run *run;

	run = run_collapse(2 * MIB, 1, FAULTGEN_PROTECT_WRITABLE,
			   FAULTGEN_COLLAPSE_MADVISE, 0, &full);
	memset(&old, 0xa5, sizeof(old));
	old.res.size = cut;
	ck_assert_int_eq(faultgen_run_collapse(run, &old.res), 0);
	ck_assert_uint_eq(old.res.size, cut);
	ck_assert_int_eq(old.res.verdict, full.verdict);
	ck_assert_uint_eq(old.res.ranges, full.ranges);
	ck_assert_uint_eq(((unsigned char *)&old.res)[cut], 0xa5);
	faultgen_run_free(run);
}
END_TEST

/* ---- the example ------------------------------------------------------- */

START_TEST(example_prints_read_only_and_writable_verdicts)
{
	const char *dir = getenv("EXAMPLES");
	char cmd[1024], line[512];
	int ro = 0, wr = 0, st;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "%s/ro-collapse 8M 2", dir ? dir :
								"../examples");
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		ro += strncmp(line, "read-only: collapsed ", 21) == 0 &&
		      strstr(line, "/4 ranges") && strstr(line, "verdict: ");
		wr += strncmp(line, "writable: collapsed ", 20) == 0 &&
		      strstr(line, "/4 ranges") && strstr(line, "verdict: ");
	}
	st = pclose(f);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %d",
		      cmd, st);
	ck_assert_int_eq(ro, 1);
	ck_assert_int_eq(wr, 1);
}
END_TEST

static Suite *collapse_suite(void)
{
	Suite *s = suite_create("collapse");
	TCase *tc;

	tc = tcase_create("figures");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, figures_name_the_collapse_result);
	tcase_add_test(tc, figures_absent_where_the_pattern_has_none);
	suite_add_tcase(s, tc);

	tc = tcase_create("verdict");
	tcase_add_test(tc, names_every_verdict);
	tcase_add_test(tc, judges_einval_on_read_only_as_refused);
	tcase_add_test(tc, judges_einval_on_writable_as_unsupported);
	tcase_add_test(tc, judges_counts_before_errors);
	tcase_add_test(tc, judges_khugepaged_from_its_evidence);
	suite_add_tcase(s, tc);

	tc = tcase_create("madvise");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, probe_collapses_a_writable_range);
	tcase_add_test(tc, collapses_every_mprotect_range_with_content_unchanged);
	tcase_add_test(tc, collapses_every_writable_control_range);
	tcase_add_test(tc, splits_ranges_between_two_threads);
	tcase_add_test(tc, fork_variant_reports_outcome_and_reaps_its_child);
	tcase_add_test(tc, rounds_size_up_to_whole_ranges_and_slices);
	suite_add_tcase(s, tc);

	tc = tcase_create("khugepaged");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, khugepaged_variant_reports_a_consistent_state);
	tcase_add_test(tc, khugepaged_fork_variant_reports_a_consistent_state);
	tcase_add_test(tc, cancel_ends_the_khugepaged_wait_and_reaps_the_child);
	tcase_add_test(tc, progress_1_0_fills_the_old_struct_and_nothing_past_it);
	suite_add_tcase(s, tc);

	tc = tcase_create("api");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, rejects_processes_and_non_anonymous_backing);
	tcase_add_test(tc, applies_the_local_policy_to_its_region);
	tcase_add_test(tc, rejects_bad_collapse_settings);
	tcase_add_test(tc, getters_answer_only_a_completed_collapse_run);
	tcase_add_test(tc, copies_no_more_than_the_callers_size);
	tcase_add_test(tc, example_prints_read_only_and_writable_verdicts);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return fgc_main(collapse_suite());
}
