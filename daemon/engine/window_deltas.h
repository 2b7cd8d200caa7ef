/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-window counts from running totals.  perf's PERF_SAMPLE_READ gives each
 * group member's running total for one event instance (a thread on one CPU
 * with inherit, or a CPU system-wide); a window's counts are the difference
 * to the previous sample of the same instance.  This is a small open-
 * addressing map from instance key to the last totals.
 */
#ifndef PMIPROF_DAEMON_WINDOW_DELTAS_H
#define PMIPROF_DAEMON_WINDOW_DELTAS_H

#include <stddef.h>
#include <stdint.h>

struct window_deltas {
	unsigned int nr;		/* counters per sample */
	size_t cap;			/* slots, power of two */
	size_t used;
	uint64_t *keys;			/* key + 1; 0 = empty slot */
	uint64_t *vals;			/* cap * nr last totals */
	uint64_t *gens;			/* cap loss generations at the last sample */
};

/* window_deltas_update_gen() result bits */
#define WINDOW_FIRST		1	/* first window of the instance: out = totals */
#define WINDOW_AFTER_LOSS	2	/* the generation changed since its last window */

/* Instance keys: thread on a CPU (per-task), or CPU (system-wide). */
static inline uint64_t window_key_task(uint32_t tid, uint32_t cpu)
{
	return ((uint64_t)cpu << 32) | tid;
}

static inline uint64_t window_key_cpu(uint32_t cpu)
{
	return (1ull << 63) | cpu;
}

int window_deltas_init(struct window_deltas *d, unsigned int nr);
/*
 * out[i] = totals[i] - previous totals of key.  Returns 1 when this is the
 * first window of the instance (out = totals: counted from zero), 0
 * otherwise, -ENOMEM.  A total that went backwards means a new instance
 * reusing the key (tid reuse) and is treated as a first window too.
 */
int window_deltas_update(struct window_deltas *d, uint64_t key, const uint64_t *totals,
			 uint64_t *out);
/*
 * Same, and compares gen (the loss generation of the instance's CPU: bumped
 * at every lost or throttled stretch) with the one stored at the instance's
 * previous window.  Returns WINDOW_* bits or -ENOMEM.
 */
int window_deltas_update_gen(struct window_deltas *d, uint64_t key, const uint64_t *totals,
			     uint64_t *out, uint64_t gen);
/* Forget an instance (its next sample is a first window again). */
void window_deltas_forget(struct window_deltas *d, uint64_t key);
void window_deltas_free(struct window_deltas *d);

#endif /* PMIPROF_DAEMON_WINDOW_DELTAS_H */
