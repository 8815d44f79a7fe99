#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# check.py - the expected results of the shape cases, checked inside the
# guest against what the guest's kernel says (sysfs, /proc) and what the
# case asked for, never against pft's own code.
#
#   check.py topology --cpus N --l3 N --nodes N --smt N --packages N
#   check.py run OUT ERR --mask LIST --requested N [--pin] [--processes]
#                        [--oversubscribe] [--size BYTES] [--source S]
#   check.py legacy OUT --workers N [--cachelines N]
#   check.py vmas MAPS OUT --workers N [--shared]
#   check.py numa OUT [--per-thread] [--policy local|default]
#   check.py nodepages OUT --policy bind:N|preferred:N|interleave:NODES|worker-local
#   check.py sweep RUNS SWEEPJSON --groups l3|core|node --counts LIST
#   check.py usage ERR --rc N --names TEXT
#   check.py policies --cpus LIST   (libfaultgen's NUMA policies, in-process)
#   check.py lockpaths OUT --pages N
#   check.py coldlock OUT --pages N --writers N
#
# Prints nothing and exits 0 when everything holds; otherwise one line per
# problem and exit 1.
#
# Copyright (C) 2026 The libfaultgen authors

import ctypes
import json
import os
import re
import sys

SYS_CPU = "/sys/devices/system/cpu"
PAGE = 4096
# The shared region's mapping may merge with an anonymous mapping next to
# it (a thread stack, or a malloc'd block of pft's, of the same flags):
# its numa_maps line then counts their pages too, never more than this.
NEIGHBOUR_PAGES = 96
CLIP = "clipping nr_tests to nr_cpus_allowed [%d]"
problems = []


def check(cond, text):
    if not cond:
        problems.append(text)
    return cond


def read(path):
    with open(path) as f:
        return f.read().strip()


def cpulist(text):
    """A CPU list such as 0-3,8,16-31:4 as a set."""
    out = set()
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        m = re.fullmatch(r"(\d+)(?:-(\d+)(?::(\d+))?)?", part)
        if not m:
            raise ValueError("bad CPU list %r" % text)
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) else lo
        out.update(range(lo, hi + 1, int(m.group(3) or 1)))
    return out


def text_of(cpus):
    return ",".join(str(c) for c in sorted(cpus))


def online():
    return cpulist(read(SYS_CPU + "/online"))


def node_of(cpu):
    for name in os.listdir("%s/cpu%d" % (SYS_CPU, cpu)):
        m = re.fullmatch(r"node(\d+)", name)
        if m:
            return int(m.group(1))
    return 0


def l3_of(cpu):
    base = "%s/cpu%d/cache" % (SYS_CPU, cpu)
    for idx in sorted(os.listdir(base)):
        if read("%s/%s/level" % (base, idx)) == "3":
            return frozenset(cpulist(read("%s/%s/shared_cpu_list" %
                                           (base, idx))))
    return None


def core_of(cpu):
    t = "%s/cpu%d/topology/" % (SYS_CPU, cpu)
    return (int(read(t + "physical_package_id")), int(read(t + "core_id")))


def run_record(path):
    """The first pft-run/1 object of a JSON Lines file."""
    with open(path) as f:
        for line in f:
            if line.startswith("{"):
                obj = json.loads(line)
                if obj.get("schema") == "pft-run/1":
                    return obj
    raise ValueError("%s: no pft-run/1 line" % path)


def opts(args, flags, values):
    """Parses --flag and --name VALUE options; the rest are positional."""
    got, pos = {f: False for f in flags}, []
    got.update((v, None) for v in values)
    it = iter(args)
    for a in it:
        name = a[2:] if a.startswith("--") else None
        if name in flags:
            got[name] = True
        elif name in values:
            got[name] = next(it)
        else:
            pos.append(a)
    return got, pos


# ---- topology -----------------------------------------------------------

def cmd_topology(args):
    o, _ = opts(args, [], ["cpus", "l3", "nodes", "smt", "packages"])
    cpus = online()
    check(len(cpus) == int(o["cpus"]), "%d CPUs online, want %s" %
          (len(cpus), o["cpus"]))
    l3 = {l3_of(c) for c in cpus}
    check(None not in l3, "a CPU without an L3 cache in sysfs")
    check(len(l3) == int(o["l3"]), "%d L3 domains, want %s" %
          (len(l3), o["l3"]))
    nodes = {node_of(c) for c in cpus}
    check(len(nodes) == int(o["nodes"]), "%d NUMA nodes, want %s" %
          (len(nodes), o["nodes"]))
    cores = {}
    for c in cpus:
        cores.setdefault(core_of(c), set()).add(c)
    smt = {len(v) for v in cores.values()}
    check(smt == {int(o["smt"])}, "threads per core %s, want %s" %
          (sorted(smt), o["smt"]))
    pkgs = {core_of(c)[0] for c in cpus}
    check(len(pkgs) == int(o["packages"]), "%d packages, want %s" %
          (len(pkgs), o["packages"]))


# ---- one run: placement, counts ----------------------------------------

def clip_lines(err):
    with open(err) as f:
        return [x.rstrip("\n") for x in f if x.startswith("clipping")]


def check_workers(rec, allowed, pin, processes):
    order = sorted(allowed)
    ws = rec["workers"]
    check([w["index"] for w in ws] == list(range(len(ws))),
          "worker indexes are not 0..%d" % (len(ws) - 1))
    for i, w in enumerate(ws):
        last = w["last_cpu"]
        check(last in allowed, "worker %d ran on CPU %d, outside %s" %
              (i, last, text_of(allowed)))
        if pin:
            want = order[i % len(order)]
            check(w["cpu"] == want and last == want,
                  "worker %d pinned to %d, ended on %d; want CPU %d" %
                  (i, w["cpu"], last, want))
        else:
            check(w["cpu"] == -1, "worker %d pinned to %d without -a" %
                  (i, w["cpu"]))
    pids = {w["pid"] for w in ws}
    tids = {w["tid"] for w in ws}
    if processes:
        check(len(pids) == len(ws), "%d processes for %d workers" %
              (len(pids), len(ws)))
    else:
        check(len(pids) == 1 and len(tids) == len(ws),
              "threads: %d pids, %d tids for %d workers" %
              (len(pids), len(tids), len(ws)))


def check_pages(rec, size, nworkers):
    pages = -(-size // PAGE)
    per = -(-pages // nworkers)
    res = rec["result"]
    check(res["pages"] == per * nworkers, "result pages %d, want %d" %
          (res["pages"], per * nworkers))
    check(res["bytes"] == per * nworkers * PAGE, "result bytes %d" %
          res["bytes"])
    for w in rec["workers"]:
        check(w["pages"] == per, "worker %d: %d pages, want %d" %
              (w["index"], w["pages"], per))
        check(w["minflt"] >= per, "worker %d: %d minor faults for %d pages"
              % (w["index"], w["minflt"], per))
        check(w["majflt"] == 0, "worker %d: %d major faults" %
              (w["index"], w["majflt"]))
    check(res["faults_agree"] is True, "faults_agree is %s" %
          res["faults_agree"])


def cmd_run(args):
    o, pos = opts(args, ["pin", "processes", "oversubscribe"],
                  ["mask", "requested", "size", "source"])
    rec = run_record(pos[0])
    allowed = cpulist(o["mask"]) & online()
    got = cpulist(rec["cpus"]["allowed"])
    check(got == allowed, "allowed %s, want %s" %
          (rec["cpus"]["allowed"], text_of(allowed)))
    check(rec["cpus"]["count"] == len(allowed), "allowed count %d, want %d"
          % (rec["cpus"]["count"], len(allowed)))
    req = int(o["requested"])
    clipped = req > len(allowed) and not o["oversubscribe"]
    n = len(allowed) if clipped else req
    check(rec["result"]["workers"] == n and len(rec["workers"]) == n,
          "%d workers (%d listed), want %d" %
          (rec["result"]["workers"], len(rec["workers"]), n))
    want_clip = [CLIP % len(allowed)] if clipped else []
    check(clip_lines(pos[1]) == want_clip, "clipping lines %s, want %s" %
          (clip_lines(pos[1]), want_clip))
    kind = "processes" if o["processes"] else "threads"
    check(rec["config"]["kind"] == kind, "kind %s, want %s" %
          (rec["config"]["kind"], kind))
    check_workers(rec, allowed, o["pin"], o["processes"])
    if o["size"]:
        check_pages(rec, int(o["size"]), n)
    if o["source"]:
        check(rec["config"].get("cpuset_source") == o["source"],
              "cpuset_source %s, want %s" %
              (rec["config"].get("cpuset_source"), o["source"]))


# ---- the legacy line, by mmtests' rule ----------------------------------

def cmd_legacy(args):
    o, pos = opts(args, [], ["workers", "cachelines"])
    with open(pos[0]) as f:
        lines = [x.rstrip("\n") for x in f]
    results = [x for x in lines if not re.search(r"[A-Za-z]",
                                                 x.replace("s", ""))]
    if not check(len(results) == 1, "%d lines pass the mmtests rule: %s" %
                 (len(results), results)):
        return
    line = results[0]
    fmt = (r" [ \d]{2}\d [ \d]{3}\d [ \d]{2}\d [ \d]{4}\d\.\d\ds "
           r"[ \d]{4}\d\.\d\ds [ \d]{4}\d\.\d\ds  [ \d]{5}\d\.\d{3} "
           r"[ \d]{5}\d\.\d{3}")
    check(re.fullmatch(fmt, line) is not None,
          "not 0.12x's format: %r" % line)
    f = line.replace("s", "").split(" ")
    fields = [x for x in f if x]
    check(f[0] == "" and len(fields) == 8, "fields %s" % fields)
    if len(fields) == 8:
        check(int(fields[1]) == int(o["workers"]), "Thr %s, want %s" %
              (fields[1], o["workers"]))
        check(int(fields[2]) == int(o["cachelines"] or 1),
              "CLine %s" % fields[2])


# ---- VMAs and nodes -------------------------------------------------------

def region_lines(rec):
    """numa_maps lines of the region that hold pages: (addr, fields)."""
    out = []
    for line in rec.get("numa_maps") or []:
        parts = line.split()
        kv = dict(p.split("=", 1) for p in parts[2:] if "=" in p)
        if "anon" in kv:
            out.append((int(parts[0], 16), parts[1], kv))
    return out


def cmd_vmas(args):
    o, pos = opts(args, ["shared"], ["workers"])
    rec = run_record(pos[1])
    n = int(o["workers"])
    per = rec["result"]["pages"] // max(n, 1)
    vmas = {}
    with open(pos[0]) as f:
        for line in f:
            p = line.split()
            lo, hi = (int(x, 16) for x in p[0].split("-"))
            vmas[lo] = (hi - lo, p[1], p[4], p[5] if len(p) > 5 else "")
    lines = region_lines(rec)
    want = 1 if o["shared"] else n
    check(len(lines) == want, "%d numa_maps lines with pages, want %d" %
          (len(lines), want))
    pages = per * (n if o["shared"] else 1)
    slack = NEIGHBOUR_PAGES if o["shared"] else 0
    for addr, _, kv in lines:
        v = vmas.get(addr)
        if not check(v is not None, "no VMA at %x in maps" % addr):
            continue
        check(v[1] == "rw-p" and v[2] == "0" and not v[3],
              "VMA at %x: %s inode %s %s, want anonymous rw-p" %
              (addr, v[1], v[2], v[3]))
        check(pages * PAGE <= v[0] <= (pages + slack) * PAGE,
              "VMA at %x: %d bytes, want %d" % (addr, v[0], pages * PAGE))
        check(pages <= int(kv["anon"]) <= pages + slack,
              "VMA at %x: %s pages, want %d" % (addr, kv["anon"], pages))
    if not o["shared"]:
        count = sum(1 for v in vmas.values() if v[0] == pages * PAGE and
                    v[1] == "rw-p" and v[2] == "0" and not v[3])
        check(count == n, "%d anonymous rw-p VMAs of %d bytes in maps, "
              "want %d" % (count, pages * PAGE, n))


def cmd_numa(args):
    o, pos = opts(args, ["per-thread"], ["policy"])
    rec = run_record(pos[0])
    want = {}
    nodes_of_workers = []
    for w in rec["workers"]:
        nd = node_of(w["last_cpu"])
        nodes_of_workers.append(nd)
        want[nd] = want.get(nd, 0) + w["pages"]
    lines = region_lines(rec)
    check(len(lines) > 0, "no numa_maps line with pages (-N)")
    got, per_vma = {}, []
    for addr, policy, kv in lines:
        check(policy == (o["policy"] or "default"),
              "VMA at %x: policy %s, want %s" % (addr, policy, o["policy"]))
        on = {int(k[1:]): int(v) for k, v in kv.items()
              if re.fullmatch(r"N\d+", k)}
        for k, v in on.items():
            got[k] = got.get(k, 0) + v
        per_vma.append(on)
    extra = {k: got.get(k, 0) - want.get(k, 0) for k in set(got) | set(want)}
    slack = 0 if o["per-thread"] else NEIGHBOUR_PAGES
    check(min(extra.values()) >= 0 and sum(extra.values()) <= slack,
          "pages per node %s, want %s (from the workers' CPUs)" %
          (sorted(got.items()), sorted(want.items())))
    if o["per-thread"]:
        check(all(len(v) == 1 for v in per_vma),
              "a worker's VMA spans nodes: %s" % per_vma)
        hist = sorted(k for v in per_vma for k in v)
        check(hist == sorted(nodes_of_workers),
              "VMA nodes %s, worker nodes %s" % (hist,
                                                sorted(nodes_of_workers)))


# ---- pft-sweep's CPU groups ----------------------------------------------

GROUPERS = {"l3": l3_of, "core": core_of, "node": node_of}


def cmd_sweep(args):
    o, pos = opts(args, [], ["groups", "counts"])
    group = GROUPERS[o["groups"]]
    with open(pos[1]) as f:
        doc = json.load(f)
    allowed = sorted(os.sched_getaffinity(0))
    ngroups = len({group(c) for c in allowed})
    runs = {}
    with open(pos[0]) as f:
        for line in f:
            if line.startswith("{"):
                r = json.loads(line)
                if r.get("schema") == "pft-run/1":
                    runs.setdefault(r["config"]["cpus"], []).append(r)
    counts = [int(x) for x in o["counts"].split(",")]
    check([p["workers"] for p in doc["points"]] == counts,
          "points %s, want %s" % ([p["workers"] for p in doc["points"]],
                                  counts))
    prev = []
    for p in doc["points"]:
        n = p["workers"]
        # pft-sweep writes the list as pft takes it ("0-1,7"); pinned
        # workers take its CPUs in ascending order.
        cpus = sorted(cpulist(p["cpus"])) if p["cpus"] else []
        check(p["status"] == 0, "point %d: pft exited %s" % (n, p["status"]))
        check(len(cpus) == n, "point %d: CPUs %s" % (n, p["cpus"]))
        check(set(cpus) <= set(allowed), "point %d: CPUs %s not allowed" %
              (n, p["cpus"]))
        groups = [group(c) for c in cpus]
        check(len(set(groups)) == len(cpus), "point %d: CPUs %s share a "
              "%s" % (n, p["cpus"], o["groups"]))
        if n == ngroups:
            check(len(set(groups)) == ngroups, "point %d does not cover "
                  "the %d groups" % (n, ngroups))
        check(cpus[:len(prev)] == prev, "point %d: CPUs %s do not start "
              "with the smaller point's %s" % (n, cpus, prev))
        prev = cpus
        done = runs.get(p["cpus"], [])
        if not check(len(done) == len(p["runs"]) and done,
                     "point %d: %d pft runs logged, sweep counted %d" %
                     (n, len(done), len(p["runs"]))):
            continue
        for r in done:
            last = [w["last_cpu"] for w in r["workers"]]
            check(last == cpus, "point %d ran on %s, want %s" %
                  (n, last, cpus))
            if o["groups"] == "node":
                check_local_pages(n, r)


def check_local_pages(n, rec):
    """A point of --cpu-groups=node: each worker's pages (pft's --json
    node_pages) are on the node of its CPU, 99% at least, as the default
    policy (first touch) puts them."""
    for w in rec["workers"]:
        np = w.get("node_pages")
        if not check(np is not None and sum(np) == w["pages"],
                     "point %d, worker %d: node_pages %s, pages %d" %
                     (n, w["index"], np, w["pages"])):
            continue
        node = node_of(w["last_cpu"])
        on = np[node] if node < len(np) else 0
        check(on * 100 >= 99 * w["pages"],
              "point %d, worker %d on CPU %d: %d of %d pages on its node "
              "%d (%s)" % (n, w["index"], w["last_cpu"], on, w["pages"],
                           node, np))


def cmd_usage(args):
    o, pos = opts(args, [], ["rc", "want-rc", "names"])
    with open(pos[0]) as f:
        lines = [x.rstrip("\n") for x in f]
    check(int(o["rc"]) == int(o["want-rc"]), "exit status %s, want %s" %
          (o["rc"], o["want-rc"]))
    check(lines and o["names"] in lines[0], "first line %r does not name "
          "%r" % (lines[:1], o["names"]))


# ---- libfaultgen's NUMA policies, through its public API (ctypes) --------

# enum faultgen_numa of faultgen.h
BIND, INTERLEAVE, PREFERRED, WORKER_LOCAL = 2, 3, 4, 5
MIB = 1 << 20


def region_nodes(addr, length):
    """(policy, {node: pages}) of each numa_maps line of the mappings that
    hold [addr, addr + length), from the kernel's own account."""
    lo = addr
    with open("/proc/self/maps") as f:
        for line in f:
            a, b = (int(x, 16) for x in line.split()[0].split("-"))
            if a <= addr < b:
                lo = a
    out = []
    with open("/proc/self/numa_maps") as f:
        for line in f:
            p = line.split()
            if lo <= int(p[0], 16) < addr + length:
                out.append((p[1], {int(k[1:]): int(v) for k, v in
                                   (x.split("=", 1) for x in p[2:])
                                   if re.fullmatch(r"N\d+", k)}))
    return out


def run_policy(lib, policy, nodes, cpus, workers):
    """Runs `workers` pinned threads of 1 MiB each under the policy;
    returns the region's numa_maps lines, or None after a problem."""
    attr, run = ctypes.c_void_p(), ctypes.c_void_p()
    what = "policy %d nodes %s" % (policy, nodes)
    calls = [("attr_new", lambda: lib.faultgen_attr_new(ctypes.byref(attr))),
             ("set_size", lambda: lib.faultgen_attr_set_size(
                 attr, ctypes.c_uint64(workers * MIB))),
             ("set_workers", lambda: lib.faultgen_attr_set_workers(
                 attr, workers, 0)),
             ("set_cpus", lambda: lib.faultgen_attr_set_cpus(
                 attr, cpus.encode())),
             ("set_pin", lambda: lib.faultgen_attr_set_pin(attr, 1)),
             ("set_numa_nodes", lambda: lib.faultgen_attr_set_numa_nodes(
                 attr, policy, nodes.encode() if nodes else None)),
             ("run_new", lambda: lib.faultgen_run_new(attr,
                                                      ctypes.byref(run)))]
    for name, call in calls:
        rc = call()
        if not check(rc == 0, "%s: faultgen_%s: %d" % (what, name, rc)):
            lib.faultgen_attr_free(attr)
            return None
    addr, length = ctypes.c_void_p(), ctypes.c_size_t()
    lib.faultgen_run_region(run, ctypes.byref(addr), ctypes.byref(length))
    lines = region_nodes(addr.value, length.value)
    lib.faultgen_run_free(run)
    lib.faultgen_attr_free(attr)
    return lines


def cmd_policies(args):
    o, _ = opts(args, [], ["cpus"])
    lib = ctypes.CDLL("libfaultgen.so.0")
    lib.faultgen_attr_set_numa_nodes.argtypes = [ctypes.c_void_p,
                                                 ctypes.c_int,
                                                 ctypes.c_char_p]
    for f in ("attr_free", "run_free", "attr_set_size", "attr_set_workers",
              "attr_set_cpus", "attr_set_pin", "run_new", "run_region"):
        getattr(lib, "faultgen_" + f).argtypes = None
    cpus = sorted(cpulist(o["cpus"]))
    nodes = sorted(cpulist(read("/sys/devices/system/node/online")))
    n, pages = len(cpus), len(cpus) * MIB // PAGE
    cpus_text = ",".join(map(str, cpus))

    def expect(policy, nodelist, want_policy, want):
        lines = run_policy(lib, policy, nodelist, cpus_text, n)
        if lines is None:
            return
        got = {}
        for pol, on in lines:
            check(pol in want_policy, "policy %d nodes %s: VMA policy %s, "
                  "want %s" % (policy, nodelist, pol, want_policy))
            for k, v in on.items():
                got[k] = got.get(k, 0) + v
        check(want(got), "policy %d nodes %s: pages per node %s" %
              (policy, nodelist, sorted(got.items())))
        return lines

    for k in nodes:
        expect(BIND, str(k), ["bind:%d" % k], lambda g, k=k: g == {k: pages})
        expect(PREFERRED, str(k), ["prefer:%d" % k],
               lambda g, k=k: g == {k: pages})
    span = "%d-%d" % (nodes[0], nodes[-1]) if len(nodes) > 1 else str(nodes[0])
    share = pages // len(nodes)
    expect(INTERLEAVE, span, ["interleave:" + span],
           lambda g: sum(g.values()) == pages and set(g) == set(nodes) and
           all(abs(v - share) <= 1 for v in g.values()))
    # Each worker's slice bound to the node of its CPU: one VMA per node
    # of the CPUs, holding the pages of the workers there.
    per_node = {}
    for c in cpus:
        per_node[node_of(c)] = per_node.get(node_of(c), 0) + MIB // PAGE
    lines = expect(WORKER_LOCAL, None,
                   ["bind:%d" % k for k in per_node],
                   lambda g: g == per_node)
    if lines:
        vmas = sorted((pol, tuple(sorted(on.items()))) for pol, on in lines)
        want = sorted(("bind:%d" % k, ((k, v),)) for k, v in
                      per_node.items())
        check(vmas == want, "worker-local VMAs %s, want %s" % (vmas, want))


def cmd_nodepages(args):
    """pft's own policies (--membind, --interleave, --preferred,
    --numa=worker-local): the pages each worker counted on each node
    (--json node_pages) are where the policy puts them, 99% at least;
    interleaved pages within one page of equal shares per node."""
    o, pos = opts(args, [], ["policy"])
    rec = run_record(pos[0])
    kind, _, arg = o["policy"].partition(":")
    ws = rec["workers"]
    check(len(ws) > 0, "no worker")
    for w in ws:
        np = w.get("node_pages")
        if not check(np is not None and sum(np) == w["pages"],
                     "worker %d: node_pages %s, pages %d" %
                     (w["index"], np, w["pages"])):
            return
        if kind in ("bind", "preferred"):
            node = int(arg)
        elif kind == "worker-local":
            node = node_of(w["last_cpu"])
        else:
            continue
        on = np[node] if node < len(np) else 0
        check(on * 100 >= 99 * w["pages"],
              "worker %d (%s): %d of %d pages on node %d, %s" %
              (w["index"], o["policy"], on, w["pages"], node, np))
    print("NOTE node_pages " + " ".join(
        "w%d:%s" % (w["index"], ",".join(map(str, w.get("node_pages") or [])))
        for w in ws))
    if kind == "interleave":
        nodes = sorted(cpulist(arg))
        total = rec["node_pages"]
        share = sum(total) / len(nodes)
        for n in range(len(total)):
            want = share if n in nodes else 0
            check(abs(total[n] - want) <= 1,
                  "interleave over %s: %d pages on node %d, want %.1f (%s)"
                  % (arg, total[n], n, want, total))


# ---- QEMU's preallocation -------------------------------------------------

def cmd_qemu(args):
    """qemu-prealloc: the threads QEMU would start (--threads, worked out
    by the case from QEMU's rule), the pages of the RAM, and the faults
    the threads counted against what the RAM is mapped by afterwards."""
    o, pos = opts(args, [], ["threads", "size"])
    rec = run_record(pos[0])
    want = int(o["threads"])
    fig = {k: v["value"] for k, v in rec.get("figures", {}).items()}
    res = rec["result"]
    check(fig.get("threads") == want and res["workers"] == want,
          "threads %s, workers %s, want %d" %
          (fig.get("threads"), res["workers"], want))
    check(fig.get("populate") is True, "populate %s" % fig.get("populate"))
    pages = int(o["size"]) // int(fig.get("step_bytes", 4096))
    check(res["pages"] == pages, "pages %d, want %d" % (res["pages"], pages))
    faults = res["minflt"] + res["majflt"]
    check(res["expected_faults"] <= faults <= res["expected_faults"] + 2,
          "%d faults, the mapping gives %d" %
          (faults, res["expected_faults"]))


# The first kernel whose anonymous faults take the per-VMA lock
# (CONFIG_PER_VMA_LOCK, x86-64, on by default): before it every fault
# takes mmap_lock for reading.
PER_VMA_LOCK = (6, 4)


def kernel_version():
    m = re.match(r"(\d+)\.(\d+)", os.uname().release)
    return (int(m.group(1)), int(m.group(2)))


def cmd_lockpaths(args):
    """pft --lock-paths of a shared VMA of N pages: the user faults its
    workers took, and which lock they took, as this kernel has them."""
    o, pos = opts(args, [], ["pages"])
    lp = run_record(pos[0]).get("lock_paths")
    if not check(lp is not None, "no lock_paths in the JSON (not counted)"):
        return
    pages = int(o["pages"])
    check(pages <= lp["user_faults"] <= pages + pages // 100 + 64,
          "%d user faults for %d pages" % (lp["user_faults"], pages))
    if kernel_version() < PER_VMA_LOCK:
        # No per-VMA lock: every fault read-locked mmap_lock.
        check(lp["fallbacks"] >= lp["user_faults"] and
              lp["mmap_read"] >= lp["user_faults"],
              "%d fallbacks and %d mmap_lock reads for %d user faults on "
              "%s, a kernel without per-VMA locks" %
              (lp["fallbacks"], lp["mmap_read"], lp["user_faults"],
               os.uname().release))
    else:
        check(lp["fallbacks"] <= pages // 100 + 8,
              "%d of %d faults fell back to mmap_lock on %s" %
              (lp["fallbacks"], lp["user_faults"], os.uname().release))


def us(ns):
    return "%.0f" % (ns / 1000.0)


def cold_note(rec, lp, writers):
    """The NOTE line of a cold case: what the run measured (figures for the
    dated tables; never asserted)."""
    lw = rec.get("lock_waits", {}).get("read", {})
    lat = rec.get("latency", {})
    line = ("NOTE majflt %d user %d mmap_read %d trylock_failed %d "
            "fallbacks %d read_waits %d p50/p99 %s/%s us fault p50/p99 "
            "%s/%s us" %
            (rec["result"]["majflt"], lp["user_faults"], lp["mmap_read"],
             lp["mmap_read_trylock_failed"], lp["fallbacks"],
             lw.get("waits", -1), us(lw.get("p50_ns", 0)),
             us(lw.get("p99_ns", 0)), us(lat.get("p50_ns", 0)),
             us(lat.get("p99_ns", 0))))
    if writers:
        wl = rec.get("writers", {})
        hw = rec.get("lock_waits", {}).get("helpers", {}).get("write", {})
        line += (" writers: mmap_write %d calls %d p99 %s us write_waits %d "
                 "p99 %s us" % (lp.get("helpers", {}).get("mmap_write", -1),
                                wl.get("count", -1), us(wl.get("p99_ns", 0)),
                                hw.get("waits", -1), us(hw.get("p99_ns", 0))))
    print(line)


def cmd_coldlock(args):
    """pft --cold --backing=file --touch=read on the dm-delay device, N
    pages over its rounds, with W writers (--writers=W,mprotect) or none:
    each round's pages were dropped from the page cache before it, so
    every fault read its page from the device (a major fault, counted by
    the kernel); which lock the faults took, as this kernel has them;
    the writers' mmap_lock write acquisitions counted apart from the
    workers', and their calls timed."""
    o, pos = opts(args, [], ["pages", "writers"])
    rec = run_record(pos[0])
    pages, writers = int(o["pages"]), int(o["writers"] or 0)
    res = rec["result"]
    check(res["pages"] == pages, "%d pages, want %d" % (res["pages"], pages))
    # A page or two of a round may stay cached (as cli-cold.sh allows).
    check(pages - pages // 64 <= res["majflt"] <= pages + 8,
          "%d major faults for %d pages read cold" % (res["majflt"], pages))
    lat = rec.get("latency")
    if check(lat is not None, "no latency in the JSON (--latency)"):
        check(lat["count"] == pages and lat["overflow"] == 0,
              "%d faults timed (%d overflowed), want %d" %
              (lat["count"], lat["overflow"], pages))
    lp = rec.get("lock_paths")
    if not check(lp is not None, "no lock_paths in the JSON (not counted)"):
        return
    check(lp["threads"] == 2, "lock paths of %d workers, want 2" %
          lp["threads"])
    # Each user fault the kernel counted once more, as a minor or a major
    # fault of the workers (with writers beside them some pages fault
    # twice: the second a minor fault).
    faults = res["majflt"] + res["minflt"]
    check(pages <= lp["user_faults"] <= faults + 8,
          "%d user faults for %d pages (%d major and minor faults)" %
          (lp["user_faults"], pages, faults))
    if kernel_version() < PER_VMA_LOCK:
        # No per-VMA lock: every fault read-locked mmap_lock, and each
        # major fault dropped it for its read and took it again for the
        # retry (filemap_fault's VM_FAULT_RETRY).
        taken = lp["mmap_read"] - lp["mmap_read_trylock_failed"]
        check(lp["fallbacks"] >= lp["user_faults"] and
              taken >= lp["user_faults"] + res["majflt"],
              "%d fallbacks and %d mmap_lock reads taken for %d user "
              "faults and %d major faults on %s, a kernel without per-VMA "
              "locks" % (lp["fallbacks"], taken, lp["user_faults"],
                         res["majflt"], os.uname().release))
    check(lp["mmap_write"] == 0, "the workers took mmap_lock for writing "
          "%d times (the writers' counted as theirs?)" % lp["mmap_write"])
    lw = rec.get("lock_waits")
    if check(lw is not None, "no lock_waits in the JSON (--lock-waits)"):
        rd = lw["read"]
        check(rd["waits"] <= rd["acquisitions"] and
              (lw["lost"] > 0 or rd["acquisitions"] >= lp["user_faults"] or
               kernel_version() >= PER_VMA_LOCK),
              "ring buffer: %d read acquisitions (%d waited) for %d user "
              "faults, %d events lost" % (rd["acquisitions"], rd["waits"],
                                           lp["user_faults"], lw["lost"]))
    check_writers_apart(rec, lp, lw, writers)
    cold_note(rec, lp, writers)


def check_writers_apart(rec, lp, lw, writers):
    """The writers' threads are the helpers of the lock paths and waits;
    each of their mprotect calls took mmap_lock for writing once."""
    helpers = lp.get("helpers")
    wl = rec.get("writers")
    if not writers:
        check(not helpers or helpers["threads"] == 0,
              "helpers' lock paths without writers: %s" % helpers)
        check(wl is None, "writer latency without writers")
        return
    if not check(helpers is not None and helpers["threads"] == writers,
                 "helpers' lock paths %s, want %d writer threads" %
                 (helpers, writers)):
        return
    if not check(wl is not None and wl["call"] == "mprotect",
                 "writer latency %s, want mprotect calls" %
                 (wl and wl.get("call"))):
        return
    check(wl["count"] > 0 and wl["p99_ns"] > 0,
          "%d writer calls timed" % wl["count"])
    # The counters and the timer of a writer cover nearly the same calls
    # (each window opened and closed by the writer apart): 90% at least.
    check(helpers["mmap_write"] * 10 >= wl["count"] * 9,
          "the writers' %d mmap_lock writes for %d mprotect calls" %
          (helpers["mmap_write"], wl["count"]))
    hw = (lw or {}).get("helpers", {}).get("write")
    if check(hw is not None, "no helpers' write waits in lock_waits"):
        check(lw["helpers"]["lost"] > 0 or
              hw["acquisitions"] * 10 >= wl["count"] * 9,
              "ring buffer: the writers' %d write acquisitions for %d "
              "calls" % (hw["acquisitions"], wl["count"]))


COMMANDS = {"coldlock": cmd_coldlock, "lockpaths": cmd_lockpaths, "nodepages": cmd_nodepages, "topology": cmd_topology, "run": cmd_run, "legacy": cmd_legacy,
            "vmas": cmd_vmas, "numa": cmd_numa, "sweep": cmd_sweep,
            "usage": cmd_usage, "policies": cmd_policies,
            "qemu": cmd_qemu}


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print("usage: check.py %s ..." % "|".join(COMMANDS))
        return 2
    try:
        COMMANDS[sys.argv[1]](sys.argv[2:])
    except (OSError, ValueError, KeyError, IndexError, TypeError,
            StopIteration) as e:
        problems.append("%s: %s" % (type(e).__name__, e))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
