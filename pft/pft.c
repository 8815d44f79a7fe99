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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
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

/*
 * The nodes of a memory policy, checked again inside the cpuset pft has
 * entered: a node outside its memory nodes is a usage error naming the
 * node, as outside the mask pft was started with.
 */
static int recheck_nodes(struct pft_opts *o)
{
	const char *had = faultgen_attr_get_numa_nodes(o->attr);
	const char *opt = o->given[FAULTGEN_SETTING_NUMA].opt;
	char *nodes;
	int ret;

	if (!had || !opt)
		return 0;
	/* The attr's own string goes when the setter replaces it. */
	nodes = strdup(had);
	if (!nodes)
		return pft_fail("out of memory");
	ret = pft_set_numa(o, opt, faultgen_attr_get_numa(o->attr), nodes);
	free(nodes);
	return ret;
}

/*
 * Before a SysV run: the segments that killed runs left (killed between
 * creating a segment and marking it for removal) go, with a note.
 */
static void sysv_cleanup(void)
{
	int n = faultgen_sysv_cleanup();

	if (n > 0)
		pft_msg("note: removed %d SysV segment%s that a killed run "
			"left", n, n == 1 ? "" : "s");
}

/*
 * Without /proc (a container or chroot that did not mount it) what needs
 * it is refused, and what goes without it is said once: no step is
 * skipped silently.
 */
static int check_proc(const struct pft_opts *o)
{
	if (access("/proc/self/maps", R_OK) == 0)
		return 0;
	if (o->numa_maps)
		return pft_fail("-N: /proc is not mounted here: the node of "
				"each page is read from /proc/self/numa_maps");
	if (faultgen_attr_get_pattern(o->attr) == FAULTGEN_RO_COLLAPSE)
		return pft_fail("--pattern=ro-collapse: /proc is not mounted "
				"here: the collapse is read from "
				"/proc/self/smaps and pagemap");
	if (!o->force || o->json)
		pft_msg("note: /proc is not mounted here: %s%s%s",
			o->force ? "" : "no memory check before the run",
			!o->force && o->json ? ", and " : "",
			o->json ? "no kernel counters in --json" : "");
	return 0;
}

/*
 * The steps before the run: each returns 0, or the status that ends pft
 * once it has said why.
 */
static int prepare(struct pft_opts *o, int argc, char **argv,
		   bool stdout_open)
{
	const struct faultgen_attr *a;
	const char *cpuset;
	int ret = pft_parse_args(o, argc, argv);

	if (ret)
		return ret;
	if (!stdout_open)
		return pft_fail("standard output is closed: nowhere to write "
				"the result");
	ret = check_proc(o);
	if (ret)
		return ret;
	a = o->attr;
	cpuset = faultgen_attr_get_cpuset(a);
	if (cpuset) {
		ret = pft_enter_cpuset_within_mask(cpuset);
		if (!ret)
			ret = recheck_nodes(o);
		if (ret)
			return ret;
	}
	if (faultgen_attr_get_backing(a) == FAULTGEN_BACKING_SYSV)
		sysv_cleanup();
	ret = pft_resolve_cpus(o);
	if (!ret)
		ret = pft_check_memory(o);
	if (!ret)
		ret = pft_open_perf_ctl(o);
	if (ret)
		return ret;
	if (!o->given[FAULTGEN_SETTING_WORKERS].opt && !pft_pattern_workers(o))
		fputs("Using 1 thread\n", stderr);
	if (o->verbose)
		pft_msg("%u %s, %s, %s memory, touch %s, allowed CPUs %s%s",
			faultgen_attr_get_workers(a),
			faultgen_attr_get_worker_kind(a) == FAULTGEN_PROCESSES ?
				"processes" : "threads",
			pft_pattern_name(faultgen_attr_get_pattern(a)),
			pft_keyword_name("backing", (int)faultgen_attr_get_backing(a)),
			pft_keyword_name("touch", (int)faultgen_attr_get_touch(a)),
			o->allowed_list,
			faultgen_attr_get_pin(a) ? ", pinned" : "");
	return 0;
}

int main(int argc, char **argv)
{
	struct pft_opts o;
	bool stdout_open;
	int ret;

	/* Numbers in the C locale whatever LC_ALL says: tools parse them. */
	setlocale(LC_ALL, "C");
	/* A reader gone is an error pft reports, never a silent death. */
	signal(SIGPIPE, SIG_IGN);
	stdout_open = keep_std_fds_open();
	ret = pft_opts_init(&o);
	if (!ret)
		ret = prepare(&o, argc, argv, stdout_open);
	if (!ret)
		ret = pft_supervise(&o, o.attr);
	pft_opts_release(&o);
	return pft_exit_status(ret);
}
