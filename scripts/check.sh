#!/bin/bash
# make check: the series checks (quilt, git am, checkpatch, the builds of
# scripts/series-check.sh with SERIES_CHECK=ci by default), the host-side
# reader tests, the chain checker's self-test, then for each architecture
# the code generation checks of the test programs, the kernel, the
# initramfs and the QEMU tests; then a short make stress on x86_64
# (CHECK_STRESS_SECONDS, default 30; 0 leaves it out; a 60-second run
# takes about 8 minutes of TCG with its debug kernel, which takes about
# 10 minutes to build cold).  Every part ends with its own
# "N passed, N failed" line; this adds them up into the final one.  A part
# that fails without a count of its own (a build error) counts as one
# failure.
#   scripts/check.sh [ARCH...]        (default: x86_64 arm64)
set -uo pipefail
. "$(dirname "$0")/common.sh"

arches=("$@")
[ ${#arches[@]} -gt 0 ] || arches=(x86_64 arm64)
mkdir -p "$BUILD"

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
# the host v3 differential test and the guest's v3 tests need it.
log "check: sid root (scripts/build-sid-root.sh)"
if ! "$TOP/scripts/build-sid-root.sh" > /dev/null; then
	failed=$((failed + 1))
	summary+=("sid-root       build failed: no SFrame v3 tests")
fi

part series env SERIES_CHECK="${SERIES_CHECK:-ci}" "$TOP/scripts/series-check.sh"
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

# a short make stress on x86_64 (debug kernel, churn, hostile ELF files,
# perf -a -g)
if [ "${CHECK_STRESS_SECONDS:-30}" -gt 0 ] &&
   [[ " ${arches[*]} " == *" x86_64 "* ]]; then
	part stress-x86_64 make -C "$TOP" stress ARCH=x86_64 \
		STRESS_SECONDS="${CHECK_STRESS_SECONDS:-30}"
fi

echo "== check summary"
printf '  %s\n' "${summary[@]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
