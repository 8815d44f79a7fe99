// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * values.c - one setting's value, by its table entry (struct
 * fg_setting): checked against its type, bounds and rules, stored where
 * the attr holds it, read back, and turned to and from the caller's
 * struct faultgen_value.  settings.c keeps the tables.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void *place(struct faultgen_attr *a, const struct fg_setting *s)
{
	return (char *)a + s->offset;
}

static const void *cplace(const struct faultgen_attr *a,
			  const struct fg_setting *s)
{
	return (const char *)a + s->offset;
}

static unsigned int nr_keywords(const struct fg_setting *s)
{
	unsigned int n = 0;

	while (s->keywords[n])
		n++;
	return n;
}

/* The value checked against the setting's type, bounds and own rules:
 * 0 or -EINVAL (or the check's -errno). */
int fg_setting_check(const struct faultgen_attr *a,
		     const struct fg_setting *s, const union fg_slot *v)
{
	bool zero = s->flags & FAULTGEN_SETTING_ZERO;

	switch (s->type) {
	case FAULTGEN_TYPE_BOOL:
	case FAULTGEN_TYPE_TEXT:
		break;
	case FAULTGEN_TYPE_UINT:
		if ((v->u < s->min && !(zero && v->u == 0)) || v->u > s->max)
			return -EINVAL;
		break;
	case FAULTGEN_TYPE_SIZE:
		if (v->u64 < s->min || v->u64 > s->max)
			return -EINVAL;
		if ((s->flags & FAULTGEN_SETTING_PAGES) &&
		    v->u64 % (uint64_t)fg_pagesize())
			return -EINVAL;
		break;
	case FAULTGEN_TYPE_SECONDS:
		if (!isfinite(v->d) || v->d < 0 || (v->d == 0 && !zero) ||
		    v->d > s->max_seconds)
			return -EINVAL;
		break;
	case FAULTGEN_TYPE_KEYWORD:
		if (v->e < 0 || (unsigned int)v->e >= nr_keywords(s))
			return -EINVAL;
		break;
	}
	return s->check ? s->check(a, v) : 0;
}

/* Stores a checked value (a TEXT value copied); 0 or -ENOMEM, the attr
 * unchanged on failure. */
int fg_setting_store(struct faultgen_attr *a, const struct fg_setting *s,
		     const union fg_slot *v)
{
	void *at = place(a, s);
	char *copy = NULL;

	switch (s->type) {
	case FAULTGEN_TYPE_BOOL:
		*(bool *)at = v->b;
		break;
	case FAULTGEN_TYPE_UINT:
		*(unsigned int *)at = v->u;
		break;
	case FAULTGEN_TYPE_SIZE:
		*(uint64_t *)at = v->u64;
		break;
	case FAULTGEN_TYPE_SECONDS:
		*(double *)at = v->d;
		break;
	case FAULTGEN_TYPE_KEYWORD:
		*(int *)at = v->e;
		break;
	case FAULTGEN_TYPE_TEXT:
		if (v->s) {
			copy = strdup(v->s);
			if (!copy)
				return -ENOMEM;
		}
		free(*(char **)at);
		*(char **)at = copy;
		break;
	}
	if (s->also)
		s->also(a);
	return 0;
}

int fg_setting_set(struct faultgen_attr *a, const struct fg_setting *s,
		   const union fg_slot *v)
{
	int ret = fg_setting_check(a, s, v);

	return ret ? ret : fg_setting_store(a, s, v);
}

union fg_slot fg_setting_get(const struct faultgen_attr *a,
			     const struct fg_setting *s)
{
	const void *at = cplace(a, s);
	union fg_slot v;

	memset(&v, 0, sizeof(v));
	switch (s->type) {
	case FAULTGEN_TYPE_BOOL:
		v.b = *(const bool *)at;
		break;
	case FAULTGEN_TYPE_UINT:
		v.u = *(const unsigned int *)at;
		break;
	case FAULTGEN_TYPE_SIZE:
		v.u64 = *(const uint64_t *)at;
		break;
	case FAULTGEN_TYPE_SECONDS:
		v.d = *(const double *)at;
		break;
	case FAULTGEN_TYPE_KEYWORD:
		v.e = *(const int *)at;
		break;
	case FAULTGEN_TYPE_TEXT:
		v.s = *(char *const *)at;
		break;
	}
	return v;
}

/* The value of the run's pattern's own setting of that name (its
 * table, struct fg_pattern's settings); zero for a name it lacks. */
union fg_slot fg_own_setting(const struct faultgen_run *run,
			     const char *name)
{
	union fg_slot none;

	for (unsigned int i = 0; i < run->ops->nr_settings; i++)
		if (strcmp(run->ops->settings[i].name, name) == 0)
			return fg_setting_get(&run->attr,
					      &run->ops->settings[i]);
	memset(&none, 0, sizeof(none));
	return none;
}

/* A caller's value into the attr's form: -EINVAL for another type or a
 * keyword the setting does not have. */
int fg_value_to_slot(const struct fg_setting *s,
		     const struct faultgen_value *v, union fg_slot *out)
{
	memset(out, 0, sizeof(*out));
	if (v->type != s->type)
		return -EINVAL;
	switch (s->type) {
	case FAULTGEN_TYPE_BOOL:
		out->b = v->v.boolean != 0;
		return 0;
	case FAULTGEN_TYPE_UINT:
		if (v->v.number > UINT32_MAX)
			return -EINVAL;
		out->u = (unsigned int)v->v.number;
		return 0;
	case FAULTGEN_TYPE_SIZE:
		out->u64 = v->v.number;
		return 0;
	case FAULTGEN_TYPE_SECONDS:
		out->d = v->v.seconds;
		return 0;
	case FAULTGEN_TYPE_KEYWORD:
		if (!v->v.keyword)
			return -EINVAL;
		for (unsigned int k = 0; s->keywords[k]; k++)
			if (strcmp(s->keywords[k], v->v.keyword) == 0) {
				out->e = (int)k;
				return 0;
			}
		return -EINVAL;
	case FAULTGEN_TYPE_TEXT:
		out->s = (char *)(uintptr_t)v->v.text;
		return 0;
	}
	return -EINVAL;
}

void fg_slot_to_value(const struct fg_setting *s, const union fg_slot *v,
		      struct faultgen_value *out)
{
	memset(out, 0, sizeof(*out));
	out->type = s->type;
	switch (s->type) {
	case FAULTGEN_TYPE_BOOL:
		out->v.boolean = v->b;
		break;
	case FAULTGEN_TYPE_UINT:
		out->v.number = v->u;
		break;
	case FAULTGEN_TYPE_SIZE:
		out->v.number = v->u64;
		break;
	case FAULTGEN_TYPE_SECONDS:
		out->v.seconds = v->d;
		break;
	case FAULTGEN_TYPE_KEYWORD:
		out->v.keyword = v->e >= 0 && (unsigned int)v->e < nr_keywords(s) ?
					 s->keywords[v->e] :
					 NULL;
		break;
	case FAULTGEN_TYPE_TEXT:
		out->v.text = v->s;
		break;
	}
}
