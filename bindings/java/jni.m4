# SPDX-License-Identifier: LGPL-2.1-or-later
# JDK detection for the JNI shim (bindings/java), included by configure.ac.
#
# The JDK is JAVA_HOME's when set, else the one javac on PATH belongs to.
# It needs javac, java and jar, jni.h and jni_md.h, and a javac that takes
# --release 17; the shim is a shared object, so shared libraries must be
# built.  Without them the shim and the jar are skipped, with a message
# saying why; --disable-jni leaves them out, --enable-jni makes a missing
# JDK an error.  javadoc, when the JDK has it, makes the API's javadoc
# jar; JUnit 5's console launcher (Debian's junit5), when found, runs the
# Java API's tests in make check.

AC_ARG_ENABLE([jni],
	[AS_HELP_STRING([--disable-jni],
		[do not build the JNI shim and the Java demo (default: build
		 them when a JDK is found)])],
	[], [enable_jni=auto])
AC_ARG_VAR([JAVA_HOME], [the JDK for the JNI shim (default: javac's)])
AC_ARG_WITH([jnidir],
	[AS_HELP_STRING([--with-jnidir=DIR],
		[install the JNI library in DIR @<:@LIBDIR/jni@:>@])],
	[jnidir=$withval], [jnidir='${libdir}/jni'])
AC_ARG_WITH([javadir],
	[AS_HELP_STRING([--with-javadir=DIR],
		[install the jar in DIR @<:@DATADIR/java@:>@])],
	[javadir=$withval], [javadir='${datadir}/java'])
AC_ARG_VAR([JUNIT5_JAR],
	[JUnit 5's console launcher for the Java tests (default:
	 /usr/share/java/junit-platform-console-standalone.jar)])
AC_SUBST([jnidir])
AC_SUBST([javadir])
AC_PROG_LN_S

have_jni=no
jni_why="--disable-jni"
fg_java_home=
JAVA=
JAVAC=
JAR=
JNI_CPPFLAGS=
AS_IF([test "x$enable_jni" != xno], [
	jni_why=
	AS_IF([test "x$enable_shared" = xno], [
		jni_why="--disable-shared: the JNI shim is a shared object"
	], [test -n "$JAVA_HOME"], [
		fg_java_home=$JAVA_HOME
		AS_IF([test -x "$fg_java_home/bin/javac"], [],
			[jni_why="no javac in JAVA_HOME=$JAVA_HOME"])
	], [
		AC_PATH_PROG([fg_javac_path], [javac])
		AS_IF([test -n "$fg_javac_path"], [
			# /usr/bin/javac is an alternatives link into the JDK.
			fg_javac_real=`readlink -f "$fg_javac_path" 2>/dev/null`
			test -n "$fg_javac_real" || fg_javac_real=$fg_javac_path
			fg_java_home=`AS_DIRNAME(["$fg_javac_real"])`
			fg_java_home=`AS_DIRNAME(["$fg_java_home"])`
		], [jni_why="no JDK: set JAVA_HOME or put javac on PATH"])
	])
	AS_IF([test -z "$jni_why"], [
		AC_MSG_CHECKING([for a JDK])
		AC_MSG_RESULT([$fg_java_home])
		JAVA=$fg_java_home/bin/java
		JAVAC=$fg_java_home/bin/javac
		JAR=$fg_java_home/bin/jar
		for fg_tool in "$JAVA" "$JAR"; do
			test -x "$fg_tool" || jni_why="$fg_tool is missing"
		done
	])
	AS_IF([test -z "$jni_why"], [
		JNI_CPPFLAGS="-I$fg_java_home/include -I$fg_java_home/include/linux"
		fg_save_CPPFLAGS=$CPPFLAGS
		CPPFLAGS="$CPPFLAGS $JNI_CPPFLAGS"
		AC_CHECK_HEADER([jni.h], [],
			[jni_why="no jni.h under $fg_java_home/include"])
		CPPFLAGS=$fg_save_CPPFLAGS
	])
	AS_IF([test -z "$jni_why"], [
		AC_MSG_CHECKING([whether javac takes --release 17])
		rm -rf conftest.jdir
		mkdir conftest.jdir
		cat > conftest.jdir/Conftest.java <<_FG_EOF
public class Conftest { public static void main(String@<:@@:>@ a) { } }
_FG_EOF
		AS_IF(["$JAVAC" --release 17 -d conftest.jdir \
				conftest.jdir/Conftest.java \
				>&AS_MESSAGE_LOG_FD 2>&1], [
			AC_MSG_RESULT([yes])
			have_jni=yes
		], [
			AC_MSG_RESULT([no])
			jni_why="$JAVAC does not take --release 17 (JDK 17 or later needed)"
		])
		rm -rf conftest.jdir
	])
])
AS_IF([test "x$enable_jni" = xyes && test "x$have_jni" = xno],
	[AC_MSG_ERROR([--enable-jni: $jni_why])])
AS_IF([test "x$have_jni" = xno && test "x$enable_jni" = xauto &&
       test "x$enable_shared" = xno],
	[AC_MSG_NOTICE([the JNI shim and the jar are left out: $jni_why])],
      [test "x$have_jni" = xno && test "x$enable_jni" = xauto],
	[AC_MSG_WARN([the JNI shim and the jar are skipped: $jni_why])])
AS_IF([test "x$enable_jni" = xno],
	[AC_MSG_NOTICE([the JNI shim and the Java demo are left out (--disable-jni)])])
have_javadoc=no
JAVADOC=
AS_IF([test "x$have_jni" = xyes], [
	JAVADOC=$fg_java_home/bin/javadoc
	AS_IF([test -x "$JAVADOC"], [have_javadoc=yes],
		[AC_MSG_WARN([no $JAVADOC: the javadoc jar is not built])
		 JAVADOC=])
	AS_IF([test -z "$JUNIT5_JAR"],
		[JUNIT5_JAR=/usr/share/java/junit-platform-console-standalone.jar])
	AC_MSG_CHECKING([for JUnit 5's console launcher])
	AS_IF([test -r "$JUNIT5_JAR"], [AC_MSG_RESULT([$JUNIT5_JAR])], [
		AC_MSG_RESULT([no])
		AC_MSG_WARN([no $JUNIT5_JAR: make check skips the Java API tests (install junit5)])
		JUNIT5_JAR=])
])
AM_CONDITIONAL([HAVE_JNI], [test "x$have_jni" = xyes])
AM_CONDITIONAL([HAVE_JAVADOC], [test "x$have_javadoc" = xyes])
AC_SUBST([JAVADOC])
AC_SUBST([JAVA])
AC_SUBST([JAVAC])
AC_SUBST([JAR])
AC_SUBST([JNI_CPPFLAGS])
