#!/bin/bash
# Install every Debian package the harness needs (idempotent).
#   scripts/deps.sh          make deps: everything make check needs
#   scripts/deps.sh glibc    what scripts/build-glibc-sframe.sh needs
set -euo pipefail
. "$(dirname "$0")/deps-list.sh"

if [ "${1:-}" = glibc ]; then
	pkgs=("${DEPS_GLIBC[@]}" "${DEPS_GLIBC_ARM64[@]}")
else
	pkgs=("${DEPS_COMMON[@]}" "${DEPS_X86_64[@]}" "${DEPS_ARM64[@]}" "${DEPS_TESTS[@]}")
fi
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#pkgs[@]} packages installed"
	exit 0
fi
echo "deps: installing ${missing[*]}"
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
