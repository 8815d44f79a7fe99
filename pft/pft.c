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
	struct pft_opts o;
	const struct faultgen_attr *a;
	const char *cpuset;
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
	a = o.attr;
	cpuset = faultgen_attr_get_cpuset(a);
	if (cpuset)
		pft_enter_cpuset_within_mask(cpuset);
	pft_resolve_cpus(&o);
	pft_check_memory(&o);
	pft_open_perf_ctl(&o);
	if (!o.given[FAULTGEN_SETTING_WORKERS].opt && !pft_jvm_workers(&o))
		fputs("Using 1 thread\n", stderr);
	if (o.verbose)
		pft_msg("%u %s, %s, %s memory, touch %s, allowed CPUs %s%s",
			faultgen_attr_get_workers(a),
			faultgen_attr_get_worker_kind(a) == FAULTGEN_PROCESSES ?
				"processes" : "threads",
			pft_pattern_name(faultgen_attr_get_pattern(a)),
			pft_backing_name(faultgen_attr_get_backing(a)),
			pft_touch_name(faultgen_attr_get_touch(a)),
			o.allowed_list,
			faultgen_attr_get_pin(a) ? ", pinned" : "");
	ret = pft_supervise(&o, o.attr);
	pft_opts_release(&o);
	return ret;
}
