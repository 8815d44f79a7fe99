// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lockwaits.c - how long the threads of a run waited for the mmap_lock
 * (faultgen_attr_set_lock_waits).  Each worker, and each helper thread
 * beside the workers, opens on itself (pid 0, any CPU) eight tracepoints
 * sampled into one perf ring buffer of its own, stamped with
 * CLOCK_MONOTONIC (the clock of the measured interval):
 *
 *   mmap_lock:mmap_lock_start_locking, read and write apart (filters),
 *   mmap_lock:mmap_lock_acquire_returned, taken and failed apart,
 *   lock:contention_begin of a rwsem (flags READ or WRITE; its raw
 *   record for the lock's address and the flags),
 *   lock:contention_end (its raw record for the lock's address),
 *   exceptions:page_fault_user and raw_syscalls:sys_enter.
 *
 * Nothing but the lock's own slow path runs between a thread's
 * start_locking and its acquire_returned (include/linux/mmap_lock.h
 * wraps each down_read/down_write in the two), so a rwsem's
 * contention_begin between them is the mmap_lock's, and the wait lasts
 * until the contention_end of the same address.  Other rwsems (i_mmap,
 * anon_vma) wait outside such a window and are not counted.
 *
 * A user fault's read acquisitions are those between its
 * page_fault_user and the thread's next fault or system call: a fault
 * that waited for I/O under the mmap_lock and was retried
 * (FAULT_FLAG_TRIED) takes it again without a new page_fault_user,
 * while the acquisitions of a system call (a zap, a writer's call, the
 * cold rounds' mincore) come after its sys_enter.  A trylock that
 * failed (lock_mm_and_find_vma's mmap_read_trylock before its
 * mmap_read_lock_killable) is no acquisition: only the returns that
 * took the lock count.
 *
 * The thread reads its buffer itself: at each zap of its loop and every
 * FG_WAIT_TOUCHES touches of a write or read loop (fault.c) when the
 * buffer is half full (a load of data_head otherwise), and once after
 * the loop; a writer at each cycle when half full.  A record the kernel
 * could not write is counted from its PERF_RECORD_LOST, and the pairing
 * starts afresh after it.  Reading is loads, stores and system calls:
 * forked workers do it.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef PERF_FLAG_FD_CLOEXEC
#define PERF_FLAG_FD_CLOEXEC (1UL << 3)
#endif

/* The ring's data pages: 256 KiB of 4 KiB pages, a few thousand
 * records. */
#define RING_PAGES 64

/*
 * The events, in FG_WAIT_* order.  The raw record of a contention
 * event is the kernel's trace entry: 8 bytes of common fields, then
 * lock_addr (8 bytes) and flags or ret (4), as
 * events/lock/contention_{begin,end}/format give them since 5.19.
 */
static const struct {
	const char *sys, *name, *filter;
	bool raw;
} events[FG_WAIT_EVENTS] = {
	[FG_WAIT_READ_START] = { "mmap_lock", "mmap_lock_start_locking",
				 "write == 0", false },
	[FG_WAIT_WRITE_START] = { "mmap_lock", "mmap_lock_start_locking",
				  "write == 1", false },
	[FG_WAIT_RETURNED] = { "mmap_lock", "mmap_lock_acquire_returned",
			       "success == 1", false },
	[FG_WAIT_BEGIN] = { "lock", "contention_begin", "flags & 6", true },
	[FG_WAIT_END] = { "lock", "contention_end", NULL, true },
	[FG_WAIT_FAILED] = { "mmap_lock", "mmap_lock_acquire_returned",
			     "success == 0", false },
	[FG_WAIT_FAULT] = { "exceptions", "page_fault_user", NULL, false },
	[FG_WAIT_SYSCALL] = { "raw_syscalls", "sys_enter", NULL, false },
};
#define RAW_LOCK_AT 8
#define RAW_FLAGS_AT 16

/* A thread's ring: its events' fds (the first owns the buffer), their
 * sample ids, the mapping, where its stream's pairing is. */
struct fg_wait_ring {
	int fds[FG_WAIT_EVENTS];
	uint64_t ids[FG_WAIT_EVENTS];
	void *base;
	size_t len;
	struct fg_wait_pairing pairing;
	struct fg_wait_stat *stat;
};

/* ---- the pairing ---------------------------------------------------- */

FG_TESTABLE void fg_wait_stat_init(struct fg_wait_stat *s)
{
	memset(s, 0, sizeof(*s));
	fg_hist_init(&s->side[0].h);
	fg_hist_init(&s->side[1].h);
}

FG_TESTABLE void fg_wait_pairing_init(struct fg_wait_pairing *p)
{
	p->mode = -1;
	p->waiting = -1;
	p->begin = 0;
	p->lock = 0;
	p->in_fault = false;
	p->fault_t = 0;
	p->fault_acq = 0;
}

/* The decade of microseconds of ns: 0 below 1us, 7 from 1 s on. */
static unsigned int decade_of(uint64_t ns)
{
	unsigned int d = 0;

	for (uint64_t lim = 1000; d < FG_WAIT_DECADES - 1 && ns >= lim;
	     lim *= 10)
		d++;
	return d;
}

static bool in_window(int64_t t, int64_t from, int64_t to)
{
	return t >= from && t <= to;
}

/* A wait open when its window closes, or cut off by a lost record or
 * a new acquisition: its end was never read. */
static void drop_wait(struct fg_wait_pairing *p, int64_t from, int64_t to,
		      struct fg_wait_stat *s)
{
	if (p->waiting >= 0 && in_window(p->begin, from, to))
		s->unended++;
	p->waiting = -1;
}

static void end_wait(struct fg_wait_pairing *p, const struct fg_wait_event *e,
		     int64_t from, int64_t to, struct fg_wait_stat *s)
{
	struct fg_wait_side *side;
	uint64_t ns;

	if (p->waiting < 0 || e->lock != p->lock)
		return;
	side = &s->side[p->waiting];
	p->waiting = -1;
	if (!in_window(p->begin, from, to))
		return;
	ns = e->t > p->begin ? (uint64_t)(e->t - p->begin) : 0;
	fg_hist_record(&side->h, ns);
	side->decades[decade_of(ns)]++;
}

/* The open fault's window ends: the fault counted when it began within
 * [from, to], with the read acquisitions seen in its window. */
static void end_fault(struct fg_wait_pairing *p, int64_t from, int64_t to,
		      struct fg_wait_stat *s)
{
	uint64_t n = p->fault_acq;

	if (!p->in_fault)
		return;
	p->in_fault = false;
	p->fault_acq = 0;
	if (!in_window(p->fault_t, from, to))
		return;
	s->faults++;
	if (n)
		s->faults_read++;
	if (n > 1)
		s->retries += n - 1;
	if (n > s->most)
		s->most = n;
}

static void begin_fault(struct fg_wait_pairing *p, int64_t t, int64_t from,
			int64_t to, struct fg_wait_stat *s)
{
	end_fault(p, from, to, s);
	p->in_fault = true;
	p->fault_t = t;
	p->fault_acq = 0;
}

/*
 * n events of one thread, in the order its ring gave them, into s: the
 * acquisitions started, the waits begun and the user faults begun
 * within [from, to].  p keeps where the stream is between two calls.
 */
FG_TESTABLE void fg_wait_feed(struct fg_wait_pairing *p,
			      const struct fg_wait_event *ev, size_t n,
			      int64_t from, int64_t to,
			      struct fg_wait_stat *s)
{
	for (size_t k = 0; k < n; k++) {
		const struct fg_wait_event *e = &ev[k];

		switch (e->kind) {
		case FG_WAIT_LOST:
			s->lost += e->lock;
			drop_wait(p, from, to, s);
			end_fault(p, from, to, s);
			p->mode = -1;
			break;
		case FG_WAIT_FAULT:
			begin_fault(p, e->t, from, to, s);
			break;
		case FG_WAIT_SYSCALL:
			end_fault(p, from, to, s);
			break;
		case FG_WAIT_READ_START:
		case FG_WAIT_WRITE_START:
			drop_wait(p, from, to, s);
			p->mode = e->kind == FG_WAIT_WRITE_START;
			if (in_window(e->t, from, to))
				s->side[p->mode].acquisitions++;
			break;
		case FG_WAIT_RETURNED:
		case FG_WAIT_FAILED:
			/* A read that took the lock, in a fault's window. */
			if (e->kind == FG_WAIT_RETURNED && p->mode == 0 &&
			    p->in_fault)
				p->fault_acq++;
			drop_wait(p, from, to, s);
			p->mode = -1;
			break;
		case FG_WAIT_BEGIN:
			if (p->mode < 0 || p->waiting >= 0 ||
			    !(e->flags & (FG_LCB_READ | FG_LCB_WRITE)))
				break;
			p->waiting = e->flags & FG_LCB_WRITE ? 1 : 0;
			p->begin = e->t;
			p->lock = e->lock;
			break;
		case FG_WAIT_END:
			end_wait(p, e, from, to, s);
			break;
		}
	}
}

/* ---- the records ---------------------------------------------------- */

static uint64_t u64_at(const unsigned char *b)
{
	uint64_t v;

	memcpy(&v, b, sizeof(v));
	return v;
}

static uint32_t u32_at(const unsigned char *b)
{
	uint32_t v;

	memcpy(&v, b, sizeof(v));
	return v;
}

static int decode_sample(const unsigned char *b, size_t len,
			 const uint64_t ids[FG_WAIT_EVENTS],
			 struct fg_wait_event *ev)
{
	uint64_t id;
	uint32_t raw;
	int k;

	if (len < 8 + 16)
		return -EIO;
	id = u64_at(b + 8);
	for (k = 0; k < FG_WAIT_EVENTS && ids[k] != id; k++)
		;
	if (k == FG_WAIT_EVENTS)
		return 0;
	memset(ev, 0, sizeof(*ev));
	ev->kind = (unsigned int)k;
	ev->t = (int64_t)u64_at(b + 16);
	if (!events[k].raw)
		return 1;
	if (len < 8 + 16 + 4)
		return -EIO;
	raw = u32_at(b + 24);
	if (raw < RAW_FLAGS_AT + 4 || len < 8 + 16 + 4 + (size_t)raw)
		return -EIO;
	ev->lock = u64_at(b + 28 + RAW_LOCK_AT);
	ev->flags = u32_at(b + 28 + RAW_FLAGS_AT);
	return 1;
}

/*
 * One record of the ring (its header first, len bytes in all) as an
 * event: 1, 0 for a record of no concern, -EIO for one too short for
 * its kind.  A sample is {header, identifier, time, [raw size, raw]};
 * a lost record {header, id, lost}.
 */
FG_TESTABLE int fg_wait_decode(const void *rec, size_t len,
			       const uint64_t ids[FG_WAIT_EVENTS],
			       struct fg_wait_event *ev)
{
	const unsigned char *b = rec;
	struct perf_event_header h;

	if (len < sizeof(h))
		return -EIO;
	memcpy(&h, b, sizeof(h));
	switch (h.type) {
	case PERF_RECORD_SAMPLE:
		return decode_sample(b, len, ids, ev);
	case PERF_RECORD_LOST:
		if (len < 8 + 16)
			return -EIO;
		memset(ev, 0, sizeof(*ev));
		ev->kind = FG_WAIT_LOST;
		ev->lock = u64_at(b + 16);
		return 1;
	default:
		return 0;
	}
}

/* ---- a thread's ring ------------------------------------------------ */

static int perf_open_sampled(uint64_t id, bool raw)
{
	struct perf_event_attr pa;
	long fd;

	memset(&pa, 0, sizeof(pa));
	pa.size = sizeof(pa);
	pa.type = PERF_TYPE_TRACEPOINT;
	pa.config = id;
	pa.sample_period = 1;
	pa.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME |
			 (raw ? PERF_SAMPLE_RAW : 0);
	pa.use_clockid = 1;
	pa.clockid = CLOCK_MONOTONIC;
	pa.disabled = 1;
	fd = syscall(SYS_perf_event_open, &pa, 0, -1, -1,
		     PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

static void ring_close(struct fg_wait_ring *r)
{
	for (int k = FG_WAIT_EVENTS - 1; k >= 0; k--) {
		if (r->fds[k] >= 0)
			close(r->fds[k]);
		r->fds[k] = -1;
	}
	if (r->base)
		munmap(r->base, r->len);
	r->base = NULL;
}

static int ring_event(const struct faultgen_run *run, struct fg_wait_ring *r,
		      int k)
{
	int fd = perf_open_sampled(run->wait_ids[k], events[k].raw);

	if (fd < 0)
		return fd == -EPERM ? -EACCES : fd;
	r->fds[k] = fd;
	if (events[k].filter &&
	    ioctl(fd, PERF_EVENT_IOC_SET_FILTER, events[k].filter) < 0)
		return -errno;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &r->ids[k]) < 0)
		return -errno;
	if (k == 0) {
		r->len = (size_t)(RING_PAGES + 1) * (size_t)fg_pagesize();
		r->base = mmap(NULL, r->len, PROT_READ | PROT_WRITE,
			       MAP_SHARED, fd, 0);
		if (r->base == MAP_FAILED) {
			r->base = NULL;
			return -errno;
		}
	} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fds[0]) < 0) {
		return -errno;
	}
	return 0;
}

/* Opens r on the calling thread, enabled: 0 or -errno (r closed). */
static int ring_open(const struct faultgen_run *run, struct fg_wait_ring *r)
{
	int ret = 0;

	for (int k = 0; k < FG_WAIT_EVENTS; k++)
		r->fds[k] = -1;
	r->base = NULL;
	fg_wait_pairing_init(&r->pairing);
	for (int k = 0; k < FG_WAIT_EVENTS && !ret; k++)
		ret = ring_event(run, r, k);
	for (int k = 0; k < FG_WAIT_EVENTS && !ret; k++)
		if (ioctl(r->fds[k], PERF_EVENT_IOC_ENABLE, 0) < 0)
			ret = -errno;
	if (ret) {
		ring_close(r);
		return ret;
	}
	return 0;
}

static void copy_out(const unsigned char *data, uint64_t size, uint64_t at,
		     void *dst, size_t len)
{
	size_t off = (size_t)(at % size), first = len;

	if (first > size - off)
		first = (size_t)(size - off);
	memcpy(dst, data + off, first);
	memcpy((unsigned char *)dst + first, data, len - first);
}

static uint64_t ring_fill(const struct fg_wait_ring *r, uint64_t *tail)
{
	const struct perf_event_mmap_page *pg = r->base;

	*tail = pg->data_tail;
	return __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
}

/* What the ring holds, into the ring's figures over [from, to]. */
static void ring_drain(struct fg_wait_ring *r, int64_t from, int64_t to)
{
	struct perf_event_mmap_page *pg = r->base;
	uint64_t size = pg->data_size, tail, head = ring_fill(r, &tail);
	const unsigned char *data = (unsigned char *)r->base + pg->data_offset;
	struct fg_wait_event ev[32];
	unsigned char rec[256];
	size_t n = 0;

	while (tail < head) {
		struct perf_event_header h;

		copy_out(data, size, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > sizeof(rec) ||
		    tail + h.size > head) {
			/* Nothing the kernel writes for these events: the
			 * rest is counted lost rather than misread. */
			ev[n++] = (struct fg_wait_event){ .kind = FG_WAIT_LOST,
							  .lock = 1 };
			tail = head;
			break;
		}
		copy_out(data, size, tail, rec, h.size);
		tail += h.size;
		if (fg_wait_decode(rec, h.size, r->ids, &ev[n]) != 0 &&
		    ++n == sizeof(ev) / sizeof(*ev)) {
			fg_wait_feed(&r->pairing, ev, n, from, to, r->stat);
			n = 0;
		}
	}
	if (n)
		fg_wait_feed(&r->pairing, ev, n, from, to, r->stat);
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
}

/*
 * The rest of the ring read, and with it the records the kernel could
 * not write when it was full: it reports them (PERF_RECORD_LOST) with
 * the next record it writes, which at the end of a loop would never
 * come.  A system call of the thread's own (its sys_enter is sampled)
 * makes one once the ring has room.  In the ring's own thread.
 */
static void ring_drain_lost(struct fg_wait_ring *r, int64_t from, int64_t to)
{
	ring_drain(r, from, to);
	syscall(SYS_getppid);
	ring_drain(r, from, to);
}

/* Half full or more. */
static bool ring_due(const struct fg_wait_ring *r)
{
	const struct perf_event_mmap_page *pg = r->base;
	uint64_t tail, head = ring_fill(r, &tail);

	return head - tail >= pg->data_size / 2;
}

/* ---- workers and helpers -------------------------------------------- */

static int64_t or_never(int64_t t)
{
	return t ? t : INT64_MAX;
}

/* Worker i's window: its measured loop, from its start (none yet: no
 * wait counts) to its end, or on while it runs. */
static void worker_window(const struct fg_wstat *w, bool final,
			  int64_t *from, int64_t *to)
{
	*from = or_never(w->start_ns);
	*to = final ? w->end_ns : INT64_MAX;
}

/* In worker i's thread (or process), before its loop: a worker without
 * its ring runs all the same, its failure kept where it is not the
 * run's. */
void fg_wait_worker_open(struct faultgen_run *run, unsigned int i)
{
	struct fg_wait_ring *r;
	int ret;

	if (run->wait_status)
		return;
	r = &run->wait_rings[i];
	r->stat = &run->waits[i];
	fg_wait_stat_init(r->stat);
	ret = ring_open(run, r);
	r->stat->error = ret;
	r->stat->opened = !ret;
}

/* Worker i's ring read, when half full or always. */
static void worker_read(struct faultgen_run *run, unsigned int i, bool always)
{
	struct fg_wait_ring *r;
	int64_t from, to;

	if (run->wait_status)
		return;
	r = &run->wait_rings[i];
	if (!r->base || (!always && !ring_due(r)))
		return;
	worker_window(&run->sh->w[i], false, &from, &to);
	ring_drain(r, from, to);
}

void fg_wait_worker_tick(struct faultgen_run *run, unsigned int i)
{
	worker_read(run, i, false);
}

/* Before a cold round's drop moves the worker's start on by the drop's
 * time (fault.c): what the ring holds is read against the window as it
 * was, or the first faults of the rounds before would fall out of it. */
void fg_wait_worker_flush(struct faultgen_run *run, unsigned int i)
{
	worker_read(run, i, true);
}

/* Worker i's ring is open: its loop reads it as it goes. */
bool fg_wait_worker_on(const struct faultgen_run *run, unsigned int i)
{
	return !run->wait_status && run->wait_rings && run->wait_rings[i].base;
}

/* After its loop: the rest read, the ring closed. */
void fg_wait_worker_close(struct faultgen_run *run, unsigned int i)
{
	struct fg_wait_ring *r;
	int64_t from, to;

	if (run->wait_status)
		return;
	r = &run->wait_rings[i];
	if (!r->base)
		return;
	worker_window(&run->sh->w[i], true, &from, &to);
	ring_drain_lost(r, from, to);
	drop_wait(&r->pairing, from, to, r->stat);
	end_fault(&r->pairing, from, to, r->stat);
	ring_close(r);
}

int fg_wait_helpers_new(struct faultgen_run *run, unsigned int n)
{
	if (run->wait_status || !n)
		return 0;
	run->wait_helpers = calloc(n, sizeof(*run->wait_helpers));
	run->wait_helper_stats = calloc(n, sizeof(*run->wait_helper_stats));
	if (!run->wait_helpers || !run->wait_helper_stats)
		return -ENOMEM;
	for (unsigned int h = 0; h < n; h++) {
		struct fg_wait_ring *r = &run->wait_helpers[h];

		for (int k = 0; k < FG_WAIT_EVENTS; k++)
			r->fds[k] = -1;
		r->stat = &run->wait_helper_stats[h];
		fg_wait_stat_init(r->stat);
	}
	run->wait_nr_helpers = n;
	return 0;
}

/* In helper h's thread, before it starts. */
void fg_wait_helper_open(struct faultgen_run *run, unsigned int h)
{
	struct fg_wait_ring *r;
	int ret;

	if (!run->wait_helpers)
		return;
	r = &run->wait_helpers[h];
	ret = ring_open(run, r);
	r->stat->error = ret;
	r->stat->opened = !ret;
}

/* The helpers' window: the measured phase, from the first worker's
 * begin to the last one's end. */
static void helpers_window(struct faultgen_run *run, int64_t *from,
			   int64_t *to)
{
	*from = or_never(atomic_load(&run->sh->wait_phase_begin));
	*to = or_never(atomic_load(&run->sh->wait_phase_end));
}

/* In helper h's thread, its work over: what the ring holds read, and
 * the records lost at its end reported (the rest is read once it is
 * joined). */
void fg_wait_helper_close(struct faultgen_run *run, unsigned int h)
{
	struct fg_wait_ring *r;
	int64_t from, to;

	if (!run->wait_helpers)
		return;
	r = &run->wait_helpers[h];
	if (!r->base)
		return;
	helpers_window(run, &from, &to);
	ring_drain_lost(r, from, to);
}

void fg_wait_helper_tick(struct faultgen_run *run, unsigned int h)
{
	struct fg_wait_ring *r;
	int64_t from, to;

	if (!run->wait_helpers)
		return;
	r = &run->wait_helpers[h];
	if (!r->base || !ring_due(r))
		return;
	helpers_window(run, &from, &to);
	ring_drain(r, from, to);
}

/* Once the helpers are joined (their rings are the process's): the
 * rest read, the rings closed. */
void fg_wait_helpers_done(struct faultgen_run *run)
{
	int64_t from, to;

	if (!run->wait_helpers)
		return;
	helpers_window(run, &from, &to);
	for (unsigned int h = 0; h < run->wait_nr_helpers; h++) {
		struct fg_wait_ring *r = &run->wait_helpers[h];

		if (!r->base)
			continue;
		ring_drain(r, from, to);
		drop_wait(&r->pairing, from, to, r->stat);
		end_fault(&r->pairing, from, to, r->stat);
		ring_close(r);
	}
	free(run->wait_helpers);
	run->wait_helpers = NULL;
}

/* The measured phase begins (first worker: the time read before it
 * opened) or ends (last: read after). */
void fg_wait_phase(struct faultgen_run *run, bool end, int64_t now)
{
	int64_t none = 0;

	if (run->wait_status)
		return;
	atomic_compare_exchange_strong(end ? &run->sh->wait_phase_end :
					     &run->sh->wait_phase_begin,
				       &none, now);
}

/*
 * At run preparation, in the calling thread: the ids, and a ring opened
 * and closed there, so that what stops the timing is known before any
 * worker starts.  Not asked: -ENODATA kept, and 0.  Asked but not
 * possible: the reason kept, and 0 all the same.
 */
int fg_wait_prepare(struct faultgen_run *run)
{
	struct fg_wait_ring probe;
	size_t n = run->attr.nr_workers;
	void *p;
	int ret = 0;

	run->wait_status = -ENODATA;
	if (!run->attr.lock_waits)
		return 0;
	for (int k = 0; k < FG_WAIT_EVENTS && !ret; k++)
		ret = fg_trace_id(events[k].sys, events[k].name,
				  &run->wait_ids[k]);
	if (!ret) {
		ret = ring_open(run, &probe);
		if (!ret)
			ring_close(&probe);
	}
	run->wait_status = ret;
	if (ret)
		return 0;
	run->wait_rings = calloc(n, sizeof(*run->wait_rings));
	if (!run->wait_rings)
		return -ENOMEM;
	/* NORESERVE: each worker faults its own figures, before its loop. */
	ret = fg_map_figures(run, n * sizeof(*run->waits), true, &p);
	if (ret)
		return ret;
	run->waits = p;
	run->waits_len = n * sizeof(*run->waits);
	return 0;
}

void fg_wait_release(struct faultgen_run *run)
{
	if (run->waits)
		munmap(run->waits, run->waits_len);
	run->waits = NULL;
	free(run->wait_rings);
	run->wait_rings = NULL;
	free(run->wait_helpers);
	run->wait_helpers = NULL;
	free(run->wait_helper_stats);
	run->wait_helper_stats = NULL;
}

/* ---- the figures ---------------------------------------------------- */

static void stat_merge(struct fg_wait_stat *d, const struct fg_wait_stat *s)
{
	for (int m = 0; m < 2; m++) {
		fg_hist_merge(&d->side[m].h, &s->side[m].h);
		d->side[m].acquisitions += s->side[m].acquisitions;
		for (int b = 0; b < FG_WAIT_DECADES; b++)
			d->side[m].decades[b] += s->side[m].decades[b];
	}
	d->lost += s->lost;
	d->unended += s->unended;
	d->faults += s->faults;
	d->faults_read += s->faults_read;
	d->retries += s->retries;
	if (s->most > d->most)
		d->most = s->most;
}

static void side_figures(const struct fg_wait_side *s,
			 struct faultgen_lock_wait *w)
{
	w->acquisitions = s->acquisitions;
	w->waits = s->h.count;
	w->total_ns = s->h.sum;
	w->p50_ns = fg_hist_value_at(&s->h, 0.5);
	w->p99_ns = fg_hist_value_at(&s->h, 0.99);
	w->p999_ns = fg_hist_value_at(&s->h, 0.999);
	w->max_ns = s->h.count ? s->h.max : 0;
	for (int b = 0; b < FG_WAIT_DECADES; b++)
		w->buckets[b] = s->decades[b];
}

/* The stats of the threads asked into sum: their number, or the first
 * one's error. */
static int gather(const struct faultgen_run *run, int worker,
		  struct fg_wait_stat *sum)
{
	const struct fg_wait_stat *st = run->waits;
	unsigned int first = 0, n = run->attr.nr_workers;

	if (worker == FAULTGEN_LOCK_HELPERS) {
		st = run->wait_helper_stats;
		n = st ? run->wait_nr_helpers : 0;
	} else if (worker >= 0) {
		first = (unsigned int)worker;
		n = first + 1;
	}
	for (unsigned int i = first; i < n; i++) {
		if (st[i].error)
			return st[i].error;
		stat_merge(sum, &st[i]);
	}
	return (int)(n - first);
}

/* Worker `worker`'s waits, of all workers (-1), of the helpers (-2). */
FG_TESTABLE int fg_run_lock_waits(const struct faultgen_run *run, int worker,
				  struct faultgen_lock_waits *lw)
{
	struct fg_wait_stat *sum;
	int ret;

	if (run->wait_status)
		return run->wait_status;
	if (worker < FAULTGEN_LOCK_HELPERS ||
	    (worker >= 0 && (unsigned int)worker >= run->attr.nr_workers))
		return -ERANGE;
	sum = malloc(sizeof(*sum));
	if (!sum)
		return -ENOMEM;
	fg_wait_stat_init(sum);
	ret = gather(run, worker, sum);
	if (ret >= 0) {
		memset(lw, 0, sizeof(*lw));
		lw->size = sizeof(*lw);
		lw->threads = (unsigned int)ret;
		lw->lost = sum->lost;
		lw->unended = sum->unended;
		side_figures(&sum->side[0], &lw->read);
		side_figures(&sum->side[1], &lw->write);
		lw->faults = sum->faults;
		lw->faults_mmap_read = sum->faults_read;
		lw->retries = sum->retries;
		lw->most_in_fault = sum->most;
		ret = 0;
	}
	free(sum);
	return ret;
}
