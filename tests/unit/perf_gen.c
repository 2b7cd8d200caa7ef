// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data writer for tests (see perf_gen.h).  The layout follows perf's
 * documentation, not pmiprof's reader: the header's sections, attrs of
 * sizeof(struct perf_event_attr) with their id sections, feature sections
 * in bit order after the data, strings as u32 length + NUL-padded bytes.
 * Out of memory aborts: this is test code.
 */
#include "perf_gen.h"

#include <stdlib.h>
#include <string.h>

#include "perf_data_format.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

void pg_free(struct pgen *g)
{
	free(g->b);
	memset(g, 0, sizeof(*g));
}

void pg_put(struct pgen *g, const void *p, size_t n)
{
	if (g->len + n > g->cap) {
		size_t cap = g->cap ? g->cap : 4096;

		while (cap < g->len + n)
			cap *= 2;
		g->b = realloc(g->b, cap);
		if (!g->b)
			abort();
		g->cap = cap;
	}
	if (n)
		memcpy(g->b + g->len, p, n);
	g->len += n;
}

void pg_u64(struct pgen *g, uint64_t v)
{
	pg_put(g, &v, 8);
}

void pg_u32(struct pgen *g, uint32_t v)
{
	pg_put(g, &v, 4);
}

void pg_pad8(struct pgen *g)
{
	static const uint8_t z[8];

	pg_put(g, z, (8 - g->len % 8) % 8);
}

size_t pg_begin(struct pgen *g, uint32_t type, uint16_t misc)
{
	struct perf_event_header eh = { type, misc, 0 };
	size_t at = g->len;

	pg_put(g, &eh, sizeof(eh));
	return at;
}

void pg_end(struct pgen *g, size_t start)
{
	uint16_t size;

	pg_pad8(g);
	size = (uint16_t)(g->len - start);
	memcpy(g->b + start + 6, &size, 2);
}

void pg_sid(struct pgen *g, uint64_t t, const struct pg_sid *s)
{
	if (t & PERF_SAMPLE_TID) {
		pg_u32(g, s->pid);
		pg_u32(g, s->tid);
	}
	if (t & PERF_SAMPLE_TIME)
		pg_u64(g, s->time);
	if (t & PERF_SAMPLE_ID)
		pg_u64(g, s->id);
	if (t & PERF_SAMPLE_STREAM_ID)
		pg_u64(g, s->stream_id);
	if (t & PERF_SAMPLE_CPU) {
		pg_u32(g, s->cpu);
		pg_u32(g, 0);
	}
	if (t & PERF_SAMPLE_IDENTIFIER)
		pg_u64(g, s->id);
}

/* A NUL-terminated string padded to 8 bytes, as the kernel writes names in records. */
static void name8(struct pgen *g, const char *s)
{
	pg_put(g, s, strlen(s) + 1);
	pg_pad8(g);
}

void pg_comm(struct pgen *g, uint64_t st, uint32_t pid, uint32_t tid, const char *comm, int exec,
	     const struct pg_sid *s)
{
	size_t at = pg_begin(g, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);

	pg_u32(g, pid);
	pg_u32(g, tid);
	name8(g, comm);
	pg_sid(g, st, s);
	pg_end(g, at);
}

void pg_mmap(struct pgen *g, uint64_t st, uint32_t pid, uint64_t start, uint64_t len,
	     uint64_t pgoff, const char *path, const struct pg_sid *s)
{
	size_t at = pg_begin(g, PERF_RECORD_MMAP, PERF_RECORD_MISC_USER);

	pg_u32(g, pid);
	pg_u32(g, pid);
	pg_u64(g, start);
	pg_u64(g, len);
	pg_u64(g, pgoff);
	name8(g, path);
	pg_sid(g, st, s);
	pg_end(g, at);
}

void pg_mmap2(struct pgen *g, uint64_t st, uint32_t pid, uint64_t start, uint64_t len,
	      uint64_t pgoff, uint32_t prot, const uint8_t *bid, uint8_t bid_len, const char *path,
	      const struct pg_sid *s)
{
	size_t at = pg_begin(g, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER |
			     (bid_len ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0));
	uint8_t u[24] = { 0 };

	pg_u32(g, pid);
	pg_u32(g, pid);
	pg_u64(g, start);
	pg_u64(g, len);
	pg_u64(g, pgoff);
	if (bid_len) {
		u[0] = bid_len;		/* build_id_size, 3 reserved bytes, build_id[20] */
		memcpy(u + 4, bid, bid_len);
	} else {
		u[0] = 8;		/* maj 8, min 1, ino 1234, ino_generation 0 */
		u[4] = 1;
		u[8] = 0xd2;
		u[9] = 0x04;
	}
	pg_put(g, u, sizeof(u));
	pg_u32(g, prot);
	pg_u32(g, 2);			/* MAP_PRIVATE */
	name8(g, path);
	pg_sid(g, st, s);
	pg_end(g, at);
}

void pg_task(struct pgen *g, uint64_t st, uint32_t type, uint32_t pid, uint32_t ppid,
	     uint32_t tid, uint32_t ptid, uint64_t time, const struct pg_sid *s)
{
	size_t at = pg_begin(g, type, 0);

	pg_u32(g, pid);
	pg_u32(g, ppid);
	pg_u32(g, tid);
	pg_u32(g, ptid);
	pg_u64(g, time);
	pg_sid(g, st, s);
	pg_end(g, at);
}

void pg_lost(struct pgen *g, uint64_t st, uint64_t id, uint64_t lost, const struct pg_sid *s)
{
	size_t at = pg_begin(g, PERF_RECORD_LOST, 0);

	pg_u64(g, id);
	pg_u64(g, lost);
	pg_sid(g, st, s);
	pg_end(g, at);
}

void pg_lost_samples(struct pgen *g, uint64_t st, uint64_t lost, const struct pg_sid *s)
{
	size_t at = pg_begin(g, PERF_RECORD_LOST_SAMPLES, 0);

	pg_u64(g, lost);
	pg_sid(g, st, s);
	pg_end(g, at);
}

void pg_throttle(struct pgen *g, uint64_t st, int unthrottle, uint64_t time, uint64_t id,
		 const struct pg_sid *s)
{
	size_t at = pg_begin(g, unthrottle ? PERF_RECORD_UNTHROTTLE : PERF_RECORD_THROTTLE, 0);

	pg_u64(g, time);
	pg_u64(g, id);
	pg_u64(g, id);			/* stream_id */
	pg_sid(g, st, s);
	pg_end(g, at);
}

void pg_round(struct pgen *g)
{
	pg_end(g, pg_begin(g, PERF_UREC_FINISHED_ROUND, 0));
}

void pg_build_id(struct pgen *g, uint32_t type, uint16_t cpumode, int32_t pid,
		 const uint8_t *bid, uint8_t bid_len, const char *path)
{
	size_t at = pg_begin(g, type, cpumode | PERF_MISC_BUILD_ID_SIZE);
	uint8_t b[24] = { 0 };

	memcpy(b, bid, bid_len);
	b[20] = bid_len;
	pg_put(g, &pid, 4);
	pg_put(g, b, sizeof(b));
	pg_put(g, path, strlen(path) + 1);
	pg_pad8(g);
	pg_end(g, at);
}

/* perf_header_string: u32 length (NUL and padding to 64 included), the bytes. */
static void hstring(struct pgen *g, const char *s)
{
	uint32_t len = (uint32_t)((strlen(s) + 1 + 63) / 64 * 64);
	size_t at;

	pg_u32(g, len);
	at = g->len;
	pg_put(g, s, strlen(s) + 1);
	while (g->len < at + len)
		pg_put(g, "", 1);
}

/* One feature's bytes, or nothing when f does not give it. */
static int feature(struct pgen *g, uint32_t feat, const struct pg_attr *attrs, uint32_t nr,
		   const struct pg_feat *f, uint32_t attr_size)
{
	uint32_t i;

	switch (feat) {
	case PERF_FEAT_BUILD_ID:
		if (!f->build_ids)
			return 0;
		pg_put(g, f->build_ids, f->build_ids_len);
		return 1;
	case PERF_FEAT_HOSTNAME: if (!f->hostname) return 0; hstring(g, f->hostname); return 1;
	case PERF_FEAT_OSRELEASE: if (!f->osrelease) return 0; hstring(g, f->osrelease); return 1;
	case PERF_FEAT_VERSION: if (!f->version) return 0; hstring(g, f->version); return 1;
	case PERF_FEAT_ARCH: if (!f->arch) return 0; hstring(g, f->arch); return 1;
	case PERF_FEAT_CPUDESC: if (!f->cpudesc) return 0; hstring(g, f->cpudesc); return 1;
	case PERF_FEAT_CPUID: if (!f->cpuid) return 0; hstring(g, f->cpuid); return 1;
	case PERF_FEAT_NRCPUS:
		if (!f->nr_cpus)
			return 0;
		pg_u32(g, f->nr_cpus);	/* available */
		pg_u32(g, f->nr_cpus);	/* online */
		return 1;
	case PERF_FEAT_CMDLINE:
		if (!f->argc)
			return 0;
		pg_u32(g, f->argc);
		for (i = 0; i < f->argc; i++)
			hstring(g, f->argv[i]);
		return 1;
	case PERF_FEAT_EVENT_DESC:
		pg_u32(g, nr);
		pg_u32(g, attr_size);
		for (i = 0; i < nr; i++) {
			uint32_t k;

			pg_put(g, &attrs[i].attr, attr_size);
			pg_u32(g, attrs[i].nr_ids);
			hstring(g, attrs[i].name ? attrs[i].name : "");
			for (k = 0; k < attrs[i].nr_ids; k++)
				pg_u64(g, attrs[i].ids[k]);
		}
		return 1;
	default:
		return 0;
	}
}

static const uint32_t feats[] = {
	PERF_FEAT_BUILD_ID, PERF_FEAT_HOSTNAME, PERF_FEAT_OSRELEASE, PERF_FEAT_VERSION,
	PERF_FEAT_ARCH, PERF_FEAT_NRCPUS, PERF_FEAT_CPUDESC, PERF_FEAT_CPUID, PERF_FEAT_CMDLINE,
	PERF_FEAT_EVENT_DESC,
};

void pgen_file(struct pgen *out, const struct pg_attr *attrs, uint32_t nr_attrs,
	       const uint8_t *data, size_t dlen, const struct pg_feat *f)
{
	pgen_file_attr_size(out, attrs, nr_attrs, data, dlen, f, sizeof(struct perf_event_attr));
}

void pgen_file_attr_size(struct pgen *out, const struct pg_attr *attrs, uint32_t nr_attrs,
			 const uint8_t *data, size_t dlen, const struct pg_feat *f,
			 uint32_t attr_size)
{
	struct perf_file_header fh = { 0 };
	uint64_t ids_at[64];
	struct pgen body[ARRAY_LEN(feats)];
	uint32_t i, k, nf = 0;
	uint64_t at;

	memset(body, 0, sizeof(body));
	pg_put(out, &fh, sizeof(fh));
	for (i = 0; i < nr_attrs; i++) {
		ids_at[i] = out->len;
		for (k = 0; k < attrs[i].nr_ids; k++)
			pg_u64(out, attrs[i].ids[k]);
	}
	fh.magic = PERF_DATA_MAGIC;
	fh.size = sizeof(fh);
	fh.attr_size = attr_size + sizeof(struct perf_file_section);
	fh.attrs.offset = out->len;
	fh.attrs.size = nr_attrs * fh.attr_size;
	for (i = 0; i < nr_attrs; i++) {
		struct perf_file_section s = { ids_at[i], attrs[i].nr_ids * 8ull };
		struct perf_event_attr a = attrs[i].attr;

		a.size = attr_size;	/* an older perf's attr: the fields it knew */
		pg_put(out, &a, attr_size);
		pg_put(out, &s, sizeof(s));
	}
	fh.data.offset = out->len;
	fh.data.size = dlen;
	pg_put(out, data, dlen);
	for (i = 0; i < ARRAY_LEN(feats); i++) {
		if (feature(&body[nf], feats[i], attrs, nr_attrs, f, attr_size)) {
			fh.features[feats[i] / 64] |= 1ull << (feats[i] % 64);
			nf++;
		} else {
			pg_free(&body[nf]);
		}
	}
	/* the section table, then the sections */
	at = out->len + nf * sizeof(struct perf_file_section);
	for (i = 0; i < nf; i++) {
		struct perf_file_section s = { at, body[i].len };

		pg_put(out, &s, sizeof(s));
		at += body[i].len;
	}
	for (i = 0; i < nf; i++) {
		pg_put(out, body[i].b, body[i].len);
		pg_free(&body[i]);
	}
	memcpy(out->b, &fh, sizeof(fh));
}

void pgen_pipe(struct pgen *out, const struct pg_attr *attrs, uint32_t nr_attrs,
	       const uint8_t *data, size_t dlen, const struct pg_feat *f)
{
	uint64_t magic = PERF_DATA_MAGIC;
	uint32_t i, k;
	size_t at, off;

	pg_put(out, &magic, 8);
	pg_u64(out, 16);
	for (i = 0; i < nr_attrs; i++) {
		at = pg_begin(out, PERF_UREC_HEADER_ATTR, 0);
		pg_put(out, &attrs[i].attr, sizeof(attrs[i].attr));
		for (k = 0; k < attrs[i].nr_ids; k++)
			pg_u64(out, attrs[i].ids[k]);
		pg_end(out, at);
	}
	for (i = 0; i < ARRAY_LEN(feats); i++) {
		struct pgen b = { 0 };

		if (feats[i] == PERF_FEAT_BUILD_ID ||
		    !feature(&b, feats[i], attrs, nr_attrs, f, sizeof(struct perf_event_attr))) {
			pg_free(&b);
			continue;
		}
		at = pg_begin(out, PERF_UREC_HEADER_FEATURE, 0);
		pg_u64(out, feats[i]);
		pg_put(out, b.b, b.len);
		pg_end(out, at);
		pg_free(&b);
	}
	pg_end(out, pg_begin(out, PERF_UREC_FINISHED_INIT, 0));
	pg_put(out, data, dlen);
	/* a pipe's build-ids come at its end, as HEADER_BUILD_ID records */
	off = out->len;
	if (f->build_ids)
		pg_put(out, f->build_ids, f->build_ids_len);
	while (off < out->len) {
		uint32_t type = PERF_UREC_HEADER_BUILD_ID;
		uint16_t size;

		memcpy(out->b + off, &type, 4);
		memcpy(&size, out->b + off + 6, 2);
		off += size;
	}
}
