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

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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
#define TRACE_SAMPLE_READ_MAX	(2 + 10 * (8 + PMIPROF_MAX_EVENTS))	/* RECORDS3: + MORE byte */
_Static_assert(TRACE_USTACK_BODY_MAX <= PMIPROF_MAX_RECORD_SIZE, "a full USTACK is one record");
_Static_assert(TRACE_STACK_BODY_MAX <= PMIPROF_MAX_RECORD_SIZE, "a full STACK is one record");

/* USTACK flags (1.3) */
#define TRACE_USTACK_SAME_REGS		0x01	/* abi, regs_mask as the previous USTACK */
#define TRACE_USTACK_IP_SAMPLE		0x02	/* the ip register = the SAMPLE's ip, omitted */
#define TRACE_USTACK_WORDS		0x04	/* stack as a nonzero mask and word deltas */
#define TRACE_USTACK_FLAGS_KNOWN	0x07
#define TRACE_USTACK_WORDS_MAX		64	/* stack bytes stored as words, at most */
#define TRACE_UREG_IP			8	/* PERF_REG_X86_IP */

/*
 * 1.4 RECORDS3 chunks: a SAMPLE's mask names one of TRACE_NR_CTX thread
 * contexts (bits 0-1), each with its own pid/tid/cpu/flags/nr, time step
 * and counts, so that interleaved threads are each predicted from their own
 * previous sample.  Bit 2 is SAME_FLAGS as before; bit 3 says a byte of
 * TRACE_MORE_* bits follows (rare changes); bits 4-7 as in RECORDS2, except
 * that an ip not in the cache (slot 0) is a varint u: even, u / 2 is the
 * zigzag delta; odd, u / 2 < TRACE_IP_TABLE names an entry of the ip table,
 * u / 2 == TRACE_IP_TABLE: the ip follows whole (a delta too wide for 63 bits).
 */
#define TRACE_NR_CTX			4
#define TRACE_SAMPLE3_CTX_MASK		3u
#define TRACE_SAMPLE3_MORE		(1u << 3)
#define TRACE_MORE_THREAD		(1u << 0)	/* varint pid, tid: the context's new thread */
#define TRACE_MORE_CPU			(1u << 1)	/* varint cpu */
#define TRACE_MORE_NR			(1u << 2)	/* varint nr */
#define TRACE_MORE_KNOWN		7u
#define TRACE_IP_TABLE_BITS		6
#define TRACE_IP_TABLE			(1u << TRACE_IP_TABLE_BITS)

/* Where an explicitly stored ip goes in the ip table (RECORDS3). */
static inline uint32_t trace_ip_hash(uint64_t ip)
{
	return (uint32_t)((ip * 0x9e3779b97f4a7c15ull) >> (64 - TRACE_IP_TABLE_BITS));
}

/* The state of one thread's samples (RECORDS, RECORDS2: only ctx[0]). */
struct trace_ctx {
	uint64_t time;			/* RECORDS3: time of the context's previous sample */
	int64_t sample_dt;		/* time step between its previous two samples */
	uint32_t pid, tid, cpu, flags, nr;
	uint32_t used;			/* writer only: when last switched to (LRU) */
	uint64_t counts[PMIPROF_MAX_EVENTS];
};

/* Per-chunk delta state.  All fields start at zero at every chunk. */
struct trace_codec {
	uint64_t time;			/* time of the previous record (any type) */
	/* recent distinct sample ips, [0] = last; one spare (the writer's 16-byte moves) */
	uint64_t ips[TRACE_IP_CACHE + 1];
	struct trace_ctx ctx[TRACE_NR_CTX];
	uint32_t cur;			/* writer only: context of the previous sample */
	uint32_t stamp;			/* writer only: context switches so far */
	/*
	 * RECORDS4 writer only: cpu, pid, tid, flags of the previous sample and
	 * its nr + 1 (0: none), which ctx[cur] holds: a sample equal in all of
	 * them is the common case, told by two compares.
	 */
	uint64_t key[2];
	uint32_t key_nr;
	uint64_t iptab[TRACE_IP_TABLE];	/* RECORDS3: explicit ips by trace_ip_hash() */
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
 * The ip cache search (writers) and move to the front (writers and
 * readers) without a branch on the slot: which recent ip a sample repeats
 * is as good as random, and the search loop's exit and the move's jump
 * mispredicted on most samples (a single hot ip wrote 24 % faster; read
 * +19 %, write +12 % with these).  SSE2 (every x86-64):
 * 64-bit equality from 32-bit compares, the move as a blend of each pair
 * of ips with the pair one slot down.  trace_ip_find returns the first
 * slot holding ip (as the loop did; the zeros of a new chunk repeat), or
 * TRACE_IP_CACHE when it is not cached.
 */
#if defined(__SSE2__)
_Static_assert(TRACE_IP_CACHE == 7, "the ip cache is four 16-byte pairs, the last one spare");

static inline unsigned int trace_ip_find(const uint64_t *ips, uint64_t ip)
{
	__m128i v = _mm_set1_epi64x((long long)ip), e;
	unsigned int m = 1u << TRACE_IP_CACHE, j;

#pragma GCC unroll 4
	for (j = 0; j < 4; j++) {
		e = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(ips + 2 * j)), v);
		e = _mm_and_si128(e, _mm_shuffle_epi32(e, _MM_SHUFFLE(2, 3, 0, 1)));
		m |= (unsigned int)_mm_movemask_pd(_mm_castsi128_pd(e)) << (2 * j);
	}
	return (unsigned int)__builtin_ctz(m & ((2u << TRACE_IP_CACHE) - 1));
}

static inline void trace_ip_move_front(uint64_t *ips, unsigned int k, uint64_t ip)
{
	__m128d o[4], sh;
	__m128i kk = _mm_set1_epi32((int)k), keep;
	unsigned int j;

#pragma GCC unroll 4
	for (j = 0; j < 4; j++)
		o[j] = _mm_loadu_pd((const double *)(ips + 2 * j));
#pragma GCC unroll 4
	for (j = 0; j < 4; j++) {
		/* pair j one slot down: (ips[2j - 1], ips[2j]) */
		sh = _mm_shuffle_pd(j ? o[j - 1] : o[0], o[j], 1);
		/* slots 2j, 2j + 1 keep their ip when beyond k */
		keep = _mm_cmpgt_epi32(_mm_set_epi32((int)(2 * j + 1), (int)(2 * j + 1),
						     (int)(2 * j), (int)(2 * j)), kk);
		_mm_storeu_pd((double *)(ips + 2 * j),
			      _mm_or_pd(_mm_and_pd(_mm_castsi128_pd(keep), o[j]),
					_mm_andnot_pd(_mm_castsi128_pd(keep), sh)));
	}
	ips[0] = ip;
}
#else
static inline unsigned int trace_ip_find(const uint64_t *ips, uint64_t ip)
{
	unsigned int k;

	for (k = 0; k < TRACE_IP_CACHE; k++)
		if (ips[k] == ip)
			break;
	return k;
}

static inline void trace_ip_move_front(uint64_t *ips, unsigned int k, uint64_t ip)
{
	trace_ip_to_front(ips, k, ip);
}
#endif

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
			 const bool packed, const bool ctxs, const uint8_t *pred,
			 const uint8_t **endp)
{
	unsigned int mask, slot, more;
	struct trace_ctx *x;
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
	if (ctxs) {
		x = &c->ctx[mask & TRACE_SAMPLE3_CTX_MASK];
		if (__builtin_expect(mask & TRACE_SAMPLE3_MORE, 0)) {
			if (!fast && p >= end)
				goto short_body;
			more = *p++;
			if (more & ~TRACE_MORE_KNOWN)
				return "sample has fields this reader does not know";
		} else {
			more = 0;
		}
		if (!(mask & TRACE_SAMPLE_SAME_FLAGS))
			GET32(x->flags);
		if (__builtin_expect(more, 0)) {
			if (more & TRACE_MORE_THREAD) {
				GET32(x->pid);
				GET32(x->tid);
				x->time = c->time;	/* a new thread starts from the last record */
			}
			if (more & TRACE_MORE_CPU)
				GET32(x->cpu);
			if (more & TRACE_MORE_NR) {
				GET(v);
				if (v > nr_events)
					return "sample has more counts than the header has events";
				x->nr = (uint32_t)v;
			}
		}
	} else {
		x = &c->ctx[0];
		if (__builtin_expect((mask & TRACE_SAMPLE_SAME_ALL) != TRACE_SAMPLE_SAME_ALL, 0)) {
			if (!(mask & TRACE_SAMPLE_SAME_FLAGS))
				GET32(x->flags);
			if (!(mask & TRACE_SAMPLE_SAME_PID_TID)) {
				GET32(x->pid);
				GET32(x->tid);
			}
			if (!(mask & TRACE_SAMPLE_SAME_CPU))
				GET32(x->cpu);
			if (!(mask & TRACE_SAMPLE_SAME_NR)) {
				GET(v);
				if (v > nr_events)
					return "sample has more counts than the header has events";
				x->nr = (uint32_t)v;
			}
		}
		x->time = c->time;	/* 1.0-1.3, RECORDS2: against the previous record's time */
	}
	GETS(d);
	x->sample_dt = (int64_t)((uint64_t)x->sample_dt + (uint64_t)d);
	c->time = x->time += (uint64_t)x->sample_dt;
	slot = (mask & TRACE_SAMPLE_IP_SLOT_MASK) >> TRACE_SAMPLE_IP_SLOT_SHIFT;
	if (slot) {
		ip = c->ips[slot - 1];
		trace_ip_move_front(c->ips, slot - 1, ip);
	} else if (!ctxs) {
		GETS(d);
		ip = c->ips[0] + (uint64_t)d;
		trace_ip_move_front(c->ips, TRACE_IP_CACHE, ip);
	} else {
		GET(v);
		if (!(v & 1)) {
			ip = c->ips[0] + (uint64_t)zigzag_dec(v >> 1);
			c->iptab[trace_ip_hash(ip)] = ip;
		} else if (v >> 1 < TRACE_IP_TABLE) {
			ip = c->iptab[v >> 1];
		} else if (v >> 1 == TRACE_IP_TABLE) {
			GET(ip);
			c->iptab[trace_ip_hash(ip)] = ip;
		} else {
			return "sample names an ip table entry beyond the table";
		}
		trace_ip_move_front(c->ips, TRACE_IP_CACHE, ip);
	}
	s->ip = ip;
	nr = x->nr;
	s->nr = nr;			/* early: one register less in the loop */
	trace_zero_counts(s->counts);	/* the contract: counts[i] = 0 for i >= nr */
	if (!pred) {
		for (i = 0; i < nr; i++) {
			GETS(d);
			s->counts[i] = x->counts[i] += (uint64_t)d;
		}
	} else {
		for (i = 0; i < nr; i++) {
			GETS(d);
			/* the header's predictors name only earlier events: decoded already */
			base = pred[i] == PMIPROF_PREDICT_PREV ? x->counts[i] :
			       pred[i] == PMIPROF_PREDICT_TIME ? (uint64_t)x->sample_dt :
			       s->counts[pred[i] - PMIPROF_PREDICT_EVENT];
			s->counts[i] = x->counts[i] = base + (uint64_t)d;
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
	s->time = x->time;
	s->cpu = x->cpu;
	s->pid = x->pid;
	s->tid = x->tid;
	s->flags = x->flags;
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
		return trace_decode_sample_impl(c, p, end, nr_events, s, true, false, false, NULL, NULL);
	return trace_decode_sample_impl(c, p, end, nr_events, s, false, false, false, NULL, NULL);
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
		return trace_decode_sample_impl(c, p, end, nr_events, s, true, true, false, pred, endp);
	return trace_decode_sample_impl(c, p, end, nr_events, s, false, true, false, pred, endp);
}

/* Same, for a caller that has checked that TRACE_SAMPLE_READ_MAX bytes are readable at p. */
static inline const char *trace_decode_sample2_fast(struct trace_codec *c, const uint8_t *p,
						    const uint8_t *end, uint32_t nr_events,
						    const uint8_t *pred, struct trace_sample *s,
						    const uint8_t **endp)
{
	return trace_decode_sample_impl(c, p, end, nr_events, s, true, true, false, pred, endp);
}

/* Same, for a caller that has checked that TRACE_SAMPLE_READ_MAX bytes are readable at p. */
static inline const char *trace_decode_sample_fast(struct trace_codec *c, const uint8_t *p,
						   const uint8_t *end, uint32_t nr_events,
						   struct trace_sample *s)
{
	return trace_decode_sample_impl(c, p, end, nr_events, s, true, false, false, NULL, NULL);
}

/* The same for a RECORDS3 chunk (thread contexts, ip table). */
static inline const char *trace_decode_sample3(struct trace_codec *c, const uint8_t *p,
					       const uint8_t *end, const uint8_t *limit,
					       uint32_t nr_events, const uint8_t *pred,
					       struct trace_sample *s, const uint8_t **endp)
{
	if (limit - p >= TRACE_SAMPLE_READ_MAX)
		return trace_decode_sample_impl(c, p, end, nr_events, s, true, true, true, pred,
						endp);
	return trace_decode_sample_impl(c, p, end, nr_events, s, false, true, true, pred, endp);
}

static inline const char *trace_decode_sample3_fast(struct trace_codec *c, const uint8_t *p,
						    const uint8_t *end, uint32_t nr_events,
						    const uint8_t *pred, struct trace_sample *s,
						    const uint8_t **endp)
{
	return trace_decode_sample_impl(c, p, end, nr_events, s, true, true, true, pred, endp);
}

/*
 * The context of s's thread in a RECORDS3 chunk: the previous sample's, one
 * that had the thread, or the least recently switched-to one (*more gets
 * TRACE_MORE_THREAD: the thread is restated).  Writer only: the reader
 * follows the mask.
 */
static inline unsigned int trace_ctx_pick(struct trace_codec *c, const struct trace_sample *s,
					  unsigned int *more)
{
	unsigned int k, old = 0;

	if (__builtin_expect(c->ctx[c->cur].tid == s->tid && c->ctx[c->cur].pid == s->pid, 1))
		return c->cur;
	for (k = 0; k < TRACE_NR_CTX; k++) {
		if (c->ctx[k].tid == s->tid && c->ctx[k].pid == s->pid)
			goto found;
		if (c->ctx[k].used < c->ctx[old].used)
			old = k;
	}
	k = old;
	*more |= TRACE_MORE_THREAD;
found:
	c->ctx[k].used = ++c->stamp;
	c->cur = k;
	return k;
}

/*
 * A RECORDS3/4 sample whose context changed (thread, cpu, nr or flags):
 * the MORE byte and the changed fields after the mask, the context updated;
 * time is the thread's time base for a new thread.
 */
static inline __attribute__((always_inline)) uint8_t *
trace_enc_ctx_change(uint8_t *p, struct trace_ctx *x, const struct trace_sample *s, uint32_t nr,
		     unsigned int more, uint64_t time, unsigned int *mask)
{
	if (s->cpu != x->cpu)
		more |= TRACE_MORE_CPU;
	if (nr != x->nr)
		more |= TRACE_MORE_NR;
	if (more) {
		*mask |= TRACE_SAMPLE3_MORE;
		*p++ = (uint8_t)more;
	}
	if (s->flags == x->flags)
		*mask |= TRACE_SAMPLE_SAME_FLAGS;
	else
		p = varint_put(p, x->flags = s->flags);
	if (more & TRACE_MORE_THREAD) {
		p = varint_put(p, x->pid = s->pid);
		p = varint_put(p, x->tid = s->tid);
		x->time = time;
	}
	if (more & TRACE_MORE_CPU)
		p = varint_put(p, x->cpu = s->cpu);
	if (more & TRACE_MORE_NR)
		p = varint_put(p, x->nr = nr);
	return p;
}

/*
 * RECORDS3 and RECORDS4: an ip not in the cache, at p (returns the end):
 * its ip table entry, or a delta against the last ip, or (a delta too wide
 * for 63 bits) the table marker and the whole ip; the table learns it.
 */
static inline uint8_t *trace_enc_ip_uncached(struct trace_codec *c, uint8_t *p, uint64_t ip)
{
	uint32_t h = trace_ip_hash(ip);
	uint64_t z = zigzag_enc((int64_t)(ip - c->ips[0]));

	if (c->iptab[h] == ip)
		return varint_put(p, (uint64_t)h << 1 | 1);
	if (__builtin_expect(z >> 63, 0)) {
		p = varint_put(p, (uint64_t)TRACE_IP_TABLE << 1 | 1);
		p = varint_put(p, ip);
	} else {
		p = varint_put(p, z << 1);
	}
	c->iptab[h] = ip;
	return p;
}

/*
 * Encode a packed SAMPLE body (1.4 RECORDS2 chunk, or RECORDS3 when ctxs)
 * at p, counts predicted by pred (valid for s->nr events; NULL: all PREV);
 * returns the end.  The writer's hot path: inline, the common case (same
 * thread, cpu, flags, nr) tested once.
 */
static inline __attribute__((always_inline)) uint8_t *
trace_enc_sample_impl(struct trace_codec *c, uint8_t *p, const struct trace_sample *s,
		      uint32_t stack, const uint8_t *pred, const bool ctxs)
{
	uint8_t *same = p++;
	unsigned int mask, k, more = 0;
	struct trace_ctx *x;
	uint64_t dt, ip = s->ip, base;
	uint32_t i, nr = s->nr;

	if (ctxs) {
		k = trace_ctx_pick(c, s, &more);
		x = &c->ctx[k];
		mask = k;
		if (__builtin_expect(s->flags == x->flags && s->cpu == x->cpu && nr == x->nr &&
				     !more, 1)) {
			mask |= TRACE_SAMPLE_SAME_FLAGS;
		} else {
			p = trace_enc_ctx_change(p, x, s, nr, more, c->time, &mask);
		}
	} else {
		x = &c->ctx[0];
		x->time = c->time;
		if (__builtin_expect(s->flags == x->flags && s->pid == x->pid &&
				     s->tid == x->tid && s->cpu == x->cpu && nr == x->nr, 1)) {
			mask = TRACE_SAMPLE_SAME_ALL;
		} else {
			mask = 0;
			if (s->flags == x->flags)
				mask |= TRACE_SAMPLE_SAME_FLAGS;
			else
				p = varint_put(p, x->flags = s->flags);
			if (s->pid == x->pid && s->tid == x->tid) {
				mask |= TRACE_SAMPLE_SAME_PID_TID;
			} else {
				p = varint_put(p, x->pid = s->pid);
				p = varint_put(p, x->tid = s->tid);
			}
			if (s->cpu == x->cpu)
				mask |= TRACE_SAMPLE_SAME_CPU;
			else
				p = varint_put(p, x->cpu = s->cpu);
			if (nr == x->nr)
				mask |= TRACE_SAMPLE_SAME_NR;
			else
				p = varint_put(p, x->nr = nr);
		}
	}
	dt = s->time - x->time;
	p = varint_put(p, zigzag_enc((int64_t)(dt - (uint64_t)x->sample_dt)));
	x->sample_dt = (int64_t)dt;
	c->time = x->time = s->time;
	k = trace_ip_find(c->ips, ip);
	if (k < TRACE_IP_CACHE)
		mask |= (k + 1) << TRACE_SAMPLE_IP_SLOT_SHIFT;
	else if (!ctxs)
		p = varint_put(p, zigzag_enc((int64_t)(ip - c->ips[0])));
	else
		p = trace_enc_ip_uncached(c, p, ip);
	trace_ip_move_front(c->ips, k, ip);
	if (!pred) {
		for (i = 0; i < nr; i++) {
			p = varint_put(p, zigzag_enc((int64_t)(s->counts[i] - x->counts[i])));
			x->counts[i] = s->counts[i];
		}
	} else {
		for (i = 0; i < nr; i++) {
			base = pred[i] == PMIPROF_PREDICT_PREV ? x->counts[i] :
			       pred[i] == PMIPROF_PREDICT_TIME ? dt :
			       s->counts[pred[i] - PMIPROF_PREDICT_EVENT];
			p = varint_put(p, zigzag_enc((int64_t)(s->counts[i] - base)));
			x->counts[i] = s->counts[i];
		}
	}
	if (stack) {
		mask |= TRACE_SAMPLE_STACK;
		p = varint_put(p, stack);
	}
	*same = (uint8_t)mask;
	return p;
}

/* A packed SAMPLE of a RECORDS2 chunk (the 1.4 encoding before RECORDS3). */
static inline __attribute__((always_inline)) uint8_t *
trace_enc_sample2(struct trace_codec *c, uint8_t *p, const struct trace_sample *s, uint32_t stack,
		  const uint8_t *pred)
{
	return trace_enc_sample_impl(c, p, s, stack, pred, false);
}

/* A packed SAMPLE of a RECORDS3 chunk (thread contexts, ip table). */
static inline __attribute__((always_inline)) uint8_t *
trace_enc_sample3(struct trace_codec *c, uint8_t *p, const struct trace_sample *s, uint32_t stack,
		  const uint8_t *pred)
{
	return trace_enc_sample_impl(c, p, s, stack, pred, true);
}

/*
 * 1.4 RECORDS4 chunks: RECORDS3 in columns.  The payload starts with u8
 * nstreams (TRACE_COL_EVENT + nr_events + 1) and a u32 size per stream,
 * then the streams in order: MAIN (every record as in RECORDS3, a SAMPLE
 * without its time step, ip delta/index and counts), IP (the ip varints of
 * slot-0 samples), TIME (time step residuals), one per event (count
 * residuals), HI.  A split number's first varint byte goes to its field's
 * stream and its further bytes (if bit 7 says so) to HI, so that TIME and
 * the event streams hold exactly one byte per SAMPLE each (0 for an event
 * at or above the sample's nr): sample j's bytes are at index j.
 */
#define TRACE_COL_MAIN			0
#define TRACE_COL_IP			1
#define TRACE_COL_TIME			2
#define TRACE_COL_EVENT			3	/* + event index */
#define TRACE_COLS(nr_events)		(TRACE_COL_EVENT + (nr_events) + 1)
#define TRACE_COL_HI(nr_events)		(TRACE_COL_EVENT + (nr_events))
#define TRACE_COLS_MAX			TRACE_COLS(PMIPROF_MAX_EVENTS)
#define TRACE_COL_TABLE(nr_events)	(1 + 4 * TRACE_COLS(nr_events))
/* Most bytes one sample adds to a non-MAIN stream (HI: the time and 16 counts). */
#define TRACE_COL_SAMPLE_MAX		(9 * (1 + PMIPROF_MAX_EVENTS) + 10)

/* A split number: returns its first varint byte; the rest goes to *hi. */
static inline __attribute__((always_inline)) uint8_t col_lo(uint64_t v, uint8_t **hi)
{
	if (__builtin_expect(v < 0x80, 1))
		return (uint8_t)v;
	*hi = varint_put(*hi, v >> 7);
	return (uint8_t)(v | 0x80);
}

/* The writer's streams of an open RECORDS4 chunk (not MAIN). */
struct trace_wcols {
	uint8_t *lo[TRACE_COLS_MAX];	/* TIME and the events: sample n's byte at lo[k][n] */
	uint8_t *ip, *hi;		/* next byte of IP and HI */
	size_t n;			/* samples so far */
};

/* Count i of a RECORDS4 sample (pred NULL: every count from the previous one). */
static inline __attribute__((always_inline)) void
trace_enc4_count(struct trace_wcols *w, struct trace_ctx *x, const struct trace_sample *s,
		 uint32_t i, const uint8_t *pred, uint64_t dt, size_t n, uint8_t **hp)
{
	uint64_t v = s->counts[i];	/* read once: the byte stores may alias it */
	uint64_t base = !pred || pred[i] == PMIPROF_PREDICT_PREV ? x->counts[i] :
			pred[i] == PMIPROF_PREDICT_TIME ? dt :
			s->counts[pred[i] - PMIPROF_PREDICT_EVENT];

	x->counts[i] = v;
	w->lo[TRACE_COL_EVENT + i][n] = col_lo(zigzag_enc((int64_t)(v - base)), hp);
}

/*
 * Encode a SAMPLE into a RECORDS4 chunk: its MAIN part at p (returns the
 * end), the rest into the streams w; nr is s->nr, step is the header's
 * TIME_STEP (0: against the context's previous step, as RECORDS3).  The
 * writer's hot path passes nr and nr_events as constants, which unrolls
 * the event loops.  Stream pointers are kept in locals: a byte store
 * through any of them could alias the struct.
 */
static inline __attribute__((always_inline)) uint8_t *
trace_enc_sample4(struct trace_codec *c, uint8_t *p, struct trace_wcols *w, uint32_t nr,
		  uint32_t nr_events, const struct trace_sample *s, uint32_t stack,
		  const uint8_t *pred, uint64_t step)
{
	uint8_t *same = p++, *hp = w->hi, *lo;
	unsigned int mask, k, more = 0;
	struct trace_ctx *x;
	uint64_t dt, ip = s->ip, key[2];
	uint32_t i;
	size_t n = w->n;

	_Static_assert(offsetof(struct trace_sample, pid) == offsetof(struct trace_sample, cpu) + 4 &&
		       offsetof(struct trace_sample, tid) == offsetof(struct trace_sample, cpu) + 8 &&
		       offsetof(struct trace_sample, flags) == offsetof(struct trace_sample, cpu) + 12,
		       "cpu, pid, tid, flags are 16 contiguous bytes");
	memcpy(key, &s->cpu, sizeof(key));
	if (__builtin_expect(c->key_nr == nr + 1 && c->key[0] == key[0] && c->key[1] == key[1], 1)) {
		mask = c->cur | TRACE_SAMPLE_SAME_FLAGS;
		x = &c->ctx[c->cur];
	} else {
		k = trace_ctx_pick(c, s, &more);
		x = &c->ctx[k];
		mask = k;
		if (s->flags == x->flags && s->cpu == x->cpu && nr == x->nr && !more)
			mask |= TRACE_SAMPLE_SAME_FLAGS;
		else
			p = trace_enc_ctx_change(p, x, s, nr, more, c->time, &mask);
		memcpy(c->key, key, sizeof(key));
		c->key_nr = nr + 1;
	}
	dt = s->time - x->time;
	lo = w->lo[TRACE_COL_TIME];
	lo[n] = col_lo(zigzag_enc((int64_t)(dt - (step ? step : (uint64_t)x->sample_dt))), &hp);
	x->sample_dt = (int64_t)dt;
	c->time = x->time = s->time;
	k = trace_ip_find(c->ips, ip);
	if (k < TRACE_IP_CACHE)
		mask |= (k + 1) << TRACE_SAMPLE_IP_SLOT_SHIFT;
	else
		w->ip = trace_enc_ip_uncached(c, w->ip, ip);
	trace_ip_move_front(c->ips, k, ip);
	/*
	 * Unrolled: a constant nr (the writer's hot path) leaves straight-line
	 * code, which neither compiler makes of these loops at -O2 otherwise.
	 */
	if (!pred) {
#pragma GCC unroll 16
		for (i = 0; i < nr; i++)
			trace_enc4_count(w, x, s, i, NULL, dt, n, &hp);
	} else {
#pragma GCC unroll 16
		for (i = 0; i < nr; i++)
			trace_enc4_count(w, x, s, i, pred, dt, n, &hp);
	}
	for (i = nr; i < nr_events; i++)	/* one byte per sample in every event stream */
		w->lo[TRACE_COL_EVENT + i][n] = 0;
	w->hi = hp;
	w->n = n + 1;
	if (stack) {
		mask |= TRACE_SAMPLE_STACK;
		p = varint_put(p, stack);
	}
	*same = (uint8_t)mask;
	return p;
}

/*
 * The streams of an open RECORDS4 chunk (reader): where each starts and
 * ends; IP and HI are read in order (p), TIME and the events by sample.
 */
struct trace_cols {
	const uint8_t *p[TRACE_COLS_MAX];
	const uint8_t *end[TRACE_COLS_MAX];
	uint32_t hi;			/* TRACE_COL_HI(nr_events) */
	uint32_t j, nr;			/* the next sample; samples (TIME's length) */
};

/*
 * Decode a RECORDS4 SAMPLE: its MAIN part at p (in a stream ending at end;
 * *endp: where it ends), the rest from the streams.  fast: every stream
 * may be over-read by TRACE_SAMPLE_READ_MAX bytes (the caller checked the
 * readable memory after the last one); positions are checked against the
 * streams' ends after the sample.
 */
static inline __attribute__((always_inline)) const char *
trace_decode_sample4(struct trace_codec *c, const uint8_t *p, const uint8_t *end,
		     struct trace_cols *cols, uint32_t nr_events, const uint8_t *pred,
		     uint64_t step, struct trace_sample *s, const uint8_t **endp, const bool fast)
{
	const uint8_t *hp = cols->p[cols->hi], *hend = cols->end[cols->hi], *q;
	unsigned int mask, slot, more;
	struct trace_ctx *x;
	uint64_t v, ip, base;
	uint32_t i, nr, j = cols->j;

#define GET(x) do {								\
		if (fast ? varint_get_unchecked(&p, &(x)) : varint_get(&p, end, &(x)))	\
			goto short_body;					\
	} while (0)
#define GET32(x) do { GET(v); if (v > UINT32_MAX) goto range; (x) = (uint32_t)v; } while (0)
	/* a split number: sample j's byte of stream k, then HI if bit 7 says so */
#define GETCOL(k) do {								\
		v = cols->p[k][j];						\
		if (__builtin_expect(v & 0x80, 0)) {				\
			uint64_t h_;						\
									\
			if (fast ? varint_get_unchecked(&hp, &h_) : varint_get(&hp, hend, &h_)) \
				goto short_col;					\
			if (h_ >> 57)						\
				goto short_col;					\
			v = (v & 0x7f) | h_ << 7;				\
		}								\
	} while (0)
	if (!fast && p >= end)
		goto short_body;
	if (j >= cols->nr)
		return "more samples than the column streams hold";
	mask = *p++;
	x = &c->ctx[mask & TRACE_SAMPLE3_CTX_MASK];
	if (__builtin_expect(mask & TRACE_SAMPLE3_MORE, 0)) {
		if (!fast && p >= end)
			goto short_body;
		more = *p++;
		if (more & ~TRACE_MORE_KNOWN)
			return "sample has fields this reader does not know";
	} else {
		more = 0;
	}
	if (!(mask & TRACE_SAMPLE_SAME_FLAGS))
		GET32(x->flags);
	if (__builtin_expect(more, 0)) {
		if (more & TRACE_MORE_THREAD) {
			GET32(x->pid);
			GET32(x->tid);
			x->time = c->time;
		}
		if (more & TRACE_MORE_CPU)
			GET32(x->cpu);
		if (more & TRACE_MORE_NR) {
			GET(v);
			if (v > nr_events)
				return "sample has more counts than the header has events";
			x->nr = (uint32_t)v;
		}
	}
	GETCOL(TRACE_COL_TIME);
	x->sample_dt = (int64_t)((step ? step : (uint64_t)x->sample_dt) + (uint64_t)zigzag_dec(v));
	c->time = x->time += (uint64_t)x->sample_dt;
	slot = (mask & TRACE_SAMPLE_IP_SLOT_MASK) >> TRACE_SAMPLE_IP_SLOT_SHIFT;
	if (slot) {
		ip = c->ips[slot - 1];
		trace_ip_move_front(c->ips, slot - 1, ip);
	} else {
		q = cols->p[TRACE_COL_IP];
		if (fast ? varint_get_unchecked(&q, &v) : varint_get(&q, cols->end[TRACE_COL_IP], &v))
			goto short_col;
		if (!(v & 1)) {
			ip = c->ips[0] + (uint64_t)zigzag_dec(v >> 1);
			c->iptab[trace_ip_hash(ip)] = ip;
		} else if (v >> 1 < TRACE_IP_TABLE) {
			ip = c->iptab[v >> 1];
		} else if (v >> 1 == TRACE_IP_TABLE) {
			if (fast ? varint_get_unchecked(&q, &ip) :
				   varint_get(&q, cols->end[TRACE_COL_IP], &ip))
				goto short_col;
			c->iptab[trace_ip_hash(ip)] = ip;
		} else {
			return "sample names an ip table entry beyond the table";
		}
		cols->p[TRACE_COL_IP] = q;
		trace_ip_move_front(c->ips, TRACE_IP_CACHE, ip);
	}
	s->ip = ip;
	nr = x->nr;
	s->nr = nr;
	trace_zero_counts(s->counts);
	if (!pred) {
		for (i = 0; i < nr; i++) {
			GETCOL(TRACE_COL_EVENT + i);
			s->counts[i] = x->counts[i] += (uint64_t)zigzag_dec(v);
		}
	} else {
		for (i = 0; i < nr; i++) {
			GETCOL(TRACE_COL_EVENT + i);
			/* the header's predictors name only earlier events: decoded already */
			base = pred[i] == PMIPROF_PREDICT_PREV ? x->counts[i] :
			       pred[i] == PMIPROF_PREDICT_TIME ? (uint64_t)x->sample_dt :
			       s->counts[pred[i] - PMIPROF_PREDICT_EVENT];
			s->counts[i] = x->counts[i] = base + (uint64_t)zigzag_dec(v);
		}
	}
	cols->p[cols->hi] = hp;
	if (mask & TRACE_SAMPLE_STACK) {
		GET32(s->stack);
		if (s->stack > c->nr_stacks)
			return "sample refers to a stack not defined before it in the chunk";
	} else {
		s->stack = 0;
	}
	/* fast: over-reads went into the next stream (readable), caught here */
	if (fast && ((p > end) | (cols->p[TRACE_COL_IP] > cols->end[TRACE_COL_IP]) | (hp > hend)))
		goto short_col;
	cols->j = j + 1;
	*endp = p;
	s->time = x->time;
	s->cpu = x->cpu;
	s->pid = x->pid;
	s->tid = x->tid;
	s->flags = x->flags;
	return NULL;
short_body:
	return "record body ends inside a number";
short_col:
	return "sample's column stream ends inside a number";
range:
	return "32-bit field out of range";
#undef GET
#undef GET32
#undef GETCOL
}

#endif /* PMIPROF_TRACE_CODEC_H */
