/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * internal.h - libfaultgen's private declarations.
 *
 * The exported functions are all in api.c; every other file is internal
 * and calls only fg_* functions, never the public API.  The files depend
 * on each other in one direction (tests/deps.sh checks that there is no
 * cycle):
 *
 *   api.c -> run.c -> attr.c -> settings.c -> patterns.c
 *         -> fault.c, collapse.c, pretouch.c, cow.c, qemu.c, sparse.c
 *            (the patterns)
 *         -> values.c, rules.c, worker.c, memory.c, measure.c, thp.c, jvm.c
 *         -> cpus.c -> cpuset.c, parse.c -> bitmap.c -> util.c
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

/* Constants newer than some C libraries' headers (a replay's profile
 * holds the advice as the kernel's numbers); the kernel decides support. */
#ifndef MADV_COLD
#define MADV_COLD 20
#endif
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#ifndef MADV_DONTNEED_LOCKED
#define MADV_DONTNEED_LOCKED 24
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

#define FG_HPAGE_SIZE (2UL << 20)
#define FG_DEFAULT_CHUNK (4ULL << 20)
/* Stack of a worker thread: the loops need little; keeps 4096 workers
 * cheap.  Raised to PTHREAD_STACK_MIN where that is larger. */
#define FG_WORKER_STACK (128UL << 10)
#define FG_ROUND_SAMPLES FAULTGEN_ROUND_SAMPLES
/* Sampled rounds from which the median round rate is the figure of
 * record (fewer: pages over elapsed time). */
#define FG_MEDIAN_MIN_ROUNDS 3

/* One setting's value, as the attr holds it (struct fg_setting). */
union fg_slot {
	bool b;         /* BOOL */
	unsigned int u; /* UINT */
	uint64_t u64;   /* SIZE */
	double d;       /* SECONDS */
	int e;          /* KEYWORD: its enum's value */
	char *s;        /* TEXT: the attr's own copy */
};

struct faultgen_attr {
	enum faultgen_pattern pattern;
	uint64_t size;
	unsigned int nr_workers;
	bool nr_workers_set;
	enum faultgen_workers kind;
	enum faultgen_backing backing;
	bool shm_lock;
	bool share; /* MAP_SHARED */
	char *backing_path; /* FAULTGEN_BACKING_FILE: a directory or a file */
	enum faultgen_touch touch;
	unsigned int cachelines;
	enum faultgen_numa numa;
	char *numa_nodes; /* the policy's node list, or NULL */
	bool node_pages;  /* count each worker's pages per node */
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
	enum faultgen_qemu qemu;
	enum faultgen_cow_child cow_child;
	uint64_t chunk;
	unsigned int jdk;
	enum faultgen_jvm_gc gc;
	unsigned int writers; /* shared VMA: mapping writers beside it */
	enum faultgen_writer_op writer_op;
	unsigned int interleave; /* shared VMA: pages per dealt block, or 0 */
	unsigned int latency; /* time one touch in N; 0: none (latency.c) */
	bool catch_sigbus; /* a worker's SIGBUS fails the run (sigbus.c) */
	bool lock_paths; /* count the lock paths (lockpaths.c) */
	bool lock_waits; /* time the mmap_lock waits (lockwaits.c) */
	bool cold; /* file backing: its pages out of the cache each round */
	int profile_err; /* the error of the last profile refused */
	/* The values of settings newer than these fields, at the slot
	 * their table gives (FG_OWN). */
	union fg_slot own[16];
	/* The replay's profile, parsed once when it was set (by
	 * faultgen_attr_set_profile or _buffer) or, where only a path was
	 * set, when a run of the attr was created; shared by the attr's
	 * copies (refcounted, never changed), NULL without one.  The
	 * message of the last profile refused (its error: profile_err). */
	struct fg_profile_ref *profile;
	char profile_error[192];
};

/* A CPU set of any size (masks beyond cpu_set_t's 1024 CPUs). */
struct fg_cpus {
	unsigned long *bits;
	size_t nbits; /* the kernel's possible CPUs, rounded up */
	unsigned int count;
	int *list; /* the CPU ids in ascending order, count of them */
};

/* The lock-path counters of a thread (lockpaths.c), in its group's
 * order. */
enum {
	FG_LOCK_USER,    /* exceptions:page_fault_user */
	FG_LOCK_KERNEL,  /* exceptions:page_fault_kernel, user addresses */
	FG_LOCK_READ,    /* mmap_lock_start_locking, write == 0 */
	FG_LOCK_WRITE,   /* mmap_lock_start_locking, write == 1 */
	FG_LOCK_TRYFAIL, /* mmap_lock_acquire_returned, a read that failed */
	FG_LOCK_EVENTS
};
struct fg_lock_counts {
	uint64_t v[FG_LOCK_EVENTS];
};

/* A worker's usage counters at one moment (CLOCK_*_CPUTIME_ID, rusage,
 * and its lock-path counters: all 0 without them). */
struct fg_usage {
	uint64_t minflt, majflt;
	int64_t cpu_ns;
	int64_t ru_user_us, ru_sys_us;
	struct fg_lock_counts lock;
};

/* Figures one worker keeps; lives in shared memory in process mode. */
struct fg_wstat {
	int64_t start_ns, end_ns;
	uint64_t pages, rounds;
	struct fg_usage use; /* over the loop: end minus start */
	int64_t fault_ns;
	int cpu, last_cpu;
	int pid, tid;
	int error; /* -errno from inside the worker */
	int signo; /* SIGBUS: the error is a caught SIGBUS's cause */
	_Atomic int finished; /* 1 once the worker is through, before exit */
	/* Its lock-path counters' group: fd + 1, 0 for none (the figures
	 * are zeroed memory); why it has none where they were asked. */
	int lock_group;
	int lock_error;
	struct fg_lock_counts zap_lock; /* its zaps' share of use.lock */
};

static inline int fg_wstat_lock_fd(const struct fg_wstat *w)
{
	return w->lock_group - 1;
}

/*
 * A log-linear histogram of latencies in nanoseconds (latency.c): values
 * below 2 * FG_HIST_SUB exactly, then FG_HIST_SUB buckets per power of
 * two up to FG_HIST_TOP (2^36 ns, 68 s); beyond, only counted (overflow)
 * and kept as the maximum.
 */
/* A touch made in calls is timed per call of this many bytes at most
 * (latency.c's fg_lat_touch). */
#define FG_LAT_CALL_BYTES FG_HPAGE_SIZE

#define FG_HIST_SUB_BITS 6
#define FG_HIST_SUB (1u << FG_HIST_SUB_BITS)
#define FG_HIST_TOP (1ULL << 36)
#define FG_HIST_BUCKETS                                                    \
	(2 * FG_HIST_SUB + (36 - FG_HIST_SUB_BITS - 1) * FG_HIST_SUB)
struct fg_hist {
	uint64_t count;    /* values recorded, the overflow included */
	uint64_t overflow; /* values at or beyond FG_HIST_TOP */
	uint64_t min, max, sum;
	uint64_t b[FG_HIST_BUCKETS];
};

/* A worker's latencies and what the scheduler did to it over its loop;
 * lives in shared memory in process mode. */
struct fg_wlat {
	struct fg_hist h;
	uint64_t nvcsw, nivcsw; /* context switches, voluntary or not */
	int64_t run_delay_ns;   /* waiting on a run queue; -1: unknown */
	bool done;              /* the loop ran and was measured */
};

/*
 * The mmap_lock waits of a thread (lockwaits.c): the events of its ring
 * buffer, in the order the kernel wrote them, as the pairing reads them.
 */
enum {
	FG_WAIT_READ_START,  /* mmap_lock_start_locking, write == 0 */
	FG_WAIT_WRITE_START, /* mmap_lock_start_locking, write == 1 */
	FG_WAIT_RETURNED,    /* mmap_lock_acquire_returned, success == 1 */
	FG_WAIT_BEGIN,       /* lock:contention_begin of a rwsem */
	FG_WAIT_END,         /* lock:contention_end */
	FG_WAIT_FAILED,      /* mmap_lock_acquire_returned, success == 0 */
	FG_WAIT_FAULT,       /* exceptions:page_fault_user */
	FG_WAIT_SYSCALL,     /* raw_syscalls:sys_enter */
	FG_WAIT_EVENTS,
	FG_WAIT_LOST = FG_WAIT_EVENTS, /* PERF_RECORD_LOST */
};
/* contention_begin's flags (the kernel's LCB_F_READ, LCB_F_WRITE). */
#define FG_LCB_READ (1u << 1)
#define FG_LCB_WRITE (1u << 2)
struct fg_wait_event {
	int64_t t;       /* CLOCK_MONOTONIC ns */
	uint64_t lock;   /* contention: lock_addr; FG_WAIT_LOST: events lost */
	unsigned int kind; /* FG_WAIT_* */
	unsigned int flags; /* contention_begin's */
};
/* Waits by decade of microseconds: <1us, 1-10us, ..., >=1s. */
#define FG_WAIT_DECADES 8
/* A worker's write or read loop reads its ring (when half full) every
 * so many touches: each user fault writes a sample of 24 bytes, a
 * fallback two or four more (fault.c). */
#define FG_WAIT_TOUCHES 256
struct fg_wait_side {
	struct fg_hist h;
	uint64_t decades[FG_WAIT_DECADES];
	uint64_t acquisitions;
};
/* A thread's waits (readers', writers'); shared in process mode. */
struct fg_wait_stat {
	struct fg_wait_side side[2];
	uint64_t lost;    /* events the ring buffer lost */
	uint64_t unended; /* waits begun whose end was never read */
	/* User faults, each one's read acquisitions of the mmap_lock
	 * those up to its thread's next fault or system call. */
	uint64_t faults;      /* begun in the window */
	uint64_t faults_read; /* of them, with one acquisition or more */
	uint64_t retries;     /* acquisitions beyond a fault's first */
	uint64_t most;        /* the most of one fault */
	int error;        /* its ring buffer could not be opened */
	bool opened;
};
/* Where a thread's stream is between two drains. */
struct fg_wait_pairing {
	int64_t begin;      /* the wait begun */
	uint64_t lock;      /* on this lock */
	int64_t fault_t;    /* the user fault whose window is open */
	uint64_t fault_acq; /* its read acquisitions so far */
	int mode;    /* -1 outside an mmap_lock acquisition, 0 read, 1 write */
	int waiting; /* -1 none, else the side of the wait begun */
	bool in_fault; /* a user fault's window is open: from the fault to
			* the thread's next fault, system call or lost
			* record */
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
	_Atomic uint32_t helpers_stop; /* 1: every worker is through */
	/* Workers whose measured interval began, and ended: the measured
	 * phase is open from the first begin to the last end. */
	_Atomic uint32_t measure_begun;
	_Atomic uint32_t measure_ended;
	/* When the phase began and ended, for the helpers' lock waits
	 * (lockwaits.c; 0: not yet). */
	_Atomic int64_t wait_phase_begin, wait_phase_end;
	struct fg_wstat w[];
};

/* A PROT_NONE reservation that mappings are placed into (memory.c). */
struct fg_resv {
	char *raw;
	size_t raw_len;
};

struct faultgen_run;

/* A set of settings: bit FAULTGEN_SETTING_x. */
#define FG_SETTING(s) (1ULL << (s))
#define FG_NR_SETTINGS FAULTGEN_SETTINGS_COUNT
/* What every pattern reads: where and on which CPUs, and the setting
 * that names the pattern. */
#define FG_READS_COMMON                                                    \
	(FG_SETTING(FAULTGEN_SETTING_PATTERN) |                             \
	 FG_SETTING(FAULTGEN_SETTING_SIZE) |                                \
	 FG_SETTING(FAULTGEN_SETTING_WORKERS) |                             \
	 FG_SETTING(FAULTGEN_SETTING_BACKING) |                             \
	 FG_SETTING(FAULTGEN_SETTING_NUMA) |                                \
	 FG_SETTING(FAULTGEN_SETTING_CPUS) |                                \
	 FG_SETTING(FAULTGEN_SETTING_CPUSET) |                              \
	 FG_SETTING(FAULTGEN_SETTING_PIN) |                                 \
	 FG_SETTING(FAULTGEN_SETTING_SCHED_FIFO) |                          \
	 FG_SETTING(FAULTGEN_SETTING_OVERSUBSCRIBE) |                       \
	 FG_SETTING(FAULTGEN_SETTING_CALLER_WORKER) |                       \
	 FG_SETTING(FAULTGEN_SETTING_REPEAT) |                              \
	 FG_SETTING(FAULTGEN_SETTING_REGION) |                              \
	 FG_SETTING(FAULTGEN_SETTING_NODE_PAGES))

/* What the patterns that fault slices with fault.c's workers read
 * (shared VMA, per-thread VMAs, sparse VMA). */
#define FG_READS_SLICES                                                    \
	(FG_READS_COMMON | FG_SETTING(FAULTGEN_SETTING_SHM_LOCK) |          \
	 FG_SETTING(FAULTGEN_SETTING_SHARE) |                               \
	 FG_SETTING(FAULTGEN_SETTING_TOUCH) |                               \
	 FG_SETTING(FAULTGEN_SETTING_CACHELINES) |                          \
	 FG_SETTING(FAULTGEN_SETTING_THP) | FG_SETTING(FAULTGEN_SETTING_ZAP) | \
	 FG_SETTING(FAULTGEN_SETTING_WARMUP))

/*
 * A setting, as data (settings.c): its name, type and rules, where the
 * attr holds it and its default.  A setting of one pattern is in that
 * pattern's table (struct fg_pattern's settings), the others in
 * settings.c's; faultgen_attr_set_value and the typed setters go through
 * fg_setting_set, so that one place checks a value.
 */
struct fg_setting {
	const char *name; /* "cow-child" */
	enum faultgen_setting id; /* or FAULTGEN_SETTING_NONE */
	enum faultgen_type type;
	const char *const *keywords; /* KEYWORD, NULL-terminated */
	uint64_t min, max;           /* UINT, SIZE */
	double max_seconds;          /* SECONDS */
	union fg_slot def;           /* the default (TEXT: NULL) */
	const char *def_text;
	const char *value_name;
	const char *help;
	const char *alias;  /* its old name, or NULL */
	unsigned int flags; /* FAULTGEN_SETTING_* */
	size_t offset;      /* where struct faultgen_attr holds it */
	/* Checks beyond the type and bounds (NULL: none): 0 or -errno. */
	int (*check)(const struct faultgen_attr *a, const union fg_slot *v);
	/* What else a value changes in the attr (NULL: nothing). */
	void (*also)(struct faultgen_attr *a);
};
#define FG_BACKING(b) (1u << (b))

/* A setting's place: a field of struct faultgen_attr, or a slot of
 * its own[] (a setting newer than the fields; tests/check_settings.c
 * checks that no two settings share one). */
#define FG_AT(field) offsetof(struct faultgen_attr, field)
#define FG_OWN(slot)                                                       \
	(offsetof(struct faultgen_attr, own) + (slot) * sizeof(union fg_slot))
#define FG_NR_OWN (sizeof(((struct faultgen_attr *)0)->own) /             \
		   sizeof(union fg_slot))

/*
 * A pattern: one unit, in one file of its own.  It names itself, says
 * which settings it reads (a setting it does not read has no effect on
 * its runs), keeps its own state (state_size bytes that run.c allocates
 * zeroed where forked workers see them too, fg_pattern_state) and runs
 * through its operations.  run.c resolves the CPUs and allocates the
 * shared state, then calls exec, which maps, starts the workers through
 * fg_workers_run and folds the figures; release frees what exec left.
 * Adding one: doc/adding-a-pattern.md.
 */
struct fg_pattern {
	const char *name; /* as faultgen_pattern_name gives it */
	uint64_t reads;   /* FG_SETTING() bits */
	size_t state_size;
	/* The combination rules of this pattern (attr.c has the common
	 * ones): 0, or -EINVAL with *c filled. */
	int (*check)(const struct faultgen_attr *a,
		     struct faultgen_conflict *c);
	/* Workers when the caller set none (NULL: the attr's count). */
	unsigned int (*default_workers)(const struct faultgen_run *run);
	int (*exec)(struct faultgen_run *run);
	void (*release)(struct faultgen_run *run);
	/* May run more workers than allowed CPUs without oversubscribe. */
	bool unbound_workers;
	/* Each worker faults a mapping of its own (memory.c lays them out
	 * apart; the result's bytes are the workers' mappings). */
	bool own_mappings;
	/* Its workers fault slices of whole pages, one each, which
	 * fg_memory_setup maps (faultgen_attr_get_memory counts them so). */
	bool slices;
	/* Each page it faults is held twice (cow-fork: the parent's and
	 * the children's copies). */
	bool held_twice;
	/* Its workers may be processes it forks itself (a replay's): the
	 * figures are mapped shared, as for FAULTGEN_PROCESSES. */
	bool forks;
	/* Its workers drop a cold file's pages from the page cache before
	 * each measured round (fault.c's, fg_cold_drop): it takes cold. */
	bool drops_cold;
	/* Its figure `index` of a measured run: the number of its figures,
	 * or -ERANGE past the last (NULL: none). */
	int (*figure)(const struct faultgen_run *run, unsigned int index,
		      struct faultgen_figure *f);
	/* What each latency value of its runs times: the name of a call
	 * that faults many pages inside it, with the most bytes one call
	 * covers in *bytes, or NULL for page touches (NULL: touches). */
	const char *(*timed_call)(const struct faultgen_run *run,
				  uint64_t *bytes);
	/* Reads what the run's attr names but does not hold yet, once,
	 * when the run is created (NULL: nothing): a replay's profile
	 * file.  It fails no creation: exec reports what it found. */
	void (*attach)(struct faultgen_run *run);
	/* What it refuses, as data: a rule holds where its why is given
	 * (attr.c's fg_pattern_caps_check applies them, in this order). */
	struct fg_caps {
		const char *processes_why; /* threads only */
		const char *repeat_why;    /* runs once */
		unsigned int backings;     /* FG_BACKING() bits; 0: any */
		const char *backings_why;
		const char *share_why;     /* private mappings only */
		const char *region_why;    /* maps memory of its own */
		/* No NUMA policy but the default and local (all_numa), or
		 * no worker-local policy. */
		bool default_numa_only;
		const char *numa_why;
		const char *node_pages_why;
		/* Touches page by page only (write, read): a call over a
		 * slice (memset, mlock, populate) is refused. */
		const char *page_touch_why;
	} caps;
	/* Its own settings, read by its runs alone. */
	const struct fg_setting *settings;
	unsigned int nr_settings;
	/* The memory a run of attr maps, and holds, where it is not the
	 * size's (NULL: memory.c's count). */
	void (*memory)(const struct faultgen_attr *a, uint64_t *mapped,
		       uint64_t *held);
	/* For a front end's help: "Copy-on-write after fork", and what
	 * more its heading says (NULL: nothing). */
	const char *title, *note;
};

/*
 * A kind of memory (backing.c).  prepare and release (may be NULL) take
 * and give back what the run's mappings need; map maps len bytes at `at`
 * (over a reservation; with noreplace only where nothing is mapped) or
 * anywhere, giving *id (a SysV segment, or -1); zap makes the next
 * touch fault again; unmap undoes map.
 */
struct fg_backing {
	int (*prepare)(struct faultgen_run *run);
	int (*map)(const struct faultgen_run *run, size_t len, void *at,
		   bool noreplace, off_t off, char **addr, int *id);
	int (*zap)(const struct faultgen_run *run, char *addr, size_t len);
	void (*unmap)(char *addr, size_t len, int id);
	void (*release)(struct faultgen_run *run);
	bool remap;           /* may be unmapped and mapped again in place */
	bool zap_keeps_pages; /* zapped pages stay: later touches map them */
};

struct faultgen_run {
	struct faultgen_attr attr;
	const struct fg_pattern *ops;
	const struct fg_backing *backing;
	struct fg_cpus cpus;
	const char *cpuset_source;
	unsigned long *mems; /* cpuset memory nodes, or NULL */
	size_t mems_nbits;
	unsigned long *numa_nodes; /* the policy's nodes, resolved */
	size_t numa_nbits;
	uint64_t *node_pages; /* [worker * report_nodes + node], shared */
	size_t report_nodes;
	size_t node_pages_len;
	long pagesize;
	unsigned int cacheline;
	bool executed;
	bool measured; /* figures were folded, even if cancelled */
	int status;
	int fail_worker, fail_signo, fail_error;
	_Atomic int cancelled; /* set by faultgen_run_cancel */
	/* Memory */
	char *base;          /* shared VMA: the region; per-thread: reservation */
	size_t base_len;
	bool base_owned;     /* we mapped it (not the caller's region) */
	struct fg_resv resv; /* per-thread and pretouch: the reservation */
	int base_id;         /* the backing's id of a shared VMA, or -1 */
	size_t slice_len;    /* bytes per worker */
	size_t file_len;     /* bytes a backing's file holds (prepare) */
	uint64_t slice_pages;
	char **waddr;        /* each worker's slice or mapping */
	size_t *wlen;        /* and its length */
	int *wid;            /* per-thread: the backing's id of each mapping */
	int backing_fd;      /* the backing's file (/dev/zero), or -1 */
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
	void *state; /* the pattern's own (state_size bytes), or NULL */
	size_t state_len;
	/* Latency (latency.c): NULL when not asked. */
	struct fg_wlat *lat; /* one per worker, shared */
	size_t lat_len;
	struct fg_wlat *lat_total; /* merged when folded */
	uint64_t lat_call_bytes;   /* ro-collapse, qemu-prealloc: one call's range */
	/* The helpers' calls (writers.c), timed: their merged histogram,
	 * the call and its most bytes (FAULTGEN_LATENCY_WRITERS); NULL
	 * without. */
	const struct fg_wlat *helper_lat;
	const char *helper_call;
	uint64_t helper_call_bytes;
	/* Lock paths (lockpaths.c): 0 counting, -ENODATA not asked, or
	 * why they cannot be counted; the tracepoints' ids; the helpers'
	 * groups while they run, their sums after. */
	int lock_status;
	uint64_t lock_ids[FG_LOCK_EVENTS];
	struct fg_lock_helper *lock_helpers;
	unsigned int lock_nr_helpers;
	int lock_helpers_error;
	struct fg_lock_counts lock_helper_sum;
	/* Lock waits (lockwaits.c): 0 timing, -ENODATA not asked, or why
	 * not; the ids; each worker's ring (private: in process mode each
	 * child's copy), its waits (shared); the helpers' rings and waits;
	 * (the measured phase's bounds: struct fg_shared's). */
	int wait_status;
	unsigned int wait_nr_helpers;
	uint64_t wait_ids[FG_WAIT_EVENTS];
	struct fg_wait_ring *wait_rings;
	struct fg_wait_stat *waits;
	size_t waits_len;
	struct fg_wait_ring *wait_helpers;
	struct fg_wait_stat *wait_helper_stats;
	/* cold (backing.c): each worker's pages verified out of the page
	 * cache and the time its drops took, shared; NULL without cold. */
	struct fg_cold *cold;
	size_t cold_len;
	/* A write or read touch faults one page in this many (sparse-vma);
	 * 0 or 1: every page (fault.c's fg_touch, fg_touched_pages). */
	uint64_t touch_stride;
};

/* The pages a touch of `pages` pages faults: one in every touch_stride,
 * the first of each. */
static inline uint64_t fg_touched_pages(const struct faultgen_run *run,
					uint64_t pages)
{
	uint64_t k = run->touch_stride ? run->touch_stride : 1;

	return (pages + k - 1) / k;
}

/* Bytes from one touched page to the next. */
static inline size_t fg_touch_step(const struct faultgen_run *run)
{
	size_t k = run->touch_stride ? (size_t)run->touch_stride : 1;

	return k * (size_t)run->pagesize;
}

/* A cancel asked of the workers (faultgen_run_cancel, a failed worker). */
static inline bool fg_cancel_requested(const struct fg_shared *sh)
{
	return atomic_load_explicit(&sh->cancel, memory_order_relaxed);
}

/* How often a touch loop looks for a cancel: every FG_CANCEL_EVERY pages. */
#define FG_CANCEL_EVERY 1024

/* Touch t of a loop (from 0): stop here, a cancel asked (looked for at
 * every FG_CANCEL_EVERY-th touch). */
static inline bool fg_cancel_at(const struct fg_shared *sh, uint64_t t)
{
	return t % FG_CANCEL_EVERY == FG_CANCEL_EVERY - 1 &&
	       fg_cancel_requested(sh);
}

/* The pattern's own state (struct fg_pattern's state_size bytes, zeroed,
 * shared with forked workers); NULL before the run is prepared or when
 * the pattern keeps none. */
static inline void *fg_pattern_state(const struct faultgen_run *run)
{
	return run->state;
}

static inline uint64_t fg_round_up(uint64_t v, uint64_t a)
{
	return a ? (v + a - 1) / a * a : v;
}

static inline uint64_t fg_round_down(uint64_t v, uint64_t a)
{
	return v / a * a;
}

/* util.c */
int64_t fg_now_ns(void);
int64_t fg_clock_ns(clockid_t clk);
long fg_pagesize(void);
int fg_map_figures(const struct faultgen_run *run, size_t len,
		   bool noreserve, void **p);
unsigned int fg_cacheline(void);
int fg_futex_wait(_Atomic uint32_t *word, uint32_t val, int64_t timeout_ns);
void fg_futex_wake(_Atomic uint32_t *word);
int fg_read_file(const char *path, char *buf, size_t len);
int fg_read_file_alloc(const char *path, char **out);
FG_TESTABLE int fg_read_number(const char *path, uint64_t *val);
FG_TESTABLE int fg_vmstat_read(const char *const *names, uint64_t *vals,
			       size_t n);
int fg_gettid(void);
bool fg_is_dir(const char *dir, const char *name);
void fg_copy_sized(void *dst, const void *src, size_t ours);

/* bitmap.c */
size_t fg_bitmap_longs(size_t nbits);
bool fg_bit_test(const unsigned long *mask, size_t bit);
void fg_bit_set(unsigned long *mask, size_t bit);

/* parse.c */
int fg_parse_size(const char *str, uint64_t *bytes);
int fg_parse_cpulist(const char *str, unsigned long *mask, size_t nbits);
int fg_format_cpulist(const unsigned long *mask, size_t nbits, char *buf,
		      size_t len);

/* cpuset.c */
/* name without its leading '/', or NULL when it climbs (".."). */
const char *fg_cpuset_relative(const char *name);
FG_TESTABLE int fg_cpuset_read(const char *name, const char *root_v1,
			       const char *root_v2, char **cpus, char **mems,
			       const char **source);
FG_TESTABLE int fg_cpuset_dir(const char *name, const char *root_v1,
			      const char *root_v2, char *buf, size_t len);
#ifdef HAVE_LIBCPUSET
FG_TESTABLE int fg_libcpuset_probe(void); /* in the tests' build only */
#endif

/* cpus.c */
int fg_possible_cpus(void);
FG_TESTABLE int fg_cpus_narrow(const unsigned long *allowed,
			       const unsigned long *request, size_t nbits,
			       unsigned long *out);
FG_TESTABLE int fg_cpu_for_worker(const struct fg_cpus *cpus,
				  unsigned int worker);
FG_TESTABLE unsigned int fg_spread_base(const struct fg_cpus *cpus, int cpu);
int fg_cpus_resolve(const struct faultgen_attr *attr, struct fg_cpus *cpus,
		    const char **cpuset_source, unsigned long **mems,
		    size_t *mems_nbits);
int fg_cpus_to_mask(const struct fg_cpus *cpus, unsigned long *mask,
		    size_t nbits);
void fg_cpus_release(struct fg_cpus *cpus);

/* attr.c */
void fg_attr_init(struct faultgen_attr *a);
FG_TESTABLE int fg_attr_copy(struct faultgen_attr *dst,
			     const struct faultgen_attr *src);
void fg_attr_release(struct faultgen_attr *a);

/* rules.c */
int fg_pattern_caps_check(const struct faultgen_attr *a,
			  const struct fg_pattern *p,
			  struct faultgen_conflict *c);
unsigned int fg_pattern_flags(const struct fg_pattern *p);
unsigned int fg_pattern_backings(const struct fg_pattern *p);
unsigned int fg_pattern_worker_kinds(const struct fg_pattern *p);
/* Repeat-with-zap: measured rounds or a duration.  Inline: every file
 * asks, backing.c among them, which rules.c uses. */
static inline bool fg_attr_repeats(const struct faultgen_attr *a)
{
	return a->rounds || a->duration > 0;
}
int fg_conflict(struct faultgen_conflict *c, enum faultgen_setting setting,
		enum faultgen_setting with, const char *why);
int fg_attr_check_common(const struct faultgen_attr *a,
			 struct faultgen_conflict *c);

/* backing.c */
/* One worker's drops of a cold file's pages (faultgen_attr_set_cold). */
struct fg_cold {
	uint64_t pages;  /* counted out of the page cache before its rounds */
	uint64_t stayed; /* still in it then (mapped by another worker) */
	int64_t ns;      /* its drops took, outside the measured time */
};
const struct fg_backing *fg_backing_of(const struct faultgen_attr *a);
int fg_cold_drop(struct faultgen_run *run, unsigned int i, int64_t *ns);
int fg_cold_figure(const struct faultgen_run *run, unsigned int index,
		   struct faultgen_figure *f);
int fg_backing_path_check(const char *path);
bool fg_pages_stay(unsigned long magic);
size_t fg_backing_pagesize(const struct faultgen_attr *a);
/* The names libfaultgen-PID-N a file backing tries in a directory before
 * it gives up (-EBUSY): each taken by another file. */
#define FG_FILE_NAME_TRIES 1000u
FG_TESTABLE int fg_huge_pages_free(size_t hpsize, uint64_t *avail);
/* SysV segments are created under keys FG_SHM_KEY_BASE ("pf" 0 0) to
 * FG_SHM_KEY_BASE + FG_SHM_KEYS - 1, until IPC_RMID makes them private:
 * one a killed run left keeps its key (faultgen_sysv_cleanup). */
#define FG_SHM_KEY_BASE 0x70660000u
#define FG_SHM_KEYS 65536u
int fg_sysv_cleanup(void);

/* memory.c */
void fg_attr_memory(const struct faultgen_attr *a,
		    const struct fg_pattern *p, uint64_t *mapped,
		    uint64_t *held);
int fg_reserve(size_t len, size_t align, struct fg_resv *r, char **start);
void fg_resv_release(struct fg_resv *r);
int fg_advise(const struct faultgen_run *run, void *addr, size_t len,
	      enum faultgen_thp thp);
int fg_memory_setup(struct faultgen_run *run);
void fg_memory_release(struct faultgen_run *run);
int fg_zap(struct faultgen_run *run, unsigned int i);

/* numa.c */
bool fg_numa_available(void);
size_t fg_numa_nbits(void);
int fg_numa_nodes(unsigned long *mask, size_t nbits);
int fg_numa_allowed(unsigned long *mask, size_t nbits);
bool fg_numa_takes_nodes(enum faultgen_numa policy);
int fg_parse_nodes(const char *list, unsigned long *mask, size_t nbits,
		   bool *all);
int fg_numa_check_nodes(unsigned long *want, size_t nbits, bool all,
			const unsigned long *mems, size_t mems_nbits);
int fg_numa_resolve(struct faultgen_run *run);
int fg_numa_policy(const struct faultgen_run *run, void *addr, size_t len);
int fg_numa_worker(const struct faultgen_run *run, char *addr, size_t len);
size_t fg_numa_report_nodes(void);
int fg_numa_count(char *addr, size_t len, size_t ps, uint64_t *counts,
		  size_t nnodes);

/* measure.c */
void fg_usage_now(struct fg_usage *u, bool process, int lock_fd);
bool fg_counts_process(const struct faultgen_run *run, unsigned int i);
void fg_usage_sub(struct fg_usage *d, const struct fg_usage *a,
		  const struct fg_usage *b);
void fg_usage_add(struct fg_usage *sum, const struct fg_usage *d);
void fg_stat_begin(struct fg_wstat *w, struct fg_usage *at, bool process);
void fg_stat_end(struct fg_wstat *w, const struct fg_usage *at,
		 bool process);
void fg_measure_rates(struct faultgen_result *r);
void fg_measure_fold(struct faultgen_run *run);
void fg_measure_add_caller(struct faultgen_run *run,
			   const struct fg_wstat *w);
void fg_split_cpu(const struct fg_wstat *w, double *user, double *sys);
FG_TESTABLE double fg_median(double *v, size_t n);
FG_TESTABLE bool fg_faults_agree(uint64_t expected, uint64_t measured,
				 unsigned int workers);
FG_TESTABLE unsigned int fg_round_rates(const struct faultgen_run *run,
					double *rates, size_t max);

/* worker.c */
bool fg_gate_pass(struct faultgen_run *run, struct fg_gate *g);
void fg_gates_abort(struct fg_shared *sh);
/*
 * What each worker runs: prepare (may be NULL) before the start gate,
 * body after it.  A pattern may add helpers: threads of the calling
 * process beside the measured workers (a thread that maps and unmaps,
 * one that forks), none of them a worker: not at the gates' count, not
 * in the figures.  Helper h runs helper(run, h) once the start gate
 * opens, until fg_helpers_stop says every worker is through (or the run
 * is cancelled); its own figures go into the pattern's state.  Threads
 * only, with the barrier.
 */
struct fg_work {
	int (*prepare)(struct faultgen_run *run, unsigned int i);
	int (*body)(struct faultgen_run *run, unsigned int i);
	bool barrier; /* all start together at one gate */
	unsigned int (*helpers)(const struct faultgen_run *run); /* or NULL */
	int (*helper)(struct faultgen_run *run, unsigned int h);
};
FG_TESTABLE int fg_workers_run(struct faultgen_run *run,
			       const struct fg_work *work);
FG_TESTABLE bool fg_helpers_stop(const struct faultgen_run *run);
/* The calling thread on the run's CPUs (cpu >= 0: on cpu alone) while it
 * faults for the pattern itself, and its own mask back after. */
int fg_caller_place(struct faultgen_run *run, int cpu);
/* The calling thread on cpu alone (pin: a scratch mask of the run's
 * size), or under SCHED_FIFO: 0 or -errno.  System calls only. */
int fg_bind_to_cpu(const struct faultgen_run *run, void *pin, int cpu);
int fg_fifo_self(void);
void fg_caller_restore(struct faultgen_run *run);
/* Worker i's measured interval begins, or ends (its last round is
 * through): helpers that measure beside the workers (writers) count
 * over the phase from the first begin to the last end. */
void fg_measure_begin(struct faultgen_run *run);
void fg_measure_end(struct faultgen_run *run);
bool fg_measure_open(const struct faultgen_run *run);
bool fg_measure_over(const struct faultgen_run *run);

/* sigbus.c: a worker's SIGBUS that ends the run (catch_sigbus).  A
 * recovery point is armed around a worker's touches: the handler jumps
 * back to it with the faulting address. */
#include <setjmp.h>
struct fg_sigbus_point {
	sigjmp_buf env;
	/* Written by the handler before it jumps back: volatile, as C asks
	 * of what changes between sigsetjmp and its return. */
	void *volatile addr; /* si_addr */
	volatile int code;   /* si_code */
};
int fg_sigbus_begin(const struct faultgen_run *run);
void fg_sigbus_end(const struct faultgen_run *run);
void fg_sigbus_child(const struct faultgen_run *run);
void fg_sigbus_arm(struct fg_sigbus_point *p);
void fg_sigbus_disarm(void);
int fg_sigbus_cause(const struct faultgen_run *run, const void *addr);
int fg_sigbus_guard(struct faultgen_run *run, unsigned int i,
		    int (*fn)(void *ctx), void *ctx);

/* thp.c */
int fg_hpage_size(size_t *size);
int fg_thp_pmd_on(size_t hpage);
int fg_khugepaged_full_scans(uint64_t *scans);
int fg_madv_collapse(void *addr, size_t len);
FG_TESTABLE int fg_collapse_probe(void);
int fg_smaps_sum(const void *addr, size_t len, const char *const *keys,
		 uint64_t *kb);
FG_TESTABLE int fg_smaps_anon_huge(const void *addr, size_t len,
				   uint64_t *kb);
int fg_pagemap_open(void);
int fg_pagemap_huge(int fd, const char *start, size_t len, size_t hpage,
		    bool *huge);

/* jvm.c */
/* Pretouch tasks of a JVM at most: start-up memory, heap, G1's tables. */
#define FG_JVM_MAX_RANGES 8
unsigned int fg_jvm_gc_threads(unsigned int ncpus);
uint64_t fg_jvm_heap_bytes(enum faultgen_jvm_gc gc, uint64_t heap,
			   uint64_t page);
uint64_t fg_jvm_aux_bytes(unsigned int jdk, enum faultgen_jvm_gc gc,
			  uint64_t heap_bytes);
FG_TESTABLE unsigned int fg_jvm_ranges(unsigned int jdk,
				       enum faultgen_jvm_gc gc, uint64_t heap,
				       uint64_t page, uint64_t *lens,
				       unsigned int max);
unsigned int fg_jvm_serial_ranges(enum faultgen_jvm_gc gc);
bool fg_jvm_spaces_adjoin(enum faultgen_jvm_gc gc);

/* latency.c */
typedef int fg_touch_fn(const struct faultgen_run *run, char *addr,
			size_t len, const struct fg_shared *sh);
FG_TESTABLE unsigned int fg_hist_index(uint64_t v);
FG_TESTABLE uint64_t fg_hist_lo(unsigned int idx, uint64_t *width);
FG_TESTABLE void fg_hist_init(struct fg_hist *h);
FG_TESTABLE void fg_hist_record(struct fg_hist *h, uint64_t v);
FG_TESTABLE void fg_hist_merge(struct fg_hist *dst, const struct fg_hist *src);
FG_TESTABLE uint64_t fg_hist_value_at(const struct fg_hist *h, double q);
FG_TESTABLE bool fg_lat_tail_sched(uint64_t count, double p99_ns,
				   uint64_t nivcsw, int64_t run_delay_ns);
int fg_lat_prepare(struct faultgen_run *run);
void fg_lat_release(struct faultgen_run *run);
void fg_wlat_begin(struct fg_wlat *l, bool process);
void fg_wlat_end(struct fg_wlat *l, bool process);
void fg_wlat_merge(struct fg_wlat *t, const struct fg_wlat *l);
void fg_lat_begin(struct faultgen_run *run, unsigned int i, bool process);
void fg_lat_end(struct faultgen_run *run, unsigned int i, bool process);
void fg_lat_add(struct faultgen_run *run, unsigned int i, uint64_t ns);
int fg_lat_touch(struct faultgen_run *run, unsigned int i, char *addr,
		 size_t len, const struct fg_shared *sh, fg_touch_fn *touch);
int fg_lat_touch_piece(struct faultgen_run *run, unsigned int i, char *addr,
		       size_t len, const struct fg_shared *sh,
		       fg_touch_fn *touch, unsigned int *left);
void fg_lat_block(struct faultgen_run *run, unsigned int i, char *addr,
		  size_t len, unsigned char stamp, unsigned int *left);
void fg_lat_fold(struct faultgen_run *run);
int fg_run_latency(const struct faultgen_run *run, int worker,
		   struct faultgen_latency *r);
int fg_run_latency_buckets(const struct faultgen_run *run, int worker,
			   struct faultgen_latency_bucket *b, size_t max);

/* lockpaths.c */
int fg_trace_id(const char *sys, const char *name, uint64_t *id);
int fg_lock_prepare(struct faultgen_run *run);
int fg_lock_open(const struct faultgen_run *run, int fds[FG_LOCK_EVENTS]);
void fg_lock_close(int fds[FG_LOCK_EVENTS]);
void fg_lock_worker_open(const struct faultgen_run *run, struct fg_wstat *w,
			 int fds[FG_LOCK_EVENTS]);
void fg_lock_worker_close(struct fg_wstat *w, int fds[FG_LOCK_EVENTS]);
void fg_lock_read(int fd, struct fg_lock_counts *c);
void fg_lock_add(struct fg_lock_counts *d, const struct fg_lock_counts *a);
void fg_lock_sub(struct fg_lock_counts *d, const struct fg_lock_counts *a,
		 const struct fg_lock_counts *b);
FG_TESTABLE int fg_lock_parse(const uint64_t *buf, size_t words,
			      struct fg_lock_counts *c);
FG_TESTABLE void fg_lock_derive(const struct fg_lock_counts *c,
				const struct fg_lock_counts *zap,
				uint64_t faults,
				struct faultgen_lock_paths *lp);
int fg_lock_zap(struct faultgen_run *run, unsigned int i,
		int (*zap)(struct faultgen_run *run, unsigned int i));
int fg_lock_helpers_new(struct faultgen_run *run, unsigned int n);
void fg_lock_helper_open(struct faultgen_run *run, unsigned int h);
void fg_lock_phase(struct faultgen_run *run, bool end);
void fg_lock_helpers_done(struct faultgen_run *run);
FG_TESTABLE int fg_run_lock_paths(const struct faultgen_run *run, int worker,
				  struct faultgen_lock_paths *lp);

/* lockwaits.c */
int fg_wait_prepare(struct faultgen_run *run);
void fg_wait_release(struct faultgen_run *run);
void fg_wait_worker_open(struct faultgen_run *run, unsigned int i);
void fg_wait_worker_close(struct faultgen_run *run, unsigned int i);
void fg_wait_worker_tick(struct faultgen_run *run, unsigned int i);
void fg_wait_worker_flush(struct faultgen_run *run, unsigned int i);
bool fg_wait_worker_on(const struct faultgen_run *run, unsigned int i);
int fg_wait_helpers_new(struct faultgen_run *run, unsigned int n);
void fg_wait_helper_open(struct faultgen_run *run, unsigned int h);
void fg_wait_helper_tick(struct faultgen_run *run, unsigned int h);
void fg_wait_helper_close(struct faultgen_run *run, unsigned int h);
void fg_wait_helpers_done(struct faultgen_run *run);
void fg_wait_phase(struct faultgen_run *run, bool end, int64_t now);
FG_TESTABLE void fg_wait_stat_init(struct fg_wait_stat *s);
FG_TESTABLE void fg_wait_pairing_init(struct fg_wait_pairing *p);
FG_TESTABLE void fg_wait_feed(struct fg_wait_pairing *p,
			      const struct fg_wait_event *ev, size_t n,
			      int64_t from, int64_t to,
			      struct fg_wait_stat *s);
FG_TESTABLE int fg_wait_decode(const void *rec, size_t len,
			       const uint64_t ids[FG_WAIT_EVENTS],
			       struct fg_wait_event *ev);
FG_TESTABLE int fg_run_lock_waits(const struct faultgen_run *run, int worker,
				  struct faultgen_lock_waits *lw);

/* qemu.c: QEMU's thread count and slices (FG_TESTABLE). */
unsigned int fg_qemu_threads(long online, unsigned int asked, uint64_t pages,
			     uint64_t step);
void fg_qemu_slice(uint64_t pages, unsigned int n, unsigned int i,
		   uint64_t *first, uint64_t *count);

/* writers.c: the shared-VMA pattern's state, its writers' figures. */
struct fg_writer_slot {
	struct fg_wlat lat; /* its calls in the measured phase, timed */
	bool lost; /* munmap: another thread mapped into its region */
	struct fg_resv moved; /* munmap: the region it went on in since */
	uint64_t moves;       /* munmap: the times it went elsewhere */
};
struct fg_writers {
	struct fg_resv resv; /* every writer's region, guards between */
	char *start;
	void *guard[2];          /* PROT_NONE pages either side of the VMA */
	_Atomic uint64_t calls;  /* every writer's calls in the measured
				  * phase, once it stops */
	_Atomic uint64_t moves;  /* munmap writers' moves to a fresh region */
	_Atomic uint32_t stopped; /* writers that stopped */
	bool ran;                /* the run had writers */
	struct fg_resv slot_resv; /* the slots, in a reservation of their own */
	struct fg_writer_slot *slots; /* one per writer */
	struct fg_wlat lat; /* every writer's, merged (fg_writers_fold) */
};
int fg_writers_check(const struct faultgen_attr *a,
		     struct faultgen_conflict *c);
int fg_writers_setup(struct faultgen_run *run);
void fg_writers_release(struct faultgen_run *run);
unsigned int fg_writers_count(const struct faultgen_run *run);
int fg_writer_run(struct faultgen_run *run, unsigned int h);
int fg_writers_figure(const struct faultgen_run *run, unsigned int index,
		      struct faultgen_figure *f);
void fg_writers_fold(struct faultgen_run *run);

/* interleave.c: the shared VMA dealt in blocks of pages. */
int fg_interleave_check(const struct faultgen_attr *a,
			struct faultgen_conflict *c);
void fg_interleave_layout(struct faultgen_run *run);
int fg_interleave_work(struct faultgen_run *run, unsigned int i);

/* fault.c */
int fg_touch(const struct faultgen_run *run, char *addr, size_t len,
	     const struct fg_shared *sh);
/* One VMA faulted in slices by fault.c's workers (sparse.c's too): its
 * rules, and its exec. */
int fg_one_vma_check(const struct faultgen_attr *a,
		     struct faultgen_conflict *c);
int fg_fault_exec(struct faultgen_run *run);
/* What a pattern adds to those workers: a setup of the memory once it
 * is mapped, before they start, and helpers beside them (struct
 * fg_work's: none when helpers says 0); each may be NULL. */
struct fg_fault_extra {
	int (*setup)(struct faultgen_run *run);
	unsigned int (*helpers)(const struct faultgen_run *run);
	int (*helper)(struct faultgen_run *run, unsigned int h);
};
int fg_fault_exec_with(struct faultgen_run *run,
		       const struct fg_fault_extra *x);

/* collapse.c */
FG_TESTABLE enum faultgen_verdict
fg_collapse_verdict(enum faultgen_protect protect, unsigned int ranges,
		    unsigned int collapsed, int first_error);
FG_TESTABLE enum faultgen_verdict
fg_khugepaged_verdict(enum faultgen_protect protect, unsigned int ranges,
		      unsigned int collapsed, bool thp_on, uint64_t full_scans,
		      uint64_t exceed_shared, uint64_t alloc_failed);
const char *fg_verdict_name(enum faultgen_verdict v);
int fg_collapse_result(const struct faultgen_run *run,
		       struct faultgen_collapse_result *res);
int fg_collapse_range(const struct faultgen_run *run, unsigned int index,
		      struct faultgen_collapse_range *range);
int fg_collapse_progress(const struct faultgen_run *run, unsigned int index,
			 double *t_s, unsigned int *collapsed);

/* pretouch.c */
FG_TESTABLE bool fg_pretouch_claim(_Atomic uint64_t *cursor, uint64_t start,
				   uint64_t end, uint64_t chunk,
				   uint64_t *off, uint64_t *len);

/* settings.c: the tables */
FG_TESTABLE unsigned int fg_setting_count(void);
FG_TESTABLE const struct fg_setting *fg_setting_at(unsigned int index,
						   int *pattern);
const struct fg_setting *fg_setting_named(const char *name, int *pattern);
const struct fg_setting *fg_setting_of(enum faultgen_setting id);
const char *fg_setting_name_of(enum faultgen_setting id);
void fg_settings_init(struct faultgen_attr *a);

/* values.c: a value by its table entry */
int fg_setting_check(const struct faultgen_attr *a,
		     const struct fg_setting *s, const union fg_slot *v);
int fg_setting_store(struct faultgen_attr *a, const struct fg_setting *s,
		     const union fg_slot *v);
int fg_setting_set(struct faultgen_attr *a, const struct fg_setting *s,
		   const union fg_slot *v);
union fg_slot fg_setting_get(const struct faultgen_attr *a,
			     const struct fg_setting *s);
union fg_slot fg_own_setting(const struct faultgen_run *run,
			     const char *name);
int fg_value_to_slot(const struct fg_setting *s,
		     const struct faultgen_value *v, union fg_slot *out);
void fg_slot_to_value(const struct fg_setting *s, const union fg_slot *v,
		      struct faultgen_value *out);

/* patterns.c */
unsigned int fg_pattern_count(void);
const struct fg_pattern *fg_pattern(enum faultgen_pattern p);
const struct fg_pattern *fg_pattern_of(const struct faultgen_attr *a);

/* run.c */
/* util.c: a pattern's figures as a table: figure `index` of the first n
 * rows into *f, and n; -ERANGE past the last (a figure callback). */
struct fg_figure_row {
	const char *name;
	double value;
	const char *unit;
};
int fg_figure_pick(const struct fg_figure_row *rows, unsigned int n,
		   unsigned int index, struct faultgen_figure *f);
int fg_attr_check(const struct faultgen_attr *a, struct faultgen_conflict *c);
int fg_run_create(const struct faultgen_attr *attr, struct faultgen_run **out);
FG_TESTABLE int fg_run_prepare(struct faultgen_run *run);
int fg_run_exec(struct faultgen_run *run);
void fg_run_cancel(struct faultgen_run *run);
void fg_run_free(struct faultgen_run *run);
bool fg_run_measured(const struct faultgen_run *run);
int fg_run_worker(const struct faultgen_run *run, unsigned int index,
		  struct faultgen_worker_result *r);
int fg_run_rounds(const struct faultgen_run *run, unsigned int worker,
		  double *seconds, size_t max);
int fg_run_node_pages(const struct faultgen_run *run, int worker,
		      uint64_t *pages, size_t max);
int fg_run_figure(const struct faultgen_run *run, unsigned int index,
		  struct faultgen_figure *f);

/* json.c: a strict JSON reader into nodes (the replay's profiles). */
#define FG_JSON_MAX_BYTES (64u << 20)
#define FG_JSON_MAX_DEPTH 32
#define FG_JSON_MAX_NODES (16u << 20)
enum fg_json_type {
	FG_JSON_NULL, FG_JSON_FALSE, FG_JSON_TRUE, FG_JSON_NUMBER,
	FG_JSON_STRING, FG_JSON_ARRAY, FG_JSON_OBJECT,
};
struct fg_json {
	enum fg_json_type type;
	uint32_t first, next; /* first child, next sibling: 0 for none */
	uint32_t count;       /* children of an array or object */
	const char *key;      /* a member's name, or NULL */
	const char *str;      /* a string's text, NUL-terminated */
	size_t len, pos;      /* its length; where it begins in the input */
	double num;
};
struct fg_json_doc {
	struct fg_json *node; /* node 0: the top value */
	uint32_t nr, cap;
	char *text;           /* the input's copy the strings are in */
	char error[160];
};
FG_TESTABLE int fg_json_parse(const char *buf, size_t len,
			      struct fg_json_doc *doc);
void fg_json_free(struct fg_json_doc *doc);
uint32_t fg_json_member(const struct fg_json_doc *doc, uint32_t obj,
			const char *name);
uint32_t fg_json_elem(const struct fg_json_doc *doc, uint32_t arr,
		      uint32_t i);

/* profile.c: a fault profile (pft-profile/1), checked and compact. */
enum fg_replay_kind {
	FG_KIND_FIRST_TOUCH, FG_KIND_READ, FG_KIND_COW, FG_KIND_WRITE_NOTIFY,
	FG_KIND_MAJOR, FG_KIND_HUGE, FG_KIND_KERNEL, FG_KIND_USER,
	FG_KIND_REFAULT, FG_KIND_GUP, FG_KIND_KERNEL_SIDE, FG_NR_KINDS,
};
enum fg_obj_backing {
	FG_OBJ_ANON, FG_OBJ_SHARED_ANON, FG_OBJ_MEMFD, FG_OBJ_SYSV,
	FG_OBJ_FILE, FG_OBJ_HUGETLB,
};
enum fg_row_order { FG_ORDER_SEQ, FG_ORDER_STRIDE, FG_ORDER_RANDOM };
struct fg_pobject {
	enum fg_obj_backing backing;
	uint64_t pages; /* of page_size */
	bool writable, thp;
};
struct fg_pprocess {
	int parent; /* index, -1 for the root */
	double fork_ms;
};
struct fg_pthread {
	unsigned int process; /* index */
	double start_ms;
};
struct fg_prow {
	unsigned int thread, object; /* indexes */
	uint32_t bin, nbins;
	enum fg_replay_kind kind;
	enum fg_row_order order;
	uint64_t count, first_page, last_page, stride;
};
/* A mapping call of the profile's "calls" (pft-profile(5)). */
enum fg_call { FG_CALL_MADVISE, FG_CALL_MPROTECT, FG_CALL_MUNMAP,
	       FG_CALL_MMAP, FG_NR_CALLS };
struct fg_pcall {
	unsigned int thread; /* index */
	int object;          /* index, or -1: on no object of the profile */
	uint32_t bin;
	enum fg_call call;
	int arg; /* madvise: the advice; mprotect: PROT_*; else 0 */
	uint64_t count, first_page, last_page, pages;
};
struct fg_profile {
	uint64_t period, page_size;
	double bin_ms;
	unsigned int nr_objects, nr_processes, nr_threads;
	size_t nr_rows;
	struct fg_pobject *objects;
	struct fg_pprocess *processes;
	struct fg_pthread *threads;
	struct fg_prow *rows; /* without_event's after the faults' */
	unsigned int *thread_ids; /* the profile's ids, by index */
	/* [process * nr_objects + object]: 1 where the process maps the
	 * object (its "objects"). */
	unsigned char *maps;
	uint64_t counts[FG_NR_KINDS]; /* the faults it holds, by kind */
	struct fg_pcall *calls; /* "calls": null where calls_recorded is not */
	size_t nr_calls;
	bool calls_recorded;
	uint64_t call_counts[FG_NR_CALLS]; /* count x period */
};
extern const char *const fg_call_names[FG_NR_CALLS + 1];
#define FG_PROFILE_ERROR_LEN 192
extern const char *const fg_kind_names[FG_NR_KINDS + 1];
FG_TESTABLE int fg_profile_parse(const char *buf, size_t len,
				 struct fg_profile *pr, char *err,
				 size_t errlen);
void fg_profile_free(struct fg_profile *pr);
/* A parsed profile that attrs and runs share, read-only. */
struct fg_profile_ref {
	_Atomic unsigned int refs;
	struct fg_profile pr;
};
int fg_profile_ref_parse(const char *buf, size_t len,
			 struct fg_profile_ref **out, char *err, size_t errlen);
struct fg_profile_ref *fg_profile_get(struct fg_profile_ref *r);
void fg_profile_put(struct fg_profile_ref *r);
/* replay.c */
const char *fg_replay_message(const struct faultgen_run *run);
int fg_replay_object(const struct faultgen_run *run, unsigned int object,
		     struct faultgen_replay_object *out);
int fg_replay_faults(const struct faultgen_run *run, unsigned int object,
		     int worker, const char *kind, uint64_t *faults);
/* replay-obs.c: what a replay measured of each object of its profile */
struct fg_robs;
struct fg_robs_cur;
struct fg_robs_object {
	uint64_t faults;
	unsigned int threads, processes;
	unsigned int threads_most, processes_most;
	double threads_median, processes_median;
	int64_t first_ns, last_ns;
	uint64_t merged_windows; /* the run's, every object's */
};
int fg_robs_new(struct fg_robs **out, const struct fg_profile *pr,
		const size_t *chunks_first, const size_t *thread_objects);
void fg_robs_free(struct fg_robs *o);
struct fg_robs_cur *fg_robs_thread(struct fg_robs *o, unsigned int t);
void fg_robs_touch_row(struct fg_robs *o, size_t r);
void fg_robs_note(struct fg_robs *o, struct fg_robs_cur *cur, unsigned int t,
		  size_t row, unsigned int obj, int kind, int64_t ns);
void fg_robs_note_n(struct fg_robs *o, struct fg_robs_cur *cur,
		    unsigned int t, size_t row, unsigned int obj, int kind,
		    int64_t from_ns, int64_t ns, uint64_t n);
void fg_robs_thread_end(struct fg_robs *o, struct fg_robs_cur *cur,
			unsigned int t);
int fg_robs_fold(struct fg_robs *o);
int fg_robs_object(const struct fg_robs *o, unsigned int obj,
		   struct fg_robs_object *out);
int fg_robs_faults(const struct fg_robs *o, unsigned int obj, int t, int k,
		   uint64_t *faults);
int fg_profile_read(const char *path, char **buf, size_t *len);

#endif /* FAULTGEN_INTERNAL_H */
