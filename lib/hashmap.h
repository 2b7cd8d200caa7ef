/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small open-addressing hash map from a 64-bit key plus a 32-bit tag to a
 * 32-bit value, for the report's hot paths: (address space, ip) -> symbol id
 * and group key -> row.  Linear probing over a power-of-two table kept at
 * most half full, so a lookup is one multiply and (almost always) one cache
 * line.  No per-insert allocation: the table doubles when it fills.
 */
#ifndef PMIPROF_REPORT_HASHMAP_H
#define PMIPROF_REPORT_HASHMAP_H

#include <stdbool.h>
#include <stdint.h>

struct hm_slot {
	uint64_t key;
	uint32_t tag;
	uint32_t val;		/* HM_EMPTY marks a free slot */
};

#define HM_EMPTY UINT32_MAX

struct hashmap {
	struct hm_slot *slots;
	uint32_t mask;		/* capacity - 1 */
	uint32_t used;
};

int hm_init(struct hashmap *m, uint32_t capacity_hint);
void hm_free(struct hashmap *m);
/* Insert or overwrite; val must not be HM_EMPTY.  Returns 0 or -ENOMEM. */
int hm_put(struct hashmap *m, uint64_t key, uint32_t tag, uint32_t val);

static inline uint32_t hm_hash(uint64_t key, uint32_t tag)
{
	uint64_t h = (key ^ ((uint64_t)tag << 47) ^ tag) * 0x9e3779b97f4a7c15ULL;

	return (uint32_t)(h >> 32) ^ (uint32_t)h;
}

/* The value stored for (key, tag), or HM_EMPTY. */
static inline uint32_t hm_get(const struct hashmap *m, uint64_t key, uint32_t tag)
{
	uint32_t i = hm_hash(key, tag) & m->mask;

	for (;;) {
		const struct hm_slot *s = &m->slots[i];

		if (s->val == HM_EMPTY)
			return HM_EMPTY;
		if (s->key == key && s->tag == tag)
			return s->val;
		i = (i + 1) & m->mask;
	}
}

#endif /* PMIPROF_REPORT_HASHMAP_H */
