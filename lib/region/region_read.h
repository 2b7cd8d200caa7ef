/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a self-monitoring perf counter from user space through its mmap
 * page (include/uapi/linux/perf_event.h, "self-monitoring"): the kernel
 * bumps page->lock around every update of the page, so a reader takes the
 * sequence number, reads index/offset/pmc_width and the counter, and
 * retries if the number changed (the thread was scheduled out or the
 * counter moved meanwhile).  The raw counter is pmc_width bits wide and is
 * sign-extended before being added to offset (the kernel starts counters
 * at -period, so the high bits are the sign).  lfence before rdpmc keeps
 * the read from being executed ahead of the measured code (rdpmc is not
 * serialising).
 *
 * The rdpmc instruction is a parameter so that the protocol is tested on
 * a simulated page (tests/unit/test_region_read.c); the library passes
 * pmr_rdpmc, and the call is inlined.
 */
#ifndef PMIPROF_REGION_READ_H
#define PMIPROF_REGION_READ_H

#include <errno.h>
#include <stdint.h>
#include <linux/perf_event.h>

#define PMR_READ_MAX_TRIES	1000	/* a page that never settles: give up, use read() */

typedef uint64_t (*pmr_rdpmc_fn)(uint32_t counter, void *arg);

static inline uint64_t pmr_rdpmc(uint32_t counter, void *arg)
{
	uint32_t lo, hi;

	(void)arg;
	__asm__ __volatile__("lfence; rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter) : "memory");
	return (uint64_t)hi << 32 | lo;
}

/* pmc_width-bit raw counter value, sign-extended to 64 bits. */
static inline int64_t pmr_sign_extend(uint64_t pmc, uint16_t width)
{
	if (width == 0 || width >= 64)
		return (int64_t)pmc;
	return (int64_t)(pmc << (64 - width)) >> (64 - width);
}

/*
 * The counter's value now.  0, or -EOPNOTSUPP when user-space reading is
 * not allowed for it at this moment (cap_user_rdpmc clear, index 0: a
 * software event, or the counter is not on the PMU right now), or -EAGAIN
 * when the page kept changing: then the caller read()s the fd.
 */
static inline int pmr_mmap_read(volatile struct perf_event_mmap_page *pg, pmr_rdpmc_fn rdpmc,
				void *arg, uint64_t *value)
{
	unsigned int tries;

	for (tries = 0; tries < PMR_READ_MAX_TRIES; tries++) {
		uint32_t seq = pg->lock, idx;
		uint64_t count;

		__asm__ __volatile__("" ::: "memory");
		idx = pg->index;
		count = pg->offset;
		if (!pg->cap_user_rdpmc || !idx)
			return -EOPNOTSUPP;
		count += (uint64_t)pmr_sign_extend(rdpmc(idx - 1, arg), pg->pmc_width);
		__asm__ __volatile__("" ::: "memory");
		if (pg->lock == seq) {
			*value = count;
			return 0;
		}
	}
	return -EAGAIN;
}

#endif /* PMIPROF_REGION_READ_H */
