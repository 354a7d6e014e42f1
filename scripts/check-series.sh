#!/bin/bash
# Check the series itself: it applies with "quilt push -a" and with
# "git am" to the files of a freshly extracted linux-source-6.1, both give
# the same tree, and every patch is clean for checkpatch.pl --strict.
#   scripts/check-series.sh
set -uo pipefail
. "$(dirname "$0")/common.sh"

work=$BUILD/series-check
rm -rf "$work"
mkdir -p "$work/quilt" "$work/git"
passed=0 failed=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }
fail() { echo "FAILED: $*"; failed=$((failed + 1)); }

mapfile -t patches < <(grep -v '^[[:space:]]*\(#\|$\)' "$TOP/series")

# The files the series touches, and checkpatch with its data files, are
# all that is needed: extract only those (new files are not found, fine).
mapfile -t files < <(cd "$TOP/patches" && sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' \
	"${patches[@]}" | sort -u)
top=$(tar -tJf "$SRC_TARBALL" | head -n 1 | cut -d/ -f1)
tar -C "$work/quilt" -xJf "$SRC_TARBALL" --strip-components=1 \
	"${files[@]/#/$top/}" "$top/scripts/checkpatch.pl" \
	"$top/scripts/spelling.txt" "$top/scripts/const_structs.checkpatch" \
	2>/dev/null
cp -a "$work/quilt/." "$work/git/"

if (cd "$work/quilt" && QUILT_PATCHES=$TOP/patches QUILT_SERIES=$TOP/series \
	quilt push -a -q >/dev/null); then
	ok "quilt push -a applies ${#patches[@]} patches"
else
	fail "quilt push -a"
fi

if (cd "$work/git" && git init -q && git add -A -f && \
	git -c user.name=check -c user.email=check@localhost commit -q -m base && \
	git -c user.name=check -c user.email=check@localhost \
		am -q "${patches[@]/#/$TOP/patches/}"); then
	ok "git am applies ${#patches[@]} patches"
else
	fail "git am"
fi

if diff -r -q -x .git -x .pc -x patches -x series "$work/quilt" "$work/git" >/dev/null; then
	ok "quilt and git am give the same tree"
else
	fail "quilt and git am trees differ"
fi

for p in "${patches[@]}"; do
	out=$(perl "$work/git/scripts/checkpatch.pl" --strict --no-tree -q \
		"$TOP/patches/$p" 2>&1)
	if [ -z "$out" ]; then
		ok "checkpatch --strict: $p"
	else
		echo "$out" | sed 's/^/  /'
		fail "checkpatch --strict: $p"
	fi
done

rm -rf "$work"
echo "series: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
