// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data -> pmiprof trace records (see perf_data.h, docs/perf-data.md).
 *
 * The whole input is in memory (mapped file or a pipe read by the trace
 * reader), so records are referenced where they lie; only those that come
 * out of a COMPRESSED record are copied.  Records are ordered the way perf
 * report orders them: queued by time, and at each FINISHED_ROUND the ones
 * not later than the previous round's latest time are sorted and handed
 * out; the rest at the end.  One perf record becomes up to three trace
 * records (STACK, SAMPLE, USTACK).  Damage ends the reading with one
 * message naming the offset and a LOST for what could not be read; records
 * this reader does not map are counted and named in one message at the end.
 */
#include "perf_data.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <linux/perf_event.h>
#include <zstd.h>

#include "hashmap.h"
#include "perf_data_format.h"
#include "perf_data_header.h"
#include "perf_sample.h"
#include "util.h"

#define MAX_DIAG_SAMPLES 3		/* damaged samples named one by one, then counted */
#define MAX_THROTTLES 1024		/* THROTTLEs waiting for their UNTHROTTLE */
/*
 * Bytes one COMPRESSED record may inflate to (perf compresses one ring read
 * at a time: its -m size), and all of them together, against the file's
 * size: perf's zstd level 1 on its records gains 5-30x, so more than 1024x is
 * not a recording (a bomb, or damage).  The fuzzer's 64 MB allocation limit
 * wants a smaller buffer.
 */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define DECOMP_MAX ((size_t)16 << 20)
#else
#define DECOMP_MAX ((size_t)256 << 20)
#endif
#define DECOMP_RATIO 1024

struct qent {
	uint64_t time;
	uint64_t seq;			/* arrival order: equal times keep it */
	const uint8_t *rec;		/* the record, header included */
	uint64_t off;			/* file offset (of the COMPRESSED record holding it) */
	uint32_t size;
	uint16_t attr;
	bool owned;			/* rec is a copy to free */
};

struct throttle {
	uint64_t id, time;
};

struct perf_data {
	const uint8_t *buf;
	size_t size;
	char *name;
	trace_diag_fn diag;
	void *diag_arg;
	bool pipe;
	struct perf_meta m;
	struct trace_header *h;
	struct trace_read_stats *st;

	size_t pos, end;		/* the data records still to read */
	bool data_complete;		/* file mode: perf record wrote the data size at its end */
	bool input_done, failed, finish_sent;

	/* decompressed COMPRESSED payloads: records from dpos to dlen */
	ZSTD_DCtx *zd;
	uint8_t *dbuf;
	size_t dlen, dcap, dpos;
	uint64_t doff;
	uint64_t inflated;		/* bytes inflated so far */

	/* the ordering queue: q[qpos .. qready) ready, q[qready .. nq) waiting */
	struct qent *q;
	size_t nq, capq, qpos, qready;
	uint64_t next_flush, max_time, seq;

	/* what one perf record became */
	struct trace_record out[3];
	uint32_t nout, iout;
	uint32_t vchunk;		/* virtual chunk: one STACK each */

	/* PERF_SAMPLE_READ: the last value of each counter, for deltas */
	struct hashmap last;
	uint64_t *vals;
	uint32_t nvals, capvals;

	struct throttle thr[MAX_THROTTLES];
	uint32_t nthr;

	uint64_t samples, lost;
	uint64_t lost_ring, lost_samples;	/* sums of LOST and of LOST_SAMPLES */
	uint64_t last_time;
	uint64_t skipped[PERF_UREC_MAX];
	uint64_t bad_samples, unknown_id, kernel_maps;

	char path[PMIPROF_MAX_STRING + 1];
	char comm[PMIPROF_MAX_STRING + 1];
	uint64_t ips[PMIPROF_MAX_STACK];
	uint64_t regs[PMIPROF_MAX_UREGS];
};

static void PM_PRINTF(3, 4) pdiag(struct perf_data *p, uint64_t off, const char *fmt, ...)
{
	char what[512], msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(msg, sizeof(msg), "%s: offset %llu: %s", p->name, (unsigned long long)off, what);
	p->diag(p->diag_arg, msg);
}

bool perf_data_magic(const uint8_t *buf, size_t len)
{
	return len >= 8 && (!memcmp(buf, "PERFILE2", 8) || !memcmp(buf, "2ELIFREP", 8));
}

static inline uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/*
 * Bytes a top-level record takes: its size, plus the data that follows
 * HEADER_TRACING_DATA and AUXTRACE records outside it.  0 when that does
 * not fit in avail.
 */
static uint64_t rec_span(const struct perf_event_header *eh, const uint8_t *r, size_t avail)
{
	uint64_t n = eh->size, extra = 0;

	/* the record itself first: its fields are read only when it is all there */
	if (n > avail)
		return 0;
	if (eh->type == PERF_UREC_HEADER_TRACING_DATA && eh->size >= 12)
		extra = ((uint64_t)rd32(r + 8) + 7) & ~7ull;
	else if (eh->type == PERF_UREC_AUXTRACE && eh->size >= 16)
		extra = rd64(r + 8);
	return extra > avail - n ? 0 : n + extra;
}

/* ---- the header, both modes ---- */

static int open_file_mode(struct perf_data *p)
{
	struct perf_file_header fh;
	uint64_t n, i, feat_at;
	const char *why = NULL;
	uint32_t bit;
	int err;

	if (p->size < sizeof(fh)) {
		pdiag(p, p->size, "file ends inside the perf.data header (%zu of %zu bytes)",
		      p->size, sizeof(fh));
		return -EBADMSG;
	}
	memcpy(&fh, p->buf, sizeof(fh));
	if (fh.size < sizeof(fh) || fh.attr_size < 16 + PERF_ATTR_SIZE_VER0 ||
	    fh.attr_size > 16 + 4096) {
		pdiag(p, 8, "perf.data header of %llu bytes with %llu-byte attrs: not a layout "
		      "perf writes", (unsigned long long)fh.size, (unsigned long long)fh.attr_size);
		return -EBADMSG;
	}
	if (fh.attrs.offset > p->size || fh.attrs.size > p->size - fh.attrs.offset ||
	    fh.attrs.size % fh.attr_size) {
		pdiag(p, 24, "attr section (offset %llu, %llu bytes) is not inside the file or not "
		      "a whole number of attrs", (unsigned long long)fh.attrs.offset,
		      (unsigned long long)fh.attrs.size);
		return -EBADMSG;
	}
	n = fh.attrs.size / fh.attr_size;
	for (i = 0; i < n; i++) {
		const uint8_t *a = p->buf + fh.attrs.offset + i * fh.attr_size;
		struct perf_file_section ids;

		memcpy(&ids, a + fh.attr_size - 16, sizeof(ids));
		if (ids.offset > p->size || ids.size > p->size - ids.offset || ids.size % 8) {
			pdiag(p, fh.attrs.offset + i * fh.attr_size, "attr %llu: its id section "
			      "(offset %llu, %llu bytes) is not inside the file",
			      (unsigned long long)i, (unsigned long long)ids.offset,
			      (unsigned long long)ids.size);
			return -EBADMSG;
		}
		err = perf_meta_add_attr(&p->m, a, fh.attr_size - 16, p->buf + ids.offset,
					 ids.size / 8, &why);
		if (err) {
			pdiag(p, fh.attrs.offset + i * fh.attr_size, "%s", why);
			return err;
		}
	}
	if (fh.data.offset > p->size) {
		pdiag(p, 40, "data section starts at offset %llu, after the end of the file",
		      (unsigned long long)fh.data.offset);
		return -EBADMSG;
	}
	p->pos = fh.data.offset;
	p->end = p->size;
	p->data_complete = fh.data.size != 0;
	if (fh.data.size && fh.data.size <= p->size - fh.data.offset)
		p->end = fh.data.offset + fh.data.size;
	else if (fh.data.size)
		pdiag(p, p->size, "file ends inside the data section (%llu of %llu bytes): the "
		      "file was cut short; what is there is read",
		      (unsigned long long)(p->size - fh.data.offset),
		      (unsigned long long)fh.data.size);
	else
		pdiag(p, 48, "data size 0: perf record did not finish (killed?); the records up "
		      "to the end of the file are read");
	/* one section descriptor per feature bit, in bit order, after the data */
	feat_at = fh.data.offset + fh.data.size;
	for (bit = 1; fh.data.size && bit < PERF_FEAT_BITS; bit++) {
		struct perf_file_section fs;

		if (!(fh.features[bit / 64] & (1ull << (bit % 64))))
			continue;
		if (feat_at > p->size || p->size - feat_at < sizeof(fs)) {
			pdiag(p, feat_at, "feature table runs past the end of the file (feature %u)",
			      bit);
			break;	/* the records are still readable */
		}
		memcpy(&fs, p->buf + feat_at, sizeof(fs));
		feat_at += sizeof(fs);
		if (fs.offset > p->size || fs.size > p->size - fs.offset) {
			pdiag(p, feat_at - sizeof(fs), "feature %u: section (offset %llu, %llu bytes) "
			      "is not inside the file; skipped", bit,
			      (unsigned long long)fs.offset, (unsigned long long)fs.size);
			continue;
		}
		why = perf_meta_feature(&p->m, bit, p->buf + fs.offset, fs.size);
		if (why)
			pdiag(p, fs.offset, "feature %u: %s; skipped", bit, why);
	}
	return 0;
}

/*
 * Pipe mode: the attrs, features, event names and build-ids come as
 * records.  The whole stream is in memory, so they are all gathered before
 * the first record is handed out (the build-ids come last in a pipe).
 */
static int open_pipe_mode(struct perf_data *p)
{
	size_t pos = sizeof(struct perf_pipe_header);
	const char *why = NULL;
	int err;

	while (p->size - pos >= sizeof(struct perf_event_header)) {
		struct perf_event_header eh;
		const uint8_t *r = p->buf + pos;
		uint64_t span;

		memcpy(&eh, r, sizeof(eh));
		if (eh.size < sizeof(eh))
			break;	/* damage: said when the records get there */
		span = rec_span(&eh, r, p->size - pos);
		if (!span)
			break;
		switch (eh.type) {
		case PERF_UREC_HEADER_ATTR: {
			uint32_t asz = eh.size >= 16 ? rd32(r + 12) : 0;

			if (!asz)
				asz = PERF_ATTR_SIZE_VER0;
			if (asz > eh.size - 8u || asz < PERF_ATTR_SIZE_VER0) {
				pdiag(p, pos, "HEADER_ATTR of %u bytes in a %u-byte record", asz,
				      eh.size);
				return -EBADMSG;
			}
			err = perf_meta_add_attr(&p->m, r + 8, asz, r + 8 + asz,
						 (eh.size - 8 - asz) / 8, &why);
			if (err) {
				pdiag(p, pos, "%s", why);
				return err;
			}
			break;
		}
		case PERF_UREC_HEADER_FEATURE:
			if (eh.size >= 16) {
				why = perf_meta_feature(&p->m, (uint32_t)rd64(r + 8), r + 16,
							eh.size - 16u);
				if (why)
					pdiag(p, pos, "feature %llu: %s; skipped",
					      (unsigned long long)rd64(r + 8), why);
			}
			break;
		case PERF_UREC_EVENT_UPDATE:
			perf_meta_event_update(&p->m, r + 8, eh.size - 8u);
			break;
		case PERF_UREC_HEADER_BUILD_ID:
			why = perf_meta_build_id(&p->m, r, eh.size);
			if (why)
				pdiag(p, pos, "%s; skipped", why);
			break;
		case PERF_UREC_AUXTRACE_INFO:
			p->m.auxtrace = true;
			break;
		default:
			break;
		}
		pos += span;
	}
	p->pos = sizeof(struct perf_pipe_header);
	p->end = p->size;
	return 0;
}

int perf_data_open(struct perf_data **pp, const uint8_t *buf, size_t size, const char *name,
		   struct trace_header *h, struct trace_read_stats *st, trace_diag_fn diag,
		   void *diag_arg)
{
	struct perf_data *p = calloc(1, sizeof(*p));
	const char *why = NULL;
	uint64_t hsize;
	int err;

	*pp = NULL;
	if (!p)
		return -ENOMEM;
	p->buf = buf;
	p->size = size;
	p->diag = diag;
	p->diag_arg = diag_arg;
	p->h = h;
	p->st = st;
	p->name = strdup(name);
	err = p->name ? perf_meta_init(&p->m) : -ENOMEM;
	if (!err)
		err = hm_init(&p->last, 64);
	if (err) {
		diag(diag_arg, "out of memory opening a perf.data file");
		goto fail;
	}
	if (!memcmp(buf, "2ELIFREP", 8)) {
		pdiag(p, 0, "big-endian perf.data (recorded on a big-endian machine): unsupported; "
		      "this pmiprof reads little-endian perf.data files only");
		err = -EPROTONOSUPPORT;
		goto fail;
	}
	if (size < 16) {
		pdiag(p, size, "file ends inside the perf.data header (%zu bytes)", size);
		err = -EBADMSG;
		goto fail;
	}
	hsize = rd64(buf + 8);
	p->pipe = hsize == sizeof(struct perf_pipe_header);
	err = p->pipe ? open_pipe_mode(p) : open_file_mode(p);
	if (err)
		goto fail;
	if (p->m.auxtrace) {
		pdiag(p, 0, "perf.data with AUX area data (Intel PT, CoreSight, ARM SPE): not "
		      "read by pmiprof; decode it with 'perf script' or 'perf report'");
		err = -EPROTONOSUPPORT;
		goto fail;
	}
	err = perf_meta_header(&p->m, p->pipe, h, &why);
	if (err) {
		pdiag(p, 0, "%s", why);
		goto fail;
	}
	{
		uint32_t i;

		for (i = 0; i < p->m.nr_attrs; i++) {
			const struct perf_event_attr *a = &p->m.attrs[i].attr;

			if (p->m.attrs[i].event < 0)
				continue;
			if ((a->sample_type & PERF_SAMPLE_REGS_USER) &&
			    (a->sample_type & PERF_SAMPLE_STACK_USER)) {
				h->call_graph = PMIPROF_CALL_GRAPH_DWARF;
				h->call_graph_dump_size = a->sample_stack_user;
			} else if ((a->sample_type & PERF_SAMPLE_CALLCHAIN) && !h->call_graph) {
				h->call_graph = PMIPROF_CALL_GRAPH_FP;
			}
			if ((a->sample_type & PERF_SAMPLE_CALLCHAIN) && !a->exclude_callchain_kernel &&
			    !a->exclude_kernel)
				h->call_graph_flags |= PMIPROF_CALL_GRAPH_F_KERNEL;
			/* 0: the recording kernel's perf_event_max_stack, 127 unless changed */
			if (a->sample_type & PERF_SAMPLE_CALLCHAIN)
				h->call_graph_max_stack = a->sample_max_stack ? a->sample_max_stack :
							  127;
		}
	}
	*pp = p;
	return 0;
fail:
	perf_data_close(p);
	return err;
}

void perf_data_close(struct perf_data *p)
{
	size_t i;

	if (!p)
		return;
	for (i = p->qpos; i < p->nq; i++)
		if (p->q[i].owned)
			free((void *)p->q[i].rec);
	free(p->q);
	ZSTD_freeDCtx(p->zd);
	free(p->dbuf);
	free(p->vals);
	hm_free(&p->last);
	perf_meta_free(&p->m);
	free(p->name);
	free(p);
}

/* ---- which attr a record belongs to, and its time ---- */

static bool any_sample_id_all(const struct perf_data *p)
{
	return p->m.attrs[0].attr.sample_id_all;
}

/*
 * The attr index of a kernel record, or -1 when its id names none.  All
 * attrs of one perf session put the id at the same place (perf checks).
 */
static int rec_attr(const struct perf_data *p, const uint8_t *r, uint32_t size)
{
	uint64_t t = p->m.attrs[0].attr.sample_type, id;
	const uint8_t *body = r + 8;
	size_t blen = size - 8u;
	const struct perf_attr_info *a;
	int pos;

	if (p->m.nr_attrs == 1)
		return 0;
	if (rd32(r) == PERF_RECORD_SAMPLE) {
		pos = perf_sample_id_pos(t);
		if (pos < 0)
			return 0;
		if ((size_t)pos * 8 + 8 > blen)
			return -1;
		id = rd64(body + 8 * pos);
	} else {
		if (!any_sample_id_all(p))
			return 0;
		pos = perf_sample_id_pos_from_end(t);
		if (pos < 0)
			return 0;
		if ((size_t)pos * 8 > blen)
			return -1;
		id = rd64(body + blen - 8 * (size_t)pos);
	}
	if (!id)
		return 0;	/* synthesized records carry a zeroed sample_id: perf's first attr */
	a = perf_meta_attr_of(&p->m, id);
	return a ? (int)(a - p->m.attrs) : -1;
}

/* The record's time, or false when it has none (no TIME, no sample_id_all). */
static bool rec_time(const struct perf_data *p, const uint8_t *r, uint32_t size, int attr,
		     uint64_t *time)
{
	const struct perf_event_attr *a = &p->m.attrs[attr].attr;
	uint64_t t = a->sample_type;
	struct perf_sample s;
	size_t tr;

	if (!(t & PERF_SAMPLE_TIME))
		return false;
	if (rd32(r) == PERF_RECORD_SAMPLE) {
		size_t at = 8 * (size_t)(!!(t & PERF_SAMPLE_IDENTIFIER) + !!(t & PERF_SAMPLE_IP) +
					 !!(t & PERF_SAMPLE_TID));

		if (at + 8 > size - 8u)
			return false;
		*time = rd64(r + 8 + at);
		return true;
	}
	if (!a->sample_id_all || perf_sample_id_decode(t, r + 8, size - 8u, &s, &tr))
		return false;
	*time = s.time;
	return true;
}

/* ---- the ordering queue ---- */

static int qcmp(const void *x, const void *y)
{
	const struct qent *a = x, *b = y;

	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Make the waiting records with time <= limit ready, in time order. */
static void flush(struct perf_data *p, uint64_t limit)
{
	size_t i;

	if (p->qpos == p->qready && p->qpos) {
		memmove(p->q, p->q + p->qpos, (p->nq - p->qpos) * sizeof(*p->q));
		p->nq -= p->qpos;
		p->qpos = p->qready = 0;
	}
	if (p->nq > p->qready)
		qsort(p->q + p->qready, p->nq - p->qready, sizeof(*p->q), qcmp);
	for (i = p->qready; i < p->nq && p->q[i].time <= limit; i++)
		;
	p->qready = i;
}

static int enqueue(struct perf_data *p, const uint8_t *r, uint32_t size, uint64_t off,
		   bool copy)
{
	struct qent *e;
	uint64_t time;
	int attr = rec_attr(p, r, size);

	if (attr < 0) {
		p->unknown_id++;
		return 0;
	}
	if (!rec_time(p, r, size, attr, &time))
		time = p->max_time;	/* untimed: where it arrives */
	if (p->nq == p->capq) {
		size_t cap = p->capq ? p->capq * 2 : 4096;
		void *nq = realloc(p->q, cap * sizeof(*p->q));

		if (!nq)
			return -ENOMEM;
		p->q = nq;
		p->capq = cap;
	}
	e = &p->q[p->nq];
	*e = (struct qent){ time, p->seq++, r, off, size, (uint16_t)attr, false };
	if (copy) {
		/* inflated bytes are reused by the next COMPRESSED record */
		uint8_t *c = malloc(size);

		if (!c)
			return -ENOMEM;
		memcpy(c, r, size);
		e->rec = c;
		e->owned = true;
	}
	p->nq++;
	if (time > p->max_time)
		p->max_time = time;
	return 0;
}

/* ---- reading records ---- */

/* The reading stops here: damage at off.  Returns 0 (the queue still drains). */
static int stop_damaged(struct perf_data *p, uint64_t off, const char *what)
{
	pdiag(p, off, "%s; the rest of the file (%llu bytes) is not read", what,
	      (unsigned long long)(p->end > off ? p->end - off : 0));
	p->st->truncated = true;
	p->st->bytes_skipped += p->end > off ? p->end - off : 0;
	p->failed = true;
	p->input_done = true;
	return 0;
}

static int decompress(struct perf_data *p, const uint8_t *data, size_t len, uint64_t off)
{
	ZSTD_inBuffer in = { data, len, 0 };

	if (!p->zd && !(p->zd = ZSTD_createDCtx()))
		return -ENOMEM;
	if (p->dpos) {
		memmove(p->dbuf, p->dbuf + p->dpos, p->dlen - p->dpos);
		p->dlen -= p->dpos;
		p->dpos = 0;
	}
	while (in.pos < in.size) {
		ZSTD_outBuffer out;
		size_t rc;

		if (p->dcap - p->dlen < 65536) {
			size_t cap = p->dcap ? p->dcap * 2 : (size_t)1 << 20;
			uint8_t *nb;

			if (cap > DECOMP_MAX)
				return stop_damaged(p, off, "COMPRESSED record inflates to more than "
						    "its limit (docs/perf-data.md)");
			nb = realloc(p->dbuf, cap);
			if (!nb)
				return -ENOMEM;
			p->dbuf = nb;
			p->dcap = cap;
		}
		out = (ZSTD_outBuffer){ p->dbuf, p->dcap, p->dlen };
		rc = ZSTD_decompressStream(p->zd, &out, &in);
		if (ZSTD_isError(rc)) {
			char what[160];

			snprintf(what, sizeof(what), "COMPRESSED record: invalid zstd data (%s)",
				 ZSTD_getErrorName(rc));
			return stop_damaged(p, off, what);
		}
		p->inflated += out.pos - p->dlen;
		p->dlen = out.pos;
		if (p->inflated / DECOMP_RATIO > p->size)
			return stop_damaged(p, off, "COMPRESSED records inflate to more than 1024 "
					    "times the file's size: not a perf recording");
		if (!rc && in.pos < in.size)
			continue;	/* a frame ended, another follows */
	}
	p->doff = off;
	return 0;
}

static const char *urec_name(uint32_t type)
{
	static const char *const k[] = {
		[PERF_RECORD_READ] = "READ", [PERF_RECORD_AUX] = "AUX",
		[PERF_RECORD_ITRACE_START] = "ITRACE_START", [PERF_RECORD_SWITCH] = "SWITCH",
		[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
		[PERF_RECORD_NAMESPACES] = "NAMESPACES", [PERF_RECORD_KSYMBOL] = "KSYMBOL",
		[PERF_RECORD_BPF_EVENT] = "BPF_EVENT", [PERF_RECORD_CGROUP] = "CGROUP",
		[PERF_RECORD_TEXT_POKE] = "TEXT_POKE", [21] = "AUX_OUTPUT_HW_ID",
		[PERF_UREC_STAT_CONFIG] = "STAT_CONFIG", [PERF_UREC_STAT] = "STAT",
		[PERF_UREC_STAT_ROUND] = "STAT_ROUND",
		[PERF_UREC_HEADER_EVENT_TYPE] = "HEADER_EVENT_TYPE",
	};

	return type < ARRAY_SIZE(k) && k[type] ? k[type] : NULL;
}

/*
 * One record of the data (r, size bytes, at off).  Returns 0 or -errno; a
 * FINISHED_ROUND may have made records ready.
 */
static int take(struct perf_data *p, const uint8_t *r, uint32_t size, uint64_t off,
		bool nested)
{
	uint32_t type = rd32(r) & 0xffff;

	switch (type) {
	case PERF_UREC_FINISHED_ROUND:
		flush(p, p->next_flush);
		p->next_flush = p->max_time;
		return 0;
	case PERF_UREC_COMPRESSED:
	case PERF_UREC_COMPRESSED2: {
		size_t at = type == PERF_UREC_COMPRESSED ? 8 : 16;
		size_t len = size - at;

		if (nested || size < at)
			return stop_damaged(p, off, "COMPRESSED record inside compressed data or "
					    "shorter than its header");
		if (type == PERF_UREC_COMPRESSED2 && rd64(r + 8) <= len)
			len = rd64(r + 8);
		return decompress(p, r + at, len, off);
	}
	case PERF_UREC_AUXTRACE_INFO:
	case PERF_UREC_AUXTRACE:
	case PERF_UREC_AUXTRACE_ERROR:
		pdiag(p, off, "AUX area data (Intel PT, CoreSight, ARM SPE): not read by pmiprof; "
		      "decode it with 'perf script' or 'perf report'");
		return -EPROTONOSUPPORT;
	case PERF_UREC_ID_INDEX:
		/*
		 * { id, idx, cpu, tid }: idx is the mmap a counter wrote to, not
		 * its attr; the attrs' ids already say which event an id is.
		 */
		return 0;
	case PERF_UREC_HEADER_BUILD_ID:
		if (!p->pipe) {	/* a pipe's were gathered at open */
			const char *why = perf_meta_build_id(&p->m, r, size);

			if (why)
				pdiag(p, off, "%s; skipped", why);
		}
		return 0;
	case PERF_UREC_HEADER_ATTR:
	case PERF_UREC_HEADER_FEATURE:
	case PERF_UREC_EVENT_UPDATE:
	case PERF_UREC_HEADER_TRACING_DATA:
	case PERF_UREC_FINISHED_INIT:
	case PERF_UREC_THREAD_MAP:
	case PERF_UREC_CPU_MAP:
	case PERF_UREC_TIME_CONV:
		return 0;	/* gathered at open, a marker, or what was recorded on (no data) */
	case PERF_RECORD_SAMPLE:
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		return enqueue(p, r, size, off, nested);
	default:
		p->skipped[type < PERF_UREC_MAX ? type : 0]++;
		p->st->records_unknown++;
		return 0;
	}
}

/* Read records until some are ready or the input ends.  0 or -errno. */
static int fill(struct perf_data *p)
{
	int err;

	while (p->qpos == p->qready && !p->input_done) {
		struct perf_event_header eh;
		uint64_t span;

		/* records inflated from COMPRESSED ones first */
		if (p->dlen - p->dpos >= sizeof(eh)) {
			memcpy(&eh, p->dbuf + p->dpos, sizeof(eh));
			if (eh.size >= sizeof(eh) && eh.size <= p->dlen - p->dpos) {
				const uint8_t *r = p->dbuf + p->dpos;

				p->dpos += eh.size;
				err = take(p, r, eh.size, p->doff, true);
				if (err)
					return err;
				continue;
			}
			if (eh.size < sizeof(eh))
				return stop_damaged(p, p->doff, "record of size < 8 in compressed data");
		}
		if (p->pos >= p->end) {
			if (p->dlen > p->dpos)
				stop_damaged(p, p->doff, "compressed data ends inside a record");
			else if (p->pos > p->end)
				stop_damaged(p, p->end, "last record runs past the data section");
			p->input_done = true;
			break;
		}
		if (p->end - p->pos < sizeof(eh))
			return stop_damaged(p, p->pos, "file ends inside a record header");
		memcpy(&eh, p->buf + p->pos, sizeof(eh));
		if (eh.size < sizeof(eh))
			return stop_damaged(p, p->pos, "record of size < 8 (damaged data)");
		span = rec_span(&eh, p->buf + p->pos, p->end - p->pos);
		if (!span) {
			char what[128];

			snprintf(what, sizeof(what), "record of type %u and %u bytes runs past the "
				 "end of the data", eh.type, eh.size);
			return stop_damaged(p, p->pos, what);
		}
		p->pos += span;
		err = take(p, p->buf + p->pos - span, eh.size, p->pos - span, false);
		if (err)
			return err;
	}
	if (p->input_done && p->qpos == p->qready)
		flush(p, UINT64_MAX);
	return 0;
}

/* ---- perf records -> trace records ---- */

static struct trace_record *out_rec(struct perf_data *p, uint32_t type)
{
	struct trace_record *o = &p->out[p->nout++];

	memset(o, 0, sizeof(*o));
	o->type = type;
	o->chunk_seq = p->vchunk;
	return o;
}

/* The change of a counter since its previous read (perf: sid->period). */
static int read_delta(struct perf_data *p, uint64_t key, uint32_t tag, uint64_t value,
		      uint64_t *delta)
{
	uint32_t i = hm_get(&p->last, key, tag);

	if (i == HM_EMPTY) {
		if (pm_grow(&p->vals, &p->capvals, (uint64_t)p->nvals + 1, 64, sizeof(*p->vals)))
			return -ENOMEM;
		i = p->nvals++;
		p->vals[i] = 0;
		if (hm_put(&p->last, key, tag, i))
			return -ENOMEM;
	}
	*delta = value - p->vals[i];
	p->vals[i] = value;
	return 0;
}

static uint32_t cpumode_flags(uint16_t misc)
{
	switch (misc & PERF_RECORD_MISC_CPUMODE_MASK) {
	case PERF_RECORD_MISC_USER:
		return PMIPROF_SAMPLE_F_USER;
	case PERF_RECORD_MISC_KERNEL:
	case PERF_RECORD_MISC_HYPERVISOR:
		return PMIPROF_SAMPLE_F_KERNEL;
	case PERF_RECORD_MISC_GUEST_KERNEL:
	case PERF_RECORD_MISC_GUEST_USER:
		return PMIPROF_SAMPLE_F_GUEST;
	default:
		return 0;
	}
}

/*
 * A perf callchain (context markers, the sampled ip first) as a STACK:
 * kernel frames, then user frames, each leaf first, the sampled ip left
 * out.  Guest and hypervisor frames are not this machine's: dropped.
 */
static void callchain_stack(struct perf_data *p, const struct perf_sample *s,
			    struct trace_stack *st)
{
	uint64_t ctx = PERF_CONTEXT_MAX_, i, ip;
	uint32_t nk = 0, nu = 0, nr = 0;
	uint64_t *user = p->ips + PMIPROF_MAX_STACK / 2;
	bool first = true;

	for (i = 0; i < s->callchain_nr; i++) {
		ip = rd64(s->callchain + 8 * i);
		if (ip >= PERF_CONTEXT_MAX_) {
			ctx = ip;
			continue;
		}
		if (first) {
			first = false;
			if (ip == s->ip)
				continue;
		}
		if (ctx == PERF_CONTEXT_KERNEL && nk < PMIPROF_MAX_STACK / 2)
			p->ips[nk++] = ip;
		else if (ctx == PERF_CONTEXT_USER && nu < PMIPROF_MAX_STACK / 2)
			user[nu++] = ip;
	}
	memmove(p->ips + nk, user, nu * sizeof(*user));
	nr = nk + nu;
	*st = (struct trace_stack){ 0, nr, nk, p->ips };
}

static int deliver_sample(struct perf_data *p, const struct qent *e)
{
	const struct perf_attr_info *a = &p->m.attrs[e->attr];
	struct perf_event_header eh;
	struct trace_sample *ts;
	struct perf_sample s;
	const char *why;
	uint32_t i;
	int err;

	memcpy(&eh, e->rec, sizeof(eh));
	why = perf_sample_decode(&a->layout, e->rec + 8, e->size - 8u, &s);
	if (why) {
		struct trace_record *o;

		if (p->bad_samples++ < MAX_DIAG_SAMPLES)
			pdiag(p, e->off, "SAMPLE of %u bytes: %s; counted as lost", e->size, why);
		o = out_rec(p, PMIPROF_REC_LOST);
		o->lost = (struct trace_lost){ p->last_time, PMIPROF_CPU_NONE,
					       PMIPROF_LOST_UNREADABLE, 1, 0 };
		p->lost++;
		return 0;
	}
	if (a->event < 0) {
		p->skipped[PERF_RECORD_SAMPLE]++;
		p->st->records_unknown++;
		return 0;
	}
	if (s.callchain_nr) {
		struct trace_record *o = out_rec(p, PMIPROF_REC_STACK);

		p->vchunk++;	/* one STACK per virtual chunk: the stack table stays small */
		o->chunk_seq = p->vchunk;
		callchain_stack(p, &s, &o->stack);
	}
	ts = &out_rec(p, PMIPROF_REC_SAMPLE)->sample;
	ts->time = s.time;
	ts->ip = s.ip;
	ts->cpu = s.cpu;
	ts->pid = s.pid;
	ts->tid = s.tid;
	ts->flags = cpumode_flags(eh.misc);
	ts->nr = p->h->nr_events;
	ts->stack = s.callchain_nr ? 1 : 0;
	if (a->attr.sample_type & PERF_SAMPLE_READ) {
		/* each counter's change since its last read goes to its event (perf's rule) */
		for (i = 0; i < s.nr_read; i++) {
			const struct perf_read_value *v = &s.read[i];
			const struct perf_attr_info *va = a;
			uint64_t d;

			if (a->attr.read_format & PERF_FORMAT_ID)
				va = perf_meta_attr_of(&p->m, v->id);
			else if (i)
				va = e->attr + i < p->m.nr_attrs ? a + i : NULL;
			if (!va || va->event < 0)
				continue;
			err = (a->attr.read_format & PERF_FORMAT_ID) ?
			      read_delta(p, v->id, 0, v->value, &d) :
			      read_delta(p, ((uint64_t)s.tid << 16) | (uint64_t)va->event, 1,
					 v->value, &d);
			if (err)
				return err;
			ts->counts[va->event] += d;
		}
	} else {
		ts->counts[a->event] = (a->attr.sample_type & PERF_SAMPLE_PERIOD) ? s.period :
				       a->attr.sample_period;
	}
	p->samples++;
	if ((a->attr.sample_type & PERF_SAMPLE_REGS_USER) &&
	    (a->attr.sample_type & PERF_SAMPLE_STACK_USER)) {
		struct trace_ustack *u = &out_rec(p, PMIPROF_REC_USTACK)->ustack;
		uint32_t n = s.user_nr_regs <= PMIPROF_MAX_UREGS ? s.user_nr_regs : 0;

		u->abi = (uint32_t)s.user_abi;
		u->nr_regs = n;
		u->regs_mask = n ? a->attr.sample_regs_user : 0;
		memcpy(p->regs, s.user_regs ? s.user_regs : (const uint8_t *)p->regs, 8 * n);
		u->regs = p->regs;
		u->size = (uint32_t)(s.stack_dyn_size < PMIPROF_MAX_USTACK ? s.stack_dyn_size :
				     PMIPROF_MAX_USTACK);
		u->data = s.stack;
		if (!n)
			u->abi = 0;
	}
	return 0;
}

/* Copy a NUL-terminated string from [s, end) into out (cut at its size). */
static const char *str_at(const uint8_t *s, const uint8_t *end, char *out, size_t cap)
{
	size_t n = end > s ? strnlen((const char *)s, (size_t)(end - s)) : 0;

	if (n >= cap)
		n = cap - 1;
	memcpy(out, s, n);
	out[n] = '\0';
	return out;
}

static int deliver_mmap(struct perf_data *p, const struct qent *e, const struct perf_sample *id,
			size_t trailer)
{
	const uint8_t *r = e->rec, *end = e->rec + e->size - trailer;
	struct perf_event_header eh;
	bool two = rd32(r) == PERF_RECORD_MMAP2;
	size_t fixed = two ? 8 + 64 : 8 + 32;	/* where the file name starts */
	struct trace_mmap *m;
	const struct perf_build_id *b;

	memcpy(&eh, r, sizeof(eh));
	if ((size_t)(end - r) < fixed) {
		p->st->records_unknown++;
		p->skipped[0]++;
		pdiag(p, e->off, "MMAP record of %u bytes shorter than its fields; skipped",
		      e->size);
		return 0;
	}
	if (rd32(r + 8) == UINT32_MAX) {
		/* the kernel and its modules: the session places kernel ips itself */
		p->kernel_maps++;
		return 0;
	}
	m = &out_rec(p, PMIPROF_REC_MMAP)->mmap;
	m->time = id->time;
	m->pid = rd32(r + 8);
	m->tid = rd32(r + 12);
	m->start = rd64(r + 16);
	m->len = rd64(r + 24);
	m->pgoff = rd64(r + 32);
	if (two) {
		m->prot = rd32(r + 64);
		m->flags = rd32(r + 68);
		if (eh.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			m->build_id_len = r[40] <= 20 ? r[40] : 20;
			memcpy(m->build_id, r + 44, m->build_id_len);
		}
	} else if (eh.misc & PERF_RECORD_MISC_MMAP_DATA) {
		m->prot = PROT_READ;	/* data, never code: the session skips it */
	}
	m->path = str_at(r + fixed, end, p->path, sizeof(p->path));
	if (!m->build_id_len && (b = perf_meta_find_build_id(&p->m, m->path))) {
		m->build_id_len = b->len;
		memcpy(m->build_id, b->id, b->len);
	}
	return 0;
}

/* THROTTLE starts a pause of one event, UNTHROTTLE ends it: one LOST (THROTTLE) each. */
static void deliver_throttle(struct perf_data *p, const struct qent *e, const struct perf_sample *id)
{
	bool start = rd32(e->rec) == PERF_RECORD_THROTTLE;
	uint64_t time = e->size >= 16 ? rd64(e->rec + 8) : id->time;
	uint64_t ev = e->size >= 24 ? rd64(e->rec + 16) : 0;
	struct trace_record *o;
	uint32_t i;

	if (start && p->nthr < MAX_THROTTLES) {
		p->thr[p->nthr++] = (struct throttle){ ev, time };
		return;
	}
	for (i = 0; !start && i < p->nthr && p->thr[i].id != ev; i++)
		;
	if (!start && i == p->nthr)
		return;		/* an UNTHROTTLE of a pause not seen */
	o = out_rec(p, PMIPROF_REC_LOST);
	o->lost = (struct trace_lost){ time, (p->m.attrs[e->attr].attr.sample_type &
					      PERF_SAMPLE_CPU) ? id->cpu : PMIPROF_CPU_NONE,
				       PMIPROF_LOST_THROTTLE, 1, 0 };
	if (!start) {
		o->lost.time = p->thr[i].time;
		o->lost.duration = time > p->thr[i].time ? time - p->thr[i].time : 0;
		p->thr[i] = p->thr[--p->nthr];
	}
}

static int deliver(struct perf_data *p, const struct qent *e)
{
	const struct perf_event_attr *a = &p->m.attrs[e->attr].attr;
	uint32_t type = rd32(e->rec) & 0xffff;
	const uint8_t *r = e->rec;
	struct trace_record *o;
	struct perf_event_header eh;
	struct perf_sample id;
	size_t trailer = 0;

	if (type == PERF_RECORD_SAMPLE)
		return deliver_sample(p, e);
	memset(&id, 0, sizeof(id));
	if (a->sample_id_all && perf_sample_id_decode(a->sample_type, r + 8, e->size - 8u, &id,
						      &trailer)) {
		pdiag(p, e->off, "record of type %u and %u bytes shorter than its sample_id; "
		      "skipped", type, e->size);
		p->st->records_unknown++;
		return 0;
	}
	memcpy(&eh, r, sizeof(eh));
	switch (type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return deliver_mmap(p, e, &id, trailer);
	case PERF_RECORD_COMM:
		if (e->size - trailer < 16)
			break;
		o = out_rec(p, PMIPROF_REC_COMM);
		o->comm.time = id.time;
		o->comm.pid = rd32(r + 8);
		o->comm.tid = rd32(r + 12);
		o->comm.flags = (eh.misc & PERF_RECORD_MISC_COMM_EXEC) ? PMIPROF_COMM_F_EXEC : 0;
		o->comm.comm = str_at(r + 16, r + e->size - trailer, p->comm, sizeof(p->comm));
		return 0;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (e->size - trailer < 32)
			break;
		o = out_rec(p, type == PERF_RECORD_FORK ? PMIPROF_REC_FORK : PMIPROF_REC_EXIT);
		o->task = (struct trace_task){ rd64(r + 24), rd32(r + 8), rd32(r + 12),
					       rd32(r + 16), rd32(r + 20) };
		return 0;
	case PERF_RECORD_LOST:
		if (e->size - trailer < 24)
			break;
		o = out_rec(p, PMIPROF_REC_LOST);
		o->lost = (struct trace_lost){ id.time, (a->sample_type & PERF_SAMPLE_CPU) ?
					       id.cpu : PMIPROF_CPU_NONE, PMIPROF_LOST_RING_FULL,
					       rd64(r + 16), 0 };
		p->lost += o->lost.count;
		p->lost_ring += o->lost.count;
		return 0;
	case PERF_RECORD_LOST_SAMPLES:
		/*
		 * perf record writes these at its end from each counter's lost
		 * count (PERF_FORMAT_LOST): the same samples the LOST records
		 * already counted.  Their excess, if any, is added at the end.
		 */
		if (e->size - trailer < 16)
			break;
		p->lost_samples += rd64(r + 8);
		return 0;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		deliver_throttle(p, e, &id);
		return 0;
	default:
		break;
	}
	pdiag(p, e->off, "record of type %u and %u bytes shorter than its fields; skipped", type,
	      e->size);
	p->st->records_unknown++;
	return 0;
}

/* Said once at the end: what was read but not mapped. */
static void report_skipped(struct perf_data *p)
{
	char list[768] = "";
	size_t at = 0;
	uint32_t t;

	for (t = 0; t < PERF_UREC_MAX; t++) {
		const char *n = t == PERF_RECORD_SAMPLE ? "SAMPLE of a dummy event" : urec_name(t);
		char unk[32];

		if (!p->skipped[t])
			continue;
		if (!n) {
			snprintf(unk, sizeof(unk), "type %u", t);
			n = unk;
		}
		if (at < sizeof(list))
			at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%s %llu",
					       at ? ", " : "", n,
					       (unsigned long long)p->skipped[t]);
	}
	if (p->unknown_id && at < sizeof(list))
		at += (size_t)snprintf(list + at, sizeof(list) - at, "%srecords of an unknown event "
				       "id %llu", at ? ", " : "", (unsigned long long)p->unknown_id);
	if (p->bad_samples > MAX_DIAG_SAMPLES && at < sizeof(list))
		snprintf(list + at, sizeof(list) - at, "%sdamaged samples %llu (counted as lost)",
			 at ? ", " : "", (unsigned long long)p->bad_samples);
	if (list[0])
		pdiag(p, p->end, "perf records read but not used: %s (docs/perf-data.md)", list);
}

int perf_data_next(struct perf_data *p, struct trace_record *rec)
{
	int err;

	for (;;) {
		if (p->iout < p->nout) {
			*rec = p->out[p->iout++];
			p->st->records++;
			if (rec->type == PMIPROF_REC_SAMPLE)
				p->last_time = rec->sample.time;
			return 1;
		}
		p->nout = p->iout = 0;
		if (p->qpos < p->qready) {
			struct qent *e = &p->q[p->qpos++];

			err = deliver(p, e);
			if (e->owned)
				free((void *)e->rec);
			e->owned = false;
			if (err)
				return err;
			continue;
		}
		if (!p->input_done || p->qready < p->nq) {
			err = fill(p);
			if (err)
				return err;
			if (p->qpos < p->qready || !p->input_done)
				continue;
		}
		if (p->finish_sent)
			return 0;
		p->finish_sent = true;
		/* pauses that never ended, then the end */
		while (p->nthr && p->nout < ARRAY_SIZE(p->out)) {
			struct trace_record *o = out_rec(p, PMIPROF_REC_LOST);

			p->nthr--;
			o->lost = (struct trace_lost){ p->thr[p->nthr].time, PMIPROF_CPU_NONE,
						       PMIPROF_LOST_THROTTLE, 1, 0 };
			if (p->nthr)
				p->finish_sent = false;	/* more to hand out first */
		}
		if (p->nout)
			continue;
		report_skipped(p);
		if (p->lost_samples > p->lost_ring) {
			struct trace_record *o = out_rec(p, PMIPROF_REC_LOST);

			o->lost = (struct trace_lost){ p->last_time, PMIPROF_CPU_NONE,
						       PMIPROF_LOST_RING_FULL,
						       p->lost_samples - p->lost_ring, 0 };
			p->lost += o->lost.count;
		}
		if (p->failed) {
			struct trace_record *o = out_rec(p, PMIPROF_REC_LOST);

			o->lost = (struct trace_lost){ p->last_time, PMIPROF_CPU_NONE,
						       PMIPROF_LOST_TRUNCATED, 0, 0 };
		} else if (p->pipe || p->data_complete) {
			struct trace_record *o = out_rec(p, PMIPROF_REC_FINISH);

			o->finish = (struct trace_finish){ p->last_time, 0, 0, p->samples, p->lost };
			p->st->finished = true;
		}
		if (!p->nout)
			return 0;
	}
}
