#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Stress test of the SFrame unwinder (`make stress`): the kernel builds,
# shares, replaces and frees unwind tables while perf samples every CPU
# at a high rate with callchains.  Runs in the guest (busybox sh + awk,
# perf, root, debugfs); prints TAP on stdout.
#
#   stress.sh SECONDS
#
# 1. Reads the baseline of /sys/kernel/debug/sframe_tables ("files N",
#    "bytes B"); writes a marker into the kernel log; if kmemleak is
#    there, scans once and clears its list (what was there before the run
#    is not counted).
# 2. Starts `perf record -B -a -g -F 10000` (system-wide; a lower
#    frequency if the kernel's perf_event_max_sample_rate or perf refuses
#    10000, said in a diagnostic), with --max-size at half the free space
#    of $TMPDIR, a quarter of MemAvailable, 512 MB at most (the guest must
#    not run out of memory; reaching it stops the recording, which
#    samples-end then reports), and waits until it has written 256 kB
#    (samples flow).
#    Then a process of uid 1000 in a memory cgroup of 16 MiB maps 4,096
#    files built to cost the kernel (128 if SECONDS < 240; hostile-map -m:
#    sparse, CIE-cycling, dense), and prints "# hostile ARCH: F files,
#    peak K kB, max mmap T ms, stalls S" (test hostile: no RCU stall or
#    soft lockup, perf's data grows meanwhile) and "# memcg ARCH: ..."
#    (memcg_hostile, tables-lib.sh; test hostile-memcg: the limit holds,
#    no OOM kill, and the cgroup's reclaim evicts its idle tables once
#    it has exited).
# 3. Runs for SECONDS, in parallel, `churn fork`, `threads`, `mmap`,
#    `dlopen`, `snapshot` (the reproducer of a use-after-free on
#    preemptible kernels: under KASAN, no-splats catches it) and
#    `hostile /tests/hostile` (churn.c), printing the tables'
#    account and the free memory every minute; waits for them (SECONDS +
#    120 s at most, then SIGTERM, then SIGKILL), then stops perf (SIGINT).
# 4. Tests:
#    churn            every churn exited with status 0, in time, and no
#                     process is left: no zombie, nothing named churn,
#                     shapes* or hNNNN-* (leftovers are killed)
#    tables-baseline  once they have exited and drop_caches has given
#                     back the idle tables in the cache, the account goes
#                     back to its baseline files and bytes (polled for
#                     10 s: the tables are freed after an RCU grace
#                     period)
#    samples          perf script (comm,tid,time) has samples
#    samples-end      churn has samples in the last 60 s of the run (the
#                     last quarter if SECONDS < 240), counted from the
#                     first sample of the recording (taken before churn
#                     starts)
#    max-stack        no callchain in the raw dump (perf script -D) has
#                     more entries than kernel.perf_event_max_stack (or
#                     the event's sample_max_stack), context markers left
#                     out: the kernel never stores more than asked
#                     (churn's 200-frame recursions go past the limit)
#    kmemleak         two scans 5 s apart find no unreferenced object
#                     allocated since the start (the jiffies of its
#                     report; older ones are listed, not counted)
#                     (# SKIP without /sys/kernel/debug/kmemleak)
#    no-splats        the kernel log since the marker has no line
#                     matching $SPLATS
#    then "# stress ARCH: N seconds, S samples, splats K, leaks L" (K
#    lines of the kernel log matching $SPLATS, L kmemleak's count, "-"
#    without kmemleak), and "# N passed, N failed" (a skip is neither).
#    Exit status 0 when nothing failed.
#
# Environment: PERF (perf binary), TMPDIR (default /tmp), STRESS_FREQ
# (sampling frequency, default 10000), STRESS_MAX_MB (cap of the perf
# data in MB).

DURATION=${1:-}
case "$DURATION" in
'' | *[!0-9]* | 0)
	echo "usage: stress.sh SECONDS" >&2
	exit 2
	;;
esac

T=$(cd "$(dirname "$0")" && pwd)
# TABLES, tables_stat FIELD, drop_idle_tables
. "$T/tables-lib.sh"
PERF=${PERF:-perf}
TMPDIR=${TMPDIR:-/tmp}
STATS=$TABLES
KMEMLEAK=/sys/kernel/debug/kmemleak
DATA=$TMPDIR/stress.data
PLOG=$TMPDIR/stress-perf.log
SUM=$TMPDIR/stress-summary.txt
SPLATS='WARNING:|BUG:|KASAN|UBSAN|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|sleeping function called from invalid context|Call [Tt]race|kernel BUG|Oops|general protection|lockdep'
HOSTILE=$T/hostile
NTESTS=9

if [ -r "$T/ARCH" ]; then
	ARCH=$(cat "$T/ARCH")
else
	ARCH=$(uname -m)
fi

NR=0
PASS=0
FAIL=0

ok() {
	NR=$((NR + 1))
	PASS=$((PASS + 1))
	echo "ok $NR $1"
}

not_ok() {
	NR=$((NR + 1))
	FAIL=$((FAIL + 1))
	echo "not ok $NR $1"
}

skip() {
	NR=$((NR + 1))
	echo "ok $NR $1 # SKIP $2"
}

# Print a file (its first $2 lines, default all) as diagnostics.
diag_file() {
	if [ -n "${2:-}" ]; then
		head -n "$2" "$1"
	else
		cat "$1"
	fi 2>/dev/null | sed 's/^/# /'
}

now() {
	date +%s
}

# is_running PID: PID is there and not a zombie (kill -0 succeeds on a
# zombie that the shell has not reaped yet)
is_running() {
	read -r _l 2>/dev/null <"/proc/$1/stat" || return 1
	_l=${_l##*) }
	[ "${_l%% *}" != Z ]
}


meminfo() {
	awk -v f="$1:" '$1 == f { print $2 }' /proc/meminfo
}

echo "TAP version 13"
echo "1..$NTESTS"
echo "# stress $ARCH: $DURATION s, $(uname -r), $(grep -c ^processor /proc/cpuinfo) cpus, MemAvailable $(meminfo MemAvailable) kB"

# ---- 1. baselines -----------------------------------------------------

# jiffies now: kmemleak reports objects allocated before the run (boot
# time ACPI caches on x86-64, seen in a 60 s run) apart
J0=$(awk '$1 == "jiffies:" { print $2; exit }' /proc/timer_list 2>/dev/null)
MARK="stress.sh $$: start of the run"
echo "$MARK" 2>/dev/null >/dev/kmsg || MARK=

# The kernel makes the tables of a process that was running before
# perf record -a -g started when perf first samples it: this shell's
# would then count as left over after the run.  Have them made now,
# under a short recording of this shell while it keeps busy.
$PERF record -q -e cpu-clock -F 1000 -g -p $$ -o "$TMPDIR/stress-prime.data" \
	-- sleep 1 >/dev/null 2>&1 &
_pp=$!
_i=0
while is_running "$_pp" && [ $_i -lt 200000 ]; do
	_i=$((_i + 1))
done
wait "$_pp" 2>/dev/null
rm -f "$TMPDIR/stress-prime.data"
# Tables that no process maps stay cached until memory pressure (or
# kernel.sframe_cache_kb) evicts them: the baselines count only those
# in use, before and after.
drop_idle_tables

F0=$(tables_stat files)
B0=$(tables_stat bytes)
if [ -r "$STATS" ]; then
	echo "# $STATS before: files $F0, bytes $B0"
else
	echo "# no $STATS"
fi

if [ -w "$KMEMLEAK" ]; then
	if echo scan 2>/dev/null >"$KMEMLEAK"; then
		n=$(grep -c "unreferenced object" "$KMEMLEAK" 2>/dev/null)
		echo clear >"$KMEMLEAK"
		echo "# kmemleak: ${n:-0} suspects before the run (cleared, not counted)"
	else
		echo "# kmemleak: cannot scan before the run"
	fi
fi

# ---- 2. perf record ---------------------------------------------------

FREQ=${STRESS_FREQ:-10000}
MAXRATE=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null)
if [ -n "$MAXRATE" ] && [ "$MAXRATE" -lt "$FREQ" ]; then
	echo "# kernel.perf_event_max_sample_rate is $MAXRATE: sampling at $MAXRATE Hz instead of $FREQ"
	FREQ=$MAXRATE
fi
# the highest frequency perf accepts
PROBE=$TMPDIR/stress-probe.data
WANT=$FREQ
FREQ=
for f in $WANT 8000 5000 4000 2000 1000 500 100; do
	[ "$f" -le "$WANT" ] || continue
	if $PERF record -q -B -a -g -F "$f" -o "$PROBE" -- true >"$PLOG" 2>&1; then
		FREQ=$f
		break
	fi
	echo "# perf record -a -g -F $f refused:"
	diag_file "$PLOG" 5
done
rm -f "$PROBE" "$PROBE.old"
[ -n "$FREQ" ] && [ "$FREQ" != "$WANT" ] &&
	echo "# sampling at $FREQ Hz, the highest perf accepts, instead of $WANT"

# perf data in $TMPDIR (tmpfs: memory): at most half its free space, a
# quarter of the available memory, 512 MB
AVAIL=$(df -Pk "$TMPDIR" | awk 'NR == 2 { print $4 }')
MAXMB=$((${AVAIL:-0} / 2048))
m=$(($(meminfo MemAvailable) / 4096))
[ "$m" -lt "$MAXMB" ] && MAXMB=$m
[ "$MAXMB" -gt 512 ] && MAXMB=512
[ "$MAXMB" -lt 16 ] && MAXMB=16
MAXMB=${STRESS_MAX_MB:-$MAXMB}

PERF_PID=
rm -f "$DATA" "$DATA.old"
if [ -n "$FREQ" ]; then
	echo "# perf record -B -a -g -F $FREQ --max-size=${MAXMB}M -o $DATA"
	$PERF record -B -a -g -F "$FREQ" --max-size="${MAXMB}M" -o "$DATA" \
		>"$PLOG" 2>&1 &
	PERF_PID=$!
	# samples flow once perf writes more than its start (the run's
	# window is counted from the first sample): 60 s at most
	t=$(now)
	while is_running "$PERF_PID" && [ "$(now)" -lt $((t + 60)) ] &&
	      [ "$(stat -c %s "$DATA" 2>/dev/null || echo 0)" -lt 262144 ]; do
		sleep 1
	done
	if is_running "$PERF_PID"; then
		echo "# perf record: $(($(stat -c %s "$DATA" 2>/dev/null || echo 0) / 1024)) kB written after $(($(now) - t)) s"
	else
		wait "$PERF_PID"
		echo "# perf record exited at once, status $?:"
		diag_file "$PLOG"
		PERF_PID=
	fi
else
	echo "# perf record -a -g does not work"
fi

# ---- hostile files ----------------------------------------------------
# While perf samples every CPU with callchains, one process of uid 1000,
# in a memory cgroup of 16 MiB, maps HOSTILE_FILES files built to cost
# the kernel (hostile-map -m: sparse 16 MiB .sframe sections of 23 bytes
# of entries, CIE-cycling .eh_frame, and every 256th a dense .sframe of
# 1.5 MiB of entries) and keeps them mapped: memcg_hostile's checks
# (test hostile-memcg), and no RCU stall or soft lockup while perf's data
# keeps growing (test hostile).  4,096 files, the objects the kernel
# keeps per process; 128 in a run shorter than 240 s (make check's).

HOSTILE_FILES=4096
[ "$DURATION" -lt 240 ] && HOSTILE_FILES=128
data_kb() {
	echo $(($(stat -c %s "$DATA" 2>/dev/null || echo 0) / 1024))
}
_s0=$(stall_count)
_p0=$(data_kb)
HOSTILE_LINE=
memcg_hostile -m $HOSTILE_FILES 16384
_r=$?
_s1=$(stall_count)
_p1=$(data_kb)
echo "# hostile $ARCH: ${HOSTILE_LINE:-no summary}, stalls $((_s1 - _s0))"
echo "# perf data grew by $((_p1 - _p0)) kB meanwhile"
if [ -n "$HOSTILE_LINE" ] && [ "$_s1" = "$_s0" ] &&
   { [ -z "$PERF_PID" ] || [ "$_p1" -gt "$_p0" ]; }; then
	ok hostile
else
	not_ok hostile
fi
if [ $_r = 0 ]; then
	ok hostile-memcg
elif [ $_r = 4 ]; then
	skip hostile-memcg "cannot run (no cgroup v2 memory controller or no $TABLES)"
else
	not_ok hostile-memcg
fi

# ---- 3. churn ---------------------------------------------------------

CHURN=
start() {
	"$T/churn" -d "$T" "$@" >"$TMPDIR/stress-churn-$1.log" 2>&1 &
	CHURN="$CHURN $1:$!"
}

alive() {
	for _e in $CHURN; do
		is_running "${_e#*:}" && return 0
	done
	return 1
}

signal_churn() {
	for _e in $CHURN; do
		kill "-$1" "${_e#*:}" 2>/dev/null
	done
}

T0=$(now)
for m in fork threads mmap dlopen snapshot; do
	start $m "$DURATION"
done
NOHOSTILE=
if [ -d "$HOSTILE" ]; then
	start hostile "$DURATION" "$HOSTILE"
	echo "# churn:$CHURN; hostile files: $(find "$HOSTILE" -type f | wc -l)"
else
	NOHOSTILE=1
	echo "# churn:$CHURN; no $HOSTILE (make -C userland-tests stress builds it)"
fi

LIMIT=$((T0 + DURATION + 120))
NEXT=$((T0 + 60))
while alive && [ "$(now)" -lt "$LIMIT" ]; do
	sleep 1
	if [ "$(now)" -ge "$NEXT" ]; then
		NEXT=$((NEXT + 60))
		echo "# t+$(($(now) - T0)) s: tables files $(tables_stat files), bytes $(tables_stat bytes);" \
			"MemAvailable $(meminfo MemAvailable) kB;" \
			"perf data $(($(stat -c %s "$DATA" 2>/dev/null || echo 0) / 1048576)) MB"
	fi
done
LATE=
if alive; then
	LATE=1
	echo "# churn still running $((DURATION + 120)) s after the start: SIGTERM"
	signal_churn TERM
	i=0
	while alive && [ $i -lt 20 ]; do
		sleep 1
		i=$((i + 1))
	done
	alive && echo "# churn still running 20 s later: SIGKILL" &&
		signal_churn KILL
fi
CHURN_BAD=0
for e in $CHURN; do
	wait "${e#*:}"
	rc=$?
	m=${e%%:*}
	[ $rc -eq 0 ] || CHURN_BAD=$((CHURN_BAD + 1))
	echo "# churn $m: exit status $rc"
	diag_file "$TMPDIR/stress-churn-$m.log" 30
done
echo "# churn ran $(($(now) - T0)) s"

# Zombies anywhere, and what churn may have left running (its children,
# shapes, the hostile programs hNNNN-*): PID STATE COMM each.
leftovers() {
	for _d in /proc/[0-9]*; do
		[ "${_d#/proc/}" = $$ ] && continue
		read -r _l 2>/dev/null <"$_d/stat" || continue
		_c=${_l#*(}
		_c=${_c%)*}
		_s=${_l##*) }
		_s=${_s%% *}
		case "$_s:$_c" in
		Z:* | *:churn | *:shapes* | *:h[0-9][0-9][0-9][0-9]-*)
			echo "${_d#/proc/} $_s $_c" ;;
		esac
	done
}

LEFT=$(leftovers)
if [ -n "$LEFT" ]; then
	echo "# left behind (pid state comm):"
	echo "$LEFT" | head -n 20 | sed 's/^/#   /'
	for p in $(echo "$LEFT" | awk '{ print $1 }'); do
		kill -KILL "$p" 2>/dev/null
	done
fi
if [ $CHURN_BAD -eq 0 ] && [ -z "$LEFT" ] && [ -z "$LATE" ] &&
   [ -z "$NOHOSTILE" ]; then
	ok churn
else
	not_ok churn
fi

# ---- stop perf --------------------------------------------------------

# stop_perf SIGNAL SECONDS: send SIGNAL, wait for perf for SECONDS;
# returns 0 once it has ended
stop_perf() {
	kill "-$1" "$PERF_PID" 2>/dev/null
	_i=0
	while is_running "$PERF_PID" && [ $_i -lt "$2" ]; do
		sleep 1
		_i=$((_i + 1))
	done
	! is_running "$PERF_PID" && return 0
	echo "# perf record still running $2 s after SIG$1"
	return 1
}

if [ -n "$PERF_PID" ]; then
	stop_perf INT 120 || stop_perf TERM 60 || stop_perf KILL 10
	wait "$PERF_PID"
	rc=$?
	# 130: perf record re-raises the SIGINT that stopped it
	[ $rc -eq 0 ] || [ $rc -eq 130 ] ||
		echo "# perf record: exit status $rc"
	grep -v '^$' "$PLOG" | tail -n 5 | sed 's/^/# /'
	grep -q 'size limit' "$PLOG" &&
		echo "# perf record stopped at its size limit (${MAXMB} MB): STRESS_MAX_MB, STRESS_FREQ"
	echo "# perf data: $(($(stat -c %s "$DATA" 2>/dev/null || echo 0) / 1024)) kB;" \
		"kernel.perf_event_max_sample_rate now $(cat /proc/sys/kernel/perf_event_max_sample_rate)"
fi

# ---- tables back to the baseline --------------------------------------

if [ -r "$STATS" ]; then
	# the tables of the processes of the run are idle in the cache once
	# they have exited: give them back, as memory pressure would
	i=0
	while drop_idle_tables &&
	      { [ "$(tables_stat files)" != "$F0" ] || [ "$(tables_stat bytes)" != "$B0" ]; } &&
	      [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	F1=$(tables_stat files)
	B1=$(tables_stat bytes)
	echo "# $STATS after: files $F1, bytes $B1 (before: files $F0, bytes $B0)"
	if [ "$F1" = "$F0" ] && [ "$B1" = "$B0" ]; then
		ok tables-baseline
	else
		echo "# the tables did not go back to the baseline in 10 s; processes:"
		ps 2>/dev/null | sed 's/^/#   /'
		not_ok tables-baseline
	fi
else
	echo "# no $STATS"
	not_ok tables-baseline
fi

# ---- samples and callchain lengths -------------------------------------

MAXSTACK=$(cat /proc/sys/kernel/perf_event_max_stack 2>/dev/null)
MAXSTACK=${MAXSTACK:-127}
if [ -s "$DATA" ]; then
	s=$($PERF evlist -v -i "$DATA" 2>/dev/null |
	    sed -n 's/.*sample_max_stack: \([0-9]*\).*/\1/p' | head -n 1)
	if [ -n "$s" ] && [ "$s" -gt 0 ] && [ "$s" -lt "$MAXSTACK" ]; then
		MAXSTACK=$s
	fi
fi
if [ "$DURATION" -ge 240 ]; then
	WIN=60
else
	WIN=$((DURATION / 4))
	[ $WIN -ge 1 ] || WIN=1
fi

: >"$SUM"
if [ -s "$DATA" ]; then
	t=$(now)
	# no ip or sym: perf script then resolves no callchain (which took
	# most of the time under TCG with KASAN); the raw dump has them
	$PERF script -i "$DATA" -D -F comm,tid,time \
		2>"$TMPDIR/stress-script.err" |
		awk -v from=$((DURATION - WIN)) -v limit="$MAXSTACK" \
		    -f "$T/stress.awk" >"$SUM"
	echo "# perf script -D took $(($(now) - t)) s"
	grep -v -e '^$' -e 'failed to open' "$TMPDIR/stress-script.err" |
		head -n 5 | sed 's/^/# perf script: /'
fi

val() {
	_v=$(awk -v k="$1" '$1 == k { print $2; exit }' "$SUM")
	echo "${_v:-0}"
}

S=$(val samples)
echo "# $S samples ($(val raw) in the raw dump), from $(val first) to $(val last) s;" \
	"$(val lost) PERF_RECORD_LOST, $(val throttle) PERF_RECORD_THROTTLE records"
grep '^comm ' "$SUM" | sed 's/^comm /#   /'
if [ "$S" -gt 0 ]; then
	ok samples
else
	diag_file "$TMPDIR/stress-script.err" 10
	not_ok samples
fi

echo "# samples in the last $WIN s (from first + $((DURATION - WIN)) s): $(val window), of churn: $(val window_churn)"
if [ "$(val window_churn)" -gt 0 ]; then
	ok samples-end
else
	not_ok samples-end
fi

echo "# callchains: $(val chains), longest $(val max_entries) entries (limit $MAXSTACK), $(val at_limit) at the limit, $(val over) over it"
grep '^over_example ' "$SUM" | sed 's/^over_example /#   /'
if [ "$(val chains)" -gt 0 ] && [ "$(val over)" -eq 0 ]; then
	ok max-stack
else
	[ "$(val chains)" -gt 0 ] || echo "# no callchain in the raw dump"
	not_ok max-stack
fi
rm -f "$DATA" "$DATA.old"

# ---- kmemleak ---------------------------------------------------------

L=-
if [ -e "$KMEMLEAK" ]; then
	t=$(now)
	if echo scan 2>/dev/null >"$KMEMLEAK"; then
		sleep 5
		echo scan >"$KMEMLEAK"
		cat "$KMEMLEAK" >"$TMPDIR/stress-kmemleak.txt"
		# split the reports: allocated during the run or before it
		awk -v j0="${J0:-0}" -v old="$TMPDIR/stress-kmemleak-old.txt" '
			/^unreferenced object/ { keep = 1; buf = $0; next }
			keep == 1 && /jiffies [0-9]+/ {
				j = $0
				sub(/.*jiffies /, "", j)
				keep = (j + 0 >= j0 + 0) ? 2 : 3
				buf = buf "\n" $0
				if (keep == 2)
					print buf
				else
					print buf >old
				next
			}
			keep == 1 { buf = buf "\n" $0; next }
			keep == 2 { print }
			keep == 3 { print >old }
		' "$TMPDIR/stress-kmemleak.txt" >"$TMPDIR/stress-kmemleak-new.txt"
		L=$(grep -c "unreferenced object" "$TMPDIR/stress-kmemleak-new.txt")
		o=$(grep -c "unreferenced object" "$TMPDIR/stress-kmemleak-old.txt" 2>/dev/null)
		echo "# kmemleak: $L unreferenced objects allocated during the run," \
			"${o:-0} allocated before it (not counted; jiffies ${J0:-?} at the start;" \
			"two scans, $(($(now) - t)) s)"
		if [ "${o:-0}" -gt 0 ]; then
			echo "# kmemleak: where those allocated before the run come from:"
			grep -A12 "backtrace:" "$TMPDIR/stress-kmemleak-old.txt" |
				grep -o '[a-z_0-9.]*+0x' | sed 's/+0x//' | sort | uniq -c |
				sort -rn | head -n 8 | sed 's/^/#   /'
		fi
		if [ "$L" -eq 0 ]; then
			ok kmemleak
		else
			# the first three reports
			awk '/^unreferenced object/ { n++ } n > 3 { exit } { print }' \
				"$TMPDIR/stress-kmemleak-new.txt" | head -n 90 | sed 's/^/# /'
			not_ok kmemleak
		fi
	else
		echo "# kmemleak: cannot scan (disabled?):"
		dmesg | grep -i kmemleak | tail -n 5 | sed 's/^/# /'
		not_ok kmemleak
	fi
else
	skip kmemleak "no $KMEMLEAK"
fi

# ---- kernel log -------------------------------------------------------

dmesg >"$TMPDIR/stress-dmesg.txt"
if [ -n "$MARK" ] && ! grep -qF "$MARK" "$TMPDIR/stress-dmesg.txt"; then
	echo "# the kernel log no longer has the marker (it wrapped): counting all of it"
	MARK=
fi
awk -v mark="$MARK" -v re="$SPLATS" '
	!on && mark != "" { if (index($0, mark)) on = 1; next }
	$0 ~ re { print }
' "$TMPDIR/stress-dmesg.txt" >"$TMPDIR/stress-splats.txt"
K=$(wc -l <"$TMPDIR/stress-splats.txt")
K=$((K + 0))
if [ "$K" -eq 0 ]; then
	ok no-splats
else
	echo "# $K kernel log lines match $SPLATS; the first 20:"
	diag_file "$TMPDIR/stress-splats.txt" 20
	not_ok no-splats
fi

echo "# stress $ARCH: $DURATION seconds, $S samples, splats $K, leaks $L"
echo "# $PASS passed, $FAIL failed"
[ $FAIL -eq 0 ]
