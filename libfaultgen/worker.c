// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * worker.c - starting workers (threads or forked processes) at one gate,
 * and watching for workers that die.
 *
 * Forked workers come from a process that may have many threads (a JVM):
 * until they _exit they only make system calls and touch memory, and they
 * report through the shared mapping.  Everything they need (CPU masks) is
 * allocated before fork.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* How often the controller looks for dead children when it has no pidfds
 * to sleep on. */
#define WATCH_NS (20 * 1000 * 1000)

/* How long a worker at the gate spins before it sleeps. */
#define GATE_SPIN_NS (2 * 1000 * 1000)

struct worker_arg {
	struct faultgen_run *run;
	cpu_set_t *pin; /* this worker's scratch mask */
	unsigned int index;
	const struct fg_work *work;
	unsigned int spread_base; /* fg_spread_base() */
};

/*
 * Unpinned workers, no more of them than CPUs, wait at the start gate
 * each bound to a CPU of its own: left to the scheduler, two of them often
 * wait on one CPU (a futex wake-up lands the sleeper on the waker's CPU)
 * and the second starts milliseconds late, when the load balancer moves
 * it.  The binding ends as the gate opens, before the measurement.
 */
static bool spread_at_start(const struct faultgen_run *run, bool barrier)
{
	return barrier && !run->attr.pin && run->attr.nr_workers > 1 &&
	       run->attr.nr_workers <= run->cpus.count;
}

/*
 * Each worker has a scratch mask, allocated before it starts: a worker
 * never allocates (a forked child may not; in a thread, a first malloc
 * makes glibc reserve a 64 MiB arena in the caller's address space).
 */
int fg_bind_to_cpu(const struct faultgen_run *run, void *mask, int cpu)
{
	size_t size = run->cpuset_size;
	cpu_set_t *pin = mask;

	CPU_ZERO_S(size, pin);
	CPU_SET_S((size_t)cpu, size, pin);
	return sched_setaffinity(0, size, pin) < 0 ? -errno : 0;
}

static int place_self(struct worker_arg *wa)
{
	struct faultgen_run *run = wa->run;
	unsigned int i = wa->index;
	struct fg_wstat *w = &run->sh->w[i];
	size_t size = run->cpuset_size;
	cpu_set_t *set = run->cpuset_buf;
	int ret;

	w->cpu = -1;
	if (run->attr.pin) {
		w->cpu = fg_cpu_for_worker(&run->cpus, i);
		ret = fg_bind_to_cpu(run, wa->pin, w->cpu);
		if (ret)
			return ret;
	} else if (spread_at_start(run, wa->work->barrier)) {
		/* Best effort: the run is valid without it. */
		fg_bind_to_cpu(run, wa->pin,
			    fg_cpu_for_worker(&run->cpus, wa->spread_base + i));
	} else if (sched_setaffinity(0, size, set) < 0) {
		return -errno;
	}
	return run->attr.sched_fifo ? fg_fifo_self() : 0;
}

/* The calling thread under SCHED_FIFO, at the middle of its
 * priorities (faultgen_attr_set_sched_fifo). */
int fg_fifo_self(void)
{
	struct sched_param sp;
	int lo = sched_get_priority_min(SCHED_FIFO);
	int hi = sched_get_priority_max(SCHED_FIFO);

	sp.sched_priority = lo + (hi - lo) / 2;
	return sched_setscheduler(0, SCHED_FIFO, &sp) < 0 ? -errno : 0;
}

static void open_gate(struct fg_gate *g, uint32_t how)
{
	uint32_t zero = 0;

	atomic_compare_exchange_strong(&g->go, &zero, how);
	fg_futex_wake(&g->go);
}

/* Lets every worker out of every gate without running; signal-safe. */
void fg_gates_abort(struct fg_shared *sh)
{
	atomic_store(&sh->cancel, 1);
	open_gate(&sh->start, 2);
	open_gate(&sh->measure, 2);
	fg_futex_wake(&sh->done);
}

/*
 * A barrier: the last worker to arrive opens it.  While there are no more
 * workers than CPUs the others spin a little before sleeping, so that
 * they leave together instead of one futex wake-up after another.  The
 * spin yields: a worker still on its way to the gate may be queued on the
 * spinner's CPU (a new thread or child often starts on its creator's CPU
 * and moves to its own only once it runs), and a plain spin would hold it
 * off for the whole spin.
 * Returns false when the run is being aborted.
 */
bool fg_gate_pass(struct faultgen_run *run, struct fg_gate *g)
{
	unsigned int n = run->attr.nr_workers;
	int64_t until;
	uint32_t go;

	if (atomic_fetch_add(&g->ready, 1) + 1 == n) {
		atomic_store(&g->open_ns, fg_now_ns());
		open_gate(g, 1);
	}
	if (n <= run->cpus.count) {
		until = fg_now_ns() + GATE_SPIN_NS;
		while (atomic_load(&g->go) == 0 && fg_now_ns() < until)
			sched_yield();
	}
	while ((go = atomic_load(&g->go)) == 0)
		fg_futex_wait(&g->go, 0, -1);
	return go == 1;
}

struct step {
	int (*fn)(struct faultgen_run *run, unsigned int i);
	struct faultgen_run *run;
	unsigned int i;
};

static int run_step(void *ctx)
{
	const struct step *s = ctx;

	return s->fn(s->run, s->i);
}

/* A worker's prepare or body, its SIGBUS caught when asked (sigbus.c). */
static int guarded(struct worker_arg *wa,
		   int (*fn)(struct faultgen_run *run, unsigned int i))
{
	struct step s = { fn, wa->run, wa->index };

	return fg_sigbus_guard(wa->run, wa->index, run_step, &s);
}

static void worker_main(struct worker_arg *wa)
{
	struct faultgen_run *run = wa->run;
	struct fg_shared *sh = run->sh;
	struct fg_wstat *w = &sh->w[wa->index];
	int lock_fds[FG_LOCK_EVENTS];

	w->pid = (int)getpid();
	w->tid = fg_gettid();
	w->error = place_self(wa);
	fg_lock_worker_open(run, w, lock_fds);
	fg_wait_worker_open(run, wa->index);
	if (!w->error && wa->work->prepare)
		w->error = guarded(wa, wa->work->prepare);
	if (!wa->work->barrier) {
		if (!w->error)
			w->error = guarded(wa, wa->work->body);
	} else {
		bool go = fg_gate_pass(run, &sh->start);

		if (spread_at_start(run, true) && !w->error &&
		    sched_setaffinity(0, run->cpuset_size, run->cpuset_buf) < 0)
			w->error = -errno;
		if (go && !w->error)
			w->error = guarded(wa, wa->work->body);
	}
	/* One worker failing stops the others (and lets them out of any
	 * gate they are waiting at). */
	if (w->error)
		fg_gates_abort(sh);
	fg_wait_worker_close(run, wa->index);
	fg_lock_worker_close(w, lock_fds);
	atomic_store(&w->finished, 1);
	atomic_fetch_add(&sh->done, 1);
	fg_futex_wake(&sh->done);
}

static void *thread_main(void *arg)
{
	worker_main(arg);
	return NULL;
}

/*
 * Worker 0 in the calling thread (faultgen_attr_set_caller_worker): the
 * thread gets its affinity and scheduling policy back afterwards.  Best
 * effort: a cpuset changed meanwhile can refuse the old mask.
 */
static void caller_work(struct worker_arg *wa)
{
	struct faultgen_run *run = wa->run;
	cpu_set_t *mask = run->caller_mask;
	bool have_mask = sched_getaffinity(0, run->cpuset_size, mask) == 0;
	/* Only SCHED_FIFO changes the policy; the mask is always set. */
	int policy = run->attr.sched_fifo ? sched_getscheduler(0) : -1;
	struct sched_param sp;
	bool have_sp = policy >= 0 && sched_getparam(0, &sp) == 0;

	worker_main(wa);
	if (have_mask)
		sched_setaffinity(0, run->cpuset_size, mask);
	if (have_sp)
		sched_setscheduler(0, policy, &sp);
}

/*
 * The calling thread faulting for a pattern outside fg_workers_run
 * (qemu.c's caller alone, pretouch.c's start-up memory): placed as
 * place_self places a worker, on the run's CPUs, or on cpu alone (>= 0:
 * pinned), its own mask kept for fg_caller_restore as caller_work keeps
 * it.  A mask that cannot be read is not given back.
 */
int fg_caller_place(struct faultgen_run *run, int cpu)
{
	size_t size = run->cpuset_size;
	cpu_set_t *saved;

	/* The thread's mask, then a scratch mask to pin it. */
	run->caller_mask = saved = calloc(2, size);
	if (!saved)
		return -ENOMEM;
	if (sched_getaffinity(0, size, saved) < 0)
		CPU_ZERO_S(size, saved);
	if (cpu >= 0)
		return fg_bind_to_cpu(run, (cpu_set_t *)((char *)saved + size),
				   cpu);
	return sched_setaffinity(0, size, run->cpuset_buf) < 0 ? -errno : 0;
}

/* After fg_caller_place, even a failed one: best effort, as caller_work. */
void fg_caller_restore(struct faultgen_run *run)
{
	cpu_set_t *saved = run->caller_mask;

	if (!saved)
		return;
	if (CPU_COUNT_S(run->cpuset_size, saved))
		sched_setaffinity(0, run->cpuset_size, saved);
	free(saved);
	run->caller_mask = NULL;
}

static bool run_cancelled(struct faultgen_run *run)
{
	if (atomic_load(&run->cancelled)) {
		fg_gates_abort(run->sh);
		return true;
	}
	return false;
}

static int first_worker_error(struct faultgen_run *run, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		int err = run->sh->w[i].error;

		if (err && err != -ECANCELED) {
			run->fail_worker = (int)i;
			run->fail_error = err;
			run->fail_signo = run->sh->w[i].signo;
			return err;
		}
	}
	return atomic_load(&run->cancelled) ? -ECANCELED : 0;
}

/*
 * Blocks (in the calling thread, *old keeps its mask) every signal but
 * the synchronous ones a fault raises, so that the threads created next
 * inherit that mask: a signal sent to the process then runs the
 * caller's handler on one of the caller's own threads, never on a
 * worker that holds a gate or a futex.
 */
static void block_async_signals(sigset_t *old)
{
	static const int sync_signals[] = { SIGSEGV, SIGBUS, SIGFPE,
					    SIGILL,  SIGTRAP, SIGSYS };
	sigset_t set;

	sigfillset(&set);
	for (size_t i = 0; i < sizeof(sync_signals) / sizeof(*sync_signals);
	     i++)
		sigdelset(&set, sync_signals[i]);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

/* Worker threads, created with a cancel looked for between each two:
 * starting thousands takes a while. */
static int start_threads(struct faultgen_run *run, struct worker_arg *args,
			 unsigned int n, pthread_t *tids, unsigned int *started)
{
	size_t stack = FG_WORKER_STACK;
	pthread_attr_t pa;
	sigset_t old;
	int ret = 0;

	if (stack < (size_t)PTHREAD_STACK_MIN)
		stack = PTHREAD_STACK_MIN;
	pthread_attr_init(&pa);
	pthread_attr_setstacksize(&pa, stack);
	block_async_signals(&old);
	for (; *started < n && !atomic_load(&run->cancelled); (*started)++) {
		ret = pthread_create(&tids[*started], &pa, thread_main,
				     &args[*started]);
		if (ret) {
			run->fail_worker = (int)*started;
			run->fail_error = -ret;
			ret = -ret;
			break;
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&pa);
	return ret;
}

/* A helper thread (struct fg_work): it waits for the start gate without
 * being counted there. */
struct helper_arg {
	struct faultgen_run *run;
	const struct fg_work *work;
	unsigned int index;
	int error;
};

static void *helper_main(void *arg)
{
	struct helper_arg *ha = arg;
	struct fg_shared *sh = ha->run->sh;
	uint32_t go;

	fg_lock_helper_open(ha->run, ha->index);
	fg_wait_helper_open(ha->run, ha->index);
	while ((go = atomic_load(&sh->start.go)) == 0)
		fg_futex_wait(&sh->start.go, 0, -1);
	if (go == 1)
		ha->error = ha->work->helper(ha->run, ha->index);
	fg_wait_helper_close(ha->run, ha->index);
	/* A failing helper stops the workers, as a failing worker does. */
	if (ha->error && ha->error != -ECANCELED)
		fg_gates_abort(sh);
	return NULL;
}

/* Every worker is through, or the run is being cancelled. */
FG_TESTABLE bool fg_helpers_stop(const struct faultgen_run *run)
{
	return atomic_load(&run->sh->helpers_stop) ||
	       fg_cancel_requested(run->sh);
}

void fg_measure_begin(struct faultgen_run *run)
{
	/* Read before the phase opens: what a helper does once it saw the
	 * phase open is after it. */
	int64_t now = run->attr.lock_waits ? fg_now_ns() : 0;

	if (atomic_fetch_add(&run->sh->measure_begun, 1) == 0) {
		fg_lock_phase(run, false);
		fg_wait_phase(run, false, now);
	}
}

void fg_measure_end(struct faultgen_run *run)
{
	if (atomic_fetch_add(&run->sh->measure_ended, 1) + 1 ==
	    run->attr.nr_workers) {
		fg_lock_phase(run, true);
		fg_wait_phase(run, true, fg_now_ns());
	}
}

/* A worker has begun its measured interval. */
bool fg_measure_open(const struct faultgen_run *run)
{
	return atomic_load(&run->sh->measure_begun) > 0;
}

/* Every worker has ended its measured interval. */
bool fg_measure_over(const struct faultgen_run *run)
{
	return atomic_load(&run->sh->measure_ended) >= run->attr.nr_workers;
}

struct helpers {
	unsigned int n, started;
	pthread_t *tids;
	struct helper_arg *args;
};

/* Started before the workers, with their signal mask: they are ready
 * when the gate opens. */
static int start_helpers(struct faultgen_run *run, const struct fg_work *work,
			 struct helpers *h)
{
	sigset_t old;
	int ret = 0;

	h->n = work->helpers ? work->helpers(run) : 0;
	if (!h->n)
		return 0;
	ret = fg_lock_helpers_new(run, h->n);
	if (!ret)
		ret = fg_wait_helpers_new(run, h->n);
	if (ret)
		return ret;
	h->tids = calloc(h->n, sizeof(*h->tids));
	h->args = calloc(h->n, sizeof(*h->args));
	if (!h->tids || !h->args)
		return -ENOMEM;
	block_async_signals(&old);
	for (; h->started < h->n && !ret; h->started++) {
		h->args[h->started] = (struct helper_arg){
			.run = run, .work = work, .index = h->started };
		ret = -pthread_create(&h->tids[h->started], NULL, helper_main,
				      &h->args[h->started]);
	}
	if (ret)
		h->started--;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}

/* Once the workers are through: the helpers' first error, or 0. */
static int stop_helpers(struct faultgen_run *run, struct helpers *h)
{
	int ret = 0;

	atomic_store(&run->sh->helpers_stop, 1);
	/* Gates a failed start left closed. */
	if (atomic_load(&run->sh->start.go) == 0)
		fg_gates_abort(run->sh);
	for (unsigned int i = 0; i < h->started; i++) {
		pthread_join(h->tids[i], NULL);
		if (!ret && h->args[i].error != -ECANCELED)
			ret = h->args[i].error;
	}
	fg_lock_helpers_done(run);
	fg_wait_helpers_done(run);
	free(h->tids);
	free(h->args);
	return ret;
}

static int run_threads(struct faultgen_run *run, struct worker_arg *args,
		       unsigned int n)
{
	pthread_t *tids = calloc(n, sizeof(*tids));
	unsigned int first = run->attr.caller_worker ? 1 : 0;
	unsigned int started = first;
	struct helpers helpers = { 0 };
	int ret, hret;

	if (!tids)
		return -ENOMEM;
	ret = start_helpers(run, args[0].work, &helpers);
	if (!ret)
		ret = start_threads(run, args, n, tids, &started);
	/* The last worker opens the gate; when some could not start (or a
	 * cancel stopped the start), the others must be let out. */
	if (ret || started < n)
		fg_gates_abort(run->sh);
	else if (first)
		caller_work(&args[0]);
	run_cancelled(run);
	for (unsigned int i = first; i < started; i++)
		pthread_join(tids[i], NULL);
	free(tids);
	hret = stop_helpers(run, &helpers);
	if (ret)
		return ret;
	ret = first_worker_error(run, n);
	if (hret && (!ret || ret == -ECANCELED)) {
		run->fail_error = hret;
		ret = hret;
	}
	return ret;
}

/* A child is gone when waitpid reaps it; records the first failure. */
static bool reap_children(struct faultgen_run *run, unsigned int n,
			  bool *reaped, bool block)
{
	bool failed = false;

	for (unsigned int i = 0; i < n; i++) {
		int st;
		pid_t p;

		if (reaped[i])
			continue;
		/* A caller's signal handler without SA_RESTART interrupts
		 * the blocking wait: the child must still be reaped. */
		do
			p = waitpid(run->pids[i], &st, block ? 0 : WNOHANG);
		while (block && p < 0 && errno == EINTR);
		if (p == 0 || (p < 0 && errno == EINTR))
			continue;
		reaped[i] = true;
		/* ECHILD: the caller ignores SIGCHLD and the kernel reaped
		 * the child; if it had not finished, it died. */
		if (p < 0 && (errno != ECHILD ||
			      atomic_load(&run->sh->w[i].finished)))
			continue;
		if (p > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
			continue;
		if (run->fail_worker < 0) {
			run->fail_worker = (int)i;
			run->fail_signo = p > 0 && WIFSIGNALED(st) ?
						  WTERMSIG(st) :
						  0;
			if (!run->fail_signo)
				run->fail_error = -ECHILD;
		}
		failed = true;
	}
	return failed;
}

static void kill_children(struct faultgen_run *run, unsigned int n,
			  bool *reaped)
{
	for (unsigned int i = 0; i < n; i++)
		if (!reaped[i] && run->pids[i] > 0)
			kill(run->pids[i], SIGKILL);
}

/*
 * Opens a pidfd for each child, so that the watch can sleep until one of
 * them exits.  Returns false (and opens none) when the kernel has no
 * pidfd_open (before 5.3) or the caller is out of descriptors: the watch
 * then looks every WATCH_NS.
 */
static bool open_pidfds(struct faultgen_run *run, unsigned int n,
			struct pollfd *pfd)
{
#ifdef SYS_pidfd_open
	for (unsigned int i = 0; i < n; i++) {
		pfd[i].events = POLLIN;
		pfd[i].fd = -1; /* the caller's own slot: no child */
		if (run->reaped[i])
			continue;
		pfd[i].fd = (int)syscall(SYS_pidfd_open, run->pids[i], 0);
		if (pfd[i].fd < 0) {
			while (i--)
				if (pfd[i].fd >= 0)
					close(pfd[i].fd);
			return false;
		}
	}
	return true;
#else
	(void)run;
	(void)n;
	(void)pfd;
	return false;
#endif
}

/*
 * Sleeps until a child may have exited: on the pidfds of the children not
 * yet reaped, or a while on the done count.  A cancel needs no wake-up
 * here: it stops the workers, and their exits end the sleep.  With every
 * child reaped only the calling thread's worker can still be running:
 * its count of itself done (or a cancel) ends the sleep.
 */
static void watch_sleep(struct faultgen_run *run, unsigned int n,
			uint32_t all_done, const bool *reaped,
			struct pollfd *pfd, bool pidfds)
{
	unsigned int k = 0;

	if (!pidfds) {
		fg_futex_wait(&run->sh->done, all_done, WATCH_NS);
		return;
	}
	/* A reaped child's pidfd polls as hung up for ever: closed, and
	 * its slot ignored. */
	for (unsigned int i = 0; i < n; i++) {
		if (reaped[i] && pfd[i].fd >= 0) {
			close(pfd[i].fd);
			pfd[i].fd = -1;
		}
		k += !reaped[i];
	}
	if (k)
		poll(pfd, n, -1); /* EINTR: the caller looks again */
	else
		fg_futex_wait(&run->sh->done, all_done, -1);
}

/* The watch of a process run, in the calling thread or a thread of its. */
struct watch {
	struct faultgen_run *run;
	unsigned int n; /* worker slots: the children's and the caller's */
	struct pollfd *pfd;
	bool pidfds;
	bool failed;
	int ret; /* a fork failed: stop the children there are */
};

/*
 * A child that dies by a signal (OOM killer, kill -9), before the start
 * gate or after it, must not leave the run waiting; the others are
 * stopped.  A child that counted itself done is only on its way out:
 * every worker done, they are reaped at once.
 */
static void watch_children(struct watch *wt)
{
	struct faultgen_run *run = wt->run;
	bool *reaped = run->reaped;
	uint32_t all_done;

	for (;;) {
		all_done = atomic_load(&run->sh->done);
		if (reap_children(run, wt->n, reaped, false))
			wt->failed = true;
		if (wt->failed || wt->ret) {
			fg_gates_abort(run->sh);
			kill_children(run, wt->n, reaped);
			reap_children(run, wt->n, reaped, true);
			return;
		}
		if (run_cancelled(run) || all_done >= wt->n) {
			reap_children(run, wt->n, reaped, true);
			return;
		}
		watch_sleep(run, wt->n, all_done, reaped, wt->pfd, wt->pidfds);
	}
}

static void *watch_main(void *arg)
{
	watch_children(arg);
	return NULL;
}

/*
 * In a forked worker, before anything else.  It ends with the thread that
 * created it (SIGKILL), whenever that dies; a creator gone even before
 * this was set up is caught by the parent check.  The caller's signal
 * handlers would run in a copy of its process: a signal sent to the
 * worker takes its default action instead.  System calls only.
 */
static void child_setup(pid_t creator)
{
	struct sigaction sa;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != creator)
		_exit(1);
	for (int sig = 1; sig < NSIG; sig++) {
		if (sigaction(sig, NULL, &sa) < 0 ||
		    sa.sa_handler == SIG_DFL || sa.sa_handler == SIG_IGN)
			continue;
		sa.sa_handler = SIG_DFL;
		sa.sa_flags = 0;
		sigaction(sig, &sa, NULL);
	}
}

static int run_processes(struct faultgen_run *run, struct worker_arg *args,
			 unsigned int n)
{
	pid_t creator = getpid();
	unsigned int first = run->attr.caller_worker ? 1 : 0;
	struct watch wt = { .run = run };
	unsigned int started = first;
	bool watcher_runs = false;
	pthread_t watcher;
	bool *reaped;

	/* Held by the run, not only by this frame: a forked child keeps a
	 * copy of everything allocated before the fork, and a leak checker
	 * in it must find these still referenced. */
	run->pids = calloc(n, sizeof(*run->pids));
	run->reaped = reaped = calloc(n, sizeof(*reaped));
	if (!reaped || !run->pids)
		return -ENOMEM;
	/* Worker 0 in the calling thread: its slot has no child. */
	if (first)
		reaped[0] = true;
	for (; started < n && !atomic_load(&run->cancelled); started++) {
		pid_t p = fork();

		if (p == 0) {
			child_setup(creator);
			fg_sigbus_child(run);
			worker_main(&args[started]);
			_exit(0);
		}
		if (p < 0) {
			run->fail_worker = (int)started;
			run->fail_error = -errno;
			wt.ret = -errno;
			break;
		}
		run->pids[started] = p;
	}
	/* Allocated after the forks: a child holds nothing it does not use
	 * (a leak checker in the child would count it lost). */
	wt.n = started;
	if (!wt.ret && started > 0)
		wt.pfd = calloc(started, sizeof(*wt.pfd));
	wt.pidfds = wt.pfd && open_pidfds(run, started, wt.pfd);
	/* While the calling thread works, a thread of its watches the
	 * children: a death must stop it even at a gate. */
	if (!wt.ret && first && started == n && n > first) {
		sigset_t old;
		int err;

		block_async_signals(&old);
		err = pthread_create(&watcher, NULL, watch_main, &wt);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (err)
			wt.ret = -err;
		watcher_runs = !err;
	}
	/* Cut short by a cancel: the watch lets out and reaps the others. */
	if (!wt.ret && first && started == n)
		caller_work(&args[0]);
	if (watcher_runs)
		pthread_join(watcher, NULL);
	else
		watch_children(&wt);
	for (unsigned int i = 0; wt.pidfds && i < started; i++)
		if (wt.pfd[i].fd >= 0)
			close(wt.pfd[i].fd);
	free(wt.pfd);
	if (wt.ret)
		return wt.ret;
	if (wt.failed || run->fail_worker >= 0) {
		if (run->fail_signo || run->fail_error == -ECHILD)
			return -ECHILD;
	}
	return first_worker_error(run, n);
}

/*
 * Starts nr_workers workers, each running work->prepare (when given) and
 * work->body for its index.  With work->barrier, all wait at one gate
 * between the two and start together; the helpers of work (threads
 * only) run beside them from that gate until the last worker is through.
 * Returns the first error: a worker's own (-errno), -ECHILD for a dead
 * child, a helper's, -ECANCELED.
 */
FG_TESTABLE int fg_workers_run(struct faultgen_run *run,
			       const struct fg_work *work)
{
	unsigned int n = run->attr.nr_workers;
	struct worker_arg *args;
	char *masks;
	unsigned int base = 0;
	int ret;

	/* Helpers share the workers' memory and start at their gate. */
	if (work->helpers && (run->attr.kind != FAULTGEN_THREADS ||
			      !work->barrier || !work->helper))
		return -EINVAL;
	args = calloc(n, sizeof(*args));
	masks = calloc(n, run->cpuset_size);
	if (!args || !masks) {
		free(args);
		free(masks);
		return -ENOMEM;
	}
	/* A calling thread that is worker 0 keeps its CPU in the spread. */
	if (run->attr.caller_worker && spread_at_start(run, work->barrier))
		base = fg_spread_base(&run->cpus, sched_getcpu());
	for (unsigned int i = 0; i < n; i++) {
		args[i].run = run;
		args[i].index = i;
		args[i].work = work;
		args[i].spread_base = base;
		args[i].pin = (cpu_set_t *)(masks +
					    (size_t)i * run->cpuset_size);
	}
	/* Held by the run: forked children keep a copy (see pids).  Without
	 * it the calling thread could not get its own mask back. */
	if (run->attr.caller_worker) {
		run->caller_mask = malloc(run->cpuset_size);
		if (!run->caller_mask) {
			free(masks);
			free(args);
			return -ENOMEM;
		}
	}
	if (run->attr.kind == FAULTGEN_PROCESSES)
		ret = run_processes(run, args, n);
	else
		ret = run_threads(run, args, n);
	free(run->caller_mask);
	run->caller_mask = NULL;
	free(masks);
	free(args);
	return ret;
}
