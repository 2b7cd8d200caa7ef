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
#include "analysis/metrics.h"
#include "output/stack_export.h"
#include "symbols/symbols.h"
#include "util.h"

#include "html_assets.h"

/* One kept window, as the pass saw it. */
struct hwin {
	uint64_t ns;
	uint32_t sym, stack, flags;
};

struct hpass {
	struct session *s;
	uint32_t nev;
	struct hwin *w;
	uint64_t *counts;		/* nev per window */
	uint64_t n, cap;
	int64_t trunc_sym;
};

static int hpass_add(void *arg, const struct trace_sample *smp, uint64_t index, uint32_t sym,
		     uint32_t comm)
{
	struct hpass *p = arg;
	uint32_t i, stack = CS_NONE;
	int rc;

	(void)index;
	(void)comm;
	if (p->s->cs) {
		rc = stack_of_sample(p->s, sym, &p->trunc_sym, &stack);
		if (rc)
			return rc;
	}
	if (p->n == p->cap) {
		uint64_t cap = p->cap ? p->cap * 2 : 65536;
		struct hwin *w = realloc(p->w, cap * sizeof(*w));
		uint64_t *c;

		if (!w)
			return -ENOMEM;
		p->w = w;
		c = realloc(p->counts, cap * (p->nev ? p->nev : 1) * sizeof(*c));
		if (!c)
			return -ENOMEM;
		p->counts = c;
		p->cap = cap;
	}
	p->w[p->n] = (struct hwin){ session_time_ns(p->s, smp->time), sym, stack, smp->flags };
	for (i = 0; i < p->nev; i++)
		p->counts[p->n * p->nev + i] = i < smp->nr ? smp->counts[i] : 0;
	p->n++;
	return 0;
}

/* Sparse (bucket, id) -> samples and event sums. */
struct hcells {
	struct hashmap idx;
	uint32_t nev, n, cap;
	uint64_t *v;			/* per cell: bucket, id, samples, nev sums */
};

static int cells_add(struct hcells *c, uint64_t bucket, uint32_t id, const uint64_t *counts,
		     bool sums)
{
	uint32_t k = hm_get(&c->idx, bucket, id), stride = 3 + c->nev, i;
	uint64_t *e;

	if (k == HM_EMPTY) {
		if (pm_grow(&c->v, &c->cap, (uint64_t)(c->n + 1) * stride, 4096, sizeof(*c->v)))
			return -ENOMEM;
		k = c->n++;
		e = &c->v[(uint64_t)k * stride];
		memset(e, 0, stride * sizeof(*e));
		e[0] = bucket;
		e[1] = id;
		if (hm_put(&c->idx, bucket, id, k))
			return -ENOMEM;
	}
	e = &c->v[(uint64_t)k * stride];
	e[2]++;
	for (i = 0; sums && i < c->nev; i++)
		e[3 + i] += counts[i];
	return 0;
}

static int cell_cmp(const void *a, const void *b, void *arg)
{
	const uint64_t *x = a, *y = b;

	(void)arg;
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Cells as columns: "name":{"b":[bucket deltas],"i":[ids],"n":[samples],"c":[[sums]]}. */
static void cells_json(FILE *f, const char *name, struct hcells *c, const uint32_t *remap)
{
	uint32_t stride = 3 + c->nev, k, e;
	uint64_t prev = 0;

	if (c->n)
		qsort_r(c->v, c->n, stride * sizeof(*c->v), cell_cmp, NULL);
	fprintf(f, "\"%s\":{\"b\":[", name);
	for (k = 0; k < c->n; k++) {
		fprintf(f, "%s%" PRIu64, k ? "," : "", c->v[k * stride] - prev);
		prev = c->v[k * stride];
	}
	fputs("],\"i\":[", f);
	for (k = 0; k < c->n; k++)
		fprintf(f, "%s%u", k ? "," : "",
			remap ? remap[c->v[k * stride + 1]] : (uint32_t)c->v[k * stride + 1]);
	fputs("],\"n\":[", f);
	for (k = 0; k < c->n; k++)
		fprintf(f, "%s%" PRIu64, k ? "," : "", c->v[k * stride + 2]);
	fputs("],\"c\":[", f);
	for (e = 0; e < c->nev; e++) {
		fprintf(f, "%s[", e ? "," : "");
		for (k = 0; k < c->n; k++)
			fprintf(f, "%s%" PRIu64, k ? "," : "", c->v[k * stride + 3 + e]);
		fputc(']', f);
	}
	fputs("]}", f);
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
static int write_syms(FILE *f, struct session *s, const struct hpass *p, uint32_t **remap_out)
{
	uint32_t nsym = symbolizer_nr_syms(s->sy), *remap, next = 0;
	uint64_t k;

	remap = malloc((nsym + 1) * sizeof(*remap));
	if (!remap)
		return -ENOMEM;
	for (k = 0; k <= nsym; k++)
		remap[k] = UINT32_MAX;
	fputs(",\"syms\":[", f);
	for (k = 0; k < p->n; k++) {
		uint32_t sym = p->w[k].sym;
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

static int write_data(FILE *f, struct session *s, const struct hpass *p, uint32_t max_buckets)
{
	struct hcells tot = { .nev = p->nev }, fn = { .nev = p->nev }, stk = { .nev = p->nev };
	struct metric_set ms;
	uint64_t width, span, nb, k;
	uint32_t *remap = NULL;
	int rc;

	span = p->n ? s->last_ns + 1 : 1;
	width = bucket_width(span, max_buckets);
	nb = (span + width - 1) / width;
	rc = hm_init(&tot.idx, 1024);
	rc = rc ? rc : hm_init(&fn.idx, 4096);
	rc = rc ? rc : hm_init(&stk.idx, 4096);
	for (k = 0; k < p->n && !rc; k++) {
		const struct hwin *w = &p->w[k];
		const uint64_t *c = &p->counts[k * p->nev];
		uint64_t b = w->ns / width;
		bool sums = window_counts_events(w->flags);

		/* id 0: every kept window (report's sums), 1: those per-window statistics admit */
		rc = cells_add(&tot, b, 0, c, sums);
		if (!rc && window_in_stats(w->flags))
			rc = cells_add(&tot, b, 1, c, true);
		if (!rc)
			rc = cells_add(&fn, b, w->sym, c, sums);
		if (!rc && w->stack != CS_NONE)
			rc = cells_add(&stk, b, w->stack, c, sums);
	}
	if (!rc) {
		page_metrics(s, &ms);
		fputc('{', f);
		write_meta(f, s, width, nb, &ms);
		rc = write_syms(f, s, p, &remap);
	}
	if (!rc)
		rc = write_stacks(f, s);
	if (!rc) {
		fputc(',', f);
		cells_json(f, "totals", &tot, NULL);
		fputc(',', f);
		cells_json(f, "fn", &fn, remap);
		fputc(',', f);
		cells_json(f, "st", &stk, NULL);
		fputs("}", f);
	}
	free(remap);
	hm_free(&tot.idx);
	hm_free(&fn.idx);
	hm_free(&stk.idx);
	free(tot.v);
	free(fn.v);
	free(stk.v);
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

/* The template with its markers replaced: the libraries, the app, the data. */
static int write_page(FILE *out, const char *data, size_t len)
{
	const char *t = (const char *)html_page_html, *end = t + html_page_html_len;

	if (!html_uplot_js_len || !html_flamegraph_js_len) {
		pm_err("report --html: this pmiprof was built without the page's JavaScript "
		       "libraries (report/output/html/node_modules): run 'make deps' and rebuild");
		return -ENOENT;
	}
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

int report_html(const struct session_opts *so, const char *path, uint32_t buckets)
{
	struct session s;
	struct hpass p = { .trunc_sym = -1 };
	struct session_opts o = *so;
	char *data = NULL;
	size_t len = 0;
	FILE *mem, *out = stdout;
	int rc;

	o.stacks = &callstack_hooks;
	if (session_open(&s, &o))
		return 1;
	p.s = &s;
	p.nev = s.h->nr_events < PMIPROF_MAX_EVENTS ? s.h->nr_events : PMIPROF_MAX_EVENTS;
	rc = session_run(&s, hpass_add, &p);
	mem = rc ? NULL : open_memstream(&data, &len);
	if (!rc && !mem)
		rc = -errno;
	if (!rc) {
		rc = write_data(mem, &s, &p, buckets);
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
		pm_err("%s: %s", rc == -ENOENT ? "report --html" : path ? path : "stdout",
		       strerror(-rc));
	else
		session_print_warnings(&s, pm_quiet);
	free(data);
	free(p.w);
	free(p.counts);
	session_close(&s);
	return rc ? 1 : 0;
}
