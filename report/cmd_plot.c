// SPDX-License-Identifier: GPL-2.0
/*
 * `pmiprof plot`: per-window time series of IPC, miss rates (or, without a
 * hardware PMU, event rates) with the top functions marked along the time
 * axis, plus the histograms of each metric and of the top functions'
 * windows, rendered by gnuplot into PNG, SVG or PDF.  Lost samples show as
 * red lines, throttling as orange dashed ones, time-based/emulated windows
 * in the title and on every panel.  Windows after a loss or stretched by
 * throttling are left out of the series and histograms (window_in_stats()).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "output/format.h"
#include "output/gnuplot.h"
#include "analysis/histogram.h"
#include "analysis/metrics.h"
#include "analysis/phases.h"
#include "output/phases_bands.h"
#include "analysis/region_bands.h"
#include "analysis/profile.h"
#include "input/session.h"
#include "util.h"

const char cmd_plot_summary[] = "Plot per-window metrics and histograms (gnuplot)";

const char cmd_plot_help[] =
"NAME\n"
"    pmiprof plot - per-window metric time series and histograms, via gnuplot\n"
"\n"
"SYNOPSIS\n"
"    pmiprof plot [-i FILE] -o OUT.png|OUT.svg|OUT.pdf [--metric LIST] [--top N]\n"
"                 [--keep-script] [--size WxH] [--title TEXT] [--phases]\n"
"                 [FILTERS]\n"
"\n"
"DESCRIPTION\n"
"    Draws, from a trace, one time-series panel per metric (one point per\n"
"    window; the mean of consecutive windows when there are more than 4000),\n"
"    a strip that marks along the same time axis which of the top functions\n"
"    closed each window (its labels give their shares), and one histogram per\n"
"    metric: all windows as boxes, and the windows closed by each top\n"
"    function as lines (fractions), over the bins of 'report --hist' (a bin\n"
"    of zeros for mostly-zero metrics, log-spaced bins for heavy tails).\n"
"    Legends stay outside the data: right of the time panels, under the\n"
"    histograms.\n"
"    Lost samples are red vertical lines, throttling orange dashed ones;\n"
"    time-based windows (no hardware PMU) and an EMULATED PMU are written in\n"
"    the title and on every panel.  Windows whose counts span unrecorded\n"
"    periods (after a loss or throttling on their CPU, or stretched by storm\n"
"    throttling) are left out of the series and histograms; the title says\n"
"    how many.\n"
"    Code regions (traces of 'pmiprof record' with libpmiprof-region markers)\n"
"    are shaded behind the time series, one colour per region, named in the\n"
"    first panel's key, where a band is at least 0.4% of the axis wide;\n"
"    narrower ones get a 'code regions' strip, a row per region.\n"
"    A metric that is 0 in every window gets no panel (the title names it).\n"
"    gnuplot's messages are shown only when it fails.\n"
"    Given the region table of 'pmiprof stat --regions -o FILE' (csv) as -i,\n"
"    plot draws per event one candlestick per region instead: whiskers\n"
"    min..max, box median..p99, a bar at the median, a point per mode.\n"
"    The format follows the extension of OUT: .png, .svg or .pdf.\n"
"\n"
"    Metrics: ipc, <event>-mpki and branch-miss-pct (see pmiprof report),\n"
"    <event> (the raw count per window), <event>-rate (per 1000 instructions\n"
"    when instructions were recorded, else per second of CPU time from\n"
"    task-clock/cpu-clock).  Default: the derived metrics; without them\n"
"    (time-based traces) the rate of every event that is not a clock.\n"
"\n"
"OPTIONS\n"
"    -i, --input FILE    trace to read (default: pmiprof.data)\n"
"    -o, --output OUT    image to write (required)\n"
"    -m, --metric LIST   comma-separated metrics to plot (at most 6)\n"
"    --top N             functions to mark (default 5, at most 8)\n"
"    --keep-script       keep OUT.gp (gnuplot script) and OUT.series.dat,\n"
"                        OUT.hist.dat beside the image, to restyle and rerun\n"
"                        with 'gnuplot OUT.gp'\n"
"    --size WxH          image size in pixels (default 1200 x 250 per panel)\n"
"    --title TEXT        title (default: the recorded command line)\n"
"    --phases            colour the time axis by program phase (as 'pmiprof\n"
"                        phases' finds them: a bar along the bottom of each\n"
"                        time panel, a light band behind it, each phase named\n"
"                        in the key by its top function; docs/phases.md)\n"
"    --phase-interval M, --phase-max-k N\n"
"                        --phases with phases' --interval and --max-k\n"
"    -q, --quiet         no notes about symbols, no summary line\n"
"    FILTERS             as for pmiprof report: --pid, --tid, --comm, --dso,\n"
"                        --symbol, --time START,END, --window A-B\n"
"\n"
"REQUIREMENTS\n"
"    gnuplot (Debian package gnuplot-nox).  Without it the command says so\n"
"    and exits with status 1.\n"
"\n"
"EXAMPLES\n"
"    pmiprof plot -o run.png\n"
"    pmiprof plot -i run.data -o ipc.svg --metric ipc,cache-misses-mpki\n"
"    pmiprof plot -o run.png --keep-script && gnuplot run.gp\n"
"\n"
"EXIT STATUS\n"
"    0 image written, 1 error (unreadable trace, gnuplot missing or failed),\n"
"    2 usage error.\n";

#define PLOT_MAX_METRICS 6
#define PLOT_MAX_TOP 8
#define PLOT_MAX_POINTS 4000
#define PLOT_BUCKETS 2000
#define PLOT_MAX_ARROWS 200

enum { OPT_KEEP = 0x3000, OPT_TOP, OPT_SIZE, OPT_TITLE, OPT_PHASES, OPT_PHASE_INTERVAL,
       OPT_PHASE_MAX_K };

static const struct option long_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "metric", required_argument, NULL, 'm' },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "keep-script", no_argument, NULL, OPT_KEEP },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "title", required_argument, NULL, OPT_TITLE },
	{ "phases", no_argument, NULL, OPT_PHASES },
	{ "phase-interval", required_argument, NULL, OPT_PHASE_INTERVAL },
	{ "phase-max-k", required_argument, NULL, OPT_PHASE_MAX_K },
	{ "help", no_argument, NULL, 'h' },
	SESSION_FILTER_OPTIONS,
	{ NULL, 0, NULL, 0 }
};

struct plot_args {
	struct session_opts so;
	const char *output, *metric, *title;
	uint64_t top;
	bool keep;
	unsigned int width, height;
	const char *terminal;	/* gnuplot terminal for the extension */
	bool phases;		/* --phases */
	struct phases_opts po;	/* --phase-interval, --phase-max-k */
	struct phases_result *pr;	/* its phases, else NULL */
	char phase_names[PHASES_MAX_K][96];	/* their legend entries (phases_names()) */
};

/* Per-window data kept for the plot (the profile keeps metric values). */
struct plot_data {
	struct profile p;
	double *t;		/* seconds since start, per kept window */
	uint64_t n, cap;
};

static int plot_add_sample(void *arg, const struct trace_sample *smp, uint64_t index,
			   uint32_t sym, uint32_t comm)
{
	struct plot_data *d = arg;
	const struct session *s = d->p.s;

	/* Counted in the shares, but no point of the series: the profile skips it too. */
	if (!window_in_stats(smp->flags))
		return profile_add_sample(&d->p, smp, index, sym, comm);
	if (d->n == d->cap) {
		uint64_t cap = d->cap ? d->cap * 2 : 65536;
		double *t = realloc(d->t, cap * sizeof(*t));

		if (!t)
			return -ENOMEM;
		d->t = t;
		d->cap = cap;
	}
	d->t[d->n++] = (double)(smp->time > s->base_time ? smp->time - s->base_time : 0) *
		       s->time_scale / 1e9;
	return profile_add_sample(&d->p, smp, index, sym, comm);
}

static int parse_args(struct plot_args *a, int argc, char **argv)
{
	int c, rc;

	a->top = 5;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:o:m:qh", long_opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			a->output = optarg;
			break;
		case 'm':
			a->metric = optarg;
			break;
		case OPT_TOP:
			if (pm_parse_u64(optarg, 0, PLOT_MAX_TOP, &a->top))
				return pm_usage_error("plot", "--top '%s': expected 0..%d", optarg,
						      PLOT_MAX_TOP);
			break;
		case OPT_KEEP:
			a->keep = true;
			break;
		case OPT_SIZE:
			if (sscanf(optarg, "%ux%u", &a->width, &a->height) != 2 || a->width < 200 ||
			    a->height < 200 || a->width > 20000 || a->height > 20000)
				return pm_usage_error("plot", "--size '%s': expected WxH in pixels, "
						      "200..20000 each", optarg);
			break;
		case OPT_TITLE:
			a->title = optarg;
			break;
		case OPT_PHASES:
			a->phases = true;
			break;
		case OPT_PHASE_INTERVAL:
			if (pm_parse_u64(optarg, 1, UINT32_MAX, &a->po.interval))
				return pm_usage_error("plot", "--phase-interval '%s': expected a "
						      "number of windows >= 1", optarg);
			a->phases = true;
			break;
		case OPT_PHASE_MAX_K: {
			uint64_t v;

			if (pm_parse_u64(optarg, 1, PHASES_MAX_K, &v))
				return pm_usage_error("plot", "--phase-max-k '%s': expected 1..%d",
						      optarg, PHASES_MAX_K);
			a->po.max_k = (uint32_t)v;
			a->phases = true;
			break;
		}
		case 'h':
			return -1;
		case ':':
			return pm_usage_error("plot", "option '%s' needs a value", argv[optind - 1]);
		case '?':
			return pm_usage_error("plot", "unknown option '%s'", argv[optind - 1]);
		default:
			rc = session_filter_option(&a->so, c, optarg, "plot");
			if (rc)
				return rc;
			break;
		}
	}
	if (optind < argc)
		return pm_usage_error("plot", "unexpected argument '%s'", argv[optind]);
	if (!a->output)
		return pm_usage_error("plot", "the image to write is required: -o OUT.png "
				      "(or .svg, .pdf)");
	{
		const char *dot = strrchr(a->output, '.');

		if (!dot || (strcmp(dot, ".png") && strcmp(dot, ".svg") && strcmp(dot, ".pdf")))
			return pm_usage_error("plot", "-o '%s': the name must end in .png, .svg "
					      "or .pdf", a->output);
	}
	return 0;
}

static int metrics_of(const struct session *s, const char *list, struct metric_set *out)
{
	struct event_roles r;
	const char *why;
	uint32_t i;

	out->n = 0;
	if (list) {
		char *copy = strdup(list), *tok, *save = NULL;
		int rc = 0;

		if (!copy)
			return -ENOMEM;
		for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (out->n == PLOT_MAX_METRICS) {
				rc = pm_usage_error("plot", "--metric: at most %d metrics",
						    PLOT_MAX_METRICS);
				break;
			}
			if (metric_parse(s->h, tok, &out->m[out->n], &why)) {
				rc = pm_usage_error("plot", "--metric '%s': %s", tok, why ? why :
						    "no such event or metric in this trace");
				break;
			}
			out->n++;
		}
		free(copy);
		return rc;
	}
	metrics_derived(s->h, out);
	if (out->n > PLOT_MAX_METRICS) {
		/* the top-down parts (last) make one panel: keep them, drop others */
		uint32_t ntd = 0, j;

		for (j = 0; j < out->n; j++)
			ntd += out->m[j].kind == METRIC_TOPDOWN;
		if (ntd && ntd < PLOT_MAX_METRICS)
			memmove(&out->m[PLOT_MAX_METRICS - ntd], &out->m[out->n - ntd],
				ntd * sizeof(out->m[0]));
		out->n = PLOT_MAX_METRICS;
	}
	if (out->n)
		return 0;
	event_roles_find(s->h, &r);
	for (i = 0; i < s->h->nr_events && i < PMIPROF_MAX_EVENTS && out->n < PLOT_MAX_METRICS;
	     i++) {
		char name[160];
		char b[128];
		const char *base = event_base_name(s->h->events[i].name, b, sizeof(b));

		if (!strcmp(base, "cpu-clock") || !strcmp(base, "task-clock"))
			continue;
		snprintf(name, sizeof(name), "%s-rate", s->h->events[i].name);
		if (metric_parse(s->h, name, &out->m[out->n], &why) &&
		    metric_parse(s->h, s->h->events[i].name, &out->m[out->n], &why))
			continue;
		out->n++;
	}
	if (!out->n && r.clock >= 0) {
		/* Only clocks: at least show the CPU time each window covered. */
		out->m[0] = (struct metric){ "", METRIC_EVENT, r.clock, -1 };
		snprintf(out->m[0].name, sizeof(out->m[0].name), "%s", s->h->events[r.clock].name);
		out->n = 1;
	}
	return 0;
}

static void gp_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		/* a command line's newline or tab (python3 -c '...') ends a gnuplot string */
		if ((unsigned char)*s < 0x20) {
			fputc(' ', f);
			continue;
		}
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		/* gnuplot's enhanced text treats these as markup. */
		if (*s == '_' || *s == '^' || *s == '@' || *s == '&' || *s == '{' || *s == '}')
			fputs("\\\\", f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static const char *metric_label(const struct metric *m, const struct trace_header *h,
				char *buf, size_t size)
{
	switch (m->kind) {
	case METRIC_PER_KILO:
		snprintf(buf, size, "%s per 1000 %s", h->events[m->a].name, h->events[m->b].name);
		break;
	case METRIC_PER_SECOND:
		snprintf(buf, size, "%s per s of %s", h->events[m->a].name, h->events[m->b].name);
		break;
	case METRIC_PERCENT:
		snprintf(buf, size, "%s (%%)", m->name);
		break;
	case METRIC_EVENT:
		snprintf(buf, size, "%s per window", m->name);
		break;
	default:
		snprintf(buf, size, "%s", m->name);
		break;
	}
	return buf;
}

/* Series file: t, metric values, share of the windows closed by each top function. */
static int write_series(const char *path, const struct plot_data *d, const uint32_t *order,
			uint32_t ntop, uint64_t *per_point)
{
	const struct profile *p = &d->p;
	uint32_t nm = p->nr_hist, i, k;
	FILE *f = fopen(path, "w");
	uint64_t w;

	if (!f)
		return -errno;
	fprintf(f, "# time_s");
	for (i = 0; i < nm; i++)
		fprintf(f, " %s", p->hist_metrics[i].name);
	for (k = 0; k < ntop; k++)
		fprintf(f, " top%u_share", k);
	fputc('\n', f);
	*per_point = 1;
	if (d->n <= PLOT_MAX_POINTS) {
		/* A blank line breaks gnuplot's lines: across stretches with no windows. */
		double gap = d->n > 1 ? 20 * (d->t[d->n - 1] - d->t[0]) / (double)(d->n - 1) : 0;

		for (w = 0; w < d->n; w++) {
			if (w && gap > 0 && d->t[w] - d->t[w - 1] > gap)
				fputc('\n', f);
			fprintf(f, "%.9f", d->t[w]);
			for (i = 0; i < nm; i++) {
				float v = p->win_values[w * nm + i];

				if (isnan(v))
					fputs(" NaN", f);
				else
					fprintf(f, " %.6g", v);
			}
			for (k = 0; k < ntop; k++)
				fprintf(f, " %d", p->win_rows[w] == order[k]);
			fputc('\n', f);
		}
	} else {
		/* Too many points to see: mean per time bucket, the mode of the functions. */
		double t0 = d->t[0], t1 = d->t[0], dt;
		struct bucket {
			double sum[PLOT_MAX_METRICS];
			uint32_t cnt[PLOT_MAX_METRICS];
			uint32_t fc[PLOT_MAX_TOP + 1];
			uint32_t nw;
		} *bk = calloc(PLOT_BUCKETS, sizeof(*bk));
		uint64_t b;

		if (!bk) {
			fclose(f);
			return -ENOMEM;
		}
		for (w = 0; w < d->n; w++) {
			t0 = d->t[w] < t0 ? d->t[w] : t0;
			t1 = d->t[w] > t1 ? d->t[w] : t1;
		}
		dt = (t1 - t0) / PLOT_BUCKETS;
		if (dt <= 0)
			dt = 1e-9;
		*per_point = (d->n + PLOT_BUCKETS - 1) / PLOT_BUCKETS;
		for (w = 0; w < d->n; w++) {
			struct bucket *x;

			b = (uint64_t)((d->t[w] - t0) / dt);
			x = &bk[b < PLOT_BUCKETS ? b : PLOT_BUCKETS - 1];
			x->nw++;
			for (i = 0; i < nm; i++) {
				float v = p->win_values[w * nm + i];

				if (!isnan(v)) {
					x->sum[i] += v;
					x->cnt[i]++;
				}
			}
			for (k = 0; k < ntop && p->win_rows[w] != order[k]; k++)
				;
			x->fc[k]++;
		}
		for (b = 0; b < PLOT_BUCKETS; b++) {
			const struct bucket *x = &bk[b];

			if (!x->nw) {
				if (b && bk[b - 1].nw)
					fputc('\n', f);	/* no windows here: break the lines */
				continue;
			}
			fprintf(f, "%.9f", t0 + ((double)b + 0.5) * dt);
			for (i = 0; i < nm; i++) {
				if (x->cnt[i])
					fprintf(f, " %.6g", x->sum[i] / x->cnt[i]);
				else
					fputs(" NaN", f);
			}
			for (k = 0; k < ntop; k++)
				fprintf(f, " %.4f", (double)x->fc[k] / x->nw);
			fputc('\n', f);
		}
		free(bk);
	}
	if (fclose(f))
		return -errno;
	return 0;
}

/*
 * Histogram file: one gnuplot index per metric, one line per bin: its
 * index (the x of the plot, so bins of any spacing get equal room), edges,
 * and the fraction of all windows and of each top function's.
 */
static int write_hists(const char *path, const struct plot_data *d, const uint32_t *order,
		       uint32_t ntop, struct hist *all)
{
	const struct profile *p = &d->p;
	FILE *f = fopen(path, "w");
	uint32_t i, k;
	int b, err = 0;
	char bb[128];

	if (!f)
		return -errno;
	for (i = 0; i < p->nr_hist && !err; i++) {
		struct hist fn[PLOT_MAX_TOP];

		err = hist_build(&all[i], p->win_values + i, p->nr_hist, d->n, NULL, 0, NULL);
		for (k = 0; k < ntop && !err; k++)
			err = hist_build(&fn[k], p->win_values + i, p->nr_hist, d->n, p->win_rows,
					 order[k], &all[i]);
		if (err)
			break;
		fprintf(f, "# metric %s, %s; bins are [lo, hi), a zero bin 0 0\n"
			"# bin lo hi all_fraction", p->hist_metrics[i].name,
			hist_binning(&all[i], bb, sizeof(bb)));
		for (k = 0; k < ntop; k++)
			fprintf(f, " top%u_fraction", k);
		fputc('\n', f);
		for (b = 0; b < all[i].nbins; b++) {
			bool zero = all[i].zero_bin && !b;

			fprintf(f, "%d %.6g %.6g %.6g", b, all[i].edge[b], zero ? 0 : all[i].edge[b + 1],
				all[i].n ? (double)all[i].bins[b] / (double)all[i].n : 0.0);
			for (k = 0; k < ntop; k++)
				fprintf(f, " %.6g", fn[k].n ? (double)fn[k].bins[b] /
					(double)fn[k].n : 0.0);
			fputc('\n', f);
		}
		fputs("\n\n", f);
	}
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

#define PLOT_MAX_SHADES	2000	/* rectangles of region shading, after merging */

static const char *const region_colors[] = {
	"#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#ff7f0e",
};

struct plot_band {
	uint32_t region;
	double b, e;		/* seconds */
};

#define PLOT_MIN_SHADE	0.004	/* of the time axis: narrower bands go to the region strip */
#define PLOT_STRIP_REGIONS 8	/* rows of the region strip */
#define PLOT_KEY_REGIONS 64	/* regions named in the first panel's key, at most */

/*
 * Code regions (1.4 traces): each region's spans, of every thread, as
 * bands along the time axis (analysis/region_bands.c), in seconds.  Spans
 * of a region closer than 0.1% of the axis merge, so a region entered 10^5
 * times is a few bands, not 10^5 objects.  *n bands (sorted by region,
 * then time) into *out.
 */
static int plot_bands(struct session *s, double tmax, struct plot_band **out, uint32_t *n)
{
	struct region_band *rb;
	struct plot_band *bd = NULL;
	uint32_t i;
	int err = region_bands(s, (uint64_t)(tmax * 1e9 / 1000), &rb, n);

	*out = NULL;
	if (err || !*n)
		return err;
	bd = malloc(*n * sizeof(*bd));
	if (bd)
		for (i = 0; i < *n; i++)
			bd[i] = (struct plot_band){ rb[i].region, (double)rb[i].b / 1e9,
						    (double)rb[i].e / 1e9 };
	free(rb);
	*out = bd;
	return bd ? 0 : -ENOMEM;
}

/*
 * The bands wide enough to see (PLOT_MIN_SHADE of the axis) as translucent
 * rectangles behind the time series, one colour per region (named in the
 * first panel's key: wide[region] set).  The narrow ones are left to the
 * region strip.
 */
static void write_region_shading(FILE *f, struct session *s, const struct plot_band *bd,
				 uint32_t nb, double tmax, bool *wide)
{
	uint32_t i, nobj = 0;
	uint64_t left = 0;

	for (i = 0; i < nb; i++) {
		if (bd[i].e - bd[i].b < PLOT_MIN_SHADE * tmax)
			continue;
		if (nobj >= PLOT_MAX_SHADES) {
			left++;
			continue;
		}
		fprintf(f, "set object %u rect from %.9f, graph 0 to %.9f, graph 1 "
			"fc rgb \"%s\" fs transparent solid 0.18 noborder behind\n", 100 + nobj++,
			bd[i].b, bd[i].e, region_colors[bd[i].region % ARRAY_SIZE(region_colors)]);
		if (bd[i].region < PLOT_KEY_REGIONS)
			wide[bd[i].region] = true;
	}
	if (left || s->reg.spans_dropped)
		fprintf(f, "set label 4 \"region shading: %" PRIu64 " band(s) not drawn\" at graph "
			"0.99, graph 0.92 right front tc rgb \"gray40\"\n", left + s->reg.spans_dropped);
}

/*
 * Regions too narrow to shade (short calls, or many short ones far apart):
 * a strip panel on the same time axis, a row per region (the first
 * PLOT_STRIP_REGIONS), every band a mark at least 0.2% of the axis wide.
 */
static void write_region_strip(FILE *f, struct session *s, const struct plot_band *bd,
			       uint32_t nb, double tmax, double ph, double origin)
{
	uint32_t i, nobj = 0, nreg = regions_count(&s->reg), rows, left = 0;

	rows = nreg < PLOT_STRIP_REGIONS ? nreg : PLOT_STRIP_REGIONS;
	fprintf(f, "set size 1, %.4f\nset origin 0, %.4f\nunset key\n", ph, origin);
	fprintf(f, "set ylabel \"code regions\"\nset yrange [0.5:%u.5]\nset ytics (", rows);
	for (i = 0; i < rows; i++) {
		fprintf(f, "%s", i ? ", " : "");
		gp_str(f, regions_name(&s->reg, i));
		fprintf(f, " %u", i + 1);
	}
	fprintf(f, ")\n");
	for (i = 0; i < nb; i++) {
		double e = bd[i].e > bd[i].b + 0.002 * tmax ? bd[i].e : bd[i].b + 0.002 * tmax;

		if (bd[i].region >= rows || nobj >= PLOT_MAX_SHADES) {
			left++;
			continue;
		}
		fprintf(f, "set object %u rect from %.9f, %.2f to %.9f, %.2f fc rgb \"%s\" "
			"fs solid 0.9 noborder\n", 100 + nobj++, bd[i].b, bd[i].region + 0.65, e,
			bd[i].region + 1.35, region_colors[bd[i].region % ARRAY_SIZE(region_colors)]);
	}
	if (left)
		fprintf(f, "set label 4 \"%u band(s) not drawn (%u region(s), at most %d rows, %d "
			"marks)\" at graph 0, graph 1.06 left front tc rgb \"gray40\"\n", left, nreg,
			PLOT_STRIP_REGIONS, PLOT_MAX_SHADES);
	/* nothing to plot but the marks: an empty curve draws the axes */
	fprintf(f, "plot NaN notitle\nunset object\nunset label 4\nset ytics auto\n"
		"set yrange [*:*]\nset key\n");
}

/*
 * The top-down parts stacked along time: band k fills between the sum of
 * the parts before it and that sum plus part k (series columns), so the
 * bands of a window add up to 100 %.  Its key sits right of the data.
 */
static void write_topdown_panel(FILE *f, const struct profile *p, const char *series,
				double ph, double origin)
{
	static const char *const colors[] = { "#9467bd", "#d62728", "#2ca02c", "#1f77b4",
					      "#7f7f7f" };
	char below[256] = "0";
	uint32_t i, k = 0;

	fprintf(f, "set size 1, %.4f\nset origin 0, %.4f\n", ph, origin);
	fprintf(f, "set xlabel \"time (s)\"\nset ylabel \"top-down level 1 (%% of slots)\"\n"
		"set yrange [0:100]\nset key outside right top box opaque\nplot ");
	for (i = 0; i < p->nr_hist; i++) {
		const struct metric *m = &p->hist_metrics[i];
		char above[300];

		if (m->kind != METRIC_TOPDOWN)
			continue;
		snprintf(above, sizeof(above), "%s+$%u", below, i + 2);
		fprintf(f, "%s\"%s\" using 1:(%s):(%s) with filledcurves fs solid 0.6 "
			"lc rgb \"%s\" title ", k ? ", " : "", series, below, above,
			colors[k % ARRAY_SIZE(colors)]);
		gp_str(f, m->name);
		pm_strlcpy(below, above, sizeof(below));
		k++;
	}
	fprintf(f, "\nset yrange [*:*]\n");
}

static int write_script(const char *path, const struct plot_args *a, const struct plot_data *d,
			const uint32_t *order, uint32_t ntop, const char *series,
			const char *hists, uint64_t per_point, const struct hist *all)
{
	struct session *s = d->p.s;
	const struct trace_header *h = s->h;
	const struct profile *p = &d->p;
	uint32_t nm = p->nr_hist, i, k, ntd = 0, row = 0, panels, nshown = 0, col;
	uint32_t nbands = 0, narrow = 0;
	struct plot_band *bands = NULL;
	bool wide[PLOT_KEY_REGIONS] = { false };
	double tmax = 0;
	uint64_t w;
	unsigned int width, height;
	/* Equal rows under a title band: series panels, the function strip, histograms. */
	double ph, top;
	char kind[128], title[4200], lb[256], zeros[600] = "";
	bool shown[PLOT_MAX_METRICS];
	FILE *f;

	/*
	 * A metric that is 0 (or has no value) in every window gets no panel
	 * and no histogram, only a word in the title: a flat line on an
	 * invented -1..1 axis says nothing.
	 */
	for (i = 0; i < nm; i++) {
		shown[i] = all[i].n > all[i].zeros || (!ntop && i == nm - 1 && !nshown);
		nshown += shown[i];
		if (!shown[i]) {
			size_t at = strlen(zeros);

			snprintf(zeros + at, sizeof(zeros) - at, "%s%s", at ? ", " : "",
				 p->hist_metrics[i].name);
		}
	}
	/* The top-down percentages share one stacked panel (docs/topdown.md). */
	for (i = 0; i < nm; i++)
		ntd += shown[i] && p->hist_metrics[i].kind == METRIC_TOPDOWN;
	/* One time axis for every series panel and the strips. */
	for (w = 0; w < d->n; w++)
		tmax = d->t[w] > tmax ? d->t[w] : tmax;
	tmax = tmax > 0 ? tmax : 1e-3;
	if (plot_bands(s, tmax, &bands, &nbands))
		return -ENOMEM;
	for (i = 0; i < nbands; i++)
		narrow += bands[i].e - bands[i].b < PLOT_MIN_SHADE * tmax;
	panels = nshown - ntd + (ntd ? 1 : 0) + (ntop ? 1 : 0) + (nshown ? 1 : 0) + (narrow ? 1 : 0);
	width = a->width ? a->width : 1200;
	/* the title band: two lines, a third naming the metrics not drawn */
	height = a->height ? a->height : 250 * panels + (zeros[0] ? 80 : 60);
	top = 1 - (zeros[0] ? 80.0 : 60.0) / height;
	top = top < 0.8 ? 0.8 : top;
	ph = top / (panels ? panels : 1);
	f = fopen(path, "w");

	if (!f) {
		free(bands);
		return -errno;
	}
	window_kind(s, kind, sizeof(kind));
	snprintf(title, sizeof(title), "%s", a->title ? a->title :
		 (h->cmdline[0] ? h->cmdline : s->opts.input));
	fprintf(f, "# pmiprof plot of %s; rerun with: gnuplot %s\n", s->opts.input, path);
	fprintf(f, "set terminal %s size %u,%u%s\n", a->terminal, width, height,
		strcmp(a->terminal, "png") ? " font \"sans,10\"" : "");
	fprintf(f, "set output ");
	gp_str(f, a->output);
	fputc('\n', f);
	fprintf(f, "set datafile missing \"NaN\"\nset grid\nset key outside right top "
		"box opaque samplen 1.5\n");
	fprintf(f, "set multiplot title ");
	{
		char full[4800];

		snprintf(full, sizeof(full), "pmiprof: %.200s", title);
		gp_str(f, full);
		fputs(" . \"\\n\" . ", f);
		char thr[96] = "", lo[96] = "";

		if (s->throttle_events)
			snprintf(thr, sizeof(thr), ", throttled %" PRIu64 " time(s) for %.3f s",
				 s->throttle_events, (double)s->throttled_ns / 1e9);
		else if (s->throttle_est_windows)
			snprintf(thr, sizeof(thr), ", throttled (about %" PRIu64 " windows)",
				 s->throttle_est_windows);
		if (p->win_left_out)
			snprintf(lo, sizeof(lo), "; %" PRIu64 " after a loss or throttling left out",
				 p->win_left_out);
		snprintf(full, sizeof(full), "%s%s; %" PRIu64 " windows (%" PRIu64
			 " shown), %" PRIu64 " lost%s%s%s", kind,
			 (h->flags & PMIPROF_TRACE_F_TIME_BASED) ? " (no hardware PMU)" : "",
			 s->samples, d->n, s->lost_total, thr, lo,
			 per_point > 1 ? "; series: mean per time bucket" : "");
		gp_str(f, full);
		if (zeros[0]) {
			snprintf(full, sizeof(full), "%s: 0 in every window (not drawn)", zeros);
			fputs(" . \"\\n\" . ", f);
			gp_str(f, full);
		}
	}
	fprintf(f, " font \",12\"\n");
	/*
	 * The time panels share one left margin, wide enough for the strip's
	 * labels ("name 12.3%", about 7 px a character at font 10), and keep
	 * their keys right of the data.
	 */
	{
		double lm = 0.16;

		for (k = 0; k < ntop; k++) {
			char nb[64], fb[32];
			size_t len = strlen(fit(fb, sizeof(fb), profile_row_name(p,
					    &p->rows[order[k]], nb, sizeof(nb)), 24)) + 6;
			double need = (7.0 * (double)len + 60) / width;

			lm = need > lm ? need : lm;
		}
		/* phases named in the key ("phase 2: phase_chase 97%") need more room */
		fprintf(f, "set lmargin at screen %.4f\nset rmargin at screen %.2f\n",
			lm > 0.4 ? 0.4 : lm, a->pr ? 0.76 : 0.80);
	}
	fprintf(f, "set xrange [0:%.9f]\n", tmax);
	write_region_shading(f, s, bands, nbands, tmax, wide);
	if (a->pr)
		phases_gnuplot_bands(f, a->pr, 3000);
	/*
	 * Lost samples: a red line at each place the trace reported a loss;
	 * throttling (no sample lost, sampling paused) an orange dashed one.
	 */
	for (i = 0; i < s->nr_lost_marks && i < PLOT_MAX_ARROWS; i++) {
		bool thr = s->lost_marks[i].reason == PMIPROF_LOST_THROTTLE;

		fprintf(f, "set arrow from %.9f, graph 0 to %.9f, graph 1 nohead lc rgb \"%s\" "
			"lw 1.5 %sfront\n", (double)s->lost_marks[i].time / 1e9,
			(double)s->lost_marks[i].time / 1e9, thr ? "dark-orange" : "red",
			thr ? "dt 2 " : "");
	}
	if (s->lost_total)
		fprintf(f, "set label 2 \"red lines: %" PRIu64 " lost samples\" at graph 0.01, "
			"graph 0.08 front tc rgb \"red\"\n", s->lost_total);
	if (s->throttle_events || s->throttle_est_windows)
		fprintf(f, "set label 3 \"orange dashed lines: throttled\" at graph 0.01, "
			"graph %s front tc rgb \"dark-orange\"\n", s->lost_total ? "0.16" : "0.08");
	fprintf(f, "set label 1 ");
	gp_str(f, kind);
	fprintf(f, " at graph 1, graph 1.06 right front tc rgb \"%s\"\n",
		(h->flags & (PMIPROF_TRACE_F_TIME_BASED | PMIPROF_TRACE_F_EMULATED)) ?
		"dark-orange" : "gray40");
	for (i = 0, k = 0; i < nm; i++) {
		if (p->hist_metrics[i].kind == METRIC_TOPDOWN || !shown[i])
			continue;
		fprintf(f, "set size 1, %.4f\nset origin 0, %.4f\n", ph, top - ++row * ph);
		/* rates and counts: never a negative axis; large ones in engineering notation */
		fprintf(f, "set yrange [0:*]\nset format y %s\nset xlabel \"time (s)\"\nset ylabel ",
			all[i].max >= 1e4 ? "\"%.1s%c\"" : "\"%g\"");
		gp_str(f, metric_label(&p->hist_metrics[i], h, lb, sizeof(lb)));
		fprintf(f, "\nplot \"%s\" using 1:%u with %s lc rgb \"#1f77b4\" title ", series,
			i + 2, per_point > 1 || d->n > 500 ? "lines" : "linespoints pt 7 ps 0.4");
		gp_str(f, p->hist_metrics[i].name);
		/* the first panel's key names the shaded regions */
		for (k = 0; row == 1 && k < regions_count(&s->reg) && k < PLOT_KEY_REGIONS; k++) {
			if (!wide[k])
				continue;
			fprintf(f, ", keyentry with boxes fc rgb \"%s\" fs transparent solid 0.35 "
				"title ", region_colors[k % ARRAY_SIZE(region_colors)]);
			gp_str(f, regions_name(&s->reg, k));
		}
		/* phases by their top function: "phase 2: phase_chase 97%" */
		for (k = 0; row == 1 && a->pr && k < a->pr->c.k; k++) {
			char fb[64];

			fprintf(f, ", keyentry with boxes fc rgb \"%s\" fs solid 0.9 title ",
				phases_color(k));
			gp_str(f, fit(fb, sizeof(fb), a->phase_names[k], 32));
		}
		fputc('\n', f);
	}
	if (ntd)
		write_topdown_panel(f, p, series, ph, top - ++row * ph);
	fprintf(f, "unset label 2\nunset label 3\nunset label 4\nunset arrow\nunset object\n"
		"set format y\n");
	if (narrow)
		write_region_strip(f, s, bands, nbands, tmax, ph, top - ++row * ph);
	free(bands);
	if (ntop) {
		fprintf(f, "set size 1, %.4f\nset origin 0, %.4f\n", ph, top - (row + 1) * ph);
		/* Each function's share is in its label: no key to cover the strip. */
		fprintf(f, "unset key\nset ylabel \"top functions (share)\"\nset yrange [0.5:%u.5]\n"
			"set ytics (", ntop);
		for (k = 0; k < ntop; k++) {
			char nb[64], fb[32], t[64];

			/* A tic label is a format for the tic's value: %% for a %. */
			snprintf(t, sizeof(t), "%s %.1f%%%%", fit(fb, sizeof(fb),
				 profile_row_name(p, &p->rows[order[k]], nb, sizeof(nb)), 24),
				 100.0 * (double)p->rows[order[k]].samples / (double)p->samples);
			fprintf(f, "%s", k ? ", " : "");
			gp_str(f, t);
			fprintf(f, " %u", k + 1);
		}
		fprintf(f, ")\nplot ");
		for (k = 0; k < ntop; k++)
			fprintf(f, "%s\"%s\" using 1:($%u>0 ? %u : NaN) with points pt 7 ps 0.5 "
				"lc %u notitle", k ? ", " : "", series, nm + 2 + k, k + 1, k + 1);
		fprintf(f, "\nset ytics auto\nset yrange [*:*]\nset key\n");
	}
	fprintf(f, "unset label 1\nset xrange [*:*]\n");
	/*
	 * Histograms: side by side along the bottom, one box per bin at its
	 * index (labelled with its edges), so log-spaced bins read as easily
	 * as equal-width ones.  A zero bin is a narrow box of its own, apart
	 * left of the others, labelled 0: it covers one value, not a
	 * range.  Keys go under the x label.
	 */
	for (i = 0, col = 0; i < nm; i++) {
		int b, first = all[i].zero_bin ? 1 : 0, nbo = all[i].nbins - first, every, lmax = 1;
		double pw, ymin = 1, xlo = first ? -1.0 : -0.5, zx = -0.6;
		char bb[128], eb[32];

		if (!shown[i])
			continue;
		/*
		 * Edge labels in engineering notation, as many as fit side by side
		 * at font 8 (about 6 px a character and a gap): never rotated,
		 * never crowded; the last one ends within the right margin.
		 */
		for (b = first; b <= all[i].nbins; b++) {
			int len = (int)strlen(hist_eng(all[i].edge[b], eb, sizeof(eb)));

			lmax = len > lmax ? len : lmax;
		}
		pw = (double)width / nshown - 16 * 6.5;	/* lmargin 11 + rmargin 5 characters */
		every = 1;
		while (nbo && every < nbo && pw / ((all[i].nbins + 1.1) / every) < lmax * 6 + 14)
			every++;
		/* the zero bin far enough left of the first edge for both labels */
		if (first && nbo) {
			double pxb = pw / (all[i].nbins + 1.1), need;

			need = ((double)strlen(hist_eng(all[i].edge[1], eb, sizeof(eb))) + 1) * 3 + 12;
			zx = 0.5 - (need / pxb > 1.1 ? need / pxb : 1.1);
			xlo = zx - 0.4;
		}
		fprintf(f, "set size %.4f, %.4f\nset origin %.4f, 0\n", 1.0 / nshown, ph,
			(double)col++ / nshown);
		fprintf(f, "set lmargin 11\nset rmargin 5\nset key outside below center horizontal "
			"maxcols 2 font \",8\" noopaque nobox\n");
		fprintf(f, "set xrange [%.2f:%d.5]\nset xtics nomirror font \",8\" (", xlo,
			all[i].nbins - 1);
		if (first)
			fprintf(f, "\"0\" %.2f%s", zx, nbo ? ", " : "");
		for (b = first; b <= all[i].nbins && nbo; b++)
			if ((b - first) % every == 0 || (b == all[i].nbins && every == 1))
				fprintf(f, "%s\"%s\" %.1f", b > first ? ", " : "",
					hist_eng(all[i].edge[b], eb, sizeof(eb)), b - 0.5);
		fprintf(f, ")\nset xlabel ");
		gp_str(f, p->hist_metrics[i].name);
		/* The bins in short (docs/report.md explains the choice). */
		snprintf(bb, sizeof(bb), "%s%d %s bins%s", first ? "zero bin + " : "", nbo,
			 all[i].scale == HIST_LOG ? "log-spaced" : "equal-width",
			 first ? " of the rest" : "");
		fprintf(f, "\nset title ");
		gp_str(f, bb);
		fprintf(f, " font \",8\"\nset ylabel \"fraction of windows\"\n"
			"set style fill solid 0.4\nset yrange [0:*]\n");
		/*
		 * A zero bin holding most windows would flatten the others: then the
		 * fractions go on a log axis down to the smallest one shown.
		 */
		for (b = 0; b < all[i].nbins; b++)
			if (all[i].bins[b] && (double)all[i].bins[b] / (double)all[i].n < ymin)
				ymin = (double)all[i].bins[b] / (double)all[i].n;
		if (all[i].zero_bin && all[i].zeros * 2 > all[i].n && ymin < 0.05)
			fprintf(f, "set logscale y\nset format y \"%%g\"\nset yrange [%.3g:1.5]\n"
				"set ylabel \"fraction of windows (log)\"\n", ymin / 2);
		/* column 1 is the bin's index: the zero bin (index 0) narrower */
		fprintf(f, "plot \"%s\" index %u using ($1 == 0 && %d ? %.2f : $1):4:($1 == 0 && %d ? "
			"0.3 : 0.9) with boxes lc rgb \"#1f77b4\" title \"all windows\"", hists, i,
			first, zx, first);
		for (k = 0; k < ntop && k < 3; k++) {
			char nb[64], fb[24];

			fprintf(f, ", \"%s\" index %u using ($1 >= %d ? $1 : NaN):%u with histeps lw 2 "
				"lc %u title ", hists, i, first, k + 5, k + 1);
			gp_str(f, fit(fb, sizeof(fb), profile_row_name(p, &p->rows[order[k]], nb,
								     sizeof(nb)), 18));
			if (first)
				fprintf(f, ", \"%s\" index %u using (%.2f):($1 == 0 ? $%u : NaN):(0.3) "
					"with boxes fs empty lw 2 lc %u notitle", hists, i, zx, k + 5, k + 1);
		}
		fprintf(f, "\nunset logscale y\nset format y\nset yrange [*:*]\nunset title\n");
	}
	fprintf(f, "unset multiplot\n");
	if (fclose(f))
		return -errno;
	return 0;
}

static int make_plot(struct plot_args *a)
{
	char dir[] = "/tmp/pmiprof-plot.XXXXXX", series[4200], hists[4200], script[4200];
	char gperr[4096];
	struct metric_set ms;
	struct plot_data d;
	struct session s;
	struct sort_key key = { .kind = SORT_SAMPLES };
	struct hist all[PLOT_MAX_METRICS];
	uint32_t *order = NULL, n = 0, ntop;
	uint64_t per_point = 1;
	bool tmpdir = false;
	struct stat st;
	int rc, status = 1;

	memset(&d, 0, sizeof(d));
	if (a->phases) {
		/* a pass of its own: the phases of the same windows */
		static struct phases_result pr;

		rc = session_open(&s, &a->so);
		if (rc)
			return 1;
		rc = phases_detect(&s, &a->po, &pr);
		if (!rc)
			rc = phases_names(&s, &pr, &a->phase_names[0][0], sizeof(a->phase_names[0]));
		session_close(&s);
		if (rc) {
			pm_err("%s: --phases: %s", a->so.input ? a->so.input : "pmiprof.data",
			       rc == -ENODATA ? "no windows" : strerror(-rc));
			phases_result_free(&pr);
			return 1;
		}
		a->pr = &pr;
	}
	if (session_open(&s, &a->so)) {
		if (a->pr)
			phases_result_free(a->pr);
		return 1;
	}
	rc = metrics_of(&s, a->metric, &ms);
	if (rc) {
		session_close(&s);
		return rc > 0 ? rc : 1;
	}
	rc = profile_init(&d.p, &s, BY_SYMBOL, ms.m, ms.n);
	s.reg.want_spans = (s.h->flags & PMIPROF_TRACE_F_REGIONS) != 0;
	if (!rc)
		rc = session_run(&s, plot_add_sample, &d);
	/* regions still open at the end: shaded up to the last sample */
	if (!rc)
		rc = regions_close_all(&s.reg, s.base_time + (uint64_t)((double)s.last_ns /
								    s.time_scale));
	if (rc) {
		pm_err("%s: %s", s.opts.input, strerror(-rc));
		goto out;
	}
	session_print_warnings(&s, pm_quiet);
	if (!d.n) {
		pm_err("%s: no samples to plot%s", s.opts.input,
		       d.p.win_left_out ? " (every window follows a loss or throttling)" :
		       s.samples ? " after the filters" : "");
		goto out;
	}
	order = profile_sorted(&d.p, &key, &n);
	if (!order) {
		pm_err("out of memory");
		goto out;
	}
	ntop = n < a->top ? n : (uint32_t)a->top;
	if (a->keep) {
		size_t len = strlen(a->output) - 4;	/* without the extension */

		snprintf(series, sizeof(series), "%.*s.series.dat", (int)len, a->output);
		snprintf(hists, sizeof(hists), "%.*s.hist.dat", (int)len, a->output);
		snprintf(script, sizeof(script), "%.*s.gp", (int)len, a->output);
	} else {
		if (!mkdtemp(dir)) {
			pm_err("cannot create a temporary directory: %s", strerror(errno));
			goto out;
		}
		tmpdir = true;
		snprintf(series, sizeof(series), "%s/series.dat", dir);
		snprintf(hists, sizeof(hists), "%s/hist.dat", dir);
		snprintf(script, sizeof(script), "%s/plot.gp", dir);
	}
	rc = write_series(series, &d, order, ntop, &per_point);
	if (!rc)
		rc = write_hists(hists, &d, order, ntop, all);
	if (!rc)
		rc = write_script(script, a, &d, order, ntop, series, hists, per_point, all);
	if (rc) {
		pm_err("writing the plot data: %s", strerror(-rc));
		goto out;
	}
	unlink(a->output);
	rc = gnuplot_run(script, NULL, gperr, sizeof(gperr));
	if (rc || stat(a->output, &st) || !st.st_size) {
		pm_err("gnuplot failed (status %d) to write %s%s%s", rc, a->output,
		       a->keep ? "; the script is " : "", a->keep ? script : "");
		gnuplot_print_errors(gperr);
		goto out;
	}
	pm_info("wrote %s (%" PRIu64 " windows%s, %u metric(s): %s%s)%s%s", a->output, d.n,
		d.p.win_left_out ? " (others after a loss or throttling left out)" : "", ms.n,
		ms.m[0].name, ms.n > 1 ? ", ..." : "", a->keep ? "; script: " : "",
		a->keep ? script : "");
	status = 0;
out:
	if (tmpdir) {
		unlink(series);
		unlink(hists);
		unlink(script);
		rmdir(dir);
	}
	free(order);
	free(d.t);
	profile_free(&d.p);
	session_close(&s);
	if (a->pr)
		phases_result_free(a->pr);
	return status;
}

/* ---- the region table of 'pmiprof stat --regions -o FILE' ---- */

#define STAT_CSV_HEAD	"region,calls,event,sum,mean,min,median,mode,p99,max"
#define STAT_MAX_ROWS	4096
#define STAT_MAX_MODES	4

struct stat_row {
	char region[128], event[64];
	double calls, v[5];		/* min, median, mode, p99, max */
	double modes[STAT_MAX_MODES];	/* the 'modes' column (every peak) */
	unsigned int nr_modes;
};

static bool is_stat_csv(const char *path)
{
	char line[128];
	FILE *f = fopen(path, "r");
	bool yes;

	if (!f)
		return false;
	yes = fgets(line, sizeof(line), f) && !strncmp(line, STAT_CSV_HEAD, strlen(STAT_CSV_HEAD));
	fclose(f);
	return yes;
}

/* One csv field (stat quotes names with commas or quotes, RFC 4180 style). */
static char *csv_field(char *p, char *out, size_t len)
{
	size_t n = 0;
	bool q = *p == '"';

	if (q)
		p++;
	for (; *p && *p != '\n'; p++) {
		if (q && *p == '"' && p[1] == '"') {
			p++;
		} else if (q && *p == '"') {
			q = false;
			continue;
		} else if (!q && *p == ',') {
			break;
		}
		if (n + 1 < len)
			out[n++] = *p;
	}
	out[n] = '\0';
	return *p == ',' ? p + 1 : p;
}

static int read_stat_csv(const char *path, struct stat_row **rows, uint32_t *n)
{
	char line[1024], num[64], mbuf[256];
	struct stat_row *r;
	FILE *f = fopen(path, "r");
	uint32_t lineno = 0;
	int k;

	*rows = NULL;
	*n = 0;
	if (!f)
		return -errno;
	r = calloc(STAT_MAX_ROWS, sizeof(*r));
	if (!r) {
		fclose(f);
		return -ENOMEM;
	}
	while (fgets(line, sizeof(line), f) && *n < STAT_MAX_ROWS) {
		char *p = line, *end;
		struct stat_row *row = &r[*n];

		if (lineno++ == 0 || line[0] == '#' || line[0] == '\n')
			continue;
		p = csv_field(p, row->region, sizeof(row->region));
		p = csv_field(p, num, sizeof(num));
		row->calls = strtod(num, &end);
		p = csv_field(p, row->event, sizeof(row->event));
		p = csv_field(p, num, sizeof(num));	/* sum */
		p = csv_field(p, num, sizeof(num));	/* mean */
		for (k = 0; k < 5; k++) {
			p = csv_field(p, num, sizeof(num));
			row->v[k] = strtod(num, &end);
			if (end == num)
				break;
		}
		if (k < 5) {
			pm_err("%s: line %u: not a 'pmiprof stat --regions' csv row", path, lineno);
			free(r);
			fclose(f);
			return -EINVAL;
		}
		/* modes: "a;b;..." (absent in older files: the mode alone) */
		p = csv_field(p, mbuf, sizeof(mbuf));
		for (end = mbuf; row->nr_modes < STAT_MAX_MODES && *end;) {
			char *q = end;
			double m = strtod(q, &end);

			if (end == q)
				break;
			row->modes[row->nr_modes++] = m;
			if (*end == ';')
				end++;
		}
		if (!row->nr_modes)
			row->modes[row->nr_modes++] = row->v[2];
		(*n)++;
	}
	fclose(f);
	*rows = r;
	return 0;
}

/*
 * Per-region distributions of a stat csv: a panel per event (at most
 * PLOT_MAX_METRICS), a candlestick per region: whiskers min..max, box
 * median..p99, a bar at the median and a point at every mode (a bimodal
 * snippet shows two); log scale when the values span more than two decades.
 */
static int plot_stat_csv(const struct plot_args *a)
{
	char dir[] = "/tmp/pmiprof-plot.XXXXXX", data[4200], script[4200], gperr[4096];
	const char *events[PLOT_MAX_METRICS];
	uint32_t nrows, ne = 0, i, e, nr;
	unsigned int k;
	struct stat_row *rows;
	struct stat st;
	FILE *f = NULL, *g = NULL;
	int rc, status = 1;

	rc = read_stat_csv(a->so.input ? a->so.input : "pmiprof.data", &rows, &nrows);
	if (rc) {
		if (rc != -EINVAL)
			pm_err("%s: %s", a->so.input, strerror(-rc));
		return 1;
	}
	for (i = 0; i < nrows && ne < PLOT_MAX_METRICS; i++) {
		for (e = 0; e < ne && strcmp(events[e], rows[i].event); e++)
			;
		if (e == ne)
			events[ne++] = rows[i].event;
	}
	if (!ne) {
		pm_err("%s: no region rows to plot", a->so.input);
		free(rows);
		return 1;
	}
	if (a->keep) {
		size_t len = strlen(a->output) - 4;

		snprintf(data, sizeof(data), "%.*s.regions.dat", (int)len, a->output);
		snprintf(script, sizeof(script), "%.*s.gp", (int)len, a->output);
	} else {
		if (!mkdtemp(dir)) {
			pm_err("cannot create a temporary directory: %s", strerror(errno));
			free(rows);
			return 1;
		}
		snprintf(data, sizeof(data), "%s/regions.dat", dir);
		snprintf(script, sizeof(script), "%s/plot.gp", dir);
	}
	f = fopen(data, "w");
	g = fopen(script, "w");
	if (!f || !g) {
		pm_err("writing the plot data: %s", strerror(errno));
		goto out;
	}
	fprintf(g, "# pmiprof plot of %s; rerun with: gnuplot %s\n", a->so.input, script);
	fprintf(g, "set terminal %s size %u,%u%s\nset output ", a->terminal,
		a->width ? a->width : 1000, a->height ? a->height : 320 * ne + 60,
		strcmp(a->terminal, "png") ? " font \"sans,10\"" : "");
	gp_str(g, a->output);
	fprintf(g, "\nset grid\nset key outside right top box opaque\nset multiplot layout %u,1 "
		"title ", ne);
	gp_str(g, a->title ? a->title : a->so.input);
	fprintf(g, " . \"\\nper-call distribution per region (pmiprof stat --regions): whiskers "
		"min..max, box median..p99\"\nset offsets 0, 0, graph 0.05, graph 0.05\n"
		"set style fill solid 0.3\nset boxwidth 0.5\n");
	for (e = 0; e < ne; e++) {
		double lo = 0, hi = 0;

		fprintf(f, "# %s\n", events[e]);
		for (i = 0, nr = 0; i < nrows; i++) {
			const struct stat_row *r = &rows[i];

			if (strcmp(r->event, events[e]))
				continue;
			fprintf(f, "%u %.17g %.17g %.17g %.17g %.17g \"%s (%.0f calls)\"", nr++,
				r->v[0], r->v[1], r->v[2], r->v[3], r->v[4], r->region, r->calls);
			for (k = 0; k < STAT_MAX_MODES; k++) {
				if (k < r->nr_modes)
					fprintf(f, " %.17g", r->modes[k]);
				else
					fprintf(f, " NaN");
			}
			fputc('\n', f);
			lo = !nr || (r->v[0] > 0 && (lo == 0 || r->v[0] < lo)) ? r->v[0] : lo;
			hi = r->v[4] > hi ? r->v[4] : hi;
		}
		fprintf(f, "\n\n");
		fprintf(g, "set xrange [-0.6:%u.6]\nset ylabel ", nr ? nr - 1 : 0);
		gp_str(g, events[e]);
		if (lo > 0 && hi / lo > 100)
			fprintf(g, "\nset logscale y\n");
		else
			fprintf(g, "\nunset logscale y\n");
		fprintf(g, "plot \"%s\" index %u using 1:3:2:6:5:xtic(7) with candlesticks "
			"whiskerbars lc rgb \"#1f77b4\" title \"min, median..p99, max\", "
			"\"\" index %u using 1:3:3:3:3 with candlesticks lt -1 lw 2 notitle, "
			"\"\" index %u using 1:8 with points pt 7 ps 1.2 lc rgb \"#d62728\" "
			"title \"modes\"", data, e, e, e);
		for (k = 1; k < STAT_MAX_MODES; k++)
			fprintf(g, ", \"\" index %u using 1:%u with points pt 7 ps 1.2 "
				"lc rgb \"#d62728\" notitle", e, 8 + k);
		fputc('\n', g);
	}
	fprintf(g, "unset multiplot\n");
	if (fclose(f) | fclose(g)) {
		f = g = NULL;
		pm_err("writing the plot data: %s", strerror(errno));
		goto out;
	}
	f = g = NULL;
	unlink(a->output);
	rc = gnuplot_run(script, NULL, gperr, sizeof(gperr));
	if (rc || stat(a->output, &st) || !st.st_size) {
		pm_err("gnuplot failed (status %d) to write %s", rc, a->output);
		gnuplot_print_errors(gperr);
		goto out;
	}
	pm_info("wrote %s (per-region distributions of %u event(s) from %s)", a->output, ne,
		a->so.input);
	status = 0;
out:
	if (f)
		fclose(f);
	if (g)
		fclose(g);
	if (!a->keep) {
		unlink(data);
		unlink(script);
		rmdir(dir);
	}
	free(rows);
	return status;
}

int cmd_plot(int argc, char **argv)
{
	struct plot_args a;
	int rc;

	memset(&a, 0, sizeof(a));
	rc = parse_args(&a, argc, argv);
	if (rc < 0) {
		session_opts_free(&a.so);
		return command_help("plot");
	}
	if (!rc && !gnuplot_found()) {
		pm_err("gnuplot is not installed: install the Debian package gnuplot-nox "
		       "(apt-get install gnuplot-nox), or run 'make deps'");
		rc = 1;
	}
	if (!rc) {
		a.terminal = gnuplot_terminal(a.output);
		/* a region table of 'pmiprof stat --regions -o FILE' instead of a trace */
		rc = a.so.input && is_stat_csv(a.so.input) ? plot_stat_csv(&a) : make_plot(&a);
	}
	session_opts_free(&a.so);
	return rc;
}
