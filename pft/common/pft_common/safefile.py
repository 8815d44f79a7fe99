# SPDX-License-Identifier: GPL-2.0-or-later
# pft_sweep.safefile - writing the files a user named, and only those, in
# directories other users can write (/tmp, run as root): pft-sweep's and
# pft-survey's output.
#
# Copyright (C) 2026 The libfaultgen authors
#
# A name given is written only where it is a regular file or no file yet:
# a device, FIFO, socket, directory or symbolic link there is refused,
# never replaced and never written through.  A file is written under a
# name nobody can guess, created exclusively (O_EXCL, O_NOFOLLOW) in the
# directory of the name, and renamed over the name once complete: another
# user's link at a name known in advance (NAME.tmp) cannot redirect the
# writing, and a failure leaves the name as it was.

import contextlib
import errno
import os
import stat
import tempfile

KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISLNK, "a symbolic link"),
         (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
         (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def kind(mode):
    """What a file of this st_mode is, in words ("a FIFO")."""
    for test, words in KINDS:
        if test(mode):
            return words
    return "not a regular file"


def check_target(path):
    """The file at path, when there is one, is a regular file (itself,
    not a link to one).  OSError naming path otherwise."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(st.st_mode):
        raise OSError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    if not stat.S_ISREG(st.st_mode):
        raise OSError(errno.EEXIST, "%s, not a regular file: not replaced "
                      "(give a regular file or a new name)" %
                      kind(st.st_mode), path)


def umask():
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def temp_name_prefix(path):
    # The name's first bytes keep the file recognisable in a listing
    # without making the temporary name longer than NAME_MAX.
    base = os.fsencode(os.path.basename(path))[:64]
    return "." + os.fsdecode(base) + "."


def create_temp(path):
    """A new, empty regular file beside path, created exclusively under an
    unpredictable name, with the mode a new file gets (0666 less the
    umask): (fd, its name)."""
    d = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(dir=d, prefix=temp_name_prefix(path),
                               suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~umask())
    except BaseException:
        os.close(fd)
        os.unlink(tmp)
        raise
    return fd, tmp


def put_in_place(tmp, path):
    """Renames the complete file tmp over path, which must still be a
    regular file or no file."""
    check_target(path)
    os.replace(tmp, path)


@contextlib.contextmanager
def replacing(path, mode="w", newline=None, errors=None):
    """A file object whose content replaces path once the block ends
    without error (see above): a failure leaves path as it was, and
    removes the temporary file.  OSError names path."""
    tmp = None
    try:
        check_target(path)
        fd, tmp = create_temp(path)
        kw = {} if "b" in mode else {"newline": newline, "errors": errors}
        with os.fdopen(fd, mode, **kw) as f:
            yield f
        put_in_place(tmp, path)
        tmp = None
    except BaseException as e:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        if isinstance(e, OSError) and e.filename != path:
            raise OSError(e.errno, e.strerror, path) from None
        raise


def create_new(path, newline=None):
    """path created exclusively (it must not exist, not even as a link),
    opened for writing text."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW |
                 os.O_CLOEXEC, 0o666)
    return os.fdopen(fd, "w", newline=newline)


def check_writable(path):
    """Before the work that leads to writing path: it is a regular file or
    a new name, and its directory can take a new file.  OSError naming
    what is wrong."""
    check_target(path)
    d = os.path.dirname(path) or "."
    try:
        fd, tmp = create_temp(path)
    except OSError as e:
        raise OSError(e.errno, "cannot write in %s: %s" %
                      (d, e.strerror or e), path) from None
    os.close(fd)
    os.unlink(tmp)
    if os.path.lexists(path) and not os.access(path, os.W_OK):
        # Renaming would replace it, but its owner did not mean it to be
        # written: say so as writing it would.
        raise OSError(errno.EACCES, os.strerror(errno.EACCES), path)
    return d


def own_directory(path, create=True):
    """A directory at path that this process's user owns and other users
    cannot write: made when missing (mode 0777 less the umask and less
    others' write), refused when it is a link, not a directory, another
    user's, or writable by every user.  create=False: checked only, when
    there is one.  OSError."""
    try:
        if create:
            os.mkdir(path, 0o777 & ~(umask() | 0o002))
            return
        st = os.lstat(path)
    except FileExistsError:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(st.st_mode):
        raise OSError(errno.ENOTDIR, "%s, not a directory" % kind(st.st_mode),
                      path)
    if st.st_uid != os.geteuid():
        raise OSError(errno.EPERM, "a directory of another user (uid %d), "
                      "not used" % st.st_uid, path)
    if st.st_mode & 0o002:
        raise OSError(errno.EPERM, "a directory every user can write, not "
                      "used", path)
