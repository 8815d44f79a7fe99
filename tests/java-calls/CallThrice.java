// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * CallThrice.java - three calls of PreTouch.gcThreads, each printing what
 * it returned or threw, on one line: what a caller sees from the first
 * call on, and from every later one.  Run as a source file with the jar
 * on the class path (pretouch-jni.sh, with --illegal-native-access=deny).
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
public final class CallThrice {
	private CallThrice() {
	}

	public static void main(String[] args) {
		for (int i = 0; i < 3; i++) {
			try {
				System.out.println("call " + i + ": " +
					org.libfaultgen.PreTouch.gcThreads(4));
			} catch (Throwable t) {
				System.out.println("call " + i + ": " + t);
			}
		}
	}
}
