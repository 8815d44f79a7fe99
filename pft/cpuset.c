// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cpuset.c - moving pft itself into a named cpuset (--cpuset=NAME).
 *
 * The library only reads a cpuset and keeps its workers inside it: it
 * never moves its caller, which may be a whole JVM.  pft is a tool of its
 * own, and users of cpuset tools expect it to run inside the cpuset they
 * name, so it moves itself first, into the directory where the library
 * finds the cpuset (faultgen_cpuset_dir).
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pft.h"

static int write_pid(const char *dir, const char *file)
{
	char path[4096], pid[32];
	int fd, n, err = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, file) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (write(fd, pid, (size_t)n) != n)
		err = -errno;
	close(fd);
	return err;
}

/* cgroup.procs moves every thread; "tasks" (legacy) one at a time, and
 * pft has one thread here. */
static int move_into(const char *dir)
{
	int ret = write_pid(dir, "cgroup.procs");

	if (ret == -ENOENT)
		ret = write_pid(dir, "tasks");
	return ret;
}

/* Returns 0, -ENOENT when no hierarchy has the cpuset, or -errno. */
int pft_enter_cpuset(const char *name)
{
	char dir[4096];
	int ret = faultgen_cpuset_dir(name, dir, sizeof(dir));

	return ret ? ret : move_into(dir);
}

/* The first of files (in the cpuset's directory) that can be read. */
static void read_first(const char *dir, const char *const *files, char *buf,
		       size_t len)
{
	char path[4096];

	snprintf(buf, len, "?");
	for (; *files; files++) {
		snprintf(path, sizeof(path), "%s/%s", dir, *files);
		if (pft_read_line(path, buf, len) == 0)
			return;
	}
}

/*
 * Why pft could not move itself into the cpuset.  The kernel says ENOSPC
 * for a cpuset without CPUs or without memory nodes: a usage error that
 * shows both lists, not "No space left on device".
 */
static int cpuset_error(const char *name, int err)
{
	static const char *const cpus[] = { "cpuset.cpus.effective",
					    "cpuset.cpus", "cpus", NULL };
	static const char *const mems[] = { "cpuset.mems.effective",
					    "cpuset.mems", "mems", NULL };
	char dir[4096], c[1024], m[1024];

	if (err != -ENOSPC || faultgen_cpuset_dir(name, dir, sizeof(dir)))
		return pft_fail("--cpuset '%s': cannot move pft into it: %s",
				name, strerror(-err));
	read_first(dir, cpus, c, sizeof(c));
	read_first(dir, mems, m, sizeof(m));
	return pft_usage_error("--cpuset '%s': the cpuset has no CPUs or no "
			       "memory nodes to run on (CPUs '%s', memory "
			       "nodes '%s')", name, c, m);
}

/* The calling thread's affinity, sized for every possible CPU. */
static cpu_set_t *affinity(size_t *size)
{
	int possible = faultgen_possible_cpus();
	cpu_set_t *set = CPU_ALLOC(possible > 0 ? possible : 1);

	*size = CPU_ALLOC_SIZE(possible > 0 ? possible : 1);
	if (set && sched_getaffinity(0, *size, set) < 0) {
		CPU_FREE(set);
		return NULL;
	}
	return set;
}

static void list_of(const cpu_set_t *set, size_t size, char *buf, size_t len)
{
	if (faultgen_format_cpulist((const unsigned long *)set, size * 8, buf,
				    len) < 0)
		snprintf(buf, len, "?");
}

/*
 * --cpuset NAME: pft moves itself into the cpuset, which gives it the
 * cpuset's CPUs whatever mask it was started with.  As with --cpus (and
 * the library's faultgen_attr_get_cpus), a CPU outside the mask pft was
 * started with is an error, not a silent widening.
 */
int pft_enter_cpuset_within_mask(const char *name)
{
	size_t size, size2 = 0;
	cpu_set_t *start = affinity(&size), *now = NULL;
	char a[4096] = "", b[4096] = "";
	int ret = pft_enter_cpuset(name), outside = 0;

	if (!ret)
		now = affinity(&size2);
	if (start && now && size == size2) {
		list_of(start, size, a, sizeof(a));
		/* The cpuset's CPUs outside the starting mask: (start | now) ^ start */
		CPU_OR_S(size, now, now, start);
		CPU_XOR_S(size, now, now, start);
		outside = CPU_COUNT_S(size, now);
		if (outside)
			list_of(now, size, b, sizeof(b));
	}
	if (ret == -ENOENT || ret == -EINVAL)
		ret = pft_usage_error("--cpuset '%s': no such cpuset", name);
	else if (ret)
		ret = cpuset_error(name, ret);
	else if (!start || !now || size != size2)
		ret = pft_fail("--cpuset '%s': cannot read the CPU mask", name);
	else if (outside)
		ret = pft_usage_error("--cpuset '%s': its CPUs are not all "
				      "within those pft was started on (%s; "
				      "outside: %s)", name, a, b);
	CPU_FREE(start);
	CPU_FREE(now);
	return ret;
}
