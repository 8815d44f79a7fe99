// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * run.c - a run: checking the settings, placing the workers, running the
 * pattern through its operations and keeping its figures.  run.c knows no
 * pattern by name: patterns.c maps the attr's pattern to its operations.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Zeroed, in memory that forked workers share. */
static int alloc_state(struct faultgen_run *run)
{
	void *p;
	int ret;

	if (!run->ops->state_size)
		return 0;
	ret = fg_map_figures(run, run->ops->state_size, false, &p);
	if (ret)
		return ret;
	run->state = p;
	run->state_len = run->ops->state_size;
	return 0;
}

/* The rules every pattern shares, then the pattern's own. */
int fg_attr_check(const struct faultgen_attr *a, struct faultgen_conflict *c)
{
	const struct fg_pattern *p = fg_pattern_of(a);
	int ret = fg_attr_check_common(a, c);

	if (!ret)
		ret = fg_pattern_caps_check(a, p, c);
	if (ret || !p->check)
		return ret;
	return p->check(a, c);
}

int fg_run_create(const struct faultgen_attr *attr, struct faultgen_run **out)
{
	struct faultgen_run *run;

	*out = NULL;
	run = calloc(1, sizeof(*run));
	if (!run)
		return -ENOMEM;
	if (fg_attr_copy(&run->attr, attr)) {
		free(run);
		return -ENOMEM;
	}
	run->ops = fg_pattern_of(&run->attr);
	run->pagesize = (long)fg_backing_pagesize(&run->attr);
	run->cacheline = fg_cacheline();
	run->backing = fg_backing_of(&run->attr);
	run->base_id = -1;
	run->backing_fd = -1;
	run->fail_worker = -1;
	run->cpuset_source = "";
	if (run->ops->attach)
		run->ops->attach(run);
	*out = run;
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
	void *p;
	int ret = fg_map_figures(run, len, false, &p);

	if (ret)
		return ret;
	run->sh_len = len;
	/* faultgen_run_cancel may read it from another thread. */
	__atomic_store_n(&run->sh, (struct fg_shared *)p, __ATOMIC_RELEASE);
	if (fg_attr_repeats(&run->attr)) {
		len = (size_t)run->attr.nr_workers * FG_ROUND_SAMPLES *
		      sizeof(*run->round_ns);
		/* NORESERVE: only the rounds actually run touch pages. */
		ret = fg_map_figures(run, len, true, &p);
		if (ret)
			return ret;
		run->round_ns = p;
		run->round_len = len;
	}
	for (unsigned int i = 0; i < run->attr.nr_workers; i++)
		run->sh->w[i].cpu = run->sh->w[i].last_cpu = -1;
	return 0;
}

/* Per-node page counts, [worker][node], shared with forked workers. */
static int alloc_node_pages(struct faultgen_run *run)
{
	void *p;
	int ret;

	run->report_nodes = fg_numa_report_nodes();
	run->node_pages_len = (size_t)run->attr.nr_workers *
			      run->report_nodes * sizeof(*run->node_pages);
	ret = fg_map_figures(run, run->node_pages_len, false, &p);
	if (ret)
		return ret;
	run->node_pages = p;
	return 0;
}

/* The CPUs, the worker count, the shared state: everything before the
 * pattern maps memory. */
FG_TESTABLE int fg_run_prepare(struct faultgen_run *run)
{
	struct faultgen_attr *a = &run->attr;
	int ret = fg_cpus_resolve(a, &run->cpus, &run->cpuset_source,
				  &run->mems, &run->mems_nbits);

	if (ret)
		return ret;
	if (!a->nr_workers_set && run->ops->default_workers)
		a->nr_workers = run->ops->default_workers(run);
	if (a->nr_workers > run->cpus.count && !a->oversubscribe &&
	    !run->ops->unbound_workers)
		return -EINVAL;
	ret = fg_numa_resolve(run);
	if (!ret)
		ret = prepare_masks(run);
	if (!ret)
		ret = alloc_shared(run);
	if (!ret)
		ret = alloc_state(run);
	if (!ret && a->node_pages)
		ret = alloc_node_pages(run);
	if (!ret && (run->ops->reads & FG_SETTING(FAULTGEN_SETTING_LATENCY)))
		ret = fg_lat_prepare(run);
	if (!ret)
		ret = fg_lock_prepare(run);
	if (!ret)
		ret = fg_wait_prepare(run);
	return ret;
}

int fg_run_exec(struct faultgen_run *run)
{
	int ret;

	if (run->executed)
		return -EALREADY;
	run->executed = true;
	ret = fg_attr_check(&run->attr, NULL);
	if (!ret)
		ret = fg_run_prepare(run);
	if (!ret && atomic_load(&run->cancelled))
		ret = -ECANCELED;
	if (!ret)
		ret = fg_sigbus_begin(run);
	if (!ret) {
		ret = run->ops->exec(run);
		fg_sigbus_end(run);
	}
	run->status = ret;
	if (ret) {
		if (!run->fail_error && !run->fail_signo)
			run->fail_error = ret;
		/* What a cancelled run measured stays, with its memory. */
		if (!run->measured)
			run->ops->release(run);
	}
	return ret;
}

/* Only atomic stores and futex wake-ups: async-signal-safe. */
void fg_run_cancel(struct faultgen_run *run)
{
	struct fg_shared *sh;

	atomic_store(&run->cancelled, 1);
	sh = __atomic_load_n(&run->sh, __ATOMIC_ACQUIRE);
	if (sh)
		fg_gates_abort(sh);
}

void fg_run_free(struct faultgen_run *run)
{
	run->ops->release(run);
	if (run->state)
		munmap(run->state, run->state_len);
	if (run->sh)
		munmap(run->sh, run->sh_len);
	if (run->round_ns)
		munmap(run->round_ns, run->round_len);
	if (run->node_pages)
		munmap(run->node_pages, run->node_pages_len);
	fg_lat_release(run);
	fg_wait_release(run);
	free(run->numa_nodes);
	fg_cpus_release(&run->cpus);
	free(run->mems);
	free(run->pids);
	free(run->reaped);
	if (run->cpuset_buf)
		CPU_FREE(run->cpuset_buf);
	fg_attr_release(&run->attr);
	free(run);
}

/* Figures to read: the run completed, or was cancelled after measuring. */
bool fg_run_measured(const struct faultgen_run *run)
{
	return run->executed && run->measured &&
	       (run->status == 0 || run->status == -ECANCELED);
}

int fg_run_worker(const struct faultgen_run *run, unsigned int index,
		  struct faultgen_worker_result *r)
{
	const struct fg_wstat *w;
	int64_t first = INT64_MAX;

	if (!fg_run_measured(run))
		return -ENODATA;
	if (index >= run->attr.nr_workers)
		return -ERANGE;
	for (unsigned int i = 0; i < run->attr.nr_workers; i++)
		if (run->sh->w[i].start_ns && run->sh->w[i].start_ns < first)
			first = run->sh->w[i].start_ns;
	w = &run->sh->w[index];
	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	r->index = index;
	r->cpu = w->cpu;
	r->last_cpu = w->last_cpu;
	r->pid = w->pid;
	r->tid = w->tid;
	r->pages = w->pages;
	r->rounds = w->rounds;
	r->minflt = w->use.minflt;
	r->majflt = w->use.majflt;
	if (w->start_ns)
		r->start_s = (double)(w->start_ns - first) / 1e9;
	r->wall_s = (double)(w->end_ns - w->start_ns) / 1e9;
	r->fault_s = (double)w->fault_ns / 1e9;
	fg_split_cpu(w, &r->user_s, &r->sys_s);
	if (run->waddr) {
		r->addr = run->waddr[index];
		r->len = run->wlen[index];
	}
	return 0;
}

int fg_run_rounds(const struct faultgen_run *run, unsigned int worker,
		  double *seconds, size_t max)
{
	uint64_t n;

	if (!fg_run_measured(run))
		return -ENODATA;
	if (worker >= run->attr.nr_workers)
		return -ERANGE;
	if (!run->round_ns)
		return 0;
	n = run->sh->w[worker].rounds;
	if (n > FG_ROUND_SAMPLES)
		n = FG_ROUND_SAMPLES;
	for (uint64_t r = 0; r < n && r < max; r++)
		seconds[r] = (double)run->round_ns[(size_t)worker *
						    FG_ROUND_SAMPLES + r] /
			     1e9;
	return (int)n;
}

/* The count of a figure callback's figures (0: none). */
static int figures_of(const struct faultgen_run *run,
		      int (*figure)(const struct faultgen_run *,
				    unsigned int, struct faultgen_figure *))
{
	struct faultgen_figure f = { .size = sizeof(f) };
	int n = figure ? figure(run, 0, &f) : 0;

	return n > 0 ? n : 0;
}

/* The pattern's own figures of a measured run, then the backing's
 * (a cold file's). */
int fg_run_figure(const struct faultgen_run *run, unsigned int index,
		  struct faultgen_figure *f)
{
	int n, m, ret;

	if (!fg_run_measured(run))
		return -ENODATA;
	n = figures_of(run, run->ops->figure);
	m = figures_of(run, fg_cold_figure);
	if (index < (unsigned int)n)
		ret = run->ops->figure(run, index, f);
	else if (index - (unsigned int)n < (unsigned int)m)
		ret = fg_cold_figure(run, index - (unsigned int)n, f);
	else
		return -ERANGE;
	return ret < 0 ? ret : n + m;
}

/* Pages per node of one worker, or of all (worker -1). */
int fg_run_node_pages(const struct faultgen_run *run, int worker,
		      uint64_t *pages, size_t max)
{
	size_t nodes = run->report_nodes;

	if (!fg_run_measured(run) || !run->node_pages)
		return -ENODATA;
	if (worker >= (int)run->attr.nr_workers || worker < -1)
		return -ERANGE;
	for (size_t n = 0; n < max; n++)
		pages[n] = 0;
	for (unsigned int i = 0; i < run->attr.nr_workers; i++) {
		if (worker >= 0 && (unsigned int)worker != i)
			continue;
		for (size_t n = 0; n < nodes && n < max; n++)
			pages[n] += run->node_pages[i * nodes + n];
	}
	return (int)nodes;
}
