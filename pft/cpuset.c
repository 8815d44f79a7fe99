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

/* Returns 0, -ENOENT when no hierarchy has the cpuset, or -errno. */
int pft_enter_cpuset(const char *name)
{
	static const char *const roots[] = {
		"/sys/fs/cgroup/cpuset",
		"/dev/cpuset",
		NULL, /* cgroup v2, found below */
	};
	const char *v2 = access("/sys/fs/cgroup/cgroup.controllers", F_OK) ?
				 "/sys/fs/cgroup/unified" :
				 "/sys/fs/cgroup";

	while (*name == '/')
		name++;
	if (strstr(name, ".."))
		return -EINVAL;
	for (unsigned int i = 0; i < 3; i++) {
		const char *root = roots[i] ? roots[i] : v2;

		if (is_dir(root, name))
			return move_into(root, name);
	}
	return -ENOENT;
}
