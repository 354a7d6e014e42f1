#!/bin/bash
# make debian-kernel ARCH=...: the whole kernel image (bzImage on x86_64,
# Image on arm64) built from the quilt-patched tree with Debian's own 6.1
# configuration (scripts/debian-config.sh, the config of bookworm's
# linux-image-ARCH) and the series' options on, as a Debian user would
# build it.  Not part of make check: from a cold ccache it takes about an
# hour per architecture on 2 cores (the README has the measured times).
#
# Only the signing keys (not part of linux-source) and LOCALVERSION are
# changed in Debian's configuration; debug info and BTF stay on, as Debian
# builds them.  MODULES=1 also builds the modules (several hours).
#
# Checks, each one line "ok:" or "FAILED:":
#  - olddefconfig keeps CONFIG_USER_UNWINDER_SFRAME and
#    CONFIG_USER_UNWINDER_EH_FRAME on, and Debian's choices for the
#    options the series depends on (PERF_EVENTS, UNWINDER_ORC on x86_64)
#  - the image builds, with no compiler warning in the series' own files
#  - vmlinux has the SFrame unwinder (its perf entry point and sysctl)
#  - it boots in QEMU with the test initramfs and the guest suite of
#    make qemu-test passes (TESTARGS selects tests; BOOT=0: no boot)
# Prints "debian-kernel ARCH: N passed, N failed".
#   scripts/build-debian-kernel.sh ARCH   -> build/<arch>/kernel-debian/
set -uo pipefail
. "$(dirname "$0")/common.sh"
export KFLAVOR=debian
set_arch "${1:-}"

passed=0 failed=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }
fail() { echo "FAILED: $*"; failed=$((failed + 1)); }
finish() {
	echo "debian-kernel $ARCH: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}

"$TOP/scripts/check-deps.sh" kernel-$ARCH || exit 1
"$TOP/scripts/prepare-src.sh" || die "prepare-src.sh failed"
debcfg=$("$TOP/scripts/debian-config.sh" "$ARCH") || die "no Debian config"
log "Debian's configuration: $(cat "$debcfg.package" 2>/dev/null || echo "$debcfg")"

# 1. configuration
mkdir -p "$OBJDIR"
cfg=$OBJDIR/.config
[ -f "$cfg" ] && cp -p "$cfg" "$OBJDIR/.config.prev"
cp "$debcfg" "$cfg.new"
"$SRCDIR/scripts/config" --file "$cfg.new" \
	--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
	--set-str LOCALVERSION -sframe \
	-e USER_UNWINDER_SFRAME -e USER_UNWINDER_EH_FRAME
mv "$cfg.new" "$cfg"
"${KMAKE[@]}" -s olddefconfig </dev/null >"$OBJDIR/olddefconfig.log" 2>&1 ||
	{ cat "$OBJDIR/olddefconfig.log"; die "olddefconfig failed"; }
# unchanged configuration: keep the old file's time (no needless rebuild)
if [ -f "$OBJDIR/.config.prev" ] && cmp -s "$cfg" "$OBJDIR/.config.prev"; then
	mv "$OBJDIR/.config.prev" "$cfg"
fi
want=(CONFIG_USER_UNWINDER_SFRAME=y CONFIG_USER_UNWINDER_EH_FRAME=y
      CONFIG_PERF_EVENTS=y)
[ "$ARCH" = x86_64 ] && want+=(CONFIG_UNWINDER_ORC=y)
missing=()
for w in "${want[@]}"; do
	grep -qx "$w" "$cfg" || missing+=("$w")
done
if [ ${#missing[@]} -eq 0 ]; then
	ok "Debian's configuration with the series: ${want[*]}"
else
	fail "configuration lacks ${missing[*]}"
	finish
fi
# how far the result is from Debian's own (only the series' options and
# the two settings above should differ)
diff <(grep -E '^CONFIG_|^# CONFIG_.* is not set' "$debcfg" | sort) \
     <(grep -E '^CONFIG_|^# CONFIG_.* is not set' "$cfg" | sort) |
	grep '^[<>]' >"$OBJDIR/config-vs-debian.diff"
log "options that differ from Debian's: $(grep -c '^>' "$OBJDIR/config-vs-debian.diff") (list: $OBJDIR/config-vs-debian.diff)"

# 2. the image (and the modules with MODULES=1)
targets=("$KIMAGE_TARGET")
[ "${MODULES:-0}" = 1 ] && targets+=(modules)
mkdir -p "$CCACHE_DIR"
start=$(date +%s)
log "building ${targets[*]} for $ARCH with Debian's configuration (-j$JOBS)"
"${KMAKE[@]}" "${targets[@]}" </dev/null >"$OBJDIR/build.log" 2>&1
rc=$?
secs=$(( $(date +%s) - start ))
if [ "$rc" -ne 0 ]; then
	grep -E 'error|Error' "$OBJDIR/build.log" | head -n 20 | sed 's/^/  /'
	fail "build of ${targets[*]} (log: $OBJDIR/build.log)"
	finish
fi
own=$(grep -E '^(\.\./)*([^ ]*/)?(lib/sframe/|include/linux/sframe\.h|arch/[a-z0-9]+/include/asm/sframe\.h|arch/[a-z0-9]+/kernel/sframe)[^ ]*: (warning|error):' \
	"$OBJDIR/build.log")
if [ -n "$own" ]; then
	echo "$own" | head -n 20 | sed 's/^/  /'
	fail "warnings in the series' own files"
else
	ok "${targets[*]} built in $secs s ($(stat -c %s "$OBJDIR/$KIMAGE_REL") bytes), no warning in the series' own files"
fi

# 3. the unwinder is in vmlinux
syms=$("${CROSS}nm" "$OBJDIR/vmlinux" 2>/dev/null |
	awk '$3 == "sframe_callchain_user" || $3 == "sframe_walk_user" { print $3 }' | sort -u | tr '\n' ' ')
if [ "$syms" = "sframe_callchain_user sframe_walk_user " ] &&
   grep -qa 'sframe_unwind' "$OBJDIR/vmlinux"; then
	ok "vmlinux has ${syms}and the kernel.sframe_unwind sysctl"
else
	fail "vmlinux lacks the unwinder (symbols: ${syms:-none})"
fi

# 4. boot it with the test initramfs and run the guest suite (TESTARGS
# selects tests, as for make qemu-test; BOOT=0 skips this)
[ "${BOOT:-1}" = 0 ] && finish
make -C "$TOP" --no-print-directory initramfs ARCH="$ARCH" ||
	{ fail "make initramfs"; finish; }
glog=$ARCHBUILD/qemu-debian.log
QEMU_LOG=$glog "$TOP/scripts/run-qemu.sh" "$ARCH" >/dev/null 2>&1
res=$("$TOP/scripts/parse-results.sh" "$ARCH" "$glog")
echo "$res" | grep -E '^(FAIL|nosframe|tables|consumers|sframe-v)' | sed 's/^/  /'
kver=$(sed -nE 's/^=== GUEST INIT: Linux ([^ ]+) .*/\1/p' "$glog")
sum=$(echo "$res" | tail -n 1)
if [[ $kver == *-sframe ]] && [[ $sum =~ ^([0-9]+)\ passed,\ 0\ failed ]] &&
   [ "${BASH_REMATCH[1]}" -gt 0 ]; then
	ok "boot of $kver with the test initramfs: $sum (log: $glog)"
else
	fail "boot of ${kver:-the image}: ${sum:-no result} (log: $glog)"
fi
finish
