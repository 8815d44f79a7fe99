# SPDX-License-Identifier: GPL-2.0-or-later
# debug.sh stand-in.
die()
{
	echo "$@" >&2
	exit 1
}
