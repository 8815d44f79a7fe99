// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * json.c - a small, strict JSON reader (RFC 8259): objects, arrays,
 * strings with their escapes, numbers, true, false and null, into an
 * array of nodes the caller walks and frees.  Made for the fault
 * profiles the replay pattern reads (profile.c), which come from other
 * machines: every input ends in a tree or in -EINVAL with a message
 * naming the line and column, never in a crash.
 *
 * Strict: no comments, no trailing commas, no leading zeros, no control
 * characters in strings, well-formed UTF-8 only, one value and nothing
 * after it but white space.  Limits: FG_JSON_MAX_BYTES of input,
 * FG_JSON_MAX_DEPTH of nesting, FG_JSON_MAX_NODES values.  The strings
 * are unescaped into one copy of the input, which the nodes point into:
 * the memory taken is the input's size and the nodes', nothing more.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
	const char *in; /* the input */
	char *out;      /* its copy, where strings are unescaped */
	size_t len, at;
	unsigned int depth;
	struct fg_json_doc *doc;
};

static int fail(struct parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The message: where (line and column of the input, from 1), and what. */
static int fail(struct parser *p, const char *fmt, ...)
{
	unsigned long line = 1, col = 1;
	int n;
	va_list ap;

	for (size_t i = 0; i < p->at && i < p->len; i++) {
		if (p->in[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	n = snprintf(p->doc->error, sizeof(p->doc->error),
		     "line %lu, column %lu: %s", line, col,
		     p->at >= p->len ? "the input ends early (truncated?): " :
				       "");
	if (n < 0 || (size_t)n >= sizeof(p->doc->error))
		return -EINVAL;
	va_start(ap, fmt);
	/* The analyzer takes ap for uninitialized (va_start is above). */
	vsnprintf(p->doc->error + n, // NOLINT(clang-analyzer-valist.Uninitialized)
		  sizeof(p->doc->error) - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A character of the input as a message shows it: 'x', or a byte's
 * value where it is not printable (the message is one line). */
static const char *shown(char c, char *buf, size_t len)
{
	unsigned char u = (unsigned char)c;

	if (u > 0x20 && u < 0x7f)
		snprintf(buf, len, "'%c'", c);
	else
		snprintf(buf, len, "byte 0x%02x", u);
	return buf;
}

static void skip_space(struct parser *p)
{
	while (p->at < p->len &&
	       (p->in[p->at] == ' ' || p->in[p->at] == '\t' ||
		p->in[p->at] == '\n' || p->in[p->at] == '\r'))
		p->at++;
}

/* A new node, its index in *idx. */
static int new_node(struct parser *p, enum fg_json_type type, uint32_t *idx)
{
	struct fg_json_doc *d = p->doc;

	if (d->nr == d->cap) {
		uint32_t cap = d->cap ? d->cap * 2 : 64;
		struct fg_json *n;

		if (d->cap >= FG_JSON_MAX_NODES)
			return fail(p, "more than %u values", FG_JSON_MAX_NODES);
		if (cap > FG_JSON_MAX_NODES)
			cap = FG_JSON_MAX_NODES;
		n = realloc(d->node, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		d->node = n;
		d->cap = cap;
	}
	memset(&d->node[d->nr], 0, sizeof(d->node[0]));
	d->node[d->nr].type = type;
	d->node[d->nr].pos = p->at;
	*idx = d->nr++;
	return 0;
}

static int word(struct parser *p, const char *w, enum fg_json_type type,
		uint32_t *idx)
{
	size_t n = strlen(w), left = p->len - p->at;
	char b[16];

	if (left < n && !memcmp(p->in + p->at, w, left)) {
		p->at = p->len;
		return fail(p, "a truncated %s", w);
	}
	if (left < n || memcmp(p->in + p->at, w, n) != 0)
		return fail(p, "unexpected %s", shown(p->in[p->at], b, sizeof(b)));
	if (new_node(p, type, idx))
		return -ENOMEM;
	p->at += n;
	return 0;
}

static bool digit(char c)
{
	return c >= '0' && c <= '9';
}

static size_t digits(struct parser *p)
{
	size_t from = p->at;

	while (p->at < p->len && digit(p->in[p->at]))
		p->at++;
	return p->at - from;
}

/* A number, by the grammar; its value computed without the locale. */
static int number(struct parser *p, uint32_t *idx)
{
	size_t from = p->at, int_end, frac_end;
	bool neg = p->in[p->at] == '-';
	double v = 0, scale = 1;
	long ex = 0;
	int ret;

	if (neg)
		p->at++;
	if (p->at >= p->len || !digit(p->in[p->at]))
		return fail(p, "a number without digits");
	if (p->in[p->at] == '0' && p->at + 1 < p->len &&
	    digit(p->in[p->at + 1]))
		return fail(p, "a number with a leading zero");
	digits(p);
	int_end = p->at;
	frac_end = int_end;
	if (p->at < p->len && p->in[p->at] == '.') {
		p->at++;
		if (!digits(p))
			return fail(p, "no digit after the decimal point");
		frac_end = p->at;
	}
	if (p->at < p->len && (p->in[p->at] == 'e' || p->in[p->at] == 'E')) {
		bool eneg = false;

		p->at++;
		if (p->at < p->len &&
		    (p->in[p->at] == '+' || p->in[p->at] == '-'))
			eneg = p->in[p->at++] == '-';
		if (p->at >= p->len || !digit(p->in[p->at]))
			return fail(p, "no digit in the exponent");
		while (p->at < p->len && digit(p->in[p->at])) {
			if (ex < 100000)
				ex = ex * 10 + (p->in[p->at] - '0');
			p->at++;
		}
		if (eneg)
			ex = -ex;
	}
	for (size_t i = from + neg; i < int_end; i++)
		v = v * 10 + (p->in[i] - '0');
	for (size_t i = int_end + 1; i < frac_end; i++) {
		scale /= 10;
		v += (p->in[i] - '0') * scale;
	}
	for (; ex > 0 && v != 0; ex--) {
		v *= 10;
		if (v > 1e308)
			return fail(p, "a number out of range");
	}
	for (; ex < 0 && v != 0; ex++)
		v /= 10;
	ret = new_node(p, FG_JSON_NUMBER, idx);
	if (ret)
		return ret;
	p->doc->node[*idx].pos = from;
	p->doc->node[*idx].num = neg ? -v : v;
	return 0;
}

static int hex4(struct parser *p, unsigned int *cp)
{
	*cp = 0;
	if (p->len - p->at < 4)
		return fail(p, "a truncated \\u escape");
	for (int i = 0; i < 4; i++) {
		char c = p->in[p->at++];

		*cp <<= 4;
		if (digit(c))
			*cp |= (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*cp |= (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*cp |= (unsigned int)(c - 'A' + 10);
		else
			return fail(p, "a bad \\u escape");
	}
	return 0;
}

static size_t put_utf8(char *o, unsigned int cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* A \u escape (a surrogate pair as one), written at *o. */
static int unicode_escape(struct parser *p, char *o, size_t *n)
{
	unsigned int cp, lo;

	if (hex4(p, &cp))
		return -EINVAL;
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return fail(p, "a lone low surrogate");
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (p->len - p->at < 2 || p->in[p->at] != '\\' ||
		    p->in[p->at + 1] != 'u')
			return fail(p, "a high surrogate without its pair");
		p->at += 2;
		if (hex4(p, &lo))
			return -EINVAL;
		if (lo < 0xdc00 || lo > 0xdfff)
			return fail(p, "a high surrogate without its pair");
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	if (cp == 0)
		return fail(p, "a string holding \\u0000");
	*n = put_utf8(o, cp);
	return 0;
}

/* The length of the well-formed UTF-8 sequence at s (up to end), or 0. */
static size_t utf8_len(const unsigned char *s, size_t left)
{
	size_t n;
	unsigned int cp;

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
	if (left < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

static int escape(struct parser *p, char *o, size_t *n)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *e;
	char c, b[16];

	if (p->at >= p->len)
		return fail(p, "an unterminated string");
	c = p->in[p->at++];
	if (c == 'u')
		return unicode_escape(p, o, n);
	e = strchr(from, c);
	if (!e || !c)
		return fail(p, "a bad escape: \\ and %s", shown(c, b, sizeof(b)));
	*o = to[e - from];
	*n = 1;
	return 0;
}

/* A string's text, unescaped into the copy at its own offset (never
 * longer than its source), and NUL-terminated there. */
static int string_text(struct parser *p, const char **s, size_t *len)
{
	char *o = p->out + p->at + 1, *start = o;

	p->at++; /* the opening quote */
	for (;;) {
		unsigned char c;
		size_t n = 0;

		if (p->at >= p->len)
			return fail(p, "an unterminated string");
		c = (unsigned char)p->in[p->at];
		if (c == '"')
			break;
		if (c < 0x20)
			return fail(p, "a control character in a string");
		if (c == '\\') {
			p->at++;
			if (escape(p, o, &n))
				return -EINVAL;
			o += n;
			continue;
		}
		n = utf8_len((const unsigned char *)p->in + p->at,
			     p->len - p->at);
		if (!n)
			return fail(p, "a string not in UTF-8");
		memcpy(o, p->in + p->at, n);
		o += n;
		p->at += n;
	}
	*o = '\0'; /* at most at the closing quote's place */
	p->at++;
	*s = start;
	*len = (size_t)(o - start);
	return 0;
}

static int value(struct parser *p, uint32_t *idx);

/* Appends child to parent's list; *last is the previous child or 0. */
static void link_child(struct fg_json_doc *d, uint32_t parent, uint32_t *last,
		       uint32_t child)
{
	if (*last)
		d->node[*last].next = child;
	else
		d->node[parent].first = child;
	d->node[parent].count++;
	*last = child;
}

static int container(struct parser *p, bool object, uint32_t *idx)
{
	char close = object ? '}' : ']';
	uint32_t last = 0, child;
	int ret;

	if (++p->depth > FG_JSON_MAX_DEPTH)
		return fail(p, "nested deeper than %d", FG_JSON_MAX_DEPTH);
	ret = new_node(p, object ? FG_JSON_OBJECT : FG_JSON_ARRAY, idx);
	if (ret)
		return ret;
	p->at++;
	skip_space(p);
	if (p->at < p->len && p->in[p->at] == close) {
		p->at++;
		p->depth--;
		return 0;
	}
	for (;;) {
		const char *key = NULL;
		size_t klen = 0;

		skip_space(p);
		if (object) {
			if (p->at >= p->len || p->in[p->at] != '"')
				return fail(p, "expected a member name");
			ret = string_text(p, &key, &klen);
			if (ret)
				return ret;
			skip_space(p);
			if (p->at >= p->len || p->in[p->at] != ':')
				return fail(p, "expected ':'");
			p->at++;
		}
		ret = value(p, &child);
		if (ret)
			return ret;
		p->doc->node[child].key = key;
		link_child(p->doc, *idx, &last, child);
		skip_space(p);
		if (p->at < p->len && p->in[p->at] == ',') {
			p->at++;
			continue;
		}
		if (p->at < p->len && p->in[p->at] == close)
			break;
		return fail(p, object ? "expected ',' or '}'" :
					"expected ',' or ']'");
	}
	p->at++;
	p->depth--;
	return 0;
}

static int value(struct parser *p, uint32_t *idx)
{
	const char *s = NULL;
	size_t len = 0;
	char b[16];
	int ret;

	*idx = 0; /* set by new_node; never read after a failure */
	skip_space(p);
	if (p->at >= p->len)
		return fail(p, "the input ends where a value was expected");
	switch (p->in[p->at]) {
	case '{':
		return container(p, true, idx);
	case '[':
		return container(p, false, idx);
	case '"':
		ret = new_node(p, FG_JSON_STRING, idx);
		if (ret)
			return ret;
		ret = string_text(p, &s, &len);
		if (ret)
			return ret;
		p->doc->node[*idx].str = s;
		p->doc->node[*idx].len = len;
		return 0;
	case 't':
		return word(p, "true", FG_JSON_TRUE, idx);
	case 'f':
		return word(p, "false", FG_JSON_FALSE, idx);
	case 'n':
		return word(p, "null", FG_JSON_NULL, idx);
	default:
		if (p->in[p->at] == '-' || digit(p->in[p->at]))
			return number(p, idx);
		return fail(p, "unexpected %s",
			    shown(p->in[p->at], b, sizeof(b)));
	}
}

/* Parses buf[0..len) into *doc (node 0 the top value): 0, -EINVAL with
 * doc->error saying where and what, -EFBIG beyond FG_JSON_MAX_BYTES,
 * -ENOMEM.  fg_json_free releases it in every case. */
FG_TESTABLE int fg_json_parse(const char *buf, size_t len,
			      struct fg_json_doc *doc)
{
	struct parser p = { .in = buf, .len = len, .doc = doc };
	uint32_t top = 0;
	int ret;

	memset(doc, 0, sizeof(*doc));
	if (len > FG_JSON_MAX_BYTES) {
		snprintf(doc->error, sizeof(doc->error),
			 "%zu bytes, more than the %u a profile may have", len,
			 FG_JSON_MAX_BYTES);
		return -EFBIG;
	}
	doc->text = malloc(len + 1);
	if (!doc->text)
		return -ENOMEM;
	p.out = doc->text;
	ret = value(&p, &top);
	if (ret)
		return ret;
	skip_space(&p);
	if (p.at < p.len)
		return fail(&p, "more after the value");
	return 0;
}

void fg_json_free(struct fg_json_doc *doc)
{
	free(doc->node);
	free(doc->text);
	doc->node = NULL;
	doc->text = NULL;
	doc->nr = doc->cap = 0;
}

/* The member `name` of object node obj, or 0 (node 0 is the top, never
 * a member). */
uint32_t fg_json_member(const struct fg_json_doc *doc, uint32_t obj,
			const char *name)
{
	const struct fg_json *o = &doc->node[obj];

	if (o->type != FG_JSON_OBJECT)
		return 0;
	for (uint32_t c = o->first; c; c = doc->node[c].next)
		if (!strcmp(doc->node[c].key, name))
			return c;
	return 0;
}

/* Element i of array node arr, or 0. */
uint32_t fg_json_elem(const struct fg_json_doc *doc, uint32_t arr, uint32_t i)
{
	uint32_t c = doc->node[arr].first;

	while (c && i--)
		c = doc->node[c].next;
	return c;
}
