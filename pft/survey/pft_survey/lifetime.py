# SPDX-License-Identifier: GPL-2.0-or-later
# pft_survey.lifetime - the processes pft-survey starts live no longer than
# the survey, its stop signals are taken when it can act on them, and the
# temporary directory of a survey that was killed is removed by the next.
#
# Copyright (C) 2026 The libfaultgen authors
#
# A survey killed with SIGKILL cannot stop anything itself: the kernel
# kills perf and the program it started (PR_SET_PDEATHSIG, set in each
# before its exec).  Only the direct child is signalled so: a program's
# own children outlive it as they would any parent killed so.  The
# temporary directory stays; its name carries the survey's pid and a file
# in it the survey's start time and pid namespace, from which the next
# survey of the same user tells that its owner is gone.

import ctypes
import os
import re
import shutil
import signal
import stat
import tempfile
import time

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
# si_code of a signal the kernel sent: a terminal's ^C or hang-up, which
# went to the whole foreground process group.
SI_KERNEL = 0x80
PR_SET_PDEATHSIG = 1
TEMP_PREFIX = "pft-survey."
TEMP_NAME = re.compile(r"^pft-survey\.(?P<pid>[0-9]+)\.[A-Za-z0-9_]+$")
OWNER_FILE = "owner"

_libc = None


def libc():
    global _libc            # pylint: disable=global-statement
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    return _libc


def die_with_parent(parent, sig=signal.SIGKILL):
    """In a child just forked by `parent`, before its exec: the kernel
    sends it sig when the parent ends.  A parent already gone (between
    the fork and now) ends the child at once."""
    if libc().prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) != 0:
        os._exit(127)
    if os.getppid() != parent:
        os._exit(127)


def child_setup(parent, mask):
    """What each child of the survey does before its exec: ends with the
    survey, and takes signals as the survey's caller would have it take
    them (the mask the survey had before blocking its stop signals; the
    survey's own handlers, which raise exceptions, back to the default
    first; ignored signals stay ignored)."""
    die_with_parent(parent)
    for sig in STOP_SIGNALS:
        if callable(signal.getsignal(sig)):
            signal.signal(sig, signal.SIG_DFL)
    if mask is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def preexec(mask):
    """A preexec_fn for subprocess: child_setup with this process as the
    parent."""
    parent = os.getpid()
    libc()              # loaded before the fork
    return lambda: child_setup(parent, mask)


def stop_signals():
    """SIGINT, SIGTERM and SIGHUP, less those the survey was started with
    ignored (nohup): a blocked signal is queued even when ignored."""
    return [s for s in STOP_SIGNALS if signal.getsignal(s) != signal.SIG_IGN]


def block_stop_signals():
    """Holds the stop signals pending, to be taken by wait_stop_signal;
    returns the mask before."""
    return signal.pthread_sigmask(signal.SIG_BLOCK, stop_signals())


def wait_stop_signal(timeout):
    """The siginfo of a stop signal pending or coming within timeout
    seconds, or None."""
    sigs = stop_signals()
    if not sigs:
        if timeout > 0:
            time.sleep(timeout)
        return None
    return signal.sigtimedwait(sigs, timeout)


def pending_stop_signals():
    """The stop signals pending, taken."""
    out = []
    while True:
        info = wait_stop_signal(0)
        if info is None:
            return out
        out.append(info)


def from_terminal(info):
    """The signal came from the terminal to the whole foreground group
    (the program in it had the same)."""
    return info.si_code == SI_KERNEL


# ---- temporary directories ---------------------------------------------

def start_time(pid):
    """Process pid's start time (clock ticks since boot), or None when
    there is no such process."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            text = f.read()
    except OSError:
        return None
    try:
        return int(text[text.rindex(b")") + 2:].split()[19])
    except (ValueError, IndexError):
        return None


def pid_namespace():
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return 0


def owner_line():
    return "%d %s %d\n" % (os.getpid(), start_time(os.getpid()),
                           pid_namespace())


def make_temp_dir(tempdir):
    """The survey's temporary directory (mode 0700) under tempdir, named
    after its pid, with its owner file."""
    d = tempfile.mkdtemp(prefix="%s%d." % (TEMP_PREFIX, os.getpid()),
                         dir=tempdir)
    fd = os.open(os.path.join(d, OWNER_FILE),
                 os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(owner_line())
    return d


def owner_gone(path, pid):
    """The survey that made the directory at path has ended (not merely
    another survey of another pid namespace)."""
    try:
        with open(os.path.join(path, OWNER_FILE)) as f:
            fields = f.read().split()
    except (OSError, UnicodeDecodeError):
        fields = []
    if len(fields) == 3:
        try:
            opid, ostart, ons = int(fields[0]), fields[1], int(fields[2])
        except ValueError:
            return False
        if opid != pid or ons != pid_namespace():
            return False
        return str(start_time(pid)) != ostart
    # Killed before it wrote its owner file: gone when no process has
    # its pid.
    return start_time(pid) is None


def stale_temp_dirs(tempdir):
    """The temporary directories in tempdir that surveys of this user
    left when they were killed: named as a survey names them, a directory
    (not a link), this user's, and their survey gone."""
    try:
        names = os.listdir(tempdir)
    except OSError:
        return []
    out = []
    for name in sorted(names):
        m = TEMP_NAME.match(name)
        if not m:
            continue
        path = os.path.join(tempdir, name)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
            continue
        pid = int(m.group("pid"))
        if pid != os.getpid() and owner_gone(path, pid):
            out.append(path)
    return out


def remove_stale_temp_dirs(tempdir):
    """Removes them; returns those removed."""
    out = []
    for path in stale_temp_dirs(tempdir):
        shutil.rmtree(path, ignore_errors=True)
        if not os.path.lexists(path):
            out.append(path)
    return out
