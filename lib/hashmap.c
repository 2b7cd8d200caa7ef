// SPDX-License-Identifier: GPL-2.0
/* Open-addressing (key, tag) -> u32 map used by the report (see hashmap.h). */
#include "hashmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int hm_alloc(struct hashmap *m, uint32_t cap)
{
	m->slots = malloc((size_t)cap * sizeof(*m->slots));
	if (!m->slots)
		return -ENOMEM;
	/* 0xff bytes make every val HM_EMPTY. */
	memset(m->slots, 0xff, (size_t)cap * sizeof(*m->slots));
	m->mask = cap - 1;
	m->used = 0;
	return 0;
}

int hm_init(struct hashmap *m, uint32_t capacity_hint)
{
	uint32_t cap = 64;

	while (cap < capacity_hint * 2 && cap < (1u << 30))
		cap <<= 1;
	return hm_alloc(m, cap);
}

void hm_free(struct hashmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->mask = 0;
	m->used = 0;
}

static void hm_insert(struct hashmap *m, uint64_t key, uint32_t tag, uint32_t val)
{
	uint32_t i = hm_hash(key, tag) & m->mask;

	for (;;) {
		struct hm_slot *s = &m->slots[i];

		if (s->val == HM_EMPTY) {
			s->key = key;
			s->tag = tag;
			s->val = val;
			m->used++;
			return;
		}
		if (s->key == key && s->tag == tag) {
			s->val = val;
			return;
		}
		i = (i + 1) & m->mask;
	}
}

static int hm_grow(struct hashmap *m)
{
	struct hashmap old = *m;
	uint32_t i;
	int err;

	if (old.mask >= (1u << 30))
		return -ENOMEM;
	err = hm_alloc(m, (old.mask + 1) * 2);
	if (err) {
		*m = old;
		return err;
	}
	for (i = 0; i <= old.mask; i++)
		if (old.slots[i].val != HM_EMPTY)
			hm_insert(m, old.slots[i].key, old.slots[i].tag, old.slots[i].val);
	free(old.slots);
	return 0;
}

int hm_put(struct hashmap *m, uint64_t key, uint32_t tag, uint32_t val)
{
	if ((m->used + 1) * 2 > m->mask + 1) {
		int err = hm_grow(m);

		if (err)
			return err;
	}
	hm_insert(m, key, tag, val);
	return 0;
}
