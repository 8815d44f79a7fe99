#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli-sweep-axes.sh - pft-sweep --stripe-pages=LIST --writers=LIST: one
# sweep puts the slices and the striped layouts, and the writer
# counts, side by side, a point for each pair beside each worker count;
# checked on a tiny sweep with this pft: the table's rows, the points
# and runs CSV, and the options each point passed to pft, which pft
# echoes in its own JSON config when the point's command is run again.
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

have_python || skip "python3 is needed (pft-sweep is a Python 3 script)"
sweep=$top_builddir/pft/pft-sweep

"$sweep" --pft="$PFT" -w 1,2 -m 4M --one-shot --warmup=0 -r 2 \
	--interleave-pages=0,1,8 --writers=0,1 -o "$tmp/ax" --no-plot -q \
	-- --oversubscribe >"$tmp/ax.out" 2>"$tmp/ax.err"
rc=$?
if [ "$rc" -ne 0 ]; then
	fail "an axes sweep exited $rc: $(cat "$tmp/ax.err")"
	finish
fi
ok

# The table: shared-vma alone, a row per point, in turn.
i=3
for n in 1 2; do
	w=workers
	[ "$n" -eq 1 ] && w=worker
	for k in slices "stripes of 1" "stripes of 8"; do
		for m in "0 writers" "1 writer"; do
			sed -n "${i}p" "$tmp/ax.out" |
				grep -q "^$n $w, $k, $m  *[0-9]" ||
				fail "table row $((i - 2)): '$(sed -n "${i}p" "$tmp/ax.out")', not '$n $w, $k, $m'"
			i=$((i + 1))
		done
	done
done
sed -n 2p "$tmp/ax.out" | grep -q '^layout  *shared-vma  *spread$' && ok ||
	fail "table header: $(sed -n 2p "$tmp/ax.out")"
[ "$(wc -l <"$tmp/ax.out")" -eq 14 ] && ok ||
	fail "the table has $(wc -l <"$tmp/ax.out") lines, not 2 + 12"

# The files, and the options of each point given to pft: run again one
# page, pft's JSON config says what it was given.
out=$(python3 - "$tmp/ax" "$PFT" <<'EOF'
import csv, json, subprocess, sys
prefix, pft = sys.argv[1], sys.argv[2]
pts = list(csv.DictReader(open(prefix + ".csv")))
runs = list(csv.DictReader(open(prefix + "-runs.csv")))
doc = json.load(open(prefix + ".json"))
want = [(str(n), str(k), str(m)) for n in (1, 2) for k in (0, 1, 8)
        for m in (0, 1)]
got = [(p["workers"], p["interleave_pages"], p["writers"]) for p in pts]
if got != want:
    print("points CSV %s, expected %s" % (got, want))
if len(runs) != 24 or sorted((r["workers"], r["interleave_pages"],
                              r["writers"]) for r in runs) != \
        sorted(want * 2):
    print("runs CSV: %d rows" % len(runs))
for r in runs:
    if r["faults_agree"] != "1" or int(r["pages"]) != 1024:
        print("run %s: pages %s, faults_agree %s" %
              (r["layout"], r["pages"], r["faults_agree"]))
c = doc["config"]
if (c["interleave_pages"], c["writers"], c["workers"]) != \
        ([0, 1, 8], [0, 1], [1, 2]):
    print("JSON config %s" % c)
for p in doc["points"]:
    k, m = p["interleave_pages"], p["writers"]
    opts = ["--stripe-pages=%d" % k, "--writers=%d" % m]
    cmd = p["command"]
    if p["options"] != opts or cmd[-3:-1] != opts or \
            cmd[cmd.index("-t") + 1] != str(p["workers"]):
        print("point %s: options %s, command %s" % (p["label"],
                                                   p["options"], cmd))
        continue
    res = subprocess.run([pft] + cmd[1:] + ["-m", "1P"],
                         stdout=subprocess.PIPE, universal_newlines=True)
    got = json.loads(res.stdout.splitlines()[0])["config"]
    if res.returncode or (got["interleave_pages"], got["writers"]) != (k, m):
        print("point %s: pft ran with interleave_pages %s, writers %s" %
              (p["label"], got.get("interleave_pages"), got.get("writers")))
EOF
)
[ -z "$out" ] && ok || fail "axes sweep files: $out"

# Refused in one line naming the option, before any run.
"$sweep" --pft="$PFT" -w 1 -m 4M --stripe-pages=0,8 -o "$tmp/no" \
	>"$tmp/no.out" 2>"$tmp/no.err"
rc=$?
[ "$rc" -eq 2 ] && grep -q '^pft-sweep: --stripe-pages=0,8: pft stripes the pages in one pass; add --one-shot$' "$tmp/no.err" &&
	[ ! -e "$tmp/no-runs.csv" ] && ok ||
	fail "--stripe-pages without --one-shot: exit $rc: $(cat "$tmp/no.err")"
"$sweep" --pft="$PFT" -w 1 -m 4M --one-shot --writers=0,1 -p per-thread-vma \
	-o "$tmp/no" >"$tmp/no.out" 2>"$tmp/no.err"
rc=$?
[ "$rc" -eq 2 ] && grep -q '^pft-sweep: pft refused the options: pft: --writers needs --pattern=shared-vma$' "$tmp/no.err" &&
	ok || fail "--writers with per-thread-vma: exit $rc: $(cat "$tmp/no.err")"

# --backing=LIST: the backings side by side, a point each beside each
# worker count, with --share given to every pft run; pft echoes the
# backing and share in its JSON config when a point's command is run
# again.  A file:PATH is one item.
mkdir "$tmp/files"
"$sweep" --pft="$PFT" -w 1,2 -m 4M --one-shot --warmup=0 -r 2 \
	--backing=anon,memfd,file:"$tmp/files" --share -o "$tmp/bk" \
	--no-plot -q >"$tmp/bk.out" 2>"$tmp/bk.err"
rc=$?
[ "$rc" -eq 0 ] && ok || fail "a --backing sweep exited $rc: $(cat "$tmp/bk.err")"
rows=$(sed 1,2d "$tmp/bk.out" | sed 's/  .*//' | tr '\n' '|')
[ "$rows" = "1 worker, anon|1 worker, memfd|1 worker, file:$tmp/files|2 workers, anon|2 workers, memfd|2 workers, file:$tmp/files|" ] &&
	sed -n 2p "$tmp/bk.out" | grep -q '^layout  *shared-vma  *spread  *per-thread-vma  *spread' &&
	ok || fail "--backing table: $(cat "$tmp/bk.out")"
out=$(python3 - "$tmp/bk" "$PFT" <<'EOF'
import csv, json, subprocess, sys
prefix, pft = sys.argv[1], sys.argv[2]
pts = list(csv.DictReader(open(prefix + ".csv")))
runs = list(csv.DictReader(open(prefix + "-runs.csv")))
if len(pts) != 12 or len(runs) != 24:
    print("%d points, %d runs" % (len(pts), len(runs)))
for p in json.load(open(prefix + ".json"))["points"]:
    b = p["backing"]
    if sum(1 for r in runs if r["layout"] == p["layout"] and
           r["pattern"] == p["pattern"] and r["backing"] == b) != 2:
        print("point %s %s: not 2 runs" % (p["pattern"], p["label"]))
    res = subprocess.run([pft] + p["command"][1:] + ["-m", "1P"],
                         stdout=subprocess.PIPE, universal_newlines=True)
    got = json.loads(res.stdout.splitlines()[0])["config"]
    want = (b.split(":")[0], True, b[5:] if b.startswith("file:") else None)
    if res.returncode or (got["backing"], got["share"],
                          got["backing_path"]) != want:
        print("point %s: pft ran with %s, %s, %s" %
              (p["label"], got["backing"], got["share"],
               got["backing_path"]))
EOF
)
[ -z "$out" ] && ok || fail "--backing sweep files: $out"
"$sweep" --pft="$PFT" -w 1 -m 4M --backing=anon,,memfd -o "$tmp/no" \
	>"$tmp/no.out" 2>"$tmp/no.err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "^pft-sweep: argument --backing: 'anon,,memfd': an empty backing (a file:PATH holds no comma)$" "$tmp/no.err" &&
	ok || fail "--backing=anon,,memfd: exit $rc: $(cat "$tmp/no.err")"
"$sweep" --pft="$PFT" -w 1 -m 4M --backing=anon,bogus -o "$tmp/no" \
	>"$tmp/no.out" 2>"$tmp/no.err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "^pft-sweep: pft refused the options: pft: --backing 'bogus'" "$tmp/no.err" &&
	[ ! -e "$tmp/no-runs.csv" ] &&
	ok || fail "--backing=anon,bogus: exit $rc: $(cat "$tmp/no.err")"

finish
