# SPDX-License-Identifier: GPL-2.0-or-later
# pft_survey.kinds - what kind each page fault was, from what the kernel
# showed the user at hand.
#
# Copyright (C) 2026 The libfaultgen authors
#
# Two ways of recording, chosen by what perf may read:
# - The exceptions:page_fault_user and page_fault_kernel tracepoints
#   (root, CAP_PERFMON or perf_event_paranoid -1) give each fault
#   exception's address and x86 error code: bit 0 the page was present
#   (a protection fault: a write to a copy-on-write page), bit 1 a
#   write, bit 2 from user mode.  Kernel-mode faults on user addresses
#   (copy_to_user, read(2) into a buffer) are recorded as such.
# - Without them, perf's page-faults software event records the user-mode
#   faults only (at perf_event_paranoid 2 the kernel's own are excluded)
#   and says neither read nor write nor present.
# Both add the major-faults event (a fault that waited for I/O, with its
# address).  Faults the kernel takes without an exception (get_user_pages:
# MADV_POPULATE_*, mlock, MAP_POPULATE, an execve copying its arguments)
# raise no event at all: the kernel's per-task counters less the events
# are those.  A huge page fault (one PMD for 2 MiB) raises one event like
# any other: it is told from the page tables the survey saw (smaps), and
# weighed as its bytes.

import bisect
import os
import subprocess

PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
HUGE = 2 << 20                  # a PMD's bytes (x86-64)

# The kinds a fault event can have, in the report's order.
FIRST_TOUCH = "first-touch"     # a write to a page not present
READ = "read"                   # a read of a page not present
COW = "cow"                     # a write to a present private page
WRITE_NOTIFY = "write-notify"   # a write to a present shared page
MAJOR = "major"                 # a fault that waited for I/O
HUGE_KIND = "huge"              # a fault that mapped a huge page
KERNEL = "kernel"               # taken in kernel mode on a user address
USER = "user"                   # a user fault, first on its page (untold)
REFAULT = "refault"             # a user fault on a page faulted before
EVENT_KINDS = (FIRST_TOUCH, READ, COW, WRITE_NOTIFY, MAJOR, HUGE_KIND,
               KERNEL, USER, REFAULT)
# Faults the kernel counted without an event.
# The kinds that are writes by their error code.
WRITE_KINDS = (FIRST_TOUCH, COW, WRITE_NOTIFY)
GUP = "gup"                     # with the tracepoints: get_user_pages only
KERNEL_SIDE = "kernel-side"     # without them: kernel-mode or GUP, untold

TRACEPOINTS = "tracepoints"
PAGE_FAULTS = "page-faults"

DESCRIPTION = {
    FIRST_TOUCH: "a write to a page not present (zero-fill of anonymous "
                 "memory, a shared page mapped for writing)",
    READ: "a read of a page not present (the zero page for anonymous "
          "memory; a file's page, with its neighbours by fault-around)",
    COW: "a write to a present private page: copy-on-write (after fork, or "
         "of the zero page after a read)",
    WRITE_NOTIFY: "a write to a present shared page (dirty tracking)",
    MAJOR: "a fault that waited for I/O (perf's major-faults event)",
    HUGE_KIND: "a fault that mapped a huge page, counted as its bytes",
    KERNEL: "a fault taken in kernel mode on a user address (read(2), "
            "copy_to_user)",
    USER: "a user-mode fault on a page not faulted before in this survey: "
          "a first touch or a read (not told apart without the "
          "tracepoints' error code)",
    REFAULT: "a user-mode fault on a page this process (or its parent "
             "before a fork) faulted before, or had present when the survey "
             "attached: copy-on-write, a write after a read, or a fault "
             "after a zap (not told apart without the tracepoints' error "
             "code)",
    GUP: "counted by the kernel with no fault exception: get_user_pages "
         "(MADV_POPULATE_*, mlock, MAP_POPULATE, an execve's arguments)",
    KERNEL_SIDE: "counted by the kernel with no user-mode fault event: "
                 "kernel-mode faults (read(2), copy_to_user) and "
                 "get_user_pages (MADV_POPULATE_*, mlock, MAP_POPULATE), "
                 "not told apart: kernel-mode events need the tracepoints",
}

# The x86 page-fault error code.
PF_PRESENT = 1
PF_WRITE = 2
PF_USER = 4


# madvise(2) calls, with the tracepoints where the kernel has syscall
# tracepoints: the advice a VMA that no smaps read saw was given.
MADVISE_EVENT = "syscalls:sys_enter_madvise"
# The other mapping calls, recorded where madvise is (each where the
# kernel has its tracepoint): a profile's calls (pft-profile(5)).
CALL_EVENTS = {"mprotect": "syscalls:sys_enter_mprotect",
               "munmap": "syscalls:sys_enter_munmap",
               "mmap": "syscalls:sys_enter_mmap"}


# mmap_lock's tracepoints, with the tracepoints: which threads took it,
# for reading or writing, and the faults that fell back to it from the
# per-VMA lock.
LOCK_EVENTS = ("mmap_lock:mmap_lock_start_locking",
               "mmap_lock:mmap_lock_acquire_returned")


def events(source, madvise=False, locks=False, calls=()):
    """perf record's event options for a source (and the madvise calls',
    the other mapping calls' (names of CALL_EVENTS) and mmap_lock's
    tracepoints, with the tracepoints)."""
    if source == TRACEPOINTS:
        more = ([MADVISE_EVENT] if madvise else []) + \
            [CALL_EVENTS[c] for c in calls if c in CALL_EVENTS] + \
            list(LOCK_EVENTS if locks else ())
        return ["-e", "exceptions:page_fault_user", "-e",
                "exceptions:page_fault_kernel", "-e", "major-faults", "-d"] + \
            [x for e in more for x in ("-e", e)]
    return ["-e", "page-faults", "-e", "major-faults", "-d"]


def traceable(event):
    """Whether the kernel has a tracepoint ("system:name") in a readable
    tracefs."""
    return any(os.path.exists(os.path.join(
        d, "events", *event.split(":"), "id")) for d in TRACEFS)


def madvise_traceable():
    """Whether the kernel has the madvise syscall tracepoint (tracefs
    readable: the tracepoints' source)."""
    return traceable(MADVISE_EVENT)


def calls_traceable():
    """The mapping calls recorded with the tracepoints: none where the
    kernel has no madvise tracepoint, else madvise and those of
    CALL_EVENTS whose tracepoint it has."""
    if not madvise_traceable():
        return ()
    return ("madvise",) + tuple(c for c, e in CALL_EVENTS.items()
                                if traceable(e))


def locks_traceable():
    """Whether the kernel has both mmap_lock tracepoints."""
    return all(traceable(e) for e in LOCK_EVENTS)


def locks_not_recorded(source, period, traceable_now, may_trace_now):
    """Why the lock paths were not recorded (one sentence), or None where
    they were: they need the tracepoints' source, every event (-c 1) and
    the kernel's mmap_lock tracepoints."""
    if period > 1:
        return "-c %d samples the events: a fallback is told from the " \
            "event before it, which needs every event (-c 1)" % period
    if source != TRACEPOINTS and may_trace_now:
        return "they are recorded with the exceptions tracepoints, not " \
            "with the page-faults event (--events=page-faults)"
    if source != TRACEPOINTS:
        return "the mmap_lock tracepoints need root, CAP_PERFMON or " \
            "perf_event_paranoid -1 (the page-faults event was recorded)"
    if not traceable_now:
        return "this kernel has no mmap_lock tracepoints in tracefs (%s)" \
            % ", ".join(LOCK_EVENTS)
    return None


def not_told_apart(source):
    """What the source cannot tell, one sentence each."""
    if source == TRACEPOINTS:
        return ["a huge page fault is told from smaps (huge pages mapped in "
                "the VMA) and the faults of each 2 MiB range, not from an "
                "event",
                "fault-around maps a file's neighbouring pages with one "
                "read fault: its bytes are counted as one page"]
    return ["read, write and copy-on-write faults are not told apart: "
            "perf's page-faults event has no error code (the exceptions "
            "tracepoints have it; they need root, CAP_PERFMON or "
            "perf_event_paranoid -1)",
            "kernel-mode faults on user addresses (read(2), copy_to_user) "
            "are not recorded at perf_event_paranoid 2 or above, and are "
            "counted with get_user_pages' faults, without an address",
            "a huge page fault is told from smaps (huge pages mapped in "
            "the VMA) and the faults of each 2 MiB range, not from an "
            "event"]


def from_code(code, shared):
    """A fault's kind from its x86 error code."""
    if not code & PF_USER:
        return KERNEL
    if code & PF_PRESENT:
        if code & PF_WRITE:
            return WRITE_NOTIFY if shared else COW
        return READ
    return FIRST_TOUCH if code & PF_WRITE else READ


class Ancestry:
    """The pages each process faulted, with the time of its first fault,
    and what a forked child inherited: its parent's pages faulted before
    the fork."""

    def __init__(self, forks, present=None):
        # pid -> the pages it had when the survey attached.
        self.present = present or {}
        self.parent = {}
        for (t, pid, tid, ppid, _ptid) in forks:
            if pid == tid and pid != ppid and pid not in self.parent:
                self.parent[pid] = (ppid, t)
        self.first = {}

    def seen(self, pid, page, t):
        """Whether process pid had page faulted before time t."""
        depth = 0
        while pid is not None and depth < 64:
            f = self.first.get(pid, {}).get(page)
            if f is not None and f < t or page in self.present.get(pid, ()):
                return True
            pid, t = self.parent.get(pid, (None, t))
            depth += 1
        return False

    def add(self, pid, page, t):
        self.first.setdefault(pid, {}).setdefault(page, t)


def hugetlb_page(v):
    """The page size of a hugetlb VMA, or None for another VMA."""
    size = v.get("KernelPageSize")
    if size and size > PAGE:
        return size
    path = v.get("path") or ""
    if v.get("hugetlb") or path.startswith("/anon_hugepage"):
        return HUGE
    return None


def match_majors(rec, order):
    """The faults that the major-faults events name: of one thread's
    faults on the page, the last one before the major event.  Returns
    (set of fault indices, major events matched to none)."""
    by_page = {}
    for i in order:
        f = rec.faults[i]
        by_page.setdefault((f[2], f[3] // PAGE), []).append((f[0], i))
    marked, unmatched = set(), 0
    for (t, _pid, tid, addr, per) in rec.majors:
        lst = by_page.get((tid, addr // PAGE))
        j = bisect.bisect_right(lst, (t, float("inf"))) if lst else 0
        while j > 0 and lst[j - 1][1] in marked:
            j -= 1
        if j == 0:
            unmatched += per
            continue
        marked.add(lst[j - 1][1])
    return marked, unmatched


def huge_faults(rec, order, vma_of, kinds, peak_rss=None):
    """The faults that mapped a transparent huge page: in a VMA where
    smaps saw huge pages, those alone in their 2 MiB range (the kernel
    maps the whole range with the first touch; 4 KiB faults would have
    come for the other pages written).  Of those before the last smaps
    view of the VMA, as many as the huge pages it then held (all where it
    held three in four or more: the others were in flight); after it,
    in the same proportion.  A VMA that no smaps view saw after its
    faults (a short program), private and anonymous, where nearly every
    2 MiB range took one fault alone: where the peak resident memory of
    the program's largest process (peak_rss, getrusage's ru_maxrss)
    holds as many huge pages, all of them."""
    per_vma = {}
    # Of a VMA no smaps view saw huge pages in, the faults before its
    # last smaps view: no huge page (smaps said so), but a 2 MiB range
    # they faulted in 4 KiB pages is none either (the last of its
    # faults after the view is not alone in it).
    seen_small = set()
    for i in order:
        v = vma_of[i]
        if v is None or kinds[i] in (KERNEL, COW, WRITE_NOTIFY, REFAULT):
            continue
        f = rec.faults[i]
        if not v.get("huge_max"):
            if not (peak_rss and (v.get("perms") or "")[3:4] == "p" and
                    (v.get("path") or "") in ("", "//anon")):
                continue
            if (v.get("smaps_ns") or 0) >= f[0]:
                seen_small.add(i)
        block = f[3] // HUGE
        if block * HUGE < v["start"] or (block + 1) * HUGE > v["end"]:
            continue
        blocks = per_vma.setdefault(id(v), (v, {}))[1]
        blocks.setdefault((f[1], block), []).append(i)
    out = set()
    for v, blocks in per_vma.values():
        if not v.get("huge_max"):
            # Only the ranges faulted after the last view.
            blocks = {k: lst for k, lst in blocks.items()
                      if any(i not in seen_small for i in lst)}
        alone = sorted(lst[0] for lst in blocks.values() if len(lst) == 1)
        alone.sort(key=lambda i: rec.faults[i][0])
        if not v.get("huge_max"):
            # smaps never looked after them: the peak resident memory,
            # where nearly every 2 MiB range faulted took one fault.
            if len(alone) >= 0.9 * len(blocks) and \
                    peak_rss >= 0.9 * len(alone) * HUGE:
                out.update(alone)
            continue
        seen = v.get("smaps_ns")
        before = [i for i in alone if seen is None or
                  rec.faults[i][0] <= seen]
        frac = 1.0
        if before:
            frac = min(1.0, v["huge_max"] / (len(before) * HUGE))
        # A fault in flight when smaps looked (a huge page takes a while
        # to clear) is not mapped yet: most of them huge is all of them.
        if frac >= 0.75:
            frac = 1.0
        out.update(alone[:round(frac * len(alone))])
    return out


def classify(rec, vma_of, present=None, peak_rss=None):
    """Each fault's kind and bytes (its period counted): lists in the
    order of rec.faults.  vma_of: each fault's VMA (a sighting) or None;
    present: pid -> the pages present when the survey attached;
    peak_rss: the largest process's peak resident bytes, where known."""
    n = len(rec.faults)
    codes = rec.codes if len(rec.codes) == n else [None] * n
    order = sorted(range(n), key=lambda i: rec.faults[i][0])
    anc = Ancestry(rec.forks, present)
    kinds = [None] * n
    for i in order:
        t, pid, _tid, addr, _per = rec.faults[i]
        v = vma_of[i]
        code = codes[i]
        page = addr // PAGE
        if code is not None:
            shared = v is not None and (v.get("perms") or "")[3:4] == "s"
            kinds[i] = from_code(code, shared)
        else:
            kinds[i] = REFAULT if anc.seen(pid, page, t) else USER
        anc.add(pid, page, t)
    majors, unmatched = match_majors(rec, order)
    for i in majors:
        kinds[i] = MAJOR
    for i in huge_faults(rec, order, vma_of, kinds, peak_rss):
        kinds[i] = HUGE_KIND
    sizes = [PAGE] * n
    for i in range(n):
        v = vma_of[i]
        hp = hugetlb_page(v) if v is not None else None
        if hp:
            kinds[i] = HUGE_KIND
            sizes[i] = hp
        elif kinds[i] == HUGE_KIND:
            sizes[i] = HUGE
    nbytes = [sizes[i] * rec.faults[i][4] for i in range(n)]
    return kinds, nbytes, unmatched


def pick_source(perf, tmp, wanted="auto", period=1):
    """The source to record with: the tracepoints where perf may read
    them (by the privileges, and a probe where no tracefs is found),
    else the page-faults event.  wanted:
    "auto", or a source asked for (the tracepoints refused is an error:
    a RuntimeError with its line).  A tracepoint event is recorded each
    time, whatever its period: sampling (period above 1) takes the
    page-faults event."""
    if wanted == PAGE_FAULTS or (wanted == "auto" and period > 1):
        return PAGE_FAULTS
    if period > 1:
        raise RuntimeError("--events=tracepoints and -c %d: perf records "
                           "every tracepoint event, one in %d cannot be "
                           "sampled (-c goes with --events=page-faults)" %
                           (period, period))
    why = may_trace()
    ok = why is None
    if ok and not any(os.path.exists(os.path.join(d, TRACE_ID))
                      for d in TRACEFS):
        # No tracefs mounted where it is looked for: perf itself can
        # tell (it mounts it where it may).
        ok, why = probe(perf, tmp)
    if ok:
        return TRACEPOINTS
    if wanted == TRACEPOINTS:
        line = next((x.strip() for x in why.splitlines() if x.strip()), "")
        raise RuntimeError("--events=tracepoints: perf cannot record the "
                           "exceptions tracepoints here (root, CAP_PERFMON "
                           "or perf_event_paranoid -1 can)%s" %
                           (": " + line if line else ""))
    return PAGE_FAULTS


TRACEFS = ("/sys/kernel/tracing", "/sys/kernel/debug/tracing")
TRACE_ID = "events/exceptions/page_fault_user/id"
CAP_SYS_ADMIN = 21
CAP_PERFMON = 38


def may_trace(status=None, paranoid=None, euid=None):
    """None where this process may record tracepoints (root, CAP_PERFMON
    or CAP_SYS_ADMIN, or perf_event_paranoid -1), else why not."""
    euid = os.geteuid() if euid is None else euid
    if euid == 0:
        return None
    if paranoid is None:
        try:
            with open("/proc/sys/kernel/perf_event_paranoid") as f:
                paranoid = int(f.read())
        except (OSError, ValueError):
            paranoid = 2
    if paranoid <= -1:
        return None
    if status is None:
        try:
            with open("/proc/self/status") as f:
                status = f.read()
        except OSError:
            status = ""
    caps = 0
    for line in status.splitlines():
        if line.startswith("CapEff:"):
            try:
                caps = int(line.split()[1], 16)
            except (IndexError, ValueError):
                pass
    if caps & (1 << CAP_PERFMON) or caps & (1 << CAP_SYS_ADMIN):
        return None
    return "perf_event_paranoid is %d and neither root nor CAP_PERFMON" % \
        paranoid


def probe(perf, tmp):
    """Whether perf records the tracepoints here: (True, "") or (False,
    perf's complaint), from a recording of true(1)."""
    data = os.path.join(tmp, "probe.data")
    cmd = [perf, "record", "-q", "-o", data] + events(TRACEPOINTS)[:4] + \
        ["--", "true"]
    try:
        res = subprocess.run(cmd, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, errors="replace",
                             timeout=60)
        return res.returncode == 0, res.stderr
    except (OSError, subprocess.SubprocessError) as e:
        return False, str(e)
    finally:
        try:
            os.unlink(data)
        except OSError:
            pass
