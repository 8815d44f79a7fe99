// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * check_cpus.c - the allowed CPUs: the mask logic as pure functions on
 * synthetic masks of up to 8192 CPUs, then the real affinity path.
 *
 * The expectations are known answers written out, or found another way
 * than the library finds them (walking a bitmap where the library
 * indexes a list, asking the kernel where the library reads sysfs).
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "check-util.h"

#include "internal.h"

#define LONG_BITS (8 * sizeof(unsigned long))
#define BIG 8192
#define LONGS (BIG / LONG_BITS)

static void mask_of(const char *list, unsigned long *m)
{
	ck_assert_int_gt(faultgen_parse_cpulist(list, m, BIG), 0);
}

static bool bit(const unsigned long *m, size_t b)
{
	return m[b / LONG_BITS] & (1UL << (b % LONG_BITS));
}

/* ---- fg_cpus_narrow ------------------------------------------------- */

START_TEST(keeps_whole_mask_without_request)
{
	unsigned long allowed[LONGS], out[LONGS];

	mask_of("4096-8191", allowed);
	ck_assert_int_eq(fg_cpus_narrow(allowed, NULL, BIG, out), 4096);
	ck_assert_mem_eq(out, allowed, sizeof(out));
}
END_TEST

START_TEST(narrows_mask_starting_above_zero)
{
	unsigned long allowed[LONGS], req[LONGS], out[LONGS];

	mask_of("1000-1999", allowed);
	mask_of("1000,1500-1503,1999", req);
	ck_assert_int_eq(fg_cpus_narrow(allowed, req, BIG, out), 6);
	ck_assert_mem_eq(out, req, sizeof(out));
	ck_assert(!bit(out, 0) && bit(out, 1000) && bit(out, 1999));
}
END_TEST

START_TEST(rejects_cpu_outside_mask)
{
	unsigned long allowed[LONGS], req[LONGS], out[LONGS];
	static const char *const outside[] = {
		"0", "999", "2000", "1000-2000", "999-1001", "8191", "1998-1999,0",
	};

	mask_of("1000-1999", allowed);
	for (size_t i = 0; i < sizeof(outside) / sizeof(outside[0]); i++) {
		mask_of(outside[i], req);
		ck_assert_msg(fg_cpus_narrow(allowed, req, BIG, out) == -ENXIO,
			      "%s is outside 1000-1999", outside[i]);
	}
}
END_TEST

START_TEST(narrows_sparse_mask)
{
	unsigned long allowed[LONGS], req[LONGS], out[LONGS];

	mask_of("7-8191:7", allowed); /* 7, 14, ..., 8190 */
	ck_assert_int_eq(fg_cpus_narrow(allowed, NULL, BIG, out), 1170);
	mask_of("7,14,21", req);
	ck_assert_int_eq(fg_cpus_narrow(allowed, req, BIG, out), 3);
	mask_of("0-63:7", req);
	ck_assert_int_eq(fg_cpus_narrow(allowed, req, BIG, out), -ENXIO);
	mask_of("7-13", req);
	ck_assert_int_eq(fg_cpus_narrow(allowed, req, BIG, out), -ENXIO);
	mask_of("8183,8190", req);
	ck_assert_int_eq(fg_cpus_narrow(allowed, req, BIG, out), 2);
	ck_assert(bit(out, 8183) && bit(out, 8190));
}
END_TEST

START_TEST(rejects_empty_result)
{
	unsigned long allowed[LONGS] = { 0 }, req[LONGS] = { 0 }, out[LONGS];

	ck_assert_int_eq(fg_cpus_narrow(allowed, NULL, BIG, out), -EINVAL);
	mask_of("5", allowed);
	ck_assert_int_eq(fg_cpus_narrow(allowed, req, BIG, out), -EINVAL);
}
END_TEST

START_TEST(narrows_in_place)
{
	unsigned long allowed[LONGS], req[LONGS];

	/* The library narrows a cpuset's mask into the affinity mask. */
	mask_of("0-8191", allowed);
	mask_of("64-127:2", req);
	ck_assert_int_eq(fg_cpus_narrow(allowed, req, BIG, allowed), 32);
	ck_assert_mem_eq(allowed, req, sizeof(req));
}
END_TEST

START_TEST(narrows_masks_of_odd_sizes)
{
	/* Bit counts that are not a multiple of the word size. */
	unsigned long allowed[2], req[2], out[2];

	ck_assert_int_eq(faultgen_parse_cpulist("0-64", allowed, 65), 65);
	ck_assert_int_eq(faultgen_parse_cpulist("64", req, 65), 1);
	ck_assert_int_eq(fg_cpus_narrow(allowed, req, 65, out), 1);
	ck_assert(bit(out, 64));
	ck_assert_int_eq(fg_cpus_narrow(allowed, NULL, 65, out), 65);
}
END_TEST

/* ---- fg_cpu_for_worker ---------------------------------------------- */

START_TEST(places_workers_round_robin)
{
	int list[] = { 3, 9, 1030, 8191 };
	static const int first[] = { 3, 9, 1030, 8191, 3, 9, 1030, 8191, 3 };
	struct fg_cpus cpus = { .nbits = BIG, .count = 4, .list = list };
	unsigned int next = 0;

	for (unsigned int w = 0; w < 9; w++)
		ck_assert_int_eq(fg_cpu_for_worker(&cpus, w), first[w]);
	/* Further on: a cursor that steps through the list and starts
	 * over after its end. */
	for (unsigned int w = 0; w < 64; w++) {
		ck_assert_int_eq(fg_cpu_for_worker(&cpus, w), list[next]);
		if (++next == 4)
			next = 0;
	}
	/* 4294967295 = 4 * 1073741823 + 3: the last CPU of the list. */
	ck_assert_int_eq(fg_cpu_for_worker(&cpus, UINT32_MAX), 8191);
	cpus.count = 1;
	ck_assert_int_eq(fg_cpu_for_worker(&cpus, 5), 3);
	cpus.count = 0;
	ck_assert_int_eq(fg_cpu_for_worker(&cpus, 0), -1);
}
END_TEST

START_TEST(spreads_from_the_callers_cpu)
{
	int list[] = { 3, 9, 1030, 8191 };
	/* For the caller on each CPU of the list: workers 0 to 4. */
	static const int want[4][5] = {
		{ 3, 9, 1030, 8191, 3 },
		{ 9, 1030, 8191, 3, 9 },
		{ 1030, 8191, 3, 9, 1030 },
		{ 8191, 3, 9, 1030, 8191 },
	};
	struct fg_cpus cpus = { .nbits = BIG, .count = 4, .list = list };

	for (unsigned int i = 0; i < 4; i++) {
		unsigned int base = fg_spread_base(&cpus, list[i]);

		ck_assert_uint_eq(base, i);
		/* Worker 0 stays, the others take the CPUs after it. */
		for (unsigned int w = 0; w < 5; w++)
			ck_assert_int_eq(fg_cpu_for_worker(&cpus, base + w),
					 want[i][w]);
	}
	/* Not an allowed CPU, or sched_getcpu() failed: from the start. */
	ck_assert_uint_eq(fg_spread_base(&cpus, 4), 0);
	ck_assert_uint_eq(fg_spread_base(&cpus, -1), 0);
	cpus.count = 0;
	ck_assert_uint_eq(fg_spread_base(&cpus, 3), 0);
}
END_TEST

START_TEST(places_workers_over_8192_cpus)
{
	static int list[BIG / 2];
	struct fg_cpus cpus = { .nbits = BIG, .count = BIG / 2, .list = list };

	for (int i = 0; i < BIG / 2; i++)
		list[i] = BIG / 2 + i;
	ck_assert_int_eq(fg_cpu_for_worker(&cpus, 0), 4096);
	ck_assert_int_eq(fg_cpu_for_worker(&cpus, 4095), 8191);
	ck_assert_int_eq(fg_cpu_for_worker(&cpus, 4096), 4096);
	/* 10000 = 2 * 4096 + 1808 */
	ck_assert_int_eq(fg_cpu_for_worker(&cpus, 10000), 5904);
}
END_TEST

/*
 * The kernel writes the list in ascending order ("0-7,16-23"), so its
 * last number is the highest id.  The kernel itself agrees: it refuses
 * sched_getaffinity with a mask of fewer bits than its possible CPU ids,
 * and the mask holds every CPU the process may run on.
 */
START_TEST(counts_possible_cpus_as_the_kernel_does)
{
	int possible = faultgen_possible_cpus();
	char buf[4096], *last;
	size_t size;
	cpu_set_t *set;

	if (fgc_read_file("/sys/devices/system/cpu/possible", buf,
			  sizeof(buf)) <= 0)
		FGC_SKIP("no /sys/devices/system/cpu/possible");
	buf[strcspn(buf, "\n")] = '\0';
	last = strrchr(buf, '-');
	if (!last || strrchr(buf, ',') > last)
		last = strrchr(buf, ',');
	ck_assert_int_eq(possible, (int)strtol(last ? last + 1 : buf, NULL, 10) + 1);
	ck_assert_int_ge(possible, (int)sysconf(_SC_NPROCESSORS_CONF));
	size = CPU_ALLOC_SIZE((size_t)possible);
	set = CPU_ALLOC((size_t)possible);
	ck_assert_ptr_nonnull(set);
	ck_assert_int_eq(sched_getaffinity(0, size, set), 0);
	ck_assert_int_eq(CPU_COUNT_S(size, set), fgc_affinity_count());
	CPU_FREE(set);
}
END_TEST

/* ---- the real affinity mask ----------------------------------------- */

static cpu_set_t *saved;
static size_t saved_size;

static void save_affinity(void)
{
	saved_size = CPU_ALLOC_SIZE(BIG);
	saved = CPU_ALLOC(BIG);
	ck_assert_ptr_nonnull(saved);
	ck_assert_int_eq(sched_getaffinity(0, saved_size, saved), 0);
}

static void restore_affinity(void)
{
	ck_assert_int_eq(sched_setaffinity(0, saved_size, saved), 0);
	CPU_FREE(saved);
	saved = NULL;
}

static void pin_self_to(int cpu)
{
	cpu_set_t *set = CPU_ALLOC(BIG);

	ck_assert_ptr_nonnull(set);
	CPU_ZERO_S(saved_size, set);
	CPU_SET_S((size_t)cpu, saved_size, set);
	ck_assert_int_eq(sched_setaffinity(0, saved_size, set), 0);
	CPU_FREE(set);
}

static void assert_workers_on(const struct faultgen_run *run, unsigned int n,
			      int cpu, bool pinned)
{
	struct faultgen_worker_result w;

	for (unsigned int i = 0; i < n; i++) {
		memset(&w, 0, sizeof(w));
		w.size = sizeof(w);
		ck_assert_int_eq(faultgen_run_worker(run, i, &w), 0);
		ck_assert_int_eq(w.cpu, pinned ? cpu : -1);
		ck_assert_int_eq(w.last_cpu, cpu);
	}
}

START_TEST(reads_affinity_of_calling_thread_cpu1)
{
	unsigned long mask[LONGS];
	struct faultgen_attr *a;

	if (!fgc_affinity_has(1))
		FGC_SKIP("CPU 1 is not in this process's affinity mask");
	save_affinity();
	pin_self_to(1);
	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_get_cpus(a, mask, BIG), 1);
	for (size_t c = 0; c < BIG; c++)
		ck_assert_int_eq(bit(mask, c), c == 1);
	/* CPU 1 does not fit in a mask of one bit. */
	ck_assert_int_eq(faultgen_attr_get_cpus(a, mask, 1), -ENOBUFS);
	ck_assert_int_eq(faultgen_attr_get_cpus(a, NULL, 0), 1);
	/* A mask not starting at 0: CPU 0 is outside it. */
	ck_assert_int_eq(faultgen_attr_set_cpus(a, "0"), 0);
	ck_assert_int_eq(faultgen_attr_get_cpus(a, mask, BIG), -ENXIO);
	ck_assert_int_eq(faultgen_attr_set_cpus(a, "0-1"), 0);
	ck_assert_int_eq(faultgen_attr_get_cpus(a, mask, BIG), -ENXIO);
	ck_assert_int_eq(faultgen_attr_set_cpus(a, "1"), 0);
	ck_assert_int_eq(faultgen_attr_get_cpus(a, mask, BIG), 1);
	faultgen_attr_free(a);
	restore_affinity();
}
END_TEST

START_TEST(pinned_run_stays_on_cpu1)
{
	enum faultgen_workers kind = _i ? FAULTGEN_PROCESSES : FAULTGEN_THREADS;
	struct faultgen_attr *a;
	struct faultgen_run *run;
	char list[32];

	if (!fgc_affinity_has(1))
		FGC_SKIP("CPU 1 is not in this process's affinity mask");
	save_affinity();
	pin_self_to(1);
	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 64 * (uint64_t)fgc_pagesize()),
			 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, 2, kind), 0);
	/* Two workers on one allowed CPU: refused unless asked for. */
	ck_assert_int_eq(faultgen_run_new(a, &run), -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_oversubscribe(a, 1), 0);
	ck_assert_int_eq(faultgen_attr_set_pin(a, 1), 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	assert_workers_on(run, 2, 1, true);
	ck_assert_int_eq(faultgen_run_cpulist(run, list, sizeof(list)), 1);
	ck_assert_str_eq(list, "1");
	faultgen_run_free(run);
	/* Unpinned workers are held to the allowed set all the same. */
	ck_assert_int_eq(faultgen_attr_set_pin(a, 0), 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	assert_workers_on(run, 2, 1, false);
	faultgen_run_free(run);
	/* A CPU outside the mask is an error, not a silent drop. */
	ck_assert_int_eq(faultgen_attr_set_cpus(a, "0"), 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), -ENXIO);
	ck_assert_ptr_null(run);
	faultgen_attr_free(a);
	restore_affinity();
}
END_TEST

START_TEST(pins_workers_round_robin_over_allowed_cpus)
{
	enum faultgen_workers kind = _i ? FAULTGEN_PROCESSES : FAULTGEN_THREADS;
	unsigned long mask[LONGS];
	struct faultgen_worker_result w;
	struct faultgen_attr *a;
	struct faultgen_run *run;
	int cpus[4], n = 0, count;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	count = faultgen_attr_get_cpus(a, mask, BIG);
	ck_assert_int_gt(count, 0);
	ck_assert_int_eq(count, fgc_affinity_count());
	/* Walk the affinity mask: each worker gets the next allowed CPU
	 * after the previous worker's, the lowest after the highest. */
	save_affinity();
	for (int k = 0, c = -1; k < 4; k++) {
		do
			c = c + 1 < BIG ? c + 1 : 0;
		while (!CPU_ISSET_S((size_t)c, saved_size, saved));
		cpus[n++] = c;
	}
	CPU_FREE(saved);
	saved = NULL;
	ck_assert_int_eq(faultgen_attr_set_size(a, 8 * (uint64_t)fgc_pagesize()),
			 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, 4, kind), 0);
	ck_assert_int_eq(faultgen_attr_set_oversubscribe(a, 1), 0);
	ck_assert_int_eq(faultgen_attr_set_pin(a, 1), 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	for (unsigned int i = 0; i < 4; i++) {
		memset(&w, 0, sizeof(w));
		w.size = sizeof(w);
		ck_assert_int_eq(faultgen_run_worker(run, i, &w), 0);
		ck_assert_int_eq(w.cpu, cpus[i]);
		ck_assert_int_eq(w.last_cpu, w.cpu);
	}
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(narrows_run_to_cpu_list)
{
	struct faultgen_attr *a;
	struct faultgen_run *run;
	char want[16], got[32];
	int cpu = -1;

	/* The highest allowed CPU: on two CPUs, not the default 0. */
	for (int c = BIG - 1; c >= 0 && cpu < 0; c--)
		if (fgc_affinity_has(c))
			cpu = c;
	ck_assert_int_ge(cpu, 0);
	snprintf(want, sizeof(want), "%d", cpu);
	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_cpus(a, want), 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, 2, FAULTGEN_THREADS), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 8 * (uint64_t)fgc_pagesize()),
			 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_oversubscribe(a, 1), 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	ck_assert_int_gt(faultgen_run_cpulist(run, got, sizeof(got)), 0);
	ck_assert_str_eq(got, want);
	assert_workers_on(run, 2, cpu, false);
	ck_assert_int_eq(faultgen_run_cpulist(run, got, 1), -ENOSPC);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(reads_affinity_at_run_time_not_at_attr_time)
{
	struct faultgen_attr *a;
	struct faultgen_run *run;
	char got[32];

	if (!fgc_affinity_has(1))
		FGC_SKIP("CPU 1 is not in this process's affinity mask");
	save_affinity();
	/* Made while the whole mask was allowed, run while only CPU 1 is. */
	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_run_create(a, &run), 0);
	pin_self_to(1);
	ck_assert_int_eq(faultgen_run_exec(run), 0);
	ck_assert_int_eq(faultgen_run_cpulist(run, got, sizeof(got)), 1);
	ck_assert_str_eq(got, "1");
	assert_workers_on(run, 1, 1, false);
	faultgen_run_free(run);
	faultgen_attr_free(a);
	restore_affinity();
}
END_TEST

static Suite *cpus_suite(void)
{
	Suite *s = suite_create("cpus");
	TCase *tc = tcase_create("mask");

	tcase_add_test(tc, keeps_whole_mask_without_request);
	tcase_add_test(tc, narrows_mask_starting_above_zero);
	tcase_add_test(tc, rejects_cpu_outside_mask);
	tcase_add_test(tc, narrows_sparse_mask);
	tcase_add_test(tc, rejects_empty_result);
	tcase_add_test(tc, narrows_in_place);
	tcase_add_test(tc, narrows_masks_of_odd_sizes);
	tcase_add_test(tc, places_workers_round_robin);
	tcase_add_test(tc, spreads_from_the_callers_cpu);
	tcase_add_test(tc, places_workers_over_8192_cpus);
	tcase_add_test(tc, counts_possible_cpus_as_the_kernel_does);
	suite_add_tcase(s, tc);

	tc = tcase_create("affinity");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, reads_affinity_of_calling_thread_cpu1);
	tcase_add_loop_test(tc, pinned_run_stays_on_cpu1, 0, 2);
	tcase_add_loop_test(tc, pins_workers_round_robin_over_allowed_cpus, 0,
			    2);
	tcase_add_test(tc, narrows_run_to_cpu_list);
	tcase_add_test(tc, reads_affinity_at_run_time_not_at_attr_time);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return fgc_main(cpus_suite());
}
