/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The annotate pane of `report --html` (docs/html.md): per sampled address
 * cells (time bucket, address) -> windows and event sums, gathered in the
 * page's pass, and for the hottest functions (capped: at most
 * HANN_MAX_FUNCS functions, HANN_MAX_INSNS instructions and HANN_MAX_CELLS
 * cells in all) their
 * instructions, source lines and text, so the page shows a function's
 * lines and instructions for any selected range with the numbers of
 * `pmiprof annotate --time A,B`.  Functions are embedded hottest first until 95 % of the samples.
 */
#ifndef PMIPROF_REPORT_HTML_ANNOTATE_H
#define PMIPROF_REPORT_HTML_ANNOTATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/annotate.h"
#include "output/html_cells.h"

#define HANN_MAX_FUNCS	20
#define HANN_MAX_INSNS	8000
#define HANN_MAX_CELLS	60000	/* (bucket, address) cells: ~2.5 MB of the 5 MB page budget */
#define HANN_TEXT_MAX	160	/* bytes of a source line's text in the page */

struct html_ann {
	struct annotate ann;
	struct hcells cells;	/* (bucket, address index) */
};

int html_ann_init(struct html_ann *h, struct session *s, uint32_t nev);
void html_ann_free(struct html_ann *h);
/* One kept window of the pass (c: its counts, into the sums when sums). */
int html_ann_add(struct html_ann *h, uint64_t bucket, const struct trace_sample *smp,
		 uint32_t sym, const uint64_t *c, bool sums);
int html_ann_rebucket(struct html_ann *h, uint64_t div);
/*
 * ,"ann":{"fns":[...]},"ac":{cells} into the page's data; sym_remap: the
 * page's index of each symbol (write_syms()).  0 or -errno.
 */
int html_ann_json(FILE *f, struct html_ann *h, const uint32_t *sym_remap);

#endif /* PMIPROF_REPORT_HTML_ANNOTATE_H */
