// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * oom.c - whether the OOM killer took the run.
 *
 * A process killed by SIGKILL does not say who sent it.  The OOM killer
 * counts its kills per memory cgroup, so when the run is in a memory
 * cgroup of its own (not the root), a kill counted there during the run
 * is this run's.  The system-wide count moves for any OOM kill on the
 * machine: it alone is never taken for proof, only mentioned.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include "pft.h"

static int64_t cgroup_oom_kills(void)
{
	char dir[4096];
	int version = pft_cgroup_dir("memory", dir, sizeof(dir));

	if (version == 1)
		return pft_cgroup_number(dir, "memory.oom_control",
					 "oom_kill ");
	if (version == 2)
		return pft_cgroup_number(dir, "memory.events", "oom_kill ");
	return -1;
}

void pft_oom_read(struct pft_oom *at)
{
	at->cgroup = cgroup_oom_kills();
	at->system = pft_oom_kills();
}

bool pft_oom_killed(const struct pft_oom *before)
{
	int64_t now;

	if (before->cgroup < 0)
		return false;
	now = cgroup_oom_kills();
	return now > before->cgroup;
}

/* What can be said of a SIGKILL that pft cannot pin on the OOM killer:
 * "" or a clause to append to the message. */
const char *pft_oom_unknown(const struct pft_oom *before)
{
	int64_t now = pft_oom_kills();

	if (before->cgroup >= 0 || before->system < 0 || now <= before->system)
		return "";
	return "; the OOM killer killed a process meanwhile, but pft has no "
	       "memory cgroup of its own to tell whether it was this run";
}
