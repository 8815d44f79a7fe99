// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * print-replay.c - what a replay made of each object of its profile, as
 * the library measured it (faultgen_run_replay_object and _faults), in
 * the terms of pft-survey: the faults by kind, the threads and
 * processes that made them, how many made one within the same 1 ms
 * window, and the rate over the time the object was faulted.  Text: the
 * objects with the most faults, after the figures line; JSON: every
 * object it faulted, in "objects".  Other patterns print nothing here.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pft.h"

/* Objects in the text (the JSON has them all), and top threads. */
#define TEXT_OBJECTS 5
#define TOP_THREADS 3

struct obj {
	unsigned int index;
	struct faultgen_replay_object o;
};

static int by_faults(const void *a, const void *b)
{
	const struct obj *x = a, *y = b;

	if (x->o.faults != y->o.faults)
		return x->o.faults > y->o.faults ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

/* The replay's objects with a fault, the most faulted first; their
 * count into *n, or NULL (none, or not a replay). */
static struct obj *objects(struct faultgen_run *run, unsigned int *n,
			   unsigned int *all)
{
	struct obj *v = NULL;
	unsigned int cap = 0;

	*n = *all = 0;
	for (unsigned int i = 0;; i++) {
		struct faultgen_replay_object o = { .size = sizeof(o) };
		struct obj *nv;

		if (faultgen_run_replay_object(run, i, &o))
			break;
		(*all)++;
		if (!o.faults)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		v[(*n)++] = (struct obj){ i, o };
	}
	if (v)
		qsort(v, *n, sizeof(*v), by_faults);
	return v;
}

static uint64_t faults_of(struct faultgen_run *run, unsigned int object,
			  int worker, const char *kind)
{
	uint64_t n = 0;

	if (faultgen_run_replay_faults(run, object, worker, kind, &n))
		return 0;
	return n;
}

static int workers_of(struct faultgen_run *run)
{
	struct faultgen_result r = { .size = sizeof(r) };

	return faultgen_run_result(run, &r) ? 0 : (int)r.workers;
}

/* Worker w's faults, for the top threads: the most first. */
struct thread_faults {
	int worker;
	uint64_t faults;
};

static int by_thread_faults(const void *a, const void *b)
{
	const struct thread_faults *x = a, *y = b;

	if (x->faults != y->faults)
		return x->faults > y->faults ? -1 : 1;
	return x->worker - y->worker;
}

static struct thread_faults *threads_of(struct faultgen_run *run,
					unsigned int object, int *n)
{
	int workers = workers_of(run);
	struct thread_faults *t = calloc(workers ? (size_t)workers : 1,
					 sizeof(*t));

	*n = 0;
	if (!t)
		return NULL;
	for (int w = 0; w < workers; w++) {
		uint64_t f = faults_of(run, object, w, NULL);

		if (f)
			t[(*n)++] = (struct thread_faults){ w, f };
	}
	qsort(t, (size_t)*n, sizeof(*t), by_thread_faults);
	return t;
}

static void print_size(FILE *out, uint64_t bytes)
{
	if (bytes >= (1ULL << 30))
		fprintf(out, "%.1f GiB", (double)bytes / (1ULL << 30));
	else if (bytes >= (1ULL << 20))
		fprintf(out, "%.1f MiB", (double)bytes / (1ULL << 20));
	else
		fprintf(out, "%" PRIu64 " KiB", bytes >> 10);
}

static void print_object(FILE *out, struct faultgen_run *run,
			 const struct obj *ob)
{
	const struct faultgen_replay_object *o = &ob->o;
	double span = o->last_s - o->first_s;
	struct thread_faults *t;
	const char *kind;
	int n;

	fprintf(out, "  objects[%u]  %s  ", ob->index, o->backing);
	print_size(out, o->bytes);
	fprintf(out, "\n    faults: %" PRIu64, o->faults);
	for (unsigned int k = 0, m = 0; (kind = faultgen_replay_kind_name(k));
	     k++) {
		uint64_t f = faults_of(run, ob->index, -1, kind);

		if (f)
			fprintf(out, "%s %s %" PRIu64, m++ ? "," : ":", kind,
				f);
	}
	fprintf(out, "\n    threads that faulted it: %u", o->threads);
	t = threads_of(run, ob->index, &n);
	for (int i = 0; t && i < n && i < TOP_THREADS; i++)
		fprintf(out, "%s worker %d: %" PRIu64, i ? "," : "; top:",
			t[i].worker, t[i].faults);
	free(t);
	fprintf(out, "\n    threads faulting it in the same 1 ms window: "
		     "most %u, median %g\n",
		o->threads_most, o->threads_median);
	if (o->processes > 1)
		fprintf(out, "    processes that faulted it: %u; in the same "
			     "1 ms window: most %u, median %g\n",
			o->processes, o->processes_most, o->processes_median);
	if (span > 0)
		fprintf(out, "    fault rate: %.0f faults/s over the %.3f s "
			     "it was faulted\n",
			(double)o->faults / span, span);
	else
		fprintf(out, "    fault rate: none (its one fault)\n");
}

/*
 * objects replayed (faults made by the replay; a fault's time is its
 * end, a populating call's faults in each window of the call, windows
 * of 1 ms):
 *   objects[0]  anonymous  128.0 MiB
 *     faults: 32768: first-touch 32768
 *     ...
 */
void pft_print_replay_objects(FILE *out, struct faultgen_run *run)
{
	unsigned int n, all;
	struct obj *v = objects(run, &n, &all);

	if (!v)
		return;
	fprintf(out, "objects replayed, by faults made (a fault's time: its "
		     "end, a populating call's: its span; windows of 1 ms "
		     "from the replay's start):\n");
	for (unsigned int i = 0; i < n && i < TEXT_OBJECTS; i++)
		print_object(out, run, &v[i]);
	if (n > TEXT_OBJECTS)
		fprintf(out, "  ... %u more objects faulted (--json lists "
			     "them all)\n",
			n - TEXT_OBJECTS);
	if (v[0].o.merged_windows)
		fprintf(out, "  windows counted for a thread that made no "
			     "fault in them (its log full): %" PRIu64 "\n",
			v[0].o.merged_windows);
	free(v);
}

/* "kinds": {"first-touch": N, ...} of an object, by a worker or all
 * (-1). */
static void json_kinds(struct pft_json *j, struct faultgen_run *run,
		       unsigned int object, int worker)
{
	const char *kind;

	pj_obj(j, "kinds");
	for (unsigned int k = 0; (kind = faultgen_replay_kind_name(k)); k++) {
		uint64_t f = faults_of(run, object, worker, kind);

		if (f)
			pj_u64(j, kind, f);
	}
	pj_obj_end(j);
}

/* "objects": [{"object": 0, "backing": ..., "kinds": {...}, ...}] */
void pft_json_replay_objects(struct pft_json *j, struct faultgen_run *run)
{
	unsigned int n, all;
	struct obj *v = objects(run, &n, &all);

	if (!v && !all)
		return;
	pj_arr(j, "objects");
	for (unsigned int i = 0; v && i < n; i++) {
		const struct faultgen_replay_object *o = &v[i].o;
		double span = o->last_s - o->first_s;
		struct thread_faults *t;
		int nt;

		pj_obj(j, NULL);
		pj_u64(j, "object", v[i].index);
		pj_str(j, "backing", o->backing);
		pj_u64(j, "bytes", o->bytes);
		pj_u64(j, "faults", o->faults);
		json_kinds(j, run, v[i].index, -1);
		pj_u64(j, "threads", o->threads);
		pj_arr(j, "top_threads");
		t = threads_of(run, v[i].index, &nt);
		for (int k = 0; t && k < nt; k++) {
			pj_obj(j, NULL);
			pj_i64(j, "worker", t[k].worker);
			pj_u64(j, "faults", t[k].faults);
			json_kinds(j, run, v[i].index, t[k].worker);
			pj_obj_end(j);
		}
		free(t);
		pj_arr_end(j);
		pj_u64(j, "processes", o->processes);
		pj_u64(j, "concurrency_threads_max", o->threads_most);
		pj_dbl(j, "concurrency_threads_median", o->threads_median);
		pj_u64(j, "concurrency_processes_max", o->processes_most);
		pj_dbl(j, "concurrency_processes_median",
		       o->processes_median);
		pj_dbl(j, "first_s", o->first_s);
		pj_dbl(j, "last_s", o->last_s);
		pj_dbl(j, "span_s", span);
		if (span > 0)
			pj_dbl(j, "rate_per_s", (double)o->faults / span);
		else
			pj_null(j, "rate_per_s");
		pj_obj_end(j);
	}
	pj_arr_end(j);
	pj_u64(j, "objects_windows_merged", v && n ? v[0].o.merged_windows : 0);
	free(v);
}
