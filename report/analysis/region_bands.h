/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Code-region spans (a pass's reg.want_spans) merged into bands to draw on
 * a time axis: `plot` shades them, `report --html` lists and marks them.
 * A region's spans closer than a gap (1/1000 of the axis, so a band is at
 * least visible) form one band.
 */
#ifndef PMIPROF_REPORT_REGION_BANDS_H
#define PMIPROF_REPORT_REGION_BANDS_H

#include <stdint.h>

#include "input/session.h"

struct region_band {
	uint32_t region;
	uint64_t b, e;		/* ns since the start of the recording */
};

/*
 * The bands of s's region spans (sorted by region, then begin, in place),
 * each region's spans merged when the next begins within gap_ns of the
 * band's end.  *out is malloc'd (NULL when there are none).  0 or -ENOMEM.
 */
int region_bands(struct session *s, uint64_t gap_ns, struct region_band **out, uint32_t *n);

#endif /* PMIPROF_REPORT_REGION_BANDS_H */
