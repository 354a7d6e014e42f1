#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# SFrame user unwinder tests: perf record -g callchains of programs built
# with -fomit-frame-pointer -Wa,--gsframe must be complete.  Runs in the
# guest (busybox sh + awk, perf, root); prints TAP on stdout.
#
#   run-tests.sh [-m MS] [-n MIN] [-u LEVEL] [-f] [-s] [-k] [-l] [GLOB...]
#
#   -m MS   CPU time of each hot chain, in ms (default 600)
#   -n MIN  samples needed per hot function (default 50)
#   -s      the short slice that make check runs (make check-full runs
#           everything): every kind of test on every program, but the
#           controls rerun one test in CONTROL_STEP (4) of their kind, the
#           v3 tests leave out the non-PIE and static builds (the v1 tests
#           have them), and the v2 tests on arm64 are the pac-ret builds
#           only (their FREs are the ones that differ by architecture)
#   -k      keep the perf data and scripts of failed tests in $TMPDIR
#   -l      list the tests: KIND NAME EXPECTED-CHAINS COMMAND (tab separated)
#   -u LEVEL  kernel.sframe_unwind for the "sframe" and "bad" tests
#           (default 2: .sframe, and tables from .eh_frame where there is
#           none); at 2 their chains go on through libc (-f), at 1
#           (.sframe only) they end at main's caller and start_thread
#   -f      expect libc's own frames after main's caller and a thread's
#           start, down to _start and clone3 (arm64: clone's
#           thread_start): with -u 2 (tables from
#           libc's .eh_frame) or with a libc that has .sframe
#           (mk-initramfs.sh GLIBC_SFRAME=1, make check-glibc-sframe)
#   GLOB    only run the tests whose name matches one of the GLOBs (shell
#           patterns); a control test runs when at least one test of its
#           kind is selected
#
# Each test runs one program under
#   perf record -e cpu-clock:u -F 1000 -g -- PROG ARGS
# and checks `perf script -F comm,tid,ip,sym,dso --no-demangle` with
# chaincheck.awk: every sample whose leaf is a hot function must carry
# exactly the expected chain (leaf first), and each hot function needs
# MIN samples.  kernel.sframe_unwind is set for each test by its kind
# (see all_tests): sframe and bad at LEVEL, eh at 2, v3, v2 and stock at 1.
# The v3 tests (programs built by a binutils that emits SFrame v3, in
# /tests/v3, /tests/mix-v1v3 and /tests/mix-v3v1) run when /tests/v3 is
# there, and add the summary line "# sframe-v3 ARCH: N passed, N failed";
# the v2 tests likewise with /tests/v2 ("# sframe-v2 ...").
#
# Then the controls, if /proc/sys/kernel/sframe_unwind exists: each
# rerun of one kind of test at a level where those tests cannot pass
# must see every one of them fail with a wrong chain, which shows that
# they can fail.  control-sframe-off-truncates: the sframe tests at 0
# (stock frame-pointer walk); control-eh-off-truncates: the eh tests at 1
# (.sframe only, no tables from .eh_frame); control-v3-off-truncates and
# control-v2-off-truncates: the v3 and v2 tests at 0.
#
# Then the oracle tests (oracle-NAME, oracle.c): five programs run under a
# perf event of the oracle's own whose samples carry the kernel's chain
# and a copy of the registers and stack it started from; libdw unwinds
# the copy, and every sample's two chains must agree, frame by frame.
# The stock tests (stock-NAME) do the same with Debian's own programs
# and two of ours (the vDSO, a signal handler), and also check each
# chain alone: it must end at an outermost frame, and every caller must
# follow a call instruction.  They add "# oracle ARCH: N samples, A
# agree, D differ, U undecidable" and "# stock ARCH: N samples, C
# complete, W wrong"; control-oracle-stock-differs checks that the stock
# walk differs.  jit-frame-pointer: a JIT leaf (libcall jit) the same
# way, "# jit ARCH: N samples, C complete, W wrong".
#
# Environment: PERF (perf binary), TMPDIR (default /tmp).  For host-side
# validation only: SFT_DWARF=1 records with --call-graph dwarf and
# compares chain prefixes (checks the expectations against perf's DWARF
# unwinder); SFT_SYSCTL=FILE stands in for the sysctl.

T=$(cd "$(dirname "$0")" && pwd)
PERF=${PERF:-perf}
TMPDIR=${TMPDIR:-/tmp}
EXT2=$TMPDIR/sft-ext2	# ext2_scratch
MS=600
MIN=50
KEEP=0
LIST=0
GLOB='*'
LEVEL=2
FULL=0
SHORT=0
CONTROL_STEP=4
SYSCTL=${SFT_SYSCTL:-/proc/sys/kernel/sframe_unwind}

while [ $# -gt 0 ]; do
	case "$1" in
	-m) MS=$2; shift 2 ;;
	-n) MIN=$2; shift 2 ;;
	-k) KEEP=1; shift ;;
	-l) LIST=1; shift ;;
	-h|--help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	-u) LEVEL=$2; shift 2 ;;
	-f) FULL=1; shift ;;
	-s) SHORT=1; shift ;;
	-*) echo "run-tests.sh: unknown option $1" >&2; exit 2 ;;
	*) if [ "$GLOB" = '*' ]; then GLOB=$1; else GLOB="$GLOB $1"; fi; shift ;;
	esac
done

if [ -r "$T/ARCH" ]; then
	ARCH=$(cat "$T/ARCH")
else
	ARCH=$(uname -m)
fi
case "$ARCH" in
aarch64) ARCH=arm64 ;;
esac

DATA=$TMPDIR/sft-perf.data
TXT=$TMPDIR/sft-script.txt
LOG=$TMPDIR/sft-log.txt

# ---------------------------------------------------------------------
# Expected chains.  Frames are leaf first, separated by ','; a frame may
# list alternatives separated by '|'; a trailing '*' matches a prefix.
# An entry "!FRAME" ignores the samples that have a frame FRAME
# (chaincheck.awk).
# A frame "[unknown]@DSO" is an address perf found in DSO but could not
# name.  libc's frames are named exactly: Debian's libc.so.6 has only its
# dynamic symbols, so the initramfs has libc6-dbg's debug file of it
# under /usr/lib/debug/.build-id/, where perf looks (mk-initramfs.sh).
#
# With SFrame, the walk ends at the first return address outside any
# .sframe section, after reporting it: for a program that is main()'s
# caller in libc (glibc 2.36 sysdeps/nptl/libc_start_call_main.h: the
# return address after `call *%rax` / `blr x3` lies in the static
# __libc_start_call_main, also in a static binary), for a thread it is
# start_thread(), which calls the thread function.
LIBC_MAIN=__libc_start_call_main
LIBC_THREAD=start_thread
# With tables from .eh_frame (or a libc with .sframe) the walk goes on
# through libc to its outermost frames, whose DWARF CFI says "return
# address undefined": _start (main's caller's caller, in the program:
# crt1.o's, or libc.a's start-up in a static binary) and, for a thread,
# the child path of clone3 (x86-64, sysdeps/unix/sysv/linux/x86_64/
# clone3.S; perf names it clone3, not its alias __clone3) or of clone
# (arm64: glibc 2.36 has no clone3 there; clone.S's thread_start).
# __libc_start_main's symbol is versioned in the dynamic libc
# (__libc_start_main@@GLIBC_2.34) and __libc_start_main_impl in libc.a.
LIBC_SM='__libc_start_main*'
LIBC_MAIN_FULL="$LIBC_MAIN,$LIBC_SM,_start"
if [ "$ARCH" = arm64 ]; then
	LIBC_THREAD_FULL="$LIBC_THREAD,thread_start"
else
	LIBC_THREAD_FULL="$LIBC_THREAD,clone3"
fi
# -f (or -u 2): the sframe tests' chains are complete too
[ "$LEVEL" -ge 2 ] && FULL=1
if [ "$FULL" = 1 ]; then
	LIBC_MAIN=$LIBC_MAIN_FULL
	LIBC_THREAD=$LIBC_THREAD_FULL
fi

# nr_caller() ends with a call to the noreturn nr_dead(): the return
# address it leaves is the first byte of nr_next(), and perf symbolises
# return addresses as they are, so that frame is printed as nr_next.
# (perf's DWARF unwinder looks up pc - 1 and prints nr_caller.)
NR_CALLER=nr_next

SFT_PREFIX=0
CALLGRAPH=-g
if [ "${SFT_DWARF:-0}" = 1 ]; then
	CALLGRAPH="--call-graph dwarf,65528"
	SFT_PREFIX=1
	NR_CALLER=nr_caller
fi

# Repeat a frame: rep NAME COUNT
rep() {
	_r=$1
	_i=1
	while [ $_i -lt "$2" ]; do
		_r="$_r,$1"
		_i=$((_i + 1))
	done
	echo "$_r"
}

# The steps of pro_hot's prologue (shapes.c), one symbol each: a chain
# per step, so that each step needs its samples.
if [ "$ARCH" = arm64 ]; then
	PRO_STEPS="pro_hot pro_stack pro_fp"
else
	PRO_STEPS="pro_hot pro_push pro_stack pro_fp"
fi
pro_chains() {
	_c=
	for _s in $PRO_STEPS; do
		_c="${_c:+$_c;}$_s,$1"
	done
	echo "$_c"
}

# Expected chain of a shape, with SFrame: sframe_chain SHAPE [LIBC]
# (LIBC: main's caller and what follows it, default $LIBC_MAIN).
sframe_chain() {
	_lm=${2:-$LIBC_MAIN}
	case "$1" in
	leaf)		echo "leaf_hot,leaf_driver,sh_leaf,main,$_lm" ;;
	bigframe)	echo "bigframe_hot,bigframe_mid,sh_bigframe,main,$_lm" ;;
	bigleaf)	echo "bigleaf_hot,sh_bigleaf,main,$_lm" ;;
	alloca)		echo "alloca_hot,alloca_mid,sh_alloca,main,$_lm" ;;
	vlaleaf)	echo "vlaleaf_hot,sh_vlaleaf,main,$_lm" ;;
	recurse)	echo "recurse_hot,$(rep recurse 50),sh_recurse,main,$_lm" ;;
	noreturn)	echo "nr_hot,nr_dead,$NR_CALLER,sh_noreturn,main,$_lm" ;;
	epilogues)	echo "epi_hot,epi_mid,sh_epilogues,main,$_lm" ;;
	prologue)	pro_chains "pro_driver,sh_prologue,main,$_lm" ;;
	esac
}

# Expected chain of a shape with the stock frame-pointer walk, for the
# same code without usable .sframe (shapes-nosframe, shapes-corrupt-*).
#
# x86-64: the walk reports the PC, then follows %rbp.  Our code never
# sets %rbp except where it needs a frame pointer (the VLA functions) or
# keeps a small integer in it (epi_mid); otherwise it holds what glibc
# 2.36's __libc_start_main left there, argc.  A small integer is not a
# readable address: the walk stops.  So a hot leaf without a frame gives
# the leaf alone; alloca_hot runs under alloca_mid's frame, whose record
# holds the return address into sh_alloca (alloca_mid itself is skipped);
# vlaleaf_hot sets %rbp itself, so its caller is found.
#
# arm64: the walk reports the PC, then follows x29 frame records.  Our
# code leaves x29 alone except in the VLA functions, so x29 is the frame
# record of glibc's __libc_start_call_main, which holds the return address
# into __libc_start_main, whose record holds the one into _start, whose
# x29 is 0.  All of our frames but the leaf (and those with a record) are
# skipped.  perf record -g also samples the link register on arm64, and
# perf 6.1 inserts it as the leaf's caller (get_leaf_frame_caller()), so
# the second frame is the leaf's caller; vlaleaf_hot's own frame record
# names that caller again (seen in the arm64 guest).
#
# Checked on the build host (validate-host.sh): x86-64 with perf record -g
# on the host kernel's stock walk, arm64 by emulating the walk in gdb on
# qemu-user; check-codegen.sh checks that the chain functions leave the
# frame pointer register alone.
#
# That is what these programs give with kernel.sframe_unwind=1: the
# kernel then uses no .eh_frame and falls back to the stock walk for an
# object without (usable) .sframe.  At 2 the same programs are unwound
# with tables from their .eh_frame: complete chains (the eh-* tests).
fp_chain() {
	if [ "$ARCH" = arm64 ]; then
		case "$1" in
		alloca)		echo "alloca_hot,alloca_mid,sh_alloca,$LIBC_SM,_start" ;;
		vlaleaf)	echo "vlaleaf_hot,sh_vlaleaf,sh_vlaleaf,$LIBC_SM,_start" ;;
		*)		echo "$(sframe_chain "$1" | cut -d, -f1-2),$LIBC_SM,_start" ;;
		esac
	else
		case "$1" in
		alloca)		echo "alloca_hot,sh_alloca" ;;
		# vlaleaf_hot sets up rbp itself: a sample before it has done
		# so sees the caller's rbp, any value without frame pointers,
		# and the stock walk ends at the leaf
		vlaleaf)	echo "vlaleaf_hot,?sh_vlaleaf" ;;
		*)		sframe_chain "$1" | sed 's/,.*//' ;;
		esac
	fi
}

# The shapes with one stock chain (fp_chain): prologue's depends on the
# step of the prologue the sample hits, so it has no nosframe test.
FP_SHAPES="leaf bigframe bigleaf alloca vlaleaf recurse noreturn epilogues"
SHAPES="$FP_SHAPES prologue"
CORRUPT="magic version unsorted nfdes fdeoff frelen trunc-hdr trunc-fre fde-freoff fde-order"
# The corrupt programs run a shape whose stock chain has two frames of
# ours: a kernel that accepted the section and then failed its lookup
# would report the leaf alone instead.
CORRUPT_SHAPE=alloca

# cpu_has FEATURE: /proc/cpuinfo lists FEATURE (arm64 "Features" line):
# the pointer authentication tests mean nothing if the CPU lacks it
# (the instructions are then NOPs and nothing is ever signed), and
# glibc's ifunc choices below depend on it.
CPUINFO=${SFT_CPUINFO:-/proc/cpuinfo}
cpu_has() {
	echo "grep Features $CPUINFO for $1" >>"$LOG"
	_f=$(grep -m1 '^Features' "$CPUINFO" 2>/dev/null)
	echo "# $_f" >>"$LOG"
	case " ${_f#*:} " in
	*" $1 "*) return 0 ;;
	esac
	echo "# the CPU does not report $1" >>"$LOG"
	return 1
}

# devzero_reads_nothing: mapexec.c maps /dev/zero executable at
# sframe_unwind=2; the kernel must not have tried to read it.
devzero_reads_nothing() {
	set_level 2
	"$T/mapexec" /dev/zero >>"$LOG" 2>&1 || return 4
	if dmesg | grep 'kernel read not supported' >>"$LOG"; then
		echo "# the kernel tried to read /dev/zero" >>"$LOG"
		return 1
	fi
	return 0
}

# TABLES, tables_stat FIELD, drop_idle_tables, stall_count, memcg_hostile
. "$T/tables-lib.sh"

# hostile_setup NAME: kernel.sframe_unwind=2, the kernel's account of its
# tables, and a new empty directory $TMPDIR/NAME in _d for hostile-map;
# returns 4 if the test cannot run
hostile_setup() {
	set_level 2
	[ -r "$TABLES" ] || { echo "# no $TABLES" >>"$LOG"; return 4; }
	_d=$TMPDIR/$1
	rm -rf "$_d" && mkdir "$_d" || return 4
}

# hostile_sparse: one process maps 8 files whose PT_GNU_SFRAME is 16 MiB
# of which 23 bytes are entries, the rest a hole (hostile-map.c), while a
# perf event wants user stacks: the kernel must refuse their sections,
# not keep 16 MiB of table per file.  The summary "# hostile ARCH: ..."
# gives what the tables grew by, the longest mmap() and the RCU stall and
# soft lockup reports of the kernel log.
HOSTILE_FILES=8
HOSTILE_MAX_KB=512
hostile_sparse() {
	hostile_setup hostile || return 4
	_s0=$(stall_count)
	"$T/wantstacks" "$T/hostile-map" "$_d" $HOSTILE_FILES >"$_d/out" 2>>"$LOG" ||
		{ rm -rf "$_d"; return 4; }
	_s1=$(stall_count)
	_l=$(sed -n 's/^hostile-map: //p' "$_d/out")
	rm -rf "$_d"
	echo "# hostile $ARCH: $_l, stalls $((_s1 - _s0))" >>"$LOG"
	_k=$(echo "$_l" | sed -n 's/.*peak \(-*[0-9]*\) kB.*/\1/p')
	[ -n "$_k" ] && [ "$_k" -le $HOSTILE_MAX_KB ] && [ "$_s1" = "$_s0" ] &&
		return 0
	echo "# the tables of $HOSTILE_FILES sparse files took $_k kB (at most $HOSTILE_MAX_KB), or the kernel stalled" >>"$LOG"
	return 1
}

# hostile_memcg: memcg_hostile (tables-lib.sh) with HOSTILE_MEMCG_FILES
# dense files in a cgroup of HOSTILE_MEMCG_MAX_KB, while a perf event
# wants user stacks.
HOSTILE_MEMCG_FILES=16
HOSTILE_MEMCG_MAX_KB=16384
hostile_memcg() {
	set_level 2
	memcg_hostile $HOSTILE_MEMCG_FILES $HOSTILE_MEMCG_MAX_KB "$T/wantstacks" \
		>>"$LOG" 2>&1
}

# mm_table_copies: one unprivileged process in a new memory cgroup maps
# one file MM_COPIES_MAPS times, one mapping after another (hostile-map
# -s), while a perf event wants user stacks.  Each mapping replaces the
# process's table of mappings with a copy one entry longer, charged to
# the cgroup; the old copies are freed after a grace period.  The table
# must hold every mapping (40 bytes each) and the cgroup's peak stay
# within MM_COPIES_MAX_KB: the copies of 2,000 mappings add up to 80 MB,
# and kvfree_rcu() kept hundreds of them charged at once.
MM_COPIES_MAPS=2000
MM_COPIES_MAX_KB=8192
mm_table_copies() {
	hostile_setup mm-copies || return 4
	_g=$(memcg_new sframe-copies 262144 2>>"$LOG") || return 4
	"$T/wantstacks" "$T/hostile-map" -s -c "$_g" -u 1000 "$_d" \
		$MM_COPIES_MAPS >"$_d/out" 2>>"$LOG"
	_rc=$?
	_l=$(sed -n 's/^hostile-map: //p' "$_d/out")
	_peak=$(($(cat "$_g/memory.peak" 2>/dev/null || echo 0) / 1024))
	rm -rf "$_d"
	rmdir "$_g"
	echo "# mm-table-copies $ARCH: $_l, cgroup peak $_peak kB" >>"$LOG"
	_k=$(echo "$_l" | sed -n 's/.*table \(-*[0-9]*\) kB.*/\1/p')
	[ "$_rc" = 0 ] && [ -n "$_k" ] &&
		[ "$_k" -ge $((MM_COPIES_MAPS * 40 / 1024)) ] &&
		[ "$_peak" -gt 0 ] && [ "$_peak" -le $MM_COPIES_MAX_KB ] &&
		return 0
	echo "# expected: a table of $MM_COPIES_MAPS mappings (at least $((MM_COPIES_MAPS * 40 / 1024)) kB) and a cgroup peak of at most $MM_COPIES_MAX_KB kB" >>"$LOG"
	return 1
}

# mm_table_off: a process (hostile-map -s -0, as root, while a perf event
# wants user stacks) maps one file MM_OFF_MAPS / 2 times, sets
# kernel.sframe_unwind to 0 and maps on: its next mapping drops its table
# of mappings, which the kernel frees at once, under mmap_lock.  The
# table must be gone at the end (hostile-map's "table" is what the
# kernel's per-mm tables grew by: nothing) and the level restored; the
# console's check of every run finds any lockdep or KASAN report.
MM_OFF_MAPS=400
mm_table_off() {
	hostile_setup mm-off || return 4
	"$T/wantstacks" "$T/hostile-map" -s -0 "$_d" $MM_OFF_MAPS \
		>"$_d/out" 2>>"$LOG"
	_rc=$?
	_l=$(sed -n 's/^hostile-map: //p' "$_d/out")
	rm -rf "$_d"
	_lv=$(cat "$SYSCTL")
	echo "# mm-table-off $ARCH: $_l, level $_lv after" >>"$LOG"
	_k=$(echo "$_l" | sed -n 's/.*table \(-*[0-9]*\) kB.*/\1/p')
	[ "$_rc" = 0 ] && [ -n "$_k" ] && [ "$_k" -le 0 ] && [ "$_lv" = 2 ] &&
		return 0
	echo "# expected: no table left (at most 0 kB) and kernel.sframe_unwind 2 again" >>"$LOG"
	return 1
}

# cache_chains: CHAIN_FILES files chosen so that their identities (inode
# number, device) fall in one chain of the cache's hash table as it was
# before patch 0036 (hostile-map -k: hash_long(ino ^ dev, 8), unkeyed),
# mapped while a perf event wants user stacks.  The files have no tables
# and are cached as such, idle once the process exits.  The cache keeps
# them all and no chain holds more than 32 files (debugfs longest_chain,
# which the kernel before 0036 does not have: there the chain held all of
# them).
CHAIN_FILES=64
cache_chains() {
	hostile_setup chains || return 4
	drop_idle_tables
	_f0=$(tables_stat idle_files)
	"$T/wantstacks" "$T/hostile-map" -k "$_d" $CHAIN_FILES >"$_d/out" \
		2>>"$LOG"
	_rc=$?
	_k=$(sed -n 's/^hostile-map: \(.*old hash.*\)/\1/p' "$_d/out")
	_c=$(tables_stat longest_chain)
	_f1=$(tables_stat idle_files)
	rm -rf "$_d"
	drop_idle_tables
	echo "# cache-chains $ARCH: $_k; idle files $((_f1 - _f0)) more, longest chain ${_c:-unknown}" >>"$LOG"
	[ "$_rc" = 0 ] && [ -n "$_c" ] && [ "$_c" -le 32 ] &&
		[ $((_f1 - _f0)) -ge $CHAIN_FILES ] && return 0
	echo "# expected: the $CHAIN_FILES files cached, idle, and a longest chain of at most 32" >>"$LOG"
	return 1
}

# tables_budget: kernel.sframe_tables_kb bounds the tables of all files,
# in use or idle.  With a budget of what the tables take now plus 256 KiB,
# big (1.1 MiB of .sframe) runs: its tables do not fit, the kernel keeps
# within the budget and counts the file as refused.
TABLES_KB=/proc/sys/kernel/sframe_tables_kb
tables_budget() {
	set_level 2
	[ -w "$TABLES_KB" ] || { echo "# no $TABLES_KB" >>"$LOG"; return 1; }
	_old=$(cat "$TABLES_KB")
	drop_idle_tables
	_a0=$(tables_stat all_bytes) _r0=$(tables_stat refused)
	_max=$((_a0 / 1024 + 256))
	echo $_max >"$TABLES_KB"
	_o=$TMPDIR/budget.out
	: >"$_o"
	"$T/wantstacks" "$T/big" wait >"$_o" 2>>"$LOG" &
	_pid=$!
	_n=0
	while ! grep -q ready "$_o" && [ $_n -lt 100 ]; do
		sleep 0.1
		_n=$((_n + 1))
	done
	_a1=$(tables_stat all_bytes) _r1=$(tables_stat refused)
	kill "$_pid" 2>/dev/null
	wait "$_pid" 2>/dev/null
	echo "$_old" >"$TABLES_KB"
	rm -f "$_o"
	echo "# budget $_max kB; tables of all files before big ${_a0:-none} bytes, while it ran ${_a1:-none}; refused ${_r0:-none} -> ${_r1:-none}" >>"$LOG"
	[ -n "$_a1" ] && [ "$_a1" -le $((_max * 1024)) ] && [ "$_r1" -gt "$_r0" ] &&
		return 0
	echo "# expected the tables within the budget and big's refused" >>"$LOG"
	return 1
}

# ondemand_idle: while nothing wants user stacks (no perf event with
# callchains, no BPF stack user, no ftrace userstacktrace), a program
# that execs and dlopen()s makes the kernel read no file and keep no
# table: while it runs the account has no more files than before, and
# no file was read.
ondemand_idle() {
	set_level 2
	[ -r "$TABLES" ] || { echo "# no $TABLES" >>"$LOG"; return 4; }
	if [ "$(tables_stat wanted)" = 1 ]; then
		echo "# something wants user stacks already:" >>"$LOG"
		cat "$TABLES" >>"$LOG"
		return 4
	fi
	_f0=$(tables_stat files) _b0=$(tables_stat builds)
	"$T/dso" dlopen 2000 >/dev/null &
	_pid=$!
	sleep 1
	_f1=$(tables_stat files)
	kill "$_pid" 2>/dev/null
	wait "$_pid" 2>/dev/null
	_b1=$(tables_stat builds)
	echo "# before: files $_f0, builds ${_b0:-none}; while dso ran (exec, dlopen): files $_f1; after: builds ${_b1:-none}" >>"$LOG"
	[ "$_f1" = "$_f0" ] && [ "$_b1" = "$_b0" ] && return 0
	echo "# the kernel read files or kept tables while nothing wanted user stacks" >>"$LOG"
	return 1
}

# ondemand_attach: a process started while nothing wanted user stacks,
# at kernel.sframe_unwind=1, gets complete chains through its own code
# and libc (tables from .eh_frame) once perf record -p attaches to it
# at 2: the first samples ask for its tables, which are made on its way
# back to user space; the samples of the first 10% of the recording are
# not checked.  The process runs far longer than the recording (killed
# after it): perf, whose start is slow under TCG, ends its workload with
# SIGTERM (and fails with 143) if the process it attached to exits first.
ondemand_attach() {
	set_level 1
	"$T/shapes" leaf 60000 >/dev/null &
	_pid=$!
	sleep 1
	set_level 2
	rm -f "$DATA" "$TXT"
	echo "perf record -e cpu-clock:u $FREQ -g -p $_pid -- sleep 1" >>"$LOG"
	# shellcheck disable=SC2086 # $FREQ is options
	$PERF record -q -e cpu-clock:u $FREQ -g -p "$_pid" -o "$DATA" \
		-- sleep 1 >>"$LOG" 2>&1
	_rc=$?
	kill "$_pid" 2>/dev/null
	wait "$_pid" 2>/dev/null
	[ $_rc -eq 0 ] || { echo "perf record failed: $_rc" >>"$LOG"; return 4; }
	$PERF script -i "$DATA" --time 10%-100% -F comm,tid,ip,sym,dso \
		--no-inline --no-demangle >"$TXT" 2>>"$LOG" || return 4
	awk -v expect="$(sframe_chain leaf "$LIBC_MAIN_FULL")" -v min="$MIN" \
		-v prefix=0 -f "$T/chaincheck.awk" "$TXT" >>"$LOG"
}

# drop_idle_tables: what memory pressure does to the cache of tables:
# drop_caches 2 runs the shrinkers (4 first: no kernel log line for it)
# cache_keeps: the tables of a program's files stay cached, idle, after
# it exits (while a perf event wants callchains, wantstacks): running it
# again reads no file; memory pressure gives them back.
CACHE_KB=/proc/sys/kernel/sframe_cache_kb
cache_keeps() {
	set_level 2
	[ -w "$CACHE_KB" ] || { echo "# no $CACHE_KB" >>"$LOG"; return 1; }
	drop_idle_tables
	_b0=$(tables_stat builds)
	"$T/wantstacks" "$T/big" exit >/dev/null || return 4
	_b1=$(tables_stat builds) _i1=$(tables_stat idle_files)
	"$T/wantstacks" "$T/big" exit >/dev/null || return 4
	_b2=$(tables_stat builds) _h2=$(tables_stat hits)
	drop_idle_tables
	_i3=$(tables_stat idle_files) _e3=$(tables_stat evictions)
	echo "# builds: before $_b0, after a run of big $_b1, after another $_b2; idle files after the first run $_i1, after drop_caches $_i3 (hits $_h2, evictions $_e3)" >>"$LOG"
	# big, libc.so.6 and ld.so: three files with tables
	[ "$_b1" -ge $((_b0 + 3)) ] && [ "$_i1" -ge 3 ] &&
		[ "$_b2" = "$_b1" ] && [ "$_i3" = 0 ] && return 0
	echo "# expected three files built once, kept idle, then given back" >>"$LOG"
	return 1
}

# Frames in Debian's libc and ld.so (libcall.c), named through libc6-dbg's
# debug files.  perf picks one name among aliases (util/symbol.c
# choose_best_symbol(): global, then fewer leading underscores, then the
# longest name): memcpy's ifunc variant is named __memmove_* on x86-64
# (the same code), free is cfree@GLIBC_<oldest>, __qsort_r __GI___qsort_r.
# The ifunc variants are those the guest selects: x86-64, QEMU's TCG
# "max" CPU has AVX2 but no AVX-512 (qemu-x86_64 -cpu max picks the same
# on the host); arm64, glibc picks __memcpy_sve when the kernel offers SVE
# (Debian's configuration has CONFIG_ARM64_SVE, the test kernel's does
# not), __memcpy_generic otherwise, and __strlen_generic when MTE is on,
# __strlen_asimd otherwise: read from the "Features" line of
# /proc/cpuinfo.  qsort() itself tail-calls __qsort_r.
if [ "$ARCH" = arm64 ]; then
	if cpu_has sve; then LC_MEMCPY=__memcpy_sve; else LC_MEMCPY=__memcpy_generic; fi
	if cpu_has mte; then LC_STRLEN=__strlen_generic; else LC_STRLEN=__strlen_asimd; fi
	LC_FREE=cfree@GLIBC_2.17
else
	LC_MEMCPY=__memmove_avx_unaligned_erms
	LC_STRLEN=__strlen_avx2
	LC_FREE=cfree@GLIBC_2.2.5
fi
# write(): perf names the code after the local alias of libc6-dbg's symbols
LC_WRITE=__GI___libc_write
# the signal trampoline: libc's on x86-64, the vDSO's on arm64
if [ "$ARCH" = arm64 ]; then
	LC_SIGTRAMP=__kernel_rt_sigreturn
else
	LC_SIGTRAMP=__restore_rt
fi
LC_QSORT=msort_with_tmp.part.0,__GI___qsort_r
# dlsym (libc) runs the lookup under _dlerror_run/_dl_catch_error, and
# do_sym calls ld.so's _dl_lookup_symbol_x through GLRO.
LC_DLSYM=_dl_lookup_symbol_x,do_sym,dlsym_doit,_dl_catch_exception,_dl_catch_error,_dlerror_run,dlsym@@GLIBC_2.34
# libstdc++ (Debian's, only its dynamic symbols): std::ostream::write
# (perf script --no-demangle: the mangled names, without the ", " of the
# demangled ones), and std::thread's execute_native_thread_routine, a
# static function perf cannot name (libstdc++.so.6 in the guest,
# libstdc++.so.6.0.30 on the host).
CXX_WRITE=_ZNSo5writeEPKcl
CXX_THREAD='[unknown]@libstdc++.so.6*'
# std::sort's insertion sort, instantiated in the program (not inlined)
CXX_INSSORT=_ZSt16__insertion_sortIPlN9__gnu_cxx5__ops15_Iter_comp_iterIPFbllEEEEvT_S7_T0_

# ---------------------------------------------------------------------
# The test list: every entry calls `t KIND NAME EXPECT PROG ARGS...`.
# KIND says at which kernel.sframe_unwind the test runs and which control
# reruns it (kind_level, CONTROLS):
#   sframe  unwound with the program's .sframe (and at 2 libc's frames from
#           tables built from its .eh_frame): runs at LEVEL, rerun at 0
#   eh      needs tables from .eh_frame (leaf or middle frames in Debian's
#           libc, ld.so or libstdc++, or a program without usable
#           .sframe): runs at 2, rerun at 1 (.sframe only)
#   stock   no usable .sframe: the stock frame-pointer walk, at 1
#   bad     SFrame data meets a bad stack: at LEVEL, no control
#   cpu     not a recording: PROG ARGS is a shell function that checks
#           the guest
# pac_chain SHAPE: sframe_chain of a pac-ret build.  vlaleaf_hot and
# pro_hot sign their link register (paciasp): perf inserts the signed
# value as the leaf's caller, an address it cannot resolve; the kernel's
# chain has the stripped one.  A sample on the leaf's first instruction,
# before paciasp, finds the link register equal to the kernel's second
# frame, and perf inserts nothing: the frame is optional ("?", see
# chaincheck.awk).  TCG takes interrupts at the start of translation
# blocks, so such samples are not rare: 1 of 577 in one CI run.
pac_chain() {
	case $1 in
	vlaleaf|prologue) sframe_chain $1 |
		sed -E 's/(^|;)([^,;]+),/\1\2,?[unknown]@[unknown],/g' ;;
	*) sframe_chain $1 ;;
	esac
}

# chain_tests KIND PREFIX DIR: the chain tests of the programs in DIR
# (shapes, threads, forks, dso), named PREFIX<name>.
chain_tests() {
	_k=$1 _p=$2 _d=$3 _vs="pie nopie static" _pvs="pac pac-static"
	# -s: the v3 builds are checked as PIE only (the v1 ones in all
	# three link modes)
	if [ $SHORT = 1 ] && [ "$_k" = v3 ]; then
		_vs=pie _pvs=pac
	fi
	for v in $_vs; do
		case $v in
		pie) p=shapes ;;
		*) p=shapes-$v ;;
		esac
		for s in $SHAPES; do
			t $_k "$_p$v-$s" "$(sframe_chain $s)" "$_d/$p" $s $MS
		done
	done
	if [ -x "$_d/shapes-pac" ]; then
		for v in $_pvs; do
			for s in $SHAPES; do
				t $_k "$_p$v-$s" "$(pac_chain $s)" "$_d/shapes-$v" $s $MS
			done
		done
	fi

	t $_k "${_p}threads" "ta_hot,ta_mid,ta_start,$LIBC_THREAD;tb_hot,tb_mid2,tb_mid1,tb_start,$LIBC_THREAD;tm_hot,tm_mid,main,$LIBC_MAIN" \
		"$_d/threads" $MS
	if [ -x "$_d/threads-pac" ]; then
		t $_k "${_p}threads-pac" "ta_hot,ta_mid,ta_start,$LIBC_THREAD;tb_hot,tb_mid2,tb_mid1,tb_start,$LIBC_THREAD;tm_hot,tm_mid,main,$LIBC_MAIN" \
			"$_d/threads-pac" $MS
	fi
	t $_k "${_p}fork" "fc_hot,fc_mid,fc_child,do_fork,main,$LIBC_MAIN;fp_hot,fp_mid,do_fork,main,$LIBC_MAIN" \
		"$_d/forks" fork $MS
	t $_k "${_p}orphan" "fo_hot,fo_mid,fo_grandchild,fo_child,do_orphan,main,$LIBC_MAIN" \
		"$_d/forks" orphan $MS
	t $_k "${_p}exec" "fe_hot,fe_mid,do_exec,main,$LIBC_MAIN;$(sframe_chain leaf)" \
		"$_d/forks" exec $MS "$_d/shapes-nopie" leaf $MS
	dso_tests $_k "${_p}dso" "$_d"
}

# dso_tests KIND NAME DIR: DIR/dso with its libraries (dso.c)
dso_tests() {
	t $1 "$2-lib" "lib_hot,lib_mid,lib_entry,do_lib,main,$LIBC_MAIN" \
		"$3/dso" lib $MS
	t $1 "$2-callback" "cb_hot,cb_mid,cb_entry,lib_call,do_callback,main,$LIBC_MAIN" \
		"$3/dso" callback $MS
	t $1 "$2-dlopen" "dl_hot,dl_mid,dl_entry,do_dlopen,main,$LIBC_MAIN" \
		"$3/dso" dlopen $MS
}

all_tests() {
	chain_tests sframe "" "$T"

	# Errors that may not last while the tables of a file are made
	# (inject.sh, fail_function on the kernel's reads of object files):
	# tables left incomplete by EIO are made again at the next update of
	# the mm's table; nothing made while reads fail with ERESTARTSYS is
	# cached for the next process.  Only on a kernel with the series and
	# CONFIG_FAIL_FUNCTION, and on x86_64 (kconfig-fragments/
	# debug-x86_64.config says why).
	if [ "$ARCH" = x86_64 ] && [ -z "${SFT_SYSCTL:-}" ] &&
	   [ -e /proc/sys/kernel/sframe_unwind ] &&
	   [ -d /sys/kernel/debug/fail_function ]; then
		t sframe inject-eio-retry "dl_hot,dl_mid,dl_entry,do_dlopen,main,$LIBC_MAIN" \
			"$T/inject.sh" retry "$T" $MS
		t sframe inject-erestartsys-nocache "dl_hot,dl_mid,dl_entry,do_dlopen,main,$LIBC_MAIN" \
			"$T/inject.sh" nocache "$T" $MS
	fi

	# SFrame v3 (binutils 2.46 and later): the same programs built by a
	# current binutils, processes that mix v1 and v3 objects, and
	# functions that realign their stack (x86-64: flexible FDEs).  At
	# kernel.sframe_unwind=1, .sframe only: tables from .eh_frame would
	# hide a v3 section the kernel cannot read, so the chains end at
	# main's caller and start_thread.
	if [ -d "$T/v3" ]; then
		_lm=$LIBC_MAIN _lt=$LIBC_THREAD
		LIBC_MAIN=${LIBC_MAIN_FULL%%,*} LIBC_THREAD=${LIBC_THREAD_FULL%%,*}
		chain_tests v3 v3- "$T/v3"
		dso_tests v3 v3-mix-v1prog-v3lib "$T/mix-v1v3"
		dso_tests v3 v3-mix-v3prog-v1lib "$T/mix-v3v1"
		t v3 v3-realign-mid "rl_hot,rl_outer,main,$LIBC_MAIN" \
			"$T/v3/realign" mid $MS
		t v3 v3-realign-leaf "rl_leaf,rl_driver,main,$LIBC_MAIN" \
			"$T/v3/realign" leaf $MS
		LIBC_MAIN=$_lm LIBC_THREAD=$_lt
	fi
	# SFrame v2 (binutils 2.41 to 2.45; here trixie's 2.44): the shapes
	# (and their pac-ret builds), threads and shared objects.
	if [ -d "$T/v2" ]; then
		_lm=$LIBC_MAIN _lt=$LIBC_THREAD
		LIBC_MAIN=${LIBC_MAIN_FULL%%,*} LIBC_THREAD=${LIBC_THREAD_FULL%%,*}
		# -s: on arm64 the pac-ret builds stand for both
		if [ $SHORT = 0 ] || [ ! -x "$T/v2/shapes-pac" ]; then
			for s in $SHAPES; do
				t v2 "v2-pie-$s" "$(sframe_chain $s)" "$T/v2/shapes" $s $MS
			done
		fi
		if [ -x "$T/v2/shapes-pac" ]; then
			for s in $SHAPES; do
				t v2 "v2-pac-$s" "$(pac_chain $s)" "$T/v2/shapes-pac" $s $MS
			done
		fi
		t v2 v2-threads "ta_hot,ta_mid,ta_start,$LIBC_THREAD;tb_hot,tb_mid2,tb_mid1,tb_start,$LIBC_THREAD;tm_hot,tm_mid,main,$LIBC_MAIN" \
			"$T/v2/threads" $MS
		dso_tests v2 v2-dso "$T/v2"
		LIBC_MAIN=$_lm LIBC_THREAD=$_lt
	fi

	if [ "$ARCH" = arm64 ]; then
		t cpu arm64-cpu-paca "Features: paca" cpu_has paca
	fi
	# A private executable mapping of /dev/zero: a file, but no object
	# to read (the kernel used to read it, and /dev/zero's read cannot
	# serve kernel_read(): "kernel read not supported" in the log).
	t cpu devzero-exec-reads-nothing "" devzero_reads_nothing
	t cpu hostile-sparse-sframe "" hostile_sparse
	t cpu hostile-memcg "" hostile_memcg
	t cpu mm-table-copies "" mm_table_copies
	t cpu mm-table-off "" mm_table_off
	t cpu cache-chains "" cache_chains
	t cpu tables-budget "" tables_budget
	# Tables only while something wants user stacks (ondemand_idle,
	# ondemand_attach).
	t cpu ondemand-idle-reads-nothing "" ondemand_idle
	t cpu ondemand-attach-late "$(sframe_chain leaf "$LIBC_MAIN_FULL")" \
		ondemand_attach
	t cpu cache-keeps-tables "" cache_keeps
	# A program rewritten in place within the clock tick in which its
	# tables were made keeps its inode change time (rewrite.c): the
	# kernel must not unwind the new program (libcall) with the tables
	# of the old one (shapes), which a mapping still holds.
	# (rewrite's own fprintf() before the exec copies with memcpy too:
	# a right chain of another process, ignored.)
	t eh cache-key-same-tick "$LC_MEMCPY,lc_memcpy,main,$LIBC_MAIN_FULL;!fprintf" \
		"$T/rewrite" "$T/shapes" "$T/libcall" "$TMPDIR/sft-rewritten" \
		memcpy $MS
	# A new file that reuses the inode number of a deleted one whose
	# tables are still cached (rewrite -i, on the ext2 file system of
	# ext2_scratch): the kernel must not unwind it with the old tables.
	t eh cache-key-inode-reuse "$LC_MEMCPY,lc_memcpy,main,$LIBC_MAIN_FULL;!fprintf" \
		"$T/rewrite" -i "$T/shapes" "$T/libcall" "$EXT2/sft-reused" \
		memcpy $MS

	# A garbage return address on the stack (garbage.c): a kernel
	# address ends the walk before it, an unmapped user address is
	# reported and ends it.  (On arm64 perf does not add the sampled
	# link register here: gar_hot's CFI has the return address on the
	# stack, which perf record -g does not copy.)
	t bad garbage-ra-kernel gar_hot "$T/garbage" kernel $MS
	t bad garbage-ra-low "gar_hot,[unknown]@[unknown]" "$T/garbage" low $MS

	for s in $FP_SHAPES; do
		t stock "nosframe-$s" "$(fp_chain $s)" "$T/shapes-nosframe" $s $MS
	done
	for c in $CORRUPT; do
		t stock "corrupt-$c" "$(fp_chain $CORRUPT_SHAPE)" \
			"$T/shapes-corrupt-$c" $CORRUPT_SHAPE $MS
	done

	# The same programs with tables from .eh_frame: complete chains
	# (an object whose .sframe is missing or unusable uses its
	# .eh_frame only).
	for s in $SHAPES; do
		t eh "eh-nosframe-$s" "$(sframe_chain $s "$LIBC_MAIN_FULL")" \
			"$T/shapes-nosframe" $s $MS
	done
	for c in $CORRUPT; do
		t eh "eh-corrupt-$c" "$(sframe_chain $CORRUPT_SHAPE "$LIBC_MAIN_FULL")" \
			"$T/shapes-corrupt-$c" $CORRUPT_SHAPE $MS
	done

	# Leaves and middle frames in libc and ld.so (libcall.c).
	t eh eh-libc-memcpy "$LC_MEMCPY,lc_memcpy,main,$LIBC_MAIN_FULL" \
		"$T/libcall" memcpy $MS
	t eh eh-libc-strlen "$LC_STRLEN,lc_strlen,main,$LIBC_MAIN_FULL" \
		"$T/libcall" strlen $MS
	# malloc and ld.so's do_lookup_x get a small share of the samples
	# of their loops (a CI run under TCG gave malloc 47 of 875 samples
	# in 1.2 s, under the 50 needed): they run 4 * MS, not MS.
	t eh eh-libc-malloc "malloc,lc_malloc,main,$LIBC_MAIN_FULL;_int_free,$LC_FREE,lc_malloc,main,$LIBC_MAIN_FULL" \
		"$T/libcall" malloc $((MS * 4))
	t eh eh-libc-qsort "qs_hot,qs_cmp,$LC_QSORT,lc_qsort,main,$LIBC_MAIN_FULL" \
		"$T/libcall" qsort $MS
	# (ld.so's start-up also runs do_lookup_x, before main: its samples,
	# which run under ld.so's _dl_start, or _dl_init called from
	# _dl_start_user, are not checked; ld.so's outermost frame is
	# _dl_start_user on x86-64 but _start on arm64, the name of the
	# program's _start).  LD_BIND_NOW: so does lazy binding, which
	# otherwise runs do_lookup_x at the first call of each function
	# through the PLT, from main, under _dl_runtime_resolve (a chain
	# that ends there: its CFA is kept in a register the tables cannot
	# name); one such sample in 518 failed a run on a fresh machine.
	t eh eh-ldso-dlsym "do_lookup_x,$LC_DLSYM,lc_dlsym,main,$LIBC_MAIN_FULL;!_dl_start|_dl_start_user" \
		env LD_BIND_NOW=1 "$T/libcall" dlsym $((MS * 4))

	# Hot code in a signal handler: the chain goes on through the
	# signal trampoline and the signal frame the kernel wrote to the
	# loop the signals interrupt (libcall.c), then to _start.
	t eh eh-signal-handler "sig_hot,sig_handler,$LC_SIGTRAMP,lc_signal,main,$LIBC_MAIN_FULL" \
		"$T/libcall" signal $MS

	# Code without CFI (libcall.c nocfi), in the shape of crtstuff's
	# __do_global_dtors_aux, which calls __cxa_finalize at exit: the
	# walk reports the return address into it and ends there, with no
	# caller made up from its frame pointer (README, "Limits").
	t sframe nocfi-ends "nc_hot,nc_driver,nc_frame" "$T/libcall" nocfi $MS

	# Other consumers of user stacks: a sample taken in system call
	# context (the write system call's tracepoint, as perf trace and
	# -e syscalls:... -g record them).  The chain starts at the task's
	# user registers, in libc's write, and goes on through the program.
	t eh consumer-syscall-write "$LC_WRITE,wr_deep,wr_mid,lc_write,main,$LIBC_MAIN_FULL" \
		@syscalls:sys_enter_write "$T/libcall" write $((MS / 6))
	# eBPF profilers (ustacks.c): a BPF program on cpu-clock samples
	# takes the user stack with bpf_get_stackid() (a stack map) or
	# bpf_get_stack().  The sampled leaves have their return address in
	# the link register on arm64 (leaf_hot, the prologue steps): perf's
	# tool adds that caller for perf events, for BPF the kernel must.
	t sframe consumer-bpf-stackid-leaf "$(sframe_chain leaf)" \
		@bpf-stackid "$T/shapes" leaf $MS
	t sframe consumer-bpf-stack-prologue "$(sframe_chain prologue)" \
		@bpf-stack "$T/shapes" prologue $MS
	t eh consumer-bpf-stackid-libc "$LC_MEMCPY,lc_memcpy,main,$LIBC_MAIN_FULL" \
		@bpf-stackid "$T/libcall" memcpy $MS
	# ftrace's options/userstacktrace on the write system call (at most
	# 8 entries: the whole chain).  arm64 6.1 has no user stack trace
	# support in ftrace.
	if [ "$ARCH" = x86_64 ]; then
		t eh consumer-ftrace-write "$LC_WRITE,wr_deep,wr_mid,lc_write,main,$LIBC_MAIN_FULL" \
			@ftrace:syscalls/sys_enter_write "$T/libcall" write $((MS / 6))
	fi

	# C++ (cxx.cc): std::sort is instantiated in the program (its
	# frames have .sframe); std::ostream::write and the thread start
	# routine are libstdc++'s own code.
	t sframe cxx-sort "cs_hot,cs_cmp,$CXX_INSSORT,cs_sort,main,$LIBC_MAIN" \
		"$T/cxx" sort $MS
	t eh eh-cxx-ostream "co_hot,_ZN5CoBuf6xsputnEPKcl,$CXX_WRITE,co_write,main,$LIBC_MAIN_FULL" \
		"$T/cxx" ostream $MS
	t eh eh-cxx-thread "ct_hot,ct_mid,ct_body,$CXX_THREAD,$LIBC_THREAD_FULL" \
		"$T/cxx" thread $MS
}

# kernel.sframe_unwind for a test of kind KIND
kind_level() {
	case "$1" in
	sframe|bad) echo "$LEVEL" ;;
	eh) echo 2 ;;
	v3|v2) echo 1 ;;
	stock) echo 1 ;;
	*) echo "" ;;
	esac
}

# The controls, KIND:LEVEL:TEST each: the tests of KIND rerun at LEVEL
# must all fail with a wrong chain for TEST to pass.
CONTROLS="sframe:0:control-sframe-off-truncates eh:1:control-eh-off-truncates v3:0:control-v3-off-truncates v2:0:control-v2-off-truncates"

selected() {
	_sel=1
	set -f		# the GLOBs are patterns, not file names
	for _g in $GLOB; do
		# shellcheck disable=SC2254 # _g is a pattern
		case "$1" in
		$_g) _sel=0; break ;;
		esac
	done
	set +f
	return $_sel
}

# ---------------------------------------------------------------------
# Running one test.

# Print a file as TAP diagnostics.
diag_file() {
	sed 's/^/# /' "$1"
}

# Choose the sampling option once: -F 1000, or a period if perf refuses.
FREQ="-F 1000"
probe_perf() {
	if ! $PERF record -q -e cpu-clock:u $FREQ -o "$DATA" -- true >"$LOG" 2>&1; then
		FREQ="-c 1000000"
		if ! $PERF record -q -e cpu-clock:u $FREQ -o "$DATA" -- true >"$LOG" 2>&1; then
			echo "# perf record does not work:"
			diag_file "$LOG"
			FREQ=
		fi
	fi
}

# stacks [@EVENT] PROG ARGS...: record the user stacks of PROG into $TXT
# (perf script's format); returns 0, or 4 if perf or the program failed.
# Samples of cpu-clock:u, or every hit of EVENT (a tracepoint: samples in
# the kernel, with the user chain from the task's user registers).  EVENT
# bpf-stackid, bpf-stack or ftrace:TRACEPOINT: the stacks come from
# ustacks.c instead of perf (a BPF program on cpu-clock samples of PROG
# with bpf_get_stackid() or bpf_get_stack(), or ftrace's userstacktrace on
# every hit of TRACEPOINT).  Diagnostics in $LOG.
stacks() {
	_ev=cpu-clock:u
	_per=$FREQ
	rm -f "$DATA" "$TXT"
	: >"$LOG"
	case $1 in
	@bpf-stackid|@bpf-stack|@ftrace:*)
		_m=${1#@}
		shift
		case $_m in
		bpf-*) set -- -m "${_m#bpf-}" -F 1000 "$@" ;;
		ftrace:*) set -- -m ftrace -e "${_m#ftrace:}" "$@" ;;
		esac
		echo "ustacks $*" >"$LOG"
		if ! "$T/ustacks" "$@" >"$TXT" 2>>"$LOG"; then
			echo "ustacks or the program failed" >>"$LOG"
			return 4
		fi
		return 0
		;;
	@*)
		# every event (perf 6.1 samples each tracepoint hit; -c is
		# not applied to them)
		_ev=${1#@}
		_per=
		shift
		;;
	esac
	if [ -z "$FREQ" ]; then
		echo "perf record unusable" >"$LOG"
		return 4
	fi
	echo "perf record -e $_ev $_per $CALLGRAPH -- $*" >>"$LOG"
	# shellcheck disable=SC2086 # $_per and $CALLGRAPH are options
	$PERF record -q -B -e "$_ev" $_per $CALLGRAPH -o "$DATA" -- "$@" \
		>>"$LOG" 2>&1
	_rc=$?
	if [ $_rc -ne 0 ]; then
		echo "perf record or the program failed: exit status $_rc" >>"$LOG"
		return 4
	fi
	if ! $PERF script -i "$DATA" -F comm,tid,ip,sym,dso --no-inline \
		--no-demangle >"$TXT" 2>>"$LOG"; then
		echo "perf script failed" >>"$LOG"
		return 4
	fi
}

# check EXPECT [@EVENT] PROG ARGS...: record (stacks) and check the
# chains against EXPECT; returns 0 pass, 1 wrong chain, 2 too few
# samples, 3 no samples, 4 perf or program failed.  Diagnostics in $LOG.
check() {
	_exp=$1
	shift
	stacks "$@" || return 4
	awk -v expect="$_exp" -v min="$MIN" -v prefix="$SFT_PREFIX" \
		-f "$T/chaincheck.awk" "$TXT" >>"$LOG"
}

NR=0
PASS=0
FAIL=0
V3_PASS=0
V3_FAIL=0
V2_PASS=0
V2_FAIL=0
CONS_PASS=0
CONS_FAIL=0

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

keep() {
	if [ $KEEP = 1 ]; then
		cp "$DATA" "$TMPDIR/sft-$1.data" 2>/dev/null
		cp "$TXT" "$TMPDIR/sft-$1.txt" 2>/dev/null
	fi
}

# set_level N: kernel.sframe_unwind=N, if there is the switch and N is
# not empty.
CUR_LEVEL=
set_level() {
	[ -n "$1" ] && [ -n "$ORIG" ] && [ "$1" != "$CUR_LEVEL" ] || return 0
	echo "$1" >"$SYSCTL"
	CUR_LEVEL=$1
}

# Main pass.
t_run() {
	_kind=$1
	_name=$2
	_exp=$3
	shift 3
	selected "$_name" || return 0
	set_level "$(kind_level "$_kind")"
	echo "# $_name: $*${CUR_LEVEL:+ (sframe_unwind=$CUR_LEVEL)}"
	if [ "$_kind" = cpu ]; then
		: >"$LOG"
		"$@"
	else
		check "$_exp" "$@"
	fi
	_res=$?
	case $_kind in
	v3) if [ $_res -eq 0 ]; then V3_PASS=$((V3_PASS + 1)); else V3_FAIL=$((V3_FAIL + 1)); fi ;;
	v2) if [ $_res -eq 0 ]; then V2_PASS=$((V2_PASS + 1)); else V2_FAIL=$((V2_FAIL + 1)); fi ;;
	esac
	case $_name in
	consumer-*)
		if [ $_res -eq 0 ]; then CONS_PASS=$((CONS_PASS + 1)); else CONS_FAIL=$((CONS_FAIL + 1)); fi ;;
	esac
	if [ $_res -eq 0 ]; then
		grep '^# ' "$LOG" | grep -v '^# [0-9]* samples in all'
		ok "$_name"
	else
		diag_file "$LOG" | sed 's/^# # /# /'
		keep "$_name"
		not_ok "$_name"
	fi
}

# Counting pass; KINDS: the kinds of the selected tests.
COUNT=0
KINDS=" "
t_count() {
	selected "$2" || return 0
	COUNT=$((COUNT + 1))
	case "$KINDS" in
	*" $1 "*) ;;
	*) KINDS="$KINDS$1 " ;;
	esac
}

# Control pass: the tests of kind CTL_KIND, at a level where they cannot
# pass, must all fail with a wrong chain (1).
CONTROL_BAD=0
CTL_KIND=
t_control() {
	_kind=$1
	_name=$2
	_exp=$3
	shift 3
	[ "$_kind" = "$CTL_KIND" ] || return 0
	selected "$_name" || return 0
	# -s: the first test of the kind and every CONTROL_STEP-th after it
	CTL_SEEN=$((CTL_SEEN + 1))
	[ $SHORT = 0 ] || [ $(((CTL_SEEN - 1) % CONTROL_STEP)) -eq 0 ] || return 0
	check "$_exp" "$@"
	_res=$?
	if [ $_res -eq 1 ]; then
		echo "# control: $_name fails as it should: $(grep -m1 '^# first different chain' "$LOG" | sed 's/^# first different chain: *//')"
	else
		CONTROL_BAD=$((CONTROL_BAD + 1))
		echo "# control: $_name: expected a wrong chain, got result $_res"
		diag_file "$LOG" | sed 's/^# # /# /'
	fi
}

# ---------------------------------------------------------------------

if [ $LIST = 1 ]; then
	t() {
		selected "$2" || return 0
		printf '%s\t%s\t%s\t' "$1" "$2" "$3"
		shift 3
		echo "$*"
	}
	all_tests
	exit 0
fi

# has_kind KIND: some selected test is of kind KIND
has_kind() {
	case "$KINDS" in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

# The programs of the oracle-* tests (oracle_run) and of the stock-*
# tests (stock_run): Debian's perl (an interpreter), lzip (C++), xz with
# two threads, coreutils' sort (memcmp through the PLT in its inner
# loop), and libcall's clock (the vDSO's clock_gettime in the hot path)
# and signal (the hot code in a signal handler).
ORACLE_PROGS="dso threads cxx libcall lua"
STOCK_PROGS="perl lzip xz sort clock signal"
PERL_SORT='$p = "x" x 256; @a = map { $p . (($_ * 7919) % 100000) } 0..99999; for (1..3) { $n = () = sort @a }'
# at least 995 of every 1000 samples of a stock program complete
STOCK_PERMILLE=995

# oracle_run NAME: the program of oracle-NAME under the oracle
oracle_run() {
	case $1 in
	dso) set -- dso "$T/dso" callback "$MS" ;;
	threads) set -- threads "$T/threads" "$MS" ;;
	cxx) set -- cxx "$T/cxx" sort "$MS" ;;
	libcall) set -- libcall "$T/libcall" qsort "$MS" ;;
	lua) set -- lua "$T/lua" "$T/nosframe.lua" 2 ;;
	esac
	_on=$1
	shift
	LD_BIND_NOW=1 "$T/oracle" -n "$_on" -- "$@"
}

# stock_input: the input of lzip, xz and sort, made once: 2.6 MB of lines
# that compress and sort with some work
stock_input() {
	[ -s "$TMPDIR/sft-stock.txt" ] && return 0
	awk 'BEGIN { for (i = 0; i < 60000; i++)
		printf "%d line %d of the input, %x\n", (i * 7919) % 100003, i % 977, i * 31 }' \
		>"$TMPDIR/sft-stock.txt"
}

# stock_run NAME: the program of stock-NAME under the oracle (-s).  With
# LD_BIND_NOW=1, as the oracle-* tests: the first call of each function
# through the PLT otherwise runs ld.so's lazy binding trampoline, which
# no table describes (README, "Limits"; one sample per program run).
# clock runs 4 * MS: a sample at exit, __cxa_finalize under crtstuff's
# __do_global_dtors_aux, which has no CFI (nocfi-ends), comes about once
# in two runs, and it failed the project's CI run on 2f8ba02, of 84 samples (then
# CLOCK_MONOTONIC, which the x86_64 guest's HPET makes a system call).
stock_run() {
	_in=$TMPDIR/sft-stock.txt
	case $1 in
	perl) set -- perl /usr/bin/perl -e "$PERL_SORT" ;;
	lzip) set -- lzip "$T/debian/lzip" -6 -c "$_in" ;;
	xz) set -- xz "$T/debian/xz" -T2 --block-size=512KiB -6 -c "$_in" ;;
	sort) set -- sort "$T/debian/sort" -o /dev/null "$_in" "$_in" ;;
	clock) set -- clock "$T/libcall" clock $((MS * 4)) ;;
	signal) set -- signal "$T/libcall" signal "$MS" ;;
	jit) set -- jit "$T/libcall" jit "$MS" ;;
	esac
	_on=$1
	shift
	LD_BIND_NOW=1 "$T/oracle" -s -u 3 -o /dev/null -n "$_on" -- "$@"
}

# oracle_report LOG SUM: show the oracle's output, add its counts to SUM
oracle_report() {
	sed -e '/^#/!s/^/# /' "$1"
	sed -n 's/^oracle [^:]*: \([0-9]*\) samples, \([0-9]*\) agree, \([0-9]*\) differ, \([0-9]*\) undecidable.*/\1 \2 \3 \4/p' "$1" >>"$2"
}

t() { t_count "$@"; }
all_tests
for _c in $CONTROLS; do
	has_kind "${_c%%:*}" && COUNT=$((COUNT + 1))
done
selected nosframe-complete && [ -x "$T/nosframe.sh" ] && COUNT=$((COUNT + 1))
if [ -x "$T/oracle" ] && [ -w "$SYSCTL" ]; then
	for _o in $ORACLE_PROGS; do
		selected "oracle-$_o" && COUNT=$((COUNT + 1))
	done
	for _o in $STOCK_PROGS; do
		selected "stock-$_o" && COUNT=$((COUNT + 1))
	done
	selected jit-frame-pointer && COUNT=$((COUNT + 1))
	selected control-oracle-stock-differs && COUNT=$((COUNT + 1))
fi
selected tables-shared && [ -x "$T/tables.sh" ] && [ -x "$T/big" ] && COUNT=$((COUNT + 1))
selected tables-1000 && [ -x "$T/big" ] && COUNT=$((COUNT + 1))
selected tables-off-reads-nothing && [ -x "$T/big" ] && [ -w "$SYSCTL" ] &&
	COUNT=$((COUNT + 1))

echo "TAP version 13"
echo "1..$COUNT"
echo "# arch $ARCH, $MS ms per chain, at least $MIN samples, $(uname -r)"
if [ -z "$(command -v "$PERF")" ]; then
	echo "# $PERF not found"
fi
probe_perf

ORIG=
if [ -w "$SYSCTL" ]; then
	ORIG=$(cat "$SYSCTL")
	echo "# $SYSCTL: was $ORIG; tests: sframe and bad at $LEVEL, eh at 2, v3, v2 and stock at 1"
else
	echo "# no $SYSCTL"
fi

# ext2_scratch: an ext2 file system on a loop device at $EXT2, for
# cache-key-inode-reuse (ext2 gives a new file the lowest free inode
# number; tmpfs never reuses one soon).  Without it the test fails.
ext2_scratch() {
	# mounted by an earlier run-tests.sh in this boot: keep it
	grep -q " $EXT2 ext2 " /proc/mounts && return 0
	mkdir -p "$EXT2"
	if dd if=/dev/zero of="$EXT2.img" bs=1024 count=8192 2>/dev/null &&
	   ext2_err=$(mke2fs -F "$EXT2.img" 2>&1 >/dev/null) &&
	   ext2_err=$(mount -t ext2 -o loop "$EXT2.img" "$EXT2" 2>&1); then
		return 0
	fi
	[ -n "${ext2_err:-}" ] && echo "$ext2_err" | sed 's/^/# /'
	echo "# no ext2 file system on a loop device at $EXT2 (CONFIG_BLK_DEV_LOOP, CONFIG_EXT2_FS)"
}
selected cache-key-inode-reuse && ext2_scratch

t() { t_run "$@"; }
all_tests

# control KIND:LEVEL:NAME: rerun the selected tests of KIND at LEVEL;
# NAME passes if every one of them fails with a wrong chain.
control() {
	set -- "${1%%:*}" "$(echo "$1" | cut -d: -f2)" "${1##*:}"
	if [ -z "$ORIG" ]; then
		echo "# control: no $SYSCTL, cannot set it to $2"
		not_ok "$3"
		return
	fi
	set_level "$2"
	echo "# control: $SYSCTL set to $2, rerunning the $1 tests"
	CTL_KIND=$1
	CTL_SEEN=0
	CONTROL_BAD=0
	t() { t_control "$@"; }
	all_tests
	if [ $CONTROL_BAD -eq 0 ]; then
		ok "$3"
	else
		echo "# control: $CONTROL_BAD $1 test(s) did not fail at sframe_unwind=$2"
		not_ok "$3"
	fi
}

for _c in $CONTROLS; do
	has_kind "${_c%%:*}" && control "$_c"
done
[ -n "$ORIG" ] && echo "$ORIG" >"$SYSCTL"

# One copy of the unwind tables per file, freed at exit (tables.sh).
if selected tables-shared && [ -x "$T/tables.sh" ] && [ -x "$T/big" ]; then
	if "$T/tables.sh"; then
		ok tables-shared
	else
		not_ok tables-shared
	fi
fi
# The same for 1,000 processes of a program with 1.1 MiB of .sframe, which
# must use at most 1.1 times the memory of one; the summary "# tables
# ARCH: ..." gives the kernel memory of the tables for 1 and for 1,000
# processes.
if selected tables-1000 && [ -x "$T/big" ]; then
	"$T/tables.sh" -n 999 -r 1.1 "$T/big" wait >"$TMPDIR/tables-1000.out"
	rc=$?
	cat "$TMPDIR/tables-1000.out"
	sed -n 's/^# tables: \(1 process [^;]*\);.*/# tables '"$ARCH"': \1/p' \
		"$TMPDIR/tables-1000.out"
	if [ $rc -eq 0 ]; then
		ok tables-1000
	else
		not_ok tables-1000
	fi
fi
# kernel.sframe_unwind=0 makes exec read nothing (no table is built).
if selected tables-off-reads-nothing && [ -x "$T/big" ] && [ -w "$SYSCTL" ]; then
	_l=$(cat "$SYSCTL")
	echo 0 >"$SYSCTL"
	if "$T/tables.sh" -0 "$T/big" wait; then
		ok tables-off-reads-nothing
	else
		not_ok tables-off-reads-nothing
	fi
	echo "$_l" >"$SYSCTL"
fi

# A real program mostly in libc and libm, without .sframe (nosframe.sh).
if selected nosframe-complete && [ -x "$T/nosframe.sh" ]; then
	if "$T/nosframe.sh" $([ $KEEP = 1 ] && echo -k); then
		ok nosframe-complete
	else
		not_ok nosframe-complete
	fi
fi

# The per-sample oracle (oracle.c): each sample's chain from the kernel
# against libdw's unwinding of the same sample's copy of the stack, for
# SFrame-built programs and Debian's own perl, at kernel.sframe_unwind=2.
# oracle-NAME fails if a sample differs.  With LD_BIND_NOW=1: the lazy
# binding trampoline of ld.so (_dl_runtime_resolve_*) keeps its CFA in a
# register, which no table can describe (README, "Limits").
# control-oracle-stock-differs: the stock walk (0) must differ.
if [ -x "$T/oracle" ] && [ -w "$SYSCTL" ]; then
	_l=$(cat "$SYSCTL")
	ORACLE_SUM=$TMPDIR/sft-oracle.sum
	: >"$ORACLE_SUM"
	echo 2 >"$SYSCTL"
	for _o in $ORACLE_PROGS; do
		selected "oracle-$_o" || continue
		if oracle_run "$_o" >"$LOG" 2>&1; then
			ok "oracle-$_o"
		else
			not_ok "oracle-$_o"
		fi
		oracle_report "$LOG" "$ORACLE_SUM"
	done
	STOCK_SUM=$TMPDIR/sft-stock.sum
	: >"$STOCK_SUM"
	for _o in $STOCK_PROGS; do
		selected "stock-$_o" || continue
		stock_input
		stock_run "$_o" >"$LOG" 2>&1
		_st=$?
		oracle_report "$LOG" "$ORACLE_SUM"
		_c=$(sed -n 's/^stock [^:]*: \([0-9]*\) samples, \([0-9]*\) complete, \([0-9]*\) wrong$/\1 \2 \3/p' "$LOG")
		echo "$_c" >>"$STOCK_SUM"
		# pass: no sample wrong or differing, enough complete
		if [ $_st = 0 ] && [ -n "$_c" ] &&
		   echo "$_c" | awk -v p=$STOCK_PERMILLE '{ exit !($1 > 0 && $2 * 1000 >= $1 * p) }'; then
			ok "stock-$_o"
		else
			echo "# stock-$_o: needs no wrong chain and $STOCK_PERMILLE/1000 complete"
			not_ok "stock-$_o"
		fi
	done
	# JIT code (libcall jit: a leaf in anonymous memory that keeps a
	# frame record, as JIT compilers do): walked by its frame pointer
	# up to the program's code, then with the tables (x86_64), or the
	# stock walk (arm64, and the frame records of Debian's code).
	if selected jit-frame-pointer; then
		stock_run jit >"$LOG" 2>&1
		_st=$?
		sed -e '/^#/!s/^/# /' "$LOG"
		_c=$(sed -n 's/^stock [^:]*: \([0-9]*\) samples, \([0-9]*\) complete, \([0-9]*\) wrong$/\1 \2 \3/p' "$LOG")
		[ -n "$_c" ] && echo "$_c" | awk -v arch="$ARCH" '{ printf "# jit %s: %d samples, %d complete, %d wrong\n", arch, $1, $2, $3 }'
		if [ $_st = 0 ] && [ -n "$_c" ] &&
		   echo "$_c" | awk -v p=$STOCK_PERMILLE '{ exit !($1 > 0 && $2 * 1000 >= $1 * p) }'; then
			ok jit-frame-pointer
		else
			echo "# jit-frame-pointer: needs no wrong chain and $STOCK_PERMILLE/1000 complete"
			not_ok jit-frame-pointer
		fi
	fi
	if selected control-oracle-stock-differs; then
		echo 0 >"$SYSCTL"
		oracle_run dso >"$LOG" 2>&1
		_st=$?
		grep -v '^#' "$LOG" | sed 's/^/# stock walk: /'
		if [ $_st = 1 ] && grep -q '^oracle dso: [0-9]* samples, [0-9]* agree, [1-9][0-9]* differ' "$LOG"; then
			ok control-oracle-stock-differs
		else
			not_ok control-oracle-stock-differs
		fi
	fi
	echo "$_l" >"$SYSCTL"
	if [ -s "$ORACLE_SUM" ]; then
		awk -v arch="$ARCH" '{ n += $1; a += $2; d += $3; u += $4 }
			END { printf "# oracle %s: %d samples, %d agree, %d differ, %d undecidable\n", arch, n, a, d, u }' "$ORACLE_SUM"
	fi
	if [ -s "$STOCK_SUM" ]; then
		awk -v arch="$ARCH" '{ n += $1; c += $2; w += $3 }
			END { printf "# stock %s: %d samples, %d complete, %d wrong\n", arch, n, c, w }' "$STOCK_SUM"
	fi
	rm -f "$ORACLE_SUM" "$STOCK_SUM" "$TMPDIR/sft-stock.txt"
fi

rm -f "$DATA" "$DATA.old" "$TXT" "$LOG"
if has_kind v3; then
	echo "# sframe-v3 $ARCH: $V3_PASS passed, $V3_FAIL failed"
fi
if has_kind v2; then
	echo "# sframe-v2 $ARCH: $V2_PASS passed, $V2_FAIL failed"
fi
if [ $((CONS_PASS + CONS_FAIL)) -gt 0 ]; then
	echo "# consumers $ARCH: $CONS_PASS passed, $CONS_FAIL failed"
fi
echo "# $PASS passed, $FAIL failed"
[ $FAIL -eq 0 ]
