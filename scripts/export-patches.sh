#!/bin/bash
# Regenerate patches/ and series from a git kernel tree whose commits on
# top of BASE are the series (developer workflow; see README.md), and the
# cover letter patches/0000-cover-letter.patch: git format-patch's, with
# the subject (first line) and text of patches/cover-letter.txt (kept by
# hand), the shortlog and the diffstat of the series.  The cover letter
# is not in series: quilt and git am apply the patches only.
#   scripts/export-patches.sh KERNEL_GIT_TREE BASE_COMMIT
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
tree=${1:?usage: $0 KERNEL_GIT_TREE BASE_COMMIT}
base=${2:?usage: $0 KERNEL_GIT_TREE BASE_COMMIT}
rm -f "$top"/patches/*.patch
git -C "$tree" format-patch -q --no-signature --zero-commit \
	-o "$top/patches" "$base"
(cd "$top/patches" && ls -1 -- [0-9]*.patch) > "$top/series"
cover=$top/patches/cover-letter.txt
if [ -f "$cover" ]; then
	tmp=$(mktemp -d)
	git -C "$tree" format-patch -q --no-signature --zero-commit \
		--cover-letter -o "$tmp" "$base"
	awk -v cover="$cover" '
		/\*\*\* SUBJECT HERE \*\*\*/ {
			getline subj <cover
			sub(/\*\*\* SUBJECT HERE \*\*\*/, subj)
			print
			next
		}
		/^\*\*\* BLURB HERE \*\*\*$/ {
			getline line <cover		# the blank line
			while ((getline line <cover) > 0)
				print line
			next
		}
		{ print }
	' "$tmp/0000-cover-letter.patch" >"$top/patches/0000-cover-letter.patch"
	rm -rf "$tmp"
fi
cat "$top/series"
