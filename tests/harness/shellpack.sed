# SPDX-License-Identifier: GPL-2.0-or-later
# A small expander of the ###SHELLPACK lines contrib/mmtests' pft-bench
# uses, enough to run its own lines outside mmtests (tests/
# harness-mmtests.sh): its options, the install directory, worker counts
# from MIN to MAX one by one, no monitors.
/###SHELLPACK preamble/c\
SHELLPACK_SUCCESS=0\
die() { echo "$@" >&2; exit 1; }\
log_cmd() { echo "$@" >>"$LOGDIR_RESULTS/commands.log"; }
/###SHELLPACK parseargBegin/c\
while [ $# -gt 0 ]; do\
	case $1 in
s/^###SHELLPACK parseargParam[[:space:]]*\([^[:space:]]*\)[[:space:]]*\([^[:space:]]*\)$/	\1) \2=$2; shift 2 ;;/
s/^###SHELLPACK parseargYes[[:space:]]*\([^[:space:]]*\)[[:space:]]*\([^[:space:]]*\)$/	\1) \2=yes; shift ;;/
/###SHELLPACK parseargInstall/d
/###SHELLPACK parseargEnd/c\
	*) die "unknown option $1" ;;\
	esac\
done
/###SHELLPACK monitor_hooks/c\
monitor_pre_hook() { :; }\
monitor_post_hook() { :; }
/###SHELLPACK check_install_required/c\
cd "$PFT_INSTALLED" || die "no $PFT_INSTALLED"
/###SHELLPACK init_complete/d
s/^###SHELLPACK threads_large_stride_begin \([^ ]*\) \([^ ]*\)$/for NR_THREADS in $(seq "\1" "\2"); do/
s/^###SHELLPACK threads_stride_end$/done/
/###SHELLPACK/{
s/.*/die "unexpanded: &"/
}
