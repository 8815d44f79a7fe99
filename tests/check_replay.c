// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * check_replay.c - the replay pattern (FAULTGEN_REPLAY) and its reader
 * of fault profiles (pft-profile/1), with profiles written here by hand,
 * a few MiB each: two threads first-touching one anonymous object (the
 * kernel's minor faults = the pages), a fork whose child's writes are
 * copies (the parent's pages keep the parent's content), a
 * shared-anonymous object written by two processes (each sees the
 * other's writes), a read of a file object (its file gone from the
 * directory), its write-notify faults (the kernel's count of them),
 * pacing (the bins counted, late or not: no timing is
 * asserted); bad profiles refused with the member named; and the JSON
 * reader's strictness.
 *
 * Counts, states and errors only, never a timing.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "check-util.h"

#include <dirent.h>
#include <linux/magic.h>
#include <numaif.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/vfs.h>

#include "internal.h"

#define MIB (1ULL << 20)

/* The profile's head: schema, period, bins of 10 ms, 4 KiB pages. */
#define HEAD "{\"schema\":\"pft-profile/1\",\"recorder\":\"check_replay\"," \
	     "\"source\":\"tracepoints\",\"period\":1,\"bin_ms\":10,"         \
	     "\"duration_ms\":100,\"page_size\":4096,\"names\":false,"

/* One process (id 0) with two threads (ids 0 and 1), one object. */
static const char two_threads[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"anonymous\",\"size\":8388608,"
	"\"writable\":true,\"thp\":false,\"huge_bytes\":0,\"creator\":0}],"
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[0]}],"
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0,\"end_ms\":50,"
	"\"main\":true},{\"id\":1,\"process\":0,\"start_ms\":0,"
	"\"end_ms\":50,\"main\":false}],"
	"\"faults\":[[0,0,0,3,\"first-touch\",1024,0,1023,\"seq\",1],"
	"[1,0,0,3,\"first-touch\",1024,1024,2047,\"random\",1]],"
	"\"without_event\":[],\"calls\":null}";

/* Process 0 writes 1024 pages, forks process 1 at 30 ms, whose thread
 * writes them again: copies. */
static const char cow_fork[] = HEAD
	"\"objects\":[{\"id\":5,\"backing\":\"anonymous\",\"size\":4194304,"
	"\"writable\":true}],"
	"\"processes\":[{\"id\":7,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[5]},{\"id\":8,\"parent\":7,"
	"\"fork_ms\":30,\"exit_ms\":80,\"objects\":[5]}],"
	"\"threads\":[{\"id\":3,\"process\":7,\"start_ms\":0},"
	"{\"id\":4,\"process\":8,\"start_ms\":30}],"
	"\"faults\":[[3,5,0,2,\"first-touch\",1024,0,1023,\"seq\",1],"
	"[4,5,4,2,\"cow\",1024,0,1023,\"stride\",3]],\"calls\":null}";

/* Recorded by attaching to a running program: the parent's copies of
 * pages it had before the recording (no row makes them present), then
 * the child's reads of the same pages. */
static const char cow_of_pages_present[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"anonymous\",\"size\":2097152,"
	"\"writable\":true}],"
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[0]},{\"id\":1,\"parent\":0,"
	"\"fork_ms\":10,\"exit_ms\":60,\"objects\":[0]}],"
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0},"
	"{\"id\":1,\"process\":1,\"start_ms\":10}],"
	"\"faults\":[[0,0,2,1,\"cow\",256,0,255,\"seq\",1],"
	"[1,0,4,1,\"read\",256,0,255,\"seq\",1]],\"calls\":null}";

/* Process 0 writes 2048 pages in its first bin and forks process 1 at
 * 10 ms, which reads them in its third. */
static const char fork_after_writes[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"anonymous\",\"size\":8388608,"
	"\"writable\":true}],"
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[0]},{\"id\":1,\"parent\":0,"
	"\"fork_ms\":10,\"exit_ms\":60,\"objects\":[0]}],"
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0},"
	"{\"id\":1,\"process\":1,\"start_ms\":10}],"
	"\"faults\":[[0,0,0,1,\"first-touch\",2048,0,2047,\"seq\",1],"
	"[1,0,2,1,\"read\",2048,0,2047,\"seq\",1]],\"calls\":null}";

/* Process 0 writes 4096 pages over its bins 0 and 1 and forks process
 * 1 at 19.9 ms, at the end of bin 1: the pages of bin 1 were made before
 * the fork but for the last 1% of them; the child reads them all. */
static const char fork_late_in_a_bin[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"anonymous\",\"size\":16777216,"
	"\"writable\":true}],"
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[0]},{\"id\":1,\"parent\":0,"
	"\"fork_ms\":19.9,\"exit_ms\":60,\"objects\":[0]}],"
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0},"
	"{\"id\":1,\"process\":1,\"start_ms\":19.9}],"
	"\"faults\":[[0,0,0,2,\"first-touch\",4096,0,4095,\"seq\",1],"
	"[1,0,3,1,\"read\",4096,0,4095,\"seq\",1]],\"calls\":null}";

/* Process 0 writes 2048 pages in bin 0, forks process 1 at 15 ms, in
 * the middle of bin 1, and copies the pages in bin 1: copies of pages
 * the child shares, made after the fork (before it, the writes would
 * fault nothing: the pages were its own yet). */
static const char fork_in_the_middle_of_a_bin[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"anonymous\",\"size\":8388608,"
	"\"writable\":true}],"
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[0]},{\"id\":1,\"parent\":0,"
	"\"fork_ms\":15,\"exit_ms\":60,\"objects\":[0]}],"
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0},"
	"{\"id\":1,\"process\":1,\"start_ms\":15}],"
	"\"faults\":[[0,0,0,1,\"first-touch\",2048,0,2047,\"seq\",1],"
	"[0,0,1,1,\"cow\",2048,0,2047,\"seq\",1],"
	"[1,0,4,1,\"read\",16,0,15,\"seq\",1]],\"calls\":null}";

/* Process 0 writes 1024 pages, forks process 1 at 15 ms, then copies
 * 200 pages in each of 4 bins, in a random order over the 1024 (a
 * program writing keys of a table while its child saves it), and
 * first-touches 200 pages in each of 4 bins over another 1024: 800
 * copies and 800 first touches of pages each its own, none twice. */
static const char random_rows[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"anonymous\",\"size\":8388608,"
	"\"writable\":true}],"
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[0]},{\"id\":1,\"parent\":0,"
	"\"fork_ms\":15,\"exit_ms\":90,\"objects\":[0]}],"
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0},"
	"{\"id\":1,\"process\":1,\"start_ms\":15}],"
	"\"faults\":[[0,0,0,1,\"first-touch\",1024,0,1023,\"seq\",1],"
	"[0,0,2,1,\"cow\",200,0,1023,\"random\",0],"
	"[0,0,2,1,\"first-touch\",200,1024,2047,\"random\",0],"
	"[0,0,3,1,\"cow\",200,0,1023,\"random\",0],"
	"[0,0,3,1,\"first-touch\",200,1024,2047,\"random\",0],"
	"[0,0,4,1,\"cow\",200,0,1023,\"random\",0],"
	"[0,0,4,1,\"first-touch\",200,1024,2047,\"random\",0],"
	"[0,0,5,1,\"cow\",200,0,1023,\"random\",0],"
	"[0,0,5,1,\"first-touch\",200,1024,2047,\"random\",0],"
	"[1,0,8,1,\"read\",16,0,15,\"seq\",1]],\"calls\":null}";

/* A shared-anonymous object of 1024 pages written by process 0, then
 * read by its child in a random order, 16 reads in each of 4 bins: a
 * read maps the 16 pages around it that are in the page cache
 * (fault-around), and each recorded read faulted: 64 reads of pages
 * the child did not map yet; then 16 reads of 16 pages in a row. */
static const char shared_random_reads[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"shared-anonymous\","
	"\"size\":4194304,\"writable\":true}],"
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[0]},{\"id\":1,\"parent\":0,"
	"\"fork_ms\":15,\"exit_ms\":90,\"objects\":[0]}],"
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0},"
	"{\"id\":1,\"process\":1,\"start_ms\":15}],"
	"\"faults\":[[0,0,0,1,\"first-touch\",1024,0,1023,\"seq\",1],"
	"[1,0,2,1,\"read\",16,0,1023,\"random\",0],"
	"[1,0,3,1,\"read\",16,0,1023,\"random\",0],"
	"[1,0,4,1,\"read\",16,0,1023,\"random\",0],"
	"[1,0,5,1,\"read\",16,0,1023,\"random\",0],"
	"[1,0,6,1,\"read\",16,0,15,\"seq\",1]],\"calls\":null}";

/* A shared-anonymous object: process 0 writes its first half, process
 * 1 (forked at 20 ms) its second. */
static const char shared_two[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"shared-anonymous\","
	"\"size\":2097152,\"writable\":true}],"
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[0]},{\"id\":1,\"parent\":0,"
	"\"fork_ms\":20,\"exit_ms\":null,\"objects\":[0]}],"
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0},"
	"{\"id\":1,\"process\":1,\"start_ms\":20}],"
	"\"faults\":[[0,0,0,1,\"first-touch\",256,0,255,\"seq\",1],"
	"[1,0,3,1,\"first-touch\",256,256,511,\"seq\",1]],\"calls\":null}";

/* A file object read page by page. */
static const char file_read[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"file\",\"size\":2097152,"
	"\"writable\":false}],"
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[0]}],"
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0}],"
	"\"faults\":[[0,0,0,2,\"read\",512,0,511,\"seq\",1]],\"calls\":null}";

/* A file object written page by page: first touches, its pages in the
 * page cache; then two major faults (pages read from the file). */
static const char file_writes[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"file\",\"size\":4194304,"
	"\"writable\":true}],"
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[0]}],"
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0}],"
	"\"faults\":[[0,0,0,2,\"first-touch\",512,0,511,\"seq\",1],"
	"[0,0,2,1,\"major\",2,512,513,\"seq\",1]],\"calls\":null}";

/* Faults over 6 bins in two rows, two of them shared. */
static const char paced[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"anonymous\",\"size\":2097152,"
	"\"writable\":true}],"
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[0]}],"
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0}],"
	"\"faults\":[[0,0,0,4,\"first-touch\",200,0,199,\"seq\",1],"
	"[0,0,2,4,\"first-touch\",100,200,299,\"seq\",1]],\"calls\":null}";

/* 256 pages written, and 256 faults without an event (gup) of the same
 * thread in the same object. */
static const char written_and_populated[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"anonymous\",\"size\":8388608,"
	"\"writable\":true}],"
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[0]}],"
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0}],"
	"\"faults\":[[0,0,1,1,\"first-touch\",256,0,255,\"seq\",1]],"
	"\"without_event\":[[0,\"gup\",256]],\"calls\":null}";

/* 512 faults without an event (gup) given to thread 0 (as the survey
 * gives a process's first thread those of the threads that ended
 * unseen), which thread 1's MADV_POPULATE_WRITE over 512 pages of the
 * object made, in bin 2. */
static const char populated_by_a_call[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"anonymous\",\"size\":8388608,"
	"\"writable\":true}],"
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[0]}],"
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0},"
	"{\"id\":1,\"process\":0,\"start_ms\":0}],"
	"\"faults\":[],"
	"\"without_event\":[[0,\"gup\",512]],"
	"\"calls\":[[1,0,2,\"madvise\",\"populate_write\",1,1024,1535,512]]}";

/* Four faults without an event (gup) in an object with huge pages. */
static const char thp_gup[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"anonymous\",\"size\":16777216,"
	"\"writable\":true,\"thp\":true}],"
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[0]}],"
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0}],"
	"\"faults\":[],"
	"\"without_event\":[[0,\"gup\",4]],\"calls\":null}";

/* Kernel-mode faults (a byte the kernel writes into each page) on 256
 * pages, and, without the tracepoints, 128 faults without an event
 * (kernel-side) populated over the same object at the thread's start. */
static const char kernel_mode[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"anonymous\",\"size\":2097152,"
	"\"writable\":true}],"
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[0]}],"
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0}],"
	"\"faults\":[[0,0,0,1,\"kernel\",256,256,511,\"seq\",1]],"
	"\"without_event\":[[0,\"kernel-side\",128]],\"calls\":null}";

/* A file object read (its pages in the page cache: a fault maps 16 of
 * them, fault-around, as a survey records it: every 16th page), then
 * the same pages read again as major faults: each out of the page
 * cache first. */
static const char file_major[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"file\",\"size\":1048576,"
	"\"writable\":false}],"
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[0]}],"
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0}],"
	"\"faults\":[[0,0,0,1,\"read\",16,0,240,\"stride\",16],"
	"[0,0,2,1,\"major\",256,0,255,\"seq\",1]],\"calls\":null}";

/* Major faults in an anonymous object: a swap-in. */
static const char anon_major[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"anonymous\",\"size\":1048576,"
	"\"writable\":true}],"
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[0]}],"
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0}],"
	"\"faults\":[[0,0,0,1,\"major\",256,0,255,\"seq\",1]],"
	"\"calls\":null}";

/* A shared file object of 64 pages read, then (with the second row)
 * written twice over: 128 write-notify faults, each on a page already
 * mapped, the second pass after the first's writes. */
#define WRITE_NOTIFY_HEAD                                                     \
	HEAD "\"objects\":[{\"id\":0,\"backing\":\"file\","                    \
	     "\"size\":262144,\"writable\":true}],"                              \
	     "\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"         \
	     "\"exit_ms\":null,\"objects\":[0]}],"                               \
	     "\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0}],"           \
	     "\"faults\":[[0,0,0,1,\"read\",64,0,63,\"seq\",1]"
static const char file_reads[] = WRITE_NOTIFY_HEAD "],\"calls\":null}";
static const char file_write_notify[] = WRITE_NOTIFY_HEAD
	",[0,0,1,1,\"write-notify\",128,0,63,\"seq\",1]],\"calls\":null}";

/* Write-notify faults in a shared-anonymous object: refused. */
static const char shared_anon_write_notify[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"shared-anonymous\","
	"\"size\":262144,\"writable\":true}],"
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[0]}],"
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0}],"
	"\"faults\":[[0,0,0,1,\"write-notify\",64,0,63,\"seq\",1]],"
	"\"calls\":null}";

/* One thread writes 1024 pages, gives 256 of them back
 * (MADV_DONTNEED, in 4 calls), writes 128 of them again and reads 64
 * others (a read of a page not present): as a JVM's heap after its
 * pretouch and a shrink. */
static const char given_back[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"anonymous\",\"size\":4194304,"
	"\"writable\":true}],"
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[0]}],"
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0}],"
	"\"faults\":[[0,0,0,1,\"first-touch\",1024,0,1023,\"seq\",1],"
	"[0,0,2,1,\"first-touch\",128,256,383,\"seq\",1],"
	"[0,0,3,1,\"read\",64,256,511,\"random\",1]],"
	"\"calls\":[[0,0,1,\"madvise\",\"dontneed\",4,256,511,256]]}";

/* An anonymous object mapped afresh over 256 of its pages (mmap
 * MAP_FIXED: a JVM's heap committed again) and over 128 others
 * (munmap, then mapped again), then read and written again. */
static const char mapped_afresh[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"anonymous\",\"size\":4194304,"
	"\"writable\":true}],"
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[0]}],"
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0}],"
	"\"faults\":[[0,0,0,1,\"first-touch\",1024,0,1023,\"seq\",1],"
	"[0,0,2,1,\"read\",64,256,383,\"random\",1],"
	"[0,0,2,1,\"first-touch\",128,384,511,\"seq\",1],"
	"[0,0,4,1,\"first-touch\",128,0,127,\"seq\",1]],"
	"\"calls\":[[0,0,1,\"mmap\",null,1,256,511,256],"
	"[0,0,3,\"munmap\",null,1,0,127,128]]}";

/* Thread 0 writes 512 pages over 5 bins and again over 5 more; thread
 * 1 of the same process gives them back in the bin between. */
static const char given_back_by_another[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"anonymous\",\"size\":2097152,"
	"\"writable\":true}],"
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[0]}],"
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0},"
	"{\"id\":1,\"process\":0,\"start_ms\":0}],"
	"\"faults\":[[0,0,0,5,\"first-touch\",512,0,511,\"seq\",1],"
	"[0,0,6,5,\"first-touch\",512,0,511,\"seq\",1]],"
	"\"calls\":[[1,0,5,\"madvise\",\"dontneed\",1,0,511,512]]}";

/* Thread 0 writes 64 pages of object 0, gives them back and writes
 * them again in the next bin; thread 1 of the same process writes
 * 16384 pages of object 1 in the first bin: none of the pages given
 * back is thread 1's. */
static const char given_back_own_pages[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"anonymous\",\"size\":262144,"
	"\"writable\":true},{\"id\":1,\"backing\":\"anonymous\","
	"\"size\":67108864,\"writable\":true}],"
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[0,1]}],"
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0},"
	"{\"id\":1,\"process\":0,\"start_ms\":0}],"
	"\"faults\":[[0,0,0,1,\"first-touch\",64,0,63,\"seq\",1],"
	"[0,0,1,1,\"first-touch\",64,0,63,\"seq\",1],"
	"[1,1,0,1,\"first-touch\",16384,0,16383,\"seq\",1]],"
	"\"calls\":[[0,0,0,\"madvise\",\"dontneed\",1,0,63,64]]}";

/* One process, two threads faulting one object, in 1 ms bins: thread 0
 * 8,192 first touches in the first bin (late: no thread makes them in
 * 1 ms), thread 1 a page in bin B (a string) and one in the 31st. */
#define ONE_THREAD_LATE(B)                                                  \
	"{\"schema\":\"pft-profile/1\",\"recorder\":\"check_replay\","    \
	"\"source\":\"tracepoints\",\"period\":1,\"bin_ms\":1,"             \
	"\"duration_ms\":40,\"page_size\":4096,\"names\":false,"            \
	"\"objects\":[{\"id\":0,\"backing\":\"anonymous\","                \
	"\"size\":33587200,\"writable\":true}],"                             \
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"           \
	"\"exit_ms\":null,\"objects\":[0]}],"                                \
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0},"             \
	"{\"id\":1,\"process\":0,\"start_ms\":0}],"                          \
	"\"faults\":[[0,0,0,1,\"first-touch\",8192,0,8191,\"seq\",1],"       \
	"[1,0," B ",1,\"first-touch\",1,8192,8192,\"seq\",1],"                \
	"[1,0,30,1,\"first-touch\",1,8193,8193,\"seq\",1]],"
static const char one_thread_late[] = ONE_THREAD_LATE("0") "\"calls\":null}";

/* That, with thread 1 giving thread 0's pages back at the start of its
 * 31st bin. */
static const char one_thread_late_given_back[] = ONE_THREAD_LATE("0")
	"\"calls\":[[1,0,30,\"madvise\",\"dontneed\",1,0,8191,8192]]}";

/* That, with thread 1's first page in the 6th bin: it faults the object
 * in no bin of thread 0's. */
static const char one_thread_late_alone[] = ONE_THREAD_LATE("5")
	"\"calls\":null}";

/* One thread, 64 first touches in one bin of 100 ms. */
static const char one_slow_bin[] =
	"{\"schema\":\"pft-profile/1\",\"recorder\":\"check_replay\","
	"\"source\":\"tracepoints\",\"period\":1,\"bin_ms\":100,"
	"\"duration_ms\":100,\"page_size\":4096,\"names\":false,"
	"\"objects\":[{\"id\":0,\"backing\":\"anonymous\",\"size\":262144,"
	"\"writable\":true}],"
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[0]}],"
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0}],"
	"\"faults\":[[0,0,0,1,\"first-touch\",64,0,63,\"seq\",1]],"
	"\"calls\":null}";

/* Thread 1 first touches 64 pages in bin 0 and again in bin 1, after
 * thread 0 mapped them anew in bin 1 (a JVM commits its heap, then its
 * threads pretouch it). */
static const char mapped_anew_by_another[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"anonymous\",\"size\":262144,"
	"\"writable\":true}],"
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[0]}],"
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0},"
	"{\"id\":1,\"process\":0,\"start_ms\":0}],"
	"\"faults\":[[1,0,0,1,\"first-touch\",64,0,63,\"seq\",1],"
	"[1,0,1,1,\"first-touch\",64,0,63,\"seq\",1]],"
	"\"calls\":[[0,0,1,\"mmap\",null,1,0,63,64]]}";

/* Process 0 (a thread) forks process 1 (a thread) at 5 ms; one object. */
#define FORK_AT_5_MS                                                        \
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"           \
	"\"exit_ms\":null,\"objects\":[0]},{\"id\":1,\"parent\":0,"         \
	"\"fork_ms\":5,\"exit_ms\":60,\"objects\":[0]}],"                   \
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0},"             \
	"{\"id\":1,\"process\":1,\"start_ms\":5}],"                         \

/* Attached to a running program: after a fork, 256 copies in a random
 * order over 1024 pages present before the recording, then twice 128
 * first touches in a random order over the first 256 (not present,
 * then: the copies were of the others). */
static const char copies_and_first_touches[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"anonymous\",\"size\":4194304,"
	"\"writable\":true}],"
	FORK_AT_5_MS
	"\"faults\":[[0,0,1,1,\"cow\",256,0,1023,\"random\",1],"
	"[0,0,2,1,\"first-touch\",128,0,255,\"random\",1],"
	"[0,0,3,1,\"first-touch\",128,0,255,\"random\",1],"
	"[1,0,3,1,\"read\",1,1023,1023,\"seq\",1]],"
	"\"calls\":null}";

/* 256 first touches in a random order over 1024 pages, then 256 reads
 * in a random order over the upper 256: the first fell on pages the
 * reads did not need (each of the 512 faulted). */
static const char random_then_random[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"anonymous\",\"size\":4194304,"
	"\"writable\":true}],"
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[0]}],"
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0}],"
	"\"faults\":[[0,0,0,1,\"first-touch\",256,0,1023,\"random\",1],"
	"[0,0,2,1,\"read\",256,768,1023,\"random\",1]],"
	"\"calls\":null}";

/* Attached to a running program forking twice: 600 copies in a random
 * order over 1024 pages present before the recording after each fork
 * (more than the pages: the second fork's copies are of pages copied
 * after the first), then twice 62 first touches in a random order over
 * the 1024 (the pages neither fork's copies took). */
static const char two_forks_copies_and_first_touches[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"anonymous\",\"size\":4194304,"
	"\"writable\":true}],"
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[0]},{\"id\":1,\"parent\":0,"
	"\"fork_ms\":5,\"exit_ms\":25,\"objects\":[0]},{\"id\":2,"
	"\"parent\":0,\"fork_ms\":25,\"exit_ms\":60,\"objects\":[0]}],"
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0},"
	"{\"id\":1,\"process\":1,\"start_ms\":5},"
	"{\"id\":2,\"process\":2,\"start_ms\":25}],"
	"\"faults\":[[0,0,1,1,\"cow\",600,0,1023,\"random\",1],"
	"[0,0,3,1,\"cow\",600,0,1023,\"random\",1],"
	"[0,0,4,1,\"first-touch\",62,0,1023,\"random\",1],"
	"[0,0,5,1,\"first-touch\",62,0,1023,\"random\",1],"
	"[1,0,1,1,\"read\",1,1023,1023,\"seq\",1],"
	"[2,0,3,1,\"read\",1,1023,1023,\"seq\",1]],"
	"\"calls\":null}";

/* Recorded with the page-faults event (read or write untold): user
 * faults and refaults of an object not writable, reads then. */
static const char user_faults_read_only[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"anonymous\",\"size\":1048576,"
	"\"writable\":false}],"
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[0]}],"
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0}],"
	"\"faults\":[[0,0,0,1,\"user\",128,0,127,\"seq\",1],"
	"[0,0,1,1,\"refault\",64,0,63,\"seq\",1]],"
	"\"calls\":null}";

/* Three passes over 256 pages in one bin, the pages given back between
 * them (2 calls, each over the 256): as pft --rounds. */
static const char passes_in_a_bin[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"anonymous\",\"size\":1048576,"
	"\"writable\":true}],"
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[0]}],"
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0}],"
	"\"faults\":[[0,0,0,1,\"first-touch\",768,0,255,\"seq\",1]],"
	"\"calls\":[[0,0,0,\"madvise\",\"dontneed\",2,0,255,512]]}";

/* Calls of the thread's own (mmap, munmap, mprotect, an advice on no
 * object) and an advice on the object that would take it from a child
 * (MADV_DONTFORK): made on a page of the thread's own, the child
 * forked after it writes its copies of the object's pages. */
static const char own_calls[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"anonymous\",\"size\":1048576,"
	"\"writable\":true}],"
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[0]},{\"id\":1,\"parent\":0,"
	"\"fork_ms\":20,\"exit_ms\":60,\"objects\":[0]}],"
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0},"
	"{\"id\":1,\"process\":1,\"start_ms\":20}],"
	"\"faults\":[[0,0,0,1,\"first-touch\",256,0,255,\"seq\",1],"
	"[1,0,3,1,\"cow\",256,0,255,\"seq\",1]],"
	"\"calls\":[[0,null,0,\"mmap\",null,3,0,0,0],"
	"[0,null,0,\"munmap\",null,5,0,0,0],"
	"[0,null,1,\"mprotect\",\"r\",2,0,0,0],"
	"[0,0,1,\"madvise\",\"dontfork\",1,0,255,256],"
	"[0,null,1,\"madvise\",\"willneed\",2,0,0,0],"
	"[1,0,3,\"mprotect\",\"rw\",1,0,3,4]]}";

/* 256 first touches in a random order over 1024 pages, then 512 in
 * page order over the upper half: the random ones fell on pages the
 * later ones did not need (each of the 768 faulted). */
static const char random_then_seq[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"anonymous\",\"size\":4194304,"
	"\"writable\":true}],"
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[0]}],"
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0}],"
	"\"faults\":[[0,0,0,1,\"first-touch\",256,0,1023,\"random\",1],"
	"[0,0,1,1,\"first-touch\",512,512,1023,\"seq\",1]],"
	"\"calls\":null}";

/* Process 0 maps objects 0 (5 MiB and 12 KiB) and 1 (1 MiB and 20
 * KiB: sizes no allocator's own mapping has); process 1, forked at
 * 10 ms, maps object 1 only, and faults it at 1 s. */
static const char child_maps_its_own[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"anonymous\",\"size\":5255168,"
	"\"writable\":true},{\"id\":1,\"backing\":\"anonymous\","
	"\"size\":1069056,\"writable\":true}],"
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[0,1]},{\"id\":1,\"parent\":0,"
	"\"fork_ms\":10,\"exit_ms\":1100,\"objects\":[1]}],"
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0},"
	"{\"id\":1,\"process\":1,\"start_ms\":10}],"
	"\"faults\":[[0,0,0,1,\"first-touch\",16,0,15,\"seq\",1],"
	"[1,1,100,1,\"first-touch\",16,0,15,\"seq\",1]],\"calls\":null}";

static struct faultgen_attr *replay_attr(const char *profile)
{
	struct faultgen_attr *a;
	char msg[256] = "";

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, FAULTGEN_REPLAY), 0);
	if (faultgen_attr_set_profile_buffer(a, profile, strlen(profile))) {
		faultgen_attr_profile_error(a, msg, sizeof(msg));
		ck_abort_msg("profile refused: %s", msg);
	}
	return a;
}

static void set_pacing(struct faultgen_attr *a, const char *how)
{
	struct faultgen_value v = { .type = FAULTGEN_TYPE_KEYWORD };

	v.v.keyword = how;
	ck_assert_int_eq(faultgen_attr_set_value(a, "pacing", &v), 0);
}

static void set_text(struct faultgen_attr *a, const char *name,
		     const char *text)
{
	struct faultgen_value v = { .type = FAULTGEN_TYPE_TEXT };

	v.v.text = text;
	ck_assert_int_eq(faultgen_attr_set_value(a, name, &v), 0);
}

static struct faultgen_run *run_ok(struct faultgen_attr *a)
{
	struct faultgen_run *run = NULL;
	char msg[256] = "";
	int ret = faultgen_run_new(a, &run);

	if (ret && run)
		faultgen_run_profile_error(run, msg, sizeof(msg));
	ck_assert_msg(ret == 0, "replay failed: %s %s", faultgen_strerror(ret),
		      msg);
	return run;
}

/* The faults a replay made of object o by worker i (every kind). */
static uint64_t faults_by(struct faultgen_run *run, unsigned int o,
			  int i)
{
	uint64_t n = 0;

	ck_assert_int_eq(faultgen_run_replay_faults(run, o, i, NULL, &n), 0);
	return n;
}

/* The pages present of the run's region (the profile's first object). */
static uint64_t region_resident(struct faultgen_run *run)
{
	void *addr;
	size_t len;

	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	return fgc_resident_pages(addr, len);
}

static void worker(struct faultgen_run *run, unsigned int i,
		   struct faultgen_worker_result *w)
{
	w->size = sizeof(*w);
	ck_assert_int_eq(faultgen_run_worker(run, i, w), 0);
}

START_TEST(two_threads_first_touch_one_object)
{
	struct faultgen_attr *a = replay_attr(two_threads);
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_worker_result w;
	struct faultgen_run *run;
	uint64_t pages = 0;

	set_pacing(a, _i ? "none" : "bins");
	run = run_ok(a);
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	ck_assert_uint_eq(r.workers, 2);
	ck_assert_uint_eq(r.pages, 2048);
	ck_assert_uint_eq(r.bytes, 8 * MIB);
	ck_assert_msg(r.faults_agree, "minflt %llu for 2048 pages",
		      (unsigned long long)r.minflt);
	for (unsigned int i = 0; i < 2; i++) {
		worker(run, i, &w);
		/* Paced, thread 1 helps thread 0 where it is late (its
		 * rows in page order; thread 1's in a random order are its
		 * own). */
		if (_i)
			ck_assert_uint_eq(w.pages, 1024);
		else if (i == 0)
			ck_assert_uint_le(w.pages, 1024);
		else
			ck_assert_uint_ge(w.pages, 1024);
		pages += w.pages;
		ck_assert_msg(fgc_close(w.pages, w.minflt, 1),
			      "worker %u: minflt %llu for %llu pages", i,
			      (unsigned long long)w.minflt,
			      (unsigned long long)w.pages);
		ck_assert_int_eq(w.pid, getpid());
	}
	ck_assert_uint_eq(pages, 2048);
	ck_assert_double_eq(fgc_figure_or(run, "first-touch", -1), 2048);
	ck_assert_double_eq(fgc_figure_or(run, "cow", -1), -1);
	ck_assert_double_eq(fgc_figure_or(run, "bins", -1), 6);
	faultgen_run_free(run);
	faultgen_attr_free(a);
	ck_assert(fgc_no_children());
}
END_TEST

/* A kernel row: each of its pages faulted (the kernel counts the
 * kernel-mode faults as minor faults of the worker) and resident; the
 * kernel-side rows populated their pages too. */
START_TEST(kernel_mode_faults_and_kernel_side)
{
	struct faultgen_attr *a = replay_attr(kernel_mode);
	struct faultgen_worker_result w;
	struct faultgen_run *run = run_ok(a);
	void *addr;
	size_t len;

	worker(run, 0, &w);
	ck_assert_double_eq(fgc_figure_or(run, "kernel", -1), 256);
	ck_assert_double_eq(fgc_figure_or(run, "kernel-side", -1), 128);
	ck_assert_msg(fgc_close(384, w.minflt, 1), "minflt %llu for 384 pages",
		      (unsigned long long)w.minflt);
	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	ck_assert_uint_eq(fgc_resident_pages(addr, len), 384);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* The populated faults fall on pages the written ones did not: 512
 * pages resident, not the 256 both would have faulted. */
START_TEST(populated_faults_on_pages_no_row_faults)
{
	struct faultgen_attr *a = replay_attr(written_and_populated);
	struct faultgen_run *run = run_ok(a);
	void *addr;
	size_t len;

	ck_assert_double_eq(fgc_figure_or(run, "first-touch", -1), 256);
	ck_assert_double_eq(fgc_figure_or(run, "gup", -1), 256);
	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	ck_assert_uint_eq(fgc_resident_pages(addr, len), 512);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* Faults without an event that a recorded call made are made by the
 * call, once: thread 1's MADV_POPULATE_WRITE brings the 512 pages in
 * (the kernel counts them, the replay notes them as thread 1's gup
 * faults, the object's one thread), and thread 0 populates none of its
 * own, a page at a time, before it. */
START_TEST(populated_faults_made_by_the_recorded_call)
{
	struct faultgen_attr *a = replay_attr(populated_by_a_call);
	size_t ps = (size_t)fgc_pagesize();
	struct faultgen_run *run = run_ok(a);
	struct faultgen_replay_object o = { .size = sizeof(o) };
	uint64_t gup = 0, first = 0;
	void *addr;
	size_t len;

	ck_assert_double_eq(fgc_figure_or(run, "gup", -1), 512);
	ck_assert_double_eq(fgc_figure_or(run, "madvise", -1), 1);
	ck_assert_uint_eq(faults_by(run, 0, 0), 0);
	ck_assert_uint_eq(faults_by(run, 0, 1), 512);
	/* Of their kind, by the thread that made them: no first touch. */
	ck_assert_int_eq(faultgen_run_replay_faults(run, 0, 1, "gup", &gup), 0);
	ck_assert_int_eq(faultgen_run_replay_faults(run, 0, 1, "first-touch",
						    &first), 0);
	ck_assert_uint_eq(gup, 512);
	ck_assert_uint_eq(first, 0);
	ck_assert_int_eq(faultgen_run_replay_object(run, 0, &o), 0);
	ck_assert_uint_eq(o.faults, 512);
	ck_assert_uint_eq(o.threads, 1);
	ck_assert_uint_eq(region_resident(run), 512);
	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	ck_assert_uint_eq(fgc_resident_pages((char *)addr + 1024 * ps,
					     512 * ps), 512);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* In an object with huge pages each populated fault maps one: the four
 * are a huge page apart (the first page of each of the object's first
 * four 2 MiB ranges resident, whether or not the kernel had huge pages
 * to give), not four pages of one. */
START_TEST(populated_faults_of_a_thp_object_a_huge_page_apart)
{
	struct faultgen_attr *a = replay_attr(thp_gup);
	size_t ps = (size_t)fgc_pagesize(), huge = 2u << 20;
	struct faultgen_run *run = run_ok(a);
	char *addr;
	void *at;
	size_t len;

	ck_assert_double_eq(fgc_figure_or(run, "gup", -1), 4);
	ck_assert_int_eq(faultgen_run_region(run, &at, &len), 0);
	addr = at;
	ck_assert_uint_ge(len, 4 * huge);
	for (int i = 0; i < 4; i++)
		ck_assert_msg(fgc_resident_pages(addr + i * huge, ps) == 1,
			      "the first page of 2 MiB range %d not resident",
			      i);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* Pages a copy-on-write row writes and no row made present are written
 * before the clock, in the first process: the child inherits them
 * mapped, so its reads of them fault nothing (written after the fork
 * instead, the child would have none of them and would fault each). */
START_TEST(copies_of_pages_present_before_the_recording)
{
	struct faultgen_attr *a = replay_attr(cow_of_pages_present);
	struct faultgen_run *run = run_ok(a);
	struct faultgen_worker_result parent, child;

	worker(run, 0, &parent);
	worker(run, 1, &child);
	ck_assert_msg(child.minflt < 128,
		      "the child faulted %llu times reading 256 pages it "
		      "inherited mapped",
		      (unsigned long long)child.minflt);
	ck_assert_msg(parent.minflt >= 256, "the parent's copies: %llu faults",
		      (unsigned long long)parent.minflt);
	ck_assert_double_eq(fgc_figure_or(run, "cow", -1), 256);
	ck_assert_double_eq(fgc_figure_or(run, "present_at_start", -1), 256);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* A run of profile without pacing, its attr in *a: thread 0's minor
 * faults from `faults` to 32 more (what: what they are). */
static struct faultgen_run *one_thread(const char *profile, uint64_t faults,
				       const char *what,
				       struct faultgen_attr **a)
{
	struct faultgen_worker_result w;
	struct faultgen_run *run;

	*a = replay_attr(profile);
	set_pacing(*a, "none");
	run = run_ok(*a);
	worker(run, 0, &w);
	ck_assert_msg(w.minflt >= faults && w.minflt <= faults + 32,
		      "%llu faults: %s", (unsigned long long)w.minflt, what);
	return run;
}

/* Pages given back by the recorded madvise calls fault again: the
 * rows after the calls, exact (first touches of pages given back) and
 * in a random order (reads of pages not present: of the 128 given
 * back and not written again), fault as recorded. */
START_TEST(pages_given_back_fault_again)
{
	struct faultgen_attr *a;
	struct faultgen_run *run = one_thread(
		given_back, 1024 + 128 + 64,
		"1024 first touches, 128 again after 256 pages given back, "
		"64 reads", &a);

	ck_assert_double_eq(fgc_figure_or(run, "madvise", -1), 4);
	ck_assert_double_eq(fgc_figure_or(run, "calls_failed", -1), -1);
	ck_assert_double_eq(fgc_figure_or(run, "read", -1), 64);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* The calls on no object, mprotect, and an advice that would take the
 * object from a child are made on the thread's own page: each made,
 * none failed, and the child (forked after the MADV_DONTFORK) writes
 * its copies of the object (a SIGSEGV where the advice took it). */
START_TEST(own_calls_made_on_a_page_of_the_thread)
{
	struct faultgen_attr *a = replay_attr(own_calls);
	struct faultgen_worker_result w[2];
	struct faultgen_run *run = run_ok(a);

	worker(run, 0, &w[0]);
	worker(run, 1, &w[1]);
	ck_assert_msg(fgc_close(256, w[1].minflt, 1), "child minflt %llu",
		      (unsigned long long)w[1].minflt);
	ck_assert_double_eq(fgc_figure_or(run, "cow", -1), 256);
	ck_assert_double_eq(fgc_figure_or(run, "mmap", -1), 3);
	ck_assert_double_eq(fgc_figure_or(run, "munmap", -1), 5);
	ck_assert_double_eq(fgc_figure_or(run, "mprotect", -1), 3);
	ck_assert_double_eq(fgc_figure_or(run, "madvise", -1), 3);
	ck_assert_double_eq(fgc_figure_or(run, "calls_failed", -1), -1);
	faultgen_run_free(run);
	faultgen_attr_free(a);
	ck_assert(fgc_no_children());
}
END_TEST

/* The calls as read: their rows, advice and protection, and counts. */
START_TEST(calls_read)
{
	struct fg_profile pr;
	char err[FG_PROFILE_ERROR_LEN];

	ck_assert_int_eq(fg_profile_parse(own_calls, strlen(own_calls), &pr,
					  err, sizeof(err)), 0);
	ck_assert(pr.calls_recorded);
	ck_assert_uint_eq(pr.nr_calls, 6);
	ck_assert_int_eq(pr.calls[0].object, -1);
	ck_assert_int_eq(pr.calls[0].call, FG_CALL_MMAP);
	ck_assert_int_eq(pr.calls[2].arg, PROT_READ);
	ck_assert_int_eq(pr.calls[3].arg, MADV_DONTFORK);
	ck_assert_int_eq(pr.calls[3].object, 0);
	ck_assert_uint_eq(pr.calls[3].pages, 256);
	ck_assert_uint_eq(pr.calls[3].last_page, 255);
	ck_assert_int_eq(pr.calls[4].arg, MADV_WILLNEED);
	ck_assert_int_eq(pr.calls[5].arg, PROT_READ | PROT_WRITE);
	ck_assert_uint_eq(pr.calls[5].thread, 1);
	ck_assert_uint_eq(pr.call_counts[FG_CALL_MUNMAP], 5);
	ck_assert_uint_eq(pr.call_counts[FG_CALL_MADVISE], 3);
	fg_profile_free(&pr);
	ck_assert_int_eq(fg_profile_parse(two_threads, strlen(two_threads),
					  &pr, err, sizeof(err)), 0);
	ck_assert(!pr.calls_recorded);
	ck_assert_uint_eq(pr.nr_calls, 0);
	fg_profile_free(&pr);
}
END_TEST

/* A process's faults without an event are populated in its largest
 * writable object that is not a file's where it maps one (a page of a
 * file mapped shared populated is two faults): the anonymous object of
 * 256 pages, not the file's of 1024. */
START_TEST(faults_without_an_event_populate_memory_before_files)
{
	static const char profile[] = HEAD
		"\"objects\":[{\"id\":0,\"backing\":\"file\",\"size\":4194304,"
		"\"writable\":true},{\"id\":1,\"backing\":\"anonymous\","
		"\"size\":1048576,\"writable\":true},{\"id\":2,"
		"\"backing\":\"anonymous\",\"size\":8388608,"
		"\"writable\":false}],"
		"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
		"\"exit_ms\":null,\"objects\":[0,1,2]}],"
		"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0}],"
		"\"faults\":[[0,0,0,1,\"read\",16,0,15,\"seq\",1]],"
		"\"without_event\":[[0,\"gup\",128]],\"calls\":null}";
	struct fg_profile pr;
	char err[FG_PROFILE_ERROR_LEN];

	ck_assert_int_eq(fg_profile_parse(profile, strlen(profile), &pr, err,
					  sizeof(err)), 0);
	ck_assert_uint_eq(pr.nr_rows, 2);
	ck_assert_int_eq(pr.rows[1].kind, FG_KIND_GUP);
	ck_assert_uint_eq(pr.rows[1].object, 1);
	fg_profile_free(&pr);
}
END_TEST

/* An mmap or munmap over an anonymous object's pages maps them
 * afresh: the rows after it fault them again (1024 + 64 + 128 + 128). */
START_TEST(pages_mapped_afresh_fault_again)
{
	struct faultgen_attr *a;
	struct faultgen_run *run = one_thread(
		mapped_afresh, 1344,
		"1024, then 64 reads and 128 and 128 first touches of pages "
		"mapped afresh", &a);

	ck_assert_double_eq(fgc_figure_or(run, "mmap", -1), 1);
	ck_assert_double_eq(fgc_figure_or(run, "munmap", -1), 1);
	ck_assert_double_eq(fgc_figure_or(run, "calls_failed", -1), -1);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* The calls that give pages back are made when a fault finds present
 * a page they give back: three passes and the two calls between them
 * in one bin, 768 faults (256 where the calls came first). */
START_TEST(pages_given_back_between_passes_in_a_bin)
{
	struct faultgen_attr *a;
	struct faultgen_run *run = one_thread(
		passes_in_a_bin, 768,
		"3 passes over 256 pages given back between", &a);

	ck_assert_double_eq(fgc_figure_or(run, "madvise", -1), 2);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* A thread's call that gives pages back waits for the other threads
 * of its process to be at its time, and they wait for it: the first
 * pass before it, the second after (1024 faults; 512 where the call
 * came first, as fast as the threads go). */
START_TEST(a_call_giving_pages_back_keeps_its_place_among_threads)
{
	struct faultgen_attr *a;
	struct faultgen_run *run = one_thread(
		given_back_by_another, 1024,
		"2 passes over 512 pages, given back between by another "
		"thread", &a);

	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* A call giving back pages that no other thread of its process
 * faults waits for none of them: thread 0's second pass over its own
 * 64 pages ends before thread 1's 16,384 faults of the first bin do,
 * where it once waited for them (an order of events, 256 times the
 * faults apart, as fast as the threads go). */
START_TEST(a_call_giving_back_a_threads_own_pages_waits_for_no_other)
{
	struct faultgen_replay_object own = { .size = sizeof(own) };
	struct faultgen_replay_object other = { .size = sizeof(other) };
	struct faultgen_attr *a;
	struct faultgen_run *run = one_thread(
		given_back_own_pages, 128,
		"2 passes over 64 pages given back between", &a);

	ck_assert_int_eq(faultgen_run_replay_object(run, 0, &own), 0);
	ck_assert_int_eq(faultgen_run_replay_object(run, 1, &other), 0);
	ck_assert_uint_eq(own.faults, 128);
	ck_assert_uint_eq(other.faults, 16384);
	ck_assert_double_eq(fgc_figure_or(run, "madvise", -1), 1);
	ck_assert_msg(own.last_s < other.last_s,
		      "thread 0's last fault %g s after the start, thread "
		      "1's %g s: the call waited for thread 1",
		      own.last_s, other.last_s);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* An mmap over an object's pages is made at its bin's start, before
 * the bin's faults of the object by the process's other threads:
 * thread 1's second pass over the 64 pages thread 0 mapped anew
 * faults each (128 minor faults), and they are present after (the
 * call was made after the pass, its faults none, the pages gone). */
START_TEST(pages_mapped_anew_by_another_thread_fault_after)
{
	struct faultgen_attr *a = replay_attr(mapped_anew_by_another);
	struct faultgen_worker_result w;
	struct faultgen_run *run = run_ok(a);

	worker(run, 1, &w);
	ck_assert_msg(w.minflt >= 128, "%llu minor faults for 2 x 64 pages",
		      (unsigned long long)w.minflt);
	ck_assert_double_eq(fgc_figure_or(run, "mmap", -1), 1);
	ck_assert_uint_eq(region_resident(run), 64);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* A thread late with faults of an object another thread of its
 * process faults too is helped by it, as a program's threads taking
 * their work as they go are: thread 1, waiting for its next bin, makes
 * some of thread 0's first touches, late from the first bin; every
 * page faults once, 8,194 in all. */
START_TEST(a_late_thread_is_helped_by_one_waiting)
{
	struct faultgen_attr *a = replay_attr(one_thread_late);
	struct faultgen_replay_object o = { .size = sizeof(o) };
	struct faultgen_run *run = run_ok(a);
	uint64_t by0 = faults_by(run, 0, 0), by1 = faults_by(run, 0, 1);

	ck_assert_int_eq(faultgen_run_replay_object(run, 0, &o), 0);
	ck_assert_uint_eq(o.faults, 8194);
	ck_assert_uint_eq(by0 + by1, 8194);
	ck_assert_msg(by1 > 2, "thread 1 made %llu faults, its own 2: it "
		      "did not help thread 0", (unsigned long long)by1);
	ck_assert_uint_eq(o.threads, 2);
	ck_assert_double_eq(fgc_figure_or(run, "first-touch", -1), 8194);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* A thread helps with an object only in the bins it faults it in
 * itself (the threads faulting it at once are those recorded): thread
 * 1, its first page in the 6th bin, makes none of thread 0's, late in
 * the first. */
START_TEST(a_thread_helps_in_the_bins_it_faults_the_object_only)
{
	struct faultgen_attr *a = replay_attr(one_thread_late_alone);
	struct faultgen_run *run = run_ok(a);

	ck_assert_uint_eq(faults_by(run, 0, 0), 8192);
	ck_assert_uint_eq(faults_by(run, 0, 1), 2);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* A thread that gives pages of the object back helps too, and its
 * call waits for the faults it helped with: thread 1 makes some of
 * thread 0's late first touches, then gives all 8,192 back; the two
 * pages of its own are the object's only ones present after. */
START_TEST(a_helper_giving_pages_back_waits_for_its_help)
{
	struct faultgen_attr *a = replay_attr(one_thread_late_given_back);
	struct faultgen_replay_object o = { .size = sizeof(o) };
	struct faultgen_run *run = run_ok(a);
	uint64_t by1 = faults_by(run, 0, 1);

	ck_assert_int_eq(faultgen_run_replay_object(run, 0, &o), 0);
	ck_assert_uint_eq(o.faults, 8194);
	ck_assert_msg(by1 > 2, "thread 1 made %llu faults, its own 2: it "
		      "did not help thread 0", (unsigned long long)by1);
	ck_assert_double_eq(fgc_figure_or(run, "madvise", -1), 1);
	ck_assert_uint_eq(region_resident(run), 2);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* The pages made present for copies in a random order are first
 * those outside the spans of the rows in a random order that fault
 * pages not present: 256 copies, then 256 first touches (fewer where
 * the copies' pages took some of the first 256). */
START_TEST(pages_present_for_copies_leave_first_touches_theirs)
{
	struct faultgen_attr *a;
	struct faultgen_run *run = one_thread(
		copies_and_first_touches, 256 + 256,
		"256 copies, 256 first touches", &a);

	ck_assert_double_eq(fgc_figure_or(run, "present_at_start", -1), 256);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* Rows in a random order over the same pages that fault pages not
 * present each had pages of their own, which the pages made present
 * for copies leave them: 2 x 600 copies, then 2 x 62 first touches
 * (62 where the two rows were given the same 62 pages). */
START_TEST(random_first_touches_over_one_span_keep_pages_each)
{
	struct faultgen_attr *a;
	struct faultgen_run *run = one_thread(
		two_forks_copies_and_first_touches, 2 * 600 + 2 * 62,
		"1200 copies, 124 first touches", &a);

	ck_assert_double_eq(fgc_figure_or(run, "present_at_start", -1),
			    1024 - 2 * 62);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* User faults and refaults of an object not writable are reads: 128 +
 * 64 faults (the profile was refused: "a write (user) to an object not
 * writable"). */
START_TEST(user_faults_of_an_object_not_writable_read)
{
	struct faultgen_attr *a;
	struct faultgen_run *run = one_thread(user_faults_read_only, 128 + 64,
					      "128 user faults, 64 refaults",
					      &a);

	ck_assert_double_eq(fgc_figure_or(run, "user", -1), 128);
	ck_assert_double_eq(fgc_figure_or(run, "refault", -1), 64);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* A row in a random order leaves the pages a later row in page order
 * faults: 256 + 512 faults, as recorded (about 640 where it took its
 * share of the upper half). */
START_TEST(random_rows_leave_pages_later_rows_need)
{
	struct faultgen_attr *a;
	struct faultgen_run *run = one_thread(
		random_then_seq, 256 + 512,
		"256 in a random order, 512 in page order", &a);

	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* A row in a random order leaves the pages a later row in a random
 * order needs: 256 first touches over 1024 pages, 256 reads over the
 * upper 256 (a quarter of them where the first took pages at random). */
START_TEST(random_rows_leave_pages_later_random_rows_need)
{
	struct faultgen_attr *a;
	struct faultgen_run *run = one_thread(
		random_then_random, 256 + 256,
		"256 first touches, 256 reads, each in a random order", &a);

	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* The results of workers 0 to n - 1 of a run of profile at speed. */
static void run_workers(const char *profile, const char *speed,
			struct faultgen_worker_result *w, unsigned int n)
{
	struct faultgen_attr *a = replay_attr(profile);
	struct faultgen_run *run;

	set_text(a, "speed", speed);
	run = run_ok(a);
	for (unsigned int i = 0; i < n; i++)
		worker(run, i, &w[i]);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}

/* A thousand times as fast, the fork's time (10 us) comes long before
 * the parent's 2048 writes are made: the fork waits for them, and the
 * child inherits the pages mapped (its reads fault nothing), as in the
 * recording. */
START_TEST(a_fork_waits_for_its_process_earlier_bins)
{
	struct faultgen_worker_result w[2];

	run_workers(fork_after_writes, "1000", w, 2);
	ck_assert_msg(w[1].minflt < 512,
		      "the child faulted %llu times reading 2048 pages its "
		      "parent wrote before the fork",
		      (unsigned long long)w[1].minflt);
	ck_assert_uint_ge(w[0].minflt, 2048);
}
END_TEST

/* The fork at 19.9 ms waits for the faults its process made before
 * it within its own bin (bin 1: 99% of its 2048), not only for those
 * of the bins before: the child inherits them and its reads fault on
 * the 1% alone. */
START_TEST(a_fork_waits_for_the_faults_before_it_in_its_bin)
{
	struct faultgen_worker_result w[2];

	run_workers(fork_late_in_a_bin, "1000", w, 2);
	ck_assert_msg(w[1].minflt < 1024,
		      "the child faulted %llu times reading 4096 pages, 4076 "
		      "of which its parent wrote before the fork",
		      (unsigned long long)w[1].minflt);
	ck_assert_uint_ge(w[0].minflt, 4096);
}
END_TEST

/* The parent's copies of the fork's bin wait for the fork, although
 * the parent is there long before the fork's time (a thousand times as
 * fast): 2048 copies. */
START_TEST(a_thread_does_not_run_past_its_process_fork)
{
	struct faultgen_worker_result w[1];

	run_workers(fork_in_the_middle_of_a_bin, "1000", w, 1);
	ck_assert_msg(w[0].minflt >= 2048 + 2048 &&
			      w[0].minflt <= 2048 + 2048 + 256,
		      "the parent faulted %llu times: 2048 first touches "
		      "and 2048 copies expected",
		      (unsigned long long)w[0].minflt);
}
END_TEST

/* Rows in a random order over the same pages pick pages that fault as
 * their kind: the copies fall on pages the child still shares, the
 * first touches on pages not present yet, as each of the recorded
 * faults did (the same pages again would fault nothing). */
START_TEST(random_rows_fault_pages_each_once)
{
	struct faultgen_worker_result w[1];

	run_workers(random_rows, "100", w, 1);
	ck_assert_msg(w[0].minflt >= 1024 + 800 + 800 &&
			      w[0].minflt <= 1024 + 800 + 800 + 64,
		      "the parent faulted %llu times: 1024 first touches, "
		      "then 800 copies and 800 first touches",
		      (unsigned long long)w[0].minflt);
}
END_TEST

/* A read of a shared object's page the process maps already (its
 * neighbour's fault mapped it) faults nothing: the reads in a random
 * order pick pages the child does not map, by its page table, and the
 * 16 in a row (faults each in the recording, not in the replay's order
 * of faults) have their mapping dropped first. */
START_TEST(random_reads_of_a_shared_object_fault_each)
{
	struct faultgen_worker_result w[2];

	run_workers(shared_random_reads, "100", w, 2);
	ck_assert_msg(w[1].minflt >= 80 && w[1].minflt <= 80 + 32,
		      "the child faulted %llu times: 80 reads recorded",
		      (unsigned long long)w[1].minflt);
}
END_TEST

/* The first byte of each of n pages at addr is val. */
static void assert_pages_hold(const char *addr, uint64_t n, char val)
{
	size_t ps = (size_t)fgc_pagesize();

	for (uint64_t p = 0; p < n; p++)
		ck_assert_msg(addr[p * ps] == val, "page %llu holds %d, not %d",
			      (unsigned long long)p, addr[p * ps], val);
}

START_TEST(fork_child_writes_copies)
{
	struct faultgen_attr *a = replay_attr(cow_fork);
	struct faultgen_worker_result w0, w1;
	struct faultgen_run *run = run_ok(a);
	void *addr;
	size_t len;

	worker(run, 0, &w0);
	worker(run, 1, &w1);
	ck_assert_int_eq(w0.pid, getpid());
	ck_assert_int_ne(w1.pid, getpid());
	ck_assert_uint_eq(w1.pages, 1024);
	/* Each of the child's writes a fault: a copy of the parent's page. */
	ck_assert_msg(fgc_close(1024, w1.minflt, 1), "child minflt %llu",
		      (unsigned long long)w1.minflt);
	ck_assert_double_eq(fgc_figure_or(run, "cow", -1), 1024);
	ck_assert_double_eq(fgc_figure_or(run, "first-touch", -1), 1024);
	/* The parent's pages hold the parent's writes (1), not the
	 * child's (2): the child wrote copies. */
	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	ck_assert_uint_eq(len, 4 * MIB);
	assert_pages_hold(addr, 1024, 1);
	faultgen_run_free(run);
	faultgen_attr_free(a);
	ck_assert(fgc_no_children());
}
END_TEST

START_TEST(shared_object_of_two_processes)
{
	struct faultgen_attr *a = replay_attr(shared_two);
	struct faultgen_worker_result w1;
	struct faultgen_run *run = run_ok(a);
	size_t ps = (size_t)fgc_pagesize();
	void *addr;
	size_t len;

	worker(run, 1, &w1);
	ck_assert_int_ne(w1.pid, getpid());
	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	/* Each process's writes, seen in the calling process's mapping. */
	assert_pages_hold(addr, 256, 1);
	assert_pages_hold((char *)addr + 256 * ps, 256, 2);
	ck_assert_double_eq(fgc_figure_or(run, "first-touch", -1), 512);
	faultgen_run_free(run);
	faultgen_attr_free(a);
	ck_assert(fgc_no_children());
}
END_TEST

/* A new directory of $TMPDIR, its name into dir. */
static void tmp_dir(char *dir, size_t len)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";

	snprintf(dir, len, "%s/fg-replay.XXXXXX", tmp);
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

/* The attr of a replay of profile whose file objects' files are made
 * in a new directory of $TMPDIR (its name into dir). */
static struct faultgen_attr *file_replay_attr(const char *profile, char *dir,
					      size_t len)
{
	struct faultgen_attr *a = replay_attr(profile);

	tmp_dir(dir, len);
	ck_assert_int_eq(faultgen_attr_set_backing(a, FAULTGEN_BACKING_FILE), 0);
	ck_assert_int_eq(faultgen_attr_set_backing_path(a, dir), 0);
	return a;
}

static unsigned int dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

START_TEST(file_object_read)
{
	char dir[512];
	struct faultgen_attr *a = file_replay_attr(file_read, dir, sizeof(dir));
	struct faultgen_worker_result w;
	struct faultgen_run *run;

	run = run_ok(a);
	/* Unlinked as soon as it was made. */
	ck_assert_uint_eq(dir_entries(dir), 0);
	worker(run, 0, &w);
	ck_assert_uint_eq(w.pages, 512);
	ck_assert_double_eq(fgc_figure_or(run, "read", -1), 512);
	/* Read faults counted (fault-around may map several at once). */
	ck_assert_uint_gt(w.minflt + w.majflt, 0);
	ck_assert_uint_le(w.minflt + w.majflt, 512 + 64);
	faultgen_run_free(run);
	faultgen_attr_free(a);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* A file object mapped private (copies recorded): 64 pages read, then
 * copied, the first 32 read again (the copies dropped, the file's pages
 * mapped), then 32 copies in a random order: of those 32 pages, the
 * others are copies already (64 + 64 + 32 + 32 faults; fewer where the
 * state of a dropped copy stayed written). */
static const char file_private[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"file\",\"size\":262144,"
	"\"writable\":true}],"
	"\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
	"\"exit_ms\":null,\"objects\":[0]}],"
	"\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0}],"
	"\"faults\":[[0,0,0,1,\"read\",64,0,63,\"seq\",1],"
	"[0,0,1,1,\"cow\",64,0,63,\"seq\",1],"
	"[0,0,2,1,\"read\",32,0,31,\"seq\",1],"
	"[0,0,3,1,\"cow\",32,0,63,\"random\",1]],\"calls\":null}";

/* Process 0 copies the 64 pages of a file mapped private in bin 0 and
 * forks process 1 at 5 ms, in the middle of that bin, then writes its
 * copies again in bin 2: the copies of bin 0 are of the file's pages,
 * made before the fork (as a program writes its data before it forks),
 * so that the fork shares them and the writes of bin 2 copy again (after
 * the fork, they would be the parent's own pages: no fault). */
static const char file_private_fork[] = HEAD
	"\"objects\":[{\"id\":0,\"backing\":\"file\",\"size\":262144,"
	"\"writable\":true}],"
	FORK_AT_5_MS
	"\"faults\":[[0,0,0,1,\"cow\",64,0,63,\"seq\",1],"
	"[0,0,2,1,\"cow\",64,0,63,\"seq\",1],"
	"[1,0,4,1,\"read\",1,0,0,\"seq\",1]],\"calls\":null}";

/* The faults (minor and major) the replaying thread of thread 0 of a
 * profile with a file object took, unpaced, as the kernel counted them
 * (RUSAGE_THREAD); the figure of kind is its expected count. */
static uint64_t thread_faults(const char *profile, const char *dir,
			      const char *kind, double expected)
{
	struct faultgen_attr *a = replay_attr(profile);
	struct faultgen_worker_result w;
	struct faultgen_run *run;

	set_pacing(a, "none");
	ck_assert_int_eq(faultgen_attr_set_backing(a, FAULTGEN_BACKING_FILE), 0);
	ck_assert_int_eq(faultgen_attr_set_backing_path(a, dir), 0);
	run = run_ok(a);
	worker(run, 0, &w);
	ck_assert_double_eq(fgc_figure_or(run, kind, -1), expected);
	faultgen_run_free(run);
	faultgen_attr_free(a);
	ck_assert_uint_eq(dir_entries(dir), 0);
	return w.minflt + w.majflt;
}

START_TEST(file_object_private_copies_before_a_fork)
{
	char dir[512];
	uint64_t n;

	tmp_dir(dir, sizeof(dir));
	n = thread_faults(file_private_fork, dir, "cow", 128);
	/* 64 copies of the file's pages (each page mapped first, 16 at
	 * a read), 64 of the pages shared with the child. */
	ck_assert_msg(n >= 128 && n <= 128 + 32,
		      "the parent faulted %llu times: 64 copies before the "
		      "fork and 64 after it",
		      (unsigned long long)n);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

START_TEST(file_object_private_copies)
{
	char dir[512];
	uint64_t n;

	tmp_dir(dir, sizeof(dir));
	n = thread_faults(file_private, dir, "cow", 96);
	ck_assert_msg(n >= 192 && n <= 192 + 16,
		      "%llu faults: 96 reads, 96 copies", (unsigned long long)n);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* A directory of $TMPDIR for a file object's file, on a file system
 * that writes pages back (not tmpfs or ramfs): false where it is not. */
static bool disk_dir(char *dir, size_t len)
{
	struct statfs fs;

	tmp_dir(dir, len);
	ck_assert_int_eq(statfs(dir, &fs), 0);
	if (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC) {
		rmdir(dir);
		return false;
	}
	return true;
}

/* The major faults the replaying thread of a one-thread profile with a
 * file object took (RUSAGE_THREAD). */
static uint64_t thread_majors(const char *profile, const char *dir)
{
	struct faultgen_attr *a = replay_attr(profile);
	struct faultgen_worker_result w;
	struct faultgen_run *run;

	set_pacing(a, "none");
	ck_assert_int_eq(faultgen_attr_set_backing(a, FAULTGEN_BACKING_FILE), 0);
	ck_assert_int_eq(faultgen_attr_set_backing_path(a, dir), 0);
	run = run_ok(a);
	worker(run, 0, &w);
	ck_assert_uint_ge(w.minflt + w.majflt, 1);
	faultgen_run_free(run);
	faultgen_attr_free(a);
	return w.majflt;
}

/* A file object's first touches and reads were minor faults in the
 * recording (its pages were in the page cache: a major fault is a row
 * of its own): minor in the replay too, on a file system whose new
 * file's pages are not in the page cache until read or written, and
 * where the object has major faults (read one page a fault, without
 * read-around). */
START_TEST(file_object_minor_faults_stay_minor)
{
	char dir[512];
	uint64_t writes, reads;

	if (!disk_dir(dir, sizeof(dir)))
		FGC_SKIP("TMPDIR is a tmpfs: its faults are never major");
	writes = thread_majors(file_writes, dir);
	reads = thread_majors(file_read, dir);
	ck_assert_msg(writes == 2 && reads == 0,
		      "%llu major faults writing 512 pages and reading 2 "
		      "majors, %llu reading 512 pages: 2 and none recorded",
		      (unsigned long long)writes,
		      (unsigned long long)reads);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* 128 write-notify faults on 64 pages read before: 128 faults more
 * than the reads alone, within the few faults a run's thread takes
 * besides its object's (its stack, a code page, a sanitizer's shadow:
 * the two runs took 195 and 68 under clang's ASan).  A replay that
 * only wrote would fault the first pass only (the second's pages are
 * mapped writable by then), one that only read would fault none, one
 * without the writeback between the passes the first pass only: 64
 * fewer or more. */
START_TEST(file_object_write_notify)
{
	struct faultgen_attr *a;
	uint64_t reads, both, slack = 8;
	char dir[512], msg[256] = "";

	if (!disk_dir(dir, sizeof(dir)))
		FGC_SKIP("TMPDIR is a tmpfs: it tracks no dirty pages");
	reads = thread_faults(file_reads, dir, "read", 64);
	both = thread_faults(file_write_notify, dir, "write-notify", 128);
	ck_assert_msg(reads > 0 && both + slack >= reads + 128 &&
			      both <= reads + 128 + slack,
		      "%llu faults with the write-notify row, %llu without: "
		      "not 128 more", (unsigned long long)both,
		      (unsigned long long)reads);
	ck_assert_int_eq(rmdir(dir), 0);
	ck_assert(fgc_no_children());
	/* Not in a shared file: refused, naming the kind and the object. */
	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, FAULTGEN_REPLAY), 0);
	ck_assert_int_eq(faultgen_attr_set_profile_buffer(
				 a, shared_anon_write_notify,
				 strlen(shared_anon_write_notify)),
			 -EINVAL);
	faultgen_attr_profile_error(a, msg, sizeof(msg));
	ck_assert_str_eq(msg, "faults[0][4]: write-notify faults in "
			      "objects[0], shared-anonymous, not a shared "
			      "file: not replayed");
	faultgen_attr_free(a);
}
END_TEST

/* The major row's pages were read and mapped by the read row: each is
 * put out of the page cache (MADV_PAGEOUT, written back and dropped)
 * and read again from the file, a major fault each; without that the
 * second row faults nothing. */
START_TEST(file_object_major_faults)
{
	struct faultgen_attr *a = replay_attr(file_major);
	struct faultgen_worker_result w;
	struct faultgen_run *run;
	char dir[512];

	if (!disk_dir(dir, sizeof(dir))) {
		faultgen_attr_free(a);
		FGC_SKIP("TMPDIR is a tmpfs: its pages never leave memory");
	}
	ck_assert_int_eq(faultgen_attr_set_backing(a, FAULTGEN_BACKING_FILE), 0);
	ck_assert_int_eq(faultgen_attr_set_backing_path(a, dir), 0);
	run = run_ok(a);
	worker(run, 0, &w);
	ck_assert_double_eq(fgc_figure_or(run, "major", -1), 256);
	ck_assert_msg(w.majflt >= 256 && w.minflt + w.majflt >= 256 + 16,
		      "%llu minor and %llu major faults for 16 reads and "
		      "256 pages read again",
		      (unsigned long long)w.minflt,
		      (unsigned long long)w.majflt);
	faultgen_run_free(run);
	faultgen_attr_free(a);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* In memory not a file's a major fault (a swap-in) is replayed as a
 * read of a page not present, a minor fault, and counted so. */
START_TEST(anonymous_major_faults_are_reads_counted_apart)
{
	struct faultgen_attr *a = replay_attr(anon_major);
	struct faultgen_worker_result w;
	struct faultgen_run *run = run_ok(a);

	worker(run, 0, &w);
	ck_assert_double_eq(fgc_figure_or(run, "major_as_read", -1), 256);
	ck_assert_double_eq(fgc_figure_or(run, "read", -1), 256);
	ck_assert_double_eq(fgc_figure_or(run, "major", -1), 0);
	ck_assert_msg(w.minflt + w.majflt >= 256,
		      "%llu minor and %llu major faults for 256 pages read",
		      (unsigned long long)w.minflt,
		      (unsigned long long)w.majflt);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* Paced, a bin's faults are spread over it, as the profile counts
 * them, not made at its start: 64 faults of a 100 ms bin, the first at
 * 0.8 ms of it, the last at 99.2 ms, more than 50 ms apart (a sleep
 * ends no sooner than asked; made at once, they took a few ms). */
START_TEST(pacing_spreads_a_bins_faults_over_it)
{
	struct faultgen_attr *a = replay_attr(one_slow_bin);
	struct faultgen_replay_object o = { .size = sizeof(o) };
	struct faultgen_run *run = run_ok(a);

	ck_assert_int_eq(faultgen_run_replay_object(run, 0, &o), 0);
	ck_assert_uint_eq(o.faults, 64);
	ck_assert_msg(o.last_s - o.first_s > 0.05,
		      "64 faults of a 100 ms bin from %g s to %g s",
		      o.first_s, o.last_s);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(pacing_counts_bins)
{
	struct faultgen_attr *a = replay_attr(paced);
	struct faultgen_run *run;
	double bins, late;

	set_text(a, "speed", "4");
	run = run_ok(a);
	bins = fgc_figure_or(run, "bins", -1);
	late = fgc_figure_or(run, "bins_late", -1);
	/* Bins 0 .. 5, each once, whether late or not. */
	ck_assert_double_eq(bins, 6);
	ck_assert(late >= 0 && late <= bins);
	ck_assert_double_eq(fgc_figure_or(run, "first-touch", -1), 300);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(scale_scales_pages_and_counts)
{
	struct faultgen_attr *a = replay_attr(two_threads);
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_run *run;
	uint64_t mapped = 0;

	set_pacing(a, "none");
	set_text(a, "scale", "0.5");
	ck_assert_int_eq(faultgen_attr_get_memory(a, &mapped, NULL), 0);
	ck_assert_uint_eq(mapped, 4 * MIB);
	run = run_ok(a);
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	ck_assert_uint_eq(r.pages, 1024);
	ck_assert(r.faults_agree);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* Bad profiles: each a change of two_threads, its error and the member
 * its message names. */
static const struct {
	const char *from, *to;
	int err;
	const char *says;
} bad[] = {
	{ "pft-profile/1", "pft-profile/2", -EPROTONOSUPPORT, "schema:" },
	{ "pft-profile/1", "pft-profile", -EINVAL, "schema:" },
	{ "\"period\":1,", "", -EINVAL, "period: missing" },
	{ "\"bin_ms\":10", "\"bin_ms\":\"10\"", -EINVAL, "bin_ms: not a number" },
	{ "\"page_size\":4096", "\"page_size\":4000", -EINVAL, "page_size" },
	{ "\"first-touch\",1024,0,", "\"frist-touch\",1024,0,", -EINVAL,
	  "faults[0][4]: unknown kind \"frist-touch\"" },
	{ "\"first-touch\",1024,0,", "\"write-notify\",1024,0,", -EINVAL,
	  "faults[0][4]: write-notify faults in objects[0], anonymous, not a "
	  "shared file" },
	{ "1024,2047,\"random\"", "1024,2048,\"random\"", -EINVAL,
	  "faults[1][7]" },
	{ "[1,0,0,3", "[9,0,0,3", -EINVAL, "faults[1][0]: no thread" },
	{ "\"id\":1,\"process\":0", "\"id\":1,\"process\":3", -EINVAL,
	  "threads[1].process: no process" },
	{ "\"size\":8388608", "\"size\":8388609", -EINVAL, "objects[0].size" },
	{ "\"backing\":\"anonymous\"", "\"backing\":\"tape\"", -EINVAL,
	  "objects[0].backing: unknown backing" },
	{ ",\"seq\",1]", ",\"seq\"]", -EINVAL, "faults[0]: 9 elements" },
	{ "\"calls\":null", "\"calls\":[1]", -EINVAL, "calls[0]: not an array" },
	{ "\"calls\":null", "\"calls\":{}", -EINVAL, "calls: not an array" },
	{ "\"calls\":null", "\"calls\":[[0,0,0,\"madvise\",\"free\",1,0,0]]",
	  -EINVAL, "calls[0]: 8 elements, not 9" },
	{ "\"calls\":null", "\"calls\":[[0,0,0,\"brk\",null,1,0,0,0]]",
	  -EINVAL, "calls[0][3]: unknown call \"brk\"" },
	{ "\"calls\":null", "\"calls\":[[0,0,0,\"madvise\",\"dontned\",1,0,0,0]]",
	  -EINVAL, "calls[0][4]: unknown advice \"dontned\"" },
	{ "\"calls\":null", "\"calls\":[[0,0,0,\"madvise\",\"100\",1,0,0,0]]",
	  -EINVAL, "calls[0][4]: advice 100 (a page taken out of use)" },
	{ "\"calls\":null", "\"calls\":[[0,0,0,\"mprotect\",\"wr\",1,0,0,0]]",
	  -EINVAL, "calls[0][4]: unknown protection \"wr\"" },
	{ "\"calls\":null", "\"calls\":[[0,null,0,\"mmap\",\"rw\",1,0,0,0]]",
	  -EINVAL, "calls[0][4]: not null" },
	{ "\"calls\":null", "\"calls\":[[0,3,0,\"munmap\",null,1,0,0,0]]",
	  -EINVAL, "calls[0][1]: no object has id 3" },
	{ "\"calls\":null", "\"calls\":[[0,0,0,\"madvise\",\"free\",1,2048,2048,1]]",
	  -EINVAL, "calls[0][6]: 2048 is more than 2047" },
	{ "\"calls\":null", "\"calls\":[[0,0,0,\"madvise\",\"free\",1,8,7,1]]",
	  -EINVAL, "calls[0][7]: below first" },
	{ "\"calls\":null", "\"calls\":[[5,0,0,\"mmap\",null,1,0,0,0]]",
	  -EINVAL, "calls[0][0]: no thread" },
	{ "\"parent\":null", "\"parent\":0", -EINVAL, "processes[0].parent" },
	{ "}]", "},]", -EINVAL, "line 1, column" },
	{ "\"threads\":[", "\"threads\":{", -EINVAL, "line 1" },
	/* What the input holds is never a line of the message. */
	{ "\"recorder\":\"check_replay\"", "\"recorder\":\"\\\n\"", -EINVAL,
	  "a bad escape: \\ and byte 0x0a" },
	{ "\"first-touch\",1024,0,", "\"first\\ntouch\",1024,0,", -EINVAL,
	  "faults[0][4]: unknown kind \"first?touch\"" },
};

/* two_threads with the first `from` replaced by `to`. */
static char *changed(const char *from, const char *to)
{
	const char *at = strstr(two_threads, from);
	size_t head, tlen = strlen(to), rest;
	char *s;

	ck_assert_ptr_nonnull(at);
	head = (size_t)(at - two_threads);
	rest = strlen(at + strlen(from));
	s = malloc(head + tlen + rest + 1);
	ck_assert_ptr_nonnull(s);
	/* Terminated by the last copy (rest + 1 bytes). */
	memcpy(s, two_threads, head); // NOLINT(bugprone-not-null-terminated-result)
	memcpy(s + head, to, tlen); // NOLINT(bugprone-not-null-terminated-result)
	memcpy(s + head + tlen, at + strlen(from), rest + 1);
	return s;
}

START_TEST(bad_profile_refused_naming_the_member)
{
	struct faultgen_attr *a = replay_attr(paced);
	char *text = changed(bad[_i].from, bad[_i].to), msg[256] = "";
	struct faultgen_run *run;
	int ret = faultgen_attr_set_profile_buffer(a, text, strlen(text));

	ck_assert_int_eq(ret, bad[_i].err);
	ck_assert_int_gt(faultgen_attr_profile_error(a, msg, sizeof(msg)), 0);
	ck_assert_msg(strstr(msg, bad[_i].says), "\"%s\" does not say \"%s\"",
		      msg, bad[_i].says);
	ck_assert_ptr_null(strchr(msg, '\n'));
	/* The attr keeps the profile it had. */
	run = run_ok(a);
	ck_assert_double_eq(fgc_figure_or(run, "first-touch", -1), 300);
	faultgen_run_free(run);
	free(text);
	faultgen_attr_free(a);
}
END_TEST

START_TEST(truncated_profile_refused)
{
	struct faultgen_attr *a;
	char msg[256];

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	for (size_t n = 0; n < sizeof(two_threads) - 1; n += 7) {
		ck_assert_int_eq(faultgen_attr_set_profile_buffer(a, two_threads,
								  n),
				 -EINVAL);
		ck_assert_int_gt(faultgen_attr_profile_error(a, msg,
							     sizeof(msg)),
				 0);
		ck_assert_msg(strstr(msg, "ends early"), "%zu: %s", n, msg);
	}
	faultgen_attr_free(a);
}
END_TEST

START_TEST(profile_file_read_and_refused)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	struct faultgen_attr *a;
	char path[512], msg[256];
	FILE *f;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_profile_error(a, msg, sizeof(msg)),
			 -ENODATA);
	snprintf(path, sizeof(path), "%s/fg-replay-%d.json", tmp, getpid());
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(paced, f);
	fclose(f);
	ck_assert_int_eq(faultgen_attr_set_profile(a, path), 0);
	ck_assert_int_eq(faultgen_attr_set_profile(a, "/nonexistent/p.json"),
			 -ENOENT);
	ck_assert_int_eq(faultgen_attr_set_profile(a, tmp), -EINVAL);
	ck_assert_int_eq(faultgen_attr_profile_error(a, msg, sizeof(msg)),
			 (int)strlen(msg));
	ck_assert_ptr_nonnull(strstr(msg, "not a regular file"));
	ck_assert_int_eq(faultgen_attr_set_profile(a, "/dev/zero"), -EINVAL);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, FAULTGEN_REPLAY), 0);
	faultgen_run_free(run_ok(a));
	unlink(path);
	faultgen_attr_free(a);
}
END_TEST

/* Writes text into a new file of $TMPDIR, its name into path. */
static void write_profile(char *path, size_t len, const char *text)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	int fd;

	snprintf(path, len, "%s/fg-replay.XXXXXX", tmp);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	ck_assert_int_eq(close(fd), 0);
}

/* The profile is read and parsed once: when faultgen_attr_set_profile
 * sets it (the file gone, its memory and its run are the profile's),
 * or, for a path set as a value, when the run is created (the file
 * gone before the run executes). */
START_TEST(profile_read_once)
{
	struct faultgen_result r = { .size = sizeof(r) };
	struct faultgen_attr *a;
	struct faultgen_run *run;
	uint64_t mapped = 0;
	char path[512];

	write_profile(path, sizeof(path), two_threads);
	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_pattern(a, FAULTGEN_REPLAY), 0);
	ck_assert_int_eq(faultgen_attr_set_profile(a, path), 0);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(faultgen_attr_get_memory(a, &mapped, NULL), 0);
	ck_assert_uint_eq(mapped, 8 * MIB);
	run = run_ok(a);
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	ck_assert_uint_eq(r.workers, 2);
	ck_assert_uint_eq(r.pages, 2048);
	faultgen_run_free(run);
	/* The same path set as a value: the parsed profile dropped. */
	set_text(a, "profile", path);
	ck_assert_int_eq(faultgen_attr_get_memory(a, &mapped, NULL), 0);
	ck_assert_uint_eq(mapped, 0);
	write_profile(path, sizeof(path), paced);
	set_text(a, "profile", path);
	ck_assert_int_eq(faultgen_run_create(a, &run), 0);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(faultgen_run_exec(run), 0);
	ck_assert_int_eq(faultgen_run_result(run, &r), 0);
	ck_assert_uint_eq(r.workers, 1);
	ck_assert_uint_eq(r.pages, 300);
	faultgen_run_free(run);
	faultgen_attr_free(a);
	ck_assert(fgc_no_children());
}
END_TEST

/* A run that fails over what the profile asks: its error and message. */
static void assert_run_refused(struct faultgen_attr *a, int err,
			       const char *says)
{
	struct faultgen_run *run = NULL;
	char msg[256] = "";
	int ret;

	ck_assert_int_eq(faultgen_run_create(a, &run), 0);
	ret = faultgen_run_exec(run);
	ck_assert_int_eq(ret, err);
	ck_assert_int_gt(faultgen_run_profile_error(run, msg, sizeof(msg)), 0);
	ck_assert_msg(strstr(msg, says), "\"%s\" does not say \"%s\"", msg,
		      says);
	faultgen_run_free(run);
	ck_assert(fgc_no_children());
}

START_TEST(run_refusals_name_the_member)
{
	struct faultgen_attr *a = replay_attr(file_read);

	/* A file object without a directory. */
	assert_run_refused(a, -ENOENT, "objects[0]: cannot map");
	faultgen_attr_free(a);
	/* Workers other than the profile's threads. */
	a = replay_attr(two_threads);
	ck_assert_int_eq(faultgen_attr_set_workers(a, 1, FAULTGEN_THREADS), 0);
	assert_run_refused(a, -EINVAL, "threads: 2 in the profile");
	faultgen_attr_free(a);
}
END_TEST

/* On tmpfs a shared file's pages are mapped writable at their first
 * fault: the run is refused before any fault, naming the object. */
START_TEST(write_notify_refused_on_tmpfs)
{
	struct faultgen_attr *a = replay_attr(file_write_notify);
	struct statfs fs;
	char dir[] = "/dev/shm/fg-replay.XXXXXX";

	if (statfs("/dev/shm", &fs) || fs.f_type != TMPFS_MAGIC ||
	    !mkdtemp(dir)) {
		faultgen_attr_free(a);
		FGC_SKIP("no tmpfs at /dev/shm to make a directory in");
	}
	ck_assert_int_eq(faultgen_attr_set_backing(a, FAULTGEN_BACKING_FILE), 0);
	ck_assert_int_eq(faultgen_attr_set_backing_path(a, dir), 0);
	assert_run_refused(a, -EOPNOTSUPP, "objects[0]: its write-notify "
					   "faults need a file system");
	ck_assert_uint_eq(dir_entries(dir), 0);
	ck_assert_int_eq(rmdir(dir), 0);
	faultgen_attr_free(a);
}
END_TEST

/* A hugetlb object of one huge page more than the pool has free. */
START_TEST(hugetlb_without_huge_pages)
{
	uint64_t avail = 0;
	struct faultgen_attr *a;
	char profile[1024];

	if (fg_huge_pages_free(2 * MIB, &avail))
		avail = 0;
	snprintf(profile, sizeof(profile), HEAD
		 "\"objects\":[{\"id\":0,\"backing\":\"hugetlb\","
		 "\"size\":%llu,\"writable\":true}],"
		 "\"processes\":[{\"id\":0,\"parent\":null,\"fork_ms\":0,"
		 "\"exit_ms\":null,\"objects\":[0]}],"
		 "\"threads\":[{\"id\":0,\"process\":0,\"start_ms\":0}],"
		 "\"faults\":[[0,0,0,1,\"huge\",1,0,511,\"seq\",1]],"
		 "\"calls\":null}",
		 (unsigned long long)((avail + 1) * 2 * MIB));
	a = replay_attr(profile);
	assert_run_refused(a, -ENOSPC, "objects[0]: hugetlb");
	faultgen_attr_free(a);
}
END_TEST

START_TEST(json_reader_is_strict)
{
	static const struct {
		const char *text;
		int ok;
	} cases[] = {
		{ "{}", 1 }, { "[1,2.5e3,-0.25,\"a\\u00e9\\ud83d\\ude00\"]", 1 },
		{ " {\"a\":[true,false,null]} ", 1 },
		{ "[01]", 0 }, { "[1,]", 0 }, { "{\"a\":1,}", 0 },
		{ "[1.]", 0 }, { "[.5]", 0 }, { "[1e]", 0 }, { "[+1]", 0 },
		{ "\"\\x\"", 0 }, { "\"\\ud800\"", 0 }, { "\"\\u0000\"", 0 },
		{ "\"a\tb\"", 0 }, { "\"\xc3\"", 0 }, { "\"\xed\xa0\x80\"", 0 },
		{ "[1] 2", 0 }, { "", 0 }, { "nul", 0 }, { "[1e999]", 0 },
		{ "{'a':1}", 0 }, { "// c\n{}", 0 },
	};
	struct fg_json_doc doc;
	char deep[200];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret = fg_json_parse(cases[i].text, strlen(cases[i].text),
					&doc);

		ck_assert_msg((ret == 0) == cases[i].ok, "%s: %d %s",
			      cases[i].text, ret, doc.error);
		if (ret)
			ck_assert_ptr_nonnull(strstr(doc.error, "line 1"));
		fg_json_free(&doc);
	}
	ck_assert_int_eq(fg_json_parse("[2.5e3,\"a\\n\\u00e9\"]", 19, &doc),
			 0);
	ck_assert_double_eq(doc.node[1].num, 2500);
	ck_assert_str_eq(doc.node[2].str, "a\n\xc3\xa9");
	fg_json_free(&doc);
	/* Nested deeper than the limit. */
	memset(deep, '[', sizeof(deep));
	ck_assert_int_eq(fg_json_parse(deep, sizeof(deep), &doc), -EINVAL);
	ck_assert_ptr_nonnull(strstr(doc.error, "nested deeper"));
	fg_json_free(&doc);
}
END_TEST

/* The run's CPUs hold every thread of the replay, a forked process's
 * too, from its first fault to its last; pinned (_i 1), each says
 * its CPU. */
START_TEST(threads_and_processes_run_on_the_run_cpus)
{
	/* The last CPU of the caller's mask: one a default placement may
	 * leave; none where the caller has one CPU only. */
	int cpu = fgc_affinity_count() < 2 ? -1 : fgc_affinity_edge(true);
	struct faultgen_attr *a;
	struct faultgen_worker_result w;
	struct faultgen_run *run;
	char list[16];

	if (cpu < 0)
		FGC_SKIP("one CPU: no other to keep the threads off");
	a = replay_attr(cow_fork);
	snprintf(list, sizeof(list), "%d", cpu);
	ck_assert_int_eq(faultgen_attr_set_cpus(a, list), 0);
	ck_assert_int_eq(faultgen_attr_set_pin(a, _i), 0);
	run = run_ok(a);
	for (unsigned int i = 0; i < 2; i++) {
		worker(run, i, &w);
		ck_assert_int_eq(w.cpu, _i ? cpu : -1);
		ck_assert_msg(w.last_cpu == cpu, "worker %u ended on CPU %d, "
			      "not %d", i, w.last_cpu, cpu);
	}
	ck_assert_double_eq(fgc_figure_or(run, "cow", -1), 1024);
	faultgen_run_free(run);
	faultgen_attr_free(a);
	ck_assert(fgc_no_children());
}
END_TEST

/* The run's memory policy is its objects' (get_mempolicy of the
 * address): local (_i 0), bound to every node (_i 1). */
START_TEST(the_memory_policy_is_the_objects)
{
	struct faultgen_attr *a = replay_attr(two_threads);
	struct faultgen_run *run;
	int mode = -1, ret;
	size_t len;
	void *addr;

	ret = _i ? faultgen_attr_set_numa_nodes(a, FAULTGEN_NUMA_BIND, "all")
		 : faultgen_attr_set_numa(a, FAULTGEN_NUMA_LOCAL);
	if (ret == -EOPNOTSUPP) {
		faultgen_attr_free(a);
		FGC_SKIP("no NUMA support in this kernel");
	}
	ck_assert_int_eq(ret, 0);
	run = run_ok(a);
	ck_assert_int_eq(faultgen_run_region(run, &addr, &len), 0);
	ck_assert_int_eq(syscall(SYS_get_mempolicy, &mode, NULL, 0UL, addr,
				 (unsigned long)MPOL_F_ADDR), 0);
	if (_i)
		ck_assert_int_eq(mode, MPOL_BIND);
	else /* an empty MPOL_PREFERRED reads back as MPOL_LOCAL lately */
		ck_assert_msg(mode == MPOL_PREFERRED || mode == MPOL_LOCAL,
			      "policy %d", mode);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* Each fault replayed is a touch timed, one in every N where asked
 * (_i: 1 or 3), per thread, a forked process's too. */
START_TEST(latency_times_each_thread_faults)
{
	unsigned int every = _i ? 3 : 1, per = (1024 + every - 1) / every;
	struct faultgen_attr *a = replay_attr(cow_fork);
	struct faultgen_latency l;
	struct faultgen_run *run;

	ck_assert_int_eq(faultgen_attr_set_latency(a, every), 0);
	run = run_ok(a);
	for (int i = -1; i < 2; i++) {
		memset(&l, 0, sizeof(l));
		l.size = sizeof(l);
		ck_assert_int_eq(faultgen_run_latency(run, i, &l), 0);
		ck_assert_uint_eq(l.count, i < 0 ? 2 * per : per);
		ck_assert_uint_eq(l.sample_every, every);
		ck_assert_int_eq(l.per_call, 0);
		ck_assert(l.min_ns > 0 && l.min_ns <= l.max_ns);
	}
	faultgen_run_free(run);
	faultgen_attr_free(a);
	ck_assert(fgc_no_children());
}
END_TEST

/* The lock paths and waits of each thread, a forked process's too: at
 * least its faults, as user faults; or why not (tracefs is root's). */
START_TEST(lock_paths_and_waits_of_each_thread)
{
	struct faultgen_attr *a = replay_attr(cow_fork);
	struct faultgen_lock_paths lp = { .size = sizeof(lp) };
	struct faultgen_lock_waits lw = { .size = sizeof(lw) };
	struct faultgen_run *run;
	int ret;

	ck_assert_int_eq(faultgen_attr_set_lock_paths(a, 1), 0);
	ck_assert_int_eq(faultgen_attr_set_lock_waits(a, 1), 0);
	run = run_ok(a);
	ret = faultgen_run_lock_paths(run, FAULTGEN_LOCK_WORKERS, &lp);
	if (!fgc_is_root() || access("/sys/kernel/tracing/events", R_OK) < 0)
		ck_assert_msg(ret == -EACCES || ret == -ENOENT, "%d", ret);
	if (ret) {
		faultgen_run_free(run);
		faultgen_attr_free(a);
		FGC_SKIP("the lock tracepoints may not be read: %s",
			 faultgen_strerror(ret));
	}
	ck_assert_uint_eq(lp.threads, 2);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(faultgen_run_lock_paths(run, i, &lp), 0);
		ck_assert_msg(lp.user_faults >= 1024 &&
				      lp.user_faults <= 1024 + 64,
			      "worker %d: %llu user faults", i,
			      (unsigned long long)lp.user_faults);
		ck_assert_int_eq(faultgen_run_lock_waits(run, i, &lw), 0);
		ck_assert_uint_eq(lw.threads, 1);
		ck_assert_uint_ge(lw.faults, 1024);
	}
	faultgen_run_free(run);
	faultgen_attr_free(a);
	ck_assert(fgc_no_children());
}
END_TEST

/* What the replay made of each object, by thread and kind; a fork's
 * child copies after its parent's writes (the fork waits for them):
 * never in the same window. */
START_TEST(objects_measured_by_thread_kind_and_window)
{
	struct faultgen_attr *a = replay_attr(cow_fork);
	struct faultgen_replay_object o = { .size = sizeof(o) };
	struct faultgen_run *run = run_ok(a);
	uint64_t n;

	ck_assert_int_eq(faultgen_run_replay_object(run, 0, &o), 0);
	ck_assert_str_eq(o.backing, "anonymous");
	ck_assert_uint_eq(o.bytes, 4 * MIB);
	ck_assert_uint_eq(o.faults, 2048);
	ck_assert_uint_eq(o.threads, 2);
	ck_assert_uint_eq(o.processes, 2);
	ck_assert_uint_eq(o.threads_most, 1);
	ck_assert_uint_eq(o.processes_most, 1);
	ck_assert_double_eq(o.threads_median, 1);
	ck_assert_double_eq(o.processes_median, 1);
	ck_assert(o.first_s >= 0 && o.first_s <= o.last_s);
	ck_assert_uint_eq(o.merged_windows, 0);
	ck_assert_int_eq(faultgen_run_replay_faults(run, 0, -1, NULL, &n), 0);
	ck_assert_uint_eq(n, 2048);
	ck_assert_int_eq(faultgen_run_replay_faults(run, 0, 0, "first-touch",
						    &n), 0);
	ck_assert_uint_eq(n, 1024);
	ck_assert_int_eq(faultgen_run_replay_faults(run, 0, 0, "cow", &n), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(faultgen_run_replay_faults(run, 0, 1, "cow", &n), 0);
	ck_assert_uint_eq(n, 1024);
	ck_assert_int_eq(faultgen_run_replay_faults(run, 0, -1, "frist", &n),
			 -EINVAL);
	ck_assert_int_eq(faultgen_run_replay_faults(run, 1, -1, NULL, &n),
			 -ERANGE);
	ck_assert_int_eq(faultgen_run_replay_faults(run, 0, 2, NULL, &n),
			 -ERANGE);
	ck_assert_int_eq(faultgen_run_replay_object(run, 1, &o), -ERANGE);
	o.size = sizeof(size_t);
	ck_assert_int_eq(faultgen_run_replay_object(run, 0, &o), -EINVAL);
	ck_assert_str_eq(faultgen_replay_kind_name(0), "first-touch");
	ck_assert_ptr_null(faultgen_replay_kind_name(999));
	faultgen_run_free(run);
	faultgen_attr_free(a);
	ck_assert(fgc_no_children());
}
END_TEST

/* Unpaced, the threads start at once: their faults' times count from
 * the replay's start, none before it. */
START_TEST(objects_timed_from_the_replay_start)
{
	struct faultgen_attr *a = replay_attr(two_threads);
	struct faultgen_replay_object o = { .size = sizeof(o) };
	struct faultgen_run *run;

	set_pacing(a, "none");
	run = run_ok(a);
	ck_assert_int_eq(faultgen_run_replay_object(run, 0, &o), 0);
	ck_assert_uint_eq(o.faults, 2048);
	ck_assert_msg(o.first_s > 0 && o.last_s > o.first_s,
		      "first %g s, last %g s", o.first_s, o.last_s);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/* Not a replay, or none run: no object's figures. */
START_TEST(objects_of_no_replay)
{
	struct faultgen_replay_object o = { .size = sizeof(o) };
	struct faultgen_attr *a;
	struct faultgen_run *run;
	uint64_t n;

	ck_assert_int_eq(faultgen_attr_new(&a), 0);
	ck_assert_int_eq(faultgen_attr_set_size(a, 1 << 20), 0);
	ck_assert_int_eq(faultgen_run_new(a, &run), 0);
	ck_assert_int_eq(faultgen_run_replay_object(run, 0, &o), -ENODATA);
	ck_assert_int_eq(faultgen_run_replay_faults(run, 0, -1, NULL, &n),
			 -ENODATA);
	faultgen_run_free(run);
	faultgen_attr_free(a);
	a = replay_attr(two_threads);
	ck_assert_int_eq(faultgen_run_create(a, &run), 0);
	ck_assert_int_eq(faultgen_run_replay_object(run, 0, &o), -ENODATA);
	ck_assert_int_eq(faultgen_run_replay_object(NULL, 0, &o), -EINVAL);
	ck_assert_int_eq(faultgen_run_replay_object(run, 0, NULL), -EINVAL);
	ck_assert_int_eq(faultgen_run_replay_faults(run, 0, -1, NULL, NULL),
			 -EINVAL);
	faultgen_run_free(run);
	faultgen_attr_free(a);
}
END_TEST

/*
 * The windows, by hand: threads 0 and 1 of process 0, thread 2 of
 * process 1, one object.  Thread 0 faults at 0.5, 1.5, 2.5 ms
 * (windows 0-2), thread 1 at 2.2 and 9.1 ms (windows 2 and 9), thread
 * 2 at 2.9, 3.1 ms (windows 2-3) and 9.5 ms (9).  Threads per window:
 * 0:1 1:1 2:3 3:1 9:2, most 3, median of 1 1 3 1 2 = 1; processes per
 * window: 0:1 1:1 2:2 3:1 9:2, most 2, median 1.  Thread 2's rows are
 * two, its faults at 9.5 ms a copy.
 */
START_TEST(windows_counted_by_thread_and_process)
{
	struct fg_pobject objects[1] = { { .pages = 16 } };
	struct fg_pprocess processes[2] = { { -1, 0 }, { 0, 1 } };
	struct fg_pthread threads[3] = { { 0, 0 }, { 0, 0 }, { 1, 1 } };
	struct fg_prow rows[4] = {
		{ .thread = 0, .object = 0, .kind = FG_KIND_FIRST_TOUCH },
		{ .thread = 1, .object = 0, .kind = FG_KIND_FIRST_TOUCH },
		{ .thread = 2, .object = 0, .kind = FG_KIND_READ },
		{ .thread = 2, .object = 0, .kind = FG_KIND_COW },
	};
	struct fg_profile pr = {
		.nr_objects = 1, .nr_processes = 2, .nr_threads = 3,
		.nr_rows = 4, .objects = objects, .processes = processes,
		.threads = threads, .rows = rows,
	};
	size_t chunks[4] = { 0, 1, 2, 4 }, thread_objects[3] = { 1, 1, 1 };
	const struct {
		size_t row;
		int64_t us;
		unsigned int t;
		int kind;
	} notes[] = {
		{ 0, 500, 0, FG_KIND_FIRST_TOUCH },
		{ 0, 1500, 0, FG_KIND_FIRST_TOUCH },
		{ 1, 2200, 1, FG_KIND_FIRST_TOUCH },
		{ 0, 2500, 0, FG_KIND_FIRST_TOUCH },
		{ 2, 2900, 2, FG_KIND_READ },
		{ 2, 3100, 2, FG_KIND_READ },
		{ 1, 9100, 1, FG_KIND_FIRST_TOUCH },
		{ 3, 9500, 2, FG_KIND_COW },
	};
	struct fg_robs_cur *cur[3];
	struct fg_robs_object f;
	struct fg_robs *o;
	uint64_t n;

	ck_assert_int_eq(fg_robs_new(&o, &pr, chunks, thread_objects), 0);
	for (unsigned int t = 0; t < 3; t++)
		ck_assert_ptr_nonnull(cur[t] = fg_robs_thread(o, t));
	for (size_t i = 0; i < sizeof(notes) / sizeof(notes[0]); i++)
		fg_robs_note(o, cur[notes[i].t], notes[i].t, notes[i].row, 0,
			     notes[i].kind, notes[i].us * 1000);
	for (unsigned int t = 0; t < 3; t++)
		fg_robs_thread_end(o, cur[t], t);
	ck_assert_int_eq(fg_robs_object(o, 0, &f), -ENODATA);
	ck_assert_int_eq(fg_robs_fold(o), 0);
	ck_assert_int_eq(fg_robs_object(o, 0, &f), 0);
	ck_assert_uint_eq(f.faults, 8);
	ck_assert_uint_eq(f.threads, 3);
	ck_assert_uint_eq(f.processes, 2);
	ck_assert_uint_eq(f.threads_most, 3);
	ck_assert_double_eq(f.threads_median, 1);
	ck_assert_uint_eq(f.processes_most, 2);
	ck_assert_double_eq(f.processes_median, 1);
	ck_assert_int_eq(f.first_ns, 500000);
	ck_assert_int_eq(f.last_ns, 9500000);
	ck_assert_uint_eq(f.merged_windows, 0);
	ck_assert_int_eq(fg_robs_faults(o, 0, 2, FG_KIND_READ, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(fg_robs_faults(o, 0, 2, -1, &n), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(fg_robs_faults(o, 0, -1, FG_KIND_FIRST_TOUCH, &n), 0);
	ck_assert_uint_eq(n, 5);
	ck_assert_int_eq(fg_robs_object(o, 1, &f), -ERANGE);
	fg_robs_free(o);
}
END_TEST

/* A thread's log full (64 runs for no chunk, and one kept for each of
 * its two objects): its runs past it merged over the gaps, the windows
 * counted; its last runs stored, one of an object first faulted once
 * the log was full. */
START_TEST(windows_merged_past_a_full_log)
{
	struct fg_pobject objects[2] = { { .pages = 16 }, { .pages = 16 } };
	struct fg_pprocess processes[1] = { { -1, 0 } };
	struct fg_pthread threads[1] = { { 0, 0 } };
	struct fg_prow rows[2] = {
		{ .object = 0, .kind = FG_KIND_FIRST_TOUCH },
		{ .object = 1, .kind = FG_KIND_READ },
	};
	struct fg_profile pr = {
		.nr_objects = 2, .nr_processes = 1, .nr_threads = 1,
		.nr_rows = 2, .objects = objects, .processes = processes,
		.threads = threads, .rows = rows,
	};
	size_t chunks[2] = { 0, 0 }, thread_objects[1] = { 2 };
	struct fg_robs_object f;
	struct fg_robs_cur *cur;
	struct fg_robs *o;
	uint64_t n;

	ck_assert_int_eq(fg_robs_new(&o, &pr, chunks, thread_objects), 0);
	cur = fg_robs_thread(o, 0);
	/* Object 0 in windows 0, 2, 4, ..., 198: 100 runs of one window;
	 * object 1 in windows 300 and 301. */
	for (int64_t w = 0; w < 200; w += 2)
		fg_robs_note(o, cur, 0, 0, 0, FG_KIND_FIRST_TOUCH,
			     w * 1000000 + 10);
	fg_robs_note(o, cur, 0, 1, 1, FG_KIND_READ, 300 * 1000000 + 10);
	fg_robs_note(o, cur, 0, 1, 1, FG_KIND_READ, 301 * 1000000 + 10);
	fg_robs_thread_end(o, cur, 0);
	ck_assert_int_eq(fg_robs_fold(o), 0);
	ck_assert_int_eq(fg_robs_object(o, 0, &f), 0);
	ck_assert_uint_eq(f.faults, 100);
	ck_assert_uint_eq(f.threads_most, 1);
	/* 64 runs stored (windows 0 to 126); the 36 faults after merged
	 * into one run of windows 128 to 198, stored at the end: the 35
	 * windows between them (129, 131, ..., 197). */
	ck_assert_uint_eq(f.merged_windows, 35);
	ck_assert_int_eq(fg_robs_object(o, 1, &f), 0);
	ck_assert_uint_eq(f.faults, 2);
	ck_assert_uint_eq(f.threads_most, 1);
	ck_assert_double_eq(f.threads_median, 1);
	ck_assert_int_eq(fg_robs_faults(o, 1, 0, FG_KIND_READ, &n), 0);
	ck_assert_uint_eq(n, 2);
	fg_robs_free(o);
}
END_TEST

/* VMAs of exactly len bytes in /proc/PID/maps (pid 0: self). */
static int vmas_of_size(pid_t pid, size_t len)
{
	char path[64], line[512];
	unsigned long lo, hi;
	int n = 0;
	FILE *f;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/maps");
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *end;

		lo = strtoul(line, &end, 16);
		hi = *end == '-' ? strtoul(end + 1, NULL, 16) : lo;
		n += hi - lo == len;
	}
	fclose(f);
	return n;
}

/* Threads of process pid, from its status; -1 when gone. */
static int threads_of(pid_t pid)
{
	char path[64], line[256];
	int n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Threads:", 8)) {
			n = (int)strtol(line + 8, NULL, 10);
			break;
		}
	fclose(f);
	return n;
}

static void *exec_run(void *run)
{
	return (void *)(intptr_t)faultgen_run_exec(run);
}

/* A forked process keeps the objects it (or a process it forks) maps,
 * and no other: the root's first object is not in the child's maps once
 * its thread runs, the second is; the root has both. */
START_TEST(a_child_maps_its_own_objects_only)
{
	struct faultgen_attr *a = replay_attr(child_maps_its_own);
	struct timespec ms = { 0, 1000 * 1000 };
	struct faultgen_run *run;
	int big = -1, small = -1, ours = -1;
	pthread_t tid;
	void *ret;
	pid_t kid = 0;

	ck_assert_int_eq(faultgen_run_create(a, &run), 0);
	ck_assert_int_eq(pthread_create(&tid, NULL, exec_run, run), 0);
	/* The child, once its thread runs (its objects unmapped before). */
	for (int i = 0; i < 5000 && big < 0; i++) {
		nanosleep(&ms, NULL);
		if (fgc_children(getpid(), &kid, 1) != 1 ||
		    threads_of(kid) < 2)
			continue;
		ours = vmas_of_size(0, 5255168);
		big = vmas_of_size(kid, 5255168);
		small = vmas_of_size(kid, 1069056);
	}
	ck_assert_int_eq(pthread_join(tid, &ret), 0);
	ck_assert_int_eq((int)(intptr_t)ret, 0);
	ck_assert_msg(big == 0 && small == 1 && ours == 1,
		      "the child maps %d of the first object's size and %d of "
		      "the second's; the root %d of the first's", big, small,
		      ours);
	ck_assert_double_eq(fgc_figure_or(run, "first-touch", -1), 32);
	faultgen_run_free(run);
	faultgen_attr_free(a);
	ck_assert(fgc_no_children());
}
END_TEST

static Suite *replay_suite(void)
{
	Suite *s = suite_create("replay");
	TCase *tc = tcase_create("replay");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, two_threads_first_touch_one_object, 0, 2);
	tcase_add_test(tc, fork_child_writes_copies);
	tcase_add_loop_test(tc, threads_and_processes_run_on_the_run_cpus, 0, 2);
	tcase_add_loop_test(tc, the_memory_policy_is_the_objects, 0, 2);
	tcase_add_loop_test(tc, latency_times_each_thread_faults, 0, 2);
	tcase_add_test(tc, lock_paths_and_waits_of_each_thread);
	tcase_add_test(tc, objects_measured_by_thread_kind_and_window);
	tcase_add_test(tc, objects_of_no_replay);
	tcase_add_test(tc, objects_timed_from_the_replay_start);
	tcase_add_test(tc, windows_counted_by_thread_and_process);
	tcase_add_test(tc, windows_merged_past_a_full_log);
	tcase_add_test(tc, a_child_maps_its_own_objects_only);
	tcase_add_test(tc, kernel_mode_faults_and_kernel_side);
	tcase_add_test(tc, populated_faults_made_by_the_recorded_call);
	tcase_add_test(tc, populated_faults_of_a_thp_object_a_huge_page_apart);
	tcase_add_test(tc, populated_faults_on_pages_no_row_faults);
	tcase_add_test(tc, copies_of_pages_present_before_the_recording);
	tcase_add_test(tc, a_fork_waits_for_its_process_earlier_bins);
	tcase_add_test(tc, a_fork_waits_for_the_faults_before_it_in_its_bin);
	tcase_add_test(tc, a_thread_does_not_run_past_its_process_fork);
	tcase_add_test(tc, random_rows_fault_pages_each_once);
	tcase_add_test(tc, random_reads_of_a_shared_object_fault_each);
	tcase_add_test(tc, file_object_major_faults);
	tcase_add_test(tc, anonymous_major_faults_are_reads_counted_apart);
	tcase_add_test(tc, file_object_write_notify);
	tcase_add_test(tc, write_notify_refused_on_tmpfs);
	tcase_add_test(tc, shared_object_of_two_processes);
	tcase_add_test(tc, file_object_read);
	tcase_add_test(tc, file_object_private_copies);
	tcase_add_test(tc, file_object_private_copies_before_a_fork);
	tcase_add_test(tc, file_object_minor_faults_stay_minor);
	tcase_add_test(tc, pacing_counts_bins);
	tcase_add_test(tc, scale_scales_pages_and_counts);
	tcase_add_test(tc, pages_given_back_fault_again);
	tcase_add_test(tc, pages_given_back_between_passes_in_a_bin);
	tcase_add_test(tc, pages_mapped_afresh_fault_again);
	tcase_add_test(tc, user_faults_of_an_object_not_writable_read);
	tcase_add_test(tc, pages_present_for_copies_leave_first_touches_theirs);
	tcase_add_test(tc, a_call_giving_pages_back_keeps_its_place_among_threads);
	tcase_add_test(tc, a_call_giving_back_a_threads_own_pages_waits_for_no_other);
	tcase_add_test(tc, pages_mapped_anew_by_another_thread_fault_after);
	tcase_add_test(tc, a_late_thread_is_helped_by_one_waiting);
	tcase_add_test(tc, a_helper_giving_pages_back_waits_for_its_help);
	tcase_add_test(tc, a_thread_helps_in_the_bins_it_faults_the_object_only);
	tcase_add_test(tc, pacing_spreads_a_bins_faults_over_it);
	tcase_add_test(tc, random_rows_leave_pages_later_rows_need);
	tcase_add_test(tc, random_rows_leave_pages_later_random_rows_need);
	tcase_add_test(tc, random_first_touches_over_one_span_keep_pages_each);
	tcase_add_test(tc, own_calls_made_on_a_page_of_the_thread);
	tcase_add_test(tc, calls_read);
	tcase_add_test(tc, faults_without_an_event_populate_memory_before_files);
	tcase_add_loop_test(tc, bad_profile_refused_naming_the_member, 0,
			    sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, truncated_profile_refused);
	tcase_add_test(tc, profile_file_read_and_refused);
	tcase_add_test(tc, profile_read_once);
	tcase_add_test(tc, run_refusals_name_the_member);
	tcase_add_test(tc, hugetlb_without_huge_pages);
	tcase_add_test(tc, json_reader_is_strict);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return fgc_main(replay_suite());
}
