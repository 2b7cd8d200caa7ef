// SPDX-License-Identifier: GPL-2.0
/*
 * libpmiprof-region: pmiprof_region_begin/end in the workload (see
 * include/pmiprof/region.h for the API, region_shm.h for the shared memory
 * and docs/regions.md for the design).
 *
 * Each thread opens its own counters at its first region (perf events on
 * itself, pid 0 / cpu -1, one group so a single read() returns them all),
 * maps their pages to use rdpmc where the kernel allows it, then times
 * PMR_CALIB_PAIRS empty regions under the reserved name 0 so pmiprof can
 * subtract what the measurement itself costs.  Per call it keeps a stack
 * frame in thread-local memory and writes one record to its ring in the
 * shared memory at the end.  Times come from the TSC where the kernel's
 * clocksource is the TSC (region_clock.h), else from the vDSO clock.
 * Nothing here blocks, allocates on the hot path, or exits: a full ring, a missing slot or a failed open is counted
 * in the shared memory and the workload goes on.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "pmiprof/region.h"
#include "region_clock.h"
#include "region_read.h"
#include "region_shm.h"

#define PMR_CACHE	256		/* per-thread name-pointer cache, power of two */
#define PMR_NO_ID	UINT32_MAX	/* name table full: region not measured */
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

struct pmr_frame {
	uint32_t id;
	uint8_t orphan;			/* inherited across fork: not measured */
	uint8_t marked;			/* MARKERS: its BEGIN is in the ring, so its END goes too */
	uint8_t counted;		/* STAT: counters read at its begin (read mode) */
	uint64_t wall;			/* ticks or ns (tls.tsc) */
	uint64_t v[PMR_MAX_EVENTS];
};

struct pmr_tls {
	struct pmr_thread *slot;
	unsigned int nr_ev;
	bool counters;			/* some event is open */
	bool need_read;			/* some event is read with read() */
	int fd[PMR_MAX_EVENTS];		/* -1: not open */
	int rfd[PMR_MAX_EVENTS];	/* the group leader to read() for it */
	unsigned int rpos[PMR_MAX_EVENTS];	/* its position in that read */
	struct perf_event_mmap_page *pg[PMR_MAX_EVENTS];
	unsigned int read_mode;		/* pmr_read_mode, from the header */
	bool tsc;			/* times from the TSC */
	bool calib;			/* timing the empty regions: always count */
	uint64_t sample_mask;		/* SAMPLED: count when (rng & mask) == 0 */
	uint64_t rng;			/* xorshift64 state */
	uint64_t head;			/* == slot->head, which only this thread writes */
	uint64_t tail_seen;		/* slot->tail when last read (it only grows) */
	/* MARKERS: ticks -> CLOCK_MONOTONIC ns (region_clock.h) */
	struct pmr_anchor anc;
	uint64_t mult;			/* 32.32 ns per tick, 0 = not known yet */
	uint64_t last_ns;		/* timestamps never go back */
	uint32_t depth;
	uint32_t marked_open;		/* MARKERS: open frames whose END has a slot reserved */
	struct pmr_frame stack[PMR_MAX_DEPTH];
	struct {
		const char *p;
		uint32_t id;
	} cache[PMR_CACHE];
};

int pmiprof_region_active;
static struct pmr_shm *pmr;
static pthread_key_t pmr_key;
static pthread_mutex_t pmr_names_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread struct pmr_tls *pmr_self __attribute__((tls_model("initial-exec")));
static __thread bool pmr_no_slot __attribute__((tls_model("initial-exec")));
static bool pmr_markers;	/* MARKERS mode (pmiprof record), else STAT */
static bool pmr_use_tsc;	/* the kernel's clocksource is the TSC */
static struct pmr_anchor pmr_anchor0;	/* taken at load: the slope's base */

static inline void pmr_anomaly(struct pmr_tls *t, enum pmr_anomaly a)
{
	__atomic_store_n(&t->slot->anom[a], t->slot->anom[a] + 1, __ATOMIC_RELAXED);
}

/* STAT: the time of a begin or end, in the unit of slot->clock. */
static inline uint64_t pmr_wall(const struct pmr_tls *t)
{
	return t->tsc ? pmr_ticks() : pmr_mono_ns();
}

static __attribute__((noinline)) void pmr_reanchor(struct pmr_tls *t)
{
	pmr_anchor_take(&t->anc);
	t->mult = pmr_slope(&pmr_anchor0, &t->anc);
}

/*
 * MARKERS: a CLOCK_MONOTONIC timestamp, from the TSC and the thread's
 * anchor where the slope is known (after the first ms of the process),
 * otherwise from the vDSO clock.
 */
static inline uint64_t pmr_marker_ns(struct pmr_tls *t)
{
	uint64_t c, ns;

	if (!t->tsc)
		return pmr_mono_ns();
	c = pmr_ticks();
	if (unlikely(c - t->anc.tsc >= PMR_REANCHOR_TICKS)) {
		pmr_reanchor(t);
		ns = t->anc.ns;
	} else if (unlikely(!t->mult)) {
		ns = pmr_mono_ns();
	} else {
		ns = pmr_ticks_to_ns(&t->anc, t->mult, c);
	}
	/* an anchor's error may step back a few ns: markers stay in order */
	if (unlikely(ns < t->last_ns))
		ns = t->last_ns;
	t->last_ns = ns;
	return ns;
}

/* SAMPLED: whether this call reads the counters (1 in 2^sample_shift). */
static inline bool pmr_sample(struct pmr_tls *t)
{
	uint64_t x = t->rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	t->rng = x;
	return !(x & t->sample_mask);
}

/* The values of every open event, in header order. */
static inline void pmr_read(struct pmr_tls *t, uint64_t *v)
{
	uint64_t buf[1 + PMR_MAX_EVENTS];
	int last_fd = -1;
	unsigned int i;

	for (i = 0; i < t->nr_ev; i++) {
		if (t->fd[i] < 0) {
			v[i] = 0;
			continue;
		}
		if (t->pg[i] && !pmr_mmap_read(t->pg[i], pmr_rdpmc, NULL, &v[i]))
			continue;
		if (pmr_markers) {
			/* markers carry only what costs no system call */
			v[i] = 0;
			continue;
		}
		/* one read() serves every member of the group */
		if (t->rfd[i] != last_fd) {
			if (read(t->rfd[i], buf, sizeof(buf)) < (ssize_t)(2 * sizeof(uint64_t)))
				buf[0] = 0;
			last_fd = t->rfd[i];
		}
		v[i] = t->rpos[i] < buf[0] ? buf[1 + t->rpos[i]] : 0;
	}
}

static void pmr_close_counters(struct pmr_tls *t)
{
	unsigned int i;

	for (i = 0; i < PMR_MAX_EVENTS; i++) {
		if (t->pg[i])
			munmap(t->pg[i], (size_t)sysconf(_SC_PAGESIZE));
		if (t->fd[i] >= 0)
			close(t->fd[i]);
		t->pg[i] = NULL;
		t->fd[i] = -1;
	}
	t->counters = t->need_read = false;
}

static int pmr_open_one(const struct pmr_event *e, int group_fd)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = e->type;
	a.config = e->config;
	a.config1 = e->config1;
	a.config2 = e->config2;
	a.exclude_user = !!(e->flags & PMR_EV_EXCLUDE_USER);
	a.exclude_kernel = !!(e->flags & PMR_EV_EXCLUDE_KERNEL);
	a.exclude_hv = !!(e->flags & PMR_EV_EXCLUDE_HV);
	a.read_format = PERF_FORMAT_GROUP;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM) && !a.exclude_kernel) {
		a.exclude_kernel = a.exclude_hv = 1;	/* unprivileged: user space only */
		fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
	}
	return fd < 0 ? -errno : fd;
}

/*
 * The thread's counters: one group led by the first event that opens; an
 * event the group refuses is opened (and read) on its own.
 */
static void pmr_open_counters(struct pmr_tls *t)
{
	struct pmr_thread *s = t->slot;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned int i, members = 0;
	int leader = -1;

	/* the header is shared with the workload's other processes: bounded */
	t->nr_ev = pmr->nr_events < PMR_MAX_EVENTS ? pmr->nr_events : PMR_MAX_EVENTS;
	for (i = 0; i < t->nr_ev; i++) {
		int fd = pmr_open_one(&pmr->ev[i], pmr_markers ? -1 : leader);
		bool alone = leader < 0;
		void *pg;

		if (fd < 0 && leader >= 0) {
			fd = pmr_open_one(&pmr->ev[i], -1);
			alone = true;
		}
		if (fd < 0) {
			s->path[i] = PMR_PATH_FAILED;
			s->err[i] = -fd;
			continue;
		}
		t->fd[i] = fd;
		if (leader < 0)
			leader = fd;
		/* a group member shares the leader's read(); a loner has its own */
		t->rfd[i] = alone ? fd : leader;
		t->rpos[i] = alone ? 0 : members;
		if (!alone || fd == leader)
			members++;
		pg = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
		if (pg != MAP_FAILED) {
			struct perf_event_mmap_page *p = pg;

			if (p->cap_user_rdpmc && p->index) {
				t->pg[i] = p;
				t->counters = true;
				s->path[i] = PMR_PATH_RDPMC;
				continue;
			}
			munmap(pg, page);
		}
		if (pmr_markers) {
			/* a read() per marker would make regions cost microseconds */
			close(fd);
			t->fd[i] = -1;
			s->path[i] = PMR_PATH_NO_RDPMC;
			continue;
		}
		s->path[i] = PMR_PATH_READ;
		t->counters = true;
		t->need_read = true;
	}
}

/* Slow path of the name lookup: the shared table, by string. */
static uint32_t pmr_register(const char *name)
{
	uint32_t i, n, id = PMR_NO_ID;

	pthread_mutex_lock(&pmr_names_lock);
	n = __atomic_load_n(&pmr->nr_names, __ATOMIC_ACQUIRE);
	for (i = 0; i < n && i < PMR_MAX_NAMES; i++)
		if (__atomic_load_n(&pmr->names[i].ready, __ATOMIC_ACQUIRE) &&
		    !strncmp(pmr->names[i].name, name, PMR_NAME_LEN - 1)) {
			id = i;
			goto out;
		}
	/* other processes of the workload share the table: claim atomically */
	i = __atomic_fetch_add(&pmr->nr_names, 1, __ATOMIC_ACQ_REL);
	if (i >= PMR_MAX_NAMES) {
		__atomic_store_n(&pmr->nr_names, PMR_MAX_NAMES, __ATOMIC_RELAXED);
		__atomic_fetch_add(&pmr->names_overflow, 1, __ATOMIC_RELAXED);
		goto out;
	}
	strncpy(pmr->names[i].name, name, PMR_NAME_LEN - 1);
	pmr->names[i].name[PMR_NAME_LEN - 1] = '\0';
	__atomic_store_n(&pmr->names[i].ready, 1, __ATOMIC_RELEASE);
	id = i;
out:
	pthread_mutex_unlock(&pmr_names_lock);
	return id;
}

static inline uint32_t pmr_lookup(struct pmr_tls *t, const char *name)
{
	uintptr_t p = (uintptr_t)name;
	unsigned int h = (unsigned int)((p >> 3) ^ (p >> 11)) & (PMR_CACHE - 1);

	if (likely(t->cache[h].p == name))
		return t->cache[h].id;
	if (!name)
		return PMR_NO_ID;
	t->cache[h].id = pmr_register(name);
	t->cache[h].p = name;
	return t->cache[h].id;
}

static bool pmr_claim_slot(struct pmr_tls *t)
{
	uint32_t i = __atomic_fetch_add(&pmr->nr_threads, 1, __ATOMIC_ACQ_REL);
	struct pmr_thread *s;

	if (i >= PMR_MAX_THREADS) {
		__atomic_store_n(&pmr->nr_threads, PMR_MAX_THREADS, __ATOMIC_RELAXED);
		__atomic_fetch_add(&pmr->threads_overflow, 1, __ATOMIC_RELAXED);
		return false;
	}
	s = &pmr->threads[i];
	s->pid = (int32_t)getpid();
	s->tid = (int32_t)syscall(SYS_gettid);
	__atomic_store_n(&s->state, PMR_SLOT_LIVE, __ATOMIC_RELEASE);
	t->slot = s;
	return true;
}

/* Thread exit (pthread key destructor): counters closed, slot marked. */
static void pmr_thread_exit(void *arg)
{
	struct pmr_tls *t = arg;

	pmr_close_counters(t);
	__atomic_store_n(&t->slot->state, PMR_SLOT_EXITED, __ATOMIC_RELEASE);
	pmr_self = NULL;
	pmr_no_slot = true;	/* a later destructor's region is not measured */
	free(t);
}

static void pmr_calibrate(struct pmr_tls *t);

/* First region of a thread: slot, counters, calibration. */
static struct pmr_tls *pmr_thread_setup(void)
{
	struct pmr_tls *t;
	unsigned int i;

	if (pmr_no_slot)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t || !pmr_claim_slot(t)) {
		free(t);
		pmr_no_slot = true;
		return NULL;
	}
	for (i = 0; i < PMR_MAX_EVENTS; i++)
		t->fd[i] = -1;
	t->read_mode = pmr->read_mode;
	t->sample_mask = (1ull << (pmr->sample_shift < 32 ? pmr->sample_shift : 32)) - 1;
	t->tsc = pmr_use_tsc;
	t->slot->clock = t->tsc ? PMR_CLOCK_TSC : PMR_CLOCK_MONO;
	t->rng = (pmr_ticks() ^ (uint64_t)t->slot->tid << 32) | 1;
	if (t->tsc)
		pmr_reanchor(t);
	if (t->read_mode != PMR_READ_CLOCK)
		pmr_open_counters(t);
	pthread_setspecific(pmr_key, t);
	pmr_self = t;
	if (!pmr_markers)
		pmr_calibrate(t);
	return t;
}

static void pmr_marker(struct pmr_tls *t, unsigned int kind, uint32_t id, uint32_t depth);

void pmiprof_region_begin(const char *name)
{
	struct pmr_tls *t;
	struct pmr_frame *f;
	uint32_t id, d;

	if (likely(!pmiprof_region_active))
		return;
	t = pmr_self;
	if (unlikely(!t) && !(t = pmr_thread_setup()))
		return;
	id = pmr_lookup(t, name);
	d = t->depth++;
	__atomic_store_n(&t->slot->depth, d + 1, __ATOMIC_RELAXED);
	if (unlikely(d >= PMR_MAX_DEPTH)) {
		pmr_anomaly(t, PMR_AN_TOO_DEEP);
		return;
	}
	__atomic_store_n(&t->slot->open[d], id, __ATOMIC_RELAXED);
	f = &t->stack[d];
	f->id = id;
	f->orphan = 0;
	f->marked = 0;
	f->counted = 0;
	if (unlikely(id == PMR_NO_ID)) {
		pmr_anomaly(t, PMR_AN_TOO_MANY_NAMES);
		return;
	}
	if (pmr_markers) {
		struct pmr_thread *sl = t->slot;

		/*
		 * A BEGIN goes in only with room left for the ENDs of every marked
		 * open region and its own: an END is then never dropped, so a full
		 * ring loses whole regions (BEGIN and END, counted as 2) and never
		 * leaves one open in the trace that the thread closed.
		 */
		if (unlikely(t->head - t->tail_seen + t->marked_open + 2 > PMR_RING_RECS)) {
			t->tail_seen = __atomic_load_n(&sl->tail, __ATOMIC_ACQUIRE);
			if (t->head - t->tail_seen + t->marked_open + 2 > PMR_RING_RECS) {
				__atomic_store_n(&sl->lost, sl->lost + 1, __ATOMIC_RELAXED);
				return;
			}
		}
		f->marked = 1;
		t->marked_open++;
		pmr_marker(t, PMR_REC_BEGIN, id, d);
		return;
	}
	/* the reads last, so the bookkeeping above is not measured */
	if (t->counters) {
		switch (t->read_mode) {
		case PMR_READ_OUTER:
			f->counted = d == 0;
			break;
		case PMR_READ_SAMPLED:
			f->counted = t->calib || pmr_sample(t);
			break;
		default:
			f->counted = 1;
		}
		if (f->counted)
			pmr_read(t, f->v);
	}
	f->wall = pmr_wall(t);
}

/*
 * The tail (pmiprof's cache line) is read only when the ring looks full
 * from the last value seen, so the common push touches no line pmiprof
 * writes.
 */
static inline void pmr_push(struct pmr_tls *t, const struct pmr_rec *r, unsigned int nr_ev)
{
	struct pmr_thread *s = t->slot;
	uint64_t head = t->head;
	struct pmr_rec *dst;

	if (unlikely(head - t->tail_seen >= PMR_RING_RECS)) {
		t->tail_seen = __atomic_load_n(&s->tail, __ATOMIC_ACQUIRE);
		if (head - t->tail_seen >= PMR_RING_RECS) {
			/* pmiprof is behind or gone: drop, never wait */
			__atomic_store_n(&s->lost, s->lost + 1, __ATOMIC_RELAXED);
			return;
		}
	}
	dst = &s->ring[head & (PMR_RING_RECS - 1)];
	memcpy(dst, r, offsetof(struct pmr_rec, val) + nr_ev * sizeof(r->val[0]));
	t->head = head + 1;
	__atomic_store_n(&s->head, head + 1, __ATOMIC_RELEASE);
}

/*
 * MARKERS mode: one BEGIN or END record, stamped with the trace clock
 * (CLOCK_MONOTONIC, as perf_event_attr.clockid of the recording) and the
 * rdpmc values; the recorder merges them with the samples by time.
 */
static void pmr_marker(struct pmr_tls *t, unsigned int kind, uint32_t id, uint32_t depth)
{
	struct pmr_rec r;
	unsigned int i, missing = 0;

	r.region = id;
	r.depth = (uint16_t)depth;
	if (t->counters) {
		for (i = 0; i < t->nr_ev; i++) {
			r.val[i] = 0;
			if (t->pg[i] && pmr_mmap_read(t->pg[i], pmr_rdpmc, NULL, &r.val[i]))
				missing |= 1u << i;
		}
	}
	r.kind = (uint16_t)(kind | missing << 8);
	r.wall_ns = pmr_marker_ns(t);
	pmr_push(t, &r, t->counters ? t->nr_ev : 0);
}

void pmiprof_region_end(const char *name)
{
	uint64_t wall, v[PMR_MAX_EVENTS];
	struct pmr_tls *t;
	struct pmr_frame *f;
	struct pmr_rec r;
	bool counted = false;
	uint32_t id, d, i;

	if (likely(!pmiprof_region_active))
		return;
	t = pmr_self;
	if (unlikely(!t) && !(t = pmr_thread_setup()))
		return;
	wall = pmr_markers ? 0 : pmr_wall(t);
	/* the reads first, so the bookkeeping below is not measured */
	if (!pmr_markers && t->counters && t->depth && t->depth <= PMR_MAX_DEPTH &&
	    t->stack[t->depth - 1].counted) {
		pmr_read(t, v);
		counted = true;
	}
	if (unlikely(!t->depth)) {
		pmr_anomaly(t, PMR_AN_END_WITHOUT_BEGIN);
		return;
	}
	d = t->depth - 1;
	if (unlikely(d >= PMR_MAX_DEPTH)) {
		/* too deep to have been measured: only the nesting is kept */
		t->depth = d;
		__atomic_store_n(&t->slot->depth, d, __ATOMIC_RELAXED);
		return;
	}
	id = pmr_lookup(t, name);
	f = &t->stack[d];
	if (unlikely(f->id != id)) {
		/* the end of an outer region: the inner ones are dropped, unmeasured */
		while (d > 0 && t->stack[d].id != id)
			d--;
		if (t->stack[d].id != id) {
			pmr_anomaly(t, PMR_AN_END_WITHOUT_BEGIN);
			return;
		}
		pmr_anomaly(t, PMR_AN_MISMATCHED);
		/* the inner ones end unmarked: their reserved END slots are free again */
		for (i = d + 1; i < t->depth && i < PMR_MAX_DEPTH; i++)
			if (t->stack[i].marked)
				t->marked_open--;
		f = &t->stack[d];
	}
	counted = counted && f->counted;
	t->depth = d;
	__atomic_store_n(&t->slot->depth, d, __ATOMIC_RELAXED);
	if (f->orphan || id == PMR_NO_ID)
		return;
	if (pmr_markers) {
		if (!f->marked) {
			/* its BEGIN found the ring full: the END goes with it */
			__atomic_store_n(&t->slot->lost, t->slot->lost + 1, __ATOMIC_RELAXED);
			return;
		}
		t->marked_open--;
		pmr_marker(t, PMR_REC_END, id, d);
		return;
	}
	r.region = id;
	r.kind = counted ? PMR_REC_CALL : PMR_REC_CALL_WALL;
	r.depth = (uint16_t)d;
	r.wall_ns = wall - f->wall;
	for (i = 0; i < t->nr_ev; i++)
		r.val[i] = counted ? v[i] - f->v[i] : 0;
	pmr_push(t, &r, counted ? t->nr_ev : 0);
}

/*
 * What a region costs to measure, timed on this thread with the same calls
 * under the reserved name 0: pmiprof subtracts the median (docs/regions.md).
 */
static void pmr_calibrate(struct pmr_tls *t)
{
	const char *name = pmr->names[0].name;
	unsigned int i;

	t->calib = true;	/* SAMPLED: the cost of a counted call is what is subtracted */
	for (i = 0; i < PMR_CALIB_PAIRS; i++) {
		pmiprof_region_begin(name);
		pmiprof_region_end(name);
	}
	t->calib = false;
}

/*
 * In a child forked by a thread, the thread's state is a copy: its counters
 * count the parent's thread and its open regions began in the parent.  The
 * child closes them, takes a slot of its own and counts the inherited open
 * regions as one anomaly; their ends are then ignored.
 */
static void pmr_after_fork_child(void)
{
	struct pmr_tls *t = pmr_self;
	uint32_t d;

	if (!t)
		return;
	pmr_close_counters(t);
	if (!pmr_claim_slot(t)) {
		pthread_setspecific(pmr_key, NULL);
		free(t);
		pmr_self = NULL;
		pmr_no_slot = true;
		return;
	}
	for (d = 0; d < t->depth && d < PMR_MAX_DEPTH; d++)
		t->stack[d].orphan = 1;
	t->marked_open = 0;	/* a new slot: the parent's ENDs are not this ring's */
	t->head = t->tail_seen = 0;
	t->slot->clock = t->tsc ? PMR_CLOCK_TSC : PMR_CLOCK_MONO;
	t->rng ^= (uint64_t)t->slot->tid << 32;
	if (t->depth)
		pmr_anomaly(t, PMR_AN_FORK_IN_REGION);
	if (pmr->read_mode != PMR_READ_CLOCK)
		pmr_open_counters(t);
}

__attribute__((constructor)) static void pmr_init(void)
{
	const char *env = getenv(PMR_ENV);
	struct pmr_shm *m;
	struct stat st;
	char *end;
	long fd;

	if (!env || !*env)
		return;
	fd = strtol(env, &end, 10);
	/*
	 * The variable may be inherited by a process whose descriptor of that
	 * number is something else (closed, reused): only a regular file
	 * (pmiprof's memfd) of the right size with the magic is taken.
	 */
	if (*end || fd < 0 || fd > INT32_MAX || fstat((int)fd, &st) || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size < PMR_SHM_SIZE)
		return;
	m = mmap(NULL, PMR_SHM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
	if (m == MAP_FAILED)
		return;
	if (m->magic != PMR_MAGIC || m->version != PMR_VERSION || m->size != PMR_SHM_SIZE ||
	    (m->mode != PMR_MODE_STAT && m->mode != PMR_MODE_MARKERS) || m->nr_events > PMR_MAX_EVENTS || m->nr_names < 1 ||
	    pthread_key_create(&pmr_key, pmr_thread_exit) ||
	    pthread_atfork(NULL, NULL, pmr_after_fork_child)) {
		munmap(m, PMR_SHM_SIZE);
		return;
	}
	pmr = m;
	pmr_markers = m->mode == PMR_MODE_MARKERS;
	pmr_use_tsc = pmr_tsc_usable() && !getenv("PMIPROF_REGIONS_NO_TSC");
	if (pmr_use_tsc)
		pmr_anchor_take(&pmr_anchor0);
	pmiprof_region_active = 1;
}
