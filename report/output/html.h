/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `pmiprof report --html`: one self-contained page (docs/html.md).  One
 * session pass pre-aggregates the kept windows by time bucket: per bucket
 * the windows and event sums, per (bucket, function) and per (bucket, call
 * stack) the samples and event sums, sparse.  The page (report/output/html/, its
 * npm libraries embedded at build time) sums the buckets of a selected
 * range, so a range of whole buckets equals `report --time A,B`.
 */
#ifndef PMIPROF_REPORT_HTML_H
#define PMIPROF_REPORT_HTML_H

#include <stdbool.h>
#include <stdint.h>

#include "input/session.h"

#define HTML_DEFAULT_BUCKETS	1000

struct phases_opts;

/*
 * Writes the page of the trace so names to path ("-" = stdout), its phases
 * found with po (`pmiprof phases --html`; NULL: phases' defaults): exit status.
 */
int report_html(const struct session_opts *so, const char *path, uint32_t buckets,
		const struct phases_opts *po);

/*
 * Whether the page's libraries were embedded at build time, from their
 * embedded lengths (0: the file was absent when html_assets.h was made).
 */
bool html_libs_embedded(unsigned int uplot_js, unsigned int uplot_css,
			unsigned int flamegraph_js, unsigned int flamegraph_css);

/*
 * 0 when this build can write the page; else says which command fixes it
 * (make deps && make) and returns -ENOENT.  PMIPROF_TEST_NO_HTML_LIBS set:
 * as if the libraries were absent (tests).
 */
int html_check_libs(void);

#endif /* PMIPROF_REPORT_HTML_H */
