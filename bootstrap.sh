#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# bootstrap.sh - from a fresh clone on Debian to a built tree: installs the
# missing packages (with apt-get, as root or through sudo), then runs
# autogen.sh, configure and make.
#
#   ./bootstrap.sh [--tests] [CONFIGURE-ARGUMENT...]
#
# By default it installs only what builds pft and libfaultgen (a C
# compiler, the autotools, libnuma) and builds pft and the library alone:
# `make` builds the rest (pft-static, pft-sweep, the examples, the Java
# binding) when asked, and `make install` builds what it installs.  With
# --tests it installs what the tests use too (tests/run-all.sh: Check, a
# JDK, clang, valgrind, cppcheck, QEMU and a kernel for the machine
# shapes, ...) and builds everything.  The other arguments go to
# configure.
#
# Copyright (C) 2026 The libfaultgen authors
set -eu
cd "$(dirname "$0")"

tests=no
if [ "${1:-}" = --tests ]; then
	tests=yes
	shift
fi

# configure requires libnuma; libcpuset is optional there, but pft reads
# named cpusets with it.
# No C++ compiler and no dpkg-dev for the build: build-essential is for
# the tests (abi.sh compiles the header as C++; run-all.sh's packager
# build asks dpkg-buildflags).
packages="gcc libc6-dev make autoconf automake libtool pkg-config
libnuma-dev libcpuset-dev"
test_packages="build-essential check mandoc python3 numactl util-linux procps
openjdk-17-jdk-headless junit5 clang libclang-rt-14-dev cppcheck clang-tidy valgrind ruby
gnuplot-nox linux-perf libfuse3-dev fuse3
qemu-system-x86 linux-image-amd64 busybox-static xz-utils cpio"
[ "$tests" = no ] || packages="$packages $test_packages"

missing=
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q 'install ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" -eq 0 ]; then
		sudo=
	elif command -v sudo >/dev/null; then
		sudo=sudo
	else
		echo "bootstrap: need root to install:$missing" >&2
		exit 1
	fi
	echo "bootstrap: installing:$missing" >&2
	log=$(mktemp /tmp/bootstrap-apt.XXXXXX)
	# shellcheck disable=SC2086
	if ! { $sudo apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
			--no-install-recommends $missing; } >"$log" 2>&1; then
		tail -n 20 "$log" >&2
		echo "bootstrap: apt-get failed (log: $log)" >&2
		exit 1
	fi
	rm -f "$log"
fi

[ -x configure ] || ./autogen.sh >/dev/null
if [ ! -f Makefile ] || [ $# -gt 0 ]; then
	./configure -q "$@"
elif [ -n "$missing" ]; then
	# What configure found has changed (Check, a JDK, ...): again, with
	# the arguments it was last given.
	./config.status --recheck >/dev/null && ./config.status >/dev/null
fi
if [ "$tests" = yes ]; then
	make -j"$(nproc)" -s
	echo "bootstrap: built; pft is pft/pft" >&2
else
	make -j"$(nproc)" -s -C libfaultgen libfaultgen.la
	make -j"$(nproc)" -s -C pft pft
	echo "bootstrap: built pft (pft/pft) and libfaultgen; make builds the rest" >&2
fi
