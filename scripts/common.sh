# Sourced by the other scripts: paths and per-architecture settings.
# Every path is derived from the repository this file lives in.
# shellcheck shell=bash

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$TOP/build
SRC_TARBALL=${SRC_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
SRCDIR=$BUILD/src/linux-6.1
PRISTINE=$BUILD/src/pristine/linux-source-6.1

# ccache lives outside the repository so that fresh clones (CI) share it.
export CCACHE_DIR=${CCACHE_DIR:-/var/cache/sframe-ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
# Paths below the repository are rewritten to relative ones in the hash,
# so clones at another place hit the same cache entries.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$TOP}
# Reproducible build stamps (also keeps ccache hits for init/version.c).
export KBUILD_BUILD_USER=sframe KBUILD_BUILD_HOST=qemu
export KBUILD_BUILD_TIMESTAMP=${KBUILD_BUILD_TIMESTAMP:-2024-01-01}

JOBS=${JOBS:-$(nproc)}

die() { echo "error: $*" >&2; exit 1; }
log() { echo "==> $*" >&2; }

# set_arch ARCH: sets KARCH, CROSS, CCPREFIX, KIMAGE, OBJDIR, ARCHBUILD
set_arch() {
	ARCH=${1:-${ARCH:-x86_64}}
	case $ARCH in
	x86_64)
		KARCH=x86_64 CROSS= KIMAGE_TARGET=bzImage
		KIMAGE_REL=arch/x86/boot/bzImage DEB_ARCH=amd64
		MULTIARCH=x86_64-linux-gnu
		;;
	arm64|aarch64)
		ARCH=arm64
		KARCH=arm64 CROSS=aarch64-linux-gnu- KIMAGE_TARGET=Image
		KIMAGE_REL=arch/arm64/boot/Image DEB_ARCH=arm64
		MULTIARCH=aarch64-linux-gnu
		;;
	*) die "unsupported ARCH '$ARCH' (x86_64 or arm64)" ;;
	esac
	ARCHBUILD=$BUILD/$ARCH
	# KFLAVOR=bench: a kernel without the debug and KUnit options (for
	# make bench), KFLAVOR=stress: with KASAN, KMEMLEAK and the lock and
	# RCU checkers (make stress), KFLAVOR=debian: Debian's own
	# configuration (make debian-kernel); each in an object directory of
	# its own
	case ${KFLAVOR:-test} in
	test)	OBJDIR=$ARCHBUILD/kernel ;;
	bench)	OBJDIR=$ARCHBUILD/kernel-bench ;;
	stress)	OBJDIR=$ARCHBUILD/kernel-stress ;;
	debian)	OBJDIR=$ARCHBUILD/kernel-debian ;;
	*)	die "unknown KFLAVOR '$KFLAVOR' (test, bench, stress or debian)" ;;
	esac
	KIMAGE=$OBJDIR/$KIMAGE_REL
	# STRESS=1: the stress initramfs (make stress), BENCH=1 the bench
	# one (make bench), next to the test one
	if [ "${STRESS:-0}" = 1 ]; then
		INITRD_NAME=initramfs-stress
	elif [ "${BENCH:-0}" = 1 ]; then
		INITRD_NAME=initramfs-bench
	else
		INITRD_NAME=initramfs
	fi
	# make arguments for the kernel build system
	KMAKE=(make -C "$SRCDIR" O="$OBJDIR" ARCH="$KARCH" -j"$JOBS"
	       CC="ccache ${CROSS}gcc" HOSTCC="ccache gcc")
	if [ -n "$CROSS" ]; then
		KMAKE+=(CROSS_COMPILE="$CROSS")
	fi
}

# guest_run NAME APPEND TIMEOUT END_RE: build the kernel and the initramfs,
# boot with the kernel parameters APPEND, log to build/<arch>/NAME.log;
# fails (showing the log's end) unless a line matches END_RE.
guest_run() {
	local name=$1 append=$2 timeout=$3 end=$4 glog=$ARCHBUILD/$1.log
	make -C "$TOP" --no-print-directory kernel ARCH="$ARCH"
	make -C "$TOP" --no-print-directory initramfs ARCH="$ARCH"
	QEMU_APPEND="$append" QEMU_TIMEOUT=${QEMU_TIMEOUT:-$timeout} \
		"$TOP/scripts/run-qemu.sh" "$ARCH" > "$glog" 2>&1 || true
	if ! grep -qE "$end" "$glog"; then
		tail -n 40 "$glog"
		die "the $name run did not finish (log: $glog)"
	fi
}
