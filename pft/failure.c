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
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

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

/* The huge page size the backing faults (the library's), or 0 (base
 * pages). */
uint64_t pft_huge_size(const struct faultgen_attr *a)
{
	uint64_t ps = faultgen_attr_get_page_size(a);

	return ps > (uint64_t)sysconf(_SC_PAGESIZE) ? ps : 0;
}

static const char *path_of(const struct faultgen_attr *a)
{
	const char *path = faultgen_attr_get_backing_path(a);

	return path ? path : "";
}

/* The option that named the backing, as typed ("--backing=hugetlb"). */
static void backing_opt(const struct faultgen_attr *a, char *buf,
			size_t len)
{
	const char *path = faultgen_attr_get_backing_path(a);

	if (faultgen_attr_get_backing(a) == FAULTGEN_BACKING_FILE)
		snprintf(buf, len, "--backing=file:%s", path ? path : "");
	else
		snprintf(buf, len, "--backing=%s",
			 pft_keyword_name("backing", (int)faultgen_attr_get_backing(a)));
}

/* A count of the pool of huge pages of hp bytes, or -1. */
static long long pool_count(uint64_t hp, const char *name)
{
	char path[160];

	snprintf(path, sizeof(path), "/sys/kernel/mm/hugepages/hugepages-%"
		 PRIu64 "kB/%s", hp >> 10, name);
	return sysctl_number(path);
}

/*
 * Too few huge pages: under the size= limit of the hugetlbfs mount of
 * the path (its statfs counts), or in the pool (nr_hugepages).
 */
static int huge_failure(const struct faultgen_attr *a, const char *opt,
			uint64_t hp)
{
	const char *path = faultgen_attr_get_backing_path(a);
	uint64_t need = faultgen_attr_get_size(a) / hp;
	long long nr = pool_count(hp, "nr_hugepages");
	long long free_pages = pool_count(hp, "free_hugepages");
	long long resv = pool_count(hp, "resv_hugepages");
	struct statfs sf;

	if (faultgen_attr_get_backing(a) == FAULTGEN_BACKING_FILE && path &&
	    statfs(path, &sf) == 0 && sf.f_blocks > 0 &&
	    need > (uint64_t)sf.f_bavail) {
		pft_msg("%s: the run needs %" PRIu64 " huge pages of %" PRIu64
			" KiB, the mount's size= limit leaves %llu of its %llu "
			"free: mount it with a larger size=", opt, need,
			hp >> 10, (unsigned long long)sf.f_bavail,
			(unsigned long long)sf.f_blocks);
		return PFT_EXIT_FAIL;
	}
	if (free_pages >= 0 && resv > 0)
		free_pages = free_pages > resv ? free_pages - resv : 0;
	pft_msg("%s: the run needs %" PRIu64 " huge pages of %" PRIu64 " KiB, "
		"%lld are free (nr_hugepages %lld): raise "
		"/proc/sys/vm/nr_hugepages", opt, need, hp >> 10, free_pages,
		nr);
	return PFT_EXIT_FAIL;
}

/* A file given that is smaller than the run's mappings: both sizes, the
 * run's in whole pages for each worker (faultgen_attr_get_memory). */
static int small_file_failure(const struct faultgen_attr *a, const char *opt)
{
	uint64_t mapped = faultgen_attr_get_size(a);
	struct stat st;
	char has[64] = "";

	faultgen_attr_get_memory(a, &mapped, NULL);
	if (stat(path_of(a), &st) == 0)
		snprintf(has, sizeof(has), " (%lld bytes)",
			 (long long)st.st_size);
	pft_msg("%s: the file is smaller%s than the %" PRIu64 " bytes the run "
		"maps (-m %" PRIu64 " in whole pages for each worker, %u); "
		"the run never grows a file it did not create", opt, has,
		mapped, faultgen_attr_get_size(a),
		faultgen_attr_get_workers(a));
	return PFT_EXIT_FAIL;
}

/*
 * A shared file's rounds free its pages by punching holes (MADV_REMOVE):
 * ramfs, and other file systems without holes, cannot.  The library
 * refuses ramfs before any worker runs (faultgen_attr_set_backing(3));
 * another such file system fails at a worker's first zap.
 */
static int no_holes_failure(const char *opt, int worker)
{
	bool ramfs = worker < 0;

	pft_msg("%s: %s cannot punch holes in a file (MADV_REMOVE), which "
		"--share needs between rounds (--rounds, --duration) to free "
		"the file's pages: run once, without --share, or on tmpfs",
		opt, ramfs ? "ramfs" : "its file system");
	return PFT_EXIT_FAIL;
}

/*
 * The failures of a file or hugetlb backing, in one line: too few free
 * huge pages (the mount's limit, the pool), a file smaller than the
 * run, a file system that cannot do what the run asks, or the path's
 * own error.  0 when the failure is not the backing's.
 */
static int backing_failure(const struct faultgen_attr *a, int ret,
			   int worker)
{
	enum faultgen_backing b = faultgen_attr_get_backing(a);
	bool repeats = faultgen_attr_get_rounds(a) ||
		       faultgen_attr_get_duration(a) > 0;
	uint64_t hp = pft_huge_size(a);
	char opt[4200], why[256];

	if (b != FAULTGEN_BACKING_FILE && b != FAULTGEN_BACKING_HUGETLB)
		return 0;
	backing_opt(a, opt, sizeof(opt));
	if (ret == -ENOSPC && hp)
		return huge_failure(a, opt, hp);
	if (ret == -EFBIG && b == FAULTGEN_BACKING_FILE)
		return small_file_failure(a, opt);
	if (b == FAULTGEN_BACKING_FILE &&
	    pft_path_why(path_of(a), ret, faultgen_attr_get_share(a), why,
			 sizeof(why))) {
		pft_msg("%s: %s", opt, why);
		return PFT_EXIT_FAIL;
	}
	if (ret == -EOPNOTSUPP && b == FAULTGEN_BACKING_FILE &&
	    faultgen_attr_get_cold(a)) {
		pft_msg("--cold: the pages of a file in %s stay in the page "
			"cache (tmpfs?)", path_of(a));
		return PFT_EXIT_FAIL;
	}
	if (ret == -EOPNOTSUPP && b == FAULTGEN_BACKING_FILE &&
	    faultgen_attr_get_share(a) && repeats)
		return no_holes_failure(opt, worker);
	if (b == FAULTGEN_BACKING_FILE &&
	    (ret == -ENOSPC || ret == -EOPNOTSUPP)) {
		pft_msg("%s: %s", opt, faultgen_strerror(ret));
		return PFT_EXIT_FAIL;
	}
	if (ret == -EOPNOTSUPP && b == FAULTGEN_BACKING_HUGETLB) {
		pft_msg("%s: this kernel has no 2 MiB huge pages", opt);
		return PFT_EXIT_FAIL;
	}
	return 0;
}

/*
 * A worker's touch of a page the kernel could not give (SIGBUS, caught:
 * faultgen_attr_set_catch_sigbus; or MADV_POPULATE_WRITE's -EFAULT with
 * its cause), and why: 0 when the failure is not such.
 */
static int touch_failure(const struct faultgen_attr *a, int worker,
			 int signo, int ret)
{
	enum faultgen_backing b = faultgen_attr_get_backing(a);
	uint64_t hp = pft_huge_size(a);
	const char *why;
	char opt[4200];

	if (b != FAULTGEN_BACKING_FILE && b != FAULTGEN_BACKING_HUGETLB &&
	    signo != SIGBUS)
		return 0;
	switch (ret) {
	case -ENOSPC:
		why = !hp ? "no space left on the file system" :
		      b == FAULTGEN_BACKING_FILE ?
			    "the hugetlbfs mount's size= limit was reached" :
			    "no huge page left in the pool";
		break;
	case -ENOMEM:
		why = hp ? "no huge page left in the pool (nr_hugepages)" :
			   NULL;
		break;
	case -EFBIG:
		why = "the file shrank during the run: the page is beyond its "
		      "end";
		break;
	case -EFAULT:
		why = signo == SIGBUS ? "a memory or I/O error" : NULL;
		break;
	default:
		why = NULL;
	}
	if (!why)
		return 0;
	backing_opt(a, opt, sizeof(opt));
	pft_msg("%s: worker %d could not fault a page (%s): %s", opt, worker,
		signo == SIGBUS ? "SIGBUS" : "MADV_POPULATE_WRITE", why);
	return PFT_EXIT_FAIL;
}

/* The shared VMA's writers' priority refused (writer-nice below the
 * caller's, writer-fifo): PFT_EXIT_FAIL once said, else 0. */
static int writer_priority_failure(const struct faultgen_attr *a, int ret)
{
	struct faultgen_value nice, fifo;

	if (ret != -EPERM ||
	    faultgen_attr_get_value(a, "writer-nice", &nice) ||
	    faultgen_attr_get_value(a, "writer-fifo", &fifo))
		return 0;
	if (fifo.v.number)
		pft_msg("--writer-fifo=%" PRIu64 ": SCHED_FIFO is not "
			"permitted (needs CAP_SYS_NICE or an RLIMIT_RTPRIO)",
			fifo.v.number);
	else if (nice.v.text)
		pft_msg("--writer-nice=%s: a nice value below the caller's is "
			"not permitted (needs CAP_SYS_NICE or an RLIMIT_NICE)",
			nice.v.text);
	else
		return 0;
	return PFT_EXIT_FAIL;
}

/*
 * The failures of a limit the run met, in one line: SCHED_FIFO or
 * locking not permitted, the limits on mappings, on processes and
 * threads, on SysV segments.  PFT_EXIT_FAIL once said, else 0.
 */
static int limit_failure(const struct faultgen_attr *a, int worker, int ret)
{
	if (writer_priority_failure(a, ret))
		return PFT_EXIT_FAIL;
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
	return 0;
}

/* The one line that says why a run failed, and the exit status. */
int pft_report_failure(const struct pft_opts *o, struct faultgen_run *run,
		       int ret, const struct pft_oom *oom_before)
{
	const struct faultgen_attr *a = o->attr;
	int worker = -1, signo = 0, error = 0;
	char why[256];

	if (ret == -ECANCELED && pft_stop_signal())
		return 128 + pft_stop_signal();
	faultgen_run_failure(run, &worker, &signo, &error);
	if (faultgen_run_profile_error(run, why, sizeof(why)) > 0) {
		pft_msg("--replay: %s", why);
		return PFT_EXIT_FAIL;
	}
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
	if (worker >= 0 && (error = touch_failure(a, worker, signo, ret)) != 0)
		return error;
	if (ret == -EOPNOTSUPP &&
	    faultgen_attr_get_pattern(a) == FAULTGEN_RO_COLLAPSE) {
		pft_msg("--pattern=ro-collapse: not supported by this kernel "
			"or build (libfaultgen %s)", faultgen_version());
		return PFT_EXIT_FAIL;
	}
	if ((error = limit_failure(a, worker, ret)) != 0)
		return error;
	/* A file system without holes fails at a worker's first zap. */
	if ((worker < 0 || ret == -EOPNOTSUPP) &&
	    (error = backing_failure(a, ret, worker)) != 0)
		return error;
	if (worker >= 0)
		pft_msg("the run failed in worker %d: %s", worker,
			faultgen_strerror(ret));
	else
		pft_msg("the run failed: %s", faultgen_strerror(ret));
	return PFT_EXIT_FAIL;
}

