/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmiprof record's side of the code-region shared memory (mode MARKERS,
 * lib/region/region_shm.h, docs/regions.md): the workload's
 * libpmiprof-region writes BEGIN/END markers into per-thread rings; the
 * recorder collects them, sorts them by time and writes them into the trace
 * (REGION_DEF, REGION, REGION_ANOMALY records, docs/trace-format.md)
 * interleaved with the samples in time order: the perf backend calls
 * record_regions_flush() with each record's time before writing it.
 */
#ifndef PMIPROF_DAEMON_RECORD_REGIONS_H
#define PMIPROF_DAEMON_RECORD_REGIONS_H

#include <stdint.h>

#include "pmiprof/trace.h"

struct record_regions;
struct trace_writer;

/*
 * Create the shared memory and export its descriptor in PMIPROF_REGIONS_FD
 * (before the workload is forked, so it inherits both).  Not yet visible to
 * the library: record_regions_arm() publishes it.  0 or -errno.
 */
int record_regions_new(struct record_regions **out);
/*
 * The header is complete (backend open): hand its hardware events to the
 * library (values read with rdpmc where the kernel allows it) and publish
 * the shared memory.  Sets PMIPROF_TRACE_F_REGIONS in h.
 */
void record_regions_arm(struct record_regions *rr, struct trace_header *h);
/* Take what the threads have published; returns the CLOCK_MONOTONIC read before. */
uint64_t record_regions_collect(struct record_regions *rr);
/* Write the collected markers with time <= upto, in time order.  0 or -errno. */
int record_regions_flush(struct record_regions *rr, struct trace_writer *w, uint64_t upto);
/*
 * The workload is gone: write every marker left, the anomalies the threads
 * counted and one LOST (reason REGION_MARKERS) for markers dropped in full
 * rings.  0 or -errno.
 */
int record_regions_finish(struct record_regions *rr, struct trace_writer *w, uint64_t time);
/* Markers written and dropped so far, for the summary line. */
void record_regions_counts(const struct record_regions *rr, uint64_t *written,
			   uint64_t *dropped, uint32_t *regions);
void record_regions_free(struct record_regions *rr);

#endif /* PMIPROF_DAEMON_RECORD_REGIONS_H */
