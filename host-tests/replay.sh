#!/bin/bash
# Replay every file of the given directories through a fuzz target once
# (crash regressions and seeds); each file is a test.
#   replay.sh FUZZER DIR...
#   replay.sh -f FUZZER [-o SUFFIX | -x SUFFIX] DIR... [-f FUZZER ...]...
# -f starts a group replayed through FUZZER; -o SUFFIX takes only the files
# of its directories whose name ends in SUFFIX, -x SUFFIX all but those.
set -uo pipefail
pass=0 fail=0
fuzzer= only= skip=
if [ "${1-}" != -f ]; then
	fuzzer=$1; shift
fi
while [ $# -gt 0 ]; do
	case $1 in
	-f) fuzzer=$2 only= skip=; shift 2; continue ;;
	-o) only=$2; shift 2; continue ;;
	-x) skip=$2; shift 2; continue ;;
	esac
	d=$1; shift
	for f in "$d"/*; do
		[ -f "$f" ] || continue
		case $f in *.md|*/.gitkeep) continue ;; esac
		if [ -n "$only" ] && [ "${f%"$only"}" = "$f" ]; then continue; fi
		if [ -n "$skip" ] && [ "${f%"$skip"}" != "$f" ]; then continue; fi
		if out=$("$fuzzer" -runs=1 "$f" 2>&1); then
			pass=$((pass + 1))
		else
			fail=$((fail + 1))
			echo "replay: FAIL $f ($(basename "$fuzzer"))"
			echo "$out" | grep -E 'ERROR|SUMMARY|runtime error|#[0-9]' | head -10
		fi
	done
done
echo "replay: $pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
