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

static void usage_now(struct fg_wstat *w, bool process, int sign)
{
	struct rusage ru;

	getrusage(process ? RUSAGE_SELF : RUSAGE_THREAD, &ru);
	w->minflt += (uint64_t)(sign * ru.ru_minflt);
	w->majflt += (uint64_t)(sign * ru.ru_majflt);
	w->ru_user_us += sign * tv_us(&ru.ru_utime);
	w->ru_sys_us += sign * tv_us(&ru.ru_stime);
	w->cpu_ns += sign * fg_clock_ns(process ? CLOCK_PROCESS_CPUTIME_ID :
						  CLOCK_THREAD_CPUTIME_ID);
}

/* Right before the loop: usage first, so the clock is read last. */
void fg_stat_begin(struct fg_wstat *w, bool process)
{
	usage_now(w, process, -1);
	w->start_ns = fg_now_ns();
}

/* Right after the loop: the clock first. */
void fg_stat_end(struct fg_wstat *w, bool process)
{
	w->end_ns = fg_now_ns();
	usage_now(w, process, 1);
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
	double cpu = (double)w->cpu_ns / 1e9;
	int64_t ru = w->ru_user_us + w->ru_sys_us;

	if (cpu < 0)
		cpu = 0;
	if (ru <= 0) {
		*user = 0;
		*sys = cpu;
		return;
	}
	*user = cpu * (double)w->ru_user_us / (double)ru;
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
 * Round r's aggregate rate is the sum over workers of their slice pages
 * over their round r time: robust against one slow round, which a total
 * over the whole interval is not.
 */
static void fold_rounds(struct faultgen_run *run, struct faultgen_result *r)
{
	unsigned int n = run->attr.nr_workers;
	uint64_t common = FG_ROUND_SAMPLES;
	double *rates;

	if (!run->round_ns)
		return;
	for (unsigned int i = 0; i < n; i++)
		if (run->sh->w[i].rounds < common)
			common = run->sh->w[i].rounds;
	if (!common)
		return;
	rates = calloc(common, sizeof(*rates));
	if (!rates)
		return;
	for (uint64_t k = 0; k < common; k++) {
		for (unsigned int i = 0; i < n; i++) {
			int64_t ns = run->round_ns[(size_t)i * FG_ROUND_SAMPLES + k];
			uint64_t pages = run->wlen[i] / (size_t)run->pagesize;

			if (ns > 0)
				rates[k] += (double)pages * 1e9 / (double)ns;
		}
	}
	r->rounds_sampled = (unsigned int)common;
	r->round_rate_median = fg_median(rates, common);
	r->round_rate_min = rates[0];
	r->round_rate_max = rates[common - 1];
	free(rates);
}

void fg_measure_fold(struct faultgen_run *run)
{
	struct faultgen_result *r = &run->result;
	unsigned int n = run->attr.nr_workers;
	int64_t first = INT64_MAX, last_start = INT64_MIN, end = INT64_MIN;

	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	r->workers = n;
	r->pagesize = (unsigned int)run->pagesize;
	r->bytes = run->base_len;
	if (run->attr.pattern == FAULTGEN_PER_THREAD_VMA)
		r->bytes = (uint64_t)run->slice_len * n;
	r->pages_per_round = run->slice_pages * n;
	for (unsigned int i = 0; i < n; i++) {
		const struct fg_wstat *w = &run->sh->w[i];
		double user, sys;

		if (w->start_ns < first)
			first = w->start_ns;
		if (w->start_ns > last_start)
			last_start = w->start_ns;
		if (w->end_ns > end)
			end = w->end_ns;
		r->pages += w->pages;
		r->rounds += w->rounds;
		r->minflt += w->minflt;
		r->majflt += w->majflt;
		r->fault_s += (double)w->fault_ns / 1e9;
		fg_split_cpu(w, &user, &sys);
		r->user_s += user;
		r->sys_s += sys;
	}
	if (n && end >= first) {
		r->elapsed_s = (double)(end - first) / 1e9;
		r->start_skew_s = (double)(last_start - first) / 1e9;
	}
	r->expected_faults = r->pages;
	r->pages_per_wall_s = rate((double)r->pages, r->elapsed_s);
	r->pages_per_cpu_s = rate((double)r->pages, r->user_s + r->sys_s);
	r->faults_per_wall_s = rate((double)r->minflt, r->elapsed_s);
	r->faults_per_cpu_s = rate((double)r->minflt, r->user_s + r->sys_s);
	r->faults_agree = fg_faults_agree(r->expected_faults, r->minflt, n);
	r->shm_refault = run->attr.backing == FAULTGEN_BACKING_SYSV &&
			 (run->attr.rounds || run->attr.duration > 0);
	fold_rounds(run, r);
}
