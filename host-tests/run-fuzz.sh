#!/bin/bash
# Run the libFuzzer target for SECONDS over CORPUS (grown in place), print
# executions, coverage and speed, and fail if the fuzzer found a crash.
#   run-fuzz.sh FUZZER SECONDS CORPUS ARTIFACT_DIR
set -uo pipefail
fuzzer=$1 secs=$2 corpus=$3 art=$4
mkdir -p "$corpus" "$art"
log=$art/fuzz-$(date +%Y%m%d-%H%M%S).log
before=$(ls "$art" | grep -c -E '^(crash|leak|timeout|oom)-' || true)
"$fuzzer" -max_total_time="$secs" -max_len=262144 -timeout=10 \
	-rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$art/" \
	"$corpus" >"$log" 2>&1
rc=$?
after=$(ls "$art" | grep -c -E '^(crash|leak|timeout|oom)-' || true)
grep -E '^#[0-9]+.*(INITED|DONE)' "$log" | tail -2
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log"
echo "fuzz: log in $log"
if [ $rc -ne 0 ] || [ "$after" -gt "$before" ]; then
	grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$log" | head -20
	echo "fuzz: CRASH: copy the artifact into host-tests/regressions/ and fix the reader (or converter)"
	echo "fuzz: 0 passed, 1 failed"
	exit 1
fi
echo "fuzz: 1 passed, 0 failed"
