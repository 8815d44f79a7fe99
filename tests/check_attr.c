// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * check_attr.c - the attr setters: defaults, valid and invalid values, and
 * that a failed setter leaves the attr as it was, seen through the getters,
 * through the attr itself and through what a run then does; the getters;
 * the rules for combining settings (faultgen_attr_check), as
 * faultgen_attr_check(3) documents them.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "check-util.h"

#include <limits.h>
#include <math.h>
#include <sys/resource.h>

#include "internal.h"

/* Never dereferenced: set_region only records the range. */
#define FAKE_REGION ((void *)(uintptr_t)0x10000)

static unsigned int max_cachelines(void)
{
	long cl = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);

	if (cl <= 0 || cl > fgc_pagesize())
		cl = 128;
	return (unsigned int)(fgc_pagesize() / cl);
}

static unsigned int cacheline(void)
{
	return (unsigned int)fgc_pagesize() / max_cachelines();
}

/* An attr with every knob away from its default, so that "unchanged"
 * cannot pass by the setter resetting a field to its default. */
static struct faultgen_attr *busy_attr(void)
{
	struct faultgen_attr *a;
	long ps = fgc_pagesize();

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, FAULTGEN_PER_THREAD_VMA),
			 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 3ULL << 20), 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, 3, FAULTGEN_PROCESSES),
			 0);
	ck_assert_int_eq(faultgen_attr_set_backing(a, FAULTGEN_BACKING_DEVZERO),
			 0);
	ck_assert_int_eq(faultgen_attr_set_shm_lock(a, 1), 0);
	ck_assert_int_eq(faultgen_attr_set_touch(a, FAULTGEN_TOUCH_READ), 0);
	ck_assert_int_eq(faultgen_attr_set_cachelines(a, 2), 0);
	ck_assert_int_eq(faultgen_attr_set_numa(a, FAULTGEN_NUMA_LOCAL), 0);
	ck_assert_int_eq(faultgen_attr_set_thp(a, FAULTGEN_THP_NOHUGEPAGE), 0);
	ck_assert_int_eq(faultgen_attr_set_cpus(a, "0"), 0);
	ck_assert_int_eq(faultgen_attr_set_cpuset(a, "some/cpuset"), 0);
	ck_assert_int_eq(faultgen_attr_set_pin(a, 1), 0);
	ck_assert_int_eq(faultgen_attr_set_sched_fifo(a, 1), 0);
	ck_assert_int_eq(faultgen_attr_set_oversubscribe(a, 1), 0);
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 4, FAULTGEN_ZAP_MUNMAP),
			 0);
	ck_assert_int_eq(faultgen_attr_set_warmup(a, 2), 0);
	ck_assert_int_eq(faultgen_attr_set_region(a, FAKE_REGION,
						  2 * (size_t)ps),
			 0);
	ck_assert_int_eq(faultgen_attr_set_protect(a, FAULTGEN_PROTECT_FORK),
			 0);
	ck_assert_int_eq(faultgen_attr_set_collapse(
				 a, FAULTGEN_COLLAPSE_KHUGEPAGED),
			 0);
	ck_assert_int_eq(faultgen_attr_set_timeout(a, 5.5), 0);
	ck_assert_int_eq(faultgen_attr_set_pretouch_touch(
				 a, FAULTGEN_PRETOUCH_POPULATE),
			 0);
	ck_assert_int_eq(faultgen_attr_set_chunk_size(a, 8ULL << 20), 0);
	ck_assert_int_eq(faultgen_attr_set_jvm(a, 17, FAULTGEN_GC_G1), 0);
	return a;
}

/* ---- the table of bad values ---------------------------------------- */

struct bad {
	const char *what;
	int (*apply)(struct faultgen_attr *a);
	int err;
};

#define BAD(name, call)                                                       \
	static int bad_##name(struct faultgen_attr *a)                        \
	{                                                                     \
		return call;                                                  \
	}

BAD(pattern_neg, faultgen_attr_set_pattern(a, (enum faultgen_pattern)-1))
BAD(pattern_past_last, faultgen_attr_set_pattern(
				  a, (enum faultgen_pattern)faultgen_pattern_count()))
BAD(pattern_big, faultgen_attr_set_pattern(a, (enum faultgen_pattern)INT_MAX))
BAD(size_0, faultgen_attr_set_size(a, 0))
BAD(size_half_space, faultgen_attr_set_size(a, (UINT64_MAX >> 17) + 1))
BAD(size_max, faultgen_attr_set_size(a, UINT64_MAX))
BAD(workers_0, faultgen_attr_set_workers(a, 0, FAULTGEN_THREADS))
BAD(workers_over, faultgen_attr_set_workers(a, FAULTGEN_MAX_WORKERS + 1,
					    FAULTGEN_THREADS))
BAD(workers_uintmax, faultgen_attr_set_workers(a, UINT_MAX,
					       FAULTGEN_PROCESSES))
BAD(workers_kind_2, faultgen_attr_set_workers(a, 1, (enum faultgen_workers)2))
BAD(workers_kind_neg,
    faultgen_attr_set_workers(a, 1, (enum faultgen_workers)-1))
BAD(backing_6, faultgen_attr_set_backing(a, (enum faultgen_backing)6))
BAD(backing_path_empty, faultgen_attr_set_backing_path(a, ""))
BAD(backing_path_missing,
    faultgen_attr_set_backing_path(a, "/nonexistent/libfaultgen-check"))
BAD(backing_path_device, faultgen_attr_set_backing_path(a, "/dev/null"))
BAD(backing_neg, faultgen_attr_set_backing(a, (enum faultgen_backing)-1))
BAD(touch_5, faultgen_attr_set_touch(a, (enum faultgen_touch)5))
BAD(touch_neg, faultgen_attr_set_touch(a, (enum faultgen_touch)-1))
BAD(cachelines_0, faultgen_attr_set_cachelines(a, 0))
BAD(cachelines_over, faultgen_attr_set_cachelines(a, max_cachelines() + 1))
BAD(cachelines_uintmax, faultgen_attr_set_cachelines(a, UINT_MAX))
BAD(numa_2, faultgen_attr_set_numa(a, (enum faultgen_numa)2))
BAD(numa_neg, faultgen_attr_set_numa(a, (enum faultgen_numa)-1))
BAD(thp_3, faultgen_attr_set_thp(a, (enum faultgen_thp)3))
BAD(thp_neg, faultgen_attr_set_thp(a, (enum faultgen_thp)-1))
BAD(cpus_empty, faultgen_attr_set_cpus(a, ""))
BAD(cpus_blank, faultgen_attr_set_cpus(a, " "))
BAD(cpus_reversed, faultgen_attr_set_cpus(a, "1-0"))
BAD(cpus_trailing_comma, faultgen_attr_set_cpus(a, "0,"))
BAD(cpus_garbage, faultgen_attr_set_cpus(a, "abc"))
BAD(cpus_zero_stride, faultgen_attr_set_cpus(a, "0-3:0"))
BAD(cpus_open_range, faultgen_attr_set_cpus(a, "1-"))
BAD(cpus_negative, faultgen_attr_set_cpus(a, "-1"))
BAD(cpus_huge, faultgen_attr_set_cpus(a, "99999999"))
BAD(cpus_overflow, faultgen_attr_set_cpus(a, "99999999999999999999999"))
BAD(cpuset_empty, faultgen_attr_set_cpuset(a, ""))
BAD(cpuset_dotdot, faultgen_attr_set_cpuset(a, ".."))
BAD(cpuset_escape, faultgen_attr_set_cpuset(a, "a/../../etc"))
BAD(cpuset_parent, faultgen_attr_set_cpuset(a, "../x"))
BAD(rounds_zap_2, faultgen_attr_set_rounds(a, 1, (enum faultgen_zap)2))
BAD(rounds_zap_neg, faultgen_attr_set_rounds(a, 1, (enum faultgen_zap)-1))
BAD(duration_neg, faultgen_attr_set_duration(a, -1, FAULTGEN_ZAP_DONTNEED))
BAD(duration_tiny_neg,
    faultgen_attr_set_duration(a, -1e-9, FAULTGEN_ZAP_DONTNEED))
BAD(duration_nan, faultgen_attr_set_duration(a, NAN, FAULTGEN_ZAP_DONTNEED))
BAD(duration_inf,
    faultgen_attr_set_duration(a, INFINITY, FAULTGEN_ZAP_DONTNEED))
BAD(duration_neg_inf,
    faultgen_attr_set_duration(a, -INFINITY, FAULTGEN_ZAP_DONTNEED))
BAD(duration_over_day,
    faultgen_attr_set_duration(a, 86400.5, FAULTGEN_ZAP_DONTNEED))
BAD(duration_huge, faultgen_attr_set_duration(a, 1e300, FAULTGEN_ZAP_DONTNEED))
BAD(duration_zap_2, faultgen_attr_set_duration(a, 1, (enum faultgen_zap)2))
BAD(warmup_over, faultgen_attr_set_warmup(a, 1000001))
BAD(warmup_uintmax, faultgen_attr_set_warmup(a, UINT_MAX))
BAD(region_unaligned_addr,
    faultgen_attr_set_region(a, (char *)FAKE_REGION + 1, (size_t)fgc_pagesize()))
BAD(region_unaligned_len,
    faultgen_attr_set_region(a, FAKE_REGION, (size_t)fgc_pagesize() + 1))
BAD(region_no_len, faultgen_attr_set_region(a, FAKE_REGION, 0))
BAD(region_no_addr, faultgen_attr_set_region(a, NULL, (size_t)fgc_pagesize()))
BAD(protect_3, faultgen_attr_set_protect(a, (enum faultgen_protect)3))
BAD(protect_neg, faultgen_attr_set_protect(a, (enum faultgen_protect)-1))
BAD(collapse_2, faultgen_attr_set_collapse(a, (enum faultgen_collapse)2))
BAD(collapse_neg, faultgen_attr_set_collapse(a, (enum faultgen_collapse)-1))
BAD(timeout_0, faultgen_attr_set_timeout(a, 0))
BAD(timeout_neg_0, faultgen_attr_set_timeout(a, -0.0))
BAD(timeout_neg, faultgen_attr_set_timeout(a, -1))
BAD(timeout_nan, faultgen_attr_set_timeout(a, NAN))
BAD(timeout_inf, faultgen_attr_set_timeout(a, INFINITY))
BAD(timeout_over_day, faultgen_attr_set_timeout(a, 86401))
BAD(pretouch_5,
    faultgen_attr_set_pretouch_touch(a, (enum faultgen_pretouch_touch)5))
BAD(pretouch_neg,
    faultgen_attr_set_pretouch_touch(a, (enum faultgen_pretouch_touch)-1))
BAD(chunk_0, faultgen_attr_set_chunk_size(a, 0))
BAD(chunk_unaligned, faultgen_attr_set_chunk_size(a, 4097))
BAD(chunk_half_page,
    faultgen_attr_set_chunk_size(a, (uint64_t)fgc_pagesize() / 2))
BAD(chunk_over, faultgen_attr_set_chunk_size(a, (1ULL << 40) +
						     (uint64_t)fgc_pagesize()))
BAD(chunk_max, faultgen_attr_set_chunk_size(a, UINT64_MAX))
BAD(jvm_7, faultgen_attr_set_jvm(a, 7, FAULTGEN_GC_NONE))
BAD(jvm_0, faultgen_attr_set_jvm(a, 0, FAULTGEN_GC_G1))
BAD(jvm_100, faultgen_attr_set_jvm(a, 100, FAULTGEN_GC_NONE))
BAD(jvm_gc_3, faultgen_attr_set_jvm(a, 21, (enum faultgen_jvm_gc)3))
BAD(jvm_gc_neg, faultgen_attr_set_jvm(a, 21, (enum faultgen_jvm_gc)-1))

static int bad_cpus_possible(struct faultgen_attr *a)
{
	char buf[32];

	/* The first id the kernel can never use. */
	snprintf(buf, sizeof(buf), "%d", faultgen_possible_cpus());
	return faultgen_attr_set_cpus(a, buf);
}

static int bad_cpuset_long(struct faultgen_attr *a)
{
	char name[1100];

	memset(name, 'c', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	return faultgen_attr_set_cpuset(a, name);
}

#define E(name, err) { #name, bad_##name, err }

static const struct bad bads[] = {
	E(pattern_neg, -EINVAL),
	E(pattern_past_last, -EINVAL),
	E(pattern_big, -EINVAL),
	E(size_0, -EINVAL),
	E(size_half_space, -EINVAL),
	E(size_max, -EINVAL),
	E(workers_0, -EINVAL),
	E(workers_over, -EINVAL),
	E(workers_uintmax, -EINVAL),
	E(workers_kind_2, -EINVAL),
	E(workers_kind_neg, -EINVAL),
	E(backing_6, -EINVAL),
	E(backing_path_empty, -EINVAL),
	E(backing_path_missing, -ENOENT),
	E(backing_path_device, -EINVAL),
	E(backing_neg, -EINVAL),
	E(touch_5, -EINVAL),
	E(touch_neg, -EINVAL),
	E(cachelines_0, -EINVAL),
	E(cachelines_over, -EINVAL),
	E(cachelines_uintmax, -EINVAL),
	E(numa_2, -EINVAL),
	E(numa_neg, -EINVAL),
	E(thp_3, -EINVAL),
	E(thp_neg, -EINVAL),
	E(cpus_empty, -EINVAL),
	E(cpus_blank, -EINVAL),
	E(cpus_reversed, -EINVAL),
	E(cpus_trailing_comma, -EINVAL),
	E(cpus_garbage, -EINVAL),
	E(cpus_zero_stride, -EINVAL),
	E(cpus_open_range, -EINVAL),
	E(cpus_negative, -EINVAL),
	E(cpus_huge, -ERANGE),
	E(cpus_overflow, -ERANGE),
	E(cpus_possible, -ERANGE),
	E(cpuset_empty, -EINVAL),
	E(cpuset_dotdot, -EINVAL),
	E(cpuset_escape, -EINVAL),
	E(cpuset_parent, -EINVAL),
	E(cpuset_long, -EINVAL),
	E(rounds_zap_2, -EINVAL),
	E(rounds_zap_neg, -EINVAL),
	E(duration_neg, -EINVAL),
	E(duration_tiny_neg, -EINVAL),
	E(duration_nan, -EINVAL),
	E(duration_inf, -EINVAL),
	E(duration_neg_inf, -EINVAL),
	E(duration_over_day, -EINVAL),
	E(duration_huge, -EINVAL),
	E(duration_zap_2, -EINVAL),
	E(warmup_over, -EINVAL),
	E(warmup_uintmax, -EINVAL),
	E(region_unaligned_addr, -EINVAL),
	E(region_unaligned_len, -EINVAL),
	E(region_no_len, -EINVAL),
	E(region_no_addr, -EINVAL),
	E(protect_3, -EINVAL),
	E(protect_neg, -EINVAL),
	E(collapse_2, -EINVAL),
	E(collapse_neg, -EINVAL),
	E(timeout_0, -EINVAL),
	E(timeout_neg_0, -EINVAL),
	E(timeout_neg, -EINVAL),
	E(timeout_nan, -EINVAL),
	E(timeout_inf, -EINVAL),
	E(timeout_over_day, -EINVAL),
	E(pretouch_5, -EINVAL),
	E(pretouch_neg, -EINVAL),
	E(chunk_0, -EINVAL),
	E(chunk_unaligned, -EINVAL),
	E(chunk_half_page, -EINVAL),
	E(chunk_over, -EINVAL),
	E(chunk_max, -EINVAL),
	E(jvm_7, -EINVAL),
	E(jvm_0, -EINVAL),
	E(jvm_100, -EINVAL),
	E(jvm_gc_3, -EINVAL),
	E(jvm_gc_neg, -EINVAL),
};

#define NBADS ((int)(sizeof(bads) / sizeof(bads[0])))

static void assert_same_attr(const struct faultgen_attr *before,
			     const char *cpulist, const char *cpuset,
			     const struct faultgen_attr *now, const char *what)
{
	/* before is a byte copy of the attr, padding included. */
	ck_assert_msg(memcmp(before, now, sizeof(*now)) == 0, // NOLINT
		      "%s changed the attr", what);
	ck_assert_str_eq(now->cpulist, cpulist);
	ck_assert_str_eq(now->cpuset, cpuset);
}

START_TEST(rejects_bad_value_leaving_attr_unchanged)
{
	const struct bad *b = &bads[_i];
	struct faultgen_attr *a = busy_attr(), before;
	char cpulist[64], cpuset[64];
	int ret;

	memcpy(&before, a, sizeof(before));
	snprintf(cpulist, sizeof(cpulist), "%s", a->cpulist);
	snprintf(cpuset, sizeof(cpuset), "%s", a->cpuset);
	ret = b->apply(a);
	ck_assert_msg(ret == b->err, "%s returned %d, not %d", b->what, ret,
		      b->err);
	assert_same_attr(&before, cpulist, cpuset, a, b->what);
	/* The getters say the same. */
	ck_assert_int_eq(faultgen_attr_get_pattern(a), FAULTGEN_PER_THREAD_VMA);
	ck_assert_uint_eq(faultgen_attr_get_size(a), 3ULL << 20);
	ck_assert_uint_eq(faultgen_attr_get_workers(a), 3);
	ck_assert_uint_eq(faultgen_attr_get_cachelines(a), 2);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(rejects_null_attr_in_every_setter)
{
	int e = -EINVAL;

	ck_assert_int_eq(faultgen_attr_new(NULL), e);
	ck_assert_int_eq(faultgen_attr_set_pattern(NULL, 0), e);
	ck_assert_int_eq(faultgen_attr_set_size(NULL, 4096), e);
	ck_assert_int_eq(faultgen_attr_set_workers(NULL, 1, 0), e);
	ck_assert_int_eq(faultgen_attr_set_backing(NULL, 0), e);
	ck_assert_int_eq(faultgen_attr_set_backing_path(NULL, "/tmp"), e);
	ck_assert_int_eq(faultgen_attr_set_shm_lock(NULL, 1), e);
	ck_assert_int_eq(faultgen_attr_set_touch(NULL, 0), e);
	ck_assert_int_eq(faultgen_attr_set_cachelines(NULL, 1), e);
	ck_assert_int_eq(faultgen_attr_set_numa(NULL, 0), e);
	ck_assert_int_eq(faultgen_attr_set_thp(NULL, 0), e);
	ck_assert_int_eq(faultgen_attr_set_cpus(NULL, "0"), e);
	ck_assert_int_eq(faultgen_attr_set_cpuset(NULL, "x"), e);
	ck_assert_int_eq(faultgen_attr_set_pin(NULL, 1), e);
	ck_assert_int_eq(faultgen_attr_set_sched_fifo(NULL, 1), e);
	ck_assert_int_eq(faultgen_attr_set_oversubscribe(NULL, 1), e);
	ck_assert_int_eq(faultgen_attr_set_rounds(NULL, 1, 0), e);
	ck_assert_int_eq(faultgen_attr_set_duration(NULL, 1, 0), e);
	ck_assert_int_eq(faultgen_attr_set_warmup(NULL, 1), e);
	ck_assert_int_eq(faultgen_attr_set_region(NULL, NULL, 0), e);
	ck_assert_int_eq(faultgen_attr_set_protect(NULL, 0), e);
	ck_assert_int_eq(faultgen_attr_set_collapse(NULL, 0), e);
	ck_assert_int_eq(faultgen_attr_set_timeout(NULL, 1), e);
	ck_assert_int_eq(faultgen_attr_set_pretouch_touch(NULL, 0), e);
	ck_assert_int_eq(faultgen_attr_set_chunk_size(NULL, 4096), e);
	ck_assert_int_eq(faultgen_attr_set_jvm(NULL, 21, 0), e);
	ck_assert_int_eq(faultgen_attr_get_cpus(NULL, NULL, 0), e);
	ck_assert_uint_eq(faultgen_attr_get_size(NULL), 0);
	ck_assert_uint_eq(faultgen_attr_get_workers(NULL), 0);
	ck_assert_uint_eq(faultgen_attr_get_cachelines(NULL), 0);
	faultgen_attr_free(NULL);
}
END_TEST

/* Every default faultgen_attr_new(3) lists, through the getters. */
START_TEST(starts_with_library_defaults)
{
	struct faultgen_attr *a;
	enum faultgen_jvm_gc gc = FAULTGEN_GC_PARALLEL;
	unsigned int jdk = 0;
	void *addr = FAKE_REGION;
	size_t len = 1;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_get_pattern(a), FAULTGEN_SHARED_VMA);
	ck_assert_uint_eq(faultgen_attr_get_size(a), (uint64_t)fgc_pagesize());
	ck_assert_uint_eq(faultgen_attr_get_workers(a), 1);
	ck_assert_int_eq(faultgen_attr_get_worker_kind(a), FAULTGEN_THREADS);
	ck_assert_int_eq(faultgen_attr_get_backing(a), FAULTGEN_BACKING_ANON);
	ck_assert_int_eq(faultgen_attr_get_shm_lock(a), 0);
	ck_assert_int_eq(faultgen_attr_get_touch(a), FAULTGEN_TOUCH_WRITE);
	ck_assert_uint_eq(faultgen_attr_get_cachelines(a), 1);
	ck_assert_int_eq(faultgen_attr_get_numa(a), FAULTGEN_NUMA_DEFAULT);
	ck_assert_int_eq(faultgen_attr_get_thp(a), FAULTGEN_THP_DEFAULT);
	ck_assert_ptr_null(faultgen_attr_get_cpulist(a));
	ck_assert_ptr_null(faultgen_attr_get_cpuset(a));
	ck_assert_int_eq(faultgen_attr_get_pin(a), 0);
	ck_assert_int_eq(faultgen_attr_get_sched_fifo(a), 0);
	ck_assert_int_eq(faultgen_attr_get_oversubscribe(a), 0);
	ck_assert_int_eq(faultgen_attr_get_caller_worker(a), 0);
	ck_assert_uint_eq(faultgen_attr_get_rounds(a), 0);
	ck_assert(faultgen_attr_get_duration(a) == 0);
	ck_assert_int_eq(faultgen_attr_get_zap(a), FAULTGEN_ZAP_DONTNEED);
	ck_assert_uint_eq(faultgen_attr_get_warmup(a), 0);
	ck_assert_int_eq(faultgen_attr_get_region(a, &addr, &len), 0);
	ck_assert_ptr_null(addr);
	ck_assert_uint_eq(len, 0);
	ck_assert_int_eq(faultgen_attr_get_protect(a),
			 FAULTGEN_PROTECT_MPROTECT);
	ck_assert_int_eq(faultgen_attr_get_collapse(a),
			 FAULTGEN_COLLAPSE_MADVISE);
	ck_assert(faultgen_attr_get_timeout(a) == 60.0);
	ck_assert_int_eq(faultgen_attr_get_pretouch_touch(a),
			 FAULTGEN_PRETOUCH_ATOMIC_ADD);
	ck_assert_uint_eq(faultgen_attr_get_chunk_size(a), 4ULL << 20);
	ck_assert_int_eq(faultgen_attr_get_jvm(a, &jdk, &gc), 0);
	ck_assert_uint_eq(jdk, 21);
	ck_assert_int_eq(gc, FAULTGEN_GC_NONE);
	/* The default CPUs are the whole affinity mask. */
	ck_assert_int_eq(faultgen_attr_get_cpus(a, NULL, 0),
			 fgc_affinity_count());
	faultgen_attr_free(a);
}
END_TEST

START_TEST(accepts_boundary_values)
{
	struct faultgen_attr *a;
	unsigned int maxcl = max_cachelines();

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 1), 0);
	ck_assert_uint_eq(faultgen_attr_get_size(a), 1);
	ck_assert_int_eq(faultgen_attr_set_size(a, UINT64_MAX >> 17), 0);
	ck_assert_uint_eq(faultgen_attr_get_size(a), UINT64_MAX >> 17);
	ck_assert_int_eq(faultgen_attr_set_workers(a, FAULTGEN_MAX_WORKERS,
						   FAULTGEN_PROCESSES),
			 0);
	ck_assert_uint_eq(faultgen_attr_get_workers(a), FAULTGEN_MAX_WORKERS);
	ck_assert_int_eq(a->kind, FAULTGEN_PROCESSES);
	ck_assert_int_eq(faultgen_attr_set_cachelines(a, maxcl), 0);
	ck_assert_uint_eq(faultgen_attr_get_cachelines(a), maxcl);
	ck_assert_int_eq(faultgen_attr_set_cachelines(a, 1), 0);
	ck_assert_uint_eq(faultgen_attr_get_cachelines(a), 1);
	for (int p = FAULTGEN_SHARED_VMA; p <= FAULTGEN_PRETOUCH; p++) {
		ck_assert_int_eq(faultgen_attr_set_pattern(a, p), 0);
		ck_assert_int_eq(faultgen_attr_get_pattern(a), p);
	}
	for (int t = FAULTGEN_TOUCH_WRITE; t <= FAULTGEN_TOUCH_POPULATE; t++) {
		ck_assert_int_eq(faultgen_attr_set_touch(a, t), 0);
		ck_assert_int_eq(a->touch, t);
	}
	ck_assert_int_eq(faultgen_attr_set_backing(a, FAULTGEN_BACKING_SYSV),
			 0);
	ck_assert_int_eq(faultgen_attr_set_duration(a, 0,
						    FAULTGEN_ZAP_DONTNEED),
			 0);
	ck_assert_int_eq(faultgen_attr_set_duration(a, 86400,
						    FAULTGEN_ZAP_MUNMAP),
			 0);
	ck_assert(a->duration == 86400 && a->zap == FAULTGEN_ZAP_MUNMAP);
	/* Rounds and duration replace each other. */
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 7, FAULTGEN_ZAP_DONTNEED),
			 0);
	ck_assert(a->rounds == 7 && a->duration == 0);
	ck_assert_int_eq(faultgen_attr_set_duration(a, 0.5,
						    FAULTGEN_ZAP_DONTNEED),
			 0);
	ck_assert(a->rounds == 0 && a->duration == 0.5);
	ck_assert_int_eq(faultgen_attr_set_warmup(a, 1000000), 0);
	ck_assert_int_eq(faultgen_attr_set_timeout(a, 86400), 0);
	ck_assert_int_eq(faultgen_attr_set_timeout(a, 1e-3), 0);
	ck_assert_int_eq(faultgen_attr_set_chunk_size(a, 1ULL << 40), 0);
	ck_assert_int_eq(faultgen_attr_set_chunk_size(
				 a, (uint64_t)fgc_pagesize()),
			 0);
	ck_assert_int_eq(faultgen_attr_set_jvm(a, 8, FAULTGEN_GC_PARALLEL), 0);
	ck_assert_int_eq(faultgen_attr_set_jvm(a, 99, FAULTGEN_GC_NONE), 0);
	ck_assert_int_eq(faultgen_attr_set_cpus(a, "0"), 0);
	ck_assert_str_eq(a->cpulist, "0");
	ck_assert_int_eq(faultgen_attr_set_cpus(a, NULL), 0);
	ck_assert_ptr_null(a->cpulist);
	ck_assert_int_eq(faultgen_attr_set_cpuset(a, "/a/b"), 0);
	ck_assert_str_eq(a->cpuset, "/a/b");
	ck_assert_int_eq(faultgen_attr_set_cpuset(a, NULL), 0);
	ck_assert_ptr_null(a->cpuset);
	ck_assert_int_eq(faultgen_attr_set_region(a, FAKE_REGION,
						  (size_t)fgc_pagesize()),
			 0);
	ck_assert_ptr_eq(a->region, FAKE_REGION);
	ck_assert_int_eq(faultgen_attr_set_region(a, NULL, 0), 0);
	ck_assert_ptr_null(a->region);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(copies_strings_it_keeps)
{
	struct faultgen_attr *a;
	char list[] = "0";

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_cpus(a, list), 0);
	list[0] = 'x';
	ck_assert_str_eq(a->cpulist, "0");
	faultgen_attr_free(a);
}
END_TEST

/* ---- getters ---------------------------------------------------------- */

/* Each value away from its default, so that a getter returning the
 * default cannot pass. */
START_TEST(getters_return_what_setters_stored)
{
	size_t ps = (size_t)fgc_pagesize();
	struct faultgen_attr *a;
	char list[] = "0", name[] = "/bench/ccd0";
	enum faultgen_jvm_gc gc;
	unsigned int jdk;
	void *addr;
	size_t len;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, 3, FAULTGEN_PROCESSES),
			 0);
	ck_assert_uint_eq(faultgen_attr_get_workers(a), 3);
	ck_assert_int_eq(faultgen_attr_get_worker_kind(a), FAULTGEN_PROCESSES);
	ck_assert_int_eq(faultgen_attr_set_backing(a, FAULTGEN_BACKING_SYSV),
			 0);
	ck_assert_int_eq(faultgen_attr_get_backing(a), FAULTGEN_BACKING_SYSV);
	/* Any non-zero value is "on", read back as 1. */
	ck_assert_int_eq(faultgen_attr_set_shm_lock(a, 7), 0);
	ck_assert_int_eq(faultgen_attr_get_shm_lock(a), 1);
	ck_assert_int_eq(faultgen_attr_set_touch(a, FAULTGEN_TOUCH_MEMSET), 0);
	ck_assert_int_eq(faultgen_attr_get_touch(a), FAULTGEN_TOUCH_MEMSET);
	ck_assert_int_eq(faultgen_attr_set_numa(a, FAULTGEN_NUMA_LOCAL), 0);
	ck_assert_int_eq(faultgen_attr_get_numa(a), FAULTGEN_NUMA_LOCAL);
	ck_assert_int_eq(faultgen_attr_set_thp(a, FAULTGEN_THP_NOHUGEPAGE), 0);
	ck_assert_int_eq(faultgen_attr_get_thp(a), FAULTGEN_THP_NOHUGEPAGE);
	/* The strings are the attr's copies, as given. */
	ck_assert_int_eq(faultgen_attr_set_cpus(a, list), 0);
	ck_assert_int_eq(faultgen_attr_set_cpuset(a, name), 0);
	list[0] = 'x';
	name[1] = 'x';
	ck_assert_str_eq(faultgen_attr_get_cpulist(a), "0");
	ck_assert_str_eq(faultgen_attr_get_cpuset(a), "/bench/ccd0");
	ck_assert_int_eq(faultgen_attr_set_pin(a, -1), 0);
	ck_assert_int_eq(faultgen_attr_set_sched_fifo(a, 2), 0);
	ck_assert_int_eq(faultgen_attr_set_oversubscribe(a, 1), 0);
	ck_assert_int_eq(faultgen_attr_set_caller_worker(a, 1), 0);
	ck_assert_int_eq(faultgen_attr_get_pin(a), 1);
	ck_assert_int_eq(faultgen_attr_get_sched_fifo(a), 1);
	ck_assert_int_eq(faultgen_attr_get_oversubscribe(a), 1);
	ck_assert_int_eq(faultgen_attr_get_caller_worker(a), 1);
	ck_assert_int_eq(faultgen_attr_set_caller_worker(a, 0), 0);
	ck_assert_int_eq(faultgen_attr_get_caller_worker(a), 0);
	/* Rounds and duration replace each other; the zap follows both. */
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 7, FAULTGEN_ZAP_MUNMAP),
			 0);
	ck_assert_uint_eq(faultgen_attr_get_rounds(a), 7);
	ck_assert(faultgen_attr_get_duration(a) == 0);
	ck_assert_int_eq(faultgen_attr_get_zap(a), FAULTGEN_ZAP_MUNMAP);
	ck_assert_int_eq(faultgen_attr_set_duration(a, 2.5,
						    FAULTGEN_ZAP_DONTNEED),
			 0);
	ck_assert_uint_eq(faultgen_attr_get_rounds(a), 0);
	ck_assert(faultgen_attr_get_duration(a) == 2.5);
	ck_assert_int_eq(faultgen_attr_get_zap(a), FAULTGEN_ZAP_DONTNEED);
	ck_assert_int_eq(faultgen_attr_set_warmup(a, 9), 0);
	ck_assert_uint_eq(faultgen_attr_get_warmup(a), 9);
	ck_assert_int_eq(faultgen_attr_set_region(a, FAKE_REGION, 3 * ps), 0);
	ck_assert_int_eq(faultgen_attr_get_region(a, &addr, &len), 0);
	ck_assert_ptr_eq(addr, FAKE_REGION);
	ck_assert_uint_eq(len, 3 * ps);
	ck_assert_int_eq(faultgen_attr_set_protect(a, FAULTGEN_PROTECT_FORK),
			 0);
	ck_assert_int_eq(faultgen_attr_get_protect(a), FAULTGEN_PROTECT_FORK);
	ck_assert_int_eq(faultgen_attr_set_collapse(
				 a, FAULTGEN_COLLAPSE_KHUGEPAGED),
			 0);
	ck_assert_int_eq(faultgen_attr_get_collapse(a),
			 FAULTGEN_COLLAPSE_KHUGEPAGED);
	ck_assert_int_eq(faultgen_attr_set_timeout(a, 12.5), 0);
	ck_assert(faultgen_attr_get_timeout(a) == 12.5);
	ck_assert_int_eq(faultgen_attr_set_pretouch_touch(
				 a, FAULTGEN_PRETOUCH_FAST_HUGE),
			 0);
	ck_assert_int_eq(faultgen_attr_get_pretouch_touch(a),
			 FAULTGEN_PRETOUCH_FAST_HUGE);
	ck_assert_int_eq(faultgen_attr_set_chunk_size(a, 8 * (uint64_t)ps), 0);
	ck_assert_uint_eq(faultgen_attr_get_chunk_size(a), 8 * (uint64_t)ps);
	ck_assert_int_eq(faultgen_attr_set_jvm(a, 17, FAULTGEN_GC_G1), 0);
	ck_assert_int_eq(faultgen_attr_get_jvm(a, &jdk, &gc), 0);
	ck_assert_uint_eq(jdk, 17);
	ck_assert_int_eq(gc, FAULTGEN_GC_G1);
	/* Cleared strings and region read back as none. */
	ck_assert_int_eq(faultgen_attr_set_cpus(a, NULL), 0);
	ck_assert_int_eq(faultgen_attr_set_cpuset(a, NULL), 0);
	ck_assert_int_eq(faultgen_attr_set_region(a, NULL, 0), 0);
	ck_assert_ptr_null(faultgen_attr_get_cpulist(a));
	ck_assert_ptr_null(faultgen_attr_get_cpuset(a));
	ck_assert_int_eq(faultgen_attr_get_region(a, &addr, &len), 0);
	ck_assert_ptr_null(addr);
	ck_assert_uint_eq(len, 0);
	faultgen_attr_free(a);
}
END_TEST

/* A NULL attr reads as 0 (NULL for the strings); the two getters with
 * output pointers refuse it and leave the outputs alone. */
START_TEST(getters_read_null_attr_as_zero)
{
	enum faultgen_jvm_gc gc = FAULTGEN_GC_PARALLEL;
	struct faultgen_attr *a;
	unsigned int jdk = 5;
	void *addr = FAKE_REGION;
	size_t len = 5;

	ck_assert_int_eq(faultgen_attr_get_pattern(NULL), 0);
	ck_assert_uint_eq(faultgen_attr_get_size(NULL), 0);
	ck_assert_uint_eq(faultgen_attr_get_workers(NULL), 0);
	ck_assert_int_eq(faultgen_attr_get_worker_kind(NULL), 0);
	ck_assert_int_eq(faultgen_attr_get_backing(NULL), 0);
	ck_assert_ptr_null(faultgen_attr_get_backing_path(NULL));
	ck_assert_int_eq(faultgen_attr_get_shm_lock(NULL), 0);
	ck_assert_int_eq(faultgen_attr_get_touch(NULL), 0);
	ck_assert_uint_eq(faultgen_attr_get_cachelines(NULL), 0);
	ck_assert_int_eq(faultgen_attr_get_numa(NULL), 0);
	ck_assert_int_eq(faultgen_attr_get_thp(NULL), 0);
	ck_assert_ptr_null(faultgen_attr_get_cpulist(NULL));
	ck_assert_ptr_null(faultgen_attr_get_cpuset(NULL));
	ck_assert_int_eq(faultgen_attr_get_pin(NULL), 0);
	ck_assert_int_eq(faultgen_attr_get_sched_fifo(NULL), 0);
	ck_assert_int_eq(faultgen_attr_get_oversubscribe(NULL), 0);
	ck_assert_int_eq(faultgen_attr_get_caller_worker(NULL), 0);
	ck_assert_uint_eq(faultgen_attr_get_rounds(NULL), 0);
	ck_assert(faultgen_attr_get_duration(NULL) == 0);
	ck_assert_int_eq(faultgen_attr_get_zap(NULL), 0);
	ck_assert_uint_eq(faultgen_attr_get_warmup(NULL), 0);
	ck_assert_int_eq(faultgen_attr_get_protect(NULL), 0);
	ck_assert_int_eq(faultgen_attr_get_collapse(NULL), 0);
	ck_assert(faultgen_attr_get_timeout(NULL) == 0);
	/* 0, which is not this setting's default. */
	ck_assert_int_eq(faultgen_attr_get_pretouch_touch(NULL),
			 FAULTGEN_PRETOUCH_STORE);
	ck_assert_uint_eq(faultgen_attr_get_chunk_size(NULL), 0);
	ck_assert_int_eq(faultgen_attr_get_region(NULL, &addr, &len), -EINVAL);
	ck_assert_int_eq(faultgen_attr_get_jvm(NULL, &jdk, &gc), -EINVAL);
	ck_assert_ptr_eq(addr, FAKE_REGION);
	ck_assert_uint_eq(len, 5);
	ck_assert_uint_eq(jdk, 5);
	ck_assert_int_eq(gc, FAULTGEN_GC_PARALLEL);
	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_get_region(a, NULL, &len), -EINVAL);
	ck_assert_int_eq(faultgen_attr_get_region(a, &addr, NULL), -EINVAL);
	ck_assert_int_eq(faultgen_attr_get_jvm(a, NULL, &gc), -EINVAL);
	ck_assert_int_eq(faultgen_attr_get_jvm(a, &jdk, NULL), -EINVAL);
	ck_assert_uint_eq(len, 5);
	ck_assert_uint_eq(jdk, 5);
	faultgen_attr_free(a);
}
END_TEST

/* ---- behaviour after a failed setter -------------------------------- */

static struct faultgen_run *run_ok(const struct faultgen_attr *a)
{
	struct faultgen_run *run;
	int ret = faultgen_run_new(a, &run);

	ck_assert_msg(ret == 0, "run failed: %s", faultgen_strerror(ret));
	return run;
}

static void get_result(const struct faultgen_run *run,
		       struct faultgen_result *res)
{
	memset(res, 0, sizeof(*res));
	res->size = sizeof(*res);
	ck_assert_int_eq(faultgen_run_result(run, res), 0);
}

static void get_worker(const struct faultgen_run *run, unsigned int i,
		       struct faultgen_worker_result *w)
{
	memset(w, 0, sizeof(*w));
	w->size = sizeof(*w);
	ck_assert_int_eq(faultgen_run_worker(run, i, w), 0);
}

START_TEST(run_keeps_size_after_bad_size)
{
	struct faultgen_attr *a;
	struct faultgen_run *run;
	struct faultgen_result res;
	uint64_t ps = (uint64_t)fgc_pagesize();

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 5 * ps), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 0), -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_size(a, UINT64_MAX), -EINVAL);
	run = run_ok(a);
	get_result(run, &res);
	ck_assert_uint_eq(res.pages, 5);
	ck_assert_uint_eq(res.bytes, 5 * ps);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(run_keeps_pattern_after_bad_pattern)
{
	struct faultgen_attr *a;
	struct faultgen_run *run;
	struct faultgen_worker_result w0, w1;
	size_t ps = (size_t)fgc_pagesize();

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, FAULTGEN_PER_THREAD_VMA),
			 0);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, 9), -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_size(a, 8 * ps), 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, 2, FAULTGEN_THREADS), 0);
	fgc_allow_workers(a, 2);
	run = run_ok(a);
	get_worker(run, 0, &w0);
	get_worker(run, 1, &w1);
	/* Per-thread mappings keep a guard page between neighbours; slices
	 * of a shared VMA would be adjacent. */
	ck_assert_uint_eq(w0.len, 4 * ps);
	ck_assert_ptr_eq((char *)w1.addr, (char *)w0.addr + w0.len + ps);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(run_keeps_workers_after_bad_workers)
{
	struct faultgen_attr *a;
	struct faultgen_run *run;
	struct faultgen_result res;
	struct faultgen_worker_result w;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 6 * (uint64_t)fgc_pagesize()),
			 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, 3, FAULTGEN_PROCESSES),
			 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, 0, FAULTGEN_THREADS),
			 -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_workers(a, 2, 7), -EINVAL);
	fgc_allow_workers(a, 3);
	run = run_ok(a);
	get_result(run, &res);
	ck_assert_uint_eq(res.workers, 3);
	for (unsigned int i = 0; i < 3; i++) {
		get_worker(run, i, &w);
		ck_assert_int_ne(w.pid, getpid());
	}
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* The path of the maps line holding addr ("" for anonymous memory). */
static void region_path(void *addr, char *buf, size_t len)
{
	struct fgc_vma *v;
	int n = fgc_maps_read(&v), first;

	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(fgc_vmas_over(v, n, addr, 1, &first), 1);
	snprintf(buf, len, "%s", v[first].path);
	free(v);
}

START_TEST(run_keeps_backing_after_bad_backing)
{
	struct faultgen_attr *a;
	struct faultgen_run *run;
	char path[1024];
	void *addr;
	size_t len;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_backing(a, FAULTGEN_BACKING_SYSV),
			 0);
	ck_assert_int_eq(faultgen_attr_set_backing(a, 6), -EINVAL);
	run = run_ok(a);
	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	region_path(addr, path, sizeof(path));
	ck_assert_msg(strstr(path, "SYSV"), "region is \"%s\"", path);
	faultgen_run_free(run);

	ck_assert_int_eq(faultgen_attr_set_backing(a, FAULTGEN_BACKING_DEVZERO),
			 0);
	ck_assert_int_eq(faultgen_attr_set_backing(a, -1), -EINVAL);
	run = run_ok(a);
	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	region_path(addr, path, sizeof(path));
	ck_assert_str_eq(path, "/dev/zero");
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* Byte off of every page of the region after a run of a. */
static void assert_page_bytes(const struct faultgen_attr *a, size_t off,
			      int want)
{
	struct faultgen_run *run = run_ok(a);
	size_t ps = (size_t)fgc_pagesize(), len;
	void *addr;

	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	for (size_t pg = 0; pg < len / ps; pg++)
		ck_assert_msg(((volatile char *)addr)[pg * ps + off] == want,
			      "page %zu byte %zu is not %d", pg, off, want);
	faultgen_run_free(run);
}

START_TEST(run_keeps_touch_after_bad_touch)
{
	struct faultgen_attr *a;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 16 * (uint64_t)fgc_pagesize()),
			 0);
	ck_assert_int_eq(faultgen_attr_set_touch(a, FAULTGEN_TOUCH_READ), 0);
	ck_assert_int_eq(faultgen_attr_set_touch(a, FAULTGEN_TOUCH_WRITE), 0);
	ck_assert_int_eq(faultgen_attr_set_touch(a, 5), -EINVAL);
	/* The write touch stores 1 in the first cacheline of each page. */
	assert_page_bytes(a, 0, 1);
	ck_assert_int_eq(faultgen_attr_set_touch(a, FAULTGEN_TOUCH_READ), 0);
	ck_assert_int_eq(faultgen_attr_set_touch(a, -1), -EINVAL);
	assert_page_bytes(a, 0, 0);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(run_keeps_cachelines_after_bad_cachelines)
{
	struct faultgen_attr *a;
	unsigned int cl = cacheline();

	if (max_cachelines() < 4)
		FGC_SKIP("fewer than 4 cachelines in a page");
	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 8 * (uint64_t)fgc_pagesize()),
			 0);
	ck_assert_int_eq(faultgen_attr_set_cachelines(a, 3), 0);
	ck_assert_int_eq(faultgen_attr_set_cachelines(a, 0), -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_cachelines(a, max_cachelines() + 1),
			 -EINVAL);
	assert_page_bytes(a, 0, 1);
	assert_page_bytes(a, 2 * cl, 1);
	assert_page_bytes(a, 3 * cl, 0);
	faultgen_attr_free(a);
}
END_TEST

/* The numa_maps line of the VMA holding addr. */
static void numa_policy(void *addr, char *buf, size_t len)
{
	struct fgc_vma *v;
	int n = fgc_maps_read(&v), first;
	char line[1024], want[32];
	FILE *f;

	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(fgc_vmas_over(v, n, addr, 1, &first), 1);
	snprintf(want, sizeof(want), "%lx ", v[first].start);
	free(v);
	buf[0] = '\0';
	f = fopen("/proc/self/numa_maps", "re");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, want, strlen(want)) == 0)
			snprintf(buf, len, "%s", line + strlen(want));
	fclose(f);
}

START_TEST(run_keeps_numa_after_bad_numa)
{
	struct faultgen_attr *a;
	struct faultgen_run *run;
	char policy[1024];
	void *addr;
	size_t len;

	if (access("/proc/self/numa_maps", R_OK))
		FGC_SKIP("no /proc/self/numa_maps (kernel without NUMA)");
	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_numa(a, FAULTGEN_NUMA_LOCAL), 0);
	ck_assert_int_eq(faultgen_attr_set_numa(a, 2), -EINVAL);
	run = run_ok(a);
	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	numa_policy(addr, policy, sizeof(policy));
	ck_assert_msg(strncmp(policy, "local", 5) == 0, "policy \"%s\"",
		      policy);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(run_keeps_thp_after_bad_thp)
{
	struct faultgen_attr *a;
	struct faultgen_run *run;
	char flags[512];
	void *addr;
	size_t len;

	if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK))
		FGC_SKIP("kernel without THP");
	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_thp(a, FAULTGEN_THP_HUGEPAGE), 0);
	ck_assert_int_eq(faultgen_attr_set_thp(a, 3), -EINVAL);
	run = run_ok(a);
	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	ck_assert_int_eq(fgc_vmflags(addr, flags, sizeof(flags)), 0);
	ck_assert_msg(fgc_vmflag_has(flags, "hg"), "VmFlags:%s", flags);
	faultgen_run_free(run);

	ck_assert_int_eq(faultgen_attr_set_thp(a, FAULTGEN_THP_NOHUGEPAGE), 0);
	ck_assert_int_eq(faultgen_attr_set_thp(a, -1), -EINVAL);
	run = run_ok(a);
	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	ck_assert_int_eq(fgc_vmflags(addr, flags, sizeof(flags)), 0);
	ck_assert_msg(fgc_vmflag_has(flags, "nh"), "VmFlags:%s", flags);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* The lowest CPU of the affinity mask, as a list of one. */
static int first_cpu(char *buf, size_t len)
{
	for (int c = 0; c < 8192; c++) {
		if (fgc_affinity_has(c)) {
			snprintf(buf, len, "%d", c);
			return c;
		}
	}
	return -1;
}

START_TEST(cpus_unchanged_after_bad_cpus)
{
	struct faultgen_attr *a;
	unsigned long mask[8192 / (8 * sizeof(unsigned long))];
	char list[16];
	int cpu = first_cpu(list, sizeof(list));

	ck_assert_int_ge(cpu, 0);
	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_cpus(a, list), 0);
	ck_assert_int_eq(faultgen_attr_set_cpus(a, "1-0"), -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_cpus(a, "99999999"), -ERANGE);
	ck_assert_int_eq(faultgen_attr_get_cpus(a, mask, 8192), 1);
	for (int c = 0; c < 8192; c++)
		ck_assert_int_eq(!!(mask[c / (8 * sizeof(long))] &
				    (1UL << (c % (8 * sizeof(long))))),
				 c == cpu);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(cpuset_unchanged_after_bad_cpuset)
{
	struct faultgen_attr *a;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_cpuset(a, "fg-check-no-such-set"),
			 0);
	ck_assert_int_eq(faultgen_attr_set_cpuset(a, ""), -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_cpuset(a, "../x"), -EINVAL);
	/* Still named: the unknown cpuset is what the CPUs come from. */
	ck_assert_int_eq(faultgen_attr_get_cpus(a, NULL, 0), -ENOENT);
	ck_assert_int_eq(faultgen_attr_set_cpuset(a, NULL), 0);
	ck_assert_int_eq(faultgen_attr_get_cpus(a, NULL, 0),
			 fgc_affinity_count());
	faultgen_attr_free(a);
}
END_TEST

START_TEST(run_keeps_rounds_after_bad_repeat)
{
	struct faultgen_attr *a;
	struct faultgen_run *run;
	struct faultgen_result res;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 8 * (uint64_t)fgc_pagesize()),
			 0);
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 3, FAULTGEN_ZAP_DONTNEED),
			 0);
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 5, 7), -EINVAL);
	/* A failed set_duration must not clear the rounds either. */
	ck_assert_int_eq(faultgen_attr_set_duration(a, NAN,
						    FAULTGEN_ZAP_DONTNEED),
			 -EINVAL);
	run = run_ok(a);
	get_result(run, &res);
	ck_assert_uint_eq(res.rounds, 3);
	ck_assert_uint_eq(res.pages, 3 * 8);
	ck_assert_uint_eq(res.pages_per_round, 8);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(run_keeps_zap_after_bad_duration)
{
	struct faultgen_attr *a;
	struct faultgen_run *run;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 2, FAULTGEN_ZAP_MUNMAP),
			 0);
	ck_assert_int_eq(faultgen_attr_set_duration(a, -1,
						    FAULTGEN_ZAP_DONTNEED),
			 -EINVAL);
	/* munmap zapping is still asked for, so a shared VMA refuses. */
	ck_assert_int_eq(faultgen_run_new(a, &run), -EINVAL);
	ck_assert_ptr_null(run);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(run_keeps_warmup_after_bad_warmup)
{
	struct faultgen_attr *a;
	struct faultgen_run *run;
	struct faultgen_result res;
	struct rusage before, after;
	uint64_t pages = 512, total;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, pages *
						       (uint64_t)fgc_pagesize()),
			 0);
	ck_assert_int_eq(faultgen_attr_set_thp(a, FAULTGEN_THP_NOHUGEPAGE), 0);
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 1, FAULTGEN_ZAP_DONTNEED),
			 0);
	ck_assert_int_eq(faultgen_attr_set_warmup(a, 2), 0);
	ck_assert_int_eq(faultgen_attr_set_warmup(a, 1000001), -EINVAL);
	getrusage(RUSAGE_SELF, &before);
	run = run_ok(a);
	getrusage(RUSAGE_SELF, &after);
	get_result(run, &res);
	/* The measured round alone, and the process counted two more. */
	ck_assert(fgc_close(pages, res.minflt, 1));
	total = (uint64_t)(after.ru_minflt - before.ru_minflt);
	ck_assert_msg(total >= 3 * pages - pages / 100,
		      "%llu faults in all, 2 warm-up rounds need %llu",
		      (unsigned long long)total,
		      (unsigned long long)(3 * pages));
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(run_keeps_region_after_bad_region)
{
	struct faultgen_attr *a;
	struct faultgen_run *run;
	size_t ps = (size_t)fgc_pagesize(), len;
	char *buf;
	void *addr;

	buf = mmap(NULL, 4 * ps, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(buf, MAP_FAILED);
	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_region(a, buf, 4 * ps), 0);
	ck_assert_int_eq(faultgen_attr_set_region(a, buf + 1, ps), -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_region(a, buf, 0), -EINVAL);
	run = run_ok(a);
	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	ck_assert_ptr_eq(addr, buf);
	ck_assert_uint_eq(len, 4 * ps);
	/* The caller's memory was written, and stays the caller's. */
	ck_assert_int_eq(buf[3 * ps], 1);
	faultgen_run_free(run);
	ck_assert_int_eq(buf[3 * ps], 1);
	faultgen_attr_free(a);
	munmap(buf, 4 * ps);
}
END_TEST

START_TEST(refuses_shm_lock_without_sysv_at_run)
{
	struct faultgen_attr *a;
	struct faultgen_run *run;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_shm_lock(a, 1), 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), -EINVAL);
	ck_assert_ptr_null(run);
	ck_assert_int_eq(faultgen_attr_set_shm_lock(a, 0), 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(run_copies_attr)
{
	struct faultgen_attr *a;
	struct faultgen_run *run;
	struct faultgen_result res;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 3 * (uint64_t)fgc_pagesize()),
			 0);
	ck_assert_int_eq(faultgen_run_create(a, &run), 0);
	/* Changed or freed after create: the run keeps its own copy. */
	ck_assert_int_eq(faultgen_attr_set_size(a, 9 * (uint64_t)fgc_pagesize()),
			 0);
	ck_assert_int_eq(faultgen_attr_set_cpus(a, "0"), 0);
	faultgen_attr_free(a);
	ck_assert_int_eq(faultgen_run_exec(run), 0);
	get_result(run, &res);
	ck_assert_uint_eq(res.pages, 3);
	faultgen_run_free(run);
}
END_TEST

/* ---- faultgen_attr_check: the documented rules ------------------------- */

/* A region of 16 pages of this process, for the rules about regions. */
static void *region16(void)
{
	static void *p;

	if (!p) {
		p = mmap(NULL, 16 * (size_t)fgc_pagesize(),
			 PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
		ck_assert_ptr_ne(p, MAP_FAILED);
	}
	return p;
}

static void set_region16(struct faultgen_attr *a)
{
	ck_assert_int_eq(faultgen_attr_set_region(a, region16(),
						  16 * (size_t)fgc_pagesize()),
			 0);
}

/*
 * One case per rule of faultgen_attr_check(3), and per pattern a rule
 * names: the settings made from the defaults, and the (setting, with)
 * pair the page gives for that rule.
 */
struct rule_case {
	const char *what;
	void (*make)(struct faultgen_attr *a);
	enum faultgen_setting setting, with;
};

#define CASE(name, body)                                                      \
	static void make_##name(struct faultgen_attr *a)                      \
	{                                                                     \
		body;                                                         \
	}
#define OK(call) ck_assert_int_eq(call, 0)

CASE(shm_lock_anon, OK(faultgen_attr_set_shm_lock(a, 1)))
CASE(shm_lock_devzero,
     OK(faultgen_attr_set_shm_lock(a, 1));
     OK(faultgen_attr_set_backing(a, FAULTGEN_BACKING_DEVZERO)))
CASE(mlock_rounds,
     OK(faultgen_attr_set_touch(a, FAULTGEN_TOUCH_MLOCK));
     OK(faultgen_attr_set_rounds(a, 3, FAULTGEN_ZAP_DONTNEED)))
CASE(mlock_duration,
     OK(faultgen_attr_set_touch(a, FAULTGEN_TOUCH_MLOCK));
     OK(faultgen_attr_set_duration(a, 1, FAULTGEN_ZAP_DONTNEED)))
CASE(munmap_shared_rounds,
     OK(faultgen_attr_set_rounds(a, 3, FAULTGEN_ZAP_MUNMAP)))
CASE(munmap_shared_duration,
     OK(faultgen_attr_set_duration(a, 1, FAULTGEN_ZAP_MUNMAP)))
CASE(munmap_per_thread_sysv,
     OK(faultgen_attr_set_pattern(a, FAULTGEN_PER_THREAD_VMA));
     OK(faultgen_attr_set_backing(a, FAULTGEN_BACKING_SYSV));
     OK(faultgen_attr_set_rounds(a, 3, FAULTGEN_ZAP_MUNMAP)))
CASE(region_devzero, set_region16(a);
     OK(faultgen_attr_set_backing(a, FAULTGEN_BACKING_DEVZERO)))
CASE(region_sysv, set_region16(a);
     OK(faultgen_attr_set_backing(a, FAULTGEN_BACKING_SYSV)))
CASE(region_processes, set_region16(a);
     OK(faultgen_attr_set_workers(a, 2, FAULTGEN_PROCESSES)))
CASE(region_too_few_pages, set_region16(a);
     OK(faultgen_attr_set_workers(a, 17, FAULTGEN_THREADS)))
CASE(region_per_thread, set_region16(a);
     OK(faultgen_attr_set_pattern(a, FAULTGEN_PER_THREAD_VMA)))
CASE(region_collapse, set_region16(a);
     OK(faultgen_attr_set_pattern(a, FAULTGEN_RO_COLLAPSE)))
CASE(region_pretouch_g1, set_region16(a);
     OK(faultgen_attr_set_pattern(a, FAULTGEN_PRETOUCH));
     OK(faultgen_attr_set_jvm(a, 21, FAULTGEN_GC_G1)))
CASE(region_pretouch_parallel, set_region16(a);
     OK(faultgen_attr_set_pattern(a, FAULTGEN_PRETOUCH));
     OK(faultgen_attr_set_jvm(a, 17, FAULTGEN_GC_PARALLEL)))
CASE(processes_collapse,
     OK(faultgen_attr_set_pattern(a, FAULTGEN_RO_COLLAPSE));
     OK(faultgen_attr_set_workers(a, 1, FAULTGEN_PROCESSES)))
CASE(processes_pretouch,
     OK(faultgen_attr_set_pattern(a, FAULTGEN_PRETOUCH));
     OK(faultgen_attr_set_workers(a, 2, FAULTGEN_PROCESSES)))
CASE(rounds_collapse,
     OK(faultgen_attr_set_pattern(a, FAULTGEN_RO_COLLAPSE));
     OK(faultgen_attr_set_rounds(a, 2, FAULTGEN_ZAP_DONTNEED)))
CASE(duration_pretouch,
     OK(faultgen_attr_set_pattern(a, FAULTGEN_PRETOUCH));
     OK(faultgen_attr_set_duration(a, 1, FAULTGEN_ZAP_DONTNEED)))
CASE(sysv_collapse,
     OK(faultgen_attr_set_pattern(a, FAULTGEN_RO_COLLAPSE));
     OK(faultgen_attr_set_backing(a, FAULTGEN_BACKING_SYSV)))
CASE(devzero_pretouch,
     OK(faultgen_attr_set_pattern(a, FAULTGEN_PRETOUCH));
     OK(faultgen_attr_set_backing(a, FAULTGEN_BACKING_DEVZERO)))
CASE(latency_khugepaged,
     OK(faultgen_attr_set_pattern(a, FAULTGEN_RO_COLLAPSE));
     OK(faultgen_attr_set_collapse(a, FAULTGEN_COLLAPSE_KHUGEPAGED));
     OK(faultgen_attr_set_latency(a, 1)))

#define S(x) FAULTGEN_SETTING_##x
#define R(name, setting, with) { #name, make_##name, S(setting), S(with) }

static const struct rule_case rules[] = {
	R(shm_lock_anon, SHM_LOCK, BACKING),
	R(shm_lock_devzero, SHM_LOCK, BACKING),
	R(mlock_rounds, TOUCH, REPEAT),
	R(mlock_duration, TOUCH, REPEAT),
	R(munmap_shared_rounds, ZAP, PATTERN),
	R(munmap_shared_duration, ZAP, PATTERN),
	R(munmap_per_thread_sysv, ZAP, BACKING),
	R(region_devzero, REGION, BACKING),
	R(region_sysv, REGION, BACKING),
	R(region_processes, REGION, WORKERS),
	R(region_too_few_pages, REGION, WORKERS),
	R(region_per_thread, REGION, PATTERN),
	R(region_collapse, REGION, PATTERN),
	R(region_pretouch_g1, REGION, JVM),
	R(region_pretouch_parallel, REGION, JVM),
	R(processes_collapse, WORKERS, PATTERN),
	R(processes_pretouch, WORKERS, PATTERN),
	R(rounds_collapse, REPEAT, PATTERN),
	R(duration_pretouch, REPEAT, PATTERN),
	R(sysv_collapse, BACKING, PATTERN),
	R(devzero_pretouch, BACKING, PATTERN),
	R(latency_khugepaged, LATENCY, COLLAPSE),
};

#define NRULES ((int)(sizeof(rules) / sizeof(rules[0])))

/* Puts one setting back to its default (faultgen_attr_new(3)). */
static void reset_setting(struct faultgen_attr *a, enum faultgen_setting s)
{
	unsigned int rounds = faultgen_attr_get_rounds(a);
	double seconds = faultgen_attr_get_duration(a);

	switch (s) {
	case S(SHM_LOCK):
		OK(faultgen_attr_set_shm_lock(a, 0));
		break;
	case S(TOUCH):
		OK(faultgen_attr_set_touch(a, FAULTGEN_TOUCH_WRITE));
		break;
	case S(ZAP): /* the same repeat, the default zap */
		if (rounds)
			OK(faultgen_attr_set_rounds(a, rounds,
						    FAULTGEN_ZAP_DONTNEED));
		else
			OK(faultgen_attr_set_duration(a, seconds,
						      FAULTGEN_ZAP_DONTNEED));
		break;
	case S(REPEAT):
		OK(faultgen_attr_set_rounds(a, 0, FAULTGEN_ZAP_DONTNEED));
		break;
	case S(REGION):
		OK(faultgen_attr_set_region(a, NULL, 0));
		break;
	case S(WORKERS):
		OK(faultgen_attr_set_workers(a, 1, FAULTGEN_THREADS));
		break;
	case S(BACKING):
		OK(faultgen_attr_set_backing(a, FAULTGEN_BACKING_ANON));
		break;
	case S(LATENCY):
		OK(faultgen_attr_set_latency(a, 0));
		break;
	default:
		ck_abort_msg("no rule of the page names setting %d", s);
	}
}

START_TEST(check_names_the_two_settings_of_each_rule)
{
	const struct rule_case *r = &rules[_i];
	struct faultgen_conflict c;
	struct faultgen_attr *a;
	struct faultgen_run *run;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	r->make(a);
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	ck_assert_int_eq(faultgen_attr_check(a, &c), -EINVAL);
	ck_assert_msg(c.setting == r->setting && c.with == r->with,
		      "%s: (setting, with) = (%d, %d), not (%d, %d)", r->what,
		      c.setting, c.with, r->setting, r->with);
	ck_assert_uint_eq(c.size, sizeof(c));
	ck_assert_ptr_nonnull(c.why);
	ck_assert_msg(strlen(c.why) > 0, "%s: empty why", r->what);
	ck_assert_int_eq(faultgen_attr_check(a, NULL), -EINVAL);
	/* The run applies the same rules, before it maps anything. */
	ck_assert_int_eq(faultgen_run_new(a, &run), -EINVAL);
	ck_assert_ptr_null(run);
	/* The setting named is at fault: its default clears the conflict. */
	reset_setting(a, r->setting);
	ck_assert_msg(faultgen_attr_check(a, &c) == 0,
		      "%s: still refused once setting %d is back to its "
		      "default", r->what, r->setting);
	faultgen_attr_free(a);
}
END_TEST

/* Combinations the page allows, next to those it refuses. */
CASE(default_attr, (void)a)
CASE(shm_lock_sysv,
     OK(faultgen_attr_set_backing(a, FAULTGEN_BACKING_SYSV));
     OK(faultgen_attr_set_shm_lock(a, 1)))
CASE(mlock_one_pass, OK(faultgen_attr_set_touch(a, FAULTGEN_TOUCH_MLOCK)))
CASE(munmap_per_thread_anon,
     OK(faultgen_attr_set_pattern(a, FAULTGEN_PER_THREAD_VMA));
     OK(faultgen_attr_set_rounds(a, 3, FAULTGEN_ZAP_MUNMAP)))
CASE(munmap_shared_one_pass,
     OK(faultgen_attr_set_rounds(a, 0, FAULTGEN_ZAP_MUNMAP)))
CASE(region_shared_threads, set_region16(a);
     OK(faultgen_attr_set_workers(a, 16, FAULTGEN_THREADS)))
CASE(region_pretouch_no_gc, set_region16(a);
     OK(faultgen_attr_set_pattern(a, FAULTGEN_PRETOUCH)))
CASE(processes_per_thread_sysv,
     OK(faultgen_attr_set_pattern(a, FAULTGEN_PER_THREAD_VMA));
     OK(faultgen_attr_set_workers(a, 2, FAULTGEN_PROCESSES));
     OK(faultgen_attr_set_backing(a, FAULTGEN_BACKING_SYSV));
     OK(faultgen_attr_set_rounds(a, 2, FAULTGEN_ZAP_DONTNEED)))
CASE(collapse_khugepaged_fork,
     OK(faultgen_attr_set_pattern(a, FAULTGEN_RO_COLLAPSE));
     OK(faultgen_attr_set_protect(a, FAULTGEN_PROTECT_FORK));
     OK(faultgen_attr_set_collapse(a, FAULTGEN_COLLAPSE_KHUGEPAGED)))

static void (*const allowed[])(struct faultgen_attr *a) = {
	make_default_attr,	     make_shm_lock_sysv,
	make_mlock_one_pass,	     make_munmap_per_thread_anon,
	make_munmap_shared_one_pass, make_region_shared_threads,
	make_region_pretouch_no_gc,  make_processes_per_thread_sysv,
	make_collapse_khugepaged_fork,
};

START_TEST(check_accepts_what_no_rule_forbids)
{
	unsigned char buf[sizeof(struct faultgen_conflict) + 16];
	struct faultgen_conflict *c = (struct faultgen_conflict *)buf;
	struct faultgen_attr *a;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	allowed[_i](a);
	memset(buf, 0xa5, sizeof(buf));
	c->size = sizeof(*c);
	ck_assert_int_eq(faultgen_attr_check(a, c), 0);
	/* Nothing written on success. */
	for (size_t i = sizeof(size_t); i < sizeof(buf); i++)
		ck_assert_msg(buf[i] == 0xa5, "case %d: byte %zu written", _i,
			      i);
	ck_assert_int_eq(faultgen_attr_check(a, NULL), 0);
	faultgen_attr_free(a);
}
END_TEST

/* An older, smaller struct gets what fits; bad arguments write nothing. */
START_TEST(check_honours_the_callers_struct_size)
{
	unsigned char buf[sizeof(struct faultgen_conflict) + 16];
	struct faultgen_conflict *c = (struct faultgen_conflict *)buf;
	size_t cut = offsetof(struct faultgen_conflict, with);
	struct faultgen_attr *a;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	make_shm_lock_anon(a);
	memset(buf, 0xa5, sizeof(buf));
	c->size = cut;
	ck_assert_int_eq(faultgen_attr_check(a, c), -EINVAL);
	ck_assert_uint_eq(c->size, cut);
	ck_assert_int_eq(c->setting, FAULTGEN_SETTING_SHM_LOCK);
	for (size_t i = cut; i < sizeof(buf); i++)
		ck_assert_msg(buf[i] == 0xa5, "byte %zu written", i);
	memset(buf, 0xa5, sizeof(buf));
	c->size = sizeof(size_t) - 1;
	ck_assert_int_eq(faultgen_attr_check(a, c), -EINVAL);
	for (size_t i = sizeof(size_t); i < sizeof(buf); i++)
		ck_assert_int_eq(buf[i], 0xa5);
	c->size = sizeof(*c);
	ck_assert_int_eq(faultgen_attr_check(NULL, c), -EINVAL);
	for (size_t i = sizeof(size_t); i < sizeof(buf); i++)
		ck_assert_int_eq(buf[i], 0xa5);
	faultgen_attr_free(a);
}
END_TEST


/* ---- the patterns as data (LIBFAULTGEN_1.2) ---------------------------- */

START_TEST(pattern_names_round_trip)
{
	static const char *const documented[] = { "shared-vma",
						   "per-thread-vma",
						   "ro-collapse", "pretouch" };
	int n = faultgen_pattern_count();
	enum faultgen_pattern p;

	ck_assert_int_ge(n, 4);
	for (int i = 0; i < 4; i++)
		ck_assert_str_eq(faultgen_pattern_name(i), documented[i]);
	for (int i = 0; i < n; i++) {
		p = (enum faultgen_pattern)-1;
		ck_assert_ptr_nonnull(faultgen_pattern_name(i));
		ck_assert_int_eq(
			faultgen_pattern_from_name(faultgen_pattern_name(i), &p),
			0);
		ck_assert_int_eq(p, i);
	}
	ck_assert_ptr_null(faultgen_pattern_name(n));
	ck_assert_ptr_null(faultgen_pattern_name((enum faultgen_pattern)-1));
	ck_assert_int_eq(faultgen_pattern_from_name("no-such", &p), -ENOENT);
	ck_assert_int_eq(faultgen_pattern_from_name("", &p), -ENOENT);
	ck_assert_int_eq(faultgen_pattern_from_name(NULL, &p), -EINVAL);
	ck_assert_int_eq(faultgen_pattern_from_name("pretouch", NULL), -EINVAL);
}
END_TEST

/* The set_pattern setter takes exactly the patterns the count gives. */
START_TEST(set_pattern_takes_the_counted_patterns)
{
	struct faultgen_attr *a;
	int n = faultgen_pattern_count();

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	for (int i = 0; i < n; i++)
		ck_assert_int_eq(faultgen_attr_set_pattern(a, i), 0);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, n), -EINVAL);
	ck_assert_int_eq(faultgen_attr_get_pattern(a), n - 1);
	faultgen_attr_free(a);
}
END_TEST

/* The knobs faultgen_attr_set_protect(3), set_pretouch_touch(3) and
 * friends document as one pattern's, and the ones every pattern reads. */
START_TEST(pattern_reads_its_own_knobs)
{
	static const struct {
		enum faultgen_pattern p;
		enum faultgen_setting s;
		int reads;
	} cases[] = {
		{ FAULTGEN_RO_COLLAPSE, FAULTGEN_SETTING_PROTECT, 1 },
		{ FAULTGEN_RO_COLLAPSE, FAULTGEN_SETTING_COLLAPSE, 1 },
		{ FAULTGEN_RO_COLLAPSE, FAULTGEN_SETTING_TIMEOUT, 1 },
		{ FAULTGEN_SHARED_VMA, FAULTGEN_SETTING_PROTECT, 0 },
		{ FAULTGEN_PRETOUCH, FAULTGEN_SETTING_TIMEOUT, 0 },
		{ FAULTGEN_PRETOUCH, FAULTGEN_SETTING_PRETOUCH_TOUCH, 1 },
		{ FAULTGEN_PRETOUCH, FAULTGEN_SETTING_CHUNK_SIZE, 1 },
		{ FAULTGEN_PRETOUCH, FAULTGEN_SETTING_JVM, 1 },
		{ FAULTGEN_PRETOUCH, FAULTGEN_SETTING_TOUCH, 0 },
		{ FAULTGEN_PER_THREAD_VMA, FAULTGEN_SETTING_JVM, 0 },
		{ FAULTGEN_SHARED_VMA, FAULTGEN_SETTING_TOUCH, 1 },
		{ FAULTGEN_PER_THREAD_VMA, FAULTGEN_SETTING_ZAP, 1 },
		{ FAULTGEN_RO_COLLAPSE, FAULTGEN_SETTING_ZAP, 0 },
	};
	int n = faultgen_pattern_count();

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_msg(faultgen_pattern_reads(cases[i].p, cases[i].s) ==
				      cases[i].reads,
			      "case %zu", i);
	for (int p = 0; p < n; p++) {
		ck_assert_int_eq(faultgen_pattern_reads(p, FAULTGEN_SETTING_PATTERN), 1);
		ck_assert_int_eq(faultgen_pattern_reads(p, FAULTGEN_SETTING_SIZE), 1);
		ck_assert_int_eq(faultgen_pattern_reads(p, FAULTGEN_SETTING_CPUS), 1);
		ck_assert_int_eq(faultgen_pattern_reads(p, FAULTGEN_SETTING_NONE),
				 -EINVAL);
		ck_assert_int_eq(faultgen_pattern_reads(p, (enum faultgen_setting)1000),
				 -EINVAL);
	}
	ck_assert_int_eq(faultgen_pattern_reads(n, FAULTGEN_SETTING_SIZE),
			 -EINVAL);
}
END_TEST

/*
 * A pattern that is not unbound fails a run with more workers than CPUs
 * (without oversubscribe); pretouch, the unbound one, runs it.  Seen by
 * running both, not from the flag.
 */
START_TEST(unbound_workers_is_what_a_run_allows)
{
	static const enum faultgen_pattern ps[] = { FAULTGEN_SHARED_VMA,
						    FAULTGEN_PRETOUCH };
	struct faultgen_attr *a;
	struct faultgen_run *run;
	unsigned int cpus;
	int ret;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ret = faultgen_attr_get_cpus(a, NULL, 0);
	ck_assert_int_gt(ret, 0);
	cpus = (unsigned int)ret;
	for (size_t i = 0; i < 2; i++) {
		ck_assert_int_eq(faultgen_attr_set_pattern(a, ps[i]), 0);
		ck_assert_int_eq(faultgen_attr_set_workers(a, cpus + 1,
							   FAULTGEN_THREADS), 0);
		ck_assert_int_eq(faultgen_attr_set_size(a, 64ULL << 20), 0);
		ret = faultgen_run_new(a, &run);
		if (faultgen_pattern_unbound_workers(ps[i]) == 1) {
			ck_assert_int_eq(ret, 0);
			faultgen_run_free(run);
		} else {
			ck_assert_int_eq(ret, -EINVAL);
		}
	}
	ck_assert_int_eq(faultgen_pattern_unbound_workers(FAULTGEN_PRETOUCH), 1);
	ck_assert_int_eq(faultgen_pattern_unbound_workers(FAULTGEN_SHARED_VMA), 0);
	ck_assert_int_eq(faultgen_pattern_unbound_workers(faultgen_pattern_count()),
			 -EINVAL);
	faultgen_attr_free(a);
}
END_TEST

/*
 * What a run of an attr maps and may hold at once: 40960 bytes for three
 * workers are whole pages for each (4 each of 4 KiB: 49152 bytes); a
 * written private memfd holds each page twice (the file's and the copy),
 * read or shared once; cow-fork twice (the parent's and the copies); huge
 * pages none of the memory (the pool's).
 */
START_TEST(memory_of_a_run_in_whole_pages_held_twice_when_copied)
{
	struct faultgen_attr *a;
	uint64_t mapped = 0, held = 0;

	if (fgc_pagesize() != 4096) {
		FGC_SKIP("the figures are of 4 KiB pages");
		return;
	}
	ck_assert_int_eq(faultgen_attr_get_memory(NULL, &mapped, &held),
			 -EINVAL);
	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 40960), 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, 3, FAULTGEN_THREADS), 0);
	ck_assert_int_eq(faultgen_attr_get_memory(a, &mapped, &held), 0);
	ck_assert_uint_eq(mapped, 49152);
	ck_assert_uint_eq(held, 49152);
	ck_assert_uint_eq(faultgen_attr_get_page_size(a), 4096);
	ck_assert_uint_eq(faultgen_attr_get_page_size(NULL), 0);
	ck_assert_int_eq(faultgen_attr_get_memory(a, NULL, NULL), 0);
	ck_assert_int_eq(faultgen_attr_set_backing(a, FAULTGEN_BACKING_MEMFD),
			 0);
	ck_assert_int_eq(faultgen_attr_get_memory(a, &mapped, &held), 0);
	ck_assert_uint_eq(held, 2 * 49152);
	ck_assert_int_eq(faultgen_attr_set_touch(a, FAULTGEN_TOUCH_READ), 0);
	ck_assert_int_eq(faultgen_attr_get_memory(a, NULL, &held), 0);
	ck_assert_uint_eq(held, 49152);
	ck_assert_int_eq(faultgen_attr_set_touch(a, FAULTGEN_TOUCH_WRITE), 0);
	ck_assert_int_eq(faultgen_attr_set_share(a, 1), 0);
	ck_assert_int_eq(faultgen_attr_get_memory(a, NULL, &held), 0);
	ck_assert_uint_eq(held, 49152);
	ck_assert_int_eq(faultgen_attr_set_share(a, 0), 0);
	ck_assert_int_eq(faultgen_attr_set_backing(a, FAULTGEN_BACKING_ANON),
			 0);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, FAULTGEN_COW_FORK), 0);
	ck_assert_int_eq(faultgen_attr_get_memory(a, &mapped, &held), 0);
	ck_assert_uint_eq(mapped, 49152);
	ck_assert_uint_eq(held, 2 * 49152);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, FAULTGEN_SHARED_VMA), 0);
	ck_assert_int_eq(faultgen_attr_set_backing(a, FAULTGEN_BACKING_HUGETLB),
			 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 6 << 20), 0);
	ck_assert_int_eq(faultgen_attr_get_memory(a, &mapped, &held), 0);
	ck_assert_uint_eq(mapped, 6 << 20);
	ck_assert_uint_eq(held, 0);
	/* x86's huge page, the unit the hugetlb backing faults. */
	ck_assert_uint_eq(faultgen_attr_get_page_size(a), 2u << 20);
	faultgen_attr_free(a);
}
END_TEST

static Suite *attr_suite(void)
{
	Suite *s = suite_create("attr");
	TCase *tc = tcase_create("setters");

	tcase_add_test(tc, starts_with_library_defaults);
	tcase_add_test(tc, accepts_boundary_values);
	tcase_add_test(tc, copies_strings_it_keeps);
	tcase_add_test(tc, rejects_null_attr_in_every_setter);
	tcase_add_loop_test(tc, rejects_bad_value_leaving_attr_unchanged, 0,
			    NBADS);
	tcase_add_test(tc, getters_return_what_setters_stored);
	tcase_add_test(tc, getters_read_null_attr_as_zero);
	suite_add_tcase(s, tc);

	tc = tcase_create("check");
	tcase_add_loop_test(tc, check_names_the_two_settings_of_each_rule, 0,
			    NRULES);
	tcase_add_loop_test(tc, check_accepts_what_no_rule_forbids, 0,
			    (int)(sizeof(allowed) / sizeof(allowed[0])));
	tcase_add_test(tc, check_honours_the_callers_struct_size);
	suite_add_tcase(s, tc);

	tc = tcase_create("patterns");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, pattern_names_round_trip);
	tcase_add_test(tc, set_pattern_takes_the_counted_patterns);
	tcase_add_test(tc, pattern_reads_its_own_knobs);
	tcase_add_test(tc, unbound_workers_is_what_a_run_allows);
	suite_add_tcase(s, tc);

	tc = tcase_create("behaviour");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, run_keeps_size_after_bad_size);
	tcase_add_test(tc, run_keeps_pattern_after_bad_pattern);
	tcase_add_test(tc, run_keeps_workers_after_bad_workers);
	tcase_add_test(tc, run_keeps_backing_after_bad_backing);
	tcase_add_test(tc, run_keeps_touch_after_bad_touch);
	tcase_add_test(tc, run_keeps_cachelines_after_bad_cachelines);
	tcase_add_test(tc, run_keeps_numa_after_bad_numa);
	tcase_add_test(tc, run_keeps_thp_after_bad_thp);
	tcase_add_test(tc, cpus_unchanged_after_bad_cpus);
	tcase_add_test(tc, cpuset_unchanged_after_bad_cpuset);
	tcase_add_test(tc, run_keeps_rounds_after_bad_repeat);
	tcase_add_test(tc, run_keeps_zap_after_bad_duration);
	tcase_add_test(tc, run_keeps_warmup_after_bad_warmup);
	tcase_add_test(tc, run_keeps_region_after_bad_region);
	tcase_add_test(tc, refuses_shm_lock_without_sysv_at_run);
	tcase_add_test(tc, run_copies_attr);
	tcase_add_test(tc, memory_of_a_run_in_whole_pages_held_twice_when_copied);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return fgc_main(attr_suite());
}
