// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rules.c - the front end's own rules: an option that only another
 * pattern (by the library's faultgen_pattern_reads) or mode reads is an
 * error rather than ignored, -T and --json
 * exclude each other, and what the fault counts of a result are worth a
 * warning.  Which settings the library can run together is the
 * library's answer (faultgen_attr_check, in setup.c), as are its limits
 * (FAULTGEN_MAX_*), its cacheline size and the figure of record.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pft.h"

/* "a", "a or b", "a, b or c": the patterns that read setting. */
static void readers_of(enum faultgen_setting setting, char *buf, size_t len)
{
	int readers[64], n = 0;
	size_t used = 0;

	for (int p = 0; p < faultgen_pattern_count() && n < 64; p++)
		if (faultgen_pattern_reads(p, setting) == 1)
			readers[n++] = p;
	buf[0] = '\0';
	for (int i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 !i ? "" : i == n - 1 ? " or " : ", ",
					 faultgen_pattern_name(readers[i]));
}

/*
 * An option of a setting that the chosen pattern does not read would
 * have no effect: refused, naming the patterns that read it (the
 * library's answer, faultgen_pattern_reads).
 */
static int check_pattern_reads(const struct pft_opts *o)
{
	char readers[256];

	for (int s = 1; s < PFT_NR_SETTINGS; s++) {
		if (!o->given[s].opt ||
		    faultgen_pattern_reads(faultgen_attr_get_pattern(o->attr),
					   s) != 0)
			continue;
		readers_of(s, readers, sizeof(readers));
		return pft_usage_error("%s needs --pattern=%s",
				       o->given[s].opt, readers);
	}
	/* A pattern's setting newer than the enum: its own pattern's. */
	for (int i = 0; i < PFT_MAX_LIBRARY_SETTINGS; i++) {
		struct faultgen_setting_info in = { .size = sizeof(in) };

		if (!o->given_by_index[i].opt ||
		    faultgen_setting_info((unsigned int)i, &in) ||
		    in.pattern < 0 ||
		    in.pattern == (int)faultgen_attr_get_pattern(o->attr))
			continue;
		return pft_usage_error("%s needs --pattern=%s",
				       o->given_by_index[i].opt,
				       faultgen_pattern_name(in.pattern));
	}
	return 0;
}

/* Pretouch without -t: the JVM's own worker count, which the library
 * works out for the run; a replay: its profile's threads. */
bool pft_pattern_workers(const struct pft_opts *o)
{
	enum faultgen_pattern p = faultgen_attr_get_pattern(o->attr);

	return !o->given[FAULTGEN_SETTING_WORKERS].opt &&
	       (p == FAULTGEN_PRETOUCH || p == FAULTGEN_REPLAY);
}

/* Combinations no single option can judge; checked after all are read. */
int pft_check_combinations(struct pft_opts *o)
{
	bool repeat_mode = pft_repeats(o);
	int ret;

	if (!repeat_mode && o->given[FAULTGEN_SETTING_ZAP].opt)
		return pft_usage_error("--zap needs --duration or --rounds");
	if (!repeat_mode && o->given[FAULTGEN_SETTING_WARMUP].opt)
		return pft_usage_error("--warmup needs --duration or --rounds");
	if (repeat_mode && !o->given[FAULTGEN_SETTING_WARMUP].opt) {
		ret = pft_set(faultgen_attr_set_warmup(o->attr,
						       PFT_DEFAULT_WARMUP),
			      "--warmup", NULL, NULL);
		if (ret)
			return ret;
	}
	ret = check_pattern_reads(o);
	if (ret)
		return ret;
	if (o->title && o->json)
		return pft_usage_error("-T conflicts with --json: the title "
				       "belongs to the result lines");
	return 0;
}

/* The value of the run's figure name, or 0 without it. */
static double figure_or_0(struct faultgen_run *run, const char *name)
{
	struct faultgen_figure f = { .size = sizeof(f) };
	int n = faultgen_run_figure(run, 0, &f);

	for (int i = 0; i < n; i++)
		if (faultgen_run_figure(run, (unsigned int)i, &f) > 0 &&
		    !strcmp(f.name, name))
			return f.value;
	return 0;
}

/* 0.12x's three checks, one line each at most (4096 workers must not
 * print 4096 warnings).  A replay's worker's pages are the faults it
 * made, some of which the kernel may count as none (a page populated
 * that was present, a read mapped by another's fault-around): not
 * called short; and its major faults are the profile's, up to the
 * major faults it replayed. */
void pft_warn_faults(const struct pft_opts *o, struct faultgen_run *run,
		     const struct faultgen_result *r)
{
	bool replay = faultgen_attr_get_pattern(o->attr) == FAULTGEN_REPLAY;
	unsigned int short_workers = 0;
	/* A shared file mapping: its file system's large folios (ext4 and
	 * xfs on recent kernels) may be mapped whole by one fault. */
	bool file_folios =
		faultgen_attr_get_backing(o->attr) == FAULTGEN_BACKING_FILE &&
		faultgen_attr_get_share(o->attr) == 1;

	/* A pattern that expects fewer faults than pages (it counted the
	 * huge pages it mapped) has said how many: no worker is short.  A
	 * file's page read from outside the page cache is a major fault,
	 * one a page too. */
	for (unsigned int i = 0;
	     !replay && r->expected_faults >= r->pages && i < r->workers;
	     i++) {
		struct faultgen_worker_result w = { .size = sizeof(w) };

		if (faultgen_run_worker(run, i, &w) == 0 &&
		    w.minflt + w.majflt < w.pages)
			short_workers++;
	}
	if (short_workers)
		pft_msg("warning: %u of %u workers counted fewer %s than "
			"the pages they touched%s",
			short_workers, r->workers,
			r->majflt ? "faults (minor and major)" : "minor faults",
			file_folios ? " (one fault may map several pages of a "
				      "file's large folio)" :
			faultgen_attr_get_thp(o->attr) !=
					FAULTGEN_THP_NOHUGEPAGE ?
				" (huge pages take fewer faults)" : "");
	/* --cold asks for them. */
	if (r->majflt && !faultgen_attr_get_cold(o->attr) &&
	    !(replay && (double)r->majflt <= figure_or_0(run, "major")))
		pft_msg("warning: %" PRIu64 " major faults", r->majflt);
	if (r->pages && !r->faults_agree) {
		char major[48] = "";

		if (r->majflt)
			snprintf(major, sizeof(major), " and %" PRIu64 " major",
				 r->majflt);
		pft_msg("warning: %" PRIu64 " minor%s faults where %" PRIu64
			" were expected (%" PRIu64 " pages)",
			r->minflt, major, r->expected_faults, r->pages);
	}
	if (r->shm_refault)
		pft_msg("note: zapped SysV pages stay in the segment, so the "
			"rounds after the first map pages, allocating none");
}

