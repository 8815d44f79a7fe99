// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * memcheck.c - the check before a run that its size can be had at all.
 *
 * A size beyond the memory available is refused before anything is
 * mapped: faulting it would end in the OOM killer or swap storms, not in
 * a measurement.  --force runs it anyway.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include "pft.h"

/* MemAvailable of /proc/meminfo in bytes, or 0 when unknown. */
static uint64_t mem_available(void)
{
	int64_t kib = pft_proc_number("/proc/meminfo", "MemAvailable:");

	return kib > 0 ? (uint64_t)kib << 10 : 0;
}

void pft_check_memory(const struct pft_opts *o)
{
	uint64_t avail = mem_available();

	if (o->force || !avail || o->size <= avail)
		return;
	pft_fatal("-m: %.2f GiB is more than the %.2f GiB of memory available "
		  "(MemAvailable); --force runs it anyway",
		  (double)o->size / (1 << 30), (double)avail / (1 << 30));
}
