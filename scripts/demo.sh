#!/bin/bash
# make demo: from a fresh machine, install, build, boot, and show perf's
# view of an SFrame-built program with SFrame unwinding on, then off.
#   scripts/demo.sh [ARCH]
set -euo pipefail
. "$(dirname "$0")/common.sh"
set_arch "${1:-}"

"$TOP/scripts/deps.sh"
guest_run demo "demo=1" 600 '^=== DEMO END ==='
echo
sed -n '/^=== DEMO: /,/^=== DEMO END ===/p' "$ARCHBUILD/demo.log"
