// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * check_failure.c - runs that fail or are stopped: a worker process killed
 * before or during its loop, a cancel from another thread or from a signal
 * handler, signals that interrupt the controller, RLIMIT_AS too small, and
 * the run object's life cycle (exec twice, results too early, old callers'
 * smaller structs).
 *
 * A failed run must end within a bounded time (long runs are asked for and
 * the test checks they ended far sooner), name the worker and the cause,
 * and leave no child process, thread or SysV segment behind.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "check-util.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/time.h>
#include <time.h>

#include "internal.h"

/* Long enough that a run ending on its own would fail the bound below. */
#define LONG_RUN_S 120.0
/* Generous: a failed or cancelled run must end well within this. */
#define BOUND_S 60.0

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static struct faultgen_attr *long_attr(enum faultgen_pattern pattern,
				       enum faultgen_workers kind,
				       enum faultgen_backing backing,
				       unsigned int workers, uint64_t pages)
{
	struct faultgen_attr *a;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, pattern), 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, workers, kind), 0);
	ck_assert_int_eq(faultgen_attr_set_backing(a, backing), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, pages *
						       (uint64_t)fgc_pagesize()),
			 0);
	ck_assert_int_eq(faultgen_attr_set_duration(a, LONG_RUN_S,
						    FAULTGEN_ZAP_DONTNEED),
			 0);
	fgc_allow_workers(a, workers);
	return a;
}

/* Minor faults of a process so far (/proc/PID/stat field 10). */
static long proc_minflt(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long minflt;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (fgc_read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	p = strrchr(buf, ')');
	/* The 10th field; the fields before it are checked by count. */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %lu", // NOLINT
			 &minflt) != 1)
		return -1;
	return (long)minflt;
}

static void assert_nothing_left(pid_t self)
{
	pid_t pids[8];

	ck_assert_int_eq(fgc_children(self, pids, 8), 0);
	ck_assert(fgc_no_children());
	ck_assert_int_eq(fgc_shm_count(self, NULL), 0);
}

static void assert_no_results(const struct faultgen_run *run)
{
	struct faultgen_result res = { .size = sizeof(res) };
	struct faultgen_worker_result w = { .size = sizeof(w) };
	void *addr;
	size_t len;

	ck_assert_int_eq(faultgen_run_result(run, &res), -ENODATA);
	ck_assert_int_eq(faultgen_run_worker(run, 0, &w), -ENODATA);
	/* The memory went with the failure. */
	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), -ENODATA);
}

/* ---- a worker process killed ---------------------------------------- */

struct killer {
	pid_t parent;
	unsigned int children; /* wait for this many */
	long min_faults;       /* and for the victim to fault this much */
	bool early;            /* or kill the first child seen, at once */
	pid_t victim;
};

/* The children of the thread that forks the workers, by its own file. */
static int first_child(pid_t parent, pid_t *pid)
{
	char path[96], buf[256];
	long v;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)parent,
		 (int)parent);
	if (fgc_read_file(path, buf, sizeof(buf)) > 0) {
		v = strtol(buf, NULL, 10);
		if (v > 0) {
			*pid = (pid_t)v;
			return 1;
		}
		return 0;
	}
	return fgc_children(parent, pid, 1) > 0;
}

static void *killer_main(void *arg)
{
	struct killer *k = arg;
	double until = now_s() + BOUND_S;
	pid_t pids[64];

	while (now_s() < until) {
		if (k->early) {
			if (first_child(k->parent, &k->victim)) {
				kill(k->victim, SIGKILL);
				return NULL;
			}
			continue;
		}
		if (fgc_children(k->parent, pids, 64) >= (int)k->children &&
		    proc_minflt(pids[0]) >= k->min_faults) {
			k->victim = pids[0];
			kill(k->victim, SIGKILL);
			return NULL;
		}
		pause_ms(5);
	}
	return NULL;
}

static int worker_of_pid(const struct faultgen_run *run, pid_t pid)
{
	for (unsigned int i = 0; i < run->attr.nr_workers; i++)
		if (run->pids && run->pids[i] == pid)
			return (int)i;
	return -1;
}

/* signo: the signal the failure must name (0 when it cannot be known). */
static void run_and_kill(struct faultgen_attr *a, struct killer *k,
			 int want_signo)
{
	struct faultgen_run *run;
	int ret, worker, signo, err;
	pthread_t t;
	double t0, took;

	k->parent = getpid();
	k->victim = 0;
	ck_assert_int_eq(faultgen_run_create(a, &run), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, killer_main, k), 0);
	t0 = now_s();
	ret = faultgen_run_exec(run);
	took = now_s() - t0;
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_msg(k->victim > 0, "no worker was killed (run gave %d)",
		      ret);
	ck_assert_msg(ret == -ECHILD, "run gave %d (%s)", ret,
		      faultgen_strerror(ret));
	ck_assert_msg(took < BOUND_S, "the run took %.1f s to fail", took);
	ck_assert_int_eq(faultgen_run_failure(run, &worker, &signo, &err), 0);
	ck_assert_int_eq(worker, worker_of_pid(run, k->victim));
	ck_assert_int_eq(signo, want_signo);
	if (want_signo)
		ck_assert_msg(err == 0 || err == -ECHILD, "error %d", err);
	else
		ck_assert_int_eq(err, -ECHILD);
	assert_no_results(run);
	ck_assert_int_eq(faultgen_run_exec(run), -EALREADY);
	faultgen_run_free(run);
	assert_nothing_left(k->parent);
}

/* A short run nobody kills succeeds; then a long one is killed. */
static void unkilled_then_killed(struct faultgen_attr *a, struct killer *k,
				 int want_signo)
{
	struct faultgen_run *run;

	ck_assert_int_eq(faultgen_attr_set_duration(a, 0.05,
						    FAULTGEN_ZAP_DONTNEED),
			 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	faultgen_run_free(run);
	ck_assert_int_eq(faultgen_attr_set_duration(a, LONG_RUN_S,
						    FAULTGEN_ZAP_DONTNEED),
			 0);
	run_and_kill(a, k, want_signo);
}

START_TEST(killed_worker_fails_run_naming_it)
{
	/* Shared or per-thread, anon or SysV (the segment must go too);
	 * from _i 4 on, the calling thread is worker 0 and busy in its own
	 * loop when worker 1 dies. */
	struct faultgen_attr *a = long_attr(
		_i % 2 ? FAULTGEN_PER_THREAD_VMA : FAULTGEN_SHARED_VMA,
		FAULTGEN_PROCESSES,
		_i / 2 % 2 ? FAULTGEN_BACKING_SYSV : FAULTGEN_BACKING_ANON, 2,
		1024);
	struct killer k = { .children = _i < 4 ? 2 : 1, .min_faults = 1024 };

	ck_assert_int_eq(faultgen_attr_set_caller_worker(a, _i >= 4), 0);
	run_and_kill(a, &k, SIGKILL);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(worker_killed_before_start_fails_run)
{
	/* Many children: the first dies before the last reaches the gate
	 * (from _i 2 on, with the calling thread as worker 0, which may be
	 * waiting at the gate already). */
	struct faultgen_attr *a =
		long_attr(FAULTGEN_SHARED_VMA, FAULTGEN_PROCESSES,
			  _i % 2 ? FAULTGEN_BACKING_SYSV : FAULTGEN_BACKING_ANON,
			  32, 32);
	struct killer k = { .early = true };

	ck_assert_int_eq(faultgen_attr_set_oversubscribe(a, 1), 0);
	ck_assert_int_eq(faultgen_attr_set_caller_worker(a, _i >= 2), 0);
	run_and_kill(a, &k, SIGKILL);
	faultgen_attr_free(a);
}
END_TEST

/* A caller that ignores SIGCHLD (as daemons do) has its children reaped
 * by the kernel: the run cannot learn the signal, but must still fail. */
START_TEST(killed_worker_fails_run_when_sigchld_ignored)
{
	struct faultgen_attr *a = long_attr(FAULTGEN_SHARED_VMA,
					    FAULTGEN_PROCESSES,
					    FAULTGEN_BACKING_ANON, 2, 1024);
	struct killer k = { .children = 2, .min_faults = 1024 };

	ck_assert_ptr_ne(signal(SIGCHLD, SIG_IGN), SIG_ERR);
	unkilled_then_killed(a, &k, 0);
	faultgen_attr_free(a);
}
END_TEST

/*
 * The watch sleeps on a pidfd per child; without descriptors for them it
 * looks every few milliseconds instead, and must still see a death.
 * Four children, three free descriptors: one pidfd too few.
 */
#define FREE_FDS 3

/* Opens /dev/null up to max times, or until it fails; returns how often. */
static int open_devnull(int *fds, int max)
{
	int n = 0, fd;

	while (n < max && (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
		fds[n++] = fd;
	return n;
}

static int fill_fds(int *fds, int max)
{
	int n = open_devnull(fds, max);

	ck_assert_int_eq(errno, EMFILE);
	ck_assert_int_ge(n, FREE_FDS);
	for (int i = 0; i < FREE_FDS; i++)
		close(fds[--n]);
	return n;
}

START_TEST(killed_worker_fails_run_without_pidfds)
{
	struct faultgen_attr *a = long_attr(FAULTGEN_SHARED_VMA,
					    FAULTGEN_PROCESSES,
					    FAULTGEN_BACKING_ANON, 4, 1024);
	struct killer k = { .children = 4, .min_faults = 1024 };
	struct rlimit old, low;
	int fds[128], n, probe[FREE_FDS + 1], got;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = old.rlim_cur < 64 ? old.rlim_cur : 64;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
	n = fill_fds(fds, 128);
	/* The premise: fewer descriptors free than children. */
	got = open_devnull(probe, FREE_FDS + 1);
	ck_assert_int_eq(got, FREE_FDS);
	while (got)
		close(probe[--got]);
	unkilled_then_killed(a, &k, SIGKILL);
	while (n)
		close(fds[--n]);
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
	faultgen_attr_free(a);
}
END_TEST

/* ---- cancel --------------------------------------------------------- */

struct canceller {
	struct faultgen_run *run;
	enum faultgen_workers kind;
	unsigned int workers;
	int threads_before;
	bool done;
};

/* Waits until the workers exist and have faulted, then cancels. */
static void *canceller_main(void *arg)
{
	struct canceller *c = arg;
	double until = now_s() + BOUND_S;
	pid_t pids[8];

	while (now_s() < until) {
		bool started;

		if (c->kind == FAULTGEN_PROCESSES)
			started = fgc_children(getpid(), pids, 8) >=
					  (int)c->workers &&
				  proc_minflt(pids[0]) > 256;
		else
			started = fgc_threads() >=
				  c->threads_before + (int)c->workers;
		if (started)
			break;
		pause_ms(5);
	}
	faultgen_run_cancel(c->run);
	c->done = true;
	return NULL;
}

/*
 * A run cancelled while its workers ran keeps what they measured: the
 * result says it was cancelled, and covers whole rounds only (each
 * worker's pages are its rounds times its slice), the memory stays.
 */
static void assert_kept_rounds(const struct faultgen_run *run)
{
	struct faultgen_result res = { .size = sizeof(res) };
	uint64_t pages = 0, rounds = 0, slice;
	void *addr;
	size_t len;

	ck_assert_int_eq(faultgen_run_result(run, &res), 0);
	ck_assert_int_eq(res.cancelled, 1);
	slice = res.pages_per_round / res.workers;
	for (unsigned int i = 0; i < res.workers; i++) {
		struct faultgen_worker_result w = { .size = sizeof(w) };

		ck_assert_int_eq(faultgen_run_worker(run, i, &w), 0);
		ck_assert_uint_eq(w.pages, w.rounds * slice);
		ck_assert_uint_ge(w.rounds, res.worker_rounds_min);
		ck_assert_uint_le(w.rounds, res.worker_rounds_max);
		pages += w.pages;
		rounds += w.rounds;
	}
	ck_assert_uint_eq(res.pages, pages);
	ck_assert_uint_eq(res.rounds, rounds);
	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
}

static void assert_cancelled(struct faultgen_run *run, int ret, double took,
			     bool measured)
{
	int worker, signo, err;

	ck_assert_msg(ret == -ECANCELED, "run gave %d (%s)", ret,
		      faultgen_strerror(ret));
	ck_assert_msg(took < BOUND_S, "the cancelled run took %.1f s", took);
	ck_assert_int_eq(faultgen_run_failure(run, &worker, &signo, &err), 0);
	ck_assert_int_eq(worker, -1);
	ck_assert_int_eq(signo, 0);
	ck_assert_int_eq(err, -ECANCELED);
	if (measured)
		assert_kept_rounds(run);
	else
		assert_no_results(run);
}

START_TEST(cancel_from_another_thread_ends_run)
{
	/* From _i 4 on, the calling thread is worker 0 and is cancelled in
	 * its own loop; one worker is started. */
	bool caller = _i >= 4;
	enum faultgen_workers kind = _i % 2 ? FAULTGEN_PROCESSES :
					      FAULTGEN_THREADS;
	struct faultgen_attr *a = long_attr(
		_i / 2 % 2 ? FAULTGEN_PER_THREAD_VMA : FAULTGEN_SHARED_VMA,
		kind, FAULTGEN_BACKING_ANON, 2, 1024);
	struct canceller c = { .kind = kind, .workers = caller ? 1 : 2 };
	pthread_t t;
	double t0;
	int ret;

	ck_assert_int_eq(faultgen_attr_set_caller_worker(a, caller), 0);
	ck_assert_int_eq(faultgen_run_create(a, &c.run), 0);
	c.threads_before = fgc_threads() + 1; /* and the canceller */
	ck_assert_int_eq(pthread_create(&t, NULL, canceller_main, &c), 0);
	t0 = now_s();
	ret = faultgen_run_exec(c.run);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	assert_cancelled(c.run, ret, now_s() - t0, true);
	faultgen_run_free(c.run);
	faultgen_attr_free(a);
	/* No worker thread or process outlives the run. */
	ck_assert_int_eq(fgc_threads_settle(c.threads_before - 1),
			 c.threads_before - 1);
	assert_nothing_left(getpid());
}
END_TEST

static struct faultgen_run *alarm_run;
static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
	faultgen_run_cancel(alarm_run);
}

START_TEST(cancel_from_signal_handler_ends_run)
{
	enum faultgen_workers kind = _i ? FAULTGEN_PROCESSES : FAULTGEN_THREADS;
	struct faultgen_attr *a = long_attr(FAULTGEN_SHARED_VMA, kind,
					    FAULTGEN_BACKING_SYSV, 2, 1024);
	struct itimerval it = { .it_value = { 0, 200000 } };
	struct sigaction sa = { .sa_handler = on_alarm };
	double t0;
	int ret;

	ck_assert_int_eq(faultgen_run_create(a, &alarm_run), 0);
	/* No SA_RESTART: the controller's waits see EINTR. */
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGALRM, &sa, NULL), 0);
	ck_assert_int_eq(setitimer(ITIMER_REAL, &it, NULL), 0);
	t0 = now_s();
	ret = faultgen_run_exec(alarm_run);
	assert_cancelled(alarm_run, ret, now_s() - t0, true);
	ck_assert_int_eq(alarms, 1);
	faultgen_run_free(alarm_run);
	faultgen_attr_free(a);
	assert_nothing_left(getpid());
}
END_TEST

START_TEST(cancel_before_exec_runs_nothing)
{
	struct faultgen_attr *a =
		long_attr(FAULTGEN_SHARED_VMA, FAULTGEN_PROCESSES,
			  FAULTGEN_BACKING_SYSV, 2, 64);
	struct faultgen_run *run;

	ck_assert_int_eq(faultgen_run_create(a, &run), 0);
	faultgen_run_cancel(run);
	assert_cancelled(run, faultgen_run_exec(run), 0, false);
	faultgen_run_free(run);
	faultgen_attr_free(a);
	assert_nothing_left(getpid());
}
END_TEST

static volatile sig_atomic_t ticks;

static void on_tick(int sig)
{
	(void)sig;
	ticks++;
}

/* A caller's timer signals (no SA_RESTART) must not break a run: every
 * worker is still waited for, none is left a zombie. */
START_TEST(run_survives_interrupting_signals)
{
	enum faultgen_workers kind = _i ? FAULTGEN_PROCESSES : FAULTGEN_THREADS;
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	struct sigaction sa = { .sa_handler = on_tick };
	struct faultgen_result res = { .size = sizeof(res) };
	struct faultgen_attr *a;
	struct faultgen_run *run;
	int ret;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, 4, kind), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 256 *
						       (uint64_t)fgc_pagesize()),
			 0);
	ck_assert_int_eq(faultgen_attr_set_thp(a, FAULTGEN_THP_NOHUGEPAGE), 0);
	ck_assert_int_eq(faultgen_attr_set_duration(a, 0.3,
						    FAULTGEN_ZAP_DONTNEED),
			 0);
	fgc_allow_workers(a, 4);
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGALRM, &sa, NULL), 0);
	ck_assert_int_eq(setitimer(ITIMER_REAL, &it, NULL), 0);
	for (int i = 0; i < 5; i++) {
		ret = faultgen_run_new(a, &run);
		ck_assert_msg(ret == 0, "run %d gave %d (%s)", i, ret,
			      faultgen_strerror(ret));
		ck_assert_int_eq(faultgen_run_result(run, &res), 0);
		ck_assert_uint_ge(res.rounds, 4);
		ck_assert(res.faults_agree);
		faultgen_run_free(run);
		ck_assert_msg(fgc_no_children(), "run %d left a child", i);
	}
	ck_assert_int_eq(setitimer(ITIMER_REAL, &off, NULL), 0);
	ck_assert_int_gt(ticks, 0);
	faultgen_attr_free(a);
	assert_nothing_left(getpid());
}
END_TEST

/* ---- nothing outlives its caller ------------------------------------ */

/*
 * A process that runs a long process-mode run and is SIGKILLed, either
 * while it is still forking its workers (early) or once they all fault:
 * its workers must end with it.  This test process is the subreaper of
 * the orphans, so it sees them, and reaps them.
 */
static int orphans_after_creator_killed(unsigned int workers, bool early)
{
	struct faultgen_attr *a = long_attr(FAULTGEN_SHARED_VMA,
					    FAULTGEN_PROCESSES,
					    FAULTGEN_BACKING_ANON, workers, 16);
	double until = now_s() + BOUND_S;
	pid_t creator, kids[1024];
	int n;

	ck_assert_int_eq(faultgen_attr_set_oversubscribe(a, 1), 0);
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	creator = fork();
	ck_assert_int_ge(creator, 0);
	if (creator == 0) {
		struct faultgen_run *run;

		faultgen_run_new(a, &run);
		_exit(0);
	}
	/* Early: as soon as the first worker exists; else once all do. */
	do {
		n = fgc_children(creator, kids, 1024);
		pause_ms(1);
	} while (n < (early ? 1 : (int)workers) && now_s() < until);
	ck_assert_int_ge(n, 1);
	kill(creator, SIGKILL);
	ck_assert_int_eq(waitpid(creator, NULL, 0), creator);
	/* The workers, now ours, must go by themselves. */
	do {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		n = fgc_children(getpid(), kids, 1024);
		if (n)
			pause_ms(10);
	} while (n && now_s() < until);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	faultgen_attr_free(a);
	return n;
}

START_TEST(workers_end_when_their_creator_is_killed)
{
	bool early = _i == 0;
	int left = orphans_after_creator_killed(early ? 256 : 8, early);

	ck_assert_msg(left == 0, "%d workers outlived their creator", left);
}
END_TEST

/* Cancels as soon as the first worker process exists. */
static void *cancel_at_first_child(void *arg)
{
	struct canceller *c = arg;
	double until = now_s() + BOUND_S;
	pid_t pid;

	while (fgc_children(getpid(), &pid, 1) < 1 && now_s() < until)
		pause_ms(1);
	faultgen_run_cancel(c->run);
	return NULL;
}

/*
 * A cancel while many process workers are being started stops the
 * start: fewer are forked than asked.
 */
START_TEST(cancel_during_start_stops_forking)
{
	unsigned int n = 2048, forked = 0;
	struct faultgen_attr *a = long_attr(FAULTGEN_SHARED_VMA,
					    FAULTGEN_PROCESSES,
					    FAULTGEN_BACKING_ANON, n, n);
	struct canceller c = { .kind = FAULTGEN_PROCESSES, .workers = 1 };
	pthread_t t;
	int ret;

	ck_assert_int_eq(faultgen_attr_set_oversubscribe(a, 1), 0);
	ck_assert_int_eq(faultgen_run_create(a, &c.run), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, cancel_at_first_child, &c),
			 0);
	ret = faultgen_run_exec(c.run);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	if (ret == -EAGAIN) {
		faultgen_run_free(c.run);
		faultgen_attr_free(a);
		FGC_SKIP("cannot fork %u processes here", n);
	}
	ck_assert_msg(ret == -ECANCELED, "run gave %d (%s)", ret,
		      faultgen_strerror(ret));
	for (unsigned int i = 0; i < n; i++)
		forked += c.run->pids[i] > 0;
	ck_assert_msg(forked < n, "all %u workers were forked after a cancel",
		      n);
	faultgen_run_free(c.run);
	faultgen_attr_free(a);
	assert_nothing_left(getpid());
}
END_TEST

#define SIGNALS_SENT 200
static _Atomic int handled;
static _Atomic pid_t handled_on[SIGNALS_SENT];

static void record_thread(int sig)
{
	int k = atomic_fetch_add(&handled, 1);

	(void)sig;
	if (k < SIGNALS_SENT)
		handled_on[k] = (pid_t)syscall(SYS_gettid);
}

struct signalled_run {
	struct faultgen_run *run;
	_Atomic pid_t tid;
};

static void *run_in_thread(void *arg)
{
	struct signalled_run *sr = arg;

	sr->tid = (pid_t)syscall(SYS_gettid);
	faultgen_run_exec(sr->run);
	return NULL;
}

/*
 * Signals sent to the process while a thread run goes on run the
 * caller's handler on the caller's threads only: here the main thread
 * blocks the signal, so the kernel must choose between the thread that
 * called faultgen_run_exec and the library's workers.
 */
START_TEST(worker_threads_leave_signals_to_the_caller)
{
	struct faultgen_attr *a = long_attr(FAULTGEN_SHARED_VMA,
					    FAULTGEN_THREADS,
					    FAULTGEN_BACKING_ANON, 4, 256);
	struct sigaction sa = { .sa_handler = record_thread,
				.sa_flags = SA_RESTART };
	struct signalled_run sr = { 0 };
	int threads = fgc_threads();
	sigset_t usr2, old;
	pthread_t t;
	int k;

	ck_assert_int_eq(faultgen_attr_set_oversubscribe(a, 1), 0);
	ck_assert_int_eq(faultgen_run_create(a, &sr.run), 0);
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGUSR2, &sa, NULL), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, run_in_thread, &sr), 0);
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &usr2, &old);
	/* The caller's thread and its 4 workers. */
	while (fgc_threads() < threads + 5)
		pause_ms(1);
	for (k = 0; k < SIGNALS_SENT; k++) {
		kill(getpid(), SIGUSR2);
		pause_ms(1);
	}
	faultgen_run_cancel(sr.run);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_gt(atomic_load(&handled), 0);
	for (k = 0; k < atomic_load(&handled) && k < SIGNALS_SENT; k++)
		ck_assert_msg(handled_on[k] == sr.tid,
			      "signal %d ran the handler on thread %d, not on "
			      "the caller %d", k, (int)handled_on[k],
			      (int)sr.tid);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	faultgen_run_free(sr.run);
	faultgen_attr_free(a);
}
END_TEST

/*
 * Out of file descriptors, the read-only collapse cannot read the THP
 * settings or the kernel's counters: an error, not a THP verdict.
 */
START_TEST(collapse_without_descriptors_fails)
{
	struct faultgen_attr *a;
	struct faultgen_run *run;
	struct rlimit old, low;
	int fds[128], n, ret;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, FAULTGEN_RO_COLLAPSE), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 2 << 20), 0);
	ck_assert_int_eq(faultgen_attr_set_collapse(a, _i ?
				FAULTGEN_COLLAPSE_KHUGEPAGED :
				FAULTGEN_COLLAPSE_MADVISE), 0);
	ck_assert_int_eq(faultgen_attr_set_timeout(a, 0.2), 0);
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = old.rlim_cur < 64 ? old.rlim_cur : 64;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
	n = open_devnull(fds, 128);
	ck_assert_int_eq(errno, EMFILE);
	ret = faultgen_run_new(a, &run);
	while (n)
		close(fds[--n]);
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
	ck_assert_msg(ret == -EMFILE, "run gave %d (%s)", ret,
		      faultgen_strerror(ret));
	faultgen_attr_free(a);
}
END_TEST

/* ---- RLIMIT_AS ------------------------------------------------------ */

static long vm_size_bytes(void)
{
	char buf[4096], *p;

	if (fgc_read_file("/proc/self/status", buf, sizeof(buf)) <= 0)
		return -1;
	p = strstr(buf, "VmSize:");
	return p ? strtol(p + 7, NULL, 10) * 1024 : -1;
}

/* In a child of the test: the limit must not reach other tests. */
static int enomem_under_rlimit_as(enum faultgen_pattern pattern,
				  enum faultgen_workers kind,
				  enum faultgen_backing backing)
{
	struct faultgen_attr *a;
	struct faultgen_run *run;
	long vm = vm_size_bytes();
	struct rlimit rl;
	int ret;

	if (vm <= 0)
		return 10;
	rl.rlim_cur = rl.rlim_max = (rlim_t)vm + (64L << 20);
	if (setrlimit(RLIMIT_AS, &rl))
		return 11;
	if (faultgen_attr_new(&a) || faultgen_attr_set_pattern(a, pattern) ||
	    faultgen_attr_set_workers(a, 2, kind) ||
	    faultgen_attr_set_oversubscribe(a, 1) ||
	    faultgen_attr_set_backing(a, backing) ||
	    faultgen_attr_set_size(a, 1ULL << 30))
		return 12;
	ret = faultgen_run_new(a, &run);
	faultgen_attr_free(a);
	if (ret != -ENOMEM) {
		fprintf(stderr, "RLIMIT_AS: run gave %d (%s)\n", ret,
			faultgen_strerror(ret));
		if (!ret)
			faultgen_run_free(run);
		return 13;
	}
	if (run)
		return 14;
	if (fgc_shm_count(getpid(), NULL) != 0)
		return 15;
	if (!fgc_no_children())
		return 16;
	return 0;
}

START_TEST(rlimit_as_too_small_gives_enomem)
{
	enum faultgen_pattern pattern = _i % 2 ? FAULTGEN_PER_THREAD_VMA :
						 FAULTGEN_SHARED_VMA;
	enum faultgen_backing backing = (enum faultgen_backing)(_i / 2 % 3);
	enum faultgen_workers kind = _i / 6 ? FAULTGEN_PROCESSES :
					      FAULTGEN_THREADS;
	int st;
	pid_t p;

	if (fgc_under_sanitizer())
		FGC_SKIP("AddressSanitizer cannot run under RLIMIT_AS");
	p = fork();
	ck_assert_int_ge(p, 0);
	if (p == 0)
		_exit(enomem_under_rlimit_as(pattern, kind, backing));
	ck_assert_int_eq(waitpid(p, &st, 0), p);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "child status %#x (exit code = check number)", st);
}
END_TEST

/* ---- life cycle ----------------------------------------------------- */

static struct faultgen_attr *small_attr(void)
{
	struct faultgen_attr *a;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 16 * (uint64_t)fgc_pagesize()),
			 0);
	return a;
}

START_TEST(exec_twice_gives_ealready)
{
	struct faultgen_attr *a = small_attr();
	struct faultgen_result res = { .size = sizeof(res) };
	struct faultgen_run *run;

	ck_assert_int_eq(faultgen_run_create(a, &run), 0);
	ck_assert_int_eq(faultgen_run_exec(run), 0);
	ck_assert_int_eq(faultgen_run_exec(run), -EALREADY);
	/* The first run's figures are still there. */
	ck_assert_int_eq(faultgen_run_result(run, &res), 0);
	ck_assert_uint_eq(res.pages, 16);
	faultgen_run_free(run);

	/* After a failed exec too. */
	ck_assert_int_eq(faultgen_attr_set_cpus(a, "99999999"), -ERANGE);
	ck_assert_int_eq(faultgen_attr_set_cpuset(a, "fg-check-no-such-set"),
			 0);
	ck_assert_int_eq(faultgen_run_create(a, &run), 0);
	ck_assert_int_eq(faultgen_run_exec(run), -ENOENT);
	ck_assert_int_eq(faultgen_run_exec(run), -EALREADY);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(results_before_exec_give_enodata)
{
	struct faultgen_attr *a = small_attr();
	struct faultgen_result res = { .size = sizeof(res) };
	struct faultgen_worker_result w = { .size = sizeof(w) };
	struct faultgen_run *run;
	char buf[64];
	int worker = 5, signo = 5, err = 5;

	ck_assert_int_eq(faultgen_run_create(a, &run), 0);
	ck_assert_int_eq(faultgen_run_result(run, &res), -ENODATA);
	ck_assert_int_eq(faultgen_run_worker(run, 0, &w), -ENODATA);
	ck_assert_int_eq(faultgen_run_cpulist(run, buf, sizeof(buf)),
			 -ENODATA);
	assert_no_results(run);
	ck_assert_int_eq(faultgen_run_failure(run, &worker, &signo, &err), 0);
	ck_assert_int_eq(worker, -1);
	ck_assert_int_eq(signo, 0);
	ck_assert_int_eq(err, 0);
	ck_assert_str_eq(faultgen_run_cpuset_source(run), "");
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(rejects_null_run_arguments)
{
	struct faultgen_attr *a = small_attr();
	struct faultgen_result res = { .size = sizeof(res) };
	struct faultgen_worker_result w = { .size = sizeof(w) };
	struct faultgen_run *run = (struct faultgen_run *)&res;
	void *addr;
	size_t len;
	char buf[8];

	ck_assert_int_eq(faultgen_run_create(NULL, &run), -EINVAL);
	ck_assert_int_eq(faultgen_run_create(a, NULL), -EINVAL);
	ck_assert_int_eq(faultgen_run_new(a, NULL), -EINVAL);
	run = (struct faultgen_run *)&res;
	ck_assert_int_eq(faultgen_run_new(NULL, &run), -EINVAL);
	ck_assert_ptr_null(run);
	ck_assert_int_eq(faultgen_run_exec(NULL), -EINVAL);
	ck_assert_int_eq(faultgen_run_result(NULL, &res), -EINVAL);
	ck_assert_int_eq(faultgen_run_worker(NULL, 0, &w), -EINVAL);
	ck_assert_int_eq(faultgen_run_failure(NULL, NULL, NULL, NULL), -EINVAL);
	ck_assert_int_eq(faultgen_run_cpulist(NULL, buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(faultgen_run_region(NULL, &addr, &len), -EINVAL);
	faultgen_run_cancel(NULL);
	faultgen_run_free(NULL);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	ck_assert_int_eq(faultgen_run_result(run, NULL), -EINVAL);
	ck_assert_int_eq(faultgen_run_worker(run, 0, NULL), -EINVAL);
	ck_assert_int_eq(faultgen_run_cpulist(run, NULL, 8), -EINVAL);
	ck_assert_int_eq(faultgen_run_cpulist(run, buf, 0), -EINVAL);
	ck_assert_int_eq(faultgen_run_region(run, NULL, &len), -EINVAL);
	/* Failure of a run that succeeded: nothing to name. */
	ck_assert_int_eq(faultgen_run_failure(run, NULL, NULL, NULL), 0);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* An older caller knows only the first fields: nothing beyond its size
 * may be written, and what it knows is the same. */
START_TEST(honours_smaller_result_struct)
{
	struct faultgen_attr *a = small_attr();
	struct faultgen_result full = { .size = sizeof(full) };
	size_t old = offsetof(struct faultgen_result, minflt);
	unsigned char buf[sizeof(struct faultgen_result) + 64];
	struct faultgen_result *r = (struct faultgen_result *)buf;
	struct faultgen_run *run;

	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	ck_assert_int_eq(faultgen_run_result(run, &full), 0);
	memset(buf, 0xa5, sizeof(buf));
	r->size = old;
	ck_assert_int_eq(faultgen_run_result(run, r), 0);
	ck_assert_uint_eq(r->size, old);
	ck_assert_mem_eq((char *)r + sizeof(size_t),
			 (char *)&full + sizeof(size_t), old - sizeof(size_t));
	for (size_t i = old; i < sizeof(buf); i++)
		ck_assert_msg(buf[i] == 0xa5, "byte %zu written", i);
	/* The smallest struct there can be: its size and one field. */
	memset(buf, 0xa5, sizeof(buf));
	r->size = 2 * sizeof(size_t);
	ck_assert_int_eq(faultgen_run_result(run, r), 0);
	ck_assert_uint_eq(r->workers, 1);
	for (size_t i = 2 * sizeof(size_t); i < sizeof(buf); i++)
		ck_assert_int_eq(buf[i], 0xa5);
	r->size = sizeof(size_t);
	ck_assert_int_eq(faultgen_run_result(run, r), -EINVAL);
	r->size = 0;
	ck_assert_int_eq(faultgen_run_result(run, r), -EINVAL);
	/* A newer caller's larger struct: the tail is left alone. */
	memset(buf, 0xa5, sizeof(buf));
	r->size = sizeof(buf);
	ck_assert_int_eq(faultgen_run_result(run, r), 0);
	ck_assert_uint_eq(r->size, sizeof(buf));
	ck_assert_uint_eq(r->pages, full.pages);
	for (size_t i = sizeof(full); i < sizeof(buf); i++)
		ck_assert_int_eq(buf[i], 0xa5);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(honours_smaller_worker_struct)
{
	struct faultgen_attr *a = small_attr();
	struct faultgen_worker_result full = { .size = sizeof(full) };
	size_t old = offsetof(struct faultgen_worker_result, pages);
	unsigned char buf[sizeof(struct faultgen_worker_result) + 64];
	struct faultgen_worker_result *w = (struct faultgen_worker_result *)buf;
	struct faultgen_run *run;

	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	ck_assert_int_eq(faultgen_run_worker(run, 0, &full), 0);
	memset(buf, 0xa5, sizeof(buf));
	w->size = old;
	ck_assert_int_eq(faultgen_run_worker(run, 0, w), 0);
	ck_assert_uint_eq(w->size, old);
	ck_assert_mem_eq((char *)w + sizeof(size_t),
			 (char *)&full + sizeof(size_t), old - sizeof(size_t));
	for (size_t i = old; i < sizeof(buf); i++)
		ck_assert_msg(buf[i] == 0xa5, "byte %zu written", i);
	w->size = 1;
	ck_assert_int_eq(faultgen_run_worker(run, 0, w), -EINVAL);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(names_every_documented_error)
{
	static const int codes[] = {
		0,	     -EINVAL, -ENOMEM,	 -ERANGE, -ENXIO,    -ENOENT,
		-ENOBUFS,    -ENOSPC, -ECANCELED, -ECHILD, -EAGAIN,   -EPERM,
		-EACCES,     -EALREADY, -ENODATA, -EOPNOTSUPP, -EBUSY,
		-ETIMEDOUT, -EFAULT,  -EFBIG,	 -EMFILE, -ENFILE,
	};
	const char *unknown = faultgen_strerror(-9999);

	ck_assert_ptr_nonnull(unknown);
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		const char *s = faultgen_strerror(codes[i]);

		ck_assert_ptr_nonnull(s);
		ck_assert_msg(strcmp(s, unknown) != 0, "%d has no text",
			      codes[i]);
	}
	ck_assert_str_eq(faultgen_version(), FAULTGEN_VERSION_STRING);
}
END_TEST

static Suite *failure_suite(void)
{
	Suite *s = suite_create("failure");
	TCase *tc = tcase_create("killed");

	tcase_set_timeout(tc, 2 * BOUND_S);
	tcase_add_loop_test(tc, killed_worker_fails_run_naming_it, 0, 6);
	tcase_add_loop_test(tc, worker_killed_before_start_fails_run, 0, 4);
	tcase_add_test(tc, killed_worker_fails_run_when_sigchld_ignored);
	tcase_add_test(tc, killed_worker_fails_run_without_pidfds);
	suite_add_tcase(s, tc);

	tc = tcase_create("cancel");
	tcase_set_timeout(tc, 2 * BOUND_S);
	tcase_add_loop_test(tc, cancel_from_another_thread_ends_run, 0, 6);
	tcase_add_loop_test(tc, cancel_from_signal_handler_ends_run, 0, 2);
	tcase_add_test(tc, cancel_before_exec_runs_nothing);
	tcase_add_loop_test(tc, run_survives_interrupting_signals, 0, 2);
	suite_add_tcase(s, tc);

	tc = tcase_create("outlive");
	tcase_set_timeout(tc, 2 * BOUND_S);
	tcase_add_loop_test(tc, workers_end_when_their_creator_is_killed, 0, 2);
	tcase_add_test(tc, cancel_during_start_stops_forking);
	tcase_add_test(tc, worker_threads_leave_signals_to_the_caller);
	tcase_add_loop_test(tc, collapse_without_descriptors_fails, 0, 2);
	suite_add_tcase(s, tc);

	tc = tcase_create("memory");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, rlimit_as_too_small_gives_enomem, 0, 12);
	suite_add_tcase(s, tc);

	tc = tcase_create("lifecycle");
	tcase_add_test(tc, exec_twice_gives_ealready);
	tcase_add_test(tc, results_before_exec_give_enodata);
	tcase_add_test(tc, rejects_null_run_arguments);
	tcase_add_test(tc, honours_smaller_result_struct);
	tcase_add_test(tc, honours_smaller_worker_struct);
	tcase_add_test(tc, names_every_documented_error);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return fgc_main(failure_suite());
}
