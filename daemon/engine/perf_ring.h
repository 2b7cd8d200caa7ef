/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf mmap rings: mapping one per CPU and draining them merged by time.
 *
 * Each ring is in time order, but a process's MMAP/COMM can sit in another
 * CPU's ring than its first samples, and a record can become visible in one
 * ring just after that ring's head was read while newer records of other
 * rings are already taken.  perf_rings_drain() therefore merges all rings by
 * time and holds back every record newer than a watermark below which no
 * ring can still publish anything (perf's finished-round rule): records
 * above it stay in their ring for the next drain.
 */
#ifndef PMIPROF_DAEMON_PERF_RING_H
#define PMIPROF_DAEMON_PERF_RING_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct perf_ring {
	int cpu;
	int fd;				/* fd the ring is mmapped on (a leader) */
	void *base;
	struct perf_event_mmap_page *meta;
	char *data;
	uint64_t data_size;
	/* drain cursor: records in [tail, head) are pending, the next one at next_time */
	uint64_t tail, head;
	uint64_t next_time;
	bool live;			/* a complete record is pending at tail */
};

/* mmap 1 + pages pages of fd; 0 or -errno (message printed). */
int perf_ring_map(struct perf_ring *r, int fd, int cpu, unsigned int pages, size_t page_size);
void perf_ring_unmap(struct perf_ring *r, size_t page_size);

/*
 * How long a record may take from its timestamp to its publication in the
 * ring (the kernel stamps side-band records before it reserves ring space).
 */
#define PERF_RING_PUBLISH_SLACK_NS	5000000ull

/* Called for each record in merged time order; h is contiguous. <0 stops. */
typedef int (*perf_record_fn)(void *arg, struct perf_ring *r,
			      const struct perf_event_header *h);

/*
 * Take every pending record with time <= watermark from the rings, in time
 * order, and hand it to fn; advance the rings' tails past what fn accepted.
 * now = CLOCK_MONOTONIC read before the heads, or UINT64_MAX for the final
 * drain (everything goes).  copybuf holds a record that wraps around the
 * ring end (PERF_RING_COPYBUF bytes).  Returns the number of records taken
 * or fn's error.
 */
#define PERF_RING_COPYBUF	65536
int perf_rings_drain(struct perf_ring *rings, unsigned int nr, uint64_t now, char *copybuf,
		     perf_record_fn fn, void *arg);

/* Copy len bytes at ring position pos, across the end of the data area. */
void perf_ring_copy(const struct perf_ring *r, uint64_t pos, void *dst, size_t len);

#endif /* PMIPROF_DAEMON_PERF_RING_H */
