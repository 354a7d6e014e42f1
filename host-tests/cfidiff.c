// SPDX-License-Identifier: GPL-2.0
/*
 * Differential test of the .eh_frame -> SFrame converter
 * (lib/sframe/sframe_ehframe.c) against elfutils' libdw.
 *
 *   cfidiff [--verbose] [--max-detail N] ELF...
 *
 * --verbose lists every libdw row that gets no SFrame row, with its reason.
 *
 * For every object: .eh_frame is read from the section headers (libelf),
 * converted with sframe_eh_convert() (into a buffer of its allocator, of
 * exactly the size of the section) and the result registered with
 * sframe_section_init(sec, out, size, 0).  Then every PC of every DWARF
 * FDE (enumerated with dwarf_next_cfi()) is looked up twice:
 *
 *   - libdw: dwarf_cfi_addrframe() on dwarf_getcfi_elf(), then
 *     dwarf_frame_info(), dwarf_frame_cfa() and dwarf_frame_register() for
 *     the return address and the frame pointer;
 *   - ours: sframe_find_row() on the converted section.
 *
 * libdw's rule is classified as expressible in SFrame (and then what row
 * it must give) or not, with a reason (see the reason table below; the
 * rules are those of the converter's spec).  Where libdw's rule is
 * expressible our row must exist and match it field by field; where it
 * is not, we must have no row.  Anything else is a mismatch.
 *
 * The mangled-RA bit (aarch64 DW_CFA_AARCH64_negate_ra_state) is not
 * exposed by libdw 0.188 (its CFI interpreter ignores the opcode, "XXX
 * not handled yet"), so it is checked against GNU readelf instead: the
 * output of `readelf --debug-dump=frames` (binutils' own CFI decoder) is
 * parsed, the RA-signed state followed through advance_loc/set_loc,
 * negate_ra_state and remember/restore_state, and compared with
 * row.ra_mangled at every PC where we have a row.  The B-key FDE bit is
 * compared with the CIE's augmentation string (as libdw parses it).
 *
 * Also checked: every SFrame FDE lies inside one DWARF FDE (so no row is
 * invented outside the CFI), the number of FDEs the converter saw equals
 * libdw's, and libdw's last row of each FDE ends where the FDE ends (our
 * FDE range decoding agrees with libdw's).
 *
 * Per object it prints the PCs compared, the rows accepted, the PCs (and
 * libdw rows) not expressible by reason, the converter's own statistics
 * (the numbers for the changelog) and the first mismatches in detail.  It
 * ends with "cfi pcs compared: M, mismatches: K" and "N passed, N failed"
 * (one test per object).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>

#include "sframe_read.h"
#include "sframe_format.h"
#include "sframe_ehframe.h"

int sframe_read_user_word(unsigned long addr, unsigned long *val)
{
	(void)addr;
	(void)val;
	return -EFAULT;
}

/* Why libdw's rule at a PC has no SFrame row (0: it has one). */
enum reason {
	RS_OK,
	RS_SIGNAL,
	RS_RA_REG,
	RS_LIBDW_ERR,
	RS_CFA_EXPR,
	RS_CFA_REG,
	RS_CFA_UNDEF,
	RS_CFA_RANGE,
	RS_RA_SAME_X86,
	RS_RA_OFF_X86,
	RS_RA_RULE,
	RS_FP_RULE,
	RS_FP_NO_RA,
	NR_REASONS
};

static const char *const reason_name[NR_REASONS] = {
	[RS_OK] = "expressible",
	[RS_SIGNAL] = "signal frame (CIE augmentation 'S')",
	[RS_RA_REG] = "CIE return address column not 16/30",
	[RS_LIBDW_ERR] = "libdw cannot evaluate the CFI",
	[RS_CFA_EXPR] = "CFA is a DWARF expression",
	[RS_CFA_REG] = "CFA based on a register other than SP/FP",
	[RS_CFA_UNDEF] = "CFA undefined",
	[RS_CFA_RANGE] = "CFA offset beyond s32",
	[RS_RA_SAME_X86] = "x86_64 RA same_value/unspecified",
	[RS_RA_OFF_X86] = "x86_64 RA saved at a CFA offset other than -8",
	[RS_RA_RULE] = "RA in a register, expression or val_* rule",
	[RS_FP_RULE] = "FP undefined, in a register, expression or val_*",
	[RS_FP_NO_RA] = "aarch64 FP saved while RA stays in LR",
};

/* Short names, for the STATS line and the summary table. */
static const char *const reason_key[NR_REASONS] = {
	[RS_OK] = "ok",
	[RS_SIGNAL] = "signal",
	[RS_RA_REG] = "ra-column",
	[RS_LIBDW_ERR] = "libdw-error",
	[RS_CFA_EXPR] = "cfa-expr",
	[RS_CFA_REG] = "cfa-reg",
	[RS_CFA_UNDEF] = "cfa-undef",
	[RS_CFA_RANGE] = "cfa-range",
	[RS_RA_SAME_X86] = "ra-same",
	[RS_RA_OFF_X86] = "ra-off",
	[RS_RA_RULE] = "ra-rule",
	[RS_FP_RULE] = "fp-rule",
	[RS_FP_NO_RA] = "fp-no-ra",
};

struct expect {
	int reason;
	bool outermost;
	bool base_sp;
	int32_t cfa;
	bool ra_tracked;
	int32_t ra;
	bool fp_tracked;
	int32_t fp;
	Dwarf_Addr start, end;	/* libdw's row */
	char desc[160];		/* libdw's rule, for the report */
};

/* One DWARF FDE, from dwarf_next_cfi(). */
struct fde {
	uint64_t begin, end;
	uint64_t off;		/* in .eh_frame */
	bool key_b;		/* CIE augmentation has 'B' */
	bool bad;		/* cannot decode its range */
};

/* A range of PCs where readelf says the return address is signed. */
struct span {
	uint64_t start, end;
};

struct obj {
	const char *path;
	const char *name;
	bool arm64;
	int sp, fp, ra;
	/* RA-signed spans from readelf (aarch64) */
	struct span *signed_spans;
	size_t nsigned;
	bool have_readelf;
};

static int verbose;
static unsigned int max_detail = 8;

/* Totals over all objects. */
static uint64_t t_pcs, t_mismatch;

static void *cfidiff_alloc(size_t size)
{
	return malloc(size);
}

static bool fits_s32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* ------------------------------------------------------------ readelf */

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

struct ra_cie {
	uint64_t off;
	bool sign;
};

/*
 * Parse `readelf --debug-dump=frames` of .eh_frame: collect the spans
 * where the return address is signed.  Return 0, -1 on error.
 */
static int readelf_signed_spans(struct obj *o)
{
	char cmd[4096], line[1024];
	struct ra_cie *cies = NULL;
	size_t ncies = 0, cap = 0, scap = 0;
	bool in_eh = false, in_fde = false, in_cie = false;
	bool sign = false, stack[64];
	unsigned int depth = 0;
	uint64_t loc = 0, pc_end = 0;
	FILE *f;
	int rc;

	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames '%s' 2>/dev/null", o->path);
	f = popen(cmd, "r");
	if (!f)
		return -1;

#define ADD_SPAN(a, b) do {						\
	uint64_t _a = (a), _b = (b) < pc_end ? (b) : pc_end;		\
	if (sign && _a < _b) {						\
		if (o->nsigned == scap) {				\
			scap = scap ? scap * 2 : 1024;			\
			o->signed_spans = realloc(o->signed_spans,	\
				scap * sizeof(*o->signed_spans));	\
			if (!o->signed_spans)				\
				abort();				\
		}							\
		o->signed_spans[o->nsigned].start = _a;			\
		o->signed_spans[o->nsigned++].end = _b;			\
	}								\
} while (0)

	while (fgets(line, sizeof(line), f)) {
		unsigned long long off, len, id, a, b;
		char *p;

		if (!strncmp(line, "Contents of the ", 16)) {
			if (in_fde)
				ADD_SPAN(loc, pc_end);
			in_fde = in_cie = false;
			in_eh = strstr(line, " .eh_frame section") != NULL;
			continue;
		}
		if (!in_eh)
			continue;
		if (line[0] != ' ' && line[0] != '\n') {
			/* A new entry: close the previous FDE. */
			if (in_fde)
				ADD_SPAN(loc, pc_end);
			in_fde = in_cie = false;
			if (sscanf(line, "%llx %llx %llx CIE", &off, &len, &id) == 3 &&
			    strstr(line, " CIE")) {
				if (ncies == cap) {
					cap = cap ? cap * 2 : 64;
					cies = realloc(cies, cap * sizeof(*cies));
					if (!cies)
						abort();
				}
				cies[ncies].off = off;
				cies[ncies++].sign = false;
				in_cie = true;
				sign = false;
				depth = 0;
			} else if ((p = strstr(line, " FDE cie=")) &&
				   sscanf(p, " FDE cie=%llx pc=%llx..%llx", &id, &a, &b) == 3) {
				size_t i;

				sign = false;
				for (i = 0; i < ncies; i++) {
					if (cies[i].off == id) {
						sign = cies[i].sign;
						break;
					}
				}
				in_fde = true;
				loc = a;
				pc_end = b;
				depth = 0;
			}
			continue;
		}
		if (!in_fde && !in_cie)
			continue;
		p = line;
		while (*p == ' ')
			p++;
		if (!strncmp(p, "DW_CFA_AARCH64_negate_ra_state", 30)) {
			sign = !sign;
			if (in_cie)
				cies[ncies - 1].sign = sign;
		} else if (!strncmp(p, "DW_CFA_remember_state", 21)) {
			if (depth < 64)
				stack[depth] = sign;
			depth++;
		} else if (!strncmp(p, "DW_CFA_restore_state", 20)) {
			if (depth) {
				depth--;
				if (depth < 64)
					sign = stack[depth];
			}
		} else if (in_fde && !strncmp(p, "DW_CFA_advance_loc", 18)) {
			char *to = strstr(p, " to ");

			if (to && sscanf(to, " to %llx", &a) == 1) {
				ADD_SPAN(loc, a);
				loc = a;
			}
		} else if (in_fde && !strncmp(p, "DW_CFA_set_loc: ", 16)) {
			if (sscanf(p + 16, "%llx", &a) == 1) {
				ADD_SPAN(loc, a);
				loc = a;
			}
		}
	}
	if (in_fde)
		ADD_SPAN(loc, pc_end);
#undef ADD_SPAN
	rc = pclose(f);
	free(cies);
	if (rc)
		return -1;
	if (o->nsigned)
		qsort(o->signed_spans, o->nsigned, sizeof(*o->signed_spans), cmp_span);
	o->have_readelf = true;
	return 0;
}

/* readelf's RA-signed state at @pc. */
static bool readelf_signed(const struct obj *o, uint64_t pc)
{
	size_t lo = 0, hi = o->nsigned;

	/* Last span starting at or before pc. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->signed_spans[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && pc < o->signed_spans[lo - 1].end;
}

/* ------------------------------------------------------------ libdw */

/* Decode a pointer of @enc at @p (bounded by @end); @field: its address. */
static int read_enc(const uint8_t **pp, const uint8_t *end, uint8_t enc,
		    uint64_t field, bool apply, uint64_t *val)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;
	unsigned int shift = 0;
	uint8_t b;

	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		if (end - p < 8)
			return -1;
		memcpy(&v, p, 8);
		p += 8;
		break;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4: {
		uint32_t x;

		if (end - p < 4)
			return -1;
		memcpy(&x, p, 4);
		p += 4;
		v = (enc & 0x0f) == DW_EH_PE_sdata4 ? (uint64_t)(int64_t)(int32_t)x : x;
		break;
	}
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2: {
		uint16_t x;

		if (end - p < 2)
			return -1;
		memcpy(&x, p, 2);
		p += 2;
		v = (enc & 0x0f) == DW_EH_PE_sdata2 ? (uint64_t)(int64_t)(int16_t)x : x;
		break;
	}
	case DW_EH_PE_uleb128:
	case DW_EH_PE_sleb128:
		do {
			if (p >= end || shift > 63)
				return -1;
			b = *p++;
			v |= (uint64_t)(b & 0x7f) << shift;
			shift += 7;
		} while (b & 0x80);
		if ((enc & 0x0f) == DW_EH_PE_sleb128 && (b & 0x40) && shift < 64)
			v |= ~0ULL << shift;
		break;
	default:
		return -1;
	}
	if (apply) {
		switch (enc & 0x70) {
		case DW_EH_PE_absptr:
			break;
		case DW_EH_PE_pcrel:
			v += field;
			break;
		default:
			return -1;
		}
	}
	*pp = p;
	*val = v;
	return 0;
}

struct cie_info {
	uint64_t off;
	uint8_t fde_enc;
	bool key_b;
	bool ok;
};

static int cmp_fde(const void *a, const void *b)
{
	const struct fde *x = a, *y = b;

	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* Enumerate the FDEs of .eh_frame with dwarf_next_cfi(). */
static struct fde *list_fdes(Elf *elf, Elf_Data *data, uint64_t sh_addr,
			     size_t *nfdes, size_t *nbad)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
	struct cie_info *cies = NULL;
	struct fde *fdes = NULL;
	size_t ncies = 0, ccap = 0, fcap = 0, n = 0;
	Dwarf_Off off = 0, next;
	Dwarf_CFI_Entry e;

	*nbad = 0;
	for (;;) {
		int r = dwarf_next_cfi(ident, data, true, off, &next, &e);

		if (r != 0) {
			if (r < 0)
				fprintf(stderr, "  dwarf_next_cfi at %#" PRIx64 ": %s\n",
					(uint64_t)off, dwarf_errmsg(-1));
			break;
		}
		if (dwarf_cfi_cie_p(&e)) {
			struct cie_info ci = { .off = off, .fde_enc = DW_EH_PE_absptr, .ok = true };
			const char *aug = e.cie.augmentation;
			const uint8_t *ap = e.cie.augmentation_data;
			const uint8_t *aend = ap ? ap + e.cie.augmentation_data_size : NULL;
			uint64_t dummy;

			if (aug[0] == 'z') {
				for (const char *s = aug + 1; *s && ci.ok; s++) {
					switch (*s) {
					case 'R':
						if (!ap || ap >= aend)
							ci.ok = false;
						else
							ci.fde_enc = *ap++;
						break;
					case 'L':
						if (!ap || ap >= aend)
							ci.ok = false;
						else
							ap++;
						break;
					case 'P': {
						uint8_t enc;

						if (!ap || ap >= aend) {
							ci.ok = false;
							break;
						}
						enc = *ap++;
						if (read_enc(&ap, aend, enc & 0x0f, 0, false, &dummy))
							ci.ok = false;
						break;
					}
					case 'B':
						ci.key_b = true;
						break;
					case 'S':
					case 'G':
						break;
					default:
						ci.ok = false;
					}
				}
			} else if (aug[0]) {
				ci.ok = false;
			}
			if (ncies == ccap) {
				ccap = ccap ? ccap * 2 : 64;
				cies = realloc(cies, ccap * sizeof(*cies));
				if (!cies)
					abort();
			}
			cies[ncies++] = ci;
		} else {
			struct fde f = { .off = off, .bad = true };
			const uint8_t *p = e.fde.start;
			const uint8_t *end = e.fde.end;
			const uint8_t *base = data->d_buf;
			struct cie_info *ci = NULL;
			uint64_t begin, range;
			size_t i;

			for (i = ncies; i-- > 0;) {
				if (cies[i].off == e.fde.CIE_pointer) {
					ci = &cies[i];
					break;
				}
			}
			if (ci && ci->ok &&
			    !read_enc(&p, end, ci->fde_enc, sh_addr + (p - base), true, &begin) &&
			    !read_enc(&p, end, ci->fde_enc & 0x0f, 0, false, &range)) {
				f.begin = begin;
				f.end = begin + range;
				f.key_b = ci->key_b;
				f.bad = f.end < f.begin;
			}
			if (f.bad)
				(*nbad)++;
			if (n == fcap) {
				fcap = fcap ? fcap * 2 : 1024;
				fdes = realloc(fdes, fcap * sizeof(*fdes));
				if (!fdes)
					abort();
			}
			fdes[n++] = f;
		}
		off = next;
		if (off == (Dwarf_Off)-1)
			break;
	}
	free(cies);
	if (n)
		qsort(fdes, n, sizeof(*fdes), cmp_fde);
	*nfdes = n;
	return fdes;
}

/* Value of a dwarf_frame_register() location: -1 error, 0 ok. */
enum rkind { K_UNDEF, K_SAME, K_OFFSET, K_OTHER };

static int reg_rule(Dwarf_Frame *fr, int regno, enum rkind *kind, int64_t *off,
		    char *buf, size_t len)
{
	Dwarf_Op mem[3], *ops = NULL;
	size_t nops = 0;
	int r = dwarf_frame_register(fr, regno, mem, &ops, &nops);

	*off = 0;
	if (r < 0) {
		snprintf(buf, len, "r%d: error", regno);
		return -1;
	}
	if (r == 0 && nops == 0) {
		/* libdw.h: *OPS NULL is same_value, OPS_MEM undefined. */
		*kind = ops ? K_UNDEF : K_SAME;
		snprintf(buf, len, "r%d %s", regno, ops ? "undef" : "same");
		return 0;
	}
	if (r == 0 && ops[0].atom == DW_OP_call_frame_cfa &&
	    (nops == 1 || (nops == 2 && ops[1].atom == DW_OP_plus_uconst))) {
		*kind = K_OFFSET;
		*off = nops == 2 ? (int64_t)ops[1].number : 0;
		snprintf(buf, len, "r%d at cfa%+" PRId64, regno, *off);
		return 0;
	}
	*kind = K_OTHER;
	snprintf(buf, len, "r%d %s (op %#x, %zu ops)", regno, r ? "val_*" : "other",
		 ops ? ops[0].atom : 0, nops);
	return 0;
}

/*
 * Evaluate a CFA expression at @pc over the operations an x86-64 PLT's
 * uses (GNU ld: RSP + off + ((RIP & 15) >= N ? 8 : 0)): values are
 * a * SP + b, SP unknown, the rest constants.  True if the result is
 * SP + *off and depends on the PC.  Independent of the converter's
 * pattern match: any such expression of these operations is evaluated.
 * (Expressions that do not read the PC are left not expressible, as the
 * converter leaves them.)
 */
static bool eval_sp_expr(const Dwarf_Op *ops, size_t nops, uint64_t pc,
			 int sp_reg, int pc_reg, int64_t *off)
{
	int64_t a[8], b[8];
	bool uses_pc = false;
	size_t i, n = 0;

	for (i = 0; i < nops; i++) {
		uint8_t op = ops[i].atom;

		if (op >= DW_OP_lit0 && op <= DW_OP_lit31) {
			if (n == 8)
				return false;
			a[n] = 0;
			b[n++] = op - DW_OP_lit0;
		} else if (op >= DW_OP_breg0 && op <= DW_OP_breg31) {
			if (n == 8)
				return false;
			if (op - DW_OP_breg0 == sp_reg) {
				a[n] = 1;
				b[n++] = (int64_t)ops[i].number;
			} else if (op - DW_OP_breg0 == pc_reg) {
				uses_pc = true;
				a[n] = 0;
				b[n++] = (int64_t)(pc + ops[i].number);
			} else {
				return false;
			}
		} else if (n >= 2 && op == DW_OP_plus) {
			n--;
			a[n - 1] += a[n];
			b[n - 1] += b[n];
		} else if (n >= 2 && (op == DW_OP_and || op == DW_OP_ge ||
				      op == DW_OP_shl)) {
			n--;
			if (a[n] || a[n - 1])
				return false;
			if (op == DW_OP_and)
				b[n - 1] &= b[n];
			else if (op == DW_OP_ge)
				b[n - 1] = b[n - 1] >= b[n];
			else if (b[n] >= 0 && b[n] < 64)
				b[n - 1] = (int64_t)((uint64_t)b[n - 1] << b[n]);
			else
				return false;
		} else {
			return false;
		}
	}
	if (n != 1 || a[0] != 1 || !uses_pc)
		return false;
	*off = b[0];
	return true;
}

/* libdw's rule at @pc, classified. */
static void libdw_rule(const struct obj *o, Dwarf_CFI *cfi, uint64_t pc,
		       struct expect *x)
{
	Dwarf_Frame *fr = NULL;
	Dwarf_Op *ops;
	size_t nops;
	bool signal;
	int ra;
	enum rkind rk, fk;
	int64_t roff, foff, cfa_off;
	char rb[64], fb[64], cb[64] = "cfa ?";

	memset(x, 0, sizeof(*x));
	if (dwarf_cfi_addrframe(cfi, pc, &fr) != 0) {
		x->reason = RS_LIBDW_ERR;
		snprintf(x->desc, sizeof(x->desc), "addrframe: %s", dwarf_errmsg(-1));
		x->start = pc;
		x->end = pc + 1;
		return;
	}
	ra = dwarf_frame_info(fr, &x->start, &x->end, &signal);
	if (signal) {
		x->reason = RS_SIGNAL;
		snprintf(x->desc, sizeof(x->desc), "signal frame");
		goto out;
	}
	if (ra != o->ra) {
		x->reason = RS_RA_REG;
		snprintf(x->desc, sizeof(x->desc), "RA column %d", ra);
		goto out;
	}
	if (reg_rule(fr, o->ra, &rk, &roff, rb, sizeof(rb)) ||
	    reg_rule(fr, o->fp, &fk, &foff, fb, sizeof(fb))) {
		x->reason = RS_LIBDW_ERR;
		snprintf(x->desc, sizeof(x->desc), "register rule: %s", dwarf_errmsg(-1));
		goto out;
	}
	/* CFA */
	if (dwarf_frame_cfa(fr, &ops, &nops) < 0) {
		x->reason = RS_CFA_UNDEF;	/* cfa_invalid */
		snprintf(cb, sizeof(cb), "cfa invalid");
	} else if (nops == 0) {
		x->reason = RS_CFA_UNDEF;
		snprintf(cb, sizeof(cb), "cfa undef");
	} else if (nops == 1 && ops[0].atom == DW_OP_bregx) {
		int64_t off = (int64_t)ops[0].number2;

		snprintf(cb, sizeof(cb), "cfa r%" PRIu64 "%+" PRId64, (uint64_t)ops[0].number, off);
		if (ops[0].number != (Dwarf_Word)o->sp && ops[0].number != (Dwarf_Word)o->fp)
			x->reason = RS_CFA_REG;
		else if (!fits_s32(off))
			x->reason = RS_CFA_RANGE;
		x->base_sp = ops[0].number == (Dwarf_Word)o->sp;
		x->cfa = (int32_t)off;
	} else if (!o->arm64 && eval_sp_expr(ops, nops, pc, o->sp, 16, &cfa_off) &&
		   fits_s32(cfa_off)) {
		/* The value depends on the PC: a row of one byte. */
		snprintf(cb, sizeof(cb), "cfa expr = r%d%+" PRId64, o->sp, cfa_off);
		x->base_sp = true;
		x->cfa = (int32_t)cfa_off;
		x->start = pc;
		x->end = pc + 1;
	} else {
		x->reason = RS_CFA_EXPR;
		snprintf(cb, sizeof(cb), "cfa expr (%zu ops)", nops);
	}
	snprintf(x->desc, sizeof(x->desc), "%s, %s, %s", cb, rb, fb);

	if (rk == K_UNDEF) {
		/* Outermost frame: no offsets at all, the rest is moot. */
		x->reason = RS_OK;
		x->outermost = true;
		goto out;
	}
	if (x->reason)
		goto out;
	/* RA */
	if (!o->arm64) {
		if (rk == K_SAME) {
			x->reason = RS_RA_SAME_X86;
			goto out;
		}
		if (rk == K_OTHER) {
			x->reason = RS_RA_RULE;
			goto out;
		}
		if (roff != -8) {
			x->reason = RS_RA_OFF_X86;
			goto out;
		}
		x->ra_tracked = true;	/* the header's fixed offset */
		x->ra = -8;
	} else if (rk == K_OFFSET) {
		if (!fits_s32(roff)) {
			x->reason = RS_RA_RULE;
			goto out;
		}
		x->ra_tracked = true;
		x->ra = (int32_t)roff;
	} else if (rk != K_SAME) {
		x->reason = RS_RA_RULE;
		goto out;
	}
	/* FP */
	if (fk == K_OFFSET && fits_s32(foff)) {
		if (o->arm64 && !x->ra_tracked) {
			x->reason = RS_FP_NO_RA;
			goto out;
		}
		x->fp_tracked = true;
		x->fp = (int32_t)foff;
	} else if (fk != K_SAME) {
		x->reason = RS_FP_RULE;
		goto out;
	}
out:
	free(fr);
}

/* ------------------------------------------------------------ compare */

static void print_row(const char *who, int ret, const struct sframe_row *r)
{
	if (ret) {
		printf("      %-6s no row (%d)\n", who, ret);
		return;
	}
	if (r->outermost) {
		printf("      %-6s outermost, func %#lx, mangled %d\n", who, r->func_start,
		       r->ra_mangled);
		return;
	}
	printf("      %-6s cfa %s%+d", who, r->cfa_base_sp ? "sp" : "fp", r->cfa_off);
	if (r->ra_tracked)
		printf(" ra cfa%+d", r->ra_off);
	else
		printf(" ra (in LR)");
	if (r->fp_tracked)
		printf(" fp cfa%+d", r->fp_off);
	else
		printf(" fp (unchanged)");
	printf(" mangled %d, func %#lx\n", r->ra_mangled, r->func_start);
}

static void print_expect(const struct expect *x)
{
	printf("      libdw  %s [row %#" PRIx64 "..%#" PRIx64 ")", x->desc,
	       (uint64_t)x->start, (uint64_t)x->end);
	if (x->reason)
		printf(": not expressible: %s\n", reason_name[x->reason]);
	else if (x->outermost)
		printf(": outermost\n");
	else
		printf("\n");
}

static bool row_matches(const struct expect *x, const struct sframe_row *r)
{
	if (x->outermost != r->outermost)
		return false;
	if (x->outermost)
		return true;
	return x->base_sp == r->cfa_base_sp && x->cfa == r->cfa_off &&
	       x->ra_tracked == r->ra_tracked && (!x->ra_tracked || x->ra == r->ra_off) &&
	       x->fp_tracked == r->fp_tracked && (!x->fp_tracked || x->fp == r->fp_off);
}

static int open_elf(const char *path, int *fdp, Elf **elfp)
{
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		perror(path);
		return -1;
	}
	*elfp = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!*elfp) {
		fprintf(stderr, "%s: %s\n", path, elf_errmsg(-1));
		close(fd);
		return -1;
	}
	*fdp = fd;
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Test one object: 0 passed, 1 failed. */
static int test_object(const char *path)
{
	struct obj o = { .path = path };
	struct sframe_eh_stats st;
	struct sframe_section sec;
	Elf *elf = NULL;
	Elf_Scn *scn = NULL;
	Elf_Data *data = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh, ehsh = { 0 };
	size_t shstrndx, nfdes = 0, nbad = 0, i;
	struct fde *fdes = NULL;
	Dwarf_CFI *cfi = NULL;
	uint64_t pcs = 0, mism = 0, found = 0, rows_ok = 0, overlap = 0;
	uint64_t mangled_cmp = 0, mangled_set = 0, fde_end_diff = 0;
	uint64_t nx_pcs[NR_REASONS] = { 0 }, nx_rows[NR_REASONS] = { 0 };
	uint64_t out_bytes = 0;
	unsigned int details = 0;
	long size;
	void *out = NULL;
	double t0 = now();
	int fd = -1, ret, failed = 0;
	uint8_t abi;

	o.name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	if (open_elf(path, &fd, &elf) || !gelf_getehdr(elf, &eh) ||
	    elf_getshdrstrndx(elf, &shstrndx)) {
		printf("%s: cannot read the ELF file\n", path);
		return 1;
	}
	switch (eh.e_machine) {
	case EM_X86_64:
		o.sp = 7, o.fp = 6, o.ra = 16;
		abi = SFRAME_ABI_AMD64_ENDIAN_LITTLE;
		break;
	case EM_AARCH64:
		o.arm64 = true;
		o.sp = 31, o.fp = 29, o.ra = 30;
		abi = SFRAME_ABI_AARCH64_ENDIAN_LITTLE;
		break;
	default:
		printf("%s: machine %u not supported\n", path, eh.e_machine);
		return 1;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".eh_frame") && sh.sh_type == SHT_PROGBITS) {
			data = elf_getdata(scn, NULL);
			ehsh = sh;
		}
	}
	if (!data || !data->d_size || data->d_size > UINT32_MAX) {
		printf("%s: no usable .eh_frame\n", path);
		return 1;
	}

	printf("%s (%s, .eh_frame %zu bytes at %#" PRIx64 ")\n", path,
	       o.arm64 ? "aarch64" : "x86_64", data->d_size, (uint64_t)ehsh.sh_addr);

	/* Convert, with the kernel's limit (16 MiB). */
	size = sframe_eh_convert(data->d_buf, data->d_size, ehsh.sh_addr, abi,
				 cfidiff_alloc, 16U << 20, &out, &st);
	if (size <= 0) {
		printf("  FAIL: sframe_eh_convert = %ld\n", size);
		return 1;
	}
	ret = sframe_section_init(&sec, out, size, 0);
	if (ret) {
		printf("  FAIL: sframe_section_init = %d on the converted section\n", ret);
		return 1;
	}
	if (sec.version != SFRAME_VERSION_2 || sec.abi_arch != abi ||
	    sec.num_fdes != st.out_fdes) {
		printf("  FAIL: header: version %u abi %u num_fdes %u (stats %u)\n",
		       sec.version, sec.abi_arch, sec.num_fdes, st.out_fdes);
		failed = 1;
	}

	/* DWARF FDEs per libdw, and libdw's CFI. */
	fdes = list_fdes(elf, data, ehsh.sh_addr, &nfdes, &nbad);
	cfi = dwarf_getcfi_elf(elf);
	if (!cfi) {
		printf("  FAIL: dwarf_getcfi_elf: %s\n", dwarf_errmsg(-1));
		return 1;
	}
	if (o.arm64 && readelf_signed_spans(&o))
		printf("  WARNING: readelf failed: the mangled-RA bit is not compared\n");

	if (nfdes != st.fdes) {
		printf("  FAIL: libdw lists %zu FDEs, the converter saw %u\n", nfdes, st.fdes);
		failed = 1;
	}

	/* Every PC of every DWARF FDE, each PC once. */
	{
		uint64_t covered = 0;

		for (i = 0; i < nfdes; i++) {
			const struct fde *f = &fdes[i];
			uint64_t pc, lo = f->begin;
			Dwarf_Addr last_end = 0;

			if (f->bad || f->begin == f->end)
				continue;
			if (i && covered > lo) {
				overlap += (covered < f->end ? covered : f->end) - lo;
				lo = covered;
			}
			for (pc = lo; pc < f->end; pc++) {
				struct expect x;
				struct sframe_row row;
				int r;
				bool bad = false;

				libdw_rule(&o, cfi, pc, &x);
				/*
				 * A new libdw row: rows of one FDE have distinct
				 * ends (after restore_state libdw's row start is
				 * the one of the remembered row: do not use it).
				 */
				if (x.end != last_end || pc == lo) {
					nx_rows[x.reason]++;
					if (verbose && x.reason)
						printf("    no row: %#" PRIx64 "..%#" PRIx64
						       " (FDE %#" PRIx64 "): %s: %s\n", pc,
						       (uint64_t)x.end, f->begin,
						       reason_key[x.reason], x.desc);
				}
				last_end = x.end;
				memset(&row, 0, sizeof(row));
				r = sframe_find_row(&sec, pc, &row);
				pcs++;
				if (r && r != -ENOENT)
					bad = true;
				else if (x.reason == RS_OK) {
					if (r)
						bad = true;
					else if (!row_matches(&x, &row))
						bad = true;
				} else {
					nx_pcs[x.reason]++;
					if (!r)
						bad = true;
				}
				if (!r) {
					found++;
					if (row.func_start < f->begin)
						bad = true;
				}
				if (!r && o.have_readelf) {
					bool s = readelf_signed(&o, pc);

					mangled_cmp++;
					mangled_set += row.ra_mangled;
					if (s != row.ra_mangled)
						bad = true;
				}
				if (bad) {
					mism++;
					if (details++ < max_detail) {
						printf("    MISMATCH at %#" PRIx64 " (DWARF FDE %#" PRIx64
						       "..%#" PRIx64 " at .eh_frame+%#" PRIx64 ")\n",
						       pc, f->begin, f->end, f->off);
						print_expect(&x);
						print_row("ours", r, &row);
						if (o.have_readelf && !r)
							printf("      readelf: RA %s\n",
							       readelf_signed(&o, pc) ? "signed" : "not signed");
					}
				} else if (!r) {
					rows_ok++;
				}
			}
			/* libdw's last row must end at our idea of the FDE end. */
			if (lo < f->end && last_end != f->end) {
				if (fde_end_diff++ < 3)
					printf("    note: FDE %#" PRIx64 "..%#" PRIx64
					       ": libdw's last row ends at %#" PRIx64 "\n",
					       f->begin, f->end, (uint64_t)last_end);
			}
			if (f->end > covered)
				covered = f->end;
		}
	}

	/* Every SFrame FDE inside one DWARF FDE, with the right PAC key. */
	for (i = 0; i < sec.num_fdes; i++) {
		const uint8_t *p = sec.fdes + i * sec.fde_size;
		int32_t start;
		uint32_t fsize;
		uint8_t info;
		size_t lo = 0, hi = nfdes, k;
		bool ok = false, key_b = false;

		memcpy(&start, p + SFRAME_FDE_FUNC_START, 4);
		memcpy(&fsize, p + SFRAME_FDE_FUNC_SIZE, 4);
		info = p[SFRAME_FDE_INFO];
		out_bytes += fsize;
		/* Last DWARF FDE starting at or before start; earlier ones may enclose. */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (fdes[mid].begin <= (uint64_t)(int64_t)start)
				lo = mid + 1;
			else
				hi = mid;
		}
		/* Nested or duplicate FDEs: look back a little. */
		for (k = 0; lo > 0 && k < 256; k++) {
			const struct fde *f = &fdes[--lo];

			if (!f->bad && f->begin <= (uint64_t)(int64_t)start &&
			    (uint64_t)(int64_t)start + fsize <= f->end) {
				ok = true;
				key_b = f->key_b;
				break;
			}
		}
		if (!ok) {
			printf("    FAIL: SFrame FDE %zu [%#x, +%#x) is not inside a DWARF FDE\n",
			       i, start, fsize);
			mism++;
		} else if (o.arm64 && !!(info & 0x20) != key_b) {
			printf("    FAIL: SFrame FDE %zu at %#x: PAC key bit %d, CIE 'B' %d\n",
			       i, start, !!(info & 0x20), key_b);
			mism++;
		} else if (!o.arm64 && (info & 0x20)) {
			printf("    FAIL: SFrame FDE %zu at %#x: PAC key bit on x86_64\n", i, start);
			mism++;
		}
		/* PCMASK only for an x86-64 PLT: blocks of 16 bytes. */
		if (SFRAME_FDE_INFO_FDE_TYPE(info) != SFRAME_FDE_TYPE_PCINC &&
		    (o.arm64 || p[SFRAME_FDE_REP_SIZE] != 16)) {
			printf("    FAIL: SFrame FDE %zu at %#x: not PCINC\n", i, start);
			mism++;
		}
	}
	/* Every PC an SFrame FDE covers was seen above (no row invented). */
	if (out_bytes != found) {
		printf("    FAIL: SFrame FDEs cover %" PRIu64 " bytes, rows found at %" PRIu64
		       " DWARF PCs\n", out_bytes, found);
		mism++;
	}

	/* Report. */
	{
		uint64_t nx = 0, nxr = 0;
		unsigned int k;

		for (k = 1; k < NR_REASONS; k++) {
			nx += nx_pcs[k];
			nxr += nx_rows[k];
		}
		printf("  pcs compared: %" PRIu64 ", rows accepted (match): %" PRIu64
		       ", not expressible: %" PRIu64 ", mismatches: %" PRIu64 " (%.1f s)\n",
		       pcs, rows_ok, nx, mism, now() - t0);
		if (o.arm64)
			printf("  mangled RA: %s (%" PRIu64 " PCs compared, %" PRIu64 " signed)\n",
			       o.have_readelf ? "compared with readelf" : "NOT compared",
			       mangled_cmp, mangled_set);
		printf("  libdw: %zu FDEs (%zu undecodable), %" PRIu64 " rows: %" PRIu64
		       " expressible, %" PRIu64 " not; %" PRIu64 " PCs in overlapping FDEs skipped\n",
		       nfdes, nbad, nx_rows[RS_OK] + nxr, nx_rows[RS_OK], nxr, overlap);
		for (k = 1; k < NR_REASONS; k++) {
			if (nx_pcs[k] || nx_rows[k])
				printf("    not expressible: %-48s %8" PRIu64 " PCs %6" PRIu64
				       " rows (%s)\n", reason_name[k], nx_pcs[k], nx_rows[k],
				       reason_key[k]);
		}
		if (fde_end_diff)
			printf("  note: %" PRIu64 " FDEs whose last libdw row ends elsewhere\n",
			       fde_end_diff);
		printf("  converter: cies %u, fdes %u (dropped whole %u), rows %u (dropped %u),"
		       " bytes %" PRIu64 " (dropped %" PRIu64 ", %.2f%%)\n",
		       st.cies, st.fdes, st.fdes_dropped, st.rows, st.rows_dropped,
		       (uint64_t)st.bytes, (uint64_t)st.bytes_dropped,
		       st.bytes ? 100.0 * st.bytes_dropped / st.bytes : 0.0);
		printf("  output: %u SFrame FDEs, %u FREs, %ld bytes for %zu bytes"
		       " of .eh_frame\n", st.out_fdes, st.out_fres, size, data->d_size);
		/*
		 * One line for the summary table: the converter's counts, and
		 * libdw's PCs (code bytes of DWARF FDEs, each once) and PCs
		 * without a row, by reason (PCs/libdw rows).
		 */
		printf("STATS %s %s fdes=%u fdes_dropped=%u rows=%u rows_dropped=%u bytes=%" PRIu64
		       " bytes_dropped=%" PRIu64 " out_fdes=%u out_fres=%u out_size=%ld eh_size=%zu"
		       " pcs=%" PRIu64 " nocov=%" PRIu64,
		       o.name, o.arm64 ? "aarch64" : "x86_64", st.fdes, st.fdes_dropped, st.rows,
		       st.rows_dropped, (uint64_t)st.bytes, (uint64_t)st.bytes_dropped,
		       st.out_fdes, st.out_fres, size, data->d_size, pcs, nx);
		for (k = 1; k < NR_REASONS; k++)
			if (nx_pcs[k] || nx_rows[k])
				printf(" %s=%" PRIu64 "/%" PRIu64, reason_key[k], nx_pcs[k], nx_rows[k]);
		printf("\n");
	}
	if (mism)
		failed = 1;
	printf("  %s\n", failed ? "FAIL" : "ok");
	t_pcs += pcs;
	t_mismatch += mism;

	dwarf_cfi_end(cfi);
	elf_end(elf);
	close(fd);
	free(out);
	free(fdes);
	free(o.signed_spans);
	return failed;
}

int main(int argc, char **argv)
{
	int i, pass = 0, fail = 0;

	elf_version(EV_CURRENT);
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--verbose")) {
			verbose = 1;
		} else if (!strcmp(argv[i], "--max-detail") && i + 1 < argc) {
			max_detail = atoi(argv[++i]);
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "usage: cfidiff [--verbose] [--max-detail N] ELF...\n");
			return 2;
		} else if (test_object(argv[i])) {
			fail++;
		} else {
			pass++;
		}
	}
	printf("cfi pcs compared: %" PRIu64 ", mismatches: %" PRIu64 "\n", t_pcs, t_mismatch);
	printf("%d passed, %d failed\n", pass, fail);
	return fail || !pass;
}
