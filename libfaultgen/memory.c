// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * memory.c - the memory the workers fault: reservations, mappings of each
 * backing, THP advice and NUMA policy, and zapping.
 *
 * Setup happens here, before the workers start, so that none of it is in
 * the measured interval.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <unistd.h>

#ifndef SHM_REMAP
#define SHM_REMAP 040000
#endif

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

/*
 * A SysV segment, attached (at `at`, over the reservation, when not NULL)
 * and at once marked for removal: it goes with the last detach, so a run
 * killed from then on cannot leak it.  Only a kill between shmget and
 * that IPC_RMID can, and nothing else happens in between.  The id stays
 * valid while attached, for SHM_LOCK.
 */
static int new_segment(struct faultgen_run *run, size_t len, void *at,
		       char **addr, int *shmid)
{
	int id, err;
	void *p;

	id = shmget(IPC_PRIVATE, len, IPC_CREAT | 0600);
	if (id < 0) {
		/* ENOSPC: SHMMNI segments or SHMALL pages in use; EINVAL:
		 * the size is beyond SHMMAX. */
		return errno == EINVAL ? -EFBIG : -errno;
	}
	p = shmat(id, at, at ? SHM_REMAP : 0);
	err = p == (void *)-1 ? -errno : 0;
	shmctl(id, IPC_RMID, NULL);
	if (err)
		return err;
	if (run->attr.shm_lock && shmctl(id, SHM_LOCK, NULL) < 0) {
		err = -errno;
		shmdt(p);
		return err;
	}
	*addr = p;
	*shmid = id;
	return 0;
}

/* Maps len bytes of the run's backing, at `at` (MAP_FIXED) if not NULL. */
static int map_private(struct faultgen_run *run, size_t len, void *at,
		       char **addr)
{
	int flags = MAP_PRIVATE | (at ? MAP_FIXED : 0);
	int fd = -1;
	void *p;

	if (run->attr.backing == FAULTGEN_BACKING_DEVZERO)
		fd = run->zero_fd;
	else
		flags |= MAP_ANONYMOUS;
	p = mmap(at, len, PROT_READ | PROT_WRITE, flags, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	*addr = p;
	return 0;
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
		if (run->attr.backing == FAULTGEN_BACKING_SYSV)
			ret = new_segment(run, run->base_len, NULL, &run->base,
					  &run->shmid);
		else
			ret = map_private(run, run->base_len, NULL, &run->base);
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
	ret = fg_reserve(run->base_len, 0, &run->resv, &run->base);
	if (ret)
		return ret;
	run->base_owned = true;
	for (unsigned int i = 0; i < n; i++) {
		char *at = run->base + (size_t)i * stride;

		if (run->attr.backing == FAULTGEN_BACKING_SYSV)
			ret = new_segment(run, run->slice_len, at,
					  &run->waddr[i], &run->wshmid[i]);
		else
			ret = map_private(run, run->slice_len, at,
					  &run->waddr[i]);
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

/* 0.12x's arithmetic: pages rounded up to whole slices. */
static int size_slices(struct faultgen_run *run)
{
	const struct faultgen_attr *a = &run->attr;
	uint64_t pages, slice_pages, ps = (uint64_t)run->pagesize;
	unsigned int n = a->nr_workers;

	if (a->region)
		pages = a->region_len / ps;
	else
		pages = (a->size + ps - 1) / ps;
	slice_pages = (pages + n - 1) / n;
	if (slice_pages > SIZE_MAX / ps / n)
		return -ENOMEM;
	run->slice_pages = slice_pages;
	run->slice_len = (size_t)(slice_pages * ps);
	run->base_len = a->region ? a->region_len : run->slice_len * n;
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
	run->wshmid = malloc(n * sizeof(*run->wshmid));
	if (!run->waddr || !run->wlen || !run->wshmid)
		return -ENOMEM;
	for (unsigned int i = 0; i < n; i++)
		run->wshmid[i] = -1;
	if (a->backing == FAULTGEN_BACKING_DEVZERO) {
		run->zero_fd = open("/dev/zero", O_RDWR | O_CLOEXEC);
		if (run->zero_fd < 0)
			return -errno;
	}
	if (run->ops->own_mappings)
		return map_per_thread(run);
	return map_shared_vma(run);
}

void fg_memory_release(struct faultgen_run *run)
{
	unsigned int n = run->attr.nr_workers;

	if (run->waddr && run->wshmid) {
		for (unsigned int i = 0; i < n; i++)
			if (run->wshmid[i] >= 0)
				shmdt(run->waddr[i]);
	}
	if (run->resv.raw)
		fg_resv_release(&run->resv);
	else if (run->base_owned && run->base && run->shmid >= 0)
		shmdt(run->base);
	else if (run->base_owned && run->base)
		munmap(run->base, run->base_len);
	if (run->zero_fd >= 0)
		close(run->zero_fd);
	run->zero_fd = -1;
	run->base = NULL;
	run->base_owned = false;
	run->shmid = -1;
	free(run->waddr);
	free(run->wlen);
	free(run->wshmid);
	run->waddr = NULL;
	run->wlen = NULL;
	run->wshmid = NULL;
}

/*
 * Drops worker i's pages so the next pass faults again.  Async-signal-safe
 * (a forked worker calls it).  SysV: MADV_DONTNEED only unmaps, the pages
 * stay in the segment and re-faults map them again.
 */
int fg_zap(struct faultgen_run *run, unsigned int i)
{
	bool devzero = run->attr.backing == FAULTGEN_BACKING_DEVZERO;
	char *addr = run->waddr[i];
	size_t len = run->wlen[i];
	void *p;

	if (!len)
		return 0;
	if (run->attr.zap == FAULTGEN_ZAP_DONTNEED)
		return madvise(addr, len, MADV_DONTNEED) < 0 ? -errno : 0;
	/* munmap + mmap at the same place (per-thread VMA, not SysV). */
	if (munmap(addr, len) < 0)
		return -errno;
	p = mmap(addr, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_FIXED_NOREPLACE | (devzero ? 0 : MAP_ANONYMOUS),
		 devzero ? run->zero_fd : -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	if (p != addr) {
		munmap(p, len);
		return -EBUSY;
	}
	return fg_advise(run, addr, len, run->attr.thp);
}
