#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli-sweep-plot.sh - with gnuplot installed, a sweep draws PREFIX.png and
# PREFIX.svg from the script it leaves in PREFIX.gp, one line per pattern
# with min-max error bars; --compare -o PREFIX draws one line per sweep;
# without gnuplot in PATH the sweep still succeeds, says so, and writes
# its CSV and JSON.  SKIP without gnuplot.
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

have_python || skip "python3 is needed (pft-sweep is a Python 3 script)"
sweep=$top_builddir/pft/pft-sweep

# Without gnuplot: PATH holds python3 alone.
mkdir "$tmp/bin"
ln -s "$(python3 -c 'import sys; print(sys.executable)')" "$tmp/bin/python3"
PATH=$tmp/bin "$sweep" --pft="$PFT" -m 4M --rounds=1 --warmup=0 -r 1 \
	-p shared-vma -w 1 -o "$tmp/n" >"$tmp/n.out" 2>"$tmp/n.err"
rc=$?
if [ "$rc" -ne 0 ] || ! grep -q 'gnuplot not found' "$tmp/n.err" ||
	[ ! -s "$tmp/n.csv" ] || [ ! -s "$tmp/n.json" ] ||
	[ -e "$tmp/n.png" ] || [ -e "$tmp/n.svg" ]; then
	fail "without gnuplot: exit $rc, $(cat "$tmp/n.err")"
else
	ok
fi

command -v gnuplot >/dev/null 2>&1 || skip "gnuplot is not installed"

"$sweep" --pft="$PFT" -m 4M --rounds=1 --warmup=0 -r 2 \
	-p shared-vma,per-thread-vma -o "$tmp/p" >"$tmp/p.out" 2>"$tmp/p.err"
rc=$?
[ "$rc" -eq 0 ] || fail "sweep exited $rc: $(tail -n 3 "$tmp/p.err")"
if [ "$(head -c 8 "$tmp/p.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" != \
	89504e470d0a1a0a ]; then
	fail "p.png is not a PNG file"
else
	ok
fi
if ! grep -q '<svg' "$tmp/p.svg" 2>/dev/null; then
	fail "p.svg is not an SVG file"
else
	ok
fi
# One line per pattern, with error bars, titled by the pattern.
for pat in shared-vma per-thread-vma; do
	grep -q "yerrorlines .*title '$pat'" "$tmp/p.gp" ||
		fail "p.gp has no line for $pat"
	grep -q ">$pat<" "$tmp/p.svg" || fail "p.svg has no key for $pat"
done
# The data blocks hold workers, median, min and max of the points CSV.
expected=$(awk -F, 'NR > 1 { printf "%s %s %s %s\n", $2, $7, $8, $9 }' \
	"$tmp/p.csv" | sort)
got=$(grep '^[0-9][0-9]* [0-9.]* [0-9.]* [0-9.]*$' "$tmp/p.gp" | sort)
[ "$got" = "$expected" ] || fail "p.gp data '$got', expected '$expected'"
grep -q "wrote .*p.png, .*p.svg" "$tmp/p.err" ||
	fail "the sweep does not say it wrote the plot"

# --latency: beside the p50/p99 plot, PREFIX-latency-cdf with one CDF
# per point (its runs' histograms merged), each rising to 1.
"$sweep" --pft="$PFT" -m 4M --rounds=1 --warmup=0 -r 1 -p shared-vma \
	-w 1,2 --latency -o "$tmp/l" >"$tmp/l.out" 2>"$tmp/l.err"
rc=$?
if [ "$rc" -ne 0 ] || ! grep -q '<svg' "$tmp/l-latency-cdf.svg" 2>/dev/null ||
	[ "$(head -c 4 "$tmp/l-latency-cdf.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" != 89504e47 ] ||
	! grep -q "wrote .*l-latency-cdf.png, .*l-latency-cdf.svg" "$tmp/l.err"; then
	fail "--latency CDF plot: exit $rc, $(cat "$tmp/l.err")"
else
	ok
fi
for t in "shared-vma, 1 worker" "shared-vma, 2 workers"; do
	grep -q "with lines .*title '$t'" "$tmp/l-latency-cdf.gp" ||
		fail "l-latency-cdf.gp has no curve for $t"
done
# Each curve's last fraction is 1, and its fractions never fall.
awk '/<< EOD$/ { n++; last = -1; next }
	/^EOD$/ { if (last != 1) bad = 1; next }
	n && NF == 2 { if ($2 < last) bad = 1; last = $2 }
	END { exit bad || n != 2 }' "$tmp/l-latency-cdf.gp" ||
	fail "l-latency-cdf.gp: not 2 curves from 0 up to 1: $(cat "$tmp/l-latency-cdf.gp")"

# A comparison: one line per sweep, titled by its name, its medians and
# extremes as in the comparison's CSV.
"$sweep" --pft="$PFT" -m 4M --rounds=1 --warmup=0 -r 2 -p shared-vma \
	-o "$tmp/q" --no-plot -q >/dev/null 2>"$tmp/q.err"
"$sweep" --compare "$tmp/p" "$tmp/q" --names=before,after -o "$tmp/c" \
	>"$tmp/c.out" 2>"$tmp/c.err"
rc=$?
if [ "$rc" -ne 0 ] || ! grep -q '<svg' "$tmp/c.svg" 2>/dev/null ||
	[ "$(head -c 4 "$tmp/c.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" != 89504e47 ]; then
	fail "compare plot: exit $rc, $(cat "$tmp/c.err")"
else
	ok
fi
for name in before after; do
	grep -q "yerrorlines .*title '$name, shared-vma'" "$tmp/c.gp" ||
		fail "c.gp has no line for $name"
done
expected=$(awk -F, 'NR > 1 && $8 != "" { printf "%s %.3f %.3f %.3f\n", $4, $8, $9, $10 }' \
	"$tmp/c.csv" | sort)
got=$(grep '^[0-9][0-9]* [0-9.]* [0-9.]* [0-9.]*$' "$tmp/c.gp" | sort)
[ "$got" = "$expected" ] || fail "c.gp data '$got', expected '$expected'"

finish
