// SPDX-License-Identifier: GPL-2.0
/*
 * Phases and code regions for the timeline of `report --html`
 * (html_marks.h): phases_detect() (cmd_phases.c) and the region spans the
 * session records, written as JSON for the page's bands and its list.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/phases.h"
#include "output/format.h"
#include "analysis/region_bands.h"
#include "output/html_marks.h"
#include "input/regions.h"
#include "util.h"

static int phases_write(FILE *f, const struct session *s, const struct phases_result *r)
{
	static char names[PHASES_MAX_K][96];
	const struct phases_builder *b = &r->b;
	uint32_t i, j, p;
	int rc = phases_names(s, r, &names[0][0], sizeof(names[0]));

	if (rc)
		return rc;
	fprintf(f, "\"phases\":{\"k\":%u,\"intervals\":%u,\"names\":[", r->c.k, b->n);
	for (p = 0; p < r->c.k; p++) {
		fputs(p ? "," : "", f);
		json_str(f, names[p]);
	}
	fputs("],\"runs\":[", f);
	/* one run per stretch of consecutive intervals in the same phase (as plot's bands) */
	for (i = 0; i < b->n; i = j + 1) {
		for (j = i; j + 1 < b->n && b->iv[j + 1].phase == b->iv[i].phase; j++)
			;
		fprintf(f, "%s[%" PRIu64 ",%" PRIu64 ",%u]", i ? "," : "", b->iv[i].start_ns,
			b->iv[j].end_ns, b->iv[i].phase);
	}
	fputs("]}", f);
	return 0;
}

int html_phases_json(const struct session_opts *so, const struct phases_opts *po, char **out)
{
	static const struct phases_opts defaults;
	struct phases_result r;
	struct session s;
	size_t len;
	FILE *f = open_memstream(out, &len);
	int rc;

	if (!f)
		return -errno;
	rc = session_open(&s, so);
	if (rc) {
		fclose(f);
		return rc;
	}
	rc = phases_detect(&s, po ? po : &defaults, &r);
	if (rc == -ENODATA) {
		fputs("\"phases\":{\"k\":0,\"note\":\"no windows to find phases in\"}", f);
		rc = 0;
	} else if (!rc) {
		rc = phases_write(f, &s, &r);
	}
	phases_result_free(&r);
	session_close(&s);
	if (fclose(f) && !rc)
		rc = -EIO;
	return rc;
}

int html_regions_json(struct session *s, uint64_t span_ns, char **out)
{
	struct regions *r = &s->reg;
	uint64_t gap = span_ns / 1000, left = 0;
	struct region_band *bd;
	uint32_t i, k, nb;
	size_t len;
	FILE *f;
	int err = region_bands(s, gap, &bd, &nb);

	if (err)
		return err;
	f = open_memstream(out, &len);
	if (!f) {
		free(bd);
		return -errno;
	}
	fputs("\"regions\":{\"names\":[", f);
	for (k = 0; k < regions_count(r); k++) {
		fputs(k ? "," : "", f);
		json_str(f, regions_name(r, k));
	}
	fputs("],\"bands\":[", f);
	for (i = 0; i < nb; i++) {
		if (i < HTML_MAX_REGION_BANDS)
			fprintf(f, "%s[%" PRIu64 ",%" PRIu64 ",%u]", i ? "," : "", bd[i].b, bd[i].e,
				bd[i].region);
		else
			left++;
	}
	free(bd);
	fprintf(f, "],\"gap_ns\":%" PRIu64 ",\"left\":%" PRIu64 ",\"spans_dropped\":%" PRIu64 "}",
		gap, left, r->spans_dropped);
	return fclose(f) ? -EIO : 0;
}
