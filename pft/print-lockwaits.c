// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * print-lockwaits.c - how long the threads waited for the mmap_lock
 * (--lock-waits), as the library timed them (faultgen_run_lock_waits):
 * lines after the result (readers and writers, and the user faults with
 * their acquisitions one by one, of the workers, then of the helper
 * threads when the run had any), columns at the end of each
 * --per-worker line, a "lock_waits" object in --json.  Where they could
 * not be timed, one note on stderr, and the output is as without the
 * option.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pft.h"

/* The buckets' names, FAULTGEN_LOCK_WAIT_BUCKETS of them. */
static const char *const bucket_names[FAULTGEN_LOCK_WAIT_BUCKETS] = {
	"<1us",	      "1-10us",	 "10-100us", "100us-1ms",
	"1-10ms",     "10-100ms", "100ms-1s", ">=1s",
};

/* What would allow the counting (--lock-paths and --lock-waits), for
 * the reason the library gave (tracepoint: the one named where there is
 * none). */
void pft_lock_why_not(int err, const char *tracepoint, char *buf, size_t len)
{
	char paranoid[16] = "?";
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");

	if (f) {
		if (!fgets(paranoid, sizeof(paranoid), f))
			strcpy(paranoid, "?");
		paranoid[strcspn(paranoid, "\n")] = '\0';
		fclose(f);
	}
	switch (err) {
	case -EACCES:
		snprintf(buf, len,
			 "tracefs (/sys/kernel/tracing) or the tracepoints "
			 "may not be read (needs root, or a tracefs readable "
			 "by this user and CAP_PERFMON or "
			 "perf_event_paranoid <= 1; it is %s)",
			 paranoid);
		break;
	case -ENOENT:
		snprintf(buf, len,
			 "no tracefs or no %s and mmap_lock tracepoints in "
			 "this kernel (mount tracefs on /sys/kernel/tracing; "
			 "x86 kernels have them)",
			 tracepoint);
		break;
	case -EPERM:
		snprintf(buf, len,
			 "the ring buffers exceed what this user may lock "
			 "(kernel.perf_event_mlock_kb, ulimit -l; root may)");
		break;
	case -EMFILE:
	case -ENFILE:
		snprintf(buf, len,
			 "each worker's counters take 5 file descriptors (8 "
			 "for --lock-waits), and there were too few (raise "
			 "ulimit -n)");
		break;
	default:
		snprintf(buf, len, "%s", faultgen_strerror(err));
		break;
	}
}

static int lock_waits(struct faultgen_run *run, int worker,
		      struct faultgen_lock_waits *lw)
{
	memset(lw, 0, sizeof(*lw));
	lw->size = sizeof(*lw);
	return faultgen_run_lock_waits(run, worker, lw);
}

/* " mmap_lock read: 64 acquisitions, 3 waited: p50 1.234 us, ...;
 * buckets <1us 0 1-10us 2 ..." */
static void print_side(FILE *out, const char *who, const char *side,
		       const struct faultgen_lock_wait *w)
{
	fprintf(out,
		"lock waits of %s, mmap_lock %s: %" PRIu64
		" acquisitions, %" PRIu64 " waited: p50 %.3f us, p99 %.3f us,"
		" p99.9 %.3f us, max %.3f us, total %.3f us; waits by time",
		who, side, w->acquisitions, w->waits, (double)w->p50_ns / 1e3,
		(double)w->p99_ns / 1e3, (double)w->p999_ns / 1e3,
		(double)w->max_ns / 1e3, (double)w->total_ns / 1e3);
	for (int b = 0; b < FAULTGEN_LOCK_WAIT_BUCKETS; b++)
		fprintf(out, " %s %" PRIu64, bucket_names[b], w->buckets[b]);
	fputc('\n', out);
}

/* " user faults: 4096 seen, 4096 took mmap_lock for reading, 2
 * retries (...), 3 acquisitions at most in one fault" */
static void print_faults(FILE *out, const char *who,
			 const struct faultgen_lock_waits *lw)
{
	fprintf(out,
		"lock waits of %s, user faults: %" PRIu64 " seen, %" PRIu64
		" took mmap_lock for reading, %" PRIu64 " retries (read "
		"acquisitions beyond a fault's first, before its thread's next "
		"fault or system call), %" PRIu64
		" acquisitions at most in one fault%s\n",
		who, lw->faults, lw->faults_mmap_read, lw->retries,
		lw->most_in_fault,
		lw->lost ? " (lower bounds: events lost)" : "");
}

static void print_group(FILE *out, const char *who,
			const struct faultgen_lock_waits *lw)
{
	print_side(out, who, "read", &lw->read);
	print_side(out, who, "write", &lw->write);
	print_faults(out, who, lw);
	fprintf(out,
		"lock waits of %s: %" PRIu64 " events lost (ring buffer full), "
		"%" PRIu64 " waits whose end was not seen\n",
		who, lw->lost, lw->unended);
}

/*
 * lock waits of 2 workers, mmap_lock read: 12 acquisitions, 3 waited: ...
 * lock waits of 2 workers, mmap_lock write: ...
 * lock waits of 2 workers, user faults: 8192 seen, 12 took ...
 * lock waits of 2 workers: 0 events lost ..., 0 waits whose end ...
 * and the same of the helper threads (writers) when there were any.
 */
void pft_print_lock_waits(FILE *out, struct faultgen_run *run)
{
	struct faultgen_lock_waits lw;
	char who[64];

	if (lock_waits(run, FAULTGEN_LOCK_WORKERS, &lw))
		return;
	snprintf(who, sizeof(who), "%u worker%s", lw.threads,
		 lw.threads == 1 ? "" : "s");
	print_group(out, who, &lw);
	if (lock_waits(run, FAULTGEN_LOCK_HELPERS, &lw) || !lw.threads)
		return;
	snprintf(who, sizeof(who), "%u helper thread%s (writers)", lw.threads,
		 lw.threads == 1 ? "" : "s");
	print_group(out, who, &lw);
}

/* " lw_read N lw_read_waits N lw_read_p99_us X lw_write N
 * lw_write_waits N lw_write_p99_us X lw_lost N lw_faults N
 * lw_faults_mmap_read N lw_retries N lw_most_in_fault N" */
void pft_print_worker_lock_waits(FILE *out, struct faultgen_run *run,
				 unsigned int worker)
{
	struct faultgen_lock_waits lw;

	if (lock_waits(run, (int)worker, &lw))
		return;
	fprintf(out,
		" lw_read %" PRIu64 " lw_read_waits %" PRIu64
		" lw_read_p99_us %.3f lw_write %" PRIu64
		" lw_write_waits %" PRIu64 " lw_write_p99_us %.3f"
		" lw_lost %" PRIu64 " lw_faults %" PRIu64
		" lw_faults_mmap_read %" PRIu64 " lw_retries %" PRIu64
		" lw_most_in_fault %" PRIu64,
		lw.read.acquisitions, lw.read.waits,
		(double)lw.read.p99_ns / 1e3, lw.write.acquisitions,
		lw.write.waits, (double)lw.write.p99_ns / 1e3, lw.lost,
		lw.faults, lw.faults_mmap_read, lw.retries, lw.most_in_fault);
}

static void json_side(struct pft_json *j, const char *key,
		      const struct faultgen_lock_wait *w)
{
	pj_obj(j, key);
	pj_u64(j, "acquisitions", w->acquisitions);
	pj_u64(j, "waits", w->waits);
	pj_u64(j, "total_ns", w->total_ns);
	pj_u64(j, "p50_ns", w->p50_ns);
	pj_u64(j, "p99_ns", w->p99_ns);
	pj_u64(j, "p999_ns", w->p999_ns);
	pj_u64(j, "max_ns", w->max_ns);
	pj_obj(j, "buckets");
	for (int b = 0; b < FAULTGEN_LOCK_WAIT_BUCKETS; b++)
		pj_u64(j, bucket_names[b], w->buckets[b]);
	pj_obj_end(j);
	pj_obj_end(j);
}

static void json_group(struct pft_json *j, const struct faultgen_lock_waits *lw)
{
	pj_u64(j, "threads", lw->threads);
	pj_u64(j, "lost", lw->lost);
	pj_u64(j, "unended", lw->unended);
	json_side(j, "read", &lw->read);
	json_side(j, "write", &lw->write);
	pj_u64(j, "faults", lw->faults);
	pj_u64(j, "faults_mmap_read", lw->faults_mmap_read);
	pj_u64(j, "retries", lw->retries);
	pj_u64(j, "most_in_fault", lw->most_in_fault);
	pj_bool(j, "lower_bounds", lw->lost != 0);
}

/*
 * "lock_waits": {"threads": ..., "lost": ..., "read": {...}, "write":
 * {...}} of one worker, or of all (-1) with "helpers": {...} in it; null
 * where asked but not timed; nothing where not asked.
 */
void pft_json_lock_waits(struct pft_json *j, struct faultgen_run *run,
			 int worker)
{
	struct faultgen_lock_waits lw;
	int ret = lock_waits(run, worker, &lw);

	if (ret == -ENODATA || ret == -ERANGE || ret == -EINVAL)
		return;
	if (ret) {
		pj_null(j, "lock_waits");
		return;
	}
	pj_obj(j, "lock_waits");
	json_group(j, &lw);
	if (worker == FAULTGEN_LOCK_WORKERS &&
	    lock_waits(run, FAULTGEN_LOCK_HELPERS, &lw) == 0) {
		pj_obj(j, "helpers");
		json_group(j, &lw);
		pj_obj_end(j);
	}
	pj_obj_end(j);
}

/* One note on stderr, once per pft, where --lock-waits was asked but
 * could not be timed; the run goes on. */
void pft_lock_waits_note(struct faultgen_run *run)
{
	static bool noted;
	struct faultgen_lock_waits lw;
	int ret = lock_waits(run, FAULTGEN_LOCK_WORKERS, &lw);
	char why[256];

	if (!ret)
		ret = lock_waits(run, FAULTGEN_LOCK_HELPERS, &lw);
	if (noted || !ret || ret == -ENODATA)
		return;
	pft_lock_why_not(ret, "lock:contention_begin", why, sizeof(why));
	pft_msg("note: lock waits not timed: %s", why);
	noted = true;
}
