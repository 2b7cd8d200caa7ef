/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Process address spaces rebuilt from the trace's side-band records: MMAP
 * places a DSO at [start, start+len) with a file offset, FORK of a new
 * process shares the parent's maps, an exec (COMM with the EXEC flag)
 * starts from an empty space.
 *
 * Records are applied in trace order and samples are looked up at their
 * place in it, so each space holds only its current maps, updated in
 * place: memory is O(live mappings), never a copy per change.  Callers
 * cache (ip, tag) -> symbol: a space's tag names its current contents and
 * changes when the space changes after a lookup, so such caches never go
 * stale.  A fork shares the space until either side maps something (copy
 * on write).  Hostile traces are bounded: at most MAPS_MAX_PER_SPACE
 * mappings per space and MAPS_MAX_TOTAL in all; MMAPs beyond are dropped
 * and counted.
 */
#ifndef PMIPROF_REPORT_MAPS_H
#define PMIPROF_REPORT_MAPS_H

#include <stdbool.h>
#include <stdint.h>

#include "hashmap.h"

#define MAPS_MAX_PER_SPACE	16384u
#define MAPS_MAX_TOTAL		(1u << 20)

struct map {
	uint64_t start, end;	/* [start, end) */
	uint64_t pgoff;		/* file offset of start; for JIT maps, start (offsets are IPs) */
	uint32_t dso;		/* symbolizer dso id */
	uint32_t file_dso;	/* for JIT maps: the mapped object, to blame when the JIT map
				 * does not name an address; else dso */
};

struct aspace {
	struct map *maps;	/* sorted by start, not overlapping */
	uint32_t n, cap;
	uint32_t refs;		/* processes using it (fork shares); 0 = freed */
	uint32_t tag;		/* names the current contents */
	bool used;		/* looked up under this tag */
};

struct maps {
	struct aspace *as;	/* indexed by space id */
	uint32_t nr_as, cap_as;
	struct hashmap pid2as;	/* pid -> current space id */
	uint32_t next_tag;
	uint64_t total;		/* map entries held by all spaces */
	uint64_t dropped;	/* MMAPs ignored because of the bounds */
};

int maps_init(struct maps *m);
void maps_free(struct maps *m);
/* Returns 0 or -ENOMEM; an MMAP beyond the bounds is counted in dropped. */
int maps_add(struct maps *m, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
	     uint32_t dso);
/* Anonymous (JIT) memory: symbols from jit_dso by IP, else [unknown] in file_dso. */
int maps_add_jit(struct maps *m, uint32_t pid, uint64_t start, uint64_t len, uint32_t jit_dso,
		 uint32_t file_dso);
int maps_fork(struct maps *m, uint32_t parent_pid, uint32_t child_pid);
int maps_exec(struct maps *m, uint32_t pid);

/* Current space id of pid, or HM_EMPTY when no MMAP was seen for it. */
static inline uint32_t maps_space(const struct maps *m, uint32_t pid)
{
	return hm_get(&m->pid2as, pid, 0);
}

/* Cache tag of space's current contents (unique over the whole pass; after
 * 2^32 changes UINT32_MAX, which callers must not cache under). */
static inline uint32_t maps_tag(const struct maps *m, uint32_t space)
{
	return m->as[space].tag;
}

/* The map of space id containing ip, or NULL.  Valid until the next change. */
const struct map *maps_find(struct maps *m, uint32_t space, uint64_t ip);

#endif /* PMIPROF_REPORT_MAPS_H */
