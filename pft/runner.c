// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * runner.c - the child pft forks: it runs the workload through the
 * library, once or --repeat times, and prints.
 *
 * Each stop signal the supervisor passes on (SIGINT, SIGTERM, SIGHUP, ...)
 * cancels the run in progress (faultgen_run_cancel is async-signal-safe);
 * the run is then freed and the child exits 128+signal, which the
 * supervising parent passes on.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pft.h"

static struct faultgen_run *_Atomic current_run;
static volatile sig_atomic_t stop_signo;
static volatile sig_atomic_t resumed;

static void on_stop(int sig)
{
	struct faultgen_run *run = atomic_load(&current_run);

	if (!stop_signo)
		stop_signo = sig;
	/* Async-signal-safe by contract: atomic stores and futex wakes. */
	if (run)
		faultgen_run_cancel(run); // NOLINT(bugprone-signal-handler)
}

int pft_stop_signal(void)
{
	return stop_signo;
}

static void on_resume(int sig)
{
	(void)sig;
	resumed = 1;
}

/* The signals that stop the run, and SIGUSR1. */
static sigset_t stop_set;

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
static void sleep_unless_stopped(double seconds)
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
static void pause_until_resumed(void)
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

/*
 * A reader gone (EPIPE: "pft | head" that stopped reading, or a harness
 * that died) or any other write error is a failure pft reports, as pft(1)
 * says: one line, exit 1.  SIGPIPE is ignored, so it never kills pft
 * silently.
 */
static int flush_output(void)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	pft_msg("cannot write the result on standard output: %s",
		errno ? strerror(errno) : "write error");
	return PFT_EXIT_FAIL;
}

static void read_counters(const struct pft_opts *o, struct pft_vmstat *vm,
			  struct pft_vmstat *mthp)
{
	if (!o->json)
		return;
	pft_vmstat_read(vm);
	pft_mthp_read(mthp);
}

static void release_info(struct pft_run_info *info)
{
	pft_vmstat_release(&info->before);
	pft_vmstat_release(&info->after);
	pft_vmstat_release(&info->mthp_before);
	pft_vmstat_release(&info->mthp_after);
}

static int print_run(struct pft_opts *o, struct faultgen_run *run,
		     const struct pft_run_info *info, unsigned int index,
		     double *rate)
{
	struct faultgen_result r = { .size = sizeof(r) };
	char line[256];
	void *addr;
	size_t len;
	int ret;

	if (o->pattern == FAULTGEN_RO_COLLAPSE) {
		ret = pft_print_collapse(o, run, info, index);
		if (ret)
			pft_msg("no collapse result: %s",
				faultgen_strerror(ret));
		return ret ? PFT_EXIT_FAIL : 0;
	}
	ret = faultgen_run_result(run, &r);
	if (ret) {
		pft_msg("no result: %s", faultgen_strerror(ret));
		return PFT_EXIT_FAIL;
	}
	*rate = pft_wall_rate(&r);
	if (o->json) {
		pft_print_json(o, run, &r, info, index);
	} else {
		pft_format_legacy(o, &r, line, sizeof(line));
		fputs(line, stdout);
	}
	pft_warn_faults(o, run, &r);
	if (o->per_worker && !o->json)
		pft_print_per_worker(o, run, &r);
	if (o->numa_maps && !o->json &&
	    faultgen_run_region(run, &addr, &len) == 0)
		pft_print_numa_maps(stdout, addr, len);
	return 0;
}

static void verbose_run(const struct pft_opts *o, struct faultgen_run *run)
{
	char *cpus = malloc(PFT_CPULIST_LEN);

	if (cpus && faultgen_run_cpulist(run, cpus, PFT_CPULIST_LEN) >= 0)
		pft_msg("ran on the allowed CPUs %s", cpus);
	free(cpus);
	(void)o;
}

static int one_run(struct pft_opts *o, struct faultgen_attr *attr,
		   unsigned int index, double *rate)
{
	struct pft_run_info info;
	struct faultgen_run *run;
	struct pft_oom oom_before;
	int ret, status = 0;

	memset(&info, 0, sizeof(info));
	ret = faultgen_run_create(attr, &run);
	if (ret) {
		pft_msg("cannot set up the run: %s", faultgen_strerror(ret));
		return PFT_EXIT_FAIL;
	}
	/* The supervisor read it just before forking this process. */
	if (index == 0)
		oom_before = o->oom_at_fork;
	else
		pft_oom_read(&oom_before);
	read_counters(o, &info.before, &info.mthp_before);
	/* Process mode forks: nothing buffered may be written twice. */
	fflush(stdout);
	fflush(stderr);
	atomic_store(&current_run, run);
	if (stop_signo) {
		ret = -ECANCELED;
	} else {
		pft_perf_command(o, "enable");
		ret = faultgen_run_exec(run);
		pft_perf_command(o, "disable");
	}
	read_counters(o, &info.after, &info.mthp_after);
	if (ret) {
		status = pft_report_failure(o, run, ret, &oom_before);
		goto out;
	}
	if (o->verbose)
		verbose_run(o, run);
	if (o->sleep_s)
		sleep_unless_stopped(o->sleep_s);
	if (stop_signo)
		goto out;
	status = print_run(o, run, &info, index, rate);
	if (!status)
		status = flush_output();
	if (!status && o->pause)
		pause_until_resumed();
out:
	atomic_store(&current_run, NULL);
	faultgen_run_free(run);
	release_info(&info);
	if (stop_signo)
		return 128 + stop_signo;
	return status;
}

int pft_child_main(struct pft_opts *o, struct faultgen_attr *attr)
{
	double *rates = calloc(o->repeat, sizeof(*rates));
	unsigned int done = 0;
	int status = 0;

	if (!rates) {
		pft_msg("out of memory");
		return PFT_EXIT_FAIL;
	}
	if (o->title && o->pattern != FAULTGEN_RO_COLLAPSE)
		pft_print_title(o);
	while (done < o->repeat && !status) {
		status = one_run(o, attr, done, &rates[done]);
		if (!status)
			done++;
	}
	if (!status && o->repeat > 1 && o->pattern != FAULTGEN_RO_COLLAPSE) {
		pft_print_summary(o, rates, done);
		status = flush_output();
	}
	free(rates);
	return status;
}
