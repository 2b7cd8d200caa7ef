/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pure arithmetic of pmu=emul emul_clock=icount, shared
 * by pmu_emul.c and tests/unit/test_emul_icount.c (no kernel calls).
 *
 * Under QEMU -icount shift=0 the guest TSC is QEMU's virtual clock, which
 * advances exactly one tick per executed guest instruction (and jumps over
 * halted time with sleep=off).  The emulated instructions counter is fed
 * from TSC deltas; the PMI is a one-shot timer armed for the instant the
 * trigger counter reaches the period.  Everything the deadline needs is the
 * trigger's counter value: "events left to overflow" is -counter, so a
 * counter frozen (idle, or later per task) and restored later keeps its
 * exact deadline with no other state to save.
 */
#ifndef PMIPROF_EMUL_ICOUNT_H
#define PMIPROF_EMUL_ICOUNT_H

#include "msr_model.h"

/*
 * Events until a counter that counts up through @mask (armed at -left)
 * wraps.  A counter sitting at 0 has just wrapped: a whole turn is left.
 */
static inline u64 emul_icount_events_left(u64 ctr, u64 mask)
{
	u64 left = (0 - ctr) & mask;

	return left ? left : mask + 1;
}

/*
 * Nanoseconds of CLOCK_MONOTONIC until @events more instructions retire,
 * with the TSC (one tick per instruction) at @tsc_khz: rounded up, so the
 * timer never fires before the overflow; an early fire would only cost a
 * re-arm, a late one is skid.  No intermediate overflows; a result beyond
 * 2^64 ns (585 years) saturates.
 */
static inline u64 emul_icount_events_to_ns(u64 events, u32 tsc_khz)
{
	u64 q, r;

	if (!tsc_khz)
		return events;
	q = div64_u64(events, tsc_khz);
	r = events - q * tsc_khz;
	if (q >= div64_u64(~0ull, 1000000ull))
		return ~0ull;
	return q * 1000000ull + div64_u64(r * 1000000ull + tsc_khz - 1, tsc_khz);
}

/* The instruction clock: TSC ticks since the last take, none while frozen. */
struct emul_icount_clock {
	u64 last;		/* TSC at the last take (or thaw) */
	bool frozen;		/* idle (halted): the TSC runs, nothing retires */
};

static inline u64 emul_icount_take(struct emul_icount_clock *c, u64 tsc)
{
	u64 d = c->frozen || (s64)(tsc - c->last) < 0 ? 0 : tsc - c->last;

	c->last = tsc;
	return d;
}

/* Stop counting at @tsc; returns what retired up to then (to feed first). */
static inline u64 emul_icount_freeze(struct emul_icount_clock *c, u64 tsc)
{
	u64 d = emul_icount_take(c, tsc);

	c->frozen = true;
	return d;
}

static inline void emul_icount_thaw(struct emul_icount_clock *c, u64 tsc)
{
	c->last = tsc;
	c->frozen = false;
}

/*
 * Feed @di instructions (and as many cycles: IPC 1 under icount) to @m, cut
 * exactly where the trigger counter (@trig_msr, 0: none) wraps, calling
 * @deliver after each cut that raised a PMI.  So every window closes on the
 * exact overflow instruction count, however late the timer came, and the
 * late part (the skid) is counted into the next window.  After @max_steps
 * cuts the rest goes in one piece (a merged window, as the tick mode does).
 */
static inline void emul_icount_run(struct pmu_model *m, u64 di, u32 trig_msr, u32 max_steps,
				   void (*deliver)(void *arg), void *arg)
{
	u32 n = 0;

	while (di) {
		u64 s = di;

		if (trig_msr && ++n < max_steps) {
			u64 left = emul_icount_events_left(pmiprof_pmu_model_rdmsr(m, trig_msr),
							   m->mask);

			if (left < s)
				s = left;
		}
		pmiprof_pmu_model_advance(m, s, s);
		di -= s;
		if (m->pmi_pending && deliver)
			deliver(arg);
	}
}

/*
 * Loop lengths of the load-time check: a loop of n "dec; jnz" iterations
 * between two RDTSCs reads 2n + c ticks under icount shift=0, so two
 * lengths differ by exactly twice their difference.  Nothing else (a
 * host-clock TSC, bare metal at whatever IPC) gives that exact figure.
 */
#define EMUL_ICOUNT_PROBE_SHORT		10000u
#define EMUL_ICOUNT_PROBE_LONG		30000u

static inline bool emul_icount_probe_ok(u64 short_ticks, u64 long_ticks)
{
	return long_ticks - short_ticks ==
		2ull * (EMUL_ICOUNT_PROBE_LONG - EMUL_ICOUNT_PROBE_SHORT);
}

#endif /* PMIPROF_EMUL_ICOUNT_H */
