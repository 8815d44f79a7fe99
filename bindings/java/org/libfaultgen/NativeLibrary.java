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
 *      (PREFIX/share/java/faultgen.jar, or PREFIX/lib/java/faultgen.jar as
 *      Fedora installs a jar with native code: PREFIX/lib/jni,
 *      PREFIX/lib64/jni, PREFIX/lib/<multiarch>/jni, PREFIX/lib64/libfaultgen
 *      and PREFIX/lib/libfaultgen), so that an installed jar finds its
 *      library without recording an architecture's directory in itself;
 *   4. the distributions' JNI directories: Debian's /usr/lib/<multiarch>/jni
 *      and /usr/lib/jni, Fedora's /usr/lib64/libfaultgen and
 *      /usr/lib/libfaultgen (%{_libdir}/%{name}) and /usr/lib/java.
 * A file that loads is asked for its interface version, so that a
 * library that is not the shim, or the shim of another build, is named
 * as such rather than failing later at the first native call.
 * The lookup runs once, at the first call that needs the library, and
 * never throws: a failure is kept and every later call throws a fresh
 * UnsatisfiedLinkError with the whole story (a static initialiser that
 * threw would leave ExceptionInInitializerError and then
 * NoClassDefFoundError behind).
 */
final class NativeLibrary {
	static final String PROPERTY = "org.libfaultgen.jni";
	static final String FILE = "libfaultgen-jni.so";
	/* The interface of the native methods; faultgen_jni.c's SHIM_VERSION. */
	static final int SHIM_VERSION = 2;
	/* Fedora's %{name}: the directory of %{_libdir} its library is in. */
	private static final String NAME = "libfaultgen";

	private NativeLibrary() {
	}

	/* Loaded at the first require(): the outcome of the lookup. */
	private static final class Holder {
		static final String FAILURE = lookup();
	}

	/* Throws, with every place looked in, unless the library is loaded. */
	static void require() {
		String failure = Holder.FAILURE;

		if (failure != null)
			throw new UnsatisfiedLinkError(failure);
	}

	/* Never throws (but for the VM's own errors). */
	private static String lookup() {
		List<String> tried = new ArrayList<>();

		try {
			return load(tried);
		} catch (RuntimeException | LinkageError e) {
			tried.add("unexpected " + e);
			return message(tried, null);
		}
	}

	/* Why loads fail for everyone: native access is not allowed. */
	private static final class Denied extends Exception {
		private static final long serialVersionUID = 1L;

		Denied(RuntimeException cause) {
			super(cause.toString(), cause);
		}
	}

	private static String load(List<String> tried) {
		String prop = System.getProperty(PROPERTY);

		try {
			if (prop != null) {
				if (prop.isEmpty())
					tried.add("-D" + PROPERTY + " is empty");
				else if (tryLoad(Paths.get(prop)
						 .toAbsolutePath().normalize(),
						 "-D" + PROPERTY + "=" + prop,
						 tried))
					return null;
				return message(tried, null);
			}
			if (loadFromPath(tried))
				return null;
			List<Path> dirs = installDirs();

			if (dirs.isEmpty())
				tried.add("no install directory (the jar is " +
					  "not in PREFIX/share/java or " +
					  "PREFIX/lib/java: " + jarPath() + ")");
			if (lookIn(dirs, tried) || lookIn(systemDirs(), tried))
				return null;
			return message(tried, null);
		} catch (Denied d) {
			return message(tried, (RuntimeException) d.getCause());
		}
	}

	private static boolean loadFromPath(List<String> tried) throws Denied {
		String where = "java.library.path (" +
			System.getProperty("java.library.path", "") + ")";

		try {
			System.loadLibrary("faultgen-jni");
		} catch (UnsatisfiedLinkError e) {
			tried.add(where + ": " + e.getMessage());
			return false;
		} catch (IllegalCallerException | SecurityException e) {
			tried.add(where + ": " + e);
			throw new Denied(e);
		}
		return isShim(where + ": " + FILE, tried);
	}

	/* The first library of dirs that loads and is the shim. */
	private static boolean lookIn(List<Path> dirs, List<String> tried)
		throws Denied {
		for (Path dir : dirs) {
			Path f = dir.resolve(FILE);

			if (!Files.exists(f))
				tried.add(f + ": no such file");
			else if (tryLoad(f, f.toString(), tried))
				return true;
		}
		return false;
	}

	private static boolean tryLoad(Path file, String what,
				       List<String> tried) throws Denied {
		try {
			System.load(file.toString());
		} catch (UnsatisfiedLinkError e) {
			tried.add(what + ": " + e.getMessage());
			return false;
		} catch (IllegalCallerException | SecurityException e) {
			tried.add(what + ": " + e);
			throw new Denied(e);
		}
		// "-Dorg.libfaultgen.jni=lib/x.so (/abs/lib/x.so)".
		return isShim(what.endsWith(file.toString()) ? what :
			      what + " (" + file + ")", tried);
	}

	/*
	 * A file that loaded: the shim of this jar's interface, or not the
	 * shim at all (any shared object loads), or the shim of another
	 * build.  Its symbols stay loaded either way; the next place is
	 * still looked in.
	 */
	private static boolean isShim(String what, List<String> tried) {
		int v;

		try {
			v = PreTouch.shimVersion0();
		} catch (UnsatisfiedLinkError e) {
			tried.add(what + " loaded but is not libfaultgen's JNI " +
				  "shim, or is one older than this jar (no " +
				  "native method " + e.getMessage() + ")");
			return false;
		}
		if (v == SHIM_VERSION)
			return true;
		tried.add(what + " is the JNI shim of another libfaultgen " +
			  "build (interface " + v + ", this jar needs " +
			  SHIM_VERSION + ")");
		return false;
	}

	private static String message(List<String> tried,
				      RuntimeException denied) {
		String allow = NativeLibrary.class.getModule().isNamed() ?
			"--enable-native-access=" +
			NativeLibrary.class.getModule().getName() :
			"--enable-native-access=ALL-UNNAMED";

		if (denied != null)
			return "cannot load " + FILE + " (the native half of " +
				"org.libfaultgen): native access is not " +
				"allowed to this code; tried: " +
				String.join("; ", tried) +
				". Allow it with " + allow + " (or run the jar " +
				"with java -jar, whose manifest allows it)";
		return "cannot load " + FILE + " (the native half of " +
			"org.libfaultgen); tried: " + String.join("; ", tried) +
			". Name the file with -D" + PROPERTY +
			"=/path/to/" + FILE + " or put its directory on " +
			"-Djava.library.path (it needs libfaultgen.so.0 " +
			"where the dynamic linker finds it)";
	}

	/*
	 * PREFIX/share/java/x.jar (or PREFIX/lib/java/x.jar, Fedora's
	 * %{_jnidir}) -> the JNI directories under PREFIX; a jar anywhere
	 * else has no prefix, and a library found beside it by guessing
	 * could be of another build.
	 */
	private static List<Path> installDirs() {
		List<Path> dirs = new ArrayList<>();
		Path jar = jarPath();
		Path java = jar == null ? null : jar.getParent();
		Path mid = java == null ? null : java.getParent();
		Path prefix = mid == null ? null : mid.getParent();

		if (prefix == null || !java.endsWith("java") ||
		    !(mid.endsWith("share") || mid.endsWith("lib")))
			return dirs;
		return libDirs(prefix);
	}

	/* The JNI directories under a prefix, in the order looked in. */
	private static List<Path> libDirs(Path prefix) {
		List<Path> dirs = new ArrayList<>();
		Path lib = prefix.resolve("lib"), lib64 = prefix.resolve("lib64");

		dirs.add(lib.resolve("jni"));
		dirs.add(lib64.resolve("jni"));
		for (String t : multiarch(lib))
			dirs.add(lib.resolve(t).resolve("jni"));
		dirs.add(lib64.resolve(NAME));
		dirs.add(lib.resolve(NAME));
		return dirs;
	}

	/*
	 * The distributions' directories: Debian's /usr/lib/<multiarch>/jni
	 * and /usr/lib/jni, Fedora's %{_libdir}/%{name} and %{_jnidir}
	 * (/usr/lib/java), which the jar's own prefix did not cover.
	 */
	private static List<Path> systemDirs() {
		List<Path> dirs = new ArrayList<>();
		List<Path> own = installDirs();
		Path usr = Paths.get("/usr"), lib = usr.resolve("lib");

		for (String t : multiarch(lib))
			dirs.add(lib.resolve(t).resolve("jni"));
		dirs.add(lib.resolve("jni"));
		dirs.add(usr.resolve("lib64").resolve(NAME));
		dirs.add(lib.resolve(NAME));
		dirs.add(lib.resolve("java"));
		dirs.removeAll(own);
		return dirs;
	}

	/*
	 * This JVM's Debian multiarch tuple (x86_64-linux-gnu for amd64),
	 * or, for an architecture not listed, the tuples that have a jni
	 * directory under lib.
	 */
	private static List<String> multiarch(Path lib) {
		List<String> out = new ArrayList<>();
		String arch = System.getProperty("os.arch", "");
		String t;

		switch (arch) {
		case "amd64": case "x86_64": t = "x86_64-linux-gnu"; break;
		case "aarch64": t = "aarch64-linux-gnu"; break;
		case "x86": case "i386": t = "i386-linux-gnu"; break;
		case "arm": t = "arm-linux-gnueabihf"; break;
		case "ppc64le": t = "powerpc64le-linux-gnu"; break;
		case "s390x": t = "s390x-linux-gnu"; break;
		case "riscv64": t = "riscv64-linux-gnu"; break;
		case "loongarch64": t = "loongarch64-linux-gnu"; break;
		case "mips64el": t = "mips64el-linux-gnuabi64"; break;
		default: t = null; break;
		}
		if (t != null) {
			out.add(t);
			return out;
		}
		File[] sub = lib.toFile().listFiles(
			f -> f.isDirectory() && f.getName().contains("-linux-") &&
			     new File(f, "jni").isDirectory());
		if (sub != null) {
			for (File f : sub)
				out.add(f.getName());
		}
		return out;
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
