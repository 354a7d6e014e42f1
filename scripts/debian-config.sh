#!/bin/bash
# Print the path of Debian's own kernel configuration for 6.1 on ARCH (the
# config of the bookworm linux-image-ARCH kernel, from the linux-config-6.1
# package), fetched once into a cache outside the repository.  The package
# is downloaded with a private apt state, so the machine's dpkg needs no
# foreign architecture and nothing is installed.
#   scripts/debian-config.sh ARCH          (x86_64 or arm64)
set -euo pipefail
. "$(dirname "$0")/common.sh"
set_arch "${1:-}"

cache=${DEBIAN_CONFIG_CACHE:-/var/cache/sframe-debian-config}
cfg=$cache/config.${DEB_ARCH}_none_${DEB_ARCH}
if [ ! -s "$cfg" ]; then
	apt_dir=$cache/apt-$DEB_ARCH
	mkdir -p "$apt_dir/state/lists/partial" "$apt_dir/cache/archives/partial" \
		"$cache/deb-$DEB_ARCH"
	apt_opts=(-q -o Dir::State="$apt_dir/state" -o Dir::Cache="$apt_dir/cache"
		  -o APT::Sandbox::User=root
		  -o Dir::State::status=/dev/null
		  -o APT::Architecture="$DEB_ARCH" -o APT::Architectures="$DEB_ARCH")
	log "fetching linux-config-6.1 ($DEB_ARCH)"
	apt-get "${apt_opts[@]}" update >/dev/null ||
		die "apt-get update for $DEB_ARCH failed"
	(cd "$cache/deb-$DEB_ARCH" && rm -f ./*.deb &&
	 apt-get "${apt_opts[@]}" download linux-config-6.1 >/dev/null) ||
		die "could not download linux-config-6.1 for $DEB_ARCH"
	deb=$(ls "$cache/deb-$DEB_ARCH"/linux-config-6.1_*.deb)
	dpkg-deb --fsys-tarfile "$deb" |
		tar -xO "./usr/src/linux-config-6.1/config.${DEB_ARCH}_none_${DEB_ARCH}.xz" |
		xz -dc > "$cfg.tmp"
	mv "$cfg.tmp" "$cfg"
	basename "$deb" > "$cfg.package"
fi
echo "$cfg"
