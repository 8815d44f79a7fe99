# SPDX-License-Identifier: LGPL-2.1-or-later
# JDK detection for the JNI shim (examples/jni), included by configure.ac.
AM_CONDITIONAL([HAVE_JNI], [false])
