// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * measure.c - taking a worker's figures around its loop and folding them.
 *
 * rusage times are tick-granular (a short loop often reads 0), so CPU time
 * comes from the CPU-time clocks and rusage only gives the user/system
 * proportion.  Everything here is async-signal-safe: forked workers call
 * fg_stat_begin/fg_stat_end.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static int64_t tv_us(const struct timeval *tv)
{
	return (int64_t)tv->tv_sec * 1000000 + tv->tv_usec;
}

/* The calling thread's (or, in a forked worker, process's) counters, and
 * those of its lock-path group lock_fd (-1: none). */
void fg_usage_now(struct fg_usage *u, bool process, int lock_fd)
{
	struct rusage ru;

	getrusage(process ? RUSAGE_SELF : RUSAGE_THREAD, &ru);
	u->minflt = (uint64_t)ru.ru_minflt;
	u->majflt = (uint64_t)ru.ru_majflt;
	u->ru_user_us = tv_us(&ru.ru_utime);
	u->ru_sys_us = tv_us(&ru.ru_stime);
	u->cpu_ns = fg_clock_ns(process ? CLOCK_PROCESS_CPUTIME_ID :
					  CLOCK_THREAD_CPUTIME_ID);
	fg_lock_read(lock_fd, &u->lock);
}

/* d = a - b */
void fg_usage_sub(struct fg_usage *d, const struct fg_usage *a,
		  const struct fg_usage *b)
{
	d->minflt = a->minflt - b->minflt;
	d->majflt = a->majflt - b->majflt;
	d->cpu_ns = a->cpu_ns - b->cpu_ns;
	d->ru_user_us = a->ru_user_us - b->ru_user_us;
	d->ru_sys_us = a->ru_sys_us - b->ru_sys_us;
	fg_lock_sub(&d->lock, &a->lock, &b->lock);
}

/* sum += d */
void fg_usage_add(struct fg_usage *sum, const struct fg_usage *d)
{
	sum->minflt += d->minflt;
	sum->majflt += d->majflt;
	sum->cpu_ns += d->cpu_ns;
	sum->ru_user_us += d->ru_user_us;
	sum->ru_sys_us += d->ru_sys_us;
	fg_lock_add(&sum->lock, &d->lock);
}

/* Whether worker i's usage is its process's (a forked worker) or its
 * thread's; worker 0 in the calling thread counts that thread only. */
bool fg_counts_process(const struct faultgen_run *run, unsigned int i)
{
	return run->attr.kind == FAULTGEN_PROCESSES &&
	       !(i == 0 && run->attr.caller_worker);
}

/* Right before the loop: usage first (into *at), so the clock is read
 * last.  A forked worker reads its usage and the clock once before:
 * fork copies no page tables of file mappings, and the first call's
 * faults (the C library's text, the vDSO's) are the child's own, not
 * its loop's. */
void fg_stat_begin(struct fg_wstat *w, struct fg_usage *at, bool process)
{
	memset(&w->zap_lock, 0, sizeof(w->zap_lock));
	if (process) {
		fg_usage_now(at, process, fg_wstat_lock_fd(w));
		(void)fg_now_ns();
	}
	fg_usage_now(at, process, fg_wstat_lock_fd(w));
	w->start_ns = fg_now_ns();
	w->end_ns = w->start_ns;
}

/* Right after the loop (or a round of it): the clock first.  Called again
 * after a later round, it moves the end on. */
void fg_stat_end(struct fg_wstat *w, const struct fg_usage *at,
		 bool process)
{
	struct fg_usage now;

	w->end_ns = fg_now_ns();
	fg_usage_now(&now, process, fg_wstat_lock_fd(w));
	fg_usage_sub(&w->use, &now, at);
	w->last_cpu = sched_getcpu();
}

/*
 * The kernel's count agrees with the pages touched when it is within 1%
 * plus a slack for the faults a worker takes besides its slice (its stack,
 * TLS, and in a forked child the copy-on-write of what it writes).
 */
FG_TESTABLE bool fg_faults_agree(uint64_t expected, uint64_t measured,
				 unsigned int workers)
{
	uint64_t slack = expected / 100 + 48 + 16 * (uint64_t)workers;
	uint64_t diff = expected > measured ? expected - measured :
					      measured - expected;

	return diff <= slack;
}

/* Splits cpu_ns into user and system time as rusage proportions them.
 * With no rusage ticks at all, it counts as system time: a faulting loop
 * spends nearly all of it in the kernel. */
void fg_split_cpu(const struct fg_wstat *w, double *user, double *sys)
{
	double cpu = (double)w->use.cpu_ns / 1e9;
	int64_t ru = w->use.ru_user_us + w->use.ru_sys_us;

	if (cpu < 0)
		cpu = 0;
	if (ru <= 0) {
		*user = 0;
		*sys = cpu;
		return;
	}
	*user = cpu * (double)w->use.ru_user_us / (double)ru;
	if (*user > cpu) /* (cpu * part) / whole may round above cpu */
		*user = cpu;
	*sys = cpu - *user;
}

static double rate(double num, double den)
{
	return den > 0 ? num / den : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts v and returns its median (0 for no values). */
FG_TESTABLE double fg_median(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * Round r's aggregate rate is the sum over workers of the pages they
 * touch in their slices over their round r time: robust against one slow round, which a total
 * over the whole interval is not.  Returns the rounds every worker
 * recorded (rates filled up to max of them).
 */
FG_TESTABLE unsigned int fg_round_rates(const struct faultgen_run *run,
					double *rates, size_t max)
{
	unsigned int n = run->attr.nr_workers;
	uint64_t common = FG_ROUND_SAMPLES;

	if (!run->round_ns || !run->sh)
		return 0;
	for (unsigned int i = 0; i < n; i++)
		if (run->sh->w[i].rounds < common)
			common = run->sh->w[i].rounds;
	for (uint64_t k = 0; k < common && k < max; k++) {
		rates[k] = 0;
		for (unsigned int i = 0; i < n; i++) {
			int64_t ns = run->round_ns[(size_t)i * FG_ROUND_SAMPLES +
						   k];
			uint64_t pages = fg_touched_pages(
				run, run->wlen[i] / (size_t)run->pagesize);

			if (ns > 0)
				rates[k] += (double)pages * 1e9 / (double)ns;
		}
	}
	return (unsigned int)common;
}

static void fold_rounds(struct faultgen_run *run, struct faultgen_result *r)
{
	double *rates = calloc(FG_ROUND_SAMPLES, sizeof(*rates));
	unsigned int common;

	if (!rates)
		return;
	common = fg_round_rates(run, rates, FG_ROUND_SAMPLES);
	if (common) {
		r->rounds_sampled = common;
		r->round_rate_median = fg_median(rates, common);
		r->round_rate_min = rates[0];
		r->round_rate_max = rates[common - 1];
	}
	free(rates);
}

/* The figure of record: the median round rate when there are enough
 * rounds to take one, else pages over elapsed time. */
static void fold_rate(struct faultgen_result *r)
{
	if (r->rounds_sampled >= FG_MEDIAN_MIN_ROUNDS &&
	    r->round_rate_median > 0) {
		r->rate = r->round_rate_median;
		r->rate_kind = FAULTGEN_RATE_ROUND_MEDIAN;
	} else {
		r->rate = r->pages_per_wall_s;
		r->rate_kind = FAULTGEN_RATE_WALL;
	}
}

/* Sums of the workers' figures, and the span of their intervals. */
static void fold_workers(struct faultgen_run *run, struct faultgen_result *r)
{
	unsigned int n = run->attr.nr_workers;
	int64_t first = INT64_MAX, last_start = INT64_MIN, end = INT64_MIN;

	r->worker_rounds_min = n ? UINT64_MAX : 0;
	for (unsigned int i = 0; i < n; i++) {
		const struct fg_wstat *w = &run->sh->w[i];
		double user, sys;

		if (w->start_ns && w->start_ns < first)
			first = w->start_ns;
		if (w->start_ns > last_start)
			last_start = w->start_ns;
		if (w->end_ns > end)
			end = w->end_ns;
		r->pages += w->pages;
		r->rounds += w->rounds;
		if (w->rounds < r->worker_rounds_min)
			r->worker_rounds_min = w->rounds;
		if (w->rounds > r->worker_rounds_max)
			r->worker_rounds_max = w->rounds;
		r->minflt += w->use.minflt;
		r->majflt += w->use.majflt;
		r->fault_s += (double)w->fault_ns / 1e9;
		fg_split_cpu(w, &user, &sys);
		r->user_s += user;
		r->sys_s += sys;
	}
	/* Workers a cancel stopped before their loop began have no
	 * interval. */
	if (n && first != INT64_MAX && end >= first) {
		r->elapsed_s = (double)(end - first) / 1e9;
		r->start_skew_s = (double)(last_start - first) / 1e9;
	}
}

/*
 * Touches a pattern made in the calling thread, outside any worker (the
 * JVM's main thread's share of a pretouch): folded into the totals, not
 * into a worker's figures, and the count checked again with them.
 */
void fg_measure_add_caller(struct faultgen_run *run, const struct fg_wstat *w)
{
	struct faultgen_result *r = &run->result;
	double user, sys;

	r->pages += w->pages;
	r->minflt += w->use.minflt;
	r->majflt += w->use.majflt;
	fg_split_cpu(w, &user, &sys);
	r->user_s += user;
	r->sys_s += sys;
	r->expected_faults = r->pages;
	r->faults_agree = fg_faults_agree(r->expected_faults,
					  r->minflt + r->majflt,
					  run->attr.nr_workers + 1);
}

/* The rates of the counts and times in r, and the figure of record; again
 * after a pattern changes those (pretouch times from before its workers
 * exist). */
void fg_measure_rates(struct faultgen_result *r)
{
	r->pages_per_wall_s = rate((double)r->pages, r->elapsed_s);
	r->pages_per_cpu_s = rate((double)r->pages, r->user_s + r->sys_s);
	r->faults_per_wall_s = rate((double)r->minflt, r->elapsed_s);
	r->faults_per_cpu_s = rate((double)r->minflt, r->user_s + r->sys_s);
	fold_rate(r);
}

void fg_measure_fold(struct faultgen_run *run)
{
	struct faultgen_result *r = &run->result;
	unsigned int n = run->attr.nr_workers;

	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	r->workers = n;
	r->pagesize = (unsigned int)run->pagesize;
	r->bytes = run->base_len;
	if (run->ops->own_mappings)
		r->bytes = (uint64_t)run->slice_len * n;
	r->pages_per_round = fg_touched_pages(run, run->slice_pages) * n;
	fold_workers(run, r);
	r->expected_faults = r->pages;
	/* A file's page read in is a major fault: one fault all the same. */
	r->faults_agree = fg_faults_agree(r->expected_faults,
					  r->minflt + r->majflt, n);
	r->shm_refault = run->backing->zap_keeps_pages &&
			 fg_attr_repeats(&run->attr);
	r->cancelled = atomic_load(&run->cancelled) != 0;
	fold_rounds(run, r);
	fg_measure_rates(r);
	fg_lat_fold(run);
	run->measured = true;
}
