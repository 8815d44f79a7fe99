// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * OffHeapTest.java - org.libfaultgen.OffHeap: a pretouch of off-heap
 * memory with its fault count, and what closed means, also while another
 * thread is using the memory.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
package org.libfaultgen.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.libfaultgen.OffHeap;
import org.libfaultgen.PreTouch;
import org.libfaultgen.PreTouch.Touch;

class OffHeapTest {
	static final long MIB = PreTouchTest.MIB;
	static final long PAGE = PreTouchTest.PAGE;

	@Test
	void pretouchFaultsEveryPageOnce() {
		try (OffHeap mem = OffHeap.allocate(8 * MIB)) {
			PreTouch.Result r = mem.pretouch(2, Touch.ATOMIC_ADD);

			assertEquals(8 * MIB / PAGE, r.pages);
			assertEquals(2, r.workers);
			PreTouchTest.faultsAgree(r);
			// Resident now: a second pass takes almost none.
			r = PreTouch.pretouch(mem.buffer(), 2, Touch.ATOMIC_ADD);
			assertEquals(8 * MIB / PAGE, r.pages);
			assertTrue(r.minorFaults < r.pages / 100 + 64,
				   "again: " + r);
		}
	}

	@Test
	void contentSurvivesTheAtomicAdd() {
		try (OffHeap mem = OffHeap.allocate(MIB)) {
			ByteBuffer b = mem.buffer();

			assertSame(b, mem.buffer());
			assertEquals(MIB, b.capacity());
			assertEquals(MIB, mem.size());
			b.putInt(0, 7);
			b.putInt((int) PAGE, 9);
			mem.pretouch(1, Touch.ATOMIC_ADD);
			assertEquals(7, b.getInt(0));
			assertEquals(9, b.getInt((int) PAGE));
		}
	}

	@Test
	void badSizesAreNamed() {
		PreTouchTest.refused(IllegalArgumentException.class,
				     () -> OffHeap.allocate(0), "bytes", "0");
		PreTouchTest.refused(IllegalArgumentException.class,
				     () -> OffHeap.allocate(-5), "bytes",
				     "-5");
		PreTouchTest.refused(IllegalArgumentException.class,
				     () -> OffHeap.allocate(1L << 31), "bytes",
				     "2147483648");
		try (OffHeap mem = OffHeap.allocate(MIB)) {
			PreTouchTest.refused(IllegalArgumentException.class,
					     () -> mem.pretouch(-1,
								Touch.STORE),
					     "threads", "-1");
			PreTouchTest.refused(NullPointerException.class,
					     () -> mem.pretouch(1, null),
					     "touch");
		}
	}

	/* Closed: every method says so; the buffer kept from before is
	 * safe and empty; a second close does nothing. */
	@Test
	void closedMeansIllegalState() {
		OffHeap mem = OffHeap.allocate(4 * MIB);
		ByteBuffer kept = mem.buffer();

		kept.putLong(0, 1234);
		assertFalse(mem.isClosed());
		mem.close();
		assertTrue(mem.isClosed());
		assertThrows(IllegalStateException.class, mem::buffer);
		assertThrows(IllegalStateException.class, mem::size);
		assertThrows(IllegalStateException.class,
			     () -> mem.pretouch(1, Touch.ATOMIC_ADD));
		PreTouchTest.refused(IllegalStateException.class,
				     () -> PreTouch.pretouch(kept, 1,
							     Touch.STORE),
				     "closed");
		PreTouchTest.refused(IllegalStateException.class,
				     () -> PreTouch.pretouch(kept.slice(8, 8192),
							     1, Touch.STORE),
				     "closed");
		assertEquals(0, kept.getLong(0));
		kept.putLong(8, 5);
		mem.close();
		assertTrue(mem.isClosed());
	}

	/*
	 * One thread pretouches the memory over and over while another
	 * closes it: each pretouch completes whole or is refused, none
	 * after the close succeeds, and the JVM lives.
	 */
	@Test
	void closeRacingWithPretouches() throws Exception {
		for (int round = 0; round < 20; round++) {
			OffHeap mem = OffHeap.allocate(2 * MIB);
			ByteBuffer b = mem.buffer();
			CountDownLatch started = new CountDownLatch(1);
			AtomicInteger afterClose = new AtomicInteger();
			AtomicReference<Throwable> odd = new AtomicReference<>();
			Thread t = new Thread(() -> {
				started.countDown();
				try {
					for (;;) {
						PreTouch.Result r =
							PreTouch.pretouch(b, 1,
								Touch.STORE);
						if (r.pages != 2 * MIB / PAGE)
							odd.set(new AssertionError(
								r.toString()));
						if (mem.isClosed())
							afterClose.incrementAndGet();
					}
				} catch (IllegalStateException e) {
					// The end: closed.
				} catch (Throwable e) {
					odd.set(e);
				}
			});
			t.start();
			started.await();
			mem.close();
			t.join(60000);
			assertFalse(t.isAlive());
			if (odd.get() != null)
				throw new AssertionError(odd.get());
			// A pretouch that had begun before the close may see
			// isClosed() once; never two.
			assertTrue(afterClose.get() <= 1,
				   afterClose.get() + " after close");
		}
	}
}
