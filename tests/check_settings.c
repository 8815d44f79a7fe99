// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * check_settings.c - the settings as data: faultgen_setting_info and
 * faultgen_pattern_info describe every setting and pattern, and
 * faultgen_attr_set_value and faultgen_attr_get_value set and read them
 * by name, with the rules of the typed setters: seen through the typed
 * getters, the header's enum values and the keywords pft documents.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "check-util.h"

#include <math.h>
#include <string.h>

#include "internal.h"

static struct faultgen_setting_info info_of(const char *name)
{
	struct faultgen_setting_info info = { .size = sizeof(info) };
	int i = faultgen_setting_index(name);

	ck_assert_msg(i >= 0, "no setting %s: %d", name, i);
	ck_assert_int_eq(faultgen_setting_info((unsigned int)i, &info), 0);
	ck_assert_str_eq(info.name, name);
	return info;
}

START_TEST(settings_are_listed_once_by_index_and_name)
{
	int n = faultgen_setting_count();
	struct faultgen_setting_info info = { .size = sizeof(info) };

	ck_assert_int_gt(n, 20);
	for (int i = 0; i < n; i++) {
		ck_assert_int_eq(faultgen_setting_info((unsigned int)i, &info),
				 0);
		ck_assert_ptr_nonnull(info.name);
		ck_assert_int_eq(faultgen_setting_index(info.name), i);
		ck_assert_ptr_nonnull(info.help);
		ck_assert_ptr_nonnull(info.default_text);
		ck_assert_int_ge(info.pattern, -1);
		ck_assert_int_lt(info.pattern, faultgen_pattern_count());
	}
	ck_assert_int_eq(faultgen_setting_info((unsigned int)n, &info),
			 -ERANGE);
	ck_assert_int_eq(faultgen_setting_index("no-such-setting"), -ENOENT);
	ck_assert_int_eq(faultgen_setting_index(NULL), -EINVAL);
	ck_assert_int_eq(faultgen_setting_info(0, NULL), -EINVAL);
	info.size = sizeof(size_t);
	ck_assert_int_eq(faultgen_setting_info(0, &info), -EINVAL);
}
END_TEST

/* A caller built against a smaller struct gets its part alone. */
START_TEST(setting_info_fills_only_the_callers_size)
{
	unsigned char buf[sizeof(struct faultgen_setting_info) + 16];
	struct faultgen_setting_info *info = (void *)buf;
	size_t small = offsetof(struct faultgen_setting_info, pattern);

	memset(buf, 0xa5, sizeof(buf));
	info->size = small;
	ck_assert_int_eq(faultgen_setting_info(0, info), 0);
	ck_assert_ptr_nonnull(info->name);
	for (size_t i = small; i < sizeof(buf); i++)
		ck_assert_uint_eq(buf[i], 0xa5);
}
END_TEST

/* Where the attr holds each setting: no two share a byte. */
START_TEST(no_two_settings_share_storage)
{
	unsigned int n = fg_setting_count();
	size_t width[FAULTGEN_TYPE_TEXT + 1] = {
		[FAULTGEN_TYPE_BOOL] = sizeof(bool),
		[FAULTGEN_TYPE_UINT] = sizeof(unsigned int),
		[FAULTGEN_TYPE_SIZE] = sizeof(uint64_t),
		[FAULTGEN_TYPE_SECONDS] = sizeof(double),
		[FAULTGEN_TYPE_KEYWORD] = sizeof(int),
		[FAULTGEN_TYPE_TEXT] = sizeof(char *),
	};

	for (unsigned int i = 0; i < n; i++) {
		const struct fg_setting *a = fg_setting_at(i, NULL);

		ck_assert_uint_le(a->offset + width[a->type],
				  sizeof(struct faultgen_attr));
		for (unsigned int j = i + 1; j < n; j++) {
			const struct fg_setting *b = fg_setting_at(j, NULL);

			ck_assert_msg(a->offset + width[a->type] <= b->offset ||
					      b->offset + width[b->type] <=
						      a->offset,
				      "%s and %s share storage", a->name,
				      b->name);
		}
	}
}
END_TEST

/* The keywords are those pft documents, at the header's enum values. */
static const struct {
	const char *setting;
	int value;
	const char *keyword;
} keywords[] = {
	{ "worker-kind", FAULTGEN_THREADS, "threads" },
	{ "worker-kind", FAULTGEN_PROCESSES, "processes" },
	{ "backing", FAULTGEN_BACKING_ANON, "anon" },
	{ "backing", FAULTGEN_BACKING_DEVZERO, "dev-zero" },
	{ "backing", FAULTGEN_BACKING_SYSV, "sysv" },
	{ "backing", FAULTGEN_BACKING_MEMFD, "memfd" },
	{ "backing", FAULTGEN_BACKING_FILE, "file" },
	{ "backing", FAULTGEN_BACKING_HUGETLB, "hugetlb" },
	{ "touch", FAULTGEN_TOUCH_WRITE, "write" },
	{ "touch", FAULTGEN_TOUCH_READ, "read" },
	{ "touch", FAULTGEN_TOUCH_MEMSET, "memset" },
	{ "touch", FAULTGEN_TOUCH_MLOCK, "mlock" },
	{ "touch", FAULTGEN_TOUCH_POPULATE, "populate" },
	{ "thp", FAULTGEN_THP_DEFAULT, "default" },
	{ "thp", FAULTGEN_THP_HUGEPAGE, "always" },
	{ "thp", FAULTGEN_THP_NOHUGEPAGE, "never" },
	{ "zap", FAULTGEN_ZAP_DONTNEED, "dontneed" },
	{ "zap", FAULTGEN_ZAP_MUNMAP, "munmap" },
	{ "writer-op", FAULTGEN_WRITER_MMAP, "mmap" },
	{ "writer-op", FAULTGEN_WRITER_MPROTECT, "mprotect" },
	{ "writer-op", FAULTGEN_WRITER_MADVISE, "madvise" },
	{ "protect", FAULTGEN_PROTECT_MPROTECT, "mprotect" },
	{ "protect", FAULTGEN_PROTECT_FORK, "fork" },
	{ "protect", FAULTGEN_PROTECT_WRITABLE, "writable" },
	{ "collapse", FAULTGEN_COLLAPSE_MADVISE, "madvise" },
	{ "collapse", FAULTGEN_COLLAPSE_KHUGEPAGED, "khugepaged" },
	{ "pretouch", FAULTGEN_PRETOUCH_STORE, "store" },
	{ "pretouch", FAULTGEN_PRETOUCH_ATOMIC_ADD, "atomic-add" },
	{ "pretouch", FAULTGEN_PRETOUCH_POPULATE, "populate" },
	{ "pretouch", FAULTGEN_PRETOUCH_FAST, "fast" },
	{ "pretouch", FAULTGEN_PRETOUCH_FAST_HUGE, "fast-huge" },
	{ "gc", FAULTGEN_GC_NONE, "none" },
	{ "gc", FAULTGEN_GC_G1, "g1" },
	{ "gc", FAULTGEN_GC_PARALLEL, "parallel" },
	{ "qemu", FAULTGEN_QEMU_AUTO, "auto" },
	{ "qemu", FAULTGEN_QEMU_TOUCH, "touch" },
	{ "cow-child", FAULTGEN_COW_CHILD_WAITS, "waits" },
	{ "cow-child", FAULTGEN_COW_CHILD_READS, "reads" },
	{ "cow-child", FAULTGEN_COW_CHILD_WRITES, "writes" },
};

/* What the typed getter of a keyword setting gives. */
static int typed_keyword(const struct faultgen_attr *a, const char *name)
{
	unsigned int n;
	enum faultgen_jvm_gc gc;
	enum faultgen_writer_op op;

	if (!strcmp(name, "worker-kind"))
		return (int)faultgen_attr_get_worker_kind(a);
	if (!strcmp(name, "backing"))
		return (int)faultgen_attr_get_backing(a);
	if (!strcmp(name, "touch"))
		return (int)faultgen_attr_get_touch(a);
	if (!strcmp(name, "thp"))
		return (int)faultgen_attr_get_thp(a);
	if (!strcmp(name, "zap"))
		return (int)faultgen_attr_get_zap(a);
	if (!strcmp(name, "writer-op")) {
		faultgen_attr_get_writers(a, &n, &op);
		return (int)op;
	}
	if (!strcmp(name, "protect"))
		return (int)faultgen_attr_get_protect(a);
	if (!strcmp(name, "collapse"))
		return (int)faultgen_attr_get_collapse(a);
	if (!strcmp(name, "pretouch"))
		return (int)faultgen_attr_get_pretouch_touch(a);
	if (!strcmp(name, "gc")) {
		faultgen_attr_get_jvm(a, &n, &gc);
		return (int)gc;
	}
	if (!strcmp(name, "qemu"))
		return (int)faultgen_attr_get_qemu(a);
	if (!strcmp(name, "cow-child"))
		return (int)faultgen_attr_get_cow_child(a);
	ck_abort_msg("no typed getter for %s", name);
	return -1;
}

START_TEST(keywords_are_the_enums_values)
{
	struct faultgen_attr *a;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++) {
		struct faultgen_setting_info info = info_of(keywords[i].setting);
		struct faultgen_value v = { .type = FAULTGEN_TYPE_KEYWORD };

		ck_assert_int_eq(info.type, FAULTGEN_TYPE_KEYWORD);
		ck_assert_str_eq(info.keywords[keywords[i].value],
				 keywords[i].keyword);
		v.v.keyword = keywords[i].keyword;
		ck_assert_int_eq(faultgen_attr_set_value(a, keywords[i].setting,
							 &v), 0);
		ck_assert_int_eq(typed_keyword(a, keywords[i].setting),
				 keywords[i].value);
		memset(&v, 0, sizeof(v));
		ck_assert_int_eq(faultgen_attr_get_value(a, keywords[i].setting,
							 &v), 0);
		ck_assert_int_eq(v.type, FAULTGEN_TYPE_KEYWORD);
		ck_assert_str_eq(v.v.keyword, keywords[i].keyword);
	}
	faultgen_attr_free(a);
}
END_TEST

/* A new attr holds each table's default, as the typed getters read it. */
START_TEST(defaults_are_the_tables)
{
	struct faultgen_attr *a;
	int n = faultgen_setting_count();

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	for (int i = 0; i < n; i++) {
		struct faultgen_setting_info info = { .size = sizeof(info) };
		struct faultgen_value v;

		ck_assert_int_eq(faultgen_setting_info((unsigned int)i, &info),
				 0);
		ck_assert_int_eq(faultgen_attr_get_value(a, info.name, &v), 0);
		ck_assert_int_eq(v.type, info.type);
		switch (info.type) {
		case FAULTGEN_TYPE_KEYWORD:
			ck_assert_str_eq(v.v.keyword,
					 info.default_value.v.keyword);
			ck_assert_str_eq(v.v.keyword, info.default_text);
			break;
		case FAULTGEN_TYPE_TEXT:
			ck_assert_ptr_null(v.v.text);
			break;
		case FAULTGEN_TYPE_SECONDS:
			ck_assert(v.v.seconds == info.default_value.v.seconds);
			break;
		default:
			ck_assert_uint_eq(v.v.number,
					  info.default_value.v.number);
		}
	}
	/* The typed getters, for the documented defaults
	 * (faultgen_attr_new(3)). */
	ck_assert_uint_eq(faultgen_attr_get_size(a), (uint64_t)fgc_pagesize());
	ck_assert_uint_eq(faultgen_attr_get_chunk_size(a), 4u << 20);
	ck_assert(faultgen_attr_get_timeout(a) == 60.0);
	ck_assert_int_eq(faultgen_attr_get_pretouch_touch(a),
			 FAULTGEN_PRETOUCH_ATOMIC_ADD);
	ck_assert_uint_eq(faultgen_attr_get_cachelines(a), 1);
	ck_assert_uint_eq(faultgen_attr_get_workers(a), 1);
	faultgen_attr_free(a);
}
END_TEST

/* The help of a setting that names its default names the table's. */
START_TEST(help_names_the_default_it_states)
{
	int n = faultgen_setting_count();

	for (int i = 0; i < n; i++) {
		struct faultgen_setting_info info = { .size = sizeof(info) };
		const char *line;

		ck_assert_int_eq(faultgen_setting_info((unsigned int)i, &info),
				 0);
		if (strstr(info.help, "default"))
			ck_assert_msg(strstr(info.help, info.default_text),
				      "%s: its help says a default other than "
				      "%s", info.name, info.default_text);
		for (line = info.help; line;) {
			const char *nl = strchr(line, '\n');
			size_t len = nl ? (size_t)(nl - line) : strlen(line);

			ck_assert_msg(len <= 54, "%s: a help line of %zu",
				      info.name, len);
			line = nl ? nl + 1 : NULL;
		}
	}
}
END_TEST

/* Bad values by name are refused as the typed setters refuse them, and
 * leave the attr as it was. */
START_TEST(set_value_refuses_as_the_typed_setters)
{
	static const struct {
		const char *name;
		struct faultgen_value v;
		int err;
	} bad[] = {
		{ "jdk", { FAULTGEN_TYPE_UINT, { .number = 7 } }, -EINVAL },
		{ "jdk", { FAULTGEN_TYPE_UINT, { .number = 100 } }, -EINVAL },
		{ "jdk", { FAULTGEN_TYPE_SIZE, { .number = 17 } }, -EINVAL },
		{ "chunk-size", { FAULTGEN_TYPE_SIZE, { .number = 1000 } },
		  -EINVAL },
		{ "chunk-size", { FAULTGEN_TYPE_SIZE, { .number = 0 } },
		  -EINVAL },
		{ "timeout", { FAULTGEN_TYPE_SECONDS, { .seconds = 0 } },
		  -EINVAL },
		{ "timeout", { FAULTGEN_TYPE_SECONDS, { .seconds = NAN } },
		  -EINVAL },
		{ "writers", { FAULTGEN_TYPE_UINT,
			       { .number = FAULTGEN_MAX_WRITERS + 1 } },
		  -EINVAL },
		{ "writers", { FAULTGEN_TYPE_UINT, { .number = 1ULL << 40 } },
		  -EINVAL },
		{ "cow-child", { FAULTGEN_TYPE_KEYWORD, { .keyword = "sleeps" } },
		  -EINVAL },
		{ "cow-child", { FAULTGEN_TYPE_KEYWORD, { .keyword = NULL } },
		  -EINVAL },
		{ "size", { FAULTGEN_TYPE_SIZE, { .number = 0 } }, -EINVAL },
		{ "workers", { FAULTGEN_TYPE_UINT, { .number = 0 } }, -EINVAL },
		{ "cachelines", { FAULTGEN_TYPE_UINT, { .number = 100000 } },
		  -EINVAL },
		{ "cpus", { FAULTGEN_TYPE_TEXT, { .text = "3-1" } }, -EINVAL },
		{ "no-such", { FAULTGEN_TYPE_UINT, { .number = 1 } }, -ENOENT },
	};
	struct faultgen_attr *a;
	unsigned int jdk;
	enum faultgen_jvm_gc gc;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_jvm(a, 17, FAULTGEN_GC_G1), 0);
	ck_assert_int_eq(faultgen_attr_set_chunk_size(a, 8u << 20), 0);
	ck_assert_int_eq(faultgen_attr_set_cow_child(a,
						     FAULTGEN_COW_CHILD_READS),
			 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(faultgen_attr_set_value(a, bad[i].name,
						      &bad[i].v) == bad[i].err,
			      "%s (case %zu) not refused", bad[i].name, i);
	faultgen_attr_get_jvm(a, &jdk, &gc);
	ck_assert_uint_eq(jdk, 17);
	ck_assert_int_eq(gc, FAULTGEN_GC_G1);
	ck_assert_uint_eq(faultgen_attr_get_chunk_size(a), 8u << 20);
	ck_assert_int_eq(faultgen_attr_get_cow_child(a),
			 FAULTGEN_COW_CHILD_READS);
	ck_assert_uint_eq(faultgen_attr_get_workers(a), 1);
	ck_assert_ptr_null(faultgen_attr_get_cpulist(a));
	ck_assert_int_eq(faultgen_attr_set_value(NULL, "jdk", &bad[0].v),
			 -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_value(a, NULL, &bad[0].v), -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_value(a, "jdk", NULL), -EINVAL);
	faultgen_attr_free(a);
}
END_TEST

/* Values by name are what the typed getters then give, and the rules
 * that join two settings hold (rounds or a duration, workers given). */
START_TEST(set_value_is_what_the_typed_getters_read)
{
	struct faultgen_attr *a, *copy;
	struct faultgen_value v;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	v = (struct faultgen_value){ FAULTGEN_TYPE_UINT, { .number = 23 } };
	ck_assert_int_eq(faultgen_attr_set_value(a, "jdk", &v), 0);
	v = (struct faultgen_value){ FAULTGEN_TYPE_SIZE,
				     { .number = 2u << 20 } };
	ck_assert_int_eq(faultgen_attr_set_value(a, "chunk-size", &v), 0);
	v = (struct faultgen_value){ FAULTGEN_TYPE_SECONDS,
				     { .seconds = 2.5 } };
	ck_assert_int_eq(faultgen_attr_set_value(a, "timeout", &v), 0);
	v = (struct faultgen_value){ FAULTGEN_TYPE_BOOL, { .boolean = 7 } };
	ck_assert_int_eq(faultgen_attr_set_value(a, "share", &v), 0);
	ck_assert_int_eq(faultgen_attr_set_value(a, "catch-sigbus", &v), 0);
	v = (struct faultgen_value){ FAULTGEN_TYPE_TEXT, { .text = "0" } };
	ck_assert_int_eq(faultgen_attr_set_value(a, "cpus", &v), 0);
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 5, FAULTGEN_ZAP_MUNMAP),
			 0);
	v = (struct faultgen_value){ FAULTGEN_TYPE_SECONDS,
				     { .seconds = 1.5 } };
	ck_assert_int_eq(faultgen_attr_set_value(a, "duration", &v), 0);

	ck_assert_uint_eq(faultgen_attr_get_chunk_size(a), 2u << 20);
	ck_assert(faultgen_attr_get_timeout(a) == 2.5);
	ck_assert_int_eq(faultgen_attr_get_share(a), 1);
	ck_assert_int_eq(faultgen_attr_get_catch_sigbus(a), 1);
	ck_assert_str_eq(faultgen_attr_get_cpulist(a), "0");
	ck_assert(faultgen_attr_get_duration(a) == 1.5);
	ck_assert_uint_eq(faultgen_attr_get_rounds(a), 0);
	ck_assert_int_eq(faultgen_attr_get_zap(a), FAULTGEN_ZAP_MUNMAP);
	ck_assert_int_eq(faultgen_attr_get_value(a, "share", &v), 0);
	ck_assert_int_eq(v.v.boolean, 1);
	ck_assert_int_eq(faultgen_attr_get_value(a, "cpus", &v), 0);
	ck_assert_str_eq(v.v.text, "0");

	/* A copy (a run's) holds its own strings. */
	ck_assert_int_eq(faultgen_attr_new(&copy), 0);
	ck_assert_int_eq(fg_attr_copy(copy, a), 0);
	faultgen_attr_free(a);
	ck_assert_int_eq(faultgen_attr_get_value(copy, "cpus", &v), 0);
	ck_assert_str_eq(v.v.text, "0");
	ck_assert_int_eq(faultgen_attr_get_value(copy, "jdk", &v), 0);
	ck_assert_uint_eq(v.v.number, 23);
	faultgen_attr_free(copy);
}
END_TEST

/* Each pattern's own settings say whose they are, and the pattern reads
 * them; the common ones name no pattern. */
START_TEST(own_settings_name_their_pattern)
{
	static const struct {
		const char *name;
		enum faultgen_pattern pattern;
	} own[] = {
		{ "writers", FAULTGEN_SHARED_VMA },
		{ "stripe-pages", FAULTGEN_SHARED_VMA },
		{ "protect", FAULTGEN_RO_COLLAPSE },
		{ "timeout", FAULTGEN_RO_COLLAPSE },
		{ "jdk", FAULTGEN_PRETOUCH },
		{ "chunk-size", FAULTGEN_PRETOUCH },
		{ "qemu", FAULTGEN_QEMU_PREALLOC },
		{ "cow-child", FAULTGEN_COW_FORK },
	};

	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		struct faultgen_setting_info info = info_of(own[i].name);

		ck_assert_int_eq(info.pattern, (int)own[i].pattern);
		ck_assert_int_eq(faultgen_pattern_reads(own[i].pattern,
							info.setting),
				 1);
	}
	/* A renamed setting is found by its old name too. */
	ck_assert_int_eq(faultgen_setting_index("interleave-pages"),
			 faultgen_setting_index("stripe-pages"));
	ck_assert_str_eq(info_of("stripe-pages").alias, "interleave-pages");
	ck_assert_int_eq(info_of("size").pattern, -1);
	ck_assert_int_eq(info_of("latency").pattern, -1);
	ck_assert_int_eq(faultgen_pattern_reads(FAULTGEN_PER_THREAD_VMA,
						FAULTGEN_SETTING_WRITERS),
			 0);
	ck_assert_int_eq(faultgen_pattern_reads(FAULTGEN_COW_FORK,
						FAULTGEN_SETTING_JVM),
			 0);
}
END_TEST

START_TEST(pattern_info_says_what_each_runs_on)
{
	struct faultgen_pattern_info p = { .size = sizeof(p) };
	unsigned int all = (1u << (FAULTGEN_BACKING_HUGETLB + 1)) - 1;
	unsigned int both = 1u << FAULTGEN_THREADS | 1u << FAULTGEN_PROCESSES;

	ck_assert_int_eq(faultgen_pattern_info(FAULTGEN_SHARED_VMA, &p), 0);
	ck_assert_str_eq(p.name, "shared-vma");
	ck_assert_uint_eq(p.flags, 0);
	ck_assert_uint_eq(p.backings, all);
	ck_assert_uint_eq(p.worker_kinds, both);
	/* writers, writer-op, writer-nice, writer-fifo, stripe-pages */
	ck_assert_uint_eq(p.nr_settings, 5);

	ck_assert_int_eq(faultgen_pattern_info(FAULTGEN_PER_THREAD_VMA, &p), 0);
	ck_assert_uint_eq(p.flags, FAULTGEN_PATTERN_OWN_MAPPINGS |
					   FAULTGEN_PATTERN_OWN_MEMORY);

	ck_assert_int_eq(faultgen_pattern_info(FAULTGEN_PRETOUCH, &p), 0);
	ck_assert_uint_eq(p.flags, FAULTGEN_PATTERN_ONCE |
					   FAULTGEN_PATTERN_UNBOUND);
	ck_assert_uint_eq(p.backings, 1u << FAULTGEN_BACKING_ANON);
	ck_assert_uint_eq(p.worker_kinds, 1u << FAULTGEN_THREADS);
	ck_assert_ptr_nonnull(p.title);

	ck_assert_int_eq(faultgen_pattern_info(FAULTGEN_RO_COLLAPSE, &p), 0);
	ck_assert_uint_eq(p.flags, FAULTGEN_PATTERN_ONCE |
					   FAULTGEN_PATTERN_OWN_MEMORY);

	ck_assert_int_eq(faultgen_pattern_info(FAULTGEN_QEMU_PREALLOC, &p), 0);
	ck_assert_uint_eq(p.backings & (1u << FAULTGEN_BACKING_SYSV), 0);
	ck_assert_uint_ne(p.backings & (1u << FAULTGEN_BACKING_MEMFD), 0);

	ck_assert_int_eq(faultgen_pattern_info(FAULTGEN_COW_FORK, &p), 0);
	ck_assert_uint_eq(p.flags, FAULTGEN_PATTERN_OWN_MEMORY);
	ck_assert_uint_eq(p.worker_kinds, both);

	ck_assert_int_eq(faultgen_pattern_info((enum faultgen_pattern)
						       faultgen_pattern_count(),
					       &p),
			 -EINVAL);
	ck_assert_int_eq(faultgen_pattern_info(FAULTGEN_COW_FORK, NULL),
			 -EINVAL);
}
END_TEST

/* The data the patterns state are rules a run keeps: every pattern that
 * says it runs once refuses rounds, one that takes threads alone refuses
 * processes, and the backings it does not list are refused. */
START_TEST(pattern_info_is_what_check_refuses)
{
	for (int p = 0; p < faultgen_pattern_count(); p++) {
		struct faultgen_pattern_info info = { .size = sizeof(info) };
		struct faultgen_attr *a;
		struct faultgen_conflict c = { .size = sizeof(c) };

		ck_assert_int_eq(faultgen_pattern_info(p, &info), 0);
		ck_assert_int_eq(faultgen_attr_new(&a), 0);
		ck_assert_int_eq(faultgen_attr_set_pattern(a, p), 0);
		ck_assert_int_eq(faultgen_attr_set_rounds(a, 2,
							  FAULTGEN_ZAP_DONTNEED),
				 0);
		ck_assert_int_eq(faultgen_attr_check(a, &c) != 0,
				 (info.flags & FAULTGEN_PATTERN_ONCE) != 0);
		if (info.flags & FAULTGEN_PATTERN_ONCE) {
			ck_assert_int_eq(c.setting, FAULTGEN_SETTING_REPEAT);
			ck_assert_str_eq(c.setting_name, "repeat");
			ck_assert_str_eq(c.with_name, "pattern");
		}
		faultgen_attr_set_rounds(a, 0, FAULTGEN_ZAP_DONTNEED);
		faultgen_attr_set_workers(a, 1, FAULTGEN_PROCESSES);
		ck_assert_int_eq(faultgen_attr_check(a, &c) != 0,
				 !(info.worker_kinds &
				   (1u << FAULTGEN_PROCESSES)));
		faultgen_attr_set_workers(a, 1, FAULTGEN_THREADS);
		for (int b = 0; b <= FAULTGEN_BACKING_HUGETLB; b++) {
			int refused;

			/* Huge pages and a path have rules of their own. */
			if (b == FAULTGEN_BACKING_FILE ||
			    b == FAULTGEN_BACKING_HUGETLB)
				continue;
			faultgen_attr_set_backing(a, b);
			refused = faultgen_attr_check(a, &c) != 0 &&
				  c.setting == FAULTGEN_SETTING_BACKING;
			ck_assert_msg(refused == !(info.backings & (1u << b)),
				      "%s on backing %d", info.name, b);
		}
		faultgen_attr_free(a);
	}
}
END_TEST

static Suite *settings_suite(void)
{
	Suite *s = suite_create("settings");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, settings_are_listed_once_by_index_and_name);
	tcase_add_test(tc, setting_info_fills_only_the_callers_size);
	tcase_add_test(tc, no_two_settings_share_storage);
	tcase_add_test(tc, keywords_are_the_enums_values);
	tcase_add_test(tc, defaults_are_the_tables);
	tcase_add_test(tc, help_names_the_default_it_states);
	tcase_add_test(tc, set_value_refuses_as_the_typed_setters);
	tcase_add_test(tc, set_value_is_what_the_typed_getters_read);
	tcase_add_test(tc, own_settings_name_their_pattern);
	tcase_add_test(tc, pattern_info_says_what_each_runs_on);
	tcase_add_test(tc, pattern_info_is_what_check_refuses);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return fgc_main(settings_suite());
}
