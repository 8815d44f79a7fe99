#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli-sweep-compare.sh - pft-sweep --compare BASE.csv NEW.csv: one row per
# pattern and worker count of either file, the two medians and the gain
# in per cent, the larger spread as noise, "-" where a file lacks the
# point; runs CSV files are folded into medians; Markdown; errors.
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

have_python || skip "python3 is needed (pft-sweep is a Python 3 script)"
sweep=$top_srcdir/pft/pft-sweep

header=pattern,workers,cpus,size,runs,metric,median,min,max,spread_pct,ratio,fault_per_wsec_median,round_rate_median,faults_per_wall_s_median,flt_per_cpu_s_median,start_skew_s_median
cat >"$tmp/base.csv" <<EOF
$header
shared-vma,1,,1G,5,legacy,100000.000,99000.000,101000.000,2.00,1.0000,100000.000,,,,
per-thread-vma,1,,1G,5,legacy,200000.000,190000.000,202000.000,6.00,2.0000,200000.000,,,,
shared-vma,2,,1G,5,legacy,150000.000,150000.000,150000.000,0.00,1.0000,150000.000,,,,
per-thread-vma,2,,1G,5,legacy,300000.000,297000.000,303000.000,2.00,2.0000,300000.000,,,,
shared-vma,4,,1G,5,legacy,160000.000,160000.000,160000.000,0.00,1.0000,160000.000,,,,
EOF
cat >"$tmp/new.csv" <<EOF
$header
shared-vma,1,,1G,5,legacy,110000.000,109000.000,111000.000,1.82,1.0000,110000.000,,,,
per-thread-vma,1,,1G,5,legacy,190000.000,189000.000,191000.000,1.05,1.7273,190000.000,,,,
shared-vma,2,,1G,5,legacy,300000.000,297000.000,303000.000,2.00,1.0000,300000.000,,,,
per-thread-vma,2,,1G,5,legacy,300000.000,300000.000,300000.000,0.00,1.0000,300000.000,,,,
processes,1,,1G,5,legacy,50000.000,50000.000,50000.000,0.00,0.4545,50000.000,,,,
EOF

"$sweep" --compare "$tmp/base.csv" "$tmp/new.csv" >"$tmp/cmp.out" 2>"$tmp/cmp.err"
rc=$?
# Columns of the rows, blanks squeezed: pattern workers base new gain noise.
sed -n '3,$p' "$tmp/cmp.out" | tr -s ' ' >"$tmp/rows"
cat >"$tmp/want" <<'EOF'
shared-vma 1 100000 110000 +10.0% 2.0%
shared-vma 2 150000 300000 +100.0% 2.0%
shared-vma 4 160000 - - 0.0%
per-thread-vma 1 200000 190000 -5.0% 6.0%
per-thread-vma 2 300000 300000 +0.0% 2.0%
processes 1 - 50000 - 0.0%
EOF
if [ "$rc" -ne 0 ] || ! cmp -s "$tmp/rows" "$tmp/want"; then
	fail "compare: exit $rc, rows:
$(cat "$tmp/rows" "$tmp/cmp.err")"
else
	ok
fi
sed -n 2p "$tmp/cmp.out" | grep -q '^pattern  *workers  *base  *new  *gain  *noise$' ||
	fail "compare header: $(sed -n 2p "$tmp/cmp.out")"
head -n 1 "$tmp/cmp.out" | grep -q "base $tmp/base.csv, new $tmp/new.csv" ||
	fail "compare does not name its files: $(head -n 1 "$tmp/cmp.out")"

# Markdown: a header, the alignment row, one row per point.
"$sweep" --compare --markdown "$tmp/base.csv" "$tmp/new.csv" >"$tmp/md.out" 2>&1
if [ "$(sed -n 2p "$tmp/md.out")" != "| pattern | workers | base | new | gain | noise |" ] ||
	[ "$(sed -n 3p "$tmp/md.out")" != "|:---|---:|---:|---:|---:|---:|" ] ||
	[ "$(grep -c '^| ' "$tmp/md.out")" -ne 7 ]; then
	fail "compare --markdown:
$(cat "$tmp/md.out")"
else
	ok
fi

# A runs CSV: each point's median of fault/wsec.
cat >"$tmp/runs.csv" <<'EOF'
pattern,workers,cpus,size,run,pages,rounds,minflt,faults_agree,elapsed_s,fault_s,user_s,sys_s,start_skew_s,fault_per_wsec,flt_per_cpu_s,faults_per_wall_s,round_rate_median,round_rate_min,round_rate_max
shared-vma,1,,1G,1,1,1,1,1,1,1,0,1,0,90000.000,1,1,,,
shared-vma,1,,1G,2,1,1,1,1,1,1,0,1,0,120000.000,1,1,,,
shared-vma,1,,1G,3,1,1,1,1,1,1,0,1,0,100000.000,1,1,,,
EOF
"$sweep" --compare "$tmp/runs.csv" "$tmp/new.csv" >"$tmp/runs.out" 2>&1
sed -n 3p "$tmp/runs.out" | tr -s ' ' | grep -qx 'shared-vma 1 100000 110000 +10.0% 30.0%' ||
	fail "compare of a runs CSV: $(sed -n 3p "$tmp/runs.out")"

# Two real sweeps of the same kind compare point by point.
"$sweep" --pft="$PFT" -m 4M --rounds=1 --warmup=0 -r 1 -p shared-vma -w 1 \
	-o "$tmp/a" --no-plot -q >/dev/null 2>"$tmp/a.err" &&
"$sweep" --pft="$PFT" -m 4M --rounds=1 --warmup=0 -r 1 -p shared-vma -w 1 \
	-o "$tmp/b" --no-plot -q >/dev/null 2>"$tmp/b.err"
rc=$?
"$sweep" --compare "$tmp/a.csv" "$tmp/b.csv" >"$tmp/ab.out" 2>&1
if [ "$rc" -ne 0 ] || [ "$(wc -l <"$tmp/ab.out")" -ne 3 ] ||
	! sed -n 3p "$tmp/ab.out" | grep -q '^shared-vma  *1  *[0-9][0-9]*  *[0-9][0-9]*  *[-+][0-9.]*%  *[0-9.]*%$'; then
	fail "compare of two sweeps: exit $rc, $(cat "$tmp/ab.out" "$tmp/a.err" "$tmp/b.err")"
else
	ok
fi

# Errors: a missing file and a CSV of something else exit 1 with one line.
printf 'a,b\n1,2\n' >"$tmp/other.csv"
for args in "$tmp/none.csv $tmp/new.csv" "$tmp/base.csv $tmp/other.csv"; do
	# shellcheck disable=SC2086
	"$sweep" --compare $args >"$tmp/err.out" 2>"$tmp/err.err"
	rc=$?
	if [ "$rc" -ne 1 ] || [ "$(wc -l <"$tmp/err.err")" -ne 1 ] ||
		[ -s "$tmp/err.out" ]; then
		fail "compare $args: exit $rc, $(cat "$tmp/err.err")"
	else
		ok
	fi
done

finish
