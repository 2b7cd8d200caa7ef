/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Process address spaces rebuilt from the trace's side-band records: MMAP
 * places a DSO at [start, start+len) with a file offset, FORK of a new
 * process shares the parent's maps, an exec (COMM with the EXEC flag)
 * starts from an empty space.
 *
 * Each version of an address space has its own id.  A space that has been
 * looked up (or is shared by a fork) is frozen: the next MMAP into it makes
 * a new version.  So (space id, ip) -> symbol caches never go stale.
 */
#ifndef PMIPROF_REPORT_MAPS_H
#define PMIPROF_REPORT_MAPS_H

#include <stdbool.h>
#include <stdint.h>

#include "hashmap.h"

struct map {
	uint64_t start, end;	/* [start, end) */
	uint64_t pgoff;		/* file offset of start */
	uint32_t dso;		/* symbolizer dso id */
};

struct aspace {
	struct map *maps;	/* sorted by start, not overlapping */
	uint32_t n, cap;
	bool frozen;
};

struct maps {
	struct aspace *as;	/* indexed by space id */
	uint32_t nr_as, cap_as;
	struct hashmap pid2as;	/* pid -> current space id */
};

int maps_init(struct maps *m);
void maps_free(struct maps *m);
/* Returns 0 or -ENOMEM. */
int maps_add(struct maps *m, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
	     uint32_t dso);
int maps_fork(struct maps *m, uint32_t parent_pid, uint32_t child_pid);
int maps_exec(struct maps *m, uint32_t pid);

/* Current space id of pid, or HM_EMPTY when no MMAP was seen for it. */
static inline uint32_t maps_space(const struct maps *m, uint32_t pid)
{
	return hm_get(&m->pid2as, pid, 0);
}

/* The map of space id containing ip, or NULL; freezes the space. */
const struct map *maps_find(struct maps *m, uint32_t space, uint64_t ip);

#endif /* PMIPROF_REPORT_MAPS_H */
