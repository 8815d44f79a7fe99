// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * print-json.c - the JSON object of a run (--json): its configuration, the
 * allowed CPUs, the result and the legacy line's figures, the workers,
 * the region's numa_maps lines, and the system around it.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "pft.h"

#define THP_ROOT "/sys/kernel/mm/transparent_hugepage"

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

/* The settings of the run's pattern, by the library's table: "name"
 * (its old name, for one renamed since) with '_' for '-', and "_s" after
 * a number of seconds.  A setting the
 * pattern picks a value of its own for until one is given is null
 * until it is. */
static void json_pattern_config(struct pft_json *j, const struct pft_opts *o)
{
	const struct faultgen_attr *a = o->attr;
	int p = (int)faultgen_attr_get_pattern(a);
	struct faultgen_setting_info in = { .size = sizeof(in) };
	struct faultgen_value v;
	char key[64];

	for (int i = 0; faultgen_setting_info((unsigned int)i, &in) == 0; i++) {
		const struct pft_given *given =
			in.setting != FAULTGEN_SETTING_NONE ?
				&o->given[in.setting] :
			i < PFT_MAX_LIBRARY_SETTINGS ? &o->given_by_index[i] :
						       NULL;

		if (in.pattern != p)
			continue;
		/* A setting renamed since keeps its key. */
		snprintf(key, sizeof(key), "%s%s", in.alias ? in.alias : in.name,
			 in.type == FAULTGEN_TYPE_SECONDS ? "_s" : "");
		for (char *c = key; *c; c++)
			if (*c == '-')
				*c = '_';
		if ((in.flags & FAULTGEN_SETTING_GIVEN) &&
		    !(given && given->opt)) {
			pj_null(j, key);
			continue;
		}
		if (faultgen_attr_get_value(a, in.name, &v) == 0)
			pj_value(j, key, &v);
	}
}

/* What runs: every setting as the library holds it (its getters). */
static void json_config(struct pft_json *j, const struct pft_opts *o,
			struct faultgen_run *run)
{
	const struct faultgen_attr *a = o->attr;
	enum faultgen_pattern p = faultgen_attr_get_pattern(a);
	const char *src = faultgen_run_cpuset_source(run);

	pj_obj(j, "config");
	pj_str(j, "pattern", pft_pattern_name(p));
	/* 0: pretouch's default, the JVM's count (result.workers). */
	pj_u64(j, "workers", pft_pattern_workers(o) ? 0 :
				     faultgen_attr_get_workers(a));
	pj_str(j, "kind", faultgen_attr_get_worker_kind(a) ==
					  FAULTGEN_PROCESSES ? "processes" :
							       "threads");
	pj_u64(j, "size", faultgen_attr_get_size(a));
	pj_u64(j, "pagesize", (uint64_t)o->pagesize);
	pj_u64(j, "cachelines", faultgen_attr_get_cachelines(a));
	pj_str(j, "touch", pft_keyword_name("touch", (int)faultgen_attr_get_touch(a)));
	pj_str(j, "backing", pft_keyword_name("backing", (int)faultgen_attr_get_backing(a)));
	pj_bool(j, "shm_lock", faultgen_attr_get_shm_lock(a));
	pj_bool(j, "share", faultgen_attr_get_share(a));
	pj_str_or_null(j, "backing_path", faultgen_attr_get_backing_path(a));
	pj_bool(j, "cold", faultgen_attr_get_cold(a));
	pj_str(j, "numa", pft_numa_name(faultgen_attr_get_numa(a)));
	pj_str_or_null(j, "numa_nodes", faultgen_attr_get_numa_nodes(a));
	pj_str(j, "thp", pft_keyword_name("thp", (int)faultgen_attr_get_thp(a)));
	pj_bool(j, "pin", faultgen_attr_get_pin(a));
	pj_bool(j, "sched_fifo", faultgen_attr_get_sched_fifo(a));
	pj_bool(j, "oversubscribe", faultgen_attr_get_oversubscribe(a));
	pj_str_or_null(j, "cpus", faultgen_attr_get_cpulist(a));
	pj_str_or_null(j, "cpuset", faultgen_attr_get_cpuset(a));
	if (src && *src)
		pj_str(j, "cpuset_source", src);
	pj_u64(j, "rounds", faultgen_attr_get_rounds(a));
	pj_dbl(j, "duration_s", faultgen_attr_get_duration(a));
	pj_str(j, "zap", pft_keyword_name("zap", (int)faultgen_attr_get_zap(a)));
	pj_u64(j, "warmup", faultgen_attr_get_warmup(a));
	json_pattern_config(j, o);
	pj_u64(j, "sleep_s", o->sleep_s);
	pj_str_or_null(j, "tag", o->tag);
	pj_obj_end(j);
}

/* The CPUs in a list, as the library's parser counts them. */
static unsigned int cpus_in(const char *list)
{
	size_t nbits;
	unsigned long *mask = pft_cpu_mask(&nbits);
	int n = mask ? faultgen_parse_cpulist(list, mask, nbits) : -1;

	free(mask);
	return n > 0 ? (unsigned int)n : 0;
}

/* The allowed CPUs: the run's, as a list and their count. */
void pft_json_common(struct pft_json *j, const struct pft_opts *o,
		     struct faultgen_run *run, unsigned int index)
{
	char *cpus = malloc(PFT_CPULIST_LEN);
	const char *allowed = o->allowed_list;

	pj_str(j, "schema", "pft-run/1");
	pj_str(j, "pft", "0.12x-compatible");
	pj_str(j, "libfaultgen", faultgen_version());
	pj_u64(j, "run", index + 1);
	pj_u64(j, "runs", o->repeat);
	json_config(j, o, run);
	pj_obj(j, "cpus");
	if (cpus && faultgen_run_cpulist(run, cpus, PFT_CPULIST_LEN) >= 0)
		allowed = cpus;
	pj_str(j, "allowed", allowed);
	pj_u64(j, "count", cpus_in(allowed));
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
	pj_u64(j, "fault_pagesize", r->pagesize); /* huge with hugetlb */
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
	pj_i64(j, "gbyte", pft_legacy_gbyte(r));
	pj_u64(j, "workers", r->workers);
	pj_u64(j, "cachelines", faultgen_attr_get_cachelines(o->attr));
	pj_dbl(j, "user_s", pft_printable(r->user_s));
	pj_dbl(j, "sys_s", pft_printable(r->sys_s));
	pj_dbl(j, "wall_s", pft_printable(r->elapsed_s));
	pj_dbl(j, "flt_per_cpu_s", pft_printable(r->pages_per_cpu_s));
	pj_dbl(j, "fault_per_wsec", pft_printable(r->rate));
	pj_str(j, "fault_per_wsec_is",
	       r->rate_kind == FAULTGEN_RATE_ROUND_MEDIAN ?
		       "round_rate_median" : "pages_per_wall_s");
	pj_obj_end(j);
}

/* "node_pages": [pages on node 0, on node 1, ...] of a worker or (-1)
 * of the run, when they were counted. */
static void json_node_pages(struct pft_json *j, struct faultgen_run *run,
			    int worker)
{
	uint64_t pages[PFT_MAX_NODES];
	int n = faultgen_run_node_pages(run, worker, pages, PFT_MAX_NODES);

	if (n < 0)
		return;
	pj_arr(j, "node_pages");
	for (int i = 0; i < n && i < PFT_MAX_NODES; i++)
		pj_u64(j, NULL, pages[i]);
	pj_arr_end(j);
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
		json_node_pages(j, run, (int)i);
		pft_json_latency(j, run, (int)i);
		pft_json_lock_paths(j, run, (int)i);
		pj_obj_end(j);
	}
	pj_arr_end(j);
}

static void json_numa_line(const char *text, void *ctx)
{
	pj_str(ctx, NULL, text);
}

static void json_numa_maps(struct pft_json *j, struct faultgen_run *run)
{
	size_t len;
	void *addr;

	pj_arr(j, "numa_maps");
	if (faultgen_run_region(run, &addr, &len) == 0)
		pft_numa_maps(addr, len, json_numa_line, j);
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
	json_node_pages(&j, run, -1);
	json_legacy(&j, o, r);
	json_workers(&j, run, r);
	if (o->numa_maps)
		json_numa_maps(&j, run);
	pft_json_figures(&j, run);
	pft_json_replay_objects(&j, run);
	pft_json_latency(&j, run, -1);
	pft_json_writer_latency(&j, run);
	pft_json_lock_paths(&j, run, FAULTGEN_LOCK_WORKERS);
	pft_json_system(&j, info);
	pj_end(&j);
}

