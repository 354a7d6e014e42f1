#!/bin/bash
# Regenerate the committed seeds of the converter fuzzer (fuzz-eh.c): the
# .eh_frame sections of a few small objects of both ABIs, each followed by
# the 8-byte trailer fuzz-eh.c reads (arch byte, link-time address of
# .eh_frame as le32, three selector bytes).  Each seed < 20 KB.
#   make-seeds-eh.sh SEEDDIR CORPUSDIR
set -euo pipefail
dir=$1 corpus=$2
mkdir -p "$dir"
rm -f "$dir"/*.eh
n=0
for p in "$corpus"/ut-x86_64/shapes "$corpus"/ut-x86_64/libsfchain.so \
	 "$corpus"/ut-arm64/shapes-pac "$corpus"/ut-arm64/libsfdl.so \
	 "$corpus"/cfi-shapes-x86_64 "$corpus"/cfi-shapes-aarch64 \
	 /usr/lib/x86_64-linux-gnu/crt1.o \
	 /usr/aarch64-linux-gnu/lib/crt1.o; do
	case $p in
	*/ut-arm64/*|*aarch64*) arch=1 ;;
	*) arch=0 ;;
	esac
	name=$(echo "$p" | sed 's|.*/corpus/||; s|^/usr/||; s|/|-|g')
	addr=$(readelf -SW "$p" | sed -n 's/.*\] \.eh_frame  *PROGBITS  *\([0-9a-f]*\) .*/\1/p')
	[ -n "$addr" ] || { echo "make-seeds-eh: no .eh_frame in $p" >&2; continue; }
	out=$dir/$name.eh
	objcopy -O binary --only-section=.eh_frame "$p" "$out" 2>/dev/null ||
		objcopy -I elf64-little -O binary --only-section=.eh_frame "$p" "$out"
	a=$((0x$addr & 0xffffffff))
	printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x\\x%02x\\x%02x\\x%02x\\x%02x' \
		$arch $((a & 255)) $((a >> 8 & 255)) $((a >> 16 & 255)) $((a >> 24 & 255)) \
		$((n * 37 & 255)) $((n * 101 & 255)) $((n & 255)))" >> "$out"
	size=$(stat -c %s "$out")
	if [ "$size" -ge 20480 ]; then
		echo "make-seeds-eh: $out is $size bytes, dropped" >&2
		rm -f "$out"
	fi
	n=$((n + 1))
done
du -cb "$dir"/*.eh | tail -1
