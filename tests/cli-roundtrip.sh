#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli-roundtrip.sh - small programs of the suite's own recorded, replayed
# and recorded again: pft-survey --record=A -- pft ..., pft-survey
# --record=B -- pft --replay=A, pft-survey --compare A B.  The programs
# (4 MiB each): a fork whose child writes copies (cow-fork), an object
# shared by two processes (--share), a file's pages read
# (--backing=file, --touch=read), a file mapped private, its pages read
# then written (copies of the file's pages: 8 MiB, a Python program),
# and with the syscall tracepoints pages
# given back between passes (--rounds, MADV_DONTNEED: the profile's
# calls).  For the object of A with the most faults, each kind's faults
# in B are within 2% of A's (with the tracepoints; without them, the
# faults in all), its threads and processes equal.
#
# Copyright (C) 2026 The libfaultgen authors
. "${top_srcdir:?}/tests/cli-lib.sh"

need_survey
# The program itself, not libtool's wrapper script (whose shell the
# recording would hold too).
prog=$PFT
if [ -x "$(dirname "$PFT")/.libs/pft" ]; then
	prog=$(dirname "$PFT")/.libs/pft
	LD_LIBRARY_PATH=$top_builddir/libfaultgen/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export LD_LIBRARY_PATH
fi

# roundtrip NAME PFT-ARGS... (or NAME -- COMMAND...): A, B and their
# comparison in $tmp/NAME.*, checked.
roundtrip() {
	name=$1
	shift
	if [ "$1" = -- ]; then
		shift
	else
		set -- "$prog" "$@"
	fi
	mkdir -p "$tmp/$name.files"
	if ! "$survey" --record="$tmp/$name.A.json" -- "$@" \
		>"$tmp/$name.a.out" 2>&1; then
		fail "$name: recording A failed: $(tail -n 2 "$tmp/$name.a.out")"
		return
	fi
	if ! (cd "$tmp" && "$survey" --record="$tmp/$name.B.json" -- "$prog" \
		--replay="$tmp/$name.A.json" --backing=file:"$tmp/$name.files" \
		>"$tmp/$name.b.out" 2>&1); then
		fail "$name: the replay failed: $(grep -m 2 '^pft' "$tmp/$name.b.out")"
		return
	fi
	if ! "$survey" --compare "$tmp/$name.A.json" "$tmp/$name.B.json" \
		--json >"$tmp/$name.cmp.json" 2>"$tmp/$name.cmp.err"; then
		fail "$name: --compare failed: $(cat "$tmp/$name.cmp.err")"
		return
	fi
	if out=$(python3 - "$tmp/$name.cmp.json" "$tmp/$name.A.json" <<'EOF' 2>&1
import json, sys
c = json.load(open(sys.argv[1]))
a = json.load(open(sys.argv[2]))
def every(o):
    return [k for k in o["kinds"] if k["kind"] == "all"][0]
def dim(k, d):
    return k["dimensions"][d]["a"], k["dimensions"][d]["b"]
mine = [o for o in c["objects"] if o["a"] is not None and
        any(k["kind"] == "all" for k in o["kinds"])]
top = max(mine, key=lambda o: dim(every(o), "faults")[0])
bad = []
# Without the tracepoints (the page-faults event) a fault's kind is the
# survey's guess from the order of faults (a page's first "user", then
# "refault"), which one CPU's interleaving moves: the faults in all.
kinds = top["kinds"] if a["source"] == "tracepoints" else [every(top)]
for k in kinds:
    fa, fb = dim(k, "faults")
    if fa is None or fb is None or abs(fb - fa) > 0.02 * fa:
        bad.append("%s faults %s / %s" % (k["kind"], fa, fb))
for d in ("threads", "processes"):
    x, y = dim(every(top), d)
    if x != y:
        bad.append("%s %s / %s" % (d, x, y))
if bad:
    print("object A%s (%s, %s bytes): %s" % (top["a"], top["backing"],
          top["size_a"], "; ".join(bad)))
    sys.exit(1)
print("A%s: %s" % (top["a"], ", ".join("%s %s/%s" % ((k["kind"],) +
      dim(k, "faults")) for k in top["kinds"])))
EOF
	); then
		ok
	else
		fail "$name: $out"
	fi
}

roundtrip cow --pattern=cow-fork -t 1 -m 4M --cow-child=writes $thp
roundtrip share -n 2 -m 4M --share $thp $over
mkdir -p "$tmp/pftfiles"
roundtrip file-read -t 1 -m 4M --touch=read --backing=file:"$tmp/pftfiles" $thp
# A file mapped private, read, then written: the writes copy the file's
# pages (a program's data segment), which a replay of the file mapped
# shared made write-notify faults.
cat >"$tmp/private-write.py" <<'EOF'
import mmap, os, sys
path, size = os.path.join(sys.argv[1], "f"), 8 << 20
fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
os.unlink(path)
os.ftruncate(fd, size)
m = mmap.mmap(fd, size, flags=mmap.MAP_PRIVATE,
              prot=mmap.PROT_READ | mmap.PROT_WRITE)
seen = sum(m[i] for i in range(0, size, 4096))
for i in range(0, size, 4096):
    m[i] = 1
EOF
mkdir -p "$tmp/private-write.dir"
roundtrip file-private-write -- python3 "$tmp/private-write.py" \
	"$tmp/private-write.dir"
# Pages given back and faulted again: their faults replayed only with
# the calls, recorded only with the syscall tracepoints (root, tracefs).
calls=
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[ -r "$d/events/syscalls/sys_enter_madvise/id" ] && calls=yes
done
if [ -n "$calls" ] && [ "$(id -u)" -eq 0 ]; then
	roundtrip rounds -t 2 -m 4M --rounds=3 $thp $over
	python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["calls"] is None)' \
		"$tmp/rounds.A.json" && ok ||
		fail "rounds: the profile holds no calls with the syscall tracepoints"
else
	echo "# rounds: not run (the syscall tracepoints need root and tracefs)"
fi

# Nothing left by the surveys and the replays.
[ -z "$(ls -A "$tmp/t")" ] || fail "temporary files left: $(ls -A "$tmp/t")"
finish
