// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bitmap.c - bitmaps of CPUs (and memory nodes) of any size, in the layout
 * the public API uses: an array of unsigned long, bit n of word n / bits.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#define LONG_BITS (8 * sizeof(unsigned long))

size_t fg_bitmap_longs(size_t nbits)
{
	return (nbits + LONG_BITS - 1) / LONG_BITS;
}

bool fg_bit_test(const unsigned long *mask, size_t bit)
{
	return mask[bit / LONG_BITS] & (1UL << (bit % LONG_BITS));
}

void fg_bit_set(unsigned long *mask, size_t bit)
{
	mask[bit / LONG_BITS] |= 1UL << (bit % LONG_BITS);
}
