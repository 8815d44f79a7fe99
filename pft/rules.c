// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rules.c - pft's copies of rules the library also holds: which options
 * combine, the chunk size limit, the cacheline size when the cache does
 * not say, the figure of record of a repeated run, and the fault-count
 * check of a result.  (The worker limit and the default warm-up are in
 * pft.h.)  Each is a copy to replace with the library's own answer once
 * the library gives one; nothing else in pft restates a library rule.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <unistd.h>

#include "pft.h"

static void check_pretouch(const struct pft_opts *o, bool repeat_mode)
{
	bool pretouch = o->pattern == FAULTGEN_PRETOUCH;

	if (!pretouch && o->pretouch_given)
		pft_usage_error("--pretouch needs --pattern=pretouch");
	if (!pretouch && o->chunk_given)
		pft_usage_error("--chunk-size needs --pattern=pretouch");
	if (!pretouch && o->jdk_given)
		pft_usage_error("--jdk needs --pattern=pretouch");
	if (!pretouch && o->gc_given)
		pft_usage_error("--gc needs --pattern=pretouch");
	if (!pretouch)
		return;
	if (repeat_mode)
		pft_usage_error("--pattern=pretouch runs once: it takes no "
				"--duration or --rounds");
	if (o->backing_opt)
		pft_usage_error("%s conflicts with --pattern=pretouch (a JVM "
				"heap is anonymous memory)", o->backing_opt);
	if (o->kind == FAULTGEN_PROCESSES)
		pft_usage_error("--pattern=pretouch runs threads, not "
				"processes");
	if (o->touch_opt)
		pft_usage_error("%s conflicts with --pattern=pretouch: choose "
				"the touch with --pretouch", o->touch_opt);
}

/* Combinations no single option can judge; checked after all are read. */
void pft_check_combinations(struct pft_opts *o)
{
	bool repeat_mode = o->rounds || o->duration > 0;
	bool collapse = o->pattern == FAULTGEN_RO_COLLAPSE;

	if (!repeat_mode && o->zap_given)
		pft_usage_error("--zap needs --duration or --rounds");
	if (!repeat_mode && o->warmup_given)
		pft_usage_error("--warmup needs --duration or --rounds");
	if (repeat_mode && !o->warmup_given)
		o->warmup = PFT_DEFAULT_WARMUP;
	if (repeat_mode && o->zap == FAULTGEN_ZAP_MUNMAP &&
	    o->pattern != FAULTGEN_PER_THREAD_VMA)
		pft_usage_error("--zap=munmap needs --pattern=per-thread-vma "
				"(it would split the shared VMA)");
	if (repeat_mode && o->zap == FAULTGEN_ZAP_MUNMAP &&
	    o->backing == FAULTGEN_BACKING_SYSV)
		pft_usage_error("--zap=munmap does not work with SysV memory "
				"(%s)", o->backing_opt);
	if (repeat_mode && o->touch == FAULTGEN_TOUCH_MLOCK)
		pft_usage_error("%s conflicts with %s: locked memory cannot "
				"be zapped", o->touch_opt,
				o->duration > 0 ? "--duration" : "--rounds");
	if (!collapse && o->protect_given)
		pft_usage_error("--protect needs --pattern=ro-collapse");
	if (!collapse && o->collapse_given)
		pft_usage_error("--collapse needs --pattern=ro-collapse");
	if (!collapse && o->timeout_given)
		pft_usage_error("--timeout needs --pattern=ro-collapse");
	if (collapse && repeat_mode)
		pft_usage_error("--pattern=ro-collapse runs once: it takes no "
				"--duration or --rounds");
	if (collapse && o->backing_opt)
		pft_usage_error("%s conflicts with --pattern=ro-collapse "
				"(anonymous memory only)", o->backing_opt);
	if (collapse && o->kind == FAULTGEN_PROCESSES)
		pft_usage_error("--pattern=ro-collapse runs threads, not "
				"processes");
	check_pretouch(o, repeat_mode);
	if (o->title && o->json)
		pft_usage_error("-T conflicts with --json: the title belongs "
				"to the result lines");
}

/* --chunk-size: what faultgen_attr_set_chunk_size accepts. */
void pft_check_chunk(const struct pft_opts *o, const char *s)
{
	if (o->chunk == 0 || o->chunk % (uint64_t)o->pagesize ||
	    o->chunk > (1ULL << 40))
		pft_usage_error(
		    "--chunk-size '%s': a multiple of the page size "
		    "(%ld), at most 1T",
		    s, o->pagesize);
}

/* The cacheline size the library uses: 0.12x's 128 when unknown. */
long pft_cacheline_size(const struct pft_opts *o)
{
	long line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);

	if (line <= 0 || line > o->pagesize)
		line = 128;
	return line;
}

/*
 * fault/wsec.  One-shot: 0.12x's pages over elapsed time.  Duration and
 * rounds mode: the median of the per-round rates (pages of a round, all
 * workers, over its time, zap included), which a disturbance of a few
 * rounds does not move; pages over elapsed time when too few rounds were
 * sampled.
 */
bool pft_rate_is_median(const struct faultgen_result *r)
{
	return r->rounds_sampled >= PFT_MEDIAN_MIN_ROUNDS &&
	       r->round_rate_median > 0;
}

double pft_wall_rate(const struct faultgen_result *r)
{
	return pft_rate_is_median(r) ? r->round_rate_median :
				       r->pages_per_wall_s;
}

/* 0.12x's three checks, one line each at most (4096 workers must not
 * print 4096 warnings). */
void pft_warn_faults(const struct pft_opts *o, struct faultgen_run *run,
		     const struct faultgen_result *r)
{
	unsigned int short_workers = 0;
	double diff;

	for (unsigned int i = 0; i < r->workers; i++) {
		struct faultgen_worker_result w = { .size = sizeof(w) };

		if (faultgen_run_worker(run, i, &w) == 0 && w.minflt < w.pages)
			short_workers++;
	}
	if (short_workers)
		pft_msg("warning: %u of %u workers counted fewer minor faults "
			"than the pages they touched%s",
			short_workers, r->workers,
			o->thp != FAULTGEN_THP_NOHUGEPAGE ?
				" (huge pages take fewer faults)" : "");
	if (r->majflt)
		pft_msg("warning: %" PRIu64 " major faults", r->majflt);
	diff = fabs((double)r->minflt - (double)r->pages);
	if (r->pages && diff > 0.1 * (double)r->pages)
		pft_msg("warning: %" PRIu64 " minor faults for %" PRIu64
			" pages: more than 10%% apart",
			r->minflt, r->pages);
	if (r->shm_refault)
		pft_msg("note: zapped SysV pages stay in the segment, so the "
			"rounds after the first map pages, allocating none");
}

