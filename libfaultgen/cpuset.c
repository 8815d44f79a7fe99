// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cpuset.c - the CPUs and memory nodes of a named cpuset.
 *
 * The library reads the cpuset and restricts its own workers to it; it
 * never moves the calling process (that would move a whole JVM).
 * libcpuset is tried first where it was built in; it only knows the legacy
 * cpuset file system (unprefixed "cpus" files at /dev/cpuset) and fails on
 * kernels that mount the v1 controller with "cpuset." prefixes or offer
 * only cgroup v2, so the cgroup files are read directly after it.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HAVE_LIBCPUSET
#include <bitmask.h>
#include <cpuset.h>
#endif

#define V1_ROOT "/sys/fs/cgroup/cpuset"

static int read_trimmed(const char *dir, const char *name, const char *file,
			char *buf, size_t len)
{
	char path[4096];
	int n;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s/%s", dir, name, file) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	n = fg_read_file(path, buf, len);
	if (n < 0)
		return n;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return n;
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

#ifdef HAVE_LIBCPUSET
static int read_libcpuset(const char *name, char *cpus, size_t cpus_len,
			  char *mems, size_t mems_len)
{
	struct bitmask *bc = NULL, *bm = NULL;
	struct cpuset *cp = cpuset_alloc();
	char path[4096];
	int ret = -ENOENT;

	snprintf(path, sizeof(path), "/%s", name);
	if (!cp)
		return -ENOMEM;
	bc = bitmask_alloc((unsigned int)cpuset_cpus_nbits());
	bm = bitmask_alloc((unsigned int)cpuset_mems_nbits());
	if (!bc || !bm) {
		ret = -ENOMEM;
		goto out;
	}
	if (cpuset_query(cp, path) < 0 || cpuset_getcpus(cp, bc) < 0 ||
	    cpuset_getmems(cp, bm) < 0)
		goto out;
	if (bitmask_displaylist(cpus, (int)cpus_len, bc) < 0 ||
	    bitmask_displaylist(mems, (int)mems_len, bm) < 0)
		goto out;
	ret = 0;
out:
	if (bc)
		bitmask_free(bc);
	if (bm)
		bitmask_free(bm);
	cpuset_free(cp);
	return ret;
}
#endif

static const char *default_v2_root(void)
{
	if (access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0)
		return "/sys/fs/cgroup";
	return "/sys/fs/cgroup/unified";
}

/*
 * Fills cpus and mems with the lists of cpuset `name` (a path relative to
 * the hierarchy's root).  root_v1 and root_v2 replace the system's mount
 * points (tests); with both NULL libcpuset is tried first.  *source says
 * which way worked.
 */
FG_TESTABLE int fg_cpuset_read(const char *name, const char *root_v1,
			       const char *root_v2, char *cpus, size_t cpus_len,
			       char *mems, size_t mems_len,
			       const char **source)
{
	const char *v1 = root_v1 ? root_v1 : V1_ROOT;
	const char *v2 = root_v2 ? root_v2 : default_v2_root();
	int n;

	while (*name == '/')
		name++;
	if (strstr(name, ".."))
		return -EINVAL;
	mems[0] = '\0';
#ifdef HAVE_LIBCPUSET
	if (!root_v1 && !root_v2 && *name &&
	    read_libcpuset(name, cpus, cpus_len, mems, mems_len) == 0 &&
	    cpus[0]) {
		*source = "libcpuset";
		return 0;
	}
#endif
	if (is_dir(v1, name)) {
		n = read_trimmed(v1, name, "cpuset.cpus", cpus, cpus_len);
		if (n == -ENOENT) /* a legacy mount without prefixes */
			n = read_trimmed(v1, name, "cpus", cpus, cpus_len);
		if (n < 0 && n != -ENOENT)
			return n; /* there, but unreadable or too long */
		if (n >= 0) {
			if (read_trimmed(v1, name, "cpuset.mems", mems,
					 mems_len) < 0 &&
			    read_trimmed(v1, name, "mems", mems, mems_len) < 0)
				mems[0] = '\0';
			*source = "cgroup-v1";
			return n > 0 ? 0 : -EINVAL;
		}
	}
	if (is_dir(v2, name)) {
		n = read_trimmed(v2, name, "cpuset.cpus.effective", cpus,
				 cpus_len);
		if (n < 0 && n != -ENOENT)
			return n;
		if (n >= 0) {
			if (read_trimmed(v2, name, "cpuset.mems.effective",
					 mems, mems_len) < 0)
				mems[0] = '\0';
			*source = "cgroup-v2";
			return n > 0 ? 0 : -EINVAL;
		}
	}
	return -ENOENT;
}
