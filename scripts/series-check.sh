#!/bin/bash
# make series-check: the series as a reviewer checks it before applying.
#
#  1. scripts/check-series.sh: quilt push -a and git am apply every patch
#     to linux-source-6.1, to the same tree; checkpatch.pl --strict is
#     clean on each patch.
#  2. Bisection: after each patch, the objects the series touches up to it
#     build for each architecture with the option on (the test kernel's
#     configuration: tinyconfig + kconfig-fragments) and off, with W=1,
#     and no file the series touches has a W=1 warning that the stock tree
#     does not have.  Before any architecture can enable the option, the
#     reader's objects are built on their own.  With the option on, it must really be on wherever
#     the architecture selects HAVE_USER_UNWINDER_SFRAME.
#  3. After the last patch: sparse (C=2) on the same objects, no new
#     warning; scripts/kernel-doc -none clean on lib/sframe/ and
#     include/linux/sframe.h.
#  4. Debian's own 6.1 configuration (scripts/debian-config.sh) with the
#     option on: the objects the series touches build (W=1 is not used:
#     the distribution config is built as Debian builds it).
#
#   scripts/series-check.sh            (SERIES_CHECK=full, the default)
#   SERIES_CHECK=ci|quick scripts/series-check.sh
#
# full (make check-full): every prefix on x86_64 and arm64, option on and
# off; Debian's config on both.  ci: every prefix on x86_64 with the
# option on, the whole series on x86_64 off and on arm64 on and off,
# Debian's config on x86_64.  quick (what make check runs): 1, the whole
# series on x86_64 on and off with W=1 and sparse, and kernel-doc; the
# test kernels of make check build the whole series on both arches.  The
# full image of a configuration is built by make kernel (test config) and
# by scripts/build-debian-kernel.sh.
#
# Object directories are kept in build/series-build/ (make clean removes
# them), so a second run only rebuilds what the patches change.
# Prints "series-check: N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/common.sh"

MODE=${SERIES_CHECK:-full}
case $MODE in full|ci|quick) ;; *) die "SERIES_CHECK is full, ci or quick, not '$MODE'" ;; esac

passed=0 failed=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }
fail() { echo "FAILED: $*"; failed=$((failed + 1)); }

# 1. apply, checkpatch
out=$("$TOP/scripts/check-series.sh" 2>&1)
echo "$out" | grep -v '^series: '
p=$(sed -nE 's/^series: ([0-9]+) passed, ([0-9]+) failed.*/\1/p' <<<"$out")
f=$(sed -nE 's/^series: ([0-9]+) passed, ([0-9]+) failed.*/\2/p' <<<"$out")
passed=$((passed + ${p:-0})) failed=$((failed + ${f:-1}))

# (check-series.sh uses build/series-check and removes it)
work=$BUILD/series-build
src=$work/src
mkdir -p "$work"
mapfile -t patches < <(grep -v '^[[:space:]]*\(#\|$\)' "$TOP/series")
"$TOP/scripts/prepare-src.sh" >/dev/null || die "prepare-src.sh failed"

# A source tree of hard links to the pristine one: patch(1) replaces the
# files it changes, so the pristine tree is never written.  The files
# the series touches are copied (new inodes, new times), so that objects
# left from an earlier run of another prefix are rebuilt.
log "series-check: source tree $src"
rm -rf "$src"
cp -al "$PRISTINE" "$src" || die "cannot link $PRISTINE to $src"
mapfile -t touched < <(cd "$TOP/patches" &&
	sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "${patches[@]}" | sort -u)
for f in "${touched[@]}"; do
	[ -f "$PRISTINE/$f" ] && cp --remove-destination "$PRISTINE/$f" "$src/$f"
done
# Kconfig files newer than this changed in the series (see genconfig)
touch "$work/src.stamp"

# The objects of the series' C files up to patch K that ARCH builds (for
# K = 0, the stock files that the series changes); the files in
# lib/sframe/ are built as their directory (what the configuration
# selects) when the option is on.
objects() {
	local k=$1 a=$2 cfgfile=$3 f upto=$1
	[ "$k" -eq 0 ] && upto=${#patches[@]}
	(cd "$TOP/patches" && sed -n 's|^diff --git a/\([^ ]*\.c\) b/.*|\1|p' \
		"${patches[@]:0:$upto}" | sort -u) | while read -r f; do
		[ -f "$src/$f" ] || continue
		case $f in
		lib/sframe/*) continue ;;
		arch/x86/*) [ "$a" = x86_64 ] || continue ;;
		arch/arm64/*) [ "$a" = arm64 ] || continue ;;
		arch/*) continue ;;
		# built only with tracing (ftrace's userstacktrace option)
		kernel/trace/*)
			grep -q '^CONFIG_TRACING=y' "$cfgfile" || continue ;;
		esac
		echo "${f%.c}.o"
	done
	if grep -q '^CONFIG_USER_UNWINDER_SFRAME=y' "$cfgfile" &&
	   [ -f "$src/lib/sframe/Makefile" ]; then
		echo lib/sframe/
	elif ! grep -qs 'select HAVE_USER_UNWINDER_SFRAME' \
		"$src/arch/x86/Kconfig" "$src/arch/arm64/Kconfig"; then
		# no architecture can enable the option yet: the reader,
		# which depends on nothing else, is built on its own
		for f in sframe_read sframe_uaccess; do
			[ -f "$src/lib/sframe/$f.c" ] && echo "lib/sframe/$f.o"
		done
	fi
}

# kmake ARCH DIR ARGS...: make in the series' tree
kmake() {
	local a=$1 dir=$2
	shift 2
	set_arch "$a"
	local cmd=(make -C "$src" O="$dir" ARCH="$KARCH" -j"$JOBS"
		   CC="ccache ${CROSS}gcc" HOSTCC="ccache gcc")
	[ -n "$CROSS" ] && cmd+=(CROSS_COMPILE="$CROSS")
	"${cmd[@]}" "$@" </dev/null
}

# genconfig ARCH CFG DIR: the test kernel's configuration, with the
# series' options (CFG=on) or without (off), or Debian's (debian).
genconfig() {
	local a=$1 cfg=$2 dir=$3 frags stamp
	mkdir -p "$dir"
	# only when a Kconfig file changed since the last time
	stamp=$(cd "$src" && cat $(find . -name 'Kconfig*' -newer "$work/src.stamp" \
		2>/dev/null | sort) </dev/null | md5sum)
	if [ -s "$dir/.config" ] && [ "$(cat "$dir/kconfig.stamp" 2>/dev/null)" = "$stamp" ]; then
		return 0
	fi
	rm -f "$dir/kconfig.stamp"
	if [ "$cfg" = debian ]; then
		cp "$("$TOP/scripts/debian-config.sh" "$a")" "$dir/.config" || return 1
		# Debian's signing keys are not in linux-source
		"$src/scripts/config" --file "$dir/.config" \
			--set-str SYSTEM_TRUSTED_KEYS "" \
			--set-str SYSTEM_REVOCATION_KEYS "" \
			-e USER_UNWINDER_SFRAME -e USER_UNWINDER_EH_FRAME
		kmake "$a" "$dir" -s olddefconfig >/dev/null 2>&1 &&
			echo "$stamp" >"$dir/kconfig.stamp"
		return
	fi
	frags=("$TOP/kconfig-fragments/base.config"
	       "$TOP/kconfig-fragments/base-$a.config"
	       "$TOP/kconfig-fragments/kunit.config")
	[ "$cfg" = on ] && frags+=("$TOP/kconfig-fragments/sframe.config")
	kmake "$a" "$dir" -s tinyconfig >/dev/null 2>&1 &&
	"$src/scripts/kconfig/merge_config.sh" -m -O "$dir" "$dir/.config" \
		"${frags[@]}" >/dev/null 2>&1 &&
	kmake "$a" "$dir" -s olddefconfig >/dev/null 2>&1 &&
		echo "$stamp" >"$dir/kconfig.stamp"
}

# W=1 (and sparse) warnings of the files the series touches, without line
# numbers: "file: warning text"
warnings() {
	local f srcre=${src//./\\.}
	for f in "${touched[@]}"; do
		sed -nE "s#^(\\.\\./)*($srcre/)?${f//./\\.}:[0-9]+(:[0-9]+)?: (warning|error): #$f: #p" "$1"
	done | sort -u
}

# build K ARCH CFG [EXTRA...]: configure and build the objects of prefix K
build() {
	local k=$1 a=$2 cfg=$3 dir=$work/$2-$3 name log objs
	shift 3
	name="$(printf '%04d' "$k") $a $cfg${1:+ $1}"
	log=$work/log/$(printf '%04d' "$k")-$a-$cfg${1:+-sparse}.log
	mkdir -p "$work/log"
	if ! genconfig "$a" "$cfg" "$dir"; then
		fail "$name: configuration"
		return
	fi
	mapfile -t objs < <(objects "$k" "$a" "$dir/.config")
	if [ ${#objs[@]} -eq 0 ]; then
		fail "$name: no object to build"
		return
	fi
	if [ "$cfg" != off ] && [ "$k" -gt 0 ] &&
	   grep -qs 'select HAVE_USER_UNWINDER_SFRAME' \
		"$src/arch/${a/x86_64/x86}/Kconfig" &&
	   ! grep -q '^CONFIG_USER_UNWINDER_SFRAME=y' "$dir/.config"; then
		fail "$name: CONFIG_USER_UNWINDER_SFRAME is not on"
		return
	fi
	if [ "$cfg" = off ] && grep -q '^CONFIG_USER_UNWINDER_SFRAME=y' "$dir/.config"; then
		fail "$name: CONFIG_USER_UNWINDER_SFRAME is on"
		return
	fi
	local wflag=(W=1)
	[ "$cfg" = debian ] && wflag=()
	if ! kmake "$a" "$dir" "${wflag[@]}" "$@" "${objs[@]}" >"$log" 2>&1; then
		grep -E 'error|Error' "$log" | head -n 20 | sed 's/^/  /'
		fail "$name: build of ${objs[*]} (log: $log)"
		return
	fi
	warnings "$log" >"$log.w"
	if [ "$cfg" = debian ]; then
		# the stock files have warnings of their own with this
		# configuration; the series' own files must have none
		local own
		own=$(grep -E '^(lib/sframe/|include/linux/sframe\.h|arch/[a-z0-9]+/include/asm/sframe\.h)' "$log.w")
		if [ -n "$own" ]; then
			echo "$own" | sed 's/^/  /'
			fail "$name: warnings in the series' own files"
		else
			ok "$name: ${objs[*]} build, no warning in the series' own files"
		fi
		return
	fi
	if [ "$k" -eq 0 ]; then
		cp "$log.w" "$work/base-$a${1:+-sparse}.w"
		ok "$name: stock objects build (${#objs[@]}), baseline warnings: $(wc -l <"$log.w")"
		return
	fi
	local new
	new=$(comm -23 "$log.w" "$work/base-$a${1:+-sparse}.w")
	if [ -n "$new" ]; then
		echo "$new" | sed 's/^/  /'
		fail "$name: new warnings in files the series touches"
	else
		ok "$name: ${objs[*]} build, no new warning"
	fi
}

qpush() {
	(cd "$src" && QUILT_PATCHES=$TOP/patches QUILT_SERIES=$TOP/series \
		quilt push -q >/dev/null 2>&1)
}

n=${#patches[@]}
arches=(x86_64 arm64)
[ "$MODE" = quick ] && arches=(x86_64)
# the stock tree's warnings in the files the series touches
for a in "${arches[@]}"; do
	build 0 "$a" off
done
if command -v sparse >/dev/null; then
	for a in "${arches[@]}"; do
		build 0 "$a" off C=2
	done
fi
for k in $(seq 1 "$n"); do
	if ! qpush; then
		fail "quilt push of ${patches[$((k - 1))]}"
		break
	fi
	for a in "${arches[@]}"; do
		for cfg in on off; do
			if [ "$MODE" = ci ] && [ "$k" -lt "$n" ] &&
			   { [ "$a" != x86_64 ] || [ "$cfg" != on ]; }; then
				continue
			fi
			[ "$MODE" = quick ] && [ "$k" -lt "$n" ] && continue
			build "$k" "$a" "$cfg"
		done
	done
done

# 3. sparse and kernel-doc on the whole series
if command -v sparse >/dev/null; then
	for a in "${arches[@]}"; do
		build "$n" "$a" on C=2
	done
else
	fail "sparse is not installed (make deps)"
fi
if kd=$(cd "$src" && ./scripts/kernel-doc -none lib/sframe/*.[ch] \
	include/linux/sframe.h 2>&1) && [ -z "$kd" ]; then
	ok "kernel-doc -none: lib/sframe/*.[ch] include/linux/sframe.h"
else
	echo "$kd" | sed 's/^/  /'
	fail "kernel-doc -none"
fi

# 4. Debian's configuration
deb_arches=(x86_64 arm64)
[ "$MODE" = ci ] && deb_arches=(x86_64)
[ "$MODE" = quick ] && deb_arches=()
for a in ${deb_arches[@]+"${deb_arches[@]}"}; do
	build "$n" "$a" debian
done

echo "series-check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
