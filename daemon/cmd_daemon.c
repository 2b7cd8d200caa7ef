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
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "commands.h"
#include "service/daemon_state.h"
#include "engine/host_info.h"
#include "service/http_server.h"
#include "engine/record.h"
#include "service/retention.h"
#include "service/segment_writer.h"
#include "trace_dir.h"
#include "util.h"

#define DAEMON_DEFAULT_DIR	"/var/lib/pmiprof"
#define DAEMON_DEFAULT_SEGMENT	60
#define DAEMON_DEFAULT_RETAIN	"1d,1G"
#define DAEMON_DEFAULT_TOP	20
#define TICK_MS			250

const char cmd_daemon_summary[] = "Record system-wide without end; serve metrics and profiles";

const char cmd_daemon_help[] =
"NAME\n"
"    pmiprof daemon - continuous system-wide windowed profiling, served over HTTP\n"
"\n"
"SYNOPSIS\n"
"    pmiprof daemon [--dir DIR] [--segment SECONDS] [--retain AGE|SIZE[,...]]\n"
"                   [--listen ADDR:PORT | --no-listen] [--top-comms K]\n"
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
"    --dir DIR           where segments go (default " DAEMON_DEFAULT_DIR ")\n"
"    --segment SECONDS   length of a segment, 1..86400 (default 60)\n"
"    --retain AGE|SIZE   delete the oldest closed segments that ended more than\n"
"                        AGE ago (seconds, or with s/m/h/d) or while all take\n"
"                        more than SIZE (with B/K/M/G/T); both with a comma\n"
"                        (default " DAEMON_DEFAULT_RETAIN ")\n"
"    --listen ADDR:PORT  HTTP address (default 127.0.0.1:9468; port 0 picks a\n"
"                        free one, printed).  A non-loopback address exposes\n"
"                        the command names and profiles of every process.\n"
"    --no-listen         no HTTP server\n"
"    --top-comms K       /metrics names the K busiest commands, the rest are\n"
"                        comm=\"other\" (1..1000, default 20)\n"
"    -g, --call-graph fp|dwarf[,SIZE]|no\n"
"                        call stacks, as for 'pmiprof record'; the default is\n"
"                        fp (profiles are stacks), 'no' records none (then\n"
"                        /debug/pprof/profile answers 501)\n"
"    -e, -c, -F, --max-stack, --backend, -m, -z, -q\n"
"                        as for 'pmiprof record' (same defaults and no-PMU\n"
"                        fallback)\n"
"    -h, --help          this text\n"
"\n"
"SIGNALS\n"
"    SIGTERM, SIGINT     close the open segment (FINISH, fsync, rename), exit 0\n"
"    SIGHUP              ignored with a message (there is no --config yet)\n"
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
};

static int take_opt(int *argc, char **argv, int i, const char *name, const char **val)
{
	size_t l = strlen(name);

	if (strncmp(argv[i], name, l))
		return 0;
	if (argv[i][l] == '=') {
		*val = argv[i] + l + 1;
		memmove(argv + i, argv + i + 1, (size_t)(*argc - i) * sizeof(*argv));
		(*argc)--;
		return 1;
	}
	if (argv[i][l])
		return 0;
	if (i + 1 >= *argc)
		return -1;
	*val = argv[i + 1];
	memmove(argv + i, argv + i + 2, (size_t)(*argc - i - 1) * sizeof(*argv));
	*argc -= 2;
	return 1;
}

static int parse_daemon_args(int *argc, char **argv, struct daemon_args *a)
{
	static const char *const names[] = { "--dir", "--segment", "--retain", "--listen",
					     "--top-comms" };
	const char *retain = DAEMON_DEFAULT_RETAIN, *val;
	char err[256];
	uint64_t v;
	int i, k, r;

	a->dir = DAEMON_DEFAULT_DIR;
	a->segment_s = DAEMON_DEFAULT_SEGMENT;
	a->listen = DAEMON_DEFAULT_LISTEN;
	a->top_comms = DAEMON_DEFAULT_TOP;
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
			r = take_opt(argc, argv, i, names[k], &val);
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
		}
	}
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

/* true when SIGTERM or SIGINT arrived */
static bool handle_signals(int sfd)
{
	struct signalfd_siginfo si;
	bool stop = false;

	while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			pm_info("SIGHUP: there is no configuration file to re-read yet; ignored");
			continue;
		}
		pm_info("%s: closing the open segment", strsignal((int)si.ssi_signo));
		stop = true;
	}
	return stop;
}

static int record_loop(struct daemon_state *d, const struct daemon_args *a,
		       const struct backend_ops *b, struct record_session *s, int dir_fd, int sfd,
		       const struct trace_writer_opts *wo)
{
	struct pollfd pfd[257];	/* rings, signals, flush requests */
	struct segment sg;
	uint64_t seg_ns = a->segment_s * 1000000000ull;
	bool stop = false;
	int ret;

	ret = segment_open(&sg, dir_fd, a->dir, s, b, wo);
	if (ret)
		return ret;
	daemon_state_segment_started(d, &sg);
	ret = b->enable(s);
	if (ret) {
		segment_close(&sg, a->dir, s, PMIPROF_FINISH_F_ERROR);
		return ret;
	}
	/* systemd Type=notify (a no-op without $NOTIFY_SOCKET) */
	sd_notifyf(0, "READY=1\nSTATUS=recording every CPU into %s", a->dir);
	while (!stop) {
		uint64_t now = pm_now_ns(), end = sg.start_ns + seg_ns;
		int nb = 0, timeout = TICK_MS, n;

		if (end <= now) {
			/* everything up to now into this segment, then the next one */
			if (sg.w && !sg.failed)
				segment_after_drain(&sg, a->dir, b->drain(s, sg.w));
			segment_close(&sg, a->dir, s, 0);
			daemon_state_segment_closed(d, &sg, s);	/* counted, then retention */
			ret = segment_open(&sg, dir_fd, a->dir, s, b, wo);
			if (ret)	/* retried at the next segment */
				daemon_state_note_error(d, ret);
			else
				daemon_state_segment_started(d, &sg);
			ret = 0;
			if (!sg.w)
				sg.start_ns = pm_now_ns();
			continue;
		}
		if ((end - now) / 1000000 < (uint64_t)timeout)
			timeout = (int)((end - now) / 1000000) + 1;
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
			stop = handle_signals(sfd);
		if (sg.w && !sg.failed)
			segment_after_drain(&sg, a->dir, b->drain(s, sg.w));
		if (n > 0 && pfd[nb + 1].revents) {
			/* a profile's seconds ended: its samples into the file now */
			uint64_t gen = daemon_state_flush_wanted(d);

			if (gen && sg.w && !sg.failed)
				segment_after_drain(&sg, a->dir, trace_writer_flush(sg.w));
			if (gen)
				daemon_state_flushed(d, gen);
		}
		daemon_state_update(d, s);
	}
	sd_notify(0, "STOPPING=1\nSTATUS=closing the open segment");
	b->disable(s);
	if (sg.w && !sg.failed)
		segment_after_drain(&sg, a->dir, b->drain(s, sg.w));
	segment_close(&sg, a->dir, s, 0);
	daemon_state_segment_closed(d, &sg, s);
	return ret;
}

int cmd_daemon(int argc, char **argv)
{
	struct trace_writer_opts wo = { 0 };
	struct daemon_args a;
	struct record_opts o;
	struct record_session s;
	struct daemon_state *d = NULL;
	struct http_server *http = NULL;
	const struct backend_ops *b;
	char **av;
	sigset_t oldmask;
	int ac = argc, i, ret, dir_fd, sfd, status = 1;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return command_help("daemon");
	/* record's parser sees a copy without our options, and -a */
	av = calloc((size_t)argc + 2, sizeof(*av));
	if (!av)
		return 1;
	memcpy(av, argv, (size_t)argc * sizeof(*av));
	ret = parse_daemon_args(&ac, av, &a);
	if (ret)
		goto out_av;
	av[ac++] = "-a";
	ret = record_parse_common("daemon", ac, av, &o, RECORD_DEFAULT_EVENTS);
	if (ret < 0)
		ret = command_help("daemon");
	if (ret)
		goto out_av;
	/* profiles need stacks: fp unless told otherwise (--call-graph no) */
	for (i = 1; i < argc && strcmp(argv[i], "-g") && strncmp(argv[i], "--call-graph", 12); i++)
		;
	if (i == argc) {
		o.call_graph = PMIPROF_CALL_GRAPH_FP;
		o.call_graph_dump_size = 0;
	}
	ret = 2;
	if (o.nr_pids || o.argv)
		goto usage_target;
	if (strcmp(o.output, RECORD_DEFAULT_OUTPUT)) {
		pm_usage_error("daemon", "-o: the daemon writes segments into --dir");
		goto out_av;
	}
	ret = make_dir(a.dir);
	if (ret) {
		pm_err("cannot create %s: %s", a.dir, strerror(-ret));
		ret = 1;
		goto out_av;
	}
	dir_fd = open(a.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0) {
		pm_err("cannot open %s: %s", a.dir, strerror(errno));
		ret = 1;
		goto out_av;
	}
	memset(&s, 0, sizeof(s));
	s.opts = &o;
	b = backend_select(o.backend, &o);
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
	wo.level = o.compression_level;
	ret = daemon_state_new(&d, a.dir, &a.ret, &s.hdr, a.top_comms);
	if (!ret && a.listen)
		ret = http_server_start(&http, a.listen, d);
	if (ret)
		goto out_backend;
	pm_info("recording every CPU with the %s backend into %s (segments of %llu s, trigger %s%s)",
		b->name, a.dir, (unsigned long long)a.segment_s,
		s.hdr.events[s.hdr.trigger_index].name,
		s.hdr.flags & PMIPROF_TRACE_F_TIME_BASED ? ", time-based windows" : "");
	ret = record_loop(d, &a, b, &s, dir_fd, sfd, &wo);
	status = ret ? 1 : 0;
	http_server_stop(http);
out_backend:
	b->close(&s);
	daemon_state_free(d);
out_signals:
	close(sfd);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
out_dir:
	close(dir_fd);
	free(av);
	return status;
usage_target:
	pm_usage_error("daemon", "the daemon records every CPU: it takes no command and no -p");
out_av:
	free(av);
	return ret;
}
