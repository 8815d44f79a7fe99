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
#include <fcntl.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pft.h"

/*
 * A standard descriptor closed by whoever started pft would be taken by
 * the next file pft opens, and the result written into it: each closed
 * one gets /dev/null.  Returns whether standard output was open.
 */
static bool keep_std_fds_open(void)
{
	bool out_open = fcntl(1, F_GETFD) >= 0;

	for (int fd = 0; fd <= 2; fd++) {
		int null;

		if (fcntl(fd, F_GETFD) >= 0)
			continue;
		null = open("/dev/null", fd ? O_WRONLY : O_RDONLY);
		if (null >= 0 && null != fd) {
			dup2(null, fd);
			close(null);
		}
	}
	return out_open;
}

int main(int argc, char **argv)
{
	struct faultgen_attr *attr;
	struct pft_opts o;
	bool stdout_open;
	int ret;

	/* Numbers in the C locale whatever LC_ALL says: tools parse them. */
	setlocale(LC_ALL, "C");
	stdout_open = keep_std_fds_open();
	pft_opts_init(&o);
	pft_parse_args(&o, argc, argv);
	if (!stdout_open)
		pft_fatal("standard output is closed: nowhere to write the "
			  "result");
	attr = pft_build_attr(&o);
	if (o.cpuset)
		pft_enter_cpuset_within_mask(o.cpuset);
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
