// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * attr.c - what to run: defaults, validation on set, error strings.
 *
 * Every setter validates first and changes the attr only when the value is
 * good, so a failed setter leaves the attr as it was.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

FG_EXPORT int faultgen_attr_new(struct faultgen_attr **attr)
{
	struct faultgen_attr *a;

	if (!attr)
		return -EINVAL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
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
	*attr = a;
	return 0;
}

FG_EXPORT void faultgen_attr_free(struct faultgen_attr *attr)
{
	if (!attr)
		return;
	free(attr->cpulist);
	free(attr->cpuset);
	free(attr);
}

FG_EXPORT int faultgen_attr_set_pattern(struct faultgen_attr *attr,
					enum faultgen_pattern pattern)
{
	if (!attr || (unsigned int)pattern > FAULTGEN_PRETOUCH)
		return -EINVAL;
	attr->pattern = pattern;
	return 0;
}

FG_EXPORT int faultgen_attr_set_size(struct faultgen_attr *attr,
				     uint64_t bytes)
{
	/* 2^47 bytes, x86-64's whole user address space, is more than any
	 * mapping can be. */
	if (!attr || bytes == 0 || bytes > (UINT64_MAX >> 17))
		return -EINVAL;
	attr->size = bytes;
	return 0;
}

FG_EXPORT int faultgen_attr_set_workers(struct faultgen_attr *attr,
					unsigned int nr,
					enum faultgen_workers kind)
{
	if (!attr || nr == 0 || nr > FG_MAX_WORKERS ||
	    (unsigned int)kind > FAULTGEN_PROCESSES)
		return -EINVAL;
	attr->nr_workers = nr;
	attr->nr_workers_set = true;
	attr->kind = kind;
	return 0;
}

FG_EXPORT int faultgen_attr_set_backing(struct faultgen_attr *attr,
					enum faultgen_backing backing)
{
	if (!attr || (unsigned int)backing > FAULTGEN_BACKING_SYSV)
		return -EINVAL;
	attr->backing = backing;
	return 0;
}

FG_EXPORT int faultgen_attr_set_shm_lock(struct faultgen_attr *attr, int on)
{
	if (!attr)
		return -EINVAL;
	attr->shm_lock = on != 0;
	return 0;
}

FG_EXPORT int faultgen_attr_set_touch(struct faultgen_attr *attr,
				      enum faultgen_touch touch)
{
	if (!attr || (unsigned int)touch > FAULTGEN_TOUCH_POPULATE)
		return -EINVAL;
	attr->touch = touch;
	return 0;
}

FG_EXPORT int faultgen_attr_set_cachelines(struct faultgen_attr *attr,
					   unsigned int cachelines)
{
	if (!attr || cachelines == 0 ||
	    cachelines > (unsigned long)fg_pagesize() / fg_cacheline())
		return -EINVAL;
	attr->cachelines = cachelines;
	return 0;
}

FG_EXPORT int faultgen_attr_set_numa(struct faultgen_attr *attr,
				     enum faultgen_numa policy)
{
	if (!attr || (unsigned int)policy > FAULTGEN_NUMA_LOCAL)
		return -EINVAL;
	attr->numa = policy;
	return 0;
}

FG_EXPORT int faultgen_attr_set_thp(struct faultgen_attr *attr,
				    enum faultgen_thp thp)
{
	if (!attr || (unsigned int)thp > FAULTGEN_THP_NOHUGEPAGE)
		return -EINVAL;
	attr->thp = thp;
	return 0;
}

/* Replaces *slot by a copy of str (NULL clears it). */
static int set_string(char **slot, const char *str)
{
	char *copy = NULL;

	if (str) {
		copy = strdup(str);
		if (!copy)
			return -ENOMEM;
	}
	free(*slot);
	*slot = copy;
	return 0;
}

FG_EXPORT int faultgen_attr_set_cpus(struct faultgen_attr *attr,
				     const char *cpulist)
{
	int possible, ret;
	unsigned long *mask;
	size_t nbits;

	if (!attr)
		return -EINVAL;
	if (!cpulist)
		return set_string(&attr->cpulist, NULL);
	possible = fg_possible_cpus();
	if (possible < 0)
		return possible;
	nbits = (size_t)possible;
	mask = calloc(fg_bitmap_longs(nbits), sizeof(*mask));
	if (!mask)
		return -ENOMEM;
	ret = faultgen_parse_cpulist(cpulist, mask, nbits);
	free(mask);
	if (ret < 0)
		return ret;
	return set_string(&attr->cpulist, cpulist);
}

FG_EXPORT int faultgen_attr_set_cpuset(struct faultgen_attr *attr,
				       const char *name)
{
	if (!attr)
		return -EINVAL;
	if (name && (!*name || strstr(name, "..") || strlen(name) > 1024))
		return -EINVAL;
	return set_string(&attr->cpuset, name);
}

FG_EXPORT int faultgen_attr_set_pin(struct faultgen_attr *attr, int on)
{
	if (!attr)
		return -EINVAL;
	attr->pin = on != 0;
	return 0;
}

FG_EXPORT int faultgen_attr_set_sched_fifo(struct faultgen_attr *attr, int on)
{
	if (!attr)
		return -EINVAL;
	attr->sched_fifo = on != 0;
	return 0;
}

FG_EXPORT int faultgen_attr_set_oversubscribe(struct faultgen_attr *attr,
					      int on)
{
	if (!attr)
		return -EINVAL;
	attr->oversubscribe = on != 0;
	return 0;
}

FG_EXPORT int faultgen_attr_set_caller_worker(struct faultgen_attr *attr,
					      int on)
{
	if (!attr)
		return -EINVAL;
	attr->caller_worker = on != 0;
	return 0;
}

FG_EXPORT int faultgen_attr_set_rounds(struct faultgen_attr *attr,
				       unsigned int rounds,
				       enum faultgen_zap zap)
{
	if (!attr || (unsigned int)zap > FAULTGEN_ZAP_MUNMAP)
		return -EINVAL;
	attr->rounds = rounds;
	attr->duration = 0;
	attr->zap = zap;
	return 0;
}

FG_EXPORT int faultgen_attr_set_duration(struct faultgen_attr *attr,
					 double seconds,
					 enum faultgen_zap zap)
{
	/* A day is far beyond any benchmark; it keeps the ns sums finite. */
	if (!attr || !isfinite(seconds) || seconds < 0 || seconds > 86400 ||
	    (unsigned int)zap > FAULTGEN_ZAP_MUNMAP)
		return -EINVAL;
	attr->duration = seconds;
	attr->rounds = 0;
	attr->zap = zap;
	return 0;
}

FG_EXPORT int faultgen_attr_set_warmup(struct faultgen_attr *attr,
				       unsigned int rounds)
{
	if (!attr || rounds > 1000000)
		return -EINVAL;
	attr->warmup = rounds;
	return 0;
}

FG_EXPORT int faultgen_attr_set_region(struct faultgen_attr *attr, void *addr,
				       size_t len)
{
	uintptr_t page = (uintptr_t)fg_pagesize();

	if (!attr)
		return -EINVAL;
	if (!addr && !len) {
		attr->region = NULL;
		attr->region_len = 0;
		return 0;
	}
	if (!addr || !len || (uintptr_t)addr % page || len % page)
		return -EINVAL;
	attr->region = addr;
	attr->region_len = len;
	return 0;
}

FG_EXPORT int faultgen_attr_set_protect(struct faultgen_attr *attr,
					enum faultgen_protect protect)
{
	if (!attr || (unsigned int)protect > FAULTGEN_PROTECT_WRITABLE)
		return -EINVAL;
	attr->protect = protect;
	return 0;
}

FG_EXPORT int faultgen_attr_set_collapse(struct faultgen_attr *attr,
					 enum faultgen_collapse collapse)
{
	if (!attr || (unsigned int)collapse > FAULTGEN_COLLAPSE_KHUGEPAGED)
		return -EINVAL;
	attr->collapse = collapse;
	return 0;
}

FG_EXPORT int faultgen_attr_set_timeout(struct faultgen_attr *attr,
					double seconds)
{
	if (!attr || !isfinite(seconds) || seconds <= 0 || seconds > 86400)
		return -EINVAL;
	attr->timeout = seconds;
	return 0;
}

FG_EXPORT int faultgen_attr_set_pretouch_touch(
	struct faultgen_attr *attr, enum faultgen_pretouch_touch touch)
{
	if (!attr || (unsigned int)touch > FAULTGEN_PRETOUCH_FAST_HUGE)
		return -EINVAL;
	attr->pretouch_touch = touch;
	return 0;
}

FG_EXPORT int faultgen_attr_set_chunk_size(struct faultgen_attr *attr,
					   uint64_t bytes)
{
	if (!attr || bytes == 0 || bytes % (uint64_t)fg_pagesize() ||
	    bytes > (1ULL << 40))
		return -EINVAL;
	attr->chunk = bytes;
	return 0;
}

FG_EXPORT int faultgen_attr_set_jvm(struct faultgen_attr *attr,
				    unsigned int jdk, enum faultgen_jvm_gc gc)
{
	if (!attr || jdk < 8 || jdk > 99 || (unsigned int)gc > FAULTGEN_GC_PARALLEL)
		return -EINVAL;
	attr->jdk = jdk;
	attr->gc = gc;
	return 0;
}

FG_EXPORT enum faultgen_pattern
faultgen_attr_get_pattern(const struct faultgen_attr *attr)
{
	return attr ? attr->pattern : FAULTGEN_SHARED_VMA;
}

FG_EXPORT uint64_t faultgen_attr_get_size(const struct faultgen_attr *attr)
{
	return attr ? attr->size : 0;
}

FG_EXPORT unsigned int
faultgen_attr_get_workers(const struct faultgen_attr *attr)
{
	return attr ? attr->nr_workers : 0;
}

FG_EXPORT unsigned int
faultgen_attr_get_cachelines(const struct faultgen_attr *attr)
{
	return attr ? attr->cachelines : 0;
}

FG_EXPORT const char *faultgen_strerror(int error)
{
	switch (error) {
	case 0:
		return "success";
	case -EINVAL:
		return "invalid argument or combination of settings";
	case -ENOMEM:
		return "not enough memory";
	case -ERANGE:
		return "value out of range";
	case -ENXIO:
		return "CPU outside the allowed set";
	case -ENOENT:
		return "no such cpuset or file";
	case -ENOBUFS:
		return "CPU mask too small";
	case -ENOSPC:
		return "buffer too small";
	case -ECANCELED:
		return "run cancelled";
	case -ECHILD:
		return "a worker died";
	case -EAGAIN:
		return "resource temporarily unavailable";
	case -EPERM:
		return "operation not permitted";
	case -EACCES:
		return "permission denied";
	case -EALREADY:
		return "run already executed";
	case -ENODATA:
		return "no result: the run has not completed";
	case -EOPNOTSUPP:
		return "not supported by this kernel or build";
	case -EBUSY:
		return "resource busy";
	case -ETIMEDOUT:
		return "timed out";
	case -EFAULT:
		return "bad address";
	default:
		return "unknown error";
	}
}

FG_EXPORT const char *faultgen_version(void)
{
	return PACKAGE_VERSION;
}

FG_EXPORT int faultgen_has_libcpuset(void)
{
#ifdef HAVE_LIBCPUSET
	return 1;
#else
	return 0;
#endif
}
