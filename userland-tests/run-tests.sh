#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# SFrame user unwinder tests: perf record -g callchains of programs built
# with -fomit-frame-pointer -Wa,--gsframe must be complete.  Runs in the
# guest (busybox sh + awk, perf, root); prints TAP on stdout.
#
#   run-tests.sh [-m MS] [-n MIN] [-k] [-l] [GLOB]
#
#   -m MS   CPU time of each hot chain, in ms (default 600)
#   -n MIN  samples needed per hot function (default 50)
#   -k      keep the perf data and scripts of failed tests in $TMPDIR
#   -l      list the tests: KIND NAME EXPECTED-CHAINS COMMAND (tab separated)
#   GLOB    only run the tests whose name matches (shell pattern); the
#           control test runs when at least one SFrame test is selected
#
# Each test runs one program under
#   perf record -e cpu-clock:u -F 1000 -g -- PROG ARGS
# and checks `perf script -F comm,tid,ip,sym,dso` with chaincheck.awk:
# every sample whose leaf is a hot function must carry exactly the
# expected chain (leaf first), and each hot function needs MIN samples.
#
# Then, if /proc/sys/kernel/sframe_unwind exists, it is set to 0 (stock
# frame-pointer walk) and every SFrame test is run again, quietly: the
# test control-sframe-off-truncates passes only if every one of them now
# fails with a wrong chain, which shows that the SFrame tests can fail.
#
# Environment: PERF (perf binary), TMPDIR (default /tmp).  For host-side
# validation only: SFT_DWARF=1 records with --call-graph dwarf and
# compares chain prefixes (checks the expectations against perf's DWARF
# unwinder); SFT_SYSCTL=FILE stands in for the sysctl.

T=$(cd "$(dirname "$0")" && pwd)
PERF=${PERF:-perf}
TMPDIR=${TMPDIR:-/tmp}
MS=600
MIN=50
KEEP=0
LIST=0
GLOB='*'
SYSCTL=${SFT_SYSCTL:-/proc/sys/kernel/sframe_unwind}

while [ $# -gt 0 ]; do
	case "$1" in
	-m) MS=$2; shift 2 ;;
	-n) MIN=$2; shift 2 ;;
	-k) KEEP=1; shift ;;
	-l) LIST=1; shift ;;
	-h|--help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	-*) echo "run-tests.sh: unknown option $1" >&2; exit 2 ;;
	*) GLOB=$1; shift ;;
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

# Expected chain of a shape, with SFrame.
sframe_chain() {
	case "$1" in
	leaf)		echo "leaf_hot,leaf_driver,sh_leaf,main,$LIBC_MAIN" ;;
	bigframe)	echo "bigframe_hot,bigframe_mid,sh_bigframe,main,$LIBC_MAIN" ;;
	bigleaf)	echo "bigleaf_hot,sh_bigleaf,main,$LIBC_MAIN" ;;
	alloca)		echo "alloca_hot,alloca_mid,sh_alloca,main,$LIBC_MAIN" ;;
	vlaleaf)	echo "vlaleaf_hot,sh_vlaleaf,main,$LIBC_MAIN" ;;
	recurse)	echo "recurse_hot,$(rep recurse 50),sh_recurse,main,$LIBC_MAIN" ;;
	noreturn)	echo "nr_hot,nr_dead,$NR_CALLER,sh_noreturn,main,$LIBC_MAIN" ;;
	epilogues)	echo "epi_hot,epi_mid,sh_epilogues,main,$LIBC_MAIN" ;;
	prologue)	pro_chains "pro_driver,sh_prologue,main,$LIBC_MAIN" ;;
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
LIBC_SM='__libc_start_main*'
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
		vlaleaf)	echo "vlaleaf_hot,sh_vlaleaf" ;;
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

# ---------------------------------------------------------------------
# The test list: every entry calls `t KIND NAME EXPECT PROG ARGS...`.
# KIND is "sframe" (unwound with SFrame; rerun by the control), "stock"
# (unwound the stock way, with or without the switch), "bad" (SFrame data
# meets a bad stack: checked with the switch on only) or "cpu" (not a
# recording: PROG ARGS is a shell function that checks the guest).
all_tests() {
	for v in pie nopie static; do
		case $v in
		pie) p=shapes ;;
		*) p=shapes-$v ;;
		esac
		for s in $SHAPES; do
			t sframe "$v-$s" "$(sframe_chain $s)" "$T/$p" $s $MS
		done
	done
	if [ -x "$T/shapes-pac" ]; then
		for v in pac pac-static; do
			for s in $SHAPES; do
				e=$(sframe_chain $s)
				# vlaleaf_hot and pro_hot sign their link
				# register (paciasp): perf inserts the signed
				# value as the leaf's caller, an address it
				# cannot resolve; the kernel's chain has the
				# stripped one.
				case $s in
				vlaleaf|prologue) e=$(echo "$e" |
					sed -E 's/(^|;)([^,;]+),/\1\2,[unknown]@[unknown],/g') ;;
				esac
				t sframe "$v-$s" "$e" "$T/shapes-$v" $s $MS
			done
		done
	fi

	t sframe threads "ta_hot,ta_mid,ta_start,$LIBC_THREAD;tb_hot,tb_mid2,tb_mid1,tb_start,$LIBC_THREAD;tm_hot,tm_mid,main,$LIBC_MAIN" \
		"$T/threads" $MS
	if [ -x "$T/threads-pac" ]; then
		t sframe threads-pac "ta_hot,ta_mid,ta_start,$LIBC_THREAD;tb_hot,tb_mid2,tb_mid1,tb_start,$LIBC_THREAD;tm_hot,tm_mid,main,$LIBC_MAIN" \
			"$T/threads-pac" $MS
	fi
	t sframe fork "fc_hot,fc_mid,fc_child,do_fork,main,$LIBC_MAIN;fp_hot,fp_mid,do_fork,main,$LIBC_MAIN" \
		"$T/forks" fork $MS
	t sframe orphan "fo_hot,fo_mid,fo_grandchild,fo_child,do_orphan,main,$LIBC_MAIN" \
		"$T/forks" orphan $MS
	t sframe exec "fe_hot,fe_mid,do_exec,main,$LIBC_MAIN;$(sframe_chain leaf)" \
		"$T/forks" exec $MS "$T/shapes-nopie" leaf $MS
	t sframe dso-lib "lib_hot,lib_mid,lib_entry,do_lib,main,$LIBC_MAIN" \
		"$T/dso" lib $MS
	t sframe dso-callback "cb_hot,cb_mid,cb_entry,lib_call,do_callback,main,$LIBC_MAIN" \
		"$T/dso" callback $MS
	t sframe dso-dlopen "dl_hot,dl_mid,dl_entry,do_dlopen,main,$LIBC_MAIN" \
		"$T/dso" dlopen $MS

	if [ "$ARCH" = arm64 ]; then
		t cpu arm64-cpu-paca "Features: paca" cpu_has paca
	fi

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
}

selected() {
	# shellcheck disable=SC2254 # GLOB is a pattern
	case "$1" in
	$GLOB) return 0 ;;
	esac
	return 1
}

# ---------------------------------------------------------------------
# Running one test.

# cpu_has FEATURE: /proc/cpuinfo lists FEATURE (arm64 "Features" line):
# the pointer authentication tests mean nothing if the CPU lacks it
# (the instructions are then NOPs and nothing is ever signed).
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

# check EXPECT PROG ARGS...: record and check; returns 0 pass, 1 wrong
# chain, 2 too few samples, 3 no samples, 4 perf or program failed.
# Diagnostics in $LOG.
check() {
	_exp=$1
	shift
	rm -f "$DATA" "$TXT"
	: >"$LOG"
	if [ -z "$FREQ" ]; then
		echo "perf record unusable" >"$LOG"
		return 4
	fi
	echo "perf record -e cpu-clock:u $FREQ $CALLGRAPH -- $*" >>"$LOG"
	$PERF record -q -B -e cpu-clock:u $FREQ $CALLGRAPH -o "$DATA" -- "$@" \
		>>"$LOG" 2>&1
	_rc=$?
	if [ $_rc -ne 0 ]; then
		echo "perf record or the program failed: exit status $_rc" >>"$LOG"
		return 4
	fi
	if ! $PERF script -i "$DATA" -F comm,tid,ip,sym,dso --no-inline \
		>"$TXT" 2>>"$LOG"; then
		echo "perf script failed" >>"$LOG"
		return 4
	fi
	awk -v expect="$_exp" -v min="$MIN" -v prefix="$SFT_PREFIX" \
		-f "$T/chaincheck.awk" "$TXT" >>"$LOG"
}

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

keep() {
	if [ $KEEP = 1 ]; then
		cp "$DATA" "$TMPDIR/sft-$1.data" 2>/dev/null
		cp "$TXT" "$TMPDIR/sft-$1.txt" 2>/dev/null
	fi
}

# Main pass.
t_run() {
	_kind=$1
	_name=$2
	_exp=$3
	shift 3
	selected "$_name" || return 0
	echo "# $_name: $*"
	if [ "$_kind" = cpu ]; then
		: >"$LOG"
		"$@"
	else
		check "$_exp" "$@"
	fi
	_res=$?
	if [ $_res -eq 0 ]; then
		grep '^# ' "$LOG" | grep -v '^# [0-9]* samples in all'
		ok "$_name"
	else
		diag_file "$LOG" | sed 's/^# # /# /'
		keep "$_name"
		not_ok "$_name"
	fi
}

# Counting pass.
COUNT=0
t_count() {
	selected "$2" || return 0
	COUNT=$((COUNT + 1))
	[ "$1" = sframe ] && HAVE_SFRAME=1
}

# Control pass: SFrame tests with the switch off must all fail with a
# wrong chain (1).
CONTROL_BAD=0
t_control() {
	_kind=$1
	_name=$2
	_exp=$3
	shift 3
	[ "$_kind" = sframe ] || return 0
	selected "$_name" || return 0
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

HAVE_SFRAME=0
t() { t_count "$@"; }
all_tests
[ $HAVE_SFRAME = 1 ] && COUNT=$((COUNT + 1))

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
	echo 1 >"$SYSCTL"
	echo "# $SYSCTL: was $ORIG, set to 1"
else
	echo "# no $SYSCTL"
fi

t() { t_run "$@"; }
all_tests

if [ $HAVE_SFRAME = 1 ]; then
	if [ -n "$ORIG" ]; then
		echo 0 >"$SYSCTL"
		echo "# control: $SYSCTL set to 0, rerunning the SFrame tests"
		t() { t_control "$@"; }
		all_tests
		echo 1 >"$SYSCTL"
		if [ $CONTROL_BAD -eq 0 ]; then
			ok control-sframe-off-truncates
		else
			echo "# control: $CONTROL_BAD SFrame test(s) did not fail with the switch off"
			not_ok control-sframe-off-truncates
		fi
		echo "$ORIG" >"$SYSCTL"
	else
		echo "# control: no $SYSCTL, cannot turn SFrame unwinding off"
		not_ok control-sframe-off-truncates
	fi
fi

rm -f "$DATA" "$DATA.old" "$TXT" "$LOG"
echo "# $PASS passed, $FAIL failed"
[ $FAIL -eq 0 ]
