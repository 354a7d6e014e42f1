#!/bin/bash
# Regenerate the committed fuzz seeds: the .sframe sections of a few small
# test programs (both ABIs, PLT PCMASK FDEs, signed return addresses) and
# the hand-built v2 sections of v2test.  Keep the total under 100 KB.
#   make-seeds.sh SEEDDIR V2TEST CORPUSDIR
set -euo pipefail
dir=$1 v2test=$2 corpus=$3
mkdir -p "$dir"
rm -f "$dir"/*.sframe
for p in ut-x86_64/shapes ut-x86_64/dso ut-x86_64/libsfchain.so \
	 ut-arm64/shapes ut-arm64/shapes-pac ut-arm64/libsfdl.so; do
	objcopy -I elf64-little -O binary --only-section=.sframe "$corpus/$p" \
		"$dir/$(echo "$p" | tr / -).sframe"
done
"$v2test" --write-seeds "$dir" >/dev/null
du -cb "$dir"/*.sframe | tail -1
