// SPDX-License-Identifier: GPL-2.0
/* pmiprof top's header, cells and batch formats (top_table.h). */
#include "output/top_table.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "util.h"

/* What the rows are by: the scope's grouping, or a function's callers standing in for its lines. */
static const char *view_by(const struct top_view *v)
{
	return v->callers ? "caller" : top_by_name(v->scope.by);
}

int top_header(const struct top_view *v, const struct top_origin *o,
	       char lines[TOP_HEADER_LINES][320])
{
	const struct trace_header *h = v->h;
	const char *trig = h->nr_events ? h->events[h->trigger_index].name : "?";
	double wps = v->seconds > 0 ? (double)v->seen / v->seconds : 0;
	int n = 0;

	snprintf(lines[n++], 320, "pmiprof top: refresh %" PRIu64 ", last %.1f s, %.0f windows/s, "
		 "%" PRIu64 " lost, %" PRIu64 " throttled, backend %s, by %s%s", o->refresh,
		 v->seconds, wps, v->lost, v->throttled, o->backend, view_by(v),
		 o->paused ? "  [paused]" : "");
	if (h->flags & PMIPROF_TRACE_F_TIME_BASED) {
		if (h->freq_hz)
			snprintf(lines[n++], 320, "windows are time-based (no hardware PMU): %s at "
				 "%" PRIu64 " Hz; no IPC or miss rates", trig, h->freq_hz);
		else
			snprintf(lines[n++], 320, "windows are time-based (no hardware PMU): %s "
				 "every %" PRIu64 " ns; no IPC or miss rates", trig, h->period);
	}
	if (v->scope.label[0])
		snprintf(lines[n++], 320, "%.160s: %" PRIu64 " samples%s%.120s", v->scope.label,
			 v->samples, v->why[0] ? "; " : "", v->why);
	while (n < TOP_HEADER_LINES)
		lines[n++][0] = '\0';
	return n;
}

const char *top_key_head(const struct top_view *v)
{
	return v->scope.by == TOP_BY_PROCESS ? "PID" : v->scope.by == TOP_BY_THREAD ? "TID" : "";
}

const char *top_key_cell(const struct top_view *v, const struct top_row *r, char *buf,
			 size_t size)
{
	if (v->scope.by == TOP_BY_PROCESS || v->scope.by == TOP_BY_THREAD)
		snprintf(buf, size, "%lld", session_task_id((uint32_t)r->key));
	else
		buf[0] = '\0';
	return buf;
}

const char *top_name_head(const struct top_view *v)
{
	static const char *const heads[] = { "COMMAND", "COMMAND", "FUNCTION", "DSO", "CGROUP",
					     "LINE" };

	return v->callers ? "CALLER" : heads[v->scope.by];
}

const char *top_rate_head(const struct top_view *v, uint32_t e, char *buf, size_t size)
{
	char cn[64];
	const char *name = v->h->events[e].name;

	/* a clock's nanoseconds per second are a share of one CPU, as top's %CPU */
	snprintf(buf, size, "%s%s", column_name(name, cn, sizeof(cn)),
		 event_counts_ns(name) ? "%" : "/s");
	return buf;
}

const char *top_rate_cell(const struct top_view *v, const struct top_row *r, uint32_t e,
			  char *buf, size_t size, int width)
{
	double rate = top_row_rate(v, r, e);

	if (event_counts_ns(v->h->events[e].name))
		snprintf(buf, size, "%.1f", rate / 1e7);
	else
		fmt_count(buf, size, (uint64_t)llround(rate), width);
	return buf;
}

const char *top_metric_cell(const struct top_view *v, const struct top_row *r, uint32_t m,
			    char *buf, size_t size)
{
	(void)v;
	if (isnan(r->metric[m]))
		snprintf(buf, size, "-");
	else if (isnan(r->dmetric[m]))
		snprintf(buf, size, "%.2f", r->metric[m]);
	else
		snprintf(buf, size, "%.2f%+.2f", r->metric[m], r->dmetric[m]);
	return buf;
}

const char *top_trend_cell(const struct top_row *r, char *buf, size_t size)
{
	if (isnan(r->dshare))
		buf[0] = '\0';
	else if (r->dshare == r->share && r->share > 0 && r->dshare != 0)
		snprintf(buf, size, "new");
	else
		snprintf(buf, size, "%+.1f", r->dshare);
	return buf;
}

static void print_table(FILE *f, const struct top_view *v, const struct top_origin *o)
{
	char lines[TOP_HEADER_LINES][320], b[64], hb[80];
	uint32_t i, e, m;
	int k;

	top_header(v, o, lines);
	for (k = 0; k < TOP_HEADER_LINES; k++)
		if (lines[k][0])
			fprintf(f, "%s\n", lines[k]);
	if (top_key_head(v)[0])
		fprintf(f, "%7s ", top_key_head(v));
	fprintf(f, "%8s %6s %6s", "SAMPLES", "%", "TREND");
	for (e = 0; e < v->nr_events; e++)
		fprintf(f, " %14s", top_rate_head(v, e, hb, sizeof(hb)));
	for (m = 0; m < v->ms.n; m++)
		fprintf(f, " %14s", column_name(v->ms.m[m].name, hb, sizeof(hb)));
	fprintf(f, "  %s\n", top_name_head(v));
	for (i = 0; i < v->nr; i++) {
		const struct top_row *r = &v->rows[i];

		if (top_key_head(v)[0])
			fprintf(f, "%7s ", top_key_cell(v, r, b, sizeof(b)));
		fprintf(f, "%8" PRIu64 " %6.2f %6s", r->samples, r->share,
			top_trend_cell(r, b, sizeof(b)));
		for (e = 0; e < v->nr_events; e++)
			fprintf(f, " %14s", top_rate_cell(v, r, e, b, sizeof(b), 14));
		for (m = 0; m < v->ms.n; m++)
			fprintf(f, " %14s", top_metric_cell(v, r, m, b, sizeof(b)));
		fprintf(f, "  %s%s%s%s\n", r->name, r->detail[0] ? "  " : "", r->detail,
			r->exited ? "  (exited)" : "");
	}
	fputc('\n', f);
}

static void csv_num(FILE *f, double x)
{
	if (isnan(x))
		fputs(",", f);
	else
		fprintf(f, ",%.6g", x);
}

static void print_csv(FILE *f, const struct top_view *v, const struct top_origin *o)
{
	uint32_t i, e, m;
	char b[32];

	fputs("refresh,seconds,by,key,name,detail,samples,percent,delta_percent", f);
	for (e = 0; e < v->nr_events; e++)
		fprintf(f, ",%s_per_s", v->h->events[e].name);
	for (m = 0; m < v->ms.n; m++)
		fprintf(f, ",%s,%s_delta", v->ms.m[m].name, v->ms.m[m].name);
	fputs(",exited\n", f);
	for (i = 0; i < v->nr; i++) {
		const struct top_row *r = &v->rows[i];

		fprintf(f, "%" PRIu64 ",%.3f,%s,", o->refresh, v->seconds, view_by(v));
		if (v->scope.by == TOP_BY_PROCESS || v->scope.by == TOP_BY_THREAD)
			fputs(top_key_cell(v, r, b, sizeof(b)), f);
		else
			fprintf(f, "%" PRIu64, r->key);
		fputc(',', f);
		csv_str(f, r->name);
		fputc(',', f);
		csv_str(f, r->detail);
		fprintf(f, ",%" PRIu64 ",%.4f", r->samples, r->share);
		csv_num(f, r->dshare);
		for (e = 0; e < v->nr_events; e++)
			csv_num(f, top_row_rate(v, r, e));
		for (m = 0; m < v->ms.n; m++) {
			csv_num(f, r->metric[m]);
			csv_num(f, r->dmetric[m]);
		}
		fprintf(f, ",%d\n", r->exited);
	}
	fputc('\n', f);
}

static void json_num(FILE *f, const char *key, double x)
{
	fprintf(f, ",\"%s\":", key);
	if (isnan(x))
		fputs("null", f);
	else
		fprintf(f, "%.6g", x);
}

static void print_json(FILE *f, const struct top_view *v, const struct top_origin *o)
{
	const struct trace_header *h = v->h;
	uint32_t i, e, m;

	fprintf(f, "{\"refresh\":%" PRIu64 ",\"seconds\":%.3f,\"by\":\"%s\",\"backend\":",
		o->refresh, v->seconds, view_by(v));
	json_str(f, o->backend);
	fprintf(f, ",\"time_based\":%s,\"windows\":%" PRIu64 ",\"lost\":%" PRIu64
		",\"throttled\":%" PRIu64 ",\"samples\":%" PRIu64 ",\"scope\":",
		h->flags & PMIPROF_TRACE_F_TIME_BASED ? "true" : "false", v->seen, v->lost,
		v->throttled, v->samples);
	json_str(f, v->scope.label);
	fputs(",\"rows\":[", f);
	for (i = 0; i < v->nr; i++) {
		const struct top_row *r = &v->rows[i];

		fprintf(f, "%s{\"key\":%" PRIu64 ",\"name\":", i ? "," : "", r->key);
		json_str(f, r->name);
		fputs(",\"detail\":", f);
		json_str(f, r->detail);
		fprintf(f, ",\"samples\":%" PRIu64 ",\"percent\":%.4f", r->samples, r->share);
		json_num(f, "delta_percent", r->dshare);
		fputs(",\"rates\":{", f);
		for (e = 0; e < v->nr_events; e++) {
			fprintf(f, "%s", e ? "," : "");
			json_str(f, h->events[e].name);
			fprintf(f, ":%.6g", top_row_rate(v, r, e));
		}
		fputs("},\"metrics\":{", f);
		for (m = 0; m < v->ms.n; m++) {
			fprintf(f, "%s", m ? "," : "");
			json_str(f, v->ms.m[m].name);
			if (isnan(r->metric[m]))
				fputs(":{\"value\":null", f);
			else
				fprintf(f, ":{\"value\":%.6g", r->metric[m]);
			json_num(f, "delta", r->dmetric[m]);
			fputc('}', f);
		}
		fprintf(f, "},\"exited\":%s}", r->exited ? "true" : "false");
	}
	fputs("]}\n", f);
}

void top_print(FILE *f, const struct top_view *v, const struct top_origin *o,
	       enum out_format fmt)
{
	if (fmt == FMT_CSV)
		print_csv(f, v, o);
	else if (fmt == FMT_JSON)
		print_json(f, v, o);
	else
		print_table(f, v, o);
	fflush(f);
}
