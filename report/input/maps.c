// SPDX-License-Identifier: GPL-2.0
/* Process address spaces from MMAP/FORK/exec records, updated in place (see maps.h). */
#include "input/maps.h"
#include "util.h"

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

/* Tags are never reused: past 2^32 changes they stay at UINT32_MAX (callers stop caching). */
static uint32_t new_tag(struct maps *m)
{
	return m->next_tag == UINT32_MAX ? UINT32_MAX : m->next_tag++;
}

/* A new space used by one process, a copy of space from (or empty for HM_EMPTY). */
static int64_t new_space(struct maps *m, uint32_t from)
{
	uint32_t n = from != HM_EMPTY ? m->as[from].n : 0;
	struct aspace *a;

	if (m->nr_as == UINT32_MAX - 1)
		return -ENOMEM;
	if (pm_grow(&m->as, &m->cap_as, (uint64_t)m->nr_as + 1, 16, sizeof(*m->as)))
		return -ENOMEM;
	a = &m->as[m->nr_as];
	memset(a, 0, sizeof(*a));
	if (n) {
		a->maps = malloc(n * sizeof(*a->maps));
		if (!a->maps)
			return -ENOMEM;
		memcpy(a->maps, m->as[from].maps, n * sizeof(*a->maps));
		a->n = a->cap = n;
		m->total += n;
	}
	a->refs = 1;
	a->tag = new_tag(m);
	return m->nr_as++;
}

/* One process less uses space id: the last one frees its maps. */
static void unref_space(struct maps *m, uint32_t id)
{
	struct aspace *a = &m->as[id];

	if (!a->refs || --a->refs)
		return;
	m->total -= a->n;
	free(a->maps);
	a->maps = NULL;
	a->n = a->cap = 0;
}

/* Point pid at space id (which already counts pid's reference). */
static int set_space(struct maps *m, uint32_t pid, uint32_t id)
{
	uint32_t old = maps_space(m, pid);

	if (hm_put(&m->pid2as, pid, 0, id))
		return -ENOMEM;
	if (old != HM_EMPTY)
		unref_space(m, old);
	return 0;
}

/* First map whose end lies above addr. */
static uint32_t first_above(const struct aspace *a, uint64_t addr)
{
	uint32_t lo = 0, hi = a->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (a->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int add(struct maps *m, uint32_t pid, const struct map *nm)
{
	uint32_t id = maps_space(m, pid), lo, hi, k, repl;
	uint64_t start = nm->start, end = nm->end;
	struct map left, right, *out;
	bool has_left, has_right;
	struct aspace *a;
	int64_t nid;
	int err;

	if (end <= start)
		return 0;
	if (id == HM_EMPTY || m->as[id].refs > 1) {
		/* A first mapping, or a fork's shared space: this process gets its own. */
		if (id != HM_EMPTY && m->total + m->as[id].n + 1 > MAPS_MAX_TOTAL) {
			m->dropped++;
			return 0;
		}
		nid = new_space(m, id);
		if (nid < 0)
			return (int)nid;
		err = set_space(m, pid, (uint32_t)nid);
		if (err)
			return err;
		id = (uint32_t)nid;
	} else if (m->as[id].used) {
		/* Symbols cached under the old tag stay right for what they saw. */
		m->as[id].tag = new_tag(m);
		m->as[id].used = false;
	}
	a = &m->as[id];
	/* [lo, hi) overlap the new mapping: trimmed or dropped, as mmap(MAP_FIXED) does. */
	lo = first_above(a, start);
	for (hi = lo; hi < a->n && a->maps[hi].start < end; hi++)
		;
	has_left = lo < hi && a->maps[lo].start < start;
	has_right = lo < hi && a->maps[hi - 1].end > end;
	if (has_left) {
		left = a->maps[lo];
		left.end = start;
	}
	if (has_right) {
		right = a->maps[hi - 1];
		right.pgoff += end - right.start;
		right.start = end;
	}
	repl = (uint32_t)has_left + 1 + (uint32_t)has_right;
	k = hi - lo;
	if (repl > k) {
		if (a->n + (repl - k) > MAPS_MAX_PER_SPACE ||
		    m->total + (repl - k) > MAPS_MAX_TOTAL) {
			m->dropped++;
			return 0;
		}
		if (a->n + (repl - k) > a->cap) {
			uint32_t cap = a->cap ? a->cap * 2 : 16;

			if (cap > MAPS_MAX_PER_SPACE)
				cap = MAPS_MAX_PER_SPACE;
			out = realloc(a->maps, cap * sizeof(*out));
			if (!out)
				return -ENOMEM;
			a->maps = out;
			a->cap = cap;
		}
	}
	memmove(&a->maps[lo + repl], &a->maps[hi], (a->n - hi) * sizeof(*a->maps));
	out = &a->maps[lo];
	if (has_left)
		*out++ = left;
	*out++ = *nm;
	if (has_right)
		*out = right;
	a->n = a->n - k + repl;
	m->total = m->total - k + repl;
	return 0;
}

int maps_add(struct maps *m, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
	     uint32_t dso)
{
	struct map nm = { start, start + len, pgoff, dso, dso };

	return start + len < start ? 0 : add(m, pid, &nm);
}

int maps_add_jit(struct maps *m, uint32_t pid, uint64_t start, uint64_t len, uint32_t jit_dso,
		 uint32_t file_dso)
{
	/* pgoff = start: start-relative offsets stay IPs through trims and splits. */
	struct map nm = { start, start + len, start, jit_dso, file_dso };

	return start + len < start ? 0 : add(m, pid, &nm);
}

int maps_fork(struct maps *m, uint32_t parent_pid, uint32_t child_pid)
{
	uint32_t p = maps_space(m, parent_pid);

	if (parent_pid == child_pid || p == HM_EMPTY || maps_space(m, child_pid) == p)
		return 0;
	/* Shared until either side maps something: then that side gets its own copy. */
	m->as[p].refs++;
	if (set_space(m, child_pid, p)) {
		m->as[p].refs--;
		return -ENOMEM;
	}
	return 0;
}

int maps_exec(struct maps *m, uint32_t pid)
{
	uint32_t cur = maps_space(m, pid);
	int64_t id;

	if (cur != HM_EMPTY && m->as[cur].refs == 1) {
		/* Nobody else uses the old image's space: empty it in place. */
		struct aspace *a = &m->as[cur];

		m->total -= a->n;
		free(a->maps);
		a->maps = NULL;
		a->n = a->cap = 0;
		a->tag = new_tag(m);
		a->used = false;
		return 0;
	}
	id = new_space(m, HM_EMPTY);

	if (id < 0)
		return (int)id;
	return set_space(m, pid, (uint32_t)id);
}

const struct map *maps_find(struct maps *m, uint32_t space, uint64_t ip)
{
	struct aspace *a = &m->as[space];
	uint32_t i = first_above(a, ip);

	a->used = true;
	if (i < a->n && a->maps[i].start <= ip)
		return &a->maps[i];
	return NULL;
}
