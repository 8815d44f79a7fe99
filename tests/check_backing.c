// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * check_backing.c - the kinds of memory beside private anonymous: a
 * memfd, shared anonymous memory and shared /dev/zero (shmem), private
 * memfd mappings.  Faults counted = pages in each, over rounds; what a
 * zap leaves in the file (the pages a shared mapping's zap frees, those a
 * private one keeps); each worker's range of the file its own; the
 * combinations refused.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "check-util.h"
#include <sys/stat.h>

#include "internal.h"

struct backing_case {
	enum faultgen_backing backing;
	int share;
	const char *name;
};

static const struct backing_case cases[] = {
	{ FAULTGEN_BACKING_MEMFD, 1, "memfd/shared" },
	{ FAULTGEN_BACKING_MEMFD, 0, "memfd/private" },
	{ FAULTGEN_BACKING_ANON, 1, "anon/shared" },
	{ FAULTGEN_BACKING_DEVZERO, 1, "dev-zero/shared" },
};
#define NCASES ((int)(sizeof(cases) / sizeof(cases[0])))

/* A run of the library's own, zeroed, with what the backing reads. */
static void fake_run(struct faultgen_run *run, const struct backing_case *c,
		     unsigned int workers, size_t slice_len)
{
	memset(run, 0, sizeof(*run));
	run->attr.backing = c->backing;
	run->attr.share = c->share != 0;
	run->attr.nr_workers = workers;
	run->slice_len = slice_len;
	run->pagesize = fgc_pagesize();
	run->backing_fd = -1;
	run->backing = fg_backing_of(&run->attr);
	ck_assert_ptr_nonnull(run->backing);
}

/* Blocks the file holds (its pages, allocated). */
static long long file_blocks(int fd)
{
	struct stat st;

	ck_assert_int_eq(fstat(fd, &st), 0);
	return (long long)st.st_blocks;
}

/*
 * A shared memfd: what one mapping writes the file holds, and zap frees
 * it (the file's blocks back to none; mincore, which reports a shared
 * mapping's page cache, sees no page): the next touch allocates again.
 * A private one: the write faults fill the file too (the page the copy
 * is made from), zap drops the copies and the file keeps its pages.
 */
START_TEST(memfd_zap_frees_shared_pages_keeps_private_file)
{
	const struct backing_case *c = &cases[_i];
	size_t ps = (size_t)fgc_pagesize(), len = 64 * ps;
	const struct fg_backing *b;
	struct faultgen_run run;
	char *addr = NULL;
	int id = 0;

	fake_run(&run, c, 1, len);
	b = run.backing;
	ck_assert_int_eq(b->prepare(&run), 0);
	ck_assert_int_ge(run.backing_fd, 0);
	ck_assert_int_eq(file_blocks(run.backing_fd), 0);
	ck_assert_int_eq(b->map(&run, len, NULL, false, 0, &addr, &id), 0);
	ck_assert_int_eq(id, -1);
	memset(addr, 0x5a, len);
	ck_assert_int_ge(file_blocks(run.backing_fd), (long long)(len / 512));
	ck_assert_int_eq(b->zap(&run, addr, len), 0);
	if (c->share) {
		ck_assert_int_eq(file_blocks(run.backing_fd), 0);
		ck_assert_uint_eq(fgc_resident_pages(addr, len), 0);
		/* Touched again: allocated again, and zeroed. */
		ck_assert_int_eq(addr[len - 1], 0);
		addr[0] = 1;
		ck_assert_int_gt(file_blocks(run.backing_fd), 0);
	} else {
		ck_assert_int_ge(file_blocks(run.backing_fd),
				 (long long)(len / 512));
		/* The copy went; the file's page reads through. */
		ck_assert_int_eq(addr[0], 0);
	}
	b->unmap(addr, len, id);
	b->release(&run);
	ck_assert_int_eq(run.backing_fd, -1);
}
END_TEST

/* Shared anonymous memory and shared /dev/zero are shmem too: zap frees
 * their pages (mincore sees none), as it does a memfd's. */
START_TEST(shared_anon_and_devzero_zap_frees_pages)
{
	const struct backing_case *c = &cases[2 + _i];
	size_t ps = (size_t)fgc_pagesize(), len = 64 * ps;
	const struct fg_backing *b;
	struct faultgen_run run;
	char *addr = NULL;
	int id = 0;

	fake_run(&run, c, 1, len);
	b = run.backing;
	if (b->prepare)
		ck_assert_int_eq(b->prepare(&run), 0);
	ck_assert_int_eq(b->map(&run, len, NULL, false, 0, &addr, &id), 0);
	memset(addr, 0x5a, len);
	ck_assert_uint_eq(fgc_resident_pages(addr, len), 64);
	ck_assert_int_eq(b->zap(&run, addr, len), 0);
	ck_assert_uint_eq(fgc_resident_pages(addr, len), 0);
	ck_assert_int_eq(addr[ps], 0);
	b->unmap(addr, len, id);
	if (b->release)
		b->release(&run);
}
END_TEST

/* Per-thread mappings of one memfd: each worker's range its own (what
 * one writes, the other does not see), at i slices into the file. */
START_TEST(memfd_workers_map_ranges_of_their_own)
{
	const struct backing_case *c = &cases[0];
	size_t ps = (size_t)fgc_pagesize(), len = 16 * ps;
	const struct fg_backing *b;
	struct faultgen_run run;
	char *a0 = NULL, *a1 = NULL, buf[8];
	int id = 0;

	fake_run(&run, c, 2, len);
	b = run.backing;
	ck_assert_int_eq(b->prepare(&run), 0);
	ck_assert_int_eq(b->map(&run, len, NULL, false, 0, &a0, &id), 0);
	ck_assert_int_eq(b->map(&run, len, NULL, false, (off_t)len, &a1, &id),
			 0);
	memcpy(a0, "zero", 5);
	memcpy(a1, "one", 4);
	ck_assert_str_eq(a0, "zero");
	ck_assert_str_eq(a1, "one");
	ck_assert_int_eq(pread(run.backing_fd, buf, 4, (off_t)len), 4);
	ck_assert_int_eq(memcmp(buf, "one", 4), 0);
	b->unmap(a0, len, id);
	b->unmap(a1, len, id);
	b->release(&run);
}
END_TEST

/* ---- whole runs ------------------------------------------------------ */

/* i: the case, then the pattern, then the kind. */
START_TEST(rounds_fault_every_page_in_every_backing)
{
	const struct backing_case *c = &cases[_i % NCASES];
	enum faultgen_pattern pattern =
		(enum faultgen_pattern)(_i / NCASES % 2);
	enum faultgen_workers kind = (enum faultgen_workers)(_i / NCASES / 2);
	uint64_t ps = (uint64_t)fgc_pagesize(), ppr = 256;
	unsigned int rounds = 3, workers = 2;
	struct faultgen_worker_result w;
	struct faultgen_result res = { .size = sizeof(res) };
	struct faultgen_attr *a;
	struct faultgen_run *run = NULL;
	struct fgc_vma *v;
	int nv, first, ret;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, pattern), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, ppr * ps), 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, workers, kind), 0);
	ck_assert_int_eq(faultgen_attr_set_backing(a, c->backing), 0);
	ck_assert_int_eq(faultgen_attr_set_share(a, c->share), 0);
	ck_assert_int_eq(faultgen_attr_get_share(a), c->share);
	ck_assert_int_eq(faultgen_attr_set_thp(a, FAULTGEN_THP_NOHUGEPAGE), 0);
	ck_assert_int_eq(faultgen_attr_set_rounds(a, rounds,
						  FAULTGEN_ZAP_DONTNEED),
			 0);
	fgc_allow_workers(a, workers);
	ret = faultgen_run_new(a, &run);
	ck_assert_msg(ret == 0, "%s: %s", c->name, faultgen_strerror(ret));
	ck_assert_int_eq(faultgen_run_result(run, &res), 0);
	ck_assert_uint_eq(res.pages_per_round, ppr);
	ck_assert_uint_eq(res.pages, rounds * ppr);
	ck_assert_uint_eq(res.rounds, rounds * workers);
	ck_assert_int_eq(res.shm_refault, 0);
	ck_assert_msg(fgc_close(res.pages, res.minflt, workers),
		      "%s: %llu faults for %llu pages", c->name,
		      (unsigned long long)res.minflt,
		      (unsigned long long)res.pages);
	ck_assert_int_eq(res.faults_agree, 1);
	ck_assert_uint_eq(res.majflt, 0);
	/* Each worker's memory is of the backing: a memfd's maps line
	 * names it, shared anonymous memory is "/dev/zero (deleted)". */
	nv = fgc_maps_read(&v);
	ck_assert_int_gt(nv, 0);
	for (unsigned int i = 0; i < workers; i++) {
		memset(&w, 0, sizeof(w));
		w.size = sizeof(w);
		ck_assert_int_eq(faultgen_run_worker(run, i, &w), 0);
		ck_assert_uint_eq(w.pages, rounds * ppr / workers);
		ck_assert_int_eq(fgc_vmas_over(v, nv, w.addr, w.len, &first),
				 1);
		if (c->backing == FAULTGEN_BACKING_MEMFD)
			ck_assert_msg(strncmp(v[first].path,
					      "/memfd:libfaultgen", 18) == 0,
				      "%s: worker %u maps \"%s\"", c->name, i,
				      v[first].path);
		else
			ck_assert_msg(strncmp(v[first].path, "/dev/zero",
					      9) == 0,
				      "%s: worker %u maps \"%s\"", c->name, i,
				      v[first].path);
	}
	free(v);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* ---- refused --------------------------------------------------------- */

static void assert_conflict(struct faultgen_attr *a, enum faultgen_setting x,
			    enum faultgen_setting y)
{
	struct faultgen_conflict c = { .size = sizeof(c) };

	ck_assert_int_eq(faultgen_attr_check(a, &c), -EINVAL);
	ck_assert_msg((c.setting == x && c.with == y) ||
			      (c.setting == y && c.with == x),
		      "conflict %d with %d, not %d with %d", c.setting, c.with,
		      x, y);
	ck_assert_ptr_nonnull(c.why);
}

START_TEST(refuses_what_a_backing_cannot_do)
{
	size_t rlen = 16 * (size_t)fgc_pagesize();
	char *region = mmap(NULL, rlen, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct faultgen_attr *a;

	ck_assert_ptr_ne(region, MAP_FAILED);
	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_get_share(a), 0);
	ck_assert_int_eq(faultgen_attr_set_backing(a, FAULTGEN_BACKING_MEMFD),
			 0);
	ck_assert_int_eq(faultgen_attr_set_backing(
				 a, (enum faultgen_backing)(FAULTGEN_BACKING_MEMFD + 1)),
			 -EINVAL);
	ck_assert_int_eq(faultgen_attr_get_backing(a), FAULTGEN_BACKING_MEMFD);
	ck_assert_int_eq(faultgen_attr_check(a, NULL), 0);
	/* Zap by munmap would map the file's kept pages again. */
	ck_assert_int_eq(faultgen_attr_set_pattern(a, FAULTGEN_PER_THREAD_VMA),
			 0);
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 2, FAULTGEN_ZAP_MUNMAP),
			 0);
	assert_conflict(a, FAULTGEN_SETTING_ZAP, FAULTGEN_SETTING_BACKING);
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 2, FAULTGEN_ZAP_DONTNEED),
			 0);
	ck_assert_int_eq(faultgen_attr_check(a, NULL), 0);
	/* A SysV segment is shared always. */
	ck_assert_int_eq(faultgen_attr_set_backing(a, FAULTGEN_BACKING_SYSV),
			 0);
	ck_assert_int_eq(faultgen_attr_set_share(a, 1), 0);
	assert_conflict(a, FAULTGEN_SETTING_SHARE, FAULTGEN_SETTING_BACKING);
	/* A caller's region is private anonymous memory. */
	ck_assert_int_eq(faultgen_attr_set_backing(a, FAULTGEN_BACKING_ANON),
			 0);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, FAULTGEN_SHARED_VMA), 0);
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 1, FAULTGEN_ZAP_DONTNEED),
			 0);
	ck_assert_int_eq(faultgen_attr_check(a, NULL), 0);
	ck_assert_int_eq(faultgen_attr_set_region(a, region, rlen), 0);
	assert_conflict(a, FAULTGEN_SETTING_REGION, FAULTGEN_SETTING_SHARE);
	faultgen_attr_free(a);
	munmap(region, rlen);

	/* The patterns of private anonymous memory refuse sharing. */
	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_share(a, 1), 0);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, FAULTGEN_PRETOUCH), 0);
	assert_conflict(a, FAULTGEN_SETTING_SHARE, FAULTGEN_SETTING_PATTERN);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, FAULTGEN_RO_COLLAPSE),
			 0);
	assert_conflict(a, FAULTGEN_SETTING_SHARE, FAULTGEN_SETTING_PATTERN);
	ck_assert_int_eq(faultgen_pattern_reads(FAULTGEN_SHARED_VMA,
						FAULTGEN_SETTING_SHARE),
			 1);
	ck_assert_int_eq(faultgen_pattern_reads(FAULTGEN_PER_THREAD_VMA,
						FAULTGEN_SETTING_SHARE),
			 1);
	ck_assert_int_eq(faultgen_attr_set_share(NULL, 1), -EINVAL);
	faultgen_attr_free(a);
}
END_TEST

static Suite *backing_suite(void)
{
	Suite *s = suite_create("backing");
	TCase *tc = tcase_create("ops");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, memfd_zap_frees_shared_pages_keeps_private_file,
			    0, 2);
	tcase_add_loop_test(tc, shared_anon_and_devzero_zap_frees_pages, 0, 2);
	tcase_add_test(tc, memfd_workers_map_ranges_of_their_own);
	suite_add_tcase(s, tc);

	tc = tcase_create("runs");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, rounds_fault_every_page_in_every_backing, 0,
			    NCASES * 4);
	suite_add_tcase(s, tc);

	tc = tcase_create("refused");
	tcase_add_test(tc, refuses_what_a_backing_cannot_do);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return fgc_main(backing_suite());
}
