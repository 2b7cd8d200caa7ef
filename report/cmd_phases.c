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

/* ---- pmiprof phases ---- */


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
			json_str(stdout, phases_fn_name(s, r, fn));
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

			printf("%s %s %.1f%%", i ? "," : "", phases_fn_name(s, r, fn),
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
		rc = ps ? phases_summarize(&r, (uint32_t)a->top, ps) : -ENOMEM;
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
	phases_summary_free(ps, r.c.k);
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
