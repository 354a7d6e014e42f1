#!/bin/bash
# Download Debian source packages for the differential-test corpus with a
# private apt configuration (deb-src lines built at run time from the
# system's own Debian sources; nothing is installed, the system apt state is
# not touched).  Only the release suite itself is used (no -updates or
# -security): its versions change only at point releases, and its files are
# always in the pool.
#   fetch-sources.sh DESTDIR PACKAGE...
set -euo pipefail
dest=$1; shift
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
apt=$dest/.apt
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
list=$apt/sources.list
if [ ! -s "$list" ]; then
	# deb822 (.sources) or one-line (.list) files: take the URI and the
	# suites of the stanzas that serve Debian's main component.
	{
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -f "$f" ] || continue
			awk '
			function flush() {
				if (uri != "" && types ~ /deb/ && comps ~ /main/)
					for (i = 1; i <= ns; i++)
						print "deb-src [signed-by=" key "] " uri " " s[i] " main"
				uri = ""; types = ""; comps = ""; ns = 0; key = ""
			}
			/^[ \t]*$/ { flush(); next }
			/^Types:/ { types = $0 }
			/^URIs:/ { uri = $2 }
			/^Components:/ { comps = $0 }
			/^Signed-By:/ { key = $2 }
			/^Suites:/ { ns = 0; for (i = 2; i <= NF; i++) if ($i !~ /-/) s[++ns] = $i }
			END { flush() }' "$f"
		done
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[ -f "$f" ] || continue
			awk '$1 == "deb" && $0 ~ / main/ && $3 !~ /-/ { $1 = "deb-src"; print }' "$f"
		done
	} | sed -e 's/\[signed-by=\] //' | sort -u > "$list.tmp"
	grep -q . "$list.tmp" || { echo "fetch-sources: no Debian apt source found" >&2; exit 1; }
	mv "$list.tmp" "$list"
fi
opts=(-o Dir::Etc::sourcelist="$list" -o Dir::Etc::sourceparts=-
      -o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache"
      -o APT::Get::List-Cleanup=0 -q)
if ! ls "$apt/lists/"*Sources* >/dev/null 2>&1; then
	apt-get "${opts[@]}" update >"$apt/update.log" 2>&1 ||
		{ cat "$apt/update.log" >&2; exit 1; }
fi
cd "$dest"
for p in "$@"; do
	if ls -d "$p"-*/ >/dev/null 2>&1 || ls -d "$p"_*/ >/dev/null 2>&1; then
		continue
	fi
	apt-get "${opts[@]}" source --download-only "$p"
done
