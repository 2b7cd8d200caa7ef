/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /metrics' numbers, taken from the segments on disk with the report's own
 * session pass (report/session.c), so they are the numbers `pmiprof report
 * -i DIR --comm W` gives for the same samples: windows and event sums per
 * command name, per-window histograms (IPC and misses per kilo-instruction
 * when the trace has them; the windows' CPU seconds when windows are
 * time-based), losses by reason.  Closed segments of this run are added
 * once to running totals; the open one is read again at each scrape up to
 * its last complete chunk, so every counter only grows.
 */
#ifndef PMIPROF_DAEMON_WINDOW_METRICS_H
#define PMIPROF_DAEMON_WINDOW_METRICS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pmiprof/trace.h"
#include "trace_dir.h"

struct window_metrics;

/* first_segment: the name of this run's first segment (older ones are not counted). */
int window_metrics_new(struct window_metrics **out, const struct trace_header *h,
		       uint32_t top_comms);
void window_metrics_free(struct window_metrics *m);
/* How many commands are named (those already named stay so: their series never vanish). */
void window_metrics_set_top(struct window_metrics *m, uint32_t top_comms);
/* Add a closed segment (dir/name) to the running totals.  0 or -errno. */
int window_metrics_add_closed(struct window_metrics *m, const char *dir, const char *name);
/*
 * Write the exposition of the totals plus the open segment dir/open_name
 * (NULL: none) to f: Prometheus text format 0.0.4, or OpenMetrics 1.0 when
 * om (families of counters named without _total; the caller ends with
 * "# EOF").  0 or -errno.
 */
int window_metrics_write(struct window_metrics *m, const char *dir, const char *open_name,
			 FILE *f, bool om);
/* "# HELP" and "# TYPE" of a metric family, in either format. */
void metrics_family(FILE *f, const char *name, const char *type, const char *help, bool om);

#endif /* PMIPROF_DAEMON_WINDOW_METRICS_H */
