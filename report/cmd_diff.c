// SPDX-License-Identifier: GPL-2.0
/*
 * `pmiprof diff A B`: run-to-run comparison.  Each trace's flat profile is
 * built exactly as `pmiprof report` builds it (session.c + profile.c, the
 * parallel pass when it applies); functions are matched by symbol name and
 * DSO basename; the statistics are in diff.c; this file orchestrates and
 * prints.  When both runs closed windows every N of the same trigger in the
 * same binary, windows are also compared by index (window i of A against
 * window i of B), which needs the sequential pass to keep each window.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "analysis/diff.h"
#include "output/format.h"
#include "output/gnuplot.h"
#include "analysis/metrics.h"
#include "analysis/parallel.h"
#include "analysis/profile.h"
#include "input/session.h"
#include "util.h"

const char cmd_diff_summary[] = "Compare two runs: share and cost changes, event rates, windows";

const char cmd_diff_help[] =
"NAME\n"
"    pmiprof diff - compare two recordings function by function, with tests\n"
"\n"
"SYNOPSIS\n"
"    pmiprof diff A B [--format table|csv|json] [--alpha P] [--limit N]\n"
"                     [--window-aligned | --no-window-aligned] [--windows]\n"
"                     [--threshold D] [--plot FILE] [FILTERS]\n"
"\n"
"DESCRIPTION\n"
"    Reads two traces written by 'pmiprof record', A the baseline and B the\n"
"    run compared with it, builds each one's flat profile as 'pmiprof report'\n"
"    does (same attribution rule, same filters), matches functions by symbol\n"
"    name and DSO basename (a function in one run only is kept, with 0\n"
"    samples in the other) and prints first a summary (run time, samples and\n"
"    event totals A -> B; the functions that changed most, significant ones\n"
"    first, each with its verdict and p), then per function:\n"
"\n"
"    share       its share of the samples in A (baseline %) and B, and the\n"
"                change in points with its (1 - alpha) interval (Wald).  The\n"
"                share test is the two-proportion z-test (pooled), flag S.\n"
"    cost        B/A: how its cost changed relative to the functions whose\n"
"                cost did not change (the reference), the odds ratio of\n"
"                (function, reference) x (A, B) with Woolf's interval; the\n"
"                test is the two-proportion z-test of the function's share\n"
"                among itself + the reference, flag C.  The reference starts\n"
"                as every function; while a member is flagged, the most\n"
"                significant one leaves it (its change moved everyone's share)\n"
"                and all are tested again, keeping more than half of A's\n"
"                samples.  Doubling one function's cost moves every share (S\n"
"                flags several rows) but flags C on that function alone.\n"
"\n"
"    Both tests are corrected for the number of functions compared with\n"
"    Holm's step-down method (as strict as Bonferroni on the family-wise\n"
"    error, never less powerful, valid for dependent tests).  The samples of\n"
"    one run are taken as independent draws; see docs/diff.md for when that\n"
"    holds and what run-to-run noise adds.\n"
"\n"
"    For every event recorded in both runs (by name), and the derived metrics\n"
"    (ipc, <event>-mpki, branch-miss-pct) whose events both have: its count\n"
"    per window (sample), in total and per function, in A and B with the\n"
"    relative change (B - A) / A.  Per-window values compare only when both\n"
"    runs close windows alike (same trigger and period or frequency): else\n"
"    diff warns, naming both definitions, and the table leaves them out.\n"
"\n"
"WINDOW-ALIGNED VIEW\n"
"    When both runs closed windows every N of the same trigger event (same\n"
"    period, or the same timer frequency for time-based windows such as\n"
"    cpu-clock on a machine without PMU) and the DSO with most samples has\n"
"    the same build-id in both, window i of A is compared with window i of\n"
"    B, in trace order: the closing function of each, the time each closed\n"
"    (since its recording's start) and every common event's count.  Two\n"
"    running measures summarize where the runs part:\n"
"      distance  total variation distance between the closing-function\n"
"                distributions of windows 0..i of A and of B (0 = same mix,\n"
"                1 = no function in common)\n"
"      time      |t_A(i) - t_B(i)| / max(t_A(i), t_B(i)): the relative gap\n"
"                between the times window i closed\n"
"    A run diverges at the first window from which a measure stays above\n"
"    the threshold (--threshold, default 0.1) to the end.  Single-threaded\n"
"    workloads align best; threads interleave differently in each run.\n"
"    With time-based windows (no hardware PMU) a window is a timer tick, not\n"
"    the same work in both runs: the table hides the view and says so\n"
"    (--window-aligned shows it).\n"
"\n"
"OPTIONS\n"
"    -f, --format FMT    table (default), csv or json.  CSV: one row per\n"
"                        function: symbol,dso,samples_a,samples_b,percent_a,\n"
"                        percent_b,delta,delta_lo,delta_hi,share_p,share_sig,\n"
"                        cost_ratio,cost_lo,cost_hi,cost_p,cost_sig,reference,\n"
"                        then EVENT_a,EVENT_b,EVENT_change per common event\n"
"                        and metric (per window of the function).  p columns\n"
"                        are Holm-adjusted; *_sig are 0/1.  JSON: meta, test,\n"
"                        totals, functions, and aligned when compared\n"
"    --alpha P           family-wise error rate of each test, and 1 - the\n"
"                        intervals' level (default 0.05: 95%)\n"
"    -n, --limit N       table: print at most N function rows (flagged rows\n"
"                        first); CSV/JSON: every row\n"
"    --window-aligned    compare windows by index even when the binaries'\n"
"                        build-ids differ (two builds of a program); an error\n"
"                        when the triggers or periods differ\n"
"    --no-window-aligned do not compare windows (the faster parallel pass)\n"
"    -w, --windows       print the aligned windows instead of functions: index,\n"
"                        time_a_ns,time_b_ns,symbol_a,dso_a,symbol_b,dso_b,\n"
"                        same,distance,time_rel, then EVENT_a,EVENT_b\n"
"    --threshold D       divergence threshold of both measures (default 0.1)\n"
"    --plot FILE         draw the running distance and time gap along the run\n"
"                        with gnuplot into FILE (.png, .svg or .pdf), the\n"
"                        threshold and the divergence points marked\n"
"    -q, --quiet         no warnings about symbols\n"
"\n"
"FILTERS (applied to both runs; as in 'pmiprof report')\n"
"    --pid LIST, --tid LIST, --comm LIST, --dso LIST, --symbol LIST,\n"
"    --time START,END, --window A-B, --region NAME, and the symbol lookup\n"
"    options --kallsyms, --jit-dir, --symfs, --archive, --buildid-dir (for\n"
"    both traces).\n"
"\n"
"EXAMPLES\n"
"    pmiprof diff before.data after.data\n"
"    pmiprof diff before.data after.data --dso myprog --format csv\n"
"    pmiprof diff a.data b.data --plot divergence.png\n"
"    pmiprof diff a.data b.data --windows --format csv | head\n"
"\n"
"EXIT STATUS\n"
"    0 success (whether or not something changed: read the sig columns),\n"
"    1 unreadable trace or other error, 2 usage error.\n"
"\n"
"SEE ALSO\n"
"    pmiprof report, pmiprof plot, docs/diff.md\n";

enum {
	OPT_ALPHA = 0x2000, OPT_ALIGNED, OPT_NO_ALIGNED, OPT_THRESHOLD, OPT_PLOT,
};

/* "[dso]", or the name itself when it is bracketed already ([kernel.kallsyms]). */
static const char *dso_label(char *buf, size_t n, const char *dso)
{
	if (dso[0] == '[')
		return dso;
	snprintf(buf, n, "[%s]", dso);
	return buf;
}

static const struct option long_opts[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "limit", required_argument, NULL, 'n' },
	{ "alpha", required_argument, NULL, OPT_ALPHA },
	{ "window-aligned", no_argument, NULL, OPT_ALIGNED },
	{ "no-window-aligned", no_argument, NULL, OPT_NO_ALIGNED },
	{ "windows", no_argument, NULL, 'w' },
	{ "threshold", required_argument, NULL, OPT_THRESHOLD },
	{ "plot", required_argument, NULL, OPT_PLOT },
	{ "help", no_argument, NULL, 'h' },
	SESSION_FILTER_OPTIONS,
	{ NULL, 0, NULL, 0 }
};

enum align_mode { ALIGN_AUTO, ALIGN_FORCE, ALIGN_OFF };

struct diff_args {
	struct session_opts so;
	const char *in[2];
	enum out_format format;
	uint64_t limit;
	double alpha, threshold;
	enum align_mode align;
	bool windows;
	const char *plot;
};

/* One run: its session, profile and (aligned view) its windows in order. */
struct run {
	struct session s;
	struct profile p;
	bool open, have_p;
	bool keep_windows;
	uint64_t nw, capw;
	uint64_t *wt;			/* ns since the first window */
	uint64_t t0;			/* ns from the start to the first window */
	uint32_t *wsym;
	uint8_t *wflags;		/* after loss / throttled */
	uint64_t *wcounts;		/* nev per window */
	uint32_t nev;
	uint32_t *sym2fn;		/* sym id -> function index */
	uint32_t nr_sym2fn;
	uint64_t totals[PMIPROF_MAX_EVENTS];	/* event sums of the kept windows */
};

/* A function of either run. */
struct fn {
	const char *name, *dso, *dso_path;
	uint32_t row[2];		/* profile row (sym id) in A, B; UINT32_MAX if absent */
};

/* An event (or metric) of both runs: its index in each. */
struct common {
	char name[160];
	bool metric;
	struct metric m[2];		/* metrics: per run; events: METRIC_EVENT */
};

struct diff_ctx {
	struct diff_args *a;
	struct run r[2];
	struct fn *fns;
	struct diff_fn *st;
	uint32_t nfn;
	struct diff_result res;
	struct common *com;
	uint32_t ncom, nev_common;	/* events first, then metrics */
	/* aligned view */
	bool aligned;
	char align_note[512];
	uint64_t nal;
	float *dist, *trel;
	uint64_t div_dist, div_time;	/* nal when they never diverged */
	uint64_t same;			/* windows closing in the same function */
	/* the runs close windows differently: per-window values are not comparable */
	bool win_differ;
	char win_def[2][160];		/* each run's window definition, in words */
};

static int parse_args(struct diff_args *a, int argc, char **argv)
{
	int c, rc, npos = 0;
	char *end;

	a->alpha = 0.05;
	a->threshold = 0.1;
	optind = 1;
	opterr = 0;
	/* '-' first: positional arguments come in order with the options */
	while ((c = getopt_long(argc, argv, "-:f:n:wqh", long_opts, NULL)) != -1) {
		switch (c) {
		case 1:
			if (npos == 2)
				return pm_usage_error("diff", "unexpected argument '%s': give two "
						      "traces, A (baseline) and B", optarg);
			a->in[npos++] = optarg;
			break;
		case 'f':
			if (parse_format(optarg, &a->format))
				return pm_usage_error("diff", "--format '%s': expected table, csv "
						      "or json", optarg);
			break;
		case 'n':
			if (pm_parse_u64(optarg, 1, UINT32_MAX, &a->limit))
				return pm_usage_error("diff", "--limit '%s': expected a number "
						      ">= 1", optarg);
			break;
		case OPT_ALPHA:
			a->alpha = strtod(optarg, &end);
			if (end == optarg || *end || !(a->alpha > 0 && a->alpha < 1))
				return pm_usage_error("diff", "--alpha '%s': expected a probability "
						      "between 0 and 1, e.g. 0.05", optarg);
			break;
		case OPT_THRESHOLD:
			a->threshold = strtod(optarg, &end);
			if (end == optarg || *end || !(a->threshold >= 0 && a->threshold < 1))
				return pm_usage_error("diff", "--threshold '%s': expected 0 <= D < 1",
						      optarg);
			break;
		case OPT_ALIGNED:
		case OPT_NO_ALIGNED:
			a->align = c == OPT_ALIGNED ? ALIGN_FORCE : ALIGN_OFF;
			break;
		case 'w':
			a->windows = true;
			break;
		case OPT_PLOT:
			a->plot = optarg;
			break;
		case 'h':
			return -1;
		case 'i':
			return pm_usage_error("diff", "the traces are arguments: pmiprof diff A B");
		case ':':
			return pm_usage_error("diff", "option '%s' needs a value", argv[optind - 1]);
		case '?':
			return pm_usage_error("diff", "unknown option '%s'", argv[optind - 1]);
		default:
			rc = session_filter_option(&a->so, c, optarg, "diff");
			if (rc)
				return rc;
			break;
		}
	}
	if (npos != 2)
		return pm_usage_error("diff", "two traces are needed: pmiprof diff A B");
	if ((a->windows || a->plot) && a->align == ALIGN_OFF)
		return pm_usage_error("diff", "--windows and --plot show the window-aligned view: "
				      "drop --no-window-aligned");
	if (a->plot) {
		const char *dot = strrchr(a->plot, '.');

		if (!dot || (strcmp(dot, ".png") && strcmp(dot, ".svg") && strcmp(dot, ".pdf")))
			return pm_usage_error("diff", "--plot '%s': expected a .png, .svg or .pdf "
					      "file name", a->plot);
	}
	return 0;
}

static const char *trigger_name(const struct trace_header *h)
{
	return h->trigger_index < h->nr_events ? h->events[h->trigger_index].name : "?";
}

/*
 * Whether windows of the two headers have the same length: the same trigger
 * every same N, or the same timer frequency (a timer at F Hz ticks every
 * 1/F s; a counting event in frequency mode gets a period that drifts).
 */
static bool same_windows(const struct trace_header *a, const struct trace_header *b,
			 char *why, size_t size)
{
	bool freq = a->trigger_flags & PMIPROF_TRIGGER_F_FREQ;

	if (strcmp(trigger_name(a), trigger_name(b))) {
		snprintf(why, size, "the triggers differ (%s, %s)", trigger_name(a), trigger_name(b));
		return false;
	}
	if (freq != !!(b->trigger_flags & PMIPROF_TRIGGER_F_FREQ) || a->period != b->period ||
	    a->freq_hz != b->freq_hz) {
		snprintf(why, size, "the sampling periods differ");
		return false;
	}
	if (freq && !((a->flags & b->flags) & PMIPROF_TRACE_F_TIME_BASED)) {
		snprintf(why, size, "%s sampled at a frequency: the kernel adapts the period, "
			 "windows differ in length", trigger_name(a));
		return false;
	}
	return true;
}

/* How a trace closes its windows, in words: "cpu-clock at 10000 Hz", "task-clock every 50000". */
static const char *window_def(const struct trace_header *h, char *buf, size_t size)
{
	char b[128];
	const char *base = event_base_name(trigger_name(h), b, sizeof(b));
	bool clock = !strcmp(base, "cpu-clock") || !strcmp(base, "task-clock");

	if (h->trigger_flags & PMIPROF_TRIGGER_F_FREQ)
		snprintf(buf, size, "%s at %" PRIu64 " Hz", trigger_name(h), (uint64_t)h->freq_hz);
	else
		snprintf(buf, size, "%s every %" PRIu64 "%s", trigger_name(h), h->period,
			 clock ? " ns" : " events");
	return buf;
}

static int keep_window(void *arg, const struct trace_sample *smp, uint64_t index, uint32_t sym,
		       uint32_t comm)
{
	struct run *r = arg;
	uint32_t e;
	int rc = profile_add_sample(&r->p, smp, index, sym, comm);

	if (rc)
		return rc;
	if (r->nw == r->capw) {
		uint64_t cap = r->capw ? r->capw * 2 : 65536;
		uint64_t *t = realloc(r->wt, cap * sizeof(*t)), *c;
		uint32_t *sy;
		uint8_t *fl;

		if (!t)
			return -ENOMEM;
		r->wt = t;
		sy = realloc(r->wsym, cap * sizeof(*sy));
		if (!sy)
			return -ENOMEM;
		r->wsym = sy;
		fl = realloc(r->wflags, cap);
		if (!fl)
			return -ENOMEM;
		r->wflags = fl;
		c = realloc(r->wcounts, cap * (r->nev ? r->nev : 1) * sizeof(*c));
		if (!c)
			return -ENOMEM;
		r->wcounts = c;
		r->capw = cap;
	}
	/* since the run's first window: start-up before it is not the workload's */
	r->wt[r->nw] = session_time_ns(&r->s, smp->time);
	if (!r->nw)
		r->t0 = r->wt[0];
	r->wt[r->nw] -= r->t0 < r->wt[r->nw] ? r->t0 : r->wt[r->nw];
	r->wsym[r->nw] = sym;
	r->wflags[r->nw] = !window_in_stats(smp->flags);
	for (e = 0; e < r->nev; e++)
		r->wcounts[r->nw * r->nev + e] = e < smp->nr ? smp->counts[e] : 0;
	r->nw++;
	return 0;
}

static int run_pass(struct run *r)
{
	int rc;

	r->nev = r->p.nr_events;
	if (r->keep_windows)
		return session_run(&r->s, keep_window, r);
	rc = parallel_eligible(&r->s, &r->p) ? parallel_profile(&r->s, &r->p) : -EAGAIN;
	if (rc == -EAGAIN)
		rc = session_run(&r->s, profile_add_sample, &r->p);
	return rc;
}

static void run_free(struct run *r)
{
	if (r->have_p)
		profile_free(&r->p);
	if (r->open)
		session_close(&r->s);
	free(r->wt);
	free(r->wsym);
	free(r->wflags);
	free(r->wcounts);
	free(r->sym2fn);
}

/* ---- functions of both runs ---- */

struct fn_ref {
	const char *name, *dso, *dso_path;
	uint8_t run;
	uint32_t row;
};

static int fn_ref_cmp(const void *x, const void *y)
{
	const struct fn_ref *a = x, *b = y;
	int c = strcmp(a->name, b->name);

	if (c)
		return c;
	c = strcmp(a->dso, b->dso);
	if (c)
		return c;
	return a->run - b->run;
}

static int build_functions(struct diff_ctx *d)
{
	struct fn_ref *refs;
	uint64_t n = 0;
	uint32_t k, i, j;

	for (k = 0; k < 2; k++)
		n += d->r[k].p.nr_rows;
	refs = calloc(n + 1, sizeof(*refs));
	d->fns = calloc(n + 1, sizeof(*d->fns));
	d->st = calloc(n + 1, sizeof(*d->st));
	if (!refs || !d->fns || !d->st) {
		free(refs);
		return -ENOMEM;
	}
	n = 0;
	for (k = 0; k < 2; k++) {
		struct run *r = &d->r[k];
		uint32_t nsym = symbolizer_nr_syms(r->s.sy);

		r->sym2fn = malloc(((size_t)nsym + 1) * sizeof(*r->sym2fn));
		if (!r->sym2fn) {
			free(refs);
			return -ENOMEM;
		}
		memset(r->sym2fn, 0xff, ((size_t)nsym + 1) * sizeof(*r->sym2fn));
		r->nr_sym2fn = nsym;
		for (i = 0; i < r->p.nr_rows; i++) {
			const struct sym *sy;
			const struct dso_info *di;

			if (!r->p.rows[i].samples)
				continue;
			sy = symbolizer_sym(r->s.sy, r->p.rows[i].key);
			di = symbolizer_dso_info(r->s.sy, sy->dso);
			refs[n++] = (struct fn_ref){ sy->name, di->short_name, di->name, (uint8_t)k, i };
		}
	}
	qsort(refs, n, sizeof(*refs), fn_ref_cmp);
	for (i = 0; i < n; i = j) {
		struct fn *f = &d->fns[d->nfn];

		f->name = refs[i].name;
		f->dso = refs[i].dso;
		f->dso_path = refs[i].dso_path;
		f->row[0] = f->row[1] = UINT32_MAX;
		for (j = i; j < n && !strcmp(refs[j].name, f->name) && !strcmp(refs[j].dso, f->dso);
		     j++) {
			struct run *r = &d->r[refs[j].run];
			uint32_t key = r->p.rows[refs[j].row].key;

			f->row[refs[j].run] = refs[j].row;
			if (key < r->nr_sym2fn)
				r->sym2fn[key] = d->nfn;
		}
		d->st[d->nfn].a = f->row[0] != UINT32_MAX ? d->r[0].p.rows[f->row[0]].samples : 0;
		d->st[d->nfn].b = f->row[1] != UINT32_MAX ? d->r[1].p.rows[f->row[1]].samples : 0;
		d->nfn++;
	}
	free(refs);
	return 0;
}

/* Events recorded in both runs (by name), then the derived metrics both can compute. */
static void find_common(struct diff_ctx *d)
{
	const struct trace_header *ha = d->r[0].s.h, *hb = d->r[1].s.h;
	struct metric_set ms;
	uint32_t i, j;

	for (i = 0; i < ha->nr_events && i < PMIPROF_MAX_EVENTS; i++)
		for (j = 0; j < hb->nr_events && j < PMIPROF_MAX_EVENTS; j++)
			if (!strcmp(ha->events[i].name, hb->events[j].name)) {
				struct common *c = &d->com[d->ncom++];

				snprintf(c->name, sizeof(c->name), "%s", ha->events[i].name);
				c->m[0] = (struct metric){ "", METRIC_EVENT, (int)i, -1 };
				c->m[1] = (struct metric){ "", METRIC_EVENT, (int)j, -1 };
				break;
			}
	d->nev_common = d->ncom;
	metrics_derived(ha, &ms);
	for (i = 0; i < ms.n; i++) {
		const char *why;
		struct metric mb;

		if (metric_parse(hb, ms.m[i].name, &mb, &why))
			continue;
		d->com[d->ncom].metric = true;
		snprintf(d->com[d->ncom].name, sizeof(d->com[0].name), "%s", ms.m[i].name);
		d->com[d->ncom].m[0] = ms.m[i];
		d->com[d->ncom].m[1] = mb;
		d->ncom++;
	}
}

/* Value of common event/metric c per window of counts over n windows; false if none. */
static bool com_value(const struct common *c, int k, const uint64_t *counts, uint64_t n,
		      double *v)
{
	if (!n)
		return false;
	if (c->metric)
		return metric_value(&c->m[k], counts, v);
	*v = (double)counts[c->m[k].a] / (double)n;
	return true;
}

/* ---- the aligned view ---- */

/* Samples per DSO id of a run, the user-space DSO holding the most. */
static int64_t main_dso(const struct run *r)
{
	uint32_t nd = symbolizer_nr_dsos(r->s.sy), i;
	uint64_t *per = calloc(nd + 1, sizeof(*per)), best = 0;
	int64_t id = -1;

	if (!per)
		return -1;
	for (i = 0; i < r->p.nr_rows; i++)
		if (r->p.rows[i].samples)
			per[symbolizer_sym(r->s.sy, r->p.rows[i].key)->dso] += r->p.rows[i].samples;
	for (i = 0; i < nd; i++)
		if (per[i] > best && symbolizer_dso_info(r->s.sy, i)->name[0] != '[') {
			best = per[i];
			id = i;
		}
	free(per);
	return id;
}

/* Same binary (build-id of the busiest user DSO): true, or false with why. */
static bool same_binary(struct diff_ctx *d, char *why, size_t size)
{
	int64_t da = main_dso(&d->r[0]), db = main_dso(&d->r[1]);
	const uint8_t *ba, *bb;
	uint32_t la, lb;

	if (da < 0 || db < 0) {
		snprintf(why, size, "a run has no samples in a user-space binary");
		return false;
	}
	ba = symbolizer_dso_build_id(d->r[0].s.sy, (uint32_t)da, &la);
	bb = symbolizer_dso_build_id(d->r[1].s.sy, (uint32_t)db, &lb);
	if (la && lb) {
		if (la == lb && !memcmp(ba, bb, la))
			return true;
		snprintf(why, size, "the binaries differ (%s and %s, build-ids differ)",
			 symbolizer_dso_info(d->r[0].s.sy, (uint32_t)da)->short_name,
			 symbolizer_dso_info(d->r[1].s.sy, (uint32_t)db)->short_name);
		return false;
	}
	snprintf(why, size, "the busiest binaries have no recorded build-id to compare");
	return false;
}

static int compute_aligned(struct diff_ctx *d)
{
	struct run *a = &d->r[0], *b = &d->r[1];
	struct diff_running run;
	uint64_t i;
	int rc;

	d->nal = a->nw < b->nw ? a->nw : b->nw;
	d->dist = malloc((d->nal + 1) * sizeof(*d->dist));
	d->trel = malloc((d->nal + 1) * sizeof(*d->trel));
	if (!d->dist || !d->trel)
		return -ENOMEM;
	/* one id more than the functions: windows of symbols with no row */
	rc = diff_running_init(&run, d->nfn + 1);
	if (rc)
		return rc;
	for (i = 0; i < d->nal; i++) {
		uint32_t fa = a->wsym[i] < a->nr_sym2fn ? a->sym2fn[a->wsym[i]] : d->nfn;
		uint32_t fb = b->wsym[i] < b->nr_sym2fn ? b->sym2fn[b->wsym[i]] : d->nfn;

		if (fa > d->nfn)
			fa = d->nfn;
		if (fb > d->nfn)
			fb = d->nfn;
		d->same += fa == fb;
		d->dist[i] = (float)diff_running_add(&run, fa, fb);
		d->trel[i] = (float)diff_time_rel(a->wt[i], b->wt[i]);
	}
	diff_running_free(&run);
	d->div_dist = diff_diverged_from(d->dist, d->nal, d->a->threshold);
	d->div_time = diff_diverged_from(d->trel, d->nal, d->a->threshold);
	return 0;
}

/* ---- output ---- */

/* Samples B - A: what changed in absolute terms, which shares and ratios hide. */
static double abs_change(const struct diff_fn *s)
{
	return fabs((double)s->b - (double)s->a);
}

/* Row order: cost changes first, then share changes, then by the absolute change in samples. */
static const struct diff_ctx *order_ctx;

static int row_cmp(const void *x, const void *y)
{
	const struct diff_fn *a = &order_ctx->st[*(const uint32_t *)x];
	const struct diff_fn *b = &order_ctx->st[*(const uint32_t *)y];
	double ma = abs_change(a), mb = abs_change(b);
	int c;

	if (a->cost_sig != b->cost_sig)
		return a->cost_sig ? -1 : 1;
	if (a->share_sig != b->share_sig)
		return a->share_sig ? -1 : 1;
	if (ma != mb)
		return ma > mb ? -1 : 1;
	ma = fmax(a->share.pa, a->share.pb);
	mb = fmax(b->share.pa, b->share.pb);
	if (ma != mb)
		return ma > mb ? -1 : 1;
	c = strcmp(order_ctx->fns[*(const uint32_t *)x].name, order_ctx->fns[*(const uint32_t *)y].name);
	if (c)
		return c;
	return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : 1;
}

static uint32_t *row_order(const struct diff_ctx *d)
{
	uint32_t *o = malloc(((size_t)d->nfn + 1) * sizeof(*o)), i;

	if (!o)
		return NULL;
	for (i = 0; i < d->nfn; i++)
		o[i] = i;
	order_ctx = d;
	qsort(o, d->nfn, sizeof(*o), row_cmp);
	return o;
}

/* Counts and samples of function f in run k (zeros when absent). */
static const uint64_t *fn_counts(const struct diff_ctx *d, const struct fn *f, int k,
				 uint64_t *samples)
{
	static const uint64_t zero[PMIPROF_MAX_EVENTS];
	const struct prof_row *r;

	if (f->row[k] == UINT32_MAX) {
		*samples = 0;
		return zero;
	}
	r = &d->r[k].p.rows[f->row[k]];
	*samples = r->samples;
	return r->counts;
}

static void put_num(FILE *f, enum out_format fmt, double v)
{
	if (isnan(v) || isinf(v))
		fputs(fmt == FMT_JSON ? "null" : "", f);
	else
		fprintf(f, "%.6g", v);
}

static const char *sig_text(const struct diff_fn *s)
{
	return s->cost_sig ? (s->share_sig ? "CS" : "C") : s->share_sig ? "S" : "";
}

static void print_run_line(FILE *f, const char *what, const struct run *r)
{
	char kind[256];

	print_meta_line(f, "%s: %s: %s, %" PRIu64 " samples kept of %" PRIu64 ", %.3f s%s%s",
			what, r->s.opts.input, window_kind(&r->s, kind, sizeof(kind)),
			r->p.samples, r->s.samples, session_duration_s(&r->s),
			session_unfinished(&r->s) ? "; " : "",
			session_unfinished(&r->s) ? session_unfinished(&r->s) : "");
}

static void print_aligned_text(FILE *f, const struct diff_ctx *d)
{
	const struct run *a = &d->r[0], *b = &d->r[1];
	double th = d->a->threshold;

	if (!d->aligned) {
		print_meta_line(f, "window-aligned view: not shown: %s", d->align_note);
		return;
	}
	/* a timer tick is not a unit of the program's work: window i of A is not B's */
	if ((a->s.h->flags & b->s.h->flags & PMIPROF_TRACE_F_TIME_BASED) &&
	    d->a->align != ALIGN_FORCE) {
		print_meta_line(f, "window-aligned view: hidden: time-based windows (no hardware "
				"PMU): window i is each run's i-th timer tick, not the same work in "
				"both; --window-aligned, --windows, --plot and json show it");
		return;
	}
	print_meta_line(f, "window-aligned view: window i of A against window i of B, %" PRIu64
			" windows compared (A has %" PRIu64 ", B %" PRIu64 ")%s%s", d->nal, a->nw,
			b->nw, d->align_note[0] ? "; " : "", d->align_note);
	if (!d->nal)
		return;
	print_meta_line(f, "  closing function: the same in %.1f%% of the windows; distance "
			"(total variation of the closing-function mix of windows 0..i) at the end "
			"%.3f; %s", 100.0 * (double)d->same / (double)d->nal, d->dist[d->nal - 1],
			d->div_dist < d->nal ? "diverged" : "never diverged");
	if (d->div_dist < d->nal)
		print_meta_line(f, "    from window %" PRIu64 " (A at %.3f ms, B at %.3f ms after "
				"their first window) on, above %.2f", d->div_dist, (double)a->wt[d->div_dist] / 1e6,
				(double)b->wt[d->div_dist] / 1e6, th);
	print_meta_line(f, "  time: relative gap between the times window i closed, at the end "
			"%.3f; %s", d->trel[d->nal - 1],
			d->div_time < d->nal ? "diverged" : "never diverged");
	if (d->div_time < d->nal)
		print_meta_line(f, "    from window %" PRIu64 " (A at %.3f ms, B at %.3f ms after "
				"their first window) on, above %.2f", d->div_time, (double)a->wt[d->div_time] / 1e6,
				(double)b->wt[d->div_time] / 1e6, th);
}

/* A value for the table, "-" when there is none. */
static const char *gnum(char *buf, double v)
{
	if (isnan(v) || isinf(v))
		return "-";
	snprintf(buf, 32, "%.6g", v);
	return buf;
}

static const char *pct(char *buf, double v)
{
	if (isnan(v) || isinf(v))
		return "-";
	snprintf(buf, 32, "%+.1f%%", 100 * v);
	return buf;
}

/* A run total: clocks (ns) in ms or s, other counts with an SI suffix. */
static const char *total_text(char *buf, size_t size, const char *event, double v)
{
	char b[128];
	const char *base = event_base_name(event, b, sizeof(b));

	if (!strcmp(base, "cpu-clock") || !strcmp(base, "task-clock") || !strcmp(base, "wall-ns"))
		snprintf(buf, size, v >= 1e9 ? "%.3f s" : "%.1f ms", v >= 1e9 ? v / 1e9 : v / 1e6);
	else if (v >= 1e9)
		snprintf(buf, size, "%.3gG", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, size, "%.3gM", v / 1e6);
	else if (v >= 1e4)
		snprintf(buf, size, "%.3gk", v / 1e3);
	else
		snprintf(buf, size, "%.0f", v);
	return buf;
}

/* The first event both runs count in nanoseconds (cpu-clock, task-clock), or -1. */
static int clock_common(const struct diff_ctx *d)
{
	uint32_t c;
	char b[128];

	for (c = 0; c < d->nev_common; c++)
		if (!d->com[c].metric &&
		    event_counts_ns(event_base_name(d->com[c].name, b, sizeof(b))))
			return (int)c;
	return -1;
}

/* Function f's time in run k in ms by common clock c (NAN without one). */
static double fn_ms(const struct diff_ctx *d, const struct fn *f, int k, int c)
{
	uint64_t n;
	const uint64_t *x = fn_counts(d, f, k, &n);

	return c < 0 ? NAN : (double)x[d->com[c].m[k].a] / 1e6;
}

static int summary_cmp(const void *x, const void *y)
{
	const struct diff_fn *a = &order_ctx->st[*(const uint32_t *)x];
	const struct diff_fn *b = &order_ctx->st[*(const uint32_t *)y];
	bool sa = a->cost_sig || a->share_sig, sb = b->cost_sig || b->share_sig;
	double da = abs_change(a), db = abs_change(b);

	if (sa != sb)
		return sa ? -1 : 1;
	if (da != db)
		return da > db ? -1 : 1;
	return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : 1;
}

#define DIFF_SUMMARY_ROWS 5

/*
 * The answer first, in words: how the run's totals changed (time, samples,
 * every common event's sum, which windows do not distort), then the
 * functions that changed most, each with its verdict: significant (which
 * test, its Holm-adjusted p) or within the noise.
 */
static void print_summary(FILE *f, const struct diff_ctx *d)
{
	const struct run *a = &d->r[0], *b = &d->r[1];
	uint32_t *o = malloc(((size_t)d->nfn + 1) * sizeof(*o)), i, c, nsig = 0, shown;
	char lbl[PATH_MAX + 2], ta[64], tb[64], ch[32];
	double da = session_duration_s(&a->s), db = session_duration_s(&b->s);
	int clk = clock_common(d);

	print_meta_line(f, "summary: B against A (baseline)");
	print_meta_line(f, "  run: %.3f s -> %.3f s (%s); samples kept %" PRIu64 " -> %" PRIu64
			" (%s)", da, db, pct(ch, diff_rel_change(da, db)), a->p.samples,
			b->p.samples, pct(ta, diff_rel_change((double)a->p.samples,
							     (double)b->p.samples)));
	for (c = 0; c < d->nev_common; c++) {
		const struct common *cm = &d->com[c];
		double va = (double)a->totals[cm->m[0].a], vb = (double)b->totals[cm->m[1].a];

		print_meta_line(f, "  total %s: %s -> %s (%s)", cm->name,
				total_text(ta, sizeof(ta), cm->name, va),
				total_text(tb, sizeof(tb), cm->name, vb), pct(ch, diff_rel_change(va, vb)));
	}
	if (!o)
		return;
	for (i = 0; i < d->nfn; i++) {
		o[i] = i;
		nsig += d->st[i].cost_sig || d->st[i].share_sig;
	}
	order_ctx = d;
	qsort(o, d->nfn, sizeof(*o), summary_cmp);
	shown = d->nfn < DIFF_SUMMARY_ROWS ? d->nfn : DIFF_SUMMARY_ROWS;
	if (shown)
		print_meta_line(f, "  biggest changes (samples A -> B%s; then the share of all "
				"samples, and the cost relative to the unchanged functions):",
				clk >= 0 ? ", ms" : "");
	for (i = 0; i < shown; i++) {
		const struct diff_fn *st = &d->st[o[i]];
		const struct fn *fn = &d->fns[o[i]];
		char cost[48], verdict[96], ms[64] = "";

		if (isnan(st->ratio))
			snprintf(cost, sizeof(cost), "cost -");
		else if (isinf(st->ratio))
			snprintf(cost, sizeof(cost), "new");
		else
			snprintf(cost, sizeof(cost), "relative cost x%.2f", st->ratio);
		if (clk >= 0)
			snprintf(ms, sizeof(ms), ", %+.1f ms", fn_ms(d, fn, 1, clk) - fn_ms(d, fn, 0, clk));
		if (st->cost_sig || st->share_sig)
			snprintf(verdict, sizeof(verdict), "significant (%s%s%s, p %.2g)",
				 st->cost_sig ? "cost" : "", st->cost_sig && st->share_sig ? " and " : "",
				 st->share_sig ? "share" : "",
				 fmin(st->cost_sig ? st->cost_adj : 1, st->share_sig ? st->share_adj : 1));
		else
			snprintf(verdict, sizeof(verdict), "within the noise (p %.2g)",
				 fmin(st->cost_adj, st->share_adj));
		/* the absolute change and the verdict on one line, the ratios below */
		print_meta_line(f, "    %s %s: %" PRIu64 " -> %" PRIu64 " samples (%+" PRId64 "%s), %s",
				fn->name, dso_label(lbl, sizeof(lbl), fn->dso), st->a, st->b,
				(int64_t)st->b - (int64_t)st->a, ms, verdict);
		print_meta_line(f, "      share %.2f%% -> %.2f%% (%+.2f points), %s", 100 * st->share.pa,
				100 * st->share.pb, 100 * st->share.delta, cost);
	}
	print_meta_line(f, "  %u of %u function(s) changed significantly (alpha %g, Holm-corrected)%s",
			nsig, d->nfn, d->a->alpha, nsig ? "" : ": no change beyond sampling noise");
	free(o);
	fputs("#\n", f);
}

static void print_table(FILE *f, const struct diff_ctx *d, const uint32_t *o)
{
	uint32_t i, c, n = d->nfn, nfun;
	char lbl[PATH_MAX + 2];
	int clk = clock_common(d);

	print_summary(f, d);
	print_run_line(f, "A (baseline)", &d->r[0]);
	print_run_line(f, "B", &d->r[1]);
	print_meta_line(f, "attribution: %s", ATTRIBUTION_RULE);
	print_meta_line(f, "tests: two-proportion z-tests at alpha %g, Holm-corrected over %u "
			"functions; intervals at %g%% (csv, json)", d->a->alpha, d->nfn,
			100 * (1 - d->a->alpha));
	print_meta_line(f, "  S = share of all samples changed (%u function(s)); C = cost "
			"changed relative to the reference (%u function(s))", d->res.share_sig,
			d->res.cost_sig);
	print_meta_line(f, "  reference: %u function(s) whose cost did not change, %.1f%% of "
			"A's samples%s", d->res.ref_n, d->res.na ? 100.0 * (double)d->res.ref_a /
			(double)d->res.na : 0, d->res.ref_limited ? "; more functions were flagged "
			"but would leave half of A's samples or less: which ones changed cannot be "
			"told apart" : "");
	print_aligned_text(f, d);
	/* absolute change first; the intervals are in CSV and JSON */
	fprintf(f, "%7s %7s %7s %8s %6s %6s %6s %6s %3s  %s\n", "A", "B", "delta",
		clk >= 0 ? "delta-ms" : "", "A%", "B%", "points", "cost", "sig", "symbol [dso]");
	if (d->a->limit && n > d->a->limit)
		n = (uint32_t)d->a->limit;
	for (i = 0; i < n; i++) {
		const struct diff_fn *s = &d->st[o[i]];
		const struct fn *fn = &d->fns[o[i]];
		char cost[16], dms[32] = "";

		if (isnan(s->ratio))
			snprintf(cost, sizeof(cost), "-");
		else if (isinf(s->ratio))
			snprintf(cost, sizeof(cost), "new");
		else
			snprintf(cost, sizeof(cost), "%.2f", s->ratio);
		if (clk >= 0)
			snprintf(dms, sizeof(dms), "%+.1f", fn_ms(d, fn, 1, clk) - fn_ms(d, fn, 0, clk));
		fprintf(f, "%7" PRIu64 " %7" PRIu64 " %+7" PRId64 " %8s %6.2f %6.2f %+6.2f %6s %3s  "
			"%s %s\n", s->a, s->b, (int64_t)s->b - (int64_t)s->a, dms,
			100 * s->share.pa, 100 * s->share.pb, 100 * s->share.delta, cost,
			sig_text(s), fn->name, dso_label(lbl, sizeof(lbl), fn->dso));
	}
	if (n < d->nfn)
		fprintf(f, "# ... %u more function(s) (--limit %" PRIu64 ")\n", d->nfn - n,
			d->a->limit);
	if (!d->ncom)
		return;
	nfun = d->nfn < 10 ? d->nfn : 10;
	fputs("#\n", f);
	if (d->win_differ) {
		print_meta_line(f, "events and metrics per window: not compared: A closes windows "
				"as %s, B as %s, so a window is not the same amount of anything in "
				"both; the summary's run totals compare", d->win_def[0], d->win_def[1]);
		return;
	}
	/* a tick's clock counts are its period, whatever the program did: noise */
	if (d->r[0].s.h->flags & d->r[1].s.h->flags & PMIPROF_TRACE_F_TIME_BASED) {
		print_meta_line(f, "events and metrics per window: not shown: time-based windows "
				"(no hardware PMU) each last one timer tick, so their counts are "
				"the period and noise; the samples and ms above compare (csv and "
				"json have them)");
		return;
	}
	print_meta_line(f, "events and metrics per window, A -> B, relative change; the whole "
			"run, then the first %u function(s) above", nfun);
	fprintf(f, "%-16s %14s %14s %9s  %s\n", "event", "A", "B", "change", "symbol [dso]");
	for (c = 0; c < d->ncom; c++) {
		const struct common *cm = &d->com[c];
		double va = NAN, vb = NAN, ch;
		char cb[160], g[3][32];

		com_value(cm, 0, d->r[0].totals, d->r[0].p.samples, &va);
		com_value(cm, 1, d->r[1].totals, d->r[1].p.samples, &vb);
		ch = diff_rel_change(va, vb);
		fprintf(f, "%-16s %14s %14s %9s  %s\n", column_name(cm->name, cb, sizeof(cb)),
			gnum(g[0], va), gnum(g[1], vb), pct(g[2], ch), "[whole run]");
		for (i = 0; i < nfun; i++) {
			const struct fn *fn = &d->fns[o[i]];
			const uint64_t *xa, *xb;
			uint64_t sa, sb;

			xa = fn_counts(d, fn, 0, &sa);
			xb = fn_counts(d, fn, 1, &sb);
			va = vb = NAN;
			com_value(cm, 0, xa, sa, &va);
			com_value(cm, 1, xb, sb, &vb);
			fprintf(f, "%-16s %14s %14s %9s  %s %s\n", "", gnum(g[0], va),
				gnum(g[1], vb), pct(g[2], diff_rel_change(va, vb)), fn->name,
				dso_label(lbl, sizeof(lbl), fn->dso));
		}
	}
}

static void print_csv(FILE *f, const struct diff_ctx *d, const uint32_t *o)
{
	uint32_t i, c;

	fputs("symbol,dso,samples_a,samples_b,percent_a,percent_b,delta,delta_lo,delta_hi,"
	      "share_p,share_sig,cost_ratio,cost_lo,cost_hi,cost_p,cost_sig,reference", f);
	for (c = 0; c < d->ncom; c++) {
		fputc(',', f);
		fprintf(f, "%s_a,", d->com[c].name);
		fprintf(f, "%s_b,", d->com[c].name);
		fprintf(f, "%s_change", d->com[c].name);
	}
	fputc('\n', f);
	for (i = 0; i < d->nfn; i++) {
		const struct diff_fn *s = &d->st[o[i]];
		const struct fn *fn = &d->fns[o[i]];
		const uint64_t *xa, *xb;
		uint64_t sa, sb;

		csv_str(f, fn->name);
		fputc(',', f);
		csv_str(f, fn->dso);
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%.4f,%.4f,%.4f,%.4f,%.4f,%.6g,%d,", s->a, s->b,
			100 * s->share.pa, 100 * s->share.pb, 100 * s->share.delta,
			100 * s->share.lo, 100 * s->share.hi, s->share_adj, s->share_sig);
		put_num(f, FMT_CSV, s->ratio);
		fputc(',', f);
		put_num(f, FMT_CSV, s->ratio_lo);
		fputc(',', f);
		put_num(f, FMT_CSV, s->ratio_hi);
		fprintf(f, ",%.6g,%d,%d", s->cost_adj, s->cost_sig, s->in_ref);
		xa = fn_counts(d, fn, 0, &sa);
		xb = fn_counts(d, fn, 1, &sb);
		for (c = 0; c < d->ncom; c++) {
			double va = NAN, vb = NAN;

			com_value(&d->com[c], 0, xa, sa, &va);
			com_value(&d->com[c], 1, xb, sb, &vb);
			fputc(',', f);
			put_num(f, FMT_CSV, va);
			fputc(',', f);
			put_num(f, FMT_CSV, vb);
			fputc(',', f);
			put_num(f, FMT_CSV, diff_rel_change(va, vb));
		}
		fputc('\n', f);
	}
}

static void json_rates(FILE *f, const struct diff_ctx *d, const uint64_t *xa, uint64_t sa,
		       const uint64_t *xb, uint64_t sb)
{
	uint32_t c;

	fputs("{", f);
	for (c = 0; c < d->ncom; c++) {
		double va = NAN, vb = NAN;

		com_value(&d->com[c], 0, xa, sa, &va);
		com_value(&d->com[c], 1, xb, sb, &vb);
		fputs(c ? ", " : "", f);
		json_str(f, d->com[c].name);
		fputs(": {\"a\": ", f);
		put_num(f, FMT_JSON, va);
		fputs(", \"b\": ", f);
		put_num(f, FMT_JSON, vb);
		fputs(", \"change\": ", f);
		put_num(f, FMT_JSON, diff_rel_change(va, vb));
		fputs("}", f);
	}
	fputs("}", f);
}

static void json_run(FILE *f, const struct run *r)
{
	char kind[256];

	fputs("{\"input\": ", f);
	json_str(f, r->s.opts.input);
	fputs(", \"windows\": ", f);
	json_str(f, window_kind(&r->s, kind, sizeof(kind)));
	fprintf(f, ", \"samples\": %" PRIu64 ", \"kept\": %" PRIu64 ", \"duration_s\": %.6f}",
		r->s.samples, r->p.samples, session_duration_s(&r->s));
}

static void print_json(FILE *f, const struct diff_ctx *d, const uint32_t *o)
{
	uint32_t i;

	fputs("{\"meta\": {\"a\": ", f);
	json_run(f, &d->r[0]);
	fputs(", \"b\": ", f);
	json_run(f, &d->r[1]);
	fputs(", \"attribution\": ", f);
	json_str(f, ATTRIBUTION_RULE);
	fputs(", \"window_definition_a\": ", f);
	json_str(f, d->win_def[0]);
	fputs(", \"window_definition_b\": ", f);
	json_str(f, d->win_def[1]);
	fprintf(f, ", \"windows_comparable\": %s", d->win_differ ? "false" : "true");
	fprintf(f, "},\n \"test\": {\"method\": \"two-proportion z-test\", \"correction\": "
		"\"holm\", \"alpha\": %g, \"functions\": %u, \"share_significant\": %u, "
		"\"cost_significant\": %u, \"reference_functions\": %u, \"reference_samples_a\": "
		"%" PRIu64 ", \"reference_samples_b\": %" PRIu64 ", \"reference_limited\": %s},\n",
		d->a->alpha, d->nfn, d->res.share_sig, d->res.cost_sig, d->res.ref_n, d->res.ref_a,
		d->res.ref_b, d->res.ref_limited ? "true" : "false");
	fputs(" \"totals\": ", f);
	json_rates(f, d, d->r[0].totals, d->r[0].p.samples, d->r[1].totals, d->r[1].p.samples);
	fputs(",\n \"functions\": [", f);
	for (i = 0; i < d->nfn; i++) {
		const struct diff_fn *s = &d->st[o[i]];
		const struct fn *fn = &d->fns[o[i]];
		const uint64_t *xa, *xb;
		uint64_t sa, sb;

		fputs(i ? ",\n  {\"symbol\": " : "\n  {\"symbol\": ", f);
		json_str(f, fn->name);
		fputs(", \"dso\": ", f);
		json_str(f, fn->dso);
		fprintf(f, ", \"samples_a\": %" PRIu64 ", \"samples_b\": %" PRIu64 ", \"percent_a\": "
			"%.4f, \"percent_b\": %.4f, \"delta\": %.4f, \"delta_ci\": [%.4f, %.4f], "
			"\"share_p\": %.6g, \"share_significant\": %s, \"cost_ratio\": ", s->a, s->b,
			100 * s->share.pa, 100 * s->share.pb, 100 * s->share.delta,
			100 * s->share.lo, 100 * s->share.hi, s->share_adj,
			s->share_sig ? "true" : "false");
		put_num(f, FMT_JSON, s->ratio);
		fputs(", \"cost_ci\": [", f);
		put_num(f, FMT_JSON, s->ratio_lo);
		fputs(", ", f);
		put_num(f, FMT_JSON, s->ratio_hi);
		fprintf(f, "], \"cost_p\": %.6g, \"cost_significant\": %s, \"reference\": %s, "
			"\"rates\": ", s->cost_adj, s->cost_sig ? "true" : "false",
			s->in_ref ? "true" : "false");
		xa = fn_counts(d, fn, 0, &sa);
		xb = fn_counts(d, fn, 1, &sb);
		json_rates(f, d, xa, sa, xb, sb);
		fputs("}", f);
	}
	fputs("\n ],\n \"aligned\": ", f);
	if (!d->aligned) {
		fputs("{\"compared\": false, \"why\": ", f);
		json_str(f, d->align_note);
		fputs("}\n}\n", f);
		return;
	}
	fprintf(f, "{\"compared\": true, \"windows\": %" PRIu64 ", \"windows_a\": %" PRIu64
		", \"windows_b\": %" PRIu64 ", \"threshold\": %g, \"same_function\": %" PRIu64,
		d->nal, d->r[0].nw, d->r[1].nw, d->a->threshold, d->same);
	if (d->nal)
		fprintf(f, ", \"distance_end\": %.6g, \"time_rel_end\": %.6g",
			d->dist[d->nal - 1], d->trel[d->nal - 1]);
	fputs(", \"distance_diverged_from\": ", f);
	if (d->div_dist < d->nal)
		fprintf(f, "%" PRIu64, d->div_dist);
	else
		fputs("null", f);
	fputs(", \"time_diverged_from\": ", f);
	if (d->div_time < d->nal)
		fprintf(f, "%" PRIu64, d->div_time);
	else
		fputs("null", f);
	fputs("}\n}\n", f);
}

/* --windows: the aligned windows, one row each. */
static void print_windows(FILE *f, const struct diff_ctx *d)
{
	const struct run *a = &d->r[0], *b = &d->r[1];
	enum out_format fmt = d->a->format;
	uint64_t i, lim = d->nal;
	uint32_t c;
	char lbl[PATH_MAX + 2], lbl2[PATH_MAX + 2];

	if (fmt == FMT_TABLE) {
		print_run_line(f, "A (baseline)", a);
		print_run_line(f, "B", b);
		print_aligned_text(f, d);
		fprintf(f, "%8s %12s %12s %6s %6s", "index", "time_a_ms", "time_b_ms", "dist",
			"t_rel");
		for (c = 0; c < d->nev_common; c++) {
			char cb[160], fb[64];

			fprintf(f, " %10s", fit(fb, sizeof(fb), column_name(d->com[c].name, cb,
				sizeof(cb)), 10));
			fprintf(f, " %10s", "(B)");
		}
		fputs("  symbol A | symbol B\n", f);
		if (d->a->limit && lim > d->a->limit)
			lim = d->a->limit;
	} else if (fmt == FMT_CSV) {
		fputs("index,time_a_ns,time_b_ns,symbol_a,dso_a,symbol_b,dso_b,same,distance,"
		      "time_rel", f);
		for (c = 0; c < d->nev_common; c++)
			fprintf(f, ",%s_a,%s_b", d->com[c].name, d->com[c].name);
		fputc('\n', f);
	} else {
		fputs("{\"windows\": [", f);
	}
	for (i = 0; i < lim; i++) {
		const struct sym *sa = symbolizer_sym(a->s.sy, a->wsym[i]);
		const struct sym *sb = symbolizer_sym(b->s.sy, b->wsym[i]);
		const char *da = symbolizer_dso_info(a->s.sy, sa->dso)->short_name;
		const char *db = symbolizer_dso_info(b->s.sy, sb->dso)->short_name;
		bool same = !strcmp(sa->name, sb->name) && !strcmp(da, db);

		if (fmt == FMT_TABLE) {
			fprintf(f, "%8" PRIu64 " %12.3f %12.3f %6.3f %6.3f", i, (double)a->wt[i] / 1e6,
				(double)b->wt[i] / 1e6, d->dist[i], d->trel[i]);
			for (c = 0; c < d->nev_common; c++)
				fprintf(f, " %10" PRIu64 " %10" PRIu64,
					a->wcounts[i * a->nev + (uint32_t)d->com[c].m[0].a],
					b->wcounts[i * b->nev + (uint32_t)d->com[c].m[1].a]);
			fprintf(f, "  %s %s %s %s %s%s\n", sa->name, dso_label(lbl, sizeof(lbl), da),
				same ? "=" : "|", sb->name, dso_label(lbl2, sizeof(lbl2), db),
				a->wflags[i] || b->wflags[i] ? " (after loss)" : "");
			continue;
		}
		if (fmt == FMT_CSV) {
			fprintf(f, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",", i, a->wt[i], b->wt[i]);
			csv_str(f, sa->name);
			fputc(',', f);
			csv_str(f, da);
			fputc(',', f);
			csv_str(f, sb->name);
			fputc(',', f);
			csv_str(f, db);
			fprintf(f, ",%d,%.6f,%.6f", same, d->dist[i], d->trel[i]);
			for (c = 0; c < d->nev_common; c++)
				fprintf(f, ",%" PRIu64 ",%" PRIu64,
					a->wcounts[i * a->nev + (uint32_t)d->com[c].m[0].a],
					b->wcounts[i * b->nev + (uint32_t)d->com[c].m[1].a]);
			fputc('\n', f);
			continue;
		}
		fprintf(f, "%s\n  {\"index\": %" PRIu64 ", \"time_a_ns\": %" PRIu64 ", \"time_b_ns\": %"
			PRIu64 ", \"symbol_a\": ", i ? "," : "", i, a->wt[i], b->wt[i]);
		json_str(f, sa->name);
		fputs(", \"dso_a\": ", f);
		json_str(f, da);
		fputs(", \"symbol_b\": ", f);
		json_str(f, sb->name);
		fputs(", \"dso_b\": ", f);
		json_str(f, db);
		fprintf(f, ", \"same\": %s, \"distance\": %.6f, \"time_rel\": %.6f, \"counts\": {",
			same ? "true" : "false", d->dist[i], d->trel[i]);
		for (c = 0; c < d->nev_common; c++) {
			fputs(c ? ", " : "", f);
			json_str(f, d->com[c].name);
			fprintf(f, ": [%" PRIu64 ", %" PRIu64 "]",
				a->wcounts[i * a->nev + (uint32_t)d->com[c].m[0].a],
				b->wcounts[i * b->nev + (uint32_t)d->com[c].m[1].a]);
		}
		fputs("}}", f);
	}
	if (fmt == FMT_JSON)
		fputs("\n]}\n", f);
	else if (fmt == FMT_TABLE && lim < d->nal)
		fprintf(f, "# ... %" PRIu64 " more window(s) (--limit)\n", d->nal - lim);
}

/* ---- --plot: gnuplot, driven as pmiprof plot drives it ---- */

static int write_plot_files(const struct diff_ctx *d, const char *dat, const char *gp)
{
	const char *out = d->a->plot, *term = gnuplot_terminal(out);
	const char *size = !strcmp(term, "pdfcairo") ? "10in,5in" : "1200,600";
	FILE *f = fopen(dat, "w");
	uint64_t i, step = d->nal > 20000 ? d->nal / 20000 : 1;

	if (!f)
		return -errno;
	fputs("# index distance time_rel time_a_s\n", f);
	for (i = 0; i < d->nal; i += step)
		fprintf(f, "%" PRIu64 " %.6f %.6f %.6f\n", i, d->dist[i], d->trel[i],
			(double)d->r[0].wt[i] / 1e9);
	if (fclose(f))
		return -errno;
	f = fopen(gp, "w");
	if (!f)
		return -errno;
	fprintf(f, "set terminal %s size %s\nset output '%s'\n", term, size, out);
	fprintf(f, "set title 'pmiprof diff: window i of %s against window i of %s' noenhanced\n",
		d->r[0].s.opts.input, d->r[1].s.opts.input);
	fputs("set xlabel 'window index'\nset ylabel 'divergence (0..1)'\nset yrange [0:1]\n"
	      "set key outside right top\nset grid\n", f);
	if (d->div_dist < d->nal)
		fprintf(f, "set arrow from %" PRIu64 ",0 to %" PRIu64 ",1 nohead dt 2 lc rgb "
			"'#c00000'\nset label 'distance diverged' at %" PRIu64 ",0.95 tc rgb "
			"'#c00000'\n", d->div_dist, d->div_dist, d->div_dist);
	if (d->div_time < d->nal)
		fprintf(f, "set arrow from %" PRIu64 ",0 to %" PRIu64 ",1 nohead dt 3 lc rgb "
			"'#0060c0'\nset label 'time diverged' at %" PRIu64 ",0.88 tc rgb "
			"'#0060c0'\n", d->div_time, d->div_time, d->div_time);
	fprintf(f, "plot '%s' using 1:2 with lines lw 2 lc rgb '#c00000' title 'distance "
		"(closing-function mix)', \\\n     '' using 1:3 with lines lw 1 lc rgb '#0060c0' "
		"title 'time gap (relative)', \\\n     %g with lines dt 2 lc rgb 'gray40' title "
		"'threshold'\n", dat, d->a->threshold);
	if (fclose(f))
		return -errno;
	return 0;
}

static int make_plot(const struct diff_ctx *d)
{
	char dir[] = "/tmp/pmiprof-diff.XXXXXX", dat[64], gp[64], gperr[4096];
	struct stat st;
	int rc;

	if (!mkdtemp(dir)) {
		pm_err("cannot create a temporary directory: %s", strerror(errno));
		return 1;
	}
	snprintf(dat, sizeof(dat), "%s/diff.dat", dir);
	snprintf(gp, sizeof(gp), "%s/diff.gp", dir);
	rc = write_plot_files(d, dat, gp);
	if (rc) {
		pm_err("writing the plot data: %s", strerror(-rc));
	} else {
		unlink(d->a->plot);
		rc = gnuplot_run(gp, NULL, gperr, sizeof(gperr));
		if (rc == 127) {
			pm_err("gnuplot is not installed: install the Debian package gnuplot-nox "
			       "(apt-get install gnuplot-nox), or run 'make deps'");
		} else if (rc || stat(d->a->plot, &st) || !st.st_size) {
			pm_err("gnuplot failed (status %d) to write %s", rc, d->a->plot);
			gnuplot_print_errors(gperr);
			rc = rc ? rc : 1;
		} else
			pm_info("wrote %s (%" PRIu64 " aligned windows)", d->a->plot, d->nal);
	}
	unlink(dat);
	unlink(gp);
	rmdir(dir);
	return rc ? 1 : 0;
}

/* ---- the command ---- */

static void sum_totals(struct run *r)
{
	uint32_t i, e;

	for (i = 0; i < r->p.nr_rows; i++)
		for (e = 0; e < r->p.nr_events; e++)
			r->totals[e] += r->p.rows[i].counts[e];
}

static int run_diff(struct diff_args *a)
{
	struct diff_ctx d;
	uint32_t *order = NULL;
	int k, rc = 0, status = 1;
	char why[256];

	memset(&d, 0, sizeof(d));
	d.a = a;
	for (k = 0; k < 2; k++) {
		struct session_opts so = a->so;

		so.input = a->in[k];
		rc = session_open(&d.r[k].s, &so);
		if (rc) {
			pm_err("%s: %s", a->in[k], strerror(-rc));
			goto out;
		}
		d.r[k].open = true;
	}
	/*
	 * Per-window values (counts per window, rates of the windows) compare
	 * only when both runs close windows alike; totals always compare.
	 */
	for (k = 0; k < 2; k++)
		window_def(d.r[k].s.h, d.win_def[k], sizeof(d.win_def[k]));
	if (strcmp(d.win_def[0], d.win_def[1])) {
		d.win_differ = true;
		pm_warn("%s and %s define windows differently (A: %s; B: %s): their per-window "
			"values are not comparable and the table leaves them out; compare the run "
			"totals", a->in[0], a->in[1], d.win_def[0], d.win_def[1]);
	}
	if (a->align != ALIGN_OFF) {
		if (same_windows(d.r[0].s.h, d.r[1].s.h, why, sizeof(why))) {
			d.r[0].keep_windows = d.r[1].keep_windows = true;
		} else if (a->align == ALIGN_FORCE || a->windows || a->plot) {
			pm_err("windows of %s and %s cannot be aligned: %s", a->in[0], a->in[1], why);
			goto out;
		} else {
			snprintf(d.align_note, sizeof(d.align_note), "%s", why);
		}
	} else {
		snprintf(d.align_note, sizeof(d.align_note), "--no-window-aligned");
	}
	for (k = 0; k < 2; k++) {
		struct run *r = &d.r[k];

		rc = profile_init(&r->p, &r->s, BY_SYMBOL, NULL, 0);
		if (rc)
			break;
		r->have_p = true;
		rc = run_pass(r);
		if (rc)
			break;
		if (!r->p.samples) {
			pm_err("%s: no samples%s", a->in[k], r->s.samples ? " after the filters" : "");
			goto out;
		}
		sum_totals(r);
	}
	if (!rc)
		rc = build_functions(&d);
	if (!rc)
		rc = diff_compute(d.st, d.nfn, d.r[0].p.samples, d.r[1].p.samples, a->alpha, &d.res);
	if (!rc) {
		d.com = calloc(PMIPROF_MAX_EVENTS + MAX_METRICS * 2, sizeof(*d.com));
		rc = d.com ? 0 : -ENOMEM;
	}
	if (rc) {
		pm_err("%s", strerror(-rc));
		goto out;
	}
	find_common(&d);
	if (d.r[0].keep_windows) {
		if (same_binary(&d, why, sizeof(why))) {
			d.aligned = true;
		} else if (a->align == ALIGN_FORCE) {
			d.aligned = true;
			snprintf(d.align_note, sizeof(d.align_note), "--window-aligned although %s",
				 why);
		} else {
			snprintf(d.align_note, sizeof(d.align_note), "%s (--window-aligned compares "
				 "them anyway)", why);
		}
	}
	if ((a->windows || a->plot) && !d.aligned) {
		pm_err("no window-aligned view of %s and %s: %s", a->in[0], a->in[1], d.align_note);
		goto out;
	}
	if (d.aligned) {
		rc = compute_aligned(&d);
		if (rc) {
			pm_err("%s", strerror(-rc));
			goto out;
		}
	}
	order = row_order(&d);
	if (!order) {
		pm_err("out of memory");
		goto out;
	}
	if (a->windows)
		print_windows(stdout, &d);
	else if (a->format == FMT_CSV)
		print_csv(stdout, &d, order);
	else if (a->format == FMT_JSON)
		print_json(stdout, &d, order);
	else
		print_table(stdout, &d, order);
	if (fflush(stdout)) {
		pm_err("writing the output: %s", strerror(errno));
		goto out;
	}
	for (k = 0; k < 2; k++)
		session_print_warnings(&d.r[k].s, pm_quiet);
	status = a->plot ? make_plot(&d) : 0;
out:
	free(order);
	free(d.fns);
	free(d.st);
	free(d.com);
	free(d.dist);
	free(d.trel);
	for (k = 0; k < 2; k++)
		run_free(&d.r[k]);
	return status;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_args a;
	int rc;

	memset(&a, 0, sizeof(a));
	rc = parse_args(&a, argc, argv);
	if (rc < 0) {
		session_opts_free(&a.so);
		return command_help("diff");
	}
	if (!rc)
		rc = run_diff(&a);
	session_opts_free(&a.so);
	return rc;
}
