# SPDX-License-Identifier: GPL-2.0-or-later
# The lkp-tests functions contrib/lkp-tests/programs/pft/run calls, as
# small stand-ins of the same interface, for tests/harness-lkp.sh.
# unit.sh: sizes with a K, M or G suffix to bytes.
to_byte()
{
	case $1 in
	*[kK]) echo $((${1%?} << 10)) ;;
	*[mM]) echo $((${1%?} << 20)) ;;
	*[gG]) echo $((${1%?} << 30)) ;;
	*) echo "$1" ;;
	esac
}
