// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * util.c - clocks, futexes and small file readers shared by the library.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int64_t fg_clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t fg_now_ns(void)
{
	return fg_clock_ns(CLOCK_MONOTONIC);
}

/*
 * len bytes for figures the workers write into *p: shared with forked
 * workers (processes, or a pattern's own, fg_pattern.forks), private to
 * threads (no shmem object to set up and tear
 * down).  noreserve: pages are touched only as they are used.
 */
int fg_map_figures(const struct faultgen_run *run, size_t len,
		   bool noreserve, void **p)
{
	bool forked = run->attr.kind == FAULTGEN_PROCESSES ||
		      (run->ops && run->ops->forks);

	*p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		  (forked ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS |
			  (noreserve ? MAP_NORESERVE : 0),
		  -1, 0);
	return *p == MAP_FAILED ? -errno : 0;
}

long fg_pagesize(void)
{
	return sysconf(_SC_PAGESIZE);
}

unsigned int fg_cacheline(void)
{
	long cl = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);

	/* 0.12x's fallback when the C library does not know the size. */
	if (cl <= 0 || cl > fg_pagesize())
		return 128;
	return (unsigned int)cl;
}

/* Shared (not FUTEX_PRIVATE) so that forked workers can use the words. */
int fg_futex_wait(_Atomic uint32_t *word, uint32_t val, int64_t timeout_ns)
{
	struct timespec ts, *tsp = NULL;

	if (timeout_ns >= 0) {
		ts.tv_sec = timeout_ns / 1000000000;
		ts.tv_nsec = timeout_ns % 1000000000;
		tsp = &ts;
	}
	if (syscall(SYS_futex, word, FUTEX_WAIT, val, tsp, NULL, 0) < 0)
		return -errno;
	return 0;
}

void fg_futex_wake(_Atomic uint32_t *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

int fg_gettid(void)
{
	return (int)syscall(SYS_gettid);
}

/*
 * Reads a small file into buf, NUL-terminated; returns its length, or
 * -EOVERFLOW when it does not fit (a cut list would name wrong CPUs).
 */
int fg_read_file(const char *path, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;
	char more;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (got + 1 < len) {
		n = read(fd, buf + got, len - 1 - got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			close(fd);
			return (int)n;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got + 1 >= len) {
		do
			n = read(fd, &more, 1);
		while (n < 0 && errno == EINTR);
		if (n > 0) {
			close(fd);
			buf[0] = '\0';
			return -EOVERFLOW;
		}
	}
	close(fd);
	buf[got] = '\0';
	return (int)got;
}

/*
 * Reads a whole file, however long, into a fresh NUL-terminated buffer
 * (*out, the caller frees it); returns its length or -errno.
 */
int fg_read_file_alloc(const char *path, char **out)
{
	size_t cap = 4096, got = 0;
	char *buf = malloc(cap), *p;
	ssize_t n;
	int fd;

	*out = NULL;
	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		n = -errno;
		free(buf);
		return (int)n;
	}
	for (;;) {
		if (got + 1 == cap) {
			p = cap < INT_MAX / 2 ? realloc(buf, cap * 2) : NULL;
			if (!p) {
				n = -ENOMEM;
				break;
			}
			buf = p;
			cap *= 2;
		}
		n = read(fd, buf + got, cap - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			n = n < 0 ? -errno : 0;
			break;
		}
		got += (size_t)n;
	}
	close(fd);
	if (n < 0) {
		free(buf);
		return (int)n;
	}
	buf[got] = '\0';
	*out = buf;
	return (int)got;
}

/*
 * A number alone in a small file, as sysfs gives.  -errno when it cannot
 * be read (a missing file is -ENOENT), -EINVAL when it holds no number.
 */
FG_TESTABLE int fg_read_number(const char *path, uint64_t *val)
{
	char buf[64], *end;
	unsigned long long v;
	int n = fg_read_file(path, buf, sizeof(buf));

	if (n < 0)
		return n;
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n'))
		return -EINVAL;
	*val = v;
	return 0;
}

/*
 * Reads the named /proc/vmstat counters; a counter the kernel lacks reads
 * as 0.  Returns how many were found.
 */
FG_TESTABLE int fg_vmstat_read(const char *const *names, uint64_t *vals,
			       size_t n)
{
	char line[256];
	int found = 0;
	FILE *f;

	memset(vals, 0, n * sizeof(*vals));
	f = fopen("/proc/vmstat", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *sp = strchr(line, ' ');

		if (!sp)
			continue;
		*sp = '\0';
		for (size_t i = 0; i < n; i++) {
			if (strcmp(line, names[i]) == 0) {
				vals[i] = strtoull(sp + 1, NULL, 10);
				found++;
				break;
			}
		}
	}
	fclose(f);
	return found;
}

/*
 * Copies a result struct that starts with its size: min(the caller's
 * size, ours) bytes, keeping the caller's size, so that callers built
 * against an older, shorter struct keep working.
 */
void fg_copy_sized(void *dst, const void *src, size_t ours)
{
	size_t theirs = *(const size_t *)dst;
	size_t n = theirs < ours ? theirs : ours;

	memcpy((char *)dst + sizeof(size_t), (const char *)src + sizeof(size_t),
	       n - sizeof(size_t));
}

/* dir/name is a directory. */
bool fg_is_dir(const char *dir, const char *name)
{
	char path[4096];
	struct stat st;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    sizeof(path))
		return false;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A pattern's figures as a table (its figure callback). */
int fg_figure_pick(const struct fg_figure_row *rows, unsigned int n,
		   unsigned int index, struct faultgen_figure *f)
{
	if (index >= n)
		return -ERANGE;
	f->name = rows[index].name;
	f->value = rows[index].value;
	f->unit = rows[index].unit;
	return (int)n;
}
