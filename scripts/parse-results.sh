#!/bin/bash
# Verdict of a guest run from its serial log (build/<arch>/qemu.log).
#   scripts/parse-results.sh ARCH [LOG]
# - Test results: lines "ok N ..." / "not ok N ..." after stripping a printk
#   "[ time]" prefix and indentation (so nested KTAP from KUnit counts too);
#   "# SKIP" (or "# TODO") marks skipped ones.
# - Kernel log: every kernel console line (printk time stamp) is scanned for
#   signs of a kernel bug; each one counts as a failure. The dmesg dump that
#   /init prints at the end repeats the console and is not counted twice.
# - The summary lines of nosframe.sh ("# nosframe ARCH: N samples, C
#   complete", "# nosframe-before ...") and of the SFrame v3 and v2 tests
#   ("# sframe-v3 ARCH: N passed, N failed", "# sframe-v2 ...") and of
#   the other consumers of user stacks ("# consumers ARCH: N passed, N
#   failed") and of the oracle tests ("# oracle ARCH: N samples, A agree,
#   D differ, U undecidable", "# stock ARCH: N samples, C complete, W
#   wrong", "# jit ARCH: ...") and of
#   make stress ("# stress ARCH: N seconds, S samples, splats K, leaks L")
#   and of the tables-1000 test ("# tables ARCH: 1 process X bytes, 1000
#   processes Y bytes (ratio R)") and of the hostile-sparse-sframe test
#   ("# hostile ARCH: F files, peak K kB, max mmap T ms, stalls S") and
#   of hostile-memcg ("# memcg ARCH: F files, limit L kB, ...") are
#   echoed without the "# ".
# - The run must reach the end markers (no crash, no timeout), at least one
#   test must run, a top-level TAP plan "1..N" must match the results.
# Last line: "N passed, N failed, N skipped"; exit status 1 on any failure.
set -euo pipefail
. "$(dirname "$0")/common.sh"
set_arch "${1:-}"
LOG=${2:-$ARCHBUILD/qemu.log}
[ -f "$LOG" ] || die "no log $LOG (make qemu-test ARCH=$ARCH)"

ERRORS='WARNING:|BUG:|kernel BUG|Oops|Internal error|Unable to handle kernel|general protection|UBSAN|KASAN|KFENCE|Kernel panic|Call Trace|detected stalls|blocked for more than|list_(add|del) corruption'

tr -d '\r' < "$LOG" | awk -v errors="$ERRORS" '
function fail(msg) { failed++; print "FAIL: " msg }
BEGIN { ts = "^\\[ *[0-9]+\\.[0-9]+\\] ?" }
/^=== DMESG BEGIN ===/ { in_dmesg = 1; next }
/^=== DMESG END ===/   { in_dmesg = 0; next }
in_dmesg { next }
/^=== TESTS BEGIN ===/ { in_tests = 1; begun = 1; next }
/^=== TESTS END/ {
	in_tests = 0; ended = 1
	if (match($0, /rc=[0-9]+/)) rc = substr($0, RSTART + 3, RLENGTH - 3) + 0
	next
}
/^=== GUEST DONE ===/ { done = 1; next }
/^=== HOST: TIMEOUT/  { timeout = 1; next }
{
	line = $0
	kernel = 0
	if (line ~ /\[ *[0-9]+\.[0-9][0-9][0-9][0-9][0-9][0-9]\]/) kernel = 1
	if (kernel && line ~ errors) {
		nerr++
		fail("kernel log: " line)
	}
	sub(ts, "", line)
	toplevel = (!kernel && line !~ /^[ \t]/)
	sub(/^[ \t]+/, "", line)
	# the summary of the nosframe-complete test (userland-tests/guest/nosframe.sh)
	if (in_tests && toplevel && line ~ /^# nosframe(-before)? [a-z0-9_]+: [0-9]+ samples, [0-9]+ complete$/)
		print substr(line, 3)
	# the kernel memory of the tables for 1 and 1,000 processes (run-tests.sh)
	if (in_tests && toplevel && line ~ /^# tables [a-z0-9_]+: 1 process [0-9]+ bytes, [0-9]+ processes [0-9]+ bytes \(ratio [0-9.]+\)$/)
		print substr(line, 3)
	# files built to cost kernel memory (run-tests.sh, hostile-map.c)
	if (in_tests && toplevel && line ~ /^# hostile [a-z0-9_]+: [0-9]+ files, peak -?[0-9]+ kB, max mmap [0-9.]+ ms, stalls [0-9]+$/)
		print substr(line, 3)
	# tables charged to a memory cgroup (run-tests.sh hostile-memcg)
	if (in_tests && toplevel && line ~ /^# memcg [a-z0-9_]+: [0-9]+ files, limit [0-9]+ kB, /)
		print substr(line, 3)
	# the per-sample oracle over the oracle-* tests (run-tests.sh, oracle.c)
	if (in_tests && toplevel && line ~ /^# oracle [a-z0-9_]+: [0-9]+ samples, [0-9]+ agree, [0-9]+ differ, [0-9]+ undecidable$/)
		print substr(line, 3)
	# the programs of Debian, sample by sample (the stock-* tests; not the
	# per-program lines, which name the program)
	if (in_tests && toplevel && line ~ /^# (stock|jit) (x86_64|arm64): [0-9]+ samples, [0-9]+ complete, [0-9]+ wrong$/)
		print substr(line, 3)
	# the summary of make stress (stress.sh)
	if (in_tests && toplevel && line ~ /^# stress [a-z0-9_]+: [0-9]+ seconds, [0-9]+ samples, splats [0-9]+, leaks [0-9]+$/)
		print substr(line, 3)
	# the summaries of the SFrame v3/v2 and the consumers tests (run-tests.sh)
	if (in_tests && toplevel && line ~ /^# (sframe-v[23]|consumers) [a-z0-9_]+: [0-9]+ passed, [0-9]+ failed$/)
		print substr(line, 3)
	if (in_tests && toplevel && line ~ /^1\.\.[0-9]+/) {
		plan = substr(line, 4) + 0; haveplan = 1
	}
	if (line ~ /^(not )?ok [0-9]+([ \t]|$)/) {
		if (in_tests && toplevel) ntop++
		if (line ~ /#[ \t]*(SKIP|skip|Skip|TODO|todo)/) { skipped++; next }
		if (line ~ /^ok/) passed++
		else fail("test: " line)
	}
}
END {
	if (!begun) fail("the guest never started the tests (boot failure?)")
	else if (!ended) fail("the tests did not finish (guest crash or timeout)")
	if (timeout) fail("QEMU timed out")
	if (begun && ended && !done) fail("/init did not reach its end marker")
	if (haveplan && ntop != plan) fail("TAP plan 1.." plan " but " ntop " top-level results")
	if (ended && rc != 0 && failed == 0) fail("run-tests.sh exited with status " rc)
	if (passed + failed + skipped == 0) fail("no test ran")
	printf "%d passed, %d failed, %d skipped\n", passed, failed, skipped
	exit failed > 0
}'
