/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The TLV header section of a trace (internal to lib/trace_*.c): encoding
 * for the writer, validating decode for the reader.  Layout in
 * docs/trace-format.md "Header section".
 */
#ifndef PMIPROF_TRACE_HEADER_H
#define PMIPROF_TRACE_HEADER_H

#include <stddef.h>
#include <stdint.h>

#include "pmiprof/trace.h"

/* Encode h into a malloc'ed buffer (*len bytes, a multiple of 4).  0 or -errno. */
int trace_header_encode(const struct trace_header *h, uint8_t **buf, size_t *len);

/*
 * Decode a header section of len bytes into h (zeroed first; version and
 * flags are left for the caller).  Returns 0, or -EBADMSG with *err_off set
 * to the offset inside the section and why[] describing the problem.
 */
int trace_header_decode(const uint8_t *p, size_t len, struct trace_header *h,
			size_t *err_off, char *why, size_t why_len);

#endif /* PMIPROF_TRACE_HEADER_H */
