/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pft.h - the page fault test's options and the parts of the program.
 *
 * The files depend on each other in one direction: each uses only files
 * on the lines below its own (tests/deps.sh checks this picture against
 * the objects).
 *
 *   pft.c
 *   -> supervisor.c, memcheck.c, cpuset.c
 *   -> runner.c
 *   -> failure.c, perfctl.c, print-collapse.c, summary.c
 *   -> args.c, print-json.c, oom.c, signals.c
 *   -> rules.c, usage.c, print-legacy.c, print-figures.c, cgroup.c
 *   -> setup.c, print-latency.c, print-lockpaths.c, numbers.c, sysinfo.c
 *   -> print-lockwaits.c, print-replay.c
 *   -> names.c, json.c
 *   -> messages.c
 *
 * The workload is the library's attr, which the options set as they are
 * read (args.c through setup.c's pft_set): pft keeps no copy of the
 * library's settings, and asks the library's getters what a run was.
 *
 * signals.c holds the signal state of both processes, the supervisor
 * and the run child: the files that wait for a stop signal or react to
 * it use signals.c, not each other.
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

/*
 * The steps before the run (the options, the attr, the cpuset, the CPUs,
 * the memory check, perf's channel) return 0 to go on, or a status that
 * ends pft: PFT_EXIT_USAGE or PFT_EXIT_FAIL once the step has said why,
 * or PFT_DONE when the command's work is done (--help, --version,
 * --list-patterns).  Only main() exits, with pft_exit_status() of it.
 */
#define PFT_DONE 0x100
#define pft_exit_status(st) ((st) & 0xff)

/* Longest CPU list pft formats: a worst case of ~8192 sparse CPUs. */
#define PFT_CPULIST_LEN 65536

/* pft's own default: the unmeasured rounds of --duration and --rounds
 * when --warmup is not given (the library's default is none). */
#define PFT_DEFAULT_WARMUP 2

/* The settings of the library's attr that options map onto
 * (enum faultgen_setting): the command line records which option (as
 * spelt) and value set each, so that the library's refusal of a setting
 * names what the user typed. */
#define PFT_NR_SETTINGS FAULTGEN_SETTINGS_COUNT
/* The library's settings by their index (faultgen_setting_info), for
 * those newer than the enum: at most this many. */
#define PFT_MAX_LIBRARY_SETTINGS 256

struct pft_given {
	const char *opt; /* "-m", "--size", ...; NULL: not given */
	const char *arg; /* its value, NULL for a flag */
};

/* OOM kill counts: of pft's memory cgroup, and of the system (-1:
 * unknown, or no memory cgroup of its own). */
struct pft_oom {
	int64_t cgroup;
	int64_t system;
	bool shared; /* the memory cgroup holds other programs too */
};

struct pft_opts {
	/* The workload: the options set it as they are read. */
	struct faultgen_attr *attr;
	struct pft_given given[PFT_NR_SETTINGS]; /* who set what */
	/* The settings the enum has no value for, by their index. */
	struct pft_given given_by_index[PFT_MAX_LIBRARY_SETTINGS];

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
	bool list_patterns;
	const char *perf_ctl; /* FD or FIFO path, as given */
	int perf_fd;          /* -1 when not asked */
	int perf_ack_fd;      /* perf's acknowledgements, or -1 */
	/* The OOM kill counts just before the fork: the child's first run
	 * starts from them instead of reading them again. */
	struct pft_oom oom_at_fork;
	const char *tag;

	/* Resolved before the run. */
	long pagesize;
	unsigned int allowed; /* number of allowed CPUs */
	char *allowed_list;   /* "0-1" */
};

/* messages.c: every line pft writes on stderr */
__attribute__((warn_unused_result, format(printf, 1, 2))) int
pft_usage_error(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void pft_msg(const char *fmt, ...);
__attribute__((warn_unused_result, format(printf, 1, 2))) int
pft_fail(const char *fmt, ...);

/* The names a file backing tries in a directory (libfaultgen-PID-N)
 * before the library gives up with -EBUSY (faultgen_attr_set_backing(3)). */
#define PFT_FILE_NAME_TRIES 1000u
bool pft_path_why(const char *path, int err, bool share, char *buf,
		  size_t len);

/* Where --help lists an option: 0.12x's options, the workload's, the
 * memory policies, then each pattern's settings (the library's), and
 * what pft prints. */
enum pft_section {
	PFT_SEC_NONE = 0, /* not listed */
	PFT_SEC_LEGACY,
	PFT_SEC_WORKLOAD,
	PFT_SEC_POLICY,
	PFT_SEC_PATTERN, /* a pattern's own setting (pattern) */
	PFT_SEC_OUTPUT,
};

/* What --help says of an option. */
struct pft_option_doc {
	enum pft_section section;
	char short_name;       /* 'm', or 0 */
	const char *long_name; /* "size", or NULL */
	const char *arg_name;  /* "SIZE"; NULL: takes none */
	bool optional_arg;     /* "--latency[=N]" */
	const char *lead;      /* what precedes the help, when not the names */
	const char *help;      /* lines separated by '\n' */
	int pattern;           /* PFT_SEC_PATTERN: whose setting */
};

/* usage.c: each returns PFT_DONE, or PFT_EXIT_FAIL if the text could not
 * be written */
int pft_print_help(const struct pft_option_doc *const *docs, size_t n);
int pft_print_version(void);
int pft_print_patterns(bool json);

/* Node masks pft reads from the library: up to 1024 nodes. */
#define PFT_MAX_NODES 1024
#define PFT_NODE_WORDS (PFT_MAX_NODES / (8 * sizeof(unsigned long)))

/* names.c: the keywords of the options, both ways: the library's, by
 * the name of the setting (faultgen_setting_info), and the memory
 * policies' */
struct pft_name {
	const char *name;
	int val;
};
extern const struct pft_name pft_numa_modes[];
int pft_setting_info(const char *setting, struct faultgen_setting_info *info);
int pft_keyword(const char *opt, const char *s, const char *setting,
		int *val);
int pft_policy_keyword(const char *opt, const char *s, int *val);
const char *pft_keyword_name(const char *setting, int val);
const char *pft_pattern_name(enum faultgen_pattern p);
void pft_pattern_list(char *buf, size_t len, const char *first_note);
int pft_pattern_keyword(const char *opt, const char *s,
			enum faultgen_pattern *p);
/* failure.c: the huge page size of a hugetlb backing, or 0. */
uint64_t pft_huge_size(const struct faultgen_attr *a);
const char *pft_numa_name(enum faultgen_numa n);

/* args.c: the command line into pft_opts and its attr */
int pft_opts_init(struct pft_opts *o);
int pft_parse_args(struct pft_opts *o, int argc, char **argv);
int pft_parse_count(const char *opt, const char *s, unsigned long min,
		    unsigned long max, unsigned long *val);
void pft_opts_release(struct pft_opts *o);

/* rules.c: the front end's own rules */
bool pft_pattern_workers(const struct pft_opts *o);
int pft_check_combinations(struct pft_opts *o);
void pft_warn_faults(const struct pft_opts *o, struct faultgen_run *run,
		     const struct faultgen_result *r);

/* setup.c: the options' values into the attr, and the allowed CPUs */
int pft_set(int ret, const char *opt, const char *val, const char *why);
int pft_set_numa(struct pft_opts *o, const char *opt,
		 enum faultgen_numa numa, const char *nodes);
bool pft_repeats(const struct pft_opts *o);
int pft_finish_attr(struct pft_opts *o);
int pft_resolve_cpus(struct pft_opts *o);
unsigned long *pft_cpu_mask(size_t *nbits);

/* memcheck.c */
int pft_check_memory(const struct pft_opts *o);

/* perfctl.c: perf's control channel (--perf-ctl) */
int pft_open_perf_ctl(struct pft_opts *o);
void pft_perf_command(struct pft_opts *o, const char *cmd);

/* cpuset.c */
int pft_enter_cpuset(const char *name);
int pft_enter_cpuset_within_mask(const char *name);
int pft_cpuset_error(const char *name, int err);

/* supervisor.c: the parent, which forks the run and waits for it */
int pft_supervise(struct pft_opts *o, struct faultgen_attr *attr);

/* runner.c: the child that runs the workload and prints */
int pft_child_main(struct pft_opts *o, struct faultgen_attr *attr);

/* signals.c: the stop signals, their handlers and flags, in the
 * supervisor and in the run child */
void pft_stop_signals(sigset_t *set);
void pft_catch_signals(const sigset_t *set, void (*handler)(int));
int pft_stop_signal(void);
void pft_supervisor_signals(sigset_t *child_mask);
void pft_forward_signals(pid_t pid);
void pft_forward_signals_end(void);
void pft_child_signals(void);
void pft_cancel_on_stop(struct faultgen_run *run);
void pft_block_stops(sigset_t *old);
void pft_sleep_unless_stopped(double seconds);
void pft_pause_until_resumed(void);

/* failure.c: the one line that says why a run failed */
int pft_report_failure(const struct pft_opts *o, struct faultgen_run *run,
		       int ret, const struct pft_oom *oom_before);

/* cgroup.c: pft's own cgroups */
int pft_cgroup_dir(const char *controller, char *dir, size_t len);
int64_t pft_cgroup_number(const char *dir, const char *file, const char *key);
int64_t pft_cgroup_value(const char *dir, const char *file);

/* oom.c: whether the OOM killer took the run */
void pft_oom_read(struct pft_oom *at);
bool pft_oom_killed(const struct pft_oom *before);
const char *pft_oom_unknown(const struct pft_oom *before);

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
int pft_numa_maps(void *addr, size_t len,
		  void (*line)(const char *text, void *ctx), void *ctx);
int pft_print_numa_maps(FILE *out, void *addr, size_t len);
int64_t pft_proc_number(const char *path, const char *key);
int64_t pft_oom_kills(void);

/* json.c: a writer for one JSON object per line */
struct pft_json {
	FILE *f;     /* where the members go: the line being built */
	FILE *out;   /* where the line goes, in one write, at pj_end */
	char *buf;   /* the line being built (open_memstream) */
	size_t len;
	int depth;
	bool first[16];
};
size_t pft_utf8_len(const char *s);
void pj_begin(struct pft_json *j, FILE *f);
void pj_end(struct pft_json *j);
int pj_write_error(void);
void pj_obj(struct pft_json *j, const char *key);
void pj_obj_end(struct pft_json *j);
void pj_arr(struct pft_json *j, const char *key);
void pj_arr_end(struct pft_json *j);
void pj_str(struct pft_json *j, const char *key, const char *val);
void pj_str_or_null(struct pft_json *j, const char *key, const char *val);
void pj_u64(struct pft_json *j, const char *key, uint64_t val);
void pj_i64(struct pft_json *j, const char *key, int64_t val);
void pj_dbl(struct pft_json *j, const char *key, double val);
void pj_bool(struct pft_json *j, const char *key, bool val);
void pj_null(struct pft_json *j, const char *key);
void pj_value(struct pft_json *j, const char *key,
	      const struct faultgen_value *v);

/* print-legacy.c: 0.12x's lines, and the per-worker lines */
struct pft_run_info {
	struct pft_vmstat before, after;           /* /proc/vmstat */
	struct pft_vmstat mthp_before, mthp_after; /* mTHP stats */
};
void pft_print_title(const struct pft_opts *o);
void pft_format_legacy(const struct pft_opts *o,
		       const struct faultgen_result *r, char *buf, size_t len);
void pft_print_per_worker(const struct pft_opts *o, struct faultgen_run *run,
			  const struct faultgen_result *r);

/* numbers.c: the figures as every printer writes them */
double pft_printable(double v);
long pft_legacy_gbyte(const struct faultgen_result *r);

/* summary.c: the --repeat summary */
void pft_print_summary(const struct pft_opts *o, const double *rates,
		       unsigned int n);

/* print-json.c: the JSON object of a run */
void pft_print_json(const struct pft_opts *o, struct faultgen_run *run,
		    const struct faultgen_result *r,
		    const struct pft_run_info *info, unsigned int index);
void pft_json_common(struct pft_json *j, const struct pft_opts *o,
		     struct faultgen_run *run, unsigned int index);
void pft_json_system(struct pft_json *j, const struct pft_run_info *info);

/* print-figures.c: a pattern's own figures (faultgen_run_figure) */
void pft_print_figures(FILE *out, struct faultgen_run *run);
void pft_json_figures(struct pft_json *j, struct faultgen_run *run);
/* print-replay.c: a replay's objects, as it made their faults */
void pft_print_replay_objects(FILE *out, struct faultgen_run *run);
void pft_json_replay_objects(struct pft_json *j, struct faultgen_run *run);

/* print-latency.c: the latency of the timed touches (--latency) */
void pft_print_latency(FILE *out, struct faultgen_run *run);
void pft_print_worker_latency(FILE *out, struct faultgen_run *run,
			      unsigned int worker);
void pft_json_latency(struct pft_json *j, struct faultgen_run *run,
		      int worker);
/* and of the shared VMA's writers' calls, when it had writers */
void pft_print_writer_latency(FILE *out, struct faultgen_run *run);
void pft_json_writer_latency(struct pft_json *j, struct faultgen_run *run);

/* print-lockpaths.c: which lock the faults took (--lock-paths) */
void pft_print_lock_paths(FILE *out, struct faultgen_run *run);
void pft_print_worker_lock_paths(FILE *out, struct faultgen_run *run,
				 unsigned int worker);
void pft_json_lock_paths(struct pft_json *j, struct faultgen_run *run,
			 int worker);
void pft_lock_paths_note(struct faultgen_run *run);
/* and after them, print-lockwaits.c: how long threads waited for the
 * mmap_lock (--lock-waits) */
void pft_print_lock_waits(FILE *out, struct faultgen_run *run);
void pft_print_worker_lock_waits(FILE *out, struct faultgen_run *run,
				 unsigned int worker);
void pft_json_lock_waits(struct pft_json *j, struct faultgen_run *run,
			 int worker);
void pft_lock_waits_note(struct faultgen_run *run);
void pft_lock_why_not(int err, const char *tracepoint, char *buf, size_t len);

/* print-collapse.c: the read-only collapse line and object */
int pft_print_collapse(const struct pft_opts *o, struct faultgen_run *run,
		       const struct pft_run_info *info, unsigned int index);

#endif /* PFT_H */
