// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report.c - what pft prints about a run: 0.12x's title, TAG and result
 * lines, its warnings, the per-worker table, the repeat summary, the
 * read-only collapse line, and the JSON object of each run.
 *
 * The result line is the one line tools parse: it starts with a space and
 * holds no letter but 's', so every other line printed on stdout or
 * stderr holds at least one letter (mmtests deletes every 's', skips a
 * line with letters left, and splits the rest on whitespace).
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "pft.h"

#define THP_ROOT "/sys/kernel/mm/transparent_hugepage"

/* A figure for a line a tool parses: finite and not negative. */
static double printable(double v)
{
	return isfinite(v) && v > 0 ? v : 0;
}

void pft_print_title(const struct pft_opts *o)
{
	if (o->tag)
		printf("TAG pft:%s-%s%s:%s\n",
		       o->backing == FAULTGEN_BACKING_SYSV ? "shmem" : "anon",
		       o->numa_local ? "vma-policy" : "sys-default",
		       o->touch == FAULTGEN_TOUCH_MLOCK ? "-mlocked" :
		       o->shm_lock			 ? "-shm_locked" :
							   "",
		       o->tag);
	fputs("  Gb  Thr CLine   User     System     Wall    flt/cpu/s "
	      "fault/wsec\n",
	      stdout);
}

/*
 * fault/wsec.  One-shot: 0.12x's pages over elapsed time.  Duration and
 * rounds mode: the median of the per-round rates (pages of a round, all
 * workers, over its time, zap included), which a disturbance of a few
 * rounds does not move; pages over elapsed time when too few rounds were
 * sampled.
 */
bool pft_rate_is_median(const struct faultgen_result *r)
{
	return r->rounds_sampled >= PFT_MEDIAN_MIN_ROUNDS &&
	       r->round_rate_median > 0;
}

double pft_wall_rate(const struct faultgen_result *r)
{
	return pft_rate_is_median(r) ? r->round_rate_median :
				       r->pages_per_wall_s;
}

/* 0.12x's arithmetic: gbyte counts one page more per worker, rates are
 * pages (not measured faults) over time, 0 when the time is 0. */
static long legacy_gbyte(const struct faultgen_result *r)
{
	return (long)((r->bytes + (uint64_t)r->pagesize * r->workers) >> 30);
}

void pft_format_legacy(const struct pft_opts *o,
		       const struct faultgen_result *r, char *buf, size_t len)
{
	snprintf(buf, len, " %3ld %4ld %3ld %8.2fs %8.2fs %8.2fs  %10.3f %10.3f\n",
		 legacy_gbyte(r), (long)r->workers, (long)o->cachelines,
		 printable(r->user_s), printable(r->sys_s),
		 printable(r->elapsed_s), printable(r->pages_per_cpu_s),
		 printable(pft_wall_rate(r)));
}

/* 0.12x's three checks, one line each at most (4096 workers must not
 * print 4096 warnings). */
void pft_warn_faults(const struct pft_opts *o, struct faultgen_run *run,
		     const struct faultgen_result *r)
{
	unsigned int short_workers = 0;
	double diff;

	for (unsigned int i = 0; i < r->workers; i++) {
		struct faultgen_worker_result w = { .size = sizeof(w) };

		if (faultgen_run_worker(run, i, &w) == 0 && w.minflt < w.pages)
			short_workers++;
	}
	if (short_workers)
		pft_msg("warning: %u of %u workers counted fewer minor faults "
			"than the pages they touched%s",
			short_workers, r->workers,
			o->thp != FAULTGEN_THP_NOHUGEPAGE ?
				" (huge pages take fewer faults)" : "");
	if (r->majflt)
		pft_msg("warning: %" PRIu64 " major faults", r->majflt);
	diff = fabs((double)r->minflt - (double)r->pages);
	if (r->pages && diff > 0.1 * (double)r->pages)
		pft_msg("warning: %" PRIu64 " minor faults for %" PRIu64
			" pages: more than 10%% apart",
			r->minflt, r->pages);
	if (r->shm_refault)
		pft_msg("note: zapped SysV pages stay in the segment, so the "
			"rounds after the first map pages, allocating none");
}

void pft_print_per_worker(const struct pft_opts *o, struct faultgen_run *run,
			  const struct faultgen_result *r)
{
	for (unsigned int i = 0; i < r->workers; i++) {
		struct faultgen_worker_result w = { .size = sizeof(w) };

		if (faultgen_run_worker(run, i, &w))
			continue;
		printf("worker %u cpu %d last_cpu %d pid %d tid %d pages %"
		       PRIu64 " rounds %" PRIu64 " minflt %" PRIu64
		       " majflt %" PRIu64 " start %.6fs wall %.6fs user "
		       "%.6fs sys %.6fs fault/wsec %.3f\n",
		       w.index, w.cpu, w.last_cpu, w.pid, w.tid, w.pages,
		       w.rounds, w.minflt, w.majflt, printable(w.start_s),
		       printable(w.wall_s), printable(w.user_s),
		       printable(w.sys_s),
		       w.wall_s > 0 ? printable((double)w.pages / w.wall_s) :
				      0.0);
	}
	(void)o;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median_of(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	if (!n)
		return 0;
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void pft_print_summary(const struct pft_opts *o, const double *rates,
		       unsigned int n)
{
	double *v = malloc(n * sizeof(*v));
	double med, spread;
	struct pft_json j;

	if (!v || !n) {
		free(v);
		return;
	}
	memcpy(v, rates, n * sizeof(*v));
	med = median_of(v, n);
	spread = med > 0 ? (v[n - 1] - v[0]) / med * 100 : 0;
	if (o->json) {
		pj_begin(&j, stdout);
		pj_str(&j, "schema", "pft-summary/1");
		pj_u64(&j, "runs", n);
		pj_obj(&j, "fault_per_wsec");
		pj_dbl(&j, "min", v[0]);
		pj_dbl(&j, "median", med);
		pj_dbl(&j, "max", v[n - 1]);
		pj_dbl(&j, "spread_pct", spread);
		pj_obj_end(&j);
		pj_end(&j);
	} else {
		printf("summary of %u runs, fault/wsec: min %.3f median %.3f "
		       "max %.3f spread %.1f%%\n",
		       n, printable(v[0]), printable(med), printable(v[n - 1]),
		       printable(spread));
	}
	free(v);
}

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

/* ---- JSON -------------------------------------------------------------- */

static void json_thp(struct pft_json *j)
{
	static const char *const knobs[] = { "enabled", "defrag",
					     "shmem_enabled" };
	char path[1024], val[256];
	struct dirent **list = NULL;
	int n;

	pj_obj(j, "thp");
	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		snprintf(path, sizeof(path), THP_ROOT "/%s", knobs[i]);
		pft_thp_mode(path, val, sizeof(val));
		pj_str(j, knobs[i], val);
	}
	if (pft_read_line(THP_ROOT "/hpage_pmd_size", val, sizeof(val)) == 0)
		pj_u64(j, "hpage_pmd_size", strtoull(val, NULL, 10));
	if (pft_read_line(THP_ROOT "/khugepaged/max_ptes_shared", val,
			  sizeof(val)) == 0 && val[0])
		pj_u64(j, "khugepaged_max_ptes_shared",
		       strtoull(val, NULL, 10));
	pj_obj(j, "mthp_enabled");
	n = pft_list_mthp(&list);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), THP_ROOT "/%s/enabled",
			 list[i]->d_name);
		pft_thp_mode(path, val, sizeof(val));
		/* Sizes only shmem may use have no "enabled". */
		if (val[0])
			pj_str(j, list[i]->d_name, val);
		free(list[i]);
	}
	free(list);
	pj_obj_end(j);
	pj_obj_end(j);
}

/* Deltas of the counters present both before and after. */
static void json_deltas(struct pft_json *j, const char *key,
			const struct pft_vmstat *before,
			const struct pft_vmstat *after, bool grouped)
{
	char group[256] = "";

	pj_obj(j, key);
	for (size_t i = 0; i < after->n; i++) {
		const char *name = after->names[i];
		const char *slash = grouped ? strchr(name, '/') : NULL;
		int64_t d = after->vals[i] - pft_vmstat_get(before, name);

		if (slash) {
			size_t glen = (size_t)(slash - name);

			if (strlen(group) != glen ||
			    strncmp(group, name, glen) != 0) {
				if (group[0])
					pj_obj_end(j);
				snprintf(group, sizeof(group), "%.*s",
					 (int)glen, name);
				pj_obj(j, group);
			}
			name = slash + 1;
		}
		pj_i64(j, name, d);
	}
	if (group[0])
		pj_obj_end(j);
	pj_obj_end(j);
}

void pft_json_system(struct pft_json *j, const struct pft_run_info *info)
{
	struct utsname u;

	if (uname(&u) == 0) {
		pj_str(j, "kernel", u.release);
		pj_str(j, "machine", u.machine);
	}
	json_thp(j);
	json_deltas(j, "vmstat_delta", &info->before, &info->after, false);
	json_deltas(j, "mthp_stats_delta", &info->mthp_before,
		    &info->mthp_after, true);
}

void pft_json_common(struct pft_json *j, const struct pft_opts *o,
		     struct faultgen_run *run, unsigned int index)
{
	char *cpus = malloc(PFT_CPULIST_LEN);
	const char *src;

	pj_str(j, "schema", "pft-run/1");
	pj_str(j, "pft", "0.12x-compatible");
	pj_str(j, "libfaultgen", faultgen_version());
	pj_u64(j, "run", index + 1);
	pj_u64(j, "runs", o->repeat);
	pj_obj(j, "config");
	pj_str(j, "pattern", pft_pattern_name(o->pattern));
	/* 0: pretouch's default, the JVM's count (result.workers). */
	pj_u64(j, "workers", o->pattern == FAULTGEN_PRETOUCH &&
				     !o->workers_given ? 0 : o->workers);
	pj_str(j, "kind", o->kind == FAULTGEN_PROCESSES ? "processes" :
							  "threads");
	pj_u64(j, "size", o->size ? o->size : (uint64_t)o->pagesize);
	pj_u64(j, "pagesize", (uint64_t)o->pagesize);
	pj_u64(j, "cachelines", o->cachelines);
	pj_str(j, "touch", pft_touch_name(o->touch));
	pj_str(j, "backing", pft_backing_name(o->backing));
	pj_bool(j, "shm_lock", o->shm_lock);
	pj_str(j, "numa", o->numa_local ? "local" : "default");
	pj_str(j, "thp", pft_thp_name(o->thp));
	pj_bool(j, "pin", o->pin);
	pj_bool(j, "sched_fifo", o->sched_fifo);
	pj_bool(j, "oversubscribe", o->oversubscribe);
	if (o->cpus)
		pj_str(j, "cpus", o->cpus);
	else
		pj_null(j, "cpus");
	if (o->cpuset)
		pj_str(j, "cpuset", o->cpuset);
	else
		pj_null(j, "cpuset");
	src = faultgen_run_cpuset_source(run);
	if (src && *src)
		pj_str(j, "cpuset_source", src);
	pj_u64(j, "rounds", o->rounds);
	pj_dbl(j, "duration_s", o->duration);
	pj_str(j, "zap", pft_zap_name(o->zap));
	pj_u64(j, "warmup", o->warmup);
	if (o->pattern == FAULTGEN_PRETOUCH) {
		pj_str(j, "pretouch", pft_pretouch_name(o->pretouch));
		if (o->chunk_given)
			pj_u64(j, "chunk_size", o->chunk);
		else
			pj_null(j, "chunk_size");
		pj_u64(j, "jdk", o->jdk);
		pj_str(j, "gc", pft_gc_name(o->gc));
	}
	if (o->pattern == FAULTGEN_RO_COLLAPSE) {
		pj_str(j, "protect", pft_protect_name(o->protect));
		pj_str(j, "collapse", pft_collapse_name(o->collapse));
		pj_dbl(j, "timeout_s", o->timeout);
	}
	pj_u64(j, "sleep_s", o->sleep_s);
	if (o->tag)
		pj_str(j, "tag", o->tag);
	else
		pj_null(j, "tag");
	pj_obj_end(j);
	pj_obj(j, "cpus");
	if (cpus && faultgen_run_cpulist(run, cpus, PFT_CPULIST_LEN) >= 0)
		pj_str(j, "allowed", cpus);
	else
		pj_str(j, "allowed", o->allowed_list);
	pj_u64(j, "count", o->allowed);
	pj_obj_end(j);
	free(cpus);
}

static void json_result(struct pft_json *j, const struct faultgen_result *r)
{
	pj_obj(j, "result");
	pj_u64(j, "workers", r->workers);
	pj_u64(j, "bytes", r->bytes);
	pj_u64(j, "pages", r->pages);
	pj_u64(j, "pages_per_round", r->pages_per_round);
	pj_u64(j, "rounds", r->rounds);
	pj_u64(j, "expected_faults", r->expected_faults);
	pj_u64(j, "minflt", r->minflt);
	pj_u64(j, "majflt", r->majflt);
	pj_bool(j, "faults_agree", r->faults_agree);
	pj_dbl(j, "elapsed_s", r->elapsed_s);
	pj_dbl(j, "fault_s", r->fault_s);
	pj_dbl(j, "user_s", r->user_s);
	pj_dbl(j, "sys_s", r->sys_s);
	pj_dbl(j, "cpu_s", r->user_s + r->sys_s);
	pj_dbl(j, "start_skew_s", r->start_skew_s);
	pj_dbl(j, "pages_per_wall_s", r->pages_per_wall_s);
	pj_dbl(j, "pages_per_cpu_s", r->pages_per_cpu_s);
	pj_dbl(j, "faults_per_wall_s", r->faults_per_wall_s);
	pj_dbl(j, "faults_per_cpu_s", r->faults_per_cpu_s);
	pj_bool(j, "shm_refault", r->shm_refault);
	pj_u64(j, "rounds_sampled", r->rounds_sampled);
	pj_dbl(j, "round_rate_median", r->round_rate_median);
	pj_dbl(j, "round_rate_min", r->round_rate_min);
	pj_dbl(j, "round_rate_max", r->round_rate_max);
	pj_obj_end(j);
}

static void json_legacy(struct pft_json *j, const struct pft_opts *o,
			const struct faultgen_result *r)
{
	char line[256];
	size_t len;

	pft_format_legacy(o, r, line, sizeof(line));
	len = strlen(line);
	if (len && line[len - 1] == '\n')
		line[len - 1] = '\0';
	pj_obj(j, "legacy");
	pj_str(j, "line", line);
	pj_i64(j, "gbyte", legacy_gbyte(r));
	pj_u64(j, "workers", r->workers);
	pj_u64(j, "cachelines", o->cachelines);
	pj_dbl(j, "user_s", printable(r->user_s));
	pj_dbl(j, "sys_s", printable(r->sys_s));
	pj_dbl(j, "wall_s", printable(r->elapsed_s));
	pj_dbl(j, "flt_per_cpu_s", printable(r->pages_per_cpu_s));
	pj_dbl(j, "fault_per_wsec", printable(pft_wall_rate(r)));
	pj_str(j, "fault_per_wsec_is",
	       pft_rate_is_median(r) ? "round_rate_median" :
				       "pages_per_wall_s");
	pj_obj_end(j);
}

static void json_workers(struct pft_json *j, struct faultgen_run *run,
			 const struct faultgen_result *r)
{
	pj_arr(j, "workers");
	for (unsigned int i = 0; i < r->workers; i++) {
		struct faultgen_worker_result w = { .size = sizeof(w) };

		if (faultgen_run_worker(run, i, &w))
			continue;
		pj_obj(j, NULL);
		pj_u64(j, "index", w.index);
		pj_i64(j, "cpu", w.cpu);
		pj_i64(j, "last_cpu", w.last_cpu);
		pj_i64(j, "pid", w.pid);
		pj_i64(j, "tid", w.tid);
		pj_u64(j, "pages", w.pages);
		pj_u64(j, "rounds", w.rounds);
		pj_u64(j, "minflt", w.minflt);
		pj_u64(j, "majflt", w.majflt);
		pj_dbl(j, "start_s", w.start_s);
		pj_dbl(j, "wall_s", w.wall_s);
		pj_dbl(j, "fault_s", w.fault_s);
		pj_dbl(j, "user_s", w.user_s);
		pj_dbl(j, "sys_s", w.sys_s);
		pj_obj_end(j);
	}
	pj_arr_end(j);
}

static void json_numa_maps(struct pft_json *j, struct faultgen_run *run)
{
	uintptr_t lo, hi;
	char line[4096];
	size_t len;
	void *addr;
	FILE *f;

	pj_arr(j, "numa_maps");
	if (faultgen_run_region(run, &addr, &len) == 0 &&
	    (f = fopen("/proc/self/numa_maps", "re"))) {
		lo = pft_vma_start((uintptr_t)addr);
		hi = (uintptr_t)addr + len;
		while (fgets(line, sizeof(line), f)) {
			uintptr_t start = (uintptr_t)strtoull(line, NULL, 16);
			char *nl = strchr(line, '\n');

			if (nl)
				*nl = '\0';
			if (start >= lo && start < hi)
				pj_str(j, NULL, line);
		}
		fclose(f);
	}
	pj_arr_end(j);
}

void pft_print_json(const struct pft_opts *o, struct faultgen_run *run,
		    const struct faultgen_result *r,
		    const struct pft_run_info *info, unsigned int index)
{
	struct pft_json j;

	pj_begin(&j, stdout);
	pft_json_common(&j, o, run, index);
	json_result(&j, r);
	json_legacy(&j, o, r);
	json_workers(&j, run, r);
	if (o->numa_maps)
		json_numa_maps(&j, run);
	pft_json_system(&j, info);
	pj_end(&j);
}

/* ---- read-only collapse ------------------------------------------------ */

static const char *verdict_name(enum faultgen_verdict v)
{
	switch (v) {
	case FAULTGEN_VERDICT_COLLAPSED:
		return "collapsed";
	case FAULTGEN_VERDICT_PARTIAL:
		return "partial";
	case FAULTGEN_VERDICT_REFUSED_RO:
		return "refused-read-only";
	case FAULTGEN_VERDICT_REFUSED_SHARED:
		return "refused-shared";
	case FAULTGEN_VERDICT_UNSUPPORTED:
		return "unsupported";
	case FAULTGEN_VERDICT_NONE:
		return "none";
	}
	return "unknown";
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
	if (o->collapse == FAULTGEN_COLLAPSE_MADVISE)
		printf("collapsed %u/%u %s by MADV_COLLAPSE in %.1f ms, "
		       "%.2f ms/range%s%s\n",
		       c->collapsed, c->ranges, protect_words(o->protect),
		       printable(c->collapse_s) * 1e3,
		       printable(c->range_mean_s) * 1e3, sweep, verdict);
	else
		printf("collapsed %u/%u %s by khugepaged in %.1f s (timeout "
		       "%.0f s)%s%s\n",
		       c->collapsed, c->ranges, protect_words(o->protect),
		       printable(c->collapse_s), o->timeout, sweep, verdict);
	if (!c->content_ok)
		pft_msg("warning: the content of the region changed during "
			"the collapse");
}

static void json_collapse(struct pft_json *j, struct faultgen_run *run,
			  const struct faultgen_collapse_result *c)
{
	pj_obj(j, "collapse");
	pj_str(j, "verdict", verdict_name(c->verdict));
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
		struct faultgen_progress p;

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
	struct pft_json j;
	int ret;

	ret = faultgen_run_collapse(run, &c);
	if (ret)
		return ret;
	if (!o->json) {
		print_collapse_line(o, &c);
		return 0;
	}
	pj_begin(&j, stdout);
	pft_json_common(&j, o, run, index);
	json_collapse(&j, run, &c);
	pft_json_system(&j, info);
	pj_end(&j);
	if (!c.content_ok)
		pft_msg("warning: the content of the region changed during "
			"the collapse");
	return 0;
}
