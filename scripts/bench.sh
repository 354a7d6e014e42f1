#!/bin/bash
# make bench: build, boot, and measure in the guest what a sample costs
# the profiled program with the SFrame walk, the stock frame-pointer walk
# and perf's DWARF mode (userland-tests/guest/bench.sh).
#   scripts/bench.sh [ARCH]        BENCHARGS="DEPTH ROUNDS PARTS"
set -euo pipefail
. "$(dirname "$0")/common.sh"
# a kernel without the debug options (lockdep, UBSAN, ...) and KUnit:
# build/<arch>/kernel-bench
export KFLAVOR=bench
# the bench initramfs: the test one plus Debian's cc1 (mk-initramfs.sh)
export BENCH=1
set_arch "${1:-}"

guest_run bench "bench=1 benchargs=\"${BENCHARGS:-}\"" 1800 '^=== BENCH END rc=0 ==='
echo "$ARCH guest (kernel without debug options), $(grep -m1 '^=== GUEST INIT' "$ARCHBUILD/bench.log" | sed 's/=== GUEST INIT: //; s/ ===$//')"
# the summary lines without their "# "
sed -n '/^=== BENCH BEGIN ===/,/^=== BENCH END/{/^===/d;s/^# \(ondemand\|profiled\) /\1 /;p}' \
	"$ARCHBUILD/bench.log"
