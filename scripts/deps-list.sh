# Sourced: the Debian packages each part of the harness needs.
# shellcheck shell=bash
DEPS_COMMON=(linux-source-6.1 quilt ccache build-essential flex bison bc
	libelf-dev libssl-dev cpio kmod rsync xz-utils gzip file python3 binutils-dev)
# libc6-dbg: libc's symbols for perf in the guest (see mk-initramfs.sh)
# lzip: a C++ program of Debian's for the guest's stock-lzip test
DEPS_X86_64=(qemu-system-x86 busybox-static linux-perf libc6-dbg lzip)
# (g++: the C++ test program, userland-tests/cxx.cc; x86_64's g++ comes
# with build-essential)
DEPS_ARM64=(qemu-system-arm gcc-aarch64-linux-gnu g++-aarch64-linux-gnu
	libc6-dev-arm64-cross binutils-aarch64-linux-gnu dpkg-dev)
# test programs and oracles (userland-tests/, host-tests/: libsframe,
# libFuzzer runtime, llvm-cov, tcl for the sqlite3 amalgamation; libdw and
# the arm64 libstdc++ for the .eh_frame converter test, cfidiff;
# debootstrap for the sid root with the SFrame v3 toolchain,
# scripts/build-sid-root.sh)
DEPS_TESTS=(clang clang-14 llvm-14 libclang-rt-14-dev valgrind dwarves
	libdw-dev libstdc++6-arm64-cross
	make patch binutils tcl debootstrap
	sparse)
# (sparse: make series-check runs C=2 on the objects the series touches)
# scripts/build-glibc-sframe.sh (make glibc-sframe; not part of make deps)
DEPS_GLIBC=(gawk bison python3 dpkg-dev make gcc binutils)
DEPS_GLIBC_ARM64=(gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu
	linux-libc-dev-arm64-cross)
