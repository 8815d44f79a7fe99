// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * check_parse.c - the size and CPU-list parsers and the list formatter.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "check-util.h"

#define LONG_BITS (8 * sizeof(unsigned long))
#define BIG 8192

static bool bit(const unsigned long *m, size_t b)
{
	return m[b / LONG_BITS] & (1UL << (b % LONG_BITS));
}

static void set_bit(unsigned long *m, size_t b)
{
	m[b / LONG_BITS] |= 1UL << (b % LONG_BITS);
}

static int popcount(const unsigned long *m, size_t nbits)
{
	int n = 0;

	for (size_t b = 0; b < nbits; b++)
		n += bit(m, b);
	return n;
}

/* ---- sizes ---------------------------------------------------------- */

static const struct {
	const char *str;
	uint64_t bytes;
} good_sizes[] = {
	{ "0", 0 },
	{ "1", 1 },
	{ "4096", 4096 },
	{ "18446744073709551615", UINT64_MAX },
	{ "1k", 1ULL << 10 },
	{ "1K", 1ULL << 10 },
	{ "512m", 512ULL << 20 },
	{ "512M", 512ULL << 20 },
	{ "4g", 4ULL << 30 },
	{ "4G", 4ULL << 30 },
	{ "3t", 3ULL << 40 },
	{ "3T", 3ULL << 40 },
	{ "16777215T", 16777215ULL << 40 },
	{ "007K", 7ULL << 10 },
};

START_TEST(parses_sizes_with_every_suffix)
{
	uint64_t b = 12345;

	ck_assert_int_eq(faultgen_parse_size(good_sizes[_i].str, &b), 0);
	ck_assert_msg(b == good_sizes[_i].bytes, "%s gave %llu",
		      good_sizes[_i].str, (unsigned long long)b);
}
END_TEST

START_TEST(parses_pages_suffix_as_page_size)
{
	uint64_t ps = (uint64_t)fgc_pagesize(), b = 0;

	ck_assert_int_eq(faultgen_parse_size("100P", &b), 0);
	ck_assert_uint_eq(b, 100 * ps);
	ck_assert_int_eq(faultgen_parse_size("1p", &b), 0);
	ck_assert_uint_eq(b, ps);
}
END_TEST

static const struct {
	const char *str;
	int err;
} bad_sizes[] = {
	{ "", -EINVAL },
	{ "K", -EINVAL },
	{ "4GB", -EINVAL },
	{ "4KK", -EINVAL },
	{ "4X", -EINVAL },
	{ "4 ", -EINVAL },
	{ " 4", -EINVAL },
	{ "-1", -EINVAL },
	{ "-4G", -EINVAL },
	{ "+4", -EINVAL },
	{ "0x10", -EINVAL },
	{ "1.5G", -EINVAL },
	{ "4G\n", -EINVAL },
	{ "18446744073709551616", -ERANGE },
	{ "99999999999999999999999", -ERANGE },
	{ "17179869184G", -ERANGE },
	{ "16777216T", -ERANGE },
	{ "18014398509481984K", -ERANGE },
};

START_TEST(rejects_bad_sizes_leaving_output_alone)
{
	uint64_t b = 777;

	ck_assert_msg(faultgen_parse_size(bad_sizes[_i].str, &b) ==
			      bad_sizes[_i].err,
		      "\"%s\" did not give %d", bad_sizes[_i].str,
		      bad_sizes[_i].err);
	ck_assert_uint_eq(b, 777);
}
END_TEST

START_TEST(rejects_null_size_arguments)
{
	uint64_t b;

	ck_assert_int_eq(faultgen_parse_size(NULL, &b), -EINVAL);
	ck_assert_int_eq(faultgen_parse_size("4K", NULL), -EINVAL);
}
END_TEST

/* ---- CPU lists ------------------------------------------------------ */

START_TEST(parses_single_cpu_and_ranges)
{
	unsigned long m[BIG / LONG_BITS];

	ck_assert_int_eq(faultgen_parse_cpulist("5", m, BIG), 1);
	ck_assert(bit(m, 5) && popcount(m, BIG) == 1);
	ck_assert_int_eq(faultgen_parse_cpulist("7-13", m, BIG), 7);
	for (size_t b = 0; b < BIG; b++)
		ck_assert_int_eq(bit(m, b), b >= 7 && b <= 13);
	ck_assert_int_eq(faultgen_parse_cpulist("7,14,21", m, BIG), 3);
	ck_assert(bit(m, 7) && bit(m, 14) && bit(m, 21));
	ck_assert_int_eq(popcount(m, BIG), 3);
	ck_assert_int_eq(faultgen_parse_cpulist("3-3", m, BIG), 1);
	ck_assert(bit(m, 3));
}
END_TEST

START_TEST(parses_strided_ranges)
{
	unsigned long m[BIG / LONG_BITS];

	ck_assert_int_eq(faultgen_parse_cpulist("0-63:8", m, BIG), 8);
	for (size_t b = 0; b < BIG; b++)
		ck_assert_int_eq(bit(m, b), b < 64 && b % 8 == 0);
	/* A stride that does not land on the end stops before it. */
	ck_assert_int_eq(faultgen_parse_cpulist("1-10:4", m, BIG), 3);
	ck_assert(bit(m, 1) && bit(m, 5) && bit(m, 9));
	ck_assert_int_eq(faultgen_parse_cpulist("9-15:2,0-3", m, BIG), 8);
	ck_assert_int_eq(faultgen_parse_cpulist("4-4:100", m, BIG), 1);
	ck_assert(bit(m, 4));
}
END_TEST

START_TEST(parses_stride_larger_than_range_without_wrapping)
{
	unsigned long m[BIG / LONG_BITS];

	/* Only the first CPU: the next step is far beyond the end and must
	 * not wrap around 2^64 to the low CPUs. */
	ck_assert_int_eq(
		faultgen_parse_cpulist("5-10:18446744073709551615", m, BIG),
		1);
	ck_assert(bit(m, 5));
	ck_assert_int_eq(popcount(m, BIG), 1);
	ck_assert_int_eq(
		faultgen_parse_cpulist("100-200:18446744073709551000", m, BIG),
		1);
	ck_assert(bit(m, 100));
	ck_assert_int_eq(popcount(m, BIG), 1);
}
END_TEST

START_TEST(counts_duplicates_once)
{
	unsigned long m[BIG / LONG_BITS];

	ck_assert_int_eq(faultgen_parse_cpulist("3,3,1-4,2", m, BIG), 4);
	ck_assert_int_eq(popcount(m, BIG), 4);
	ck_assert_int_eq(faultgen_parse_cpulist("0-15,0-15:2,8", m, BIG), 16);
}
END_TEST

START_TEST(clears_mask_before_parsing)
{
	unsigned long m[BIG / LONG_BITS];

	memset(m, 0xff, sizeof(m));
	ck_assert_int_eq(faultgen_parse_cpulist("8191", m, BIG), 1);
	ck_assert(bit(m, 8191));
	ck_assert_int_eq(popcount(m, BIG), 1);
}
END_TEST

START_TEST(parses_masks_of_8192_cpus)
{
	unsigned long m[BIG / LONG_BITS];

	ck_assert_int_eq(faultgen_parse_cpulist("0-8191", m, BIG), BIG);
	ck_assert_int_eq(popcount(m, BIG), BIG);
	ck_assert_int_eq(faultgen_parse_cpulist("4096-8191:1024", m, BIG), 4);
	ck_assert(bit(m, 4096) && bit(m, 5120) && bit(m, 6144) &&
		  bit(m, 7168));
	ck_assert_int_eq(faultgen_parse_cpulist("1025,8190-8191", m, BIG), 3);
	ck_assert(bit(m, 1025) && bit(m, 8190) && bit(m, 8191));
}
END_TEST

START_TEST(accepts_surrounding_blanks_and_newline)
{
	unsigned long m[1];

	/* What a kernel file such as cpuset.cpus reads like. */
	ck_assert_int_eq(faultgen_parse_cpulist("0-3\n", m, 64), 4);
	ck_assert_int_eq(faultgen_parse_cpulist("  2", m, 64), 1);
}
END_TEST

static const struct {
	const char *str;
	size_t nbits;
	int err;
} bad_lists[] = {
	{ "", 64, -EINVAL },
	{ " ", 64, -EINVAL },
	{ "\n", 64, -EINVAL },
	{ "1-0", 64, -EINVAL },
	{ "63-0", 64, -EINVAL },
	{ "0,", 64, -EINVAL },
	{ ",0", 64, -EINVAL },
	{ "0,,1", 64, -EINVAL },
	{ "0-", 64, -EINVAL },
	{ "-1", 64, -EINVAL },
	{ "0-3:", 64, -EINVAL },
	{ "0-3:0", 64, -EINVAL },
	{ "0:2", 64, -EINVAL },
	{ "a", 64, -EINVAL },
	{ "0-3x", 64, -EINVAL },
	{ "1 2", 64, -EINVAL },
	{ "0, 1", 64, -EINVAL },
	{ "64", 64, -ERANGE },
	{ "0-64", 64, -ERANGE },
	{ "8192", 8192, -ERANGE },
	{ "0-8192:2", 8192, -ERANGE },
	{ "0", 0, -ERANGE },
	{ "99999999999999999999", 64, -ERANGE },
};

START_TEST(rejects_malformed_cpu_lists)
{
	unsigned long m[BIG / LONG_BITS];

	ck_assert_msg(faultgen_parse_cpulist(bad_lists[_i].str,
					     bad_lists[_i].nbits ? m : NULL,
					     bad_lists[_i].nbits) ==
			      bad_lists[_i].err,
		      "\"%s\" (%zu bits) did not give %d", bad_lists[_i].str,
		      bad_lists[_i].nbits, bad_lists[_i].err);
}
END_TEST

START_TEST(rejects_null_cpulist_arguments)
{
	unsigned long m[1];

	ck_assert_int_eq(faultgen_parse_cpulist(NULL, m, 64), -EINVAL);
	ck_assert_int_eq(faultgen_parse_cpulist("0", NULL, 64), -EINVAL);
}
END_TEST

/* ---- formatting ----------------------------------------------------- */

START_TEST(formats_shortest_list)
{
	unsigned long m[BIG / LONG_BITS] = { 0 };
	char buf[64];

	set_bit(m, 0);
	set_bit(m, 1);
	set_bit(m, 2);
	set_bit(m, 3);
	set_bit(m, 7);
	ck_assert_int_eq(faultgen_format_cpulist(m, BIG, buf, sizeof(buf)), 5);
	ck_assert_str_eq(buf, "0-3,7");
	memset(m, 0, sizeof(m));
	ck_assert_int_eq(faultgen_format_cpulist(m, BIG, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "");
	set_bit(m, 8191);
	ck_assert_int_eq(faultgen_format_cpulist(m, BIG, buf, sizeof(buf)), 4);
	ck_assert_str_eq(buf, "8191");
}
END_TEST

static const char *const round_trips[] = {
	"0",	     "1",	       "0-1",	      "1,3,5",
	"7,14,21",   "7-13",	       "4095-4097",   "0-8191",
	"1-2,4-8191", "1000,2000,8191", "64-127,8000",
};

START_TEST(round_trips_through_parse_and_format)
{
	unsigned long m[BIG / LONG_BITS], again[BIG / LONG_BITS];
	char buf[128];
	int n = faultgen_parse_cpulist(round_trips[_i], m, BIG);

	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(faultgen_format_cpulist(m, BIG, buf, sizeof(buf)),
			 (int)strlen(round_trips[_i]));
	ck_assert_str_eq(buf, round_trips[_i]);
	ck_assert_int_eq(faultgen_parse_cpulist(buf, again, BIG), n);
	ck_assert_mem_eq(m, again, sizeof(m));
}
END_TEST

START_TEST(round_trips_a_sparse_strided_mask)
{
	unsigned long m[BIG / LONG_BITS], again[BIG / LONG_BITS];
	static char buf[BIG * 6];
	int n = faultgen_parse_cpulist("3-8191:7", m, BIG);

	ck_assert_int_eq(n, (8191 - 3) / 7 + 1);
	ck_assert_int_gt(faultgen_format_cpulist(m, BIG, buf, sizeof(buf)), 0);
	ck_assert_int_eq(faultgen_parse_cpulist(buf, again, BIG), n);
	ck_assert_mem_eq(m, again, sizeof(m));
}
END_TEST

START_TEST(reports_enospc_when_buffer_is_short)
{
	unsigned long m[1];
	char buf[16];

	ck_assert_int_eq(faultgen_parse_cpulist("0-3,7", m, 64), 5);
	/* "0-3,7" needs 6 bytes with its terminating NUL. */
	ck_assert_int_eq(faultgen_format_cpulist(m, 64, buf, 6), 5);
	ck_assert_str_eq(buf, "0-3,7");
	memset(buf, 'x', sizeof(buf));
	ck_assert_int_eq(faultgen_format_cpulist(m, 64, buf, 5), -ENOSPC);
	ck_assert_int_eq(buf[0], '\0');
	ck_assert_int_eq(faultgen_format_cpulist(m, 64, buf, 1), -ENOSPC);
	ck_assert_int_eq(faultgen_format_cpulist(m, 64, buf, 0), -EINVAL);
	ck_assert_int_eq(faultgen_format_cpulist(m, 64, NULL, 8), -EINVAL);
	ck_assert_int_eq(faultgen_format_cpulist(NULL, 64, buf, 8), -EINVAL);
}
END_TEST

static Suite *parse_suite(void)
{
	Suite *s = suite_create("parse");
	TCase *tc = tcase_create("size");

	tcase_add_loop_test(tc, parses_sizes_with_every_suffix, 0,
			    (int)(sizeof(good_sizes) / sizeof(good_sizes[0])));
	tcase_add_test(tc, parses_pages_suffix_as_page_size);
	tcase_add_loop_test(tc, rejects_bad_sizes_leaving_output_alone, 0,
			    (int)(sizeof(bad_sizes) / sizeof(bad_sizes[0])));
	tcase_add_test(tc, rejects_null_size_arguments);
	suite_add_tcase(s, tc);

	tc = tcase_create("cpulist");
	tcase_add_test(tc, parses_single_cpu_and_ranges);
	tcase_add_test(tc, parses_strided_ranges);
	tcase_add_test(tc, parses_stride_larger_than_range_without_wrapping);
	tcase_add_test(tc, counts_duplicates_once);
	tcase_add_test(tc, clears_mask_before_parsing);
	tcase_add_test(tc, parses_masks_of_8192_cpus);
	tcase_add_test(tc, accepts_surrounding_blanks_and_newline);
	tcase_add_loop_test(tc, rejects_malformed_cpu_lists, 0,
			    (int)(sizeof(bad_lists) / sizeof(bad_lists[0])));
	tcase_add_test(tc, rejects_null_cpulist_arguments);
	suite_add_tcase(s, tc);

	tc = tcase_create("format");
	tcase_add_test(tc, formats_shortest_list);
	tcase_add_loop_test(tc, round_trips_through_parse_and_format, 0,
			    (int)(sizeof(round_trips) / sizeof(round_trips[0])));
	tcase_add_test(tc, round_trips_a_sparse_strided_mask);
	tcase_add_test(tc, reports_enospc_when_buffer_is_short);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return fgc_main(parse_suite());
}
