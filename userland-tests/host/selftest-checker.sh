#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Host self-test of chaincheck.awk on synthetic `perf script -F
# comm,tid,ip,sym,dso` output: right chains pass, and a wrong chain, a
# missing frame, an extra frame, too few samples and no samples are all
# caught; and of make demo's fold.awk and flamegraph.py.  Runs with every awk found (awk, busybox awk) since the guest
# uses busybox's.
#
#   selftest-checker.sh
#
# Prints "N passed, N failed"; exits non-zero if any case failed.

HERE=$(cd "$(dirname "$0")" && pwd)
AWKPROG=$HERE/../guest/chaincheck.awk
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
PASS=0
FAIL=0
pass() { PASS=$((PASS + 1)); echo "ok: $*"; }
fail() { FAIL=$((FAIL + 1)); echo "FAILED: $*"; }

LIBC='__libc_start_call_main|[unknown]@libc.so.6'
EXP="leaf_hot,leaf_driver,sh_leaf,main,$LIBC"

# sample COMM TID FRAME... ; a FRAME is "sym@dso", sym may be [unknown]
sample() {
	printf '%s %s \n' "$1" "$2"
	shift 2
	_ip=4096
	for _f in "$@"; do
		_ip=$((_ip + 16))
		printf '\t    %12x %s (%s)\n' $_ip "${_f%@*}" "${_f##*@}"
	done
	printf '\n'
}

good() {
	sample shapes 100 leaf_hot@/tests/shapes leaf_driver@/tests/shapes \
		sh_leaf@/tests/shapes main@/tests/shapes \
		__libc_start_call_main@/usr/lib/x86_64-linux-gnu/libc.so.6
}

# libc without symbols
good_unknown() {
	sample shapes 100 leaf_hot@/tests/shapes leaf_driver@/tests/shapes \
		sh_leaf@/tests/shapes main@/tests/shapes \
		'[unknown]@/usr/lib/x86_64-linux-gnu/libc.so.6'
}

# Samples in other functions are ignored.
other() {
	sample shapes 100 timer_expired@/tests/shapes leaf_driver@/tests/shapes
	sample shapes 100 '[unknown]@[vdso]'
}

repeat() {
	_n=$1
	shift
	_i=0
	while [ $_i -lt "$_n" ]; do
		"$@"
		_i=$((_i + 1))
	done
}

# expect_rc NAME RC AWK EXPECT FILE [awk -v args...]
expect_rc() {
	_name=$1 _want=$2 _awk=$3 _exp=$4 _file=$5
	shift 5
	$_awk -v expect="$_exp" -v min=50 "$@" -f "$AWKPROG" "$_file" >"$TMP/out" 2>&1
	_got=$?
	if [ "$_got" = "$_want" ]; then
		pass "[$_awk] $_name (exit $_got)"
	else
		fail "[$_awk] $_name: exit $_got, expected $_want"
		sed 's/^/    /' "$TMP/out"
	fi
}

# Also check that the diagnostics name the wrong chain (fixed string).
expect_diag() {
	if grep -qF "$2" "$TMP/out"; then
		pass "$1"
	else
		fail "$1: no '$2' in:"
		sed 's/^/    /' "$TMP/out"
	fi
}

{ repeat 60 good; repeat 3 other; } >"$TMP/pass"
{ repeat 30 good; repeat 30 good_unknown; } >"$TMP/pass-unknown"
{ repeat 60 good
  sample shapes 100 leaf_hot@/tests/shapes sh_leaf@/tests/shapes \
	main@/tests/shapes __libc_start_call_main@/usr/lib/libc.so.6
} >"$TMP/missing"
{ repeat 60 good
  sample shapes 100 leaf_hot@/tests/shapes leaf_driver@/tests/shapes \
	sh_leaf@/tests/shapes main@/tests/shapes \
	__libc_start_call_main@/usr/lib/libc.so.6 _start@/tests/shapes
} >"$TMP/extra"
{ repeat 60 good
  sample shapes 100 leaf_hot@/tests/shapes leaf_driver@/tests/shapes \
	nr_next@/tests/shapes main@/tests/shapes \
	__libc_start_call_main@/usr/lib/libc.so.6
} >"$TMP/wrong"
# The stock walk of a frameless leaf: the leaf alone.
repeat 60 sample shapes 100 leaf_hot@/tests/shapes >"$TMP/truncated"
repeat 49 good >"$TMP/few"
: >"$TMP/empty"
# Inline frames (perf display only) are skipped; DWARF-style longer chains
# pass in prefix mode only.
{ repeat 60 sample shapes 100 leaf_hot@/tests/shapes \
	leaf_driver@/tests/shapes sh_leaf@/tests/shapes main@/tests/shapes \
	__libc_start_call_main@/usr/lib/libc.so.6 \
	__libc_start_main_impl@inlined _start@/tests/shapes
} >"$TMP/longer"
# Threads: every hot function needs its samples and its own chain.
ta() {
	sample threads 101 ta_hot@/tests/threads ta_mid@/tests/threads \
		ta_start@/tests/threads start_thread@/usr/lib/libc.so.6
}
tm() {
	sample threads 100 tm_hot@/tests/threads tm_mid@/tests/threads \
		main@/tests/threads __libc_start_call_main@/usr/lib/libc.so.6
}
{ repeat 55 ta; repeat 55 tm; } >"$TMP/threads"
{ repeat 55 ta; repeat 10 tm; } >"$TMP/threads-few"
# A thread's hot function under the other thread's chain.
{ repeat 55 ta; repeat 55 tm
  sample threads 101 ta_hot@/tests/threads tm_mid@/tests/threads \
	main@/tests/threads __libc_start_call_main@/usr/lib/libc.so.6
} >"$TMP/threads-cross"
TEXP="ta_hot,ta_mid,ta_start,start_thread|[unknown]@libc.so.6;tm_hot,tm_mid,main,$LIBC"
# arm64 stock walk: prefix alternatives.
repeat 60 sample shapes 100 leaf_hot@/tests/shapes \
	'__libc_start_main@@GLIBC_2.34@/usr/lib/aarch64-linux-gnu/libc.so.6' \
	_start@/tests/shapes >"$TMP/arm64-fp"
# Recursion: one frame too few.
R=recurse_hot
i=0
while [ $i -lt 50 ]; do R="$R,recurse"; i=$((i + 1)); done
R="$R,sh_recurse,main,$LIBC"
rec() {
	_rn=$1
	set -- recurse_hot@/tests/shapes
	_ri=0
	while [ $_ri -lt "$_rn" ]; do
		set -- "$@" recurse@/tests/shapes
		_ri=$((_ri + 1))
	done
	sample shapes 100 "$@" sh_recurse@/tests/shapes main@/tests/shapes \
		__libc_start_call_main@/usr/lib/libc.so.6
}
repeat 60 rec 50 >"$TMP/rec50"
{ repeat 60 rec 50; rec 49; } >"$TMP/rec49"
# A hot function of ld.so that also runs in ld.so's start-up, before
# main: those samples ("!_dl_start|_dl_start_user", a frame of theirs)
# are ignored, others are not.
DL="do_lookup_x,_dl_lookup_symbol_x,do_sym,lc_dlsym,main,$LIBC"
dl() {
	sample libcall 100 do_lookup_x@/usr/lib/ld.so _dl_lookup_symbol_x@/usr/lib/ld.so \
		do_sym@/usr/lib/libc.so.6 lc_dlsym@/tests/libcall main@/tests/libcall \
		__libc_start_call_main@/usr/lib/libc.so.6
}
dlstart() {
	sample libcall 100 do_lookup_x@/usr/lib/ld.so _dl_lookup_symbol_x@/usr/lib/ld.so \
		dl_main@/usr/lib/ld.so "$1@/usr/lib/ld.so" "$2@/usr/lib/ld.so"
}
# x86-64 (outermost _dl_start_user), arm64 (outermost _start)
{ repeat 60 dl; dlstart _dl_start _dl_start_user; dlstart _dl_start _start; } >"$TMP/dlstart"
{ repeat 60 dl; dlstart _dl_start _start; dlstart _dl_sysdep_start _start; } >"$TMP/dlstart-other"
# arm64 pac-ret: perf inserts the signed link register as the leaf's
# caller ([unknown]) except where the leaf has not signed it yet (its
# first instruction): "?FRAME" may be missing, nothing else may.
PAC="vl_hot,?[unknown]@[unknown],sh_vl,main,$LIBC"
pac() {
	set -- vl_hot@/tests/shapes "$@"
	sample shapes 100 "$@" sh_vl@/tests/shapes main@/tests/shapes \
		__libc_start_call_main@/usr/lib/libc.so.6
}
{ repeat 60 pac '[unknown]@[unknown]'; pac; } >"$TMP/pac"
{ repeat 60 pac '[unknown]@[unknown]'; pac main@/tests/shapes; } >"$TMP/pac-wrong"
{ repeat 60 pac '[unknown]@[unknown]'
  sample shapes 100 vl_hot@/tests/shapes '[unknown]@[unknown]' main@/tests/shapes \
	__libc_start_call_main@/usr/lib/libc.so.6
} >"$TMP/pac-missing"

AWKS="awk"
if command -v busybox >/dev/null 2>&1 && busybox awk 'BEGIN{}' 2>/dev/null; then
	AWKS="$AWKS busybox_awk"
	busybox_awk() { busybox awk "$@"; }
fi

for A in $AWKS; do
	expect_rc "right chains pass" 0 $A "$EXP" "$TMP/pass"
	expect_rc "libc without symbols matches [unknown]@libc.so.6" 0 $A "$EXP" "$TMP/pass-unknown"
	expect_rc "a missing frame is caught" 1 $A "$EXP" "$TMP/missing"
	expect_diag "diagnostic shows the chain missing a frame" \
		'# first different chain: leaf_hot,sh_leaf,main,__libc_start_call_main ('
	expect_rc "an extra frame is caught" 1 $A "$EXP" "$TMP/extra"
	expect_rc "a wrong frame is caught" 1 $A "$EXP" "$TMP/wrong"
	expect_diag "diagnostic shows the expected chain" "# expected chain:        $EXP"
	expect_rc "a truncated (stock) chain is caught" 1 $A "$EXP" "$TMP/truncated"
	expect_rc "the stock chain passes its own expectation" 0 $A "leaf_hot" "$TMP/truncated"
	expect_rc "too few samples" 2 $A "$EXP" "$TMP/few"
	expect_rc "no samples" 3 $A "$EXP" "$TMP/empty"
	expect_rc "longer chain fails in exact mode" 1 $A "$EXP" "$TMP/longer"
	expect_rc "longer chain passes in prefix mode, inline frames skipped" 0 $A "$EXP" "$TMP/longer" -v prefix=1
	expect_rc "threads: each chain" 0 $A "$TEXP" "$TMP/threads"
	expect_rc "threads: too few samples of one thread" 2 $A "$TEXP" "$TMP/threads-few"
	expect_rc "threads: a hot function under another chain" 1 $A "$TEXP" "$TMP/threads-cross"
	expect_rc "prefix alternative (arm64 stock walk)" 0 $A \
		'leaf_hot,__libc_start_main*|[unknown]@libc.so.6,_start' "$TMP/arm64-fp"
	expect_rc "50 recursive frames" 0 $A "$R" "$TMP/rec50"
	expect_rc "49 recursive frames are caught" 1 $A "$R" "$TMP/rec49"
	expect_rc "start-up samples fail without an ignore entry" 1 $A "$DL" "$TMP/dlstart"
	expect_rc "start-up samples are ignored (!_dl_start|_dl_start_user)" 0 $A "$DL;!_dl_start|_dl_start_user" "$TMP/dlstart"
	expect_rc "only samples with the named frames are ignored" 1 $A "$DL;!_dl_start|_dl_start_user" "$TMP/dlstart-other"
	expect_rc "an optional frame may be there or not" 0 $A "$PAC" "$TMP/pac"
	expect_rc "an optional frame does not match another frame" 1 $A "$PAC" "$TMP/pac-wrong"
	expect_rc "with an optional frame, a missing frame is caught" 1 $A "$PAC" "$TMP/pac-missing"
	expect_rc "without the '?', the missing optional frame is caught" 1 $A \
		"$(echo "$PAC" | sed 's/?//')" "$TMP/pac"
done

# fold.awk (make demo's flame graphs): perf script -F comm,ip,sym in,
# one line per distinct stack, root first, out; then flamegraph.py draws
# one box per frame of the merged tree.
{
	printf 'dso \n\t    1010 cb_hot\n\t    1020 cb_mid\n\t    1030 main\n\n'
	printf 'dso \n\t    1010 cb_hot\n\t    1020 cb_mid\n\t    1030 main\n\n'
	printf 'dso \n\t    1040 lib;call\n\t    1050 [unknown]\n\n'
	printf 'dso \n\t    1060\n\n'
} >"$TMP/script"
printf '%s\n' 'dso;[unknown] 1' 'dso;[unknown];lib:call 1' \
	'dso;main;cb_mid;cb_hot 2' >"$TMP/folded-want"
FG=$HERE/../../scripts/flamegraph.py
for A in $AWKS; do
	$A -f "$HERE/../guest/fold.awk" "$TMP/script" | sort >"$TMP/folded"
	if cmp -s "$TMP/folded" "$TMP/folded-want"; then
		pass "[$A] fold.awk folds stacks"
	else
		fail "[$A] fold.awk folds stacks:"
		diff "$TMP/folded-want" "$TMP/folded" | sed 's/^/    /'
	fi
done
# all, dso, [unknown], lib:call, main, cb_mid, cb_hot: 7 boxes
if [ -x "$FG" ] && command -v python3 >/dev/null 2>&1; then
	"$FG" test <"$TMP/folded-want" >"$TMP/fg.svg"
	n=$(grep -c '<rect x=.* rx=' "$TMP/fg.svg")
	if [ "$n" = 7 ] &&
	   grep -q '<title>cb_hot (2 samples, 50.00%)</title>' "$TMP/fg.svg"; then
		pass "flamegraph.py draws one box per frame"
	else
		fail "flamegraph.py: $n boxes, expected 7 (and cb_hot at 50%)"
	fi
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
