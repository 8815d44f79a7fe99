#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# mkzipapp.py - builds pft-sweep or pft-survey, one executable file: a
# zipapp of the command's package and pft_common behind a "#!PYTHON" line.
#
#   mkzipapp.py [--main=MODULE] OUTPUT PYTHON SRCDIR FILE...
#
# MODULE is the module whose main(argv) the command runs: pft_sweep.cli
# (pft-sweep, the default) or pft_survey.cli (pft-survey).
# PYTHON is the absolute path of the interpreter the installed command
# runs under (configure's SWEEP_PYTHON, /usr/bin/python3 as a rule):
# not "/usr/bin/env python3", which depends on the user's PATH and which
# distributions reject for installed programs (rpmlint's
# env-script-interpreter).
# FILEs are paths under SRCDIR of a package's modules, each stored under
# its package's directory (sweep/pft_sweep/cli.py as pft_sweep/cli.py,
# common/pft_common/util.py as pft_common/util.py).
# The archive is reproducible: entries sorted, stored uncompressed (no
# zlib, neither here nor where it runs), one timestamp (SOURCE_DATE_EPOCH,
# else 1980-01-01, the earliest a zip file can say), fixed permissions,
# no compiled files.
#
# Copyright (C) 2026 The libfaultgen authors

import os
import sys
import time
import zipfile

# The archive's own __main__: python3 runs it when given the file.
MAIN = """\
import sys

from %s import main

sys.exit(main(sys.argv[1:]))
"""


def timestamp():
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if not epoch:
        return (1980, 1, 1, 0, 0, 0)
    # A zip file cannot say a date before 1980.
    return max(time.gmtime(int(epoch))[:6], (1980, 1, 1, 0, 0, 0))


def entry(name, date):
    info = zipfile.ZipInfo(name, date)
    info.compress_type = zipfile.ZIP_STORED
    info.create_system = 3          # Unix, wherever it was built
    info.external_attr = 0o100644 << 16
    return info


def main(argv):
    module = "pft_sweep.cli"
    if argv and argv[0].startswith("--main="):
        module = argv[0][len("--main="):]
        argv = argv[1:]
        if not all(p.isidentifier() for p in module.split(".")):
            sys.exit("mkzipapp.py: --main=%s: not a module name" % module)
    if len(argv) < 4:
        sys.exit("usage: mkzipapp.py [--main=MODULE] OUTPUT PYTHON SRCDIR "
                 "FILE...")
    out, python, srcdir = argv[:3]
    paths = argv[3:]
    if not os.path.isabs(python) or any(c.isspace() for c in python):
        sys.exit("mkzipapp.py: %s: not an absolute path without spaces"
                 % python)
    files = {"__main__.py": (MAIN % module).encode()}
    for path in paths:
        package = os.path.basename(os.path.dirname(path))
        if not package.isidentifier() or not path.endswith(".py"):
            sys.exit("mkzipapp.py: %s: not a Python source file of a "
                     "package" % path)
        name = package + "/" + os.path.basename(path)
        if name in files:
            sys.exit("mkzipapp.py: %s: a second %s" % (path, name))
        with open(os.path.join(srcdir, path), "rb") as f:
            files[name] = f.read()
    date = timestamp()
    with open(out, "wb") as f:
        f.write(b"#!" + python.encode() + b"\n")
        with zipfile.ZipFile(f, "w") as z:
            for name in sorted(files):
                z.writestr(entry(name, date), files[name])
    os.chmod(out, 0o755)


if __name__ == "__main__":
    main(sys.argv[1:])
