// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * module-info.java - the jar as the module org.libfaultgen, so that it goes
 * on the module path as well as on the class path.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */

/**
 * The JVM's AlwaysPreTouch without a JVM, and pretouching off-heap memory,
 * through libfaultgen.  {@link org.libfaultgen.PreTouch} has the calls,
 * {@link org.libfaultgen.OffHeap} the memory.  The module loads a native
 * library: from JDK 22 on, run it with
 * {@code --enable-native-access=org.libfaultgen} (on the module path) or
 * {@code --enable-native-access=ALL-UNNAMED} (on the class path).
 */
module org.libfaultgen {
	exports org.libfaultgen;
}
