# SPDX-License-Identifier: GPL-2.0-or-later
# python3 -m pft_sweep: pft-sweep run from the source tree.
import sys

from .cli import main

sys.exit(main(sys.argv[1:]))
