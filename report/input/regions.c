// SPDX-License-Identifier: GPL-2.0
/*
 * Open regions per thread while a pass reads the trace (see regions.h).
 * An END closes the innermost open region of its id on the thread, and any
 * region opened inside it (the library's rule for a mismatched end); an END
 * whose region is not open (its BEGIN was dropped in a full ring, or the
 * trace is damaged) is counted and changes nothing.
 */
#include "input/regions.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int regions_init(struct regions *r)
{
	memset(r, 0, sizeof(*r));
	if (strtab_init(&r->names) || hm_init(&r->id2name, 64) || hm_init(&r->tid2thread, 64)) {
		regions_free(r);
		return -ENOMEM;
	}
	return 0;
}

void regions_free(struct regions *r)
{
	strtab_free(&r->names);
	hm_free(&r->id2name);
	hm_free(&r->tid2thread);
	free(r->threads);
	free(r->spans);
	memset(r, 0, sizeof(*r));
}

int regions_def(struct regions *r, const struct trace_region_def *d)
{
	int64_t id = strtab_intern(&r->names, d->name ? d->name : "");

	if (id < 0)
		return (int)id;
	return hm_put(&r->id2name, d->id, 0, (uint32_t)id);
}

uint32_t regions_find(const struct regions *r, const char *name)
{
	int64_t id = strtab_find(&r->names, name);

	return id < 0 ? REGIONS_NONE : (uint32_t)id;
}

static const struct region_thread *find_thread(const struct regions *r, uint32_t tid)
{
	uint32_t i = hm_get(&r->tid2thread, tid, 0);

	return i == HM_EMPTY ? NULL : &r->threads[i];
}

static struct region_thread *get_thread(struct regions *r, uint32_t pid, uint32_t tid)
{
	uint32_t i = hm_get(&r->tid2thread, tid, 0);

	if (i != HM_EMPTY)
		return &r->threads[i];
	if (pm_grow(&r->threads, &r->cap_threads, (uint64_t)r->nr_threads + 1, 16,
		    sizeof(*r->threads)))
		return NULL;
	i = r->nr_threads;
	if (hm_put(&r->tid2thread, tid, 0, i))
		return NULL;
	r->nr_threads++;
	r->threads[i].pid = pid;
	r->threads[i].tid = tid;
	r->threads[i].depth = 0;
	return &r->threads[i];
}

static int add_span(struct regions *r, const struct region_thread *t, uint32_t d, uint64_t end)
{
	if (!r->want_spans)
		return 0;
	if (r->nr_spans == REGIONS_MAX_SPANS) {
		r->spans_dropped++;
		return 0;
	}
	if (pm_grow(&r->spans, &r->cap_spans, (uint64_t)r->nr_spans + 1, 256, sizeof(*r->spans)))
		return -ENOMEM;
	r->spans[r->nr_spans++] = (struct region_span){ t->since[d], end, t->stack[d], t->tid, d };
	return 0;
}

int regions_marker(struct regions *r, const struct trace_region *m)
{
	uint32_t name = hm_get(&r->id2name, m->id, 0);
	struct region_thread *t;
	uint32_t d;
	int err;

	r->markers++;
	if (name == HM_EMPTY) {
		r->undefined++;
		return 0;
	}
	t = get_thread(r, m->pid, m->tid);
	if (!t)
		return -ENOMEM;
	if (m->kind == PMIPROF_REGION_BEGIN) {
		if (t->depth == REGIONS_MAX_DEPTH) {
			r->too_deep++;
			return 0;
		}
		t->stack[t->depth] = name;
		t->since[t->depth++] = m->time;
		return 0;
	}
	for (d = t->depth; d > 0 && t->stack[d - 1] != name; d--)
		;
	if (!d) {
		r->unmatched_ends++;
		return 0;
	}
	while (t->depth >= d) {
		err = add_span(r, t, t->depth - 1, m->time);
		if (err)
			return err;
		t->depth--;
	}
	return 0;
}

void regions_anomaly(struct regions *r, const struct trace_region_anomaly *a)
{
	r->anomalies[a->what < PMIPROF_REGION_AN_MAX ? a->what : PMIPROF_REGION_AN_MAX] += a->count;
}

uint32_t regions_innermost(const struct regions *r, uint32_t tid)
{
	const struct region_thread *t = find_thread(r, tid);

	return t && t->depth ? t->stack[t->depth - 1] : REGIONS_NONE;
}

bool regions_open_on(const struct regions *r, uint32_t tid, uint32_t region)
{
	const struct region_thread *t = find_thread(r, tid);
	uint32_t d;

	for (d = 0; t && d < t->depth; d++)
		if (t->stack[d] == region)
			return true;
	return false;
}

uint64_t regions_open_count(const struct regions *r)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < r->nr_threads; i++)
		n += r->threads[i].depth;
	return n;
}

void regions_open_text(const struct regions *r, char *buf, size_t len)
{
	size_t at = 0;
	uint32_t i, d;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < r->nr_threads && at + 1 < len; i++) {
		const struct region_thread *t = &r->threads[i];
		int k;

		if (!t->depth)
			continue;
		k = snprintf(buf + at, len - at, "%stid %u:", at ? "; " : "", t->tid);
		for (d = 0; k > 0 && (size_t)k < len - at && d < t->depth; d++) {
			at += (size_t)k;
			k = snprintf(buf + at, len - at, "%s%s", d ? " > " : " ",
				     strtab_str(&r->names, t->stack[d]));
		}
		if (k < 0 || (size_t)k >= len - at)
			break;
		at += (size_t)k;
	}
}

int regions_close_all(struct regions *r, uint64_t time)
{
	uint32_t i;
	int err;

	for (i = 0; i < r->nr_threads; i++) {
		struct region_thread *t = &r->threads[i];

		for (; t->depth; t->depth--) {
			err = add_span(r, t, t->depth - 1, time);
			if (err)
				return err;
		}
	}
	return 0;
}
