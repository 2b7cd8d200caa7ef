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
	uint64_t v, b;
	unsigned int shift;

	/* unrolled for the 1..3-byte numbers that make up most records */
	b = *p++;
	v = b & 0x7f;
	if (b < 0x80)
		goto done;
	b = *p++;
	v |= (b & 0x7f) << 7;
	if (b < 0x80)
		goto done;
	b = *p++;
	v |= (b & 0x7f) << 14;
	if (b < 0x80)
		goto done;
	for (shift = 21; shift < 63; shift += 7) {
		b = *p++;
		v |= (b & 0x7f) << shift;
		if (b < 0x80)
			goto done;
	}
	b = *p++;		/* 10th byte: only bit 0 left */
	if (b > 1)
		return -1;
	v |= b << 63;
done:
	*out = v;
	*pp = p;
	return 0;
}

#endif /* PMIPROF_VARINT_H */
