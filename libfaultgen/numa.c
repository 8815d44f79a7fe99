// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * numa.c - memory policies and where the pages landed, through libnuma.
 *
 * Only the parts of libnuma that neither print nor exit are used: its
 * system call wrappers (mbind, get_mempolicy, move_pages from numaif.h),
 * numa_available, and the node counts and existing-node mask its
 * constructor works out.  Its string parsers print to stderr, so node
 * lists go through the library's own list parser, and its bitmask
 * allocator exits on failure, so masks are the library's own bitmaps.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Pages asked about per move_pages call: stack arrays, no allocation
 * (forked workers call it). */
#define QUERY_BATCH 256
/* Nodes the per-node page counts cover (more: counted in the last). */
#define MAX_REPORT_NODES 1024

/* The kernel supports memory policies (numa_available), 1 or 0. */
bool fg_numa_available(void)
{
	return numa_available() >= 0;
}

/* Bits of a node mask: every node id the kernel may use. */
size_t fg_numa_nbits(void)
{
	int n = numa_num_possible_nodes();

	return n > 0 ? (size_t)n : 1;
}

/* The nodes that exist, into mask (nbits); returns how many. */
int fg_numa_nodes(unsigned long *mask, size_t nbits)
{
	int count = 0, max = numa_max_node();

	memset(mask, 0, fg_bitmap_longs(nbits) * sizeof(*mask));
	if (!fg_numa_available())
		return -EOPNOTSUPP;
	for (int n = 0; n <= max && (size_t)n < nbits; n++) {
		if (numa_nodes_ptr && !numa_bitmask_isbitset(numa_nodes_ptr,
							     (unsigned int)n))
			continue;
		fg_bit_set(mask, (size_t)n);
		count++;
	}
	return count;
}

/* The nodes this thread may allocate on (its cpuset's mems), as the
 * kernel says; returns how many. */
int fg_numa_allowed(unsigned long *mask, size_t nbits)
{
	size_t kbits = fg_numa_nbits(), n;
	unsigned long *k;
	int count = 0;

	memset(mask, 0, fg_bitmap_longs(nbits) * sizeof(*mask));
	if (!fg_numa_available())
		return -EOPNOTSUPP;
	k = calloc(fg_bitmap_longs(kbits) + 1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	if (get_mempolicy(NULL, k, kbits + 1, NULL, MPOL_F_MEMS_ALLOWED) < 0) {
		count = -errno;
		free(k);
		return count;
	}
	for (n = 0; n < kbits && n < nbits; n++) {
		if (fg_bit_test(k, n)) {
			fg_bit_set(mask, n);
			count++;
		}
	}
	free(k);
	return count;
}

/* Whether the policy names nodes. */
bool fg_numa_takes_nodes(enum faultgen_numa policy)
{
	return policy == FAULTGEN_NUMA_BIND ||
	       policy == FAULTGEN_NUMA_INTERLEAVE ||
	       policy == FAULTGEN_NUMA_PREFERRED;
}

/*
 * A node list: "all", or a list such as "0-3", "1,3", as numactl takes
 * them, into mask (nbits); "all" sets *all and leaves the mask empty.
 * Returns the number of nodes listed (0 for "all") or -EINVAL/-ERANGE.
 */
int fg_parse_nodes(const char *list, unsigned long *mask, size_t nbits,
		   bool *all)
{
	*all = strcmp(list, "all") == 0;
	if (*all) {
		memset(mask, 0, fg_bitmap_longs(nbits) * sizeof(*mask));
		return 0;
	}
	return fg_parse_cpulist(list, mask, nbits);
}

/*
 * The nodes in want (nbits) checked: each must exist (-ENOENT) and be
 * one this thread may allocate on, within a named cpuset's memory nodes
 * mems (NULL: none) too (-ENXIO).  all: want becomes every node allowed.
 */
int fg_numa_check_nodes(unsigned long *want, size_t nbits, bool all,
			const unsigned long *mems, size_t mems_nbits)
{
	size_t longs = fg_bitmap_longs(nbits);
	unsigned long *exist = calloc(longs, sizeof(*exist));
	unsigned long *allowed = calloc(longs, sizeof(*allowed));
	int ret = exist && allowed ? 0 : -ENOMEM;

	if (!ret)
		ret = fg_numa_nodes(exist, nbits);
	if (ret >= 0)
		ret = fg_numa_allowed(allowed, nbits);
	for (size_t i = 0; ret >= 0 && i < longs; i++) {
		if (mems && i < fg_bitmap_longs(mems_nbits))
			allowed[i] &= mems[i];
		else if (mems)
			allowed[i] = 0;
		if (all)
			want[i] = allowed[i] & exist[i];
		if (want[i] & ~exist[i])
			ret = -ENOENT;
		else if (want[i] & ~allowed[i])
			ret = -ENXIO;
	}
	free(exist);
	free(allowed);
	return ret < 0 ? ret : 0;
}

/* The nodes of the run's policy, checked now (fg_numa_check_nodes). */
int fg_numa_resolve(struct faultgen_run *run)
{
	const struct faultgen_attr *a = &run->attr;
	size_t nbits = fg_numa_nbits();
	unsigned long *want;
	bool all;
	int ret;

	if (a->numa == FAULTGEN_NUMA_DEFAULT)
		return 0;
	if (!fg_numa_available())
		return -EOPNOTSUPP;
	if (!fg_numa_takes_nodes(a->numa))
		return 0;
	want = calloc(fg_bitmap_longs(nbits), sizeof(*want));
	if (!want)
		return -ENOMEM;
	ret = fg_parse_nodes(a->numa_nodes, want, nbits, &all);
	if (ret >= 0)
		ret = fg_numa_check_nodes(want, nbits, all, run->mems,
					  run->mems_nbits);
	if (ret < 0) {
		free(want);
		return ret;
	}
	run->numa_nodes = want;
	run->numa_nbits = nbits;
	return 0;
}

static long bind_range(void *addr, size_t len, int mode,
		       const unsigned long *mask, size_t nbits)
{
	/* maxnode counts one more than the bits the kernel reads. */
	return mbind(addr, len, mode, mask, mask ? nbits + 1 : 0, 0);
}

/* The policy of a fresh mapping, as the attr and a cpuset ask. */
int fg_numa_policy(const struct faultgen_run *run, void *addr, size_t len)
{
	const struct faultgen_attr *a = &run->attr;
	long ret = 0;

	switch (a->numa) {
	case FAULTGEN_NUMA_LOCAL:
		/* MPOL_PREFERRED with an empty mask: allocate locally. */
		ret = bind_range(addr, len, MPOL_PREFERRED, NULL, 0);
		break;
	case FAULTGEN_NUMA_BIND:
		ret = bind_range(addr, len, MPOL_BIND, run->numa_nodes,
				 run->numa_nbits);
		break;
	case FAULTGEN_NUMA_INTERLEAVE:
		ret = bind_range(addr, len, MPOL_INTERLEAVE, run->numa_nodes,
				 run->numa_nbits);
		break;
	case FAULTGEN_NUMA_PREFERRED:
		ret = bind_range(addr, len, MPOL_PREFERRED, run->numa_nodes,
				 run->numa_nbits);
		break;
	case FAULTGEN_NUMA_WORKER_LOCAL: /* each worker, fg_numa_worker */
	case FAULTGEN_NUMA_DEFAULT:
		if (run->mems)
			ret = bind_range(addr, len, MPOL_BIND, run->mems,
					 run->mems_nbits);
		break;
	}
	return ret < 0 ? -errno : 0;
}

/*
 * Worker-local: the worker, placed on its CPU and before the start gate,
 * binds its own slice to the node of that CPU (the kernel's answer,
 * getcpu); on a node it cannot bind to, its slice is allocated locally.  On a shared VMA, slices bound to different nodes split the
 * VMA (as mlock of a slice does); those bound to the same node merge
 * back.  System calls only: forked workers call it.
 */
int fg_numa_worker(const struct faultgen_run *run, char *addr, size_t len)
{
	unsigned long mask[MAX_REPORT_NODES / (8 * sizeof(long))] = { 0 };
	unsigned int cpu, node;

	if (run->attr.numa != FAULTGEN_NUMA_WORKER_LOCAL || !len)
		return 0;
	if (getcpu(&cpu, &node) < 0)
		return -errno;
	if (node >= MAX_REPORT_NODES)
		return -ERANGE;
	fg_bit_set(mask, node);
	if (bind_range(addr, len, MPOL_BIND, mask, node + 1) == 0)
		return 0;
	if (errno != EINVAL)
		return -errno;
	/* A node without memory (CPU-only), or outside the cpuset's memory
	 * nodes: local allocation, which the kernel serves from the
	 * nearest node with memory that is allowed, as its own local
	 * policy does. */
	return bind_range(addr, len, MPOL_PREFERRED, NULL, 0) < 0 ? -errno : 0;
}

/* Nodes a per-node page count has (node ids beyond: in the last). */
size_t fg_numa_report_nodes(void)
{
	int max = numa_max_node();
	size_t n = max >= 0 ? (size_t)max + 1 : 1;

	return n < MAX_REPORT_NODES ? n : MAX_REPORT_NODES;
}

/*
 * Counts the pages of [addr, addr+len) present on each node (move_pages
 * with no target only asks), adding into counts[nnodes].  Pages not
 * present are not counted.  System calls only: forked workers call it.
 */
int fg_numa_count(char *addr, size_t len, size_t ps, uint64_t *counts,
		  size_t nnodes)
{
	void *pages[QUERY_BATCH];
	int status[QUERY_BATCH];
	size_t total = len / ps;

	for (size_t done = 0; done < total;) {
		unsigned long n = total - done < QUERY_BATCH ?
					  (unsigned long)(total - done) :
					  QUERY_BATCH;

		for (unsigned long k = 0; k < n; k++)
			pages[k] = addr + (done + k) * ps;
		if (move_pages(0, n, pages, NULL, status, 0) < 0)
			return -errno;
		for (unsigned long k = 0; k < n; k++) {
			if (status[k] < 0)
				continue;
			counts[(size_t)status[k] < nnodes ? (size_t)status[k] :
							    nnodes - 1]++;
		}
		done += n;
	}
	return 0;
}
