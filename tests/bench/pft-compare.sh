#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# pft-compare.sh - a benchmark, not a test: pft against another pft.
#
#   PFT=pft/pft PFT_REF=/usr/local/bin/pft-0.12x tests/bench/pft-compare.sh
#
# For each case (-t 1, -t 2, -n 2 at 1 GiB by default) it runs one warm-up
# of each binary, then ROUNDS rounds of A and B back to back, in turns A B
# and B A (memory that sits freed for a few seconds goes back to the
# hypervisor on some VMs and costs 2-5x more to fault again, so the two
# must alternate closely), and
# prints for each binary the median fault/wsec of its result lines, their
# spread, the median whole-process CPU time (user + system of pft and all
# its children, from wait4), and the ratio A/B of the medians; then the
# CPU time of the pairs compared (the median difference, its bootstrap
# interval, a verdict on "A uses no more CPU than B", and the medians of
# each third of the pairs, which show the machine's drift).  Then, for
# A only, ROUNDS runs with --json give the median start skew between
# workers.  Without PFT_REF only A runs.
#
# With CONTROL=1 each round also runs B a second time (B'), the three in
# every order in turn, and the CPU time of B' - B is compared the same
# way: two runs of one binary, so whatever that line shows is this
# machine's resolution for the A - B line above it.
#
# Environment:
#   PFT          the pft under test (default: pft/pft of this build tree,
#                else pft on PATH)
#   PFT_REF      the other pft (e.g. 0.12x), optional
#   ROUNDS       rounds per case (default 10)
#   SIZE         -m of every run (default 1G)
#   CASES        cases separated by ';' (default "-t 1;-t 2;-n 2")
#   EXTRA        more arguments for both binaries (e.g. -a)
#   CONTROL      1: also run B against itself (needs PFT_REF)
#
# Requires python3 (for wait4 and the JSON).  The word splitting of
# $(...) and $c below is meant: they hold several words.
# shellcheck disable=SC2046,SC2086
#
# Copyright (C) 2026 The libfaultgen authors
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ -z "${PFT:-}" ]; then
	for p in "$here/../../pft/pft" "$(command -v pft 2>/dev/null)"; do
		[ -n "$p" ] && [ -x "$p" ] && PFT=$p && break
	done
fi
[ -n "${PFT:-}" ] || { echo "pft-compare: set PFT to the pft to measure" >&2; exit 2; }
REF=${PFT_REF:-}

# An uninstalled pft is a libtool wrapper script, whose shell costs ~10 ms
# of CPU per run: measure the binary it wraps, with its library.
unwrap() {
	unwrapped=$1
	d=$(dirname "$1")
	b=$(basename "$1")
	if head -c 300 "$1" 2>/dev/null | grep -q 'wrapper script' &&
		[ -x "$d/.libs/$b" ] && [ -d "$d/../libfaultgen/.libs" ]; then
		LD_LIBRARY_PATH=$(cd "$d/../libfaultgen/.libs" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
		export LD_LIBRARY_PATH
		unwrapped=$d/.libs/$b
	fi
}
unwrap "$PFT"
PFT=$unwrapped
if [ -n "$REF" ]; then
	unwrap "$REF"
	REF=$unwrapped
fi
ROUNDS=${ROUNDS:-10}
SIZE=${SIZE:-1G}
CASES=${CASES:--t 1;-t 2;-n 2}
EXTRA=${EXTRA:-}
CONTROL=${CONTROL:-0}
if [ "$CONTROL" = 1 ] && [ -z "$REF" ]; then
	echo "pft-compare: CONTROL=1 needs PFT_REF" >&2
	exit 2
fi
command -v python3 >/dev/null || { echo "pft-compare: python3 is needed" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pft-compare.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# Runs one pft and prints "fault/wsec cpu_seconds exit_status": the last
# result line (mmtests' rule) and the CPU time of the whole process tree.
cat >"$tmp/run1.py" <<'EOF'
import os, re, subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE,
                     stderr=subprocess.STDOUT, text=True)
out = p.stdout.read()
_, status, ru = os.wait4(p.pid, 0)
rate = None
for line in out.splitlines():
    if re.search("[A-Za-z]", line.replace("s", "")):
        continue
    f = line.replace("s", "").split()
    if len(f) == 8:
        rate = float(f[7])
code = os.waitstatus_to_exitcode(status)
print(rate if rate is not None else "nan", ru.ru_utime + ru.ru_stime, code)
EOF

# Prints "median spread%" of the numbers on stdin.
cat >"$tmp/stats.py" <<'EOF'
import statistics, sys
v = [float(x) for x in sys.stdin.read().split() if x != "nan"]
if not v:
    print("nan nan")
else:
    m = statistics.median(v)
    print("%.3f %.1f" % (m, (max(v) - min(v)) / m * 100 if m else 0))
EOF

# Paired CPU time: round i of A and of B ran back to back.  Prints the
# median of the differences A - B in ms, in % of B's median, the 95%
# bootstrap interval of that median (fixed seed), and a verdict on "A uses
# no more CPU than B": met (median difference <= 0), noise (above 0, but
# the interval reaches 0), MISSED (the whole interval above 0); then the
# medians of the first, second and last third of the pairs: the bootstrap
# takes the pairs as independent, and where the machine drifts over the
# run (memory on some VMs does) the thirds disagree by more than the
# interval is wide.
cat >"$tmp/paired.py" <<'EOF'
import random, statistics, sys
a = [float(x) for x in open(sys.argv[1]).read().split()]
b = [float(x) for x in open(sys.argv[2]).read().split()]
d = [(x - y) * 1e3 for x, y in zip(a, b)]
if not d:
    print("nan nan nan nan - -")
    sys.exit()
rng = random.Random(1)
boot = sorted(statistics.median(rng.choices(d, k=len(d)))
              for _ in range(2000))
m = statistics.median(d)
lo, hi = boot[49], boot[1949]
verdict = "met" if m <= 0 else ("noise" if lo <= 0 else "MISSED")
t = len(d) // 3
thirds = "/".join("%+.2f" % statistics.median(d[i * t:(i + 1) * t])
                  for i in range(3)) if t else "-"
print("%.2f %.2f %.2f %.2f %s %s" % (m, m / statistics.median(b) / 10, lo,
                                     hi, verdict, thirds))
EOF

cat >"$tmp/skew.py" <<'EOF'
import json, statistics, sys
v = []
for line in open(sys.argv[1]):
    try:
        d = json.loads(line)
        v.append(d["result"]["start_skew_s"] * 1e6)
    except (ValueError, KeyError):
        pass
print("%.1f %.1f %d" % (statistics.median(v), max(v), len(v)) if v else "nan nan 0")
EOF

run() {
	python3 "$tmp/run1.py" "$@" -m "$SIZE" $EXTRA
}

# Appends to $paired the line of one paired comparison: label, then the
# CPU files of the two sides.
add_paired() {
	set -- "$1" $(python3 "$tmp/paired.py" "$2" "$3")
	paired="$paired
$(printf '%-8s %8s ms %6s%%  [%s, %s] ms  %-6s  %s ms' "$@")"
}

echo "pft-compare: A=$PFT${REF:+ B=$REF}, -m $SIZE $EXTRA, $ROUNDS rounds per case"
echo "pft-compare: $(uname -r), $(nproc) CPUs, THP $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
printf '%-8s %14s %7s %9s   %14s %7s %9s   %7s %12s\n' case \
	"A fault/wsec" spread "A cpu s" "B fault/wsec" spread "B cpu s" "A/B" "A skew us"
IFS_SAVE=$IFS
IFS=';'
# shellcheck disable=SC2086
set -- $CASES
IFS=$IFS_SAVE
paired=
for c in "$@"; do
	: >"$tmp/a.rate"; : >"$tmp/a.cpu"; : >"$tmp/b.rate"; : >"$tmp/b.cpu"
	: >"$tmp/c.rate"; : >"$tmp/c.cpu"
	failed=
	run "$PFT" $c >/dev/null
	[ -n "$REF" ] && run "$REF" $c >/dev/null
	# A B, then B A: the first of a pair runs on memory the run before
	# last freed, the second on what the first just freed, and that
	# alone moves CPU time by 1-2% here; alternating cancels it.
	i=0
	while [ $i -lt "$ROUNDS" ]; do
		if [ -z "$REF" ]; then
			order=a
		elif [ "$CONTROL" = 1 ]; then
			# Every order of A, B and B' in turn.
			case $((i % 6)) in
			0) order="a b c" ;; 1) order="c b a" ;;
			2) order="b c a" ;; 3) order="a c b" ;;
			4) order="c a b" ;; *) order="b a c" ;;
			esac
		elif [ $((i % 2)) = 0 ]; then
			order="a b"
		else
			order="b a"
		fi
		for who in $order; do
			# c is B' (B again, with CONTROL=1).
			case $who in
			a) bin=$PFT label=A ;;
			b) bin=$REF label=B ;;
			*) bin=$REF label=B\' ;;
			esac
			set -- $(run "$bin" $c)
			[ "$3" = 0 ] || failed="$failed $label:exit$3"
			echo "$1" >>"$tmp/$who.rate"; echo "$2" >>"$tmp/$who.cpu"
		done
		i=$((i + 1))
	done
	# Start skew from A's JSON, runs of their own, back to back.
	: >"$tmp/a.json"
	i=0
	while [ $i -lt "$ROUNDS" ]; do
			"$PFT" $c -m "$SIZE" $EXTRA --json >>"$tmp/a.json" 2>/dev/null
		i=$((i + 1))
	done
	set -- $(python3 "$tmp/stats.py" <"$tmp/a.rate") \
		$(python3 "$tmp/stats.py" <"$tmp/a.cpu") \
		$(python3 "$tmp/skew.py" "$tmp/a.json")
	a_rate=$1 a_spread=$2 a_cpu=$3 skew=$5 skew_max=$6
	b_rate=- b_spread=- b_cpu=- ratio=-
	if [ -n "$REF" ]; then
		set -- $(python3 "$tmp/stats.py" <"$tmp/b.rate") \
			$(python3 "$tmp/stats.py" <"$tmp/b.cpu")
		b_rate=$1 b_spread=$2% b_cpu=$3
		ratio=$(python3 -c "import sys; a, b = map(float, sys.argv[1:]); print('%.3f' % (a / b) if b else 'nan')" "$a_rate" "$b_rate")
		add_paired "$c" "$tmp/a.cpu" "$tmp/b.cpu"
		[ "$CONTROL" = 1 ] && add_paired "B'-B" "$tmp/c.cpu" "$tmp/b.cpu"
	fi
	printf '%-8s %14s %7s %9s   %14s %7s %9s   %7s %12s%s\n' "$c" \
		"$a_rate" "$a_spread%" "$a_cpu" "$b_rate" "$b_spread" "$b_cpu" \
		"$ratio" "$skew (max $skew_max)" "${failed:+  failed:$failed}"
done
if [ -n "$paired" ]; then
	echo "pft-compare: whole-process CPU, A - B of the back-to-back pairs:"
	echo "case     median diff   of B  95% interval of the median  A <= B  by thirds"
	echo "${paired#?}"
	[ "$CONTROL" = 1 ] &&
		echo "pft-compare: B'-B is B against itself: the resolution of the line above it"
fi
echo "pft-compare: fault/wsec and cpu s are medians; spread is (max - min) / median;"
echo "pft-compare: A skew is the median start skew between workers over $ROUNDS --json runs of A."
