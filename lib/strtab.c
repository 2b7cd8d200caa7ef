// SPDX-License-Identifier: GPL-2.0
/* String interning with dense ids (see strtab.h). */
#include "strtab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t fnv64(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return h;
}

int strtab_init(struct strtab *t)
{
	memset(t, 0, sizeof(*t));
	return hm_init(&t->map, 64);
}

void strtab_free(struct strtab *t)
{
	uint32_t i;

	for (i = 0; i < t->n; i++)
		free(t->strs[i]);
	free(t->strs);
	hm_free(&t->map);
	memset(t, 0, sizeof(*t));
}

/*
 * Distinct strings whose hashes collide are told apart by the probe tag:
 * the first gets tag 0, the next tag 1, and so on.
 */
static int64_t lookup(const struct strtab *t, const char *s, uint64_t h, uint32_t *free_tag)
{
	uint32_t tag;

	for (tag = 0;; tag++) {
		uint32_t v = hm_get(&t->map, h, tag);

		if (v == HM_EMPTY) {
			*free_tag = tag;
			return -1;
		}
		if (!strcmp(t->strs[v], s))
			return v;
	}
}

int64_t strtab_find(const struct strtab *t, const char *s)
{
	uint32_t tag;

	return lookup(t, s, fnv64(s), &tag);
}

int64_t strtab_intern(struct strtab *t, const char *s)
{
	uint64_t h = fnv64(s);
	uint32_t tag;
	int64_t id = lookup(t, s, h, &tag);
	char *copy;

	if (id >= 0)
		return id;
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 64;
		char **n = realloc(t->strs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		t->strs = n;
		t->cap = cap;
	}
	copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	if (hm_put(&t->map, h, tag, t->n)) {
		free(copy);
		return -ENOMEM;
	}
	t->strs[t->n] = copy;
	return t->n++;
}
