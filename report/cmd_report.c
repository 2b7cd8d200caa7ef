// SPDX-License-Identifier: GPL-2.0
/*
 * `pmiprof report`: the flat profile (default), per-window rows
 * (--windows) and histograms (--hist) of a trace.  Option parsing and
 * orchestration only; the work is in session.c, profile.c and the
 * *_output.c files.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "output/flat_output.h"
#include "analysis/metrics.h"
#include "analysis/parallel.h"
#include "analysis/phases.h"
#include "analysis/profile.h"
#include "input/session.h"
#include "stacks/callstack.h"
#include "output/stack_export.h"
#include "output/stackview.h"
#include "output/html.h"
#include "util.h"
#include "output/windows.h"

const char cmd_report_summary[] = "Symbolized flat profile, per-window table, histograms";

const char cmd_report_help[] =
"NAME\n"
"    pmiprof report - symbolized flat profile, per-window rows and histograms\n"
"\n"
"SYNOPSIS\n"
"    pmiprof report [-i FILE] [--by symbol|dso|pid|tid|comm|region] [--sort KEY]\n"
"                   [--format table|csv|json] [--limit N] [--hist] [--srcline]\n"
"                   [--inline] [--no-demangle] [--width N] [FILTERS]\n"
"    pmiprof report --windows [-i FILE] [--format ...] [--limit N] [FILTERS]\n"
"    pmiprof report --phase K [--phase-interval M] [--phase-max-k N] [...]\n"
"    pmiprof report --format folded|pprof [--value EVENT] [-o FILE] [FILTERS]\n"
"    pmiprof report --html [-o FILE] [--html-buckets N] [FILTERS]\n"
"    pmiprof report --children | --tree [--percent-limit P] | --callers SYM |\n"
"                   --callees SYM  [-i FILE] [--format ...] [FILTERS]\n"
"\n"
"DESCRIPTION\n"
"    Reads a trace written by 'pmiprof record' and prints, per function (or\n"
"    DSO, pid, tid, comm): the number of samples, their share with a 95%\n"
"    confidence interval (Wilson score), and for every recorded event the sum\n"
"    of the window counts attributed to it, plus derived metrics when their\n"
"    events were recorded: ipc (instructions/cycles), <event>-mpki (misses per\n"
"    1000 instructions, for every *miss* event) and branch-miss-pct.\n"
"\n"
"    Attribution rule: each window's counts go to the function whose sample\n"
"    closes the window (the IP at the end of the window).  The header states\n"
"    it, with the trigger event and period, the events, the backend, whether\n"
"    windows are time-based (no hardware PMU) or come from an EMULATED PMU,\n"
"    the duration, the sample and lost counts, how often and how long the\n"
"    kernel throttled sampling (throttling loses no recorded sample, so it is\n"
"    not counted as lost), and whether the recording did not finish (no\n"
"    FINISH record: recorder killed), was interrupted or stopped on an error.\n"
"\n"
"    Windows whose counts span unrecorded periods (after a loss or throttling\n"
"    on their CPU, or stretched by storm throttling) count in the profile,\n"
"    since their IP is real, but are left out of per-window statistics\n"
"    (--hist, plot); --windows marks them and the header says how many.\n"
"\n"
"    Symbols come from the binaries named by the trace's MMAP records\n"
"    (elfutils libdwfl): .symtab, .dynsym, or separate debug info (by\n"
"    build-id under /usr/lib/debug/.build-id, .gnu_debuglink, MiniDebugInfo,\n"
"    debuginfod when DEBUGINFOD_URLS is set).  Only files of the recorded\n"
"    build-id are used: a name is printed only when it is known.  Other\n"
"    addresses are counted as [unknown] 0xADDR rows (stripped code: one per\n"
"    function of its unwind table, with the nearest symbol as <name+0xOFF>;\n"
"    a missing file: one per file offset), with one warning per reason.\n"
"    A trace from another machine finds its files by build-id in an archive\n"
"    made there by 'pmiprof archive' (--archive, or extracted into\n"
"    ~/.pmiprof/debug), or under a copy of its root (--symfs).  Kernel\n"
"    addresses use /proc/kallsyms when the trace has kernel IPs and was\n"
"    recorded during this boot, else the recording boot's kallsyms (archive,\n"
"    --kallsyms): never another kernel's names, [unknown] with a note\n"
"    instead.  JIT code in anonymous memory (//anon, [anon:*], /memfd:*)\n"
"    uses /tmp/perf-PID.map (perf's convention, 'START SIZE NAME' in hex).\n"
"    The idle task (pid 0) is shown as swapper.\n"
"\n"
"OPTIONS\n"
"    -i, --input FILE    trace to read (default: pmiprof.data; - = stdin)\n"
"    --by KEY            group rows by symbol (default), dso, pid, tid, comm or\n"
"                        region: the innermost code region open on the\n"
"                        window's thread when its sample was taken (markers of\n"
"                        libpmiprof-region, docs/regions.md), [no region] for\n"
"                        windows outside any\n"
"    -s, --sort KEY      order rows by samples (default), an event name, a\n"
"                        derived metric name (ipc, ...), or name.  perf's\n"
"                        keys too, several with commas: sym/symbol, dso\n"
"                        (= --by dso), dso,sym (the symbol rows), comm, pid,\n"
"                        tid (= --by), srcline (= --srcline), overhead\n"
"                        (= samples)\n"
"    --stdio             accepted for perf users: text is the default\n"
"    --header-only       print the table's header lines only\n"
"    --percent-limit P   hide rows under P% of the samples (and with --tree\n"
"                        paths: default 0.5 there)\n"
"    --no-children       the flat profile (perf's; cancels --children)\n"
"    -f, --format FMT    table (default), csv or json.  The CSV header starts\n"
"                        samples,percent,symbol,dso then one column per event\n"
"                        and per derived metric, then ci95_low,ci95_high.\n"
"                        JSON strings are valid UTF-8: other bytes become\n"
"                        U+FFFD, control characters are escaped.  With call\n"
"                        stacks (record -g): folded = Brendan Gregg's folded\n"
"                        stacks, 'root;...;leaf COUNT' per line, for\n"
"                        flamegraph.pl and compatible viewers; pprof = a\n"
"                        gzip'd pprof profile (-o FILE.pb.gz) for 'go tool\n"
"                        pprof' and its readers: every event a sample type,\n"
"                        one sample per window (numeric label 'window')\n"
"    --value EVENT       folded: COUNT is the sum of EVENT (default samples);\n"
"                        pprof: the sample type shown by default\n"
"    -o, --output FILE   folded/pprof output file (folded: default stdout)\n"
"    -n, --limit N       print at most N rows (windows with --windows: reading\n"
"                        stops there, so the trace's totals are not counted)\n"
"    -w, --windows       one row per window: index, time_ns, cpu, pid, tid,\n"
"                        comm, symbol, dso, every event, derived metrics,\n"
"                        throttled, after_loss (the table marks those rows\n"
"                        \"(throttled)\" / \"(after loss)\"), and region when\n"
"                        the trace has code regions.  Rows stream:\n"
"                        the table describes the trace first and gives the\n"
"                        counts read (duration, samples, losses) after them\n"
"    --hist              after the table: distribution of each derived metric\n"
"                        per window (of each event when there is none), and\n"
"                        the distribution over the windows each of the top 5\n"
"                        functions closes.  Bins show the mass: a bin of\n"
"                        zeros when >= 5% of windows are 0, then bins over\n"
"                        p0.5..p99.5 of the rest, Freedman-Diaconis count,\n"
"                        log-spaced over two decades or more.  With --format\n"
"                        csv: the histograms alone, one line per bin\n"
"                        (metric,rows,name,bin,kind,lo,hi,clipped,windows,\n"
"                        fraction); json: under \"histograms\"\n"
"    --hist-metric LIST  what --hist shows: ipc, <event>, <event>-rate, ...\n"
"    --srcline           one row per source line (file:line); also --sort\n"
"                        srcline, as perf users type it (pmiprof annotate\n"
"                        --by line: the lines of one function)\n"
"    --inline            inlined functions: in call stacks frames of their own,\n"
"                        in the flat profile \"inner (inlined in outer)\"\n"
"    --no-demangle       show C++ names as the symbol table has them (mangled)\n"
"    --width N           table width in columns (default: the terminal's, from\n"
"                        COLUMNS or the tty; no limit when stdout is not a\n"
"                        terminal).  Names are cut (marked '+') only where\n"
"                        the cut stays unique among the rows\n"
"    -q, --quiet         no warnings about symbols\n"
"\n"
"HTML PAGE\n"
"    --html              write one self-contained page (-o FILE, default\n"
"                        report.html; - = stdout) that opens offline: a\n"
"                        timeline of every per-window metric, and for a range\n"
"                        selected on it the flat profile and the flame graph\n"
"                        (docs/html.md).  A range is whole time buckets and\n"
"                        its numbers equal --time A,B for the range's bounds\n"
"    --html-buckets N    at most N time buckets (default 1000)\n"
"\n"
"CALL STACKS (traces recorded with 'pmiprof record -g' or --call-graph dwarf)\n"
"    --children          perf-style inclusive profile: children = share of\n"
"                        samples whose stack contains the function (once per\n"
"                        sample, also when it recurses), self = samples closed\n"
"                        in it; event columns are inclusive sums.  Sorted by\n"
"                        children (--sort self|EVENT|name).  CSV: samples,\n"
"                        percent,symbol,dso,children,self,children_samples,\n"
"                        EVENT...(inclusive), self_EVENT..., metrics, dso_path\n"
"    -G, --tree          caller -> callee tree with the share of samples\n"
"                        through each path\n"
"    --percent-limit P   --tree: hide paths below P% of samples (default 0.5);\n"
"                        the flat profile: rows below P% (none by default)\n"
"    --callers SYM       who calls SYM (a glob), with shares of SYM's samples\n"
"    --callees SYM       what SYM calls, and [self]\n"
"    --no-leaf-fixup     fp stacks as recorded: do not restore the caller of a\n"
"                        leaf function that set up no frame (docs/report.md)\n"
"    The header says what share of stacks reached a root (_start, main, a\n"
"    thread start); the others end in a [truncated] frame.  --windows --format\n"
"    csv|json gains a stack column (root;...;leaf) when the trace has stacks.\n"
"\n"
"PHASES\n"
"    --phase K           the flat profile of program phase K (1-based), as\n"
"                        'pmiprof phases' numbers them for the same trace,\n"
"                        filters and options (docs/phases.md)\n"
"    --phase-interval M, --phase-max-k N\n"
"                        phases' --interval and --max-k\n"
"\n"
"FILTERS (all combine; lists are comma-separated; patterns are globs)\n"
"    --pid LIST, --tid LIST        only these processes / threads (-1: samples the\n"
"                                  kernel gave no task, -a on exit paths)\n"
"    --comm LIST                   only these thread names\n"
"    --dso LIST                    only these DSOs (basename or path)\n"
"    --symbol LIST                 only these functions (a C++ name matches\n"
"                                  with or without its parameter list)\n"
"    --time START,END              seconds since the start of the recording\n"
"                                  (units s, ms, us, ns; either side may be empty)\n"
"    --window A-B                  window indexes A to B inclusive (A-, -B, A)\n"
"    --region NAME                 windows taken inside code region NAME (also\n"
"                                  inside regions nested in it)\n"
"    --no-summaries                decode every sample even where the trace has\n"
"                                  chunk summaries (same results, slower)\n"
"\n"
"SYMBOL LOOKUP\n"
SESSION_LOOKUP_HELP
"\n"
"EXAMPLES\n"
"    pmiprof report\n"
"    pmiprof report -i run.data --sort cache-misses --limit 20\n"
"    pmiprof report --by dso --format csv > dsos.csv\n"
"    pmiprof report --windows --symbol 'work_*' --time 1,2 --format csv\n"
"    pmiprof report --hist\n"
"    pmiprof report --children --comm app --limit 20\n"
"    pmiprof report --tree --percent-limit 2\n"
"    pmiprof report --callers memcpy\n"
"    pmiprof report -i guest.data --archive guest.data.tar.gz\n"
"    pmiprof report -i target.data --symfs /srv/target-rootfs\n"
"\n"
"ENVIRONMENT\n"
"    PMIPROF_JOBS=1  one thread (large traces otherwise use more: the flat\n"
"                    profile decodes chunk ranges in parallel, --windows CSV\n"
"                    is formatted and written by writer threads; same output)\n"
"\n"
"EXIT STATUS\n"
"    0 success (damaged traces, and recordings that did not finish, were\n"
"    interrupted or stopped on an error, are reported as far as readable,\n"
"    with a warning on stderr and in the header), 1 unreadable trace or\n"
"    other error, 2 usage error.\n"
"\n"
"SEE ALSO\n"
"    pmiprof plot, pmiprof dump, pmiprof archive, docs/report.md\n";

enum {
	OPT_BY = 0x2000, OPT_HIST, OPT_HIST_METRIC, OPT_SRCLINE, OPT_INLINE, OPT_WIDTH,
	OPT_NO_DEMANGLE, OPT_CHILDREN, OPT_PERCENT_LIMIT, OPT_CALLERS, OPT_CALLEES,
	OPT_NO_LEAF_FIXUP, OPT_VALUE, OPT_NO_SUMMARIES, OPT_PHASE, OPT_PHASE_INTERVAL,
	OPT_PHASE_MAX_K, OPT_HTML, OPT_HTML_BUCKETS, OPT_STDIO, OPT_NO_CHILDREN,
	OPT_HEADER_ONLY,
};

static const struct option long_opts[] = {
	{ "by", required_argument, NULL, OPT_BY },
	{ "sort", required_argument, NULL, 's' },
	{ "format", required_argument, NULL, 'f' },
	{ "limit", required_argument, NULL, 'n' },
	{ "windows", no_argument, NULL, 'w' },
	{ "hist", no_argument, NULL, OPT_HIST },
	{ "hist-metric", required_argument, NULL, OPT_HIST_METRIC },
	{ "srcline", no_argument, NULL, OPT_SRCLINE },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "inline", no_argument, NULL, OPT_INLINE },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ "value", required_argument, NULL, OPT_VALUE },
	{ "output", required_argument, NULL, 'o' },
	{ "children", no_argument, NULL, OPT_CHILDREN },
	{ "no-children", no_argument, NULL, OPT_NO_CHILDREN },
	{ "stdio", no_argument, NULL, OPT_STDIO },
	{ "header-only", no_argument, NULL, OPT_HEADER_ONLY },
	{ "tree", no_argument, NULL, 'G' },
	{ "percent-limit", required_argument, NULL, OPT_PERCENT_LIMIT },
	{ "callers", required_argument, NULL, OPT_CALLERS },
	{ "callees", required_argument, NULL, OPT_CALLEES },
	{ "no-leaf-fixup", no_argument, NULL, OPT_NO_LEAF_FIXUP },
	{ "no-summaries", no_argument, NULL, OPT_NO_SUMMARIES },
	{ "phase", required_argument, NULL, OPT_PHASE },
	{ "phase-interval", required_argument, NULL, OPT_PHASE_INTERVAL },
	{ "phase-max-k", required_argument, NULL, OPT_PHASE_MAX_K },
	{ "html", no_argument, NULL, OPT_HTML },
	{ "html-buckets", required_argument, NULL, OPT_HTML_BUCKETS },
	{ "help", no_argument, NULL, 'h' },
	SESSION_FILTER_OPTIONS,
	{ NULL, 0, NULL, 0 }
};

struct report_args {
	struct session_opts so;
	enum group_by by;
	const char *sort;
	enum out_format format;
	uint64_t limit;
	bool windows, hist;
	const char *hist_metric;
	uint64_t width;
	const char *stack_format, *value, *output;	/* folded/pprof (stack_export.c) */
	/* call-stack views */
	bool stack_view;
	enum sv_kind view;
	const char *view_sym;
	double percent_limit;
	bool percent_limit_given;	/* the flat profile applies it only then */
	bool by_given;			/* --by (or a --sort grouping key) */
	bool header_only;		/* --header-only */
	char sort_buf[128];		/* --sort's order key (parse_sort_keys) */
	uint64_t phase;			/* --phase K, 0 = none */
	struct phases_opts po;
	bool html;			/* --html (html.c) */
	uint64_t html_buckets;
};

/*
 * --sort as perf users type it: a comma list of perf's keys (sym/symbol,
 * dso, comm, pid, tid, srcline, overhead) mapped onto --by and the order,
 * with at most one of pmiprof's own order keys (samples, name, an event or
 * a metric, resolved against the trace later).  dso,sym is the symbol rows
 * (each row shows its DSO).
 */
static int parse_sort_keys(struct report_args *a, const char *list)
{
	static const struct { const char *key; enum group_by by; } groups[] = {
		{ "sym", BY_SYMBOL }, { "symbol", BY_SYMBOL }, { "dso", BY_DSO },
		{ "comm", BY_COMM }, { "pid", BY_PID }, { "tid", BY_TID },
	};
	static const char accepted[] = "perf's sym, symbol, dso, comm, pid, tid, "
		"srcline, overhead (several with commas: dso,sym), or one of samples, "
		"name, an event or a metric of the trace";
	unsigned int seen = 0;	/* 1 << group_by of the grouping keys given */
	bool known = false;
	char copy[sizeof(a->sort_buf)], *tok, *save = NULL;
	size_t i;

	if (!*list || strlen(list) >= sizeof(copy))
		return pm_usage_error("report", "--sort '%s': accepted keys: %s", list, accepted);
	strcpy(copy, list);
	a->sort = NULL;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < ARRAY_SIZE(groups) && strcmp(groups[i].key, tok); i++)
			;
		if (i < ARRAY_SIZE(groups)) {
			seen |= 1u << groups[i].by;
		} else if (!strcmp(tok, "srcline")) {
			/* perf's "--sort srcline": rows per source line, by samples */
			a->so.sym.srcline = true;
		} else if (!strcmp(tok, "overhead")) {
			known = true;	/* perf's share of samples: the default order */
		} else if (a->sort) {
			return pm_usage_error("report", "--sort '%s': one order key at most "
					      "('%s' and '%s'); accepted: %s", list, a->sort,
					      tok, accepted);
		} else {
			strcpy(a->sort_buf, tok);
			a->sort = a->sort_buf;	/* checked against the trace later */
		}
	}
	if (!seen && !known && !a->sort && !a->so.sym.srcline)
		return pm_usage_error("report", "--sort '%s': accepted keys: %s", list, accepted);
	/* dso,sym: the symbol rows, each with its DSO */
	if (seen & (1u << BY_SYMBOL))
		seen &= ~(1u << BY_DSO);
	if (seen & (seen - 1))
		return pm_usage_error("report", "--sort '%s': rows are grouped by one key "
				      "(dso,sym is the symbol rows): give one of sym, dso, comm, "
				      "pid, tid", list);
	for (i = 0; i < ARRAY_SIZE(groups); i++)
		if (seen == 1u << groups[i].by && groups[i].by != BY_SYMBOL) {
			if (a->by_given && a->by != groups[i].by)
				return pm_usage_error("report", "--sort '%s' and --by group rows "
						      "differently: give one", list);
			a->by = groups[i].by;
			a->by_given = true;
		}
	return 0;
}

static int parse_args(struct report_args *a, int argc, char **argv)
{
	static const char *const bys[] = { "symbol", "dso", "pid", "tid", "comm", "region" };
	int c, rc;
	size_t i;

	a->width = 0;	/* table_width(): the terminal's, or no limit */
	a->percent_limit = 0.5;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:s:f:n:o:wqhG", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_CHILDREN:
		case 'G':
		case OPT_CALLERS:
		case OPT_CALLEES:
			if (a->stack_view)
				return pm_usage_error("report", "--children, --tree, --callers and "
						      "--callees are different views: give one");
			a->stack_view = true;
			a->view = c == OPT_CHILDREN ? SV_CHILDREN : c == 'G' ? SV_TREE :
				  c == OPT_CALLERS ? SV_CALLERS : SV_CALLEES;
			a->view_sym = optarg;
			break;
		case OPT_NO_CHILDREN:
			/* perf's flat profile; cancels an earlier --children */
			if (a->stack_view && a->view == SV_CHILDREN)
				a->stack_view = false;
			break;
		case OPT_STDIO:
			break;	/* perf's text UI: the default here */
		case OPT_HEADER_ONLY:
			a->header_only = true;
			break;
		case OPT_PERCENT_LIMIT: {
			char *end;

			a->percent_limit = strtod(optarg, &end);
			if (end == optarg || *end || a->percent_limit < 0 || a->percent_limit > 100)
				return pm_usage_error("report", "--percent-limit '%s': expected a "
						      "percentage 0..100", optarg);
			a->percent_limit_given = true;
			break;
		}
		case OPT_NO_LEAF_FIXUP:
			a->so.no_leaf_fixup = true;
			break;
		case OPT_NO_SUMMARIES:
			a->so.no_summaries = true;
			break;
		case OPT_PHASE:
			if (pm_parse_u64(optarg, 1, PHASES_MAX_K, &a->phase))
				return pm_usage_error("report", "--phase '%s': expected a phase "
						      "number 1..%d", optarg, PHASES_MAX_K);
			break;
		case OPT_PHASE_INTERVAL:
			if (pm_parse_u64(optarg, 1, UINT32_MAX, &a->po.interval))
				return pm_usage_error("report", "--phase-interval '%s': expected a "
						      "number of windows >= 1", optarg);
			break;
		case OPT_PHASE_MAX_K: {
			uint64_t v;

			if (pm_parse_u64(optarg, 1, PHASES_MAX_K, &v))
				return pm_usage_error("report", "--phase-max-k '%s': expected 1..%d",
						      optarg, PHASES_MAX_K);
			a->po.max_k = (uint32_t)v;
			break;
		}
		case OPT_HTML:
			a->html = true;
			break;
		case OPT_HTML_BUCKETS:
			if (pm_parse_u64(optarg, 10, 100000, &a->html_buckets))
				return pm_usage_error("report", "--html-buckets '%s': expected "
						      "10..100000", optarg);
			break;
		case OPT_BY:
			for (i = 0; i < ARRAY_SIZE(bys) && strcmp(bys[i], optarg); i++)
				;
			if (i == ARRAY_SIZE(bys))
				return pm_usage_error("report", "--by '%s': expected symbol, dso, "
						      "pid, tid, comm or region", optarg);
			if (a->by_given && a->by != (enum group_by)i)
				return pm_usage_error("report", "--by '%s' and --sort group rows "
						      "differently: give one", optarg);
			a->by = (enum group_by)i;
			a->by_given = true;
			break;
		case 's':
			rc = parse_sort_keys(a, optarg);
			if (rc)
				return rc;
			break;
		case 'f':
			if (!strcmp(optarg, "folded") || !strcmp(optarg, "pprof"))
				a->stack_format = optarg;
			else if (parse_format(optarg, &a->format))
				return pm_usage_error("report", "--format '%s': expected table, csv, "
						      "json, folded or pprof", optarg);
			break;
		case OPT_VALUE:
			a->value = optarg;
			break;
		case 'o':
			a->output = optarg;
			break;
		case 'n':
			if (pm_parse_u64(optarg, 1, UINT32_MAX, &a->limit))
				return pm_usage_error("report", "--limit '%s': expected a number "
						      ">= 1", optarg);
			break;
		case 'w':
			a->windows = true;
			break;
		case OPT_HIST:
			a->hist = true;
			break;
		case OPT_HIST_METRIC:
			a->hist = true;
			a->hist_metric = optarg;
			break;
		case OPT_SRCLINE:
			a->so.sym.srcline = true;
			break;
		case OPT_INLINE:
			a->so.sym.inline_frames = true;
			break;
		case OPT_NO_DEMANGLE:
			a->so.sym.no_demangle = true;
			break;
		case OPT_WIDTH:
			if (pm_parse_u64(optarg, 40, 10000, &a->width))
				return pm_usage_error("report", "--width '%s': expected 40..10000",
						      optarg);
			break;
		case 'h':
			return -1;
		case ':':
			return pm_usage_error("report", "option '%s' needs a value",
					      argv[optind - 1]);
		case '?':
			return pm_usage_error("report", "unknown option '%s'", argv[optind - 1]);
		default:
			rc = session_filter_option(&a->so, c, optarg, "report");
			if (rc)
				return rc;
			break;
		}
	}
	if (optind < argc)
		return pm_usage_error("report", "unexpected argument '%s' (the trace is given "
				      "with -i FILE)", argv[optind]);
	if (a->stack_view && (a->windows || a->hist || a->by != BY_SYMBOL))
		return pm_usage_error("report", "--children, --tree, --callers and --callees "
				      "go without --windows, --hist and --by");
	if (a->stack_format && (a->stack_view || a->windows || a->hist || a->by != BY_SYMBOL))
		return pm_usage_error("report", "--format %s goes without --windows, --hist, "
				      "--by and the stack views", a->stack_format);
	if (a->phase && (a->stack_view || a->windows || a->stack_format))
		return pm_usage_error("report", "--phase goes with the flat profile (and --hist, "
				      "--by), not --windows, the stack views or --format "
				      "folded/pprof");
	if (a->html && (a->stack_view || a->windows || a->hist || a->stack_format || a->phase ||
			a->by != BY_SYMBOL))
		return pm_usage_error("report", "--html goes without --windows, --hist, --by, "
				      "--phase, --format and the stack views");
	if (a->header_only && (a->stack_view || a->windows || a->stack_format || a->html ||
			       a->format != FMT_TABLE))
		return pm_usage_error("report", "--header-only prints the flat profile's header: "
				      "it goes without --format, --windows, --html and the stack "
				      "views");
	/* --windows CSV/JSON show each window's stack when the trace has them. */
	a->so.stacks = (a->stack_view || (a->windows && a->format != FMT_TABLE)) ? &callstack_hooks : NULL;
	return 0;
}

/* Resolves --sort against the trace's events and metrics. */
static int sort_key_of(const struct session *s, const char *name, struct sort_key *k)
{
	const char *why;
	uint32_t i;

	memset(k, 0, sizeof(*k));
	if (!name || !strcmp(name, "samples")) {
		k->kind = SORT_SAMPLES;
		return 0;
	}
	if (!strcmp(name, "name") || !strcmp(name, "symbol")) {
		k->kind = SORT_NAME;
		return 0;
	}
	for (i = 0; i < s->h->nr_events && i < PMIPROF_MAX_EVENTS; i++)
		if (!strcmp(s->h->events[i].name, name)) {
			k->kind = SORT_EVENT;
			k->event = (int)i;
			return 0;
		}
	if (!metric_parse(s->h, name, &k->metric, &why) && k->metric.kind != METRIC_EVENT) {
		k->kind = SORT_METRIC;
		return 0;
	}
	return -ENOENT;
}

static void print_sort_keys(const struct session *s, const struct metric_set *ms)
{
	uint32_t i;

	fprintf(stderr, "  valid keys: perf's sym, symbol, dso, dso,sym, comm, pid, tid, srcline, "
		"overhead; samples, name");
	for (i = 0; i < s->h->nr_events && i < PMIPROF_MAX_EVENTS; i++)
		fprintf(stderr, ", %s", s->h->events[i].name);
	for (i = 0; i < ms->n; i++)
		fprintf(stderr, ", %s", ms->m[i].name);
	fputc('\n', stderr);
}

/* What --hist shows: the named metrics, else derived ones, else each event. */
static int hist_metrics_of(const struct session *s, const char *list,
			   const struct metric_set *derived, struct metric_set *out)
{
	uint32_t i;

	out->n = 0;
	if (list) {
		char *copy = strdup(list), *tok, *save = NULL;
		int rc = 0;

		if (!copy)
			return -ENOMEM;
		for (tok = strtok_r(copy, ",", &save); tok && out->n < ARRAY_SIZE(out->m);
		     tok = strtok_r(NULL, ",", &save)) {
			const char *why;

			if (metric_parse(s->h, tok, &out->m[out->n], &why)) {
				rc = pm_usage_error("report", "--hist-metric '%s': %s", tok,
						    why ? why : "no such event or metric in this trace");
				break;
			}
			out->n++;
		}
		free(copy);
		return rc;
	}
	if (derived->n) {
		*out = *derived;
		return 0;
	}
	for (i = 0; i < s->h->nr_events && i < PMIPROF_MAX_EVENTS; i++) {
		if (i == s->h->trigger_index && (s->h->flags & PMIPROF_TRACE_F_TIME_BASED))
			continue;	/* a constant tick: its distribution says nothing */
		out->m[out->n] = (struct metric){ "", METRIC_EVENT, (int)i, -1 };
		snprintf(out->m[out->n].name, sizeof(out->m[0].name), "%s", s->h->events[i].name);
		out->n++;
	}
	return 0;
}

/* --children, --tree, --callers, --callees: one serial pass, then the view. */
static int run_stack_view(struct report_args *a, struct session *s,
			  const struct metric_set *derived)
{
	struct sv_opts o = {
		.kind = a->view, .format = a->format, .limit = (uint32_t)a->limit,
		.percent_limit = a->percent_limit, .sym = a->view_sym, .sort = a->sort,
		.metrics = derived,
	};
	struct stackview v;
	int rc;

	if (s->h->call_graph == PMIPROF_CALL_GRAPH_NONE) {
		pm_err("%s has no call stacks (trace format %u.%u, recorded without -g): record "
		       "with 'pmiprof record -g' (or --call-graph dwarf) for --children, --tree, "
		       "--callers and --callees", s->opts.input, s->h->version_major,
		       s->h->version_minor);
		return 1;
	}
	rc = stackview_init(&v, s);
	if (!rc)
		rc = session_run(s, stackview_add, &v);
	if (!rc) {
		rc = stackview_print(stdout, &v, &o);
		if (rc == -ENOENT) {
			pm_err("%s: no function matching '%s' in the call stacks of the shown "
			       "samples", s->opts.input, a->view_sym);
			stackview_free(&v);
			return 1;
		}
		if (rc == -EINVAL) {
			stackview_free(&v);
			return EXIT_USAGE;
		}
	}
	stackview_free(&v);
	if (rc) {
		pm_err("%s: %s", s->opts.input, strerror(-rc));
		return 1;
	}
	session_print_warnings(s, pm_quiet);
	return 0;
}

/* --region NAME that no REGION_DEF of the trace defines: one message naming those that exist. */
static bool region_missing(const struct report_args *a, const struct session *s)
{
	char names[512] = "";
	size_t at = 0;
	uint32_t i;

	if (!a->so.filt.region || s->region_filter != REGIONS_NONE || !s->read_all)
		return false;
	for (i = 0; i < regions_count(&s->reg) && at < sizeof(names); i++) {
		int k = snprintf(names + at, sizeof(names) - at, "%s%s", i ? ", " : "",
				 regions_name(&s->reg, i));

		at += k > 0 ? (size_t)k : 0;
	}
	pm_err("%s: no code region named '%s' (%u region(s) in the trace%s%s)", s->opts.input,
	       a->so.filt.region, regions_count(&s->reg), i ? ": " : "", names);
	return true;
}

static int run_report(struct report_args *a)
{
	struct session s;
	struct metric_set derived, hm;
	struct profile p;
	struct sort_key key;
	uint32_t *order = NULL, n = 0;
	int rc, status = 1;

	rc = session_open(&s, &a->so);
	if (rc)
		return rc == -ENOMEM ? (pm_err("out of memory"), 1) : 1;
	metrics_derived(s.h, &derived);
	if ((a->by == BY_REGION || a->so.filt.region) &&
	    !(s.h->flags & PMIPROF_TRACE_F_REGIONS)) {
		pm_err("%s has no code-region markers (trace format %u.%u%s): record the "
		       "workload with 'pmiprof record -- CMD' (perf backend) and mark regions with "
		       "libpmiprof-region (docs/regions.md)", s.opts.input, s.h->version_major,
		       s.h->version_minor, s.h->backend == PMIPROF_BACKEND_MODULE ?
		       ", module backend" : "");
		session_close(&s);
		return 1;
	}
	if (a->stack_view) {
		status = run_stack_view(a, &s, &derived);
		session_close(&s);
		return status;
	}
	if (a->windows) {
		struct windows_out w = { .f = stdout, .format = a->format, .s = &s,
					 .metrics = &derived, .limit = a->limit };

		int frc;

		w.threads = a->format == FMT_CSV && report_threads_allowed();
		windows_buffer_output(w.f);
		windows_begin(&w);
		rc = session_run(&s, windows_row, &w);
		frc = windows_flush(&w);
		if (rc == 1)	/* --limit reached */
			rc = 0;
		if (!rc)
			rc = frc;
		if (!rc)
			windows_end(&w);
		goto done;
	}
	if (sort_key_of(&s, a->sort, &key)) {
		pm_usage_error("report", "--sort '%s': not a sort key, event or metric of this trace",
			       a->sort);
		print_sort_keys(&s, &derived);
		session_close(&s);
		return EXIT_USAGE;
	}
	if (a->hist) {
		rc = hist_metrics_of(&s, a->hist_metric, &derived, &hm);
		if (rc) {
			session_close(&s);
			return rc > 0 ? rc : 1;
		}
	} else {
		hm.n = 0;
	}
	rc = profile_init(&p, &s, a->by, hm.m, hm.n);
	if (!rc && a->phase) {
		uint32_t nr;

		rc = phases_profile(&s, &a->po, (uint32_t)a->phase, &p, &nr);
		if (rc == -ERANGE || rc == -ENODATA) {
			pm_err("%s: no phase %" PRIu64 " (%u phase(s) found; see 'pmiprof phases')",
			       s.opts.input, a->phase, nr);
			rc = 1;
		}
	} else if (!rc) {
		rc = parallel_eligible(&s, &p) ? parallel_profile(&s, &p) : -EAGAIN;
		if (rc == -EAGAIN)
			rc = session_run(&s, profile_add_sample, &p);
	}
	if (!rc && region_missing(a, &s))
		rc = 1;
	if (!rc) {
		struct flat_opts fo = {
			.format = a->format, .limit = (uint32_t)a->limit, .width = (int)a->width,
			.hist = a->hist, .metrics = &derived, .hist_metrics = hm.m,
			.nr_hist = hm.n, .hist_top = 5,
		};

		order = profile_sorted(&p, &key, &n);
		/* --percent-limit P: rows under P% of the samples left out */
		if (order && a->percent_limit_given) {
			uint32_t i, k = 0;

			for (i = 0; i < n; i++)
				if ((double)p.rows[order[i]].samples * 100.0 >=
				    a->percent_limit * (double)p.samples)
					order[k++] = order[i];
			fo.below_limit = n - k;
			fo.percent_limit = a->percent_limit;
			n = k;
		}
		fo.header_only = a->header_only;
		rc = order ? print_flat(stdout, &p, order, n, &fo) : -ENOMEM;
	}
	free(order);
	profile_free(&p);
	if (rc == 1) {
		session_close(&s);
		return 1;
	}
done:
	if (!rc && region_missing(a, &s)) {
		session_close(&s);
		return 1;
	}
	if (rc) {
		pm_err("%s: %s", s.opts.input, strerror(-rc));
	} else {
		status = 0;
		session_print_warnings(&s, pm_quiet);
	}
	session_close(&s);
	return status;
}

int cmd_report(int argc, char **argv)
{
	struct report_args a;
	int rc;

	memset(&a, 0, sizeof(a));
	rc = parse_args(&a, argc, argv);
	if (rc < 0) {
		session_opts_free(&a.so);
		return command_help("report");
	}
	if (!rc && a.html)
		rc = report_html(&a.so, a.output ? a.output : "report.html",
				 a.html_buckets ? (uint32_t)a.html_buckets : HTML_DEFAULT_BUCKETS,
				 &a.po);
	else if (!rc && a.stack_format)
		rc = !strcmp(a.stack_format, "pprof") ? report_pprof(&a.so, a.value, a.output) :
		     report_folded(&a.so, a.value, a.output);
	else if (!rc)
		rc = run_report(&a);
	session_opts_free(&a.so);
	return rc;
}
