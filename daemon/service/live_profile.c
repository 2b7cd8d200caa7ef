// SPDX-License-Identifier: GPL-2.0
/*
 * Profiles built as the samples come (live_profile.h).  The recording
 * thread only copies records into a queue under a mutex; everything that
 * symbolizes or encodes runs on the worker thread, which alone touches the
 * session and the profiles' pprof passes.
 */
#include "service/live_profile.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "input/session.h"
#include "output/stack_export.h"
#include "stacks/callstack.h"
#include "util.h"
#include "service/worker_thread.h"

/* The worker's backlog beyond which samples are not queued (counted as dropped). */
#define QUEUE_MAX		(64u << 20)
/* A spare queue buffer bigger than this is given back after use. */
#define QUEUE_KEEP		(16u << 20)
/*
 * The symbolizer is started afresh past these sizes (a bound on its memory
 * and open files: each file it read stays open, mapped, until then), when
 * the daemon's RSS passes 3/4 of --max-memory, and when a whole segment
 * went by without a profile asked for: what one profile of a machine
 * running clang loaded (libLLVM: 105 MB, 30 files) is not kept for ever.
 */
#define MAX_DSOS		512u
#define MAX_SYMS		(1u << 20)

/* Profiles served at once (the HTTP server takes 64 connections). */
#define MAX_SCRAPES		128

enum q_type { Q_SAMPLE = 1, Q_USTACK, Q_MMAP, Q_COMM, Q_FORK, Q_RESET };

struct q_hdr {
	uint32_t type;
	uint32_t len;			/* payload bytes (the entry is padded to 8) */
};

struct q_sample {
	struct trace_sample s;
	uint32_t nr, nr_kernel;		/* then nr ips */
};

struct q_ustack {
	uint32_t abi, nr_regs;
	uint64_t regs_mask;
	uint32_t size, pad;		/* then nr_regs regs, then size bytes */
};

enum sc_state { SC_NEW, SC_OPEN, SC_DONE };

struct live_scrape {
	struct live_scrape *next;
	/* set by begin(), read-only after */
	uint64_t base, from_ns, to_ns;	/* report's rule: ns = time - base in [from, to] */
	uint64_t from_real_ns, to_real_ns;
	uint32_t pid;
	char **comms;
	uint32_t nr_comms;
	char path[64];
	/* under lp->lock */
	enum sc_state state;
	uint64_t end_seq;		/* 0: still running; else the queue position to reach */
	bool abandoned;			/* end() gave up waiting: the worker frees it */
	uint64_t dropped;		/* samples of its range not queued (worker behind) */
	int err;
	/* the worker's */
	struct pp_pass *pp;
};

struct fid {
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	bool known;
};

struct live_profile {
	pthread_mutex_t lock;
	pthread_cond_t work, done;	/* to the worker; to end() */
	struct worker_thread worker;	/* worker_main(); waits on work */
	struct trace_header h;
	struct trace_writer_tap tap;
	/* the queue (lock) */
	uint8_t *q;
	size_t q_len;
	uint32_t q_cap;			/* bounded by queue_max + one entry */
	size_t queue_max;		/* QUEUE_MAX; tests set PMIPROF_TEST_PROFILE_QUEUE_MAX */
	uint64_t seq_in, seq_done;	/* records queued; records the worker has applied */
	atomic_int active;		/* profiles registered: queue samples */
	bool last_queued;		/* the recording thread's: the last sample went in */
	size_t tail_sample;		/* offset of the last entry when it is a sample, or SIZE_MAX */
	bool wait_ustack;		/* samples may have a USTACK (dwarf, fp leaf words) */
	struct live_scrape *scrapes;
	bool requested;			/* a profile was asked for since the last restart */
	uint64_t max_rss;		/* --max-memory: bytes, 0 = none */
	uint64_t seg_start_ns, seg_start_real_ns;
	struct live_profile_stats st;
	/* the worker's */
	struct live_scrape *cur[MAX_SCRAPES];	/* the profiles of the batch in hand */
	uint32_t nr_cur;
	uint8_t *spare;			/* the other buffer, kept at its size up to QUEUE_KEEP */
	uint32_t spare_cap;
	struct session s;
	bool have_session;
	uint32_t chunk_seq;
	struct fid *fids;
	uint32_t nr_fids;
};

/* ---- the recording thread: queue ---- */

/* Room for an entry of len payload bytes at the queue's end (lock held), or NULL. */
static void *q_put(struct live_profile *lp, uint32_t type, size_t len)
{
	size_t need = sizeof(struct q_hdr) + ((len + 7) & ~(size_t)7);
	struct q_hdr *hd;

	if (pm_grow(&lp->q, &lp->q_cap, (uint64_t)lp->q_len + need, 65536, 1))
		return NULL;
	hd = (struct q_hdr *)(lp->q + lp->q_len);
	lp->tail_sample = type == Q_SAMPLE ? lp->q_len : SIZE_MAX;
	hd->type = type;
	hd->len = (uint32_t)len;
	lp->q_len += need;
	lp->seq_in++;
	return hd + 1;
}

static bool in_range(const struct live_scrape *sc, uint64_t t);

/* A sample not queued: counted, and in each profile whose range holds it (lock held). */
static void drop_sample(struct live_profile *lp, const struct trace_sample *s)
{
	struct live_scrape *sc;

	lp->st.samples_dropped++;
	for (sc = lp->scrapes; sc; sc = sc->next)
		if (in_range(sc, s->time))
			sc->dropped++;
}

static void q_signal(struct live_profile *lp)
{
	pthread_cond_signal(&lp->work);
	pthread_mutex_unlock(&lp->lock);
}

static void tap_stack(void *arg, const struct trace_sample *s, const uint64_t *ips, uint32_t nr,
		      uint32_t nr_kernel)
{
	struct live_profile *lp = arg;
	struct q_sample *e;

	lp->last_queued = false;
	if (!atomic_load_explicit(&lp->active, memory_order_acquire))
		return;
	pthread_mutex_lock(&lp->lock);
	if (lp->q_len > lp->queue_max) {
		drop_sample(lp, s);
		pthread_mutex_unlock(&lp->lock);
		return;
	}
	e = q_put(lp, Q_SAMPLE, sizeof(*e) + nr * sizeof(*ips));
	if (e) {
		e->s = *s;
		e->nr = nr;
		e->nr_kernel = nr_kernel;
		memcpy(e + 1, ips, nr * sizeof(*ips));
		lp->last_queued = true;
	} else {
		drop_sample(lp, s);
	}
	q_signal(lp);
}

static void tap_ustack(void *arg, const struct trace_ustack *u)
{
	struct live_profile *lp = arg;
	struct q_ustack *e;
	size_t rb = u->nr_regs * sizeof(uint64_t);

	if (!lp->last_queued)
		return;
	pthread_mutex_lock(&lp->lock);
	e = q_put(lp, Q_USTACK, sizeof(*e) + rb + u->size);
	if (e) {
		*e = (struct q_ustack){ u->abi, u->nr_regs, u->regs_mask, u->size, 0 };
		if (rb)
			memcpy(e + 1, u->regs, rb);
		if (u->size)
			memcpy((uint8_t *)(e + 1) + rb, u->data, u->size);
	}
	q_signal(lp);
}

static void tap_mmap(void *arg, const struct trace_mmap *m)
{
	struct live_profile *lp = arg;
	size_t pl = m->path ? strlen(m->path) + 1 : 0;
	struct trace_mmap *e;

	/* only code can hold a sampled ip (the session skips the rest too) */
	if (m->prot && !(m->prot & 4 /* PROT_EXEC */))
		return;
	pthread_mutex_lock(&lp->lock);
	e = q_put(lp, Q_MMAP, sizeof(*e) + pl);
	if (e) {
		*e = *m;
		e->path = NULL;
		if (pl)
			memcpy(e + 1, m->path, pl);
	}
	q_signal(lp);
}

static void tap_comm(void *arg, const struct trace_comm *c)
{
	struct live_profile *lp = arg;
	size_t cl = c->comm ? strlen(c->comm) + 1 : 0;
	struct trace_comm *e;

	pthread_mutex_lock(&lp->lock);
	e = q_put(lp, Q_COMM, sizeof(*e) + cl);
	if (e) {
		*e = *c;
		e->comm = NULL;
		if (cl)
			memcpy(e + 1, c->comm, cl);
	}
	q_signal(lp);
}

static void tap_task(void *arg, uint8_t type, const struct trace_task *t)
{
	struct live_profile *lp = arg;
	struct trace_task *e;

	/* the session keeps no state for EXIT (pids are forgotten at the next segment) */
	if (type != PMIPROF_REC_FORK)
		return;
	pthread_mutex_lock(&lp->lock);
	e = q_put(lp, Q_FORK, sizeof(*e));
	if (e)
		*e = *t;
	q_signal(lp);
}

void live_profile_segment_starting(struct live_profile *lp)
{
	pthread_mutex_lock(&lp->lock);
	q_put(lp, Q_RESET, 0);
	q_signal(lp);
}

void live_profile_segment_started(struct live_profile *lp, uint64_t start_ns,
				  uint64_t start_real_ns)
{
	pthread_mutex_lock(&lp->lock);
	lp->seg_start_ns = start_ns;
	lp->seg_start_real_ns = start_real_ns;
	pthread_mutex_unlock(&lp->lock);
}

/* ---- the worker ---- */

/* Report's --since/--until rule (session_walltime_filter, to_ns). */
static bool in_range(const struct live_scrape *sc, uint64_t t)
{
	uint64_t ns = t <= sc->base ? 0 : t - sc->base;

	return ns >= sc->from_ns && ns <= sc->to_ns;
}

static bool comm_matches(const struct live_scrape *sc, const char *comm)
{
	uint32_t i;

	if (!sc->nr_comms)
		return true;
	for (i = 0; i < sc->nr_comms; i++)
		if (!fnmatch(sc->comms[i], comm, 0))
			return true;
	return false;
}

static bool wanted(const struct live_scrape *sc, const struct trace_sample *smp)
{
	return sc->state == SC_OPEN && !sc->err && in_range(sc, smp->time) &&
	       (!sc->pid || sc->pid == smp->pid);
}

/* session_sample_fn: the sample into every profile that wants it. */
static int fan_out(void *arg, const struct trace_sample *smp, uint64_t index, uint32_t sym,
		   uint32_t comm)
{
	struct live_profile *lp = arg;
	uint32_t i;

	for (i = 0; i < lp->nr_cur; i++) {
		struct live_scrape *sc = lp->cur[i];

		if (!wanted(sc, smp) || !comm_matches(sc, session_comm(&lp->s, comm)))
			continue;
		sc->err = pprof_pass_sample(sc->pp, smp, index, sym, comm);
	}
	return 0;
}

/*
 * Whether a file the symbolizer read changed since it was first seen here
 * (a package upgrade replaces a binary under the same path): its symbols
 * are stale.  A stat per file per segment.
 */
static bool files_changed(struct live_profile *lp)
{
	uint32_t n = symbolizer_nr_dsos(lp->s.sy), i;
	bool changed = false;
	struct stat st;

	if (pm_grow_zero(&lp->fids, &lp->nr_fids, n, 64, sizeof(*lp->fids)))
		return true;
	for (i = 0; i < n; i++) {
		const struct dso_info *d = symbolizer_dso_info(lp->s.sy, i);
		struct fid *f = &lp->fids[i];

		if (!d || d->name[0] != '/' || stat(d->name, &st))
			continue;
		if (f->known && (f->dev != st.st_dev || f->ino != st.st_ino ||
				 f->mtime.tv_sec != st.st_mtim.tv_sec ||
				 f->mtime.tv_nsec != st.st_mtim.tv_nsec))
			changed = true;
		*f = (struct fid){ st.st_dev, st.st_ino, st.st_mtim, true };
	}
	return changed;
}

/* A new segment: the session starts again; the stack ids of every profile too. */
static int restart(struct live_profile *lp)
{
	bool reload, idle;
	uint32_t i;
	int err;

	pthread_mutex_lock(&lp->lock);
	idle = !lp->requested && !lp->scrapes;
	lp->requested = false;
	pthread_mutex_unlock(&lp->lock);
	reload = symbolizer_nr_dsos(lp->s.sy) > MAX_DSOS || symbolizer_nr_syms(lp->s.sy) > MAX_SYMS ||
		 files_changed(lp) || (idle && symbolizer_nr_syms(lp->s.sy)) ||
		 (lp->max_rss && pm_rss_bytes() > lp->max_rss / 4 * 3);
	for (i = 0; i < lp->nr_cur; i++)
		if (lp->cur[i]->state == SC_OPEN && !lp->cur[i]->err)
			lp->cur[i]->err = pprof_pass_forget(lp->cur[i]->pp);
	err = session_live_restart(&lp->s, reload);
	pthread_mutex_lock(&lp->lock);
	lp->st.restarts++;
	lp->st.symbol_reloads += reload;
	pthread_mutex_unlock(&lp->lock);
	if (reload) {
		free(lp->fids);
		lp->fids = NULL;
		lp->nr_fids = 0;
		/* the symbol tables were heap: hand the pages back, RSS shows it */
		malloc_trim(0);
	}
	return err;
}

static bool any_wants(const struct live_profile *lp, const struct trace_sample *smp)
{
	uint32_t i;

	for (i = 0; i < lp->nr_cur; i++)
		if (wanted(lp->cur[i], smp))
			return true;
	return false;
}

/* One sample (with its USTACK or NULL) through the session, as session_run() would. */
static int apply_sample(struct live_profile *lp, const struct q_sample *e,
			const struct trace_ustack *us)
{
	struct trace_sample smp = e->s;
	uint32_t seq = ++lp->chunk_seq;
	int err;

	if (!any_wants(lp, &smp))
		return 0;
	smp.stack = 0;
	if (lp->s.cs && e->nr) {
		struct trace_stack st = { 0, e->nr, e->nr_kernel, (const uint64_t *)(e + 1) };

		err = lp->s.opts.stacks->define(lp->s.cs, seq, &st);
		if (err)
			return err;
		smp.stack = 1;
	}
	return session_sample(&lp->s, &smp, seq, us, fan_out, lp);
}

/* Apply the queued records buf[0..len) to the session. */
static void apply(struct live_profile *lp, const uint8_t *buf, size_t len)
{
	const struct q_sample *pending = NULL;
	struct trace_record rec;
	size_t off = 0;
	int err = 0;

	while (off < len) {
		const struct q_hdr *hd = (const struct q_hdr *)(buf + off);
		const void *p = hd + 1;
		struct trace_ustack us;

		off += sizeof(*hd) + ((hd->len + 7) & ~(size_t)7);
		if (pending) {
			const struct q_sample *smp = pending;

			pending = NULL;
			if (hd->type == Q_USTACK) {
				const struct q_ustack *u = p;

				us = (struct trace_ustack){ u->abi, u->nr_regs, u->regs_mask,
							    (const uint64_t *)(u + 1), u->size,
							    (const uint8_t *)(u + 1) +
							    u->nr_regs * sizeof(uint64_t) };
				err = apply_sample(lp, smp, &us);
				continue;
			}
			err = apply_sample(lp, smp, NULL);
		}
		switch (hd->type) {
		case Q_SAMPLE:
			pending = p;
			break;
		case Q_MMAP:
			memset(&rec, 0, sizeof(rec));
			rec.type = PMIPROF_REC_MMAP;
			rec.mmap = *(const struct trace_mmap *)p;
			rec.mmap.path = hd->len > sizeof(rec.mmap) ?
					(const char *)p + sizeof(rec.mmap) : NULL;
			err = session_apply_sideband(&lp->s, &rec);
			break;
		case Q_COMM:
			memset(&rec, 0, sizeof(rec));
			rec.type = PMIPROF_REC_COMM;
			rec.comm = *(const struct trace_comm *)p;
			rec.comm.comm = hd->len > sizeof(rec.comm) ?
					(const char *)p + sizeof(rec.comm) : NULL;
			err = session_apply_sideband(&lp->s, &rec);
			break;
		case Q_FORK:
			memset(&rec, 0, sizeof(rec));
			rec.type = PMIPROF_REC_FORK;
			rec.task = *(const struct trace_task *)p;
			err = session_apply_sideband(&lp->s, &rec);
			break;
		case Q_RESET:
			err = restart(lp);
			break;
		default:	/* a USTACK whose sample was not queued */
			break;
		}
		if (err) {
			pm_warn("live profile: %s; the session starts again", strerror(-err));
			err = restart(lp);
			if (err)
				break;
		}
	}
	if (pending)
		apply_sample(lp, pending, NULL);
}

static void scrape_free(struct live_scrape *sc)
{
	uint32_t i;

	if (sc->pp)
		pprof_pass_close(sc->pp, false, 0, 0);
	for (i = 0; i < sc->nr_comms; i++)
		free(sc->comms[i]);
	free(sc->comms);
	unlink(sc->path);
	free(sc);
}

/* end() asked for everything queued up to end_seq - 1; the worker has applied up to seq. */
static bool reached(const struct live_scrape *sc, uint64_t seq)
{
	return sc->end_seq && sc->end_seq - 1 <= seq;
}

/* The queue ends with a sample whose USTACK may still come (lock held). */
static bool holds_tail(const struct live_profile *lp)
{
	return lp->tail_sample != SIZE_MAX && lp->wait_ustack;
}

/* The worker's batch: the queue and the profiles (lock held).  Returns the queue's seq. */
static uint64_t take_batch(struct live_profile *lp, uint8_t **buf, size_t *len, uint32_t *cap)
{
	struct live_scrape *sc;

	lp->nr_cur = 0;
	for (sc = lp->scrapes; sc && lp->nr_cur < MAX_SCRAPES; sc = sc->next)
		lp->cur[lp->nr_cur++] = sc;
	*buf = lp->q;
	*len = lp->q_len;
	*cap = lp->q_cap;
	lp->q = lp->spare;
	lp->q_cap = lp->spare_cap;
	lp->q_len = 0;
	lp->spare = NULL;
	lp->spare_cap = 0;
	/* a sample whose USTACK is not queued yet stays for the next batch */
	if (holds_tail(lp)) {
		size_t off = lp->tail_sample;
		const struct q_hdr *hd = (const struct q_hdr *)(*buf + off);
		void *e;

		lp->seq_in--;
		e = q_put(lp, Q_SAMPLE, hd->len);
		if (e) {
			memcpy(e, hd + 1, hd->len);
			*len = off;
			return lp->seq_in - 1;
		}
		lp->seq_in++;
	}
	return lp->seq_in;
}

/* Profiles whose seconds are applied and tables written: to end() (lock held). */
static void hand_over(struct live_profile *lp, uint64_t seq)
{
	struct live_scrape *sc, **pp;

	for (pp = &lp->scrapes; *pp;) {
		sc = *pp;
		if (sc->state != SC_OPEN || !reached(sc, seq) || sc->pp) {
			pp = &sc->next;
			continue;
		}
		*pp = sc->next;
		sc->state = SC_DONE;
		atomic_fetch_sub(&lp->active, 1);
		if (sc->abandoned)
			scrape_free(sc);
	}
	pthread_cond_broadcast(&lp->done);
}

static bool has_work(const struct live_profile *lp)
{
	const struct live_scrape *sc;

	if (lp->worker.stopping || (lp->q_len && !(holds_tail(lp) && lp->tail_sample == 0)))
		return true;
	for (sc = lp->scrapes; sc; sc = sc->next)
		if (sc->state == SC_NEW || (sc->state == SC_OPEN && reached(sc, lp->seq_in)))
			return true;
	return false;
}

/* The tables of the profiles that end with this batch (lock not held: the tap waits on it). */
static void close_ended(struct live_profile *lp, uint64_t seq)
{
	uint32_t i;

	for (i = 0; i < lp->nr_cur; i++) {
		struct live_scrape *sc = lp->cur[i];
		int rc;

		if (!sc->pp || !reached(sc, seq))
			continue;
		rc = pprof_pass_close(sc->pp, !sc->err, (int64_t)sc->from_real_ns,
				      (int64_t)(sc->to_real_ns - sc->from_real_ns));
		sc->pp = NULL;
		if (!sc->err)
			sc->err = rc;
	}
}

static void *worker_main(void *arg)
{
	struct live_profile *lp = arg;
	struct live_scrape *sc;
	uint32_t i;

	pthread_mutex_lock(&lp->lock);
	for (;;) {
		uint8_t *buf;
		size_t len;
		uint32_t cap;
		uint64_t seq;

		while (!has_work(lp))
			pthread_cond_wait(&lp->work, &lp->lock);
		if (lp->worker.stopping)
			break;
		seq = take_batch(lp, &buf, &len, &cap);
		pthread_mutex_unlock(&lp->lock);

		/* profiles registered since the last batch: their pprof pass */
		for (i = 0; i < lp->nr_cur; i++) {
			sc = lp->cur[i];
			if (sc->state != SC_NEW)
				continue;
			sc->err = pprof_pass_open(&sc->pp, &lp->s, sc->path, -1, NULL);
			pthread_mutex_lock(&lp->lock);
			sc->state = SC_OPEN;
			pthread_mutex_unlock(&lp->lock);
		}
		apply(lp, buf, len);
		close_ended(lp, seq);
		if (cap > QUEUE_KEEP) {
			free(buf);
			buf = NULL;
			cap = 0;
		}
		pthread_mutex_lock(&lp->lock);
		lp->spare = buf;
		lp->spare_cap = cap;
		lp->seq_done = seq;
		hand_over(lp, seq);
	}
	/* stopping: every profile in progress fails */
	while ((sc = lp->scrapes)) {
		lp->scrapes = sc->next;
		sc->state = SC_DONE;
		sc->err = -ESHUTDOWN;
		if (sc->pp)
			pprof_pass_close(sc->pp, false, 0, 0);
		sc->pp = NULL;
		if (sc->abandoned)
			scrape_free(sc);
	}
	pthread_cond_broadcast(&lp->done);
	pthread_mutex_unlock(&lp->lock);
	return NULL;
}

/* ---- life ---- */

int live_profile_new(struct live_profile **out, const struct trace_header *h, uint64_t max_rss)
{
	struct live_profile *lp = calloc(1, sizeof(*lp));
	struct session_opts so = { 0 };
	int e;

	*out = NULL;
	if (!lp)
		return -ENOMEM;
	pthread_mutex_init(&lp->lock, NULL);
	lp->tail_sample = SIZE_MAX;
	/* the queue is a cache too: at most a quarter of --max-memory */
	lp->queue_max = max_rss && max_rss / 4 < QUEUE_MAX ? max_rss / 4 : QUEUE_MAX;
	lp->max_rss = max_rss;
	/* a tiny queue, so that a test sees samples dropped and counted */
	if (getenv("PMIPROF_TEST_PROFILE_QUEUE_MAX"))
		lp->queue_max = strtoull(getenv("PMIPROF_TEST_PROFILE_QUEUE_MAX"), NULL, 0);
	pthread_cond_init(&lp->work, NULL);
	pthread_cond_init(&lp->done, NULL);
	lp->h = *h;
	lp->wait_ustack = h->call_graph == PMIPROF_CALL_GRAPH_DWARF ||
			  (h->call_graph_flags & PMIPROF_CALL_GRAPH_F_LEAF_WORDS);
	lp->tap = (struct trace_writer_tap){ .stack = tap_stack, .ustack = tap_ustack,
					     .mmap = tap_mmap, .comm = tap_comm,
					     .task = tap_task, .arg = lp };
	/* what report --format pprof asks of its session (report_pprof()) */
	so.stacks = &callstack_hooks;
	so.sym.srcline = true;
	e = session_open_live(&lp->s, &so, &lp->h);
	lp->have_session = !e;
	if (!e)
		e = worker_thread_start(&lp->worker, &lp->lock, &lp->work, worker_main, lp);
	if (e) {
		live_profile_free(lp);
		return e;
	}
	*out = lp;
	return 0;
}

void live_profile_free(struct live_profile *lp)
{
	if (!lp)
		return;
	worker_thread_stop(&lp->worker);
	if (lp->have_session)
		session_close(&lp->s);
	free(lp->q);
	free(lp->spare);
	free(lp->fids);
	pthread_cond_destroy(&lp->done);
	pthread_cond_destroy(&lp->work);
	pthread_mutex_destroy(&lp->lock);
	free(lp);
}

const struct trace_writer_tap *live_profile_tap(struct live_profile *lp)
{
	return &lp->tap;
}

static int split_comms(struct live_scrape *sc, const char *comm)
{
	char *copy = strdup(comm), *tok, *save = NULL;
	int err = copy ? 0 : -ENOMEM;

	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && !err;
	     tok = strtok_r(NULL, ",", &save)) {
		char **nv = realloc(sc->comms, (sc->nr_comms + 1) * sizeof(*nv));

		if (!nv || !((sc->comms = nv)[sc->nr_comms] = strdup(tok)))
			err = -ENOMEM;
		else
			sc->nr_comms++;
	}
	free(copy);
	return err;
}

int live_profile_begin(struct live_profile *lp, uint64_t from_real_ns, uint64_t to_real_ns,
		       const char *comm, uint32_t pid, struct live_scrape **out)
{
	struct live_scrape *sc = calloc(1, sizeof(*sc));
	int fd, err;

	*out = NULL;
	if (!sc)
		return -ENOMEM;
	snprintf(sc->path, sizeof(sc->path), "/tmp/pmiprof-profile-XXXXXX");
	fd = mkstemp(sc->path);
	if (fd < 0) {
		err = -errno;
		free(sc);
		return err;
	}
	close(fd);
	err = comm ? split_comms(sc, comm) : 0;
	if (err) {
		scrape_free(sc);
		return err;
	}
	sc->pid = pid;
	sc->from_real_ns = from_real_ns;
	sc->to_real_ns = to_real_ns;
	pthread_mutex_lock(&lp->lock);
	/* the open segment's pair, as report's first selected segment gives it */
	sc->base = lp->seg_start_ns;
	sc->from_ns = from_real_ns > lp->seg_start_real_ns ? from_real_ns - lp->seg_start_real_ns : 0;
	sc->to_ns = to_real_ns > lp->seg_start_real_ns ? to_real_ns - lp->seg_start_real_ns : 0;
	sc->state = SC_NEW;
	sc->next = lp->scrapes;
	lp->scrapes = sc;
	lp->requested = true;
	atomic_fetch_add(&lp->active, 1);
	pthread_cond_signal(&lp->work);
	pthread_mutex_unlock(&lp->lock);
	*out = sc;
	return 0;
}

int live_profile_end(struct live_profile *lp, struct live_scrape *sc, unsigned int timeout_ms,
		     char **buf, size_t *len, uint64_t *dropped)
{
	struct timespec ts;
	int err = 0, fd;

	*buf = NULL;
	*len = 0;
	*dropped = 0;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += timeout_ms / 1000;
	ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&lp->lock);
	/* everything handed over so far: the loop drained up to the end of the seconds */
	sc->end_seq = lp->seq_in + 1;
	pthread_cond_signal(&lp->work);
	while (sc->state != SC_DONE && !err)
		err = -pthread_cond_timedwait(&lp->done, &lp->lock, &ts);
	if (sc->state != SC_DONE) {
		sc->abandoned = true;	/* the worker frees it */
		pthread_mutex_unlock(&lp->lock);
		return err ? err : -ETIMEDOUT;
	}
	if (!sc->err)
		lp->st.profiles++;
	*dropped = sc->dropped;
	pthread_mutex_unlock(&lp->lock);
	err = sc->err;
	if (!err) {
		fd = open(sc->path, O_RDONLY | O_CLOEXEC);
		err = fd < 0 ? -errno : pm_read_fd(fd, buf, len);
		if (fd >= 0)
			close(fd);
	}
	scrape_free(sc);
	return err;
}

bool live_profile_active(struct live_profile *lp)
{
	return atomic_load_explicit(&lp->active, memory_order_relaxed) > 0;
}

void live_profile_stats(struct live_profile *lp, struct live_profile_stats *st)
{
	pthread_mutex_lock(&lp->lock);
	*st = lp->st;
	st->queue_bytes = lp->q_len;
	pthread_mutex_unlock(&lp->lock);
}
