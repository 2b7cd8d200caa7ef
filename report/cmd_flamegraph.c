// SPDX-License-Identifier: GPL-2.0
/*
 * `pmiprof flamegraph`: an interactive SVG flame graph of a trace's call
 * stacks, written by pmiprof itself (Debian ships no flame graph tool).
 * Option parsing and the choice of colour; the tree is stack_export.c's,
 * the drawing flamegraph.c's.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "output/flamegraph.h"
#include "output/format.h"
#include "analysis/metrics.h"
#include "input/session.h"
#include "stacks/callstack.h"
#include "output/stack_export.h"
#include "util.h"

const char cmd_flamegraph_summary[] = "Interactive SVG flame graph of the call stacks";

const char cmd_flamegraph_help[] =
"NAME\n"
"    pmiprof flamegraph - interactive SVG flame graph of a trace's call stacks\n"
"\n"
"SYNOPSIS\n"
"    pmiprof flamegraph [-i FILE] [-o OUT.svg] [--value EVENT]\n"
"                       [--color-by dso|ipc|EVENT-rate|METRIC] [--title T]\n"
"                       [--width PX] [FILTERS]\n"
"\n"
"DESCRIPTION\n"
"    Draws the call stacks of a trace recorded with 'pmiprof record -g' (or\n"
"    --call-graph dwarf) as a flame graph in the manner of flamegraph.pl: one\n"
"    box per frame, callers below callees, stacks merged by function name,\n"
"    widths proportional to the samples (or to an event's sum, --value).\n"
"    The SVG is self-contained: open it in a browser.  Hover shows a frame's\n"
"    counts and shares, click zooms into it (Reset Zoom, or Escape, goes\n"
"    back), Search (or Ctrl-F) highlights the frames matching a regular\n"
"    expression and shows their share of the total.  OUT.svg?s=REGEX and\n"
"    ?zoom=ID open with a search or zoom applied.  The picture is as tall as\n"
"    its frames of 1% of the total or more, plus 6 rows: a thinner tower\n"
"    (deep stacks cut at the maximum depth: [truncated]) is folded above\n"
"    that into one '[+N frames]' frame naming its deepest leaf.\n"
"\n"
"    Colour shows a per-frame metric of the windows whose stacks pass\n"
"    through the frame (the frame's inclusive windows): ipc (instructions /\n"
"    cycles, red low, blue high), EVENT-rate (EVENT per 1000 instructions,\n"
"    red high) or any derived metric of 'pmiprof report' (EVENT-mpki,\n"
"    branch-miss-pct).  The default is ipc when the trace has instructions\n"
"    and cycles, else a hue per DSO.  A legend gives the scale.\n"
"\n"
"OPTIONS\n"
"    -i, --input FILE    trace to read (default: pmiprof.data)\n"
"    -o, --output FILE   SVG to write (default: flamegraph.svg; - = stdout)\n"
"    --value EVENT       widths by the sum of EVENT's counts (default samples)\n"
"    --color-by KEY      dso, ipc, EVENT-rate or a derived metric\n"
"    --title TEXT        the title (default: Flame Graph and the command)\n"
"    --width PX          image width (default 1200)\n"
"    --inline            inlined functions as frames of their own\n"
"    -q, --quiet         no warnings about symbols\n"
"\n"
"FILTERS\n"
"    --pid, --tid, --comm, --dso, --symbol, --time, --window: as 'pmiprof\n"
"    report'; they select samples (by their leaf), whole stacks are drawn.\n"
"\n"
"SYMBOL LOOKUP\n"
SESSION_LOOKUP_HELP
"\n"
"EXAMPLES\n"
"    pmiprof record -g -e cycles,instructions -- ./app\n"
"    pmiprof flamegraph -o app.svg\n"
"    pmiprof flamegraph --value cache-misses --color-by cache-misses-rate\n"
"\n"
"EXIT STATUS\n"
"    0 success, 1 unreadable trace, a trace without call stacks or another\n"
"    error, 2 usage error.\n"
"\n"
"SEE ALSO\n"
"    pmiprof report (--format folded, --format pprof), docs/report.md\n";

enum { OPT_VALUE = 0x2100, OPT_COLOR_BY, OPT_TITLE, OPT_WIDTH, OPT_INLINE };

static const struct option long_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "value", required_argument, NULL, OPT_VALUE },
	{ "color-by", required_argument, NULL, OPT_COLOR_BY },
	{ "colour-by", required_argument, NULL, OPT_COLOR_BY },
	{ "title", required_argument, NULL, OPT_TITLE },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ "inline", no_argument, NULL, OPT_INLINE },
	{ "help", no_argument, NULL, 'h' },
	SESSION_FILTER_OPTIONS,
	{ NULL, 0, NULL, 0 }
};

struct fg_args {
	struct session_opts so;
	const char *output, *value, *color_by, *title;
	uint64_t width;
};

static int parse_args(struct fg_args *a, int argc, char **argv)
{
	int c, rc;

	a->width = 1200;
	a->output = "flamegraph.svg";
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:o:qh", long_opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			a->output = optarg;
			break;
		case OPT_VALUE:
			a->value = optarg;
			break;
		case OPT_COLOR_BY:
			a->color_by = optarg;
			break;
		case OPT_TITLE:
			a->title = optarg;
			break;
		case OPT_WIDTH:
			if (pm_parse_u64(optarg, 200, 100000, &a->width))
				return pm_usage_error("flamegraph", "--width '%s': expected 200..100000",
						      optarg);
			break;
		case OPT_INLINE:
			a->so.sym.inline_frames = true;
			break;
		case 'h':
			return -1;
		case ':':
			return pm_usage_error("flamegraph", "option '%s' needs a value",
					      argv[optind - 1]);
		case '?':
			return pm_usage_error("flamegraph", "unknown option '%s'", argv[optind - 1]);
		default:
			rc = session_filter_option(&a->so, c, optarg, "flamegraph");
			if (rc)
				return rc;
			break;
		}
	}
	if (optind < argc)
		return pm_usage_error("flamegraph", "unexpected argument '%s' (the trace is "
				      "given with -i FILE)", argv[optind]);
	return 0;
}

static const char *dso_name(void *arg, uint32_t dso)
{
	const struct session *s = arg;

	return symbolizer_dso_info(s->sy, dso)->name;
}

/* --color-by: 0 with *o filled, or an exit status. */
static int color_of(const struct session *s, const char *key, struct metric *m,
		    struct fg_opts *o)
{
	const char *why = NULL;
	struct event_roles r;

	if (key && !strcmp(key, "dso")) {
		o->color = FG_COLOR_DSO;
		return 0;
	}
	if (!key) {
		if (metric_parse(s->h, "ipc", m, &why)) {
			o->color = FG_COLOR_DSO;
			return 0;
		}
		key = "ipc";
	} else if (metric_parse(s->h, key, m, &why) || m->kind == METRIC_EVENT || m->b < 0) {
		pm_usage_error("flamegraph", "--color-by '%s': %s", key,
			       why ? why : "expected dso, ipc, EVENT-rate or a derived metric "
			       "of this trace");
		return EXIT_USAGE;
	}
	o->color = FG_COLOR_RATIO;
	o->metric_name = m->name;
	o->metric_scale = m->kind == METRIC_RATIO ? 1 : m->kind == METRIC_PER_KILO ? 1000 :
			  m->kind == METRIC_PERCENT ? 100 : 1e9;
	event_roles_find(s->h, &r);
	/* Instructions per cycle: more is better; misses and other rates: less is. */
	o->high_is_good = m->a == r.instructions && m->b == r.cycles;
	return 0;
}

int cmd_flamegraph(int argc, char **argv)
{
	struct fg_args a;
	struct session s;
	struct stack_agg agg;
	struct stree t;
	struct metric m;
	struct fg_opts fo = { 0 };
	char title[300], sub[600], kind[128];
	FILE *out = stdout;
	int rc, ve, status = 1;

	memset(&a, 0, sizeof(a));
	rc = parse_args(&a, argc, argv);
	if (rc) {
		session_opts_free(&a.so);
		return rc < 0 ? command_help("flamegraph") : rc;
	}
	a.so.stacks = &callstack_hooks;
	rc = session_open(&s, &a.so);
	if (rc) {
		if (rc == -ENOMEM)
			pm_err("out of memory");
		session_opts_free(&a.so);
		return 1;
	}
	if (stack_require(&s, "flamegraph"))
		goto close;
	ve = stack_value_event(&s, a.value, "flamegraph");
	if (ve == -2) {
		status = EXIT_USAGE;
		goto close;
	}
	status = color_of(&s, a.color_by, &m, &fo);
	if (status)
		goto close;
	status = 1;
	stack_agg_init(&agg, &s);
	rc = session_run(&s, stack_agg_sample, &agg);
	if (!rc)
		rc = stack_agg_tree(&agg, ve, fo.color == FG_COLOR_RATIO ? &m : NULL, &t);
	stack_agg_free(&agg);
	if (rc) {
		pm_err("%s: %s", s.opts.input, strerror(-rc));
		goto close;
	}
	if (!t.nodes[0].total.samples) {
		pm_err("flamegraph: no samples in %s passed the filters", s.opts.input);
		stree_free(&t);
		goto close;
	}
	if (!a.title) {
		snprintf(title, sizeof(title), "Flame Graph%s%.200s", s.h->cmdline[0] ? ": " : "",
			 s.h->cmdline);
		a.title = title;
	}
	snprintf(sub, sizeof(sub), "%" PRIu64 " samples, %s, widths: %s, %s stacks",
		 t.nodes[0].total.samples, window_kind(&s, kind, sizeof(kind)),
		 ve < 0 ? "samples" : s.h->events[ve].name,
		 s.h->call_graph == PMIPROF_CALL_GRAPH_DWARF ? "dwarf" : "frame-pointer");
	fo.title = a.title;
	fo.subtitle = sub;
	fo.width = (uint32_t)a.width;
	fo.value_name = ve < 0 ? "samples" : s.h->events[ve].name;
	fo.tag_name = dso_name;
	fo.tag_arg = &s;
	if (strcmp(a.output, "-")) {
		out = fopen(a.output, "w");
		if (!out) {
			pm_err("%s: %s", a.output, strerror(errno));
			stree_free(&t);
			goto close;
		}
	}
	rc = flamegraph_write(out, &t, &fo);
	if (out != stdout) {
		if (fclose(out) && !rc)
			rc = -errno;
	} else if (fflush(out) && !rc) {
		rc = -EIO;
	}
	stree_free(&t);
	if (rc) {
		pm_err("%s: %s", a.output, strerror(-rc));
		goto close;
	}
	status = 0;
	session_print_warnings(&s, pm_quiet);
close:
	session_close(&s);
	session_opts_free(&a.so);
	return status;
}
