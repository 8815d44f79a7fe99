/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * internal.h - libfaultgen's private declarations.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#ifndef FAULTGEN_INTERNAL_H
#define FAULTGEN_INTERNAL_H

#include "config.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "faultgen.h"

#define FG_EXPORT __attribute__((visibility("default")))
/* Internal helpers the unit tests call through the convenience library. */
#ifdef FAULTGEN_INTERNAL_TEST
#define FG_TESTABLE FG_EXPORT
#else
#define FG_TESTABLE
#endif

/* Constants newer than glibc 2.36's headers; the kernel decides support. */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#endif
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* AddressSanitizer would check each touch against its shadow memory and
 * fault the shadow too: the touches are the measurement, leave them be. */
#if defined(__has_attribute)
#if __has_attribute(no_sanitize_address)
#define FG_NO_ASAN __attribute__((no_sanitize_address))
#endif
#endif
#ifndef FG_NO_ASAN
#define FG_NO_ASAN
#endif
#if defined(__SANITIZE_ADDRESS__)
#define FG_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FG_ASAN 1
#endif
#endif

#define FG_MAX_WORKERS (1u << 20)
#define FG_HPAGE_SIZE (2UL << 20)
#define FG_DEFAULT_CHUNK (4ULL << 20)
/* Stack of a worker thread: the loops need little; keeps 4096 workers
 * cheap.  Raised to PTHREAD_STACK_MIN where that is larger. */
#define FG_WORKER_STACK (128UL << 10)
/* Round durations kept per worker in repeat-with-zap mode. */
#define FG_ROUND_SAMPLES 4096

struct faultgen_attr {
	enum faultgen_pattern pattern;
	uint64_t size;
	unsigned int nr_workers;
	bool nr_workers_set;
	enum faultgen_workers kind;
	enum faultgen_backing backing;
	bool shm_lock;
	enum faultgen_touch touch;
	unsigned int cachelines;
	enum faultgen_numa numa;
	enum faultgen_thp thp;
	char *cpulist; /* NULL: the whole affinity mask */
	char *cpuset;  /* NULL: none */
	bool pin;
	bool sched_fifo;
	bool oversubscribe;
	bool caller_worker; /* the calling thread runs worker 0 */
	unsigned int rounds; /* measured rounds, 0 with duration or one pass */
	double duration;     /* seconds, 0 without */
	enum faultgen_zap zap;
	unsigned int warmup;
	void *region;
	size_t region_len;
	enum faultgen_protect protect;
	enum faultgen_collapse collapse;
	double timeout;
	enum faultgen_pretouch_touch pretouch_touch;
	uint64_t chunk;
	unsigned int jdk;
	enum faultgen_jvm_gc gc;
};

/* A CPU set of any size (masks beyond cpu_set_t's 1024 CPUs). */
struct fg_cpus {
	unsigned long *bits;
	size_t nbits; /* the kernel's possible CPUs, rounded up */
	unsigned int count;
	int *list; /* the CPU ids in ascending order, count of them */
};

/* Figures one worker keeps; lives in shared memory in process mode. */
struct fg_wstat {
	int64_t start_ns, end_ns;
	uint64_t pages, rounds;
	uint64_t minflt, majflt;
	int64_t cpu_ns;      /* CLOCK_*_CPUTIME_ID over the loop */
	int64_t ru_user_us;  /* rusage over the loop, for the user/sys split */
	int64_t ru_sys_us;
	int64_t fault_ns;
	int cpu, last_cpu;
	int pid, tid;
	int error; /* -errno from inside the worker */
	_Atomic int finished; /* 1 once the worker is through, before exit */
};

/* A one-shot barrier; its words are futex words. */
struct fg_gate {
	_Atomic uint32_t ready;  /* workers arrived */
	_Atomic uint32_t go;     /* 0 wait, 1 go, 2 abort */
	_Atomic int64_t open_ns; /* when the last worker opened it */
};

/* What every worker shares with the controller (MAP_SHARED for processes). */
struct fg_shared {
	struct fg_gate start;   /* all workers start together */
	struct fg_gate measure; /* after warm-up, measuring starts together */
	_Atomic uint32_t cancel; /* 1: stop as soon as possible */
	_Atomic uint32_t done;   /* workers that finished (futex word) */
	_Atomic uint64_t cursor; /* pretouch: the next chunk's offset */
	struct fg_wstat w[];
};

struct fg_collapse_state;

struct faultgen_run {
	struct faultgen_attr attr;
	struct fg_cpus cpus;
	const char *cpuset_source;
	unsigned long *mems; /* cpuset memory nodes, or NULL */
	size_t mems_nbits;
	long pagesize;
	unsigned int cacheline;
	bool executed;
	int status;
	int fail_worker, fail_signo, fail_error;
	_Atomic int cancelled; /* set by faultgen_run_cancel */
	/* Memory */
	char *base;          /* shared VMA: the region; per-thread: reservation */
	size_t base_len;
	bool base_owned;     /* we mapped it (not the caller's region) */
	int shmid;           /* SysV segment of a shared VMA, or -1 */
	size_t slice_len;    /* bytes per worker */
	uint64_t slice_pages;
	char **waddr;        /* each worker's slice or mapping */
	size_t *wlen;        /* and its length */
	int *wshmid;         /* per-thread SysV: each worker's segment */
	int zero_fd;         /* /dev/zero for remapping, or -1 */
	/* Prepared before fork: children may not allocate. */
	void *cpuset_buf;    /* cpu_set_t of the allowed CPUs */
	size_t cpuset_size;
	/* Workers */
	struct fg_shared *sh;
	size_t sh_len;
	int64_t *round_ns; /* [worker * FG_ROUND_SAMPLES + round], shared */
	size_t round_len;
	pid_t *pids;
	bool *reaped; /* with pids: held by the run, so children see it used */
	void *caller_mask; /* cpu_set_t: the calling thread's, while it works */
	struct faultgen_result result;
	struct fg_collapse_state *collapse;
	/* Pretouch */
	int64_t pretouch_t0;
};

/* util.c */
int64_t fg_now_ns(void);
int64_t fg_clock_ns(clockid_t clk);
long fg_pagesize(void);
unsigned int fg_cacheline(void);
int fg_futex_wait(_Atomic uint32_t *word, uint32_t val, int64_t timeout_ns);
void fg_futex_wake(_Atomic uint32_t *word);
int fg_read_file(const char *path, char *buf, size_t len);
FG_TESTABLE int fg_vmstat_read(const char *const *names, uint64_t *vals,
			       size_t n);
int fg_gettid(void);
void fg_copy_sized(void *dst, const void *src, size_t ours);

static inline uint64_t fg_round_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

static inline uint64_t fg_round_down(uint64_t v, uint64_t a)
{
	return v / a * a;
}

/* cpus.c */
FG_TESTABLE int fg_cpus_narrow(const unsigned long *allowed,
			       const unsigned long *request, size_t nbits,
			       unsigned long *out);
FG_TESTABLE int fg_cpu_for_worker(const struct fg_cpus *cpus,
				  unsigned int worker);
FG_TESTABLE unsigned int fg_spread_base(const struct fg_cpus *cpus, int cpu);
int fg_cpus_resolve(const struct faultgen_attr *attr, struct fg_cpus *cpus,
		    const char **cpuset_source, unsigned long **mems,
		    size_t *mems_nbits);
void fg_cpus_release(struct fg_cpus *cpus);
int fg_possible_cpus(void);
size_t fg_bitmap_longs(size_t nbits);

/* cpuset.c */
FG_TESTABLE int fg_cpuset_read(const char *name, const char *root_v1,
			       const char *root_v2, char *cpus, size_t cpus_len,
			       char *mems, size_t mems_len,
			       const char **source);
#ifdef HAVE_LIBCPUSET
FG_TESTABLE int fg_libcpuset_probe(void); /* in the tests' build only */
#endif

/* memory.c */
int fg_memory_setup(struct faultgen_run *run);
int fg_numa_policy(const struct faultgen_run *run, void *addr, size_t len);
void fg_memory_release(struct faultgen_run *run);
void *fg_worker_addr(const struct faultgen_run *run, unsigned int i);
int fg_zap(struct faultgen_run *run, unsigned int i);

/* worker.c */
int fg_touch(const struct faultgen_run *run, char *addr, size_t len,
	     const struct fg_shared *sh);
bool fg_gate_pass(struct faultgen_run *run, struct fg_gate *g);
void fg_gates_abort(struct fg_shared *sh);
int fg_workers_run(struct faultgen_run *run,
		   int (*body)(struct faultgen_run *, unsigned int),
		   bool barrier);

/* measure.c */
void fg_measure_fold(struct faultgen_run *run);
void fg_split_cpu(const struct fg_wstat *w, double *user, double *sys);
FG_TESTABLE double fg_median(double *v, size_t n);
FG_TESTABLE bool fg_faults_agree(uint64_t expected, uint64_t measured,
				 unsigned int workers);
void fg_stat_begin(struct fg_wstat *w, bool process);
void fg_stat_end(struct fg_wstat *w, bool process);

/* collapse.c */
int fg_collapse_run(struct faultgen_run *run);
void fg_collapse_release(struct faultgen_run *run);
FG_TESTABLE enum faultgen_verdict
fg_khugepaged_verdict(enum faultgen_protect protect, unsigned int ranges,
		      unsigned int collapsed, bool thp_on, uint64_t full_scans,
		      uint64_t exceed_shared, uint64_t alloc_failed);
FG_TESTABLE int fg_smaps_anon_huge(const void *addr, size_t len,
				   uint64_t *kb);
FG_TESTABLE int fg_collapse_probe(void);

/* pretouch.c */
int fg_pretouch_run(struct faultgen_run *run);
unsigned int fg_pretouch_default_workers(const struct faultgen_run *run);
FG_TESTABLE bool fg_pretouch_claim(_Atomic uint64_t *cursor, uint64_t start,
				   uint64_t end, uint64_t chunk,
				   uint64_t *off, uint64_t *len);

/* jvm.c */
/* Pretouch tasks of a JVM at most: start-up memory, heap, G1's tables. */
#define FG_JVM_MAX_RANGES 8
uint64_t fg_jvm_heap_bytes(enum faultgen_jvm_gc gc, uint64_t heap,
			   uint64_t page);
FG_TESTABLE unsigned int fg_jvm_ranges(unsigned int jdk,
				       enum faultgen_jvm_gc gc, uint64_t heap,
				       uint64_t page, uint64_t *lens,
				       unsigned int max);
unsigned int fg_jvm_serial_ranges(enum faultgen_jvm_gc gc);

#endif /* FAULTGEN_INTERNAL_H */
