// SPDX-License-Identifier: GPL-2.0
/* Running totals -> per-window deltas, keyed by event instance (see window_deltas.h). */
#include "engine/window_deltas.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static size_t slot_of(const struct window_deltas *d, uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 17) & (d->cap - 1);
}

static size_t find(const struct window_deltas *d, uint64_t key)
{
	size_t i = slot_of(d, key);

	while (d->keys[i] && d->keys[i] != key + 1)
		i = (i + 1) & (d->cap - 1);
	return i;
}

static int grow(struct window_deltas *d)
{
	struct window_deltas n = { .nr = d->nr, .cap = d->cap * 2 };
	size_t i;

	n.keys = calloc(n.cap, sizeof(*n.keys));
	n.vals = calloc(n.cap * n.nr, sizeof(*n.vals));
	n.gens = calloc(n.cap, sizeof(*n.gens));
	if (!n.keys || !n.vals || !n.gens) {
		free(n.keys);
		free(n.vals);
		free(n.gens);
		return -ENOMEM;
	}
	for (i = 0; i < d->cap; i++) {
		size_t j;

		if (!d->keys[i])
			continue;
		j = find(&n, d->keys[i] - 1);
		n.keys[j] = d->keys[i];
		memcpy(&n.vals[j * n.nr], &d->vals[i * d->nr], d->nr * sizeof(*d->vals));
		n.gens[j] = d->gens[i];
		n.used++;
	}
	free(d->keys);
	free(d->vals);
	free(d->gens);
	*d = n;
	return 0;
}

int window_deltas_init(struct window_deltas *d, unsigned int nr)
{
	memset(d, 0, sizeof(*d));
	d->nr = nr ? nr : 1;
	d->cap = 64;
	d->keys = calloc(d->cap, sizeof(*d->keys));
	d->vals = calloc(d->cap * d->nr, sizeof(*d->vals));
	d->gens = calloc(d->cap, sizeof(*d->gens));
	if (!d->keys || !d->vals || !d->gens) {
		window_deltas_free(d);
		return -ENOMEM;
	}
	return 0;
}

int window_deltas_update(struct window_deltas *d, uint64_t key, const uint64_t *totals,
			 uint64_t *out)
{
	int r = window_deltas_update_gen(d, key, totals, out, 0);

	return r < 0 ? r : (r & WINDOW_FIRST);
}

int window_deltas_update_gen(struct window_deltas *d, uint64_t key, const uint64_t *totals,
			     uint64_t *out, uint64_t gen)
{
	size_t i = find(d, key), k;
	uint64_t *prev;
	int first = 0;

	if (!d->keys[i]) {
		if ((d->used + 1) * 4 > d->cap * 3) {
			if (grow(d))
				return -ENOMEM;
			i = find(d, key);
		}
		d->keys[i] = key + 1;
		d->used++;
		memset(&d->vals[i * d->nr], 0, d->nr * sizeof(*d->vals));
		d->gens[i] = gen;
		first = 1;
	}
	prev = &d->vals[i * d->nr];
	for (k = 0; k < d->nr && !first; k++)
		if (totals[k] < prev[k])
			first = 1;
	for (k = 0; k < d->nr; k++) {
		out[k] = first ? totals[k] : totals[k] - prev[k];
		prev[k] = totals[k];
	}
	if (first) {
		d->gens[i] = gen;
		return WINDOW_FIRST;
	}
	if (d->gens[i] != gen) {
		d->gens[i] = gen;
		return WINDOW_AFTER_LOSS;
	}
	return 0;
}

void window_deltas_forget(struct window_deltas *d, uint64_t key)
{
	size_t i = find(d, key), j;

	if (!d->keys[i])
		return;
	/* Backward-shift deletion keeps probe chains intact without tombstones. */
	d->keys[i] = 0;
	d->used--;
	for (j = (i + 1) & (d->cap - 1); d->keys[j]; j = (j + 1) & (d->cap - 1)) {
		uint64_t kk = d->keys[j];
		size_t want = slot_of(d, kk - 1);

		/* Move j back to i if i lies cyclically in [want, j). */
		if ((j > i && (want <= i || want > j)) || (j < i && want <= i && want > j)) {
			d->keys[i] = kk;
			memcpy(&d->vals[i * d->nr], &d->vals[j * d->nr],
			       d->nr * sizeof(*d->vals));
			d->gens[i] = d->gens[j];
			d->keys[j] = 0;
			i = j;
		}
	}
}

void window_deltas_free(struct window_deltas *d)
{
	free(d->keys);
	free(d->vals);
	free(d->gens);
	d->keys = NULL;
	d->vals = NULL;
	d->gens = NULL;
	d->cap = d->used = 0;
}
