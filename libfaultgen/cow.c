// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cow.c - copy-on-write after fork (FAULTGEN_COW_FORK): the shape of
 * Redis's BGSAVE, or of an app that forks at run time.  The run fills
 * its mapping, forks a child that holds the snapshot (it only waits),
 * then the workers write every page of their slices: each write is a
 * copy-on-write fault, a page copied while the child still maps the old
 * one.  The child is released once the workers are through.
 *
 * The child is forked from a process that may have many threads: it only
 * makes system calls until _exit.  It dies with the thread that forked
 * it (PR_SET_PDEATHSIG), so a run killed outright leaves no orphan, and
 * release kills and reaps it (its own pid only, never waitpid(-1)).
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* How often the write loop looks for a cancel, in pages. */
#define CANCEL_EVERY 1024
/* /proc/self/pagemap: the page is mapped by this process alone. */
#define PM_EXCLUSIVE (1ULL << 56)
#define PM_PRESENT (1ULL << 63)

struct cow_state {
	pid_t child;     /* the snapshot's holder, or 0 */
	int child_fd;    /* its pipe's write end: closing it lets it go */
	bool active;     /* exec set the fields up */
	int64_t fork_ns; /* the fork call in the parent */
	uint64_t copied; /* pages mapped by this process alone afterwards */
	bool copied_known;
};

/* The holder: waits until its pipe closes or it is killed. */
static void holder_main(int fd, pid_t parent)
{
	char c;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	while (read(fd, &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

static int fork_holder(struct cow_state *st)
{
	pid_t parent = getpid(), pid;
	int64_t t0;
	int fd[2];

	if (pipe2(fd, O_CLOEXEC) < 0)
		return errno == ENOMEM ? -ENOMEM : -EAGAIN;
	t0 = fg_now_ns();
	pid = fork();
	if (pid == 0) {
		close(fd[1]);
		holder_main(fd[0], parent);
	}
	st->fork_ns = fg_now_ns() - t0;
	close(fd[0]);
	if (pid < 0) {
		int err = errno == ENOMEM ? -ENOMEM : -EAGAIN;

		close(fd[1]);
		return err;
	}
	st->child = pid;
	st->child_fd = fd[1];
	return 0;
}

static void release_holder(struct cow_state *st)
{
	if (st->child > 0) {
		kill(st->child, SIGKILL);
		while (waitpid(st->child, NULL, 0) < 0 && errno == EINTR)
			;
		st->child = 0;
	}
	if (st->child_fd >= 0) {
		close(st->child_fd);
		st->child_fd = -1;
	}
}

/* Every page written once, before the fork: the snapshot's content. */
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
		if ((pg % CANCEL_EVERY) == CANCEL_EVERY - 1 &&
		    fg_cancel_requested(run->sh))
			return -ECANCELED;
	}
	return 0;
}

static int cow_body(struct faultgen_run *run, unsigned int i)
{
	struct fg_wstat *w = &run->sh->w[i];
	bool process = fg_counts_process(run, i);
	struct fg_usage at;
	int ret;

	fg_stat_begin(w, &at, process);
	ret = write_slice(run, run->waddr[i], run->wlen[i]);
	if (ret)
		return ret;
	fg_stat_end(w, &at, process);
	w->fault_ns = w->end_ns - w->start_ns;
	w->rounds = 1;
	w->pages = run->wlen[i] / (size_t)run->pagesize;
	return 0;
}

static const struct fg_work cow_work = {
	.body = cow_body,
	.barrier = true,
};

/*
 * The pages the parent maps alone after the writes (pagemap's exclusive
 * bit, no privilege needed): with the child still holding the old ones,
 * each is a copy.  Unknown where pagemap cannot be read.
 */
static void count_copied(const struct faultgen_run *run, struct cow_state *st)
{
	size_t ps = (size_t)run->pagesize, n = run->base_len / ps;
	uint64_t buf[512];
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);

	st->copied = 0;
	st->copied_known = false;
	if (fd < 0)
		return;
	for (size_t done = 0; done < n;) {
		size_t k = n - done < 512 ? n - done : 512;
		off_t off = (off_t)(((uintptr_t)run->base / ps + done) * 8);
		ssize_t got = pread(fd, buf, k * 8, off);

		if (got != (ssize_t)(k * 8)) {
			close(fd);
			return;
		}
		for (size_t j = 0; j < k; j++)
			st->copied += (buf[j] & PM_PRESENT) &&
				      (buf[j] & PM_EXCLUSIVE);
		done += k;
	}
	close(fd);
	st->copied_known = true;
}

static int cow_exec(struct faultgen_run *run)
{
	struct cow_state *st = fg_pattern_state(run);
	int ret;

	st->active = true;
	st->child_fd = -1;
	ret = fg_memory_setup(run);
	if (ret)
		return ret;
	fill(run->base, run->base_len, (size_t)run->pagesize);
	/* Nothing buffered in the caller's stdio is ours to flush: the
	 * child never writes it, it only waits and _exits. */
	ret = fork_holder(st);
	if (ret)
		return ret;
	ret = fg_workers_run(run, &cow_work);
	if (!ret || ret == -ECANCELED) {
		/* Forked workers copied into their own memory, not ours. */
		if (run->attr.kind == FAULTGEN_THREADS)
			count_copied(run, st);
		fg_measure_fold(run);
	}
	release_holder(st);
	return ret;
}

static void cow_release(struct faultgen_run *run)
{
	struct cow_state *st = fg_pattern_state(run);

	if (st && st->active)
		release_holder(st);
	fg_memory_release(run);
}

/*
 * The snapshot is of private anonymous memory the run maps and fills
 * (a caller's region would be overwritten); one fork, one pass.
 */
static int cow_check(const struct faultgen_attr *a,
		     struct faultgen_conflict *c)
{
	if (a->backing != FAULTGEN_BACKING_ANON)
		return fg_conflict(c, FAULTGEN_SETTING_BACKING,
				   FAULTGEN_SETTING_PATTERN,
				   "copy-on-write after fork is of private "
				   "anonymous memory");
	if (a->share)
		return fg_conflict(c, FAULTGEN_SETTING_SHARE,
				   FAULTGEN_SETTING_PATTERN,
				   "a shared mapping is not copied on write");
	if (a->region)
		return fg_conflict(c, FAULTGEN_SETTING_REGION,
				   FAULTGEN_SETTING_PATTERN,
				   "cow-fork fills its memory before the fork: "
				   "a caller's region would be overwritten");
	if (fg_attr_repeats(a))
		return fg_conflict(c, FAULTGEN_SETTING_REPEAT,
				   FAULTGEN_SETTING_PATTERN,
				   "cow-fork runs once, one fork");
	if (a->numa == FAULTGEN_NUMA_WORKER_LOCAL)
		return fg_conflict(c, FAULTGEN_SETTING_NUMA,
				   FAULTGEN_SETTING_PATTERN,
				   "the pages are placed when the run fills "
				   "them, before the workers");
	if (a->node_pages)
		return fg_conflict(c, FAULTGEN_SETTING_NODE_PAGES,
				   FAULTGEN_SETTING_PATTERN,
				   "cow-fork counts no pages per node");
	return 0;
}

static int cow_figure(const struct faultgen_run *run, unsigned int index,
		      struct faultgen_figure *f)
{
	const struct cow_state *st = fg_pattern_state(run);
	const struct faultgen_result *r = &run->result;
	const struct {
		const char *name;
		double value;
		const char *unit;
	} figs[] = {
		{ "cow_faults_per_wall_s", r->faults_per_wall_s, "faults/s" },
		{ "cow_faults_per_cpu_s", r->faults_per_cpu_s, "faults/s" },
		{ "fork_s", st ? (double)st->fork_ns / 1e9 : 0, "s" },
		{ "pages_copied", st ? (double)st->copied : 0, "pages" },
	};
	/* Without pagemap, no copied pages to give. */
	unsigned int n = sizeof(figs) / sizeof(figs[0]) -
			 (st && st->copied_known ? 0 : 1);

	if (!st || index >= n)
		return -ERANGE;
	f->name = figs[index].name;
	f->value = figs[index].value;
	f->unit = figs[index].unit;
	return (int)n;
}

const struct fg_pattern fg_cow_fork_pattern = {
	.name = "cow-fork",
	.reads = FG_READS_COMMON | FG_SETTING(FAULTGEN_SETTING_CACHELINES) |
		 FG_SETTING(FAULTGEN_SETTING_THP),
	.state_size = sizeof(struct cow_state),
	.check = cow_check,
	.exec = cow_exec,
	.release = cow_release,
	.figure = cow_figure,
};
