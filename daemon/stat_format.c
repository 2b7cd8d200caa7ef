// SPDX-License-Identifier: GPL-2.0
/* pmiprof stat's value formatting (see stat_format.h). */
#include "stat_format.h"

#include <stdio.h>

bool stat_scale(const struct stat_reading *r, double *value, double *pct)
{
	*value = 0;
	*pct = 0;
	if (!r->running)
		return false;
	*pct = r->enabled ? 100.0 * (double)r->running / (double)r->enabled : 100.0;
	/* The kernel counted only while scheduled: extrapolate to the enabled time. */
	if (r->running < r->enabled)
		*value = (double)r->value * (double)r->enabled / (double)r->running;
	else
		*value = (double)r->value;
	return true;
}

void stat_format_line(char *buf, size_t len, const char *name, bool time_based,
		      const struct stat_reading *r, const char *sep, const char *extra)
{
	double v, pct;
	bool counted = stat_scale(r, &v, &pct);
	int n;

	if (sep) {
		if (counted)
			snprintf(buf, len, "%.0f%s%s%s%.2f", v, sep, name, sep, pct);
		else
			snprintf(buf, len, "<not counted>%s%s%s%.2f", sep, name, sep, 0.0);
		return;
	}
	if (!counted)
		n = snprintf(buf, len, "  %18s %s %-28s", "<not counted>", time_based ? "msec" : "    ",
			     name);
	else if (time_based)
		n = snprintf(buf, len, "  %18.2f msec %-28s %s", v / 1e6, name, extra ? extra : "");
	else
		n = snprintf(buf, len, "  %18.0f      %-28s %s", v, name, extra ? extra : "");
	/* perf stat's mark of a multiplexed (scaled) count: the share of time counted */
	if (counted && r->running < r->enabled && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " (%.2f%%)", pct);
}
