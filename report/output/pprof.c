// SPDX-License-Identifier: GPL-2.0
/*
 * pprof profile.proto encoder (see pprof.h).  Field numbers are those of
 * github.com/google/pprof proto/profile.proto; the comments name them.
 * Samples are encoded and gzip'd as they come so a profile with one Sample
 * per window never holds the samples in memory.
 */
#include "output/pprof.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "hashmap.h"
#include "strtab.h"
#include "varint.h"

/* profile.proto field numbers */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3, PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6, PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10, PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12,
	PROFILE_COMMENT = 13, PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3,
	LABEL_KEY = 1, LABEL_STR = 2, LABEL_NUM = 3, LABEL_NUM_UNIT = 4,
	MAPPING_ID = 1, MAPPING_MEMORY_START = 2, MAPPING_MEMORY_LIMIT = 3,
	MAPPING_FILE_OFFSET = 4, MAPPING_FILENAME = 5, MAPPING_BUILD_ID = 6,
	MAPPING_HAS_FUNCTIONS = 7, MAPPING_HAS_FILENAMES = 8, MAPPING_HAS_LINE_NUMBERS = 9,
	MAPPING_HAS_INLINE_FRAMES = 10,
	LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3, LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1, LINE_LINE = 2,
	FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4,
};
enum { WT_VARINT = 0, WT_LEN = 2 };

#define PPROF_MAX_VALUES 64
#define FLUSH_AT (64u << 10)

/* A growable byte buffer; an allocation failure sticks in err. */
struct pbuf {
	uint8_t *b;
	size_t n;
	uint32_t cap;		/* flushed at FLUSH_AT: far below 4 GiB */
	int err;
};

static uint8_t *pb_room(struct pbuf *b, size_t need)
{
	if (b->err)
		return NULL;
	if (pm_grow(&b->b, &b->cap, (uint64_t)b->n + need, 256, 1)) {
		b->err = -ENOMEM;
		return NULL;
	}
	return b->b + b->n;
}

static void pb_varint(struct pbuf *b, uint64_t v)
{
	uint8_t *p = pb_room(b, VARINT_MAX);

	if (p)
		b->n = (size_t)(varint_put(p, v) - b->b);
}

static void pb_bytes(struct pbuf *b, const void *d, size_t len)
{
	uint8_t *p = pb_room(b, len);

	if (p && len) {
		memcpy(p, d, len);
		b->n += len;
	}
}

static void pb_key(struct pbuf *b, unsigned int field, unsigned int wt)
{
	pb_varint(b, (uint64_t)field << 3 | wt);
}

/* proto3 leaves zero scalars out. */
static void pb_uint(struct pbuf *b, unsigned int field, uint64_t v)
{
	if (!v)
		return;
	pb_key(b, field, WT_VARINT);
	pb_varint(b, v);
}

static void pb_int(struct pbuf *b, unsigned int field, int64_t v)
{
	pb_uint(b, field, (uint64_t)v);	/* int64: two's complement, 10 bytes if negative */
}

static void pb_len(struct pbuf *b, unsigned int field, const void *d, size_t len)
{
	pb_key(b, field, WT_LEN);
	pb_varint(b, len);
	pb_bytes(b, d, len);
}

/* A nested message built in sub, appended to b as field, sub emptied. */
static void pb_msg(struct pbuf *b, unsigned int field, struct pbuf *sub)
{
	if (sub->err && !b->err)
		b->err = sub->err;
	pb_len(b, field, sub->b, sub->n);
	sub->n = 0;
}

struct pp_mapping {
	uint64_t start, limit, offset;
	int64_t file, build_id;
	bool used;
	bool fixed;			/* a recorded mmap: the range does not grow */
};

struct pp_function {
	int64_t name, system_name, file;
};

struct pp_location {
	uint64_t mapping, addr;
	uint32_t line0, nr_lines;
};

struct pprof {
	char *path;
	gzFile gz;
	int err;			/* first error, sticky */
	struct pbuf out;		/* samples not yet gzip'd */
	struct pbuf msg, sub;		/* scratch for nested messages */
	struct strtab strings;
	int64_t types[PPROF_MAX_VALUES][2];
	uint32_t nr_types;
	int64_t period_type[2], period;
	bool have_period;
	uint32_t default_type;
	bool have_default;
	int64_t time_nanos, duration_nanos;
	int64_t *comments;
	uint32_t nr_comments;
	struct pp_mapping *maps;
	uint32_t nr_maps, cap_maps;
	struct hashmap map_ids;		/* caller's key -> mapping index */
	struct pp_function *funcs;
	uint32_t nr_funcs, cap_funcs;
	struct hashmap func_ids;	/* (name, file), tag -> index */
	struct pp_location *locs;
	uint32_t nr_locs, cap_locs;
	struct pprof_line *lines;
	uint32_t nr_lines, cap_lines;
	uint64_t nr_samples;
	uint64_t main_mapping;		/* written with id 1 (ids swapped with it) */
	int64_t label_unit;		/* "index" */
};

/* Grows *arr (of n elements of size sz, capacity *cap) for one more. */
static int grow(void *arr, uint32_t n, uint32_t *cap, size_t sz)
{
	void **a = arr, *na;
	uint32_t nc;

	if (n < *cap)
		return 0;
	if (*cap >= UINT32_MAX / 2)
		return -EOVERFLOW;
	nc = *cap ? *cap * 2 : 64;
	na = realloc(*a, (size_t)nc * sz);
	if (!na)
		return -ENOMEM;
	*a = na;
	*cap = nc;
	return 0;
}

static int fail(struct pprof *p, int err)
{
	if (!p->err)
		p->err = err;
	return err;
}

int pprof_open(struct pprof **out, const char *path)
{
	struct pprof *p = calloc(1, sizeof(*p));
	int rc = -ENOMEM;

	*out = NULL;
	if (!p)
		return -ENOMEM;
	p->path = strdup(path);
	if (!p->path || strtab_init(&p->strings) || hm_init(&p->map_ids, 64) ||
	    hm_init(&p->func_ids, 1024) ||
	    strtab_intern(&p->strings, "") != 0)
		goto err;
	/* the window label's unit, interned early as it always was (string ids) */
	if (strtab_intern(&p->strings, "index") < 0)
		goto err;
	/* zlib opens with fopen semantics: errno tells why it could not. */
	errno = 0;
	p->gz = gzopen(path, "wb6");
	if (!p->gz) {
		rc = errno ? -errno : -ENOMEM;
		goto err;
	}
	*out = p;
	return 0;
err:
	if (p->gz)
		gzclose(p->gz);
	hm_free(&p->func_ids);
	hm_free(&p->map_ids);
	strtab_free(&p->strings);
	free(p->path);
	free(p);
	return rc;
}

int64_t pprof_string(struct pprof *p, const char *s)
{
	int64_t id = strtab_intern(&p->strings, s ? s : "");

	return id < 0 ? fail(p, (int)id) : id;
}

static int value_type(struct pprof *p, int64_t vt[2], const char *type, const char *unit)
{
	vt[0] = pprof_string(p, type);
	vt[1] = pprof_string(p, unit);
	return vt[0] < 0 || vt[1] < 0 ? -ENOMEM : 0;
}

int pprof_sample_type(struct pprof *p, const char *type, const char *unit)
{
	if (p->nr_types == PPROF_MAX_VALUES)
		return fail(p, -E2BIG);
	if (p->nr_samples)
		return fail(p, -EINVAL);	/* samples already have their values */
	return value_type(p, p->types[p->nr_types++], type, unit);
}

int pprof_period_type(struct pprof *p, const char *type, const char *unit, int64_t period)
{
	p->have_period = true;
	p->period = period;
	return value_type(p, p->period_type, type, unit);
}

void pprof_default_type(struct pprof *p, uint32_t index)
{
	p->default_type = index;
	p->have_default = true;
}

void pprof_times(struct pprof *p, int64_t time_nanos, int64_t duration_nanos)
{
	p->time_nanos = time_nanos;
	p->duration_nanos = duration_nanos;
}

int pprof_comment(struct pprof *p, const char *s)
{
	int64_t id = pprof_string(p, s), *nc;

	if (id < 0)
		return (int)id;
	nc = realloc(p->comments, (p->nr_comments + 1) * sizeof(*nc));
	if (!nc)
		return fail(p, -ENOMEM);
	p->comments = nc;
	p->comments[p->nr_comments++] = id;
	return 0;
}

int64_t pprof_mapping(struct pprof *p, uint64_t key, uint32_t tag, const char *file,
		      const char *build_id, const struct pprof_range *range)
{
	uint32_t i = hm_get(&p->map_ids, key, tag);
	struct pp_mapping *m;
	int rc;

	if (i != HM_EMPTY)
		return (int64_t)i + 1;
	rc = grow(&p->maps, p->nr_maps, &p->cap_maps, sizeof(*p->maps));
	if (rc)
		return fail(p, rc);
	m = &p->maps[p->nr_maps];
	memset(m, 0, sizeof(*m));
	m->file = pprof_string(p, file);
	m->build_id = pprof_string(p, build_id);
	if (m->file < 0 || m->build_id < 0)
		return -ENOMEM;
	if (range) {
		m->start = range->start;
		m->limit = range->limit;
		m->offset = range->offset;
		m->fixed = true;
	}
	if (hm_put(&p->map_ids, key, tag, p->nr_maps))
		return fail(p, -ENOMEM);
	return ++p->nr_maps;
}

uint64_t pprof_location_mapping(const struct pprof *p, uint64_t location)
{
	return location && location <= p->nr_locs ? p->locs[location - 1].mapping : 0;
}

void pprof_main_mapping(struct pprof *p, uint64_t mapping)
{
	if (mapping && mapping <= p->nr_maps)
		p->main_mapping = mapping;
}

/* Mapping ids as written: pprof takes the first mapping for the main binary. */
static uint64_t mapping_out(const struct pprof *p, uint64_t id)
{
	if (!p->main_mapping || !id)
		return id;
	return id == p->main_mapping ? 1 : id == 1 ? p->main_mapping : id;
}

int64_t pprof_function(struct pprof *p, const char *name, const char *system_name,
		       const char *file, uint32_t tag)
{
	int64_t n = pprof_string(p, name), sn = pprof_string(p, system_name);
	int64_t f = pprof_string(p, file);
	uint64_t key;
	uint32_t i;
	int rc;

	if (n < 0 || sn < 0 || f < 0)
		return -ENOMEM;
	key = (uint64_t)n | (uint64_t)f << 32;
	/* system_name follows from (name, tag): the tag is what tells two apart */
	i = hm_get(&p->func_ids, key, tag);
	if (i != HM_EMPTY)
		return (int64_t)i + 1;
	rc = grow(&p->funcs, p->nr_funcs, &p->cap_funcs, sizeof(*p->funcs));
	if (rc)
		return fail(p, rc);
	p->funcs[p->nr_funcs] = (struct pp_function){ n, sn, f };
	if (hm_put(&p->func_ids, key, tag, p->nr_funcs))
		return fail(p, -ENOMEM);
	return ++p->nr_funcs;
}

uint32_t pprof_nr_functions(const struct pprof *p)
{
	return p->nr_funcs;
}

int pprof_function_rename(struct pprof *p, int64_t id, const char *name)
{
	int64_t n = pprof_string(p, name);

	if (n < 0)
		return -ENOMEM;
	if (id < 1 || id > p->nr_funcs)
		return -EINVAL;
	p->funcs[id - 1].name = n;
	return 0;
}

int64_t pprof_location(struct pprof *p, uint64_t mapping, uint64_t addr,
		       const struct pprof_line *lines, uint32_t nr_lines)
{
	struct pp_location *l;
	uint32_t k;
	int rc;

	if (mapping > p->nr_maps)
		return fail(p, -EINVAL);
	for (k = 0; k < nr_lines; k++) {
		if (!lines[k].function || lines[k].function > p->nr_funcs)
			return fail(p, -EINVAL);
		rc = grow(&p->lines, p->nr_lines, &p->cap_lines, sizeof(*p->lines));
		if (rc)
			return fail(p, rc);
		p->lines[p->nr_lines++] = lines[k];
	}
	rc = grow(&p->locs, p->nr_locs, &p->cap_locs, sizeof(*p->locs));
	if (rc)
		return fail(p, rc);
	l = &p->locs[p->nr_locs];
	*l = (struct pp_location){ mapping, addr, p->nr_lines - nr_lines, nr_lines };
	if (mapping && !p->maps[mapping - 1].fixed) {
		struct pp_mapping *m = &p->maps[mapping - 1];

		if (!m->used || addr < m->start)
			m->start = addr;
		if (!m->used || addr >= m->limit)
			m->limit = addr + 1;
		m->used = true;
	}
	return ++p->nr_locs;
}

static int flush_out(struct pprof *p)
{
	if (p->out.err)
		return fail(p, p->out.err);
	if (p->out.n && !p->err) {
		if (gzwrite(p->gz, p->out.b, (unsigned int)p->out.n) != (int)p->out.n) {
			int zerr;

			gzerror(p->gz, &zerr);
			return fail(p, zerr == Z_ERRNO && errno ? -errno : -EIO);
		}
	}
	p->out.n = 0;
	return p->err;
}

int pprof_sample(struct pprof *p, const uint64_t *locs, uint32_t nr_locs,
		 const int64_t *values, const struct pprof_label *labels, uint32_t nr_labels)
{
	struct pbuf *m = &p->msg, *s = &p->sub;
	uint32_t k;

	if (p->err)
		return p->err;
	for (k = 0; k < nr_locs; k++) {
		if (!locs[k] || locs[k] > p->nr_locs)
			return fail(p, -EINVAL);
		pb_varint(s, locs[k]);
	}
	if (nr_locs)
		pb_msg(m, SAMPLE_LOCATION_ID, s);	/* packed repeated uint64 */
	for (k = 0; k < p->nr_types; k++)
		pb_varint(s, (uint64_t)values[k]);
	if (p->nr_types)
		pb_msg(m, SAMPLE_VALUE, s);		/* packed repeated int64 */
	for (k = 0; k < nr_labels; k++) {
		const struct pprof_label *l = &labels[k];
		int64_t key = pprof_string(p, l->key);
		int64_t str = l->str ? pprof_string(p, l->str) : 0;
		int64_t unit = !l->str && l->unit ? pprof_string(p, l->unit) : 0;

		if (key < 0 || str < 0 || unit < 0)
			return fail(p, -ENOMEM);
		pb_uint(s, LABEL_KEY, (uint64_t)key);
		if (l->str) {
			pb_uint(s, LABEL_STR, (uint64_t)str);
		} else {
			pb_key(s, LABEL_NUM, WT_VARINT);	/* 0 is a value here: always written */
			pb_varint(s, (uint64_t)l->num);
			pb_uint(s, LABEL_NUM_UNIT, (uint64_t)unit);
		}
		pb_msg(m, SAMPLE_LABEL, s);
	}
	pb_msg(&p->out, PROFILE_SAMPLE, m);
	p->nr_samples++;
	if (p->out.err)
		return fail(p, p->out.err);
	return p->out.n >= FLUSH_AT ? flush_out(p) : 0;
}

static void put_value_type(struct pprof *p, unsigned int field, const int64_t vt[2])
{
	pb_int(&p->sub, VALUE_TYPE_TYPE, vt[0]);
	pb_int(&p->sub, VALUE_TYPE_UNIT, vt[1]);
	pb_msg(&p->out, field, &p->sub);
}

/* Everything but the samples, in profile.proto's field order. */
static int write_tables(struct pprof *p)
{
	struct pbuf *o = &p->out, *m = &p->msg, *s = &p->sub;
	uint32_t i, k;

	for (i = 0; i < p->nr_types; i++)
		put_value_type(p, PROFILE_SAMPLE_TYPE, p->types[i]);
	for (i = 0; i < p->nr_maps; i++) {
		/* In id order, so that the main mapping, id 1, comes first. */
		uint64_t id = i + 1;
		const struct pp_mapping *mp = &p->maps[mapping_out(p, id) - 1];

		pb_uint(m, MAPPING_ID, id);
		pb_uint(m, MAPPING_MEMORY_START, mp->start);
		pb_uint(m, MAPPING_MEMORY_LIMIT, mp->limit);
		pb_uint(m, MAPPING_FILE_OFFSET, mp->offset);
		pb_int(m, MAPPING_FILENAME, mp->file);
		pb_int(m, MAPPING_BUILD_ID, mp->build_id);
		/* Symbolized here: viewers must not look the addresses up again. */
		pb_uint(m, MAPPING_HAS_FUNCTIONS, 1);
		pb_uint(m, MAPPING_HAS_FILENAMES, 1);
		pb_uint(m, MAPPING_HAS_LINE_NUMBERS, 1);
		pb_uint(m, MAPPING_HAS_INLINE_FRAMES, 1);
		pb_msg(o, PROFILE_MAPPING, m);
		if (flush_out(p))
			return p->err;
	}
	for (i = 0; i < p->nr_locs; i++) {
		const struct pp_location *l = &p->locs[i];

		pb_uint(m, LOCATION_ID, i + 1);
		pb_uint(m, LOCATION_MAPPING_ID, mapping_out(p, l->mapping));
		pb_uint(m, LOCATION_ADDRESS, l->addr);
		for (k = 0; k < l->nr_lines; k++) {
			const struct pprof_line *ln = &p->lines[l->line0 + k];

			pb_uint(s, LINE_FUNCTION_ID, ln->function);
			pb_int(s, LINE_LINE, ln->line);
			pb_msg(m, LOCATION_LINE, s);
		}
		pb_msg(o, PROFILE_LOCATION, m);
		if (o->n >= FLUSH_AT && flush_out(p))
			return p->err;
	}
	for (i = 0; i < p->nr_funcs; i++) {
		const struct pp_function *f = &p->funcs[i];

		pb_uint(m, FUNCTION_ID, i + 1);
		pb_int(m, FUNCTION_NAME, f->name);
		pb_int(m, FUNCTION_SYSTEM_NAME, f->system_name);
		pb_int(m, FUNCTION_FILENAME, f->file);
		pb_msg(o, PROFILE_FUNCTION, m);
		if (o->n >= FLUSH_AT && flush_out(p))
			return p->err;
	}
	for (i = 0; i < p->strings.n; i++) {
		const char *str = strtab_str(&p->strings, i);

		pb_len(o, PROFILE_STRING_TABLE, str, strlen(str));	/* "" too: index 0 */
		if (o->n >= FLUSH_AT && flush_out(p))
			return p->err;
	}
	pb_int(o, PROFILE_TIME_NANOS, p->time_nanos);
	pb_int(o, PROFILE_DURATION_NANOS, p->duration_nanos);
	if (p->have_period) {
		put_value_type(p, PROFILE_PERIOD_TYPE, p->period_type);
		pb_int(o, PROFILE_PERIOD, p->period);
	}
	if (p->nr_comments) {
		for (i = 0; i < p->nr_comments; i++)
			pb_varint(s, (uint64_t)p->comments[i]);
		pb_msg(o, PROFILE_COMMENT, s);		/* packed repeated int64 */
	}
	if (p->have_default)
		pb_int(o, PROFILE_DEFAULT_SAMPLE_TYPE, p->types[p->default_type][0]);
	if (m->err || s->err)
		return fail(p, -ENOMEM);
	return flush_out(p);
}

int pprof_close(struct pprof *p, bool commit)
{
	int rc;

	if (commit && !p->err)
		write_tables(p);
	else
		flush_out(p);
	rc = gzclose(p->gz);
	if (rc != Z_OK && !p->err)
		fail(p, rc == Z_ERRNO && errno ? -errno : -EIO);
	rc = commit ? p->err : 0;
	if (!commit || rc)
		unlink(p->path);
	free(p->out.b);
	free(p->msg.b);
	free(p->sub.b);
	strtab_free(&p->strings);
	free(p->comments);
	free(p->maps);
	hm_free(&p->map_ids);
	free(p->funcs);
	hm_free(&p->func_ids);
	free(p->locs);
	free(p->lines);
	free(p->path);
	free(p);
	return rc;
}

uint64_t pprof_nr_samples(const struct pprof *p)
{
	return p->nr_samples;
}

uint32_t pprof_nr_locations(const struct pprof *p)
{
	return p->nr_locs;
}
