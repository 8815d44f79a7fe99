// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lockpaths.c - which lock the faults of a run took (faultgen_attr_set_
 * lock_paths): five tracepoint counters per thread, in one perf event
 * group opened by the thread on itself (pid 0, any CPU, counting mode),
 * read with one read() where the worker takes its other figures
 * (measure.c).  The kernel counts only while the thread runs: no ring
 * buffer, no sample, nothing to parse but five numbers.
 *
 * The tracepoints' ids come from tracefs, read once by the caller; a
 * probe of the group on the calling thread tells, before any worker
 * starts, whether the workers will be able to open theirs.  Opening,
 * reading and closing are system calls only: forked workers do them.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef PERF_FLAG_FD_CLOEXEC
#define PERF_FLAG_FD_CLOEXEC (1UL << 3)
#endif

/* Where tracefs is, newest place first. */
static const char *const tracefs_roots[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};

/*
 * The counters, in the group's order (FG_LOCK_*): the tracepoint and
 * the filter that keeps the events counted.  A kernel-mode fault's
 * address is a user address when its top bit is clear (x86-64 with 4-
 * or 5-level page tables: the kernel's half starts at 0xff00...).
 * mmap_read_trylock fires start_locking, then acquire_returned with its
 * success: a failed trylock is one read start and one failed return.
 */
static const struct {
	const char *sys, *name, *filter;
} events[FG_LOCK_EVENTS] = {
	[FG_LOCK_USER] = { "exceptions", "page_fault_user", NULL },
	[FG_LOCK_KERNEL] = { "exceptions", "page_fault_kernel",
			     "address < 0x8000000000000000" },
	[FG_LOCK_READ] = { "mmap_lock", "mmap_lock_start_locking",
			   "write == 0" },
	[FG_LOCK_WRITE] = { "mmap_lock", "mmap_lock_start_locking",
			    "write == 1" },
	[FG_LOCK_TRYFAIL] = { "mmap_lock", "mmap_lock_acquire_returned",
			      "write == 0 && success == 0" },
};

/* A tracepoint's id from tracefs: -EACCES where tracefs may not be read
 * (mode 700 for root), -ENOENT where there is no tracefs or no such
 * event. */
int fg_trace_id(const char *sys, const char *name, uint64_t *id)
{
	char path[160];
	int ret = -ENOENT;

	for (size_t r = 0; r < sizeof(tracefs_roots) / sizeof(*tracefs_roots);
	     r++) {
		snprintf(path, sizeof(path), "%s/events/%s/%s/id",
			 tracefs_roots[r], sys, name);
		ret = fg_read_number(path, id);
		if (ret != -ENOENT)
			return ret == -EPERM ? -EACCES : ret;
		if (access(tracefs_roots[r], F_OK) == 0 &&
		    access(tracefs_roots[r], R_OK | X_OK) < 0)
			return -EACCES;
	}
	return ret;
}

static int perf_open(uint64_t id, int group)
{
	struct perf_event_attr pa;
	long fd;

	memset(&pa, 0, sizeof(pa));
	pa.size = sizeof(pa);
	pa.type = PERF_TYPE_TRACEPOINT;
	pa.config = id;
	pa.read_format = PERF_FORMAT_GROUP;
	fd = syscall(SYS_perf_event_open, &pa, 0, -1, group,
		     PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

void fg_lock_close(int fds[FG_LOCK_EVENTS])
{
	for (int k = FG_LOCK_EVENTS - 1; k >= 0; k--) {
		if (fds[k] >= 0)
			close(fds[k]);
		fds[k] = -1;
	}
}

/*
 * Opens the group on the calling thread: the leader's fd, or -errno
 * (fds all -1 then).  Async-signal-safe.
 */
int fg_lock_open(const struct faultgen_run *run, int fds[FG_LOCK_EVENTS])
{
	int ret = 0;

	for (int k = 0; k < FG_LOCK_EVENTS; k++)
		fds[k] = -1;
	if (run->lock_status)
		return run->lock_status;
	for (int k = 0; k < FG_LOCK_EVENTS && !ret; k++) {
		fds[k] = perf_open(run->lock_ids[k], k ? fds[0] : -1);
		if (fds[k] < 0) {
			ret = fds[k];
			fds[k] = -1;
		} else if (events[k].filter &&
			   ioctl(fds[k], PERF_EVENT_IOC_SET_FILTER,
				 events[k].filter) < 0) {
			ret = -errno;
		}
	}
	if (ret) {
		fg_lock_close(fds);
		return ret == -EPERM ? -EACCES : ret;
	}
	return fds[0];
}

/*
 * A worker's group, opened on itself before its loop (worker.c, and
 * the patterns that start threads of their own): a worker without one
 * runs all the same, its failure kept where it is not the run's.
 */
void fg_lock_worker_open(const struct faultgen_run *run, struct fg_wstat *w,
			 int fds[FG_LOCK_EVENTS])
{
	int fd = fg_lock_open(run, fds);

	w->lock_group = fd >= 0 ? fd + 1 : 0;
	w->lock_error = fd >= 0 || fd == run->lock_status ? 0 : fd;
}

void fg_lock_worker_close(struct fg_wstat *w, int fds[FG_LOCK_EVENTS])
{
	w->lock_group = 0;
	fg_lock_close(fds);
}

/* One read of a group: {nr, value[nr]} into c; -EIO for another
 * layout. */
FG_TESTABLE int fg_lock_parse(const uint64_t *buf, size_t words,
			      struct fg_lock_counts *c)
{
	if (words < 1 + FG_LOCK_EVENTS || buf[0] != FG_LOCK_EVENTS)
		return -EIO;
	for (int k = 0; k < FG_LOCK_EVENTS; k++)
		c->v[k] = buf[1 + k];
	return 0;
}

/* The group's counts now (all 0 without a group, fd < 0).
 * Async-signal-safe. */
void fg_lock_read(int fd, struct fg_lock_counts *c)
{
	uint64_t buf[1 + FG_LOCK_EVENTS];
	ssize_t n;

	memset(c, 0, sizeof(*c));
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf));
	if (n > 0)
		fg_lock_parse(buf, (size_t)n / sizeof(*buf), c);
}

/* d = a - b */
void fg_lock_sub(struct fg_lock_counts *d, const struct fg_lock_counts *a,
		 const struct fg_lock_counts *b)
{
	for (int k = 0; k < FG_LOCK_EVENTS; k++)
		d->v[k] = a->v[k] - b->v[k];
}

void fg_lock_add(struct fg_lock_counts *d, const struct fg_lock_counts *a)
{
	for (int k = 0; k < FG_LOCK_EVENTS; k++)
		d->v[k] += a->v[k];
}

/*
 * At run preparation, in the calling thread: the ids, and a probe of
 * the group, so that what stops the counting is known before any worker
 * starts.  Not asked: -ENODATA kept, and 0.  Asked but not possible:
 * the reason kept, and 0 all the same (the run goes on without).
 */
int fg_lock_prepare(struct faultgen_run *run)
{
	int fds[FG_LOCK_EVENTS], ret = 0;

	run->lock_status = -ENODATA;
	if (!run->attr.lock_paths)
		return 0;
	for (int k = 0; k < FG_LOCK_EVENTS && !ret; k++)
		ret = fg_trace_id(events[k].sys, events[k].name,
				  &run->lock_ids[k]);
	run->lock_status = ret;
	if (!ret) {
		ret = fg_lock_open(run, fds);
		fg_lock_close(fds);
		run->lock_status = ret < 0 ? ret : 0;
	}
	return 0;
}

/* Worker i's zap, its lock acquisitions counted apart (fg_zap). */
int fg_lock_zap(struct faultgen_run *run, unsigned int i,
		int (*zap)(struct faultgen_run *run, unsigned int i))
{
	struct fg_wstat *w = &run->sh->w[i];
	struct fg_lock_counts a, b, d;
	int fd = fg_wstat_lock_fd(w);
	int ret;

	if (fd < 0)
		return zap(run, i);
	fg_lock_read(fd, &a);
	ret = zap(run, i);
	fg_lock_read(fd, &b);
	fg_lock_sub(&d, &b, &a);
	fg_lock_add(&w->zap_lock, &d);
	return ret;
}

/*
 * Helpers (threads beside the workers: writers, a forker, a userfault
 * handler) count over the measured phase: from the first worker's
 * begin to the last worker's end, read by those workers (a perf fd
 * reads from any thread).  A helper whose group is not open yet at the
 * begin counts from its open, inside the phase: 0 is its start.
 */
struct fg_lock_helper {
	_Atomic int leader; /* -1 until the helper opened its group */
	int fds[FG_LOCK_EVENTS];
	struct fg_lock_counts at, end;
	bool ended;
};

int fg_lock_helpers_new(struct faultgen_run *run, unsigned int n)
{
	if (run->lock_status || !n)
		return 0;
	run->lock_helpers = calloc(n, sizeof(*run->lock_helpers));
	if (!run->lock_helpers)
		return -ENOMEM;
	for (unsigned int h = 0; h < n; h++) {
		atomic_init(&run->lock_helpers[h].leader, -1);
		for (int k = 0; k < FG_LOCK_EVENTS; k++)
			run->lock_helpers[h].fds[k] = -1;
	}
	run->lock_nr_helpers = n;
	return 0;
}

/* In helper h's thread, before it starts: a failure is kept as the
 * helpers' figures' error. */
void fg_lock_helper_open(struct faultgen_run *run, unsigned int h)
{
	struct fg_lock_helper *lh;
	int fd;

	if (!run->lock_helpers)
		return;
	lh = &run->lock_helpers[h];
	fd = fg_lock_open(run, lh->fds);
	if (fd < 0)
		run->lock_helpers_error = fd;
	else
		atomic_store(&lh->leader, fd);
}

static void helpers_mark(struct faultgen_run *run, bool end)
{
	for (unsigned int h = 0; h < run->lock_nr_helpers; h++) {
		struct fg_lock_helper *lh = &run->lock_helpers[h];
		int fd = atomic_load(&lh->leader);

		if (fd < 0)
			continue;
		if (!end) {
			fg_lock_read(fd, &lh->at);
		} else if (!lh->ended) {
			fg_lock_read(fd, &lh->end);
			lh->ended = true;
		}
	}
}

/* The measured phase begins (first) or ends (last worker): the helpers'
 * readings. */
void fg_lock_phase(struct faultgen_run *run, bool end)
{
	if (run->lock_helpers)
		helpers_mark(run, end);
}

/* Once the helpers are joined: their sums, a reading at the end for a
 * phase that never ended (a cancel, a pattern that marks none), and
 * their groups closed. */
void fg_lock_helpers_done(struct faultgen_run *run)
{
	struct fg_lock_counts d;

	if (!run->lock_helpers)
		return;
	helpers_mark(run, true);
	for (unsigned int h = 0; h < run->lock_nr_helpers; h++) {
		struct fg_lock_helper *lh = &run->lock_helpers[h];

		fg_lock_sub(&d, &lh->end, &lh->at);
		fg_lock_add(&run->lock_helper_sum, &d);
		fg_lock_close(lh->fds);
	}
	free(run->lock_helpers);
	run->lock_helpers = NULL;
}

static uint64_t minus(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/*
 * The figures of counts c (the zaps' share of them in zap) and of the
 * faults the kernel counted for the same threads (minflt + majflt; 0
 * where unknown).  A failed read trylock is retried as a blocking
 * acquisition: one acquisition, two read starts.
 */
FG_TESTABLE void fg_lock_derive(const struct fg_lock_counts *c,
				const struct fg_lock_counts *zap,
				uint64_t faults,
				struct faultgen_lock_paths *lp)
{
	const uint64_t *v = c->v, *z = zap->v;

	lp->user_faults = v[FG_LOCK_USER];
	lp->kernel_faults = v[FG_LOCK_KERNEL];
	lp->gup_faults = minus(faults, v[FG_LOCK_USER] + v[FG_LOCK_KERNEL]);
	lp->mmap_read = v[FG_LOCK_READ];
	lp->mmap_read_trylock_failed = v[FG_LOCK_TRYFAIL];
	lp->mmap_write = v[FG_LOCK_WRITE];
	lp->zap_mmap_read = z[FG_LOCK_READ];
	lp->zap_mmap_write = z[FG_LOCK_WRITE];
	lp->fallbacks = minus(minus(v[FG_LOCK_READ], v[FG_LOCK_TRYFAIL]),
			      minus(z[FG_LOCK_READ], z[FG_LOCK_TRYFAIL]));
}

/* Worker `worker`'s figures, of all workers (-1), of the helpers (-2). */
FG_TESTABLE int fg_run_lock_paths(const struct faultgen_run *run, int worker,
				  struct faultgen_lock_paths *lp)
{
	struct fg_lock_counts c = { 0 }, zap = { 0 };
	unsigned int n = run->attr.nr_workers, first = 0, threads = 0;
	uint64_t faults = 0;

	if (run->lock_status)
		return run->lock_status;
	if (worker < FAULTGEN_LOCK_HELPERS || (worker >= 0 &&
					       (unsigned int)worker >= n))
		return -ERANGE;
	memset(lp, 0, sizeof(*lp));
	lp->size = sizeof(*lp);
	if (worker == FAULTGEN_LOCK_HELPERS) {
		if (run->lock_helpers_error)
			return run->lock_helpers_error;
		lp->threads = run->lock_nr_helpers;
		fg_lock_derive(&run->lock_helper_sum, &zap, 0, lp);
		return 0;
	}
	if (worker >= 0) {
		first = (unsigned int)worker;
		n = first + 1;
	}
	for (unsigned int i = first; i < n; i++) {
		const struct fg_wstat *w = &run->sh->w[i];

		if (w->lock_error)
			return w->lock_error;
		fg_lock_add(&c, &w->use.lock);
		fg_lock_add(&zap, &w->zap_lock);
		faults += w->use.minflt + w->use.majflt;
		threads++;
	}
	lp->threads = threads;
	fg_lock_derive(&c, &zap, faults, lp);
	return 0;
}
