/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `report --html` marks on its timeline (html.c): the program phases
 * (as `pmiprof phases` and `plot --phases` find them) and the code regions
 * (as `plot` shades them), each as JSON members of the page's data.
 */
#ifndef PMIPROF_REPORT_HTML_MARKS_H
#define PMIPROF_REPORT_HTML_MARKS_H

#include <stdint.h>

#include "input/session.h"

#define HTML_MAX_REGION_BANDS	5000	/* bands embedded; the rest counted */

/*
 * "phases":{"k":K,"names":[...],"intervals":N,"runs":[[start_ns,end_ns,phase],...]}
 * (a run: consecutive intervals of one phase) from a pass of their own over
 * the trace so opens, with po's interval and max k (NULL: the defaults), or
 * "phases":{"k":0,"note":why} when there are none.
 * *out is malloc'd.
 */
struct phases_opts;
int html_phases_json(const struct session_opts *so, const struct phases_opts *po, char **out);
/*
 * "regions":{"names":[...],"bands":[[begin_ns,end_ns,region],...],"gap_ns":G,"left":N}
 * from the spans of the pass just run on s (reg.want_spans): a region's
 * spans of every thread closer than span_ns / 1000 merge into one band.
 */
int html_regions_json(struct session *s, uint64_t span_ns, char **out);

#endif /* PMIPROF_REPORT_HTML_MARKS_H */
