/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmiprof stat's per-event value, as perf stat shows it: "<not counted>"
 * for a counter that never ran, the count scaled by enabled/running time
 * when the kernel multiplexed it, with the share of time it ran.  Separate
 * from cmd_stat.c so the cases a machine cannot produce (multiplexing needs
 * a PMU with more events than counters) are unit-tested.
 */
#ifndef PMIPROF_DAEMON_STAT_FORMAT_H
#define PMIPROF_DAEMON_STAT_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Sum over a counter's fds of read_format TOTAL_TIME_ENABLED|RUNNING reads. */
struct stat_reading {
	uint64_t value;
	uint64_t enabled;		/* ns */
	uint64_t running;		/* ns */
};

/*
 * The value to show: value * enabled / running, and pct = 100 * running /
 * enabled (100 when enabled is 0).  false when the counter never ran
 * (running == 0): there is no value, only "<not counted>".
 */
bool stat_scale(const struct stat_reading *r, double *value, double *pct);

/*
 * One output line without the newline.  sep == NULL: perf stat's layout,
 * "<value> [msec] <name> <extra>" then " (NN.NN%)" when multiplexed;
 * otherwise "value SEP name SEP running%" ("<not counted>" as value).
 * time_based events (ns) are shown in msec.  extra may be NULL.
 */
void stat_format_line(char *buf, size_t len, const char *name, bool time_based,
		      const struct stat_reading *r, const char *sep, const char *extra);

#endif /* PMIPROF_DAEMON_STAT_FORMAT_H */
