// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cow.c - copy-on-write after fork (FAULTGEN_COW_FORK): the shape of
 * Redis's BGSAVE, or of an app that forks at run time.  The run fills
 * its mapping, forks a child that holds the snapshot (by default it
 * only waits), then the workers write every page of their slices: each
 * write is a copy-on-write fault, a page copied while the child still
 * maps the old one.  The child is released once the writes are through.
 *
 * In rounds (set_rounds, set_duration) each round forks a fresh child:
 * the pages the last round copied are the parent's alone, and the fork
 * shares them again, so that every write of every round is a copy.  With
 * threads one child per round holds the whole mapping; it is forked by a
 * helper thread while the workers wait between two rounds.  A forked
 * worker has a memory of its own: it forks its own child each round.
 * The forks are timed apart and never inside a round's span, which is
 * what the rates are over.
 *
 * The child may read or write the pages too (set_cow_child): told through
 * its socket when the round opens (with threads the pattern's state is
 * memory the child no longer shares), it touches once what its parent's
 * workers write, beside them, and is then waited for, not killed, so
 * that its own faults (wait4's rusage) are whole.
 *
 * A child is forked from a process that may have many threads: it only
 * makes system calls and touches the region until _exit.  It dies with
 * the thread that forked it (PR_SET_PDEATHSIG), so a run killed outright
 * leaves no orphan, and its parent reaps it (its own pid only, never
 * waitpid(-1)), killing it first unless it is ending a pass.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* How long a wait between rounds sleeps before it looks for a cancel:
 * fg_gates_abort wakes the gates, not these words. */
#define ROUND_WAIT_NS (20 * 1000 * 1000)
/* /proc/self/pagemap: the page is mapped by this process alone. */
#define PM_EXCLUSIVE (1ULL << 56)
#define PM_PRESENT (1ULL << 63)

/* A snapshot's holder, seen from the thread that forked it. */
struct holder {
	pid_t pid; /* or 0 */
	int fd;    /* its socket's end: closing it lets it go; or -1 */
};

/* What a holder touches once its round opens (set_cow_child). */
struct holder_pass {
	enum faultgen_cow_child how;
	char *addr;
	size_t len;
	size_t ps;
};

/*
 * Shared with forked workers (the pattern's state).  The counters are
 * over the whole run, so that no word is ever reset: round r (from 0)
 * runs once opened > r, and has ended once ended > r.
 */
struct cow_state {
	struct holder held; /* threads: the helper's child */
	bool active;        /* exec set the fields up */
	_Atomic uint32_t opened;
	_Atomic uint32_t ready;   /* forked workers at a round's start */
	_Atomic uint32_t arrived; /* workers through a round's writes */
	_Atomic uint32_t ended;
	_Atomic uint32_t stop;    /* no round after the last ended */
	_Atomic int64_t first_ns; /* the first round's start */
	_Atomic int64_t open_ns;  /* the current round's start */
	_Atomic int64_t span_ns;  /* the ended rounds' spans, summed */
	_Atomic int64_t fork_ns;  /* every fork call, summed */
	_Atomic uint64_t forks;
	_Atomic uint64_t copied;  /* pages mapped alone after the writes */
	_Atomic uint32_t copied_unknown; /* pagemap could not be read */
	_Atomic uint64_t child_faults;   /* the holders' own, reaped */
};

/* A holder's pass: one byte of every page read or written. */
FG_NO_ASAN static void holder_touch(const struct holder_pass *p)
{
	for (size_t o = 0; o < p->len; o += p->ps) {
		volatile char *b = p->addr + o;

		if (p->how == FAULTGEN_COW_CHILD_WRITES)
			*b = 3;
		else
			(void)*b;
	}
}

static ssize_t read_byte(int fd)
{
	ssize_t got;
	char c;

	while ((got = read(fd, &c, 1)) < 0 && errno == EINTR)
		;
	return got;
}

/*
 * The holder: with a pass, waits for the round's byte and makes it, then
 * for the byte that lets it go (or its socket's end); without one, waits
 * until it is killed or its socket ends.  A byte, not only the socket's
 * end: a process the caller forks meanwhile holds a copy of the socket,
 * and would keep it open.
 */
static void holder_main(int fd, pid_t parent, const struct holder_pass *p)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	if (p->how != FAULTGEN_COW_CHILD_WAITS) {
		if (read_byte(fd) == 1)
			holder_touch(p);
		(void)read_byte(fd);
		_exit(0);
	}
	while (read_byte(fd) > 0)
		;
	_exit(0);
}

/* Forks a holder of this process's memory, its fork call timed. */
static int fork_holder(struct cow_state *st, struct holder *h,
		       const struct holder_pass *p)
{
	pid_t parent = getpid(), pid;
	int64_t t0, t1;
	int fd[2];

	/* A socket, not a pipe: a byte sent to a holder already gone is
	 * EPIPE (MSG_NOSIGNAL), never SIGPIPE in the caller. */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fd) < 0)
		return errno == ENOMEM || errno == ENOBUFS ? -ENOMEM : -EAGAIN;
	t0 = fg_now_ns();
	pid = fork();
	if (pid == 0) {
		close(fd[1]);
		holder_main(fd[0], parent, p);
	}
	t1 = fg_now_ns();
	close(fd[0]);
	if (pid < 0) {
		int err = errno == ENOMEM ? -ENOMEM : -EAGAIN;

		close(fd[1]);
		return err;
	}
	atomic_fetch_add(&st->fork_ns, t1 - t0);
	atomic_fetch_add(&st->forks, 1);
	h->pid = pid;
	h->fd = fd[1];
	return 0;
}

/* The round has opened: a holder with a pass makes it now. */
static void start_holder(const struct faultgen_run *run,
			 const struct holder *h)
{
	if (run->attr.cow_child != FAULTGEN_COW_CHILD_WAITS && h->fd >= 0)
		(void)send(h->fd, "", 1, MSG_NOSIGNAL);
}

/*
 * Lets a holder go and reaps it.  After a whole round a holder with a
 * pass is sent the byte that lets it go and waited for (it ends its pass
 * and exits), so that its faults are all counted; otherwise, or on a
 * cancel, killed.
 */
static void release_holder(const struct faultgen_run *run,
			   struct cow_state *st, struct holder *h, bool whole)
{
	bool pass = run->attr.cow_child != FAULTGEN_COW_CHILD_WAITS;
	struct rusage ru;
	int status;
	pid_t got;

	if (h->fd >= 0) {
		if (pass && whole)
			(void)send(h->fd, "", 1, MSG_NOSIGNAL);
		close(h->fd);
		h->fd = -1;
	}
	if (h->pid > 0) {
		if (!pass || !whole)
			kill(h->pid, SIGKILL);
		while ((got = wait4(h->pid, &status, 0, &ru)) < 0 &&
		       errno == EINTR)
			;
		if (got == h->pid && pass && whole)
			atomic_fetch_add(&st->child_faults,
					 (uint64_t)(ru.ru_minflt +
						    ru.ru_majflt));
		h->pid = 0;
	}
}

/* What the holder of worker i (-1: of every worker) touches. */
static void holder_pass_of(const struct faultgen_run *run, int i,
			   struct holder_pass *p)
{
	unsigned int n = run->attr.nr_workers;
	char *lo = NULL, *hi = NULL;

	p->how = run->attr.cow_child;
	p->ps = (size_t)run->pagesize;
	for (unsigned int w = 0; w < n; w++) {
		if (i >= 0 && w != (unsigned int)i)
			continue;
		if (!lo || run->waddr[w] < lo)
			lo = run->waddr[w];
		if (!hi || run->waddr[w] + run->wlen[w] > hi)
			hi = run->waddr[w] + run->wlen[w];
	}
	p->addr = lo;
	p->len = lo ? (size_t)(hi - lo) : 0;
}

/* Every page written once, before the first fork: the snapshot's
 * content. */
FG_NO_ASAN static void fill(char *addr, size_t len, size_t ps)
{
	for (size_t o = 0; o < len; o += ps)
		*(volatile char *)(addr + o) = 1;
}

FG_NO_ASAN static int write_slice(const struct faultgen_run *run, char *addr,
				  size_t len)
{
	size_t ps = (size_t)run->pagesize, cl = run->cacheline;
	unsigned int lines = run->attr.cachelines;

	for (size_t pg = 0; pg < len / ps; pg++) {
		volatile char *p = addr + pg * ps;

		for (unsigned int c = 0; c < lines; c++)
			p[c * cl] = 2;
		if (fg_cancel_at(run->sh, pg))
			return -ECANCELED;
	}
	return 0;
}

/* latency.c's way to the untimed touch; its page loop times the writes
 * itself (cow_exec made the run's touch a write). */
static int untimed_write(const struct faultgen_run *run, char *addr,
			 size_t len, const struct fg_shared *sh)
{
	(void)sh;
	return write_slice(run, addr, len);
}

/*
 * The pages of [addr, addr + len) this process maps alone (pagemap's
 * exclusive bit, no privilege needed): after the writes, with the holder
 * still mapping the old ones, each is a copy.  -1 where pagemap cannot
 * be read.  System calls only: forked workers call it.
 */
static int64_t count_copied(const struct faultgen_run *run, char *addr,
			    size_t len)
{
	size_t ps = (size_t)run->pagesize, n = len / ps;
	uint64_t buf[512];
	int64_t copied = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	for (size_t done = 0; done < n;) {
		size_t k = n - done < 512 ? n - done : 512;
		off_t off = (off_t)(((uintptr_t)addr / ps + done) * 8);
		ssize_t got = pread(fd, buf, k * 8, off);

		if (got != (ssize_t)(k * 8)) {
			close(fd);
			return -1;
		}
		for (size_t j = 0; j < k; j++)
			copied += (buf[j] & PM_PRESENT) &&
				  (buf[j] & PM_EXCLUSIVE);
		done += k;
	}
	close(fd);
	return copied;
}

/*
 * Waits until *word > after, or the run is cancelled (-ECANCELED).  A
 * helper also stops when every worker is through.
 */
static int wait_past(const struct faultgen_run *run, _Atomic uint32_t *word,
		     uint32_t after, bool helper)
{
	uint32_t seen;

	while ((seen = atomic_load(word)) <= after) {
		if (helper ? fg_helpers_stop(run) :
			     fg_cancel_requested(run->sh))
			return -ECANCELED;
		fg_futex_wait(word, seen, ROUND_WAIT_NS);
	}
	return 0;
}

static void open_round(struct cow_state *st, uint32_t r)
{
	int64_t now = fg_now_ns();

	if (r == 0)
		atomic_store(&st->first_ns, now);
	atomic_store(&st->open_ns, now);
	atomic_store(&st->opened, r + 1);
	fg_futex_wake(&st->opened);
}

/* Whether a round follows round r: the rounds asked for, or time left. */
static bool round_follows(const struct faultgen_run *run,
			  const struct cow_state *st, uint32_t r)
{
	const struct faultgen_attr *a = &run->attr;

	if (a->rounds)
		return r + 1 < a->rounds;
	if (a->duration > 0)
		return fg_now_ns() < atomic_load(&st->first_ns) +
					     (int64_t)(a->duration * 1e9);
	return false;
}

/* By the last worker through round r's writes: its span, and whether
 * another round follows. */
static void end_round(const struct faultgen_run *run, struct cow_state *st,
		      uint32_t r)
{
	atomic_fetch_add(&st->span_ns,
			 fg_now_ns() - atomic_load(&st->open_ns));
	if (!round_follows(run, st, r))
		atomic_store(&st->stop, 1);
	atomic_store(&st->ended, r + 1);
	fg_futex_wake(&st->ended);
}

/*
 * Worker i's writes of one round, measured alone: its figures add up
 * over the rounds, so that neither a fork nor the waits between rounds
 * are in them.
 */
static int write_round(struct faultgen_run *run, unsigned int i)
{
	struct fg_wstat *w = &run->sh->w[i];
	bool process = fg_counts_process(run, i);
	struct fg_usage at, now, d;
	int64_t t0, t1;
	int ret;

	fg_usage_now(&at, process, fg_wstat_lock_fd(w));
	t0 = fg_now_ns();
	if (run->lat)
		ret = fg_lat_touch(run, i, run->waddr[i], run->wlen[i], run->sh,
				   untimed_write);
	else
		ret = write_slice(run, run->waddr[i], run->wlen[i]);
	t1 = fg_now_ns();
	fg_usage_now(&now, process, fg_wstat_lock_fd(w));
	if (ret)
		return ret;
	fg_usage_sub(&d, &now, &at);
	fg_usage_add(&w->use, &d);
	if (!w->rounds)
		w->start_ns = t0;
	w->end_ns = t1;
	w->last_cpu = sched_getcpu();
	w->fault_ns += t1 - t0;
	if (run->round_ns && w->rounds < FG_ROUND_SAMPLES)
		run->round_ns[(size_t)i * FG_ROUND_SAMPLES + w->rounds] =
			t1 - t0;
	w->rounds++;
	w->pages += run->wlen[i] / (size_t)run->pagesize;
	return 0;
}

/* After worker i's writes, its holder still there: its copies. */
static void note_copied(struct faultgen_run *run, struct cow_state *st,
			unsigned int i)
{
	int64_t n = count_copied(run, run->waddr[i], run->wlen[i]);

	if (n < 0)
		atomic_store(&st->copied_unknown, 1);
	else
		atomic_fetch_add(&st->copied, (uint64_t)n);
}

/* Through round r's writes; the last worker ends the round. */
static void arrive(struct faultgen_run *run, struct cow_state *st,
		   uint32_t r)
{
	unsigned int n = run->attr.nr_workers;

	if (atomic_fetch_add(&st->arrived, 1) + 1 == n * (r + 1))
		end_round(run, st, r);
}

/*
 * Worker i's rounds.  A worker thread shares the helper's holder: the
 * helper forks one each round and opens the round.  A forked worker
 * (own) forks its own holder each round before it is ready, and
 * releases it once its own writes are counted; the last one ready opens
 * the round.
 */
static int worker_rounds(struct faultgen_run *run, unsigned int i, bool own)
{
	struct cow_state *st = fg_pattern_state(run);
	unsigned int n = run->attr.nr_workers;
	struct holder h = { .pid = 0, .fd = -1 };
	/* A holder's pass is waited for outside the round's span; a holder
	 * that waits is killed inside it, as it always was. */
	bool arrive_first = !own ||
			    run->attr.cow_child != FAULTGEN_COW_CHILD_WAITS;
	struct holder_pass p;
	int ret;

	if (own)
		holder_pass_of(run, (int)i, &p);
	for (uint32_t r = 0;; r++) {
		if (own) {
			ret = fork_holder(st, &h, &p);
			if (ret)
				return ret;
			if (atomic_fetch_add(&st->ready, 1) + 1 == n * (r + 1))
				open_round(st, r);
		}
		ret = wait_past(run, &st->opened, r, false);
		if (!ret) {
			if (own)
				start_holder(run, &h);
			ret = write_round(run, i);
		}
		if (!ret)
			note_copied(run, st, i);
		if (!ret && arrive_first)
			arrive(run, st, r);
		if (own)
			release_holder(run, st, &h, !ret);
		if (ret)
			return ret;
		if (!arrive_first)
			arrive(run, st, r);
		ret = wait_past(run, &st->ended, r, false);
		if (ret)
			return ret;
		if (atomic_load(&st->stop))
			return 0;
	}
}

/*
 * With latency (set_latency) the writes are timed into the worker's
 * histogram over all its rounds; the scheduler's counts are over the
 * rounds and the waits between them.
 */
static int cow_body(struct faultgen_run *run, unsigned int i)
{
	bool process = fg_counts_process(run, i);
	int ret;

	if (run->lat)
		fg_lat_begin(run, i, process);
	/* Worker 0 in the calling thread of a processes run has the
	 * calling process's memory: a child of its own too. */
	ret = worker_rounds(run, i, run->attr.kind == FAULTGEN_PROCESSES);
	if (run->lat)
		fg_lat_end(run, i, process);
	return ret;
}

static unsigned int one_helper(const struct faultgen_run *run)
{
	(void)run;
	return 1;
}

/*
 * The helper of a threads run: forks the holder of each round and opens
 * it, then, once the round has ended, releases it.  A forked worker's
 * holder has the worker's mask.
 */
static int forker(struct faultgen_run *run, unsigned int h)
{
	struct cow_state *st = fg_pattern_state(run);
	struct holder_pass p;
	int ret = 0;

	(void)h;
	holder_pass_of(run, -1, &p);
	/* Its holders inherit its mask: one that reads or writes the pages
	 * beside the workers does so on the run's CPUs, as they do. */
	if (sched_setaffinity(0, run->cpuset_size, run->cpuset_buf) < 0)
		ret = -errno;
	for (uint32_t r = 0; !ret; r++) {
		ret = fork_holder(st, &st->held, &p);
		if (ret)
			break;
		open_round(st, r);
		start_holder(run, &st->held);
		ret = wait_past(run, &st->ended, r, true);
		release_holder(run, st, &st->held, !ret);
		if (ret || atomic_load(&st->stop))
			break;
	}
	/* Workers waiting for a round that will not open. */
	atomic_store(&st->stop, 1);
	fg_futex_wake(&st->opened);
	return ret;
}

/*
 * The rates are over the rounds' spans, from a round's opening to the
 * last worker through it: the forks between rounds are not in them.  A
 * round a cancel cut short counts up to the last worker that finished
 * it, as its writes count.
 */
static void cow_fold(struct faultgen_run *run)
{
	struct cow_state *st = fg_pattern_state(run);
	int64_t span = atomic_load(&st->span_ns);
	int64_t open = atomic_load(&st->open_ns), last = 0;

	if (atomic_load(&st->opened) > atomic_load(&st->ended)) {
		for (unsigned int i = 0; i < run->attr.nr_workers; i++)
			if (run->sh->w[i].end_ns > last)
				last = run->sh->w[i].end_ns;
		if (last > open)
			span += last - open;
	}
	fg_measure_fold(run);
	if (span > 0) {
		run->result.elapsed_s = (double)span / 1e9;
		fg_measure_rates(&run->result);
	}
}

static int cow_exec(struct faultgen_run *run)
{
	struct cow_state *st = fg_pattern_state(run);
	struct fg_work work = { .body = cow_body, .barrier = true };
	int ret;

	st->active = true;
	st->held.fd = -1;
	/* Each write a copy: the timed loop (latency.c) writes too, whatever
	 * touch the attr has (cow-fork does not read it). */
	run->attr.touch = FAULTGEN_TOUCH_WRITE;
	ret = fg_memory_setup(run);
	if (ret)
		return ret;
	fill(run->base, run->base_len, (size_t)run->pagesize);
	/* Nothing buffered in the caller's stdio is ours to flush: the
	 * children never write it, they only wait, touch and _exit. */
	if (run->attr.kind == FAULTGEN_THREADS) {
		work.helpers = one_helper;
		work.helper = forker;
	}
	ret = fg_workers_run(run, &work);
	if (!ret || ret == -ECANCELED)
		cow_fold(run);
	release_holder(run, st, &st->held, false);
	return ret;
}

static void cow_release(struct faultgen_run *run)
{
	struct cow_state *st = fg_pattern_state(run);

	if (st && st->active)
		release_holder(run, st, &st->held, false);
	fg_memory_release(run);
}

static int cow_figure(const struct faultgen_run *run, unsigned int index,
		      struct faultgen_figure *f)
{
	const struct cow_state *st = fg_pattern_state(run);
	const struct faultgen_result *r = &run->result;
	struct fg_figure_row figs[6] = {
		{ "cow_faults_per_wall_s", r->faults_per_wall_s, "faults/s" },
		{ "cow_faults_per_cpu_s", r->faults_per_cpu_s, "faults/s" },
		{ "fork_s", st ? (double)st->fork_ns / 1e9 : 0, "s" },
		{ "forks", st ? (double)st->forks : 0, "forks" },
	};
	unsigned int n = 4;

	if (!st)
		return -ERANGE;
	/* Without pagemap, no copied pages to give. */
	if (!st->copied_unknown)
		figs[n++] = (struct fg_figure_row){ "pages_copied",
						    (double)st->copied,
						    "pages" };
	if (run->attr.cow_child != FAULTGEN_COW_CHILD_WAITS)
		figs[n++] = (struct fg_figure_row){ "child_faults",
						    (double)st->child_faults,
						    "faults" };
	return fg_figure_pick(figs, n, index, f);
}

static const char *const cow_childs[] = { "waits", "reads", "writes",
					  NULL };

static const struct fg_setting cow_settings[] = {
	{ .name = "cow-child", .id = FAULTGEN_SETTING_COW_CHILD,
	  .type = FAULTGEN_TYPE_KEYWORD, .keywords = cow_childs,
	  .offset = FG_AT(cow_child), .def_text = "waits", .value_name = "HOW",
	  .help = "what each round's child does beside the writes:\n"
		  "waits (default), reads or writes every page once" },
};

const struct fg_pattern fg_cow_fork_pattern = {
	.name = "cow-fork",
	.title = "Copy-on-write after fork",
	/* The snapshot is of private anonymous memory the run maps and
	 * fills (a caller's region would be overwritten). */
	.caps = {
		.backings = FG_BACKING(FAULTGEN_BACKING_ANON),
		.backings_why = "copy-on-write after fork is of private "
				"anonymous memory",
		.share_why = "a shared mapping is not copied on write",
		.region_why = "cow-fork fills its memory before the fork: a "
			      "caller's region would be overwritten",
		.numa_why = "the pages are placed when the run fills them, "
			    "before the workers",
		.node_pages_why = "cow-fork counts no pages per node",
	},
	.settings = cow_settings,
	.nr_settings = 1,
	.reads = FG_READS_COMMON | FG_SETTING(FAULTGEN_SETTING_CACHELINES) |
		 FG_SETTING(FAULTGEN_SETTING_THP) |
		 FG_SETTING(FAULTGEN_SETTING_LATENCY),
	.state_size = sizeof(struct cow_state),
	.exec = cow_exec,
	.slices = true,
	.held_twice = true,
	.release = cow_release,
	.figure = cow_figure,
};
