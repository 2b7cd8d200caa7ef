/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A self-contained interactive flame graph (one SVG with its own script, in
 * the spirit of Brendan Gregg's flamegraph.pl): frames from a stack tree
 * (folded.h), widths by the tree's value, colour by DSO or by a per-frame
 * ratio of the tree's two auxiliary sums (IPC = instructions / cycles, or an
 * event per kilo-instruction), with a legend; search with highlight and the
 * matched share, click to zoom, tooltips with counts and shares.
 */
#ifndef PMIPROF_REPORT_FLAMEGRAPH_H
#define PMIPROF_REPORT_FLAMEGRAPH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "output/folded.h"

enum fg_color {
	FG_COLOR_DSO,		/* a hue per frame tag (DSO), lightness by name */
	FG_COLOR_RATIO,		/* aux[0] / aux[1] * scale, inclusive, on a colour ramp */
};

struct fg_opts {
	const char *title;
	const char *subtitle;		/* a second line (trace, events), or NULL */
	uint32_t width;			/* image width in px */
	const char *value_name;		/* what widths count: "samples" or an event */
	enum fg_color color;
	/* FG_COLOR_RATIO: the metric's name ("ipc", "cache-misses per kilo-instruction"),
	 * the factor, and whether a high value is good (IPC) or bad (misses). */
	const char *metric_name;
	double metric_scale;
	bool high_is_good;
	/* The name of a frame tag (a DSO), for colours, tooltips and the legend. */
	const char *(*tag_name)(void *arg, uint32_t tag);
	void *tag_arg;
};

/* Writes the SVG of a sorted tree (stree_sort()).  0 or -errno. */
int flamegraph_write(FILE *f, const struct stree *t, const struct fg_opts *o);

#endif /* PMIPROF_REPORT_FLAMEGRAPH_H */
