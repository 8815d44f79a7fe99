// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz-cpulist.c - libFuzzer harness for faultgen_parse_cpulist and
 * faultgen_format_cpulist: any input gives a count or -EINVAL/-ERANGE,
 * and an accepted mask survives a format/parse round trip.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include <errno.h>
#include <faultgen.h>
#include <stdlib.h>
#include <string.h>

#define NBITS 8192
#define LONGS (NBITS / (8 * sizeof(unsigned long)))

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t len);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t len)
{
	static unsigned long a[LONGS], b[LONGS];
	static char text[NBITS * 6];
	char *s = malloc(len + 1);
	int n, m;

	if (!s)
		return 0;
	memcpy(s, data, len);
	s[len] = '\0';
	n = faultgen_parse_cpulist(s, a, NBITS);
	if (n < 0 && n != -EINVAL && n != -ERANGE)
		abort();
	if (n > 0) {
		if (faultgen_format_cpulist(a, NBITS, text, sizeof(text)) < 0)
			abort();
		m = faultgen_parse_cpulist(text, b, NBITS);
		if (m != n || memcmp(a, b, sizeof(a)))
			abort();
	}
	free(s);
	return 0;
}
