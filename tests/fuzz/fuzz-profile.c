// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz-profile.c - libFuzzer harness for the replay's profile reader
 * (faultgen_attr_set_profile_buffer: the JSON reader and the checks of
 * pft-profile/1): any input gives 0 or one of its documented errors,
 * with a message of one line when refused.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include <errno.h>
#include <faultgen.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t len);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t len)
{
	struct faultgen_attr *attr;
	char msg[256];
	int ret;

	if (faultgen_attr_new(&attr))
		return 0;
	ret = faultgen_attr_set_profile_buffer(attr, data, len);
	if (ret != 0 && ret != -EINVAL && ret != -EPROTONOSUPPORT &&
	    ret != -EFBIG && ret != -ENOMEM)
		abort();
	if (ret && ret != -ENOMEM &&
	    (faultgen_attr_profile_error(attr, msg, sizeof(msg)) <= 0 ||
	     strchr(msg, '\n')))
		abort();
	faultgen_attr_free(attr);
	return 0;
}
