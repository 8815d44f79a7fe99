// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * check_writers.c - the shared VMA with mapping writers beside its
 * faulters (faultgen_attr_set_writers): no writers is the plain run, the
 * writers' calls are figures of their own and none of the workers'
 * faults, their regions never touch the faulters' VMA and are gone with
 * the run, and forked workers are refused.
 *
 * Counts and states only, never a timing.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "check-util.h"

#include <dirent.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "internal.h"

#define MIB (1ULL << 20)

/*
 * The munmap calls of this program (the library's among them: it is
 * linked with --wrap=munmap) go through __wrap_munmap.  Armed with a
 * length, the next unmapping of that length is taken at once by a
 * mapping of this test's own, as another thread of a program (a
 * sanitizer's allocator) may take a hole meanwhile.
 */
int __real_munmap(void *addr, size_t len);
int __wrap_munmap(void *addr, size_t len);

static _Atomic size_t take_len;
static void *_Atomic taken;

int __wrap_munmap(void *addr, size_t len)
{
	int ret = __real_munmap(addr, len);
	size_t want = atomic_load(&take_len);

	if (ret == 0 && want && len == want &&
	    atomic_compare_exchange_strong(&take_len, &want, 0)) {
		void *p = mmap(addr, len, PROT_READ,
			       MAP_PRIVATE | MAP_ANONYMOUS |
				       MAP_FIXED_NOREPLACE,
			       -1, 0);

		atomic_store(&taken, p == addr ? p : NULL);
	}
	return ret;
}

static struct faultgen_attr *writers_attr(unsigned int workers,
					  unsigned int writers,
					  enum faultgen_writer_op op)
{
	struct faultgen_attr *a;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 16 * MIB), 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, workers,
						   FAULTGEN_THREADS), 0);
	ck_assert_int_eq(faultgen_attr_set_thp(a, FAULTGEN_THP_NOHUGEPAGE), 0);
	ck_assert_int_eq(faultgen_attr_set_writers(a, writers, op), 0);
	fgc_allow_workers(a, workers + writers);
	return a;
}

static struct faultgen_run *run_ok(const struct faultgen_attr *a)
{
	struct faultgen_run *run = NULL;
	int ret = faultgen_run_new(a, &run);

	ck_assert_msg(ret == 0, "run failed: %d %s", ret,
		      faultgen_strerror(ret));
	return run;
}

static void result_of(const struct faultgen_run *run,
		      struct faultgen_result *r)
{
	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	ck_assert_int_eq(faultgen_run_result(run, r), 0);
}

/* Figure `name` of the run; fails the test when it has none such. */
static double figure_of(const struct faultgen_run *run, const char *name)
{
	double v = fgc_figure_or(run, name, -1);

	ck_assert_msg(v >= 0, "no figure %s", name);
	return v;
}

START_TEST(setter_takes_counts_and_ops_and_refuses_others)
{
	struct faultgen_attr *a;
	enum faultgen_writer_op op = FAULTGEN_WRITER_MADVISE;
	unsigned int m = 7;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_get_writers(a, &m, &op), 0);
	ck_assert_uint_eq(m, 0);
	ck_assert_int_eq(op, FAULTGEN_WRITER_MMAP);
	ck_assert_int_eq(faultgen_attr_set_writers(a, 3,
						   FAULTGEN_WRITER_MPROTECT),
			 0);
	ck_assert_int_eq(faultgen_attr_set_writers(a, FAULTGEN_MAX_WRITERS + 1,
						   FAULTGEN_WRITER_MMAP),
			 -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_writers(
				 a, 1,
				 (enum faultgen_writer_op)(
					 FAULTGEN_WRITER_MADVISE_VMA + 1)),
			 -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_writers(NULL, 1,
						   FAULTGEN_WRITER_MMAP),
			 -EINVAL);
	/* A refused value left the attr as it was. */
	ck_assert_int_eq(faultgen_attr_get_writers(a, &m, &op), 0);
	ck_assert_uint_eq(m, 3);
	ck_assert_int_eq(op, FAULTGEN_WRITER_MPROTECT);
	ck_assert_int_eq(faultgen_attr_get_writers(NULL, &m, &op), -EINVAL);
	ck_assert_int_eq(faultgen_attr_get_writers(a, NULL, &op), -EINVAL);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(only_the_shared_vma_reads_writers)
{
	ck_assert_int_eq(faultgen_pattern_reads(FAULTGEN_SHARED_VMA,
						FAULTGEN_SETTING_WRITERS),
			 1);
	for (int p = 1; p < faultgen_pattern_count(); p++)
		ck_assert_int_eq(faultgen_pattern_reads(
					 p, FAULTGEN_SETTING_WRITERS),
				 0);
}
END_TEST

START_TEST(writers_refused_beside_processes)
{
	struct faultgen_attr *a = writers_attr(2, 1, FAULTGEN_WRITER_MMAP);
	struct faultgen_run *run = NULL;

	ck_assert_int_eq(faultgen_attr_set_workers(a, 2, FAULTGEN_PROCESSES),
			 0);
	FGC_ASSERT_CONFLICT_WITH(a, FAULTGEN_SETTING_WRITERS, FAULTGEN_SETTING_WORKERS);
	ck_assert_int_eq(faultgen_run_new(a, &run), -EINVAL);
	ck_assert_ptr_null(run);
	ck_assert(fgc_no_children());
	/* No writers: processes run as ever. */
	ck_assert_int_eq(faultgen_attr_set_writers(a, 0, FAULTGEN_WRITER_MMAP),
			 0);
	ck_assert_int_eq(faultgen_attr_check(a, NULL), 0);
	faultgen_attr_free(a);
}
END_TEST

/*
 * No writers is the plain run: the same path (the state says no writer
 * ran), no figure, no mapping beyond the plain run's, the same counts.
 */
START_TEST(no_writers_is_the_plain_run)
{
	struct faultgen_attr *plain = writers_attr(2, 0, FAULTGEN_WRITER_MMAP);
	struct faultgen_attr *zero = writers_attr(2, 0, FAULTGEN_WRITER_MPROTECT);
	struct faultgen_figure f = { .size = sizeof(f) };
	struct faultgen_result rp, rz;
	struct faultgen_run *run;
	const struct fg_writers *st;

	/* plain: writers never set. */
	faultgen_attr_free(plain);
	ck_assert_int_eq(faultgen_attr_new(&plain), 0);
	ck_assert_int_eq(faultgen_attr_set_size(plain, 16 * MIB), 0);
	ck_assert_int_eq(faultgen_attr_set_workers(plain, 2, FAULTGEN_THREADS),
			 0);
	ck_assert_int_eq(faultgen_attr_set_thp(plain, FAULTGEN_THP_NOHUGEPAGE),
			 0);
	fgc_allow_workers(plain, 2);

	run = run_ok(plain);
	result_of(run, &rp);
	ck_assert_int_eq(faultgen_run_figure(run, 0, &f), -ERANGE);
	faultgen_run_free(run);

	run = run_ok(zero);
	result_of(run, &rz);
	st = fg_pattern_state(run);
	ck_assert_ptr_nonnull(st);
	ck_assert(!st->ran);
	ck_assert_ptr_null(st->resv.raw);
	ck_assert_ptr_null(st->guard[0]);
	ck_assert_ptr_null(st->guard[1]);
	ck_assert_int_eq(faultgen_run_figure(run, 0, &f), -ERANGE);
	faultgen_run_free(run);

	ck_assert_uint_eq(rz.workers, rp.workers);
	ck_assert_uint_eq(rz.bytes, rp.bytes);
	ck_assert_uint_eq(rz.pages, rp.pages);
	ck_assert_uint_eq(rz.expected_faults, rp.expected_faults);
	ck_assert(rz.faults_agree && rp.faults_agree);
	faultgen_attr_free(plain);
	faultgen_attr_free(zero);
}
END_TEST

/*
 * Each op: the workers' faults are their pages (the writers' own faults
 * are not theirs), the writers counted whole cycles of two calls, the
 * shared VMA is still one maps line of its own size (no writer region or
 * stack merged into it), and the writers' mappings are gone with the run.
 */
START_TEST(writers_count_calls_apart_from_the_faults)
{
	enum faultgen_writer_op op = (enum faultgen_writer_op)_i;
	struct faultgen_attr *a = writers_attr(1, 2, op);
	struct faultgen_result r;
	struct faultgen_run *run;
	struct fgc_vma *v;
	const struct fg_writers *st;
	void *resv, *guard[2];
	size_t resv_len, ps = (size_t)fgc_pagesize();
	int nv, first;
	double calls, wall, rate;
	void *addr;
	size_t len;

	/* Rounds: long enough for the writers to get CPU time beside the
	 * worker on a busy machine. */
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 20, FAULTGEN_ZAP_DONTNEED),
			 0);
	run = run_ok(a);
	result_of(run, &r);
	ck_assert_uint_eq(r.pages, 20 * fgc_pages_for(16 * MIB, 1));
	ck_assert_msg(fgc_close(r.pages, r.minflt, 1) && r.faults_agree,
		      "%llu faults for %llu pages",
		      (unsigned long long)r.minflt,
		      (unsigned long long)r.pages);
	ck_assert_int_eq((int)figure_of(run, "writers"), 2);
	calls = figure_of(run, "writer_calls");
	wall = figure_of(run, "writer_s");
	rate = figure_of(run, "writer_calls_per_s");
	ck_assert_msg(calls > 0 && (uint64_t)calls % 2 == 0, "%g calls",
		      calls);
	ck_assert(wall > 0);
	ck_assert_msg(rate > 0 && rate * wall - calls <= 1e-6 * calls &&
			      calls - rate * wall <= 1e-6 * calls,
		      "%g calls/s over %g s for %g calls", rate, wall, calls);

	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	nv = fgc_maps_read(&v);
	ck_assert_int_eq(fgc_vmas_over(v, nv, addr, len, &first), 1);
	ck_assert_uint_eq(v[first].start, (unsigned long)addr);
	ck_assert_uint_eq(v[first].end, (unsigned long)addr + len);
	/* The guards and the reservation, as the run left them. */
	st = fg_pattern_state(run);
	resv = st->resv.raw;
	resv_len = st->resv.raw_len;
	guard[0] = st->guard[0];
	guard[1] = st->guard[1];
	ck_assert_ptr_nonnull(resv);
	/* mmap: each region is mapped back PROT_NONE and merges into the
	 * reservation again; the others: two regions and three guards. */
	ck_assert_int_eq(fgc_vmas_over(v, nv, resv, resv_len, &first),
			 op == FAULTGEN_WRITER_MMAP ? 1 : 5);
	for (int g = 0; g < 2; g++)
		ck_assert(!guard[g] ||
			  fgc_vmas_over(v, nv, guard[g], ps, &first) == 1);
	free(v);
	faultgen_run_free(run);
	ck_assert_int_eq(fgc_threads_settle(1), 1);
	/* Gone with the run, unless a sanitizer's allocator has mapped the
	 * freed range for itself meanwhile. */
	nv = fgc_maps_read(&v);
	if (!fgc_under_sanitizer()) {
		ck_assert_int_eq(fgc_vmas_over(v, nv, resv, resv_len, &first),
				 0);
		for (int g = 0; g < 2; g++)
			ck_assert(!guard[g] ||
				  fgc_vmas_over(v, nv, guard[g], ps, &first) ==
					  0);
	}
	free(v);
	faultgen_attr_free(a);
}
END_TEST

/*
 * The writers' window is the measured phase: writer_s is the result's
 * elapsed time, also when the workers go on after it (the count of
 * their pages per node that --json and --per-worker ask for, which in a
 * repeat run faults the slice once more, unmeasured), and the rate is
 * the calls over it.
 */
START_TEST(writers_window_is_the_measured_phase)
{
	struct faultgen_attr *a = writers_attr(1, 2, FAULTGEN_WRITER_MMAP);
	struct faultgen_result r;
	struct faultgen_run *run;
	double calls, wall;

	ck_assert_int_eq(faultgen_attr_set_rounds(a, 4, FAULTGEN_ZAP_DONTNEED),
			 0);
	ck_assert_int_eq(faultgen_attr_set_warmup(a, 2), 0);
	ck_assert_int_eq(faultgen_attr_set_node_pages(a, 1), 0);
	run = run_ok(a);
	result_of(run, &r);
	calls = figure_of(run, "writer_calls");
	wall = figure_of(run, "writer_s");
	ck_assert_msg(wall == r.elapsed_s, "writers over %.9f s, the "
		      "measured phase %.9f s", wall, r.elapsed_s);
	ck_assert_msg(calls == 0 || figure_of(run, "writer_calls_per_s") ==
					    calls / r.elapsed_s,
		      "%g calls/s for %g calls over %.9f s",
		      figure_of(run, "writer_calls_per_s"), calls,
		      r.elapsed_s);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

static _Atomic uint32_t writers_seen_stopped;

/* A worker that, once its measured interval is over, waits for the
 * writers to stop before it is through (at most a minute: a failure
 * must not hang the suite). */
static int waits_for_writers(struct faultgen_run *run, unsigned int i)
{
	const struct fg_writers *st = fg_pattern_state(run);
	struct fg_wstat *w = &run->sh->w[i];
	int64_t until = fg_now_ns() + 60 * 1000000000LL;
	struct fg_usage at;
	int ret;

	fg_stat_begin(w, &at, false);
	fg_measure_begin(run);
	ret = fg_touch(run, run->waddr[i], run->wlen[i], run->sh);
	fg_stat_end(w, &at, false);
	fg_measure_end(run);
	while (atomic_load(&st->stopped) < run->attr.writers &&
	       fg_now_ns() < until)
		usleep(1000);
	atomic_store(&writers_seen_stopped, atomic_load(&st->stopped));
	return ret;
}

/* The writers stop as the measured phase ends, not when the workers are
 * through: a worker still busy after its phase sees them stopped, and
 * the calls they count stay those made within the phase. */
START_TEST(writers_stop_when_the_measured_phase_ends)
{
	struct faultgen_attr *a = writers_attr(2, 3, FAULTGEN_WRITER_MPROTECT);
	const struct fg_work work = { .body = waits_for_writers,
				      .barrier = true,
				      .helpers = fg_writers_count,
				      .helper = fg_writer_run };
	const struct fg_writers *st;
	struct faultgen_run *run;
	uint64_t calls;

	ck_assert_int_eq(fg_run_create(a, &run), 0);
	faultgen_attr_free(a);
	ck_assert_int_eq(fg_run_prepare(run), 0);
	ck_assert_int_eq(fg_memory_setup(run), 0);
	ck_assert_int_eq(fg_writers_setup(run), 0);
	atomic_store(&writers_seen_stopped, 0);
	ck_assert_int_eq(fg_workers_run(run, &work), 0);
	ck_assert_uint_eq(atomic_load(&writers_seen_stopped), 3);
	ck_assert_uint_eq(atomic_load(&run->sh->measure_begun), 2);
	ck_assert_uint_eq(atomic_load(&run->sh->measure_ended), 2);
	st = fg_pattern_state(run);
	calls = atomic_load(&st->calls);
	ck_assert_uint_eq(calls % 2, 0);
	ck_assert_uint_eq(atomic_load(&run->sh->cancel), 0);
	fg_run_free(run);
}
END_TEST

/*
 * The ops that change the faulted VMA itself (mprotect-vma, madvise-vma)
 * and munmap on the writer's own region: the workers' faults and pages
 * are as without writers, the writers made calls, the shared VMA is
 * after the run what it was (one VMA, its protection and flags: no
 * PROT_EXEC, no VM_DONTCOPY left), and every page is resident with the
 * value its worker wrote.  One pass, so that the pages stay; 32 MiB, so
 * that the writers get CPU time beside the workers on one CPU.
 */
START_TEST(vma_writers_leave_faults_pages_and_layout)
{
	enum faultgen_writer_op op = (enum faultgen_writer_op)_i;
	struct faultgen_attr *a = writers_attr(2, 2, op);
	struct faultgen_result r;
	struct faultgen_latency l = { .size = sizeof(l) };
	struct faultgen_run *run;
	struct fgc_vma *v;
	char flags[512];
	size_t len, ps = (size_t)fgc_pagesize();
	double calls;
	void *addr;
	int nv, first;

	ck_assert_int_eq(faultgen_attr_set_size(a, 32 * MIB), 0);
	run = run_ok(a);
	result_of(run, &r);
	ck_assert_uint_eq(r.pages, fgc_pages_for(32 * MIB, 2));
	ck_assert_msg(fgc_close(r.pages, r.minflt, 2) && r.faults_agree,
		      "%llu faults for %llu pages",
		      (unsigned long long)r.minflt,
		      (unsigned long long)r.pages);
	calls = figure_of(run, "writer_calls");
	ck_assert_msg(calls > 0 && (uint64_t)calls % 2 == 0, "%g calls",
		      calls);

	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	nv = fgc_maps_read(&v);
	ck_assert_int_eq(fgc_vmas_over(v, nv, addr, len, &first), 1);
	ck_assert_uint_eq(v[first].start, (unsigned long)addr);
	ck_assert_uint_eq(v[first].end, (unsigned long)addr + len);
	ck_assert_str_eq(v[first].perms, "rw-p");
	free(v);
	ck_assert_int_eq(fgc_vmflags(addr, flags, sizeof(flags)), 0);
	ck_assert_msg(!fgc_vmflag_has(flags, "ex") &&
			      !fgc_vmflag_has(flags, "dc"),
		      "VmFlags%s", flags);
	ck_assert_uint_eq(fgc_resident_pages(addr, len), len / ps);
	for (size_t off = 0; off < len; off += ps)
		ck_assert_msg(((volatile char *)addr)[off] == 1,
			      "page %zu holds %d", off / ps,
			      ((volatile char *)addr)[off]);

	ck_assert_int_eq(faultgen_run_latency(run, FAULTGEN_LATENCY_WRITERS,
					      &l),
			 0);
	ck_assert_uint_eq(l.count, (uint64_t)calls);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/*
 * The writers' calls, each timed: as many values as calls counted, the
 * percentiles in order, every call (sample_every 1) of the op's name;
 * its buckets hold them all.  None without writers.
 */
START_TEST(writer_latency_counts_every_call)
{
	enum faultgen_writer_op op = (enum faultgen_writer_op)_i;
	static const char *const calls_of[] = { "mmap", "mprotect", "madvise",
						"munmap", "mprotect",
						"madvise" };
	struct faultgen_attr *a = writers_attr(1, 2, op);
	struct faultgen_latency l = { .size = sizeof(l) };
	struct faultgen_latency_bucket *b;
	struct faultgen_run *run;
	uint64_t in_buckets = 0;
	double calls;
	int n;

	ck_assert_int_eq(faultgen_attr_set_rounds(a, 4, FAULTGEN_ZAP_DONTNEED),
			 0);
	run = run_ok(a);
	calls = figure_of(run, "writer_calls");
	ck_assert_int_eq(faultgen_run_latency(run, FAULTGEN_LATENCY_WRITERS,
					      &l),
			 0);
	ck_assert_uint_eq(l.count, (uint64_t)calls);
	ck_assert_uint_eq(l.sample_every, 1);
	ck_assert(l.per_call);
	ck_assert_str_eq(l.call, calls_of[op]);
	ck_assert_uint_gt(l.call_bytes, 0);
	ck_assert_msg(l.min_ns <= l.p50_ns && l.p50_ns <= l.p99_ns &&
			      l.p99_ns <= l.p999_ns && l.p999_ns <= l.max_ns,
		      "min %g p50 %g p99 %g p99.9 %g max %g", l.min_ns,
		      l.p50_ns, l.p99_ns, l.p999_ns, l.max_ns);
	n = faultgen_run_latency_buckets(run, FAULTGEN_LATENCY_WRITERS, NULL,
					 0);
	ck_assert_int_ge(n, 0);
	b = calloc((size_t)n + 1, sizeof(*b));
	ck_assert_int_eq(faultgen_run_latency_buckets(
				 run, FAULTGEN_LATENCY_WRITERS, b, (size_t)n),
			 n);
	for (int i = 0; i < n; i++)
		in_buckets += b[i].count;
	ck_assert_uint_eq(in_buckets, l.count);
	free(b);
	/* The workers' latency was not asked: still none. */
	ck_assert_int_eq(faultgen_run_latency(run, -1, &l), -ENODATA);
	faultgen_run_free(run);
	faultgen_attr_free(a);

	a = writers_attr(1, 0, op);
	run = run_ok(a);
	ck_assert_int_eq(faultgen_run_latency(run, FAULTGEN_LATENCY_WRITERS,
					      &l),
			 -ENODATA);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* The nice value and policy of each thread of this process. */
static int threads_at(int nice, int policy)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d))) {
		char path[300], buf[1024], *p;
		long f_nice, f_policy;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/stat",
			 e->d_name);
		if (fgc_read_file(path, buf, sizeof(buf)) < 0)
			continue;
		/* After the comm: state is field 3; nice 19, policy 41. */
		p = strrchr(buf, ')');
		if (!p)
			continue;
		f_nice = f_policy = -100;
		p += 2;
		for (int field = 3; field <= 41 && p; field++) {
			if (field == 19)
				f_nice = strtol(p, NULL, 10);
			if (field == 41)
				f_policy = strtol(p, NULL, 10);
			p = strchr(p, ' ');
			if (p)
				p++;
		}
		n += f_nice == nice && f_policy == policy;
	}
	closedir(d);
	return n;
}

static int want_nice, want_policy;
static _Atomic int threads_seen;

/* A worker that, during its measured interval, waits (a minute at most)
 * for the writers' threads to have their priority, and counts them. */
static int counts_writer_priority(struct faultgen_run *run, unsigned int i)
{
	int64_t until = fg_now_ns() + 60 * 1000000000LL;
	int seen = 0;

	fg_measure_begin(run);
	while ((seen = threads_at(want_nice, want_policy)) <
		       (int)run->attr.writers &&
	       fg_now_ns() < until)
		usleep(1000);
	if (i == 0)
		atomic_store(&threads_seen, seen);
	fg_measure_end(run);
	return 0;
}

/* Runs writers with workers that count the threads at the priority. */
static int priority_run(struct faultgen_attr *a, int nice, int policy)
{
	const struct fg_work work = { .body = counts_writer_priority,
				      .barrier = true,
				      .helpers = fg_writers_count,
				      .helper = fg_writer_run };
	struct faultgen_run *run;
	int ret;

	want_nice = nice;
	want_policy = policy;
	atomic_store(&threads_seen, -1);
	ck_assert_int_eq(fg_run_create(a, &run), 0);
	ck_assert_int_eq(fg_run_prepare(run), 0);
	ck_assert_int_eq(fg_memory_setup(run), 0);
	ck_assert_int_eq(fg_writers_setup(run), 0);
	ret = fg_workers_run(run, &work);
	fg_run_free(run);
	return ret;
}

static void set_text(struct faultgen_attr *a, const char *name,
		     const char *text, int want)
{
	struct faultgen_value v = { .type = FAULTGEN_TYPE_TEXT };

	v.v.text = text;
	ck_assert_int_eq(faultgen_attr_set_value(a, name, &v), want);
}

static void set_uint(struct faultgen_attr *a, const char *name,
		     uint64_t n, int want)
{
	struct faultgen_value v = { .type = FAULTGEN_TYPE_UINT };

	v.v.number = n;
	ck_assert_int_eq(faultgen_attr_set_value(a, name, &v), want);
}

/* Raising a thread's priority: privileged, or within RLIMIT_NICE. */
static bool may_raise_nice(int nice)
{
	struct rlimit rl;

	return fgc_is_root() ||
	       (getrlimit(RLIMIT_NICE, &rl) == 0 &&
		(rlim_t)(20 - nice) <= rl.rlim_cur);
}

/*
 * writer-nice: values of -20 to 19 taken, others refused; each writer
 * thread has the nice value while the workers fault.  Below the
 * caller's without the privilege: the run fails with -EPERM.
 */
START_TEST(writer_nice_is_applied_or_refused)
{
	struct faultgen_attr *a = writers_attr(2, 2, FAULTGEN_WRITER_MPROTECT);
	struct faultgen_run *run = NULL;

	set_text(a, "writer-nice", "-21", -EINVAL);
	set_text(a, "writer-nice", "20", -EINVAL);
	set_text(a, "writer-nice", "", -EINVAL);
	set_text(a, "writer-nice", "3x", -EINVAL);
	set_text(a, "writer-nice", "7", 0);
	ck_assert_int_eq(priority_run(a, 7, SCHED_OTHER), 0);
	ck_assert_int_eq(atomic_load(&threads_seen), 2);

	set_text(a, "writer-nice", "-5", 0);
	if (may_raise_nice(-5)) {
		ck_assert_int_eq(priority_run(a, -5, SCHED_OTHER), 0);
		ck_assert_int_eq(atomic_load(&threads_seen), 2);
	} else {
		ck_assert_int_eq(faultgen_run_new(a, &run), -EPERM);
		ck_assert_ptr_null(run);
	}
	faultgen_attr_free(a);
}
END_TEST

/* writer-fifo: 1 to 99 taken (0: none); each writer thread SCHED_FIFO
 * where permitted, else the run fails with -EPERM. */
START_TEST(writer_fifo_is_applied_or_refused)
{
	struct faultgen_attr *a = writers_attr(1, 1, FAULTGEN_WRITER_MPROTECT);
	struct faultgen_run *run = NULL;
	struct rlimit rl;
	bool may = fgc_is_root() ||
		   (getrlimit(RLIMIT_RTPRIO, &rl) == 0 && rl.rlim_cur >= 1);

	set_uint(a, "writer-fifo", 100, -EINVAL);
	set_uint(a, "writer-fifo", 1, 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, MIB), 0);
	if (may) {
		ck_assert_int_eq(priority_run(a, 0, SCHED_FIFO), 0);
		ck_assert_int_eq(atomic_load(&threads_seen), 1);
	} else {
		ck_assert_int_eq(faultgen_run_new(a, &run), -EPERM);
		ck_assert_ptr_null(run);
	}
	faultgen_attr_free(a);
}
END_TEST

/* The VMA ops are refused on a caller's region: they would change its
 * protection and flags. */
START_TEST(vma_writers_refused_on_a_callers_region)
{
	struct faultgen_attr *a = writers_attr(1, 1,
					       FAULTGEN_WRITER_MPROTECT_VMA);
	size_t len = 16 * (size_t)fgc_pagesize();
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	ck_assert_int_eq(faultgen_attr_set_region(a, p, len), 0);
	FGC_ASSERT_CONFLICT_WITH(a, FAULTGEN_SETTING_WRITERS,
				 FAULTGEN_SETTING_REGION);
	ck_assert_int_eq(faultgen_attr_set_writers(a, 1,
						   FAULTGEN_WRITER_MPROTECT),
			 0);
	ck_assert_int_eq(faultgen_attr_check(a, NULL), 0);
	munmap(p, len);
	faultgen_attr_free(a);
}
END_TEST

/*
 * A munmap writer whose region another thread mapped into between its
 * two calls (lost): the run's release unmaps the rest of the
 * reservation and leaves that mapping alone.
 */
START_TEST(release_leaves_a_mapping_made_in_a_munmap_hole)
{
	struct faultgen_attr *a = writers_attr(1, 2, FAULTGEN_WRITER_MUNMAP);
	size_t len = 16 * (size_t)fgc_pagesize();
	struct fg_writers *st;
	struct faultgen_run *run;
	struct fgc_vma *v;
	char *resv, *hole;
	size_t resv_len;
	void *p;
	int nv, first;

	ck_assert_int_eq(fg_run_create(a, &run), 0);
	faultgen_attr_free(a);
	ck_assert_int_eq(fg_run_prepare(run), 0);
	ck_assert_int_eq(fg_memory_setup(run), 0);
	ck_assert_int_eq(fg_writers_setup(run), 0);
	st = fg_pattern_state(run);
	resv = st->resv.raw;
	resv_len = st->resv.raw_len;
	/* Writer 1's hole, taken by another mapping. */
	hole = st->start + len + (size_t)fgc_pagesize();
	ck_assert_int_eq(munmap(hole, len), 0);
	p = mmap(hole, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
					       MAP_FIXED_NOREPLACE, -1, 0);
	ck_assert_ptr_eq(p, hole);
	st->slots[1].lost = true;
	fg_run_free(run);

	nv = fgc_maps_read(&v);
	ck_assert_int_eq(fgc_vmas_over(v, nv, hole, len, &first), 1);
	ck_assert_str_eq(v[first].perms, "r--p");
	/* The rest is gone, unless a sanitizer's allocator has mapped the
	 * freed range for itself meanwhile. */
	if (!fgc_under_sanitizer()) {
		ck_assert_int_eq(fgc_vmas_over(v, nv, resv,
					       (size_t)(hole - resv), &first),
				 0);
		ck_assert_int_eq(fgc_vmas_over(v, nv, hole + len,
					       resv_len -
						       (size_t)(hole + len - resv),
					       &first),
				 0);
	}
	free(v);
	munmap(hole, len);
}
END_TEST

/*
 * A munmap writer whose hole another mapping took goes on in a fresh
 * region: the run completes, counts the move, and leaves that mapping
 * as it was.
 */
START_TEST(munmap_writer_goes_on_where_its_hole_was_taken)
{
	struct faultgen_attr *a = writers_attr(1, 1, FAULTGEN_WRITER_MUNMAP);
	size_t len = 16 * (size_t)fgc_pagesize();
	struct faultgen_run *run;
	struct fgc_vma *v;
	void *hole;
	int nv, first;

	ck_assert_int_eq(faultgen_attr_set_rounds(a, 3, FAULTGEN_ZAP_DONTNEED),
			 0);
	atomic_store(&taken, NULL);
	atomic_store(&take_len, len);
	run = run_ok(a);
	atomic_store(&take_len, 0);
	hole = atomic_load(&taken);
	if (!hole) {
		/* The workers were through before the writer's first
		 * cycle ended: nothing was taken. */
		ck_assert_double_eq(figure_of(run, "writer_moves"), 0);
		faultgen_run_free(run);
		faultgen_attr_free(a);
		return;
	}
	ck_assert_double_eq(figure_of(run, "writer_moves"), 1);
	faultgen_run_free(run);
	faultgen_attr_free(a);
	nv = fgc_maps_read(&v);
	ck_assert_int_eq(fgc_vmas_over(v, nv, hole, len, &first), 1);
	ck_assert_str_eq(v[first].perms, "r--p");
	free(v);
	ck_assert_int_eq(munmap(hole, len), 0);
}
END_TEST

/* Only the munmap writer has a figure of its moves. */
START_TEST(only_the_munmap_writer_counts_moves)
{
	struct faultgen_attr *a = writers_attr(1, 1, FAULTGEN_WRITER_MPROTECT);
	struct faultgen_run *run = run_ok(a);

	ck_assert_double_eq(fgc_figure_or(run, "writer_moves", -1), -1);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("writers");
	TCase *tc = tcase_create("attr");

	tcase_add_test(tc, setter_takes_counts_and_ops_and_refuses_others);
	tcase_add_test(tc, only_the_shared_vma_reads_writers);
	tcase_add_test(tc, writers_refused_beside_processes);
	tcase_add_test(tc, vma_writers_refused_on_a_callers_region);
	suite_add_tcase(s, tc);
	tc = tcase_create("run");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, no_writers_is_the_plain_run);
	tcase_add_loop_test(tc, writers_count_calls_apart_from_the_faults,
			    FAULTGEN_WRITER_MMAP, FAULTGEN_WRITER_MADVISE + 1);
	tcase_add_test(tc, writers_window_is_the_measured_phase);
	tcase_add_test(tc, writers_stop_when_the_measured_phase_ends);
	tcase_add_loop_test(tc, vma_writers_leave_faults_pages_and_layout,
			    FAULTGEN_WRITER_MUNMAP,
			    FAULTGEN_WRITER_MADVISE_VMA + 1);
	tcase_add_loop_test(tc, writer_latency_counts_every_call,
			    FAULTGEN_WRITER_MMAP,
			    FAULTGEN_WRITER_MADVISE_VMA + 1);
	tcase_add_test(tc, release_leaves_a_mapping_made_in_a_munmap_hole);
	tcase_add_test(tc, munmap_writer_goes_on_where_its_hole_was_taken);
	tcase_add_test(tc, only_the_munmap_writer_counts_moves);
	tcase_add_test(tc, writer_nice_is_applied_or_refused);
	tcase_add_test(tc, writer_fifo_is_applied_or_refused);
	suite_add_tcase(s, tc);
	return fgc_main(s);
}
