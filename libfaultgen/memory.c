// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * memory.c - the memory the workers fault: reservations, the layout of
 * the mappings (backing.c makes them), THP advice and NUMA policy, and
 * zapping.
 *
 * Setup happens here, before the workers start, so that none of it is in
 * the measured interval.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statfs.h>

#include <linux/magic.h>

/*
 * Reserves len bytes of PROT_NONE address space starting at an
 * align-aligned address (*start), with at least one PROT_NONE page before
 * and after it: mappings placed inside with MAP_FIXED never merge with a
 * neighbour of the same flags (a thread stack, the caller's heap), nor
 * with each other when a guard page separates them.  NORESERVE: only what
 * is mapped over it later is committed.
 */
int fg_reserve(size_t len, size_t align, struct fg_resv *r, char **start)
{
	size_t page = (size_t)fg_pagesize();
	uintptr_t raw, at, end;
	void *p;

	if (align < page)
		align = page;
	if (len > SIZE_MAX - align - 2 * page)
		return -ENOMEM;
	r->raw_len = len + align + 2 * page;
	p = mmap(NULL, r->raw_len, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		r->raw = NULL;
		return -errno;
	}
	raw = (uintptr_t)p;
	at = fg_round_up(raw + page, align);
	end = raw + r->raw_len;
	/* Keep one guard page either side, give the rest back. */
	if (at - page > raw)
		munmap(p, at - page - raw);
	if (end > at + len + page)
		munmap((void *)(at + len + page), end - (at + len + page));
	r->raw = (char *)(at - page);
	r->raw_len = len + 2 * page;
	*start = (char *)at;
	return 0;
}

void fg_resv_release(struct fg_resv *r)
{
	if (r->raw)
		munmap(r->raw, r->raw_len);
	r->raw = NULL;
	r->raw_len = 0;
}

/* THP advice (thp, as the caller decided it) and the NUMA policy of a
 * fresh mapping. */
int fg_advise(const struct faultgen_run *run, void *addr, size_t len,
	      enum faultgen_thp thp)
{
	if (thp == FAULTGEN_THP_HUGEPAGE && madvise(addr, len, MADV_HUGEPAGE) < 0)
		return -errno;
	if (thp == FAULTGEN_THP_NOHUGEPAGE &&
	    madvise(addr, len, MADV_NOHUGEPAGE) < 0)
		return -errno;
	return fg_numa_policy(run, addr, len);
}

static int map_shared_vma(struct faultgen_run *run)
{
	unsigned int n = run->attr.nr_workers;
	int ret;

	if (run->attr.region) {
		run->base = run->attr.region;
		run->base_len = run->attr.region_len;
		run->base_owned = false;
	} else {
		ret = run->backing->map(run, run->base_len, NULL, false, 0,
					&run->base, &run->base_id);
		if (ret)
			return ret;
		run->base_owned = true;
		ret = fg_advise(run, run->base, run->base_len, run->attr.thp);
		if (ret)
			return ret;
	}
	for (unsigned int i = 0; i < n; i++) {
		size_t off = (size_t)i * run->slice_len;

		run->waddr[i] = run->base + off;
		run->wlen[i] = off >= run->base_len ? 0 :
			       run->base_len - off < run->slice_len ?
						     run->base_len - off :
						     run->slice_len;
	}
	return 0;
}

/*
 * One mapping per worker inside a reservation, a PROT_NONE page between
 * each two: adjacent anonymous mappings of the same protection would
 * merge into one VMA.
 */
static int map_per_thread(struct faultgen_run *run)
{
	unsigned int n = run->attr.nr_workers;
	size_t guard = (size_t)run->pagesize;
	size_t stride = run->slice_len + guard;
	int ret;

	if (stride && (size_t)n > SIZE_MAX / stride)
		return -ENOMEM;
	run->base_len = stride * n - guard;
	ret = fg_reserve(run->base_len, guard, &run->resv, &run->base);
	if (ret)
		return ret;
	run->base_owned = true;
	for (unsigned int i = 0; i < n; i++) {
		char *at = run->base + (size_t)i * stride;

		ret = run->backing->map(run, run->slice_len, at, false,
					(off_t)i * (off_t)run->slice_len,
					&run->waddr[i], &run->wid[i]);
		if (ret)
			return ret;
		run->wlen[i] = run->slice_len;
		ret = fg_advise(run, run->waddr[i], run->slice_len,
				run->attr.thp);
		if (ret)
			return ret;
	}
	return 0;
}

/* 0.12x's arithmetic: the pages of each worker's slice, the size (or
 * the region) rounded up to whole pages of ps bytes for every worker. */
static uint64_t slice_pages_of(const struct faultgen_attr *a, uint64_t ps)
{
	uint64_t pages;
	unsigned int n = a->nr_workers ? a->nr_workers : 1;

	if (a->region)
		pages = a->region_len / ps;
	else
		pages = (a->size + ps - 1) / ps;
	return (pages + n - 1) / n;
}

/*
 * The memory a run of a maps for its workers, and the most of it that it
 * may hold at once (faultgen_attr_get_memory(3)): twice the mapping
 * where each page is held twice, a private mapping of shmem written (the
 * file's page and the private copy) and cow-fork (the parent's pages and
 * their copies); none for huge pages (the pool's) or caller memory.
 * p: a's pattern, which says whether it maps slices and holds twice.
 */
void fg_attr_memory(const struct faultgen_attr *a,
		    const struct fg_pattern *p, uint64_t *mapped,
		    uint64_t *held)
{
	uint64_t ps = (uint64_t)fg_backing_pagesize(a);
	struct statfs sf;
	bool shmem_file = a->backing == FAULTGEN_BACKING_MEMFD ||
			  (a->backing == FAULTGEN_BACKING_FILE &&
			   a->backing_path && statfs(a->backing_path, &sf) == 0 &&
			   (unsigned long)sf.f_type == TMPFS_MAGIC);
	bool twice = (p && p->held_twice) ||
		     (shmem_file && !a->share &&
		      a->touch != FAULTGEN_TOUCH_READ);

	if (p && p->memory) {
		p->memory(a, mapped, held);
		return;
	}
	if (p && p->slices)
		*mapped = slice_pages_of(a, ps) * ps *
			  (a->nr_workers ? a->nr_workers : 1);
	else
		*mapped = (a->size + ps - 1) / ps * ps;
	if (a->region || ps != (uint64_t)fg_pagesize())
		*held = 0;
	else
		*held = twice ? 2 * *mapped : *mapped;
}

static int size_slices(struct faultgen_run *run)
{
	const struct faultgen_attr *a = &run->attr;
	uint64_t slice_pages, ps = (uint64_t)run->pagesize;
	unsigned int n = a->nr_workers;

	slice_pages = slice_pages_of(a, ps);
	if (slice_pages > SIZE_MAX / ps / n)
		return -ENOMEM;
	run->slice_pages = slice_pages;
	run->slice_len = (size_t)(slice_pages * ps);
	run->base_len = a->region ? a->region_len : run->slice_len * n;
	/* Every worker's slice at its own offset, however the mappings are
	 * laid out (map_per_thread maps worker i's at i slices in). */
	run->file_len = run->slice_len * n;
	return 0;
}

int fg_memory_setup(struct faultgen_run *run)
{
	const struct faultgen_attr *a = &run->attr;
	unsigned int n = a->nr_workers;
	int ret = size_slices(run);

	if (ret)
		return ret;
	run->waddr = calloc(n, sizeof(*run->waddr));
	run->wlen = calloc(n, sizeof(*run->wlen));
	run->wid = malloc(n * sizeof(*run->wid));
	if (!run->waddr || !run->wlen || !run->wid)
		return -ENOMEM;
	for (unsigned int i = 0; i < n; i++)
		run->wid[i] = -1;
	if (run->backing->prepare) {
		ret = run->backing->prepare(run);
		if (ret)
			return ret;
	}
	if (run->ops->own_mappings)
		return map_per_thread(run);
	return map_shared_vma(run);
}

void fg_memory_release(struct faultgen_run *run)
{
	const struct fg_backing *b = run->backing;
	unsigned int n = run->attr.nr_workers;

	if (run->waddr && run->wid) {
		for (unsigned int i = 0; i < n; i++)
			if (run->waddr[i] && run->ops->own_mappings)
				b->unmap(run->waddr[i], run->wlen[i],
					 run->wid[i]);
	}
	if (run->resv.raw)
		fg_resv_release(&run->resv);
	else if (run->base_owned && run->base)
		b->unmap(run->base, run->base_len, run->base_id);
	if (b->release)
		b->release(run);
	run->base = NULL;
	run->base_owned = false;
	run->base_id = -1;
	free(run->waddr);
	free(run->wlen);
	free(run->wid);
	run->waddr = NULL;
	run->wlen = NULL;
	run->wid = NULL;
}

/*
 * Drops worker i's pages so the next pass faults again.  Async-signal-safe
 * (a forked worker calls it).  By munmap: unmapped and mapped again in
 * the same place (per-thread VMAs of a backing that remaps).
 */
static int zap(struct faultgen_run *run, unsigned int i)
{
	const struct fg_backing *b = run->backing;
	char *addr = run->waddr[i], *again;
	size_t len = run->wlen[i];
	int ret;

	if (!len)
		return 0;
	if (run->attr.zap == FAULTGEN_ZAP_DONTNEED)
		return b->zap(run, addr, len);
	if (munmap(addr, len) < 0)
		return -errno;
	ret = b->map(run, len, addr, true,
		     run->ops->own_mappings ? (off_t)i * (off_t)run->slice_len :
					      addr - run->base,
		     &again, &run->wid[i]);
	if (ret)
		return ret;
	return fg_advise(run, addr, len, run->attr.thp);
}

/* The zap, its mmap_lock acquisitions counted apart from the faults'
 * (lockpaths.c); before it, the worker's ring of lock waits read when
 * half full (lockwaits.c). */
int fg_zap(struct faultgen_run *run, unsigned int i)
{
	fg_wait_worker_tick(run, i);
	return fg_lock_zap(run, i, zap);
}
