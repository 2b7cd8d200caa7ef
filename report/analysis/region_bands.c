// SPDX-License-Identifier: GPL-2.0
/* Code-region spans merged into bands on a time axis (region_bands.h). */
#include <errno.h>
#include <stdlib.h>

#include "analysis/region_bands.h"

static int span_cmp(const void *a, const void *b)
{
	const struct region_span *x = a, *y = b;

	if (x->region != y->region)
		return x->region < y->region ? -1 : 1;
	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

int region_bands(struct session *s, uint64_t gap_ns, struct region_band **out, uint32_t *n)
{
	struct regions *r = &s->reg;
	struct region_band *bd;
	uint32_t i, nb = 0;

	*out = NULL;
	*n = 0;
	if (!r->nr_spans)
		return 0;
	bd = malloc(r->nr_spans * sizeof(*bd));
	if (!bd)
		return -ENOMEM;
	qsort(r->spans, r->nr_spans, sizeof(*r->spans), span_cmp);
	for (i = 0; i < r->nr_spans; i++) {
		const struct region_span *sp = &r->spans[i];
		uint64_t sb = session_time_ns(s, sp->begin), se = session_time_ns(s, sp->end);

		if (nb && bd[nb - 1].region == sp->region && sb <= bd[nb - 1].e + gap_ns) {
			bd[nb - 1].e = se > bd[nb - 1].e ? se : bd[nb - 1].e;
			continue;
		}
		bd[nb++] = (struct region_band){ sp->region, sb, se > sb ? se : sb };
	}
	*out = bd;
	*n = nb;
	return 0;
}
