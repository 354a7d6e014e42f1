#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of "make bench": what unwinding costs the profiled program.
#
#   bench.sh [DEPTH [ROUNDS [PARTS]]]
#
# bench (userland-tests/bench.c) does a fixed amount of work DEPTH frames
# deep (default 32) and prints how long it took.  Each round runs, in
# turn:
#   base     bench alone                       (no perf)
#   base-fp  bench-fp alone                    (built with frame pointers)
#   fp       perf record -g of bench-fp        (stock frame-pointer walk)
#   sframe   perf record -g of bench           (SFrame walk)
#   off      perf record -g of bench, kernel.sframe_unwind=0 (stock walk
#            of code without frame pointers: stops after one frame)
#   dwarf    perf record --call-graph dwarf of bench (8 KiB stack copies)
# with perf record -e cpu-clock:u -c PERIOD (default 100000 ns: 10,000
# samples per second of CPU time).  The medians over ROUNDS rounds
# (default 5) give the cost of one sample: (time - time without perf) /
# samples, for each mode, and its ratio to the frame-pointer walk's.
# Frames per sample come from perf script of each mode's last recording
# (not for dwarf: perf script would unwind every sample in user space).
# Then lost samples at 20,000 samples per second of CPU time (LPERIOD),
# and the cost of exec and dlopen (loadbench, LROUNDS rounds of 10,
# default 10).  All numbers of one run come from the same boot; only
# ratios within a run mean anything.
# PARTS (default all): a comma-separated list of the parts to run:
# sample (cost per sample and lost samples), load (exec and dlopen),
# profiled (cc1 under perf record -a -g).
T=$(cd "$(dirname "$0")" && pwd)
PERF=${PERF:-perf}
TMPDIR=${TMPDIR:-/tmp}
DEPTH=${1:-32}
ROUNDS=${2:-5}
PARTS=${3:-all}
PERIOD=${PERIOD:-100000}
SYSCTL=${SFT_SYSCTL:-/proc/sys/kernel/sframe_unwind}
OUT=$TMPDIR/bench.out
ARCH=$(cat "$T/ARCH" 2>/dev/null || uname -m)
[ "$ARCH" = aarch64 ] && ARCH=arm64
MODES="base base-fp fp sframe off dwarf"

die() {
	echo "bench: $*" >&2
	exit 1
}

want() {
	[ "$PARTS" = all ] && return 0
	case ",$PARTS," in
	*,"$1",*) return 0 ;;
	esac
	return 1
}

[ -w "$SYSCTL" ] || die "no $SYSCTL (kernel without the series?)"
LEVEL0=$(cat "$SYSCTL")
LROUNDS=${LROUNDS:-10}
rm -f "$TMPDIR"/bench.*

if want sample; then
	# Calibrate: about 1.5 s of work without perf.
	CALLS=1000
	ns=$("$T/bench" "$DEPTH" $CALLS) || die "bench failed"
	CALLS=$((CALLS * 1500000000 / (ns + 1) + 1))
	echo "# depth $DEPTH, $CALLS calls of the hot leaf, period $PERIOD ns, $ROUNDS rounds"

	# record MODE PERIOD DATA LEVEL: perf record -g of MODE's program (fp:
	# bench-fp; dwarf: --call-graph dwarf; others: bench) every PERIOD ns of
	# CPU time into DATA, at kernel.sframe_unwind=LEVEL; its output in $OUT
	record() {
		_prog=$T/bench
		_cg=-g
		case $1 in
		fp)	_prog=$T/bench-fp ;;
		dwarf)	_cg="--call-graph dwarf" ;;
		esac
		echo "$4" >"$SYSCTL"
		# shellcheck disable=SC2086 # $_cg is one or two words
		$PERF record -q -e cpu-clock:u -c "$2" $_cg -o "$3" -- \
			"$_prog" "$DEPTH" $CALLS >"$OUT" 2>&1 || { sed "s/^/# /" "$OUT"; die "perf record ($1) failed"; }
	}

	# one MODE: prints "ns samples bytes"; the recording stays in
	# $TMPDIR/bench.MODE.data
	one() {
		data=$TMPDIR/bench.$1.data
		sw=1
		case $1 in
		base)	"$T/bench" "$DEPTH" $CALLS; return ;;
		base-fp) "$T/bench-fp" "$DEPTH" $CALLS; return ;;
		off)	sw=0 ;;
		esac
		record "$1" "$PERIOD" "$data" $sw
		echo 1 >"$SYSCTL"
		n=$($PERF report -i "$data" --stats 2>/dev/null |
			awk '/SAMPLE events:/ { print $3; exit }')
		printf '%s %s %s\n' "$(grep -E '^[0-9]+$' "$OUT")" "${n:-0}" \
			"$(wc -c <"$data")"
	}

	r=1
	while [ $r -le "$ROUNDS" ]; do
		for m in $MODES; do
			one $m >>"$TMPDIR/bench.$m" || exit 1
		done
		r=$((r + 1))
	done

	# Frames per sample of the last recording of MODE.
	frames() {
		$PERF script -i "$TMPDIR/bench.$1.data" -F comm,ip 2>/dev/null |
			awk '/^[ \t]+[0-9a-f]+$/ { f++; next } /^[^ \t]/ { s++ }
			     END { if (s) printf "%.1f", f / s; else printf "-" }'
	}

	median() {
		sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
	}

	echo "# mode       ms  samples  bytes/sample  frames/sample  us/sample  vs fp"
	for m in $MODES; do
		t=$(awk '{ print $1 }' "$TMPDIR/bench.$m" | median)
		n=$(awk '{ print $2 }' "$TMPDIR/bench.$m" | median)
		b=$(awk '{ print $3 }' "$TMPDIR/bench.$m" | median)
		echo "$m $t $n $b"
	done >"$TMPDIR/bench.med"
	BASE=$(awk '$1 == "base" { print $2 }' "$TMPDIR/bench.med")
	BASEFP=$(awk '$1 == "base-fp" { print $2 }' "$TMPDIR/bench.med")
	FPCOST=
	for m in $MODES; do
		# shellcheck disable=SC2046 # three fields
		set -- $(awk -v m=$m '$1 == m { print $2, $3, $4 }' "$TMPDIR/bench.med")
		t=$1 n=$2 b=$3
		case $m in
		base|base-fp)
			printf '%-8s %7d\n' $m $((t / 1000000))
			continue ;;
		fp)	ref=$BASEFP ;;
		*)	ref=$BASE ;;
		esac
		fr=-
		[ $m != dwarf ] && fr=$(frames $m)
		cost=$(awk -v t="$t" -v r="$ref" -v n="$n" 'BEGIN { printf "%.2f", (n ? (t - r) / n / 1000 : 0) }')
		[ $m = fp ] && FPCOST=$cost
		ratio=$(awk -v c="$cost" -v f="$FPCOST" 'BEGIN { printf "%.2f", (f > 0 ? c / f : 0) }')
		printf '%-8s %7d %8d %13d %14s %10s %6s\n' $m $((t / 1000000)) "$n" \
			$((n ? b / n : 0)) "$fr" "$cost" "$ratio"
	done
	rm -f "$OUT" "$TMPDIR"/bench.*

	# Lost samples at a high rate: perf record -c LPERIOD (default 50000 ns
	# of CPU time: 20,000 samples per second) with the default buffer, for
	# the frame-pointer walk, SFrame and DWARF; samples written, samples
	# PERF_RECORD_LOST reports lost, PERF_RECORD_THROTTLE records.
	LPERIOD=${LPERIOD:-50000}
	echo "# lost samples at -c $LPERIOD (cpu-clock:u, $((1000000000 / LPERIOD)) per second of CPU time)"
	echo "# mode      samples     lost  throttled"
	for m in fp sframe dwarf; do
		data=$TMPDIR/bench.lost.data
		record $m "$LPERIOD" "$data" "$LEVEL0"
		# -F comm,tid: no ip, so perf script unwinds nothing (the DWARF
		# recording would otherwise be unwound sample by sample)
		$PERF script -D -F comm,tid -i "$data" 2>/dev/null | awk -v m=$m '
			/: PERF_RECORD_SAMPLE/ { s++ }
			# ": PERF_RECORD_LOST: id:I: lost:N", "..._SAMPLES: id:I: lost samples :N"
			/: PERF_RECORD_LOST/ { v = $0; sub(/.*:/, "", v); l += v }
			/: PERF_RECORD_THROTTLE/ { t++ }
			END { printf "%-8s %9d %8d %10d\n", m, s, l, t }'
	done
	rm -f "$OUT" "$TMPDIR"/bench.*
fi

# What the tables cost exec and dlopen (loadbench.c): a program with
# 1.1 MiB of .sframe (big) and a library of 10,000 functions, with the
# tables built (kernel.sframe_unwind as it was at boot) against 0 (nothing
# read); first: each load is of a fresh copy of the file (its tables are
# read and built then), warm: another process maps the file.
# Twice: while nothing wants user stacks (the kernel then reads nothing:
# the "ondemand" line gives those ratios), and under wantstacks, while a
# perf event wants callchains (tables are made at each mapping).
if want load && [ -x "$T/loadbench" ] && [ -x "$T/big" ]; then
	echo "$LEVEL0" >"$SYSCTL"
	for c in "" "$T/wantstacks"; do
		if [ -z "$c" ]; then
			echo "# exec and dlopen, kernel.sframe_unwind=$LEVEL0 vs 0, nothing wants user stacks, $LROUNDS rounds of 10 each"
		else
			echo "# exec and dlopen, kernel.sframe_unwind=$LEVEL0 vs 0, a perf event wants callchains, $LROUNDS rounds of 10 each"
		fi
		for w in "" -w; do
			$c "$T/loadbench" $w exec "$LROUNDS" "$T/big" exit ||
				die "loadbench"
			$c "$T/loadbench" $w dlopen "$LROUNDS" "$T/lib10k.so" ||
				die "loadbench"
		done | tee "$TMPDIR/bench.load"
		if [ -z "$c" ]; then
			awk -v arch="$ARCH" '
				/ratio/ { r[$1 " " $3] = $NF }
				END { printf "# ondemand %s: exec-first %s, dlopen-first %s, exec-warm %s\n",
					arch, r["exec first:"], r["dlopen first:"], r["exec warm:"] }' \
				"$TMPDIR/bench.load" >"$TMPDIR/bench.ondemand"
		fi
	done
	cat "$TMPDIR/bench.ondemand"
	rm -f "$TMPDIR/bench.load" "$TMPDIR/bench.ondemand"
fi

# A real program run again and again under a system-wide profiler: N
# (PRUNS, default 5) sequential runs of Debian's own cc1 (gcc's compiler
# proper, copied to /tests/cc1 with its libraries by mk-initramfs.sh for
# make bench; no .sframe: its tables come from its 2.4 MB of .eh_frame)
# compiling a generated C file, under perf record -a -g, after the idle
# tables were dropped.  T: the runs in which the kernel made tables of
# any file (the first run makes those of cc1 and its libraries; later
# runs find them in the cache: T = 1); C: the share of cc1's samples
# whose chain reaches main's caller (__libc_start_call_main) or, before
# main, ld.so's entry (_dl_start_user).
PRUNS=${PRUNS:-5}
if want profiled && [ -x "$T/cc1" ] && [ -r "$T/tables-lib.sh" ]; then
	. "$T/tables-lib.sh"
	P=$TMPDIR/bench.cc1
	mkdir -p "$P"
	# 60 functions of loops, arithmetic and a switch: about 0.5 s of
	# cc1 -O2 on the host, 10 s under TCG
	awk 'BEGIN {
		print "struct s { long a, b; int c[8]; };"
		for (i = 0; i < 60; i++) {
			printf "long f%d(struct s *p, long n) {\n", i
			print "\tlong r = 0;"
			print "\tfor (long j = 0; j < n; j++) {"
			printf "\t\tswitch ((j + %d) & 7) {\n", i
			for (k = 0; k < 8; k++)
				printf "\t\tcase %d: r += p->c[%d] * j + %d; break;\n", k, k, i * k
			print "\t\t}"
			printf "\t\tif (r > %d) r = r / 3 + p->a; else r ^= p->b;\n", i * 1000
			print "\t}"
			if (i > 0)
				printf "\treturn r + f%d(p, n - 1);\n", i - 1
			else
				print "\treturn r;"
			print "}"
		}
	}' >"$P/in.i"
	echo "$LEVEL0" >"$SYSCTL"
	drop_idle_tables
	cat >"$P/loop.sh" <<-LOOP
	. "$T/tables-lib.sh"
	i=0
	while [ \$i -lt $PRUNS ]; do
		b0=\$(tables_stat builds)
		"$T/cc1" -fpreprocessed -quiet -O2 "$P/in.i" -o "$P/out.s" || exit 1
		echo "\$b0 \$(tables_stat builds)" >>"$P/builds"
		i=\$((i + 1))
	done
	LOOP
	if $PERF record -q -a -g -e cpu-clock:u -F 1000 -o "$P/data" -- \
		sh "$P/loop.sh" >"$P/out" 2>&1 &&
		$PERF script -i "$P/data" --comm cc1 -F ip,sym --no-inline \
			>"$P/txt" 2>/dev/null; then
		echo "# cc1 runs under perf record -a -g: files whose tables were made, per run: $(awk '{ printf "%s%d", (NR > 1 ? " " : ""), $2 - $1 }' "$P/builds")"
		awk -v arch="$ARCH" -v runs="$(wc -l <"$P/builds")" \
			-v t="$(awk '$2 > $1 { n++ } END { print n + 0 }' "$P/builds")" '
			function flush() {
				if (!inside)
					return
				n++
				if (done || last == "_dl_start_user")
					c++
				inside = done = 0
			}
			/^[ \t]+[0-9a-f]+ / {
				inside = 1
				if ($2 == "__libc_start_call_main" || $2 == "start_thread")
					done = 1
				last = $2
				next
			}
			/^$/ { flush() }
			END {
				flush()
				printf "# profiled %s: %d runs of cc1, %d translations, %.1f%% complete (%d of %d samples)\n",
					arch, runs, t, n ? 100 * c / n : 0, c, n
			}' "$P/txt"
	else
		echo "# profiled $ARCH: perf record of cc1 failed:"
		sed 's/^/# /' "$P/out"
	fi
	rm -rf "$P"
fi
