// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pretouch.c - the JVM's AlwaysPreTouch without a JVM.
 *
 * Copyright (C) 2026 The libfaultgen authors
 *
 * Emulates what `java -XX:+AlwaysPreTouch -XmsSIZE -XmxSIZE` does to the
 * kernel at startup: the same heap mapping, chunks, worker count, per-page
 * touch and, for G1, the auxiliary tables after the heap.
 *
 *   pretouch [SIZE [JDK [GC [WORKERS [TOUCH]]]]]
 *     SIZE     heap bytes, e.g. 64M, 4G            (default 64M)
 *     JDK      feature release: 17, 21, 25 ...     (default 25)
 *     GC       g1, parallel or none                (default g1)
 *     WORKERS  0: as the JVM would choose          (default 0)
 *     TOUCH    jvm (what that JDK does here), store, add, populate,
 *              fast, fast-huge                     (default jvm)
 *
 * Prints one line of key=value figures.
 *
 * Build: cc pretouch.c $(pkg-config --cflags --libs libfaultgen)
 */
#include <faultgen.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The touch of JDK `jdk` on this machine: populate only when THP is
 * "always" (JDK 21u and 23+), else the atomic add (19+) or a store. */
static enum faultgen_pretouch_touch jvm_touch(unsigned int jdk)
{
	char buf[128] = "";
	FILE *f;

	f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	if (jdk >= 21 && strstr(buf, "[always]"))
		return FAULTGEN_PRETOUCH_POPULATE;
	return jdk >= 19 ? FAULTGEN_PRETOUCH_ATOMIC_ADD :
			   FAULTGEN_PRETOUCH_STORE;
}

static int parse_touch(const char *s, unsigned int jdk,
		       enum faultgen_pretouch_touch *t)
{
	static const char *const names[] = { "store", "add", "populate",
					     "fast", "fast-huge" };

	if (!strcmp(s, "jvm")) {
		*t = jvm_touch(jdk);
		return 0;
	}
	for (unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(s, names[i])) {
			*t = (enum faultgen_pretouch_touch)i;
			return 0;
		}
	}
	return -1;
}

static int parse_uint(const char *s, unsigned int *v)
{
	char *end;
	unsigned long n = strtoul(s, &end, 10);

	if (!*s || *end || n > 1000000)
		return -1;
	*v = (unsigned int)n;
	return 0;
}

static int parse_gc(const char *s, enum faultgen_jvm_gc *gc)
{
	if (!strcmp(s, "g1"))
		*gc = FAULTGEN_GC_G1;
	else if (!strcmp(s, "parallel"))
		*gc = FAULTGEN_GC_PARALLEL;
	else if (!strcmp(s, "none"))
		*gc = FAULTGEN_GC_NONE;
	else
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct faultgen_result res = { .size = sizeof(res) };
	enum faultgen_jvm_gc gc = FAULTGEN_GC_G1;
	enum faultgen_pretouch_touch touch;
	struct faultgen_attr *attr;
	unsigned int jdk = 25, workers = 0;
	uint64_t size = 64ULL << 20;
	int err;

	if (argc > 6 || (argc > 1 && faultgen_parse_size(argv[1], &size)) ||
	    (argc > 2 && parse_uint(argv[2], &jdk)) ||
	    (argc > 3 && parse_gc(argv[3], &gc)) ||
	    (argc > 4 && parse_uint(argv[4], &workers)) ||
	    parse_touch(argc > 5 ? argv[5] : "jvm", jdk, &touch)) {
		fprintf(stderr, "usage: %s [SIZE [JDK [g1|parallel|none "
				"[WORKERS [jvm|store|add|populate|fast|"
				"fast-huge]]]]]\n", argv[0]);
		return 2;
	}
	err = faultgen_attr_new(&attr);
	if (!err)
		err = faultgen_attr_set_size(attr, size);
	if (!err)
		err = faultgen_attr_set_jvm(attr, jdk, gc);
	if (!err)
		err = faultgen_attr_set_pretouch_touch(attr, touch);
	if (!err && workers)
		err = faultgen_attr_set_workers(attr, workers,
						FAULTGEN_THREADS);
	/* Runs, copies the figures, releases the memory. */
	if (!err)
		err = faultgen_pretouch(attr, &res);
	faultgen_attr_free(attr);
	if (err) {
		fprintf(stderr, "pretouch: %s\n", faultgen_strerror(err));
		return 1;
	}
	printf("bytes=%llu pages=%llu workers=%u elapsed_ms=%.3f "
	       "minflt=%llu expected=%llu agree=%d\n",
	       (unsigned long long)res.bytes, (unsigned long long)res.pages,
	       res.workers, res.elapsed_s * 1e3,
	       (unsigned long long)res.minflt,
	       (unsigned long long)res.expected_faults, res.faults_agree);
	return 0;
}
