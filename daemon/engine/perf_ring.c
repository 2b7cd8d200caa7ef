// SPDX-License-Identifier: GPL-2.0
/* perf mmap rings: map, and drain merged by time under a watermark (perf_ring.h). */
#include "engine/perf_ring.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "util.h"

int perf_ring_map(struct perf_ring *r, int fd, int cpu, unsigned int pages, size_t page_size)
{
	size_t len = (1 + (size_t)pages) * page_size;

	r->base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->base == MAP_FAILED) {
		int e = -errno;

		r->base = NULL;
		pm_err("cannot map the perf ring of CPU %d (%u KiB): %s%s", cpu,
		       (unsigned int)(pages * page_size / 1024), strerror(-e),
		       e == -EPERM ? "; raise kernel.perf_event_mlock_kb or use -m" : "");
		return e;
	}
	r->fd = fd;
	r->cpu = cpu;
	r->meta = r->base;
	r->data = (char *)r->base + page_size;
	r->data_size = (uint64_t)pages * page_size;
	return 0;
}

void perf_ring_unmap(struct perf_ring *r, size_t page_size)
{
	if (r->base)
		munmap(r->base, page_size + r->data_size);
	r->base = NULL;
}

void perf_ring_copy(const struct perf_ring *r, uint64_t pos, void *dst, size_t len)
{
	uint64_t off = pos & (r->data_size - 1);
	size_t part = len;

	if (off + len > r->data_size)
		part = (size_t)(r->data_size - off);
	memcpy(dst, r->data + off, part);
	memcpy((char *)dst + part, r->data, len - part);
}

/* sample_id_all trailer of non-SAMPLE records: TID, TIME, CPU (16 bytes from the end: TIME) */
#define TRAILER_TIME_FROM_END	16

/*
 * Time of the record at the cursor: SAMPLE has it after IP and TID, every
 * other record in its sample_id_all trailer.  Returns false when no
 * complete record is pending (end of the snapshot, or a torn size).
 */
static bool ring_peek(struct perf_ring *r)
{
	struct perf_event_header hh;
	uint64_t t = 0;

	if (r->tail >= r->head)
		return false;
	perf_ring_copy(r, r->tail, &hh, sizeof(hh));
	if (hh.size < sizeof(hh) || hh.size > r->head - r->tail)
		return false;
	if (hh.type == PERF_RECORD_SAMPLE && hh.size >= sizeof(hh) + 24)
		perf_ring_copy(r, r->tail + sizeof(hh) + 16, &t, sizeof(t));
	else if (hh.type != PERF_RECORD_SAMPLE && hh.size >= sizeof(hh) + 24)
		perf_ring_copy(r, r->tail + hh.size - TRAILER_TIME_FROM_END, &t, sizeof(t));
	r->next_time = t;
	return true;
}

int perf_rings_drain(struct perf_ring *rings, unsigned int nr, uint64_t now, char *copybuf,
		     perf_record_fn fn, void *arg)
{
	uint64_t watermark = now == UINT64_MAX ? UINT64_MAX :
			     now > PERF_RING_PUBLISH_SLACK_NS ? now - PERF_RING_PUBLISH_SLACK_NS : 0;
	unsigned int i;
	int total = 0, ret = 0;

	for (i = 0; i < nr; i++) {
		struct perf_ring *r = &rings[i];

		r->head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
		r->tail = r->meta->data_tail;
		r->live = ring_peek(r);
	}
	for (;;) {
		struct perf_ring *best = NULL;
		const struct perf_event_header *h;
		struct perf_event_header hh;
		uint64_t off;

		for (i = 0; i < nr; i++)
			if (rings[i].live && (!best || rings[i].next_time < best->next_time))
				best = &rings[i];
		/* Anything newer may still be preceded by a record not yet published. */
		if (!best || best->next_time > watermark)
			break;
		off = best->tail & (best->data_size - 1);
		memcpy(&hh, best->data + off, sizeof(hh));	/* 8-aligned: never split */
		if (off + hh.size > best->data_size) {
			perf_ring_copy(best, best->tail, copybuf, hh.size);
			h = (const struct perf_event_header *)copybuf;
		} else {
			h = (const struct perf_event_header *)(best->data + off);
		}
		ret = fn(arg, best, h);
		if (ret)
			break;
		best->tail += hh.size;
		best->live = ring_peek(best);
		total++;
	}
	for (i = 0; i < nr; i++)
		__atomic_store_n(&rings[i].meta->data_tail, rings[i].tail, __ATOMIC_RELEASE);
	return ret ? ret : total;
}
