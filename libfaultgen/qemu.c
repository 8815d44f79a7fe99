// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * qemu.c - QEMU's preallocation of guest RAM (FAULTGEN_QEMU_PREALLOC):
 * `-object memory-backend-*,prealloc=on,prealloc-threads=N`, as QEMU 7.0
 * and later do it (read from QEMU's util/oslib-posix.c, util/mmap-alloc.c,
 * softmmu/physmem.c and backends/ of 7.2 and of today's tree; the fault
 * behaviour did not change between them).
 *
 * The guest RAM is mapped as QEMU maps it: a PROT_NONE reservation of the
 * size plus the alignment (2 MiB for anonymous RAM on x86-64, the page
 * size for a file or memfd), the RAM mapped over it at the first aligned
 * address, the rest given back but for one PROT_NONE guard page after the
 * RAM.  It is advised MADV_HUGEPAGE and MADV_DONTFORK (every RAM block),
 * then MADV_MERGEABLE (the backend's merge=on default) and the NUMA
 * policy, in that order.  Then the preallocation:
 *
 *  - QEMU steps by the page size of the backend's file: the huge page
 *    size on hugetlbfs, else the base page size (also with THP: a huge
 *    page is then faulted by the first touch or populate of its range).
 *  - It probes MADV_POPULATE_WRITE on the first page; the probe faults
 *    that page.  Unless the kernel answers EINVAL (before Linux 5.14), each
 *    thread then populates its slice with one madvise call; otherwise each
 *    thread reads and writes back one byte of every page.
 *  - Threads: min(online CPUs, 16, prealloc-threads, pages,
 *    max(1, size / 64 MiB)).  Pages are dealt in contiguous slices,
 *    pages / threads each and one more to the first pages % threads.
 *  - With populate and one thread, the calling thread populates the whole
 *    RAM with one call and starts no thread.  Otherwise every thread is
 *    created (default attributes: QEMU's threads have glibc's default
 *    stack) and waits until all exist, then they start together; the
 *    caller joins them.
 *
 * Besides each thread's faults (the result's minflt, the probe's counted
 * with thread 0), the process's faults over the whole preallocation are
 * kept (figure process_faults): what QEMU's own counters see, thread
 * starts included.  Each of them counts MADV_POPULATE_WRITE's faults: the
 * kernel counts a fault taken for get_user_pages in the task's min_flt
 * and the memory cgroup's pgfault like any other (perf's page-faults
 * event does not).
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#define MIB (1ULL << 20)
/* QEMU's MAX_MEM_PREALLOC_THREAD_COUNT. */
#define QEMU_MAX_THREADS 16u
/* QEMU's QEMU_VMALLOC_ALIGN on x86-64 Linux: anonymous RAM's alignment. */
#define QEMU_ANON_ALIGN (2 * MIB)

struct qp_thread {
	struct faultgen_run *run;
	struct qp_state *st;
	unsigned int index;
	char *addr;
	uint64_t pages;
	bool warm;              /* the warm-up thread: faults nothing */
};

struct qp_state {
	bool active;
	unsigned int threads;   /* what QEMU's rule gave */
	unsigned int started;   /* threads created (0: the caller alone) */
	bool populate;          /* MADV_POPULATE_WRITE, else the touch loop */
	uint64_t step;          /* the page size QEMU steps by */
	uint64_t process_minflt; /* the process, over the preallocation */
	uint64_t process_majflt;
	uint64_t probe_minflt;  /* the probe's, in the calling thread */
	uint64_t probe_majflt;
	int64_t prealloc_ns;    /* probe to the last join */
	uint64_t huge_bytes;    /* of the RAM mapped by huge pages after */
	bool huge_known;
	/* The gate: QEMU's page_mutex, page_cond, all_threads_created. */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool go;
	pthread_t warm_tid;     /* the warm-up thread, until warm_down */
	struct qp_thread warm_t;
	bool warm_started, warm_running, warm_done;
};

/* get_memset_num_threads() of QEMU 7.0 and later. */
FG_TESTABLE unsigned int fg_qemu_threads(long online, unsigned int asked,
					 uint64_t pages, uint64_t step)
{
	uint64_t n = 1, by_size;

	if (online > 0) {
		n = (uint64_t)online < QEMU_MAX_THREADS ? (uint64_t)online :
							   QEMU_MAX_THREADS;
		if (asked < n)
			n = asked;
	}
	if (pages < n)
		n = pages;
	by_size = pages * step / (64 * MIB);
	if (by_size < 1)
		by_size = 1;
	if (by_size < n)
		n = by_size;
	return n ? (unsigned int)n : 1;
}

/* Thread i's first page and page count: contiguous slices, the first
 * pages % n slices one page longer. */
FG_TESTABLE void fg_qemu_slice(uint64_t pages, unsigned int n, unsigned int i,
			       uint64_t *first, uint64_t *count)
{
	uint64_t each = pages / n, left = pages % n;

	*count = each + (i < left);
	*first = each * i + (i < left ? i : left);
}

/* Read one byte of every page and write it back (QEMU's touch loop). */
FG_NO_ASAN static void touch_pages(char *addr, uint64_t pages, uint64_t step)
{
	for (uint64_t p = 0; p < pages; p++) {
		volatile char *c = addr + p * step;
		char v = *c;

		*c = v;
	}
}

static int prealloc_slice(const struct qp_state *st, char *addr,
			  uint64_t pages)
{
	if (!pages)
		return 0;
	if (st->populate) {
		if (madvise(addr, pages * st->step, MADV_POPULATE_WRITE) < 0)
			return -errno;
		return 0;
	}
	touch_pages(addr, pages, st->step);
	return 0;
}

/*
 * With latency (set_latency): the populate call of the slice is one
 * value, QEMU's one call (per_call); the touch loop times one page in
 * `every`.
 */
static int prealloc_slice_timed(struct faultgen_run *run,
				const struct qp_state *st, unsigned int i,
				char *addr, uint64_t pages)
{
	unsigned int every = run->attr.latency;
	int64_t t0;
	int ret;

	if (!pages)
		return 0;
	if (st->populate) {
		t0 = fg_now_ns();
		ret = prealloc_slice(st, addr, pages);
		if (!ret)
			fg_lat_add(run, i, (uint64_t)(fg_now_ns() - t0));
		return ret;
	}
	for (uint64_t p = 0; p < pages; p += every) {
		t0 = fg_now_ns();
		touch_pages(addr + p * st->step, 1, st->step);
		fg_lat_add(run, i, (uint64_t)(fg_now_ns() - t0));
		if (every > 1)
			touch_pages(addr + (p + 1) * st->step,
				    (pages - p - 1 < every - 1 ? pages - p - 1 :
								 every - 1),
				    st->step);
	}
	return 0;
}

struct slice {
	struct faultgen_run *run;
	const struct qp_state *st;
	unsigned int i;
	char *addr;
	uint64_t pages;
};

static int prealloc_step(void *ctx)
{
	const struct slice *s = ctx;

	if (s->run->attr.latency)
		return prealloc_slice_timed(s->run, s->st, s->i, s->addr,
					    s->pages);
	return prealloc_slice(s->st, s->addr, s->pages);
}

static int run_slice(struct faultgen_run *run, struct qp_state *st,
		     unsigned int i, char *addr, uint64_t pages)
{
	struct slice s = { run, st, i, addr, pages };
	struct fg_wstat *w = &run->sh->w[i];
	bool lat = run->attr.latency != 0;
	int lock_fds[FG_LOCK_EVENTS];
	struct fg_usage at;
	int ret;

	w->tid = fg_gettid();
	w->pid = getpid();
	w->cpu = -1;
	/* Its own threads, not worker.c's: the lock paths opened here. */
	fg_lock_worker_open(run, w, lock_fds);
	fg_wait_worker_open(run, i);
	if (lat)
		fg_lat_begin(run, i, false);
	fg_stat_begin(w, &at, false);
	/* A SIGBUS of its touches caught when asked (sigbus.c). */
	ret = fg_sigbus_guard(run, i, prealloc_step, &s);
	fg_stat_end(w, &at, false);
	fg_wait_worker_close(run, i);
	fg_lock_worker_close(w, lock_fds);
	if (lat)
		fg_lat_end(run, i, false);
	w->fault_ns = w->end_ns - w->start_ns;
	w->pages = pages;
	w->rounds = 1;
	w->error = ret;
	return ret;
}

/* What QEMU's qemu_thread_create hands its thread: freed by the thread. */
struct qp_start {
	struct qp_thread *t;
	char *name;
};

/* The warm-up thread, once it has freed its start arguments (which made
 * its malloc arena): says it runs, and waits until the preallocation is
 * over. */
static void *idle_main(struct qp_state *st)
{
	pthread_mutex_lock(&st->lock);
	st->warm_running = true;
	pthread_cond_broadcast(&st->cond);
	while (!st->warm_done)
		pthread_cond_wait(&st->cond, &st->lock);
	pthread_mutex_unlock(&st->lock);
	return NULL;
}

static void *qp_thread_main(void *arg)
{
	struct qp_start *start = arg;
	struct qp_thread *t = start->t;
	struct qp_state *st = t->st;

	/* A thread's first free sets up its malloc cache (and arena), as
	 * QEMU's threads do freeing their start arguments. */
	free(start->name);
	free(start);

	if (t->warm)
		return idle_main(st);
	pthread_mutex_lock(&st->lock);
	while (!st->go)
		pthread_cond_wait(&st->cond, &st->lock);
	pthread_mutex_unlock(&st->lock);
	run_slice(t->run, st, t->index, t->addr, t->pages);
	return NULL;
}

/*
 * The guest RAM as qemu_ram_mmap() maps it: run->base, with the guard
 * page after it in run->resv (released by fg_memory_release).
 */
static int map_ram(struct faultgen_run *run, size_t align)
{
	size_t page = (size_t)fg_pagesize(), size = run->base_len;
	size_t total = size + align, head, tail;
	char *raw, *at;
	int ret;

	raw = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		   0);
	if (raw == MAP_FAILED)
		return -errno;
	at = (char *)fg_round_up((uintptr_t)raw, align);
	ret = run->backing->map(run, size, at, false, 0, &run->base,
				&run->base_id);
	if (ret) {
		munmap(raw, total);
		return ret;
	}
	head = (size_t)(at - raw);
	if (head)
		munmap(raw, head);
	tail = total - head;
	if (tail > size + page)
		munmap(at + size + page, tail - size - page);
	/* fg_memory_release unmaps the RAM and its guard page. */
	run->resv.raw = at;
	run->resv.raw_len = size + page;
	return 0;
}

/* Bytes of the RAM mapped by huge pages, transparent or hugetlb. */
static int huge_bytes_of(const struct faultgen_run *run, uint64_t *bytes)
{
	static const char *const keys[] = {
		"AnonHugePages:", "ShmemPmdMapped:", "FilePmdMapped:",
		"Private_Hugetlb:", "Shared_Hugetlb:", NULL,
	};
	uint64_t kb;
	int ret = fg_smaps_sum(run->base, run->base_len, keys, &kb);

	*bytes = kb * 1024;
	return ret;
}

static void usage_self(uint64_t *minflt, uint64_t *majflt)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*minflt = (uint64_t)ru.ru_minflt;
	*majflt = (uint64_t)ru.ru_majflt;
}

static int start_thread(pthread_t *tid, const pthread_attr_t *pa,
			struct qp_thread *t);

/*
 * Runs once, before the count starts, every path the preallocation takes
 * but its faults: the library's code and its lazily bound calls would
 * otherwise fault their pages in the measured window, where QEMU's, run
 * long before, do not.  QEMU has started threads before (its RCU thread),
 * whose malloc arenas exist, and ended none: the warm thread is started,
 * with a small stack of its own so that glibc keeps no default-size stack
 * for the measured threads to reuse; the count starts only once it runs
 * and has its arena (its first faults and the arena list's first write
 * are not the preallocation's), and it ends only after the count
 * (warm_down).
 */
static void warm_up(struct faultgen_run *run, struct qp_state *st)
{
	uint64_t min, maj;
	pthread_attr_t pa;

	run_slice(run, st, 0, run->base, 0);
	madvise(run->base, 0, MADV_POPULATE_WRITE);
	usage_self(&min, &maj);
	pthread_mutex_lock(&st->lock);
	pthread_cond_broadcast(&st->cond);
	pthread_mutex_unlock(&st->lock);
	if (st->populate && st->threads == 1)
		return;
	/* Started as the measured threads are (start_thread), so that its
	 * calls are bound before the count. */
	st->warm_t = (struct qp_thread){ .run = run, .st = st, .warm = true };
	if (pthread_attr_init(&pa))
		return;
	if (pthread_attr_setstacksize(&pa, 64 * 1024) == 0 &&
	    start_thread(&st->warm_tid, &pa, &st->warm_t) == 0)
		st->warm_started = true;
	pthread_attr_destroy(&pa);
	if (!st->warm_started)
		return;
	pthread_mutex_lock(&st->lock);
	while (!st->warm_running)
		pthread_cond_wait(&st->cond, &st->lock);
	pthread_mutex_unlock(&st->lock);
}

static void warm_down(struct qp_state *st)
{
	if (!st->warm_started)
		return;
	pthread_mutex_lock(&st->lock);
	st->warm_done = true;
	pthread_cond_broadcast(&st->cond);
	pthread_mutex_unlock(&st->lock);
	pthread_join(st->warm_tid, NULL);
	st->warm_started = false;
}

/*
 * One thread as qemu_thread_create starts it: every signal but the
 * synchronous ones blocked while it is created (it inherits the mask),
 * its arguments and name in memory it frees.
 */
static int start_thread(pthread_t *tid, const pthread_attr_t *pa,
			struct qp_thread *t)
{
	struct qp_start *start = calloc(1, sizeof(*start));
	sigset_t set, old;
	int ret;

	if (!start)
		return -ENOMEM;
	start->t = t;
	start->name = strdup("touch_pages");
	if (!start->name) {
		free(start);
		return -ENOMEM;
	}
	sigfillset(&set);
	sigdelset(&set, SIGSEGV);
	sigdelset(&set, SIGFPE);
	sigdelset(&set, SIGILL);
	/* QEMU blocks SIGBUS too; a SIGBUS the caller asked to catch must
	 * reach the thread's handler (blocked, it would kill). */
	if (t->run->attr.catch_sigbus)
		sigdelset(&set, SIGBUS);
	pthread_sigmask(SIG_SETMASK, &set, &old);
	ret = -pthread_create(tid, pa, qp_thread_main, start);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		free(start->name);
		free(start);
	}
	return ret;
}

/* Creates the threads, opens the gate, joins them. */
static int run_threads(struct faultgen_run *run, struct qp_state *st,
		       uint64_t pages)
{
	struct qp_thread *t = NULL;
	pthread_t *tids = NULL;
	pthread_attr_t pa, *pap = NULL;
	int ret = 0;

	if (st->threads == 0) /* fg_qemu_threads gives one at least */
		return -EINVAL;
	t = calloc(st->threads, sizeof(*t));
	tids = calloc(st->threads, sizeof(*tids));
	if (!t || !tids) {
		free(t);
		free(tids);
		return -ENOMEM;
	}
	/* Placed on the run's CPUs where it names some, as by a
	 * prealloc-context's cpu-affinity; else, as QEMU's without one, they
	 * inherit the caller's affinity (the run's CPUs then) and are
	 * created with no attributes: glibc's default stack, and no
	 * affinity set by pthread_create, whose path faults pages of its
	 * own. */
	if (run->cpus.bits && (run->attr.cpulist || run->attr.cpuset) &&
	    pthread_attr_init(&pa) == 0) {
		pap = &pa;
		pthread_attr_setaffinity_np(pap, CPU_ALLOC_SIZE(run->cpus.nbits),
					    (cpu_set_t *)run->cpus.bits);
	}
	for (unsigned int i = 0; i < st->threads; i++) {
		uint64_t first, count;

		fg_qemu_slice(pages, st->threads, i, &first, &count);
		t[i] = (struct qp_thread){ run, st, i,
					   run->base + first * st->step,
					   count, false };
		ret = start_thread(&tids[i], pap, &t[i]);
		if (ret)
			break;
		st->started++;
	}
	pthread_mutex_lock(&st->lock);
	st->go = true;
	pthread_cond_broadcast(&st->cond);
	pthread_mutex_unlock(&st->lock);
	for (unsigned int i = 0; i < st->started; i++) {
		pthread_join(tids[i], NULL);
		if (!ret && run->sh->w[i].error)
			ret = run->sh->w[i].error;
	}
	if (pap)
		pthread_attr_destroy(pap);
	free(t);
	free(tids);
	return ret;
}

/* The first thread that failed, for faultgen_run_failure. */
static void note_failure(struct faultgen_run *run, const struct qp_state *st)
{
	for (unsigned int i = 0; i < st->threads; i++) {
		const struct fg_wstat *w = &run->sh->w[i];

		if (w->error) {
			run->fail_worker = (int)i;
			run->fail_error = w->error;
			run->fail_signo = w->signo;
			return;
		}
	}
}

/* What the result says beyond the workers' sums. */
static void fold(struct faultgen_run *run, struct qp_state *st)
{
	struct faultgen_result *r = &run->result;
	uint64_t small;

	/* The probe faulted thread 0's first page, from the caller. */
	run->sh->w[0].use.minflt += st->probe_minflt;
	run->sh->w[0].use.majflt += st->probe_majflt;
	fg_measure_fold(run);
	r->pagesize = (unsigned int)st->step;
	r->pages = run->base_len / st->step;
	r->pages_per_round = r->pages;
	/* Populate takes one fault per page mapped, a huge page one; a
	 * touch may take two (a read maps the zero page, the write copies
	 * it), so it has no expectation. */
	if (st->populate && st->huge_known && st->step == (uint64_t)fg_pagesize()) {
		small = (run->base_len - st->huge_bytes) / st->step;
		r->expected_faults = small + st->huge_bytes / (2 * MIB);
	} else if (st->populate) {
		r->expected_faults = r->pages;
	} else {
		r->expected_faults = r->minflt;
	}
	r->faults_agree = fg_faults_agree(r->expected_faults, r->minflt,
					  r->workers);
	fg_measure_rates(r);
}

/* The guest RAM mapped as QEMU maps it, with QEMU's advice and the
 * run's NUMA policy. */
static int qemu_map(struct faultgen_run *run, struct qp_state *st)
{
	const struct faultgen_attr *a = &run->attr;
	size_t align;
	int ret;

	run->base_len = (size_t)a->size;
	run->slice_len = run->base_len;
	run->slice_pages = run->base_len / (size_t)run->pagesize;
	run->waddr = calloc(a->nr_workers, sizeof(*run->waddr));
	run->wlen = calloc(a->nr_workers, sizeof(*run->wlen));
	run->wid = calloc(a->nr_workers, sizeof(*run->wid));
	if (!run->waddr || !run->wlen || !run->wid)
		return -ENOMEM;
	run->file_len = run->base_len;
	ret = run->backing->prepare ? run->backing->prepare(run) : 0;
	if (ret)
		return ret;
	/* QEMU steps by the page size of the backend's file: the huge page
	 * size on hugetlbfs (fg_backing_pagesize, as qemu_fd_getpagesize). */
	st->step = (uint64_t)run->pagesize;
	if (run->base_len % st->step)
		return -EINVAL;
	/* A file's mapping is aligned to its page size, anonymous RAM (and
	 * MAP_HUGETLB memory) to QEMU_VMALLOC_ALIGN. */
	align = run->backing_fd >= 0 ? (size_t)st->step : QEMU_ANON_ALIGN;
	if (align < st->step)
		align = (size_t)st->step;
	ret = map_ram(run, align);
	if (ret)
		return ret;
	run->base_owned = true;
	if (madvise(run->base, run->base_len, MADV_HUGEPAGE) < 0 && errno != EINVAL)
		return -errno;
	madvise(run->base, run->base_len, MADV_DONTFORK);
	madvise(run->base, run->base_len, MADV_MERGEABLE);
	return fg_numa_policy(run, run->base, run->base_len);
}

/* QEMU's count of threads and each one's slice, before the measurement. */
static void qemu_slices(struct faultgen_run *run, struct qp_state *st,
			uint64_t pages)
{
	uint64_t first, count;

	st->threads = fg_qemu_threads(sysconf(_SC_NPROCESSORS_ONLN),
				      run->attr.nr_workers, pages, st->step);
	/* The figures of threads QEMU would not start stay empty: the run
	 * has QEMU's count of workers. */
	run->attr.nr_workers = st->threads;
	/* With latency, a populating thread's one call covers its slice
	 * (the first slices are the longest). */
	fg_qemu_slice(pages, st->threads, 0, &first, &count);
	run->lat_call_bytes = count * st->step;
	/* Whether the probe will populate, for the warm-up's choice. */
	st->populate = run->attr.qemu != FAULTGEN_QEMU_TOUCH;
	warm_up(run, st);
	for (unsigned int i = 0; i < st->threads; i++) {
		fg_qemu_slice(pages, st->threads, i, &first, &count);
		run->waddr[i] = run->base + first * st->step;
		run->wlen[i] = (size_t)(count * st->step);
		run->wid[i] = -1;
		/* Written now, so that no worker's first write to its
		 * figures faults during the measurement. */
		memset(&run->sh->w[i], 0, sizeof(run->sh->w[i]));
	}
}

/* The measured preallocation: QEMU's probe of MADV_POPULATE_WRITE on the
 * first page, then its threads (or the one caller) over their slices. */
static int qemu_prealloc(struct faultgen_run *run, struct qp_state *st,
			 uint64_t pages)
{
	uint64_t min0, maj0, min1, maj1;
	struct fg_usage u0, u1;
	int64_t t0;
	int ret;

	/* The caller faults too (the probe's page; the whole RAM where it
	 * alone populates): on the run's CPUs, as a worker is. */
	ret = fg_caller_place(run, -1);
	if (ret) {
		fg_caller_restore(run);
		return ret;
	}
	usage_self(&min0, &maj0);
	t0 = fg_now_ns();
	fg_usage_now(&u0, false, -1);
	st->populate = run->attr.qemu != FAULTGEN_QEMU_TOUCH &&
		       (madvise(run->base, st->step, MADV_POPULATE_WRITE) == 0 ||
			errno != EINVAL);
	fg_usage_now(&u1, false, -1);
	st->probe_minflt = u1.minflt - u0.minflt;
	st->probe_majflt = u1.majflt - u0.majflt;
	if (!st->populate)
		run->lat_call_bytes = 0; /* touches, not calls */
	if (st->populate && st->threads == 1)
		ret = run_slice(run, st, 0, run->base, pages);
	else
		ret = run_threads(run, st, pages);
	st->prealloc_ns = fg_now_ns() - t0;
	usage_self(&min1, &maj1);
	st->process_minflt = min1 - min0;
	st->process_majflt = maj1 - maj0;
	fg_caller_restore(run);
	return ret;
}

static int qemu_exec(struct faultgen_run *run)
{
	struct qp_state *st = fg_pattern_state(run);
	uint64_t pages;
	int ret;

	st->active = true;
	pthread_mutex_init(&st->lock, NULL);
	pthread_cond_init(&st->cond, NULL);
	ret = qemu_map(run, st);
	if (ret)
		return ret;
	pages = run->base_len / st->step;
	qemu_slices(run, st, pages);
	if (fg_cancel_requested(run->sh))
		return -ECANCELED;
	ret = qemu_prealloc(run, st, pages);
	warm_down(st);
	if (ret) {
		note_failure(run, st);
		return ret;
	}
	st->huge_known = huge_bytes_of(run, &st->huge_bytes) == 0;
	fold(run, st);
	return 0;
}

static void qemu_release(struct faultgen_run *run)
{
	struct qp_state *st = fg_pattern_state(run);

	fg_memory_release(run);
	if (st && st->active) {
		warm_down(st);
		pthread_mutex_destroy(&st->lock);
		pthread_cond_destroy(&st->cond);
		st->active = false;
	}
}

/* QEMU's RAM is whole pages of its backing; the rest of what the pattern
 * refuses is data (caps). */
static int qemu_check(const struct faultgen_attr *a,
		      struct faultgen_conflict *c)
{
	if (a->size % fg_backing_pagesize(a))
		return fg_conflict(c, FAULTGEN_SETTING_SIZE,
				   FAULTGEN_SETTING_PATTERN,
				   "QEMU's RAM is whole pages of its backing "
				   "(4 KiB, 2 MiB for huge pages)");
	return 0;
}

static int qemu_figure(const struct faultgen_run *run, unsigned int index,
		       struct faultgen_figure *f)
{
	const struct qp_state *st = fg_pattern_state(run);
	const struct fg_figure_row figs[] = {
		{ "threads", st ? st->threads : 0, "threads" },
		{ "threads_started", st ? st->started : 0, "threads" },
		{ "populate", st && st->populate ? 1 : 0, "bool" },
		{ "step_bytes", st ? (double)st->step : 0, "bytes" },
		{ "probe_faults",
		  st ? (double)(st->probe_minflt + st->probe_majflt) : 0,
		  "faults" },
		{ "process_faults", st ? (double)st->process_minflt : 0,
		  "faults" },
		{ "process_major_faults", st ? (double)st->process_majflt : 0,
		  "faults" },
		{ "prealloc_s", st ? (double)st->prealloc_ns / 1e9 : 0, "s" },
		{ "huge_page_bytes", st ? (double)st->huge_bytes : 0, "bytes" },
	};
	/* Without smaps, no huge page bytes to give. */
	unsigned int n = sizeof(figs) / sizeof(figs[0]) -
			 (st && st->huge_known ? 0 : 1);

	if (!st)
		return -ERANGE;
	return fg_figure_pick(figs, n, index, f);
}

/* QEMU's one populate call per thread, over its slice; its touch loop
 * times pages. */
static const char *qemu_timed_call(const struct faultgen_run *run,
				   uint64_t *bytes)
{
	*bytes = run->lat_call_bytes;
	return run->lat_call_bytes ? "MADV_POPULATE_WRITE" : NULL;
}

static const char *const qemu_hows[] = { "auto", "touch", NULL };

static const struct fg_setting qemu_settings[] = {
	{ .name = "qemu", .id = FAULTGEN_SETTING_QEMU,
	  .type = FAULTGEN_TYPE_KEYWORD, .keywords = qemu_hows,
	  .offset = FG_AT(qemu), .def_text = "auto", .value_name = "HOW",
	  .help = "auto (default: MADV_POPULATE_WRITE where the\n"
		  "kernel has it, as QEMU 7.0+), touch (every page)" },
};

const struct fg_pattern fg_qemu_prealloc_pattern = {
	.name = "qemu-prealloc",
	.title = "QEMU's guest-RAM preallocation",
	.timed_call = qemu_timed_call,
	.note = "-t: its\nprealloc-threads; --backing=anon, memfd, file:PATH "
		"or hugetlb, --share\nas QEMU's share=on",
	/* QEMU's backends: anonymous RAM (memory-backend-ram,
	 * share=on|off), a memfd (memory-backend-memfd), a file
	 * (memory-backend-file, mem-path: a directory gets a file of the
	 * run's own, unlinked at once, as QEMU does) or huge pages
	 * (memory-backend-memfd,hugetlb=on; a file on hugetlbfs), mapped by
	 * the run; threads of the calling process, once. */
	.caps = {
		.processes_why = "QEMU preallocates with threads of its "
				 "process",
		.repeat_why = "QEMU preallocates once",
		.backings = FG_BACKING(FAULTGEN_BACKING_ANON) |
			    FG_BACKING(FAULTGEN_BACKING_MEMFD) |
			    FG_BACKING(FAULTGEN_BACKING_FILE) |
			    FG_BACKING(FAULTGEN_BACKING_HUGETLB),
		.backings_why = "QEMU's backends are anonymous RAM, a memfd, "
				"a file or huge pages",
		.region_why = "qemu-prealloc maps the guest RAM as QEMU does",
		.numa_why = "QEMU binds a backend's memory, not a thread's "
			    "slice",
		.node_pages_why = "qemu-prealloc counts no pages per node",
	},
	.settings = qemu_settings,
	.nr_settings = 1,
	.reads = (FG_SETTING(FAULTGEN_SETTING_PATTERN) |
		  FG_SETTING(FAULTGEN_SETTING_SIZE) |
		  FG_SETTING(FAULTGEN_SETTING_WORKERS) |
		  FG_SETTING(FAULTGEN_SETTING_BACKING) |
		  FG_SETTING(FAULTGEN_SETTING_SHARE) |
		  FG_SETTING(FAULTGEN_SETTING_NUMA) |
		  FG_SETTING(FAULTGEN_SETTING_CPUS) |
		  FG_SETTING(FAULTGEN_SETTING_CPUSET) |
		  FG_SETTING(FAULTGEN_SETTING_OVERSUBSCRIBE) |
		  FG_SETTING(FAULTGEN_SETTING_LATENCY)),
	.state_size = sizeof(struct qp_state),
	.check = qemu_check,
	.exec = qemu_exec,
	.release = qemu_release,
	.unbound_workers = true,
	.figure = qemu_figure,
};
