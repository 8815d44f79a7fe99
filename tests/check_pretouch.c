// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * check_pretouch.c - the JVM pretouch pattern: chunk claiming, the touch
 * modes, caller memory, the worker default and the JDK/GC task model.
 *
 * The heap and table sizes expected here are what JDK 17 and JDK 25 print
 * with -Xlog:gc+heap=debug ("pre-touching N bytes", one line per task),
 * less the table pages those JVMs write at commit anyway (the card table,
 * and JDK 17's first block offset entry of each region), after the
 * start-up memory they pretouch besides (code heaps, CDS archive,
 * metaspace), as much as AlwaysPreTouch adds to their faults until main().
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "check-util.h"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "internal.h"

#define KIB (1ULL << 10)
#define MIB (1ULL << 20)
#define GIB (1ULL << 30)

/* The start-up memory of the model, per release and collector. */
#define START_17_G1 (7160 * KIB)
#define START_17_PS (6592 * KIB)
#define START_25_G1 (11176 * KIB)
#define START_25_PS (9384 * KIB)

/* ---- chunk claiming ------------------------------------------------- */

struct claimers {
	_Atomic uint64_t cursor;
	uint64_t start, end, chunk;
	_Atomic uint32_t *hits; /* one per page of [0, end) */
	_Atomic uint32_t misaligned;
	_Atomic uint32_t descending;
	long ps;
};

static void *claimer(void *arg)
{
	struct claimers *c = arg;
	uint64_t off, len, last = 0;
	bool first = true;

	while (fg_pretouch_claim(&c->cursor, c->start, c->end, c->chunk, &off,
				 &len)) {
		if ((off - c->start) % c->chunk ||
		    (len != c->chunk && off + len != c->end))
			atomic_fetch_add(&c->misaligned, 1);
		/* One thread's claims ascend, as the shared cursor does. */
		if (!first && off <= last)
			atomic_fetch_add(&c->descending, 1);
		first = false;
		last = off;
		for (uint64_t o = off; o < off + len; o += (uint64_t)c->ps)
			atomic_fetch_add(&c->hits[o / (uint64_t)c->ps], 1);
	}
	return NULL;
}

/* Threads 1..64 claim a range that is not a whole number of chunks; the
 * cursor starts below the range, as it does for every task after the
 * first. */
START_TEST(claim_covers_every_page_once)
{
	unsigned int threads = (unsigned int)_i;
	long ps = fgc_pagesize();
	uint64_t pages = 16 * 37 + 5 + threads, lead = 3;
	struct claimers c = {
		.start = lead * (uint64_t)ps,
		.end = (lead + pages) * (uint64_t)ps,
		.chunk = 16 * (uint64_t)ps,
		.ps = ps,
	};
	pthread_t tid[64];

	c.hits = calloc(lead + pages, sizeof(*c.hits));
	ck_assert_ptr_nonnull(c.hits);
	atomic_store(&c.cursor, ps);
	for (unsigned int t = 0; t < threads; t++)
		ck_assert_int_eq(pthread_create(&tid[t], NULL, claimer, &c), 0);
	for (unsigned int t = 0; t < threads; t++)
		pthread_join(tid[t], NULL);
	for (uint64_t p = 0; p < lead; p++)
		ck_assert_uint_eq(atomic_load(&c.hits[p]), 0);
	for (uint64_t p = lead; p < lead + pages; p++)
		ck_assert_msg(atomic_load(&c.hits[p]) == 1,
			      "page %llu touched %u times by %u threads",
			      (unsigned long long)p, atomic_load(&c.hits[p]),
			      threads);
	ck_assert_uint_eq(atomic_load(&c.misaligned), 0);
	ck_assert_uint_eq(atomic_load(&c.descending), 0);
	/* The cursor stops at the end: nothing overshoots into the next
	 * task. */
	ck_assert_uint_eq(atomic_load(&c.cursor), c.end);
	free(c.hits);
}
END_TEST

/* ---- whole runs ----------------------------------------------------- */

static struct faultgen_attr *pretouch_attr(unsigned int workers,
					   enum faultgen_pretouch_touch touch)
{
	struct faultgen_attr *a;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, FAULTGEN_PRETOUCH), 0);
	ck_assert_int_eq(faultgen_attr_set_pretouch_touch(a, touch), 0);
	if (workers)
		ck_assert_int_eq(faultgen_attr_set_workers(a, workers,
							   FAULTGEN_THREADS),
				 0);
	return a;
}

/* A fresh, never-faulted mapping with a PROT_NONE page on each side. */
static char *fresh_region(size_t len)
{
	long ps = fgc_pagesize();
	char *p = mmap(NULL, len + 2 * (size_t)ps, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	ck_assert_int_eq(mprotect(p + ps, len, PROT_READ | PROT_WRITE), 0);
	return p + ps;
}

static void free_region(char *p, size_t len)
{
	long ps = fgc_pagesize();

	munmap(p - ps, len + 2 * (size_t)ps);
}

static uint64_t worker_pages(struct faultgen_run *run, unsigned int n)
{
	uint64_t sum = 0;

	for (unsigned int i = 0; i < n; i++) {
		struct faultgen_worker_result w = { .size = sizeof(w) };

		ck_assert_int_eq(faultgen_run_worker(run, i, &w), 0);
		sum += w.pages;
	}
	return sum;
}

static const unsigned int worker_counts[] = { 1, 2, 3, 7, 16, 33, 64 };

/* Every page of a region that is not a whole number of chunks is faulted
 * once, whatever the number of workers (1..64). */
START_TEST(run_faults_every_page_once)
{
	unsigned int n = worker_counts[_i];
	long ps = fgc_pagesize();
	uint64_t chunk = 64 * (uint64_t)ps;
	size_t len = (size_t)(150 * chunk + 13 * (uint64_t)ps);
	uint64_t pages = len / (uint64_t)ps;
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_attr *a = pretouch_attr(n, FAULTGEN_PRETOUCH_ATOMIC_ADD);
	struct faultgen_run *run;
	char *region = fresh_region(len);

	ck_assert_int_eq(faultgen_attr_set_chunk_size(a, chunk), 0);
	ck_assert_int_eq(faultgen_attr_set_region(a, region, len), 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	ck_assert_uint_eq(r.workers, n);
	ck_assert_uint_eq(r.pages, pages);
	ck_assert_uint_eq(r.bytes, len);
	ck_assert_uint_eq(worker_pages(run, n), pages);
	ck_assert_uint_eq(fgc_resident_pages(region, len), pages);
	/* A page touched twice would take one fault, not two: the count of
	 * touches (pages) and of faults agree only when each is once. */
	ck_assert_msg(fgc_close(pages, r.minflt, n), "%llu faults, %llu pages",
		      (unsigned long long)r.minflt, (unsigned long long)pages);
	ck_assert_int_eq(r.faults_agree, 1);
	ck_assert(r.elapsed_s > 0);
	/* One pass: the figure of record is the pages over the run's
	 * elapsed time, as the JVM times its pretouch. */
	ck_assert_int_eq(r.rate_kind, FAULTGEN_RATE_WALL);
	ck_assert_double_eq_tol(r.pages_per_wall_s,
				(double)r.pages / r.elapsed_s, 1e-6);
	ck_assert(r.rate == r.pages_per_wall_s);
	faultgen_run_free(run);
	free_region(region, len);
	faultgen_attr_free(a);
}
END_TEST

/* As HotSpot creates its workers on demand: not more than chunks. */
START_TEST(workers_capped_at_chunks)
{
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_attr *a = pretouch_attr(64, FAULTGEN_PRETOUCH_STORE);

	ck_assert_int_eq(faultgen_attr_set_size(a, 10 * MIB), 0);
	ck_assert_int_eq(faultgen_pretouch(a, &r), 0);
	ck_assert_uint_eq(r.workers, 3); /* 4 + 4 + 2 MiB */
	ck_assert_uint_eq(r.pages, 10 * MIB / (uint64_t)fgc_pagesize());
	faultgen_attr_free(a);
}
END_TEST

/* Each touch mode faults every page of the heap it maps. */
START_TEST(each_touch_mode_faults_every_page)
{
	enum faultgen_pretouch_touch touch = (enum faultgen_pretouch_touch)_i;
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_attr *a = pretouch_attr(2, touch);
	uint64_t ps = (uint64_t)fgc_pagesize(), len = 24 * MIB + 5 * ps;
	uint64_t pages = len / ps;
	struct faultgen_run *run;
	char *heap;
	void *base;
	size_t blen;

	ck_assert_int_eq(faultgen_attr_set_size(a, len), 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	ck_assert_int_eq(faultgen_run_region(run, &base, &blen), 0);
	/* A PROT_NONE page on each side of the heap. */
	heap = (char *)base + ps;
	ck_assert_uint_eq(blen, len + 2 * ps);
	ck_assert_uint_eq(r.pages, pages);
	ck_assert_uint_eq(worker_pages(run, r.workers), pages);
	ck_assert_uint_eq(fgc_resident_pages(heap, (size_t)len), pages);
	/* The fast modes: 4 KiB pages whatever the THP mode, or huge. */
	if (touch >= FAULTGEN_PRETOUCH_FAST) {
		char flags[256];

		ck_assert_int_eq(fgc_vmflags(heap, flags, sizeof(flags)), 0);
		ck_assert_msg(fgc_vmflag_has(flags, touch ==
					     FAULTGEN_PRETOUCH_FAST ? "nh" : "hg"),
			      "touch %d, VmFlags:%s", touch, flags);
	}
	if (touch == FAULTGEN_PRETOUCH_FAST_HUGE) {
		/* Huge pages, where the kernel gives them, take fewer
		 * faults: only the page count is certain. */
		ck_assert_uint_gt(r.minflt, 0);
		ck_assert_uint_le(r.minflt, pages + 64);
	} else {
		ck_assert_msg(fgc_close(pages, r.minflt, r.workers),
			      "touch %d: %llu faults for %llu pages", touch,
			      (unsigned long long)r.minflt,
			      (unsigned long long)pages);
	}
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* The VMAs over [lo, hi) as one string: start, end and permissions. */
static void maps_over(char *lo, char *hi, char *buf, size_t len)
{
	struct fgc_vma *v;
	int n = fgc_maps_read(&v);
	size_t used = 0;

	ck_assert_int_gt(n, 0);
	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (v[i].end <= (unsigned long)lo ||
		    v[i].start >= (unsigned long)hi)
			continue;
		/* One VMA fits (its perms are 7 bytes at most), then buf. */
		char one[2 * 16 + sizeof(v[i].perms) + 3];
		int k = snprintf(one, sizeof(one), "%lx-%lx %s;", v[i].start,
				 v[i].end, v[i].perms);

		ck_assert_int_lt(k, (int)sizeof(one));
		ck_assert_uint_lt(used + (size_t)k, len);
		memcpy(buf + used, one, (size_t)k + 1);
		used += (size_t)k;
	}
	free(v);
}

/* The caller's memory is touched, never mapped, unmapped or re-protected,
 * neither by the run nor when it is freed; its content stays (but for
 * the first byte of each page with JDK 17's store). */
START_TEST(caller_region_never_mapped_or_unmapped)
{
	long ps = fgc_pagesize();
	size_t len = 8 * MIB + 3 * (size_t)ps, all = len + 4 * MIB;
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_attr *a = pretouch_attr(2, FAULTGEN_PRETOUCH_FAST);
	char before[4096], during[4096], after[4096];
	char *outer = fresh_region(all), *region = outer + 2 * MIB;
	struct faultgen_run *run;

	/* The region is the middle of a larger mapping: any map or unmap
	 * of it would split that mapping. */
	region[1] = 'a';
	region[len - 1] = 'z';
	maps_over(outer - ps, outer + all + ps, before, sizeof(before));
	ck_assert_int_eq(faultgen_attr_set_region(a, region, len), 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	maps_over(outer - ps, outer + all + ps, during, sizeof(during));
	ck_assert_str_eq(during, before);
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	ck_assert_uint_eq(r.pages, len / (size_t)ps);
	ck_assert_uint_eq(fgc_resident_pages(region, len), len / (size_t)ps);
	faultgen_run_free(run);
	maps_over(outer - ps, outer + all + ps, after, sizeof(after));
	ck_assert_str_eq(after, before);
	ck_assert_int_eq(region[1], 'a');
	ck_assert_int_eq(region[len - 1], 'z');
	/* The one-call form, and a refused combination, the same. */
	ck_assert_int_eq(faultgen_attr_set_pretouch_touch(
				 a, FAULTGEN_PRETOUCH_STORE), 0);
	ck_assert_int_eq(faultgen_pretouch(a, &r), 0);
	ck_assert_int_eq(faultgen_attr_set_jvm(a, 25, FAULTGEN_GC_G1), 0);
	ck_assert_int_eq(faultgen_pretouch(a, &r), -EINVAL);
	maps_over(outer - ps, outer + all + ps, after, sizeof(after));
	ck_assert_str_eq(after, before);
	/* JDK 17's touch stores a 0 at the start of each page, no more. */
	ck_assert_int_eq(region[0], 0);
	ck_assert_int_eq(region[1], 'a');
	free_region(outer, all);
	faultgen_attr_free(a);
}
END_TEST

/* ---- the JVM model -------------------------------------------------- */

START_TEST(worker_default_follows_hotspot)
{
	static const unsigned int cpus[][2] = {
		{ 1, 1 },   { 2, 2 },   { 8, 8 },    { 9, 8 },
		{ 16, 13 }, { 84, 55 }, { 128, 83 }, { 0, 1 },
	};

	for (size_t i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++)
		ck_assert_msg(faultgen_jvm_gc_threads(cpus[i][0]) == cpus[i][1],
			      "%u CPUs: %u threads, not %u", cpus[i][0],
			      faultgen_jvm_gc_threads(cpus[i][0]), cpus[i][1]);
}
END_TEST

/* A run without a worker count takes min(chunks, the rule on the allowed
 * CPUs): all of them for a big heap, one for a one-chunk heap. */
START_TEST(run_default_workers)
{
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_attr *a = pretouch_attr(0, FAULTGEN_PRETOUCH_FAST);
	int ncpus = fgc_affinity_count();
	unsigned int want;

	ck_assert_int_gt(ncpus, 0);
	want = faultgen_jvm_gc_threads((unsigned int)ncpus);
	if (want > 16)
		want = 16;
	ck_assert_int_eq(faultgen_attr_set_size(a, 64 * MIB), 0);
	ck_assert_int_eq(faultgen_pretouch(a, &r), 0);
	ck_assert_uint_eq(r.workers, want);
	ck_assert_int_eq(faultgen_attr_set_size(a, 4 * MIB), 0);
	ck_assert_int_eq(faultgen_pretouch(a, &r), 0);
	ck_assert_uint_eq(r.workers, 1);
	faultgen_attr_free(a);
}
END_TEST

/* Besides the heap: the start-up memory, then G1's two bitmaps (heap/64)
 * until JDK 20, one after; the card counts (heap/512) until JDK 21; the
 * block offset table (heap/512) from JDK 21, before which its pages hold
 * the regions' first entries, written anyway.  The card table never. */
START_TEST(aux_bytes_per_jdk)
{
	uint64_t heap = 4 * GIB;

	ck_assert_uint_eq(faultgen_jvm_aux_bytes(17, FAULTGEN_GC_G1, heap),
			  START_17_G1 + 2 * heap / 64 + heap / 512);
	ck_assert_uint_eq(faultgen_jvm_aux_bytes(20, FAULTGEN_GC_G1, heap),
			  START_17_G1 + heap / 64 + heap / 512);
	ck_assert_uint_eq(faultgen_jvm_aux_bytes(21, FAULTGEN_GC_G1, heap),
			  START_25_G1 + heap / 64 + heap / 512);
	ck_assert_uint_eq(faultgen_jvm_aux_bytes(25, FAULTGEN_GC_G1, heap),
			  START_25_G1 + heap / 64 + heap / 512);
	ck_assert_uint_eq(faultgen_jvm_aux_bytes(17, FAULTGEN_GC_PARALLEL,
						 heap),
			  START_17_PS);
	ck_assert_uint_eq(faultgen_jvm_aux_bytes(25, FAULTGEN_GC_PARALLEL,
						 heap),
			  START_25_PS);
	ck_assert_uint_eq(faultgen_jvm_aux_bytes(25, FAULTGEN_GC_NONE, heap), 0);
	ck_assert_uint_eq(faultgen_jvm_aux_bytes(25, FAULTGEN_GC_G1, 0), 0);
	/* G1 aligns -Xmx101m up to 102 MiB first. */
	ck_assert_uint_eq(faultgen_jvm_aux_bytes(25, FAULTGEN_GC_G1, 101 * MIB),
			  START_25_G1 + 102 * MIB / 64 + 102 * MIB / 512);
	/* 16 GiB: 8 MiB regions, one written block offset page in four. */
	ck_assert_uint_eq(faultgen_jvm_aux_bytes(17, FAULTGEN_GC_G1, 4 * heap),
			  START_17_G1 + 2 * 4 * heap / 64 +
				  4 * heap / 512 * 3 / 4 + 4 * heap / 512);
}
END_TEST

static void expect_ranges(unsigned int jdk, enum faultgen_jvm_gc gc,
			  uint64_t heap, const uint64_t *want, unsigned int n)
{
	uint64_t lens[8];
	unsigned int got;

	got = fg_jvm_ranges(jdk, gc, heap, 4096, lens, 8);
	ck_assert_uint_eq(got, n);
	for (unsigned int i = 0; i < n; i++)
		ck_assert_msg(lens[i] == want[i],
			      "JDK %u gc %d heap %llu task %u: %llu, not %llu",
			      jdk, gc, (unsigned long long)heap, i,
			      (unsigned long long)lens[i],
			      (unsigned long long)want[i]);
}

/* Task by task: the start-up memory, then the heap and tables the two
 * JDKs on this project's machines print, less the pages they fill anyway. */
START_TEST(tasks_follow_the_jvm)
{
	static const uint64_t g1_17_4g[] = { START_17_G1, 4294967296,
					     67108864, 67108864, 8388608 };
	static const uint64_t g1_25_4g[] = { START_25_G1, 4294967296,
					     67108864, 8388608 };
	static const uint64_t g1_17_3073m[] = { START_17_G1, 3223322624,
						50364416, 50364416, 6295552 };
	static const uint64_t g1_17_9000m[] = { START_17_G1, 9437184000,
						147456000, 147456000,
						13824000, 18432000 };
	static const uint64_t g1_25_9000m[] = { START_25_G1, 9437184000,
						147456000, 18432000 };
	static const uint64_t g1_25_5m[] = { START_25_G1, 6291456, 98304,
					     12288 };
	static const uint64_t ps_4g[] = { START_17_PS, 1073741824, 178782208,
					  178782208, 2863661056 };
	static const uint64_t ps_101m[] = { START_25_PS, 27262976, 4194304,
					    4194304, 71303168 };
	static const uint64_t ps_3073m[] = { START_25_PS, 805830656,
					     134217728, 134217728,
					     2149056512 };
	static const uint64_t ps_5m[] = { START_17_PS, 1048576, 524288, 524288,
					  4194304 };
	static const uint64_t none_5m[] = { 5242880 };

	if (fgc_pagesize() != 4096)
		FGC_SKIP("the logs are from 4 KiB-page machines");
	expect_ranges(17, FAULTGEN_GC_G1, 4 * GIB, g1_17_4g, 5);
	expect_ranges(25, FAULTGEN_GC_G1, 4 * GIB, g1_25_4g, 4);
	expect_ranges(17, FAULTGEN_GC_G1, 3073 * MIB, g1_17_3073m, 5);
	expect_ranges(17, FAULTGEN_GC_G1, 9000 * MIB, g1_17_9000m, 6);
	expect_ranges(25, FAULTGEN_GC_G1, 9000 * MIB, g1_25_9000m, 4);
	expect_ranges(25, FAULTGEN_GC_G1, 5 * MIB, g1_25_5m, 4);
	expect_ranges(17, FAULTGEN_GC_PARALLEL, 4 * GIB, ps_4g, 5);
	expect_ranges(25, FAULTGEN_GC_PARALLEL, 101 * MIB, ps_101m, 5);
	expect_ranges(25, FAULTGEN_GC_PARALLEL, 3073 * MIB, ps_3073m, 5);
	expect_ranges(17, FAULTGEN_GC_PARALLEL, 5 * MIB, ps_5m, 5);
	expect_ranges(25, FAULTGEN_GC_NONE, 5 * MIB, none_5m, 1);
}
END_TEST

/* A G1 run: the start-up memory, the heap and each table are read-write
 * mappings of their own, in that order, and every page of all of them is
 * faulted: the heap is one mapping. */
START_TEST(g1_run_heap_one_vma_tables_apart)
{
	unsigned int jdk = _i ? 25 : 17;
	uint64_t heap = 32 * MIB, ps = (uint64_t)fgc_pagesize();
	uint64_t aux = faultgen_jvm_aux_bytes(jdk, FAULTGEN_GC_G1, heap);
	uint64_t pages = (heap + aux) / ps;
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_attr *a = pretouch_attr(2, FAULTGEN_PRETOUCH_STORE);
	struct fgc_vma *v;
	struct faultgen_run *run;
	int n, first, last = -1, rw = 0;
	void *base;
	size_t blen;

	ck_assert_int_eq(faultgen_attr_set_size(a, heap), 0);
	ck_assert_int_eq(faultgen_attr_set_jvm(a, jdk, FAULTGEN_GC_G1), 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	ck_assert_uint_eq(r.bytes, heap + aux);
	ck_assert_uint_eq(r.pages, pages);
	/* The start-up memory is the calling thread's
	 * (caller_faults_the_startup_memory). */
	ck_assert_uint_eq(worker_pages(run, r.workers),
			  pages - (jdk == 17 ? START_17_G1 : START_25_G1) / ps);
	ck_assert_msg(fgc_close(pages, r.minflt, r.workers),
		      "%llu faults, %llu pages", (unsigned long long)r.minflt,
		      (unsigned long long)pages);
	ck_assert_int_eq(faultgen_run_region(run, &base, &blen), 0);
	n = fgc_maps_read(&v);
	ck_assert_int_gt(n, 0);
	ck_assert_ptr_nonnull(v);
	ck_assert_int_gt(fgc_vmas_over(v, n, base, blen, &first), 0);
	/* A guard page, the start-up memory, gaps, the heap, gaps and
	 * tables, a guard page. */
	ck_assert_uint_eq(v[first].start, (unsigned long)base);
	ck_assert_str_eq(v[first].perms, "---p");
	ck_assert_int_lt(first + 3, n);
	ck_assert_uint_eq(v[first + 1].start, (unsigned long)base + ps);
	ck_assert_str_eq(v[first + 1].perms, "rw-p");
	ck_assert_str_eq(v[first + 2].perms, "---p");
	ck_assert_uint_eq(v[first + 3].end - v[first + 3].start, heap);
	ck_assert_str_eq(v[first + 3].perms, "rw-p");
	for (int i = first; i < n && v[i].start < (unsigned long)base + blen;
	     i++) {
		rw += strncmp(v[i].perms, "rw", 2) == 0;
		last = i;
	}
	/* 32 MiB: JDK 17's block offset pages all hold a region's first
	 * entry, its card counts are left; JDK 25 keeps that table. */
	ck_assert_int_eq(rw, jdk == 17 ? 5 : 4);
	ck_assert_str_eq(v[last].perms, "---p");
	ck_assert_uint_eq(v[last].end, (unsigned long)base + blen);
	ck_assert_uint_eq(fgc_resident_pages((void *)v[first + 3].start,
					     (size_t)heap),
			  heap / ps);
	free(v);
	faultgen_run_free(run);
	/* Released with the run. */
	n = fgc_maps_read(&v);
	ck_assert_int_gt(n, 0);
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(fgc_vmas_over(v, n, base, blen, &first), 0);
	free(v);
	faultgen_attr_free(a);
}
END_TEST

/* A Parallel run: the spaces are committed back to back in the heap's
 * reservation, so the heap is one read-write mapping, as a JVM's is; the
 * start-up memory is a mapping apart. */
START_TEST(parallel_run_heap_one_vma)
{
	uint64_t heap = 32 * MIB, ps = (uint64_t)fgc_pagesize();
	uint64_t start = START_17_PS / ps;
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_attr *a = pretouch_attr(2, FAULTGEN_PRETOUCH_STORE);
	struct faultgen_run *run;
	struct fgc_vma *v;
	int n, first, rw = 0, heap_vma = -1;
	void *base;
	size_t blen;

	ck_assert_int_eq(faultgen_attr_set_size(a, heap), 0);
	ck_assert_int_eq(faultgen_attr_set_jvm(a, 17, FAULTGEN_GC_PARALLEL),
			 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	ck_assert_uint_eq(r.pages, heap / ps + start);
	ck_assert_int_eq(faultgen_run_region(run, &base, &blen), 0);
	n = fgc_maps_read(&v);
	ck_assert_int_gt(n, 0);
	ck_assert_ptr_nonnull(v);
	ck_assert_int_gt(fgc_vmas_over(v, n, base, blen, &first), 0);
	for (int i = first; i < n && v[i].start < (unsigned long)base + blen;
	     i++) {
		if (strncmp(v[i].perms, "rw", 2) != 0)
			continue;
		rw++;
		if (v[i].end - v[i].start == heap)
			heap_vma = i;
	}
	ck_assert_int_eq(rw, 2);
	ck_assert_int_ge(heap_vma, 0);
	ck_assert_uint_eq(fgc_resident_pages((void *)v[heap_vma].start,
					     (size_t)heap),
			  heap / ps);
	free(v);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/*
 * The start-up memory is the JVM's main thread's, pretouched before any
 * GC worker exists: the calling thread takes its faults (the kernel's
 * count of that thread), the workers those of the heap and the tables
 * alone, and the result counts both.
 */
static const struct {
	unsigned int jdk;
	enum faultgen_jvm_gc gc;
	uint64_t start;
} startups[] = {
	{ 17, FAULTGEN_GC_G1, START_17_G1 },
	{ 17, FAULTGEN_GC_PARALLEL, START_17_PS },
	{ 25, FAULTGEN_GC_G1, START_25_G1 },
	{ 25, FAULTGEN_GC_PARALLEL, START_25_PS },
};

START_TEST(caller_faults_the_startup_memory)
{
	uint64_t heap = 16 * MIB, ps = (uint64_t)fgc_pagesize();
	uint64_t start = startups[_i].start / ps, wpages = 0, wflt = 0;
	uint64_t all = (heap + faultgen_jvm_aux_bytes(startups[_i].jdk,
						      startups[_i].gc, heap)) /
		       ps;
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_attr *a = pretouch_attr(2, FAULTGEN_PRETOUCH_STORE);
	struct rusage before, after;
	struct faultgen_run *run;
	uint64_t caller;

	ck_assert_int_eq(faultgen_attr_set_size(a, heap), 0);
	ck_assert_int_eq(faultgen_attr_set_jvm(a, startups[_i].jdk,
					       startups[_i].gc),
			 0);
	ck_assert_int_eq(getrusage(RUSAGE_THREAD, &before), 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	ck_assert_int_eq(getrusage(RUSAGE_THREAD, &after), 0);
	caller = (uint64_t)(after.ru_minflt - before.ru_minflt);
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	ck_assert_uint_eq(r.workers, 2);
	for (unsigned int i = 0; i < r.workers; i++) {
		struct faultgen_worker_result w = { .size = sizeof(w) };

		ck_assert_int_eq(faultgen_run_worker(run, i, &w), 0);
		ck_assert_int_ne(w.tid, (int)syscall(SYS_gettid));
		wpages += w.pages;
		wflt += w.minflt;
	}
	/* The caller's faults beyond the start-up pages are the run's
	 * setup (its shared state, the workers' creation). */
	ck_assert_msg(fgc_close(start, caller, 1),
		      "JDK %u gc %d: the calling thread took %llu faults, "
		      "the start-up memory has %llu pages",
		      startups[_i].jdk, startups[_i].gc,
		      (unsigned long long)caller, (unsigned long long)start);
	ck_assert_uint_eq(wpages, all - start);
	ck_assert_msg(fgc_close(all - start, wflt, r.workers),
		      "JDK %u gc %d: the workers took %llu faults for %llu "
		      "pages of heap and tables",
		      startups[_i].jdk, startups[_i].gc,
		      (unsigned long long)wflt,
		      (unsigned long long)(all - start));
	ck_assert_uint_eq(r.pages, all);
	ck_assert_uint_eq(r.expected_faults, all);
	ck_assert_msg(fgc_close(all, r.minflt, r.workers + 1),
		      "%llu faults, %llu pages", (unsigned long long)r.minflt,
		      (unsigned long long)all);
	ck_assert_int_eq(r.faults_agree, 1);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/*
 * With the run's CPUs one allowed CPU (the last, so that it is not where
 * the calling thread was left), the calling thread touches the start-up
 * memory there, as the workers touch the rest (_i 1: pinned); it has its
 * own mask back after.
 */
START_TEST(caller_and_workers_run_on_the_runs_cpus)
{
	uint64_t ps = (uint64_t)fgc_pagesize(), start = START_25_G1 / ps;
	int first = fgc_affinity_edge(false), last = fgc_affinity_edge(true);
	struct faultgen_attr *a = pretouch_attr(2, FAULTGEN_PRETOUCH_STORE);
	struct faultgen_result r = { .size = sizeof(r) };
	uint64_t off_run, on_run;
	cpu_set_t before, after;
	struct faultgen_run *run;
	int fd_off, fd_on;
	char list[16];

	if (fgc_affinity_count() < 2) {
		faultgen_attr_free(a);
		FGC_SKIP("one CPU allowed: no other to place the threads on");
	}
	ck_assert_int_eq(faultgen_attr_set_size(a, 16 * MIB), 0);
	ck_assert_int_eq(faultgen_attr_set_jvm(a, 25, FAULTGEN_GC_G1), 0);
	ck_assert_int_eq(faultgen_attr_set_pin(a, _i), 0);
	snprintf(list, sizeof(list), "%d", last);
	ck_assert_int_eq(faultgen_attr_set_cpus(a, list), 0);
	fd_off = fgc_faults_on_cpu(first, false);
	fd_on = fgc_faults_on_cpu(last, false);
	if (fd_off < 0 || fd_on < 0) {
		faultgen_attr_free(a);
		FGC_SKIP("no page-fault event per CPU: %s", strerror(errno));
	}
	ck_assert_int_eq(sched_getaffinity(0, sizeof(before), &before), 0);
	fgc_leave_on(first);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	off_run = fgc_count_of(fd_off);
	on_run = fgc_count_of(fd_on);
	ck_assert_int_eq(sched_getaffinity(0, sizeof(after), &after), 0);
	ck_assert_msg(CPU_EQUAL(&before, &after),
		      "the caller's affinity changed");
	/* Besides the start-up memory, the caller's own faults of the
	 * run's setup, wherever it was. */
	ck_assert_msg(off_run < start / 8 && on_run >= start,
		      "the caller faulted %llu pages off the run's CPU %d, "
		      "%llu on it; the start-up memory has %llu",
		      (unsigned long long)off_run, last,
		      (unsigned long long)on_run, (unsigned long long)start);
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	for (unsigned int i = 0; i < r.workers; i++) {
		struct faultgen_worker_result w = { .size = sizeof(w) };

		ck_assert_int_eq(faultgen_run_worker(run, i, &w), 0);
		ck_assert_int_eq(w.cpu, _i ? last : -1);
		ck_assert_int_eq(w.last_cpu, last);
	}
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(rejects_what_the_jvm_cannot_do)
{
	struct faultgen_result r = { .size = sizeof(r) }, small = { .size = 1 };
	struct faultgen_attr *a = pretouch_attr(2, FAULTGEN_PRETOUCH_STORE);

	ck_assert_int_eq(faultgen_pretouch(NULL, &r), -EINVAL);
	ck_assert_int_eq(faultgen_pretouch(a, NULL), -EINVAL);
	ck_assert_int_eq(faultgen_pretouch(a, &small), -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_workers(a, 2, FAULTGEN_PROCESSES),
			 0);
	ck_assert_int_eq(faultgen_pretouch(a, &r), -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_workers(a, 2, FAULTGEN_THREADS), 0);
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 2, FAULTGEN_ZAP_DONTNEED),
			 0);
	ck_assert_int_eq(faultgen_pretouch(a, &r), -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 0, FAULTGEN_ZAP_DONTNEED),
			 0);
	ck_assert_int_eq(faultgen_attr_set_backing(a, FAULTGEN_BACKING_SYSV),
			 0);
	ck_assert_int_eq(faultgen_pretouch(a, &r), -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_backing(a, FAULTGEN_BACKING_ANON),
			 0);
	/* And the attr's pattern does not matter to faultgen_pretouch. */
	ck_assert_int_eq(faultgen_attr_set_pattern(a, FAULTGEN_SHARED_VMA), 0);
	ck_assert_int_eq(faultgen_pretouch(a, &r), 0);
	ck_assert_uint_eq(r.pages, 1);
	faultgen_attr_free(a);
}
END_TEST

static Suite *pretouch_suite(void)
{
	Suite *s = suite_create("pretouch");
	TCase *tc = tcase_create("pretouch");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, claim_covers_every_page_once, 1, 65);
	tcase_add_loop_test(tc, run_faults_every_page_once, 0,
			    sizeof(worker_counts) / sizeof(worker_counts[0]));
	tcase_add_test(tc, workers_capped_at_chunks);
	tcase_add_loop_test(tc, each_touch_mode_faults_every_page,
			    FAULTGEN_PRETOUCH_STORE,
			    FAULTGEN_PRETOUCH_FAST_HUGE + 1);
	tcase_add_test(tc, caller_region_never_mapped_or_unmapped);
	tcase_add_test(tc, worker_default_follows_hotspot);
	tcase_add_test(tc, run_default_workers);
	tcase_add_test(tc, aux_bytes_per_jdk);
	tcase_add_test(tc, tasks_follow_the_jvm);
	tcase_add_loop_test(tc, g1_run_heap_one_vma_tables_apart, 0, 2);
	tcase_add_test(tc, parallel_run_heap_one_vma);
	tcase_add_loop_test(tc, caller_faults_the_startup_memory, 0,
			    sizeof(startups) / sizeof(startups[0]));
	tcase_add_loop_test(tc, caller_and_workers_run_on_the_runs_cpus, 0, 2);
	tcase_add_test(tc, rejects_what_the_jvm_cannot_do);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return fgc_main(pretouch_suite());
}
