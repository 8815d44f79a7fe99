# SPDX-License-Identifier: GPL-2.0-or-later
# pft_survey.perfscript - perf script's text (the faults, mappings, names,
# tasks and lost samples of a recording) and perf report --stats' count
# of the samples the kernel dropped, read into a Record.
#
# Copyright (C) 2026 The libfaultgen authors

import re

# "COMM PID/TID TIME: REST"; a thread name may hold spaces, so the name
# is everything before the last "PID/TID TIME:" that the line holds.
HEAD = re.compile(r"^\s*(?P<comm>.*?)\s+(?P<pid>-?\d+)/(?P<tid>-?\d+)\s+"
                  r"(?P<time>\d+\.\d+):\s+(?P<rest>.*)$")
SAMPLE = re.compile(r"^(?:(?P<period>\d+)\s+)?(?P<event>[\w:-]+):\s+"
                    r"(?P<addr>[0-9a-fA-F]+)\s*$")
MMAP = re.compile(r"^PERF_RECORD_MMAP2?\s+(?P<pid>-?\d+)/(?P<tid>-?\d+):\s+"
                  r"\[0x(?P<start>[0-9a-f]+)\(0x(?P<len>[0-9a-f]+)\)\s+@\s+"
                  r"(?P<pgoff>\S+)(?:\s+(?P<maj>[0-9a-f]+):(?P<min>[0-9a-f]+)"
                  r"\s+(?P<ino>\d+)\s+\d+)?\]:"
                  r"\s+(?P<prot>\S+)\s+(?P<path>.*)$")
# The exceptions tracepoints (root, or perf_event_paranoid -1): each
# fault exception's address and x86 error code, user or kernel mode.
TRACE = re.compile(r"^(?:(?P<period>\d+)\s+)?exceptions:page_fault_"
                   r"(?P<mode>user|kernel):\s+address=0x(?P<addr>[0-9a-f]+)"
                   r"\s.*?error_code=0x(?P<code>[0-9a-f]+)")
# A madvise(2) call (with the tracepoints, where the kernel has syscall
# tracepoints): its range and advice.
MADVISE = re.compile(r"^(?:(?P<period>\d+)\s+)?syscalls:sys_enter_madvise:"
                     r"\s+start:\s+0x(?P<start>[0-9a-f]+),\s+len_in:\s+"
                     r"0x(?P<len>[0-9a-f]+),\s+behavior:\s+"
                     r"0x(?P<advice>[0-9a-f]+)")
# The other mapping calls, recorded where madvise is: mprotect(2)'s range
# and protection, munmap(2)'s range, mmap(2)'s address (a hint, 0 for
# none, unless MAP_FIXED), length, protection, flags, fd (-1 printed as
# 2**64 - 1) and offset.
MPROTECT = re.compile(r"^(?:(?P<period>\d+)\s+)?syscalls:sys_enter_mprotect:"
                      r"\s+start:\s+0x(?P<start>[0-9a-f]+),\s+len:\s+"
                      r"0x(?P<len>[0-9a-f]+),\s+prot:\s+"
                      r"0x(?P<prot>[0-9a-f]+)")
MUNMAP = re.compile(r"^(?:(?P<period>\d+)\s+)?syscalls:sys_enter_munmap:"
                    r"\s+addr:\s+0x(?P<start>[0-9a-f]+),\s+len:\s+"
                    r"0x(?P<len>[0-9a-f]+)")
MMAP_CALL = re.compile(r"^(?:(?P<period>\d+)\s+)?syscalls:sys_enter_mmap:"
                       r"\s+addr:\s+0x(?P<start>[0-9a-f]+),\s+len:\s+"
                       r"0x(?P<len>[0-9a-f]+),\s+prot:\s+"
                       r"0x(?P<prot>[0-9a-f]+),\s+flags:\s+"
                       r"0x(?P<flags>[0-9a-f]+),\s+fd:\s+"
                       r"0x(?P<fd>[0-9a-f]+),\s+off:\s+"
                       r"0x(?P<off>[0-9a-f]+)")
# mmap_lock's tracepoints (with the tracepoints, where the kernel has
# them): an attempt to take it, and what came of it (a trylock that
# failed: success=false).
LOCK = re.compile(r"^(?:(?P<period>\d+)\s+)?mmap_lock:mmap_lock_"
                  r"(?P<what>start_locking|acquire_returned):\s+mm=\S+\s+"
                  r"memcg_id=\d+\s+write=(?P<write>true|false)"
                  r"(?:\s+success=(?P<success>true|false))?")
# Addresses from here up are the kernel's own (x86-64, 4 or 5 levels).
KERNEL_SPACE = 1 << 63
COMM = re.compile(r"^PERF_RECORD_COMM(?P<exec> exec)?:\s+(?P<name>.*):"
                  r"(?P<pid>-?\d+)/(?P<tid>-?\d+)$")
# perf script --show-lost-events: samples the ring buffer had no room for
# (PERF_RECORD_LOST, one per overflow); a perf that also writes a total
# at the end (PERF_RECORD_LOST_SAMPLES) counts the same samples again.
LOST = re.compile(r"^PERF_RECORD_LOST(?P<total>_SAMPLES)?:?\s+lost\s+"
                  r"(?P<n>\d+)")
# perf report --stats: after "Aggregated stats:" (records of each kind),
# a section per event ("page-faults stats:") whose LOST_SAMPLES line is
# the sum of the totals perf record read from the kernel at the end
# (PERF_FORMAT_LOST: Linux 6.0 and perf 6.1 on).  Those count every
# sample the kernel dropped, also those dropped after the last
# PERF_RECORD_LOST (a buffer still full when the program ended: the
# kernel writes the record only with the next sample that fits).  perf
# script does not print them.
STATS_EVENT = re.compile(r"^(?P<name>\S.*) stats:$")
STATS_LOST = re.compile(r"^\s*LOST_SAMPLES events:\s+(?P<n>\d+)\s*$")
TASK = re.compile(r"^PERF_RECORD_(?P<kind>FORK|EXIT)\((?P<pid>-?\d+):"
                  r"(?P<tid>-?\d+)\):\((?P<ppid>-?\d+):(?P<ptid>-?\d+)\)")


def parse_time_ns(text):
    sec, _, frac = text.partition(".")
    return int(sec) * 1000000000 + int((frac + "000000000")[:9])


class Record:
    """What perf script showed: the faults, mappings, names and tasks."""

    def __init__(self):
        self.faults = []        # (time_ns, pid, tid, addr, period)
        # The x86 error code of each fault (in the order of faults), or
        # None where the page-faults event recorded it (no code).
        self.codes = []
        self.majors = []        # (time_ns, pid, tid, addr, period)
        self.mmaps = []         # (time_ns, pid, start, end, prot, path)
        # (dev, ino, pgoff) of each MMAP record, in the order of mmaps:
        # the object mapped (dev "0:0" for anonymous memory).
        self.mmap_files = []
        self.kernel_addr_faults = 0  # kernel-mode faults on its own memory
        self.names = {}         # tid -> the last name seen
        self.execs = {}         # pid -> time of its last exec
        self.forks = []         # (time_ns, pid, tid, ppid, ptid)
        self.exits = []         # (time_ns, pid, tid)
        self.madvises = []      # (time_ns, pid, start, length, advice, tid)
        self.madvise_recorded = False
        # The other mapping calls, each (time_ns, pid, start, length,
        # argument, tid): mprotect's protection, munmap's None, mmap's
        # (prot, flags, fd, offset) (its start the address asked for).
        self.mprotects = []
        self.munmaps = []
        self.mmap_calls = []
        # The mapping calls perf recorded ("madvise", "mprotect",
        # "munmap", "mmap"): none without the tracepoints.
        self.calls_recorded = ()
        # mmap_lock per thread: tid -> {pid, read, write, trylock_failed,
        # fallbacks} (successful acquisitions; the read trylocks that
        # failed; the read acquisitions that followed a user fault).
        self.lock_threads = {}
        # (time_ns, tid, addr) of the user faults that fell back.
        self.fell_back = set()
        # tid -> the user fault that was the thread's last event, until
        # an acquisition (or another event) follows it.
        self.pending_fault = {}
        self.locks_recorded = False
        self.lost = 0           # lines not understood
        self.lost_overflows = 0  # samples dropped, from PERF_RECORD_LOST
        self.lost_totals = 0    # the same, from PERF_RECORD_LOST_SAMPLES
        self.lines = 0
        self.source = None      # kinds.TRACEPOINTS or kinds.PAGE_FAULTS

    def keep(self, pred):
        """Keeps the faults (and their codes) and major faults for which
        pred(fault) holds; returns the faults left out, period counted."""
        kept = [(f, c) for f, c in zip(self.faults, self.codes) if pred(f)]
        dropped = sum(f[4] for f in self.faults) - sum(f[4] for f, _ in kept)
        self.faults = [f for f, _ in kept]
        self.codes = [c for _, c in kept]
        self.majors = [f for f in self.majors if pred(f)]
        return dropped

    @property
    def lost_samples(self):
        """The samples perf's ring buffer had no room for."""
        return max(self.lost_overflows, self.lost_totals)


def add_fault(rec, m, t, tp):
    """An exceptions tracepoint's line: a fault with its error code (or
    a count of kernel-mode faults on the kernel's own memory)."""
    addr = int(tp.group("addr"), 16)
    tid = int(m.group("tid"))
    if addr >= KERNEL_SPACE:
        rec.kernel_addr_faults += 1
        rec.pending_fault.pop(tid, None)
        return
    rec.faults.append((t, int(m.group("pid")), tid, addr,
                       int(tp.group("period") or 1)))
    rec.codes.append(int(tp.group("code"), 16))
    if tp.group("mode") == "user":
        rec.pending_fault[tid] = (t, tid, addr)
    else:
        rec.pending_fault.pop(tid, None)
    if tid not in rec.names and m.group("comm"):
        rec.names[tid] = m.group("comm")


def add_lock(rec, m, t, lk):
    """A mmap_lock tracepoint's line.  A successful read acquisition
    whose thread's last event was a user fault is that fault's fallback
    (an attempt and a failed trylock before it are part of the same
    acquisition, not other events)."""
    if lk.group("what") == "start_locking":
        return
    tid = int(m.group("tid"))
    e = rec.lock_threads.setdefault(tid, {
        "pid": int(m.group("pid")), "read": 0, "write": 0,
        "trylock_failed": 0, "fallbacks": 0})
    write = lk.group("write") == "true"
    if lk.group("success") != "true":
        if not write:
            e["trylock_failed"] += 1
        return
    fault = rec.pending_fault.pop(tid, None)
    if write:
        e["write"] += 1
        return
    e["read"] += 1
    if fault:
        e["fallbacks"] += 1
        rec.fell_back.add(fault)


def add_sample(rec, m, t, s):
    """A page-faults (or major-faults) event's line: a fault without its
    code."""
    tid = int(m.group("tid"))
    f = (t, int(m.group("pid")), tid, int(s.group("addr"), 16),
         int(s.group("period") or 1))
    if s.group("event") == "major-faults":
        rec.majors.append(f)
        return
    rec.faults.append(f)
    rec.codes.append(None)
    if tid not in rec.names and m.group("comm"):
        rec.names[tid] = m.group("comm")


def add_mmap(rec, t, mm):
    """A PERF_RECORD_MMAP(2): the range mapped and the object."""
    start = int(mm.group("start"), 16)
    rec.mmaps.append((t, int(mm.group("pid")), start,
                      start + int(mm.group("len"), 16),
                      mm.group("prot"), mm.group("path").strip()))
    try:
        pgoff = int(mm.group("pgoff"), 0)
    except ValueError:
        pgoff = 0
    # The device as /proc/PID/maps writes it ("fe:00"): a file only a
    # record saw is the object of the same file a snapshot saw.
    rec.mmap_files.append((
        "%02x:%02x" % (int(mm.group("maj") or "0", 16),
                       int(mm.group("min") or "0", 16)),
        int(mm.group("ino") or 0), pgoff))


def signed64(x):
    return x - (1 << 64) if x >= 1 << 63 else x


def add_call(rec, m, t, rest):
    """A mapping call's line (madvise, mprotect, munmap or mmap) into its
    list; whether it was one.  An event after a fault: the fault did not
    fall back (add_lock)."""
    for regexp, calls in ((MADVISE, rec.madvises), (MPROTECT, rec.mprotects),
                          (MUNMAP, rec.munmaps),
                          (MMAP_CALL, rec.mmap_calls)):
        c = regexp.match(rest)
        if c:
            break
    else:
        return False
    tid = int(m.group("tid"))
    rec.pending_fault.pop(tid, None)
    if regexp is MADVISE:
        arg = int(c.group("advice"), 16)
    elif regexp is MPROTECT:
        arg = int(c.group("prot"), 16)
    elif regexp is MMAP_CALL:
        arg = (int(c.group("prot"), 16), int(c.group("flags"), 16),
               signed64(int(c.group("fd"), 16)), int(c.group("off"), 16))
    else:
        arg = None
    calls.append((t, int(m.group("pid")), int(c.group("start"), 16),
                  int(c.group("len"), 16), arg, tid))
    return True


def add_record(rec, t, rest):
    """A PERF_RECORD_ line of a name, a task or lost samples; whether it
    was one of those, or another record (not needed)."""
    c = COMM.match(rest)
    if c:
        rec.names[int(c.group("tid"))] = c.group("name")
        if c.group("exec"):
            rec.execs[int(c.group("pid"))] = t
        return True
    k = TASK.match(rest)
    if k:
        if k.group("kind") == "FORK":
            rec.forks.append((t, int(k.group("pid")), int(k.group("tid")),
                              int(k.group("ppid")), int(k.group("ptid"))))
        else:
            rec.exits.append((t, int(k.group("pid")), int(k.group("tid"))))
        return True
    lo = LOST.match(rest)
    if lo:
        if lo.group("total"):
            rec.lost_totals += int(lo.group("n"))
        else:
            rec.lost_overflows += int(lo.group("n"))
        return True
    return rest.startswith("PERF_RECORD")


def add_line(rec, m):
    """One line of perf script's that began as HEAD says (m) into rec;
    whether it was understood."""
    t = parse_time_ns(m.group("time"))
    rest = m.group("rest")
    tp = TRACE.match(rest)
    if tp:
        add_fault(rec, m, t, tp)
        return True
    lk = LOCK.match(rest)
    if lk:
        add_lock(rec, m, t, lk)
        return True
    if "syscalls:sys_enter_" in rest and add_call(rec, m, t, rest):
        return True
    s = SAMPLE.match(rest)
    if s and not rest.startswith("PERF_RECORD"):
        add_sample(rec, m, t, s)
        return True
    mm = MMAP.match(rest)
    if mm:
        add_mmap(rec, t, mm)
        return True
    return add_record(rec, t, rest)


def parse_script(lines, rec=None):
    """Reads perf script's text (fields comm,pid,tid,time,period,event,
    addr and the mmap and task events) into a Record."""
    rec = rec or Record()
    for line in lines:
        line = line.rstrip("\n")
        if not line.strip():
            continue
        rec.lines += 1
        m = HEAD.match(line)
        if not m or not add_line(rec, m):
            rec.lost += 1
    return rec


def parse_stats(lines):
    """The samples the kernel dropped, from perf report --stats: the sum
    of the LOST_SAMPLES lines of the per-event sections, or 0."""
    lost, in_event = 0, False
    for line in lines:
        line = line.rstrip("\n")
        h = STATS_EVENT.match(line)
        if h:
            in_event = h.group("name") != "Aggregated"
            continue
        m = STATS_LOST.match(line)
        if m and in_event:
            lost += int(m.group("n"))
    return lost
