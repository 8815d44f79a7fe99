// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * check_qemu.c - QEMU's guest-RAM preallocation (FAULTGEN_QEMU_PREALLOC):
 * QEMU's thread count and slices, against values worked out by hand from
 * its rule; and runs whose counted faults stay what the kernel says was
 * mapped: one fault per page populated, a huge page one, the probe's page
 * among them; a touch of a shared memfd one per page; threads started as
 * QEMU would and none left after, on the run's CPUs as the caller is;
 * the refused combinations.
 *
 * Counts and states only, never a timing.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "check-util.h"

#include <dirent.h>

#include "internal.h"

#define MIB (1ULL << 20)

static int tasks_now(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static struct faultgen_attr *qemu_attr(uint64_t size, unsigned int threads,
				       enum faultgen_backing backing,
				       int share, enum faultgen_qemu how)
{
	struct faultgen_attr *a;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, FAULTGEN_QEMU_PREALLOC),
			 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, size), 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, threads,
						   FAULTGEN_THREADS),
			 0);
	ck_assert_int_eq(faultgen_attr_set_backing(a, backing), 0);
	ck_assert_int_eq(faultgen_attr_set_share(a, share), 0);
	ck_assert_int_eq(faultgen_attr_set_qemu(a, how), 0);
	return a;
}

START_TEST(threads_as_qemu_counts_them)
{
	/* online CPUs, pages, page size, prealloc-threads -> threads */
	static const struct {
		long online;
		uint64_t pages, step;
		unsigned int asked;
		unsigned int want;
	} t[] = {
		{ 2, 65536, 4096, 4, 2 },          /* 256 MiB on 2 CPUs */
		{ 2, 65536, 4096, 1, 1 },
		{ 64, 262144, 4096, 64, 16 },      /* 1 GiB: 16 by size */
		{ 64, 1048576, 4096, 32, 16 },     /* 4 GiB: at most 16 */
		{ 8, 1048576, 4096, 4, 4 },
		{ 8, 16384, 4096, 8, 1 },          /* 64 MiB: one */
		{ 8, 32768, 4096, 8, 2 },          /* 128 MiB: two */
		{ 8, 49151, 4096, 8, 2 },          /* just under 192 MiB */
		{ 8, 3, 1ULL << 30, 8, 3 },        /* 3 GiB pages: 3 */
		{ 8, 100, 2 * MIB, 8, 3 },         /* 200 MiB of 2 MiB */
		{ 0, 1048576, 4096, 8, 1 },        /* sysconf failed */
		{ -1, 1048576, 4096, 8, 1 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		ck_assert_msg(fg_qemu_threads(t[i].online, t[i].asked,
					      t[i].pages, t[i].step) ==
				      t[i].want,
			      "case %zu: %u threads", i,
			      fg_qemu_threads(t[i].online, t[i].asked,
					      t[i].pages, t[i].step));
}
END_TEST

START_TEST(slices_are_contiguous_and_cover_the_ram)
{
	uint64_t first, count;

	/* 10 pages in 3: 4, 3, 3. */
	fg_qemu_slice(10, 3, 0, &first, &count);
	ck_assert(first == 0 && count == 4);
	fg_qemu_slice(10, 3, 1, &first, &count);
	ck_assert(first == 4 && count == 3);
	fg_qemu_slice(10, 3, 2, &first, &count);
	ck_assert(first == 7 && count == 3);
	for (uint64_t pages = 1; pages < 200; pages += 7) {
		for (unsigned int n = 1; n <= 16 && n <= pages; n++) {
			uint64_t next = 0, min = UINT64_MAX, max = 0;

			for (unsigned int i = 0; i < n; i++) {
				fg_qemu_slice(pages, n, i, &first, &count);
				ck_assert(first == next);
				next += count;
				min = count < min ? count : min;
				max = count > max ? count : max;
			}
			ck_assert(next == pages);
			ck_assert(max - min <= 1);
		}
	}
}
END_TEST

/*
 * The faults a run counted against what the kernel mapped: small pages
 * one fault each (per_small of them), huge pages one each.
 */
static void assert_counts(struct faultgen_run *run, uint64_t size,
			  unsigned int per_small)
{
	struct faultgen_result r = { .size = sizeof(r) };
	uint64_t ps = (uint64_t)fgc_pagesize(), huge, want;
	double process;

	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	huge = (uint64_t)fgc_figure_or(run, "huge_page_bytes", -1);
	ck_assert_uint_le(huge, size);
	want = (size - huge) / ps * per_small + huge / (2 * MIB);
	ck_assert_uint_eq(r.pages, size / ps);
	ck_assert_msg(r.minflt >= want && r.minflt <= want + 2,
		      "%llu faults where the mapping gives %llu",
		      (unsigned long long)r.minflt, (unsigned long long)want);
	fgc_assert_no_major(&r, "qemu-prealloc");
	process = fgc_figure_or(run, "process_faults", -1);
	ck_assert(process >= (double)r.minflt);
	/* Beside the threads' own: each started thread's first faults (its
	 * descriptor, its stack, its malloc arena), and a few text pages of
	 * the first thread exit, as QEMU's; a sanitizer's runtime takes
	 * more. */
	if (!fgc_under_sanitizer()) {
		double started = fgc_figure_or(run, "threads_started", -1);

		ck_assert_msg(process - (double)r.minflt <= 3 * started + 4,
			      "%.0f faults beside the threads' %llu, %.0f "
			      "threads started", process - (double)r.minflt,
			      (unsigned long long)r.minflt, started);
	}
	ck_assert_int_eq((int)fgc_figure_or(run, "step_bytes", -1), (int)ps);
}

START_TEST(populate_faults_each_page_once)
{
	/* 128 MiB: QEMU starts two threads where two CPUs are online. */
	uint64_t size = 128 * MIB, pages = size / (uint64_t)fgc_pagesize();
	struct faultgen_attr *a = qemu_attr(size, 2, FAULTGEN_BACKING_ANON, 0,
					    FAULTGEN_QEMU_AUTO);
	struct faultgen_result r = { .size = sizeof(r) };
	unsigned int want = fg_qemu_threads(sysconf(_SC_NPROCESSORS_ONLN), 2,
					    pages, (uint64_t)fgc_pagesize());
	struct faultgen_run *run = NULL;
	int before = tasks_now();

	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	faultgen_attr_free(a);
	if (fgc_figure_or(run, "populate", -1) == 0) {
		faultgen_run_free(run);
		FGC_SKIP("the kernel refuses MADV_POPULATE_WRITE (before 5.14)");
	}
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	ck_assert_uint_eq(r.workers, want);
	ck_assert_int_eq((int)fgc_figure_or(run, "threads", -1), (int)want);
	ck_assert_int_eq((int)fgc_figure_or(run, "threads_started", -1),
			 want == 1 ? 0 : (int)want);
	ck_assert_int_eq((int)fgc_figure_or(run, "populate", -1), 1);
	ck_assert_int_eq((int)fgc_figure_or(run, "probe_faults", -1), 1);
	assert_counts(run, size, 1);
	ck_assert_int_eq(tasks_now(), before);
	faultgen_run_free(run);
}
END_TEST

START_TEST(touch_of_a_shared_memfd_faults_each_page_once)
{
	uint64_t size = 128 * MIB;
	struct faultgen_attr *a = qemu_attr(size, 2, FAULTGEN_BACKING_MEMFD, 1,
					    FAULTGEN_QEMU_TOUCH);
	struct faultgen_run *run = NULL;
	int before = tasks_now();

	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	faultgen_attr_free(a);
	ck_assert_int_eq((int)fgc_figure_or(run, "populate", -1), 0);
	ck_assert_int_eq((int)fgc_figure_or(run, "probe_faults", -1), 0);
	/* A read allocates the shared page, writable: the write-back takes
	 * no second fault. */
	assert_counts(run, size, 1);
	ck_assert_int_eq(tasks_now(), before);
	faultgen_run_free(run);
}
END_TEST

START_TEST(populate_of_a_private_memfd_by_the_caller_alone)
{
	/* 32 MiB: one thread, so the caller populates and starts none. */
	uint64_t size = 32 * MIB;
	struct faultgen_attr *a = qemu_attr(size, 4, FAULTGEN_BACKING_MEMFD, 0,
					    FAULTGEN_QEMU_AUTO);
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_run *run = NULL;

	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	faultgen_attr_free(a);
	if (fgc_figure_or(run, "populate", -1) == 0) {
		faultgen_run_free(run);
		FGC_SKIP("the kernel refuses MADV_POPULATE_WRITE (before 5.14)");
	}
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	ck_assert_uint_eq(r.workers, 1);
	ck_assert_int_eq((int)fgc_figure_or(run, "threads_started", -1), 0);
	assert_counts(run, size, 1);
	faultgen_run_free(run);
}
END_TEST

/*
 * With the run's CPUs one allowed CPU (the last, so that it is not where
 * the calling thread was left), every thread that faults runs on it: the
 * calling thread alone populating (_i 0), QEMU's threads touching (_i 1);
 * the calling thread has its own mask back after.
 */
START_TEST(threads_and_caller_run_on_the_runs_cpus)
{
	bool alone = _i == 0;
	uint64_t size = (alone ? 32 : 128) * MIB;
	int first = fgc_affinity_edge(false), last = fgc_affinity_edge(true);
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_run *run = NULL;
	struct faultgen_attr *a;
	cpu_set_t before, after;
	char list[16];

	if (fgc_affinity_count() < 2)
		FGC_SKIP("one CPU allowed: no other to place the threads on");
	a = qemu_attr(size, alone ? 4 : 2, FAULTGEN_BACKING_ANON, 0,
		      alone ? FAULTGEN_QEMU_AUTO : FAULTGEN_QEMU_TOUCH);
	snprintf(list, sizeof(list), "%d", last);
	ck_assert_int_eq(faultgen_attr_set_cpus(a, list), 0);
	ck_assert_int_eq(sched_getaffinity(0, sizeof(before), &before), 0);
	fgc_leave_on(first);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	faultgen_attr_free(a);
	ck_assert_int_eq(sched_getaffinity(0, sizeof(after), &after), 0);
	ck_assert_msg(CPU_EQUAL(&before, &after),
		      "the caller's affinity changed");
	if (alone && fgc_figure_or(run, "populate", -1) == 0) {
		faultgen_run_free(run);
		FGC_SKIP("the kernel refuses MADV_POPULATE_WRITE (before 5.14)");
	}
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	ck_assert_int_eq((int)fgc_figure_or(run, "threads_started", -1),
			 alone ? 0 : (int)r.workers);
	for (unsigned int i = 0; i < r.workers; i++) {
		struct faultgen_worker_result w = { .size = sizeof(w) };

		ck_assert_int_eq(faultgen_run_worker(run, i, &w), 0);
		ck_assert_int_eq(w.cpu, -1);
		ck_assert_msg(w.last_cpu == last,
			      "%s %u ran on CPU %d, the run's CPU is %d",
			      alone ? "the caller, worker" : "thread", i,
			      w.last_cpu, last);
	}
	faultgen_run_free(run);
}
END_TEST

/*
 * Latency: populating, one value per thread, its one call over its slice
 * (per_call, MADV_POPULATE_WRITE, call_bytes the longest slice);
 * touching, one page in 5 of each thread's slice.
 */
START_TEST(latency_times_each_call_or_one_touch_in_n)
{
	uint64_t size = 128 * MIB, ps = (uint64_t)fgc_pagesize();
	bool touch = _i == 1;
	struct faultgen_attr *a = qemu_attr(size, 2, FAULTGEN_BACKING_MEMFD, 1,
					    touch ? FAULTGEN_QEMU_TOUCH :
						    FAULTGEN_QEMU_AUTO);
	struct faultgen_latency l = { .size = sizeof(l) };
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_run *run = NULL;
	uint64_t sum = 0;

	ck_assert_int_eq(faultgen_attr_set_latency(a, touch ? 5 : 1), 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	faultgen_attr_free(a);
	if (!touch && fgc_figure_or(run, "populate", -1) == 0) {
		faultgen_run_free(run);
		FGC_SKIP("the kernel refuses MADV_POPULATE_WRITE (before 5.14)");
	}
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	ck_assert_int_eq(faultgen_run_latency(run, -1, &l), 0);
	ck_assert_int_eq(l.per_call, !touch);
	if (touch) {
		ck_assert_ptr_null(l.call);
		for (unsigned int w = 0; w < r.workers; w++) {
			struct faultgen_worker_result wr = { .size = sizeof(wr) };
			struct faultgen_latency lw = { .size = sizeof(lw) };

			ck_assert_int_eq(faultgen_run_worker(run, w, &wr), 0);
			ck_assert_int_eq(faultgen_run_latency(run, (int)w, &lw),
					 0);
			/* The first page of the slice, then every 5th. */
			ck_assert_uint_eq(lw.count, (wr.pages + 4) / 5);
			sum += lw.count;
		}
		ck_assert_uint_eq(l.count, sum);
	} else {
		ck_assert_str_eq(l.call, "MADV_POPULATE_WRITE");
		ck_assert_uint_eq(l.count, r.workers);
		ck_assert_uint_eq(l.call_bytes,
				  (size / ps + r.workers - 1) / r.workers * ps);
	}
	faultgen_run_free(run);
}
END_TEST

START_TEST(refused_combinations)
{
	struct faultgen_conflict c = { .size = sizeof(c) };
	struct faultgen_attr *a = qemu_attr(MIB, 1, FAULTGEN_BACKING_ANON, 0,
					    FAULTGEN_QEMU_AUTO);
	static char region[1 << 16] __attribute__((aligned(1 << 16)));

	ck_assert_int_eq(faultgen_attr_check(a, NULL), 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, 2, FAULTGEN_PROCESSES),
			 0);
	FGC_ASSERT_CONFLICT(a, FAULTGEN_SETTING_WORKERS);
	ck_assert_int_eq(faultgen_attr_set_workers(a, 2, FAULTGEN_THREADS), 0);
	ck_assert_int_eq(faultgen_attr_set_backing(a, FAULTGEN_BACKING_SYSV),
			 0);
	FGC_ASSERT_CONFLICT(a, FAULTGEN_SETTING_BACKING);
	ck_assert_int_eq(faultgen_attr_set_backing(a, FAULTGEN_BACKING_DEVZERO),
			 0);
	ck_assert_int_eq(faultgen_attr_check(a, &c), -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_backing(a, FAULTGEN_BACKING_ANON),
			 0);
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 2, FAULTGEN_ZAP_DONTNEED),
			 0);
	FGC_ASSERT_CONFLICT(a, FAULTGEN_SETTING_REPEAT);
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 0, FAULTGEN_ZAP_DONTNEED),
			 0);
	ck_assert_int_eq(faultgen_attr_set_region(a, region, sizeof(region)),
			 0);
	FGC_ASSERT_CONFLICT(a, FAULTGEN_SETTING_REGION);
	faultgen_attr_free(a);
	ck_assert_int_eq(faultgen_pattern_reads(FAULTGEN_QEMU_PREALLOC,
						FAULTGEN_SETTING_QEMU),
			 1);
	ck_assert_int_eq(faultgen_pattern_reads(FAULTGEN_QEMU_PREALLOC,
						FAULTGEN_SETTING_THP),
			 0);
	ck_assert_int_eq(faultgen_pattern_reads(FAULTGEN_QEMU_PREALLOC,
						FAULTGEN_SETTING_LATENCY),
			 1);
}
END_TEST

START_TEST(setter_and_getter)
{
	struct faultgen_attr *a;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_get_qemu(a), FAULTGEN_QEMU_AUTO);
	ck_assert_int_eq(faultgen_attr_set_qemu(a, FAULTGEN_QEMU_TOUCH), 0);
	ck_assert_int_eq(faultgen_attr_get_qemu(a), FAULTGEN_QEMU_TOUCH);
	ck_assert_int_eq(faultgen_attr_set_qemu(a, (enum faultgen_qemu)2),
			 -EINVAL);
	ck_assert_int_eq(faultgen_attr_get_qemu(a), FAULTGEN_QEMU_TOUCH);
	ck_assert_int_eq(faultgen_attr_set_qemu(NULL, FAULTGEN_QEMU_AUTO),
			 -EINVAL);
	ck_assert_int_eq(faultgen_attr_get_qemu(NULL), FAULTGEN_QEMU_AUTO);
	faultgen_attr_free(a);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("qemu");
	TCase *tc = tcase_create("rule");

	tcase_add_test(tc, threads_as_qemu_counts_them);
	tcase_add_test(tc, slices_are_contiguous_and_cover_the_ram);
	suite_add_tcase(s, tc);
	tc = tcase_create("run");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, populate_faults_each_page_once);
	tcase_add_test(tc, touch_of_a_shared_memfd_faults_each_page_once);
	tcase_add_test(tc, populate_of_a_private_memfd_by_the_caller_alone);
	tcase_add_loop_test(tc, threads_and_caller_run_on_the_runs_cpus, 0, 2);
	tcase_add_loop_test(tc, latency_times_each_call_or_one_touch_in_n, 0, 2);
	suite_add_tcase(s, tc);
	tc = tcase_create("attr");
	tcase_add_test(tc, refused_combinations);
	tcase_add_test(tc, setter_and_getter);
	suite_add_tcase(s, tc);
	return fgc_main(s);
}
