// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * check_backing.c - the kinds of memory beside private anonymous: a
 * memfd, shared anonymous memory and shared /dev/zero (shmem), private
 * memfd mappings.  Faults counted = pages in each, over rounds; what a
 * zap leaves in the file (the pages a shared mapping's zap frees, those a
 * private one keeps); each worker's range of the file its own; the
 * combinations refused.  A file in a directory of tmpfs (created, sized
 * and gone when the run ends, also when it fails), a file given (used as
 * it is), and as root hugetlb memory and a file on hugetlbfs, with the
 * pool raised for the test and put back after it.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "check-util.h"
#include <fcntl.h>
#include <pthread.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include "internal.h"

struct backing_case {
	enum faultgen_backing backing;
	int share;
	const char *name;
};

/* The directories of the runs' files, made by the fixtures (in the
 * runner, before the tests fork): a tmpfs one, and as root a hugetlbfs
 * mount; "" when there is none. */
static char tmpfs_dir[512], hugetlbfs_dir[512];

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
	run->file_len = slice_len * workers; /* as fg_memory_setup sizes it */
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
	fgc_assert_no_major(&res, c->name);
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
				 a, (enum faultgen_backing)(FAULTGEN_BACKING_HUGETLB + 1)),
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

/* ---- a file on a path: tmpfs --------------------------------------------- */

/* Entries of dir besides . and .. (-1 when it cannot be read). */
static int dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

static bool fs_is(const char *dir, unsigned long magic)
{
	struct statfs sf;

	return statfs(dir, &sf) == 0 && (unsigned long)sf.f_type == magic;
}

/* Sets or clears the flags of directory dir (chattr); false where its
 * file system has no such flag or the caller may not set it. */
static bool dir_flags(const char *dir, int set, int clear)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), flags = 0;
	bool ok = fd >= 0 && ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;

	flags = (flags | set) & ~clear;
	ok = ok && ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

/* A directory of this test on tmpfs: under $TMPDIR when that is tmpfs,
 * else under /dev/shm.  Made in the runner, removed at its end. */
static void tmpfs_setup(void)
{
	const char *bases[] = { getenv("TMPDIR"), "/dev/shm", "/tmp" };

	tmpfs_dir[0] = '\0';
	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		if (!bases[i] || !fs_is(bases[i], TMPFS_MAGIC))
			continue;
		snprintf(tmpfs_dir, sizeof(tmpfs_dir),
			 "%s/check_backing.XXXXXX", bases[i]);
		if (mkdtemp(tmpfs_dir))
			return;
		tmpfs_dir[0] = '\0';
	}
}

/* Removes what a failed test left in dir (given files, the directories
 * of the flag and name tests, with their flags cleared), and dir. */
static void remove_dir(const char *dir)
{
	char path[1024];
	struct dirent *e;
	struct stat st;
	DIR *d;

	dir_flags(dir, 0, FS_APPEND_FL | FS_IMMUTABLE_FL);
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
			remove_dir(path);
		else
			unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

static void tmpfs_teardown(void)
{
	if (tmpfs_dir[0])
		remove_dir(tmpfs_dir);
}

#define NEED_TMPFS()                                                       \
	do {                                                               \
		if (!tmpfs_dir[0]) {                                       \
			FGC_SKIP("no tmpfs directory ($TMPDIR, /dev/shm)"); \
			return;                                            \
		}                                                          \
	} while (0)

/*
 * The file backing's ops in a tmpfs directory: prepare makes the file and
 * leaves no name in the directory (unlinked at once, the descriptor keeps
 * it); shared, zap frees the file's blocks; private, the file keeps them.
 */
START_TEST(file_in_a_directory_is_unlinked_and_zapped_as_memfd)
{
	const struct backing_case c = { FAULTGEN_BACKING_FILE, _i, "file" };
	size_t ps = (size_t)fgc_pagesize(), len = 64 * ps;
	const struct fg_backing *b;
	struct faultgen_run run;
	char *addr = NULL;
	int id = 0;

	NEED_TMPFS();
	fake_run(&run, &c, 1, len);
	run.attr.backing_path = tmpfs_dir;
	b = run.backing;
	ck_assert_int_eq(b->prepare(&run), 0);
	ck_assert_int_ge(run.backing_fd, 0);
	ck_assert_int_eq(dir_entries(tmpfs_dir), 0);
	ck_assert_int_eq(file_blocks(run.backing_fd), 0);
	ck_assert_int_eq(b->map(&run, len, NULL, false, 0, &addr, &id), 0);
	memset(addr, 0x5a, len);
	ck_assert_int_ge(file_blocks(run.backing_fd), (long long)(len / 512));
	ck_assert_int_eq(b->zap(&run, addr, len), 0);
	if (c.share)
		ck_assert_int_eq(file_blocks(run.backing_fd), 0);
	else
		ck_assert_int_ge(file_blocks(run.backing_fd),
				 (long long)(len / 512));
	ck_assert_int_eq(addr[0], 0);
	b->unmap(addr, len, id);
	b->release(&run);
	ck_assert_int_eq(run.backing_fd, -1);
	run.attr.backing_path = NULL;
}
END_TEST

/* A run of backing b on path (or none), `pages` pages per round over
 * `workers`, three rounds; 0 or the run's error, with *res filled. */
static int run_backing(enum faultgen_backing b, const char *path, int share,
		       enum faultgen_pattern pattern,
		       enum faultgen_workers kind, uint64_t bytes,
		       struct faultgen_result *res, struct faultgen_run **out)
{
	unsigned int workers = 2;
	struct faultgen_attr *a;
	struct faultgen_run *run = NULL;
	int ret;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, pattern), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, bytes), 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, workers, kind), 0);
	ck_assert_int_eq(faultgen_attr_set_backing(a, b), 0);
	if (path)
		ck_assert_int_eq(faultgen_attr_set_backing_path(a, path), 0);
	ck_assert_str_eq(faultgen_attr_get_backing_path(a) ?
				 faultgen_attr_get_backing_path(a) :
				 "",
			 path ? path : "");
	ck_assert_int_eq(faultgen_attr_set_share(a, share), 0);
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 3, FAULTGEN_ZAP_DONTNEED),
			 0);
	fgc_allow_workers(a, workers);
	ret = faultgen_run_new(a, &run);
	faultgen_attr_free(a);
	if (ret) {
		faultgen_run_free(run);
		return ret;
	}
	ck_assert_int_eq(faultgen_run_result(run, res), 0);
	*out = run;
	return 0;
}

/* Faults (minor and major) = pages, within the +2 per worker of the
 * anonymous runs (more under a sanitizer). */
static void assert_faults_are_pages(const struct faultgen_result *r,
				    const char *what)
{
	uint64_t faults = r->minflt + r->majflt;
	/* A sanitizer's runtime faults a few pages of its own in each
	 * forked worker. */
	uint64_t slack = 2 * (uint64_t)r->workers + 2 +
			 (fgc_under_sanitizer() ? 8 * (uint64_t)r->workers : 0);

	ck_assert_msg(faults >= r->pages && faults <= r->pages + slack,
		      "%s: %llu + %llu faults for %llu pages", what,
		      (unsigned long long)r->minflt,
		      (unsigned long long)r->majflt,
		      (unsigned long long)r->pages);
	ck_assert_int_eq(r->faults_agree, 1);
}

/* i: share, then the pattern, then the kind.  tmpfs: no major fault of
 * its own; the maps line names the run's file, deleted; the directory is
 * empty during the run and after it. */
START_TEST(file_rounds_fault_every_page)
{
	int share = _i % 2;
	enum faultgen_pattern pattern = (enum faultgen_pattern)(_i / 2 % 2);
	enum faultgen_workers kind = (enum faultgen_workers)(_i / 4);
	uint64_t ps = (uint64_t)fgc_pagesize();
	struct faultgen_result res = { .size = sizeof(res) };
	struct faultgen_worker_result w = { .size = sizeof(w) };
	struct faultgen_run *run = NULL;
	struct fgc_vma *v;
	char what[64];
	int nv, first;

	NEED_TMPFS();
	snprintf(what, sizeof(what), "file %s %s %s",
		 share ? "shared" : "private", pattern ? "per-thread" : "shared-vma",
		 kind ? "processes" : "threads");
	ck_assert_int_eq(run_backing(FAULTGEN_BACKING_FILE, tmpfs_dir, share,
				     pattern, kind, 256 * ps, &res, &run),
			 0);
	ck_assert_uint_eq(res.pages_per_round, 256);
	ck_assert_uint_eq(res.pages, 3 * 256);
	ck_assert_uint_eq(res.pagesize, ps);
	assert_faults_are_pages(&res, what);
	fgc_assert_no_major(&res, what);
	ck_assert_int_eq(dir_entries(tmpfs_dir), 0);
	nv = fgc_maps_read(&v);
	ck_assert_int_gt(nv, 0);
	ck_assert_int_eq(faultgen_run_worker(run, 1, &w), 0);
	ck_assert_int_eq(fgc_vmas_over(v, nv, w.addr, w.len, &first), 1);
	ck_assert_msg(strncmp(v[first].path, tmpfs_dir, strlen(tmpfs_dir)) ==
				      0 &&
			      strstr(v[first].path, "/libfaultgen-") &&
			      strstr(v[first].path, "(deleted)"),
		      "%s: worker 1 maps \"%s\"", what, v[first].path);
	free(v);
	faultgen_run_free(run);
	ck_assert_int_eq(dir_entries(tmpfs_dir), 0);
}
END_TEST

/* Makes a file of len bytes of 'x' in the tmpfs directory. */
static void make_file(const char *path, size_t len)
{
	char *buf = malloc(len);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	ck_assert_ptr_nonnull(buf);
	ck_assert_int_ge(fd, 0);
	memset(buf, 'x', len);
	ck_assert_int_eq(write(fd, buf, len), (ssize_t)len);
	close(fd);
	free(buf);
}

static long long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

/*
 * A file given is used as it is: never removed nor resized; a private run
 * leaves its contents; a run bigger than the file is -EFBIG, and the file
 * stays as it was.
 */
START_TEST(given_file_is_used_as_it_is)
{
	size_t ps = (size_t)fgc_pagesize(), len = 64 * ps;
	struct faultgen_result res = { .size = sizeof(res) };
	struct faultgen_run *run = NULL;
	char path[600], buf[2];
	int fd;

	NEED_TMPFS();
	snprintf(path, sizeof(path), "%s/given", tmpfs_dir);
	make_file(path, len);
	ck_assert_int_eq(run_backing(FAULTGEN_BACKING_FILE, path, 0,
				     FAULTGEN_SHARED_VMA, FAULTGEN_THREADS, len,
				     &res, &run),
			 0);
	assert_faults_are_pages(&res, "given file, private");
	faultgen_run_free(run);
	ck_assert_int_eq(file_size(path), (long long)len);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, buf, 1, (off_t)(len - 1)), 1);
	ck_assert_int_eq(buf[0], 'x');
	close(fd);
	ck_assert_int_eq(run_backing(FAULTGEN_BACKING_FILE, path, 1,
				     FAULTGEN_PER_THREAD_VMA, FAULTGEN_PROCESSES,
				     len, &res, &run),
			 0);
	assert_faults_are_pages(&res, "given file, shared");
	faultgen_run_free(run);
	ck_assert_int_eq(file_size(path), (long long)len);
	ck_assert_int_eq(run_backing(FAULTGEN_BACKING_FILE, path, 0,
				     FAULTGEN_SHARED_VMA, FAULTGEN_THREADS,
				     2 * len, &res, &run),
			 -EFBIG);
	ck_assert_int_eq(file_size(path), (long long)len);
	ck_assert_int_eq(unlink(path), 0);
}
END_TEST

/* The first byte of the file at path, or -1. */
static int first_byte(const char *path)
{
	unsigned char c;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? pread(fd, &c, 1, 0) : -1;

	if (fd >= 0)
		close(fd);
	return n == 1 ? c : -1;
}

/* A shared run of one worker over `bytes` of the file backing on path
 * (set before), as a caller would make it. */
static struct faultgen_attr *shared_file_attr(uint64_t bytes)
{
	struct faultgen_attr *a;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_backing(a, FAULTGEN_BACKING_FILE),
			 0);
	ck_assert_int_eq(faultgen_attr_set_share(a, 1), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, bytes), 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, 1, FAULTGEN_THREADS), 0);
	return a;
}

/*
 * A final symbolic link is never followed, whether it names a file or a
 * directory: the setter refuses it (-ELOOP), and so does a run whose
 * path became one after it was set (another user's link put in the
 * place of a file, in a world-writable directory); the file the link
 * names is left as it was.  A FIFO put there is -EINVAL, and is never
 * opened.
 */
START_TEST(never_follows_a_final_link)
{
	size_t ps = (size_t)fgc_pagesize();
	char file[600], victim[600], link[600], dlink[600];
	struct faultgen_run *run = NULL;
	struct faultgen_attr *a;

	NEED_TMPFS();
	snprintf(file, sizeof(file), "%s/given", tmpfs_dir);
	snprintf(victim, sizeof(victim), "%s/victim", tmpfs_dir);
	snprintf(link, sizeof(link), "%s/link", tmpfs_dir);
	snprintf(dlink, sizeof(dlink), "%s/dirlink", tmpfs_dir);
	make_file(file, 16 * ps);
	make_file(victim, 16 * ps);
	ck_assert_int_eq(symlink(victim, link), 0);
	ck_assert_int_eq(symlink(tmpfs_dir, dlink), 0);
	a = shared_file_attr(16 * ps);
	ck_assert_int_eq(faultgen_attr_set_backing_path(a, link), -ELOOP);
	ck_assert_int_eq(faultgen_attr_set_backing_path(a, dlink), -ELOOP);
	ck_assert_ptr_null(faultgen_attr_get_backing_path(a));
	ck_assert_int_eq(faultgen_attr_set_backing_path(a, file), 0);
	ck_assert_int_eq(unlink(file), 0);
	ck_assert_int_eq(symlink(victim, file), 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), -ELOOP);
	ck_assert_ptr_null(run);
	ck_assert_int_eq(first_byte(victim), 'x');
	ck_assert_int_eq(unlink(file), 0);
	ck_assert_int_eq(mkfifo(file, 0600), 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), -EINVAL);
	ck_assert_str_eq(faultgen_strerror(-ELOOP),
			 "a symbolic link, which is never followed (or a "
			 "loop of them)");
	faultgen_attr_free(a);
	unlink(file);
	unlink(victim);
	unlink(link);
	unlink(dlink);
}
END_TEST

/*
 * An append-only (chattr +a) or immutable (+i) directory would keep the
 * run's file, which cannot be unlinked there: refused with -EPERM when
 * the path is set, and by a run whose directory became so since, before
 * it makes any file.  Needs root (CAP_LINUX_IMMUTABLE) and a file
 * system with the flags (tmpfs since Linux 6.0, ext4).
 */
START_TEST(refuses_a_directory_that_keeps_files)
{
	int flag = _i ? FS_IMMUTABLE_FL : FS_APPEND_FL;
	struct faultgen_run *run = NULL;
	struct faultgen_attr *a;
	char dir[600];

	NEED_TMPFS();
	if (!fgc_is_root()) {
		FGC_SKIP("needs root to make a directory append-only");
		return;
	}
	snprintf(dir, sizeof(dir), "%s/keeps", tmpfs_dir);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	a = shared_file_attr(16 * (size_t)fgc_pagesize());
	ck_assert_int_eq(faultgen_attr_set_backing_path(a, dir), 0);
	if (!dir_flags(dir, flag, 0)) {
		faultgen_attr_free(a);
		rmdir(dir);
		FGC_SKIP("%s: chattr +%c is not supported here", dir,
			 _i ? 'i' : 'a');
		return;
	}
	ck_assert_int_eq(faultgen_run_new(a, &run), -EPERM);
	ck_assert_int_eq(dir_entries(dir), 0);
	ck_assert_int_eq(faultgen_attr_set_backing_path(a, tmpfs_dir), 0);
	ck_assert_int_eq(faultgen_attr_set_backing_path(a, dir), -EPERM);
	ck_assert_str_eq(faultgen_attr_get_backing_path(a), tmpfs_dir);
	ck_assert(dir_flags(dir, 0, flag));
	faultgen_attr_free(a);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* Every name the run tries in the directory (libfaultgen-PID-N) taken:
 * -EBUSY, and the files there are left as they were. */
START_TEST(every_name_taken_is_busy)
{
	/* The 1000 names a run tries (faultgen_attr_set_backing(3)), and
	 * beyond those that earlier runs of this process took. */
	unsigned int names = 4 * 1000;
	struct faultgen_run *run = NULL;
	struct faultgen_attr *a;
	char dir[600], path[700];

	NEED_TMPFS();
	snprintf(dir, sizeof(dir), "%s/taken", tmpfs_dir);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	for (unsigned int n = 0; n < names; n++) {
		snprintf(path, sizeof(path), "%s/libfaultgen-%d-%u", dir,
			 (int)getpid(), n);
		close(open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			   0600));
	}
	a = shared_file_attr(16 * (size_t)fgc_pagesize());
	ck_assert_int_eq(faultgen_attr_set_backing_path(a, dir), 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), -EBUSY);
	faultgen_attr_free(a);
	ck_assert_int_eq(dir_entries(dir), (int)names);
	for (unsigned int n = 0; n < names; n++) {
		snprintf(path, sizeof(path), "%s/libfaultgen-%d-%u", dir,
			 (int)getpid(), n);
		unlink(path);
	}
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* A run made and executed in a thread of its own. */
struct bg_run {
	struct faultgen_attr *attr;
	struct faultgen_run *run;
	int ret;
	pthread_t tid;
};

static void *bg_main(void *arg)
{
	struct bg_run *b = arg;

	b->ret = faultgen_run_create(b->attr, &b->run);
	if (!b->ret)
		b->ret = faultgen_run_exec(b->run);
	return NULL;
}

/* Whether path is mapped in this process (10 s at most). */
static bool wait_mapped(const char *path)
{
	for (int i = 0; i < 1000; i++) {
		struct fgc_vma *v;
		int n = fgc_maps_read(&v);
		bool found = false;

		for (int k = 0; v && k < n && !found; k++)
			found = strcmp(v[k].path, path) == 0;
		free(v);
		if (found)
			return true;
		usleep(10000);
	}
	return false;
}

/*
 * Caught when the caller asks (faultgen_attr_set_catch_sigbus), a
 * worker's SIGBUS ends the run and not the process: a file given,
 * shared, truncated under the run, is -EFBIG (the file shrank) with
 * the worker and SIGBUS in faultgen_run_failure, by threads and by
 * processes.  The action of SIGBUS is the library's during such a run
 * only, and the caller's before and after it; without the setting it
 * is the caller's throughout.  i: threads, processes; catch or not
 * (not: the run's child dies of SIGBUS, in a process of its own).
 */
START_TEST(caught_sigbus_ends_the_run_with_its_cause)
{
	enum faultgen_workers kind = (enum faultgen_workers)(_i % 2);
	bool catch = _i < 2;
	size_t ps = (size_t)fgc_pagesize(), len = 256 * ps;
	struct sigaction during, after;
	struct bg_run b = { 0 };
	int worker = -2, signo = 0, error = 0;
	char path[600];

	NEED_TMPFS();
	snprintf(path, sizeof(path), "%s/shrinks", tmpfs_dir);
	make_file(path, len);
	b.attr = shared_file_attr(len);
	ck_assert_int_eq(faultgen_attr_get_catch_sigbus(b.attr), 0);
	ck_assert_int_eq(faultgen_attr_set_catch_sigbus(NULL, 1), -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_catch_sigbus(b.attr, catch), 0);
	ck_assert_int_eq(faultgen_attr_get_catch_sigbus(b.attr), catch);
	ck_assert_int_eq(faultgen_attr_set_backing_path(b.attr, path), 0);
	ck_assert_int_eq(faultgen_attr_set_workers(b.attr, 1, kind), 0);
	ck_assert_int_eq(faultgen_attr_set_duration(b.attr, 60,
						    FAULTGEN_ZAP_DONTNEED),
			 0);
	signal(SIGBUS, SIG_DFL);
	/* The worker that dies of it leaves no core. */
	if (!catch)
		ck_assert_int_eq(setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 }),
				 0);
	ck_assert_int_eq(pthread_create(&b.tid, NULL, bg_main, &b), 0);
	ck_assert(wait_mapped(path));
	ck_assert_int_eq(sigaction(SIGBUS, NULL, &during), 0);
	ck_assert_int_eq(truncate(path, 0), 0);
	ck_assert_int_eq(pthread_join(b.tid, NULL), 0);
	ck_assert_int_eq(sigaction(SIGBUS, NULL, &after), 0);
	ck_assert(after.sa_handler == SIG_DFL);
	ck_assert_int_eq(faultgen_run_failure(b.run, &worker, &signo, &error),
			 0);
	if (catch) {
		ck_assert(during.sa_handler != SIG_DFL);
		ck_assert_int_eq(b.ret, -EFBIG);
		ck_assert_int_eq(worker, 0);
		ck_assert_int_eq(signo, SIGBUS);
		ck_assert_int_eq(error, -EFBIG);
	} else {
		/* Only a forked worker can die of it and leave the test. */
		ck_assert(during.sa_handler == SIG_DFL);
		ck_assert_int_eq(b.ret, -ECHILD);
		ck_assert_int_eq(signo, SIGBUS);
	}
	faultgen_run_free(b.run);
	faultgen_attr_free(b.attr);
	unlink(path);
}
END_TEST

/* A run that fails once its file exists (the file cannot be sized under
 * RLIMIT_FSIZE) leaves nothing in the directory. */
START_TEST(file_gone_after_a_failed_run)
{
	size_t ps = (size_t)fgc_pagesize();
	struct faultgen_result res = { .size = sizeof(res) };
	struct faultgen_run *run = NULL;
	struct rlimit rl = { 16 * ps, 16 * ps };

	NEED_TMPFS();
	signal(SIGXFSZ, SIG_IGN);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
	ck_assert_int_eq(run_backing(FAULTGEN_BACKING_FILE, tmpfs_dir, 1,
				     FAULTGEN_SHARED_VMA, FAULTGEN_THREADS,
				     64 * ps, &res, &run),
			 -EFBIG);
	ck_assert_int_eq(dir_entries(tmpfs_dir), 0);
}
END_TEST

/* Paths the setter refuses, and a file backing with none. */
START_TEST(refuses_bad_paths)
{
	struct faultgen_attr *a;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_backing(a, FAULTGEN_BACKING_FILE), 0);
	FGC_ASSERT_CONFLICT(a, FAULTGEN_SETTING_BACKING);
	ck_assert_int_eq(faultgen_attr_set_backing_path(a, "/nonexistent/x"),
			 -ENOENT);
	ck_assert_int_eq(faultgen_attr_set_backing_path(a, "/dev/null/x"),
			 -ENOENT);
	ck_assert_int_eq(faultgen_attr_set_backing_path(a, "/dev/null"),
			 -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_backing_path(a, ""), -EINVAL);
	ck_assert_ptr_null(faultgen_attr_get_backing_path(a));
	/* /proc/self cannot be written, even by root (the directory: the
	 * link /proc/self itself is never followed). */
	ck_assert_int_eq(faultgen_attr_set_backing_path(a, "/proc/self/"),
			 -EACCES);
	ck_assert_int_eq(faultgen_attr_set_backing_path(a, "/tmp"), 0);
	ck_assert_str_eq(faultgen_attr_get_backing_path(a), "/tmp");
	ck_assert_int_eq(faultgen_attr_check(a, NULL), 0);
	/* Zap by munmap would keep the file's pages. */
	ck_assert_int_eq(faultgen_attr_set_pattern(a, FAULTGEN_PER_THREAD_VMA),
			 0);
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 2, FAULTGEN_ZAP_MUNMAP),
			 0);
	assert_conflict(a, FAULTGEN_SETTING_ZAP, FAULTGEN_SETTING_BACKING);
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 2, FAULTGEN_ZAP_DONTNEED),
			 0);
	ck_assert_int_eq(faultgen_attr_check(a, NULL), 0);
	ck_assert_int_eq(faultgen_attr_set_backing_path(a, NULL), 0);
	ck_assert_ptr_null(faultgen_attr_get_backing_path(a));
	faultgen_attr_free(a);
}
END_TEST

/*
 * QEMU's preallocation (FAULTGEN_QEMU_PREALLOC) on a backing: one thread
 * (16 MiB is below QEMU's 64 MiB per thread), every page faulted once,
 * a huge page once, the pages counted in the page size stepped by.
 */
static void qemu_prealloc_on(enum faultgen_backing b, const char *path,
			     int share, uint64_t step)
{
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_attr *a;
	struct faultgen_run *run = NULL;
	uint64_t size = 16 << 20, pages = size / step;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, FAULTGEN_QEMU_PREALLOC),
			 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, size), 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, 2, FAULTGEN_THREADS), 0);
	ck_assert_int_eq(faultgen_attr_set_backing(a, b), 0);
	if (path)
		ck_assert_int_eq(faultgen_attr_set_backing_path(a, path), 0);
	ck_assert_int_eq(faultgen_attr_set_share(a, share), 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	faultgen_attr_free(a);
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	ck_assert_uint_eq(r.workers, 1);
	ck_assert_uint_eq(r.pagesize, step);
	ck_assert_uint_eq(r.pages, pages);
	ck_assert_int_eq((int)fgc_figure_or(run, "step_bytes", -1), (int)step);
	ck_assert_msg(r.minflt + r.majflt >= pages &&
			      r.minflt + r.majflt <= pages + 2,
		      "%llu + %llu faults for %llu pages",
		      (unsigned long long)r.minflt,
		      (unsigned long long)r.majflt, (unsigned long long)pages);
	faultgen_run_free(run);
}

/* i: shared, private. */
START_TEST(qemu_prealloc_of_a_file_faults_every_page)
{
	if (!tmpfs_dir[0])
		FGC_SKIP("no tmpfs directory");
	qemu_prealloc_on(FAULTGEN_BACKING_FILE, tmpfs_dir, _i == 0,
			 (uint64_t)fgc_pagesize());
	ck_assert_int_eq(dir_entries(tmpfs_dir), 0);
}
END_TEST

/* ---- hugetlb: anonymous, and a file on hugetlbfs -------------------------- */

#define HUGE (2UL << 20)
#define HUGE_EXTRA 8 /* pages the fixture adds to the pool */
static long long huge_orig = -1; /* nr_hugepages before, or -1 */

static long long read_count(const char *path)
{
	char buf[64];

	if (fgc_read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	return strtoll(buf, NULL, 10);
}

static void write_count(const char *path, long long v)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return;
	fprintf(f, "%lld\n", v);
	fclose(f);
}

#define NR_HUGEPAGES "/proc/sys/vm/nr_hugepages"

/* As root: the pool raised by HUGE_EXTRA pages (the same count is put
 * back at the end, also when a test failed), hugetlbfs mounted on a
 * directory of the test's own. */
static void huge_setup(void)
{
	hugetlbfs_dir[0] = '\0';
	if (!fgc_is_root() || access(NR_HUGEPAGES, W_OK) < 0)
		return;
	huge_orig = read_count(NR_HUGEPAGES);
	if (huge_orig < 0)
		return;
	fprintf(stderr, "check_backing: nr_hugepages %lld -> %lld for the "
		"test, put back at its end\n", huge_orig,
		huge_orig + HUGE_EXTRA);
	write_count(NR_HUGEPAGES, huge_orig + HUGE_EXTRA);
	snprintf(hugetlbfs_dir, sizeof(hugetlbfs_dir),
		 "/tmp/check_backing-huge.XXXXXX");
	if (!mkdtemp(hugetlbfs_dir)) {
		hugetlbfs_dir[0] = '\0';
		return;
	}
	if (mount("none", hugetlbfs_dir, "hugetlbfs", 0, "pagesize=2M") < 0) {
		rmdir(hugetlbfs_dir);
		hugetlbfs_dir[0] = '\0';
	}
}

static void huge_teardown(void)
{
	if (hugetlbfs_dir[0]) {
		umount(hugetlbfs_dir);
		rmdir(hugetlbfs_dir);
	}
	if (huge_orig >= 0)
		write_count(NR_HUGEPAGES, huge_orig);
}

/* The free 2 MiB pages a run may take, or -1 without the pool. */
static long long huge_avail(void)
{
	uint64_t avail;

	return fg_huge_pages_free(HUGE, &avail) ? -1 : (long long)avail;
}

#define NEED_HUGE(pages)                                                    \
	do {                                                                \
		if (!fgc_is_root()) {                                       \
			FGC_SKIP("needs root to raise nr_hugepages");       \
			return;                                             \
		}                                                           \
		if (huge_avail() < (pages)) {                               \
			FGC_SKIP("%lld free 2 MiB pages, %d needed "        \
				 "(nr_hugepages could not be raised)",      \
				 huge_avail(), (int)(pages));                 \
			return;                                             \
		}                                                           \
	} while (0)

/* i: anonymous (memfd hugetlb=on) shared and private, a file on
 * hugetlbfs: QEMU steps by 2 MiB, one fault per huge page. */
START_TEST(qemu_prealloc_of_huge_pages)
{
	bool file = _i == 2;

	NEED_HUGE(8);
	if (file && !hugetlbfs_dir[0])
		FGC_SKIP("hugetlbfs could not be mounted");
	qemu_prealloc_on(file ? FAULTGEN_BACKING_FILE :
				FAULTGEN_BACKING_HUGETLB,
			 file ? hugetlbfs_dir : NULL, _i != 1, HUGE);
}
END_TEST

/* i: share, then the pattern, then the kind, then anonymous or a file on
 * hugetlbfs: one fault per 2 MiB page, and the pages counted in 2 MiB
 * pages.  2 workers, two pages each, 3 rounds. */
START_TEST(hugetlb_rounds_fault_every_huge_page)
{
	int share = _i % 2;
	enum faultgen_pattern pattern = (enum faultgen_pattern)(_i / 2 % 2);
	enum faultgen_workers kind = (enum faultgen_workers)(_i / 4 % 2);
	bool file = _i / 8;
	struct faultgen_result res = { .size = sizeof(res) };
	struct faultgen_run *run = NULL;
	char what[96];
	int ret;

	NEED_HUGE(4);
	if (file && !hugetlbfs_dir[0]) {
		FGC_SKIP("hugetlbfs could not be mounted");
		return;
	}
	snprintf(what, sizeof(what), "%s %s %s %s",
		 file ? "hugetlbfs file" : "hugetlb", share ? "shared" : "private",
		 pattern ? "per-thread" : "shared-vma",
		 kind ? "processes" : "threads");
	ret = run_backing(file ? FAULTGEN_BACKING_FILE : FAULTGEN_BACKING_HUGETLB,
			  file ? hugetlbfs_dir : NULL, share, pattern, kind,
			  4 * HUGE, &res, &run);
	ck_assert_msg(ret == 0, "%s: %s", what, faultgen_strerror(ret));
	ck_assert_uint_eq(res.pagesize, HUGE);
	ck_assert_uint_eq(res.pages_per_round, 4);
	ck_assert_uint_eq(res.pages, 12);
	assert_faults_are_pages(&res, what);
	fgc_assert_no_major(&res, what);
	faultgen_run_free(run);
	if (file)
		ck_assert_int_eq(dir_entries(hugetlbfs_dir), 0);
}
END_TEST

/* More pages than the pool has free: -ENOSPC before anything is mapped
 * (the size asked is never taken: it is refused first). */
START_TEST(hugetlb_refuses_more_pages_than_free)
{
	struct faultgen_result res = { .size = sizeof(res) };
	struct faultgen_run *run = NULL;
	long long avail;
	uint64_t bytes;

	NEED_HUGE(0);
	avail = huge_avail();
	/* Whole pages for both workers: an even count above the free. */
	bytes = (uint64_t)(avail + 2 - avail % 2) * HUGE;
	ck_assert_int_eq(run_backing(FAULTGEN_BACKING_HUGETLB, NULL, 0,
				     FAULTGEN_SHARED_VMA, FAULTGEN_THREADS,
				     bytes, &res, &run),
			 -ENOSPC);
	if (hugetlbfs_dir[0]) {
		ck_assert_int_eq(run_backing(FAULTGEN_BACKING_FILE,
					     hugetlbfs_dir, 1,
					     FAULTGEN_PER_THREAD_VMA,
					     FAULTGEN_THREADS, bytes, &res,
					     &run),
				 -ENOSPC);
		ck_assert_int_eq(dir_entries(hugetlbfs_dir), 0);
	}
	ck_assert_int_eq(huge_avail(), avail);
}
END_TEST

/* Whole huge pages per worker, and no THP advice. */
START_TEST(hugetlb_refuses_part_pages_and_thp)
{
	struct faultgen_attr *a;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_backing(a, FAULTGEN_BACKING_HUGETLB),
			 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 4 * HUGE), 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, 2, FAULTGEN_THREADS), 0);
	ck_assert_int_eq(faultgen_attr_check(a, NULL), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 3 * HUGE), 0);
	FGC_ASSERT_CONFLICT_WITH(a, FAULTGEN_SETTING_SIZE, FAULTGEN_SETTING_BACKING);
	ck_assert_int_eq(faultgen_attr_set_size(a, 4 * HUGE), 0);
	ck_assert_int_eq(faultgen_attr_set_thp(a, FAULTGEN_THP_NOHUGEPAGE), 0);
	FGC_ASSERT_CONFLICT(a, FAULTGEN_SETTING_THP);
	faultgen_attr_free(a);
}
END_TEST

/* ---- cold: the file's pages out of the page cache at every round ------ */

static char disk_dir[512];

/* A directory of this test on a file system that caches a device (not
 * tmpfs, ramfs or hugetlbfs): under $TMPDIR, /var/tmp or /tmp. */
static void disk_setup(void)
{
	const char *bases[] = { getenv("TMPDIR"), "/var/tmp", "/tmp" };

	disk_dir[0] = '\0';
	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		if (!bases[i] || fs_is(bases[i], TMPFS_MAGIC) ||
		    fs_is(bases[i], RAMFS_MAGIC) ||
		    fs_is(bases[i], HUGETLBFS_MAGIC))
			continue;
		snprintf(disk_dir, sizeof(disk_dir),
			 "%s/check_backing.XXXXXX", bases[i]);
		if (mkdtemp(disk_dir))
			return;
		disk_dir[0] = '\0';
	}
}

static void disk_teardown(void)
{
	if (disk_dir[0])
		remove_dir(disk_dir);
}

/* A cold run of the file backing in dir: `pages` pages over 2 workers,
 * `rounds` rounds (0: one pass); 0 or the run's error. */
static int cold_run(const char *dir, int share, enum faultgen_pattern pattern,
		    enum faultgen_workers kind, enum faultgen_touch touch,
		    uint64_t pages, unsigned int rounds,
		    struct faultgen_result *res, struct faultgen_run **out)
{
	struct faultgen_attr *a;
	struct faultgen_run *run = NULL;
	int ret;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, pattern), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, pages * fgc_pagesize()),
			 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, 2, kind), 0);
	ck_assert_int_eq(faultgen_attr_set_backing(a, FAULTGEN_BACKING_FILE),
			 0);
	ck_assert_int_eq(faultgen_attr_set_backing_path(a, dir), 0);
	ck_assert_int_eq(faultgen_attr_set_share(a, share), 0);
	ck_assert_int_eq(faultgen_attr_set_touch(a, touch), 0);
	ck_assert_int_eq(faultgen_attr_set_cold(a, 1), 0);
	ck_assert_int_eq(faultgen_attr_get_cold(a), 1);
	ck_assert_int_eq(faultgen_attr_set_rounds(a, rounds,
						  FAULTGEN_ZAP_DONTNEED),
			 0);
	fgc_allow_workers(a, 2);
	ret = faultgen_run_new(a, &run);
	faultgen_attr_free(a);
	if (ret) {
		faultgen_run_free(run);
		return ret;
	}
	ck_assert_int_eq(faultgen_run_result(run, res), 0);
	*out = run;
	return 0;
}

/* The value of the run's figure `name`, which it must have. */
static double figure_named(struct faultgen_run *run, const char *name)
{
	struct faultgen_figure f = { .size = sizeof(f) };

	for (unsigned int i = 0; faultgen_run_figure(run, i, &f) > 0; i++)
		if (strcmp(f.name, name) == 0)
			return f.value;
	ck_abort_msg("no figure %s", name);
	return -1;
}

/*
 * i: share, then the touch (write, read), then the kind, then the
 * pattern.  Every page counted out of the cache before its round is a
 * major fault (a read from the device); those that stayed (a read's
 * fault-around in another worker process maps the cached pages across
 * the slices' edges) are the rest: cold_pages and cold_stayed are the
 * pages; the directory is empty after.
 */
START_TEST(cold_rounds_read_every_page_from_the_device)
{
	int share = _i % 2;
	enum faultgen_touch touch = _i / 2 % 2 ? FAULTGEN_TOUCH_READ :
						 FAULTGEN_TOUCH_WRITE;
	enum faultgen_workers kind = (enum faultgen_workers)(_i / 4 % 2);
	enum faultgen_pattern pattern = (enum faultgen_pattern)(_i / 8);
	struct faultgen_result res = { .size = sizeof(res) };
	struct faultgen_run *run = NULL;
	/* A few faults a worker of its own (a forked worker process also
	 * copies the pages it shares with its parent that it writes:
	 * its stack, its counters; 7 seen on one CPU under load). */
	uint64_t slack = 2 * (kind == FAULTGEN_PROCESSES ? 4 : 2) + 2 +
			 (fgc_under_sanitizer() ? 16 : 0);
	double cold, stayed;
	char what[96];

	if (!disk_dir[0]) {
		FGC_SKIP("no directory on a disk ($TMPDIR, /var/tmp, /tmp)");
		return;
	}
	snprintf(what, sizeof(what), "cold %s %s %s %s",
		 share ? "shared" : "private", _i / 2 % 2 ? "read" : "write",
		 kind ? "processes" : "threads",
		 pattern ? "per-thread" : "shared-vma");
	ck_assert_int_eq(cold_run(disk_dir, share, pattern, kind, touch, 128,
				  3, &res, &run),
			 0);
	cold = figure_named(run, "cold_pages");
	stayed = figure_named(run, "cold_stayed");
	ck_assert_uint_eq(res.pages, 3 * 128);
	ck_assert_msg(cold + stayed == (double)res.pages,
		      "%s: cold_pages %g, cold_stayed %g, %llu pages", what,
		      cold, stayed, (unsigned long long)res.pages);
	/* Threads share the page tables: a worker's zap unmaps what a
	 * neighbour's fault-around mapped in its range. */
	if (kind == FAULTGEN_THREADS || touch == FAULTGEN_TOUCH_WRITE)
		ck_assert_msg(stayed <= 2 * 16 * 3, "%s: %g pages stayed",
			      what, stayed);
	ck_assert_msg((double)res.majflt >= cold &&
			      res.majflt <= res.pages + slack,
		      "%s: %llu major faults for %llu pages, %g cold", what,
		      (unsigned long long)res.majflt,
		      (unsigned long long)res.pages, cold);
	ck_assert_msg(res.minflt <= slack + (uint64_t)stayed,
		      "%s: %llu minor faults", what,
		      (unsigned long long)res.minflt);
	ck_assert_int_eq(res.faults_agree, 1);
	ck_assert(figure_named(run, "cold_drop_s") >= 0);
	faultgen_run_free(run);
	ck_assert_int_eq(dir_entries(disk_dir), 0);
}
END_TEST

/* Without rounds: the one pass reads every page; sparse-vma reads the
 * pages it touches, one in K, of ranges counted out whole. */
START_TEST(cold_one_pass_and_sparse)
{
	struct faultgen_result res = { .size = sizeof(res) };
	struct faultgen_run *run = NULL;
	struct faultgen_attr *a;
	struct faultgen_value k = { .type = FAULTGEN_TYPE_UINT,
				    .v.number = 4 };

	if (!disk_dir[0]) {
		FGC_SKIP("no directory on a disk ($TMPDIR, /var/tmp, /tmp)");
		return;
	}
	ck_assert_int_eq(cold_run(disk_dir, 0, FAULTGEN_SHARED_VMA,
				  FAULTGEN_THREADS, FAULTGEN_TOUCH_READ, 256,
				  0, &res, &run),
			 0);
	ck_assert_uint_eq(res.pages, 256);
	ck_assert(figure_named(run, "cold_pages") +
			  figure_named(run, "cold_stayed") == 256);
	ck_assert(figure_named(run, "cold_stayed") <= 4);
	ck_assert((double)res.majflt >= figure_named(run, "cold_pages"));
	ck_assert_uint_le(res.majflt, 256 + 6);
	faultgen_run_free(run);

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, FAULTGEN_SPARSE_VMA), 0);
	ck_assert_int_eq(faultgen_attr_set_value(a, "stride-pages", &k), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 256 * fgc_pagesize()), 0);
	ck_assert_int_eq(faultgen_attr_set_backing(a, FAULTGEN_BACKING_FILE),
			 0);
	ck_assert_int_eq(faultgen_attr_set_backing_path(a, disk_dir), 0);
	ck_assert_int_eq(faultgen_attr_set_touch(a, FAULTGEN_TOUCH_READ), 0);
	ck_assert_int_eq(faultgen_attr_set_cold(a, 1), 0);
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 2, FAULTGEN_ZAP_DONTNEED),
			 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	ck_assert_int_eq(faultgen_run_result(run, &res), 0);
	ck_assert_uint_eq(res.pages, 2 * 64);
	ck_assert_uint_ge(res.majflt, 2 * 64 - 4);
	ck_assert_uint_le(res.majflt, 2 * 64 + 4);
	ck_assert(figure_named(run, "cold_pages") +
			  figure_named(run, "cold_stayed") == 2 * 256);
	faultgen_run_free(run);
	faultgen_attr_free(a);
	ck_assert_int_eq(dir_entries(disk_dir), 0);
}
END_TEST

/* On tmpfs the pages are memory, not a cache: -EOPNOTSUPP before any
 * file is made. */
START_TEST(cold_refused_where_pages_stay)
{
	struct faultgen_result res = { .size = sizeof(res) };
	struct faultgen_run *run = NULL;

	NEED_TMPFS();
	ck_assert_int_eq(cold_run(tmpfs_dir, _i, FAULTGEN_SHARED_VMA,
				  FAULTGEN_THREADS, FAULTGEN_TOUCH_READ, 16,
				  2, &res, &run),
			 -EOPNOTSUPP);
	ck_assert_int_eq(dir_entries(tmpfs_dir), 0);
}
END_TEST

/* Cold without the file backing, with a pattern that does not drop,
 * with striped pages: conflicts that name "cold". */
START_TEST(cold_conflicts)
{
	struct faultgen_conflict c = { .size = sizeof(c) };
	struct faultgen_attr *a;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_check(a, &c), 0);
	ck_assert_int_eq(faultgen_attr_set_cold(a, 1), 0);
	ck_assert_int_eq(faultgen_attr_check(a, &c), -EINVAL);
	ck_assert_str_eq(c.setting_name, "cold");
	ck_assert_int_eq(c.with, FAULTGEN_SETTING_BACKING);
	ck_assert_int_eq(faultgen_attr_set_backing_path(a, "/tmp"), 0);
	ck_assert_int_eq(faultgen_attr_set_backing(a, FAULTGEN_BACKING_FILE),
			 0);
	ck_assert_int_eq(faultgen_attr_check(a, &c), 0);
	ck_assert_int_eq(faultgen_attr_set_interleave(a, 2), 0);
	ck_assert_int_eq(faultgen_attr_check(a, &c), -EINVAL);
	ck_assert_str_eq(c.setting_name, "cold");
	ck_assert_int_eq(c.with, FAULTGEN_SETTING_INTERLEAVE);
	ck_assert_int_eq(faultgen_attr_set_interleave(a, 0), 0);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, FAULTGEN_QEMU_PREALLOC),
			 0);
	ck_assert_int_eq(faultgen_attr_check(a, &c), -EINVAL);
	ck_assert_str_eq(c.setting_name, "cold");
	ck_assert_int_eq(c.with, FAULTGEN_SETTING_PATTERN);
	ck_assert_int_eq(faultgen_attr_set_cold(a, 0), 0);
	ck_assert_int_eq(faultgen_attr_check(a, &c), 0);
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
	tcase_add_test(tc, refuses_bad_paths);
	tcase_add_test(tc, hugetlb_refuses_part_pages_and_thp);
	tcase_add_test(tc, cold_conflicts);
	suite_add_tcase(s, tc);

	tc = tcase_create("cold");
	tcase_set_timeout(tc, 120);
	tcase_add_unchecked_fixture(tc, disk_setup, disk_teardown);
	tcase_add_unchecked_fixture(tc, tmpfs_setup, tmpfs_teardown);
	tcase_add_loop_test(tc, cold_rounds_read_every_page_from_the_device, 0,
			    16);
	tcase_add_test(tc, cold_one_pass_and_sparse);
	tcase_add_loop_test(tc, cold_refused_where_pages_stay, 0, 2);
	suite_add_tcase(s, tc);

	tc = tcase_create("file");
	tcase_set_timeout(tc, 120);
	tcase_add_unchecked_fixture(tc, tmpfs_setup, tmpfs_teardown);
	tcase_add_loop_test(tc,
			    file_in_a_directory_is_unlinked_and_zapped_as_memfd,
			    0, 2);
	tcase_add_loop_test(tc, file_rounds_fault_every_page, 0, 8);
	tcase_add_test(tc, given_file_is_used_as_it_is);
	tcase_add_test(tc, file_gone_after_a_failed_run);
	tcase_add_test(tc, never_follows_a_final_link);
	tcase_add_loop_test(tc, refuses_a_directory_that_keeps_files, 0, 2);
	tcase_add_test(tc, every_name_taken_is_busy);
	tcase_add_loop_test(tc, caught_sigbus_ends_the_run_with_its_cause, 0,
			    2);
	/* Not caught: a forked worker alone (a thread would end the test). */
	tcase_add_loop_test(tc, caught_sigbus_ends_the_run_with_its_cause, 3,
			    4);
	tcase_add_loop_test(tc, qemu_prealloc_of_a_file_faults_every_page, 0,
			    2);
	suite_add_tcase(s, tc);

	tc = tcase_create("hugetlb");
	tcase_set_timeout(tc, 120);
	tcase_add_unchecked_fixture(tc, huge_setup, huge_teardown);
	tcase_add_loop_test(tc, hugetlb_rounds_fault_every_huge_page, 0, 16);
	tcase_add_test(tc, hugetlb_refuses_more_pages_than_free);
	tcase_add_loop_test(tc, qemu_prealloc_of_huge_pages, 0, 3);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return fgc_main(backing_suite());
}
