#!/bin/bash
# The cost of one sample on a stack built to cost (worst-walk.c): the
# instructions of one walk, counted by valgrind (callgrind, only inside
# walk()), on a normal 127-frame stack (functions of 4 rows), a crafted one
# (functions of 1024 rows, every lookup at the last) with the walk's
# budget of 8192 rows, and the crafted one without it.  Prints
#   worst-walk: normal I instructions (F frames), crafted I (F frames,
#   ratio R), unbounded I (ratio R)
#   worst-walk: N passed, N failed
# and fails if the crafted walk costs more than MAX_RATIO normal ones.
#   worst-walk.sh WORST_WALK [MAX_RATIO]
set -uo pipefail
bin=$1 max=${2:-16}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
declare -A ir frames
for s in normal crafted unbounded; do
	valgrind -q --tool=callgrind --callgrind-out-file="$tmp/cg.$s" \
		--toggle-collect=walk "$bin" "$s" > "$tmp/$s.out" 2>&1
	ir[$s]=$(sed -n 's/^summary: \([0-9]*\).*/\1/p' "$tmp/cg.$s" 2>/dev/null)
	frames[$s]=$(sed -n 's/.*: \([0-9]*\) frames.*/\1/p' "$tmp/$s.out")
	if [ -z "${ir[$s]}" ] || [ -z "${frames[$s]}" ]; then
		echo "FAILED: $s: no measurement"
		cat "$tmp/$s.out"
		echo "worst-walk: 0 passed, 1 failed"
		exit 1
	fi
done
ratio=$(awk -v a="${ir[crafted]}" -v b="${ir[normal]}" 'BEGIN { printf "%.1f", a / b }')
uratio=$(awk -v a="${ir[unbounded]}" -v b="${ir[normal]}" 'BEGIN { printf "%.1f", a / b }')
echo "worst-walk: normal ${ir[normal]} instructions (${frames[normal]} frames)," \
	"crafted ${ir[crafted]} (${frames[crafted]} frames, ratio $ratio)," \
	"unbounded ${ir[unbounded]} (ratio $uratio)"
if [ "${frames[normal]}" -ne 127 ] ||
   ! awk -v r="$ratio" -v m="$max" 'BEGIN { exit !(r <= m) }'; then
	echo "FAILED: the normal walk must reach 127 frames and the crafted one cost at most $max times it"
	echo "worst-walk: 0 passed, 1 failed"
	exit 1
fi
echo "worst-walk: 1 passed, 0 failed"
