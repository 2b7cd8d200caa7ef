/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbolized call stacks of a report session (trace 1.3 STACK/USTACK
 * records): each distinct stack is resolved once and gets a report-wide id,
 * so views (children, tree, folded, pprof, flame graphs) aggregate by id.
 */
#ifndef PMIPROF_REPORT_CALLSTACK_H
#define PMIPROF_REPORT_CALLSTACK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <pmiprof/trace.h>

#define CS_F_KERNEL	(1u << 0)	/* a kernel frame */
#define CS_F_INLINE	(1u << 1)	/* an inlined frame (--inline) */
#define CS_F_TRUNCATED	(1u << 2)	/* the [truncated] marker: the chain ends early */
#define CS_F_FIXUP	(1u << 3)	/* restored by the fp leaf fix-up */

#define CS_NONE		UINT32_MAX	/* a sample without a stack */

/*
 * Stacks are interned by their frames' (sym, flags): addr is the address of
 * the first sample that produced this stack (a representative, as recorded:
 * return addresses not adjusted; the symbol was looked up at addr - 1).
 */
struct cs_frame {
	uint64_t addr;			/* as recorded (return addresses not adjusted) */
	uint32_t sym;			/* symbolizer sym id */
	uint32_t flags;			/* CS_F_* */
};

/* A distinct stack, leaf first: frames[0] is the sampled function, the last the root. */
struct cs_stack {
	uint32_t nr;
	const struct cs_frame *frames;
};

struct callstacks;

uint32_t callstacks_count(const struct callstacks *c);
const struct cs_stack *callstacks_get(const struct callstacks *c, uint32_t id);

/*
 * HOW A PASS GETS EACH SAMPLE'S STACK: set session_opts.stacks = &callstack_hooks before
 * session_open(); the session then resolves the stack of every kept sample
 * before calling the session_sample_fn, and inside the callback
 *	s->stack	is that sample's report-wide stack id (CS_NONE: none),
 *	s->cs		the table to pass to callstacks_get() (struct session).
 * s->cs is NULL when the trace has no stacks (header call_graph NONE, or
 * stacks were not asked for).  A sample recorded without a stack in a trace
 * with stacks (the fp walk found no frame) gets its leaf and the [truncated]
 * marker (the leaf alone when it is a root), so s->stack is CS_NONE only
 * when s->cs is NULL.  Ids are dense
 * from 0 and stable for the whole report; the frames of a stack never change.
 * Stack views are serial passes (parallel.c declines when stacks are asked).
 */
struct cs_stats {
	uint64_t samples;		/* kept samples with a stack (recorded or not) */
	uint64_t rooted;		/* ...whose chain reached a root (_start, main, thread start) */
	uint64_t truncated;		/* ...ending in [truncated] */
	uint64_t fixups;		/* ...where the fp leaf fix-up restored the leaf's caller */
	uint64_t dwarf;			/* ...unwound from a USTACK (--call-graph dwarf) */
	uint64_t damaged;		/* undefined ids, bad STACK/USTACK records (counted, shown
					 * as [truncated]) */
};
const struct cs_stats *callstacks_stats(const struct callstacks *c);
/* Warn (pm_warn) once when most stacks end in [truncated]: why, and what to record instead. */
void callstacks_print_warnings(const struct callstacks *c);

/* Whether frame f is the [truncated] marker (also: f->flags & CS_F_TRUNCATED). */
static inline bool cs_frame_truncated(const struct cs_frame *f)
{
	return (f->flags & CS_F_TRUNCATED) != 0;
}

struct symbolizer;
/* Brendan Gregg's folded form of stack id, root first: "root;...;leaf" (no count). */
void callstacks_print_folded(FILE *f, const struct callstacks *c, const struct symbolizer *sy,
			     uint32_t id);

/*
 * What a pass sets as session_opts.stacks to get stacks (input/session.h):
 * the functions below, called by the session.
 */
struct session_stack_hooks;
extern const struct session_stack_hooks callstack_hooks;

/* ---- called through callstack_hooks (and by unit tests) ---- */
struct session;
struct unwinder;
/* leaf_fixup: apply unwind_leaf_caller() to fp samples with leaf words. */
int callstacks_new(struct callstacks **out, struct session *s, bool leaf_fixup);
void callstacks_free(struct callstacks *c);
/* A STACK record of chunk chunk_seq (ids restart in every chunk): 0 or -errno. */
int callstacks_define(struct callstacks *c, uint32_t chunk_seq, const struct trace_stack *st);
/*
 * Report-wide stack id of a kept sample of chunk chunk_seq whose IP resolved
 * to leaf_sym; us is the USTACK record that followed it, or NULL.  Sets *id
 * (smp->stack == 0: the leaf, fixed up when possible, and [truncated]);
 * damage is counted, never an error.
 * Returns 0 or -ENOMEM.
 */
int callstacks_resolve(struct callstacks *c, const struct trace_sample *smp, uint32_t chunk_seq,
		       uint32_t leaf_sym, const struct trace_ustack *us, uint32_t *id);
/* Interns a symbolized stack (leaf first): its id, or -ENOMEM. */
int64_t callstacks_intern(struct callstacks *c, const struct cs_frame *frames, uint32_t nr);

#endif /* PMIPROF_REPORT_CALLSTACK_H */
