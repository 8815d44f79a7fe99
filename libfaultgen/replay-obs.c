// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * replay-obs.c - what a replay (replay.c) measured of each object of its
 * profile, in the terms of pft-survey: the faults made by thread and
 * kind, the threads and processes that made them, how many of them
 * made one within the same 1 ms window (the most, and the median over
 * the windows with any), and the first and last fault's times.
 *
 * Each fault made is noted by its thread with the time it ended
 * (CLOCK_MONOTONIC, ns after the replay's start): its row's count and
 * times, and the thread's run of windows in which it faulted the
 * object (a cursor per object), stored in the thread's part of a log
 * when the run ends.  The rows, the cursors and the log are in shared
 * memory, each part written by one thread only, and written before the
 * thread's loop (fg_robs_thread, fg_robs_touch_row): the forked
 * processes' threads note theirs there too, a fork write-protects none
 * of it (a private page written in the loop would take a copy after
 * each fork), and the caller folds them once all are done.  A thread's
 * log holds four runs per chunk of its own, 64 more, and one per
 * object it faults, kept for the runs still open at its end; past the
 * others, its runs of an object are merged over the gap (a window
 * counted where it made no fault), counted in merged_windows.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define WINDOW_NS 1000000

/* The classes of the kinds a thread may make of another's rows: first
 * touches and reads (help_late), and the populated kinds (a recorded
 * call populating a row's pages). */
#define HELP_CLASSES 4
static const int help_kinds[HELP_CLASSES] = {
	FG_KIND_FIRST_TOUCH, FG_KIND_READ, FG_KIND_GUP, FG_KIND_KERNEL_SIDE
};

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

struct fg_robs {
	const struct fg_profile *pr;
	/* Shared: per row, then per thread its count of runs and of
	 * windows merged, then its cursors (one per object), then the
	 * runs. */
	void *map;
	size_t map_len;
	struct row_made *made;
	uint64_t *nr_runs, *merged;
	/* Per thread, object and class of kind (HELP_CLASSES): the faults
	 * it made of another thread's rows (took: a thread helping, the
	 * replay's help_late), and those of its rows another made (gave).
	 * A row's note counts every fault of it, its thread's or not. */
	uint64_t *took, *gave;
	struct fg_robs_cur *curs;
	struct win_run *runs;
	size_t *first;   /* per thread + 1: where its runs begin */
	size_t *reserve; /* per thread: slots kept for its last runs */
	struct fg_robs_object *obj; /* folded, NULL before */
	/* Folded: object o's rows are by_object[row_first[o] ..
	 * row_first[o + 1]). */
	size_t *row_first, *by_object;
	uint64_t merged_windows;
};

static size_t help_at(const struct fg_robs *o, unsigned int t,
		      unsigned int obj, int kind)
{
	size_t c = 0;

	while (c < HELP_CLASSES - 1 && help_kinds[c] != kind)
		c++;
	return ((size_t)t * o->pr->nr_objects + obj) * HELP_CLASSES +
	       (help_kinds[c] == kind ? c : 0);
}

/* thread_objects[t]: the objects thread t faults (their count). */
int fg_robs_new(struct fg_robs **out, const struct fg_profile *pr,
		const size_t *chunks_first, const size_t *thread_objects)
{
	struct fg_robs *o = calloc(1, sizeof(*o));
	size_t rows, counts, curs, cap = 0, nt = pr->nr_threads;
	char *p;

	*out = NULL;
	if (!o)
		return -ENOMEM;
	o->pr = pr;
	o->first = calloc(nt + 1, sizeof(*o->first));
	o->reserve = calloc(nt + 1, sizeof(*o->reserve));
	if (!o->first || !o->reserve) {
		fg_robs_free(o);
		return -ENOMEM;
	}
	for (unsigned int t = 0; t < nt; t++) {
		o->first[t] = cap;
		o->reserve[t] = thread_objects[t];
		cap += 4 * (chunks_first[t + 1] - chunks_first[t]) + 64 +
		       thread_objects[t];
	}
	o->first[nt] = cap;
	rows = pr->nr_rows * sizeof(struct row_made);
	counts = (2 * nt + 2 * HELP_CLASSES * nt * pr->nr_objects) *
		 sizeof(uint64_t);
	curs = nt * pr->nr_objects * sizeof(struct fg_robs_cur);
	o->map_len = rows + counts + curs + cap * sizeof(struct win_run) + 1;
	/* NORESERVE: only the pages a thread writes before its loop. */
	o->map = mmap(NULL, o->map_len, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (o->map == MAP_FAILED) {
		o->map = NULL;
		fg_robs_free(o);
		return -ENOMEM;
	}
	p = o->map;
	o->made = (struct row_made *)p;
	o->nr_runs = (uint64_t *)(p + rows);
	o->merged = o->nr_runs + nt;
	o->took = o->merged + nt;
	o->gave = o->took + HELP_CLASSES * nt * pr->nr_objects;
	o->curs = (struct fg_robs_cur *)(p + rows + counts);
	o->runs = (struct win_run *)(p + rows + counts + curs);
	*out = o;
	return 0;
}

void fg_robs_free(struct fg_robs *o)
{
	if (!o)
		return;
	if (o->map)
		munmap(o->map, o->map_len);
	free(o->first);
	free(o->reserve);
	free(o->obj);
	free(o->row_first);
	free(o->by_object);
	free(o);
}

/*
 * In thread t's process, before its loop: its cursors, its counts and
 * its log written, so that the loop takes no fault of the notes' own
 * (each process maps the shared pages for itself); its rows' with
 * fg_robs_touch_row.  Its cursors, or NULL without notes.
 */
struct fg_robs_cur *fg_robs_thread(struct fg_robs *o, unsigned int t)
{
	size_t step = (size_t)fg_pagesize() / sizeof(struct win_run);
	struct fg_robs_cur *cur;

	if (!o)
		return NULL;
	cur = o->curs + (size_t)t * o->pr->nr_objects;
	memset(cur, 0, o->pr->nr_objects * sizeof(*cur));
	o->nr_runs[t] = 0;
	o->merged[t] = 0;
	memset(o->took + help_at(o, t, 0, 0), 0,
	       HELP_CLASSES * o->pr->nr_objects * sizeof(*o->took));
	memset(o->gave + help_at(o, t, 0, 0), 0,
	       HELP_CLASSES * o->pr->nr_objects * sizeof(*o->gave));
	for (size_t i = o->first[t]; i < o->first[t + 1]; i += step)
		o->runs[i] = (struct win_run){ 0 };
	if (o->first[t + 1] > o->first[t])
		o->runs[o->first[t + 1] - 1] = (struct win_run){ 0 };
	return cur;
}

/* Row r's note written (0) in this process, before its thread's loop. */
void fg_robs_touch_row(struct fg_robs *o, size_t r)
{
	if (o)
		o->made[r] = (struct row_made){ 0 };
}

/* Thread t's run of object obj ended: stored, where slots are left
 * beyond those kept for its last runs (or, keep, into those). */
static bool store_run(struct fg_robs *o, unsigned int t, unsigned int obj,
		      const struct fg_robs_cur *c, bool keep)
{
	uint64_t n = o->nr_runs[t];
	size_t end = o->first[t + 1] - (keep ? 0 : o->reserve[t]);

	if (o->first[t] + n >= end)
		return false;
	o->runs[o->first[t] + n] = (struct win_run){ obj, c->from, c->to };
	o->nr_runs[t] = n + 1;
	return true;
}

/* Thread t made n faults of row (object obj, counted as kind), from
 * from_ns to ns after the replay's start (one fault: both its end). */
static void note(struct fg_robs *o, struct fg_robs_cur *cur, unsigned int t,
		 size_t row, unsigned int obj, int kind, int64_t from_ns,
		 int64_t ns, uint64_t n)
{
	struct row_made *m;
	struct fg_robs_cur *c;
	uint32_t w, from;

	if (!cur || !n)
		return;
	m = &o->made[row];
	if (ns < 0)
		ns = 0;
	if (from_ns < 0 || from_ns > ns)
		from_ns = ns;
	/* Another thread may make faults of the row (help_late, a call
	 * populating its pages): its count atomic, its times near
	 * enough. */
	if (!__atomic_fetch_add(&m->faults, n, __ATOMIC_RELAXED)) {
		m->first_ns = from_ns;
		m->kind = kind;
	}
	if (ns > m->last_ns)
		m->last_ns = ns;
	if (o->pr->rows[row].thread != t) {
		__atomic_fetch_add(&o->took[help_at(o, t, obj, kind)], n,
				   __ATOMIC_RELAXED);
		__atomic_fetch_add(
			&o->gave[help_at(o, o->pr->rows[row].thread, obj, kind)],
			n, __ATOMIC_RELAXED);
	}
	from = (uint32_t)(from_ns / WINDOW_NS);
	w = (uint32_t)(ns / WINDOW_NS);
	c = &cur[obj];
	if (c->open && from <= c->to + 1) {
		if (w > c->to)
			c->to = w;
		return;
	}
	if (c->open && !store_run(o, t, obj, c, false)) {
		o->merged[t] += from - c->to - 1;
		c->to = w;
		return;
	}
	*c = (struct fg_robs_cur){ from, w, true };
}

/* Thread t made a fault of row (object obj, counted as kind), ending
 * ns after the replay's start. */
void fg_robs_note(struct fg_robs *o, struct fg_robs_cur *cur, unsigned int t,
		  size_t row, unsigned int obj, int kind, int64_t ns)
{
	note(o, cur, t, row, obj, kind, ns, ns, 1);
}

/* Thread t made n faults of row in one call, from from_ns to ns after
 * the replay's start: in each window between. */
void fg_robs_note_n(struct fg_robs *o, struct fg_robs_cur *cur,
		    unsigned int t, size_t row, unsigned int obj, int kind,
		    int64_t from_ns, int64_t ns, uint64_t n)
{
	note(o, cur, t, row, obj, kind, from_ns, ns, n);
}

/* Thread t is through: its open runs stored, into the slots kept for
 * them (one per object it faults). */
void fg_robs_thread_end(struct fg_robs *o, struct fg_robs_cur *cur,
			unsigned int t)
{
	if (!cur)
		return;
	for (unsigned int obj = 0; obj < o->pr->nr_objects; obj++)
		if (cur[obj].open) {
			(void)store_run(o, t, obj, &cur[obj], true);
			cur[obj].open = false;
		}
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

/* A thread's run of an object, for the fold. */
struct obj_run {
	unsigned int object, thread;
	uint32_t from, to;
};

static int by_object_thread_from(const void *a, const void *b)
{
	const struct obj_run *x = a, *y = b;

	if (x->object != y->object)
		return x->object < y->object ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return (x->from > y->from) - (x->from < y->from);
}

/* Object obj's rows folded: its faults, threads, processes, times.  A
 * thread counts where it made some of them: its rows' faults less
 * those others made of them, and those it made of others' rows
 * (made_t, one a thread, for the sums). */
static void fold_rows(struct fg_robs *o, unsigned int obj,
		      unsigned char *seen_p, int64_t *made_t)
{
	const struct fg_profile *pr = o->pr;
	struct fg_robs_object *ob = &o->obj[obj];

	memset(seen_p, 0, pr->nr_processes);
	memset(made_t, 0, pr->nr_threads * sizeof(*made_t));
	ob->first_ns = INT64_MAX;
	for (size_t i = o->row_first[obj]; i < o->row_first[obj + 1]; i++) {
		size_t r = o->by_object[i];
		const struct row_made *m = &o->made[r];

		if (!m->faults)
			continue;
		ob->faults += m->faults;
		if (m->first_ns < ob->first_ns)
			ob->first_ns = m->first_ns;
		if (m->last_ns > ob->last_ns)
			ob->last_ns = m->last_ns;
		made_t[pr->rows[r].thread] += (int64_t)m->faults;
	}
	for (unsigned int t = 0; t < pr->nr_threads; t++) {
		size_t h = help_at(o, t, obj, help_kinds[0]);

		for (unsigned int c = 0; c < HELP_CLASSES; c++)
			made_t[t] += (int64_t)o->took[h + c] -
				     (int64_t)o->gave[h + c];
		if (made_t[t] <= 0)
			continue;
		ob->threads++;
		ob->processes += !seen_p[pr->threads[t].process];
		seen_p[pr->threads[t].process] = 1;
	}
	if (!ob->faults)
		ob->first_ns = 0;
}

/* Object obj's runs all[0..n) (sorted by thread and start) swept, by
 * thread, then by process. */
static void fold_runs(struct fg_robs *o, unsigned int obj,
		      const struct obj_run *all, size_t n,
		      struct who_run *runs, struct edge *edges,
		      uint64_t *hist)
{
	struct fg_robs_object *ob = &o->obj[obj];

	for (size_t i = 0; i < n; i++)
		runs[i] = (struct who_run){ all[i].thread, all[i].from,
					    all[i].to };
	sweep(runs, n, edges, hist, &ob->threads_most, &ob->threads_median);
	for (size_t i = 0; i < n; i++)
		runs[i] = (struct who_run){
			o->pr->threads[all[i].thread].process, all[i].from,
			all[i].to
		};
	qsort(runs, n, sizeof(*runs), by_who_from);
	sweep(runs, n, edges, hist, &ob->processes_most,
	      &ob->processes_median);
}

/* Object o's rows, by_object[row_first[o] .. row_first[o + 1]). */
static int index_rows(struct fg_robs *o)
{
	const struct fg_profile *pr = o->pr;
	size_t *at;

	o->row_first = calloc(pr->nr_objects + 2, sizeof(*o->row_first));
	o->by_object = calloc(pr->nr_rows + 1, sizeof(*o->by_object));
	at = calloc(pr->nr_objects + 1, sizeof(*at));
	if (!o->row_first || !o->by_object || !at) {
		free(at);
		return -ENOMEM;
	}
	for (size_t r = 0; r < pr->nr_rows; r++)
		o->row_first[pr->rows[r].object + 1]++;
	for (unsigned int k = 0; k < pr->nr_objects; k++)
		o->row_first[k + 1] += o->row_first[k];
	for (size_t r = 0; r < pr->nr_rows; r++) {
		unsigned int k = pr->rows[r].object;

		o->by_object[o->row_first[k] + at[k]++] = r;
	}
	free(at);
	return 0;
}

/* Once every thread is through (the processes reaped): the objects
 * folded.  -ENOMEM. */
int fg_robs_fold(struct fg_robs *o)
{
	const struct fg_profile *pr = o->pr;
	size_t total = 0, n = 0, i = 0;
	struct obj_run *all;
	struct who_run *runs;
	struct edge *edges;
	uint64_t *hist;
	unsigned char *seen_p;
	int64_t *made_t;
	int ret;

	for (unsigned int t = 0; t < pr->nr_threads; t++) {
		total += o->nr_runs[t];
		o->merged_windows += o->merged[t];
	}
	ret = index_rows(o);
	o->obj = calloc(pr->nr_objects ? pr->nr_objects : 1, sizeof(*o->obj));
	all = calloc(total + 1, sizeof(*all));
	runs = calloc(total + 1, sizeof(*runs));
	edges = calloc(2 * total + 1, sizeof(*edges));
	hist = calloc(total + 2, sizeof(*hist));
	made_t = calloc(pr->nr_threads + 1, sizeof(*made_t));
	seen_p = calloc(pr->nr_processes + 1, 1);
	if (!o->obj || !all || !runs || !edges || !hist || !made_t || !seen_p)
		ret = -ENOMEM;
	for (unsigned int t = 0; !ret && t < pr->nr_threads; t++)
		for (uint64_t k = 0; k < o->nr_runs[t]; k++) {
			const struct win_run *w = &o->runs[o->first[t] + k];

			all[n++] = (struct obj_run){ w->object, t, w->from,
						     w->to };
		}
	if (!ret)
		qsort(all, n, sizeof(*all), by_object_thread_from);
	for (unsigned int obj = 0; !ret && obj < pr->nr_objects; obj++) {
		size_t from = i;

		fold_rows(o, obj, seen_p, made_t);
		while (i < n && all[i].object == obj)
			i++;
		fold_runs(o, obj, all + from, i - from, runs, edges, hist);
	}
	free(all);
	free(runs);
	free(edges);
	free(hist);
	free(made_t);
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
	if (!o || !o->obj)
		return -ENODATA;
	if (obj >= o->pr->nr_objects)
		return -ERANGE;
	*out = o->obj[obj];
	out->merged_windows = o->merged_windows;
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
	for (size_t i = o->row_first[obj]; i < o->row_first[obj + 1]; i++) {
		size_t r = o->by_object[i];
		const struct row_made *m = &o->made[r];

		if (m->faults &&
		    (t < 0 || pr->rows[r].thread == (unsigned int)t) &&
		    (k < 0 || m->kind == k))
			*faults += m->faults;
	}
	/* Those of its rows others made are theirs, and those of others'
	 * it made its own. */
	for (unsigned int c = 0; t >= 0 && c < HELP_CLASSES; c++) {
		size_t h = help_at(o, (unsigned int)t, obj, help_kinds[0]) + c;

		if (k >= 0 && k != help_kinds[c])
			continue;
		*faults += o->took[h] - o->gave[h];
	}
	return 0;
}
