/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Region timestamps from the TSC instead of clock_gettime (docs/regions.md
 * "Clock").  A vDSO clock_gettime costs ~40 ns here and a region needs two;
 * a plain rdtsc costs ~15 ns.  The TSC is used only when the kernel's own
 * clocksource is "tsc": CLOCK_MONOTONIC is then a linear function of it
 * (mult/shift, slewed by NTP), synchronised across CPUs by the kernel.
 *
 * Ticks become CLOCK_MONOTONIC ns through anchors: a clock_gettime
 * bracketed by two rdtsc, the anchor's tick being their midpoint (its error
 * at most half the bracket, ~25 ns here).  Between anchors a tick count is
 * converted with a slope measured over a long span (since the process or
 * the pmiprof command started), so the slope's own error shrinks as the
 * run goes on; re-anchoring every PMR_REANCHOR_TICKS bounds what an NTP
 * slew (at most 500 ppm) can add.
 *
 * rdtsc is not ordered here (no lfence, no rdtscp: each doubles its cost on
 * this machine): it may be executed a few dozen instructions early or late,
 * an error of the order of the out-of-order window that the empty-region
 * subtraction removes on average, not per call.
 */
#ifndef PMIPROF_REGION_CLOCK_H
#define PMIPROF_REGION_CLOCK_H

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PMR_REANCHOR_TICKS	(1ull << 18)	/* ~100 us at 2.6 GHz */
#define PMR_SLOPE_MIN_TICKS	(1ull << 21)	/* slope used once the span is ~1 ms */

static inline uint64_t pmr_ticks(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return (uint64_t)hi << 32 | lo;
}

static inline uint64_t pmr_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);	/* vDSO: no syscall */
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct pmr_anchor {
	uint64_t tsc, ns;
	uint64_t err_ticks;		/* half the rdtsc bracket */
};

/* The narrowest of three brackets: a preemption inside one is discarded. */
static inline void pmr_anchor_take(struct pmr_anchor *a)
{
	unsigned int i;

	a->err_ticks = UINT64_MAX;
	for (i = 0; i < 3; i++) {
		uint64_t t0 = pmr_ticks(), ns = pmr_mono_ns(), t1 = pmr_ticks();

		if ((t1 - t0) / 2 < a->err_ticks) {
			a->tsc = t0 + (t1 - t0) / 2;
			a->ns = ns;
			a->err_ticks = (t1 - t0) / 2;
		}
	}
}

/*
 * ns per tick as a 32.32 fixed-point multiplier from two anchors, 0 when
 * the span is too short to trust (or the clocks went backwards).
 */
static inline uint64_t pmr_slope(const struct pmr_anchor *a, const struct pmr_anchor *b)
{
	uint64_t dt = b->tsc - a->tsc;

	if (b->tsc <= a->tsc || b->ns <= a->ns || dt < PMR_SLOPE_MIN_TICKS)
		return 0;
	return (uint64_t)(((unsigned __int128)(b->ns - a->ns) << 32) / dt);
}

/* ns of tick count c, c at or after anchor a, with slope mult. */
static inline uint64_t pmr_ticks_to_ns(const struct pmr_anchor *a, uint64_t mult, uint64_t c)
{
	return a->ns + (uint64_t)(((unsigned __int128)(c - a->tsc) * mult) >> 32);
}

/* true when the kernel's clocksource is the TSC (see the file comment). */
static inline bool pmr_tsc_usable(void)
{
#if defined(__x86_64__) || defined(__i386__)
	char buf[16] = "";
	int fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		      O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n >= 3 && !strncmp(buf, "tsc\n", 4);
#else
	return false;
#endif
}

#endif /* PMIPROF_REGION_CLOCK_H */
