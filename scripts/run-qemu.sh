#!/bin/bash
# Boot the test guest under QEMU (TCG; KVM hangs on these machines).
#   scripts/run-qemu.sh ARCH [shell]
# Without "shell": runs the tests non-interactively, the whole serial output
# goes to build/<arch>/qemu.log (QEMU_TIMEOUT seconds at most, default 2700).
# With "shell": interactive busybox shell on the serial console
# (Ctrl-A X quits QEMU).
# QEMU_CPU overrides the -cpu model, QEMU_OPTS adds QEMU options (split at
# blanks), QEMU_SMP and QEMU_MEM the number of CPUs (2) and the memory in
# MiB (1024).  TESTARGS="..." is passed to /tests/run-tests.sh; QEMU_APPEND
# adds kernel parameters.  STRESS=1 boots the stress initramfs, QEMU_LOG
# names another log.
set -euo pipefail
. "$(dirname "$0")/common.sh"
set_arch "${1:-}"
mode=${2:-test}

INITRD=$ARCHBUILD/$INITRD_NAME.cpio.gz
LOG=${QEMU_LOG:-$ARCHBUILD/qemu.log}
[ -f "$KIMAGE" ] || die "no kernel image $KIMAGE (make kernel ARCH=$ARCH)"
[ -f "$INITRD" ] || die "no initramfs $INITRD (make initramfs ARCH=$ARCH${STRESS:+ STRESS=$STRESS})"

append="panic=-1 printk.devkmsg=on"
case $ARCH in
x86_64)
	QEMU=(qemu-system-x86_64 -M pc -cpu "${QEMU_CPU:-max}")
	append="console=ttyS0 $append"
	;;
arm64)
	# pauth-impdef: same pointer authentication semantics, but a cheap
	# hash instead of QARMA, which TCG emulates very slowly
	QEMU=(qemu-system-aarch64 -M virt -cpu "${QEMU_CPU:-max,pauth-impdef=on}")
	append="console=ttyAMA0 $append"
	;;
esac
QEMU+=(-smp "${QEMU_SMP:-2}" -m "${QEMU_MEM:-1024}" -no-reboot -kernel "$KIMAGE" -initrd "$INITRD")
# shellcheck disable=SC2206 # split on purpose
[ -n "${QEMU_OPTS:-}" ] && QEMU+=(${QEMU_OPTS})
[ -n "${TESTARGS:-}" ] && append+=" testargs=\"$TESTARGS\""
[ -n "${QEMU_APPEND:-}" ] && append+=" $QEMU_APPEND"

if [ "$mode" = shell ]; then
	exec "${QEMU[@]}" -nographic -append "$append initshell=1"
fi

timeout=${QEMU_TIMEOUT:-2700}
log "booting $ARCH guest (TCG, timeout ${timeout}s), log: $LOG"
start=$(date +%s)
set +e
timeout -k 10 "$timeout" "${QEMU[@]}" -display none -monitor none -serial stdio \
	-append "$append" < /dev/null 2>&1 | tr -d '\r' | tee "$LOG"
rc=${PIPESTATUS[0]}
set -e
echo "=== HOST: qemu exit status $rc after $(( $(date +%s) - start ))s ===" | tee -a "$LOG"
[ "$rc" -ne 124 ] || echo "=== HOST: TIMEOUT after ${timeout}s ===" | tee -a "$LOG"
exit 0	# verdict: scripts/parse-results.sh
