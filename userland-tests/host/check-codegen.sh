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

# awk: the value of a hexadecimal string without 0x (mawk has no strtonum).
AWK_H2D='
function h2d(h,   i, v) {
	v = 0
	h = tolower(h)
	for (i = 1; i <= length(h); i++)
		v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
	return v
}
'
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
	$NM "$1" | awk -v s="$2" '$3 == s && $2 ~ /^[TtWw]$/ { sub(/^0+/, "", $1); print $1; exit }'
}

sym_size() {
	$NM -S "$1" | awk -v s="$2" "$AWK_H2D"'$4 == s { print h2d($2) }'
}

hex2dec() {
	printf '%d' "0x$1"
}

# The SFrame row covering ADDR (hex) in the function at FUNC_ADDR.
row_at() {
	sframe_rows "$1" "$2" | awk -v a="$3" "$AWK_H2D"'
		BEGIN { t = h2d(a) }
		h2d($1) <= t { r = $0 }
		END { print r }'
}

# Return address of the first call to CALLEE in FUNC (hex).
ra_of_call() {
	dis "$1" "$2" | awk -v c="$3" -v arch="$ARCH" "$AWK_H2D"'
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

# No function of FILE listed has an FDE, in .sframe or .eh_frame.
uncovered() {
	_file=$1
	shift
	for _fn in "$@"; do
		_a=$(sym_addr "$_file" "$_fn")
		if [ -z "$_a" ] || [ -n "$(sframe_rows "$_file" "$_a")" ]; then
			echo "  $_fn: no symbol, or an SFrame FDE"
			return 1
		fi
		if $READELF --debug-dump=frames "$_file" 2>/dev/null | awk -v a="$_a" "$AWK_H2D"'
			/ FDE / && match($0, /pc=[0-9a-f]+\.\.[0-9a-f]+/) {
				split(substr($0, RSTART + 3, RLENGTH - 3), r, /\.\./)
				if (h2d(a) >= h2d(r[1]) && h2d(a) < h2d(r[2])) found = 1
			}
			END { exit !found }'; then
			echo "  $_fn: an .eh_frame FDE"
			return 1
		fi
	done
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
	_rets=$(dis "$1" epi_mid | awk -v ra="$_ra" -v re="$_restore" "$AWK_H2D"'
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


# CALLEE is called indirectly from FUNC (call *%reg, blr)
calls_indirect() {
	dis "$1" "$2" | grep -Eq '	(call +\*|blr[[:space:]])'
}

# FUNC jumps somewhere (jmp, b, br) as its last instruction before any
# padding: a tail call
tail_jumps() {
	dis "$1" "$2" | grep -Ev '	(nop|cs nop|xchg +%ax,%ax|data16)' | tail -n 1 |
		grep -Eq '	(jmp|b|br)[[:space:]]'
}

# ra_undefined FILE ADDR: the .eh_frame FDE covering ADDR (hex), or its
# CIE, marks the return address undefined: the outermost frame
ra_undefined() {
	[ -n "$2" ] || return 1
	$READELF --debug-dump=frames "$1" 2>/dev/null | awk -v a="$2" -v arch="$ARCH" "$AWK_H2D"'
		BEGIN { t = h2d(a); ra = arch == "x86_64" ? "r16" : "r30" }
		/ CIE/ { cur = $1; fde = 0; next }
		/ FDE / {
			split($NF, r, /[=.]+/)
			fde = (h2d(r[2]) <= t && t < h2d(r[3]))
			c = $5; sub(/^cie=/, "", c)
			if (fde) { hit = 1; cie = c }
			next
		}
		/DW_CFA_undefined: / && $2 == ra {
			if (fde) undef = 1
			else cieundef[cur] = 1
		}
		END { exit !(hit && (undef || cieundef[cie])) }'
}

# ---------------------------------------------------------------------
# Chains through Debian's libc, ld.so and libstdc++ (libcall, cxx; the
# eh-* tests): the program's side here, the library side below.

f=$OUT/libcall
check "libcall: PT_GNU_SFRAME" has_sframe_phdr "$f"
check "libcall: FDEs for all chain functions" covered "$f" \
	lc_memcpy lc_strlen lc_malloc qs_hot qs_cmp lc_qsort lc_dlsym \
	wr_deep wr_mid lc_write sig_hot sig_handler lc_signal main
check "libcall: no table covers nc_frame" uncovered "$f" nc_frame
check "libcall: qs_hot is a leaf without a frame" frameless_leaf "$f" qs_hot
check "libcall: sig_hot is a leaf without a frame" frameless_leaf "$f" sig_hot
check "libcall: no tail calls" no_tail_calls "$f" lc_memcpy lc_strlen \
	lc_malloc qs_cmp lc_qsort lc_dlsym wr_deep wr_mid lc_write sig_handler
# The leaf or middle frame must be libc's: real calls through the PLT,
# not inlined copies.
check "libcall: lc_memcpy calls memcpy in libc" calls "$f" lc_memcpy 'memcpy@plt'
check "libcall: lc_strlen calls strlen in libc" calls "$f" lc_strlen 'strlen@plt'
check "libcall: lc_malloc calls malloc in libc" calls "$f" lc_malloc 'malloc@plt'
check "libcall: lc_malloc calls free in libc" calls "$f" lc_malloc 'free@plt'
check "libcall: lc_qsort calls qsort in libc" calls "$f" lc_qsort 'qsort@plt'
check "libcall: qs_cmp calls qs_hot" calls "$f" qs_cmp qs_hot
check "libcall: sig_handler calls sig_hot" calls "$f" sig_handler sig_hot
check "libcall: lc_dlsym calls dlsym in libc" calls "$f" lc_dlsym 'dlsym@plt'
check "libcall: wr_deep calls write in libc" calls "$f" wr_deep 'write@plt'
check "libcall: wr_mid calls wr_deep" calls "$f" wr_mid wr_deep
check "libcall: lc_write calls wr_mid" calls "$f" lc_write wr_mid
check "libcall: _start is the outermost frame (CFI: return address undefined)" \
	ra_undefined "$f" "$(sym_addr "$f" _start)"

f=$OUT/cxx
CXX_RUN=_ZNSt6thread11_State_implINS_8_InvokerISt5tupleIJPFvvEEEEEE6_M_runEv
CXX_INSSORT=_ZSt16__insertion_sortIPlN9__gnu_cxx5__ops15_Iter_comp_iterIPFbllEEEEvT_S7_T0_
check "cxx: PT_GNU_SFRAME" has_sframe_phdr "$f"
check "cxx: FDEs for all chain functions" covered "$f" \
	cs_hot cs_cmp cs_sort "$CXX_INSSORT" co_hot _ZN5CoBuf6xsputnEPKcl \
	co_write ct_hot ct_mid ct_body main
for h in cs_hot co_hot ct_hot; do
	check "cxx: $h is a leaf without a frame" frameless_leaf "$f" $h
done
check "cxx: no tail calls" no_tail_calls "$f" cs_cmp cs_sort \
	_ZN5CoBuf6xsputnEPKcl ct_mid ct_body
# std::sort of two elements: its insertion sort is a function of its own
# that calls the comparator (indirectly, through the pointer)
check "cxx: cs_sort calls std::__insertion_sort" calls "$f" cs_sort "$CXX_INSSORT"
check "cxx: std::__insertion_sort calls the comparator indirectly" \
	calls_indirect "$f" "$CXX_INSSORT"
check "cxx: cs_cmp calls cs_hot" calls "$f" cs_cmp cs_hot
check "cxx: CoBuf::xsputn calls co_hot" calls "$f" _ZN5CoBuf6xsputnEPKcl co_hot
check "cxx: co_write calls std::ostream::write in libstdc++" calls "$f" co_write '_ZNSo5writeEPKcl@plt'
# std::thread's _M_run jumps to ct_body: no frame of its own in the chain
check "cxx: std::thread's _M_run tail-calls the thread function" \
	tail_jumps "$f" "$CXX_RUN"
check "cxx: ct_body calls ct_mid" calls "$f" ct_body ct_mid

# The library side, in the guest's libraries (x86-64: the host's, arm64:
# Debian's arm64 packages, scripts/fetch-arm64-debs.sh), with the names
# from libc6-dbg's debug files.
if [ "$ARCH" = x86_64 ]; then
	SYSROOT=${SYSROOT:-/}
	LIBDIR=lib/x86_64-linux-gnu
	LDSO=lib64/ld-linux-x86-64.so.2
	MEMCPY=__memmove_avx_unaligned_erms
	STRLEN=__strlen_avx2
	THREAD_START=clone3
else
	SYSROOT=${SYSROOT:-$("$(dirname "$0")/../../scripts/fetch-arm64-debs.sh")}
	LIBDIR=lib/aarch64-linux-gnu
	LDSO=lib/ld-linux-aarch64.so.1
	MEMCPY=__memcpy_generic
	STRLEN=__strlen_asimd
	THREAD_START=thread_start
fi
LIBC=${SYSROOT%/}/$LIBDIR/libc.so.6
LD=${SYSROOT%/}/$LDSO

# The separate debug file of a library (libc6-dbg), by build ID.
debug_file() {
	_b=$($READELF -nW "$1" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
	echo "${SYSROOT%/}/usr/lib/debug/.build-id/$(echo "$_b" | cut -c1-2)/$(echo "$_b" | cut -c3-).debug"
}

# Disassembly of a library function named in its debug file:
# lib_dis LIB FUNC
lib_dis() {
	_d=$(debug_file "$1")
	set -- "$1" "$2" $($NM -S "$_d" | awk -v s="$2" '$4 == s { print $1, $2; exit }')
	[ -n "$3" ] || return 1
	$OBJDUMP -d --no-show-raw-insn --start-address=0x$3 \
		--stop-address=$(printf '%#x' $((0x$3 + 0x$4))) "$1" |
		grep -E '^ *[0-9a-f]+:'
}

lib_addr() {
	$NM "$(debug_file "$1")" | awk -v s="$2" '$3 == s { sub(/^0+/, "", $1); print $1; exit }'
}

# lib_calls LIB FROM TO: FROM calls TO; lib_jumps: FROM jumps to TO (a
# tail call: no frame of FROM's in the chain)
lib_calls() {
	_t=$(lib_addr "$1" "$3")
	[ -n "$_t" ] && lib_dis "$1" "$2" | grep -Eq "	(call|bl)[[:space:]]+$_t <"
}

lib_jumps() {
	_t=$(lib_addr "$1" "$3")
	[ -n "$_t" ] && lib_dis "$1" "$2" | grep -Eq "	(jmp|b)[[:space:]]+$_t <"
}

lib_calls_indirect() {
	lib_dis "$1" "$2" | grep -Eq '	(call +\*|blr[[:space:]])'
}

lib_has() {
	_l=$1
	shift
	for _s in "$@"; do
		[ -n "$(lib_addr "$_l" "$_s")" ] || return 1
	done
}

# The return address of the indirect call (the thread function's) in the
# child path of clone3 (x86-64) or clone's thread_start (arm64), minus 1.
lib_child_ra() {
	lib_dis "$LIBC" "$THREAD_START" | awk '
		found { a = $1; sub(/:$/, "", a); print a; exit }
		/\t(call +\*|blr[[:space:]])/ { found = 1 }' |
		{ read -r _a && printf '%x' $((0x$_a - 1)); }
}

check "libc: libc6-dbg's debug file there" test -f "$(debug_file "$LIBC")"
check "ld.so: libc6-dbg's debug file there" test -f "$(debug_file "$LD")"
check "libc: the ifunc variants QEMU's CPU selects ($MEMCPY, $STRLEN) exist" \
	lib_has "$LIBC" "$MEMCPY" "$STRLEN"
check "libc: qsort tail-calls __qsort_r" lib_jumps "$LIBC" qsort __qsort_r
check "libc: __qsort_r calls msort_with_tmp.part.0" \
	lib_calls "$LIBC" __qsort_r msort_with_tmp.part.0
check "libc: msort_with_tmp.part.0 calls the comparator indirectly" \
	lib_calls_indirect "$LIBC" msort_with_tmp.part.0
check "libc: free calls _int_free" lib_calls "$LIBC" __libc_free _int_free
check "libc: dlsym calls _dlerror_run" lib_calls "$LIBC" ___dlsym _dlerror_run
# (through GLRO(dl_catch_error): an indirect call)
check "libc: _dlerror_run calls _dl_catch_error indirectly" \
	lib_calls_indirect "$LIBC" _dlerror_run
check "libc: _dl_catch_error calls _dl_catch_exception" \
	lib_calls "$LIBC" _dl_catch_error _dl_catch_exception
check "libc: _dl_catch_exception calls its operation indirectly" \
	lib_calls_indirect "$LIBC" _dl_catch_exception
check "libc: dlsym_doit calls _dl_sym" lib_calls "$LIBC" dlsym_doit _dl_sym
check "libc: _dl_sym tail-calls do_sym" lib_jumps "$LIBC" _dl_sym do_sym
check "libc: do_sym calls ld.so's _dl_lookup_symbol_x indirectly" \
	lib_calls_indirect "$LIBC" do_sym
check "ld.so: _dl_lookup_symbol_x calls do_lookup_x" \
	lib_calls "$LD" _dl_lookup_symbol_x do_lookup_x
check "libc: start_thread calls the thread function indirectly" \
	lib_calls_indirect "$LIBC" start_thread
# The outermost frames: their CFI marks the return address undefined.
check "libc: $THREAD_START's child path is the outermost frame" \
	ra_undefined "$LIBC" "$(lib_child_ra)"

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
