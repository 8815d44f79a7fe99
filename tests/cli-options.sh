#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli-options.sh - the options besides the result line: -h, -V (no build
# date), -M (one VMA per worker, seen in numa_maps), -N, -v, -s, 4096
# threads with --oversubscribe, the touches and THP advice, and --cpuset
# (as root, where a cpuset hierarchy is mounted).
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

have_python || skip "python3 is needed"
ncpu=$(nr_allowed)
two=2
[ "$ncpu" -lt 2 ] && two=1

# -h: usage on stdout naming every long option; exit 0.
run_pft help --help
[ "$rc" -eq 0 ] && [ ! -s "$tmp/help.err" ] && ok || fail "--help: exit $rc"
for opt in size threads processes cachelines sleep pin fifo sysv shm-lock \
	dev-zero title numa-maps pause oversubscribe verbose version help \
	pattern cpus cpuset touch thp numa-local duration rounds zap warmup \
	repeat json perf-ctl per-worker collapse protect timeout pretouch \
	chunk-size jdk gc backing share; do
	grep -q -- "--$opt" "$tmp/help.out" && ok || fail "--help does not list --$opt"
done
check_lines_have_letters "$tmp/help.out" "--help"

# -V: version and libcpuset on stderr, exit 0; no build date anywhere.
run_pft version -V
[ "$rc" -eq 0 ] && [ ! -s "$tmp/version.out" ] &&
	grep -q 'libfaultgen [0-9][0-9.]*, libcpuset \(built in\|not built in\)' "$tmp/version.err" &&
	ok || fail "-V: exit $rc: $(cat "$tmp/version.err")"
bin=$PFT
[ -f "$(dirname "$PFT")/.libs/$(basename "$PFT")" ] &&
	bin=$(dirname "$PFT")/.libs/$(basename "$PFT")
months='Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec'
if grep -aEq "($months) [ 0-9][0-9] [0-9]{4}" "$bin" ||
	grep -aEq "($months) [ 0-9][0-9] [0-9]{4}" "$tmp/version.err"; then
	fail "a build date (__DATE__) is in the binary or in -V"
else
	ok
fi

# The region's numa_maps lines with -N: one VMA in the shared pattern, one
# per worker with -M (0.12x's -M never worked), and the workers' pages in
# them.
run_pft shared -N -t "$two" -m 8M
n=$(grep -c 'anon=2048' "$tmp/shared.out")
[ "$rc" -eq 0 ] && [ "$n" -eq 1 ] && ok ||
	fail "-N shared VMA: $n mappings with 2048 pages: $(cat "$tmp/shared.out")"
run_pft multi -N -M -t "$two" -m 8M
n=$(grep -c "anon=$((2048 / two))" "$tmp/multi.out")
[ "$rc" -eq 0 ] && [ "$n" -eq "$two" ] && ok ||
	fail "-N -M: $n mappings of $((2048 / two)) pages, not $two: $(cat "$tmp/multi.out")"
run_pft multi-long -N --pattern=per-thread-vma -t "$two" -m 8M
n=$(grep -c "anon=$((2048 / two))" "$tmp/multi-long.out")
[ "$n" -eq "$two" ] && ok || fail "--pattern=per-thread-vma -N: $n mappings"
check_lines_have_letters "$tmp/multi.err" "-N stderr"
[ "$(count_results "$tmp/multi.out")" -eq 1 ] && ok ||
	fail "-N: the numa_maps lines read as results"

# -v: more on stderr, every line with letters, the result unchanged.
run_pft verbose -v -v -t "$two" -m 8M
[ "$rc" -eq 0 ] && [ -s "$tmp/verbose.err" ] && ok || fail "-v: exit $rc, nothing on stderr"
check_lines_have_letters "$tmp/verbose.err" "-v stderr"
check_result_line "$(cat "$tmp/verbose.out")" "$two" 1 "-v"

# -s: the run completes after its sleep, with its result.
run_pft sleep -s 1 -t 1 -m 4M
[ "$rc" -eq 0 ] && check_result_line "$(cat "$tmp/sleep.out")" 1 1 "-s 1" ||
	fail "-s 1: exit $rc"

# 4096 threads on any number of CPUs with --oversubscribe.
run_pft many --oversubscribe -t 4096 -m 16M
[ "$rc" -eq 0 ] && check_result_line "$(cat "$tmp/many.out")" 4096 1 "--oversubscribe -t 4096" ||
	fail "--oversubscribe -t 4096: exit $rc: $(head -n 2 "$tmp/many.err")"

# Every touch and THP advice runs and gives one result.
for t in write read memset populate; do
	run_pft touch-$t --touch=$t -t "$two" -m 8M
	[ "$rc" -eq 0 ] && check_result_line "$(cat "$tmp/touch-$t.out")" "$two" 1 "--touch=$t" ||
		fail "--touch=$t: exit $rc: $(head -n 2 "$tmp/touch-$t.err")"
	check_lines_have_letters "$tmp/touch-$t.err" "--touch=$t stderr"
done
for t in default always never; do
	run_pft thp-$t --thp=$t -t "$two" -m 8M
	[ "$rc" -eq 0 ] && check_result_line "$(cat "$tmp/thp-$t.out")" "$two" 1 "--thp=$t" ||
		fail "--thp=$t: exit $rc: $(head -n 2 "$tmp/thp-$t.err")"
	check_lines_have_letters "$tmp/thp-$t.err" "--thp=$t stderr"
done

# -f: SCHED_FIFO workers where allowed, else a runtime error (1) that says
# why, never a result.
run_pft fifo -f -t 1 -m 4M
if [ "$rc" -eq 0 ]; then
	check_result_line "$(cat "$tmp/fifo.out")" 1 1 "-f"
elif [ "$rc" -eq 1 ] && grep -qx 'pft: -f: SCHED_FIFO is not permitted (needs CAP_SYS_NICE or an RLIMIT_RTPRIO)' "$tmp/fifo.err" &&
	[ ! -s "$tmp/fifo.out" ]; then
	[ "$(id -u)" -ne 0 ] && ok || fail "-f refused to root"
else
	fail "-f: exit $rc: $(cat "$tmp/fifo.err")"
fi

# --numa-local is -p: the TAG line says vma-policy.
run_pft numa-local -T --numa-local -m 4M t
[ "$(sed -n 1p "$tmp/numa-local.out")" = "TAG pft:anon-vma-policy:t" ] && ok ||
	fail "--numa-local: TAG line '$(sed -n 1p "$tmp/numa-local.out")'"

# --cpuset: pft moves itself into the cpuset and runs on its CPUs.
cg=/sys/fs/cgroup/cpuset
if [ "$(id -u)" -eq 0 ] && [ -f "$cg/cpuset.cpus" ] && cpu_allowed 0; then
	cgname=pft-test-$$
	# Run as root, this test makes cpusets; an interrupted run removes
	# them too.
	echo "$test_name: making cpusets $cg/$cgname*, removed at the end" >&2
	trap 'rmdir "$cg/$cgname" "$cg/$cgname-empty" "$cg/$cgname-1" "$cg/$cgname-01" 2>/dev/null; rm -rf "$tmp"' EXIT
	if mkdir "$cg/$cgname" 2>/dev/null; then
		echo 0 >"$cg/$cgname/cpuset.cpus"
		cat "$cg/cpuset.mems" >"$cg/$cgname/cpuset.mems"
		run_pft cpuset --cpuset="$cgname" --json -a -t 1 -m 4M
		python3 - "$tmp/cpuset.out" <<'EOF' >"$tmp/cpuset.check" 2>&1
import json, sys
d = json.loads(open(sys.argv[1]).readline())
assert d["cpus"]["allowed"] == "0", d["cpus"]
assert d["config"]["cpuset"].startswith("pft-test-")
assert d["config"].get("cpuset_source", "") != "", d["config"]
assert [w["last_cpu"] for w in d["workers"]] == [0], d["workers"]
EOF
		[ $? -eq 0 ] && [ "$rc" -eq 0 ] && ok ||
			fail "--cpuset: exit $rc: $(cat "$tmp/cpuset.check" "$tmp/cpuset.err")"
		rmdir "$cg/$cgname" || fail "--cpuset: the cpuset still has tasks"
	fi
	# An empty cpuset: the kernel's ENOSPC named for what it is.
	if mkdir "$cg/$cgname-empty" 2>/dev/null; then
		run_pft cpuset-empty --cpuset="$cgname-empty" -t 1 -m 4M
		[ "$rc" -eq 2 ] && grep -q "^pft: --cpuset '$cgname-empty': the cpuset has no CPUs or no memory nodes" "$tmp/cpuset-empty.err" &&
			ok || fail "--cpuset, empty: exit $rc: $(cat "$tmp/cpuset-empty.err")"
		rmdir "$cg/$cgname-empty"
	fi
	# A cpuset with a CPU outside the mask pft was started with is an
	# error, as a --cpus list is (pft moving into it would widen the
	# mask): under taskset -c 0, cpusets of CPU 1 and of CPUs 0-1.
	if cpu_allowed 1 && command -v taskset >/dev/null &&
		mkdir "$cg/$cgname-1" "$cg/$cgname-01" 2>/dev/null; then
		echo 1 >"$cg/$cgname-1/cpuset.cpus"
		echo 0-1 >"$cg/$cgname-01/cpuset.cpus"
		cat "$cg/cpuset.mems" >"$cg/$cgname-1/cpuset.mems"
		cat "$cg/cpuset.mems" >"$cg/$cgname-01/cpuset.mems"
		PFT_REAL=$PFT
		printf '#!/bin/sh\nexec taskset -c 0 "%s" "$@"\n' "$PFT_REAL" >"$tmp/pft-on-0"
		chmod +x "$tmp/pft-on-0"
		PFT=$tmp/pft-on-0
		for set in 1 01; do
			run_pft "outside-$set" --cpuset="$cgname-$set" -t 1 -m 4M
			[ "$rc" -eq 2 ] && grep -q "^pft: --cpuset '$cgname-$set': its CPUs are not all within those pft was started on (0" "$tmp/outside-$set.err" &&
				[ ! -s "$tmp/outside-$set.out" ] && ok ||
				fail "taskset -c 0 pft --cpuset=(CPUs $set): exit $rc: $(cat "$tmp/outside-$set.err")"
		done
		PFT=$PFT_REAL
		rmdir "$cg/$cgname-1" "$cg/$cgname-01" ||
			fail "--cpuset: a cpuset still has tasks"
	fi
else
	echo "$test_name: --cpuset not tried (needs root and $cg)" >&2
fi

# Standard output closed, or its reader gone (a broken pipe): pft says so
# in one line on stderr and exits 1, as pft(1) says, never 141 silently.
"$PFT" -t 1 -m 4M >&- 2>"$tmp/closed.err"
crc=$?
[ "$crc" -eq 1 ] && [ "$(wc -l <"$tmp/closed.err")" -eq 1 ] &&
	grep -q '^pft: .*standard output' "$tmp/closed.err" && ok ||
	fail "stdout closed: exit $crc: $(cat "$tmp/closed.err")"
python3 - "$PFT" >"$tmp/pipe.check" 2>&1 <<'EOF2'
import os, subprocess, sys
r, w = os.pipe()
os.close(r)  # the reader is gone before pft writes
for args in (["-t", "1", "-m", "4M"], ["-n", "2", "--oversubscribe", "-m", "4M"],
             ["--json", "-t", "1", "-m", "4M"], ["-h"], ["--list-patterns"]):
    p = subprocess.run([sys.argv[1]] + args, stdout=w,
                       stderr=subprocess.PIPE)
    err = p.stderr.decode().splitlines()
    if p.returncode != 1 or len(err) != 1 or "Broken pipe" not in err[0]:
        print("%s: exit %d, stderr %r" % (" ".join(args), p.returncode, err))
EOF2
[ -s "$tmp/pipe.check" ] && fail "broken pipe: $(cat "$tmp/pipe.check")" || ok


# A SysV segment that a killed run left (created under the library's key
# range, never marked for removal, its creator gone) is removed by the
# next pft run with SysV memory, with a note; one of a live creator stays.
# Tests run side by side: another test's pft run with SysV memory may
# remove the segment first (gone, and no note here); then try again, up
# to three times.  A segment left in place fails at once.
stale_segment() {
	python3 - "$tmp/stale.ids" >"$tmp/stale.check" 2>&1 <<'EOF2'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
def segment():
    for k in range(os.getpid() % 60000, 65536):
        i = libc.shmget(0x70660000 + k, 4096, 0o1000 | 0o2000 | 0o600)
        if i >= 0:
            return i
    raise SystemExit("no free key")
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.write(w, b"%d" % segment())
    os._exit(0)
os.waitpid(pid, 0)
dead = int(os.read(r, 32))
open(sys.argv[1], "w").write("%d\n" % dead)
EOF2
	cat "$tmp/stale.ids" 2>/dev/null
}
segment_exists() {
	awk -v id="$1" 'NR > 1 && $2 == id { found = 1 } END { exit !found }' /proc/sysvipc/shm
}
stale_result="removed by another run each time"
for try in 1 2 3; do
	rm -f "$tmp/stale.ids"
	stale=$(stale_segment)
	if [ -z "$stale" ]; then
		stale_result="could not make a stale segment: $(cat "$tmp/stale.check")"
		break
	fi
	run_pft stale -S -t 1 -m 4M
	if segment_exists "$stale"; then
		ipcrm -m "$stale" 2>/dev/null
		stale_result="a stale segment left: exit $rc, $(cat "$tmp/stale.err")"
		break
	fi
	if [ "$rc" -ne 0 ]; then
		stale_result="a stale segment: exit $rc, $(cat "$tmp/stale.err")"
		break
	fi
	if grep -q '^pft: note: removed [0-9]* SysV segments\{0,1\} that a killed run left$' "$tmp/stale.err"; then
		stale_result=
		break
	fi
done
[ -z "$stale_result" ] && ok || fail "$stale_result"

# One that another user made, its creator gone too, is that user's: root's
# pft -S leaves it, and says nothing of it.
if [ "$(id -u)" -eq 0 ]; then
	python3 - "$tmp/theirs.id" >"$tmp/theirs.check" 2>&1 <<'EOF2'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.setresgid(65534, 65534, 65534)
    os.setresuid(65534, 65534, 65534)
    for k in range(os.getpid() % 60000, 65536):
        i = libc.shmget(0x70660000 + k, 4096, 0o1000 | 0o2000 | 0o600)
        if i >= 0:
            os.write(w, b"%d" % i)
            break
    os._exit(0)
os.waitpid(pid, 0)
os.close(w)
open(sys.argv[1], "w").write(os.read(r, 32).decode() + "\n")
EOF2
	theirs=$(cat "$tmp/theirs.id" 2>/dev/null)
	if [ -n "$theirs" ]; then
		run_pft theirs -S -t 1 -m 4M
		[ "$rc" -eq 0 ] && ! grep -q 'removed' "$tmp/theirs.err" &&
			awk -v id="$theirs" 'NR > 1 && $2 == id { found = 1 } END { exit !found }' /proc/sysvipc/shm &&
			ok || fail "another user's segment: exit $rc, $(cat "$tmp/theirs.err"), $(awk -v id="$theirs" 'NR > 1 && $2 == id' /proc/sysvipc/shm)"
		ipcrm -m "$theirs" 2>/dev/null
	else
		fail "could not make another user's segment: $(cat "$tmp/theirs.check")"
	fi
fi

# Without /proc (unmounted in a mount namespace of the test's own): what
# needs it is refused in one line, and what goes without it says so.
. "$top_srcdir/tests/make-var.sh"
if [ -n "$(make_var SAN_CFLAGS)" ]; then
	echo "$test_name: not tried without /proc (a sanitizer's runtime reads /proc)" >&2
elif [ "$(id -u)" -eq 0 ] && unshare -m sh -c 'umount -l /proc' 2>/dev/null; then
	unshare -m sh -c 'umount -l /proc && exec "$@"' sh "$PFT" -t 1 -m 4M \
		>"$tmp/noproc.out" 2>"$tmp/noproc.err"
	prc=$?
	[ "$prc" -eq 0 ] && [ "$(count_results "$tmp/noproc.out")" -eq 1 ] &&
		grep -qx 'pft: note: /proc is not mounted here: no memory check before the run' "$tmp/noproc.err" &&
		ok || fail "without /proc: exit $prc: $(cat "$tmp/noproc.err")"
	for args in "-N -t 1 -m 4M|-N: /proc is not mounted" \
		"--pattern=ro-collapse -m 4M|--pattern=ro-collapse: /proc is not mounted"; do
		# shellcheck disable=SC2086
		unshare -m sh -c 'umount -l /proc && exec "$@"' sh "$PFT" ${args%%|*} \
			>"$tmp/noproc.out" 2>"$tmp/noproc.err"
		prc=$?
		[ "$prc" -eq 1 ] && [ "$(wc -l <"$tmp/noproc.err")" -eq 1 ] &&
			grep -q "^pft: ${args#*|}" "$tmp/noproc.err" && [ ! -s "$tmp/noproc.out" ] &&
			ok || fail "without /proc, ${args%%|*}: exit $prc: $(cat "$tmp/noproc.err")"
	done
else
	echo "$test_name: not tried without /proc (needs root and unshare -m)" >&2
fi

# Workers that cannot be started for the limit on processes: the message
# names the limit and its value.  The limit does not bind root; the user's
# other tasks count too, so a run that got through after some of them
# ended is said and not counted.
if [ "$(id -u)" -ne 0 ] && command -v prlimit >/dev/null; then
	tasks=$(ps -L -u "$(id -u)" --no-headers 2>/dev/null | wc -l)
	lim=$((tasks + 8))
	prlimit --nproc="$lim:$lim" "$PFT" -n 400 --oversubscribe -m 4M \
		>"$tmp/nproc.out" 2>"$tmp/nproc.err"
	rc=$?
	if [ "$rc" -eq 0 ]; then
		echo "cli-options: 400 workers started under RLIMIT_NPROC $lim: not counted" >&2
	elif [ "$rc" -eq 1 ] && grep -Eqx "pft: cannot start worker process [0-9]+: the limit on processes and threads was reached \(RLIMIT_NPROC \(ulimit -u\) $lim.*\)" "$tmp/nproc.err"; then
		ok
	else
		fail "RLIMIT_NPROC $lim: exit $rc: $(cat "$tmp/nproc.err")"
	fi
fi

# A directory that would keep the run's file (chattr +a: append-only,
# +i: immutable; the run unlinks its file at once, which there fails):
# refused before any file is made, in one line that says why, and
# nothing is left in it.  Needs root and a file system with the flags.
if [ "$(id -u)" -eq 0 ] && command -v chattr >/dev/null; then
	for flag in a i; do
		d=$tmp/keeps-$flag
		mkdir "$d"
		if ! chattr "+$flag" "$d" 2>/dev/null; then
			echo "$test_name: chattr +$flag in $tmp: not supported, not tried" >&2
			rmdir "$d"
			continue
		fi
		run_pft "keeps-$flag" --backing=file:"$d" -m 1M -t 1
		[ "$rc" -eq 2 ] && [ -z "$(ls -A "$d")" ] &&
			grep -qx "pft: --backing: '$d': an append-only or immutable directory (lsattr -d): it would keep the file a run makes there, which the run removes at once" "$tmp/keeps-$flag.err" &&
			ok || fail "chattr +$flag directory: exit $rc, left $(ls -A "$d"): $(cat "$tmp/keeps-$flag.err")"
		chattr "-$flag" "$d"
		rm -f "$d"/* && rmdir "$d"
	done
fi

# What a file system cannot give, said as such (root: the mounts are the
# test's own, on directories of $tmp, unmounted at the end of each case).
if [ "$(id -u)" -eq 0 ]; then
	# ramfs punches no hole, which a shared file's rounds need.
	mkdir "$tmp/ramfs"
	if mount -t ramfs none "$tmp/ramfs" 2>/dev/null; then
		run_pft ramfs --backing=file:"$tmp/ramfs" --share --rounds=2 -t 1 -m 1M
		[ "$rc" -eq 1 ] && [ "$(wc -l <"$tmp/ramfs.err")" -eq 1 ] &&
			grep -q "^pft: --backing=file:$tmp/ramfs: ramfs cannot punch holes in a file (MADV_REMOVE), which --share needs between rounds" "$tmp/ramfs.err" &&
			[ -z "$(ls -A "$tmp/ramfs")" ] &&
			ok || fail "ramfs, --share --rounds: exit $rc: $(cat "$tmp/ramfs.err")"
		umount "$tmp/ramfs"
	else
		echo "$test_name: ramfs could not be mounted: not tried" >&2
	fi
	rmdir "$tmp/ramfs"

	# A hugetlbfs mount's size= limit below the run's huge pages, with
	# enough in the pool: the limit is named, not nr_hugepages.
	nr=/proc/sys/vm/nr_hugepages
	hp=/sys/kernel/mm/hugepages/hugepages-2048kB
	if [ -w "$nr" ] && [ -r "$hp/free_hugepages" ]; then
		orig=$(cat "$nr")
		echo $((orig + 4)) >"$nr"
		echo "$test_name: nr_hugepages $orig -> $((orig + 4)) for a case, put back after it" >&2
		mkdir "$tmp/huge"
		if [ $(($(cat "$hp/free_hugepages") - $(cat "$hp/resv_hugepages"))) -ge 2 ] &&
			mount -t hugetlbfs -o pagesize=2M,size=2M none "$tmp/huge" 2>/dev/null; then
			for kind in "-t 1 --share" "-n 1"; do
				# shellcheck disable=SC2086
				run_pft hugelimit --backing=file:"$tmp/huge" -m 4M $kind
				[ "$rc" -eq 1 ] && [ "$(wc -l <"$tmp/hugelimit.err")" -eq 1 ] &&
					grep -qx "pft: --backing=file:$tmp/huge: the run needs 2 huge pages of 2048 KiB, the mount's size= limit leaves 1 of its 1 free: mount it with a larger size=" "$tmp/hugelimit.err" &&
					ok || fail "hugetlbfs size=2M, -m 4M $kind: exit $rc: $(cat "$tmp/hugelimit.err")"
			done
			umount "$tmp/huge"
		else
			echo "$test_name: no 2 free huge pages or no hugetlbfs: the size= limit not tried" >&2
		fi
		rmdir "$tmp/huge"
		echo "$orig" >"$nr"
	fi

	# Every name the run tries taken (libfaultgen-PID-N, N from 0 for a
	# new process): the run child's pid is small in a PID namespace of
	# its own, and the names of pids 2 to 40 are made first.
	mkdir "$tmp/taken"
	python3 -c '
import os, sys
for pid in range(2, 41):
    for n in range(1000):
        os.close(os.open("%s/libfaultgen-%d-%d" % (sys.argv[1], pid, n),
                         os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
' "$tmp/taken"
	if unshare -p -f -m --mount-proc true 2>/dev/null; then
		unshare -p -f -m --mount-proc "$PFT" --backing=file:"$tmp/taken" \
			-t 1 -m 64K >"$tmp/taken.out" 2>"$tmp/taken.err"
		rc=$?
		[ "$rc" -eq 1 ] && [ "$(wc -l <"$tmp/taken.err")" -eq 1 ] &&
			grep -Eqx "pft: --backing=file:$tmp/taken: the 1000 names the run tried there \(libfaultgen-[0-9]+-N\) are all taken by other files" "$tmp/taken.err" &&
			[ "$(ls "$tmp/taken" | wc -l)" -eq 39000 ] &&
			ok || fail "every file name taken: exit $rc: $(cat "$tmp/taken.err")"
	else
		echo "$test_name: no PID namespace: the taken names not tried" >&2
	fi
	rm -rf "$tmp/taken"
fi

finish
