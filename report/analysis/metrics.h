/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Derived metrics, found by event name in the trace header:
 *   ipc                 instructions / cycles
 *   <event>-mpki        misses per 1000 instructions, for every *miss* event
 *   branch-miss-pct     branch-misses / branches * 100
 * and, for plots, <event>-rate: per 1000 instructions when instructions
 * were recorded, else per second of CPU time (task-clock/cpu-clock, ns).
 * and the top-down level-1 percentages of slots (frontend, bad-spec,
 * retiring, backend, on AMD smt: at most 8 characters, to fit the report's
 * columns) when the trace holds
 * the events of a row of lib/topdown.c's table ("-e topdown").
 * A metric exists only when all the events it needs were recorded.
 */
#ifndef PMIPROF_REPORT_METRICS_H
#define PMIPROF_REPORT_METRICS_H

#include <stdbool.h>
#include <stdint.h>

#include <pmiprof/trace.h>

enum metric_kind {
	METRIC_RATIO,		/* a / b */
	METRIC_PER_KILO,	/* a * 1000 / b */
	METRIC_PERCENT,		/* a * 100 / b */
	METRIC_PER_SECOND,	/* a * 1e9 / b (b in ns) */
	METRIC_EVENT,		/* a itself (plots of raw per-window counts) */
	METRIC_TOPDOWN,		/* part td_part of td_model's formula, percent */
};

struct td_model;

struct metric {
	char name[160];
	enum metric_kind kind;
	int a, b;		/* event indexes */
	const struct td_model *td_model;	/* METRIC_TOPDOWN: the formula */
	int td_part;				/* enum td_part */
	int td_ev[6];				/* its events' indexes (TD_MAX_EVENTS) */
};

/* METRIC_TOPDOWN's value; false when the window has no slots. */
bool metric_topdown_value(const struct metric *m, const uint64_t *c, double *v);

#define MAX_METRICS (PMIPROF_MAX_EVENTS + 2)

struct metric_set {
	struct metric m[MAX_METRICS * 2];
	uint32_t n;
};

struct event_roles {
	int instructions, cycles, branches, branch_misses, clock;	/* -1 when absent */
};

void event_roles_find(const struct trace_header *h, struct event_roles *r);
/* The report's derived metrics for this header (may be none). */
void metrics_derived(const struct trace_header *h, struct metric_set *out);
/* Parse one plot metric name ("ipc", "<event>", "<event>-rate", any derived
 * name) into m; returns 0 or -ENOENT (unknown name) / -EINVAL (needs events
 * that were not recorded; *why says which). */
int metric_parse(const struct trace_header *h, const char *name, struct metric *m,
		 const char **why);
/* Value of metric m for counts; false when its denominator is zero. */
static inline bool metric_value(const struct metric *m, const uint64_t *c, double *v)
{
	double a = (double)c[m->a];
	double b = m->b >= 0 ? (double)c[m->b] : 1.0;

	if (m->kind == METRIC_EVENT) {
		*v = a;
		return true;
	}
	if (m->kind == METRIC_TOPDOWN)
		return metric_topdown_value(m, c, v);
	if (b == 0)
		return false;
	switch (m->kind) {
	case METRIC_RATIO: *v = a / b; break;
	case METRIC_PER_KILO: *v = a * 1000.0 / b; break;
	case METRIC_PERCENT: *v = a * 100.0 / b; break;
	case METRIC_PER_SECOND: *v = a * 1e9 / b; break;
	default: *v = a; break;
	}
	return true;
}
/* An event name without modifiers (":u", "/.../"), lower-cased, into buf. */
const char *event_base_name(const char *name, char *buf, size_t size);

#endif /* PMIPROF_REPORT_METRICS_H */
