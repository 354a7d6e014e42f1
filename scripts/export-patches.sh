#!/bin/bash
# Regenerate patches/ and series from a git kernel tree whose commits on
# top of BASE are the series (developer workflow; see README.md).
#   scripts/export-patches.sh KERNEL_GIT_TREE BASE_COMMIT
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
tree=${1:?usage: $0 KERNEL_GIT_TREE BASE_COMMIT}
base=${2:?usage: $0 KERNEL_GIT_TREE BASE_COMMIT}
rm -f "$top"/patches/*.patch
git -C "$tree" format-patch -q --no-signature --zero-commit \
	-o "$top/patches" "$base"
(cd "$top/patches" && ls -1 -- *.patch) > "$top/series"
cat "$top/series"
