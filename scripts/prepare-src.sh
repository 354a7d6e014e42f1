#!/bin/bash
# Create build/src/linux-6.1: the Debian linux-source-6.1 tree with the
# quilt series (patches/ + series) applied.
#
# - build/src/pristine/ keeps an untouched extracted copy of the tarball.
# - When the series or any listed patch changes, only the files touched by
#   the old and the new series are reset and re-patched; files whose final
#   content did not change get their old mtime back, so make rebuilds only
#   what really changed.
# - SERIES=FILE overrides the series file (e.g. /dev/null for a stock tree).
set -euo pipefail
. "$(dirname "$0")/common.sh"

SERIES=${SERIES:-$TOP/series}
PATCHDIR=$TOP/patches
STATE=$BUILD/src/applied.state
TARSTAMP=$BUILD/src/tarball.stamp

[ -f "$SRC_TARBALL" ] || die "$SRC_TARBALL missing (make deps installs linux-source-6.1)"
mkdir -p "$BUILD/src"

# 1. pristine copy, re-extracted when the tarball changes
want_stamp="$(stat -c '%s %Y' "$SRC_TARBALL") $SRC_TARBALL"
if [ ! -d "$PRISTINE" ] || [ "$(cat "$TARSTAMP" 2>/dev/null)" != "$want_stamp" ]; then
	log "extracting $SRC_TARBALL"
	rm -rf "$BUILD/src/pristine" "$SRCDIR" "$STATE"
	# objects built from another tarball cannot be trusted (old mtimes)
	rm -rf "$BUILD"/*/kernel
	mkdir -p "$BUILD/src/pristine.tmp"
	tar -C "$BUILD/src/pristine.tmp" -xJf "$SRC_TARBALL"
	mv "$BUILD/src/pristine.tmp" "$BUILD/src/pristine"
	echo "$want_stamp" > "$TARSTAMP"
fi

# 2. working tree
if [ ! -d "$SRCDIR" ]; then
	log "copying pristine tree to $SRCDIR"
	rm -f "$STATE"
	cp -a "$PRISTINE" "$SRCDIR.tmp"
	mv "$SRCDIR.tmp" "$SRCDIR"
fi
ln -sfn "$PATCHDIR" "$SRCDIR/patches"
ln -sfn "$SERIES" "$SRCDIR/series"

# 3. digest of what should be applied: series lines + every patch's content
series_patches() { sed -e 's/#.*//' -e 's/[[:space:]].*//' -e '/^$/d' "$SERIES"; }
want_state=$(
	echo "series=$SERIES"
	series_patches | while read -r p; do
		[ -f "$PATCHDIR/$p" ] || die "series lists $p but $PATCHDIR/$p is missing"
		echo "$(sha256sum < "$PATCHDIR/$p" | cut -d' ' -f1) $p"
	done
)
if [ -f "$STATE" ] && [ "$(cat "$STATE")" = "$want_state" ]; then
	log "source tree up to date ($(series_patches | wc -l) patches applied)"
	exit 0
fi

cd "$SRCDIR"
rm -f "$STATE"
saved=$BUILD/src/saved
rm -rf "$saved"; mkdir -p "$saved"

# 4. reset the files touched by the previously applied patches
if [ -d .pc ]; then
	find .pc -mindepth 2 -type f ! -name .timestamp -printf '%P\n' |
		cut -d/ -f2- | sort -u > "$BUILD/src/touched.list"
	n=0
	while read -r f; do
		if [ -e "$f" ]; then
			cp -p --parents "$f" "$saved/"
		fi
		if [ -e "$PRISTINE/$f" ]; then
			cp "$PRISTINE/$f" "$f"      # new mtime: rebuilt unless restored below
		else
			rm -f "$f"
		fi
		n=$((n + 1))
	done < "$BUILD/src/touched.list"
	rm -rf .pc
	log "reset $n files touched by the old series"
fi

# 5. apply the series
export QUILT_PATCHES=$PATCHDIR QUILT_SERIES=$SERIES QUILT_PC=.pc
if [ -n "$(series_patches)" ]; then
	log "applying $(series_patches | wc -l) patches with quilt"
	if ! quilt push -a -q --fuzz=0; then
		die "quilt push failed in $SRCDIR (fix the patch; 'make kernel' retries)"
	fi
else
	log "series is empty: stock tree"
fi

# 6. files whose content is unchanged get their previous mtime back
if [ -d "$saved" ]; then
	(cd "$saved" && find . -type f -printf '%P\n') | while read -r f; do
		if [ -f "$f" ] && cmp -s "$saved/$f" "$f"; then
			touch -r "$saved/$f" "$f"
		fi
	done
fi
rm -rf "$saved"
echo "$want_state" > "$STATE"
log "source tree ready: $SRCDIR"
