// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * runner.c - the child pft forks: it runs the workload through the
 * library, once or --repeat times, and prints.
 *
 * Each stop signal the supervisor passes on (SIGINT, SIGTERM, SIGHUP, ...)
 * cancels the run in progress (faultgen_run_cancel is async-signal-safe);
 * the run is then freed and the child exits 128+signal, which the
 * supervising parent passes on.  The handlers are in signals.c.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pft.h"

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
	/* A JSON line is written apart from stdio (json.c). */
	if (!errno)
		errno = pj_write_error();
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

	if (faultgen_attr_get_pattern(o->attr) == FAULTGEN_RO_COLLAPSE) {
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
	*rate = r.rate;
	if (o->json) {
		pft_print_json(o, run, &r, info, index);
	} else {
		pft_format_legacy(o, &r, line, sizeof(line));
		fputs(line, stdout);
		pft_print_figures(stdout, run);
		pft_print_replay_objects(stdout, run);
		pft_print_latency(stdout, run);
		pft_print_writer_latency(stdout, run);
		pft_print_lock_paths(stdout, run);
	}
	pft_lock_paths_note(run);
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
	pft_cancel_on_stop(run);
	if (pft_stop_signal()) {
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
		pft_sleep_unless_stopped(o->sleep_s);
	if (pft_stop_signal())
		goto out;
	status = print_run(o, run, &info, index, rate);
	if (!status)
		status = flush_output();
	if (!status && o->pause)
		pft_pause_until_resumed();
out:
	pft_cancel_on_stop(NULL);
	faultgen_run_free(run);
	release_info(&info);
	if (pft_stop_signal())
		return 128 + pft_stop_signal();
	return status;
}

int pft_child_main(struct pft_opts *o, struct faultgen_attr *attr)
{
	double *rates = calloc(o->repeat, sizeof(*rates));
	bool collapse = faultgen_attr_get_pattern(o->attr) ==
			FAULTGEN_RO_COLLAPSE;
	unsigned int done = 0;
	int status = 0;

	if (!rates) {
		pft_msg("out of memory");
		return PFT_EXIT_FAIL;
	}
	if (o->title && !collapse)
		pft_print_title(o);
	while (done < o->repeat && !status) {
		status = one_run(o, attr, done, &rates[done]);
		if (!status)
			done++;
	}
	if (!status && o->repeat > 1 && !collapse) {
		pft_print_summary(o, rates, done);
		status = flush_output();
	}
	free(rates);
	return status;
}
