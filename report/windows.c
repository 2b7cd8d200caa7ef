// SPDX-License-Identifier: GPL-2.0
/* Per-window rows as table, CSV or JSON, streamed (see windows.h). */
#include "windows.h"

#include <inttypes.h>
#include <string.h>

/* Returned by windows_row() to stop the pass once --limit rows are out. */
#define WINDOWS_LIMIT_REACHED 1

void windows_begin(struct windows_out *w)
{
	const struct trace_header *h = w->s->h;
	uint32_t e, k, nev = h->nr_events < PMIPROF_MAX_EVENTS ? h->nr_events : PMIPROF_MAX_EVENTS;
	char fb[64], cb[160];

	switch (w->format) {
	case FMT_CSV:
		fputs("index,time_ns,cpu,pid,tid,comm,symbol,dso", w->f);
		for (e = 0; e < nev; e++) {
			fputc(',', w->f);
			csv_str(w->f, h->events[e].name);
		}
		for (k = 0; k < w->metrics->n; k++) {
			fputc(',', w->f);
			csv_str(w->f, w->metrics->m[k].name);
		}
		fputs(",throttled,after_loss\n", w->f);
		break;
	case FMT_JSON:
		fputs("{", w->f);
		/* The meta counts are only final at the end: JSON gets them last. */
		fputs("\"windows\": [", w->f);
		break;
	default:
		fprintf(w->f, "# one row per window; %s\n", ATTRIBUTION_RULE);
		fprintf(w->f, "%8s %12s %3s %7s %7s", "index", "time_ms", "cpu", "pid", "tid");
		for (e = 0; e < nev; e++)
			fprintf(w->f, " %10s", fit(fb, sizeof(fb), column_name(h->events[e].name, cb,
				sizeof(cb)), 10));
		for (k = 0; k < w->metrics->n; k++)
			fprintf(w->f, " %8s", fit(fb, sizeof(fb), column_name(w->metrics->m[k].name,
				cb, sizeof(cb)), 8));
		fprintf(w->f, "  %s\n", "symbol [dso]");
		break;
	}
}

int windows_row(void *arg, const struct trace_sample *smp, uint64_t index, uint32_t sym,
		uint32_t comm)
{
	struct windows_out *w = arg;
	const struct session *s = w->s;
	const struct sym *y = symbolizer_sym(s->sy, sym);
	const struct dso_info *d = symbolizer_dso_info(s->sy, y->dso);
	uint64_t t = smp->time > s->base_time ? smp->time - s->base_time : 0;
	uint32_t e, k, nev = smp->nr < PMIPROF_MAX_EVENTS ? smp->nr : PMIPROF_MAX_EVENTS;
	int thr = (smp->flags & PMIPROF_SAMPLE_F_THROTTLED) != 0;
	int aft = (smp->flags & PMIPROF_SAMPLE_F_AFTER_LOSS) != 0;
	char nb[32];
	double v;

	if (s->time_scale != 1.0)
		t = (uint64_t)((double)t * s->time_scale);
	if (w->limit && w->rows >= w->limit)
		return WINDOWS_LIMIT_REACHED;
	switch (w->format) {
	case FMT_CSV:
		fprintf(w->f, "%" PRIu64 ",%" PRIu64 ",%u,%u,%u,", index, t, smp->cpu, smp->pid,
			smp->tid);
		csv_str(w->f, session_comm(s, comm));
		fputc(',', w->f);
		csv_str(w->f, y->name);
		fputc(',', w->f);
		csv_str(w->f, d->name);
		for (e = 0; e < nev; e++)
			fprintf(w->f, ",%" PRIu64, smp->counts[e]);
		for (k = 0; k < w->metrics->n; k++) {
			if (metric_value(&w->metrics->m[k], smp->counts, &v))
				fprintf(w->f, ",%.6g", v);
			else
				fputc(',', w->f);
		}
		fprintf(w->f, ",%d,%d\n", thr, aft);
		break;
	case FMT_JSON:
		fprintf(w->f, "%s\n {\"index\": %" PRIu64 ", \"time_ns\": %" PRIu64 ", \"cpu\": %u, "
			"\"pid\": %u, \"tid\": %u, \"comm\": ", w->rows ? "," : "", index, t,
			smp->cpu, smp->pid, smp->tid);
		json_str(w->f, session_comm(s, comm));
		fputs(", \"symbol\": ", w->f);
		json_str(w->f, y->name);
		fputs(", \"dso\": ", w->f);
		json_str(w->f, d->name);
		fputs(", \"counts\": [", w->f);
		for (e = 0; e < nev; e++)
			fprintf(w->f, "%s%" PRIu64, e ? ", " : "", smp->counts[e]);
		fputs("], \"metrics\": [", w->f);
		for (k = 0; k < w->metrics->n; k++) {
			if (metric_value(&w->metrics->m[k], smp->counts, &v))
				fprintf(w->f, "%s%.6g", k ? ", " : "", v);
			else
				fprintf(w->f, "%snull", k ? ", " : "");
		}
		fprintf(w->f, "], \"throttled\": %s, \"after_loss\": %s}", thr ? "true" : "false",
			aft ? "true" : "false");
		break;
	default:
		fprintf(w->f, "%8" PRIu64 " %12.3f %3u %7u %7u", index, (double)t / 1e6, smp->cpu,
			smp->pid, smp->tid);
		for (e = 0; e < nev; e++)
			fprintf(w->f, " %10s", fmt_count(nb, sizeof(nb), smp->counts[e], 10));
		for (k = 0; k < w->metrics->n; k++) {
			if (metric_value(&w->metrics->m[k], smp->counts, &v))
				fprintf(w->f, " %8.3f", v);
			else
				fprintf(w->f, " %8s", "-");
		}
		/* Listed like the others, but marked: per-window statistics leave them out. */
		fprintf(w->f, "  %s [%s]%s\n", y->name, d->short_name,
			thr && aft ? "  (after loss, throttled)" : thr ? "  (throttled)" :
			aft ? "  (after loss)" : "");
		break;
	}
	w->rows++;
	return 0;
}

void windows_end(struct windows_out *w)
{
	const struct trace_header *h = w->s->h;
	uint32_t e, k, nev = h->nr_events < PMIPROF_MAX_EVENTS ? h->nr_events : PMIPROF_MAX_EVENTS;

	switch (w->format) {
	case FMT_CSV:
		break;
	case FMT_JSON:
		fputs("\n],\n\"columns\": {\"counts\": [", w->f);
		for (e = 0; e < nev; e++) {
			fputs(e ? ", " : "", w->f);
			json_str(w->f, h->events[e].name);
		}
		fputs("], \"metrics\": [", w->f);
		for (k = 0; k < w->metrics->n; k++) {
			fputs(k ? ", " : "", w->f);
			json_str(w->f, w->metrics->m[k].name);
		}
		fputs("]},\n", w->f);
		print_meta_json(w->f, w->s);
		fputs("}\n", w->f);
		break;
	default:
		fprintf(w->f, "# %" PRIu64 " window(s) shown%s\n", w->rows,
			w->limit && w->rows >= w->limit ? " (--limit reached)" : "");
		print_meta_text(w->f, w->s);
		break;
	}
}
