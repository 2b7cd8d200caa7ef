// SPDX-License-Identifier: GPL-2.0
/*
 * pmiprof record: code-region markers from the workload into the trace (see
 * record_regions.h).  The rings are single-producer single-consumer per
 * thread and in time order each; markers of different threads are merged
 * here.  A marker is stamped before it is published, so markers newer than
 * the perf rings' publish slack stay pending until the next drain, as the
 * samples do (perf_ring.h): both streams are cut at the same watermark.
 */
#include "engine/record_regions.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "engine/perf_ring.h"
#include "region/region_shm.h"
#include "util.h"

struct pending {
	uint64_t time;
	uint64_t seq;			/* collection order: ties keep it */
	uint32_t slot;
	struct pmr_rec rec;
};

struct record_regions {
	int fd;
	struct pmr_shm *shm;
	uint32_t nr_ev;
	uint32_t hdr_index[PMR_MAX_EVENTS];	/* shm event -> header event index */
	struct pending *pend;
	size_t nr_pend, cap_pend;
	uint64_t seq;
	uint8_t defined[PMR_MAX_NAMES];		/* REGION_DEF written */
	uint32_t nr_defined;
	uint64_t written, junk;
	uint64_t dropped;			/* known at finish */
};

int record_regions_new(struct record_regions **out)
{
	struct record_regions *rr = calloc(1, sizeof(*rr));
	char num[16];
	int err;

	if (!rr)
		return -ENOMEM;
	/* not close-on-exec: the workload inherits it */
	rr->fd = memfd_create("pmiprof-regions", 0);
	if (rr->fd < 0) {
		err = -errno;
		free(rr);
		return err;
	}
	if (ftruncate(rr->fd, (off_t)PMR_SHM_SIZE))
		goto fail;
	rr->shm = mmap(NULL, PMR_SHM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, rr->fd, 0);
	if (rr->shm == MAP_FAILED) {
		rr->shm = NULL;
		goto fail;
	}
	snprintf(num, sizeof(num), "%d", rr->fd);
	if (setenv(PMR_ENV, num, 1))
		goto fail;
	*out = rr;
	return 0;
fail:
	err = -errno;
	record_regions_free(rr);
	return err;
}

void record_regions_arm(struct record_regions *rr, struct trace_header *h)
{
	struct pmr_shm *m = rr->shm;
	uint32_t i;

	m->size = PMR_SHM_SIZE;
	m->version = PMR_VERSION;
	m->mode = PMR_MODE_MARKERS;
	m->read_mode = PMR_READ_AUTO;
	/*
	 * Hardware events only: software counters have no rdpmc, and a marker
	 * never costs a system call.  (Each thread's own counters take PMU
	 * counters too: docs/regions.md.)
	 */
	for (i = 0; i < h->nr_events && i < PMIPROF_MAX_EVENTS && rr->nr_ev < PMR_MAX_EVENTS; i++) {
		const struct trace_event_desc *e = &h->events[i];
		struct pmr_event *p = &m->ev[rr->nr_ev];

		if ((e->flags & PMIPROF_EVENT_F_SOFTWARE) || e->type >= PMIPROF_EVTYPE_MODULE)
			continue;
		p->type = e->type;
		p->config = e->config;
		p->config1 = e->config1;
		p->flags = (e->flags & PMIPROF_EVENT_F_EXCL_USER ? PMR_EV_EXCLUDE_USER : 0) |
			   (e->flags & PMIPROF_EVENT_F_EXCL_KERNEL ? PMR_EV_EXCLUDE_KERNEL : 0);
		pm_strlcpy(p->name, e->name, sizeof(p->name));
		rr->hdr_index[rr->nr_ev++] = i;
	}
	m->nr_events = rr->nr_ev;
	/* name 0 is reserved (stat's empty-region calibration): never used here */
	pm_strlcpy(m->names[0].name, "pmiprof:reserved", PMR_NAME_LEN);
	m->names[0].ready = 1;
	m->nr_names = 1;
	__atomic_store_n(&m->magic, PMR_MAGIC, __ATOMIC_RELEASE);
	h->flags |= PMIPROF_TRACE_F_REGIONS;
}

static int pend_cmp(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

uint64_t record_regions_collect(struct record_regions *rr)
{
	uint64_t now = pm_now_ns();	/* before the heads: the watermark's base */
	size_t before = rr->nr_pend;
	uint32_t n, i;

	if (!rr->shm)
		return now;
	n = __atomic_load_n(&rr->shm->nr_threads, __ATOMIC_ACQUIRE);
	for (i = 0; i < n && i < PMR_MAX_THREADS; i++) {
		struct pmr_thread *t = &rr->shm->threads[i];
		uint64_t head, tail = t->tail;

		if (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) == PMR_SLOT_FREE)
			continue;
		head = __atomic_load_n(&t->head, __ATOMIC_ACQUIRE);
		if (head - tail > PMR_RING_RECS)	/* junk from a broken workload */
			tail = head - PMR_RING_RECS;
		if (rr->nr_pend + (head - tail) > rr->cap_pend) {
			size_t cap = rr->cap_pend ? rr->cap_pend : 4096;
			struct pending *p;

			while (cap < rr->nr_pend + (head - tail))
				cap *= 2;
			p = realloc(rr->pend, cap * sizeof(*p));
			if (!p)
				continue;	/* stays in the ring: next time */
			rr->pend = p;
			rr->cap_pend = cap;
		}
		for (; tail != head; tail++) {
			struct pending *p = &rr->pend[rr->nr_pend];

			memcpy(&p->rec, &t->ring[tail & (PMR_RING_RECS - 1)], sizeof(p->rec));
			p->time = p->rec.wall_ns;
			p->seq = rr->seq++;
			p->slot = i;
			rr->nr_pend++;
		}
		__atomic_store_n(&t->tail, tail, __ATOMIC_RELEASE);
	}
	if (rr->nr_pend != before)
		qsort(rr->pend, rr->nr_pend, sizeof(*rr->pend), pend_cmp);
	return now;
}

static int define(struct record_regions *rr, struct trace_writer *w, uint32_t id)
{
	struct trace_region_def d = { .id = id };
	char name[PMR_NAME_LEN + 16];
	int ret;

	if (rr->defined[id])
		return 0;
	if (__atomic_load_n(&rr->shm->names[id].ready, __ATOMIC_ACQUIRE)) {
		/* the workload may write junk: always terminated here */
		memcpy(name, rr->shm->names[id].name, PMR_NAME_LEN - 1);
		name[PMR_NAME_LEN - 1] = '\0';
	} else {
		snprintf(name, sizeof(name), "region#%u", id);
	}
	d.name = name;
	ret = trace_write_region_def(w, &d);
	if (!ret) {
		rr->defined[id] = 1;
		rr->nr_defined++;
	}
	return ret;
}

static int write_one(struct record_regions *rr, struct trace_writer *w, const struct pending *p)
{
	const struct pmr_thread *t = &rr->shm->threads[p->slot];
	unsigned int kind = PMR_REC_KIND(p->rec.kind), missing = PMR_REC_MISSING(p->rec.kind);
	struct trace_region r;
	uint32_t i;
	int ret;

	if ((kind != PMR_REC_BEGIN && kind != PMR_REC_END) || p->rec.region == 0 ||
	    p->rec.region >= PMR_MAX_NAMES) {
		rr->junk++;
		return 0;
	}
	ret = define(rr, w, p->rec.region);
	if (ret)
		return ret;
	memset(&r, 0, sizeof(r));
	r.time = p->time;
	r.kind = kind == PMR_REC_BEGIN ? PMIPROF_REGION_BEGIN : PMIPROF_REGION_END;
	r.pid = (uint32_t)t->pid;
	r.tid = (uint32_t)t->tid;
	r.id = p->rec.region;
	r.depth = p->rec.depth;
	for (i = 0; i < rr->nr_ev; i++) {
		if (t->path[i] != PMR_PATH_RDPMC || (missing >> i & 1))
			continue;
		r.evmask |= 1u << rr->hdr_index[i];
		r.values[rr->hdr_index[i]] = p->rec.val[i];
	}
	ret = trace_write_region(w, &r);
	if (!ret)
		rr->written++;
	return ret;
}

int record_regions_flush(struct record_regions *rr, struct trace_writer *w, uint64_t upto)
{
	size_t i = 0;
	int ret = 0;

	if (!rr->shm)
		return 0;
	while (i < rr->nr_pend && rr->pend[i].time <= upto) {
		ret = write_one(rr, w, &rr->pend[i]);
		if (ret)
			break;
		i++;
	}
	if (i) {
		memmove(rr->pend, rr->pend + i, (rr->nr_pend - i) * sizeof(*rr->pend));
		rr->nr_pend -= i;
	}
	return ret;
}

int record_regions_finish(struct record_regions *rr, struct trace_writer *w, uint64_t time)
{
	static const uint32_t an_map[PMR_AN_NR] = {
		[PMR_AN_END_WITHOUT_BEGIN] = PMIPROF_REGION_AN_END_WITHOUT_BEGIN,
		[PMR_AN_MISMATCHED] = PMIPROF_REGION_AN_MISMATCHED,
		[PMR_AN_TOO_DEEP] = PMIPROF_REGION_AN_TOO_DEEP,
		[PMR_AN_FORK_IN_REGION] = PMIPROF_REGION_AN_FORK_IN_REGION,
		[PMR_AN_TOO_MANY_NAMES] = PMIPROF_REGION_AN_TOO_MANY_NAMES,
	};
	struct pmr_shm *m = rr->shm;
	uint32_t n, i, a;
	int ret;

	if (!m)
		return 0;
	record_regions_collect(rr);
	ret = record_regions_flush(rr, w, UINT64_MAX);
	n = __atomic_load_n(&m->nr_threads, __ATOMIC_ACQUIRE);
	rr->dropped = 0;
	for (i = 0; !ret && i < n && i < PMR_MAX_THREADS; i++) {
		const struct pmr_thread *t = &m->threads[i];

		if (t->state == PMR_SLOT_FREE)
			continue;
		rr->dropped += t->lost;
		for (a = 0; a < PMR_AN_NR && !ret; a++) {
			struct trace_region_anomaly an = {
				time, (uint32_t)t->pid, (uint32_t)t->tid, an_map[a], t->anom[a]
			};

			if (t->anom[a])
				ret = trace_write_region_anomaly(w, &an);
		}
	}
	if (!ret && m->threads_overflow) {
		struct trace_region_anomaly an = { time, 0, 0, PMIPROF_REGION_AN_TOO_MANY_THREADS,
						   m->threads_overflow };

		ret = trace_write_region_anomaly(w, &an);
	}
	if (!ret && rr->dropped) {
		struct trace_lost l = { time, PMIPROF_CPU_NONE, PMIPROF_LOST_REGION_MARKERS,
					rr->dropped, 0 };

		ret = trace_write_lost(w, &l);
	}
	return ret;
}

void record_regions_counts(const struct record_regions *rr, uint64_t *written,
			   uint64_t *dropped, uint32_t *regions)
{
	*written = rr->written;
	*dropped = rr->dropped;
	*regions = rr->nr_defined;
}

void record_regions_free(struct record_regions *rr)
{
	if (!rr)
		return;
	if (rr->shm)
		munmap(rr->shm, PMR_SHM_SIZE);
	if (rr->fd >= 0)
		close(rr->fd);
	unsetenv(PMR_ENV);
	free(rr->pend);
	free(rr);
}
