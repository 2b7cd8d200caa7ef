// SPDX-License-Identifier: GPL-2.0
/*
 * pmiprof top's live samples (top_live.h): the tap applies side-band to the
 * session as the recorder writes it and keeps each sample the session
 * keeps, with its function and command, in the open interval.
 */
#include "analysis/top_live.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "proc_cgroup.h"
#include "stacks/callstack.h"
#include "util.h"

/* the exited-pid table is rebuilt with recent exits only past this size */
#define EXITED_PRUNE 4096

static void keep_error(struct top_live *t, int err)
{
	if (err < 0 && !t->err)
		t->err = err;
}

int top_live_want_cgroups(struct top_live *t)
{
	t->cgroups = true;
	return hm_init(&t->cg_of_pid, 256);
}

/*
 * The cgroup of pid as a string id: the idle task (pid 0) is the root's, a
 * task the kernel no longer names or a process gone before its first
 * sample here is "[unknown]".  The paths go into the session's name table
 * so that the flat profile's by-name grouping (BY_COMM) groups and names
 * them.
 */
static int64_t cgroup_of(struct top_live *t, uint32_t pid)
{
	uint32_t v = hm_get(&t->cg_of_pid, pid, 0);
	char path[512];
	int64_t id;

	if (v != HM_EMPTY)
		return v;
	if (!pid)
		pm_strlcpy(path, "/", sizeof(path));
	else if (pid == UINT32_MAX || proc_cgroup_read((pid_t)pid, path, sizeof(path)))
		pm_strlcpy(path, "[unknown]", sizeof(path));
	id = strtab_intern(&t->s.comms, path);
	if (id >= 0 && hm_put(&t->cg_of_pid, pid, 0, (uint32_t)id))
		return -ENOMEM;
	return id;
}

int top_live_store(struct top_live *t, const struct trace_sample *smp, uint32_t sym,
		   uint32_t comm, uint32_t n, uint32_t stack)
{
	struct top_interval *iv = &t->iv[t->cur];
	struct top_sample *e;
	int64_t cg = t->cgroups ? cgroup_of(t, smp->pid) : 0;

	if (iv->n == iv->cap && pm_grow(&iv->v, &iv->cap, (uint64_t)iv->n + 1, 4096,
					 sizeof(*iv->v)))
		return -ENOMEM;
	e = &iv->v[iv->n++];
	e->s = *smp;
	e->sym = sym;
	e->comm = comm;
	e->n = n;
	e->cgroup = (uint32_t)cg;
	e->stack = stack;
	e->line = TOP_NO_LINE;
	return cg < 0 ? (int)cg : 0;
}

/* session_sample_fn: one kept sample into the open interval. */
static int store(void *arg, const struct trace_sample *smp, uint64_t index, uint32_t sym,
		 uint32_t comm)
{
	struct top_live *t = arg;

	(void)index;
	return top_live_store(t, smp, sym, comm, 1, t->s.cs ? t->s.stack : CS_NONE);
}

/* The held sample with its stack (and us, its leaf words, or NULL) into the session. */
static void flush_pending(struct top_live *t, const struct trace_ustack *us)
{
	struct top_pending *p = &t->pend;
	struct trace_stack st = { 0, p->nr, p->nr_kernel, p->ips };
	uint32_t seq = ++t->chunk_seq;
	struct trace_sample smp = p->s;

	if (!p->on)
		return;
	p->on = false;
	smp.stack = 0;
	if (t->err)
		return;
	if (p->nr) {
		keep_error(t, t->s.opts.stacks->define(t->s.cs, seq, &st));
		smp.stack = 1;
	}
	keep_error(t, session_sample(&t->s, &smp, seq, us, store, t));
}

/* A sample with its stack: samples() brings it again at once, and its USTACK may follow. */
static void tap_stack(void *arg, const struct trace_sample *s, const uint64_t *ips, uint32_t nr,
		      uint32_t nr_kernel)
{
	struct top_live *t = arg;
	struct top_pending *p = &t->pend;

	flush_pending(t, NULL);
	if (!t->s.cs)
		return;		/* no stacks resolved: samples() takes it as any other */
	t->iv[t->cur].seen++;
	t->total_seen++;
	t->skip_samples = true;
	if (nr > p->cap) {
		uint64_t *ni = realloc(p->ips, nr * sizeof(*ni));

		if (!ni) {
			keep_error(t, -ENOMEM);
			return;
		}
		p->ips = ni;
		p->cap = nr;
	}
	memcpy(p->ips, ips, nr * sizeof(*ips));
	p->s = *s;
	p->nr = nr;
	p->nr_kernel = nr_kernel;
	p->on = true;
	if (!t->wait_ustack)
		flush_pending(t, NULL);
}

static void tap_ustack(void *arg, const struct trace_ustack *u)
{
	flush_pending(arg, u);
}

static void tap_samples(void *arg, const struct trace_sample *s, size_t n)
{
	struct top_live *t = arg;
	size_t i;

	if (t->skip_samples) {
		t->skip_samples = false;
		return;
	}
	flush_pending(t, NULL);
	t->iv[t->cur].seen += n;
	t->total_seen += n;
	for (i = 0; i < n && !t->err; i++) {
		struct trace_sample smp = s[i];

		smp.stack = 0;	/* a sample with a stack came through tap_stack() */
		keep_error(t, session_sample(&t->s, &smp, 0, NULL, store, t));
	}
}

static void tap_sideband(struct top_live *t, const struct trace_record *rec)
{
	flush_pending(t, NULL);
	keep_error(t, session_apply_sideband(&t->s, rec));
}

static void tap_mmap(void *arg, const struct trace_mmap *m)
{
	struct trace_record rec = { .type = PMIPROF_REC_MMAP };

	rec.mmap = *m;
	tap_sideband(arg, &rec);
}

static void tap_comm(void *arg, const struct trace_comm *c)
{
	struct trace_record rec = { .type = PMIPROF_REC_COMM };

	rec.comm = *c;
	tap_sideband(arg, &rec);
}

static int prune_exited(struct top_live *t)
{
	struct hashmap m;
	uint32_t i, oldest = t->seq > t->keep ? t->seq - t->keep : 0;
	int err = hm_init(&m, 256);

	for (i = 0; !err && i <= t->exited.mask; i++) {
		const struct hm_slot *sl = &t->exited.slots[i];

		if (sl->val != HM_EMPTY && sl->val >= oldest)
			err = hm_put(&m, sl->key, 0, sl->val);
	}
	if (err) {
		hm_free(&m);
		return err;
	}
	hm_free(&t->exited);
	t->exited = m;
	return 0;
}

static void tap_task(void *arg, uint8_t type, const struct trace_task *tk)
{
	struct top_live *t = arg;
	struct trace_record rec = { .type = type };

	flush_pending(t, NULL);
	if (type == PMIPROF_REC_EXIT) {
		/* a process exits with its main thread */
		if (tk->pid == tk->tid)
			keep_error(t, hm_put(&t->exited, tk->pid, 0, t->seq));
		return;
	}
	rec.task = *tk;
	tap_sideband(t, &rec);
}

static void tap_lost(void *arg, const struct trace_lost *l)
{
	struct top_live *t = arg;

	flush_pending(t, NULL);
	if (l->reason == PMIPROF_LOST_THROTTLE) {
		t->iv[t->cur].throttled++;
	} else {
		t->iv[t->cur].lost += l->count;
		t->total_lost += l->count;
	}
	keep_error(t, session_lost(&t->s, l));
}

int top_live_open(struct top_live *t, const struct trace_header *h, uint32_t keep, bool stacks)
{
	struct session_opts so = { 0 };
	int err;

	memset(t, 0, sizeof(*t));
	if (keep < 1 || keep >= TOP_MAX_INTERVALS)
		return -EINVAL;
	t->h = *h;
	t->keep = keep;
	t->tap = (struct trace_writer_tap){ .samples = tap_samples, .comm = tap_comm,
					    .task = tap_task, .lost = tap_lost,
					    .mmap = tap_mmap, .arg = t };
	if (stacks) {
		/* as the daemon's live profiles resolve them (live_profile.c) */
		so.stacks = &callstack_hooks;
		t->tap.stack = tap_stack;
		t->tap.ustack = tap_ustack;
		t->wait_ustack = h->call_graph_flags & PMIPROF_CALL_GRAPH_F_LEAF_WORDS;
	}
	t->iv[0].start_ns = pm_now_ns();
	err = hm_init(&t->exited, 256);
	if (err)
		return err;
	err = session_open_live(&t->s, &so, &t->h);
	if (err)
		hm_free(&t->exited);
	return err;
}

void top_live_close(struct top_live *t)
{
	uint32_t i;

	session_close(&t->s);
	free(t->pend.ips);
	hm_free(&t->exited);
	if (t->cgroups)
		hm_free(&t->cg_of_pid);
	for (i = 0; i < TOP_MAX_INTERVALS; i++)
		free(t->iv[i].v);
	memset(t, 0, sizeof(*t));
}

const struct trace_writer_tap *top_live_tap(struct top_live *t)
{
	return &t->tap;
}

int top_live_rotate(struct top_live *t, uint64_t now_ns)
{
	struct top_interval *next;

	flush_pending(t, NULL);
	t->iv[t->cur].end_ns = now_ns;
	if (t->closed < t->keep)
		t->closed++;
	t->cur = (t->cur + 1) % TOP_MAX_INTERVALS;
	t->seq++;
	next = &t->iv[t->cur];
	next->n = 0;
	next->seen = next->lost = next->throttled = 0;
	next->start_ns = now_ns;
	next->end_ns = 0;
	if (t->exited.used > EXITED_PRUNE)
		keep_error(t, prune_exited(t));
	/* read again in the next interval: a process may have moved */
	if (t->cgroups) {
		hm_free(&t->cg_of_pid);
		keep_error(t, hm_init(&t->cg_of_pid, 256));
	}
	return t->err;
}

const struct top_interval *top_live_interval(const struct top_live *t, uint32_t i)
{
	return &t->iv[(t->cur + TOP_MAX_INTERVALS - t->closed + i) % TOP_MAX_INTERVALS];
}

double top_live_seconds(const struct top_live *t)
{
	const struct top_interval *a, *b;

	if (!t->closed)
		return 0;
	a = top_live_interval(t, 0);
	b = top_live_interval(t, t->closed - 1);
	return (double)(b->end_ns - a->start_ns) / 1e9;
}

void top_live_counts(const struct top_live *t, uint64_t *seen, uint64_t *lost,
		     uint64_t *throttled)
{
	uint32_t i;

	*seen = *lost = *throttled = 0;
	for (i = 0; i < t->closed; i++) {
		const struct top_interval *iv = top_live_interval(t, i);

		*seen += iv->seen;
		*lost += iv->lost;
		*throttled += iv->throttled;
	}
}

bool top_live_exited(const struct top_live *t, uint32_t pid)
{
	uint32_t v = hm_get(&t->exited, pid, 0);

	/* the window's intervals are numbered seq - closed .. seq - 1 */
	return v != HM_EMPTY && v + t->closed >= t->seq;
}
