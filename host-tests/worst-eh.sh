#!/bin/bash
# The converter on inputs built to cost (worst-eh.c): instructions per byte
# of .eh_frame, counted by valgrind (callgrind, only inside
# sframe_eh_convert_covered(), all of the conversion), at
# COUNT_SIZE bytes; CPU time at TIME_SIZE bytes (16 MiB, the most the
# kernel reads), natively.  One line per shape, then
#   worst-case: B bytes of .eh_frame, I instructions per byte, T ms
# (the most instructions per byte of any shape, the longest time) and
#   worst-eh: N passed, N failed
# where a shape fails above MAX_IPB instructions per byte.  The time is
# printed, not checked (it depends on the machine).
#   worst-eh.sh WORST_EH [MAX_IPB] [COUNT_SIZE] [TIME_SIZE]
set -uo pipefail
bin=$1 max=${2:-100} csize=${3:-1048576} tsize=${4:-16777216}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0 worst_ipb=0 worst_ms=0
for s in $("$bin" -l); do
	valgrind -q --tool=callgrind --callgrind-out-file="$tmp/cg.$s" \
		--toggle-collect=sframe_eh_convert_covered \
		"$bin" "$s" "$csize" > "$tmp/cg.$s.out" 2>&1
	ir=$(sed -n 's/^summary: \([0-9]*\).*/\1/p' "$tmp/cg.$s" 2>/dev/null)
	bytes=$(sed -n 's/.*: \([0-9]*\) bytes of .*/\1/p' "$tmp/cg.$s.out")
	line=$("$bin" "$s" "$tsize" 3)
	ms=$(sed -n 's/.* bytes of .eh_frame, \([0-9.]*\) ms.*/\1/p' <<<"$line")
	if [ -z "$ir" ] || [ -z "$bytes" ] || [ -z "$ms" ]; then
		echo "FAILED: $s: no measurement"
		cat "$tmp/cg.$s.out"
		fail=$((fail + 1))
		continue
	fi
	ipb=$((ir / bytes))
	echo "$s: $ipb instructions per byte ($ir for $bytes bytes); $line"
	if [ "$ipb" -gt "$max" ]; then
		echo "FAILED: $s: $ipb instructions per byte, more than $max"
		fail=$((fail + 1))
	else
		pass=$((pass + 1))
	fi
	[ "$ipb" -gt "$worst_ipb" ] && worst_ipb=$ipb
	awk -v a="$ms" -v b="$worst_ms" 'BEGIN { exit !(a > b) }' && worst_ms=$ms
done
# One FDE of a megabyte of rows: other tasks get to run within it, and a
# fatal signal stops it.
if "$bin" -y "$csize"; then
	pass=$((pass + 1))
else
	echo "FAILED: yield: a long FDE program does not let other tasks run"
	fail=$((fail + 1))
fi
echo "worst-case: $tsize bytes of .eh_frame, $worst_ipb instructions per byte, $worst_ms ms"
echo "worst-eh: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
