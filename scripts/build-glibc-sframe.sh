#!/bin/bash
# Build Debian's glibc (the source version of the guest's libc6) with
# SFrame data, as a distribution would ship it: every object assembled with
# -Wa,--gsframe, so libc.so.6 and ld.so carry .sframe and PT_GNU_SFRAME.
#   scripts/build-glibc-sframe.sh ARCH        (x86_64 or arm64)
# Prints the result directory on stdout:
#   $GLIBC_SFRAME_CACHE/<arch>/<version>/lib/<soname>
# (libc.so.6, ld-linux-*.so.*, libm.so.6, libpthread.so.0, ...: every
# shared library of the build that has a SONAME, debug info stripped,
# .symtab kept, so perf names static functions like __libc_start_call_main
# from the object itself.)
#
# The source comes from `apt-get source glibc=<version>` (Debian's patches
# applied) through a private apt configuration whose deb-src lines are
# made at run time from the system's own Debian entries; nothing of the
# system's apt state changes.  A plain out-of-tree configure + make
# (Debian's directory layout and main configure options, no test suite).
# Everything lives outside the repository, like the ccache, keyed by the
# source version and the build recipe: a second run prints the directory
# at once, an interrupted one goes on where it stopped.  Everything runs
# under nice -n 19.
# Variables: GLIBC_SFRAME_CACHE (default /var/cache/sframe-glibc),
# GLIBC_VERSION (default: the version of the guest's libc6), JOBS,
# GLIBC_MAKE_GOAL (default all; "lib" builds only libc and ld.so: libm,
# libpthread and the other libraries come with the programs in glibc's
# second pass), KEEP_BUILD=1 (keep the object directory, about 1 GB).
set -euo pipefail
. "$(dirname "$0")/common.sh"
set_arch "${1:-}"

CACHE=${GLIBC_SFRAME_CACHE:-/var/cache/sframe-glibc}
NICE=(nice -n 19)
start=$(date +%s)

"$TOP/scripts/check-deps.sh" glibc-$ARCH

# --- the version: that of the libc6 the guest gets ----------------------------
if [ -z "${GLIBC_VERSION:-}" ]; then
	if [ "$ARCH" = x86_64 ]; then
		GLIBC_VERSION=$(dpkg-query -W -f='${Version}' libc6:amd64)
	else
		sysroot=$("$TOP/scripts/fetch-arm64-debs.sh")
		GLIBC_VERSION=$(sed -n 's/^libc6_\([^_]*\)_arm64\.deb$/\1/p' "$sysroot/.packages" |
			sed 's/%3a/:/g')
	fi
fi
[ -n "$GLIBC_VERSION" ] || die "cannot tell the version of libc6 for $ARCH"
case $GLIBC_VERSION in 2.36-*) ;; *) log "warning: glibc $GLIBC_VERSION, not 2.36 (bookworm)" ;; esac

OUTDIR=$CACHE/$ARCH/$GLIBC_VERSION
LIBOUT=$OUTDIR/lib
# The recipe: any change to it makes a new build (the stamp must match).
SFRAME_FLAGS="-Wa,--gsframe"
HOST_CFLAGS="-pipe -O2 -g $SFRAME_FLAGS"
CONFIG_OPTS=(--prefix=/usr --without-selinux --disable-crypt
	--enable-stackguard-randomization --enable-stack-protector=strong
	--enable-kernel=3.2 --enable-multi-arch --disable-werror
	"--with-pkgversion=Debian GLIBC $GLIBC_VERSION (SFrame build)")
[ "$ARCH" = arm64 ] && CONFIG_OPTS+=(--enable-memory-tagging)
RECIPE="glibc $GLIBC_VERSION $ARCH recipe 1: CFLAGS=$HOST_CFLAGS ${CONFIG_OPTS[*]}"

verify() {	# verify DIR: libc and ld.so carry SFrame v1 or v2 and PT_GNU_SFRAME
	local d=$1 f n fdes ver
	n=0
	for f in "$d"/libc.so.6 "$d"/ld-linux-*.so.*; do
		[ -f "$f" ] || die "$f missing"
		${CROSS}readelf -lW "$f" | grep -q GNU_SFRAME || die "$f: no PT_GNU_SFRAME"
		${CROSS}readelf -SW "$f" | grep -q ' \.sframe ' || die "$f: no .sframe section"
		${CROSS}readelf -SW "$f" | grep -q ' \.symtab ' || die "$f: no .symtab"
		fdes=$(${CROSS}readelf --sframe "$f" 2>/dev/null |
			sed -n 's/^ *Num FDEs: *\([0-9]*\).*/\1/p' | head -1)
		ver=$(${CROSS}readelf --sframe "$f" 2>/dev/null |
			sed -n 's/^ *Version: *\([A-Z_0-9]*\).*/\1/p' | head -1)
		log "$(basename "$f"): PT_GNU_SFRAME, .sframe $ver, ${fdes:-?} FDEs"
		n=$((n + 1))
	done
	[ $n -ge 2 ] || die "libc.so.6 or ld.so missing in $d"
}

GOAL=${GLIBC_MAKE_GOAL:-all}
case $GOAL in all|lib) ;; *) die "GLIBC_MAKE_GOAL is all or lib" ;; esac
# cached: the same recipe, built with the goal asked for or with all
if [ -f "$OUTDIR/.stamp" ] && [ "$(cat "$OUTDIR/.stamp")" = "$RECIPE" ] &&
   { [ "$(cat "$OUTDIR/.goal" 2>/dev/null || echo all)" = all ] ||
     [ "$(cat "$OUTDIR/.goal")" = "$GOAL" ]; }; then
	verify "$LIBOUT"
	log "glibc-sframe: $ARCH $GLIBC_VERSION cached in $LIBOUT (make $(cat "$OUTDIR/.goal" 2>/dev/null || echo all))"
	echo "$LIBOUT"
	exit 0
fi

# --- source: apt-get source with a private configuration -------------------------
SRCTOP=$CACHE/src/$GLIBC_VERSION
APTDIR=$CACHE/apt
if [ ! -f "$SRCTOP/.unpacked" ]; then
	mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial"
	# deb-src lines for the system's Debian entries of this release (all of
	# its suites: the installed libc6 may come from -security or -updates)
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ -n "$codename" ] || die "no VERSION_CODENAME in /etc/os-release"
	{
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -f "$f" ] || continue
			awk -v rel="$codename" '
			function flush() {
				if (uri != "" && types ~ /deb/)
					for (i = 1; i <= ns; i++)
						print "deb-src [signed-by=" key "] " uri " " s[i] " main"
				uri = ""; types = ""; comps = ""; ns = 0; key = ""
			}
			/^[ \t]*$/ { flush(); next }
			/^Types:/ { types = $0 }
			/^URIs:/ { uri = $2 }
			/^Signed-By:/ { key = $2 }
			/^Suites:/ { ns = 0; for (i = 2; i <= NF; i++) if ($i ~ "^" rel "(-|$)") s[++ns] = $i }
			END { flush() }' "$f"
		done
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[ -f "$f" ] || continue
			awk -v rel="$codename" '$1 == "deb" && $0 ~ / main/ {
				for (i = 2; i <= NF; i++) if ($i ~ "^" rel "(-|$)") { $1 = "deb-src"; print; next } }' "$f"
		done
	} | sed -e 's/\[signed-by=\] //' | sort -u > "$APTDIR/sources.list.tmp"
	grep -q . "$APTDIR/sources.list.tmp" || die "no Debian $codename apt source found"
	mv "$APTDIR/sources.list.tmp" "$APTDIR/sources.list"
	APT=(-o Dir::Etc::sourcelist="$APTDIR/sources.list" -o Dir::Etc::sourceparts=-
	     -o Dir::State::Lists="$APTDIR/lists" -o Dir::Cache="$APTDIR/cache"
	     -o APT::Get::List-Cleanup=0 -o APT::Sandbox::User=root -q)
	log "glibc-sframe: apt-get source glibc=$GLIBC_VERSION (private apt configuration in $APTDIR)"
	apt-get "${APT[@]}" update > "$APTDIR/update.log" 2>&1 ||
		{ cat "$APTDIR/update.log" >&2; die "apt-get update failed"; }
	rm -rf "$SRCTOP"
	mkdir -p "$SRCTOP"
	(cd "$SRCTOP" && "${NICE[@]}" apt-get "${APT[@]}" source "glibc=$GLIBC_VERSION") \
		> "$SRCTOP.log" 2>&1 || { tail -20 "$SRCTOP.log" >&2; die "apt-get source failed"; }
	touch "$SRCTOP/.unpacked"
fi
SRC=$(find "$SRCTOP" -mindepth 1 -maxdepth 1 -type d -name 'glibc-*' | head -1)
[ -x "$SRC/configure" ] || die "no glibc source in $SRCTOP"

# --- configure + make -----------------------------------------------------------
BUILDDIR=$OUTDIR/build
resume=0
if [ -f "$OUTDIR/.configured" ] && [ "$(cat "$OUTDIR/.configured")" = "$RECIPE" ] &&
   [ -f "$BUILDDIR/config.status" ]; then
	resume=1
else
	rm -rf "$OUTDIR"
	mkdir -p "$BUILDDIR"
fi
case $ARCH in
x86_64)	host=x86_64-linux-gnu rtlddir=/lib64 ;;
arm64)	host=aarch64-linux-gnu rtlddir=/lib ;;
esac
t0=$(date +%s)
if [ $resume = 1 ]; then
	log "glibc-sframe: resuming the build in $BUILDDIR"
	mv "$OUTDIR/build.log" "$OUTDIR/build.log.1" 2>/dev/null || true
else
	# Debian's directory layout (debian/rules, debian/rules.d/build.mk):
	# the dynamic linker's default search path must be /lib/<multiarch>,
	# where the guest has its libraries (it has no ld.so.cache).
	cat > "$BUILDDIR/configparms" <<-EOF
	CFLAGS = $HOST_CFLAGS
	ASFLAGS = $HOST_CFLAGS
	BUILD_CFLAGS = -O2 -g
	LDFLAGS =
	BASH := /bin/bash
	KSH := /bin/bash
	SHELL := /bin/bash
	LIBGD = no
	libdir = /usr/lib/$MULTIARCH
	slibdir = /lib/$MULTIARCH
	rtlddir = $rtlddir
	libexecdir = /usr/lib
	rootsbindir = /sbin
	EOF
	log "glibc-sframe: configure $ARCH ($host) in $BUILDDIR"
	(cd "$BUILDDIR" &&
		CC="${CROSS}gcc" CXX=: AUTOCONF=false MAKEINFO=: \
		"${NICE[@]}" "$SRC/configure" --host=$host --build=x86_64-linux-gnu \
		"${CONFIG_OPTS[@]}") > "$OUTDIR/configure.log" 2>&1 ||
		{ tail -30 "$OUTDIR/configure.log" >&2; die "configure failed (log: $OUTDIR/configure.log)"; }
	echo "$RECIPE" > "$OUTDIR/.configured"
fi
log "glibc-sframe: make -j$JOBS $GOAL (log: $OUTDIR/build.log)"
if ! "${NICE[@]}" make -C "$BUILDDIR" -j"$JOBS" "$GOAL" > "$OUTDIR/build.log" 2>&1; then
	grep -n -m20 -E 'Error|error:' "$OUTDIR/build.log" >&2 || tail -30 "$OUTDIR/build.log" >&2
	die "make failed (log: $OUTDIR/build.log)"
fi
t1=$(date +%s)

# --- results: every shared library with a SONAME, by that name ----------------------
mkdir -p "$LIBOUT"
n=0
while IFS= read -r -d '' f; do
	so=$(${CROSS}readelf -dW "$f" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
	[ -n "$so" ] || continue
	${CROSS}objcopy --strip-debug "$f" "$LIBOUT/$so"
	n=$((n + 1))
done < <(find "$BUILDDIR" -name '*.so' -type f -print0)
log "glibc-sframe: $n shared libraries in $LIBOUT"
verify "$LIBOUT"
gsw=$(cat "$OUTDIR"/build.log* | grep -c 'skipping SFrame FDE' || true)
log "glibc-sframe: the assembler skipped $gsw SFrame FDEs (CFI it cannot express; see build.log)"
# (a lib build keeps its objects: make all can go on from there)
if [ "${KEEP_BUILD:-0}" != 1 ] && [ "$GOAL" = all ]; then
	rm -rf "$BUILDDIR"
fi
echo "$GOAL" > "$OUTDIR/.goal"
echo "$RECIPE" > "$OUTDIR/.stamp"
log "glibc-sframe: $ARCH $GLIBC_VERSION built in $(( (t1 - t0) / 60 )) min $(( (t1 - t0) % 60 )) s ($([ $resume = 1 ] && echo "resumed " || echo "configure + ")make $GOAL), $(( $(date +%s) - start )) s in all"
echo "$LIBOUT"
