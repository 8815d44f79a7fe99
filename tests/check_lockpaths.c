// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * check_lockpaths.c - the lock paths (faultgen_run_lock_paths): a group's
 * read parsed, the figures derived from given counter values against
 * hand-computed cases (a failed trylock and its blocking retry one
 * acquisition, the zaps' share taken off the fallbacks, the GUP faults
 * the kernel counted beyond the exceptions, never below 0), the sums
 * over workers, and the calls' errors: not asked, out of range, a
 * setting that reads back.  The counts of real runs are tests/cli-
 * lockpaths.sh's (root).
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "check-util.h"

#include <inttypes.h>

#include "internal.h"

static struct fg_lock_counts counts(uint64_t user, uint64_t kernel,
				    uint64_t read, uint64_t write,
				    uint64_t tryfail)
{
	struct fg_lock_counts c = { { 0 } };

	c.v[FG_LOCK_USER] = user;
	c.v[FG_LOCK_KERNEL] = kernel;
	c.v[FG_LOCK_READ] = read;
	c.v[FG_LOCK_WRITE] = write;
	c.v[FG_LOCK_TRYFAIL] = tryfail;
	return c;
}

START_TEST(a_group_read_is_its_count_then_its_values)
{
	const uint64_t buf[] = { 5, 11, 22, 33, 44, 55 };
	const uint64_t other[] = { 4, 11, 22, 33, 44 };
	struct fg_lock_counts c;

	ck_assert_int_eq(fg_lock_parse(buf, 6, &c), 0);
	ck_assert_uint_eq(c.v[FG_LOCK_USER], 11);
	ck_assert_uint_eq(c.v[FG_LOCK_KERNEL], 22);
	ck_assert_uint_eq(c.v[FG_LOCK_READ], 33);
	ck_assert_uint_eq(c.v[FG_LOCK_WRITE], 44);
	ck_assert_uint_eq(c.v[FG_LOCK_TRYFAIL], 55);
	/* Another group's layout, or a short read. */
	ck_assert_int_eq(fg_lock_parse(other, 5, &c), -EIO);
	ck_assert_int_eq(fg_lock_parse(buf, 5, &c), -EIO);
}
END_TEST

/* Hand-computed cases: counts, zaps' counts, the kernel's faults, and
 * the figures expected. */
static const struct {
	const char *what;
	uint64_t c[5], z[5], faults;
	uint64_t gup, fallbacks;
} cases[] = {
	/* 16384 faults on the per-VMA lock, the first of a fresh VMA
	 * (no anon_vma yet) under mmap_lock; 2 faults of the stack. */
	{ "per-VMA", { 16384, 0, 1, 0, 0 }, { 0 }, 16386, 2, 1 },
	/* 30 fallbacks: 10 trylocks that took the lock, 20 that failed
	 * and their 20 blocking acquisitions: 50 read starts. */
	{ "contended", { 100, 0, 50, 0, 20 }, { 0 }, 100, 0, 30 },
	/* 12 read starts, of them 10 by the zaps (none failed) and one
	 * failed trylock outside: one fallback; the zaps' 20 writes. */
	{ "zaps", { 500, 0, 12, 20, 1 }, { 0, 0, 10, 20, 0 }, 500, 0, 1 },
	/* A zap's failed trylock: its retry counts in the zap's share. */
	{ "zap trylock", { 10, 0, 7, 0, 2 }, { 0, 0, 4, 0, 1 }, 10, 0, 2 },
	/* Fewer faults than exceptions (an exception that ends in a
	 * signal or an error is no fault the kernel counts): 0. */
	{ "fewer", { 8, 1, 0, 0, 0 }, { 0 }, 5, 0, 0 },
	/* MADV_POPULATE_WRITE: faults without exceptions, one read per
	 * call; 3 kernel-mode faults on user addresses. */
	{ "populate", { 0, 3, 2, 0, 0 }, { 0 }, 4099, 4096, 2 },
};

START_TEST(figures_derive_from_the_counts)
{
	const struct fg_lock_counts c = counts(cases[_i].c[0], cases[_i].c[1],
					       cases[_i].c[2], cases[_i].c[3],
					       cases[_i].c[4]);
	const struct fg_lock_counts z = counts(cases[_i].z[0], cases[_i].z[1],
					       cases[_i].z[2], cases[_i].z[3],
					       cases[_i].z[4]);
	struct faultgen_lock_paths lp;

	memset(&lp, 0xff, sizeof(lp));
	fg_lock_derive(&c, &z, cases[_i].faults, &lp);
	ck_assert_msg(lp.gup_faults == cases[_i].gup, "%s: gup %" PRIu64,
		      cases[_i].what, lp.gup_faults);
	ck_assert_msg(lp.fallbacks == cases[_i].fallbacks,
		      "%s: fallbacks %" PRIu64, cases[_i].what, lp.fallbacks);
	ck_assert_uint_eq(lp.user_faults, cases[_i].c[0]);
	ck_assert_uint_eq(lp.kernel_faults, cases[_i].c[1]);
	ck_assert_uint_eq(lp.mmap_read, cases[_i].c[2]);
	ck_assert_uint_eq(lp.mmap_write, cases[_i].c[3]);
	ck_assert_uint_eq(lp.mmap_read_trylock_failed, cases[_i].c[4]);
	ck_assert_uint_eq(lp.zap_mmap_read, cases[_i].z[2]);
	ck_assert_uint_eq(lp.zap_mmap_write, cases[_i].z[3]);
}
END_TEST

/* A measured run of two workers with given counters, and helpers. */
struct fake {
	struct faultgen_run run;
	struct fg_shared *sh;
};

static void fake_run(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	f->sh = calloc(1, sizeof(*f->sh) + 2 * sizeof(struct fg_wstat));
	ck_assert_ptr_nonnull(f->sh);
	f->run.sh = f->sh;
	f->run.attr.nr_workers = 2;
	/* Worker 0: 1000 faults, 990 of them exceptions, 3 read starts
	 * (one failed trylock), 2 of them by its zaps. */
	f->sh->w[0].use.lock = counts(980, 10, 3, 4, 1);
	f->sh->w[0].zap_lock = counts(0, 0, 2, 4, 0);
	f->sh->w[0].use.minflt = 1000;
	/* Worker 1: 1004 exceptions, the kernel counted 1000 (+1 major):
	 * alone its GUP faults are 0; in the sums 1001 + 1000 - 1994 = 7
	 * (the sums' difference, not a sum of differences). */
	f->sh->w[1].use.lock = counts(1004, 0, 1, 0, 0);
	f->sh->w[1].use.minflt = 1000;
	f->sh->w[1].use.majflt = 1;
	f->run.lock_helper_sum = counts(5, 0, 6, 700, 2);
	f->run.lock_nr_helpers = 1;
}

START_TEST(all_workers_are_the_sums_helpers_apart)
{
	struct faultgen_lock_paths lp;
	struct fake f;

	fake_run(&f);
	ck_assert_int_eq(fg_run_lock_paths(&f.run, 0, &lp), 0);
	ck_assert_uint_eq(lp.threads, 1);
	ck_assert_uint_eq(lp.gup_faults, 10);
	ck_assert_uint_eq(lp.fallbacks, 0);
	ck_assert_int_eq(fg_run_lock_paths(&f.run, 1, &lp), 0);
	ck_assert_uint_eq(lp.gup_faults, 0);
	ck_assert_uint_eq(lp.fallbacks, 1);
	ck_assert_int_eq(fg_run_lock_paths(&f.run, FAULTGEN_LOCK_WORKERS, &lp),
			 0);
	ck_assert_uint_eq(lp.threads, 2);
	ck_assert_uint_eq(lp.user_faults, 1984);
	ck_assert_uint_eq(lp.kernel_faults, 10);
	ck_assert_uint_eq(lp.gup_faults, 7);
	ck_assert_uint_eq(lp.mmap_read, 4);
	ck_assert_uint_eq(lp.mmap_read_trylock_failed, 1);
	ck_assert_uint_eq(lp.mmap_write, 4);
	ck_assert_uint_eq(lp.zap_mmap_read, 2);
	ck_assert_uint_eq(lp.zap_mmap_write, 4);
	ck_assert_uint_eq(lp.fallbacks, 1);
	/* The helpers: their own sums, no fault count of theirs. */
	ck_assert_int_eq(fg_run_lock_paths(&f.run, FAULTGEN_LOCK_HELPERS, &lp),
			 0);
	ck_assert_uint_eq(lp.threads, 1);
	ck_assert_uint_eq(lp.user_faults, 5);
	ck_assert_uint_eq(lp.mmap_write, 700);
	ck_assert_uint_eq(lp.fallbacks, 4);
	ck_assert_uint_eq(lp.gup_faults, 0);
	/* Out of range, and a worker that could not open its group. */
	ck_assert_int_eq(fg_run_lock_paths(&f.run, 2, &lp), -ERANGE);
	ck_assert_int_eq(fg_run_lock_paths(&f.run, -3, &lp), -ERANGE);
	f.sh->w[1].lock_error = -EMFILE;
	ck_assert_int_eq(fg_run_lock_paths(&f.run, 0, &lp), 0);
	ck_assert_int_eq(fg_run_lock_paths(&f.run, 1, &lp), -EMFILE);
	ck_assert_int_eq(fg_run_lock_paths(&f.run, FAULTGEN_LOCK_WORKERS, &lp),
			 -EMFILE);
	/* Not asked, or not possible: the reason for every worker. */
	f.run.lock_status = -EACCES;
	ck_assert_int_eq(fg_run_lock_paths(&f.run, 0, &lp), -EACCES);
	free(f.sh);
}
END_TEST

START_TEST(the_setting_reads_back_and_a_run_without_it_has_none)
{
	struct faultgen_lock_paths lp = { .size = sizeof(lp) };
	struct faultgen_value v = { .type = FAULTGEN_TYPE_BOOL, .v.boolean = 1 };
	struct faultgen_attr *a;
	struct faultgen_run *run;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_get_lock_paths(a), 0);
	ck_assert_int_eq(faultgen_attr_get_lock_paths(NULL), 0);
	ck_assert_int_eq(faultgen_attr_set_lock_paths(NULL, 1), -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_lock_paths(a, 7), 0);
	ck_assert_int_eq(faultgen_attr_get_lock_paths(a), 1);
	ck_assert_int_eq(faultgen_attr_set_lock_paths(a, 0), 0);
	ck_assert_int_eq(faultgen_attr_set_value(a, "lock-paths", &v), 0);
	ck_assert_int_eq(faultgen_attr_get_lock_paths(a), 1);
	ck_assert_int_eq(faultgen_attr_set_lock_paths(a, 0), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 1 << 20), 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	ck_assert_int_eq(faultgen_run_lock_paths(run, -1, &lp), -ENODATA);
	ck_assert_int_eq(faultgen_run_lock_paths(NULL, -1, &lp), -EINVAL);
	ck_assert_int_eq(faultgen_run_lock_paths(run, -1, NULL), -EINVAL);
	lp.size = offsetof(struct faultgen_lock_paths, zap_mmap_write);
	ck_assert_int_eq(faultgen_run_lock_paths(run, -1, &lp), -EINVAL);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* Asked: the run goes through whatever the privileges; the figures, or
 * the reason (unprivileged here: tracefs is root's). */
START_TEST(a_run_asked_runs_and_counts_or_says_why)
{
	struct faultgen_lock_paths lp = { .size = sizeof(lp) };
	struct faultgen_attr *a;
	struct faultgen_run *run;
	int ret;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_lock_paths(a, 1), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 4 << 20), 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	ret = faultgen_run_lock_paths(run, FAULTGEN_LOCK_WORKERS, &lp);
	if (!fgc_is_root() || access("/sys/kernel/tracing/events", R_OK) < 0)
		ck_assert_msg(ret == -EACCES || ret == -ENOENT, "%d", ret);
	if (ret == 0) {
		/* 1024 pages: at least as many user faults, few more. */
		ck_assert_uint_ge(lp.user_faults, 1024);
		ck_assert_uint_le(lp.user_faults, 1024 + 64);
		ck_assert_uint_eq(lp.threads, 1);
	}
	ck_assert_int_eq(faultgen_run_lock_paths(run, 1, &lp),
			 ret ? ret : -ERANGE);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

static Suite *lockpaths_suite(void)
{
	Suite *s = suite_create("lockpaths");
	TCase *tc = tcase_create("figures");

	tcase_add_test(tc, a_group_read_is_its_count_then_its_values);
	tcase_add_loop_test(tc, figures_derive_from_the_counts, 0,
			    (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, all_workers_are_the_sums_helpers_apart);
	suite_add_tcase(s, tc);
	tc = tcase_create("runs");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, the_setting_reads_back_and_a_run_without_it_has_none);
	tcase_add_test(tc, a_run_asked_runs_and_counts_or_says_why);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return fgc_main(lockpaths_suite());
}
