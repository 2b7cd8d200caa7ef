// SPDX-License-Identifier: GPL-2.0
/*
 * Ring arithmetic shared by the module (ring.c) and the user-space tests
 * (ring_core.h).  Only the owning CPU produces, so head is a plain read;
 * tail pairs acquire (producer) with release (CONSUME).
 */
#include "ring_core.h"

int pmiprof_ring_core_reserve(struct ring_core *r, u32 max, u64 *head, u64 *tail)
{
	struct pmiprof_ring_header *hdr = r->hdr;

	*head = hdr->head;	/* only this CPU writes head */
	/* Pairs with the release in pmiprof_ring_core_consume(): bytes below tail are consumed. */
	*tail = smp_load_acquire(&hdr->tail);
	if (*head + max - *tail > r->size) {
		WRITE_ONCE(hdr->lost, hdr->lost + 1);
		return -ENOSPC;
	}
	return 0;
}

NOKPROBE_SYMBOL(pmiprof_ring_core_reserve);

u8 *pmiprof_ring_core_ptr(struct ring_core *r, u64 pos, u32 *contig)
{
	u32 off = pos & (r->size - 1);

	*contig = r->size - off;
	return r->data + off;
}

NOKPROBE_SYMBOL(pmiprof_ring_core_ptr);

void pmiprof_ring_core_put(struct ring_core *r, u64 pos, const void *src, u32 len)
{
	u32 off = pos & (r->size - 1);
	u32 first = min_t(u32, len, r->size - off);

	memcpy(r->data + off, src, first);
	if (first < len)
		memcpy(r->data, (const u8 *)src + first, len - first);
}

NOKPROBE_SYMBOL(pmiprof_ring_core_put);

void pmiprof_ring_core_get(const struct ring_core *r, u64 pos, void *dst, u32 len)
{
	u32 off = pos & (r->size - 1);
	u32 first = min_t(u32, len, r->size - off);

	memcpy(dst, r->data + off, first);
	if (first < len)
		memcpy((u8 *)dst + first, r->data, len - first);
}

void pmiprof_ring_core_publish(struct ring_core *r, u64 new_head)
{
	/* The record is visible before the new head (the consumer acquires head). */
	smp_store_release(&r->hdr->head, new_head);
}

NOKPROBE_SYMBOL(pmiprof_ring_core_publish);

/*
 * Variable-length: walk the sizes the producer wrote from the old tail.
 * The bytes are the module's own (the mapping is read-only), but a bad
 * size is refused rather than trusted, and the walk is bounded by head.
 */
static bool ring_core_var_boundary(const struct ring_core *r, u64 pos, u64 tail, u64 head)
{
	const u32 base = sizeof(struct pmiprof_sample_rec);

	while (pos < tail) {
		u32 sz;

		pmiprof_ring_core_get(r, pos + offsetof(struct pmiprof_sample_rec, size), &sz,
				      sizeof(sz));
		if (sz < base || sz % 8 || sz > head - pos)
			return false;
		pos += sz;
	}
	return pos == tail;
}

int pmiprof_ring_core_consume(struct ring_core *r, u64 tail)
{
	struct pmiprof_ring_header *hdr = r->hdr;
	u64 head, old;

	/* Pairs with the producer's release of head. */
	head = smp_load_acquire(&hdr->head);
	old = hdr->tail;
	/* The tail comes from user space: clamp, never trust it as an index. */
	tail = clamp_t(u64, tail, old, head);
	if (r->rec_size ? tail % r->rec_size : !ring_core_var_boundary(r, old, tail, head))
		return -EINVAL;
	/* The consumer finished reading below tail (it made this syscall): publish. */
	smp_store_release(&hdr->tail, tail);
	return 0;
}

void pmiprof_ring_core_reset(struct ring_core *r, u32 rec_size)
{
	struct pmiprof_ring_header *hdr = r->hdr;

	WRITE_ONCE(hdr->lost, 0);
	/* 0 tells a consumer that records carry their own size (1.2). */
	r->rec_size = rec_size;
	WRITE_ONCE(hdr->record_size, rec_size);
	/* Tail first; pairs with the producer's acquire of tail. */
	smp_store_release(&hdr->tail, 0);
	/* Pairs with the consumer's acquire of head: seeing head 0, it sees tail 0. */
	smp_store_release(&hdr->head, 0);
}
