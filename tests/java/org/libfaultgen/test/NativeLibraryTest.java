// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * NativeLibraryTest.java - the library that cannot be found: one message
 * naming every place looked in and the property that sets it, from every
 * call, not once and then NoClassDefFoundError; a library that loads but
 * is not the shim, named with the property; the distributions' layouts;
 * and no library taken from beside a jar that is not installed in
 * PREFIX/share/java or PREFIX/lib/java.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
package org.libfaultgen.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NativeLibraryTest {
	static final String PROP = "org.libfaultgen.jni";
	/* Looked in by any jar, after java.library.path and its prefix. */
	static final String[] SYSTEM_DIRS = { "/usr/lib/jni",
		"/usr/lib64/libfaultgen", "/usr/lib/libfaultgen",
		"/usr/lib/java" };

	/* The jar loaded again in a loader of its own: fresh statics. */
	static Class<?> freshPreTouch(String jni, URLClassLoader[] keep)
		throws Exception {
		String jar = System.getProperty("faultgen.jar");
		String old = System.getProperty(PROP);

		assertNotNull(jar, "the runner gives -Dfaultgen.jar");
		keep[0] = new URLClassLoader(
			new URL[] { Path.of(jar).toUri().toURL() },
			ClassLoader.getPlatformClassLoader());
		System.setProperty(PROP, jni);
		try {
			Class<?> c = Class.forName("org.libfaultgen.PreTouch",
						   true, keep[0]);
			// The lookup runs at the first call that needs it.
			call(c, "gcThreads");
			return c;
		} finally {
			System.setProperty(PROP, old);
		}
	}

	static Throwable call(Class<?> c, String name) throws Exception {
		Method m = c.getMethod(name, int.class);

		try {
			m.invoke(null, 4);
			return null;
		} catch (InvocationTargetException e) {
			return e.getCause();
		}
	}

	@Test
	void everyCallSaysWhereItLooked() throws Exception {
		URLClassLoader[] loader = new URLClassLoader[1];
		String missing = "/nonexistent/dir/libfaultgen-jni.so";
		Class<?> c = freshPreTouch(missing, loader);

		try {
			for (int i = 0; i < 3; i++) {
				Throwable t = call(c, "gcThreads");

				assertNotNull(t, "call " + i + " succeeded");
				assertEquals(UnsatisfiedLinkError.class,
					     t.getClass(), t.toString());
				String msg = t.getMessage();
				assertTrue(msg.contains(missing), msg);
				assertTrue(msg.contains("-D" + PROP), msg);
				assertTrue(msg.contains("java.library.path"),
					   msg);
			}
			// The other classes say the same.
			Class<?> off = Class.forName("org.libfaultgen.OffHeap",
						     true, loader[0]);
			Method alloc = off.getMethod("allocate", long.class);
			InvocationTargetException e = assertThrows(
				InvocationTargetException.class,
				() -> alloc.invoke(null, 4096L));
			assertEquals(UnsatisfiedLinkError.class,
				     e.getCause().getClass());
			assertTrue(e.getCause().getMessage().contains(missing));
		} finally {
			loader[0].close();
		}
	}

	/*
	 * A shared object that loads but is not the shim (libfaultgen itself):
	 * named, with the property, at every call, not a bare
	 * UnsatisfiedLinkError naming a native method at the first.
	 */
	@Test
	void aLibraryThatIsNotTheShimIsNamed() throws Exception {
		URLClassLoader[] loader = new URLClassLoader[1];
		String lib = System.getProperty("faultgen.lib");

		assertNotNull(lib, "the runner gives -Dfaultgen.lib");
		Class<?> c = freshPreTouch(lib, loader);
		try {
			for (int i = 0; i < 2; i++) {
				Throwable t = call(c, "gcThreads");

				assertNotNull(t, "call " + i + " succeeded");
				assertEquals(UnsatisfiedLinkError.class,
					     t.getClass(), t.toString());
				String msg = t.getMessage();
				assertTrue(msg.contains("-D" + PROP + "=" + lib),
					   msg);
				assertTrue(msg.contains("not libfaultgen's JNI " +
							"shim"), msg);
			}
		} finally {
			loader[0].close();
		}
	}

	/* The jar as a distribution installs it, found with no property. */
	static void foundAt(Path jar, Path lib) throws Exception {
		String so = System.getProperty(PROP);

		for (String d : System.getProperty("java.library.path")
			     .split(":"))
			assumeFalse(Files.exists(Path.of(d, "libfaultgen-jni.so")),
				    "installed in " + d + ", on " +
				    "java.library.path");
		Files.createDirectories(jar.getParent());
		Files.createDirectories(lib.getParent());
		Files.copy(Path.of(System.getProperty("faultgen.jar")), jar);
		Files.copy(Path.of(so), lib);
		System.clearProperty(PROP);
		try (URLClassLoader l = new URLClassLoader(
			     new URL[] { jar.toUri().toURL() },
			     ClassLoader.getPlatformClassLoader())) {
			Throwable t = call(Class.forName(
				"org.libfaultgen.PreTouch", true, l),
				"gcThreads");
			assertEquals(null, t, "not found in " + lib);
		} finally {
			System.setProperty(PROP, so);
		}
	}

	/* Fedora: the jar in %{_jnidir} (/usr/lib/java), the library in
	 * %{_libdir}/%{name} (/usr/lib64/libfaultgen). */
	@Test
	void fedorasLayout(@TempDir Path dir) throws Exception {
		foundAt(dir.resolve("lib/java/faultgen.jar"),
			dir.resolve("lib64/libfaultgen/libfaultgen-jni.so"));
	}

	/* Debian: the jar in /usr/share/java, the library in
	 * /usr/lib/<multiarch>/jni. */
	@Test
	void debiansLayout(@TempDir Path dir) throws Exception {
		String arch = System.getProperty("os.arch");

		assumeTrue(arch.equals("amd64") || arch.equals("aarch64"),
			   "the multiarch name of " + arch + " is not known here");
		foundAt(dir.resolve("share/java/faultgen.jar"),
			dir.resolve("lib/" + (arch.equals("amd64") ? "x86_64" :
					      "aarch64") +
				    "-linux-gnu/jni/libfaultgen-jni.so"));
	}

	@Test
	void anEmptyPropertyIsNamed() throws Exception {
		URLClassLoader[] loader = new URLClassLoader[1];
		Class<?> c = freshPreTouch("", loader);

		try {
			Throwable t = call(c, "gcThreads");
			assertNotNull(t);
			assertTrue(t.getMessage().contains("-D" + PROP +
							   " is empty"),
				   t.getMessage());
		} finally {
			loader[0].close();
		}
	}

	/*
	 * DIR/opt/app/faultgen.jar with a library in DIR/lib/jni: the jar is
	 * not in PREFIX/share/java, so DIR is no prefix and that library,
	 * which could be of any build, is not loaded.
	 */
	@Test
	void noPrefixGuessedOutsideShareJava(@TempDir Path dir)
		throws Exception {
		String so = System.getProperty(PROP);
		Path app = Files.createDirectories(dir.resolve("opt/app"));
		Path jni = Files.createDirectories(dir.resolve("lib/jni"));
		Path jar = app.resolve("faultgen.jar");

		for (String d : System.getProperty("java.library.path")
			     .split(":"))
			assumeFalse(Files.exists(Path.of(d, "libfaultgen-jni.so")),
				    "installed in " + d + ", on " +
				    "java.library.path");
		for (String d : SYSTEM_DIRS)
			assumeFalse(Files.exists(Path.of(d, "libfaultgen-jni.so")),
				    "installed in " + d);
		Files.copy(Path.of(System.getProperty("faultgen.jar")), jar);
		Files.copy(Path.of(so), jni.resolve("libfaultgen-jni.so"));
		System.clearProperty(PROP);
		try (URLClassLoader l = new URLClassLoader(
			     new URL[] { jar.toUri().toURL() },
			     ClassLoader.getPlatformClassLoader())) {
			Throwable t = call(Class.forName(
				"org.libfaultgen.PreTouch", true, l),
				"gcThreads");
			assertNotNull(t, "loaded a library from " + jni);
			assertEquals(UnsatisfiedLinkError.class, t.getClass(),
				     t.toString());
			assertTrue(t.getMessage().contains(
				"no install directory"), t.getMessage());
			// The distributions' directories were looked in.
			for (String d : SYSTEM_DIRS)
				assertTrue(t.getMessage().contains(d + "/"),
					   t.getMessage());
		} finally {
			System.setProperty(PROP, so);
		}
	}
}
