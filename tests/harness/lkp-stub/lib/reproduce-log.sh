# SPDX-License-Identifier: GPL-2.0-or-later
# reproduce-log.sh stand-in: a dated command line, then the command.
log_test()
{
	echo "$(date +'%F %T')" "$@"
	"$@"
}
