// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * print-latency.c - the latency of the timed touches (--latency), as the
 * library measured it (faultgen_run_latency): two lines after the result
 * (the percentiles, then what the scheduler did), a few fields at the end
 * of each --per-worker line, a "latency" object in --json.  A run that
 * timed nothing prints nothing, so 0.12x's output stays as it was.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pft.h"

/* Worker `worker`'s latency (-1: all): false when the run has none. */
static bool latency(struct faultgen_run *run, int worker,
		    struct faultgen_latency *l)
{
	memset(l, 0, sizeof(*l));
	l->size = sizeof(*l);
	return faultgen_run_latency(run, worker, l) == 0;
}

/* Values above p99, as the library's tail rule counts them. */
static uint64_t tail_values(const struct faultgen_latency *l)
{
	return l->count - (uint64_t)(0.99 * (double)l->count);
}

static const char *what_is_timed(const struct faultgen_latency *l)
{
	return l->per_call ? "calls" : "touches";
}

/* "; each value one mlock call over up to 2 MiB, not one fault" */
static void per_call_words(const struct faultgen_latency *l, char *buf,
			   size_t len)
{
	char size[32];

	buf[0] = '\0';
	if (!l->per_call)
		return;
	if (l->call_bytes >= (1ULL << 20) && !(l->call_bytes % (1ULL << 20)))
		snprintf(size, sizeof(size), "%" PRIu64 " MiB",
			 l->call_bytes >> 20);
	else
		snprintf(size, sizeof(size), "%" PRIu64 " KiB",
			 l->call_bytes >> 10);
	snprintf(buf, len, "; each value one %s call over up to %s, not one "
		 "fault", l->call ? l->call : "", size);
}

/*
 * latency: p50 14.463 us, p90 18.943 us, p99 95.231 us, p99.9 4259.839 us,
 *   max 12592.281 us, count 16384 touches timed (1 in 1, monotonic clock)
 * sched: 90 preemptions, 0 voluntary switches, run-queue wait 0.319427 s;
 *   164 values above p99: not within the scheduler's delays
 */
void pft_print_latency(FILE *out, struct faultgen_run *run)
{
	struct faultgen_latency l;
	char calls[128];

	if (!latency(run, -1, &l))
		return;
	per_call_words(&l, calls, sizeof(calls));
	fprintf(out,
		"latency: p50 %.3f us, p90 %.3f us, p99 %.3f us, "
		"p99.9 %.3f us, max %.3f us, count %" PRIu64
		" %s timed (1 in %u%s, %s clock)\n",
		l.p50_ns / 1e3, l.p90_ns / 1e3, l.p99_ns / 1e3,
		l.p999_ns / 1e3, l.max_ns / 1e3, l.count, what_is_timed(&l),
		l.sample_every, calls, l.clock);
	fprintf(out, "sched: %" PRIu64 " preemptions, %" PRIu64
		     " voluntary switches, run-queue wait ",
		l.nivcsw, l.nvcsw);
	if (l.run_delay_s < 0)
		fputs("unknown (no schedstat)", out);
	else
		fprintf(out, "%.6f s", l.run_delay_s);
	fprintf(out, "; %" PRIu64 " values above p99: %s\n", tail_values(&l),
		l.tail_sched ? "within the scheduler's delays" :
			       "not within the scheduler's delays");
}

/*
 * writers: p50 3.210 us, p99 40.123 us, p99.9 120.456 us, max 800.123 us,
 *   count 5000 mprotect calls timed (every call, each over up to 64 KiB,
 *   monotonic clock); 12 preemptions
 * A run without writers prints nothing.
 */
void pft_print_writer_latency(FILE *out, struct faultgen_run *run)
{
	struct faultgen_latency l;
	char size[32];

	if (!latency(run, FAULTGEN_LATENCY_WRITERS, &l))
		return;
	snprintf(size, sizeof(size), "%" PRIu64 " KiB", l.call_bytes >> 10);
	fprintf(out,
		"writers: p50 %.3f us, p99 %.3f us, p99.9 %.3f us, "
		"max %.3f us, count %" PRIu64 " %s calls timed (every call, "
		"each over up to %s, %s clock); %" PRIu64 " preemptions\n",
		l.p50_ns / 1e3, l.p99_ns / 1e3, l.p999_ns / 1e3,
		l.max_ns / 1e3, l.count, l.call ? l.call : "", size, l.clock,
		l.nivcsw);
}

/* " lat_p50 1.234us ... lat_count N lat_timed touches|CALL preempt N
 * runq 0.001s tail_sched no" (CALL: mlock, MADV_COLLAPSE, ...) */
void pft_print_worker_latency(FILE *out, struct faultgen_run *run,
			      unsigned int worker)
{
	struct faultgen_latency l;

	if (!latency(run, (int)worker, &l))
		return;
	fprintf(out,
		" lat_p50 %.3fus lat_p90 %.3fus lat_p99 %.3fus "
		"lat_p99.9 %.3fus lat_max %.3fus lat_count %" PRIu64
		" lat_timed %s preempt %" PRIu64 " vol_switches %" PRIu64,
		l.p50_ns / 1e3, l.p90_ns / 1e3, l.p99_ns / 1e3,
		l.p999_ns / 1e3, l.max_ns / 1e3, l.count,
		l.per_call ? l.call : "touches", l.nivcsw, l.nvcsw);
	if (l.run_delay_s >= 0)
		fprintf(out, " runq %.6fs", l.run_delay_s);
	fprintf(out, " tail_sched %s", l.tail_sched ? "yes" : "no");
}

/* "buckets": [[lo_ns, hi_ns, count], ...], the non-empty ones, lowest
 * first: enough to merge runs' histograms or plot them later. */
static void json_buckets(struct pft_json *j, struct faultgen_run *run,
			 int worker)
{
	int n = faultgen_run_latency_buckets(run, worker, NULL, 0);
	struct faultgen_latency_bucket *b = n > 0 ? calloc((size_t)n,
							    sizeof(*b)) :
						  NULL;

	if (b)
		n = faultgen_run_latency_buckets(run, worker, b, (size_t)n);
	pj_arr(j, "buckets");
	for (int i = 0; b && i < n; i++) {
		pj_arr(j, NULL);
		pj_dbl(j, NULL, b[i].lo_ns);
		pj_dbl(j, NULL, b[i].hi_ns);
		pj_u64(j, NULL, b[i].count);
		pj_arr_end(j);
	}
	pj_arr_end(j);
	free(b);
}

/*
 * "latency": {"count": ..., "p50_ns": ..., ..., "sched": {...},
 * "buckets": [[lo_ns, hi_ns, count], ...]}: of one worker, or of all (-1).
 */
static void json_latency(struct pft_json *j, struct faultgen_run *run,
			 int worker, const char *key)
{
	struct faultgen_latency l;

	if (!latency(run, worker, &l))
		return;
	pj_obj(j, key);
	pj_u64(j, "sample_every", l.sample_every);
	pj_str(j, "timed", what_is_timed(&l));
	pj_bool(j, "per_call", l.per_call != 0);
	if (l.per_call) {
		pj_str(j, "call", l.call);
		pj_u64(j, "call_bytes", l.call_bytes);
	} else {
		pj_null(j, "call");
		pj_null(j, "call_bytes");
	}
	pj_str(j, "clock", l.clock);
	pj_u64(j, "count", l.count);
	pj_u64(j, "overflow", l.overflow);
	pj_dbl(j, "min_ns", l.min_ns);
	pj_dbl(j, "p50_ns", l.p50_ns);
	pj_dbl(j, "p90_ns", l.p90_ns);
	pj_dbl(j, "p99_ns", l.p99_ns);
	pj_dbl(j, "p999_ns", l.p999_ns);
	pj_dbl(j, "max_ns", l.max_ns);
	pj_dbl(j, "mean_ns", l.mean_ns);
	pj_obj(j, "sched");
	pj_u64(j, "involuntary_switches", l.nivcsw);
	pj_u64(j, "voluntary_switches", l.nvcsw);
	if (l.run_delay_s < 0)
		pj_null(j, "run_delay_s");
	else
		pj_dbl(j, "run_delay_s", l.run_delay_s);
	pj_u64(j, "tail_values", tail_values(&l));
	pj_bool(j, "tail_within_sched", l.tail_sched != 0);
	pj_obj_end(j);
	json_buckets(j, run, worker);
	pj_obj_end(j);
}

void pft_json_latency(struct pft_json *j, struct faultgen_run *run,
		      int worker)
{
	json_latency(j, run, worker, "latency");
}

/* "writers": the same of the writers' calls, each timed; none without
 * writers. */
void pft_json_writer_latency(struct pft_json *j, struct faultgen_run *run)
{
	json_latency(j, run, FAULTGEN_LATENCY_WRITERS, "writers");
}
