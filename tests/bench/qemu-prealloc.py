#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# qemu-prealloc.py - the real QEMU's guest-RAM preallocation next to
# libfaultgen's emulation of it (pft --pattern=qemu-prealloc), counting
# the faults the kernel counted.
# Copyright (C) 2026 The libfaultgen authors
"""
For each THP mode, backend, size and prealloc-threads value, QEMU is
started with -S and quit at once from its monitor, with prealloc=on and
with prealloc=off, RUNS times each, interleaved; what preallocation adds
is the median of the on runs minus the median of the off runs.  Each
QEMU runs alone in a memory cgroup made for it, whose memory.stat pgfault
is read after QEMU exits; its minor faults come from wait4's rusage (every
thread of the process).  Both count a fault taken by MADV_POPULATE_WRITE.

The emulation runs RUNS times too: its figure process_faults is the
process's minor faults from the probe to the last join (thread starts
included), the median of the runs is compared.  QEMU's threads are
counted from one more pair of runs under strace -f (clone calls, on minus
off).  A cell holds when the emulation is within 0.5% or 2 faults,
whichever is larger, of the memory cgroup's figure, with the same threads.

Needs root (the cgroup, and /sys/kernel/mm/transparent_hugepage/enabled,
which is set for each mode and put back at the end), qemu-system-x86_64,
strace and setarch.  QEMU's runs and the emulation's have address space
layout randomization off (setarch -R): a start faults a few pages more or
fewer as its libraries and heap land (a file fault maps the cached pages
around it, within an aligned window).  Not a make-check test: it starts QEMU hundreds of times.

  tests/bench/qemu-prealloc.py [-b BUILDDIR] [-s 256M,1G] [-t 1,2,4]
      [-k ram,memfd,memfd-hugetlb] [-T madvise,never] [-n RUNS]
      [-M none|pc] [--touch]

-k memfd-hugetlb: memory-backend-memfd,hugetlb=on,hugetlbsize=2M against
pft --backing=hugetlb --share; nr_hugepages is raised for it and put
back at the end.

-M: the machine QEMU is started with: none (the default: the backend is
created and preallocated, and no machine runs beside it) or pc (the
backend is the guest's RAM; the machine's own start adds faults that vary
from run to run by a few).  --touch: the emulation with --qemu=touch and
QEMU with MADV_POPULATE_WRITE refused (an LD_PRELOAD shim built here that
answers EINVAL, as a kernel before 5.14 does).
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

THP = "/sys/kernel/mm/transparent_hugepage/enabled"
NR_HUGE = "/proc/sys/vm/nr_hugepages"


def parse_size(s):
    m = re.fullmatch(r"(\d+)([kKmMgG]?)", s)
    if not m:
        sys.exit(f"qemu-prealloc: bad size '{s}' (e.g. 256M, 1G)")
    return int(m.group(1)) << {"": 0, "k": 10, "m": 20, "g": 30}[
        m.group(2).lower()]

SHIM = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
int madvise(void *addr, size_t len, int advice)
{
	static int (*real)(void *, size_t, int);

	if (advice == MADV_POPULATE_WRITE) {
		errno = EINVAL;
		return -1;
	}
	if (!real)
		real = (int (*)(void *, size_t, int))dlsym(RTLD_NEXT, "madvise");
	return real(addr, len, advice);
}
"""


def memory_cgroup_root():
    """The directory of this process's memory cgroup (v1 or v2)."""
    v1 = v2 = None
    with open("/proc/self/cgroup") as f:
        for line in f:
            _, ctrl, path = line.rstrip("\n").split(":", 2)
            if "memory" in ctrl.split(","):
                v1 = "/sys/fs/cgroup/memory" + path
            elif ctrl == "":
                v2 = "/sys/fs/cgroup" + path
    for d in (v1, v2):
        if d and os.path.exists(os.path.join(d, "memory.stat")):
            return d
    sys.exit("qemu-prealloc: no memory cgroup with memory.stat found")


def pgfault(cg):
    with open(os.path.join(cg, "memory.stat")) as f:
        for line in f:
            k, v = line.split()
            if k == "pgfault":
                return int(v)
    raise RuntimeError("no pgfault in memory.stat")


def qemu_args(kind, size, threads, prealloc, machine):
    backend = "memfd" if kind == "memfd-hugetlb" else kind
    obj = (f"memory-backend-{backend},id=m0,size={size},prealloc={prealloc},"
           f"prealloc-threads={threads}")
    if kind == "memfd-hugetlb":
        obj += ",hugetlb=on,hugetlbsize=2M"

    if machine == "pc":
        mach = ["-machine", "pc,accel=tcg,memory-backend=m0", "-m", size]
    else:
        mach = ["-machine", "none"]
    return (["qemu-system-x86_64", "-S", "-display", "none", "-nodefaults"]
            + mach + ["-object", obj, "-monitor", "stdio"])


# QEMU's own start faults a few pages more or fewer from run to run as
# address space layout randomization places its libraries and heap: its
# runs have the layout fixed (setarch -R), as one run to the next.
NO_ASLR = ["setarch", "-R"] if shutil.which("setarch") else []


def run_qemu(args, cgroot, env, wrap=()):
    """Starts QEMU in a fresh memory cgroup, quits it from the monitor:
    (cgroup pgfault, wait4 minflt)."""
    cg = os.path.join(cgroot, f"fg-qemu-prealloc-{os.getpid()}")
    os.mkdir(cg)
    try:
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                with open(os.path.join(cg, "cgroup.procs"), "w") as f:
                    f.write(str(os.getpid()))
                os.dup2(r, 0)
                os.close(w)
                null = os.open("/dev/null", os.O_WRONLY)
                os.dup2(null, 1)
                os.dup2(null, 2)
                argv = NO_ASLR + list(wrap) + args
                os.execvpe(argv[0], argv, env)
            finally:
                os._exit(127)
        os.close(r)
        os.write(w, b"quit\n")
        os.close(w)
        _, status, ru = os.wait4(pid, 0)
        if status != 0:
            raise RuntimeError(f"{' '.join(args)}: exit status {status}")
        return pgfault(cg), ru.ru_minflt
    finally:
        os.rmdir(cg)


def qemu_threads(args, env, tmp):
    """Threads QEMU starts: clone calls under strace -f."""
    out = os.path.join(tmp, "strace")
    subprocess.run(NO_ASLR + ["strace", "-f", "-qq", "-e",
                              "trace=clone,clone3", "-o", out] + args, input=b"quit\n", env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True)
    with open(out) as f:
        return sum(1 for line in f if re.search(r"clone3?\(", line)
                   and "CLONE_THREAD" in line)


def run_emulation(pft, kind, size, threads, touch):
    args = [pft, "--pattern=qemu-prealloc", "-m", size, "-t", str(threads),
            "--json"]
    if kind == "memfd":
        args += ["--backing=memfd", "--share"]
    elif kind == "memfd-hugetlb":
        args += ["--backing=hugetlb", "--share"]
    if touch:
        args.append("--qemu=touch")
    # The same fixed layout as QEMU's runs: where the libraries land
    # decides which of their pages a first fault maps around it.
    out = subprocess.run(NO_ASLR + args, capture_output=True, check=True,
                         text=True)
    d = json.loads(out.stdout)
    fig = {k: v["value"] for k, v in d["figures"].items()}
    return (int(fig["process_faults"]), int(d["result"]["minflt"]),
            int(fig["threads_started"]), int(fig["threads"]),
            int(fig.get("huge_page_bytes", 0)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-b", default=".", help="build tree holding pft/pft")
    ap.add_argument("-s", default="256M,1G")
    ap.add_argument("-t", default="1,2,4")
    ap.add_argument("-k", default="ram,memfd")
    ap.add_argument("-T", default="madvise,never")
    ap.add_argument("-n", type=int, default=5)
    ap.add_argument("-M", default="none", choices=["none", "pc"])
    ap.add_argument("--touch", action="store_true")
    o = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("qemu-prealloc: needs root (a memory cgroup, THP modes)")
    for tool in ("qemu-system-x86_64", "strace"):
        if not shutil.which(tool):
            sys.exit(f"qemu-prealloc: {tool} not found")
    pft = os.path.join(o.b, "pft", "pft")
    if not os.access(pft, os.X_OK):
        sys.exit(f"qemu-prealloc: no {pft}: build first, or give -b")
    cgroot = memory_cgroup_root()
    tmp = tempfile.mkdtemp(prefix="qemu-prealloc.")
    env = dict(os.environ)
    if o.touch:
        so = os.path.join(tmp, "no-populate.so")
        src = os.path.join(tmp, "no-populate.c")
        with open(src, "w") as f:
            f.write(SHIM)
        subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", so, src,
                        "-ldl"], check=True)
        env["LD_PRELOAD"] = so
    with open(THP) as f:
        thp_was = re.search(r"\[(\w+)\]", f.read()).group(1)
    with open(NR_HUGE) as f:
        huge_was = int(f.read())
    if "memfd-hugetlb" in o.k:
        # Two of the largest size: QEMU's and the emulation's, one after
        # the other, and as many again for the pages others hold.
        most = max(parse_size(x) for x in o.s.split(",")) >> 21
        with open(NR_HUGE, "w") as f:
            f.write(str(huge_was + 2 * most))
    version = subprocess.run(["qemu-system-x86_64", "--version"],
                             capture_output=True, text=True).stdout
    print(f"# {version.splitlines()[0]}; machine {o.M}; {o.n} runs; "
          f"cgroup {cgroot}; {'touch' if o.touch else 'auto'}; "
          f"{'ASLR off for QEMU' if NO_ASLR else 'ASLR on'}")
    print("| THP | backend | size | threads (QEMU/emu) | QEMU cgroup "
          "pgfault | QEMU minflt | emulation | huge MiB | difference | "
          "holds |")
    print("|---|---|---|---|---:|---:|---:|---:|---:|---|")
    bad = 0
    try:
        for thp in o.T.split(","):
            with open(THP, "w") as f:
                f.write(thp)
            for kind in o.k.split(","):
                for size in o.s.split(","):
                    for t in [int(x) for x in o.t.split(",")]:
                        on = qemu_args(kind, size, t, "on", o.M)
                        off = qemu_args(kind, size, t, "off", o.M)
                        q_on, q_off, e = [], [], []
                        run_qemu(off, cgroot, env)  # warm the caches
                        for _ in range(o.n):
                            q_off.append(run_qemu(off, cgroot, env))
                            q_on.append(run_qemu(on, cgroot, env))
                            e.append(run_emulation(pft, kind, size, t,
                                                   o.touch))
                        pg = (statistics.median(x[0] for x in q_on) -
                              statistics.median(x[0] for x in q_off))
                        mf = (statistics.median(x[1] for x in q_on) -
                              statistics.median(x[1] for x in q_off))
                        qt = (qemu_threads(on, env, tmp) -
                              qemu_threads(off, env, tmp))
                        emu = statistics.median(x[0] for x in e)
                        et = e[0][2]
                        huge = e[0][4] >> 20
                        diff = emu - pg
                        ok = (abs(diff) <= max(2, 0.005 * pg) and qt == et)
                        bad += not ok
                        print(f"| {thp} | {kind} | {size} | {qt}/{et} | "
                              f"{pg:g} | {mf:g} | {emu:g} | {huge} | "
                              f"{diff:+g} | {'yes' if ok else 'NO'} |",
                              flush=True)
    finally:
        with open(THP, "w") as f:
            f.write(thp_was)
        with open(NR_HUGE, "w") as f:
            f.write(str(huge_was))
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"# {bad} cells out of bounds")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
