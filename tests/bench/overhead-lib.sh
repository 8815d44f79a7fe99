# SPDX-License-Identifier: LGPL-2.1-or-later
# overhead-lib.sh - what the overhead benchmarks share (latency-overhead.sh,
# lock-paths-overhead.sh): one run's rates, the ratio of two, the median
# and the summary of ratios.  Sourced; $pft is the program measured.
#
# Copyright (C) 2026 The libfaultgen authors

# "flt/cpu/s fault/wsec" of one run: the 7th and 8th fields of the
# legacy line (the first).
rate() {
	"$pft" "$@" 2>/dev/null | sed -n 1p | tr -d s | awk '{ print $7, $8 }'
}

# the ratio a / b, of the field f of two "cpu wall" pairs
ratio() {
	echo "$1 $2" | awk -v f="$3" '{ a = $f; b = $(f + 2)
		if (b > 0) printf "%.4f\n", a / b }'
}

# "median min..max loss%" of the ratios in file $1
summary() {
	r=$(median <"$1")
	printf '%8.4f %8.4f..%-8.4f %6.2f' "$r" "$(sort -g "$1" | sed -n 1p)" \
		"$(sort -g "$1" | tail -n 1)" \
		"$(awk -v r="$r" 'BEGIN { printf "%.2f", (1 - r) * 100 }')"
}

# median of the numbers on stdin
median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (!NR) { print 0; exit }
		print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

