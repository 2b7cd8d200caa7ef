/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /metrics' numbers, kept live from what the daemon writes: a tap on each
 * segment's trace writer (trace_writer_set_tap) sees every sample, COMM,
 * FORK, EXIT and LOST record as it is written, and adds it to running
 * totals per (command name, cgroup).  Command names are found as the
 * report finds them (COMM and FORK, report/input/session.c), so the numbers are
 * those `pmiprof report -i DIR --comm W` gives for the same samples; a
 * process's cgroup is read from /proc/PID/cgroup at its first sample.  A
 * scrape only formats the totals: O(series), never reading a segment.
 * Windows and event sums, per-window histograms (IPC and misses per
 * kilo-instruction when the trace has them; the windows' CPU seconds when
 * windows are time-based), losses by reason.
 */
#ifndef PMIPROF_DAEMON_WINDOW_METRICS_H
#define PMIPROF_DAEMON_WINDOW_METRICS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pmiprof/trace.h"

struct window_metrics;

/* cgroups: label series with the process's cgroup (else cgroup="unknown"). */
int window_metrics_new(struct window_metrics **out, const struct trace_header *h,
		       uint32_t top_comms, bool cgroups);
void window_metrics_free(struct window_metrics *m);
/* How many series are named (those already named stay so: their series never vanish). */
void window_metrics_set_top(struct window_metrics *m, uint32_t top_comms);
/* The tap to set on every segment's writer; it locks m itself. */
const struct trace_writer_tap *window_metrics_tap(struct window_metrics *m);
/*
 * Write the exposition of the totals to f: Prometheus text format 0.0.4,
 * or OpenMetrics 1.0 when om (families of counters named without _total;
 * the caller ends with "# EOF").  0 or -errno.
 */
int window_metrics_write(struct window_metrics *m, FILE *f, bool om);
/* "# HELP" and "# TYPE" of a metric family, in either format. */
void metrics_family(FILE *f, const char *name, const char *type, const char *help, bool om);

#endif /* PMIPROF_DAEMON_WINDOW_METRICS_H */
