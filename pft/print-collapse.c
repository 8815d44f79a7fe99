// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * print-collapse.c - the result of --pattern=ro-collapse: one line, or a
 * JSON object with every range and the progress samples.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>

#include "pft.h"

static const char *errno_name(int err)
{
	static const struct {
		int e;
		const char *name;
	} names[] = {
		{ EINVAL, "EINVAL" }, { EAGAIN, "EAGAIN" },
		{ ENOMEM, "ENOMEM" }, { EBUSY, "EBUSY" },
		{ EPERM, "EPERM" },   { EACCES, "EACCES" },
		{ EFAULT, "EFAULT" }, { EOPNOTSUPP, "EOPNOTSUPP" },
		{ ENOSYS, "ENOSYS" }, { ETIMEDOUT, "ETIMEDOUT" },
		{ ENOENT, "ENOENT" }, { EIO, "EIO" },
	};

	if (err < 0)
		err = -err;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].e == err)
			return names[i].name;
	return "an error";
}

static const char *range_state_name(enum faultgen_range_state s)
{
	switch (s) {
	case FAULTGEN_RANGE_PENDING:
		return "pending";
	case FAULTGEN_RANGE_COLLAPSED:
		return "collapsed";
	case FAULTGEN_RANGE_FAILED:
		return "failed";
	}
	return "unknown";
}

static const char *protect_words(enum faultgen_protect p)
{
	switch (p) {
	case FAULTGEN_PROTECT_MPROTECT:
		return "read-only ranges (mprotect)";
	case FAULTGEN_PROTECT_FORK:
		return "read-only shared ranges (fork)";
	case FAULTGEN_PROTECT_WRITABLE:
		return "writable ranges (control)";
	}
	return "ranges";
}

static void verdict_words(const struct faultgen_collapse_result *c,
			  char *buf, size_t len)
{
	switch (c->verdict) {
	case FAULTGEN_VERDICT_COLLAPSED:
		buf[0] = '\0';
		break;
	case FAULTGEN_VERDICT_PARTIAL:
		snprintf(buf, len, "; partial, first error %s",
			 c->first_error ? errno_name(c->first_error) :
					  "none (not collapsed in time)");
		break;
	case FAULTGEN_VERDICT_REFUSED_RO:
		snprintf(buf, len, "; the kernel refuses to collapse "
			 "read-only PTEs (%s)", errno_name(c->first_error));
		break;
	case FAULTGEN_VERDICT_REFUSED_SHARED:
		snprintf(buf, len, "; khugepaged skips ranges with more than "
			 "max_ptes_shared shared PTEs");
		break;
	case FAULTGEN_VERDICT_UNSUPPORTED:
		snprintf(buf, len, "; not supported here (no MADV_COLLAPSE in "
			 "this kernel, or THP set to never)");
		break;
	case FAULTGEN_VERDICT_NONE:
		if (c->first_error)
			snprintf(buf, len, "; nothing collapsed, first error "
				 "%s", errno_name(c->first_error));
		else
			snprintf(buf, len, "; nothing collapsed in time");
		break;
	}
}

static void print_collapse_line(const struct pft_opts *o,
				const struct faultgen_collapse_result *c)
{
	char verdict[256], sweep[64] = "";
	double ratio = c->sweep_after_ns > 0 ?
			       c->sweep_before_ns / c->sweep_after_ns : 0;

	verdict_words(c, verdict, sizeof(verdict));
	if (ratio >= 1)
		snprintf(sweep, sizeof(sweep), ", read sweep %.1fx faster",
			 ratio);
	else if (ratio > 0)
		snprintf(sweep, sizeof(sweep), ", read sweep %.1fx slower",
			 1 / ratio);
	if (faultgen_attr_get_collapse(o->attr) == FAULTGEN_COLLAPSE_MADVISE)
		printf("collapsed %u/%u %s by MADV_COLLAPSE in %.1f ms, "
		       "%.2f ms/range%s%s\n",
		       c->collapsed, c->ranges,
		       protect_words(faultgen_attr_get_protect(o->attr)),
		       pft_printable(c->collapse_s) * 1e3,
		       pft_printable(c->range_mean_s) * 1e3, sweep, verdict);
	else
		printf("collapsed %u/%u %s by khugepaged in %.1f s (timeout "
		       "%.0f s)%s%s\n",
		       c->collapsed, c->ranges,
		       protect_words(faultgen_attr_get_protect(o->attr)),
		       pft_printable(c->collapse_s),
		       faultgen_attr_get_timeout(o->attr), sweep,
		       verdict);
	if (!c->content_ok)
		pft_msg("warning: the content of the region changed during "
			"the collapse");
}

static void json_collapse(struct pft_json *j, struct faultgen_run *run,
			  const struct faultgen_collapse_result *c)
{
	pj_obj(j, "collapse");
	pj_str(j, "verdict", faultgen_verdict_name(c->verdict));
	pj_u64(j, "ranges", c->ranges);
	pj_u64(j, "collapsed", c->collapsed);
	pj_u64(j, "failed", c->failed);
	if (c->first_error) {
		pj_str(j, "first_error", errno_name(c->first_error));
		pj_i64(j, "first_errno", -c->first_error);
	} else {
		pj_null(j, "first_error");
	}
	pj_dbl(j, "collapse_s", c->collapse_s);
	pj_dbl(j, "range_mean_s", c->range_mean_s);
	pj_dbl(j, "sweep_before_ns", c->sweep_before_ns);
	pj_dbl(j, "sweep_after_ns", c->sweep_after_ns);
	pj_dbl(j, "sweep_ratio", c->sweep_after_ns > 0 ?
		       c->sweep_before_ns / c->sweep_after_ns : 0);
	pj_bool(j, "content_ok", c->content_ok);
	pj_u64(j, "thp_collapse_alloc", c->thp_collapse_alloc);
	pj_u64(j, "thp_collapse_alloc_failed", c->thp_collapse_alloc_failed);
	pj_u64(j, "thp_scan_exceed_share_pte", c->thp_scan_exceed_share_pte);
	pj_u64(j, "khugepaged_full_scans", c->khugepaged_full_scans);
	pj_obj_end(j);
	pj_arr(j, "ranges");
	for (unsigned int i = 0; i < c->ranges; i++) {
		struct faultgen_collapse_range rg = { .size = sizeof(rg) };

		if (faultgen_run_collapse_range(run, i, &rg))
			continue;
		pj_obj(j, NULL);
		pj_u64(j, "index", rg.index);
		pj_str(j, "state", range_state_name(rg.state));
		if (rg.error)
			pj_str(j, "error", errno_name(rg.error));
		else
			pj_null(j, "error");
		pj_dbl(j, "collapse_s", rg.collapse_s);
		pj_obj_end(j);
	}
	pj_arr_end(j);
	pj_arr(j, "progress");
	for (unsigned int i = 0; i < c->progress_samples; i++) {
		struct faultgen_progress p = { .size = sizeof(p) };

		if (faultgen_run_collapse_progress(run, i, &p))
			continue;
		pj_obj(j, NULL);
		pj_dbl(j, "t_s", p.t_s);
		pj_u64(j, "collapsed", p.collapsed);
		pj_obj_end(j);
	}
	pj_arr_end(j);
}

/* Returns 0, or -errno when the library has no collapse result. */
int pft_print_collapse(const struct pft_opts *o, struct faultgen_run *run,
		       const struct pft_run_info *info, unsigned int index)
{
	struct faultgen_collapse_result c = { .size = sizeof(c) };
	struct faultgen_result r = { .size = sizeof(r) };
	struct pft_json j;
	int ret;

	ret = faultgen_run_collapse(run, &c);
	if (ret)
		return ret;
	if (!o->json) {
		print_collapse_line(o, &c);
		/* Its line says the figures in words; -v adds them exact. */
		if (o->verbose)
			pft_print_figures(stdout, run);
		/* --latency: each MADV_COLLAPSE call's time. */
		pft_print_latency(stdout, run);
		pft_print_lock_paths(stdout, run);
		pft_lock_paths_note(run);
		if (o->per_worker && faultgen_run_result(run, &r) == 0)
			pft_print_per_worker(o, run, &r);
		return 0;
	}
	pj_begin(&j, stdout);
	pft_json_common(&j, o, run, index);
	json_collapse(&j, run, &c);
	pft_json_figures(&j, run);
	pft_json_latency(&j, run, -1);
	pft_json_lock_paths(&j, run, FAULTGEN_LOCK_WORKERS);
	pft_json_system(&j, info);
	pj_end(&j);
	pft_lock_paths_note(run);
	if (!c.content_ok)
		pft_msg("warning: the content of the region changed during "
			"the collapse");
	return 0;
}
