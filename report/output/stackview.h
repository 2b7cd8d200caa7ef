/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf-style views of call stacks: --children (inclusive and self shares,
 * each function counted once per sample even when recursive, per-event
 * inclusive sums), --tree (caller -> callee tree with percentages) and
 * --callers/--callees SYM.  Samples are aggregated per report-wide stack id
 * during the pass (callstack.h), the views are computed once per distinct
 * stack at the end.
 */
#ifndef PMIPROF_REPORT_STACKVIEW_H
#define PMIPROF_REPORT_STACKVIEW_H

#include <stdint.h>
#include <stdio.h>

#include "output/format.h"
#include "analysis/metrics.h"
#include "input/session.h"

enum sv_kind { SV_CHILDREN, SV_TREE, SV_CALLERS, SV_CALLEES };

struct sv_agg {
	uint32_t stack;			/* report-wide stack id, or CS_NONE */
	uint32_t leaf;			/* leaf sym (the stack's frames[0] when it has one) */
	uint64_t samples;
	uint64_t counts[PMIPROF_MAX_EVENTS];
};

/* One function of the --children view. */
struct sv_row {
	uint32_t sym;
	uint64_t children, self;	/* samples */
	uint64_t incl[PMIPROF_MAX_EVENTS], excl[PMIPROF_MAX_EVENTS];
};

struct stackview {
	struct session *s;
	uint32_t nr_events;
	struct sv_agg *aggs;
	uint32_t nr_aggs, cap_aggs;
	struct hashmap idx;		/* leaf of a sample without a stack -> agg */
	uint32_t *by_stack;		/* stack id -> agg + 1 (0: none yet), ids being dense */
	uint32_t cap_by_stack;
	uint64_t samples;
	/* --children */
	struct sv_row *rows;		/* rows[sym] */
	uint32_t nr_rows;
};

int stackview_init(struct stackview *v, struct session *s);
void stackview_free(struct stackview *v);
/* session_sample_fn (arg = struct stackview): needs s->cs (session_opts.stacks). */
int stackview_add(void *arg, const struct trace_sample *smp, uint64_t index, uint32_t sym,
		  uint32_t comm);
/* Fills rows: children/self per function (recursion counted once per sample). */
int stackview_children(struct stackview *v);

struct sv_opts {
	enum sv_kind kind;
	enum out_format format;
	uint32_t limit;			/* rows, 0 = all */
	double percent_limit;		/* --tree: hide paths below this % of all samples */
	const char *sym;		/* --callers/--callees: glob on function names */
	const char *sort;		/* --children: children (default), self, EVENT, name */
	const struct metric_set *metrics;
};

/* Prints the view (computing what it needs): 0, -ENOENT (no such function), -errno. */
int stackview_print(FILE *f, struct stackview *v, const struct sv_opts *o);

#endif /* PMIPROF_REPORT_STACKVIEW_H */
