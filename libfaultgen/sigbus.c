// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sigbus.c - a worker's SIGBUS, when the caller asks that it end the run
 * instead of the process (faultgen_attr_set_catch_sigbus).
 *
 * The kernel raises SIGBUS on a touch of a page it cannot give: the file
 * system of a file backing is full, the file shrank under the mapping,
 * no huge page is left in the pool or under a hugetlbfs mount's size=
 * limit.  A worker that touches arms a recovery point of its own
 * (thread-local); the handler, on that worker's thread, jumps back to it
 * with the faulting address, and the worker fails with the cause
 * (fg_sigbus_cause), as with any other error.
 *
 * A signal's action is the process's: the handler is installed only for
 * runs whose attr asks, from the first such run's start to the last
 * one's end (a count under a lock), and the action found is put back
 * then.  A SIGBUS of any other thread, or of a worker outside its touch,
 * puts that action back at once, and meets it: the access faults again
 * (or the signal sent is raised again) once the handler returns.  In a forked worker the handler
 * is installed again after the caller's were reset, with the default
 * action behind it.  The recovery point is read in the handler, so it is
 * initial-exec TLS: no allocation on its first use from a signal.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include <linux/magic.h>

static __thread struct fg_sigbus_point *armed
	__attribute__((tls_model("initial-exec")));

static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int installed; /* runs that asked, going on */
static struct sigaction before; /* the action found, put back after */

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	struct fg_sigbus_point *p = armed;

	if (p) {
		armed = NULL;
		p->addr = si->si_addr;
		p->code = si->si_code;
		siglongjmp(p->env, 1);
	}
	/* Not a worker's touch: the action found takes it, as without the
	 * run.  A fault's access faults again when the handler returns; a
	 * SIGBUS sent is sent again, to be taken once this one returns. */
	(void)uc;
	sigaction(SIGBUS, &before, NULL);
	if (si->si_code <= 0)
		raise(sig);
}

static int install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	return sigaction(SIGBUS, &sa, &before) < 0 ? -errno : 0;
}

/* Before the run's workers start: the handler, for the caller's process
 * (its threads, and worker 0 in the calling thread). */
int fg_sigbus_begin(const struct faultgen_run *run)
{
	int ret = 0;

	if (!run->attr.catch_sigbus)
		return 0;
	pthread_mutex_lock(&install_lock);
	if (installed == 0)
		ret = install();
	if (!ret)
		installed++;
	pthread_mutex_unlock(&install_lock);
	return ret;
}

/* After the run's workers: the action found goes back with the last. */
void fg_sigbus_end(const struct faultgen_run *run)
{
	if (!run->attr.catch_sigbus)
		return;
	pthread_mutex_lock(&install_lock);
	if (installed && --installed == 0)
		sigaction(SIGBUS, &before, NULL);
	pthread_mutex_unlock(&install_lock);
}

/* In a forked worker, whose handlers were reset: the handler again,
 * with the default action behind it.  System calls only. */
void fg_sigbus_child(const struct faultgen_run *run)
{
	if (!run->attr.catch_sigbus)
		return;
	memset(&before, 0, sizeof(before));
	before.sa_handler = SIG_DFL;
	install();
}

void fg_sigbus_arm(struct fg_sigbus_point *p)
{
	p->addr = NULL;
	p->code = 0;
	armed = p;
}

void fg_sigbus_disarm(void)
{
	armed = NULL;
}

/* The offset in the backing's file of addr, in the run's mappings; -1
 * when it is in none of them. */
static off_t file_offset(const struct faultgen_run *run, const char *addr)
{
	if (!run->waddr || !run->wlen)
		return -1;
	if (!run->ops->own_mappings && run->base && addr >= run->base &&
	    addr < run->base + run->base_len)
		return addr - run->base;
	for (unsigned int i = 0; i < run->attr.nr_workers; i++)
		if (run->waddr[i] && addr >= run->waddr[i] &&
		    addr < run->waddr[i] + run->wlen[i])
			return (off_t)i * (off_t)run->slice_len +
			       (addr - run->waddr[i]);
	return -1;
}

/*
 * Why the kernel could not give the page at addr (NULL: somewhere in
 * the run's memory, as MADV_POPULATE_WRITE's -EFAULT says), while the
 * run still holds its file and pages: -EFBIG the page is beyond the end
 * of the file, which shrank; -ENOSPC the file system is full (on
 * hugetlbfs: the mount's size= limit is reached); -ENOMEM no huge page
 * is left in the pool; -EFAULT none of these (a memory or I/O error).
 * System calls only: a forked worker calls it.
 */
int fg_sigbus_cause(const struct faultgen_run *run, const void *addr)
{
	bool huge = (size_t)run->pagesize != (size_t)fg_pagesize();
	int fd = run->backing_fd;
	struct statfs sf;
	struct stat st;
	off_t off;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		off = addr ? file_offset(run, addr) : (off_t)run->file_len - 1;
		if (off >= 0 && off >= st.st_size)
			return -EFBIG;
	}
	if (fd >= 0 && fstatfs(fd, &sf) == 0 &&
	    ((unsigned long)sf.f_type != HUGETLBFS_MAGIC || sf.f_blocks > 0) &&
	    (uint64_t)sf.f_bavail * (uint64_t)sf.f_bsize <
		    (uint64_t)run->pagesize)
		return -ENOSPC;
	if (huge)
		return -ENOMEM;
	return -EFAULT;
}

/*
 * fn(ctx), worker i's touches, with a SIGBUS of theirs caught when the
 * attr asks: the worker then fails with the cause, its signo SIGBUS.  A
 * -EFAULT fn returns (MADV_POPULATE_WRITE's word for what would have
 * been a SIGBUS) gets its cause too.  The jump lands in this frame,
 * which holds nothing that changes after sigsetjmp.
 */
int fg_sigbus_guard(struct faultgen_run *run, unsigned int i,
		    int (*fn)(void *ctx), void *ctx)
{
	struct fg_sigbus_point bp;
	int ret;

	bp.addr = NULL;
	bp.code = 0;
	if (run->attr.catch_sigbus) {
		if (sigsetjmp(bp.env, 1)) {
			run->sh->w[i].signo = SIGBUS;
			return fg_sigbus_cause(run, bp.addr);
		}
		fg_sigbus_arm(&bp);
	}
	ret = fn(ctx);
	fg_sigbus_disarm();
	return ret == -EFAULT ? fg_sigbus_cause(run, NULL) : ret;
}
