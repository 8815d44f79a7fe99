// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * replay.c - the replay pattern (FAULTGEN_REPLAY): a fault profile
 * (pft-profile/1, profile.c) replayed.  The run maps each object of the
 * profile with its backing, forks the profile's processes at their
 * times (each child inherits every object, as a fork gives them), starts
 * each process's threads, and each thread makes its rows' faults: count
 * x period faults (x scale) of the row's kind over the pages between
 * first_page and last_page in the row's order, spread evenly over the
 * row's bins and paced to them (each bin's faults begin at the bin's
 * time / speed; pacing "none" makes them back to back).  The mapping
 * calls, where recorded, are made at the start of their bin: an advice
 * on the object's pages where it gives them back or brings them in,
 * the others on a page of the thread's own (faultgen(7)).
 *
 * The workers are the profile's threads, worker i its thread i.  The
 * profile's root process is the calling process: its threads are
 * threads of it; the others are forked children, each running its own
 * threads.  A child dies with the thread that forked it
 * (PR_SET_PDEATHSIG), its parent waits for it (its own pids only), a
 * SysV segment is marked for removal as soon as it is attached, and a
 * file object is unlinked as soon as it is created: a replay killed at
 * any moment leaves no process, segment or file.
 *
 * The threads of a forked child are created after the fork: this relies
 * on the C library taking its allocator's and its thread list's locks
 * across fork (glibc does), not on POSIX, which allows only
 * async-signal-safe calls in the child of a process with threads.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/random.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 1U
#endif

/* A sleep toward a bin's time looks for a cancel at least this often. */
#define SLEEP_SLICE_NS (20 * 1000 * 1000)
/* How far ahead of a fault's time (the clock's) a thread may be before
 * it sleeps to it: a tenth of the default bin. */
#define PACE_AHEAD_NS (1000 * 1000)
/* The start is this far after the set-up, so that the first threads and
 * forks are on time. */
#define START_LEAD_NS (5 * 1000 * 1000)
/* (row, bin) chunks one replay may hold. */
#define MAX_CHUNKS (8u << 20)
#define MAX_SPEED 1000.0
#define MIN_SPEED 0.001
#define MAX_SCALE 64.0

enum { PACING_BINS, PACING_NONE };
/* The attr's slots of the settings (FG_OWN), read from an attr: the
 * tables are above this file (patterns.c, settings.c). */
enum { SLOT_PROFILE = 12, SLOT_SPEED, SLOT_PACING, SLOT_SCALE };

/* What every process of the replay shares (MAP_SHARED). */
struct shared {
	_Atomic uint32_t cancel;
	_Atomic int error; /* the first error of any thread or process */
	int64_t start_ns;  /* the replay's start, its clock's (CLOCK_MONOTONIC) */
	int64_t t0_ns;     /* the profile's time 0, START_LEAD_NS after */
	_Atomic uint64_t done[FG_NR_KINDS];
	_Atomic uint64_t bins, bins_late;
	_Atomic uint64_t major_as_read; /* majors of memory not a file's */
	_Atomic uint64_t calls[FG_NR_CALLS], calls_failed;
	_Atomic uint32_t error_taken;
	char msg[FG_PROFILE_ERROR_LEN];
};

/* One object, mapped. */
struct mapped {
	char *addr;
	size_t len;
	struct fg_resv resv;
	int fd; /* a file object's, for its writeback (write-notify); or -1 */
	bool readonly; /* mapped PROT_READ: its faults read */
	/* A file's object whose writes the recording told copies (its
	 * VMAs private: a shared mapping's are write-notify faults):
	 * mapped MAP_PRIVATE. */
	bool private_file;
	/* A shared object's pages this process may map beyond those its
	 * state holds: a call mapped some, or pages were made present
	 * before the clock (around: any page), or a read's fault-around
	 * mapped its neighbours, which are in the read's page table
	 * (around_at: a bit per page table's span of addresses, 2 MiB with
	 * 4 KiB pages; around_some: one of them set).  Elsewhere the state
	 * tells which pages it maps (its faults of its own pages, each
	 * marked), not pagemap. */
	bool around, around_some;
	unsigned long *around_at;
	/* Per page, as this process maps it (PAGE_*): what a fault of a
	 * row in a random order looks for (pick_page).  Each process has
	 * its own copy (fork copies it, fork_states mends it). */
	unsigned char *state;
	/* Per page, the index + 1 of the row of the earliest bin that
	 * faults it not present (0: none), which a row in a random order
	 * of an earlier bin takes last (pick_page), and which the copies
	 * leave absent (present_at_start); NULL where no row in a random
	 * order faults pages not present. */
	uint32_t *reserved;
};

/* A page as the process maps it: not present, present but a write
 * faults (read, or shared with a child after a fork), writable. */
enum { PAGE_ABSENT, PAGE_READONLY, PAGE_WRITABLE };

/* A (row, bin) of a thread: the thread's chunks sorted by bin.  A row
 * index past the profile's rows is a call's: its calls, made first in
 * the bin. */
struct chunk {
	uint32_t bin;
	uint32_t row;
};

/* A thread's own pages its calls are made on (the calls on no object,
 * and mprotect, mmap and munmap), and the pages its mmaps mapped. */
#define CALL_MAPS 64
#define CALL_PENDING 16
struct caller {
	char *page;
	char *maps[CALL_MAPS];
	unsigned int nr_maps;
	/* The bin's calls that give pages back, made when a fault finds
	 * present a page the next of them gives back, or at the bin's
	 * end: call i of n of row cl. */
	struct pending {
		const struct fg_pcall *cl;
		uint64_t i, n;
	} pend[CALL_PENDING];
	unsigned int nr_pend;
	/* The thread's open runs of windows per object (replay-obs.c),
	 * and the replay's start, read before its loop. */
	struct fg_robs_cur *cur;
	int64_t start_ns;
	/* The faults its calls made (populated_by_calls), not counted in
	 * its faults yet. */
	uint64_t made;
};

/* The pattern's state (the run's, in the calling process). */
struct replay_state {
	bool active;
	/* The run: its CPUs, memory policy, and the figures its threads
	 * write (run->sh->w, one per thread, shared with the forked
	 * processes: fg_pattern.forks). */
	struct faultgen_run *run;
	/* What it measured of each object (replay-obs.c). */
	struct fg_robs *obs;
	const struct fg_profile *pr; /* the run's attr's */
	struct shared *sh;
	size_t sh_len;
	struct mapped *obj;
	/* Per thread: its chunks [first[t], first[t + 1]). */
	struct chunk *chunks;
	size_t *first;
	/* Per row: its faults in all, and where its order is. */
	uint64_t *row_faults, *row_next, *row_x;
	/* Per call: the populated row whose faults it makes (SIZE_MAX for
	 * none: populated_by_calls). */
	size_t *call_row;
	/* Per row, a bit: its faults in the bin of a fork of its process
	 * are made after the fork (copies_after_fork). */
	unsigned long *after_fork;
	/* Per chunk, a bit: its faults may be made by another thread of its
	 * process once late (plan_shares); taken: per chunk, its faults
	 * claimed, by its thread and those helping it; from: per thread,
	 * its chunk being made (its chunks shared before it are through);
	 * helps: per thread, whether another of its process shares a chunk
	 * of an object it faults in that chunk's bin. */
	unsigned long *shareable;
	_Atomic uint64_t *taken;
	_Atomic size_t *from;
	bool *helps;
	uint64_t present_at_start; /* pages written before the clock */
	/* Per thread, the profile time (ns) of its next fault: those
	 * before it are made (INT64_MAX once it is through).  A fork waits
	 * for its process's threads to be at its time (wait_for_threads),
	 * and they wait for the fork (next_fork_ns) before going past it. */
	_Atomic int64_t *progress;
	/* Per thread, the end (profile ns) of the bin of its next call
	 * that gives pages back, not made yet (INT64_MAX for none): the
	 * other threads of its process make no fault of its object past
	 * it before it is made (held_for_giveback). */
	_Atomic int64_t *giveback_ns;
	/* Per thread, the object of that call (stored before its time):
	 * only the faults of that object wait for it. */
	_Atomic int *giveback_obj;
	/* Per call, a bit: a call that gives pages back that another
	 * thread of its process faults (shared_givebacks).  Only those
	 * hold the other threads and wait for them. */
	unsigned long *shared_giveback;
	/* The threads with such calls, by process: process p's are
	 * givers[giver_first[p] .. giver_first[p + 1]). */
	unsigned int *givers;
	size_t *giver_first;
	/* Per thread, set once it runs its own code (its C library's and
	 * a sanitizer's start done): a fork waits for it (settle). */
	_Atomic unsigned char *running;
	/* The profile time of this process's next fork not yet made. */
	_Atomic int64_t next_fork_ns;
	double speed, scale;
	bool paced;
	size_t ps, hps;
	/* The pages one page table maps (as many as a huge page's, a
	 * PMD's): fault-around maps no page beyond its fault's. */
	size_t pt_pages;
	/* This process's /proc/self/pagemap (each process opens its own,
	 * run_process), or -1: which pages of a shared object it maps. */
	int pagemap_fd;
	char msg[FG_PROFILE_ERROR_LEN]; /* set-up's error, before sh */
	uint64_t counts[FG_NR_KINDS];   /* the profile's, scaled */
};

/* The run's one state: allocated by the pattern (not in the forked
 * workers' shared memory: its own shared part is sh). */
struct replay_box {
	struct replay_state *st;
	char msg[FG_PROFILE_ERROR_LEN]; /* why the run failed, or "" */
};

static struct replay_state *state_of(const struct faultgen_run *run)
{
	struct replay_box *b = fg_pattern_state(run);

	return b ? b->st : NULL;
}

static void say(struct replay_state *st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say(struct replay_state *st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	/* The analyzer takes ap for uninitialized. */
	vsnprintf(st->msg, // NOLINT(clang-analyzer-valist.Uninitialized)
		  sizeof(st->msg), fmt, ap);
	va_end(ap);
}

/* A worker's error, the first one kept with its message. */
static void fail_shared(struct shared *sh, int err, const char *msg)
{
	uint32_t no = 0;

	if (atomic_compare_exchange_strong(&sh->error_taken, &no, 1)) {
		snprintf(sh->msg, sizeof(sh->msg), "%s", msg);
		atomic_store(&sh->error, err);
	}
	atomic_store(&sh->cancel, 1);
}

extern const struct fg_pattern fg_replay_pattern;

/* ---- settings ---------------------------------------------------- */

/* "2", "0.5", "1.25": a factor, without the locale. */
static int parse_factor(const char *s, double *v)
{
	double scale = 1;
	bool point = false, any = false;

	*v = 0;
	if (!s || !*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s == '.' && !point) {
			point = true;
			continue;
		}
		if (*s < '0' || *s > '9')
			return -EINVAL;
		any = true;
		if (point) {
			scale /= 10;
			*v += (*s - '0') * scale;
		} else {
			*v = *v * 10 + (*s - '0');
			if (*v > 1e9)
				return -EINVAL;
		}
	}
	return any && *v > 0 ? 0 : -EINVAL;
}

static int check_speed(const struct faultgen_attr *a, const union fg_slot *v)
{
	double d;

	(void)a;
	return parse_factor(v->s, &d) || d > MAX_SPEED || d < MIN_SPEED ?
		       -EINVAL : 0;
}

static int check_scale(const struct faultgen_attr *a, const union fg_slot *v)
{
	double d;

	(void)a;
	return parse_factor(v->s, &d) || d > MAX_SCALE ? -EINVAL : 0;
}

static int check_path(const struct faultgen_attr *a, const union fg_slot *v)
{
	(void)a;
	return v->s && !*v->s ? -EINVAL : 0;
}

static double factor_of(const struct faultgen_run *run, const char *name)
{
	double d;

	return parse_factor(fg_own_setting(run, name).s, &d) ? 1 : d;
}

/* ---- the profile, as the run reads it ---------------------------- */

/*
 * The attr's profile, parsed (*out, a reference to put): the one it
 * holds (parsed when faultgen_attr_set_profile or _buffer set it), or
 * its path's, read and parsed now (a path set with
 * faultgen_attr_set_value).  0, or an error with msg said.
 */
static int profile_of(const struct faultgen_attr *a,
		      struct fg_profile_ref **out, char *msg, size_t msglen)
{
	const char *path = a->own[SLOT_PROFILE].s;
	char *buf = NULL;
	size_t len = 0;
	int ret;

	*out = fg_profile_get(a->profile);
	if (*out)
		return 0;
	if (!path) {
		snprintf(msg, msglen, "no profile: the replay needs one");
		return -EINVAL;
	}
	ret = fg_profile_read(path, &buf, &len);
	if (ret) {
		snprintf(msg, msglen, "cannot read the profile: %s",
			 ret == -EINVAL ? "not a regular file" :
			 ret == -EFBIG ? "larger than 64 MiB" :
					 strerror(-ret));
		return ret;
	}
	ret = fg_profile_ref_parse(buf, len, out, msg, msglen);
	free(buf);
	return ret;
}

/* The run's profile, parsed once, when the run is created: its attr's,
 * or its path's (the run's attr keeps it, or why it could not). */
static void replay_attach(struct faultgen_run *run)
{
	struct faultgen_attr *a = &run->attr;

	if (!a->profile)
		a->profile_err = profile_of(a, &a->profile, a->profile_error,
					    sizeof(a->profile_error));
}

/* A path set anew: the attr's parsed profile is another file's, if any
 * (faultgen_attr_set_profile sets its own after the store). */
static void profile_dropped(struct faultgen_attr *a)
{
	fg_profile_put(a->profile);
	a->profile = NULL;
}

/* Scaled: a page index (down), a count of pages (up, at least 1). */
static uint64_t scaled_index(const struct replay_state *st, uint64_t p)
{
	return (uint64_t)((double)p * st->scale);
}

static uint64_t scaled_pages(const struct replay_state *st, uint64_t n)
{
	double d = (double)n * st->scale;
	uint64_t v = (uint64_t)d;

	if ((double)v < d)
		v++;
	return v ? v : 1;
}

/* A row's faults: count x period, scaled; a row of faults keeps one. */
static uint64_t scaled_faults(const struct replay_state *st,
			      const struct fg_prow *r)
{
	double d = (double)r->count * (double)st->pr->period * st->scale;
	uint64_t v = (uint64_t)(d + 0.5);

	return r->count && !v ? 1 : v;
}

/* The workers a run of attr has: the profile's threads (0 when it
 * could not be read: the run then fails with the reason). */
static unsigned int replay_workers(const struct faultgen_run *run)
{
	return run->attr.profile ? run->attr.profile->pr.nr_threads : 0;
}

/* The memory the profile's objects take (scaled), for
 * faultgen_attr_get_memory. */
static void replay_memory(const struct faultgen_attr *a, uint64_t *mapped,
			  uint64_t *held)
{
	struct replay_state st = { .scale = 1 };
	struct fg_profile_ref *ref;
	char msg[FG_PROFILE_ERROR_LEN];
	double d;

	*mapped = *held = 0;
	if (!parse_factor(a->own[SLOT_SCALE].s, &d))
		st.scale = d;
	if (profile_of(a, &ref, msg, sizeof(msg)))
		return;
	for (unsigned int o = 0; o < ref->pr.nr_objects; o++) {
		uint64_t b = scaled_pages(&st, ref->pr.objects[o].pages) *
			     ref->pr.page_size;

		*mapped += b;
		if (ref->pr.objects[o].backing != FG_OBJ_HUGETLB)
			*held += b;
	}
	fg_profile_put(ref);
}

/* ---- objects ------------------------------------------------------ */

static int map_fixed(struct mapped *m, int prot, int flags, int fd)
{
	void *p = mmap(m->addr, m->len, prot, flags | MAP_FIXED, fd, 0);

	return p == MAP_FAILED ? -errno : 0;
}

static int map_sysv(struct mapped *m, int prot)
{
	int id = shmget(IPC_PRIVATE, m->len, IPC_CREAT | 0600);
	void *p;

	if (id < 0)
		return -errno;
	p = shmat(id, m->addr, SHM_REMAP | (prot == PROT_READ ? SHM_RDONLY :
							     0));
	/* Private at once: no key, and gone with the last detach. */
	shmctl(id, IPC_RMID, NULL);
	return p == (void *)-1 ? -errno : 0;
}

/*
 * The new file's pages read once, into the page cache (a hole reads as
 * zeros, without the device): a recorded fault on a file's page was a
 * major fault where the page was not in the page cache, a row of its
 * own (the replay evicts that page first), and a first touch or a read
 * where it was.  Read without read-ahead (POSIX_FADV_RANDOM), page by
 * page: the cache holds single pages, not large folios, so that a page
 * a major fault reads can be evicted alone (its neighbours stay).
 */
static int cache_file(int fd, size_t len)
{
	/* On the stack: a buffer of malloc's own mapping, gone before a
	 * survey of the replay saw it, had its pages' faults (the
	 * kernel's, reading into it) joined to the object mapped later
	 * where it was. */
	char buf[64 * 1024];
	size_t chunk = sizeof(buf);
	int ret = 0;

	(void)posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	for (size_t off = 0; off < len;) {
		ssize_t r = pread(fd, buf, len - off < chunk ? len - off : chunk,
				  (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			ret = r < 0 ? -errno : -EIO;
			break;
		}
		off += (size_t)r;
	}
	return ret;
}

static int map_file(const struct faultgen_run *run, struct mapped *m,
		    unsigned int o, int prot)
{
	const char *dir = run->attr.backing_path;
	char name[64];
	int dfd, fd, ret;

	if (!dir)
		return -ENOENT;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	snprintf(name, sizeof(name), "libfaultgen-replay-%d-%u", (int)getpid(),
		 o);
	fd = openat(dfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
				       O_CLOEXEC, 0600);
	if (fd < 0) {
		ret = -errno;
		close(dfd);
		return ret;
	}
	/* Gone from the directory at once: nothing left if killed. */
	unlinkat(dfd, name, 0);
	close(dfd);
	ret = ftruncate(fd, (off_t)m->len) < 0 ? -errno : 0;
	if (!ret)
		ret = cache_file(fd, m->len);
	if (!ret)
		ret = map_fixed(m, prot, m->private_file ? MAP_PRIVATE : MAP_SHARED,
				fd);
	if (ret)
		close(fd);
	else
		m->fd = fd;
	return ret;
}

static int map_memfd(struct mapped *m, int prot)
{
	int fd = memfd_create("libfaultgen-replay", MFD_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = ftruncate(fd, (off_t)m->len) < 0 ? -errno : 0;
	if (!ret)
		ret = map_fixed(m, prot, MAP_SHARED, fd);
	close(fd);
	return ret;
}

static int map_backing(const struct faultgen_run *run, struct mapped *m,
		       unsigned int o, const struct fg_pobject *ob)
{
	int prot = ob->writable ? PROT_READ | PROT_WRITE : PROT_READ;

	switch (ob->backing) {
	case FG_OBJ_ANON:
		return map_fixed(m, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	case FG_OBJ_SHARED_ANON:
		return map_fixed(m, prot, MAP_SHARED | MAP_ANONYMOUS, -1);
	case FG_OBJ_HUGETLB:
		return map_fixed(m, prot, MAP_PRIVATE | MAP_ANONYMOUS |
					  MAP_HUGETLB | MAP_NORESERVE, -1);
	case FG_OBJ_MEMFD:
		return map_memfd(m, prot);
	case FG_OBJ_SYSV:
		return map_sysv(m, prot);
	case FG_OBJ_FILE:
		return map_file(run, m, o, prot);
	}
	return -EINVAL;
}

/* The profile's names of the backings. */
static const char *const backing_names[] = {
	[FG_OBJ_ANON] = "anonymous", [FG_OBJ_SHARED_ANON] = "shared-anonymous",
	[FG_OBJ_MEMFD] = "memfd", [FG_OBJ_SYSV] = "sysv",
	[FG_OBJ_FILE] = "file", [FG_OBJ_HUGETLB] = "hugetlb",
};

static const char *map_why(const struct fg_pobject *ob, int err)
{
	if (ob->backing == FG_OBJ_FILE && err == -ENOENT)
		return "a file object needs a directory "
		       "(faultgen_attr_set_backing_path; pft --backing=file:DIR)";
	return strerror(-err);
}

/* Whether object ob is mapped with huge pages (THP advised, or
 * hugetlb). */
static bool huge_object(const struct fg_pobject *ob)
{
	return ob->thp || ob->backing == FG_OBJ_HUGETLB;
}

/* Whether object o has a row of faults of kind k. */
static bool has_kind(const struct fg_profile *pr, unsigned int o,
		     enum fg_replay_kind k)
{
	for (size_t r = 0; r < pr->nr_rows; r++)
		if (pr->rows[r].object == o && pr->rows[r].kind == k)
			return true;
	return false;
}

/* Whether object o is a file's mapped private: copies recorded, no
 * write-notify fault (a shared mapping's writes are those). */
static bool private_file_object(const struct fg_profile *pr, unsigned int o)
{
	return pr->objects[o].backing == FG_OBJ_FILE &&
	       has_kind(pr, o, FG_KIND_COW) &&
	       !has_kind(pr, o, FG_KIND_WRITE_NOTIFY);
}

/* A write-notify fault needs a file system that writes its pages back
 * and so write-protects them until the next write (page_mkwrite):
 * tmpfs and ramfs map a shared file's pages writable at the first
 * fault, and no write would fault again. */
static int dirty_tracking_check(struct replay_state *st, unsigned int o)
{
	struct statfs sf;

	if (!has_kind(st->pr, o, FG_KIND_WRITE_NOTIFY) ||
	    fstatfs(st->obj[o].fd, &sf) < 0 ||
	    !fg_pages_stay((unsigned long)sf.f_type))
		return 0;
	say(st, "objects[%u]: its write-notify faults need a file system "
		"that writes pages back (a disk's), not tmpfs or ramfs", o);
	return -EOPNOTSUPP;
}

/* Object o, at a place of its own (guards either side, 2 MiB aligned
 * with huge pages), with its THP advice; a file's with no read-around
 * (one page a fault) where it has major faults. */
static int map_object(struct faultgen_run *run, struct replay_state *st,
		      unsigned int o)
{
	const struct fg_pobject *ob = &st->pr->objects[o];
	struct mapped *m = &st->obj[o];
	bool huge = huge_object(ob);
	int ret;

	m->len = (size_t)(scaled_pages(st, ob->pages) * st->ps);
	m->readonly = !ob->writable;
	m->private_file = private_file_object(st->pr, o);
	if (huge)
		m->len = fg_round_up(m->len, st->hps);
	m->state = calloc(m->len / st->ps, 1);
	/* Two more page tables than the length: its ends may fall in
	 * page tables of their own. */
	m->around_at = calloc(fg_bitmap_longs(m->len / st->ps / st->pt_pages +
					      2),
			      sizeof(*m->around_at));
	if (!m->state || !m->around_at)
		return -ENOMEM;
	ret = fg_reserve(m->len, huge ? st->hps : st->ps, &m->resv, &m->addr);
	if (!ret)
		ret = map_backing(run, m, o, ob);
	if (ret) {
		say(st, "objects[%u]: cannot map its %zu bytes (%s): %s", o,
		    m->len, backing_names[ob->backing],
		    map_why(ob, ret));
		return ret;
	}
	/* The run's memory policy (and its cpuset's nodes), before any
	 * page is made present. */
	ret = fg_numa_policy(run, m->addr, m->len);
	if (ret) {
		say(st, "objects[%u]: cannot set the run's memory policy on "
			"its %zu bytes: %s", o, m->len, strerror(-ret));
		return ret;
	}
	if (ob->backing == FG_OBJ_ANON)
		(void)madvise(m->addr, m->len,
			      ob->thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	if (has_kind(st->pr, o, FG_KIND_MAJOR))
		(void)madvise(m->addr, m->len, MADV_RANDOM);
	return ob->backing == FG_OBJ_FILE ? dirty_tracking_check(st, o) : 0;
}

static void unmap_objects(struct replay_state *st)
{
	for (unsigned int o = 0; st->obj && o < st->pr->nr_objects; o++) {
		if (st->obj[o].resv.raw)
			fg_resv_release(&st->obj[o].resv);
		if (st->obj[o].fd >= 0)
			close(st->obj[o].fd);
		free(st->obj[o].state);
		free(st->obj[o].around_at);
		free(st->obj[o].reserved);
	}
	free(st->obj);
	st->obj = NULL;
}

/* The pool of huge pages against the hugetlb objects', before any is
 * mapped. */
static int hugetlb_check(struct replay_state *st)
{
	uint64_t need = 0, avail = 0;
	unsigned int first = 0;
	bool any = false;

	for (unsigned int o = 0; o < st->pr->nr_objects; o++) {
		if (st->pr->objects[o].backing != FG_OBJ_HUGETLB)
			continue;
		if (!any)
			first = o;
		any = true;
		need += fg_round_up(scaled_pages(st, st->pr->objects[o].pages) *
					    st->ps,
				    st->hps) /
			st->hps;
	}
	if (!any)
		return 0;
	if (fg_huge_pages_free(st->hps, &avail) || need > avail) {
		say(st, "objects[%u]: hugetlb: %llu huge pages of %zu kB "
			"wanted, %llu free (vm.nr_hugepages)",
		    first, (unsigned long long)need, st->hps >> 10,
		    (unsigned long long)avail);
		return -ENOSPC;
	}
	return 0;
}

/* ---- the threads' chunks ----------------------------------------- */

/* Row r's share of bin b: its faults spread evenly over its bins. */
static uint64_t share_of(const struct replay_state *st, size_t r, uint32_t b)
{
	const struct fg_prow *row = &st->pr->rows[r];
	uint64_t n = st->row_faults[r], i = b - row->bin;

	return n * (i + 1) / row->nbins - n * i / row->nbins;
}

/*
 * Where a thread is in a bin: its fault j[c] of the n[c] of class c it
 * makes there.  A bin's faults are spread evenly over it (as the
 * profile counts them), from the thread's start where it starts within
 * the bin.  Where its process forks a child within the bin, its copies
 * (class 1: after_fork) are spread after the fork and its other faults
 * (class 0) before it: the copies of a fork's bin are of pages the child
 * shares, but a private file's copies of pages its process had not
 * written, which are copies of the file's pages (a program's data
 * written before it forks, as its first touches are).
 */
struct bin_pos {
	unsigned int t;
	uint32_t bin;
	double lo, split, hi; /* ms */
	uint64_t j[2], n[2];
};

static unsigned int class_of(const struct replay_state *st,
			     const struct bin_pos *at, size_t r)
{
	return at->split < at->hi && fg_bit_test(st->after_fork, r);
}

static bool is_call(const struct replay_state *st, const struct chunk *c)
{
	return c->row >= st->pr->nr_rows;
}

/* The earliest time (ms) within [lo, hi) at which process p forks a
 * child, or hi where it forks none then. */
static double first_fork_ms(const struct fg_profile *pr, unsigned int p,
			    double lo, double hi)
{
	for (unsigned int k = 0; k < pr->nr_processes; k++)
		if (pr->processes[k].parent == (int)p &&
		    pr->processes[k].fork_ms >= lo &&
		    pr->processes[k].fork_ms < hi)
			hi = pr->processes[k].fork_ms;
	return hi;
}

/* at for thread t's bin of its chunk c (and the chunks after it of the
 * same bin). */
static void bin_begin(const struct replay_state *st, unsigned int t, size_t c,
		      struct bin_pos *at)
{
	const struct fg_profile *pr = st->pr;
	uint32_t b = st->chunks[c].bin;
	unsigned int p = pr->threads[t].process;

	*at = (struct bin_pos){ .t = t, .bin = b };
	at->lo = (double)b * pr->bin_ms;
	at->hi = at->lo + pr->bin_ms;
	if (pr->threads[t].start_ms > at->lo && pr->threads[t].start_ms < at->hi)
		at->lo = pr->threads[t].start_ms;
	at->split = first_fork_ms(pr, p, at->lo, at->hi);
	for (; c < st->first[t + 1] && st->chunks[c].bin == b; c++)
		if (!is_call(st, &st->chunks[c]))
			at->n[class_of(st, at, st->chunks[c].row)] +=
				share_of(st, st->chunks[c].row, b);
}

/* The profile time (ns) of the thread's next fault of class k. */
static int64_t fault_time(const struct bin_pos *at, unsigned int k)
{
	double lo = k ? at->split : at->lo, hi = k ? at->hi : at->split;

	return (int64_t)((lo + (hi - lo) * ((double)at->j[k] + 0.5) /
				       (double)(at->n[k] ? at->n[k] : 1)) *
			 1e6);
}

/* The profile time of the thread's first fault in the bin. */
static int64_t first_time(const struct bin_pos *at)
{
	return fault_time(at, at->n[0] ? 0 : 1);
}

static int chunk_cmp(const void *a, const void *b)
{
	const struct chunk *x = a, *y = b;

	if (x->bin != y->bin)
		return x->bin < y->bin ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

static void next_giveback(struct replay_state *st, unsigned int t, size_t c);
static bool maps_anew(const struct replay_state *st, const struct fg_pcall *cl);
static int64_t bin_first_ns(const struct replay_state *st, uint32_t b);
static bool faults_in_bin(const struct replay_state *st, unsigned int t,
			  uint32_t b, unsigned int o);

/* The last nanosecond of bin b, in profile time. */
static int64_t bin_last_ns(const struct replay_state *st, uint32_t b)
{
	return (int64_t)((double)(b + 1) * st->pr->bin_ms * 1e6) - 1;
}

/* Each thread's (row, bin) chunks in the order of the bins. */
/* The threads with calls that give pages back, by process (givers),
 * which held_for_giveback looks at, rather than every thread. */
static int plan_givers(struct replay_state *st)
{
	const struct fg_profile *pr = st->pr;
	size_t n = 0;

	st->giver_first = calloc(pr->nr_processes + 1,
				 sizeof(*st->giver_first));
	st->givers = calloc(pr->nr_threads + 1, sizeof(*st->givers));
	if (!st->giver_first || !st->givers)
		return -ENOMEM;
	for (unsigned int p = 0; p < pr->nr_processes; p++) {
		st->giver_first[p] = n;
		for (unsigned int t = 0; t < pr->nr_threads; t++)
			if (pr->threads[t].process == p &&
			    atomic_load(&st->giveback_ns[t]) != INT64_MAX)
				st->givers[n++] = t;
	}
	st->giver_first[pr->nr_processes] = n;
	return 0;
}

static bool lineage(const struct fg_profile *pr, unsigned int q,
		    unsigned int p);

/* Whether a row of process p's (or an ancestor's) before row r's bin
 * wrote a page of r's range of its object. */
static bool written_before(const struct fg_profile *pr, size_t r,
			   unsigned int p)
{
	const struct fg_prow *row = &pr->rows[r];

	for (size_t q = 0; q < pr->nr_rows; q++) {
		const struct fg_prow *w = &pr->rows[q];

		if (w->object == row->object && w->bin < row->bin &&
		    (w->kind == FG_KIND_COW || w->kind == FG_KIND_FIRST_TOUCH) &&
		    w->first_page <= row->last_page &&
		    row->first_page <= w->last_page &&
		    lineage(pr, pr->threads[w->thread].process, p))
			return true;
	}
	return false;
}

/*
 * The rows whose faults in the bin of a fork of their process come
 * after the fork: the copies of anonymous (and hugetlb) memory, which
 * are of pages the child shares; of a private file's, those of pages
 * its process or an ancestor wrote in an earlier bin (copied then, and
 * shared by the fork), not copies of the file's own pages.  Only the
 * rows of a fork's bin are looked at.
 */
static void copies_after_fork(struct replay_state *st)
{
	const struct fg_profile *pr = st->pr;

	for (size_t r = 0; r < pr->nr_rows; r++) {
		const struct fg_prow *row = &pr->rows[r];
		unsigned int p = pr->threads[row->thread].process;
		double end = (double)(row->bin + row->nbins) * pr->bin_ms;

		if (row->kind != FG_KIND_COW ||
		    first_fork_ms(pr, p, (double)row->bin * pr->bin_ms, end) >=
			    end)
			continue;
		if (!private_file_object(pr, row->object) ||
		    written_before(pr, r, p))
			fg_bit_set(st->after_fork, r);
	}
}

static bool gives_back(const struct replay_state *st,
		       const struct fg_pcall *cl);
static bool populated_kind(enum fg_replay_kind k);

/*
 * The pages of object o a profile's pages [first, last] are replayed
 * on (row_range's of a row, call_pages' span of a call), or more: in
 * whole huge pages of an object with huge pages (a huge fault, a
 * hugetlb call).
 */
static void replayed_span(const struct replay_state *st, unsigned int o,
			  uint64_t first, uint64_t last, uint64_t *lo,
			  uint64_t *hi)
{
	const struct fg_pobject *ob = &st->pr->objects[o];
	uint64_t limit = scaled_pages(st, ob->pages), unit = st->hps / st->ps;

	*lo = scaled_index(st, first);
	*hi = scaled_pages(st, last + 1) - 1;
	if (*hi >= limit)
		*hi = limit - 1;
	if (*lo > *hi)
		*lo = *hi;
	if (huge_object(ob) && unit > 1) {
		*lo = *lo / unit * unit;
		*hi = *hi / unit * unit + unit - 1;
	}
}

/* Widens span [*lo, *hi] to take in [a, b]. */
static void widen(uint64_t *lo, uint64_t *hi, uint64_t a, uint64_t b)
{
	if (a < *lo)
		*lo = a;
	if (b > *hi)
		*hi = b;
}

/*
 * The calls that give pages back of which another thread of the
 * process faults or maps some (the span of its rows and calls on the
 * object, first page to last, as replayed, meets the call's): only
 * these hold the process's other threads (held_for_giveback) and wait
 * for them (make_calls), so that each side's faults fall on the pages
 * as recorded.  A thread that gives back pages only it faults (each
 * thread its part of one mapping, pass after pass) keeps its own pace,
 * as in the recording.  (Nor did any wait keep another process's
 * faults of a shared object from a call removing its pages.)
 */
static int shared_givebacks(struct replay_state *st)
{
	const struct fg_profile *pr = st->pr;
	/* The objects of such calls, numbered: slot[o], or -1. */
	int *slot = malloc((pr->nr_objects + 1) * sizeof(*slot));
	uint64_t *lo = NULL, *hi = NULL;
	size_t n = 0;
	int ret = -ENOMEM;

	st->shared_giveback = calloc(fg_bitmap_longs(pr->nr_calls + 1),
				     sizeof(*st->shared_giveback));
	if (!slot || !st->shared_giveback)
		goto out;
	for (unsigned int o = 0; o < pr->nr_objects; o++)
		slot[o] = -1;
	for (size_t k = 0; k < pr->nr_calls; k++)
		if (gives_back(st, &pr->calls[k]) &&
		    slot[pr->calls[k].object] < 0)
			slot[pr->calls[k].object] = (int)n++;
	/* Each thread's span of each such object: [lo, hi]. */
	lo = malloc((n * pr->nr_threads + 1) * sizeof(*lo));
	hi = calloc(n * pr->nr_threads + 1, sizeof(*hi));
	if (!lo || !hi)
		goto out;
	for (size_t i = 0; i < n * pr->nr_threads; i++)
		lo[i] = UINT64_MAX;
	for (size_t r = 0; r < pr->nr_rows; r++) {
		const struct fg_prow *row = &pr->rows[r];
		uint64_t a, b;
		size_t i;

		/* Faults without an event (populated) fall on pages the
		 * rows' faults do not, and count the same before or after
		 * a call gives them back. */
		if (slot[row->object] < 0 || populated_kind(row->kind))
			continue;
		i = (size_t)row->thread * n + (size_t)slot[row->object];
		replayed_span(st, row->object, row->first_page, row->last_page,
			      &a, &b);
		widen(&lo[i], &hi[i], a, b);
	}
	for (size_t k = 0; k < pr->nr_calls; k++) {
		const struct fg_pcall *cl = &pr->calls[k];
		uint64_t a, b;
		size_t i;

		/* A call giving pages back holds the faults it precedes in
		 * the same way, where it is a shared one. */
		if (cl->object < 0 || slot[cl->object] < 0 ||
		    gives_back(st, cl))
			continue;
		i = (size_t)cl->thread * n + (size_t)slot[cl->object];
		replayed_span(st, (unsigned int)cl->object, cl->first_page,
			      cl->last_page, &a, &b);
		widen(&lo[i], &hi[i], a, b);
	}
	for (size_t k = 0; k < pr->nr_calls; k++) {
		const struct fg_pcall *cl = &pr->calls[k];
		unsigned int p = pr->threads[cl->thread].process;
		uint64_t a, b;

		if (!gives_back(st, cl))
			continue;
		replayed_span(st, (unsigned int)cl->object, cl->first_page,
			      cl->last_page, &a, &b);
		for (unsigned int t = 0; t < pr->nr_threads; t++) {
			size_t i = (size_t)t * n + (size_t)slot[cl->object];

			if (t != cl->thread && pr->threads[t].process == p &&
			    lo[i] <= b && a <= hi[i]) {
				fg_bit_set(st->shared_giveback, k);
				break;
			}
		}
	}
	ret = 0;
out:
	free(slot);
	free(lo);
	free(hi);
	return ret;
}

/* Whether call row cl holds and waits for its process's other threads
 * (shared_givebacks). */
static bool shared_call(const struct replay_state *st,
			const struct fg_pcall *cl)
{
	return fg_bit_test(st->shared_giveback,
			   (size_t)(cl - st->pr->calls));
}

/*
 * The chunks whose faults another thread of their process may make
 * once late (help_late): a program whose threads take their work as
 * they go (a JVM's pretouch threads take chunks of the heap) keeps
 * them all busy to the end, where a replay thread slower than its
 * recording's would end alone, late.  Only faults that need nothing of
 * the thread making them: first touches and reads, in page order, of a
 * private anonymous object of small pages, not copies after a fork,
 * of a thread that gives none of the object's pages back (its calls
 * wait for its own faults only).  -ENOMEM.
 */
static int plan_shares(struct replay_state *st)
{
	const struct fg_profile *pr = st->pr;
	size_t no = pr->nr_objects;
	unsigned long *gives = calloc(fg_bitmap_longs(pr->nr_threads * no + 1),
				      sizeof(*gives));

	/* gives: thread t's bit of object o (t * objects + o) where it
	 * gives pages of o back. */
	if (!gives)
		return -ENOMEM;
	for (size_t k = 0; k < pr->nr_calls; k++)
		if (pr->calls[k].object >= 0 && gives_back(st, &pr->calls[k]))
			fg_bit_set(gives, pr->calls[k].thread * no +
						  (size_t)pr->calls[k].object);
	for (unsigned int t = 0; t < pr->nr_threads; t++)
		for (size_t x = st->first[t]; x < st->first[t + 1]; x++) {
			const struct chunk *c = &st->chunks[x];
			const struct fg_prow *row;
			const struct fg_pobject *ob;

			if (is_call(st, c))
				continue;
			row = &pr->rows[c->row];
			ob = &pr->objects[row->object];
			if ((row->kind != FG_KIND_FIRST_TOUCH &&
			     row->kind != FG_KIND_READ) ||
			    row->order != FG_ORDER_SEQ ||
			    ob->backing != FG_OBJ_ANON || huge_object(ob) ||
			    fg_bit_test(st->after_fork, c->row) ||
			    fg_bit_test(gives, t * no + row->object))
				continue;
			fg_bit_set(st->shareable, x);
		}
	/* A thread helps where another of its process shares a chunk of an
	 * object it faults in that chunk's bin (help_late): only those
	 * look for late chunks as the bins end (wait_helping), not every
	 * thread of the process at every bin. */
	for (unsigned int u = 0; u < pr->nr_threads; u++)
		for (size_t x = st->first[u]; x < st->first[u + 1]; x++) {
			const struct chunk *c = &st->chunks[x];

			if (!fg_bit_test(st->shareable, x))
				continue;
			for (unsigned int t = 0; t < pr->nr_threads; t++)
				if (t != u && !st->helps[t] &&
				    pr->threads[t].process ==
					    pr->threads[u].process &&
				    faults_in_bin(st, t, c->bin,
						  pr->rows[c->row].object))
					st->helps[t] = true;
		}
	for (unsigned int t = 0; t < pr->nr_threads; t++)
		atomic_store(&st->from[t], st->first[t]);
	free(gives);
	return 0;
}

/* Whether a recorded advice populates (MADV_POPULATE_READ or _WRITE). */
static bool populating(int advice)
{
	return advice == MADV_POPULATE_READ || advice == MADV_POPULATE_WRITE;
}

/*
 * The faults of populated rows (populated_kind) that the process's
 * recorded calls make: a row of faults without an event counts the
 * pages a thread's MADV_POPULATE_* brought in (the kernel counts each
 * such fault, no event is raised), and the calls are made, on their
 * pages, in their bin (make_call).  Each row's faults are less those
 * of the calls of a thread of its process populating its object (their
 * pages, scaled), taken from its rows in turn: the pages are populated
 * once, by the calls, as in the recording, where each would otherwise
 * be populated again a page at a time first.
 */
static void populated_by_calls(struct replay_state *st)
{
	const struct fg_profile *pr = st->pr;

	for (size_t k = 0; k < pr->nr_calls; k++)
		st->call_row[k] = SIZE_MAX;
	for (size_t k = 0; k < pr->nr_calls; k++) {
		const struct fg_pcall *cl = &pr->calls[k];
		unsigned int p = pr->threads[cl->thread].process;
		uint64_t left;

		if (cl->call != FG_CALL_MADVISE || cl->object < 0 ||
		    !populating(cl->arg))
			continue;
		left = scaled_pages(st, cl->pages);
		for (size_t r = 0; r < pr->nr_rows && left; r++) {
			const struct fg_prow *row = &pr->rows[r];
			uint64_t less;

			if (!populated_kind(row->kind) ||
			    row->object != (unsigned int)cl->object ||
			    pr->threads[row->thread].process != p)
				continue;
			less = st->row_faults[r] < left ? st->row_faults[r] :
							  left;
			st->row_faults[r] -= less;
			left -= less;
			if (st->call_row[k] == SIZE_MAX)
				st->call_row[k] = r;
		}
	}
}

static int plan_chunks(struct replay_state *st)
{
	const struct fg_profile *pr = st->pr;
	size_t total = 0, *at;

	total = pr->nr_calls;
	for (size_t r = 0; r < pr->nr_rows; r++) {
		total += pr->rows[r].nbins;
		if (total > MAX_CHUNKS) {
			say(st, "faults: more than %u bins of rows in all",
			    MAX_CHUNKS);
			return -EINVAL;
		}
	}
	st->first = calloc(pr->nr_threads + 1, sizeof(*st->first));
	at = calloc(pr->nr_threads + 1, sizeof(*at));
	st->chunks = calloc(total + 1, sizeof(*st->chunks));
	st->row_faults = calloc(pr->nr_rows + 1, sizeof(uint64_t));
	st->row_next = calloc(pr->nr_rows + 1, sizeof(uint64_t));
	st->row_x = calloc(pr->nr_rows + 1, sizeof(uint64_t));
	st->call_row = calloc(pr->nr_calls + 1, sizeof(*st->call_row));
	st->after_fork = calloc(fg_bitmap_longs(pr->nr_rows + 1),
				sizeof(*st->after_fork));
	st->progress = calloc(pr->nr_threads + 1, sizeof(*st->progress));
	st->giveback_ns = calloc(pr->nr_threads + 1, sizeof(*st->giveback_ns));
	st->giveback_obj = calloc(pr->nr_threads + 1,
				  sizeof(*st->giveback_obj));
	st->running = calloc(pr->nr_threads + 1, sizeof(*st->running));
	st->shareable = calloc(fg_bitmap_longs(total + 1),
			       sizeof(*st->shareable));
	st->taken = calloc(total + 1, sizeof(*st->taken));
	st->from = calloc(pr->nr_threads + 1, sizeof(*st->from));
	st->helps = calloc(pr->nr_threads + 1, sizeof(*st->helps));
	if (!st->first || !at || !st->chunks || !st->row_faults ||
	    !st->row_next || !st->row_x || !st->call_row || !st->after_fork ||
	    !st->progress ||
	    !st->running || !st->giveback_ns || !st->giveback_obj ||
	    !st->shareable || !st->taken || !st->from || !st->helps) {
		free(at);
		return -ENOMEM;
	}
	copies_after_fork(st);
	if (shared_givebacks(st) < 0) {
		free(at);
		return -ENOMEM;
	}
	for (size_t r = 0; r < pr->nr_rows; r++)
		st->first[pr->rows[r].thread + 1] += pr->rows[r].nbins;
	for (size_t k = 0; k < pr->nr_calls; k++)
		st->first[pr->calls[k].thread + 1]++;
	for (unsigned int t = 0; t < pr->nr_threads; t++)
		st->first[t + 1] += st->first[t];
	for (size_t r = 0; r < pr->nr_rows; r++)
		st->row_faults[r] = scaled_faults(st, &pr->rows[r]);
	populated_by_calls(st);
	for (size_t r = 0; r < pr->nr_rows; r++) {
		const struct fg_prow *row = &pr->rows[r];

		st->counts[row->kind] += st->row_faults[r];
		for (uint32_t b = 0; b < row->nbins; b++)
			st->chunks[st->first[row->thread] +
				   at[row->thread]++] = (struct chunk){
				.bin = row->bin + b, .row = (uint32_t)r };
	}
	for (size_t k = 0; k < pr->nr_calls; k++)
		st->chunks[st->first[pr->calls[k].thread] +
			   at[pr->calls[k].thread]++] = (struct chunk){
			.bin = pr->calls[k].bin,
			.row = (uint32_t)(pr->nr_rows + k) };
	for (unsigned int t = 0; t < pr->nr_threads; t++)
		qsort(st->chunks + st->first[t], st->first[t + 1] - st->first[t],
		      sizeof(struct chunk), chunk_cmp);
	/* No fault of a thread is made before its first. */
	for (unsigned int t = 0; t < pr->nr_threads; t++) {
		struct bin_pos at;

		next_giveback(st, t, st->first[t]);
		if (st->first[t] == st->first[t + 1]) {
			atomic_store(&st->progress[t], INT64_MAX);
			continue;
		}
		bin_begin(st, t, st->first[t], &at);
		atomic_store(&st->progress[t], first_time(&at));
	}
	free(at);
	if (plan_shares(st) < 0)
		return -ENOMEM;
	return plan_givers(st);
}

/* ---- the faults --------------------------------------------------- */

/* The kinds a replay populates (MADV_POPULATE_WRITE), raising no fault
 * event. */
static bool populated_kind(enum fg_replay_kind k)
{
	return k == FG_KIND_GUP || k == FG_KIND_KERNEL_SIDE;
}

/* The pages of row r, scaled, within its object as mapped. */
static void row_range(const struct replay_state *st, size_t r, uint64_t *lo,
		      uint64_t *hi)
{
	const struct fg_prow *row = &st->pr->rows[r];
	uint64_t limit = st->obj[row->object].len / st->ps;

	*lo = scaled_index(st, row->first_page);
	*hi = scaled_pages(st, row->last_page + 1) - 1;
	if (*hi >= limit)
		*hi = limit - 1;
	if (*lo > *hi)
		*lo = *hi;
}

/* Whether a fault of row maps a huge page: a huge fault, and a
 * populated one (gup, kernel-side) where the object has huge pages. */
static bool maps_huge(const struct replay_state *st, const struct fg_prow *row)
{
	return row->kind == FG_KIND_HUGE ||
	       (huge_object(&st->pr->objects[row->object]) &&
		populated_kind(row->kind));
}

/* The page (of the object, scaled) of a row's next fault. */
static uint64_t next_page(struct replay_state *st, size_t r)
{
	const struct fg_prow *row = &st->pr->rows[r];
	uint64_t lo, hi, span, k = st->row_next[r]++, m = 1;

	row_range(st, r, &lo, &hi);
	span = hi - lo + 1;
	/* A fault mapping a huge page maps 2 MiB: one a huge page, as
	 * they took. */
	if (maps_huge(st, row)) {
		uint64_t per = st->hps / st->ps, units;

		lo = lo / per * per;
		units = (hi - lo) / per + 1;
		return lo + (k % units) * per;
	}
	switch (row->order) {
	case FG_ORDER_STRIDE:
		/* Every stride-th page, then again one page on, until each
		 * page of the span had its turn. */
		if (k % span == 0) {
			st->row_x[r] = 0;
		} else {
			st->row_x[r] += row->stride;
			if (st->row_x[r] >= span)
				st->row_x[r] = st->row_x[r] % row->stride + 1;
			if (st->row_x[r] >= span)
				st->row_x[r] = 0;
		}
		return lo + st->row_x[r];
	case FG_ORDER_RANDOM:
		/* A full cycle over the next power of two, values past the
		 * span skipped: each page once per pass, in a scattered
		 * order. */
		while (m < span)
			m <<= 1;
		do {
			st->row_x[r] = (st->row_x[r] * 5 + 0x9e3779b9u) & (m - 1);
		} while (st->row_x[r] >= span);
		return lo + st->row_x[r];
	default:
		return lo + k % span;
	}
}

/* Whether a fault of kind k faults on a page in state (PAGE_*). */
static bool faults_on(enum fg_replay_kind k, unsigned char state)
{
	switch (k) {
	case FG_KIND_COW:
		return state == PAGE_READONLY;
	case FG_KIND_KERNEL:
	case FG_KIND_GUP:
	case FG_KIND_KERNEL_SIDE:
		return state != PAGE_WRITABLE;
	case FG_KIND_REFAULT:
	case FG_KIND_WRITE_NOTIFY:
		return true;
	default: /* first-touch, read, major, huge, user */
		return state == PAGE_ABSENT;
	}
}

/* Whether row's faults are of pages not present (only). */
static bool absent_row(const struct fg_prow *row)
{
	return faults_on(row->kind, PAGE_ABSENT) &&
	       !faults_on(row->kind, PAGE_WRITABLE);
}

/*
 * This process's page table over pages [first, first + n) of one
 * object, read at once (pick_page: a row whose pages are mostly mapped
 * looks at many of them; one read of pagemap a page costs more than
 * the faults it looks for).  Valid until the next fault or call.
 */
#define PM_VIEW 4096
struct pm_view {
	uint64_t first, n;
	uint64_t e[PM_VIEW];
};

/* The pagemap entries of object o's pages [first, first + n) into e;
 * -1 where pagemap cannot tell. */
static int read_pagemap(const struct replay_state *st, unsigned int o,
			uint64_t first, uint64_t n, uint64_t *e)
{
	uint64_t vpn = (uint64_t)(uintptr_t)(st->obj[o].addr + first * st->ps) /
		       st->ps;
	ssize_t want = (ssize_t)(n * sizeof(*e));

	if (st->pagemap_fd < 0 ||
	    pread(st->pagemap_fd, e, (size_t)want, (off_t)(vpn * sizeof(*e))) !=
		    want)
		return -1;
	return 0;
}

/* Whether this process maps page p of object o (its page table: a
 * read of a shared object's page maps its neighbours in the page cache
 * with it, fault-around), from view where it holds p (a view of o's
 * pages, or NULL); -1 where pagemap cannot tell. */
static int mapped_here(const struct replay_state *st, unsigned int o,
		       uint64_t p, const struct pm_view *view)
{
	uint64_t e;

	if (view && p >= view->first && p - view->first < view->n)
		return (int)(view->e[p - view->first] >> 63 & 1);
	if (read_pagemap(st, o, p, 1, &e))
		return -1;
	return (int)(e >> 63 & 1);
}

/* The bit of m->around_at of the page table that maps page p. */
static size_t table_of(const struct replay_state *st, const struct mapped *m,
		       uint64_t p)
{
	uintptr_t first = (uintptr_t)m->addr / st->ps;

	return (size_t)((first + p) / st->pt_pages - first / st->pt_pages);
}

/* After a fault of page p of m that may map its neighbours (a read of
 * a shared object's page: fault-around, which maps none beyond the
 * page table of the fault). */
static void mark_around(const struct replay_state *st, struct mapped *m,
			uint64_t p)
{
	size_t b = table_of(st, m, p), bits = 8 * sizeof(*m->around_at);

	__atomic_fetch_or(&m->around_at[b / bits], 1UL << (b % bits),
			  __ATOMIC_RELAXED);
	__atomic_store_n(&m->around_some, true, __ATOMIC_RELAXED);
}

/* Whether page p of m may be mapped with no fault of its own. */
static bool maybe_around(const struct replay_state *st, const struct mapped *m,
			 uint64_t p)
{
	size_t b = table_of(st, m, p), bits = 8 * sizeof(*m->around_at);

	return __atomic_load_n(&m->around, __ATOMIC_RELAXED) ||
	       (__atomic_load_n(&m->around_at[b / bits], __ATOMIC_RELAXED) >>
			(b % bits) &
		1);
}

/* Whether this process maps page p of shared object o: its state says
 * where no fault-around or call may have mapped pages beyond it, else
 * its page table (mapped_here). */
static int mapped_known(const struct replay_state *st, unsigned int o,
			uint64_t p, const struct pm_view *view)
{
	const struct mapped *m = &st->obj[o];

	if (!m->private_file && !maybe_around(st, m, p))
		return __atomic_load_n(&m->state[p], __ATOMIC_RELAXED) !=
		       PAGE_ABSENT;
	return mapped_here(st, o, p, view);
}

/* Whether a fault of kind k maps its own page only (a write: no
 * fault-around), or a huge page whose pages it marks. */
static bool maps_own_page(enum fg_replay_kind k)
{
	return k == FG_KIND_FIRST_TOUCH || k == FG_KIND_COW ||
	       k == FG_KIND_HUGE || k == FG_KIND_GUP ||
	       k == FG_KIND_KERNEL_SIDE || k == FG_KIND_KERNEL;
}

/* Whether row's faults (as kind k) are faults of a shared object's
 * pages that fault where this process does not map them. */
static bool shared_presence(const struct replay_state *st,
			    const struct fg_prow *row, enum fg_replay_kind k)
{
	enum fg_obj_backing b = st->pr->objects[row->object].backing;

	return b != FG_OBJ_ANON && b != FG_OBJ_HUGETLB &&
	       faults_on(k, PAGE_ABSENT) && !faults_on(k, PAGE_WRITABLE);
}

/* Whether a fault of kind k of row faults on page p of its object. */
static bool page_faults(const struct replay_state *st,
			const struct fg_prow *row, enum fg_replay_kind k,
			uint64_t p, const struct pm_view *view)
{
	const unsigned char *state = st->obj[row->object].state;
	int mapped = -1;

	if (shared_presence(st, row, k))
		mapped = mapped_known(st, row->object, p, view);
	if (mapped >= 0)
		return !mapped;
	/* A private file's page is mapped read-only by a neighbour's read
	 * too (fault-around): a write copies a page mapped, not written. */
	if (k == FG_KIND_COW && st->obj[row->object].private_file &&
	    (mapped = mapped_here(st, row->object, p, view)) >= 0)
		return mapped && __atomic_load_n(&state[p], __ATOMIC_RELAXED) !=
					 PAGE_WRITABLE;
	return faults_on(k, __atomic_load_n(&state[p], __ATOMIC_RELAXED));
}

/*
 * A recorded fault of a shared object's page faulted: where this
 * process maps the page already (a neighbour's fault mapped it with
 * its own, fault-around, in an order the recording did not have), the
 * mapping is dropped first (the page stays in the object).
 */
static int unmap_mapped(const struct replay_state *st,
			const struct fg_prow *row, enum fg_replay_kind k,
			uint64_t p)
{
	char *at = st->obj[row->object].addr + p * st->ps;

	if (!shared_presence(st, row, k) ||
	    mapped_known(st, row->object, p, NULL) != 1)
		return 0;
	if (madvise(at, st->ps, MADV_DONTNEED) < 0)
		return -errno;
	/* A private file's copy of the page, if any, is gone with it. */
	if (st->obj[row->object].private_file)
		__atomic_store_n(&st->obj[row->object].state[p], PAGE_ABSENT,
				 __ATOMIC_RELAXED);
	return 0;
}

/* The most pages a fault of a row in a random order looks at, and
 * looks at past the first that faults, for one no row in page order
 * needs. */
#define PICK_TRIES 4096
#define PICK_UNRESERVED_TRIES 256
/* The pages looked at one by one in pagemap before a view of the row's
 * span (struct pm_view). */
#define PICK_ONE_BY_ONE 8

/* Whether page_faults reads the page table for row's faults as k. */
static bool reads_pagemap(const struct replay_state *st,
			  const struct fg_prow *row, enum fg_replay_kind k)
{
	const struct mapped *m = &st->obj[row->object];

	if (m->private_file)
		return shared_presence(st, row, k) || k == FG_KIND_COW;
	return shared_presence(st, row, k) &&
	       (__atomic_load_n(&m->around, __ATOMIC_RELAXED) ||
		__atomic_load_n(&m->around_some, __ATOMIC_RELAXED));
}

/* Whether page p of row's object is kept for a row of a later bin. */
static bool reserved_page(const struct replay_state *st,
			  const struct fg_prow *row, uint64_t p)
{
	const uint32_t *kept = st->obj[row->object].reserved;

	return kept && kept[p] && st->pr->rows[kept[p] - 1].bin > row->bin;
}

/*
 * The page of row r's next fault of kind k.  A row in a random order
 * recorded faults on pages each of which faulted: its next pages that
 * would fault nothing as k here (already copied, already present:
 * another row's, or an earlier pass's) are passed over, up to
 * PICK_TRIES of them, else the first is taken.  *faults is set where
 * the page was found to fault as k (its state and, for a shared
 * object, the page table read), else cleared.
 */
static uint64_t pick_page(struct replay_state *st, size_t r,
			  enum fg_replay_kind k, bool *faults,
			  struct pm_view *view)
{
	const struct fg_prow *row = &st->pr->rows[r];
	uint64_t first = next_page(st, r), lo, hi, found = UINT64_MAX, at = 0;
	const struct pm_view *seen = NULL;

	*faults = false;
	if (row->order != FG_ORDER_RANDOM || row->kind == FG_KIND_HUGE)
		return first;
	row_range(st, r, &lo, &hi);
	for (uint64_t n = 0, p = first;; p = next_page(st, r)) {
		/* Past a few pages looked at one by one, the span's page
		 * table at once. */
		if (n == PICK_ONE_BY_ONE && hi - lo < PM_VIEW &&
		    reads_pagemap(st, row, k) &&
		    !read_pagemap(st, row->object, lo, hi - lo + 1, view->e)) {
			view->first = lo;
			view->n = hi - lo + 1;
			seen = view;
		}
		if (page_faults(st, row, k, p, seen)) {
			*faults = true;
			if (!reserved_page(st, row, p))
				return p;
			if (found == UINT64_MAX) {
				found = p;
				at = n;
			}
		}
		if (found != UINT64_MAX && n - at >= PICK_UNRESERVED_TRIES)
			break;
		if (++n >= PICK_TRIES || n > hi - lo)
			break;
	}
	return found != UINT64_MAX ? found : first;
}

/* Pages [p, p + n) of m after a fault of kind k (n > 1: a huge page
 * mapped). */
static void mark_pages(const struct replay_state *st, struct mapped *m,
		       uint64_t p, uint64_t n, enum fg_replay_kind k)
{
	for (uint64_t q = p; q < p + n && q < m->len / st->ps; q++) {
		unsigned char *at = &m->state[q];

		if (k == FG_KIND_READ || k == FG_KIND_MAJOR)
			__atomic_compare_exchange_n(
				at, &(unsigned char){ PAGE_ABSENT },
				PAGE_READONLY, false, __ATOMIC_RELAXED,
				__ATOMIC_RELAXED);
		else
			__atomic_store_n(at, PAGE_WRITABLE, __ATOMIC_RELAXED);
	}
}

/*
 * After a fork, in both processes: the pages of private objects present
 * are shared, a write faults (a copy); a shared object's pages are not
 * mapped in the child (fork copies no page table of a shared mapping)
 * and stay as they were in the parent.
 */
static void fork_states(struct replay_state *st, bool child)
{
	for (unsigned int o = 0; o < st->pr->nr_objects; o++) {
		enum fg_obj_backing b = st->pr->objects[o].backing;
		struct mapped *m = &st->obj[o];
		bool private = b == FG_OBJ_ANON || b == FG_OBJ_HUGETLB ||
			       m->private_file;

		if ((!private && !child) || !m->resv.raw)
			continue;
		/* A shared mapping's pages are not mapped in the child. */
		if (!private) {
			m->around = false;
			m->around_some = false;
			memset(m->around_at, 0,
			       fg_bitmap_longs(m->len / st->ps / st->pt_pages +
					       2) *
				       sizeof(*m->around_at));
		}
		for (uint64_t p = 0; p < m->len / st->ps; p++)
			if (!private)
				m->state[p] = PAGE_ABSENT;
			else if (m->state[p] != PAGE_ABSENT)
				m->state[p] = PAGE_READONLY;
	}
}

/*
 * What a fault of kind needs before its touch, untimed:
 *
 * A write-notify fault: the page of a shared file written back, which
 * write-protects it in every mapping (its writeback's page_mkclean);
 * the touch then reads it (mapped read-only, a read fault where it was
 * not mapped) and writes it: the write is the write-protect fault of
 * dirty tracking (page_mkwrite), as the kernel takes one on the first
 * write to a clean page of a shared file mapping.
 *
 * A major fault: a file object's page out of the page cache first
 * (unmapped here: MADV_PAGEOUT where this process maps it, then written
 * back and dropped from the file's cache); the touch reads it from the
 * file (its mapping reads no neighbour: MADV_RANDOM).
 *
 * A refault: the page given back (MADV_DONTNEED); the touch faults it
 * again.
 */
static int before_touch(const struct replay_state *st, const struct mapped *m,
			enum fg_replay_kind kind, char *p)
{
	off_t off = (off_t)(p - m->addr);

	switch (kind) {
	case FG_KIND_WRITE_NOTIFY:
		if (sync_file_range(m->fd, off, (off_t)st->ps,
				    SYNC_FILE_RANGE_WAIT_BEFORE |
					    SYNC_FILE_RANGE_WRITE |
					    SYNC_FILE_RANGE_WAIT_AFTER) < 0)
			return -errno;
		return 0;
	case FG_KIND_MAJOR:
		if (madvise(p, st->ps, MADV_PAGEOUT) < 0)
			return errno == EINVAL ? -EOPNOTSUPP : -errno;
		if (m->fd >= 0 &&
		    (sync_file_range(m->fd, off, (off_t)st->ps,
				     SYNC_FILE_RANGE_WAIT_BEFORE |
					     SYNC_FILE_RANGE_WRITE |
					     SYNC_FILE_RANGE_WAIT_AFTER) < 0 ||
		     posix_fadvise(m->fd, off, (off_t)st->ps,
				   POSIX_FADV_DONTNEED)))
			return -errno;
		return 0;
	case FG_KIND_REFAULT:
		return madvise(p, st->ps, MADV_DONTNEED) < 0 ? -errno : 0;
	default:
		return 0;
	}
}

/* The touch of a fault of kind at p (after before_touch): the fault
 * itself, in user or kernel mode. */
FG_NO_ASAN static int fault_one(const struct replay_state *st,
				const struct mapped *m,
				enum fg_replay_kind kind, char *p,
				unsigned char stamp)
{
	switch (kind) {
	case FG_KIND_WRITE_NOTIFY:
		(void)*(volatile char *)p;
		*(volatile unsigned char *)p = stamp;
		return 0;
	case FG_KIND_READ:
	case FG_KIND_MAJOR:
		(void)*(volatile char *)p;
		return 0;
	case FG_KIND_REFAULT:
		if (m->readonly)
			(void)*(volatile char *)p;
		else
			*(volatile unsigned char *)p = stamp;
		return 0;
	case FG_KIND_GUP:
	case FG_KIND_KERNEL_SIDE:
		if (madvise(p, st->ps, MADV_POPULATE_WRITE) < 0)
			return errno == EINVAL ? -EOPNOTSUPP : -errno;
		return 0;
	case FG_KIND_KERNEL:
		/* The kernel writes a byte of its own into the page
		 * (copy_to_user): a fault taken in kernel mode on a user
		 * address, as read(2) into a buffer takes one. */
		if (getrandom(p, 1, GRND_NONBLOCK) == 1)
			return 0;
		if (errno != EAGAIN)
			return -errno;
		*(volatile unsigned char *)p = stamp; /* no entropy yet */
		return 0;
	default: /* first-touch, cow, user, huge: a write */
		*(volatile unsigned char *)p = stamp;
		return 0;
	}
}

/* The clock's time (ns) of the profile's time ms, scaled by speed. */
static int64_t clock_at(const struct replay_state *st, double ms)
{
	return st->sh->t0_ns + (int64_t)(ms * 1e6 / st->speed);
}

/* Sleeps until the profile's time ms (scaled by speed); -ECANCELED. */
static int sleep_until(const struct replay_state *st, double ms)
{
	int64_t at = clock_at(st, ms);

	for (;;) {
		int64_t now = fg_now_ns(), d = at - now;
		struct timespec ts;

		if (atomic_load(&st->sh->cancel))
			return -ECANCELED;
		if (d <= 0)
			return 0;
		if (d > SLEEP_SLICE_NS)
			d = SLEEP_SLICE_NS;
		ts.tv_sec = d / 1000000000;
		ts.tv_nsec = d % 1000000000;
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	}
}

/*
 * What row's faults are replayed as: their kind, but a major fault of
 * memory that is not a file's (a swap-in, or a wait on a page another
 * fault held), a read of a page not present: a minor fault where the
 * original took a major one, counted apart (major_as_read).
 */
static enum fg_replay_kind kind_of(const struct replay_state *st,
				   const struct fg_prow *row)
{
	if (row->kind == FG_KIND_MAJOR &&
	    st->pr->objects[row->object].backing != FG_OBJ_FILE)
		return FG_KIND_READ;
	return row->kind;
}

/* How a fault of kind k of row is made: a user fault (the page-faults
 * event: read or write untold) of an object not writable as a read,
 * counted as the user fault it is. */
static enum fg_replay_kind made_as(const struct replay_state *st,
				   const struct fg_prow *row,
				   enum fg_replay_kind k)
{
	if (k == FG_KIND_USER && !st->pr->objects[row->object].writable)
		return FG_KIND_READ;
	return k;
}

/* Whether thread t's fault of object o at profile time ns waits for
 * another thread of its process to give pages of o back before it (a
 * fault of another object goes on: a thread's exit giving its stack
 * back held its process's other threads, and they fell behind). */
static bool held_for_giveback(const struct replay_state *st, unsigned int t,
			      unsigned int o, int64_t ns)
{
	unsigned int p = st->pr->threads[t].process;

	for (size_t i = st->giver_first[p]; i < st->giver_first[p + 1]; i++) {
		unsigned int g = st->givers[i];

		/* The object read after the time: a giver whose next call
		 * is stored made this one. */
		if (g != t && atomic_load(&st->giveback_ns[g]) < ns &&
		    atomic_load(&st->giveback_obj[g]) == (int)o)
			return true;
	}
	return false;
}

/* A wait's pauses: the first of PAUSE_LEAST_NS, each next one twice
 * the last, up to PAUSE_MOST_NS.  A wait for late threads lasts as long
 * as they are late (tens of ms for a JVM's pretouch), and each pause
 * of a thread waiting takes a CPU from those it waits for: pauses of
 * 200 us made a replay of Parallel GC's heap pretouch switch threads
 * 13,000 to 19,000 times where the JVM switched 587. */
#define PAUSE_LEAST_NS (200 * 1000)
#define PAUSE_MOST_NS (2 * 1000 * 1000)

/* A wait's pause (*pause: the last one, 0 before the first), for
 * another thread or process to go on; -ECANCELED where the replay is
 * cancelled or failed. */
static int pause_briefly(const struct replay_state *st, int64_t *pause)
{
	struct timespec ts;

	if (atomic_load(&st->sh->cancel) || atomic_load(&st->sh->error))
		return -ECANCELED;
	*pause = *pause ? *pause * 2 : PAUSE_LEAST_NS;
	if (*pause > PAUSE_MOST_NS)
		*pause = PAUSE_MOST_NS;
	ts.tv_sec = 0;
	ts.tv_nsec = *pause;
	nanosleep(&ts, NULL);
	return 0;
}

/*
 * Before a thread's next fault: its progress is that fault's profile
 * time, and where its process forks a child at or before that time,
 * it waits for the fork (the faults after a fork are made after it, as
 * in the recording: copies, not writes of pages still its own).
 * -ECANCELED.
 */
static int before_fault(struct replay_state *st, const struct bin_pos *at,
			unsigned int k, unsigned int o)
{
	int64_t t = fault_time(at, k), pause = 0;
	int ret = 0;

	atomic_store(&st->progress[at->t], t);
	while (!ret && (t >= atomic_load(&st->next_fork_ns) ||
			held_for_giveback(st, at->t, o, t)))
		ret = pause_briefly(st, &pause);
	/* Paced, a bin's faults are spread over it as the profile counts
	 * them: a thread ahead of its fault's time by more than
	 * PACE_AHEAD_NS sleeps to it (not to each fault's: a sleep costs
	 * what a few faults do), where it made them all at the bin's start
	 * and a recording's bins, not aligned with the replay's, split the
	 * burst between two, or not, as the start fell. */
	if (!ret && st->paced &&
	    clock_at(st, (double)t / 1e6) - fg_now_ns() > PACE_AHEAD_NS)
		ret = sleep_until(st, (double)t / 1e6);
	return ret;
}

/* ---- the mapping calls -------------------------------------------- */

/*
 * Whether an advice on an object is made on the object's pages: those
 * that give pages back or bring them in (the faults after them are the
 * profile's), and those that only tell the kernel how they are used.
 * The others (what a fork gives a child: dontfork, wipeonfork; KSM's
 * merging; a collapse or huge-page advice the object's mapping does
 * not have; an advice unknown here) are made on the thread's own page.
 */
static bool advice_on_object(const struct fg_pobject *ob, int advice)
{
	switch (advice) {
	case MADV_NORMAL:
	case MADV_RANDOM:
	case MADV_SEQUENTIAL:
	case MADV_WILLNEED:
	case MADV_DONTNEED:
	case MADV_FREE:
	case MADV_REMOVE:
	case MADV_DONTDUMP:
	case MADV_DODUMP:
	case MADV_COLD:
	case MADV_PAGEOUT:
	case MADV_POPULATE_READ:
	case MADV_POPULATE_WRITE:
	case MADV_DONTNEED_LOCKED:
		return true;
	case MADV_HUGEPAGE:
		return ob->thp;
	case MADV_NOHUGEPAGE:
		return !ob->thp;
	default:
		return false;
	}
}

/* The pages [p, p + n) of m after an advice: given back (not present
 * here any more), or populated. */
static void advised(const struct replay_state *st, struct mapped *m,
		    enum fg_obj_backing b, uint64_t p, uint64_t n, int advice)
{
	unsigned char to;

	switch (advice) {
	case MADV_DONTNEED:
	case MADV_REMOVE:
	case MADV_DONTNEED_LOCKED:
		to = PAGE_ABSENT;
		break;
	case MADV_PAGEOUT: /* an anonymous page stays (no swap here) */
		if (b == FG_OBJ_ANON)
			return;
		to = PAGE_ABSENT;
		break;
	case MADV_POPULATE_READ:
		to = PAGE_READONLY;
		break;
	case MADV_POPULATE_WRITE:
		to = PAGE_WRITABLE;
		break;
	default:
		return;
	}
	for (uint64_t q = p; q < p + n && q < m->len / st->ps; q++)
		if (to != PAGE_READONLY || m->state[q] == PAGE_ABSENT)
			__atomic_store_n(&m->state[q], to, __ATOMIC_RELAXED);
}

/*
 * The pages [*a, *e) of the i-th of a row's n madvise calls on its
 * object: each call over pages / n of them (rounded up), their starts
 * spread evenly from first to last + 1 less that length (the same
 * pages each time where the calls covered last - first + 1 in all),
 * scaled, within the object as mapped; whole huge pages for a hugetlb
 * object.  -EINVAL for an object of no page.
 */
static int call_pages(const struct replay_state *st, const struct fg_pcall *cl,
		      uint64_t i, uint64_t n, uint64_t *a, uint64_t *e)
{
	const struct fg_pobject *ob = &st->pr->objects[cl->object];
	uint64_t limit = st->obj[cl->object].len / st->ps, lo, hi, len;
	double d;

	lo = scaled_index(st, cl->first_page);
	hi = scaled_pages(st, cl->last_page + 1);
	if (hi > limit)
		hi = limit;
	if (lo >= hi)
		lo = hi ? hi - 1 : 0;
	if (hi <= lo)
		return -EINVAL;
	d = (double)cl->pages * st->scale / (double)n;
	len = (uint64_t)d;
	if ((double)len < d || !len)
		len++;
	if (len > hi - lo)
		len = hi - lo;
	*a = lo;
	if (n > 1)
		*a += (uint64_t)((double)(hi - lo - len) * (double)i /
				 (double)(n - 1));
	*e = *a + len;
	if (ob->backing == FG_OBJ_HUGETLB) {
		uint64_t unit = st->hps / st->ps;

		*a = *a / unit * unit;
		*e = (*e + unit - 1) / unit * unit;
		if (*e > limit)
			*e = limit;
	}
	return 0;
}

/* The i-th of a row's n madvise calls on its object; *minflt, where
 * not NULL, the faults the kernel counted for this thread in the call
 * (its minor faults: getrusage RUSAGE_THREAD), 0 where it cannot tell. */
static int advise_object(const struct replay_state *st,
			 const struct fg_pcall *cl, uint64_t i, uint64_t n,
			 uint64_t *minflt)
{
	const struct fg_pobject *ob = &st->pr->objects[cl->object];
	struct mapped *m = &st->obj[cl->object];
	struct rusage before, after;
	bool counted = minflt && !getrusage(RUSAGE_THREAD, &before);
	uint64_t a, e;
	int ret = call_pages(st, cl, i, n, &a, &e);

	if (minflt)
		*minflt = 0;
	if (ret)
		return ret;
	if (madvise(m->addr + a * st->ps, (e - a) * st->ps, cl->arg) < 0)
		return -errno;
	if (counted && !getrusage(RUSAGE_THREAD, &after) &&
	    after.ru_minflt > before.ru_minflt)
		*minflt = (uint64_t)(after.ru_minflt - before.ru_minflt);
	advised(st, m, ob->backing, a, e - a, cl->arg);
	return 0;
}

/*
 * The i-th of n populating calls (MADV_POPULATE_*) that make row r's
 * faults (populated_by_calls), by thread cr's: the faults the kernel
 * counted for the thread in the call (each page it brings in is one,
 * with no fault event) are the faults it made, noted as row r's and
 * the thread's, over the call's time.
 */
static int populate_counted(const struct replay_state *st,
			    const struct fg_pcall *cl, size_t r, uint64_t i,
			    uint64_t n, struct caller *cr)
{
	const struct fg_prow *row = &st->pr->rows[r];
	int64_t from = fg_now_ns();
	uint64_t made;
	int ret = advise_object(st, cl, i, n, &made);

	if (!made)
		return ret;
	cr->made += made;
	atomic_fetch_add(&st->sh->done[row->kind], made);
	fg_robs_note_n(st->obs, cr->cur, cl->thread, r, row->object,
		       (int)row->kind, from - cr->start_ns,
		       fg_now_ns() - cr->start_ns, made);
	return ret;
}

/* Whether an mmap or munmap of the object maps its pages afresh: an
 * anonymous object's, whose pages the program's new mapping over them
 * (MAP_FIXED: a JVM's heap committed again) gave back. */
static bool remaps(const struct replay_state *st, const struct fg_pcall *cl)
{
	return (cl->call == FG_CALL_MMAP || cl->call == FG_CALL_MUNMAP) &&
	       cl->object >= 0 &&
	       st->pr->objects[cl->object].backing == FG_OBJ_ANON;
}

/* Whether a call maps an anonymous object's pages anew (an mmap over
 * them): made at its bin's start, before the bin's faults of the
 * object, its process's other threads' too (a program maps memory and
 * then uses it: a JVM commits its heap, then its threads pretouch it),
 * where the calls giving pages back wait for the bin's faults. */
static bool maps_anew(const struct replay_state *st, const struct fg_pcall *cl)
{
	return cl->call == FG_CALL_MMAP && remaps(st, cl);
}

/* The profile time (ns) at which bin b starts. */
static int64_t bin_first_ns(const struct replay_state *st, uint32_t b)
{
	return (int64_t)((double)b * st->pr->bin_ms * 1e6);
}

/* The i-th of a row's n mmap or munmap calls on an anonymous object:
 * its pages mapped afresh in place (MAP_FIXED), with the object's
 * protection and huge-page advice. */
static int remap_object(const struct replay_state *st,
			const struct fg_pcall *cl, uint64_t i, uint64_t n)
{
	const struct fg_pobject *ob = &st->pr->objects[cl->object];
	struct mapped *m = &st->obj[cl->object];
	int prot = ob->writable ? PROT_READ | PROT_WRITE : PROT_READ;
	uint64_t a, e;
	char *at;
	int ret = call_pages(st, cl, i, n, &a, &e);

	if (ret)
		return ret;
	at = m->addr + a * st->ps;
	if (mmap(at, (e - a) * st->ps, prot,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		return -errno;
	ret = fg_numa_policy(st->run, at, (e - a) * st->ps);
	if (ret)
		return ret;
	(void)madvise(at, (e - a) * st->ps,
		      ob->thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	advised(st, m, ob->backing, a, e - a, MADV_DONTNEED);
	return 0;
}

/* The thread's own page its calls on no object of the profile are
 * made on. */
static char *caller_page(const struct replay_state *st, struct caller *cr)
{
	void *p;

	if (cr->page)
		return cr->page;
	p = mmap(NULL, st->ps, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	cr->page = p;
	return p;
}

/* An mmap of a page of the thread's own, kept for a later munmap (the
 * oldest unmapped first where CALL_MAPS are kept). */
static int caller_mmap(const struct replay_state *st, struct caller *cr)
{
	void *p;

	if (cr->nr_maps == CALL_MAPS) {
		munmap(cr->maps[0], st->ps);
		memmove(cr->maps, cr->maps + 1,
			(CALL_MAPS - 1) * sizeof(cr->maps[0]));
		cr->nr_maps--;
	}
	p = mmap(NULL, st->ps, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	cr->maps[cr->nr_maps++] = p;
	return 0;
}

/* An munmap of the page the thread's last mmap mapped, or of a page
 * mapped for it where none is kept. */
static int caller_munmap(const struct replay_state *st, struct caller *cr)
{
	int ret = 0;

	if (!cr->nr_maps)
		ret = caller_mmap(st, cr);
	if (ret)
		return ret;
	return munmap(cr->maps[--cr->nr_maps], st->ps) < 0 ? -errno : 0;
}

static void caller_done(const struct replay_state *st, struct caller *cr)
{
	while (cr->nr_maps)
		munmap(cr->maps[--cr->nr_maps], st->ps);
	if (cr->page)
		munmap(cr->page, st->ps);
	cr->page = NULL;
}

/* The i-th of the n calls of a row of calls.  One on an object that
 * gives no page back may map some: its page table tells from then on
 * (around). */
static int make_call(const struct replay_state *st, const struct fg_pcall *cl,
		     uint64_t i, uint64_t n, struct caller *cr)
{
	char *page;

	if (cl->object >= 0 && !gives_back(st, cl))
		__atomic_store_n(&st->obj[cl->object].around, true,
				 __ATOMIC_RELAXED);
	if (remaps(st, cl))
		return remap_object(st, cl, i, n);
	switch (cl->call) {
	case FG_CALL_MMAP:
		return caller_mmap(st, cr);
	case FG_CALL_MUNMAP:
		return caller_munmap(st, cr);
	case FG_CALL_MADVISE:
		/* Only a populating call on an object has a row. */
		if (st->call_row[cl - st->pr->calls] != SIZE_MAX)
			return populate_counted(st, cl,
						st->call_row[cl - st->pr->calls],
						i, n, cr);
		if (cl->object >= 0 &&
		    advice_on_object(&st->pr->objects[cl->object], cl->arg))
			return advise_object(st, cl, i, n, NULL);
		break;
	default:
		break;
	}
	page = caller_page(st, cr);
	if (!page)
		return -ENOMEM;
	if (cl->call == FG_CALL_MPROTECT)
		return mprotect(page, st->ps, cl->arg) < 0 ? -errno : 0;
	return madvise(page, st->ps, cl->arg) < 0 ? -errno : 0;
}

static int wait_for_threads(struct replay_state *st, unsigned int p,
			    int64_t ns);

/* Calls [i, end) of the n of row cl.  A call that fails is counted
 * (calls_failed); the replay goes on.  Calls that give pages back wait
 * for the other threads of the process to be at the thread's time
 * (its progress): their faults before it are of the pages before they
 * were given back, as in the recording. */
static int make_calls(struct replay_state *st, const struct fg_pcall *cl,
		      uint64_t i, uint64_t end, uint64_t n, struct caller *cr)
{
	int ret = 0;

	if (i < end && gives_back(st, cl) && shared_call(st, cl))
		ret = wait_for_threads(st, st->pr->threads[cl->thread].process,
				       maps_anew(st, cl) ?
					       bin_first_ns(st, cl->bin) :
					       atomic_load(&st->progress[cl->thread]));
	if (ret)
		return ret;
	for (uint64_t k = i; k < end; k++) {
		if (make_call(st, cl, k, n, cr) < 0)
			atomic_fetch_add(&st->sh->calls_failed, 1);
		atomic_fetch_add(&st->sh->calls[cl->call], 1);
		if (k % FG_CANCEL_EVERY == FG_CANCEL_EVERY - 1 &&
		    atomic_load(&st->sh->cancel))
			return -ECANCELED;
	}
	return 0;
}

/* Whether a row of calls gives pages of its object back (made when a
 * fault needs one of them given back, or at the end of its bin). */
static bool gives_back(const struct replay_state *st, const struct fg_pcall *cl)
{
	const struct fg_pobject *ob;

	if (remaps(st, cl))
		return true;
	if (cl->call != FG_CALL_MADVISE || cl->object < 0)
		return false;
	ob = &st->pr->objects[cl->object];
	if (!advice_on_object(ob, cl->arg))
		return false;
	return cl->arg == MADV_DONTNEED || cl->arg == MADV_REMOVE ||
	       cl->arg == MADV_DONTNEED_LOCKED ||
	       (cl->arg == MADV_PAGEOUT && ob->backing != FG_OBJ_ANON);
}

/* A chunk of calls, at the start of its bin: count x period of them;
 * those that give pages back wait for the bin's faults (pending). */
static int replay_calls(struct replay_state *st, const struct chunk *c,
			struct caller *cr)
{
	const struct fg_pcall *cl = &st->pr->calls[c->row - st->pr->nr_rows];
	uint64_t n = cl->count * st->pr->period;

	if (gives_back(st, cl) && !maps_anew(st, cl) &&
	    cr->nr_pend < CALL_PENDING) {
		cr->pend[cr->nr_pend++] = (struct pending){ cl, 0, n };
		return 0;
	}
	return make_calls(st, cl, 0, n, n, cr);
}

/*
 * A fault of object o's page p found it present: where the next call
 * of a pending row gives it back, that call is made now (a program that
 * gave pages back between two passes over them: the bin holds both
 * passes and the calls between).
 */
static void give_back_for(struct replay_state *st, struct caller *cr,
			  unsigned int o, uint64_t p)
{
	for (unsigned int k = 0; k < cr->nr_pend; k++) {
		struct pending *q = &cr->pend[k];
		uint64_t a, e;

		if (q->cl->object != (int)o || q->i == q->n ||
		    call_pages(st, q->cl, q->i, q->n, &a, &e) || p < a ||
		    p >= e)
			continue;
		make_calls(st, q->cl, q->i, q->i + 1, q->n, cr);
		q->i++;
		return;
	}
}

/* The end of bin b: the pending calls not made yet (at the bin's end
 * in the thread's progress). */
static int flush_pending(struct replay_state *st, struct caller *cr,
			 unsigned int t, uint32_t b)
{
	int ret = 0;

	if (cr->nr_pend)
		atomic_store(&st->progress[t], bin_last_ns(st, b));

	for (unsigned int k = 0; k < cr->nr_pend && !ret; k++)
		ret = make_calls(st, cr->pend[k].cl, cr->pend[k].i,
				 cr->pend[k].n, cr->pend[k].n, cr);
	cr->nr_pend = 0;
	return ret;
}

/* Thread t's next call that gives pages back, from its chunk c on:
 * the end of its bin in giveback_ns. */
static void next_giveback(struct replay_state *st, unsigned int t, size_t c)
{
	int64_t ns = INT64_MAX;

	for (; c < st->first[t + 1]; c++) {
		const struct chunk *k = &st->chunks[c];
		const struct fg_pcall *cl;

		if (!is_call(st, k))
			continue;
		cl = &st->pr->calls[k->row - st->pr->nr_rows];
		if (gives_back(st, cl) && shared_call(st, cl)) {
			/* Held from the bin's start, or after its faults. */
			ns = maps_anew(st, cl) ? bin_first_ns(st, k->bin) - 1 :
						 bin_last_ns(st, k->bin);
			/* Before its time: see held_for_giveback. */
			atomic_store(&st->giveback_obj[t], cl->object);
			break;
		}
	}
	atomic_store(&st->giveback_ns[t], ns);
}

/*
 * A copy of page pg of a private file's object o, where this process
 * does not map the page (no read and no neighbour's fault-around mapped
 * it here): mapped read-only first (MADV_POPULATE_READ, a fault without
 * an event), so that the write copies it as recorded, rather than
 * faults it in and copies it at once (a write to a page not present).
 */
static void map_to_copy(const struct replay_state *st, unsigned int o,
			uint64_t pg)
{
	char *at = st->obj[o].addr + pg * st->ps;

	if (mapped_here(st, o, pg, NULL) == 0 &&
	    madvise(at, st->ps, MADV_POPULATE_READ) < 0)
		(void)*(volatile char *)at;
}

/*
 * Fault i of thread t (the thread's count, from 0): made, its end's
 * time into *end, and its touch (not what it needs first, before_touch)
 * timed into the thread's latency where asked (the first and every
 * N-th);
 * the thread's lock waits read every FG_WAIT_TOUCHES faults (the ring
 * when half full).
 */
static int timed_fault(const struct replay_state *st, unsigned int t,
		       uint64_t i, const struct mapped *m,
		       enum fg_replay_kind kind, char *p, unsigned char stamp,
		       int64_t *end)
{
	struct faultgen_run *run = st->run;
	unsigned int every = run->attr.latency;
	int64_t t0;
	int ret;

	if (i % FG_WAIT_TOUCHES == FG_WAIT_TOUCHES - 1)
		fg_wait_worker_tick(run, t);
	ret = before_touch(st, m, kind, p);
	if (ret)
		return ret;
	if (!every || i % every) {
		ret = fault_one(st, m, kind, p, stamp);
		*end = fg_now_ns();
		return ret;
	}
	t0 = fg_now_ns();
	ret = fault_one(st, m, kind, p, stamp);
	*end = fg_now_ns();
	fg_lat_add(run, t, (uint64_t)(*end - t0));
	return ret;
}

/* The page of fault k of chunk c, shared (plan_shares): a row in page
 * order, as next_page has it. */
static uint64_t shared_page(const struct replay_state *st,
			    const struct chunk *c, uint64_t k)
{
	const struct fg_prow *row = &st->pr->rows[c->row];
	uint64_t lo, hi, i = c->bin - row->bin;

	row_range(st, c->row, &lo, &hi);
	return lo + (st->row_faults[c->row] * i / row->nbins + k) %
			    (hi - lo + 1);
}

/* The next fault of chunk x (of n faults) to make: *k, false when
 * through.  A chunk shared is claimed from taken (its thread and those
 * helping it make its faults), another made in turn. */
static bool next_of(struct replay_state *st, size_t x, bool shared,
		    uint64_t n, uint64_t *k)
{
	if (shared)
		*k = atomic_fetch_add(&st->taken[x], 1);
	return *k < n;
}

static int replay_chunk(struct replay_state *st, const struct chunk *c,
			struct bin_pos *at, struct caller *cr,
			unsigned char stamp, uint64_t *faults)
{
	const struct fg_prow *row = &st->pr->rows[c->row];
	struct mapped *m = &st->obj[row->object];
	size_t x = (size_t)(c - st->chunks);
	bool shared = fg_bit_test(st->shareable, x);
	uint64_t n = share_of(st, c->row, c->bin), made = 0;
	uint64_t span = maps_huge(st, row) ? st->hps / st->ps : 1;
	enum fg_replay_kind kind = kind_of(st, row), how;
	unsigned int cls = class_of(st, at, c->row);
	struct pm_view view;
	bool faults_here;
	int ret;

	if (kind != row->kind)
		atomic_fetch_add(&st->sh->major_as_read, n);
	how = made_as(st, row, kind);
	atomic_store(&st->from[at->t], x);
	for (uint64_t k = 0; next_of(st, x, shared, n, &k);
	     k++, made++, at->j[cls]++) {
		int64_t end = 0;
		uint64_t pg;

		ret = before_fault(st, at, cls, row->object);
		if (ret)
			return ret;
		if (shared) {
			pg = shared_page(st, c, k);
			faults_here = true;
		} else {
			pg = pick_page(st, c->row, how, &faults_here, &view);
		}
		if (cr->nr_pend && !faults_here &&
		    !page_faults(st, row, how, pg, NULL))
			give_back_for(st, cr, row->object, pg);
		/* A page found to fault is not mapped here. */
		ret = faults_here ? 0 : unmap_mapped(st, row, how, pg);
		/* A copy found to fault is of a page mapped here already. */
		if (!ret && how == FG_KIND_COW && m->private_file &&
		    !faults_here)
			map_to_copy(st, row->object, pg);
		if (!ret)
			ret = timed_fault(st, at->t, *faults + made, m, how,
					  m->addr + pg * st->ps, stamp, &end);
		if (ret)
			return ret;
		fg_robs_note(st->obs, cr->cur, at->t, c->row, row->object,
			     (int)kind, end - cr->start_ns);
		mark_pages(st, m, pg, span, how);
		if (!maps_own_page(how))
			mark_around(st, m, pg);
		if (made % FG_CANCEL_EVERY == FG_CANCEL_EVERY - 1 &&
		    atomic_load(&st->sh->cancel))
			return -ECANCELED;
	}
	atomic_fetch_add(&st->sh->done[kind], made);
	*faults += made;
	return 0;
}

/* The time (the clock's, ns) at which bin b is over. */
static int64_t bin_over_ns(const struct replay_state *st, uint32_t b)
{
	return clock_at(st, (double)(b + 1) * st->pr->bin_ms);
}

/* The faults a thread helping makes of a chunk at a time. */
#define HELP_FAULTS 16

/*
 * Up to HELP_FAULTS faults of chunk x, another thread's, made by thread
 * t (counted as t's).  Meanwhile t's progress is the chunk's bin (a
 * fork, or a call giving pages back, waits for it as for the chunk's
 * thread), set before its faults are claimed; and t waits where the
 * chunk's thread would (before_fault).
 */
static int help_chunk(struct replay_state *st, unsigned int t, size_t x,
		      struct caller *cr, unsigned char stamp, uint64_t *faults)
{
	const struct chunk *c = &st->chunks[x];
	const struct fg_prow *row = &st->pr->rows[c->row];
	struct mapped *m = &st->obj[row->object];
	enum fg_replay_kind how = made_as(st, row, row->kind);
	uint64_t n = share_of(st, c->row, c->bin), made = 0, k = 0;
	int64_t was = atomic_load(&st->progress[t]);
	int64_t at = bin_first_ns(st, c->bin), pause = 0;
	int ret = 0;

	atomic_store(&st->progress[t], at);
	while (!ret && (at >= atomic_load(&st->next_fork_ns) ||
			held_for_giveback(st, t, row->object, at)))
		ret = pause_briefly(st, &pause);
	while (!ret && made < HELP_FAULTS && next_of(st, x, true, n, &k)) {
		uint64_t pg = shared_page(st, c, k);
		int64_t end = 0;

		ret = timed_fault(st, t, *faults + made, m, how,
				  m->addr + pg * st->ps, stamp, &end);
		if (ret)
			break;
		fg_robs_note(st->obs, cr->cur, t, c->row, row->object,
			     (int)row->kind, end - cr->start_ns);
		mark_pages(st, m, pg, 1, how);
		made++;
	}
	atomic_store(&st->progress[t], was);
	atomic_fetch_add(&st->sh->done[row->kind], made);
	*faults += made;
	return ret;
}

/* Whether thread t has faults of object o in bin b (its chunks are
 * sorted by bin). */
static bool faults_in_bin(const struct replay_state *st, unsigned int t,
			  uint32_t b, unsigned int o)
{
	size_t lo = st->first[t], hi = st->first[t + 1];

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->chunks[mid].bin < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < st->first[t + 1] && st->chunks[lo].bin == b; lo++)
		if (!is_call(st, &st->chunks[lo]) &&
		    st->pr->rows[st->chunks[lo].row].object == o)
			return true;
	return false;
}

/*
 * Thread t helps another thread of its process that is late: it makes
 * some faults of the first chunk shared (plan_shares) whose bin is over
 * and whose faults are not all made, of an object t faults in that bin
 * too (the threads faulting the object at once are those recorded).
 * *helped: whether it found one.
 */
static int help_late(struct replay_state *st, unsigned int t,
		     struct caller *cr, unsigned char stamp, uint64_t *faults,
		     bool *helped)
{
	const struct fg_profile *pr = st->pr;
	unsigned int p = pr->threads[t].process;
	int64_t now = fg_now_ns();

	*helped = false;
	if (atomic_load(&st->sh->cancel))
		return -ECANCELED;
	for (unsigned int u = 0; u < pr->nr_threads; u++) {
		if (u == t || pr->threads[u].process != p)
			continue;
		for (size_t x = atomic_load(&st->from[u]); x < st->first[u + 1];
		     x++) {
			const struct chunk *c = &st->chunks[x];

			if (bin_over_ns(st, c->bin) > now)
				break;
			if (!fg_bit_test(st->shareable, x) ||
			    atomic_load(&st->taken[x]) >=
				    share_of(st, c->row, c->bin) ||
			    !faults_in_bin(st, t, c->bin,
					   pr->rows[c->row].object))
				continue;
			*helped = true;
			return help_chunk(st, t, x, cr, stamp, faults);
		}
	}
	return 0;
}

/* Sleeps until the profile's time ms as sleep_until does, helping the
 * late threads of its process meanwhile (help_late), looked for as
 * each bin is over.  -ECANCELED. */
static int wait_helping(struct replay_state *st, unsigned int t, double ms,
			struct caller *cr, unsigned char stamp,
			uint64_t *faults)
{
	for (;;) {
		/* Now in the profile's time (ms). */
		double now = (double)(fg_now_ns() - st->sh->t0_ns) * st->speed /
			     1e6,
		       next;
		bool helped;
		int ret;

		if (atomic_load(&st->sh->cancel))
			return -ECANCELED;
		if (now >= ms)
			return 0;
		ret = help_late(st, t, cr, stamp, faults, &helped);
		if (ret)
			return ret;
		if (helped)
			continue;
		/* The end of the bin now, or the time, first. */
		next = now <= 0 ? ms :
		       (double)((uint64_t)(now / st->pr->bin_ms) + 1) *
			       st->pr->bin_ms;
		ret = sleep_until(st, next < ms ? next : ms);
		if (ret)
			return ret;
	}
}

/* The end of bin b (profile time, ms) is past: the bin was late. */
static void bin_done(struct replay_state *st, uint32_t b)
{
	atomic_fetch_add(&st->sh->bins, 1);
	if (st->paced && fg_now_ns() > bin_over_ns(st, b))
		atomic_fetch_add(&st->sh->bins_late, 1);
}

/* Thread t's bin of chunks [c, end): its calls, the faults before the
 * bin's fork (class 0), then its copies (class 1). */
static int thread_bin(struct replay_state *st, unsigned int t, size_t c,
		      size_t end, struct caller *cr, unsigned char stamp,
		      uint64_t *faults)
{
	struct bin_pos at;
	int ret = 0;

	bin_begin(st, t, c, &at);
	atomic_store(&st->progress[t], first_time(&at));
	if (st->paced && st->helps[t])
		ret = wait_helping(st, t, (double)at.bin * st->pr->bin_ms, cr,
				   stamp, faults);
	else if (st->paced)
		ret = sleep_until(st, (double)at.bin * st->pr->bin_ms);
	for (size_t x = c; x < end && !ret; x++) {
		if (!is_call(st, &st->chunks[x]))
			continue;
		ret = replay_calls(st, &st->chunks[x], cr);
		*faults += cr->made;
		cr->made = 0;
		/* Made: the threads it held go on. */
		if (!ret && maps_anew(st, &st->pr->calls[st->chunks[x].row -
							 st->pr->nr_rows]))
			next_giveback(st, t, x + 1);
	}
	for (unsigned int k = 0; k < 2; k++)
		for (size_t x = c; x < end && !ret; x++)
			if (!is_call(st, &st->chunks[x]) &&
			    class_of(st, &at, st->chunks[x].row) == k)
				ret = replay_chunk(st, &st->chunks[x], &at,
						   cr, stamp, faults);
	if (!ret && cr->nr_pend)
		ret = flush_pending(st, cr, t, at.bin);
	if (!ret && atomic_load(&st->giveback_ns[t]) <= bin_last_ns(st, at.bin))
		next_giveback(st, t, end);
	if (!ret)
		bin_done(st, at.bin);
	return ret;
}

static int thread_chunks(struct replay_state *st, unsigned int t,
			 unsigned char stamp, struct fg_robs_cur *cur,
			 int64_t start_ns, uint64_t *faults)
{
	size_t c = st->first[t], end;
	struct caller cr = { .cur = cur, .start_ns = start_ns };
	int ret = 0;

	for (; c < st->first[t + 1] && !ret; c = end) {
		for (end = c + 1; end < st->first[t + 1] &&
				  st->chunks[end].bin == st->chunks[c].bin;
		     end++)
			;
		ret = thread_bin(st, t, c, end, &cr, stamp, faults);
	}
	/* Through: it helps those late, while they are. */
	for (bool helped = true; !ret && helped && st->paced && st->helps[t];)
		ret = help_late(st, t, &cr, stamp, faults, &helped);
	caller_done(st, &cr);
	return ret;
}

/* What a thread is started with: its process allocates it, so that the
 * thread allocates nothing (a thread's first malloc makes glibc map an
 * arena of its own: a mapping and faults the recording had not). */
struct thread_arg {
	struct replay_state *st;
	unsigned int t;
	void *pin;              /* a scratch CPU mask, with the run's pin */
	struct fg_robs_cur *cur; /* its notes' cursors (replay-obs.c) */
};

/*
 * Thread t placed as worker t would be: on its own CPU with the run's
 * pin (the t-th of the run's, round), else on the run's CPUs; SCHED_FIFO
 * where asked.  Its pinned CPU, or -1, into w->cpu.
 */
static int place_thread(const struct thread_arg *a, struct fg_wstat *w)
{
	struct faultgen_run *run = a->st->run;
	int ret = 0;

	w->cpu = -1;
	if (run->attr.pin) {
		if (!a->pin)
			return -ENOMEM;
		w->cpu = fg_cpu_for_worker(&run->cpus, a->t);
		ret = fg_bind_to_cpu(run, a->pin, w->cpu);
	} else if (sched_setaffinity(0, run->cpuset_size, run->cpuset_buf) <
		   0) {
		ret = -errno;
	}
	if (!ret && run->attr.sched_fifo)
		ret = fg_fifo_self();
	return ret;
}

/* Thread t of the profile: its faults, measured as a worker's: its
 * lock paths and waits, and the latency of its faults, where asked. */
static int replay_thread(const struct thread_arg *a)
{
	struct replay_state *st = a->st;
	unsigned int t = a->t;
	struct fg_robs_cur *cur = a->cur;
	struct faultgen_run *run = st->run;
	struct fg_wstat *w = &run->sh->w[t];
	const struct fg_pthread *th = &st->pr->threads[t];
	unsigned char stamp = (unsigned char)(th->process + 1);
	bool lat = run->attr.latency != 0;
	int lock_fds[FG_LOCK_EVENTS];
	struct fg_usage at;
	uint64_t faults = 0;
	int64_t start_ns;
	int ret;

	w->pid = getpid();
	w->tid = fg_gettid();
	ret = place_thread(a, w);
	if (ret)
		return ret;
	if (st->paced)
		ret = sleep_until(st, th->start_ms);
	if (ret)
		return ret;
	/* The shared page read now: a child that forks nothing maps it
	 * here, not in the loop. */
	start_ns = st->sh->start_ns;
	fg_lock_worker_open(run, w, lock_fds);
	fg_wait_worker_open(run, t);
	if (lat)
		fg_lat_begin(run, t, false);
	fg_stat_begin(w, &at, false);
	ret = thread_chunks(st, t, stamp, cur, start_ns, &faults);
	atomic_store(&st->progress[t], INT64_MAX);
	atomic_store(&st->giveback_ns[t], INT64_MAX);
	w->pages = faults;
	w->rounds = 1;
	fg_stat_end(w, &at, false);
	fg_robs_thread_end(st->obs, cur, t);
	fg_wait_worker_close(run, t);
	fg_lock_worker_close(w, lock_fds);
	if (lat)
		fg_lat_end(run, t, false);
	w->fault_ns = w->end_ns - w->start_ns;
	w->last_cpu = sched_getcpu();
	return ret;
}

static void *thread_main(void *p)
{
	struct thread_arg *a = p;
	int ret;

	atomic_store(&a->st->running[a->t], 1);
	ret = replay_thread(a);

	if (ret && ret != -ECANCELED) {
		char msg[FG_PROFILE_ERROR_LEN];

		snprintf(msg, sizeof(msg), "threads[%u]: its faults failed: %s",
			 a->t, strerror(-ret));
		fail_shared(a->st->sh, ret, msg);
	}
	atomic_store(&a->st->run->sh->w[a->t].finished, 1);
	return NULL;
}

/* ---- processes ---------------------------------------------------- */

static void run_process(struct replay_state *st, unsigned int p);

/*
 * A fork at profile time ns waits for the threads of its process p to
 * have made their faults before it, in the bins before and in its own
 * (late under load, they would fork a child without the pages it
 * inherited in the recording: its copies would be first touches).
 * -ECANCELED.
 */
static int wait_for_threads(struct replay_state *st, unsigned int p,
			    int64_t ns)
{
	const struct fg_profile *pr = st->pr;
	int ret = 0;

	/* Until a pass finds none behind: a thread helping another sets
	 * its progress back (help_chunk) before the other's goes on. */
	for (bool again = true; again && !ret;) {
		int64_t pause = 0;

		again = false;
		for (unsigned int t = 0; t < pr->nr_threads && !ret; t++)
			while (!ret && pr->threads[t].process == p &&
			       atomic_load(&st->progress[t]) < ns) {
				again = true;
				ret = pause_briefly(st, &pause);
			}
	}
	return ret;
}

/*
 * Before a fork of process p: each of its threads started runs its own
 * code (its start, where the C library and a sanitizer allocate, is
 * over), and those through with their faults are joined (their exit,
 * where they free, is over): the child inherits no allocator lock
 * another thread held at the fork.  The others wait in before_fault
 * or sleep, allocating nothing.  -ECANCELED.
 */
static int settle(struct replay_state *st, unsigned int p,
		  const pthread_t *tids, const bool *started, bool *joined)
{
	int ret = 0;

	for (unsigned int t = 0; t < st->pr->nr_threads; t++) {
		int64_t pause = 0;

		if (st->pr->threads[t].process != p || !started[t] || joined[t])
			continue;
		while (!ret && !atomic_load(&st->running[t]))
			ret = pause_briefly(st, &pause);
		if (ret)
			return ret;
		if (atomic_load(&st->progress[t]) == INT64_MAX) {
			pthread_join(tids[t], NULL);
			joined[t] = true;
		}
	}
	return 0;
}

/* Forks process c (a child of the calling process's profile process). */
/*
 * In forked child c, before its threads start: the objects that neither
 * it nor a process it forks maps (the profile's "objects" of each
 * process) unmapped.  The root maps every object for the processes it
 * forks to inherit, where the recorded child had its own only (an exec
 * left it none of its parent's): a child kept them all, its mappings
 * and its smaps several times the program's.
 */
static void unmap_foreign(struct replay_state *st, unsigned int c)
{
	const struct fg_profile *pr = st->pr;

	for (unsigned int o = 0; pr->maps && o < pr->nr_objects; o++) {
		struct mapped *m = &st->obj[o];
		bool kept = false;

		for (unsigned int x = 0; x < pr->nr_processes && !kept; x++)
			kept = pr->maps[(size_t)x * pr->nr_objects + o] &&
			       lineage(pr, c, x);
		if (kept || !m->resv.raw)
			continue;
		fg_resv_release(&m->resv);
		if (m->fd >= 0)
			close(m->fd);
		m->fd = -1;
	}
}

static pid_t fork_child(struct replay_state *st, unsigned int c)
{
	pid_t parent = getpid(), pid = fork();

	if (pid != 0)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	unmap_foreign(st, c);
	fork_states(st, true);
	run_process(st, c);
	_exit(atomic_load(&st->sh->error) ? 1 : 0);
}

/* Waits for child process c (a child of its own, never another pid);
 * a child killed by a signal (which could not say why itself) fails
 * the replay. */
static void reap_child(struct replay_state *st, unsigned int c, pid_t pid)
{
	int status = 0;
	char msg[FG_PROFILE_ERROR_LEN];

	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFSIGNALED(status) || atomic_load(&st->sh->cancel))
		return;
	snprintf(msg, sizeof(msg), "processes[%u]: killed by signal %d (%s)",
		 c, WTERMSIG(status), strsignal(WTERMSIG(status)));
	fail_shared(st->sh, -ECHILD, msg);
}

/*
 * Profile process p in this process: its threads started, its children
 * forked at their times (in the order of the times), then every thread
 * joined and every child reaped.  A failure is the shared error.
 */
/* Process p's child not forked yet that forks first (its index, -1 for
 * none), and that fork's time in this process's next_fork_ns. */
static int next_child(struct replay_state *st, unsigned int p,
		      const pid_t *kids)
{
	const struct fg_profile *pr = st->pr;
	int next = -1;

	for (unsigned int c = 0; c < pr->nr_processes; c++)
		if (pr->processes[c].parent == (int)p && !kids[c] &&
		    (next < 0 ||
		     pr->processes[c].fork_ms < pr->processes[next].fork_ms))
			next = (int)c;
	atomic_store(&st->next_fork_ns,
		     next < 0 ? INT64_MAX :
				(int64_t)(pr->processes[next].fork_ms * 1e6));
	return next;
}

static void run_process(struct replay_state *st, unsigned int p)
{
	const struct fg_profile *pr = st->pr;
	pthread_t *tids = calloc(pr->nr_threads, sizeof(*tids));
	struct thread_arg *args = calloc(pr->nr_threads, sizeof(*args));
	pid_t *kids = calloc(pr->nr_processes, sizeof(*kids));
	bool *started = calloc(pr->nr_threads, sizeof(*started));
	bool *joined = calloc(pr->nr_threads, sizeof(*joined));
	unsigned int c;
	int next;

	if (!tids || !args || !kids || !started || !joined) {
		fail_shared(st->sh, -ENOMEM, "out of memory starting a process");
		goto out;
	}
	/* Its own page table's (an inherited fd reads the parent's). */
	if (st->pagemap_fd >= 0)
		close(st->pagemap_fd);
	st->pagemap_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	next = next_child(st, p, kids);
	for (unsigned int t = 0; t < pr->nr_threads; t++) {
		if (pr->threads[t].process != p)
			continue;
		/* Its notes' pages faulted now, in its process, not in
		 * its loop (replay-obs.c). */
		args[t] = (struct thread_arg){
			.st = st, .t = t,
			.pin = st->run->attr.pin ?
				       CPU_ALLOC(st->run->cpus.nbits) :
				       NULL,
			.cur = fg_robs_thread(st->obs, t),
		};
		for (size_t c = st->first[t]; c < st->first[t + 1]; c++)
			if (!is_call(st, &st->chunks[c]))
				fg_robs_touch_row(st->obs, st->chunks[c].row);
		if (pthread_create(&tids[t], NULL, thread_main, &args[t])) {
			fail_shared(st->sh, -EAGAIN, "cannot create a thread");
			break;
		}
		started[t] = true;
	}
	/* The children, in the order of their times. */
	for (; next >= 0 && !atomic_load(&st->sh->cancel);
	     next = next_child(st, p, kids)) {
		if (sleep_until(st, pr->processes[next].fork_ms) ||
		    wait_for_threads(st, p, atomic_load(&st->next_fork_ns)) ||
		    settle(st, p, tids, started, joined))
			break;
		kids[next] = fork_child(st, (unsigned int)next);
		if (kids[next] < 0) {
			kids[next] = 0;
			fail_shared(st->sh, -EAGAIN, "cannot fork a process");
			break;
		}
		fork_states(st, false);
	}
	atomic_store(&st->next_fork_ns, INT64_MAX);
out:
	for (unsigned int t = 0; started && t < pr->nr_threads; t++)
		if (started[t] && !(joined && joined[t]))
			pthread_join(tids[t], NULL);
	for (c = 0; kids && c < pr->nr_processes; c++)
		if (kids[c] > 0)
			reap_child(st, c, kids[c]);
	for (unsigned int t = 0; args && t < pr->nr_threads; t++)
		if (args[t].pin)
			CPU_FREE(args[t].pin);
	free(tids);
	free(args);
	free(kids);
	free(started);
	free(joined);
}

/*
 * The calling process's part: its profile process, run by a thread of
 * the run's own so that the calling thread watches for a cancel
 * (faultgen_run_cancel sets the run's word, which children do not see)
 * and passes it on in the shared memory.
 */
struct root_arg {
	struct replay_state *st;
	unsigned int p;
	_Atomic uint32_t done;
};

static void *root_main(void *v)
{
	struct root_arg *a = v;
	struct faultgen_run *run = a->st->run;

	/* On the run's CPUs, as the processes it forks (best effort: each
	 * thread places itself, place_thread). */
	(void)sched_setaffinity(0, run->cpuset_size, run->cpuset_buf);
	run_process(a->st, a->p);
	atomic_store(&a->done, 1);
	fg_futex_wake(&a->done);
	return NULL;
}

static int root_process(const struct fg_profile *pr)
{
	for (unsigned int p = 0; p < pr->nr_processes; p++)
		if (pr->processes[p].parent < 0)
			return (int)p;
	return 0;
}

static int run_all(struct faultgen_run *run, struct replay_state *st)
{
	struct root_arg a = { .st = st, .p = (unsigned int)root_process(st->pr) };
	pthread_t tid;

	st->sh->start_ns = fg_now_ns();
	st->sh->t0_ns = st->sh->start_ns + START_LEAD_NS;
	/* The fork of a child is made by this thread: it dies with it. */
	if (pthread_create(&tid, NULL, root_main, &a))
		return -EAGAIN;
	while (!atomic_load(&a.done)) {
		if (fg_cancel_requested(run->sh) || atomic_load(&run->cancelled))
			atomic_store(&st->sh->cancel, 1);
		fg_futex_wait(&a.done, 0, SLEEP_SLICE_NS);
	}
	pthread_join(tid, NULL);
	if (atomic_load(&st->sh->error))
		return atomic_load(&st->sh->error);
	return atomic_load(&st->sh->cancel) ? -ECANCELED : 0;
}

/* ---- the run ------------------------------------------------------ */

/*
 * Makes page p (of object o, as mapped) present once, before the clock:
 * populated (MADV_POPULATE_WRITE, which raises no fault event: a survey
 * of the replay counts these apart from the replayed faults, as faults
 * without an event), or written where the kernel cannot (before 5.14);
 * a private file's page mapped read-only (MADV_POPULATE_READ, or read),
 * which a write copies.
 */
FG_NO_ASAN static void present_now(struct replay_state *st, unsigned int o,
				   uint64_t p)
{
	char *at = st->obj[o].addr + p * st->ps;

	/* Pages mapped before the clock: the page table tells (around). */
	st->obj[o].around = true;
	if (st->obj[o].private_file) {
		/* Its file's page mapped, not copied: a write copies it. */
		if (st->obj[o].state[p] != PAGE_ABSENT)
			return;
		if (madvise(at, st->ps, MADV_POPULATE_READ) < 0)
			(void)*(volatile char *)at;
		st->obj[o].state[p] = PAGE_READONLY;
		st->present_at_start++;
		return;
	}
	if (madvise(at, st->ps, MADV_POPULATE_WRITE) < 0)
		*(volatile char *)at = 1;
	st->obj[o].state[p] = PAGE_WRITABLE;
	st->present_at_start++;
}

/*
 * Row r's pages, as the replay will fault them (next_page), walked for
 * the copies of one process: the rows of the process and its ancestors
 * that make pages present, populated ones first, then its copies.  A
 * page a copy-on-write row writes that no such row makes present was
 * present in the recorded process before the recording began (a survey
 * attached with -p to a running program): made present now, before the
 * clock and any fork, unmeasured, so that the copies are copies, not
 * first touches.  A copy-on-write row in a random order copied as many
 * pages as its count, each once: as many pages of its range made
 * present, past those of the other rows (pick_page takes any).  Each
 * row's walk is undone after (row_next, row_x back to 0).  Where kept
 * is not NULL, each page walked is kept for the row of the earliest
 * bin that walks it (reserve_pages).
 */
static void walk_row(struct replay_state *st, size_t r, unsigned long *map,
		     uint64_t pages, uint32_t *kept)
{
	const struct fg_prow *row = &st->pr->rows[r];
	uint64_t span = maps_huge(st, row) ? st->hps / st->ps : 1;

	for (uint64_t k = 0; k < st->row_faults[r]; k++) {
		uint64_t p = next_page(st, r);

		for (uint64_t q = p; q < p + span && q < pages; q++) {
			fg_bit_set(map, q);
			if (kept && (!kept[q] ||
				     st->pr->rows[kept[q] - 1].bin > row->bin))
				kept[q] = (uint32_t)r + 1;
		}
	}
	st->row_next[r] = 0;
	st->row_x[r] = 0;
}

/*
 * The pages cow row r copies made present (those not in map: not
 * another row's), as many as it copies, in its order: in a random
 * order, first those not in avoid (the spans of the rows in a random
 * order that fault pages not present: their pages were not present in
 * the recording), then any.
 */
static void walk_copies(struct replay_state *st, size_t r, unsigned long *map,
			uint64_t pages, const unsigned long *avoid)
{
	const struct fg_prow *row = &st->pr->rows[r];
	uint64_t lo, hi, tries = st->row_faults[r], made = 0;
	bool random = row->order == FG_ORDER_RANDOM;

	row_range(st, r, &lo, &hi);
	if (random)
		tries = hi - lo + 1;
	for (int pass = random ? 0 : 1; pass < 2; pass++) {
		for (uint64_t k = 0; k < tries && made < st->row_faults[r];
		     k++) {
			uint64_t p = next_page(st, r);

			if (p >= pages || fg_bit_test(map, p) ||
			    (!pass && fg_bit_test(avoid, p)))
				continue;
			fg_bit_set(map, p);
			if (st->obj[row->object].state[p] != PAGE_WRITABLE)
				present_now(st, row->object, p);
			made++;
		}
		st->row_next[r] = 0;
		st->row_x[r] = 0;
	}
}

/* The spans of object o's rows in a random order that fault pages not
 * present, into avoid. */
static void random_absent_spans(struct replay_state *st, unsigned int o,
				unsigned long *avoid)
{
	for (size_t r = 0; r < st->pr->nr_rows; r++) {
		const struct fg_prow *row = &st->pr->rows[r];
		uint64_t lo, hi;

		if (row->object != o || row->order != FG_ORDER_RANDOM ||
		    !absent_row(row))
			continue;
		row_range(st, r, &lo, &hi);
		for (uint64_t p = lo; p <= hi; p++)
			fg_bit_set(avoid, p);
	}
}

/* Whether process q is p or an ancestor of p. */
static bool lineage(const struct fg_profile *pr, unsigned int q,
		    unsigned int p)
{
	for (int x = (int)p; x >= 0; x = pr->processes[x].parent)
		if ((unsigned int)x == q)
			return true;
	return false;
}

/* Whether process p copies pages of object o. */
static bool copies_in(const struct fg_profile *pr, unsigned int o,
		      unsigned int p)
{
	for (size_t r = 0; r < pr->nr_rows; r++)
		if (pr->rows[r].object == o && pr->rows[r].kind == FG_KIND_COW &&
		    pr->threads[pr->rows[r].thread].process == p)
			return true;
	return false;
}

/*
 * For process p's copies: the pass that walks row (0: populated, 1:
 * other faults, 2: copies) where it is a row of p's (or, but for
 * copies, of an ancestor's, whose pages p inherits); -1 for a row of
 * another process (a child's pages are not its parent's).
 */
static int walk_pass(const struct fg_profile *pr, const struct fg_prow *row,
		     unsigned int p)
{
	unsigned int q = pr->threads[row->thread].process;

	if (row->kind == FG_KIND_COW)
		return q == p ? 2 : -1;
	if (!lineage(pr, q, p))
		return -1;
	return populated_kind(row->kind) ? 0 : 1;
}

/* A row in a random order being given pages (reserve_pages). */
struct claim {
	uint64_t lo, hi, need;
	size_t row;
};

static int by_first_page(const void *a, const void *b)
{
	const struct claim *x = a, *y = b;

	return (x->lo > y->lo) - (x->lo < y->lo);
}

/* The heap of claims (by their last page, the least first). */
static void claim_down(struct claim **h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct claim *t;

		if (l < n && h[l]->hi < h[m]->hi)
			m = l;
		if (l + 1 < n && h[l + 1]->hi < h[m]->hi)
			m = l + 1;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static void claim_push(struct claim **h, size_t *n, struct claim *c)
{
	size_t i = (*n)++;

	h[i] = c;
	while (i && h[(i - 1) / 2]->hi > h[i]->hi) {
		struct claim *t = h[i];

		h[i] = h[(i - 1) / 2];
		h[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static void claim_pop(struct claim **h, size_t *n)
{
	h[0] = h[--*n];
	claim_down(h, *n, 0);
}

/*
 * The pages of the rows in a random order (c[0..n)) given them: page
 * by page, to the row whose range ends first of those over it that
 * need pages, past the pages in map (the rows in page order): as many
 * rows given all their pages as can be.
 */
static int give_pages(struct claim *c, size_t n, const unsigned long *map,
		      uint32_t *kept)
{
	struct claim **h;
	size_t next = 0, nh = 0;

	if (!n)
		return 0;
	h = calloc(n, sizeof(struct claim *));
	if (!h)
		return -ENOMEM;
	qsort(c, n, sizeof(*c), by_first_page);
	for (uint64_t p = c[0].lo; next < n || nh; p++) {
		while (next < n && c[next].lo <= p)
			claim_push(h, &nh, &c[next++]);
		while (nh && (h[0]->hi < p || !h[0]->need))
			claim_pop(h, &nh);
		if (!nh) {
			if (next < n)
				p = c[next].lo - 1;
			continue;
		}
		if (fg_bit_test(map, p))
			continue;
		kept[p] = (uint32_t)h[0]->row + 1;
		h[0]->need--;
	}
	free(h);
	return 0;
}

/* Whether row r is one in a random order given pages (reserve_pages). */
static bool given_pages(const struct replay_state *st, size_t r)
{
	const struct fg_prow *row = &st->pr->rows[r];

	return row->order == FG_ORDER_RANDOM && absent_row(row) &&
	       !maps_huge(st, row);
}

/*
 * The pages of object o that its rows fault not present, each kept for
 * one row, where a row in a random order faults pages not present: a
 * row of an earlier bin takes other pages first (a program's random
 * writes fell on pages its later writes did not need, or they would not
 * have faulted).  The rows in page order keep the pages their order
 * gives (the earliest of them), those in a random order as many pages
 * of their ranges past those as they fault (give_pages).
 */
static int reserve_pages(struct replay_state *st, unsigned int o)
{
	const struct fg_profile *pr = st->pr;
	uint64_t pages = st->obj[o].len / st->ps;
	unsigned long *map = NULL;
	uint32_t *kept = NULL;
	struct claim *random = NULL;
	size_t n = 0;
	int ret;

	for (size_t r = 0; r < pr->nr_rows; r++)
		n += pr->rows[r].object == o && given_pages(st, r);
	if (!n)
		return 0;
	random = calloc(n, sizeof(*random));
	map = calloc(fg_bitmap_longs(pages), sizeof(*map));
	kept = calloc(pages, sizeof(*kept));
	if (!random || !map || !kept) {
		free(random);
		free(map);
		free(kept);
		return -ENOMEM;
	}
	n = 0;
	for (size_t r = 0; r < pr->nr_rows; r++) {
		if (pr->rows[r].object != o || !absent_row(&pr->rows[r]))
			continue;
		if (given_pages(st, r)) {
			row_range(st, r, &random[n].lo, &random[n].hi);
			random[n].need = st->row_faults[r];
			random[n++].row = r;
		} else {
			walk_row(st, r, map, pages, kept);
		}
	}
	ret = give_pages(random, n, map, kept);
	free(random);
	free(map);
	if (ret)
		free(kept);
	else
		st->obj[o].reserved = kept;
	return ret;
}

/* The pages kept for row r (reserve_pages), into map. */
static void kept_pages(const struct replay_state *st, size_t r,
		       unsigned long *map)
{
	const uint32_t *kept = st->obj[st->pr->rows[r].object].reserved;
	uint64_t lo, hi;

	row_range(st, r, &lo, &hi);
	for (uint64_t p = lo; kept && p <= hi; p++)
		if (kept[p] == r + 1)
			fg_bit_set(map, p);
}

/* Object o's pages present at the start (walk_row; those kept for the
 * rows in a random order, reserve_pages), for the copies of each
 * process that makes some. */
static int present_at_start(struct replay_state *st, unsigned int o)
{
	const struct fg_profile *pr = st->pr;
	uint64_t pages = st->obj[o].len / st->ps;
	unsigned long *map = NULL, *avoid = NULL;

	if (!has_kind(pr, o, FG_KIND_COW))
		return 0;
	map = calloc(fg_bitmap_longs(pages), sizeof(*map));
	avoid = calloc(fg_bitmap_longs(pages), sizeof(*avoid));
	if (!map || !avoid) {
		free(map);
		free(avoid);
		return -ENOMEM;
	}
	random_absent_spans(st, o, avoid);
	for (unsigned int p = 0; p < pr->nr_processes; p++) {
		if (!copies_in(pr, o, p))
			continue;
		memset(map, 0, fg_bitmap_longs(pages) * sizeof(*map));
		for (int pass = 0; pass < 3; pass++)
			for (size_t r = 0; r < pr->nr_rows; r++) {
				if (pr->rows[r].object != o ||
				    walk_pass(pr, &pr->rows[r], p) != pass)
					continue;
				if (pr->rows[r].kind == FG_KIND_COW)
					walk_copies(st, r, map, pages, avoid);
				else if (given_pages(st, r))
					kept_pages(st, r, map);
				else
					walk_row(st, r, map, pages, NULL);
			}
	}
	free(map);
	free(avoid);
	return 0;
}

/* The notes of what the replay makes (replay-obs.c): per thread, the
 * objects it faults counted for them. */
static int new_notes(struct replay_state *st)
{
	const struct fg_profile *pr = st->pr;
	size_t *objects = calloc(pr->nr_threads + 1, sizeof(*objects));
	unsigned int *mark = calloc(pr->nr_objects + 1, sizeof(*mark));
	int ret = -ENOMEM;

	if (objects && mark) {
		for (unsigned int t = 0; t < pr->nr_threads; t++)
			for (size_t c = st->first[t]; c < st->first[t + 1];
			     c++) {
				unsigned int o;

				if (is_call(st, &st->chunks[c]))
					continue;
				o = pr->rows[st->chunks[c].row].object;
				objects[t] += mark[o] != t + 1;
				mark[o] = t + 1;
			}
		ret = fg_robs_new(&st->obs, pr, st->first, objects);
	}
	free(objects);
	free(mark);
	return ret;
}

static int setup(struct faultgen_run *run, struct replay_state *st)
{
	const struct fg_profile *pr = st->pr;
	size_t len = sizeof(struct shared);
	int ret;

	if (pr->page_size != st->ps) {
		say(st, "page_size: %llu, but this machine's pages are of %zu "
			"bytes", (unsigned long long)pr->page_size, st->ps);
		return -EINVAL;
	}
	if (run->attr.nr_workers != pr->nr_threads) {
		say(st, "threads: %u in the profile, but the run has %u "
			"workers: the profile sets them",
		    pr->nr_threads, run->attr.nr_workers);
		return -EINVAL;
	}
	ret = plan_chunks(st);
	if (!ret)
		ret = new_notes(st);
	if (ret)
		return ret;
	st->sh = mmap(NULL, len, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st->sh == MAP_FAILED) {
		st->sh = NULL;
		return -ENOMEM;
	}
	st->sh_len = len;
	ret = hugetlb_check(st);
	if (ret)
		return ret;
	st->obj = calloc(pr->nr_objects + 1, sizeof(*st->obj));
	if (!st->obj)
		return -ENOMEM;
	for (unsigned int o = 0; o < pr->nr_objects; o++)
		st->obj[o].fd = -1;
	for (unsigned int o = 0; o < pr->nr_objects && !ret; o++)
		ret = map_object(run, st, o);
	for (unsigned int o = 0; o < pr->nr_objects && !ret; o++)
		ret = reserve_pages(st, o);
	for (unsigned int o = 0; o < pr->nr_objects && !ret; o++)
		ret = present_at_start(st, o);
	return ret;
}

static void fold(struct faultgen_run *run, struct replay_state *st)
{
	uint64_t bytes = 0;

	for (unsigned int o = 0; o < st->pr->nr_objects; o++)
		bytes += st->obj[o].len;
	run->base_len = bytes;
	fg_measure_fold(run);
	/* Without memory for it, no object's figures (-ENODATA). */
	if (fg_robs_fold(st->obs)) {
		fg_robs_free(st->obs);
		st->obs = NULL;
	}
	/* faultgen_run_region: the profile's first object. */
	if (st->pr->nr_objects) {
		run->base = st->obj[0].addr;
		run->base_len = st->obj[0].len;
	}
}

static int replay_exec(struct faultgen_run *run)
{
	struct replay_box *box = fg_pattern_state(run);
	struct replay_state *st = calloc(1, sizeof(*st));
	int ret;

	if (!st)
		return -ENOMEM;
	box->st = st;
	st->active = true;
	st->run = run;
	st->pagemap_fd = -1;
	st->ps = (size_t)fg_pagesize();
	st->hps = FG_HPAGE_SIZE;
	(void)fg_hpage_size(&st->hps);
	st->pt_pages = st->hps / st->ps;
	st->speed = factor_of(run, "speed");
	st->scale = factor_of(run, "scale");
	st->paced = fg_own_setting(run, "pacing").e == PACING_BINS;
	/* Parsed when the run was created (replay_attach): the forked
	 * processes inherit it. */
	if (run->attr.profile) {
		st->pr = &run->attr.profile->pr;
		ret = setup(run, st);
	} else {
		ret = run->attr.profile_err ? run->attr.profile_err : -EINVAL;
		say(st, "%s", run->attr.profile_error);
	}
	if (!ret)
		ret = run_all(run, st);
	if (ret && st->sh && atomic_load(&st->sh->error_taken))
		snprintf(st->msg, sizeof(st->msg), "%s", st->sh->msg);
	if (ret && ret != -ECANCELED)
		snprintf(box->msg, sizeof(box->msg), "%s", st->msg);
	if ((!ret || ret == -ECANCELED) && st->sh)
		fold(run, st);
	return ret;
}

/* Everything exec made; callable twice.  The message stays in the
 * box, which the run frees. */
static void replay_release(struct faultgen_run *run)
{
	struct replay_box *box = fg_pattern_state(run);
	struct replay_state *st = box ? box->st : NULL;

	if (!st)
		return;
	run->base = NULL;
	unmap_objects(st);
	if (st->sh)
		munmap(st->sh, st->sh_len);
	fg_robs_free(st->obs);
	free(st->chunks);
	free(st->first);
	free(st->row_faults);
	free(st->call_row);
	free(st->row_next);
	free(st->row_x);
	free(st->after_fork);
	free(st->shareable);
	free(st->taken);
	free(st->from);
	free(st->helps);
	free(st->progress);
	st->progress = NULL;
	free(st->giveback_ns);
	free(st->giveback_obj);
	free(st->shared_giveback);
	free(st->givers);
	free(st->giver_first);
	free(st->running);
	st->running = NULL;
	if (st->pagemap_fd >= 0)
		close(st->pagemap_fd);
	free(st);
	box->st = NULL;
}

/* The message of a replay's failure (which member, what), or NULL. */
const char *fg_replay_message(const struct faultgen_run *run)
{
	const struct replay_box *box = fg_pattern_state(run);

	if (run->ops != &fg_replay_pattern || !box || !box->msg[0])
		return NULL;
	return box->msg;
}

/* The replay's state once it ran, or NULL. */
static const struct replay_state *ran(const struct faultgen_run *run)
{
	const struct replay_box *box;

	if (run->ops != &fg_replay_pattern)
		return NULL;
	box = fg_pattern_state(run);
	return box && box->st && box->st->obs && run->measured ? box->st
							       : NULL;
}

/* faultgen_run_replay_object: what the replay made of object o. */
int fg_replay_object(const struct faultgen_run *run, unsigned int o,
		     struct faultgen_replay_object *out)
{
	const struct replay_state *st = ran(run);
	struct faultgen_replay_object v;
	struct fg_robs_object f;
	size_t size = out->size;
	int ret;

	if (!st)
		return -ENODATA;
	ret = fg_robs_object(st->obs, o, &f);
	if (ret)
		return ret;
	v = (struct faultgen_replay_object){
		.size = size,
		.backing = backing_names[st->pr->objects[o].backing],
		.bytes = st->obj[o].len,
		.faults = f.faults,
		.threads = f.threads,
		.processes = f.processes,
		.threads_most = f.threads_most,
		.processes_most = f.processes_most,
		.threads_median = f.threads_median,
		.processes_median = f.processes_median,
		.first_s = (double)f.first_ns / 1e9,
		.last_s = (double)f.last_ns / 1e9,
		.merged_windows = f.merged_windows,
	};
	/* A caller built against a shorter struct gets its members. */
	memcpy(out, &v, size < sizeof(v) ? size : sizeof(v));
	return 0;
}

/* faultgen_run_replay_faults: of object o, by worker and kind. */
int fg_replay_faults(const struct faultgen_run *run, unsigned int o,
		     int worker, const char *kind, uint64_t *faults)
{
	const struct replay_state *st = ran(run);
	int k = -1;

	if (kind) {
		for (k = 0; k < FG_NR_KINDS; k++)
			if (!strcmp(kind, fg_kind_names[k]))
				break;
		if (k == FG_NR_KINDS)
			return -EINVAL;
	}
	if (!st)
		return -ENODATA;
	return fg_robs_faults(st->obs, o, worker, k, faults);
}

/* Faults replayed by kind (those the profile holds), and the bins. */
static int replay_figure(const struct faultgen_run *run, unsigned int index,
			 struct faultgen_figure *f)
{
	const struct replay_state *st = state_of(run);
	struct fg_figure_row figs[2 * FG_NR_KINDS + FG_NR_CALLS + 5];
	unsigned int n = 0;

	if (!st || !st->sh)
		return -ERANGE;
	for (int k = 0; k < FG_NR_KINDS; k++) {
		if (!st->counts[k] && !atomic_load(&st->sh->done[k]))
			continue;
		figs[n++] = (struct fg_figure_row){
			fg_kind_names[k], (double)atomic_load(&st->sh->done[k]),
			"faults" };
	}
	if (st->present_at_start)
		figs[n++] = (struct fg_figure_row){
			"present_at_start", (double)st->present_at_start,
			"pages" };
	if (atomic_load(&st->sh->major_as_read))
		figs[n++] = (struct fg_figure_row){
			"major_as_read",
			(double)atomic_load(&st->sh->major_as_read), "faults" };
	for (int k = 0; k < FG_NR_CALLS; k++)
		if (st->pr->call_counts[k] || atomic_load(&st->sh->calls[k]))
			figs[n++] = (struct fg_figure_row){
				fg_call_names[k],
				(double)atomic_load(&st->sh->calls[k]), "calls" };
	if (atomic_load(&st->sh->calls_failed))
		figs[n++] = (struct fg_figure_row){
			"calls_failed",
			(double)atomic_load(&st->sh->calls_failed), "calls" };
	figs[n++] = (struct fg_figure_row){
		"bins", (double)atomic_load(&st->sh->bins), "bins" };
	figs[n++] = (struct fg_figure_row){
		"bins_late", (double)atomic_load(&st->sh->bins_late), "bins" };
	return fg_figure_pick(figs, n, index, f);
}

static const char *const pacings[] = { "bins", "none", NULL };

static const struct fg_setting replay_settings[] = {
	{ .name = "profile", .type = FAULTGEN_TYPE_TEXT, .offset = FG_OWN(SLOT_PROFILE),
	  .value_name = "FILE", .check = check_path, .def_text = "none",
	  .also = profile_dropped,
	  .help = "the fault profile to replay (pft-profile/1)" },
	{ .name = "speed", .type = FAULTGEN_TYPE_TEXT, .offset = FG_OWN(SLOT_SPEED),
	  .value_name = "X", .check = check_speed, .def_text = "1",
	  .help = "replay X times as fast as recorded (0.5: half\n"
		  "as fast; 0.001 to 1000)" },
	{ .name = "pacing", .type = FAULTGEN_TYPE_KEYWORD, .keywords = pacings,
	  .offset = FG_OWN(SLOT_PACING), .value_name = "HOW", .def_text = "bins",
	  .help = "bins (default): each bin's faults at its time;\n"
		  "none: back to back, as fast as they go" },
	{ .name = "scale", .type = FAULTGEN_TYPE_TEXT, .offset = FG_OWN(SLOT_SCALE),
	  .value_name = "F", .check = check_scale, .def_text = "1",
	  .help = "scale the memory by F: sizes, pages and counts\n"
		  "(at most 64)" },
};

const struct fg_pattern fg_replay_pattern = {
	.name = "replay",
	.title = "A recorded fault profile, replayed",
	.note = "the workers are the profile's threads",
	.caps = {
		.repeat_why = "a replay runs its profile once",
		.region_why = "a replay maps the profile's objects itself",
		.numa_why = "a replay places pages where its threads fault "
			    "them",
		.node_pages_why = "a replay counts no pages per node",
		.processes_why = "a replay forks the profile's processes "
				 "itself",
	},
	.settings = replay_settings,
	.nr_settings = sizeof(replay_settings) / sizeof(replay_settings[0]),
	/* The size among them, as every pattern reads it; the profile sets
	 * the memory (scale scales it): faultgen(7). */
	.reads = FG_READS_COMMON | FG_SETTING(FAULTGEN_SETTING_LATENCY),
	.state_size = sizeof(struct replay_box),
	.default_workers = replay_workers,
	.attach = replay_attach,
	.memory = replay_memory,
	.unbound_workers = true,
	.forks = true,
	.exec = replay_exec,
	.release = replay_release,
	.figure = replay_figure,
};
