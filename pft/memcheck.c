// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * memcheck.c - the check before a run that its size can be had at all.
 *
 * A size beyond the memory available is refused before anything is
 * mapped: faulting it would end in the OOM killer or swap storms, not in
 * a measurement.  --force runs it anyway.  Available means both the
 * machine's MemAvailable and the room left under the limits of pft's
 * memory cgroup and its ancestors (cgroup v1 or v2): inside a group
 * smaller than -m, the run would start and be OOM-killed.  So would a
 * run bound to nodes (--membind, or a cpuset's memory nodes) that hold
 * less than -m: their free and reclaimable memory counts then.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "pft.h"

#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * 1024.0 * 1024.0)

/* MemAvailable of /proc/meminfo in bytes, or 0 when unknown. */
static uint64_t mem_available(void)
{
	int64_t kib = pft_proc_number("/proc/meminfo", "MemAvailable:");

	return kib > 0 ? (uint64_t)kib << 10 : 0;
}

/* The tightest memory limit of a cgroup and its ancestors. */
struct cgroup_room {
	uint64_t room;  /* limit - usage not reclaimable */
	uint64_t limit; /* bytes */
	uint64_t used;  /* bytes, all of it */
	const char *file;
	char dir[4096];
};

static void level_room(struct cgroup_room *best, const char *dir, int v)
{
	const char *lim_file = v == 1 ? "memory.limit_in_bytes" : "memory.max";
	int64_t limit = pft_cgroup_value(dir, lim_file);
	int64_t used = pft_cgroup_value(dir, v == 1 ? "memory.usage_in_bytes" :
						       "memory.current");
	int64_t cache = pft_cgroup_number(dir, "memory.stat",
					  v == 1 ? "total_inactive_file " :
						   "inactive_file ");
	uint64_t busy, room;

	if (limit < 0 || limit == INT64_MAX || used < 0)
		return;
	busy = (uint64_t)used - (cache > 0 && cache < used ? (uint64_t)cache :
							     0);
	room = (uint64_t)limit > busy ? (uint64_t)limit - busy : 0;
	if (best->file && room >= best->room)
		return;
	best->room = room;
	best->limit = (uint64_t)limit;
	best->used = (uint64_t)used;
	best->file = lim_file;
	snprintf(best->dir, sizeof(best->dir), "%s", dir);
}

/* Fills best with the tightest level; false when nothing limits. */
static bool cgroup_room(struct cgroup_room *best)
{
	char dir[4096], *slash;
	int v = pft_cgroup_dir("memory", dir, sizeof(dir));

	memset(best, 0, sizeof(*best));
	if (v < 0)
		return false;
	/* Up to the hierarchy's root, whose files (if any) say no limit. */
	while ((slash = strrchr(dir, '/')) && slash != dir &&
	       strcmp(dir, "/sys/fs/cgroup") != 0) {
		level_room(best, dir, v);
		*slash = '\0';
	}
	return best->file != NULL;
}

/* A "Node N KEY: V kB" line of node's meminfo, in bytes, or 0. */
static uint64_t node_value(const char *path, int node, const char *key)
{
	char want[64];
	int64_t kib;

	snprintf(want, sizeof(want), "Node %d %s", node, key);
	kib = pft_proc_number(path, want);
	return kib > 0 ? (uint64_t)kib << 10 : 0;
}

/* What node could give: free, page cache but shmem, and reclaimable
 * slab (an upper bound: the check refuses only what cannot be had). */
static uint64_t node_room(int node)
{
	char path[128];
	uint64_t file, shmem;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo",
		 node);
	file = node_value(path, node, "FilePages:");
	shmem = node_value(path, node, "Shmem:");
	return node_value(path, node, "MemFree:") +
	       (file > shmem ? file - shmem : 0) +
	       node_value(path, node, "SReclaimable:");
}

/*
 * The nodes a run's pages may come from when that is not every node:
 * --membind's (strict), else those of the cpuset pft runs in.  Fills
 * nodes and says which ("the --membind nodes"); NULL for every node.
 */
static const char *bound_nodes(const struct pft_opts *o, unsigned long *nodes,
			       size_t nbits)
{
	unsigned long all[PFT_NODE_WORDS];
	const char *list = faultgen_attr_get_numa_nodes(o->attr);
	bool fewer = false;

	if (faultgen_numa_nodes(all, nbits) <= 0 ||
	    faultgen_numa_allowed(nodes, nbits) <= 0)
		return NULL;
	if (faultgen_attr_get_numa(o->attr) == FAULTGEN_NUMA_BIND && list &&
	    strcmp(list, "all") != 0) {
		unsigned long bind[PFT_NODE_WORDS];

		if (faultgen_parse_cpulist(list, bind, nbits) <= 0)
			return NULL;
		for (size_t i = 0; i < PFT_NODE_WORDS; i++)
			nodes[i] &= bind[i];
		return "the --membind nodes";
	}
	for (size_t i = 0; i < PFT_NODE_WORDS; i++)
		fewer |= (all[i] & ~nodes[i]) != 0;
	return fewer ? "the nodes of its cpuset" : NULL;
}

/* Whether the bound nodes can hold size; else why not, in buf. */
static bool nodes_hold(const struct pft_opts *o, uint64_t size, char *buf,
		       size_t len)
{
	unsigned long nodes[PFT_NODE_WORDS];
	size_t nbits = PFT_MAX_NODES, used = 0;
	const char *which = bound_nodes(o, nodes, nbits);
	char each[256] = "";
	uint64_t room = 0;

	if (!which)
		return true;
	for (size_t n = 0; n < nbits; n++) {
		uint64_t r;

		if (!(nodes[n / (8 * sizeof(long))] >> (n % (8 * sizeof(long))) &
		      1))
			continue;
		r = node_room((int)n);
		room += r;
		if (used < sizeof(each))
			used += (size_t)snprintf(each + used,
						 sizeof(each) - used,
						 "%snode %zu: %.2f GiB",
						 used ? ", " : "", n,
						 (double)r / GIB);
	}
	if (size <= room)
		return true;
	snprintf(buf, len, "-m: %.2f GiB is more than the %.2f GiB %s have "
		 "free or reclaimable (%s); --force runs it anyway",
		 (double)size / GIB, (double)room / GIB, which, each);
	return false;
}

/*
 * "-m: 0.14 GiB", and when the run holds its pages twice (a written
 * private mapping of shmem, cow-fork: faultgen_attr_get_memory), what it
 * holds and why.
 */
static void what_is_held(const struct pft_opts *o, uint64_t size,
			 uint64_t held, char *buf, size_t len)
{
	bool cow = faultgen_attr_get_pattern(o->attr) == FAULTGEN_COW_FORK;

	if (faultgen_attr_get_pattern(o->attr) == FAULTGEN_REPLAY) {
		snprintf(buf, len, "--replay: the profile's objects, %.2f GiB,",
			 (double)held / GIB);
		return;
	}
	if (held <= size) {
		snprintf(buf, len, "-m: %.2f GiB", (double)size / GIB);
		return;
	}
	snprintf(buf, len, "-m: %.2f GiB, which this run holds twice (%s), "
		 "%.2f GiB,", (double)size / GIB,
		 cow ? "cow-fork: the parent's pages and their copies" :
		       "a private mapping of shmem: each page in the file "
		       "and its copy",
		 (double)held / GIB);
}

int pft_check_memory(const struct pft_opts *o)
{
	char why[512], what[256];
	uint64_t avail = mem_available();
	uint64_t size = faultgen_attr_get_size(o->attr), held = size;
	struct cgroup_room cg;

	/* Huge pages come from their pool, which the library checks. */
	if (o->force || pft_huge_size(o->attr))
		return 0;
	/* What the run holds at once: its pages, twice where each is
	 * held twice. */
	faultgen_attr_get_memory(o->attr, NULL, &held);
	what_is_held(o, size, held, what, sizeof(what));
	if (avail && held > avail)
		return pft_fail("%s is more than the %.2f GiB of memory "
				"available (MemAvailable); --force runs it "
				"anyway", what, (double)avail / GIB);
	if (cgroup_room(&cg) && held > cg.room)
		return pft_fail("%s is more than the %.2f GiB its memory cgroup "
				"allows (%s of %s: limit %.2f MiB, %.2f MiB in "
				"use); --force runs it anyway", what,
				(double)cg.room / GIB, cg.file, cg.dir,
				(double)cg.limit / MIB, (double)cg.used / MIB);
	if (!nodes_hold(o, held, why, sizeof(why)))
		return pft_fail("%s", why);
	return 0;
}
