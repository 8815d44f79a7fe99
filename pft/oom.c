// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * oom.c - whether the OOM killer took the run.
 *
 * A process killed by SIGKILL does not say who sent it.  The OOM killer
 * counts its kills per memory cgroup, so when the run is in a memory
 * cgroup of its own (not the root), a kill counted there during the run
 * is this run's, unless other programs share that cgroup (then the kill
 * is mentioned, not claimed).  The system-wide count moves for any OOM
 * kill on the machine: it alone is never taken for proof, only
 * mentioned.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pft.h"

static int64_t cgroup_oom_kills(char *dir, size_t len)
{
	int version = pft_cgroup_dir("memory", dir, len);

	if (version == 1)
		return pft_cgroup_number(dir, "memory.oom_control",
					 "oom_kill ");
	if (version == 2)
		return pft_cgroup_number(dir, "memory.events", "oom_kill ");
	return -1;
}

/* The parent of pid, 0 when it is gone, or -1 when unreadable. */
static long parent_of(long pid)
{
	char path[64], line[512], *p, *end;
	long ppid;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (pft_read_line(path, line, sizeof(line)) < 0)
		return 0;
	/* "pid (comm) state ppid ...": the comm may hold anything. */
	p = strrchr(line, ')');
	if (!p || strlen(p) < 4)
		return -1;
	ppid = strtol(p + 4, &end, 10);
	return end != p + 4 ? ppid : -1;
}

/*
 * Whether process pid is pft's: this process, its parent (the
 * supervisor, seen from the run child), or a descendant of this process
 * (a worker, and the children a worker forks: cow-fork's snapshots).
 * A process that is gone is nobody's.
 */
static bool pfts(long pid)
{
	long self = (long)getpid();

	if (pid == self || pid == (long)getppid())
		return true;
	for (int depth = 0; depth < 16 && pid > 1; depth++) {
		pid = parent_of(pid);
		if (pid == 0)
			return depth == 0; /* gone: nobody's */
		if (pid == self)
			return true;
	}
	return false;
}

/*
 * Whether a process that is not pft's is in cgroup dir or below it (the
 * OOM kill counts of cgroup v2 include those below), to depth levels.
 */
static bool others_in(const char *dir, int depth)
{
	char path[4200], line[64], *end;
	struct dirent *e;
	bool others = false;
	FILE *f;
	DIR *d;
	long pid;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "re");
	if (!f)
		return true; /* cannot tell: shared, to claim nothing */
	while (!others && fgets(line, sizeof(line), f)) {
		pid = strtol(line, &end, 10);
		others = end != line && !pfts(pid);
	}
	fclose(f);
	if (others || depth == 0 || !(d = opendir(dir)))
		return others;
	while (!others && (e = readdir(d)))
		if (e->d_type == DT_DIR && e->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			others = others_in(path, depth - 1);
		}
	closedir(d);
	return others;
}

void pft_oom_read(struct pft_oom *at)
{
	char dir[4096];

	at->cgroup = cgroup_oom_kills(dir, sizeof(dir));
	at->shared = at->cgroup >= 0 && others_in(dir, 3);
	at->system = pft_oom_kills();
}

/* The OOM killer counted a kill in pft's memory cgroup since before. */
static bool cgroup_counted(const struct pft_oom *before)
{
	char dir[4096];

	return before->cgroup >= 0 &&
	       cgroup_oom_kills(dir, sizeof(dir)) > before->cgroup;
}

/* Only a cgroup that holds nothing but pft, from before the run to now,
 * proves it was this run. */
bool pft_oom_killed(const struct pft_oom *before)
{
	char dir[4096];

	return !before->shared && cgroup_counted(before) &&
	       pft_cgroup_dir("memory", dir, sizeof(dir)) > 0 &&
	       !others_in(dir, 3);
}

/* What can be said of a SIGKILL that pft cannot pin on the OOM killer:
 * "" or a clause to append to the message. */
const char *pft_oom_unknown(const struct pft_oom *before)
{
	int64_t now = pft_oom_kills();

	if (cgroup_counted(before))
		return "; the OOM killer killed a process of pft's memory "
		       "cgroup meanwhile, which other programs share: maybe "
		       "this run, maybe not";
	if (before->cgroup >= 0 || before->system < 0 || now <= before->system)
		return "";
	return "; the OOM killer killed a process meanwhile, but pft has no "
	       "memory cgroup of its own to tell whether it was this run";
}
