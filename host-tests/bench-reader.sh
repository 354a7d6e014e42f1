#!/bin/bash
# Instructions per lookup, counted by callgrind inside the lookup loops
# only (--toggle-collect), for both lookup modes of our reader: the FDE
# index the kernel builds when a section is registered (judged) and the
# plain binary search it falls back to when the index cannot be allocated
# (printed for reference).  Our sframe_find_row() against libsframe's
# sframe_find_fre() on the largest corpus object, and our lookups on
# synthetic sections of 100 to 1M FDEs.
#   bench-reader.sh BENCH N ALT_BENCH|- ELF...
# ALT_BENCH (or -): a second build of bench to report alongside (e.g. a
# prototype reader); it is not judged.
set -euo pipefail
bench=$1 n=$2 alt=$3; shift 3
out=$(dirname "$bench")/../bench
mkdir -p "$out"
pass=0 fail=0

ir() {	# ir FUNC ARGS...: instructions executed inside FUNC
	local fn=$1 f; shift
	f=$out/cg.$$.out
	valgrind --tool=callgrind --toggle-collect="$fn" --callgrind-out-file="$f" \
		"$@" >"$out/last.out" 2>"$out/cg.$$.err" || { cat "$out/cg.$$.err" >&2; return 1; }
	awk '/^(summary|totals):/ { print $2; exit }' "$f"
	rm -f "$f" "$out/cg.$$.err"
}
# Checksum printed by the last run (the same lookups give the same sum).
checksum() { sed -n 's/.*checksum \(-*[0-9]*\).*/\1/p' "$out/last.out"; }

# Largest corpus object: the biggest .sframe section.
largest= lsize=0
for f in "$@"; do
	[ -f "$f" ] || continue
	s=$(readelf -SW "$f" 2>/dev/null | awk '$2 == ".sframe" { print $6 }') || true
	[ -n "$s" ] || continue
	s=$((16#$s))
	if [ "$s" -gt "$lsize" ]; then largest=$f; lsize=$s; fi
done
[ -n "$largest" ] || { echo "bench: no corpus object"; echo "bench-reader: 0 passed, 1 failed"; exit 1; }

base=$(basename "$largest")
lib=$(ir bench_lookups_libsframe "$bench" file "$largest" libsframe "$n")
idx=$(ir bench_lookups_ours "$bench" file "$largest" ours-index "$n")
isum=$(checksum); geom=$(sed -n 's/^index: //p' "$out/last.out")
bs=$(ir bench_lookups_ours "$bench" file "$largest" ours "$n")
bsum=$(checksum)
same=1
[ "$isum" = "$bsum" ] || { same=0; echo "bench: $base: checksums differ between the modes"; }
awk -v l="$lib" -v n="$n" -v f="$base" -v s="$lsize" 'BEGIN {
	printf "bench: %s (.sframe %d bytes), %d random PCs: libsframe %.1f instr/lookup\n",
		f, s, n, l / n }'
awk -v o="$idx" -v l="$lib" -v n="$n" -v f="$base" -v g="$geom" 'BEGIN {
	printf "bench: %s: ours, index         %7.1f instr/lookup, ratio %.3f (goal <= 0.333; %s)\n",
		f, o / n, o / l, g }'
awk -v o="$bs" -v l="$lib" -v n="$n" -v f="$base" 'BEGIN {
	printf "bench: %s: ours, binary search %7.1f instr/lookup, ratio %.3f (reference)\n",
		f, o / n, o / l }'
if awk -v o="$idx" -v l="$lib" 'BEGIN { exit !(o * 3 <= l) }'; then
	pass=$((pass + 1))
else
	fail=$((fail + 1)); echo "bench: FAIL ratio goal (index)"
fi

declare -A per perb
for nf in 100 1000 10000 100000 1000000; do
	per[$nf]=$(ir bench_lookups_ours "$bench" synth $nf "$n" index)
	isum=$(checksum)
	perb[$nf]=$(ir bench_lookups_ours "$bench" synth $nf "$n" bsearch)
	[ "$(checksum)" = "$isum" ] || { same=0; echo "bench: $nf FDEs: checksums differ between the modes"; }
	line=$(awk -v i="${per[$nf]}" -v b="${perb[$nf]}" -v n="$n" -v nf=$nf 'BEGIN {
		printf "bench: synthetic %7d FDEs: index %6.1f instr/lookup, binary search %6.1f", nf, i / n, b / n }')
	if [ "$alt" != - ]; then
		a=$(ir bench_lookups_ours "$alt" synth $nf "$n")
		line="$line$(awk -v i="$a" -v n="$n" 'BEGIN { printf " (prototype: %.1f)", i / n }')"
	fi
	echo "$line"
done
awk -v a="${per[100]}" -v b="${per[1000000]}" -v c="${perb[100]}" -v d="${perb[1000000]}" 'BEGIN {
	printf "bench: growth 100 -> 1M FDEs: index %.2fx (goal <= 2x), binary search %.2fx (reference)\n",
		b / a, d / c }'
if awk -v a="${per[100]}" -v b="${per[1000000]}" 'BEGIN { exit !(b <= 2 * a) }'; then
	pass=$((pass + 1))
else
	fail=$((fail + 1)); echo "bench: FAIL growth goal (index)"
fi
# Both modes must have found the same rows (same checksums).
if [ $same -eq 1 ]; then
	pass=$((pass + 1))
else
	fail=$((fail + 1)); echo "bench: FAIL index and binary search disagree"
fi
# Not judged: the cost of one lookup in hostile sections whose single FDE
# has 1024 FREs (the most a lookup scans), 65535 FREs or millions of FREs
# (16 MiB: the section size limit of the kernel side); past 1024 the lookup
# gives up at once (-EINVAL).
for size in $((1024 * 3 + 48)) $((65535 * 3 + 48)) $((16 << 20)); do
	if "$bench" worst $size 1 | grep -q rejected; then
		echo "bench: adversarial $size-byte section, one FDE: rejected at init (informational)"
		continue
	fi
	w=$(ir bench_lookups_ours "$bench" worst $size 10)
	awk -v w="$w" -v s=$size 'BEGIN { printf "bench: adversarial %d-byte section, one FDE: %.0f instr/lookup (informational)\n", s, w / 10 }'
done
echo "bench-reader: $pass passed, $fail failed"
[ $fail -eq 0 ]
