// SPDX-License-Identifier: GPL-2.0
/*
 * Record body encoders and the decoder (see trace_codec.h and
 * docs/trace-format.md "Record bodies").  The SAMPLE path is the hot one on
 * both sides: no calls, no allocation, one pass over the bytes.
 */
#include <stdbool.h>
#include <string.h>

#include "trace_codec.h"
#include "varint.h"

/* Time of a non-SAMPLE record: zigzag delta against the previous record. */
static inline uint8_t *put_time(struct trace_codec *c, uint8_t *p, uint64_t time)
{
	p = varint_put(p, zigzag_enc((int64_t)(time - c->time)));
	c->time = time;
	return p;
}

static inline uint8_t *put_bytes(uint8_t *p, const void *s, size_t len)
{
	p = varint_put(p, len);
	memcpy(p, s, len);
	return p + len;
}


/*
 * Frames as zigzag deltas, each against the frame before it (the first
 * against 0): return addresses of one stack sit in a few nearby functions,
 * so most frames take 2-3 bytes.
 */
uint8_t *trace_enc_stack(struct trace_codec *c, uint8_t *p, const struct trace_stack *st)
{
	uint64_t prev = 0;
	uint32_t i;

	p = varint_put(p, st->id);
	p = varint_put(p, st->nr);
	p = varint_put(p, st->nr_kernel);
	for (i = 0; i < st->nr; i++) {
		p = varint_put(p, zigzag_enc((int64_t)(st->ips[i] - prev)));
		prev = st->ips[i];
	}
	c->nr_stacks++;
	return p;
}

/*
 * Registers and fp leaf words as deltas against the previous USTACK of the
 * chunk: a sampled thread's SP and BP move little between samples and a hot
 * leaf repeats its return address, so most take one byte.  dwarf's
 * kilobytes of stack stay raw bytes for deflate.
 */
uint8_t *trace_enc_ustack(struct trace_codec *c, uint8_t *p, const struct trace_ustack *u)
{
	uint8_t *flags = p++;
	unsigned int f = 0;
	uint64_t w, nonzero = 0;
	uint32_t i, bit = 0, nw;

	if (u->abi == c->uabi && u->regs_mask == c->umask)
		f |= TRACE_USTACK_SAME_REGS;
	else {
		p = varint_put(p, c->uabi = u->abi);
		p = varint_put(p, c->umask = u->regs_mask);
	}
	for (i = 0; i < u->nr_regs; i++, bit++) {
		while (!(u->regs_mask >> bit & 1))
			bit++;
		if (bit == TRACE_UREG_IP && u->regs[i] == c->ips[0]) {
			f |= TRACE_USTACK_IP_SAMPLE;
			c->uregs[i] = u->regs[i];
			continue;
		}
		p = varint_put(p, zigzag_enc((int64_t)(u->regs[i] - c->uregs[i])));
		c->uregs[i] = u->regs[i];
	}
	if (u->size > TRACE_USTACK_WORDS_MAX || u->size % 8) {
		*flags = (uint8_t)f;
		return put_bytes(p, u->data, u->size);	/* size, bytes */
	}
	f |= TRACE_USTACK_WORDS;
	*flags = (uint8_t)f;
	p = varint_put(p, u->size);
	nw = u->size / 8;
	for (i = 0; i < nw; i++) {
		memcpy(&w, u->data + 8 * i, 8);
		if (w)
			nonzero |= 1ull << i;
	}
	p = varint_put(p, nonzero);
	for (i = 0; i < nw; i++) {
		if (!(nonzero >> i & 1))
			continue;
		memcpy(&w, u->data + 8 * i, 8);
		p = varint_put(p, zigzag_enc((int64_t)(w - c->uwords[i])));
		c->uwords[i] = w;
	}
	return p;
}

uint8_t *trace_enc_mmap(struct trace_codec *c, uint8_t *p, const struct trace_mmap *m,
			size_t path_len)
{
	p = put_time(c, p, m->time);
	p = varint_put(p, m->pid);
	p = varint_put(p, m->tid);
	p = varint_put(p, m->start);
	p = varint_put(p, m->len);
	p = varint_put(p, m->pgoff);
	p = varint_put(p, m->prot);
	p = varint_put(p, m->flags);
	p = put_bytes(p, m->build_id, m->build_id_len);
	return put_bytes(p, m->path ? m->path : "", path_len);
}

uint8_t *trace_enc_comm(struct trace_codec *c, uint8_t *p, const struct trace_comm *m,
			size_t comm_len)
{
	p = put_time(c, p, m->time);
	p = varint_put(p, m->pid);
	p = varint_put(p, m->tid);
	p = varint_put(p, m->flags);
	return put_bytes(p, m->comm ? m->comm : "", comm_len);
}

uint8_t *trace_enc_task(struct trace_codec *c, uint8_t *p, const struct trace_task *t)
{
	p = put_time(c, p, t->time);
	p = varint_put(p, t->pid);
	p = varint_put(p, t->ppid);
	p = varint_put(p, t->tid);
	return varint_put(p, t->ptid);
}

uint8_t *trace_enc_lost(struct trace_codec *c, uint8_t *p, const struct trace_lost *l)
{
	p = put_time(c, p, l->time);
	p = varint_put(p, l->cpu);
	p = varint_put(p, l->reason);
	p = varint_put(p, l->count);
	return varint_put(p, l->duration);
}

uint8_t *trace_enc_mark(struct trace_codec *c, uint8_t *p, const struct trace_mark *m,
			size_t label_len)
{
	p = put_time(c, p, m->time);
	p = varint_put(p, m->cpu);
	p = varint_put(p, m->pid);
	p = varint_put(p, m->tid);
	p = varint_put(p, m->id);
	return put_bytes(p, m->label ? m->label : "", label_len);
}

uint8_t *trace_enc_callchain(struct trace_codec *c, uint8_t *p, const struct trace_callchain *cc)
{
	uint64_t prev = c->ips[0];	/* the first ip is a delta against the sample's */
	uint32_t i;

	p = varint_put(p, cc->nr);
	for (i = 0; i < cc->nr; i++) {
		p = varint_put(p, zigzag_enc((int64_t)(cc->ips[i] - prev)));
		prev = cc->ips[i];
	}
	return p;
}

uint8_t *trace_enc_finish(struct trace_codec *c, uint8_t *p, const struct trace_finish *f)
{
	p = put_time(c, p, f->time);
	p = varint_put(p, f->flags);
	p = varint_put(p, zigzag_enc(f->exit_code));
	p = varint_put(p, f->samples);
	return varint_put(p, f->lost);
}

uint8_t *trace_enc_region_def(struct trace_codec *c, uint8_t *p, const struct trace_region_def *d,
			      size_t name_len)
{
	(void)c;
	p = varint_put(p, d->id);
	return put_bytes(p, d->name ? d->name : "", name_len);
}

uint8_t *trace_enc_region(struct trace_codec *c, uint8_t *p, const struct trace_region *r)
{
	uint32_t i;

	p = put_time(c, p, r->time);
	p = varint_put(p, r->kind);
	p = varint_put(p, r->pid);
	p = varint_put(p, r->tid);
	p = varint_put(p, r->id);
	p = varint_put(p, r->depth);
	p = varint_put(p, r->evmask);
	for (i = 0; i < PMIPROF_MAX_EVENTS; i++)
		if (r->evmask >> i & 1)
			p = varint_put(p, r->values[i]);
	return p;
}

uint8_t *trace_enc_region_anomaly(struct trace_codec *c, uint8_t *p,
				  const struct trace_region_anomaly *a)
{
	p = put_time(c, p, a->time);
	p = varint_put(p, a->pid);
	p = varint_put(p, a->tid);
	p = varint_put(p, a->what);
	return varint_put(p, a->count);
}

/* ---- decoding (untrusted input: every read is bounds-checked) ---- */

struct dec {
	const uint8_t *p, *end;
	const char *why;
};

static inline uint64_t get_u64(struct dec *d)
{
	uint64_t v = 0;

	if (!d->why && varint_get(&d->p, d->end, &v))
		d->why = "record body ends inside a number";
	return v;
}

static inline uint32_t get_u32(struct dec *d)
{
	uint64_t v = get_u64(d);

	if (v > UINT32_MAX && !d->why)
		d->why = "32-bit field out of range";
	return (uint32_t)v;
}

static inline int64_t get_s64(struct dec *d)
{
	return zigzag_dec(get_u64(d));
}

static inline uint64_t get_time(struct trace_codec *c, struct dec *d)
{
	c->time += (uint64_t)get_s64(d);
	return c->time;
}

/* A length-prefixed string, copied NUL-terminated into scratch. */
static const char *get_str(struct dec *d, char *scratch)
{
	uint64_t len = get_u64(d);

	if (d->why)
		return "";
	if (len > PMIPROF_MAX_STRING || len > (uint64_t)(d->end - d->p)) {
		d->why = "string length exceeds the record";
		return "";
	}
	memcpy(scratch, d->p, len);
	scratch[len] = '\0';
	d->p += len;
	return scratch;
}

static void dec_mmap(struct trace_codec *c, struct dec *d, const struct trace_decode_scratch *sc,
		     struct trace_mmap *m)
{
	uint64_t len;

	m->time = get_time(c, d);
	m->pid = get_u32(d);
	m->tid = get_u32(d);
	m->start = get_u64(d);
	m->len = get_u64(d);
	m->pgoff = get_u64(d);
	m->prot = get_u32(d);
	m->flags = get_u32(d);
	len = get_u64(d);
	memset(m->build_id, 0, sizeof(m->build_id));
	m->build_id_len = 0;
	if (!d->why && (len > sizeof(m->build_id) || len > (uint64_t)(d->end - d->p)))
		d->why = "build-id longer than 20 bytes or than the record";
	if (!d->why) {
		memcpy(m->build_id, d->p, len);
		m->build_id_len = (uint32_t)len;
		d->p += len;
	}
	m->path = get_str(d, sc->str);
}

static void dec_callchain(struct trace_codec *c, struct dec *d, uint64_t *ips,
			  struct trace_callchain *cc)
{
	uint64_t nr = get_u64(d), prev = c->ips[0];
	uint32_t i;

	cc->nr = 0;
	cc->ips = ips;
	if (d->why)
		return;
	/* every ip takes at least one byte: bound nr before looping */
	if (nr > PMIPROF_MAX_CALLCHAIN || nr > (uint64_t)(d->end - d->p)) {
		d->why = "callchain longer than the limit or the record";
		return;
	}
	for (i = 0; i < nr && !d->why; i++) {
		prev += (uint64_t)get_s64(d);
		ips[i] = prev;
	}
	cc->nr = (uint32_t)nr;
}

static void dec_stack(struct trace_codec *c, struct dec *d, uint64_t *ips, struct trace_stack *st)
{
	uint64_t id = get_u64(d), nr = get_u64(d), nr_kernel = get_u64(d), prev = 0;
	uint32_t i;

	st->nr = st->nr_kernel = 0;
	st->ips = ips;
	if (d->why)
		return;
	/* ids are dense from 0 in each chunk: the next one or the chunk is broken */
	if (id != c->nr_stacks) {
		d->why = "stack id out of sequence";
		return;
	}
	/* every frame takes at least one byte: bound nr before looping */
	if (nr > PMIPROF_MAX_STACK || nr > (uint64_t)(d->end - d->p)) {
		d->why = "stack longer than the limit or the record";
		return;
	}
	if (nr_kernel > nr) {
		d->why = "stack has more kernel frames than frames";
		return;
	}
	for (i = 0; i < nr && !d->why; i++) {
		prev += (uint64_t)get_s64(d);
		ips[i] = prev;
	}
	if (d->why)
		return;
	st->id = (uint32_t)id;
	st->nr = (uint32_t)nr;
	st->nr_kernel = (uint32_t)nr_kernel;
	c->nr_stacks++;
}

static void dec_ustack(struct trace_codec *c, struct dec *d, const struct trace_decode_scratch *sc,
		       struct trace_ustack *u)
{
	uint64_t f = get_u64(d), size, nonzero, w;
	uint32_t i, bit = 0, n, nw;

	u->nr_regs = 0;
	u->size = 0;
	u->regs = sc->regs;
	u->data = d->p;
	if (d->why)
		return;
	if (f & ~(uint64_t)TRACE_USTACK_FLAGS_KNOWN) {
		d->why = "unknown user stack flags";
		return;
	}
	if (!(f & TRACE_USTACK_SAME_REGS)) {
		uint64_t abi = get_u64(d), mask = get_u64(d);

		if (d->why)
			return;
		if (abi > UINT32_MAX) {
			d->why = "32-bit field out of range";
			return;
		}
		if (__builtin_popcountll(mask) > PMIPROF_MAX_UREGS) {
			d->why = "user register mask names more registers than the limit";
			return;
		}
		c->uabi = (uint32_t)abi;
		c->umask = mask;
	}
	n = (uint32_t)__builtin_popcountll(c->umask);
	if ((f & TRACE_USTACK_IP_SAMPLE) && !(c->umask >> TRACE_UREG_IP & 1)) {
		d->why = "user stack takes the sample's ip for a register it does not have";
		return;
	}
	for (i = 0; i < n && !d->why; i++, bit++) {
		while (!(c->umask >> bit & 1))
			bit++;
		if (bit == TRACE_UREG_IP && (f & TRACE_USTACK_IP_SAMPLE))
			c->uregs[i] = c->ips[0];
		else
			c->uregs[i] += (uint64_t)get_s64(d);
		sc->regs[i] = c->uregs[i];
	}
	size = get_u64(d);
	if (d->why)
		return;
	if (f & TRACE_USTACK_WORDS) {
		if (size > TRACE_USTACK_WORDS_MAX || size % 8) {
			d->why = "user stack words of a size that is not 8..64 in steps of 8";
			return;
		}
		nw = (uint32_t)size / 8;
		nonzero = get_u64(d);
		if (!d->why && nw < 64 && nonzero >> nw) {
			d->why = "user stack word mask names words beyond the size";
			return;
		}
		for (i = 0; i < nw && !d->why; i++) {
			w = 0;
			if (nonzero >> i & 1)
				w = c->uwords[i] += (uint64_t)get_s64(d);
			memcpy(sc->words + 8 * i, &w, 8);
		}
		if (d->why)
			return;
		u->data = sc->words;
	} else {
		if (size > PMIPROF_MAX_USTACK || size > (uint64_t)(d->end - d->p)) {
			d->why = "user stack longer than the limit or the record";
			return;
		}
		u->data = d->p;
		d->p += size;
	}
	u->abi = c->uabi;
	u->regs_mask = c->umask;
	u->nr_regs = n;
	u->size = (uint32_t)size;
}

static void dec_region(struct trace_codec *c, struct dec *d, uint32_t nr_events,
		       struct trace_region *r)
{
	uint32_t i;

	r->time = get_time(c, d);
	r->kind = get_u32(d);
	r->pid = get_u32(d);
	r->tid = get_u32(d);
	r->id = get_u32(d);
	r->depth = get_u32(d);
	r->evmask = get_u32(d);
	memset(r->values, 0, sizeof(r->values));
	if (d->why)
		return;
	if (r->kind != PMIPROF_REGION_BEGIN && r->kind != PMIPROF_REGION_END) {
		d->why = "region marker of unknown kind";
		return;
	}
	if (nr_events < 32 && r->evmask >> nr_events) {
		d->why = "region marker has values of events the header does not have";
		return;
	}
	for (i = 0; i < PMIPROF_MAX_EVENTS && !d->why; i++)
		if (r->evmask >> i & 1)
			r->values[i] = get_u64(d);
}

int trace_decode_body(struct trace_codec *c, uint32_t type, const uint8_t *p, const uint8_t *end,
		      uint32_t nr_events, const struct trace_decode_scratch *sc,
		      struct trace_record *rec, const char **why)
{
	struct dec d = { p, end, NULL };

	if (__builtin_expect(type == PMIPROF_REC_SAMPLE, 1)) {
		*why = trace_decode_sample(c, p, end, sc->limit, nr_events, &rec->sample);
		rec->type = type;
		return *why ? -1 : 0;
	}
	switch (type) {
	case PMIPROF_REC_MMAP:
		dec_mmap(c, &d, sc, &rec->mmap);
		break;
	case PMIPROF_REC_COMM:
		rec->comm.time = get_time(c, &d);
		rec->comm.pid = get_u32(&d);
		rec->comm.tid = get_u32(&d);
		rec->comm.flags = get_u32(&d);
		rec->comm.comm = get_str(&d, sc->str);
		break;
	case PMIPROF_REC_FORK:
	case PMIPROF_REC_EXIT:
		rec->task.time = get_time(c, &d);
		rec->task.pid = get_u32(&d);
		rec->task.ppid = get_u32(&d);
		rec->task.tid = get_u32(&d);
		rec->task.ptid = get_u32(&d);
		break;
	case PMIPROF_REC_LOST:
		rec->lost.time = get_time(c, &d);
		rec->lost.cpu = get_u32(&d);
		rec->lost.reason = get_u32(&d);
		rec->lost.count = get_u64(&d);
		/* appended in 1.1: absent in 1.0 traces */
		rec->lost.duration = d.p < d.end ? get_u64(&d) : 0;
		break;
	case PMIPROF_REC_MARK:
		rec->mark.time = get_time(c, &d);
		rec->mark.cpu = get_u32(&d);
		rec->mark.pid = get_u32(&d);
		rec->mark.tid = get_u32(&d);
		rec->mark.id = get_u64(&d);
		rec->mark.label = get_str(&d, sc->str);
		break;
	case PMIPROF_REC_CALLCHAIN:
		dec_callchain(c, &d, sc->ips, &rec->callchain);
		break;
	case PMIPROF_REC_STACK:
		dec_stack(c, &d, sc->ips, &rec->stack);
		break;
	case PMIPROF_REC_USTACK:
		dec_ustack(c, &d, sc, &rec->ustack);
		break;
	case PMIPROF_REC_REGION_DEF:
		rec->region_def.id = get_u32(&d);
		rec->region_def.name = get_str(&d, sc->str);
		break;
	case PMIPROF_REC_REGION:
		dec_region(c, &d, nr_events, &rec->region);
		break;
	case PMIPROF_REC_REGION_ANOMALY:
		rec->region_anomaly.time = get_time(c, &d);
		rec->region_anomaly.pid = get_u32(&d);
		rec->region_anomaly.tid = get_u32(&d);
		rec->region_anomaly.what = get_u32(&d);
		rec->region_anomaly.count = get_u64(&d);
		/* a later minor may add kinds: a reader shows them as unknown */
		break;
	case PMIPROF_REC_FINISH:
		rec->finish.time = get_time(c, &d);
		rec->finish.flags = get_u32(&d);
		rec->finish.exit_code = (int32_t)get_s64(&d);
		rec->finish.samples = get_u64(&d);
		rec->finish.lost = get_u64(&d);
		break;
	default:
		d.why = "record type has no decoder";
		break;
	}
	rec->type = type;
	*why = d.why;
	return d.why ? -1 : 0;
}
