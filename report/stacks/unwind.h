/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Offline unwinding of recorded user stacks (USTACK records, trace 1.3) with
 * libunwind's remote interface: call chains of --call-graph dwarf samples, and
 * the frame-pointer leaf fix-up (the caller a leaf function without a frame
 * hides from an fp chain).  One libunwind address space per process, unwind
 * tables cached per mapped file, simple CFI rows compiled into a fast path
 * (PMIPROF_UNWIND=libunwind: libunwind only; see docs/report.md "Unwinding").
 */
#ifndef PMIPROF_REPORT_UNWIND_H
#define PMIPROF_REPORT_UNWIND_H

#include <stdbool.h>
#include <stdint.h>

#include <pmiprof/trace.h>

struct maps;
struct symbolizer;
struct unwinder;

struct unwind_stats {
	uint64_t samples;		/* unwind_user() calls */
	uint64_t reached_root;		/* ended at _start/main/thread start or a zero return */
	uint64_t truncated;		/* stopped early: stack copy too short, no CFI, ... */
	uint64_t bad_input;		/* damaged registers/stack bytes (counted, not fatal) */
	uint64_t leaf_fixups;		/* unwind_leaf_caller() restored a caller */
	uint64_t fast_frames;		/* frames found with compiled CFI rules */
	uint64_t libunwind_frames;	/* frames found by libunwind (rows the rules cannot express) */
};

/* The maps and symbolizer are borrowed and must outlive the unwinder. */
int unwinder_new(struct unwinder **out, struct symbolizer *sy, struct maps *maps);
void unwinder_free(struct unwinder *u);

/*
 * Call chain of a dwarf sample of process pid taken at user ip: writes at most
 * max addresses leaf first (ips[0] = ip, then return addresses) and returns
 * how many (>= 1), or -errno.  *complete is set when the chain reached a root;
 * otherwise the caller shows a [truncated] frame.
 */
int unwind_user(struct unwinder *u, uint32_t pid, uint64_t ip, const struct trace_ustack *us,
		uint64_t *ips, uint32_t max, bool *complete);

/*
 * fp leaf fix-up: with the sampled user ip, the USTACK words at SP and the fp
 * chain's first return address fp_first, returns the return address of the
 * function containing ip when the fp chain skipped it (the function had not
 * set up a frame), else 0.
 */
uint64_t unwind_leaf_caller(struct unwinder *u, uint32_t pid, uint64_t ip,
			    const struct trace_ustack *us, uint64_t fp_first);

const struct unwind_stats *unwinder_stats(const struct unwinder *u);

#endif /* PMIPROF_REPORT_UNWIND_H */
