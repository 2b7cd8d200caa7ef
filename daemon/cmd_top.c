// SPDX-License-Identifier: GPL-2.0
/*
 * pmiprof top: a live view of processes, threads, functions or DSOs with
 * every event's rate and the derived metrics (docs/top.md).  It records as
 * `record` does (the same options, backends and no-PMU fallback: the drain
 * engine's record_run_hooked(), trace to /dev/null) and watches what the
 * writer writes through report's live session (analysis/top_live.c); each
 * refresh's rows are analysis/top_view.c's, shown full-screen
 * (output/top_screen.c) or, with --batch, printed as tables
 * (output/top_table.c).  With --from URL nothing is recorded: each refresh
 * fetches a running daemon's profile (lib/http_get.c), reads it
 * (input/pprof_reader.c) and puts its samples into the same window
 * (analysis/top_remote.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analysis/top_live.h"
#include "analysis/top_remote.h"
#include "analysis/top_view.h"
#include "commands.h"
#include "engine/record.h"
#include "http_get.h"
#include "input/pprof_reader.h"
#include "output/top_screen.h"
#include "output/top_table.h"
#include "util.h"

const char cmd_top_summary[] = "Live view of processes and functions with their rates and IPC";

const char cmd_top_help[] =
"NAME\n"
"    pmiprof top - live processes, threads, functions or DSOs with every event's rate\n"
"\n"
"SYNOPSIS\n"
"    pmiprof top [-a | -p PID[,PID...] | -- COMMAND [ARGS...]] [-e EVENTS]\n"
"                [-c PERIOD | -F HZ] [-g] [-d SECS] [--decay SECS] [--sort KEY]\n"
"                [--by process|thread|function|dso|cgroup] [--backend B] [-m PAGES]\n"
"                [--batch [-n N] [--format table|csv|json]]\n"
"    pmiprof top --from http://HOST:PORT [-p PID] [-d SECS] [--decay SECS] [--sort KEY]\n"
"                [--by process|thread|function|dso] [--batch ...]\n"
"\n"
"DESCRIPTION\n"
"    Records as 'pmiprof record' does (the same events, triggers, backends and\n"
"    no-PMU fallback; nothing is written to disk) and shows, every -d seconds,\n"
"    the rows of the last seconds by share of samples: each event as a rate per\n"
"    second (clock events as % of a CPU), IPC, misses per 1000 instructions and\n"
"    the branch-miss rate where their events are recorded, and each share's\n"
"    change since the previous refresh.  Without a target, -a (every CPU).\n"
"    With --from, nothing is recorded here: each refresh is the profile of\n"
"    the last -d seconds of a running 'pmiprof daemon' (its events, rate and\n"
"    targets), so top needs no right to record.\n"
"\n"
"    Keys: Up/Down, PgUp/PgDn move; Enter zooms into a process's (thread's,\n"
"    DSO's) functions or a function's source lines; Esc or Backspace goes\n"
"    back; s sort column; e event shown first; f filter by name; p pause;\n"
"    q quit; ? help.  docs/top.md says what every column means.\n"
"\n"
"OPTIONS\n"
"    -d, --delay SECS      refresh every SECS seconds (default 2; 0.1..3600)\n"
"    --decay SECS          rows cover the last SECS seconds (a multiple of -d,\n"
"                          default -d), so a process that stops falls off\n"
"    --by KEY              process (default), thread, function, dso or cgroup\n"
"                          (Enter on a cgroup: its processes)\n"
"    --sort KEY            samples (default), name, an event or a metric name\n"
"    -b, --batch           no screen: print each refresh as a table\n"
"    -n, --iterations N    with --batch: stop after N refreshes\n"
"    --format F            with --batch: table (default), csv (a table per\n"
"                          refresh), json (an object per refresh and line)\n"
"    --from URL            read a pmiprof daemon (http://HOST:PORT, as its\n"
"                          --listen) instead of recording; -d whole seconds;\n"
"                          -p PID: one of the daemon's processes\n"
"    -g                    frame-pointer call stacks: Enter on a function\n"
"                          without source lines shows its callers\n"
"    -e, -c, -F, -p, -a, --backend, -m   as for 'pmiprof record'; the default\n"
"                          rate is lower than record's (cpu-clock at 250 Hz\n"
"                          without a PMU): top runs while you watch\n"
"\n"
"EXIT STATUS\n"
"    0 when quit (q, -n N, Ctrl-C); COMMAND's status when it ended first;\n"
"    2 for usage errors; 1 when recording fails.\n";

/*
 * A view watched for minutes costs the workload the kernel's per-sample
 * work: 250 Hz of cpu-clock is about 1 % of a CPU on a VM where a sample
 * costs 45 us (docs/daemon.md, "Default rate"); hardware triggers every
 * 5,120,000 events (10 x record's).
 */
static const struct record_defaults record_defaults_top = {
	.events = RECORD_DEFAULT_EVENTS,
	.time_hz = 250,
	.hw_period = 10 * RECORD_DEFAULT_PERIOD,
	.sw_period = 1000,
};

struct top_args {
	const char *from;	/* --from URL, or NULL: record here */
	uint64_t from_pid;	/* --from with -p PID: the daemon's &pid= filter, 0: none */
	uint64_t delay_ms;
	uint64_t decay_ms;
	enum top_by by;
	const char *sort;
	bool batch;
	uint64_t iterations;	/* 0: until stopped */
	enum out_format fmt;
};

struct top_run {
	const struct top_args *a;
	struct top_live live;
	bool have_live;
	const char *backend;
	struct top_scope stack[8];	/* zooms: stack[depth] is shown */
	struct top_ui ui_stack[8];
	uint32_t depth;
	struct top_sort sort;		/* --sort, for batch and the first screen */
	struct top_view view, prev;
	bool have_view;
	struct top_origin origin;
	bool screen;			/* the ncurses screen is up */
	bool paused;
	uint64_t last_refresh;
};

enum { STOP_DONE = 1 };

static int parse_delay(const char *opt, const char *val, uint64_t *ms)
{
	char *end;
	double s = strtod(val, &end);

	if (end == val || *end || !(s >= 0.1 && s <= 3600))
		return pm_usage_error("top", "invalid %s '%s': valid is 0.1..3600 seconds", opt, val);
	*ms = (uint64_t)llround(s * 1000);
	return 0;
}

static int take_flag(int *argc, char **argv, int i)
{
	if (strcmp(argv[i], "-b") && strcmp(argv[i], "--batch"))
		return 0;
	memmove(argv + i, argv + i + 1, (size_t)(*argc - i) * sizeof(*argv));
	(*argc)--;
	return 1;
}

/* top's own options, taken out of argv before record's parser sees it. */
static int parse_top_args(int *argc, char **argv, struct top_args *a)
{
	static const char *const names[] = { "-d", "--delay", "--decay", "--by", "--sort",
					     "-n", "--iterations", "--format", "--from" };
	bool n_given = false, fmt_given = false;
	const char *val;
	int i, k, r, ret;

	memset(a, 0, sizeof(*a));
	a->delay_ms = 2000;
	a->sort = "samples";
	for (i = 1; i < *argc;) {
		if (!strcmp(argv[i], "--"))
			break;
		if (take_flag(argc, argv, i)) {
			a->batch = true;
			continue;
		}
		for (k = 0, r = 0; k < (int)ARRAY_SIZE(names) && !r; k++)
			r = pm_take_opt(argc, argv, i, names[k], &val);
		if (r < 0)
			return pm_usage_error("top", "option '%s' needs an argument", argv[i]);
		if (!r) {
			i++;
			continue;
		}
		ret = 0;
		switch (k - 1) {
		case 0: case 1:
			ret = parse_delay("-d", val, &a->delay_ms);
			break;
		case 2:
			ret = parse_delay("--decay", val, &a->decay_ms);
			break;
		case 3:
			if (top_by_parse(val, &a->by))
				ret = pm_usage_error("top", "unknown --by '%s' (valid: process, thread, "
						     "function, dso, cgroup)", val);
			break;
		case 4:
			a->sort = val;
			break;
		case 5: case 6:
			n_given = true;
			if (pm_parse_u64(val, 1, 1000000000, &a->iterations))
				ret = pm_usage_error("top", "invalid -n '%s': valid is 1..1000000000 "
						     "refreshes", val);
			break;
		case 7:
			fmt_given = true;
			if (parse_format(val, &a->fmt))
				ret = pm_usage_error("top", "unknown --format '%s' (valid: table, "
						     "csv, json)", val);
			break;
		case 8:
			a->from = val;
			break;
		}
		if (ret)
			return ret;
	}
	if ((n_given || fmt_given) && !a->batch)
		return pm_usage_error("top", "%s is for --batch (the screen runs until q)",
				      n_given ? "-n" : "--format");
	if (!a->decay_ms)
		a->decay_ms = a->delay_ms;
	if (a->decay_ms < a->delay_ms || a->decay_ms / a->delay_ms >= TOP_MAX_INTERVALS)
		return pm_usage_error("top", "invalid --decay: valid is -d .. %d x -d seconds",
				      TOP_MAX_INTERVALS - 1);
	/* the daemon's ?seconds= is whole seconds, 1..600 */
	if (a->from && (a->delay_ms % 1000 || a->delay_ms > 600000))
		return pm_usage_error("top", "with --from, -d is whole seconds, 1..600 (the "
				      "daemon's profile ?seconds=)");
	if (a->from && a->by == TOP_BY_CGROUP)
		return pm_usage_error("top", "--by cgroup reads this machine's /proc/PID/cgroup: "
				      "not with --from (the daemon's /metrics has its cgroup label)");
	if (a->from && strncmp(a->from, "http://", 7) && strncmp(a->from, "https://", 8))
		return pm_usage_error("top", "--from '%s': expected http://HOST:PORT, the "
				      "daemon's --listen address", a->from);
	return 0;
}

/*
 * What is left of argv with --from: -p PID (one process, the daemon's
 * &pid= filter) and nothing else, since the daemon chooses its events, rate
 * and targets.
 */
static int parse_from_args(int argc, char **argv, struct top_args *a)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *v = NULL;

		if ((!strcmp(argv[i], "-p") || !strcmp(argv[i], "--pid")) && i + 1 < argc)
			v = argv[++i];
		else if (!strncmp(argv[i], "-p", 2) && argv[i][2])
			v = argv[i] + 2;
		else if (!strncmp(argv[i], "--pid=", 6))
			v = argv[i] + 6;
		if (!v)
			return pm_usage_error("top", "--from reads what the daemon records: '%s' is "
					      "for recording here (the daemon's own options choose "
					      "events, rate and targets; -p PID picks one of its "
					      "processes)", argv[i]);
		if (a->from_pid || pm_parse_u64(v, 1, 4194304, &a->from_pid))
			return pm_usage_error("top", "with --from, -p takes one process id ('%s')",
					      v);
	}
	return 0;
}

/* Whether record's options name a target (-a, -p, a command); else top adds -a. */
static bool has_target(int argc, char **argv)
{
	static const char *const with_value = "ecFmzo";
	int i;

	for (i = 1; i < argc; i++) {
		const char *s = argv[i];

		if (!strcmp(s, "--") || s[0] != '-')
			return true;
		if (!strcmp(s, "-a") || !strcmp(s, "--all-cpus") || !strncmp(s, "-p", 2) ||
		    !strncmp(s, "--pid", 5))
			return true;
		if (s[1] != '-' && s[1] && !s[2] && strchr(with_value, s[1]))
			i++;
		else if (s[1] == '-' && !strchr(s, '=') && strcmp(s, "--quiet") &&
			 strcmp(s, "--help"))
			i++;	/* --event X, --backend X ...: every other long option takes one */
	}
	return false;
}

static int parse_sort(struct top_run *r, const struct trace_header *h)
{
	struct metric_set ms;
	uint32_t i;

	if (!strcmp(r->a->sort, "samples")) {
		r->sort = (struct top_sort){ TOP_SORT_SAMPLES, 0 };
		return 0;
	}
	if (!strcmp(r->a->sort, "name")) {
		r->sort = (struct top_sort){ TOP_SORT_NAME, 0 };
		return 0;
	}
	for (i = 0; i < h->nr_events && i < PMIPROF_MAX_EVENTS; i++)
		if (!strcmp(h->events[i].name, r->a->sort)) {
			r->sort = (struct top_sort){ TOP_SORT_EVENT, (int)i };
			return 0;
		}
	metrics_derived(h, &ms);
	for (i = 0; i < ms.n; i++)
		if (!strcmp(ms.m[i].name, r->a->sort)) {
			r->sort = (struct top_sort){ TOP_SORT_METRIC, (int)i };
			return 0;
		}
	{
		char valid[1024] = "samples, name";
		size_t n = strlen(valid);

		for (i = 0; i < h->nr_events && i < PMIPROF_MAX_EVENTS && n < sizeof(valid); i++)
			n += (size_t)snprintf(valid + n, sizeof(valid) - n, ", %s", h->events[i].name);
		for (i = 0; i < ms.n && n < sizeof(valid); i++)
			n += (size_t)snprintf(valid + n, sizeof(valid) - n, ", %s", ms.m[i].name);
		pm_err("unknown --sort '%s' (valid for these events: %s)", r->a->sort, valid);
	}
	return -EINVAL;
}

/* The sort in effect: --sort until the screen's s key chose another. */
static void current_sort(struct top_run *r, struct top_sort *so)
{
	char name[160];

	if (r->screen && r->have_view && r->ui_stack[r->depth].sort)
		top_screen_sort(&r->ui_stack[r->depth], &r->view, so, name, sizeof(name));
	else
		*so = r->sort;
}

/* Rows of the current scope again (a refresh, a zoom, a new sort): 0 or -errno. */
static int rebuild(struct top_run *r, bool refreshed)
{
	struct top_view v;
	struct top_sort so;
	const char *filter = r->screen ? r->ui_stack[r->depth].filter : NULL;
	int err;

	current_sort(r, &so);
	err = top_view_build(&v, &r->live, &r->stack[r->depth], &so, filter,
			     refreshed && r->have_view ? &r->view : r->have_view ? &r->prev : NULL);
	if (err)
		return err;
	if (refreshed && r->have_view) {
		top_view_free(&r->prev);
		r->prev = r->view;
	} else {
		top_view_free(&r->view);
	}
	r->view = v;
	r->have_view = true;
	return 0;
}

static void show(struct top_run *r)
{
	r->origin.paused = r->paused;
	if (r->screen)
		top_screen_draw(&r->ui_stack[r->depth], &r->view, &r->origin);
	else
		top_print(stdout, &r->view, &r->origin, r->a->fmt);
}

static int hook_open(void *arg, const struct trace_header *h, const char *backend,
		     const struct trace_writer_tap **tap)
{
	struct top_run *r = arg;
	int err = parse_sort(r, h);

	if (err)
		return err;
	err = top_live_open(&r->live, h, (uint32_t)(r->a->decay_ms / r->a->delay_ms),
			    h->call_graph != PMIPROF_CALL_GRAPH_NONE);
	r->have_live = !err;
	if (!err && r->a->by == TOP_BY_CGROUP)
		err = top_live_want_cgroups(&r->live);
	if (err) {
		pm_err("cannot start the live view: %s", strerror(-err));
		return err;
	}
	r->backend = backend;
	r->origin.backend = backend;
	*tap = top_live_tap(&r->live);
	r->last_refresh = pm_now_ns();
	if (!r->a->batch) {
		err = top_screen_open();
		if (err) {
			pm_err("cannot open the screen: %s", strerror(-err));
			return err;
		}
		r->screen = true;
	}
	return 0;
}

/* A refresh: the open interval closes, the rows are built and shown. */
static int refresh(struct top_run *r)
{
	int err;

	r->last_refresh = pm_now_ns();
	err = top_live_rotate(&r->live, r->last_refresh);
	if (err) {
		pm_err("live view: %s", strerror(-err));
		return err;
	}
	r->origin.refresh++;
	if (r->paused)
		return 0;
	err = rebuild(r, true);
	if (err) {
		pm_err("live view: %s", strerror(-err));
		return err;
	}
	show(r);
	if (r->a->batch && r->a->iterations && r->origin.refresh >= r->a->iterations)
		return STOP_DONE;
	return 0;
}

static int zoom(struct top_run *r)
{
	const struct top_scope *sc = &r->stack[r->depth];
	const struct top_row *row = &r->view.rows[r->ui_stack[r->depth].cursor];
	struct top_scope in = *sc;

	/* lines, or the callers standing in for them, are the end of a zoom */
	if (sc->by == TOP_BY_LINE || r->depth + 1 >= ARRAY_SIZE(r->stack))
		return 0;
	in.by = TOP_BY_FUNCTION;
	switch (sc->by) {
	case TOP_BY_PROCESS:
		in.pid = (uint32_t)row->key;
		snprintf(in.label, sizeof(in.label), "functions of process %lld (%s)",
			 session_task_id((uint32_t)row->key), row->name);
		break;
	case TOP_BY_THREAD:
		in.tid = (uint32_t)row->key;
		snprintf(in.label, sizeof(in.label), "functions of thread %lld (%s)",
			 session_task_id((uint32_t)row->key), row->name);
		break;
	case TOP_BY_DSO:
		in.dso = (int64_t)row->key;
		snprintf(in.label, sizeof(in.label), "functions of %s", row->name);
		break;
	case TOP_BY_CGROUP:
		in.by = TOP_BY_PROCESS;
		in.cgroup = (int64_t)row->key;
		snprintf(in.label, sizeof(in.label), "processes of cgroup %s", row->name);
		break;
	default:
		in.by = TOP_BY_LINE;
		in.sym = (int64_t)row->key;
		snprintf(in.label, sizeof(in.label), "lines of %s%s%s%s", row->name,
			 sc->label[0] ? " (" : "", sc->label, sc->label[0] ? ")" : "");
		break;
	}
	r->depth++;
	r->stack[r->depth] = in;
	memset(&r->ui_stack[r->depth], 0, sizeof(r->ui_stack[r->depth]));
	r->ui_stack[r->depth].focus = r->ui_stack[r->depth - 1].focus;
	return rebuild(r, false);
}

static int on_key(struct top_run *r, int key)
{
	switch (top_screen_handle(&r->ui_stack[r->depth], key, &r->view)) {
	case TOP_QUIT:
		return STOP_DONE;
	case TOP_ZOOM:
		return zoom(r);
	case TOP_BACK:
		if (!r->depth)
			return 0;
		r->depth--;
		return rebuild(r, false);
	case TOP_PAUSE:
		r->paused = !r->paused;
		return 0;
	case TOP_REBUILD:
		return rebuild(r, false);
	default:
		return 0;
	}
}

/* Keys waiting (and a resize, which ncurses reports as a key). */
static int hook_input(void *arg)
{
	struct top_run *r = arg;
	bool any = false;
	int key, ret = 0;

	while (!ret && r->screen && (key = top_screen_key()) >= 0) {
		any = true;
		ret = on_key(r, key);
	}
	if (ret < 0) {
		pm_err("live view: %s", strerror(-ret));
		return ret;
	}
	if (any && !ret && r->have_view)
		show(r);
	return ret;
}

static int hook_tick(void *arg, const struct record_stats *st)
{
	struct top_run *r = arg;
	int ret;

	(void)st;
	ret = hook_input(r);
	if (!ret && pm_now_ns() - r->last_refresh >= r->a->delay_ms * 1000000ull)
		ret = refresh(r);
	return ret;
}

/* --from: the first profile's header opens the window, as hook_open() does. */
static int from_open(struct top_run *r, const struct trace_header *h)
{
	int err = parse_sort(r, h);

	if (err)
		return err;
	/* the profile's stacks (h->call_graph) give a function's callers */
	err = top_live_open(&r->live, h, (uint32_t)(r->a->decay_ms / r->a->delay_ms),
			    h->call_graph != PMIPROF_CALL_GRAPH_NONE);
	if (err) {
		pm_err("cannot start the live view: %s", strerror(-err));
		return err;
	}
	top_remote_open(&r->live);
	r->have_live = true;
	r->origin.backend = r->a->from;
	if (!r->a->batch) {
		err = top_screen_open();
		if (err) {
			pm_err("cannot open the screen: %s", strerror(-err));
			return err;
		}
		r->screen = true;
	}
	return 0;
}

static volatile sig_atomic_t from_stop;

static void on_stop_signal(int sig)
{
	(void)sig;
	from_stop = 1;
}

/* http_get()'s idle call: keys (and a resize) while a profile is on its way. */
static int from_idle(void *arg)
{
	struct top_run *r = arg;

	if (from_stop)
		return STOP_DONE;
	return r->screen ? hook_input(r) : 0;
}

/* One message for a fetch that failed: what it means for --from. */
static int from_error(const char *base, const char *url, int err, const struct http_reply *rep)
{
	if (err == -ECONNREFUSED)
		pm_err("--from %s: connection refused: no daemon listens there (pmiprof daemon "
		       "--listen HOST:PORT)", base);
	else if (err == -EHOSTUNREACH || err == -EINVAL)
		pm_err("--from %s: %s", base, rep->error);
	else if (err == -ETIMEDOUT)
		pm_err("--from %s: no answer in time: %s", url, rep->error);
	else
		pm_err("--from %s: %s (%s)", url, rep->error[0] ? rep->error : strerror(-err),
		       strerror(-err));
	return err;
}

/* One refresh's profile: fetched, read, into the window. 0 or -errno. */
static int from_fetch(struct top_run *r, const char *url, struct http_get_opts *ho)
{
	struct http_reply rep;
	struct pprof_profile prof;
	struct trace_header h;
	uint64_t t0 = pm_now_ns(), dropped;
	int err;

	ho->wait_fd = r->screen ? STDIN_FILENO : -1;
	err = http_get(url, ho, &rep);
	if (err) {
		if (err < 0)
			from_error(r->a->from, url, err, &rep);
		http_reply_free(&rep);
		return err;
	}
	if (rep.status != 200) {
		/* a daemon's refusal is one line of text; another server's, a page */
		pm_err("--from %s: HTTP %ld: %.*s (is it a pmiprof daemon?)", url, rep.status,
		       (int)strcspn(rep.body, "\r\n") > 160 ? 160 : (int)strcspn(rep.body, "\r\n"),
		       rep.body);
		http_reply_free(&rep);
		return -EPROTO;
	}
	dropped = strtoull(rep.header, NULL, 10);
	err = pprof_profile_read(&prof, rep.body, rep.len, 0);
	http_reply_free(&rep);
	if (!err)
		err = pprof_profile_header(&prof, &h);
	if (err == -EBADMSG || err == -ENOMSG || err == -E2BIG)
		pm_err("--from %s: the answer is not a pmiprof daemon's profile (%s)", url,
		       err == -ENOMSG ? "another program's pprof" : "not a pprof profile");
	if (!err && !r->have_live)
		err = from_open(r, &h);
	if (!err) {
		err = top_remote_add(&r->live, &prof, t0, dropped);
		if (err == -EBADMSG)
			pm_err("--from %s: the daemon's events changed (its --config was "
			       "reloaded): start top again", r->a->from);
		else if (err)
			pm_err("live view: %s", strerror(-err));
	}
	pprof_profile_free(&prof);
	return err;
}

/*
 * top --from URL: each refresh is the daemon's profile of the next -d
 * seconds; the screen's keys are read while it comes.  STOP_DONE, or
 * -errno after its message.
 */
static int run_from(struct top_run *r)
{
	char url[2048], pidq[32] = "";
	size_t bl = strlen(r->a->from);
	struct http_get_opts ho = { .timeout_ms = r->a->delay_ms + 30000, .max_bytes = 256u << 20,
				    .header = "X-Pmiprof-Samples-Dropped", .idle = from_idle,
				    .arg = r };
	struct sigaction sa = { .sa_handler = on_stop_signal };
	int ret = 0;

	while (bl && r->a->from[bl - 1] == '/')
		bl--;
	if (r->a->from_pid)
		snprintf(pidq, sizeof(pidq), "&pid=%llu", (unsigned long long)r->a->from_pid);
	if (snprintf(url, sizeof(url), "%.*s/debug/pprof/profile?seconds=%llu%s", (int)bl,
		     r->a->from, (unsigned long long)(r->a->delay_ms / 1000), pidq) >=
	    (int)sizeof(url)) {
		pm_err("--from: the URL is too long");
		return -ENAMETOOLONG;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!ret) {
		ret = from_fetch(r, url, &ho);
		if (!ret)
			ret = refresh(r);
	}
	return ret;
}

/*
 * While the screen is up, messages (the no-PMU notice, warnings) would be
 * drawn over it: stderr goes to a memory file, printed when the screen
 * closes.
 */
static int stderr_hold(int *saved)
{
	int fd = memfd_create("pmiprof-top-stderr", MFD_CLOEXEC);

	*saved = -1;
	if (fd < 0)
		return -errno;
	fflush(stderr);
	*saved = dup(STDERR_FILENO);
	if (*saved < 0 || dup2(fd, STDERR_FILENO) < 0) {
		int e = -errno;

		if (*saved >= 0)
			close(*saved);
		*saved = -1;
		close(fd);
		return e;
	}
	close(fd);
	return 0;
}

static void stderr_release(int saved)
{
	char buf[4096];
	ssize_t n;

	if (saved < 0)
		return;
	fflush(stderr);
	lseek(STDERR_FILENO, 0, SEEK_SET);
	while ((n = read(STDERR_FILENO, buf, sizeof(buf))) > 0)
		if (write(saved, buf, (size_t)n) != n)
			break;
	dup2(saved, STDERR_FILENO);
	close(saved);
}

/* Frees what a run holds once it ended. */
static void run_close(struct top_run *r, int saved)
{
	if (r->screen)
		top_screen_close();
	stderr_release(saved);
	if (r->have_view) {
		top_view_free(&r->view);
		top_view_free(&r->prev);
	}
	if (r->have_live)
		top_live_close(&r->live);
}

static int cmd_top_from(const struct top_args *a)
{
	struct top_run r;
	int ret, saved = -1;

	if (!a->batch && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)))
		return pm_usage_error("top", "the screen needs a terminal on stdin and stdout: "
				      "use --batch for scripts");
	memset(&r, 0, sizeof(r));
	r.a = a;
	top_scope_init(&r.stack[0], a->by);
	if (!a->batch && stderr_hold(&saved))
		saved = -1;
	ret = run_from(&r);
	run_close(&r, saved);
	if (ret == STOP_DONE)
		return 0;
	return ret == -EINVAL && !r.have_live ? EXIT_USAGE : 1;
}

int cmd_top(int argc, char **argv)
{
	struct top_args a;
	struct record_opts o;
	struct top_run r;
	struct record_hooks hk = { 0 };
	char **av;
	int ac = argc, ret, status, saved = -1;

	av = calloc((size_t)argc + 2, sizeof(*av));
	if (!av)
		return 1;
	memcpy(av, argv, (size_t)argc * sizeof(*av));
	ret = parse_top_args(&ac, av, &a);
	if (!ret && a.from) {
		ret = parse_from_args(ac, av, &a);
		if (!ret)
			ret = cmd_top_from(&a);
		free(av);
		return ret;
	}
	if (!ret && !has_target(ac, av)) {
		memmove(av + 2, av + 1, (size_t)(ac - 1) * sizeof(*av));
		av[1] = "-a";
		ac++;
	}
	if (!ret)
		ret = record_parse_common("top", ac, av, &o, &record_defaults_top);
	if (ret < 0)
		ret = command_help("top");
	if (!ret && strcmp(o.output, RECORD_DEFAULT_OUTPUT))
		ret = pm_usage_error("top", "-o: top writes no trace (use 'pmiprof record')");
	/* -g: a function without lines zooms into its callers; DWARF unwinding
	 * of every sample's stack copy would cost more than top may */
	if (!ret && o.call_graph == PMIPROF_CALL_GRAPH_DWARF)
		ret = pm_usage_error("top", "--call-graph dwarf is for 'pmiprof record' and the "
				     "daemon: top takes -g (frame pointers)");
	if (!ret && !a.batch && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)))
		ret = pm_usage_error("top", "the screen needs a terminal on stdin and stdout: "
				     "use --batch for scripts");
	if (ret) {
		free(av);
		return ret;
	}
	o.output = "/dev/null";
	o.quiet = true;
	o.no_permission_hint = "; or watch a running daemon: pmiprof top --from "
			       "http://HOST:PORT (its --listen address)";
	memset(&r, 0, sizeof(r));
	r.a = &a;
	top_scope_init(&r.stack[0], a.by);
	hk = (struct record_hooks){ .open = hook_open, .tick = hook_tick, .input = hook_input,
				    .fd = a.batch ? -1 : STDIN_FILENO, .arg = &r };
	/* the screen looks at its keys (and a resize) ten times a second */
	hk.tick_ns = a.batch ? a.delay_ms * 1000000ull : 100000000ull;
	if (!a.batch && stderr_hold(&saved))
		saved = -1;
	status = record_run_hooked(&o, ac, av, &hk);
	/* the workload ended first: its last seconds are one more refresh */
	if (!hk.stopped_by && r.have_live && a.batch && r.live.iv[r.live.cur].n)
		refresh(&r);
	run_close(&r, saved);
	free(av);
	if (hk.stopped_by == STOP_DONE)
		return 0;
	if (hk.stopped_by == -EINVAL && !r.have_live)
		return EXIT_USAGE;
	return hk.stopped_by ? 1 : status;
}
