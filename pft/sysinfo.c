// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sysinfo.c - what pft reads about the system around a run: the
 * fault-related /proc/vmstat and mTHP counters, the THP settings, the
 * run's numa_maps lines, the OOM kill count.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pft.h"

/* Counters that bear on faults: faults themselves, page allocation and
 * freeing, THP, NUMA placement, migration, compaction and reclaim a
 * fault may have run into, OOM kills. */
bool pft_vmstat_relevant(const char *name)
{
	static const char *const prefixes[] = {
		"pgfault", "pgmajfault", "pgalloc_", "pgfree", "pgreuse",
		"pglazyfree", "thp_", "numa_", "pgmigrate_", "compact_",
		"pgscan_", "pgsteal_", "oom_kill", "nr_anon_", "cow_ksm",
		"zone_reclaim", "nr_free_pages", "nr_shmem",
	};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

void pft_vmstat_release(struct pft_vmstat *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->names[i]);
	free(v->names);
	free(v->vals);
	memset(v, 0, sizeof(*v));
}

static int vmstat_add(struct pft_vmstat *v, size_t *cap, const char *name,
		      int64_t val)
{
	if (v->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		char **names = realloc(v->names, ncap * sizeof(*names));

		if (!names)
			return -ENOMEM;
		v->names = names;
		int64_t *vals = realloc(v->vals, ncap * sizeof(*vals));

		if (!vals)
			return -ENOMEM;
		v->vals = vals;
		*cap = ncap;
	}
	v->names[v->n] = strdup(name);
	if (!v->names[v->n])
		return -ENOMEM;
	v->vals[v->n++] = val;
	return 0;
}

/* The relevant counters of /proc/vmstat, in the kernel's order. */
int pft_vmstat_read(struct pft_vmstat *v)
{
	char line[256];
	size_t cap = 0;
	int ret = 0;
	FILE *f;

	memset(v, 0, sizeof(*v));
	f = fopen("/proc/vmstat", "re");
	if (!f)
		return -errno;
	while (!ret && fgets(line, sizeof(line), f)) {
		char *sp = strchr(line, ' ');

		if (!sp)
			continue;
		*sp = '\0';
		if (pft_vmstat_relevant(line))
			ret = vmstat_add(v, &cap, line,
					 strtoll(sp + 1, NULL, 10));
	}
	fclose(f);
	if (ret)
		pft_vmstat_release(v);
	return ret;
}

int64_t pft_vmstat_get(const struct pft_vmstat *v, const char *name)
{
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->names[i], name) == 0)
			return v->vals[i];
	return 0;
}

/* The mTHP statistics that bear on anonymous and shmem faults. */
static const char *const mthp_stats[] = {
	"anon_fault_alloc", "anon_fault_fallback",
	"anon_fault_fallback_charge", "shmem_alloc", "shmem_fallback",
	"split", "nr_anon",
};

/*
 * The mTHP statistics of every size, smallest first, as counters named
 * "hugepages-64kB/anon_fault_alloc".
 */
int pft_mthp_read(struct pft_vmstat *v)
{
	static const char root[] = "/sys/kernel/mm/transparent_hugepage";
	struct dirent **list;
	size_t cap = 0;
	int ret = 0, n;

	memset(v, 0, sizeof(*v));
	n = pft_list_mthp(&list);
	for (int i = 0; i < n; i++) {
		for (size_t k = 0; !ret && k < sizeof(mthp_stats) /
						    sizeof(mthp_stats[0]);
		     k++) {
			char path[1024], name[512], val[64];

			snprintf(path, sizeof(path), "%s/%s/stats/%s", root,
				 list[i]->d_name, mthp_stats[k]);
			if (pft_read_line(path, val, sizeof(val)) < 0)
				continue;
			snprintf(name, sizeof(name), "%s/%s", list[i]->d_name,
				 mthp_stats[k]);
			ret = vmstat_add(v, &cap, name,
					 strtoll(val, NULL, 10));
		}
		free(list[i]);
	}
	free(list);
	if (ret)
		pft_vmstat_release(v);
	return ret;
}

static int is_mthp_dir(const struct dirent *de)
{
	return strncmp(de->d_name, "hugepages-", 10) == 0;
}

/* The mTHP size directories, smallest first; the caller frees them. */
int pft_list_mthp(struct dirent ***list)
{
	int n = scandir("/sys/kernel/mm/transparent_hugepage", list,
			is_mthp_dir, versionsort);

	if (n < 0) {
		*list = NULL;
		return 0;
	}
	return n;
}

/* The first line of a small file, without its newline. */
int pft_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	char *nl;

	buf[0] = '\0';
	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	return 0;
}

/* The selected value of a sysfs THP knob: "[madvise]" in the list. */
void pft_thp_mode(const char *path, char *buf, size_t len)
{
	char line[512], *open, *close;

	if (pft_read_line(path, line, sizeof(line)) < 0) {
		buf[0] = '\0';
		return;
	}
	open = strchr(line, '[');
	close = open ? strchr(open, ']') : NULL;
	if (open && close) {
		*close = '\0';
		snprintf(buf, len, "%s", open + 1);
	} else {
		snprintf(buf, len, "%s", line);
	}
}

/*
 * The start of the mapping that holds addr.  The region's mapping merges
 * with an anonymous mapping just below it when their flags agree (a thread
 * stack, MAP_STACK, under --thp=never on kernels that mark stacks
 * VM_NOHUGEPAGE, or any stack on older kernels); its numa_maps line then
 * starts below the region.  addr itself when /proc/self/maps has no such
 * mapping.
 */
static uintptr_t pft_vma_start(uintptr_t addr)
{
	unsigned long long lo = 0, hi = 0;
	bool at_start = true;
	uintptr_t start = addr;
	char line[512], *end;
	FILE *f;

	f = fopen("/proc/self/maps", "re");
	if (!f)
		return addr;
	while (fgets(line, sizeof(line), f)) {
		/* A long path continues the line: skip to the next one. */
		bool whole = strchr(line, '\n') != NULL;

		if (at_start) {
			lo = strtoull(line, &end, 16);
			hi = *end == '-' ? strtoull(end + 1, &end, 16) : 0;
		}
		if (at_start && hi && lo <= addr && addr < hi) {
			start = (uintptr_t)lo;
			break;
		}
		at_start = whole;
	}
	fclose(f);
	return start;
}

/*
 * Calls line() with each numa_maps line (without its newline) of the
 * mappings that hold [addr, addr + len); returns how many, or -errno.
 */
int pft_numa_maps(void *addr, size_t len,
		  void (*line)(const char *text, void *ctx), void *ctx)
{
	uintptr_t lo = pft_vma_start((uintptr_t)addr);
	uintptr_t hi = (uintptr_t)addr + len;
	char buf[4096];
	int found = 0;
	FILE *f;

	f = fopen("/proc/self/numa_maps", "re");
	if (!f)
		return -errno;
	while (fgets(buf, sizeof(buf), f)) {
		uintptr_t start = (uintptr_t)strtoull(buf, NULL, 16);
		char *nl = strchr(buf, '\n');

		if (nl)
			*nl = '\0';
		if (start >= lo && start < hi) {
			line(buf, ctx);
			found++;
		}
	}
	fclose(f);
	return found;
}

static void print_line(const char *text, void *ctx)
{
	fprintf(ctx, "%s\n", text);
}

int pft_print_numa_maps(FILE *out, void *addr, size_t len)
{
	return pft_numa_maps(addr, len, print_line, out);
}

/*
 * The number after `key` at the start of a line of a /proc file (the key
 * includes its separator, e.g. "MemAvailable:"), or -1 when the file or
 * the line is missing.  For one value no table is built.
 */
int64_t pft_proc_number(const char *path, const char *key)
{
	size_t klen = strlen(key);
	char line[256];
	int64_t n = -1;
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen) == 0) {
			n = strtoll(line + klen, NULL, 10);
			break;
		}
	}
	fclose(f);
	return n;
}

int64_t pft_oom_kills(void)
{
	return pft_proc_number("/proc/vmstat", "oom_kill ");
}
