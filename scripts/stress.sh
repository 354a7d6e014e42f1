#!/bin/bash
# make stress ARCH=x86_64|arm64 [STRESS_SECONDS=600]: the lifecycle of the
# unwind tables under a debug kernel.  Builds the stress kernel
# (KFLAVOR=stress: KASAN, KMEMLEAK, PROVE_LOCKING, PROVE_RCU,
# DEBUG_ATOMIC_SLEEP, DEBUG_VM, UBSAN, debug objects; its own object
# directory) and the stress initramfs (STRESS=1: the test programs, the
# churn program and >= 1,000 hostile ELF files), boots it with 4 CPUs and
# runs userland-tests/guest/stress.sh for STRESS_SECONDS: perf record -a -g at
# STRESS_FREQ (default 1 kHz, see below) while processes fork, exec, thread, map and unmap executable
# files, dlopen/dlclose, and execute and map the hostile files.  The guest
# prints "stress ARCH: N seconds, S samples, splats K, leaks L" and TAP;
# the verdict (scripts/parse-results.sh) also counts every kernel splat of
# the serial log.  Log: build/<arch>/stress.log.
# STRESS_KERNEL=test boots the test kernel instead (make check does, on
# x86_64: that one has PREEMPT, KMEMLEAK, PROVE_LOCKING, PROVE_RCU and the
# debug objects too, but no KASAN), so that CI builds one kernel less.
#   scripts/stress.sh ARCH [SECONDS]
set -euo pipefail
. "$(dirname "$0")/common.sh"
case ${STRESS_KERNEL:-stress} in
stress|test) ;;
*) die "STRESS_KERNEL is stress or test, not '$STRESS_KERNEL'" ;;
esac
export KFLAVOR=${STRESS_KERNEL:-stress} STRESS=1
set_arch "${1:-}"
secs=${2:-${STRESS_SECONDS:-600}}
case $secs in ''|*[!0-9]*) die "STRESS_SECONDS must be a number of seconds" ;; esac

log "stress $ARCH: ${secs}s, $KFLAVOR kernel"
make -C "$TOP" --no-print-directory kernel ARCH="$ARCH"
make -C "$TOP" --no-print-directory initramfs ARCH="$ARCH"
# TCG with KASAN is slow: boot, the run, then the checks (a kmemleak scan
# of the whole memory, perf script over the recording)
# STRESS_FREQ: perf's sampling frequency (stress.sh's default is 10 kHz;
# under TCG with KASAN a timer interrupt takes 17-24 ms, and 10 kHz on 4
# vCPUs made no visible progress in 15 minutes: 1 kHz here by default)
QEMU_SMP=4 QEMU_MEM=2048 QEMU_LOG=$ARCHBUILD/stress.log \
	QEMU_APPEND="stress=$secs STRESS_FREQ=${STRESS_FREQ:-1000} ${QEMU_APPEND:-}" \
	QEMU_TIMEOUT=${QEMU_TIMEOUT:-$((secs * 2 + 1200))} \
	"$TOP/scripts/run-qemu.sh" "$ARCH" > /dev/null
"$TOP/scripts/parse-results.sh" "$ARCH" "$ARCHBUILD/stress.log"
