/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Call stacks out to the viewers people use: `report --format folded`,
 * `report --format pprof` and `pmiprof flamegraph`.  One serial session pass
 * each (stacks need it), over the symbolized stacks of callstack.h.
 *
 * Frame names are the flat report's (function, [unknown], [truncated]) with
 * stackcollapse-perf's "_[k]" after kernel frames, as the --windows stack
 * column writes them; a function name that several DSOs have in the trace
 * carries its DSO ("_start [ld-linux-x86-64.so.2]"), so frames merge only
 * when they are the same function of the same DSO.  A sample recorded without a stack in a trace with
 * stacks is its leaf function under a [truncated] frame.
 */
#ifndef PMIPROF_REPORT_STACK_EXPORT_H
#define PMIPROF_REPORT_STACK_EXPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "stacks/callstack.h"
#include "output/flamegraph.h"
#include "output/folded.h"
#include "analysis/metrics.h"
#include "input/session.h"

/* Per distinct stack: samples and event sums (window_counts_events() rule). */
struct sx_row {
	uint64_t samples;
	uint64_t counts[PMIPROF_MAX_EVENTS];
};

struct stack_agg {
	struct session *s;
	struct sx_row *rows;		/* by report-wide stack id */
	uint32_t nr_rows;
	int64_t trunc_sym;		/* for samples without a stack */
};

int stack_agg_init(struct stack_agg *a, struct session *s);
void stack_agg_free(struct stack_agg *a);
/* session_sample_fn (arg = stack_agg). */
int stack_agg_sample(void *arg, const struct trace_sample *smp, uint64_t index, uint32_t sym,
		     uint32_t comm);
/*
 * The tree of the aggregated stacks (sorted): value = samples (value_event
 * < 0) or that event's sum; aux = the counts of metric m's two events
 * (m NULL: none).  0 or -errno.
 */
int stack_agg_tree(const struct stack_agg *a, int value_event, const struct metric *m,
		   struct stree *t);

/* The stack id of the sample in the callback: s->stack, or leaf + [truncated]. */
int stack_of_sample(struct session *s, uint32_t leaf_sym, int64_t *trunc_sym, uint32_t *id);
/* A frame's name as folded stacks and flame graphs show it (buf when decorated). */
const char *stack_frame_name(const struct session *s, const struct cs_frame *f, char *buf,
			     size_t size);
/* The event index of name in the trace, or -1 (after a message listing the events). */
int stack_value_event(const struct session *s, const char *name, const char *cmd);
/* -ENOENT with a message when the trace has no call stacks. */
int stack_require(const struct session *s, const char *cmd);

/*
 * The pprof pass of `report --format pprof`, for callers that feed their
 * own session (the daemon's live profiles, session_open_live()): open
 * writes the sample types (value_event as report's --value, -1 samples);
 * pprof_pass_sample() is a session_sample_fn (arg = the pass), each
 * window one Sample with numeric label label_key = its index (NULL: none);
 * pprof_pass_forget() after session_live_restart() (stack ids start
 * again); close writes the tables (commit) and frees the pass.  0 or -errno.
 */
struct pp_pass;
int pprof_pass_open(struct pp_pass **out, struct session *s, const char *path,
		    int value_event, const char *label_key);
int pprof_pass_sample(void *arg, const struct trace_sample *smp, uint64_t index, uint32_t sym,
		      uint32_t comm);
int pprof_pass_forget(struct pp_pass *pp);
int pprof_pass_close(struct pp_pass *pp, bool commit, int64_t time_ns, int64_t duration_ns);

/* `report --format folded` to out: exit status. */
int report_folded(const struct session_opts *so, const char *value, const char *output);
/* `report --format pprof -o path`: exit status. */
int report_pprof(const struct session_opts *so, const char *value, const char *path);

#endif /* PMIPROF_REPORT_STACK_EXPORT_H */
