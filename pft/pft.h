/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pft.h - the page fault test's options and the parts of the program.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#ifndef PFT_H
#define PFT_H

#include <dirent.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <faultgen.h>

/* Exit statuses (the CLI conventions). */
#define PFT_EXIT_OK 0
#define PFT_EXIT_FAIL 1
#define PFT_EXIT_USAGE 2

/* The library refuses more workers than this (faultgen_attr_set_workers). */
#define PFT_MAX_WORKERS (1u << 20)
/* Longest CPU list pft formats: a worst case of ~8192 sparse CPUs. */
#define PFT_CPULIST_LEN 65536
/* Duration and rounds mode: unmeasured rounds first unless --warmup says
 * otherwise, and the fewest sampled rounds whose median rate stands for
 * the run's fault/wsec (fewer: pages over elapsed time). */
#define PFT_DEFAULT_WARMUP 2
#define PFT_MEDIAN_MIN_ROUNDS 3

struct pft_opts {
	/* The workload, as the user gave it; mapped onto attr. */
	enum faultgen_pattern pattern;
	uint64_t size;
	unsigned int workers;
	bool workers_given;
	enum faultgen_workers kind;
	unsigned int cachelines;
	enum faultgen_touch touch;
	const char *touch_opt; /* the option that chose touch, or NULL */
	enum faultgen_backing backing;
	const char *backing_opt;
	bool shm_lock;
	bool numa_local;
	enum faultgen_thp thp;
	const char *cpus;
	const char *cpuset;
	bool pin;
	bool sched_fifo;
	bool oversubscribe;
	unsigned int rounds;
	double duration;
	enum faultgen_zap zap;
	bool zap_given;
	unsigned int warmup;
	bool warmup_given;
	enum faultgen_protect protect;
	enum faultgen_collapse collapse;
	double timeout;
	bool protect_given, collapse_given, timeout_given;
	enum faultgen_pretouch_touch pretouch;
	uint64_t chunk;
	unsigned int jdk;
	enum faultgen_jvm_gc gc;
	bool pretouch_given, chunk_given, jdk_given, gc_given;

	/* The front end's own behaviour. */
	unsigned int sleep_s;
	bool force; /* run even when -m is beyond the available memory */
	bool title;
	bool numa_maps;
	bool pause;
	int verbose;
	unsigned int repeat;
	bool json;
	bool per_worker;
	const char *perf_ctl; /* FD or FIFO path, as given */
	int perf_fd;          /* -1 when not asked */
	int perf_ack_fd;      /* perf's acknowledgements, or -1 */
	/* oom_kill of /proc/vmstat just before the fork (-1: unknown): the
	 * child's first run starts from it instead of reading it again. */
	int64_t oom_at_fork;
	const char *tag;

	/* Resolved before the run. */
	long pagesize;
	unsigned int cacheline_size;
	unsigned int allowed; /* number of allowed CPUs */
	char *allowed_list;   /* "0-1" */
};

/* options.c */
void pft_opts_init(struct pft_opts *o);
void pft_parse_args(struct pft_opts *o, int argc, char **argv);
struct faultgen_attr *pft_build_attr(struct pft_opts *o);
void pft_resolve_cpus(struct pft_opts *o, struct faultgen_attr *attr);
void pft_open_perf_ctl(struct pft_opts *o);
void pft_check_memory(const struct pft_opts *o);
void pft_opts_release(struct pft_opts *o);
__attribute__((noreturn, format(printf, 1, 2))) void
pft_usage_error(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void pft_msg(const char *fmt, ...);
const char *pft_pattern_name(enum faultgen_pattern p);
const char *pft_touch_name(enum faultgen_touch t);
const char *pft_backing_name(enum faultgen_backing b);
const char *pft_thp_name(enum faultgen_thp t);
const char *pft_zap_name(enum faultgen_zap z);
const char *pft_protect_name(enum faultgen_protect p);
const char *pft_collapse_name(enum faultgen_collapse c);
const char *pft_pretouch_name(enum faultgen_pretouch_touch t);
const char *pft_gc_name(enum faultgen_jvm_gc g);

/* cpuset.c */
int pft_enter_cpuset(const char *name);

/* runner.c: the child that runs the workload and prints */
int pft_child_main(struct pft_opts *o, struct faultgen_attr *attr);
void pft_child_signals(void);

/* sysinfo.c */
struct pft_vmstat {
	size_t n;
	char **names;
	int64_t *vals;
};
int pft_vmstat_read(struct pft_vmstat *v);
int pft_mthp_read(struct pft_vmstat *v);
int pft_list_mthp(struct dirent ***list);
void pft_vmstat_release(struct pft_vmstat *v);
int64_t pft_vmstat_get(const struct pft_vmstat *v, const char *name);
bool pft_vmstat_relevant(const char *name);
int pft_read_line(const char *path, char *buf, size_t len);
void pft_thp_mode(const char *path, char *buf, size_t len);
uintptr_t pft_vma_start(uintptr_t addr);
int pft_print_numa_maps(FILE *out, void *addr, size_t len);
int64_t pft_proc_number(const char *path, const char *key);
int64_t pft_oom_kills(void);

/* json.c: a writer for one JSON object per line */
struct pft_json {
	FILE *f;
	int depth;
	bool first[16];
};
void pj_begin(struct pft_json *j, FILE *f);
void pj_end(struct pft_json *j);
void pj_obj(struct pft_json *j, const char *key);
void pj_obj_end(struct pft_json *j);
void pj_arr(struct pft_json *j, const char *key);
void pj_arr_end(struct pft_json *j);
void pj_str(struct pft_json *j, const char *key, const char *val);
void pj_u64(struct pft_json *j, const char *key, uint64_t val);
void pj_i64(struct pft_json *j, const char *key, int64_t val);
void pj_dbl(struct pft_json *j, const char *key, double val);
void pj_bool(struct pft_json *j, const char *key, bool val);
void pj_null(struct pft_json *j, const char *key);

/* report.c: what a run prints */
struct pft_run_info {
	struct pft_vmstat before, after;           /* /proc/vmstat */
	struct pft_vmstat mthp_before, mthp_after; /* mTHP stats */
};
void pft_print_title(const struct pft_opts *o);
bool pft_rate_is_median(const struct faultgen_result *r);
double pft_wall_rate(const struct faultgen_result *r);
void pft_format_legacy(const struct pft_opts *o,
		       const struct faultgen_result *r, char *buf, size_t len);
void pft_warn_faults(const struct pft_opts *o, struct faultgen_run *run,
		     const struct faultgen_result *r);
void pft_print_per_worker(const struct pft_opts *o, struct faultgen_run *run,
			  const struct faultgen_result *r);
void pft_print_json(const struct pft_opts *o, struct faultgen_run *run,
		    const struct faultgen_result *r,
		    const struct pft_run_info *info, unsigned int index);
int pft_print_collapse(const struct pft_opts *o, struct faultgen_run *run,
		       const struct pft_run_info *info, unsigned int index);
void pft_print_summary(const struct pft_opts *o, const double *rates,
		       unsigned int n);
void pft_json_common(struct pft_json *j, const struct pft_opts *o,
		     struct faultgen_run *run, unsigned int index);
void pft_json_system(struct pft_json *j, const struct pft_run_info *info);

#endif /* PFT_H */
