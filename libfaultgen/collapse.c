// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * collapse.c - read-only THP collapse (FAULTGEN_RO_COLLAPSE).
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>

/* Not implemented yet: the pattern answers -EOPNOTSUPP. */
int fg_collapse_run(struct faultgen_run *run)
{
	(void)run;
	return -EOPNOTSUPP;
}

void fg_collapse_release(struct faultgen_run *run)
{
	(void)run;
}

FG_EXPORT int faultgen_run_collapse(const struct faultgen_run *run,
				    struct faultgen_collapse_result *res)
{
	return -EOPNOTSUPP;
}

FG_EXPORT int faultgen_run_collapse_range(const struct faultgen_run *run,
					  unsigned int index,
					  struct faultgen_collapse_range *range)
{
	return -EOPNOTSUPP;
}

FG_EXPORT int faultgen_run_collapse_progress(const struct faultgen_run *run,
					     unsigned int index,
					     struct faultgen_progress *p)
{
	return -EOPNOTSUPP;
}

FG_EXPORT enum faultgen_verdict
faultgen_collapse_verdict(enum faultgen_protect protect, unsigned int ranges,
			  unsigned int collapsed, int first_error)
{
	return FAULTGEN_VERDICT_NONE;
}
