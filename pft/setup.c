// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * setup.c - the library's attr from pft's options, and the CPUs a run
 * may use.
 *
 * The options were checked when read, so a setter that refuses a value is
 * the library disagreeing with pft (another libfaultgen, or a rule pft
 * does not copy): that is still the user's value, so it is a usage error
 * naming the option and the value as typed.  Only running out of memory
 * is a runtime error.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pft.h"

struct builder {
	struct faultgen_attr *a;
	const struct pft_opts *o;
};

/* Exits: the library refused `val` of option `opt` with `ret`. */
__attribute__((noreturn)) static void refused(int ret, const char *opt,
					      const char *val, const char *why)
{
	char what[512];

	if (val)
		snprintf(what, sizeof(what), "%s '%s'", opt, val);
	else
		snprintf(what, sizeof(what), "%s", opt);
	if (ret == -ENOMEM)
		pft_fatal("%s: cannot set up the run: %s", what,
			  faultgen_strerror(ret));
	if (ret != -EINVAL && ret != -ERANGE)
		pft_fatal("%s: %s", what, faultgen_strerror(ret));
	if (why)
		pft_usage_error("%s: %s", what, why);
	pft_usage_error("%s: not accepted by libfaultgen %s (%s)", what,
			faultgen_version(), faultgen_strerror(ret));
}

/*
 * The setter of `setting` returned ret.  On an error: the option and
 * value the user gave, or, for a setting left at pft's default, the long
 * option and pft's value (def_opt, def_val).
 */
static void check_set(struct builder *b, int ret,
		      enum faultgen_setting setting,
		      const char *def_opt, const char *def_val,
		      const char *why)
{
	const struct pft_given *g = &b->o->given[setting];

	if (!ret)
		return;
	faultgen_attr_free(b->a);
	if (g->opt)
		refused(ret, g->opt, g->arg, why);
	refused(ret, def_opt, def_val, why);
}

static const char *num(char *buf, size_t len, double v)
{
	snprintf(buf, len, "%g", v);
	return buf;
}

static const char *yes_no(bool on)
{
	return on ? "on" : "off";
}

/* -c: the library's limit, in the figures it comes from. */
static void set_cachelines(struct builder *b)
{
	const struct pft_opts *o = b->o;
	long line = (long)faultgen_cacheline_size();
	char why[128], val[16];

	snprintf(why, sizeof(why),
		 "at most %ld cachelines fit in a page (%ld-byte pages, "
		 "%ld-byte cachelines)",
		 o->pagesize / line, o->pagesize, line);
	snprintf(val, sizeof(val), "%u", o->cachelines);
	check_set(b, faultgen_attr_set_cachelines(b->a, o->cachelines),
		  FAULTGEN_SETTING_CACHELINES, "-c", val, why);
}

static void set_cpus(struct builder *b)
{
	const char *list = b->o->cpus;
	int ret = faultgen_attr_set_cpus(b->a, list);

	if (ret == -ERANGE) {
		faultgen_attr_free(b->a);
		pft_usage_error("--cpus '%s': a CPU beyond the kernel's %d "
				"possible CPUs", list,
				faultgen_possible_cpus());
	}
	check_set(b, ret, FAULTGEN_SETTING_CPUS, "--cpus", list,
		  "bad CPU list (e.g. 0-3,7 or 0-63:8)");
}

/*
 * The first node of list that is not in mask (nbits bits), or -1.  "all"
 * names no node.
 */
static int node_outside(const char *list, const unsigned long *mask,
			size_t nbits)
{
	unsigned long want[PFT_NODE_WORDS];
	size_t bpl = 8 * sizeof(long);

	if (strcmp(list, "all") == 0 ||
	    faultgen_parse_cpulist(list, want, nbits) < 0)
		return -1;
	for (size_t i = 0; i < nbits; i++)
		if ((want[i / bpl] >> (i % bpl) & 1) &&
		    !(mask[i / bpl] >> (i % bpl) & 1))
			return (int)i;
	return -1;
}

/* A node list the library refused: the node it could not use, named. */
__attribute__((noreturn)) static void bad_nodes(struct builder *b, int ret)
{
	const struct pft_opts *o = b->o;
	unsigned long mask[PFT_NODE_WORDS];
	size_t nbits = sizeof(mask) * 8;
	char have[256] = "";
	int n = -1;

	faultgen_attr_free(b->a);
	if (ret == -ENOENT || ret == -ENXIO) {
		if ((ret == -ENOENT ? faultgen_numa_nodes(mask, nbits) :
				      faultgen_numa_allowed(mask, nbits)) >= 0) {
			n = node_outside(o->numa_nodes, mask, nbits);
			faultgen_format_cpulist(mask, nbits, have,
						sizeof(have));
		}
		if (n >= 0)
			pft_usage_error("%s '%s': node %d %s (%s: %s)",
					o->numa_opt, o->numa_nodes, n,
					ret == -ENOENT ? "does not exist" :
					"is not allowed here",
					ret == -ENOENT ? "nodes" : "allowed",
					have);
	}
	if (ret == -EOPNOTSUPP)
		pft_usage_error("%s: this kernel or machine has no NUMA "
				"support", o->numa_opt);
	if (ret == -EINVAL)
		pft_usage_error("%s '%s': bad node list (such as 0, 0-3, 1,3 "
				"or all%s)", o->numa_opt, o->numa_nodes,
				o->numa == FAULTGEN_NUMA_PREFERRED ?
				"; one node" : "");
	pft_usage_error("%s '%s': %s", o->numa_opt, o->numa_nodes,
			faultgen_strerror(ret));
}

/*
 * The memory policy; with --json or --per-worker, the pages each worker
 * of a pattern with slices has on each node are counted after its
 * faults.  After --duration or --rounds the last round has zapped them,
 * and counting faults each slice once more (unmeasured, but inside
 * --perf-ctl's window): there only when a policy option asks.
 */
static void set_numa(struct builder *b)
{
	const struct pft_opts *o = b->o;
	int ret;

	if (o->numa_nodes) {
		ret = faultgen_attr_set_numa_nodes(b->a, o->numa,
						   o->numa_nodes);
		if (ret)
			bad_nodes(b, ret);
	} else {
		ret = faultgen_attr_set_numa(b->a, o->numa);
		if (ret == -EOPNOTSUPP)
			bad_nodes(b, ret);
		check_set(b, ret, FAULTGEN_SETTING_NUMA, "--numa",
			  pft_numa_name(o->numa), NULL);
	}
	if ((o->json || o->per_worker) &&
	    (o->pattern == FAULTGEN_SHARED_VMA ||
	     o->pattern == FAULTGEN_PER_THREAD_VMA) &&
	    (!pft_repeats(o) || o->numa_opt))
		check_set(b, faultgen_attr_set_node_pages(b->a, 1),
			  FAULTGEN_SETTING_NONE, "--json", NULL, NULL);
}

/* Where the memory is and who faults it. */
static void set_memory(struct builder *b)
{
	const struct pft_opts *o = b->o;
	struct faultgen_attr *a = b->a;
	char buf[32];

	set_cachelines(b);
	set_cpus(b);
	check_set(b, faultgen_attr_set_cpuset(a, o->cpuset), FAULTGEN_SETTING_CPUSET,
		  "--cpuset", o->cpuset, "bad cpuset name");
	if (o->size)
		check_set(b, faultgen_attr_set_size(a, o->size), FAULTGEN_SETTING_SIZE,
			  "--size", num(buf, sizeof(buf), (double)o->size),
			  "size too large");
	/* Pretouch without -t: the JVM's worker count, as the library
	 * models it. */
	if (o->pattern != FAULTGEN_PRETOUCH || o->workers_given)
		check_set(b, faultgen_attr_set_workers(a, o->workers, o->kind),
			  FAULTGEN_SETTING_WORKERS, "--threads",
			  num(buf, sizeof(buf), o->workers), NULL);
	check_set(b, faultgen_attr_set_pattern(a, o->pattern),
		  FAULTGEN_SETTING_PATTERN, "--pattern", pft_pattern_name(o->pattern),
		  NULL);
	check_set(b, faultgen_attr_set_backing(a, o->backing),
		  FAULTGEN_SETTING_BACKING, "--sysv", NULL, NULL);
	check_set(b, faultgen_attr_set_shm_lock(a, o->shm_lock),
		  FAULTGEN_SETTING_SHM_LOCK, "--shm-lock", NULL, NULL);
	check_set(b, faultgen_attr_set_touch(a, o->touch), FAULTGEN_SETTING_TOUCH,
		  "--touch", pft_touch_name(o->touch), NULL);
	set_numa(b);
	check_set(b, faultgen_attr_set_thp(a, o->thp), FAULTGEN_SETTING_THP, "--thp",
		  pft_thp_name(o->thp), NULL);
}

/* How the workers are placed, and how long they run. */
static void set_schedule(struct builder *b)
{
	const struct pft_opts *o = b->o;
	struct faultgen_attr *a = b->a;
	char buf[32];

	check_set(b, faultgen_attr_set_pin(a, o->pin), FAULTGEN_SETTING_PIN, "--pin",
		  NULL, NULL);
	check_set(b, faultgen_attr_set_sched_fifo(a, o->sched_fifo),
		  FAULTGEN_SETTING_SCHED_FIFO, "--fifo", NULL, NULL);
	check_set(b, faultgen_attr_set_oversubscribe(a, o->oversubscribe),
		  FAULTGEN_SETTING_OVERSUBSCRIBE, "--oversubscribe",
		  yes_no(o->oversubscribe), NULL);
	check_set(b, faultgen_attr_set_warmup(a, o->warmup), FAULTGEN_SETTING_WARMUP,
		  "--warmup", num(buf, sizeof(buf), o->warmup), NULL);
	/* As in 0.12x, the process that starts the workers runs worker 0
	 * itself: one process or thread fewer to start and to tear down. */
	if (o->pattern == FAULTGEN_SHARED_VMA ||
	    o->pattern == FAULTGEN_PER_THREAD_VMA)
		check_set(b, faultgen_attr_set_caller_worker(a, 1),
			  FAULTGEN_SETTING_NONE, "the calling worker", NULL, NULL);
	if (o->duration > 0)
		check_set(b, faultgen_attr_set_duration(a, o->duration, o->zap),
			  FAULTGEN_SETTING_REPEAT, "--duration",
			  num(buf, sizeof(buf), o->duration), NULL);
	else if (o->rounds)
		check_set(b, faultgen_attr_set_rounds(a, o->rounds, o->zap),
			  FAULTGEN_SETTING_REPEAT, "--rounds",
			  num(buf, sizeof(buf), o->rounds), NULL);
}

/* The knobs of the read-only collapse and pretouch patterns. */
static void set_pattern_knobs(struct builder *b)
{
	const struct pft_opts *o = b->o;
	struct faultgen_attr *a = b->a;
	char buf[32];

	if (o->pattern == FAULTGEN_RO_COLLAPSE) {
		check_set(b, faultgen_attr_set_protect(a, o->protect),
			  FAULTGEN_SETTING_PROTECT, "--protect",
			  pft_protect_name(o->protect), NULL);
		check_set(b, faultgen_attr_set_collapse(a, o->collapse),
			  FAULTGEN_SETTING_COLLAPSE, "--collapse",
			  pft_collapse_name(o->collapse), NULL);
		check_set(b, faultgen_attr_set_timeout(a, o->timeout),
			  FAULTGEN_SETTING_TIMEOUT, "--timeout",
			  num(buf, sizeof(buf), o->timeout), NULL);
	}
	if (o->pattern != FAULTGEN_PRETOUCH)
		return;
	check_set(b, faultgen_attr_set_pretouch_touch(a, o->pretouch),
		  FAULTGEN_SETTING_PRETOUCH_TOUCH, "--pretouch",
		  pft_pretouch_name(o->pretouch), NULL);
	if (o->chunk_given)
		check_set(b, faultgen_attr_set_chunk_size(a, o->chunk),
			  FAULTGEN_SETTING_CHUNK_SIZE, "--chunk-size", NULL, NULL);
	check_set(b, faultgen_attr_set_jvm(a, o->jdk, o->gc), FAULTGEN_SETTING_JVM,
		  "--jdk", num(buf, sizeof(buf), o->jdk), NULL);
}

/* The option that set `setting`, as the user typed it when given. */
static const char *option_of(const struct pft_opts *o,
			     enum faultgen_setting setting, char *buf,
			     size_t len)
{
	/* Names of settings left at pft's default. */
	static const struct {
		enum faultgen_setting setting;
		const char *name;
	} tab[] = {
		{ FAULTGEN_SETTING_SIZE, "--size" },
		{ FAULTGEN_SETTING_BACKING, "--sysv" },
		{ FAULTGEN_SETTING_SHM_LOCK, "-L" },
		{ FAULTGEN_SETTING_CACHELINES, "-c" },
		{ FAULTGEN_SETTING_NUMA, "--numa" },
		{ FAULTGEN_SETTING_THP, "--thp" },
		{ FAULTGEN_SETTING_CPUS, "--cpus" },
		{ FAULTGEN_SETTING_CPUSET, "--cpuset" },
		{ FAULTGEN_SETTING_PIN, "-a" },
		{ FAULTGEN_SETTING_SCHED_FIFO, "-f" },
		{ FAULTGEN_SETTING_OVERSUBSCRIBE, "--oversubscribe" },
		{ FAULTGEN_SETTING_WARMUP, "--warmup" },
		{ FAULTGEN_SETTING_PROTECT, "--protect" },
		{ FAULTGEN_SETTING_COLLAPSE, "--collapse" },
		{ FAULTGEN_SETTING_TIMEOUT, "--timeout" },
		{ FAULTGEN_SETTING_PRETOUCH_TOUCH, "--pretouch" },
		{ FAULTGEN_SETTING_CHUNK_SIZE, "--chunk-size" },
		{ FAULTGEN_SETTING_JVM, "--gc" },
	};

	switch (setting) {
	case FAULTGEN_SETTING_PATTERN:
		snprintf(buf, len, "--pattern=%s", pft_pattern_name(o->pattern));
		return buf;
	case FAULTGEN_SETTING_WORKERS:
		return o->given[FAULTGEN_SETTING_WORKERS].opt ?
			       o->given[FAULTGEN_SETTING_WORKERS].opt :
		       o->kind == FAULTGEN_PROCESSES ? "--processes" :
						       "--threads";
	case FAULTGEN_SETTING_TOUCH:
		return o->touch_opt ? o->touch_opt : "--touch";
	case FAULTGEN_SETTING_REPEAT:
		return o->duration > 0 ? "--duration" : "--rounds";
	case FAULTGEN_SETTING_ZAP:
		snprintf(buf, len, "--zap=%s", pft_zap_name(o->zap));
		return buf;
	case FAULTGEN_SETTING_NODE_PAGES:
		return o->json ? "--json" : "--per-worker";
	default:
		break;
	}
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (tab[i].setting == setting)
			return o->given[setting].opt ? o->given[setting].opt :
						       tab[i].name;
	return "the options";
}

/*
 * Which settings run together is the library's rule: a combination it
 * refuses is a usage error naming the two options, with its reason.
 */
static void check_combination(struct builder *b)
{
	struct faultgen_conflict c = { .size = sizeof(c) };
	char one[64], two[64];
	int ret = faultgen_attr_check(b->a, &c);

	if (!ret)
		return;
	faultgen_attr_free(b->a);
	if (ret != -EINVAL)
		pft_fatal("cannot set up the run: %s", faultgen_strerror(ret));
	pft_usage_error("%s conflicts with %s: %s",
			option_of(b->o, c.setting, one, sizeof(one)),
			option_of(b->o, c.with, two, sizeof(two)), c.why);
}

/* One setter per option.  Each error path frees the attr: pft exits
 * there, but the option fuzzer (tests/fuzz) comes back and checks for
 * leaks. */
struct faultgen_attr *pft_build_attr(struct pft_opts *o)
{
	struct builder b = { .o = o };
	int ret;

	ret = faultgen_attr_new(&b.a);
	if (ret)
		pft_fatal("cannot set up the run: %s", faultgen_strerror(ret));
	set_memory(&b);
	set_schedule(&b);
	set_pattern_knobs(&b);
	check_combination(&b);
	return b.a;
}

/* An empty mask of every possible CPU, and its size in bits. */
static unsigned long *cpu_mask(size_t *nbits)
{
	int possible = faultgen_possible_cpus();

	*nbits = possible > 0 ? (size_t)possible : 1;
	return calloc((*nbits + 8 * sizeof(long) - 1) / (8 * sizeof(long)),
		      sizeof(unsigned long));
}

/* The CPUs pft itself may run on, as a list, for messages. */
static char *affinity_list(void)
{
	size_t nbits;
	unsigned long *mask = cpu_mask(&nbits);
	struct faultgen_attr *a = NULL;
	char *list = malloc(PFT_CPULIST_LEN);

	if (!mask || !list || faultgen_attr_new(&a) ||
	    faultgen_attr_get_cpus(a, mask, nbits) < 0 ||
	    faultgen_format_cpulist(mask, nbits, list, PFT_CPULIST_LEN) < 0) {
		free(list);
		list = NULL;
	}
	faultgen_attr_free(a);
	free(mask);
	return list;
}

/* Why the allowed CPUs could not be had; does not return. */
__attribute__((noreturn)) static void
cpus_resolve_error(const struct pft_opts *o, int n)
{
	if (n == -ENXIO) {
		char msg[512], *aff = affinity_list();

		if (o->cpus)
			snprintf(msg, sizeof(msg),
				 "--cpus '%s': not within the CPUs pft may run "
				 "on (%s)", o->cpus, aff ? aff : "?");
		else
			snprintf(msg, sizeof(msg),
				 "--cpuset '%s': its CPUs are not all within "
				 "those pft was started on (%s)", o->cpuset,
				 aff ? aff : "?");
		free(aff);
		pft_usage_error("%s", msg);
	}
	if (n == -ENOENT)
		pft_usage_error("--cpuset '%s': no such cpuset", o->cpuset);
	if (n == -EINVAL && o->cpuset)
		pft_usage_error("--cpuset '%s': the cpuset has no CPUs pft may "
				"run on", o->cpuset);
	pft_fatal("cannot read the allowed CPUs: %s",
		  faultgen_strerror(n ? n : -EINVAL));
}

/*
 * The allowed CPUs now (affinity narrowed by --cpus / --cpuset); more
 * workers than that are clipped as 0.12x did, unless --oversubscribe.
 */
void pft_resolve_cpus(struct pft_opts *o, struct faultgen_attr *attr)
{
	size_t nbits;
	unsigned long *mask = cpu_mask(&nbits);
	int n;

	o->allowed_list = malloc(PFT_CPULIST_LEN);
	if (!mask || !o->allowed_list)
		pft_fatal("out of memory");
	n = faultgen_attr_get_cpus(attr, mask, nbits);
	if (n <= 0) {
		free(mask);
		cpus_resolve_error(o, n);
	}
	o->allowed = (unsigned int)n;
	if (faultgen_format_cpulist(mask, nbits, o->allowed_list,
				    PFT_CPULIST_LEN) < 0)
		strcpy(o->allowed_list, "?");
	free(mask);
	/* A pattern with unbound workers (the JVM's pretouch) may run more
	 * workers than CPUs. */
	if (o->workers > o->allowed && !o->oversubscribe &&
	    faultgen_pattern_unbound_workers(o->pattern) != 1) {
		/* 0.12x's words, which scripts may look for. */
		fprintf(stderr, "clipping nr_tests to nr_cpus_allowed [%u]\n",
			o->allowed);
		o->workers = o->allowed;
		faultgen_attr_set_workers(attr, o->workers, o->kind);
	}
}
