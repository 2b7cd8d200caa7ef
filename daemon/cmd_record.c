// SPDX-License-Identifier: GPL-2.0
/*
 * pmiprof record: command-line parsing in perf's conventions; the session
 * itself is record_run() (daemon/engine/record_loop.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "event_list.h"
#include "perf/perf_group.h"
#include "engine/record.h"
#include "topdown.h"
#include "buildid_cache.h"
#include "util.h"

const char cmd_record_summary[] = "Record windowed samples of a command, processes or CPUs";

const char cmd_record_help[] =
"NAME\n"
"    pmiprof record - sample a workload every N events, all counters per window\n"
"\n"
"SYNOPSIS\n"
"    pmiprof record [-e EVENTS] [-c PERIOD | -F HZ] [-o FILE] [--backend B] [-q]\n"
"                   [-m PAGES] [-z LEVEL] [-g | --call-graph MODE] [--max-stack N]\n"
"                   [--no-buildid-cache | --buildid-cache-size SIZE]\n"
"                   -- COMMAND [ARGS...]\n"
"    pmiprof record [options] -p PID[,PID...]\n"
"    pmiprof record [options] -a [-- COMMAND [ARGS...]]\n"
"\n"
"DESCRIPTION\n"
"    Counts EVENTS as one group.  The trigger event (the first, or the one marked\n"
"    :T) overflows every PERIOD events; each overflow closes a window and writes\n"
"    one SAMPLE with the interrupted instruction pointer, pid/tid, CPU, time and\n"
"    every event's count for that window.  Memory maps (with build-ids), command\n"
"    names, forks and exits are recorded too, so executables and shared libraries\n"
"    (also ones loaded later with dlopen, or after exec) can be symbolized by\n"
"    'pmiprof report'.  Threads and child processes are followed.\n"
"\n"
"    COMMAND is started only once the counters are ready.  SIGINT, SIGTERM and\n"
"    SIGHUP reach it exactly once: Ctrl-C on the terminal reaches it directly (it\n"
"    shares pmiprof's process group, as under perf), a signal sent to pmiprof\n"
"    alone is forwarded; without a terminal (setsid, background jobs) COMMAND\n"
"    runs in a process group of its own and every signal is forwarded to that\n"
"    group.  A second signal kills it.  Recording ends when it exits.\n"
"\n"
"    The trace is written in chunks and synced to disk (fdatasync) at least once\n"
"    a second and at the end, so a crash or power loss costs at most about a\n"
"    second of samples.  If writing fails (disk full, I/O error, an output\n"
"    pipe closed by its reader) pmiprof says where the trace ends, stops COMMAND\n"
"    and exits 1; the trace stays readable and, when there is room, ends with\n"
"    a record of the error.\n"
"\n"
"    Without a hardware PMU (most VMs) the default events are replaced by\n"
"    cpu-clock as trigger at 10 kHz with task-clock, page-faults and\n"
"    context-switches: windows are then time-based, which pmiprof says when it\n"
"    starts and which the trace header records for every report.  -F HZ is\n"
"    then the cpu-clock frequency and -c N a cpu-clock period of N ns (at least\n"
"    10000, else refused), never dropped.\n"
"\n"
"    Code regions: a command linked with libpmiprof-region (perf backend)\n"
"    gets its begin/end markers recorded in the trace, merged with the\n"
"    samples by time, for 'report --by region' and 'report --region NAME'\n"
"    (docs/regions.md); markers a full ring dropped are counted as lost.\n"
"\n"
"OPTIONS\n"
"    -e, --event EVENTS\n"
"        Comma-separated events (see 'pmiprof list'): generic names (instructions,\n"
"        cycles, cache-misses, branch-misses, LLC-load-misses, cpu-clock,\n"
"        task-clock, page-faults, context-switches, ...), raw rNNNN, or libpfm4\n"
"        names (INST_RETIRED:ANY_P).  Modifiers :u :k :h restrict privilege levels;\n"
"        :T marks the trigger.  At most 16 events.  'topdown' stands for this\n"
"        CPU's top-down level-1 events in one group (docs/topdown.md); the\n"
"        report then shows frontend, bad-spec, retiring, backend (% of slots).\n"
"        On Intel Ice Lake and later, slots leads that group without sampling\n"
"        and the trigger samples as a member: without :T the first event outside\n"
"        topdown, else cycles (added).\n"
"        Default: " RECORD_DEFAULT_EVENTS " -c 512000.\n"
"    -c, --count PERIOD\n"
"        Trigger events per window (k/M/G suffixes allowed).  Range 1..2^47-1 for\n"
"        hardware events; for cpu-clock/task-clock the period is in ns, at least\n"
"        10000.  Default 512000 for hardware triggers, 100 for counting software\n"
"        triggers.\n"
"    -F, --freq HZ\n"
"        Windows per second instead of a fixed period (the kernel adapts the\n"
"        period); 1..kernel.perf_event_max_sample_rate.  Default 10000 for\n"
"        cpu-clock and task-clock triggers.\n"
"    -o, --output FILE\n"
"        Trace file (default pmiprof.data).  An existing FILE is kept as FILE.old.\n"
"    -p, --pid PID[,PID...]\n"
"        Attach to running processes (all their threads, and children they create\n"
"        from now on) until they exit or Ctrl-C.  A thread id means its process;\n"
"        a process given twice is recorded once.\n"
"    -a, --all-cpus\n"
"        Record every CPU (per-CPU windows, every process).  With a COMMAND, for as\n"
"        long as it runs; otherwise until Ctrl-C.  Needs root or CAP_PERFMON.\n"
"    --backend auto|perf|module\n"
"        auto (default) uses the pmiprof kernel module when /dev/pmiprof exists and\n"
"        works, else perf_event_open.  The choice is printed.\n"
"    -m, --mmap-pages PAGES\n"
"        Ring buffer data pages per CPU, a power of two (default 256 = 1 MiB;\n"
"        128 for unprivileged users, which kernel.perf_event_mlock_kb allows).\n"
"    -z, --compression-level N\n"
"        zstd level of the trace chunks, 0 (stored: fastest to write, but\n"
"        larger) to 9; default 1.\n"
"    -g\n"
"        Record call stacks: the same as --call-graph fp.\n"
"    --call-graph fp|dwarf[,SIZE]|no\n"
"        Record the call stack of every sample, as perf does (perf backend only).\n"
"        fp walks the frame-pointer chain (user and, where permitted, kernel\n"
"        frames) and also copies the top 64 bytes of the user stack, keeping\n"
"        only the words that point into code, so that 'pmiprof report' can\n"
"        restore the caller of a leaf function compiled without frame setup.\n"
"        dwarf copies the user registers and SIZE bytes of user stack (default\n"
"        8192, rounded up to a multiple of 8, at most 65528) for the report to\n"
"        unwind with the binaries' CFI: works without frame pointers, costs\n"
"        more bytes per sample.  A main thread's copy is stored only up to\n"
"        exec's argc (argv, environment and auxv above it are never unwound\n"
"        through), and dwarf chunks are deflated with LZ77 matching, since\n"
"        stack copies repeat.  no (the default) records none.\n"
"        Stacks are stored once per trace chunk and referred to by each sample\n"
"        (docs/trace-format.md).\n"
"    --max-stack N\n"
"        At most N frames per stack (default 127, at most\n"
"        kernel.perf_event_max_stack).\n"
"    --no-buildid-cache\n"
"        Do not save the recorded binaries and libraries into the build-id\n"
"        cache.  By default, at the end, each executable file the trace maps\n"
"        (with its build-id) that the cache lacks is hard-linked there, or\n"
"        copied, with its /usr/lib/debug/.build-id debug file, so that reports\n"
"        of this trace keep their names after the files are rebuilt or\n"
"        upgraded (docs/record.md, \"Build-id cache\").\n"
"    --buildid-cache-size SIZE\n"
"        The cache's size limit (K, M, G: powers of 1024; default 2G, or\n"
"        $PMIPROF_BUILDID_CACHE_SIZE): the oldest files go first.\n"
"    -q, --quiet\n"
"        No notices, progress or summary; errors are still printed.\n"
"    -h, --help\n"
"        This text.\n"
"\n"
"ENVIRONMENT\n"
"    PMIPROF_FORCE_NO_INHERIT_READ=1\n"
"        Debug knob: behave as on kernels before 6.12, which cannot combine\n"
"        PERF_SAMPLE_READ with inherit: per-CPU groups filtered to the workload's\n"
"        processes, windows per CPU (header flag NO_INHERIT_READ).  pmiprof\n"
"        switches to this mode by itself on such kernels and says so.\n"
"    PMIPROF_BUILDID_DIR=DIR\n"
"        The build-id cache (default ~/.pmiprof/debug), for record and report.\n"
"    PMIPROF_BUILDID_CACHE_SIZE=SIZE\n"
"        The cache's size limit when --buildid-cache-size is not given.\n"
"\n"
"EXAMPLES\n"
"    pmiprof record -- ./app --size 1000\n"
"    pmiprof record -e instructions,cycles,LLC-load-misses -c 1M -o app.data -- ./app\n"
"    pmiprof record -e cpu-clock,page-faults -F 1000 -p 1234\n"
"    pmiprof record -e cycles,instructions:T -c 10M -a -- sleep 5\n"
"    pmiprof record -g -- ./app\n"
"    pmiprof record --call-graph dwarf,16384 -- ./app\n"
"\n"
"EXIT STATUS\n"
"    The workload's exit status; 128+N when it was killed by signal N (also\n"
"    reported).  1 when recording failed, e.g. the disk filled up (the trace\n"
"    keeps every complete chunk), 2 for usage errors.  With -p or -a and no\n"
"    command: 0 on success.\n";

enum { OPT_BACKEND = 256, OPT_CALL_GRAPH, OPT_MAX_STACK, OPT_NO_BUILDID_CACHE,
       OPT_BUILDID_CACHE_SIZE };

static const struct option long_opts[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "count", required_argument, NULL, 'c' },
	{ "freq", required_argument, NULL, 'F' },
	{ "output", required_argument, NULL, 'o' },
	{ "pid", required_argument, NULL, 'p' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "mmap-pages", required_argument, NULL, 'm' },
	{ "compression-level", required_argument, NULL, 'z' },
	{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
	{ "max-stack", required_argument, NULL, OPT_MAX_STACK },
	{ "no-buildid-cache", no_argument, NULL, OPT_NO_BUILDID_CACHE },
	{ "buildid-cache-size", required_argument, NULL, OPT_BUILDID_CACHE_SIZE },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

const struct record_defaults record_defaults_record = {
	.events = RECORD_DEFAULT_EVENTS,
	.time_hz = 10000,
	.hw_period = RECORD_DEFAULT_PERIOD,
	.sw_period = 100,
};

const struct record_defaults record_defaults_daemon = {
	.events = RECORD_DEFAULT_EVENTS,
	.time_hz = 99,
	.hw_period = 100 * RECORD_DEFAULT_PERIOD,
	.sw_period = 1000,
};

/* Defaults that depend on the trigger when -c/-F were not given. */
static void default_rate(struct record_opts *o, const struct record_defaults *d)
{
	const struct pm_event *t = &o->events.ev[o->events.trigger];

	if (o->period || o->freq_hz)
		return;
	if (t->time_based)
		o->freq_hz = d->time_hz;
	else if (t->software)
		o->period = d->sw_period;
	else
		o->period = d->hw_period;
}

/*
 * "-e topdown" expanded to this CPU's events: say here, once, when they
 * cannot be counted, rather than failing on the first event; and give a
 * PERF_METRICS group (slots leads, not sampling) a trigger that may sample.
 */
static int topdown_setup(const char *cmd, struct pm_event_list *l)
{
	const char *env = getenv("PMIPROF_TEST_LEAD_GROUP");
	char err[768];
	int ret = td_check_pmu(l, getenv("PMIPROF_SYSFS_EVENT_SOURCE"), err, sizeof(err));

	/*
	 * Tests: the first N events as a lead group (the first leads without
	 * sampling), to run the PERF_METRICS layout with software events on a
	 * machine without that PMU.
	 */
	if (!ret && env && *env && !strcmp(cmd, "record")) {
		unsigned int i, n = (unsigned int)atoi(env);

		for (i = 0; i < n && i < l->nr; i++) {
			l->ev[i].group_lead = !i;
			l->ev[i].topdown = i > 0;
		}
	}
	if (!ret)
		ret = perf_group_pick_trigger(l, err, sizeof(err));
	if (ret) {
		pm_err("%s", err);
		return 1;
	}
	return 0;
}

int record_parse_common(const char *cmd, int argc, char **argv, struct record_opts *o,
			const struct record_defaults *d)
{
	const char *events = d->events, *env;
	char err[512];
	bool no_cache = false;
	int c, ret;

	memset(o, 0, sizeof(*o));
	o->output = RECORD_DEFAULT_OUTPUT;
	o->backend = "auto";
	o->compression_level = -1;
	o->fallback_freq_hz = d->time_hz;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:e:c:F:o:p:am:z:gqh", long_opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			events = optarg;
			o->events_given = true;
			break;
		case 'c':
			if (pm_parse_u64(optarg, 1, (1ull << 63) - 1, &o->period))
				return pm_usage_error(cmd, "invalid period '%s': valid is 1..%llu "
						      "(events per window)", optarg,
						      (1ull << 63) - 1);
			o->period_given = true;
			break;
		case 'F':
			if (pm_parse_u64(optarg, 1, 1000000000, &o->freq_hz))
				return pm_usage_error(cmd, "invalid frequency '%s': valid is 1.."
						      "kernel.perf_event_max_sample_rate Hz", optarg);
			o->period_given = true;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'p':
			if (record_parse_pids(o, optarg, err, sizeof(err)))
				return pm_usage_error(cmd, "%s", err);
			break;
		case 'a':
			o->system_wide = true;
			break;
		case OPT_BACKEND:
			if (strcmp(optarg, "auto") && strcmp(optarg, "perf") &&
			    strcmp(optarg, "module"))
				return pm_usage_error(cmd, "unknown backend '%s' (valid: auto, perf, "
						      "module)", optarg);
			o->backend = optarg;
			break;
		case 'm': {
			uint64_t v;

			if (pm_parse_u64(optarg, 1, 1u << 20, &v) || (v & (v - 1)))
				return pm_usage_error(cmd, "invalid --mmap-pages '%s': a power of two "
						      "in 1..1048576", optarg);
			o->mmap_pages = (unsigned int)v;
			break;
		}
		case 'z': {
			uint64_t v;

			if (pm_parse_u64(optarg, 0, 9, &v))
				return pm_usage_error(cmd, "invalid --compression-level '%s': valid "
						      "is 0 (stored) to 9", optarg);
			o->compression_level = (int)v;
			break;
		}
		case 'g':
			o->call_graph = PMIPROF_CALL_GRAPH_FP;
			o->call_graph_dump_size = 0;
			break;
		case OPT_CALL_GRAPH:
			if (record_parse_call_graph(o, optarg, err, sizeof(err)))
				return pm_usage_error(cmd, "%s", err);
			break;
		case OPT_MAX_STACK: {
			uint64_t v;

			if (pm_parse_u64(optarg, 1, PMIPROF_MAX_STACK, &v))
				return pm_usage_error(cmd, "invalid --max-stack '%s': valid is 1..%d "
						      "(frames)", optarg, PMIPROF_MAX_STACK);
			o->max_stack = (uint32_t)v;
			o->max_stack_given = true;
			break;
		}
		case OPT_NO_BUILDID_CACHE:
			no_cache = true;
			break;
		case OPT_BUILDID_CACHE_SIZE:
			if (buildid_cache_parse_size(optarg, &o->buildid_cache_limit))
				return pm_usage_error(cmd, "invalid --buildid-cache-size '%s': bytes, "
						      "with K, M or G (powers of 1024), e.g. 2G",
						      optarg);
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			return -1;
		case ':':
			return pm_usage_error(cmd, "option '%s' needs an argument",
					      argv[optind - 1]);
		default:
			return pm_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc && !strcmp(argv[optind], "--"))
		optind++;
	if (optind < argc)
		o->argv = argv + optind;
	if (!o->max_stack)
		o->max_stack = RECORD_DEFAULT_MAX_STACK;
	if (!strcmp(cmd, "stat") && (o->call_graph || o->max_stack_given))
		return pm_usage_error(cmd, "call stacks (-g, --call-graph, --max-stack) are "
				      "for 'pmiprof record'");
	if (o->period && o->freq_hz)
		return pm_usage_error(cmd, "-c and -F are mutually exclusive");
	if (o->system_wide && o->nr_pids)
		return pm_usage_error(cmd, "-a and -p are mutually exclusive");
	if (o->argv && o->nr_pids)
		return pm_usage_error(cmd, "give either a command or -p, not both");
	if (!o->argv && !o->nr_pids && !o->system_wide)
		return pm_usage_error(cmd, "nothing to record: give a command (after --), -p or -a");
	ret = pm_events_parse(events, &o->events, err, sizeof(err));
	if (ret == -ENODEV) {
		/* the machine lacks what the events need: not a usage error */
		pm_err("%s", err);
		return 1;
	}
	if (ret)
		return pm_usage_error(cmd, "%s", err);
	if (topdown_setup(cmd, &o->events))
		return 1;
	default_rate(o, d);
	if (record_check_rate(o, err, sizeof(err)))
		return pm_usage_error(cmd, "%s", err);
	env = getenv("PMIPROF_FORCE_NO_INHERIT_READ");
	o->force_no_inherit_read = env && *env && strcmp(env, "0");
	/* Only record keeps files for its trace (daemon segments, top and stat do not). */
	o->buildid_cache = !strcmp(cmd, "record") && !no_cache;
	pm_quiet = o->quiet;
	return 0;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o;
	int ret = record_parse_common("record", argc, argv, &o, &record_defaults_record);

	if (ret < 0)
		return command_help("record");
	if (ret)
		return ret;
	return record_run(&o, argc, argv);
}
