#!/bin/bash
# Build build/<arch>/initramfs.cpio.gz: busybox, perf with all its shared
# libraries, the test programs (userland-tests/ -> /tests), libc's debug
# symbols and /init.
#   scripts/mk-initramfs.sh ARCH
# SMOKE=1 installs qemu/smoke-test.sh as /tests/run-tests.sh even when the
# userland tests have their own (harness debugging).  STRESS=1 builds
# build/<arch>/initramfs-stress.cpio.gz for make stress instead, BENCH=1
# build/<arch>/initramfs-bench.cpio.gz for make bench (the test one plus
# Debian's cc1 as /tests/cc1).
set -euo pipefail
. "$(dirname "$0")/common.sh"
set_arch "${1:-}"

"$TOP/scripts/check-deps.sh" initramfs-$ARCH

ROOT=$ARCHBUILD/$INITRD_NAME-root
OUT=$ARCHBUILD/$INITRD_NAME.cpio.gz
TESTS_OUT=$ARCHBUILD/tests
# STRESS=1: the stress initramfs, whose /tests also has the churn program,
# stress.sh and the hostile ELF files (make -C userland-tests stress)
TESTS_GOAL=all
[ "${STRESS:-0}" = 1 ] && TESTS_GOAL=stress

# Where the guest's binaries come from: the host for x86_64, Debian arm64
# packages unpacked by scripts/fetch-arm64-debs.sh for arm64.
if [ "$ARCH" = x86_64 ]; then
	SYSROOT=/
else
	SYSROOT=$("$TOP/scripts/fetch-arm64-debs.sh")
fi
BUSYBOX=$SYSROOT/bin/busybox
PERF=$SYSROOT/usr/bin/perf
[ -x "$BUSYBOX" ] || die "no busybox at $BUSYBOX (busybox-static)"
[ -x "$PERF" ] || die "no perf at $PERF (linux-perf)"

start=$(date +%s)
rm -rf "$ROOT"
mkdir -p "$ROOT"/{bin,sbin,usr/bin,usr/sbin,usr/lib,usr/lib64,etc,proc,sys,dev,tmp,root,mnt,tests}
# merged /usr like Debian: /lib/<multiarch>/... and /lib64/ld-linux... resolve
ln -s usr/lib "$ROOT/lib"
ln -s usr/lib64 "$ROOT/lib64"

install -m 0755 "$BUSYBOX" "$ROOT/bin/busybox"
ln -s busybox "$ROOT/bin/sh"           # the other applets: busybox --install at boot
install -m 0755 "$PERF" "$ROOT/usr/bin/perf"
install -m 0755 "$TOP/qemu/init" "$ROOT/init"
install -m 0755 "$TOP/qemu/smoke-test.sh" "$ROOT/smoke-test.sh"
printf 'root:x:0:0:root:/root:/bin/sh\n' > "$ROOT/etc/passwd"
printf 'root:x:0:\n' > "$ROOT/etc/group"

# --- test programs ----------------------------------------------------------
# SFrame v3 and v2: the chain tests' programs built with newer binutils
# (sid's 2.47: v3, trixie's 2.44: v2) and bookworm's gcc and libc, so that
# they run on the guest's libc, into /tests/v3 and /tests/v2; and
# processes that mix v1 and v3 objects: /tests/mix-v1v3 (program v1,
# libraries v3) and /tests/mix-v3v1 (the reverse).  Skipped, with a
# message, without the sid root (scripts/build-sid-root.sh; make check
# makes it).
build_version_tests() {
	local ver=$1 bin cc out=$TESTS_OUT/$1
	if ! bin=$("$TOP/scripts/sid-toolchain.sh" "$ARCH" "$ver" 2>/dev/null); then
		log "no sid root (scripts/build-sid-root.sh): no SFrame $ver tests in the guest"
		return 0
	fi
	cc=gcc
	[ "$ARCH" = x86_64 ] || cc=${CROSS}gcc
	log "building SFrame $ver tests (make -C userland-tests newer OUT=$out CC=\"$cc -B$bin/\")"
	make -C "$TOP/userland-tests" ARCH="$ARCH" OUT="$out" CC="$cc -B$bin/" newer
	# (into a file: grep -q would end the pipe early, and pipefail fail it)
	"$TOP/scripts/sid-tool.sh" ${CROSS}readelf --sframe "$out/shapes" > "$out.sframe-dump"
	grep -q "Version: SFRAME_VERSION_${ver#v}" "$out.sframe-dump" ||
		die "$out/shapes has no SFrame $ver section"
	mkdir -p "$ROOT/tests/$ver"
	cp -a "$out/." "$ROOT/tests/$ver/"
}

build_newer_tests() {
	build_version_tests v3
	build_version_tests v2
	[ -d "$ROOT/tests/v3" ] || return 0
	mkdir -p "$ROOT/tests/mix-v1v3" "$ROOT/tests/mix-v3v1"
	cp -a "$TESTS_OUT/dso" "$TESTS_OUT/v3/libsfchain.so" "$TESTS_OUT/v3/libsfdl.so" \
		"$ROOT/tests/mix-v1v3/"
	cp -a "$TESTS_OUT/v3/dso" "$TESTS_OUT/libsfchain.so" "$TESTS_OUT/libsfdl.so" \
		"$ROOT/tests/mix-v3v1/"
}

if [ -f "$TOP/userland-tests/Makefile" ]; then
	log "building userland tests (make -C userland-tests ARCH=$ARCH OUT=$TESTS_OUT)"
	make -C "$TOP/userland-tests" ARCH="$ARCH" OUT="$TESTS_OUT" "$TESTS_GOAL"
	if [ "$TESTS_GOAL" = stress ]; then
		cp -a "$TESTS_OUT/." "$ROOT/tests/"
	else
		# (the stress build's hostile files stay out of the test guest)
		tar -C "$TESTS_OUT" --exclude=./hostile -cf - . | tar -C "$ROOT/tests" -xf -
		build_newer_tests
	fi
else
	log "userland-tests/Makefile not there yet: skipping the test programs"
fi
# A real program for nosframe.sh: lua built from Debian's lua5.4 source
# with -Wa,--gsframe, the host tests' corpus object (make check runs the
# host tests first; otherwise it is built here).  Without it the guest
# test nosframe-complete fails and says why.
if [ -f "$ROOT/tests/nosframe.sh" ]; then
	case $ARCH in
	x86_64) lua=$BUILD/host/corpus/lua-x86_64 ;;
	arm64) lua=$BUILD/host/corpus/lua-aarch64 ;;
	esac
	log "lua for nosframe.sh (make -C host-tests $lua)"
	if make -C "$TOP/host-tests" "$lua" && [ -f "$lua" ]; then
		install -m 0755 "$lua" "$ROOT/tests/lua"
	else
		log "could not build $lua: no /tests/lua, the guest test nosframe-complete will fail"
	fi
fi
# Debian's own perl (perl-base), unmodified, for make demo: a program of
# the distribution without .sframe, whose functions perf can name (its
# dynamic symbols), with a hot path in libc.  Its libraries: below.
install -m 0755 "${SYSROOT%/}/usr/bin/perl" "$ROOT/usr/bin/perl"
# More of Debian's programs, unmodified, for run-tests.sh's stock-* tests
# (lzip: C++; xz: threads; sort: libc through the PLT in its inner loop),
# in /tests/debian, away from busybox's applets of the same names (their
# libraries: below, with the test programs').
mkdir -p "$ROOT/tests/debian"
for p in lzip xz sort; do
	f=${SYSROOT%/}/usr/bin/$p
	[ "$p" = lzip ] && [ -e "$f.lzip" ] && f=$f.lzip	# an alternative
	[ -f "$f" ] || die "no $f (x86_64: apt-get install lzip; arm64: fetch-arm64-debs.sh)"
	install -m 0755 "$f" "$ROOT/tests/debian/$p"
done
# BENCH=1: Debian's own cc1 (cpp-12; for arm64 in the packages of
# fetch-arm64-debs.sh), a real program without .sframe that bench.sh runs
# again and again under perf record -a -g (its libraries: below)
if [ "${BENCH:-0}" = 1 ]; then
	cc1=${SYSROOT%/}/usr/lib/gcc/$MULTIARCH/12/cc1
	[ -x "$cc1" ] || die "BENCH=1: no $cc1 (cpp-12)"
	install -m 0755 "$cc1" "$ROOT/tests/cc1"
fi
if [ ! -f "$ROOT/tests/run-tests.sh" ] || [ "${SMOKE:-0}" = 1 ]; then
	log "using qemu/smoke-test.sh as /tests/run-tests.sh"
	install -m 0755 "$TOP/qemu/smoke-test.sh" "$ROOT/tests/run-tests.sh"
fi

# --- shared libraries ---------------------------------------------------------
# Resolve DT_NEEDED recursively the way ld.so would, inside SYSROOT, and
# copy every library (dereferenced) to the same path in the guest.
READELF=readelf
[ "$ARCH" = x86_64 ] || READELF=${CROSS}readelf
libdirs=("lib/$MULTIARCH" "usr/lib/$MULTIARCH" lib usr/lib)
declare -A copied=()

guest_path() {	# host path below SYSROOT -> path in the guest (merged /usr)
	local p=${1#"${SYSROOT%/}"}
	case $p in /lib/*|/lib64/*) p=/usr$p ;; esac
	echo "$p"
}

copy_file() {	# copy_file SYSROOT_PATH: copy dereferenced, keep the name
	local g
	case $1 in "$ROOT"/*) return 0 ;; esac	# already in the guest tree
	g=$(guest_path "$1")
	[ -e "$ROOT$g" ] && return 0
	mkdir -p "$(dirname "$ROOT$g")"
	cp -L "$1" "$ROOT$g"
}

find_lib() {	# find_lib SONAME RUNPATHS...
	local so=$1 d
	shift
	for d in "$@" "${libdirs[@]/#/${SYSROOT%/}/}"; do
		if [ -e "$d/$so" ]; then echo "$d/$so"; return 0; fi
	done
	return 1
}

add_elf() {	# add_elf HOST_FILE: copy its interpreter and needed libraries
	local f=$1 interp lib so rp origin
	local -a runpaths=()
	interp=$($READELF -lW "$f" 2>/dev/null |
		sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
	if [ -n "$interp" ] && [ -z "${copied[$interp]:-}" ]; then
		copied[$interp]=1
		copy_file "${SYSROOT%/}$interp"
	fi
	origin=$(dirname "$f")
	for rp in $($READELF -dW "$f" 2>/dev/null |
		sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]/\2/p' | tr ':' ' '); do
		runpaths+=("${rp//\$ORIGIN/$origin}")
	done
	for so in $($READELF -dW "$f" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		[ -n "${copied[$so]:-}" ] && continue
		copied[$so]=1
		lib=$(find_lib "$so" "${runpaths[@]}") ||
			die "$(basename "$f") needs $so: not found in $SYSROOT"
		copy_file "$lib"
		add_elf "$lib"
	done
}

add_elf "$PERF"
add_elf "${SYSROOT%/}/usr/bin/perl"
# the test programs (dynamically linked ones need their libraries too)
while IFS= read -r -d '' f; do
	if head -c4 "$f" | grep -q 'ELF'; then add_elf "$f"; fi
done < <(find "$ROOT/tests" -path "$ROOT/tests/hostile" -prune -o \
	-type f -perm -u+x -print0)	# (hostile ELF files: broken on purpose)
log "copied ${#copied[@]} shared objects"

# --- glibc built with SFrame (GLIBC_SFRAME=1) ----------------------------------
# Debian's glibc libraries in the guest (libc.so.6, ld.so, libm, ...) are
# replaced by the same source version built with -Wa,--gsframe
# (scripts/build-glibc-sframe.sh, cached outside the repository; make
# glibc-sframe builds it): libc and ld.so then carry .sframe.  Their own
# .symtab names their frames (the libc6-dbg files below are for Debian's
# build IDs, which these do not have).  Static test programs keep
# Debian's libc.a.  /tests/LIBC says which libc the guest has.
if [ "${GLIBC_SFRAME:-0}" = 1 ]; then
	glibc=$("$TOP/scripts/build-glibc-sframe.sh" "$ARCH" | tail -n 1)
	[ -f "$glibc/libc.so.6" ] || die "no SFrame-built glibc in '$glibc'"
	replaced=()
	while IFS= read -r -d '' f; do
		so=$(basename "$f")
		[ -f "$glibc/$so" ] || continue
		cp "$glibc/$so" "$f"
		replaced+=("${f#"$ROOT"}")
	done < <(find "$ROOT/usr/lib" "$ROOT/usr/lib64" -path "$ROOT/usr/lib/debug" -prune -o -type f -print0)
	case $ARCH in
	x86_64) rtld=ld-linux-x86-64.so.2 ;;
	arm64) rtld=ld-linux-aarch64.so.1 ;;
	esac
	for so in libc.so.6 $rtld; do
		case " ${replaced[*]} " in
		*"/$so "*) ;;
		*) die "GLIBC_SFRAME=1: no $so replaced in the guest" ;;
		esac
	done
	log "SFrame-built glibc ($glibc): ${replaced[*]}"
	echo "sframe $(basename "$(dirname "$glibc")")" > "$ROOT/tests/LIBC"
else
	echo "debian" > "$ROOT/tests/LIBC"
fi

# --- libc's symbols -------------------------------------------------------------
# Debian's libc.so.6 has only its dynamic symbols: perf would print main's
# caller (__libc_start_call_main) and start_thread as [unknown].  perf
# finds the separate debug file of libc6-dbg by build ID under
# /usr/lib/debug/.build-id/, so the tests can expect those names exactly.
# The same for libm and ld.so (nosframe.sh: their frames get names too).
case $ARCH in
x86_64) ldso=ld-linux-x86-64.so.2 ;;
arm64) ldso=ld-linux-aarch64.so.1 ;;
esac
for so in libc.so.6 libm.so.6 $ldso; do
	lib=$(find_lib $so) || die "no $so in $SYSROOT"
	bid=$($READELF -nW "$lib" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
	[ -n "$bid" ] || die "$lib has no build ID"
	dbg=usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug
	[ -f "${SYSROOT%/}/$dbg" ] ||
		die "no ${SYSROOT%/}/$dbg: libc6-dbg missing or not the version of libc6 (run 'make deps')"
	mkdir -p "$ROOT/$(dirname "$dbg")"
	cp "${SYSROOT%/}/$dbg" "$ROOT/$dbg"
	log "$so symbols: /$dbg"
done

# --- archive --------------------------------------------------------------------
(cd "$ROOT" && find . -mindepth 1 | LC_ALL=C sort |
	cpio --quiet -o -H newc -R 0:0) | gzip -1 > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
log "initramfs: $OUT ($(du -sh "$ROOT" | cut -f1) unpacked, $(du -h "$OUT" | cut -f1) gz) in $(( $(date +%s) - start ))s"
