#!/bin/bash
# Regenerate the committed fuzz seeds: the .sframe sections of a few small
# test programs (both ABIs, PLT PCMASK FDEs, signed return addresses), the
# same built by the sid toolchain (SFrame v3, in CORPUS3DIR) with
# v3-shapes (flexible FDEs, signal frames), and the hand-built v2 sections
# of v2test.  Keep the total under 100 KB.
#   make-seeds.sh SEEDDIR V2TEST CORPUSDIR CORPUS3DIR
set -euo pipefail
dir=$1 v2test=$2 corpus=$3 corpus3=$4
mkdir -p "$dir"
rm -f "$dir"/*.sframe
for p in ut-x86_64/shapes ut-x86_64/dso ut-x86_64/libsfchain.so \
	 ut-arm64/shapes ut-arm64/shapes-pac ut-arm64/libsfdl.so; do
	objcopy -I elf64-little -O binary --only-section=.sframe "$corpus/$p" \
		"$dir/$(echo "$p" | tr / -).sframe"
done
for p in ut-x86_64/shapes ut-arm64/shapes-pac v3-shapes-x86_64 v3-shapes-aarch64; do
	objcopy -I elf64-little -O binary --only-section=.sframe "$corpus3/$p" \
		"$dir/v3-$(echo "${p#v3-}" | tr / -).sframe"
done
"$v2test" --write-seeds "$dir" >/dev/null
du -cb "$dir"/*.sframe | tail -1
