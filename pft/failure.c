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
#include <stdlib.h>
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

/* A number a /proc/sys file holds, or -1. */
static long long sysctl_number(const char *path)
{
	char line[64], *end;
	long long v;

	if (pft_read_line(path, line, sizeof(line)) < 0 || !line[0])
		return -1;
	v = strtoll(line, &end, 10);
	return end != line ? v : -1;
}

/* The lines of a /proc file (its mappings, its segments), or -1. */
static long long lines_of(const char *path)
{
	FILE *f = fopen(path, "re");
	long long n = 0;
	int c;

	if (!f)
		return -1;
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

/*
 * The mappings a run of threads adds to this process: each worker
 * thread's stack and its guard, and its own region under
 * per-thread-vma (one shared region otherwise), with a guard each side.
 * Forked workers map in their own processes.
 */
static long long run_mappings(const struct faultgen_attr *a)
{
	long long w = faultgen_attr_get_workers(a);
	bool own = faultgen_attr_get_pattern(a) == FAULTGEN_PER_THREAD_VMA;

	if (faultgen_attr_get_worker_kind(a) == FAULTGEN_PROCESSES)
		return 3;
	return 2 * w + (own ? 3 * w : 3);
}

/*
 * -ENOMEM where the run would come near vm.max_map_count: the kernel
 * says ENOMEM for both, so the limit is named with the count, as "may".
 */
static bool near_map_count(const struct faultgen_attr *a, char *buf,
			   size_t len)
{
	long long max = sysctl_number("/proc/sys/vm/max_map_count");
	long long now = lines_of("/proc/self/maps");
	long long need = now < 0 ? -1 : now + run_mappings(a);

	if (max < 0 || need < 0 || need + 64 < max)
		return false;
	snprintf(buf, len, "vm.max_map_count %lld: the run needs about %lld "
		 "mappings in one process", max, need);
	return true;
}

/* " (kernel.shmmni N, M segments in use; kernel.shmall P pages)" */
static void shm_limits(char *buf, size_t len)
{
	long long mni = sysctl_number("/proc/sys/kernel/shmmni");
	long long all = sysctl_number("/proc/sys/kernel/shmall");
	long long used = lines_of("/proc/sysvipc/shm");

	snprintf(buf, len, "kernel.shmmni %lld, %lld segments in use; "
		 "kernel.shmall %lld pages", mni, used > 0 ? used - 1 : used,
		 all);
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
	/* A thread's stack that cannot be mapped is EAGAIN too. */
	if (ret == -ENOMEM || ret == -EAGAIN) {
		char limit[256];

		if (near_map_count(a, limit, sizeof(limit))) {
			pft_msg("the run failed%s: %s, or the limit on "
				"mappings was reached (%s)",
				worker >= 0 ? " in a worker" : "",
				faultgen_strerror(ret), limit);
			return PFT_EXIT_FAIL;
		}
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
	if (ret == -ENOSPC &&
	    faultgen_attr_get_backing(a) == FAULTGEN_BACKING_SYSV) {
		char limits[256];

		shm_limits(limits, sizeof(limits));
		pft_msg("cannot create a SysV segment: the system's limit on "
			"segments was reached (%s)", limits);
		return PFT_EXIT_FAIL;
	}
	if (worker >= 0)
		pft_msg("the run failed in worker %d: %s", worker,
			faultgen_strerror(ret));
	else
		pft_msg("the run failed: %s", faultgen_strerror(ret));
	return PFT_EXIT_FAIL;
}

