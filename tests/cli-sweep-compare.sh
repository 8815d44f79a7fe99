#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli-sweep-compare.sh - pft-sweep --compare BASE NEW [NEW...]: one row
# per pattern and point of any sweep, a column per sweep, the gain of the
# last against the base and the noise; from the per-run figures, Welch's
# t-test on log rates marks (I) or (R) where the difference is significant
# at 95%, checked on synthetic runs CSVs whose answers are known (Student's
# t quantile from the tables, the p-value from the closed form of the t
# distribution with 4 degrees of freedom); formats plain, email, Markdown,
# CSV, JSON; warnings when the sweeps ran on anything different besides
# the kernel; errors.
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

have_python || skip "python3 is needed (pft-sweep is a Python 3 script)"
sweep=$top_builddir/pft/pft-sweep

# Points CSV files only: medians, gains and noise, no significance.
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

# rows WHAT NAME: the rows of $tmp/NAME.out (after its description and
# header), blanks squeezed, against the lines on stdin; $rc its status.
rows() {
	sed -n '3,$p' "$tmp/$2.out" | tr -s ' ' >"$tmp/rows"
	if [ "$rc" -ne 0 ] || ! cmp -s "$tmp/rows" -; then
		fail "$1: exit $rc, rows:
$(cat "$tmp/rows" "$tmp/$2.err")"
	else
		ok
	fi
}

"$sweep" --compare "$tmp/base.csv" "$tmp/new.csv" >"$tmp/cmp.out" 2>"$tmp/cmp.err"
rc=$?
# pattern workers base new gain noise
rows compare cmp <<'EOF'
shared-vma 1 100000 110000 +10.0% 2.0%
shared-vma 2 150000 300000 +100.0% 2.0%
shared-vma 4 160000 - - 0.0%
per-thread-vma 1 200000 190000 -5.0% 6.0%
per-thread-vma 2 300000 300000 +0.0% 2.0%
processes 1 - 50000 - 0.0%
EOF
sed -n 2p "$tmp/cmp.out" | grep -q '^pattern  *workers  *base  *new  *gain  *noise$' ||
	fail "compare header: $(sed -n 2p "$tmp/cmp.out")"
head -n 1 "$tmp/cmp.out" | grep -q "base $tmp/base.csv, new $tmp/new.csv" ||
	fail "compare does not name its files: $(head -n 1 "$tmp/cmp.out")"
grep -q "no per-run figures (PREFIX-runs.csv) for base, new: no significance" \
	"$tmp/cmp.err" || fail "no warning that nothing is tested: $(cat "$tmp/cmp.err")"
grep -q "base ($tmp/base.csv): no JSON file" "$tmp/cmp.err" ||
	fail "no warning that what base ran on is unknown: $(cat "$tmp/cmp.err")"

# Markdown: a header, the alignment row, one row per point.
"$sweep" --compare --markdown "$tmp/base.csv" "$tmp/new.csv" >"$tmp/md.out" 2>/dev/null
if [ "$(sed -n 2p "$tmp/md.out")" != "| pattern | workers | base | new | gain | noise |" ] ||
	[ "$(sed -n 3p "$tmp/md.out")" != "|:---|---:|---:|---:|---:|---:|" ] ||
	[ "$(grep -c '^| ' "$tmp/md.out")" -ne 7 ]; then
	fail "compare --markdown:
$(cat "$tmp/md.out")"
else
	ok
fi

# A runs CSV given alone: each point's median of fault/wsec.
cat >"$tmp/runs.csv" <<'EOF'
pattern,workers,cpus,size,run,pages,rounds,minflt,faults_agree,elapsed_s,fault_s,user_s,sys_s,start_skew_s,fault_per_wsec,flt_per_cpu_s,faults_per_wall_s,round_rate_median,round_rate_min,round_rate_max
shared-vma,1,,1G,1,1,1,1,1,1,1,0,1,0,90000.000,1,1,,,
shared-vma,1,,1G,2,1,1,1,1,1,1,0,1,0,120000.000,1,1,,,
shared-vma,1,,1G,3,1,1,1,1,1,1,0,1,0,100000.000,1,1,,,
EOF
"$sweep" --compare "$tmp/runs.csv" "$tmp/new.csv" >"$tmp/runs.out" 2>/dev/null
sed -n 3p "$tmp/runs.out" | tr -s ' ' | grep -qx 'shared-vma 1 100000 110000 +10.0% 30.0%' ||
	fail "compare of a runs CSV: $(sed -n 3p "$tmp/runs.out")"

# mkruns PREFIX: a runs CSV from lines "pattern workers layout label|v v v"
# on stdin (layout and label may be "-").
mkruns() {
	python3 -c '
import csv, sys
cols = ("pattern,workers,cpus,size,run,pages,rounds,minflt,faults_agree,"
        "elapsed_s,fault_s,user_s,sys_s,start_skew_s,fault_per_wsec,"
        "flt_per_cpu_s,faults_per_wall_s,round_rate_median,round_rate_min,"
        "round_rate_max,layout").split(",")
w = csv.writer(open(sys.argv[1] + "-runs.csv", "w"), lineterminator="\n")
w.writerow(cols)
for line in sys.stdin:
    head, vals = line.rstrip("\n").split("|")
    pattern, workers, layout = head.split()[:3]
    for i, v in enumerate(vals.split(), 1):
        row = dict.fromkeys(cols, "")
        row.update(pattern=pattern, workers=workers, run=i,
                   fault_per_wsec=v, layout="" if layout == "-" else layout)
        w.writerow([row[k] for k in cols])
' "$1"
}

# Known answers.  Base: 1e5 * exp(-0.1, 0, 0.1), three runs per point.
# New: the same times exp(0.3) at 1 worker, exp(0.2) at 2 workers.  The
# two log samples have the same variance 0.01, so Welch's degrees of
# freedom are exactly 4 and the 95% interval of the log ratio is
# d -+ t(0.975, 4) * 0.1 * sqrt(2/3), t(0.975, 4) = 2.776445 (tables):
# d = 0.3 gives +7.6% to +69.3% (significant), d = 0.2 gives -2.6% to
# +53.2% (not).  Gains are ratios of medians: exp(0.3) - 1 = +35.0%.
# At 4 workers the new runs are the base runs in another order.
mkruns "$tmp/a" <<'EOF'
shared-vma 1 - |90483.742 100000 110517.092
shared-vma 2 - |90483.742 100000 110517.092
shared-vma 4 - |90483.742 100000 110517.092
EOF
mkruns "$tmp/b" <<'EOF'
shared-vma 1 - |122140.276 134985.881 149182.470
shared-vma 2 - |110517.092 122140.276 134985.881
shared-vma 4 - |110517.092 90483.742 100000
EOF
"$sweep" --compare "$tmp/a" "$tmp/b" --interval >"$tmp/k.out" 2>"$tmp/k.err"
rc=$?
rows "known answers" k <<'EOF'
shared-vma 1 100000 134986 (I) +35.0% [+7.6%, +69.3%] 20.0%
shared-vma 2 100000 122140 +22.1% [-2.6%, +53.2%] 20.0%
shared-vma 4 100000 100000 +0.0% [-20.3%, +25.4%] 20.0%
EOF
sed -n 2p "$tmp/k.out" | grep -q '^pattern  *workers  *base  *new  *gain  *95% interval  *noise$' ||
	fail "--interval header: $(sed -n 2p "$tmp/k.out")"
head -n 1 "$tmp/k.out" | grep -q "(I)/(R): higher/lower than base at 95% (Welch's t-test on the logarithms of the runs' rates)$" ||
	fail "the test is not named: $(head -n 1 "$tmp/k.out")"

# The other way round: a regression, (R), and the interval inverted.
"$sweep" --compare "$tmp/b" "$tmp/a" --interval >"$tmp/r.out" 2>/dev/null
sed -n 3p "$tmp/r.out" | tr -s ' ' |
	grep -qx 'shared-vma 1 134986 100000 (R) -25.9% \[-40.9%, -7.1%\] 20.0%' ||
	fail "regression: $(sed -n 3p "$tmp/r.out")"

# The p-values in the CSV: the closed form of Student's t with 4 degrees
# of freedom, F(t) = 1/2 + 3/8 u (1 - u^2 / 12 ... ), computed here apart.
"$sweep" --compare "$tmp/a" "$tmp/b" --format=csv >"$tmp/k.csv" 2>/dev/null
out=$(python3 - "$tmp/k.csv" <<'EOF'
import csv, math, sys
def p4(t):
    # two-sided p of Student's t, 4 degrees of freedom, closed form
    a = 1 + t * t / 4
    return 2 * (0.5 - 3 / 8 * t / math.sqrt(a) * (1 - t * t / (12 * a)))
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["sweep"] == "1"]
want = {"1": (p4(0.3 / (0.1 * math.sqrt(2 / 3))), "I"),
        "2": (p4(0.2 / (0.1 * math.sqrt(2 / 3))), ""),
        "4": (1.0, "")}
for r in rows:
    p, mark = want[r["point"]]
    if abs(float(r["p_value"]) - p) > 1e-4 or r["mark"] != mark or \
            r["runs"] != "3" or r["name"] != "new":
        print("point %s: p %s mark '%s', expected %.5f '%s'" %
              (r["point"], r["p_value"], r["mark"], p, mark))
if len(rows) != 3:
    print("%d rows of the new sweep" % len(rows))
EOF
)
if [ -z "$out" ]; then
	ok
else
	fail "CSV p-values: $out"
fi

# Five noisy runs a side: a clear 30% difference is marked in its
# direction; a 0.5% shift within 5% noise, and the same runs reordered,
# are not.
mkruns "$tmp/n1" <<'EOF'
shared-vma 2 - |1000000 1030000 970000 1010000 990000
per-thread-vma 2 - |1000000 1030000 970000 1010000 990000
processes 2 - |1000000 1030000 970000 1010000 990000
EOF
mkruns "$tmp/n2" <<'EOF'
shared-vma 2 - |1300000 1339000 1261000 1313000 1287000
per-thread-vma 2 - |1005000 1035150 974850 1015050 994950
processes 2 - |990000 1010000 1000000 970000 1030000
EOF
"$sweep" --compare "$tmp/n1" "$tmp/n2" >"$tmp/n.out" 2>/dev/null
marks=$(sed -n '3,$p' "$tmp/n.out" | awk '{ print $1, ($5 ~ /^\(/ ? $5 : "-") }' | tr '\n' ';')
[ "$marks" = "shared-vma (I);per-thread-vma -;processes -;" ] ||
	fail "noisy runs: marks '$marks'
$(cat "$tmp/n.out")"
"$sweep" --compare "$tmp/n2" "$tmp/n1" >"$tmp/n.out" 2>/dev/null
sed -n 3p "$tmp/n.out" | grep -q '^shared-vma  *2  *1300000  *1000000 (R)  *-23\.1%' ||
	fail "noisy runs reversed: $(sed -n 3p "$tmp/n.out")"

# Layouts, three sweeps, names, a gain per new sweep, the email layout.
mkruns "$tmp/l0" <<'EOF'
shared-vma 7 l3:1x7|2360000 2300000 2400000
shared-vma 7 l3:7x1|1738000 1700000 1760000
EOF
mkruns "$tmp/l1" <<'EOF'
shared-vma 7 l3:1x7|2369000 2310000 2420000
shared-vma 7 l3:7x1|1982000 1990000 1970000
EOF
mkruns "$tmp/l2" <<'EOF'
shared-vma 7 l3:1x7|2425000 2350000 2480000
shared-vma 7 l3:7x1|2215000 2200000 2230000
EOF
# The runs CSV names the layout only; the points CSV gives the labels.
for s in l0 l1 l2; do
	python3 - "$tmp/$s" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1] + "-runs.csv")))
cols = ("pattern,workers,cpus,size,runs,metric,median,min,max,spread_pct,"
        "layout,label").split(",")
labels = {"l3:1x7": "1 CCD, 7 workers", "l3:7x1": "7 CCDs, 1 worker each"}
w = csv.writer(open(sys.argv[1] + ".csv", "w"), lineterminator="\n")
w.writerow(cols)
for lay in labels:
    v = [float(r["fault_per_wsec"]) for r in rows if r["layout"] == lay]
    m = statistics.median(v)
    w.writerow(["shared-vma", 7, "", "1G", len(v), "legacy", m, min(v),
                max(v), (max(v) - min(v)) / m * 100, lay, labels[lay]])
EOF
done
"$sweep" --compare "$tmp/l0" "$tmp/l1.csv" "$tmp/l2-runs.csv" \
	--names='base,+patch 1,+patch 2' --format=email >"$tmp/e.out" 2>/dev/null
rc=$?
cat >"$tmp/want" <<'EOF'
shared-vma, fault/wsec, median of 3 runs
CPUs                     base    +patch 1    +patch 2    gain
1 CCD, 7 workers       2.360M  2.369M      2.425M       +2.8%
7 CCDs, 1 worker each  1.738M  1.982M (I)  2.215M (I)  +27.4%

(I), (R): higher, lower than base at 95% confidence (Welch's t-test on the logarithms of the runs' rates)
EOF
if [ "$rc" -ne 0 ] || ! cmp -s "$tmp/e.out" "$tmp/want"; then
	fail "email layout: exit $rc:
$(cat "$tmp/e.out")"
else
	ok
fi
"$sweep" --compare "$tmp/l0" "$tmp/l1" "$tmp/l2" --gains=each --interval \
	>"$tmp/g.out" 2>/dev/null
sed -n 2p "$tmp/g.out" | grep -q '^pattern  *layout  *base  *new 1  *new 2  *gain new 1  *95% interval  *gain new 2  *95% interval  *noise$' ||
	fail "--gains=each header: $(sed -n 2p "$tmp/g.out")"
sed -n 4p "$tmp/g.out" | grep -q '^shared-vma  *7 CCDs, 1 worker each  *1738000  *1982000 (I)  *2215000 (I)  *+14\.0%  *\[+[0-9.]*%, +[0-9.]*%\]  *+27\.4%  *\[+[0-9.]*%, +[0-9.]*%\]  *[0-9.]*%$' ||
	fail "--gains=each row: $(sed -n 4p "$tmp/g.out")"

# CSV and JSON files with -o; the JSON on stdout parses and agrees.
"$sweep" --compare "$tmp/l0" "$tmp/l2" -o "$tmp/cmpout" --no-plot -q \
	>/dev/null 2>&1
"$sweep" --compare "$tmp/l0" "$tmp/l2" --format=json >"$tmp/j.out" 2>/dev/null
out=$(python3 - "$tmp/cmpout" "$tmp/j.out" <<'EOF'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1] + ".csv")))
doc = json.load(open(sys.argv[1] + ".json"))
out = json.load(open(sys.argv[2]))
if doc["schema"] != "pft-sweep-compare/1" or out["rows"] != doc["rows"]:
    print("JSON schema or rows differ")
if [(r["point"], r["sweep"], r["mark"]) for r in rows] != \
        [("l3:1x7", "0", ""), ("l3:1x7", "1", ""), ("l3:7x1", "0", ""),
         ("l3:7x1", "1", "I")]:
    print("CSV rows %s" % [(r["point"], r["sweep"], r["mark"]) for r in rows])
if doc["test"]["level"] != 0.95 or doc["sweeps"][1]["name"] != "new":
    print("JSON test or sweeps")
EOF
)
if [ -z "$out" ]; then
	ok
else
	fail "compare -o: $out"
fi

# What the sweeps ran on: a kernel of its own (and the boot loader's name
# for it) is what a comparison is for; anything else is worth a warning.
mkhost() {
	python3 - "$@" <<'EOF'
import json, sys
prefix, kernel, cmdline, thp, model, size = sys.argv[1:7]
host = {"kernel": kernel, "cmdline": cmdline, "hostname": "h",
        "machine": "x86_64", "cpu_model": model,
        "topology": {"cpus": 84, "l3_domains": 12},
        "thp": {"enabled": thp, "defrag": "madvise"}, "pft": "p",
        "libfaultgen": "1.0.0"}
config = {"size": size, "repeat": 3, "mode": "duration", "metric": "legacy"}
# "old": a pft-sweep from before --interleave, whose config has no key.
if sys.argv[7:] != ["old"]:
    config["interleave"] = sys.argv[7:] != ["no"]
json.dump({"schema": "pft-sweep/1", "host": host, "config": config,
           "points": []}, open(prefix + ".json", "w"))
EOF
}
cp "$tmp/a-runs.csv" "$tmp/w0-runs.csv"
cp "$tmp/a-runs.csv" "$tmp/w1-runs.csv"
cp "$tmp/a-runs.csv" "$tmp/w2-runs.csv"
mkhost "$tmp/w0" 6.18.0 "BOOT_IMAGE=/vmlinuz-6.18.0 root=/dev/sda1 quiet" madvise "AMD EPYC 9634" 1G
mkhost "$tmp/w1" 6.18.0-patched "BOOT_IMAGE=/vmlinuz-6.18.0-patched root=/dev/sda1 quiet" madvise "AMD EPYC 9634" 1G
mkhost "$tmp/w2" 6.18.0-patched "BOOT_IMAGE=/vmlinuz-6.18.0-patched root=/dev/sda1 quiet mitigations=off" always "AMD EPYC 9654" 4G
"$sweep" --compare "$tmp/w0" "$tmp/w1" >/dev/null 2>"$tmp/w1.err"
rc=$?
if [ "$rc" -ne 0 ] || [ -s "$tmp/w1.err" ]; then
	fail "another kernel alone warns: exit $rc, $(cat "$tmp/w1.err")"
else
	ok
fi
"$sweep" --compare "$tmp/w0" "$tmp/w2" >/dev/null 2>"$tmp/w2.err"
for w in "new differs from base in kernel command line: root=/dev/sda1 quiet mitigations=off against root=/dev/sda1 quiet" \
	"new differs from base in THP settings (enabled): always against madvise" \
	"new differs from base in CPU model: AMD EPYC 9654 against AMD EPYC 9634" \
	"new differs from base in the sweep's size: 4G against 1G"; do
	grep -qxF "pft-sweep: warning: $w" "$tmp/w2.err" ||
		fail "no warning '$w': $(cat "$tmp/w2.err")"
done
[ "$(wc -l <"$tmp/w2.err")" -eq 4 ] || fail "warnings: $(cat "$tmp/w2.err")"

# Runs of a point made one after the other in one pft (--no-interleave,
# --perf, a pft-sweep before --interleave): gains, but no marks, and a
# warning why.  Against interleaved runs, the same figures are marked.
for s in w3 w4 w5; do
	cp "$tmp/b-runs.csv" "$tmp/$s-runs.csv"
done
mkhost "$tmp/w3" 6.18.0-patched "root=/dev/sda1 quiet" madvise "AMD EPYC 9634" 1G
mkhost "$tmp/w4" 6.18.0-patched "root=/dev/sda1 quiet" madvise "AMD EPYC 9634" 1G no
mkhost "$tmp/w5" 6.18.0-patched "root=/dev/sda1 quiet" madvise "AMD EPYC 9634" 1G old
"$sweep" --compare "$tmp/w0" "$tmp/w3" >"$tmp/w3.out" 2>"$tmp/w3.err"
rc=$?
if [ "$rc" -ne 0 ] || [ -s "$tmp/w3.err" ] ||
	! sed -n 3p "$tmp/w3.out" | grep -q '^shared-vma  *1  *100000  *134986 (I)  *+35\.0%'; then
	fail "interleaved sweeps: exit $rc, $(cat "$tmp/w3.out" "$tmp/w3.err")"
else
	ok
fi
for s in w4 w5; do
	for order in "$tmp/w0 $tmp/$s" "$tmp/$s $tmp/w0"; do
		# shellcheck disable=SC2086
		"$sweep" --compare $order --interval >"$tmp/$s.out" 2>"$tmp/$s.err"
		rc=$?
		name=new
		[ "${order%% *}" = "$tmp/$s" ] && name=base
		if [ "$rc" -ne 0 ] ||
			! grep -q "^pft-sweep: warning: $name: each point's runs ran one after the other in one pft (--no-alternate, --perf or an older pft-sweep), their spread leaves out the machine's drift: no significance marks against it (see pft-sweep(1), SIGNIFICANCE)$" "$tmp/$s.err" ||
			grep -q '([IR])' "$tmp/$s.out" ||
			[ "$(sed -n '3,$p' "$tmp/$s.out" | tr -s ' ' | grep -c ' [-+][0-9.]*% - ')" -ne 3 ]; then
			fail "$s ($name) not interleaved: exit $rc, $(cat "$tmp/$s.out" "$tmp/$s.err")"
		else
			ok
		fi
	done
done

# Two real sweeps of the same kind compare point by point, silently.
"$sweep" --pft="$PFT" -m 4M --rounds=1 --warmup=0 -r 2 -p shared-vma -w 1 \
	-o "$tmp/ra" --no-plot -q >/dev/null 2>"$tmp/ra.err" &&
"$sweep" --pft="$PFT" -m 4M --rounds=1 --warmup=0 -r 2 -p shared-vma -w 1 \
	-o "$tmp/rb" --no-plot -q >/dev/null 2>"$tmp/rb.err"
rc=$?
"$sweep" --compare "$tmp/ra.csv" "$tmp/rb.csv" >"$tmp/ab.out" 2>"$tmp/ab.err"
if [ "$rc" -ne 0 ] || [ "$(wc -l <"$tmp/ab.out")" -ne 3 ] || [ -s "$tmp/ab.err" ] ||
	! sed -n 3p "$tmp/ab.out" | grep -q '^shared-vma  *1  *[0-9][0-9]*  *[0-9][0-9]*\( ([IR])\)\{0,1\}  *[-+][0-9.]*%  *[0-9.]*%$'; then
	fail "compare of two sweeps: exit $rc, $(cat "$tmp/ab.out" "$tmp/ab.err" "$tmp/ra.err" "$tmp/rb.err")"
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
