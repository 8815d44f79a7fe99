// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * attr.c - what to run: the library's defaults, copies of an attr, and
 * the rules for combining settings that each setter alone cannot judge.
 *
 * The rules every pattern shares are here; each pattern adds its own
 * through its check operation (fault.c, collapse.c, pretouch.c), and
 * run.c applies both, so that faultgen_attr_check and faultgen_run_exec
 * apply one set of rules, and pft asks the library instead of restating
 * them.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The library's defaults, as faultgen_attr_new(3) lists them. */
void fg_attr_init(struct faultgen_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->pattern = FAULTGEN_SHARED_VMA;
	a->size = (uint64_t)fg_pagesize();
	a->nr_workers = 1;
	a->kind = FAULTGEN_THREADS;
	a->backing = FAULTGEN_BACKING_ANON;
	a->touch = FAULTGEN_TOUCH_WRITE;
	a->cachelines = 1;
	a->zap = FAULTGEN_ZAP_DONTNEED;
	a->protect = FAULTGEN_PROTECT_MPROTECT;
	a->collapse = FAULTGEN_COLLAPSE_MADVISE;
	a->timeout = 60.0;
	a->pretouch_touch = FAULTGEN_PRETOUCH_ATOMIC_ADD;
	a->chunk = FG_DEFAULT_CHUNK;
	a->jdk = 21;
	a->gc = FAULTGEN_GC_NONE;
}

/* A deep copy (the strings too); dst is overwritten. */
int fg_attr_copy(struct faultgen_attr *dst, const struct faultgen_attr *src)
{
	*dst = *src;
	dst->cpulist = src->cpulist ? strdup(src->cpulist) : NULL;
	dst->cpuset = src->cpuset ? strdup(src->cpuset) : NULL;
	dst->numa_nodes = src->numa_nodes ? strdup(src->numa_nodes) : NULL;
	dst->backing_path =
		src->backing_path ? strdup(src->backing_path) : NULL;
	if ((src->cpulist && !dst->cpulist) || (src->cpuset && !dst->cpuset) ||
	    (src->numa_nodes && !dst->numa_nodes) ||
	    (src->backing_path && !dst->backing_path)) {
		fg_attr_release(dst);
		return -ENOMEM;
	}
	return 0;
}

void fg_attr_release(struct faultgen_attr *a)
{
	free(a->cpulist);
	free(a->cpuset);
	free(a->numa_nodes);
	free(a->backing_path);
	a->backing_path = NULL;
	a->cpulist = NULL;
	a->cpuset = NULL;
	a->numa_nodes = NULL;
}

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
