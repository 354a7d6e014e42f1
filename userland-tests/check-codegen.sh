#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Host-side checks of the test programs: that each has the .sframe data
# and the code generation its test relies on.
#
#   check-codegen.sh ARCH OUT
#
# ARCH is x86_64 or arm64, OUT the directory `make ARCH=... OUT=...` built.
# Uses objdump/readelf (binutils 2.40: objdump --sframe), nm, awk.
# Prints one line per check and "N passed, N failed"; exits non-zero if
# any check failed.

ARCH=$1
OUT=$2
if [ -z "$ARCH" ] || [ ! -d "$OUT" ]; then
	echo "usage: check-codegen.sh x86_64|arm64 OUT" >&2
	exit 2
fi
case "$ARCH" in
x86_64) CROSS= ;;
arm64) CROSS=aarch64-linux-gnu- ;;
*) echo "check-codegen.sh: unknown ARCH $ARCH" >&2; exit 2 ;;
esac
OBJDUMP=${OBJDUMP:-${CROSS}objdump}
READELF=${READELF:-${CROSS}readelf}
NM=${NM:-${CROSS}nm}

PASS=0
FAIL=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

pass() {
	PASS=$((PASS + 1))
	echo "ok: $*"
}

fail() {
	FAIL=$((FAIL + 1))
	echo "FAILED: $*"
}

# check DESCRIPTION COMMAND...
check() {
	_desc=$1
	shift
	if "$@"; then pass "$_desc"; else fail "$_desc"; fi
}

# Disassembly of one function: dis FILE FUNC (cached per file).
dis() {
	_f=$TMP/$(basename "$1").dis
	[ -f "$_f" ] || $OBJDUMP -d --no-show-raw-insn "$1" >"$_f"
	awk -v fn="$2" '
		$0 ~ "^[0-9a-f]+ <" fn ">:$" { on = 1; next }
		on && /^$/ { exit }
		on && /^ *[0-9a-f]+:/ { print }
	' "$_f"
}

# SFrame rows of the function starting at an address, "START CFA FP RA".
sframe_rows() {
	_f=$TMP/$(basename "$1").sframe
	[ -f "$_f" ] || $OBJDUMP --sframe=.sframe "$1" >"$_f" 2>&1
	awk -v pc="$2" '
		/func idx/ {
			on = 0
			if (match($0, /pc = 0x[0-9a-f]+/)) {
				a = substr($0, RSTART + 7, RLENGTH - 7)
				sub(/^0+/, "", a)
				on = (a == pc)
			}
			next
		}
		on && /^ *[0-9a-f]+ / { sub(/^0+/, "", $1); print }
	' "$_f"
}

# Address of a symbol (hex, no leading zeros) and its size (decimal).
sym_addr() {
	$NM "$1" | awk -v s="$2" '$3 == s && ($2 == "T" || $2 == "t") { sub(/^0+/, "", $1); print $1; exit }'
}

sym_size() {
	$NM -S "$1" | awk -v s="$2" '$4 == s { print strtonum_ok($2) }
		function strtonum_ok(h,   i, c, v) {
			v = 0
			h = tolower(h)
			for (i = 1; i <= length(h); i++) {
				c = index("0123456789abcdef", substr(h, i, 1)) - 1
				v = v * 16 + c
			}
			return v
		}'
}

hex2dec() {
	printf '%d' "0x$1"
}

# The SFrame row covering ADDR (hex) in the function at FUNC_ADDR.
row_at() {
	sframe_rows "$1" "$2" | awk -v a="$3" '
		function h2d(h,   i, c, v) {
			v = 0
			h = tolower(h)
			for (i = 1; i <= length(h); i++) {
				c = index("0123456789abcdef", substr(h, i, 1)) - 1
				v = v * 16 + c
			}
			return v
		}
		BEGIN { t = h2d(a) }
		h2d($1) <= t { r = $0 }
		END { print r }'
}

# Return address of the first call to CALLEE in FUNC (hex).
ra_of_call() {
	dis "$1" "$2" | awk -v c="$3" -v arch="$ARCH" '
		function h2d(h,   i, ch, v) {
			v = 0
			h = tolower(h)
			for (i = 1; i <= length(h); i++) {
				ch = index("0123456789abcdef", substr(h, i, 1)) - 1
				v = v * 16 + ch
			}
			return v
		}
		found { a = $1; sub(/:$/, "", a); print a; exit }
		$0 ~ "\t(call|bl)[[:space:]]+[0-9a-f]+ <" c ">$" { found = 1 }'
}

# Max CFA offset in a function's SFrame rows.
max_cfa() {
	sframe_rows "$1" "$2" | awk '{ c = $2; sub(/^(sp|fp)\+/, "", c); if (c + 0 > m) m = c + 0 } END { print m + 0 }'
}

# ---------------------------------------------------------------------

has_sframe_phdr() {
	$READELF -lW "$1" 2>/dev/null | grep -q 'GNU_SFRAME'
}

no_sframe() {
	! has_sframe_phdr "$1" && ! $READELF -SW "$1" | grep -q '\.sframe'
}

sframe_v1() {
	$OBJDUMP --sframe=.sframe "$1" 2>/dev/null | grep -q 'Version: SFRAME_VERSION_1'
}

# Every function of ours in FILE (listed) has an FDE.
covered() {
	_file=$1
	shift
	for _fn in "$@"; do
		_a=$(sym_addr "$_file" "$_fn")
		if [ -z "$_a" ]; then
			echo "  $_fn: no symbol"
			return 1
		fi
		if [ -z "$(sframe_rows "$_file" "$_a")" ]; then
			echo "  $_fn: no FDE"
			return 1
		fi
	done
}

# A hot leaf: no call, no stack adjustment, no register save.
frameless_leaf() {
	_d=$(dis "$1" "$2")
	[ -n "$_d" ] || return 1
	if [ "$ARCH" = x86_64 ]; then
		! echo "$_d" | grep -Eq '	(push|call|sub +[^,]*,%rsp|enter)'
	else
		! echo "$_d" | grep -Eq '	(stp|str|bl|blr|sub +sp|paciasp)[ 	]'
	fi
}

# A leaf: no call (any frame).
is_leaf() {
	_d=$(dis "$1" "$2")
	[ -n "$_d" ] || return 1
	if [ "$ARCH" = x86_64 ]; then
		! echo "$_d" | grep -Eq '	call'
	else
		! echo "$_d" | grep -Eq '	(bl|blr)[ 	]'
	fi
}

# CFA offset in some row of FUNC needs 4 bytes (> 32767).
big_cfa() {
	[ "$(max_cfa "$1" "$(sym_addr "$1" "$2")")" -gt 32767 ]
}

# The row covering the return address (minus one) of FUNC's call to
# CALLEE has an FP-based CFA.
fp_cfa_at_call() {
	_fa=$(sym_addr "$1" "$2")
	_ra=$(ra_of_call "$1" "$2" "$3")
	[ -n "$_ra" ] || return 1
	_r=$(row_at "$1" "$_fa" "$(printf '%x' $(($(hex2dec "$_ra") - 1)))")
	echo "  $2: row at call of $3: $_r"
	echo "$_r" | awk '{ exit !($2 ~ /^fp\+/) }'
}

# Some row of FUNC has an FP-based CFA.
fp_cfa_somewhere() {
	sframe_rows "$1" "$(sym_addr "$1" "$2")" | awk '$2 ~ /^fp\+/ { f = 1 } END { exit !f }'
}

# No listed function jumps to the start of a function (a tail call).
no_tail_calls() {
	_file=$1
	shift
	for _fn in "$@"; do
		if dis "$_file" "$_fn" | grep -Eq '	(jmp|b)[[:space:]]+[0-9a-f]+ <[^+>]+>$'; then
			echo "  tail call in $_fn"
			return 1
		fi
	done
}

calls() {
	_file=$1
	shift
	_f=$TMP/$(basename "$_file").dis
	[ -f "$_f" ] || $OBJDUMP -d --no-show-raw-insn "$_file" >"$_f"
	for _fn in "$@"; do
		if grep -Eq "	(jmp|b)[[:space:]]+[0-9a-f]+ <$_fn>\$" "$_f"; then
			echo "  tail call to $_fn"
			return 1
		fi
	done
}

calls() {
	dis "$1" "$2" | grep -Eq "	(call|bl)[[:space:]]+[0-9a-f]+ <$3>\$"
}

# nr_caller's last instruction is the call to nr_dead and nr_next starts
# right after it.
noreturn_layout() {
	_last=$(dis "$1" nr_caller | tail -n 1)
	echo "  last instruction of nr_caller: $(echo "$_last" | sed 's/^ *//')"
	echo "$_last" | grep -Eq "	(call|bl)[[:space:]]+[0-9a-f]+ <nr_dead>\$" || return 1
	_end=$(($(hex2dec "$(sym_addr "$1" nr_caller)") + $(sym_size "$1" nr_caller)))
	_next=$(hex2dec "$(sym_addr "$1" nr_next)")
	echo "  nr_caller ends at $(printf '%#x' $_end), nr_next starts at $(printf '%#x' $_next)"
	[ "$_end" -eq "$_next" ] || return 1
	# And the rules differ: nr_next's first row is not nr_caller's.
	_cr=$(row_at "$1" "$(sym_addr "$1" nr_caller)" "$(printf '%x' $((_end - 1)))")
	_nr=$(row_at "$1" "$(sym_addr "$1" nr_next)" "$(printf '%x' $_next)")
	echo "  row at ra-1: $_cr; row at ra: $_nr"
	[ "$(echo "$_cr" | awk '{print $2}')" != "$(echo "$_nr" | awk '{print $2}')" ]
}

# epi_mid: the call site of epi_hot comes after two return paths with
# different saved register sets, one that restores registers and one
# that restores nothing (shrink-wrapped), and the row at the call site
# has the full frame (the largest CFA offset of the function).
epilogues() {
	_fa=$(sym_addr "$1" epi_mid)
	_ra=$(ra_of_call "$1" epi_mid epi_hot)
	[ -n "$_ra" ] || return 1
	if [ "$ARCH" = x86_64 ]; then
		_restore='\t(pop)'
	else
		_restore='\t(ldp|ldr)[[:space:]]+x(19|2[0-9]|30),'
	fi
	_rets=$(dis "$1" epi_mid | awk -v ra="$_ra" -v re="$_restore" '
		function h2d(h,   i, c, v) {
			v = 0
			for (i = 1; i <= length(h); i++) {
				c = index("0123456789abcdef", substr(h, i, 1)) - 1
				v = v * 16 + c
			}
			return v
		}
		{ a = $1; sub(/:$/, "", a) }
		h2d(a) >= h2d(ra) { exit }
		$0 ~ re { r++ }
		/\tret/ { if (r) full++; else bare++; r = 0 }
		END { print full + 0, bare + 0 }')
	_r=$(row_at "$1" "$_fa" "$(printf '%x' $(($(hex2dec "$_ra") - 1)))")
	_max=$(max_cfa "$1" "$_fa")
	echo "  returns before the call site: $_rets (restoring, bare); row at call: $_r; max CFA $_max"
	set -- $_rets
	[ "$1" -ge 1 ] && [ "$2" -ge 1 ] &&
		echo "$_r" | awk -v m="$_max" '{ c = $2; sub(/^sp\+/, "", c); exit !(c + 0 == m) }'
}

# Functions of a chain that the stock walk's expectations assume leave
# the frame pointer register alone.
fp_untouched() {
	_file=$1
	shift
	if [ "$ARCH" = x86_64 ]; then _re='%[re]?bp'; else _re='x29|w29'; fi
	for _fn in "$@"; do
		if dis "$_file" "$_fn" | grep -Eq "$_re"; then
			echo "  $_fn uses the frame pointer register"
			return 1
		fi
	done
}

# main's caller: the return address of the indirect call in
# __libc_start_call_main (static binary: symbols available).
libc_main_caller() {
	_d=$(dis "$1" __libc_start_call_main)
	if [ "$ARCH" = x86_64 ]; then
		echo "$_d" | grep -Eq '	call +\*%rax'
	else
		echo "$_d" | grep -Eq '	blr	x[0-9]+'
	fi
}

# Same instruction sequence (mnemonics, in order) in two files: the
# variants differ in their data only.
mnemonics() {
	$OBJDUMP -d --no-show-raw-insn "$1" | awk -F '\t' '/^ *[0-9a-f]+:\t/ { split($2, m, " "); print m[1] }'
}

same_code() {
	mnemonics "$1" >"$TMP/m1"
	mnemonics "$2" >"$TMP/m2"
	cmp -s "$TMP/m1" "$TMP/m2"
}

pac_signed() {
	dis "$1" sh_leaf | grep -q 'paciasp' &&
		sframe_rows "$1" "$(sym_addr "$1" sh_leaf)" | grep -q '\[s\]'
}

# pro_hot's FREs have every step of its prologue (shapes.c): the rows
# "CFA RA" listed, in this order (RA "u": in the link register only;
# "[s]": signed, ignored here).
prologue_rows() {
	if [ "$ARCH" = x86_64 ]; then
		_want="sp+8:u sp+16:u sp+56:u fp+64:u"
	else
		_want="sp+0:u sp+32:u fp+16:c-8"
	fi
	_got=$(sframe_rows "$1" "$(sym_addr "$1" pro_hot)" |
		awk '{ r = $4; sub(/\[s\]$/, "", r); printf "%s%s:%s", n++ ? " " : "", $2, r }')
	echo "  pro_hot rows: $_got"
	echo " $_got " | awk -v w="$_want" '
		BEGIN { n = split(w, want, " ") }
		{ for (i = 1; i <= NF && k < n; i++) if ($i == want[k + 1]) k++ }
		END { exit !(k == n) }'
}

# With pac-ret, pro_hot's LR-only rows say the return address is signed.
prologue_signed() {
	sframe_rows "$1" "$(sym_addr "$1" pro_hot)" | awk '$2 == "sp+32" && $4 == "u[s]" { f = 1 } END { exit !f }'
}

# ---------------------------------------------------------------------

HOTS="leaf_hot bigframe_hot alloca_hot recurse_hot nr_hot epi_hot"
CHAIN_FNS="leaf_hot leaf_driver sh_leaf bigframe_hot bigframe_mid sh_bigframe
bigleaf_hot sh_bigleaf alloca_hot alloca_mid sh_alloca vlaleaf_hot
sh_vlaleaf recurse_hot recurse sh_recurse nr_hot nr_dead nr_caller
sh_noreturn epi_hot epi_mid sh_epilogues pro_hot pro_driver sh_prologue main"

SHAPES="shapes shapes-nopie shapes-static"
[ "$ARCH" = arm64 ] && SHAPES="$SHAPES shapes-pac shapes-pac-static"

for p in $SHAPES; do
	f=$OUT/$p
	check "$p: PT_GNU_SFRAME" has_sframe_phdr "$f"
	check "$p: SFrame v1" sframe_v1 "$f"
	check "$p: FDEs for all chain functions" covered "$f" $CHAIN_FNS
	for h in $HOTS; do
		check "$p: $h is a leaf without a frame" frameless_leaf "$f" $h
	done
	check "$p: bigframe_mid CFA offset > 32767" big_cfa "$f" bigframe_mid
	check "$p: bigleaf_hot is a leaf" is_leaf "$f" bigleaf_hot
	check "$p: bigleaf_hot CFA offset > 32767" big_cfa "$f" bigleaf_hot
	check "$p: alloca_mid CFA is FP-based at its call of alloca_hot" \
		fp_cfa_at_call "$f" alloca_mid alloca_hot
	check "$p: vlaleaf_hot is a leaf" is_leaf "$f" vlaleaf_hot
	check "$p: vlaleaf_hot has an FP-based CFA" fp_cfa_somewhere "$f" vlaleaf_hot
	check "$p: recurse calls itself" calls "$f" recurse recurse
	check "$p: noreturn call is nr_caller's last instruction, nr_next follows" \
		noreturn_layout "$f"
	check "$p: epi_mid has several return paths before the call site" \
		epilogues "$f"
	check "$p: pro_hot has a row for every step of its prologue" \
		prologue_rows "$f"
	check "$p: no tail calls to chain functions" no_tail_calls "$f" $CHAIN_FNS
	case $p in
	*static) check "$p: main is called from __libc_start_call_main" \
			libc_main_caller "$f" ;;
	esac
	case $p in
	*pac*) check "$p: return addresses signed, FREs say so" pac_signed "$f"
		check "$p: pro_hot signs LR before its frame exists" \
			prologue_signed "$f" ;;
	esac
done

f=$OUT/shapes-nosframe
check "shapes-nosframe: no .sframe, no PT_GNU_SFRAME" no_sframe "$f"
# The stock-walk expectations (run-tests.sh fp_chain) assume these never
# touch the frame pointer register; alloca_mid and vlaleaf_hot set it up
# as a frame pointer, epi_mid keeps a small integer in it (x86-64).
check "shapes-nosframe: chain functions leave the FP register alone" \
	fp_untouched "$f" leaf_hot leaf_driver sh_leaf bigframe_hot bigframe_mid \
	sh_bigframe bigleaf_hot sh_bigleaf alloca_hot sh_alloca sh_vlaleaf \
	recurse_hot recurse sh_recurse nr_hot nr_dead nr_caller sh_noreturn \
	epi_hot sh_epilogues main
check "shapes-nosframe: same instructions as shapes" same_code "$f" "$OUT/shapes"

for c in magic version unsorted nfdes fdeoff frelen trunc-hdr trunc-fre fde-freoff fde-order; do
	f=$OUT/shapes-corrupt-$c
	check "shapes-corrupt-$c: PT_GNU_SFRAME kept" has_sframe_phdr "$f"
	check "shapes-corrupt-$c: differs from shapes" sh -c "! cmp -s '$f' '$OUT/shapes'"
	check "shapes-corrupt-$c: same instructions as shapes" same_code "$f" "$OUT/shapes"
done

THREADS="threads"
[ "$ARCH" = arm64 ] && THREADS="$THREADS threads-pac"
for p in $THREADS; do
	f=$OUT/$p
	check "$p: PT_GNU_SFRAME" has_sframe_phdr "$f"
	check "$p: FDEs for all chain functions" covered "$f" \
		ta_hot ta_mid ta_start tb_hot tb_mid2 tb_mid1 tb_start tm_hot tm_mid main
	for h in ta_hot tb_hot tm_hot; do
		check "$p: $h is a leaf without a frame" frameless_leaf "$f" $h
	done
	check "$p: no tail calls to chain functions" no_tail_calls "$f" \
		ta_mid ta_start tb_mid2 tb_mid1 tb_start tm_mid
done

f=$OUT/forks
check "forks: PT_GNU_SFRAME" has_sframe_phdr "$f"
check "forks: FDEs for all chain functions" covered "$f" \
	fc_hot fc_mid fc_child do_fork fp_hot fp_mid fo_hot fo_mid \
	fo_grandchild fo_child do_orphan fe_hot fe_mid do_exec main
for h in fc_hot fp_hot fo_hot fe_hot; do
	check "forks: $h is a leaf without a frame" frameless_leaf "$f" $h
done
check "forks: no tail calls to chain functions" no_tail_calls "$f" \
	fc_mid fc_child do_fork fp_mid fo_mid fo_grandchild fo_child do_orphan \
	fe_mid do_exec

for p in dso libsfchain.so libsfdl.so; do
	check "$p: PT_GNU_SFRAME" has_sframe_phdr "$OUT/$p"
done
check "dso: FDEs for all chain functions" covered "$OUT/dso" \
	cb_hot cb_mid cb_entry do_lib do_callback do_dlopen main
check "libsfchain.so: FDEs for all chain functions" covered "$OUT/libsfchain.so" \
	lib_hot lib_mid lib_entry lib_call
check "libsfdl.so: FDEs for all chain functions" covered "$OUT/libsfdl.so" \
	dl_hot dl_mid dl_entry
check "dso: cb_hot is a leaf without a frame" frameless_leaf "$OUT/dso" cb_hot
check "libsfchain.so: lib_hot is a leaf without a frame" frameless_leaf "$OUT/libsfchain.so" lib_hot
check "libsfdl.so: dl_hot is a leaf without a frame" frameless_leaf "$OUT/libsfdl.so" dl_hot
check "dso: no tail calls" no_tail_calls "$OUT/dso" cb_mid cb_entry lib_entry lib_call do_lib do_callback
check "libsfchain.so: no tail calls" no_tail_calls "$OUT/libsfchain.so" lib_mid lib_entry
check "libsfdl.so: no tail calls" no_tail_calls "$OUT/libsfdl.so" dl_mid dl_entry

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
