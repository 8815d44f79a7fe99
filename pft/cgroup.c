// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cgroup.c - what pft reads of its own cgroups: the memory cgroup's OOM
 * kills and its limit, the pids cgroup's limit.  cgroup v1 (a hierarchy
 * per controller) and v2 (one hierarchy) alike.
 *
 * A root cgroup is never "pft's own": the kernel keeps no events for it,
 * and its limits are the machine's.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pft.h"

/* True when comma-separated list has word. */
static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; p && *p; p = strchr(p, ',')) {
		if (*p == ',')
			p++;
		if (strncmp(p, word, n) == 0 && (p[n] == ',' || !p[n]))
			return true;
	}
	return false;
}

/* This process's path in the hierarchy of controller (v1), or in the
 * unified hierarchy when controller is NULL. */
static int own_path(const char *controller, char *path, size_t len)
{
	char line[4096];
	int ret = -ENOENT;
	FILE *f = fopen("/proc/self/cgroup", "re");

	if (!f)
		return -errno;
	while (ret && fgets(line, sizeof(line), f)) {
		char *ctl = strchr(line, ':'), *p;

		p = ctl ? strchr(ctl + 1, ':') : NULL;
		if (!p)
			continue;
		*p++ = '\0';
		p[strcspn(p, "\n")] = '\0';
		if (controller ? has_word(ctl + 1, controller) :
				 strcmp(line, "0") == 0)
			ret = snprintf(path, len, "%s", p) < (int)len ? 0 :
								 -ENAMETOOLONG;
	}
	fclose(f);
	return ret;
}

/* The mount point and mounted root of controller's v1 hierarchy (or of
 * cgroup2 when controller is NULL), from mountinfo. */
static int mount_of(const char *controller, char *mnt, char *root,
		    size_t len)
{
	char line[4096], r[1024], m[1024], type[64], opts[1024];
	int ret = -ENOENT;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return -errno;
	while (ret && fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - ");

		if (!sep ||
		    sscanf(line, "%*s %*s %*s %1023s %1023s", r, m) != 2 ||
		    sscanf(sep, " - %63s %*s %1023s", type, opts) != 2)
			continue;
		if (controller ? strcmp(type, "cgroup") == 0 &&
					 has_word(opts, controller) :
				 strcmp(type, "cgroup2") == 0) {
			snprintf(mnt, len, "%s", m);
			snprintf(root, len, "%s", r);
			ret = 0;
		}
	}
	fclose(f);
	return ret;
}

/*
 * The directory of this process's cgroup for controller ("memory",
 * "pids"): v1 where that controller has its own hierarchy, else v2 where
 * the controller is enabled there.  Returns 1 (v1) or 2 (v2), -ENOENT
 * when pft is in a root cgroup or the controller is not mounted.
 */
int pft_cgroup_dir(const char *controller, char *dir, size_t len)
{
	char path[2048], mnt[1024], root[1024], probe[4200];
	int version = 1;
	struct stat st;
	size_t rl;

	path[0] = root[0] = '\0';
	if (mount_of(controller, mnt, root, sizeof(mnt)) ||
	    own_path(controller, path, sizeof(path))) {
		version = 2;
		if (mount_of(NULL, mnt, root, sizeof(mnt)) ||
		    own_path(NULL, path, sizeof(path)))
			return -ENOENT;
	}
	/* Inside a container the mount shows a subtree of the hierarchy. */
	rl = strlen(root);
	if (strcmp(root, "/") != 0 && strncmp(path, root, rl) == 0)
		memmove(path, path + rl, strlen(path + rl) + 1);
	if (!path[0] || strcmp(path, "/") == 0)
		return -ENOENT;
	if ((size_t)snprintf(dir, len, "%s%s", mnt, path) >= len)
		return -ENAMETOOLONG;
	snprintf(probe, sizeof(probe), "%s/%s.max", dir, controller);
	if (version == 2 && stat(probe, &st) != 0)
		return -ENOENT;
	return version;
}

/* The number after key in file of dir (a "key value" file), or -1. */
int64_t pft_cgroup_number(const char *dir, const char *file, const char *key)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return pft_proc_number(path, key);
}

/* A single-number file of dir: bytes, or "max"; -1 when unreadable,
 * INT64_MAX for no limit. */
int64_t pft_cgroup_value(const char *dir, const char *file)
{
	char path[4200], buf[64];
	long long v;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (pft_read_line(path, buf, sizeof(buf)) < 0 || !buf[0])
		return -1;
	if (strcmp(buf, "max") == 0)
		return INT64_MAX;
	v = strtoll(buf, NULL, 10);
	/* v1 writes "no limit" as the largest page multiple of a long. */
	return v >= (1LL << 62) ? INT64_MAX : (int64_t)v;
}
