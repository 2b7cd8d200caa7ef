/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Annotate's aggregation: samples and every event's window counts per
 * sampled address (DSO, file offset), by the report's attribution rule
 * (a window's counts go to the address whose sample closes it); then, for
 * one function, its instructions (disassembled from the file the
 * symbolizer chose) and its source lines (libdw's line table, inline
 * scopes), each with the counts of the addresses it holds.  Per-window
 * moments of every derived metric's two events are kept too, so a line's
 * or an instruction's IPC comes with a confidence interval.
 */
#ifndef PMIPROF_REPORT_ANNOTATE_H
#define PMIPROF_REPORT_ANNOTATE_H

#include <stdbool.h>
#include <stdint.h>

#include <pmiprof/trace.h>

#include "analysis/metrics.h"
#include "hashmap.h"
#include "input/session.h"
#include "symbols/disasm.h"

/* Derived metrics that get a confidence interval (the first ones: ipc, mpki, ...). */
#define ANN_MAX_MOM 8

/* Counts of a set of windows: an address, an instruction, a line, a function. */
struct ann_counts {
	uint64_t samples;
	uint64_t counts[PMIPROF_MAX_EVENTS];
	/* per derived metric m < ANN_MAX_MOM (a/b): sums over windows of a*a, a*b, b*b */
	double mom[ANN_MAX_MOM][3];
};

struct ann_addr {
	uint32_t dso;		/* symbolizer dso; for kernel addresses the sym's dso */
	uint32_t sym;		/* the flat profile's function */
	uint64_t off;		/* file offset; kernel: the address itself */
	bool kernel;
	struct ann_counts c;
};

struct ann_func {
	uint32_t sym, dso;
	bool kernel;
	struct ann_counts c;
	uint32_t first;		/* its addresses: order[first .. first + nr) */
	uint32_t nr;
};

struct annotate {
	struct session *s;
	struct metric_set ms;	/* derived metrics of the trace (moments kept for these) */
	struct hashmap at;	/* (off, dso | kernel bit) -> addrs index */
	struct ann_addr *addrs;
	uint32_t nr_addrs, cap_addrs;
	uint64_t samples;	/* kept samples */
	uint64_t unplaced;	/* kept samples of JIT code or unmapped addresses */
	/* annotate_group(): functions, hottest first, and addresses by function */
	struct ann_func *funcs;
	uint32_t nr_funcs;
	uint32_t *order;	/* addrs indexes grouped by function, by address */
};

int annotate_init(struct annotate *a, struct session *s);
void annotate_free(struct annotate *a);
/* session_sample_fn (arg = struct annotate). */
int annotate_add_sample(void *arg, const struct trace_sample *smp, uint64_t index,
			uint32_t sym, uint32_t comm);
/* The same, giving the sample's address index (UINT32_MAX: JIT or unmapped): 0 or -errno. */
int annotate_add(struct annotate *a, const struct trace_sample *smp, uint32_t sym, uint32_t *idx);
/* Group the addresses into functions, ordered by samples (or event when >= 0). */
int annotate_group(struct annotate *a, int event);

/* A metric's value and 95 % interval (ratio estimator, delta method); false: none. */
bool ann_metric(const struct ann_counts *c, const struct metric *m, uint32_t mi, double *v,
		double *lo, double *hi);
void ann_counts_add(struct ann_counts *to, const struct ann_counts *from, uint32_t nr_events,
		    uint32_t nr_metrics);

/* ---- one function's view ---- */

struct ann_insn {
	struct insn in;		/* in.len 0: a sampled address no instruction starts at */
	struct ann_counts c;
	uint64_t off;		/* file offset of in.addr */
	uint32_t line;		/* index into ann_view.lines, UINT32_MAX: no line */
	bool back_edge;		/* a jump to itself or an earlier address of the function */
	bool target_inside;	/* has_target within the function */
};

struct ann_line {
	const char *file;	/* as the line table names it */
	const char *comp_dir;
	int line;
	uint32_t depth;
	char inl[512];		/* inline chain, innermost first ("" outside inlined code) */
	struct ann_counts c;
	uint32_t nr_insns;
	uint64_t first_addr;
};

struct ann_view {
	const struct ann_func *f;
	const char *name;	/* function name as the report prints it */
	const char *dso_name;
	struct func_code code;
	bool have_lines;	/* the file has DWARF lines */
	struct ann_insn *insns;
	uint32_t nr_insns;
	struct ann_line *lines;
	uint32_t nr_lines;
	uint32_t hottest_insn;	/* UINT32_MAX when none has samples */
	uint32_t hottest_line;
	uint64_t undecoded;	/* samples at addresses inside no decoded instruction */
	uint32_t *addr_insn;	/* per address of the function (f->first + i): its insns index */
	const char *why;	/* no instructions: why (kernel, JIT, missing file, ...) */
};

/* Build the view of function fi with disassembler d: 0 or -errno (ENOMEM). */
int annotate_view(struct annotate *a, uint32_t fi, struct disasm *d, struct ann_view *v);
void ann_view_free(struct ann_view *v);

#endif /* PMIPROF_REPORT_ANNOTATE_H */
