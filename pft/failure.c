// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * failure.c - why a run failed, in one line, and the exit status.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "pft.h"

/* " (RLIMIT_NPROC N, pids.max M)": the limits on processes and threads
 * that a worker which could not be started may have met. */
static void task_limits(char *buf, size_t len)
{
	struct rlimit rl;
	char dir[4096], nproc[32] = "unlimited", pids[64] = "";
	int64_t max;

	if (getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		snprintf(nproc, sizeof(nproc), "%llu",
			 (unsigned long long)rl.rlim_cur);
	if (pft_cgroup_dir("pids", dir, sizeof(dir)) > 0) {
		max = pft_cgroup_value(dir, "pids.max");
		if (max == INT64_MAX)
			snprintf(pids, sizeof(pids), ", the cgroup's pids.max "
				 "max");
		else if (max >= 0)
			snprintf(pids, sizeof(pids), ", the cgroup's pids.max "
				 "%" PRId64, max);
	}
	snprintf(buf, len, "RLIMIT_NPROC (ulimit -u) %s%s", nproc, pids);
}

/* The one line that says why a run failed, and the exit status. */
int pft_report_failure(const struct pft_opts *o, struct faultgen_run *run,
		       int ret, const struct pft_oom *oom_before)
{
	const struct faultgen_attr *a = o->attr;
	int worker = -1, signo = 0, error = 0;

	if (ret == -ECANCELED && pft_stop_signal())
		return 128 + pft_stop_signal();
	faultgen_run_failure(run, &worker, &signo, &error);
	if (ret == -ECHILD && signo) {
		if (signo == SIGKILL && pft_oom_killed(oom_before))
			pft_msg("worker %d was killed by the OOM killer",
				worker);
		else
			pft_msg("worker %d was killed by signal %d (%s)%s",
				worker, signo, strsignal(signo),
				signo == SIGKILL ? pft_oom_unknown(oom_before) :
						   "");
		return PFT_EXIT_FAIL;
	}
	if (ret == -ECHILD) {
		pft_msg("worker %d exited unexpectedly", worker);
		return PFT_EXIT_FAIL;
	}
	if (ret == -EOPNOTSUPP &&
	    faultgen_attr_get_pattern(a) == FAULTGEN_RO_COLLAPSE) {
		pft_msg("--pattern=ro-collapse: not supported by this kernel "
			"or build (libfaultgen %s)", faultgen_version());
		return PFT_EXIT_FAIL;
	}
	if ((ret == -EPERM || ret == -EACCES) &&
	    faultgen_attr_get_sched_fifo(a)) {
		pft_msg("-f: SCHED_FIFO is not permitted (needs CAP_SYS_NICE "
			"or an RLIMIT_RTPRIO)");
		return PFT_EXIT_FAIL;
	}
	if ((ret == -EPERM || ret == -ENOMEM || ret == -EAGAIN) &&
	    (faultgen_attr_get_shm_lock(a) ||
	     faultgen_attr_get_touch(a) == FAULTGEN_TOUCH_MLOCK)) {
		pft_msg("%s: cannot lock the memory: %s (RLIMIT_MEMLOCK or "
			"CAP_IPC_LOCK)",
			faultgen_attr_get_shm_lock(a) ? "-L" : "-l",
			faultgen_strerror(ret));
		return PFT_EXIT_FAIL;
	}
	if (ret == -EAGAIN) {
		char limits[256];

		task_limits(limits, sizeof(limits));
		pft_msg("cannot start %s %u: the limit on processes and "
			"threads was reached (%s)",
			faultgen_attr_get_worker_kind(a) == FAULTGEN_PROCESSES ?
				"worker process" :
							 "worker thread",
			worker >= 0 ? (unsigned int)worker :
				      faultgen_attr_get_workers(a),
			limits);
		return PFT_EXIT_FAIL;
	}
	if (worker >= 0)
		pft_msg("the run failed in worker %d: %s", worker,
			faultgen_strerror(ret));
	else
		pft_msg("the run failed: %s", faultgen_strerror(ret));
	return PFT_EXIT_FAIL;
}

