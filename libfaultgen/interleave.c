// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * interleave.c - the shared VMA dealt in blocks of pages
 * (faultgen_attr_set_interleave): block b of K pages to worker b mod N,
 * instead of one contiguous slice each.  The Go heap's shape: workers
 * fault neighbouring pages, so they meet in the same page table page and
 * contend on its lock, not only on the VMA's.
 *
 * The memory is the slices' (pages rounded up to whole slices), so a run
 * faults the same pages with either layout.  One pass only: a worker's
 * zap of its blocks would be a call per block, another loop than the
 * one measured; for the same reason the touch is a write or a read of
 * each page, not a call per block (memset, mlock, populate).  With
 * latency, one touch in N of each worker's pages is timed (latency.c),
 * in a loop of its own.  The loop runs in forked workers too: system
 * calls and stores only.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>

int fg_interleave_check(const struct faultgen_attr *a,
			struct faultgen_conflict *c)
{
	if (!a->interleave)
		return 0;
	if (fg_attr_repeats(a))
		return fg_conflict(c, FAULTGEN_SETTING_INTERLEAVE,
				   FAULTGEN_SETTING_REPEAT,
				   "an interleaved layout is faulted once: a "
				   "worker cannot zap its blocks alone in one "
				   "call");
	if (a->touch != FAULTGEN_TOUCH_WRITE && a->touch != FAULTGEN_TOUCH_READ)
		return fg_conflict(c, FAULTGEN_SETTING_INTERLEAVE,
				   FAULTGEN_SETTING_TOUCH,
				   "interleaved workers write or read page by "
				   "page; a call per block would be another "
				   "measurement");
	if (a->numa == FAULTGEN_NUMA_WORKER_LOCAL)
		return fg_conflict(c, FAULTGEN_SETTING_INTERLEAVE,
				   FAULTGEN_SETTING_NUMA,
				   "interleaved workers own no slice to bind");
	return 0;
}

static uint64_t total_pages(const struct faultgen_run *run)
{
	return run->base_len / (size_t)run->pagesize;
}

/* Pages of block b (the last may be short). */
static uint64_t block_pages(const struct faultgen_run *run, uint64_t b)
{
	uint64_t k = run->attr.interleave, total = total_pages(run);

	return total - b * k < k ? total - b * k : k;
}

/*
 * Once mapped: each worker's address is its first block, its length the
 * bytes of all its blocks (faultgen_run_worker's addr and len).
 */
void fg_interleave_layout(struct faultgen_run *run)
{
	unsigned int n = run->attr.nr_workers;
	uint64_t k = run->attr.interleave, ps = (uint64_t)run->pagesize;
	uint64_t blocks = (total_pages(run) + k - 1) / k;

	for (unsigned int i = 0; i < n; i++) {
		uint64_t pages = 0;

		for (uint64_t b = i; b < blocks; b += n)
			pages += block_pages(run, b);
		run->waddr[i] = i < blocks ? run->base + i * k * ps : run->base;
		run->wlen[i] = (size_t)(pages * ps);
	}
}

/*
 * The write touch stores the worker's stamp (its index mod 255, plus 1)
 * where the slices' loop stores 1: which worker faulted a page can then
 * be read from the page.
 */
FG_NO_ASAN static void write_block(const struct faultgen_run *run, char *addr,
				   uint64_t pages, unsigned char stamp)
{
	size_t ps = (size_t)run->pagesize, cl = run->cacheline;
	unsigned int lines = run->attr.cachelines;

	for (uint64_t pg = 0; pg < pages; pg++) {
		volatile unsigned char *p =
			(volatile unsigned char *)addr + pg * ps;

		for (unsigned int c = 0; c < lines; c++)
			p[c * cl] = stamp;
	}
}

FG_NO_ASAN static void read_block(const struct faultgen_run *run,
				  const char *addr, uint64_t pages)
{
	size_t ps = (size_t)run->pagesize;
	unsigned int sum = 0;

	for (uint64_t pg = 0; pg < pages; pg++)
		sum += *(const volatile char *)(addr + pg * ps);
	(void)sum;
}

/* A block's pages counted, and every FG_CANCEL_EVERY pages whether the run
 * was cancelled: true then. */
static bool block_done(const struct faultgen_run *run, uint64_t pages,
		       uint64_t *done, uint64_t *since)
{
	*done += pages;
	*since += pages;
	if (*since < FG_CANCEL_EVERY)
		return false;
	*since = 0;
	return fg_cancel_requested(run->sh);
}

/* Worker i's blocks, in ascending order. */
static int touch_blocks(struct faultgen_run *run, unsigned int i,
			uint64_t *done)
{
	unsigned int n = run->attr.nr_workers;
	uint64_t k = run->attr.interleave, ps = (uint64_t)run->pagesize;
	uint64_t blocks = (total_pages(run) + k - 1) / k, since = 0;
	unsigned char stamp = (unsigned char)(i % 255 + 1);

	for (uint64_t b = i; b < blocks; b += n) {
		char *at = run->base + b * k * ps;
		uint64_t pages = block_pages(run, b);

		if (run->attr.touch == FAULTGEN_TOUCH_WRITE)
			write_block(run, at, pages, stamp);
		else
			read_block(run, at, pages);
		if (block_done(run, pages, done, &since))
			return -ECANCELED;
	}
	return 0;
}

/*
 * The same blocks with latency (latency.c): one touch in N of the
 * worker's pages timed, counted across its blocks.  A loop of its own,
 * so that the untimed one stays as it was.
 */
static int timed_blocks(struct faultgen_run *run, unsigned int i,
			uint64_t *done)
{
	unsigned int n = run->attr.nr_workers, left = 1;
	uint64_t k = run->attr.interleave, ps = (uint64_t)run->pagesize;
	uint64_t blocks = (total_pages(run) + k - 1) / k, since = 0;
	unsigned char stamp = (unsigned char)(i % 255 + 1);

	for (uint64_t b = i; b < blocks; b += n) {
		uint64_t pages = block_pages(run, b);

		fg_lat_block(run, i, run->base + b * k * ps,
			     (size_t)(pages * ps), stamp, &left);
		if (block_done(run, pages, done, &since))
			return -ECANCELED;
	}
	return 0;
}

/* Where worker i's pages are (set_node_pages): block by block. */
static int count_nodes(struct faultgen_run *run, unsigned int i)
{
	uint64_t *counts = run->node_pages + (size_t)i * run->report_nodes;
	unsigned int n = run->attr.nr_workers;
	uint64_t k = run->attr.interleave, ps = (uint64_t)run->pagesize;
	uint64_t blocks = (total_pages(run) + k - 1) / k;
	int ret = 0;

	for (uint64_t b = i; b < blocks && !ret; b += n)
		ret = fg_numa_count(run->base + b * k * ps,
				    (size_t)(block_pages(run, b) * ps),
				    (size_t)ps, counts, run->report_nodes);
	return ret;
}

/* One worker of the interleaved layout (struct fg_work's body). */
int fg_interleave_work(struct faultgen_run *run, unsigned int i)
{
	struct fg_wstat *w = &run->sh->w[i];
	bool process = fg_counts_process(run, i);
	struct fg_usage at;
	uint64_t pages = 0;
	int ret;

	if (run->lat)
		fg_lat_begin(run, i, process);
	fg_stat_begin(w, &at, process);
	fg_measure_begin(run);
	ret = run->lat ? timed_blocks(run, i, &pages) :
			 touch_blocks(run, i, &pages);
	if (!ret)
		fg_stat_end(w, &at, process);
	fg_measure_end(run);
	if (ret)
		return ret;
	if (run->lat)
		fg_lat_end(run, i, process);
	w->fault_ns = w->end_ns - w->start_ns;
	w->rounds = 1;
	w->pages = pages;
	if (run->node_pages)
		ret = count_nodes(run, i);
	return ret;
}
