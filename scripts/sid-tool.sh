#!/bin/bash
# Run a program of the sid root (scripts/build-sid-root.sh) on this system,
# without chroot: through the root's own dynamic loader and libraries.
#   scripts/sid-tool.sh PROGRAM ARGS...   e.g. sid-tool.sh as --version
# PROGRAM is a name in the root's /usr/bin.  Paths in ARGS are the host's.
# SID_TOOL_TREE=DIR: take PROGRAM and its own libraries from DIR instead
# (unpacked packages of another release, e.g. the SFrame v2 binutils),
# with the sid root's libc.
SID_ROOT=${SID_ROOT:-/var/cache/sframe-sid/root}
tree=${SID_TOOL_TREE:-$SID_ROOT}
prog=$1
shift
case $prog in /*) ;; *) prog=$tree/usr/bin/$prog ;; esac
if [ -L "$prog" ]; then
	t=$(readlink "$prog")
	case $t in /*) prog=$tree$t ;; *) prog=$(dirname "$prog")/$t ;; esac
fi
[ -x "$prog" ] || { echo "sid-tool: no $prog (scripts/build-sid-root.sh)" >&2; exit 127; }
libs=$SID_ROOT/usr/lib/x86_64-linux-gnu:$SID_ROOT/lib/x86_64-linux-gnu
[ "$tree" = "$SID_ROOT" ] || libs=$tree/usr/lib/x86_64-linux-gnu:$libs
exec "$SID_ROOT/lib64/ld-linux-x86-64.so.2" --library-path "$libs" "$prog" "$@"
