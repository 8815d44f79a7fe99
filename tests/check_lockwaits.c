// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * check_lockwaits.c - the mmap_lock waits (faultgen_run_lock_waits): ring
 * records decoded, recorded event streams paired into waits (a wait only
 * inside an mmap_lock acquisition, to the end of the same lock, readers
 * and writers apart, within the measured window, cut by a lost record),
 * their percentiles and decades against hand-worked figures, the sums
 * over workers and helpers, the calls' errors; and a real run with a
 * writer (root; skipped where the tracepoints may not be read).
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "check-util.h"

#include <inttypes.h>
#include <linux/perf_event.h>

#include "internal.h"

#define A 0x1000 /* the mmap_lock's address in the streams */
#define B 0x2000 /* another lock's */

static struct fg_wait_event ev(unsigned int kind, int64_t t, uint64_t lock,
			       unsigned int flags)
{
	return (struct fg_wait_event){ .kind = kind, .t = t, .lock = lock,
				       .flags = flags };
}

#define RS(t) ev(FG_WAIT_READ_START, t, 0, 0)
#define WS(t) ev(FG_WAIT_WRITE_START, t, 0, 0)
#define RET(t) ev(FG_WAIT_RETURNED, t, 0, 0)
#define BR(t, l) ev(FG_WAIT_BEGIN, t, l, FG_LCB_READ)
#define BW(t, l) ev(FG_WAIT_BEGIN, t, l, FG_LCB_WRITE)
#define END(t, l) ev(FG_WAIT_END, t, l, 0)
#define LOST(n) ev(FG_WAIT_LOST, 0, n, 0)
#define FAIL(t) ev(FG_WAIT_FAILED, t, 0, 0)
#define PF(t) ev(FG_WAIT_FAULT, t, 0, 0)
#define SYS(t) ev(FG_WAIT_SYSCALL, t, 0, 0)
#define N(a) (sizeof(a) / sizeof((a)[0]))

static struct fg_wait_stat *stat_new(void)
{
	struct fg_wait_stat *s = malloc(sizeof(*s));

	ck_assert_ptr_nonnull(s);
	fg_wait_stat_init(s);
	return s;
}

static void feed(struct fg_wait_stat *s, const struct fg_wait_event *e,
		 size_t n, int64_t from, int64_t to)
{
	struct fg_wait_pairing p;

	fg_wait_pairing_init(&p);
	fg_wait_feed(&p, e, n, from, to, s);
}

START_TEST(a_read_wait_is_begin_to_end_inside_an_acquisition)
{
	/* A read acquisition that waited 1.5 us; a spinlock's contention
	 * inside it (another address) and a rwsem's wait outside any
	 * acquisition (i_mmap, anon_vma) are not the mmap_lock's. */
	const struct fg_wait_event e[] = {
		BR(10, B),   END(60, B),
		RS(100),     BR(200, A), ev(FG_WAIT_BEGIN, 300, B, 1),
		END(400, B), END(1700, A), RET(1800),
		RS(2000),    RET(2100),
	};
	struct fg_wait_stat *s = stat_new();

	feed(s, e, N(e), 0, INT64_MAX);
	ck_assert_uint_eq(s->side[0].acquisitions, 2);
	ck_assert_uint_eq(s->side[0].h.count, 1);
	ck_assert_uint_eq(s->side[0].h.max, 1500);
	ck_assert_uint_eq(s->side[0].h.sum, 1500);
	ck_assert_uint_eq(s->side[0].decades[1], 1);
	ck_assert_uint_eq(s->side[1].acquisitions, 0);
	ck_assert_uint_eq(s->side[1].h.count, 0);
	ck_assert_uint_eq(s->lost, 0);
	ck_assert_uint_eq(s->unended, 0);
	free(s);
}
END_TEST

START_TEST(writers_are_apart_by_the_flags)
{
	/* A write acquisition that waited 25 us, one that waited 2 ms. */
	const struct fg_wait_event e[] = {
		WS(0),	      BW(1000, A), END(26000, A), RET(26100),
		WS(30000), BW(40000, A), END(2040000, A), RET(2040100),
		RS(3000000), RET(3000100),
	};
	struct fg_wait_stat *s = stat_new();

	feed(s, e, N(e), 0, INT64_MAX);
	ck_assert_uint_eq(s->side[1].acquisitions, 2);
	ck_assert_uint_eq(s->side[1].h.count, 2);
	ck_assert_uint_eq(s->side[1].h.sum, 25000 + 2000000);
	ck_assert_uint_eq(s->side[1].decades[2], 1); /* 10-100us */
	ck_assert_uint_eq(s->side[1].decades[4], 1); /* 1-10ms */
	ck_assert_uint_eq(s->side[0].acquisitions, 1);
	ck_assert_uint_eq(s->side[0].h.count, 0);
	free(s);
}
END_TEST

START_TEST(a_lost_record_is_counted_and_cuts_the_wait)
{
	/* The wait begun before the loss has no end that can be trusted:
	 * unended; the END after the loss closes nothing.  A wait after
	 * the next acquisition counts again. */
	const struct fg_wait_event e[] = {
		RS(0),	 BR(10, A),  LOST(7),    END(5000, A), RET(5100),
		RS(6000), BR(6100, A), END(6600, A), RET(6700),
		RS(7000), BR(7100, A), RS(9000),     RET(9100),
	};
	struct fg_wait_stat *s = stat_new();

	feed(s, e, N(e), 0, INT64_MAX);
	ck_assert_uint_eq(s->lost, 7);
	/* The one cut by the loss, the one whose acquisition started
	 * again without its end. */
	ck_assert_uint_eq(s->unended, 2);
	ck_assert_uint_eq(s->side[0].h.count, 1);
	ck_assert_uint_eq(s->side[0].h.max, 500);
	ck_assert_uint_eq(s->side[0].decades[0], 1);
	ck_assert_uint_eq(s->side[0].acquisitions, 4);
	free(s);
}
END_TEST

START_TEST(only_waits_begun_in_the_window_count)
{
	/* Window [1000, 5000]: the first acquisition and its wait began
	 * before it, the last after it. */
	const struct fg_wait_event e[] = {
		RS(500),  BR(600, A),  END(1600, A), RET(1700),
		RS(2000), BR(2100, A), END(2300, A), RET(2400),
		WS(4900), BW(5000, A), END(9000, A), RET(9100),
		RS(6000), BR(6100, A), END(6200, A), RET(6300),
	};
	struct fg_wait_stat *s = stat_new();

	feed(s, e, N(e), 1000, 5000);
	ck_assert_uint_eq(s->side[0].acquisitions, 1);
	ck_assert_uint_eq(s->side[0].h.count, 1);
	ck_assert_uint_eq(s->side[0].h.max, 200);
	ck_assert_uint_eq(s->side[1].acquisitions, 1);
	ck_assert_uint_eq(s->side[1].h.count, 1);
	ck_assert_uint_eq(s->side[1].h.max, 4000);
	free(s);
}
END_TEST

/* A stream fed in two pieces pairs as one: the pairing carries over. */
START_TEST(the_pairing_carries_over_between_drains)
{
	const struct fg_wait_event e1[] = { RS(0), BR(100, A) };
	const struct fg_wait_event e2[] = { END(3100, A), RET(3200) };
	struct fg_wait_stat *s = stat_new();
	struct fg_wait_pairing p;

	fg_wait_pairing_init(&p);
	fg_wait_feed(&p, e1, N(e1), 0, INT64_MAX, s);
	fg_wait_feed(&p, e2, N(e2), 0, INT64_MAX, s);
	ck_assert_uint_eq(s->side[0].h.count, 1);
	ck_assert_uint_eq(s->side[0].h.max, 3000);
	free(s);
}
END_TEST

/* ---- user faults and their acquisitions, one by one ---------------- */

/* s's faults, those that took mmap_lock, retries, the most of one. */
static void faults_are(const struct fg_wait_stat *s, uint64_t faults,
		       uint64_t read, uint64_t retries, uint64_t most)
{
	ck_assert_uint_eq(s->faults, faults);
	ck_assert_uint_eq(s->faults_read, read);
	ck_assert_uint_eq(s->retries, retries);
	ck_assert_uint_eq(s->most, most);
}

START_TEST(a_fault_with_one_acquisition_fell_back_without_retry)
{
	/* The per-VMA lock failed: one read acquisition of mmap_lock in
	 * the fault's window, then the next fault begins. */
	const struct fg_wait_event e[] = {
		PF(100), RS(110), RET(120), PF(200),
	};
	struct fg_wait_stat *s = stat_new();
	struct fg_wait_pairing p;

	fg_wait_pairing_init(&p);
	fg_wait_feed(&p, e, N(e), 0, INT64_MAX, s);
	/* The last fault's window is still open: not counted yet. */
	faults_are(s, 1, 1, 0, 1);
	ck_assert_uint_eq(s->side[0].acquisitions, 1);
	free(s);
}
END_TEST

START_TEST(a_fault_with_two_acquisitions_is_one_retry)
{
	/* A fault under mmap_lock that waited for I/O, dropped the lock
	 * and took it again (FAULT_FLAG_TRIED): no second page_fault_user.
	 * The second fault took it three times: two retries more.  The
	 * system call ends the second one's window. */
	const struct fg_wait_event e[] = {
		PF(100),  RS(110),	RET(120), RS(5000), RET(5010),
		PF(6000), RS(6010),	RET(6020), RS(7000), BR(7010, A),
		END(7500, A), RET(7510), RS(8000), RET(8010), SYS(9000),
	};
	struct fg_wait_stat *s = stat_new();

	feed(s, e, N(e), 0, INT64_MAX);
	faults_are(s, 2, 2, 1 + 2, 3);
	ck_assert_uint_eq(s->side[0].acquisitions, 5);
	ck_assert_uint_eq(s->side[0].h.count, 1);
	free(s);
}
END_TEST

START_TEST(a_failed_trylock_then_the_blocking_lock_is_one_acquisition)
{
	/* lock_mm_and_find_vma: mmap_read_trylock fails, then
	 * mmap_read_lock_killable waits and takes it.  Two starts, one
	 * acquisition: no retry. */
	const struct fg_wait_event e[] = {
		PF(100),  RS(110),  FAIL(111), RS(120), BR(130, A),
		END(900, A), RET(910), SYS(1000),
		/* A fault whose only attempt failed (killed): none. */
		PF(2000), RS(2010), FAIL(2020), SYS(3000),
	};
	struct fg_wait_stat *s = stat_new();

	feed(s, e, N(e), 0, INT64_MAX);
	faults_are(s, 2, 1, 0, 1);
	/* Started: the trylock and the blocking lock of the first, the
	 * failed attempt of the second. */
	ck_assert_uint_eq(s->side[0].acquisitions, 3);
	ck_assert_uint_eq(s->side[0].h.count, 1);
	free(s);
}
END_TEST

START_TEST(a_system_calls_acquisitions_belong_to_no_fault)
{
	/* A fallback fault, then the zap's madvise (or --cold's mincore)
	 * takes mmap_lock for reading twice, a writer's mprotect for
	 * writing, before the next fault on the per-VMA lock. */
	const struct fg_wait_event e[] = {
		PF(100),  RS(110),  RET(120), SYS(200), RS(210),  RET(220),
		RS(230),  RET(240), SYS(300), WS(310),	RET(320), PF(400),
		SYS(500),
	};
	struct fg_wait_stat *s = stat_new();

	feed(s, e, N(e), 0, INT64_MAX);
	faults_are(s, 2, 1, 0, 1);
	ck_assert_uint_eq(s->side[0].acquisitions, 3);
	ck_assert_uint_eq(s->side[1].acquisitions, 1);
	free(s);
}
END_TEST

START_TEST(a_lost_record_ends_the_faults_window)
{
	/* The records lost in a fault's window (its second acquisition's,
	 * or a sys_enter's and a new fault's): what follows the loss until
	 * the next fault is nobody's.  The counts are lower bounds, the
	 * loss counted. */
	const struct fg_wait_event e[] = {
		PF(100),  RS(110),  RET(120), LOST(5),	RS(5000), RET(5010),
		RS(5100), RET(5110), PF(6000), RS(6010), RET(6020), RS(7000),
		RET(7010), SYS(8000),
	};
	struct fg_wait_stat *s = stat_new();

	feed(s, e, N(e), 0, INT64_MAX);
	faults_are(s, 2, 2, 1, 2);
	ck_assert_uint_eq(s->lost, 5);
	free(s);
}
END_TEST

START_TEST(a_fault_on_the_per_vma_lock_takes_no_mmap_lock)
{
	/* Faults on the per-VMA lock fire page_fault_user alone. */
	const struct fg_wait_event e[] = {
		PF(100), PF(200), PF(300), SYS(400), PF(500),
	};
	struct fg_wait_stat *s = stat_new();
	struct fg_wait_pairing p;

	fg_wait_pairing_init(&p);
	fg_wait_feed(&p, e, N(e), 0, INT64_MAX, s);
	faults_are(s, 3, 0, 0, 0);
	ck_assert_uint_eq(s->side[0].acquisitions, 0);
	free(s);
}
END_TEST

START_TEST(a_faults_window_carries_over_and_counts_where_it_began)
{
	/* Window [1000, 5000]: the fault at 900 is before it, the one at
	 * 4900 in it with its retry after 5000, the one at 6000 after it.
	 * The stream comes in two drains, the second the last. */
	const struct fg_wait_event e1[] = {
		PF(900), RS(910), RET(920), PF(2000), PF(4900), RS(4910),
	};
	const struct fg_wait_event e2[] = {
		RET(4920), RS(5100), RET(5110), PF(6000), RS(6010), RET(6020),
		RS(6100), RET(6110),
	};
	struct fg_wait_stat *s = stat_new();
	struct fg_wait_pairing p;

	fg_wait_pairing_init(&p);
	fg_wait_feed(&p, e1, N(e1), 1000, INT64_MAX, s);
	fg_wait_feed(&p, e2, N(e2), 1000, 5000, s);
	faults_are(s, 2, 1, 1, 2);
	free(s);
}
END_TEST

/* A fake run of two workers and a helper, their stats given. */
struct fake {
	struct faultgen_run run;
	struct fg_wait_stat w[2], helper;
};

static void record_reads(struct fg_wait_stat *s, uint64_t ns,
			 unsigned int n)
{
	struct fg_wait_pairing p;

	fg_wait_pairing_init(&p);
	for (unsigned int k = 0; k < n; k++) {
		const struct fg_wait_event e[] = {
			RS(0), BR(1000, A), END(1000 + (int64_t)ns, A), RET(0),
		};

		fg_wait_feed(&p, e, N(e), 0, INT64_MAX, s);
	}
}

static struct fake *fake_run(void)
{
	struct fake *f = calloc(1, sizeof(*f));

	ck_assert_ptr_nonnull(f);
	f->run.attr.nr_workers = 2;
	f->run.waits = f->w;
	f->run.wait_helper_stats = &f->helper;
	f->run.wait_nr_helpers = 1;
	fg_wait_stat_init(&f->w[0]);
	fg_wait_stat_init(&f->w[1]);
	fg_wait_stat_init(&f->helper);
	/* 1000 read waits in all: 998 of 511 ns (a bucket's top: exact),
	 * one of 50175 ns (another's), one of 5 ms. */
	record_reads(&f->w[0], 511, 600);
	record_reads(&f->w[1], 511, 398);
	record_reads(&f->w[1], 50175, 1);
	record_reads(&f->w[0], 5000000, 1);
	f->w[1].lost = 3;
	f->helper.side[1].acquisitions = 9;
	f->w[0].faults = 100;
	f->w[0].faults_read = 10;
	f->w[0].retries = 4;
	f->w[0].most = 3;
	f->w[1].faults = 50;
	f->w[1].faults_read = 7;
	f->w[1].retries = 6;
	f->w[1].most = 5;
	f->helper.faults = 2;
	return f;
}

START_TEST(all_workers_merge_and_percentiles_are_nearest_rank)
{
	struct faultgen_lock_waits lw;
	struct fake *f = fake_run();

	ck_assert_int_eq(fg_run_lock_waits(&f->run, FAULTGEN_LOCK_WORKERS,
					   &lw),
			 0);
	ck_assert_uint_eq(lw.threads, 2);
	ck_assert_uint_eq(lw.lost, 3);
	ck_assert_uint_eq(lw.read.acquisitions, 1000);
	ck_assert_uint_eq(lw.read.waits, 1000);
	ck_assert_uint_eq(lw.read.total_ns, 998 * 511 + 50175 + 5000000);
	/* Ranks 500 and 990 are 511 ns, rank 999 the 50175 ns one. */
	ck_assert_uint_eq(lw.read.p50_ns, 511);
	ck_assert_uint_eq(lw.read.p99_ns, 511);
	ck_assert_uint_eq(lw.read.p999_ns, 50175);
	ck_assert_uint_eq(lw.read.max_ns, 5000000);
	ck_assert_uint_eq(lw.read.buckets[0], 998);
	ck_assert_uint_eq(lw.read.buckets[1], 0);
	ck_assert_uint_eq(lw.read.buckets[2], 1);
	ck_assert_uint_eq(lw.read.buckets[3], 0);
	ck_assert_uint_eq(lw.read.buckets[4], 1);
	ck_assert_uint_eq(lw.write.waits, 0);
	ck_assert_uint_eq(lw.write.max_ns, 0);
	ck_assert_uint_eq(lw.faults, 150);
	ck_assert_uint_eq(lw.faults_mmap_read, 17);
	ck_assert_uint_eq(lw.retries, 10);
	ck_assert_uint_eq(lw.most_in_fault, 5);
	/* One worker: its own. */
	ck_assert_int_eq(fg_run_lock_waits(&f->run, 1, &lw), 0);
	ck_assert_uint_eq(lw.threads, 1);
	ck_assert_uint_eq(lw.read.waits, 399);
	ck_assert_uint_eq(lw.read.max_ns, 50175);
	ck_assert_uint_eq(lw.faults, 50);
	ck_assert_uint_eq(lw.most_in_fault, 5);
	ck_assert_int_eq(fg_run_lock_waits(&f->run, 0, &lw), 0);
	ck_assert_uint_eq(lw.retries, 4);
	ck_assert_uint_eq(lw.most_in_fault, 3);
	/* The helpers apart. */
	ck_assert_int_eq(fg_run_lock_waits(&f->run, FAULTGEN_LOCK_HELPERS,
					   &lw),
			 0);
	ck_assert_uint_eq(lw.threads, 1);
	ck_assert_uint_eq(lw.write.acquisitions, 9);
	ck_assert_uint_eq(lw.read.waits, 0);
	ck_assert_uint_eq(lw.faults, 2);
	ck_assert_uint_eq(lw.retries, 0);
	/* Errors: out of range, a worker without its ring, not asked. */
	ck_assert_int_eq(fg_run_lock_waits(&f->run, 2, &lw), -ERANGE);
	ck_assert_int_eq(fg_run_lock_waits(&f->run, -3, &lw), -ERANGE);
	f->w[1].error = -EMFILE;
	ck_assert_int_eq(fg_run_lock_waits(&f->run, 0, &lw), 0);
	ck_assert_int_eq(fg_run_lock_waits(&f->run, -1, &lw), -EMFILE);
	f->run.wait_status = -EACCES;
	ck_assert_int_eq(fg_run_lock_waits(&f->run, 0, &lw), -EACCES);
	free(f);
}
END_TEST

START_TEST(records_decode_by_their_sample_id)
{
	const uint64_t ids[FG_WAIT_EVENTS] = { 11, 12, 13, 14, 15, 16, 17, 18 };
	/* A contention_begin: header, id, time, raw size 20, raw (8 bytes
	 * of common fields, lock_addr, flags), padded to 56. */
	uint64_t rec[7] = { 0 };
	struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, 52 };
	uint32_t raw = 20, flags = FG_LCB_WRITE;
	uint64_t lock = 0xffff888012345678ULL, lost[3];
	struct fg_wait_event e;

	memcpy(rec, &h, sizeof(h));
	rec[1] = 14;
	rec[2] = 123456789;
	memcpy((char *)rec + 24, &raw, 4);
	memcpy((char *)rec + 28 + 8, &lock, 8);
	memcpy((char *)rec + 28 + 16, &flags, 4);
	ck_assert_int_eq(fg_wait_decode(rec, 52, ids, &e), 1);
	ck_assert_uint_eq(e.kind, FG_WAIT_BEGIN);
	ck_assert_int_eq(e.t, 123456789);
	ck_assert_uint_eq(e.lock, lock);
	ck_assert_uint_eq(e.flags, FG_LCB_WRITE);
	/* Cut short of its raw record. */
	ck_assert_int_eq(fg_wait_decode(rec, 40, ids, &e), -EIO);
	/* A start_locking: no raw record. */
	rec[1] = 12;
	ck_assert_int_eq(fg_wait_decode(rec, 24, ids, &e), 1);
	ck_assert_uint_eq(e.kind, FG_WAIT_WRITE_START);
	/* A page_fault_user, a sys_enter, a failed return: no raw record
	 * asked. */
	rec[1] = 17;
	ck_assert_int_eq(fg_wait_decode(rec, 24, ids, &e), 1);
	ck_assert_uint_eq(e.kind, FG_WAIT_FAULT);
	ck_assert_int_eq(e.t, 123456789);
	rec[1] = 18;
	ck_assert_int_eq(fg_wait_decode(rec, 24, ids, &e), 1);
	ck_assert_uint_eq(e.kind, FG_WAIT_SYSCALL);
	rec[1] = 16;
	ck_assert_int_eq(fg_wait_decode(rec, 24, ids, &e), 1);
	ck_assert_uint_eq(e.kind, FG_WAIT_FAILED);
	/* Another event's id: of no concern. */
	rec[1] = 99;
	ck_assert_int_eq(fg_wait_decode(rec, 24, ids, &e), 0);
	/* A lost record: {header, id, lost}. */
	h = (struct perf_event_header){ PERF_RECORD_LOST, 0, 24 };
	memcpy(lost, &h, sizeof(h));
	lost[1] = 11;
	lost[2] = 42;
	ck_assert_int_eq(fg_wait_decode(lost, 24, ids, &e), 1);
	ck_assert_uint_eq(e.kind, FG_WAIT_LOST);
	ck_assert_uint_eq(e.lock, 42);
	ck_assert_int_eq(fg_wait_decode(lost, 4, ids, &e), -EIO);
}
END_TEST

START_TEST(the_setting_reads_back_and_a_run_without_it_has_none)
{
	struct faultgen_lock_waits lw = { .size = sizeof(lw) };
	struct faultgen_value v = { .type = FAULTGEN_TYPE_BOOL, .v.boolean = 1 };
	struct faultgen_attr *a;
	struct faultgen_run *run;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_get_lock_waits(a), 0);
	ck_assert_int_eq(faultgen_attr_get_lock_waits(NULL), 0);
	ck_assert_int_eq(faultgen_attr_set_lock_waits(NULL, 1), -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_lock_waits(a, 7), 0);
	ck_assert_int_eq(faultgen_attr_get_lock_waits(a), 1);
	ck_assert_int_eq(faultgen_attr_set_lock_waits(a, 0), 0);
	ck_assert_int_eq(faultgen_attr_set_value(a, "lock-waits", &v), 0);
	ck_assert_int_eq(faultgen_attr_get_lock_waits(a), 1);
	ck_assert_int_eq(faultgen_attr_set_lock_waits(a, 0), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 1 << 20), 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	ck_assert_int_eq(faultgen_run_lock_waits(run, -1, &lw), -ENODATA);
	ck_assert_int_eq(faultgen_run_lock_waits(NULL, -1, &lw), -EINVAL);
	ck_assert_int_eq(faultgen_run_lock_waits(run, -1, NULL), -EINVAL);
	lw.size = offsetof(struct faultgen_lock_waits, write);
	ck_assert_int_eq(faultgen_run_lock_waits(run, -1, &lw), -EINVAL);
	/* A caller built before the faults' members. */
	lw.size = offsetof(struct faultgen_lock_waits, faults);
	ck_assert_int_eq(faultgen_run_lock_waits(run, -1, &lw), -ENODATA);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

static uint64_t bucket_sum(const struct faultgen_lock_wait *w)
{
	uint64_t n = 0;

	for (int b = 0; b < FAULTGEN_LOCK_WAIT_BUCKETS; b++)
		n += w->buckets[b];
	return n;
}

/* The faults one by one agree with each other and the acquisitions. */
static void faults_consistent(const struct faultgen_lock_waits *lw)
{
	ck_assert_uint_le(lw->faults_mmap_read, lw->faults);
	ck_assert_uint_le(lw->faults_mmap_read + lw->retries,
			  lw->read.acquisitions);
	ck_assert_uint_eq(lw->most_in_fault == 0, lw->faults_mmap_read == 0);
	ck_assert_uint_le(lw->most_in_fault, lw->retries + 1);
}

static void consistent(const struct faultgen_lock_wait *w)
{
	ck_assert_uint_le(w->waits, w->acquisitions);
	ck_assert_uint_eq(bucket_sum(w), w->waits);
	ck_assert_uint_le(w->p50_ns, w->p99_ns);
	ck_assert_uint_le(w->p99_ns, w->p999_ns);
	ck_assert_uint_le(w->p999_ns, w->max_ns);
	ck_assert_uint_le(w->max_ns, w->total_ns);
}

/* Two faulting workers and an mmap writer: each of the writer's calls
 * takes the mmap_lock for writing; the figures agree with each other. */
START_TEST(a_run_with_a_writer_times_its_write_acquisitions)
{
	struct faultgen_lock_waits lw = { .size = sizeof(lw) };
	struct faultgen_attr *a;
	struct faultgen_run *run;
	int ret;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_lock_waits(a, 1), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 8 << 20), 0);
	ck_assert_int_eq(faultgen_attr_set_workers(a, 2, FAULTGEN_THREADS),
			 0);
	ck_assert_int_eq(faultgen_attr_set_oversubscribe(a, 1), 0);
	ck_assert_int_eq(faultgen_attr_set_duration(a, 0.3,
						    FAULTGEN_ZAP_DONTNEED),
			 0);
	ck_assert_int_eq(faultgen_attr_set_writers(a, 1,
						   FAULTGEN_WRITER_MMAP),
			 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	ret = faultgen_run_lock_waits(run, FAULTGEN_LOCK_WORKERS, &lw);
	if (!fgc_is_root() || access("/sys/kernel/tracing/events", R_OK) < 0)
		ck_assert_msg(ret == -EACCES || ret == -ENOENT, "%d", ret);
	if (ret) {
		faultgen_run_free(run);
		faultgen_attr_free(a);
		FGC_SKIP("the lock tracepoints may not be read: %s",
			 faultgen_strerror(ret));
	}
	ck_assert_uint_eq(lw.threads, 2);
	consistent(&lw.read);
	consistent(&lw.write);
	/* Each worker faults its 1024 pages a round at least once. */
	ck_assert_uint_ge(lw.faults, 2048);
	faults_consistent(&lw);
	ck_assert_int_eq(faultgen_run_lock_waits(run, 0, &lw), 0);
	consistent(&lw.read);
	ck_assert_uint_ge(lw.faults, 1024);
	faults_consistent(&lw);
	/* A caller built before the faults' members gets those before. */
	memset(&lw, 0xa5, sizeof(lw));
	lw.size = offsetof(struct faultgen_lock_waits, faults);
	ck_assert_int_eq(faultgen_run_lock_waits(run, 0, &lw), 0);
	ck_assert_uint_eq(lw.threads, 1);
	ck_assert_uint_eq(lw.faults, 0xa5a5a5a5a5a5a5a5ULL);
	ck_assert_uint_eq(lw.most_in_fault, 0xa5a5a5a5a5a5a5a5ULL);
	lw.size = sizeof(lw);
	ck_assert_int_eq(faultgen_run_lock_waits(run, FAULTGEN_LOCK_HELPERS,
					   &lw),
			 0);
	ck_assert_uint_eq(lw.threads, 1);
	ck_assert_uint_gt(lw.write.acquisitions, 0);
	consistent(&lw.read);
	consistent(&lw.write);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* A run of one worker over 64 MiB (16384 user faults, 384 KiB of
 * samples, more than the ring's 256 KiB) touched by touch, into *run:
 * what faultgen_run_lock_waits returned. */
static int run_64m(enum faultgen_touch touch, struct faultgen_run **run,
		   struct faultgen_lock_waits *lw)
{
	struct faultgen_attr *a;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	/* A warm-up round before the measured one: its faults fill the
	 * ring as well. */
	ck_assert_int_eq(faultgen_attr_set_rounds(a, 1, FAULTGEN_ZAP_DONTNEED),
			 0);
	ck_assert_int_eq(faultgen_attr_set_warmup(a, 1), 0);
	ck_assert_int_eq(faultgen_attr_set_lock_waits(a, 1), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 64 << 20), 0);
	ck_assert_int_eq(faultgen_attr_set_thp(a, FAULTGEN_THP_NOHUGEPAGE), 0);
	ck_assert_int_eq(faultgen_attr_set_touch(a, touch), 0);
	ck_assert_int_eq(faultgen_run_new(a, run), 0);
	faultgen_attr_free(a);
	return faultgen_run_lock_waits(*run, FAULTGEN_LOCK_WORKERS, lw);
}

/* The write loops, the warm-up's and the measured one, read the ring
 * as they go: none lost. */
START_TEST(a_large_slice_loses_no_fault_record)
{
	struct faultgen_lock_waits lw = { .size = sizeof(lw) };
	struct faultgen_run *run;
	int ret = run_64m(FAULTGEN_TOUCH_WRITE, &run, &lw);

	if (ret) {
		faultgen_run_free(run);
		FGC_SKIP("the lock tracepoints may not be read: %s",
			 faultgen_strerror(ret));
	}
	ck_assert_uint_eq(lw.lost, 0);
	ck_assert_uint_ge(lw.faults, 16384);
	faults_consistent(&lw);
	faultgen_run_free(run);
}
END_TEST

/* One memset is not read in pieces: the ring fills, and the records
 * lost at the end of the loop are counted all the same. */
START_TEST(records_lost_at_the_end_of_a_loop_are_counted)
{
	struct faultgen_lock_waits lw = { .size = sizeof(lw) };
	struct faultgen_run *run;
	int ret = run_64m(FAULTGEN_TOUCH_MEMSET, &run, &lw);

	if (ret) {
		faultgen_run_free(run);
		FGC_SKIP("the lock tracepoints may not be read: %s",
			 faultgen_strerror(ret));
	}
	ck_assert_uint_gt(lw.lost, 0);
	ck_assert_uint_lt(lw.faults, 16384);
	ck_assert_uint_ge(lw.faults + lw.lost, 16384);
	faultgen_run_free(run);
}
END_TEST

static Suite *lockwaits_suite(void)
{
	Suite *s = suite_create("lockwaits");
	TCase *tc = tcase_create("pairing");

	tcase_add_test(tc, a_read_wait_is_begin_to_end_inside_an_acquisition);
	tcase_add_test(tc, writers_are_apart_by_the_flags);
	tcase_add_test(tc, a_lost_record_is_counted_and_cuts_the_wait);
	tcase_add_test(tc, only_waits_begun_in_the_window_count);
	tcase_add_test(tc, the_pairing_carries_over_between_drains);
	tcase_add_test(tc, a_fault_with_one_acquisition_fell_back_without_retry);
	tcase_add_test(tc, a_fault_with_two_acquisitions_is_one_retry);
	tcase_add_test(tc,
		       a_failed_trylock_then_the_blocking_lock_is_one_acquisition);
	tcase_add_test(tc, a_system_calls_acquisitions_belong_to_no_fault);
	tcase_add_test(tc, a_lost_record_ends_the_faults_window);
	tcase_add_test(tc, a_fault_on_the_per_vma_lock_takes_no_mmap_lock);
	tcase_add_test(tc,
		       a_faults_window_carries_over_and_counts_where_it_began);
	tcase_add_test(tc, all_workers_merge_and_percentiles_are_nearest_rank);
	tcase_add_test(tc, records_decode_by_their_sample_id);
	suite_add_tcase(s, tc);
	tc = tcase_create("runs");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, the_setting_reads_back_and_a_run_without_it_has_none);
	tcase_add_test(tc, a_run_with_a_writer_times_its_write_acquisitions);
	tcase_add_test(tc, a_large_slice_loses_no_fault_record);
	tcase_add_test(tc, records_lost_at_the_end_of_a_loop_are_counted);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return fgc_main(lockwaits_suite());
}
