// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * attr.c - what to run: an attr with the library's defaults (each
 * setting's table, settings.c), and copies of it.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The library's defaults, as faultgen_attr_new(3) lists them. */
void fg_attr_init(struct faultgen_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->pattern = FAULTGEN_SHARED_VMA;
	fg_settings_init(a);
}

/* The TEXT settings (backing-path, cpus, cpuset, a pattern's own): the
 * attr's copies of the caller's strings. */
static char **attr_text(struct faultgen_attr *a, unsigned int *index)
{
	const struct fg_setting *s;

	while ((s = fg_setting_at((*index)++, NULL)))
		if (s->type == FAULTGEN_TYPE_TEXT)
			return (char **)((char *)a + s->offset);
	return NULL;
}

/* A deep copy (the strings too); dst is overwritten. */
int fg_attr_copy(struct faultgen_attr *dst, const struct faultgen_attr *src)
{
	unsigned int i = 0;
	char **text;
	bool lost = false;

	*dst = *src;
	while ((text = attr_text(dst, &i)))
		if (*text && !(*text = strdup(*text)))
			lost = true;
	/* The NUMA policy's nodes: no setting of the tables. */
	if (src->numa_nodes && !(dst->numa_nodes = strdup(src->numa_nodes)))
		lost = true;
	/* The replay's parsed profile, shared: no setting either. */
	dst->profile = fg_profile_get(src->profile);
	if (lost) {
		fg_attr_release(dst);
		return -ENOMEM;
	}
	return 0;
}

void fg_attr_release(struct faultgen_attr *a)
{
	unsigned int i = 0;
	char **text;

	while ((text = attr_text(a, &i))) {
		free(*text);
		*text = NULL;
	}
	free(a->numa_nodes);
	a->numa_nodes = NULL;
	fg_profile_put(a->profile);
	a->profile = NULL;
}
