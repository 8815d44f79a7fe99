// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * jvm.c - what a HotSpot JVM started with -XX:+AlwaysPreTouch faults that
 * it would not fault without it: its heap as -Xms/-Xmx size it, the part
 * of G1's tables it does not fill at commit anyway, Parallel's spaces and
 * the start-up memory it pretouches besides, per JDK release; and its
 * default number of pretouch workers.  pretouch.c runs the plan; this
 * file only says what the plan is.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#define MIB (1ULL << 20)
/* The card table needs the heap aligned to card size x page size. */
#define JVM_HEAP_ALIGN (2 * MIB)
/* Parallel's generation and space alignment (4 KiB pages). */
#define PS_SPACE_ALIGN (512ULL << 10)
#define G1_REGION_MIN MIB
#define G1_REGION_MAX_ERGO (32 * MIB)

/* G1's ergonomic region size: heap/2048 within [1 MiB, 32 MiB], rounded
 * up to a power of two. */
static uint64_t g1_region_size(uint64_t heap)
{
	uint64_t want = heap / 2048, r = G1_REGION_MIN;

	if (want > G1_REGION_MAX_ERGO)
		want = G1_REGION_MAX_ERGO;
	while (r < want)
		r <<= 1;
	return r;
}

/* The heap as the JVM sizes -Xms/-Xmx of this many bytes. */
uint64_t fg_jvm_heap_bytes(enum faultgen_jvm_gc gc, uint64_t heap,
			   uint64_t page)
{
	uint64_t align;

	switch (gc) {
	case FAULTGEN_GC_G1:
		align = g1_region_size(heap);
		if (align < JVM_HEAP_ALIGN)
			align = JVM_HEAP_ALIGN;
		return fg_round_up(heap, align);
	case FAULTGEN_GC_PARALLEL:
		return fg_round_up(heap, JVM_HEAP_ALIGN);
	case FAULTGEN_GC_NONE:
		break;
	}
	return fg_round_up(heap, page);
}

/*
 * Parallel's spaces with the default NewRatio (2) and InitialSurvivorRatio
 * (8), in the order it pretouches them: eden, from, to, old.
 */
static unsigned int parallel_spaces(uint64_t heap, uint64_t *lens)
{
	uint64_t young = fg_round_down(heap / 3, PS_SPACE_ALIGN);
	uint64_t surv = fg_round_down(young / 8, PS_SPACE_ALIGN);

	if (surv < PS_SPACE_ALIGN)
		surv = PS_SPACE_ALIGN;
	if (young < 3 * surv) {
		/* Smaller than any heap the JVM would start with. */
		lens[0] = heap;
		return 1;
	}
	lens[0] = young - 2 * surv;
	lens[1] = surv;
	lens[2] = surv;
	lens[3] = heap - young;
	return 4;
}

/*
 * G1's tables, in the order it pretouches them, less the pages the JVM
 * writes when it commits them, which fault with or without AlwaysPreTouch:
 * the card table is set to its clean value, not zero, as a whole, and
 * until JDK 21 each region's first block offset entry is written, which
 * touches one page per region, or all of them while a region's entries
 * fit in a page.  What is left: the mark bitmaps (1 bit per 8 bytes; two
 * until JDK 20), the rest of the block offset table (1 byte per 512
 * bytes) and, until JDK 21, the card counts (1 byte per 512 bytes).
 */
static unsigned int g1_tables(unsigned int jdk, uint64_t heap, uint64_t page,
			      uint64_t *lens)
{
	unsigned int bitmaps = jdk < 20 ? 2 : 1;
	uint64_t bot = fg_round_up(heap / 512, page);
	unsigned int n = 0;

	for (unsigned int i = 0; i < bitmaps; i++)
		lens[n++] = fg_round_up(heap / 64, page);
	if (jdk < 21) {
		uint64_t regions = heap / g1_region_size(heap);

		bot -= (bot / page < regions ? bot / page : regions) * page;
	}
	if (bot)
		lens[n++] = bot;
	if (jdk < 21)
		lens[n++] = fg_round_up(heap / 512, page);
	return n;
}

/*
 * Besides the heap and its tables, AlwaysPreTouch makes the JVM's main
 * thread pretouch the memory it commits at start-up, before the heap: the
 * three code heaps of the segmented code cache (x86-64's
 * InitialCodeCacheSize of 2496 KiB each, and a segment map of one byte per
 * 128-byte segment), metaspace's first commit granules and, in JDK 25,
 * the mapped regions of the CDS archive and, with G1, the archived heap
 * objects.  Without AlwaysPreTouch the JVM faults part of these anyway:
 * the interpreter and stubs it generates, the archive pages its
 * relocation writes, the objects it allocates before main().  What is left
 * depends on the release and the collector, not on the heap size.  It was
 * read as the faults until main() with AlwaysPreTouch minus those without,
 * less the heap and tables above, on OpenJDK 17 and 25 (perf record of the
 * minor faults with call chains tells the parts apart), and
 * tests/bench/jvm-pretouch.sh compares the whole with real JVMs.  Releases
 * from 21 on, where G1 lost its card counts, are taken to behave as 25.
 */
static uint64_t startup_bytes(unsigned int jdk, enum faultgen_jvm_gc gc,
			      uint64_t page)
{
	static const uint64_t kib[2][2] = {
		/* G1, Parallel */
		{ 7160, 6592 },	 /* until JDK 20, as 17 */
		{ 11176, 9384 }, /* JDK 21 and later, as 25 */
	};

	return fg_round_up(kib[jdk >= 21][gc == FAULTGEN_GC_PARALLEL] << 10,
			   page);
}

/*
 * The byte ranges a JVM of release jdk with this GC pretouches for a heap
 * of `heap` bytes and would not fault without AlwaysPreTouch, one per
 * task, in order: for G1 and Parallel the start-up memory first (see
 * fg_jvm_serial_ranges), then the heap or its spaces, then G1's tables.
 * Returns how many (at most max, which must be at least
 * FG_JVM_MAX_RANGES).
 */
FG_TESTABLE unsigned int fg_jvm_ranges(unsigned int jdk,
				       enum faultgen_jvm_gc gc, uint64_t heap,
				       uint64_t page, uint64_t *lens,
				       unsigned int max)
{
	uint64_t h = fg_jvm_heap_bytes(gc, heap, page);

	if (max < FG_JVM_MAX_RANGES)
		return 0;
	switch (gc) {
	case FAULTGEN_GC_G1:
		lens[0] = startup_bytes(jdk, gc, page);
		lens[1] = h;
		return 2 + g1_tables(jdk, h, page, lens + 2);
	case FAULTGEN_GC_PARALLEL:
		lens[0] = startup_bytes(jdk, gc, page);
		return 1 + parallel_spaces(h, lens + 1);
	case FAULTGEN_GC_NONE:
		break;
	}
	lens[0] = h;
	return 1;
}

/* The JVM's main thread pretouches its start-up memory alone, before its
 * GC threads start: the calling thread's, the first this many of
 * fg_jvm_ranges' ranges. */
unsigned int fg_jvm_serial_ranges(enum faultgen_jvm_gc gc)
{
	return gc == FAULTGEN_GC_NONE ? 0 : 1;
}

/* Parallel commits its spaces back to back in the heap's reservation,
 * one mapping: the ranges after the start-up memory adjoin. */
bool fg_jvm_spaces_adjoin(enum faultgen_jvm_gc gc)
{
	return gc == FAULTGEN_GC_PARALLEL;
}

/* HotSpot's default ParallelGCThreads for ncpus active processors. */
unsigned int fg_jvm_gc_threads(unsigned int ncpus)
{
	if (ncpus == 0)
		ncpus = 1;
	if (ncpus <= 8)
		return ncpus;
	return 8 + (unsigned int)(((uint64_t)ncpus - 8) * 5 / 8);
}

/* Everything the model pretouches besides the heap (or its spaces). */
uint64_t fg_jvm_aux_bytes(unsigned int jdk, enum faultgen_jvm_gc gc,
			  uint64_t heap_bytes)
{
	uint64_t page = (uint64_t)fg_pagesize(), lens[FG_JVM_MAX_RANGES];
	uint64_t h, sum = 0;
	unsigned int n;

	if (gc == FAULTGEN_GC_NONE || heap_bytes == 0 ||
	    heap_bytes > (UINT64_MAX >> 17))
		return 0;
	h = fg_jvm_heap_bytes(gc, heap_bytes, page);
	n = fg_jvm_ranges(jdk, gc, heap_bytes, page, lens, FG_JVM_MAX_RANGES);
	for (unsigned int i = 0; i < n; i++)
		sum += lens[i];
	return sum - h;
}
