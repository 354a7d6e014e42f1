/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Call frame information shapes that compilers rarely or never emit, for
 * cfidiff (the .eh_frame converter against libdw).  Never run: the code is
 * nops, only the CFI matters.  Built for x86_64 and aarch64 as a small
 * shared object (-nostdlib) so that libdw finds .eh_frame_hdr.
 *
 * Every rule kind the converter's spec names, for the return address,
 * the frame pointer and the CFA: offsets of every size, the signed
 * (factored) forms, registers, expressions, val_* rules, undefined and
 * same_value, restore/restore_extended, nested remember/restore_state,
 * a CFA expression followed by an offset or a register change (invalid
 * in DWARF: no row), signal frames, personality and LSDA augmentations,
 * long advances and a function with more rows than the 1024 FREs one
 * SFrame FDE may have; on aarch64 also negate_ra_state under
 * remember/restore_state and the B key.
 */

#define FUNC(name)			\
	.globl name;			\
	.type name, %function;		\
name:					\
	.cfi_startproc

#define END(name)			\
	STEP;				\
	.cfi_endproc;			\
	.size name, . - name

	.text

#if defined(__x86_64__)
/* x86_64: rbp 6, rsp 7, rip 16; data alignment factor -8. */
#define STEP	.skip 3, 0x90

FUNC(x_ra_offsets)
	STEP
	.cfi_def_cfa_offset 16
	.cfi_offset rip, -16		/* RA not at CFA-8: no row */
	STEP
	.cfi_offset rip, -8
	STEP
	.cfi_escape 0x06, 16		/* restore_extended rip */
	STEP
	.cfi_escape 0x11, 16, 0x7f	/* offset_extended_sf rip, -1 * -8 = +8 */
	STEP
	.cfi_escape 0x05, 16, 1		/* offset_extended rip, 1 * -8 */
END(x_ra_offsets)

FUNC(x_ra_rules)
	STEP
	.cfi_register rip, rax
	STEP
	.cfi_restore rip
	STEP
	.cfi_same_value rip
	STEP
	.cfi_val_offset rip, -8
	STEP
	.cfi_escape 0x10, 16, 2, 0x77, 0x00	/* expression rip: breg7 0 */
	STEP
	.cfi_escape 0x16, 16, 2, 0x77, 0x08	/* val_expression rip */
	STEP
	.cfi_escape 0x15, 16, 0x7f	/* val_offset_sf rip */
	STEP
	.cfi_restore rip
	STEP
	.cfi_undefined rip		/* outermost */
	STEP
	.cfi_restore rip
END(x_ra_rules)

FUNC(x_fp_rules)
	STEP
	.cfi_def_cfa_offset 16
	.cfi_offset rbp, -16
	STEP
	.cfi_register rbp, rbx
	STEP
	.cfi_offset rbp, -24
	STEP
	.cfi_undefined rbp
	STEP
	.cfi_same_value rbp
	STEP
	.cfi_val_offset rbp, -16
	STEP
	.cfi_escape 0x10, 6, 2, 0x77, 0x00	/* expression rbp */
	STEP
	.cfi_escape 0x16, 6, 2, 0x77, 0x08	/* val_expression rbp */
	STEP
	.cfi_escape 0x11, 6, 0x7e	/* offset_extended_sf rbp, +16 */
	STEP
	.cfi_escape 0x2f, 6, 3		/* GNU_negative_offset_extended rbp, 3 */
	STEP
	.cfi_escape 0x05, 6, 2		/* offset_extended rbp, 2 * -8 */
	STEP
	.cfi_restore rbp
	STEP
	.cfi_offset rbp, -16
	STEP
	.cfi_escape 0x06, 6		/* restore_extended rbp */
	STEP
	.cfi_offset r12, -24		/* other registers: ignored */
	.cfi_register rbx, r13
	.cfi_undefined r14
	STEP
END(x_fp_rules)

FUNC(x_cfa_rules)
	STEP
	.cfi_def_cfa rbp, 16
	STEP
	.cfi_def_cfa_register rax	/* CFA from another register */
	STEP
	.cfi_def_cfa_register rsp
	STEP
	.cfi_escape 0x12, 7, 0x7e	/* def_cfa_sf rsp, -2 * -8 = 16 */
	STEP
	.cfi_escape 0x13, 0x7d		/* def_cfa_offset_sf -3 * -8 = 24 */
	STEP
	.cfi_escape 0x12, 6, 0x7c	/* def_cfa_sf rbp, 32 */
	STEP
	.cfi_escape 0x0f, 2, 0x77, 0x10	/* def_cfa_expression breg7 16 */
	STEP
	.cfi_def_cfa rsp, 8		/* back to register + offset */
	STEP
	.cfi_escape 0x0f, 2, 0x77, 0x10
	STEP
	.cfi_def_cfa_offset 16		/* after an expression: invalid */
	STEP
	.cfi_def_cfa rsp, 16
	STEP
	.cfi_escape 0x0f, 2, 0x77, 0x10
	STEP
	.cfi_def_cfa_register rsp	/* after an expression: invalid */
	STEP
	.cfi_def_cfa rsp, 8
	STEP
	.cfi_escape 0x2e, 0x20		/* GNU_args_size: ignored */
	STEP
END(x_cfa_rules)

FUNC(x_offset_sizes)
	STEP
	.cfi_def_cfa_offset 127
	STEP
	.cfi_def_cfa_offset 128
	STEP
	.cfi_def_cfa_offset 32767
	STEP
	.cfi_def_cfa_offset 32768
	.cfi_offset rbp, -32768
	STEP
	.cfi_def_cfa_offset 0x7fffffff
	STEP
	.cfi_escape 0x0c, 7, 0x80, 0x80, 0x80, 0x80, 0x08	/* def_cfa rsp, 2^31 */
	STEP
	.cfi_def_cfa_offset 8
	.cfi_escape 0x05, 6, 0x80, 0x80, 0x80, 0x80, 0x02	/* rbp at 2^29 * -8 */
	STEP
	.cfi_escape 0x05, 6, 0x80, 0x80, 0x80, 0x80, 0x01	/* rbp at 2^28 * -8 */
	STEP
	.cfi_same_value rbp
	STEP
END(x_offset_sizes)

FUNC(x_states)
	STEP
	.cfi_def_cfa_offset 16
	.cfi_remember_state
	STEP
	.cfi_def_cfa_offset 24
	.cfi_offset rbp, -24
	.cfi_remember_state
	STEP
	.cfi_def_cfa_offset 32
	.cfi_register rip, rax
	.cfi_remember_state
	STEP
	.cfi_def_cfa rbp, 8
	STEP
	.cfi_restore_state
	STEP
	.cfi_restore_state
	STEP
	.cfi_restore_state
	STEP
	.cfi_remember_state
	.cfi_undefined rip
	STEP
	.cfi_restore_state
	STEP
END(x_states)

FUNC(x_long_advances)
	STEP
	.cfi_def_cfa_offset 16
	.skip 300, 0x90			/* advance_loc2 */
	.cfi_def_cfa_offset 24
	.skip 70000, 0x90		/* advance_loc4 */
	.cfi_def_cfa_offset 8
	STEP
END(x_long_advances)

/* 1100 rows that differ from their neighbours: two SFrame FDEs. */
FUNC(x_many_rows)
	.rept 550
	nop
	.cfi_def_cfa_offset 16
	nop
	.cfi_def_cfa_offset 8
	.endr
END(x_many_rows)

FUNC(x_personality)
	.cfi_personality 0x9b, x_pers_ref
	.cfi_lsda 0x1b, x_lsda
	STEP
	.cfi_def_cfa_offset 16
	STEP
END(x_personality)

FUNC(x_signal)
	.cfi_signal_frame
	STEP
	.cfi_def_cfa_offset 16
	STEP
END(x_signal)

FUNC(x_outermost)
	.cfi_undefined rip
	STEP
	.cfi_def_cfa_offset 16
	STEP
	.cfi_escape 0x0f, 2, 0x77, 0x10	/* CFA expression: still outermost */
	STEP
END(x_outermost)

	.section .data.rel.ro, "aw"
	.p2align 3
x_pers_ref:
	.quad x_personality
x_lsda:
	.quad 0

#elif defined(__aarch64__)
/* aarch64: x29 FP, x30 LR (RA), sp 31; code factor 4, data factor -8. */
#define STEP	nop; nop

FUNC(a_pac)
	STEP
	.cfi_negate_ra_state
	STEP
	.cfi_def_cfa_offset 32
	.cfi_offset x29, -32
	.cfi_offset x30, -24
	STEP
	.cfi_remember_state
	.cfi_restore x30
	.cfi_restore x29
	.cfi_def_cfa_offset 0
	.cfi_negate_ra_state
	STEP
	.cfi_restore_state		/* signed again */
	STEP
	.cfi_remember_state
	.cfi_negate_ra_state
	.cfi_remember_state
	.cfi_negate_ra_state
	STEP
	.cfi_restore_state		/* unsigned */
	STEP
	.cfi_restore_state		/* signed */
	STEP
	.cfi_negate_ra_state
	.cfi_def_cfa_offset 0
	.cfi_restore x29
	.cfi_restore x30
	STEP
END(a_pac)

FUNC(a_bkey)
	.cfi_b_key_frame
	STEP
	.cfi_negate_ra_state
	STEP
	.cfi_def_cfa_offset 16
	.cfi_offset x30, -8
	STEP
	.cfi_negate_ra_state
	.cfi_restore x30
	STEP
END(a_bkey)

FUNC(a_ra_rules)
	STEP
	.cfi_def_cfa_offset 16
	.cfi_offset x30, -16
	STEP
	.cfi_register x30, x9
	STEP
	.cfi_same_value x30
	STEP
	.cfi_val_offset x30, -16
	STEP
	.cfi_escape 0x10, 30, 2, 0x8f, 0x00	/* expression x30: breg31 0 */
	STEP
	.cfi_escape 0x11, 30, 0x7f	/* offset_extended_sf x30, +8 */
	STEP
	.cfi_escape 0x06, 30		/* restore_extended x30 */
	STEP
	.cfi_undefined x30		/* outermost */
	STEP
	.cfi_restore x30
	STEP
END(a_ra_rules)

FUNC(a_fp_rules)
	STEP
	.cfi_def_cfa_offset 32
	.cfi_offset x29, -32		/* FP saved, RA in LR: no row */
	STEP
	.cfi_offset x30, -24
	STEP
	.cfi_register x29, x9
	STEP
	.cfi_undefined x29
	STEP
	.cfi_val_offset x29, -32
	STEP
	.cfi_escape 0x2f, 29, 4		/* GNU_negative_offset_extended x29 */
	STEP
	.cfi_same_value x29
	STEP
	.cfi_restore x29
	.cfi_offset x19, -8		/* other registers: ignored */
	.cfi_register x20, x21
	STEP
	.cfi_def_cfa x29, 32
	.cfi_offset x29, -32
	STEP
	.cfi_def_cfa_register x9	/* CFA from another register */
	STEP
	.cfi_escape 0x12, 31, 0x7e	/* def_cfa_sf sp, 16 */
	STEP
	.cfi_escape 0x0f, 2, 0x8f, 0x10	/* def_cfa_expression */
	STEP
	.cfi_def_cfa sp, 0
	.cfi_restore x30
	.cfi_restore x29
	STEP
END(a_fp_rules)

FUNC(a_offset_sizes)
	STEP
	.cfi_def_cfa_offset 40000
	.cfi_offset x29, -40000
	.cfi_offset x30, -39992
	STEP
	.cfi_def_cfa_offset 100000
	STEP
	.cfi_def_cfa_offset 16
	.cfi_offset x29, -16
	.cfi_offset x30, -8
	STEP
	.cfi_def_cfa_offset 0
	.cfi_restore x29
	.cfi_restore x30
	STEP
END(a_offset_sizes)

FUNC(a_long_advances)
	STEP
	.cfi_def_cfa_offset 16
	.skip 1200			/* advance_loc2 (factored: 300) */
	.cfi_def_cfa_offset 32
	.skip 280000			/* advance_loc4 */
	.cfi_def_cfa_offset 0
	STEP
END(a_long_advances)

/* 1100 rows that differ from their neighbours: two SFrame FDEs. */
FUNC(a_many_rows)
	.rept 550
	nop
	.cfi_negate_ra_state
	nop
	.cfi_negate_ra_state
	.endr
END(a_many_rows)

FUNC(a_personality)
	.cfi_personality 0x9b, a_pers_ref
	.cfi_lsda 0x1b, a_lsda
	STEP
	.cfi_def_cfa_offset 16
	STEP
END(a_personality)

FUNC(a_signal)
	.cfi_signal_frame
	STEP
	.cfi_def_cfa_offset 16
	STEP
END(a_signal)

	.section .data.rel.ro, "aw"
	.p2align 3
a_pers_ref:
	.quad a_personality
a_lsda:
	.quad 0
#else
#error "x86_64 or aarch64 only"
#endif

	.section .note.GNU-stack, "", %progbits
