/* SPDX-License-Identifier: GPL-2.0 */
/*
 * String interning: each distinct string gets a dense id (0, 1, 2...).
 * The symbolizer uses it for symbol identities and DSO names, the session
 * for comm names, so rows can be arrays indexed by id.
 */
#ifndef PMIPROF_REPORT_STRTAB_H
#define PMIPROF_REPORT_STRTAB_H

#include <stdint.h>

#include "hashmap.h"

struct strtab {
	char **strs;
	uint32_t n, cap;
	struct hashmap map;	/* fnv64(str), probe tag -> id */
};

int strtab_init(struct strtab *t);
void strtab_free(struct strtab *t);
/* The id of s (added when new), or -ENOMEM. */
int64_t strtab_intern(struct strtab *t, const char *s);
/* The id of s, or -1 when absent. */
int64_t strtab_find(const struct strtab *t, const char *s);

static inline const char *strtab_str(const struct strtab *t, uint32_t id)
{
	return t->strs[id];
}

#endif /* PMIPROF_REPORT_STRTAB_H */
