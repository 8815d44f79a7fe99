// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * usage.c - what -h and -V print.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pft.h"

/* No empty line: a harness may merge this into what it parses. */
static const char usage_text[] =
"Usage: pft [OPTION]... [TAG]\n"
"Fault anonymous (or SysV, or /dev/zero) memory from several workers and\n"
"report faults per CPU second and per wall second, as pft 0.12x did.\n"
"0.12x options:\n"
"  -m, --size=SIZE        memory in all: bytes, or a K, M, G, T or P\n"
"                         (pages) suffix (default: one page)\n"
"  -t, --threads=N        N worker threads (default 1)\n"
"  -n, --processes=N      N worker processes; -t and -n: the later wins\n"
"  -c, --cachelines=N     write N cachelines of every page (default 1; at\n"
"                         most the cachelines in a page)\n"
"  -z                     memset each worker's slice (--touch=memset)\n"
"  -l                     mlock each worker's slice (--touch=mlock)\n"
"  -S, --sysv             a SysV shared memory segment\n"
"  -L, --shm-lock         SHM_LOCK the SysV segment (implies -S)\n"
"  -Z, --dev-zero         a private mapping of /dev/zero\n"
"      --backing=KIND     the memory: anon (default), dev-zero, sysv,\n"
"                         memfd (a memfd_create file, shmem), hugetlb\n"
"                         (MAP_HUGETLB, 2 MiB pages from nr_hugepages) or\n"
"                         file:PATH (a file made in directory PATH, or\n"
"                         the file PATH as it is; hugetlbfs too)\n"
"      --share            MAP_SHARED: anon and dev-zero are shmem then\n"
"  -p, --numa-local, --localalloc\n"
"                         mbind MPOL_PREFERRED, empty node mask (local)\n"
"  -a, --pin              pin worker i to the i-th allowed CPU, round robin\n"
"  -f, --fifo             run the workers SCHED_FIFO (needs the privilege)\n"
"  -F                     accepted and ignored, as in 0.12x\n"
"      --oversubscribe    allow more workers than allowed CPUs\n"
"      --force            run even when -m is more than the available memory\n"
"  -M                     one mapping per worker (--pattern=per-thread-vma)\n"
"  -s, --sleep=N          keep the memory N seconds after the run\n"
"  -T, --title            print a title line (and a TAG line with a tag)\n"
"  -N, --numa-maps        print the region's /proc/PID/numa_maps lines\n"
"  -P, --pause            after the run, wait for SIGUSR1 (inspect maps)\n"
"  -v, --verbose          more diagnostics on stderr (repeatable)\n"
"  -V, --version          print the version on stderr and exit\n"
"  -C                     no-clear pages: not supported by this kernel\n"
"  -h, --help             print this help and exit\n"
"      --list-patterns    print the pattern names, one a line, and exit\n"
"  TAG                    label for the TAG line of -T\n"
"Workload:\n";

/* The rest, after the pattern list (the library's patterns). */
static const char usage_rest[] =
"  --cpus=LIST            narrow the allowed CPUs, e.g. 7,14,21 or 0-63:8\n"
"  --cpuset=NAME          move pft into cpuset NAME and run on its CPUs\n"
"  --touch=HOW            write (default), read, memset, mlock, populate\n"
"  --thp=MODE             default, always (MADV_HUGEPAGE), never\n"
"                         (MADV_NOHUGEPAGE), per region; sysfs untouched\n"
"  --duration=SECONDS     fault, zap and fault again for SECONDS\n"
"  --rounds=N             ... or for N rounds per worker\n"
"  --zap=HOW              dontneed (default) or munmap (per-thread-vma)\n"
"  --warmup=N             N unmeasured rounds first (default 2)\n"
"  --writers=M[,OP]       shared-vma: M threads beside the workers changing\n"
"                         mappings of their own: mmap (default), mprotect,\n"
"                         madvise\n"
"  --interleave-pages=K   shared-vma: deal the pages in blocks of K round\n"
"                         robin over the workers (0: slices, the default)\n"
"Memory policy (NODES: 0, 0-3, 1,3 or all):\n"
"  --membind=NODES        MPOL_BIND: pages only on NODES\n"
"  --interleave=NODES     MPOL_INTERLEAVE: page by page over NODES\n"
"  --preferred=NODE       MPOL_PREFERRED: on NODE while it has memory\n"
"  --numa=POLICY          default, local (-p), worker-local (each slice on\n"
"                         the node of its worker's CPU)\n"
"Read-only collapse (--pattern=ro-collapse):\n"
"  --protect=HOW          mprotect (default), fork, writable (control)\n"
"  --collapse=HOW         madvise (MADV_COLLAPSE, default), khugepaged\n"
"  --timeout=SECONDS      how long to wait for khugepaged (default 60)\n"
"JVM heap pretouch (--pattern=pretouch; -t: the JVM's count by default):\n"
"  --pretouch=HOW         store (JDK 17), atomic-add (default, JDK 19+),\n"
"                         populate (JDK 21u+), fast, fast-huge\n"
"  --chunk-size=SIZE      pages claimed at a time (default 4M)\n"
"  --jdk=N                JDK feature release to model (default 21)\n"
"  --gc=GC                none (default: the heap only), g1, parallel\n"
"QEMU's guest-RAM preallocation (--pattern=qemu-prealloc; -t: its\n"
"prealloc-threads; --backing=anon, memfd, file:PATH or hugetlb, --share\n"
"as QEMU's share=on):\n"
"  --qemu=HOW             auto (default: MADV_POPULATE_WRITE where the\n"
"                         kernel has it, as QEMU 7.0+), touch (every page)\n"
"Copy-on-write after fork (--pattern=cow-fork):\n"
"  --cow-child=HOW        what each round's child does beside the writes:\n"
"                         waits (default), reads or writes every page once\n"
"Output:\n"
"  --repeat=N             N runs, then a summary of fault/wsec\n"
"  --json                 one JSON object per run (JSON Lines) on stdout\n"
"                         instead of the result lines\n"
"  --per-worker           a line of figures per worker after each result\n"
"  --latency[=N]          time the touch of one page in N (default every\n"
"                         one), or each call of a touch made in calls\n"
"                         (-l, -z, populate, ro-collapse): p50, p90, p99,\n"
"                         p99.9, max and what the scheduler did, after\n"
"                         the result\n"
"  --perf-ctl=CTL[,ACK]   write perf's \"enable\"/\"disable\" to CTL (a file\n"
"                         descriptor number or a FIFO) around each run,\n"
"                         waiting for \"ack\" on ACK when given\n"
"Result line: Gb, workers, cachelines, user, system and wall seconds,\n"
"pages per CPU second and per wall second.  Exit status: 0 success,\n"
"1 the run failed, 2 bad usage, 128+N stopped by signal N.\n"
"See pft(1).\n";

/* "  --pattern=P" and the library's patterns, wrapped as the rest is. */
static void print_patterns_option(void)
{
	static const char head[] = "  --pattern=P            ";
	size_t col = sizeof(head) - 1;
	char list[1024], *word;

	pft_pattern_list(list, sizeof(list), " (default)");
	fputs(head, stdout);
	col = sizeof(head) - 1;
	for (word = strtok(list, " "); word; word = strtok(NULL, " ")) {
		size_t len = strlen(word);

		if (col > sizeof(head) - 1 && col + 1 + len > 79) {
			printf("\n%*s", (int)sizeof(head) - 1, "");
			col = sizeof(head) - 1;
		} else if (col > sizeof(head) - 1) {
			putchar(' ');
			col++;
		}
		fputs(word, stdout);
		col += len;
	}
	putchar('\n');
}

/* A reader gone (pft -h | head) is said as for a result: one line, exit
 * 1 (SIGPIPE is ignored from the start).  errno is the first write's
 * error: the printers clear it before they write. */
static int flushed(const char *what)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return PFT_DONE;
	return pft_fail("cannot write %s on standard output: %s", what,
			errno ? strerror(errno) : "write error");
}

int pft_print_help(void)
{
	errno = 0;
	fputs(usage_text, stdout);
	print_patterns_option();
	fputs(usage_rest, stdout);
	return flushed("the help");
}

int pft_print_version(void)
{
	fprintf(stderr,
		"pft 0.12x-compatible, libfaultgen %s, libcpuset %s\n",
		faultgen_version(),
		faultgen_has_libcpuset() ? "built in" : "not built in");
	return PFT_DONE;
}

/* The names --pattern takes, for scripts (pft-sweep). */
int pft_print_patterns(void)
{
	errno = 0;
	for (int i = 0; i < faultgen_pattern_count(); i++)
		puts(faultgen_pattern_name(i));
	return flushed("the pattern names");
}
