// SPDX-License-Identifier: GPL-2.0
/*
 * `pmiprof annotate`: a function's instructions and source lines with
 * every event's window counts.  Option parsing and orchestration only: the
 * aggregation is analysis/annotate.c, the outputs output/annotate_output.c.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/annotate.h"
#include "analysis/phases.h"
#include "commands.h"
#include "input/session.h"
#include "output/annotate_output.h"
#include "output/format.h"
#include "symbols/disasm.h"
#include "symbols/source_text.h"
#include "util.h"

const char cmd_annotate_summary[] = "Instructions and source lines of functions, with every counter";

const char cmd_annotate_help[] =
"NAME\n"
"    pmiprof annotate - instructions and source lines with every counter\n"
"\n"
"SYNOPSIS\n"
"    pmiprof annotate [-i FILE|DIR] [SYMBOL...] [--by insn|line]\n"
"                     [--format table|csv|json] [--sort EVENT] [-n N]\n"
"                     [--percent local|global] [--source-dir DIR]... [--no-source]\n"
"                     [-M att|intel] [--min-percent P] [--stdio] [FILTERS]\n"
"\n"
"DESCRIPTION\n"
"    For each function, the instructions it holds (disassembled with\n"
"    capstone from the very file the report takes its names from, found by\n"
"    build-id, --symfs or --archive) with, for each, the samples that landed\n"
"    on it, their share, every recorded event's window counts and the\n"
"    derived metrics (ipc, <event>-mpki, branch-miss-pct) with a 95 %\n"
"    confidence interval over the windows.  The source line (DWARF line\n"
"    table) is printed above the instructions it owns, with the inline\n"
"    chain when the code was inlined ([inlined: helper (file.c:12) <- ...]);\n"
"    branch targets inside the function read '-> +0x1d', jumps backwards\n"
"    (loops) are marked '(back)'.  The hottest row is marked '>'.\n"
"\n"
"    --by line gives one row per source line instead: the counts of every\n"
"    instruction of the function that belongs to that line (inlined code is\n"
"    counted on the inlined function's own line), with the source text.\n"
"\n"
"    Without SYMBOL: the hottest functions until 80 % of the samples (or the\n"
"    -n N hottest).  SYMBOL is a glob over function names (a C++ name\n"
"    matches with or without its parameter list).\n"
"\n"
"    Attribution: a window's counts go to the address whose sample closes\n"
"    it.  Samples land after the instruction that caused them (skid): on\n"
"    time-based windows (no PMU) and non-precise events, read loops and\n"
"    lines rather than single instructions; the header says which applies.\n"
"    Kernel functions get per-address counts without instructions (no\n"
"    vmlinux is read); JIT code has no recorded bytes.\n"
"\n"
"OPTIONS\n"
"    -i, --input FILE|DIR  trace file or daemon segment directory (default\n"
"                        pmiprof.data)\n"
"    --by insn|line      one row per instruction (default) or per source line\n"
"    -f, --format table|csv|json\n"
"                        CSV columns: function,dso,address,offset,samples,\n"
"                        percent,<events...>,<metric,metric_ci95_low,\n"
"                        metric_ci95_high...>,source_file,source_line,inline,\n"
"                        instruction; with --by line: function,dso,\n"
"                        source_file,source_line,inline,samples,percent,\n"
"                        <events...>,<metrics...>,source (docs/annotate.md)\n"
"    -s, --sort EVENT    functions by this event's counts, not samples; with\n"
"                        --by line also the rows (default: source order)\n"
"    -n, --limit N       the N hottest functions\n"
"    --percent local|global\n"
"                        percent of the function's samples (default) or of\n"
"                        all samples\n"
"    --min-percent P     leave out rows below P percent (counted)\n"
"    --source-dir DIR    look source files up under DIR too (DIR + the\n"
"                        recorded path, DIR + the path relative to the\n"
"                        build directory, DIR + the file name); repeatable.\n"
"                        debuginfod's /source is asked when DEBUGINFOD_URLS\n"
"                        is set\n"
"    --no-source         no source text (lines are still printed)\n"
"    -M, --disassembler-style att|intel\n"
"                        instruction syntax (default att, as perf/objdump)\n"
"    --color, --no-color colour hot rows (default: when stdout is a terminal)\n"
"    --width N           table width (default: the terminal's)\n"
"    --no-demangle       C++ names as the symbol table has them\n"
"    --stdio             accepted for perf compatibility (the only interface)\n"
"    -q, --quiet         no warnings about symbols and sources\n"
"\n"
"FILTERS\n"
"    --pid, --tid, --comm, --dso, --symbol, --time, --window, --region,\n"
"    --since, --until: as 'pmiprof report' (see its help)\n"
"    --phase K           only the windows of program phase K, as 'pmiprof\n"
"                        phases' numbers them (--phase-interval M,\n"
"                        --phase-max-k N: its --interval and --max-k)\n"
"\n"
"SYMBOL LOOKUP\n"
SESSION_LOOKUP_HELP
"\n"
"EXAMPLES\n"
"    pmiprof annotate\n"
"    pmiprof annotate main --by line\n"
"    pmiprof annotate 'work_*' -M intel --min-percent 0.5\n"
"    pmiprof annotate -n 20 --format csv > insns.csv\n"
"    pmiprof annotate -i target.data --symfs /srv/rootfs --source-dir ~/src\n"
"\n"
"EXIT STATUS\n"
"    0 success, 1 unreadable trace, no samples or no such function,\n"
"    2 usage error.\n"
"\n"
"SEE ALSO\n"
"    pmiprof report, docs/annotate.md\n";

enum {
	OPT_BY = 0x2000, OPT_PERCENT, OPT_MIN_PERCENT, OPT_SOURCE_DIR, OPT_NO_SOURCE,
	OPT_STDIO, OPT_COLOR, OPT_NO_COLOR, OPT_WIDTH, OPT_NO_DEMANGLE, OPT_PHASE,
	OPT_PHASE_INTERVAL, OPT_PHASE_MAX_K,
};

static const struct option long_opts[] = {
	{ "by", required_argument, NULL, OPT_BY },
	{ "format", required_argument, NULL, 'f' },
	{ "sort", required_argument, NULL, 's' },
	{ "limit", required_argument, NULL, 'n' },
	{ "percent", required_argument, NULL, OPT_PERCENT },
	{ "min-percent", required_argument, NULL, OPT_MIN_PERCENT },
	{ "source-dir", required_argument, NULL, OPT_SOURCE_DIR },
	{ "no-source", no_argument, NULL, OPT_NO_SOURCE },
	{ "disassembler-style", required_argument, NULL, 'M' },
	{ "stdio", no_argument, NULL, OPT_STDIO },
	{ "color", no_argument, NULL, OPT_COLOR },
	{ "no-color", no_argument, NULL, OPT_NO_COLOR },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "phase", required_argument, NULL, OPT_PHASE },
	{ "phase-interval", required_argument, NULL, OPT_PHASE_INTERVAL },
	{ "phase-max-k", required_argument, NULL, OPT_PHASE_MAX_K },
	{ "help", no_argument, NULL, 'h' },
	SESSION_FILTER_OPTIONS,
	{ NULL, 0, NULL, 0 }
};

#define MAX_SOURCE_DIRS 32

struct annotate_args {
	struct session_opts so;
	struct ann_out out;
	enum disasm_syntax syntax;
	uint64_t limit;
	const char *sort;
	const char *dirs[MAX_SOURCE_DIRS];
	uint32_t nr_dirs;
	int color;		/* -1 auto */
	uint64_t width;
	char **syms;		/* SYMBOL arguments */
	uint64_t phase;		/* --phase K, 0: every window */
	struct phases_opts po;
	int nr_syms;
};

static int parse_args(struct annotate_args *a, int argc, char **argv)
{
	char *end;
	int c, rc;

	a->color = -1;
	a->out.syntax = "att";
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:f:s:n:M:qh", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_BY:
			if (strcmp(optarg, "insn") && strcmp(optarg, "line"))
				return pm_usage_error("annotate", "--by '%s': expected insn or line",
						      optarg);
			a->out.by_line = !strcmp(optarg, "line");
			break;
		case 'f':
			if (parse_format(optarg, &a->out.format))
				return pm_usage_error("annotate", "--format '%s': expected table, "
						      "csv or json", optarg);
			break;
		case 's':
			a->sort = optarg;
			break;
		case 'n':
			if (pm_parse_u64(optarg, 1, UINT32_MAX, &a->limit))
				return pm_usage_error("annotate", "--limit '%s': expected a number "
						      ">= 1", optarg);
			break;
		case OPT_PERCENT:
			if (strcmp(optarg, "local") && strcmp(optarg, "global"))
				return pm_usage_error("annotate", "--percent '%s': expected local or "
						      "global", optarg);
			a->out.percent_global = !strcmp(optarg, "global");
			break;
		case OPT_MIN_PERCENT:
			a->out.min_percent = strtod(optarg, &end);
			if (end == optarg || *end || a->out.min_percent < 0 ||
			    a->out.min_percent > 100)
				return pm_usage_error("annotate", "--min-percent '%s': expected a "
						      "percentage 0..100", optarg);
			break;
		case OPT_SOURCE_DIR:
			if (a->nr_dirs == MAX_SOURCE_DIRS)
				return pm_usage_error("annotate", "at most %d --source-dir",
						      MAX_SOURCE_DIRS);
			a->dirs[a->nr_dirs++] = optarg;
			break;
		case OPT_NO_SOURCE:
			a->out.no_source = true;
			break;
		case 'M':
			if (strcmp(optarg, "att") && strcmp(optarg, "intel"))
				return pm_usage_error("annotate", "-M '%s': expected att or intel",
						      optarg);
			a->syntax = !strcmp(optarg, "intel") ? DISASM_INTEL : DISASM_ATT;
			a->out.syntax = a->syntax == DISASM_INTEL ? "intel" : "att";
			break;
		case OPT_STDIO:
			break;
		case OPT_COLOR:
			a->color = 1;
			break;
		case OPT_NO_COLOR:
			a->color = 0;
			break;
		case OPT_WIDTH:
			if (pm_parse_u64(optarg, 40, 10000, &a->width))
				return pm_usage_error("annotate", "--width '%s': expected 40..10000",
						      optarg);
			break;
		case OPT_NO_DEMANGLE:
			a->so.sym.no_demangle = true;
			break;
		case OPT_PHASE:
			if (pm_parse_u64(optarg, 1, PHASES_MAX_K, &a->phase))
				return pm_usage_error("annotate", "--phase '%s': expected a phase "
						      "number 1..%d", optarg, PHASES_MAX_K);
			break;
		case OPT_PHASE_INTERVAL:
			if (pm_parse_u64(optarg, 1, UINT32_MAX, &a->po.interval))
				return pm_usage_error("annotate", "--phase-interval '%s': expected a "
						      "number of windows >= 1", optarg);
			break;
		case OPT_PHASE_MAX_K: {
			uint64_t v;

			if (pm_parse_u64(optarg, 1, PHASES_MAX_K, &v))
				return pm_usage_error("annotate", "--phase-max-k '%s': expected 1..%d",
						      optarg, PHASES_MAX_K);
			a->po.max_k = (uint32_t)v;
			break;
		}
		case 'h':
			return -1;
		case ':':
			return pm_usage_error("annotate", "option '%s' needs a value",
					      argv[optind - 1]);
		case '?':
			return pm_usage_error("annotate", "unknown option '%s'", argv[optind - 1]);
		default:
			rc = session_filter_option(&a->so, c, optarg, "annotate");
			if (rc)
				return rc;
			break;
		}
	}
	a->syms = argv + optind;
	a->nr_syms = argc - optind;
	return 0;
}

/* A function name matches a SYMBOL glob as itself or without its parameter list. */
static bool name_matches(const char *name, char **pats, int n)
{
	char bare[1024];
	const char *paren = strchr(name, '(');
	int i;

	snprintf(bare, sizeof(bare), "%.*s", paren ? (int)(paren - name) : (int)strlen(name),
		 name);
	for (i = 0; i < n; i++)
		if (!fnmatch(pats[i], name, 0) || (paren && !fnmatch(pats[i], bare, 0)))
			return true;
	return false;
}

/* --sort EVENT: the event's index, -1 for samples, or a usage error's status. */
static int sort_event_of(const struct session *s, const char *name, int *ev)
{
	uint32_t i;

	*ev = -1;
	if (!name || !strcmp(name, "samples"))
		return 0;
	for (i = 0; i < s->h->nr_events; i++)
		if (!strcmp(s->h->events[i].name, name)) {
			*ev = (int)i;
			return 0;
		}
	pm_err("annotate: --sort '%s': not an event of this trace (samples or one of its "
	       "events: see the header)", name);
	return EXIT_USAGE;
}

static int line_cmp(const void *x, const void *y, void *arg)
{
	const struct ann_line *a = x, *b = y;
	int key = *(const int *)arg;
	uint64_t va = key >= 0 ? a->c.counts[key] : a->c.samples;
	uint64_t vb = key >= 0 ? b->c.counts[key] : b->c.samples;

	if (va != vb)
		return va > vb ? -1 : 1;
	return a->line - b->line;
}

static int source_order_cmp(const void *x, const void *y, void *arg)
{
	const struct ann_line *a = x, *b = y;
	int c;

	(void)arg;
	if ((a->depth == 0) != (b->depth == 0))
		return a->depth == 0 ? -1 : 1;	/* the function's own lines first */
	c = strcmp(a->file ? a->file : "", b->file ? b->file : "");
	if (c)
		return c;
	return a->line - b->line;
}

/*
 * --by line rows in source order (key -2) or by samples (-1) or an event;
 * instructions keep no line indexes past this point (the table of lines
 * stands alone), only the hottest line is found again.
 */
static void order_lines(struct ann_view *v, int key)
{
	uint32_t i, hot = v->hottest_line;
	int hot_line = hot != UINT32_MAX ? v->lines[hot].line : 0;
	const char *hot_file = hot != UINT32_MAX ? v->lines[hot].file : NULL;

	qsort_r(v->lines, v->nr_lines, sizeof(*v->lines), key == -2 ? source_order_cmp : line_cmp,
		&key);
	for (i = 0; i < v->nr_lines; i++)
		if (hot != UINT32_MAX && v->lines[i].file == hot_file &&
		    v->lines[i].line == hot_line)
			v->hottest_line = i;
}

static int run(struct annotate_args *a, struct session *s)
{
	struct annotate ann;
	struct disasm *d = NULL;
	uint64_t shown_samples = 0, goal;
	uint32_t i, shown = 0;
	int rc, ev, status = 1;

	rc = sort_event_of(s, a->sort, &ev);
	if (rc)
		return rc;
	a->out.sort_event = a->sort && a->out.by_line ? ev : -2;
	rc = annotate_init(&ann, s);
	if (!rc && a->phase) {
		uint32_t nr = 0;

		rc = phases_run(s, &a->po, (uint32_t)a->phase, annotate_add_sample, &ann, &nr);
		if (rc == -ERANGE) {
			pm_err("annotate: --phase %" PRIu64 ": no phase %" PRIu64 " (%u phase(s) found; "
			       "see 'pmiprof phases')", a->phase, a->phase, nr);
			goto out;
		}
	} else if (!rc) {
		rc = session_run(s, annotate_add_sample, &ann);
	}
	if (!rc)
		rc = annotate_group(&ann, ev);
	if (!rc)
		rc = disasm_open(&d, a->syntax);
	if (rc) {
		pm_err("annotate: %s: %s", s->opts.input, rc == -EINVAL ?
		       "capstone refuses x86-64 mode" : strerror(-rc));
		goto out;
	}
	if (!ann.samples) {
		pm_err("annotate: no samples in %s passed the filters", s->opts.input);
		goto out;
	}
	if (a->nr_syms) {
		for (i = 0; i < ann.nr_funcs; i++)
			if (name_matches(symbolizer_sym(s->sy, ann.funcs[i].sym)->name, a->syms,
					 a->nr_syms))
				break;
		if (i == ann.nr_funcs) {
			pm_err("annotate: no function matching '%s'%s has samples in %s (see "
			       "'pmiprof report' for the functions that do)", a->syms[0],
			       a->nr_syms > 1 ? " (nor the other patterns)" : "", s->opts.input);
			goto out;
		}
	}
	goal = (ann.samples * 80 + 99) / 100;
	annotate_print_begin(stdout, &ann, &a->out);
	for (i = 0; i < ann.nr_funcs; i++) {
		const struct ann_func *f = &ann.funcs[i];
		struct ann_view v;

		if (a->nr_syms) {
			if (!name_matches(symbolizer_sym(s->sy, f->sym)->name, a->syms, a->nr_syms))
				continue;
		} else if (a->limit ? shown >= a->limit : shown_samples >= goal) {
			break;
		}
		if (a->limit && shown >= a->limit)
			break;
		rc = annotate_view(&ann, i, d, &v);
		if (rc) {
			pm_err("annotate: %s", strerror(-rc));
			goto out;
		}
		if (a->out.by_line)
			order_lines(&v, a->out.sort_event);
		annotate_print_view(stdout, &ann, &v, &a->out, shown);
		ann_view_free(&v);
		shown++;
		shown_samples += f->c.samples;
	}
	annotate_print_end(stdout, &ann, &a->out, shown, shown_samples);
	if (!pm_quiet && a->out.src && !a->out.no_source && source_files_missing(a->out.src)) {
		uint32_t n = source_files_missing(a->out.src), k;

		for (k = 0; k < n && k < 5; k++)
			pm_warn("source not found: %s%s", source_files_missing_at(a->out.src, k),
				k ? "" : " (lines are still shown; --source-dir DIR looks there)");
		if (n > 5)
			pm_warn("... and %u more source files not found", n - 5);
	}
	status = 0;
out:
	disasm_close(d);
	annotate_free(&ann);
	return status;
}

int cmd_annotate(int argc, char **argv)
{
	struct annotate_args a;
	struct session s;
	int rc, status;

	memset(&a, 0, sizeof(a));
	rc = parse_args(&a, argc, argv);
	if (rc) {
		session_opts_free(&a.so);
		return rc < 0 ? command_help("annotate") : rc;
	}
	a.out.color = a.color >= 0 ? a.color == 1 :
		      (a.out.format == FMT_TABLE && isatty(STDOUT_FILENO));
	a.out.width = a.out.format == FMT_TABLE ? table_width((int)a.width) : 0;
	if (!a.out.no_source && source_files_new(&a.out.src, a.dirs, a.nr_dirs)) {
		pm_err("out of memory");
		session_opts_free(&a.so);
		return 1;
	}
	rc = session_open(&s, &a.so);
	if (rc) {
		if (rc == -ENOMEM)
			pm_err("out of memory");
		source_files_free(a.out.src);
		session_opts_free(&a.so);
		return 1;
	}
	status = run(&a, &s);
	if (!status)
		session_print_warnings(&s, pm_quiet);
	session_close(&s);
	source_files_free(a.out.src);
	session_opts_free(&a.so);
	return status;
}
