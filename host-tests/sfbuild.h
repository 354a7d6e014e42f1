/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tiny writer of SFrame sections for the host tests (hand-made v1/v2
 * sections and large synthetic ones).  Independent of the reader: it only
 * knows the on-disk layout, written out byte by byte.
 */
#ifndef HOST_TESTS_SFBUILD_H
#define HOST_TESTS_SFBUILD_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct sfb {
	uint8_t *buf;
	size_t len, cap;
};

static inline void sfb_room(struct sfb *b, size_t n)
{
	if (b->len + n <= b->cap)
		return;
	while (b->len + n > b->cap)
		b->cap = b->cap ? b->cap * 2 : 256;
	b->buf = realloc(b->buf, b->cap);
	if (!b->buf)
		abort();
}

static inline void sfb_u8(struct sfb *b, uint8_t v)
{
	sfb_room(b, 1);
	b->buf[b->len++] = v;
}

static inline void sfb_le(struct sfb *b, uint64_t v, unsigned int n)
{
	unsigned int i;

	sfb_room(b, n);
	for (i = 0; i < n; i++)
		b->buf[b->len++] = (uint8_t)(v >> (8 * i));
}

static inline void sfb_put_le(uint8_t *p, uint64_t v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Header fields, in order; the caller patches counts and offsets later. */
struct sfb_hdr {
	uint8_t version, flags, abi;
	int8_t fixed_fp, fixed_ra;
	uint8_t auxhdr_len;
	uint32_t num_fdes, num_fres, fre_len, fdeoff, freoff;
};

static inline void sfb_header(struct sfb *b, const struct sfb_hdr *h)
{
	sfb_le(b, 0xdee2, 2);
	sfb_u8(b, h->version);
	sfb_u8(b, h->flags);
	sfb_u8(b, h->abi);
	sfb_u8(b, (uint8_t)h->fixed_fp);
	sfb_u8(b, (uint8_t)h->fixed_ra);
	sfb_u8(b, h->auxhdr_len);
	sfb_le(b, h->num_fdes, 4);
	sfb_le(b, h->num_fres, 4);
	sfb_le(b, h->fre_len, 4);
	sfb_le(b, h->fdeoff, 4);
	sfb_le(b, h->freoff, 4);
}

/* FDE: v1 is 17 bytes, v2 appends rep_size and 2 bytes of padding. */
static inline void sfb_fde(struct sfb *b, int version, int32_t start, uint32_t size,
			   uint32_t fre_off, uint32_t num_fres, uint8_t info,
			   uint8_t rep_size)
{
	sfb_le(b, (uint32_t)start, 4);
	sfb_le(b, size, 4);
	sfb_le(b, fre_off, 4);
	sfb_le(b, num_fres, 4);
	sfb_u8(b, info);
	if (version >= 2) {
		sfb_u8(b, rep_size);
		sfb_le(b, 0, 2);
	}
}

#define SFB_FDE_INFO(fre_type, pcmask) ((uint8_t)(((pcmask) ? 0x10 : 0) | (fre_type)))
/* FRE info: base reg (1 = SP), offset count, offset size code, mangled. */
#define SFB_FRE_INFO(sp, n, osz, mangled) \
	((uint8_t)((sp) | ((n) << 1) | ((osz) << 5) | ((mangled) << 7)))

/* FRE: start (addr_size bytes), info, n offsets of (1 << osz) bytes. */
static inline void sfb_fre(struct sfb *b, unsigned int addr_size, uint32_t start,
			   uint8_t info, const int32_t *offs)
{
	unsigned int n = (info >> 1) & 0xf, osz = 1u << ((info >> 5) & 3), i;

	sfb_le(b, start, addr_size);
	sfb_u8(b, info);
	for (i = 0; i < n; i++)
		sfb_le(b, (uint32_t)offs[i], osz);
}

#endif
