#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# examples.sh - the examples build and run with tiny arguments.
# Copyright (C) 2026 The libfaultgen authors
set -e
ex=${EXAMPLES:?}
"$ex/shared-vma" 8M 2 | grep -q 'faulted 2048 pages of one VMA'
"$ex/per-thread-vma" 8M 2 | grep -c 'its own mapping' | grep -qx 2
"$ex/zap-loop" 8M 2 0.2 | grep -q 'rounds'
# 16 MiB: below QEMU's 64 MiB a thread, so the caller populates alone;
# a shared memfd is never mapped by huge pages here, one fault a page.
"$ex/qemu-prealloc" 16M 2 memfd | grep -q ' threads=1 .* faults=409[6-8] '
if "$ex/qemu-prealloc" 16M 2 bogus 2>/dev/null; then
	echo "examples: qemu-prealloc took a bad backend" >&2
	exit 1
fi
echo "examples: 5 passed, 0 failed"
