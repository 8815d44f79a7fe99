// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * check_sparse.c - the sparse-VMA pattern (FAULTGEN_SPARSE_VMA): each
 * worker faults one page in every K of its slice of one VMA.  The pages
 * resident afterwards (mincore) are exactly the first of every K of each
 * slice, the kernel's fault counts (the workers' and this process's
 * getrusage) agree with them, with K = 512 the page tables this process
 * holds (VmPTE) grew by a page per fault at least, rounds fault them
 * again, and bad strides and touches are refused.
 *
 * Counts and states only, never a timing.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "check-util.h"

#include <sys/resource.h>

#include "internal.h"

#define MIB (1ULL << 20)

static const struct {
	unsigned int k, n;
	uint64_t size;
	enum faultgen_workers kind;
} cases[] = {
	{ 512, 2, 256 * MIB, FAULTGEN_THREADS },
	{ 1, 2, 8 * MIB, FAULTGEN_THREADS },
	{ 8, 3, 64 * MIB, FAULTGEN_THREADS },
	{ 3, 1, 4 * MIB + 4096, FAULTGEN_THREADS },
	{ 5000, 2, 16 * MIB, FAULTGEN_THREADS },
	{ 512, 2, 256 * MIB, FAULTGEN_PROCESSES },
	{ 8, 3, 64 * MIB, FAULTGEN_PROCESSES },
};

static void set_stride(struct faultgen_attr *a, uint64_t k)
{
	struct faultgen_value v = { .type = FAULTGEN_TYPE_UINT };

	v.v.number = k;
	ck_assert_int_eq(faultgen_attr_set_value(a, "stride-pages", &v), 0);
}

static struct faultgen_attr *sparse_attr(unsigned int k, unsigned int n,
					 uint64_t size,
					 enum faultgen_workers kind)
{
	struct faultgen_attr *a;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, FAULTGEN_SPARSE_VMA), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, size), 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, n, kind), 0);
	/* One fault per base page, whatever the system's THP mode. */
	ck_assert_int_eq(faultgen_attr_set_thp(a, FAULTGEN_THP_NOHUGEPAGE), 0);
	set_stride(a, k);
	fgc_allow_workers(a, n);
	return a;
}

/* The rule, page by page: page p of the mapping is touched when it is
 * the first of a block of K counted from its slice's start. */
static bool touched(uint64_t p, uint64_t slice, unsigned int k)
{
	return (p % slice) % k == 0;
}

static uint64_t touched_pages(uint64_t total, uint64_t slice, unsigned int k)
{
	uint64_t t = 0;

	for (uint64_t p = 0; p < total; p++)
		t += touched(p, slice, k);
	return t;
}

/* This process's page tables, in kB (VmPTE), or -1. */
static long vm_pte_kb(void)
{
	char buf[4096], *at;

	if (fgc_read_file("/proc/self/status", buf, sizeof(buf)) < 0)
		return -1;
	at = strstr(buf, "VmPTE:");
	return at ? strtol(at + 6, NULL, 10) : -1;
}

static uint64_t self_minflt(void)
{
	struct rusage ru;

	ck_assert_int_eq(getrusage(RUSAGE_SELF, &ru), 0);
	return (uint64_t)ru.ru_minflt;
}

START_TEST(one_page_in_k_faulted)
{
	unsigned int k = cases[_i].k, n = cases[_i].n;
	bool threads = cases[_i].kind == FAULTGEN_THREADS;
	struct faultgen_attr *a =
		sparse_attr(k, n, cases[_i].size, cases[_i].kind);
	size_t ps = (size_t)fgc_pagesize();
	uint64_t total = fgc_pages_for(cases[_i].size, n), slice = total / n;
	uint64_t want = touched_pages(total, slice, k), flt0, self;
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_run *run = NULL;
	long pte0 = vm_pte_kb(), pte1;
	void *addr;
	size_t len;
	int ret;

	flt0 = self_minflt();
	ret = faultgen_run_new(a, &run);
	self = self_minflt() - flt0;
	pte1 = vm_pte_kb();
	ck_assert_msg(ret == 0, "K=%u N=%u: %s", k, n, faultgen_strerror(ret));
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	ck_assert_uint_eq(r.pages, want);
	ck_assert_uint_eq(r.expected_faults, want);
	ck_assert_uint_eq(r.pages_per_round, want);
	ck_assert_msg(fg_faults_agree(want, r.minflt + r.majflt, n) &&
			      r.faults_agree,
		      "K=%u N=%u: the workers took %llu faults for %llu pages",
		      k, n, (unsigned long long)r.minflt,
		      (unsigned long long)want);
	/* With threads the workers' faults are this process's: the whole
	 * run took them at least.  No upper bound here: the run's setup
	 * (thread stacks, allocations, a sanitizer's shadow memory) faults
	 * too; the workers' own counts above bound the pattern's. */
	if (threads)
		ck_assert_msg(self >= want,
			      "K=%u N=%u: the process took %llu faults for "
			      "%llu pages", k, n, (unsigned long long)self,
			      (unsigned long long)want);
	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	ck_assert_uint_eq(len, total * ps);
	if (threads) {
		unsigned char *vec = malloc(total);
		uint64_t wrong = 0;

		ck_assert_ptr_nonnull(vec);
		ck_assert_int_eq(mincore(addr, len, vec), 0);
		for (uint64_t p = 0; p < total; p++)
			wrong += (vec[p] & 1) != touched(p, slice, k);
		free(vec);
		ck_assert_msg(wrong == 0, "K=%u N=%u: %llu pages resident "
			      "against the rule", k, n,
			      (unsigned long long)wrong);
	}
	/* One page per 2 MiB: each fault allocated a page table. */
	if (threads && k * ps >= FG_HPAGE_SIZE && pte0 >= 0 && pte1 >= 0)
		ck_assert_msg((uint64_t)(pte1 - pte0) * 1024 >= want * ps,
			      "K=%u: page tables grew by %ld kB for %llu "
			      "faults", k, pte1 - pte0,
			      (unsigned long long)want);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* Rounds: fault, zap (MADV_DONTNEED), again: every round faults the same
 * pages, and the last zap leaves none. */
START_TEST(rounds_fault_the_pages_again)
{
	struct faultgen_attr *a =
		sparse_attr(64, 2, 64 * MIB, FAULTGEN_THREADS);
	uint64_t total = fgc_pages_for(64 * MIB, 2);
	uint64_t want = touched_pages(total, total / 2, 64);
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_run *run = NULL;
	void *addr;
	size_t len;

	ck_assert_int_eq(faultgen_attr_set_rounds(a, 3, FAULTGEN_ZAP_DONTNEED), 0);
	ck_assert_int_eq(faultgen_attr_set_warmup(a, 1), 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	ck_assert_uint_eq(r.rounds, 6);
	ck_assert_uint_eq(r.pages_per_round, want);
	ck_assert_uint_eq(r.pages, 3 * want);
	ck_assert_msg(fg_faults_agree(3 * want, r.minflt, 2) && r.faults_agree,
		      "%llu faults for %llu pages",
		      (unsigned long long)r.minflt,
		      (unsigned long long)(3 * want));
	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	ck_assert_uint_eq(fgc_resident_pages(addr, len), 0);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(bad_strides_refused)
{
	struct faultgen_attr *a;
	struct faultgen_value v = { .type = FAULTGEN_TYPE_UINT };
	const uint64_t bad[] = { 0, (1ULL << 30) + 1, UINT32_MAX,
				 (uint64_t)UINT32_MAX + 1 };

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, FAULTGEN_SPARSE_VMA), 0);
	ck_assert_int_eq(faultgen_attr_get_value(a, "stride-pages", &v), 0);
	ck_assert_uint_eq(v.v.number, 512);
	set_stride(a, 7);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v.type = FAULTGEN_TYPE_UINT;
		v.v.number = bad[i];
		ck_assert_int_eq(faultgen_attr_set_value(a, "stride-pages", &v),
				 -EINVAL);
		ck_assert_int_eq(faultgen_attr_get_value(a, "stride-pages", &v),
				 0);
		ck_assert_uint_eq(v.v.number, 7);
	}
	v.type = FAULTGEN_TYPE_SIZE;
	v.v.number = 8;
	ck_assert_int_eq(faultgen_attr_set_value(a, "stride-pages", &v),
			 -EINVAL);
	set_stride(a, 1);
	set_stride(a, 1u << 30);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(combinations_refused)
{
	struct faultgen_attr *a =
		sparse_attr(512, 1, 4 * MIB, FAULTGEN_THREADS);
	const enum faultgen_touch calls[] = { FAULTGEN_TOUCH_MEMSET,
					      FAULTGEN_TOUCH_MLOCK,
					      FAULTGEN_TOUCH_POPULATE };

	ck_assert_int_eq(faultgen_attr_check(a, NULL), 0);
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		ck_assert_int_eq(faultgen_attr_set_touch(a, calls[i]), 0);
		FGC_ASSERT_CONFLICT_WITH(a, FAULTGEN_SETTING_TOUCH,
					 FAULTGEN_SETTING_PATTERN);
	}
	ck_assert_int_eq(faultgen_attr_set_touch(a, FAULTGEN_TOUCH_READ), 0);
	ck_assert_int_eq(faultgen_attr_check(a, NULL), 0);
	ck_assert_int_eq(faultgen_attr_set_duration(a, 1.0, FAULTGEN_ZAP_MUNMAP),
			 0);
	FGC_ASSERT_CONFLICT_WITH(a, FAULTGEN_SETTING_ZAP,
				 FAULTGEN_SETTING_PATTERN);
	ck_assert_int_eq(faultgen_pattern_reads(FAULTGEN_SPARSE_VMA,
						FAULTGEN_SETTING_LATENCY), 0);
	ck_assert_int_eq(faultgen_pattern_reads(FAULTGEN_SPARSE_VMA,
						FAULTGEN_SETTING_WRITERS), 0);
	faultgen_attr_free(a);
}
END_TEST

static Suite *sparse_suite(void)
{
	Suite *s = suite_create("sparse");
	TCase *tc = tcase_create("sparse");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, one_page_in_k_faulted, 0,
			    sizeof(cases) / sizeof(cases[0]));
	tcase_add_test(tc, rounds_fault_the_pages_again);
	tcase_add_test(tc, bad_strides_refused);
	tcase_add_test(tc, combinations_refused);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return fgc_main(sparse_suite());
}
