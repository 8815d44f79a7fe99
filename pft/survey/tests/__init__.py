# SPDX-License-Identifier: GPL-2.0-or-later
# Unit tests of the pft_survey package (python3 -m unittest, from
# pft/survey).  The package imports pft_common (pft/common), as in the
# zipapp.
import os
import sys

COMMON = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "common")
if COMMON not in sys.path:
    sys.path.insert(0, COMMON)
