// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * api.c - every exported function of libfaultgen, and nothing else.
 *
 * Each checks its arguments, calls the internal code (which never calls
 * back into this file) and returns through api_rc(), so that only the
 * error codes the manual pages document can reach a caller: the system
 * calls under the library have many more.  A setter validates before it
 * changes anything, so a failed setter leaves the attr as it was.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The closed set of errors of the API; anything else is translated. */
static int api_rc(int rc)
{
	if (rc >= 0)
		return rc;
	switch (-rc) {
	case EINVAL:
	case EALREADY:
	case ENXIO:
	case ENOENT:
	case ENOMEM:
	case EAGAIN:
	case EPERM:
	case EACCES:
	case EFAULT:
	case EBUSY:
	case EOPNOTSUPP:
	case ECANCELED:
	case ECHILD:
	case ERANGE:
	case ENODATA:
	case ENOSPC:
	case ENOBUFS:
	case EFBIG:
	case EMFILE:
	case ENFILE:
	case ETIMEDOUT:
	case ELOOP:
	case EPROTONOSUPPORT:
		return rc;
	case EEXIST: /* MAP_FIXED_NOREPLACE: the place was taken */
		return -EBUSY;
	case EINTR:
	case EIDRM:
	case ESRCH:
		return -EAGAIN;
	case EHWPOISON:
		return -EFAULT;
	case ENOSYS:
	case EIO:
	case ENOTTY:
		return -EOPNOTSUPP;
	case EOVERFLOW:
		return -ENOMEM;
	default:
		return -EINVAL;
	}
}

/* A result struct the caller sized: at least its size field and one more
 * word. */
static bool sized_ok(const void *res, size_t least)
{
	return res && *(const size_t *)res >= least;
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

/* A value into the setting of that name, checked by its table entry. */
static int set_slot(struct faultgen_attr *attr, const char *name,
		    union fg_slot v)
{
	const struct fg_setting *s = fg_setting_named(name, NULL);

	if (!attr || !s)
		return api_rc(-EINVAL);
	return api_rc(fg_setting_set(attr, s, &v));
}

/* Two settings one setter takes together: both or neither. */
static int set_pair(struct faultgen_attr *attr, const char *name1,
		    union fg_slot v1, const char *name2, union fg_slot v2)
{
	const struct fg_setting *s1 = fg_setting_named(name1, NULL);
	const struct fg_setting *s2 = fg_setting_named(name2, NULL);
	int ret;

	if (!attr || !s1 || !s2)
		return api_rc(-EINVAL);
	ret = fg_setting_check(attr, s1, &v1);
	if (!ret)
		ret = fg_setting_check(attr, s2, &v2);
	if (!ret)
		ret = fg_setting_store(attr, s1, &v1);
	if (!ret)
		ret = fg_setting_store(attr, s2, &v2);
	return api_rc(ret);
}

#define U(x) ((union fg_slot){ .u = (x) })
#define U64(x) ((union fg_slot){ .u64 = (x) })
#define E(x) ((union fg_slot){ .e = (int)(x) })
#define B(x) ((union fg_slot){ .b = (x) != 0 })
#define D(x) ((union fg_slot){ .d = (x) })
#define S(x) ((union fg_slot){ .s = (char *)(uintptr_t)(x) })

/* A setter of one setting's value: set_slot by the setting's name. */
#define FG_SETTER(fn, type, name, slot)                                     \
	FG_EXPORT int faultgen_attr_set_##fn(struct faultgen_attr *attr,   \
					     type value)                    \
	{                                                                   \
		return set_slot(attr, name, slot(value));                   \
	}

/* A NULL attr reads as 0 (NULL for the strings), as in LIBFAULTGEN_1.0. */
#define FG_GETTER(type, name, field)                                        \
	FG_EXPORT type faultgen_attr_get_##name(                            \
		const struct faultgen_attr *attr)                           \
	{                                                                   \
		return attr ? (type)attr->field : (type)0;                  \
	}

/* A setting's setter and its getter, of one type, on attr->fn. */
#define FG_SETTER_GETTER(fn, type, name, slot)                              \
	FG_SETTER(fn, type, name, slot)                                     \
	FG_GETTER(type, fn, fn)

/* ---- attr ------------------------------------------------------------ */

FG_EXPORT int faultgen_attr_new(struct faultgen_attr **attr)
{
	struct faultgen_attr *a;

	if (!attr)
		return api_rc(-EINVAL);
	a = malloc(sizeof(*a));
	if (!a)
		return api_rc(-ENOMEM);
	fg_attr_init(a);
	*attr = a;
	return 0;
}

FG_EXPORT void faultgen_attr_free(struct faultgen_attr *attr)
{
	if (!attr)
		return;
	fg_attr_release(attr);
	free(attr);
}

FG_EXPORT int faultgen_attr_set_pattern(struct faultgen_attr *attr,
					enum faultgen_pattern pattern)
{
	if (!attr || !fg_pattern(pattern))
		return api_rc(-EINVAL);
	attr->pattern = pattern;
	return 0;
}

FG_SETTER_GETTER(size, uint64_t, "size", U64)

FG_EXPORT int faultgen_attr_set_workers(struct faultgen_attr *attr,
					unsigned int nr,
					enum faultgen_workers kind)
{
	return set_pair(attr, "workers", U(nr), "worker-kind", E(kind));
}

FG_SETTER_GETTER(backing, enum faultgen_backing, "backing", E)
FG_SETTER_GETTER(share, int, "share", B)
FG_SETTER_GETTER(backing_path, const char *, "backing-path", S)
FG_SETTER_GETTER(shm_lock, int, "shm-lock", B)
FG_SETTER_GETTER(touch, enum faultgen_touch, "touch", E)
FG_SETTER_GETTER(cachelines, unsigned int, "cachelines", U)

/* A policy that names no nodes (those that do need set_numa_nodes). */
FG_EXPORT int faultgen_attr_set_numa(struct faultgen_attr *attr,
				     enum faultgen_numa policy)
{
	if (!attr || (unsigned int)policy > FAULTGEN_NUMA_WORKER_LOCAL ||
	    fg_numa_takes_nodes(policy))
		return api_rc(-EINVAL);
	free(attr->numa_nodes);
	attr->numa_nodes = NULL;
	attr->numa = policy;
	return 0;
}

/* Nodes that exist and may be allocated on, as a run would check them
 * ("all" checks nothing more now: the run takes the nodes it may use). */
static int check_nodes(enum faultgen_numa policy, const char *nodes)
{
	size_t nbits = fg_numa_nbits();
	unsigned long *want = calloc(fg_bitmap_longs(nbits), sizeof(*want));
	bool all = false;
	int ret = want ? 0 : -ENOMEM;

	if (!ret)
		ret = fg_parse_nodes(nodes, want, nbits, &all);
	if (ret >= 0 && policy == FAULTGEN_NUMA_PREFERRED && ret != 1)
		ret = -EINVAL; /* one node, not "all" */
	if (ret >= 0)
		ret = fg_numa_check_nodes(want, nbits, all, NULL, 0);
	free(want);
	return ret < 0 ? ret : 0;
}

FG_EXPORT int faultgen_attr_set_numa_nodes(struct faultgen_attr *attr,
					   enum faultgen_numa policy,
					   const char *nodes)
{
	int ret;

	if (!attr || (unsigned int)policy > FAULTGEN_NUMA_WORKER_LOCAL ||
	    fg_numa_takes_nodes(policy) != (nodes != NULL))
		return api_rc(-EINVAL);
	if (policy != FAULTGEN_NUMA_DEFAULT && !fg_numa_available())
		return api_rc(-EOPNOTSUPP);
	ret = nodes ? check_nodes(policy, nodes) : 0;
	if (!ret)
		ret = set_string(&attr->numa_nodes, nodes);
	if (!ret)
		attr->numa = policy;
	return api_rc(ret);
}

FG_SETTER_GETTER(node_pages, int, "node-pages", B)
FG_SETTER_GETTER(thp, enum faultgen_thp, "thp", E)
FG_SETTER(cpus, const char *, "cpus", S)
FG_SETTER_GETTER(cpuset, const char *, "cpuset", S)
FG_SETTER_GETTER(pin, int, "pin", B)
FG_SETTER_GETTER(sched_fifo, int, "sched-fifo", B)
FG_SETTER_GETTER(oversubscribe, int, "oversubscribe", B)
FG_SETTER_GETTER(caller_worker, int, "caller-worker", B)

FG_EXPORT int faultgen_attr_set_rounds(struct faultgen_attr *attr,
				       unsigned int rounds,
				       enum faultgen_zap zap)
{
	return set_pair(attr, "rounds", U(rounds), "zap", E(zap));
}

FG_EXPORT int faultgen_attr_set_duration(struct faultgen_attr *attr,
					 double seconds,
					 enum faultgen_zap zap)
{
	return set_pair(attr, "duration", D(seconds), "zap", E(zap));
}

FG_SETTER_GETTER(warmup, unsigned int, "warmup", U)
FG_SETTER_GETTER(latency, unsigned int, "latency", U)

FG_SETTER_GETTER(catch_sigbus, int, "catch-sigbus", B)
FG_SETTER_GETTER(lock_paths, int, "lock-paths", B)
FG_SETTER_GETTER(lock_waits, int, "lock-waits", B)
FG_SETTER_GETTER(cold, int, "cold", B)
FG_EXPORT int faultgen_attr_set_region(struct faultgen_attr *attr, void *addr,
				       size_t len)
{
	uintptr_t page = (uintptr_t)fg_pagesize();

	if (!attr)
		return api_rc(-EINVAL);
	if (!addr && !len) {
		attr->region = NULL;
		attr->region_len = 0;
		return 0;
	}
	if (!addr || !len || (uintptr_t)addr % page || len % page)
		return api_rc(-EINVAL);
	attr->region = addr;
	attr->region_len = len;
	return 0;
}

FG_SETTER_GETTER(protect, enum faultgen_protect, "protect", E)
FG_SETTER_GETTER(collapse, enum faultgen_collapse, "collapse", E)
FG_SETTER_GETTER(timeout, double, "timeout", D)
FG_SETTER_GETTER(pretouch_touch, enum faultgen_pretouch_touch, "pretouch", E)
FG_SETTER_GETTER(qemu, enum faultgen_qemu, "qemu", E)
FG_SETTER_GETTER(cow_child, enum faultgen_cow_child, "cow-child", E)
FG_SETTER(chunk_size, uint64_t, "chunk-size", U64)
FG_GETTER(uint64_t, chunk_size, chunk)

FG_EXPORT int faultgen_attr_set_jvm(struct faultgen_attr *attr,
				    unsigned int jdk, enum faultgen_jvm_gc gc)
{
	return set_pair(attr, "jdk", U(jdk), "gc", E(gc));
}

FG_EXPORT int faultgen_attr_set_writers(struct faultgen_attr *attr,
					unsigned int writers,
					enum faultgen_writer_op op)
{
	return set_pair(attr, "writers", U(writers), "writer-op", E(op));
}

FG_SETTER_GETTER(interleave, unsigned int, "stripe-pages", U)

/* ---- getters of the settings set in pairs or by setters of their own - */

FG_GETTER(enum faultgen_pattern, pattern, pattern)
FG_GETTER(unsigned int, workers, nr_workers)
FG_GETTER(enum faultgen_workers, worker_kind, kind)
FG_GETTER(enum faultgen_numa, numa, numa)
FG_GETTER(const char *, cpulist, cpulist)
FG_GETTER(unsigned int, rounds, rounds)
FG_GETTER(double, duration, duration)
FG_GETTER(enum faultgen_zap, zap, zap)
FG_GETTER(const char *, numa_nodes, numa_nodes)

FG_EXPORT int faultgen_attr_get_region(const struct faultgen_attr *attr,
				       void **addr, size_t *len)
{
	if (!attr || !addr || !len)
		return api_rc(-EINVAL);
	*addr = attr->region;
	*len = attr->region_len;
	return 0;
}

FG_EXPORT int faultgen_attr_get_jvm(const struct faultgen_attr *attr,
				    unsigned int *jdk, enum faultgen_jvm_gc *gc)
{
	if (!attr || !jdk || !gc)
		return api_rc(-EINVAL);
	*jdk = attr->jdk;
	*gc = attr->gc;
	return 0;
}

FG_EXPORT int faultgen_attr_get_writers(const struct faultgen_attr *attr,
					unsigned int *writers,
					enum faultgen_writer_op *op)
{
	if (!attr || !writers || !op)
		return api_rc(-EINVAL);
	*writers = attr->writers;
	*op = attr->writer_op;
	return 0;
}

FG_EXPORT int faultgen_attr_get_cpus(const struct faultgen_attr *attr,
				     unsigned long *mask, size_t nbits)
{
	struct fg_cpus cpus;
	int ret;

	if (!attr || (!mask && nbits))
		return api_rc(-EINVAL);
	ret = fg_cpus_resolve(attr, &cpus, NULL, NULL, NULL);
	if (ret)
		return api_rc(ret);
	ret = mask ? fg_cpus_to_mask(&cpus, mask, nbits) : (int)cpus.count;
	fg_cpus_release(&cpus);
	return api_rc(ret);
}

FG_EXPORT int faultgen_attr_get_memory(const struct faultgen_attr *attr,
				       uint64_t *mapped, uint64_t *held)
{
	uint64_t m, h;

	if (!attr)
		return api_rc(-EINVAL);
	fg_attr_memory(attr, fg_pattern(attr->pattern), &m, &h);
	if (mapped)
		*mapped = m;
	if (held)
		*held = h;
	return 0;
}

FG_EXPORT uint64_t faultgen_attr_get_page_size(const struct faultgen_attr *attr)
{
	return attr ? (uint64_t)fg_backing_pagesize(attr) : 0;
}

FG_EXPORT int faultgen_attr_check(const struct faultgen_attr *attr,
				  struct faultgen_conflict *conflict)
{
	struct faultgen_conflict c = { .size = sizeof(c) };
	int ret;

	if (!attr || (conflict && !sized_ok(conflict, sizeof(size_t))))
		return api_rc(-EINVAL);
	ret = fg_attr_check(attr, &c);
	if (ret && !c.setting_name)
		c.setting_name = fg_setting_name_of(c.setting);
	if (ret && !c.with_name)
		c.with_name = fg_setting_name_of(c.with);
	if (ret && conflict)
		fg_copy_sized(conflict, &c, sizeof(c));
	return api_rc(ret);
}

/* ---- parsers ----------------------------------------------------------- */

FG_EXPORT int faultgen_parse_size(const char *str, uint64_t *bytes)
{
	if (!str || !bytes)
		return api_rc(-EINVAL);
	return api_rc(fg_parse_size(str, bytes));
}

FG_EXPORT int faultgen_parse_cpulist(const char *str, unsigned long *mask,
				     size_t nbits)
{
	if (!str || (!mask && nbits))
		return api_rc(-EINVAL);
	return api_rc(fg_parse_cpulist(str, mask, nbits));
}

FG_EXPORT int faultgen_format_cpulist(const unsigned long *mask, size_t nbits,
				      char *buf, size_t len)
{
	if (!buf || len == 0 || (!mask && nbits))
		return api_rc(-EINVAL);
	return api_rc(fg_format_cpulist(mask, nbits, buf, len));
}

FG_EXPORT int faultgen_possible_cpus(void)
{
	return api_rc(fg_possible_cpus());
}

FG_EXPORT unsigned int faultgen_cacheline_size(void)
{
	return fg_cacheline();
}

/* ---- running ----------------------------------------------------------- */

FG_EXPORT int faultgen_run_create(const struct faultgen_attr *attr,
				  struct faultgen_run **run)
{
	if (!attr || !run)
		return api_rc(-EINVAL);
	return api_rc(fg_run_create(attr, run));
}

FG_EXPORT int faultgen_run_exec(struct faultgen_run *run)
{
	int ret;

	if (!run)
		return api_rc(-EINVAL);
	if (run->executed)
		return api_rc(-EALREADY);
	ret = api_rc(fg_run_exec(run));
	/* What the caller saw is what faultgen_run_failure says. */
	if (run->fail_error == run->status)
		run->fail_error = ret;
	run->status = ret;
	return ret;
}

FG_EXPORT int faultgen_run_new(const struct faultgen_attr *attr,
			       struct faultgen_run **run)
{
	struct faultgen_run *r = NULL;
	int ret;

	if (!run)
		return api_rc(-EINVAL);
	*run = NULL;
	ret = faultgen_run_create(attr, &r);
	if (ret)
		return ret;
	ret = faultgen_run_exec(r);
	if (ret) {
		fg_run_free(r);
		return ret;
	}
	*run = r;
	return 0;
}

FG_EXPORT void faultgen_run_cancel(struct faultgen_run *run)
{
	if (run)
		fg_run_cancel(run);
}

FG_EXPORT void faultgen_run_free(struct faultgen_run *run)
{
	if (run)
		fg_run_free(run);
}

FG_EXPORT int faultgen_run_result(const struct faultgen_run *run,
				  struct faultgen_result *res)
{
	if (!run || !sized_ok(res, sizeof(size_t) * 2))
		return api_rc(-EINVAL);
	if (!fg_run_measured(run))
		return api_rc(-ENODATA);
	fg_copy_sized(res, &run->result, sizeof(run->result));
	return 0;
}

FG_EXPORT int faultgen_run_worker(const struct faultgen_run *run,
				  unsigned int index,
				  struct faultgen_worker_result *wres)
{
	struct faultgen_worker_result r;
	int ret;

	if (!run || !sized_ok(wres, sizeof(size_t) * 2))
		return api_rc(-EINVAL);
	ret = fg_run_worker(run, index, &r);
	if (!ret)
		fg_copy_sized(wres, &r, sizeof(r));
	return api_rc(ret);
}

FG_EXPORT int faultgen_run_lock_paths(const struct faultgen_run *run,
				      int worker,
				      struct faultgen_lock_paths *lp)
{
	struct faultgen_lock_paths l;
	int ret;

	if (!run || !sized_ok(lp, sizeof(l)))
		return api_rc(-EINVAL);
	if (!fg_run_measured(run))
		return api_rc(-ENODATA);
	ret = fg_run_lock_paths(run, worker, &l);
	if (!ret)
		fg_copy_sized(lp, &l, sizeof(l));
	return api_rc(ret);
}

FG_EXPORT int faultgen_run_lock_waits(const struct faultgen_run *run,
				      int worker,
				      struct faultgen_lock_waits *lw)
{
	struct faultgen_lock_waits l;
	int ret;

	if (!run || !sized_ok(lw, offsetof(struct faultgen_lock_waits, write) +
					  sizeof(l.write)))
		return api_rc(-EINVAL);
	if (!fg_run_measured(run))
		return api_rc(-ENODATA);
	ret = fg_run_lock_waits(run, worker, &l);
	if (!ret)
		fg_copy_sized(lw, &l, sizeof(l));
	return api_rc(ret);
}

FG_EXPORT int faultgen_run_latency(const struct faultgen_run *run, int worker,
				   struct faultgen_latency *latency)
{
	struct faultgen_latency l;
	int ret;

	if (!run ||
	    !sized_ok(latency, offsetof(struct faultgen_latency, min_ns) +
				       sizeof(double) * 7))
		return api_rc(-EINVAL);
	if (!fg_run_measured(run))
		return api_rc(-ENODATA);
	ret = fg_run_latency(run, worker, &l);
	if (!ret)
		fg_copy_sized(latency, &l, sizeof(l));
	return api_rc(ret);
}

FG_EXPORT int faultgen_run_latency_buckets(
	const struct faultgen_run *run, int worker,
	struct faultgen_latency_bucket *buckets, size_t max)
{
	if (!run || (!buckets && max))
		return api_rc(-EINVAL);
	if (!fg_run_measured(run))
		return api_rc(-ENODATA);
	return api_rc(fg_run_latency_buckets(run, worker, buckets, max));
}

FG_EXPORT int faultgen_run_rounds(const struct faultgen_run *run,
				  unsigned int worker, double *seconds,
				  size_t max)
{
	if (!run || (!seconds && max))
		return api_rc(-EINVAL);
	return api_rc(fg_run_rounds(run, worker, seconds, max));
}

FG_EXPORT int faultgen_run_round_rates(const struct faultgen_run *run,
				       double *rates, size_t max)
{
	if (!run || (!rates && max))
		return api_rc(-EINVAL);
	if (!fg_run_measured(run))
		return api_rc(-ENODATA);
	return (int)fg_round_rates(run, rates, max);
}

FG_EXPORT int faultgen_run_failure(const struct faultgen_run *run,
				   int *worker, int *signo, int *error)
{
	if (!run)
		return api_rc(-EINVAL);
	if (worker)
		*worker = run->fail_worker;
	if (signo)
		*signo = run->fail_signo;
	if (error)
		*error = run->fail_error;
	return 0;
}

FG_EXPORT int faultgen_run_cpulist(const struct faultgen_run *run, char *buf,
				   size_t len)
{
	if (!run || !buf || !len)
		return api_rc(-EINVAL);
	if (!run->cpus.bits)
		return api_rc(-ENODATA);
	return api_rc(fg_format_cpulist(run->cpus.bits, run->cpus.nbits, buf,
					len));
}

FG_EXPORT int faultgen_run_region(const struct faultgen_run *run,
				  void **addr, size_t *len)
{
	if (!run || !addr || !len)
		return api_rc(-EINVAL);
	if (!run->base)
		return api_rc(-ENODATA);
	/* Per-thread VMAs and pretouch: the reservation, guards and all. */
	*addr = run->resv.raw ? run->resv.raw : run->base;
	*len = run->resv.raw ? run->resv.raw_len : run->base_len;
	return 0;
}

FG_EXPORT const char *faultgen_run_cpuset_source(const struct faultgen_run *run)
{
	return run && run->cpuset_source ? run->cpuset_source : "";
}

FG_EXPORT int faultgen_run_node_pages(const struct faultgen_run *run,
				      int worker, uint64_t *pages, size_t max)
{
	if (!run || (!pages && max))
		return api_rc(-EINVAL);
	return api_rc(fg_run_node_pages(run, worker, pages, max));
}

FG_EXPORT int faultgen_numa_nodes(unsigned long *mask, size_t nbits)
{
	if (!mask || !nbits)
		return api_rc(-EINVAL);
	return api_rc(fg_numa_nodes(mask, nbits));
}

FG_EXPORT int faultgen_numa_allowed(unsigned long *mask, size_t nbits)
{
	if (!mask || !nbits)
		return api_rc(-EINVAL);
	return api_rc(fg_numa_allowed(mask, nbits));
}

FG_EXPORT int faultgen_sysv_cleanup(void)
{
	return api_rc(fg_sysv_cleanup());
}

/* ---- read-only collapse ------------------------------------------------ */

FG_EXPORT int faultgen_run_figure(const struct faultgen_run *run,
				  unsigned int index,
				  struct faultgen_figure *figure)
{
	struct faultgen_figure f = { .size = sizeof(f) };
	int ret;

	if (!run || !sized_ok(figure, offsetof(struct faultgen_figure, value)))
		return api_rc(-EINVAL);
	ret = fg_run_figure(run, index, &f);
	if (ret > 0)
		fg_copy_sized(figure, &f, sizeof(f));
	return api_rc(ret);
}

FG_EXPORT int faultgen_run_collapse(const struct faultgen_run *run,
				    struct faultgen_collapse_result *res)
{
	if (!run || !sized_ok(res, sizeof(size_t)))
		return api_rc(-EINVAL);
	return api_rc(fg_collapse_result(run, res));
}

FG_EXPORT int faultgen_run_collapse_range(const struct faultgen_run *run,
					  unsigned int index,
					  struct faultgen_collapse_range *range)
{
	if (!run || !sized_ok(range, sizeof(size_t)))
		return api_rc(-EINVAL);
	return api_rc(fg_collapse_range(run, index, range));
}

/*
 * LIBFAULTGEN_1.1 gave struct faultgen_progress a size field: the 1.0
 * function, with the old struct, stays for programs built against 1.0.
 * Each version has a name of its own here and its public name through
 * .symver (the default, @@, is 1.1).
 */
struct faultgen_progress_1_0 {
	double t_s;
	unsigned int collapsed;
};

/*
 * The symver attribute where the compiler has it (GCC 10 and later): a
 * top-level .symver asm reaches the assembler only, so with link-time
 * optimisation, where GCC assembles the LTO partitions, the version
 * nodes are lost and the link fails ("invalid attempt to declare
 * external version name as default").  The asm is kept for compilers
 * without the attribute (clang 14 among them).
 */
#if defined(__has_attribute)
#if __has_attribute(symver)
#define FG_SYMVER_ATTR 1
#endif
#endif
#ifdef FG_SYMVER_ATTR
#define FG_SYMVER(name) __attribute__((symver(name)))
#else
#define FG_SYMVER(name)
#endif

FG_EXPORT int faultgen_run_collapse_progress_1_1(
	const struct faultgen_run *run, unsigned int index,
	struct faultgen_progress *p)
	FG_SYMVER("faultgen_run_collapse_progress@@LIBFAULTGEN_1.1");
FG_EXPORT int faultgen_run_collapse_progress_1_0(
	const struct faultgen_run *run, unsigned int index,
	struct faultgen_progress_1_0 *p)
	FG_SYMVER("faultgen_run_collapse_progress@LIBFAULTGEN_1.0");
#ifndef FG_SYMVER_ATTR
__asm__(".symver faultgen_run_collapse_progress_1_1,"
	"faultgen_run_collapse_progress@@LIBFAULTGEN_1.1");
__asm__(".symver faultgen_run_collapse_progress_1_0,"
	"faultgen_run_collapse_progress@LIBFAULTGEN_1.0");
#endif

FG_EXPORT int faultgen_run_collapse_progress_1_1(
	const struct faultgen_run *run, unsigned int index,
	struct faultgen_progress *p)
{
	struct faultgen_progress mine = { .size = sizeof(mine) };
	int ret;

	if (!run || !sized_ok(p, sizeof(size_t)))
		return api_rc(-EINVAL);
	ret = fg_collapse_progress(run, index, &mine.t_s, &mine.collapsed);
	if (!ret)
		fg_copy_sized(p, &mine, sizeof(mine));
	return api_rc(ret);
}

FG_EXPORT int faultgen_run_collapse_progress_1_0(
	const struct faultgen_run *run, unsigned int index,
	struct faultgen_progress_1_0 *p)
{
	if (!run || !p)
		return api_rc(-EINVAL);
	return api_rc(fg_collapse_progress(run, index, &p->t_s,
					   &p->collapsed));
}

FG_EXPORT enum faultgen_verdict
faultgen_collapse_verdict(enum faultgen_protect protect, unsigned int ranges,
			  unsigned int collapsed, int first_error)
{
	return fg_collapse_verdict(protect, ranges, collapsed, first_error);
}

FG_EXPORT const char *faultgen_verdict_name(enum faultgen_verdict verdict)
{
	return fg_verdict_name(verdict);
}

/* ---- patterns (LIBFAULTGEN_1.2) ----------------------------------------- */

FG_EXPORT int faultgen_pattern_count(void)
{
	int n = 0;

	while (fg_pattern((enum faultgen_pattern)n))
		n++;
	return n;
}

FG_EXPORT const char *faultgen_pattern_name(enum faultgen_pattern pattern)
{
	const struct fg_pattern *p = fg_pattern(pattern);

	return p ? p->name : NULL;
}

FG_EXPORT int faultgen_pattern_from_name(const char *name,
					 enum faultgen_pattern *pattern)
{
	const struct fg_pattern *p;

	if (!name || !pattern)
		return api_rc(-EINVAL);
	for (int i = 0; (p = fg_pattern((enum faultgen_pattern)i)); i++) {
		if (strcmp(p->name, name) == 0) {
			*pattern = (enum faultgen_pattern)i;
			return 0;
		}
	}
	return api_rc(-ENOENT);
}

FG_EXPORT int faultgen_pattern_reads(enum faultgen_pattern pattern,
				     enum faultgen_setting setting)
{
	const struct fg_pattern *p = fg_pattern(pattern);

	if (!p || (unsigned int)setting >= FG_NR_SETTINGS ||
	    setting == FAULTGEN_SETTING_NONE)
		return api_rc(-EINVAL);
	if (p->reads & FG_SETTING(setting))
		return 1;
	for (unsigned int i = 0; i < p->nr_settings; i++)
		if (p->settings[i].id == setting)
			return 1;
	return 0;
}

FG_EXPORT int faultgen_pattern_unbound_workers(enum faultgen_pattern pattern)
{
	const struct fg_pattern *p = fg_pattern(pattern);

	if (!p)
		return api_rc(-EINVAL);
	return p->unbound_workers ? 1 : 0;
}

/* ---- settings, as data (LIBFAULTGEN_1.3) --------------------------------- */

FG_EXPORT int faultgen_setting_count(void)
{
	return (int)fg_setting_count();
}

FG_EXPORT int faultgen_setting_info(unsigned int index,
				    struct faultgen_setting_info *info)
{
	struct faultgen_setting_info i;
	const struct fg_setting *s;
	int pattern = -1;

	if (!sized_ok(info, offsetof(struct faultgen_setting_info, name) +
				    sizeof(info->name)))
		return api_rc(-EINVAL);
	s = fg_setting_at(index, &pattern);
	if (!s)
		return api_rc(-ERANGE);
	memset(&i, 0, sizeof(i));
	i.size = sizeof(i);
	i.name = s->name;
	i.pattern = pattern;
	i.setting = s->id;
	i.type = s->type;
	i.keywords = s->keywords;
	i.min = s->min;
	i.max = s->max;
	i.max_seconds = s->max_seconds;
	fg_slot_to_value(s, &s->def, &i.default_value);
	if (strcmp(s->name, "size") == 0)
		i.default_value.v.number = (uint64_t)fg_pagesize();
	i.default_text = s->def_text;
	i.value_name = s->value_name;
	i.help = s->help;
	i.flags = s->flags;
	i.alias = s->alias;
	fg_copy_sized(info, &i, sizeof(i));
	return 0;
}

FG_EXPORT int faultgen_setting_index(const char *name)
{
	const struct fg_setting *s;

	if (!name)
		return api_rc(-EINVAL);
	for (unsigned int i = 0; (s = fg_setting_at(i, NULL)); i++)
		if (strcmp(s->name, name) == 0 ||
		    (s->alias && strcmp(s->alias, name) == 0))
			return (int)i;
	return api_rc(-ENOENT);
}

FG_EXPORT int faultgen_attr_set_value(struct faultgen_attr *attr,
				      const char *name,
				      const struct faultgen_value *value)
{
	const struct fg_setting *s;
	union fg_slot v;
	int ret;

	if (!attr || !name || !value)
		return api_rc(-EINVAL);
	s = fg_setting_named(name, NULL);
	if (!s)
		return api_rc(-ENOENT);
	ret = fg_value_to_slot(s, value, &v);
	return api_rc(ret ? ret : fg_setting_set(attr, s, &v));
}

FG_EXPORT int faultgen_attr_get_value(const struct faultgen_attr *attr,
				      const char *name,
				      struct faultgen_value *value)
{
	const struct fg_setting *s;
	union fg_slot v;

	if (!attr || !name || !value)
		return api_rc(-EINVAL);
	s = fg_setting_named(name, NULL);
	if (!s)
		return api_rc(-ENOENT);
	v = fg_setting_get(attr, s);
	fg_slot_to_value(s, &v, value);
	return 0;
}

FG_EXPORT int faultgen_pattern_info(enum faultgen_pattern pattern,
				    struct faultgen_pattern_info *info)
{
	const struct fg_pattern *p = fg_pattern(pattern);
	struct faultgen_pattern_info i;

	if (!p || !sized_ok(info, offsetof(struct faultgen_pattern_info, name) +
					  sizeof(info->name)))
		return api_rc(-EINVAL);
	memset(&i, 0, sizeof(i));
	i.size = sizeof(i);
	i.name = p->name;
	i.title = p->title;
	i.note = p->note;
	i.flags = fg_pattern_flags(p);
	i.backings = fg_pattern_backings(p);
	i.worker_kinds = fg_pattern_worker_kinds(p);
	i.nr_settings = p->nr_settings;
	fg_copy_sized(info, &i, sizeof(i));
	return 0;
}

/* ---- pretouch ---------------------------------------------------------- */

FG_EXPORT unsigned int faultgen_jvm_gc_threads(unsigned int ncpus)
{
	return fg_jvm_gc_threads(ncpus);
}

FG_EXPORT uint64_t faultgen_jvm_aux_bytes(unsigned int jdk,
					  enum faultgen_jvm_gc gc,
					  uint64_t heap_bytes)
{
	return fg_jvm_aux_bytes(jdk, gc, heap_bytes);
}

FG_EXPORT int faultgen_pretouch(const struct faultgen_attr *attr,
				struct faultgen_result *res)
{
	struct faultgen_attr pt;
	struct faultgen_run *run;
	int ret;

	if (!attr || !sized_ok(res, sizeof(size_t) * 2))
		return api_rc(-EINVAL);
	pt = *attr; /* shallow: fg_run_create copies the strings */
	pt.pattern = FAULTGEN_PRETOUCH;
	ret = fg_run_create(&pt, &run);
	if (ret)
		return api_rc(ret);
	ret = fg_run_exec(run);
	if (!ret)
		fg_copy_sized(res, &run->result, sizeof(run->result));
	fg_run_free(run);
	return api_rc(ret);
}

/* ---- misc -------------------------------------------------------------- */

FG_EXPORT int faultgen_stats(const double *values, size_t n,
			     struct faultgen_stats *st)
{
	struct faultgen_stats s = { .size = sizeof(s), .n = n };
	double *v;

	if ((!values && n) || !sized_ok(st, sizeof(size_t)))
		return api_rc(-EINVAL);
	if (n) {
		v = malloc(n * sizeof(*v));
		if (!v)
			return api_rc(-ENOMEM);
		memcpy(v, values, n * sizeof(*v));
		s.median = fg_median(v, n); /* sorts v */
		s.min = v[0];
		s.max = v[n - 1];
		for (size_t i = 0; i < n; i++)
			s.mean += v[i] / (double)n;
		free(v);
	}
	fg_copy_sized(st, &s, sizeof(s));
	return 0;
}

FG_EXPORT int faultgen_cpuset_dir(const char *name, char *buf, size_t len)
{
	if (!name || !*name || !buf || !len)
		return api_rc(-EINVAL);
	return api_rc(fg_cpuset_dir(name, NULL, NULL, buf, len));
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
		return "no such cpuset, node or file";
	case -ENOBUFS:
		return "CPU mask too small";
	case -ENOSPC:
		return "buffer too small, or a SysV limit reached (SHMMNI, "
		       "SHMALL)";
	case -EFBIG:
		return "larger than a SysV segment may be (SHMMAX)";
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
	case -EMFILE:
		return "too many open files in this process";
	case -ENFILE:
		return "too many open files in the system";
	case -ELOOP:
		return "a symbolic link, which is never followed (or a loop of them)";
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

/* ---- the replay's profile (LIBFAULTGEN_1.3) ----------------------- */

/* The setting "profile" set to v, and the attr's parsed profile to
 * ref (parsed once, here; the setting's store dropped the one it had),
 * or, on a failure, the attr as it was. */
static int profile_keep(struct faultgen_attr *attr, struct fg_profile_ref *ref,
			const union fg_slot *v)
{
	const struct fg_setting *s = fg_setting_named("profile", NULL);
	int ret = s ? fg_setting_set(attr, s, v) : -EINVAL;

	if (ret) {
		fg_profile_put(ref);
		return ret;
	}
	attr->profile = ref;
	return 0;
}

static const char *profile_read_why(int err)
{
	switch (err) {
	case -EINVAL:
		return "not a regular file";
	case -EFBIG:
		return "larger than a profile may be (64 MiB)";
	default:
		return strerror(-err);
	}
}

FG_EXPORT int faultgen_attr_set_profile(struct faultgen_attr *attr,
					const char *path)
{
	union fg_slot v = { .s = (char *)(uintptr_t)path };
	struct fg_profile_ref *ref;
	char *buf;
	size_t len;
	int ret;

	if (!attr || !path || !*path)
		return api_rc(-EINVAL);
	ret = fg_profile_read(path, &buf, &len);
	if (ret) {
		snprintf(attr->profile_error, sizeof(attr->profile_error),
			 "cannot read the profile: %s", profile_read_why(ret));
		return api_rc(ret);
	}
	ret = fg_profile_ref_parse(buf, len, &ref, attr->profile_error,
				   sizeof(attr->profile_error));
	free(buf);
	if (!ret)
		ret = profile_keep(attr, ref, &v);
	return api_rc(ret);
}

FG_EXPORT int faultgen_attr_set_profile_buffer(struct faultgen_attr *attr,
					       const void *buf, size_t len)
{
	union fg_slot none = { .s = NULL };
	struct fg_profile_ref *ref;
	int ret;

	if (!attr || !buf)
		return api_rc(-EINVAL);
	ret = fg_profile_ref_parse(buf, len, &ref, attr->profile_error,
				   sizeof(attr->profile_error));
	if (!ret)
		ret = profile_keep(attr, ref, &none);
	return api_rc(ret);
}

/* A message into the caller's buffer: its length, or -ENODATA. */
static int copy_message(const char *msg, char *buf, size_t len)
{
	if (!buf || !len)
		return api_rc(-EINVAL);
	if (!msg || !*msg)
		return api_rc(-ENODATA);
	snprintf(buf, len, "%s", msg);
	return (int)strlen(msg);
}

FG_EXPORT int faultgen_attr_profile_error(const struct faultgen_attr *attr,
					  char *buf, size_t len)
{
	if (!attr)
		return api_rc(-EINVAL);
	return copy_message(attr->profile_error, buf, len);
}

FG_EXPORT int faultgen_run_profile_error(const struct faultgen_run *run,
					 char *buf, size_t len)
{
	if (!run)
		return api_rc(-EINVAL);
	return copy_message(fg_replay_message(run), buf, len);
}

FG_EXPORT int faultgen_run_replay_object(const struct faultgen_run *run,
					 unsigned int object,
					 struct faultgen_replay_object *o)
{
	if (!run || !o ||
	    o->size < offsetof(struct faultgen_replay_object,
			       merged_windows) + sizeof(o->merged_windows))
		return api_rc(-EINVAL);
	return api_rc(fg_replay_object(run, object, o));
}

FG_EXPORT int faultgen_run_replay_faults(const struct faultgen_run *run,
					 unsigned int object, int worker,
					 const char *kind, uint64_t *faults)
{
	if (!run || !faults)
		return api_rc(-EINVAL);
	return api_rc(fg_replay_faults(run, object, worker, kind, faults));
}

FG_EXPORT const char *faultgen_replay_kind_name(unsigned int k)
{
	return k < FG_NR_KINDS ? fg_kind_names[k] : NULL;
}
