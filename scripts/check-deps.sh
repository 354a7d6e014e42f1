#!/bin/bash
# Fail at once, listing the missing Debian packages ("make deps" installs them).
#   scripts/check-deps.sh [all|kernel-ARCH|initramfs-ARCH|qemu-ARCH|glibc-ARCH]
set -euo pipefail
. "$(dirname "$0")/deps-list.sh"

case ${1:-all} in
glibc-arm64) pkgs=("${DEPS_GLIBC[@]}" "${DEPS_GLIBC_ARM64[@]}") ;;
glibc-*) pkgs=("${DEPS_GLIBC[@]}") ;;
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
	hint="make deps"
	case ${1:-all} in glibc-*) hint="scripts/deps.sh glibc" ;; esac
	echo "error: missing Debian packages: ${missing[*]} (run '$hint')" >&2
	exit 1
fi
