// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * supervisor.c - the parent pft: it forks one child that does the whole
 * run and prints, and waits for it, as 0.12x's launcher did, so that a
 * run killed by the OOM killer (which takes every thread of a
 * thread-mode run) or by a signal is still reported, with a status that
 * says so.  The parent passes every terminating signal it can catch, and
 * SIGUSR1, on to the child, exits only once the run is gone (killing it
 * if it has not stopped STOP_GRACE_S seconds after such a signal), and is
 * the reaper of any worker process left behind by a child that died, so
 * none survives.  The handler that passes signals on is in signals.c.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pft.h"

/* How long a run has to stop after a signal before it is killed. */
#define STOP_GRACE_S 5

static bool run_killed; /* pft killed the run after STOP_GRACE_S */

/* The parent of pid, from /proc/pid/stat (after the command's ')'). */
static pid_t parent_of(const char *pid)
{
	char path[300], buf[512], *p, *end;
	long ppid;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	if (pft_read_line(path, buf, sizeof(buf)) < 0)
		return -1;
	/* "pid (comm) state ppid ...": comm may hold spaces and ')'. */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
		return -1;
	ppid = strtol(p + 4, &end, 10);
	if (end == p + 4)
		return -1;
	return (pid_t)ppid;
}

static int kill_children_of(pid_t self)
{
	struct dirent *de;
	int killed = 0;
	DIR *d;

	d = opendir("/proc");
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		if (parent_of(de->d_name) == self &&
		    kill((pid_t)strtol(de->d_name, NULL, 10), SIGKILL) == 0)
			killed++;
	}
	closedir(d);
	return killed;
}

/*
 * pft is the subreaper of its child's descendants: the worker processes
 * of a child that died are re-parented here.  Kill and reap them.
 */
static void reap_orphans(void)
{
	pid_t self = getpid(), p;

	for (int pass = 0; pass < 1000; pass++) {
		while ((p = waitpid(-1, NULL, WNOHANG)) > 0)
			;
		if (p < 0 && errno != EINTR)
			return; /* ECHILD: none left */
		if (kill_children_of(self))
			waitpid(-1, NULL, 0);
		else
			usleep(10000); /* one still on its way to us */
	}
}

static int exit_status_of(const struct pft_opts *o, int st)
{
	int sig;

	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (!WIFSIGNALED(st))
		return PFT_EXIT_FAIL;
	sig = WTERMSIG(st);
	if (sig == SIGKILL && pft_oom_killed(&o->oom_at_fork)) {
		pft_msg("the run was killed by the OOM killer");
		return PFT_EXIT_FAIL;
	}
	/* Stopping signals and a closed pipe need no words. */
	if (sig != SIGINT && sig != SIGTERM && sig != SIGPIPE)
		pft_msg("the run was killed by signal %d (%s)%s", sig,
			strsignal(sig),
			sig == SIGKILL ? pft_oom_unknown(&o->oom_at_fork) : "");
	return 128 + sig;
}

/* Best effort: raising one's own score needs no privilege. */
static void set_oom_score_adj(const char *value)
{
	FILE *f = fopen("/proc/self/oom_score_adj", "we");

	if (!f)
		return;
	fputs(value, f);
	fclose(f);
}

/* The run child: its signals, then the run; never returns. */
__attribute__((noreturn)) static void run_child(struct pft_opts *o,
						struct faultgen_attr *attr,
						pid_t parent,
						const sigset_t *mask)
{
	int status;

	/* A supervisor killed outright takes the run with it at once: it
	 * can no longer report it, and a harness takes its exit for the
	 * end of the run. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(128 + SIGKILL);
	/* The OOM killer should take the run (its workers inherit this),
	 * not the supervisor that reports what happened. */
	set_oom_score_adj("1000");
	pft_child_signals();
	sigprocmask(SIG_SETMASK, mask, NULL);
	status = pft_child_main(o, attr);
	pft_opts_release(o); /* and the attr, which it holds */
	exit(status);
}

/*
 * Waits for the run child.  SIGCHLD stays blocked, to be waited for;
 * after a stop signal the run has STOP_GRACE_S seconds to end, then it
 * is killed.  Returns its wait status.
 */
static int wait_run(pid_t pid)
{
	struct timespec grace = { .tv_sec = STOP_GRACE_S };
	sigset_t chld;
	int st;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (w == pid)
			return st;
		if (w < 0 && errno != EINTR) {
			pft_msg("lost the run: %s", strerror(errno));
			return PFT_EXIT_FAIL << 8;
		}
		if (!pft_stop_signal() || run_killed) {
			sigwaitinfo(&chld, NULL);
			continue;
		}
		if (sigtimedwait(&chld, NULL, &grace) < 0 && errno == EAGAIN) {
			pft_msg("the run did not stop within %d s of signal "
				"%d: killing it", STOP_GRACE_S,
				pft_stop_signal());
			kill(pid, SIGKILL);
			run_killed = true;
		}
	}
}

int pft_supervise(struct pft_opts *o, struct faultgen_attr *attr)
{
	pid_t self = getpid(), pid;
	sigset_t child_mask;
	int st, status;

	pft_supervisor_signals(&child_mask);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	pft_oom_read(&o->oom_at_fork);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return pft_fail("cannot fork: %s", strerror(errno));
	if (pid == 0)
		run_child(o, attr, self, &child_mask);
	pft_forward_signals(pid);
	st = wait_run(pid);
	pft_forward_signals_end();
	status = run_killed ? 128 + pft_stop_signal() : exit_status_of(o, st);
	reap_orphans();
	return status;
}
