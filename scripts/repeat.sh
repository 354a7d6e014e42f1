#!/bin/bash
# make repeat ARCH=... [REPEAT=5]: boot the guest suite REPEAT times in a
# row with the same kernel and initramfs (TESTARGS as for make qemu-test;
# make check's slice, -s, when TESTARGS is empty), to find tests that fail
# by chance.
# Each run's log is kept as build/<arch>/repeat-N.log, its verdict
# (scripts/parse-results.sh) as repeat-N.verdict.  Prints one line per
# run, "repeat ARCH: R runs, K without a failure", and counts runs:
# "N passed, N failed".
#   scripts/repeat.sh ARCH [RUNS]
set -euo pipefail
. "$(dirname "$0")/common.sh"
set_arch "${1:-}"
runs=${2:-${REPEAT:-5}}
case $runs in ''|0|*[!0-9]*) die "REPEAT must be a number of runs" ;; esac
export TESTARGS=${TESTARGS:--s}

make -C "$TOP" --no-print-directory kernel ARCH="$ARCH"
make -C "$TOP" --no-print-directory initramfs ARCH="$ARCH"

good=0
for ((i = 1; i <= runs; i++)); do
	glog=$ARCHBUILD/repeat-$i.log
	verdict=$ARCHBUILD/repeat-$i.verdict
	start=$SECONDS
	QEMU_LOG=$glog "$TOP/scripts/run-qemu.sh" "$ARCH" >/dev/null 2>&1 || true
	st=0
	"$TOP/scripts/parse-results.sh" "$ARCH" "$glog" >"$verdict" 2>&1 || st=$?
	line=$(tail -n 1 "$verdict")
	echo "run $i of $runs ($ARCH, $((SECONDS - start)) s): $line"
	if [ "$st" -eq 0 ]; then
		good=$((good + 1))
	else
		grep '^FAIL' "$verdict" | head -n 20 | sed 's/^/    /'
	fi
done
echo "repeat $ARCH: $runs runs, $good without a failure"
echo "$good passed, $((runs - good)) failed"
[ "$good" -eq "$runs" ]
