/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SFrame v3 shapes for the v3 differential test (v3diff): the CFI that
 * gas (binutils >= 2.46, --gsframe) turns into flexible FDEs on x86_64,
 * each rule kind the kernel reader accepts and each it leaves to the
 * .eh_frame tables, and signal frames (FDE info bit 7) on both ABIs.
 * Never run: the code is nops, only the CFI matters.  Linked with
 * v3-shapes.c into a small shared object.
 *
 * What gas 2.47.50 emits for each rule is noted; rules it refuses
 * (DW_CFA_val_offset of FP, CFA expressions other than *(FP + N), RA or FP
 * in a register on aarch64) give no FDE at all and are not here.
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
/* x86_64: rbp 6, rsp 7, r10 10, rip 16. */
#define STEP	.skip 3, 0x90

/* A signal frame with an ordinary frame: a default FDE, info bit 7. */
FUNC(x3_signal)
	.cfi_signal_frame
	STEP
	.cfi_def_cfa_offset 16
	.cfi_offset rbp, -16
	STEP
	.cfi_def_cfa_register rbp
	STEP
	.cfi_def_cfa rsp, 8
END(x3_signal)

/* A signal frame with a flexible FDE. */
FUNC(x3_signal_flex)
	.cfi_signal_frame
	STEP
	.cfi_escape 0x0f, 3, 0x76, 0x08, 0x06	/* CFA = *(rbp + 8) */
	STEP
	.cfi_def_cfa rsp, 8
END(x3_signal_flex)

/* CFA in another register (flex, unsupported), then SP again. */
FUNC(x3_cfa_reg)
	STEP
	.cfi_def_cfa_register r12		/* r12+8 */
	STEP
	.cfi_def_cfa r10, 300			/* 2-byte data words */
	STEP
	.cfi_def_cfa rsp, 16			/* sp+16 in a flex FDE */
	STEP
	.cfi_def_cfa rbp, 16			/* fp+16 in a flex FDE */
	STEP
	.cfi_def_cfa rsp, 8
END(x3_cfa_reg)

/* CFA = *(FP + N): accepted, with every FP and RA rule around it. */
FUNC(x3_cfa_deref)
	STEP
	.cfi_def_cfa_offset 16
	.cfi_offset rbp, -16
	STEP
	.cfi_escape 0x0f, 3, 0x76, 0x78, 0x06	/* CFA = *(rbp - 8), FP c-16 */
	STEP
	.cfi_offset rip, -24			/* RA c-24: RA control word */
	STEP
	.cfi_offset rip, -8
	.cfi_escape 0x10, 6, 2, 0x76, 0x00	/* FP = *(rbp + 0) */
	STEP
	.cfi_escape 0x0f, 3, 0x76, 0x28, 0x06	/* CFA = *(rbp + 40) */
	STEP
	.cfi_restore rbp			/* FP untracked: CFA only */
	STEP
	.cfi_def_cfa rsp, 8
END(x3_cfa_deref)

/* The DRAP sequence gcc emits, by hand, with 4-byte data words. */
FUNC(x3_drap)
	STEP
	.cfi_def_cfa r10, 0
	STEP
	.cfi_escape 0x10, 6, 2, 0x76, 0x00	/* FP = *(rbp + 0) */
	STEP
	.cfi_escape 0x0f, 3, 0x76, 0x78, 0x06	/* CFA = *(rbp - 8) */
	STEP
	.cfi_offset rbp, -70000			/* FP c-70000 */
	STEP
	.cfi_def_cfa r10, 0
	STEP
	.cfi_def_cfa rsp, 8
END(x3_drap)

/* RA saved elsewhere than CFA-8 (flex RA control word), big offsets. */
FUNC(x3_ra_off)
	STEP
	.cfi_def_cfa_offset 16
	.cfi_offset rip, -16
	STEP
	.cfi_offset rbp, -24
	STEP
	.cfi_def_cfa_offset 400
	.cfi_offset rip, -304
	STEP
	.cfi_offset rbp, -70000
	STEP
	.cfi_offset rip, -8
	STEP
	.cfi_restore rbp
	.cfi_def_cfa_offset 8
END(x3_ra_off)

/* RA in a register: flex, unsupported. */
FUNC(x3_ra_reg)
	STEP
	.cfi_register rip, r11
	STEP
	.cfi_restore rip
	STEP
	.cfi_register rip, rbp
	STEP
	.cfi_restore rip
END(x3_ra_reg)

/* FP rules: in a register (unsupported), unchanged (fp+0: accepted). */
FUNC(x3_fp_reg)
	STEP
	.cfi_register rbp, r13
	STEP
	.cfi_register rbp, rsp
	STEP
	.cfi_register rbp, rbp
	STEP
	.cfi_escape 0x10, 6, 2, 0x76, 0x10	/* FP = *(rbp + 16) */
	STEP
	.cfi_escape 0x10, 6, 2, 0x77, 0x10	/* FP = *(rsp + 16), see below */
	STEP
	.cfi_restore rbp
END(x3_fp_reg)
/*
 * gas 2.47.50 encodes the last FP rule with the control word 0xffffffff
 * (readelf: "(r536870911+16)"): reg_p with an impossible register.
 */

/* Outermost frames, in a default and in a flexible FDE. */
FUNC(x3_undef)
	STEP
	.cfi_undefined rip
	STEP
END(x3_undef)

FUNC(x3_undef_flex)
	STEP
	.cfi_def_cfa r10, 0
	STEP
	.cfi_undefined rip
	STEP
	.cfi_def_cfa rsp, 8
	STEP
END(x3_undef_flex)

#elif defined(__aarch64__)
/* aarch64: x29 FP, x30 LR, sp 31.  gas emits no flexible FDE here. */
#define STEP	nop; nop

/* A signal frame with a frame record. */
FUNC(a3_signal)
	.cfi_signal_frame
	STEP
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	STEP
	.cfi_def_cfa 29, 32
	STEP
	.cfi_restore 29
	.cfi_restore 30
	.cfi_def_cfa sp, 0
END(a3_signal)

/* Signed return address, A and B key. */
FUNC(a3_pac)
	.cfi_negate_ra_state
	STEP
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	STEP
	.cfi_restore 29
	.cfi_restore 30
	.cfi_def_cfa_offset 0
	.cfi_negate_ra_state
END(a3_pac)

FUNC(a3_bkey)
	.cfi_b_key_frame
	.cfi_negate_ra_state
	STEP
	.cfi_def_cfa_offset 80000		/* 4-byte offsets */
	.cfi_offset 29, -80000
	.cfi_offset 30, -79992
	STEP
	.cfi_def_cfa_offset 0
	.cfi_restore 29
	.cfi_restore 30
	.cfi_negate_ra_state
END(a3_bkey)

/* Outermost frame. */
FUNC(a3_undef)
	STEP
	.cfi_undefined 30
	STEP
END(a3_undef)

#else
#error "x86_64 or aarch64 only"
#endif
