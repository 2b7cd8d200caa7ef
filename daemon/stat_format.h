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



/*
 * A per-call distribution (stat --regions): count, sum, min and max are
 * exact; the values themselves are kept exactly up to DIST_EXACT_MAX calls,
 * after which they all move into a log-linear histogram of DIST_SUB bins
 * per power of two (quantiles then within 1/DIST_SUB/2 relative), so one
 * distribution never holds more than max(DIST_EXACT_MAX * 8, 66 KiB) bytes.
 */
#define DIST_EXACT_MAX	16384
#define DIST_SUB	64
#define DIST_MAX_MODES	4

struct dist {
	uint64_t n;
	double sum, min, max;
	double *v;			/* exact values, while n <= DIST_EXACT_MAX */
	size_t cap;
	uint64_t *hist;			/* once n > DIST_EXACT_MAX */
};

struct dist_summary {
	uint64_t n;
	bool exact;			/* quantiles from every value, not the histogram */
	double sum, mean, min, median, mode, p99, max;
	/*
	 * Peaks of a histogram of 8 bins per power of two holding >= 5% of the
	 * calls, separated by a valley below half the smaller peak; modes[0]
	 * is the highest.  Each value is the median of the calls in its bin.
	 */
	unsigned int nr_modes;
	double modes[DIST_MAX_MODES];
	double mode_share[DIST_MAX_MODES];	/* fraction of calls in the peak's bin */
};

/* 0 or -ENOMEM (the value is then counted in n/sum/min/max only). */
int dist_add(struct dist *d, double x);
/* Sorts d's exact values (kept sorted afterwards: adding is still allowed). */
void dist_summarize(struct dist *d, struct dist_summary *s);
void dist_free(struct dist *d);
#endif /* PMIPROF_DAEMON_STAT_FORMAT_H */
