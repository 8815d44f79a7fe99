// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * json.c - a small writer of one-line JSON objects (JSON Lines).
 *
 * Never pretty-printed: a harness that merges stderr and skips lines with
 * letters must not meet a bare "{" or number line.  Numbers are written
 * in the C locale (pft never calls setlocale with anything but "C"), as
 * the shortest form that reads back to the same double, and never as inf
 * or nan (JSON has neither: such a value is written as null).
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pft.h"

static void put_escaped(FILE *f, const char *s);

/* The comma before a member or element, and the member's key. */
static void sep(struct pft_json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	if (key) {
		put_escaped(j->f, key);
		fputc(':', j->f);
	}
}

static void open_level(struct pft_json *j, char c)
{
	fputc(c, j->f);
	if (j->depth + 1 < (int)(sizeof(j->first) / sizeof(j->first[0])))
		j->depth++;
	j->first[j->depth] = true;
}

void pj_begin(struct pft_json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->first[0] = true;
	open_level(j, '{');
}

void pj_end(struct pft_json *j)
{
	fputs("}\n", j->f);
	j->depth = 0;
}

void pj_obj(struct pft_json *j, const char *key)
{
	sep(j, key);
	open_level(j, '{');
}

void pj_obj_end(struct pft_json *j)
{
	fputc('}', j->f);
	j->depth--;
}

void pj_arr(struct pft_json *j, const char *key)
{
	sep(j, key);
	open_level(j, '[');
}

void pj_arr_end(struct pft_json *j)
{
	fputc(']', j->f);
	j->depth--;
}

/*
 * The length of the well-formed UTF-8 sequence at s (1 to 4), or 0:
 * no overlong forms, no surrogates, nothing above U+10FFFF.
 */
size_t pft_utf8_len(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned int cp;
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

/* A JSON string: always valid UTF-8, a byte that is not is written as
 * U+FFFD. */
static void put_escaped(FILE *f, const char *s)
{
	fputc('"', f);
	while (*s) {
		unsigned char c = (unsigned char)*s;
		size_t n = pft_utf8_len(s);

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else if (!n)
			fputs("\\ufffd", f);
		else
			fwrite(s, 1, n, f);
		s += n ? n : 1;
	}
	fputc('"', f);
}

/* With key NULL: an array element. */
void pj_str(struct pft_json *j, const char *key, const char *val)
{
	sep(j, key);
	put_escaped(j->f, val ? val : "");
}

/* A string member, or null when val is NULL. */
void pj_str_or_null(struct pft_json *j, const char *key, const char *val)
{
	if (val)
		pj_str(j, key, val);
	else
		pj_null(j, key);
}

void pj_u64(struct pft_json *j, const char *key, uint64_t val)
{
	sep(j, key);
	fprintf(j->f, "%" PRIu64, val);
}

void pj_i64(struct pft_json *j, const char *key, int64_t val)
{
	sep(j, key);
	fprintf(j->f, "%" PRId64, val);
}

void pj_dbl(struct pft_json *j, const char *key, double val)
{
	char buf[64];

	sep(j, key);
	if (!isfinite(val)) {
		fputs("null", j->f);
		return;
	}
	if (val == 0) {
		fputs("0", j->f); /* never "-0" */
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, val);
		if (strtod(buf, NULL) == val)
			break;
	}
	fputs(buf, j->f);
}

void pj_bool(struct pft_json *j, const char *key, bool val)
{
	sep(j, key);
	fputs(val ? "true" : "false", j->f);
}

void pj_null(struct pft_json *j, const char *key)
{
	sep(j, key);
	fputs("null", j->f);
}

/* A value of a library setting, as its type says. */
void pj_value(struct pft_json *j, const char *key,
	      const struct faultgen_value *v)
{
	switch (v->type) {
	case FAULTGEN_TYPE_BOOL:
		pj_bool(j, key, v->v.boolean);
		break;
	case FAULTGEN_TYPE_UINT:
	case FAULTGEN_TYPE_SIZE:
		pj_u64(j, key, v->v.number);
		break;
	case FAULTGEN_TYPE_SECONDS:
		pj_dbl(j, key, v->v.seconds);
		break;
	case FAULTGEN_TYPE_KEYWORD:
		pj_str_or_null(j, key, v->v.keyword);
		break;
	case FAULTGEN_TYPE_TEXT:
		pj_str_or_null(j, key, v->v.text);
		break;
	}
}
