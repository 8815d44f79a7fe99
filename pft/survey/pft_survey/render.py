# SPDX-License-Identifier: GPL-2.0-or-later
# pft_survey.render - the report as text: sampling, the VMAs and objects
# that took the most bytes, the totals, the kernel's count beside perf's,
# the verdict; what a terminal would act on escaped.
#
# Copyright (C) 2026 The libfaultgen authors

from pft_common.util import printable

from . import kinds
from .base import TOP_OBJECTS, TOP_THREADS, TOP_VMAS
from .verdict import human


def scaled(n, doc):
    if doc["period"] > 1:
        return "~%d" % n
    return "%d" % n


def shell_line(line):
    """A line quote() made, as printed: as it is (printable characters
    alone, a shell reads it back), but for an argument that ends with a
    newline, the one a shell cannot be given on one line: escaped then,
    and said."""
    if "\n" not in line:
        return line
    return printable(line) + "  (an argument ends with a newline: shown " \
        "escaped, not for a shell)"


def kinds_text(kd, doc):
    """Faults by kind: "first-touch 16384 (64 MiB), ..." in the report's
    order of kinds."""
    order = kinds.EVENT_KINDS + (kinds.GUP, kinds.KERNEL_SIDE)
    return ", ".join(
        "%s %s%s" % (k, scaled((kd[k] or {}).get("faults", 0)
                               if isinstance(kd[k], dict) else kd[k], doc),
                     " (%s)" % human(kd[k]["bytes"])
                     if isinstance(kd[k], dict) and kd[k].get("bytes")
                     else "")
        for k in order if k in kd)


def escaped(out):
    """A write function of out that escapes what a terminal would act on
    (printable), line by line."""
    def w(text):
        out.write("\n".join(printable(x) for x in text.split("\n")))
    return w


def render_head(doc, w):
    """Sampling, the processes and what was recorded."""
    per = doc["period"]
    if per > 1:
        w("sampling: one fault event in %d recorded; counts scaled by %d, "
          "relative error about %.1f%% (1/sqrt(samples))\n" %
          (per, per, 100 * doc["sampling_rel_error"]))
    w("processes: %s (%s)\n" % (
        " ".join(str(p) for p in doc["processes"]) or "none",
        "children followed" if doc["followed_children"] else
        "children not followed"))
    src = doc.get("source")
    if src:
        w("recorded: %s (%s)\n" % (
            "the exceptions tracepoints: each fault's kind from its error "
            "code, user and kernel mode" if src == kinds.TRACEPOINTS else
            "perf's page-faults event: user-mode faults, without their kind",
            ", ".join(doc.get("events") or [])))
        for line in doc.get("not_told_apart") or []:
            w("  not told apart: %s\n" % line)
        lp = doc.get("lock_paths") or {}
        if lp.get("not_recorded"):
            w("  lock paths not recorded: %s\n" % lp["not_recorded"])


def render_vmas(doc, w):
    """The VMAs that took the most bytes."""
    w("\nVMAs by bytes faulted (fault events joined to the kernel's "
      "VMAs):\n")
    for v in doc["vmas"][:TOP_VMAS]:
        w("  pid %d  %s-%s  %s  %s%s\n" % (
            v["pid"], v["start"], v["end"], human(v["size"]), v["backing"],
            "  " + v["path"] if v["path"] and v["backing"] not in
            ("anonymous", "heap", "stack") else ""))
        w("    VMA from: %s\n" % v["source"])
        if v["thp"]:
            w("    THP: eligible %s, %s in huge pages (smaps, last seen; "
              "most seen %s)\n" % (
                  "yes" if v["thp"]["eligible"] else "no",
                  human(v["thp"]["huge_bytes"]),
                  human(v["thp"].get("huge_bytes_most") or 0)))
        w("    faults: %s, %s: %s\n" % (
            scaled(v["faults"], doc), human(v.get("bytes") or 0),
            kinds_text({k: {"faults": n} for k, n in
                        (v.get("kinds") or {}).items()}, doc)))
        tops = ", ".join("%s (%d): %s" % (t["name"], t["tid"],
                                          scaled(t["faults"], doc))
                         for t in v["top_threads"][:TOP_THREADS])
        w("    threads that faulted it: %d; top: %s\n" % (v["threads"], tops))
        w("    threads faulting it in the same 1 ms window: most %d, "
          "median %s\n" % (v["concurrency_max"],
                           "%g" % v["concurrency_median"]))
        if v["rate_per_s"]:
            w("    fault rate: %.0f faults/s over the %.3f s it was "
              "faulted\n" % (v["rate_per_s"], v["span_s"]))
    if len(doc["vmas"]) > TOP_VMAS:
        rest = sum(v["faults"] for v in doc["vmas"][TOP_VMAS:])
        w("  ... %d more VMAs with %s faults (--json lists them all)\n" % (
            len(doc["vmas"]) - TOP_VMAS, scaled(rest, doc)))


def render_totals(doc, w):
    """perf's totals: the events, by kind, those left out and lost."""
    pf = doc["perf"]
    w("\ntotals:\n")
    w("  fault events perf saw (%s): %s in %d samples\n" % (
        "user and kernel mode" if doc.get("source") == kinds.TRACEPOINTS
        else "user mode", scaled(pf["faults"], doc), pf["samples"]))
    if doc.get("kinds"):
        w("  by kind: %s\n" % kinds_text(doc["kinds"], doc))
    if pf["before_exec"]:
        w("    of which before the program's exec: %s\n" %
          scaled(pf["before_exec"], doc))
    if pf.get("in_children_not_followed"):
        w("  left out: %s faults of child processes (not followed)\n" %
          scaled(pf["in_children_not_followed"], doc))
    if pf["outside_known_vmas"]:
        w("    of which outside any VMA seen: %s\n" %
          scaled(pf["outside_known_vmas"], doc))
    if pf.get("lost_samples"):
        w("  lost: %d samples (about %d faults) perf's buffer had no room "
          "for; the counts above are short by as many (sample with -c, or "
          "survey on a quieter machine)\n" % (pf["lost_samples"],
                                              pf["lost_faults"]))


def render_kernel(doc, w):
    """The kernel's count beside perf's, and where the difference went."""
    per = doc["period"]
    pf = doc["perf"]
    k = doc.get("kernel")
    if k:
        w("  faults the kernel counted (minflt %d + majflt %d, %s): %d\n" % (
            k["minflt"], k["majflt"], k["source"], k["faults"]))
        d = doc.get("kernel_minus_perf", 0)
        w("  difference, kernel less perf%s: %s%s\n" % (
            " and its lost samples" if pf.get("lost_samples") else "",
            ("~%d" if per > 1 else "%d") % d,
            (": faults without a fault event (get_user_pages: "
             "MADV_POPULATE_*, mlock, MAP_POPULATE, an execve's arguments)"
             if doc.get("source") == kinds.TRACEPOINTS else
             ": faults without a user-mode fault event (kernel-mode faults "
             "and get_user_pages, not told apart)") if d > 0 else ""))
    res = doc.get("resident") or []
    if res and doc.get("kernel_minus_perf", 0) > 0:
        r = res[0]
        w("  largest resident growth (smaps Rss): pid %d %s-%s %s %s, "
          "+%s\n" % (r["pid"], r["start"], r["end"], human(r["size"]),
                     r["backing"], human(r["grown"])))
    ks = doc.get("kernel_side_threads") or []
    if ks:
        w("  threads with faults beyond their user fault events (their "
          "minflt+majflt, last seen, less perf's): %s\n" % ", ".join(
              "%s (%d): %d" % (t["name"], t["tid"], t["kernel_side_faults"])
              for t in ks[:TOP_THREADS]))


def render_objects(doc, w):
    """The objects that took the most bytes (one across processes)."""
    objs = doc.get("objects") or []
    if objs:
        w("\nobjects by bytes faulted (a file, shmem or SysV object is one "
          "across processes):\n")
    for o in objs[:TOP_OBJECTS]:
        w("  %s  %s%s  %s in %s faults; %d process%s, %d thread%s\n" % (
            human(o["size"]), o["backing"], "  " + o["path"] if o["path"] and
            o["backing"] not in ("anonymous", "heap", "stack") else "",
            human(o["bytes"]), scaled(o["faults"], doc), o["processes"],
            "" if o["processes"] == 1 else "es", o["threads"],
            "" if o["threads"] == 1 else "s"))
        w("    by kind: %s\n" % kinds_text(o["kinds"], doc))
        if o["processes"] > 1:
            w("    processes faulting it within the same 1 ms: most %d, "
              "median %g; pages faulted by more than one process: %d of "
              "%d\n" % (o["concurrency_processes_max"],
                        o["concurrency_processes_median"],
                        o["pages_by_more_than_one_process"], o["pages"]))


def render_lock_paths(doc, w):
    """Per object the user faults that fell back to mmap_lock, per
    thread its acquisitions (mmap_lock tracepoints)."""
    lp = doc.get("lock_paths") or {}
    if not lp.get("recorded"):
        return
    w("\nlock paths (mmap_lock tracepoints; a fallback: a thread's read "
      "acquisition right after its user fault):\n")
    for o in lp["objects"][:TOP_OBJECTS]:
        w("  object %s%s: %d user faults, %d fell back to mmap_lock\n" % (
            o["object"], "  " + o["path"] if o["path"] else "",
            o["user_faults"], o["fallbacks"]))
    for t in lp["threads"][:TOP_THREADS]:
        w("  thread %s (%d): %d user faults; mmap_lock %d read (%d "
          "trylocks failed), %d write; %d fallbacks\n" % (
              t["name"], t["tid"], t["user_faults"], t["read"],
              t["trylock_failed"], t["write"], t["fallbacks"]))
    if len(lp["threads"]) > TOP_THREADS:
        w("  ... %d threads more (--json lists them)\n" %
          (len(lp["threads"]) - TOP_THREADS))


def render(doc, out):
    w = escaped(out)
    render_head(doc, w)
    render_vmas(doc, w)
    render_totals(doc, w)
    render_kernel(doc, w)
    render_objects(doc, w)
    render_lock_paths(doc, w)
    w("\nverdict: %s\n" % doc["verdict"])
    if doc["reproduce"]:
        out.write("reproduce with: %s\n" % shell_line(doc["reproduce"]))
        chk = doc.get("reproduce_check")
        if chk:
            w("  checked: %s\n" % chk)
