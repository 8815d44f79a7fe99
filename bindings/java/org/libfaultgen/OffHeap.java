// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * OffHeap.java - a direct buffer over memory nobody has touched yet.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
package org.libfaultgen;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Off-heap memory that is not faulted yet: a private anonymous mapping
 * wrapped in a direct {@link ByteBuffer}.  {@code ByteBuffer.allocateDirect}
 * memory is no use for a pretouch: the JVM zeroes it, so it is faulted
 * already.
 *
 * <p>{@link #close} gives the memory back.  After it, every method of this
 * object, and {@link PreTouch#pretouch} on its buffer, throw
 * {@link IllegalStateException}, whichever thread calls them; a close
 * waits for a pretouch of the memory that is running.  A buffer kept
 * past the close stays safe to use but holds nothing: it reads zeros, and
 * what is written to it is lost when the buffer is garbage collected,
 * which is when its address range is unmapped.  Memory never closed is
 * unmapped then too.
 */
public final class OffHeap implements AutoCloseable {
	/* Mappings whose buffer may still be reachable, by address, so
	 * that a pretouch of one of their buffers can tell it is closed. */
	private static final ConcurrentSkipListMap<Long, Region> REGIONS =
		new ConcurrentSkipListMap<>();

	/* Created with the first allocation only. */
	private static final class Reaper {
		static final Cleaner CLEANER = Cleaner.create();
	}

	/*
	 * The mapping and its state, apart from the buffer so that the buffer
	 * can become unreachable; as a cleaning action it unmaps the range
	 * once the buffer and every view of it are unreachable.
	 */
	private static final class Region implements Runnable {
		final long address, bytes;
		final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
		boolean closed; // under lock

		Region(long address, long bytes) {
			this.address = address;
			this.bytes = bytes;
		}

		@Override
		public void run() {
			REGIONS.remove(address, this);
			PreTouch.unmap0(address, bytes);
		}
	}

	private final Region region;
	private ByteBuffer buffer; // null once closed, under region.lock

	private OffHeap(Region region, ByteBuffer buffer) {
		this.region = region;
		this.buffer = buffer;
	}

	/**
	 * Maps memory that nobody has touched.
	 *
	 * @param bytes the size, from 1 to {@code Integer.MAX_VALUE}, as any
	 *              ByteBuffer
	 * @return the memory, open
	 * @throws OutOfMemoryError if the mapping cannot be made
	 */
	public static OffHeap allocate(long bytes) {
		if (bytes <= 0 || bytes > Integer.MAX_VALUE)
			throw PreTouch.bad("bytes", bytes,
					   "must be from 1 to " +
					   Integer.MAX_VALUE);
		NativeLibrary.require();
		ByteBuffer buf = PreTouch.allocate0(bytes);
		Region r = new Region(PreTouch.address0(buf), bytes);

		REGIONS.put(r.address, r);
		Reaper.CLEANER.register(buf, r);
		return new OffHeap(r, buf);
	}

	private IllegalStateException closedError() {
		return new IllegalStateException("this OffHeap of " +
						 region.bytes +
						 " bytes is closed");
	}

	/**
	 * The memory as a direct buffer, position 0, limit and capacity its
	 * size.  Every call returns the same buffer.
	 *
	 * @return the buffer
	 * @throws IllegalStateException if closed
	 */
	public ByteBuffer buffer() {
		region.lock.readLock().lock();
		try {
			if (region.closed)
				throw closedError();
			return buffer;
		} finally {
			region.lock.readLock().unlock();
		}
	}

	/**
	 * The size given to {@link #allocate}.
	 *
	 * @return bytes
	 * @throws IllegalStateException if closed
	 */
	public long size() {
		buffer();
		return region.bytes;
	}

	/**
	 * Whether {@link #close} was called.
	 *
	 * @return true once closed
	 */
	public boolean isClosed() {
		region.lock.readLock().lock();
		try {
			return region.closed;
		} finally {
			region.lock.readLock().unlock();
		}
	}

	/**
	 * Pretouches the whole memory, as {@link PreTouch#pretouch} on
	 * {@link #buffer}.
	 *
	 * @param threads 0 for the JVM's choice, or the number of workers
	 * @param touch   how each page is touched
	 * @return the figures of the pretouch
	 * @throws IllegalStateException if closed
	 * @throws java.util.concurrent.CancellationException if the calling
	 *         thread is interrupted (its interrupt status stays set)
	 */
	public PreTouch.Result pretouch(int threads, PreTouch.Touch touch) {
		Objects.requireNonNull(touch, "touch");
		PreTouch.checkThreads(threads);
		return run(region, buffer(), threads, touch);
	}

	/* A pretouch that a close of the memory waits for. */
	private static PreTouch.Result run(Region r, ByteBuffer buf,
					   int threads, PreTouch.Touch touch) {
		r.lock.readLock().lock();
		try {
			if (r.closed)
				throw new IllegalStateException(
					"the OffHeap of " + r.bytes +
					" bytes this buffer belongs to is " +
					"closed");
			return new PreTouch.Result(PreTouch.pretouch0(
				buf, threads, touch.ordinal()));
		} finally {
			r.lock.readLock().unlock();
			Reference.reachabilityFence(buf);
		}
	}

	/* PreTouch.pretouch: guarded when the buffer is one of ours. */
	static PreTouch.Result pretouchGuarded(ByteBuffer buf, int threads,
					       PreTouch.Touch touch) {
		long at = PreTouch.address0(buf);
		Map.Entry<Long, Region> e = REGIONS.floorEntry(at);

		try {
			if (e != null && at < e.getKey() + e.getValue().bytes)
				return run(e.getValue(), buf, threads, touch);
			return new PreTouch.Result(
				PreTouch.pretouch0(buf, threads,
						   touch.ordinal()));
		} finally {
			Reference.reachabilityFence(buf);
		}
	}

	/**
	 * Gives the memory back (its pages; the address range goes with the
	 * buffer).  Waits for a pretouch of it that is running; a second
	 * call does nothing.
	 */
	@Override
	public void close() {
		region.lock.writeLock().lock();
		try {
			if (region.closed)
				return;
			region.closed = true;
			buffer = null;
			PreTouch.discard0(region.address, region.bytes);
		} finally {
			region.lock.writeLock().unlock();
		}
	}
}
