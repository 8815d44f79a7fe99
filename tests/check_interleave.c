// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * check_interleave.c - the shared VMA dealt in blocks of K pages round
 * robin (faultgen_attr_set_interleave): every page is faulted once
 * (mincore, and the kernel's count per worker), by the worker the rule
 * names (each page holds the stamp of the worker that wrote it: block
 * b = page / K belongs to worker b mod N), with short last blocks; and
 * the combinations refused.
 *
 * Counts and states only, never a timing.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "check-util.h"

#include "internal.h"

#define MIB (1ULL << 20)

/* K, N: pages per block and workers, as the loop test walks them. */
static const struct {
	unsigned int k, n;
} cases[] = {
	{ 1, 2 }, { 1, 3 }, { 8, 2 }, { 8, 3 }, { 512, 2 }, { 512, 3 },
	{ 3, 2 }, { 5000, 2 }, { 0, 3 },
};

static struct faultgen_attr *interleave_attr(unsigned int k, unsigned int n,
					     enum faultgen_workers kind)
{
	struct faultgen_attr *a;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 4 * MIB), 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, n, kind), 0);
	ck_assert_int_eq(faultgen_attr_set_thp(a, FAULTGEN_THP_NOHUGEPAGE), 0);
	ck_assert_int_eq(faultgen_attr_set_interleave(a, k), 0);
	fgc_allow_workers(a, n);
	return a;
}

/* The worker the rule gives page p: slices, or block p / K dealt round
 * robin. */
static unsigned int owner(uint64_t p, unsigned int k, unsigned int n,
			  uint64_t total)
{
	if (!k)
		return (unsigned int)(p / (total / n));
	return (unsigned int)(p / k % n);
}

START_TEST(every_page_faulted_once_by_the_rule)
{
	unsigned int k = cases[_i].k, n = cases[_i].n;
	struct faultgen_attr *a = interleave_attr(k, n, FAULTGEN_THREADS);
	size_t ps = (size_t)fgc_pagesize();
	uint64_t total = fgc_pages_for(4 * MIB, n);
	uint64_t want[3] = { 0 }, wrong = 0;
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_run *run = NULL;
	void *addr;
	size_t len;
	int ret = faultgen_run_new(a, &run);

	ck_assert_msg(ret == 0, "K=%u N=%u: %s", k, n, faultgen_strerror(ret));
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	ck_assert_uint_eq(len, total * ps);
	ck_assert_uint_eq(r.pages, total);
	ck_assert_uint_eq(r.expected_faults, total);
	ck_assert_msg(fgc_close(total, r.minflt, n) && r.faults_agree,
		      "K=%u N=%u: %llu faults for %llu pages", k, n,
		      (unsigned long long)r.minflt,
		      (unsigned long long)total);
	ck_assert_uint_eq(fgc_resident_pages(addr, len), total);
	for (uint64_t p = 0; p < total; p++) {
		unsigned int o = owner(p, k, n, total);
		unsigned char got = ((unsigned char *)addr)[p * ps];

		want[o]++;
		/* Slices write 1; interleaved workers their stamp. */
		wrong += got != (k ? o + 1 : 1);
	}
	ck_assert_msg(wrong == 0, "K=%u N=%u: %llu pages hold another stamp",
		      k, n, (unsigned long long)wrong);
	for (unsigned int i = 0; i < n; i++) {
		struct faultgen_worker_result w = { .size = sizeof(w) };

		ck_assert_int_eq(faultgen_run_worker(run, i, &w), 0);
		ck_assert_msg(w.pages == want[i],
			      "K=%u N=%u: worker %u faulted %llu pages, the "
			      "rule gives it %llu", k, n, i,
			      (unsigned long long)w.pages,
			      (unsigned long long)want[i]);
		/* Its own faults, by its thread's count. */
		ck_assert_msg(fgc_close(w.pages, w.minflt, 1),
			      "K=%u N=%u: worker %u: %llu faults for %llu "
			      "pages", k, n, i, (unsigned long long)w.minflt,
			      (unsigned long long)w.pages);
		ck_assert_uint_eq(w.len, want[i] * ps);
		if (k && want[i])
			ck_assert_ptr_eq(w.addr, (char *)addr + (size_t)i * k * ps);
	}
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* Reading: the zero page mapped page by page, one fault each. */
START_TEST(read_touch_faults_every_page)
{
	struct faultgen_attr *a = interleave_attr(1, 2, FAULTGEN_THREADS);
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_run *run = NULL;

	ck_assert_int_eq(faultgen_attr_set_touch(a, FAULTGEN_TOUCH_READ), 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	ck_assert_uint_eq(r.pages, fgc_pages_for(4 * MIB, 2));
	ck_assert_msg(fgc_close(r.pages, r.minflt, 2), "%llu faults",
		      (unsigned long long)r.minflt);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* Forked workers fault their own copies: the counts still agree. */
START_TEST(processes_fault_their_blocks)
{
	struct faultgen_attr *a = interleave_attr(8, 2, FAULTGEN_PROCESSES);
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_run *run = NULL;

	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	ck_assert_uint_eq(r.pages, fgc_pages_for(4 * MIB, 2));
	ck_assert(r.faults_agree);
	faultgen_run_free(run);
	ck_assert(fgc_no_children());
	faultgen_attr_free(a);
}
END_TEST

START_TEST(setter_and_getter)
{
	struct faultgen_attr *a;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_uint_eq(faultgen_attr_get_interleave(a), 0);
	ck_assert_int_eq(faultgen_attr_set_interleave(a, 512), 0);
	ck_assert_int_eq(faultgen_attr_set_interleave(
				 a, FAULTGEN_MAX_INTERLEAVE + 1),
			 -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_interleave(NULL, 1), -EINVAL);
	ck_assert_uint_eq(faultgen_attr_get_interleave(a), 512);
	ck_assert_uint_eq(faultgen_attr_get_interleave(NULL), 0);
	faultgen_attr_free(a);
	ck_assert_int_eq(faultgen_pattern_reads(FAULTGEN_SHARED_VMA,
						FAULTGEN_SETTING_INTERLEAVE),
			 1);
	ck_assert_int_eq(faultgen_pattern_reads(FAULTGEN_PER_THREAD_VMA,
						FAULTGEN_SETTING_INTERLEAVE),
			 0);
}
END_TEST

START_TEST(refused_with_rounds_worker_local_and_call_touches)
{
	struct faultgen_attr *a = interleave_attr(8, 2, FAULTGEN_THREADS);

	ck_assert_int_eq(faultgen_attr_set_rounds(a, 2, FAULTGEN_ZAP_DONTNEED),
			 0);
	FGC_ASSERT_CONFLICT_WITH(a, FAULTGEN_SETTING_INTERLEAVE, FAULTGEN_SETTING_REPEAT);
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 0, FAULTGEN_ZAP_DONTNEED),
			 0);
	ck_assert_int_eq(faultgen_attr_check(a, NULL), 0);
	ck_assert_int_eq(faultgen_attr_set_numa(a, FAULTGEN_NUMA_WORKER_LOCAL),
			 0);
	FGC_ASSERT_CONFLICT_WITH(a, FAULTGEN_SETTING_INTERLEAVE, FAULTGEN_SETTING_NUMA);
	ck_assert_int_eq(faultgen_attr_set_numa(a, FAULTGEN_NUMA_DEFAULT), 0);
	ck_assert_int_eq(faultgen_attr_set_touch(a, FAULTGEN_TOUCH_MLOCK), 0);
	FGC_ASSERT_CONFLICT_WITH(a, FAULTGEN_SETTING_INTERLEAVE, FAULTGEN_SETTING_TOUCH);
	ck_assert_int_eq(faultgen_attr_set_touch(a, FAULTGEN_TOUCH_READ), 0);
	ck_assert_int_eq(faultgen_attr_check(a, NULL), 0);
	faultgen_attr_free(a);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("interleave");
	TCase *tc = tcase_create("layout");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, every_page_faulted_once_by_the_rule, 0,
			    (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, processes_fault_their_blocks);
	tcase_add_test(tc, read_touch_faults_every_page);
	suite_add_tcase(s, tc);
	tc = tcase_create("attr");
	tcase_add_test(tc, setter_and_getter);
	tcase_add_test(tc, refused_with_rounds_worker_local_and_call_touches);
	suite_add_tcase(s, tc);
	return fgc_main(s);
}
