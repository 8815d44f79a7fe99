// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * faultgen_jni.c - the native side of org.libfaultgen.PreTouch.
 *
 * Copyright (C) 2026 The libfaultgen authors
 *
 * A thin layer: Java values in, one libfaultgen call, the figures out as a
 * long[] (elapsed ns, bytes, pages, minor faults, expected faults,
 * workers).  Errors become Java exceptions; nothing here keeps state, so
 * any Java thread may call at any time.
 *
 * Build: javac --release 17 -h . -d classes \
 *          org/libfaultgen/PreTouch.java org/libfaultgen/OffHeap.java
 *        cc -shared -fPIC -I. -I$JAVA_HOME/include \
 *          -I$JAVA_HOME/include/linux faultgen_jni.c \
 *          -o libfaultgen-jni.so $(pkg-config --cflags --libs libfaultgen)
 */
#include <faultgen.h>
#include <jni.h>

/* javac -h writes the prototypes of PreTouch's native methods; the build
 * always has them, a lone analyser run may not. */
#if __has_include("org_libfaultgen_PreTouch.h")
#include "org_libfaultgen_PreTouch.h"
#endif

#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#define FIGURES 6

static void throw_error(JNIEnv *env, int err)
{
	const char *cls = "org/libfaultgen/PreTouch$FaultgenException";
	jclass c;
	jmethodID ctor;
	jstring msg;
	jobject ex;

	if (err == -ENOMEM) {
		cls = "java/lang/OutOfMemoryError";
	} else if (err == -EINVAL) {
		cls = "java/lang/IllegalArgumentException";
	} else {
		c = (*env)->FindClass(env, cls);
		if (!c)
			return;
		ctor = (*env)->GetMethodID(env, c, "<init>",
					   "(ILjava/lang/String;)V");
		msg = (*env)->NewStringUTF(env, faultgen_strerror(err));
		if (!ctor || !msg)
			return;
		ex = (*env)->NewObject(env, c, ctor, (jint)err, msg);
		if (ex)
			(*env)->Throw(env, (jthrowable)ex);
		return;
	}
	c = (*env)->FindClass(env, cls);
	if (c)
		(*env)->ThrowNew(env, c, faultgen_strerror(err));
}

static jlongArray figures(JNIEnv *env, const struct faultgen_result *r)
{
	jlong v[FIGURES] = {
		(jlong)(r->elapsed_s * 1e9), (jlong)r->bytes,
		(jlong)r->pages,	     (jlong)r->minflt,
		(jlong)r->expected_faults,   (jlong)r->workers,
	};
	jlongArray out = (*env)->NewLongArray(env, FIGURES);

	if (out)
		(*env)->SetLongArrayRegion(env, out, 0, FIGURES, v);
	return out;
}

/* One pretouch with the attr's knobs set; figures or an exception. */
static jlongArray run(JNIEnv *env, void *addr, size_t len, jlong bytes,
		      jint jdk, jint gc, jint threads, jint touch)
{
	struct faultgen_result res = { .size = sizeof(res) };
	struct faultgen_attr *attr;
	int err;

	if (threads < 0 || touch < 0 || gc < 0 || jdk < 0 || bytes < 0) {
		throw_error(env, -EINVAL);
		return NULL;
	}
	err = faultgen_attr_new(&attr);
	if (err) {
		throw_error(env, err);
		return NULL;
	}
	if (addr)
		err = faultgen_attr_set_region(attr, addr, len);
	else
		err = faultgen_attr_set_size(attr, (uint64_t)bytes);
	if (!err)
		err = faultgen_attr_set_jvm(attr, (unsigned int)jdk,
					    (enum faultgen_jvm_gc)gc);
	if (!err)
		err = faultgen_attr_set_pretouch_touch(
			attr, (enum faultgen_pretouch_touch)touch);
	if (!err && threads > 0)
		err = faultgen_attr_set_workers(attr, (unsigned int)threads,
						FAULTGEN_THREADS);
	if (!err)
		err = faultgen_pretouch(attr, &res);
	faultgen_attr_free(attr);
	if (err) {
		throw_error(env, err);
		return NULL;
	}
	return figures(env, &res);
}

JNIEXPORT jlongArray JNICALL Java_org_libfaultgen_PreTouch_emulateHeap0(
	JNIEnv *env, jclass cls, jlong bytes, jint jdk, jint gc, jint threads,
	jint touch)
{
	(void)cls;
	return run(env, NULL, 0, bytes, jdk, gc, threads, touch);
}

/* Only the whole pages inside the buffer are touched: a store into a
 * partial page would write outside it. */
JNIEXPORT jlongArray JNICALL Java_org_libfaultgen_PreTouch_pretouch0(
	JNIEnv *env, jclass cls, jobject buf, jint threads, jint touch)
{
	uintptr_t ps = (uintptr_t)sysconf(_SC_PAGESIZE), lo, hi;
	char *addr = (*env)->GetDirectBufferAddress(env, buf);
	jlong cap = (*env)->GetDirectBufferCapacity(env, buf);

	(void)cls;
	if (!addr || cap <= 0) {
		throw_error(env, -EINVAL);
		return NULL;
	}
	lo = ((uintptr_t)addr + ps - 1) / ps * ps;
	hi = ((uintptr_t)addr + (uintptr_t)cap) / ps * ps;
	if (hi <= lo) {
		throw_error(env, -EINVAL);
		return NULL;
	}
	/* The JDK model only sizes a heap of the library's own. */
	return run(env, (void *)lo, hi - lo, 0, 21, 0, threads, touch);
}

/* Memory the JVM has not zeroed, so not faulted: a private anonymous
 * mapping, freed by free0 (ByteBuffer.allocateDirect memory is already
 * faulted by the JVM's zeroing). */
JNIEXPORT jobject JNICALL Java_org_libfaultgen_PreTouch_allocate0(
	JNIEnv *env, jclass cls, jlong bytes)
{
	void *p;

	(void)cls;
	if (bytes <= 0) {
		throw_error(env, -EINVAL);
		return NULL;
	}
	p = mmap(NULL, (size_t)bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		throw_error(env, -errno);
		return NULL;
	}
	return (*env)->NewDirectByteBuffer(env, p, bytes);
}

JNIEXPORT void JNICALL Java_org_libfaultgen_PreTouch_free0(JNIEnv *env,
							   jclass cls,
							   jobject buf)
{
	void *addr = (*env)->GetDirectBufferAddress(env, buf);
	jlong cap = (*env)->GetDirectBufferCapacity(env, buf);

	(void)cls;
	if (addr && cap > 0)
		munmap(addr, (size_t)cap);
}

JNIEXPORT jint JNICALL Java_org_libfaultgen_PreTouch_gcThreads(JNIEnv *env,
							       jclass cls,
							       jint cpus)
{
	(void)env;
	(void)cls;
	return (jint)faultgen_jvm_gc_threads(cpus > 0 ? (unsigned int)cpus : 1);
}

JNIEXPORT jlong JNICALL Java_org_libfaultgen_PreTouch_auxBytes0(
	JNIEnv *env, jclass cls, jint jdk, jint gc, jlong heap)
{
	(void)env;
	(void)cls;
	if (jdk < 0 || gc < 0 || heap < 0)
		return 0;
	return (jlong)faultgen_jvm_aux_bytes((unsigned int)jdk,
					     (enum faultgen_jvm_gc)gc,
					     (uint64_t)heap);
}
