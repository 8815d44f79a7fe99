// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * print-lockpaths.c - which lock the faults took (--lock-paths), as the
 * library counted them (faultgen_run_lock_paths): a line after the
 * result (and one for the helper threads, the writers, when the run had
 * any), columns at the end of each --per-worker line, a "lock_paths"
 * object in --json.  Where they could not be counted, one note on
 * stderr says what is missing, and the run's output is as without the
 * option.  Without --lock-paths nothing is printed.  Each of these
 * prints the lock waits (--lock-waits, print-lockwaits.c) after the
 * lock paths, so that the callers name one of them.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pft.h"

static int lock_paths(struct faultgen_run *run, int worker,
		      struct faultgen_lock_paths *lp)
{
	memset(lp, 0, sizeof(*lp));
	lp->size = sizeof(*lp);
	return faultgen_run_lock_paths(run, worker, lp);
}

/* "16384 user faults, ..., 0 zap writes" */
static void print_counts(FILE *out, const struct faultgen_lock_paths *lp)
{
	fprintf(out,
		"%" PRIu64 " user faults, %" PRIu64 " kernel faults, %" PRIu64
		" gup faults; mmap_lock %" PRIu64 " read (%" PRIu64
		" trylocks failed), %" PRIu64 " write; %" PRIu64
		" fallbacks; zaps %" PRIu64 " read, %" PRIu64 " write\n",
		lp->user_faults, lp->kernel_faults, lp->gup_faults,
		lp->mmap_read, lp->mmap_read_trylock_failed, lp->mmap_write,
		lp->fallbacks, lp->zap_mmap_read, lp->zap_mmap_write);
}

/*
 * lock paths: 16384 user faults, 0 kernel faults, 1 gup faults;
 *   mmap_lock 3 read (0 trylocks failed), 1 write; 3 fallbacks; ...
 * lock paths of 1 helper thread (writers): ...
 */
static void print_lock_paths(FILE *out, struct faultgen_run *run)
{
	struct faultgen_lock_paths lp;

	if (lock_paths(run, FAULTGEN_LOCK_WORKERS, &lp))
		return;
	fprintf(out, "lock paths of %u worker%s: ", lp.threads,
		lp.threads == 1 ? "" : "s");
	print_counts(out, &lp);
	if (lock_paths(run, FAULTGEN_LOCK_HELPERS, &lp) || !lp.threads)
		return;
	fprintf(out, "lock paths of %u helper thread%s (writers): ",
		lp.threads, lp.threads == 1 ? "" : "s");
	print_counts(out, &lp);
}

void pft_print_lock_paths(FILE *out, struct faultgen_run *run)
{
	print_lock_paths(out, run);
	pft_print_lock_waits(out, run);
}

/* " lp_user N lp_kernel N lp_gup N lp_read N lp_trylock_failed N
 * lp_write N lp_fallbacks N lp_zap_read N lp_zap_write N" */
void pft_print_worker_lock_paths(FILE *out, struct faultgen_run *run,
				 unsigned int worker)
{
	struct faultgen_lock_paths lp;

	pft_print_worker_lock_waits(out, run, worker);
	if (lock_paths(run, (int)worker, &lp))
		return;
	fprintf(out,
		" lp_user %" PRIu64 " lp_kernel %" PRIu64 " lp_gup %" PRIu64
		" lp_read %" PRIu64 " lp_trylock_failed %" PRIu64
		" lp_write %" PRIu64 " lp_fallbacks %" PRIu64
		" lp_zap_read %" PRIu64 " lp_zap_write %" PRIu64,
		lp.user_faults, lp.kernel_faults, lp.gup_faults, lp.mmap_read,
		lp.mmap_read_trylock_failed, lp.mmap_write, lp.fallbacks,
		lp.zap_mmap_read, lp.zap_mmap_write);
}

static void json_counts(struct pft_json *j, const struct faultgen_lock_paths *lp)
{
	pj_u64(j, "threads", lp->threads);
	pj_u64(j, "user_faults", lp->user_faults);
	pj_u64(j, "kernel_faults", lp->kernel_faults);
	pj_u64(j, "gup_faults", lp->gup_faults);
	pj_u64(j, "mmap_read", lp->mmap_read);
	pj_u64(j, "mmap_read_trylock_failed", lp->mmap_read_trylock_failed);
	pj_u64(j, "mmap_write", lp->mmap_write);
	pj_u64(j, "fallbacks", lp->fallbacks);
	pj_u64(j, "zap_mmap_read", lp->zap_mmap_read);
	pj_u64(j, "zap_mmap_write", lp->zap_mmap_write);
}

/*
 * "lock_paths": {"threads": ..., "user_faults": ..., ...} of one worker,
 * or of all (-1) with "helpers": {...} in it; null where asked but not
 * counted; nothing where not asked.
 */
void pft_json_lock_paths(struct pft_json *j, struct faultgen_run *run,
			 int worker)
{
	struct faultgen_lock_paths lp;
	int ret = lock_paths(run, worker, &lp);

	pft_json_lock_waits(j, run, worker);
	if (ret == -ENODATA || ret == -ERANGE || ret == -EINVAL)
		return;
	if (ret) {
		pj_null(j, "lock_paths");
		return;
	}
	pj_obj(j, "lock_paths");
	json_counts(j, &lp);
	if (worker == FAULTGEN_LOCK_WORKERS &&
	    lock_paths(run, FAULTGEN_LOCK_HELPERS, &lp) == 0) {
		pj_obj(j, "helpers");
		json_counts(j, &lp);
		pj_obj_end(j);
	}
	pj_obj_end(j);
}

/* One note on stderr, once per pft, where --lock-paths was asked but
 * could not be counted; the run goes on. */
void pft_lock_paths_note(struct faultgen_run *run)
{
	static bool noted;
	struct faultgen_lock_paths lp;
	int ret = lock_paths(run, FAULTGEN_LOCK_WORKERS, &lp);
	char why[256];

	if (!ret)
		ret = lock_paths(run, FAULTGEN_LOCK_HELPERS, &lp);
	pft_lock_waits_note(run);
	if (noted || !ret || ret == -ENODATA)
		return;
	pft_lock_why_not(ret, "exceptions:page_fault_user", why, sizeof(why));
	pft_msg("note: lock paths not counted: %s", why);
	noted = true;
}
