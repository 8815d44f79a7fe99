// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * thp.c - what the kernel says about transparent huge pages: the sysfs
 * settings (only read, never written), which ranges are PMD-mapped
 * (PAGEMAP_SCAN, or AnonHugePages in smaps where the kernel lacks it),
 * and MADV_COLLAPSE itself.
 *
 * A file that is missing means the kernel lacks the feature; a file that
 * is there but cannot be read (no descriptor left, no permission) is an
 * error, never taken for a THP setting.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define THP_SYSFS "/sys/kernel/mm/transparent_hugepage"

/* PAGEMAP_SCAN (Linux 6.7) is newer than the C library's headers. */
struct fg_page_region {
	uint64_t start, end, categories;
};

struct fg_pm_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask;
	uint64_t return_mask;
};

#define FG_PAGEMAP_SCAN _IOWR('f', 16, struct fg_pm_scan_arg)
#define FG_PAGE_IS_HUGE (1ULL << 6)

/*
 * MADV_COLLAPSE of one range.  EAGAIN is transient (a page still in a
 * per-CPU LRU batch, a page lock held for a moment): the range is tried
 * up to COLLAPSE_TRIES times before its failure counts.
 */
#define COLLAPSE_TRIES 3

/* The PMD size: the sysfs value, or 2 MiB on a kernel without THP. */
int fg_hpage_size(size_t *size)
{
	uint64_t v;
	int ret = fg_read_number(THP_SYSFS "/hpage_pmd_size", &v);

	*size = FG_HPAGE_SIZE;
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	if (v >= 4096 && v <= SIZE_MAX / 4 && !(v & (v - 1)))
		*size = (size_t)v;
	return 0;
}

/*
 * The PMD-size THP mode: 1 when khugepaged may collapse (always or
 * madvise), 0 for never or a kernel without THP, -errno when the setting
 * is there but cannot be read.
 */
int fg_thp_pmd_on(size_t hpage)
{
	char path[128], buf[128];
	int n;

	snprintf(path, sizeof(path), THP_SYSFS "/hugepages-%zukB/enabled",
		 hpage >> 10);
	n = fg_read_file(path, buf, sizeof(buf));
	if (n < 0 && n != -ENOENT)
		return n;
	if (n <= 0 || strstr(buf, "[inherit]")) {
		n = fg_read_file(THP_SYSFS "/enabled", buf, sizeof(buf));
		if (n == -ENOENT)
			return 0;
		if (n < 0)
			return n;
	}
	return strstr(buf, "[always]") || strstr(buf, "[madvise]");
}

/* khugepaged's count of full scans (0 without khugepaged). */
int fg_khugepaged_full_scans(uint64_t *scans)
{
	int ret = fg_read_number(THP_SYSFS "/khugepaged/full_scans", scans);

	if (ret == -ENOENT) {
		*scans = 0;
		return 0;
	}
	return ret;
}

int fg_madv_collapse(void *addr, size_t len)
{
	int err = 0;

	for (int t = 0; t < COLLAPSE_TRIES; t++) {
		err = madvise(addr, len, MADV_COLLAPSE) < 0 ? -errno : 0;
		if (err != -EAGAIN)
			break;
		sched_yield();
	}
	return err;
}

/*
 * A writable control range: MADV_COLLAPSE of 4 KiB pages that nothing
 * stops from collapsing.  Tells "refuses read-only" (this succeeds) from
 * "does not know MADV_COLLAPSE" (EINVAL here too).
 */
FG_TESTABLE int fg_collapse_probe(void)
{
	size_t hp, ps = (size_t)fg_pagesize();
	uintptr_t at;
	char *p;
	int ret = fg_hpage_size(&hp);

	if (ret)
		return ret;
	p = mmap(NULL, 2 * hp, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	at = ((uintptr_t)p + hp - 1) & ~(uintptr_t)(hp - 1);
	madvise((void *)at, hp, MADV_NOHUGEPAGE);
	for (size_t off = 0; off < hp; off += ps)
		((volatile char *)at)[off] = 1;
	madvise((void *)at, hp, MADV_HUGEPAGE);
	ret = fg_madv_collapse((void *)at, hp);
	munmap(p, 2 * hp);
	return ret;
}

/* Sums the smaps fields named in keys (NULL-terminated, e.g.
 * "AnonHugePages:") of the VMAs overlapping [addr, addr+len), in kB. */
int fg_smaps_sum(const void *addr, size_t len, const char *const *keys,
		 uint64_t *kb)
{
	uintptr_t lo = (uintptr_t)addr, hi = lo + len;
	bool inside = false;
	char line[512];
	FILE *f;

	*kb = 0;
	f = fopen("/proc/self/smaps", "re");
	if (!f)
		return errno == ENOENT ? -EOPNOTSUPP : -errno;
	while (fgets(line, sizeof(line), f)) {
		char *end, *end2;
		unsigned long vs = strtoul(line, &end, 16), ve;

		/* A VMA's first line: "start-end perms ..." */
		if (end != line && *end == '-') {
			ve = strtoul(end + 1, &end2, 16);
			if (*end2 == ' ') {
				inside = vs < hi && ve > lo;
				continue;
			}
		}
		for (const char *const *k = keys; inside && *k; k++) {
			size_t n = strlen(*k);

			if (!strncmp(line, *k, n)) {
				*kb += strtoull(line + n, NULL, 10);
				break;
			}
		}
	}
	fclose(f);
	return 0;
}

/* Sums AnonHugePages of the VMAs overlapping [addr, addr+len), in kB. */
FG_TESTABLE int fg_smaps_anon_huge(const void *addr, size_t len,
				   uint64_t *kb)
{
	static const char *const keys[] = { "AnonHugePages:", NULL };

	return fg_smaps_sum(addr, len, keys, kb);
}

/*
 * /proc/self/pagemap for fg_pagemap_huge: a descriptor, -EOPNOTSUPP where
 * the kernel has no PAGEMAP_SCAN (or no pagemap), or -errno when the
 * descriptor cannot be had.
 */
int fg_pagemap_open(void)
{
	size_t ps = (size_t)fg_pagesize();
	bool huge = false;
	int fd, ret;
	char *page;

	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == EACCES ? -EOPNOTSUPP :
							    -errno;
	/* One scan of a page of our own tells whether the ioctl exists. */
	page = mmap(NULL, ps, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		close(fd);
		return -ENOMEM;
	}
	ret = fg_pagemap_huge(fd, page, ps, ps, &huge);
	munmap(page, ps);
	if (ret < 0) {
		close(fd);
		return ret == -EINVAL || ret == -ENOTTY ? -EOPNOTSUPP : ret;
	}
	return fd;
}

/* Marks in huge[] the hpage ranges of [start, start+len) met in vec. */
static int mark_huge(const struct fg_page_region *vec, int n,
		     uintptr_t start, uintptr_t end, size_t hpage, bool *huge)
{
	int count = 0;

	for (int i = 0; i < n; i++) {
		uint64_t a = vec[i].start & ~(uint64_t)(hpage - 1);

		for (; a < vec[i].end && a < end; a += hpage) {
			size_t r;

			if (a < start)
				continue;
			r = (a - start) / hpage;
			count += !huge[r];
			huge[r] = true;
		}
	}
	return count;
}

/*
 * Which hpage ranges of [start, start+len) (start hpage-aligned) are
 * PMD-mapped now, by PAGEMAP_SCAN over that region only: huge[r] for
 * range r.  Returns how many are, or -errno.
 */
int fg_pagemap_huge(int fd, const char *start, size_t len, size_t hpage,
		    bool *huge)
{
	struct fg_page_region vec[16];
	struct fg_pm_scan_arg arg;
	uintptr_t lo = (uintptr_t)start, at = lo, end = lo + len;
	int count = 0;

	for (size_t r = 0; r < len / hpage; r++)
		huge[r] = false;
	do {
		int n;

		memset(&arg, 0, sizeof(arg));
		/* The kernel fills vec; cleared so that valgrind, which does
		 * not know this ioctl, sees it written. */
		memset(vec, 0, sizeof(vec));
		arg.size = sizeof(arg);
		arg.start = at;
		arg.end = end;
		arg.vec = (uintptr_t)vec;
		arg.vec_len = sizeof(vec) / sizeof(vec[0]);
		arg.category_mask = FG_PAGE_IS_HUGE;
		arg.return_mask = FG_PAGE_IS_HUGE;
		n = ioctl(fd, FG_PAGEMAP_SCAN, &arg);
		if (n < 0)
			return -errno;
		count += mark_huge(vec, n, lo, end, hpage, huge);
		if (arg.walk_end <= at)
			break;
		at = arg.walk_end;
	} while (at < end);
	return count;
}
