// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * survey-vmas - a fixture of cli-survey.sh: a VMA that the kernel
 * reshapes while it is faulted, faster than pft-survey's snapshots:
 *
 *   survey-vmas growdown MIB   a MAP_GROWSDOWN mapping of one page grown
 *                              down by MIB MiB of writes below it, then
 *                              shrunk back (munmap of the grown part);
 *                              RLIMIT_STACK bounds MIB (8 MiB here)
 *   survey-vmas split MIB      MIB MiB written, its middle third made
 *                              read-only (three VMAs), the rest written
 *                              again after MADV_DONTNEED
 *   survey-vmas mremap MIB     MIB MiB written, moved (mremap to a range
 *                              reserved for it) 100 ms later and written
 *                              again after MADV_DONTNEED (perf records
 *                              no move: the survey's snapshots must see
 *                              the VMA at both places)
 *   survey-vmas fileover MIB   MIB MiB written; 100 ms later a file of
 *                              its last quarter's size (an unnamed file
 *                              in the current directory) mapped private
 *                              over that quarter (MAP_FIXED, as a JVM
 *                              maps its archived heap), each page read,
 *                              then written: MIB * 64 copies of the
 *                              file's pages, none of the VMA's
 *
 * Each writes one byte per page; the VMA's pages are faulted 2 * MIB *
 * 256 times in all (growdown: MIB * 256 times; fileover: MIB * 256, and
 * the file's pages MIB * 64 times, and read with fault-around).  No pause (but before
 * the move): the changes happen between two snapshots.  It then waits 100 ms, so that the
 * survey sees the final VMA.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static const struct timespec pause_ms = { 0, 100 * 1000 * 1000 };

static void touch(char *p, size_t len, size_t page)
{
	size_t i;

	for (i = 0; i < len; i += page)
		p[i] = 1;
}

/* Writes below a one-page MAP_GROWSDOWN mapping grow it down. */
static int growdown(size_t len, size_t page)
{
	char *base = mmap(NULL, len + page, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *top;
	size_t i;

	if (base == MAP_FAILED)
		return -1;
	/* A hole for the growth, the growable page at its top. */
	munmap(base, len + page);
	top = mmap(base + len, page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_GROWSDOWN | MAP_FIXED_NOREPLACE,
		   -1, 0);
	if (top == MAP_FAILED)
		return -1;
	for (i = page; i <= len; i += page)
		top[-(long)i] = 1;
	/* Shrunk back to its page. */
	return munmap(base, len);
}

static int split(size_t len, size_t page)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t third = len / 3 / page * page;

	if (p == MAP_FAILED)
		return -1;
	touch(p, len, page);
	if (mprotect(p + third, third, PROT_READ) ||
	    madvise(p, len, MADV_DONTNEED))
		return -1;
	touch(p, third, page);
	touch(p + 2 * third, len - 2 * third, page);
	/* The read-only third: read faults. */
	for (size_t i = third; i < 2 * third; i += page)
		*(volatile char *)(p + i);
	return 0;
}

static int moved(size_t len, size_t page)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *to = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	char *q;

	if (p == MAP_FAILED || to == MAP_FAILED)
		return -1;
	touch(p, len, page);
	/* perf records no move: snapshots see each place (see main). */
	nanosleep(&pause_ms, NULL);
	q = mremap(p, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, to);
	if (q == MAP_FAILED || madvise(q, len, MADV_DONTNEED))
		return -1;
	touch(q, len, page);
	return 0;
}

/* An unnamed file in the current directory: O_TMPFILE, or where the
 * file system has none a new name removed at once. */
static int unnamed_file(void)
{
	char name[] = "survey-vmas.XXXXXX";
	int fd = open(".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd >= 0)
		return fd;
	fd = mkstemp(name);
	if (fd >= 0)
		unlink(name);
	return fd;
}

/* An unnamed file of len bytes, each page written (in the page cache),
 * in the current directory; -1 where it cannot be made. */
static int page_cached_file(size_t len, size_t page)
{
	char *buf = malloc(page);
	int fd = unnamed_file();

	if (!buf || fd < 0) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	memset(buf, 7, page);
	for (size_t off = 0; off < len; off += page)
		if (pwrite(fd, buf, page, (off_t)off) != (ssize_t)page) {
			close(fd);
			fd = -1;
			break;
		}
	free(buf);
	return fd;
}

static int file_over(size_t len, size_t page)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t quarter = len / 4 / page * page;
	char *q;
	int fd;

	if (p == MAP_FAILED)
		return -1;
	touch(p, len, page);
	/* Snapshots see the VMA whole before the file comes. */
	nanosleep(&pause_ms, NULL);
	fd = page_cached_file(quarter, page);
	if (fd < 0)
		return -1;
	q = mmap(p + len - quarter, quarter, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_FIXED, fd, 0);
	close(fd);
	if (q == MAP_FAILED)
		return -1;
	for (size_t i = 0; i < quarter; i += page)
		*(volatile char *)(q + i);
	touch(q, quarter, page);
	return 0;
}

int main(int argc, char **argv)
{
	struct timespec hold = { 0, 100 * 1000 * 1000 };
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t len;
	int ret;

	if (argc != 3 || !(len = strtoul(argv[2], NULL, 10) << 20)) {
		fprintf(stderr,
			"usage: survey-vmas growdown|split|mremap|fileover MIB\n");
		return 2;
	}
	if (!strcmp(argv[1], "growdown"))
		ret = growdown(len, page);
	else if (!strcmp(argv[1], "split"))
		ret = split(len, page);
	else if (!strcmp(argv[1], "mremap"))
		ret = moved(len, page);
	else if (!strcmp(argv[1], "fileover"))
		ret = file_over(len, page);
	else
		ret = -2;
	if (ret == -2) {
		fprintf(stderr, "survey-vmas: %s: no such case\n", argv[1]);
		return 2;
	}
	if (ret) {
		perror("survey-vmas");
		return 1;
	}
	nanosleep(&hold, NULL);
	return 0;
}
