// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cpuset.c - moving pft itself into a named cpuset (--cpuset=NAME).
 *
 * The library only reads a cpuset and keeps its workers inside it: it
 * never moves its caller, which may be a whole JVM.  pft is a tool of its
 * own, and users of cpuset tools expect it to run inside the cpuset they
 * name, so it moves itself first, looking for the cpuset where the library
 * looks: the v1 controller (prefixed files), the legacy /dev/cpuset mount,
 * then cgroup v2.
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
#include <sys/stat.h>
#include <unistd.h>

#include "pft.h"

static int write_pid(const char *dir, const char *name, const char *file)
{
	char path[4096], pid[32];
	int fd, n, err = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s/%s", dir, name, file) >=
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

static bool is_dir(const char *dir, const char *name)
{
	char path[4096];
	struct stat st;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    sizeof(path))
		return false;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* cgroup.procs moves every thread; "tasks" (legacy) one at a time, and
 * pft has one thread here. */
static int move_into(const char *dir, const char *name)
{
	int ret = write_pid(dir, name, "cgroup.procs");

	if (ret == -ENOENT)
		ret = write_pid(dir, name, "tasks");
	return ret;
}

/* The hierarchy that has cpuset name (after leading slashes), or NULL. */
static const char *root_of(const char *name)
{
	static const char *const roots[] = {
		"/sys/fs/cgroup/cpuset",
		"/dev/cpuset",
		NULL, /* cgroup v2, found below */
	};
	const char *v2 = access("/sys/fs/cgroup/cgroup.controllers", F_OK) ?
				 "/sys/fs/cgroup/unified" :
				 "/sys/fs/cgroup";

	for (unsigned int i = 0; i < 3; i++) {
		const char *root = roots[i] ? roots[i] : v2;

		if (is_dir(root, name))
			return root;
	}
	return NULL;
}

static const char *skip_slashes(const char *name)
{
	while (*name == '/')
		name++;
	return name;
}

/* Returns 0, -ENOENT when no hierarchy has the cpuset, or -errno. */
int pft_enter_cpuset(const char *name)
{
	const char *root;

	name = skip_slashes(name);
	if (strstr(name, ".."))
		return -EINVAL;
	root = root_of(name);
	return root ? move_into(root, name) : -ENOENT;
}

/* The first of files (in the cpuset's directory) that can be read. */
static void read_first(const char *dir, const char *name,
		       const char *const *files, char *buf, size_t len)
{
	char path[4096];

	snprintf(buf, len, "?");
	for (; *files; files++) {
		snprintf(path, sizeof(path), "%s/%s/%s", dir, name, *files);
		if (pft_read_line(path, buf, len) == 0)
			return;
	}
}

/*
 * Why pft could not move itself into the cpuset.  The kernel says ENOSPC
 * for a cpuset without CPUs or without memory nodes: a usage error that
 * shows both lists, not "No space left on device".
 */
void pft_cpuset_error(const char *name, int err)
{
	static const char *const cpus[] = { "cpuset.cpus.effective",
					    "cpuset.cpus", "cpus", NULL };
	static const char *const mems[] = { "cpuset.mems.effective",
					    "cpuset.mems", "mems", NULL };
	const char *root = root_of(skip_slashes(name));
	char c[1024], m[1024];

	if (err != -ENOSPC || !root)
		pft_fatal("--cpuset '%s': cannot move pft into it: %s", name,
			  strerror(-err));
	read_first(root, skip_slashes(name), cpus, c, sizeof(c));
	read_first(root, skip_slashes(name), mems, m, sizeof(m));
	pft_usage_error("--cpuset '%s': the cpuset has no CPUs or no memory "
			"nodes to run on (CPUs '%s', memory nodes '%s')", name,
			c, m);
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
void pft_enter_cpuset_within_mask(const char *name)
{
	size_t size, size2;
	cpu_set_t *start = affinity(&size), *now;
	char a[4096], b[4096];
	int ret = pft_enter_cpuset(name);

	if (ret == -ENOENT || ret == -EINVAL)
		pft_usage_error("--cpuset '%s': no such cpuset", name);
	if (ret)
		pft_cpuset_error(name, ret);
	now = affinity(&size2);
	if (!start || !now || size != size2)
		pft_fatal("--cpuset '%s': cannot read the CPU mask", name);
	list_of(start, size, a, sizeof(a));
	/* The cpuset's CPUs outside the starting mask: (start | now) ^ start */
	CPU_OR_S(size, now, now, start);
	CPU_XOR_S(size, now, now, start);
	if (CPU_COUNT_S(size, now)) {
		list_of(now, size, b, sizeof(b));
		pft_usage_error("--cpuset '%s': its CPUs are not all within "
				"those pft was started on (%s; outside: %s)",
				name, a, b);
	}
	CPU_FREE(start);
	CPU_FREE(now);
}
