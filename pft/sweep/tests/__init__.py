# SPDX-License-Identifier: GPL-2.0-or-later
# Unit tests of the pft_sweep package (python3 -m unittest, from pft/sweep).
