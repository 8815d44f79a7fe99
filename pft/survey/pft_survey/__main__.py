# SPDX-License-Identifier: GPL-2.0-or-later
# python3 -m pft_survey: pft-survey run from the source tree (pft/survey,
# with pft/common on PYTHONPATH).
import sys

from .cli import main

sys.exit(main(sys.argv[1:]))
