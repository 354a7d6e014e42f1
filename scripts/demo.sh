#!/bin/bash
# make demo: from a fresh machine, install, build, boot, and show perf's
# view of an SFrame-built program with SFrame unwinding on, then off.
#   scripts/demo.sh [ARCH]
set -euo pipefail
. "$(dirname "$0")/common.sh"
set_arch "${1:-}"

"$TOP/scripts/deps.sh"
make -C "$TOP" --no-print-directory kernel ARCH="$ARCH"
make -C "$TOP" --no-print-directory initramfs ARCH="$ARCH"
QEMU_APPEND="demo=1" QEMU_TIMEOUT=${QEMU_TIMEOUT:-600} \
	"$TOP/scripts/run-qemu.sh" "$ARCH" > "$ARCHBUILD/demo.log" 2>&1 || true
if ! grep -q '^=== DEMO END ===' "$ARCHBUILD/demo.log"; then
	tail -n 40 "$ARCHBUILD/demo.log"
	die "the demo did not finish (log: $ARCHBUILD/demo.log)"
fi
echo
sed -n '/^=== DEMO: /,/^=== DEMO END ===/p' "$ARCHBUILD/demo.log"
