// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * NativeLibrary.java - finds and loads libfaultgen-jni.so once, and tells
 * every caller the same thing when it could not.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
package org.libfaultgen;

import java.io.File;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;

/*
 * Where the library is looked for, in this order:
 *   1. the file the system property org.libfaultgen.jni names (relative to
 *      the working directory if relative), and nothing else when it is
 *      set: an explicit choice is not replaced by another copy;
 *   2. java.library.path, as System.loadLibrary looks;
 *   3. the JNI directories of the prefix the jar is installed under
 *      (PREFIX/share/java/faultgen.jar: PREFIX/lib/jni, PREFIX/lib64/jni,
 *      PREFIX/lib/<multiarch>/jni), so that an installed jar finds its
 *      library without recording an architecture's directory in itself.
 * A failure is kept and thrown again, whole, on every later call (a
 * static initialiser that threw would leave NoClassDefFoundError behind).
 */
final class NativeLibrary {
	static final String PROPERTY = "org.libfaultgen.jni";
	static final String FILE = "libfaultgen-jni.so";

	private static final String FAILURE = load();

	private NativeLibrary() {
	}

	/* Throws, with every place looked in, unless the library is loaded. */
	static void require() {
		if (FAILURE != null)
			throw new UnsatisfiedLinkError(FAILURE);
	}

	private static String load() {
		List<String> tried = new ArrayList<>();
		String prop = System.getProperty(PROPERTY);

		if (prop != null) {
			if (prop.isEmpty()) {
				tried.add("-D" + PROPERTY + " is empty");
			} else if (tryLoad(Paths.get(prop).toAbsolutePath()
					   .normalize(), "-D" + PROPERTY,
					   tried)) {
				return null;
			}
			return message(tried);
		}
		try {
			System.loadLibrary("faultgen-jni");
			return null;
		} catch (UnsatisfiedLinkError | SecurityException e) {
			tried.add("java.library.path (" +
				  System.getProperty("java.library.path", "") +
				  "): " + e.getMessage());
		}
		List<Path> dirs = installDirs();

		if (dirs.isEmpty())
			tried.add("no install directory (the jar is not in " +
				  "PREFIX/share/java: " + jarPath() + ")");
		for (Path dir : dirs) {
			Path f = dir.resolve(FILE);

			if (Files.exists(f) && tryLoad(f, "installed", tried))
				return null;
			if (!Files.exists(f))
				tried.add(f + ": no such file");
		}
		return message(tried);
	}

	private static boolean tryLoad(Path file, String what,
				       List<String> tried) {
		try {
			System.load(file.toString());
			return true;
		} catch (UnsatisfiedLinkError | SecurityException e) {
			tried.add(what + " " + file + ": " + e.getMessage());
			return false;
		}
	}

	private static String message(List<String> tried) {
		return "cannot load " + FILE + " (the native half of " +
			"org.libfaultgen); tried: " + String.join("; ", tried) +
			". Name the file with -D" + PROPERTY +
			"=/path/to/" + FILE + " or put its directory on " +
			"-Djava.library.path (it needs libfaultgen.so.0 " +
			"where the dynamic linker finds it)";
	}

	/*
	 * PREFIX/share/java/x.jar -> the JNI directories under PREFIX; a jar
	 * anywhere else has no prefix, and a library found beside it by
	 * guessing could be of another build.
	 */
	private static List<Path> installDirs() {
		List<Path> dirs = new ArrayList<>();
		Path jar = jarPath();
		Path java = jar == null ? null : jar.getParent();
		Path share = java == null ? null : java.getParent();
		Path prefix = share == null ? null : share.getParent();

		if (prefix == null || !java.endsWith("java") ||
		    !share.endsWith("share"))
			return dirs;
		dirs.add(prefix.resolve("lib").resolve("jni"));
		dirs.add(prefix.resolve("lib64").resolve("jni"));
		File[] sub = prefix.resolve("lib").toFile().listFiles(
			f -> f.isDirectory() && f.getName().contains("-linux-") &&
			     new File(f, "jni").isDirectory());
		if (sub != null) {
			for (File f : sub)
				dirs.add(f.toPath().resolve("jni"));
		}
		return dirs;
	}

	private static Path jarPath() {
		try {
			CodeSource cs = NativeLibrary.class.getProtectionDomain()
				.getCodeSource();

			if (cs == null || cs.getLocation() == null)
				return null;
			Path p = Paths.get(cs.getLocation().toURI());
			return Files.isRegularFile(p) ? p : null;
		} catch (URISyntaxException | RuntimeException e) {
			return null;
		}
	}
}
