// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * parse.c - the one parser for sizes and CPU lists, used by the library,
 * pft, the examples and the tests.
 *
 * libnuma's parsers are not used: they print to stderr and accept "1-0".
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Reads decimal digits; -EINVAL when there are none, -ERANGE on overflow. */
static int read_u64(const char **p, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	while (isdigit((unsigned char)*s)) {
		unsigned int d = (unsigned int)(*s - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
		s++;
	}
	*p = s;
	*out = v;
	return 0;
}

int fg_parse_size(const char *str, uint64_t *bytes)
{
	const char *p = str;
	uint64_t v, mult;
	int err;

	if (!str || !bytes)
		return -EINVAL;
	err = read_u64(&p, &v);
	if (err)
		return err;
	switch (*p) {
	case '\0':
		mult = 1;
		break;
	case 'k': case 'K':
		mult = 1ULL << 10;
		break;
	case 'm': case 'M':
		mult = 1ULL << 20;
		break;
	case 'g': case 'G':
		mult = 1ULL << 30;
		break;
	case 't': case 'T':
		mult = 1ULL << 40;
		break;
	case 'p': case 'P':
		mult = (uint64_t)fg_pagesize();
		break;
	default:
		return -EINVAL;
	}
	if (*p && p[1] != '\0')
		return -EINVAL;
	if (v > UINT64_MAX / mult)
		return -ERANGE;
	*bytes = v * mult;
	return 0;
}

int fg_parse_cpulist(const char *str, unsigned long *mask, size_t nbits)
{
	const char *p = str;
	int count = 0;

	if (!str || (!mask && nbits))
		return -EINVAL;
	if (mask)
		memset(mask, 0, fg_bitmap_longs(nbits) * sizeof(*mask));
	while (*p == ' ')
		p++;
	if (!*p)
		return -EINVAL;
	for (;;) {
		uint64_t lo, hi, stride = 1;
		int err = read_u64(&p, &lo);

		if (err)
			return err;
		hi = lo;
		if (*p == '-') {
			p++;
			err = read_u64(&p, &hi);
			if (err)
				return err;
			if (hi < lo)
				return -EINVAL;
			if (*p == ':') {
				p++;
				err = read_u64(&p, &stride);
				if (err)
					return err;
				if (stride == 0)
					return -EINVAL;
			}
		}
		if (hi >= nbits)
			return -ERANGE;
		/* Stop before c += stride could wrap past 2^64 to low ids. */
		for (uint64_t c = lo;; c += stride) {
			if (!fg_bit_test(mask, c)) {
				fg_bit_set(mask, c);
				count++;
			}
			if (hi - c < stride)
				break;
		}
		if (*p == ',') {
			p++;
			continue;
		}
		while (*p == ' ' || *p == '\n')
			p++;
		if (*p)
			return -EINVAL;
		return count;
	}
}

int fg_format_cpulist(const unsigned long *mask, size_t nbits, char *buf,
		      size_t len)
{
	size_t used = 0;

	if (!buf || len == 0 || (!mask && nbits))
		return -EINVAL;
	buf[0] = '\0';
	for (size_t c = 0; c < nbits; c++) {
		size_t end = c;
		int n;

		if (!fg_bit_test(mask, c))
			continue;
		while (end + 1 < nbits && fg_bit_test(mask, end + 1))
			end++;
		if (end == c)
			n = snprintf(buf + used, len - used, "%s%zu",
				     used ? "," : "", c);
		else
			n = snprintf(buf + used, len - used, "%s%zu-%zu",
				     used ? "," : "", c, end);
		if (n < 0 || (size_t)n >= len - used) {
			buf[0] = '\0';
			return -ENOSPC;
		}
		used += (size_t)n;
		c = end;
	}
	return (int)used;
}
