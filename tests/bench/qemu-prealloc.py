#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# qemu-prealloc.py - the real QEMU's guest-RAM preallocation next to
# libfaultgen's emulation of it (pft --pattern=qemu-prealloc), counting
# the faults the kernel counted.
# Copyright (C) 2026 The libfaultgen authors
"""
For each THP mode, backend, size and prealloc-threads value, QEMU is
started with -S and quit at once from its monitor, with prealloc=on and
with prealloc=off; what preallocation adds is on minus off, counted two
ways:

- The window (the table's QEMU window on-off, which the emulation is held
  to): WINDOWS runs each of QEMU under a small ptrace tool built here,
  which reads the process's minor faults (/proc/PID/stat: every thread's,
  live or ended) at two system-call stops: the guest RAM's reservation
  (an mmap of its size plus QEMU's alignment) and the monitor's first
  output (writev), and counts the threads started between them.  Stops
  fault nothing in QEMU, and the window leaves out what QEMU's start and
  exit do around it, which varies by a few faults from run to run: with
  the layout fixed, the window's counts repeat from run to run.
  Preallocation = median(on) - median(off); QEMU's threads the same.
- The whole run, for comparison: RUNS times each, interleaved, each QEMU
  alone in a memory cgroup made for it, whose memory.stat pgfault is read
  after QEMU exits, and its minor faults from wait4's rusage (every
  thread).  The medians' difference moves by a few faults with QEMU's
  start-up.

Every one of these counts a fault taken by MADV_POPULATE_WRITE.  The
emulation runs RUNS times too: its figure process_faults is the process's
minor faults from the probe to the last join (thread starts included);
the median of the runs is compared.  A cell holds when the emulation is
within 0.5% or 2 faults, whichever is larger, of the window's figure,
with the same threads.

Needs root (the cgroup, ptrace, and
/sys/kernel/mm/transparent_hugepage/enabled, which is set for each mode
and put back at the end), qemu-system-x86_64, cc and setarch.  QEMU's
runs and the emulation's have address space layout randomization off
(setarch -R): a start faults a few pages more or fewer as its libraries
and heap land (a file fault maps the cached pages around it, within an
aligned window).  Not a make-check test: it starts QEMU hundreds of times.

  tests/bench/qemu-prealloc.py [-b BUILDDIR] [-s 256M,1G] [-t 1,2,4]
      [-k ram,memfd,memfd-hugetlb] [-T madvise,never] [-n RUNS]
      [-w WINDOWS] [-M none|pc] [--touch]

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

WINDOW = r"""
/* window OUT MINLEN MAXLEN COMMAND...: the minor and major faults of the
 * process (/proc/PID/stat: every thread's, live or ended) from its first
 * thread's first mmap call of MINLEN to MAXLEN bytes to that thread's
 * first writev call, both read as the calls enter, and the threads it
 * started in between.  Read at system-call stops under ptrace, which
 * fault nothing in the traced process; PTRACE_GET_SYSCALL_INFO (Linux
 * 5.3) tells an entry from an exit and gives the call's arguments. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int faults(pid_t pid, unsigned long long *min, unsigned long long *maj)
{
	char path[64], buf[4096], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	if (!p)
		return -1;
	return sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %llu %*u %llu", min,
		      maj) == 2 ? 0 : -1;
}

int main(int argc, char **argv)
{
	enum { WAIT, IN, DONE } state = WAIT;
	unsigned long long min0 = 0, maj0 = 0, min1 = 0, maj1 = 0, minlen, maxlen;
	int status, threads = 0;
	pid_t pid;
	FILE *out;

	if (argc < 5)
		return 2;
	minlen = strtoull(argv[2], NULL, 0);
	maxlen = strtoull(argv[3], NULL, 0);
	pid = fork();
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		execvp(argv[4], argv + 4);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	ptrace(PTRACE_SETOPTIONS, pid, NULL,
	       (void *)(long)(PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACECLONE |
			      PTRACE_O_EXITKILL));
	ptrace(PTRACE_SYSCALL, pid, NULL, NULL);
	for (;;) {
		pid_t tid = waitpid(-1, &status, __WALL);
		int sig = 0;

		if (tid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			if (tid == pid)
				break;
			continue;
		}
		if (!WIFSTOPPED(status))
			continue;
		if (WSTOPSIG(status) == (SIGTRAP | 0x80)) {
			struct __ptrace_syscall_info si;

			if (tid == pid && state != DONE &&
			    ptrace(PTRACE_GET_SYSCALL_INFO, tid,
				   (void *)sizeof(si), &si) > 0 &&
			    si.op == PTRACE_SYSCALL_INFO_ENTRY) {
				if (state == WAIT && si.entry.nr == SYS_mmap &&
				    si.entry.args[1] >= minlen &&
				    si.entry.args[1] <= maxlen) {
					faults(pid, &min0, &maj0);
					state = IN;
				} else if (state == IN &&
					   si.entry.nr == SYS_writev) {
					faults(pid, &min1, &maj1);
					state = DONE;
				}
			}
		} else if (status >> 8 == (SIGTRAP | (PTRACE_EVENT_CLONE << 8))) {
			threads += state == IN;
		} else if (WSTOPSIG(status) != SIGSTOP &&
			   WSTOPSIG(status) != SIGTRAP) {
			sig = WSTOPSIG(status);
		}
		ptrace(state == DONE ? PTRACE_CONT : PTRACE_SYSCALL, tid, NULL,
		       (void *)(long)sig);
	}
	out = fopen(argv[1], "w");
	if (!out)
		return 1;
	fprintf(out, "%d %llu %llu %d\n", state == DONE, min1 - min0,
		maj1 - maj0, threads);
	fclose(out);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
"""

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


def run_window(tool, args, size, env, tmp):
    """QEMU under the window tool: (minor faults, threads started) from
    the guest RAM's reservation (size plus QEMU's alignment, a page to
    2 MiB) to the monitor's first output (writev)."""
    out = os.path.join(tmp, "window.out")
    subprocess.run(NO_ASLR + [tool, out, str(size + 4096),
                              str(size + (2 << 20))] + args,
                   input=b"quit\n", env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)
    with open(out) as f:
        done, minflt, _majflt, threads = f.read().split()
    if done != "1":
        raise RuntimeError(f"{' '.join(args)}: no window (RAM mapping, "
                           "then the monitor's output) seen")
    return int(minflt), int(threads)


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
    ap.add_argument("-w", type=int, default=3)
    ap.add_argument("-M", default="none", choices=["none", "pc"])
    ap.add_argument("--touch", action="store_true")
    o = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("qemu-prealloc: needs root (a memory cgroup, THP modes)")
    for tool in ("qemu-system-x86_64", "cc"):
        if not shutil.which(tool):
            sys.exit(f"qemu-prealloc: {tool} not found")
    pft = os.path.join(o.b, "pft", "pft")
    if not os.access(pft, os.X_OK):
        sys.exit(f"qemu-prealloc: no {pft}: build first, or give -b")
    cgroot = memory_cgroup_root()
    tmp = tempfile.mkdtemp(prefix="qemu-prealloc.")
    env = dict(os.environ)
    window = os.path.join(tmp, "window")
    with open(window + ".c", "w") as f:
        f.write(WINDOW)
    subprocess.run(["cc", "-O2", "-o", window, window + ".c"], check=True)
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
          f"{'ASLR off' if NO_ASLR else 'ASLR on'}")
    print("| THP | backend | size | threads (QEMU/emu) | QEMU window "
          "on-off | QEMU cgroup pgfault | QEMU minflt | emulation | "
          "huge MiB | difference | holds |")
    print("|---|---|---|---|---:|---:|---:|---:|---:|---:|---|")
    bad = 0
    try:
        for thp in o.T.split(","):
            with open(THP, "w") as f:
                f.write(thp)
            for kind in o.k.split(","):
                for size in o.s.split(","):
                    nbytes = parse_size(size)
                    for t in [int(x) for x in o.t.split(",")]:
                        on = qemu_args(kind, size, t, "on", o.M)
                        off = qemu_args(kind, size, t, "off", o.M)
                        q_on, q_off, w_on, w_off, e = [], [], [], [], []
                        run_qemu(off, cgroot, env)  # warm the caches
                        for _ in range(o.n):
                            q_off.append(run_qemu(off, cgroot, env))
                            q_on.append(run_qemu(on, cgroot, env))
                            e.append(run_emulation(pft, kind, size, t,
                                                   o.touch))
                        for _ in range(o.w):
                            w_off.append(run_window(window, off, nbytes,
                                                    env, tmp))
                            w_on.append(run_window(window, on, nbytes,
                                                   env, tmp))
                        pg = (statistics.median(x[0] for x in q_on) -
                              statistics.median(x[0] for x in q_off))
                        mf = (statistics.median(x[1] for x in q_on) -
                              statistics.median(x[1] for x in q_off))
                        win = (statistics.median(x[0] for x in w_on) -
                               statistics.median(x[0] for x in w_off))
                        qt = (statistics.median(x[1] for x in w_on) -
                              statistics.median(x[1] for x in w_off))
                        emu = statistics.median(x[0] for x in e)
                        et = e[0][2]
                        huge = e[0][4] >> 20
                        diff = emu - win
                        ok = (abs(diff) <= max(2, 0.005 * win) and qt == et)
                        bad += not ok
                        print(f"| {thp} | {kind} | {size} | {qt:g}/{et} | "
                              f"{win:g} | {pg:g} | {mf:g} | {emu:g} | "
                              f"{huge} | {diff:+g} | "
                              f"{'yes' if ok else 'NO'} |", flush=True)
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
