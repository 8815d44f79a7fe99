// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * package-info.java - the package's documentation.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */

/**
 * What a JVM started with {@code -XX:+AlwaysPreTouch} does to the kernel,
 * without starting that JVM ({@link org.libfaultgen.PreTouch#emulateHeap}),
 * and pretouching a program's own off-heap memory
 * ({@link org.libfaultgen.OffHeap}, {@link org.libfaultgen.PreTouch#pretouch}),
 * with the fault counts the kernel took.
 */
package org.libfaultgen;
