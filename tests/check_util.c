// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * check_util.c - the library's small helpers: reading a number from a
 * sysfs-style file, /proc/vmstat counters, and the cacheline size it
 * writes at.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "check-util.h"

#include <fcntl.h>

#include "internal.h"

/* A file of this test holding text; its path in path (freed by unlink). */
static void file_with(char *path, size_t len, const char *text)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	snprintf(path, len, "%s/fg-util.XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static int number_in(const char *text, uint64_t *val)
{
	char path[256];
	int ret;

	file_with(path, sizeof(path), text);
	ret = fg_read_number(path, val);
	unlink(path);
	return ret;
}

START_TEST(reads_a_number_alone_in_a_file)
{
	uint64_t v = 0;

	ck_assert_int_eq(number_in("42\n", &v), 0);
	ck_assert_uint_eq(v, 42);
	ck_assert_int_eq(number_in("4096", &v), 0);
	ck_assert_uint_eq(v, 4096);
	ck_assert_int_eq(number_in("18446744073709551615\n", &v), 0);
	ck_assert_uint_eq(v, UINT64_MAX);
}
END_TEST

START_TEST(refuses_what_is_not_one_number)
{
	static const char *const bad[] = {
		"", "\n", "abc\n", "12 34\n", "12abc", "18446744073709551616",
	};
	uint64_t v = 7;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(number_in(bad[i], &v) == -EINVAL, "\"%s\"",
			      bad[i]);
		ck_assert_uint_eq(v, 7);
	}
	ck_assert_int_eq(fg_read_number("/nonexistent/fg-util", &v), -ENOENT);
	ck_assert_uint_eq(v, 7);
}
END_TEST

START_TEST(vmstat_reads_named_counters)
{
	const char *const names[] = { "pgfault", "fg_no_such_counter" };
	uint64_t before[2], after[2];
	size_t ps = (size_t)fgc_pagesize();
	char *p;

	ck_assert_int_eq(fg_vmstat_read(names, before, 2), 1);
	ck_assert_uint_eq(before[1], 0);
	p = mmap(NULL, 256 * ps, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(p, MAP_FAILED);
	madvise(p, 256 * ps, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < 256; i++)
		p[i * ps] = 1;
	ck_assert_int_eq(fg_vmstat_read(names, after, 2), 1);
	/* System-wide: others fault too, but ours are in it. */
	ck_assert_uint_ge(after[0] - before[0], 256);
	munmap(p, 256 * ps);
}
END_TEST

/*
 * The C library's level-1 data cacheline, or pft 0.12x's 128 when it
 * does not know one that fits in a page; and the limit of
 * faultgen_attr_set_cachelines follows from it.
 */
START_TEST(cacheline_size_is_the_c_librarys_or_128)
{
	long libc = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
	unsigned int cl = faultgen_cacheline_size();
	unsigned int ps = (unsigned int)fgc_pagesize();
	struct faultgen_attr *a;

	if (libc > 0 && libc <= (long)ps)
		ck_assert_uint_eq(cl, (unsigned int)libc);
	else
		ck_assert_uint_eq(cl, 128);
	ck_assert_uint_eq(cl & (cl - 1), 0); /* a power of two */
	ck_assert_uint_eq(ps % cl, 0);
	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_cachelines(a, ps / cl), 0);
	ck_assert_int_eq(faultgen_attr_set_cachelines(a, ps / cl + 1),
			 -EINVAL);
	faultgen_attr_free(a);
}
END_TEST

static Suite *util_suite(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("files");

	tcase_add_test(tc, reads_a_number_alone_in_a_file);
	tcase_add_test(tc, refuses_what_is_not_one_number);
	tcase_add_test(tc, vmstat_reads_named_counters);
	suite_add_tcase(s, tc);

	tc = tcase_create("machine");
	tcase_add_test(tc, cacheline_size_is_the_c_librarys_or_128);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return fgc_main(util_suite());
}
