#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# jvm-pretouch.sh - the real JVM's -XX:+AlwaysPreTouch next to libfaultgen's
# emulation of it, and the fast modes next to both.
# Copyright (C) 2026 The libfaultgen authors
#
# For each JDK and GC, the JVM's pretouch cost is measured as the linux-mm
# work did: the time from exec to the start of main() with AlwaysPreTouch
# minus the same without, medians of N runs, and the minor faults taken
# until main() likewise: those are what AlwaysPreTouch adds, which the
# emulation's fault count should match within 0.5%.  The worker count the JVM chose is read from
# -Xlog:gc+heap=debug ("Running G1 PreTouch with N workers ...") in one
# extra run, and the emulation (examples/pretouch) runs for the same size,
# JDK, GC and worker count, with that JDK's touch; then the two fast modes.
# Everything runs interleaved, back to back, after one discarded warm-up
# round: this VM hands freed memory back to the host within seconds, and
# faulting it again then costs 2-5x more.  Huge pages suffer most (the
# free 2 MiB blocks are the ones handed back), so the huge-page mode runs
# twice in a row and both figures are shown.
#
# Not a make-check test: it takes minutes and its figures are timings.
# It ends with the fault table: heap x JDK x GC, the JVM's faults, the
# emulation's and their difference.
#
#   tests/bench/jvm-pretouch.sh [-b BUILDDIR] [-s SIZE,...] [-g g1,parallel]
#       [-j JDK_HOME,...] [-t THREADS] [-n RUNS] [-l LOG] [-F]
#
#   -b  the build tree holding examples/pretouch (default: .)
#   -s  heap sizes, as -Xms/-Xmx take them (default 4g)
#   -g  collectors (default g1,parallel)
#   -j  JDKs (default: every /usr/lib/jvm/*/bin/java of release 17 or
#       later, one per release, else the java on PATH)
#   -t  worker count, given to the JVM as -XX:ParallelGCThreads (default:
#       the JVM's own choice, read from its log)
#   -n  measured runs of each (default 7)
#   -l  file for every single measurement (default: none)
#   -F  faults only: leave out the fast modes and the timing blocks
#
# The fault table of the README: -s 256m,1g,4g -n 3 -F
set -u
export LC_ALL=C

build=.
size=4g
gcs=g1,parallel
jdks=
threads=
runs=7
log=/dev/null
faults_only=no

usage() {
	echo "usage: $0 [-b BUILDDIR] [-s SIZE,...] [-g g1,parallel]" \
		"[-j JDK_HOME,...] [-t THREADS] [-n RUNS] [-l LOG] [-F]" >&2
	exit 2
}

while getopts b:s:g:j:t:n:l:Fh opt; do
	case $opt in
	b) build=$OPTARG ;;
	s) size=$OPTARG ;;
	F) faults_only=yes ;;
	g) gcs=$OPTARG ;;
	j) jdks=$OPTARG ;;
	t) threads=$OPTARG ;;
	n) runs=$OPTARG ;;
	l) log=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage
case $runs in '' | *[!0-9]*) usage ;; esac
for sz in $(echo "$size" | tr ',' ' '); do
	case $sz in
	[1-9]*) num=${sz%[kKmMgG]} ;;
	*) num=x ;;
	esac
	case $num in
	*[!0-9]*) echo "jvm-pretouch: bad size '$sz' (e.g. 256m, 4g)" >&2
		exit 2 ;;
	esac
done
[ "$runs" -ge 1 ] || usage
emu=$build/examples/pretouch
if [ ! -x "$emu" ]; then
	echo "jvm-pretouch: no $emu: build first, or give -b BUILDDIR" >&2
	exit 1
fi

die() {
	echo "jvm-pretouch: $*" >&2
	exit 1
}

feature() { # java -> feature release
	"$1" -XshowSettings:properties -version 2>&1 |
		sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p'
}

if [ -z "$jdks" ]; then
	seen=" "
	for j in /usr/lib/jvm/*/bin/java; do
		[ -x "$j" ] || continue
		real=$(readlink -f "$j")
		f=$(feature "$real")
		if [ -z "$f" ] || [ "$f" -lt 17 ]; then
			continue
		fi
		case $seen in *" $f "*) continue ;; esac
		seen="$seen$f "
		jdks="$jdks${jdks:+,}${real%/bin/java}"
	done
	if [ -z "$jdks" ]; then
		j=$(command -v java) || die "no JDK found: give -j"
		j=$(readlink -f "$j")
		jdks=${j%/bin/java}
	fi
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/jvm-pretouch.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# main() reports when it started and the faults taken until then.
cat >"$tmp/PreTouchProbe.java" <<'EOF'
public final class PreTouchProbe {
	public static void main(String[] a) throws Exception {
		java.time.Instant t = java.time.Instant.now();
		String s = new String(java.nio.file.Files.readAllBytes(
			java.nio.file.Path.of("/proc/self/stat")));
		String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
		System.out.println((t.getEpochSecond() * 1000000000L +
				    t.getNano()) + " " + f[7]);
	}
}
EOF
first=${jdks%%,*}
"$first/bin/javac" --release 17 -d "$tmp" "$tmp/PreTouchProbe.java" ||
	die "cannot compile the probe with $first/bin/javac"

# One JVM start: prints "ms-to-main minflt-to-main".
jvm_run() { # java gc pretouch(+|-) size
	t0=$(date +%s%N)
	out=$("$1" -Xms"$4" -Xmx"$4" -XX:+Use"$2"GC \
		-XX:"$3"AlwaysPreTouch ${threads:+-XX:ParallelGCThreads=$threads} \
		-cp "$tmp" PreTouchProbe) || return 1
	# shellcheck disable=SC2086 # two fields
	set -- $out
	echo "$(( ($1 - t0) / 1000 ))" "$2" |
		awk '{ printf "%.3f %d\n", $1 / 1000, $2 }'
}

# One emulation: prints "elapsed-ms minflt".
emu_run() { # jdk gc workers touch size
	"$emu" "$5" "$1" "$2" "$3" "$4" | awk '{
		for (i = 1; i <= NF; i++) {
			split($i, kv, "=")
			v[kv[1]] = kv[2]
		}
		print v["elapsed_ms"], v["minflt"]
	}'
}

median() { # file column -> median
	sort -n -k"$2" "$1" | awk -v c="$2" '{ v[NR] = $c }
		END { if (NR % 2) print v[(NR + 1) / 2];
		      else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

range() { # file column -> "min-max"
	sort -n -k"$2" "$1" | awk -v c="$2" 'NR == 1 { lo = $c } { hi = $c }
		END { printf "%.0f-%.0f", lo, hi }'
}

range2() { # file column -> "min-max" with two decimals
	sort -g -k"$2" "$1" | awk -v c="$2" 'NR == 1 { lo = $c } { hi = $c }
		END { printf "%.2f-%.2f", lo, hi }'
}

# The configurations: heap size, JDK home, release, GC name, the JVM's
# worker count.
: >"$tmp/configs"
for sz in $(echo "$size" | tr ',' ' '); do
for home in $(echo "$jdks" | tr ',' ' '); do
	java=$home/bin/java
	[ -x "$java" ] || die "no $java"
	rel=$(feature "$java")
	[ -n "$rel" ] || die "cannot tell the release of $java"
	for gc in $(echo "$gcs" | tr ',' ' '); do
		case $gc in
		g1 | G1) name=G1 ;;
		parallel | Parallel) name=Parallel ;;
		*) die "unknown GC $gc (g1 or parallel)" ;;
		esac
		w=$("$java" -Xms"$sz" -Xmx"$sz" -XX:+Use${name}GC \
			-XX:+AlwaysPreTouch \
			${threads:+-XX:ParallelGCThreads=$threads} \
			-Xlog:gc+heap=debug -cp "$tmp" PreTouchProbe |
			sed -n 's/.*PreTouch.* with \([0-9]*\) workers.*/\1/p' |
			head -1)
		[ -n "$w" ] || die "no pretouch line in the log of $java ($name)"
		echo "$sz $home $rel $name $w" >>"$tmp/configs"
	done
done
done

lower() { echo "$1" | tr '[:upper:]' '[:lower:]'; }

load_before=$(cut -d' ' -f1-3 /proc/loadavg)

# One round of one configuration: the JVM without and with pretouch and
# the emulation (which swap places every other round), then the fast
# modes unless -F.
one_round() { # round size home rel name workers
	key=$2-$4-$5
	g=$(lower "$5")
	jvm_run "$3/bin/java" "$5" - "$2" >"$tmp/o" || die "$3 failed"
	off=$(cat "$tmp/o")
	if [ $(($1 % 2)) -eq 0 ]; then
		jvm_run "$3/bin/java" "$5" + "$2" >"$tmp/o" || die "$3 failed"
		on=$(cat "$tmp/o")
		em=$(emu_run "$4" "$g" "$6" jvm "$2")
	else
		em=$(emu_run "$4" "$g" "$6" jvm "$2")
		jvm_run "$3/bin/java" "$5" + "$2" >"$tmp/o" || die "$3 failed"
		on=$(cat "$tmp/o")
	fi
	fa="0 0" fh="0 0" fw="0 0"
	if [ $faults_only = no ]; then
		fa=$(emu_run "$4" "$g" "$6" fast "$2")
		fh=$(emu_run "$4" "$g" "$6" fast-huge "$2")
		fw=$(emu_run "$4" "$g" "$6" fast-huge "$2")
	fi
	echo "round $1 $key off $off on $on emu $em fast $fa" \
		"huge $fh huge-again $fw" >>"$log"
	[ "$1" -eq 0 ] && return
	# shellcheck disable=SC2086 # two fields each
	set -- $off
	off_ms=$1 off_f=$2
	# shellcheck disable=SC2086
	set -- $on
	echo "$1 $2 $off_ms $off_f" | awk '{ printf "%.3f %d %s %s\n",
		$1 - $3, $2 - $4, $1, $3 }' >>"$tmp/jvm-$key"
	echo "$em" >>"$tmp/emu-$key"
	echo "$fa" >>"$tmp/fast-$key"
	echo "$fh" >>"$tmp/huge-$key"
	echo "$fw" >>"$tmp/warm-$key"
	# Ratios within one round: the load of the moment cancels.
	tail -n 1 "$tmp/jvm-$key" | awk -v e="$em" -v f="$fa" \
		-v h="$fh" -v w="$fw" '
		function q(a, b) { return b > 0 ? a / b : 0 }
		{ split(e, a, " "); split(f, b, " "); split(h, c, " ");
		split(w, d, " ");
		printf "%.4f %.4f %.4f %.4f\n", q(a[1], $1), q($1, b[1]),
			q($1, c[1]), q($1, d[1]) }' >>"$tmp/pair-$key"
}

# Round 0 warms up and is not kept.
round=0
while [ $round -le "$runs" ]; do
	while read -r sz home rel name w; do
		one_round $round "$sz" "$home" "$rel" "$name" "$w"
	done <"$tmp/configs"
	round=$((round + 1))
done

# The timing block of one configuration.
timing_block() { # size home rel name workers
	key=$1-$3-$4
	jt=$(median "$tmp/jvm-$key" 1)
	jf=$(median "$tmp/jvm-$key" 2 | awk '{ printf "%.0f", $1 }')
	et=$(median "$tmp/emu-$key" 1)
	ef=$(median "$tmp/emu-$key" 2 | awk '{ printf "%.0f", $1 }')
	ft=$(median "$tmp/fast-$key" 1)
	ht=$(median "$tmp/huge-$key" 1)
	wt=$(median "$tmp/warm-$key" 1)
	hf=$(median "$tmp/huge-$key" 2 | awk '{ printf "%.0f", $1 }')
	echo
	echo "-Xms$1, JDK $3 ($2), $4, $5 workers"
	printf '  %-28s %9s ms  %-13s %10s faults\n' "JVM pretouch (with-without)" \
		"$jt" "[$(range "$tmp/jvm-$key" 1)]" "$jf"
	printf '  %-28s %9s ms  %-13s %10s\n' "  JVM to main, with" \
		"$(median "$tmp/jvm-$key" 3)" "[$(range "$tmp/jvm-$key" 3)]" ""
	printf '  %-28s %9s ms  %-13s %10s\n' "  JVM to main, without" \
		"$(median "$tmp/jvm-$key" 4)" "[$(range "$tmp/jvm-$key" 4)]" ""
	printf '  %-28s %9s ms  %-13s %10s faults\n' "emulated" "$et" \
		"[$(range "$tmp/emu-$key" 1)]" "$ef"
	printf '  %-28s %9s ms  %-13s %10s faults\n' "fast, 4 KiB" "$ft" \
		"[$(range "$tmp/fast-$key" 1)]" \
		"$(median "$tmp/fast-$key" 2 | awk '{ printf "%.0f", $1 }')"
	printf '  %-28s %9s ms  %-13s %10s faults\n' "fast, huge pages" "$ht" \
		"[$(range "$tmp/huge-$key" 1)]" "$hf"
	printf '  %-28s %9s ms  %-13s\n' "  again, right after" "$wt" \
		"[$(range "$tmp/warm-$key" 1)]"
	printf '  per-round ratios, median [min-max]: emulated/JVM %.3f [%s],' \
		"$(median "$tmp/pair-$key" 1)" "$(range2 "$tmp/pair-$key" 1)"
	printf ' JVM/fast %.2f [%s],\n    JVM/fast-huge %.2f [%s],' \
		"$(median "$tmp/pair-$key" 2)" "$(range2 "$tmp/pair-$key" 2)" \
		"$(median "$tmp/pair-$key" 3)" "$(range2 "$tmp/pair-$key" 3)"
	printf ' again %.2f [%s]\n' \
		"$(median "$tmp/pair-$key" 4)" "$(range2 "$tmp/pair-$key" 4)"
	awk -v jt="$jt" -v jf="$jf" -v et="$et" -v ef="$ef" -v ft="$ft" \
		-v ht="$ht" -v wt="$wt" 'BEGIN {
		rt = et / jt; sf = jt / ft; sh = jt / ht; sw = jt / wt
		printf "  emulated/JVM time   %.3f  (target 0.85-1.15: %s)\n",
			rt, ((rt >= 0.85 && rt <= 1.15) ? "met" : "MISSED")
		printf "  JVM/fast            %.2fx  (target >= 1.2x: %s)\n",
			sf, ((sf >= 1.2) ? "met" : "MISSED")
		printf "  JVM/fast-huge       %.2fx  (target >= 5x: %s)\n",
			sh, ((sh >= 5) ? "met" : "MISSED")
		printf "  JVM/fast-huge again %.2fx  (target >= 5x: %s)\n",
			sw, ((sw >= 5) ? "met" : "MISSED")
	}'
}

echo "JVM AlwaysPreTouch vs libfaultgen's emulation: -Xms $size, $runs runs" \
	"each, medians [min-max], $(nproc) CPUs"
echo "load average before: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ $faults_only = no ]; then
	while read -r sz home rel name w; do
		timing_block "$sz" "$home" "$rel" "$name" "$w"
	done <"$tmp/configs"
fi

# The fault table: what AlwaysPreTouch adds to the JVM's faults until
# main(), against the emulation's, medians; target within 0.5%.
echo
echo "Faults: the JVM's with minus without -XX:+AlwaysPreTouch until main()," \
	"against the emulation's (median of $runs)"
printf '%-6s %-4s %-9s %8s %12s %12s %9s\n' heap JDK GC workers \
	"JVM faults" emulated difference
while read -r sz home rel name w; do
	key=$sz-$rel-$name
	jf=$(median "$tmp/jvm-$key" 2)
	ef=$(median "$tmp/emu-$key" 2)
	awk -v sz="$sz" -v rel="$rel" -v gc="$name" -v w="$w" -v jf="$jf" \
		-v ef="$ef" 'BEGIN {
		d = jf > 0 ? (ef - jf) * 100 / jf : 0
		printf "%-6s %-4s %-9s %8d %12.0f %12.0f %+8.2f%%%s\n", sz,
			rel, gc, w, jf, ef, d,
			((d >= -0.5 && d <= 0.5) ? "" : "  MISSED (0.5%)")
	}'
done <"$tmp/configs"
