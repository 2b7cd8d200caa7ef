// SPDX-License-Identifier: GPL-2.0
/*
 * Prometheus metrics kept live from what the daemon writes (window_metrics.h).
 */
#include "service/window_metrics.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "analysis/metrics.h"
#include "input/session.h"
#include "proc_cgroup.h"
#include "strtab.h"
#include "util.h"

#define MAX_HIST	(PMIPROF_MAX_EVENTS + 1)
#define MAX_BUCKETS	26	/* bounds_setup(): at most 25 bounds and +Inf */
#define NR_REASONS	8
/* names: as the report names threads without a COMM (report/input/session.c) */
#define NAME_UNKNOWN	0		/* "[unknown]" */
#define NAME_SWAPPER	1		/* "swapper" */
#define NAME_NO_CGROUP	2		/* "unknown": the process was gone before its first sample */
#define NAME_ROOT_CG	3		/* "/": the idle task */
#define CG_LOOKUP	(HM_EMPTY - 1)	/* pid2cg: the pid exited, read again if it comes back */
#define TAG_PID		0
#define TAG_SERIES	1
/*
 * Eviction (compact()): a thread is forgotten EXIT_LINGER_NS after its
 * EXIT (a late sample of it still finds its name), an unnamed series
 * SERIES_IDLE_NS after its last window (its counts stay in "other");
 * at most every COMPACT_EVERY_NS of trace time, or at once past the bounds.
 */
#define EXIT_LINGER_NS		(10 * 1000000000ull)
#define SERIES_IDLE_NS		(60 * 1000000000ull)
#define COMPACT_EVERY_NS	(10 * 1000000000ull)
#define MAX_SERIES		20000u
#define MAX_EXITED		(1u << 20)
/*
 * Naming (choose_named()): a named pair keeps its name at least
 * NAMED_MIN_NS; after that an unnamed pair more than NAMED_DISPLACE times
 * as active takes its place.  Activity: windows of the current
 * COMPACT_EVERY_NS period plus the earlier ones halved at each period.
 */
#define NAMED_MIN_NS		SERIES_IDLE_NS
#define NAMED_DISPLACE		2
/*
 * Before the first scrape nothing has been shown, so names are free: every
 * pair (up to this many) keeps its counts, and the first scrape names the
 * K most active of them with everything they counted; the rest go to
 * "other".  Else the first K pairs to have a window (a shell, ls) would
 * hold the names and a busy service started a moment later would wait 60 s.
 */
#define PRE_SCRAPE_PAIRS	1024u
#define REBORN			(HM_EMPTY - 1)

struct hist_def {
	char name[64];			/* metric name */
	char label[160];		/* extra label ("event=\"...\",") or "" */
	struct metric m;
	double scale;			/* value multiplier (ns -> s) */
	double bounds[MAX_BUCKETS - 1];	/* ascending upper bounds; +Inf after them */
	unsigned int nr_bounds;
	char le[MAX_BUCKETS][32];	/* each bucket's le="..." value: "%g" of its bound, "+Inf" */
};

struct hist {
	uint64_t buckets[MAX_BUCKETS];	/* non-cumulative; the last is +Inf */
	uint64_t count;
	double sum;
};

/*
 * What a named series (and "other") exposes besides its windows: the event
 * sums and histograms, about 4 KiB, so only named pairs have them (an
 * unnamed pair's windows are counted in "other" as they come).
 */
struct counts {
	uint64_t windows;		/* of shown: the windows then */
	uint64_t events[PMIPROF_MAX_EVENTS];
	struct hist h[MAX_HIST];
};

/*
 * One (comm, cgroup) pair: a series of every comm metric.  What a scrape's
 * ranking reads comes first: one cache line per pair.
 */
struct series {
	uint32_t comm, cgroup;		/* ids in names */
	bool named;			/* shown by name */
	uint64_t windows;
	uint64_t period, recent;	/* activity: windows this period, earlier decayed */
	uint64_t named_at;		/* since when (trace clock) */
	uint64_t last_time;		/* its last window's time (trace clock) */
	struct counts *k;		/* named (and "other"): its counts; else NULL */
	/*
	 * Named: its counts as the last scrape showed them (NULL: not shown
	 * yet).  When it gives its name back, only what it counted since goes
	 * to "other": what Prometheus saw stays in the named series, which ends
	 * there (goes stale), so no series ever jumps by counts of the past.
	 */
	struct counts *shown;
};

/* A pair's place in a scrape's ranking (choose_named()): sorted in its own array. */
struct rank {
	uint64_t activity, windows;
	uint32_t i;
};

struct exited {
	uint64_t time;
	uint32_t tid;
	uint32_t seq;			/* its number in exit_at, for a tid reused meanwhile */
};

struct window_metrics {
	pthread_mutex_t lock;		/* the tap (recording thread) against scrapes */
	struct trace_header h;
	uint32_t top;
	struct hist_def defs[MAX_HIST];
	unsigned int nr_defs;
	bool time_based;
	bool cgroups;			/* read /proc/PID/cgroup */
	struct strtab names;		/* command names and cgroup paths */
	struct hashmap tid2comm;	/* tid -> name id, as report's session keeps it */
	struct hashmap ids;		/* (pid, TAG_PID) -> cgroup name id; (key, TAG_SERIES) -> series */
	struct series *v;
	uint32_t nr, cap;
	/* scrapes, one at a time: a snapshot taken under lock, formatted after it */
	pthread_mutex_t scrape_lock;
	struct rank *order;		/* series by activity */
	uint32_t order_cap;
	struct series *snap;		/* the named series, then "other" */
	struct counts *snap_k;		/* their counts */
	uint32_t snap_k_cap;
	const char **snap_names;	/* their comm and cgroup: 2 per series */
	uint32_t snap_cap, names_cap;
	uint64_t lost[NR_REASONS];
	uint64_t throttle_events;
	uint64_t cgroup_reads;
	struct trace_writer_tap tap;
	/* eviction */
	/*
	 * "other": every window an unnamed pair counts is added here as well,
	 * and a named pair's counts when it gives way; never subtracted from
	 * (a float sum would wobble), so it never goes back.
	 */
	struct series other;
	struct counts other_k;
	struct exited *exited;		/* EXITs in time order, not yet forgotten */
	uint32_t nr_exited, cap_exited, exit_seq;
	struct hashmap exit_at;		/* tid -> its last EXIT's seq; REBORN after a FORK/COMM */
	uint64_t now, next_compact;	/* latest record time; when compact() runs next */
	uint64_t evicted_series, evicted_threads, compactions;
	uint32_t nr_named;
	bool scraped;			/* a snapshot was taken: names are shown */
	uint64_t renamed;		/* named pairs that gave way to busier ones */
};

/*
 * Bucket bounds.  histogram_quantile() interpolates linearly inside a
 * bucket, so its error is the width of the bucket the quantile falls in:
 * IPC and MPKI, whose range depends on the program, get exponential
 * buckets over everything that occurs (IPC 0.05..10.6, a bound 1.25x the
 * last: within 12 % anywhere; MPKI 0.01..792, 1.6x); time-based windows,
 * which all hold about one sampling period P, get fine buckets around P
 * (1 % steps from 0.95 P to 1.05 P) and coarse ones for the tails (idle
 * stretches, throttling).  Bounds are rounded to 3 (time: 4) significant
 * digits so that their le="..." labels read as they are.
 */
static const double period_factors[] = { 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.97, 0.98, 0.99,
					 1.0, 1.01, 1.02, 1.03, 1.05, 1.1, 1.25, 1.5, 2, 3, 5,
					 10, 30, 100 };

static double round_sig(double v, int digits)
{
	char b[32];

	snprintf(b, sizeof(b), "%.*g", digits, v);
	return strtod(b, NULL);
}

/* n exponential bounds from lo, each f times the last. */
static void exp_bounds(struct hist_def *d, double lo, double f, unsigned int n)
{
	double v = lo;

	for (d->nr_bounds = 0; d->nr_bounds < n && d->nr_bounds < MAX_BUCKETS - 1; v *= f)
		d->bounds[d->nr_bounds++] = round_sig(v, 3);
}

/*
 * Time-based windows (the trigger is a clock: cpu-clock at F Hz, or every
 * period ns): a busy task's window holds about one period of its clock
 * (task-clock, or cpu-clock), so the buckets go around it; else exponential.
 */
static void sec_bounds(struct hist_def *d, const struct trace_header *h)
{
	double p = 0;
	unsigned int i;

	if (h->flags & PMIPROF_TRACE_F_TIME_BASED)
		p = h->freq_hz ? 1.0 / (double)h->freq_hz : (double)h->period * 1e-9;
	if (!(p > 0)) {
		exp_bounds(d, 1e-5, 1.8, 25);	/* 10 us .. 13 s */
		return;
	}
	d->nr_bounds = 0;
	for (i = 0; i < ARRAY_SIZE(period_factors) && d->nr_bounds < MAX_BUCKETS - 1; i++) {
		double v = round_sig(p * period_factors[i], 4);

		if (!d->nr_bounds || v > d->bounds[d->nr_bounds - 1])
			d->bounds[d->nr_bounds++] = v;
	}
}

static void defs_setup(struct window_metrics *m)
{
	struct metric_set set;
	struct event_roles roles;
	uint32_t i;

	metrics_derived(&m->h, &set);
	for (i = 0; i < set.n && m->nr_defs < MAX_HIST; i++) {
		struct hist_def *d = &m->defs[m->nr_defs];

		if (!strcmp(set.m[i].name, "ipc")) {
			snprintf(d->name, sizeof(d->name), "pmiprof_window_ipc");
			exp_bounds(d, 0.05, 1.25, 25);
		} else if (set.m[i].kind == METRIC_PER_KILO) {
			snprintf(d->name, sizeof(d->name), "pmiprof_window_mpki");
			const char *ev = m->h.events[set.m[i].a].name;
			size_t l = strnlen(ev, sizeof(d->label) - 12);

			memcpy(d->label, "event=\"", 7);
			memcpy(d->label + 7, ev, l);
			memcpy(d->label + 7 + l, "\",", 3);
			exp_bounds(d, 0.01, 1.6, 25);
		} else {
			continue;
		}
		d->m = set.m[i];
		d->scale = 1.0;
		m->nr_defs++;
	}
	event_roles_find(&m->h, &roles);
	m->time_based = (m->h.flags & PMIPROF_TRACE_F_TIME_BASED) != 0;
	if (!m->nr_defs && roles.clock >= 0) {
		/* time-based windows: how much CPU time each window holds */
		struct hist_def *d = &m->defs[m->nr_defs++];

		snprintf(d->name, sizeof(d->name), "pmiprof_window_cpu_seconds");
		d->m.kind = METRIC_EVENT;
		d->m.a = roles.clock;
		d->m.b = -1;
		d->scale = 1e-9;
		sec_bounds(d, &m->h);
	}
	/* formatted once here, not at every scrape's every bucket line */
	for (i = 0; i < m->nr_defs; i++) {
		struct hist_def *d = &m->defs[i];
		unsigned int b;

		for (b = 0; b < d->nr_bounds; b++)
			snprintf(d->le[b], sizeof(d->le[b]), "%g", d->bounds[b]);
		snprintf(d->le[d->nr_bounds], sizeof(d->le[0]), "+Inf");
	}
}


static void on_samples(void *arg, const struct trace_sample *s, size_t n);
static void on_comm(void *arg, const struct trace_comm *c);
static void on_task(void *arg, uint8_t type, const struct trace_task *t);
static void on_lost(void *arg, const struct trace_lost *l);

int window_metrics_new(struct window_metrics **out, const struct trace_header *h,
		       uint32_t top_comms, bool cgroups)
{
	struct window_metrics *m = calloc(1, sizeof(*m));
	int e;

	*out = NULL;
	if (!m)
		return -ENOMEM;
	pthread_mutex_init(&m->lock, NULL);
	pthread_mutex_init(&m->scrape_lock, NULL);
	m->h = *h;
	m->top = top_comms;
	m->cgroups = cgroups;
	m->other.k = &m->other_k;
	defs_setup(m);
	m->tap = (struct trace_writer_tap){ .samples = on_samples, .comm = on_comm,
					    .task = on_task, .lost = on_lost, .arg = m };
	e = strtab_init(&m->names);
	if (!e)
		e = hm_init(&m->tid2comm, 4096);
	if (!e)
		e = hm_init(&m->ids, 4096);
	if (!e)
		e = hm_init(&m->exit_at, 1024);
	if (!e && (strtab_intern(&m->names, "[unknown]") != NAME_UNKNOWN ||
		   strtab_intern(&m->names, "swapper") != NAME_SWAPPER ||
		   strtab_intern(&m->names, "unknown") != NAME_NO_CGROUP ||
		   strtab_intern(&m->names, "/") != NAME_ROOT_CG))
		e = -ENOMEM;
	if (e) {
		window_metrics_free(m);
		return e;
	}
	*out = m;
	return 0;
}

void window_metrics_free(struct window_metrics *m)
{
	uint32_t i;

	if (!m)
		return;
	for (i = 0; i < m->nr; i++) {
		free(m->v[i].k);
		free(m->v[i].shown);
	}
	free(m->snap_k);
	strtab_free(&m->names);
	hm_free(&m->tid2comm);
	hm_free(&m->ids);
	free(m->v);
	free(m->order);
	free(m->snap);
	free(m->snap_names);
	free(m->exited);
	hm_free(&m->exit_at);
	pthread_mutex_destroy(&m->scrape_lock);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

void window_metrics_set_top(struct window_metrics *m, uint32_t top_comms)
{
	pthread_mutex_lock(&m->lock);
	m->top = top_comms;
	pthread_mutex_unlock(&m->lock);
}

const struct trace_writer_tap *window_metrics_tap(struct window_metrics *m)
{
	return &m->tap;
}

/* A sample's command name, as session_comm_of() finds it. */
static uint32_t comm_of(const struct window_metrics *m, uint32_t pid, uint32_t tid)
{
	uint32_t c = hm_get(&m->tid2comm, tid, 0);

	if (c == HM_EMPTY)
		c = hm_get(&m->tid2comm, pid, 0);
	if (c == HM_EMPTY)
		return pid == 0 && tid == 0 ? NAME_SWAPPER : NAME_UNKNOWN;
	return c;
}

/* /proc/PID/cgroup as a name id, or fallback when the process is gone. */
static uint32_t cgroup_read(struct window_metrics *m, uint32_t pid, uint32_t fallback)
{
	char path[512];
	int64_t id;

	m->cgroup_reads++;
	id = proc_cgroup_read((pid_t)pid, path, sizeof(path)) ? fallback :
	     strtab_intern(&m->names, path);
	if (id < 0 || hm_put(&m->ids, pid, TAG_PID, (uint32_t)id))
		return fallback;
	return (uint32_t)id;
}

/*
 * The cgroup of pid: read when the process is first seen (its FORK, its
 * exec's COMM: on_task(), on_comm()), else at its first sample.
 */
static uint32_t cgroup_of(struct window_metrics *m, uint32_t pid)
{
	uint32_t c;

	if (!m->cgroups)
		return NAME_NO_CGROUP;
	if (pid == 0)
		return NAME_ROOT_CG;
	c = hm_get(&m->ids, pid, TAG_PID);
	if (c != HM_EMPTY && c != CG_LOOKUP)
		return c;
	return cgroup_read(m, pid, NAME_NO_CGROUP);
}

/* The events a series sums: the trace's. */
static unsigned int nr_events(const struct window_metrics *m)
{
	return m->h.nr_events < PMIPROF_MAX_EVENTS ? m->h.nr_events : PMIPROF_MAX_EVENTS;
}

static struct series *series_of(struct window_metrics *m, uint32_t comm, uint32_t cgroup,
				uint64_t time)
{
	uint64_t key = (uint64_t)comm << 32 | cgroup;
	uint32_t i = hm_get(&m->ids, key, TAG_SERIES);

	if (i != HM_EMPTY)
		return &m->v[i];
	if (pm_grow(&m->v, &m->cap, (uint64_t)m->nr + 1, 64, sizeof(*m->v)) ||
	    hm_put(&m->ids, key, TAG_SERIES, m->nr))
		return NULL;
	memset(&m->v[m->nr], 0, sizeof(m->v[0]));
	m->v[m->nr].comm = comm;
	m->v[m->nr].cgroup = cgroup;
	/* named from its first window while there is room: its series then holds them all */
	if ((m->nr_named < m->top || (!m->scraped && m->nr_named < PRE_SCRAPE_PAIRS)) &&
	    (m->v[m->nr].k = calloc(1, sizeof(struct counts)))) {
		m->v[m->nr].named = true;
		m->v[m->nr].named_at = time;
		m->nr_named++;
	}
	return &m->v[m->nr++];
}

static void count_window(const struct window_metrics *m, struct series *c,
			 const struct trace_sample *smp)
{
	unsigned int k, i;

	c->windows++;
	if (!c->k)
		return;		/* unnamed: counted in "other" */
	if (window_counts_events(smp->flags))
		for (i = 0; i < smp->nr && i < nr_events(m); i++)
			c->k->events[i] += smp->counts[i];
	if (!window_in_stats(smp->flags))
		return;
	for (k = 0; k < m->nr_defs; k++) {
		const struct hist_def *d = &m->defs[k];
		struct hist *h = &c->k->h[k];
		double v;

		if (!metric_value(&d->m, smp->counts, &v))
			continue;
		v *= d->scale;
		for (i = 0; i < d->nr_bounds && v > d->bounds[i]; i++)
			;
		h->buckets[i]++;
		h->count++;
		h->sum += v;
	}
}

static void add_sample(struct window_metrics *m, const struct trace_sample *smp)
{
	struct series *c = series_of(m, comm_of(m, smp->pid, smp->tid), cgroup_of(m, smp->pid),
				     smp->time);

	if (!c)
		return;
	c->period++;
	c->last_time = smp->time;
	count_window(m, c, smp);
	if (!c->named)
		count_window(m, &m->other, smp);
}

static void maybe_compact(struct window_metrics *m);

static void on_samples(void *arg, const struct trace_sample *s, size_t n)
{
	struct window_metrics *m = arg;
	size_t i;

	pthread_mutex_lock(&m->lock);
	for (i = 0; i < n; i++)
		add_sample(m, &s[i]);
	if (n && s[n - 1].time > m->now)
		m->now = s[n - 1].time;
	maybe_compact(m);
	pthread_mutex_unlock(&m->lock);
}

/* A tid in use again (pids wrap): its earlier EXIT must not make compact() forget it. */
static void reborn(struct window_metrics *m, uint32_t tid)
{
	if (hm_get(&m->exit_at, tid, 0) != HM_EMPTY)
		hm_put(&m->exit_at, tid, 0, REBORN);
}

static void on_comm(void *arg, const struct trace_comm *c)
{
	struct window_metrics *m = arg;
	int64_t id;

	pthread_mutex_lock(&m->lock);
	reborn(m, c->tid);
	id = strtab_intern(&m->names, c->comm ? c->comm : "");
	if (id >= 0)
		hm_put(&m->tid2comm, c->tid, 0, (uint32_t)id);
	/* a program may move itself before exec (systemd-run --scope): read again */
	if (m->cgroups && (c->flags & PMIPROF_COMM_F_EXEC) && c->pid == c->tid && c->pid) {
		uint32_t old = hm_get(&m->ids, c->pid, TAG_PID);

		cgroup_read(m, c->pid, old == HM_EMPTY || old == CG_LOOKUP ? NAME_NO_CGROUP : old);
	}
	pthread_mutex_unlock(&m->lock);
}

static void on_task(void *arg, uint8_t type, const struct trace_task *t)
{
	struct window_metrics *m = arg;
	uint32_t c;

	pthread_mutex_lock(&m->lock);
	if (type == PMIPROF_REC_FORK) {
		reborn(m, t->tid);
		c = hm_get(&m->tid2comm, t->ptid, 0);
		if (c == HM_EMPTY)
			c = hm_get(&m->tid2comm, t->ppid, 0);
		if (c != HM_EMPTY)
			hm_put(&m->tid2comm, t->tid, 0, c);
		/* a new process: born in its parent's cgroup, if it is gone already */
		if (m->cgroups && t->pid == t->tid && t->pid)
			cgroup_read(m, t->pid, t->ppid ? cgroup_of(m, t->ppid) : NAME_NO_CGROUP);
	} else {
		if (t->pid == t->tid && hm_get(&m->ids, t->pid, TAG_PID) != HM_EMPTY)
			/* the pid may be reused by another process, in another cgroup */
			hm_put(&m->ids, t->pid, TAG_PID, CG_LOOKUP);
		/* forgotten a while after (compact()) */
		if (!pm_grow(&m->exited, &m->cap_exited, (uint64_t)m->nr_exited + 1, 1024,
			     sizeof(*m->exited)) && !hm_put(&m->exit_at, t->tid, 0, m->exit_seq))
			m->exited[m->nr_exited++] = (struct exited){ t->time, t->tid, m->exit_seq++ };
		if (m->exit_seq >= REBORN)
			m->exit_seq = 0;
		if (t->time > m->now)
			m->now = t->time;
	}
	pthread_mutex_unlock(&m->lock);
}

static void on_lost(void *arg, const struct trace_lost *l)
{
	struct window_metrics *m = arg;

	pthread_mutex_lock(&m->lock);
	if (l->reason == PMIPROF_LOST_THROTTLE)
		m->throttle_events += l->count;
	else
		m->lost[l->reason < NR_REASONS ? l->reason : 0] += l->count;
	pthread_mutex_unlock(&m->lock);
}

static uint64_t activity(const struct series *c)
{
	return c->recent + c->period;
}

/* The most active first, then the most windows, then the oldest: one order for equal pairs. */
static int by_activity(const void *x, const void *y)
{
	const struct rank *a = x, *b = y;

	if (a->activity != b->activity)
		return a->activity > b->activity ? -1 : 1;
	if (a->windows != b->windows)
		return a->windows > b->windows ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

void metrics_family(FILE *f, const char *name, const char *type, const char *help, bool om)
{
	size_t l = strlen(name);

	/* OpenMetrics names a counter family without the _total of its samples */
	if (om && !strcmp(type, "counter") && l > 6 && !strcmp(name + l - 6, "_total"))
		l -= 6;
	fprintf(f, "# HELP %.*s %s\n# TYPE %.*s %s\n", (int)l, name, help, (int)l, name, type);
}

/* Prometheus label values: backslash, double quote and newline escaped. */
static void put_label(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n') {
			fputs("\\n", f);
			continue;
		}
		fputc(*s, f);
	}
}

/* label value s escaped (backslash, double quote, newline) at out; the end of what was written. */
static char *escape_label(char *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			*out++ = '\\';
		if (*s == '\n') {
			*out++ = '\\';
			*out++ = 'n';
			continue;
		}
		*out++ = *s;
	}
	return out;
}

/* s (n bytes) at p; the end. */
static char *put_bytes(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

/* v in decimal at p (as %llu); the end. */
static char *put_u64(char *p, uint64_t v)
{
	char t[20];
	unsigned int n = 0;

	do {
		t[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = t[--n];
	return p;
}

/*
 * One series' lines.  The bulk of a scrape with many named series: lines
 * are assembled with memcpy and put_u64 (each bound's le="..." formatted
 * once, defs_setup()), one fwrite each, not a printf per line.
 */
static void put_series(FILE *f, const struct window_metrics *m, const char *comm,
		       const char *cgroup, const struct series *c)
{
	/* 'comm="C",cgroup="G"', escaped once for the series' every line */
	char labels[2 * 4096 + 32], *p = labels;
	char line[sizeof(labels) + 64 + 160 + 64 + 64];
	size_t ll;
	unsigned int e, k, i;

	if (strlen(comm) + strlen(cgroup) > 4096)
		cgroup = "";
	p = escape_label(p + sprintf(p, "comm=\""), comm);
	p = escape_label(p + sprintf(p, "\",cgroup=\""), cgroup);
	strcpy(p, "\"");
	ll = (size_t)(p + 1 - labels);
	p = put_bytes(line, "pmiprof_windows_total{", 22);
	p = put_bytes(p, labels, ll);
	p = put_bytes(p, "} ", 2);
	p = put_u64(p, c->windows);
	*p++ = '\n';
	fwrite(line, 1, (size_t)(p - line), f);
	for (e = 0; e < m->h.nr_events; e++) {
		fputs("pmiprof_events_total{event=\"", f);
		put_label(f, m->h.events[e].name);
		p = put_bytes(line, "\",", 2);
		p = put_bytes(p, labels, ll);
		p = put_bytes(p, "} ", 2);
		p = put_u64(p, c->k->events[e]);
		*p++ = '\n';
		fwrite(line, 1, (size_t)(p - line), f);
	}
	for (k = 0; k < m->nr_defs; k++) {
		const struct hist_def *d = &m->defs[k];
		size_t nl = strlen(d->name), dl = strlen(d->label);
		uint64_t cum = 0;

		for (i = 0; i <= d->nr_bounds; i++) {
			cum += c->k->h[k].buckets[i];
			p = put_bytes(line, d->name, nl);
			p = put_bytes(p, "_bucket{", 8);
			p = put_bytes(p, d->label, dl);
			p = put_bytes(p, labels, ll);
			p = put_bytes(p, ",le=\"", 5);
			p = put_bytes(p, d->le[i], strlen(d->le[i]));
			p = put_bytes(p, "\"} ", 3);
			p = put_u64(p, cum);
			*p++ = '\n';
			fwrite(line, 1, (size_t)(p - line), f);
		}
		fprintf(f, "%s_sum{%s%s} %.17g\n", d->name, d->label, labels, c->k->h[k].sum);
		p = put_bytes(line, d->name, nl);
		p = put_bytes(p, "_count{", 7);
		p = put_bytes(p, d->label, dl);
		p = put_bytes(p, labels, ll);
		p = put_bytes(p, "} ", 2);
		p = put_u64(p, c->k->h[k].count);
		*p++ = '\n';
		fwrite(line, 1, (size_t)(p - line), f);
	}
}

/*
 * What a named pair counted since the last scrape showed it (base, or
 * everything when base is NULL) into "other" (set_named()): the events and
 * histograms in use.
 */
static void series_add_since(const struct window_metrics *m, struct series *to,
			     const struct series *from, const struct counts *base)
{
	static const struct counts zero;
	struct counts *t = to->k;
	const struct counts *f = from->k;
	unsigned int e, k;

	if (!base)
		base = &zero;
	to->windows += from->windows - base->windows;
	for (e = 0; e < nr_events(m); e++)
		t->events[e] += f->events[e] - base->events[e];
	for (k = 0; k < m->nr_defs; k++) {
		for (e = 0; e <= m->defs[k].nr_bounds; e++)
			t->h[k].buckets[e] += f->h[k].buckets[e] - base->h[k].buckets[e];
		t->h[k].count += f->h[k].count - base->h[k].count;
		t->h[k].sum += f->h[k].sum - base->h[k].sum;
	}
}

/* The id in the new table nt of old name id old (map: old -> new, HM_EMPTY: not yet). */
static uint32_t remap(const struct window_metrics *m, struct strtab *nt, uint32_t *map,
		      uint32_t old)
{
	if (map[old] == HM_EMPTY) {
		int64_t id = strtab_intern(nt, strtab_str(&m->names, old));

		map[old] = id < 0 ? NAME_UNKNOWN : (uint32_t)id;
	}
	return map[old];
}

/*
 * Forget what is gone, so the tables hold the live processes and the
 * busiest series, not every process ever seen: threads EXIT_LINGER_NS
 * after their EXIT (and their pid's cgroup), unnamed series idle for
 * SERIES_IDLE_NS (or every unnamed one past MAX_SERIES), whose counts are
 * in "other" already (add_sample()); the names no
 * one uses any more.  The tables are built again, smaller.  Under m->lock,
 * and under scrape_lock (a scrape's snapshot points at the names).
 */
static int compact(struct window_metrics *m)
{
	uint64_t exit_cut = m->now > EXIT_LINGER_NS ? m->now - EXIT_LINGER_NS : 0;
	uint64_t idle_cut = m->now > SERIES_IDLE_NS ? m->now - SERIES_IDLE_NS : 0;
	struct hashmap ntid = { 0 }, nids = { 0 }, nexit = { 0 };
	bool over = m->nr > MAX_SERIES;
	struct strtab nt;
	uint32_t *map, i, n = 0, drop;
	int e;

	map = malloc(((size_t)m->names.n + 1) * sizeof(*map));
	if (!map)
		return -ENOMEM;
	memset(map, 0xff, ((size_t)m->names.n + 1) * sizeof(*map));
	e = strtab_init(&nt);
	if (!e)
		e = hm_init(&ntid, m->tid2comm.used + 16);
	if (!e)
		e = hm_init(&nids, m->ids.used + 16);
	if (!e)
		e = hm_init(&nexit, m->nr_exited + 16);
	for (i = 0; !e && i <= NAME_ROOT_CG; i++)
		e = remap(m, &nt, map, i) == i ? 0 : -ENOMEM;
	/* the EXITs old enough, unless their tid was born again since */
	for (drop = 0; drop < m->nr_exited && (m->exited[drop].time <= exit_cut ||
					      m->nr_exited - drop > MAX_EXITED); drop++)
		;
	for (i = 0; !e && i <= m->tid2comm.mask; i++) {
		const struct hm_slot *sl = &m->tid2comm.slots[i];
		uint32_t x;

		if (sl->val == HM_EMPTY)
			continue;
		x = hm_get(&m->exit_at, sl->key, 0);
		if (x != HM_EMPTY && x != REBORN && drop &&
		    x - m->exited[0].seq < drop) {
			m->evicted_threads++;
			continue;
		}
		e = hm_put(&ntid, sl->key, 0, remap(m, &nt, map, sl->val));
	}
	for (i = 0; !e && i <= m->ids.mask; i++) {
		const struct hm_slot *sl = &m->ids.slots[i];
		uint32_t x;

		if (sl->val == HM_EMPTY || sl->tag != TAG_PID)
			continue;
		x = hm_get(&m->exit_at, sl->key, 0);
		if (x != HM_EMPTY && x != REBORN && drop &&
		    x - m->exited[0].seq < drop)
			continue;
		e = hm_put(&nids, sl->key, TAG_PID, sl->val == CG_LOOKUP ? CG_LOOKUP :
			   remap(m, &nt, map, sl->val));
	}
	/* idle unnamed pairs go: their windows are in "other" already */
	for (i = 0; !e && i < m->nr; i++) {
		const struct series *c = &m->v[i];

		if (!c->named && (c->last_time <= idle_cut || over))
			continue;
		e = hm_put(&nids, (uint64_t)remap(m, &nt, map, c->comm) << 32 |
			   remap(m, &nt, map, c->cgroup), TAG_SERIES, n++);
	}
	for (i = drop; !e && i < m->nr_exited; i++) {
		uint32_t x = hm_get(&m->exit_at, m->exited[i].tid, 0);

		e = hm_put(&nexit, m->exited[i].tid, 0, x);
	}
	if (e) {
		/* nothing changed: the next pass tries again */
		free(map);
		strtab_free(&nt);
		hm_free(&ntid);
		hm_free(&nids);
		hm_free(&nexit);
		return e;
	}
	for (i = 0, n = 0; i < m->nr; i++) {
		struct series *c = &m->v[i];

		if (!c->named && (c->last_time <= idle_cut || over)) {
			m->evicted_series++;
			continue;
		}
		c->comm = remap(m, &nt, map, c->comm);
		c->cgroup = remap(m, &nt, map, c->cgroup);
		if (n != i)
			m->v[n] = *c;
		n++;
	}
	free(map);
	m->nr = n;
	strtab_free(&m->names);
	m->names = nt;
	hm_free(&m->tid2comm);
	m->tid2comm = ntid;
	hm_free(&m->ids);
	m->ids = nids;
	hm_free(&m->exit_at);
	m->exit_at = nexit;
	memmove(m->exited, m->exited + drop, (m->nr_exited - drop) * sizeof(*m->exited));
	m->nr_exited -= drop;
	m->compactions++;
	return 0;
}

/* A period ended: this period's windows join the earlier ones, all halved per period. */
static void decay_activity(struct window_metrics *m)
{
	uint64_t periods = m->next_compact ? (m->now - m->next_compact) / COMPACT_EVERY_NS : 0;
	uint32_t i;

	for (i = 0; i < m->nr; i++) {
		struct series *c = &m->v[i];

		c->recent = periods < 63 ? (c->recent / 2 + c->period) >> periods : 0;
		c->period = 0;
	}
}

static void maybe_compact(struct window_metrics *m)
{
	if (m->now < m->next_compact && m->nr <= MAX_SERIES && m->nr_exited <= MAX_EXITED)
		return;
	/* a scrape formatting its snapshot holds scrape_lock: the next batch tries again */
	if (pthread_mutex_trylock(&m->scrape_lock))
		return;
	if (m->now >= m->next_compact)
		decay_activity(m);
	m->next_compact = m->now + COMPACT_EVERY_NS;
	compact(m);
	pthread_mutex_unlock(&m->scrape_lock);
}

/*
 * A pair changes between a name and "other".  Named -> other: its named
 * series ends (missing from the next scrape: Prometheus marks it stale),
 * and what it counted after the last scrape showed it goes to "other"
 * (an unnamed pair's windows are there already), so the increases of all
 * series between two scrapes are the windows recorded between them: no
 * series jumps by counts Prometheus already saw (sum(rate()) stays the
 * recorded rate).  Either way its series starts again from 0, so neither
 * "other" nor a named series ever goes back (a named series that comes back
 * after going stale starts at 0, which rate() reads as a reset from there).
 * A pair named at its creation (series_of()) keeps all.
 */
static int set_named(struct window_metrics *m, struct series *c, bool named)
{
	struct counts *k = NULL;

	if (named && !(k = calloc(1, sizeof(*k))))
		return -ENOMEM;
	if (c->named)
		series_add_since(m, &m->other, c, c->shown);
	free(c->shown);
	c->shown = NULL;
	free(c->k);
	c->k = k;
	c->windows = 0;
	c->named = named;
	c->named_at = m->now;
	if (named)
		m->nr_named++;
	else
		m->nr_named--;
	return 0;
}

static bool may_give_way(const struct window_metrics *m, const struct series *c)
{
	return c->named && c->named_at + NAMED_MIN_NS <= m->now;
}

/*
 * The named set, at a scrape: the K most active pairs, with hysteresis.
 * Room (a pair gone idle was folded, K raised) goes to the most active
 * unnamed pairs; when full, a pair named for NAMED_MIN_NS gives way to an
 * unnamed one NAMED_DISPLACE times as active; K lowered (SIGHUP): the
 * least active give way.  m->order: the pairs by activity, for the snapshot.
 */
static int choose_named(struct window_metrics *m)
{
	const struct rank *o;
	uint32_t i, j;

	if (pm_grow(&m->order, &m->order_cap, (uint64_t)m->nr + 1, 256, sizeof(*m->order)))
		return -ENOMEM;
	for (i = 0; i < m->nr; i++)
		m->order[i] = (struct rank){ activity(&m->v[i]), m->v[i].windows, i };
	qsort(m->order, m->nr, sizeof(*m->order), by_activity);
	o = m->order;
	for (j = m->nr; j-- > 0 && m->nr_named > m->top;) {
		if (m->v[o[j].i].named) {
			/* before the first scrape no name was shown: none is taken away */
			m->renamed += m->v[o[j].i].shown != NULL;
			(void)set_named(m, &m->v[o[j].i], false);	/* frees only */
		}
	}
	m->scraped = true;
	for (i = 0; i < m->nr && m->nr_named < m->top; i++)
		if (!m->v[o[i].i].named && o[i].activity && set_named(m, &m->v[o[i].i], true))
			return -ENOMEM;
	for (i = 0, j = m->nr;; i++, j--) {
		struct series *u, *n;

		while (i < m->nr && m->v[o[i].i].named)
			i++;
		while (j > i + 1 && !may_give_way(m, &m->v[o[j - 1].i]))
			j--;
		if (j <= i + 1)
			break;
		u = &m->v[o[i].i];
		n = &m->v[o[j - 1].i];
		if (activity(u) <= NAMED_DISPLACE * activity(n))
			break;
		if (set_named(m, u, true))
			return -ENOMEM;
		(void)set_named(m, n, false);
		m->renamed++;
	}
	return 0;
}

/*
 * Under m->lock (the recording thread's tap waits meanwhile): choose the
 * named series and copy them and the sum of the others into the snapshot,
 * O(series).  Returns how many series the snapshot holds ("other" last), or
 * -ENOMEM.
 */
static int64_t snapshot(struct window_metrics *m, uint64_t lost[NR_REASONS], uint64_t *throttle,
			uint64_t *nr_series, uint64_t *cg_reads)
{
	uint32_t named, i, n = 0;

	if (choose_named(m))
		return -ENOMEM;
	named = m->nr_named;
	if (pm_grow(&m->snap, &m->snap_cap, (uint64_t)named + 1, 32, sizeof(*m->snap)))
		return -ENOMEM;
	/* snap_k grows with snap: one count block per snapshot entry */
	if (m->snap_cap > m->snap_k_cap) {
		struct counts *k = realloc(m->snap_k, m->snap_cap * sizeof(*k));

		if (!k)
			return -ENOMEM;
		m->snap_k = k;
		m->snap_k_cap = m->snap_cap;
	}
	if (pm_grow(&m->snap_names, &m->names_cap, 2 * ((uint64_t)named + 1), 64,
		    sizeof(*m->snap_names)))
		return -ENOMEM;
	m->snap[named] = m->other;
	m->snap_k[named] = m->other_k;
	m->snap[named].k = &m->snap_k[named];
	for (i = 0; i < m->nr; i++) {
		const struct series *c = &m->v[m->order[i].i];

		if (!c->named)
			continue;
		if (!c->shown && !(m->v[m->order[i].i].shown = malloc(sizeof(*c->shown))))
			return -ENOMEM;
		*c->shown = *c->k;
		c->shown->windows = c->windows;
		m->snap[n] = *c;
		m->snap_k[n] = *c->k;
		m->snap[n].k = &m->snap_k[n];
		/* strtab's strings stay where they are; its array of them may move */
		m->snap_names[2 * n] = strtab_str(&m->names, c->comm);
		m->snap_names[2 * n + 1] = strtab_str(&m->names, c->cgroup);
		n++;
	}
	m->snap_names[2 * n] = "other";
	m->snap_names[2 * n + 1] = "other";
	memcpy(lost, m->lost, sizeof(m->lost));
	*throttle = m->throttle_events;
	*nr_series = m->nr;
	*cg_reads = m->cgroup_reads;
	return n + 1;
}

int window_metrics_write(struct window_metrics *m, FILE *f, bool om)
{
	uint64_t lost[NR_REASONS], throttle, nr_series, cg_reads, ev_series, ev_threads, ev_named;
	char help[256];
	uint32_t i, r, top;
	unsigned int k;
	int64_t n;

	pthread_mutex_lock(&m->scrape_lock);
	pthread_mutex_lock(&m->lock);
	n = snapshot(m, lost, &throttle, &nr_series, &cg_reads);
	top = m->top;
	ev_series = m->evicted_series;
	ev_threads = m->evicted_threads;
	ev_named = m->renamed;
	pthread_mutex_unlock(&m->lock);
	if (n < 0) {
		pthread_mutex_unlock(&m->scrape_lock);
		return (int)n;
	}
	snprintf(help, sizeof(help), "Windows (samples) recorded, by command name and cgroup (the "
		 "%u most active pairs by name, the rest as \"other\").", top);
	metrics_family(f, "pmiprof_windows_total", "counter", help, om);
	metrics_family(f, "pmiprof_events_total", "counter", "Sum of each event's counts over "
		       "the windows (windows after a loss left out, as in pmiprof report).", om);
	for (k = 0; k < m->nr_defs; k++) {
		snprintf(help, sizeof(help), "Per-window %s.",
			 !strcmp(m->defs[k].name, "pmiprof_window_ipc") ? "instructions per cycle" :
			 !strcmp(m->defs[k].name, "pmiprof_window_mpki") ?
			 "misses per 1000 instructions" : "CPU seconds (time-based windows)");
		metrics_family(f, m->defs[k].name, "histogram", help, om);
	}
	for (i = 0; i < (uint32_t)n; i++)
		put_series(f, m, m->snap_names[2 * i], m->snap_names[2 * i + 1], &m->snap[i]);
	metrics_family(f, "pmiprof_lost_windows_total", "counter", "Windows lost, by reason.", om);
	for (r = 1; r < NR_REASONS; r++) {
		const char *name = trace_lost_reason_name(r);

		if (r == PMIPROF_LOST_THROTTLE || !name)
			continue;
		fprintf(f, "pmiprof_lost_windows_total{reason=\"%s\"} %llu\n", name,
			(unsigned long long)lost[r]);
	}
	metrics_family(f, "pmiprof_throttle_events_total", "counter", "Times the kernel throttled "
		       "sampling.", om);
	fprintf(f, "pmiprof_throttle_events_total %llu\n", (unsigned long long)throttle);
	metrics_family(f, "pmiprof_window_info", "gauge", "How windows are cut: basis=\"time\" "
		       "when the trigger is a clock (no PMU), else \"events\".", om);
	fprintf(f, "pmiprof_window_info{basis=\"%s\",trigger=\"", m->time_based ? "time" : "events");
	put_label(f, m->h.events[m->h.trigger_index].name);
	if (m->h.freq_hz)
		fprintf(f, "\",freq_hz=\"%llu\"} 1\n", (unsigned long long)m->h.freq_hz);
	else
		fprintf(f, "\",period=\"%llu\"} 1\n", (unsigned long long)m->h.period);
	metrics_family(f, "pmiprof_daemon_series", "gauge", "(command, cgroup) pairs held, named "
		       "or summed as \"other\" (idle unnamed ones are folded into \"other\").", om);
	fprintf(f, "pmiprof_daemon_series %llu\n", (unsigned long long)nr_series);
	metrics_family(f, "pmiprof_daemon_evictions_total", "counter", "Entries forgotten: "
		       "table=\"series\" idle unnamed (command, cgroup) pairs folded into "
		       "\"other\", table=\"named\" named pairs that gave their name to busier "
		       "ones, table=\"threads\" threads gone for 10 s.", om);
	fprintf(f, "pmiprof_daemon_evictions_total{table=\"series\"} %llu\n",
		(unsigned long long)ev_series);
	fprintf(f, "pmiprof_daemon_evictions_total{table=\"named\"} %llu\n",
		(unsigned long long)ev_named);
	fprintf(f, "pmiprof_daemon_evictions_total{table=\"threads\"} %llu\n",
		(unsigned long long)ev_threads);
	metrics_family(f, "pmiprof_daemon_cgroup_reads_total", "counter", "/proc/PID/cgroup reads "
		       "(a process's first sample).", om);
	fprintf(f, "pmiprof_daemon_cgroup_reads_total %llu\n", (unsigned long long)cg_reads);
	pthread_mutex_unlock(&m->scrape_lock);
	return 0;
}
