// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * PreTouchTest.java - org.libfaultgen.PreTouch as a Java user calls it:
 * the emulation's figures, and one clear exception for every bad argument.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
package org.libfaultgen.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.libfaultgen.PreTouch;
import org.libfaultgen.PreTouch.Gc;
import org.libfaultgen.PreTouch.Touch;

class PreTouchTest {
	static final long MIB = 1L << 20;
	static final long PAGE = 4096;

	/* The exception's message names what was wrong and its value. */
	static void refused(Class<? extends Throwable> type, Executable call,
			    String... words) {
		Throwable t = assertThrows(type, call);
		String msg = String.valueOf(t.getMessage());

		for (String w : words)
			assertTrue(msg.contains(w),
				   "\"" + msg + "\" does not say " + w);
	}

	/* Faults of a fresh range: one per page, give or take the stacks
	 * and TLS of the workers. */
	static void faultsAgree(PreTouch.Result r) {
		long slack = r.pages / 100 + 64 + 16L * r.workers;

		assertTrue(Math.abs(r.minorFaults - r.pages) <= slack,
			   r + ": faults do not match the pages");
	}

	@Test
	void emulatedHeapIsTheModelsPages() {
		long heap = 16 * MIB;
		long aux = PreTouch.auxBytes(25, Gc.G1, heap);
		PreTouch.Result r = PreTouch.emulateHeap(heap, 25, Gc.G1, 2,
							 Touch.ATOMIC_ADD);

		assertTrue(aux > heap / 64, "G1's tables at least: " + aux);
		assertEquals(heap + aux, r.bytes);
		assertEquals(r.bytes / PAGE, r.pages);
		assertEquals(r.pages, r.expectedFaults);
		assertEquals(2, r.workers);
		assertTrue(r.elapsedNanos > 0);
		faultsAgree(r);
	}

	@Test
	void heapAloneWithoutACollector() {
		PreTouch.Result r = PreTouch.emulateHeap(8 * MIB, 17, Gc.NONE, 1,
							 Touch.STORE);

		assertEquals(0, PreTouch.auxBytes(17, Gc.NONE, 8 * MIB));
		assertEquals(8 * MIB / PAGE, r.pages);
		assertEquals(1, r.workers);
		faultsAgree(r);
	}

	/* The figures faultgen_jvm_aux_bytes(3) and faultgen_pretouch(3)
	 * give, so that the pages and the model change together. */
	@Test
	void auxBytesAreTheManPagesFigures() {
		long gib = 1L << 30;

		assertEquals(6_750_208, PreTouch.auxBytes(17, Gc.PARALLEL, gib));
		assertEquals(6_750_208,
			     PreTouch.auxBytes(17, Gc.PARALLEL, 4 * gib));
		assertEquals(9_609_216, PreTouch.auxBytes(25, Gc.PARALLEL, gib));
		assertEquals(149_938_176, PreTouch.auxBytes(17, Gc.G1, 4 * gib));
		assertEquals(86_941_696, PreTouch.auxBytes(21, Gc.G1, 4 * gib));
		assertEquals(42_983_424, PreTouch.auxBytes(17, Gc.G1, gib));
		assertEquals(30_318_592, PreTouch.auxBytes(25, Gc.G1, gib));
		assertEquals(1_206_902_784,
			     PreTouch.auxBytes(17, Gc.G1, 32 * gib));
		assertEquals(615_424_000, PreTouch.auxBytes(25, Gc.G1, 32 * gib));
	}

	@Test
	void gcThreadsFollowHotSpot() {
		assertEquals(1, PreTouch.gcThreads(1));
		assertEquals(8, PreTouch.gcThreads(8));
		assertEquals(8, PreTouch.gcThreads(9));
		assertEquals(55, PreTouch.gcThreads(84));
	}

	@Test
	void badNumbersAreNamed() {
		refused(IllegalArgumentException.class,
			() -> PreTouch.gcThreads(-1), "cpus", "-1");
		refused(IllegalArgumentException.class,
			() -> PreTouch.gcThreads(0), "cpus", "0");
		refused(IllegalArgumentException.class,
			() -> PreTouch.auxBytes(25, Gc.G1, -1), "heapBytes",
			"-1");
		refused(IllegalArgumentException.class,
			() -> PreTouch.auxBytes(7, Gc.G1, MIB), "jdk", "7");
		refused(IllegalArgumentException.class,
			() -> PreTouch.emulateHeap(0, 25, Gc.G1, 0,
						   Touch.STORE),
			"bytes", "0");
		refused(IllegalArgumentException.class,
			() -> PreTouch.emulateHeap(MIB, 100, Gc.G1, 0,
						   Touch.STORE),
			"jdk", "100");
		refused(IllegalArgumentException.class,
			() -> PreTouch.emulateHeap(MIB, 25, Gc.G1, -3,
						   Touch.STORE),
			"threads", "-3");
		refused(IllegalArgumentException.class,
			() -> PreTouch.jvmTouch(5), "jdk", "5");
	}

	/* libfaultgen's range (FAULTGEN_MAX_SIZE, FAULTGEN_MAX_WORKERS):
	 * refused by name, not 0 or a bare refusal from the C side. */
	@Test
	void beyondTheLibrarysRangeIsNamed() {
		long max = (1L << 47) - 1;

		refused(IllegalArgumentException.class,
			() -> PreTouch.auxBytes(17, Gc.G1, 1L << 48),
			"heapBytes", "281474976710656", "2^47");
		refused(IllegalArgumentException.class,
			() -> PreTouch.auxBytes(17, Gc.PARALLEL, Long.MAX_VALUE),
			"heapBytes", String.valueOf(Long.MAX_VALUE));
		assertTrue(PreTouch.auxBytes(17, Gc.G1, max) > 0);
		refused(IllegalArgumentException.class,
			() -> PreTouch.emulateHeap(1L << 48, 25, Gc.G1, 0,
						   Touch.STORE),
			"bytes", "281474976710656");
		refused(IllegalArgumentException.class,
			() -> PreTouch.emulateHeap(MIB, 25, Gc.G1,
						   (1 << 20) + 1, Touch.STORE),
			"threads", "1048577");
	}

	/* An interrupted caller: no run at all, the status kept. */
	@Test
	void anInterruptedThreadRunsNothing() {
		Thread.currentThread().interrupt();
		try {
			refused(CancellationException.class,
				() -> PreTouch.emulateHeap(8 * MIB, 17, Gc.NONE,
							   1, Touch.STORE),
				"emulateHeap", "interrupted");
			assertTrue(Thread.currentThread().isInterrupted(),
				   "the interrupt status was cleared");
		} finally {
			Thread.interrupted();
		}
	}

	/*
	 * A long run cancelled by Thread.interrupt(): it ends soon after,
	 * with CancellationException, not after the whole heap.
	 */
	@Test
	void interruptCancelsALongRun() throws Exception {
		long heap = 4L << 30;
		long full;
		AtomicReference<Throwable> got = new AtomicReference<>();
		long t0 = System.nanoTime();

		// The time of a 256 MiB run, to size what the interrupt cuts.
		PreTouch.emulateHeap(256 * MIB, 17, Gc.NONE, 1, Touch.STORE);
		full = (System.nanoTime() - t0) * (heap / (256 * MIB));
		Thread t = new Thread(() -> {
			try {
				PreTouch.emulateHeap(heap, 17, Gc.NONE, 1,
						     Touch.STORE);
			} catch (Throwable e) {
				got.set(e);
			}
		});
		try {
			t.start();
			Thread.sleep(100);
			long sent = System.nanoTime();
			t.interrupt();
			t.join(60_000);
			long took = System.nanoTime() - sent;

			if (got.get() instanceof OutOfMemoryError)
				assumeTrue(false, "no room here: " + got.get());
			assertTrue(got.get() instanceof CancellationException,
				   "not cancelled: " + got.get());
			assertTrue(took < full / 4, "took " + took / 1e6 +
				   " ms after the interrupt; the whole run " +
				   "takes about " + full / 1e6 + " ms");
		} finally {
			t.interrupt();
			t.join();
		}
	}

	/* A MappedByteBuffer whose file shrank: refused, naming the file,
	 * where a touch would raise SIGBUS and end the JVM. */
	@Test
	void aTruncatedMappedFileIsRefused(@TempDir Path dir)
		throws IOException {
		Path f = dir.resolve("mapped");

		try (RandomAccessFile raf = new RandomAccessFile(f.toFile(),
								 "rw");
		     FileChannel ch = raf.getChannel()) {
			raf.setLength(4 * MIB);
			MappedByteBuffer b = ch.map(FileChannel.MapMode.READ_WRITE,
						    0, 4 * MIB);
			// Whole, it is pretouched.
			PreTouch.Result r = PreTouch.pretouch(b, 1,
							      Touch.ATOMIC_ADD);
			assertEquals(4 * MIB / PAGE, r.pages);
			raf.setLength(MIB + 100);
			refused(IllegalArgumentException.class,
				() -> PreTouch.pretouch(b, 2, Touch.ATOMIC_ADD),
				"buffer", f.toString(), "SIGBUS",
				String.valueOf(MIB + 100));
			// Its first megabyte, still in the file, is fine.
			ByteBuffer head = b.slice(0, (int) MIB);
			r = PreTouch.pretouch(head, 1, Touch.ATOMIC_ADD);
			assertEquals(MIB / PAGE, r.pages);
		}
	}

	@Test
	void nullsAreNamed() {
		refused(NullPointerException.class,
			() -> PreTouch.emulateHeap(MIB, 25, null, 0,
						   Touch.STORE), "gc");
		refused(NullPointerException.class,
			() -> PreTouch.emulateHeap(MIB, 25, Gc.G1, 0, null),
			"touch");
		refused(NullPointerException.class,
			() -> PreTouch.pretouch(null, 0, Touch.STORE),
			"buffer");
		refused(NullPointerException.class,
			() -> PreTouch.auxBytes(25, null, MIB), "gc");
	}

	@Test
	void buffersTheJvmOwnsAreRefusedOrKept() {
		refused(IllegalArgumentException.class,
			() -> PreTouch.pretouch(ByteBuffer.allocate(8192), 1,
						Touch.ATOMIC_ADD),
			"buffer", "direct");
		refused(IllegalArgumentException.class,
			() -> PreTouch.pretouch(ByteBuffer.allocateDirect(
							8192).asReadOnlyBuffer(),
						1, Touch.ATOMIC_ADD),
			"buffer", "writable");
		refused(IllegalArgumentException.class,
			() -> PreTouch.pretouch(ByteBuffer.allocateDirect(16),
						1, Touch.ATOMIC_ADD),
			"buffer", "page");
		// The JVM's own direct memory: faulted already, kept.
		ByteBuffer b = ByteBuffer.allocateDirect((int) (4 * MIB));
		b.putLong((int) (PAGE * 3), 42);
		PreTouch.Result r = PreTouch.pretouch(b, 2, Touch.ATOMIC_ADD);
		assertTrue(r.pages >= 4 * MIB / PAGE - 1);
		assertEquals(42, b.getLong((int) (PAGE * 3)));
	}

	/* A heap no machine here has: refused before anything is touched,
	 * saying it is more than the machine has. */
	@Test
	void aTebibyteIsMoreThanTheMachineHas() throws IOException {
		long kib = Files.readAllLines(Path.of("/proc/meminfo")).stream()
			.filter(l -> l.startsWith("MemAvailable:"))
			.map(l -> l.replaceAll("[^0-9]", ""))
			.mapToLong(Long::parseLong).findFirst().orElse(-1);

		assumeTrue(kib > 0 && kib < (1L << 30),
			   "MemAvailable unknown or above 1 TiB: " + kib);
		refused(OutOfMemoryError.class,
			() -> PreTouch.emulateHeap(1L << 40, 25, Gc.G1, 0,
						   Touch.ATOMIC_ADD),
			"1099511627776", "more memory than this machine",
			"MemAvailable");
	}
}
