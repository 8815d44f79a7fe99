// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sparse.c - the sparse-VMA pattern: the shared VMA's slices, of which
 * each worker faults one page in every K (the setting stride-pages).
 * With 4 KiB pages and K = 512, every fault lands in a 2 MiB range of
 * its own, so nearly every fault also allocates a page table: the cost
 * that page-table allocation and reclaim work looks at.
 *
 * fault.c's workers run it (fg_fault_exec): the touch loops step by
 * run->touch_stride and count the pages they touch, so the expected
 * faults are the pages touched.  The touch is a write or a read of each
 * touched page: a call over a slice (memset, mlock, populate) would
 * fault every page of it.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#define SPARSE_MAX_STRIDE (1u << 30)

static int sparse_exec(struct faultgen_run *run)
{
	run->touch_stride = fg_own_setting(run, "stride-pages").u;
	return fg_fault_exec(run);
}

static void sparse_release(struct faultgen_run *run)
{
	fg_memory_release(run);
}

static const struct fg_setting sparse_settings[] = {
	{ .name = "stride-pages", .type = FAULTGEN_TYPE_UINT,
	  .offset = FG_OWN(1), .min = 1, .max = SPARSE_MAX_STRIDE,
	  .def = { .u = 512 }, .def_text = "512", .value_name = "K",
	  .help = "fault one page in every K of each slice\n"
		  "(default 512: one per 2 MiB with 4 KiB pages)" },
};

const struct fg_pattern fg_sparse_vma_pattern = {
	.name = "sparse-vma",
	.title = "One page in K of one shared VMA",
	.settings = sparse_settings,
	.nr_settings = sizeof(sparse_settings) / sizeof(sparse_settings[0]),
	.caps = {
		.page_touch_why = "a sparse VMA is written or read page by "
				  "page: a call over a slice would fault "
				  "every page of it",
	},
	.reads = FG_READS_SLICES,
	.check = fg_one_vma_check,
	.exec = sparse_exec,
	.slices = true,
	.release = sparse_release,
	.drops_cold = true,
};
