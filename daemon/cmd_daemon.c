// SPDX-License-Identifier: GPL-2.0
/*
 * pmiprof daemon: record system-wide without end into a directory of
 * segments (segment_writer.c), delete old ones (retention.c) and serve
 * metrics and profiles over HTTP (http_server.c).  The recording itself is
 * the recorder's: the same options (record_parse_common), backends and
 * trace writer as `pmiprof record -a`; this loop only cuts the stream into
 * segments.  docs/daemon.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "commands.h"
#include "service/daemon_config.h"
#include "service/daemon_state.h"
#include "engine/host_info.h"
#include "service/http_server.h"
#include "service/web_config.h"
#include "engine/record.h"
#include "service/retention.h"
#include "service/segment_writer.h"
#include "trace_dir.h"
#include "util.h"

#define DAEMON_DEFAULT_DIR	"/var/lib/pmiprof"
#define DAEMON_DEFAULT_SEGMENT	60
#define DAEMON_DEFAULT_RETAIN	"1d,1G"
#define DAEMON_DEFAULT_TOP	20
#define DAEMON_DEFAULT_MAX_MEMORY	"128M"	/* 8.5-22 MiB without profiles (docs/daemon.md) */
#define TICK_MS			250
/* While a profile is taken: what is left to apply when its seconds end is this much. */
#define PROFILE_TICK_MS		20

const char cmd_daemon_summary[] = "Record system-wide without end; serve metrics and profiles";

const char cmd_daemon_help[] =
"NAME\n"
"    pmiprof daemon - continuous system-wide windowed profiling, served over HTTP\n"
"\n"
"SYNOPSIS\n"
"    pmiprof daemon [--config FILE] [--dir DIR] [--segment SECONDS]\n"
"                   [--retain AGE|SIZE[,...]]\n"
"                   [--listen ADDR:PORT | --no-listen] [--top-comms K]\n"
"                   [--web.config.file FILE] [--max-memory SIZE]\n"
"                   [-e EVENTS] [-c PERIOD | -F HZ] [-g | --call-graph MODE]\n"
"                   [--backend auto|perf|module] [-m PAGES] [-z LEVEL] [-q]\n"
"\n"
"DESCRIPTION\n"
"    Records every CPU (as 'pmiprof record -a'; CPUs coming online later are\n"
"    followed) until SIGTERM or SIGINT, into a directory of segments: each a\n"
"    complete trace that 'pmiprof report -i FILE' reads on its own (side-band\n"
"    of every running process written again at its start), closed, fsync'd\n"
"    and renamed into place every SECONDS.  The open segment is DIR/seg-TIME\n"
"    .pmiprof.open, readable as an unfinished trace; it is synced every\n"
"    second, so 'kill -9' loses at most about a second.  'pmiprof report -i\n"
"    DIR --since -10m' (and every reading command) reads the directory as one\n"
"    trace.\n"
"\n"
"    HTTP (libmicrohttpd) on ADDR:PORT: /metrics (Prometheus text format),\n"
"    /debug/pprof/profile?seconds=N (gzip'd pprof of the next N seconds),\n"
"    /healthz and an index at /.  See docs/daemon.md for what is served.\n"
"\n"
"OPTIONS\n"
"    --config FILE       options from FILE, one 'key = value' a line, the keys\n"
"                        being the long options below without '--' (events,\n"
"                        count, freq for -e, -c, -F; listen = none; quiet =\n"
"                        yes); '#' starts a comment line.  Options given on\n"
"                        the command line win over the file.  An unknown key or\n"
"                        a bad value is refused with FILE:LINE.\n"
"    --dir DIR           where segments go (default " DAEMON_DEFAULT_DIR ")\n"
"    --segment SECONDS   length of a segment, 1..86400 (default 60)\n"
"    --retain AGE|SIZE   delete the oldest closed segments that ended more than\n"
"                        AGE ago (seconds, or with s/m/h/d) or while all take\n"
"                        more than SIZE (with B/K/M/G/T); both with a comma\n"
"                        (default " DAEMON_DEFAULT_RETAIN ")\n"
"    --listen ADDR:PORT  HTTP address (default 127.0.0.1:10150; port 0 picks a\n"
"                        free one, printed).  A non-loopback address exposes\n"
"                        the command names and profiles of every process.\n"
"    --no-listen         no HTTP server\n"
"    --web.config.file FILE\n"
"                        TLS and basic auth in the Prometheus exporter\n"
"                        toolkit's web configuration (YAML: tls_server_config\n"
"                        with cert_file, key_file, client_auth_type,\n"
"                        client_ca_file, min_version, max_version;\n"
"                        basic_auth_users with bcrypt hashes;\n"
"                        http_server_config headers), as node_exporter's\n"
"                        --web.config.file; read again when it or a file it\n"
"                        names changes (checked every second)\n"
"    --max-memory SIZE   bound on what profiles keep (loaded symbols, the\n"
"                        sample queue): past 3/4 of it the symbols are\n"
"                        dropped at the next segment (default "
DAEMON_DEFAULT_MAX_MEMORY ", 16M..1T)\n"
"    --top-comms K       /metrics names the K most active (command, cgroup)\n"
"                        pairs, the rest are comm=\"other\" (1..1000, default\n"
"                        20); a pair named for 60 s gives way to one more\n"
"                        than twice as active\n"
"    -g, --call-graph fp|dwarf[,SIZE]|no\n"
"                        call stacks, as for 'pmiprof record'; the default is\n"
"                        fp (profiles are stacks), 'no' records none (then\n"
"                        /debug/pprof/profile answers 501)\n"
"    -F HZ               windows per second per CPU for cpu-clock/task-clock\n"
"                        triggers (the no-PMU fallback); default 99, about\n"
"                        0.5 % of a core on a VM without a PMU (record's\n"
"                        default 10000 costs as much as the workload there)\n"
"    -c PERIOD           trigger events per window; default 51200000 for\n"
"                        hardware triggers (100 x record's), 1000 for\n"
"                        counting software triggers\n"
"    -e, --max-stack, --backend, -m, -z, -q\n"
"                        as for 'pmiprof record' (same events and no-PMU\n"
"                        fallback)\n"
"    -h, --help          this text\n"
"\n"
"SIGNALS\n"
"    SIGTERM, SIGINT     close the open segment (FINISH, fsync, rename), exit 0\n"
"    SIGHUP              re-read --config FILE: an invalid file is refused with\n"
"                        FILE:LINE and the running configuration kept; segment,\n"
"                        retain, top-comms, listen and quiet apply at once; a\n"
"                        change of dir, events, count, freq, call-graph,\n"
"                        max-stack, backend, mmap-pages or compression-level\n"
"                        closes the open segment and restarts recording (the\n"
"                        daemon executes itself again, same pid)\n"
"\n"
"EXAMPLES\n"
"    pmiprof daemon --dir /var/lib/pmiprof --retain 7d,5G\n"
"    pmiprof daemon --dir /tmp/p --segment 10 --listen 127.0.0.1:0 -F 999\n"
"    pmiprof report -i /var/lib/pmiprof --since -10m --comm nginx\n"
"\n"
"EXIT STATUS\n"
"    0 after SIGTERM/SIGINT, 1 when recording could not start, 2 for usage\n"
"    errors.\n";

/* The daemon's own options, taken out of argv before record's parser sees it. */
struct daemon_args {
	const char *dir;
	uint64_t segment_s;
	struct retention ret;
	const char *listen;		/* NULL: --no-listen */
	uint32_t top_comms;
	const char *config;		/* --config FILE, or NULL */
	const char *web_config;		/* --web.config.file FILE, or NULL */
	uint64_t max_memory;		/* --max-memory, bytes */
	const char *retain;		/* as given */
};

/* One reading of --config FILE and the command line; strings point into cfg and av. */
struct daemon_conf {
	struct daemon_config cfg;
	char **av;
	int ac;
	struct daemon_args a;
	struct record_opts o;
};

/* What runs, for the loop and SIGHUP. */
struct daemon_run {
	int argc;
	char **argv;
	struct daemon_conf *conf;	/* what the recording was started with */
	uint64_t segment_s;		/* live values (SIGHUP changes them) */
	char listen[256];		/* "" for none */
	struct daemon_state *d;
	struct http_server *http;
	struct web_config web;		/* --web.config.file as last read (empty: none) */
	bool have_web;
	uint64_t web_checked;		/* CLOCK_MONOTONIC ns of the last look at it */
};

enum loop_end { LOOP_RUN = -1, LOOP_STOP, LOOP_RESTART };

static int parse_daemon_args(int *argc, char **argv, struct daemon_args *a)
{
	static const char *const names[] = { "--dir", "--segment", "--retain", "--listen",
					     "--top-comms", "--config", "--web.config.file",
					     "--max-memory" };
	const char *retain = DAEMON_DEFAULT_RETAIN, *val;
	char err[256];
	uint64_t v;
	int i, k, r;

	a->dir = DAEMON_DEFAULT_DIR;
	a->segment_s = DAEMON_DEFAULT_SEGMENT;
	a->listen = DAEMON_DEFAULT_LISTEN;
	a->top_comms = DAEMON_DEFAULT_TOP;
	a->config = NULL;
	a->web_config = NULL;
	if (daemon_parse_memory(DAEMON_DEFAULT_MAX_MEMORY, &a->max_memory, err, sizeof(err)))
		return pm_usage_error("daemon", "%s", err);
	for (i = 1; i < *argc;) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--no-listen")) {
			a->listen = NULL;
			memmove(argv + i, argv + i + 1, (size_t)(*argc - i) * sizeof(*argv));
			(*argc)--;
			continue;
		}
		for (k = 0, r = 0; k < (int)ARRAY_SIZE(names) && !r; k++)
			r = pm_take_opt(argc, argv, i, names[k], &val);
		if (r < 0)
			return pm_usage_error("daemon", "option '%s' needs an argument", argv[i]);
		if (!r) {
			i++;
			continue;
		}
		switch (k - 1) {
		case 0:
			if (!*val)
				return pm_usage_error("daemon", "--dir: empty path");
			a->dir = val;
			break;
		case 1:
			if (pm_parse_u64(val, 1, 86400, &a->segment_s))
				return pm_usage_error("daemon", "invalid --segment '%s': valid is "
						      "1..86400 seconds", val);
			break;
		case 2:
			retain = val;
			break;
		case 3:
			a->listen = val;
			break;
		case 4:
			if (pm_parse_u64(val, 1, 1000, &v))
				return pm_usage_error("daemon", "invalid --top-comms '%s': valid is "
						      "1..1000", val);
			a->top_comms = (uint32_t)v;
			break;
		case 5:
			a->config = val;
			break;
		case 6:
			if (!*val)
				return pm_usage_error("daemon", "--web.config.file: empty path");
			a->web_config = val;
			break;
		case 7:
			if (daemon_parse_memory(val, &a->max_memory, err, sizeof(err)))
				return pm_usage_error("daemon", "--max-memory %s", err);
			break;
		}
	}
	a->retain = retain;
	if (retention_parse(retain, &a->ret, err, sizeof(err)))
		return pm_usage_error("daemon", "%s", err);
	return 0;
}

static int make_dir(const char *dir)
{
	char p[4096];
	size_t i, l = strlen(dir);

	if (l >= sizeof(p))
		return -ENAMETOOLONG;
	memcpy(p, dir, l + 1);
	for (i = 1; i <= l; i++) {
		if (p[i] != '/' && p[i])
			continue;
		p[i] = '\0';
		if (mkdir(p, 0755) && errno != EEXIST)
			return -errno;
		p[i] = dir[i];
	}
	return 0;
}

/* The signals the loop reads from its signalfd, blocked (pm_signalfd()). */
static int block_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	return pm_signalfd(&set, old);
}

/* --config FILE (or --config=FILE) before "--", or NULL; -1 when its value is missing. */
static int find_config(int argc, char **argv, const char **path)
{
	int i;

	*path = NULL;
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strncmp(argv[i], "--config=", 9))
			*path = argv[i] + 9;
		else if (!strcmp(argv[i], "--config") && i + 1 >= argc)
			return -1;
		else if (!strcmp(argv[i], "--config"))
			*path = argv[++i];
	}
	return 0;
}

static void conf_free(struct daemon_conf *c)
{
	daemon_config_free(&c->cfg);
	free(c->av);
	memset(c, 0, sizeof(*c));
}

/*
 * --config FILE's options, then the command line's (which win), through
 * the command line's parsers.  0, or the exit status after the message.
 */
static int conf_parse(int argc, char **argv, struct daemon_conf *c)
{
	const char *path;
	char err[768];
	int i, ret;

	memset(c, 0, sizeof(*c));
	if (find_config(argc, argv, &path))
		return pm_usage_error("daemon", "option '--config' needs an argument");
	if (path) {
		ret = daemon_config_load(path, argc - 1, argv + 1, &c->cfg, err, sizeof(err));
		if (ret) {
			pm_err("%s", err);
			return 2;
		}
	}
	/* record's parser sees a copy without our options, and -a */
	c->av = calloc((size_t)argc + c->cfg.n + 2, sizeof(*c->av));
	if (!c->av) {
		daemon_config_free(&c->cfg);
		return 1;
	}
	c->av[c->ac++] = argv[0];
	daemon_config_args(&c->cfg, c->av, &c->ac);
	memcpy(c->av + c->ac, argv + 1, (size_t)(argc - 1) * sizeof(*c->av));
	c->ac += argc - 1;
	ret = parse_daemon_args(&c->ac, c->av, &c->a);
	if (!ret) {
		c->av[c->ac++] = "-a";
		ret = record_parse_common("daemon", c->ac, c->av, &c->o,
					  &record_defaults_daemon);
		if (ret < 0)
			ret = command_help("daemon");
	}
	if (!ret) {
		/* profiles need stacks: fp unless told otherwise (--call-graph no) */
		for (i = 1; i < c->ac && strcmp(c->av[i], "-g") &&
		     strncmp(c->av[i], "--call-graph", 12); i++)
			;
		if (i == c->ac) {
			c->o.call_graph = PMIPROF_CALL_GRAPH_FP;
			c->o.call_graph_dump_size = 0;
		}
		if (c->o.nr_pids || c->o.argv)
			ret = pm_usage_error("daemon", "the daemon records every CPU: it takes no "
					     "command and no -p");
		else if (strcmp(c->o.output, RECORD_DEFAULT_OUTPUT))
			ret = pm_usage_error("daemon", "-o: the daemon writes segments into --dir");
	}
	if (ret)
		conf_free(c);
	return ret;
}

/*
 * --web.config.file is read again when it or a file it names changed
 * (checked once a second, as exporter-toolkit reads it at every request):
 * new users and headers apply to the next request; a TLS change
 * (certificate, key, CA, client_auth_type, versions) restarts the server
 * on the same address.  A file that does not read or check is refused
 * with its reason and the running configuration kept.
 */
static void web_config_poll(struct daemon_run *r)
{
	struct web_config n;
	char err[768];
	uint64_t t = pm_now_ns();

	if (!r->have_web || t - r->web_checked < 1000000000ull)
		return;
	r->web_checked = t;
	if (!web_config_changed(&r->web))
		return;
	if (web_config_load(r->web.path, &n, err, sizeof(err))) {
		/* the file's identity is taken again: the message once per change */
		pm_err("%s; the running web configuration is kept", err);
		web_config_refresh_ids(&r->web);
		return;
	}
	if (!r->http) {
		web_config_free(&r->web);
		r->web = n;
		return;
	}
	if (web_config_same_tls(&r->web, &n)) {
		if (http_server_set_policy(r->http, &n)) {
			pm_err("%s: out of memory: the running web configuration is kept", n.path);
			web_config_free(&n);
			return;
		}
		pm_info("%s applied: %u basic-auth user(s)", n.path, n.nr_users);
		web_config_free(&r->web);
		r->web = n;
		return;
	}
	{
		/* the same port, also when --listen asked for any (port 0) */
		char listen[300];
		const char *colon = strrchr(r->listen, ':');

		snprintf(listen, sizeof(listen), "%.*s:%u", (int)(colon - r->listen), r->listen,
			 http_server_port(r->http));
		pm_info("%s: TLS changed: restarting the server on %s", n.path, listen);
		http_server_stop(r->http);
		r->http = NULL;
		if (!http_server_start(&r->http, listen, r->d, &n)) {
			web_config_free(&r->web);
			r->web = n;
			return;
		}
		pm_err("%s: cannot serve with the new TLS configuration: serving with the one "
		       "before", n.path);
		web_config_free(&n);
		web_config_refresh_ids(&r->web);
		if (http_server_start(&r->http, listen, r->d, &r->web))
			pm_err("cannot serve on %s either: no HTTP until the next change", listen);
	}
}

/* The HTTP server on r->listen ("" for none).  0 or -errno. */
static int http_restart(struct daemon_run *r, const char *listen)
{
	struct http_server *h = NULL;
	int ret = 0;

	if (!strcmp(listen, r->listen))
		return 0;
	/* the old one first: the new address may be the same port on another host name */
	http_server_stop(r->http);
	r->http = NULL;
	if (*listen)
		ret = http_server_start(&h, listen, r->d, r->have_web ? &r->web : NULL);
	if (!ret) {
		r->http = h;
		snprintf(r->listen, sizeof(r->listen), "%s", listen);
		return 0;
	}
	pm_err("SIGHUP: cannot serve on %s; serving on %s again", listen,
	       *r->listen ? r->listen : "(none)");
	if (*r->listen && http_server_start(&r->http, r->listen, r->d,
					    r->have_web ? &r->web : NULL))
		pm_err("cannot serve on %s either: no HTTP until the next SIGHUP", r->listen);
	return ret;
}

/*
 * SIGHUP: re-read --config.  A file that does not parse changes nothing;
 * live keys are applied here; a change of a key that shapes the recording
 * returns LOOP_RESTART (the caller closes the segment and executes itself).
 */
static int reload(struct daemon_run *r)
{
	struct daemon_conf n;
	const char *key;
	int ret;

	if (!r->conf->a.config) {
		pm_info("SIGHUP: no --config FILE to re-read; nothing changed");
		return LOOP_RUN;
	}
	pm_info("SIGHUP: re-reading %s", r->conf->a.config);
	ret = conf_parse(r->argc, r->argv, &n);
	/* the parsers set -q's global: the running value stands until applied */
	pm_quiet = r->conf->o.quiet;
	if (ret) {
		pm_err("SIGHUP: %s refused; the running configuration is kept", r->conf->a.config);
		return LOOP_RUN;
	}
	key = daemon_config_restart_key(&r->conf->cfg, &n.cfg);
	if (key) {
		pm_info("SIGHUP: '%s' changed: closing the open segment and restarting recording "
			"with the new configuration", key);
		conf_free(&n);
		return LOOP_RESTART;
	}
	r->segment_s = n.a.segment_s;
	daemon_state_set_limits(r->d, &n.a.ret, n.a.top_comms);
	http_restart(r, n.a.listen ? n.a.listen : "");
	pm_quiet = n.o.quiet;
	pm_info("SIGHUP: %s applied: segment %llu s, retain %s, top-comms %u, listen %s",
		r->conf->a.config, (unsigned long long)r->segment_s, n.a.retain, n.a.top_comms,
		*r->listen ? r->listen : "none");
	conf_free(&n);
	return LOOP_RUN;
}

/* LOOP_STOP after SIGTERM or SIGINT, LOOP_RESTART for a reload that needs it, else LOOP_RUN. */
static int handle_signals(struct daemon_run *r, int sfd)
{
	struct signalfd_siginfo si;
	int end = LOOP_RUN;

	while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			if (end == LOOP_RUN)
				end = reload(r);
			continue;
		}
		pm_info("%s: closing the open segment", strsignal((int)si.ssi_signo));
		end = LOOP_STOP;
	}
	return end;
}

/* 0 or -errno; *end says whether to stop or to restart. */
static int record_loop(struct daemon_run *r, const struct backend_ops *b,
		       struct record_session *s, int dir_fd, int sfd,
		       const struct trace_writer_opts *wo, enum loop_end *end)
{
	struct daemon_state *d = r->d;
	const char *dir = r->conf->a.dir;
	struct pollfd pfd[257];	/* rings, signals, flush requests */
	struct segment sg;
	int ret, sig = LOOP_RUN;

	daemon_state_segment_starting(d);
	ret = segment_open(&sg, dir_fd, dir, s, b, wo, daemon_state_tap(d));
	if (ret)
		return ret;
	daemon_state_segment_started(d, &sg);
	ret = b->enable(s);
	if (ret) {
		segment_close(&sg, dir, s, PMIPROF_FINISH_F_ERROR);
		return ret;
	}
	/* systemd Type=notify (a no-op without $NOTIFY_SOCKET) */
	sd_notifyf(0, "READY=1\nSTATUS=recording every CPU into %s", dir);
	while (sig == LOOP_RUN) {
		uint64_t now = pm_now_ns(), end_ns = sg.start_ns + r->segment_s * 1000000000ull;
		int nb = 0, timeout = daemon_state_profiling(d) ? PROFILE_TICK_MS : TICK_MS, n;

		if (end_ns <= now) {
			struct segment next;

			/* everything up to now into this segment */
			if (sg.w && !sg.failed) {
				s->drain_all = true;
				segment_after_drain(&sg, dir, b->drain(s, sg.w));
				s->drain_all = false;
			}
			/*
			 * The next one reads its side-band from /proc before this
			 * one's fsync: a process sampled meanwhile that exits
			 * before that read would have samples and no mapping there.
			 */
			daemon_state_segment_starting(d);
			ret = segment_open(&next, dir_fd, dir, s, b, wo, daemon_state_tap(d));
			segment_close(&sg, dir, s, 0);
			daemon_state_segment_closed(d, &sg, s);	/* counted, then retention */
			sg = next;
			if (ret)	/* retried at the next segment */
				daemon_state_note_error(d, ret);
			else
				daemon_state_segment_started(d, &sg);
			ret = 0;
			if (!sg.w)
				sg.start_ns = pm_now_ns();
			continue;
		}
		if ((end_ns - now) / 1000000 < (uint64_t)timeout)
			timeout = (int)((end_ns - now) / 1000000) + 1;
		/* a failed segment: leave the rings alone, the kernel counts what overflows */
		if (sg.w && !sg.failed)
			nb = b->poll_fds(s, pfd, 255);
		pfd[nb] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		pfd[nb + 1] = (struct pollfd){ .fd = daemon_state_flush_fd(d), .events = POLLIN };
		n = poll(pfd, (nfds_t)nb + 2, timeout);
		if (n < 0 && errno != EINTR) {
			ret = -errno;
			pm_err("poll: %s", strerror(errno));
			break;
		}
		if (n > 0 && pfd[nb].revents)
			sig = handle_signals(r, sfd);
		if (sg.w && !sg.failed)
			segment_after_drain(&sg, dir, b->drain(s, sg.w));
		if (n > 0 && pfd[nb + 1].revents) {
			/* a profile's seconds ended: its samples into the file now */
			uint64_t gen = daemon_state_flush_wanted(d);

			if (gen && sg.w && !sg.failed)
				segment_after_drain(&sg, dir, trace_writer_flush(sg.w));
			if (gen)
				daemon_state_flushed(d, gen);
		}
		daemon_state_update(d, s);
		web_config_poll(r);
	}
	*end = sig == LOOP_RESTART ? LOOP_RESTART : LOOP_STOP;
	sd_notify(0, *end == LOOP_RESTART ? "RELOADING=1\nSTATUS=restarting recording" :
		  "STOPPING=1\nSTATUS=closing the open segment");
	b->disable(s);
	if (sg.w && !sg.failed)
		segment_after_drain(&sg, dir, b->drain(s, sg.w));
	segment_close(&sg, dir, s, 0);
	daemon_state_segment_closed(d, &sg, s);
	return ret;
}

/* `pmiprof daemon ARGS` again in this process (argv[0] is "daemon"); returns on failure only. */
static void restart_self(int argc, char **argv)
{
	char **av = calloc((size_t)argc + 2, sizeof(*av));

	if (av) {
		av[0] = "pmiprof";
		memcpy(av + 1, argv, (size_t)argc * sizeof(*av));
		execv("/proc/self/exe", av);
	}
	pm_err("cannot restart (execute /proc/self/exe): %s", strerror(av ? errno : ENOMEM));
	free(av);
}

int cmd_daemon(int argc, char **argv)
{
	struct trace_writer_opts wo = { 0 };
	struct daemon_conf conf;
	struct daemon_run r = { .argc = argc, .argv = argv, .conf = &conf };
	struct record_session s;
	const struct backend_ops *b;
	enum loop_end end = LOOP_STOP;
	sigset_t oldmask;
	int i, ret, dir_fd, sfd, status = 1;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return command_help("daemon");
	ret = conf_parse(argc, argv, &conf);
	if (ret)
		return ret;
	r.segment_s = conf.a.segment_s;
	snprintf(r.listen, sizeof(r.listen), "%s", conf.a.listen ? conf.a.listen : "");
	if (conf.a.web_config) {
		char err[768];

		/* a usage error: nothing created yet */
		if (web_config_load(conf.a.web_config, &r.web, err, sizeof(err))) {
			pm_err("--web.config.file %s", err);
			conf_free(&conf);
			return 2;
		}
		r.have_web = true;
		r.web_checked = pm_now_ns();
	}
	ret = make_dir(conf.a.dir);
	if (ret) {
		pm_err("cannot create %s: %s", conf.a.dir, strerror(-ret));
		goto out_conf;
	}
	dir_fd = open(conf.a.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0) {
		pm_err("cannot open %s: %s", conf.a.dir, strerror(errno));
		goto out_conf;
	}
	/* one daemon per directory: the lock lives as long as dir_fd (exec closes it) */
	if (flock(dir_fd, LOCK_EX | LOCK_NB)) {
		if (errno == EWOULDBLOCK)
			pm_err("%s is in use by another pmiprof daemon (locked); give each daemon "
			       "its own --dir", conf.a.dir);
		else
			pm_err("cannot lock %s: %s", conf.a.dir, strerror(errno));
		goto out_dir;
	}
	if (segment_recover_orphans(dir_fd, conf.a.dir) < 0)
		goto out_dir;
	memset(&s, 0, sizeof(s));
	s.opts = &conf.o;
	b = backend_select(conf.o.backend, &conf.o);
	if (!b)
		goto out_dir;
	host_info_fill(&s.hdr, argc, argv);
	sfd = block_signals(&oldmask);
	if (sfd < 0) {
		pm_err("cannot set up signal handling: %s", strerror(-sfd));
		goto out_dir;
	}
	signal(SIGPIPE, SIG_IGN);
	ret = b->open(&s);
	if (ret)
		goto out_signals;
	wo.level = conf.o.compression_level;
	ret = daemon_state_new(&r.d, conf.a.dir, &conf.a.ret, &s.hdr, conf.a.top_comms,
			       conf.a.max_memory);
	if (!ret && *r.listen)
		ret = http_server_start(&r.http, r.listen, r.d, r.have_web ? &r.web : NULL);
	if (ret)
		goto out_backend;
	pm_info("recording every CPU with the %s backend into %s (segments of %llu s, trigger %s "
		"%s %llu%s%s)", b->name, conf.a.dir, (unsigned long long)r.segment_s,
		s.hdr.events[s.hdr.trigger_index].name, s.hdr.freq_hz ? "at" : "every",
		(unsigned long long)(s.hdr.freq_hz ? s.hdr.freq_hz : s.hdr.period),
		s.hdr.freq_hz ? " Hz" : "",
		s.hdr.flags & PMIPROF_TRACE_F_TIME_BASED ? ", time-based windows" : "");
	ret = record_loop(&r, b, &s, dir_fd, sfd, &wo, &end);
	status = ret ? 1 : 0;
	http_server_stop(r.http);
out_backend:
	b->close(&s);
	daemon_state_free(r.d);
	if (!ret && end == LOOP_RESTART) {
		/* signals stay blocked: one arriving meanwhile waits for the new signalfd */
		close(sfd);
		close(dir_fd);
		conf_free(&conf);
		web_config_free(&r.web);
		restart_self(argc, argv);
		return 1;
	}
out_signals:
	close(sfd);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
out_dir:
	close(dir_fd);
out_conf:
	web_config_free(&r.web);
	conf_free(&conf);
	return status;
}
