#!/bin/bash
# make demo: from a fresh machine, install, build, boot, and show perf's
# view of an SFrame-built program with SFrame unwinding on, then off, and
# write a flame graph of each (build/<arch>/flamegraph-sframe-on.svg,
# -off.svg).
#   scripts/demo.sh [ARCH]
set -euo pipefail
. "$(dirname "$0")/common.sh"
set_arch "${1:-}"

"$TOP/scripts/deps.sh"
guest_run demo "demo=1" 600 '^=== DEMO END ==='
echo
sed -n '/^=== DEMO: /,/^=== DEMO END ===/p' "$ARCHBUILD/demo.log" |
	sed '/^=== DEMO FOLDED sframe/,/^=== DEMO FOLDED END ===/d'

# Flame graphs of both recordings (scripts/flamegraph.py)
echo
for v in 1 0; do
	case $v in 1) name=on ;; 0) name=off ;; esac
	svg=$ARCHBUILD/flamegraph-sframe-$name.svg
	tr -d '\r' < "$ARCHBUILD/demo.log" |
		sed -n "/^=== DEMO FOLDED sframe_unwind=$v ===/,/^=== DEMO FOLDED END ===/{/^===/d;p}" |
		"$TOP/scripts/flamegraph.py" \
		"$ARCH: perf record -g, kernel.sframe_unwind=$v" > "$svg"
	echo "flame graph, SFrame $name: $svg"
done
