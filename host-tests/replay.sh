#!/bin/bash
# Replay every file of the given directories through the fuzz target once
# (crash regressions and seeds); each file is a test.
#   replay.sh FUZZER DIR...
set -uo pipefail
fuzzer=$1; shift
pass=0 fail=0
for d in "$@"; do
	for f in "$d"/*; do
		[ -f "$f" ] || continue
		case $f in *.md|*/.gitkeep) continue ;; esac
		if out=$("$fuzzer" -runs=1 "$f" 2>&1); then
			pass=$((pass + 1))
		else
			fail=$((fail + 1))
			echo "replay: FAIL $f"
			echo "$out" | grep -E 'ERROR|SUMMARY|runtime error|#[0-9]' | head -10
		fi
	done
done
echo "replay: $pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
