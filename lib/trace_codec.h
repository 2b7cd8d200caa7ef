/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Record body encoding shared by the trace writer and reader (internal to
 * lib/trace_*.c).  Bodies are varints and zigzag deltas against per-chunk
 * state that both sides reset at every chunk start, so each chunk decodes
 * on its own.  The byte layout is specified in docs/trace-format.md.
 */
#ifndef PMIPROF_TRACE_CODEC_H
#define PMIPROF_TRACE_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pmiprof/trace.h"
#include "varint.h"

/* SAMPLE body, first byte: which fields repeat the previous sample's value. */
#define TRACE_SAMPLE_SAME_PID_TID	(1u << 0)
#define TRACE_SAMPLE_SAME_CPU		(1u << 1)
#define TRACE_SAMPLE_SAME_FLAGS		(1u << 2)
#define TRACE_SAMPLE_SAME_NR		(1u << 3)
#define TRACE_SAMPLE_SAME_ALL		0xfu
/* Bits 4-6: 0 = ip follows as a delta; k = ip equals recent ip k-1 (no bytes). */
#define TRACE_SAMPLE_IP_SLOT_SHIFT	4
#define TRACE_SAMPLE_IP_SLOT_MASK	(7u << 4)
#define TRACE_IP_CACHE			7	/* recent ips, most recent first */
/* 1.4 RECORDS2 chunks: the SAMPLE has no size; this bit says a stack ref ends it. */
#define TRACE_SAMPLE_STACK		(1u << 7)

/* Worst-case body sizes, for the writer's buffer slack. */
#define TRACE_SAMPLE_BODY_MAX	(1 + 5 * 5 + 10 * 2 + 10 * PMIPROF_MAX_EVENTS + 5)
#define TRACE_STACK_BODY_MAX	(3 * 5 + 10 * PMIPROF_MAX_STACK)
#define TRACE_USTACK_BODY_MAX	(1 + 5 + 10 + 10 * PMIPROF_MAX_UREGS + 5 + PMIPROF_MAX_USTACK)
#define TRACE_REGION_BODY_MAX	(10 * (7 + PMIPROF_MAX_EVENTS))
#define TRACE_RECORD_HEAD_MAX	(1 + 3)		/* type + varint size <= 2^21 */
/* Most bytes the SAMPLE decoder can read: every number at its 10-byte maximum. */
#define TRACE_SAMPLE_READ_MAX	(1 + 10 * (8 + PMIPROF_MAX_EVENTS))
_Static_assert(TRACE_USTACK_BODY_MAX <= PMIPROF_MAX_RECORD_SIZE, "a full USTACK is one record");
_Static_assert(TRACE_STACK_BODY_MAX <= PMIPROF_MAX_RECORD_SIZE, "a full STACK is one record");

/* USTACK flags (1.3) */
#define TRACE_USTACK_SAME_REGS		0x01	/* abi, regs_mask as the previous USTACK */
#define TRACE_USTACK_IP_SAMPLE		0x02	/* the ip register = the SAMPLE's ip, omitted */
#define TRACE_USTACK_WORDS		0x04	/* stack as a nonzero mask and word deltas */
#define TRACE_USTACK_FLAGS_KNOWN	0x07
#define TRACE_USTACK_WORDS_MAX		64	/* stack bytes stored as words, at most */
#define TRACE_UREG_IP			8	/* PERF_REG_X86_IP */

/* Per-chunk delta state.  All fields start at zero at every chunk. */
struct trace_codec {
	uint64_t time;			/* time of the previous record (any type) */
	int64_t sample_dt;		/* time step between the previous two samples */
	uint64_t ips[TRACE_IP_CACHE];	/* recent distinct sample ips, [0] = last */
	uint32_t pid, tid, cpu, flags, nr;
	uint64_t counts[PMIPROF_MAX_EVENTS];
	uint32_t nr_stacks;		/* STACK records so far: valid SAMPLE.stack <= this */
	/* of the previous USTACK: registers by position in the mask, words by index */
	uint32_t uabi;
	uint64_t umask;
	uint64_t uregs[PMIPROF_MAX_UREGS];
	uint64_t uwords[TRACE_USTACK_WORDS_MAX / 8];
};

static inline void trace_codec_reset(struct trace_codec *c)
{
	*c = (struct trace_codec){ 0 };
}

/*
 * Encoders: write the body of one record at p (the caller guarantees the
 * worst-case room) and return the end.  Sizes were validated by the writer.
 */
uint8_t *trace_enc_mmap(struct trace_codec *c, uint8_t *p, const struct trace_mmap *m,
			size_t path_len);
uint8_t *trace_enc_comm(struct trace_codec *c, uint8_t *p, const struct trace_comm *m,
			size_t comm_len);
uint8_t *trace_enc_task(struct trace_codec *c, uint8_t *p, const struct trace_task *t);
uint8_t *trace_enc_lost(struct trace_codec *c, uint8_t *p, const struct trace_lost *l);
uint8_t *trace_enc_mark(struct trace_codec *c, uint8_t *p, const struct trace_mark *m,
			size_t label_len);
uint8_t *trace_enc_callchain(struct trace_codec *c, uint8_t *p, const struct trace_callchain *cc);
uint8_t *trace_enc_finish(struct trace_codec *c, uint8_t *p, const struct trace_finish *f);
uint8_t *trace_enc_stack(struct trace_codec *c, uint8_t *p, const struct trace_stack *st);
uint8_t *trace_enc_ustack(struct trace_codec *c, uint8_t *p, const struct trace_ustack *u);
/* 1.4 code regions */
uint8_t *trace_enc_region_def(struct trace_codec *c, uint8_t *p, const struct trace_region_def *d,
			      size_t name_len);
uint8_t *trace_enc_region(struct trace_codec *c, uint8_t *p, const struct trace_region *r);
uint8_t *trace_enc_region_anomaly(struct trace_codec *c, uint8_t *p,
				  const struct trace_region_anomaly *a);

/* Scratch memory the decoder may point decoded strings/arrays into. */
struct trace_decode_scratch {
	char *str;			/* PMIPROF_MAX_STRING + 1 bytes */
	uint64_t *ips;			/* max(PMIPROF_MAX_CALLCHAIN, PMIPROF_MAX_STACK) entries */
	uint64_t *regs;			/* PMIPROF_MAX_UREGS entries */
	uint8_t *words;			/* TRACE_USTACK_WORDS_MAX bytes (USTACK words) */
	const uint8_t *limit;		/* readable memory ends here (>= record end) */
};

/*
 * Decode one body of a known record type into rec.  nr_events bounds
 * SAMPLE.nr.  Returns 0, or -1 with *why set to a static description.
 * Bytes after the known fields are ignored (later minor versions append).
 */
int trace_decode_body(struct trace_codec *c, uint32_t type, const uint8_t *p, const uint8_t *end,
		      uint32_t nr_events, const struct trace_decode_scratch *scratch,
		      struct trace_record *rec, const char **why);

/*
 * Move ips[k] (or a new ip when k == TRACE_IP_CACHE) to the front.  A jump
 * into straight-line moves: no loop, and no memmove call (which would make
 * the inlined reader fast path save registers).
 */
static inline void trace_ip_to_front(uint64_t *ips, unsigned int k, uint64_t ip)
{
	_Static_assert(TRACE_IP_CACHE == 7, "trace_ip_to_front moves up to 6 ips");
	switch (k) {
	case 7:
	case 6:
		ips[6] = ips[5];
		/* fall through */
	case 5:
		ips[5] = ips[4];
		/* fall through */
	case 4:
		ips[4] = ips[3];
		/* fall through */
	case 3:
		ips[3] = ips[2];
		/* fall through */
	case 2:
		ips[2] = ips[1];
		/* fall through */
	case 1:
		ips[1] = ips[0];
		/* fall through */
	default:
		break;
	}
	ips[0] = ip;
}

/*
 * counts[] = 0 in eight 16-byte stores: a plain memset of the 128 bytes
 * becomes "rep stos" (32 iterations) at -O2.
 */
static inline void trace_zero_counts(uint64_t *counts)
{
	typedef uint64_t v2u64 __attribute__((vector_size(16), aligned(8), may_alias));
	v2u64 *v = (v2u64 *)counts;

	_Static_assert(PMIPROF_MAX_EVENTS == 16, "trace_zero_counts stores 16 counts");
	v[0] = v[1] = v[2] = v[3] = v[4] = v[5] = v[6] = v[7] = (v2u64){ 0, 0 };
}

/*
 * The hot path: locals only.  When the worst-case body is readable from p
 * (fast), numbers are read without per-byte bounds checks and the record end
 * is checked once at the end; otherwise every number is bounds-checked.
 */
/*
 * packed (1.4 RECORDS2 chunks): end is the chunk's end, the body has no
 * size and ends where its fields do (returned in *endp), a stack ref
 * follows when the mask says so, and counts are predicted per event
 * (PMIPROF_PREDICT_*) by pred, NULL when all are PREV; not packed: a framed
 * SAMPLE body [p, end), counts against the previous ones.
 */
static inline __attribute__((always_inline)) const char *
trace_decode_sample_impl(struct trace_codec *c, const uint8_t *p, const uint8_t *end,
			 uint32_t nr_events, struct trace_sample *s, const bool fast,
			 const bool packed, const uint8_t *pred, const uint8_t **endp)
{
	unsigned int mask, slot;
	uint64_t v, ip, base;
	int64_t d;
	uint32_t i, nr;

#define GET(x) do {								\
		if (fast ? varint_get_unchecked(&p, &(x)) : varint_get(&p, end, &(x)))	\
			goto short_body;					\
	} while (0)
#define GET32(x) do { GET(v); if (v > UINT32_MAX) goto range; (x) = (uint32_t)v; } while (0)
#define GETS(x) do {								\
		if (fast) {							\
			if (svarint_get_unchecked(&p, &(x)))			\
				goto short_body;				\
		} else {							\
			GET(v);							\
			(x) = zigzag_dec(v);					\
		}								\
	} while (0)
	/* fast: the mask byte is readable even in an empty body; "p > end" below catches it */
	if (!fast && p >= end)
		goto short_body;
	mask = *p++;
	if (__builtin_expect((mask & TRACE_SAMPLE_SAME_ALL) != TRACE_SAMPLE_SAME_ALL, 0)) {
		if (!(mask & TRACE_SAMPLE_SAME_FLAGS))
			GET32(c->flags);
		if (!(mask & TRACE_SAMPLE_SAME_PID_TID)) {
			GET32(c->pid);
			GET32(c->tid);
		}
		if (!(mask & TRACE_SAMPLE_SAME_CPU))
			GET32(c->cpu);
		if (!(mask & TRACE_SAMPLE_SAME_NR)) {
			GET(v);
			if (v > nr_events)
				return "sample has more counts than the header has events";
			c->nr = (uint32_t)v;
		}
	}
	GETS(d);
	c->sample_dt = (int64_t)((uint64_t)c->sample_dt + (uint64_t)d);
	c->time += (uint64_t)c->sample_dt;
	slot = (mask & TRACE_SAMPLE_IP_SLOT_MASK) >> TRACE_SAMPLE_IP_SLOT_SHIFT;
	if (slot) {
		ip = c->ips[slot - 1];
		trace_ip_to_front(c->ips, slot - 1, ip);
	} else {
		GETS(d);
		ip = c->ips[0] + (uint64_t)d;
		trace_ip_to_front(c->ips, TRACE_IP_CACHE, ip);
	}
	s->ip = ip;
	nr = c->nr;
	s->nr = nr;			/* early: one register less in the loop */
	trace_zero_counts(s->counts);	/* the contract: counts[i] = 0 for i >= nr */
	if (!pred) {
		for (i = 0; i < nr; i++) {
			GETS(d);
			s->counts[i] = c->counts[i] += (uint64_t)d;
		}
	} else {
		for (i = 0; i < nr; i++) {
			GETS(d);
			/* the header's predictors name only earlier events: decoded already */
			base = pred[i] == PMIPROF_PREDICT_PREV ? c->counts[i] :
			       pred[i] == PMIPROF_PREDICT_TIME ? (uint64_t)c->sample_dt :
			       s->counts[pred[i] - PMIPROF_PREDICT_EVENT];
			s->counts[i] = c->counts[i] = base + (uint64_t)d;
		}
	}
	/* 1.3: an optional trailing stack ref; absent (1.2 and stackless samples) = 0 */
	if (packed ? (mask & TRACE_SAMPLE_STACK) : p < end) {
		GET32(s->stack);
		if (s->stack > c->nr_stacks)
			return "sample refers to a stack not defined before it in the chunk";
	} else {
		s->stack = 0;
	}
	if (fast && p > end)
		goto short_body;
	if (packed)
		*endp = p;
	s->time = c->time;
	s->cpu = c->cpu;
	s->pid = c->pid;
	s->tid = c->tid;
	s->flags = c->flags;
	return NULL;
short_body:
	return "record body ends inside a number";
range:
	return "32-bit field out of range";
#undef GET
#undef GET32
#undef GETS
}

/*
 * Decode the SAMPLE body [p, end) into s; limit is where readable memory
 * ends (>= end).  Returns NULL, or a static description of the problem.
 * Inline: it is the reader's hot path.
 */
static inline const char *trace_decode_sample(struct trace_codec *c, const uint8_t *p,
					      const uint8_t *end, const uint8_t *limit,
					      uint32_t nr_events, struct trace_sample *s)
{
	if (limit - p >= TRACE_SAMPLE_READ_MAX)
		return trace_decode_sample_impl(c, p, end, nr_events, s, true, false, NULL, NULL);
	return trace_decode_sample_impl(c, p, end, nr_events, s, false, false, NULL, NULL);
}

/*
 * A packed SAMPLE body (1.4 RECORDS2 chunk) at p, in a payload ending at
 * end; *endp: where the record ends.  pred: a predictor per event, or NULL
 * when every event's is PREV.
 */
static inline const char *trace_decode_sample2(struct trace_codec *c, const uint8_t *p,
					       const uint8_t *end, const uint8_t *limit,
					       uint32_t nr_events, const uint8_t *pred,
					       struct trace_sample *s, const uint8_t **endp)
{
	if (limit - p >= TRACE_SAMPLE_READ_MAX)
		return trace_decode_sample_impl(c, p, end, nr_events, s, true, true, pred, endp);
	return trace_decode_sample_impl(c, p, end, nr_events, s, false, true, pred, endp);
}

/* Same, for a caller that has checked that TRACE_SAMPLE_READ_MAX bytes are readable at p. */
static inline const char *trace_decode_sample2_fast(struct trace_codec *c, const uint8_t *p,
						    const uint8_t *end, uint32_t nr_events,
						    const uint8_t *pred, struct trace_sample *s,
						    const uint8_t **endp)
{
	return trace_decode_sample_impl(c, p, end, nr_events, s, true, true, pred, endp);
}

/* Same, for a caller that has checked that TRACE_SAMPLE_READ_MAX bytes are readable at p. */
static inline const char *trace_decode_sample_fast(struct trace_codec *c, const uint8_t *p,
						   const uint8_t *end, uint32_t nr_events,
						   struct trace_sample *s)
{
	return trace_decode_sample_impl(c, p, end, nr_events, s, true, false, NULL, NULL);
}

/*
 * Encode a packed SAMPLE body (1.4 RECORDS2 chunk) at p, counts predicted
 * by pred (valid for s->nr events; NULL: all PREV); returns the end.  The writer's hot
 * path: inline, the common case (same thread, cpu, flags, nr) tested once.
 */
static inline __attribute__((always_inline)) uint8_t *
trace_enc_sample2(struct trace_codec *c, uint8_t *p, const struct trace_sample *s, uint32_t stack,
		  const uint8_t *pred)
{
	uint8_t *same = p++;
	unsigned int mask, k;
	uint64_t dt, ip = s->ip, base;
	uint32_t i, nr = s->nr;

	if (__builtin_expect(s->flags == c->flags && s->pid == c->pid && s->tid == c->tid &&
			     s->cpu == c->cpu && nr == c->nr, 1)) {
		mask = TRACE_SAMPLE_SAME_ALL;
	} else {
		mask = 0;
		if (s->flags == c->flags)
			mask |= TRACE_SAMPLE_SAME_FLAGS;
		else
			p = varint_put(p, c->flags = s->flags);
		if (s->pid == c->pid && s->tid == c->tid) {
			mask |= TRACE_SAMPLE_SAME_PID_TID;
		} else {
			p = varint_put(p, c->pid = s->pid);
			p = varint_put(p, c->tid = s->tid);
		}
		if (s->cpu == c->cpu)
			mask |= TRACE_SAMPLE_SAME_CPU;
		else
			p = varint_put(p, c->cpu = s->cpu);
		if (nr == c->nr)
			mask |= TRACE_SAMPLE_SAME_NR;
		else
			p = varint_put(p, c->nr = nr);
	}
	dt = s->time - c->time;
	p = varint_put(p, zigzag_enc((int64_t)(dt - (uint64_t)c->sample_dt)));
	c->sample_dt = (int64_t)dt;
	c->time = s->time;
	for (k = 0; k < TRACE_IP_CACHE; k++)
		if (c->ips[k] == ip)
			break;
	if (k < TRACE_IP_CACHE)
		mask |= (k + 1) << TRACE_SAMPLE_IP_SLOT_SHIFT;
	else
		p = varint_put(p, zigzag_enc((int64_t)(ip - c->ips[0])));
	trace_ip_to_front(c->ips, k, ip);
	if (!pred) {
		for (i = 0; i < nr; i++) {
			p = varint_put(p, zigzag_enc((int64_t)(s->counts[i] - c->counts[i])));
			c->counts[i] = s->counts[i];
		}
	} else {
		for (i = 0; i < nr; i++) {
			base = pred[i] == PMIPROF_PREDICT_PREV ? c->counts[i] :
			       pred[i] == PMIPROF_PREDICT_TIME ? dt :
			       s->counts[pred[i] - PMIPROF_PREDICT_EVENT];
			p = varint_put(p, zigzag_enc((int64_t)(s->counts[i] - base)));
			c->counts[i] = s->counts[i];
		}
	}
	if (stack) {
		mask |= TRACE_SAMPLE_STACK;
		p = varint_put(p, stack);
	}
	*same = (uint8_t)mask;
	return p;
}

#endif /* PMIPROF_TRACE_CODEC_H */
