# Build, boot and test harness for the SFrame user unwinder patch series.
#   make deps                      install the Debian packages (root)
#   make kernel    ARCH=x86_64     quilt-patched tree + config + image
#   make initramfs ARCH=x86_64     busybox, perf, userland tests, /init
#   make qemu-test ARCH=x86_64     boot under QEMU TCG, parse the results
#   make check                     all of the above for CHECK_ARCHES
#                                  (default: x86_64 arm64), in the slice
#                                  CI runs (scripts/check.sh says which)
#   make check-full                the same with every test and control,
#                                  every prefix of the series, 600-s
#                                  stress runs on both arches
#   make repeat    ARCH=x86_64     the guest suite REPEAT=5 times in a row
#                                  (TESTARGS=-s by default)
#   make series-check              apply, checkpatch, build every prefix
#                                  (both arches, option on/off, W=1),
#                                  sparse, kernel-doc, Debian's config
#                                  (SERIES_CHECK=full; make check: quick)
#   make qemu-shell ARCH=...       interactive shell in the guest
#   make bench     ARCH=x86_64     unwinding cost per sample in the guest
#   make glibc-sframe ARCH=...     Debian's glibc built with SFrame (cached)
#   make check-glibc-sframe ARCH=... chain tests with Debian's / that libc
#   make sid-root                  Debian sid's toolchain (SFrame v3), cached
#   make stress    ARCH=x86_64     debug kernel (KASAN, KMEMLEAK, lockdep),
#                                  churn + perf -a -g (STRESS_SECONDS=600,
#                                  STRESS_FREQ=1000)
#   make debian-kernel ARCH=...    the whole image with Debian's config and
#                                  the series (about an hour; MODULES=1)
# ARCH is x86_64 (default) or arm64. Variables: TESTARGS="..." (passed to
# /tests/run-tests.sh in the guest), QEMU_TIMEOUT=seconds, QEMU_APPEND=...,
# SERIES=file (another series file, e.g. /dev/null for a stock kernel).

TOP := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
ARCH ?= x86_64
CHECK_ARCHES ?= x86_64 arm64
S := $(TOP)/scripts

export GLIBC_SFRAME LOCK SERIES TESTARGS BENCHARGS QEMU_TIMEOUT QEMU_APPEND QEMU_CPU QEMU_OPTS SMOKE
MAKEFLAGS += --no-print-directory

.NOTPARALLEL:
.PHONY: help deps check-deps src config kernel initramfs qemu-test qemu-run \
	qemu-shell parse check clean demo bench glibc-sframe check-glibc-sframe \
	sid-root stress series-check debian-kernel check-full repeat

help:
	@sed -n '2,27s/^# \{0,1\}//p' $(TOP)/Makefile

deps:
	$(S)/deps.sh

check-deps:
	$(S)/check-deps.sh all

src:
	$(S)/prepare-src.sh

config: src
	$(S)/kconfig.sh $(ARCH)

kernel:
	$(S)/build-kernel.sh $(ARCH)

initramfs:
	$(S)/mk-initramfs.sh $(ARCH)

# boot + verdict (the last line is "N passed, N failed, N skipped")
qemu-test: qemu-run
	$(S)/parse-results.sh $(ARCH)

qemu-run:
	$(S)/run-qemu.sh $(ARCH)

# the guest suite REPEAT times in a row (default 5; TESTARGS, default -s):
# tests that fail by chance
export REPEAT
repeat:
	$(S)/repeat.sh $(ARCH)

# re-read the log of the last run
parse:
	$(S)/parse-results.sh $(ARCH)

qemu-shell:
	$(S)/run-qemu.sh $(ARCH) shell

# host-side reader tests, then kernel + initramfs + QEMU tests per arch;
# the last line adds up every part's "N passed, N failed"
check:
	$(S)/check.sh $(CHECK_ARCHES)

check-full:
	CHECK_MODE=full $(S)/check.sh $(CHECK_ARCHES)

export SERIES_CHECK
series-check:
	$(S)/series-check.sh

# install, build, boot; perf output of one program, SFrame on then off
demo:
	$(S)/demo.sh $(ARCH)

# build, boot; cost of a sample: SFrame vs frame pointers vs DWARF
# (BENCHARGS="DEPTH ROUNDS PARTS", see userland-tests/guest/bench.sh)
bench:
	$(S)/bench.sh $(ARCH)

# Debian's glibc (the guest's libc6 version) rebuilt with -Wa,--gsframe,
# once, into /var/cache/sframe-glibc/ARCH/VERSION (25-40 min; not part of
# make check).  make initramfs GLIBC_SFRAME=1 puts it in the guest.
# a debootstrap'ed Debian sid root with binutils that emit SFrame v3,
# gcc 16 and GNU libsframe, in /var/cache/sframe-sid/root (3-5 min, once;
# make check makes it)
sid-root:
	$(S)/build-sid-root.sh

# KASAN/KMEMLEAK/lockdep kernel, 4 CPUs, perf record -a -g (STRESS_FREQ)
# while processes churn and hostile ELF files are executed and mapped
# (scripts/stress.sh; STRESS_SECONDS, default 600; STRESS_KERNEL=test boots
# the test kernel instead, as make check does)
export STRESS_FREQ STRESS_KERNEL
stress:
	$(S)/stress.sh $(ARCH) $(STRESS_SECONDS)

glibc-sframe:
	$(S)/build-glibc-sframe.sh $(ARCH)

# bzImage/Image with Debian's own 6.1 configuration and the series' options
# (not part of make check: about an hour per arch from a cold ccache;
# MODULES=1 builds the modules too)
export MODULES BOOT
debian-kernel:
	$(S)/build-debian-kernel.sh $(ARCH)

# the chain tests with Debian's libc and with the SFrame-built one, at
# sframe_unwind=2 and 1 (four boots; LOCK=file serialises the guest part)
check-glibc-sframe:
	$(S)/check-glibc-sframe.sh $(ARCH)

# everything below build/ (the ccache outside the repository stays)
clean:
	rm -rf $(TOP)/build
