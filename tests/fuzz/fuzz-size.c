// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz-size.c - libFuzzer harness for faultgen_parse_size: any input gives
 * 0 or -EINVAL/-ERANGE, and an accepted size prints back to the same value.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include <errno.h>
#include <faultgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t len);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t len)
{
	char *s = malloc(len + 1), again[32];
	uint64_t v, w;
	int ret;

	if (!s)
		return 0;
	memcpy(s, data, len);
	s[len] = '\0';
	ret = faultgen_parse_size(s, &v);
	if (ret != 0 && ret != -EINVAL && ret != -ERANGE)
		abort();
	if (ret == 0) {
		snprintf(again, sizeof(again), "%llu", (unsigned long long)v);
		if (faultgen_parse_size(again, &w) != 0 || w != v)
			abort();
	}
	free(s);
	return 0;
}
