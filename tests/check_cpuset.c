// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * check_cpuset.c - reading named cpusets: fake cgroup trees (v1 with and
 * without "cpuset." prefixes, v2) built in a temporary directory (under
 * $TMPDIR, else /tmp), then, as root where the v1 controller is writable,
 * a real child cpuset, fg-check-PID: the test says on stderr when it makes
 * and removes it, and removes those that runs killed before their end left
 * behind.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "check-util.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

#define LONG_BITS (8 * sizeof(unsigned long))
#define BIG 8192

#ifdef HAVE_LIBCPUSET
#define HAVE_LIBCPUSET_VALUE 1
#else
#define HAVE_LIBCPUSET_VALUE 0
#endif

/*
 * A directory under $TMPDIR (make_tree fails cleanly beyond): paths made
 * from it stay below the 4095 bytes snprintf is sure to write
 * (-Wformat-truncation=2).
 */
static char tree[1024];
static char v1[sizeof(tree) + 8], v2[sizeof(tree) + 8];

static void put(const char *dir, const char *name, const char *file,
		const char *text)
{
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (char *p = path + strlen(dir) + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	}
	mkdir(path, 0755);
	if (!file)
		return;
	snprintf(path, sizeof(path), "%s/%s/%s", dir, name, file);
	f = fopen(path, "we");
	if (!f) {
		perror(path);
		return;
	}
	fputs(text, f);
	fclose(f);
}

/* Runs once in the test runner, before the tests of the case fork. */
static void make_tree(void)
{
	const char *tmpdir = getenv("TMPDIR");
	int n;

	if (!tmpdir || !*tmpdir)
		tmpdir = "/tmp";
	n = snprintf(tree, sizeof(tree), "%s/fg-check-cpuset.XXXXXX", tmpdir);
	if (n >= (int)sizeof(tree) || !mkdtemp(tree)) {
		perror(tree);
		tree[0] = '\0';
		return;
	}
	snprintf(v1, sizeof(v1), "%s/v1", tree);
	snprintf(v2, sizeof(v2), "%s/v2", tree);
	mkdir(v1, 0755);
	mkdir(v2, 0755);
	/* The v1 controller as this kernel mounts it: prefixed names. */
	put(v1, "pref", "cpuset.cpus", "2-3\n");
	put(v1, "pref", "cpuset.mems", "0\n");
	put(v1, "pref/child", "cpuset.cpus", "3\n");
	put(v1, "pref/child", "cpuset.mems", "0\n");
	/* The legacy cpuset file system (and the v1 noprefix option). */
	put(v1, "legacy", "cpus", "5,7\n");
	put(v1, "legacy", "mems", "1\n");
	put(v1, "nomems", "cpuset.cpus", "1\n");
	put(v1, "nocpus", "cpuset.cpus", "\n");
	put(v1, "nocpus", "cpuset.mems", "0\n");
	put(v1, "nofiles", NULL, NULL);
	put(v1, "both", "cpuset.cpus", "6\n");
	/* cgroup v2: only the effective lists say what the tasks get. */
	put(v2, "unified", "cpuset.cpus.effective", "0-1\n");
	put(v2, "unified", "cpuset.mems.effective", "0\n");
	put(v2, "unified", "cpuset.cpus", "\n");
	put(v2, "configured-only", "cpuset.cpus", "0\n");
	put(v2, "both", "cpuset.cpus.effective", "9\n");
	put(v2, "v2nomems", "cpuset.cpus.effective", "4-5\n");
	put(v2, "deep/a/b", "cpuset.cpus.effective", "8191\n");
}

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void remove_tree(void)
{
	if (tree[0])
		nftw(tree, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

struct read_case {
	const char *name;
	int ret;
	const char *cpus, *mems, *source;
};

static const struct read_case read_cases[] = {
	{ "pref", 0, "2-3", "0", "cgroup-v1" },
	{ "/pref", 0, "2-3", "0", "cgroup-v1" },
	{ "//pref/child", 0, "3", "0", "cgroup-v1" },
	{ "pref/child", 0, "3", "0", "cgroup-v1" },
	{ "legacy", 0, "5,7", "1", "cgroup-v1" },
	{ "nomems", 0, "1", "", "cgroup-v1" },
	{ "nocpus", -EINVAL, NULL, NULL, NULL },
	{ "both", 0, "6", "", "cgroup-v1" },
	{ "unified", 0, "0-1", "0", "cgroup-v2" },
	{ "v2nomems", 0, "4-5", "", "cgroup-v2" },
	{ "deep/a/b", 0, "8191", "", "cgroup-v2" },
	{ "configured-only", -ENOENT, NULL, NULL, NULL },
	{ "nofiles", -ENOENT, NULL, NULL, NULL },
	{ "nosuch", -ENOENT, NULL, NULL, NULL },
	{ "pref/nosuch", -ENOENT, NULL, NULL, NULL },
	{ "../v1/pref", -EINVAL, NULL, NULL, NULL },
	{ "pref/../legacy", -EINVAL, NULL, NULL, NULL },
};

START_TEST(reads_fake_cpuset_tree)
{
	const struct read_case *c = &read_cases[_i];
	char *cpus = NULL, *mems = NULL;
	const char *source = "untouched";
	int ret;

	ck_assert_msg(tree[0], "no temporary tree");
	ret = fg_cpuset_read(c->name, v1, v2, &cpus, &mems, &source);
	ck_assert_msg(ret == c->ret, "%s: %d, not %d", c->name, ret, c->ret);
	if (ret) {
		ck_assert_ptr_null(cpus);
		ck_assert_ptr_null(mems);
		return;
	}
	ck_assert_str_eq(cpus, c->cpus);
	ck_assert_str_eq(mems ? mems : "", c->mems);
	ck_assert_str_eq(source, c->source);
	free(cpus);
	free(mems);
}
END_TEST

START_TEST(cpuset_lists_parse_as_cpu_lists)
{
	unsigned long mask[BIG / LONG_BITS];
	char *cpus, *mems;
	const char *source;

	ck_assert_int_eq(fg_cpuset_read("deep/a/b", v1, v2, &cpus, &mems,
					&source),
			 0);
	ck_assert_int_eq(faultgen_parse_cpulist(cpus, mask, BIG), 1);
	ck_assert(mask[8191 / LONG_BITS] & (1UL << (8191 % LONG_BITS)));
	free(cpus);
	free(mems);
}
END_TEST

/* Where a program moves itself: the first hierarchy that has the cpuset. */
START_TEST(finds_the_directory_of_a_cpuset)
{
	/* Room for the longest hierarchy and the names below. */
	char buf[sizeof(v1) + 16], want[sizeof(v1) + 16];

	snprintf(want, sizeof(want), "%s/pref/child", v1);
	ck_assert_int_eq(fg_cpuset_dir("/pref/child", v1, v2, buf, sizeof(buf)),
			 0);
	ck_assert_str_eq(buf, want);
	ck_assert_int_eq(fg_cpuset_dir("both", v1, v2, buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "%s/both", v1);
	ck_assert_str_eq(buf, want);
	ck_assert_int_eq(fg_cpuset_dir("deep/a/b", v1, v2, buf, sizeof(buf)),
			 0);
	snprintf(want, sizeof(want), "%s/deep/a/b", v2);
	ck_assert_str_eq(buf, want);
	/* The path and its terminating null byte, or -ENOSPC. */
	ck_assert_int_eq(fg_cpuset_dir("deep/a/b", v1, v2, buf, strlen(want)),
			 -ENOSPC);
	ck_assert_int_eq(fg_cpuset_dir("deep/a/b", v1, v2, buf,
				       strlen(want) + 1),
			 0);
	ck_assert_int_eq(fg_cpuset_dir("nosuch", v1, v2, buf, sizeof(buf)),
			 -ENOENT);
	ck_assert_int_eq(fg_cpuset_dir("pref/../legacy", v1, v2, buf,
				       sizeof(buf)),
			 -EINVAL);
	ck_assert_int_eq(faultgen_cpuset_dir("fg-check-no-such-cpuset", buf,
					     sizeof(buf)),
			 -ENOENT);
	ck_assert_int_eq(faultgen_cpuset_dir("", buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(faultgen_cpuset_dir(NULL, buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(faultgen_cpuset_dir("x", NULL, 8), -EINVAL);
	ck_assert_int_eq(faultgen_cpuset_dir("x", buf, 0), -EINVAL);
	ck_assert_int_eq(faultgen_cpuset_dir("../x", buf, sizeof(buf)),
			 -EINVAL);
}
END_TEST

START_TEST(unknown_cpuset_gives_enoent_from_attr)
{
	struct faultgen_attr *a;
	struct faultgen_run *run;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_cpuset(a, "fg-check-no-such-cpuset"),
			 0);
	ck_assert_int_eq(faultgen_attr_get_cpus(a, NULL, 0), -ENOENT);
	ck_assert_int_eq(faultgen_run_new(a, &run), -ENOENT);
	ck_assert_ptr_null(run);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(reports_no_cpuset_source_without_cpuset)
{
	struct faultgen_attr *a;
	struct faultgen_run *run;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	ck_assert_str_eq(faultgen_run_cpuset_source(run), "");
	ck_assert_str_eq(faultgen_run_cpuset_source(NULL), "");
	faultgen_run_free(run);
	faultgen_attr_free(a);
	ck_assert_int_eq(faultgen_has_libcpuset(), HAVE_LIBCPUSET_VALUE);
}
END_TEST

/* Whether a file whose path contains `name` is mapped. */
static bool mapped(const char *name)
{
	struct fgc_vma *v;
	int n = fgc_maps_read(&v);
	bool found = false;

	ck_assert_int_gt(n, 0);
	ck_assert_ptr_nonnull(v);
	for (int i = 0; v && i < n && !found; i++)
		found = strstr(v[i].path, name) != NULL;
	free(v);
	return found;
}

/*
 * libcpuset is not linked: it is loaded only while a cpuset is read, and
 * every function the library uses resolves in the installed one.
 */
START_TEST(loads_libcpuset_only_while_reading)
{
#ifdef HAVE_LIBCPUSET
	ck_assert(!mapped("libcpuset.so"));
	ck_assert(!mapped("libbitmask.so"));
	ck_assert_int_gt(fg_libcpuset_probe(), 0);
	ck_assert(!mapped("libcpuset.so"));
	ck_assert(!mapped("libbitmask.so"));
#else
	FGC_SKIP("built without libcpuset");
#endif
}
END_TEST

/* ---- a real cpuset -------------------------------------------------- */

#define V1_ROOT "/sys/fs/cgroup/cpuset"

static char real_name[64];  /* relative to the v1 root, "" if none */
static char real_why[512];  /* why there is none */
static int real_cpu = -1;

static int write_file(const char *dir, const char *file, const char *text)
{
	char path[512];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* Cpusets of earlier runs killed before their teardown: their process is
 * gone.  A cpuset that still has tasks is not removable and stays. */
static void remove_stale_cpusets(void)
{
	char dir[PATH_MAX];
	struct dirent *e;
	DIR *d = opendir(V1_ROOT);
	int pid;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "fg-check-", 9) != 0)
			continue;
		pid = (int)strtol(e->d_name + 9, NULL, 10);
		if (pid <= 0 || kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(dir, sizeof(dir), V1_ROOT "/%s", e->d_name);
		if (rmdir(dir) == 0)
			fprintf(stderr, "check_cpuset: removed %s, left by a "
				"run that was killed\n", dir);
	}
	closedir(d);
}

static void make_real_cpuset(void)
{
	char dir[256], mems[256], cpu[16];
	int ret;

	real_name[0] = '\0';
	if (!fgc_is_root()) {
		snprintf(real_why, sizeof(real_why), "making a cpuset needs root");
		return;
	}
	if (access(V1_ROOT "/cpuset.cpus", W_OK)) {
		snprintf(real_why, sizeof(real_why),
			 "no writable v1 cpuset controller at " V1_ROOT);
		return;
	}
	/* The highest allowed CPU: on two CPUs, not the default 0. */
	for (int c = BIG - 1; c >= 0 && real_cpu < 0; c--)
		if (fgc_affinity_has(c))
			real_cpu = c;
	if (fgc_read_file(V1_ROOT "/cpuset.mems", mems, sizeof(mems)) <= 1) {
		snprintf(real_why, sizeof(real_why), "cannot read root mems");
		return;
	}
	remove_stale_cpusets();
	snprintf(real_name, sizeof(real_name), "fg-check-%d", (int)getpid());
	snprintf(dir, sizeof(dir), V1_ROOT "/%s", real_name);
	snprintf(cpu, sizeof(cpu), "%d", real_cpu);
	fprintf(stderr, "check_cpuset: as root, making the cpuset %s (CPU %s); "
		"it is removed when the test case ends\n", dir, cpu);
	if (mkdir(dir, 0755) < 0) {
		snprintf(real_why, sizeof(real_why), "mkdir %s: %s", dir,
			 strerror(errno));
		real_name[0] = '\0';
		return;
	}
	ret = write_file(dir, "cpuset.cpus", cpu);
	if (!ret)
		ret = write_file(dir, "cpuset.mems", mems);
	if (ret) {
		snprintf(real_why, sizeof(real_why), "setting up %s: %s", dir,
			 strerror(-ret));
		rmdir(dir);
		real_name[0] = '\0';
	}
}

static void remove_real_cpuset(void)
{
	char dir[256];

	if (!real_name[0])
		return;
	snprintf(dir, sizeof(dir), V1_ROOT "/%s", real_name);
	if (rmdir(dir) < 0)
		fprintf(stderr, "check_cpuset: cannot remove %s: %s\n", dir,
			strerror(errno));
	else
		fprintf(stderr, "check_cpuset: removed the cpuset %s\n", dir);
}

/* libcpuset works only where the legacy file system shows this set. */
static const char *expected_source(void)
{
	char path[256];

	snprintf(path, sizeof(path), "/dev/cpuset/%s/cpus", real_name);
	if (faultgen_has_libcpuset() && access(path, R_OK) == 0)
		return "libcpuset";
	return "cgroup-v1";
}

static void read_own_cgroup(char *buf, size_t len)
{
	ck_assert_int_ge(fgc_read_file("/proc/self/cgroup", buf, len), 0);
}

START_TEST(runs_workers_inside_real_cpuset)
{
	enum faultgen_workers kind = _i ? FAULTGEN_PROCESSES : FAULTGEN_THREADS;
	unsigned long mask[BIG / LONG_BITS];
	char want[16], got[32], before[4096], after[4096];
	int affinity = fgc_affinity_count();
	struct faultgen_worker_result w;
	struct faultgen_attr *a;
	struct faultgen_run *run;

	if (!real_name[0])
		FGC_SKIP("%s", real_why);
	snprintf(want, sizeof(want), "%d", real_cpu);
	read_own_cgroup(before, sizeof(before));
	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_cpuset(a, real_name), 0);
	ck_assert_int_eq(faultgen_attr_get_cpus(a, mask, BIG), 1);
	ck_assert(mask[real_cpu / LONG_BITS] &
		  (1UL << (real_cpu % LONG_BITS)));
	ck_assert_int_eq(faultgen_attr_set_size(a, 64 * (uint64_t)fgc_pagesize()),
			 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, 2, kind), 0);
	ck_assert_int_eq(faultgen_attr_set_oversubscribe(a, 1), 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	ck_assert_str_eq(faultgen_run_cpuset_source(run), expected_source());
	ck_assert_int_gt(faultgen_run_cpulist(run, got, sizeof(got)), 0);
	ck_assert_str_eq(got, want);
	for (unsigned int i = 0; i < 2; i++) {
		memset(&w, 0, sizeof(w));
		w.size = sizeof(w);
		ck_assert_int_eq(faultgen_run_worker(run, i, &w), 0);
		ck_assert_int_eq(w.last_cpu, real_cpu);
	}
	faultgen_run_free(run);
	faultgen_attr_free(a);
	/* The library reads the cpuset; it never moves its caller. */
	read_own_cgroup(after, sizeof(after));
	ck_assert_str_eq(before, after);
	ck_assert_int_eq(fgc_affinity_count(), affinity);
}
END_TEST

START_TEST(reads_real_cpuset_files)
{
	char want[16], root_mems[256], *cpus, *mems;
	const char *source = NULL;

	if (!real_name[0])
		FGC_SKIP("%s", real_why);
	snprintf(want, sizeof(want), "%d", real_cpu);
	ck_assert_int_gt(fgc_read_file(V1_ROOT "/cpuset.mems", root_mems,
				      sizeof(root_mems)),
			 0);
	root_mems[strcspn(root_mems, "\n")] = '\0';
	ck_assert_int_eq(fg_cpuset_read(real_name, NULL, NULL, &cpus, &mems,
					&source),
			 0);
	ck_assert_str_eq(cpus, want);
	ck_assert_str_eq(mems ? mems : "", root_mems);
	ck_assert_str_eq(source, expected_source());
	free(cpus);
	free(mems);
}
END_TEST

START_TEST(refuses_real_cpuset_outside_affinity)
{
	struct faultgen_attr *a;
	size_t size = CPU_ALLOC_SIZE(BIG);
	cpu_set_t *set;
	int other = -1;

	if (!real_name[0])
		FGC_SKIP("%s", real_why);
	for (int c = 0; c < real_cpu && other < 0; c++)
		if (fgc_affinity_has(c))
			other = c;
	if (other < 0)
		FGC_SKIP("needs a second allowed CPU");
	set = CPU_ALLOC(BIG);
	ck_assert_ptr_nonnull(set);
	CPU_ZERO_S(size, set);
	CPU_SET_S((size_t)other, size, set);
	ck_assert_int_eq(sched_setaffinity(0, size, set), 0);
	CPU_FREE(set);
	/* The cpuset's CPU is outside the caller's mask now. */
	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_cpuset(a, real_name), 0);
	ck_assert_int_eq(faultgen_attr_get_cpus(a, NULL, 0), -ENXIO);
	faultgen_attr_free(a);
}
END_TEST

static Suite *cpuset_suite(void)
{
	Suite *s = suite_create("cpuset");
	TCase *tc = tcase_create("fake-tree");

	tcase_add_unchecked_fixture(tc, make_tree, remove_tree);
	tcase_add_loop_test(tc, reads_fake_cpuset_tree, 0,
			    (int)(sizeof(read_cases) / sizeof(read_cases[0])));
	tcase_add_test(tc, cpuset_lists_parse_as_cpu_lists);
	tcase_add_test(tc, finds_the_directory_of_a_cpuset);
	tcase_add_test(tc, unknown_cpuset_gives_enoent_from_attr);
	tcase_add_test(tc, reports_no_cpuset_source_without_cpuset);
	tcase_add_test(tc, loads_libcpuset_only_while_reading);
	suite_add_tcase(s, tc);

	tc = tcase_create("real");
	tcase_set_timeout(tc, 60);
	tcase_add_unchecked_fixture(tc, make_real_cpuset, remove_real_cpuset);
	tcase_add_test(tc, reads_real_cpuset_files);
	tcase_add_loop_test(tc, runs_workers_inside_real_cpuset, 0, 2);
	tcase_add_test(tc, refuses_real_cpuset_outside_affinity);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return fgc_main(cpuset_suite());
}
