// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * profile.c - a fault profile (pft-profile/1, pft-profile(5)), as the
 * replay pattern reads it: parsed by json.c, checked member by member
 * and kept compact (struct fg_profile).  A profile that cannot be
 * replayed is refused with one message naming the member
 * ("faults[12][4]: unknown kind \"frist-touch\""): -EINVAL, or
 * -EPROTONOSUPPORT for a later major version ("pft-profile/2").
 * Unknown members are ignored (forward compatible within /1).
 *
 * Pure: no system call but reading the file (fg_profile_read), so that
 * the fuzzing harness drives it as the library does.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SCHEMA "pft-profile/1"
#define SCHEMA_PREFIX "pft-profile/"
/* What one profile may hold: ids below MAX_ID, and so many of each. */
#define MAX_ID (1u << 20)
#define MAX_OBJECTS 4096u
#define MAX_PROCESSES 512u
#define MAX_THREADS 1024u
#define MAX_ROWS (4u << 20)
#define MAX_WHOLE (1ULL << 53) /* a double's exact integers */
/* The latest time a profile may give (11.5 days), and its shortest bin:
 * a replay's clock reaches any bin's end without overflow. */
#define MAX_MS 1e9
#define MIN_BIN_MS 0.001

const char *const fg_kind_names[FG_NR_KINDS + 1] = {
	[FG_KIND_FIRST_TOUCH] = "first-touch", [FG_KIND_READ] = "read",
	[FG_KIND_COW] = "cow", [FG_KIND_WRITE_NOTIFY] = "write-notify",
	[FG_KIND_MAJOR] = "major", [FG_KIND_HUGE] = "huge",
	[FG_KIND_KERNEL] = "kernel", [FG_KIND_USER] = "user",
	[FG_KIND_REFAULT] = "refault", [FG_KIND_GUP] = "gup",
	[FG_KIND_KERNEL_SIDE] = "kernel-side",
};

static const char *const backing_names[] = {
	[FG_OBJ_ANON] = "anonymous", [FG_OBJ_SHARED_ANON] = "shared-anonymous",
	[FG_OBJ_MEMFD] = "memfd", [FG_OBJ_SYSV] = "sysv",
	[FG_OBJ_FILE] = "file", [FG_OBJ_HUGETLB] = "hugetlb", NULL,
};

const char *const fg_call_names[FG_NR_CALLS + 1] = {
	[FG_CALL_MADVISE] = "madvise", [FG_CALL_MPROTECT] = "mprotect",
	[FG_CALL_MUNMAP] = "munmap", [FG_CALL_MMAP] = "mmap",
};

/* madvise(2)'s advice by its name in a profile (the constant's, lower
 * case, without MADV_); one not named is given as its number. */
static const struct {
	const char *name;
	int advice;
} advice_names[] = {
	{ "normal", 0 }, { "random", 1 }, { "sequential", 2 },
	{ "willneed", 3 }, { "dontneed", 4 }, { "free", 8 }, { "remove", 9 },
	{ "dontfork", 10 }, { "dofork", 11 }, { "mergeable", 12 },
	{ "unmergeable", 13 }, { "hugepage", 14 }, { "nohugepage", 15 },
	{ "dontdump", 16 }, { "dodump", 17 }, { "wipeonfork", 18 },
	{ "keeponfork", 19 }, { "cold", 20 }, { "pageout", 21 },
	{ "populate_read", 22 }, { "populate_write", 23 },
	{ "collapse", 25 },
};
/* The advice numbers a profile may give, and those never replayed:
 * MADV_HWPOISON and MADV_SOFT_OFFLINE take a page out of the machine. */
#define MAX_ADVICE 1000
#define ADVICE_HWPOISON 100
#define ADVICE_SOFT_OFFLINE 101

static const char *const order_names[] = {
	[FG_ORDER_SEQ] = "seq", [FG_ORDER_STRIDE] = "stride",
	[FG_ORDER_RANDOM] = "random", NULL,
};

struct ck {
	const struct fg_json_doc *doc;
	struct fg_profile *pr;
	char *err;
	size_t errlen;
	int32_t *object_at, *process_at, *thread_at; /* id -> index */
	uint32_t nobject_at, nprocess_at, nthread_at; /* their lengths */
	unsigned char *maps; /* [process][object]: the process maps it */
	char path[64];       /* the member being read */
};

static int bad(struct ck *c, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "path: what" into the caller's buffer; returns err. */
static int bad(struct ck *c, int err, const char *fmt, ...)
{
	int n = snprintf(c->err, c->errlen, "%s: ", c->path);
	va_list ap;

	if (n >= 0 && (size_t)n < c->errlen) {
		va_start(ap, fmt);
		/* The analyzer takes ap for uninitialized. */
		vsnprintf(c->err + n, // NOLINT(clang-analyzer-valist.Uninitialized)
			  c->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	/* A string of the profile's shown in it stays on the line. */
	for (char *q = c->err; *q; q++)
		if ((unsigned char)*q < 0x20 || *q == 0x7f)
			*q = '?';
	return err;
}

static void at(struct ck *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void at(struct ck *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->path, // NOLINT(clang-analyzer-valist.Uninitialized)
		  sizeof(c->path), fmt, ap);
	va_end(ap);
}

static const struct fg_json *node(const struct ck *c, uint32_t i)
{
	return &c->doc->node[i];
}

static int want_type(struct ck *c, uint32_t n, enum fg_json_type t,
		     const char *what)
{
	if (!n)
		return bad(c, -EINVAL, "missing");
	if (node(c, n)->type != t)
		return bad(c, -EINVAL, "not %s", what);
	return 0;
}

/* A whole number in [0, max]. */
static int want_uint(struct ck *c, uint32_t n, uint64_t max, uint64_t *v)
{
	double d;
	int ret = want_type(c, n, FG_JSON_NUMBER, "a number");

	*v = 0; /* never read after a failure */

	if (ret)
		return ret;
	d = node(c, n)->num;
	if (d < 0 || d > (double)MAX_WHOLE || d != (double)(uint64_t)d)
		return bad(c, -EINVAL, "not a whole number of 0 or more");
	if ((uint64_t)d > max)
		return bad(c, -EINVAL, "%llu is more than %llu",
			   (unsigned long long)d, (unsigned long long)max);
	*v = (uint64_t)d;
	return 0;
}

/* A number of 0 or more (a time in ms), or null when may_null. */
static int want_ms(struct ck *c, uint32_t n, bool may_null, double *v)
{
	if (may_null && n && node(c, n)->type == FG_JSON_NULL) {
		*v = -1;
		return 0;
	}
	if (want_type(c, n, FG_JSON_NUMBER, may_null ? "a number or null" :
						       "a number"))
		return -EINVAL;
	*v = node(c, n)->num;
	if (*v < 0)
		return bad(c, -EINVAL, "negative");
	if (*v > MAX_MS)
		return bad(c, -EINVAL, "later than %.0f ms", MAX_MS);
	return 0;
}

static int want_keyword(struct ck *c, uint32_t n, const char *const *names,
			const char *what, int *v)
{
	int ret = want_type(c, n, FG_JSON_STRING, "a string");

	*v = 0;

	if (ret)
		return ret;
	for (int i = 0; names[i]; i++)
		if (!strcmp(names[i], node(c, n)->str)) {
			*v = i;
			return 0;
		}
	return bad(c, -EINVAL, "unknown %s \"%.40s\"", what, node(c, n)->str);
}

/* An id, unique in its list: its index recorded in map. */
static int want_id(struct ck *c, uint32_t n, int32_t *map, uint32_t len,
		   unsigned int index)
{
	uint64_t id = 0;
	int ret = want_uint(c, n, len - 1, &id);

	if (ret)
		return ret;
	if (map[id] >= 0)
		return bad(c, -EINVAL, "id %llu given twice",
			   (unsigned long long)id);
	map[id] = (int32_t)index;
	return 0;
}

/* A reference to an id of a list: its index. */
static int want_ref(struct ck *c, uint32_t n, const int32_t *map,
		    uint32_t len, const char *what, unsigned int *index)
{
	uint64_t id = 0;
	int ret = want_uint(c, n, MAX_ID - 1, &id);

	*index = 0; /* never read after a failure */
	if (ret)
		return ret;
	if (id >= len || map[id] < 0)
		return bad(c, -EINVAL, "no %s has id %llu", what,
			   (unsigned long long)id);
	*index = (unsigned int)map[id];
	return 0;
}

/* The top object's member `name`, an array of at most max elements. */
static int want_list(struct ck *c, const char *name, unsigned int max,
		     uint32_t *arr)
{
	at(c, "%s", name);
	*arr = fg_json_member(c->doc, 0, name);
	if (want_type(c, *arr, FG_JSON_ARRAY, "an array"))
		return -EINVAL;
	if (node(c, *arr)->count > max)
		return bad(c, -EINVAL, "%u entries, more than %u",
			   node(c, *arr)->count, max);
	return 0;
}

static int want_object(struct ck *c, uint32_t n)
{
	return want_type(c, n, FG_JSON_OBJECT, "an object");
}

static uint32_t field(struct ck *c, uint32_t obj, const char *list,
		      unsigned int i, const char *name)
{
	at(c, "%s[%u].%s", list, i, name);
	return fg_json_member(c->doc, obj, name);
}

static int read_object(struct ck *c, uint32_t o, unsigned int i)
{
	struct fg_pobject *ob = &c->pr->objects[i];
	uint64_t size;
	uint32_t n;
	int v, ret;

	at(c, "objects[%u]", i);
	ret = want_object(c, o);
	if (!ret)
		ret = want_id(c, field(c, o, "objects", i, "id"), c->object_at,
			      c->nobject_at, i);
	if (!ret)
		ret = want_keyword(c, field(c, o, "objects", i, "backing"),
				   backing_names, "backing", &v);
	if (ret)
		return ret;
	ob->backing = (enum fg_obj_backing)v;
	ret = want_uint(c, field(c, o, "objects", i, "size"), MAX_WHOLE, &size);
	if (ret)
		return ret;
	if (!size || size % c->pr->page_size)
		return bad(c, -EINVAL, "%llu is not a whole number of pages "
			   "of %llu bytes", (unsigned long long)size,
			   (unsigned long long)c->pr->page_size);
	ob->pages = size / c->pr->page_size;
	n = field(c, o, "objects", i, "writable");
	if (n && node(c, n)->type != FG_JSON_TRUE &&
	    node(c, n)->type != FG_JSON_FALSE)
		return bad(c, -EINVAL, "not true or false");
	ob->writable = !n || node(c, n)->type == FG_JSON_TRUE;
	n = field(c, o, "objects", i, "thp");
	if (n && node(c, n)->type != FG_JSON_TRUE &&
	    node(c, n)->type != FG_JSON_FALSE)
		return bad(c, -EINVAL, "not true or false");
	ob->thp = n && node(c, n)->type == FG_JSON_TRUE;
	return 0;
}

static int read_process_objects(struct ck *c, uint32_t list, unsigned int i)
{
	unsigned int k = 0, idx;

	if (want_type(c, list, FG_JSON_ARRAY, "an array"))
		return -EINVAL;
	for (uint32_t e = node(c, list)->first; e; e = node(c, e)->next, k++) {
		at(c, "processes[%u].objects[%u]", i, k);
		if (want_ref(c, e, c->object_at, c->nobject_at, "object", &idx))
			return -EINVAL;
		c->maps[(size_t)i * c->pr->nr_objects + idx] = 1;
	}
	return 0;
}

static int read_process(struct ck *c, uint32_t o, unsigned int i)
{
	struct fg_pprocess *p = &c->pr->processes[i];
	double exit_ms;
	int ret;

	at(c, "processes[%u]", i);
	ret = want_object(c, o);
	if (!ret)
		ret = want_id(c, field(c, o, "processes", i, "id"),
			      c->process_at, c->nprocess_at, i);
	if (!ret)
		ret = want_ms(c, field(c, o, "processes", i, "fork_ms"), false,
			      &p->fork_ms);
	if (!ret)
		ret = want_ms(c, field(c, o, "processes", i, "exit_ms"), true,
			      &exit_ms);
	if (!ret)
		ret = read_process_objects(
			c, field(c, o, "processes", i, "objects"), i);
	return ret;
}

/* The parents, once every id is known: one root, and each other
 * process's parent forked before it (so the tree has no cycle). */
static int read_parents(struct ck *c, uint32_t arr)
{
	unsigned int i = 0, roots = 0, parent;

	for (uint32_t o = node(c, arr)->first; o; o = node(c, o)->next, i++) {
		struct fg_pprocess *p = &c->pr->processes[i];
		uint32_t n = field(c, o, "processes", i, "parent");

		if (n && node(c, n)->type == FG_JSON_NULL) {
			p->parent = -1;
			if (roots++)
				return bad(c, -EINVAL, "a second process "
					   "without a parent: a replay forks "
					   "one tree");
			continue;
		}
		if (want_ref(c, n, c->process_at, c->nprocess_at, "process",
			     &parent))
			return -EINVAL;
		if (parent == i)
			return bad(c, -EINVAL, "its own parent");
		if (c->pr->processes[parent].fork_ms > p->fork_ms ||
		    (c->pr->processes[parent].fork_ms == p->fork_ms &&
		     parent > i))
			return bad(c, -EINVAL, "a parent forked after it");
		p->parent = (int)parent;
	}
	at(c, "processes");
	if (!roots)
		return bad(c, -EINVAL, "no process without a parent");
	return 0;
}

static int read_thread(struct ck *c, uint32_t o, unsigned int i)
{
	struct fg_pthread *t = &c->pr->threads[i];
	uint64_t id;
	int ret;

	at(c, "threads[%u]", i);
	ret = want_object(c, o);
	if (!ret)
		ret = want_id(c, field(c, o, "threads", i, "id"), c->thread_at,
			      c->nthread_at, i);
	if (ret)
		return ret;
	(void)want_uint(c, field(c, o, "threads", i, "id"), MAX_ID, &id);
	c->pr->thread_ids[i] = (unsigned int)id;
	ret = want_ref(c, field(c, o, "threads", i, "process"), c->process_at,
		       c->nprocess_at, "process", &t->process);
	if (!ret)
		ret = want_ms(c, field(c, o, "threads", i, "start_ms"), false,
			      &t->start_ms);
	if (!ret && t->start_ms < c->pr->processes[t->process].fork_ms)
		ret = bad(c, -EINVAL, "starts before its process is forked");
	return ret;
}

/* One element of a row by its position: path "faults[r][k]". */
static uint32_t cell(struct ck *c, uint32_t *e, const char *list,
		     unsigned int r, unsigned int k)
{
	uint32_t n = *e;

	at(c, "%s[%u][%u]", list, r, k);
	if (n)
		*e = node(c, n)->next;
	return n;
}

static int row_kind(struct ck *c, uint32_t n, enum fg_replay_kind *kind)
{
	int v, ret = want_keyword(c, n, fg_kind_names, "kind", &v);

	if (ret)
		return ret;
	*kind = (enum fg_replay_kind)v;
	return 0;
}

/* faults' row r: [thread, object, bin, nbins, kind, count, first_page,
 * last_page, order, stride]. */
static int read_row(struct ck *c, uint32_t arr, unsigned int r,
		    struct fg_prow *row)
{
	uint32_t e = node(c, arr)->first;
	const struct fg_pobject *ob;
	uint64_t v;
	int o;

	at(c, "faults[%u]", r);
	if (want_type(c, arr, FG_JSON_ARRAY, "an array"))
		return -EINVAL;
	if (node(c, arr)->count != 10)
		return bad(c, -EINVAL, "%u elements, not 10",
			   node(c, arr)->count);
	if (want_ref(c, cell(c, &e, "faults", r, 0), c->thread_at,
		     c->nthread_at, "thread", &row->thread) ||
	    want_ref(c, cell(c, &e, "faults", r, 1), c->object_at,
		     c->nobject_at, "object", &row->object))
		return -EINVAL;
	if (!c->maps[(size_t)c->pr->threads[row->thread].process *
			     c->pr->nr_objects + row->object])
		return bad(c, -EINVAL, "an object its thread's process does "
			   "not map");
	ob = &c->pr->objects[row->object];
	if (want_uint(c, cell(c, &e, "faults", r, 2), UINT32_MAX, &v))
		return -EINVAL;
	row->bin = (uint32_t)v;
	if (want_uint(c, cell(c, &e, "faults", r, 3), UINT32_MAX, &v))
		return -EINVAL;
	if (!v || (uint64_t)row->bin + v > UINT32_MAX)
		return bad(c, -EINVAL, "not a count of bins from 1");
	if ((double)(row->bin + v) * c->pr->bin_ms > MAX_MS)
		return bad(c, -EINVAL, "bins ending later than %.0f ms", MAX_MS);
	row->nbins = (uint32_t)v;
	if (row_kind(c, cell(c, &e, "faults", r, 4), &row->kind) ||
	    want_uint(c, cell(c, &e, "faults", r, 5), MAX_WHOLE, &row->count) ||
	    want_uint(c, cell(c, &e, "faults", r, 6), ob->pages - 1,
		      &row->first_page) ||
	    want_uint(c, cell(c, &e, "faults", r, 7), ob->pages - 1,
		      &row->last_page))
		return -EINVAL;
	if (row->last_page < row->first_page)
		return bad(c, -EINVAL, "below first_page");
	if (row->count > MAX_WHOLE / c->pr->period)
		return bad(c, -EINVAL, "count times period beyond 2^53");
	if (want_keyword(c, cell(c, &e, "faults", r, 8), order_names, "order",
			 &o) ||
	    want_uint(c, cell(c, &e, "faults", r, 9), ob->pages, &row->stride))
		return -EINVAL;
	row->order = (enum fg_row_order)o;
	if (row->order == FG_ORDER_STRIDE && !row->stride)
		return bad(c, -EINVAL, "a stride of 0 pages");
	if (!row->stride)
		row->stride = 1;
	at(c, "faults[%u][4]", r);
	if ((row->kind == FG_KIND_HUGE) != (ob->thp ||
					     ob->backing == FG_OBJ_HUGETLB) &&
	    row->kind == FG_KIND_HUGE)
		return bad(c, -EINVAL, "huge faults in an object without "
			   "huge pages (its \"thp\" false)");
	/* Dirty tracking: only a shared file's mapping write-protects its
	 * pages until they are written (page_mkwrite). */
	if (row->kind == FG_KIND_WRITE_NOTIFY && ob->backing != FG_OBJ_FILE)
		return bad(c, -EINVAL, "write-notify faults in objects[%u], "
			   "%s, not a shared file: not replayed", row->object,
			   backing_names[ob->backing]);
	/* A user fault or a refault (the page-faults event: read or
	 * write untold) of an object not writable was a read. */
	if (!ob->writable && row->kind != FG_KIND_READ &&
	    row->kind != FG_KIND_MAJOR && row->kind != FG_KIND_USER &&
	    row->kind != FG_KIND_REFAULT)
		return bad(c, -EINVAL, "a write (%s) to an object not "
			   "writable", fg_kind_names[row->kind]);
	return 0;
}

/* The largest writable object the process maps, one not a file's
 * first (a populated page of a file mapped shared is a read and a
 * write-notify fault, of memory one), or -1. */
static int largest_object(const struct ck *c, unsigned int process)
{
	const struct fg_pobject *obs = c->pr->objects;
	int best = -1;

	for (unsigned int o = 0; o < c->pr->nr_objects; o++) {
		bool file = obs[o].backing == FG_OBJ_FILE;

		if (!c->maps[(size_t)process * c->pr->nr_objects + o] ||
		    !obs[o].writable)
			continue;
		if (best < 0 ||
		    (obs[best].backing == FG_OBJ_FILE && !file) ||
		    ((obs[best].backing == FG_OBJ_FILE) == file &&
		     obs[o].pages > obs[best].pages))
			best = (int)o;
	}
	return best;
}

/* The bytes of a huge page as the profile's huge faults count them
 * (x86-64's PMD). */
#define PROFILE_HUGE (2ull << 20)

/*
 * Where populated row `row` (the last read) starts in object o: past
 * the pages the object's rows before it touched (the fault rows' last
 * pages, the populated rows' spans), so that it faults pages no other
 * row faults, as the original's population did; a huge page on in an
 * object with huge pages.  From the object's first page where the rest
 * is too short.
 */
static uint64_t populate_from(const struct fg_profile *pr,
			      const struct fg_prow *row, unsigned int o)
{
	const struct fg_pobject *ob = &pr->objects[o];
	uint64_t per = 1, from = 0, end;

	if ((ob->thp || ob->backing == FG_OBJ_HUGETLB) &&
	    pr->page_size < PROFILE_HUGE)
		per = PROFILE_HUGE / pr->page_size;
	for (const struct fg_prow *r = pr->rows; r < row; r++) {
		if (r->object != o)
			continue;
		end = r->kind == FG_KIND_GUP || r->kind == FG_KIND_KERNEL_SIDE ?
			      r->first_page + r->count * pr->period * per :
			      r->last_page + 1;
		if (end > from)
			from = end;
	}
	from = (from + per - 1) / per * per;
	if (from >= ob->pages ||
	    (ob->pages - from) / per < row->count * pr->period)
		return 0;
	return from;
}

/* without_event's row r: [thread, kind, count], populated over the
 * thread's largest object, at the thread's start (populate_from). */
static int read_without(struct ck *c, uint32_t arr, unsigned int r,
			struct fg_prow *row)
{
	uint32_t e = node(c, arr)->first;
	const struct fg_pthread *t;
	int obj;

	at(c, "without_event[%u]", r);
	if (want_type(c, arr, FG_JSON_ARRAY, "an array"))
		return -EINVAL;
	if (node(c, arr)->count != 3)
		return bad(c, -EINVAL, "%u elements, not 3",
			   node(c, arr)->count);
	if (want_ref(c, cell(c, &e, "without_event", r, 0), c->thread_at,
		     c->nthread_at, "thread", &row->thread) ||
	    row_kind(c, cell(c, &e, "without_event", r, 1), &row->kind) ||
	    want_uint(c, cell(c, &e, "without_event", r, 2),
		      MAX_WHOLE / c->pr->period, &row->count))
		return -EINVAL;
	at(c, "without_event[%u][1]", r);
	/* gup, or without the tracepoints kernel-side (kernel-mode faults
	 * or get_user_pages, untold): populated, as get_user_pages does. */
	if (row->kind != FG_KIND_GUP && row->kind != FG_KIND_KERNEL_SIDE)
		return bad(c, -EINVAL, "kind \"%s\" without an event is not "
			   "replayed yet", fg_kind_names[row->kind]);
	t = &c->pr->threads[row->thread];
	obj = largest_object(c, t->process);
	if (obj < 0)
		return bad(c, -EINVAL, "its thread's process maps no "
			   "writable object to populate");
	row->object = (unsigned int)obj;
	if (t->start_ms / c->pr->bin_ms >= (double)UINT32_MAX)
		return bad(c, -EINVAL, "its thread starts beyond the last bin");
	row->bin = (uint32_t)(t->start_ms / c->pr->bin_ms);
	row->nbins = 1;
	row->order = FG_ORDER_SEQ;
	row->stride = 1;
	row->first_page = populate_from(c->pr, row, (unsigned int)obj);
	row->last_page = c->pr->objects[obj].pages - 1;
	return 0;
}

static int read_schema(struct ck *c)
{
	uint32_t n = fg_json_member(c->doc, 0, "schema");
	const char *s;

	at(c, "schema");
	if (want_type(c, n, FG_JSON_STRING, "a string"))
		return -EINVAL;
	s = node(c, n)->str;
	if (!strcmp(s, SCHEMA))
		return 0;
	if (!strncmp(s, SCHEMA_PREFIX, strlen(SCHEMA_PREFIX)))
		return bad(c, -EPROTONOSUPPORT, "\"%.40s\": a version this "
			   "library does not read (it reads " SCHEMA ")", s);
	return bad(c, -EINVAL, "\"%.40s\" is not " SCHEMA, s);
}

static int read_header(struct ck *c)
{
	struct fg_profile *pr = c->pr;
	int ret;

	if (node(c, 0)->type != FG_JSON_OBJECT) {
		at(c, "the profile");
		return bad(c, -EINVAL, "not a JSON object");
	}
	ret = read_schema(c);
	if (ret)
		return ret;
	at(c, "period");
	ret = want_uint(c, fg_json_member(c->doc, 0, "period"), MAX_WHOLE,
			&pr->period);
	if (!ret && !pr->period)
		ret = bad(c, -EINVAL, "0");
	if (ret)
		return ret;
	at(c, "bin_ms");
	ret = want_ms(c, fg_json_member(c->doc, 0, "bin_ms"), false,
		      &pr->bin_ms);
	if (!ret && !(pr->bin_ms >= MIN_BIN_MS))
		ret = bad(c, -EINVAL, "less than %g ms", MIN_BIN_MS);
	if (ret)
		return ret;
	at(c, "page_size");
	ret = want_uint(c, fg_json_member(c->doc, 0, "page_size"), 1u << 30,
			&pr->page_size);
	if (!ret && (pr->page_size < 512 ||
		     (pr->page_size & (pr->page_size - 1))))
		ret = bad(c, -EINVAL, "not a power of two");
	return ret;
}

/* One more than the largest id of a list's entries (MAX_ID at most):
 * the length of its map from ids to indexes. */
static uint32_t ids_len(const struct ck *c, uint32_t arr)
{
	uint32_t len = 1;

	for (uint32_t o = node(c, arr)->first; o; o = node(c, o)->next) {
		uint32_t n = fg_json_member(c->doc, o, "id");
		double d = n && node(c, n)->type == FG_JSON_NUMBER ?
				   node(c, n)->num : 0;

		if (d >= 0 && d < MAX_ID && (uint32_t)d + 1 > len)
			len = (uint32_t)d + 1;
	}
	return len;
}

static int32_t *id_map(uint32_t len)
{
	int32_t *map = malloc(len * sizeof(int32_t));

	if (map)
		memset(map, 0xff, len * sizeof(int32_t));
	return map;
}

static int alloc_maps(struct ck *c, uint32_t objs, uint32_t procs,
		      uint32_t thrs)
{
	struct fg_profile *pr = c->pr;
	unsigned int objects = node(c, objs)->count;
	unsigned int processes = node(c, procs)->count;
	unsigned int threads = node(c, thrs)->count;

	c->nobject_at = ids_len(c, objs);
	c->nprocess_at = ids_len(c, procs);
	c->nthread_at = ids_len(c, thrs);
	c->object_at = id_map(c->nobject_at);
	c->process_at = id_map(c->nprocess_at);
	c->thread_at = id_map(c->nthread_at);
	c->maps = pr->maps = calloc((size_t)processes * objects + 1, 1);
	pr->objects = calloc(objects + 1, sizeof(*pr->objects));
	pr->processes = calloc(processes + 1, sizeof(*pr->processes));
	pr->threads = calloc(threads + 1, sizeof(*pr->threads));
	pr->thread_ids = calloc(threads + 1, sizeof(*pr->thread_ids));
	if (!c->object_at || !c->process_at || !c->thread_at || !c->maps ||
	    !pr->objects || !pr->processes || !pr->threads || !pr->thread_ids)
		return -ENOMEM;
	pr->nr_objects = objects;
	pr->nr_processes = processes;
	pr->nr_threads = threads;
	return 0;
}

static int read_lists(struct ck *c, uint32_t objs, uint32_t procs,
		      uint32_t thrs)
{
	unsigned int i = 0;
	int ret = 0;

	for (uint32_t o = node(c, objs)->first; o && !ret;
	     o = node(c, o)->next)
		ret = read_object(c, o, i++);
	i = 0;
	for (uint32_t o = node(c, procs)->first; o && !ret;
	     o = node(c, o)->next)
		ret = read_process(c, o, i++);
	if (!ret)
		ret = read_parents(c, procs);
	i = 0;
	for (uint32_t o = node(c, thrs)->first; o && !ret;
	     o = node(c, o)->next)
		ret = read_thread(c, o, i++);
	return ret;
}

static int read_rows(struct ck *c, uint32_t faults, uint32_t without)
{
	struct fg_profile *pr = c->pr;
	size_t n = node(c, faults)->count;
	unsigned int r = 0;
	int ret = 0;

	if (without)
		n += node(c, without)->count;
	pr->rows = calloc(n + 1, sizeof(*pr->rows));
	if (!pr->rows)
		return -ENOMEM;
	for (uint32_t e = node(c, faults)->first; e && !ret;
	     e = node(c, e)->next, r++)
		ret = read_row(c, e, r, &pr->rows[pr->nr_rows++]);
	r = 0;
	for (uint32_t e = without ? node(c, without)->first : 0; e && !ret;
	     e = node(c, e)->next, r++)
		ret = read_without(c, e, r, &pr->rows[pr->nr_rows++]);
	for (size_t k = 0; k < pr->nr_rows && !ret; k++)
		pr->counts[pr->rows[k].kind] += pr->rows[k].count * pr->period;
	return ret;
}

/* A madvise's advice: its name, or its number as a decimal string. */
static int call_advice(struct ck *c, uint32_t n, int *advice)
{
	const char *s;
	char *end;
	long v;

	if (want_type(c, n, FG_JSON_STRING, "a string (the advice)"))
		return -EINVAL;
	s = node(c, n)->str;
	for (size_t i = 0; i < sizeof(advice_names) / sizeof(advice_names[0]);
	     i++)
		if (!strcmp(s, advice_names[i].name)) {
			*advice = advice_names[i].advice;
			return 0;
		}
	errno = 0;
	v = strtol(s, &end, 10);
	if (s[0] < '0' || s[0] > '9' || *end || errno || v > MAX_ADVICE)
		return bad(c, -EINVAL, "unknown advice \"%.40s\"", s);
	if (v == ADVICE_HWPOISON || v == ADVICE_SOFT_OFFLINE)
		return bad(c, -EINVAL, "advice %ld (a page taken out of use): "
			   "not replayed", v);
	*advice = (int)v;
	return 0;
}

/* An mprotect's protection: "none", or of "r", "w", "x" in that order. */
static int call_prot(struct ck *c, uint32_t n, int *prot)
{
	static const char *const prots[] = { "none", "r", "w", "rw", "x",
					     "rx", "wx", "rwx", NULL };
	int v, ret = want_keyword(c, n, prots, "protection", &v);

	/* The index's bits are PROT_READ, PROT_WRITE and PROT_EXEC's. */
	*prot = v;
	return ret;
}

static int call_arg(struct ck *c, uint32_t n, struct fg_pcall *cl)
{
	cl->arg = 0;
	if (cl->call == FG_CALL_MADVISE)
		return call_advice(c, n, &cl->arg);
	if (cl->call == FG_CALL_MPROTECT)
		return call_prot(c, n, &cl->arg);
	if (!n || node(c, n)->type != FG_JSON_NULL)
		return bad(c, -EINVAL, "not null (%s has no argument here)",
			   fg_call_names[cl->call]);
	return 0;
}

/* The object of a call: an object its process maps, or null (-1). */
static int call_object(struct ck *c, uint32_t n, struct fg_pcall *cl)
{
	unsigned int o;

	cl->object = -1;
	if (n && node(c, n)->type == FG_JSON_NULL)
		return 0;
	if (want_ref(c, n, c->object_at, c->nobject_at, "object", &o))
		return -EINVAL;
	if (!c->maps[(size_t)c->pr->threads[cl->thread].process *
			     c->pr->nr_objects + o])
		return bad(c, -EINVAL, "an object its thread's process does "
			   "not map");
	cl->object = (int)o;
	return 0;
}

/* calls' row r: [thread, object, bin, call, arg, count, first, last,
 * pages]. */
static int read_call(struct ck *c, uint32_t arr, unsigned int r,
		     struct fg_pcall *cl)
{
	uint32_t e = node(c, arr)->first;
	uint64_t v, pages;
	int call;

	at(c, "calls[%u]", r);
	if (want_type(c, arr, FG_JSON_ARRAY, "an array"))
		return -EINVAL;
	if (node(c, arr)->count != 9)
		return bad(c, -EINVAL, "%u elements, not 9",
			   node(c, arr)->count);
	if (want_ref(c, cell(c, &e, "calls", r, 0), c->thread_at,
		     c->nthread_at, "thread", &cl->thread) ||
	    call_object(c, cell(c, &e, "calls", r, 1), cl) ||
	    want_uint(c, cell(c, &e, "calls", r, 2), UINT32_MAX, &v))
		return -EINVAL;
	cl->bin = (uint32_t)v;
	if ((double)(cl->bin + 1.0) * c->pr->bin_ms > MAX_MS)
		return bad(c, -EINVAL, "a bin ending later than %.0f ms",
			   MAX_MS);
	if (want_keyword(c, cell(c, &e, "calls", r, 3), fg_call_names,
			 "call", &call))
		return -EINVAL;
	cl->call = (enum fg_call)call;
	pages = cl->object < 0 ? MAX_WHOLE :
				 c->pr->objects[cl->object].pages;
	if (call_arg(c, cell(c, &e, "calls", r, 4), cl) ||
	    want_uint(c, cell(c, &e, "calls", r, 5),
		      MAX_WHOLE / c->pr->period, &cl->count) ||
	    want_uint(c, cell(c, &e, "calls", r, 6), pages ? pages - 1 : 0,
		      &cl->first_page) ||
	    want_uint(c, cell(c, &e, "calls", r, 7), pages ? pages - 1 : 0,
		      &cl->last_page))
		return -EINVAL;
	if (cl->last_page < cl->first_page)
		return bad(c, -EINVAL, "below first");
	return want_uint(c, cell(c, &e, "calls", r, 8), MAX_WHOLE, &cl->pages);
}

/* "calls": null (not recorded), or the mapping calls' rows. */
static int read_calls(struct ck *c)
{
	struct fg_profile *pr = c->pr;
	uint32_t list = fg_json_member(c->doc, 0, "calls");
	unsigned int r = 0;
	int ret = 0;

	at(c, "calls");
	if (!list || node(c, list)->type == FG_JSON_NULL)
		return 0;
	if (want_list(c, "calls", MAX_ROWS, &list))
		return -EINVAL;
	pr->calls_recorded = true;
	pr->calls = calloc(node(c, list)->count + 1, sizeof(*pr->calls));
	if (!pr->calls)
		return -ENOMEM;
	for (uint32_t e = node(c, list)->first; e && !ret;
	     e = node(c, e)->next, r++) {
		struct fg_pcall *cl = &pr->calls[pr->nr_calls++];

		ret = read_call(c, e, r, cl);
		if (!ret)
			pr->call_counts[cl->call] += cl->count * pr->period;
	}
	return ret;
}

static int read_profile(struct ck *c)
{
	uint32_t objs, procs, thrs, faults, without;
	int ret = read_header(c);

	if (!ret)
		ret = want_list(c, "objects", MAX_OBJECTS, &objs);
	if (!ret)
		ret = want_list(c, "processes", MAX_PROCESSES, &procs);
	if (!ret && !node(c, procs)->count)
		ret = bad(c, -EINVAL, "empty");
	if (!ret)
		ret = want_list(c, "threads", MAX_THREADS, &thrs);
	if (!ret && !node(c, thrs)->count)
		ret = bad(c, -EINVAL, "empty: a replay needs a thread");
	if (!ret)
		ret = want_list(c, "faults", MAX_ROWS, &faults);
	without = fg_json_member(c->doc, 0, "without_event");
	if (!ret && without)
		ret = want_list(c, "without_event", MAX_ROWS, &without);
	if (!ret)
		ret = alloc_maps(c, objs, procs, thrs);
	if (!ret)
		ret = read_lists(c, objs, procs, thrs);
	if (!ret)
		ret = read_rows(c, faults, without);
	if (!ret)
		ret = read_calls(c);
	return ret;
}

/*
 * Parses and checks a profile: 0 with *pr filled (fg_profile_free
 * releases it, also after a failure); -EINVAL or -EPROTONOSUPPORT with
 * err (errlen bytes) saying which member and why; -EFBIG too large;
 * -ENOMEM.
 */
FG_TESTABLE int fg_profile_parse(const char *buf, size_t len,
				 struct fg_profile *pr, char *err,
				 size_t errlen)
{
	struct fg_json_doc doc;
	struct ck c = { .doc = &doc, .pr = pr, .err = err, .errlen = errlen };
	int ret;

	memset(pr, 0, sizeof(*pr));
	if (errlen)
		err[0] = '\0';
	ret = fg_json_parse(buf, len, &doc);
	if (ret && doc.error[0])
		snprintf(err, errlen, "%s", doc.error);
	if (!ret)
		ret = read_profile(&c);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory reading the profile");
	free(c.object_at);
	free(c.process_at);
	free(c.thread_at);
	fg_json_free(&doc);
	return ret;
}

void fg_profile_free(struct fg_profile *pr)
{
	free(pr->objects);
	free(pr->processes);
	free(pr->threads);
	free(pr->thread_ids);
	free(pr->maps);
	free(pr->rows);
	free(pr->calls);
	memset(pr, 0, sizeof(*pr));
}

/* Parses a profile into a shared one of one reference (*out): as
 * fg_profile_parse. */
int fg_profile_ref_parse(const char *buf, size_t len,
			 struct fg_profile_ref **out, char *err, size_t errlen)
{
	struct fg_profile_ref *r = calloc(1, sizeof(*r));
	int ret;

	*out = NULL;
	if (!r) {
		snprintf(err, errlen, "out of memory reading the profile");
		return -ENOMEM;
	}
	ret = fg_profile_parse(buf, len, &r->pr, err, errlen);
	if (ret) {
		fg_profile_free(&r->pr);
		free(r);
		return ret;
	}
	atomic_init(&r->refs, 1);
	*out = r;
	return 0;
}

/* One more reference to r (NULL: none). */
struct fg_profile_ref *fg_profile_get(struct fg_profile_ref *r)
{
	if (r)
		atomic_fetch_add(&r->refs, 1);
	return r;
}

/* One reference less; the last frees it. */
void fg_profile_put(struct fg_profile_ref *r)
{
	if (r && atomic_fetch_sub(&r->refs, 1) == 1) {
		fg_profile_free(&r->pr);
		free(r);
	}
}

/* A profile's file, whole: a regular file (never a FIFO or a device,
 * which could block or never end), at most FG_JSON_MAX_BYTES. */
int fg_profile_read(const char *path, char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	size_t got = 0;
	int ret = 0;

	*buf = NULL;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
	} else if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
	} else if (st.st_size > (off_t)FG_JSON_MAX_BYTES) {
		ret = -EFBIG;
	} else if (!(*buf = malloc((size_t)st.st_size + 1))) {
		ret = -ENOMEM;
	}
	while (!ret && got < (size_t)st.st_size) {
		ssize_t n = read(fd, *buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : -EIO;
			break;
		}
		got += (size_t)n;
	}
	close(fd);
	if (ret) {
		free(*buf);
		*buf = NULL;
		return ret;
	}
	*len = got;
	return 0;
}
