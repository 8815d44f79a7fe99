// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * PreTouchDemo.java - what -XX:+AlwaysPreTouch costs, without pretouching.
 *
 * Copyright (C) 2026 The libfaultgen authors
 *
 *   java -cp faultgen.jar org.libfaultgen.demo.PreTouchDemo 4g
 *        [--gc=g1|parallel|none] [--jdk=N] [--threads=N]
 *        [--touch=jvm|store|add|populate|fast|fast-huge] [--fast]
 *   java -p faultgen.jar -m org.libfaultgen 64m --buffer [--threads=N]
 *
 * Runs the emulation of the heap pretouch a JVM of this release (or
 * --jdk) started with -Xms4g -Xmx4g would do, with the worker count it
 * would use, and prints the figures; --fast adds the fast modes.
 * --buffer pretouches an unfaulted direct buffer instead.
 */
package org.libfaultgen.demo;

import java.util.Locale;

import org.libfaultgen.OffHeap;
import org.libfaultgen.PreTouch;

/** The demo's main class. */
public final class PreTouchDemo {
	private PreTouchDemo() {
	}

	/* "4g", "512m", "64k" or bytes, as -Xms takes them. */
	private static long parseSize(String s) {
		String t = s.toLowerCase(Locale.ROOT);
		int shift = 0;

		if (t.endsWith("g"))
			shift = 30;
		else if (t.endsWith("m"))
			shift = 20;
		else if (t.endsWith("k"))
			shift = 10;
		if (shift > 0)
			t = t.substring(0, t.length() - 1);
		try {
			return Math.multiplyExact(Long.parseLong(t),
						  1L << shift);
		} catch (NumberFormatException | ArithmeticException e) {
			throw new IllegalArgumentException(
				"SIZE must be bytes or a number with k, m or " +
				"g: " + s);
		}
	}

	/* The number of --NAME=VALUE. */
	private static int parseInt(String name, String v) {
		try {
			return Integer.parseInt(v);
		} catch (NumberFormatException e) {
			throw new IllegalArgumentException(
				name + " must be a whole number: " + v);
		}
	}

	private static PreTouch.Gc parseGc(String s) {
		for (PreTouch.Gc g : PreTouch.Gc.values())
			if (g.name().equalsIgnoreCase(s))
				return g;
		throw new IllegalArgumentException(
			"--gc must be g1, parallel or none: " + s);
	}

	private static PreTouch.Touch parseTouch(String s, int jdk) {
		switch (s) {
		case "jvm":
			return PreTouch.jvmTouch(jdk);
		case "store":
			return PreTouch.Touch.STORE;
		case "add":
			return PreTouch.Touch.ATOMIC_ADD;
		case "populate":
			return PreTouch.Touch.POPULATE;
		case "fast":
			return PreTouch.Touch.FAST;
		case "fast-huge":
			return PreTouch.Touch.FAST_HUGE;
		default:
			throw new IllegalArgumentException(
				"--touch must be jvm, store, add, populate, " +
				"fast or fast-huge: " + s);
		}
	}

	private static void usage() {
		System.err.println("usage: PreTouchDemo SIZE [--gc=g1|parallel|"
				   + "none] [--jdk=N] [--threads=N] "
				   + "[--touch=jvm|store|add|populate|fast|"
				   + "fast-huge] [--fast] [--buffer]");
		System.exit(2);
	}

	/**
	 * Runs the demo.
	 *
	 * @param args a heap size and options, as the usage line says
	 */
	public static void main(String[] args) {
		int jdk = Runtime.version().feature(), threads = 0;
		PreTouch.Gc gc = PreTouch.Gc.G1;
		String touch = "jvm", sizeArg = "";
		boolean fast = false, buffer = false;
		long size = 0;

		try {
			for (String a : args) {
				if (a.startsWith("--gc="))
					gc = parseGc(a.substring(5));
				else if (a.startsWith("--jdk="))
					jdk = parseInt("--jdk", a.substring(6));
				else if (a.startsWith("--threads="))
					threads = parseInt("--threads",
							   a.substring(10));
				else if (a.startsWith("--touch="))
					touch = a.substring(8);
				else if (a.equals("--fast"))
					fast = true;
				else if (a.equals("--buffer"))
					buffer = true;
				else if (size == 0 && !a.startsWith("-")) {
					size = parseSize(a);
					sizeArg = a;
				} else
					usage();
			}
			if (size <= 0)
				usage();
			parseTouch(touch, jdk);
		} catch (IllegalArgumentException | ArithmeticException e) {
			System.err.println("PreTouchDemo: " + e.getMessage());
			usage();
		}
		try {
			run(size, sizeArg, jdk, gc, threads, touch, fast,
			    buffer);
		} catch (IllegalArgumentException | IllegalStateException |
			 OutOfMemoryError | UnsatisfiedLinkError |
			 PreTouch.FaultgenException e) {
			System.err.println("PreTouchDemo: " + e.getMessage());
			System.exit(1);
		}
	}

	private static void run(long size, String sizeArg, int jdk,
				PreTouch.Gc gc, int threads, String touch,
				boolean fast, boolean buffer) {
		if (buffer) {
			try (OffHeap mem = OffHeap.allocate(size)) {
				PreTouch.Result r = mem.pretouch(threads,
					touch.equals("jvm") ?
						PreTouch.Touch.ATOMIC_ADD :
						parseTouch(touch, jdk));
				System.out.println("buffer of " + size +
						   " bytes: " + r);
			}
			return;
		}
		String what = String.format(Locale.ROOT,
					    "JDK %d %s -Xms%s", jdk, gc,
					    sizeArg);
		System.out.println("emulated " + what + ", touch " +
				   parseTouch(touch, jdk) + ": " +
				   PreTouch.emulateHeap(size, jdk, gc, threads,
							parseTouch(touch,
								   jdk)));
		if (!fast)
			return;
		for (PreTouch.Touch t : new PreTouch.Touch[] {
			     PreTouch.Touch.FAST, PreTouch.Touch.FAST_HUGE }) {
			System.out.println("fast     " + what + ", touch " + t +
					   ": " +
					   PreTouch.emulateHeap(size, jdk, gc,
								threads, t));
		}
	}
}
