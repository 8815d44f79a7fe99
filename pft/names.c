// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * names.c - the keywords of pft's options and the names pft prints for
 * the library's enumerations, read both ways, so that what an option
 * accepts is what --json prints: the library's own keywords of each
 * setting (faultgen_setting_info) and its patterns' names
 * (faultgen_pattern_name), and the names of the memory policies, which
 * pft's options take apart (--numa, --membind, ...).
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "pft.h"

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

/* "a, b, c": the n names of names[], for the message that lists them. */
static void list_choices(const char *const *names, size_t n, char *buf,
			 size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i ? ", " : "", names[i]);
}

/* The index of s among the n names of names[], or -1. */
static int find(const char *s, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return (int)i;
	return -1;
}

/* The usage error of a keyword that is not one of names[]. */
static int not_one_of(const char *opt, const char *s,
		      const char *const *names, size_t n)
{
	char choices[512];

	list_choices(names, n, choices, sizeof(choices));
	return pft_usage_error("%s '%s': must be one of %s", opt, s, choices);
}

/* The library's description of a setting, by its name. */
int pft_setting_info(const char *setting, struct faultgen_setting_info *info)
{
	int i = faultgen_setting_index(setting);

	info->size = sizeof(*info);
	return i < 0 ? i : faultgen_setting_info((unsigned int)i, info);
}

/* The keyword s of the library's setting into *val (its enum's value);
 * or a usage error naming opt. */
int pft_keyword(const char *opt, const char *s, const char *setting,
		int *val)
{
	struct faultgen_setting_info info;
	size_t n = 0;
	int k;

	if (pft_setting_info(setting, &info) || !info.keywords)
		return pft_fail("%s: the library has no keywords for %s", opt,
				setting);
	while (info.keywords[n])
		n++;
	k = find(s, info.keywords, n);
	if (k < 0)
		return not_one_of(opt, s, info.keywords, n);
	*val = k;
	return 0;
}

/* --numa's keywords, as pft_keyword. */
int pft_policy_keyword(const char *opt, const char *s, int *val)
{
	const char *names[8];
	size_t n = 0;
	int k;

	for (; pft_numa_modes[n].name; n++)
		names[n] = pft_numa_modes[n].name;
	k = find(s, names, n);
	if (k < 0)
		return not_one_of(opt, s, names, n);
	*val = pft_numa_modes[k].val;
	return 0;
}

/* The keyword of value val of the library's setting. */
const char *pft_keyword_name(const char *setting, int val)
{
	struct faultgen_setting_info info;

	if (pft_setting_info(setting, &info) || !info.keywords || val < 0)
		return "unknown";
	for (int k = 0; info.keywords[k]; k++)
		if (k == val)
			return info.keywords[k];
	return "unknown";
}

const char *pft_numa_name(enum faultgen_numa n)
{
	for (const struct pft_name *t = pft_numas; t->name; t++)
		if (t->val == (int)n)
			return t->name;
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
