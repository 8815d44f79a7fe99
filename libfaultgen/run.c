// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * run.c - a run: checking the combination of settings, placing the
 * workers, running a pattern and keeping its figures.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

FG_EXPORT int faultgen_run_create(const struct faultgen_attr *attr,
				  struct faultgen_run **out)
{
	struct faultgen_run *run;

	if (!attr || !out)
		return -EINVAL;
	*out = NULL;
	run = calloc(1, sizeof(*run));
	if (!run)
		return -ENOMEM;
	run->attr = *attr;
	run->attr.cpulist = attr->cpulist ? strdup(attr->cpulist) : NULL;
	run->attr.cpuset = attr->cpuset ? strdup(attr->cpuset) : NULL;
	if ((attr->cpulist && !run->attr.cpulist) ||
	    (attr->cpuset && !run->attr.cpuset)) {
		free(run->attr.cpulist);
		free(run->attr.cpuset);
		free(run);
		return -ENOMEM;
	}
	run->pagesize = fg_pagesize();
	run->cacheline = fg_cacheline();
	run->shmid = -1;
	run->zero_fd = -1;
	run->fail_worker = -1;
	run->cpuset_source = "";
	*out = run;
	return 0;
}

/* Combinations the settings cannot express; each setter alone was fine. */
static int check_combination(const struct faultgen_attr *a)
{
	bool repeat = a->rounds || a->duration > 0;

	if (a->zap == FAULTGEN_ZAP_MUNMAP && repeat &&
	    (a->pattern != FAULTGEN_PER_THREAD_VMA ||
	     a->backing == FAULTGEN_BACKING_SYSV))
		return -EINVAL;
	if (a->touch == FAULTGEN_TOUCH_MLOCK && repeat)
		return -EINVAL;
	if (a->shm_lock && a->backing != FAULTGEN_BACKING_SYSV)
		return -EINVAL;
	if (a->region && (a->pattern == FAULTGEN_PER_THREAD_VMA ||
			  a->pattern == FAULTGEN_RO_COLLAPSE ||
			  a->backing != FAULTGEN_BACKING_ANON ||
			  a->kind != FAULTGEN_THREADS))
		return -EINVAL;
	if (a->region && a->region_len / (size_t)fg_pagesize() < a->nr_workers &&
	    a->pattern != FAULTGEN_PRETOUCH)
		return -EINVAL;
	if (a->pattern == FAULTGEN_PRETOUCH &&
	    (a->kind != FAULTGEN_THREADS || repeat))
		return -EINVAL;
	if (a->pattern == FAULTGEN_RO_COLLAPSE && repeat)
		return -EINVAL;
	return 0;
}

/* The mask of the allowed CPUs, allocated before any fork. */
static int prepare_masks(struct faultgen_run *run)
{
	size_t nbits = run->cpus.nbits;
	cpu_set_t *set;

	run->cpuset_size = CPU_ALLOC_SIZE(nbits);
	run->cpuset_buf = CPU_ALLOC(nbits);
	if (!run->cpuset_buf)
		return -ENOMEM;
	set = run->cpuset_buf;
	CPU_ZERO_S(run->cpuset_size, set);
	for (unsigned int i = 0; i < run->cpus.count; i++)
		CPU_SET_S((size_t)run->cpus.list[i], run->cpuset_size, set);
	return 0;
}

static int alloc_shared(struct faultgen_run *run)
{
	size_t len = sizeof(struct fg_shared) +
		     (size_t)run->attr.nr_workers * sizeof(struct fg_wstat);
	/* Forked workers write their figures here.  Threads need no shmem
	 * object, whose set-up and teardown cost a pft -t 1 run 0.03 ms. */
	int share =
	    run->attr.kind == FAULTGEN_PROCESSES ? MAP_SHARED : MAP_PRIVATE;
	void *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, share | MAP_ANONYMOUS, -1,
		 0);
	if (p == MAP_FAILED)
		return -errno;
	run->sh_len = len;
	/* faultgen_run_cancel may read it from another thread. */
	__atomic_store_n(&run->sh, (struct fg_shared *)p, __ATOMIC_RELEASE);
	if (run->attr.rounds || run->attr.duration > 0) {
		len = (size_t)run->attr.nr_workers * FG_ROUND_SAMPLES *
		      sizeof(*run->round_ns);
		/* NORESERVE: only the rounds actually run touch pages. */
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 share | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED)
			return -errno;
		run->round_ns = p;
		run->round_len = len;
	}
	for (unsigned int i = 0; i < run->attr.nr_workers; i++)
		run->sh->w[i].cpu = run->sh->w[i].last_cpu = -1;
	return 0;
}

static bool deadline_passed(const struct faultgen_run *run,
			    const struct fg_wstat *w, int64_t deadline)
{
	if (run->attr.rounds)
		return w->rounds >= run->attr.rounds;
	return fg_now_ns() >= deadline;
}

/* One worker of the shared-VMA and per-thread-VMA patterns. */
static int fault_body(struct faultgen_run *run, unsigned int i)
{
	const struct faultgen_attr *a = &run->attr;
	struct fg_shared *sh = run->sh;
	struct fg_wstat *w = &sh->w[i];
	/* Worker 0 in the calling thread counts that thread's usage only. */
	bool process = a->kind == FAULTGEN_PROCESSES &&
		       !(i == 0 && a->caller_worker);
	char *addr = run->waddr[i];
	size_t len = run->wlen[i];
	uint64_t pages = len / (size_t)run->pagesize;
	int64_t *round_ns = run->round_ns ?
				    run->round_ns + (size_t)i * FG_ROUND_SAMPLES :
				    NULL;
	int64_t deadline, t0, t1;
	int ret = 0;

	if (a->rounds || a->duration > 0) {
		/* Warm-up in this very process, with no pause: memory the
		 * host took back costs 2-5x more to fault again. */
		for (unsigned int r = 0; r < a->warmup && !ret; r++) {
			ret = fg_touch(run, addr, len, sh);
			if (!ret)
				ret = fg_zap(run, i);
		}
		/* Every worker passes, failed or not, or the others would
		 * wait for it; measuring starts together. */
		if (!fg_gate_pass(run, &sh->measure) && !ret)
			ret = -ECANCELED;
		if (ret)
			return ret;
		fg_stat_begin(w, process);
		/* One deadline for all, from the moment the gate opened: with
		 * more workers than CPUs the late starters must not extend
		 * the run by their own delay. */
		deadline = atomic_load(&sh->measure.open_ns) +
			   (int64_t)(a->duration * 1e9);
		do {
			t0 = fg_now_ns();
			ret = fg_touch(run, addr, len, sh);
			t1 = fg_now_ns();
			w->fault_ns += t1 - t0;
			if (ret)
				break;
			ret = fg_zap(run, i);
			if (ret)
				break;
			if (w->rounds < FG_ROUND_SAMPLES)
				round_ns[w->rounds] = fg_now_ns() - t0;
			w->rounds++;
			w->pages += pages;
		} while (!deadline_passed(run, w, deadline) &&
			 !atomic_load_explicit(&sh->cancel,
					       memory_order_relaxed));
		fg_stat_end(w, process);
		return ret;
	}
	fg_stat_begin(w, process);
	ret = fg_touch(run, addr, len, sh);
	fg_stat_end(w, process);
	w->fault_ns = w->end_ns - w->start_ns;
	if (!ret) {
		w->rounds = 1;
		w->pages = pages;
	}
	return ret;
}

static int exec_faults(struct faultgen_run *run)
{
	int ret = fg_memory_setup(run);

	if (ret)
		return ret;
	ret = fg_workers_run(run, fault_body, true);
	if (ret)
		return ret;
	fg_measure_fold(run);
	return 0;
}

/*
 * Every error leaving faultgen_run_exec goes through here, so that only
 * the codes its manual page documents can reach the caller (the system
 * calls under it have many more).
 */
static int public_error(int err)
{
	switch (-err) {
	case 0:
	case EINVAL:
	case EALREADY:
	case ENXIO:
	case ENOENT:
	case ENOMEM:
	case EAGAIN:
	case EPERM:
	case EACCES:
	case EFAULT:
	case EBUSY:
	case EOPNOTSUPP:
	case ECANCELED:
	case ECHILD:
		return err;
	case EEXIST: /* MAP_FIXED_NOREPLACE: the place was taken */
		return -EBUSY;
	case ENOSPC:
	case ENOBUFS: /* a cpuset's list longer than we read */
		return -ENOMEM;
	case EMFILE:
	case ENFILE:
	case EINTR:
	case EIDRM:
	case ESRCH:
		return -EAGAIN;
	case EHWPOISON:
		return -EFAULT;
	case ENOSYS:
	case EIO:
		return -EOPNOTSUPP;
	default:
		return -EINVAL;
	}
}

FG_EXPORT int faultgen_run_exec(struct faultgen_run *run)
{
	struct faultgen_attr *a;
	int ret;

	if (!run)
		return -EINVAL;
	if (run->executed)
		return -EALREADY;
	run->executed = true;
	a = &run->attr;
	ret = check_combination(a);
	if (ret)
		goto out;
	ret = fg_cpus_resolve(a, &run->cpus, &run->cpuset_source, &run->mems,
			      &run->mems_nbits);
	if (ret)
		goto out;
	if (a->pattern == FAULTGEN_PRETOUCH && !a->nr_workers_set)
		a->nr_workers = fg_pretouch_default_workers(run);
	if (a->nr_workers > run->cpus.count && !a->oversubscribe &&
	    a->pattern != FAULTGEN_PRETOUCH) {
		ret = -EINVAL;
		goto out;
	}
	ret = prepare_masks(run);
	if (!ret)
		ret = alloc_shared(run);
	if (ret)
		goto out;
	if (atomic_load(&run->cancelled)) {
		ret = -ECANCELED;
		goto out;
	}
	switch (a->pattern) {
	case FAULTGEN_SHARED_VMA:
	case FAULTGEN_PER_THREAD_VMA:
		ret = exec_faults(run);
		break;
	case FAULTGEN_RO_COLLAPSE:
		ret = fg_collapse_run(run);
		break;
	case FAULTGEN_PRETOUCH:
		ret = fg_pretouch_run(run);
		break;
	}
out:
	ret = public_error(ret);
	run->status = ret;
	if (ret) {
		if (!run->fail_error && !run->fail_signo)
			run->fail_error = ret;
		fg_memory_release(run);
		fg_collapse_release(run);
	}
	return ret;
}

FG_EXPORT int faultgen_run_new(const struct faultgen_attr *attr,
			       struct faultgen_run **out)
{
	struct faultgen_run *run;
	int ret;

	if (!out)
		return -EINVAL;
	*out = NULL;
	ret = faultgen_run_create(attr, &run);
	if (ret)
		return ret;
	ret = faultgen_run_exec(run);
	if (ret) {
		faultgen_run_free(run);
		return ret;
	}
	*out = run;
	return 0;
}

/* Only atomic stores and futex wake-ups: async-signal-safe. */
FG_EXPORT void faultgen_run_cancel(struct faultgen_run *run)
{
	struct fg_shared *sh;

	if (!run)
		return;
	atomic_store(&run->cancelled, 1);
	sh = __atomic_load_n(&run->sh, __ATOMIC_ACQUIRE);
	if (sh)
		fg_gates_abort(sh);
}

FG_EXPORT void faultgen_run_free(struct faultgen_run *run)
{
	if (!run)
		return;
	fg_memory_release(run);
	fg_collapse_release(run);
	if (run->sh)
		munmap(run->sh, run->sh_len);
	if (run->round_ns)
		munmap(run->round_ns, run->round_len);
	fg_cpus_release(&run->cpus);
	free(run->mems);
	free(run->pids);
	free(run->reaped);
	if (run->cpuset_buf)
		CPU_FREE(run->cpuset_buf);
	free(run->attr.cpulist);
	free(run->attr.cpuset);
	free(run);
}

static bool run_done(const struct faultgen_run *run)
{
	return run->executed && run->status == 0;
}

FG_EXPORT int faultgen_run_result(const struct faultgen_run *run,
				  struct faultgen_result *res)
{
	if (!run || !res || res->size < sizeof(size_t) * 2)
		return -EINVAL;
	if (!run_done(run))
		return -ENODATA;
	fg_copy_sized(res, &run->result, sizeof(run->result));
	return 0;
}

FG_EXPORT int faultgen_run_worker(const struct faultgen_run *run,
				  unsigned int index,
				  struct faultgen_worker_result *wres)
{
	struct faultgen_worker_result r;
	const struct fg_wstat *w;
	int64_t first = INT64_MAX;

	if (!run || !wres || wres->size < sizeof(size_t) * 2)
		return -EINVAL;
	if (!run_done(run))
		return -ENODATA;
	if (index >= run->attr.nr_workers)
		return -ERANGE;
	for (unsigned int i = 0; i < run->attr.nr_workers; i++)
		if (run->sh->w[i].start_ns < first)
			first = run->sh->w[i].start_ns;
	w = &run->sh->w[index];
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.index = index;
	r.cpu = w->cpu;
	r.last_cpu = w->last_cpu;
	r.pid = w->pid;
	r.tid = w->tid;
	r.pages = w->pages;
	r.rounds = w->rounds;
	r.minflt = w->minflt;
	r.majflt = w->majflt;
	r.start_s = (double)(w->start_ns - first) / 1e9;
	r.wall_s = (double)(w->end_ns - w->start_ns) / 1e9;
	r.fault_s = (double)w->fault_ns / 1e9;
	fg_split_cpu(w, &r.user_s, &r.sys_s);
	if (run->waddr) {
		r.addr = run->waddr[index];
		r.len = run->wlen[index];
	}
	fg_copy_sized(wres, &r, sizeof(r));
	return 0;
}

FG_EXPORT int faultgen_run_rounds(const struct faultgen_run *run,
				  unsigned int worker, double *seconds,
				  size_t max)
{
	uint64_t n;

	if (!run || (!seconds && max))
		return -EINVAL;
	if (!run_done(run))
		return -ENODATA;
	if (worker >= run->attr.nr_workers)
		return -ERANGE;
	if (!run->round_ns)
		return 0;
	n = run->sh->w[worker].rounds;
	if (n > FG_ROUND_SAMPLES)
		n = FG_ROUND_SAMPLES;
	for (uint64_t r = 0; r < n && r < max; r++)
		seconds[r] =
			(double)run->round_ns[(size_t)worker * FG_ROUND_SAMPLES +
					      r] /
			1e9;
	return (int)n;
}

FG_EXPORT int faultgen_run_failure(const struct faultgen_run *run,
				   int *worker, int *signo, int *error)
{
	if (!run)
		return -EINVAL;
	if (worker)
		*worker = run->fail_worker;
	if (signo)
		*signo = run->fail_signo;
	if (error)
		*error = run->fail_error;
	return 0;
}

FG_EXPORT int faultgen_run_cpulist(const struct faultgen_run *run, char *buf,
				   size_t len)
{
	if (!run || !buf || !len)
		return -EINVAL;
	if (!run->cpus.bits)
		return -ENODATA;
	return faultgen_format_cpulist(run->cpus.bits, run->cpus.nbits, buf,
				       len);
}

FG_EXPORT int faultgen_run_region(const struct faultgen_run *run,
				  void **addr, size_t *len)
{
	if (!run || !addr || !len)
		return -EINVAL;
	if (!run->base)
		return -ENODATA;
	*addr = run->base;
	*len = run->base_len;
	return 0;
}

FG_EXPORT const char *faultgen_run_cpuset_source(const struct faultgen_run *run)
{
	return run && run->cpuset_source ? run->cpuset_source : "";
}
