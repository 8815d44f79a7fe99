// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * check_numa.c - NUMA policies and the pages found on each node: node
 * lists and their errors, every policy naming a node of this machine
 * running with its pages there, per-worker and total counts, and the
 * slice binding of the worker-local policy.
 *
 * The expected node of a page comes from /proc/self/numa_maps (the
 * kernel's own per-VMA account), not from move_pages, which the library
 * uses to count.  Placement across several nodes is checked in the
 * many-node guests of tests/shapes.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "check-util.h"

#define MIB (1ULL << 20)

static bool numa_here(void)
{
	unsigned long mask[16];

	return faultgen_numa_nodes(mask, 1024) > 0;
}

/* The lowest node id this thread may allocate on. */
static int first_allowed_node(void)
{
	unsigned long mask[16];

	if (faultgen_numa_allowed(mask, 1024) <= 0)
		return -1;
	for (int n = 0; n < 1024; n++)
		if (mask[n / (8 * sizeof(long))] & (1UL << (n % (8 * sizeof(long)))))
			return n;
	return -1;
}

/* A node id that does not exist: one past the highest. */
static int absent_node(void)
{
	unsigned long mask[16];
	int last = -1;

	ck_assert_int_gt(faultgen_numa_nodes(mask, 1024), 0);
	for (int n = 0; n < 1024; n++)
		if (mask[n / (8 * sizeof(long))] & (1UL << (n % (8 * sizeof(long)))))
			last = n;
	return last + 1;
}

/* Pages of [addr, addr+len) on node `node`, summed over the numa_maps
 * lines of the VMAs that start inside it ("N<node>=<pages>"). */
static uint64_t numa_maps_pages(void *addr, size_t len, int node)
{
	uintptr_t lo = (uintptr_t)addr, hi = lo + len;
	char line[4096], key[16];
	uint64_t sum = 0;
	FILE *f = fopen("/proc/self/numa_maps", "re");

	ck_assert_ptr_nonnull(f);
	snprintf(key, sizeof(key), " N%d=", node);
	while (fgets(line, sizeof(line), f)) {
		uintptr_t start = strtoul(line, NULL, 16);
		char *p = strstr(line, key);

		if (start >= lo && start < hi && p)
			sum += strtoull(p + strlen(key), NULL, 10);
	}
	fclose(f);
	return sum;
}

static const char *const policy_names[] = {
	"default", "local", "bind", "interleave", "preferred", "worker-local",
};

/* A policy, with the node list it needs. */
static void set_policy(struct faultgen_attr *a, enum faultgen_numa p,
		       const char *node)
{
	bool nodes = p == FAULTGEN_NUMA_BIND || p == FAULTGEN_NUMA_INTERLEAVE ||
		     p == FAULTGEN_NUMA_PREFERRED;

	if (nodes)
		ck_assert_int_eq(faultgen_attr_set_numa_nodes(a, p, node), 0);
	else
		ck_assert_int_eq(faultgen_attr_set_numa(a, p), 0);
	ck_assert_int_eq(faultgen_attr_get_numa(a), p);
	ck_assert_int_eq(faultgen_attr_get_numa_nodes(a) != NULL, nodes);
}

/*
 * Every policy naming a node of this machine runs, with 2 threads or 2
 * processes, once or for 3 rounds; each worker finds all its slice's
 * pages on that node, and the total is their sum.
 */
START_TEST(each_policy_puts_pages_on_its_node)
{
	enum faultgen_numa p = (enum faultgen_numa)(_i % 6);
	bool procs = _i / 6 % 2, rounds = _i / 12;
	int node = first_allowed_node();
	uint64_t slice = 2 * MIB / (uint64_t)fgc_pagesize(), pages[64];
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_attr *a;
	struct faultgen_run *run;
	char list[16];
	int n;

	if (!numa_here())
		FGC_SKIP("no NUMA support in this kernel");
	snprintf(list, sizeof(list), "%d", node);
	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 4 * MIB), 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, 2, procs ?
				FAULTGEN_PROCESSES : FAULTGEN_THREADS), 0);
	fgc_allow_workers(a, 2);
	if (rounds)
		ck_assert_int_eq(faultgen_attr_set_rounds(a, 3,
						FAULTGEN_ZAP_DONTNEED), 0);
	ck_assert_int_eq(faultgen_attr_set_node_pages(a, 1), 0);
	set_policy(a, p, list);
	ck_assert_msg(faultgen_run_new(a, &run) == 0, "%s",
		      policy_names[p]);
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	for (int w = -1; w < 2; w++) {
		uint64_t want = w < 0 ? 2 * slice : slice, other = 0;

		n = faultgen_run_node_pages(run, w, pages, 64);
		ck_assert_int_gt(n, node);
		for (int k = 0; k < n && k < 64; k++)
			if (k != node)
				other += pages[k];
		ck_assert_msg(pages[node] == want && other == 0,
			      "%s, worker %d: %llu pages on node %d, %llu "
			      "elsewhere, %llu expected", policy_names[p], w,
			      (unsigned long long)pages[node], node,
			      (unsigned long long)other,
			      (unsigned long long)want);
	}
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* The count agrees with the kernel's numa_maps for the thread run's
 * region, which stays mapped and faulted after a one-pass run. */
START_TEST(node_pages_agree_with_numa_maps)
{
	struct faultgen_attr *a;
	struct faultgen_run *run;
	int node = first_allowed_node();
	uint64_t pages[64];
	void *addr;
	size_t len;
	char list[16];

	if (!numa_here())
		FGC_SKIP("no NUMA support in this kernel");
	snprintf(list, sizeof(list), "%d", node);
	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 4 * MIB), 0);
	ck_assert_int_eq(faultgen_attr_set_node_pages(a, 1), 0);
	ck_assert_int_eq(faultgen_attr_set_numa_nodes(a, FAULTGEN_NUMA_BIND,
						      list), 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	ck_assert_int_gt(faultgen_run_node_pages(run, -1, pages, 64), node);
	ck_assert_uint_eq(pages[node], numa_maps_pages(addr, len, node));
	ck_assert_uint_eq(pages[node], 4 * MIB / (uint64_t)fgc_pagesize());
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* The numa_maps policy of the VMA at addr ("bind:0", "default", ...). */
static void numa_maps_policy(void *addr, char *buf, size_t len)
{
	char line[4096];
	FILE *f = fopen("/proc/self/numa_maps", "re");

	ck_assert_ptr_nonnull(f);
	buf[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		char *sp = strchr(line, ' ');

		if (strtoul(line, NULL, 16) != (uintptr_t)addr || !sp)
			continue;
		size_t k = strcspn(sp + 1, " \n");

		if (k >= len)
			k = len - 1; /* cut to buf */
		memcpy(buf, sp + 1, k);
		buf[k] = '\0';
	}
	fclose(f);
}

/* Worker-local binds each slice to the node of its worker's CPU: the
 * region's pages all carry a bind policy (slices bound to one node merge
 * back into one VMA; on several nodes they stay apart). */
START_TEST(worker_local_binds_each_slice)
{
	struct faultgen_attr *a;
	struct faultgen_run *run;
	char policy[64], want[32];
	void *addr;
	size_t len;

	if (!numa_here())
		FGC_SKIP("no NUMA support in this kernel");
	if (faultgen_numa_allowed((unsigned long[16]){ 0 }, 1024) != 1)
		FGC_SKIP("more than one node: tests/shapes checks this");
	snprintf(want, sizeof(want), "bind:%d", first_allowed_node());
	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 4 * MIB), 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, 4, FAULTGEN_THREADS), 0);
	fgc_allow_workers(a, 4);
	ck_assert_int_eq(faultgen_attr_set_numa(a,
						FAULTGEN_NUMA_WORKER_LOCAL), 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	numa_maps_policy(addr, policy, sizeof(policy));
	ck_assert_str_eq(policy, want);
	faultgen_run_free(run);
	faultgen_attr_free(a);
	/* Without it, the default policy. */
	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	numa_maps_policy(addr, policy, sizeof(policy));
	ck_assert_str_eq(policy, "default");
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(rejects_bad_node_lists)
{
	struct faultgen_attr *a;
	char absent[16], two[32];
	int node = first_allowed_node();

	if (!numa_here())
		FGC_SKIP("no NUMA support in this kernel");
	snprintf(absent, sizeof(absent), "%d", absent_node());
	snprintf(two, sizeof(two), "%d,%d", node, absent_node());
	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_numa_nodes(a, FAULTGEN_NUMA_BIND,
						      absent), -ENOENT);
	ck_assert_int_eq(faultgen_attr_set_numa_nodes(a, FAULTGEN_NUMA_BIND,
						      two), -ENOENT);
	ck_assert_int_eq(faultgen_attr_set_numa_nodes(a,
				FAULTGEN_NUMA_INTERLEAVE, "x"), -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_numa_nodes(a, FAULTGEN_NUMA_BIND,
						      ""), -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_numa_nodes(a, FAULTGEN_NUMA_BIND,
						      "1-0"), -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_numa_nodes(a, FAULTGEN_NUMA_BIND,
						      "99999999"), -ERANGE);
	/* Preferred takes one node, not a list nor "all". */
	ck_assert_int_eq(faultgen_attr_set_numa_nodes(a,
				FAULTGEN_NUMA_PREFERRED, "all"), -EINVAL);
	/* Lists only with the policies that take them, and the reverse. */
	ck_assert_int_eq(faultgen_attr_set_numa_nodes(a, FAULTGEN_NUMA_LOCAL,
						      "0"), -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_numa_nodes(a, FAULTGEN_NUMA_BIND,
						      NULL), -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_numa(a, FAULTGEN_NUMA_BIND),
			 -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_numa(a, (enum faultgen_numa)6),
			 -EINVAL);
	/* A failed setter leaves the attr as it was. */
	ck_assert_int_eq(faultgen_attr_get_numa(a), FAULTGEN_NUMA_DEFAULT);
	ck_assert_ptr_null(faultgen_attr_get_numa_nodes(a));
	ck_assert_int_eq(faultgen_attr_set_numa_nodes(a,
				FAULTGEN_NUMA_INTERLEAVE, "all"), 0);
	ck_assert_str_eq(faultgen_attr_get_numa_nodes(a), "all");
	/* A policy without nodes drops the list. */
	ck_assert_int_eq(faultgen_attr_set_numa(a, FAULTGEN_NUMA_LOCAL), 0);
	ck_assert_ptr_null(faultgen_attr_get_numa_nodes(a));
	faultgen_attr_free(a);
}
END_TEST

START_TEST(node_pages_only_when_asked)
{
	struct faultgen_attr *a;
	struct faultgen_run *run;
	uint64_t pages[4];

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_get_node_pages(a), 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	ck_assert_int_eq(faultgen_run_node_pages(run, -1, pages, 4), -ENODATA);
	faultgen_run_free(run);
	ck_assert_int_eq(faultgen_attr_set_node_pages(a, 1), 0);
	ck_assert_int_eq(faultgen_attr_get_node_pages(a), 1);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	ck_assert_int_eq(faultgen_run_node_pages(run, 1, pages, 4), -ERANGE);
	ck_assert_int_eq(faultgen_run_node_pages(run, -2, pages, 4), -ERANGE);
	ck_assert_int_eq(faultgen_run_node_pages(NULL, -1, pages, 4), -EINVAL);
	ck_assert_int_eq(faultgen_run_node_pages(run, -1, NULL, 4), -EINVAL);
	faultgen_run_free(run);
	/* The patterns that own no slice refuse to count. */
	ck_assert_int_eq(faultgen_attr_set_pattern(a, FAULTGEN_PRETOUCH), 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), -EINVAL);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(node_masks_reject_bad_buffers)
{
	unsigned long mask[2];

	ck_assert_int_eq(faultgen_numa_nodes(NULL, 64), -EINVAL);
	ck_assert_int_eq(faultgen_numa_nodes(mask, 0), -EINVAL);
	ck_assert_int_eq(faultgen_numa_allowed(NULL, 64), -EINVAL);
	if (!numa_here())
		FGC_SKIP("no NUMA support in this kernel");
	ck_assert_int_gt(faultgen_numa_allowed(mask, 128), 0);
	/* Every allowed node exists. */
	{
		unsigned long exist[2];

		ck_assert_int_gt(faultgen_numa_nodes(exist, 128), 0);
		ck_assert_uint_eq(mask[0] & ~exist[0], 0);
		ck_assert_uint_eq(mask[1] & ~exist[1], 0);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("numa");
	TCase *tc = tcase_create("policies");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, each_policy_puts_pages_on_its_node, 0, 24);
	tcase_add_test(tc, node_pages_agree_with_numa_maps);
	tcase_add_test(tc, worker_local_binds_each_slice);
	suite_add_tcase(s, tc);
	tc = tcase_create("lists");
	tcase_add_test(tc, rejects_bad_node_lists);
	tcase_add_test(tc, node_pages_only_when_asked);
	tcase_add_test(tc, node_masks_reject_bad_buffers);
	suite_add_tcase(s, tc);
	return fgc_main(s);
}
