#!/bin/bash
# Build one object of the differential-test corpus, from a Debian source
# package downloaded by fetch-sources.sh: with SFrame v1 data when run on
# the host (bookworm gas), v3 when run in the sid root by sid-run.sh.
#   corpus.sh SRCDIR WORKDIR PROJECT ARCH OUTFILE
# PROJECT: sqlite3 | lua | zstd | gawk       ARCH: x86_64 | aarch64
set -euo pipefail
src=$1 work=$2 proj=$3 arch=$4 out=$5
case $arch in
x86_64) cc=gcc host=x86_64-linux-gnu pac= ;;
aarch64) cc=aarch64-linux-gnu-gcc host=aarch64-linux-gnu
	# return addresses signed: FREs with the mangled-RA bit
	pac=-mbranch-protection=pac-ret ;;
-) [ "$proj" = sqlite3-amalgamation ] ||
	{ echo "corpus: $proj needs an arch" >&2; exit 1; } ;;
*) echo "corpus: unknown arch $arch" >&2; exit 1 ;;
esac
cflags="-O2 -Wa,--gsframe"
one() {	# the single file matching a glob, or fail
	local f
	f=$(ls -d $1 2>/dev/null | head -1)
	[ -n "$f" ] || { echo "corpus: nothing matches $1 in $src" >&2; exit 1; }
	echo "$f"
}
unpack() {	# unpack.sh TARBALL-GLOB DIR
	local t
	t=$(one "$src/$1")
	rm -rf "$2"; mkdir -p "$2"
	tar xf "$t" -C "$2" --strip-components=1
}
d=$work/$proj-$arch
log=$work/$proj-$arch.log
mkdir -p "$work" "$(dirname "$out")"
start=$SECONDS
case $proj in
sqlite3-amalgamation)
	# Architecture independent: generate sqlite3.c and shell.c once.
	d=$work/sqlite3-amalgamation
	unpack 'sqlite3_*.orig.tar.xz' "$d"
	mkdir -p "$d/bld"
	(cd "$d/bld" && ../configure --disable-tcl >"$log" 2>&1 &&
	 make sqlite3.c shell.c >>"$log" 2>&1) || { tail -20 "$log" >&2; exit 1; }
	cp "$d/bld/sqlite3.c" "$d/bld/sqlite3.h" "$d/bld/shell.c" "$(dirname "$out")/"
	touch "$out"
	;;
sqlite3)
	a=$(dirname "$out")
	$cc $cflags -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION \
		-I"$a" -o "$out.tmp" "$a/shell.c" "$a/sqlite3.c" >"$log" 2>&1 ||
		{ tail -20 "$log" >&2; exit 1; }
	;;
lua)
	unpack 'lua5.4_*.orig.tar.gz' "$d"
	(cd "$d/src" && $cc $cflags $pac -DLUA_USE_LINUX -o "$out.tmp" \
		$(ls *.c | grep -v '^luac\.c$') -lm -ldl) >"$log" 2>&1 ||
		{ tail -20 "$log" >&2; exit 1; }
	;;
zstd)
	unpack 'libzstd_*.orig.tar.xz' "$d"
	make -C "$d/programs" zstd CC="$cc" CFLAGS="$cflags $pac" \
		HAVE_ZLIB=0 HAVE_LZMA=0 HAVE_LZ4=0 HAVE_THREAD=1 >"$log" 2>&1 ||
		{ tail -20 "$log" >&2; exit 1; }
	cp "$d/programs/zstd" "$out.tmp"
	;;
gawk)
	unpack 'gawk_*.orig.tar.xz' "$d"
	# gawk 5.2 is not C23 code (the default of gcc >= 15: the sid root)
	(cd "$d" && ./configure -q --host=$host CC="$cc" CFLAGS="$cflags -std=gnu17" \
		--disable-nls --disable-extensions --disable-mpfr >"$log" 2>&1 &&
	 make -C support >>"$log" 2>&1 && make gawk >>"$log" 2>&1) ||
		{ tail -20 "$log" >&2; exit 1; }
	cp "$d/gawk" "$out.tmp"
	;;
*)
	echo "corpus: unknown project $proj" >&2; exit 1 ;;
esac
if [ -f "$out.tmp" ]; then
	mv "$out.tmp" "$out"
fi
echo "corpus: $proj $arch built in $((SECONDS - start)) s"
