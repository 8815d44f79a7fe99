#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
set -e
cd "$(dirname "$0")"
mkdir -p m4
autoreconf --install --force
