// SPDX-License-Identifier: GPL-2.0
/*
 * Prometheus metrics from the daemon's segments (window_metrics.h).
 */
#include "window_metrics.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../report/metrics.h"
#include "../report/session.h"
#include "util.h"

#define MAX_HIST	(PMIPROF_MAX_EVENTS + 1)
#define MAX_BUCKETS	12
#define NR_REASONS	8

struct hist_def {
	char name[64];			/* metric name */
	char label[160];		/* extra label ("event=\"...\",") or "" */
	struct metric m;
	double scale;			/* value multiplier (ns -> s) */
	const double *bounds;
	unsigned int nr_bounds;
};

struct hist {
	uint64_t buckets[MAX_BUCKETS];	/* non-cumulative; the last is +Inf */
	uint64_t count;
	double sum;
};

struct comm_acc {
	char *comm;
	uint64_t windows;
	uint64_t events[PMIPROF_MAX_EVENTS];
	struct hist h[MAX_HIST];
	bool named;			/* shown by name (sticky: its series never vanish) */
};

struct acc {
	struct comm_acc *v;
	uint32_t nr, cap;
	uint64_t lost[NR_REASONS];
	uint64_t throttle_events;
};

struct window_metrics {
	struct trace_header h;
	uint32_t top;
	struct hist_def defs[MAX_HIST];
	unsigned int nr_defs;
	bool time_based;
	struct acc total;		/* closed segments of this run */
	uint64_t segments_read;
};

static const double ipc_bounds[] = { 0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 2.5, 3, 4, 5 };
static const double mpki_bounds[] = { 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 50, 100, 200 };
static const double sec_bounds[] = { 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3,
				     1e-2, 0.1, 1 };

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
			d->bounds = ipc_bounds;
			d->nr_bounds = ARRAY_SIZE(ipc_bounds);
		} else if (set.m[i].kind == METRIC_PER_KILO) {
			snprintf(d->name, sizeof(d->name), "pmiprof_window_mpki");
			const char *ev = m->h.events[set.m[i].a].name;
			size_t l = strnlen(ev, sizeof(d->label) - 12);

			memcpy(d->label, "event=\"", 7);
			memcpy(d->label + 7, ev, l);
			memcpy(d->label + 7 + l, "\",", 3);
			d->bounds = mpki_bounds;
			d->nr_bounds = ARRAY_SIZE(mpki_bounds);
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
		d->bounds = sec_bounds;
		d->nr_bounds = ARRAY_SIZE(sec_bounds);
	}
}

int window_metrics_new(struct window_metrics **out, const struct trace_header *h,
		       uint32_t top_comms)
{
	struct window_metrics *m = calloc(1, sizeof(*m));

	*out = NULL;
	if (!m)
		return -ENOMEM;
	m->h = *h;
	m->top = top_comms;
	defs_setup(m);
	*out = m;
	return 0;
}

void window_metrics_set_top(struct window_metrics *m, uint32_t top_comms)
{
	m->top = top_comms;
}

static void acc_free(struct acc *a)
{
	size_t i;

	for (i = 0; i < a->nr; i++)
		free(a->v[i].comm);
	free(a->v);
	memset(a, 0, sizeof(*a));
}

void window_metrics_free(struct window_metrics *m)
{
	if (!m)
		return;
	acc_free(&m->total);
	free(m);
}

static struct comm_acc *acc_get(struct acc *a, const char *comm)
{
	size_t i;

	for (i = 0; i < a->nr; i++)
		if (!strcmp(a->v[i].comm, comm))
			return &a->v[i];
	if (pm_grow(&a->v, &a->cap, (uint64_t)a->nr + 1, 64, sizeof(*a->v)))
		return NULL;
	memset(&a->v[a->nr], 0, sizeof(a->v[0]));
	a->v[a->nr].comm = strdup(comm);
	if (!a->v[a->nr].comm)
		return NULL;
	return &a->v[a->nr++];
}

static void acc_merge(struct acc *to, const struct acc *from)
{
	size_t i, k, e;

	for (i = 0; i < from->nr; i++) {
		const struct comm_acc *f = &from->v[i];
		struct comm_acc *t = acc_get(to, f->comm);

		if (!t)
			continue;
		t->windows += f->windows;
		for (e = 0; e < PMIPROF_MAX_EVENTS; e++)
			t->events[e] += f->events[e];
		for (k = 0; k < MAX_HIST; k++) {
			for (e = 0; e < MAX_BUCKETS; e++)
				t->h[k].buckets[e] += f->h[k].buckets[e];
			t->h[k].count += f->h[k].count;
			t->h[k].sum += f->h[k].sum;
		}
	}
	for (k = 0; k < NR_REASONS; k++)
		to->lost[k] += from->lost[k];
	to->throttle_events += from->throttle_events;
}

/* One session pass: comm ids of that pass -> accumulators. */
struct pass {
	struct window_metrics *m;
	struct session *s;
	struct acc *a;
	uint32_t *slot_of;	/* comm id -> index in a->v + 1, 0: not looked up yet */
	uint32_t cap_id;
};

static int on_sample(void *arg, const struct trace_sample *smp, uint64_t index, uint32_t sym,
		     uint32_t comm)
{
	struct pass *p = arg;
	struct comm_acc *c;
	unsigned int k, i;

	(void)index;
	(void)sym;
	if (comm >= p->cap_id &&
	    pm_grow_zero(&p->slot_of, &p->cap_id, (uint64_t)comm + 1, 256, sizeof(*p->slot_of)))
		return -ENOMEM;
	if (!p->slot_of[comm]) {
		c = acc_get(p->a, session_comm(p->s, comm));
		if (!c)
			return -ENOMEM;
		p->slot_of[comm] = (uint32_t)(c - p->a->v) + 1;
	}
	c = &p->a->v[p->slot_of[comm] - 1];
	c->windows++;
	if (window_counts_events(smp->flags))
		for (i = 0; i < smp->nr && i < PMIPROF_MAX_EVENTS; i++)
			c->events[i] += smp->counts[i];
	if (!window_in_stats(smp->flags))
		return 0;
	for (k = 0; k < p->m->nr_defs; k++) {
		const struct hist_def *d = &p->m->defs[k];
		struct hist *h = &c->h[k];
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
	return 0;
}

/*
 * The session pass without symbolizing (a scrape must not load every
 * binary's symbols): thread names from COMM and FORK through the session's
 * own side-band code, a sample's name by session_comm_of(), losses through
 * session_lost().  Every sample counts, as in a
 * report without filters other than --comm.
 */
static int count_pass(struct pass *p)
{
	struct session *s = p->s;
	struct trace_record rec;
	int rc;

	while ((rc = trace_reader_next(s->r, &rec)) > 0) {
		uint32_t c;

		switch (rec.type) {
		case PMIPROF_REC_SAMPLE:
			c = session_comm_of(s, rec.sample.pid, rec.sample.tid);
			rc = on_sample(p, &rec.sample, 0, 0, c);
			break;
		case PMIPROF_REC_COMM:
		case PMIPROF_REC_FORK:
			rc = session_apply_sideband(s, &rec);
			break;
		case PMIPROF_REC_LOST:
			rc = session_lost(s, &rec.lost);
			break;
		default:
			rc = 0;
			break;
		}
		if (rc)
			return rc;
	}
	return rc;
}

static int read_segment(struct window_metrics *m, const char *path, bool open, struct acc *a)
{
	struct session_opts so;
	struct session s;
	struct pass p = { .m = m, .s = &s, .a = a };
	uint32_t r;
	int ret;

	memset(&so, 0, sizeof(so));
	so.input = path;
	ret = session_open(&s, &so);
	if (ret)
		return ret;
	ret = count_pass(&p);
	for (r = 0; r < NR_REASONS; r++) {
		/* an open segment's cut last chunk is not a loss: it is read next time */
		if (r == PMIPROF_LOST_THROTTLE || (open && r == PMIPROF_LOST_TRUNCATED))
			continue;
		a->lost[r] += s.lost[r];
	}
	a->throttle_events += s.throttle_events;
	free(p.slot_of);
	session_close(&s);
	return ret;
}

int window_metrics_add_closed(struct window_metrics *m, const char *dir, const char *name)
{
	char path[4096];
	struct acc a = { 0 };
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ret = read_segment(m, path, false, &a);
	if (!ret) {
		acc_merge(&m->total, &a);
		m->segments_read++;
	}
	acc_free(&a);
	return ret;
}

static int by_windows(const void *x, const void *y)
{
	const struct comm_acc *a = *(struct comm_acc *const *)x, *b = *(struct comm_acc *const *)y;

	if (a->windows != b->windows)
		return a->windows > b->windows ? -1 : 1;
	return strcmp(a->comm, b->comm);
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

static void put_comm_series(FILE *f, const struct window_metrics *m, const char *comm,
			    const struct comm_acc *c)
{
	unsigned int e, k, i;

	fputs("pmiprof_windows_total{comm=\"", f);
	put_label(f, comm);
	fprintf(f, "\"} %llu\n", (unsigned long long)c->windows);
	for (e = 0; e < m->h.nr_events; e++) {
		fputs("pmiprof_events_total{event=\"", f);
		put_label(f, m->h.events[e].name);
		fputs("\",comm=\"", f);
		put_label(f, comm);
		fprintf(f, "\"} %llu\n", (unsigned long long)c->events[e]);
	}
	for (k = 0; k < m->nr_defs; k++) {
		const struct hist_def *d = &m->defs[k];
		uint64_t cum = 0;

		for (i = 0; i <= d->nr_bounds; i++) {
			cum += c->h[k].buckets[i];
			fprintf(f, "%s_bucket{%scomm=\"", d->name, d->label);
			put_label(f, comm);
			if (i < d->nr_bounds)
				fprintf(f, "\",le=\"%g\"} %llu\n", d->bounds[i], (unsigned long long)cum);
			else
				fprintf(f, "\",le=\"+Inf\"} %llu\n", (unsigned long long)cum);
		}
		fprintf(f, "%s_sum{%scomm=\"", d->name, d->label);
		put_label(f, comm);
		fprintf(f, "\"} %.17g\n", c->h[k].sum);
		fprintf(f, "%s_count{%scomm=\"", d->name, d->label);
		put_label(f, comm);
		fprintf(f, "\"} %llu\n", (unsigned long long)c->h[k].count);
	}
}

int window_metrics_write(struct window_metrics *m, const char *dir, const char *open_name,
			 FILE *f, bool om)
{
	char help[256];
	struct acc now = { 0 }, open = { 0 };
	struct comm_acc **order = NULL, other;
	uint32_t named = 0, r;
	size_t i, k, e;
	int ret = 0;

	acc_merge(&now, &m->total);
	if (open_name) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/%s", dir, open_name);
		ret = read_segment(m, path, true, &open);
		/* renamed meanwhile: its data reaches the totals with the closed segment */
		if (ret == -ENOENT)
			ret = 0;
		acc_merge(&now, &open);
	}
	if (ret)
		goto out;
	/* the busiest first; names already shown stay shown (sticky) */
	order = calloc(now.nr + 1, sizeof(*order));
	if (!order) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < now.nr; i++)
		order[i] = &now.v[i];
	qsort(order, now.nr, sizeof(*order), by_windows);
	for (i = 0; i < m->total.nr; i++)
		if (m->total.v[i].named)
			named++;
	for (i = 0; i < now.nr && named < m->top; i++) {
		struct comm_acc *t = acc_get(&m->total, order[i]->comm);

		if (t && !t->named) {
			t->named = true;
			named++;
		}
	}
	memset(&other, 0, sizeof(other));
	snprintf(help, sizeof(help), "Windows (samples) recorded, by command name (the %u "
		 "busiest by name, the rest as \"other\").", m->top);
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
	for (i = 0; i < now.nr; i++) {
		struct comm_acc *t = acc_get(&m->total, order[i]->comm);
		struct comm_acc *c = order[i];

		if (t && t->named) {
			put_comm_series(f, m, c->comm, c);
			continue;
		}
		other.windows += c->windows;
		for (e = 0; e < PMIPROF_MAX_EVENTS; e++)
			other.events[e] += c->events[e];
		for (k = 0; k < MAX_HIST; k++) {
			for (e = 0; e < MAX_BUCKETS; e++)
				other.h[k].buckets[e] += c->h[k].buckets[e];
			other.h[k].count += c->h[k].count;
			other.h[k].sum += c->h[k].sum;
		}
	}
	put_comm_series(f, m, "other", &other);
	metrics_family(f, "pmiprof_lost_windows_total", "counter", "Windows lost, by reason.", om);
	for (r = 1; r < NR_REASONS; r++) {
		const char *name = trace_lost_reason_name(r);

		if (r == PMIPROF_LOST_THROTTLE || !name)
			continue;
		fprintf(f, "pmiprof_lost_windows_total{reason=\"%s\"} %llu\n", name,
			(unsigned long long)now.lost[r]);
	}
	metrics_family(f, "pmiprof_throttle_events_total", "counter", "Times the kernel throttled "
		       "sampling.", om);
	fprintf(f, "pmiprof_throttle_events_total %llu\n", (unsigned long long)now.throttle_events);
	metrics_family(f, "pmiprof_window_info", "gauge", "How windows are cut: basis=\"time\" "
		       "when the trigger is a clock (no PMU), else \"events\".", om);
	fprintf(f, "pmiprof_window_info{basis=\"%s\",trigger=\"", m->time_based ? "time" : "events");
	put_label(f, m->h.events[m->h.trigger_index].name);
	if (m->h.freq_hz)
		fprintf(f, "\",freq_hz=\"%llu\"} 1\n", (unsigned long long)m->h.freq_hz);
	else
		fprintf(f, "\",period=\"%llu\"} 1\n", (unsigned long long)m->h.period);
out:
	free(order);
	acc_free(&open);
	acc_free(&now);
	return ret;
}
