// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cpus.c - the allowed CPUs of a run.
 *
 * The allowed set is every CPU of the calling thread's affinity mask,
 * whatever the numbers: masks are sized from the kernel's possible CPUs,
 * never from cpu_set_t (1024 CPUs) or from the number of allowed CPUs (the
 * scan that made pft 0.12x lose every mask not starting at CPU 0).  The
 * narrowing logic is a pure function of bitmaps so that masks of thousands
 * of CPUs are tested on a small machine.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int fg_possible_cpus(void)
{
	char buf[4096];
	long max = -1, v;
	char *p, *end;
	int n;

	n = fg_read_file("/sys/devices/system/cpu/possible", buf, sizeof(buf));
	if (n <= 0) {
		long conf = sysconf(_SC_NPROCESSORS_CONF);

		return conf > 0 ? (int)conf : 1;
	}
	/* The highest id in a list such as "0-7,16-23" gives the count. */
	for (p = buf; *p;) {
		if (*p < '0' || *p > '9') {
			p++;
			continue;
		}
		v = strtol(p, &end, 10);
		if (v > max)
			max = v;
		p = end;
	}
	return max >= 0 ? (int)(max + 1) : 1;
}

/*
 * out = request if every CPU of request is in allowed (request NULL: out =
 * allowed).  Returns the number of CPUs in out, -ENXIO when request names
 * a CPU outside allowed, -EINVAL when the result is empty.
 */
FG_TESTABLE int fg_cpus_narrow(const unsigned long *allowed,
			       const unsigned long *request, size_t nbits,
			       unsigned long *out)
{
	size_t longs = fg_bitmap_longs(nbits);
	int count = 0;

	for (size_t i = 0; i < longs; i++) {
		unsigned long want = request ? request[i] : allowed[i];

		if (want & ~allowed[i])
			return -ENXIO;
		out[i] = want;
		count += __builtin_popcountl(want);
	}
	return count ? count : -EINVAL;
}

/* Round robin over the allowed CPUs: worker i runs on the (i % n)-th. */
FG_TESTABLE int fg_cpu_for_worker(const struct fg_cpus *cpus,
				  unsigned int worker)
{
	if (!cpus->count)
		return -1;
	return cpus->list[worker % cpus->count];
}

/*
 * Where the start spread begins: the index of the caller's CPU in the
 * list when the caller is worker 0, so that it stays on the CPU where it
 * has just set up the run, and the other workers take the CPUs after it.
 * 0 when cpu is not in the list.
 */
FG_TESTABLE unsigned int fg_spread_base(const struct fg_cpus *cpus, int cpu)
{
	for (unsigned int i = 0; i < cpus->count; i++)
		if (cpus->list[i] == cpu)
			return i;
	return 0;
}

static int affinity_bitmap(unsigned long *bits, size_t nbits)
{
	size_t setsize = CPU_ALLOC_SIZE(nbits);
	cpu_set_t *set = CPU_ALLOC(nbits);

	if (!set)
		return -ENOMEM;
	CPU_ZERO_S(setsize, set);
	if (sched_getaffinity(0, setsize, set) < 0) {
		int err = -errno;

		CPU_FREE(set);
		return err;
	}
	for (size_t c = 0; c < nbits; c++)
		if (CPU_ISSET_S(c, setsize, set))
			fg_bit_set(bits, c);
	CPU_FREE(set);
	return 0;
}

void fg_cpus_release(struct fg_cpus *cpus)
{
	free(cpus->bits);
	free(cpus->list);
	memset(cpus, 0, sizeof(*cpus));
}

/* Parses list into a fresh bitmap of nbits; NULL list gives NULL. */
static int parse_request(const char *list, size_t nbits, unsigned long **out)
{
	unsigned long *mask;
	int ret;

	*out = NULL;
	if (!list)
		return 0;
	mask = calloc(fg_bitmap_longs(nbits), sizeof(*mask));
	if (!mask)
		return -ENOMEM;
	ret = fg_parse_cpulist(list, mask, nbits);
	if (ret < 0) {
		free(mask);
		return ret;
	}
	*out = mask;
	return 0;
}

/*
 * Narrows *allowed (nbits) to the cpuset's CPUs and gives its memory
 * nodes (*mems, NULL when it names none).
 */
static int narrow_to_cpuset(const char *name, unsigned long *allowed,
			    size_t nbits, const char **source,
			    unsigned long **mems, size_t *mems_nbits)
{
	char *setcpus = NULL, *setmems = NULL;
	unsigned long *req = NULL;
	const char *src = "";
	int ret;

	ret = fg_cpuset_read(name, NULL, NULL, &setcpus, &setmems, &src);
	if (ret)
		return ret;
	if (source)
		*source = src;
	ret = parse_request(setcpus, nbits, &req);
	if (!ret)
		ret = fg_cpus_narrow(allowed, req, nbits, allowed);
	if (ret >= 0 && mems && setmems && setmems[0]) {
		size_t mbits = 4096;

		ret = parse_request(setmems, mbits, mems);
		if (!ret)
			*mems_nbits = mbits;
	}
	free(req);
	free(setcpus);
	free(setmems);
	return ret < 0 ? ret : 0;
}

static int list_cpus(struct fg_cpus *cpus)
{
	unsigned int n = 0;

	cpus->list = calloc(cpus->count, sizeof(*cpus->list));
	if (!cpus->list)
		return -ENOMEM;
	for (size_t c = 0; c < cpus->nbits; c++)
		if (fg_bit_test(cpus->bits, c))
			cpus->list[n++] = (int)c;
	return 0;
}

int fg_cpus_resolve(const struct faultgen_attr *attr, struct fg_cpus *cpus,
		    const char **cpuset_source, unsigned long **mems,
		    size_t *mems_nbits)
{
	unsigned long *allowed = NULL, *req = NULL;
	int possible = fg_possible_cpus();
	size_t nbits = (size_t)possible, longs = fg_bitmap_longs(nbits);
	int ret;

	memset(cpus, 0, sizeof(*cpus));
	if (cpuset_source)
		*cpuset_source = "";
	if (mems)
		*mems = NULL;
	allowed = calloc(longs, sizeof(*allowed));
	cpus->bits = calloc(longs, sizeof(*cpus->bits));
	if (!allowed || !cpus->bits) {
		ret = -ENOMEM;
		goto out;
	}
	cpus->nbits = nbits;
	ret = affinity_bitmap(allowed, nbits);
	if (!ret && attr->cpuset)
		ret = narrow_to_cpuset(attr->cpuset, allowed, nbits,
				       cpuset_source, mems, mems_nbits);
	if (!ret)
		ret = parse_request(attr->cpulist, nbits, &req);
	if (ret)
		goto out;
	ret = fg_cpus_narrow(allowed, req, nbits, cpus->bits);
	if (ret < 0)
		goto out;
	cpus->count = (unsigned int)ret;
	ret = list_cpus(cpus);
out:
	free(allowed);
	free(req);
	if (ret) {
		fg_cpus_release(cpus);
		if (mems) {
			free(*mems);
			*mems = NULL;
		}
	}
	return ret;
}

/* The CPUs as a caller's bitmap of nbits; -ENOBUFS when one is beyond. */
int fg_cpus_to_mask(const struct fg_cpus *cpus, unsigned long *mask,
		    size_t nbits)
{
	memset(mask, 0, fg_bitmap_longs(nbits) * sizeof(*mask));
	for (unsigned int i = 0; i < cpus->count; i++) {
		size_t c = (size_t)cpus->list[i];

		if (c >= nbits)
			return -ENOBUFS;
		fg_bit_set(mask, c);
	}
	return (int)cpus->count;
}
