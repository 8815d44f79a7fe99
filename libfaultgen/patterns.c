// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * patterns.c - the table of the patterns: each is one unit, in a file of
 * its own (doc/adding-a-pattern.md), and this table is the one place
 * that lists them.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

/* Each defined in its own file; this table alone refers to them by name. */
extern const struct fg_pattern fg_shared_vma_pattern;
extern const struct fg_pattern fg_per_thread_vma_pattern;
extern const struct fg_pattern fg_ro_collapse_pattern;
extern const struct fg_pattern fg_pretouch_pattern;
extern const struct fg_pattern fg_cow_fork_pattern;
extern const struct fg_pattern fg_qemu_prealloc_pattern;
extern const struct fg_pattern fg_sparse_vma_pattern;
extern const struct fg_pattern fg_uffd_missing_pattern;
extern const struct fg_pattern fg_replay_pattern;

/* The patterns, by their enum value. */
static const struct fg_pattern *const patterns[] = {
	[FAULTGEN_SHARED_VMA] = &fg_shared_vma_pattern,
	[FAULTGEN_PER_THREAD_VMA] = &fg_per_thread_vma_pattern,
	[FAULTGEN_RO_COLLAPSE] = &fg_ro_collapse_pattern,
	[FAULTGEN_PRETOUCH] = &fg_pretouch_pattern,
	[FAULTGEN_COW_FORK] = &fg_cow_fork_pattern,
	[FAULTGEN_QEMU_PREALLOC] = &fg_qemu_prealloc_pattern,
	[FAULTGEN_SPARSE_VMA] = &fg_sparse_vma_pattern,
	[FAULTGEN_UFFD_MISSING] = &fg_uffd_missing_pattern,
	[FAULTGEN_REPLAY] = &fg_replay_pattern,
};

unsigned int fg_pattern_count(void)
{
	return sizeof(patterns) / sizeof(patterns[0]);
}

/* The pattern of value p, or NULL. */
const struct fg_pattern *fg_pattern(enum faultgen_pattern p)
{
	if ((unsigned int)p >= sizeof(patterns) / sizeof(patterns[0]))
		return NULL;
	return patterns[p];
}

const struct fg_pattern *fg_pattern_of(const struct faultgen_attr *a)
{
	return fg_pattern(a->pattern);
}
