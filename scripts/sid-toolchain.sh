#!/bin/bash
# Directory for `gcc -B DIR/`: wrappers named as and ld that run a newer
# binutils for ARCH (scripts/build-sid-root.sh), so that bookworm's gcc and
# libc build programs whose .sframe has a newer format:
#   v3: Debian sid's binutils 2.47 (the default)
#   v2: Debian trixie's binutils 2.44
#   scripts/sid-toolchain.sh ARCH [v3|v2]    prints DIR (build/sid-bin/ARCH-VER)
set -euo pipefail
. "$(dirname "$0")/common.sh"
set_arch "${1:-}"
ver=${2:-v3}
root=${SID_ROOT:-/var/cache/sframe-sid/root}
case $ver in
v3) tree= ;;
v2) tree=${V2_TREE:-$(dirname "$root")/binutils-v2} ;;
*) die "unknown SFrame version '$ver' (v3 or v2)" ;;
esac
[ -x "$root/usr/bin/as" ] && { [ -z "$tree" ] || [ -d "$tree/usr/bin" ]; } ||
	die "no sid root in $root: run scripts/build-sid-root.sh (make sid-root)"
dir=$BUILD/sid-bin/$ARCH-$ver
mkdir -p "$dir"
for tool in as ld; do
	cat > "$dir/$tool.tmp" <<EOS
#!/bin/sh
${tree:+SID_TOOL_TREE=$tree }exec "$TOP/scripts/sid-tool.sh" $MULTIARCH-$tool "\$@"
EOS
	chmod 755 "$dir/$tool.tmp"
	mv "$dir/$tool.tmp" "$dir/$tool"
done
echo "$dir"
