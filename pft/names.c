// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * names.c - the keywords of pft's options and the names pft prints for
 * the library's enumerations: one table for each, read both ways, so
 * that what --pattern accepts is what --json prints.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <string.h>

#include "pft.h"

const struct pft_name pft_patterns[] = {
	{ "shared-vma", FAULTGEN_SHARED_VMA },
	{ "per-thread-vma", FAULTGEN_PER_THREAD_VMA },
	{ "ro-collapse", FAULTGEN_RO_COLLAPSE },
	{ "pretouch", FAULTGEN_PRETOUCH },
	{ NULL, 0 },
};

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

const struct pft_name pft_gcs[] = {
	{ "none", FAULTGEN_GC_NONE },
	{ "g1", FAULTGEN_GC_G1 },
	{ "parallel", FAULTGEN_GC_PARALLEL },
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

/* The value of keyword s in tab, or a usage error naming opt. */
int pft_keyword(const char *opt, const char *s, const struct pft_name *tab)
{
	char choices[256];

	for (const struct pft_name *t = tab; t->name; t++)
		if (strcmp(s, t->name) == 0)
			return t->val;
	list_choices(tab, choices, sizeof(choices));
	pft_usage_error("%s '%s': must be one of %s", opt, s, choices);
}

static const char *name_of(const struct pft_name *tab, int val)
{
	for (; tab->name; tab++)
		if (tab->val == val)
			return tab->name;
	return "unknown";
}

const char *pft_pattern_name(enum faultgen_pattern p)
{
	return name_of(pft_patterns, (int)p);
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

const char *pft_pretouch_name(enum faultgen_pretouch_touch t)
{
	return name_of(pft_pretouches, (int)t);
}

const char *pft_gc_name(enum faultgen_jvm_gc g)
{
	return name_of(pft_gcs, (int)g);
}

const char *pft_backing_name(enum faultgen_backing b)
{
	switch (b) {
	case FAULTGEN_BACKING_ANON:
		return "anon";
	case FAULTGEN_BACKING_DEVZERO:
		return "dev-zero";
	case FAULTGEN_BACKING_SYSV:
		return "sysv";
	}
	return "unknown";
}
