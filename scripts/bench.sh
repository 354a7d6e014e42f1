#!/bin/bash
# make bench: build, boot, and measure in the guest what a sample costs
# the profiled program with the SFrame walk, the stock frame-pointer walk
# and perf's DWARF mode (userland-tests/bench.sh).
#   scripts/bench.sh [ARCH]        BENCHARGS="DEPTH ROUNDS"
set -euo pipefail
. "$(dirname "$0")/common.sh"
# a kernel without the debug options (lockdep, UBSAN, ...) and KUnit:
# build/<arch>/kernel-bench
export KFLAVOR=bench
set_arch "${1:-}"

guest_run bench "bench=1 benchargs=\"${BENCHARGS:-}\"" 1800 '^=== BENCH END rc=0 ==='
echo "$ARCH guest (kernel without debug options), $(grep -m1 '^=== GUEST INIT' "$ARCHBUILD/bench.log" | sed 's/=== GUEST INIT: //; s/ ===$//')"
sed -n '/^=== BENCH BEGIN ===/,/^=== BENCH END/{/^===/d;p}' "$ARCHBUILD/bench.log"
