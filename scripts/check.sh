#!/bin/bash
# make check (CHECK_MODE=ci, the default) and make check-full
# (CHECK_MODE=full): the series checks (scripts/series-check.sh), the
# host-side reader tests, the chain checker's self-test, then for each
# architecture the code generation checks of the test programs, the
# kernel, the initramfs and the QEMU tests; then make stress.  Every part
# ends with its own "N passed, N failed" line; this adds them up into the
# final one.  A part that fails without a count of its own (a build
# error) counts as one failure.
#
#              ci (make check)              full (make check-full)
#   series     SERIES_CHECK=quick           SERIES_CHECK=full
#   guest      run-tests.sh -s              every test, every control
#   stress     x86_64, 30 s                 x86_64 and arm64, 600 s
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
ci)	series_mode=quick testargs=-s stress_secs=30 stress_arches=(x86_64) ;;
full)	series_mode=full testargs= stress_secs=600 stress_arches=(x86_64 arm64) ;;
*)	die "CHECK_MODE is ci or full, not '$MODE'" ;;
esac
export TESTARGS=${TESTARGS:-$testargs}
stress_secs=${CHECK_STRESS_SECONDS:-$stress_secs}

passed=0 failed=0 skipped=0
summary=()

# part NAME COMMAND...: run it, keep its log, add its counts.
part() {
	local name=$1 log=$BUILD/check-$1.log start=$SECONDS st line p f s
	shift
	log "check: $name"
	"$@" 2>&1 | tee "$log"
	st=${PIPESTATUS[0]}
	line=$(grep -E '^([A-Za-z0-9_-]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	p=$(sed -nE 's/.*\b([0-9]+) passed.*/\1/p' <<<"$line")
	f=$(sed -nE 's/.* ([0-9]+) failed.*/\1/p' <<<"$line")
	s=$(sed -nE 's/.* ([0-9]+) skipped.*/\1/p' <<<"$line")
	p=${p:-0} f=${f:-0} s=${s:-0}
	if [ "$st" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1	# failed before it could count
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	summary+=("$(printf '%-14s %4d passed, %d failed, %d skipped, %4ds' \
		"$name" "$p" "$f" "$s" $((SECONDS - start)))")
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
part host make -C "$TOP/host-tests" host-check
part checker "$TOP/userland-tests/selftest-checker.sh"
for a in "${arches[@]}"; do
	# the code generation the expected chains rely on
	part "codegen-$a" bash -c "make -s -C '$TOP/userland-tests' ARCH=$a \
		OUT='$BUILD/$a/tests' && \
		'$TOP/userland-tests/check-codegen.sh' $a '$BUILD/$a/tests'"
	part "$a" bash -c "make -C '$TOP' kernel ARCH=$a && \
		make -C '$TOP' initramfs ARCH=$a && \
		make -C '$TOP' qemu-test ARCH=$a"
done

# make stress (debug kernel, churn, hostile ELF files, perf -a -g)
if [ "$stress_secs" -gt 0 ]; then
	for a in "${stress_arches[@]}"; do
		[[ " ${arches[*]} " == *" $a "* ]] || continue
		part "stress-$a" make -C "$TOP" stress ARCH="$a" \
			STRESS_SECONDS="$stress_secs"
	done
fi

echo "== check summary ($MODE)"
printf '  %s\n' "${summary[@]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
