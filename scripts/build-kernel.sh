#!/bin/bash
# Patch the tree (quilt), configure and build the kernel image for ARCH.
#   scripts/build-kernel.sh ARCH      -> build/<arch>/kernel/<image>
set -euo pipefail
. "$(dirname "$0")/common.sh"
set_arch "${1:-}"

"$TOP/scripts/check-deps.sh" kernel-$ARCH
"$TOP/scripts/prepare-src.sh"
"$TOP/scripts/kconfig.sh" "$ARCH"

mkdir -p "$CCACHE_DIR"
start=$(date +%s)
log "building $KIMAGE_TARGET for $ARCH (-j$JOBS, ccache in $CCACHE_DIR)"
# full log in kernel-build.log; the terminal shows all but the quiet lines
set +e
"${KMAKE[@]}" "$KIMAGE_TARGET" 2>&1 | tee "$ARCHBUILD/kernel-build.log" |
	grep -vE '^  [A-Z][A-Z0-9_.-]*[[:space:]]+[^[:space:]]+$'
rc=${PIPESTATUS[0]}
set -e
[ "$rc" -eq 0 ] || die "kernel build failed (full log: $ARCHBUILD/kernel-build.log)"
log "kernel built in $(( $(date +%s) - start ))s: $KIMAGE"
