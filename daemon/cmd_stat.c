// SPDX-License-Identifier: GPL-2.0
/*
 * pmiprof stat: count events over a whole run (no samples), as perf stat
 * does: one counter per event so an unsupported one does not hide the
 * others, inherited by threads and children, started at the workload's exec,
 * scaled when the kernel had to multiplex, <not counted> when it never ran
 * (stat_format.c).  A quick check of which events work and what a run costs
 * before recording it.  -r repeats the command and prints mean, stddev,
 * min and max per event; -I prints the counts of every interval; --regions
 * adds the per-call distributions of the workload's code regions
 * (stat_regions.c, docs/regions.md).
 */
#include <errno.h>
#include <math.h>
#include <getopt.h>
#include <poll.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "event_list.h"
#include "events.h"
#include "engine/record.h"
#include "stat_format.h"
#include "stat_regions.h"
#include "topdown.h"
#include "region/region_shm.h"
#include "engine/cpu_set.h"
#include "engine/proc_tasks.h"
#include "util.h"
#include "engine/workload.h"

#define STAT_DEFAULT_EVENTS \
	"task-clock,context-switches,cpu-migrations,page-faults," \
	"cycles,instructions,branches,branch-misses"

const char cmd_stat_summary[] = "Count events over a whole run of a command";

const char cmd_stat_help[] =
"NAME\n"
"    pmiprof stat - count events for a command, processes or all CPUs\n"
"\n"
"SYNOPSIS\n"
"    pmiprof stat [-e EVENTS] [-x SEP] [-q] [-r N | -I MS] -- COMMAND [ARGS...]\n"
"    pmiprof stat --regions [--format text|csv] [--region-read MODE] [-o FILE]\n"
"                 [-e EVENTS]\n"
"                 [-r N] -- COMMAND [ARGS...]\n"
"    pmiprof stat [-e EVENTS] [-I MS] -p PID[,PID...] | -a\n"
"\n"
"DESCRIPTION\n"
"    Counts each event over the run: from COMMAND's exec to its exit (threads and\n"
"    children included), or for -p/-a until Ctrl-C.  Events the machine does not\n"
"    have are shown as <not supported> instead of failing the run, and events\n"
"    that never ran (a -p target that stayed asleep) as <not counted>.  When\n"
"    the kernel multiplexed a counter (more events than hardware counters),\n"
"    its value is scaled to the whole run (count x enabled / running time) and\n"
"    followed by the share of time it was counted, as perf stat does: (50.00%).\n"
"    SIGINT and SIGTERM reach COMMAND once (see 'pmiprof help record').\n"
"    Output goes to standard error, as perf stat does, so the command's own\n"
"    output stays clean.  The header names COMMAND with its arguments; after\n"
"    the elapsed time come the user and sys CPU time of COMMAND and its\n"
"    descendants.\n"
"\n"
"OPTIONS\n"
"    -e, --event EVENTS\n"
"        Comma-separated events, same syntax as record (see 'pmiprof list').\n"
"        Default: " STAT_DEFAULT_EVENTS ".\n"
"    -p, --pid PID[,PID...]\n"
"        Count running processes (all threads) until they exit or Ctrl-C.\n"
"    -a, --all-cpus\n"
"        Count every CPU until Ctrl-C (or until COMMAND exits).\n"
"    -x, --field-separator SEP\n"
"        Machine-readable output: value SEP event SEP running% per line; value is\n"
"        <not counted> or <not supported> when there is none.\n"
"    -r, --repeat N\n"
"        Run COMMAND N times (1..10000); print per event the mean, its standard\n"
"        deviation as a share of the mean (+- N.NN%), and min and max over the\n"
"        runs, then the elapsed time as mean +- its standard error, as perf\n"
"        stat -r does.  -x: mean SEP event SEP stddev% SEP min SEP\n"
"        max.  Stops repeating at Ctrl-C or at a run that fails to start.\n"
"    -I, --interval-print MS\n"
"        Also print the counts of every MS milliseconds (>= 10) while the run goes\n"
"        on, each line led by the seconds since the start, as perf stat -I does.\n"
"    --regions\n"
"        Measure the code regions of COMMAND (pmiprof_region_begin/end of\n"
"        libpmiprof-region): per region, its calls, and of every event, of the\n"
"        wall time and of IPC (when cycles and instructions count) the sum,\n"
"        mean, min, median, mode, p99 and max per call, with the cost of an\n"
"        empty region subtracted (stated).  Regions left open at exit, calls\n"
"        lost and misuse (end without begin, fork inside a region...) are\n"
"        reported.  Each thread counts its own events, so the printout says\n"
"        how they were read (rdpmc or read()).  See docs/regions.md.\n"
"    --region-read MODE\n"
"        auto (default): rdpmc where the kernel allows it, else read();\n"
"        outer: counters at outermost regions only, nested ones get wall-ns;\n"
"        sampled[:N]: counters at 1 call in N (256), chosen at random, wall-ns\n"
"        at every call (the event rows then cover the sampled calls);\n"
"        clock: no counters, wall-ns only (the cheapest).\n"
"    --format text|csv\n"
"        Region table layout; csv: region,calls,event,sum,mean,min,median,mode,\n"
"        p99,max,modes (every peak, ';'-separated), then '#' lines for\n"
"        anomalies and open regions (the whole-run\n"
"        counts are then left out).\n"
"    -o, --output FILE\n"
"        With --regions: also write the region table in the csv layout to FILE\n"
"        ('pmiprof plot -i FILE -o OUT.png' draws its per-region distributions).\n"
"    -q, --quiet\n"
"        Print nothing but errors (the exit status still reports the workload's).\n"
"    -h, --help\n"
"        This text.\n"
"\n"
"EXAMPLES\n"
"    pmiprof stat -- ./app\n"
"    pmiprof stat -e cpu-clock,page-faults -x, -- make -j2\n"
"    pmiprof stat -r 5 -- ./bench\n"
"    pmiprof stat --regions -e task-clock,cycles,instructions -- ./app\n"
"\n"
"EXIT STATUS\n"
"    The workload's exit status (128+N if killed by signal N); 1 if counting\n"
"    failed; 2 for usage errors.\n";

struct stat_ctr {
	struct pm_event ev;
	int *fds;			/* one per CPU (-a) or per thread (-p) */
	unsigned int nr_fds, cap_fds;
	int err;			/* first open error, or 0 */
};

static int open_one(struct stat_ctr *c, pid_t pid, int cpu, bool inherit, bool on_exec)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = c->ev.type;
	a.config = c->ev.config;
	a.config1 = c->ev.config1;
	a.config2 = c->ev.config2;
	a.exclude_user = c->ev.exclude_user;
	a.exclude_kernel = c->ev.exclude_kernel;
	a.exclude_hv = c->ev.exclude_hv;
	a.inherit = inherit;
	a.disabled = 1;
	a.enable_on_exec = on_exec;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM) && !a.exclude_kernel) {
		a.exclude_kernel = a.exclude_hv = 1;	/* unprivileged: user space only */
		fd = (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	}
	if (fd < 0)
		return -errno;
	if (c->nr_fds == c->cap_fds) {
		unsigned int cap = c->cap_fds ? c->cap_fds * 2 : 16;
		int *n = realloc(c->fds, cap * sizeof(*n));

		if (!n) {
			close(fd);
			return -ENOMEM;
		}
		c->fds = n;
		c->cap_fds = cap;
	}
	c->fds[c->nr_fds++] = fd;
	return 0;
}

static void read_ctr(const struct stat_ctr *c, struct stat_reading *r)
{
	unsigned int k;

	memset(r, 0, sizeof(*r));
	for (k = 0; k < c->nr_fds; k++) {
		uint64_t buf[3];

		if (read(c->fds[k], buf, sizeof(buf)) == (ssize_t)sizeof(buf)) {
			r->value += buf[0];
			r->enabled += buf[1];
			r->running += buf[2];
		}
	}
}

/* One block of counts (the whole run, or one -I interval after prefix). */
static void print_counts(struct stat_ctr *ctr, const struct stat_reading *rd, unsigned int n,
			 double secs, const char *sep, const char *prefix)
{
	double cycles = 0, branches = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct stat_ctr *c = &ctr[i];
		const struct stat_reading *r = &rd[i];
		const struct pm_event *e = &c->ev;
		bool hw = e->type == PERF_TYPE_HARDWARE;
		char extra[64] = "", line[256];
		double v, pct;

		if (!c->nr_fds) {
			if (sep)
				fprintf(stderr, "%s<not supported>%s%s%s\n", prefix, sep, e->name, sep);
			else
				fprintf(stderr, "%s  %18s      %s\n", prefix,
					c->err == -EACCES || c->err == -EPERM ? "<not permitted>" :
					"<not supported>", e->name);
			continue;
		}
		if (stat_scale(r, &v, &pct)) {
			if (hw && e->config == PERF_COUNT_HW_CPU_CYCLES)
				cycles = v;
			if (hw && e->config == PERF_COUNT_HW_BRANCH_INSTRUCTIONS)
				branches = v;
			if (e->time_based)
				snprintf(extra, sizeof(extra), "# %.3f CPUs utilized",
					 secs > 0 ? v / 1e9 / secs : 0);
			else if (hw && e->config == PERF_COUNT_HW_INSTRUCTIONS && cycles > 0)
				snprintf(extra, sizeof(extra), "# %.2f insn per cycle", v / cycles);
			else if (hw && e->config == PERF_COUNT_HW_BRANCH_MISSES && branches > 0)
				snprintf(extra, sizeof(extra), "# %.2f%% of branches",
					 100 * v / branches);
		}
		stat_format_line(line, sizeof(line), e->name, e->time_based, r, sep, extra);
		fprintf(stderr, "%s%s\n", prefix, line);
	}
}

/* What happens while the workload runs, besides waiting: -I and --regions. */
struct stat_ticks {
	struct stat_ctr *ctr;
	unsigned int nr;
	const char *sep;
	uint64_t interval_ns;		/* -I, or 0 */
	uint64_t t0, next_interval, next_drain;
	struct stat_reading *last;	/* -I: the counts at the previous interval */
	struct stat_regions *regions;
};

#define STAT_DRAIN_NS	10000000ull	/* ring of 16384 calls: >= 1.6 M calls/s drained */

static void stat_interval(struct stat_ticks *tk, uint64_t now)
{
	struct stat_reading cur[PMIPROF_MAX_EVENTS], d[PMIPROF_MAX_EVENTS];
	char prefix[48];
	unsigned int i;

	for (i = 0; i < tk->nr; i++) {
		read_ctr(&tk->ctr[i], &cur[i]);
		d[i].value = cur[i].value - tk->last[i].value;
		d[i].enabled = cur[i].enabled - tk->last[i].enabled;
		d[i].running = cur[i].running - tk->last[i].running;
		tk->last[i] = cur[i];
	}
	snprintf(prefix, sizeof(prefix), tk->sep ? "%.9f%s" : "%14.9f", (double)(now - tk->t0) / 1e9,
		 tk->sep ? tk->sep : "");
	print_counts(tk->ctr, d, tk->nr, (double)tk->interval_ns / 1e9, tk->sep, prefix);
}

/* Runs what is due; returns the poll() timeout until the next thing (ms), or -1. */
static int stat_tick(struct stat_ticks *tk)
{
	uint64_t now = pm_now_ns(), next = UINT64_MAX;

	if (tk->regions) {
		if (now >= tk->next_drain) {
			stat_regions_drain(tk->regions);
			tk->next_drain = now + STAT_DRAIN_NS;
		}
		next = tk->next_drain;
	}
	if (tk->interval_ns) {
		if (now >= tk->next_interval) {
			stat_interval(tk, now);
			/* a late tick does not make the next interval short */
			while (tk->next_interval <= now)
				tk->next_interval += tk->interval_ns;
		}
		if (tk->next_interval < next)
			next = tk->next_interval;
	}
	if (next == UINT64_MAX)
		return -1;
	return next > now ? (int)((next - now + 999999) / 1000000) : 0;
}

/*
 * Wait for the workload to exit, or for Ctrl-C (forwarded to it); with -p,
 * also until every target has exited (pidfds).  Returns whether Ctrl-C (or
 * SIGTERM) was received.
 */
static bool wait_run(struct workload *wl, bool has_child, int sfd, const struct record_opts *o,
		     struct stat_ticks *tk)
{
	struct pollfd pfd[RECORD_MAX_PIDS + 1];
	unsigned int i, n = 0, alive;
	bool interrupted = false;

	for (i = 0; i < o->nr_pids; i++) {
		int fd = (int)syscall(SYS_pidfd_open, o->pids[i], 0);

		if (fd >= 0)
			pfd[n++] = (struct pollfd){ .fd = fd, .events = POLLIN };
	}
	alive = n;
	pfd[n] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	for (;;) {
		struct signalfd_siginfo si;
		int r = poll(pfd, n + 1, stat_tick(tk));

		if (r <= 0)
			continue;
		for (i = 0; i < n; i++)
			if (pfd[i].fd >= 0 && pfd[i].revents) {
				close(pfd[i].fd);
				pfd[i].fd = -1;	/* poll ignores negative fds */
				alive--;
			}
		if (n && !alive && !has_child)
			break;
		if (!pfd[n].revents || read(sfd, &si, sizeof(si)) != (ssize_t)sizeof(si))
			continue;
		if (si.ssi_signo == SIGCHLD) {
			if (workload_reap(wl, false) == 1)
				break;
			continue;
		}
		interrupted = true;
		if (!has_child)
			break;
		workload_forward(wl, (int)si.ssi_signo, si.ssi_code);
	}
	for (i = 0; i < n; i++)
		if (pfd[i].fd >= 0)
			close(pfd[i].fd);
	return interrupted;
}

/* -r: per event, the scaled count of every run. */
struct stat_repeat {
	unsigned int n;			/* runs where it was counted */
	double sum, sumsq, min, max;
};

/* Mean and standard error of the mean (perf reports that, not one run's deviation). */
static void repeat_mean(const struct stat_repeat *rp, double *mean, double *sd)
{
	double var;

	*mean = rp->sum / rp->n;
	var = rp->n > 1 ? (rp->sumsq - rp->n * *mean * *mean) / (rp->n - 1) : 0;
	*sd = var > 0 ? sqrt(var / rp->n) : 0;
}

static void repeat_add_value(struct stat_repeat *rp, double v)
{
	if (!rp->n || v < rp->min)
		rp->min = v;
	if (!rp->n || v > rp->max)
		rp->max = v;
	rp->n++;
	rp->sum += v;
	rp->sumsq += v * v;
}

static void repeat_add(struct stat_repeat *rp, const struct stat_reading *r)
{
	double v, pct;

	if (stat_scale(r, &v, &pct))
		repeat_add_value(rp, v);
}

/* perf stat -r's layout: mean, then ( +- stddev of the mean in % ); then min and max. */
static void repeat_print(const struct stat_ctr *ctr, const struct stat_repeat *rp, unsigned int nr,
			 unsigned int runs, const char *sep)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		const struct pm_event *e = &ctr[i].ev;
		double mean, sd, unit = e->time_based ? 1e6 : 1;

		if (!rp[i].n) {
			if (sep)
				fprintf(stderr, "<not counted>%s%s%s%s%s\n", sep, e->name, sep, sep, sep);
			else
				fprintf(stderr, "  %18s %s %s\n", !ctr[i].err ? "<not counted>" :
					"<not supported>", e->time_based ? "msec" : "    ", e->name);
			continue;
		}
		repeat_mean(&rp[i], &mean, &sd);
		if (sep) {
			fprintf(stderr, "%.2f%s%s%s%.2f%s%.2f%s%.2f\n", mean / unit, sep, e->name, sep,
				mean ? 100 * sd / mean : 0, sep, rp[i].min / unit, sep,
				rp[i].max / unit);
			continue;
		}
		fprintf(stderr, "  %18.2f %s %-28s ( +- %5.2f%% )  min %.2f  max %.2f%s\n",
			mean / unit, e->time_based ? "msec" : "    ", e->name,
			mean ? 100 * sd / mean : 0, rp[i].min / unit, rp[i].max / unit,
			rp[i].n < runs ? "  (not counted in every run)" : "");
	}
}

/* CPU time of the children reaped so far (the workload and its descendants), in s. */
static void children_cpu(double *user, double *sys)
{
	struct rusage ru;

	if (getrusage(RUSAGE_CHILDREN, &ru)) {
		*user = *sys = 0;
		return;
	}
	*user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	*sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* The command as run, with its arguments, for the header ("'make' '-j2'" as perf: spaces). */
static void command_text(char *buf, size_t size, char *const *argv)
{
	size_t at = 0;

	buf[0] = 0;
	for (; *argv && at + 1 < size; argv++) {
		int k = snprintf(buf + at, size - at, "%s%s", at ? " " : "", *argv);

		if (k < 0)
			break;
		at += (size_t)k;
	}
}

static void close_ctrs(struct stat_ctr *ctr, unsigned int n)
{
	unsigned int i, k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < ctr[i].nr_fds; k++)
			close(ctr[i].fds[k]);
		free(ctr[i].fds);
		ctr[i].fds = NULL;
		ctr[i].nr_fds = ctr[i].cap_fds = 0;
	}
}

/* Open every event's counters for this run; the number usable. */
static unsigned int open_ctrs(struct stat_ctr *ctr, const struct pm_event_list *list,
			      const struct record_opts *o, const struct workload *wl,
			      struct cpu_set *cpus)
{
	unsigned int i, k, usable = 0;

	for (i = 0; i < list->nr; i++) {
		struct stat_ctr *sc = &ctr[i];
		int r = 0;

		memset(sc, 0, sizeof(*sc));
		sc->ev = list->ev[i];
		if (o->system_wide) {
			/* the online CPUs, as record opens them (daemon/engine/cpu_set.c) */
			r = cpus->nr ? 0 : cpu_set_online(cpus);
			for (k = 0; k < cpus->nr && !r; k++)
				r = open_one(sc, -1, cpus->cpus[k], false, false);
		} else if (o->argv) {
			r = open_one(sc, wl->pid, -1, true, true);
		} else {
			/* every existing thread; threads and children they create inherit */
			pid_t *tids = NULL;
			unsigned int nt = 0, cap = 0, t;

			for (k = 0; k < o->nr_pids && !r; k++)
				r = proc_task_threads(o->pids[k], &tids, &nt, &cap) == -ENOMEM ?
				    -ENOMEM : 0;
			for (t = 0; t < nt && !r; t++) {
				r = open_one(sc, tids[t], -1, true, false);
				if (r == -ESRCH)
					r = 0;	/* thread exited meanwhile */
			}
			free(tids);
		}
		if (r) {
			sc->err = r;
			for (k = 0; k < sc->nr_fds; k++)
				close(sc->fds[k]);
			sc->nr_fds = 0;
		} else {
			usable++;
		}
	}
	return usable;
}

int cmd_stat(int argc, char **argv)
{
	enum { OPT_REGIONS = 256, OPT_FORMAT, OPT_REGION_READ };
	static const struct option opts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "pid", required_argument, NULL, 'p' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "interval-print", required_argument, NULL, 'I' },
		{ "regions", no_argument, NULL, OPT_REGIONS },
		{ "region-read", required_argument, NULL, OPT_REGION_READ },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *events = STAT_DEFAULT_EVENTS, *sep = NULL, *csv_out = NULL;
	static struct stat_ctr ctr[PMIPROF_MAX_EVENTS];
	static struct stat_repeat rep[PMIPROF_MAX_EVENTS], rep_elapsed;
	struct stat_reading rd[PMIPROF_MAX_EVENTS], last[PMIPROF_MAX_EVENTS];
	struct stat_regions *regions = NULL;
	struct pm_event_list list;
	struct record_opts o;
	struct workload wl;
	sigset_t set, old;
	unsigned int i, run, runs_done = 0, region_read = PMR_READ_AUTO;
	uint64_t sample_n;
	uint64_t repeat = 1, interval_ms = 0;
	bool want_regions = false, csv = false, stop = false;
	int c, sfd, status = 0;
	char err[768], what[4096];
	struct cpu_set cpus = { 0 };

	memset(&o, 0, sizeof(o));
	memset(&wl, 0, sizeof(wl));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:e:p:ax:r:I:o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'e': events = optarg; break;
		case 'p':
			if (record_parse_pids(&o, optarg, err, sizeof(err)))
				return pm_usage_error("stat", "%s", err);
			break;
		case 'a': o.system_wide = true; break;
		case 'x': sep = optarg; break;
		case 'r':
			if (pm_parse_u64(optarg, 1, 10000, &repeat))
				return pm_usage_error("stat", "-r '%s': a number of runs in [1, 10000]",
						      optarg);
			break;
		case 'I':
			if (pm_parse_u64(optarg, 10, 3600000, &interval_ms))
				return pm_usage_error("stat", "-I '%s': milliseconds in [10, 3600000]",
						      optarg);
			break;
		case OPT_REGIONS: want_regions = true; break;
		case OPT_REGION_READ:
			if (!strcmp(optarg, "auto"))
				region_read = PMR_READ_AUTO;
			else if (!strcmp(optarg, "outer"))
				region_read = PMR_READ_OUTER;
			else if (!strcmp(optarg, "clock"))
				region_read = PMR_READ_CLOCK;
			else if (!strcmp(optarg, "sampled"))
				region_read = PMR_READ_SAMPLED | 8u << 8;
			else if (!strncmp(optarg, "sampled:", 8) &&
				 !pm_parse_u64(optarg + 8, 1, 1u << 30, &sample_n) &&
				 !(sample_n & (sample_n - 1)))
				region_read = PMR_READ_SAMPLED | (unsigned int)__builtin_ctzll(sample_n) << 8;
			else
				return pm_usage_error("stat", "--region-read '%s': auto, outer, "
						      "sampled[:N] (N a power of two) or clock", optarg);
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "csv"))
				csv = true;
			else if (strcmp(optarg, "text"))
				return pm_usage_error("stat", "--format '%s': text or csv", optarg);
			break;
		case 'o': csv_out = optarg; break;
		case 'q': o.quiet = true; break;
		case 'h': return command_help("stat");
		case ':':
			return pm_usage_error("stat", "option '%s' needs an argument",
					      argv[optind - 1]);
		default:
			return pm_usage_error("stat", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc && !strcmp(argv[optind], "--"))
		optind++;
	if (optind < argc)
		o.argv = argv + optind;
	if (o.system_wide && o.nr_pids)
		return pm_usage_error("stat", "-a and -p are mutually exclusive");
	if (o.argv && o.nr_pids)
		return pm_usage_error("stat", "give either a command or -p, not both");
	if (!o.argv && !o.nr_pids && !o.system_wide)
		return pm_usage_error("stat", "nothing to count: give a command (after --), -p or -a");
	if (repeat > 1 && !o.argv)
		return pm_usage_error("stat", "-r repeats a command: give one after --");
	if (repeat > 1 && interval_ms)
		return pm_usage_error("stat", "-r and -I cannot be combined");
	if (csv_out && !want_regions)
		return pm_usage_error("stat", "-o FILE writes the region table: it goes with --regions");
	if (want_regions && !o.argv)
		return pm_usage_error("stat", "--regions needs a command (after --) linked with "
				      "libpmiprof-region");
	int ret = pm_events_parse(events, &list, err, sizeof(err));
	if (ret == -ENODEV) {
		/* the machine lacks what the events need: not a usage error */
		pm_err("%s", err);
		return 1;
	}
	if (ret)
		return pm_usage_error("stat", "%s", err);
	if (td_check_pmu(&list, getenv("PMIPROF_SYSFS_EVENT_SOURCE"), err, sizeof(err))) {
		pm_err("%s", err);
		return 1;
	}
	if (want_regions && list.nr > PMR_MAX_EVENTS)
		return pm_usage_error("stat", "--regions counts at most %d events per thread",
				      PMR_MAX_EVENTS);
	if (o.argv && workload_resolve(o.argv[0]))
		return 1;
	for (i = 0; i < o.nr_pids; i++)
		if (kill(o.pids[i], 0) && errno == ESRCH) {
			pm_err("-p %d: no such process", (int)o.pids[i]);
			return 1;
		}
	if (want_regions && (c = stat_regions_new(&regions, &list, region_read))) {
		pm_err("--regions: %s", strerror(-c));
		return 1;
	}

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, &old);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (sfd < 0) {
		pm_err("signalfd: %s", strerror(errno));
		sigprocmask(SIG_SETMASK, &old, NULL);
		stat_regions_free(regions);
		return 1;
	}
	memset(rep, 0, sizeof(rep));
	memset(&rep_elapsed, 0, sizeof(rep_elapsed));
	if (o.argv)
		command_text(what, sizeof(what), o.argv);
	else
		pm_strlcpy(what, o.system_wide ? "system wide" : "process", sizeof(what));
	for (run = 0; run < repeat && !stop; run++) {
		struct stat_ticks tk = { .ctr = ctr, .nr = list.nr, .sep = sep, .last = last,
					 .regions = regions };
		uint64_t t0;
		double user0, sys0, user1, sys1, elapsed;

		memset(&wl, 0, sizeof(wl));
		children_cpu(&user0, &sys0);
		if (regions && (c = stat_regions_start(regions))) {
			pm_err("--regions: shared memory for the workload: %s", strerror(-c));
			status = 1;
			break;
		}
		if (o.argv && (c = workload_fork(&wl, o.argv, &old))) {
			pm_err("cannot start '%s': %s", o.argv[0], strerror(-c));
			status = 1;
			break;
		}
		if (!open_ctrs(ctr, &list, &o, &wl, &cpus)) {
			if ((ctr[0].err == -EACCES || ctr[0].err == -EPERM) &&
			    record_targets_denied(&o, err, sizeof(err)))
				pm_err("%s", err);
			else
				pm_err("none of the events can be counted here (first: '%s': %s); "
				       "see 'pmiprof list'", ctr[0].ev.name, strerror(-ctr[0].err));
			if (wl.pid > 0)
				workload_abort(&wl);
			status = 1;
			break;
		}
		for (i = 0; i < list.nr && !o.argv; i++)
			for (unsigned int k = 0; k < ctr[i].nr_fds; k++)
				ioctl(ctr[i].fds[k], PERF_EVENT_IOC_ENABLE, 0);
		t0 = pm_now_ns();
		if (o.argv && workload_go(&wl, o.argv[0])) {
			status = 1;
			break;
		}
		memset(last, 0, sizeof(last));
		tk.t0 = t0;
		tk.next_drain = t0;
		if (interval_ms && !o.quiet) {
			tk.interval_ns = interval_ms * 1000000;
			tk.next_interval = t0 + tk.interval_ns;
		}
		stop = wait_run(&wl, o.argv != NULL, sfd, &o, &tk);
		if (o.argv)
			status = workload_exit_code(&wl);
		elapsed = (double)(pm_now_ns() - t0) / 1e9;
		children_cpu(&user1, &sys1);
		for (i = 0; i < list.nr; i++)
			read_ctr(&ctr[i], &rd[i]);
		if (regions)
			stat_regions_stop(regions);
		runs_done++;
		if (repeat > 1) {
			for (i = 0; i < list.nr; i++)
				repeat_add(&rep[i], &rd[i]);
			repeat_add_value(&rep_elapsed, elapsed);
		} else if (!o.quiet && !csv) {
			if (!sep)
				fprintf(stderr, "\n Performance counter stats for '%s':\n\n", what);
			print_counts(ctr, rd, list.nr, elapsed, sep, "");
			if (!sep)
				fprintf(stderr, "\n  %18.6f  seconds time elapsed\n", elapsed);
			/* A command's CPU time, as perf: its reaped processes' rusage. */
			if (!sep && o.argv)
				fprintf(stderr, "\n  %18.6f  seconds user\n  %18.6f  seconds sys\n",
					user1 - user0, sys1 - sys0);
			if (!sep)
				fputc('\n', stderr);
		}
		if (wl.reaped && WIFSIGNALED(wl.status))
			pm_info("workload terminated by signal %d (%s)", WTERMSIG(wl.status),
				strsignal(WTERMSIG(wl.status)));
		close_ctrs(ctr, list.nr);
		workload_close(&wl);
	}
	close_ctrs(ctr, list.nr);
	workload_close(&wl);
	if (repeat > 1 && runs_done && !o.quiet) {
		if (!sep)
			fprintf(stderr, "\n Performance counter stats for '%s' (%u runs%s):\n\n",
				what, runs_done, runs_done < repeat ? ", interrupted" : "");
		if (!csv)
			repeat_print(ctr, rep, list.nr, runs_done, sep);
		if (!sep && !csv && rep_elapsed.n) {
			double mean, sd;

			repeat_mean(&rep_elapsed, &mean, &sd);
			fprintf(stderr, "\n  %12.6f +- %.6f seconds time elapsed  ( +- %5.2f%% )\n",
				mean, sd, mean ? 100 * sd / mean : 0);
		}
		if (!sep)
			fputc('\n', stderr);
	}
	if (regions && runs_done && !o.quiet)
		stat_regions_print(regions, stderr, o.argv[0], csv);
	if (regions && runs_done && csv_out) {
		/* the csv layout, for 'pmiprof plot -i FILE' and scripts */
		FILE *f = fopen(csv_out, "w");

		if (f)
			stat_regions_print(regions, f, o.argv[0], true);
		if (!f || fclose(f)) {
			pm_err("cannot write %s: %s", csv_out, strerror(errno));
			status = 1;
		}
	}
	stat_regions_free(regions);
	cpu_set_free(&cpus);
	close(sfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return status;
}
