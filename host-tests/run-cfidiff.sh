#!/bin/bash
# Run cfidiff over OBJECTs, JOBS processes at a time (one object each, the
# biggest first as given), print the per-object reports in the given order,
# a drop-statistics table (for the changelog), and the totals:
#   cfi pcs compared: M, mismatches: K
#   cfidiff: N passed, N failed
#   run-cfidiff.sh CFIDIFF JOBS LOGDIR OBJECT...
set -uo pipefail
cfidiff=$1 jobs=$2 logs=$3
shift 3
rm -rf "$logs"; mkdir -p "$logs"
start=$SECONDS
i=0
for f in "$@"; do
	i=$((i + 1))
	printf '%s\0%s\0' "$f" "$logs/$(printf %03d $i).log"
done | xargs -0 -n 2 -P "$jobs" sh -c '"$0" "$1" > "$2" 2>&1; echo $? > "$2.rc"' "$cfidiff"
pass=0 fail=0 pcs=0 mism=0 failed=
i=0
for f in "$@"; do
	i=$((i + 1))
	log=$logs/$(printf %03d $i).log
	grep -v -E '^(cfi pcs compared: |[0-9]+ passed, [0-9]+ failed$)' "$log"
	p=$(sed -n 's/^cfi pcs compared: \([0-9]*\), mismatches: \([0-9]*\)$/\1 \2/p' "$log")
	if [ "$(cat "$log.rc" 2>/dev/null)" = 0 ] && [ -n "$p" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1)); failed="$failed $(basename "$f")"
	fi
	if [ -n "$p" ]; then
		pcs=$((pcs + ${p% *})); mism=$((mism + ${p#* }))
	fi
done
echo
echo "drop statistics: DWARF FDEs (dropped whole by the converter), CFI rows (dropped:"
echo "not expressible), code bytes of the DWARF FDEs and those without an SFrame row"
echo "(libdw's count; 'conv.' is the converter's own bytes_dropped), by reason (PCs/rows):"
printf '%-22s %-7s %5s %4s %6s %5s %9s %7s %7s %7s  %s\n' object arch FDEs drop rows drop \
	"code" "no row" "%" "conv." "reasons"
cat "$logs"/*.log | awk '
function row(name, arch, f, fd, r, rd, pcs, nc, conv, why) {
	printf "%-22s %-7s %5d %4d %6d %5d %9d %7d %6.3f%% %7d  %s\n", name, arch, f, fd, r, rd,
		pcs, nc, pcs ? 100 * nc / pcs : 0, conv, why
}
/^STATS / {
	delete v; why = ""
	for (i = 4; i <= NF; i++) {
		split($i, kv, "="); v[kv[1]] = kv[2]
		if (kv[1] !~ /^(fdes|fdes_dropped|rows|rows_dropped|bytes|bytes_dropped|out_fdes|out_fres|out_size|eh_size|pcs|nocov)$/)
			why = why (why == "" ? "" : " ") $i
	}
	row($2, $3, v["fdes"], v["fdes_dropped"], v["rows"], v["rows_dropped"], v["pcs"],
	    v["nocov"], v["bytes_dropped"], why)
	a = $3
	T[a, "f"] += v["fdes"]; T[a, "fd"] += v["fdes_dropped"]; T[a, "r"] += v["rows"]
	T[a, "rd"] += v["rows_dropped"]; T[a, "p"] += v["pcs"]; T[a, "n"] += v["nocov"]
	T[a, "c"] += v["bytes_dropped"]; arches[a] = 1
}
END {
	for (a in arches)
		row("total", a, T[a, "f"], T[a, "fd"], T[a, "r"], T[a, "rd"], T[a, "p"], T[a, "n"],
		    T[a, "c"], "")
}'
echo "cfidiff: $((SECONDS - start)) s, $jobs jobs, logs in $logs${failed:+, failed:$failed}"
echo "cfi pcs compared: $pcs, mismatches: $mism"
echo "cfidiff: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
