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
 * fg_cpuset_dir finds a cpuset's directory the same way, for pft, which
 * moves itself into the cpuset it is given.
 *
 * libcpuset is loaded (dlopen) for each read and unloaded after it, not
 * linked: it binds all its symbols when loaded, about 200 lookups that
 * every program using the library would otherwise pay at start-up.  A
 * system without libcpuset.so.1 at run time reads the cgroup files only.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_LIBCPUSET
#include <bitmask.h>
#include <cpuset.h>
#include <dlfcn.h>
#include <stdint.h>
#endif

#define V1_ROOT "/sys/fs/cgroup/cpuset"
#define LEGACY_ROOT "/dev/cpuset"
/* libcpuset writes its lists into buffers of this size. */
#define LIBCPUSET_LIST_LEN (64 << 10)

/* A list file of a cpuset, read whole and trimmed; *out freed by the
 * caller. */
static int read_trimmed(const char *dir, const char *name, const char *file,
			char **out)
{
	char path[4096];
	int n;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s/%s", dir, name, file) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	n = fg_read_file_alloc(path, out);
	if (n < 0)
		return n;
	while (n > 0 && ((*out)[n - 1] == '\n' || (*out)[n - 1] == ' '))
		(*out)[--n] = '\0';
	return n;
}

#ifdef HAVE_LIBCPUSET
/*
 * The dlopen dependency, declared for packagers (an "FDO" ELF note
 * ".note.dlopen", the format systemd and rpm/debhelper tools read).
 */
#define FG_DLOPEN_JSON                                                      \
	"[{\"feature\":\"cpuset\",\"description\":\"named cpusets through " \
	"libcpuset\",\"priority\":\"recommended\",\"soname\":[\""            \
	LIBCPUSET_SONAME "\"]}]"
static const struct {
	uint32_t namesz, descsz, type;
	char name[4];
	char desc[sizeof(FG_DLOPEN_JSON)];
} fg_dlopen_note __attribute__((used, aligned(4), section(".note.dlopen"))) = {
	.namesz = 4,
	.descsz = sizeof(FG_DLOPEN_JSON),
	.type = 0x407c0c0a,
	.name = "FDO",
	.desc = FG_DLOPEN_JSON,
};

/* The functions of libcpuset (and its libbitmask) that are used. */
struct libcpuset {
	void *handle;
	__typeof__(cpuset_alloc) *alloc;
	__typeof__(cpuset_free) *free;
	__typeof__(cpuset_cpus_nbits) *cpus_nbits;
	__typeof__(cpuset_mems_nbits) *mems_nbits;
	__typeof__(cpuset_query) *query;
	__typeof__(cpuset_getcpus) *getcpus;
	__typeof__(cpuset_getmems) *getmems;
	__typeof__(bitmask_alloc) *bm_alloc;
	__typeof__(bitmask_free) *bm_free;
	__typeof__(bitmask_displaylist) *bm_displaylist;
};

/* 0, or -ENOSYS when libcpuset or one of its functions is missing. */
static int load_libcpuset(struct libcpuset *l)
{
	l->handle = dlopen(LIBCPUSET_SONAME, RTLD_LAZY | RTLD_LOCAL);
	if (!l->handle)
		return -ENOSYS;
#define FG_SYM(field, name) (*(void **)&l->field = dlsym(l->handle, #name))
	if (!FG_SYM(alloc, cpuset_alloc) || !FG_SYM(free, cpuset_free) ||
	    !FG_SYM(cpus_nbits, cpuset_cpus_nbits) ||
	    !FG_SYM(mems_nbits, cpuset_mems_nbits) ||
	    !FG_SYM(query, cpuset_query) || !FG_SYM(getcpus, cpuset_getcpus) ||
	    !FG_SYM(getmems, cpuset_getmems) ||
	    !FG_SYM(bm_alloc, bitmask_alloc) || !FG_SYM(bm_free, bitmask_free) ||
	    !FG_SYM(bm_displaylist, bitmask_displaylist)) {
		dlclose(l->handle);
		return -ENOSYS;
	}
#undef FG_SYM
	return 0;
}

static int query_libcpuset(const struct libcpuset *l, const char *name,
			   char *cpus, char *mems)
{
	struct bitmask *bc = NULL, *bm = NULL;
	struct cpuset *cp = l->alloc();
	char path[4096];
	int ret = -ENOENT;

	snprintf(path, sizeof(path), "/%s", name);
	if (!cp)
		return -ENOMEM;
	bc = l->bm_alloc((unsigned int)l->cpus_nbits());
	bm = l->bm_alloc((unsigned int)l->mems_nbits());
	if (!bc || !bm) {
		ret = -ENOMEM;
		goto out;
	}
	if (l->query(cp, path) < 0 || l->getcpus(cp, bc) < 0 ||
	    l->getmems(cp, bm) < 0)
		goto out;
	if (l->bm_displaylist(cpus, LIBCPUSET_LIST_LEN, bc) < 0 ||
	    l->bm_displaylist(mems, LIBCPUSET_LIST_LEN, bm) < 0)
		goto out;
	ret = 0;
out:
	if (bc)
		l->bm_free(bc);
	if (bm)
		l->bm_free(bm);
	l->free(cp);
	return ret;
}

/* The lists through libcpuset, into fresh buffers. */
static int read_libcpuset(const char *name, char **cpus, char **mems)
{
	struct libcpuset l;
	int ret;

	*cpus = calloc(1, LIBCPUSET_LIST_LEN);
	*mems = calloc(1, LIBCPUSET_LIST_LEN);
	ret = *cpus && *mems ? load_libcpuset(&l) : -ENOMEM;
	if (!ret) {
		ret = query_libcpuset(&l, name, *cpus, *mems);
		dlclose(l.handle);
	}
	if (ret || !(*cpus)[0]) {
		free(*cpus);
		free(*mems);
		*cpus = *mems = NULL;
		return ret ? ret : -ENOENT;
	}
	return 0;
}

#ifdef FAULTGEN_INTERNAL_TEST
/* Loads libcpuset as a read does: its CPU bits, or -ENOSYS (tests). */
FG_TESTABLE int fg_libcpuset_probe(void)
{
	struct libcpuset l;
	int ret = load_libcpuset(&l);

	if (ret)
		return ret;
	ret = l.cpus_nbits();
	dlclose(l.handle);
	return ret;
}
#endif /* FAULTGEN_INTERNAL_TEST */
#endif

static const char *default_v2_root(void)
{
	if (access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0)
		return "/sys/fs/cgroup";
	return "/sys/fs/cgroup/unified";
}

/* A cpuset name is a path below a hierarchy's root, never above it. */
const char *fg_cpuset_relative(const char *name)
{
	while (*name == '/')
		name++;
	return strstr(name, "..") ? NULL : name;
}

/* The v1 controller's directory of the cpuset: prefixed files, or the
 * unprefixed ones of a legacy mount.  -ENOENT when it has neither. */
static int read_v1(const char *v1, const char *name, char **cpus,
		   char **mems)
{
	int n = read_trimmed(v1, name, "cpuset.cpus", cpus);

	if (n == -ENOENT) /* a legacy mount without prefixes */
		n = read_trimmed(v1, name, "cpus", cpus);
	if (n < 0)
		return n;
	if (read_trimmed(v1, name, "cpuset.mems", mems) < 0 &&
	    read_trimmed(v1, name, "mems", mems) < 0)
		*mems = NULL;
	return n;
}

static int read_v2(const char *v2, const char *name, char **cpus,
		   char **mems)
{
	int n = read_trimmed(v2, name, "cpuset.cpus.effective", cpus);

	if (n < 0)
		return n;
	if (read_trimmed(v2, name, "cpuset.mems.effective", mems) < 0)
		*mems = NULL;
	return n;
}

/*
 * Reads the CPU and memory-node lists of cpuset `name` (a path relative
 * to the hierarchy's root) into fresh strings (*mems may be NULL when the
 * cpuset names none).  root_v1 and root_v2 replace the system's mount
 * points (tests); with both NULL libcpuset is tried first.  *source says
 * which way worked.  -ENOENT: no such cpuset; -EINVAL: a bad name or a
 * cpuset without CPUs.
 */
FG_TESTABLE int fg_cpuset_read(const char *name, const char *root_v1,
			       const char *root_v2, char **cpus, char **mems,
			       const char **source)
{
	const char *v1 = root_v1 ? root_v1 : V1_ROOT;
	const char *v2 = root_v2 ? root_v2 : default_v2_root();
	int n = -ENOENT;

	*cpus = *mems = NULL;
	name = fg_cpuset_relative(name);
	if (!name)
		return -EINVAL;
#ifdef HAVE_LIBCPUSET
	if (!root_v1 && !root_v2 && *name &&
	    read_libcpuset(name, cpus, mems) == 0) {
		*source = "libcpuset";
		return 0;
	}
#endif
	if (fg_is_dir(v1, name)) {
		n = read_v1(v1, name, cpus, mems);
		*source = "cgroup-v1";
	}
	if (n == -ENOENT && fg_is_dir(v2, name)) {
		n = read_v2(v2, name, cpus, mems);
		*source = "cgroup-v2";
	}
	if (n == 0) { /* there, but without CPUs */
		free(*cpus);
		free(*mems);
		*cpus = *mems = NULL;
		return -EINVAL;
	}
	return n < 0 ? n : 0;
}

/* dir/name holds one of the CPU list files (a cpuset of that
 * hierarchy, as fg_cpuset_read finds one). */
static bool has_cpus_file(const char *dir, const char *name,
			  const char *const *files, unsigned int n)
{
	char path[4096];

	for (unsigned int i = 0; i < n; i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s/%s", dir, name,
				     files[i]) >= sizeof(path))
			return false;
		if (access(path, F_OK) == 0)
			return true;
	}
	return false;
}

/*
 * The directory of cpuset `name` where a process is moved into it: the v1
 * controller, the legacy /dev/cpuset mount, then cgroup v2 (roots as in
 * fg_cpuset_read; NULL for the system's).
 */
FG_TESTABLE int fg_cpuset_dir(const char *name, const char *root_v1,
			      const char *root_v2, char *buf, size_t len)
{
	const char *roots[] = {
		root_v1 ? root_v1 : V1_ROOT,
		root_v1 || root_v2 ? NULL : LEGACY_ROOT,
		root_v2 ? root_v2 : default_v2_root(),
	};

	name = fg_cpuset_relative(name);
	if (!name)
		return -EINVAL;
	static const char *const files[] = { "cpuset.cpus", "cpus",
					     "cpuset.cpus.effective" };

	for (unsigned int i = 0; i < 3; i++) {
		if (!roots[i] || !*name || !has_cpus_file(roots[i], name, files,
							  3))
			continue;
		if ((size_t)snprintf(buf, len, "%s/%s", roots[i], name) >= len)
			return -ENOSPC;
		return 0;
	}
	return -ENOENT;
}
