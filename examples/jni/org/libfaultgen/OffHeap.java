// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * OffHeap.java - a direct buffer over memory nobody has touched yet.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
package org.libfaultgen;

import java.nio.ByteBuffer;

/**
 * Off-heap memory that is not faulted yet: a private anonymous mapping
 * wrapped in a direct {@link ByteBuffer}.  {@code ByteBuffer.allocateDirect}
 * memory is already faulted, since the JVM zeroes it.  Released by
 * {@link #close}; the buffer must not be used after that.
 */
public final class OffHeap implements AutoCloseable {
	private ByteBuffer buf;

	private OffHeap(ByteBuffer buf) {
		this.buf = buf;
	}

	/** At most Integer.MAX_VALUE bytes, as any ByteBuffer. */
	public static OffHeap allocate(long bytes) {
		if (bytes <= 0 || bytes > Integer.MAX_VALUE)
			throw new IllegalArgumentException(
				"size out of range: " + bytes);
		return new OffHeap(PreTouch.allocate0(bytes));
	}

	public synchronized ByteBuffer buffer() {
		if (buf == null)
			throw new IllegalStateException("closed");
		return buf;
	}

	/** Unmaps the memory; a second call does nothing. */
	@Override
	public synchronized void close() {
		if (buf != null) {
			PreTouch.free0(buf);
			buf = null;
		}
	}
}
