#!/bin/bash
# Generate build/<arch>/kernel/.config: tinyconfig + the fragments in
# kconfig-fragments/ (base, base-<arch>, debug (+ debug-<arch> if there is
# one), kunit, sframe, consumers; with
# KFLAVOR=bench: base, base-<arch>, sframe, nokunit; with KFLAVOR=stress:
# base, base-<arch>, debug, sframe, nokunit, stress), then verify
# that every requested option that exists in the tree got its value.
# The old .config keeps its mtime when nothing changed.
#   scripts/kconfig.sh ARCH
set -euo pipefail
. "$(dirname "$0")/common.sh"
set_arch "${1:-}"

FRAGDIR=$TOP/kconfig-fragments
FRAGS=("$FRAGDIR/base.config" "$FRAGDIR/base-$ARCH.config"
       "$FRAGDIR/debug.config" "$FRAGDIR/kunit.config" "$FRAGDIR/sframe.config"
       "$FRAGDIR/consumers.config")
case ${KFLAVOR:-test} in
bench)
	# what a distribution kernel would run: no debug options, no KUnit
	FRAGS=("$FRAGDIR/base.config" "$FRAGDIR/base-$ARCH.config"
	       "$FRAGDIR/sframe.config" "$FRAGDIR/nokunit.config") ;;
stress)
	# make stress: every debug option that catches lifetime and locking bugs
	FRAGS=("$FRAGDIR/base.config" "$FRAGDIR/base-$ARCH.config"
	       "$FRAGDIR/debug.config" "$FRAGDIR/sframe.config"
	       "$FRAGDIR/nokunit.config" "$FRAGDIR/stress.config") ;;
debian)
	die "Debian's configuration is made by scripts/build-debian-kernel.sh" ;;
esac
# debug-<arch>.config goes with debug.config, where there is one
for f in "${FRAGS[@]}"; do
	if [ "$f" = "$FRAGDIR/debug.config" ] && [ -f "$FRAGDIR/debug-$ARCH.config" ]; then
		FRAGS+=("$FRAGDIR/debug-$ARCH.config")
		break
	fi
done
for f in "${FRAGS[@]}"; do [ -f "$f" ] || die "missing fragment $f"; done
[ -d "$SRCDIR" ] || die "no source tree; run scripts/prepare-src.sh"

mkdir -p "$OBJDIR"
cfg=$OBJDIR/.config
[ -f "$cfg" ] && cp -p "$cfg" "$OBJDIR/.config.prev"

log "kconfig ($ARCH): tinyconfig + ${FRAGS[*]##*/}"
"${KMAKE[@]}" -s tinyconfig >/dev/null
"$SRCDIR/scripts/kconfig/merge_config.sh" -m -O "$OBJDIR" "$cfg" "${FRAGS[@]}" \
	> "$OBJDIR/merge_config.log" 2>&1 || { cat "$OBJDIR/merge_config.log"; die "merge_config failed"; }
"${KMAKE[@]}" -s olddefconfig >/dev/null

# --- verification ---------------------------------------------------------
# Symbols defined in the tree's Kconfig files (generic + this architecture).
case $KARCH in x86_64) srcarch=x86 ;; *) srcarch=$KARCH ;; esac
universe=$OBJDIR/kconfig-symbols.txt
(cd "$SRCDIR" && find . -path ./arch -prune -o -name 'Kconfig*' -print;
 cd "$SRCDIR" && find "arch/$srcarch" arch/Kconfig -name 'Kconfig*' -print) |
	(cd "$SRCDIR" && xargs grep -hE '^[[:space:]]*(menu)?config[[:space:]]+[A-Za-z0-9_]+') |
	awk '{print $2}' | sort -u > "$universe"

# Requested values: the last fragment that names a symbol wins.
requested=$(cat "${FRAGS[@]}" |
	sed -nE -e 's/^(CONFIG_[A-Za-z0-9_]+)=(.*)$/\1 \2/p' \
	        -e 's/^# (CONFIG_[A-Za-z0-9_]+) is not set$/\1 n/p' |
	awk '{v[$1]=$2; if (!($1 in o)) {o[$1]=++n; k[n]=$1}}
	     END {for (i = 1; i <= n; i++) print k[i], v[k[i]]}')

bad=0 unknown=0
while read -r sym want; do
	name=${sym#CONFIG_}
	if ! grep -qx "$name" "$universe"; then
		echo "kconfig: warning: $sym is not defined in this tree (ignored)" >&2
		unknown=$((unknown + 1))
		continue
	fi
	got=$(sed -nE "s/^$sym=(.*)$/\1/p" "$cfg")
	[ -n "$got" ] || got=n
	if [ "$got" != "$want" ]; then
		echo "kconfig: ERROR: $sym requested '$want' but .config has '$got'" >&2
		bad=$((bad + 1))
	fi
done <<< "$requested"

if [ "$bad" -gt 0 ]; then
	echo "kconfig: $bad requested option(s) not set; check their dependencies" \
	     "(e.g. 'make -C $SRCDIR O=$OBJDIR ARCH=$KARCH menuconfig', search with /)" >&2
	exit 1
fi
log "kconfig: $(wc -l <<< "$requested") options verified ($unknown unknown symbols skipped)"

# Keep the old mtime when nothing changed (no needless relinks).
if [ -f "$OBJDIR/.config.prev" ] && cmp -s "$OBJDIR/.config.prev" "$cfg"; then
	touch -r "$OBJDIR/.config.prev" "$cfg"
fi
rm -f "$OBJDIR/.config.prev"
