// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * supervisor.c - the parent pft: it forks one child that does the whole
 * run and prints, and waits for it, as 0.12x's launcher did, so that a
 * run killed by the OOM killer (which takes every thread of a
 * thread-mode run) or by a signal is still reported, with a status that
 * says so.  The parent passes SIGINT, SIGTERM and SIGUSR1 on to the
 * child, and is the reaper of any worker process left behind by a child
 * that died, so none survives.
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

static volatile pid_t child_pid;

static void forward_signal(int sig)
{
	pid_t pid = child_pid;

	if (pid > 0)
		kill(pid, sig);
}

static const int forwarded[] = { SIGINT, SIGTERM, SIGUSR1 };
#define NR_FORWARDED (sizeof(forwarded) / sizeof(forwarded[0]))

static void block_forwarded(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < NR_FORWARDED; i++)
		sigaddset(&set, forwarded[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

static void install_forwarding(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = forward_signal;
	sa.sa_flags = SA_RESTART;
	for (size_t i = 0; i < NR_FORWARDED; i++)
		sigaction(forwarded[i], &sa, NULL);
}

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

static int exit_status_of(int st, int64_t oom_before)
{
	int sig;

	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (!WIFSIGNALED(st))
		return PFT_EXIT_FAIL;
	sig = WTERMSIG(st);
	if (sig == SIGKILL && oom_before >= 0 && pft_oom_kills() > oom_before) {
		pft_msg("the run was killed by the OOM killer");
		return PFT_EXIT_FAIL;
	}
	/* Stopping signals and a closed pipe need no words. */
	if (sig != SIGINT && sig != SIGTERM && sig != SIGPIPE)
		pft_msg("the run was killed by signal %d (%s)", sig,
			strsignal(sig));
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

int pft_supervise(struct pft_opts *o, struct faultgen_attr *attr)
{
	pid_t self = getpid(), pid;
	int64_t oom_before;
	sigset_t old;
	int st = 0, status;

	/* Until child_pid is known, a signal waits (blocked) rather than
	 * being lost. */
	block_forwarded(&old);
	install_forwarding();
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	oom_before = pft_oom_kills();
	o->oom_at_fork = oom_before;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		pft_msg("cannot fork: %s", strerror(errno));
		return PFT_EXIT_FAIL;
	}
	if (pid == 0) {
		/* A parent killed outright must not leave the run going. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		/* And the OOM killer should take the run (its workers inherit
		 * this), not the supervisor that reports what happened. */
		set_oom_score_adj("1000");
		pft_child_signals();
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (getppid() != self)
			raise(SIGTERM);
		status = pft_child_main(o, attr);
		faultgen_attr_free(attr);
		pft_opts_release(o);
		exit(status);
	}
	child_pid = pid;
	sigprocmask(SIG_SETMASK, &old, NULL);
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR) {
			pft_msg("lost the run: %s", strerror(errno));
			st = PFT_EXIT_FAIL << 8;
			break;
		}
	}
	child_pid = 0;
	status = exit_status_of(st, oom_before);
	reap_orphans();
	return status;
}

