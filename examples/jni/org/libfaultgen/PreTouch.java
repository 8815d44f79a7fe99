// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * PreTouch.java - the JVM's AlwaysPreTouch, and pretouching off-heap
 * memory, from Java through libfaultgen.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
package org.libfaultgen;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Page-fault figures of a pretouch, and the calls that make them.
 *
 * <p>The native library is {@code libfaultgen-jni.so}: the file named by
 * the system property {@code org.libfaultgen.jni} if set, else the one on
 * {@code java.library.path}, else the one in the directory the build
 * recorded in the jar (resource {@code jnidir}).
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

	/** Whose auxiliary tables are pretouched after the heap. */
	public enum Gc {
		NONE, G1, PARALLEL,
	}

	/** What a pretouch did. */
	public static final class Result {
		public final long elapsedNanos;
		public final long bytes;
		public final long pages;
		public final long minorFaults;
		public final long expectedFaults;
		public final int workers;

		Result(long[] v) {
			elapsedNanos = v[0];
			bytes = v[1];
			pages = v[2];
			minorFaults = v[3];
			expectedFaults = v[4];
			workers = (int) v[5];
		}

		@Override
		public String toString() {
			return String.format((java.util.Locale) null,
					     "workers=%d bytes=%d pages=%d " +
					     "minflt=%d expected=%d " +
					     "elapsed_ms=%.3f",
					     workers, bytes, pages, minorFaults,
					     expectedFaults,
					     elapsedNanos / 1e6);
		}
	}

	/** A libfaultgen error other than a bad argument or no memory. */
	public static final class FaultgenException extends RuntimeException {
		private static final long serialVersionUID = 1L;
		private final int error;

		FaultgenException(int error, String message) {
			super(message + " (" + error + ")");
			this.error = error;
		}

		/** The negative errno value libfaultgen returned. */
		public int error() {
			return error;
		}
	}

	static {
		String path = System.getProperty("org.libfaultgen.jni");

		if (path != null) {
			System.load(path);
		} else {
			try {
				System.loadLibrary("faultgen-jni");
			} catch (UnsatisfiedLinkError e) {
				String dir = installedDir();

				if (dir == null)
					throw e;
				try {
					System.load(dir +
						    "/libfaultgen-jni.so");
				} catch (UnsatisfiedLinkError e2) {
					e2.addSuppressed(e);
					throw e2;
				}
			}
		}
	}

	/* The directory make install puts the library in, or null. */
	private static String installedDir() {
		try (InputStream in =
			     PreTouch.class.getResourceAsStream("jnidir")) {
			if (in == null)
				return null;
			return new String(in.readAllBytes(),
					  StandardCharsets.UTF_8).trim();
		} catch (IOException e) {
			return null;
		}
	}

	private PreTouch() {
	}

	private static native long[] emulateHeap0(long bytes, int jdk, int gc,
						  int threads, int touch);

	private static native long[] pretouch0(ByteBuffer buf, int threads,
					       int touch);

	static native ByteBuffer allocate0(long bytes);

	static native void free0(ByteBuffer buf);

	private static native long auxBytes0(int jdk, int gc, long heap);

	/** HotSpot's default ParallelGCThreads for this many CPUs. */
	public static native int gcThreads(int cpus);

	/**
	 * Emulates the heap pretouch of a JVM started with
	 * {@code -XX:+AlwaysPreTouch -Xms}<i>bytes</i> {@code -Xmx}<i>bytes</i>:
	 * the heap mapped as the JVM maps it, then touched with its pattern,
	 * then, for G1, its tables.  The memory is released before this
	 * returns.
	 *
	 * @param threads 0 for the JVM's own choice (the ParallelGCThreads
	 *                rule on the allowed CPUs, at most one per chunk)
	 */
	public static Result emulateHeap(long bytes, int jdk, Gc gc,
					 int threads, Touch touch) {
		return new Result(emulateHeap0(bytes, jdk, gc.ordinal(),
					       threads, touch.ordinal()));
	}

	/**
	 * Pretouches the whole pages of a writable direct buffer with the
	 * JVM's chunk pattern (or a fast mode).  The buffer is never
	 * unmapped.  STORE
	 * writes a 0 at the start of each page: use ATOMIC_ADD on memory
	 * that holds data.
	 */
	public static Result pretouch(ByteBuffer buf, int threads,
				      Touch touch) {
		if (!buf.isDirect())
			throw new IllegalArgumentException(
				"not a direct buffer");
		// A touch of read-only memory would kill the JVM.
		if (buf.isReadOnly())
			throw new IllegalArgumentException(
				"a read-only buffer");
		return new Result(pretouch0(buf, threads, touch.ordinal()));
	}

	/** Bytes of G1's tables pretouched after a heap, for a JDK. */
	public static long auxBytes(int jdk, Gc gc, long heap) {
		return auxBytes0(jdk, gc.ordinal(), heap);
	}

	/**
	 * The touch the JVM of release jdk uses on this machine: populate
	 * when THP is "always" (JDK 21 and later), else the atomic add
	 * (JDK 19 and later) or the store.
	 */
	public static Touch jvmTouch(int jdk) {
		String thp = "";

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
