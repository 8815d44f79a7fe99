// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * replay-obs.c - what a replay (replay.c) measured of each object of its
 * profile, in the terms of pft-survey: the faults made by thread and
 * kind, the threads and processes that made them, how many of them
 * made one within the same 1 ms window (the most, and the median over
 * the windows with any), and the first and last fault's times.
 *
 * Each fault made is noted by its thread with the time it ended
 * (CLOCK_MONOTONIC, ns after the replay's clock): its row's count and
 * times, and the thread's run of windows in which it faulted the
 * object (a cursor per object, private to the thread), stored in the
 * thread's part of a log when the run ends.  The rows and the log are
 * in shared memory, each part written by one thread only: the forked
 * processes' threads note theirs there too, and the caller folds them
 * once all are done.  A thread's log holds four runs per chunk of its
 * own and 64 more; past that, its runs of an object are merged over
 * the gap (a window counted where it made no fault), counted in
 * merged_windows.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define WINDOW_NS 1000000

struct row_made {
	uint64_t faults;
	int64_t first_ns, last_ns;
	int kind; /* as the replay counted it (enum fg_replay_kind) */
};

/* Windows from..to of one object, both in, in which a thread faulted. */
struct win_run {
	uint32_t object, from, to;
};

/* A thread's open run of one object. */
struct fg_robs_cur {
	uint32_t from, to;
	bool open;
};

/* An object, folded. */
struct robj {
	uint64_t faults;
	unsigned int threads, processes;
	unsigned int threads_most, processes_most;
	double threads_median, processes_median;
	int64_t first_ns, last_ns;
};

struct fg_robs {
	const struct fg_profile *pr;
	/* Shared: per row, then per thread its count of runs and of
	 * windows merged, then the runs. */
	void *map;
	size_t map_len;
	struct row_made *made;
	uint64_t *nr_runs, *merged;
	struct win_run *runs;
	size_t *first; /* per thread + 1: where its runs begin */
	struct robj *obj; /* folded, NULL before */
	uint64_t merged_windows;
};

int fg_robs_new(struct fg_robs **out, const struct fg_profile *pr,
		const size_t *chunks_first)
{
	struct fg_robs *o = calloc(1, sizeof(*o));
	size_t rows, counts, cap = 0;
	char *p;

	*out = NULL;
	if (!o)
		return -ENOMEM;
	o->pr = pr;
	o->first = calloc(pr->nr_threads + 1, sizeof(*o->first));
	if (!o->first) {
		free(o);
		return -ENOMEM;
	}
	for (unsigned int t = 0; t < pr->nr_threads; t++) {
		o->first[t] = cap;
		cap += 4 * (chunks_first[t + 1] - chunks_first[t]) + 64;
	}
	o->first[pr->nr_threads] = cap;
	rows = pr->nr_rows * sizeof(struct row_made);
	counts = 2 * (size_t)pr->nr_threads * sizeof(uint64_t);
	o->map_len = rows + counts + cap * sizeof(struct win_run);
	/* NORESERVE: a row's page is touched when its first fault is. */
	o->map = mmap(NULL, o->map_len, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (o->map == MAP_FAILED) {
		free(o->first);
		free(o);
		return -ENOMEM;
	}
	p = o->map;
	o->made = (struct row_made *)p;
	o->nr_runs = (uint64_t *)(p + rows);
	o->merged = o->nr_runs + pr->nr_threads;
	o->runs = (struct win_run *)(p + rows + counts);
	*out = o;
	return 0;
}

void fg_robs_free(struct fg_robs *o)
{
	if (!o)
		return;
	munmap(o->map, o->map_len);
	free(o->first);
	free(o->obj);
	free(o);
}

/*
 * In thread t, before its faults: its cursors, one per object, and the
 * pages it will note into (its rows, its counts, its log) written now,
 * so that its loop takes no fault of the notes' own (each process maps
 * the shared pages for itself).  NULL without memory: its faults then
 * go unnoted, the run goes on.
 */
struct fg_robs_cur *fg_robs_thread(struct fg_robs *o, unsigned int t)
{
	size_t n, step = (size_t)fg_pagesize() / sizeof(struct win_run);
	struct fg_robs_cur *cur;

	if (!o)
		return NULL;
	n = o->pr->nr_objects ? o->pr->nr_objects : 1;
	cur = malloc(n * sizeof(*cur));
	if (!cur)
		return NULL;
	memset(cur, 0, n * sizeof(*cur));
	for (size_t r = 0; r < o->pr->nr_rows; r++)
		if (o->pr->rows[r].thread == t)
			o->made[r].faults = 0;
	o->nr_runs[t] = 0;
	o->merged[t] = 0;
	for (size_t i = o->first[t]; i < o->first[t + 1]; i += step)
		o->runs[i].object = 0;
	if (o->first[t + 1] > o->first[t])
		o->runs[o->first[t + 1] - 1].object = 0;
	return cur;
}

/* Thread t's run of object obj ended: stored, or kept open over the
 * gap where its log is full. */
static bool store_run(struct fg_robs *o, unsigned int t, unsigned int obj,
		      const struct fg_robs_cur *c)
{
	uint64_t n = o->nr_runs[t];

	if (o->first[t] + n >= o->first[t + 1])
		return false;
	o->runs[o->first[t] + n] = (struct win_run){ obj, c->from, c->to };
	o->nr_runs[t] = n + 1;
	return true;
}

/* Thread t made a fault of row (object obj, counted as kind), ending
 * ns after the replay's clock. */
void fg_robs_note(struct fg_robs *o, struct fg_robs_cur *cur, unsigned int t,
		  size_t row, unsigned int obj, int kind, int64_t ns)
{
	struct row_made *m = &o->made[row];
	struct fg_robs_cur *c;
	uint32_t w;

	if (!cur)
		return;
	if (ns < 0)
		ns = 0;
	if (!m->faults++) {
		m->first_ns = ns;
		m->kind = kind;
	}
	m->last_ns = ns;
	w = (uint32_t)(ns / WINDOW_NS);
	c = &cur[obj];
	if (c->open && w <= c->to + 1) {
		if (w > c->to)
			c->to = w;
		return;
	}
	if (c->open && !store_run(o, t, obj, c)) {
		o->merged[t] += w - c->to - 1;
		c->to = w;
		return;
	}
	*c = (struct fg_robs_cur){ w, w, true };
}

/* Thread t is through: its open runs stored, its cursors freed. */
void fg_robs_thread_end(struct fg_robs *o, struct fg_robs_cur *cur,
			unsigned int t)
{
	if (!cur)
		return;
	for (unsigned int obj = 0; obj < o->pr->nr_objects; obj++) {
		if (!cur[obj].open)
			continue;
		if (store_run(o, t, obj, &cur[obj]))
			continue;
		/* Full: the last run of the object stretched to this one. */
		for (uint64_t k = o->nr_runs[t]; k-- > 0;) {
			struct win_run *r = &o->runs[o->first[t] + k];

			if (r->object == obj) {
				o->merged[t] += cur[obj].from - r->to - 1;
				r->to = cur[obj].to;
				break;
			}
		}
	}
	free(cur);
}

/* ---- the fold ------------------------------------------------------- */

/* A run of one object, with who made it (a thread or a process). */
struct who_run {
	unsigned int who;
	uint32_t from, to;
};

static int by_who_from(const void *a, const void *b)
{
	const struct who_run *x = a, *y = b;

	if (x->who != y->who)
		return x->who < y->who ? -1 : 1;
	return (x->from > y->from) - (x->from < y->from);
}

/* An edge of a run: +1 at its first window, -1 past its last. */
struct edge {
	uint32_t at;
	int d;
};

static int by_at(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return x->d - y->d; /* ends first */
}

/*
 * The most and the median of how many made a fault in the same window,
 * over the windows where any did: runs[0..n) sorted by who and from,
 * each who's runs merged first (a process's threads' overlap), then
 * swept.  hist has n + 1 counters of scratch; edges 2n.
 */
static void sweep(struct who_run *runs, size_t n, struct edge *edges,
		  uint64_t *hist, unsigned int *most, double *median)
{
	size_t m = 0, e = 0;
	uint64_t windows = 0, lo, hi, seen = 0;
	unsigned int level = 0, a = 0, b = 0;

	*most = 0;
	*median = 0;
	for (size_t i = 0; i < n; i++) {
		if (m && runs[m - 1].who == runs[i].who &&
		    runs[i].from <= (uint64_t)runs[m - 1].to + 1) {
			if (runs[i].to > runs[m - 1].to)
				runs[m - 1].to = runs[i].to;
			continue;
		}
		runs[m++] = runs[i];
	}
	for (size_t i = 0; i < m; i++) {
		edges[e++] = (struct edge){ runs[i].from, 1 };
		edges[e++] = (struct edge){ runs[i].to + 1, -1 };
	}
	qsort(edges, e, sizeof(*edges), by_at);
	memset(hist, 0, (m + 1) * sizeof(*hist));
	for (size_t i = 0; i < e; i++) {
		level = (unsigned int)((int)level + edges[i].d);
		if (i + 1 < e && level) {
			hist[level] += edges[i + 1].at - edges[i].at;
			if (edges[i + 1].at > edges[i].at && level > *most)
				*most = level;
		}
	}
	for (size_t k = 1; k <= m; k++)
		windows += hist[k];
	if (!windows)
		return;
	/* The middle one, or the mean of the middle two (as Python's
	 * statistics.median, the survey's). */
	lo = (windows - 1) / 2;
	hi = windows / 2;
	for (size_t k = 1; k <= m; k++) {
		if (seen <= lo && lo < seen + hist[k])
			a = (unsigned int)k;
		if (seen <= hi && hi < seen + hist[k])
			b = (unsigned int)k;
		seen += hist[k];
	}
	*median = (a + b) / 2.0;
}

static int fold_object(struct fg_robs *o, unsigned int obj,
		       struct who_run *runs, struct edge *edges,
		       uint64_t *hist, unsigned char *seen_t,
		       unsigned char *seen_p)
{
	const struct fg_profile *pr = o->pr;
	struct robj *ob = &o->obj[obj];
	size_t n = 0;

	memset(seen_t, 0, pr->nr_threads);
	memset(seen_p, 0, pr->nr_processes);
	ob->first_ns = INT64_MAX;
	for (size_t r = 0; r < pr->nr_rows; r++) {
		const struct row_made *m = &o->made[r];
		unsigned int t = pr->rows[r].thread;

		if (pr->rows[r].object != obj || !m->faults)
			continue;
		ob->faults += m->faults;
		if (m->first_ns < ob->first_ns)
			ob->first_ns = m->first_ns;
		if (m->last_ns > ob->last_ns)
			ob->last_ns = m->last_ns;
		ob->threads += !seen_t[t];
		seen_t[t] = 1;
		ob->processes += !seen_p[pr->threads[t].process];
		seen_p[pr->threads[t].process] = 1;
	}
	if (!ob->faults)
		ob->first_ns = 0;
	for (unsigned int t = 0; t < pr->nr_threads; t++)
		for (uint64_t k = 0; k < o->nr_runs[t]; k++) {
			const struct win_run *w = &o->runs[o->first[t] + k];

			if (w->object == obj)
				runs[n++] = (struct who_run){ t, w->from,
							      w->to };
		}
	qsort(runs, n, sizeof(*runs), by_who_from);
	sweep(runs, n, edges, hist, &ob->threads_most, &ob->threads_median);
	/* Again by process: its threads' runs merged into one. */
	n = 0;
	for (unsigned int t = 0; t < pr->nr_threads; t++)
		for (uint64_t k = 0; k < o->nr_runs[t]; k++) {
			const struct win_run *w = &o->runs[o->first[t] + k];

			if (w->object == obj)
				runs[n++] = (struct who_run){
					pr->threads[t].process, w->from, w->to
				};
		}
	qsort(runs, n, sizeof(*runs), by_who_from);
	sweep(runs, n, edges, hist, &ob->processes_most,
	      &ob->processes_median);
	return 0;
}

/* Once every thread is through (the processes reaped): the objects
 * folded.  -ENOMEM. */
int fg_robs_fold(struct fg_robs *o)
{
	const struct fg_profile *pr = o->pr;
	size_t total = 0;
	struct who_run *runs;
	struct edge *edges;
	uint64_t *hist;
	unsigned char *seen_t, *seen_p;
	int ret = 0;

	for (unsigned int t = 0; t < pr->nr_threads; t++) {
		total += o->nr_runs[t];
		o->merged_windows += o->merged[t];
	}
	o->obj = calloc(pr->nr_objects ? pr->nr_objects : 1, sizeof(*o->obj));
	runs = calloc(total + 1, sizeof(*runs));
	edges = calloc(2 * total + 1, sizeof(*edges));
	hist = calloc(total + 2, sizeof(*hist));
	seen_t = calloc(pr->nr_threads + 1, 1);
	seen_p = calloc(pr->nr_processes + 1, 1);
	if (!o->obj || !runs || !edges || !hist || !seen_t || !seen_p)
		ret = -ENOMEM;
	for (unsigned int obj = 0; !ret && obj < pr->nr_objects; obj++)
		ret = fold_object(o, obj, runs, edges, hist, seen_t, seen_p);
	free(runs);
	free(edges);
	free(hist);
	free(seen_t);
	free(seen_p);
	if (ret) {
		free(o->obj);
		o->obj = NULL;
	}
	return ret;
}

/* ---- the figures ---------------------------------------------------- */

int fg_robs_object(const struct fg_robs *o, unsigned int obj,
		   struct fg_robs_object *out)
{
	const struct robj *ob;

	if (!o || !o->obj)
		return -ENODATA;
	if (obj >= o->pr->nr_objects)
		return -ERANGE;
	ob = &o->obj[obj];
	*out = (struct fg_robs_object){
		.faults = ob->faults,
		.threads = ob->threads,
		.processes = ob->processes,
		.threads_most = ob->threads_most,
		.processes_most = ob->processes_most,
		.threads_median = ob->threads_median,
		.processes_median = ob->processes_median,
		.first_ns = ob->first_ns,
		.last_ns = ob->last_ns,
		.merged_windows = o->merged_windows,
	};
	return 0;
}

/* The faults made of object obj by thread t (-1: all) of kind k (-1:
 * all). */
int fg_robs_faults(const struct fg_robs *o, unsigned int obj, int t, int k,
		   uint64_t *faults)
{
	const struct fg_profile *pr;

	if (!o || !o->obj)
		return -ENODATA;
	pr = o->pr;
	if (obj >= pr->nr_objects || t < -1 || t >= (int)pr->nr_threads)
		return -ERANGE;
	*faults = 0;
	for (size_t r = 0; r < pr->nr_rows; r++) {
		const struct row_made *m = &o->made[r];

		if (pr->rows[r].object == obj && m->faults &&
		    (t < 0 || pr->rows[r].thread == (unsigned int)t) &&
		    (k < 0 || m->kind == k))
			*faults += m->faults;
	}
	return 0;
}
