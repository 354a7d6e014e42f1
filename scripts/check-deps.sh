#!/bin/bash
# Fail at once, listing the missing Debian packages ("make deps" installs them).
#   scripts/check-deps.sh [all|kernel-ARCH|initramfs-ARCH|qemu-ARCH]
set -euo pipefail
. "$(dirname "$0")/deps-list.sh"

case ${1:-all} in
*arm64*) pkgs=("${DEPS_COMMON[@]}" "${DEPS_ARM64[@]}" busybox-static) ;;
*x86_64*) pkgs=("${DEPS_COMMON[@]}" "${DEPS_X86_64[@]}") ;;
*) pkgs=("${DEPS_COMMON[@]}" "${DEPS_X86_64[@]}" "${DEPS_ARM64[@]}" "${DEPS_TESTS[@]}") ;;
esac

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "error: missing Debian packages: ${missing[*]} (run 'make deps')" >&2
	exit 1
fi
