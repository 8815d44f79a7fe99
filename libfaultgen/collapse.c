// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * collapse.c - read-only THP collapse (FAULTGEN_RO_COLLAPSE).
 *
 * A 2 MiB-aligned region is populated with 4 KiB pages, each stamped with
 * its own content, made non-writable (mprotect, or a live forked child
 * sharing the pages) or left writable as a control, then collapsed by
 * MADV_COLLAPSE (each worker thread its own ranges) or left to
 * khugepaged.  Kernels before the read-only collapse work refused any
 * range without a writable PTE; khugepaged also refuses ranges with more
 * than max_ptes_shared shared PTEs, which MADV_COLLAPSE ignores.  The
 * result tells these apart, and checks that every page kept its content.
 *
 * The system's THP settings are only read, never written.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* Page reads of a timed sweep, at least: enough passes to average over. */
#define SWEEP_READS (1u << 19)
#define SWEEP_SEED 0x9e3779b97f4a7c15ULL

struct fg_range {
	enum faultgen_range_state state;
	int error;       /* -errno of MADV_COLLAPSE */
	bool called;     /* MADV_COLLAPSE was asked */
	int64_t ns;
};

/* One look at khugepaged's progress. */
struct fg_progress {
	double t_s;
	unsigned int collapsed;
};

/* The pattern's state (fg_pattern_state); `active` from exec to
 * release. */
struct fg_collapse_state {
	bool active;
	struct fg_resv resv; /* PROT_NONE guards: no VMA merges */
	char *region;
	size_t len;
	size_t hpage;
	unsigned int nr_ranges, per_worker;
	unsigned int huge_before; /* ranges already huge: not eligible */
	struct fg_range *ranges;
	bool *huge; /* per range: PMD-mapped at the last look */
	size_t pages;
	uint32_t *order; /* the read sweep's page order */
	struct fg_progress *progress;
	unsigned int nr_progress, cap_progress;
	pid_t child;  /* fork protection: the process sharing the pages */
	int child_fd; /* its pipe: closing it lets the child go */
	int pagemap_fd;
	struct faultgen_collapse_result res;
};

static const char *const vmstat_names[] = {
	"thp_collapse_alloc",
	"thp_collapse_alloc_failed",
	"thp_scan_exceed_share_pte",
};

static bool stop_requested(const struct faultgen_run *run)
{
	return atomic_load(&run->cancelled) || fg_cancel_requested(run->sh);
}

static uint64_t stamp(size_t pg)
{
	/* splitmix64: a bijection, so no two pages hold the same stamp. */
	uint64_t z = (uint64_t)pg + SWEEP_SEED;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Ranges: the size rounded up to huge pages, then to whole slices. */
static int plan(struct faultgen_run *run, struct fg_collapse_state *st)
{
	const struct faultgen_attr *a = &run->attr;
	unsigned int n = a->nr_workers;
	size_t ps = (size_t)run->pagesize;
	uint64_t ranges;
	int ret;

	ret = fg_hpage_size(&st->hpage);
	if (ret)
		return ret;
	if (st->hpage < ps)
		return -EINVAL;
	ranges = a->size / st->hpage + (a->size % st->hpage != 0);
	if (!ranges)
		ranges = 1;
	ranges = (ranges + n - 1) / n * n;
	if (ranges > UINT32_MAX || ranges > (SIZE_MAX / 4) / st->hpage ||
	    ranges * (st->hpage / ps) > UINT32_MAX)
		return -ENOMEM;
	st->nr_ranges = (unsigned int)ranges;
	st->per_worker = st->nr_ranges / n;
	st->len = (size_t)ranges * st->hpage;
	st->pages = st->len / ps;
	st->ranges = calloc(st->nr_ranges, sizeof(*st->ranges));
	st->huge = calloc(st->nr_ranges, sizeof(*st->huge));
	st->order = malloc(st->pages * sizeof(*st->order));
	if (!st->ranges || !st->huge || !st->order)
		return -ENOMEM;
	return 0;
}

/* A fixed pseudo-random page order (Fisher-Yates, fixed seed), so the
 * sweeps before and after the collapse read the same sequence. */
static void make_order(struct fg_collapse_state *st)
{
	uint64_t x = SWEEP_SEED;

	for (size_t i = 0; i < st->pages; i++)
		st->order[i] = (uint32_t)i;
	if (st->pages < 2)
		return;
	for (size_t i = st->pages - 1; i > 0; i--) {
		size_t j;
		uint32_t t;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		j = (size_t)(x % (i + 1));
		t = st->order[i];
		st->order[i] = st->order[j];
		st->order[j] = t;
	}
}

/* The region, huge-page aligned, between PROT_NONE guards. */
static int map_region(struct fg_collapse_state *st)
{
	char *at = NULL;
	void *p;
	int ret = fg_reserve(st->len, st->hpage, &st->resv, &at);

	if (ret)
		return ret;
	p = mmap(at, st->len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	st->region = p;
	return 0;
}

/*
 * 4 KiB pages whatever the sysfs THP mode: MADV_NOHUGEPAGE first.  Its
 * mark makes MADV_COLLAPSE fail with EINVAL, so it is cleared (with
 * MADV_HUGEPAGE) only once the pages are non-writable.  A kernel without
 * THP answers EINVAL and has only small pages anyway.
 */
static int populate(struct fg_collapse_state *st, size_t ps)
{
	if (madvise(st->region, st->len, MADV_NOHUGEPAGE) < 0 &&
	    errno != EINVAL)
		return -errno;
	for (size_t pg = 0; pg < st->pages; pg++) {
		uint64_t *p = (uint64_t *)(st->region + pg * ps);

		p[0] = stamp(pg);
		p[ps / sizeof(*p) - 1] = ~stamp(pg);
	}
	return 0;
}

static bool content_unchanged(const struct fg_collapse_state *st, size_t ps)
{
	for (size_t pg = 0; pg < st->pages; pg++) {
		const uint64_t *p = (const uint64_t *)(st->region + pg * ps);

		if (p[0] != stamp(pg) || p[ps / sizeof(*p) - 1] != ~stamp(pg))
			return false;
	}
	return true;
}

/*
 * One read per page in the fixed order, each at a different cacheline of
 * its page (so the lines spread over the cache sets) and each address
 * depending on the value read before: the sweep measures latency, where
 * TLB misses show, rather than how many misses overlap.
 */
static uint64_t sweep_pass(const struct fg_collapse_state *st, size_t ps,
			   size_t cl, uint64_t dep)
{
	size_t lines = ps / cl;
	uint64_t v = 0;

	for (size_t k = 0; k < st->pages; k++) {
		size_t pg = st->order[k];
		const char *p = st->region + pg * ps + (pg % lines) * cl;

		v = *(const volatile uint64_t *)(p + (v & dep));
	}
	return v;
}

static double sweep_ns(const struct fg_collapse_state *st, size_t ps,
		       size_t cl)
{
	static const volatile uint64_t zero;
	uint64_t passes = SWEEP_READS / st->pages, sink = 0;
	uint64_t dep = zero;
	int64_t t0;

	if (!passes)
		passes = 1;
	sink += sweep_pass(st, ps, cl, dep); /* warm the caches and TLB */
	t0 = fg_now_ns();
	for (uint64_t i = 0; i < passes; i++)
		sink += sweep_pass(st, ps, cl, dep);
	t0 = fg_now_ns() - t0;
	__asm__ __volatile__("" : : "r"(sink));
	return (double)t0 / (double)(passes * st->pages);
}

/*
 * fork protection: a child that lives until we close its pipe.  The
 * parent may have other threads, so the child only makes system calls
 * until _exit.
 */
static int fork_holder(struct fg_collapse_state *st)
{
	int fd[2];
	pid_t pid;
	char c;

	if (pipe2(fd, O_CLOEXEC) < 0)
		return errno == ENOMEM ? -ENOMEM : -EAGAIN;
	pid = fork();
	if (pid < 0) {
		int err = errno == ENOMEM ? -ENOMEM : -EAGAIN;

		close(fd[0]);
		close(fd[1]);
		return err;
	}
	if (pid == 0) {
		close(fd[1]);
		while (read(fd[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(fd[0]);
	st->child = pid;
	st->child_fd = fd[1];
	return 0;
}

/* Our own child only: an embedding program's children are not ours. */
static void release_holder(struct fg_collapse_state *st)
{
	if (st->child > 0) {
		kill(st->child, SIGKILL);
		while (waitpid(st->child, NULL, 0) < 0 && errno == EINTR)
			;
		st->child = -1;
	}
	if (st->child_fd >= 0) {
		close(st->child_fd);
		st->child_fd = -1;
	}
}

static int protect(struct faultgen_run *run, struct fg_collapse_state *st)
{
	switch (run->attr.protect) {
	case FAULTGEN_PROTECT_MPROTECT:
		if (mprotect(st->region, st->len, PROT_READ) < 0)
			return -ENOMEM;
		return 0;
	case FAULTGEN_PROTECT_FORK:
		return fork_holder(st);
	case FAULTGEN_PROTECT_WRITABLE:
		return 0;
	}
	return -EINVAL;
}

/*
 * How many ranges are collapsed now: which ones too with PAGEMAP_SCAN,
 * else the sum of AnonHugePages (no range then known to be huge).
 */
static int count_huge(struct fg_collapse_state *st)
{
	uint64_t kb;
	int n;

	if (st->pagemap_fd >= 0)
		return fg_pagemap_huge(st->pagemap_fd, st->region, st->len,
				       st->hpage, st->huge);
	n = fg_smaps_anon_huge(st->region, st->len, &kb);
	if (n < 0)
		return n;
	return (int)(kb * 1024 / st->hpage);
}

/*
 * One worker: MADV_COLLAPSE of each of its ranges, each timed.  With
 * latency (latency.c) those times are the worker's values, one per call,
 * put in its histogram after the loop, which stays as it was; the
 * populate before and the read sweeps around are not timed per access.
 */
static int collapse_body(struct faultgen_run *run, unsigned int i)
{
	struct fg_collapse_state *st = fg_pattern_state(run);
	struct fg_wstat *w = &run->sh->w[i];
	unsigned int first = i * st->per_worker;
	struct fg_usage at;
	int ret = 0;

	if (run->lat)
		fg_lat_begin(run, i, false);
	fg_stat_begin(w, &at, false);
	for (unsigned int r = first; r < first + st->per_worker; r++) {
		struct fg_range *rg = &st->ranges[r];
		char *addr = st->region + (size_t)r * st->hpage;
		int64_t t0;

		if (stop_requested(run)) {
			ret = -ECANCELED;
			break;
		}
		t0 = fg_now_ns();
		rg->error = fg_madv_collapse(addr, st->hpage);
		rg->ns = fg_now_ns() - t0;
		rg->called = true;
	}
	fg_stat_end(w, &at, false);
	if (run->lat) {
		fg_lat_end(run, i, false);
		for (unsigned int r = first; r < first + st->per_worker; r++)
			if (st->ranges[r].called)
				fg_lat_add(run, i, (uint64_t)st->ranges[r].ns);
	}
	return ret;
}

static int add_progress(struct fg_collapse_state *st, int64_t ns,
			unsigned int collapsed)
{
	if (st->nr_progress == st->cap_progress) {
		unsigned int cap = st->cap_progress ? 2 * st->cap_progress : 64;
		void *p = realloc(st->progress, cap * sizeof(*st->progress));

		if (!p)
			return -ENOMEM;
		st->progress = p;
		st->cap_progress = cap;
	}
	st->progress[st->nr_progress].t_s = (double)ns / 1e9;
	st->progress[st->nr_progress].collapsed = collapsed;
	st->nr_progress++;
	return 0;
}

/*
 * MADV_HUGEPAGE enrols the region with khugepaged; then look every
 * "poll" seconds until every range is collapsed or the timeout passes.
 * khugepaged needs the mmap lock the region's walk takes: look slowly.
 * A cancel wakes the futex word the gates use.
 */
static int wait_khugepaged(struct faultgen_run *run,
			   struct fg_collapse_state *st, unsigned int eligible,
			   int64_t *t0, int64_t *t1)
{
	int64_t poll_ns = (int64_t)(fg_own_setting(run, "poll").d * 1e9);
	int64_t deadline, now;
	int n, ret;

	*t0 = *t1 = fg_now_ns();
	if (madvise(st->region, st->len, MADV_HUGEPAGE) < 0)
		return errno == EINVAL ? 1 : -ENOMEM;
	deadline = *t0 + (int64_t)(run->attr.timeout * 1e9);
	for (;;) {
		uint32_t done = atomic_load(&run->sh->done);

		n = count_huge(st);
		now = fg_now_ns();
		if (n < 0)
			return n;
		n -= n < (int)st->huge_before ? n : (int)st->huge_before;
		ret = add_progress(st, now - *t0, (unsigned int)n);
		if (ret)
			return ret;
		*t1 = now;
		if ((unsigned int)n >= eligible || now >= deadline)
			return 0;
		if (stop_requested(run))
			return -ECANCELED;
		fg_futex_wait(&run->sh->done, done,
			      deadline - now < poll_ns ? deadline - now :
							 poll_ns);
		if (stop_requested(run))
			return -ECANCELED;
	}
}

/* What a MADV_COLLAPSE answer means (faultgen_collapse_verdict(3)). */
FG_TESTABLE enum faultgen_verdict
fg_collapse_verdict(enum faultgen_protect protect, unsigned int ranges,
		    unsigned int collapsed, int first_error)
{
	if (!ranges || (unsigned int)protect > FAULTGEN_PROTECT_WRITABLE)
		return FAULTGEN_VERDICT_NONE;
	if (collapsed >= ranges)
		return FAULTGEN_VERDICT_COLLAPSED;
	if (collapsed)
		return FAULTGEN_VERDICT_PARTIAL;
	switch (first_error) {
	case -EINVAL:
		/* Also the answer to an advice the kernel does not know:
		 * on a writable range nothing else explains it. */
		return protect == FAULTGEN_PROTECT_WRITABLE ?
			       FAULTGEN_VERDICT_UNSUPPORTED :
			       FAULTGEN_VERDICT_REFUSED_RO;
	case -EOPNOTSUPP:
		return FAULTGEN_VERDICT_UNSUPPORTED;
	default:
		return FAULTGEN_VERDICT_NONE;
	}
}

/*
 * khugepaged gives no answer, only evidence (thp_on: the PMD-size THP
 * mode is not "never"; the others are deltas over the wait): the
 * shared-PTE counter says it refused shared ranges; two full scans
 * without a collapse (and no allocation failure) say it looked at every
 * range and refused them.  Anything less means it may simply not have
 * got there yet.
 */
FG_TESTABLE enum faultgen_verdict
fg_khugepaged_verdict(enum faultgen_protect protect, unsigned int ranges,
		      unsigned int collapsed, bool thp_on, uint64_t full_scans,
		      uint64_t exceed_shared, uint64_t alloc_failed)
{
	if (!thp_on)
		return fg_collapse_verdict(protect, ranges, 0, -EOPNOTSUPP);
	if (ranges && !collapsed) {
		if (protect == FAULTGEN_PROTECT_FORK && exceed_shared)
			return FAULTGEN_VERDICT_REFUSED_SHARED;
		if (protect != FAULTGEN_PROTECT_WRITABLE && full_scans >= 2 &&
		    !alloc_failed)
			return FAULTGEN_VERDICT_REFUSED_RO;
	}
	return fg_collapse_verdict(protect, ranges, collapsed, 0);
}

static uint64_t delta(uint64_t after, uint64_t before)
{
	return after > before ? after - before : 0;
}

/* Range states and counts after MADV_COLLAPSE, and the verdict. */
static void judge_madvise(struct faultgen_run *run,
			  struct fg_collapse_state *st, unsigned int eligible,
			  bool scanned)
{
	struct faultgen_collapse_result *res = &st->res;
	int64_t sum = 0;
	unsigned int calls = 0;

	for (unsigned int r = 0; r < st->nr_ranges; r++) {
		struct fg_range *rg = &st->ranges[r];

		if (rg->called) {
			sum += rg->ns;
			calls++;
		}
		if (rg->error) {
			res->failed++;
			if (!res->first_error)
				res->first_error = rg->error;
		}
		if (scanned ? st->huge[r] : rg->called && !rg->error)
			rg->state = FAULTGEN_RANGE_COLLAPSED;
		else if (rg->error)
			rg->state = FAULTGEN_RANGE_FAILED;
		else
			rg->state = FAULTGEN_RANGE_PENDING;
		res->collapsed += rg->state == FAULTGEN_RANGE_COLLAPSED;
	}
	res->collapsed -= res->collapsed < st->huge_before ? res->collapsed :
							      st->huge_before;
	res->range_mean_s = calls ? (double)sum / calls / 1e9 : 0;
	res->verdict = fg_collapse_verdict(run->attr.protect, eligible,
					   res->collapsed, res->first_error);
	if (res->verdict == FAULTGEN_VERDICT_REFUSED_RO) {
		int probe = fg_collapse_probe();

		if (probe == -EINVAL)
			res->verdict = FAULTGEN_VERDICT_UNSUPPORTED;
		else if (probe)
			res->verdict = FAULTGEN_VERDICT_NONE;
	}
}

/* The kernel's counters around the collapse phase. */
struct counters {
	uint64_t vmstat[3];
	uint64_t scans;
};

static int read_counters(struct counters *c)
{
	int ret = fg_vmstat_read(vmstat_names, c->vmstat, 3);

	if (ret < 0)
		return ret;
	return fg_khugepaged_full_scans(&c->scans);
}

static void count_deltas(struct faultgen_collapse_result *res,
			 const struct counters *b, const struct counters *a)
{
	res->khugepaged_full_scans = delta(a->scans, b->scans);
	res->thp_collapse_alloc = delta(a->vmstat[0], b->vmstat[0]);
	res->thp_collapse_alloc_failed = delta(a->vmstat[1], b->vmstat[1]);
	res->thp_scan_exceed_share_pte = delta(a->vmstat[2], b->vmstat[2]);
}

static const struct fg_work collapse_work = {
	.body = collapse_body,
	.barrier = true,
};

/* MADV_COLLAPSE, each worker thread its ranges; the phase spans them. */
static int collapse_by_madvise(struct faultgen_run *run,
			       struct fg_collapse_state *st, int64_t *t0,
			       int64_t *t1)
{
	int ret;

	/* Clears MADV_NOHUGEPAGE's mark, outside the timing. */
	if (madvise(st->region, st->len, MADV_HUGEPAGE) < 0 && errno != EINVAL)
		return -ENOMEM;
	ret = fg_workers_run(run, &collapse_work);
	if (ret)
		return ret;
	*t0 = INT64_MAX;
	*t1 = INT64_MIN;
	for (unsigned int i = 0; i < run->attr.nr_workers; i++) {
		if (run->sh->w[i].start_ns < *t0)
			*t0 = run->sh->w[i].start_ns;
		if (run->sh->w[i].end_ns > *t1)
			*t1 = run->sh->w[i].end_ns;
	}
	return 0;
}

/* khugepaged: the last look is the outcome, per range as well (without
 * PAGEMAP_SCAN no range is known to be huge). */
static void judge_khugepaged(struct faultgen_run *run,
			     struct fg_collapse_state *st,
			     unsigned int eligible, bool thp_on)
{
	struct faultgen_collapse_result *res = &st->res;

	for (unsigned int r = 0; r < st->nr_ranges; r++)
		st->ranges[r].state = st->huge[r] ? FAULTGEN_RANGE_COLLAPSED :
						    FAULTGEN_RANGE_PENDING;
	res->collapsed = st->nr_progress ?
				 st->progress[st->nr_progress - 1].collapsed :
				 0;
	res->verdict = fg_khugepaged_verdict(
		run->attr.protect, eligible, res->collapsed, thp_on,
		res->khugepaged_full_scans, res->thp_scan_exceed_share_pte,
		res->thp_collapse_alloc_failed);
}

/* The collapse phase of either kind, with its counters around it. */
static int collapse_phase(struct faultgen_run *run,
			  struct fg_collapse_state *st, unsigned int eligible)
{
	bool madv = run->attr.collapse == FAULTGEN_COLLAPSE_MADVISE;
	struct counters before, after;
	int64_t t0, t1;
	int thp_on = 1, ret;

	ret = read_counters(&before);
	if (ret)
		return ret;
	if (madv) {
		ret = collapse_by_madvise(run, st, &t0, &t1);
	} else {
		thp_on = fg_thp_pmd_on(st->hpage);
		if (thp_on < 0)
			return thp_on;
		ret = thp_on ? wait_khugepaged(run, st, eligible, &t0, &t1) : 1;
		if (ret > 0) { /* no THP at all, or mode never */
			thp_on = 0;
			t0 = t1 = fg_now_ns();
			ret = 0;
		}
	}
	if (!ret)
		ret = read_counters(&after);
	if (ret)
		return ret;
	count_deltas(&st->res, &before, &after);
	st->res.collapse_s = (double)(t1 - t0) / 1e9;
	if (madv)
		judge_madvise(run, st, eligible,
			      st->pagemap_fd >= 0 && count_huge(st) >= 0);
	else
		judge_khugepaged(run, st, eligible, thp_on);
	return 0;
}

/* faultgen_run_result's figures: the collapse phase is the measurement. */
static void fill_run_result(struct faultgen_run *run,
			    struct fg_collapse_state *st)
{
	struct faultgen_result *r = &run->result;
	unsigned int n = run->attr.nr_workers;
	int64_t t0 = fg_now_ns();

	for (unsigned int i = 0; i < n; i++) {
		struct fg_wstat *w = &run->sh->w[i];

		if (run->attr.collapse == FAULTGEN_COLLAPSE_KHUGEPAGED) {
			/* The kernel's thread worked; ours only waited. */
			w->start_ns = t0;
			w->end_ns = t0 + (int64_t)(st->res.collapse_s * 1e9);
		}
		w->rounds = 1;
		w->pages = (uint64_t)st->per_worker * st->hpage /
			   (uint64_t)run->pagesize;
	}
	fg_measure_fold(run);
	r->bytes = st->len;
	/* Collapsing takes no page faults. */
	r->expected_faults = 0;
	r->faults_agree = fg_faults_agree(0, r->minflt, n);
}

static int setup(struct faultgen_run *run, struct fg_collapse_state *st)
{
	size_t ps = (size_t)run->pagesize;
	unsigned int n = run->attr.nr_workers;
	int ret;

	ret = plan(run, st);
	if (!ret)
		ret = map_region(st);
	/* The memory policy asked (-p: local), or the cpuset's nodes. */
	if (!ret)
		ret = fg_numa_policy(run, st->region, st->len);
	if (ret)
		return ret;
	run->base = st->region;
	run->base_len = st->len;
	run->base_owned = false; /* ours to unmap, with its guards */
	run->slice_len = (size_t)st->per_worker * st->hpage;
	run->lat_call_bytes = st->hpage;
	run->slice_pages = run->slice_len / ps;
	run->waddr = calloc(n, sizeof(*run->waddr));
	run->wlen = calloc(n, sizeof(*run->wlen));
	if (!run->waddr || !run->wlen)
		return -ENOMEM;
	for (unsigned int i = 0; i < n; i++) {
		run->waddr[i] = st->region + (size_t)i * run->slice_len;
		run->wlen[i] = run->slice_len;
	}
	make_order(st);
	return populate(st, ps);
}

/*
 * PAGEMAP_SCAN where the kernel has it; then the ranges already huge,
 * which are not eligible (populated as small pages, there should be
 * none).  Returns the eligible ranges or -errno.
 */
static int eligible_ranges(struct faultgen_run *run,
			   struct fg_collapse_state *st)
{
	int n = fg_pagemap_open();

	if (n < 0 && n != -EOPNOTSUPP)
		return n;
	st->pagemap_fd = n;
	n = count_huge(st);
	if (n < 0 && (run->attr.collapse == FAULTGEN_COLLAPSE_KHUGEPAGED ||
		      n != -EOPNOTSUPP))
		return n; /* khugepaged's work could not be seen either */
	if (n < 0)
		n = 0; /* MADV_COLLAPSE answers for itself */
	st->huge_before = (unsigned int)n;
	return (int)(st->nr_ranges - st->huge_before);
}

static int collapse_exec(struct faultgen_run *run)
{
	size_t ps = (size_t)run->pagesize;
	struct fg_collapse_state *st = fg_pattern_state(run);
	int ret, eligible;

	st->active = true;
	st->child = -1;
	st->child_fd = -1;
	st->pagemap_fd = -1;
	ret = setup(run, st);
	eligible = ret ? ret : eligible_ranges(run, st);
	if (eligible < 0)
		return eligible;
	ret = protect(run, st);
	if (ret)
		return ret;
	if (stop_requested(run))
		return -ECANCELED;
	st->res.sweep_before_ns = sweep_ns(st, ps, run->cacheline);
	ret = collapse_phase(run, st, (unsigned int)eligible);
	if (ret)
		return ret;
	st->res.sweep_after_ns = sweep_ns(st, ps, run->cacheline);
	st->res.content_ok = content_unchanged(st, ps);
	release_holder(st);
	st->res.size = sizeof(st->res);
	st->res.ranges = (unsigned int)eligible;
	st->res.progress_samples = st->nr_progress;
	fill_run_result(run, st);
	return 0;
}

static void collapse_release(struct faultgen_run *run)
{
	struct fg_collapse_state *st = fg_pattern_state(run);

	if (!st || !st->active)
		return;
	release_holder(st);
	if (st->pagemap_fd >= 0)
		close(st->pagemap_fd);
	fg_resv_release(&st->resv);
	if (run->base == st->region)
		run->base = NULL;
	free(st->ranges);
	free(st->huge);
	free(st->order);
	free(st->progress);
	memset(st, 0, sizeof(*st));
	free(run->waddr);
	free(run->wlen);
	run->waddr = NULL;
	run->wlen = NULL;
}

/*
 * Forked workers would collapse their own copies, not the caller's
 * memory; SysV and /dev/zero are not anonymous THP; the region is the
 * library's own, laid out in huge-page ranges.
 */
static int collapse_check(const struct faultgen_attr *a,
			  struct faultgen_conflict *c)
{
	if (a->latency && a->collapse == FAULTGEN_COLLAPSE_KHUGEPAGED)
		return fg_conflict(c, FAULTGEN_SETTING_LATENCY,
				   FAULTGEN_SETTING_COLLAPSE,
				   "khugepaged collapses in a kernel thread: no "
				   "call of the run's to time");
	return 0;
}

static const struct fg_collapse_state *done_state(const struct faultgen_run *run);

/* The collapse result's figures, by name. */
static int result_figure(const struct faultgen_collapse_result *r,
			 unsigned int index, struct faultgen_figure *f)
{
	const struct fg_figure_row figs[] = {
		{ "ranges", r->ranges, "ranges" },
		{ "collapsed", r->collapsed, "ranges" },
		{ "failed", r->failed, "ranges" },
		{ "collapse_s", r->collapse_s, "s" },
		{ "range_mean_s", r->range_mean_s, "s" },
		{ "sweep_before_ns", r->sweep_before_ns, "ns/page" },
		{ "sweep_after_ns", r->sweep_after_ns, "ns/page" },
		{ "content_ok", r->content_ok, "bool" },
	};
	unsigned int n = sizeof(figs) / sizeof(figs[0]);

	return fg_figure_pick(figs, n, index, f);
}

static int collapse_figure(const struct faultgen_run *run, unsigned int index,
			   struct faultgen_figure *f)
{
	const struct fg_collapse_state *st = done_state(run);

	return st ? result_figure(&st->res, index, f) : -ENODATA;
}

/* One MADV_COLLAPSE call per huge-page range. */
static const char *collapse_timed_call(const struct faultgen_run *run,
				       uint64_t *bytes)
{
	*bytes = run->lat_call_bytes;
	return "MADV_COLLAPSE";
}

static const char *const protects[] = { "mprotect", "fork", "writable",
					NULL };
static const char *const collapses[] = { "madvise", "khugepaged", NULL };

static const struct fg_setting collapse_settings[] = {
	{ .name = "protect", .id = FAULTGEN_SETTING_PROTECT,
	  .type = FAULTGEN_TYPE_KEYWORD, .keywords = protects,
	  .offset = FG_AT(protect), .def_text = "mprotect",
	  .value_name = "HOW",
	  .help = "mprotect (default), fork, writable (control)" },
	{ .name = "collapse", .id = FAULTGEN_SETTING_COLLAPSE,
	  .type = FAULTGEN_TYPE_KEYWORD, .keywords = collapses,
	  .offset = FG_AT(collapse), .def_text = "madvise",
	  .value_name = "HOW",
	  .help = "madvise (MADV_COLLAPSE, default), khugepaged" },
	{ .name = "timeout", .id = FAULTGEN_SETTING_TIMEOUT,
	  .type = FAULTGEN_TYPE_SECONDS, .offset = FG_AT(timeout),
	  .max_seconds = FAULTGEN_MAX_SECONDS, .def = { .d = 60.0 },
	  .def_text = "60", .value_name = "SECONDS",
	  .help = "how long to wait for khugepaged (default 60)" },
	{ .name = "poll", .type = FAULTGEN_TYPE_SECONDS, .offset = FG_OWN(0),
	  .max_seconds = FAULTGEN_MAX_SECONDS, .def = { .d = 0.5 },
	  .def_text = "0.5", .value_name = "SECONDS",
	  .help = "how often to count the collapsed ranges while\n"
		  "khugepaged works (default 0.5)" },
};

const struct fg_pattern fg_ro_collapse_pattern = {
	.name = "ro-collapse",
	.title = "Read-only collapse",
	.timed_call = collapse_timed_call,
	.caps = {
		.processes_why = "read-only collapse runs threads: forked "
				 "workers would collapse their own copies",
		.repeat_why = "read-only collapse runs once",
		.backings = FG_BACKING(FAULTGEN_BACKING_ANON),
		.backings_why = "read-only collapse is of anonymous memory",
		.share_why = "read-only collapse is of private anonymous "
			     "memory",
		.region_why = "read-only collapse lays out memory of its own "
			      "in huge-page ranges",
		.default_numa_only = true,
		.numa_why = "read-only collapse takes no NUMA policy",
		.node_pages_why = "read-only collapse faults no pages to count",
	},
	.settings = collapse_settings,
	.nr_settings = sizeof(collapse_settings) /
		       sizeof(collapse_settings[0]),
	.reads = FG_READS_COMMON | FG_SETTING(FAULTGEN_SETTING_LATENCY),
	.state_size = sizeof(struct fg_collapse_state),
	.check = collapse_check,
	.exec = collapse_exec,
	.release = collapse_release,
	.figure = collapse_figure,
};

/* The collapse state of a run that completed, or NULL. */
static const struct fg_collapse_state *done_state(const struct faultgen_run *run)
{
	const struct fg_collapse_state *st;

	if (!run->executed || run->status || run->ops != &fg_ro_collapse_pattern)
		return NULL;
	st = fg_pattern_state(run);
	return st && st->active ? st : NULL;
}

int fg_collapse_result(const struct faultgen_run *run,
		       struct faultgen_collapse_result *res)
{
	const struct fg_collapse_state *st = done_state(run);

	if (!st)
		return -ENODATA;
	fg_copy_sized(res, &st->res, sizeof(st->res));
	return 0;
}

int fg_collapse_range(const struct faultgen_run *run, unsigned int index,
		      struct faultgen_collapse_range *range)
{
	const struct fg_collapse_state *st = done_state(run);
	struct faultgen_collapse_range r;

	if (!st)
		return -ENODATA;
	if (index >= st->nr_ranges)
		return -ERANGE;
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.index = index;
	r.state = st->ranges[index].state;
	r.error = st->ranges[index].error;
	r.collapse_s = (double)st->ranges[index].ns / 1e9;
	r.addr = st->region + (size_t)index * st->hpage;
	fg_copy_sized(range, &r, sizeof(r));
	return 0;
}

int fg_collapse_progress(const struct faultgen_run *run, unsigned int index,
			 double *t_s, unsigned int *collapsed)
{
	const struct fg_collapse_state *st = done_state(run);

	if (!st)
		return -ENODATA;
	if (index >= st->nr_progress)
		return -ERANGE;
	*t_s = st->progress[index].t_s;
	*collapsed = st->progress[index].collapsed;
	return 0;
}

const char *fg_verdict_name(enum faultgen_verdict v)
{
	switch (v) {
	case FAULTGEN_VERDICT_COLLAPSED:
		return "collapsed";
	case FAULTGEN_VERDICT_PARTIAL:
		return "partial";
	case FAULTGEN_VERDICT_REFUSED_RO:
		return "refused-read-only";
	case FAULTGEN_VERDICT_REFUSED_SHARED:
		return "refused-shared";
	case FAULTGEN_VERDICT_UNSUPPORTED:
		return "unsupported";
	case FAULTGEN_VERDICT_NONE:
		return "none";
	}
	return "unknown";
}
