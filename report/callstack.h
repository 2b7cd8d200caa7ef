/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbolized call stacks of a report session (trace 1.3 STACK/USTACK
 * records): each distinct stack is resolved once and gets a report-wide id,
 * so views (children, tree, folded, pprof, flame graphs) aggregate by id.
 */
#ifndef PMIPROF_REPORT_CALLSTACK_H
#define PMIPROF_REPORT_CALLSTACK_H

#include <stdint.h>

#define CS_F_KERNEL	(1u << 0)	/* a kernel frame */
#define CS_F_INLINE	(1u << 1)	/* an inlined frame (--inline) */
#define CS_F_TRUNCATED	(1u << 2)	/* the [truncated] marker: the chain ends early */
#define CS_F_FIXUP	(1u << 3)	/* restored by the fp leaf fix-up */

#define CS_NONE		UINT32_MAX	/* a sample without a stack */

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

#endif /* PMIPROF_REPORT_CALLSTACK_H */
