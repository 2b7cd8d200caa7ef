// SPDX-License-Identifier: GPL-2.0
/*
 * pprof profile.proto reader (pprof_reader.h).  The wire format is read
 * field by field with bounds checks; ids and string indices are kept as
 * written while the message is read (a writer may put the string table,
 * or the locations, after the samples: output/pprof.c streams samples
 * first), then resolved into indices and checked in one pass at the end.
 */
#include "input/pprof_reader.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "hashmap.h"
#include "util.h"
#include "varint.h"

#define DEFAULT_MAX_BYTES (256u << 20)

/* profile.proto field numbers (as output/pprof.c writes them) */
enum {
	P_SAMPLE_TYPE = 1, P_SAMPLE = 2, P_MAPPING = 3, P_LOCATION = 4, P_FUNCTION = 5,
	P_STRING_TABLE = 6, P_TIME_NANOS = 9, P_DURATION_NANOS = 10, P_PERIOD_TYPE = 11,
	P_PERIOD = 12, P_COMMENT = 13,
};
enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_I32 = 5 };

struct field {
	uint32_t num, wt;
	uint64_t v;			/* WT_VARINT, WT_I64, WT_I32 */
	const uint8_t *d;		/* WT_LEN: its bytes */
	size_t len;
};

/* Ids as written, beside the tables they index, until resolve(). */
struct raw {
	uint64_t *map_id, *func_id, *loc_id;	/* each table's own ids */
	uint64_t *loc_map;			/* a location's mapping id */
	uint64_t *line_func;			/* a line's function id */
	uint64_t *sample_loc;			/* a sample's location ids */
	uint32_t *sample_vals;			/* a sample's number of values */
	uint32_t cap_maps, cap_funcs, cap_locs, cap_lines, cap_samples, cap_sloc, cap_vals,
		 cap_labels, cap_strings, cap_comments, nr_sloc;
	/* the id arrays' own capacities */
	uint32_t cap_map_id, cap_func_id, cap_loc_id, cap_loc_map, cap_line_func, cap_sample_vals;
};

/* The next field of [*pp, end): 1, 0 at the end, -EBADMSG. */
static int next_field(const uint8_t **pp, const uint8_t *end, struct field *f)
{
	const uint8_t *p = *pp;
	uint64_t key, len;

	if (p >= end)
		return 0;
	if (varint_get(&p, end, &key) || !(key >> 3) || key >> 32)
		return -EBADMSG;
	f->num = (uint32_t)(key >> 3);
	f->wt = (uint32_t)(key & 7);
	/* a field of another wire type has no bytes, but a place: d + len stays defined */
	f->d = p;
	f->len = 0;
	switch (f->wt) {
	case WT_VARINT:
		if (varint_get(&p, end, &f->v))
			return -EBADMSG;
		break;
	case WT_I64:
	case WT_I32:
		len = f->wt == WT_I64 ? 8 : 4;
		if ((size_t)(end - p) < len)
			return -EBADMSG;
		f->v = 0;
		memcpy(&f->v, p, len);	/* little-endian, as this machine */
		p += len;
		break;
	case WT_LEN:
		if (varint_get(&p, end, &len) || len > (uint64_t)(end - p))
			return -EBADMSG;
		f->d = p;
		f->len = (size_t)len;
		p += len;
		break;
	default:
		return -EBADMSG;	/* groups (3, 4) are not in profile.proto */
	}
	*pp = p;
	return 1;
}

/* A string index as written: one past any table, when it cannot be one. */
static uint32_t str_idx(uint64_t v)
{
	return v >= UINT32_MAX ? PPROF_NONE : (uint32_t)v;
}

/* One element more in *arr (n of elem bytes, capacity *cap), zeroed: it, or NULL. */
static void *push(void *arr, uint32_t *n, uint32_t *cap, size_t elem)
{
	char **a = arr;

	if (*n == UINT32_MAX - 1 || pm_grow(a, cap, (uint64_t)*n + 1, 64, elem))
		return NULL;
	memset(*a + (size_t)*n * elem, 0, elem);
	return *a + (size_t)(*n)++ * elem;
}

/* ids[n] = v in an array beside a table of n + 1 elements: 0 or -ENOMEM. */
static int put_id(uint64_t **ids, uint32_t n, uint32_t *cap, uint64_t v)
{
	if (pm_grow(ids, cap, (uint64_t)n + 1, 64, sizeof(**ids)))
		return -ENOMEM;
	(*ids)[n] = v;
	return 0;
}

/*
 * The varints of a repeated scalar field, packed (WT_LEN) or one per
 * field (WT_VARINT), each through fn: 0 or -errno.
 */
static int each_varint(const struct field *f, int (*fn)(void *, uint64_t), void *arg)
{
	const uint8_t *q, *end;
	uint64_t v;
	int err;

	if (f->wt == WT_VARINT)
		return fn(arg, f->v);
	if (f->wt != WT_LEN)
		return -EBADMSG;
	for (q = f->d, end = f->d + f->len; q < end;) {
		if (varint_get(&q, end, &v))
			return -EBADMSG;
		err = fn(arg, v);
		if (err)
			return err;
	}
	return 0;
}

struct rd {
	struct pprof_profile *p;
	struct raw r;
};

static int read_value_type(const struct field *outer, uint32_t vt[2])
{
	const uint8_t *q = outer->d, *end = outer->d + outer->len;
	struct field f;
	int k;

	if (outer->wt != WT_LEN)
		return -EBADMSG;
	vt[0] = vt[1] = 0;
	while ((k = next_field(&q, end, &f)) > 0)
		if ((f.num == 1 || f.num == 2) && f.wt == WT_VARINT)
			vt[f.num - 1] = str_idx(f.v);
	return k;
}

static int add_sample_loc(void *arg, uint64_t v)
{
	struct rd *d = arg;
	uint64_t *e = push(&d->r.sample_loc, &d->r.nr_sloc, &d->r.cap_sloc, sizeof(*e));

	if (!e)
		return -ENOMEM;
	*e = v;
	return 0;
}

static int add_value(void *arg, uint64_t v)
{
	struct rd *d = arg;
	int64_t *e = push(&d->p->values, &d->p->nr_values, &d->r.cap_vals, sizeof(*e));

	if (!e)
		return -ENOMEM;
	*e = (int64_t)v;
	return 0;
}

static int read_label(struct rd *d, const struct field *outer)
{
	const uint8_t *q = outer->d, *end = outer->d + outer->len;
	struct pprof_rd_label *l;
	struct field f;
	int k;

	if (outer->wt != WT_LEN)
		return -EBADMSG;
	l = push(&d->p->labels, &d->p->nr_labels, &d->r.cap_labels, sizeof(*l));
	if (!l)
		return -ENOMEM;
	while ((k = next_field(&q, end, &f)) > 0) {
		if (f.wt != WT_VARINT)
			continue;
		if (f.num == 1)
			l->key = str_idx(f.v);
		else if (f.num == 2)
			l->str = str_idx(f.v);
		else if (f.num == 3)
			l->num = (int64_t)f.v;
	}
	return k;
}

static int read_sample(struct rd *d, const struct field *outer)
{
	struct pprof_profile *p = d->p;
	const uint8_t *q = outer->d, *end = outer->d + outer->len;
	struct pprof_rd_sample *s;
	struct field f;
	int k, err = 0;

	if (outer->wt != WT_LEN)
		return -EBADMSG;
	if (pm_grow(&d->r.sample_vals, &d->r.cap_sample_vals, (uint64_t)p->nr_samples + 1, 64,
		    sizeof(*d->r.sample_vals)))
		return -ENOMEM;
	s = push(&p->samples, &p->nr_samples, &d->r.cap_samples, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->loc0 = d->r.nr_sloc;
	s->val0 = p->nr_values;
	s->label0 = p->nr_labels;
	while (!err && (k = next_field(&q, end, &f)) > 0) {
		if (f.num == 1)
			err = each_varint(&f, add_sample_loc, d);
		else if (f.num == 2)
			err = each_varint(&f, add_value, d);
		else if (f.num == 3)
			err = read_label(d, &f);
	}
	if (err)
		return err;
	/* push() may have moved the arrays: index again */
	s = &p->samples[p->nr_samples - 1];
	s->nr_locs = d->r.nr_sloc - s->loc0;
	s->nr_labels = p->nr_labels - s->label0;
	d->r.sample_vals[p->nr_samples - 1] = p->nr_values - s->val0;
	return k;
}

static int read_mapping(struct rd *d, const struct field *outer)
{
	struct pprof_profile *p = d->p;
	const uint8_t *q = outer->d, *end = outer->d + outer->len;
	struct pprof_rd_mapping *m;
	uint64_t id = 0;
	struct field f;
	int k;

	if (outer->wt != WT_LEN)
		return -EBADMSG;
	if (put_id(&d->r.map_id, p->nr_mappings, &d->r.cap_map_id, 0))
		return -ENOMEM;
	m = push(&p->mappings, &p->nr_mappings, &d->r.cap_maps, sizeof(*m));
	if (!m)
		return -ENOMEM;
	while ((k = next_field(&q, end, &f)) > 0) {
		if (f.wt != WT_VARINT)
			continue;
		if (f.num == 1)
			id = f.v;
		else if (f.num == 5)
			m->filename = str_idx(f.v);
		else if (f.num == 6)
			m->build_id = str_idx(f.v);
	}
	d->r.map_id[p->nr_mappings - 1] = id;
	return k;
}

static int read_function(struct rd *d, const struct field *outer)
{
	struct pprof_profile *p = d->p;
	const uint8_t *q = outer->d, *end = outer->d + outer->len;
	struct pprof_rd_function *fn;
	uint64_t id = 0;
	struct field f;
	int k;

	if (outer->wt != WT_LEN)
		return -EBADMSG;
	if (put_id(&d->r.func_id, p->nr_functions, &d->r.cap_func_id, 0))
		return -ENOMEM;
	fn = push(&p->functions, &p->nr_functions, &d->r.cap_funcs, sizeof(*fn));
	if (!fn)
		return -ENOMEM;
	while ((k = next_field(&q, end, &f)) > 0) {
		if (f.wt != WT_VARINT)
			continue;
		if (f.num == 1)
			id = f.v;
		else if (f.num == 2)
			fn->name = str_idx(f.v);
		else if (f.num == 3)
			fn->system_name = str_idx(f.v);
		else if (f.num == 4)
			fn->filename = str_idx(f.v);
	}
	d->r.func_id[p->nr_functions - 1] = id;
	return k;
}

static int read_line(struct rd *d, const struct field *outer)
{
	struct pprof_profile *p = d->p;
	const uint8_t *q = outer->d, *end = outer->d + outer->len;
	struct pprof_rd_line *l;
	uint64_t fid = 0;
	struct field f;
	int k;

	if (outer->wt != WT_LEN)
		return -EBADMSG;
	if (put_id(&d->r.line_func, p->nr_lines, &d->r.cap_line_func, 0))
		return -ENOMEM;
	l = push(&p->lines, &p->nr_lines, &d->r.cap_lines, sizeof(*l));
	if (!l)
		return -ENOMEM;
	while ((k = next_field(&q, end, &f)) > 0) {
		if (f.wt != WT_VARINT)
			continue;
		if (f.num == 1)
			fid = f.v;
		else if (f.num == 2)
			l->line = (int64_t)f.v;
	}
	d->r.line_func[p->nr_lines - 1] = fid;
	return k;
}

static int read_location(struct rd *d, const struct field *outer)
{
	struct pprof_profile *p = d->p;
	const uint8_t *q = outer->d, *end = outer->d + outer->len;
	struct pprof_rd_location *l;
	uint64_t id = 0, map = 0;
	uint32_t line0 = p->nr_lines, i;
	struct field f;
	int k, err = 0;

	if (outer->wt != WT_LEN)
		return -EBADMSG;
	if (put_id(&d->r.loc_id, p->nr_locations, &d->r.cap_loc_id, 0) ||
	    put_id(&d->r.loc_map, p->nr_locations, &d->r.cap_loc_map, 0))
		return -ENOMEM;
	l = push(&p->locations, &p->nr_locations, &d->r.cap_locs, sizeof(*l));
	if (!l)
		return -ENOMEM;
	i = p->nr_locations - 1;
	while (!err && (k = next_field(&q, end, &f)) > 0) {
		if (f.num == 4)
			err = read_line(d, &f);
		else if (f.wt != WT_VARINT)
			continue;
		else if (f.num == 1)
			id = f.v;
		else if (f.num == 2)
			map = f.v;
		else if (f.num == 3)
			p->locations[i].address = f.v;
	}
	if (err)
		return err;
	p->locations[i].line0 = line0;
	p->locations[i].nr_lines = p->nr_lines - line0;
	d->r.loc_id[i] = id;
	d->r.loc_map[i] = map;
	return k;
}

static int add_comment(void *arg, uint64_t v)
{
	struct rd *d = arg;
	uint32_t *e = push(&d->p->comments, &d->p->nr_comments, &d->r.cap_comments, sizeof(*e));

	if (!e)
		return -ENOMEM;
	*e = str_idx(v);
	return 0;
}

static int read_string(struct rd *d, const struct field *f)
{
	char **e;

	if (f->wt != WT_LEN)
		return -EBADMSG;
	e = push(&d->p->strings, &d->p->nr_strings, &d->r.cap_strings, sizeof(*e));
	if (!e || !(*e = malloc(f->len + 1)))
		return -ENOMEM;
	memcpy(*e, f->d, f->len);
	(*e)[f->len] = '\0';
	return 0;
}

static int read_profile(struct rd *d, const uint8_t *q, const uint8_t *end)
{
	struct pprof_profile *p = d->p;
	struct field f;
	int k, err = 0;

	while (!err && (k = next_field(&q, end, &f)) > 0) {
		switch (f.num) {
		case P_SAMPLE_TYPE:
			if (p->nr_types == ARRAY_SIZE(p->types))
				return -E2BIG;
			err = read_value_type(&f, p->types[p->nr_types++]);
			break;
		case P_SAMPLE:
			err = read_sample(d, &f);
			break;
		case P_MAPPING:
			err = read_mapping(d, &f);
			break;
		case P_LOCATION:
			err = read_location(d, &f);
			break;
		case P_FUNCTION:
			err = read_function(d, &f);
			break;
		case P_STRING_TABLE:
			err = read_string(d, &f);
			break;
		case P_TIME_NANOS:
		case P_DURATION_NANOS:
		case P_PERIOD:
			if (f.wt == WT_VARINT)
				*(f.num == P_TIME_NANOS ? &p->time_nanos : f.num == P_PERIOD ?
				  &p->period : &p->duration_nanos) = (int64_t)f.v;
			break;
		case P_PERIOD_TYPE:
			err = read_value_type(&f, p->period_type);
			break;
		case P_COMMENT:
			err = each_varint(&f, add_comment, d);
			break;
		}
	}
	return err ? err : k;
}

/* Id -> index of a table's ids (0 and duplicates are errors): 0 or -errno. */
static int index_ids(struct hashmap *m, const uint64_t *ids, uint32_t n)
{
	uint32_t i;
	int err = hm_init(m, n ? n : 1);

	for (i = 0; !err && i < n; i++) {
		if (!ids[i] || hm_get(m, ids[i], 0) != HM_EMPTY)
			err = -EBADMSG;
		else
			err = hm_put(m, ids[i], 0, i);
	}
	return err;
}

static bool str_ok(const struct pprof_profile *p, uint32_t s)
{
	return s < p->nr_strings;
}

/* Every id to an index, every string index checked: 0 or -errno. */
static int resolve(struct rd *d)
{
	struct pprof_profile *p = d->p;
	struct hashmap maps, funcs, locs;
	uint32_t i, k;
	int err;

	if (!p->nr_strings || p->strings[0][0])
		return -EBADMSG;	/* string_table[0] must be "" */
	for (i = 0; i < p->nr_types; i++)
		if (!str_ok(p, p->types[i][0]) || !str_ok(p, p->types[i][1]))
			return -EBADMSG;
	if (!str_ok(p, p->period_type[0]) || !str_ok(p, p->period_type[1]))
		return -EBADMSG;
	for (i = 0; i < p->nr_comments; i++)
		if (!str_ok(p, p->comments[i]))
			return -EBADMSG;
	for (i = 0; i < p->nr_labels; i++)
		if (!str_ok(p, p->labels[i].key) || !str_ok(p, p->labels[i].str))
			return -EBADMSG;
	for (i = 0; i < p->nr_mappings; i++)
		if (!str_ok(p, p->mappings[i].filename) || !str_ok(p, p->mappings[i].build_id))
			return -EBADMSG;
	for (i = 0; i < p->nr_functions; i++)
		if (!str_ok(p, p->functions[i].name) || !str_ok(p, p->functions[i].system_name) ||
		    !str_ok(p, p->functions[i].filename))
			return -EBADMSG;
	err = index_ids(&maps, d->r.map_id, p->nr_mappings);
	if (!err)
		err = index_ids(&funcs, d->r.func_id, p->nr_functions);
	if (!err)
		err = index_ids(&locs, d->r.loc_id, p->nr_locations);
	for (i = 0; !err && i < p->nr_lines; i++)
		if ((p->lines[i].function = hm_get(&funcs, d->r.line_func[i], 0)) == HM_EMPTY)
			err = -EBADMSG;
	for (i = 0; !err && i < p->nr_locations; i++) {
		k = d->r.loc_map[i] ? hm_get(&maps, d->r.loc_map[i], 0) : PPROF_NONE;
		if (d->r.loc_map[i] && k == HM_EMPTY)
			err = -EBADMSG;
		p->locations[i].mapping = k;
	}
	if (!err && d->r.nr_sloc && !(p->locs_of = malloc(d->r.nr_sloc * sizeof(*p->locs_of))))
		err = -ENOMEM;
	for (i = 0; !err && i < d->r.nr_sloc; i++)
		if ((p->locs_of[i] = hm_get(&locs, d->r.sample_loc[i], 0)) == HM_EMPTY)
			err = -EBADMSG;
	/* profile.proto: a sample has one value per sample type */
	for (i = 0; !err && i < p->nr_samples; i++)
		if (d->r.sample_vals[i] != p->nr_types)
			err = -EBADMSG;
	hm_free(&maps);
	hm_free(&funcs);
	hm_free(&locs);
	return err;
}

/* gunzip data into *out (malloc'd, at most max bytes): 0 or -errno. */
static int inflate_all(const uint8_t *data, size_t len, size_t max, uint8_t **out, size_t *n)
{
	z_stream z;
	uint8_t *buf = NULL;
	size_t cap = 0;
	int zr = Z_OK;

	*out = NULL;
	*n = 0;
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)data;
	z.avail_in = len > UINT32_MAX ? UINT32_MAX : (uInt)len;
	while (zr != Z_STREAM_END) {
		if (*n == cap) {
			size_t nc = cap ? cap * 2 : (len < 65536 ? 65536 : len * 4);
			uint8_t *nb;

			if (cap >= max) {
				inflateEnd(&z);
				free(buf);
				return -E2BIG;
			}
			if (nc > max)
				nc = max;
			nb = realloc(buf, nc);
			if (!nb) {
				inflateEnd(&z);
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
			cap = nc;
		}
		z.next_out = buf + *n;
		z.avail_out = (uInt)(cap - *n > UINT32_MAX ? UINT32_MAX : cap - *n);
		zr = inflate(&z, Z_NO_FLUSH);
		*n = (size_t)(z.next_out - buf);
		if (zr != Z_OK && zr != Z_STREAM_END && !(zr == Z_BUF_ERROR && !z.avail_out)) {
			inflateEnd(&z);
			free(buf);
			return zr == Z_MEM_ERROR ? -ENOMEM : -EBADMSG;
		}
	}
	inflateEnd(&z);
	*out = buf;
	return 0;
}

static void raw_free(struct raw *r)
{
	free(r->map_id);
	free(r->func_id);
	free(r->loc_id);
	free(r->loc_map);
	free(r->line_func);
	free(r->sample_loc);
	free(r->sample_vals);
}

int pprof_profile_read(struct pprof_profile *p, const void *data, size_t len, size_t max_bytes)
{
	struct rd d = { .p = p };
	const uint8_t *b = data;
	uint8_t *plain = NULL;
	size_t n = len;
	int err = 0;

	memset(p, 0, sizeof(*p));
	if (!max_bytes)
		max_bytes = DEFAULT_MAX_BYTES;
	if (len >= 2 && b[0] == 0x1f && b[1] == 0x8b) {
		err = inflate_all(b, len, max_bytes, &plain, &n);
		b = plain;
	} else if (len > max_bytes) {
		err = -E2BIG;
	}
	if (!err)
		err = read_profile(&d, b, b + n);
	if (!err)
		err = resolve(&d);
	free(plain);
	raw_free(&d.r);
	return err;
}

void pprof_profile_free(struct pprof_profile *p)
{
	uint32_t i;

	for (i = 0; i < p->nr_strings; i++)
		free(p->strings[i]);
	free(p->strings);
	free(p->comments);
	free(p->samples);
	free(p->locations);
	free(p->lines);
	free(p->functions);
	free(p->mappings);
	free(p->locs_of);
	free(p->values);
	free(p->labels);
	memset(p, 0, sizeof(*p));
}

const char *pprof_sample_label(const struct pprof_profile *p, uint32_t i, const char *key)
{
	const struct pprof_rd_sample *s = &p->samples[i];
	uint32_t k;

	for (k = 0; k < s->nr_labels; k++) {
		const struct pprof_rd_label *l = &p->labels[s->label0 + k];

		if (l->str && !strcmp(p->strings[l->key], key))
			return p->strings[l->str];
	}
	return NULL;
}

int pprof_type_index(const struct pprof_profile *p, const char *name)
{
	uint32_t i;

	for (i = 0; i < p->nr_types; i++)
		if (!strcmp(p->strings[p->types[i][0]], name))
			return (int)i;
	return -1;
}

int pprof_profile_header(const struct pprof_profile *p, struct trace_header *h)
{
	uint32_t i;
	bool ours = false;

	for (i = 0; i < p->nr_comments; i++)
		ours |= !strncmp(p->strings[p->comments[i]], "pmiprof ", 8);
	if (!ours || !p->nr_types || strcmp(p->strings[p->types[0][0]], "samples"))
		return -ENOMSG;
	memset(h, 0, sizeof(*h));
	h->nr_events = p->nr_types - 1;
	for (i = 0; i < h->nr_events; i++)
		pm_strlcpy(h->events[i].name, p->strings[p->types[i + 1][0]],
			   sizeof(h->events[i].name));
	/* the trigger: the period type; "samples" is no event */
	h->trigger_index = 0;
	for (i = 0; i < h->nr_events; i++)
		if (!strcmp(h->events[i].name, p->strings[p->period_type[0]]))
			h->trigger_index = i;
	h->period = p->period > 0 ? (uint64_t)p->period : 0;
	/* its samples' location lists are their call stacks (the daemon records -g) */
	for (i = 0; i < p->nr_samples && h->call_graph == PMIPROF_CALL_GRAPH_NONE; i++)
		if (p->samples[i].nr_locs > 1)
			h->call_graph = PMIPROF_CALL_GRAPH_FP;
	pm_strlcpy(h->recorder, "pmiprof daemon (pprof)", sizeof(h->recorder));
	return 0;
}
