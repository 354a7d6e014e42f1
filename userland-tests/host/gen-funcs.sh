#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Writes assembly for N small functions PREFIX0 ... PREFIX<N-1>, each
# with a frame and a call (so two to four SFrame rows each), and
# PREFIX_sink that they call: the big tables of big-main.c's program
# (N = 45,000: 1.1 MiB of .sframe on x86-64, 1.2 MiB on AArch64) and of
# the 10,000-function library that loadbench dlopens.  gas assembles it in
# seconds, where gcc needs a minute for the same functions in C.
#
#   gen-funcs.sh x86_64|arm64 N PREFIX > FILE.S

arch=$1 n=$2 p=$3
case $arch in
x86_64 | arm64) ;;
*)
	echo "usage: gen-funcs.sh x86_64|arm64 N PREFIX" >&2
	exit 2
	;;
esac

awk -v arch="$arch" -v n="$n" -v p="$p" 'BEGIN {
	print "\t.text"
	printf "\t.p2align 4\n\t.type\t%s_sink, %%function\n%s_sink:\n", p, p
	print "\t.cfi_startproc"
	print "\tret"
	print "\t.cfi_endproc"
	printf "\t.size\t%s_sink, .-%s_sink\n", p, p
	for (i = 0; i < n; i++) {
		f = p i
		printf "\t.globl\t%s\n\t.type\t%s, %%function\n%s:\n", f, f, f
		print "\t.cfi_startproc"
		if (arch == "x86_64") {
			print "\tsubq\t$8, %rsp"
			print "\t.cfi_def_cfa_offset 16"
			printf "\tcall\t%s_sink\n", p
			print "\taddq\t$8, %rsp"
			print "\t.cfi_def_cfa_offset 8"
			print "\tret"
		} else {
			print "\tstp\tx29, x30, [sp, #-16]!"
			print "\t.cfi_def_cfa_offset 16"
			print "\t.cfi_offset 29, -16"
			print "\t.cfi_offset 30, -8"
			printf "\tbl\t%s_sink\n", p
			print "\tldp\tx29, x30, [sp], #16"
			print "\t.cfi_restore 30"
			print "\t.cfi_restore 29"
			print "\t.cfi_def_cfa_offset 0"
			print "\tret"
		}
		print "\t.cfi_endproc"
		printf "\t.size\t%s, .-%s\n", f, f
	}
	print "\t.section\t.note.GNU-stack,\"\",%progbits"
}'
