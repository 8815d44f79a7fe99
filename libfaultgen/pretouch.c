// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pretouch.c - the JVM's AlwaysPreTouch (FAULTGEN_PRETOUCH).
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>

/* Not implemented yet: the pattern answers -EOPNOTSUPP. */
int fg_pretouch_run(struct faultgen_run *run)
{
	(void)run;
	return -EOPNOTSUPP;
}

unsigned int fg_pretouch_default_workers(const struct faultgen_run *run)
{
	return run->cpus.count ? run->cpus.count : 1;
}

FG_EXPORT unsigned int faultgen_jvm_gc_threads(unsigned int ncpus)
{
	return ncpus;
}

FG_EXPORT uint64_t faultgen_jvm_aux_bytes(unsigned int jdk,
					  enum faultgen_jvm_gc gc,
					  uint64_t heap_bytes)
{
	return 0;
}

FG_EXPORT int faultgen_pretouch(const struct faultgen_attr *attr,
				struct faultgen_result *res)
{
	return -EOPNOTSUPP;
}
