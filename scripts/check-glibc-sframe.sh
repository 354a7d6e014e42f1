#!/bin/bash
# make check-glibc-sframe: the guest's chain tests with Debian's libc and
# with the same glibc built with SFrame (scripts/build-glibc-sframe.sh).
#   scripts/check-glibc-sframe.sh ARCH
# Four boots, each with its own log build/<arch>/glibc-<run>.log:
#   debian-eh   Debian's libc,  sframe_unwind=2: libc's frames from tables
#               the kernel builds from its .eh_frame -> complete chains
#   sframe-eh   SFrame libc,    sframe_unwind=2: libc's frames from its
#               .sframe -> the same complete chains
#   sframe-only SFrame libc,    sframe_unwind=1 (.sframe only): still
#               complete (dynamic programs) -> the .sframe of libc is used
#   debian-only Debian's libc,  sframe_unwind=1: chains stop at main's
#               caller / start_thread (the usual expectations)
# "Complete": main, __libc_start_call_main, __libc_start_main, _start;
# a thread's start, start_thread, clone3 (run-tests.sh -f).  The static
# programs link Debian's libc.a, so they are left out of the two
# sframe_unwind=1 runs.  Each run includes the control (sframe_unwind=0:
# every selected SFrame test must fail).
# Builds glibc first if it is not cached (25-40 min).  LOCK=FILE: run the
# kernel, initramfs and QEMU steps under flock FILE (the glibc build is
# not).  Leaves build/<arch>/initramfs.cpio.gz with Debian's libc.
# Last line: "N passed, N failed" over all runs.
set -uo pipefail
. "$(dirname "$0")/common.sh"
set_arch "${1:-}"

start=$(date +%s)
glibc=$("$TOP/scripts/build-glibc-sframe.sh" "$ARCH" | tail -n 1) || die "glibc build failed"
[ -f "$glibc/libc.so.6" ] || die "no SFrame-built glibc"

# the tests whose chains go through libc (run-tests.sh names)
dyn="pie-* nopie-* threads fork orphan exec dso-*"
stat="static-*"
if [ "$ARCH" = arm64 ]; then
	dyn="$dyn pac-[!s]* threads-pac"	# pac-*, not pac-static-*
	stat="$stat pac-static-*"
fi

runs=(
	"debian-eh 0 -u 2 $dyn $stat"
	"sframe-eh 1 -u 2 $dyn $stat"
	"sframe-only 1 -u 1 -f $dyn"
	"debian-only 0 -u 1 $dyn"
)

guest() {	# the kernel, initramfs and QEMU part of every run
	local r name gs args glog passed=0 failed=0 line p f
	local -a summary=()
	make -C "$TOP" --no-print-directory kernel ARCH="$ARCH" || return 1
	for r in "${runs[@]}"; do
		read -r name gs args <<<"$r"
		glog=$ARCHBUILD/glibc-$name.log
		log "glibc-sframe run $name: GLIBC_SFRAME=$gs TESTARGS=\"$args\""
		GLIBC_SFRAME=$gs "$TOP/scripts/mk-initramfs.sh" "$ARCH" || return 1
		TESTARGS="$args" "$TOP/scripts/run-qemu.sh" "$ARCH" > "$glog" 2>&1
		"$TOP/scripts/parse-results.sh" "$ARCH" "$glog" > "$glog.verdict" 2>&1
		grep -E '^(not ok|FAIL)' "$glog.verdict" "$glog" | head -20
		line=$(tail -n 1 "$glog.verdict")
		p=$(sed -nE 's/^([0-9]+) passed.*/\1/p' <<<"$line")
		f=$(sed -nE 's/.* ([0-9]+) failed.*/\1/p' <<<"$line")
		[ -n "$p" ] || { p=0 f=1; }
		passed=$((passed + p)) failed=$((failed + f))
		summary+=("$(printf '%-12s libc %-6s %-22s %3d passed, %d failed' "$name" \
			"$([ "$gs" = 1 ] && echo sframe || echo debian)" \
			"sframe_unwind=${args:3:1}$([[ $args == *-f* ]] && echo ' -f')" "$p" "$f")")
	done
	# leave the usual initramfs behind
	"$TOP/scripts/mk-initramfs.sh" "$ARCH" > /dev/null 2>&1
	echo "== check-glibc-sframe $ARCH ($(( $(date +%s) - start ))s, logs build/$ARCH/glibc-*.log)"
	printf '  %s\n' "${summary[@]}"
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}

if [ -n "${LOCK:-}" ] && [ -z "${GLIBC_CHECK_LOCKED:-}" ]; then
	export GLIBC_CHECK_LOCKED=1
	exec flock "$LOCK" "$0" "$ARCH"
fi
guest
