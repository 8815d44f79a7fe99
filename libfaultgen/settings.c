// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * settings.c - the settings of an attr as data: the table of those every
 * pattern may read, and the lookups over it and the tables each pattern
 * keeps of its own (struct fg_pattern's settings); values.c checks,
 * stores and reads a value by its entry.  The typed setters of api.c and
 * faultgen_attr_set_value both go there, so that a setting's rules are
 * written once, beside its name, default and help.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const workers_kinds[] = { "threads", "processes", NULL };
/* By enum faultgen_backing; "file" takes its path from backing-path. */
static const char *const backings[] = {
	"anon", "dev-zero", "sysv", "memfd", "file", "hugetlb", NULL,
};
static const char *const touches[] = {
	"write", "read", "memset", "mlock", "populate", NULL,
};
static const char *const thps[] = { "default", "always", "never", NULL };
static const char *const zaps[] = { "dontneed", "munmap", NULL };

/* set_workers: a count the caller chose (pretouch's default is the
 * JVM's otherwise). */
static void workers_given(struct faultgen_attr *a)
{
	a->nr_workers_set = true;
}

/* At most the cachelines of a page. */
static int cachelines_check(const struct faultgen_attr *a,
			    const union fg_slot *v)
{
	(void)a;
	return v->u <= (unsigned long)fg_pagesize() / fg_cacheline() ?
		       0 :
		       -EINVAL;
}

/* Rounds or a duration: the later one holds. */
static void rounds_given(struct faultgen_attr *a)
{
	a->duration = 0;
}

static void duration_given(struct faultgen_attr *a)
{
	a->rounds = 0;
}

static int backing_path_check(const struct faultgen_attr *a,
			      const union fg_slot *v)
{
	(void)a;
	return v->s ? fg_backing_path_check(v->s) : 0;
}

static int cpus_check(const struct faultgen_attr *a, const union fg_slot *v)
{
	int possible = fg_possible_cpus();
	unsigned long *mask;
	int ret;

	(void)a;
	if (!v->s)
		return 0;
	if (possible < 0)
		return possible;
	mask = calloc(fg_bitmap_longs((size_t)possible), sizeof(*mask));
	if (!mask)
		return -ENOMEM;
	ret = fg_parse_cpulist(v->s, mask, (size_t)possible);
	free(mask);
	return ret < 0 ? ret : 0;
}

static int cpuset_check(const struct faultgen_attr *a,
			const union fg_slot *v)
{
	(void)a;
	if (v->s && (!*v->s || !fg_cpuset_relative(v->s) ||
		     strlen(v->s) > 1024))
		return -EINVAL;
	return 0;
}

#define SWITCH(n, i, field, h)                                            \
	{ .name = (n), .id = (i), .type = FAULTGEN_TYPE_BOOL,             \
	  .offset = FG_AT(field), .def_text = "off", .help = (h) }

/* The settings every pattern may read (faultgen_pattern_reads). */
static const struct fg_setting common[] = {
	{ .name = "size", .id = FAULTGEN_SETTING_SIZE,
	  .type = FAULTGEN_TYPE_SIZE, .offset = FG_AT(size), .min = 1,
	  .max = FAULTGEN_MAX_SIZE, .def_text = "one page",
	  .value_name = "SIZE", .help = "memory in all" },
	{ .name = "workers", .id = FAULTGEN_SETTING_WORKERS,
	  .type = FAULTGEN_TYPE_UINT, .offset = FG_AT(nr_workers), .min = 1,
	  .max = FAULTGEN_MAX_WORKERS, .def = { .u = 1 }, .def_text = "1",
	  .value_name = "N", .help = "workers", .also = workers_given },
	{ .name = "worker-kind", .id = FAULTGEN_SETTING_WORKERS,
	  .type = FAULTGEN_TYPE_KEYWORD, .keywords = workers_kinds,
	  .offset = FG_AT(kind), .def_text = "threads", .value_name = "KIND",
	  .help = "threads of the calling process or forked processes" },
	{ .name = "backing", .id = FAULTGEN_SETTING_BACKING,
	  .type = FAULTGEN_TYPE_KEYWORD, .keywords = backings,
	  .offset = FG_AT(backing), .def_text = "anon", .value_name = "KIND",
	  .help = "the kind of memory" },
	{ .name = "backing-path", .id = FAULTGEN_SETTING_BACKING,
	  .type = FAULTGEN_TYPE_TEXT, .offset = FG_AT(backing_path),
	  .value_name = "PATH", .check = backing_path_check,
	  .def_text = "none",
	  .help = "the file backing's directory or file" },
	SWITCH("share", FAULTGEN_SETTING_SHARE, share,
	       "MAP_SHARED: anon and dev-zero are shmem then"),
	SWITCH("shm-lock", FAULTGEN_SETTING_SHM_LOCK, shm_lock,
	       "SHM_LOCK the SysV segment"),
	SWITCH("cold", FAULTGEN_SETTING_NONE, cold,
	       "file: drop each round's pages from the page cache\n"
	       "first, so that every fault reads the file (major)"),
	{ .name = "touch", .id = FAULTGEN_SETTING_TOUCH,
	  .type = FAULTGEN_TYPE_KEYWORD, .keywords = touches,
	  .offset = FG_AT(touch), .def_text = "write", .value_name = "HOW",
	  .help = "how each worker touches its memory" },
	{ .name = "cachelines", .id = FAULTGEN_SETTING_CACHELINES,
	  .type = FAULTGEN_TYPE_UINT, .offset = FG_AT(cachelines), .min = 1,
	  .max = 1u << 20, .def = { .u = 1 }, .def_text = "1",
	  .value_name = "N", .check = cachelines_check,
	  .help = "cachelines written in every page (at most a page's)" },
	{ .name = "thp", .id = FAULTGEN_SETTING_THP,
	  .type = FAULTGEN_TYPE_KEYWORD, .keywords = thps,
	  .offset = FG_AT(thp), .def_text = "default", .value_name = "MODE",
	  .help = "THP advice per region: always (MADV_HUGEPAGE), never" },
	{ .name = "cpus", .id = FAULTGEN_SETTING_CPUS,
	  .type = FAULTGEN_TYPE_TEXT, .offset = FG_AT(cpulist),
	  .value_name = "LIST", .check = cpus_check,
	  .def_text = "the affinity mask",
	  .help = "narrow the allowed CPUs" },
	{ .name = "cpuset", .id = FAULTGEN_SETTING_CPUSET,
	  .type = FAULTGEN_TYPE_TEXT, .offset = FG_AT(cpuset),
	  .value_name = "NAME", .check = cpuset_check,
	  .def_text = "none",
	  .help = "run on the CPUs of a named cpuset" },
	SWITCH("pin", FAULTGEN_SETTING_PIN, pin,
	       "pin each worker to a CPU, round robin"),
	SWITCH("sched-fifo", FAULTGEN_SETTING_SCHED_FIFO, sched_fifo,
	       "run the workers SCHED_FIFO"),
	SWITCH("oversubscribe", FAULTGEN_SETTING_OVERSUBSCRIBE, oversubscribe,
	       "allow more workers than allowed CPUs"),
	SWITCH("caller-worker", FAULTGEN_SETTING_CALLER_WORKER, caller_worker,
	       "the calling thread runs worker 0"),
	SWITCH("node-pages", FAULTGEN_SETTING_NODE_PAGES, node_pages,
	       "count each worker's pages per NUMA node"),
	SWITCH("catch-sigbus", FAULTGEN_SETTING_NONE, catch_sigbus,
	       "a worker's SIGBUS ends the run, not the process"),
	SWITCH("lock-paths", FAULTGEN_SETTING_NONE, lock_paths,
	       "count which lock each worker's faults took"),
	SWITCH("lock-waits", FAULTGEN_SETTING_NONE, lock_waits,
	       "time each worker's mmap_lock waits (a ring buffer)"),
	{ .name = "rounds", .id = FAULTGEN_SETTING_REPEAT,
	  .type = FAULTGEN_TYPE_UINT, .offset = FG_AT(rounds),
	  .max = UINT32_MAX, .flags = FAULTGEN_SETTING_ZERO, .def_text = "0",
	  .value_name = "N", .also = rounds_given,
	  .help = "measured rounds of fault and zap (0: one pass)" },
	{ .name = "duration", .id = FAULTGEN_SETTING_REPEAT,
	  .type = FAULTGEN_TYPE_SECONDS, .offset = FG_AT(duration),
	  .max_seconds = FAULTGEN_MAX_SECONDS, .flags = FAULTGEN_SETTING_ZERO,
	  .def_text = "0", .value_name = "SECONDS", .also = duration_given,
	  .help = "fault, zap and fault again for SECONDS (0: one pass)" },
	{ .name = "zap", .id = FAULTGEN_SETTING_ZAP,
	  .type = FAULTGEN_TYPE_KEYWORD, .keywords = zaps,
	  .offset = FG_AT(zap), .def_text = "dontneed", .value_name = "HOW",
	  .help = "what makes the next round fault again" },
	{ .name = "warmup", .id = FAULTGEN_SETTING_WARMUP,
	  .type = FAULTGEN_TYPE_UINT, .offset = FG_AT(warmup),
	  .max = FAULTGEN_MAX_WARMUP, .flags = FAULTGEN_SETTING_ZERO,
	  .def_text = "0", .value_name = "N",
	  .help = "unmeasured rounds before the measured ones" },
	{ .name = "latency", .id = FAULTGEN_SETTING_LATENCY,
	  .type = FAULTGEN_TYPE_UINT, .offset = FG_AT(latency),
	  .max = FAULTGEN_MAX_LATENCY_EVERY, .flags = FAULTGEN_SETTING_ZERO,
	  .def_text = "0", .value_name = "N",
	  .help = "time one touch in N (0: none)" },
};
#define NR_COMMON (sizeof(common) / sizeof(common[0]))

/* The names faultgen_conflict gives settings without an entry here. */
static const struct {
	enum faultgen_setting id;
	const char *name;
} other_names[] = {
	{ FAULTGEN_SETTING_PATTERN, "pattern" },
	{ FAULTGEN_SETTING_NUMA, "numa" },
	{ FAULTGEN_SETTING_REPEAT, "repeat" },
	{ FAULTGEN_SETTING_REGION, "region" },
	{ FAULTGEN_SETTING_JVM, "jvm" },
};

/* Every setting: the common ones, then each pattern's, in the order of
 * the patterns. */
unsigned int fg_setting_count(void)
{
	unsigned int n = NR_COMMON;

	for (unsigned int p = 0; p < fg_pattern_count(); p++)
		n += fg_pattern((enum faultgen_pattern)p)->nr_settings;
	return n;
}

/* Setting `index`, and in *pattern its pattern or -1 (may be NULL). */
const struct fg_setting *fg_setting_at(unsigned int index, int *pattern)
{
	if (index < NR_COMMON) {
		if (pattern)
			*pattern = -1;
		return &common[index];
	}
	index -= NR_COMMON;
	for (unsigned int p = 0; p < fg_pattern_count(); p++) {
		const struct fg_pattern *pat =
			fg_pattern((enum faultgen_pattern)p);

		if (index < pat->nr_settings) {
			if (pattern)
				*pattern = (int)p;
			return &pat->settings[index];
		}
		index -= pat->nr_settings;
	}
	return NULL;
}

const struct fg_setting *fg_setting_named(const char *name, int *pattern)
{
	const struct fg_setting *s;

	for (unsigned int i = 0; (s = fg_setting_at(i, pattern)); i++)
		if (strcmp(s->name, name) == 0 ||
		    (s->alias && strcmp(s->alias, name) == 0))
			return s;
	return NULL;
}

/* The first entry of an enum value (workers before worker-kind). */
const struct fg_setting *fg_setting_of(enum faultgen_setting id)
{
	const struct fg_setting *s;

	if (id == FAULTGEN_SETTING_NONE)
		return NULL;
	for (unsigned int i = 0; (s = fg_setting_at(i, NULL)); i++)
		if (s->id == id)
			return s;
	return NULL;
}

/* A name for faultgen_conflict: the enum's own word where it has one
 * for several entries ("repeat", "jvm"), else its entry's. */
const char *fg_setting_name_of(enum faultgen_setting id)
{
	const struct fg_setting *s;

	for (size_t i = 0; i < sizeof(other_names) / sizeof(other_names[0]);
	     i++)
		if (other_names[i].id == id)
			return other_names[i].name;
	s = fg_setting_of(id);
	return s ? s->name : NULL;
}

/* The defaults of every setting's table, over a zeroed attr. */
void fg_settings_init(struct faultgen_attr *a)
{
	const struct fg_setting *s;

	for (unsigned int i = 0; (s = fg_setting_at(i, NULL)); i++)
		if (s->type != FAULTGEN_TYPE_TEXT)
			fg_setting_store(a, s, &s->def);
	a->nr_workers_set = false;
	a->size = (uint64_t)fg_pagesize();
}
