// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * PreTouch.java - the JVM's AlwaysPreTouch, and pretouching off-heap
 * memory, from Java through libfaultgen.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
package org.libfaultgen;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CancellationException;

/**
 * Page-fault figures of a pretouch, and the calls that make them.
 *
 * <p>The work is done by libfaultgen through its native half,
 * {@code libfaultgen-jni.so}: the file the system property
 * {@code org.libfaultgen.jni} names if it is set (a relative name is taken
 * from the working directory), else the one {@code java.library.path}
 * holds, else the one in a JNI directory of the prefix the jar is
 * installed under, else the one in the distributions' JNI directories
 * (Debian's {@code /usr/lib/<multiarch>/jni}, Fedora's
 * {@code /usr/lib64/libfaultgen}).  When it cannot be loaded, or native
 * access is denied, every method that needs it throws an
 * {@link UnsatisfiedLinkError} that names each place looked in and what
 * to do.
 *
 * <p>Every method may be called from any thread.  A {@code null}
 * argument throws {@link NullPointerException} naming the parameter; a
 * value out of range throws {@link IllegalArgumentException} naming it and
 * the value.  A run ({@link #emulateHeap}, {@link #pretouch}) is cancelled
 * when the calling thread is interrupted, before or while it runs: it
 * throws {@link CancellationException} and leaves the thread's interrupt
 * status set.
 */
public final class PreTouch {
	/** How each page is touched; the order is libfaultgen's. */
	public enum Touch {
		/** JDK 17: a byte store of 0 at the start of each page. */
		STORE,
		/** JDK 19+: a relaxed atomic add of 0 (keeps the content). */
		ATOMIC_ADD,
		/** JDK 21u/23+ with THP always: populate each chunk. */
		POPULATE,
		/** Beyond the JVM: each worker populates its own slice. */
		FAST,
		/** FAST on memory advised for transparent huge pages. */
		FAST_HUGE,
	}

	/** The collector whose memory is modelled besides the heap. */
	public enum Gc {
		/** The heap alone. */
		NONE,
		/** G1: its tables and the JVM's start-up memory too. */
		G1,
		/** Parallel: its spaces and the JVM's start-up memory. */
		PARALLEL,
	}

	/** What a pretouch did. */
	public static final class Result {
		/**
		 * Nanoseconds from before the worker threads were created
		 * until the last chunk was done, as HotSpot times its
		 * pretouch.
		 */
		public final long elapsedNanos;
		/** Bytes pretouched. */
		public final long bytes;
		/** Pages pretouched. */
		public final long pages;
		/** Minor faults the kernel counted for the workers. */
		public final long minorFaults;
		/** The faults a pretouch of fresh memory takes: its pages. */
		public final long expectedFaults;
		/** Worker threads the pretouch created. */
		public final int workers;

		Result(long[] v) {
			elapsedNanos = v[0];
			bytes = v[1];
			pages = v[2];
			minorFaults = v[3];
			expectedFaults = v[4];
			workers = (int) v[5];
		}

		/** The figures as {@code key=value} pairs. */
		@Override
		public String toString() {
			return String.format(Locale.ROOT,
					     "workers=%d bytes=%d pages=%d " +
					     "minflt=%d expected=%d " +
					     "elapsed_ms=%.3f",
					     workers, bytes, pages, minorFaults,
					     expectedFaults, elapsedNanos / 1e6);
		}
	}

	/** A libfaultgen error other than a bad argument or no memory. */
	public static final class FaultgenException extends RuntimeException {
		private static final long serialVersionUID = 1L;
		/** The negative errno value. */
		private final int error;

		FaultgenException(int error, String message) {
			super(message + " (" + error + ")");
			this.error = error;
		}

		/**
		 * The error libfaultgen returned.
		 *
		 * @return a negative errno value
		 */
		public int error() {
			return error;
		}
	}

	/* The JDK releases libfaultgen models (FAULTGEN_MIN_JDK, _MAX_JDK). */
	private static final int JDK_MIN = 8, JDK_MAX = 99;
	/* The largest size libfaultgen maps, FAULTGEN_MAX_SIZE: 2^47 - 1. */
	static final long MAX_BYTES = (1L << 47) - 1;
	/* The most workers it starts, FAULTGEN_MAX_WORKERS. */
	static final int MAX_THREADS = 1 << 20;

	private PreTouch() {
	}

	private static native long[] emulateHeap0(long bytes, int jdk, int gc,
						  int threads, int touch);

	static native long[] pretouch0(ByteBuffer buf, int threads, int touch);

	static native ByteBuffer allocate0(long bytes);

	static native void discard0(long address, long bytes);

	static native void unmap0(long address, long bytes);

	static native long address0(ByteBuffer buf);

	private static native long auxBytes0(int jdk, int gc, long heap);

	private static native int gcThreads0(int cpus);

	/* The shim's interface version: NativeLibrary.SHIM_VERSION. */
	static native int shimVersion0();

	static IllegalArgumentException bad(String what, Object value,
					    String want) {
		return new IllegalArgumentException(what + " " + want + ": " +
						    value);
	}

	private static void checkJdk(int jdk) {
		if (jdk < JDK_MIN || jdk > JDK_MAX)
			throw bad("jdk", jdk, "must be a feature release from " +
				  JDK_MIN + " to " + JDK_MAX);
	}

	static void checkThreads(int threads) {
		if (threads < 0 || threads > MAX_THREADS)
			throw bad("threads", threads,
				  "must be 0 (the JVM's choice) to " +
				  MAX_THREADS);
	}

	private static void checkHeap(String name, long bytes) {
		if (bytes <= 0 || bytes > MAX_BYTES)
			throw bad(name, bytes, "must be from 1 to " + MAX_BYTES +
				  " (2^47 - 1, the most libfaultgen maps)");
	}

	/**
	 * HotSpot's default {@code ParallelGCThreads} for this many CPUs:
	 * all of them up to 8, then 8 and five eighths of the rest.
	 *
	 * @param cpus active processors, 1 or more
	 * @return the number of GC worker threads
	 * @throws IllegalArgumentException if {@code cpus} is below 1
	 */
	public static int gcThreads(int cpus) {
		if (cpus < 1)
			throw bad("cpus", cpus, "must be 1 or more");
		NativeLibrary.require();
		return gcThreads0(cpus);
	}

	/**
	 * Emulates what a JVM started with {@code -XX:+AlwaysPreTouch
	 * -Xms}<i>bytes</i> {@code -Xmx}<i>bytes</i> faults that it would not
	 * fault without it: its heap, mapped as the JVM maps it and touched
	 * with its pattern, and for G1 and Parallel its tables and start-up
	 * memory.  The memory is released before this returns.
	 *
	 * @param bytes   the heap size, as {@code -Xms}; from 1 to 2^47 - 1
	 * @param jdk     the JDK feature release, 8 to 99
	 * @param gc      the collector
	 * @param threads 0 for the JVM's own choice (the ParallelGCThreads
	 *                rule on the allowed CPUs, at most one per chunk),
	 *                at most 2^20
	 * @param touch   how each page is touched ({@link #jvmTouch})
	 * @return the figures of the pretouch
	 * @throws OutOfMemoryError if the heap and the rest need more
	 *                          memory than this machine has available
	 *                          (MemAvailable) or than the limits of this
	 *                          process's memory cgroup and its ancestors
	 *                          leave (cgroup v1 or v2), before anything
	 *                          is touched; the message names the limit
	 * @throws CancellationException if the calling thread is
	 *                               interrupted (its interrupt status
	 *                               stays set): the run is cancelled and
	 *                               its memory released
	 */
	public static Result emulateHeap(long bytes, int jdk, Gc gc,
					 int threads, Touch touch) {
		checkHeap("bytes", bytes);
		checkJdk(jdk);
		Objects.requireNonNull(gc, "gc");
		checkThreads(threads);
		Objects.requireNonNull(touch, "touch");
		NativeLibrary.require();
		MemoryCheck.check("emulateHeap", bytes,
				  bytes + auxBytes0(jdk, gc.ordinal(), bytes));
		return new Result(emulateHeap0(bytes, jdk, gc.ordinal(),
					       threads, touch.ordinal()));
	}

	/**
	 * Pretouches the whole pages of a writable direct buffer with the
	 * JVM's chunk pattern (or a fast mode).  The buffer is never
	 * unmapped.  {@code STORE} writes a 0 at the start of each page: use
	 * {@code ATOMIC_ADD} on memory that holds data.
	 *
	 * <p>A buffer that maps a file (a {@code MappedByteBuffer}) whose
	 * file has been truncated below the buffer's end is refused with an
	 * {@link IllegalArgumentException} naming the file, rather than
	 * touched: a touch past a file's end raises SIGBUS, which would end
	 * the JVM.  Each file the buffer maps is probed at the last page the
	 * buffer has of it (that page is read, so faulted); a truncation
	 * while the pretouch runs is not seen.
	 *
	 * @param buffer  a direct, writable buffer
	 * @param threads 0 for the JVM's choice, or the number of workers
	 * @param touch   how each page is touched
	 * @return the figures of the pretouch
	 * @throws IllegalStateException if the buffer belongs to an
	 *                               {@link OffHeap} that is closed
	 * @throws CancellationException if the calling thread is
	 *                               interrupted (its interrupt status
	 *                               stays set)
	 */
	public static Result pretouch(ByteBuffer buffer, int threads,
				      Touch touch) {
		Objects.requireNonNull(buffer, "buffer");
		Objects.requireNonNull(touch, "touch");
		if (!buffer.isDirect())
			throw bad("buffer", buffer, "must be a direct buffer");
		// A touch of read-only memory would kill the JVM.
		if (buffer.isReadOnly())
			throw bad("buffer", buffer, "must be writable");
		checkThreads(threads);
		NativeLibrary.require();
		return OffHeap.pretouchGuarded(buffer, threads, touch);
	}

	/**
	 * Bytes besides the heap that {@link #emulateHeap} pretouches for a
	 * JDK and collector: G1's tables and, for G1 and Parallel, the
	 * JVM's start-up memory.
	 *
	 * @param jdk       the JDK feature release, 8 to 99
	 * @param gc        the collector
	 * @param heapBytes the heap size, as {@code -Xms}; from 1 to
	 *                  2^47 - 1, the largest heap libfaultgen maps
	 * @return a number of bytes, 0 for {@link Gc#NONE}
	 */
	public static long auxBytes(int jdk, Gc gc, long heapBytes) {
		checkJdk(jdk);
		Objects.requireNonNull(gc, "gc");
		checkHeap("heapBytes", heapBytes);
		NativeLibrary.require();
		return auxBytes0(jdk, gc.ordinal(), heapBytes);
	}

	/**
	 * The touch the JVM of release jdk uses on this machine: populate
	 * when THP is "always" (JDK 21 and later), else the atomic add (JDK
	 * 19 and later) or the store.
	 *
	 * @param jdk the JDK feature release, 8 to 99
	 * @return the touch
	 */
	public static Touch jvmTouch(int jdk) {
		String thp = "";

		checkJdk(jdk);
		try {
			thp = Files.readString(Path.of(
				"/sys/kernel/mm/transparent_hugepage/enabled"));
		} catch (IOException | RuntimeException e) {
			// No THP: the per-page touch.
		}
		if (jdk >= 21 && thp.contains("[always]"))
			return Touch.POPULATE;
		return jdk >= 19 ? Touch.ATOMIC_ADD : Touch.STORE;
	}
}
