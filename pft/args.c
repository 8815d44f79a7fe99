// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * args.c - pft's command line: 0.12x's short options and the GNU long
 * options, read into struct pft_opts.  One handler per option, found in
 * a table by getopt's code; each checks its own value.  What no single
 * option can judge is checked afterwards (rules.c).  Each value goes
 * into the attr as it is read, through pft_set (setup.c).
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "pft.h"

/* The front end's own defaults; the workload's are the library's, in
 * the attr that the options set. */
int pft_opts_init(struct pft_opts *o)
{
	int ret;

	memset(o, 0, sizeof(*o));
	o->repeat = 1;
	o->perf_fd = -1;
	o->perf_ack_fd = -1;
	o->oom_at_fork.cgroup = -1;
	o->oom_at_fork.system = -1;
	o->pagesize = sysconf(_SC_PAGESIZE);
	ret = faultgen_attr_new(&o->attr);
	if (ret)
		return pft_fail("cannot set up the run: %s",
				faultgen_strerror(ret));
	return 0;
}

void pft_opts_release(struct pft_opts *o)
{
	free(o->allowed_list);
	o->allowed_list = NULL;
	faultgen_attr_free(o->attr);
	o->attr = NULL;
}

/*
 * A count: decimal digits only (0.12x read these with atol, so "abc" was
 * silently 0), into *val; or a usage error naming opt.
 */
int pft_parse_count(const char *opt, const char *s, unsigned long min,
		    unsigned long max, unsigned long *val)
{
	unsigned long long v = 0;
	const char *p = s;

	if (!*p)
		return pft_usage_error("%s '': a number is needed", opt);
	for (; *p; p++) {
		if (!isdigit((unsigned char)*p))
			return pft_usage_error("%s '%s': not a whole number",
					       opt, s);
		if (v > (ULLONG_MAX - 9) / 10)
			return pft_usage_error("%s '%s': too large (at most "
					       "%lu)", opt, s, max);
		v = v * 10 + (unsigned long long)(*p - '0');
	}
	if (v < min)
		return pft_usage_error("%s '%s': must be at least %lu", opt, s,
				       min);
	if (v > max)
		return pft_usage_error("%s '%s': too large (at most %lu)", opt,
				       s, max);
	*val = (unsigned long)v;
	return 0;
}

/* pft_parse_count for the options whose counts fit an unsigned int. */
static int parse_uint(const char *opt, const char *s, unsigned int min,
		      unsigned int max, unsigned int *val)
{
	unsigned long v = 0;
	int ret = pft_parse_count(opt, s, min, max, &v);

	if (!ret)
		*val = (unsigned int)v;
	return ret;
}

/* Skips decimal digits; returns how many. */
static int skip_digits(const char **p)
{
	int n = 0;

	while (isdigit((unsigned char)**p)) {
		(*p)++;
		n++;
	}
	return n;
}

/*
 * Seconds: digits with an optional fraction and an optional exponent
 * ("0.5", "1e-3"), read in the C locale; no sign, hexadecimal, inf or
 * nan.  Any such number in range is taken: 0.000000001 and 1e-9 alike.
 */
static int parse_seconds(const char *opt, const char *s, bool zero_ok,
			 double *val)
{
	const char *p = s;
	int digits = skip_digits(&p);
	double v;

	if (*p == '.') {
		p++;
		digits += skip_digits(&p);
	}
	if (digits && (*p == 'e' || *p == 'E')) {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!skip_digits(&p))
			digits = 0;
	}
	if (!digits || *p)
		return pft_usage_error("%s '%s': not a number of seconds (such "
				       "as 2, 0.5 or 1e-3)", opt, s);
	v = strtod(s, NULL);
	if (!isfinite(v) || v > FAULTGEN_MAX_SECONDS)
		return pft_usage_error("%s '%s': too long (at most %.0f "
				       "seconds)", opt, s,
				       FAULTGEN_MAX_SECONDS);
	if (v <= 0 && !zero_ok)
		return pft_usage_error("%s '%s': must be more than 0 seconds",
				       opt, s);
	*val = v;
	return 0;
}

/* A size with its suffix, into *val; or a usage error naming opt. */
static int parse_size(const char *opt, const char *s, uint64_t *val)
{
	int ret = faultgen_parse_size(s, val);

	if (ret == -ERANGE)
		return pft_usage_error("%s '%s': size too large", opt, s);
	if (ret)
		return pft_usage_error("%s '%s': bad size (a number with an "
				       "optional K, M, G, T or P suffix)", opt, s);
	return 0;
}

/* ---- one handler per option ------------------------------------------ */

/*
 * Each handler takes its option's argument into pft_opts or the attr;
 * it returns 0, or the status that ends pft once it has said why
 * (PFT_DONE for --help and the like).
 */
struct pft_option;
typedef int (*pft_handler)(struct pft_opts *o, const struct pft_option *opt,
			   const char *arg);

/*
 * One of pft's options: the one table of them (options[] below) says how
 * each is spelt, what it sets and what --help says of it.  The settings
 * of a pattern that the table does not list are the library's
 * (faultgen_setting_info): an option each, --NAME, made at start-up.
 */
struct pft_option {
	struct pft_option_doc doc; /* its names and its help */
	int has_arg;               /* getopt's no_argument, ... */
	pft_handler handle;        /* NULL: a flag, switched on */
	size_t flag;               /* the flag's offset in pft_opts */
	int (*set_switch)(struct faultgen_attr *a, int on); /* opt_switch */
	enum faultgen_setting setting; /* the library setting it feeds */
	int val;                   /* what the option stands for, if fixed */
	const char *library;       /* opt_setting: the library's setting */
	/* One spelling of it, made at start-up: "-m" or "--size", getopt's
	 * code, and the index of its library setting (or -1). */
	const char *name;
	int code;
	int index;
};

static int opt_size(struct pft_opts *o, const struct pft_option *opt,
		    const char *s)
{
	uint64_t size = 0;
	int ret = parse_size(opt->name, s, &size);

	if (ret)
		return ret;
	if (size == 0)
		return pft_usage_error("%s '%s': the size must be more than 0",
				       opt->name, s);
	return pft_set(faultgen_attr_set_size(o->attr, size), opt->name, s,
		       "size too large");
}

/* -t and -n: the later one wins (0.12x zeroed the wrong count). */
static int opt_workers(struct pft_opts *o, const struct pft_option *opt,
		       const char *s)
{
	enum faultgen_workers kind = (enum faultgen_workers)opt->val;
	unsigned int n = 0;
	int ret;

	if (o->given[FAULTGEN_SETTING_WORKERS].opt &&
	    faultgen_attr_get_worker_kind(o->attr) != kind && o->verbose)
		pft_msg("%s: switching to %s mode", opt->name,
			kind == FAULTGEN_THREADS ? "thread" : "process");
	ret = parse_uint(opt->name, s, 1, FAULTGEN_MAX_WORKERS, &n);
	if (ret)
		return ret;
	return pft_set(faultgen_attr_set_workers(o->attr, n, kind), opt->name,
		       s, NULL);
}

/* -z, -l and --touch choose one touch; two different ones conflict, except
 * that -l and -L override each other as in 0.12x. */
static int set_touch(struct pft_opts *o, const char *opt, const char *arg,
		     enum faultgen_touch touch)
{
	const char *before = o->given[FAULTGEN_SETTING_TOUCH].opt;
	int ret;

	if (before && faultgen_attr_get_touch(o->attr) != touch)
		return pft_usage_error("%s conflicts with %s: choose one way "
				       "to touch the memory", opt, before);
	if (touch == FAULTGEN_TOUCH_MLOCK &&
	    faultgen_attr_get_shm_lock(o->attr)) {
		pft_msg("-l overrides -L: mlock instead of SHM_LOCK");
		ret = pft_set(faultgen_attr_set_shm_lock(o->attr, 0), opt, arg,
			      NULL);
		if (ret)
			return ret;
	}
	return pft_set(faultgen_attr_set_touch(o->attr, touch), opt, arg,
		       NULL);
}

/* -l, -z: the touch is the option's value. */
static int opt_touch_flag(struct pft_opts *o, const struct pft_option *opt,
			  const char *s)
{
	return set_touch(o, opt->name, s, (enum faultgen_touch)opt->val);
}

static int opt_touch(struct pft_opts *o, const struct pft_option *opt,
		     const char *s)
{
	int touch = 0, ret = pft_keyword(opt->name, s, "touch", &touch);

	return ret ? ret :
		     set_touch(o, opt->name, s, (enum faultgen_touch)touch);
}

static int set_backing(struct pft_opts *o, const char *opt,
		       enum faultgen_backing backing)
{
	const char *before = o->given[FAULTGEN_SETTING_BACKING].opt;

	if (before && faultgen_attr_get_backing(o->attr) != backing)
		return pft_usage_error("%s conflicts with %s: choose one kind "
				       "of memory", opt, before);
	return pft_set(faultgen_attr_set_backing(o->attr, backing), opt, NULL,
		       NULL);
}

/* -S, -Z: the backing is the option's value. */
static int opt_backing(struct pft_opts *o, const struct pft_option *opt,
		       const char *s)
{
	(void)s;
	return set_backing(o, opt->name, (enum faultgen_backing)opt->val);
}

/* --backing=file:PATH: the path, checked as the library takes it. */
static int opt_backing_file(struct pft_opts *o, const struct pft_option *opt,
			    const char *s)
{
	const char *path = s + strlen("file:");
	char why[256];
	int ret;

	if (!*path)
		return pft_usage_error("%s '%s': the file backing needs a path "
				       "(file:PATH)", opt->name, s);
	ret = faultgen_attr_set_backing_path(o->attr, path);
	if (ret && ret != -EBUSY &&
	    pft_path_why(path, ret, false, why, sizeof(why)))
		return pft_usage_error("%s: '%s': %s", opt->name, path, why);
	ret = pft_set(ret, opt->name, s, NULL);
	return ret ? ret : set_backing(o, opt->name, FAULTGEN_BACKING_FILE);
}

/* --backing=NAME: the kind of memory by its name. */
static int opt_backing_name(struct pft_opts *o, const struct pft_option *opt,
			    const char *s)
{
	int val = 0;
	int ret;

	if (strncmp(s, "file:", 5) == 0)
		return opt_backing_file(o, opt, s);
	if (strcmp(s, "file") == 0)
		return pft_usage_error("%s 'file': the file backing needs a "
				       "path (file:PATH)", opt->name);
	ret = pft_keyword(opt->name, s, "backing", &val);

	return ret ? ret :
		     set_backing(o, opt->name, (enum faultgen_backing)val);
}

/* -L: SysV memory, locked; the backing is -L's too. */
static int opt_shm_lock(struct pft_opts *o, const struct pft_option *opt,
		        const char *s)
{
	struct pft_given *touch = &o->given[FAULTGEN_SETTING_TOUCH];
	int ret;

	(void)s;
	if (faultgen_attr_get_touch(o->attr) == FAULTGEN_TOUCH_MLOCK &&
	    touch->opt) {
		pft_msg("-L overrides %s: SHM_LOCK instead of mlock",
			touch->opt);
		ret = pft_set(faultgen_attr_set_touch(o->attr,
						      FAULTGEN_TOUCH_WRITE),
			      opt->name, NULL, NULL);
		if (ret)
			return ret;
		touch->opt = NULL;
	}
	ret = set_backing(o, opt->name, FAULTGEN_BACKING_SYSV);
	if (ret)
		return ret;
	o->given[FAULTGEN_SETTING_BACKING].opt = opt->name;
	return pft_set(faultgen_attr_set_shm_lock(o->attr, 1), opt->name, NULL,
		       NULL);
}

/* -c: the library's limit, in the figures it comes from. */
static int opt_cachelines(struct pft_opts *o, const struct pft_option *opt,
		          const char *s)
{
	long line = (long)faultgen_cacheline_size();
	unsigned int n = 0;
	char why[128];
	int ret = parse_uint(opt->name, s, 1, 1u << 20, &n);

	if (ret)
		return ret;
	snprintf(why, sizeof(why),
		 "at most %ld cachelines fit in a page (%ld-byte pages, "
		 "%ld-byte cachelines)",
		 o->pagesize / line, o->pagesize, line);
	return pft_set(faultgen_attr_set_cachelines(o->attr, n), opt->name, s,
		       why);
}

static int opt_sleep(struct pft_opts *o, const struct pft_option *opt,
		     const char *s)
{
	return parse_uint(opt->name, s, 0, 86400, &o->sleep_s);
}

static int opt_help(struct pft_opts *o, const struct pft_option *opt,
		    const char *s);

static int opt_version(struct pft_opts *o, const struct pft_option *opt,
		       const char *s)
{
	(void)o, (void)opt, (void)s;
	return pft_print_version();
}

static int opt_noclear(struct pft_opts *o, const struct pft_option *opt,
		       const char *s)
{
	(void)o, (void)opt, (void)s;
	return pft_usage_error("-C (no-clear pages) is not supported by this "
			       "kernel");
}

/*
 * -F: in 0.12x's option string, its handling compiled out.  Harnesses
 * (lkp-tests) pass it with more workers than the allowed CPUs and expect
 * 0.12x's clipping, so it is accepted and does nothing;
 * --oversubscribe is what oversubscribes.
 */
static int opt_accepted(struct pft_opts *o, const struct pft_option *opt,
			const char *s)
{
	(void)o, (void)opt, (void)s;
	return 0;
}

static int opt_verbose(struct pft_opts *o, const struct pft_option *opt,
		       const char *s)
{
	(void)opt, (void)s;
	o->verbose++;
	return 0;
}

static int opt_multimap(struct pft_opts *o, const struct pft_option *opt,
		        const char *s)
{
	return pft_set(faultgen_attr_set_pattern(o->attr,
						 FAULTGEN_PER_THREAD_VMA),
		       opt->name, s, NULL);
}

static int opt_pattern(struct pft_opts *o, const struct pft_option *opt,
		       const char *s)
{
	enum faultgen_pattern p = FAULTGEN_SHARED_VMA;
	int ret = pft_pattern_keyword(opt->name, s, &p);

	return ret ? ret :
		     pft_set(faultgen_attr_set_pattern(o->attr, p), opt->name,
			     s, NULL);
}

/* --replay=FILE: the replay pattern and its profile, read and checked
 * now: a profile refused is bad input, named by its member. */
static int opt_replay(struct pft_opts *o, const struct pft_option *opt,
		      const char *s)
{
	char why[256];
	int ret = faultgen_attr_set_pattern(o->attr, FAULTGEN_REPLAY);

	if (!ret)
		ret = faultgen_attr_set_profile(o->attr, s);
	if (ret && faultgen_attr_profile_error(o->attr, why, sizeof(why)) > 0)
		return pft_usage_error("%s=%s: %s", opt->name, s, why);
	return pft_set(ret, opt->name, s, NULL);
}

/* --as-fast: the replay's pacing "none". */
static int opt_as_fast(struct pft_opts *o, const struct pft_option *opt,
		       const char *s)
{
	struct faultgen_value v = { .type = FAULTGEN_TYPE_KEYWORD };

	(void)s;
	v.v.keyword = "none";
	return pft_set(faultgen_attr_set_value(o->attr, "pacing", &v),
		       opt->name, NULL, NULL);
}

static int opt_cpus(struct pft_opts *o, const struct pft_option *opt,
		    const char *s)
{
	int ret = faultgen_attr_set_cpus(o->attr, s);

	if (ret == -ERANGE)
		return pft_usage_error("%s '%s': a CPU beyond the kernel's %d "
				       "possible CPUs", opt->name, s,
				       faultgen_possible_cpus());
	return pft_set(ret, opt->name, s,
		       "bad CPU list (e.g. 0-3,7 or 0-63:8)");
}

static int opt_cpuset(struct pft_opts *o, const struct pft_option *opt,
		      const char *s)
{
	if (!*s)
		return pft_usage_error("%s '': a cpuset name is needed",
				       opt->name);
	return pft_set(faultgen_attr_set_cpuset(o->attr, s), opt->name, s,
		       "bad cpuset name");
}

/* -p, --localalloc, --numa, --membind, ...: one memory policy.  The same
 * policy twice is taken (0.12x's -p was a flag); two different ones
 * conflict. */
static int set_numa(struct pft_opts *o, const char *opt,
		    enum faultgen_numa numa, const char *nodes)
{
	const char *before = o->given[FAULTGEN_SETTING_NUMA].opt;
	const char *had = faultgen_attr_get_numa_nodes(o->attr);

	if (before && (faultgen_attr_get_numa(o->attr) != numa ||
		       (nodes && had && strcmp(nodes, had) != 0)))
		return pft_usage_error("%s conflicts with %s: choose one "
				       "memory policy", opt, before);
	if (nodes && !*nodes)
		return pft_usage_error("%s '': a node list is needed (such as "
				       "0, 0-3 or all)", opt);
	return pft_set_numa(o, opt, numa, nodes);
}

/* -p, --numa-local, --localalloc; --membind, --interleave, --preferred:
 * the policy is the option's value, and the argument its nodes. */
static int opt_numa_policy(struct pft_opts *o, const struct pft_option *opt,
			   const char *s)
{
	return set_numa(o, opt->name, (enum faultgen_numa)opt->val, s);
}

static int opt_numa(struct pft_opts *o, const struct pft_option *opt,
		    const char *s)
{
	int numa = 0, ret;

	if (!strcmp(s, "bind") || !strcmp(s, "interleave") ||
	    !strcmp(s, "preferred"))
		return pft_usage_error("%s '%s': give the nodes with "
				       "--membind, --interleave or "
				       "--preferred", opt->name, s);
	ret = pft_policy_keyword(opt->name, s, &numa);
	return ret ? ret :
		     set_numa(o, opt->name, (enum faultgen_numa)numa, NULL);
}

static int opt_duration(struct pft_opts *o, const struct pft_option *opt,
		        const char *s)
{
	double v = 0;
	int ret;

	if (faultgen_attr_get_rounds(o->attr))
		return pft_usage_error(
			"--duration conflicts with --rounds: choose one");
	ret = parse_seconds(opt->name, s, false, &v);
	if (ret)
		return ret;
	return pft_set(faultgen_attr_set_duration(
			       o->attr, v, faultgen_attr_get_zap(o->attr)),
		       opt->name, s, NULL);
}

static int opt_rounds(struct pft_opts *o, const struct pft_option *opt,
		      const char *s)
{
	unsigned int n = 0;
	int ret;

	if (faultgen_attr_get_duration(o->attr) > 0)
		return pft_usage_error(
			"--rounds conflicts with --duration: choose one");
	ret = parse_uint(opt->name, s, 1, 1000000000, &n);
	if (ret)
		return ret;
	return pft_set(faultgen_attr_set_rounds(
			       o->attr, n, faultgen_attr_get_zap(o->attr)),
		       opt->name, s, NULL);
}

/* The zap goes with the rounds or the duration, given before or after. */
static int opt_zap(struct pft_opts *o, const struct pft_option *opt,
		   const char *s)
{
	double seconds = faultgen_attr_get_duration(o->attr);
	int zap = 0, ret = pft_keyword(opt->name, s, "zap", &zap);

	if (ret)
		return ret;
	if (seconds > 0)
		ret = faultgen_attr_set_duration(o->attr, seconds,
						 (enum faultgen_zap)zap);
	else
		ret = faultgen_attr_set_rounds(
			o->attr, faultgen_attr_get_rounds(o->attr),
			(enum faultgen_zap)zap);
	return pft_set(ret, opt->name, s, NULL);
}

static int opt_warmup(struct pft_opts *o, const struct pft_option *opt,
		      const char *s)
{
	unsigned int n = 0;
	int ret = parse_uint(opt->name, s, 0, FAULTGEN_MAX_WARMUP, &n);

	return ret ? ret :
		     pft_set(faultgen_attr_set_warmup(o->attr, n), opt->name,
			     s, NULL);
}

/* --latency[=N]: time one touch in N, every one without N. */
static int opt_latency(struct pft_opts *o, const struct pft_option *opt,
		       const char *s)
{
	unsigned int n = 1;
	int ret = s ? parse_uint(opt->name, s, 1, FAULTGEN_MAX_LATENCY_EVERY,
				 &n) :
		      0;

	return ret ? ret :
		     pft_set(faultgen_attr_set_latency(o->attr, n), opt->name,
			     s, NULL);
}

static int opt_repeat(struct pft_opts *o, const struct pft_option *opt,
		      const char *s)
{
	return parse_uint(opt->name, s, 1, 1000000, &o->repeat);
}

static int opt_perf_ctl(struct pft_opts *o, const struct pft_option *opt,
		        const char *s)
{
	if (!*s)
		return pft_usage_error("%s '': a file descriptor or FIFO is "
				       "needed", opt->name);
	o->perf_ctl = s;
	return 0;
}

/* --writers=M[,OP]: M writers beside the shared VMA's faulters. */
static int opt_writers(struct pft_opts *o, const struct pft_option *opt,
		       const char *s)
{
	const char *comma = strchr(s, ','), *num = s;
	char count[16];
	unsigned int m = 0;
	int op = FAULTGEN_WRITER_MMAP, ret;

	if (comma) {
		size_t n = (size_t)(comma - s);

		if (n >= sizeof(count))
			return pft_usage_error("%s '%s': too large (at most "
					       "%u)", opt->name, s,
					       FAULTGEN_MAX_WRITERS);
		memcpy(count, s, n);
		count[n] = '\0';
		num = count;
	}
	ret = parse_uint(opt->name, num, 0, FAULTGEN_MAX_WRITERS, &m);
	if (!ret && comma)
		ret = pft_keyword(opt->name, comma + 1, "writer-op", &op);
	if (ret)
		return ret;
	return pft_set(faultgen_attr_set_writers(o->attr, m,
						 (enum faultgen_writer_op)op),
		       opt->name, s, NULL);
}

/* -a, -f, --oversubscribe: a switch of the attr. */
static int opt_switch(struct pft_opts *o, const struct pft_option *opt,
		      const char *s)
{
	return pft_set(opt->set_switch(o->attr, 1), opt->name, s, NULL);
}

/*
 * A setting of the library's, of its type and by its own bounds and
 * keywords (faultgen_setting_info): the options the table below does
 * not list are made of these, and some it lists are.
 */
static int opt_setting(struct pft_opts *o, const struct pft_option *opt,
		       const char *s)
{
	struct faultgen_setting_info in = { .size = sizeof(in) };
	struct faultgen_value v;
	unsigned long n = 0;
	char why[128] = "";
	int k = 0, ret = faultgen_setting_info((unsigned int)opt->index, &in);

	if (ret)
		return pft_fail("%s: %s", opt->name, faultgen_strerror(ret));
	memset(&v, 0, sizeof(v));
	v.type = in.type;
	switch (in.type) {
	case FAULTGEN_TYPE_BOOL:
		v.v.boolean = 1;
		break;
	case FAULTGEN_TYPE_UINT:
		ret = pft_parse_count(opt->name, s,
				      in.flags & FAULTGEN_SETTING_ZERO ?
					      0 :
					      (unsigned long)in.min,
				      (unsigned long)in.max, &n);
		v.v.number = n;
		break;
	case FAULTGEN_TYPE_SIZE:
		if (faultgen_parse_size(s, &v.v.number))
			return pft_usage_error("%s '%s': bad size (a number "
					       "with an optional K, M, G, T or "
					       "P suffix)", opt->name, s);
		if (in.flags & FAULTGEN_SETTING_PAGES)
			snprintf(why, sizeof(why),
				 "a multiple of the page size (%ld), at most "
				 "%" PRIu64 "G", o->pagesize, in.max >> 30);
		break;
	case FAULTGEN_TYPE_SECONDS:
		ret = parse_seconds(opt->name, s,
				    in.flags & FAULTGEN_SETTING_ZERO,
				    &v.v.seconds);
		break;
	case FAULTGEN_TYPE_KEYWORD:
		ret = pft_keyword(opt->name, s, in.name, &k);
		v.v.keyword = in.keywords[k];
		break;
	case FAULTGEN_TYPE_TEXT:
		v.v.text = s;
		break;
	}
	if (ret)
		return ret;
	return pft_set(faultgen_attr_set_value(o->attr, in.name, &v),
		       opt->name, s, why[0] ? why : NULL);
}

/* Its names: short, long (NULL for none) and its value's name. */
#define NAMES(c, l, a) .doc = { .short_name = (c), .long_name = (l),     \
				.arg_name = (a) },                       \
		       .has_arg = (a) ? required_argument : no_argument
#define HELP(sec, text) .doc.section = (sec), .doc.help = (text)
#define LEGACY(text) HELP(PFT_SEC_LEGACY, text)
#define WORKLOAD(text) HELP(PFT_SEC_WORKLOAD, text)
#define POLICY(text) HELP(PFT_SEC_POLICY, text)
#define OUTPUT(text) HELP(PFT_SEC_OUTPUT, text)
#define SWITCH(setter) .handle = opt_switch, .set_switch = (setter)
#define FLAG(field) .flag = offsetof(struct pft_opts, field)
#define SETTING(s) .setting = FAULTGEN_SETTING_##s

/* pft's options, in the order --help lists them. */
static const struct pft_option options[] = {
	{ NAMES('m', "size", "SIZE"), .handle = opt_size, SETTING(SIZE),
	  LEGACY("memory in all: bytes, or a K, M, G, T or P\n"
		 "(pages) suffix (default: one page)") },
	{ NAMES('t', "threads", "N"), .handle = opt_workers, SETTING(WORKERS),
	  .val = FAULTGEN_THREADS, LEGACY("N worker threads (default 1)") },
	{ NAMES('n', "processes", "N"), .handle = opt_workers,
	  SETTING(WORKERS), .val = FAULTGEN_PROCESSES,
	  LEGACY("N worker processes; -t and -n: the later wins") },
	{ NAMES('c', "cachelines", "N"), .handle = opt_cachelines,
	  SETTING(CACHELINES),
	  LEGACY("write N cachelines of every page (default 1; at\n"
		 "most the cachelines in a page)") },
	{ NAMES('z', NULL, NULL), .handle = opt_touch_flag, SETTING(TOUCH),
	  .val = FAULTGEN_TOUCH_MEMSET,
	  LEGACY("memset each worker's slice (--touch=memset)") },
	{ NAMES('l', NULL, NULL), .handle = opt_touch_flag, SETTING(TOUCH),
	  .val = FAULTGEN_TOUCH_MLOCK,
	  LEGACY("mlock each worker's slice (--touch=mlock)") },
	{ NAMES('S', "sysv", NULL), .handle = opt_backing, SETTING(BACKING),
	  .val = FAULTGEN_BACKING_SYSV,
	  LEGACY("a SysV shared memory segment") },
	{ NAMES('L', "shm-lock", NULL), .handle = opt_shm_lock,
	  SETTING(SHM_LOCK), LEGACY("SHM_LOCK the SysV segment (implies -S)") },
	{ NAMES('Z', "dev-zero", NULL), .handle = opt_backing,
	  SETTING(BACKING), .val = FAULTGEN_BACKING_DEVZERO,
	  LEGACY("a private mapping of /dev/zero") },
	{ NAMES(0, "backing", "KIND"), .handle = opt_backing_name,
	  SETTING(BACKING),
	  LEGACY("the memory: anon (default), dev-zero, sysv,\n"
		 "memfd (a memfd_create file, shmem), hugetlb\n"
		 "(MAP_HUGETLB, 2 MiB pages from nr_hugepages) or\n"
		 "file:PATH (a file made in directory PATH, or\n"
		 "the file PATH as it is; hugetlbfs too)") },
	{ NAMES(0, "share", NULL), SWITCH(faultgen_attr_set_share),
	  SETTING(SHARE),
	  LEGACY("MAP_SHARED: anon and dev-zero are shmem then") },
	{ NAMES('p', "numa-local", NULL), .handle = opt_numa_policy,
	  SETTING(NUMA), .val = FAULTGEN_NUMA_LOCAL,
	  LEGACY("mbind MPOL_PREFERRED, empty node mask (local)"),
	  .doc.lead = "-p, --numa-local, --localalloc" },
	{ NAMES(0, "localalloc", NULL), .handle = opt_numa_policy,
	  SETTING(NUMA), .val = FAULTGEN_NUMA_LOCAL },
	{ NAMES('a', "pin", NULL), SWITCH(faultgen_attr_set_pin), SETTING(PIN),
	  LEGACY("pin worker i to the i-th allowed CPU, round robin") },
	{ NAMES('f', "fifo", NULL), SWITCH(faultgen_attr_set_sched_fifo),
	  SETTING(SCHED_FIFO),
	  LEGACY("run the workers SCHED_FIFO (needs the privilege)") },
	{ NAMES('F', NULL, NULL), .handle = opt_accepted,
	  LEGACY("accepted and ignored, as in 0.12x") },
	{ NAMES(0, "oversubscribe", NULL),
	  SWITCH(faultgen_attr_set_oversubscribe), SETTING(OVERSUBSCRIBE),
	  LEGACY("allow more workers than allowed CPUs") },
	{ NAMES(0, "force", NULL), FLAG(force),
	  LEGACY("run even when -m is more than the available memory") },
	{ NAMES('M', NULL, NULL), .handle = opt_multimap, SETTING(PATTERN),
	  LEGACY("one mapping per worker (--pattern=per-thread-vma)") },
	{ NAMES('s', "sleep", "N"), .handle = opt_sleep,
	  LEGACY("keep the memory N seconds after the run") },
	{ NAMES('T', "title", NULL), FLAG(title),
	  LEGACY("print a title line (and a TAG line with a tag)") },
	{ NAMES('N', "numa-maps", NULL), FLAG(numa_maps),
	  LEGACY("print the region's /proc/PID/numa_maps lines") },
	{ NAMES('P', "pause", NULL), FLAG(pause),
	  LEGACY("after the run, wait for SIGUSR1 (inspect maps)") },
	{ NAMES('v', "verbose", NULL), .handle = opt_verbose,
	  LEGACY("more diagnostics on stderr (repeatable)") },
	{ NAMES('V', "version", NULL), .handle = opt_version,
	  LEGACY("print the version on stderr and exit") },
	{ NAMES('C', NULL, NULL), .handle = opt_noclear,
	  LEGACY("no-clear pages: not supported by this kernel") },
	{ NAMES('h', "help", NULL), .handle = opt_help,
	  LEGACY("print this help and exit") },
	{ NAMES(0, "list-patterns", NULL), FLAG(list_patterns),
	  LEGACY("print the pattern names, one a line, and exit") },
	{ LEGACY("label for the TAG line of -T"), .doc.lead = "TAG" },

	{ NAMES(0, "pattern", "P"), .handle = opt_pattern, SETTING(PATTERN),
	  WORKLOAD(NULL) },
	{ NAMES(0, "replay", "FILE"), .handle = opt_replay, SETTING(PATTERN),
	  HELP(PFT_SEC_PATTERN, "--pattern=replay --profile=FILE, the\n"
				"profile checked before anything runs"),
	  .doc.pattern = FAULTGEN_REPLAY },
	{ NAMES(0, "as-fast", NULL), .handle = opt_as_fast,
	  .library = "pacing",
	  HELP(PFT_SEC_PATTERN, "the faults back to back (--pacing=none)"),
	  .doc.pattern = FAULTGEN_REPLAY },
	{ NAMES(0, "cpus", "LIST"), .handle = opt_cpus, SETTING(CPUS),
	  WORKLOAD("narrow the allowed CPUs, e.g. 7,14,21 or 0-63:8") },
	{ NAMES(0, "cpuset", "NAME"), .handle = opt_cpuset, SETTING(CPUSET),
	  WORKLOAD("move pft into cpuset NAME and run on its CPUs") },
	{ NAMES(0, "touch", "HOW"), .handle = opt_touch, SETTING(TOUCH),
	  WORKLOAD("write (default), read, memset, mlock, populate") },
	{ NAMES(0, "thp", "MODE"), .handle = opt_setting, .library = "thp",
	  SETTING(THP),
	  WORKLOAD("default, always (MADV_HUGEPAGE), never\n"
		   "(MADV_NOHUGEPAGE), per region; sysfs untouched") },
	{ NAMES(0, "duration", "SECONDS"), .handle = opt_duration,
	  SETTING(REPEAT), WORKLOAD("fault, zap and fault again for SECONDS") },
	{ NAMES(0, "rounds", "N"), .handle = opt_rounds, SETTING(REPEAT),
	  WORKLOAD("... or for N rounds per worker") },
	{ NAMES(0, "zap", "HOW"), .handle = opt_zap, SETTING(ZAP),
	  WORKLOAD("dontneed (default) or munmap (per-thread-vma)") },
	{ NAMES(0, "warmup", "N"), .handle = opt_warmup, SETTING(WARMUP),
	  WORKLOAD("N unmeasured rounds first (default 2)") },
	{ NAMES(0, "writers", "M[,OP]"), .handle = opt_writers,
	  SETTING(WRITERS),
	  WORKLOAD("shared-vma: M threads beside the workers changing\n"
		   "mappings of their own: mmap (default), mprotect,\n"
		   "madvise") },
	{ NAMES(0, "stripe-pages", "K"), .handle = opt_setting,
	  .library = "stripe-pages", SETTING(INTERLEAVE),
	  WORKLOAD("shared-vma: stripe the pages over the workers,\n"
		   "blocks of K round robin (0: slices, the default)") },
	/* Its name in 1.2. */
	{ NAMES(0, "interleave-pages", "K"), .handle = opt_setting,
	  .library = "stripe-pages", SETTING(INTERLEAVE) },
	{ NAMES(0, "cold", NULL), .handle = opt_setting, .library = "cold",
	  WORKLOAD("file:PATH: drop each round's pages from the page\n"
		   "cache first, so that every fault reads the file\n"
		   "(major faults; not on tmpfs)") },

	{ NAMES(0, "membind", "NODES"), .handle = opt_numa_policy,
	  SETTING(NUMA), .val = FAULTGEN_NUMA_BIND,
	  POLICY("MPOL_BIND: pages only on NODES") },
	{ NAMES(0, "interleave", "NODES"), .handle = opt_numa_policy,
	  SETTING(NUMA), .val = FAULTGEN_NUMA_INTERLEAVE,
	  POLICY("MPOL_INTERLEAVE: page by page over NODES") },
	{ NAMES(0, "preferred", "NODE"), .handle = opt_numa_policy,
	  SETTING(NUMA), .val = FAULTGEN_NUMA_PREFERRED,
	  POLICY("MPOL_PREFERRED: on NODE while it has memory") },
	{ NAMES(0, "numa", "POLICY"), .handle = opt_numa, SETTING(NUMA),
	  POLICY("default, local (-p), worker-local (each slice on\n"
		 "the node of its worker's CPU)") },

	{ NAMES(0, "repeat", "N"), .handle = opt_repeat,
	  OUTPUT("N runs, then a summary of fault/wsec") },
	{ NAMES(0, "json", NULL), FLAG(json),
	  OUTPUT("one JSON object per run (JSON Lines) on stdout\n"
		 "instead of the result lines") },
	{ NAMES(0, "per-worker", NULL), FLAG(per_worker),
	  OUTPUT("a line of figures per worker after each result") },
	{ .doc = { .long_name = "latency", .arg_name = "N",
		   .optional_arg = true },
	  .has_arg = optional_argument, .handle = opt_latency,
	  SETTING(LATENCY),
	  OUTPUT("time the touch of one page in N (default every\n"
		 "one), or each call of a touch made in calls\n"
		 "(-l, -z, populate, ro-collapse): p50, p90, p99,\n"
		 "p99.9, max and what the scheduler did, after\n"
		 "the result") },
	{ NAMES(0, "lock-paths", NULL), SWITCH(faultgen_attr_set_lock_paths),
	  OUTPUT("count which lock each worker's faults took (per-VMA\n"
		 "lock or mmap_lock) from the kernel's tracepoints:\n"
		 "a line after the result (root; a note where not\n"
		 "possible)") },
	{ NAMES(0, "lock-waits", NULL), SWITCH(faultgen_attr_set_lock_waits),
	  OUTPUT("time each thread's mmap_lock waits (lock:contention_\n"
		 "begin..end within an mmap_lock acquisition) in a\n"
		 "ring buffer: count, p50, p99, p99.9, max and\n"
		 "decades of us, readers and writers apart, after\n"
		 "the result (root; a note where not possible)") },
	{ NAMES(0, "perf-ctl", "CTL[,ACK]"), .handle = opt_perf_ctl,
	  OUTPUT("write perf's \"enable\"/\"disable\" to CTL (a file\n"
		 "descriptor number or a FIFO) around each run,\n"
		 "waiting for \"ack\" on ACK when given") },
};
#define NR_OPTIONS (sizeof(options) / sizeof(options[0]))

/*
 * The options as getopt reads them, made once: a spelling of each of
 * pft's (-m and --size apart, so that a message names what was typed),
 * and --NAME for each setting of a pattern that pft's table leaves to
 * the library.
 */
#define MAX_SPELLINGS (2 * NR_OPTIONS + PFT_MAX_LIBRARY_SETTINGS)
static struct {
	struct pft_option opt[MAX_SPELLINGS];
	size_t n;
	struct option longs[MAX_SPELLINGS + 1];
	size_t nlongs;
	char shorts[2 * NR_OPTIONS + 2];
	char names[MAX_SPELLINGS][72];
	/* What --help lists: pft's options, then the library's. */
	const struct pft_option_doc *docs[NR_OPTIONS +
					  PFT_MAX_LIBRARY_SETTINGS];
	size_t ndocs;
	struct pft_option made[PFT_MAX_LIBRARY_SETTINGS];
} cli;

/* A library setting that an option of pft's table sets: its index. */
static int library_index(const char *name)
{
	int i = faultgen_setting_index(name);

	return i < 0 ? -1 : i;
}

/* A spelling of opt: "-m" (short) or "--size". */
static void add_spelling(const struct pft_option *def, bool is_short)
{
	struct pft_option *o = &cli.opt[cli.n];
	char *name = cli.names[cli.n];

	*o = *def;
	o->index = def->library ? library_index(def->library) : def->index;
	if (is_short) {
		snprintf(name, sizeof(cli.names[0]), "-%c", def->doc.short_name);
		o->code = (unsigned char)def->doc.short_name;
		size_t len = strlen(cli.shorts);

		cli.shorts[len++] = def->doc.short_name;
		if (def->has_arg == required_argument)
			cli.shorts[len++] = ':';
		cli.shorts[len] = '\0';
	} else {
		snprintf(name, sizeof(cli.names[0]), "--%s",
			 def->doc.long_name);
		o->code = 256 + (int)cli.n;
		cli.longs[cli.nlongs++] = (struct option){
			def->doc.long_name, def->has_arg, NULL, o->code
		};
	}
	o->name = name;
	cli.n++;
}

/* The library's setting of index i has an option of pft's table. */
static bool listed(const struct faultgen_setting_info *in)
{
	for (size_t i = 0; i < NR_OPTIONS; i++)
		if ((in->setting != FAULTGEN_SETTING_NONE &&
		     options[i].setting == in->setting) ||
		    (options[i].doc.long_name &&
		     strcmp(options[i].doc.long_name, in->name) == 0))
			return true;
	return false;
}

/* An option for each setting of a pattern that pft does not list. */
static void add_library_options(void)
{
	int n = faultgen_setting_count();
	size_t made = 0;

	for (int i = 0; i < n && made < PFT_MAX_LIBRARY_SETTINGS; i++) {
		struct faultgen_setting_info in = { .size = sizeof(in) };
		struct pft_option *o = &cli.made[made];

		if (faultgen_setting_info((unsigned int)i, &in) ||
		    in.pattern < 0 || listed(&in))
			continue;
		*o = (struct pft_option){
			.doc = { .section = PFT_SEC_PATTERN,
				 .pattern = in.pattern,
				 .long_name = in.name,
				 .arg_name = in.type == FAULTGEN_TYPE_BOOL ?
						     NULL :
						     in.value_name,
				 .help = in.help },
			.has_arg = in.type == FAULTGEN_TYPE_BOOL ?
					   no_argument :
					   required_argument,
			.handle = opt_setting,
			.setting = in.setting,
			.index = i,
		};
		add_spelling(o, false);
		cli.docs[cli.ndocs++] = &o->doc;
		made++;
	}
}

static void build_cli(void)
{
	if (cli.n)
		return;
	/* A leading ':' lets pft tell a missing argument from an unknown
	 * option. */
	strcpy(cli.shorts, ":");
	for (size_t i = 0; i < NR_OPTIONS; i++) {
		const struct pft_option *def = &options[i];

		if (def->doc.short_name)
			add_spelling(def, true);
		if (def->doc.long_name)
			add_spelling(def, false);
		if (def->doc.section != PFT_SEC_NONE)
			cli.docs[cli.ndocs++] = &def->doc;
	}
	add_library_options();
	cli.longs[cli.nlongs] = (struct option){ NULL, 0, NULL, 0 };
}

static int opt_help(struct pft_opts *o, const struct pft_option *opt,
		    const char *s)
{
	(void)o, (void)opt, (void)s;
	return pft_print_help(cli.docs, cli.ndocs);
}

static int bad_option(int argc, char **argv)
{
	const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";

	if (optopt && optopt < 256 && strncmp(arg, "--", 2) != 0)
		return pft_usage_error("unknown option '-%c'", optopt);
	if (optopt) /* a long option that takes no argument got one */
		return pft_usage_error("option '%.*s' takes no argument",
				       (int)strcspn(arg, "="), arg);
	return pft_usage_error("unknown option '%s'", arg);
}

static int missing_argument(int argc, char **argv)
{
	const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";

	if (strncmp(arg, "--", 2) == 0)
		return pft_usage_error("option '%s' needs an argument", arg);
	return pft_usage_error("option '-%c' needs an argument", optopt);
}

/* Who set what: by the enum's value, or by the library's index for a
 * setting newer than the enum. */
static struct pft_given *given_of(struct pft_opts *o,
				  const struct pft_option *opt)
{
	if (opt->setting != FAULTGEN_SETTING_NONE)
		return &o->given[opt->setting];
	if (opt->index >= 0 && opt->index < PFT_MAX_LIBRARY_SETTINGS)
		return &o->given_by_index[opt->index];
	return NULL;
}

static int parse_one(struct pft_opts *o, int c, const char *arg, int argc,
		     char **argv)
{
	if (c == ':')
		return missing_argument(argc, argv);
	for (size_t i = 0; i < cli.n; i++) {
		const struct pft_option *opt = &cli.opt[i];
		struct pft_given *given = given_of(o, opt);
		int ret = 0;

		if (opt->code != c)
			continue;
		if (opt->handle)
			ret = opt->handle(o, opt, arg);
		else
			*(bool *)((char *)o + opt->flag) = true;
		if (given) {
			given->opt = opt->name;
			given->arg = arg;
		}
		return ret;
	}
	return bad_option(argc, argv);
}

/* The code point of the UTF-8 sequence of n bytes at p. */
static unsigned int code_point(const char *p, size_t n)
{
	const unsigned char *u = (const unsigned char *)p;
	unsigned int cp = n == 1 ? u[0] : u[0] & (0x7fu >> n);

	for (size_t i = 1; i < n; i++)
		cp = cp << 6 | (u[i] & 0x3fu);
	return cp;
}

/*
 * The TAG goes into the TAG line and the JSON: a control character would
 * break the one-line-per-record rule (a newline under -T printed a line
 * that read as a result), and so would the C1 controls and U+2028 and
 * U+2029 for readers that split lines on them (Python's splitlines); JSON
 * must be UTF-8.  None is escaped behind the user's back: such a TAG is
 * refused.
 */
static int check_tag(const char *tag)
{
	for (const char *p = tag; *p;) {
		unsigned char c = (unsigned char)*p;
		size_t n = pft_utf8_len(p);
		unsigned int cp = n ? code_point(p, n) : 0;

		if (c < 0x20 || c == 0x7f)
			return pft_usage_error("TAG: a control character (byte "
					       "0x%02x at offset %zu) is not "
					       "allowed", c,
					       (size_t)(p - tag));
		if ((cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029)
			return pft_usage_error("TAG: %s (U+%04X at offset %zu) "
					       "is not allowed",
					       cp < 0x100 ? "a control character" :
					       "a line or paragraph separator",
					       cp, (size_t)(p - tag));
		if (!n)
			return pft_usage_error("TAG: not UTF-8 (byte 0x%02x at "
					       "offset %zu)", c,
					       (size_t)(p - tag));
		p += n;
	}
	return 0;
}

/*
 * The command line into o and its attr, then pft's rules and the
 * library's check.  Returns 0, or the status that ends pft (it has said
 * why); the first bad option ends the parse.
 */
int pft_parse_args(struct pft_opts *o, int argc, char **argv)
{
	int c, ret;

	build_cli();
	opterr = 0;
	while ((c = getopt_long(argc, argv, cli.shorts, cli.longs, NULL)) !=
	       -1) {
		ret = parse_one(o, c, optarg, argc, argv);
		/* getopt leaves optopt alone on success; keep it clean for
		 * the error paths. */
		optopt = 0;
		if (ret)
			return ret;
	}
	if (optind < argc) {
		ret = check_tag(argv[optind]);
		if (ret)
			return ret;
		o->tag = argv[optind++];
	}
	if (optind < argc)
		return pft_usage_error("unexpected argument '%s' (only one TAG)",
				       argv[optind]);
	if (o->list_patterns)
		return pft_print_patterns(o->json);
	ret = pft_check_combinations(o);
	return ret ? ret : pft_finish_attr(o);
}
