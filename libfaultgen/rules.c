// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rules.c - the rules for combining settings that each setter alone
 * cannot judge.
 *
 * The rules every pattern shares are here, and those a pattern states as
 * data (struct fg_caps); a pattern adds the rest through its check
 * operation, and run.c applies all, so that faultgen_attr_check and
 * faultgen_run_exec apply one set of rules, and pft asks the library
 * instead of restating them.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>

/* Fills *c (when the caller gave one) and returns -EINVAL. */
int fg_conflict(struct faultgen_conflict *c, enum faultgen_setting setting,
		enum faultgen_setting with, const char *why)
{
	if (c) {
		c->setting = setting;
		c->with = with;
		c->why = why;
	}
	return -EINVAL;
}

/*
 * A file backing needs its path; memory of huge pages (hugetlb, a file on
 * hugetlbfs) is whole huge pages per worker, and takes no THP advice.
 */
static int backing_check(const struct faultgen_attr *a,
			 struct faultgen_conflict *c)
{
	size_t hp;

	if (a->backing == FAULTGEN_BACKING_FILE && !a->backing_path)
		return fg_conflict(c, FAULTGEN_SETTING_BACKING,
				   FAULTGEN_SETTING_BACKING,
				   "a file backing needs a path "
				   "(faultgen_attr_set_backing_path)");
	hp = fg_backing_pagesize(a);
	if (hp == (size_t)fg_pagesize())
		return 0;
	if (a->thp != FAULTGEN_THP_DEFAULT)
		return fg_conflict(c, FAULTGEN_SETTING_THP,
				   FAULTGEN_SETTING_BACKING,
				   "hugetlb pages are not transparent huge "
				   "pages");
	if (a->size % ((uint64_t)hp * a->nr_workers))
		return fg_conflict(c, FAULTGEN_SETTING_SIZE,
				   FAULTGEN_SETTING_BACKING,
				   "hugetlb memory is whole huge pages for "
				   "every worker: the size must be a multiple "
				   "of the huge page size times the workers");
	return 0;
}

/* A conflict of cold, a setting the enum has no value for. */
static int cold_conflict(struct faultgen_conflict *c,
			 enum faultgen_setting with, const char *why)
{
	int ret = fg_conflict(c, FAULTGEN_SETTING_NONE, with, why);

	if (c)
		c->setting_name = "cold";
	return ret;
}

/* Cold drops a file's pages, worker by worker, before each round. */
static int cold_check(const struct faultgen_attr *a,
		      const struct fg_pattern *p, struct faultgen_conflict *c)
{
	if (!a->cold)
		return 0;
	if (a->backing != FAULTGEN_BACKING_FILE)
		return cold_conflict(c, FAULTGEN_SETTING_BACKING,
				     "only a file's pages can be dropped "
				     "from the page cache: cold needs the "
				     "file backing");
	if (!p->drops_cold)
		return cold_conflict(c, FAULTGEN_SETTING_PATTERN,
				     "only the patterns of one slice per "
				     "worker (shared-vma, per-thread-vma, "
				     "sparse-vma) drop a cold file's pages");
	if (a->interleave)
		return cold_conflict(c, FAULTGEN_SETTING_INTERLEAVE,
				     "striped pages are no range of the file "
				     "a worker can drop");
	return 0;
}

/* The rules every pattern shares (run.c adds the pattern's own). */
int fg_attr_check_common(const struct faultgen_attr *a,
			 struct faultgen_conflict *c)
{
	int ret;

	if (a->shm_lock && a->backing != FAULTGEN_BACKING_SYSV)
		return fg_conflict(c, FAULTGEN_SETTING_SHM_LOCK,
				   FAULTGEN_SETTING_BACKING,
				   "SHM_LOCK needs SysV memory");
	if (a->touch == FAULTGEN_TOUCH_MLOCK && fg_attr_repeats(a))
		return fg_conflict(c, FAULTGEN_SETTING_TOUCH,
				   FAULTGEN_SETTING_REPEAT,
				   "locked memory cannot be zapped");
	if (a->region && a->backing != FAULTGEN_BACKING_ANON)
		return fg_conflict(c, FAULTGEN_SETTING_REGION,
				   FAULTGEN_SETTING_BACKING,
				   "a caller's region is used as it is, "
				   "private anonymous memory");
	if (a->share && a->backing == FAULTGEN_BACKING_SYSV)
		return fg_conflict(c, FAULTGEN_SETTING_SHARE,
				   FAULTGEN_SETTING_BACKING,
				   "a SysV segment is shared always");
	if (a->region && a->share)
		return fg_conflict(c, FAULTGEN_SETTING_REGION,
				   FAULTGEN_SETTING_SHARE,
				   "a caller's region is used as it is, "
				   "private anonymous memory");
	ret = backing_check(a, c);
	if (ret)
		return ret;
	if (a->region && a->kind != FAULTGEN_THREADS)
		return fg_conflict(c, FAULTGEN_SETTING_REGION,
				   FAULTGEN_SETTING_WORKERS,
				   "forked workers would fault their own "
				   "copies of the caller's region");
	return 0;
}

/*
 * The rules a pattern states as data (struct fg_caps): each one whose
 * reason is given refuses what it names.
 */
int fg_pattern_caps_check(const struct faultgen_attr *a,
			  const struct fg_pattern *p,
			  struct faultgen_conflict *c)
{
	const struct fg_caps *k = &p->caps;

	if (k->processes_why && a->kind != FAULTGEN_THREADS)
		return fg_conflict(c, FAULTGEN_SETTING_WORKERS,
				   FAULTGEN_SETTING_PATTERN, k->processes_why);
	if (k->repeat_why && fg_attr_repeats(a))
		return fg_conflict(c, FAULTGEN_SETTING_REPEAT,
				   FAULTGEN_SETTING_PATTERN, k->repeat_why);
	if (k->backings && !(k->backings & FG_BACKING(a->backing)))
		return fg_conflict(c, FAULTGEN_SETTING_BACKING,
				   FAULTGEN_SETTING_PATTERN, k->backings_why);
	if (k->share_why && a->share)
		return fg_conflict(c, FAULTGEN_SETTING_SHARE,
				   FAULTGEN_SETTING_PATTERN, k->share_why);
	if (k->region_why && a->region)
		return fg_conflict(c, FAULTGEN_SETTING_REGION,
				   FAULTGEN_SETTING_PATTERN, k->region_why);
	if (k->numa_why &&
	    (k->default_numa_only ?
		     a->numa != FAULTGEN_NUMA_DEFAULT &&
			     a->numa != FAULTGEN_NUMA_LOCAL :
		     a->numa == FAULTGEN_NUMA_WORKER_LOCAL))
		return fg_conflict(c, FAULTGEN_SETTING_NUMA,
				   FAULTGEN_SETTING_PATTERN, k->numa_why);
	if (k->node_pages_why && a->node_pages)
		return fg_conflict(c, FAULTGEN_SETTING_NODE_PAGES,
				   FAULTGEN_SETTING_PATTERN, k->node_pages_why);
	if (k->page_touch_why && a->touch != FAULTGEN_TOUCH_WRITE &&
	    a->touch != FAULTGEN_TOUCH_READ)
		return fg_conflict(c, FAULTGEN_SETTING_TOUCH,
				   FAULTGEN_SETTING_PATTERN, k->page_touch_why);
	return cold_check(a, p, c);
}

unsigned int fg_pattern_flags(const struct fg_pattern *p)
{
	unsigned int f = 0;

	if (p->caps.repeat_why)
		f |= FAULTGEN_PATTERN_ONCE;
	if (p->own_mappings)
		f |= FAULTGEN_PATTERN_OWN_MAPPINGS;
	if (p->unbound_workers)
		f |= FAULTGEN_PATTERN_UNBOUND;
	if (p->caps.region_why)
		f |= FAULTGEN_PATTERN_OWN_MEMORY;
	return f;
}

unsigned int fg_pattern_backings(const struct fg_pattern *p)
{
	unsigned int all = FG_BACKING(FAULTGEN_BACKING_HUGETLB + 1) - 1;

	return p->caps.backings ? p->caps.backings : all;
}

unsigned int fg_pattern_worker_kinds(const struct fg_pattern *p)
{
	return p->caps.processes_why ?
		       1u << FAULTGEN_THREADS :
		       1u << FAULTGEN_THREADS | 1u << FAULTGEN_PROCESSES;
}
