#!/bin/bash
# Fetch Debian's arm64 linux-perf, busybox-static, libc6-dbg, cpp-12
# (its cc1, for make bench), perl-base (its perl, for make demo), lzip,
# xz-utils and coreutils (programs of the guest's stock-* tests), and
# every package they depend on, with a
# private apt configuration, and unpack them into build/arm64/sysroot.
# Prints the sysroot path on stdout.
# The host's apt configuration is not changed: the private one reuses the
# host's active source entries, with its own lists, status and archives in
# DEB_CACHE (outside the repository, so that CI on this machine reuses it).
set -euo pipefail
. "$(dirname "$0")/common.sh"

PKGS=(linux-perf busybox-static libc6-dbg cpp-12 perl-base lzip xz-utils coreutils)
DEB_CACHE=${DEB_CACHE:-/var/cache/sframe-debs/arm64}
SYSROOT=$BUILD/arm64/sysroot
STAMP=$SYSROOT/.packages

if [ -f "$STAMP" ] && [ "$(head -1 "$STAMP")" = "${PKGS[*]}" ]; then
	echo "$SYSROOT"
	exit 0
fi

mkdir -p "$DEB_CACHE"/{sources.d,lists/partial,archives/partial,cache}
# the host's active source entries (only *.list and *.sources are read by apt)
rm -f "$DEB_CACHE"/sources.d/*
for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] && cp "$f" "$DEB_CACHE/sources.d/"
done
[ -s /etc/apt/sources.list ] && cp /etc/apt/sources.list "$DEB_CACHE/sources.d/host.list"
: > "$DEB_CACHE/status"

APT=(apt-get -q
	-o Dir::Etc::sourcelist=-
	-o Dir::Etc::sourceparts="$DEB_CACHE/sources.d"
	-o Dir::State::Lists="$DEB_CACHE/lists"
	-o Dir::State::status="$DEB_CACHE/status"
	-o Dir::Cache="$DEB_CACHE/cache"
	-o Dir::Cache::archives="$DEB_CACHE/archives"
	-o APT::Architecture=arm64
	-o APT::Architectures::=arm64
	-o APT::Sandbox::User=root)

log "arm64 packages: private apt update (lists in $DEB_CACHE)"
"${APT[@]}" update >&2
rm -f "$DEB_CACHE"/archives/*.deb	# only the versions chosen now get unpacked
log "arm64 packages: downloading ${PKGS[*]} and their dependencies"
"${APT[@]}" install -y --download-only --no-install-recommends "${PKGS[@]}" >&2

rm -rf "$SYSROOT"
mkdir -p "$SYSROOT"
n=0
for deb in "$DEB_CACHE"/archives/*.deb; do
	dpkg-deb -x "$deb" "$SYSROOT"
	n=$((n + 1))
done
{ echo "${PKGS[*]}"; (cd "$DEB_CACHE/archives" && ls -1 -- *.deb); } > "$STAMP"
log "arm64 sysroot: $n packages unpacked in $SYSROOT"
echo "$SYSROOT"
