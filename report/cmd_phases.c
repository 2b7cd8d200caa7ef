// SPDX-License-Identifier: GPL-2.0
/*
 * `pmiprof phases`: program phases of a trace (SimPoint's method, see
 * phases.h): intervals of windows in trace order, their phases, a summary
 * per phase, SimPoint .bb vectors; and what report --phase and plot
 * --phases use.  The windows come from the report's own pass (session.c),
 * symbolized and filtered exactly as the report's.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "output/format.h"
#include "analysis/phases.h"
#include "analysis/profile.h"
#include "output/html.h"
#include "input/session.h"
#include "util.h"

const char cmd_phases_summary[] = "Program phases (SimPoint): intervals clustered by code and rates";

const char cmd_phases_help[] =
"NAME\n"
"    pmiprof phases - program phases of a trace, the SimPoint way\n"
"\n"
"SYNOPSIS\n"
"    pmiprof phases [-i FILE] [--interval M] [--max-k K] [--format table|csv|json]\n"
"                   [--bbv FILE] [--top N] [FILTERS]\n"
"    pmiprof phases --html [-o FILE] [-i FILE] [--interval M] [--max-k K] [FILTERS]\n"
"\n"
"DESCRIPTION\n"
"    Groups the trace's windows, in trace order, into intervals of M windows\n"
"    and finds the program's phases: sets of intervals that run the same code\n"
"    at the same rates, wherever they occur in the run (Sherwood et al.,\n"
"    ASPLOS 2002; SimPoint 3.0, Hamerly et al. 2005).\n"
"\n"
"    Each interval's code signature is the histogram of the functions that\n"
"    closed its windows, normalized, randomly projected to 15 dimensions as\n"
"    SimPoint does; when hardware events were recorded the interval's rates\n"
"    (ipc, <event>-mpki, branch-miss-pct) are added, standardized.  Intervals\n"
"    in which the program changed phase (a mix of the intervals on either\n"
"    side) are left out of the clustering and take the nearest phase.  k-means\n"
"    (k-means++ seeding, a fixed seed, 5 restarts) clusters the intervals for\n"
"    k = 1..K; the Bayesian information criterion scores each k, and the\n"
"    smallest k whose score is at least 90% of the way from the worst to the\n"
"    best is chosen (SimPoint's rule).  Then phases whose function shares\n"
"    differ by less than 15% (total variation; and rates by less than 10%)\n"
"    are merged: the BIC splits a steady program on noise (shares that\n"
"    wander with the machine's load, a stray window in scattered intervals).\n"
"    Phases are numbered from 1 in order of first appearance; the same trace\n"
"    and options give the same phases.\n"
"\n"
"    Per phase: its share of the windows, its intervals, the mean and spread\n"
"    (standard deviation over its intervals) of its rates, its top functions,\n"
"    and its simulation point: the interval nearest the phase's centroid, the\n"
"    one to study (or simulate) for the phase.\n"
"\n"
"OPTIONS\n"
"    -i, --input FILE    trace to read (default: pmiprof.data)\n"
"    --interval M        windows per interval (default: about 10 M trigger\n"
"                        events per interval, or 100 ms of time-based windows)\n"
"    --max-k K           most phases to consider (default 10, at most 64)\n"
"    -f, --format F      table (default), csv: one row per interval with the\n"
"                        columns interval,start_s,end_s,phase (seconds since\n"
"                        the start of the recording); json: intervals and the\n"
"                        per-phase summary\n"
"    --bbv FILE          also write SimPoint's frequency vectors (.bb): one\n"
"                        line per interval 'T:id:count :id:count ...', id the\n"
"                        1-based function id, count its windows in the\n"
"                        interval (for simpoint -loadFVFile, simulators)\n"
"    --top N             functions shown per phase (default 5)\n"
"    --html              write report --html's page (-o FILE, default\n"
"                        phases.html) with the phases found with these\n"
"                        options: bands on the timeline, each stretch in\n"
"                        the list selects its time range (docs/html.md)\n"
"    -o, --output FILE   with --html: the page's file ('-': stdout)\n"
"    -q, --quiet         no notes about symbols\n"
"    FILTERS             as for pmiprof report (--pid, --tid, --comm, --dso,\n"
"                        --symbol, --time, --window, --region): the phases of\n"
"                        the windows they keep\n"
"\n"
"SYMBOL LOOKUP\n"
SESSION_LOOKUP_HELP
"\n"
"EXAMPLES\n"
"    pmiprof phases\n"
"    pmiprof phases -i run.data --format csv > intervals.csv\n"
"    pmiprof phases --bbv run.bb && simpoint -loadFVFile run.bb -maxK 10 ...\n"
"    pmiprof phases --html --max-k 4 -o phases.html\n"
"    pmiprof report --phase 2          the flat profile of phase 2\n"
"    pmiprof plot -o run.png --phases  the time axis coloured by phase\n"
"\n"
"EXIT STATUS\n"
"    0 success, 1 unreadable trace or no windows, 2 usage error.\n"
"\n"
"SEE ALSO\n"
"    pmiprof report, pmiprof plot, docs/phases.md\n";

enum { OPT_INTERVAL = 0x2000, OPT_MAX_K, OPT_BBV, OPT_TOP, OPT_HTML };

static const struct option long_opts[] = {
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "max-k", required_argument, NULL, OPT_MAX_K },
	{ "format", required_argument, NULL, 'f' },
	{ "bbv", required_argument, NULL, OPT_BBV },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "html", no_argument, NULL, OPT_HTML },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	SESSION_FILTER_OPTIONS,
	{ NULL, 0, NULL, 0 }
};

/* ---- detection on a trace ---- */

struct detect_pass {
	struct session *s;
	struct phases_result *r;
};

/* Dense function ids in order of first appearance: the .bb ids and the projection's keys. */
static int64_t fn_of(struct phases_result *r, uint32_t sym)
{
	if (sym >= r->cap_sym) {
		uint32_t cap = r->cap_sym ? r->cap_sym : 1024;
		uint32_t *n;

		while (cap <= sym)
			cap *= 2;
		n = realloc(r->sym_fn, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		memset(n + r->cap_sym, 0, (cap - r->cap_sym) * sizeof(*n));
		r->sym_fn = n;
		r->cap_sym = cap;
	}
	if (!r->sym_fn[sym]) {
		if (r->nr_fn == r->cap_fn) {
			uint32_t cap = r->cap_fn ? r->cap_fn * 2 : 256, *n;

			n = realloc(r->fn_sym, cap * sizeof(*n));
			if (!n)
				return -ENOMEM;
			r->fn_sym = n;
			r->cap_fn = cap;
		}
		r->fn_sym[r->nr_fn++] = sym;
		r->sym_fn[sym] = r->nr_fn;
	}
	return r->sym_fn[sym] - 1;
}

static int detect_window(void *arg, const struct trace_sample *smp, uint64_t index, uint32_t sym,
			 uint32_t comm)
{
	struct detect_pass *d = arg;
	uint32_t had = d->r->nr_fn;
	int64_t fn = fn_of(d->r, sym);
	int err;

	(void)index;
	(void)comm;
	if (fn < 0)
		return (int)fn;
	/* a new function: kernel code by its first window (phases.h) */
	if (d->r->nr_fn != had &&
	    ((smp->flags & (PMIPROF_SAMPLE_F_KERNEL | PMIPROF_SAMPLE_F_IP_HIDDEN)) ||
	     smp->ip >= 0xffff800000000000ULL)) {
		err = phases_builder_kernel_fn(&d->r->b, (uint32_t)fn);
		if (err)
			return err;
	}
	return phases_builder_add(&d->r->b, (uint32_t)fn, session_time_ns(d->s, smp->time),
				  window_counts_events(smp->flags), smp->counts);
}

/* Shown per phase: the derived metrics (clustered on), else the non-clock event rates. */
static void phase_rates(const struct trace_header *h, struct phases_result *r)
{
	uint32_t i;

	metrics_derived(h, &r->rates);
	r->nr_cluster_rates = r->rates.n;
	if (r->rates.n)
		return;
	for (i = 0; i < h->nr_events && i < PMIPROF_MAX_EVENTS && r->rates.n < 6; i++) {
		char name[200], b[128];
		const char *base = event_base_name(h->events[i].name, b, sizeof(b)), *why;

		if (!strcmp(base, "cpu-clock") || !strcmp(base, "task-clock"))
			continue;
		snprintf(name, sizeof(name), "%s-rate", h->events[i].name);
		if (!metric_parse(h, name, &r->rates.m[r->rates.n], &why))
			r->rates.n++;
	}
}

int phases_detect(struct session *s, const struct phases_opts *o, struct phases_result *r)
{
	const struct trace_header *h = s->h;
	bool time_based = h->flags & PMIPROF_TRACE_F_TIME_BASED;
	struct phases_rule rule = {
		.target_events = time_based ? PHASES_TARGET_NS : PHASES_TARGET_EVENTS,
		.trigger = h->trigger_index,
	};
	struct detect_pass d = { s, r };
	double *x = NULL, *w = NULL;
	uint8_t *tr = NULL;
	uint32_t dim, i;
	int err;

	memset(r, 0, sizeof(*r));
	/* A fixed period tells M at once; a frequency's period is measured (phases.h). */
	if (o->interval)
		rule.m = o->interval;
	else if (!(h->trigger_flags & PMIPROF_TRIGGER_F_FREQ) && h->period)
		rule.m = (uint64_t)fmax(1, round(rule.target_events / (double)h->period));
	phase_rates(h, r);
	err = phases_builder_init(&r->b, h->nr_events, &rule);
	if (!err)
		err = session_run(s, detect_window, &d);
	if (!err)
		err = phases_builder_finish(&r->b);
	if (err)
		return err;
	if (!r->b.n)
		return -ENODATA;
	x = phases_features(&r->b, r->rates.m, r->nr_cluster_rates, &dim);
	w = malloc(r->b.n * sizeof(*w));
	tr = malloc(r->b.n);
	if (!x || !w || !tr) {
		err = -ENOMEM;
		goto out;
	}
	phases_transitions(x, r->b.n, dim, tr);
	for (i = 0; i < r->b.n; i++) {
		w[i] = tr[i] ? 0 : r->b.iv[i].windows;
		r->clustered += !tr[i];
	}
	/*
	 * A phase needs a few intervals for the BIC to mean anything: with 9
	 * intervals it would happily find 7 phases.  k is capped at a third of
	 * the intervals clustered, and the table says so.
	 */
	r->max_k_asked = o->max_k ? o->max_k : PHASES_DEFAULT_MAX_K;
	err = phases_cluster(x, w, r->b.n, dim,
			     r->max_k_asked < PHASES_K_CAP(r->clustered) ? r->max_k_asked :
			     PHASES_K_CAP(r->clustered),
			     phases_sampling_var(&r->b, w, dim), &r->c);
	if (!err) {
		err = phases_merge_similar(&r->b, x, w, dim, r->rates.m, r->nr_cluster_rates, &r->c);
		err = err > 0 ? 0 : err;
	}
	for (i = 0; !err && i < r->b.n; i++)
		r->b.iv[i].phase = r->c.km.assign[i];
	r->transition = tr;
	tr = NULL;
out:
	free(x);
	free(w);
	free(tr);
	return err;
}

void phases_result_free(struct phases_result *r)
{
	phases_builder_free(&r->b);
	phases_clustering_free(&r->c);
	free(r->fn_sym);
	free(r->sym_fn);
	free(r->transition);
	memset(r, 0, sizeof(*r));
}

/* ---- report --phase K ---- */

struct phase_filter {
	struct session *s;
	const struct phases_result *r;
	struct profile *p;
	uint32_t phase;
	uint64_t ordinal;	/* kept windows so far */
	uint32_t iv;		/* interval of the current window */
};

static int phase_window(void *arg, const struct trace_sample *smp, uint64_t index, uint32_t sym,
			uint32_t comm)
{
	struct phase_filter *f = arg;
	const struct phases_builder *b = &f->r->b;
	struct session *s = f->s;
	uint32_t e;

	while (f->iv + 1 < b->n && f->ordinal >= b->iv[f->iv + 1].first)
		f->iv++;
	f->ordinal++;
	if (b->iv[f->iv].phase == f->phase)
		return profile_add_sample(f->p, smp, index, sym, comm);
	/* not this phase: the session's counts of what is shown leave it out */
	s->kept--;
	if (smp->flags & PMIPROF_SAMPLE_F_THROTTLED)
		s->throttled--;
	if (smp->flags & PMIPROF_SAMPLE_F_AFTER_LOSS)
		s->after_loss--;
	if (!window_in_stats(smp->flags))
		s->left_out--;
	for (e = 0; window_counts_events(smp->flags) && e < smp->nr && e < PMIPROF_MAX_EVENTS; e++)
		s->kept_totals[e] -= smp->counts[e];
	return 0;
}

int phases_profile(struct session *s, const struct phases_opts *o, uint32_t phase,
		   struct profile *p, uint32_t *nr_phases)
{
	struct phases_result r;
	struct phase_filter f;
	struct session s2;
	int err;

	*nr_phases = 0;
	err = session_open(&s2, &s->opts);
	if (err)
		return err;
	err = phases_detect(&s2, o, &r);
	session_close(&s2);
	if (!err) {
		*nr_phases = r.c.k;
		if (!phase || phase > r.c.k)
			err = -ERANGE;
	}
	if (!err) {
		f = (struct phase_filter){ .s = s, .r = &r, .p = p, .phase = phase - 1 };
		err = session_run(s, phase_window, &f);
	}
	phases_result_free(&r);
	return err;
}

/* ---- plot --phases ---- */

static const char *const phase_colors[] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
	"#bcbd22", "#17becf",
};

const char *phases_color(uint32_t phase)
{
	return phase_colors[phase % ARRAY_SIZE(phase_colors)];
}

uint32_t phases_gnuplot_bands(FILE *f, const struct phases_result *r, uint32_t first)
{
	const struct phases_builder *b = &r->b;
	uint32_t i = 0, j, nobj = 0;

	/* one band per run of consecutive intervals in the same phase */
	while (i < b->n) {
		for (j = i; j + 1 < b->n && b->iv[j + 1].phase == b->iv[i].phase; j++)
			;
		fprintf(f, "set object %u rect from %.9f, graph 0 to %.9f, graph 0.04 fc rgb \"%s\" "
			"fs solid 0.9 noborder front\n", first + nobj++,
			(double)b->iv[i].start_ns / 1e9, (double)b->iv[j].end_ns / 1e9,
			phases_color(b->iv[i].phase));
		fprintf(f, "set object %u rect from %.9f, graph 0 to %.9f, graph 1 fc rgb \"%s\" "
			"fs transparent solid 0.08 noborder behind\n", first + nobj++,
			(double)b->iv[i].start_ns / 1e9, (double)b->iv[j].end_ns / 1e9,
			phases_color(b->iv[i].phase));
		i = j + 1;
	}
	return r->c.k;
}

/* ---- pmiprof phases ---- */

struct phase_summary {
	uint64_t windows;
	uint32_t intervals, transitions;
	double *mean, *sd;		/* per rate */
	uint64_t *fn_windows;		/* per fn */
	uint32_t *top;			/* top fns */
	uint32_t nr_top;
};

struct phases_args {
	struct session_opts so;
	struct phases_opts po;
	enum out_format format;
	const char *bbv;
	uint64_t top;
	bool html;			/* --html: the report page (output/html.c) */
	bool format_given;
	const char *output;		/* -o, with --html */
};

static const struct phases_result *sort_r;
static const uint64_t *sort_w;

static int fn_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (sort_w[x] != sort_w[y])
		return sort_w[x] > sort_w[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int summarize(const struct phases_result *r, uint32_t top, struct phase_summary *ps)
{
	const struct phases_builder *b = &r->b;
	uint32_t k = r->c.k, nr = r->rates.n, p, i, j, q;

	for (p = 0; p < k; p++) {
		struct phase_summary *x = &ps[p];
		uint32_t *order;
		double v;

		x->mean = calloc(nr ? nr : 1, sizeof(double));
		x->sd = calloc(nr ? nr : 1, sizeof(double));
		x->fn_windows = calloc(r->nr_fn ? r->nr_fn : 1, sizeof(uint64_t));
		order = malloc((r->nr_fn ? r->nr_fn : 1) * sizeof(*order));
		if (!x->mean || !x->sd || !x->fn_windows || !order) {
			free(order);
			return -ENOMEM;
		}
		for (q = 0; q < nr; q++) {
			uint32_t have = 0;
			double s = 0, s2 = 0;

			for (i = 0; i < b->n; i++) {
				if (b->iv[i].phase != p ||
				    !metric_value(&r->rates.m[q], &b->sums[(size_t)i * PMIPROF_MAX_EVENTS],
						  &v))
					continue;
				s += v;
				s2 += v * v;
				have++;
			}
			x->mean[q] = have ? s / have : NAN;
			x->sd[q] = have ? sqrt(fmax(0, s2 / have - x->mean[q] * x->mean[q])) : NAN;
		}
		for (i = 0; i < b->n; i++) {
			if (b->iv[i].phase != p)
				continue;
			x->intervals++;
			x->transitions += r->transition[i];
			x->windows += b->iv[i].windows;
			for (j = 0; j < b->iv[i].bb_n; j++)
				x->fn_windows[b->bb[b->iv[i].bb_off + j].fn] +=
					b->bb[b->iv[i].bb_off + j].count;
		}
		for (i = 0; i < r->nr_fn; i++)
			order[i] = i;
		sort_r = r;
		sort_w = x->fn_windows;
		qsort(order, r->nr_fn, sizeof(*order), fn_cmp);
		for (i = 0; i < r->nr_fn && i < top && x->fn_windows[order[i]]; i++)
			;
		x->nr_top = i;
		x->top = order;
	}
	return 0;
}

static void free_summary(struct phase_summary *ps, uint32_t k)
{
	uint32_t p;

	for (p = 0; ps && p < k; p++) {
		free(ps[p].mean);
		free(ps[p].sd);
		free(ps[p].fn_windows);
		free(ps[p].top);
	}
	free(ps);
}

static const char *fn_name(const struct session *s, const struct phases_result *r, uint32_t fn)
{
	return symbolizer_sym(s->sy, r->fn_sym[fn])->name;
}

int phases_names(const struct session *s, const struct phases_result *r, char *names, size_t each)
{
	uint32_t k = r->c.k, p, q;
	struct phase_summary *ps = calloc(k ? k : 1, sizeof(*ps));
	int err;

	if (!ps)
		return -ENOMEM;
	err = summarize(r, 2, ps);
	for (p = 0; !err && p < k; p++) {
		const struct phase_summary *x = &ps[p];
		char *out = names + (size_t)p * each;
		bool dup = false;
		int at;

		if (!x->nr_top || !x->windows) {
			snprintf(out, each, "phase %u", p + 1);
			continue;
		}
		/* two phases with the same top function: their second one tells them apart */
		for (q = 0; q < k; q++)
			dup |= q != p && ps[q].nr_top && ps[q].top[0] == x->top[0];
		at = snprintf(out, each, "phase %u: %s %.0f%%", p + 1, fn_name(s, r, x->top[0]),
			      100.0 * (double)x->fn_windows[x->top[0]] / (double)x->windows);
		if (dup && x->nr_top > 1 && at > 0 && (size_t)at < each)
			snprintf(out + at, each - (size_t)at, ", %s %.0f%%", fn_name(s, r, x->top[1]),
				 100.0 * (double)x->fn_windows[x->top[1]] / (double)x->windows);
	}
	free_summary(ps, k);
	return err;
}

static void print_csv(const struct phases_result *r)
{
	uint32_t i;

	fputs("interval,start_s,end_s,phase\n", stdout);
	for (i = 0; i < r->b.n; i++)
		printf("%u,%.6f,%.6f,%u\n", i, (double)r->b.iv[i].start_ns / 1e9,
		       (double)r->b.iv[i].end_ns / 1e9, r->b.iv[i].phase + 1);
}

static void print_json(const struct session *s, const struct phases_result *r,
		       const struct phase_summary *ps)
{
	const struct phases_builder *b = &r->b;
	uint32_t i, p, q, k = r->c.k;

	printf("{\"interval_windows\": %" PRIu64 ", \"windows\": %" PRIu64 ", \"k\": %u, "
	       "\"k_bic\": %u, \"max_k\": %u, \"bic\": [", b->m, b->windows, k, r->c.k_bic, r->c.max_k);
	for (i = 1; i <= r->c.max_k; i++)
		printf("%s%.6g", i > 1 ? ", " : "", r->c.bic[i]);
	printf("],\n\"rates\": [");
	for (q = 0; q < r->rates.n; q++) {
		fputs(q ? ", " : "", stdout);
		json_str(stdout, r->rates.m[q].name);
	}
	printf("], \"clustered_rates\": %u,\n\"phases\": [", r->nr_cluster_rates);
	for (p = 0; p < k; p++) {
		const struct phase_interval *rep = &b->iv[r->c.rep[p] < b->n ? r->c.rep[p] : 0];

		printf("%s\n {\"phase\": %u, \"share\": %.6f, \"intervals\": %u, \"transitions\": %u, "
		       "\"windows\": %" PRIu64 ", \"simpoint\": {\"interval\": %u, \"start_s\": %.6f, "
		       "\"end_s\": %.6f}, \"rates\": {", p ? "," : "", p + 1,
		       b->windows ? (double)ps[p].windows / (double)b->windows : 0, ps[p].intervals,
		       ps[p].transitions, ps[p].windows, r->c.rep[p], (double)rep->start_ns / 1e9,
		       (double)rep->end_ns / 1e9);
		for (q = 0; q < r->rates.n; q++) {
			fputs(q ? ", " : "", stdout);
			json_str(stdout, r->rates.m[q].name);
			if (isfinite(ps[p].mean[q]))
				printf(": {\"mean\": %.6g, \"sd\": %.6g}", ps[p].mean[q], ps[p].sd[q]);
			else
				fputs(": null", stdout);
		}
		fputs("}, \"top\": [", stdout);
		for (i = 0; i < ps[p].nr_top; i++) {
			uint32_t fn = ps[p].top[i];

			fputs(i ? ", " : "", stdout);
			fputs("{\"symbol\": ", stdout);
			json_str(stdout, fn_name(s, r, fn));
			printf(", \"windows\": %" PRIu64 ", \"share\": %.6f}", ps[p].fn_windows[fn],
			       ps[p].windows ? (double)ps[p].fn_windows[fn] / (double)ps[p].windows : 0);
		}
		fputs("]}", stdout);
	}
	fputs("\n],\n\"intervals\": [", stdout);
	for (i = 0; i < b->n; i++)
		printf("%s\n {\"interval\": %u, \"start_s\": %.6f, \"end_s\": %.6f, \"windows\": %u, "
		       "\"phase\": %u, \"transition\": %s}", i ? "," : "", i,
		       (double)b->iv[i].start_ns / 1e9, (double)b->iv[i].end_ns / 1e9,
		       b->iv[i].windows, b->iv[i].phase + 1, r->transition[i] ? "true" : "false");
	fputs("\n],\n", stdout);
	print_meta_json(stdout, s);
	fputs("}\n", stdout);
}

static void print_table(const struct session *s, const struct phases_result *r,
			const struct phase_summary *ps)
{
	const struct phases_builder *b = &r->b;
	uint32_t i, p, q, k = r->c.k, tr = 0;
	char line[1024], nb[64], cb[160];
	size_t at;

	for (i = 0; i < b->n; i++)
		tr += r->transition[i];
	print_meta_text(stdout, s);
	print_meta_line(stdout, "phases: %u interval(s) of %" PRIu64 " window(s)%s; signature: "
			"functions closing the windows, projected to %d dimensions%s%s", b->n, b->m,
			s->h->flags & PMIPROF_TRACE_F_TIME_BASED ? " (time-based windows)" : "",
			PHASES_DIM, r->nr_cluster_rates ? " + rates: " : "",
			r->nr_cluster_rates ? r->rates.m[0].name : "");
	at = 0;
	line[0] = 0;
	for (i = 1; i <= r->c.max_k && at < sizeof(line); i++) {
		int n = snprintf(line + at, sizeof(line) - at, "%s%u: %.4g", i > 1 ? ", " : "", i,
				 r->c.bic[i]);
		at += n > 0 ? (size_t)n : 0;
	}
	if (r->c.k_bic != k)
		print_meta_line(stdout, "k = %u: BIC chose %u (SimPoint: the smallest k at >= 90%% of "
				"the way from the worst to the best), %u merged: phases whose function "
				"shares differ by less than %.0f%%%s are one; BIC by k: %s", k,
				r->c.k_bic, r->c.k_bic - k, 100 * PHASES_MERGE_TV,
				r->nr_cluster_rates ? " (and rates by less than 10%)" : "", line);
	else
		print_meta_line(stdout, "k = %u by BIC (SimPoint: the smallest k at >= 90%% of the "
				"way from the worst to the best); BIC by k: %s", k, line);
	if (r->c.max_k < r->max_k_asked)
		print_meta_line(stdout, "k at most %u: only %u interval(s) clustered (at least 3 per "
				"phase); a smaller --interval gives more", r->c.max_k, r->clustered);
	if (tr)
		print_meta_line(stdout, "%u transition interval(s) (a phase change inside) left out "
				"of the clustering, labelled with the nearest phase", tr);
	printf("%5s %7s %9s %9s %9s %21s", "phase", "share", "intervals", "windows", "simpoint",
	       "simpoint_s");
	for (q = 0; q < r->rates.n; q++)
		printf(" %19s", fit(nb, sizeof(nb), column_name(r->rates.m[q].name, cb, sizeof(cb)),
				    19));
	putchar('\n');
	for (p = 0; p < k; p++) {
		const struct phase_interval *rep = &b->iv[r->c.rep[p] < b->n ? r->c.rep[p] : 0];
		char span[48];

		snprintf(span, sizeof(span), "%.3f-%.3f", (double)rep->start_ns / 1e9,
			 (double)rep->end_ns / 1e9);
		printf("%5u %6.2f%% %9u %9" PRIu64 " %9u %21s", p + 1,
		       b->windows ? 100.0 * (double)ps[p].windows / (double)b->windows : 0,
		       ps[p].intervals, ps[p].windows, r->c.rep[p], span);
		for (q = 0; q < r->rates.n; q++) {
			char v[48];

			if (isfinite(ps[p].mean[q]))
				snprintf(v, sizeof(v), "%.4g +-%.2g", ps[p].mean[q], ps[p].sd[q]);
			else
				snprintf(v, sizeof(v), "-");
			printf(" %19s", v);
		}
		putchar('\n');
		printf("%5s   top:", "");
		for (i = 0; i < ps[p].nr_top; i++) {
			uint32_t fn = ps[p].top[i];

			printf("%s %s %.1f%%", i ? "," : "", fn_name(s, r, fn),
			       100.0 * (double)ps[p].fn_windows[fn] / (double)ps[p].windows);
		}
		putchar('\n');
	}
}

static int parse_args(struct phases_args *a, int argc, char **argv)
{
	uint64_t v;
	int c, rc;

	a->top = 5;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:f:o:qh", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_INTERVAL:
			if (pm_parse_u64(optarg, 1, UINT32_MAX, &a->po.interval))
				return pm_usage_error("phases", "--interval '%s': expected a number "
						      "of windows >= 1", optarg);
			break;
		case OPT_MAX_K:
			if (pm_parse_u64(optarg, 1, PHASES_MAX_K, &v))
				return pm_usage_error("phases", "--max-k '%s': expected 1..%d",
						      optarg, PHASES_MAX_K);
			a->po.max_k = (uint32_t)v;
			break;
		case 'f':
			if (parse_format(optarg, &a->format))
				return pm_usage_error("phases", "--format '%s': expected table, csv "
						      "or json", optarg);
			a->format_given = true;
			break;
		case OPT_HTML:
			a->html = true;
			break;
		case 'o':
			a->output = optarg;
			break;
		case OPT_BBV:
			a->bbv = optarg;
			break;
		case OPT_TOP:
			if (pm_parse_u64(optarg, 1, 1000, &a->top))
				return pm_usage_error("phases", "--top '%s': expected 1..1000",
						      optarg);
			break;
		case 'h':
			return -1;
		case ':':
			return pm_usage_error("phases", "option '%s' needs a value",
					      argv[optind - 1]);
		case '?':
			return pm_usage_error("phases", "unknown option '%s'", argv[optind - 1]);
		default:
			rc = session_filter_option(&a->so, c, optarg, "phases");
			if (rc)
				return rc;
			break;
		}
	}
	if (optind < argc)
		return pm_usage_error("phases", "unexpected argument '%s' (the trace is given "
				      "with -i FILE)", argv[optind]);
	if (a->html && (a->format_given || a->bbv))
		return pm_usage_error("phases", "--html writes a page: it takes no --format "
				      "or --bbv");
	if (a->output && !a->html)
		return pm_usage_error("phases", "-o is for the --html page (the table, csv and "
				      "json go to stdout)");
	return 0;
}

static int write_bbv(const char *path, const struct phases_result *r)
{
	FILE *f = fopen(path, "w");
	int err;

	if (!f)
		return -errno;
	err = phases_write_bbv(f, &r->b);
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

static int run_phases(struct phases_args *a)
{
	struct phase_summary *ps = NULL;
	struct phases_result r;
	struct session s;
	int rc, status = 1;

	rc = session_open(&s, &a->so);
	if (rc)
		return rc == -ENOMEM ? (pm_err("out of memory"), 1) : 1;
	rc = phases_detect(&s, &a->po, &r);
	if (rc == -ENODATA) {
		pm_err("%s: no windows%s: no phases to find", s.opts.input,
		       s.samples ? " after the filters" : "");
		goto out;
	}
	if (!rc && a->bbv) {
		rc = write_bbv(a->bbv, &r);
		if (rc) {
			pm_err("--bbv %s: %s", a->bbv, strerror(-rc));
			goto out;
		}
	}
	if (!rc) {
		ps = calloc(r.c.k, sizeof(*ps));
		rc = ps ? summarize(&r, (uint32_t)a->top, ps) : -ENOMEM;
	}
	if (rc) {
		pm_err("%s: %s", s.opts.input, strerror(-rc));
		goto out;
	}
	if (a->format == FMT_CSV)
		print_csv(&r);
	else if (a->format == FMT_JSON)
		print_json(&s, &r, ps);
	else
		print_table(&s, &r, ps);
	session_print_warnings(&s, pm_quiet);
	status = 0;
out:
	free_summary(ps, r.c.k);
	phases_result_free(&r);
	session_close(&s);
	return status;
}

int cmd_phases(int argc, char **argv)
{
	struct phases_args a;
	int rc;

	memset(&a, 0, sizeof(a));
	rc = parse_args(&a, argc, argv);
	if (rc < 0) {
		session_opts_free(&a.so);
		return command_help("phases");
	}
	if (!rc && a.html)
		rc = report_html(&a.so, a.output ? a.output : "phases.html", HTML_DEFAULT_BUCKETS,
				 &a.po);
	else if (!rc)
		rc = run_phases(&a);
	session_opts_free(&a.so);
	return rc;
}
