/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LEB128 varints and zigzag signed mapping, as used by trace record bodies
 * (docs/trace-format.md, "Numbers").  Encoders write into a buffer the caller
 * has sized for the worst case (VARINT_MAX bytes per number); decoders are
 * bounds-checked because they run on untrusted input.
 */
#ifndef PMIPROF_VARINT_H
#define PMIPROF_VARINT_H

#include <stddef.h>
#include <stdint.h>

#define VARINT_MAX 10	/* bytes of a 64-bit LEB128 number */

static inline uint64_t zigzag_enc(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t zigzag_dec(uint64_t u)
{
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

/* Append v at p; returns the new end.  Writes at most VARINT_MAX bytes. */
static inline uint8_t *varint_put(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)v | 0x80;
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline size_t varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/*
 * Read a varint from [*pp, end).  Returns 0 and advances *pp, or -1 when the
 * number runs past end or does not fit in 64 bits (an 11th byte, or a 10th
 * byte above 1).  Never reads outside [*pp, end).
 */
static inline int varint_get(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;
	unsigned int shift;

	if (p < end && *p < 0x80) {	/* fast path: one byte */
		*out = *p;
		*pp = p + 1;
		return 0;
	}
	for (shift = 0; shift < 64; shift += 7) {
		uint8_t b;

		if (p >= end)
			return -1;
		b = *p++;
		if (shift == 63 && b > 1)
			return -1;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			*pp = p;
			return 0;
		}
	}
	return -1;
}

/*
 * Same as varint_get() for a caller that has checked that VARINT_MAX bytes
 * are readable at *pp (it still checks that the number ends within them and
 * fits 64 bits); whether the number stayed inside its record is the caller's
 * check afterwards.
 */
static inline int varint_get_unchecked(const uint8_t **pp, uint64_t *out)
{
	const uint8_t *p = *pp;
	uint64_t v = p[0], b;
	unsigned int shift;

	/* one and two bytes (most numbers in a record) without masking */
	if (__builtin_expect(v < 0x80, 1)) {
		*out = v;
		*pp = p + 1;
		return 0;
	}
	b = p[1];
	v += (b << 7) - 0x80;		/* drop byte 0's continuation bit */
	if (b < 0x80) {
		*out = v;
		*pp = p + 2;
		return 0;
	}
	v -= 0x80 << 7;			/* and byte 1's */
	p += 2;
	for (shift = 14;; shift += 7) {
		b = *p++;
		if (shift == 63 && b > 1)	/* 10th byte: only bit 0 left */
			return -1;
		v |= (b & 0x7f) << shift;
		if (b < 0x80)
			break;
	}
	*out = v;
	*pp = p;
	return 0;
}

/* zigzag_dec() of the one-byte numbers 0..127 */
#define VARINT_ZZ(i)	(int8_t)(((i) >> 1) ^ -((i) & 1))
#define VARINT_ZZ4(i)	VARINT_ZZ(i), VARINT_ZZ(i + 1), VARINT_ZZ(i + 2), VARINT_ZZ(i + 3)
#define VARINT_ZZ16(i)	VARINT_ZZ4(i), VARINT_ZZ4(i + 4), VARINT_ZZ4(i + 8), VARINT_ZZ4(i + 12)
static const int8_t varint_zz1[128] = {
	VARINT_ZZ16(0), VARINT_ZZ16(16), VARINT_ZZ16(32), VARINT_ZZ16(48),
	VARINT_ZZ16(64), VARINT_ZZ16(80), VARINT_ZZ16(96), VARINT_ZZ16(112),
};
#undef VARINT_ZZ16
#undef VARINT_ZZ4
#undef VARINT_ZZ

/* zigzag_dec() of varint_get_unchecked(), one-byte numbers by table */
static inline int svarint_get_unchecked(const uint8_t **pp, int64_t *out)
{
	const uint8_t *p = *pp;
	uint64_t u;

	if (__builtin_expect(p[0] < 0x80, 1)) {
		*out = varint_zz1[p[0]];
		*pp = p + 1;
		return 0;
	}
	if (varint_get_unchecked(pp, &u))
		return -1;
	*out = zigzag_dec(u);
	return 0;
}

#endif /* PMIPROF_VARINT_H */
