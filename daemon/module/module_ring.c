// SPDX-License-Identifier: GPL-2.0
/* Consumer side of a pmiprof.ko per-CPU ring (see module_ring.h). */
#include "module/module_ring.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

void module_ring_init(struct module_ring *r, const void *map, uint32_t data_bytes, uint32_t cpu)
{
	memset(r, 0, sizeof(*r));
	r->hdr = map;
	r->data = (const unsigned char *)map + PMIPROF_RING_HEADER_BYTES;
	r->data_bytes = data_bytes;
	r->cpu = cpu;
	r->record_size = r->hdr->record_size;
	module_ring_sync(r);
}

void module_ring_sync(struct module_ring *r)
{
	r->tail = __atomic_load_n(&r->hdr->tail, __ATOMIC_ACQUIRE);
	r->lost_seen = __atomic_load_n(&r->hdr->lost, __ATOMIC_RELAXED);
	r->record_size = r->hdr->record_size;
}

uint64_t module_ring_head(const struct module_ring *r)
{
	/* Pairs with the producer's smp_store_release() of head. */
	return __atomic_load_n(&r->hdr->head, __ATOMIC_ACQUIRE);
}

static void ring_copy_out(const struct module_ring *r, uint64_t pos, void *dst, uint32_t len)
{
	uint32_t off = (uint32_t)(pos & (r->data_bytes - 1));
	uint32_t first = r->data_bytes - off < len ? r->data_bytes - off : len;

	memcpy(dst, r->data + off, first);
	if (first < len)
		memcpy((unsigned char *)dst + first, r->data, len - first);
}

int module_ring_next(struct module_ring *r, uint64_t head, struct pmiprof_sample_rec *rec)
{
	uint32_t rs = r->record_size;

	if (head == r->tail)
		return 0;
	if (head < r->tail || head - r->tail > r->data_bytes || rs == 0 ||
	    rs > r->data_bytes || head - r->tail < rs) {
		if (rs && head > r->tail)
			r->skipped += (head - r->tail) / rs;
		r->tail = head;
		return -EPROTO;
	}
	/* A newer module may append fields: copy what we know, zero the rest. */
	memset(rec, 0, sizeof(*rec));
	ring_copy_out(r, r->tail, rec, rs < sizeof(*rec) ? rs : (uint32_t)sizeof(*rec));
	r->tail += rs;
	return 1;
}

int module_ring_next_var(struct module_ring *r, uint64_t head, void *buf, uint32_t cap,
			 uint32_t *len)
{
	const uint32_t base = sizeof(struct pmiprof_sample_rec);
	uint32_t size;

	if (head == r->tail)
		return 0;
	if (head < r->tail || head - r->tail > r->data_bytes || head - r->tail < base)
		goto bad;
	ring_copy_out(r, r->tail + offsetof(struct pmiprof_sample_rec, size), &size, sizeof(size));
	if (size < base || size % 8 || size > head - r->tail || size > cap)
		goto bad;
	ring_copy_out(r, r->tail, buf, size);
	r->tail += size;
	*len = size;
	return 1;
bad:
	/* Sizes cannot be trusted past this point: resynchronise at head. */
	if (head > r->tail)
		r->skipped++;
	r->tail = head;
	return -EPROTO;
}

int module_rec_split(const void *buf, uint32_t len, struct pmiprof_sample_rec *rec,
		     struct module_stack *st)
{
	const unsigned char *p = buf;
	struct pmiprof_stack_rec h;
	uint64_t need;

	memset(st, 0, sizeof(*st));
	if (len < sizeof(*rec))
		return -EPROTO;
	memcpy(rec, p, sizeof(*rec));
	if (!(rec->flags & PMIPROF_REC_F_STACK))
		return 0;
	if (len < sizeof(*rec) + sizeof(h))
		return -EPROTO;
	memcpy(&h, p + sizeof(*rec), sizeof(h));
	need = sizeof(*rec) + sizeof(h) + 8ull * h.nr + 8ull * h.nr_regs + h.dump_size;
	if (need > len || h.nr_kernel > h.nr ||
	    h.nr_regs != (uint32_t)__builtin_popcountll(h.regs_mask))
		return -EPROTO;
	st->nr = h.nr;
	st->nr_kernel = h.nr_kernel;
	st->nr_regs = h.nr_regs;
	st->flags = h.flags;
	st->dump_size = h.dump_size;
	st->reads = h.reads;
	st->regs_mask = h.regs_mask;
	st->ips = (const uint64_t *)(const void *)(p + sizeof(*rec) + sizeof(h));
	st->regs = st->ips + h.nr;
	st->dump = (const uint8_t *)(st->regs + h.nr_regs);
	return 1;
}

uint64_t module_ring_take_lost(struct module_ring *r)
{
	uint64_t lost = __atomic_load_n(&r->hdr->lost, __ATOMIC_RELAXED);
	uint64_t d = lost >= r->lost_seen ? lost - r->lost_seen : 0;

	r->lost_seen = lost;
	return d;
}

uint32_t module_rec_flags_to_trace(uint32_t f)
{
	uint32_t t = 0;

	if (f & PMIPROF_REC_F_USER)
		t |= PMIPROF_SAMPLE_F_USER;
	if (f & PMIPROF_REC_F_KERNEL)
		t |= PMIPROF_SAMPLE_F_KERNEL;
	if (f & PMIPROF_REC_F_IP_HIDDEN)
		t |= PMIPROF_SAMPLE_F_IP_HIDDEN;
	if (f & PMIPROF_REC_F_EMULATED)
		t |= PMIPROF_SAMPLE_F_EMULATED;
	if (f & PMIPROF_REC_F_TIMER)
		t |= PMIPROF_SAMPLE_F_TIME_BASED;
	if (f & PMIPROF_REC_F_FIRST)
		t |= PMIPROF_SAMPLE_F_FIRST;
	if (f & PMIPROF_REC_F_THROTTLED)
		t |= PMIPROF_SAMPLE_F_THROTTLED;
	if (f & PMIPROF_REC_F_GUEST)
		t |= PMIPROF_SAMPLE_F_GUEST;
	if (f & PMIPROF_REC_F_PARTIAL)
		t |= PMIPROF_SAMPLE_F_PARTIAL;
	return t;
}

void module_rec_to_sample(const struct pmiprof_sample_rec *rec, unsigned int first_counter,
			  unsigned int nr, struct trace_sample *s)
{
	unsigned int i, n = rec->nr;

	memset(s, 0, sizeof(*s));
	s->time = rec->time_ns;
	s->ip = rec->ip;
	s->cpu = rec->cpu;
	s->pid = rec->pid;
	s->tid = rec->tid;
	s->flags = module_rec_flags_to_trace(rec->flags);
	if (nr > PMIPROF_MAX_EVENTS)
		nr = PMIPROF_MAX_EVENTS;
	s->nr = nr;
	if (n > PMIPROF_ABI_MAX_EVENTS)
		n = PMIPROF_ABI_MAX_EVENTS;
	for (i = 0; i < n && first_counter + i < nr; i++)
		s->counts[first_counter + i] = rec->counts[i];
}
