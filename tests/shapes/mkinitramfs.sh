#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# mkinitramfs.sh - the guests' initramfs, built from the freshly built
# tree: busybox-static, util-linux's taskset, pft (the libtool-built
# binary, not its wrapper script) with libfaultgen and every library ldd
# names, pft-sweep (the zipapp built in pft/) with the Python interpreter
# and the standard modules it and check.py load, and this directory's
# /init, cases and checks.
#
#   mkinitramfs.sh TOP_SRCDIR TOP_BUILDDIR OUT.cpio [RELEASE]
#
# RELEASE: the release of the kernel the guests boot; its modules for
# the dm-delay case (loop, dm-mod, dm-delay, crc32c_generic, ext4 and
# what modules.dep says they need), from /lib/modules/RELEASE, go in when they are there,
# with tests/dmdelay, which makes the device.  Without them that case
# skips, saying why (/opt/shapes/no-modules).
#
# Exits 77 with the reason on stderr when a part cannot be found.
#
# Copyright (C) 2026 The libfaultgen authors
set -eu
src=$1
build=$2
out=$3
release=${4:-}
here=$src/tests/shapes
root=$out.d
LC_ALL=C
export LC_ALL

missing() {
	echo "mkinitramfs: $*" >&2
	exit 77
}

rm -rf "$root"
mkdir -p "$root/bin" "$root/usr/bin" "$root/opt/pft/bin" \
	"$root/opt/pft/lib" "$root/opt/shapes" "$root/proc" "$root/sys" \
	"$root/dev" "$root/tmp" "$root/etc"

# copy_file FILE [DEST]: the file (links followed) at its own path or DEST.
copy_file() {
	dest=$root${2:-$1}
	mkdir -p "$(dirname "$dest")"
	cp -L -p "$1" "$dest"
}

# copy_libs ELF: every library the dynamic linker resolves for it, at the
# same path; libraries of the build tree go to /opt/pft/lib.
copy_libs() {
	LD_LIBRARY_PATH=$build/libfaultgen/.libs ldd "$1" 2>/dev/null |
		sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (0x.*/\1/p' |
		while read -r lib; do
			case $lib in
			"$build"/*) copy_file "$lib" "/opt/pft/lib/${lib##*/}" ;;
			*) copy_file "$lib" ;;
			esac
		done
	if LD_LIBRARY_PATH=$build/libfaultgen/.libs ldd "$1" 2>&1 |
		grep -q 'not found'; then
		missing "$1: a library is not found (ldd)"
	fi
}

is_elf() {
	[ "$(head -c 4 "$1" 2>/dev/null | od -An -c | tr -d ' ')" = '177ELF' ]
}

# pft: libtool's real binary when the build is shared, else pft itself.
pft=$build/pft/.libs/pft
[ -f "$pft" ] || pft=$build/pft/pft
is_elf "$pft" || missing "no pft binary in $build/pft (build the tree first)"
copy_file "$pft" /opt/pft/bin/pft
copy_libs "$pft"
# pft-sweep: the built zipapp (its package's modules inside it).
[ -f "$build/pft/pft-sweep" ] ||
	missing "no pft-sweep in $build/pft (build the tree first, with python3)"
copy_file "$build/pft/pft-sweep" /opt/pft/bin/pft-sweep

bb=$(command -v busybox || true)
[ -n "$bb" ] || missing "busybox not found (Debian package busybox-static)"
copy_file "$bb" /bin/busybox
is_elf "$bb" && copy_libs "$bb"
# For "#!/usr/bin/env python3" (busybox --install puts env in /bin).
ln -s /bin/busybox "$root/usr/bin/env"
ts=$(command -v taskset || true)
[ -n "$ts" ] || missing "taskset not found (Debian package util-linux)"
copy_file "$ts" /usr/bin/taskset
copy_libs "$ts"

copy_file "$here/init" /init
chmod 755 "$root/init"
for f in cases.sh check.py pft-log; do
	copy_file "$here/$f" "/opt/shapes/$f"
done
chmod 755 "$root/opt/shapes/pft-log" "$root/opt/shapes/check.py"

# The Python interpreter and the modules pft-sweep and check.py load,
# found by running both on this machine (a one-point sweep of 64 KiB)
# and listing sys.modules, with their compiled files and extensions.
# pft-sweep is a zipapp, run here as python3 runs it (runpy, zipimport):
# its own modules are in the archive, not listed; zipimport is frozen in
# the interpreter, and the archive is stored uncompressed, so zipimport
# needs no zlib; runpy and what it loads are listed.
python_parts() {
	# Debian's interpreter rather than one of a user's own (pyenv...).
	py=/usr/bin/python3
	[ -x $py ] || py=$(command -v python3 || true)
	[ -n "$py" ] || missing "python3 not found (pft-sweep and check.py)"
	list=$out.modules
	cat >"$out.py" <<'PY'
import atexit, importlib.util, os, runpy, sys
sweep, pft, check, out, prefix = sys.argv[1:6]
import encodings.utf_8, encodings.ascii, encodings.latin_1


def dump():
    files = {os.path.realpath(sys.executable)}
    for name, m in list(sys.modules.items()):
        f = getattr(m, "__file__", None)
        if name == "__main__":
            continue
        if not f or not os.path.exists(f):
            continue
        files.add(os.path.realpath(f))
        if f.endswith(".py"):
            c = importlib.util.cache_from_source(f)
            if os.path.exists(c):
                files.add(c)
    with open(out, "w") as fh:
        fh.write("".join(f + "\n" for f in sorted(files)))


atexit.register(dump)
runpy.run_path(check, run_name="check")
sys.argv = [sweep, "--pft=" + pft, "-w", "1", "-p", "shared-vma",
            "--one-shot", "--warmup=0", "-r", "1", "-m", "64K",
            "--no-plot", "-q", "-o", prefix]
runpy.run_path(sweep, run_name="__main__")
PY
	if ! "$py" "$out.py" "$build/pft/pft-sweep" "$build/pft/pft" \
		"$here/check.py" "$list" "$out.sweep" >/dev/null \
		2>"$out.sweep.err"; then
		missing "python3 could not run pft-sweep: $(tail -n 1 "$out.sweep.err")"
	fi
	rm -f "$out.sweep"* "$out.py"
	exe=$("$py" -c 'import os, sys; print(os.path.realpath(sys.executable))')
	while read -r f; do
		copy_file "$f"
		case $f in
		*.so) copy_libs "$f" ;;
		esac
	done <"$list"
	copy_libs "$exe"
	ln -sf "$(basename "$exe")" "$root/usr/bin/python3"
	# getpath's landmarks: os.py (frozen, so perhaps not listed) and
	# lib-dynload.
	stdlib=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
	copy_file "$stdlib/os.py"
	mkdir -p "$root$stdlib/lib-dynload"
}

# module_order NAME...: the modules' files (relative to the release's
# directory), each after those it needs: modules.dep lists a module's
# needs so that loading them from last to first works (as modprobe does).
module_order() {
	for m; do
		line=$(grep -E "(^|/)$m\.ko(\.xz)?:" "$moddir/modules.dep") ||
			return 1
		deps=
		for d in ${line#*:}; do deps="$d $deps"; done
		for f in $deps ${line%%:*}; do
			grep -qxF "$f" "$order" || echo "$f" >>"$order"
		done
	done
}

# The dm-delay case's modules of the guests' kernel (not this machine's,
# unless the two are the same), uncompressed for busybox's insmod; their
# load order in /lib/modules/RELEASE/shapes.load.
kernel_modules() {
	moddir=/lib/modules/$release
	order=$out.modules.order
	: >"$order"
	if [ -z "$release" ] || [ ! -r "$moddir/modules.dep" ]; then
		echo "no modules of the guests' kernel ${release:-(release unknown)} on the build machine ($moddir)" \
			>"$root/opt/shapes/no-modules"
		return 0
	fi
	# ext4 loads crc32c through the crypto API (a soft dependency, not
	# in modules.dep) and refuses to mount without it, even ext2.
	if ! module_order loop dm-mod dm-delay crc32c_generic ext4; then
		echo "$moddir/modules.dep names no loop, dm-mod, dm-delay, crc32c_generic or ext4 module (built in or missing)" \
			>"$root/opt/shapes/no-modules"
		return 0
	fi
	dest=$root$moddir
	mkdir -p "$dest"
	while read -r f; do
		mkdir -p "$(dirname "$dest/$f")"
		case $f in
		*.ko.xz) xz -dc "$moddir/$f" >"$dest/${f%.xz}" ;;
		*) cp -p "$moddir/$f" "$dest/$f" ;;
		esac
		echo "${f%.xz}"
	done <"$order" >"$dest/shapes.load"
	rm -f "$order"
}

# The dm-delay case's device maker.
dmdelay_part() {
	if is_elf "$build/tests/dmdelay"; then
		copy_file "$build/tests/dmdelay" /opt/shapes/dmdelay
		copy_libs "$build/tests/dmdelay"
	else
		echo "no tests/dmdelay in the build tree (make all builds it)" \
			>"$root/opt/shapes/no-modules"
	fi
}

python_parts
kernel_modules
dmdelay_part
if command -v cpio >/dev/null; then
	archive="cpio -o -H newc --quiet"
else
	archive="$bb cpio -o -H newc"
fi
# shellcheck disable=SC2086
(cd "$root" && find . | sort | $archive) >"$out.tmp"
mv "$out.tmp" "$out"
rm -rf "$root"
