// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * check_run.c - runs of the shared-VMA and per-thread-VMA patterns: every
 * pattern x worker kind x backing, each touch mode, rounds and duration,
 * the combinations refused, what /proc/self/maps and /proc/sysvipc/shm
 * show, and the library inside a process that already has threads.  How
 * the figures are folded is check_measure.c's; the helpers, check_util.c's.
 *
 * Every count is asserted against what the kernel says (minor faults,
 * maps lines, segments), never a timing.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "check-util.h"

#include <linux/capability.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/syscall.h>

#include "internal.h"

#ifndef SHM_DEST
#define SHM_DEST 01000
#endif
#ifndef SHM_LOCKED
#define SHM_LOCKED 02000
#endif

static const char *const pattern_name[] = { "shared", "per-thread" };
static const char *const kind_name[] = { "threads", "processes" };
static const char *const backing_name[] = { "anon", "devzero", "sysv" };

struct combo {
	enum faultgen_pattern pattern;
	enum faultgen_workers kind;
	enum faultgen_backing backing;
	unsigned int workers;
	char name[64];
};

/* 24 combinations: pattern, then kind, then backing, then 1 or 2 workers. */
static void decode(int i, struct combo *c)
{
	c->pattern = (enum faultgen_pattern)(i % 2);
	c->kind = (enum faultgen_workers)(i / 2 % 2);
	c->backing = (enum faultgen_backing)(i / 4 % 3);
	c->workers = 1 + (unsigned int)(i / 12);
	snprintf(c->name, sizeof(c->name), "%s/%s/%s/%u",
		 pattern_name[c->pattern], kind_name[c->kind],
		 backing_name[c->backing], c->workers);
}

/* 4 KiB pages whatever the THP settings, so that faults = pages. */
static struct faultgen_attr *attr_for(const struct combo *c, uint64_t size)
{
	struct faultgen_attr *a;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, c->pattern), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, size), 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, c->workers, c->kind), 0);
	ck_assert_int_eq(faultgen_attr_set_backing(a, c->backing), 0);
	ck_assert_int_eq(faultgen_attr_set_thp(a, FAULTGEN_THP_NOHUGEPAGE), 0);
	fgc_allow_workers(a, c->workers);
	return a;
}

static struct faultgen_run *run_ok(const struct faultgen_attr *a,
				   const char *what)
{
	struct faultgen_run *run = NULL;
	int ret = faultgen_run_new(a, &run);

	ck_assert_msg(ret == 0, "%s: run failed: %d %s", what, ret,
		      faultgen_strerror(ret));
	return run;
}

static void result_of(const struct faultgen_run *run,
		      struct faultgen_result *res)
{
	memset(res, 0, sizeof(*res));
	res->size = sizeof(*res);
	ck_assert_int_eq(faultgen_run_result(run, res), 0);
}

static void worker_of(const struct faultgen_run *run, unsigned int i,
		      struct faultgen_worker_result *w)
{
	memset(w, 0, sizeof(*w));
	w->size = sizeof(*w);
	ck_assert_int_eq(faultgen_run_worker(run, i, w), 0);
}

/* The kernel's count agrees with the pages, by our margin and the
 * library's own verdict. */
static void assert_faults(const struct faultgen_result *res, const char *what)
{
	ck_assert_msg(fgc_close(res->pages, res->minflt, res->workers),
		      "%s: %llu faults for %llu pages", what,
		      (unsigned long long)res->minflt,
		      (unsigned long long)res->pages);
	ck_assert_msg(res->faults_agree == 1, "%s: faults_agree is %d", what,
		      res->faults_agree);
	ck_assert_uint_eq(res->expected_faults, res->pages);
}

/* Each worker's mapping is a maps line of its own, exactly. */
static void assert_own_vmas(const struct faultgen_run *run, unsigned int n,
			    const char *what)
{
	struct faultgen_worker_result w;
	struct fgc_vma *v;
	int nv = fgc_maps_read(&v), first;

	ck_assert_int_gt(nv, 0);
	for (unsigned int i = 0; i < n; i++) {
		worker_of(run, i, &w);
		ck_assert_msg(fgc_vmas_over(v, nv, w.addr, w.len, &first) == 1,
			      "%s: worker %u spans several VMAs", what, i);
		ck_assert_msg(v[first].start == (unsigned long)w.addr &&
				      v[first].end ==
					      (unsigned long)w.addr + w.len,
			      "%s: worker %u's %p+%zu is in VMA %lx-%lx", what,
			      i, w.addr, w.len, v[first].start, v[first].end);
	}
	free(v);
}

/* One maps line covers the whole region (anonymous memory may have
 * merged with a neighbour of the same kind: the line may be larger). */
static void assert_one_vma(const struct faultgen_run *run, const char *what,
			   char *path, size_t pathlen)
{
	struct fgc_vma *v;
	void *addr;
	size_t len;
	int nv = fgc_maps_read(&v), first;

	ck_assert_int_gt(nv, 0);
	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	ck_assert_msg(fgc_vmas_over(v, nv, addr, len, &first) == 1,
		      "%s: the shared region spans several VMAs", what);
	ck_assert(v[first].start <= (unsigned long)addr &&
		  v[first].end >= (unsigned long)addr + len);
	snprintf(path, pathlen, "%s", v[first].path);
	free(v);
}

static void assert_backing_path(const char *path, enum faultgen_backing b,
				const char *what)
{
	switch (b) {
	case FAULTGEN_BACKING_ANON:
		ck_assert_msg(path[0] == '\0', "%s: anon shows \"%s\"", what,
			      path);
		break;
	case FAULTGEN_BACKING_DEVZERO:
		ck_assert_msg(strcmp(path, "/dev/zero") == 0,
			      "%s: devzero shows \"%s\"", what, path);
		break;
	case FAULTGEN_BACKING_SYSV:
		ck_assert_msg(strncmp(path, "/SYSV", 5) == 0,
			      "%s: sysv shows \"%s\"", what, path);
		break;
	case FAULTGEN_BACKING_MEMFD:
		ck_assert_msg(strncmp(path, "/memfd:libfaultgen", 18) == 0,
			      "%s: memfd shows \"%s\"", what, path);
		break;
	case FAULTGEN_BACKING_FILE: /* the run's file, unlinked */
		ck_assert_msg(strstr(path, "/libfaultgen-") != NULL,
			      "%s: file shows \"%s\"", what, path);
		break;
	case FAULTGEN_BACKING_HUGETLB:
		ck_assert_msg(strncmp(path, "/anon_hugepage", 14) == 0,
			      "%s: hugetlb shows \"%s\"", what, path);
		break;
	}
}

/* 1027 pages and a byte: whole pages, then whole slices. */
#define ODD_SIZE(ps) (1026 * (ps) + 1)

START_TEST(faults_agree_for_every_pattern_kind_backing)
{
	uint64_t ps = (uint64_t)fgc_pagesize(), pages;
	struct faultgen_worker_result w;
	struct faultgen_result res;
	struct faultgen_attr *a;
	struct faultgen_run *run;
	char path[1024];
	unsigned int mode = 0;
	int segs_before;
	struct combo c;

	decode(_i, &c);
	pages = fgc_pages_for(ODD_SIZE(ps), c.workers);
	ck_assert_uint_eq(pages, c.workers == 2 ? 1028 : 1027);
	segs_before = fgc_shm_count(getpid(), NULL);
	ck_assert_int_eq(segs_before, 0);
	a = attr_for(&c, ODD_SIZE(ps));
	run = run_ok(a, c.name);
	result_of(run, &res);
	ck_assert_uint_eq(res.workers, c.workers);
	ck_assert_uint_eq(res.pagesize, ps);
	ck_assert_uint_eq(res.pages, pages);
	ck_assert_uint_eq(res.pages_per_round, pages);
	ck_assert_uint_eq(res.bytes, pages * ps);
	ck_assert_uint_eq(res.rounds, c.workers);
	ck_assert_int_eq(res.shm_refault, 0);
	assert_faults(&res, c.name);
	for (unsigned int i = 0; i < c.workers; i++) {
		worker_of(run, i, &w);
		ck_assert_uint_eq(w.index, i);
		ck_assert_uint_eq(w.pages, pages / c.workers);
		ck_assert_uint_eq(w.len, pages / c.workers * ps);
		ck_assert_uint_eq(w.rounds, 1);
		ck_assert_msg(fgc_close(w.pages, w.minflt, 1),
			      "%s: worker %u: %llu faults for %llu pages",
			      c.name, i, (unsigned long long)w.minflt,
			      (unsigned long long)w.pages);
		if (c.kind == FAULTGEN_THREADS)
			ck_assert_int_eq(w.pid, getpid());
		else
			ck_assert_int_ne(w.pid, getpid());
		ck_assert_int_ne(w.tid, getpid());
		/* The parent sees a child's writes only in shared memory:
		 * a private mapping is each child's own copy. */
		ck_assert_int_eq(*(volatile char *)w.addr,
				 c.kind == FAULTGEN_THREADS ||
					 c.backing == FAULTGEN_BACKING_SYSV);
	}
	if (c.pattern == FAULTGEN_PER_THREAD_VMA) {
		assert_own_vmas(run, c.workers, c.name);
	} else {
		assert_one_vma(run, c.name, path, sizeof(path));
		assert_backing_path(path, c.backing, c.name);
	}
	if (c.backing == FAULTGEN_BACKING_SYSV) {
		int want = c.pattern == FAULTGEN_PER_THREAD_VMA ?
				   (int)c.workers :
				   1;

		ck_assert_int_eq(fgc_shm_count(getpid(), &mode), want);
		/* Marked for removal as soon as attached. */
		ck_assert_msg(mode & SHM_DEST, "segment mode %o", mode);
	}
	faultgen_run_free(run);
	faultgen_attr_free(a);
	ck_assert_int_eq(fgc_shm_count(getpid(), NULL), 0);
	ck_assert(fgc_no_children());
}
END_TEST

START_TEST(per_thread_vmas_show_backing)
{
	struct faultgen_worker_result w;
	struct fgc_vma *v;
	struct faultgen_attr *a;
	struct faultgen_run *run;
	int nv, first;
	struct combo c;

	/* Per-thread, threads, each backing, 2 workers: 13, 17, 21. */
	decode(13 + 4 * _i, &c);
	ck_assert_int_eq(c.pattern, FAULTGEN_PER_THREAD_VMA);
	a = attr_for(&c, 64 * (uint64_t)fgc_pagesize());
	run = run_ok(a, c.name);
	nv = fgc_maps_read(&v);
	ck_assert_int_gt(nv, 0);
	for (unsigned int i = 0; i < c.workers; i++) {
		worker_of(run, i, &w);
		ck_assert_int_eq(fgc_vmas_over(v, nv, w.addr, w.len, &first),
				 1);
		assert_backing_path(v[first].path, c.backing, c.name);
	}
	free(v);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

static const struct {
	uint64_t pages_x100; /* size in hundredths of a page */
	unsigned int workers;
	uint64_t pages;
} roundings[] = {
	{ 1, 1, 1 },	{ 100, 1, 1 },	{ 101, 1, 2 },	{ 1, 3, 3 },
	{ 700, 2, 8 },	{ 701, 4, 8 },	{ 800, 4, 8 },	{ 801, 4, 12 },
	{ 1000, 3, 12 },
};

START_TEST(rounds_size_to_whole_slices)
{
	uint64_t ps = (uint64_t)fgc_pagesize();
	uint64_t size = (roundings[_i].pages_x100 * ps + 99) / 100;
	struct faultgen_result res;
	struct faultgen_attr *a;
	struct faultgen_run *run;
	struct combo c = { .workers = roundings[_i].workers };

	snprintf(c.name, sizeof(c.name), "%llu bytes, %u workers",
		 (unsigned long long)size, c.workers);
	a = attr_for(&c, size);
	run = run_ok(a, c.name);
	result_of(run, &res);
	ck_assert_uint_eq(res.pages, roundings[_i].pages);
	ck_assert_uint_eq(fgc_pages_for(size, c.workers), roundings[_i].pages);
	ck_assert_uint_eq(res.bytes, roundings[_i].pages * ps);
	assert_faults(&res, c.name);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* ---- touch modes ---------------------------------------------------- */

static unsigned int max_cachelines(void)
{
	long cl = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);

	if (cl <= 0 || cl > fgc_pagesize())
		cl = 128;
	return (unsigned int)(fgc_pagesize() / cl);
}

struct touch_case {
	const char *name;
	enum faultgen_touch touch;
	bool max_lines;
};

static const struct touch_case touches[] = {
	{ "write, 1 cacheline", FAULTGEN_TOUCH_WRITE, false },
	{ "write, every cacheline", FAULTGEN_TOUCH_WRITE, true },
	{ "read", FAULTGEN_TOUCH_READ, false },
	{ "memset", FAULTGEN_TOUCH_MEMSET, false },
	{ "mlock", FAULTGEN_TOUCH_MLOCK, false },
	{ "populate", FAULTGEN_TOUCH_POPULATE, false },
};

#define NTOUCH ((int)(sizeof(touches) / sizeof(touches[0])))
#define MLOCK_SIZE (2ULL << 20)

/* Why mlock of size bytes cannot work here, or NULL. */
static const char *mlock_blocked(uint64_t size)
{
	struct rlimit rl;

	/* Its interceptor returns 0 and locks (so faults) nothing. */
	if (FGC_ASAN)
		return "AddressSanitizer makes mlock a no-op";
	if (fgc_is_root())
		return NULL;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < size + (1 << 20))
		return "RLIMIT_MEMLOCK is below the region";
	return NULL;
}

/* Every touch mode, threads and processes, shared and per-thread. */
START_TEST(every_touch_mode_faults_every_page)
{
	const struct touch_case *t = &touches[_i % NTOUCH];
	struct faultgen_result res;
	struct faultgen_attr *a;
	struct faultgen_run *run;
	struct combo c;
	char what[128];
	int ret;

	/* _i / NTOUCH: 0 shared threads, 1 shared processes,
	 * 2 per-thread threads, 3 per-thread processes; 2 workers, anon. */
	decode(12 + (_i / NTOUCH % 2) * 2 + _i / NTOUCH / 2, &c);
	snprintf(what, sizeof(what), "%s, %s", t->name, c.name);
	if (t->touch == FAULTGEN_TOUCH_MLOCK && mlock_blocked(MLOCK_SIZE))
		FGC_SKIP("%s: %s", what, mlock_blocked(MLOCK_SIZE));
	a = attr_for(&c, MLOCK_SIZE);
	ck_assert_int_eq(faultgen_attr_set_touch(a, t->touch), 0);
	if (t->max_lines)
		ck_assert_int_eq(faultgen_attr_set_cachelines(a,
							      max_cachelines()),
				 0);
	ret = faultgen_run_new(a, &run);
	if (ret == -EINVAL && t->touch == FAULTGEN_TOUCH_POPULATE)
		FGC_SKIP("%s: kernel without MADV_POPULATE_WRITE", what);
	ck_assert_msg(ret == 0, "%s: %s", what, faultgen_strerror(ret));
	result_of(run, &res);
	ck_assert_uint_eq(res.pages, MLOCK_SIZE / (uint64_t)fgc_pagesize());
	assert_faults(&res, what);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* What the touch left in the memory (threads: the caller's memory). */
START_TEST(touch_modes_leave_expected_bytes)
{
	size_t ps = (size_t)fgc_pagesize(), len;
	unsigned int lines = max_cachelines(), cl = (unsigned int)ps / lines;
	struct faultgen_attr *a;
	struct faultgen_run *run;
	volatile char *p;
	void *addr;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 16 * ps), 0);
	ck_assert_int_eq(faultgen_attr_set_cachelines(a, lines), 0);
	run = run_ok(a, "write every cacheline");
	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	p = addr;
	for (size_t off = 0; off < len; off++)
		ck_assert_int_eq(p[off], off % cl == 0);
	faultgen_run_free(run);

	ck_assert_int_eq(faultgen_attr_set_cachelines(a, 1), 0);
	run = run_ok(a, "write one cacheline");
	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	p = addr;
	for (size_t off = 0; off < len; off++)
		ck_assert_int_eq(p[off], off % ps == 0);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* mlock of a slice splits the shared VMA: the region ends up cut off
 * from any neighbour it had merged with, its pieces locked. */
START_TEST(mlock_splits_shared_vma_at_region)
{
	struct combo c;
	struct faultgen_attr *a;
	struct faultgen_run *run;
	struct fgc_vma *v;
	char flags[1024];
	unsigned long lo, hi, at;
	void *addr;
	size_t len;
	int nv, first, count;

	decode(12, &c); /* shared, threads, anon, 2 workers */
	if (mlock_blocked(MLOCK_SIZE))
		FGC_SKIP("%s", mlock_blocked(MLOCK_SIZE));
	a = attr_for(&c, MLOCK_SIZE);
	ck_assert_int_eq(faultgen_attr_set_touch(a, FAULTGEN_TOUCH_MLOCK), 0);
	run = run_ok(a, "mlock");
	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	nv = fgc_maps_read(&v);
	ck_assert_int_gt(nv, 0);
	count = fgc_vmas_over(v, nv, addr, len, &first);
	ck_assert_int_ge(count, 1);
	ck_assert_int_le(count, (int)c.workers);
	lo = (unsigned long)addr;
	hi = lo + len;
	/* The lines tile the region exactly: none reaches outside it. */
	ck_assert_uint_eq(v[first].start, lo);
	at = lo;
	for (int i = first; i < first + count; i++) {
		ck_assert_uint_eq(v[i].start, at);
		ck_assert_uint_le(v[i].end, hi);
		at = v[i].end;
		ck_assert_int_eq(fgc_vmflags((void *)v[i].start, flags,
					     sizeof(flags)),
				 0);
		ck_assert_msg(fgc_vmflag_has(flags, "lo"), "VmFlags:%s",
			      flags);
	}
	ck_assert_uint_eq(at, hi);
	free(v);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(mlock_locks_each_per_thread_vma)
{
	struct faultgen_worker_result w;
	struct faultgen_attr *a;
	struct faultgen_run *run;
	char flags[1024];
	struct combo c;

	decode(13, &c); /* per-thread, threads, anon, 2 workers */
	if (mlock_blocked(MLOCK_SIZE))
		FGC_SKIP("%s", mlock_blocked(MLOCK_SIZE));
	a = attr_for(&c, MLOCK_SIZE);
	ck_assert_int_eq(faultgen_attr_set_touch(a, FAULTGEN_TOUCH_MLOCK), 0);
	run = run_ok(a, "mlock per-thread");
	assert_own_vmas(run, c.workers, c.name);
	for (unsigned int i = 0; i < c.workers; i++) {
		worker_of(run, i, &w);
		ck_assert_int_eq(fgc_vmflags(w.addr, flags, sizeof(flags)), 0);
		ck_assert_msg(fgc_vmflag_has(flags, "lo"), "VmFlags:%s",
			      flags);
	}
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(mlock_in_children_leaves_parent_unlocked)
{
	struct faultgen_attr *a;
	struct faultgen_run *run;
	char flags[1024];
	struct combo c;
	void *addr;
	size_t len;
	struct fgc_vma *v;
	int nv, first;

	decode(14, &c); /* shared, processes, anon, 2 workers */
	if (mlock_blocked(MLOCK_SIZE))
		FGC_SKIP("%s", mlock_blocked(MLOCK_SIZE));
	a = attr_for(&c, MLOCK_SIZE);
	ck_assert_int_eq(faultgen_attr_set_touch(a, FAULTGEN_TOUCH_MLOCK), 0);
	run = run_ok(a, "mlock processes");
	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	nv = fgc_maps_read(&v);
	ck_assert_int_eq(fgc_vmas_over(v, nv, addr, len, &first), 1);
	ck_assert_int_eq(fgc_vmflags((void *)v[first].start, flags,
				     sizeof(flags)),
			 0);
	ck_assert_msg(!fgc_vmflag_has(flags, "lo"), "VmFlags:%s", flags);
	free(v);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* ---- rounds, duration, warm-up ---------------------------------------- */

struct repeat_case {
	enum faultgen_pattern pattern;
	enum faultgen_backing backing;
	enum faultgen_zap zap;
};

static const struct repeat_case repeats[] = {
	{ FAULTGEN_SHARED_VMA, FAULTGEN_BACKING_ANON, FAULTGEN_ZAP_DONTNEED },
	{ FAULTGEN_SHARED_VMA, FAULTGEN_BACKING_DEVZERO,
	  FAULTGEN_ZAP_DONTNEED },
	{ FAULTGEN_SHARED_VMA, FAULTGEN_BACKING_SYSV, FAULTGEN_ZAP_DONTNEED },
	{ FAULTGEN_PER_THREAD_VMA, FAULTGEN_BACKING_ANON,
	  FAULTGEN_ZAP_DONTNEED },
	{ FAULTGEN_PER_THREAD_VMA, FAULTGEN_BACKING_DEVZERO,
	  FAULTGEN_ZAP_DONTNEED },
	{ FAULTGEN_PER_THREAD_VMA, FAULTGEN_BACKING_SYSV,
	  FAULTGEN_ZAP_DONTNEED },
	{ FAULTGEN_PER_THREAD_VMA, FAULTGEN_BACKING_ANON, FAULTGEN_ZAP_MUNMAP },
	{ FAULTGEN_PER_THREAD_VMA, FAULTGEN_BACKING_DEVZERO,
	  FAULTGEN_ZAP_MUNMAP },
};

#define NREPEAT ((int)(sizeof(repeats) / sizeof(repeats[0])))

START_TEST(rounds_multiply_pages_and_faults)
{
	const struct repeat_case *r = &repeats[_i % NREPEAT];
	uint64_t ps = (uint64_t)fgc_pagesize(), ppr = 256;
	unsigned int rounds = 3;
	struct faultgen_worker_result w;
	struct faultgen_result res;
	struct faultgen_attr *a;
	struct faultgen_run *run;
	struct combo c = {
		.pattern = r->pattern,
		.kind = _i / NREPEAT ? FAULTGEN_PROCESSES : FAULTGEN_THREADS,
		.backing = r->backing,
		.workers = 2,
	};

	snprintf(c.name, sizeof(c.name), "%s/%s/%s/%s",
		 pattern_name[c.pattern], kind_name[c.kind],
		 backing_name[c.backing],
		 r->zap == FAULTGEN_ZAP_MUNMAP ? "munmap" : "dontneed");
	a = attr_for(&c, ppr * ps);
	ck_assert_int_eq(faultgen_attr_set_rounds(a, rounds, r->zap), 0);
	run = run_ok(a, c.name);
	result_of(run, &res);
	ck_assert_uint_eq(res.pages_per_round, ppr);
	ck_assert_uint_eq(res.pages, rounds * ppr);
	ck_assert_uint_eq(res.rounds, rounds * c.workers);
	ck_assert_int_eq(res.shm_refault, c.backing == FAULTGEN_BACKING_SYSV);
	assert_faults(&res, c.name);
	for (unsigned int i = 0; i < c.workers; i++) {
		worker_of(run, i, &w);
		ck_assert_uint_eq(w.rounds, rounds);
		ck_assert_uint_eq(w.pages, rounds * ppr / c.workers);
	}
	/* munmap + mmap puts each mapping back as a VMA of its own. */
	if (c.pattern == FAULTGEN_PER_THREAD_VMA)
		assert_own_vmas(run, c.workers, c.name);
	faultgen_run_free(run);
	faultgen_attr_free(a);
	ck_assert_int_eq(fgc_shm_count(getpid(), NULL), 0);
}
END_TEST

START_TEST(duration_makes_at_least_one_round)
{
	uint64_t ps = (uint64_t)fgc_pagesize(), ppr = 64;
	struct faultgen_worker_result w;
	struct faultgen_result res;
	struct faultgen_attr *a;
	struct faultgen_run *run;
	struct combo c;

	decode(12 + 2 * _i, &c); /* shared, threads or processes, 2 workers */
	ck_assert_uint_gt(c.workers, 0);
	a = attr_for(&c, ppr * ps);
	/* Far shorter than one round can take: still one round each. */
	ck_assert_int_eq(faultgen_attr_set_duration(a, 1e-9,
						    FAULTGEN_ZAP_DONTNEED),
			 0);
	run = run_ok(a, c.name);
	result_of(run, &res);
	ck_assert_uint_ge(res.rounds, c.workers);
	for (unsigned int i = 0; i < c.workers; i++) {
		worker_of(run, i, &w);
		ck_assert_uint_ge(w.rounds, 1);
		ck_assert_uint_eq(w.pages, w.rounds * ppr / c.workers);
	}
	ck_assert_uint_eq(res.pages, res.rounds * ppr / c.workers);
	assert_faults(&res, c.name);
	faultgen_run_free(run);

	/* A longer one: the rounds are counted the same way. */
	ck_assert_int_eq(faultgen_attr_set_duration(a, 0.05,
						    FAULTGEN_ZAP_DONTNEED),
			 0);
	run = run_ok(a, c.name);
	result_of(run, &res);
	ck_assert_uint_ge(res.rounds, c.workers);
	ck_assert_uint_eq(res.pages, res.rounds * ppr / c.workers);
	assert_faults(&res, c.name);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(warmup_is_not_measured)
{
	uint64_t ps = (uint64_t)fgc_pagesize(), ppr = 256;
	struct faultgen_result res;
	struct faultgen_attr *a;
	struct faultgen_run *run;
	struct combo c;

	decode(12 + 2 * _i, &c);
	a = attr_for(&c, ppr * ps);
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 2, FAULTGEN_ZAP_DONTNEED),
			 0);
	ck_assert_int_eq(faultgen_attr_set_warmup(a, 3), 0);
	run = run_ok(a, c.name);
	result_of(run, &res);
	ck_assert_uint_eq(res.pages, 2 * ppr);
	ck_assert_uint_eq(res.rounds, 2 * c.workers);
	/* 5 rounds were faulted; only the 2 measured are counted. */
	assert_faults(&res, c.name);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* ---- combinations refused ------------------------------------------- */

static void assert_refused(struct faultgen_attr *a, const char *what)
{
	struct faultgen_run *run;
	void *addr;
	size_t len;
	int err, worker, signo;

	ck_assert_int_eq(faultgen_run_create(a, &run), 0);
	ck_assert_msg(faultgen_run_exec(run) == -EINVAL, "%s not refused",
		      what);
	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), -ENODATA);
	ck_assert_int_eq(faultgen_run_failure(run, &worker, &signo, &err), 0);
	ck_assert_int_eq(worker, -1);
	ck_assert_int_eq(signo, 0);
	ck_assert_int_eq(err, -EINVAL);
	faultgen_run_free(run);
	ck_assert_int_eq(fgc_shm_count(getpid(), NULL), 0);
	ck_assert(fgc_no_children());
}

START_TEST(refuses_munmap_zap_for_shared_vma)
{
	struct faultgen_attr *a;
	struct combo c;

	for (int i = 0; i < 24; i += 2) { /* every shared-VMA combination */
		decode(i, &c);
		a = attr_for(&c, 16 * (uint64_t)fgc_pagesize());
		ck_assert_int_eq(faultgen_attr_set_rounds(a, 2,
							  FAULTGEN_ZAP_MUNMAP),
				 0);
		assert_refused(a, c.name);
		ck_assert_int_eq(faultgen_attr_set_duration(
					 a, 0.1, FAULTGEN_ZAP_MUNMAP),
				 0);
		assert_refused(a, c.name);
		faultgen_attr_free(a);
	}
}
END_TEST

START_TEST(refuses_munmap_zap_for_sysv)
{
	struct faultgen_attr *a;
	struct combo c;

	decode(13 + 8, &c); /* per-thread, threads, sysv, 2 workers */
	ck_assert_int_eq(c.backing, FAULTGEN_BACKING_SYSV);
	a = attr_for(&c, 16 * (uint64_t)fgc_pagesize());
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 2, FAULTGEN_ZAP_MUNMAP),
			 0);
	assert_refused(a, c.name);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(refuses_mlock_with_rounds_or_duration)
{
	struct faultgen_attr *a;
	struct combo c;

	decode(_i, &c);
	a = attr_for(&c, 16 * (uint64_t)fgc_pagesize());
	ck_assert_int_eq(faultgen_attr_set_touch(a, FAULTGEN_TOUCH_MLOCK), 0);
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 2, FAULTGEN_ZAP_DONTNEED),
			 0);
	assert_refused(a, c.name);
	ck_assert_int_eq(faultgen_attr_set_duration(a, 0.1,
						    FAULTGEN_ZAP_DONTNEED),
			 0);
	assert_refused(a, c.name);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(refuses_more_workers_than_cpus)
{
	struct faultgen_attr *a;
	int cpus = fgc_affinity_count();

	ck_assert_int_gt(cpus, 0);
	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, (unsigned int)cpus + 1,
						   FAULTGEN_THREADS),
			 0);
	assert_refused(a, "workers > CPUs");
	faultgen_attr_free(a);
}
END_TEST

/* ---- SysV locking and privileges ------------------------------------ */

/* Takes CAP_IPC_LOCK out of this thread's effective set (root), so that
 * RLIMIT_MEMLOCK applies as it does to everyone else. */
static int drop_ipc_lock(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -errno;
	d[CAP_IPC_LOCK / 32].effective &= ~(1u << (CAP_IPC_LOCK % 32));
	if (syscall(SYS_capset, &h, d))
		return -errno;
	return 0;
}

static void no_memlock(void)
{
	struct rlimit rl;

	ck_assert_int_eq(getrlimit(RLIMIT_MEMLOCK, &rl), 0);
	rl.rlim_cur = 0;
	ck_assert_int_eq(setrlimit(RLIMIT_MEMLOCK, &rl), 0);
	ck_assert_int_eq(drop_ipc_lock(), 0);
}

START_TEST(shm_lock_locks_segment)
{
	struct faultgen_result res;
	struct faultgen_attr *a;
	struct faultgen_run *run;
	unsigned int mode = 0;
	struct combo c;
	int ret;

	/* Shared, sysv: threads and processes, 1 and 2 workers. */
	decode(8 + 2 * (_i % 2) + 12 * (_i / 2), &c);
	ck_assert_int_eq(c.backing, FAULTGEN_BACKING_SYSV);
	a = attr_for(&c, MLOCK_SIZE);
	ck_assert_int_eq(faultgen_attr_set_shm_lock(a, 1), 0);
	ret = faultgen_run_new(a, &run);
	if (ret && !fgc_is_root()) {
		ck_assert_msg(ret == -EPERM || ret == -ENOMEM, "%s: %s",
			      c.name, faultgen_strerror(ret));
		ck_assert_int_eq(fgc_shm_count(getpid(), NULL), 0);
		faultgen_attr_free(a);
		FGC_SKIP("%s: SHM_LOCK refused without root: %s", c.name,
			 faultgen_strerror(ret));
	}
	ck_assert_msg(ret == 0, "%s: %s", c.name, faultgen_strerror(ret));
	ck_assert_int_eq(fgc_shm_count(getpid(), &mode), 1);
	ck_assert_msg(mode & SHM_LOCKED, "segment mode %o", mode);
	ck_assert_msg(mode & SHM_DEST, "segment mode %o", mode);
	result_of(run, &res);
	assert_faults(&res, c.name);
	faultgen_run_free(run);
	faultgen_attr_free(a);
	ck_assert_int_eq(fgc_shm_count(getpid(), NULL), 0);
}
END_TEST

START_TEST(shm_lock_over_limit_fails_cleanly)
{
	struct faultgen_attr *a;
	struct faultgen_run *run;
	int ret, worker, signo, err;
	struct combo c;

	decode(8 + _i, &c); /* sysv, threads, shared or per-thread */
	no_memlock();
	a = attr_for(&c, 64 * (uint64_t)fgc_pagesize());
	ck_assert_int_eq(faultgen_attr_set_shm_lock(a, 1), 0);
	ck_assert_int_eq(faultgen_run_create(a, &run), 0);
	ret = faultgen_run_exec(run);
	ck_assert_msg(ret == -EPERM || ret == -ENOMEM, "%s: %d", c.name, ret);
	ck_assert_int_eq(faultgen_run_failure(run, &worker, &signo, &err), 0);
	ck_assert_int_eq(err, ret);
	ck_assert_int_eq(signo, 0);
	faultgen_run_free(run);
	faultgen_attr_free(a);
	ck_assert_int_eq(fgc_shm_count(getpid(), NULL), 0);
}
END_TEST

START_TEST(mlock_over_limit_names_worker)
{
	struct faultgen_attr *a;
	struct faultgen_run *run;
	int ret, worker, signo, err;
	struct combo c;

	decode(12 + 2 * _i, &c); /* shared, anon, 2 workers */
	if (FGC_ASAN)
		FGC_SKIP("AddressSanitizer makes mlock a no-op");
	no_memlock();
	a = attr_for(&c, 64 * (uint64_t)fgc_pagesize());
	ck_assert_int_eq(faultgen_attr_set_touch(a, FAULTGEN_TOUCH_MLOCK), 0);
	ck_assert_int_eq(faultgen_run_create(a, &run), 0);
	ret = faultgen_run_exec(run);
	ck_assert_msg(ret == -EPERM || ret == -ENOMEM, "%s: %d", c.name, ret);
	ck_assert_int_eq(faultgen_run_failure(run, &worker, &signo, &err), 0);
	ck_assert_int_ge(worker, 0);
	ck_assert_int_lt(worker, (int)c.workers);
	ck_assert_int_eq(signo, 0);
	ck_assert_int_eq(err, ret);
	faultgen_run_free(run);
	faultgen_attr_free(a);
	ck_assert(fgc_no_children());
}
END_TEST

START_TEST(sched_fifo_runs_or_refuses_cleanly)
{
	struct faultgen_result res;
	struct faultgen_attr *a;
	struct faultgen_run *run;
	struct rlimit rl;
	int ret, worker, signo, err;
	bool allowed;
	struct combo c;

	decode(12 + 2 * _i, &c);
	ck_assert_int_eq(getrlimit(RLIMIT_RTPRIO, &rl), 0);
	allowed = fgc_is_root() || rl.rlim_cur > 0;
	a = attr_for(&c, 64 * (uint64_t)fgc_pagesize());
	ck_assert_int_eq(faultgen_attr_set_sched_fifo(a, 1), 0);
	ck_assert_int_eq(faultgen_run_create(a, &run), 0);
	ret = faultgen_run_exec(run);
	if (ret == -EPERM) {
		ck_assert_int_eq(faultgen_run_failure(run, &worker, &signo,
						      &err),
				 0);
		ck_assert_int_ge(worker, 0);
		ck_assert_int_eq(err, -EPERM);
		faultgen_run_free(run);
		faultgen_attr_free(a);
		ck_assert(fgc_no_children());
		if (allowed)
			FGC_SKIP("%s: SCHED_FIFO refused (RT throttling or "
				 "cgroup without RT runtime)",
				 c.name);
		FGC_SKIP("%s: SCHED_FIFO needs root or RLIMIT_RTPRIO "
			 "(refused cleanly)",
			 c.name);
	}
	ck_assert_msg(ret == 0, "%s: %s", c.name, faultgen_strerror(ret));
	result_of(run, &res);
	assert_faults(&res, c.name);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* ---- a process that already has threads ------------------------------- */

static int idle_pipe[2];

static void *idle_thread(void *arg)
{
	char ch;

	(void)arg;
	/* Blocks until the test closes the pipe. */
	while (read(idle_pipe[0], &ch, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

START_TEST(runs_beside_threads_of_caller)
{
	enum { IDLE = 4 };
	pthread_t t[IDLE];
	struct faultgen_result res;
	struct faultgen_attr *a;
	struct faultgen_run *run;
	struct combo c;
	int threads;

	decode(12 + 2 * (_i % 2) + 8 * (_i / 2), &c); /* anon or sysv */
	ck_assert_int_eq(pipe(idle_pipe), 0);
	for (int i = 0; i < IDLE; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, idle_thread,
						NULL),
				 0);
	threads = fgc_threads();
	ck_assert_int_eq(threads, IDLE + 1);
	a = attr_for(&c, 256 * (uint64_t)fgc_pagesize());
	run = run_ok(a, c.name);
	result_of(run, &res);
	ck_assert_uint_eq(res.pages, 256);
	assert_faults(&res, c.name);
	faultgen_run_free(run);
	faultgen_attr_free(a);
	/* The caller's threads are untouched, the workers gone. */
	ck_assert_int_eq(fgc_threads_settle(threads), threads);
	ck_assert(fgc_no_children());
	close(idle_pipe[1]);
	for (int i = 0; i < IDLE; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
	close(idle_pipe[0]);
}
END_TEST

/* ---- the calling thread as worker 0 ------------------------------------ */

/*
 * Two workers, shared or per-thread VMA, threads or processes (_i % 4);
 * unpinned, pinned or SCHED_FIFO (_i / 4).  Worker 0 is this thread: its
 * pages are in this address space (in process mode worker 1's are not),
 * its figures are this thread's, and the thread gets its affinity and
 * policy back.
 */
START_TEST(caller_runs_worker_0)
{
	size_t ps = (size_t)fgc_pagesize();
	struct faultgen_worker_result w0, w1;
	struct faultgen_result res;
	cpu_set_t before, after;
	struct faultgen_attr *a;
	struct faultgen_run *run;
	int threads, policy, ret;
	bool procs;
	struct combo c;

	decode(12 + _i % 4, &c);
	procs = c.kind == FAULTGEN_PROCESSES;
	ck_assert_int_eq(sched_getaffinity(0, sizeof(before), &before), 0);
	policy = sched_getscheduler(0);
	a = attr_for(&c, 64 * (uint64_t)ps);
	ck_assert_int_eq(faultgen_attr_set_caller_worker(a, 1), 0);
	ck_assert_int_eq(faultgen_attr_set_pin(a, _i / 4 == 1), 0);
	ck_assert_int_eq(faultgen_attr_set_sched_fifo(a, _i / 4 == 2), 0);
	threads = fgc_threads();
	ck_assert_int_eq(faultgen_run_create(a, &run), 0);
	ret = faultgen_run_exec(run);
	ck_assert_int_eq(sched_getaffinity(0, sizeof(after), &after), 0);
	ck_assert_msg(CPU_EQUAL(&before, &after),
		      "%s: the caller's affinity changed", c.name);
	ck_assert_int_eq(sched_getscheduler(0), policy);
	if (ret == -EPERM && _i / 4 == 2) {
		faultgen_run_free(run);
		faultgen_attr_free(a);
		ck_assert(fgc_no_children());
		FGC_SKIP("%s: SCHED_FIFO refused; the policy stayed",
			 c.name);
	}
	ck_assert_msg(ret == 0, "%s: %s", c.name, faultgen_strerror(ret));
	result_of(run, &res);
	ck_assert_uint_eq(res.pages, 64);
	assert_faults(&res, c.name);
	worker_of(run, 0, &w0);
	worker_of(run, 1, &w1);
	ck_assert_int_eq(w0.tid, (int)syscall(SYS_gettid));
	ck_assert_int_eq(w0.pid, (int)getpid());
	ck_assert_int_ne(w1.tid, w0.tid);
	ck_assert_int_eq(w1.pid == (int)getpid(), !procs);
	ck_assert_msg(fgc_close(w0.pages, w0.minflt, 1),
		      "%s: worker 0 counted %llu faults for %llu pages", c.name,
		      (unsigned long long)w0.minflt,
		      (unsigned long long)w0.pages);
	ck_assert_uint_eq(fgc_resident_pages(w0.addr, w0.len), w0.len / ps);
	ck_assert_uint_eq(fgc_resident_pages(w1.addr, w1.len),
			  procs ? 0 : w1.len / ps);
	if (_i / 4 == 1)
		ck_assert_int_eq(w0.cpu, w0.last_cpu);
	faultgen_run_free(run);
	faultgen_attr_free(a);
	/* No worker thread, watcher or process outlives the run. */
	ck_assert_int_eq(fgc_threads_settle(threads), threads);
	ck_assert(fgc_no_children());
}
END_TEST


/* ---- helper threads beside the workers (struct fg_work) ------------------ */

static _Atomic unsigned int helper_ops, helper_stopped;
static int helper_error;

/* Counts operations until told to stop. */
static int counting_helper(struct faultgen_run *run, unsigned int h)
{
	(void)h;
	if (helper_error)
		return helper_error;
	while (!fg_helpers_stop(run)) {
		atomic_fetch_add(&helper_ops, 1);
		sched_yield();
	}
	atomic_fetch_add(&helper_stopped, 1);
	return 0;
}

static unsigned int two_helpers(const struct faultgen_run *run)
{
	(void)run;
	return 2;
}

/* A worker that is through only once the helpers have done 100
 * operations: it sees them run beside it (10 s at most). */
static int waiting_worker(struct faultgen_run *run, unsigned int i)
{
	int64_t until = fg_now_ns() + 10000000000LL;

	(void)i;
	while (atomic_load(&helper_ops) < 100) {
		if (fg_cancel_requested(run->sh))
			return -ECANCELED;
		if (fg_now_ns() > until)
			return -ETIMEDOUT;
		sched_yield();
	}
	return 0;
}

static const struct fg_work helped_work = {
	.body = waiting_worker,
	.barrier = true,
	.helpers = two_helpers,
	.helper = counting_helper,
};

/* A prepared run of 2 workers (threads or processes): its shared state
 * and CPUs, no memory. */
static struct faultgen_run *prepared_run(enum faultgen_workers kind)
{
	struct faultgen_attr *a;
	struct faultgen_run *run;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, 2, kind), 0);
	ck_assert_int_eq(faultgen_attr_set_oversubscribe(a, 1), 0);
	ck_assert_int_eq(fg_run_create(a, &run), 0);
	faultgen_attr_free(a);
	ck_assert_int_eq(fg_run_prepare(run), 0);
	atomic_store(&helper_ops, 0);
	atomic_store(&helper_stopped, 0);
	helper_error = 0;
	return run;
}

START_TEST(helpers_run_beside_workers_and_stop_after_them)
{
	struct faultgen_run *run = prepared_run(FAULTGEN_THREADS);

	ck_assert_int_eq(fg_workers_run(run, &helped_work), 0);
	ck_assert_uint_ge(atomic_load(&helper_ops), 100);
	/* Both stopped because the workers were through, not cancelled. */
	ck_assert_uint_eq(atomic_load(&helper_stopped), 2);
	ck_assert_uint_eq(atomic_load(&run->sh->cancel), 0);
	/* The gate counted the workers only, and so did the figures. */
	ck_assert_uint_eq(atomic_load(&run->sh->start.ready), 2);
	ck_assert_uint_eq(atomic_load(&run->sh->done), 2);
	fg_run_free(run);
}
END_TEST

START_TEST(failing_helper_fails_the_run)
{
	struct faultgen_run *run = prepared_run(FAULTGEN_THREADS);

	helper_error = -EIO;
	/* The workers, waiting for operations that never come, are let
	 * out by the cancel the failure raises. */
	ck_assert_int_eq(fg_workers_run(run, &helped_work), -EIO);
	ck_assert_uint_eq(atomic_load(&run->sh->cancel), 1);
	ck_assert_int_eq(run->fail_error, -EIO);
	fg_run_free(run);
}
END_TEST

START_TEST(helpers_refused_beside_processes)
{
	struct faultgen_run *run = prepared_run(FAULTGEN_PROCESSES);

	ck_assert_int_eq(fg_workers_run(run, &helped_work), -EINVAL);
	ck_assert_uint_eq(atomic_load(&run->sh->start.ready), 0);
	fg_run_free(run);
}
END_TEST

/* A segment under a free key of the range faultgen_sysv_cleanup(3)
 * documents, 0x70660000 up; its id. */
static int segment_in_range(void)
{
	for (unsigned int k = (unsigned int)getpid() % 60000; k < 65536; k++) {
		int id = shmget((key_t)(0x70660000u + k), 4096,
				IPC_CREAT | IPC_EXCL | 0600);

		if (id >= 0)
			return id;
		ck_assert_int_eq(errno, EEXIST);
	}
	ck_abort_msg("no free key in the range");
	return -1;
}

static bool segment_exists(int id)
{
	struct shmid_ds ds;

	return shmctl(id, IPC_STAT, &ds) == 0;
}

/* The segments of the range that this process created, as the kernel
 * lists them (/proc/sysvipc/shm: key shmid perms size cpid ...). */
static int own_segments_in_range(void)
{
	FILE *f = fopen("/proc/sysvipc/shm", "re");
	char line[512];
	long long key, cpid;
	int n = 0;

	ck_assert_ptr_nonnull(f);
	/* key shmid perms size cpid: the first and the fifth field */
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end;

		key = strtoll(p, &end, 10);
		if (end == p)
			continue;
		for (int i = 0; i < 4; i++) {
			p = end;
			cpid = strtoll(p, &end, 10);
		}
		if (end != p && key >= 0x70660000LL && key <= 0x7066ffffLL &&
		    cpid == getpid())
			n++;
	}
	fclose(f);
	return n;
}

/*
 * A segment of the library's range that a dead process created and
 * nobody attaches goes; one whose creator lives (here: this process)
 * stays, and so does a private one.
 */
START_TEST(sysv_cleanup_removes_only_segments_of_dead_creators)
{
	int fds[2], dead = -1, live, priv, st, n;
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int id = segment_in_range();

		_exit(write(fds[1], &id, sizeof(id)) == sizeof(id) ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert_int_eq(read(fds[0], &dead, sizeof(dead)), sizeof(dead));
	close(fds[0]);
	close(fds[1]);
	live = segment_in_range();
	priv = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	ck_assert_int_ge(priv, 0);
	ck_assert(segment_exists(dead));
	ck_assert_int_eq(own_segments_in_range(), 1); /* live's */

	n = faultgen_sysv_cleanup();
	ck_assert_int_ge(n, 1);
	ck_assert_msg(!segment_exists(dead), "the dead creator's segment "
		      "is still there");
	ck_assert(segment_exists(live));
	ck_assert(segment_exists(priv));
	shmctl(live, IPC_RMID, NULL);
	shmctl(priv, IPC_RMID, NULL);
}
END_TEST

/*
 * A segment of the range that another user created, whose creator is
 * gone, is that user's: faultgen_sysv_cleanup leaves it, even called by
 * root, who could remove it.  Needs root to create it as another user.
 */
START_TEST(sysv_cleanup_leaves_other_users_segments)
{
	int fds[2], theirs = -1, st;
	pid_t pid;

	if (!fgc_is_root()) {
		FGC_SKIP("needs root to create a segment as another user");
		return;
	}
	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int id;

		if (setresgid(65534, 65534, 65534) < 0 ||
		    setresuid(65534, 65534, 65534) < 0)
			_exit(1);
		id = segment_in_range();
		_exit(write(fds[1], &id, sizeof(id)) == sizeof(id) ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert_int_eq(read(fds[0], &theirs, sizeof(theirs)),
			 sizeof(theirs));
	close(fds[0]);
	close(fds[1]);
	ck_assert(segment_exists(theirs));
	ck_assert_int_ge(faultgen_sysv_cleanup(), 0);
	ck_assert_msg(segment_exists(theirs), "the segment of uid 65534 "
		      "was removed");
	shmctl(theirs, IPC_RMID, NULL);
}
END_TEST

/* A run's segments are of the range while it creates them, and none is
 * left once the run is over. */
START_TEST(sysv_run_leaves_no_segment_of_the_range)
{
	struct faultgen_attr *a;
	struct faultgen_run *run;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_backing(a, FAULTGEN_BACKING_SYSV),
			 0);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, FAULTGEN_PER_THREAD_VMA),
			 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, 2, FAULTGEN_THREADS), 0);
	fgc_allow_workers(a, 2);
	ck_assert_int_eq(faultgen_attr_set_size(a, 2 * 4096 * 4), 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	faultgen_run_free(run);
	faultgen_attr_free(a);
	/* Nothing this process created is left (other programs' segments
	 * are theirs). */
	ck_assert_int_eq(own_segments_in_range(), 0);
}
END_TEST

static Suite *run_suite(void)
{
	Suite *s = suite_create("run");
	TCase *tc = tcase_create("helpers");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, helpers_run_beside_workers_and_stop_after_them);
	tcase_add_test(tc, failing_helper_fails_the_run);
	tcase_add_test(tc, helpers_refused_beside_processes);
	suite_add_tcase(s, tc);

	tc = tcase_create("matrix");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, faults_agree_for_every_pattern_kind_backing, 0,
			    24);
	tcase_add_loop_test(tc, per_thread_vmas_show_backing, 0, 3);
	tcase_add_loop_test(tc, rounds_size_to_whole_slices, 0,
			    (int)(sizeof(roundings) / sizeof(roundings[0])));
	suite_add_tcase(s, tc);

	tc = tcase_create("touch");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, every_touch_mode_faults_every_page, 0,
			    4 * NTOUCH);
	tcase_add_test(tc, touch_modes_leave_expected_bytes);
	tcase_add_test(tc, mlock_splits_shared_vma_at_region);
	tcase_add_test(tc, mlock_locks_each_per_thread_vma);
	tcase_add_test(tc, mlock_in_children_leaves_parent_unlocked);
	suite_add_tcase(s, tc);

	tc = tcase_create("repeat");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, rounds_multiply_pages_and_faults, 0,
			    2 * NREPEAT);
	tcase_add_loop_test(tc, duration_makes_at_least_one_round, 0, 2);
	tcase_add_loop_test(tc, warmup_is_not_measured, 0, 2);
	suite_add_tcase(s, tc);

	tc = tcase_create("refused");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, refuses_munmap_zap_for_shared_vma);
	tcase_add_test(tc, refuses_munmap_zap_for_sysv);
	tcase_add_loop_test(tc, refuses_mlock_with_rounds_or_duration, 0, 24);
	tcase_add_test(tc, refuses_more_workers_than_cpus);
	suite_add_tcase(s, tc);

	tc = tcase_create("sysv");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, sysv_cleanup_removes_only_segments_of_dead_creators);
	tcase_add_test(tc, sysv_cleanup_leaves_other_users_segments);
	tcase_add_test(tc, sysv_run_leaves_no_segment_of_the_range);
	suite_add_tcase(s, tc);

	tc = tcase_create("privilege");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, shm_lock_locks_segment, 0, 4);
	tcase_add_loop_test(tc, shm_lock_over_limit_fails_cleanly, 0, 2);
	tcase_add_loop_test(tc, mlock_over_limit_names_worker, 0, 2);
	tcase_add_loop_test(tc, sched_fifo_runs_or_refuses_cleanly, 0, 2);
	suite_add_tcase(s, tc);

	tc = tcase_create("embedding");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, runs_beside_threads_of_caller, 0, 4);
	tcase_add_loop_test(tc, caller_runs_worker_0, 0, 12);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return fgc_main(run_suite());
}
