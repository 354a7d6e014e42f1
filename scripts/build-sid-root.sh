#!/bin/bash
# A Debian sid root with today's toolchain (binutils that emit SFrame v3,
# gcc, the aarch64 cross tools and GNU libsframe), made with debootstrap
# from the mirror the system's own apt sources name, once, outside the
# repository:  $SID_ROOT (default /var/cache/sframe-sid/root); and next to
# it trixie's binutils 2.44, the last that emit SFrame v2.
#   scripts/build-sid-root.sh        prints the root directory
# Nothing of the system's apt state changes.  A second run prints the
# directory at once (the stamp names the recipe); an interrupted one
# starts again.  Tools in the root are run without chroot through its own
# dynamic loader (scripts/sid-tool.sh), so no mounts are needed.
set -euo pipefail
. "$(dirname "$0")/common.sh"

SID_ROOT=${SID_ROOT:-/var/cache/sframe-sid/root}
PKGS="binutils gcc g++ libc6-dev binutils-aarch64-linux-gnu gcc-aarch64-linux-gnu
g++-aarch64-linux-gnu libc6-dev-arm64-cross libsframe-dev"
RECIPE="sid root recipe 1: minbase + $(echo $PKGS)"
STAMP=$SID_ROOT/.sframe-recipe

# Binutils 2.44 (Debian trixie), the last release that emits SFrame v2:
# its packages unpacked next to the root ($V2_TREE), run with the root's
# loader and libc (scripts/sid-tool.sh with SID_TOOL_TREE).
V2_TREE=${V2_TREE:-$(dirname "$SID_ROOT")/binutils-v2}
V2_SUITE=trixie
V2_PKGS="binutils-x86-64-linux-gnu binutils-aarch64-linux-gnu libbinutils libsframe1
libctf0 libctf-nobfd0"
V2_RECIPE="v2 binutils recipe 1: $V2_SUITE $(echo $V2_PKGS)"
V2_STAMP=$V2_TREE/.sframe-recipe

# the first Debian (not security) URI of the system's apt sources
find_mirror() {
	local f m=
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		m=$(awk '/^URIs:/ && $2 !~ /security/ { print $2; exit }' "$f")
		[ -n "$m" ] && break
	done
	if [ -z "$m" ]; then
		m=$(grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list |
			awk '$0 !~ /security/ { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }')
	fi
	[ -n "$m" ] || die "no Debian mirror in the system's apt sources"
	echo "$m"
}

# The v2 binutils: download-only through a private apt configuration.
make_v2_tree() {
	local apt=$V2_TREE.apt opts deb
	log "binutils of $V2_SUITE (SFrame v2) into $V2_TREE"
	rm -rf "$V2_TREE" "$apt"
	mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$apt/debs"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $(find_mirror) $V2_SUITE main" \
		> "$apt/sources.list"
	opts=(-q -o Dir::Etc::sourcelist="$apt/sources.list" -o Dir::Etc::sourceparts=-
	      -o Dir::State::Lists="$apt/lists" -o Dir::Cache::Archives="$apt/archives"
	      -o APT::Sandbox::User=root)
	apt-get "${opts[@]}" update >&2 || die "apt-get update ($V2_SUITE) failed"
	(cd "$apt/debs" && apt-get "${opts[@]}" download $V2_PKGS >&2) ||
		die "could not download $V2_PKGS"
	for deb in "$apt/debs"/*.deb; do
		dpkg-deb -x "$deb" "$V2_TREE"
	done
	rm -rf "$apt"
	echo "$V2_RECIPE" > "$V2_STAMP"
}

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$RECIPE" ]; then
	if ! { [ -f "$V2_STAMP" ] && [ "$(cat "$V2_STAMP")" = "$V2_RECIPE" ]; }; then
		make_v2_tree
	fi
	echo "$SID_ROOT"
	exit 0
fi
[ "$(id -u)" = 0 ] || die "debootstrap needs root"
command -v debootstrap > /dev/null || die "debootstrap is missing (make deps)"
mirror=$(find_mirror)

log "debootstrap sid into $SID_ROOT (a few minutes)"
rm -rf "$SID_ROOT"
mkdir -p "$(dirname "$SID_ROOT")"
nice -n 19 debootstrap --variant=minbase --arch=amd64 \
	--include="$(echo $PKGS | tr ' ' ,)" sid "$SID_ROOT" "$mirror" >&2 ||
	die "debootstrap failed (log: $SID_ROOT/debootstrap/debootstrap.log)"
rm -rf "$SID_ROOT"/var/cache/apt/archives/*.deb
echo "$RECIPE" > "$STAMP"
make_v2_tree
echo "$SID_ROOT"
