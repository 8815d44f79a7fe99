// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * backing.c - the kinds of memory the workers fault, each a small table
 * of operations: prepare what the run needs (a file descriptor), map a
 * range, zap it so that the next touch faults again, unmap it, release
 * what prepare took.  memory.c lays the mappings out and never asks
 * which kind it maps.
 *
 * map, zap and unmap run in forked workers too (zap by munmap maps
 * again): system calls only, async-signal-safe.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/fs.h>
#include <linux/magic.h>

#ifndef SHM_REMAP
#define SHM_REMAP 040000
#endif
#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#ifndef MAP_HUGE_2MB
#define MAP_HUGE_2MB (21 << MAP_HUGE_SHIFT)
#endif
/* cachestat(2), Linux 6.5, the same number on every architecture. */
#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

/* MAP_FIXED over a reservation, MAP_FIXED_NOREPLACE where the place must
 * be free (zap by munmap), or anywhere. */
static int map_flags(void *at, bool noreplace)
{
	if (!at)
		return 0;
	return noreplace ? MAP_FIXED_NOREPLACE : MAP_FIXED;
}

/* A mapping placed by MAP_FIXED_NOREPLACE elsewhere (a kernel before
 * 4.17 ignores the flag) is undone: the place was taken. */
static int placed(void *p, void *at, size_t len, char **addr)
{
	if (p == MAP_FAILED)
		return -errno;
	if (at && p != at) {
		munmap(p, len);
		return -EBUSY;
	}
	*addr = p;
	return 0;
}

static int zap_dontneed(const struct faultgen_run *run, char *addr,
			size_t len)
{
	(void)run;
	return madvise(addr, len, MADV_DONTNEED) < 0 ? -errno : 0;
}

/*
 * A private mapping's pages go with MADV_DONTNEED.  A shared mapping is
 * of shmem (anonymous, /dev/zero, a memfd), whose pages MADV_DONTNEED
 * only unmaps: they stay in the file, and the next touch would map them
 * again, allocating nothing.  MADV_REMOVE frees them (a hole punched in
 * the file), so the next touch allocates, as the first did.
 */
static int zap_pages(const struct faultgen_run *run, char *addr, size_t len)
{
	int advice = run->attr.share ? MADV_REMOVE : MADV_DONTNEED;

	return madvise(addr, len, advice) < 0 ? -errno : 0;
}

/* MAP_SHARED or MAP_PRIVATE, as the attr says. */
static int share_flag(const struct faultgen_run *run)
{
	return run->attr.share ? MAP_SHARED : MAP_PRIVATE;
}

/* A read-write mapping of fd at off (or anonymous: flags), shared or
 * private as the attr says, placed at `at` when not NULL. */
static void *map_range(const struct faultgen_run *run, size_t len, void *at,
		       bool noreplace, int flags, int fd, off_t off)
{
	return mmap(at, len, PROT_READ | PROT_WRITE,
		    share_flag(run) | map_flags(at, noreplace) | flags, fd,
		    off);
}

static void unmap_mapping(char *addr, size_t len, int id)
{
	(void)id;
	munmap(addr, len);
}

/* ---- anonymous (shmem when shared) --------------------------------------- */

static int anon_map(const struct faultgen_run *run, size_t len, void *at,
		    bool noreplace, off_t off, char **addr, int *id)
{
	void *p = map_range(run, len, at, noreplace, MAP_ANONYMOUS, -1, 0);

	(void)off;
	*id = -1;
	return placed(p, at, len, addr);
}

static const struct fg_backing anon_backing = {
	.map = anon_map,
	.zap = zap_pages,
	.unmap = unmap_mapping,
	.remap = true,
};

/* ---- a mapping of /dev/zero (shmem when shared) -------------------------- */

static int devzero_prepare(struct faultgen_run *run)
{
	run->backing_fd = open("/dev/zero", O_RDWR | O_CLOEXEC);
	return run->backing_fd < 0 ? -errno : 0;
}

static int devzero_map(const struct faultgen_run *run, size_t len, void *at,
		       bool noreplace, off_t off, char **addr, int *id)
{
	void *p = map_range(run, len, at, noreplace, 0, run->backing_fd, 0);

	(void)off; /* each mapping of /dev/zero is an object of its own */
	*id = -1;
	return placed(p, at, len, addr);
}

static void close_fd(struct faultgen_run *run)
{
	if (run->backing_fd >= 0)
		close(run->backing_fd);
	run->backing_fd = -1;
}

static const struct fg_backing devzero_backing = {
	.prepare = devzero_prepare,
	.map = devzero_map,
	.zap = zap_pages,
	.unmap = unmap_mapping,
	.release = close_fd,
	.remap = true,
};

/* ---- a memfd: one shmem file, a range of it per mapping ------------------ */

/* The file holds run->file_len bytes: every worker's slice, each at its
 * own offset (memory.c), or a pattern's one region. */
static int memfd_prepare(struct faultgen_run *run)
{
	off_t len = (off_t)run->file_len;

	run->backing_fd = memfd_create("libfaultgen", MFD_CLOEXEC);
	if (run->backing_fd < 0)
		return -errno;
	if (ftruncate(run->backing_fd, len) < 0)
		return -errno;
	return 0;
}

static int memfd_map(const struct faultgen_run *run, size_t len, void *at,
		     bool noreplace, off_t off, char **addr, int *id)
{
	void *p = map_range(run, len, at, noreplace, 0, run->backing_fd, off);

	*id = -1;
	return placed(p, at, len, addr);
}

/*
 * Shared, zap punches the slice's hole (zap_pages).  Private, it drops
 * the private copies, and the file's pages stay: the first round's
 * write faults allocate the file's page and its copy, later rounds copy
 * the same file pages again.  Not remapped: zap by munmap would keep the
 * file's pages.
 */
static const struct fg_backing memfd_backing = {
	.prepare = memfd_prepare,
	.map = memfd_map,
	.zap = zap_pages,
	.unmap = unmap_mapping,
	.release = close_fd,
};

/* ---- huge pages: the pool's free pages ---------------------------------- */

/* Reads one count of the pool of huge pages of hpsize bytes. */
static int huge_count(size_t hpsize, const char *name, uint64_t *v)
{
	char path[128];

	snprintf(path, sizeof(path),
		 "/sys/kernel/mm/hugepages/hugepages-%zukB/%s", hpsize >> 10,
		 name);
	return fg_read_number(path, v);
}

/*
 * The huge pages of hpsize bytes that a new mapping may reserve: free
 * ones less those already reserved (by other programs' mappings, not
 * faulted yet).  -EOPNOTSUPP when the kernel has no such pool.
 */
FG_TESTABLE int fg_huge_pages_free(size_t hpsize, uint64_t *avail)
{
	uint64_t free_pages = 0, resv = 0;

	if (huge_count(hpsize, "free_hugepages", &free_pages) < 0)
		return -EOPNOTSUPP;
	if (huge_count(hpsize, "resv_hugepages", &resv) < 0)
		resv = 0;
	*avail = free_pages > resv ? free_pages - resv : 0;
	return 0;
}

/* The run's memory in huge pages against the pool's: -ENOSPC when the
 * pool is too small (nr_hugepages), before anything is mapped. */
static int huge_pages_check(const struct faultgen_run *run)
{
	uint64_t need = (uint64_t)run->file_len / (uint64_t)run->pagesize,
		 avail = 0;
	int ret = fg_huge_pages_free((size_t)run->pagesize, &avail);

	if (ret)
		return ret;
	return need > avail ? -ENOSPC : 0;
}

/*
 * A private hugetlb mapping reserves its pages for the process that maps
 * it; forked workers, which fault it, cannot use that reservation and
 * would find the pool empty (SIGBUS).  Their mapping reserves nothing:
 * they take the pages from the pool as they fault, which the check
 * before the run found free.
 */
static int huge_noreserve(const struct faultgen_run *run)
{
	return !run->attr.share && run->attr.kind == FAULTGEN_PROCESSES ?
		       MAP_NORESERVE :
		       0;
}

/* A hugetlb mapping the pool could not reserve is -ENOSPC, as the check
 * before it says. */
static int huge_placed(void *p, void *at, size_t len, char **addr)
{
	int ret = placed(p, at, len, addr);

	return ret == -ENOMEM ? -ENOSPC : ret;
}

/* ---- a file on a path the caller names ---------------------------------- */

/* A path's kind, as the setter takes it: errors the API documents. */
static int path_error(int err)
{
	switch (err) {
	case ENOTDIR:
		return -ENOENT;
	case EROFS:
	case EPERM:
		return -EACCES;
	case ENAMETOOLONG:
		return -EINVAL;
	}
	return -err;
}

/*
 * A directory whose entries cannot be removed (chattr +a, append-only)
 * or changed (+i, immutable) would keep the run's file: -EPERM, before
 * any is made.  A file system without such flags (ENOTTY) has none.
 */
static int dir_keeps_files(int dirfd)
{
	int flags = 0;

	if (ioctl(dirfd, FS_IOC_GETFLAGS, &flags) < 0)
		return 0;
	return flags & (FS_APPEND_FL | FS_IMMUTABLE_FL) ? -EPERM : 0;
}

/*
 * The path's kind, never through a final symbolic link (-ELOOP): another
 * user's link in a world-writable directory must not make the run write
 * into the file it names.  Anything but a directory or a regular file
 * (a device, a FIFO, a socket) is -EINVAL, and is never opened.
 */
static int path_kind(const char *path, struct stat *st)
{
	if (!path || !*path)
		return -EINVAL;
	if (lstat(path, st) < 0)
		return path_error(errno);
	if (S_ISLNK(st->st_mode))
		return -ELOOP;
	if (!S_ISDIR(st->st_mode) && !S_ISREG(st->st_mode))
		return -EINVAL;
	return 0;
}

/* The directory path, opened without following a final link, and
 * checked to let the run remove what it makes there. */
static int open_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return errno == ENOTDIR ? -EINVAL : path_error(errno);
	ret = dir_keeps_files(fd);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

int fg_backing_path_check(const char *path)
{
	struct stat st;
	int ret = path_kind(path, &st), fd;

	if (ret)
		return ret;
	if (S_ISREG(st.st_mode))
		return access(path, R_OK) < 0 ? path_error(errno) : 0;
	fd = open_dir(path);
	if (fd < 0)
		return fd;
	close(fd);
	return access(path, W_OK | X_OK) < 0 ? path_error(errno) : 0;
}

/* The page size a backing faults: the huge page size of hugetlb memory
 * and of a path on hugetlbfs, else the base page size. */
size_t fg_backing_pagesize(const struct faultgen_attr *a)
{
	struct statfs sf;

	if (a->backing == FAULTGEN_BACKING_HUGETLB)
		return FG_HPAGE_SIZE;
	if (a->backing == FAULTGEN_BACKING_FILE && a->backing_path &&
	    statfs(a->backing_path, &sf) == 0 &&
	    (unsigned long)sf.f_type == HUGETLBFS_MAGIC && sf.f_bsize > 0)
		return (size_t)sf.f_bsize;
	return (size_t)fg_pagesize();
}

/*
 * A file of the run's own in directory dir, under a name no other file
 * has (O_EXCL, and O_NOFOLLOW: never through a link), sized to every
 * slice and unlinked at once: the mappings and the descriptor keep it,
 * and a run that fails, is cancelled or is killed from then on leaves
 * nothing in the directory.  A file that cannot be unlinked after all
 * (the directory made append-only meanwhile) is emptied, and the run
 * fails with -EPERM.  -EBUSY: every name tried was taken.
 */
static int file_create(struct faultgen_run *run, int dirfd, off_t len)
{
	static _Atomic unsigned int next;
	char name[64];
	int fd = -1, err;

	for (unsigned int tries = 0; tries < FG_FILE_NAME_TRIES; tries++) {
		snprintf(name, sizeof(name), "libfaultgen-%d-%u", (int)getpid(),
			 atomic_fetch_add(&next, 1));
		fd = openat(dirfd, name,
			    O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0)
		return errno == EEXIST ? -EBUSY : path_error(errno);
	if (unlinkat(dirfd, name, 0) < 0) {
		err = errno == EPERM ? -EPERM : path_error(errno);
		(void)!ftruncate(fd, 0);
		close(fd);
		return err;
	}
	err = ftruncate(fd, len) < 0 ? -errno : 0;
	if (err) {
		close(fd);
		return err == -EINVAL ? -EFBIG : err;
	}
	run->backing_fd = fd;
	return 0;
}

/*
 * A file the caller gave: used as it is, at least as long as the run's
 * memory.  Written only through a shared mapping.  Opened without
 * following a link, and without blocking (a FIFO put in its place), then
 * checked to be the regular file the path named.
 */
static int file_open(struct faultgen_run *run, const char *path,
		     const struct stat *named, off_t len)
{
	int mode = run->attr.share ? O_RDWR : O_RDONLY;
	struct stat st;
	int fd = open(path, mode | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
				    O_CLOEXEC);

	if (fd < 0)
		return path_error(errno);
	run->backing_fd = fd;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_dev != named->st_dev ||
	    st.st_ino != named->st_ino)
		return -EINVAL;
	return st.st_size < len ? -EFBIG : 0;
}

/* A file system whose pages are memory, not a cache of a device:
 * they never leave (cold), and are never written back (no dirty
 * tracking: a replay's write-notify). */
bool fg_pages_stay(unsigned long magic)
{
	return magic == TMPFS_MAGIC || magic == RAMFS_MAGIC ||
	       magic == HUGETLBFS_MAGIC;
}

/*
 * What the file system of the run's file cannot give, before anything
 * is mapped: a cold run's pages on tmpfs, ramfs or hugetlbfs, which
 * never leave the page cache (-EOPNOTSUPP); ramfs punches no hole (MADV_REMOVE), which a shared run's
 * rounds need (-EOPNOTSUPP); a hugetlbfs mount's size= limit leaves
 * fewer free huge pages than the run needs besides the `have` bytes the
 * file holds already (-ENOSPC: its faults would be SIGBUS).
 */
static int file_system_check(const struct faultgen_run *run, int fd,
			     uint64_t have)
{
	uint64_t len = (uint64_t)run->file_len;
	uint64_t need = (len > have ? len - have : 0) / (uint64_t)run->pagesize;
	struct statfs sf;

	if (fstatfs(fd, &sf) < 0)
		return 0;
	if (run->attr.cold && fg_pages_stay((unsigned long)sf.f_type))
		return -EOPNOTSUPP;
	if ((unsigned long)sf.f_type == RAMFS_MAGIC && run->attr.share &&
	    fg_attr_repeats(&run->attr))
		return -EOPNOTSUPP;
	if ((unsigned long)sf.f_type == HUGETLBFS_MAGIC && sf.f_blocks > 0 &&
	    need > (uint64_t)sf.f_bavail)
		return -ENOSPC;
	return 0;
}

/* ---- cold: a file's pages out of the page cache before each round ----- */

/*
 * The run's own file, written through (pwrite) so that each page has a
 * block of the device behind it: a hole or an unwritten extent
 * (fallocate) reads as zeros without touching the device.
 */
static int cold_fill(int fd, off_t len)
{
	size_t chunk = 1UL << 20;
	char *buf = malloc(chunk);
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	memset(buf, 0x5a, chunk);
	for (off_t off = 0; off < len && !ret;) {
		size_t n = (size_t)(len - off) < chunk ? (size_t)(len - off) :
							 chunk;
		ssize_t w = pwrite(fd, buf, n, off);

		if (w < 0 && errno != EINTR)
			ret = -errno;
		else if (w > 0)
			off += w;
	}
	free(buf);
	return ret == -EINVAL ? -EFBIG : ret;
}

struct fg_cachestat_range {
	uint64_t off, len;
};

struct fg_cachestat {
	uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted,
		nr_recently_evicted;
};

/*
 * The pages of [off, off + len) of fd in the page cache: cachestat(2)
 * where the kernel has it, else mincore(2) over a mapping of the range
 * of its own (which faults nothing).  System calls only: forked workers
 * call it.
 */
static int cached_pages(int fd, off_t off, size_t len, size_t ps,
			uint64_t *n)
{
	struct fg_cachestat_range r = { (uint64_t)off, (uint64_t)len };
	struct fg_cachestat cs;
	unsigned char vec[512];
	char *p;
	int ret = 0;

	if (syscall(__NR_cachestat, fd, &r, &cs, 0) == 0) {
		*n = cs.nr_cache;
		return 0;
	}
	if (errno != ENOSYS)
		return -errno;
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, off);
	if (p == MAP_FAILED)
		return -errno;
	*n = 0;
	for (size_t at = 0; at < len && !ret; at += sizeof(vec) * ps) {
		size_t part = len - at < sizeof(vec) * ps ? len - at :
							   sizeof(vec) * ps;

		if (mincore(p + at, part, vec) < 0) {
			ret = -errno;
			break;
		}
		for (size_t k = 0; k < (part + ps - 1) / ps; k++)
			*n += vec[k] & 1;
	}
	munmap(p, len);
	return ret;
}

/* Times the drop is tried while pages stay. */
#define COLD_TRIES 3

/*
 * [off, off + len) of the run's file out of the page cache: written
 * back where a shared round dirtied it (sync_file_range, waiting), then
 * dropped (POSIX_FADV_DONTNEED, which leaves a page that is still
 * mapped or dirty), then counted: *left, the pages still in the cache
 * (a page mapped by another process, or pinned; on a file system that
 * caches no device, all).
 */
static int cold_range(const struct faultgen_run *run, off_t off, size_t len,
		      uint64_t *left)
{
	int fd = run->backing_fd, ret = 0;

	for (int t = 0; t < COLD_TRIES; t++) {
		if (sync_file_range(fd, off, (off_t)len,
				    SYNC_FILE_RANGE_WAIT_BEFORE |
					    SYNC_FILE_RANGE_WRITE |
					    SYNC_FILE_RANGE_WAIT_AFTER) < 0 &&
		    fdatasync(fd) < 0)
			return -errno;
		ret = posix_fadvise(fd, off, (off_t)len, POSIX_FADV_DONTNEED);
		if (ret)
			return -ret;
		ret = cached_pages(fd, off, len, (size_t)run->pagesize, left);
		if (ret || !*left)
			return ret;
	}
	return 0;
}

/* The whole file out of the cache once before the run (its own file
 * was just written): a page that stays (a file system that keeps them,
 * a page another process maps) fails the run here with -EOPNOTSUPP,
 * before any worker starts; and the figures' room. */
static int cold_prepare(struct faultgen_run *run)
{
	uint64_t left = 0;
	void *p;
	int ret = cold_range(run, 0, run->file_len, &left);

	if (ret)
		return ret;
	if (left)
		return -EOPNOTSUPP;
	run->cold_len = run->attr.nr_workers * sizeof(struct fg_cold);
	ret = fg_map_figures(run, run->cold_len, false, &p);
	if (ret)
		return ret;
	run->cold = p;
	return 0;
}

/*
 * Worker i's range of the file out of the page cache, before a measured
 * round (fault.c): the pages counted out, those that stayed and the
 * time taken are added up, the time also into *ns.  Worker i's pages
 * are the file's from i slices in, in a shared VMA and in per-thread
 * VMAs alike (memory.c).  A page of its range that another worker
 * process maps (a read fault maps the cached pages around it, across
 * the slices' edges: fault-around) stays, and is counted as such: its
 * next fault is minor.  System calls only: forked workers call it.
 */
int fg_cold_drop(struct faultgen_run *run, unsigned int i, int64_t *ns)
{
	size_t len = run->wlen[i], ps = (size_t)run->pagesize;
	int64_t t0 = fg_now_ns();
	uint64_t left = 0;
	int ret = len ? cold_range(run, (off_t)i * (off_t)run->slice_len,
				   len, &left) :
			0;

	*ns = fg_now_ns() - t0;
	if (ret)
		return ret;
	run->cold[i].pages += len / ps - left;
	run->cold[i].stayed += left;
	run->cold[i].ns += *ns;
	return 0;
}

/* The figures of a cold run, in all: the pages counted out of the cache
 * before the measured rounds, those that stayed, and the time the drops
 * took. */
int fg_cold_figure(const struct faultgen_run *run, unsigned int index,
		   struct faultgen_figure *f)
{
	uint64_t pages = 0, stayed = 0;
	int64_t ns = 0;

	if (!run->cold)
		return -ERANGE;
	for (unsigned int i = 0; i < run->attr.nr_workers; i++) {
		pages += run->cold[i].pages;
		stayed += run->cold[i].stayed;
		ns += run->cold[i].ns;
	}
	const struct fg_figure_row figs[] = {
		{ "cold_pages", (double)pages, "pages" },
		{ "cold_stayed", (double)stayed, "pages" },
		{ "cold_drop_s", (double)ns / 1e9, "s" },
	};
	return fg_figure_pick(figs, sizeof(figs) / sizeof(figs[0]), index,
			      f);
}

static void cold_release(struct faultgen_run *run)
{
	if (run->cold)
		munmap(run->cold, run->cold_len);
	run->cold = NULL;
	run->cold_len = 0;
}

static int file_open_or_create(struct faultgen_run *run)
{
	const char *path = run->attr.backing_path;
	off_t len = (off_t)run->file_len;
	struct stat st;
	int ret = path_kind(path, &st), dirfd;

	if (ret)
		return ret;
	if (S_ISREG(st.st_mode)) {
		ret = file_open(run, path, &st, len);
		return ret ? ret :
			     file_system_check(run, run->backing_fd,
					       (uint64_t)st.st_blocks * 512);
	}
	if ((size_t)run->pagesize != (size_t)fg_pagesize()) {
		ret = huge_pages_check(run);
		if (ret)
			return ret;
	}
	dirfd = open_dir(path);
	if (dirfd < 0)
		return dirfd;
	ret = file_system_check(run, dirfd, 0);
	if (!ret)
		ret = file_create(run, dirfd, len);
	if (!ret && run->attr.cold)
		ret = cold_fill(run->backing_fd, len);
	close(dirfd);
	return ret;
}

static int file_prepare(struct faultgen_run *run)
{
	int ret = file_open_or_create(run);

	if (!ret && run->attr.cold)
		ret = cold_prepare(run);
	return ret;
}

static int file_map(const struct faultgen_run *run, size_t len, void *at,
		    bool noreplace, off_t off, char **addr, int *id)
{
	bool huge = (size_t)run->pagesize != (size_t)fg_pagesize();
	void *p = map_range(run, len, at, noreplace,
			    huge ? huge_noreserve(run) : 0, run->backing_fd,
			    off);
	int ret;

	*id = -1;
	ret = huge ? huge_placed(p, at, len, addr) : placed(p, at, len, addr);
	/* Cold: no read-around, so that each fault reads its own page. */
	if (!ret && run->attr.cold && madvise(*addr, len, MADV_RANDOM) < 0)
		ret = -errno;
	return ret;
}

/* Cold: the mappings go, the file keeps its data (no hole punched);
 * fg_cold_drop takes the pages out of the cache before the next round. */
static int file_zap(const struct faultgen_run *run, char *addr, size_t len)
{
	return run->attr.cold ? zap_dontneed(run, addr, len) :
				zap_pages(run, addr, len);
}

static void file_release(struct faultgen_run *run)
{
	cold_release(run);
	close_fd(run);
}

/*
 * Shared, zap punches the slice's hole (MADV_REMOVE, zap_pages): the
 * page cache and the file's blocks go, and the next round allocates
 * them again.  Private, it drops the private copies and the file's
 * pages stay cached: the next round copies them again.  Cold, the
 * mappings go and the data stays, and the cache is dropped apart
 * (fg_cold_drop).  Not remapped: zap by munmap would keep the page
 * cache.
 */
static const struct fg_backing file_backing = {
	.prepare = file_prepare,
	.map = file_map,
	.zap = file_zap,
	.unmap = unmap_mapping,
	.release = file_release,
};

/* ---- hugetlb: anonymous memory of 2 MiB pages --------------------------- */

static int hugetlb_prepare(struct faultgen_run *run)
{
	return huge_pages_check(run);
}

static int hugetlb_map(const struct faultgen_run *run, size_t len, void *at,
		       bool noreplace, off_t off, char **addr, int *id)
{
	void *p = map_range(run, len, at, noreplace,
			    MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_2MB |
				    huge_noreserve(run),
			    -1, 0);

	(void)off;
	*id = -1;
	return huge_placed(p, at, len, addr);
}

/* Private, MADV_DONTNEED gives the pages back to the pool; shared, the
 * mapping is of a hugetlbfs file of its own, and MADV_REMOVE does. */
static const struct fg_backing hugetlb_backing = {
	.prepare = hugetlb_prepare,
	.map = hugetlb_map,
	.zap = zap_pages,
	.unmap = unmap_mapping,
	.remap = true,
};

/* ---- SysV shared memory -------------------------------------------------- */

/*
 * A new segment under a key of libfaultgen's range (FG_SHM_KEY_BASE and
 * 65536 keys up), the first free one from a point that differs between
 * processes.  The key is what makes a segment that a killed run left
 * recognisable (faultgen_sysv_cleanup): IPC_RMID turns a live segment's
 * key private at once.
 */
static int sysv_create(size_t len)
{
	static _Atomic unsigned int next;
	unsigned int start = (unsigned int)getpid() * 2654435761u;

	for (unsigned int i = 0; i <= FG_SHM_KEYS; i++) {
		unsigned int n = (start + atomic_fetch_add(&next, 1)) %
				 FG_SHM_KEYS;
		int shmid = shmget((key_t)(FG_SHM_KEY_BASE + n), len,
				   IPC_CREAT | IPC_EXCL | 0600);

		if (shmid >= 0)
			return shmid;
		if (errno != EEXIST)
			/* ENOSPC: SHMMNI segments or SHMALL pages in use;
			 * EINVAL: the size is beyond SHMMAX. */
			return errno == EINVAL ? -EFBIG : -errno;
	}
	return -ENOSPC;
}

/*
 * A segment, attached (at `at`, over the reservation, when not NULL) and
 * at once marked for removal: it goes with the last detach, so a run
 * killed from then on cannot leak it.  Only a kill between shmget and
 * that IPC_RMID can, and nothing else happens in between; such a segment
 * keeps its key, by which faultgen_sysv_cleanup finds it.  The id stays
 * valid while attached, for SHM_LOCK.
 */
static int sysv_map(const struct faultgen_run *run, size_t len, void *at,
		    bool noreplace, off_t off, char **addr, int *id)
{
	int shmid, err;
	void *p;

	(void)noreplace; /* never remapped: zap by munmap is refused */
	(void)off;       /* a segment of its own per mapping */
	shmid = sysv_create(len);
	if (shmid < 0)
		return shmid;
	p = shmat(shmid, at, at ? SHM_REMAP : 0);
	err = p == (void *)-1 ? -errno : 0;
	shmctl(shmid, IPC_RMID, NULL);
	if (err)
		return err;
	if (run->attr.shm_lock && shmctl(shmid, SHM_LOCK, NULL) < 0) {
		err = -errno;
		shmdt(p);
		return err;
	}
	*addr = p;
	*id = shmid;
	return 0;
}

static void sysv_unmap(char *addr, size_t len, int id)
{
	(void)len, (void)id;
	shmdt(addr);
}

/* Whether process pid is gone: no such process, or a zombie (killed,
 * not yet reaped). */
static bool creator_gone(pid_t pid)
{
	char path[64], line[256];
	const char *p;
	FILE *f;
	bool zombie = false;

	if (kill(pid, 0) < 0)
		return errno == ESRCH;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (fgets(line, sizeof(line), f)) {
		p = strrchr(line, ')');
		zombie = p && p[1] == ' ' && p[2] == 'Z';
	}
	fclose(f);
	return zombie;
}

/*
 * The segments of libfaultgen's key range that nobody attaches and whose
 * creator is gone: left by a run killed between shmget and IPC_RMID.
 * A segment whose creator lives may be in that window now, and stays;
 * so does every segment another user created (its creator uid is not
 * the caller's effective uid): root may remove any segment, and a key
 * of the range is no proof that libfaultgen made it (ftok() of a file
 * on a device whose minor is 102 gives such keys).
 */
int fg_sysv_cleanup(void)
{
	struct shm_info info;
	int max = shmctl(0, SHM_INFO, (struct shmid_ds *)(void *)&info);
	int removed = 0;

	if (max < 0)
		return errno == ENOSYS ? 0 : -errno;
	for (int i = 0; i <= max; i++) {
		struct shmid_ds ds;
		int id = shmctl(i, SHM_STAT, &ds);
		key_t key;

		if (id < 0)
			continue;
		key = ds.shm_perm.__key;
		if (key < (key_t)FG_SHM_KEY_BASE ||
		    key >= (key_t)(FG_SHM_KEY_BASE + FG_SHM_KEYS) ||
		    ds.shm_perm.cuid != geteuid() || ds.shm_nattch != 0 ||
		    ds.shm_cpid <= 0 ||
		    !creator_gone(ds.shm_cpid))
			continue;
		if (shmctl(id, IPC_RMID, NULL) == 0)
			removed++;
	}
	return removed;
}

/* MADV_DONTNEED only unmaps: the pages stay in the segment, and touches
 * after it map them again, allocating nothing. */
static const struct fg_backing sysv_backing = {
	.map = sysv_map,
	.zap = zap_dontneed,
	.unmap = sysv_unmap,
	.zap_keeps_pages = true,
};

const struct fg_backing *fg_backing_of(const struct faultgen_attr *a)
{
	switch (a->backing) {
	case FAULTGEN_BACKING_ANON:
		return &anon_backing;
	case FAULTGEN_BACKING_DEVZERO:
		return &devzero_backing;
	case FAULTGEN_BACKING_SYSV:
		return &sysv_backing;
	case FAULTGEN_BACKING_MEMFD:
		return &memfd_backing;
	case FAULTGEN_BACKING_FILE:
		return &file_backing;
	case FAULTGEN_BACKING_HUGETLB:
		return &hugetlb_backing;
	}
	return NULL;
}
