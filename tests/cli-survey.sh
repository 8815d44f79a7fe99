#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli-survey.sh - pft-survey against pft itself: "pft -t 2 -m 64M" is one
# 64 MiB anonymous VMA faulted 16384 times by 2 threads and reproduces as
# "pft -t 2 -m 64M"; -M -t 2 is two VMAs of one thread each; -n 2 two
# processes; --touch=populate faults the kernel counts without a user
# fault event; sampling one event in 16 scales the counts; -p PID
# --duration attaches to a running pft; a merged VMA of two malloc'd
# buffers faulted by 3 threads (survey-merged.c), also when the second
# is mapped after a snapshot saw the first alone; a VMA grown down, split,
# moved, and a file mapped over its end (survey-vmas.c).  The kind of each fault, the objects across
# processes (--share, -S, memfd), copy-on-write after fork, huge pages,
# read faults, pretouch, --oversubscribe, a file in a directory named
# 'd;id', a name with an escape sequence, and --check (the pft line
# surveyed, its faults within 2%).  Errors: perf missing,
# the program not found, the program failing (its status passed on, the
# report still printed), no such process, Ctrl-C (a report, exit 130, no
# temporary files left).  Files, signals and processes: -o refuses what
# is not a regular file and follows no link at PATH.tmp; SIGKILL leaves
# neither perf nor the program, and the next survey removes the
# directory left; SIGTERM and SIGHUP stop the program (killed 5 s later
# when it ignores them) or detach from -p, with a report; -p of a
# process whose children come and go; a mapped name not UTF-8.  On one
# CPU the cases of 2 workers add --oversubscribe.
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

need_survey

# run_survey NAME ARGS...: stdout in $tmp/NAME.out, stderr .err, $rc.
run_survey() {
	name=$1
	shift
	"$survey" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
}

# check NAME PYTHON-CONDITIONS...: the JSON report $tmp/NAME.out holds;
# d is the document, top the first VMA, within(a, b, pct) is |a-b| <=
# pct% of b.  counted(a, b, pct): a VMA's faults a are b, within pct%,
# or, where perf's buffer dropped samples (a busy machine), a is short
# of b by no more than the faults those samples stood for.
check() {
	name=$1
	shift
	if out=$(python3 - "$tmp/$name.out" "$@" <<'EOF' 2>&1
import json, shlex, sys
d = json.load(open(sys.argv[1]))
top = d["vmas"][0] if d["vmas"] else {}
obj = d["objects"][0] if d.get("objects") else {}
MiB = 1 << 20
tp = d.get("source") == "tracepoints"
words = shlex.split(d["reproduce"] or "")
def kind(o, k):
    return (o["kinds"].get(k) or {}).get("faults", 0)
# --check: the pft line's survey gives the faults on the pattern's
# objects, and those of each kind with 1% of them or more, within pct%,
# and as many workers.
def reproduced(pct):
    rows = {r["dimension"]: r for r in d["check"]["rows"]}
    total = rows["faults on them"]["program"]
    dims = ["faults on them"] + [n for n, r in rows.items()
                                 if n.startswith("of kind") and
                                 r["program"] * 100 >= total]
    return total > 0 and rows["workers (threads with 1% or more)"]["ratio"] == 1 and \
        all(rows[n]["ratio"] is not None and abs(rows[n]["ratio"] - 1) <= pct / 100
            for n in dims)
lost = d["perf"].get("lost_faults", 0)
def within(a, b, pct):
    return abs(a - b) <= b * pct / 100
def counted(a, b, pct):
    return within(a, b, pct) or \
        (a <= b * (100 + pct) / 100 and within(a + lost, b, pct))
bad = [c for c in sys.argv[2:] if not eval(c)]
if bad:
    print("; ".join(bad), "| verdict:", d["verdict"], "| top:",
          {k: top.get(k) for k in ("size", "backing", "faults", "threads",
                                   "pid")}, "| perf:", d["perf"],
          "| kernel:", d.get("kernel"), "| check:",
          [(r["dimension"], r["program"], r["ratio"])
           for r in (d.get("check") or {}).get("rows", [])])
    sys.exit(1)
EOF
	); then
		ok
	else
		fail "$name: not true: $out"
	fi
}

# The shared-VMA pattern.
run_survey shared --json -- "$PFT" -t 2 -m 64M $thp $over
[ "$rc" -eq 0 ] || fail "shared: exit $rc: $(cat "$tmp/shared.err")"
check shared 'top["size"] == 64 * MiB' 'top["backing"] == "anonymous"' \
	'top["threads"] == 2' 'counted(top["faults"], 16384, 1)' \
	"d['reproduce'] == 'pft -t 2 -m 64M${over:+ $over}'" '"shared-VMA" in d["verdict"]' \
	'd["kernel"]["faults"] >= d["perf"]["faults"]' \
	'd["perf"]["faults"] == sum(v["faults"] for v in d["vmas"]) + d["perf"]["before_exec"] + d["perf"]["outside_known_vmas"]' \
	'd["exit_status"] == 0 and not d["interrupted"]'

# The same as text: the verdict and the command line to paste.
run_survey text -- "$PFT" -t 2 -m 64M $thp $over
if grep -q "^reproduce with: pft -t 2 -m 64M${over:+ $over}\$" "$tmp/text.out" &&
	grep -q '^verdict: .*64 MiB anonymous VMA from 2 threads' "$tmp/text.out"; then
	ok
else
	fail "text: no verdict or reproduce line: $(tail -n 3 "$tmp/text.out")"
fi

# One VMA per worker.
run_survey perthread --json -- "$PFT" -M -t 2 -m 64M $thp $over
check perthread 'len([v for v in d["vmas"] if v["size"] == 32 * MiB and v["threads"] == 1 and counted(v["faults"], 8192, 1)]) == 2' \
	'd["vmas"][0]["top_threads"][0]["tid"] != d["vmas"][1]["top_threads"][0]["tid"]' \
	"d['reproduce'] == 'pft -M -t 2 -m 64M${over:+ $over}'"

# Two processes, each faulting its half of its own 64 MiB VMA.
run_survey procs --json -- "$PFT" -n 2 -m 64M $thp $over
check procs 'len({v["pid"] for v in d["vmas"] if v["size"] == 64 * MiB and counted(v["faults"], 8192, 1)}) == 2' \
	'd["followed_children"]' "d['reproduce'] == 'pft -n 2 -m 64M${over:+ $over}'"

# MADV_POPULATE_WRITE: the kernel counts the faults, perf sees none.
# The workers are counted from their counters as last seen, which can
# miss one that ended between two snapshots: 1 or 2.  On one CPU the
# survey's snapshots take turns with pft's workers: pft keeps the memory
# a second (-s 1) for one of them to see it resident.
hold=
[ -z "$over" ] || hold="-s 1"
run_survey populate --json -- "$PFT" -t 2 -m 64M --touch=populate $thp $over $hold
check populate 'd["kernel_minus_perf"] >= 16384 * 0.99' \
	'"populate pattern" in d["verdict"]' \
	'__import__("re").fullmatch(r"pft -t [12] -m 6[45]M --touch=populate( --oversubscribe)?", d["reproduce"])'

# One event in 16: scaled counts, the error stated.
run_survey sampled --json -c 16 -- "$PFT" -t 2 -m 64M $thp $over
check sampled 'd["period"] == 16' 'counted(top["faults"], 16384, 2)' \
	'top["samples"] * 16 == top["faults"]' \
	'0 < d["sampling_rel_error"] < 0.05' 'top["threads"] == 2'

# perf's buffer made one page a CPU (a perf that reads late): the samples
# it dropped are counted and not taken for faults of the kernel's own.
mkdir "$tmp/bin"
realperf=$(command -v perf)
printf '#!/bin/sh\n[ "$1" = record ] && { shift; exec "%s" record "$@" -m 1; }\nexec "%s" "$@"\n' \
	"$realperf" "$realperf" >"$tmp/bin/perf"
chmod +x "$tmp/bin/perf"
# A perf that reads late can also drop samples after its last
# PERF_RECORD_LOST (seen on a busy CI host).  The survey takes the kernel's own total where perf has one
# (6.1 on); where it has none, the kernel still counts those faults, and
# they show in kernel_minus_perf above the shared run's.  So:
# the VMA's faults, the lost ones and those hidden faults make the pages;
# the faults hidden are no more than 1% of the pages and twice the VMA's
# faults neither seen nor reported lost (lost faults taken for the
# kernel's own would be more); and a VMA short of its pages has lost
# samples reported.
PATH=$tmp/bin:$PATH run_survey lost --json -- "$PFT" -t 2 -m 64M $thp $over
base=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["kernel_minus_perf"])' \
	"$tmp/shared.out" 2>/dev/null || echo 0)
check lost 'top["size"] == 64 * MiB' \
	'd["perf"]["lost_faults"] == d["perf"]["lost_samples"]' \
	"top['faults'] <= 16384 * 1.01" \
	"top['faults'] + lost + max(0, d['kernel_minus_perf'] - $base) >= 16384 * 0.99" \
	"d['kernel_minus_perf'] - $base <= 16384 * 0.01 + 2 * max(0, 16384 - top['faults'] - lost)" \
	'lost > 0 or within(top["faults"], 16384, 1)' \
	'"shared-VMA" in d["verdict"]'

# Attached to a running pft for one second.
start_pft attach --duration=20 -t 2 -m 16M $thp $over
run_survey attached --json -p "$pid" --duration=1
kill -INT "$pid" 2>/dev/null
wait "$bg" 2>/dev/null
check attached 'top["size"] == 16 * MiB' 'top["threads"] == 2' \
	'top["faults"] > 0' 'd["attached_pid"] > 0' \
	"d['reproduce'] == 'pft -t 2 -m 16M${over:+ $over}'"

# Two malloc'd buffers the kernel merged into one VMA, 3 threads.
if [ -x "$top_builddir/tests/survey-merged" ]; then
	run_survey merged --json -o "$tmp/merged.out" -- \
		"$top_builddir/tests/survey-merged" 8 12
	check merged 'top["size"] >= 20 * MiB and top["size"] < 22 * MiB' \
		'top["backing"] == "anonymous"' \
		'len([t for t in top["top_threads"] if t["faults"] >= 1000]) == 3' \
		'counted(top["faults"], 20 * 256, 2)' \
		'd["reproduce"].startswith("pft -t 3 -m ")'
	# B mapped 100 ms after A: snapshots see A alone, then the one VMA
	# the kernel grew down over B; the faults are all that VMA's.
	run_survey merged-later --json -- \
		"$top_builddir/tests/survey-merged" 8 12 100
	check merged-later 'top["size"] >= 20 * MiB and top["size"] < 22 * MiB' \
		'counted(top["faults"], 20 * 256, 2)' \
		'not [v for v in d["vmas"][1:] if v["pid"] == top["pid"] and int(v["start"], 16) < int(top["end"], 16) and int(top["start"], 16) < int(v["end"], 16)]'
fi

# The kind of each fault, the object by bytes, the line sized from them.
# With the tracepoints (root) the first touches are writes to pages not
# present; without them user-mode faults whose kind is not told, and the
# report says so.
check shared 'kind(obj, "first-touch" if tp else "user") >= 16384 * 0.99 - lost' \
	'obj["bytes"] == obj["faults"] * 4096' 'obj["processes"] == 1' \
	'tp or any("not told apart" in x or "not recorded" in x for x in d["not_told_apart"])' \
	'd["reproduce_checked"] is True'

# Huge pages: 32 faults of 2 MiB are 64 MiB, not 32 pages; the ~230
# faults an execve takes through get_user_pages are not a populate
# pattern of 2 MiB each.
if grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null; then
	echo "cli-survey: THP is off here: the huge-page case is not run" >&2
else
	run_survey thp --json --check -- "$PFT" -t 2 -m 64M --thp=always $over
	check thp 'obj["bytes"] >= 60 * MiB' 'kind(obj, "huge") >= 30' \
		'"populate" not in d["verdict"]' '"shared-VMA" in d["verdict"]' \
		"d['reproduce'] == 'pft -t 2 -m 64M --thp=always${over:+ $over}'" \
		'reproduced(2)'
fi

# Copy-on-write after fork: the workers' writes to the pages the child
# shares.  Without the tracepoints, refaults after the fork.
run_survey cow --json --check -- "$PFT" --pattern=cow-fork -t 1 -m 16M $thp
check cow 'kind(obj, "cow" if tp else "refault") >= 4096 * 0.98' \
	'd["pattern"] == "cow-fork"' '"copy-on-write after fork" in d["verdict"]' \
	'd["reproduce"] == "pft --pattern=cow-fork -t 1 -m 16M"' \
	'd["reproduce_checked"] is True' 'reproduced(2)'
run_survey cow-writes --json -- "$PFT" --pattern=cow-fork -t 1 -m 16M \
	--cow-child=writes $thp
check cow-writes 'd["pattern"] == "cow-fork"' \
	'd["reproduce"] == "pft --pattern=cow-fork -t 1 -m 16M --cow-child=writes"'

# Shared memory across processes is one object, reproduced as shared:
# shared anonymous memory, a SysV segment, a memfd.  Each process
# faulted half: pft -n 2 -m 32M gives each half of 32M.
for b in share:--share sysv:-S memfd:--backing=memfd,--share; do
	name=${b%%:*}
	opts=$(echo "${b#*:}" | tr , ' ')
	# shellcheck disable=SC2086
	run_survey "$name" --json --check -- "$PFT" -n 2 -m 32M $opts $thp $over
	check "$name" 'obj["processes"] == 2' 'obj["shared"]' \
		'counted(obj["faults"], 8192, 1)' 'd["pattern"] == "shared-object"' \
		"d['reproduce'] == 'pft -n 2 -m 32M $opts${over:+ $over}'" \
		'reproduced(2)'
done

# Read faults: told as such with the tracepoints; without them the
# verdict does not guess.
run_survey read --json --check -- "$PFT" -t 2 -m 16M --touch=read $thp $over
check read "d['reproduce'] == ('pft -t 2 -m 16M --touch=read' if tp else 'pft -t 2 -m 16M') + '${over:+ $over}'" \
	'tp or "read faults" not in d["verdict"]' 'reproduced(2)'

# The JVM's pretouch: chunks claimed in turn (by two threads at once:
# on one CPU one thread can claim them all).
if [ -z "$over" ]; then
	run_survey pretouch --json --check -- "$PFT" --pattern=pretouch -t 2 -m 64M $thp
	check pretouch 'd["pattern"] == "pretouch"' \
		'd["reproduce"] == "pft --pattern=pretouch -t 2 -m 64M"' 'reproduced(2)'
fi

# More workers than this machine's CPUs: the line keeps them.
n=$(($(nproc) + 1))
run_survey over --json -- "$PFT" -t $n -m $((n * 4))M --oversubscribe $thp
check over "d['reproduce'] == 'pft -t $n -m $((n * 4))M --oversubscribe'" \
	'd["reproduce_checked"] is True'

# A file in a directory named 'd;id': the line quotes it for a shell.
mkdir "$tmp/d;id"
run_survey file --json --check -- "$PFT" -t 2 -m 8M --backing="file:$tmp/d;id" --share $thp $over
check file "'--backing=file:$tmp/d;id' in words" '"--share" in words' \
	'd["reproduce_checked"] is True' "'$tmp/d;id' in d['reproduce']" \
	'reproduced(2)'

# read(2) from /dev/zero into a buffer never written: kernel-mode faults.
# With the tracepoints they are events of that kind, and the verdict
# says so; without them they are counted apart, without an address, and
# the verdict says that they are not told from get_user_pages.
run_survey kernelmode --json -- dd if=/dev/zero of=/dev/null bs=16M count=1
if [ "$rc" -ne 0 ]; then
	fail "kernelmode: exit $rc: $(cat "$tmp/kernelmode.err")"
else
	check kernelmode \
		'not tp or kind(obj, "kernel") >= 4096 * 0.98 - lost' \
		'not tp or "kernel-mode faults" in d["verdict"]' \
		'tp or d["kinds"]["kernel-side"]["faults"] >= 4096 * 0.98' \
		'tp or "not told apart" in d["verdict"]'
fi

# A program whose name and path hold an escape sequence: the text
# report shows it escaped, never the raw control character.
esc=$(printf '\033')
cp "$top_builddir/tests/survey-merged" "$tmp/x${esc}[2Jy"
run_survey escape -- "$tmp/x${esc}[2Jy" 1 1
if grep -q "$esc" "$tmp/escape.out"; then
	fail "escape: a raw ESC in the text report"
elif ! grep -q 'x\\x1b\[2Jy' "$tmp/escape.out"; then
	fail "escape: the name is not shown escaped: $(grep -m 1 x "$tmp/escape.out")"
else
	ok
fi
# Its command line, in printable characters, is the name to a shell.
line=$(sed -n 's/^command: //p' "$tmp/escape.out")
eval "set -- $line"
[ "$1" = "$tmp/x${esc}[2Jy" ] && [ "$2 $3" = "1 1" ] && ok ||
	fail "escape: the command line is not the name to a shell: $line"

# A VMA reshaped between two snapshots keeps its faults: grown down
# (MAP_GROWSDOWN) and shrunk back; split in three by mprotect; moved by
# mremap.  The pieces and the moved VMA are one object.
if [ -x "$top_builddir/tests/survey-vmas" ]; then
	run_survey growdown --json -- "$top_builddir/tests/survey-vmas" growdown 6
	check growdown 'd["perf"]["outside_known_vmas"] <= 16' \
		'counted(obj["faults"], 6 * 256, 1)' 'obj["bytes"] >= 6 * MiB * 0.99 - lost * 4096'
	run_survey split --json -- "$top_builddir/tests/survey-vmas" split 24
	check split 'obj["vmas"] == 3' 'counted(obj["faults"], 2 * 24 * 256, 1)' \
		'd["perf"]["outside_known_vmas"] <= 16' \
		'd["reproduce"] == "pft -t 1 -m 24M"'
	run_survey mremap --json -- "$top_builddir/tests/survey-vmas" mremap 24
	check mremap 'obj["vmas"] == 2' 'counted(obj["faults"], 2 * 24 * 256, 1)' \
		'd["perf"]["outside_known_vmas"] <= 16'
	# A file mapped private over the VMA's last 2 MiB after a snapshot
	# saw it whole: the reads and copies there are the file's.
	(cd "$tmp" && run_survey fileover --json -- \
		"$top_builddir/tests/survey-vmas" fileover 8)
	at() {
		echo "[o for o in d['objects'] if o['backing'] == '$1' and o['size'] == $2 * MiB][0]"
	}
	anon=$(at anonymous 8) file=$(at file 2)
	check fileover "counted($anon['faults'], 8 * 256, 1)" \
		"$file['faults'] >= 2 * 256 * 0.99 - lost" \
		"not tp or list($anon['kinds']) == ['first-touch']" \
		"not tp or sorted($file['kinds']) == ['cow', 'read']" \
		"not tp or counted($file['kinds']['cow']['faults'], 2 * 256, 1)"
fi

# Errors: one line each, a status that says it.
PATH=/nonexistent run_survey noperf -- /bin/true
[ "$rc" -eq 1 ] || fail "noperf: exit $rc"
check_one_line noperf "perf not found: install Debian's linux-perf package"

run_survey notfound -- /nonexistent/program
[ "$rc" -eq 127 ] || fail "notfound: exit $rc"
check_one_line notfound "/nonexistent/program: program not found"

# A program's name with a line break and an escape sequence: still one
# line, with them escaped.
run_survey notfound2 -- "/nonexistent/a$(printf '\n\033[2J')b"
[ "$rc" -eq 127 ] || fail "notfound2: exit $rc"
check_one_line notfound2 '/nonexistent/a\\x0a\\x1b\[2Jb: program not found'
mkdir "$tmp/bin2"
ln -s /bin/sh "$tmp/bin2/sh$(printf '\r')x"
run_survey failing2 -- "$tmp/bin2/sh$(printf '\r')x" -c 'exit 3'
[ "$rc" -eq 3 ] || fail "failing2: exit $rc, expected the program's 3"
check_one_line failing2 'sh\\x0dx exited with status 3'

run_survey failing -- sh -c 'exit 3'
[ "$rc" -eq 3 ] || fail "failing: exit $rc, expected the program's 3"
check_one_line failing "sh exited with status 3"
grep -q '^verdict: ' "$tmp/failing.out" || fail "failing: no report"

run_survey nopid -p 2147483646
[ "$rc" -eq 1 ] || fail "nopid: exit $rc"
check_one_line nopid "no process 2147483646"

run_survey badargs -p 1 -- true
[ "$rc" -eq 2 ] || fail "badargs: exit $rc"

# Ctrl-C: the program and the survey both get it (one process group).
setsid sh -c 'echo $$ >"$0"; exec env --default-signal=INT "$@"' \
	"$tmp/int.pid" "$survey" -- sleep 30 >"$tmp/int.out" 2>"$tmp/int.err" &
ibg=$!
i=0
while [ $i -lt 1000 ]; do
	isid=$(cat "$tmp/int.pid" 2>/dev/null)
	[ -n "$isid" ] && pgrep -s "$isid" -x sleep >/dev/null && break
	sleep 0.01
	i=$((i + 1))
done
sleep 0.3
kill -INT "-$isid"
wait "$ibg"
rc=$?
[ "$rc" -eq 130 ] || fail "ctrl-c: exit $rc, expected 130: $(cat "$tmp/int.err")"
grep -q '^verdict: ' "$tmp/int.out" || fail "ctrl-c: no report: $(cat "$tmp/int.out")"
check_one_line int "stopped: the report shows what was seen"

# ---- files, signals and processes that come and go ----

# Process $1 exists and is not a zombie.
alive() {
	[ -r "/proc/$1/stat" ] &&
		[ "$(sed 's/^[0-9]* (.*) //' "/proc/$1/stat" 2>/dev/null |
			cut -d' ' -f1)" != Z ]
}

# Waits until process $1 is gone (or 10 s); false when it is not.
wait_gone() {
	i=0
	while alive "$1" && [ $i -lt 1000 ]; do
		sleep 0.01
		i=$((i + 1))
	done
	! alive "$1"
}

# Waits until survey $1 runs its program, named $2 (perf started
# before it); sets $prog and $perfpid.
wait_program() {
	prog= perfpid=
	i=0
	while [ $i -lt 1000 ]; do
		for k in $(children_of "$1"); do
			case $(cat "/proc/$k/comm" 2>/dev/null) in
			"$2") prog=$k ;;
			perf) perfpid=$k ;;
			esac
		done
		[ -n "$prog" ] && [ -n "$perfpid" ] && return 0
		sleep 0.01
		i=$((i + 1))
	done
	return 1
}

# -o: a regular file or a new name, nothing else is replaced, and
# another user's link at the name of old (PATH.tmp) is not followed.
mkdir "$tmp/o"
echo precious >"$tmp/o/victim"
mkfifo "$tmp/o/fifo"
ln -s "$tmp/o/victim" "$tmp/o/link"
mkdir "$tmp/o/dir"
specials="fifo link dir"
if [ "$(id -u)" -eq 0 ] && mknod "$tmp/o/null" c 1 3 2>/dev/null; then
	specials="$specials null"
fi
for f in $specials; do
	before=$(ls -ld "$tmp/o/$f")
	run_survey "o-$f" -o "$tmp/o/$f" -- true
	[ "$rc" -eq 1 ] || fail "o-$f: exit $rc"
	check_one_line "o-$f" "$tmp/o/$f: "
	[ "$(ls -ld "$tmp/o/$f")" = "$before" ] ||
		fail "o-$f: replaced: $(ls -ld "$tmp/o/$f")"
done
ln -s "$tmp/o/victim" "$tmp/o/r.tmp"
run_survey o-tmp -o "$tmp/o/r" -- true
[ "$rc" -eq 0 ] || fail "o-tmp: exit $rc: $(cat "$tmp/o-tmp.err")"
grep -q '^verdict: ' "$tmp/o/r" || fail "o-tmp: no report in $tmp/o/r"
[ "$(cat "$tmp/o/victim")" = precious ] &&
	[ "$(ls -A "$tmp/o" | tr '\n' ' ')" = "dir fifo link $([ -e "$tmp/o/null" ] && echo 'null ')r r.tmp victim " ] &&
	ok || fail "o-tmp: the link's target written or files left: $(cat "$tmp/o/victim"); $(ls -A "$tmp/o")"

# SIGKILL: perf and the program end with the survey; its temporary
# directory stays, and the next survey removes it.
"$survey" -- sleep 60 >"$tmp/kill.out" 2>&1 &
kbg=$!
wait_program "$kbg" sleep || fail "kill: sleep and perf not seen"
kill -KILL "$kbg"
wait "$kbg" 2>/dev/null
for k in $prog $perfpid; do
	if ! wait_gone "$k"; then
		fail "kill: $(cat "/proc/$k/comm") ($k) outlived the survey"
		kill -KILL "$k" 2>/dev/null
	fi
done
[ -n "$(ls -d "$tmp/t/pft-survey.$kbg."* 2>/dev/null)" ] ||
	fail "kill: no temporary directory of the killed survey: $(ls -A "$tmp/t")"
run_survey after-kill -- true
[ "$rc" -eq 0 ] || fail "after-kill: exit $rc"
grep -q "removed $tmp/t/pft-survey\.$kbg\..*, left by a survey that was killed" \
	"$tmp/after-kill.err" && [ -z "$(ls -A "$tmp/t")" ] && ok ||
	fail "after-kill: $(cat "$tmp/after-kill.err"); left: $(ls -A "$tmp/t")"

# stop_survey NAME SIGNAL COMMAND...: a survey of COMMAND (whose last
# program is sleep) gets SIGNAL: its status in $rc, its JSON report in
# $tmp/NAME.out; nothing left running is checked.
stop_survey() {
	name=$1 sig=$2
	shift 2
	# (SIGINT at its default: a script's background command starts
	# with it ignored, which the survey keeps.)
	env --default-signal=INT "$survey" --json -o "$tmp/$name.out" -- "$@" \
		>"$tmp/$name.stdout" 2>"$tmp/$name.err" &
	sbg=$!
	wait_program "$sbg" sleep || fail "$name: sleep and perf not seen"
	kill "-$sig" "$sbg"
	wait "$sbg"
	rc=$?
	for k in $prog $perfpid; do
		wait_gone "$k" || { fail "$name: $k left running"; kill -KILL "$k"; }
	done
}

# SIGTERM to the survey alone: the program is stopped, the report
# written, the status 143.
stop_survey term TERM sleep 60
[ "$rc" -eq 143 ] || fail "term: exit $rc, expected 143: $(cat "$tmp/term.err")"
check term 'd["exit_status"] == 143' 'd["stopped_by"] == "SIGTERM"' \
	'd["verdict"]'
check_one_line term "stopped: the report shows what was seen"

# SIGINT to the survey alone (not from a terminal): the same, 130.
stop_survey sigint INT sleep 60
[ "$rc" -eq 130 ] || fail "sigint: exit $rc, expected 130: $(cat "$tmp/sigint.err")"
check sigint 'd["exit_status"] == 130' 'd["stopped_by"] == "SIGINT"'
check_one_line sigint "stopped: the report shows what was seen"

# SIGHUP, to a program that ignores it: killed STOP_GRACE_S (5 s) later.
stop_survey hup HUP sh -c 'trap "" HUP; exec sleep 60'
[ "$rc" -eq 129 ] || fail "hup: exit $rc, expected 129: $(cat "$tmp/hup.err")"
check hup 'd["exit_status"] == 137' 'd["stopped_by"] == "SIGHUP"' \
	'd["verdict"]'
grep -q "sh did not end within 5 s after SIGHUP: killed" "$tmp/hup.err" ||
	fail "hup: not said: $(cat "$tmp/hup.err")"

# SIGTERM to a survey of -p PID: perf stops, the process is left alone.
sleep 60 &
target=$!
"$survey" -p "$target" -o "$tmp/pterm.rep" >"$tmp/pterm.out" 2>"$tmp/pterm.err" &
pbg=$!
i=0
while [ -z "$(children_of "$pbg")" ] && [ $i -lt 1000 ]; do
	sleep 0.01
	i=$((i + 1))
done
sleep 0.5
perfpid=$(children_of "$pbg")
kill -TERM "$pbg"
wait "$pbg"
rc=$?
[ "$rc" -eq 143 ] || fail "pterm: exit $rc: $(cat "$tmp/pterm.err")"
grep -q '^verdict: ' "$tmp/pterm.rep" || fail "pterm: no report"
alive "$target" || fail "pterm: the process surveyed was stopped"
for k in $perfpid; do
	wait_gone "$k" || { fail "pterm: perf ($k) left running"; kill -KILL "$k"; }
done
kill "$target"
wait "$target" 2>/dev/null

# -p of a process whose children come and go: perf fails when one it is
# given is gone before it starts; the survey tries again with fewer and
# says which were not followed.
cat >"$tmp/churn.sh" <<'EOS'
while :; do sleep 0.01 & sleep 0.01 & sleep 0.02 & sleep 0.01 & wait; done
EOS
sh "$tmp/churn.sh" &
churn=$!
sleep 0.3
run_survey churn --json -p "$churn" --duration=1
kill "$churn"
wait "$churn" 2>/dev/null
[ "$rc" -eq 0 ] || fail "churn: exit $rc: $(cat "$tmp/churn.err")"
check churn 'd["attached_pid"] > 0' 'd["perf"]["faults"] > 0' \
	'not d.get("not_followed") or d["not_followed"]["pids"]'
if grep -q '"not_followed"' "$tmp/churn.out"; then
	grep -q '^pft-survey: not followed: ' "$tmp/churn.err" && ok ||
		fail "churn: not followed, not said: $(cat "$tmp/churn.err")"
fi

# A mapped file whose name holds a byte that is not UTF-8: the process's
# snapshots are read, the name kept as the kernel's bytes.
mkdir "$tmp/ff"
run_survey ff --json -- python3 -c '
import mmap, os, sys, time
n = os.path.join(os.fsencode(sys.argv[1]), b"map\xff")
fd = os.open(n, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
os.ftruncate(fd, 4 << 20)
m = mmap.mmap(fd, 4 << 20)
for i in range(0, 4 << 20, 4096):
    m[i] = 1
time.sleep(0.3)
os.unlink(n)' "$tmp/ff"
[ "$rc" -eq 0 ] || fail "ff: exit $rc: $(cat "$tmp/ff.err")"
check ff 'top["size"] == 4 * MiB' \
	'__import__("os").fsencode(top["path"]).endswith(b"/map\xff")' \
	'top["source"] == "/proc/PID/maps"' 'top["threads"] == 1' \
	'counted(top["faults"], 1024, 2)'

left=$(ls -A "$tmp/t")
[ -z "$left" ] && ok || fail "temporary files left behind: $left"

finish
