#!/bin/bash
# Extract the SFrame reader (lib/sframe/sframe_read.c, sframe_read.h,
# sframe_format.h) and, once a patch of the series creates them, the
# .eh_frame converter (lib/sframe/sframe_ehframe.c, sframe_ehframe.h) from
# the quilt series into DESTDIR/lib/sframe/.
# Every patch of the series that touches one of these files contributes its
# hunks for them, in series order, so later fix-up patches are honoured and
# renamed patches are found by content, not by name.
# Optional extra diffs (-p1, e.g. a candidate fix not yet in the series)
# are applied afterwards, loudly.
#   extract-reader.sh TOPDIR DESTDIR [EXTRA.diff...]
set -euo pipefail
top=$1 dest=$2
shift 2
files='lib/sframe/sframe_read.c lib/sframe/sframe_read.h lib/sframe/sframe_format.h'
# Extracted when present; the Makefile's EH_SRC can point elsewhere.
optional='lib/sframe/sframe_ehframe.c lib/sframe/sframe_ehframe.h'
tmp=$dest.tmp
rm -rf "$tmp"; mkdir -p "$tmp"
n=0
while read -r p _; do
	case $p in ''|'#'*) continue ;; esac
	f=$top/patches/$p
	[ -f "$f" ] || { echo "extract-reader: $f listed in series is missing" >&2; exit 1; }
	# Keep only the per-file sections ("diff --git a/X b/X" ... up to the
	# next "diff --git" or the "-- " mail signature) of the wanted files.
	awk -v want="$files $optional" '
	BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) keep["b/" w[i]] = 1 }
	/^diff --git / { on = ($4 in keep); }
	/^-- $/ { on = 0 }
	on { print }' "$f" > "$tmp/part.diff"
	if [ -s "$tmp/part.diff" ]; then
		patch -s -p1 -d "$tmp" --no-backup-if-mismatch < "$tmp/part.diff" ||
			{ echo "extract-reader: $p does not apply" >&2; exit 1; }
		n=$((n + 1))
	fi
done < "$top/series"
rm -f "$tmp/part.diff"
for x in $files; do
	[ -f "$tmp/$x" ] || { echo "extract-reader: no patch creates $x" >&2; exit 1; }
done
for x in "$@"; do
	echo "extract-reader: WARNING: applying $x, which is not in the series"
	patch -s -p1 -d "$tmp" --no-backup-if-mismatch < "$x" ||
		{ echo "extract-reader: $x does not apply" >&2; exit 1; }
done
got=$files
for x in $optional; do
	[ -f "$tmp/$x" ] && got="$got $x"
done
rm -rf "$dest"; mv "$tmp" "$dest"
echo "extract-reader: $got from $n patch(es)"
