# SPDX-License-Identifier: GPL-2.0-or-later
# pft_survey.verdict - the pattern a survey's facts show, and the pft
# command line that generates it, quoted for a POSIX shell and checked
# by pft itself.
#
# Copyright (C) 2026 The libfaultgen authors
#
# The facts are the report's objects (pft_survey.objects), weighed by
# bytes: a huge page's fault counts as its 2 MiB, a 4 KiB fault as 4 KiB.
# A pattern is named only from what was recorded: where the recording
# cannot tell two kinds apart (no tracepoints), the verdict says so
# rather than guess.

import os
import re
import shlex
import subprocess

from . import kinds as K

MiB = 1 << 20
TOP = 3
# The faults an execve's copy of its arguments and environment takes
# through get_user_pages: about 220 measured here; an upper bound.
EXEC_GUP = 300


def size_arg(n):
    """A size as pft -m reads it, rounded to the MiB (at least 1M)."""
    mib = max(1, round(n / MiB))
    if mib % 1024 == 0:
        return "%dG" % (mib // 1024)
    return "%dM" % mib


def human(n):
    if n >= 1 << 30 and n % (1 << 30) == 0:
        return "%d GiB" % (n >> 30)
    if n >= MiB:
        return "%.0f MiB" % (n / MiB) if n % MiB == 0 else \
            "%.1f MiB" % (n / MiB)
    return "%d KiB" % (n >> 10)


def quote(args):
    """A command line a POSIX shell reads back as args, on one line of
    printable characters (shell_word)."""
    return " ".join(shell_word(a) for a in args)


def shell_word(arg):
    """arg as a POSIX shell reads it back, in printable characters alone
    (a terminal acts on none of them, the line stays one line): quoted
    by shlex, and each run of other characters (control characters, a
    name's bytes that are not UTF-8, kept as surrogate escapes) given as
    the octal escapes of its bytes to printf(1) in a command
    substitution.  That strips trailing newlines: a run that ends with
    one takes the character after it along; an argument that ends with
    a newline keeps it as a quoted newline, the one case on two lines."""
    words = []
    i = 0
    while i < len(arg):
        j = i
        while j < len(arg) and arg[j].isprintable():
            j += 1
        if j > i:
            words.append(shlex.quote(arg[i:j]))
        if j == len(arg):
            break
        k = j
        while k < len(arg) and not arg[k].isprintable():
            k += 1
        if arg[k - 1] == "\n":
            if k == len(arg):
                words.append(shlex.quote(arg[j:k]))
                break
            k += 1
        words.append("\"$(printf '%s')\"" % "".join(
            "\\%03o" % b for b in os.fsencode(arg[j:k])))
        i = k
    return "".join(words) or "''"


def cpus_here():
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def backing_args(o):
    """pft's options for the memory of an object (its backing, path and
    sharing): memfd, SysV, hugetlb, a written file, shared anonymous
    memory; none for private anonymous memory."""
    kind, path = o.get("backing"), o.get("path") or ""
    share = ["--share"] if o.get("shared") and kind != "SysV shm" else []
    if kind == "hugetlb":
        return ["--backing=hugetlb"] + share
    if kind == "memfd/shmem":
        return ["--backing=memfd"] + share
    if kind == "SysV shm":
        return ["-S"]
    if kind == "shmem" and o.get("shared"):
        return ["--share"]
    if kind == "file" and o.get("writable") and path.startswith("/"):
        if path.endswith(" (deleted)"):
            path = path[:-len(" (deleted)")]
        d = os.path.dirname(path)
        if d:
            return ["--backing=file:" + d] + share
    return []


def kind_bytes(o, *names):
    return sum((o["kinds"].get(k) or {}).get("bytes") or 0 for k in names)


def workers_of(o, share=0.01, names=None):
    """The threads that took at least `share` of an object's bytes (of
    the kinds named, or all)."""
    def b(t):
        if names is None:
            return t["bytes"]
        return sum(t["kinds"].get(k, 0) for k in names) * K.PAGE
    total = sum(b(t) for t in o["top_threads"])
    return [t for t in o["top_threads"] if total and b(t) >= total * share]


def thread_label(t, all_threads):
    """A thread's name, with its tid where another thread has the name."""
    if sum(1 for x in all_threads if x["name"] == t["name"]) > 1:
        return "%s %d" % (t["name"], t["tid"])
    return t["name"]


def names_of(ws, all_threads=None, most=4):
    text = ", ".join(thread_label(t, all_threads or ws) for t in ws[:most])
    return text + (", ..." if len(ws) > most else "")


def describe(o):
    what = "a %s %s%s" % (human(o["size"]), o["backing"],
                          " " + o["path"] if o["path"] and o["backing"]
                          not in ("anonymous", "heap", "stack") else "")
    n = o.get("vmas", 1)
    return what + (" VMA" if n == 1 else " object (%d VMAs)" % n)


def program(doc):
    cmd = doc.get("command") or []
    return os.path.basename(cmd[0]) if cmd else ""


def jvm_options(doc):
    """--jdk and --gc of a JVM command with -XX:+AlwaysPreTouch, or None."""
    cmd = doc.get("command") or []
    if program(doc) != "java" or "-XX:+AlwaysPreTouch" not in cmd:
        return None
    gc = "g1"
    if "-XX:+UseParallelGC" in cmd:
        gc = "parallel"
    elif "-XX:+UseSerialGC" in cmd or "-XX:+UseEpsilonGC" in cmd:
        gc = "none"
    try:
        path = os.path.realpath(cmd[0] if "/" in cmd[0] else
                                (shutil_which(cmd[0]) or cmd[0]))
    except OSError:
        path = cmd[0]
    m = re.search(r"(?:jdk|java|openjdk)-?(\d+)", path)
    out = ["--gc=" + gc]
    if m:
        out.insert(0, "--jdk=" + m.group(1))
    return out


def shutil_which(name):
    import shutil
    return shutil.which(name)


def pop_beyond(doc):
    """The faults the kernel counted without an event beyond what the
    execs took copying their arguments: an exec'd thread's own count,
    up to EXEC_GUP (that bound where it was not seen)."""
    ks = {t["tid"]: t["kernel_side_faults"]
          for t in doc.get("kernel_side_threads") or []}
    return (doc.get("kernel_minus_perf") or 0) - sum(
        min(EXEC_GUP, ks.get(p, EXEC_GUP)) for p in doc.get("exec_pids") or [])


def unseen_workers(doc, big, ws):
    """The workers of a private populated VMA's process, with those that
    ended between two snapshots: the process's faults without an event
    (its counters keep its ended threads') beyond its seen threads', in
    shares of its seen workers' mean, no more than its threads that
    came and went unseen (task records).  0 where none were seen."""
    if not big or big.get("shared"):
        return 0
    pid = big["pid"]
    execd = set(doc.get("exec_pids") or [])
    mine = [t for t in ws if t.get("pid") == pid and t["tid"] not in execd]
    if not mine:
        return 0
    seen = {t["tid"]: t["kernel_side_faults"]
            for t in doc.get("kernel_side_threads") or ()
            if t.get("pid") == pid}
    side = doc.get("kernel_side_processes") or {}
    rest = side.get(pid, side.get(str(pid), 0)) - sum(seen.values())
    share = sum(t["kernel_side_faults"] for t in mine) / len(mine)
    unseen = [tid for p, tid in doc.get("short_threads") or ()
              if p == pid and tid not in seen]
    return len(mine) + min(len(unseen), max(0, int(rest / share + 0.5)))


def populate_callers(doc, big):
    """The threads of a private populated VMA's process that called
    MADV_POPULATE_* on part of it (recorded with the tracepoints): its
    workers, whatever their counters were read to hold."""
    calls = doc.get("populate_calls")
    if not calls or not big or big.get("shared"):
        return set()
    lo, hi = int(big["start"], 16), int(big["end"], 16)
    return {c["tid"] for c in calls
            if c["pid"] == big["pid"] and
            int(c["start"], 16) < hi and lo < int(c["start"], 16) +
            c["length"]}


def calling_workers(doc, big, ws):
    """The workers that called MADV_POPULATE_* on the VMA (recorded with
    the tracepoints) beyond those whose counters showed it (ws), named
    as their fault events were."""
    names = {t["tid"]: t.get("name") for t in doc.get("threads") or ()}
    seen = {t["tid"] for t in ws}
    return [{"tid": tid, "pid": big["pid"], "name": names.get(tid) or "?",
             "kernel_side_faults": 0}
            for tid in sorted(populate_callers(doc, big) - seen)]


def populate(doc):
    """The populate facts: a VMA whose resident memory grew far beyond
    what its fault events brought in, while the kernel counted faults
    that raised no event; or most of the kernel's count such faults.
    Returns (VMA or None, workers, the count of workers) or None."""
    hidden = doc.get("kernel_minus_perf") or 0
    kfaults = (doc.get("kernel") or {}).get("faults") or 0
    beyond = pop_beyond(doc)
    execd = set(doc.get("exec_pids") or [])
    # The processes whose threads took faults without events, beyond an
    # exec's: where a populated VMA can be.
    takers = {t.get("pid") for t in doc.get("kernel_side_threads") or []
              if t["kernel_side_faults"] -
              (EXEC_GUP if t["tid"] in execd else 0) > 0}
    # And those whose threads did so and ended (the process's counters).
    takers |= {p for p, n in (doc.get("kernel_side_processes") or {}).items()
               if n - (EXEC_GUP if p in execd else 0) > 0}
    big = None
    for r in doc.get("resident") or []:
        unexplained = r["grown"] - r.get("event_bytes", 0)
        if unexplained < MiB or r.get("event_bytes", 0) >= r["grown"] / 2:
            continue
        # A VMA that filled after the last snapshot (r["unseen"]): its
        # threads' counters were not seen either.
        if None not in takers and takers and r["pid"] not in takers and \
                not r.get("unseen"):
            continue
        if beyond * K.PAGE >= unexplained / 4 or \
                (r.get("huge_bytes") and beyond * K.HUGE >= unexplained / 4):
            big = dict(r, unexplained=unexplained)
            break
    if big is None and not (kfaults > 0 and hidden > kfaults / 2 and
                            hidden >= 512):
        return None
    ks = doc.get("kernel_side_threads") or []
    # A main thread that exec'd took its exec's argument copy (up to
    # EXEC_GUP faults) in the kernel: not a populate worker for that.
    ws = [t for t in ks if t["kernel_side_faults"] -
          (EXEC_GUP if t["tid"] in execd else 0) > hidden / 100]
    if big and not big.get("shared"):
        # A private VMA: populated by its own process's threads.
        ws = [t for t in ws if t.get("pid") in (None, big["pid"])]
    named = doc.get("threads_by_name") or {}
    unseen = unseen_workers(doc, big, ws)
    ws = ws + calling_workers(doc, big, ws)
    n = max([len(ws), unseen] +
            [named.get(t["name"], 0) for t in ws if t["tid"] not in execd])
    short = doc.get("short_threads_by_name") or {}
    if not [t for t in ws if t["tid"] not in execd] and short:
        # No worker's counters seen: the threads that came and went
        # with few faults of their own (QEMU's touch_pages).
        name, count = max(short.items(), key=lambda x: (x[1], x[0]))
        if count > n:
            ws = [{"tid": 0, "name": name, "kernel_side_faults": 0}]
            n = count
    return big, ws, n


def populate_size(doc, big, ws, hidden):
    """The bytes populated and where, said in words."""
    if not big:
        size = hidden * K.PAGE
        return size, " (about %s in 4 KiB pages; no VMA was seen " \
            "resident)" % human(size)
    # Populating fills a range whole: the VMA, where smaps saw most
    # of it resident before the program ended.
    # Else what the faults without events stand for: the workers'
    # own, or all beyond the execs' if more (a page each, a huge
    # page each where huge pages came).
    took = sum(t["kernel_side_faults"] for t in ws
               if t["tid"] not in set(doc.get("exec_pids") or []))
    est = max(pop_beyond(doc), took) * \
        (K.HUGE if big.get("huge_bytes") else K.PAGE)
    size = min(big["size"], max(big["unexplained"], est))
    # Most of the VMA: the VMA (an estimate short by the faults the
    # execs of the program's helpers took is not a size).
    if big["rss"] >= big["size"] / 2 or size >= big["size"] * 0.9:
        size = big["size"]
    where = " into one %s %s VMA (resident %s%s, %s of it with no " \
        "fault event)" % (human(big["size"]), big["backing"],
                          human(big["rss"]),
                          ", %s in huge pages" % human(big["huge_bytes"])
                          if big.get("huge_bytes") else "",
                          human(big["unexplained"]))
    return size, where


def populate_args(doc, big, ws, n, size, cpus):
    """The pattern (populate or qemu-prealloc), pft's arguments for it,
    and whether the workers are processes of their own."""
    args = ["pft"]
    pattern = "populate"
    # QEMU, or what QEMU does to guest RAM: MADV_DONTFORK and
    # MADV_MERGEABLE (smaps VmFlags dc, mg) beside the populating.
    flags = set((big or {}).get("flags") or ())
    if program(doc).startswith("qemu-system") or {"dc", "mg"} <= flags:
        pattern = "qemu-prealloc"
        args += ["--pattern=qemu-prealloc"]
    # Workers in processes of their own, each its process's one: -n.
    pids = {t.get("pid") for t in ws}
    procs = len(pids) > 1 and None not in pids and len(pids) == len(ws)
    args += ["-n" if procs else "-t", str(n), "-m", size_arg(size)]
    if pattern == "populate":
        args.append("--touch=populate")
        if big and big.get("huge_bytes"):
            args.append("--thp=always")
    if big:
        args += backing_args(big)
    if n > cpus:
        args.append("--oversubscribe")
    return pattern, args, procs and len(pids)


def untold_bytes(doc, ro):
    """The bytes of a shared object's faults without an event: its
    processes' faults without one (a page each), no more than its
    growth without events (a read fault maps a shmem page's neighbours
    too: growth is no count).  ro: the object's resident_objects entry
    (grown, event_bytes, pids)."""
    side = doc.get("kernel_side_processes") or {}
    # Keys are process ids, strings once the survey went through JSON.
    faults = sum(side.get(p, side.get(str(p), 0)) for p in ro["pids"])
    return min(faults * K.PAGE,
               max(0, ro["grown"] - ro.get("event_bytes", 0)))


def untold_shared_verdict(doc, big, ws, cpus):
    """Faults without an event, without the tracepoints, into a shared
    object of processes: kernel-mode faults or get_user_pages, not told
    apart (PostgreSQL's backends pread(2) into their shared buffers).
    The shared object of processes is named, its faults said to be
    untold; pft's touches stand for them, -m the object's growth in all
    its processes (the pages each mapped).  (pattern, line, args)."""
    hidden = doc.get("kernel_minus_perf") or 0
    ro = (doc.get("resident_objects") or {}).get(big.get("object")) or {
        "grown": big["grown"], "event_bytes": big.get("event_bytes", 0),
        "pids": [big["pid"]]}
    pids = sorted({t["pid"] for t in ws})
    doc["shared_untold"] = {"object": big.get("object"),
                            "grown": ro["grown"],
                            "bytes_without_events":
                            max(0, ro["grown"] - ro["event_bytes"])}
    # Its faults: the events on it and the faults without an event of
    # its processes (untold_bytes).
    o = next((o for o in doc.get("objects") or ()
              if o["id"] == big.get("object")), {})
    size = (o.get("bytes") or 0) + untold_bytes(doc, ro)
    args = ["pft", "-n", str(len(pids)), "-m", size_arg(size)]
    args += backing_args(big)
    if len(pids) > cpus:
        args.append("--oversubscribe")
    line = "%d faults the kernel counted raised no fault event, taken by " \
        "%d thread%s (%s) of %d processes, while a %s %s%s object grew " \
        "%s resident in its %d processes (%s of it with no fault event): " \
        "one shared object of processes, its faults kernel-mode (read(2), " \
        "copy_to_user into it) or get_user_pages, not told apart without " \
        "the tracepoints (pft's touches, made in user mode, stand for " \
        "them)" % (hidden, len(ws), "" if len(ws) == 1 else "s",
                   names_of(ws), len(pids), human(big["size"]),
                   big["backing"], " " + big["path"] if big.get("path")
                   else "", human(ro["grown"]), len(ro["pids"]),
                   human(doc["shared_untold"]["bytes_without_events"]))
    return "shared-object", line, args


def populate_verdict(doc, pop, cpus):
    big, ws, n = pop
    pids = {t.get("pid") for t in ws}
    if doc.get("source") != K.TRACEPOINTS and big and big.get("shared") \
            and len(pids) > 1 and None not in pids:
        return untold_shared_verdict(doc, big, ws, cpus)
    doc["populated"] = {
        "workers": max(1, n),
        "bytes_without_events": big["unexplained"] if big else 0,
        "resident": big["rss"] if big else 0,
        "huge_bytes": (big.get("huge_bytes") or 0) if big else 0}
    hidden = doc.get("kernel_minus_perf") or 0
    untold = doc.get("source") != K.TRACEPOINTS
    what = "get_user_pages or kernel-mode faults (not told apart without " \
        "the tracepoints)" if untold else "get_user_pages"
    names = names_of(ws)
    if n > len(ws):
        names += "; %d threads of that name ran" % n
    size, where = populate_size(doc, big, ws, hidden)
    n = max(1, n)
    pattern, args, procs = populate_args(doc, big, ws, n, size, cpus)
    line = "%d faults the kernel counted raised no fault event%s, taken " \
        "by %d thread%s (%s)%s: the %s pattern (%s: MADV_POPULATE_WRITE, " \
        "mlock, MAP_POPULATE)" % (hidden, where, n, "" if n == 1 else "s",
                                  names or "?", " of %d processes" %
                                  procs if procs else "", pattern, what)
    return pattern, line + workers_unknown(doc, big, n, hidden), args


def workers_unknown(doc, big, n, hidden):
    """What the worker count cannot hold, said: the faults without an
    event that no reading of a process's counters held (taken after the
    last one), where no MADV_POPULATE_* call recorded its thread."""
    late = doc.get("kernel_side_after_last_readings") or 0
    if late <= max(8, hidden / 100) or populate_callers(doc, big):
        return ""
    doc["populated"]["faults_after_last_readings"] = late
    return "; %d of those faults came after the last reading of the " \
        "processes' counters (getrusage's count beyond them): which " \
        "threads took them was not recorded, and %d counts the workers " \
        "seen" % (late, n)


def pattern_objects(doc):
    """The objects the verdict's pattern is made of: the one that took
    the most bytes and, for private memory, those like it (the same
    backing and path, at least half its bytes) and those of its backing
    that its workers faulted most of (1% of all bytes or more)."""
    objs = doc.get("objects") or []
    if not objs:
        return []
    top = objs[0]
    if top["shared"]:
        return [top]
    # Those like it, and those its own workers faulted most of (a JVM's
    # spaces, a heap split in two).
    mine = set(workers([top]))
    total = sum(o["bytes"] for o in objs)

    def by_workers(o):
        b = sum(t["bytes"] for t in o["top_threads"] if t["tid"] in mine)
        return b * 2 > o["bytes"] and o["bytes"] * 100 >= total
    return [o for o in objs if not o["shared"] and
            o["backing"] == top["backing"] and (
                (o["path"] == top["path"] and o["bytes"] >= top["bytes"] / 2)
                or by_workers(o))]


def workers(objs):
    """The threads with at least 1% of the objects' bytes."""
    total = sum(o["bytes"] for o in objs)
    tids = {}
    for o in objs:
        for t in o["top_threads"]:
            tids[t["tid"]] = tids.get(t["tid"], 0) + t["bytes"]
    return [t for t, b in tids.items() if total and b * 100 >= total]


def cow_facts(doc, o):
    """Copy-on-write after fork on object o: (writers, forks of their
    processes, bytes written, the child's writes) or None.  With the
    tracepoints, writes to present pages; without them, refaults after
    a fork of the faulting process (a copy-on-write, or a refault after
    a zap: the report says they are not told apart)."""
    kind = K.COW if doc.get("source") == K.TRACEPOINTS else K.REFAULT
    cowb = kind_bytes(o, kind)
    if cowb < o["bytes"] * 0.3:
        return None
    writers = workers_of(o, names=(kind,))
    pids = {t["pid"] for t in writers}
    forks = [f for f in doc.get("forks") or [] if f["parent"] in pids]
    if not writers or not forks:
        return None
    children = {f["pid"] for f in forks}
    child = sum(kind_bytes(c, kind) for c in doc.get("objects") or []
                if set(c["pids"]) <= children)
    per_proc = {}
    for f in forks:
        per_proc[f["parent"]] = per_proc.get(f["parent"], 0) + 1
    rounds = max(1, min(per_proc.values()))
    # The copies of all the pattern's objects (a heap in several VMAs),
    # not of the largest alone: the bytes pft's line is to copy.
    objs = [p for p in pattern_objects(doc) if not
            set(p["pids"]) <= children] if o is doc["objects"][0] else [o]
    cowb = max(cowb, sum(kind_bytes(p, kind) for p in objs))
    return writers, rounds, cowb, child, kind, len(objs)


def peers_of(doc, o):
    """Objects like o (private memory of the same backing, at least half
    its bytes): the same pattern in other VMAs or processes."""
    return [p for p in doc["objects"] if p["backing"] == o["backing"] and
            not p["shared"] and p["bytes"] >= o["bytes"] / 2 and
            p["path"] == o["path"]]


def modifiers(doc, o, args):
    """--touch=read and --thp=always from the object's kinds."""
    notes = []
    if doc.get("source") == K.TRACEPOINTS:
        rd = kind_bytes(o, K.READ)
        if rd >= o["bytes"] / 2 and not kind_bytes(o, K.FIRST_TOUCH, K.COW):
            args.append("--touch=read")
            notes.append("read faults")
    kb = kind_bytes(o, K.KERNEL)
    if kb >= o["bytes"] / 2:
        notes.append("%d%% of the bytes by kernel-mode faults (read(2), "
                     "copy_to_user into it): pft's touches stand for them "
                     "in user mode" % round(100 * kb / o["bytes"]))
    hb = kind_bytes(o, K.HUGE_KIND)
    if hb >= o["bytes"] / 2 and o["backing"] != "hugetlb":
        args.append("--thp=always")
        notes.append("%s in huge pages" % human(hb))
    return notes


def worker_bytes(ws, o=None):
    """The bytes the workers faulted: their pages, or for a file or
    shmem object the resident memory smaps saw where that is more (one
    fault can map several pages); for a shared object its distinct
    pages."""
    n = sum(t["distinct_bytes"] for t in ws)
    if o is not None and o.get("shared"):
        # One object: the pages its processes faulted, each in its own
        # page tables (pft --share faults each page in one process: a
        # page two processes faulted is two pages of -m, so that the
        # faults are as many), or what one process had resident of it,
        # if more.
        n = o.get("distinct_bytes", n)
        if o.get("pages_by_more_than_one_process") and \
                len(o.get("pids") or ()) > 1:
            # Its faults, a page each: each process's own, a fault
            # taken again (retried) too.
            n = max(n, o.get("process_bytes") or 0, o.get("bytes") or 0)
        n = max(n, o.get("rss_max") or 0)
    elif o is not None and o["backing"] not in ("anonymous", "heap",
                                                "stack"):
        n = max(n, min(o.get("rss") or 0, o["size"] * len(o["pids"])))
    return n


def head_of(objs, total):
    """The verdict's start: the object of the most bytes, and that of the
    most faults where it is another."""
    top = objs[0]
    byfaults = max(objs, key=lambda o: (o["faults"], o["bytes"]))
    also = ""
    if byfaults is not top:
        also = " (the most faults, %d, were on %s, %s)" % (
            byfaults["faults"], describe(byfaults), human(byfaults["bytes"]))
    share = round(100 * top["bytes"] / total)
    return "%d%% of the bytes faulted (%s in %d faults) on %s%s" % (
        share, human(top["bytes"]), top["faults"], describe(top), also)


def no_single_pattern(objs):
    return "no single pattern: the objects that took the most bytes: " + \
        "; ".join("%s: %s in %d faults by %d thread%s of %d process%s" % (
            describe(o), human(o["bytes"]), o["faults"], o["threads"],
            "" if o["threads"] == 1 else "s", o["processes"],
            "" if o["processes"] == 1 else "es") for o in objs[:TOP])


def cow_verdict(head, cow, cpus):
    """Copy-on-write after fork: (pattern, line, args)."""
    writers, rounds, cowb, child, kind, nobjs = cow
    pids = {t["pid"] for t in writers}
    args = ["pft", "--pattern=cow-fork"]
    args += ["-n", str(len(pids))] if len(pids) > 1 else \
        ["-t", str(len(writers))]
    args += ["-m", size_arg(cowb / rounds)]
    how = "writes" if child >= cowb / rounds / 2 else None
    if how:
        args.append("--cow-child=writes")
    nw = len(writers)
    line = "%s: %s in %s of pages shared with a child after fork%s, " \
        "by %d thread%s (%s), %d fork%s: copy-on-write after fork" % (
            head, human(cowb), "writes to present pages"
            if kind == K.COW else "refaults (copy-on-write or a fault "
            "after a zap: not told apart without the tracepoints)",
            " (in %d objects of its kind, pft's -m)" % nobjs
            if nobjs > 1 else "",
            nw, "" if nw == 1 else "s", names_of(writers), rounds,
            "" if rounds == 1 else "s")
    line += "; the child wrote its pages too" if how else \
        "; the child wrote none of them (a child's reads of shared " \
        "pages raise no fault: --cow-child=reads and waits look alike)"
    if rounds > 1:
        args.append("--rounds=%d" % rounds)
    if nw > cpus:
        args.append("--oversubscribe")
    return "cow-fork", line, args


def shared_verdict(head, top, args):
    """One shared object: (pattern, line, workers); its worker options
    and size appended to args."""
    ws = workers_of(top)
    pids = sorted({t["pid"] for t in ws})
    if len(pids) > 1:
        args += ["-n", str(len(pids))]
    elif top.get("per_thread_vmas"):
        args += ["-M", "-t", str(len(ws))]
    else:
        args += ["-t", str(len(ws))]
    args += ["-m", size_arg(worker_bytes(ws, top))]
    pattern = "shared-object" if len(pids) > 1 else "shared-vma"
    line = "%s: one shared object faulted by %d process%s and %d " \
        "thread%s (%s), up to %d process%s and %d thread%s within the " \
        "same 1 ms; %d pages faulted by more than one process" % (
            head, len(pids), "" if len(pids) == 1 else "es", len(ws),
            "" if len(ws) == 1 else "s", names_of(ws),
            top["concurrency_processes_max"],
            "" if top["concurrency_processes_max"] == 1 else "es",
            top["concurrency_threads_max"],
            "" if top["concurrency_threads_max"] == 1 else "s",
            top["pages_by_more_than_one_process"])
    if top["pages_by_more_than_one_process"] and len(pids) > 1:
        line += " (not reproduced: pft --share faults each page in one " \
            "process; -m is the %s of its faults, a page each, taken by " \
            "its processes each in its own page tables, %s of distinct " \
            "pages)" % (human(max(top.get("process_bytes") or 0,
                                  top.get("bytes") or 0)),
                human(top.get("distinct_bytes") or 0))
    return pattern, line, ws


def one_object_verdict(doc, head, top, args):
    """The threads of one private object: the JVM's pretouch (chunks
    claimed in turn), shared-VMA or one thread: (pattern, line,
    workers); the options appended to args."""
    ws = workers_of(top)
    nw = len(ws)
    chunked = [t for t in ws if t["runs"] >= 2 and
               t["run_pages"] * K.PAGE >= MiB and
               t.get("gaps_filled_by_others", 1) > 0]
    jvm = jvm_options(doc)
    if jvm or (nw > 1 and len(chunked) == nw):
        pattern = "pretouch"
        args += ["--pattern=pretouch"] + (jvm or [])
        chunk = min(t["run_pages"] for t in ws) * K.PAGE
        line = "%s: %d threads (%s) each faulting chunks of %s in " \
            "turn: the JVM's pretouch pattern" % (
                head, nw, names_of(ws), human(chunk))
        if not jvm and chunk != 4 * MiB:
            args.append("--chunk-size=" + size_arg(chunk))
    else:
        pattern = "shared-vma" if nw > 1 else "one-thread"
        line = "%s from %d thread%s (%s), up to %d at once: %s" % (
            head, nw, "" if nw == 1 else "s", names_of(ws),
            top["concurrency_threads_max"],
            "the shared-VMA pattern" if nw > 1 else "one thread")
    args += ["-t", str(nw)]
    return pattern, line, ws


def private_verdict(doc, head, top, peers, args):
    """Private objects like the top one: processes each with their own,
    one VMA per thread, or one object's threads: (pattern, line,
    workers); the worker options and size appended to args."""
    ppids = sorted({pid for p in peers for pid in p["pids"]})
    ws = [w for p in peers for w in workers_of(p)]
    if len(ppids) > 1:
        pattern = "processes"
        args += ["-n", str(len(ppids))]
        line = "%s: %d processes, each its own %s (%s)" % (
            head, len(ppids), top["backing"], names_of(ws))
    elif len(peers) > 1 and all(len(workers_of(p)) == 1 for p in peers) \
            and len({w["tid"] for w in ws}) == len(peers):
        pattern = "per-thread-vma"
        args += ["-M", "-t", str(len(peers))]
        line = "%s: %d VMAs of %s, one thread each (%s): the " \
            "per-thread-VMA pattern" % (head, len(peers),
                                        top["backing"], names_of(ws))
    else:
        pattern, line, ws = one_object_verdict(doc, head, top, args)
    args += ["-m", size_arg(worker_bytes(ws, top))]
    return pattern, line, ws


def verdict(doc, cpus=None):
    """(pattern, verdict line, pft arguments or None) from a report."""
    cpus = cpus or cpus_here()
    # The facts of an earlier verdict of this report (before its
    # resident memory was read) go.
    doc.pop("populated", None)
    doc.pop("shared_untold", None)
    objs = doc.get("objects") or []
    pop = populate(doc)
    if pop:
        return populate_verdict(doc, pop, cpus)
    total = sum(o["bytes"] for o in objs)
    if not objs or not total:
        return "none", "no page faults seen", None
    top = objs[0]
    head = head_of(objs, total)
    cow = cow_facts(doc, top)
    peers = peers_of(doc, top)
    if top["shared"] or cow:
        peers = [top]
    if sum(p["bytes"] for p in peers) < total / 2:
        return "none", no_single_pattern(objs), None
    if cow:
        return cow_verdict(head, cow, cpus)
    args = ["pft"]
    if top["shared"]:
        pattern, line, ws = shared_verdict(head, top, args)
    else:
        pattern, line, ws = private_verdict(doc, head, top, peers, args)
    notes = modifiers(doc, top, args)
    args += backing_args(top)
    if notes:
        line += " (%s)" % ", ".join(notes)
    if len(ws) > cpus:
        args.append("--oversubscribe")
    return pattern, line, args


# ---- checking the line with pft ---------------------------------------------

def small_args(args):
    """The line with -m made the least pft takes for its workers: a page
    each (a huge page each for hugetlb, a 4 MiB chunk for pretouch)."""
    out = list(args)
    workers = 1
    for opt in ("-t", "-n"):
        if opt in out:
            workers = int(out[out.index(opt) + 1])
    unit = "%dP" % workers
    if "--backing=hugetlb" in out:
        unit = "%dM" % (2 * workers)
    elif any(a.startswith("--pattern=") for a in out):
        unit = "%dM" % (4 * workers)
    if "-m" in out:
        out[out.index("-m") + 1] = unit
    for i, a in enumerate(out):
        if a.startswith("--rounds="):
            out[i] = "--rounds=1"
    return out


def check_line(args, pft):
    """Runs the line's pft with its options and the least memory:
    (True, what) when pft took the options, (False, pft's complaint)
    when it refused them (exit status 2), (None, why) when it could not
    run here (a runtime failure: no huge pages, ...)."""
    cmd = [pft] + small_args(args)[1:]
    try:
        res = subprocess.run(cmd, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             universal_newlines=True, errors="replace",
                             timeout=120)
    except subprocess.TimeoutExpired:
        return None, "pft did not finish a small run in 120 s"
    except OSError as e:
        return None, "cannot run pft (%s): %s" % (pft, e.strerror)
    err = [x for x in res.stderr.splitlines() if x.strip() and
           not x.startswith("Try '")]
    if res.returncode == 0:
        return True, "pft ran it with -m %s" % cmd[cmd.index("-m") + 1] \
            if "-m" in cmd else "pft ran it"
    if res.returncode == 2:
        return False, err[-1] if err else "exit status 2"
    return None, "%s (exit status %d)" % (err[-1] if err else "no message",
                                          res.returncode)
