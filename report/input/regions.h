/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Code regions in a trace (1.4 REGION_DEF / REGION / REGION_ANOMALY
 * records, written by `pmiprof record` from libpmiprof-region markers):
 * the open regions of every thread as the pass reads the trace in time
 * order, so each window can be attributed to the innermost region open on
 * its thread at the sample time.  Region names are dense ids (0..nr-1);
 * REGIONS_NONE is "[no region]".  Closed spans are kept for plots.
 */
#ifndef PMIPROF_REPORT_REGIONS_H
#define PMIPROF_REPORT_REGIONS_H

#include <stdbool.h>
#include <stdint.h>

#include <pmiprof/trace.h>

#include "hashmap.h"
#include "strtab.h"

#define REGIONS_NONE		UINT32_MAX
#define REGIONS_NO_NAME		"[no region]"
#define REGIONS_MAX_DEPTH	256	/* deeper BEGINs are counted, not tracked */
#define REGIONS_MAX_SPANS	100000	/* kept for plots; more are counted */

struct region_thread {
	uint32_t pid, tid;
	uint32_t depth;
	uint32_t stack[REGIONS_MAX_DEPTH];	/* dense ids, outermost first */
	uint64_t since[REGIONS_MAX_DEPTH];	/* BEGIN time (trace clock) */
};

struct region_span {
	uint64_t begin, end;		/* trace clock */
	uint32_t region;		/* dense id */
	uint32_t tid;
	uint32_t depth;
};

struct regions {
	struct strtab names;		/* dense id -> name */
	struct hashmap id2name;		/* trace REGION id -> dense id */
	struct hashmap tid2thread;
	struct region_thread *threads;
	uint32_t nr_threads, cap_threads;
	/* the pass's counts */
	uint64_t markers;
	uint64_t undefined;		/* markers of an id without REGION_DEF */
	uint64_t unmatched_ends;	/* END of a region not open on its thread */
	uint64_t too_deep;
	uint64_t anomalies[PMIPROF_REGION_AN_MAX + 1];	/* last: unknown kinds */
	/* spans (want_spans) */
	bool want_spans;
	struct region_span *spans;
	uint32_t nr_spans, cap_spans;
	uint64_t spans_dropped;
};

int regions_init(struct regions *r);
void regions_free(struct regions *r);
int regions_def(struct regions *r, const struct trace_region_def *d);
int regions_marker(struct regions *r, const struct trace_region *m);
void regions_anomaly(struct regions *r, const struct trace_region_anomaly *a);
/* Innermost region open on tid now, or REGIONS_NONE. */
uint32_t regions_innermost(const struct regions *r, uint32_t tid);
/* Whether region (dense id) is open on tid now, at any depth. */
bool regions_open_on(const struct regions *r, uint32_t tid, uint32_t region);
static inline uint32_t regions_count(const struct regions *r)
{
	return r->names.n;
}
static inline const char *regions_name(const struct regions *r, uint32_t region)
{
	return region == REGIONS_NONE ? REGIONS_NO_NAME : strtab_str(&r->names, region);
}
/* Dense id of a name seen so far, or REGIONS_NONE. */
uint32_t regions_find(const struct regions *r, const char *name);
/* Close every open region at time (spans for plots); 0 or -ENOMEM. */
int regions_close_all(struct regions *r, uint64_t time);
/* Regions still open at the end of the pass: one line per thread into buf. */
void regions_open_text(const struct regions *r, char *buf, size_t len);
uint64_t regions_open_count(const struct regions *r);

#endif /* PMIPROF_REPORT_REGIONS_H */
