#!/bin/bash
# make check (CHECK_MODE=ci, the default) and make check-full
# (CHECK_MODE=full): the series checks (scripts/series-check.sh), the
# host-side reader tests, the chain checker's self-test, then for each
# architecture the code generation checks of the test programs, the
# kernel, the initramfs and the QEMU tests; then make stress.  The next
# arch's build and the host tests run beside a guest (bg_part).  Every part
# ends with its own "N passed, N failed" line; this adds them up into the
# final one.  A part that fails without a count of its own (a build
# error) counts as one failure.
#
#              ci (make check)              full (make check-full)
#   series     SERIES_CHECK=quick           SERIES_CHECK=full
#   guest      run-tests.sh -s              every test, every control
#   stress     x86_64, 30 s, test kernel    x86_64 and arm64, 600 s,
#              (PREEMPT, KMEMLEAK)          KASAN kernel
#
# make check is what CI runs: every kind of test on both arches with its
# controls, in a slice that fits CI's time from a cold machine (see
# README); make check-full adds what only repeats it: every prefix of the
# series built on both arches, every control rerun, long stress runs.
# TESTARGS, SERIES_CHECK and CHECK_STRESS_SECONDS override the mode's
# choice; CHECK_STRESS_SECONDS=0 leaves stress out.
#   scripts/check.sh [ARCH...]        (default: x86_64 arm64)
set -uo pipefail
. "$(dirname "$0")/common.sh"

arches=("$@")
[ ${#arches[@]} -gt 0 ] || arches=(x86_64 arm64)
mkdir -p "$BUILD"

MODE=${CHECK_MODE:-ci}
case $MODE in
ci)	series_mode=quick testargs=-s stress_secs=30 stress_arches=(x86_64)
	stress_kernel="test" ;;
full)	series_mode=full testargs= stress_secs=600 stress_arches=(x86_64 arm64)
	stress_kernel=stress ;;
*)	die "CHECK_MODE is ci or full, not '$MODE'" ;;
esac
export TESTARGS=${TESTARGS:-$testargs}
stress_secs=${CHECK_STRESS_SECONDS:-$stress_secs}

passed=0 failed=0 skipped=0 last_failed=0
summary=()

# count NAME LOG STATUS SECONDS: add the counts of a finished part.
count() {
	local name=$1 log=$2 st=$3 secs=$4 line p f s
	line=$(grep -E '^([A-Za-z0-9_-]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	p=$(sed -nE 's/.*\b([0-9]+) passed.*/\1/p' <<<"$line")
	f=$(sed -nE 's/.* ([0-9]+) failed.*/\1/p' <<<"$line")
	s=$(sed -nE 's/.* ([0-9]+) skipped.*/\1/p' <<<"$line")
	p=${p:-0} f=${f:-0} s=${s:-0}
	if [ "$st" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1	# failed before it could count
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	last_failed=$f
	summary+=("$(printf '%-14s %4d passed, %d failed, %d skipped, %4ds' \
		"$name" "$p" "$f" "$s" "$secs")")
}

# part NAME COMMAND...: run it in the foreground, keep its log, count it.
part() {
	local name=$1 log=$BUILD/check-$1.log start=$SECONDS st
	shift
	log "check: $name"
	"$@" 2>&1 | tee "$log"
	st=${PIPESTATUS[0]}
	count "$name" "$log" "$st" $((SECONDS - start))
}

# bg_part NAME COMMAND...: run it beside the foreground part, under nice
# so that a QEMU guest keeps its CPU; bg_wait NAME prints its log when it
# has ended and counts it.  The guests run one at a time in the
# foreground (each has one vCPU under TCG); what runs beside them is a
# kernel build or the host tests, which would otherwise leave the second
# core idle.
declare -A bg_pid bg_start
bg_part() {
	local name=$1
	shift
	log "check: $name (in the background, log: $BUILD/check-$name.log)"
	bg_start[$name]=$SECONDS
	( renice -n 10 -p "$BASHPID" >/dev/null; "$@" ) > "$BUILD/check-$name.log" 2>&1 &
	bg_pid[$name]=$!
}
bg_wait() {
	local name=$1 st=0
	wait "${bg_pid[$name]}" || st=$?
	log "check: $name (ended, status $st)"
	cat "$BUILD/check-$name.log"
	count "$name" "$BUILD/check-$name.log" "$st" $((SECONDS - ${bg_start[$name]}))
}

# Debian sid's toolchain (SFrame v3), once, cached outside the repository:
# the host v3 differential test and the guest's v3 tests need it.  Made
# (mostly downloads) while the series is built.
log "check: sid root (scripts/build-sid-root.sh, log: $BUILD/check-sid-root.log)"
"$TOP/scripts/build-sid-root.sh" > "$BUILD/check-sid-root.log" 2>&1 &
sid_pid=$!

part series env SERIES_CHECK="${SERIES_CHECK:-$series_mode}" "$TOP/scripts/series-check.sh"
if ! wait $sid_pid; then
	tail -n 20 "$BUILD/check-sid-root.log"
	failed=$((failed + 1))
	summary+=("sid-root       build failed: no SFrame v3 tests")
fi
part checker "$TOP/userland-tests/host/selftest-checker.sh"

# build-ARCH: the code generation the expected chains rely on, the test
# kernel and the initramfs; then ARCH: the guest tests.  The next arch is
# built while this one's guest runs, the host tests run beside the last
# guest.
build() {
	make -s -C "$TOP/userland-tests" ARCH="$1" OUT="$BUILD/$1/tests" &&
		"$TOP/userland-tests/host/check-codegen.sh" "$1" "$BUILD/$1/tests" &&
		make -C "$TOP" kernel ARCH="$1" &&
		make -C "$TOP" initramfs ARCH="$1"
}
n=${#arches[@]}
part "build-${arches[0]}" build "${arches[0]}"
built=$((last_failed == 0))
for ((i = 0; i < n; i++)); do
	a=${arches[i]}
	if [ $((i + 1)) -lt $n ]; then
		bg_part "build-${arches[i + 1]}" build "${arches[i + 1]}"
	else
		bg_part host make -C "$TOP/host-tests" host-check
	fi
	if [ "$built" = 1 ]; then
		part "$a" make -C "$TOP" qemu-test ARCH="$a"
	else
		summary+=("$a             not run: its build failed")
	fi
	if [ $((i + 1)) -lt $n ]; then
		bg_wait "build-${arches[i + 1]}"
		built=$((last_failed == 0))
	fi
done
bg_wait host

# make stress (churn, hostile ELF files, perf -a -g); make check boots the
# x86_64 test kernel for it (STRESS_KERNEL=test), make check-full the
# KASAN kernel
if [ "$stress_secs" -gt 0 ]; then
	for a in "${stress_arches[@]}"; do
		[[ " ${arches[*]} " == *" $a "* ]] || continue
		part "stress-$a" make -C "$TOP" stress ARCH="$a" \
			STRESS_SECONDS="$stress_secs" STRESS_KERNEL="$stress_kernel"
	done
fi

echo "== check summary ($MODE)"
printf '  %s\n' "${summary[@]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
