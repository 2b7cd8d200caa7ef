// SPDX-License-Identifier: GPL-2.0
/*
 * pmiprof stat: count events over a whole run (no samples), as perf stat
 * does: one counter per event so an unsupported one does not hide the
 * others, inherited by threads and children, started at the workload's exec,
 * scaled when the kernel had to multiplex, <not counted> when it never ran
 * (stat_format.c).  A quick check of which events work and what a run costs
 * before recording it.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "events.h"
#include "record.h"
#include "stat_format.h"
#include "cpu_set.h"
#include "proc_tasks.h"
#include "util.h"
#include "workload.h"

#define STAT_DEFAULT_EVENTS \
	"task-clock,context-switches,cpu-migrations,page-faults," \
	"cycles,instructions,branches,branch-misses"

const char cmd_stat_summary[] = "Count events over a whole run of a command";

const char cmd_stat_help[] =
"NAME\n"
"    pmiprof stat - count events for a command, processes or all CPUs\n"
"\n"
"SYNOPSIS\n"
"    pmiprof stat [-e EVENTS] [-x SEP] [-q] -- COMMAND [ARGS...]\n"
"    pmiprof stat [-e EVENTS] -p PID[,PID...] | -a\n"
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
"    output stays clean.\n"
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
"    -q, --quiet\n"
"        Print nothing but errors (the exit status still reports the workload's).\n"
"    -h, --help\n"
"        This text.\n"
"\n"
"EXAMPLES\n"
"    pmiprof stat -- ./app\n"
"    pmiprof stat -e cpu-clock,page-faults -x, -- make -j2\n"
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

static void print_counts(struct stat_ctr *ctr, unsigned int n, double secs, const char *sep)
{
	double cycles = 0, branches = 0;
	unsigned int i, k;

	for (i = 0; i < n; i++) {
		struct stat_ctr *c = &ctr[i];
		struct stat_reading r = { 0 };
		const struct pm_event *e = &c->ev;
		bool hw = e->type == PERF_TYPE_HARDWARE;
		char extra[64] = "", line[256];
		double v, pct;

		for (k = 0; k < c->nr_fds; k++) {
			uint64_t buf[3];

			if (read(c->fds[k], buf, sizeof(buf)) == (ssize_t)sizeof(buf)) {
				r.value += buf[0];
				r.enabled += buf[1];
				r.running += buf[2];
			}
		}
		if (!c->nr_fds) {
			if (sep)
				fprintf(stderr, "<not supported>%s%s%s\n", sep, e->name, sep);
			else
				fprintf(stderr, "  %18s      %-28s (%s)\n",
					c->err == -EACCES || c->err == -EPERM ? "<not permitted>" :
					"<not supported>", e->name, strerror(-c->err));
			continue;
		}
		if (stat_scale(&r, &v, &pct)) {
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
		stat_format_line(line, sizeof(line), e->name, e->time_based, &r, sep, extra);
		fprintf(stderr, "%s\n", line);
	}
	if (!sep)
		fprintf(stderr, "\n  %18.6f  seconds time elapsed\n\n", secs);
}

/*
 * Wait for the workload to exit, or for Ctrl-C (forwarded to it); with -p,
 * also until every target has exited (pidfds).
 */
static void wait_run(struct workload *wl, bool has_child, int sfd, const struct record_opts *o)
{
	struct pollfd pfd[RECORD_MAX_PIDS + 1];
	unsigned int i, n = 0, alive;

	for (i = 0; i < o->nr_pids; i++) {
		int fd = (int)syscall(SYS_pidfd_open, o->pids[i], 0);

		if (fd >= 0)
			pfd[n++] = (struct pollfd){ .fd = fd, .events = POLLIN };
	}
	alive = n;
	pfd[n] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	for (;;) {
		struct signalfd_siginfo si;

		if (poll(pfd, n + 1, -1) < 0)
			continue;
		for (i = 0; i < n; i++)
			if (pfd[i].fd >= 0 && pfd[i].revents) {
				close(pfd[i].fd);
				pfd[i].fd = -1;	/* poll ignores negative fds */
				alive--;
			}
		if (n && !alive && !has_child)
			return;
		if (!pfd[n].revents || read(sfd, &si, sizeof(si)) != (ssize_t)sizeof(si))
			continue;
		if (si.ssi_signo == SIGCHLD) {
			if (workload_reap(wl, false) == 1)
				break;
			continue;
		}
		if (!has_child)
			break;
		workload_forward(wl, (int)si.ssi_signo, si.ssi_code);
	}
	for (i = 0; i < n; i++)
		if (pfd[i].fd >= 0)
			close(pfd[i].fd);
}

int cmd_stat(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "pid", required_argument, NULL, 'p' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *events = STAT_DEFAULT_EVENTS, *sep = NULL;
	static struct stat_ctr ctr[PMIPROF_MAX_EVENTS];
	struct pm_event_list list;
	struct record_opts o;
	struct workload wl;
	sigset_t set, old;
	unsigned int i, k, usable = 0;
	int c, sfd, status = 0;
	uint64_t t0;
	char err[512];
	struct cpu_set cpus = { 0 };

	memset(&o, 0, sizeof(o));
	memset(&wl, 0, sizeof(wl));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:e:p:ax:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'e': events = optarg; break;
		case 'p':
			if (record_parse_pids(&o, optarg, err, sizeof(err)))
				return pm_usage_error("stat", "%s", err);
			break;
		case 'a': o.system_wide = true; break;
		case 'x': sep = optarg; break;
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
	if (pm_events_parse(events, &list, err, sizeof(err)))
		return pm_usage_error("stat", "%s", err);
	if (o.argv && workload_resolve(o.argv[0]))
		return 1;
	for (i = 0; i < o.nr_pids; i++)
		if (kill(o.pids[i], 0) && errno == ESRCH) {
			pm_err("-p %d: no such process", (int)o.pids[i]);
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
		return 1;
	}
	if (o.argv && (c = workload_fork(&wl, o.argv, &old))) {
		pm_err("cannot start '%s': %s", o.argv[0], strerror(-c));
		status = 1;
		goto out;
	}
	for (i = 0; i < list.nr; i++) {
		struct stat_ctr *sc = &ctr[i];
		int r = 0;

		memset(sc, 0, sizeof(*sc));
		sc->ev = list.ev[i];
		if (o.system_wide) {
			/* the online CPUs, as record opens them (daemon/cpu_set.c) */
			r = cpus.nr ? 0 : cpu_set_online(&cpus);
			for (k = 0; k < cpus.nr && !r; k++)
				r = open_one(sc, -1, cpus.cpus[k], false, false);
		} else if (o.argv) {
			r = open_one(sc, wl.pid, -1, true, true);
		} else {
			/* every existing thread; threads and children they create inherit */
			pid_t *tids = NULL;
			unsigned int nt = 0, cap = 0, t;

			for (k = 0; k < o.nr_pids && !r; k++)
				r = proc_task_threads(o.pids[k], &tids, &nt, &cap) == -ENOMEM ?
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
	if (!usable) {
		pm_err("none of the events can be counted here (first: '%s': %s); see "
		       "'pmiprof list'", ctr[0].ev.name, strerror(-ctr[0].err));
		if (wl.pid > 0)
			workload_abort(&wl);
		status = 1;
		goto out_close;
	}
	for (i = 0; i < list.nr; i++)
		for (k = 0; k < ctr[i].nr_fds && !o.argv; k++)
			ioctl(ctr[i].fds[k], PERF_EVENT_IOC_ENABLE, 0);
	t0 = pm_now_ns();
	if (o.argv && workload_go(&wl, o.argv[0])) {
		status = 1;
		goto out_close;
	}
	wait_run(&wl, o.argv != NULL, sfd, &o);
	if (o.argv)
		status = workload_exit_code(&wl);
	if (!o.quiet) {
		if (!sep) {
			fprintf(stderr, "\n Performance counter stats for '%s':\n\n",
				o.argv ? o.argv[0] : o.system_wide ? "system wide" : "process");
		}
		print_counts(ctr, list.nr, (double)(pm_now_ns() - t0) / 1e9, sep);
	}
	if (wl.reaped && WIFSIGNALED(wl.status))
		pm_info("workload terminated by signal %d (%s)", WTERMSIG(wl.status),
			strsignal(WTERMSIG(wl.status)));
out_close:
	for (i = 0; i < list.nr; i++) {
		for (k = 0; k < ctr[i].nr_fds; k++)
			close(ctr[i].fds[k]);
		free(ctr[i].fds);
	}
	workload_close(&wl);
	cpu_set_free(&cpus);
out:
	close(sfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return status;
}
