/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The arithmetic of a sample ring, without the allocation, mmap, poll and
 * irq_work around it (ring.c): reserve at the head, write pieces that may
 * wrap at the end of the data area, publish, and the CONSUME boundary
 * check for fixed-size and variable-length (ABI 1.2) records.  It contains
 * no kernel calls, so the user-space tests run it with the daemon's
 * consumer (daemon/module/module_ring.c) on the other side.  Protocol: docs/abi.md.
 */
#ifndef PMIPROF_RING_CORE_H
#define PMIPROF_RING_CORE_H

#include "pmu.h"

struct ring_core {
	struct pmiprof_ring_header *hdr;
	u8 *data;
	u32 size;			/* data bytes, power of two */
	u32 rec_size;			/* fixed record bytes; 0: each pmiprof_sample_rec.size */
};

/*
 * Room for @max bytes at the head, else hdr->lost++ and -ENOSPC.  *@head is
 * where the record goes; *@tail the consumer position seen (acquire).
 */
int pmiprof_ring_core_reserve(struct ring_core *r, u32 max, u64 *head, u64 *tail);
/* Pointer to byte @pos of the stream and how many bytes are contiguous from it. */
u8 *pmiprof_ring_core_ptr(struct ring_core *r, u64 pos, u32 *contig);
/* Copy @len bytes to stream position @pos, wrapping at the end of the area. */
void pmiprof_ring_core_put(struct ring_core *r, u64 pos, const void *src, u32 len);
void pmiprof_ring_core_get(const struct ring_core *r, u64 pos, void *dst, u32 len);
/* Make the bytes below @new_head visible to the consumer (release). */
void pmiprof_ring_core_publish(struct ring_core *r, u64 new_head);
/*
 * CONSUME: clamp @tail to [tail, head]; it must be a record boundary (a
 * multiple of rec_size, or, variable-length, reached by walking the record
 * sizes from the old tail).  0 and the tail published (release), or
 * -EINVAL with the tail unchanged.
 */
int pmiprof_ring_core_consume(struct ring_core *r, u64 tail);
/*
 * Empty the ring for a new session (sampling stopped), @rec_size as for
 * struct ring_core.  Must not run while a CONSUME is between its head load
 * and its tail store: that CONSUME would publish an old tail above the new
 * head (a negative fill, every later record dropped).  ring.c serialises
 * both with one mutex; test_ring_reset checks every interleaving.
 */
void pmiprof_ring_core_reset(struct ring_core *r, u32 rec_size);

#endif /* PMIPROF_RING_CORE_H */
