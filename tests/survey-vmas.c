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
 *
 * Each writes one byte per page; the VMA's pages are faulted 2 * MIB *
 * 256 times in all (growdown: MIB * 256 times).  No pause (but before
 * the move): the changes happen between two snapshots.  It then waits 100 ms, so that the
 * survey sees the final VMA.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#define _GNU_SOURCE
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

int main(int argc, char **argv)
{
	struct timespec hold = { 0, 100 * 1000 * 1000 };
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t len;
	int ret;

	if (argc != 3 || !(len = strtoul(argv[2], NULL, 10) << 20)) {
		fprintf(stderr, "usage: survey-vmas growdown|split|mremap MIB\n");
		return 2;
	}
	if (!strcmp(argv[1], "growdown"))
		ret = growdown(len, page);
	else if (!strcmp(argv[1], "split"))
		ret = split(len, page);
	else if (!strcmp(argv[1], "mremap"))
		ret = moved(len, page);
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
