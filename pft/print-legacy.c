// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * print-legacy.c - 0.12x's title, TAG and result lines, and the line per
 * worker of --per-worker.
 *
 * The result line is the one line tools parse: it starts with a space and
 * holds no letter but 's', so every other line printed on stdout or
 * stderr holds at least one letter (mmtests deletes every 's', skips a
 * line with letters left, and splits the rest on whitespace).
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "pft.h"

void pft_print_title(const struct pft_opts *o)
{
	const struct faultgen_attr *a = o->attr;

	if (o->tag)
		printf("TAG pft:%s-%s%s:%s\n",
		       faultgen_attr_get_backing(a) == FAULTGEN_BACKING_SYSV ?
			       "shmem" : "anon",
		       faultgen_attr_get_numa(a) != FAULTGEN_NUMA_DEFAULT ?
			       "vma-policy" : "sys-default",
		       faultgen_attr_get_touch(a) == FAULTGEN_TOUCH_MLOCK ?
			       "-mlocked" :
		       faultgen_attr_get_shm_lock(a) ? "-shm_locked" : "",
		       o->tag);
	fputs("  Gb  Thr CLine   User     System     Wall    flt/cpu/s "
	      "fault/wsec\n",
	      stdout);
}

void pft_format_legacy(const struct pft_opts *o,
		       const struct faultgen_result *r, char *buf, size_t len)
{
	snprintf(buf, len,
		 " %3ld %4ld %3ld %8.2fs %8.2fs %8.2fs  %10.3f %10.3f\n",
		 pft_legacy_gbyte(r), (long)r->workers, (long)faultgen_attr_get_cachelines(o->attr),
		 pft_printable(r->user_s), pft_printable(r->sys_s),
		 pft_printable(r->elapsed_s), pft_printable(r->pages_per_cpu_s),
		 pft_printable(r->rate));
}

/* " node_pages 0:N,1:M": a worker's pages on each node, when counted. */
static void print_node_pages(struct faultgen_run *run, unsigned int worker)
{
	uint64_t pages[PFT_MAX_NODES];
	int n = faultgen_run_node_pages(run, (int)worker, pages,
					PFT_MAX_NODES);

	if (n <= 0)
		return;
	printf(" node_pages");
	for (int i = 0; i < n && i < PFT_MAX_NODES; i++)
		printf("%c%d:%" PRIu64, i ? ',' : ' ', i, pages[i]);
}

void pft_print_per_worker(const struct pft_opts *o, struct faultgen_run *run,
			  const struct faultgen_result *r)
{
	for (unsigned int i = 0; i < r->workers; i++) {
		struct faultgen_worker_result w = { .size = sizeof(w) };

		if (faultgen_run_worker(run, i, &w))
			continue;
		printf(
		    "worker %u cpu %d last_cpu %d pid %d tid %d pages %" PRIu64
		    " rounds %" PRIu64 " minflt %" PRIu64 " majflt %" PRIu64
		    " start %.6fs wall %.6fs user "
		    "%.6fs sys %.6fs fault/wsec %.3f",
		    w.index, w.cpu, w.last_cpu, w.pid, w.tid, w.pages, w.rounds,
		    w.minflt, w.majflt, pft_printable(w.start_s),
		    pft_printable(w.wall_s), pft_printable(w.user_s),
		    pft_printable(w.sys_s),
		    w.wall_s > 0 ? pft_printable((double)w.pages / w.wall_s)
				 : 0.0);
		print_node_pages(run, i);
		pft_print_worker_latency(stdout, run, i);
		pft_print_worker_lock_paths(stdout, run, i);
		putchar('\n');
	}
	(void)o;
}

