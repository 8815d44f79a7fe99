// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * faultgen_jni.c - the native side of org.libfaultgen.PreTouch.
 *
 * Copyright (C) 2026 The libfaultgen authors
 *
 * A thin layer: Java values in (checked by the Java side), one libfaultgen
 * call, the figures out as a long[] (elapsed ns, bytes, pages, minor
 * faults, expected faults, workers), and OffHeap's mapping.  Errors become
 * Java exceptions that say what was asked and why it failed; nothing here
 * keeps state, so any Java thread may call at any time.  A run goes on a
 * thread of its own while the calling thread waits, looking at its
 * interrupt status: Thread.interrupt() cancels the run.
 *
 * Build: javac --release 17 -h . -d classes module-info.java \
 *          org/libfaultgen/{PreTouch,OffHeap,NativeLibrary}.java
 *        cc -shared -fPIC -I. -I$JAVA_HOME/include \
 *          -I$JAVA_HOME/include/linux faultgen_jni.c \
 *          -o libfaultgen-jni.so $(pkg-config --cflags --libs libfaultgen)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* pipe2 */
#endif
#include <faultgen.h>
#include <jni.h>

/* javac -h writes the prototypes of PreTouch's native methods; the build
 * always has them, a lone analyser run may not. */
#if __has_include("org_libfaultgen_PreTouch.h")
#include "org_libfaultgen_PreTouch.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The interface of the native methods: NativeLibrary.SHIM_VERSION. */
#define SHIM_VERSION 2
#define FIGURES 6
#define OOM "java/lang/OutOfMemoryError"
#define IAE "java/lang/IllegalArgumentException"
#define CANCELLED "java/util/concurrent/CancellationException"
/* How often a waiting caller looks at its interrupt status. */
#define POLL_NS (10 * 1000 * 1000L)

static void throw_fmt(JNIEnv *env, const char *cls, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void throw_fmt(JNIEnv *env, const char *cls, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	jclass c;

	va_start(ap, fmt);
	/* The analyzer loses va_start through the format attribute. */
	vsnprintf(msg, sizeof(msg), fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)
	va_end(ap);
	c = (*env)->FindClass(env, cls);
	if (c)
		(*env)->ThrowNew(env, c, msg);
}

/* Any other libfaultgen error: PreTouch.FaultgenException. */
static void throw_faultgen(JNIEnv *env, int err, const char *what)
{
	const char *cls = "org/libfaultgen/PreTouch$FaultgenException";
	char msg[256];
	jmethodID ctor;
	jstring jmsg;
	jobject ex;
	jclass c;

	snprintf(msg, sizeof(msg), "%s: %s", what, faultgen_strerror(err));
	c = (*env)->FindClass(env, cls);
	if (!c)
		return;
	ctor = (*env)->GetMethodID(env, c, "<init>", "(ILjava/lang/String;)V");
	jmsg = (*env)->NewStringUTF(env, msg);
	if (!ctor || !jmsg)
		return;
	ex = (*env)->NewObject(env, c, ctor, (jint)err, jmsg);
	if (ex)
		(*env)->Throw(env, (jthrowable)ex);
}

/* "1.50 GiB", "12.0 MiB": for messages. */
static const char *human(uint64_t b, char *buf, size_t len)
{
	if (b >= (1ULL << 30))
		snprintf(buf, len, "%.2f GiB", (double)b / (1ULL << 30));
	else
		snprintf(buf, len, "%.1f MiB", (double)b / (1ULL << 20));
	return buf;
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

/* Thread.currentThread().isInterrupted(), which leaves the status set. */
static int interrupted(JNIEnv *env)
{
	jclass t = (*env)->FindClass(env, "java/lang/Thread");
	jmethodID cur, is;
	jobject self;
	jboolean yes;

	if (!t)
		return 0;
	cur = (*env)->GetStaticMethodID(env, t, "currentThread",
					"()Ljava/lang/Thread;");
	is = (*env)->GetMethodID(env, t, "isInterrupted", "()Z");
	self = cur && is ? (*env)->CallStaticObjectMethod(env, t, cur) : NULL;
	yes = self ? (*env)->CallBooleanMethod(env, self, is) : JNI_FALSE;
	if ((*env)->ExceptionCheck(env))
		(*env)->ExceptionClear(env);
	(*env)->DeleteLocalRef(env, t);
	if (self)
		(*env)->DeleteLocalRef(env, self);
	return yes == JNI_TRUE;
}

/* A run executing on a thread of its own. */
struct job {
	struct faultgen_run *run;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done, err;
};

static void *job_main(void *arg)
{
	struct job *j = arg;
	int err = faultgen_run_exec(j->run);

	pthread_mutex_lock(&j->lock);
	j->err = err;
	j->done = 1;
	pthread_cond_signal(&j->cond);
	pthread_mutex_unlock(&j->lock);
	return NULL;
}

/*
 * Executes run while the calling Java thread waits, cancelling it when
 * that thread is interrupted (*cancelled = 1): 0 or a negative errno.
 */
static int exec_interruptible(JNIEnv *env, struct faultgen_run *run,
			      int *cancelled)
{
	struct job j = { .run = run };
	pthread_condattr_t ca;
	struct timespec ts;
	pthread_t tid;
	int err;

	if (interrupted(env)) {
		*cancelled = 1;
		return -ECANCELED;
	}
	pthread_mutex_init(&j.lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&j.cond, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&tid, NULL, job_main, &j) != 0) {
		/* No thread to spare: run here, not cancellable. */
		err = faultgen_run_exec(run);
		goto out;
	}
	pthread_mutex_lock(&j.lock);
	while (!j.done) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += POLL_NS;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&j.cond, &j.lock, &ts);
		if (j.done || *cancelled)
			continue;
		pthread_mutex_unlock(&j.lock);
		if (interrupted(env)) {
			faultgen_run_cancel(run);
			*cancelled = 1;
		}
		pthread_mutex_lock(&j.lock);
	}
	err = j.err;
	pthread_mutex_unlock(&j.lock);
	pthread_join(tid, NULL);
out:
	pthread_cond_destroy(&j.cond);
	pthread_mutex_destroy(&j.lock);
	return err;
}

/* One pretouch with the attr's knobs set: 0, or a negative errno. */
static int run(JNIEnv *env, void *addr, size_t len, jlong bytes, jint jdk,
	       jint gc, jint threads, jint touch, struct faultgen_result *res,
	       int *cancelled)
{
	struct faultgen_attr *attr;
	struct faultgen_run *r = NULL;
	int err = faultgen_attr_new(&attr);

	if (err)
		return err;
	err = faultgen_attr_set_pattern(attr, FAULTGEN_PRETOUCH);
	if (!err && addr)
		err = faultgen_attr_set_region(attr, addr, len);
	else if (!err)
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
		err = faultgen_run_create(attr, &r);
	faultgen_attr_free(attr);
	if (!err)
		err = exec_interruptible(env, r, cancelled);
	if (!err)
		err = faultgen_run_result(r, res);
	if (r)
		faultgen_run_free(r);
	return err;
}

/* What a cancelled run says: the caller's interrupt status stays set. */
static void throw_cancelled(JNIEnv *env, const char *what)
{
	throw_fmt(env, CANCELLED,
		  "%s: the calling thread was interrupted; the run was "
		  "cancelled and its memory released", what);
}

/*
 * The Java side has checked each argument, and that the memory can be
 * had (MemAvailable and the memory cgroup's limits): the kernel would
 * otherwise kill the process that touches it, the JVM.
 */
JNIEXPORT jlongArray JNICALL Java_org_libfaultgen_PreTouch_emulateHeap0(
	JNIEnv *env, jclass cls, jlong bytes, jint jdk, jint gc, jint threads,
	jint touch)
{
	struct faultgen_result res = { .size = sizeof(res) };
	int err, cancelled = 0;
	char h1[32];

	(void)cls;
	err = run(env, NULL, 0, bytes, jdk, gc, threads, touch, &res,
		  &cancelled);
	if (cancelled && err)
		throw_cancelled(env, "emulateHeap");
	else if (err == -ENOMEM)
		throw_fmt(env, OOM,
			  "emulateHeap: cannot map a heap of %" PRId64
			  " bytes (%s) and the rest: %s",
			  (int64_t)bytes, human((uint64_t)bytes, h1, 32),
			  faultgen_strerror(err));
	else if (err == -EINVAL)
		throw_fmt(env, IAE,
			  "emulateHeap: libfaultgen refused bytes=%" PRId64
			  " jdk=%d gc=%d threads=%d touch=%d: %s",
			  (int64_t)bytes, (int)jdk, (int)gc, (int)threads,
			  (int)touch, faultgen_strerror(err));
	else if (err)
		throw_faultgen(env, err, "emulateHeap");
	return err ? NULL : figures(env, &res);
}

/*
 * A touch of a page of a file mapping past the file's end raises SIGBUS,
 * which kills the JVM when a worker takes it: a MappedByteBuffer whose
 * file was truncated.  Before the touch, each file-backed mapping the
 * range [lo, hi) lies in (from /proc/self/maps) is probed at the last
 * page the range has of it, with a write() of one byte from there into
 * a pipe: the kernel reads it for us and returns EFAULT where a touch
 * would raise SIGBUS.  One page per mapping is enough: within one
 * mapping file offsets grow with addresses, and the pages that fail
 * are those from the file's (page-rounded) end on.  The probe reads,
 * so it maps that one page; a range not mapped at all is refused too.
 * A truncation after the probe is not seen (nothing short of a signal
 * handler could), nor is a private mapping whose last page was copied
 * on write before its file shrank.  0 when the range is fine, else an
 * exception is pending.
 */
/* One line of /proc/self/maps: 0, or -1 when it is not one. */
static int maps_line(char *line, unsigned long *start, unsigned long *end,
		     unsigned long *off, unsigned long *inode, char **path)
{
	char *p = line, *e;

	*start = strtoul(p, &e, 16);
	if (e == p || *e != '-')
		return -1;
	p = e + 1;
	*end = strtoul(p, &e, 16);
	if (e == p || *e != ' ')
		return -1;
	p = strchr(e + 1, ' '); /* past the permissions */
	if (!p)
		return -1;
	*off = strtoul(++p, &e, 16);
	if (e == p || *e != ' ')
		return -1;
	p = strchr(e + 1, ' '); /* past the device */
	if (!p)
		return -1;
	*inode = strtoul(++p, &e, 10);
	if (e == p)
		return -1;
	while (*e == ' ')
		e++;
	e[strcspn(e, "\n")] = '\0';
	*path = e;
	return 0;
}

static int check_mapped(JNIEnv *env, uintptr_t lo, uintptr_t hi)
{
	FILE *f = fopen("/proc/self/maps", "re");
	uintptr_t cur = lo, page = (uintptr_t)sysconf(_SC_PAGESIZE);
	char *line = NULL, bad[1024] = "";
	size_t cap = 0;
	int p[2] = { -1, -1 }, ret = 0, unsure = 0;

	if (!f)
		return 0; /* no /proc: nothing to check with */
	while (cur < hi && !ret && getline(&line, &cap, f) > 0) {
		unsigned long start, end, off, inode;
		uintptr_t last;
		char *path;

		if (maps_line(line, &start, &end, &off, &inode, &path))
			continue;
		if (end <= cur)
			continue;
		if (start > cur)
			break; /* a hole */
		last = (end < hi ? end : hi) - page;
		if (inode) {
			if (p[0] < 0 && pipe2(p, O_CLOEXEC) != 0) {
				unsure = 1; /* no probe: touch as before */
				break;
			}
			if (write(p[1], (const void *)last, 1) < 0 &&
			    errno == EFAULT) {
				struct stat st;

				snprintf(bad, sizeof(bad), "%s", path);
				ret = -EFAULT;
				if (stat(bad, &st) == 0)
					throw_fmt(env, IAE,
						  "buffer: its memory maps %s"
						  " from offset %lu, and the "
						  "file now ends at %" PRId64
						  " bytes, before the buffer "
						  "does (truncated after it was"
						  " mapped?): a touch of the "
						  "pages past its end would "
						  "raise SIGBUS",
						  bad, off + (cur - start),
						  (int64_t)st.st_size);
				else
					throw_fmt(env, IAE,
						  "buffer: the file its memory "
						  "maps (%s) ends before the "
						  "buffer does (truncated "
						  "after it was mapped?): a "
						  "touch of the pages past its "
						  "end would raise SIGBUS",
						  bad[0] ? bad : "no name");
				continue;
			}
			/* Keep the pipe empty for the next probe. */
			if (read(p[0], bad, 1) != 1) {
				unsure = 1;
				break;
			}
		}
		cur = end < hi ? end : hi;
	}
	if (!ret && !unsure && cur < hi && !ferror(f)) {
		ret = -EFAULT;
		throw_fmt(env, IAE, "buffer: bytes %" PRIuPTR " to %" PRIuPTR
			  " of its memory are not mapped", cur - lo, hi - lo);
	}
	free(line);
	fclose(f);
	if (p[0] >= 0) {
		close(p[0]);
		close(p[1]);
	}
	return ret;
}

/* Only the whole pages inside the buffer are touched: a store into a
 * partial page would write outside it. */
JNIEXPORT jlongArray JNICALL Java_org_libfaultgen_PreTouch_pretouch0(
	JNIEnv *env, jclass cls, jobject buf, jint threads, jint touch)
{
	struct faultgen_result res = { .size = sizeof(res) };
	uintptr_t ps = (uintptr_t)sysconf(_SC_PAGESIZE), lo, hi;
	char *addr = (*env)->GetDirectBufferAddress(env, buf);
	jlong cap = (*env)->GetDirectBufferCapacity(env, buf);
	int err, cancelled = 0;

	(void)cls;
	lo = ((uintptr_t)addr + ps - 1) / ps * ps;
	hi = ((uintptr_t)addr + (uintptr_t)(cap > 0 ? cap : 0)) / ps * ps;
	if (!addr || cap <= 0 || hi <= lo) {
		throw_fmt(env, IAE,
			  "buffer must hold at least one whole page of %u "
			  "bytes: capacity %" PRId64 " at %p",
			  (unsigned int)ps, (int64_t)cap, (void *)addr);
		return NULL;
	}
	if (check_mapped(env, lo, hi))
		return NULL;
	/* The JDK model only sizes a heap of the library's own. */
	err = run(env, (void *)lo, hi - lo, 0, 21, 0, threads, touch, &res,
		  &cancelled);
	if (cancelled && err)
		throw_cancelled(env, "pretouch");
	else if (err == -EINVAL)
		throw_fmt(env, IAE, "pretouch: libfaultgen refused threads=%d "
			  "touch=%d on %zu bytes: %s", (int)threads,
			  (int)touch, (size_t)(hi - lo),
			  faultgen_strerror(err));
	else if (err == -ENOMEM)
		throw_fmt(env, OOM, "pretouch: %s", faultgen_strerror(err));
	else if (err)
		throw_faultgen(env, err, "pretouch");
	return err ? NULL : figures(env, &res);
}

/* Memory the JVM has not zeroed, so not faulted: a private anonymous
 * mapping (ByteBuffer.allocateDirect memory is faulted by the zeroing). */
JNIEXPORT jobject JNICALL Java_org_libfaultgen_PreTouch_allocate0(
	JNIEnv *env, jclass cls, jlong bytes)
{
	jobject buf;
	char h[32];
	void *p;

	(void)cls;
	p = mmap(NULL, (size_t)bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		throw_fmt(env, OOM, "allocate: cannot map %" PRId64
			  " bytes (%s): %s", (int64_t)bytes,
			  human((uint64_t)bytes, h, 32), strerror(errno));
		return NULL;
	}
	buf = (*env)->NewDirectByteBuffer(env, p, bytes);
	if (!buf)
		munmap(p, (size_t)bytes);
	return buf;
}

JNIEXPORT jlong JNICALL Java_org_libfaultgen_PreTouch_address0(JNIEnv *env,
							      jclass cls,
							      jobject buf)
{
	(void)cls;
	return (jlong)(uintptr_t)(*env)->GetDirectBufferAddress(env, buf);
}

/* The pages go, the range stays: a buffer still held reads zeros. */
JNIEXPORT void JNICALL Java_org_libfaultgen_PreTouch_discard0(JNIEnv *env,
							     jclass cls,
							     jlong addr,
							     jlong bytes)
{
	(void)env;
	(void)cls;
	madvise((void *)(uintptr_t)addr, (size_t)bytes, MADV_DONTNEED);
}

JNIEXPORT void JNICALL Java_org_libfaultgen_PreTouch_unmap0(JNIEnv *env,
							   jclass cls,
							   jlong addr,
							   jlong bytes)
{
	(void)env;
	(void)cls;
	munmap((void *)(uintptr_t)addr, (size_t)bytes);
}

JNIEXPORT jint JNICALL Java_org_libfaultgen_PreTouch_gcThreads0(JNIEnv *env,
							       jclass cls,
							       jint cpus)
{
	(void)env;
	(void)cls;
	return (jint)faultgen_jvm_gc_threads((unsigned int)cpus);
}

JNIEXPORT jlong JNICALL Java_org_libfaultgen_PreTouch_auxBytes0(
	JNIEnv *env, jclass cls, jint jdk, jint gc, jlong heap)
{
	(void)env;
	(void)cls;
	return (jlong)faultgen_jvm_aux_bytes((unsigned int)jdk,
					     (enum faultgen_jvm_gc)gc,
					     (uint64_t)heap);
}

JNIEXPORT jint JNICALL Java_org_libfaultgen_PreTouch_shimVersion0(JNIEnv *env,
								 jclass cls)
{
	(void)env;
	(void)cls;
	return SHIM_VERSION;
}
