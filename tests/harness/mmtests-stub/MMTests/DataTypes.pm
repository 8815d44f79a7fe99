# SPDX-License-Identifier: GPL-2.0-or-later
# A stand-in for mmtests' label constants (tests/harness-mmtests.sh).
package DataTypes;
use constant LABEL_OPS_PER_SECOND => "Ops/sec";
1;
