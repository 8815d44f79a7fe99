// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uffd.c - the uffd-missing pattern: the shared VMA's slices, registered
 * with a userfaultfd for missing pages, and a handler thread beside the
 * workers that resolves each of their faults: the shape of QEMU's
 * post-copy live migration, CRIU's lazy restore and Android ART's
 * userfaultfd GC, where a thread supplies the pages other threads fault.
 *
 * fault.c's workers run it (fg_fault_exec_with): the handler is their
 * helper, and the registration its setup once the VMA is mapped.  A
 * worker's fault waits in the kernel until the handler has filled the
 * page (UFFDIO_COPY of a page of its own), then is retried: which
 * counter counts the retry depends on the kernel (faultgen(7): minflt
 * since Linux 6.6, where the first attempt holds the per-VMA lock).
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1 /* Linux 5.11 */
#endif

/* How long the handler waits for a fault before it looks whether the
 * workers are through (the run's end, outside the measured interval). */
#define HANDLER_POLL_MS 10
/* What the handler's pages hold: the content a resolver supplies. */
#define UFFD_STAMP 0x5a

/* The setting resolve: how the handler fills a missing page. */
enum { RESOLVE_COPY, RESOLVE_ZEROPAGE };

struct uffd_state {
	int fd;        /* the userfaultfd, when open */
	bool open;
	bool zeropage; /* UFFDIO_ZEROPAGE, not UFFDIO_COPY */
	char *page;    /* the page UFFDIO_COPY copies, stamped */
	/* Faults resolved while the workers measure, and before (warm-up). */
	_Atomic uint64_t resolved, resolved_before;
};

/* Errors of userfaultfd(2) as the library's: refused to this process
 * (EPERM: vm.unprivileged_userfaultfd without UFFD_USER_MODE_ONLY's
 * support, a seccomp filter), or a kernel without it (ENOSYS). */
static int uffd_open(struct uffd_state *st)
{
	struct uffdio_api api = { .api = UFFD_API };
	long fd = syscall(SYS_userfaultfd,
			  O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);

	if (fd < 0)
		return errno == EINVAL ? -EOPNOTSUPP : -errno;
	st->fd = (int)fd;
	st->open = true;
	if (ioctl(st->fd, UFFDIO_API, &api) < 0)
		return -errno;
	return 0;
}

/* Once the VMA is mapped, before the workers start: the userfaultfd, the
 * registration of the whole VMA (a part would split it) and the page the
 * handler copies, faulted here rather than in the handler. */
static int uffd_setup(struct faultgen_run *run)
{
	struct uffd_state *st = fg_pattern_state(run);
	struct uffdio_register reg = {
		.range = { .start = (uintptr_t)run->base,
			   .len = run->base_len },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	size_t ps = (size_t)run->pagesize;
	int ret = uffd_open(st);

	if (ret)
		return ret;
	if (ioctl(st->fd, UFFDIO_REGISTER, &reg) < 0)
		return -errno;
	st->zeropage = fg_own_setting(run, "resolve").e == RESOLVE_ZEROPAGE;
	if (!(reg.ioctls & (1ULL << (st->zeropage ? _UFFDIO_ZEROPAGE :
						     _UFFDIO_COPY))))
		return -EOPNOTSUPP;
	st->page = mmap(NULL, ps, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (st->page == MAP_FAILED) {
		st->page = NULL;
		return -ENOMEM;
	}
	memset(st->page, UFFD_STAMP, ps);
	return 0;
}

/* Fills the page at dst, and wakes the worker held in its fault:
 * 0 or -errno.  EAGAIN: the mappings changed meanwhile, to retry. */
static int uffd_fill(const struct uffd_state *st, uint64_t dst, size_t ps)
{
	struct uffdio_copy copy = {
		.dst = dst, .src = (uintptr_t)st->page, .len = ps };
	struct uffdio_zeropage zero = { .range = { .start = dst, .len = ps } };
	int ret;

	do {
		ret = st->zeropage ? ioctl(st->fd, UFFDIO_ZEROPAGE, &zero) :
				     ioctl(st->fd, UFFDIO_COPY, &copy);
	} while (ret < 0 && errno == EAGAIN);
	return ret < 0 ? -errno : 0;
}

/* Resolves a missing fault, and counts it in its phase. */
static int uffd_resolve(struct faultgen_run *run, struct uffd_state *st,
			uint64_t addr)
{
	size_t ps = (size_t)run->pagesize;
	int ret;
	/* Asked while the fault's worker is held in it: a measured fault's
	 * worker began its measured interval before it touched; a warm-up
	 * fault's is still before the gate every worker passes first.  Once
	 * the copy wakes it, it may pass that gate before this thread goes
	 * on. */
	bool measured = fg_measure_open(run);

	ret = uffd_fill(st, fg_round_down(addr, ps), ps);
	if (ret)
		return ret;
	atomic_fetch_add(measured ? &st->resolved : &st->resolved_before, 1);
	return 0;
}

/* The next fault, or 0 when none came within HANDLER_POLL_MS. */
static int uffd_next(const struct uffd_state *st, uint64_t *addr)
{
	struct pollfd pfd = { .fd = st->fd, .events = POLLIN };
	struct uffd_msg msg;
	ssize_t n = read(st->fd, &msg, sizeof(msg));

	if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
		if (poll(&pfd, 1, HANDLER_POLL_MS) < 0 && errno != EINTR)
			return -errno;
		return 0;
	}
	if (n < 0)
		return -errno;
	if (n != sizeof(msg) || msg.event != UFFD_EVENT_PAGEFAULT)
		return -EIO;
	*addr = msg.arg.pagefault.address;
	return 1;
}

/*
 * The handler (struct fg_work's helper): resolves faults until the
 * workers are through.  Leaving earlier (a cancel, an error), it
 * unregisters the VMA, which wakes the workers held in a fault: they
 * fault the page as any other, and finish.
 */
static int uffd_handler(struct faultgen_run *run, unsigned int h)
{
	struct uffd_state *st = fg_pattern_state(run);
	struct uffdio_range all = { .start = (uintptr_t)run->base,
				    .len = run->base_len };
	uint64_t addr = 0;
	int ret = 0;

	(void)h;
	while (!ret && !fg_helpers_stop(run)) {
		ret = uffd_next(st, &addr);
		if (ret == 1)
			ret = uffd_resolve(run, st, addr);
	}
	ioctl(st->fd, UFFDIO_UNREGISTER, &all);
	return ret ? ret : fg_cancel_requested(run->sh) ? -ECANCELED : 0;
}

static unsigned int one_handler(const struct faultgen_run *run)
{
	(void)run;
	return 1;
}

static const struct fg_fault_extra uffd_extra = {
	.setup = uffd_setup,
	.helpers = one_handler,
	.helper = uffd_handler,
};

static int uffd_exec(struct faultgen_run *run)
{
	return fg_fault_exec_with(run, &uffd_extra);
}

static void uffd_release(struct faultgen_run *run)
{
	struct uffd_state *st = fg_pattern_state(run);

	if (st && st->open) {
		close(st->fd);
		st->open = false;
	}
	if (st && st->page) {
		munmap(st->page, (size_t)run->pagesize);
		st->page = NULL;
	}
	fg_memory_release(run);
}

static int uffd_check(const struct faultgen_attr *a,
		      struct faultgen_conflict *c)
{
	if (a->node_pages && fg_attr_repeats(a))
		return fg_conflict(c, FAULTGEN_SETTING_NODE_PAGES,
				   FAULTGEN_SETTING_REPEAT,
				   "counting the pages per node after rounds "
				   "faults them once more through the handler");
	return fg_one_vma_check(a, c);
}

/* The faults the handler resolved in the measured interval, and their
 * rate over it. */
static int uffd_figure(const struct faultgen_run *run, unsigned int index,
		       struct faultgen_figure *f)
{
	const struct uffd_state *st = fg_pattern_state(run);
	double wall = run->result.elapsed_s;
	double resolved = st ? (double)atomic_load(&st->resolved) : 0;
	const struct fg_figure_row figs[] = {
		{ "resolved", resolved, "faults" },
		{ "resolved_per_s", wall > 0 ? resolved / wall : 0,
		  "faults/s" },
		{ "resolved_warmup",
		  st ? (double)atomic_load(&st->resolved_before) : 0,
		  "faults" },
	};

	return fg_figure_pick(figs, sizeof(figs) / sizeof(figs[0]), index, f);
}

static const char *const resolve_ways[] = { "copy", "zeropage", NULL };

static const struct fg_setting uffd_settings[] = {
	{ .name = "resolve", .type = FAULTGEN_TYPE_KEYWORD,
	  .keywords = resolve_ways, .offset = FG_OWN(2), .def_text = "copy",
	  .value_name = "HOW",
	  .help = "how the handler fills a missing page: copy (a page\n"
		  "of its own, UFFDIO_COPY; default) or zeropage" },
};

const struct fg_pattern fg_uffd_missing_pattern = {
	.name = "uffd-missing",
	.title = "Missing faults resolved by a userfaultfd handler",
	.caps = {
		.processes_why = "a forked worker's copy of the mapping is "
				 "not registered with the handler's "
				 "userfaultfd",
		.backings = FG_BACKING(FAULTGEN_BACKING_ANON),
		.backings_why = "the handler fills missing pages of private "
				"anonymous memory",
		.share_why = "the handler fills missing pages of private "
			     "anonymous memory",
		.region_why = "uffd-missing registers a mapping of its own "
			      "with userfaultfd",
		.page_touch_why = "uffd-missing's faults are user touches "
				  "page by page: memset, mlock and populate "
				  "fill a slice in one call",
	},
	.settings = uffd_settings,
	.nr_settings = sizeof(uffd_settings) / sizeof(uffd_settings[0]),
	.reads = FG_READS_SLICES,
	.state_size = sizeof(struct uffd_state),
	.check = uffd_check,
	.exec = uffd_exec,
	.slices = true,
	.release = uffd_release,
	.figure = uffd_figure,
};
