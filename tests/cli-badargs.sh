#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli-badargs.sh - every bad command line exits 2 with one line on stderr
# that names the option, then the hint line, prints nothing on stdout, and
# leaves no process and no SysV segment behind.
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

hint="Try 'pft --help' for more information."
possible=$(sed 's/.*-//' /sys/devices/system/cpu/possible 2>/dev/null || echo 0)
beyond=$((possible + 1000))

# A CPU inside the possible ones but outside this process's mask, if any.
outside=
if command -v python3 >/dev/null; then
	outside=$(python3 -c '
import os
allowed = os.sched_getaffinity(0)
print(next((c for c in range(os.cpu_count() or 1) if c not in allowed), ""))')
fi

mkfifo "$tmp/noreader"
# Another user's links in a world-writable directory: to a file a shared
# run would write into, and to a directory.
printf 'victim' >"$tmp/victim"
ln -s "$tmp/victim" "$tmp/link"
ln -s "$tmp" "$tmp/dirlink"

# A memory node past the highest one (the kernel lists them in sysfs).
absent_node=1
for d in /sys/devices/system/node/node[0-9]*; do
	[ -d "$d" ] || continue
	n=${d##*node}
	[ "$n" -lt "$absent_node" ] || absent_node=$((n + 1))
done

# The patterns that read a setting, as the library says (each pattern's
# "reads" in pft --list-patterns --json), in the form of pft's "needs
# --pattern=" message: "a", "a or b", "a, b or c".
readers_of() {
	"$PFT" --list-patterns --json | python3 -c '
import json, sys
names = [d["pattern"] for d in map(json.loads, sys.stdin)
         if sys.argv[1] in d["reads"]]
print(" or ".join([", ".join(names[:-1]), names[-1]] if names[1:] else names))
' "$1"
}
readers_c=$(readers_of cachelines)
readers_thp=$(readers_of thp)
# Read by the default pattern, not by the one each case refuses them with.
case "$readers_c/$readers_thp" in
shared-vma,*/shared-vma,*) ok ;;
*) fail "the readers of -c and --thp: '$readers_c', '$readers_thp'" ;;
esac

# "NAME WORD ARGS...": the message must contain WORD (the option).
while IFS='|' read -r name word args; do
	[ -n "$name" ] || continue
	case $name in \#*) continue ;; esac
	# shellcheck disable=SC2086
	eval "set -- $args"
	snapshot_segments
	run_pft "$name" "$@"
	if [ "$rc" -ne 2 ]; then
		fail "$name: pft $args exited $rc, not 2"
		continue
	fi
	n=$(wc -l <"$tmp/$name.err")
	first=$(sed -n 1p "$tmp/$name.err")
	second=$(sed -n 2p "$tmp/$name.err")
	if [ "$n" -ne 2 ] || [ "$second" != "$hint" ]; then
		fail "$name: pft $args: stderr is not one line and the hint: $(cat "$tmp/$name.err")"
		continue
	fi
	case $first in
	"pft: "*"$word"*) ok ;;
	*) fail "$name: pft $args: the message does not name '$word': $first" ;;
	esac
	if [ -s "$tmp/$name.out" ]; then
		fail "$name: pft $args printed on stdout: $(cat "$tmp/$name.out")"
	fi
	check_no_leftovers "$sid" "$name"
	check_no_new_segment "$name"
done <<EOF
size-word|-m|-m abc
writer-op-unknown|--writers|--writers=1,mprotect-vmas
writer-nice-low|--writer-nice|--writers=1 --writer-nice=-21
writer-nice-high|--writer-nice|--writers=1 --writer-nice=20
writer-nice-word|--writer-nice|--writers=1 --writer-nice=low
writer-nice-empty|--writer-nice|--writers=1 --writer-nice=
writer-fifo-high|--writer-fifo|--writers=1 --writer-fifo=100
writer-fifo-word|--writer-fifo|--writers=1 --writer-fifo=high
writer-nice-pattern|--writer-nice|--pattern=per-thread-vma --writer-nice=5
membind-absent|--membind '$absent_node': node $absent_node does not exist|--membind=$absent_node
membind-range-absent|--membind '0-$absent_node': node $absent_node does not exist|--membind=0-$absent_node
interleave-absent|--interleave '$absent_node,0': node $absent_node does not exist|--interleave=$absent_node,0
preferred-absent|--preferred '$absent_node': node $absent_node does not exist|--preferred=$absent_node
membind-empty|--membind ''|--membind=
interleave-garbage|--interleave 'zero'|--interleave=zero
membind-reversed|--membind '3-1'|--membind=3-1
preferred-two|--preferred '0,$absent_node': bad node list|--preferred=0,$absent_node
numa-unknown|--numa 'nearby'|--numa=nearby
numa-needs-nodes|--numa 'bind': give the nodes|--numa=bind
numa-two-policies|--membind conflicts with -p|-p --membind=0
numa-two-lists|--interleave conflicts with --interleave|--interleave=0 --interleave=all
size-suffix|-m|-m 10X
size-suffix2|-m|-m 4MB
size-zero|-m|-m 0
size-empty|-m|-m ''
size-negative|-m|-m -4M
size-overflow|-m|-m 99999999999999999999
size-overflow-suffix|-m|-m 99999999999T
size-long|--size|--size=12Q
threads-word|-t|-t abc
threads-zero|-t|-t 0
threads-negative|-t|-t -1
threads-trailing|-t|-t 2x
threads-huge|-t|-t 99999999
threads-overflow|-t|-t 99999999999999999999999
threads-long|--threads|--threads=two
procs-word|-n|-n abc
procs-zero|-n|-n 0
procs-long|--processes|--processes=0
cachelines-word|-c|-c abc
cachelines-zero|-c|-c 0
cachelines-page|-c|-c 100000
cachelines-long|--cachelines|--cachelines=1.5
sleep-word|-s|-s abc
sleep-negative|-s|-s -1
cpus-word|--cpus|--cpus=abc
cpus-reversed|--cpus|--cpus=3-1
cpus-beyond|--cpus|--cpus=$beyond
cpus-empty|--cpus|--cpus=
cpus-open|--cpus|--cpus=1-
cpus-stride|--cpus|--cpus=0-3:0
cpuset-none|--cpuset|--cpuset=pft-no-such-cpuset-$$
cpuset-empty|--cpuset|--cpuset=
unknown-short|-x|-x
unknown-long|--bogus|--bogus
no-argument|--json|--json=1
missing-short|-t|-t
missing-long|--threads|--threads
noclear|-C|-C
sysv-devzero|-Z|-S -Z
shmlock-devzero|-Z|-L -Z
memset-mlock|-l|-z -l
touch-memset|-z|--touch=read -z
pattern|--pattern|--pattern=nope
touch|--touch|--touch=nope
thp|--thp|--thp=sometimes
zap-word|--zap|--duration=1 --zap=nope
zap-alone|--zap|--zap=dontneed
zap-shared|--zap|--duration=1 --zap=munmap
zap-sysv|--zap|-M -S --duration=1 --zap=munmap
duration-word|--duration|--duration=abc
duration-zero|--duration|--duration=0
duration-negative|--duration|--duration=-1
duration-huge|--duration|--duration=100000
duration-exp-huge|--duration|--duration=1e5
duration-hex|--duration|--duration=0x10
duration-inf|--duration|--duration=inf
duration-underflow|--duration|--duration=1e-400
rounds-duration|--rounds|--duration=1 --rounds=2
rounds-zero|--rounds|--rounds=0
warmup-alone|--warmup|--warmup=2
mlock-duration|-l|-l --duration=1
repeat-zero|--repeat|--repeat=0
repeat-word|--repeat|--repeat=many
perf-missing|--perf-ctl|--perf-ctl=$tmp/does-not-exist
perf-fd|--perf-ctl|--perf-ctl=987
perf-empty|--perf-ctl|--perf-ctl=
perf-noreader|--perf-ctl|--perf-ctl=$tmp/noreader
perf-ack|--perf-ctl|--perf-ctl=1,
two-tags|tag2|tag1 tag2
tag-newline|TAG|-T "\$(printf 'a\\nb')"
tag-tab|TAG|--json "\$(printf 'a\\tb')"
tag-escape|TAG|"\$(printf 'a\\033[2Jb')"
tag-latin1|TAG|--json "\$(printf 'caf\\351')"
tag-overlong|TAG|"\$(printf '\\300\\257')"
tag-c1|TAG|-T "\$(printf 'a\\302\\205b')"
tag-c1-last|TAG|--json "\$(printf 'a\\302\\237')"
tag-line-separator|TAG|"\$(printf 'a\\342\\200\\250b')"
tag-paragraph-separator|TAG|--json "\$(printf 'a\\342\\200\\251b')"
protect-alone|--protect|--protect=fork
collapse-alone|--collapse|--collapse=madvise
timeout-alone|--timeout|--timeout=5
protect-word|--protect|--pattern=ro-collapse --protect=nope
timeout-zero|--timeout|--pattern=ro-collapse --timeout=0
collapse-duration|--pattern|--pattern=ro-collapse --duration=1
collapse-sysv|-S|--pattern=ro-collapse -S
collapse-procs|--pattern|--pattern=ro-collapse -n 2
title-json|-T|-T --json
pretouch-word|--pretouch|--pattern=pretouch --pretouch=nope
pretouch-alone|--pretouch|--pretouch=store
chunk-alone|--chunk-size|--chunk-size=4M
chunk-odd|--chunk-size|--pattern=pretouch --chunk-size=5000
chunk-zero|--chunk-size|--pattern=pretouch --chunk-size=0
jdk-alone|--jdk|--jdk=21
jdk-old|--jdk|--pattern=pretouch --jdk=7
gc-word|--gc|--pattern=pretouch --gc=zgc
gc-alone|--gc|--gc=g1
latency-zero|--latency|--latency=0
latency-word|--latency|--latency=abc
latency-too-large|--latency|--latency=2000000
latency-khugepaged|--latency conflicts with --collapse|--pattern=ro-collapse --collapse=khugepaged --latency=3
pretouch-procs|--pattern|--pattern=pretouch -n 2
pretouch-sysv|-S|--pattern=pretouch -S
pretouch-memset|-z|--pattern=pretouch -z
pretouch-duration|--pattern|--pattern=pretouch --duration=1
thp-collapse|--thp needs --pattern=$readers_thp|--pattern=ro-collapse --thp=always
cow-child-pattern|--cow-child needs --pattern=cow-fork|--pattern=shared-vma --cow-child=reads
cow-child-word|--cow-child 'nope': must be one of waits, reads, writes|--pattern=cow-fork --cow-child=nope
cachelines-pretouch|-c needs --pattern=$readers_c|--pattern=pretouch -c 2
shmlock-pretouch|-L needs|-L --pattern=pretouch
file-no-path|--backing 'file': the file backing needs a path|--backing=file
file-empty-path|--backing 'file:': the file backing needs a path|--backing=file:
file-missing|--backing: '$tmp/no-such-dir': no such file|--backing=file:$tmp/no-such-dir
file-not-dir|--backing: '/dev/null/x': no such file|--backing=file:/dev/null/x
file-device|--backing: '/dev/null': neither a directory nor a regular file|--backing=file:/dev/null
file-unwritable|--backing: '/proc/self/': a directory pft cannot create a file in|--backing=file:/proc/self/
file-link|--backing: '$tmp/link': a symbolic link: pft never opens a file through a link|--backing=file:$tmp/link --share -m 4K
file-dir-link|--backing: '$tmp/dirlink': a symbolic link|--backing=file:$tmp/dirlink
file-fifo|--backing: '$tmp/noreader': neither a directory nor a regular file (a FIFO)|--backing=file:$tmp/noreader
qemu-part-page|-m conflicts with --pattern=qemu-prealloc: QEMU's RAM is whole pages of its backing|--pattern=qemu-prealloc -m 40000 --backing=file:$tmp
file-chardev|--backing: '/dev/null': neither a directory nor a regular file (a character device)|--backing=file:/dev/null --share
file-sysv|-S conflicts with --backing|--backing=file:$tmp -S
hugetlb-part-pages|-m conflicts with --backing|--backing=hugetlb -t 2 -m 6M
hugetlb-thp|--thp conflicts with --backing|--backing=hugetlb --thp=never -m 2M
EOF

# The whole message of an option another pattern reads: every reader,
# in the library's order, and nothing after them.
for c in "thp-collapse|--thp needs --pattern=$readers_thp" \
	"cachelines-pretouch|-c needs --pattern=$readers_c"; do
	name=${c%%|*}
	first=$(sed -n 1p "$tmp/$name.err")
	[ "$first" = "pft: ${c#*|}" ] && ok ||
		fail "$name: '$first', not 'pft: ${c#*|}'"
done

if [ -n "$outside" ]; then
	run_pft outside --cpus="$outside"
	[ "$rc" -eq 2 ] && grep -q "^pft: --cpus '$outside': not within" "$tmp/outside.err" &&
		[ "$(wc -l <"$tmp/outside.err")" -eq 2 ] && ok ||
		fail "--cpus=$outside outside the mask: exit $rc: $(cat "$tmp/outside.err")"
fi

# -h is no error: usage on stdout, exit 0.
run_pft help -h
[ "$rc" -eq 0 ] && grep -q '^Usage: pft' "$tmp/help.out" && [ ! -s "$tmp/help.err" ] &&
	ok || fail "-h: exit $rc, stdout '$(head -n 1 "$tmp/help.out")'"

# --list-patterns: the names --pattern takes, one a line, and each of them
# is one --pattern accepts (shared-vma first, the default).
run_pft patterns --list-patterns
[ "$rc" -eq 0 ] && [ "$(head -n 1 "$tmp/patterns.out")" = shared-vma ] &&
	[ "$(wc -l <"$tmp/patterns.out")" -ge 4 ] && [ ! -s "$tmp/patterns.err" ] &&
	ok || fail "--list-patterns: exit $rc, $(cat "$tmp/patterns.out")"
while read -r pat; do
	run_pft "pattern-$pat" --pattern="$pat" --bogus-option
	grep -q "unknown option '--bogus-option'" "$tmp/pattern-$pat.err" &&
		ok || fail "--pattern=$pat from --list-patterns: $(cat "$tmp/pattern-$pat.err")"
done <"$tmp/patterns.out"
run_pft nopattern --pattern=no-such-pattern
[ "$rc" -eq 2 ] && ok || fail "--pattern=no-such-pattern: exit $rc"

# The file behind the link is as it was.
[ "$(cat "$tmp/victim")" = victim ] && ok ||
	fail "the file behind a link changed: $(od -c "$tmp/victim" | head -n 2)"

[ "$passes" -ge 75 ] || fail "only $passes checks passed"
finish
