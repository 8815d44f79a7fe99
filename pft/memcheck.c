// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * memcheck.c - the check before a run that its size can be had at all.
 *
 * A size beyond the memory available is refused before anything is
 * mapped: faulting it would end in the OOM killer or swap storms, not in
 * a measurement.  --force runs it anyway.  Available means both the
 * machine's MemAvailable and the room left under the limits of pft's
 * memory cgroup and its ancestors (cgroup v1 or v2): inside a group
 * smaller than -m, the run would start and be OOM-killed.
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

int pft_check_memory(const struct pft_opts *o)
{
	uint64_t avail = mem_available();
	uint64_t size = faultgen_attr_get_size(o->attr);
	struct cgroup_room cg;

	if (o->force)
		return 0;
	if (avail && size > avail)
		return pft_fail("-m: %.2f GiB is more than the %.2f GiB of "
				"memory available (MemAvailable); --force runs "
				"it anyway",
				(double)size / GIB, (double)avail / GIB);
	if (cgroup_room(&cg) && size > cg.room)
		return pft_fail("-m: %.2f GiB is more than the %.2f GiB its "
				"memory cgroup allows (%s of %s: limit %.2f "
				"MiB, %.2f MiB in use); --force runs it anyway",
				(double)size / GIB, (double)cg.room / GIB,
				cg.file, cg.dir, (double)cg.limit / MIB,
				(double)cg.used / MIB);
	return 0;
}
