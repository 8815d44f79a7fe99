# SPDX-License-Identifier: GPL-2.0-or-later
# pft_survey.fromsurvey - a survey's facts (pft_survey.objects.Facts with
# each fault, perf's task records, the threads' counters) as the
# Recording a profile is built from (pft_survey.profile).
#
# Copyright (C) 2026 The libfaultgen authors
#
# The survey keys a forked child's private memory by the child: a
# profile keys it by the process that mapped it, so that the child's
# copy-on-write faults fall on the parent's object, as a replay forks
# it.  A child's object is its parent's where the child did not exec and
# the survey saw the same VMA (the same start) or the same sighting in
# both.

import os

from . import kinds as K
from .base import msg
from .profile import Recording
from .verdict import EXEC_GUP

BACKINGS = {"anonymous": "anonymous", "heap": "anonymous",
            "stack": "anonymous", "memfd/shmem": "memfd",
            "SysV shm": "sysv", "hugetlb": "hugetlb", "file": "file"}


# The pages a VMA's resident memory grew beyond its events' to be an
# object of its own (add_populated_objects).
POPULATED_MIN = 64


def backing_word(o):
    """The profile's word for an object's backing (pft-profile(5))."""
    b = o["backing"]
    if b == "shmem":
        path = o.get("path") or ""
        return "file" if path.startswith("/dev/shm/") else \
            "shared-anonymous"
    # Anything else (a special mapping such as [vdso]) is replayed as
    # private anonymous memory.
    return BACKINGS.get(b, "anonymous")


def parent_key(facts, key, parents, execs):
    """The parent's object a forked child's private object is, or None."""
    if key[0] != "vma" or key[1] not in parents or key[1] in execs:
        return None
    ppid = parents[key[1]]
    starts = {vk[1] for vk in facts.objects[key]["vmas"]}
    for k, o in facts.objects.items():
        if k[0] == "vma" and k[1] == ppid and (
                k[2] == key[2] or starts & {vk[1] for vk in o["vmas"]}):
            return k
    return None


def inherited_keys(facts, execs):
    """key -> the key of the object it is (itself, or an ancestor's)."""
    parents = {c: p for (_t, c, p) in facts.forks}
    up = {}
    for key in facts.objects:
        k = parent_key(facts, key, parents, execs)
        if k is not None:
            up[key] = k
    out = {}
    for key in facts.objects:
        k, depth = key, 0
        while k in up and depth < 64:
            k, depth = up[k], depth + 1
        out[key] = k
    return out


def vma_pages(key, v, start, end, page):
    """The first and last page of its object a VMA of it maps: its
    addresses' for private memory; a file's offsets, as a fault's page
    is told (pft_survey.objects.page_index: the offset maps showed last,
    at the start it showed last)."""
    if key[0] == "vma":
        return start // page, (end - 1) // page
    at = v["cur"][0] if v.get("cur") else start
    off = v.get("off") or 0
    return (off + start - at) // page, (off + end - 1 - at) // page


# The bytes a private object's faults can lie below its VMAs: a stack
# grown down since a snapshot last saw it (the default stack limit).
GROWN_DOWN_BYTES = 8 << 20


def file_pages(key, o, page):
    """The pages of a file object's file where its path still names it
    (the same inode), else 0."""
    path = o.get("path") or ""
    if key[0] != "file" or not path.startswith("/"):
        return 0
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return 0
    return -(-st.st_size // page) if st.st_ino == key[2] else 0


def object_bases(facts, same, page):
    """Each profile object's first page (its pages are counted from it)
    and last page seen: the lowest VMA start of a private object, the
    lowest file offset of a file's; the faults' pages widen both, within
    what its VMAs could hold (sane_span).  Also the objects whose
    faults' pages went beyond that: key -> the pages their faults are
    kept in."""
    base, top, mapped, most = {}, {}, {}, {}
    for key, o in facts.objects.items():
        k = same[key]
        for (_pid, start, end), v in list(o["vmas"].items()) + \
                o.get("remapped", []):
            lo, hi = vma_pages(key, v, start, end, page)
            base[k] = min(base.get(k, lo), lo)
            top[k] = max(top.get(k, hi), hi)
            mapped[k] = mapped.get(k, 0) + hi - lo + 1
        most[k] = max(most.get(k, 0), file_pages(key, o, page))
    vbase, vtop = dict(base), dict(top)
    for (_t, _pid, _tid, key, _kind, pg, _n) in facts.events:
        k = same[key]
        if pg is not None:
            base[k] = min(base.get(k, pg), pg)
            top[k] = max(top.get(k, pg), pg)
    clipped = sane_span(facts, same, (base, top), (vbase, vtop),
                        (mapped, most), GROWN_DOWN_BYTES // page)
    return base, top, clipped


def sane_span(facts, same, seen, vmas, could, grown_down):
    """An object whose faults' pages span more than its VMAs could hold
    (the span of their pages, the total of its mappings' sizes, the
    file's size where known; a private object's a stack's growth more)
    was given a page of another object (a virtual address taken for a
    file offset): said on standard error, the object is sized from its
    VMAs, and its faults outside their pages are left out.  Returns key
    -> (first, last page) of those objects; base and top (seen) set to
    their VMAs' (vmas)."""
    base, top = seen
    vbase, vtop = vmas
    mapped, most = could
    clipped = {}
    for k in list(base):
        if k not in vbase:
            continue
        grow = grown_down if k[0] == "vma" else 0
        limit = max(vtop[k] - vbase[k] + 1, mapped[k], most.get(k, 0)) + \
            grow
        if top[k] - base[k] + 1 <= limit:
            continue
        clipped[k] = (vbase[k] - grow, vtop[k])
        out = sum(1 for e in facts.events if same[e[3]] == k and
                  e[5] is not None and
                  not clipped[k][0] <= e[5] <= clipped[k][1])
        path = facts.objects[k]["path"] if k in facts.objects else ""
        msg("object %s%s: its faults' pages span %d pages, more than its "
            "mappings could (%d): sized from its mappings, %d fault "
            "event%s outside them left out of the profile" % (
                "%s:%s:%s" % k, " (%s)" % path if path else "",
                top[k] - base[k] + 1, limit, out, "" if out == 1 else "s"))
        base[k] = max(vbase[k] - grow, base[k])
        top[k] = vtop[k]
    return clipped


def add_objects(r, facts, same):
    """The objects of the profile into r; returns their first pages and
    the objects clipped to their mappings (sane_span)."""
    base, top, clipped = object_bases(facts, same, r.page_size)
    huge_keys = {same[e[3]] for e in facts.events if e[4] == K.HUGE_KIND}
    for key, o in facts.objects.items():
        k = same[key]
        huge = k in huge_keys and o["backing"] != "hugetlb"
        x = r.objects.setdefault(k, {
            "backing": backing_word(facts.objects[k]), "size": 0,
            "writable": False, "thp": False, "huge_bytes": 0,
            "creator": None, "path": facts.objects[k]["path"],
            "first_ns": None})
        x["size"] = max(x["size"], o["size"],
                        (top[k] - base[k] + 1) * r.page_size)
        x["writable"] = x["writable"] or o["writable"]
        x["huge_bytes"] = max(x["huge_bytes"], o["huge_seen"])
        x["thp"] = x["thp"] or huge or x["huge_bytes"] > 0
        for (pid, _s, _e), v in o["vmas"].items():
            t = v.get("first_ns") or v.get("mmap_ns") or 0
            if x["first_ns"] is None or (t, pid) < x["first_ns"]:
                x["first_ns"], x["creator"] = (t, pid), pid
        if k[0] == "vma":
            x["creator"] = k[1]
    return base, clipped


def add_events(r, facts, same, base, clipped=None):
    """Each fault event, its page counted from its object's first: one
    sample (the facts count a sample as the period's faults); those of
    an object clipped (sane_span) outside its pages left out."""
    clipped = clipped or {}
    for (t, _pid, tid, key, kind, pg, n) in facts.events:
        k = same[key]
        if k in clipped and pg is not None and \
                not clipped[k][0] <= pg <= clipped[k][1]:
            continue
        r.events.append((t, tid, k, kind, (pg or 0) - base.get(k, 0),
                         max(1, round(n / r.period))))


def add_processes(r, facts, rec, root, command):
    """The processes of the faults, the root and their ancestors, with
    the objects each maps: its own, those it inherited (mapped before
    its fork, unless it exec'd) and the shared ones it faulted."""
    parents = {c: (p, t) for (t, c, p) in facts.forks}
    pids = {e[1] for e in facts.events} | {root}
    for pid in list(pids):
        depth = 0
        while pid in parents and depth < 64:
            pid = parents[pid][0]
            pids.add(pid)
            depth += 1
    for pid in pids:
        p, t = parents.get(pid, (None, None))
        if p not in pids and pid != root:
            # Forked before the recording began (attached with -p: a
            # server's workers): the root's child, from the start, so
            # that the profile is one tree as a replay forks it.
            p, t = root, None
        r.processes[pid] = {
            "parent": p, "fork_ns": t,
            "exit_ns": facts.exits.get(pid), "objects": set(),
            "command": command if pid == root else None}
    for key, o in r.objects.items():
        for pid in {vk[0] for vk in facts.objects.get(key, {"vmas": {}})
                    ["vmas"]} | {o["creator"]}:
            if pid in r.processes:
                r.processes[pid]["objects"].add(key)
    for e in r.events:
        r.processes[r.threads_pid[e[1]]]["objects"].add(e[2])
    inherit_objects(r, rec.execs)


def inherit_objects(r, execs):
    """A forked child maps the objects its parent mapped before the
    fork (the first fault on them before it), unless it exec'd."""
    first = {}
    for e in r.events:
        first[e[2]] = min(first.get(e[2], e[0]), e[0])
    order = sorted(r.processes, key=lambda p: r.processes[p]["fork_ns"] or 0)
    for pid in order:
        p = r.processes[pid]
        if p["parent"] is None or pid in execs:
            continue
        pp = r.processes[p["parent"]]
        p["objects"] |= {k for k in pp["objects"]
                         if first.get(k, 0) < (p["fork_ns"] or 0)}


def add_threads(r, facts, rec, names):
    """The threads that faulted, and each process's main thread."""
    start = {f[2]: f[0] for f in rec.forks}
    end = {f[2]: f[0] for f in rec.exits}
    tids = {e[2]: e[1] for e in facts.events}
    r.threads_pid = dict(tids)
    for tid, pid in tids.items():
        r.threads[tid] = {"pid": pid, "start_ns": start.get(tid),
                          "end_ns": end.get(tid), "name": names.get(tid)}


def add_main_threads(r, rec, names):
    start = {f[2]: f[0] for f in rec.forks}
    end = {f[2]: f[0] for f in rec.exits}
    for pid in r.processes:
        if pid not in r.threads:
            r.threads[pid] = {"pid": pid, "start_ns": start.get(pid),
                              "end_ns": end.get(pid),
                              "name": names.get(pid)}
            r.threads_pid[pid] = pid


def late_owner(r, doc, root):
    """The process the faults no reading of the counters held are put
    on: the one whose resident memory grew most beyond its fault events
    (populated, the faults without an event of a process ended between
    two readings), else the root."""
    best, most = root, 0
    for g in doc.get("resident") or []:
        extra = (g.get("grown") or 0) - (g.get("event_bytes") or 0)
        if g.get("pid") in r.processes and extra > most:
            best, most = g["pid"], extra
    return best


def add_without_event(r, doc, execs, root=None):
    """The faults each thread's counters hold beyond its events
    (doc["kernel_side_threads"]), the rest of its process's
    (doc["kernel_side_processes"]) on its main thread; an exec'd
    process's main thread less what its exec took (up to
    verdict.EXEC_GUP); those no reading held on the main thread of the
    process that populated most (late_owner)."""
    kind = K.GUP if r.source == K.TRACEPOINTS else K.KERNEL_SIDE
    per_pid = {}
    for t in doc.get("kernel_side_threads") or []:
        if t["pid"] not in r.processes:
            continue
        n = t["kernel_side_faults"]
        per_pid[t["pid"]] = per_pid.get(t["pid"], 0) + n
        if t["tid"] == t["pid"] and t["pid"] in execs:
            n -= EXEC_GUP
        if t["tid"] not in r.threads:
            r.threads[t["tid"]] = {"pid": t["pid"], "start_ns": None,
                                   "end_ns": None, "name": t.get("name")}
        if n > 0:
            r.without_event.append((t["tid"], kind, n))
    for pid, n in (doc.get("kernel_side_processes") or {}).items():
        pid = int(pid)
        rest = n - per_pid.get(pid, 0) - (
            EXEC_GUP if pid in execs and pid not in per_pid else 0)
        if pid in r.processes and rest > 8:
            r.without_event.append((pid, kind, rest))
    # Those no reading of a process's counters held (taken after the
    # last, by threads that ended unseen): whose they were is not told;
    # on the main thread of the process whose memory grew most without
    # events (a short-lived process that populated memory), else the
    # root's, so that the replay has them where it can make them.
    late = doc.get("kernel_side_after_last_readings") or 0
    owner = late_owner(r, doc, root)
    if late > 8 and owner in r.processes:
        r.without_event.append((owner, kind, late))


def key_of(text):
    """An object's key from the report's text of it ("vma:PID:N",
    "file:DEV:INODE"), or None."""
    kind, _, rest = text.partition(":")
    head, _, last = rest.rpartition(":")
    try:
        if kind == "vma":
            return ("vma", int(head), int(last))
        if kind == "file":
            return ("file", head, int(last))
    except ValueError:
        pass
    return None


def add_calls(r, facts, rec, same, base):
    """The mapping calls of the profile's processes (None where perf did
    not record them), a thread of a process that made calls and had no
    fault added to it; each call on the object of the profile it
    covered most (of those it covered: the VMAs its range overlapped),
    or on none, the object added to the caller's process's."""
    if facts.calls is None:
        return
    start = {f[2]: f[0] for f in rec.forks}
    end = {f[2]: f[0] for f in rec.exits}
    r.calls = []
    for (t, pid, tid, call, arg, spans) in facts.calls:
        if pid not in r.processes:
            continue
        if tid not in r.threads:
            r.threads[tid] = {"pid": pid, "start_ns": start.get(tid),
                              "end_ns": end.get(tid),
                              "name": rec.names.get(tid)}
            r.threads_pid[tid] = pid
        best = None
        for key, lo, hi in spans:
            k = same.get(key, key)
            if k in r.objects and (best is None or hi - lo > best[2]):
                best = (k, lo - base.get(k, 0), hi - lo)
        if best is None:
            r.calls.append((t, tid, call, arg, None, 0, 0))
            continue
        r.calls.append((t, tid, call, arg) + best)
        r.processes[pid]["objects"].add(best[0])


def add_populated_objects(r, doc, base):
    """A VMA whose resident memory grew beyond what its fault events
    brought in (by POPULATED_MIN pages or more: populated, get_user_pages
    raises no fault event) is an object of the profile even where no
    event fell on it, so that the faults without an event have it to
    populate, as a replay does over its process's largest object."""
    for g in doc.get("resident") or []:
        key = key_of(g.get("object") or "")
        if key is None or key in r.objects or g["pid"] not in r.processes \
                or g["grown"] - (g.get("event_bytes") or 0) < \
                POPULATED_MIN * r.page_size:
            continue
        r.objects[key] = {
            "backing": backing_word({"backing": g["backing"],
                                     "path": g.get("path")}),
            "size": g["size"], "writable": bool(g.get("writable")),
            "thp": (g.get("huge_bytes") or 0) > 0,
            "huge_bytes": g.get("huge_bytes") or 0, "creator": g["pid"],
            "path": g.get("path") or "", "first_ns": None}
        r.processes[g["pid"]]["objects"].add(key)
        # Its pages counted from its start (a file's: its offset, not
        # known here: from 0).
        base[key] = int(g["start"], 16) // r.page_size \
            if key[0] == "vma" else 0


def recording(facts, rec, doc, root, command=None, period=1, page=4096):
    """The Recording of a survey: facts (with events), perf's Record, the
    report (its kernel-side threads), the root process and its command
    line (None when attached)."""
    r = Recording(facts.source, period, page)
    same = inherited_keys(facts, rec.execs)
    base, clipped = add_objects(r, facts, same)
    add_events(r, facts, same, base, clipped)
    names = dict(rec.names)
    add_threads(r, facts, rec, names)
    add_processes(r, facts, rec, root, command)
    add_main_threads(r, rec, names)
    add_without_event(r, doc, rec.execs, root)
    add_populated_objects(r, doc, base)
    add_calls(r, facts, rec, same, base)
    return r
