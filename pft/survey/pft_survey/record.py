# SPDX-License-Identifier: GPL-2.0-or-later
# pft_survey.record - the recording: perf record of the program it runs
# (or the process it attaches to) and its descendants, started before
# the program execs and stopped after it, the snapshots of /proc
# meanwhile, and the program's stop signals (pft_survey.lifetime).
#
# Copyright (C) 2026 The libfaultgen authors

import os
import select
import shutil
import signal
import subprocess
import time

from . import kinds, lifetime
from .base import MiB, PAGE, SNAP_S, SurveyError, msg
from .perfscript import parse_script, parse_stats
from .proc import Snapshots, descendants, parse_maps, parse_stat, read
from .vmas import present_pages


def check_perf():
    perf = shutil.which("perf")
    if not perf:
        raise SurveyError("perf not found: install Debian's linux-perf "
                          "package (perf record does the recording)")
    text = read("/proc/sys/kernel/perf_event_paranoid")
    try:
        level = int(text)
    except (TypeError, ValueError):
        level = None
    if level is not None and level > 2 and os.geteuid() != 0:
        raise SurveyError("perf_event_paranoid is %d: recording one's own "
                          "processes needs 2 or lower (sysctl "
                          "kernel.perf_event_paranoid=2)" % level)
    return perf


def check_pid(pid):
    st = None
    try:
        st = os.stat("/proc/%d" % pid)
    except OSError:
        pass
    if st is None or parse_stat(read("/proc/%d/stat" % pid) or "") is None:
        raise SurveyError("no process %d" % pid)
    if st.st_uid != os.geteuid() and os.geteuid() != 0:
        raise SurveyError("process %d belongs to another user (uid %d): "
                          "perf records one's own processes only" %
                          (pid, st.st_uid))


def first_line(text):
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("[ perf record"):
            return line
    return ""


def buffer_pages(euid, ncpus):
    """perf record's -m: the pages of each CPU's ring buffer, or None for
    perf's own size.  A sample takes about 50 bytes (perf.data of 900 KB
    for 17,761 here): a fault a microsecond is 50 MB/s, and where perf
    reads late (a busy machine) a larger buffer loses fewer.  Only
    root is not held to perf_event_mlock_kb (perf's default, 512 KiB);
    root gets 32 MiB in all, from 512 KiB to 8 MiB a CPU, a power of 2."""
    if euid != 0:
        return None
    per_cpu = 32 * MiB // max(1, ncpus or 1)
    per_cpu = max(512 * 1024, min(8 * MiB, per_cpu))
    pages = per_cpu // PAGE
    return 1 << (pages.bit_length() - 1)


class PerfStartError(SurveyError):
    """perf record did not start: text is the first line it wrote."""

    def __init__(self, line, text):
        super().__init__(line)
        self.text = text


class Perf:
    """perf record of one process tree, started with its events disabled
    and enabled through its control FIFO before the program runs.  perf
    ends with the survey, killed or not (PR_SET_PDEATHSIG).  mask: the
    signal mask perf runs with; synth_task: perf synthesizes the tasks
    present, not their mappings (which it may be unable to read); source:
    the events recorded (kinds.TRACEPOINTS or kinds.PAGE_FAULTS)."""

    def __init__(self, perf, tmp, pid, period, pids=None, mask=None,
                 synth_task=False, source=None):
        self.tmp = tmp
        self.data = os.path.join(tmp, "perf.data")
        ctl, ack = os.path.join(tmp, "ctl"), os.path.join(tmp, "ack")
        for fifo in (ctl, ack):
            if os.path.lexists(fifo):       # an earlier attempt's
                os.unlink(fifo)
            os.mkfifo(fifo)
        self.err = open(os.path.join(tmp, "perf.err"), "w+")
        self.source = source or kinds.PAGE_FAULTS
        # The mapping calls (a profile's calls): madvise, and mprotect,
        # munmap and mmap where the kernel has their tracepoints.
        self.calls = kinds.calls_traceable() \
            if self.source == kinds.TRACEPOINTS else ()
        self.madvise = "madvise" in self.calls
        # Fallbacks are told from the event before an acquisition: every
        # event, not a sample.
        self.locks = self.source == kinds.TRACEPOINTS and period == 1 and \
            kinds.locks_traceable()
        cmd = [perf, "record"] + kinds.events(self.source, self.madvise,
                                              self.locks, self.calls) + [
               "-c", str(period),
               "-k", "CLOCK_MONOTONIC", "-o", self.data, "-D", "-1",
               "--control", "fifo:%s,%s" % (ctl, ack), "-p",
               ",".join(str(p) for p in (pids or [pid]))]
        if synth_task:
            cmd[2:2] = ["--synth=task"]
        pages = buffer_pages(os.geteuid(), os.cpu_count())
        if pages:
            cmd[2:2] = ["-m", str(pages)]
        # A session of its own: Ctrl-C stops the program, and then perf.
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL,
                                     stderr=self.err, start_new_session=True,
                                     preexec_fn=lifetime.preexec(mask))
        ackfd = os.open(ack, os.O_RDONLY | os.O_NONBLOCK)
        try:
            ctlfd = self.open_ctl(ctl)
            try:
                self.enable(ctlfd)
                self.wait_ack(ackfd)
            finally:
                os.close(ctlfd)
        finally:
            os.close(ackfd)

    def enable(self, ctlfd):
        try:
            os.write(ctlfd, b"enable\n")
        except BrokenPipeError:
            # perf opened its FIFO and failed before reading it.
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
            raise self.failure() from None

    def failure(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
            return PerfStartError("perf record did not start recording in "
                                  "30 s", "")
        self.err.seek(0)
        text = first_line(self.err.read())
        self.err.close()
        return PerfStartError("perf record failed (exit status %d)%s" % (
            self.proc.returncode, ": " + text if text else ""), text)

    def open_ctl(self, ctl):
        deadline = time.monotonic() + 30
        while True:
            try:
                return os.open(ctl, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise self.failure()
            time.sleep(0.005)

    def wait_ack(self, fd):
        # Until perf opens its end, the FIFO reads as empty (EOF).
        deadline = time.monotonic() + 30
        got = b""
        while b"ack" not in got:
            r, _, _ = select.select([fd], [], [], 0.05)
            data = b""
            if r:
                try:
                    data = os.read(fd, 64)
                except BlockingIOError:
                    pass
            got += data
            if b"ack" in got:
                break
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise self.failure()
            if not data:
                time.sleep(0.005)

    def stop(self, wait_s=5):
        """perf ends by itself when its process is gone; else SIGINT."""
        try:
            self.proc.wait(timeout=wait_s)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.err.close()

    def script(self, perf):
        cmd = [perf, "script", "-i", self.data, "-F",
               "comm,pid,tid,time,period,event,addr,trace",
               "--show-mmap-events", "--show-task-events",
               "--show-lost-events"]
        out = os.path.join(self.tmp, "script.txt")
        with open(out, "w") as f, open(os.path.join(self.tmp, "script.err"),
                                       "w+") as e:
            rc = subprocess.call(cmd, stdin=subprocess.DEVNULL, stdout=f,
                                 stderr=e)
            if rc != 0:
                e.seek(0)
                raise SurveyError("perf script failed: %s" %
                                  first_line(e.read()))
        # A path as the kernel has it, bytes not UTF-8 kept (see read).
        with open(out, errors="surrogateescape") as f:
            rec = parse_script(f)
        rec.source = getattr(self, "source", None)
        rec.madvise_recorded = getattr(self, "madvise", False)
        rec.calls_recorded = tuple(getattr(self, "calls", ()))
        rec.locks_recorded = getattr(self, "locks", False)
        rec.lost_totals = max(rec.lost_totals, self.kernel_lost(perf))
        return rec

    def kernel_lost(self, perf):
        """The kernel's own count of the samples it dropped (0 where perf
        or the kernel has none, or perf report fails)."""
        cmd = [perf, "report", "-i", self.data, "--stats"]
        try:
            out = subprocess.run(cmd, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, timeout=600,
                                 errors="replace").stdout
        except (OSError, subprocess.SubprocessError):
            return 0
        return parse_stats(out.splitlines())


# ---- the survey -------------------------------------------------------------

# After a stop signal, the program has STOP_GRACE_S seconds to end before
# it is killed (pft gives its run as long).
STOP_GRACE_S = 5
# perf record -p of processes that come and go: the least age (seconds)
# of the child processes given to perf in each try (0: all of them)
# before perf is given the process alone.
PERF_ATTACH_AGES = (0, 0, 0.1, 1.0)


def spawn(cmd, stdout_to_stderr=False, mask=None):
    """Forks the program, held before its exec until a byte comes on its
    pipe (it ends without one: the survey is gone).  stdout_to_stderr:
    its standard output goes to standard error (stdout carries the JSON
    report).  It dies with the survey, and runs with the signal mask
    `mask`."""
    go_r, go_w = os.pipe()
    err_r, err_w = os.pipe2(os.O_CLOEXEC)
    setup = lifetime.preexec(mask)
    pid = os.fork()
    if pid == 0:
        try:
            os.close(go_w)
            os.close(err_r)
            setup()
            if os.read(go_r, 1) != b"x":
                os._exit(127)
            os.close(go_r)
            if stdout_to_stderr:
                os.dup2(2, 1)
            os.execvp(cmd[0], cmd)
        except OSError as e:
            os.write(err_w, str(e.errno).encode())
        finally:
            os._exit(127)
    os.close(go_r)
    os.close(err_w)
    return pid, go_w, err_r


def exec_error(err_r):
    data = os.read(err_r, 32)
    os.close(err_r)
    return int(data) if data else None


def signal_tree(pid, sig, spare_group=None):
    """Sends sig to process pid and its descendants, but those in process
    group spare_group (they had the signal from the terminal)."""
    for p in descendants(pid):
        try:
            if spare_group is not None and os.getpgid(p) == spare_group:
                continue
            os.kill(p, sig)
        except OSError:
            pass


def stop_program(c, pid, info):
    """A stop signal (info, its siginfo) came: the program and its
    children have it too, and STOP_GRACE_S seconds to end, or less if
    another comes; then SIGKILL.  Returns the program's status and
    rusage."""
    spare = os.getpgrp() if lifetime.from_terminal(info) else None
    signal_tree(pid, info.si_signo, spare)
    deadline = time.monotonic() + STOP_GRACE_S
    while True:
        wpid, status, rusage = os.wait4(pid, os.WNOHANG)
        if wpid:
            return status, rusage
        left = deadline - time.monotonic()
        if left <= 0 or lifetime.wait_stop_signal(min(left, SNAP_S)):
            break
    msg("%s did not end %s after %s: killed (SIGKILL)" % (
        c.command[0], "within %d s" % STOP_GRACE_S if left <= 0 else
        "at a second signal", signal.Signals(info.si_signo).name))
    signal_tree(pid, signal.SIGKILL)
    _, status, rusage = os.wait4(pid, 0)
    return status, rusage


def run_program(c, perf, tmp):
    """Runs and surveys the program.  Its stop signals are taken here
    (held pending meanwhile): the program is stopped, the report still
    written."""
    mask = lifetime.block_stop_signals()
    try:
        return watch_program(c, perf, tmp, mask)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def watch_program(c, perf, tmp, mask):
    pid, go, err_r = spawn(c.command, c.json and not c.output, mask)
    snaps = Snapshots(pid, follow=not c.no_follow)
    rec = None
    stop = None
    status = None
    rusage = None
    try:
        try:
            p = Perf(perf, tmp, pid, c.period, mask=mask, source=c.source)
        except BaseException:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise
        os.write(go, b"x")
        os.close(go)
        while True:
            wpid, st, ru = os.wait4(pid, os.WNOHANG)
            if wpid:
                status, rusage = st, ru
                break
            snaps.take()
            info = lifetime.wait_stop_signal(SNAP_S)
            if info:
                stop = info.si_signo
                status, rusage = stop_program(c, pid, info)
                break
        late = lifetime.pending_stop_signals()
        stop = stop or (late[0].si_signo if late else None)
        p.stop()
        errno = exec_error(err_r)
        err_r = None
        if errno is not None:
            raise SurveyError("%s: %s" % (c.command[0], os.strerror(errno)),
                              127 if errno == 2 else 126)
        rec = p.script(perf)
    finally:
        if err_r is not None:
            os.close(err_r)
    kernel = {"source": "getrusage of the program (its threads and the "
                        "children it waited for)",
              "minflt": rusage.ru_minflt, "majflt": rusage.ru_majflt,
              # The largest peak resident memory of the program's
              # processes (Linux: KiB).
              "maxrss": rusage.ru_maxrss * 1024,
              "faults": rusage.ru_minflt + rusage.ru_majflt}
    return rec, snaps, kernel, status, stop


def maps_unreadable(pids):
    """Those of pids whose /proc/PID/maps cannot be read (perf fails
    when it cannot read them to synthesize their mappings)."""
    out = []
    for p in pids:
        try:
            with open("/proc/%d/maps" % p, "rb"):
                pass
        except PermissionError:
            out.append(p)
        except OSError:
            pass
    return out


def older_than(pids, seconds):
    """Those of pids that have run for `seconds` at least."""
    try:
        with open("/proc/uptime") as f:
            now = float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return list(pids)
    tick = os.sysconf("SC_CLK_TCK")
    out = []
    for p in pids:
        t = lifetime.start_time(p)
        if t is not None and now - t / tick >= seconds:
            out.append(p)
    return out


def start_attached(c, perf, tmp, mask):
    """perf record -p of the process and, unless --no-follow, of its
    descendants, as perf allows: perf fails when a process it is given
    is gone before it starts, as a short-lived child of a process that
    forks often is.  Tried with every descendant, twice, then with those
    that have run for PERF_ATTACH_AGES seconds, then with the process
    alone; perf follows the children of those it has from then on.
    Returns the Perf, the pids given to it, what was left out
    ({"pids", "reason"} or None), and the pids whose mappings perf
    cannot read."""
    root = c.pid
    if c.no_follow:
        return Perf(perf, tmp, root, c.period, [root], mask,
                    source=c.source), [root], None, []
    synth = False
    err = None
    for age in PERF_ATTACH_AGES + (None,):
        everyone = descendants(root)
        pids = [root] if age is None else \
            [root] + older_than(everyone[1:], age) if age else everyone
        hidden = maps_unreadable(pids)
        try:
            p = Perf(perf, tmp, root, c.period, pids, mask,
                     synth or bool(hidden), source=c.source)
        except PerfStartError as e:
            if "thread/CPU maps" in e.text and age is not None:
                err = e
                continue
            if synth or hidden or age is None:
                raise
            # perf fails without a word when it cannot read a process's
            # mappings: once more without them.
            synth = True
            err = e
            continue
        left = [x for x in everyone if x not in pids]
        missed = None
        if left:
            missed = {"pids": left, "reason": "perf could not attach to "
                      "every child process present at the start, which "
                      "came and went (%s): those younger than %g s were "
                      "left out" % (err.text or str(err), age or 0)
                      if age is not None else "perf could not attach to "
                      "the child processes present at the start, which "
                      "came and went (%s)" % (err.text or str(err))}
        return p, pids, missed, hidden
    raise AssertionError("not reached")


def present_at_start(c):
    """pid -> the pages present in the process (and its descendants)
    before the survey attaches.  Without an error code a copy-on-write
    is told as a refault: the pages present before the survey are those
    faulted before."""
    return {p: present_pages(p, parse_maps(read("/proc/%d/maps" % p) or ""),
                             PAGE)
            for p in (descendants(c.pid) if not c.no_follow else [c.pid])}


def attached_notes(c, rec, snaps, start, given, missed, hidden):
    """What an attached survey did not follow ("not_followed") and whose
    mappings perf could not read ("maps_not_read"); the processes perf
    has no record of are left out of snaps and start."""
    notes = {}
    if not c.no_follow:
        # A process perf has no record of was not followed (one forked
        # by a process perf was not given, or before perf started): its
        # counters are left out with it.
        seen = set(given) | {f[1] for f in rec.forks} | \
            {f[1] for f in rec.faults} | {m[1] for m in rec.mmaps} | \
            {e[1] for e in rec.exits} | set(rec.execs)
        gone = sorted(x for x in set(snaps.procs) | set(snaps.vmas) |
                      set((missed or {}).get("pids", [])) if x not in seen)
        for x in gone:
            snaps.forget(x)
            start.pop(x, None)
        if missed or gone:
            notes["not_followed"] = {
                "pids": gone,
                "reason": (missed or {}).get("reason") or
                "perf has no record of them: processes that came before "
                "perf attached, children of those"}
    if hidden:
        notes["maps_not_read"] = {
            "pids": hidden,
            "reason": "perf may not read their /proc/PID/maps: their "
                      "mappings from before the survey are not in perf's "
                      "records"}
    return notes


def attach(c, perf, tmp):
    """Surveys process c.pid (and its descendants) until it ends,
    --duration passes or a stop signal comes; the process is left
    alone."""
    check_pid(c.pid)
    snaps = Snapshots(c.pid, follow=not c.no_follow, attached=True)
    if c.source == kinds.PAGE_FAULTS:
        snaps.present = present_at_start(c)
    mask = lifetime.block_stop_signals()
    stop = None
    try:
        p, given, missed, hidden = start_attached(c, perf, tmp, mask)
        snaps.take(smaps=True)
        start = dict(snaps.procs)
        end = time.monotonic() + c.duration if c.duration else None
        while True:
            st = parse_stat(read("/proc/%d/stat" % c.pid) or "")
            if not st or st[1] == "Z":
                break
            snaps.take()
            left = SNAP_S if end is None else \
                min(SNAP_S, end - time.monotonic())
            info = lifetime.wait_stop_signal(max(0, left))
            if info:
                stop = info.si_signo
                break
            if end is not None and time.monotonic() >= end:
                break
        snaps.take(smaps=True)
        late = lifetime.pending_stop_signals()
        stop = stop or (late[0].si_signo if late else None)
        p.proc.send_signal(signal.SIGINT)
        p.stop()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    rec = p.script(perf)
    notes = attached_notes(c, rec, snaps, start, given, missed, hidden)
    mn = sum(snaps.procs[k][0] - start.get(k, (0, 0))[0] for k in snaps.procs)
    mj = sum(snaps.procs[k][1] - start.get(k, (0, 0))[1] for k in snaps.procs)
    kernel = {"source": "/proc/PID/stat, the last snapshot less the first",
              "minflt": mn, "majflt": mj, "faults": mn + mj}
    return rec, snaps, kernel, None, stop, notes
