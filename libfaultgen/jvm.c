// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * jvm.c - what a HotSpot JVM pretouches: its heap as -Xms/-Xmx size it,
 * G1's auxiliary tables and Parallel's spaces, per JDK release, and its
 * default number of pretouch workers.  pretouch.c runs the plan; this file
 * only says what the plan is.
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
 * G1's tables, in the order it pretouches them: the mark bitmaps (1 bit
 * per 8 bytes; two until JDK 20), then the block offset table, the card
 * table and, until JDK 21, the card counts (1 byte per 512 bytes each).
 */
static unsigned int g1_tables(unsigned int jdk, uint64_t heap, uint64_t page,
			      uint64_t *lens)
{
	unsigned int bitmaps = jdk < 20 ? 2 : 1;
	unsigned int per_card = jdk < 21 ? 3 : 2;
	unsigned int n = 0;

	for (unsigned int i = 0; i < bitmaps; i++)
		lens[n++] = fg_round_up(heap / 64, page);
	for (unsigned int i = 0; i < per_card; i++)
		lens[n++] = fg_round_up(heap / 512, page);
	return n;
}

/*
 * The byte ranges a JVM of release jdk with this GC pretouches for a heap
 * of `heap` bytes, one per task, in order.  Returns how many (at most
 * max, which must be at least FG_JVM_MAX_RANGES).
 */
FG_TESTABLE unsigned int fg_jvm_ranges(unsigned int jdk,
					    enum faultgen_jvm_gc gc,
					    uint64_t heap, uint64_t page,
					    uint64_t *lens, unsigned int max)
{
	uint64_t h = fg_jvm_heap_bytes(gc, heap, page);

	if (max < FG_JVM_MAX_RANGES)
		return 0;
	switch (gc) {
	case FAULTGEN_GC_G1:
		lens[0] = h;
		return 1 + g1_tables(jdk, h, page, lens + 1);
	case FAULTGEN_GC_PARALLEL:
		return parallel_spaces(h, lens);
	case FAULTGEN_GC_NONE:
		break;
	}
	lens[0] = h;
	return 1;
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

/* Bytes of G1's auxiliary tables for a heap (0 for other GCs). */
uint64_t fg_jvm_aux_bytes(unsigned int jdk, enum faultgen_jvm_gc gc,
			  uint64_t heap_bytes)
{
	uint64_t page = (uint64_t)fg_pagesize(), lens[FG_JVM_MAX_RANGES], sum = 0;

	if (gc != FAULTGEN_GC_G1 || heap_bytes == 0 ||
	    heap_bytes > (UINT64_MAX >> 17))
		return 0;
	heap_bytes = fg_jvm_heap_bytes(gc, heap_bytes, page);
	for (unsigned int i = 0, n = g1_tables(jdk, heap_bytes, page, lens);
	     i < n; i++)
		sum += lens[i];
	return sum;
}
