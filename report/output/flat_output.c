// SPDX-License-Identifier: GPL-2.0
/* Flat profile as table, CSV or JSON, with histograms (see flat_output.h). */
#include "output/flat_output.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/histogram.h"

static const char *const by_names[] = { "symbol", "dso", "pid", "tid", "comm", "region" };

/* Second name column of a row: the DSO of a symbol, the comm of a pid/tid. */
static const char *row_extra(const struct profile *p, const struct prof_row *r)
{
	switch (p->by) {
	case BY_SYMBOL:
		return symbolizer_dso_info(p->s->sy,
					   symbolizer_sym(p->s->sy, r->key)->dso)->short_name;
	case BY_PID:
	case BY_TID:
		return session_comm(p->s, r->comm);
	default:
		return NULL;
	}
}

static const char *extra_name(const struct profile *p)
{
	return p->by == BY_SYMBOL ? "dso" : (p->by == BY_PID || p->by == BY_TID) ? "comm" : NULL;
}

/* A symbol's name for output, with its source line when --srcline. */
static const char *row_label(const struct profile *p, const struct prof_row *r,
			     char *buf, size_t size)
{
	const char *name = profile_row_name(p, r, buf, size);

	if (p->by == BY_SYMBOL) {
		const struct sym *s = symbolizer_sym(p->s->sy, r->key);

		if (s->srcline) {
			snprintf(buf, size, "%s %s", s->name, s->srcline);
			return buf;
		}
	}
	return name;
}

/* The table's second name column: --by dso adds the full path beside the file name. */
static const char *table_extra_name(const struct profile *p)
{
	return p->by == BY_DSO ? "path" : extra_name(p);
}

static const char *table_extra(const struct profile *p, const struct prof_row *r)
{
	return p->by == BY_DSO ? symbolizer_dso_info(p->s->sy, r->key)->name : row_extra(p, r);
}

/* The table's row name: --by dso shows the file name (the path is its own column). */
static const char *table_label(const struct profile *p, const struct prof_row *r,
			       char *buf, size_t size)
{
	if (p->by == BY_DSO)
		return symbolizer_dso_info(p->s->sy, r->key)->short_name;
	return row_label(p, r, buf, size);
}

/* Every cell of a metric column with the same decimals, from its largest value. */
static int metric_prec(const struct metric *m, const struct profile *p, const uint32_t *order,
		       uint32_t n)
{
	double v, max = 0;
	uint32_t k;

	for (k = 0; k < n; k++)
		if (metric_value(m, p->rows[order[k]].counts, &v) && fabs(v) > max)
			max = fabs(v);
	return max < 100 ? 2 : max < 10000 ? 1 : 0;
}

struct table_cols {
	struct num_col smp, ev[PMIPROF_MAX_EVENTS];
	int ev_w[PMIPROF_MAX_EVENTS], m_w[MAX_METRICS * 2], m_prec[MAX_METRICS * 2];
	int used;
};

/* Number columns at most max_w wide (headings are never cut: they carry the unit). */
static void size_columns(struct table_cols *t, const struct profile *p, const uint32_t *order,
			 uint32_t n, const struct metric_set *ms, int max_w)
{
	const struct trace_header *h = p->s->h;
	uint64_t max_smp = 0, max_ev[PMIPROF_MAX_EVENTS] = { 0 };
	char fb[256], hb[300];
	uint32_t k, e;

	for (k = 0; k < n; k++) {
		const struct prof_row *r = &p->rows[order[k]];

		if (r->samples > max_smp)
			max_smp = r->samples;
		for (e = 0; e < p->nr_events; e++)
			if (r->counts[e] > max_ev[e])
				max_ev[e] = r->counts[e];
	}
	num_col_init(&t->smp, false, max_smp, max_w < 8 ? max_w : 8);
	t->used = 8 + 7 + 6;
	for (e = 0; e < p->nr_events; e++) {
		const char *name = h->events[e].name;
		int l;

		num_col_init(&t->ev[e], event_counts_ns(name), max_ev[e], max_w);
		l = (int)strlen(num_col_head(&t->ev[e], column_name(name, fb, sizeof(fb)), hb,
					     sizeof(hb)));
		t->ev_w[e] = l > t->ev[e].width ? l : t->ev[e].width;
		if (t->ev_w[e] < 7)
			t->ev_w[e] = 7;
		t->used += t->ev_w[e] + 1;
	}
	for (k = 0; k < ms->n; k++) {
		int l = (int)strlen(column_name(ms->m[k].name, fb, sizeof(fb)));

		t->m_prec[k] = metric_prec(&ms->m[k], p, order, n);
		t->m_w[k] = l < 6 ? 6 : l;
		t->used += t->m_w[k] + 1;
	}
}

static void print_table(FILE *f, const struct profile *p, const uint32_t *order, uint32_t n,
			const struct flat_opts *o)
{
	const struct trace_header *h = p->s->h;
	const struct metric_set *ms = o->metrics;
	int width = table_width(o->width), name_w = 0, extra_w = 0, hidden = 0, names_need, i;
	char nb[64], lb[1024], fb[1024];
	const char **names = NULL, **extras = NULL;
	bool *cut_n = NULL, *cut_x = NULL;
	struct table_cols *t;
	uint32_t k, e;

	t = calloc(1, sizeof(*t));
	names = calloc(n ? n : 1, sizeof(*names));
	extras = calloc(n ? n : 1, sizeof(*extras));
	cut_n = calloc(n ? n : 1, sizeof(*cut_n));
	cut_x = calloc(n ? n : 1, sizeof(*cut_x));
	if (!t || !names || !extras || !cut_n || !cut_x) {
		fputs("# out of memory for the table\n", f);
		goto out;
	}
	for (k = 0; k < n; k++) {
		const struct prof_row *r = &p->rows[order[k]];
		const char *x = table_extra_name(p) ? table_extra(p, r) : NULL;
		int l;

		names[k] = strdup(table_label(p, r, lb, sizeof(lb)));
		extras[k] = x ? x : "";
		if (!names[k]) {
			fputs("# out of memory for the table\n", f);
			goto out;
		}
		l = (int)strlen(names[k]);
		if (l > name_w)
			name_w = l;
		l = (int)strlen(extras[k]);
		if (l > extra_w)
			extra_w = l;
	}
	if (table_extra_name(p)) {
		extra_w = extra_w < 4 ? 4 : extra_w;
		/* The path is the last column: never cut. */
		if (width && extra_w > 20 && p->by != BY_DSO)
			extra_w = 20;
	}
	/* No width limit (not a terminal): numbers exact up to 20 digits. */
	size_columns(t, p, order, n, ms, width ? 12 : 20);
	/* Names need 16 columns at least, plus the dso/comm column (a path may overflow). */
	names_need = 2 + 16 + (extra_w && p->by != BY_DSO ? extra_w + 1 : 0);
	/* Too wide for the terminal: squeeze the number columns first... */
	if (width && t->used + names_need + 6 > width)
		size_columns(t, p, order, n, ms, 8);
	/* ...then hide raw event sums, last first (the header says which). */
	for (e = p->nr_events; width && e-- > 0 && t->used + names_need > width;) {
		t->used -= t->ev_w[e] + 1;
		t->ev_w[e] = 0;
		hidden++;
	}
	if (hidden) {
		int col = fprintf(f, "# hidden to fit %d columns (--width N shows them):", width);

		for (e = 0; e < p->nr_events; e++) {
			if (t->ev_w[e])
				continue;
			if (col + 1 + (int)strlen(h->events[e].name) > width)
				col = fprintf(f, "\n#  ");
			col += fprintf(f, " %s", h->events[e].name);
		}
		fputc('\n', f);
	}
	/* --by dso: file names are short and the path after them is never cut. */
	if (width && p->by != BY_DSO) {
		int room = width - t->used - 2 - (extra_w ? extra_w + 1 : 0);

		if (room < 16)
			room = 16;
		if (name_w > room)
			name_w = room;
		/* Cut only where the cut name stays unique; the others stay whole. */
		if (cut_names_unique(names, n, name_w, cut_n) ||
		    cut_names_unique(extras, n, extra_w, cut_x)) {
			fputs("# out of memory for the table\n", f);
			goto out;
		}
	}
	if (name_w < (int)strlen(by_names[p->by]))
		name_w = (int)strlen(by_names[p->by]);

	fprintf(f, "%8s %6s %5s", num_col_head(&t->smp, "samples", nb, sizeof(nb)), "%", "+-95%");
	for (e = 0; e < p->nr_events; e++)
		if (t->ev_w[e])
			fprintf(f, " %*s", t->ev_w[e], num_col_head(&t->ev[e],
				column_name(h->events[e].name, lb, sizeof(lb)), fb, sizeof(fb)));
	for (k = 0; k < ms->n; k++)
		fprintf(f, " %*s", t->m_w[k], column_name(ms->m[k].name, lb, sizeof(lb)));
	fprintf(f, "  %-*s", extra_w ? name_w : 0, by_names[p->by]);
	if (extra_w)
		fprintf(f, " %s", table_extra_name(p));
	fputc('\n', f);

	for (k = 0; k < n; k++) {
		const struct prof_row *r = &p->rows[order[k]];
		double lo, hi, v;

		wilson95(r->samples, p->s->kept, &lo, &hi);
		fprintf(f, "%8s %6.2f %5.2f", num_col_cell(&t->smp, r->samples, nb, sizeof(nb)),
			100.0 * (double)r->samples / (double)p->s->kept, (hi - lo) / 2);
		for (e = 0; e < p->nr_events; e++)
			if (t->ev_w[e])
				fprintf(f, " %*s", t->ev_w[e],
					num_col_cell(&t->ev[e], r->counts[e], nb, sizeof(nb)));
		for (i = 0; i < (int)ms->n; i++) {
			if (metric_value(&ms->m[i], r->counts, &v))
				fprintf(f, " %*.*f", t->m_w[i], t->m_prec[i], v);
			else
				fprintf(f, " %*s", t->m_w[i], "-");
		}
		fprintf(f, "  %-*s", extra_w ? name_w : 0,
			cut_n[k] ? fit(fb, sizeof(fb), names[k], name_w) : names[k]);
		if (extra_w)
			fprintf(f, " %s", cut_x[k] ? fit(fb, sizeof(fb), extras[k], extra_w) :
				extras[k]);
		fputc('\n', f);
	}
out:
	for (k = 0; names && k < n; k++)
		free((char *)names[k]);
	free(names);
	free(extras);
	free(cut_n);
	free(cut_x);
	free(t);
}

static void print_csv(FILE *f, const struct profile *p, const uint32_t *order, uint32_t n,
		      const struct flat_opts *o)
{
	const struct trace_header *h = p->s->h;
	const struct metric_set *ms = o->metrics;
	char lb[1024];
	uint32_t k, e;

	/* The first columns are fixed so scripts can rely on them. */
	fprintf(f, "samples,percent,%s", by_names[p->by]);
	if (extra_name(p))
		fprintf(f, ",%s", p->by == BY_SYMBOL ? "dso" : "comm");
	for (e = 0; e < p->nr_events; e++) {
		fputc(',', f);
		csv_str(f, h->events[e].name);
	}
	for (k = 0; k < ms->n; k++) {
		fputc(',', f);
		csv_str(f, ms->m[k].name);
	}
	fputs(",ci95_low,ci95_high", f);
	if (p->by == BY_SYMBOL)
		fputs(",dso_path,srcline", f);
	fputc('\n', f);
	for (k = 0; k < n; k++) {
		const struct prof_row *r = &p->rows[order[k]];
		double lo, hi, v;
		uint32_t i;

		wilson95(r->samples, p->s->kept, &lo, &hi);
		fprintf(f, "%" PRIu64 ",%.4f,", r->samples,
			100.0 * (double)r->samples / (double)p->s->kept);
		csv_str(f, p->by == BY_SYMBOL ? symbolizer_sym(p->s->sy, r->key)->name :
			profile_row_name(p, r, lb, sizeof(lb)));
		if (extra_name(p)) {
			fputc(',', f);
			csv_str(f, row_extra(p, r));
		}
		for (e = 0; e < p->nr_events; e++)
			fprintf(f, ",%" PRIu64, r->counts[e]);
		for (i = 0; i < ms->n; i++) {
			if (metric_value(&ms->m[i], r->counts, &v))
				fprintf(f, ",%.6g", v);
			else
				fputc(',', f);
		}
		fprintf(f, ",%.4f,%.4f", lo, hi);
		if (p->by == BY_SYMBOL) {
			const struct sym *s = symbolizer_sym(p->s->sy, r->key);

			fputc(',', f);
			csv_str(f, symbolizer_dso_info(p->s->sy, s->dso)->name);
			fputc(',', f);
			csv_str(f, s->srcline ? s->srcline : "");
		}
		fputc('\n', f);
	}
}

static void json_hist(FILE *f, const struct hist *h)
{
	char bb[128];
	int i;

	fprintf(f, "{\"n\": %" PRIu64 ", \"no_value\": %" PRIu64 ", \"zeros\": %" PRIu64, h->n,
		h->nan, h->zeros);
	if (h->n)
		fprintf(f, ", \"min\": %.6g, \"p10\": %.6g, \"p50\": %.6g, \"p90\": %.6g, "
			"\"max\": %.6g, \"mean\": %.6g, \"lo\": %.6g, \"hi\": %.6g",
			h->min, h->p10, h->p50, h->p90, h->max, h->mean, h->lo, h->hi);
	if (h->n && h->zero_bin && h->zeros < h->n)
		fprintf(f, ", \"nonzero\": {\"min\": %.6g, \"p10\": %.6g, \"p50\": %.6g, "
			"\"p90\": %.6g}", h->nz_min, h->nz_p10, h->nz_p50, h->nz_p90);
	fprintf(f, ", \"zero_bin\": %s, \"scale\": \"%s\", \"integer\": %s, "
		"\"clipped_low\": %s, \"clipped_high\": %s, \"binning\": ",
		h->zero_bin ? "true" : "false", h->scale == HIST_LOG ? "log" : "linear",
		h->integer ? "true" : "false", h->clip_lo ? "true" : "false",
		h->clip_hi ? "true" : "false");
	json_str(f, hist_binning(h, bb, sizeof(bb)));
	fputs(", \"edges\": [", f);
	for (i = 0; h->nbins && i <= h->nbins; i++)
		fprintf(f, "%s%.6g", i ? ", " : "", h->edge[i]);
	fputs("], \"bins\": [", f);
	for (i = 0; i < h->nbins; i++)
		fprintf(f, "%s%" PRIu64, i ? ", " : "", h->bins[i]);
	fputs("]}", f);
}

/* One CSV line per bin: metric,rows,name,bin,kind,lo,hi,clipped,windows,fraction. */
static void csv_hist(FILE *f, const char *metric, const char *rows, const char *name,
		     const struct hist *h)
{
	int i, first = h->zero_bin ? 1 : 0;

	for (i = 0; i < h->nbins; i++) {
		bool zero = h->zero_bin && i == 0;

		csv_str(f, metric);
		fprintf(f, ",%s,", rows);
		csv_str(f, name);
		fprintf(f, ",%d,%s,%.6g,%.6g,%d,%" PRIu64 ",%.6g\n", i,
			zero ? "zero" : h->scale == HIST_LOG ? "log" : "linear",
			h->edge[i], zero ? 0.0 : h->edge[i + 1],
			(i == first && h->clip_lo) || (i == h->nbins - 1 && h->clip_hi),
			h->bins[i], h->n ? (double)h->bins[i] / (double)h->n : 0.0);
	}
}

/*
 * --hist --format csv: the histograms alone, one line per bin (the flat
 * profile's CSV is the same command without --hist).
 */
static int print_hist_csv(FILE *f, const struct profile *p, const uint32_t *order, uint32_t n,
			  const struct flat_opts *o)
{
	char lb[1024];
	uint32_t i, t;

	fputs("metric,rows,name,bin,kind,lo,hi,clipped,windows,fraction\n", f);
	for (i = 0; i < o->nr_hist; i++) {
		struct hist all, fn;

		if (hist_build(&all, p->win_values + i, p->nr_hist, p->nr_win, NULL, 0, NULL))
			return -ENOMEM;
		csv_hist(f, o->hist_metrics[i].name, "all", "", &all);
		for (t = 0; t < n && t < o->hist_top; t++) {
			if (hist_build(&fn, p->win_values + i, p->nr_hist, p->nr_win, p->win_rows,
				       order[t], &all))
				return -ENOMEM;
			csv_hist(f, o->hist_metrics[i].name, by_names[p->by],
				 row_label(p, &p->rows[order[t]], lb, sizeof(lb)), &fn);
		}
	}
	return 0;
}

static int print_json(FILE *f, const struct profile *p, const uint32_t *order, uint32_t n,
		      const struct flat_opts *o)
{
	const struct metric_set *ms = o->metrics;
	char lb[1024];
	uint32_t k, i;

	fputs("{", f);
	print_meta_json(f, p->s);
	fprintf(f, ",\n\"group_by\": \"%s\",\n\"rows\": [", by_names[p->by]);
	for (k = 0; k < n; k++) {
		const struct prof_row *r = &p->rows[order[k]];
		double lo, hi, v;

		wilson95(r->samples, p->s->kept, &lo, &hi);
		fprintf(f, "%s\n {\"samples\": %" PRIu64 ", \"percent\": %.4f, \"ci95\": [%.4f, "
			"%.4f], \"%s\": ", k ? "," : "", r->samples,
			100.0 * (double)r->samples / (double)p->s->kept, lo, hi, by_names[p->by]);
		if (p->by == BY_PID || p->by == BY_TID)
			fprintf(f, "%lld", session_task_id(r->key));
		else
			json_str(f, p->by == BY_SYMBOL ? symbolizer_sym(p->s->sy, r->key)->name :
				 profile_row_name(p, r, lb, sizeof(lb)));
		if (extra_name(p)) {
			fprintf(f, ", \"%s\": ", extra_name(p));
			json_str(f, p->by == BY_SYMBOL ? symbolizer_dso_info(p->s->sy,
				 symbolizer_sym(p->s->sy, r->key)->dso)->name : row_extra(p, r));
		}
		if (p->by == BY_SYMBOL && symbolizer_sym(p->s->sy, r->key)->srcline) {
			fputs(", \"srcline\": ", f);
			json_str(f, symbolizer_sym(p->s->sy, r->key)->srcline);
		}
		fputs(", \"events\": ", f);
		json_event_counts(f, p->s, r->counts, p->nr_events);
		fputs(", \"metrics\": {", f);
		for (i = 0; i < ms->n; i++) {
			fputs(i ? ", " : "", f);
			json_str(f, ms->m[i].name);
			if (metric_value(&ms->m[i], r->counts, &v))
				fprintf(f, ": %.6g", v);
			else
				fputs(": null", f);
		}
		fputs("}}", f);
	}
	fputs("\n]", f);
	if (o->hist && p->nr_hist) {
		fputs(",\n\"histograms\": [", f);
		for (i = 0; i < o->nr_hist; i++) {
			struct hist all, fn;
			uint32_t t;

			if (hist_build(&all, p->win_values + i, p->nr_hist, p->nr_win, NULL, 0, NULL))
				return -ENOMEM;
			fprintf(f, "%s\n {\"metric\": ", i ? "," : "");
			json_str(f, o->hist_metrics[i].name);
			fprintf(f, ", \"windows_left_out\": %" PRIu64 ", \"all\": ", p->win_left_out);
			json_hist(f, &all);
			fputs(", \"top\": [", f);
			for (t = 0; t < n && t < o->hist_top; t++) {
				const struct prof_row *r = &p->rows[order[t]];

				if (hist_build(&fn, p->win_values + i, p->nr_hist, p->nr_win,
					       p->win_rows, order[t], &all))
					return -ENOMEM;
				fputs(t ? ", {\"name\": " : "{\"name\": ", f);
				json_str(f, row_label(p, r, lb, sizeof(lb)));
				fputs(", \"hist\": ", f);
				json_hist(f, &fn);
				fputc('}', f);
			}
			fputs("]}", f);
		}
		fputs("\n]", f);
	}
	fputs("}\n", f);
	return 0;
}

static int print_hist_text(FILE *f, const struct profile *p, const uint32_t *order, uint32_t n,
			   const struct flat_opts *o)
{
	char lb[1024], fb[64], sb[HIST_BINS + 1], bb[128];
	uint32_t i, t, m = n < o->hist_top ? n : o->hist_top;
	const char **names = calloc(m ? m : 1, sizeof(*names));
	bool *cut = calloc(m ? m : 1, sizeof(*cut));
	int ret = -ENOMEM;

	/* Names cut to 28 only on a narrow table and where the cut stays unique. */
	if (!names || !cut)
		goto out;
	for (t = 0; t < m; t++)
		if (!(names[t] = strdup(row_label(p, &p->rows[order[t]], lb, sizeof(lb)))))
			goto out;
	if (table_width(o->width) && cut_names_unique(names, m, 28, cut))
		goto out;
	for (i = 0; i < o->nr_hist; i++) {
		struct hist all, fn;

		if (hist_build(&all, p->win_values + i, p->nr_hist, p->nr_win, NULL, 0, NULL))
			goto out;
		fprintf(f, "\n# distribution of per-window %s: %" PRIu64 " windows",
			o->hist_metrics[i].name, all.n);
		if (all.nan)
			fprintf(f, " (+%" PRIu64 " without a value)", all.nan);
		if (p->win_left_out)
			fprintf(f, " (%" PRIu64 " after a loss or throttling left out)",
				p->win_left_out);
		if (!all.n) {
			fputc('\n', f);
			continue;
		}
		fprintf(f, ", min %.4g p10 %.4g median %.4g p90 %.4g max %.4g\n", all.min, all.p10,
			all.p50, all.p90, all.max);
		if (all.zero_bin && all.zeros < all.n)
			fprintf(f, "# 0 in %.1f%% of the windows; the other %" PRIu64 ": min %.4g "
				"p10 %.4g median %.4g p90 %.4g max %.4g\n",
				100.0 * (double)all.zeros / (double)all.n, all.n - all.zeros,
				all.nz_min, all.nz_p10, all.nz_p50, all.nz_p90, all.max);
		fprintf(f, "# bins: %s%s%s\n", hist_binning(&all, bb, sizeof(bb)),
			all.clip_lo || all.clip_hi ? "; <= and >= mark end bins that also hold the "
			"values beyond p0.5/p99.5" : "", all.zero_bin && all.zeros < all.n ?
			"; bars of the non-zero bins are scaled to the largest of them" : "");
		hist_print_bars(f, &all, 40);
		fprintf(f, "# %s over the windows each top %s closes (same bins, low -> high)\n",
			o->hist_metrics[i].name, p->by == BY_SYMBOL ? "function" : "row");
		for (t = 0; t < m; t++) {
			if (hist_build(&fn, p->win_values + i, p->nr_hist, p->nr_win, p->win_rows,
				       order[t], &all))
				goto out;
			fprintf(f, "  %-28s |%s| median %-9.4g p10 %-9.4g p90 %.4g\n",
				cut[t] ? fit(fb, sizeof(fb), names[t], 28) : names[t],
				hist_sparkline(&fn, sb, sizeof(sb)), fn.p50, fn.p10, fn.p90);
		}
	}
	ret = 0;
out:
	for (t = 0; names && t < m; t++)
		free((char *)names[t]);
	free(names);
	free(cut);
	return ret;
}

int print_flat(FILE *f, const struct profile *p, const uint32_t *order, uint32_t n,
	       const struct flat_opts *o)
{
	uint32_t shown = o->limit && o->limit < n ? o->limit : n;

	switch (o->format) {
	case FMT_CSV:
		if (o->hist)
			return print_hist_csv(f, p, order, n, o);
		print_csv(f, p, order, shown, o);
		return 0;
	case FMT_JSON:
		return print_json(f, p, order, shown, o);
	default:
		print_meta_text(f, p->s);
		if (o->header_only)
			return 0;
		fputs("#\n", f);
		if (!p->s->kept) {
			fputs("# no samples to show\n", f);
			return 0;
		}
		print_table(f, p, order, shown, o);
		if (shown < n)
			fprintf(f, "# %u more rows not shown (--limit %u)\n", n - shown, o->limit);
		if (o->below_limit)
			fprintf(f, "# %u rows under %g%% of the samples not shown (--percent-limit)\n",
				o->below_limit, o->percent_limit);
		if (o->hist)
			return print_hist_text(f, p, order, n, o);
		return 0;
	}
}
