// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's shared state and its accounting/retention worker
 * (daemon_state.h).
 */
#include "service/daemon_state.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "service/live_profile.h"
#include "service/segment_writer.h"
#include "trace_dir.h"
#include "util.h"
#include "service/worker_thread.h"
#include "service/window_metrics.h"

#define MAX_QUEUE	64
#define HEALTH_HOLD_NS	10000000000ull	/* unhealthy for 10 s after a failed write */

struct daemon_state {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct worker_thread worker;	/* worker_main(); waits on cond */
	char *dir;
	struct retention ret;
	struct window_metrics *wm;
	struct live_profile *lp;	/* NULL without stacks */
	struct trace_writer_tap tap;	/* to both */
	char open_name[64];		/* "" when no segment is open */
	bool last_write_failed;
	uint64_t last_fail_ns;		/* pm_now_ns() of the last failed write, 0: none */
	/* closed segments waiting to be counted */
	char queue[MAX_QUEUE][64];
	unsigned int nr_queue;
	bool disk_full;			/* a segment ended on ENOSPC: make room */
	/* self-metrics */
	struct record_stats stats;
	uint64_t segments_closed, segments_failed, segments_deleted, deleted_bytes;
	uint64_t open_errors;
	uint64_t disk_segments, disk_bytes;
	uint64_t scrapes;
	double last_scrape_s, last_scrape_cpu_s, scrape_s_total;
	uint64_t start_real_ns;
	bool stacks;			/* the recording has call stacks */
	/* flush requests from HTTP threads: eventfd wakes the recording loop */
	int flush_fd;
	uint64_t flush_asked, flush_done;
};

/*
 * The disk filled up: the oldest closed segments go first, a quarter of
 * what the directory holds (at least one segment), and retention's own
 * limits apply as usual.  Recording then resumes with the next segment.
 */
static int make_room(struct daemon_state *d, struct retention_result *res)
{
	struct retention r = d->ret;
	struct trace_seg *v;
	uint64_t total = 0;
	size_t nr, i;
	int e = trace_dir_list(d->dir, &v, &nr);

	if (e)
		return e;
	for (i = 0; i < nr; i++)
		total += v[i].bytes;
	free(v);
	total -= total / 4;
	if (!r.max_bytes || total < r.max_bytes)
		r.max_bytes = total ? total : 1;
	e = retention_apply(d->dir, &r, pm_realtime_ns(), res);
	pm_warn("disk full in %s: deleted the %llu oldest segment(s), %.1f MB", d->dir,
		(unsigned long long)res->deleted, (double)res->deleted_bytes / 1e6);
	return e;
}

static void *worker_main(void *arg)
{
	struct daemon_state *d = arg;

	pthread_mutex_lock(&d->lock);
	for (;;) {
		struct retention_result res = { 0 };
		bool full;
		int e;

		while (!d->nr_queue && !d->disk_full && !d->worker.stopping)
			pthread_cond_wait(&d->cond, &d->lock);
		if (!d->nr_queue && !d->disk_full)
			break;
		/* closed segments were counted live (the tap): retention once for them all */
		d->nr_queue = 0;
		full = d->disk_full;
		d->disk_full = false;
		pthread_mutex_unlock(&d->lock);
		e = full ? make_room(d, &res) : retention_apply(d->dir, &d->ret, pm_realtime_ns(),
							       &res);
		pthread_mutex_lock(&d->lock);
		if (!e) {
			d->segments_deleted += res.deleted;
			d->deleted_bytes += res.deleted_bytes;
			d->disk_segments = res.kept;
			d->disk_bytes = res.kept_bytes;
		}
		if (res.deleted)
			pm_info("retention: deleted %llu old segment(s), %.1f MB; %llu segment(s), "
				"%.1f MB kept", (unsigned long long)res.deleted,
				(double)res.deleted_bytes / 1e6, (unsigned long long)res.kept,
				(double)res.kept_bytes / 1e6);
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

/* The writer's tap: every record to the metrics and to the live profiles. */
static void tap_samples(void *arg, const struct trace_sample *smp, size_t n)
{
	struct daemon_state *d = arg;
	const struct trace_writer_tap *t = window_metrics_tap(d->wm);

	t->samples(t->arg, smp, n);
}

static void tap_stack(void *arg, const struct trace_sample *smp, const uint64_t *ips,
		      uint32_t nr, uint32_t nr_kernel)
{
	struct daemon_state *d = arg;
	const struct trace_writer_tap *t = live_profile_tap(d->lp);

	t->stack(t->arg, smp, ips, nr, nr_kernel);
}

static void tap_ustack(void *arg, const struct trace_ustack *u)
{
	struct daemon_state *d = arg;
	const struct trace_writer_tap *t = live_profile_tap(d->lp);

	t->ustack(t->arg, u);
}

static void tap_mmap(void *arg, const struct trace_mmap *m)
{
	struct daemon_state *d = arg;
	const struct trace_writer_tap *t = live_profile_tap(d->lp);

	t->mmap(t->arg, m);
}

static void tap_comm(void *arg, const struct trace_comm *c)
{
	struct daemon_state *d = arg;
	const struct trace_writer_tap *t = window_metrics_tap(d->wm);

	t->comm(t->arg, c);
	if (d->lp) {
		t = live_profile_tap(d->lp);
		t->comm(t->arg, c);
	}
}

static void tap_task(void *arg, uint8_t type, const struct trace_task *tk)
{
	struct daemon_state *d = arg;
	const struct trace_writer_tap *t = window_metrics_tap(d->wm);

	t->task(t->arg, type, tk);
	if (d->lp) {
		t = live_profile_tap(d->lp);
		t->task(t->arg, type, tk);
	}
}

static void tap_lost(void *arg, const struct trace_lost *l)
{
	struct daemon_state *d = arg;
	const struct trace_writer_tap *t = window_metrics_tap(d->wm);

	t->lost(t->arg, l);
}

int daemon_state_new(struct daemon_state **out, const char *dir, const struct retention *ret,
		     const struct trace_header *h, uint32_t top_comms, uint64_t max_memory)
{
	struct daemon_state *d = calloc(1, sizeof(*d));
	int e;

	*out = NULL;
	if (!d)
		return -ENOMEM;
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->cond, NULL);
	d->ret = *ret;
	d->flush_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	d->stacks = h->call_graph != PMIPROF_CALL_GRAPH_NONE;
	d->start_real_ns = pm_realtime_ns();
	d->dir = strdup(dir);
	e = !d->dir ? -ENOMEM : d->flush_fd < 0 ? -errno : window_metrics_new(&d->wm, h, top_comms, true);
	if (!e && d->stacks)
		e = live_profile_new(&d->lp, h, max_memory);
	d->tap = (struct trace_writer_tap){ .samples = tap_samples, .comm = tap_comm,
					    .task = tap_task, .lost = tap_lost, .arg = d };
	if (d->stacks) {
		d->tap.stack = tap_stack;
		d->tap.ustack = tap_ustack;
		d->tap.mmap = tap_mmap;
	}
	if (!e)
		e = worker_thread_start(&d->worker, &d->lock, &d->cond, worker_main, d);
	if (e) {
		daemon_state_free(d);
		return e;
	}
	*out = d;
	return 0;
}

void daemon_state_free(struct daemon_state *d)
{
	if (!d)
		return;
	worker_thread_stop(&d->worker);
	live_profile_free(d->lp);
	window_metrics_free(d->wm);
	if (d->flush_fd >= 0)
		close(d->flush_fd);
	pthread_cond_destroy(&d->cond);
	pthread_mutex_destroy(&d->lock);
	free(d->dir);
	free(d);
}

void daemon_state_segment_starting(struct daemon_state *d)
{
	if (d->lp)
		live_profile_segment_starting(d->lp);
}

void daemon_state_segment_started(struct daemon_state *d, const struct segment *sg)
{
	if (d->lp)
		live_profile_segment_started(d->lp, sg->start_ns, sg->start_real_ns);
	pthread_mutex_lock(&d->lock);
	snprintf(d->open_name, sizeof(d->open_name), "%s", sg->open_name);
	d->last_write_failed = sg->failed;
	pthread_mutex_unlock(&d->lock);
}

void daemon_state_segment_closed(struct daemon_state *d, const struct segment *sg,
				 const struct record_session *s)
{
	pthread_mutex_lock(&d->lock);
	d->stats = s->stats;
	d->open_name[0] = '\0';
	d->segments_closed++;
	d->last_write_failed = sg->failed;
	if (sg->failed) {
		d->segments_failed++;
		d->last_fail_ns = pm_now_ns();
	}
	if (sg->failed && sg->err == -ENOSPC)
		d->disk_full = true;
	/* retention's turn (the worker takes every closed segment in one pass) */
	if (d->nr_queue < MAX_QUEUE)
		snprintf(d->queue[d->nr_queue++], sizeof(d->queue[0]), "%s", sg->final_name);
	pthread_cond_signal(&d->cond);
	pthread_mutex_unlock(&d->lock);
}

void daemon_state_update(struct daemon_state *d, const struct record_session *s)
{
	pthread_mutex_lock(&d->lock);
	d->stats = s->stats;
	pthread_mutex_unlock(&d->lock);
}

void daemon_state_set_limits(struct daemon_state *d, const struct retention *ret,
			     uint32_t top_comms)
{
	pthread_mutex_lock(&d->lock);
	d->ret = *ret;
	window_metrics_set_top(d->wm, top_comms);
	pthread_mutex_unlock(&d->lock);
}

void daemon_state_note_error(struct daemon_state *d, int err)
{
	pthread_mutex_lock(&d->lock);
	d->open_errors++;
	d->last_write_failed = true;
	d->last_fail_ns = pm_now_ns();
	if (err == -ENOSPC) {
		d->disk_full = true;
		pthread_cond_signal(&d->cond);
	}
	pthread_mutex_unlock(&d->lock);
}

const struct trace_writer_tap *daemon_state_tap(struct daemon_state *d)
{
	return &d->tap;
}

bool daemon_state_profiling(struct daemon_state *d)
{
	return d->lp && live_profile_active(d->lp);
}

struct live_profile *daemon_state_live(struct daemon_state *d)
{
	return d->lp;
}

const char *daemon_state_dir(const struct daemon_state *d)
{
	return d->dir;
}

bool daemon_state_has_stacks(const struct daemon_state *d)
{
	return d->stacks;
}

int daemon_state_healthy(struct daemon_state *d, char *why, size_t len)
{
	int ret = 0;

	pthread_mutex_lock(&d->lock);
	/*
	 * A failure usually ends its segment, and the next one starts at once:
	 * stay unhealthy for HEALTH_HOLD_NS after it, so a probe every few
	 * seconds sees a disk that keeps filling.
	 */
	if (!d->open_name[0])
		ret = pm_set_err(why, len, -EIO, "no segment open (cannot create one in the "
				 "directory)");
	else if (d->last_write_failed ||
		 (d->last_fail_ns && pm_now_ns() - d->last_fail_ns < HEALTH_HOLD_NS))
		ret = pm_set_err(why, len, -EIO, "a segment write failed %.1f s ago (disk full?)",
				 (double)(pm_now_ns() - d->last_fail_ns) / 1e9);
	else if (d->stats.cpus_recorded < d->stats.cpus_online)
		/* a CPU came back and its events could not be opened again (yet) */
		ret = pm_set_err(why, len, -EIO, "%u of %u online CPUs are not recorded",
				 d->stats.cpus_online - d->stats.cpus_recorded,
				 d->stats.cpus_online);
	pthread_mutex_unlock(&d->lock);
	return ret;
}

/*
 * The process_* metrics every Prometheus client library exports (the
 * names dashboards and alerts for any exporter use), from /proc/self.
 */
static void put_process_metrics(FILE *f, bool om, double cpu_s);

static void put_counter(FILE *f, const char *name, const char *help, double v, bool om)
{
	metrics_family(f, name, "counter", help, om);
	fprintf(f, "%s %.17g\n", name, v);
}

static void put_gauge(FILE *f, const char *name, const char *help, double v, bool om)
{
	metrics_family(f, name, "gauge", help, om);
	fprintf(f, "%s %.17g\n", name, v);
}

static unsigned int open_fds(void)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *de;
	unsigned int n = 0;

	if (!dir)
		return 0;
	while ((de = readdir(dir)))
		n += de->d_name[0] != '.';
	closedir(dir);
	return n ? n - 1 : 0;	/* the directory's own fd */
}

/* When this process started (Unix time): /proc/self/stat's starttime after boot. */
static double process_start_s(void)
{
	char buf[1024], *p;
	unsigned long long start = 0, btime = 0;
	FILE *f = fopen("/proc/self/stat", "re");
	size_t n;
	int i;

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* after the comm's closing parenthesis: field 3 on; starttime is field 22 */
	p = strrchr(buf, ')');
	for (i = 2; p && i < 22; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &start) != 1)
		return 0;
	f = fopen("/proc/stat", "re");
	if (!f)
		return 0;
	while (fgets(buf, sizeof(buf), f))
		if (sscanf(buf, "btime %llu", &btime) == 1)
			break;
	fclose(f);
	return (double)btime + (double)start / (double)sysconf(_SC_CLK_TCK);
}

static void put_process_metrics(FILE *f, bool om, double cpu_s)
{
	struct rlimit rl;
	unsigned long long vsz = 0, rss;
	FILE *st = fopen("/proc/self/statm", "re");

	if (st) {
		if (fscanf(st, "%llu %llu", &vsz, &rss) != 2)
			vsz = 0;
		fclose(st);
	}
	put_counter(f, "process_cpu_seconds_total", "Total user and system CPU time spent in "
		    "seconds.", cpu_s, om);
	put_gauge(f, "process_resident_memory_bytes", "Resident memory size in bytes.",
		  (double)pm_rss_bytes(), om);
	put_gauge(f, "process_virtual_memory_bytes", "Virtual memory size in bytes.",
		  (double)vsz * (double)sysconf(_SC_PAGESIZE), om);
	put_gauge(f, "process_open_fds", "Number of open file descriptors.", (double)open_fds(),
		  om);
	if (!getrlimit(RLIMIT_NOFILE, &rl))
		put_gauge(f, "process_max_fds", "Maximum number of open file descriptors.",
			  rl.rlim_cur == RLIM_INFINITY ? -1 : (double)rl.rlim_cur, om);
	put_gauge(f, "process_start_time_seconds", "Start time of the process since unix epoch "
		  "in seconds.", process_start_s(), om);
	metrics_family(f, "pmiprof_build_info", "gauge", "pmiprof's version (always 1).", om);
	fprintf(f, "pmiprof_build_info{version=\"%s\"} 1\n", PMIPROF_VERSION);
}

int daemon_state_write_metrics(struct daemon_state *d, FILE *f, bool om)
{
	struct rusage ru;
	uint64_t t0 = pm_now_ns(), c0 = pm_thread_cpu_ns();
	int ret;

	/* one scrape at a time: they share the totals, and a second one waits */
	pthread_mutex_lock(&d->lock);
	ret = window_metrics_write(d->wm, f, om);
	if (!ret) {
		double cpu_s;

		getrusage(RUSAGE_SELF, &ru);
		cpu_s = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
			(double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
		put_process_metrics(f, om, cpu_s);
		put_counter(f, "pmiprof_daemon_cpu_seconds_total", "CPU time of the daemon "
			    "(user + system).", cpu_s, om);
		put_gauge(f, "pmiprof_daemon_resident_memory_bytes", "Resident set size.",
			  (double)pm_rss_bytes(), om);
		put_gauge(f, "pmiprof_daemon_start_time_seconds", "When the daemon started "
			  "(Unix time).", (double)d->start_real_ns / 1e9, om);
		put_counter(f, "pmiprof_daemon_samples_recorded_total", "Samples the recorder "
			    "wrote (including those not yet in a complete chunk).",
			    (double)d->stats.samples, om);
		put_counter(f, "pmiprof_daemon_samples_lost_total", "Samples the kernel ring "
			    "lost (ring full).", (double)d->stats.lost, om);
		if (d->stats.cpus_online) {
			put_gauge(f, "pmiprof_daemon_cpus_online", "CPUs online at the last "
				  "check (every 0.2 s).", (double)d->stats.cpus_online, om);
			put_gauge(f, "pmiprof_daemon_cpus_recorded", "Online CPUs recorded (less "
				  "than cpus_online: a CPU not followed; /healthz says 503).",
				  (double)d->stats.cpus_recorded, om);
			put_counter(f, "pmiprof_daemon_cpu_unrecorded_seconds_total", "CPU time "
				    "not recorded because a CPU was offline (from the check that "
				    "saw it gone to its events opened again).",
				    (double)d->stats.cpu_unrecorded_ns / 1e9, om);
		}
		put_counter(f, "pmiprof_daemon_segments_closed_total", "Segments closed.",
			    (double)d->segments_closed, om);
		put_counter(f, "pmiprof_daemon_segment_write_errors_total", "Segments that ended "
			    "on a write error, and segments that could not be created.",
			    (double)(d->segments_failed + d->open_errors), om);
		put_counter(f, "pmiprof_daemon_segments_deleted_total", "Segments deleted by "
			    "retention.", (double)d->segments_deleted, om);
		put_gauge(f, "pmiprof_daemon_disk_segments", "Segments in the directory after "
			  "the last retention pass.", (double)d->disk_segments, om);
		put_gauge(f, "pmiprof_daemon_disk_bytes", "Bytes of segments in the directory "
			  "after the last retention pass.", (double)d->disk_bytes, om);
		put_counter(f, "pmiprof_daemon_scrapes_total", "/metrics requests served before "
			    "this one.", (double)d->scrapes, om);
		put_gauge(f, "pmiprof_daemon_last_scrape_duration_seconds", "How long the "
			  "previous /metrics took to compute.", d->last_scrape_s, om);
		put_gauge(f, "pmiprof_daemon_last_scrape_cpu_seconds", "CPU time the previous "
			  "/metrics took (the rest of its duration was waiting: for the recorder's "
			  "lock, for a CPU).", d->last_scrape_cpu_s, om);
		if (d->lp) {
			struct live_profile_stats ls;

			live_profile_stats(d->lp, &ls);
			put_counter(f, "pmiprof_daemon_profiles_total", "/debug/pprof/profile "
				    "answers built.", (double)ls.profiles, om);
			put_counter(f, "pmiprof_daemon_profile_samples_dropped_total", "Samples "
				    "left out of profiles: the profile builder was too far behind.",
				    (double)ls.samples_dropped, om);
			put_counter(f, "pmiprof_daemon_symbol_reloads_total", "Times the profile "
				    "builder's symbol cache was dropped (a binary changed, it "
				    "grew too big, RSS neared --max-memory, or a segment passed "
				    "without a profile asked for).", (double)ls.symbol_reloads, om);
		}
		if (om)
			fputs("# EOF\n", f);
		d->scrapes++;
		d->last_scrape_s = (double)(pm_now_ns() - t0) / 1e9;
		d->last_scrape_cpu_s = (double)(pm_thread_cpu_ns() - c0) / 1e9;
	}
	pthread_mutex_unlock(&d->lock);
	return ret;
}

int daemon_state_flush_fd(const struct daemon_state *d)
{
	return d->flush_fd;
}

uint64_t daemon_state_flush_wanted(struct daemon_state *d)
{
	uint64_t v, gen;

	if (read(d->flush_fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return 0;
	pthread_mutex_lock(&d->lock);
	gen = d->flush_asked;
	pthread_mutex_unlock(&d->lock);
	return gen;
}

void daemon_state_flushed(struct daemon_state *d, uint64_t gen)
{
	pthread_mutex_lock(&d->lock);
	if (gen > d->flush_done)
		d->flush_done = gen;
	pthread_cond_broadcast(&d->cond);
	pthread_mutex_unlock(&d->lock);
}

int daemon_state_flush(struct daemon_state *d, unsigned int timeout_ms)
{
	struct timespec ts;
	uint64_t gen, one = 1;
	int ret = 0;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += timeout_ms / 1000;
	ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&d->lock);
	gen = ++d->flush_asked;
	if (write(d->flush_fd, &one, sizeof(one)) != (ssize_t)sizeof(one))
		ret = -errno;
	while (!ret && d->flush_done < gen)
		ret = -pthread_cond_timedwait(&d->cond, &d->lock, &ts);
	pthread_mutex_unlock(&d->lock);
	return ret;
}
