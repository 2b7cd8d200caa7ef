// SPDX-License-Identifier: GPL-2.0
/*
 * The backend-independent recording session: resolve and fork the workload
 * (blocked before exec), open the backend's counters, write the header, let
 * the workload exec, then sleep in poll() on the backend's rings, signals
 * (signalfd) and -p targets (pidfd) and drain whatever arrives.  SIGINT and
 * SIGTERM reach the workload once (workload_forward() knows when the
 * terminal already sent them); recording ends when it exits (or,
 * for -p/-a without a command, on the signal), the trace gets a FINISH
 * record with the exit reason, and pmiprof exits with the workload's status.
 */
#include "engine/record.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/backend.h"
#include "engine/host_info.h"
#include "engine/perf_ring.h"
#include "engine/record_regions.h"
#include "buildid_cache.h"
#include "util.h"
#include "engine/workload.h"

#define MAX_POLL		(256 + RECORD_MAX_PIDS + 1)
#define TICK_MS			250	/* progress and drain at most 4 times a second */
/*
 * With region markers, drain at least this often: a thread's marker ring
 * (PMR_RING_RECS) then holds 16384 markers per 50 ms before it drops any.
 */
#define REGIONS_TICK_MS		50
/*
 * A chunk is written when it fills, and at least this often the open chunk
 * is written and the file fdatasync()ed, so a recorder that is killed (or a
 * machine that loses power) loses at most about one second of windows: the
 * reader stops at the last complete chunk.
 */
#define FLUSH_NS		1000000000ull

struct loop {
	const struct record_opts *o;
	const struct backend_ops *b;
	struct record_session s;
	struct workload wl;
	struct trace_writer *w;
	int out_fd;			/* w's file, borrowed for fdatasync */
	int sfd;			/* signalfd */
	int pidfds[RECORD_MAX_PIDS];	/* -p targets still alive */
	unsigned int nr_pidfds;
	bool pidfd_ok;			/* pidfd_open() works on this kernel */
	bool hup[256];			/* backend fds that reported POLLHUP */
	bool stop;
	bool interrupted;
	bool write_failed;
	int signals_seen;
	uint64_t t0;
	bool progress;			/* TTY progress line shown */
	uint64_t last_progress;
	uint64_t last_flush;
	int err;			/* first error (-errno) */
	struct record_regions *regions;	/* code-region markers, or NULL */
	struct record_hooks *hk;	/* a watcher's calls (record_run_hooked), or NULL */
	uint64_t last_tick;
	struct buildid_cache_set bids;	/* executable mappings, for the build-id cache */
};

static int sys_pidfd_open(pid_t pid)
{
#ifdef SYS_pidfd_open
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);

	return fd < 0 ? -errno : fd;
#else
	(void)pid;
	return -ENOSYS;
#endif
}

static void fmt_bytes(char *buf, size_t len, uint64_t b)
{
	if (b >= 10u << 20)
		snprintf(buf, len, "%.1f MB", (double)b / 1e6);
	else if (b >= 10u << 10)
		snprintf(buf, len, "%.1f kB", (double)b / 1e3);
	else
		snprintf(buf, len, "%llu bytes", (unsigned long long)b);
}

static void show_progress(struct loop *l, bool force)
{
	uint64_t now = pm_now_ns();
	char bytes[32];

	if (!l->progress || (!force && now - l->last_progress < TICK_MS * 1000000ull))
		return;
	l->last_progress = now;
	fmt_bytes(bytes, sizeof(bytes), trace_writer_bytes(l->w));
	fprintf(stderr, "\rpmiprof: recording %.1f s, %llu samples, %s, %llu lost\033[K",
		(double)(now - l->t0) / 1e9, (unsigned long long)l->s.stats.samples, bytes,
		(unsigned long long)l->s.stats.lost);
}

static void clear_progress(struct loop *l)
{
	if (l->progress)
		fprintf(stderr, "\r\033[K");
}

/* perf's convention: keep the previous trace as FILE.old. */
static int rotate_output(const char *path)
{
	char old[PATH_MAX];
	struct stat st;

	if (stat(path, &st) || !S_ISREG(st.st_mode) || !st.st_size)
		return 0;
	if (snprintf(old, sizeof(old), "%s.old", path) >= (int)sizeof(old))
		return -ENAMETOOLONG;
	if (rename(path, old)) {
		int e = -errno;

		pm_err("cannot rotate %s to %s: %s", path, old, strerror(-e));
		return e;
	}
	return 0;
}

/*
 * Write the open chunk and make everything written so far durable.  Files
 * that cannot be synced (a pipe, /dev/null) are still flushed.
 */
static int sync_trace(struct loop *l)
{
	int ret = trace_writer_flush(l->w);

	if (ret)
		return ret;
	if (fdatasync(l->out_fd) && errno != EINVAL && errno != EROFS)
		return -errno;
	return 0;
}

/* Seconds of recording the file holds: its last complete chunk's last sample. */
static double trace_end_secs(const struct loop *l, const struct trace_writer_stats *st)
{
	if (!st->samples || st->last_time < l->s.hdr.start_time)
		return 0;
	return (double)(st->last_time - l->s.hdr.start_time) / 1e9;
}

/* The one message for a failed write; stops the workload if it still runs. */
static void write_error(struct loop *l, int err)
{
	struct trace_writer_stats st;
	bool running = l->wl.pid > 0 && !l->wl.reaped;

	l->write_failed = true;
	if (!l->err)
		l->err = err;
	l->stop = true;
	clear_progress(l);
	trace_writer_stats(l->w, &st);
	if (err == -EPIPE)	/* what the reader kept of it is unknown here */
		pm_err("writing %s: %s (its reader closed it) after %llu samples in %llu complete "
		       "chunks (%.2f s)%s", l->o->output, strerror(-err),
		       (unsigned long long)st.samples, (unsigned long long)st.chunks,
		       trace_end_secs(l, &st), running ? "; stopping the workload" : "");
	else if (st.samples)
		pm_err("writing %s: %s; the trace ends at %.2f s (%llu samples in %llu complete "
		       "chunks)%s", l->o->output, strerror(-err), trace_end_secs(l, &st),
		       (unsigned long long)st.samples, (unsigned long long)st.chunks,
		       running ? "; stopping the workload" : "");
	else
		pm_err("writing %s: %s; the trace ends after its header (no samples)%s",
		       l->o->output, strerror(-err), running ? "; stopping the workload" : "");
	if (running)
		workload_kill(&l->wl, SIGTERM);
}

static void drain(struct loop *l)
{
	int n;

	uint64_t mark_now = 0;

	if (l->write_failed)
		return;
	if (l->regions)
		mark_now = record_regions_collect(l->regions);
	n = l->b->drain(&l->s, l->w);
	/* markers older than the samples' watermark, after no sample of this drain */
	if (n >= 0 && l->regions && mark_now > PERF_RING_PUBLISH_SLACK_NS) {
		int e = record_regions_flush(l->regions, l->w,
					     mark_now - PERF_RING_PUBLISH_SLACK_NS);

		if (e)
			n = e;
	}
	if (n >= 0) {
		uint64_t now = pm_now_ns();

		if (now - l->last_flush >= FLUSH_NS) {
			l->last_flush = now;
			n = sync_trace(l);
		}
	}
	if (n < 0)
		write_error(l, n);
}

/*
 * Write FINISH and sync.  After a write error, what did not reach the file
 * is dropped and a small last chunk says so (LOST reason WRITE, FINISH flag
 * ERROR); it usually fits in the room the truncated partial chunk gave back.
 * If even that fails the file just ends at its last complete chunk, which
 * the report flags as an unfinished recording.
 */
static void end_trace(struct loop *l, struct trace_finish *fin)
{
	uint64_t lost_before = fin->lost;
	int ret;

	if (!l->write_failed) {
		ret = trace_write_finish(l->w, fin);
		if (!ret)
			ret = sync_trace(l);
		if (!ret)
			return;
		write_error(l, ret);
	}
	if (!trace_writer_end_failed(l->w, fin) && !sync_trace(l))
		pm_info("the trace's last chunk records the error and %llu samples not written",
			(unsigned long long)(fin->lost - lost_before));
}

static void handle_signals(struct loop *l)
{
	struct signalfd_siginfo si;

	while (read(l->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			if (workload_reap(&l->wl, false) == 1)
				l->stop = true;
			continue;
		}
		/*
		 * SIGINT, SIGTERM, SIGHUP: forward unless it got it too; a second
		 * one kills.  Without a command (-a, -p) it is the normal way to
		 * stop, so only a workload cut short marks the trace interrupted.
		 */
		l->interrupted = l->wl.pid > 0;
		l->signals_seen++;
		if (l->wl.pid > 0)
			workload_forward(&l->wl, l->signals_seen > 1 ? SIGKILL : (int)si.ssi_signo,
					 si.ssi_code);
		else
			l->stop = true;
	}
}

static void check_pidfds(struct loop *l, const struct pollfd *pfd, int n)
{
	unsigned int k;
	int i;

	for (i = 0; i < n; i++) {
		if (!pfd[i].revents)
			continue;
		for (k = 0; k < l->nr_pidfds; k++)
			if (l->pidfds[k] == pfd[i].fd) {
				close(l->pidfds[k]);
				l->pidfds[k] = l->pidfds[--l->nr_pidfds];
				break;
			}
	}
	if (!l->pidfd_ok) {
		/* Kernel < 5.3 has no pidfd_open(): look the targets up every tick. */
		for (k = 0; k < l->o->nr_pids; k++)
			if (kill(l->o->pids[k], 0) == 0 || errno != ESRCH)
				return;
	} else if (l->nr_pidfds) {
		return;
	}
	if (l->o->nr_pids && l->wl.pid <= 0) {
		pm_info("all target processes exited");
		l->stop = true;
	}
}

/* A watcher's call returned r: non-zero stops the recording and the workload. */
static void hook_result(struct loop *l, int r)
{
	if (!r || l->hk->stopped_by)
		return;
	l->hk->stopped_by = r;
	l->stop = true;
	if (l->wl.pid > 0 && !l->wl.reaped)
		workload_kill(&l->wl, SIGTERM);
}

/* The poll timeout: the drain tick, shorter when the watcher's tick is due sooner. */
static int poll_timeout(const struct loop *l)
{
	int ms = l->regions ? REGIONS_TICK_MS : TICK_MS;
	uint64_t now, due;

	if (!l->hk || !l->hk->tick || !l->hk->tick_ns)
		return ms;
	now = pm_now_ns();
	due = l->last_tick + l->hk->tick_ns;
	if (due <= now)
		return 0;
	return due - now < (uint64_t)ms * 1000000u ? (int)((due - now + 999999) / 1000000) : ms;
}

static void hook_tick(struct loop *l)
{
	uint64_t now;

	if (!l->hk || !l->hk->tick || l->stop)
		return;
	now = pm_now_ns();
	if (now - l->last_tick < l->hk->tick_ns)
		return;
	l->last_tick = now;
	hook_result(l, l->hk->tick(l->hk->arg, &l->s.stats));
}

static void run_loop(struct loop *l)
{
	struct pollfd pfd[MAX_POLL + 1], bfd[256];
	int hook_fd = l->hk && l->hk->input ? l->hk->fd : -1;

	while (!l->stop) {
		int nb = l->b->poll_fds(&l->s, bfd, 256), n = 0, i, base_pid, r, in = -1;

		for (i = 0; i < nb; i++)
			if (!l->hup[i])
				pfd[n++] = bfd[i];
		base_pid = n;
		for (i = 0; i < (int)l->nr_pidfds; i++)
			pfd[n++] = (struct pollfd){ .fd = l->pidfds[i], .events = POLLIN };
		if (hook_fd >= 0) {
			in = n;
			pfd[n++] = (struct pollfd){ .fd = hook_fd, .events = POLLIN };
		}
		pfd[n++] = (struct pollfd){ .fd = l->sfd, .events = POLLIN };

		r = poll(pfd, (nfds_t)n, poll_timeout(l));
		if (r < 0 && errno != EINTR) {
			l->err = -errno;
			pm_err("poll: %s", strerror(errno));
			break;
		}
		/* An exited per-task target makes its ring HUP forever: stop polling it. */
		for (i = 0, r = 0; i < nb; i++) {
			if (l->hup[i])
				continue;
			if (pfd[r].revents & (POLLHUP | POLLERR))
				l->hup[i] = true;
			r++;
		}
		if (pfd[n - 1].revents)
			handle_signals(l);
		check_pidfds(l, pfd + base_pid, (in >= 0 ? in : n - 1) - base_pid);
		drain(l);
		if (in >= 0 && pfd[in].revents && !l->stop)
			hook_result(l, l->hk->input(l->hk->arg));
		hook_tick(l);
		show_progress(l, false);
	}
}

/* The signals the loop reads from its signalfd, blocked (pm_signalfd()). */
static int block_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	return pm_signalfd(&set, old);
}

static int check_pids(const struct record_opts *o)
{
	unsigned int i;

	for (i = 0; i < o->nr_pids; i++) {
		if (kill(o->pids[i], 0) && errno == ESRCH) {
			pm_err("-p %d: no such process", (int)o->pids[i]);
			return -ESRCH;
		}
	}
	return 0;
}

static void note_mmap(void *arg, const struct trace_mmap *m)
{
	buildid_cache_note(arg, m->path, m->prot, m->build_id, m->build_id_len);
}

/*
 * After the trace is complete: the files it maps into the build-id cache
 * (lib/buildid_cache.h).  Whatever goes wrong is one warning; the
 * recording stands.
 */
static void save_buildid_cache(struct loop *l)
{
	struct buildid_cache_result res;
	uint64_t limit = l->o->buildid_cache_limit;
	char dir[4096], size[32];
	int err;

	if (!l->bids.nr)
		return;
	err = buildid_cache_dir(dir, sizeof(dir));
	if (err) {
		pm_warn("build-id cache not written: no $HOME (set PMIPROF_BUILDID_DIR, or pass "
			"--no-buildid-cache)");
		return;
	}
	if (!limit && buildid_cache_limit(&limit))
		pm_warn("PMIPROF_BUILDID_CACHE_SIZE='%s' is not a size (e.g. 2G): using 2G",
			getenv("PMIPROF_BUILDID_CACHE_SIZE"));
	buildid_cache_save(&l->bids, dir, limit, &res);
	if (res.failed)
		pm_warn("build-id cache %s: %u of %u file(s) not saved (%s); reports of %s will "
			"lack their names once they change (--no-buildid-cache skips this)", dir,
			res.failed, l->bids.nr, strerror(-res.first_err), l->o->output);
	if (res.added || res.evicted) {
		fmt_bytes(size, sizeof(size), res.total_bytes);
		pm_info("build-id cache %s: %u mapped file(s) and %u debug file(s) added (%u hard "
			"link(s), %u cop%s), %u already there%s; %s in all", dir, res.added,
			res.debugs, res.linked, res.copied, res.copied == 1 ? "y" : "ies",
			res.present, res.evicted ? ", oldest evicted for the limit" : "", size);
	}
}

static void summary(struct loop *l, uint64_t bytes)
{
	const struct trace_header *h = &l->s.hdr;
	const char *trig = h->nr_events ? h->events[h->trigger_index].name : "?";
	char size[32], rate[64], thr[48];

	if (l->o->quiet)
		return;
	fmt_bytes(size, sizeof(size), bytes);
	if (h->freq_hz)
		snprintf(rate, sizeof(rate), "at %llu Hz", (unsigned long long)h->freq_hz);
	else
		snprintf(rate, sizeof(rate), "every %llu%s", (unsigned long long)h->period,
			 h->flags & PMIPROF_TRACE_F_TIME_BASED ? " ns" : " events");
	if (l->s.stats.filtered)
		pm_info("kept only the workload's samples: %llu samples of other processes "
			"were not recorded", (unsigned long long)l->s.stats.filtered);
	thr[0] = '\0';
	if (l->s.stats.throttled_ns)
		snprintf(thr, sizeof(thr), " for %.3f s", (double)l->s.stats.throttled_ns / 1e9);
	pm_info("recorded %llu samples (%llu lost, throttled %llu time(s)%s) in %.2f s to %s "
		"(%s); backend %s, trigger %s %s%s",
		(unsigned long long)l->s.stats.samples, (unsigned long long)l->s.stats.lost,
		(unsigned long long)l->s.stats.throttled, thr,
		(double)(pm_now_ns() - l->t0) / 1e9, l->o->output, size, l->b->name, trig, rate,
		h->flags & PMIPROF_TRACE_F_TIME_BASED ? " (time-based windows)" : "");
	if (h->call_graph)
		pm_info("call stacks (%s) recorded for %llu of %llu samples",
			trace_call_graph_name(h->call_graph), (unsigned long long)l->s.stats.stacks,
			(unsigned long long)l->s.stats.samples);
	if (l->s.stats.ustack_trimmed)
		pm_info("stack copies: %.1f MB above main threads' initial frames (argv, "
			"environment, auxv) not stored", (double)l->s.stats.ustack_trimmed / 1e6);
	if (l->regions) {
		uint64_t written, dropped;
		uint32_t regions;

		record_regions_counts(l->regions, &written, &dropped, &regions);
		if (written || dropped)
			pm_info("code regions: %llu markers of %u region(s) recorded, %llu "
				"dropped (marker ring full in the workload)",
				(unsigned long long)written, regions, (unsigned long long)dropped);
	}
	if (l->s.stats.after_loss)
		pm_info("%llu window(s) follow a loss or throttling: flagged after-loss, their "
			"counts span unrecorded periods (reports leave them out of per-window "
			"statistics)", (unsigned long long)l->s.stats.after_loss);
}

int record_run(const struct record_opts *o, int argc, char **argv)
{
	return record_run_hooked(o, argc, argv, NULL);
}

int record_run_hooked(const struct record_opts *o, int argc, char **argv,
		      struct record_hooks *hk)
{
	struct trace_writer_opts wopts = { 0 };
	struct loop l;
	const struct trace_writer_tap bids_tap = { .mmap = note_mmap, .arg = &l.bids };
	struct trace_finish fin;
	sigset_t oldmask;
	struct sigaction pipe_ign = { .sa_handler = SIG_IGN }, old_pipe;
	unsigned int i;
	int ret, status = 1;

	memset(&l, 0, sizeof(l));
	l.o = o;
	l.s.opts = o;
	l.sfd = -1;
	l.hk = hk;
	if (hk)
		hk->stopped_by = 0;

	if (o->argv && workload_resolve(o->argv[0]))
		return 1;
	if (check_pids(o))
		return 1;
	l.b = backend_select(o->backend, o);
	if (!l.b)
		return 1;
	host_info_fill(&l.s.hdr, argc, argv);
	l.sfd = block_signals(&oldmask);
	if (l.sfd < 0) {
		pm_err("cannot set up signal handling: %s", strerror(-l.sfd));
		return 1;
	}
	/*
	 * A closed output pipe (record -o /dev/stdout | head) is a write error
	 * like a full disk (EPIPE: message, workload stopped, exit 1), not a
	 * silent death that leaves the workload running; the workload gets the
	 * default back (workload_fork()).
	 */
	sigaction(SIGPIPE, &pipe_ign, &old_pipe);
	/*
	 * Region markers need the workload's environment (set before the
	 * fork) and samples merged in time order: perf backend with a command.
	 */
	if (o->argv && l.b == &backend_perf_ops) {
		ret = record_regions_new(&l.regions);
		if (ret) {
			pm_warn("code-region markers disabled: cannot create their shared memory: %s",
				strerror(-ret));
			l.regions = NULL;
		}
	} else if (o->argv) {
		host_note_append(&l.s.hdr, "code-region markers are not collected with the "
				 "module backend (its samples are not merged in time order)");
	}
	if (o->argv) {
		ret = workload_fork(&l.wl, o->argv, &oldmask);
		if (ret) {
			pm_err("cannot start '%s': %s", o->argv[0], strerror(-ret));
			goto out_signals;
		}
		l.s.child = l.wl.pid;
	}
	for (i = 0; i < o->nr_pids; i++) {
		int fd = sys_pidfd_open(o->pids[i]);

		if (fd >= 0)
			l.pidfds[l.nr_pidfds++] = fd;
		l.pidfd_ok = fd >= 0 || fd != -ENOSYS;
	}

	ret = l.b->open(&l.s);
	if (ret) {
		if (ret == -ENOMEM)
			pm_err("out of memory opening the %s backend", l.b->name);
		goto out_backend;
	}
	if (l.regions) {
		record_regions_arm(l.regions, &l.s.hdr);
		l.s.regions = l.regions;
	}
	ret = rotate_output(o->output);
	if (ret)
		goto out_backend;
	l.s.hdr.start_time = pm_now_ns();
	l.s.hdr.start_realtime_ns = pm_realtime_ns();
	wopts.level = o->compression_level;
	/*
	 * dwarf stack copies repeat from sample to sample (the same frames at
	 * the same addresses): LZ77 matching stores them in a fifth of the
	 * bytes of Huffman-only coding, costs the recorder less CPU (long
	 * matches instead of one code per byte) and inflates several times
	 * faster (docs/record.md, "Size, measured").  zstd, the default codec,
	 * finds those matches by itself; the strategy matters for deflate.
	 */
	if (o->call_graph == PMIPROF_CALL_GRAPH_DWARF)
		wopts.strategy = PMIPROF_TRACE_STRATEGY_LZ77;
	l.out_fd = open(o->output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ret = l.out_fd < 0 ? -errno : trace_writer_fdopen(&l.w, l.out_fd, &l.s.hdr, &wopts);
	if (ret) {
		pm_err("cannot create %s: %s", o->output, strerror(-ret));
		l.w = NULL;
		goto out_backend;
	}
	if (hk && hk->open) {
		const struct trace_writer_tap *tap = NULL;

		ret = hk->open(hk->arg, &l.s.hdr, l.b->name, &tap);
		if (ret) {
			hk->stopped_by = ret;
			goto out_writer;
		}
		trace_writer_set_tap(l.w, tap);
	}
	if (o->buildid_cache && !(hk && hk->open))
		trace_writer_set_tap(l.w, &bids_tap);
	if (l.b->synthesize) {
		ret = l.b->synthesize(&l.s, l.w);
		if (ret) {
			pm_err("writing %s: %s", o->output, strerror(-ret));
			goto out_writer;
		}
	}
	ret = l.b->enable(&l.s);
	if (ret)
		goto out_writer;
	l.t0 = pm_now_ns();
	l.last_flush = l.t0;
	l.last_tick = l.t0;
	l.progress = !o->quiet && isatty(STDERR_FILENO);
	if (o->argv) {
		ret = workload_go(&l.wl, o->argv[0]);
		if (ret)
			goto out_writer;
	}
	{
		const struct trace_header *h = &l.s.hdr;
		char cg[96] = "";

		if (h->call_graph == PMIPROF_CALL_GRAPH_DWARF)
			snprintf(cg, sizeof(cg), ", call stacks: dwarf, %u bytes of user stack",
				 h->call_graph_dump_size);
		else if (h->call_graph)
			snprintf(cg, sizeof(cg), ", call stacks: fp%s",
				 h->call_graph_flags & PMIPROF_CALL_GRAPH_F_KERNEL ?
				 " (user and kernel)" : " (user only)");
		pm_info("recording with the %s backend%s%s", l.b->name, cg,
			o->argv ? "" : "; press Ctrl-C to stop");
	}

	run_loop(&l);

	l.b->disable(&l.s);
	drain(&l);
	clear_progress(&l);
	if (l.wl.pid > 0) {
		/* A writer error or poll failure left it running: stop it. */
		if (!l.wl.reaped && l.err)
			workload_kill(&l.wl, SIGKILL);
		workload_reap(&l.wl, true);
		status = workload_exit_code(&l.wl);
	} else {
		status = 0;
	}

	memset(&fin, 0, sizeof(fin));
	fin.time = pm_now_ns();
	if (l.regions && !l.write_failed) {
		uint64_t written, dropped;
		uint32_t regions;

		ret = record_regions_finish(l.regions, l.w, fin.time);
		if (ret)
			write_error(&l, ret);
		/* A workload that never used regions: no region column in its reports. */
		record_regions_counts(l.regions, &written, &dropped, &regions);
		if (!ret && !written && !dropped && !regions)
			trace_writer_set_flags(l.w, l.s.hdr.flags & ~PMIPROF_TRACE_F_REGIONS);
	}
	fin.samples = l.s.stats.samples;
	fin.lost = l.s.stats.lost;	/* samples; throttling is not a sample count */
	if (l.interrupted)
		fin.flags |= PMIPROF_FINISH_F_INTERRUPTED;
	if (l.err)
		fin.flags |= PMIPROF_FINISH_F_ERROR;
	if (l.wl.reaped && WIFSIGNALED(l.wl.status)) {
		fin.flags |= PMIPROF_FINISH_F_SIGNALED;
		fin.exit_code = WTERMSIG(l.wl.status);
	} else if (l.wl.reaped && WIFEXITED(l.wl.status)) {
		fin.exit_code = WEXITSTATUS(l.wl.status);
	}
	end_trace(&l, &fin);
	{
		uint64_t bytes = trace_writer_bytes(l.w);

		/* close() reports the first write error, already printed */
		ret = trace_writer_close(l.w);
		l.w = NULL;
		if (ret && !l.err) {
			l.err = ret;
			pm_err("writing %s: %s", o->output, strerror(-ret));
		}
		if (!l.err && o->buildid_cache)
			save_buildid_cache(&l);
		if (!l.err)
			summary(&l, bytes);
	}
	/* a watcher that stopped the recording stopped the workload too: no news */
	if (l.wl.reaped && WIFSIGNALED(l.wl.status) && !(hk && hk->stopped_by))
		pm_info("workload terminated by signal %d (%s)", WTERMSIG(l.wl.status),
			strsignal(WTERMSIG(l.wl.status)));
	if (l.err)
		status = 1;	/* the recording failed, whatever the workload did */
	l.b->close(&l.s);
	goto out_pidfds;

out_writer:
	trace_writer_close(l.w);
out_backend:
	l.b->close(&l.s);
	if (l.wl.pid > 0)
		workload_abort(&l.wl);
	status = 1;
out_pidfds:
	for (i = 0; i < l.nr_pidfds; i++)
		close(l.pidfds[i]);
	workload_close(&l.wl);
out_signals:
	buildid_cache_set_free(&l.bids);
	record_regions_free(l.regions);
	close(l.sfd);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	sigaction(SIGPIPE, &old_pipe, NULL);
	return status;
}
