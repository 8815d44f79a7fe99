// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pft.c - the page fault test: a drop-in replacement for pft 0.12x on
 * libfaultgen.  main() is the order of the steps: read the command line,
 * build the library's attr, enter the cpuset, resolve the CPUs, check
 * the memory, then fork the run and wait for it (supervisor.c).
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "pft.h"

int main(int argc, char **argv)
{
	struct faultgen_attr *attr;
	struct pft_opts o;
	int ret;

	/* Numbers in the C locale whatever LC_ALL says: tools parse them. */
	setlocale(LC_ALL, "C");
	pft_opts_init(&o);
	pft_parse_args(&o, argc, argv);
	attr = pft_build_attr(&o);
	if (o.cpuset) {
		ret = pft_enter_cpuset(o.cpuset);
		if (ret == -ENOENT || ret == -EINVAL)
			pft_usage_error("--cpuset '%s': no such cpuset",
					o.cpuset);
		if (ret)
			pft_fatal("--cpuset '%s': cannot move pft into it: %s",
				  o.cpuset, strerror(-ret));
	}
	pft_resolve_cpus(&o, attr);
	pft_check_memory(&o);
	pft_open_perf_ctl(&o);
	if (!o.workers_given && o.pattern != FAULTGEN_PRETOUCH)
		fputs("Using 1 thread\n", stderr);
	if (o.verbose)
		pft_msg("%u %s, %s, %s memory, touch %s, allowed CPUs %s%s",
			o.workers,
			o.kind == FAULTGEN_PROCESSES ? "processes" : "threads",
			pft_pattern_name(o.pattern),
			pft_backing_name(o.backing), pft_touch_name(o.touch),
			o.allowed_list, o.pin ? ", pinned" : "");
	ret = pft_supervise(&o, attr);
	faultgen_attr_free(attr);
	pft_opts_release(&o);
	return ret;
}
