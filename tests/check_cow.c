// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * check_cow.c - copy-on-write after fork (FAULTGEN_COW_FORK): every page
 * written is one fault the kernel counts and one page copied, with
 * threads or processes, in one pass and in rounds (a fresh child each
 * round); the children holding the snapshots are gone when the run is
 * done, cancelled in the middle, or killed outright, also when they read
 * or write the pages beside the workers (set_cow_child), which they do
 * on the run's CPUs; and the combinations refused.
 *
 * Counts and states only, never a timing.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "check-util.h"

#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>

#include "internal.h"

#define MIB (1ULL << 20)

static struct faultgen_attr *cow_attr(uint64_t size, unsigned int n,
				      enum faultgen_workers kind)
{
	struct faultgen_attr *a;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, FAULTGEN_COW_FORK), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, size), 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, n, kind), 0);
	ck_assert_int_eq(faultgen_attr_set_thp(a, FAULTGEN_THP_NOHUGEPAGE), 0);
	fgc_allow_workers(a, n);
	return a;
}

/* A process is gone: no /proc entry, or a zombie its new parent reaps. */
static bool gone(pid_t pid)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (int i = 0; i < 1000; i++) {
		if (fgc_read_file(path, buf, sizeof(buf)) < 0)
			return true;
		p = strrchr(buf, ')');
		if (p && (p[2] == 'Z' || p[2] == 'X'))
			return true;
		nanosleep(&ts, NULL);
	}
	return false;
}

START_TEST(every_write_is_a_fault_and_a_copy)
{
	enum faultgen_workers kind = (enum faultgen_workers)_i;
	struct faultgen_attr *a = cow_attr(16 * MIB, 2, kind);
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_run *run = NULL;
	uint64_t pages = fgc_pages_for(16 * MIB, 2), wrong = 0;
	size_t len, ps = (size_t)fgc_pagesize();
	double copied;
	void *addr;
	int ret = faultgen_run_new(a, &run);

	ck_assert_msg(ret == 0, "%s", faultgen_strerror(ret));
	/* The snapshot's holder is released with the run's end. */
	ck_assert(fgc_no_children());
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	ck_assert_uint_eq(r.pages, pages);
	ck_assert_uint_eq(r.expected_faults, pages);
	ck_assert_msg(fgc_close(pages, r.minflt, 2) && r.faults_agree,
		      "%llu faults for %llu pages",
		      (unsigned long long)r.minflt, (unsigned long long)pages);
	ck_assert(fgc_figure_or(run, "fork_s", -1) > 0);
	/* Threads: one child holds the run's memory; a forked worker forks
	 * its own. */
	ck_assert(fgc_figure_or(run, "forks", -1) ==
		  (kind == FAULTGEN_THREADS ? 1 : 2));
	copied = fgc_figure_or(run, "pages_copied", -1);
	if (copied >= 0)
		ck_assert_msg((uint64_t)copied == pages,
			      "%g pages copied of %llu", copied,
			      (unsigned long long)pages);
	/* Threads wrote the run's own pages (2 over the fill's 1); forked
	 * workers wrote their copies, and the run's pages kept the fill. */
	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	ck_assert_uint_eq(len, pages * ps);
	for (uint64_t p = 0; p < pages; p++)
		wrong += ((char *)addr)[p * ps] !=
			 (kind == FAULTGEN_THREADS ? 2 : 1);
	ck_assert_uint_eq(wrong, 0);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

static void *cancel_when_forked(void *arg)
{
	struct faultgen_run *run = arg;
	struct timespec ts = { 0, 1000 * 1000 };
	pid_t child;

	for (int i = 0; i < 20000; i++) {
		if (fgc_children(getpid(), &child, 1) > 0)
			break;
		nanosleep(&ts, NULL);
	}
	faultgen_run_cancel(run);
	return NULL;
}

/* Cancelled once the child holds the snapshot: the child is gone too. */
START_TEST(cancelled_run_releases_the_child)
{
	struct faultgen_attr *a = cow_attr(256 * MIB, 1, FAULTGEN_THREADS);
	struct faultgen_run *run = NULL;
	pthread_t t;
	int ret;

	ck_assert_int_eq(faultgen_run_create(a, &run), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, cancel_when_forked, run), 0);
	ret = faultgen_run_exec(run);
	pthread_join(t, NULL);
	ck_assert_msg(ret == -ECANCELED || ret == 0, "%s",
		      faultgen_strerror(ret));
	ck_assert(fgc_no_children());
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* The process running the run killed outright: its child dies too. */
START_TEST(killed_run_leaves_no_orphan)
{
	struct timespec ts = { 0, 1000 * 1000 };
	pid_t runner, holder = 0;
	int n = 0;

	runner = fork();
	ck_assert_int_ge(runner, 0);
	if (runner == 0) {
		struct faultgen_attr *a = cow_attr(256 * MIB, 1,
						   FAULTGEN_THREADS);
		struct faultgen_run *run;

		faultgen_run_new(a, &run);
		_exit(0);
	}
	for (int i = 0; i < 60000 && n <= 0; i++) {
		n = fgc_children(runner, &holder, 1);
		if (n <= 0)
			nanosleep(&ts, NULL);
	}
	kill(runner, SIGKILL);
	waitpid(runner, NULL, 0);
	if (n <= 0)
		FGC_SKIP("the run ended before its child was seen");
	ck_assert_msg(gone(holder), "the snapshot's holder %d outlived the "
		      "killed run", (int)holder);
}
END_TEST

/*
 * This process adopts what its children leave (PR_SET_CHILD_SUBREAPER):
 * a forked worker's child that outlived its parent would be ours to
 * wait for.  Every descendant gone: waitpid finds none left, within 10 s
 * (a child killed with its parent may take a moment to be reaped).
 */
static void adopt_orphans(void)
{
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
}

static bool no_descendants(void)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	for (int i = 0; i < 1000; i++) {
		pid_t p = waitpid(-1, NULL, WNOHANG);

		if (p < 0 && errno == ECHILD)
			return true;
		if (p == 0)
			nanosleep(&ts, NULL);
	}
	return false;
}

/* Rounds: a fresh child each round, and every write of every round a
 * fault and a copy. */
START_TEST(every_round_is_a_fresh_fork)
{
	enum faultgen_workers kind = (enum faultgen_workers)_i;
	struct faultgen_attr *a = cow_attr(16 * MIB, 2, kind);
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_run *run = NULL;
	uint64_t pages = fgc_pages_for(16 * MIB, 2), all = pages * 3;
	double copied;
	int ret;

	adopt_orphans();
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 3, FAULTGEN_ZAP_DONTNEED),
			 0);
	ret = faultgen_run_new(a, &run);
	ck_assert_msg(ret == 0, "%s", faultgen_strerror(ret));
	ck_assert(no_descendants());
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	ck_assert_uint_eq(r.pages, all);
	ck_assert_uint_eq(r.pages_per_round, pages);
	ck_assert_uint_eq(r.worker_rounds_min, 3);
	ck_assert_uint_eq(r.worker_rounds_max, 3);
	ck_assert_uint_eq(r.expected_faults, all);
	/* Every write faults; the few more are the workers' own stacks and
	 * figures, shared again by each fork. */
	ck_assert_msg(r.minflt >= all && fgc_close(all, r.minflt, 2) &&
			      r.faults_agree,
		      "%llu faults for %llu pages",
		      (unsigned long long)r.minflt, (unsigned long long)all);
	ck_assert(fgc_figure_or(run, "fork_s", -1) > 0);
	ck_assert(fgc_figure_or(run, "forks", -1) ==
		  (kind == FAULTGEN_THREADS ? 3 : 3 * 2));
	copied = fgc_figure_or(run, "pages_copied", -1);
	if (copied >= 0)
		ck_assert_msg((uint64_t)copied == all,
			      "%g pages copied of %llu", copied,
			      (unsigned long long)all);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* A duration: rounds until it is over, then no child left. */
START_TEST(duration_run_ends_without_a_child)
{
	enum faultgen_workers kind = (enum faultgen_workers)_i;
	struct faultgen_attr *a = cow_attr(4 * MIB, 2, kind);
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_run *run = NULL;
	uint64_t pages = fgc_pages_for(4 * MIB, 2);
	int ret;

	adopt_orphans();
	ck_assert_int_eq(faultgen_attr_set_duration(a, 0.3,
						    FAULTGEN_ZAP_DONTNEED),
			 0);
	ret = faultgen_run_new(a, &run);
	ck_assert_msg(ret == 0, "%s", faultgen_strerror(ret));
	ck_assert(no_descendants());
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	ck_assert_uint_ge(r.worker_rounds_min, 1);
	ck_assert_uint_eq(r.worker_rounds_min, r.worker_rounds_max);
	ck_assert_uint_eq(r.pages, pages * r.worker_rounds_min);
	ck_assert(r.minflt >= r.pages && r.faults_agree);
	ck_assert(fgc_figure_or(run, "forks", -1) ==
		  (double)r.worker_rounds_min *
			  (kind == FAULTGEN_THREADS ? 1 : 2));
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* _i of the loops over both kinds and the three child modes. */
static enum faultgen_workers kind_of(int i)
{
	return i % 2 ? FAULTGEN_PROCESSES : FAULTGEN_THREADS;
}

static enum faultgen_cow_child child_of(int i)
{
	return (enum faultgen_cow_child)(i / 2);
}

/* Rounds cancelled once a child holds the snapshot: none left, also
 * with children that read or write (a cancel kills them mid-pass). */
START_TEST(cancelled_rounds_release_the_children)
{
	enum faultgen_workers kind = kind_of(_i);
	struct faultgen_attr *a = cow_attr(64 * MIB, 2, kind);
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_run *run = NULL;
	pthread_t t;
	int ret;

	adopt_orphans();
	ck_assert_int_eq(faultgen_attr_set_cow_child(a, child_of(_i)), 0);
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 100000,
						  FAULTGEN_ZAP_DONTNEED),
			 0);
	ck_assert_int_eq(faultgen_run_create(a, &run), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, cancel_when_forked, run), 0);
	ret = faultgen_run_exec(run);
	pthread_join(t, NULL);
	ck_assert_msg(ret == -ECANCELED, "%s", faultgen_strerror(ret));
	ck_assert(no_descendants());
	/* What was measured stays: whole slices, over a time to rate. */
	if (faultgen_run_result(run, &r) == 0 && r.pages) {
		ck_assert(r.cancelled);
		ck_assert_uint_eq(r.pages % (fgc_pages_for(64 * MIB, 2) / 2), 0);
		ck_assert(r.elapsed_s > 0 && r.faults_per_wall_s > 0);
	}
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* The process running rounds killed outright: every child it had, and
 * every child of those, dies too. */
START_TEST(killed_rounds_leave_no_orphan)
{
	enum faultgen_workers kind = kind_of(_i);
	struct timespec ts = { 0, 1000 * 1000 };
	pid_t runner, child = 0;
	int n = 0;

	adopt_orphans();
	runner = fork();
	ck_assert_int_ge(runner, 0);
	if (runner == 0) {
		struct faultgen_attr *a = cow_attr(64 * MIB, 2, kind);
		struct faultgen_run *run;

		faultgen_attr_set_rounds(a, 100000, FAULTGEN_ZAP_DONTNEED);
		faultgen_attr_set_cow_child(a, child_of(_i));
		faultgen_run_new(a, &run);
		_exit(0);
	}
	for (int i = 0; i < 60000 && n <= 0; i++) {
		n = fgc_children(runner, &child, 1);
		if (n <= 0)
			nanosleep(&ts, NULL);
	}
	/* A few rounds under way. */
	ts.tv_nsec = 200 * 1000 * 1000;
	nanosleep(&ts, NULL);
	kill(runner, SIGKILL);
	waitpid(runner, NULL, 0);
	if (n <= 0)
		FGC_SKIP("the run ended before its child was seen");
	ck_assert_msg(no_descendants(), "a child of the killed run (%d or "
		      "one of its own) outlived it", (int)child);
}
END_TEST

/*
 * The child reads or writes every page its parent's workers write, once
 * a round (_i: bit 0 processes, bit 1 writes, bit 2 three rounds).
 *
 * What the kernel must do, whatever the child does:
 * - The parent's writes: each page is write-protected in the parent
 *   after the fork, so each write is one fault (a copy, or, when the
 *   child copied the page first, the old page reused): the faults equal
 *   the pages written, as without the child.
 * - pages_copied is the pages the parent maps alone after its writes
 *   (pagemap's exclusive bit, a map count of 1): a page it copied, and
 *   equally a page it reused because the child has its own copy; so it
 *   equals the pages written in every mode.
 * - The child's writes: its PTEs for the pages are write-protected
 *   copies, or absent where fork did not copy the page tables; either
 *   way each page it writes is at least one fault of its own: at least
 *   the pages written.
 * - The child's reads: a page it maps needs no fault (fork copies the
 *   page tables of memory written before it, so usually none), and a
 *   page it reads in stays mapped (nothing zaps the child's memory, THP
 *   is off): at most one fault per page.
 * - Beside those, each child faults on its own stack (its first store
 *   after fork, on a page fork write-protected: at least one) and on
 *   the code it runs: a few dozen at most, 64 allowed per child.
 */
START_TEST(the_child_reads_or_writes_beside_the_workers)
{
	enum faultgen_workers kind = _i & 1 ? FAULTGEN_PROCESSES :
					      FAULTGEN_THREADS;
	enum faultgen_cow_child how = _i & 2 ? FAULTGEN_COW_CHILD_WRITES :
					       FAULTGEN_COW_CHILD_READS;
	unsigned int rounds = _i & 4 ? 3 : 1;
	struct faultgen_attr *a = cow_attr(16 * MIB, 2, kind);
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_run *run = NULL;
	uint64_t pages = fgc_pages_for(16 * MIB, 2), all = pages * rounds;
	uint64_t wrong = 0, children = rounds * (kind == FAULTGEN_THREADS ?
								1 : 2);
	size_t len, ps = (size_t)fgc_pagesize();
	double copied, child;
	void *addr;
	int ret;

	adopt_orphans();
	if (rounds > 1)
		ck_assert_int_eq(faultgen_attr_set_rounds(
					 a, rounds, FAULTGEN_ZAP_DONTNEED),
				 0);
	ck_assert_int_eq(faultgen_attr_set_cow_child(a, how), 0);
	ck_assert_int_eq(faultgen_attr_get_cow_child(a), how);
	ret = faultgen_run_new(a, &run);
	ck_assert_msg(ret == 0, "%s", faultgen_strerror(ret));
	/* Every child waited for or killed, and reaped. */
	ck_assert(no_descendants());
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	ck_assert_uint_eq(r.pages, all);
	ck_assert_uint_eq(r.expected_faults, all);
	ck_assert_msg(r.minflt >= all && fgc_close(all, r.minflt, 2) &&
			      r.faults_agree,
		      "%llu faults for %llu pages",
		      (unsigned long long)r.minflt, (unsigned long long)all);
	ck_assert(fgc_figure_or(run, "forks", -1) == (double)children);
	copied = fgc_figure_or(run, "pages_copied", -1);
	if (copied >= 0)
		ck_assert_msg((uint64_t)copied == all,
			      "%g pages copied of %llu", copied,
			      (unsigned long long)all);
	child = fgc_figure_or(run, "child_faults", -1);
	ck_assert_msg(child >= 0, "no child_faults figure");
	if (how == FAULTGEN_COW_CHILD_WRITES)
		ck_assert_msg(child >= (double)all &&
				      child <= (double)(all + 64 * children),
			      "%g child faults for %llu pages written", child,
			      (unsigned long long)all);
	else
		ck_assert_msg(child >= (double)children &&
				      child <= (double)(all + 64 * children),
			      "%g child faults for %llu pages read", child,
			      (unsigned long long)all);
	/* The child's writes were to its own copies: the run's pages hold
	 * the workers' writes (threads) or the fill (forked workers). */
	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	for (uint64_t p = 0; p < len / ps; p++)
		wrong += ((char *)addr)[p * ps] !=
			 (kind == FAULTGEN_THREADS ? 2 : 1);
	ck_assert_uint_eq(wrong, 0);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/*
 * With the run's CPUs one allowed CPU (the last), the holders that write
 * beside a threads run's workers write there too: the page faults of
 * the calling thread and all it starts (a per-CPU software event, its
 * counts inherited), taken on the first CPU, are a few of the holders'
 * writes at most, besides the fill of the pages before the first fork
 * (the calling thread's, left on the last CPU but not kept there).
 */
START_TEST(writing_holders_run_on_the_runs_cpus)
{
	unsigned int rounds = 16;
	uint64_t pages = fgc_pages_for(16 * MIB, 1), all = pages * rounds;
	uint64_t off_run;
	int first = fgc_affinity_edge(false), last = fgc_affinity_edge(true);
	struct faultgen_attr *a = cow_attr(16 * MIB, 1, FAULTGEN_THREADS);
	struct faultgen_run *run = NULL;
	char list[16];
	int fd, ret;

	if (fgc_affinity_count() < 2) {
		faultgen_attr_free(a);
		FGC_SKIP("one CPU allowed: no other to place the holders on");
	}
	adopt_orphans();
	snprintf(list, sizeof(list), "%d", last);
	ck_assert_int_eq(faultgen_attr_set_cpus(a, list), 0);
	ck_assert_int_eq(faultgen_attr_set_rounds(a, rounds,
						  FAULTGEN_ZAP_DONTNEED),
			 0);
	ck_assert_int_eq(faultgen_attr_set_cow_child(
				 a, FAULTGEN_COW_CHILD_WRITES),
			 0);
	fd = fgc_faults_on_cpu(first, true);
	if (fd < 0) {
		faultgen_attr_free(a);
		FGC_SKIP("no page-fault event per CPU: %s", strerror(errno));
	}
	fgc_leave_on(last);
	ret = faultgen_run_new(a, &run);
	ck_assert_msg(ret == 0, "%s", faultgen_strerror(ret));
	ck_assert(no_descendants());
	off_run = fgc_count_of(fd);
	ck_assert_msg(fgc_figure_or(run, "child_faults", -1) >= (double)all,
		      "the holders took %g faults for %llu pages",
		      fgc_figure_or(run, "child_faults", -1),
		      (unsigned long long)all);
	ck_assert_msg(off_run < pages + all / 8,
		      "%llu faults off the run's CPU %d; the holders wrote "
		      "%llu pages, the fill %llu",
		      (unsigned long long)off_run, last,
		      (unsigned long long)all, (unsigned long long)pages);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/*
 * The caller forks while the run goes on (another thread of an embedding
 * program): its children hold copies of every descriptor, the holders'
 * sockets among them, and never close them.  The run still ends: a
 * holder with a pass is let go by a byte, not by its socket's end (the
 * suite's timeout fails a run that waits for it).
 */
#define FOREIGN_MAX 64

struct foreign {
	_Atomic int stop;
	pid_t pid[FOREIGN_MAX];
	unsigned int n;
};

static void *foreign_forks(void *arg)
{
	struct foreign *f = arg;
	const struct timespec ts = { 0, 500 * 1000 };

	while (!atomic_load(&f->stop) && f->n < FOREIGN_MAX) {
		pid_t pid = fork();

		if (pid == 0) {
			for (;;)
				pause();
		}
		if (pid > 0)
			f->pid[f->n++] = pid;
		nanosleep(&ts, NULL);
	}
	return NULL;
}

START_TEST(a_fork_of_the_caller_holds_no_run_up)
{
	enum faultgen_cow_child how = _i ? FAULTGEN_COW_CHILD_WRITES :
					   FAULTGEN_COW_CHILD_READS;
	struct faultgen_attr *a = cow_attr(16 * MIB, 2, FAULTGEN_THREADS);
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_run *run = NULL;
	struct foreign f = { .n = 0 };
	pthread_t tid;
	int ret;

	adopt_orphans();
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 8, FAULTGEN_ZAP_DONTNEED),
			 0);
	ck_assert_int_eq(faultgen_attr_set_cow_child(a, how), 0);
	ck_assert_int_eq(pthread_create(&tid, NULL, foreign_forks, &f), 0);
	ret = faultgen_run_new(a, &run);
	atomic_store(&f.stop, 1);
	pthread_join(tid, NULL);
	for (unsigned int i = 0; i < f.n; i++) {
		kill(f.pid[i], SIGKILL);
		while (waitpid(f.pid[i], NULL, 0) < 0 && errno == EINTR)
			;
	}
	ck_assert_msg(ret == 0, "%s", faultgen_strerror(ret));
	ck_assert_uint_gt(f.n, 0);
	/* Every holder waited for, and reaped. */
	ck_assert(no_descendants());
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	ck_assert(fgc_figure_or(run, "forks", -1) == 8);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* The setting: its default, its errors, who reads it. */
START_TEST(cow_child_setter)
{
	struct faultgen_attr *a = cow_attr(MIB, 1, FAULTGEN_THREADS);
	struct faultgen_run *run = NULL;

	ck_assert_int_eq(faultgen_attr_get_cow_child(a),
			 FAULTGEN_COW_CHILD_WAITS);
	ck_assert_int_eq(faultgen_attr_get_cow_child(NULL),
			 FAULTGEN_COW_CHILD_WAITS);
	ck_assert_int_eq(faultgen_attr_set_cow_child(
				 NULL, FAULTGEN_COW_CHILD_READS),
			 -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_cow_child(
				 a, FAULTGEN_COW_CHILD_WRITES),
			 0);
	ck_assert_int_eq(faultgen_attr_set_cow_child(
				 a, (enum faultgen_cow_child)3),
			 -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_cow_child(
				 a, (enum faultgen_cow_child)-1),
			 -EINVAL);
	/* A failed setter leaves the attr as it was. */
	ck_assert_int_eq(faultgen_attr_get_cow_child(a),
			 FAULTGEN_COW_CHILD_WRITES);
	ck_assert_int_eq(faultgen_pattern_reads(FAULTGEN_COW_FORK,
						FAULTGEN_SETTING_COW_CHILD),
			 1);
	for (int p = 0; p < faultgen_pattern_count(); p++)
		if (p != FAULTGEN_COW_FORK)
			ck_assert_int_eq(faultgen_pattern_reads(
						 (enum faultgen_pattern)p,
						 FAULTGEN_SETTING_COW_CHILD),
					 0);
	/* A child that only waits has no faults to give. */
	ck_assert_int_eq(faultgen_attr_set_cow_child(
				 a, FAULTGEN_COW_CHILD_WAITS),
			 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	ck_assert(fgc_figure_or(run, "child_faults", -1) == -1);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* Latency: every write of every round timed, each worker's its own;
 * still a fault and a copy each. */
START_TEST(latency_times_every_write)
{
	enum faultgen_workers kind = (enum faultgen_workers)_i;
	struct faultgen_attr *a = cow_attr(8 * MIB, 2, kind);
	struct faultgen_latency l = { .size = sizeof(l) };
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_run *run = NULL;
	uint64_t pages = fgc_pages_for(8 * MIB, 2), all = pages * 2;
	double copied;
	int ret;

	adopt_orphans();
	ck_assert_int_eq(faultgen_pattern_reads(FAULTGEN_COW_FORK,
						FAULTGEN_SETTING_LATENCY),
			 1);
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 2, FAULTGEN_ZAP_DONTNEED),
			 0);
	ck_assert_int_eq(faultgen_attr_set_latency(a, 1), 0);
	ret = faultgen_run_new(a, &run);
	ck_assert_msg(ret == 0, "%s", faultgen_strerror(ret));
	ck_assert(no_descendants());
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	ck_assert_uint_eq(r.pages, all);
	ck_assert(r.minflt >= all && fgc_close(all, r.minflt, 2));
	ck_assert_int_eq(faultgen_run_latency(run, -1, &l), 0);
	ck_assert_uint_eq(l.count, all);
	ck_assert_int_eq(l.per_call, 0);
	ck_assert(l.p50_ns > 0 && l.p50_ns <= l.p99_ns && l.p99_ns <= l.max_ns);
	for (int w = 0; w < 2; w++) {
		ck_assert_int_eq(faultgen_run_latency(run, w, &l), 0);
		ck_assert_uint_eq(l.count, all / 2);
	}
	copied = fgc_figure_or(run, "pages_copied", -1);
	if (copied >= 0)
		ck_assert_msg((uint64_t)copied == all,
			      "%g pages copied of %llu", copied,
			      (unsigned long long)all);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(refused_combinations)
{
	struct faultgen_attr *a = cow_attr(MIB, 1, FAULTGEN_THREADS);
	static char region[1 << 16] __attribute__((aligned(1 << 16)));

	ck_assert_int_eq(faultgen_attr_check(a, NULL), 0);
	/* Rounds and a duration are a fresh child each round. */
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 2, FAULTGEN_ZAP_DONTNEED),
			 0);
	ck_assert_int_eq(faultgen_attr_check(a, NULL), 0);
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 0, FAULTGEN_ZAP_DONTNEED),
			 0);
	ck_assert_int_eq(faultgen_attr_set_duration(a, 0.5,
						    FAULTGEN_ZAP_DONTNEED),
			 0);
	ck_assert_int_eq(faultgen_attr_check(a, NULL), 0);
	ck_assert_int_eq(faultgen_attr_set_duration(a, 0, FAULTGEN_ZAP_DONTNEED),
			 0);
	ck_assert_int_eq(faultgen_attr_set_backing(a, FAULTGEN_BACKING_SYSV),
			 0);
	FGC_ASSERT_CONFLICT(a, FAULTGEN_SETTING_BACKING);
	ck_assert_int_eq(faultgen_attr_set_backing(a, FAULTGEN_BACKING_ANON),
			 0);
	ck_assert_int_eq(faultgen_attr_set_region(a, region, sizeof(region)),
			 0);
	FGC_ASSERT_CONFLICT(a, FAULTGEN_SETTING_REGION);
	faultgen_attr_free(a);
	ck_assert_int_eq(faultgen_pattern_reads(FAULTGEN_COW_FORK,
						FAULTGEN_SETTING_TOUCH),
			 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cow");
	TCase *tc = tcase_create("run");

	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, every_write_is_a_fault_and_a_copy,
			    FAULTGEN_THREADS, FAULTGEN_PROCESSES + 1);
	tcase_add_test(tc, cancelled_run_releases_the_child);
	tcase_add_test(tc, killed_run_leaves_no_orphan);
	tcase_add_loop_test(tc, every_round_is_a_fresh_fork, FAULTGEN_THREADS,
			    FAULTGEN_PROCESSES + 1);
	tcase_add_loop_test(tc, duration_run_ends_without_a_child,
			    FAULTGEN_THREADS, FAULTGEN_PROCESSES + 1);
	/* Both kinds, the child waiting, reading, writing. */
	tcase_add_loop_test(tc, cancelled_rounds_release_the_children, 0, 6);
	tcase_add_loop_test(tc, killed_rounds_leave_no_orphan, 0, 6);
	tcase_add_loop_test(tc, the_child_reads_or_writes_beside_the_workers,
			    0, 8);
	tcase_add_loop_test(tc, latency_times_every_write, FAULTGEN_THREADS,
			    FAULTGEN_PROCESSES + 1);
	tcase_add_loop_test(tc, a_fork_of_the_caller_holds_no_run_up, 0, 2);
	tcase_add_test(tc, writing_holders_run_on_the_runs_cpus);
	suite_add_tcase(s, tc);
	tc = tcase_create("attr");
	tcase_add_test(tc, refused_combinations);
	tcase_add_test(tc, cow_child_setter);
	suite_add_tcase(s, tc);
	return fgc_main(s);
}
