// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * options.c - pft's command line: 0.12x's short options, the GNU long
 * options, and their mapping onto a libfaultgen attr.
 *
 * Every complaint about the command line is one line on stderr naming the
 * option, then the hint, and exit status 2 (nothing has run yet, so there
 * is nothing to release but this process).
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pft.h"

enum long_only {
	OPT_PATTERN = 256,
	OPT_THREADS,
	OPT_PROCESSES,
	OPT_CPUS,
	OPT_CPUSET,
	OPT_TOUCH,
	OPT_CACHELINES,
	OPT_THP,
	OPT_NUMA_LOCAL,
	OPT_DURATION,
	OPT_ROUNDS,
	OPT_ZAP,
	OPT_WARMUP,
	OPT_REPEAT,
	OPT_JSON,
	OPT_PERF_CTL,
	OPT_PER_WORKER,
	OPT_COLLAPSE,
	OPT_PROTECT,
	OPT_TIMEOUT,
	OPT_SIZE,
	OPT_SLEEP,
	OPT_PRETOUCH,
	OPT_CHUNK,
	OPT_JDK,
	OPT_GC,
	OPT_FORCE,
};

static const struct option long_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "processes", required_argument, NULL, OPT_PROCESSES },
	{ "cachelines", required_argument, NULL, OPT_CACHELINES },
	{ "sleep", required_argument, NULL, OPT_SLEEP },
	{ "pin", no_argument, NULL, 'a' },
	{ "fifo", no_argument, NULL, 'f' },
	{ "sysv", no_argument, NULL, 'S' },
	{ "shm-lock", no_argument, NULL, 'L' },
	{ "dev-zero", no_argument, NULL, 'Z' },
	{ "title", no_argument, NULL, 'T' },
	{ "numa-maps", no_argument, NULL, 'N' },
	{ "pause", no_argument, NULL, 'P' },
	{ "oversubscribe", no_argument, NULL, 'F' },
	{ "pattern", required_argument, NULL, OPT_PATTERN },
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ "cpuset", required_argument, NULL, OPT_CPUSET },
	{ "touch", required_argument, NULL, OPT_TOUCH },
	{ "thp", required_argument, NULL, OPT_THP },
	{ "numa-local", no_argument, NULL, OPT_NUMA_LOCAL },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "rounds", required_argument, NULL, OPT_ROUNDS },
	{ "zap", required_argument, NULL, OPT_ZAP },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "repeat", required_argument, NULL, OPT_REPEAT },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "perf-ctl", required_argument, NULL, OPT_PERF_CTL },
	{ "per-worker", no_argument, NULL, OPT_PER_WORKER },
	{ "collapse", required_argument, NULL, OPT_COLLAPSE },
	{ "protect", required_argument, NULL, OPT_PROTECT },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "pretouch", required_argument, NULL, OPT_PRETOUCH },
	{ "chunk-size", required_argument, NULL, OPT_CHUNK },
	{ "jdk", required_argument, NULL, OPT_JDK },
	{ "gc", required_argument, NULL, OPT_GC },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ NULL, 0, NULL, 0 },
};

/* A leading ':' lets pft tell a missing argument from an unknown option. */
static const char short_options[] = ":ac:fhlm:n:ps:t:vzCFLMNPSTVZ";

/* No empty line: a harness may merge this into what it parses. */
static const char usage_text[] =
"Usage: pft [OPTION]... [TAG]\n"
"Fault anonymous (or SysV, or /dev/zero) memory from several workers and\n"
"report faults per CPU second and per wall second, as pft 0.12x did.\n"
"0.12x options:\n"
"  -m, --size=SIZE        memory in all: bytes, or a K, M, G or P (pages)\n"
"                         suffix (default: one page)\n"
"  -t, --threads=N        N worker threads (default 1)\n"
"  -n, --processes=N      N worker processes; -t and -n: the later wins\n"
"  -c, --cachelines=N     write N cachelines of every page (default 1; at\n"
"                         most the cachelines in a page)\n"
"  -z                     memset each worker's slice (--touch=memset)\n"
"  -l                     mlock each worker's slice (--touch=mlock)\n"
"  -S, --sysv             a SysV shared memory segment\n"
"  -L, --shm-lock         SHM_LOCK the SysV segment (implies -S)\n"
"  -Z, --dev-zero         a private mapping of /dev/zero\n"
"  -p, --numa-local       mbind MPOL_PREFERRED, empty node mask (local)\n"
"  -a, --pin              pin worker i to the i-th allowed CPU, round robin\n"
"  -f, --fifo             run the workers SCHED_FIFO (needs the privilege)\n"
"  -F, --oversubscribe    allow more workers than allowed CPUs\n"
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
"  TAG                    label for the TAG line of -T\n"
"Workload:\n"
"  --pattern=P            shared-vma (default), per-thread-vma, ro-collapse,\n"
"                         pretouch\n"
"  --cpus=LIST            narrow the allowed CPUs, e.g. 7,14,21 or 0-63:8\n"
"  --cpuset=NAME          move pft into cpuset NAME and run on its CPUs\n"
"  --touch=HOW            write (default), read, memset, mlock, populate\n"
"  --thp=MODE             default, always (MADV_HUGEPAGE), never\n"
"                         (MADV_NOHUGEPAGE), per region; sysfs untouched\n"
"  --duration=SECONDS     fault, zap and fault again for SECONDS\n"
"  --rounds=N             ... or for N rounds per worker\n"
"  --zap=HOW              dontneed (default) or munmap (per-thread-vma)\n"
"  --warmup=N             N unmeasured rounds first (default 2)\n"
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
"Output:\n"
"  --repeat=N             N runs, then a summary of fault/wsec\n"
"  --json                 one JSON object per run (JSON Lines) on stdout\n"
"                         instead of the result lines\n"
"  --per-worker           a line of figures per worker after each result\n"
"  --perf-ctl=CTL[,ACK]   write perf's \"enable\"/\"disable\" to CTL (a file\n"
"                         descriptor number or a FIFO) around each run,\n"
"                         waiting for \"ack\" on ACK when given\n"
"Result line: Gb, workers, cachelines, user, system and wall seconds,\n"
"pages per CPU second and per wall second.  Exit status: 0 success,\n"
"1 the run failed, 2 bad usage, 128+N stopped by signal N.\n"
"See pft(1).\n";

/* The analyzer takes the va_list parameter for uninitialized (its
 * callers va_start it). */
static void vmsg(const char *fmt, va_list ap)
{
	fputs("pft: ", stderr);
	vfprintf(stderr, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)
	fputc('\n', stderr);
}

void pft_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void pft_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	fputs("Try 'pft --help' for more information.\n", stderr);
	exit(PFT_EXIT_USAGE);
}

void pft_opts_init(struct pft_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->pattern = FAULTGEN_SHARED_VMA;
	o->workers = 1;
	o->kind = FAULTGEN_THREADS;
	o->cachelines = 1;
	o->touch = FAULTGEN_TOUCH_WRITE;
	o->backing = FAULTGEN_BACKING_ANON;
	o->thp = FAULTGEN_THP_DEFAULT;
	o->zap = FAULTGEN_ZAP_DONTNEED;
	o->protect = FAULTGEN_PROTECT_MPROTECT;
	o->collapse = FAULTGEN_COLLAPSE_MADVISE;
	o->timeout = 60;
	o->pretouch = FAULTGEN_PRETOUCH_ATOMIC_ADD;
	o->jdk = 21;
	o->gc = FAULTGEN_GC_NONE;
	o->repeat = 1;
	o->perf_fd = -1;
	o->perf_ack_fd = -1;
	o->oom_at_fork = -1;
	o->pagesize = sysconf(_SC_PAGESIZE);
}

/*
 * A count: decimal digits only (0.12x read these with atol, so "abc" was
 * silently 0).  Returns it, or exits with a usage error naming opt.
 */
static unsigned long parse_count(const char *opt, const char *s,
				 unsigned long min, unsigned long max)
{
	unsigned long long v = 0;
	const char *p = s;

	if (!*p)
		pft_usage_error("%s '': a number is needed", opt);
	for (; *p; p++) {
		if (!isdigit((unsigned char)*p))
			pft_usage_error("%s '%s': not a whole number", opt, s);
		if (v > (ULLONG_MAX - 9) / 10)
			pft_usage_error("%s '%s': too large (at most %lu)", opt,
					s, max);
		v = v * 10 + (unsigned long long)(*p - '0');
	}
	if (v < min)
		pft_usage_error("%s '%s': must be at least %lu", opt, s, min);
	if (v > max)
		pft_usage_error("%s '%s': too large (at most %lu)", opt, s, max);
	return (unsigned long)v;
}

/* Seconds: digits with an optional fraction, read in the C locale. */
static double parse_seconds(const char *opt, const char *s, bool zero_ok)
{
	const char *p = s;
	int digits = 0;
	double v;

	while (isdigit((unsigned char)*p)) {
		p++;
		digits++;
	}
	if (*p == '.') {
		p++;
		while (isdigit((unsigned char)*p)) {
			p++;
			digits++;
		}
	}
	if (!digits || *p)
		pft_usage_error("%s '%s': not a number of seconds", opt, s);
	v = strtod(s, NULL);
	if (!isfinite(v) || v > 86400)
		pft_usage_error("%s '%s': too long (at most 86400 seconds)",
				opt, s);
	if (v <= 0 && !zero_ok)
		pft_usage_error("%s '%s': must be more than 0 seconds", opt, s);
	return v;
}

struct name_val {
	const char *name;
	int val;
};

static int parse_keyword(const char *opt, const char *s,
			 const struct name_val *tab, const char *choices)
{
	for (; tab->name; tab++)
		if (strcmp(s, tab->name) == 0)
			return tab->val;
	pft_usage_error("%s '%s': must be one of %s", opt, s, choices);
}

static const struct name_val patterns[] = {
	{ "shared-vma", FAULTGEN_SHARED_VMA },
	{ "per-thread-vma", FAULTGEN_PER_THREAD_VMA },
	{ "ro-collapse", FAULTGEN_RO_COLLAPSE },
	{ "pretouch", FAULTGEN_PRETOUCH },
	{ NULL, 0 },
};

static const struct name_val touches[] = {
	{ "write", FAULTGEN_TOUCH_WRITE },
	{ "read", FAULTGEN_TOUCH_READ },
	{ "memset", FAULTGEN_TOUCH_MEMSET },
	{ "mlock", FAULTGEN_TOUCH_MLOCK },
	{ "populate", FAULTGEN_TOUCH_POPULATE },
	{ NULL, 0 },
};

static const struct name_val thps[] = {
	{ "default", FAULTGEN_THP_DEFAULT },
	{ "always", FAULTGEN_THP_HUGEPAGE },
	{ "never", FAULTGEN_THP_NOHUGEPAGE },
	{ NULL, 0 },
};

static const struct name_val zaps[] = {
	{ "dontneed", FAULTGEN_ZAP_DONTNEED },
	{ "munmap", FAULTGEN_ZAP_MUNMAP },
	{ NULL, 0 },
};

static const struct name_val protects[] = {
	{ "mprotect", FAULTGEN_PROTECT_MPROTECT },
	{ "fork", FAULTGEN_PROTECT_FORK },
	{ "writable", FAULTGEN_PROTECT_WRITABLE },
	{ NULL, 0 },
};

static const struct name_val collapses[] = {
	{ "madvise", FAULTGEN_COLLAPSE_MADVISE },
	{ "khugepaged", FAULTGEN_COLLAPSE_KHUGEPAGED },
	{ NULL, 0 },
};

static const struct name_val pretouches[] = {
	{ "store", FAULTGEN_PRETOUCH_STORE },
	{ "atomic-add", FAULTGEN_PRETOUCH_ATOMIC_ADD },
	{ "populate", FAULTGEN_PRETOUCH_POPULATE },
	{ "fast", FAULTGEN_PRETOUCH_FAST },
	{ "fast-huge", FAULTGEN_PRETOUCH_FAST_HUGE },
	{ NULL, 0 },
};

static const struct name_val gcs[] = {
	{ "none", FAULTGEN_GC_NONE },
	{ "g1", FAULTGEN_GC_G1 },
	{ "parallel", FAULTGEN_GC_PARALLEL },
	{ NULL, 0 },
};

static const char *name_of(const struct name_val *tab, int val)
{
	for (; tab->name; tab++)
		if (tab->val == val)
			return tab->name;
	return "unknown";
}

const char *pft_pattern_name(enum faultgen_pattern p)
{
	return name_of(patterns, (int)p);
}

const char *pft_touch_name(enum faultgen_touch t)
{
	return name_of(touches, (int)t);
}

const char *pft_thp_name(enum faultgen_thp t)
{
	return name_of(thps, (int)t);
}

const char *pft_zap_name(enum faultgen_zap z)
{
	return name_of(zaps, (int)z);
}

const char *pft_protect_name(enum faultgen_protect p)
{
	return name_of(protects, (int)p);
}

const char *pft_collapse_name(enum faultgen_collapse c)
{
	return name_of(collapses, (int)c);
}

const char *pft_pretouch_name(enum faultgen_pretouch_touch t)
{
	return name_of(pretouches, (int)t);
}

const char *pft_gc_name(enum faultgen_jvm_gc g)
{
	return name_of(gcs, (int)g);
}

const char *pft_backing_name(enum faultgen_backing b)
{
	switch (b) {
	case FAULTGEN_BACKING_ANON:
		return "anon";
	case FAULTGEN_BACKING_DEVZERO:
		return "dev-zero";
	case FAULTGEN_BACKING_SYSV:
		return "sysv";
	}
	return "unknown";
}

static void set_size(struct pft_opts *o, const char *opt, const char *s)
{
	int ret = faultgen_parse_size(s, &o->size);

	if (ret == -ERANGE)
		pft_usage_error("%s '%s': size too large", opt, s);
	if (ret)
		pft_usage_error("%s '%s': bad size (a number with an optional "
				"K, M, G or P suffix)", opt, s);
	if (o->size == 0)
		pft_usage_error("%s '%s': the size must be more than 0", opt,
				s);
}

/* -t and -n: the later one wins (0.12x zeroed the wrong count). */
static void set_workers(struct pft_opts *o, const char *opt, const char *s,
			enum faultgen_workers kind)
{
	if (o->workers_given && o->kind != kind && o->verbose)
		pft_msg("%s: switching to %s mode", opt,
			kind == FAULTGEN_THREADS ? "thread" : "process");
	o->workers = (unsigned int)parse_count(opt, s, 1, PFT_MAX_WORKERS);
	o->kind = kind;
	o->workers_given = true;
}

/* -z, -l and --touch choose one touch; two different ones conflict, except
 * that -l and -L override each other as in 0.12x. */
static void set_touch(struct pft_opts *o, const char *opt,
		      enum faultgen_touch touch)
{
	if (o->touch_opt && o->touch != touch)
		pft_usage_error("%s conflicts with %s: choose one way to touch "
				"the memory", opt, o->touch_opt);
	if (touch == FAULTGEN_TOUCH_MLOCK && o->shm_lock) {
		pft_msg("-l overrides -L: mlock instead of SHM_LOCK");
		o->shm_lock = false;
	}
	o->touch = touch;
	o->touch_opt = opt;
}

static void set_backing(struct pft_opts *o, const char *opt,
			enum faultgen_backing backing)
{
	if (o->backing_opt && o->backing != backing)
		pft_usage_error("%s conflicts with %s: choose one kind of memory",
				opt, o->backing_opt);
	o->backing = backing;
	o->backing_opt = opt;
}

static void set_shm_lock(struct pft_opts *o)
{
	if (o->touch == FAULTGEN_TOUCH_MLOCK && o->touch_opt) {
		pft_msg("-L overrides %s: SHM_LOCK instead of mlock",
			o->touch_opt);
		o->touch = FAULTGEN_TOUCH_WRITE;
		o->touch_opt = NULL;
	}
	set_backing(o, "-L", FAULTGEN_BACKING_SYSV);
	o->shm_lock = true;
}

static void set_chunk(struct pft_opts *o, const char *s)
{
	int ret = faultgen_parse_size(s, &o->chunk);

	if (ret)
		pft_usage_error("--chunk-size '%s': bad size (a number with an "
				"optional K, M, G or P suffix)", s);
	if (o->chunk == 0 || o->chunk % (uint64_t)o->pagesize ||
	    o->chunk > (1ULL << 40))
		pft_usage_error("--chunk-size '%s': a multiple of the page size "
				"(%ld), at most 1T", s, o->pagesize);
	o->chunk_given = true;
}

static void set_perf_ctl(struct pft_opts *o, const char *s)
{
	if (!*s)
		pft_usage_error("--perf-ctl '': a file descriptor or FIFO is "
				"needed");
	o->perf_ctl = s;
}

static void print_version(void)
{
	fprintf(stderr,
		"pft 0.12x-compatible, libfaultgen %s, libcpuset %s\n",
		faultgen_version(),
		faultgen_has_libcpuset() ? "built in" : "not built in");
}

static void bad_option(int argc, char **argv)
{
	const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";

	if (optopt && optopt < 256 && strncmp(arg, "--", 2) != 0)
		pft_usage_error("unknown option '-%c'", optopt);
	if (optopt) /* a long option that takes no argument got one */
		pft_usage_error("option '%.*s' takes no argument",
				(int)strcspn(arg, "="), arg);
	pft_usage_error("unknown option '%s'", arg);
}

static void missing_argument(int argc, char **argv)
{
	const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";

	if (strncmp(arg, "--", 2) == 0)
		pft_usage_error("option '%s' needs an argument", arg);
	pft_usage_error("option '-%c' needs an argument", optopt);
}

static void parse_one(struct pft_opts *o, int c, const char *arg, int argc,
		      char **argv)
{
	switch (c) {
	case 'a':
		o->pin = true;
		break;
	case 'c':
	case OPT_CACHELINES:
		o->cachelines = (unsigned int)parse_count(
			c == 'c' ? "-c" : "--cachelines", arg, 1, 1u << 20);
		break;
	case 'f':
		o->sched_fifo = true;
		break;
	case 'h':
		fputs(usage_text, stdout);
		exit(fflush(stdout) ? PFT_EXIT_FAIL : PFT_EXIT_OK);
	case 'l':
		set_touch(o, "-l", FAULTGEN_TOUCH_MLOCK);
		break;
	case 'm':
	case OPT_SIZE:
		set_size(o, c == 'm' ? "-m" : "--size", arg);
		break;
	case 'n':
	case OPT_PROCESSES:
		set_workers(o, c == 'n' ? "-n" : "--processes", arg,
			    FAULTGEN_PROCESSES);
		break;
	case 't':
	case OPT_THREADS:
		set_workers(o, c == 't' ? "-t" : "--threads", arg,
			    FAULTGEN_THREADS);
		break;
	case 'p':
	case OPT_NUMA_LOCAL:
		o->numa_local = true;
		break;
	case 's':
	case OPT_SLEEP:
		o->sleep_s = (unsigned int)parse_count(
			c == 's' ? "-s" : "--sleep", arg, 0, 86400);
		break;
	case 'v':
		o->verbose++;
		break;
	case 'z':
		set_touch(o, "-z", FAULTGEN_TOUCH_MEMSET);
		break;
	case 'C':
		pft_usage_error("-C (no-clear pages) is not supported by this "
				"kernel");
	case 'F':
		o->oversubscribe = true;
		break;
	case OPT_FORCE:
		o->force = true;
		break;
	case 'L':
		set_shm_lock(o);
		break;
	case 'M':
		o->pattern = FAULTGEN_PER_THREAD_VMA;
		break;
	case 'N':
		o->numa_maps = true;
		break;
	case 'P':
		o->pause = true;
		break;
	case 'S':
		set_backing(o, "-S", FAULTGEN_BACKING_SYSV);
		break;
	case 'T':
		o->title = true;
		break;
	case 'V':
		print_version();
		exit(PFT_EXIT_OK);
	case 'Z':
		set_backing(o, "-Z", FAULTGEN_BACKING_DEVZERO);
		break;
	case OPT_PATTERN:
		o->pattern = (enum faultgen_pattern)parse_keyword(
			"--pattern", arg, patterns,
			"shared-vma, per-thread-vma, ro-collapse, pretouch");
		break;
	case OPT_CPUS:
		o->cpus = arg;
		break;
	case OPT_CPUSET:
		if (!*arg)
			pft_usage_error("--cpuset '': a cpuset name is needed");
		o->cpuset = arg;
		break;
	case OPT_TOUCH:
		set_touch(o, "--touch",
			  (enum faultgen_touch)parse_keyword(
				  "--touch", arg, touches,
				  "write, read, memset, mlock, populate"));
		break;
	case OPT_THP:
		o->thp = (enum faultgen_thp)parse_keyword(
			"--thp", arg, thps, "default, always, never");
		break;
	case OPT_DURATION:
		if (o->rounds)
			pft_usage_error("--duration conflicts with --rounds: "
					"choose one");
		o->duration = parse_seconds("--duration", arg, false);
		break;
	case OPT_ROUNDS:
		if (o->duration > 0)
			pft_usage_error("--rounds conflicts with --duration: "
					"choose one");
		o->rounds = (unsigned int)parse_count("--rounds", arg, 1,
						      1000000000);
		break;
	case OPT_ZAP:
		o->zap = (enum faultgen_zap)parse_keyword("--zap", arg, zaps,
							  "dontneed, munmap");
		o->zap_given = true;
		break;
	case OPT_WARMUP:
		o->warmup = (unsigned int)parse_count("--warmup", arg, 0,
						      1000000);
		o->warmup_given = true;
		break;
	case OPT_REPEAT:
		o->repeat = (unsigned int)parse_count("--repeat", arg, 1,
						      1000000);
		break;
	case OPT_JSON:
		o->json = true;
		break;
	case OPT_PERF_CTL:
		set_perf_ctl(o, arg);
		break;
	case OPT_PER_WORKER:
		o->per_worker = true;
		break;
	case OPT_COLLAPSE:
		o->collapse = (enum faultgen_collapse)parse_keyword(
			"--collapse", arg, collapses, "madvise, khugepaged");
		o->collapse_given = true;
		break;
	case OPT_PROTECT:
		o->protect = (enum faultgen_protect)parse_keyword(
			"--protect", arg, protects,
			"mprotect, fork, writable");
		o->protect_given = true;
		break;
	case OPT_TIMEOUT:
		o->timeout = parse_seconds("--timeout", arg, false);
		o->timeout_given = true;
		break;
	case OPT_PRETOUCH:
		o->pretouch = (enum faultgen_pretouch_touch)parse_keyword(
			"--pretouch", arg, pretouches,
			"store, atomic-add, populate, fast, fast-huge");
		o->pretouch_given = true;
		break;
	case OPT_CHUNK:
		set_chunk(o, arg);
		break;
	case OPT_JDK:
		o->jdk = (unsigned int)parse_count("--jdk", arg, 8, 99);
		o->jdk_given = true;
		break;
	case OPT_GC:
		o->gc = (enum faultgen_jvm_gc)parse_keyword(
			"--gc", arg, gcs, "none, g1, parallel");
		o->gc_given = true;
		break;
	case ':':
		missing_argument(argc, argv);
		break;
	default:
		bad_option(argc, argv);
	}
}

static void check_pretouch(const struct pft_opts *o, bool repeat_mode)
{
	bool pretouch = o->pattern == FAULTGEN_PRETOUCH;

	if (!pretouch && o->pretouch_given)
		pft_usage_error("--pretouch needs --pattern=pretouch");
	if (!pretouch && o->chunk_given)
		pft_usage_error("--chunk-size needs --pattern=pretouch");
	if (!pretouch && o->jdk_given)
		pft_usage_error("--jdk needs --pattern=pretouch");
	if (!pretouch && o->gc_given)
		pft_usage_error("--gc needs --pattern=pretouch");
	if (!pretouch)
		return;
	if (repeat_mode)
		pft_usage_error("--pattern=pretouch runs once: it takes no "
				"--duration or --rounds");
	if (o->backing_opt)
		pft_usage_error("%s conflicts with --pattern=pretouch (a JVM "
				"heap is anonymous memory)", o->backing_opt);
	if (o->kind == FAULTGEN_PROCESSES)
		pft_usage_error("--pattern=pretouch runs threads, not "
				"processes");
	if (o->touch_opt)
		pft_usage_error("%s conflicts with --pattern=pretouch: choose "
				"the touch with --pretouch", o->touch_opt);
}

/* Combinations no single option can judge; checked after all are read. */
static void check_combinations(struct pft_opts *o)
{
	bool repeat_mode = o->rounds || o->duration > 0;
	bool collapse = o->pattern == FAULTGEN_RO_COLLAPSE;

	if (!repeat_mode && o->zap_given)
		pft_usage_error("--zap needs --duration or --rounds");
	if (!repeat_mode && o->warmup_given)
		pft_usage_error("--warmup needs --duration or --rounds");
	if (repeat_mode && !o->warmup_given)
		o->warmup = PFT_DEFAULT_WARMUP;
	if (repeat_mode && o->zap == FAULTGEN_ZAP_MUNMAP &&
	    o->pattern != FAULTGEN_PER_THREAD_VMA)
		pft_usage_error("--zap=munmap needs --pattern=per-thread-vma "
				"(it would split the shared VMA)");
	if (repeat_mode && o->zap == FAULTGEN_ZAP_MUNMAP &&
	    o->backing == FAULTGEN_BACKING_SYSV)
		pft_usage_error("--zap=munmap does not work with SysV memory "
				"(%s)", o->backing_opt);
	if (repeat_mode && o->touch == FAULTGEN_TOUCH_MLOCK)
		pft_usage_error("%s conflicts with %s: locked memory cannot "
				"be zapped", o->touch_opt,
				o->duration > 0 ? "--duration" : "--rounds");
	if (!collapse && o->protect_given)
		pft_usage_error("--protect needs --pattern=ro-collapse");
	if (!collapse && o->collapse_given)
		pft_usage_error("--collapse needs --pattern=ro-collapse");
	if (!collapse && o->timeout_given)
		pft_usage_error("--timeout needs --pattern=ro-collapse");
	if (collapse && repeat_mode)
		pft_usage_error("--pattern=ro-collapse runs once: it takes no "
				"--duration or --rounds");
	if (collapse && o->backing_opt)
		pft_usage_error("%s conflicts with --pattern=ro-collapse "
				"(anonymous memory only)", o->backing_opt);
	if (collapse && o->kind == FAULTGEN_PROCESSES)
		pft_usage_error("--pattern=ro-collapse runs threads, not "
				"processes");
	check_pretouch(o, repeat_mode);
	if (o->title && o->json)
		pft_usage_error("-T conflicts with --json: the title belongs "
				"to the result lines");
}

void pft_parse_args(struct pft_opts *o, int argc, char **argv)
{
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, short_options, long_options,
				NULL)) != -1) {
		/* getopt leaves optopt alone on success; keep it clean for
		 * the error paths. */
		parse_one(o, c, optarg, argc, argv);
		optopt = 0;
	}
	if (optind < argc)
		o->tag = argv[optind++];
	if (optind < argc)
		pft_usage_error("unexpected argument '%s' (only one TAG)",
				argv[optind]);
	check_combinations(o);
}

static void cachelines_error(const struct pft_opts *o)
{
	long line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);

	/* The library's own rule: 0.12x's 128 when the size is unknown. */
	if (line <= 0 || line > o->pagesize)
		line = 128;
	pft_usage_error("-c %u: at most %ld cachelines fit in a page (%ld-byte "
			"pages, %ld-byte cachelines)", o->cachelines,
			o->pagesize / line, o->pagesize, line);
}

static void cpus_error(const char *list, int err)
{
	if (err == -ERANGE)
		pft_usage_error("--cpus '%s': a CPU beyond the kernel's %d "
				"possible CPUs", list,
				faultgen_possible_cpus());
	pft_usage_error("--cpus '%s': bad CPU list (e.g. 0-3,7 or 0-63:8)",
			list);
}

/* One setter per option; the values were checked, so an error here is
 * the library disagreeing about a value (a usage error) or ENOMEM. */
struct faultgen_attr *pft_build_attr(struct pft_opts *o)
{
	struct faultgen_attr *a;
	int ret;

	ret = faultgen_attr_new(&a);
	if (ret) {
		pft_msg("cannot set up the run: %s", faultgen_strerror(ret));
		exit(PFT_EXIT_FAIL);
	}
	/* Each error path frees the attr: pft exits there, but the
	 * option fuzzer (tests/fuzz) comes back and checks for leaks. */
	if (faultgen_attr_set_cachelines(a, o->cachelines)) {
		faultgen_attr_free(a);
		cachelines_error(o);
	}
	ret = faultgen_attr_set_cpus(a, o->cpus);
	if (ret) {
		faultgen_attr_free(a);
		cpus_error(o->cpus, ret);
	}
	if (faultgen_attr_set_cpuset(a, o->cpuset)) {
		faultgen_attr_free(a);
		pft_usage_error("--cpuset '%s': bad cpuset name", o->cpuset);
	}
	if (o->size && faultgen_attr_set_size(a, o->size)) {
		faultgen_attr_free(a);
		pft_usage_error("-m: size too large");
	}
	/* Pretouch without -t: the JVM's worker count, as the library
	 * models it. */
	ret = 0;
	if (o->pattern != FAULTGEN_PRETOUCH || o->workers_given)
		ret = faultgen_attr_set_workers(a, o->workers, o->kind);
	ret = ret || faultgen_attr_set_pattern(a, o->pattern) ||
	      faultgen_attr_set_backing(a, o->backing) ||
	      faultgen_attr_set_shm_lock(a, o->shm_lock) ||
	      faultgen_attr_set_touch(a, o->touch) ||
	      faultgen_attr_set_numa(a, o->numa_local ? FAULTGEN_NUMA_LOCAL :
							FAULTGEN_NUMA_DEFAULT) ||
	      faultgen_attr_set_thp(a, o->thp) ||
	      faultgen_attr_set_pin(a, o->pin) ||
	      faultgen_attr_set_sched_fifo(a, o->sched_fifo) ||
	      faultgen_attr_set_oversubscribe(a, o->oversubscribe) ||
	      faultgen_attr_set_warmup(a, o->warmup);
	/* As in 0.12x, the process that starts the workers runs worker 0
	 * itself: one process or thread fewer to start and to tear down. */
	if (!ret && (o->pattern == FAULTGEN_SHARED_VMA ||
		     o->pattern == FAULTGEN_PER_THREAD_VMA))
		ret = faultgen_attr_set_caller_worker(a, 1);
	if (!ret && o->duration > 0)
		ret = faultgen_attr_set_duration(a, o->duration, o->zap);
	else if (!ret && o->rounds)
		ret = faultgen_attr_set_rounds(a, o->rounds, o->zap);
	if (!ret && o->pattern == FAULTGEN_RO_COLLAPSE)
		ret = faultgen_attr_set_protect(a, o->protect) ||
		      faultgen_attr_set_collapse(a, o->collapse) ||
		      faultgen_attr_set_timeout(a, o->timeout);
	if (!ret && o->pattern == FAULTGEN_PRETOUCH)
		ret = faultgen_attr_set_pretouch_touch(a, o->pretouch) ||
		      (o->chunk_given &&
		       faultgen_attr_set_chunk_size(a, o->chunk)) ||
		      faultgen_attr_set_jvm(a, o->jdk, o->gc);
	if (ret) {
		faultgen_attr_free(a);
		pft_msg("the library refused a setting (libfaultgen %s does "
			"not match pft)", faultgen_version());
		exit(PFT_EXIT_FAIL);
	}
	return a;
}

/* MemAvailable of /proc/meminfo in bytes, or 0 when unknown. */
static uint64_t mem_available(void)
{
	int64_t kib = pft_proc_number("/proc/meminfo", "MemAvailable:");

	return kib > 0 ? (uint64_t)kib << 10 : 0;
}

/*
 * A size beyond the memory available is refused before anything is
 * mapped: faulting it would end in the OOM killer or swap storms, not in
 * a measurement.  --force runs it anyway.
 */
void pft_check_memory(const struct pft_opts *o)
{
	uint64_t avail = mem_available();

	if (o->force || !avail || o->size <= avail)
		return;
	pft_msg("-m: %.2f GiB is more than the %.2f GiB of memory available "
		"(MemAvailable); --force runs it anyway",
		(double)o->size / (1 << 30), (double)avail / (1 << 30));
	exit(PFT_EXIT_FAIL);
}

/* The CPUs pft itself may run on, as a list, for messages. */
static char *affinity_list(void)
{
	int possible = faultgen_possible_cpus();
	size_t nbits = possible > 0 ? (size_t)possible : 1;
	size_t longs = (nbits + 8 * sizeof(long) - 1) / (8 * sizeof(long));
	unsigned long *mask = calloc(longs, sizeof(*mask));
	struct faultgen_attr *a = NULL;
	char *list = malloc(PFT_CPULIST_LEN);

	if (!mask || !list || faultgen_attr_new(&a) ||
	    faultgen_attr_get_cpus(a, mask, nbits) < 0 ||
	    faultgen_format_cpulist(mask, nbits, list, PFT_CPULIST_LEN) < 0) {
		free(list);
		list = NULL;
	}
	faultgen_attr_free(a);
	free(mask);
	return list;
}

/* Why the allowed CPUs could not be had; does not return. */
__attribute__((noreturn)) static void
cpus_resolve_error(const struct pft_opts *o, int n)
{
	if (n == -ENXIO) {
		char msg[512], *aff = affinity_list();

		snprintf(msg, sizeof(msg),
			 "--cpus '%s': not within the CPUs pft may run on (%s)",
			 o->cpus, aff ? aff : "?");
		free(aff);
		pft_usage_error("%s", msg);
	}
	if (n == -ENOENT)
		pft_usage_error("--cpuset '%s': no such cpuset", o->cpuset);
	if (n == -EINVAL && o->cpuset)
		pft_usage_error("--cpuset '%s': the cpuset has no CPUs pft may "
				"run on", o->cpuset);
	pft_msg("cannot read the allowed CPUs: %s",
		faultgen_strerror(n ? n : -EINVAL));
	exit(PFT_EXIT_FAIL);
}

/*
 * The allowed CPUs now (affinity narrowed by --cpus / --cpuset); more
 * workers than that are clipped as 0.12x did, unless -F.
 */
void pft_resolve_cpus(struct pft_opts *o, struct faultgen_attr *attr)
{
	int possible = faultgen_possible_cpus();
	size_t nbits = possible > 0 ? (size_t)possible : 1;
	size_t longs = (nbits + 8 * sizeof(long) - 1) / (8 * sizeof(long));
	unsigned long *mask = calloc(longs, sizeof(*mask));
	int n;

	o->allowed_list = malloc(PFT_CPULIST_LEN);
	if (!mask || !o->allowed_list) {
		pft_msg("out of memory");
		exit(PFT_EXIT_FAIL);
	}
	n = faultgen_attr_get_cpus(attr, mask, nbits);
	if (n <= 0) {
		free(mask);
		cpus_resolve_error(o, n);
	}
	o->allowed = (unsigned int)n;
	if (faultgen_format_cpulist(mask, nbits, o->allowed_list,
				    PFT_CPULIST_LEN) < 0)
		strcpy(o->allowed_list, "?");
	free(mask);
	/* The JVM's pretouch may run more workers than CPUs. */
	if (o->workers > o->allowed && !o->oversubscribe &&
	    o->pattern != FAULTGEN_PRETOUCH) {
		/* 0.12x's words, which scripts may look for. */
		fprintf(stderr, "clipping nr_tests to nr_cpus_allowed [%u]\n",
			o->allowed);
		o->workers = o->allowed;
		faultgen_attr_set_workers(attr, o->workers, o->kind);
	}
}

/* "7" is a descriptor pft inherited; anything else a FIFO (or file). */
static int open_ctl(const char *what, const char *s, int flags)
{
	bool number = *s != '\0';
	int fd;

	for (const char *p = s; *p; p++)
		if (!isdigit((unsigned char)*p))
			number = false;
	if (number) {
		fd = (int)parse_count(what, s, 0, 1u << 20);
		if (fcntl(fd, F_GETFD) < 0)
			pft_usage_error("%s %s: not an open file descriptor",
					what, s);
		return fd;
	}
	/* O_NONBLOCK: a FIFO without a reader is an error, not a hang. */
	fd = open(s, flags | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ENXIO)
		pft_usage_error("%s '%s': nobody reads this FIFO (start perf "
				"with --control first)", what, s);
	if (fd < 0)
		pft_usage_error("%s '%s': %s", what, s, strerror(errno));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

void pft_open_perf_ctl(struct pft_opts *o)
{
	char *ctl, *ack;

	if (!o->perf_ctl)
		return;
	ctl = strdup(o->perf_ctl);
	if (!ctl) {
		pft_msg("out of memory");
		exit(PFT_EXIT_FAIL);
	}
	ack = strchr(ctl, ',');
	if (ack)
		*ack++ = '\0';
	if (!*ctl || (ack && !*ack)) {
		free(ctl);
		pft_usage_error("--perf-ctl '%s': expected CTL or CTL,ACK",
				o->perf_ctl);
	}
	o->perf_fd = open_ctl("--perf-ctl", ctl, O_WRONLY);
	/* perf writes "ack" into a FIFO it opened for writing: reading
	 * it needs no writer yet, so open it read-write to never block. */
	if (ack)
		o->perf_ack_fd = open_ctl("--perf-ctl", ack, O_RDWR);
	free(ctl);
}

void pft_opts_release(struct pft_opts *o)
{
	free(o->allowed_list);
	o->allowed_list = NULL;
}
