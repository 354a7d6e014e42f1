#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Check the expected chains of run-tests.sh against independent unwinders
# on the build host (not in the guest, not part of `make check`: it needs
# perf_event_open, gdb, and for arm64 qemu-user).
#
#   validate-host.sh ARCH OUT
#
# x86_64:
#   - SFrame tests (except static-*) and the eh tests (but eh-libc-memcpy
#     and eh-libc-strlen, whose leaf is the ifunc variant QEMU's CPU
#     selects, not the host's): perf record --call-graph dwarf on the
#     host, chains compared as prefixes (SFT_DWARF=1 run-tests.sh);
#   - stock tests (nosframe-*, corrupt-*): perf record -g on the host
#     kernel, whose frame-pointer walk is the stock one;
#   - static-*: gdb backtraces (perf's DWARF unwinder does not handle the
#     static binary), up to main.
# arm64 (QEMU=qemu-aarch64-static, GDB=gdb-multiarch, SYSROOT):
#   - pie-*, nopie-*, static-*: gdb backtraces through qemu's gdb stub,
#     up to main (gdb cannot strip PAC signatures there: pac-* skipped);
#   - stock tests: the arm64 perf_callchain_user() walk (x29 frame records,
#     stop when the next record is not above) emulated with gdb.
# gdb looks return addresses up at pc - 1: nr_caller's frame shows as
# nr_caller, where perf (and so run-tests.sh) shows nr_next.

ARCH=$1
OUT=$2
[ -n "$ARCH" ] && [ -d "$OUT" ] || { echo "usage: validate-host.sh ARCH OUT" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$(cd "$OUT" && pwd)
GDB=${GDB:-gdb}
QEMU=${QEMU:-qemu-aarch64-static}
SYSROOT=${SYSROOT:-/usr/aarch64-linux-gnu}
[ "$ARCH" = arm64 ] && GDB=${GDB_MULTIARCH:-gdb-multiarch}
MS=300
PASS=0
FAIL=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
PORT=$((20000 + $$ % 10000))

result() {
	if [ "$1" = 0 ]; then
		PASS=$((PASS + 1))
		echo "ok: $2"
	else
		FAIL=$((FAIL + 1))
		echo "FAILED: $2"
		[ -f "$TMP/diag" ] && sed 's/^/    /' "$TMP/diag"
	fi
	rm -f "$TMP/diag"
}

# Frames (one name per line, leaf first) to perf script text, for
# chaincheck.awk.
to_script() {
	echo "gdb 1 "
	awk '{ printf("\t0 %s (%s)\n", $1 == "??" ? "[unknown]" : $1, $2 == "" ? "?" : $2) }'
	echo
}

# Expected chain up to main, as gdb shows it.
upto_main() {
	echo "$1" | awk -F, '{ s = $1; for (i = 2; i <= NF; i++) { s = s "," $i; if ($i == "main") break } print s }' |
		sed 's/,nr_next,/,nr_caller,/'
}

list_tests() {
	PATH=$PATH sh "$OUT/run-tests.sh" -m $MS -l "$@"
}

hot_of() {
	echo "$1" | sed 's/,.*//'
}

# gdb_frames PROG ARGS... : backtrace at the hot function $HOT.
gdb_frames() {
	if [ "$ARCH" = x86_64 ]; then
		$GDB -q -batch -ex "break $HOT" -ex run -ex bt --args "$@" 2>&1
	else
		PORT=$((PORT + 1))
		"$QEMU" -L "$SYSROOT" -g $PORT "$@" >/dev/null 2>&1 &
		sleep 0.5
		$GDB -q -batch -ex "set sysroot $SYSROOT" -ex "target remote :$PORT" \
			-ex "break $HOT" -ex continue -ex bt -ex kill "$1" 2>&1
		wait
	fi | awk '/^#[0-9]+ / {
		n = ($3 == "in") ? $4 : $2
		print n
	}'
}

# Offset of the backward branch of the hot loop in a function: where the
# samples are.
loop_off() {
	aarch64-linux-gnu-objdump -d --no-show-raw-insn "$1" | awk -v fn="$2" '
		function h2d(h,   i, c, v) {
			v = 0
			for (i = 1; i <= length(h); i++) {
				c = index("0123456789abcdef", substr(h, i, 1)) - 1
				v = v * 16 + c
			}
			return v
		}
		$0 ~ "^[0-9a-f]+ <" fn ">:$" { on = 1; start = h2d($1); next }
		on && /^$/ { exit }
		on && /\tb\.[a-z]+[ \t]/ {
			a = $1; sub(/:$/, "", a)
			if (h2d($3) < h2d(a)) { print h2d(a) - start; exit }
		}'
}

# The arm64 stock walk, emulated: pc, then {fp, lr} records from x29.
FPWALK=$TMP/fpwalk.gdb
cat >"$FPWALK" <<'EOF'
set $tl = $x29
printf "frame: "
info symbol $pc
while $tl != 0 && ($tl & 7) == 0
  set $lr = *(unsigned long *)($tl + 8)
  printf "frame: "
  info symbol $lr
  set $ntl = *(unsigned long *)$tl
  if $tl >= $ntl
    loop_break
  end
  set $tl = $ntl
end
EOF

arm64_fpwalk() {
	PORT=$((PORT + 1))
	"$QEMU" -L "$SYSROOT" -g $PORT "$@" >/dev/null 2>&1 &
	sleep 0.5
	$GDB -q -batch -ex "set sysroot $SYSROOT" -ex "target remote :$PORT" \
		-ex "break *($HOT + $(loop_off "$1" "$HOT"))" -ex continue -x "$FPWALK" -ex kill "$1" 2>&1 |
		awk '/^frame: / {
			if ($2 == "No") { print "[unknown] ?"; next }
			d = $NF; sub(".*/", "", d)
			print $2, d
		}'
	wait
}

check_frames() {
	# check_frames NAME EXPECT PREFIX < frames
	to_script >"$TMP/script"
	awk -v expect="$2" -v min=1 -v prefix="$3" -f "$HERE/../guest/chaincheck.awk" \
		"$TMP/script" >"$TMP/diag" 2>&1
	result $? "$1"
}

TAB=$(printf '\t')

# Results of a run-tests.sh run (but its control test, which needs the
# kernel switch).
tap_results() {
	grep -E '^(not )?ok ' "$TMP/tap" | grep -v control-sframe >"$TMP/res"
	while read -r l; do
		case "$l" in
		ok*)	result 0 "$1: ${l#ok [0-9]* }" ;;
		*)	n=${l#not ok [0-9]* }
			sed -n "/^# $n: /,/^not ok/p" "$TMP/tap" >"$TMP/diag"
			result 1 "$1: $n" ;;
		esac
	done <"$TMP/res"
}

if [ "$ARCH" = x86_64 ]; then
	if perf record -q -o "$TMP/probe.data" -e cpu-clock:u -- true >/dev/null 2>&1; then
		for g in 'pie-*' 'nopie-*' threads fork orphan exec 'dso-*' \
			'eh-nosframe-*' 'eh-corrupt-*' eh-libc-malloc eh-libc-qsort \
			eh-ldso-dlsym 'cxx-*' 'eh-cxx-*'; do
			SFT_DWARF=1 TMPDIR=$TMP sh "$OUT/run-tests.sh" -m $MS "$g" >"$TMP/tap" 2>&1
			tap_results dwarf
		done
		for g in 'nosframe-*' 'corrupt-*'; do
			TMPDIR=$TMP sh "$OUT/run-tests.sh" -m $MS "$g" >"$TMP/tap" 2>&1
			tap_results "host fp walk"
		done
	else
		echo "# perf record does not work here: perf checks skipped"
	fi
	list_tests 'static-*' >"$TMP/list"
else
	list_tests 'pie-*' >"$TMP/list"
	list_tests 'nopie-*' >>"$TMP/list"
	list_tests 'static-*' >>"$TMP/list"
fi

while IFS="$TAB" read -r _kind name exp cmd; do
	HOT=$(hot_of "$exp")
	# shellcheck disable=SC2086
	gdb_frames $cmd >"$TMP/frames"
	check_frames "gdb: $name" "$(upto_main "$exp")" 1 <"$TMP/frames"
done <"$TMP/list"

if [ "$ARCH" = arm64 ]; then
	list_tests 'nosframe-*' >"$TMP/list"
	list_tests 'corrupt-*' >>"$TMP/list"
	while IFS="$TAB" read -r _kind name exp cmd; do
		HOT=$(hot_of "$exp")
		# shellcheck disable=SC2086
		arm64_fpwalk $cmd >"$TMP/frames"
		check_frames "fp walk (emulated): $name" "$exp" 0 <"$TMP/frames"
	done <"$TMP/list"
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
