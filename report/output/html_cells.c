// SPDX-License-Identifier: GPL-2.0
/*
 * Sparse (time bucket, id) cells of `report --html` (html_cells.h): the
 * pass adds each window to its cells as it streams, and merges buckets
 * when the recording outgrows the bucket width.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <pmiprof/trace.h>

#include "output/html_cells.h"
#include "util.h"

int cells_init(struct hcells *c, uint32_t nev, uint32_t hint)
{
	memset(c, 0, sizeof(*c));
	c->nev = nev;
	return hm_init(&c->idx, hint);
}

void cells_free(struct hcells *c)
{
	hm_free(&c->idx);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

static int cell_of(struct hcells *c, uint64_t bucket, uint32_t id, uint64_t **out)
{
	uint32_t k = hm_get(&c->idx, bucket, id), stride = 3 + c->nev;

	if (k == HM_EMPTY) {
		if (pm_grow(&c->v, &c->cap, (uint64_t)(c->n + 1) * stride, 4096, sizeof(*c->v)))
			return -ENOMEM;
		k = c->n++;
		memset(&c->v[(uint64_t)k * stride], 0, stride * sizeof(*c->v));
		c->v[(uint64_t)k * stride] = bucket;
		c->v[(uint64_t)k * stride + 1] = id;
		if (hm_put(&c->idx, bucket, id, k))
			return -ENOMEM;
	}
	*out = &c->v[(uint64_t)k * stride];
	return 0;
}

int cells_add(struct hcells *c, uint64_t bucket, uint32_t id, const uint64_t *counts, bool sums)
{
	uint64_t *e;
	uint32_t i;
	int rc = cell_of(c, bucket, id, &e);

	if (rc)
		return rc;
	e[2]++;
	for (i = 0; sums && i < c->nev; i++)
		e[3 + i] += counts[i];
	return 0;
}

int cells_rebucket(struct hcells *c, uint64_t div)
{
	uint32_t stride = 3 + c->nev, k, n = c->n, i;
	struct hcells m = { .nev = c->nev, .v = c->v, .cap = c->cap };
	int rc = hm_init(&m.idx, n ? n : 1);

	/* cells move down in place: cell k goes to a slot <= k */
	for (k = 0; k < n && !rc; k++) {
		uint64_t row[3 + PMIPROF_MAX_EVENTS], *e;

		memcpy(row, &c->v[(uint64_t)k * stride], stride * sizeof(*row));
		rc = cell_of(&m, row[0] / div, (uint32_t)row[1], &e);
		if (rc)
			break;
		for (i = 2; i < stride; i++)
			e[i] += row[i];
	}
	hm_free(&c->idx);
	c->idx = m.idx;
	c->v = m.v;
	c->cap = m.cap;
	c->n = m.n;
	return rc;
}

static int cell_cmp(const void *a, const void *b, void *arg)
{
	const uint64_t *x = a, *y = b;

	(void)arg;
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

void cells_json(FILE *f, const char *name, struct hcells *c, const uint32_t *remap)
{
	uint32_t stride = 3 + c->nev, k, e;
	uint64_t prev = 0;

	if (c->n)
		qsort_r(c->v, c->n, stride * sizeof(*c->v), cell_cmp, NULL);
	fprintf(f, "\"%s\":{\"b\":[", name);
	for (k = 0; k < c->n; k++) {
		fprintf(f, "%s%" PRIu64, k ? "," : "", c->v[k * stride] - prev);
		prev = c->v[k * stride];
	}
	fputs("],\"i\":[", f);
	for (k = 0; k < c->n; k++)
		fprintf(f, "%s%u", k ? "," : "",
			remap ? remap[c->v[k * stride + 1]] : (uint32_t)c->v[k * stride + 1]);
	fputs("],\"n\":[", f);
	for (k = 0; k < c->n; k++)
		fprintf(f, "%s%" PRIu64, k ? "," : "", c->v[k * stride + 2]);
	fputs("],\"c\":[", f);
	for (e = 0; e < c->nev; e++) {
		fprintf(f, "%s[", e ? "," : "");
		for (k = 0; k < c->n; k++)
			fprintf(f, "%s%" PRIu64, k ? "," : "", c->v[k * stride + 3 + e]);
		fputc(']', f);
	}
	fputs("]}", f);
}

void cells_keep(struct hcells *c, const uint32_t *remap)
{
	uint32_t stride = 3 + c->nev, k, n = 0;

	for (k = 0; k < c->n; k++) {
		uint64_t *v = &c->v[(uint64_t)k * stride];
		uint32_t id = remap[v[1]];

		if (id == UINT32_MAX)
			continue;
		v[1] = id;
		if (n != k)
			memmove(&c->v[(uint64_t)n * stride], v, stride * sizeof(*v));
		n++;
	}
	c->n = n;
}
