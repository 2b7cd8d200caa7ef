// SPDX-License-Identifier: GPL-2.0
/*
 * Phases drawn: a colour per phase and the gnuplot objects of plot
 * --phases (a band per run of consecutive intervals in one phase).
 */
#include <stdio.h>

#include "output/phases_bands.h"
#include "util.h"

static const char *const phase_colors[] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
	"#bcbd22", "#17becf",
};

const char *phases_color(uint32_t phase)
{
	return phase_colors[phase % ARRAY_SIZE(phase_colors)];
}

uint32_t phases_gnuplot_bands(FILE *f, const struct phases_result *r, uint32_t first)
{
	const struct phases_builder *b = &r->b;
	uint32_t i = 0, j, nobj = 0;

	/* one band per run of consecutive intervals in the same phase */
	while (i < b->n) {
		for (j = i; j + 1 < b->n && b->iv[j + 1].phase == b->iv[i].phase; j++)
			;
		fprintf(f, "set object %u rect from %.9f, graph 0 to %.9f, graph 0.04 fc rgb \"%s\" "
			"fs solid 0.9 noborder front\n", first + nobj++,
			(double)b->iv[i].start_ns / 1e9, (double)b->iv[j].end_ns / 1e9,
			phases_color(b->iv[i].phase));
		fprintf(f, "set object %u rect from %.9f, graph 0 to %.9f, graph 1 fc rgb \"%s\" "
			"fs transparent solid 0.08 noborder behind\n", first + nobj++,
			(double)b->iv[i].start_ns / 1e9, (double)b->iv[j].end_ns / 1e9,
			phases_color(b->iv[i].phase));
		i = j + 1;
	}
	return r->c.k;
}

