// SPDX-License-Identifier: GPL-2.0
/*
 * `pmiprof report --html` (see html.h and docs/html.md): the pass, the
 * bucketing and the page.  The data goes into the page as one JSON object;
 * the page's script and libraries come from html_assets.h, generated at
 * build time from report/output/html/ (Makefile).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stacks/callstack.h"
#include "output/format.h"
#include "hashmap.h"
#include "output/html.h"
#include "output/html_annotate.h"
#include "output/html_cells.h"
#include "output/html_marks.h"
#include "analysis/metrics.h"
#include "output/stack_export.h"
#include "symbols/symbols.h"
#include "util.h"

#include "html_assets.h"

/*
 * Histogram cells: id = metric * HIST_IDS + bin; bin 0 holds the windows
 * whose value is 0, bin 1 + HIST_OFF + floor(HIST_PER_DECADE * log10(v))
 * the others (clamped): 10 log-spaced bins per decade, from 1e-20 to 1e20.
 */
#define HIST_PER_DECADE	10
#define HIST_OFF	200
#define HIST_IDS	512

/* The pass: every kept window goes straight into its cells (html_cells.h). */
struct hpass {
	struct session *s;
	uint32_t nev, max;		/* events; buckets wanted (--html-buckets) */
	uint64_t width;			/* bucket width so far: a power of 10 ns */
	uint64_t tmax;			/* latest window, ns since the start */
	uint64_t kept;
	struct hcells tot, fn, stk, hist;
	struct html_ann ann;		/* the annotate pane's cells */
	struct metric_set ms;		/* the page's metrics (histograms) */
	int64_t trunc_sym;
};

static int hist_bin(double v)
{
	double l;

	if (v <= 0)
		return 0;
	l = floor(HIST_PER_DECADE * log10(v));
	if (l < -HIST_OFF)
		l = -HIST_OFF;
	if (l > HIST_IDS - HIST_OFF - 2)
		l = HIST_IDS - HIST_OFF - 2;
	return 1 + HIST_OFF + (int)l;
}

/*
 * Buckets of at most 10 x max per width: past that the width grows tenfold
 * and the cells merge, so the cells stay bounded by buckets x ids in use.
 * A power of 10 divides every final width (1, 2 or 5 x 10^k, bucket_width()).
 */
static int coarsen(struct hpass *p, uint64_t t)
{
	int rc = 0;

	while (!rc && t / p->width >= 10ULL * p->max) {
		rc = cells_rebucket(&p->tot, 10);
		rc = rc ? rc : cells_rebucket(&p->fn, 10);
		rc = rc ? rc : cells_rebucket(&p->stk, 10);
		rc = rc ? rc : cells_rebucket(&p->hist, 10);
		rc = rc ? rc : html_ann_rebucket(&p->ann, 10);
		p->width *= 10;
	}
	return rc;
}

static int hpass_add(void *arg, const struct trace_sample *smp, uint64_t index, uint32_t sym,
		     uint32_t comm)
{
	struct hpass *p = arg;
	uint64_t c[PMIPROF_MAX_EVENTS] = { 0 }, t = session_time_ns(p->s, smp->time), b;
	uint32_t i, stack = CS_NONE;
	bool sums = window_counts_events(smp->flags);
	int rc;

	(void)index;
	(void)comm;
	if (p->s->cs) {
		rc = stack_of_sample(p->s, sym, &p->trunc_sym, &stack);
		if (rc)
			return rc;
	}
	rc = coarsen(p, t);
	if (rc)
		return rc;
	for (i = 0; i < p->nev && i < smp->nr; i++)
		c[i] = smp->counts[i];
	b = t / p->width;
	p->tmax = t > p->tmax ? t : p->tmax;
	p->kept++;
	/* id 0: every kept window (report's sums), 1: those per-window statistics admit */
	rc = cells_add(&p->tot, b, 0, c, sums);
	rc = rc ? rc : cells_add(&p->fn, b, sym, c, sums);
	rc = rc ? rc : html_ann_add(&p->ann, b, smp, sym, c, sums);
	if (!rc && stack != CS_NONE)
		rc = cells_add(&p->stk, b, stack, c, sums);
	if (rc || !window_in_stats(smp->flags))
		return rc;
	rc = cells_add(&p->tot, b, 1, c, true);
	for (i = 0; !rc && i < p->ms.n; i++) {
		double v;

		if (metric_value(&p->ms.m[i], c, &v))
			rc = cells_add(&p->hist, b, i * HIST_IDS + (uint32_t)hist_bin(v), c, false);
	}
	return rc;
}

/* The bucket width: 1, 2 or 5 x 10^k ns, the smallest giving at most max buckets. */
static uint64_t bucket_width(uint64_t span_ns, uint32_t max)
{
	static const uint64_t steps[] = { 1, 2, 5 };
	uint64_t p = 1;

	for (;;) {
		for (int i = 0; i < 3; i++)
			if (span_ns / (p * steps[i]) < max)
				return p * steps[i];
		p *= 10;
	}
}

static const char *metric_kind_name(enum metric_kind k)
{
	switch (k) {
	case METRIC_RATIO: return "ratio";
	case METRIC_PER_KILO: return "perkilo";
	case METRIC_PERCENT: return "percent";
	case METRIC_PER_SECOND: return "persecond";
	default: return "event";
	}
}

/* The page's metrics: derived ones, then each event's rate (not a time-based trigger). */
static void page_metrics(const struct session *s, struct metric_set *out)
{
	struct metric_set d;
	uint32_t i;

	metrics_derived(s->h, &d);
	out->n = 0;
	for (i = 0; i < d.n; i++)
		if (d.m[i].kind != METRIC_TOPDOWN)
			out->m[out->n++] = d.m[i];
	for (i = 0; i < s->h->nr_events && i < PMIPROF_MAX_EVENTS; i++) {
		char name[200];
		const char *why;

		if (i == s->h->trigger_index && (s->h->flags & PMIPROF_TRACE_F_TIME_BASED))
			continue;
		snprintf(name, sizeof(name), "%s-rate", s->h->events[i].name);
		if (out->n < ARRAY_SIZE(out->m) &&
		    !metric_parse(s->h, name, &out->m[out->n], &why) &&
		    out->m[out->n].kind != METRIC_TOPDOWN && out->m[out->n].kind != METRIC_EVENT)
			out->n++;
	}
}

static void write_meta(FILE *f, struct session *s, uint64_t width, uint64_t nb,
		       const struct metric_set *ms)
{
	char kind[256];
	uint32_t i;

	fputs("\"version\":1,\"input\":", f);
	json_str(f, s->opts.input);
	fputs(",\"windows_kind\":", f);
	json_str(f, window_kind(s, kind, sizeof(kind)));
	fprintf(f, ",\"time_based\":%s,\"bucket_ns\":%" PRIu64 ",\"buckets\":%" PRIu64
		",\"windows\":%" PRIu64 ",\"first_ns\":%" PRIu64 ",\"last_ns\":%" PRIu64
		",\"lost\":%" PRIu64 ",\"events\":[",
		(s->h->flags & PMIPROF_TRACE_F_TIME_BASED) ? "true" : "false", width, nb,
		s->kept, s->first_ns, s->last_ns, s->lost_total);
	for (i = 0; i < s->h->nr_events && i < PMIPROF_MAX_EVENTS; i++) {
		fputs(i ? "," : "", f);
		json_str(f, s->h->events[i].name);
	}
	fputs("],\"ns_events\":[", f);
	for (i = 0; i < s->h->nr_events && i < PMIPROF_MAX_EVENTS; i++)
		fprintf(f, "%s%s", i ? "," : "", event_counts_ns(s->h->events[i].name) ?
			"true" : "false");
	fputs("],\"metrics\":[", f);
	for (i = 0; i < ms->n; i++) {
		fprintf(f, "%s{\"name\":", i ? "," : "");
		json_str(f, ms->m[i].name);
		fprintf(f, ",\"kind\":\"%s\",\"a\":%d,\"b\":%d}", metric_kind_name(ms->m[i].kind),
			ms->m[i].a, ms->m[i].b);
	}
	fputc(']', f);
}

/* "syms":[[name,dso],...] of the used symbols, in remap order; remap[sym] = index. */
static int write_syms(FILE *f, struct session *s, const struct hcells *fn, uint32_t **remap_out)
{
	uint32_t nsym = symbolizer_nr_syms(s->sy), *remap, next = 0, stride = 3 + fn->nev;
	uint64_t k;

	remap = malloc((nsym + 1) * sizeof(*remap));
	if (!remap)
		return -ENOMEM;
	for (k = 0; k <= nsym; k++)
		remap[k] = UINT32_MAX;
	fputs(",\"syms\":[", f);
	for (k = 0; k < fn->n; k++) {
		uint32_t sym = (uint32_t)fn->v[k * stride + 1];
		const struct sym *sy;

		if (sym >= nsym || remap[sym] != UINT32_MAX)
			continue;
		remap[sym] = next++;
		sy = symbolizer_sym(s->sy, sym);
		fputs(next > 1 ? ",[" : "[", f);
		json_str(f, sy->name);
		fputc(',', f);
		json_str(f, symbolizer_dso_info(s->sy, sy->dso)->short_name);
		fputc(']', f);
	}
	fputc(']', f);
	*remap_out = remap;
	return 0;
}

/* "stacks":[[frame, ...root first], ...] by stack id, "frames":[[name,dso],...]. */
static int write_stacks(FILE *f, struct session *s)
{
	struct strtab names;
	uint32_t id, i, n = s->cs ? callstacks_count(s->cs) : 0, nf;
	uint32_t *fdso = NULL, cap = 0;
	int rc = strtab_init(&names);

	if (rc)
		return rc;
	fputs(",\"stacks\":[", f);
	for (id = 0; id < n && !rc; id++) {
		const struct cs_stack *st = callstacks_get(s->cs, id);

		fputs(id ? ",[" : "[", f);
		for (i = 0; i < st->nr; i++) {
			const struct cs_frame *fr = &st->frames[st->nr - 1 - i];
			char buf[512];
			int64_t x = strtab_intern(&names, stack_frame_name(s, fr, buf, sizeof(buf)));

			if (x < 0) {
				rc = (int)x;
				break;
			}
			if ((uint64_t)x >= cap &&
			    pm_grow(&fdso, &cap, (uint64_t)x + 1, 1024, sizeof(*fdso))) {
				rc = -ENOMEM;
				break;
			}
			fdso[x] = symbolizer_sym(s->sy, fr->sym)->dso;
			fprintf(f, "%s%" PRId64, i ? "," : "", x);
		}
		fputc(']', f);
	}
	fputs("],\"frames\":[", f);
	for (nf = 0; !rc && nf < names.n; nf++) {
		fputs(nf ? ",[" : "[", f);
		json_str(f, strtab_str(&names, nf));
		fputc(',', f);
		json_str(f, symbolizer_dso_info(s->sy, fdso[nf])->short_name);
		fputc(']', f);
	}
	fputc(']', f);
	free(fdso);
	strtab_free(&names);
	return rc;
}

static int write_data(FILE *f, struct session *s, struct hpass *p, const char *phases,
		      const char *regions)
{
	uint64_t width, span = p->kept ? p->tmax + 1 : 1, nb;
	uint32_t *remap = NULL;
	int rc = 0;

	/* the final width: a multiple of the pass's (see coarsen()) */
	width = bucket_width(span, p->max);
	if (width < p->width || width % p->width)
		width = p->width;
	if (width != p->width) {
		rc = cells_rebucket(&p->tot, width / p->width);
		rc = rc ? rc : cells_rebucket(&p->fn, width / p->width);
		rc = rc ? rc : cells_rebucket(&p->stk, width / p->width);
		rc = rc ? rc : cells_rebucket(&p->hist, width / p->width);
		rc = rc ? rc : html_ann_rebucket(&p->ann, width / p->width);
	}
	nb = (span + width - 1) / width;
	if (!rc) {
		fputc('{', f);
		write_meta(f, s, width, nb, &p->ms);
		fprintf(f, ",\"hist_per_decade\":%d,\"hist_off\":%d,\"hist_ids\":%d",
			HIST_PER_DECADE, HIST_OFF, HIST_IDS);
		rc = write_syms(f, s, &p->fn, &remap);
	}
	if (!rc)
		rc = write_stacks(f, s);
	if (!rc)
		rc = html_ann_json(f, &p->ann, remap);
	if (!rc) {
		fprintf(f, ",%s,%s,", phases, regions);
		cells_json(f, "totals", &p->tot, NULL);
		fputc(',', f);
		cells_json(f, "fn", &p->fn, remap);
		fputc(',', f);
		cells_json(f, "st", &p->stk, NULL);
		fputc(',', f);
		cells_json(f, "hist", &p->hist, NULL);
		fputs("}", f);
	}
	free(remap);
	return rc;
}

/* Text inside <script>: "</" written as "<\/" (the same JSON string) so it ends nothing. */
static void write_script_text(FILE *out, const char *d, size_t len)
{
	size_t i, from = 0;

	for (i = 0; i + 1 < len; i++)
		if (d[i] == '<' && d[i + 1] == '/') {
			fwrite(d + from, 1, i + 1 - from, out);
			fputc('\\', out);
			from = i + 1;
		}
	fwrite(d + from, 1, len - from, out);
}

bool html_libs_embedded(unsigned int uplot_js, unsigned int uplot_css,
			unsigned int flamegraph_js, unsigned int flamegraph_css)
{
	return uplot_js && uplot_css && flamegraph_js && flamegraph_css;
}

int html_check_libs(void)
{
	/* PMIPROF_TEST_NO_HTML_LIBS: tests see a build without them */
	if (!getenv("PMIPROF_TEST_NO_HTML_LIBS") &&
	    html_libs_embedded(html_uplot_js_len, html_uplot_css_len,
			       html_flamegraph_js_len, html_flamegraph_css_len))
		return 0;
	pm_err("--html: this pmiprof was built without the page's JavaScript libraries "
	       "(uPlot, d3-flame-graph in report/output/html/node_modules); nothing written. "
	       "Fix: run 'make deps && make' in the source tree, then rerun");
	return -ENOENT;
}

/* The template with its markers replaced: the libraries, the app, the data. */
static int write_page(FILE *out, const char *data, size_t len)
{
	const char *t = (const char *)html_page_html, *end = t + html_page_html_len;

	while (t < end) {
		const char *m = memmem(t, (size_t)(end - t), "@@", 2), *e;

		if (!m) {
			fwrite(t, 1, (size_t)(end - t), out);
			break;
		}
		fwrite(t, 1, (size_t)(m - t), out);
		e = memmem(m + 2, (size_t)(end - m - 2), "@@", 2);
		if (!e)
			return -EINVAL;
#define PUT(name, var) else if ((size_t)(e - m - 2) == strlen(name) && \
			       !memcmp(m + 2, name, strlen(name))) \
			fwrite(var, 1, var##_len, out)
		if (0)
			;
		PUT("UPLOT_CSS", html_uplot_css);
		PUT("UPLOT_JS", html_uplot_js);
		PUT("FLAMEGRAPH_CSS", html_flamegraph_css);
		PUT("FLAMEGRAPH_JS", html_flamegraph_js);
		PUT("APP_CSS", html_app_css);
		PUT("APP_JS", html_app_js);
#undef PUT
		else if (e - m - 2 == 4 && !memcmp(m + 2, "DATA", 4))
			write_script_text(out, data, len);
		t = e + 2;
	}
	return ferror(out) ? -EIO : 0;
}

int report_html(const struct session_opts *so, const char *path, uint32_t buckets,
		const struct phases_opts *po)
{
	struct session s;
	struct hpass p = { .trunc_sym = -1, .max = buckets, .width = 1 };
	struct session_opts o = *so;
	char *data = NULL, *phases = NULL, *regions = NULL;
	size_t len = 0;
	FILE *mem, *out = stdout;
	int rc;

	/* before anything is read or written: no page without its libraries */
	if (html_check_libs())
		return 1;
	/* the phases: a pass of their own (as plot --phases) */
	rc = html_phases_json(so, po, &phases);
	if (rc) {
		pm_err("%s: phases: %s", so->input ? so->input : "pmiprof.data", strerror(-rc));
		return 1;
	}
	o.stacks = &callstack_hooks;
	if (session_open(&s, &o)) {
		free(phases);
		return 1;
	}
	p.s = &s;
	p.nev = s.h->nr_events < PMIPROF_MAX_EVENTS ? s.h->nr_events : PMIPROF_MAX_EVENTS;
	page_metrics(&s, &p.ms);
	rc = cells_init(&p.tot, p.nev, 1024);
	rc = rc ? rc : cells_init(&p.fn, p.nev, 4096);
	rc = rc ? rc : cells_init(&p.stk, p.nev, 4096);
	rc = rc ? rc : cells_init(&p.hist, 0, 4096);
	rc = rc ? rc : html_ann_init(&p.ann, &s, p.nev);
	s.reg.want_spans = (s.h->flags & PMIPROF_TRACE_F_REGIONS) != 0;
	rc = rc ? rc : session_run(&s, hpass_add, &p);
	/* regions still open at the end: up to the last window */
	if (!rc)
		rc = regions_close_all(&s.reg, s.base_time + (uint64_t)((double)s.last_ns /
								    s.time_scale));
	if (!rc)
		rc = html_regions_json(&s, p.tmax + 1, &regions);
	mem = rc ? NULL : open_memstream(&data, &len);
	if (!rc && !mem)
		rc = -errno;
	if (!rc) {
		rc = write_data(mem, &s, &p, phases, regions);
		if (fclose(mem) && !rc)
			rc = -EIO;
	}
	if (!rc && path && strcmp(path, "-")) {
		out = fopen(path, "w");
		if (!out)
			rc = -errno;
	}
	if (!rc)
		rc = write_page(out, data, len);
	if (out && out != stdout && fclose(out) && !rc)
		rc = -EIO;
	if (rc)
		pm_err("%s: %s", path ? path : "stdout", strerror(-rc));
	else
		session_print_warnings(&s, pm_quiet);
	free(data);
	free(phases);
	free(regions);
	cells_free(&p.tot);
	cells_free(&p.fn);
	cells_free(&p.stk);
	cells_free(&p.hist);
	html_ann_free(&p.ann);
	session_close(&s);
	return rc ? 1 : 0;
}
