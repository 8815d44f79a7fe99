// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * signals.c - pft's signal state, in both of its processes: the stop
 * signals, their handlers and the flags those set, the signals blocked
 * around a fork and between a check and a wait, and the waits a signal
 * ends.
 *
 * The supervisor passes each stop signal, and SIGUSR1, on to the run
 * child (forward_signal); the child's own handlers cancel the run in
 * progress (on_stop) or end -P's pause (on_resume).  Both remember the
 * first stop signal in stop_signo: the supervisor to exit 128+signal, the
 * child to stop waiting and to exit likewise.  The child starts from the
 * supervisor's 0: the stops stay blocked from before the fork until each
 * process has its own handlers.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pft.h"

static volatile sig_atomic_t stop_signo; /* the first stop signal */

/* The supervisor's: the run child, and the signals passed on to it. */
static volatile pid_t child_pid;
static sigset_t forward_set;

/* The run child's: the run a stop cancels, -P's "go on", and the
 * signals that stop the run, and SIGUSR1. */
static struct faultgen_run *_Atomic current_run;
static volatile sig_atomic_t resumed;
static sigset_t stop_set;

/* Faults are the process's own only when it raised them: after one
 * forwarded, a real one takes the default action. */
static bool is_fault_signal(int sig)
{
	return sig == SIGILL || sig == SIGTRAP || sig == SIGABRT ||
	       sig == SIGBUS || sig == SIGFPE || sig == SIGSEGV ||
	       sig == SIGSYS;
}

/*
 * Every signal whose default action ends a process and that a process can
 * catch, and SIGUSR1 (-P's "go on"): the run child handles the same set,
 * so each one sent to pft stops the run, which pft outlives.  A signal
 * ignored by whoever started pft stays ignored (SIGHUP under nohup;
 * SIGINT and SIGQUIT for a command a script runs in the background,
 * which Ctrl-C must not stop), except the faults, which are pft's own;
 * SIGPIPE is ignored: pft reports a closed output itself.
 */
void pft_stop_signals(sigset_t *set)
{
	static const int sigs[] = {
		SIGHUP,  SIGINT,  SIGQUIT,  SIGILL,    SIGTRAP, SIGABRT,
		SIGBUS,  SIGFPE,  SIGUSR2,  SIGSEGV,   SIGALRM, SIGTERM,
		SIGSTKFLT, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO,
		SIGPWR,  SIGSYS,
	};
	struct sigaction cur;

	sigemptyset(set);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(set, sigs[i]);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		sigaddset(set, sig);
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(set, sig) == 1 && !is_fault_signal(sig) &&
		    sigaction(sig, NULL, &cur) == 0 &&
		    cur.sa_handler == SIG_IGN)
			sigdelset(set, sig);
}

void pft_catch_signals(const sigset_t *set, void (*handler)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_mask = *set;
	sa.sa_handler = handler;
	for (int sig = 1; sig < NSIG; sig++) {
		if (!sigismember(set, sig))
			continue;
		/* No SA_RESTART: a wait must return when a signal comes. */
		sa.sa_flags = is_fault_signal(sig) ? SA_RESETHAND : 0;
		sigaction(sig, &sa, NULL);
	}
}

int pft_stop_signal(void)
{
	return stop_signo;
}

static void forward_signal(int sig)
{
	pid_t pid = child_pid;

	if (sig != SIGUSR1 && !stop_signo)
		stop_signo = sig;
	if (pid > 0)
		kill(pid, sig);
}

/*
 * The supervisor's signals, before it forks: the stops and SIGUSR1 are
 * caught to be passed on, and blocked until pft_forward_signals() names
 * the child; SIGCHLD stays blocked, to be waited for.  child_mask is the
 * mask the run child is to run with.
 */
void pft_supervisor_signals(sigset_t *child_mask)
{
	sigset_t stops, old;

	/* Whoever started pft may have ignored SIGCHLD (then no child can
	 * be waited for) or blocked signals: pft sets what it needs. */
	signal(SIGCHLD, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	pft_stop_signals(&stops);
	sigaddset(&stops, SIGUSR1);
	sigprocmask(SIG_BLOCK, NULL, &old);
	*child_mask = old;
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(&stops, sig) || sig == SIGCHLD)
			sigdelset(child_mask, sig);
	/* Until child_pid is known, a signal waits (blocked) rather than
	 * being lost; SIGCHLD stays blocked, for wait_run. */
	sigaddset(&stops, SIGCHLD);
	sigprocmask(SIG_BLOCK, &stops, NULL);
	sigdelset(&stops, SIGCHLD);
	pft_catch_signals(&stops, forward_signal);
	forward_set = stops;
}

/* From now on the signals go to pid: unblocked. */
void pft_forward_signals(pid_t pid)
{
	child_pid = pid;
	sigprocmask(SIG_UNBLOCK, &forward_set, NULL);
}

/* The child is gone: its pid may be another process's soon. */
void pft_forward_signals_end(void)
{
	child_pid = 0;
}

static void on_stop(int sig)
{
	struct faultgen_run *run = atomic_load(&current_run);

	if (!stop_signo)
		stop_signo = sig;
	/* Async-signal-safe by contract: atomic stores and futex wakes. */
	if (run)
		faultgen_run_cancel(run); // NOLINT(bugprone-signal-handler)
}

static void on_resume(int sig)
{
	(void)sig;
	resumed = 1;
}

/*
 * The same stop signals as the supervisor's, each of which cancels the
 * run; SIGUSR1 ends -P's pause.  Handlers without SA_RESTART: a sleep or
 * a pause must return when a signal comes.
 */
void pft_child_signals(void)
{
	struct sigaction sa;
	sigset_t stops;

	pft_stop_signals(&stops);
	stop_set = stops;
	sigaddset(&stop_set, SIGUSR1);
	pft_catch_signals(&stops, on_stop);
	memset(&sa, 0, sizeof(sa));
	sa.sa_mask = stop_set;
	sa.sa_handler = on_resume;
	sigaction(SIGUSR1, &sa, NULL);
	/* A reader that goes away (perf, or "| head") is an error to
	 * report, not a silent death. */
	signal(SIGPIPE, SIG_IGN);
}

/* The run a stop signal cancels from now on; NULL: none. */
void pft_cancel_on_stop(struct faultgen_run *run)
{
	atomic_store(&current_run, run);
}

/* Blocks the stop signals and SIGUSR1 between a check and a wait. */
void pft_block_stops(sigset_t *old)
{
	sigprocmask(SIG_BLOCK, &stop_set, old);
}

static struct timespec deadline_in(double seconds)
{
	struct timespec end;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)seconds;
	end.tv_nsec += (long)((seconds - (double)(time_t)seconds) * 1e9);
	if (end.tv_nsec >= 1000000000) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000;
	}
	return end;
}

/* Time left until end; false once it has passed. */
static bool time_left(const struct timespec *end, struct timespec *left)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	left->tv_sec = end->tv_sec - now.tv_sec;
	left->tv_nsec = end->tv_nsec - now.tv_nsec;
	if (left->tv_nsec < 0) {
		left->tv_sec--;
		left->tv_nsec += 1000000000;
	}
	return left->tv_sec >= 0;
}

/* -s: waits `seconds`, or until a stop signal. */
void pft_sleep_unless_stopped(double seconds)
{
	struct timespec end = deadline_in(seconds), left;
	sigset_t old;

	pft_block_stops(&old);
	while (!stop_signo && time_left(&end, &left))
		ppoll(NULL, 0, &left, &old);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/*
 * -P: waits for SIGUSR1 or a stop signal.  Only a SIGUSR1 sent after the
 * message counts: one that came during the run (or -s) is forgotten, and
 * none sent after the message is missed (blocked until ppoll).
 */
void pft_pause_until_resumed(void)
{
	sigset_t old;

	pft_block_stops(&old);
	resumed = 0;
	pft_msg("paused with the memory mapped, pid %d: send SIGUSR1 to go "
		"on, SIGINT to stop", (int)getpid());
	while (!stop_signo && !resumed)
		ppoll(NULL, 0, NULL, &old);
	sigprocmask(SIG_SETMASK, &old, NULL);
}
