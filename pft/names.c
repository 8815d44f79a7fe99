// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * names.c - the keywords of pft's options and the names pft prints for
 * the library's enumerations: one table for each, read both ways, so
 * that what an option accepts is what --json prints.  The patterns'
 * names are the library's own (faultgen_pattern_name).
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "pft.h"

const struct pft_name pft_touches[] = {
	{ "write", FAULTGEN_TOUCH_WRITE },
	{ "read", FAULTGEN_TOUCH_READ },
	{ "memset", FAULTGEN_TOUCH_MEMSET },
	{ "mlock", FAULTGEN_TOUCH_MLOCK },
	{ "populate", FAULTGEN_TOUCH_POPULATE },
	{ NULL, 0 },
};

const struct pft_name pft_thps[] = {
	{ "default", FAULTGEN_THP_DEFAULT },
	{ "always", FAULTGEN_THP_HUGEPAGE },
	{ "never", FAULTGEN_THP_NOHUGEPAGE },
	{ NULL, 0 },
};

const struct pft_name pft_backings[] = {
	{ "anon", FAULTGEN_BACKING_ANON },
	{ "dev-zero", FAULTGEN_BACKING_DEVZERO },
	{ "sysv", FAULTGEN_BACKING_SYSV },
	{ "memfd", FAULTGEN_BACKING_MEMFD },
	{ "hugetlb", FAULTGEN_BACKING_HUGETLB },
	{ "file", FAULTGEN_BACKING_FILE }, /* --backing=file:PATH */
	{ NULL, 0 },
};

const struct pft_name pft_zaps[] = {
	{ "dontneed", FAULTGEN_ZAP_DONTNEED },
	{ "munmap", FAULTGEN_ZAP_MUNMAP },
	{ NULL, 0 },
};

const struct pft_name pft_protects[] = {
	{ "mprotect", FAULTGEN_PROTECT_MPROTECT },
	{ "fork", FAULTGEN_PROTECT_FORK },
	{ "writable", FAULTGEN_PROTECT_WRITABLE },
	{ NULL, 0 },
};

const struct pft_name pft_collapses[] = {
	{ "madvise", FAULTGEN_COLLAPSE_MADVISE },
	{ "khugepaged", FAULTGEN_COLLAPSE_KHUGEPAGED },
	{ NULL, 0 },
};

const struct pft_name pft_pretouches[] = {
	{ "store", FAULTGEN_PRETOUCH_STORE },
	{ "atomic-add", FAULTGEN_PRETOUCH_ATOMIC_ADD },
	{ "populate", FAULTGEN_PRETOUCH_POPULATE },
	{ "fast", FAULTGEN_PRETOUCH_FAST },
	{ "fast-huge", FAULTGEN_PRETOUCH_FAST_HUGE },
	{ NULL, 0 },
};

const struct pft_name pft_qemus[] = {
	{ "auto", FAULTGEN_QEMU_AUTO },
	{ "touch", FAULTGEN_QEMU_TOUCH },
	{ NULL, 0 },
};

const struct pft_name pft_cow_childs[] = {
	{ "waits", FAULTGEN_COW_CHILD_WAITS },
	{ "reads", FAULTGEN_COW_CHILD_READS },
	{ "writes", FAULTGEN_COW_CHILD_WRITES },
	{ NULL, 0 },
};

/* --numa's keywords: the policies that take no nodes. */
const struct pft_name pft_numa_modes[] = {
	{ "default", FAULTGEN_NUMA_DEFAULT },
	{ "local", FAULTGEN_NUMA_LOCAL },
	{ "worker-local", FAULTGEN_NUMA_WORKER_LOCAL },
	{ NULL, 0 },
};

/* Every policy's name in --json. */
static const struct pft_name pft_numas[] = {
	{ "default", FAULTGEN_NUMA_DEFAULT },
	{ "local", FAULTGEN_NUMA_LOCAL },
	{ "worker-local", FAULTGEN_NUMA_WORKER_LOCAL },
	{ "bind", FAULTGEN_NUMA_BIND },
	{ "interleave", FAULTGEN_NUMA_INTERLEAVE },
	{ "preferred", FAULTGEN_NUMA_PREFERRED },
	{ NULL, 0 },
};

const struct pft_name pft_gcs[] = {
	{ "none", FAULTGEN_GC_NONE },
	{ "g1", FAULTGEN_GC_G1 },
	{ "parallel", FAULTGEN_GC_PARALLEL },
	{ NULL, 0 },
};

const struct pft_name pft_writer_ops[] = {
	{ "mmap", FAULTGEN_WRITER_MMAP },
	{ "mprotect", FAULTGEN_WRITER_MPROTECT },
	{ "madvise", FAULTGEN_WRITER_MADVISE },
	{ NULL, 0 },
};

/* "a, b, c": the choices of a table, for the message that lists them. */
static void list_choices(const struct pft_name *tab, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (; tab->name && used < len; tab++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 used ? ", " : "", tab->name);
}

/* The value of keyword s in tab into *val; or a usage error naming
 * opt. */
int pft_keyword(const char *opt, const char *s, const struct pft_name *tab,
		int *val)
{
	char choices[256];

	for (const struct pft_name *t = tab; t->name; t++)
		if (strcmp(s, t->name) == 0) {
			*val = t->val;
			return 0;
		}
	list_choices(tab, choices, sizeof(choices));
	return pft_usage_error("%s '%s': must be one of %s", opt, s, choices);
}

static const char *name_of(const struct pft_name *tab, int val)
{
	for (; tab->name; tab++)
		if (tab->val == val)
			return tab->name;
	return "unknown";
}

/* The patterns are the library's: their names come from it. */
const char *pft_pattern_name(enum faultgen_pattern p)
{
	const char *name = faultgen_pattern_name(p);

	return name ? name : "unknown";
}

/* "a, b, c": the patterns, for the message that lists them. */
void pft_pattern_list(char *buf, size_t len, const char *first_note)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < faultgen_pattern_count() && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s%s",
					 i ? ", " : "",
					 faultgen_pattern_name(i),
					 i == 0 && first_note ? first_note : "");
}

int pft_pattern_keyword(const char *opt, const char *s,
			enum faultgen_pattern *p)
{
	char choices[512];

	if (faultgen_pattern_from_name(s, p) == 0)
		return 0;
	pft_pattern_list(choices, sizeof(choices), NULL);
	return pft_usage_error("%s '%s': must be one of %s", opt, s, choices);
}

const char *pft_touch_name(enum faultgen_touch t)
{
	return name_of(pft_touches, (int)t);
}

const char *pft_thp_name(enum faultgen_thp t)
{
	return name_of(pft_thps, (int)t);
}

const char *pft_zap_name(enum faultgen_zap z)
{
	return name_of(pft_zaps, (int)z);
}

const char *pft_protect_name(enum faultgen_protect p)
{
	return name_of(pft_protects, (int)p);
}

const char *pft_collapse_name(enum faultgen_collapse c)
{
	return name_of(pft_collapses, (int)c);
}

const char *pft_qemu_name(enum faultgen_qemu q)
{
	return name_of(pft_qemus, (int)q);
}

const char *pft_cow_child_name(enum faultgen_cow_child c)
{
	return name_of(pft_cow_childs, (int)c);
}

const char *pft_pretouch_name(enum faultgen_pretouch_touch t)
{
	return name_of(pft_pretouches, (int)t);
}

const char *pft_numa_name(enum faultgen_numa n)
{
	return name_of(pft_numas, (int)n);
}

const char *pft_gc_name(enum faultgen_jvm_gc g)
{
	return name_of(pft_gcs, (int)g);
}

const char *pft_writer_op_name(enum faultgen_writer_op op)
{
	return name_of(pft_writer_ops, (int)op);
}

const char *pft_backing_name(enum faultgen_backing b)
{
	return name_of(pft_backings, (int)b);
}
