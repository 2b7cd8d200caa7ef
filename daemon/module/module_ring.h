/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Consumer side of one pmiprof.ko per-CPU ring (the protocol is in
 * include/pmiprof/abi.h): load-acquire the head, copy fixed-size records
 * out of [tail, head) (a record may wrap at the end of the data area), and
 * turn them into trace SAMPLE records.  Pure memory operations, so unit
 * tests drive it with a ring built in memory.
 */
#ifndef PMIPROF_DAEMON_MODULE_RING_H
#define PMIPROF_DAEMON_MODULE_RING_H

#include <stdint.h>

#include "pmiprof/abi.h"
#include "pmiprof/trace.h"

struct module_ring {
	const struct pmiprof_ring_header *hdr;	/* mapped read-only */
	const unsigned char *data;		/* hdr + PMIPROF_RING_HEADER_BYTES */
	uint32_t data_bytes;			/* power of two */
	uint32_t record_size;			/* producer's record size */
	uint32_t cpu;
	uint64_t tail;				/* our consumer position (bytes) */
	uint64_t lost_seen;			/* hdr->lost already reported */
	uint64_t skipped;			/* skipped on protocol errors, unreported */
};

/* map = start of the CPU's mapping (header page + data). */
void module_ring_init(struct module_ring *r, const void *map, uint32_t data_bytes, uint32_t cpu);
/* Take the producer's current tail/lost as the starting point (after START). */
void module_ring_sync(struct module_ring *r);
/* Load-acquire of the producer head. */
uint64_t module_ring_head(const struct module_ring *r);
/*
 * Copy the record at r->tail into rec and advance r->tail, if r->tail < head.
 * Returns 1 (rec filled), 0 (nothing before head).  A head that is behind
 * the tail or more than a ring ahead is a protocol violation: the tail is
 * moved to head, the records in between are counted in r->skipped and
 * -EPROTO is returned.
 */
int module_ring_next(struct module_ring *r, uint64_t head, struct pmiprof_sample_rec *rec);
/*
 * ABI 1.2, a session with call stacks: records are variable-length
 * (hdr->record_size 0, each pmiprof_sample_rec.size bytes).  Copies the
 * record at r->tail (up to @cap bytes) into @buf and sets *@len.  Returns 1,
 * 0 (nothing before head) or -EPROTO (head/tail or a record size that
 * cannot be right: the tail moves to head, one record counted in skipped).
 */
int module_ring_next_var(struct module_ring *r, uint64_t head, void *buf, uint32_t cap,
			 uint32_t *len);

/* The largest record a 1.2 session can write: base, stack header, frames, registers, dump. */
#define MODULE_REC_MAX	(sizeof(struct pmiprof_sample_rec) + sizeof(struct pmiprof_stack_rec) + \
			 8u * PMIPROF_STACK_MAX_FRAMES + 8u * 24 + PMIPROF_STACK_MAX_DUMP + 8)

/* The stack part of a 1.2 record, pointing into the record's buffer. */
struct module_stack {
	uint32_t nr, nr_kernel, nr_regs, flags, dump_size, reads;
	uint64_t regs_mask;
	const uint64_t *ips;		/* nr: kernel frames first */
	const uint64_t *regs;		/* nr_regs, perf order */
	const uint8_t *dump;		/* dump_size bytes from the user SP up */
};

/*
 * Split a 1.2 record (@buf, 8-byte aligned, @len bytes) into its sample
 * and its stack part.  Returns 1 with *st filled, 0 when the record has no
 * stack part, -EPROTO when the stack part does not fit the record.
 */
int module_rec_split(const void *buf, uint32_t len, struct pmiprof_sample_rec *rec,
		     struct module_stack *st);

/* Records the producer dropped since the last call (ring full). */
uint64_t module_ring_take_lost(struct module_ring *r);

/* PMIPROF_REC_F_* -> PMIPROF_SAMPLE_F_* */
uint32_t module_rec_flags_to_trace(uint32_t rec_flags);
/*
 * Fill a trace sample from a module record.  first_counter is where the
 * record's counts go in s->counts (1 in timer mode, whose event 0 is the
 * window length in ns that the caller fills), nr the header's event count.
 */
void module_rec_to_sample(const struct pmiprof_sample_rec *rec, unsigned int first_counter,
			  unsigned int nr, struct trace_sample *s);

#endif /* PMIPROF_DAEMON_MODULE_RING_H */
