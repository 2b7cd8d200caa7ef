/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sparse tables of `report --html` (html.c): cells (time bucket, id) ->
 * windows and event sums, aggregated while the pass streams, so memory
 * follows the buckets x ids in use, not the windows.  Buckets can be
 * merged by a factor (the pass coarsens while the recording grows), and a
 * table goes into the page as column arrays.
 */
#ifndef PMIPROF_REPORT_HTML_CELLS_H
#define PMIPROF_REPORT_HTML_CELLS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hashmap.h"

struct hcells {
	struct hashmap idx;		/* (bucket, id) -> cell */
	uint32_t nev, n, cap;
	uint64_t *v;			/* per cell: bucket, id, windows, nev sums */
};

int cells_init(struct hcells *c, uint32_t nev, uint32_t hint);
void cells_free(struct hcells *c);
/* One window into (bucket, id); its counts go into the sums only when sums. */
int cells_add(struct hcells *c, uint64_t bucket, uint32_t id, const uint64_t *counts, bool sums);
/* Every bucket b becomes b / div, cells of the same (bucket, id) merged. */
int cells_rebucket(struct hcells *c, uint64_t div);
/*
 * "name":{"b":[bucket deltas],"i":[ids],"n":[windows],"c":[[sums of event 0],...]},
 * sorted by (bucket, id); ids through remap when it is not NULL.
 */
void cells_json(FILE *f, const char *name, struct hcells *c, const uint32_t *remap);
/*
 * Keep only the cells whose id remap gives (not UINT32_MAX), renumbered:
 * for the page only, the table takes no cells_add() afterwards.
 */
void cells_keep(struct hcells *c, const uint32_t *remap);

#endif /* PMIPROF_REPORT_HTML_CELLS_H */
