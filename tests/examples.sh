#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# examples.sh - the examples build and run with tiny arguments.
# Copyright (C) 2026 The libfaultgen authors
set -e
ex=${EXAMPLES:?}
"$ex/shared-vma" 8M 2 | grep -q 'faulted 2048 pages of one VMA'
"$ex/per-thread-vma" 8M 2 | grep -c 'its own mapping' | grep -qx 2
"$ex/zap-loop" 8M 2 0.2 | grep -q 'rounds'
echo "examples: 3 passed, 0 failed"
