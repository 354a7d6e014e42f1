#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# One copy of the unwind tables per file, whatever the number of
# processes: run one process of an SFrame-built program, then N more, and
# read the kernel's account of its tables (/sys/kernel/debug/sframe_tables:
# "files F" and "bytes B" of the files' tables, shared; "mm_tables M" and
# "mm_bytes P" of the per-process tables of mappings) at each step.  N
# processes must not add a file or a byte of the files' tables; once they
# have exited, the files' tables are freed (back to the account before
# the first one started).  The per-mm tables are reported, not checked:
# those of the shell's own short-lived processes (awk, subshells) come
# and go, and are freed after an RCU grace period.
#
#   tables.sh [-n N] [PROG ARG...]
#       default: -n 20 big wait.  PROG must print a line once main runs
#       ("big wait"): by then ld.so has mapped every object and the
#       kernel has built their tables (at the return to user space of the
#       mmap that mapped each one's code)
#   tables.sh -r MAX ...
#       and the N+1 processes must use at most MAX times the kernel
#       memory of one (both kinds of tables)
#   tables.sh -0 [PROG ARG...]
#       with kernel.sframe_unwind=0 (set by the caller), a process of PROG
#       must not add a file, a byte or a per-mm table: nothing is read
#
# Each process runs under wantstacks, which holds a perf event that wants
# callchains: without one the kernel makes no table at all.
#
# Prints diagnostics, and
#   # tables: 1 process X bytes, N+1 processes Y bytes (ratio Y/X)
# X and Y counting both kinds of tables, above the account before, and the
# mean size of a per-mm table.  Runs
# in the guest; exit status 0 when the test passed.

N=20
OFF=
MAXRATIO=
while getopts "n:r:0" o; do
	case $o in
	n) N=$OPTARG ;;
	r) MAXRATIO=$OPTARG ;;
	0) OFF=1 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
T=$(cd "$(dirname "$0")" && pwd)
# TABLES, tables_stat FIELD
. "$T/tables-lib.sh"
STATS=$TABLES
TMPDIR=${TMPDIR:-/tmp}
RFILE=$TMPDIR/tables.ready
if [ $# -eq 0 ]; then
	set -- "$T/big" wait
fi
PROG=$1

if [ ! -r "$STATS" ]; then
	echo "# tables: no $STATS"
	exit 1
fi

# stat FIELD: a field of the kernel's account (0 if the kernel has no
# such field)
stat() {
	_v=$(tables_stat "$1")
	echo "${_v:-0}"
}

# snap: the whole account on one line (one read of it)
snap() {
	awk '{ v[$1] = $2 }
	     END { print v["files"] + 0, v["bytes"] + 0, v["mm_tables"] + 0,
		   v["mm_bytes"] + 0 }' "$STATS"
}

# wait_for FILES: poll until the account shows FILES files (10 s at most)
wait_for() {
	_i=0
	while [ "$(stat files)" != "$1" ] && [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
}

# ready N: poll until N processes have printed their line (60 s at most)
ready() {
	_i=0
	while [ "$(wc -l <"$RFILE")" -lt "$1" ] && [ $_i -lt 600 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
}

# start PROG ARG...: one process, run while a perf event wants user
# stacks (wantstacks): the kernel makes tables only then
start() {
	"$T/wantstacks" "$@" >>"$RFILE" 2>/dev/null &
}

# Tables that no process maps are kept in a cache (kernel.sframe_cache_kb
# of them): off here, so that they are freed when the processes exit.
CACHE_KB=/proc/sys/kernel/sframe_cache_kb
if [ -w "$CACHE_KB" ]; then
	cache0=$(cat "$CACHE_KB")
	echo 0 >"$CACHE_KB"
	trap 'echo "$cache0" >"$CACHE_KB"' EXIT
fi

: >"$RFILE"
s0=$(snap)
start "$@"
first=$!
ready 1
s1=$(snap)

if [ -n "$OFF" ]; then
	kill $first 2>/dev/null
	wait 2>/dev/null
	echo "# tables: kernel.sframe_unwind=$(cat /proc/sys/kernel/sframe_unwind);" \
		"before (files bytes mm_tables mm_bytes): $s0; one process of $PROG: $s1"
	# shellcheck disable=SC2086 # four fields
	set -- $s0
	f0=$1 b0=$2 m0=$3
	# shellcheck disable=SC2086
	set -- $s1
	# per-mm tables of processes that exited before may still wait for
	# an RCU grace period: fewer, never more
	[ "$1" = "$f0" ] && [ "$2" = "$b0" ] && [ "$3" -le "$m0" ] && exit 0
	echo "# tables: the kernel read or kept tables while unwinding is off"
	exit 1
fi

pids=
i=0
while [ $i -lt "$N" ]; do
	start "$@"
	pids="$pids $!"
	i=$((i + 1))
done
ready $((N + 1))
s2=$(snap)
# shellcheck disable=SC2086 # a list of pids
kill $first $pids 2>/dev/null
wait 2>/dev/null
# shellcheck disable=SC2086 # four fields
set -- $s0
f0=$1 b0=$2 p0=$4
wait_for "$f0"
i=0
while [ "$(stat bytes)" != "$b0" ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
s3=$(snap)
# shellcheck disable=SC2086
set -- $s1
f1=$1 b1=$2 p1=$4
# shellcheck disable=SC2086
set -- $s2
f2=$1 b2=$2 p2=$4

echo "# tables (files bytes mm_tables mm_bytes): before: $s0; 1 process: $s1;" \
	"$((N + 1)) processes: $s2; after exit: $s3"
x=$((b1 - b0 + p1 - p0))
y=$((b2 - b0 + p2 - p0))
echo "# tables: 1 process $x bytes, $((N + 1)) processes $y bytes" \
	"(ratio $(awk -v x=$x -v y=$y 'BEGIN { printf "%.3f", x ? y / x : 0 }'));" \
	"per process $(((p2 - p1) / (N ? N : 1))) bytes of per-mm table"
if ! { [ "$f1" -gt "$f0" ] && [ "$b1" -gt "$b0" ] &&
       [ "$f2" = "$f1" ] && [ "$b2" = "$b1" ] &&
       [ "$(echo "$s3" | cut -d' ' -f1-2)" = "$f0 $b0" ]; }; then
	echo "# tables: expected one copy per file, none left after exit"
	exit 1
fi
if [ -n "$MAXRATIO" ] &&
   ! awk -v x=$x -v y=$y -v m="$MAXRATIO" 'BEGIN { exit !(x && y <= m * x) }'; then
	echo "# tables: $((N + 1)) processes use more than $MAXRATIO times the memory of one"
	exit 1
fi
exit 0
