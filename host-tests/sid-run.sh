#!/bin/bash
# Run a command inside the Debian sid root of scripts/build-sid-root.sh
# (gcc 16, binutils 2.47.50: SFrame v3), so that the SFrame v3 corpus is
# built by the toolchain current distributions ship, configure checks
# included.
#   sid-run.sh TOP DIR CMD ARGS...
# TOP (the repository) is bind-mounted at /mnt in a private mount
# namespace: nothing is mounted on the host and nothing is written into
# the root (TMPDIR and HOME are TOP/build/host/sid-tmp).  Every occurrence
# of TOP in DIR (the working directory) and in ARGS is replaced by /mnt.
# The root has no make and no xz: copies of the host's (both only need
# libc, and liblzma for xz, which the root has) come first in PATH.  The
# environment is reset (no MAKEFLAGS of the caller).
# Needs root (unshare, mount, chroot), like scripts/build-sid-root.sh.
set -euo pipefail
SID_ROOT=${SID_ROOT:-/var/cache/sframe-sid/root}
[ $# -ge 3 ] || { echo "usage: sid-run.sh TOP DIR CMD ARGS..." >&2; exit 2; }
top=$(cd "$1" && pwd -P) dir=$2
shift 2
if [ ! -f "$SID_ROOT/.sframe-recipe" ] || [ ! -x "$SID_ROOT/usr/bin/gcc" ]; then
	echo "sid-run: no sid root in $SID_ROOT: run scripts/build-sid-root.sh" >&2
	exit 1
fi
tools=$top/build/host/sid-tools
if [ ! -x "$tools/make" ] || [ ! -x "$tools/xz" ]; then
	mkdir -p "$tools"
	cp "$(command -v make)" "$(command -v xz)" "$tools/"
fi
mkdir -p "$top/build/host/sid-tmp"	# TMPDIR: not the root's /tmp
args=()
for a in "$@"; do
	args+=("${a//"$top"//mnt}")
done
# shellcheck disable=SC2016
exec unshare -m /bin/sh -c '
	mount --bind "$1" "$2/mnt" || exit 1
	root=$2 dir=$3
	shift 3
	tmp=/mnt/build/host/sid-tmp
	exec chroot "$root" /usr/bin/env -i \
		PATH=/mnt/build/host/sid-tools:/usr/bin:/bin \
		HOME=$tmp TMPDIR=$tmp LANG=C.UTF-8 \
		/bin/sh -c "cd \"\$0\" && exec \"\$@\"" "$dir" "$@"
' sh "$top" "$SID_ROOT" "${dir//"$top"//mnt}" "${args[@]}"
