/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * check-util.h - helpers shared by the Check suites: skips, /proc readers.
 *
 * Copyright (C) 2026 The libfaultgen authors
 *
 * Check has no notion of a skipped test.  A test that lacks a privilege or
 * a kernel feature calls FGC_SKIP(), which prints the reason, records it in
 * a page shared with the runner (tests run in forked children) and returns.
 * fgc_main() lists the skips at the end and exits 77 when every test of the
 * binary skipped, so the test driver reports SKIP only when nothing ran.
 */
#ifndef FGC_CHECK_UTIL_H
#define FGC_CHECK_UTIL_H

#include "config.h" /* _GNU_SOURCE for CPU_ALLOC and friends */

#include <check.h>
#include <dirent.h>
#include <linux/perf_event.h>
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "faultgen.h"

#define FGC_MAX_SKIPS 128
#define FGC_SKIP_LEN 200

struct fgc_skips {
	_Atomic unsigned int n;
	char why[FGC_MAX_SKIPS][FGC_SKIP_LEN];
};

/* Set up by fgc_main before any test forks; shared with the tests. */
static struct fgc_skips *fgc_skips;

static inline void fgc_skip_note(const char *fn, int iter, const char *fmt,
				 ...)
{
	char reason[FGC_SKIP_LEN - 64];
	size_t n = strlen(fn);
	unsigned int slot;
	va_list ap;

	/* START_TEST names the function <test>_fn. */
	if (n > 3 && strcmp(fn + n - 3, "_fn") == 0)
		n -= 3;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	fprintf(stderr, "SKIP: %.*s[%d]: %s\n", (int)n, fn, iter, reason);
	if (!fgc_skips)
		return;
	slot = atomic_fetch_add(&fgc_skips->n, 1);
	if (slot < FGC_MAX_SKIPS) {
		char *why = fgc_skips->why[slot];

		/*
		 * Cut to the slot, the name first (to 64 bytes, which every
		 * test name fits), then the reason to what is left: so that
		 * the compiler sees the bounds (-Wformat-truncation=2).
		 */
		snprintf(why, FGC_SKIP_LEN,
			 "%.*s[%d]: ", (int)(n < 64 ? n : 64), fn, iter);
		strncat(why, reason, FGC_SKIP_LEN - 1 - strlen(why));
	}
}

/* Only inside a START_TEST body: notes the reason and ends the test. */
#define FGC_SKIP(...)                                                         \
	do {                                                                  \
		fgc_skip_note(__func__, _i, __VA_ARGS__);                     \
		return;                                                       \
	} while (0)

static inline int fgc_main(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed, ran;
	unsigned int skipped;

	fgc_skips = mmap(NULL, sizeof(*fgc_skips), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (fgc_skips == MAP_FAILED) {
		perror("mmap");
		return 99;
	}
	/* Verbose by default: the test log then names every test. */
	srunner_run_all(sr, getenv("CK_VERBOSITY") ? CK_ENV : CK_VERBOSE);
	failed = srunner_ntests_failed(sr);
	ran = srunner_ntests_run(sr);
	srunner_free(sr);
	skipped = atomic_load(&fgc_skips->n);
	for (unsigned int i = 0; i < skipped && i < FGC_MAX_SKIPS; i++)
		printf("SKIP: %s\n", fgc_skips->why[i]);
	printf("%d tests, %d failed, %u skipped\n", ran, failed, skipped);
	if (failed)
		return 1;
	if (ran > 0 && skipped >= (unsigned int)ran)
		return 77;
	return 0;
}

/* ---- environment --------------------------------------------------- */

static inline long fgc_pagesize(void)
{
	return sysconf(_SC_PAGESIZE);
}

static inline bool fgc_is_root(void)
{
	return geteuid() == 0;
}

/* AddressSanitizer reserves terabytes of shadow: RLIMIT_AS tests cannot
 * run under it. */
#if defined(__SANITIZE_ADDRESS__)
#define FGC_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FGC_ASAN 1
#endif
#endif
#ifndef FGC_ASAN
#define FGC_ASAN 0
#endif

static inline bool fgc_under_sanitizer(void)
{
	return FGC_ASAN || getenv("ASAN_OPTIONS") || getenv("LSAN_OPTIONS");
}

/* CPUs of the calling thread's affinity mask (the library's view is what
 * is tested, so this is read independently). */
static inline int fgc_affinity_count(void)
{
	size_t size = CPU_ALLOC_SIZE(8192);
	cpu_set_t *set = CPU_ALLOC(8192);
	int n = -1;

	if (!set)
		return -1;
	CPU_ZERO_S(size, set);
	if (sched_getaffinity(0, size, set) == 0)
		n = CPU_COUNT_S(size, set);
	CPU_FREE(set);
	return n;
}

static inline bool fgc_affinity_has(int cpu)
{
	size_t size = CPU_ALLOC_SIZE(8192);
	cpu_set_t *set = CPU_ALLOC(8192);
	bool has = false;

	if (!set)
		return false;
	CPU_ZERO_S(size, set);
	if (sched_getaffinity(0, size, set) == 0)
		has = CPU_ISSET_S((size_t)cpu, size, set);
	CPU_FREE(set);
	return has;
}


/* The first (last: the highest) CPU of the calling thread's affinity
 * mask, or -1. */
static inline int fgc_affinity_edge(bool last)
{
	size_t size = CPU_ALLOC_SIZE(8192);
	cpu_set_t *set = CPU_ALLOC(8192);
	int edge = -1;

	if (!set)
		return -1;
	CPU_ZERO_S(size, set);
	if (sched_getaffinity(0, size, set) == 0)
		for (int c = 0; c < 8192; c++)
			if (CPU_ISSET_S((size_t)c, size, set)) {
				edge = c;
				if (!last)
					break;
			}
	CPU_FREE(set);
	return edge;
}

/* The page faults the calling thread takes in user mode while it runs
 * on cpu (a software event: no privilege needed), with those of the
 * processes it forks after (inherit), or -1 with errno. */
static inline int fgc_faults_on_cpu(int cpu, bool inherit)
{
	struct perf_event_attr pa;

	memset(&pa, 0, sizeof(pa));
	pa.size = sizeof(pa);
	pa.type = PERF_TYPE_SOFTWARE;
	pa.config = PERF_COUNT_SW_PAGE_FAULTS;
	pa.exclude_kernel = 1;
	pa.exclude_hv = 1;
	pa.inherit = inherit;
	return (int)syscall(SYS_perf_event_open, &pa, 0, cpu, -1, 0);
}

/* The count of fgc_faults_on_cpu's fd, which it closes. */
static inline uint64_t fgc_count_of(int fd)
{
	uint64_t v = 0;

	ck_assert_int_eq(read(fd, &v, sizeof(v)), (ssize_t)sizeof(v));
	close(fd);
	return v;
}

/*
 * Moves the calling thread onto cpu and gives it its mask back: it keeps
 * running there (until the scheduler moves it), its affinity as it was.
 * A thread the library should place elsewhere is then, unplaced, seen
 * where it was left.
 */
static inline void fgc_leave_on(int cpu)
{
	size_t size = CPU_ALLOC_SIZE(8192);
	cpu_set_t *saved = CPU_ALLOC(8192), *one = CPU_ALLOC(8192);

	ck_assert_ptr_nonnull(saved);
	ck_assert_ptr_nonnull(one);
	ck_assert_int_eq(sched_getaffinity(0, size, saved), 0);
	CPU_ZERO_S(size, one);
	CPU_SET_S((size_t)cpu, size, one);
	ck_assert_int_eq(sched_setaffinity(0, size, one), 0);
	ck_assert_int_eq(sched_setaffinity(0, size, saved), 0);
	CPU_FREE(one);
	CPU_FREE(saved);
}
/* Reads a small file into buf, NUL-terminated; its length or -errno. */
static inline int fgc_read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return (int)n;
}

/* ---- /proc/self/maps ------------------------------------------------ */

struct fgc_vma {
	unsigned long start, end;
	char perms[8];
	char path[1024];
};

/* Reads every VMA of this process; returns the count, *out malloc'ed. */
static inline int fgc_maps_read(struct fgc_vma **out)
{
	struct fgc_vma *v = NULL;
	size_t n = 0, cap = 0;
	char line[1024];
	FILE *f = fopen("/proc/self/maps", "re");

	*out = NULL;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		struct fgc_vma e;
		int pathoff = 0;

		memset(&e, 0, sizeof(e));
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %n", &e.start, &e.end,
			   e.perms, &pathoff) < 3)
			continue;
		if (pathoff > 0) {
			snprintf(e.path, sizeof(e.path), "%s", line + pathoff);
			e.path[strcspn(e.path, "\n")] = '\0';
		}
		if (n == cap) {
			struct fgc_vma *nv;

			cap = cap ? 2 * cap : 256;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				fclose(f);
				return -ENOMEM;
			}
			v = nv;
		}
		v[n++] = e;
	}
	fclose(f);
	*out = v;
	return (int)n;
}

/* The VMAs that overlap [addr, addr+len): count, and the first in *first. */
static inline int fgc_vmas_over(const struct fgc_vma *v, int n, void *addr,
				size_t len, int *first)
{
	unsigned long lo = (unsigned long)addr, hi = lo + len;
	int count = 0;

	*first = -1;
	if (!v)
		return 0;
	for (int i = 0; i < n; i++) {
		if (v[i].end <= lo || v[i].start >= hi)
			continue;
		if (*first < 0)
			*first = i;
		count++;
	}
	return count;
}

/* The VmFlags line of the smaps entry holding addr ("rd wr mr ...").
 * The entry may start below addr: a mapping merges with a neighbour of
 * the same flags (a thread stack is VM_NOHUGEPAGE since Linux 6.7, as
 * a region advised MADV_NOHUGEPAGE is). */
static inline int fgc_vmflags(void *addr, char *buf, size_t len)
{
	char line[1024];
	bool in = false;
	FILE *f = fopen("/proc/self/smaps", "re");
	int ret = -ENOENT;
	unsigned long lo, hi, a = (unsigned long)addr;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		/* A header: "lo-hi perms ..." (no field name holds '-'
		 * after a hex digit). */
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
			in = lo <= a && a < hi;
		else if (in && strncmp(line, "VmFlags:", 8) == 0) {
			/* " rd wr ... ": every flag between two blanks. */
			size_t n = strcspn(line + 8, "\n");

			if (len < 3)
				break;
			if (n > len - 3)
				n = len - 3;
			buf[0] = ' ';
			memcpy(buf + 1, line + 8, n);
			buf[n + 1] = ' ';
			buf[n + 2] = '\0';
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

static inline bool fgc_vmflag_has(const char *flags, const char *flag)
{
	char want[8];

	snprintf(want, sizeof(want), " %s ", flag);
	return strstr(flags, want) != NULL;
}

/* ---- SysV segments and children ------------------------------------- */

/*
 * Segments created by process cpid (other suites and other users create
 * their own at the same time, so only ours are counted).  *mode gets the
 * perms field of the last one (SHM_DEST, SHM_LOCKED live there).
 */
static inline int fgc_shm_count(pid_t cpid, unsigned int *mode)
{
	char line[512];
	FILE *f = fopen("/proc/sysvipc/shm", "re");
	int n = 0;

	if (!f)
		return -errno;
	if (!fgets(line, sizeof(line), f)) { /* the header */
		fclose(f);
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		long key, id, pid;
		unsigned int perms;
		unsigned long size;

		if (sscanf(line, "%ld %ld %o %lu %ld", &key, &id, &perms, &size,
			   &pid) != 5)
			continue;
		if (pid != cpid)
			continue;
		if (mode)
			*mode = perms;
		n++;
	}
	fclose(f);
	return n;
}

/* Live (or zombie) processes whose parent is ppid, up to max in pids. */
static inline int fgc_children(pid_t ppid, pid_t *pids, int max)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char path[300], buf[1024], *p;
		long pid = strtol(de->d_name, &p, 10);
		int ppid_of = -1;
		FILE *f;

		if (*p || pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f)) {
			/* The name may hold spaces and parentheses. */
			p = strrchr(buf, ')');
			if (p && sscanf(p + 1, " %*c %d", &ppid_of) != 1)
				ppid_of = -1;
		}
		fclose(f);
		if (ppid_of == ppid) {
			if (n < max)
				pids[n] = (pid_t)pid;
			n++;
		}
	}
	closedir(d);
	return n;
}

/* Threads of this process. */
static inline int fgc_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/*
 * Threads of this process once the count has come down to want: a joined
 * thread can linger in /proc/self/task for a moment after pthread_join.
 * Gives up after a few seconds and returns what it sees.
 */
static inline int fgc_threads_settle(int want)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int n = fgc_threads();

	for (int i = 0; i < 500 && n != want; i++) {
		nanosleep(&ts, NULL);
		n = fgc_threads();
	}
	return n;
}

/* True when this process has no child left, reaped or not. */
static inline bool fgc_no_children(void)
{
	pid_t p = waitpid(-1, NULL, WNOHANG);

	return p < 0 && errno == ECHILD;
}

/* ---- running -------------------------------------------------------- */

/* The pages a shared-VMA or per-thread run of size bytes touches, as
 * pft 0.12x counts them: whole pages, then whole slices. */
static inline uint64_t fgc_pages_for(uint64_t size, unsigned int workers)
{
	uint64_t ps = (uint64_t)fgc_pagesize();
	uint64_t pages = (size + ps - 1) / ps;

	return (pages + workers - 1) / workers * workers;
}

/* Pages of [addr, addr + len) resident in this process (mincore). */
static inline uint64_t fgc_resident_pages(void *addr, size_t len)
{
	size_t ps = (size_t)fgc_pagesize(), n = (len + ps - 1) / ps;
	unsigned char *vec = malloc(n ? n : 1);
	uint64_t in = 0;

	ck_assert_ptr_nonnull(vec);
	ck_assert_int_eq(mincore(addr, len, vec), 0);
	for (size_t i = 0; i < n; i++)
		in += vec[i] & 1;
	free(vec);
	return in;
}

/* |measured - expected| within 1% plus a small slack per worker. */
static inline bool fgc_close(uint64_t expected, uint64_t measured,
			     unsigned int workers)
{
	uint64_t slack = expected / 100 + 64 + 16 * (uint64_t)workers;

	return measured + slack >= expected && measured <= expected + slack;
}

/*
 * No major fault of the memory's own (nothing read from a disk), where
 * the kernel may still count a stray one: a fault that had to retry
 * twice (a page locked by someone else, compaction, khugepaged) counts
 * as major (mm_account_fault: FAULT_FLAG_TRIED), as does a code page
 * read back from disk.  At most one a worker, of hundreds of pages.
 */
#define fgc_assert_no_major(r, what)                                       \
	ck_assert_msg((r)->majflt <= (r)->workers,                          \
		      "%s: %llu major faults (%llu pages, %u workers)", what, \
		      (unsigned long long)(r)->majflt,                      \
		      (unsigned long long)(r)->pages, (r)->workers)

/* Turns oversubscription on when the affinity mask has fewer CPUs than
 * workers, so that multi-worker tests run on one CPU too. */
static inline void fgc_allow_workers(struct faultgen_attr *a, unsigned int n)
{
	int cpus = fgc_affinity_count();

	if (cpus > 0 && (unsigned int)cpus < n)
		ck_assert_int_eq(faultgen_attr_set_oversubscribe(a, 1), 0);
}

/* faultgen_attr_check refuses a (-EINVAL) naming setting (and the
 * setting it conflicts with, or -1 not to look): macros, so that a
 * failure names the test's line. */
#define FGC_ASSERT_CONFLICT_WITH(a, want, want_with)                          \
	do {                                                                  \
		struct faultgen_conflict fgc_c_ = { .size = sizeof(fgc_c_) }; \
		ck_assert_int_eq(faultgen_attr_check((a), &fgc_c_), -EINVAL); \
		ck_assert_int_eq(fgc_c_.setting, (want));                     \
		if ((int)(want_with) >= 0)                                    \
			ck_assert_int_eq(fgc_c_.with, (want_with));           \
	} while (0)
#define FGC_ASSERT_CONFLICT(a, want) FGC_ASSERT_CONFLICT_WITH(a, want, -1)

/* Figure `name` of a run (faultgen_run_figure), or `missing` when the
 * run has none such. */
static inline double fgc_figure_or(const struct faultgen_run *run,
				   const char *name, double missing)
{
	struct faultgen_figure f = { .size = sizeof(f) };
	int n = faultgen_run_figure(run, 0, &f);

	for (int i = 0; i < n; i++) {
		ck_assert_int_eq(faultgen_run_figure(run, (unsigned int)i, &f),
				 n);
		if (!strcmp(f.name, name))
			return f.value;
	}
	return missing;
}

#endif /* FGC_CHECK_UTIL_H */
