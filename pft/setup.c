// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * setup.c - the options' values into the library's attr, and the CPUs a
 * run may use.
 *
 * Each option sets the attr as it is read (args.c), through pft_set: a
 * setter that refuses a value is a usage error naming the option and the
 * value as typed, with the library's limit where pft can say it.  Only
 * running out of memory is a runtime error.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pft.h"

/* The library refused `val` of option `opt` with `ret`: says so. */
static int refused(int ret, const char *opt, const char *val,
		   const char *why)
{
	char what[512];

	if (val)
		snprintf(what, sizeof(what), "%s '%s'", opt, val);
	else
		snprintf(what, sizeof(what), "%s", opt);
	if (ret == -ENOMEM)
		return pft_fail("%s: cannot set up the run: %s", what,
				faultgen_strerror(ret));
	if (ret != -EINVAL && ret != -ERANGE)
		return pft_fail("%s: %s", what, faultgen_strerror(ret));
	if (why)
		return pft_usage_error("%s: %s", what, why);
	return pft_usage_error("%s: not accepted by libfaultgen %s (%s)",
			       what, faultgen_version(),
			       faultgen_strerror(ret));
}

/* A setter's answer to option `opt` with value `val` (NULL for a flag):
 * on an error, one line naming them, and why when pft can say. */
int pft_set(int ret, const char *opt, const char *val, const char *why)
{
	return ret ? refused(ret, opt, val, why) : 0;
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
static int bad_nodes(const char *opt, enum faultgen_numa numa,
		     const char *nodes, int ret)
{
	unsigned long mask[PFT_NODE_WORDS];
	size_t nbits = sizeof(mask) * 8;
	char have[256] = "";
	int n = -1;

	if (ret == -ENOENT || ret == -ENXIO) {
		if ((ret == -ENOENT ? faultgen_numa_nodes(mask, nbits) :
				      faultgen_numa_allowed(mask, nbits)) >= 0) {
			n = node_outside(nodes, mask, nbits);
			faultgen_format_cpulist(mask, nbits, have,
						sizeof(have));
		}
		if (n >= 0)
			return pft_usage_error(
				"%s '%s': node %d %s (%s: %s)", opt, nodes, n,
				ret == -ENOENT ? "does not exist" :
						 "is not allowed here",
				ret == -ENOENT ? "nodes" : "allowed", have);
	}
	if (ret == -EOPNOTSUPP)
		return pft_usage_error("%s: this kernel or machine has no NUMA "
				       "support", opt);
	if (ret == -EINVAL)
		return pft_usage_error("%s '%s': bad node list (such as 0, "
				       "0-3, 1,3 or all%s)", opt, nodes,
				       numa == FAULTGEN_NUMA_PREFERRED ?
					       "; one node" : "");
	return pft_usage_error("%s '%s': %s", opt, nodes,
			       faultgen_strerror(ret));
}

/* A memory policy, with its nodes (NULL for the policies that take
 * none). */
int pft_set_numa(struct pft_opts *o, const char *opt,
		 enum faultgen_numa numa, const char *nodes)
{
	int ret;

	if (nodes) {
		ret = faultgen_attr_set_numa_nodes(o->attr, numa, nodes);
		return ret ? bad_nodes(opt, numa, nodes, ret) : 0;
	}
	ret = faultgen_attr_set_numa(o->attr, numa);
	if (ret == -EOPNOTSUPP)
		return bad_nodes(opt, numa, nodes, ret);
	return pft_set(ret, opt, NULL, NULL);
}

/* The option that set `setting`, as the user typed it when given; for a
 * setting the enum has no value for, its option by the library's `name`
 * (--NAME). */
static const char *option_of(const struct pft_opts *o,
			     enum faultgen_setting setting, const char *name,
			     char *buf, size_t len)
{
	/* The options of settings left at their default, where they are
	 * not --NAME of the library's name. */
	static const struct {
		enum faultgen_setting setting;
		const char *name;
	} tab[] = {
		{ FAULTGEN_SETTING_SHM_LOCK, "-L" },
		{ FAULTGEN_SETTING_CACHELINES, "-c" },
		{ FAULTGEN_SETTING_NUMA, "--numa" },
		{ FAULTGEN_SETTING_PIN, "-a" },
		{ FAULTGEN_SETTING_SCHED_FIFO, "-f" },
		{ FAULTGEN_SETTING_JVM, "--gc" },
	};
	const struct faultgen_attr *a = o->attr;

	switch (setting) {
	case FAULTGEN_SETTING_PATTERN:
		snprintf(buf, len, "--pattern=%s",
			 pft_pattern_name(faultgen_attr_get_pattern(a)));
		return buf;
	case FAULTGEN_SETTING_WORKERS:
		return o->given[setting].opt ? o->given[setting].opt :
		       faultgen_attr_get_worker_kind(a) == FAULTGEN_PROCESSES ?
						       "--processes" :
						       "--threads";
	case FAULTGEN_SETTING_TOUCH:
		return o->given[setting].opt ? o->given[setting].opt :
					       "--touch";
	case FAULTGEN_SETTING_REPEAT:
		return faultgen_attr_get_duration(a) > 0 ? "--duration" :
							    "--rounds";
	case FAULTGEN_SETTING_ZAP:
		snprintf(buf, len, "--zap=%s",
			 pft_keyword_name("zap", (int)faultgen_attr_get_zap(a)));
		return buf;
	case FAULTGEN_SETTING_NODE_PAGES:
		return o->json ? "--json" : "--per-worker";
	default:
		break;
	}
	if (setting != FAULTGEN_SETTING_NONE && o->given[setting].opt)
		return o->given[setting].opt;
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (tab[i].setting == setting)
			return tab[i].name;
	if (name && faultgen_setting_index(name) >= 0) {
		snprintf(buf, len, "--%s", name);
		return buf;
	}
	return "the options";
}

/*
 * Which settings run together is the library's rule: a combination it
 * refuses is a usage error naming the two options, with its reason.
 */
static int check_combination(const struct pft_opts *o)
{
	struct faultgen_conflict c = { .size = sizeof(c) };
	char one[64], two[64];
	int ret = faultgen_attr_check(o->attr, &c);

	if (!ret)
		return 0;
	if (ret != -EINVAL)
		return pft_fail("cannot set up the run: %s",
				faultgen_strerror(ret));
	return pft_usage_error("%s conflicts with %s: %s",
			       option_of(o, c.setting, c.setting_name, one,
					 sizeof(one)),
			       option_of(o, c.with, c.with_name, two,
					 sizeof(two)),
			       c.why);
}

/* Repeat-with-zap: measured rounds or a duration. */
bool pft_repeats(const struct pft_opts *o)
{
	return faultgen_attr_get_rounds(o->attr) ||
	       faultgen_attr_get_duration(o->attr) > 0;
}

/* 0.12x's two patterns, whose launcher was worker 0 itself. */
static bool legacy_pattern(enum faultgen_pattern p)
{
	return p == FAULTGEN_SHARED_VMA || p == FAULTGEN_PER_THREAD_VMA;
}

/*
 * What pft adds to the options, then the library's check.  As in 0.12x,
 * the process that starts the workers runs worker 0 itself: one process
 * or thread fewer to start and to tear down.  With --json or
 * --per-worker, the pages each worker of a pattern with slices has on
 * each node are counted after its faults; after --duration or --rounds
 * the last round has zapped them, and counting faults each slice once
 * more (unmeasured, but inside --perf-ctl's window): there only when a
 * policy option asks.
 */
int pft_finish_attr(struct pft_opts *o)
{
	enum faultgen_pattern p = faultgen_attr_get_pattern(o->attr);
	int ret = 0;

	if (legacy_pattern(p))
		ret = pft_set(faultgen_attr_set_caller_worker(o->attr, 1),
			      "the calling worker", NULL, NULL);
	if (!ret && (o->json || o->per_worker) && legacy_pattern(p) &&
	    (!pft_repeats(o) || o->given[FAULTGEN_SETTING_NUMA].opt))
		ret = pft_set(faultgen_attr_set_node_pages(o->attr, 1),
			      o->json ? "--json" : "--per-worker", NULL, NULL);
	return ret ? ret : check_combination(o);
}

/* An empty mask of every possible CPU, and its size in bits. */
unsigned long *pft_cpu_mask(size_t *nbits)
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
	unsigned long *mask = pft_cpu_mask(&nbits);
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

/* Why the allowed CPUs could not be had. */
static int cpus_resolve_error(const struct pft_opts *o, int n)
{
	const char *cpus = faultgen_attr_get_cpulist(o->attr);
	const char *cpuset = faultgen_attr_get_cpuset(o->attr);

	if (n == -ENXIO) {
		char msg[512], *aff = affinity_list();

		if (cpus)
			snprintf(msg, sizeof(msg),
				 "--cpus '%s': not within the CPUs pft may run "
				 "on (%s)", cpus, aff ? aff : "?");
		else
			snprintf(msg, sizeof(msg),
				 "--cpuset '%s': its CPUs are not all within "
				 "those pft was started on (%s)", cpuset,
				 aff ? aff : "?");
		free(aff);
		return pft_usage_error("%s", msg);
	}
	if (n == -ENOENT)
		return pft_usage_error("--cpuset '%s': no such cpuset",
				       cpuset);
	if (n == -EINVAL && cpuset)
		return pft_usage_error("--cpuset '%s': the cpuset has no CPUs "
				       "pft may run on", cpuset);
	return pft_fail("cannot read the allowed CPUs: %s",
			faultgen_strerror(n ? n : -EINVAL));
}

/*
 * The allowed CPUs now (affinity narrowed by --cpus / --cpuset); more
 * workers than that are clipped as 0.12x did, unless --oversubscribe.
 */
int pft_resolve_cpus(struct pft_opts *o)
{
	struct faultgen_attr *attr = o->attr;
	unsigned int workers = faultgen_attr_get_workers(attr);
	size_t nbits;
	unsigned long *mask = pft_cpu_mask(&nbits);
	int n;

	o->allowed_list = malloc(PFT_CPULIST_LEN);
	if (!mask || !o->allowed_list) {
		free(mask);
		return pft_fail("out of memory");
	}
	n = faultgen_attr_get_cpus(attr, mask, nbits);
	if (n <= 0) {
		free(mask);
		return cpus_resolve_error(o, n);
	}
	o->allowed = (unsigned int)n;
	if (faultgen_format_cpulist(mask, nbits, o->allowed_list,
				    PFT_CPULIST_LEN) < 0)
		strcpy(o->allowed_list, "?");
	free(mask);
	/* A pattern with unbound workers (the JVM's pretouch) may run more
	 * workers than CPUs. */
	if (workers > o->allowed && !faultgen_attr_get_oversubscribe(attr) &&
	    faultgen_pattern_unbound_workers(
		    faultgen_attr_get_pattern(attr)) != 1) {
		/* 0.12x's words, which scripts may look for. */
		fprintf(stderr, "clipping nr_tests to nr_cpus_allowed [%u]\n",
			o->allowed);
		faultgen_attr_set_workers(attr, o->allowed,
					  faultgen_attr_get_worker_kind(attr));
	}
	return 0;
}
