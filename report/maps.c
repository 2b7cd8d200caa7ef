// SPDX-License-Identifier: GPL-2.0
/* Versioned process address spaces from MMAP/FORK/exec records (see maps.h). */
#include "maps.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int maps_init(struct maps *m)
{
	memset(m, 0, sizeof(*m));
	return hm_init(&m->pid2as, 64);
}

void maps_free(struct maps *m)
{
	uint32_t i;

	for (i = 0; i < m->nr_as; i++)
		free(m->as[i].maps);
	free(m->as);
	hm_free(&m->pid2as);
	memset(m, 0, sizeof(*m));
}

/* A new space, a copy of space `from` (or empty when from == HM_EMPTY). */
static int64_t new_space(struct maps *m, uint32_t from)
{
	struct aspace *a;

	if (m->nr_as == m->cap_as) {
		uint32_t cap = m->cap_as ? m->cap_as * 2 : 16;
		struct aspace *n = realloc(m->as, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		m->as = n;
		m->cap_as = cap;
	}
	a = &m->as[m->nr_as];
	memset(a, 0, sizeof(*a));
	if (from != HM_EMPTY && m->as[from].n) {
		const struct aspace *src = &m->as[from];

		a->maps = malloc(src->n * sizeof(*a->maps));
		if (!a->maps)
			return -ENOMEM;
		memcpy(a->maps, src->maps, src->n * sizeof(*a->maps));
		a->n = a->cap = src->n;
	}
	return m->nr_as++;
}

/* The space pid may modify: its own, unfrozen one. */
static int64_t writable_space(struct maps *m, uint32_t pid)
{
	uint32_t cur = maps_space(m, pid);
	int64_t id;

	if (cur != HM_EMPTY && !m->as[cur].frozen)
		return cur;
	id = new_space(m, cur);
	if (id < 0)
		return id;
	if (hm_put(&m->pid2as, pid, 0, (uint32_t)id))
		return -ENOMEM;
	return id;
}

static int map_cmp(const void *x, const void *y)
{
	const struct map *a = x, *b = y;

	return a->start < b->start ? -1 : a->start > b->start;
}

int maps_add(struct maps *m, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
	     uint32_t dso)
{
	int64_t id = writable_space(m, pid);
	uint64_t end = start + len;
	struct map *out;
	struct aspace *a;
	uint32_t i, o = 0;

	if (id < 0)
		return (int)id;
	if (!len || end < start)
		return 0;
	a = &m->as[id];
	/* At worst one old map is split in two around the new one. */
	out = malloc((a->n + 2) * sizeof(*out));
	if (!out)
		return -ENOMEM;
	/* Trim or drop what the new mapping replaces, as mmap(MAP_FIXED) does. */
	for (i = 0; i < a->n; i++) {
		struct map old = a->maps[i];

		if (old.end <= start || old.start >= end) {
			out[o++] = old;
			continue;
		}
		if (old.start < start) {
			out[o] = old;
			out[o++].end = start;
		}
		if (old.end > end) {
			old.pgoff += end - old.start;
			old.start = end;
			out[o++] = old;
		}
	}
	out[o++] = (struct map){ start, end, pgoff, dso };
	qsort(out, o, sizeof(*out), map_cmp);
	free(a->maps);
	a->maps = out;
	a->n = o;
	a->cap = o;
	return 0;
}

int maps_fork(struct maps *m, uint32_t parent_pid, uint32_t child_pid)
{
	uint32_t p = maps_space(m, parent_pid);

	if (parent_pid == child_pid || p == HM_EMPTY)
		return 0;
	/* Shared until either side maps something: then it gets its own copy. */
	m->as[p].frozen = true;
	return hm_put(&m->pid2as, child_pid, 0, p);
}

int maps_exec(struct maps *m, uint32_t pid)
{
	int64_t id = new_space(m, HM_EMPTY);

	if (id < 0)
		return (int)id;
	return hm_put(&m->pid2as, pid, 0, (uint32_t)id);
}

const struct map *maps_find(struct maps *m, uint32_t space, uint64_t ip)
{
	struct aspace *a = &m->as[space];
	uint32_t lo = 0, hi = a->n;

	a->frozen = true;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (a->maps[mid].end <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < a->n && a->maps[lo].start <= ip && ip < a->maps[lo].end)
		return &a->maps[lo];
	return NULL;
}
