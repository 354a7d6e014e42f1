/*
 * Host shim for the SFrame reader and the .eh_frame converter:
 * little-endian unaligned loads and stores.
 */
#ifndef _HOST_SHIM_ASM_UNALIGNED_H
#define _HOST_SHIM_ASM_UNALIGNED_H
#include <stdint.h>
#include <string.h>
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "host shim assumes a little-endian host"
#endif
static inline uint16_t get_unaligned_le16(const void *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t get_unaligned_le32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t get_unaligned_le64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void put_unaligned_le16(uint16_t val, void *p)
{
	memcpy(p, &val, sizeof(val));
}

static inline void put_unaligned_le32(uint32_t val, void *p)
{
	memcpy(p, &val, sizeof(val));
}

static inline void put_unaligned_le64(uint64_t val, void *p)
{
	memcpy(p, &val, sizeof(val));
}
#endif
