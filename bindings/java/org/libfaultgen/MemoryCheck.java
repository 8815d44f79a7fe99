// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * MemoryCheck.java - whether a run's memory can be had at all, before
 * anything is touched: the machine's MemAvailable and the room left under
 * the limits of this process's memory cgroup and its ancestors (cgroup v1
 * or v2), as pft checks -m (pft/memcheck.c, pft/cgroup.c).  Inside a group
 * smaller than the run, the kernel's OOM killer would end the JVM.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
package org.libfaultgen;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Locale;

final class MemoryCheck {
	private MemoryCheck() {
	}

	/* The tightest limit of the cgroup levels read. */
	static final class Room {
		long room;  // limit - usage not reclaimable
		long limit; // bytes
		long used;  // bytes, all of it
		String file;
		Path dir;
	}

	/*
	 * Throws OutOfMemoryError when need bytes (a heap of heap bytes and
	 * the rest) are more than MemAvailable or the memory cgroup allows.
	 */
	static void check(String what, long heap, long need) {
		long avail = memAvailable();
		Room cg;

		if (avail > 0 && Long.compareUnsigned(need, avail) > 0)
			throw new OutOfMemoryError(String.format(Locale.ROOT,
				"%s: a heap of %d bytes (%s, %s with the rest " +
				"the JVM pretouches) is more memory than this " +
				"machine has available (MemAvailable %s)",
				what, heap, human(heap), human(need),
				human(avail)));
		cg = cgroupRoom();
		if (cg != null && Long.compareUnsigned(need, cg.room) > 0)
			throw new OutOfMemoryError(String.format(Locale.ROOT,
				"%s: a heap of %d bytes (%s, %s with the rest " +
				"the JVM pretouches) is more memory than its " +
				"memory cgroup allows: %s left (%s of %s: " +
				"limit %s, %s in use)", what, heap, human(heap),
				human(need), human(cg.room), cg.file, cg.dir,
				human(cg.limit), human(cg.used)));
	}

	static String human(long b) {
		if (b >= 1L << 30)
			return String.format(Locale.ROOT, "%.2f GiB",
					     b / (double) (1L << 30));
		return String.format(Locale.ROOT, "%.1f MiB",
				     b / (double) (1L << 20));
	}

	/* MemAvailable in bytes, or 0 when unknown. */
	private static long memAvailable() {
		long kib = number(Paths.get("/proc/meminfo"), "MemAvailable:");

		return kib > 0 ? kib << 10 : 0;
	}

	/* The number after key in a "key value" file, or -1. */
	private static long number(Path file, String key) {
		try {
			for (String l : Files.readAllLines(file)) {
				if (l.startsWith(key))
					return Long.parseLong(l.substring(
						key.length()).trim()
						.split("\\s+")[0]);
			}
		} catch (IOException | RuntimeException e) {
			// unknown
		}
		return -1;
	}

	/* A single-number file: bytes, Long.MAX_VALUE for "max", -1. */
	private static long value(Path file) {
		try {
			String s = Files.readString(file).trim();

			if (s.equals("max"))
				return Long.MAX_VALUE;
			long v = Long.parseLong(s);
			// v1 writes "no limit" as the largest page multiple.
			return v >= 1L << 62 ? Long.MAX_VALUE : v;
		} catch (IOException | RuntimeException e) {
			return -1;
		}
	}

	/*
	 * This process's memory cgroup directory and its version: v1 where
	 * the memory controller has a hierarchy of its own, else v2.  Its
	 * levels are read from there up to the mount point, which a
	 * container's mount shows as its own cgroup; a root cgroup has no
	 * limit files, or unlimited ones.  Null when nothing limits.
	 */
	static Room cgroupRoom() {
		String[] mnt = null, own = null;
		int v = 1;

		try {
			List<String> cg = Files.readAllLines(
				Paths.get("/proc/self/cgroup"));
			List<String> mi = Files.readAllLines(
				Paths.get("/proc/self/mountinfo"));

			mnt = mount(mi, "memory");
			own = ownPath(cg, "memory");
			if (mnt == null || own == null) {
				v = 2;
				mnt = mount(mi, null);
				own = ownPath(cg, null);
			}
		} catch (IOException | RuntimeException e) {
			return null;
		}
		if (mnt == null || own == null)
			return null;
		String path = own[0], root = mnt[1];

		// Inside a container the mount shows a subtree.
		if (!root.equals("/") && path.startsWith(root))
			path = path.substring(root.length());
		Path top = Paths.get(mnt[0]);
		Path dir = path.isEmpty() || path.equals("/") ? top :
			Paths.get(mnt[0] + path);
		Room best = null;

		for (Path d = dir; d != null && d.startsWith(top);
		     d = d.getParent())
			best = level(best, d, v);
		return best;
	}

	private static Room level(Room best, Path dir, int v) {
		String limFile = v == 1 ? "memory.limit_in_bytes" : "memory.max";
		long limit = value(dir.resolve(limFile));
		long used = value(dir.resolve(v == 1 ? "memory.usage_in_bytes" :
					      "memory.current"));
		long cache = number(dir.resolve("memory.stat"),
				    v == 1 ? "total_inactive_file " :
					     "inactive_file ");
		long busy, room;

		if (limit < 0 || limit == Long.MAX_VALUE || used < 0)
			return best;
		busy = used - (cache > 0 && cache < used ? cache : 0);
		room = limit > busy ? limit - busy : 0;
		if (best != null && room >= best.room)
			return best;
		Room r = new Room();
		r.room = room;
		r.limit = limit;
		r.used = used;
		r.file = limFile;
		r.dir = dir;
		return r;
	}

	/* Comma-separated list has word. */
	private static boolean hasWord(String list, String word) {
		for (String w : list.split(","))
			if (w.equals(word))
				return true;
		return false;
	}

	/* {path} of this process in controller's v1 hierarchy, or in the
	 * unified one when controller is null. */
	private static String[] ownPath(List<String> lines, String controller) {
		for (String l : lines) {
			String[] f = l.split(":", 3);

			if (f.length < 3)
				continue;
			if (controller == null ? f[0].equals("0") &&
			    f[1].isEmpty() : hasWord(f[1], controller))
				return new String[] { f[2] };
		}
		return null;
	}

	/* {mount point, mounted root} of controller's v1 hierarchy, or of
	 * cgroup2 when controller is null. */
	private static String[] mount(List<String> lines, String controller) {
		for (String l : lines) {
			int sep = l.indexOf(" - ");

			if (sep < 0)
				continue;
			String[] a = l.substring(0, sep).split(" ");
			String[] b = l.substring(sep + 3).split(" ");

			if (a.length < 5 || b.length < 3)
				continue;
			boolean ok = controller == null ?
				b[0].equals("cgroup2") :
				b[0].equals("cgroup") &&
				hasWord(b[2], controller);
			if (ok)
				return new String[] { unescape(a[4]),
						      unescape(a[3]) };
		}
		return null;
	}

	/* mountinfo writes a blank as \040. */
	private static String unescape(String s) {
		StringBuilder b = new StringBuilder();

		for (int i = 0; i < s.length(); i++) {
			char c = s.charAt(i);

			if (c == '\\' && i + 3 < s.length()) {
				try {
					b.append((char) Integer.parseInt(
						s.substring(i + 1, i + 4), 8));
					i += 3;
					continue;
				} catch (NumberFormatException e) {
					// as is
				}
			}
			b.append(c);
		}
		return b.toString();
	}
}
