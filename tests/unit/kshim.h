/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kshim.h - the few kernel types and helpers that the kernel-independent
 * PMU core files (kernel/pmi_core.c, pmu_intel.c, pmu_amd.c, msr_model.c,
 * pmu_whitelist.c) use, so they compile unchanged in user space and are
 * tested against the MSR model without a kernel.  Included by kcore.h
 * before any kernel header (kernel/ names no test file).  Only
 * what those files use is here: a new kernel helper there needs a line here.
 */
#ifndef PMIPROF_KSHIM_H
#define PMIPROF_KSHIM_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <linux/types.h>

typedef int8_t s8;
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

#ifndef BIT
#define BIT(n)			(1ul << (n))
#endif
#define BIT_ULL(n)		(1ull << (n))
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define fallthrough		__attribute__((fallthrough))
#define scnprintf		snprintf

/* kprobes do not exist here; the kernel marks the NMI path with it. */
#define NOKPROBE_SYMBOL(fname)	_Static_assert(1, #fname)

/* Single-copy accesses shared with the NMI handler. */
#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))
#define barrier()		__asm__ __volatile__("" ::: "memory")

/* Ring ordering (ring_core.c): the same acquire/release the kernel uses. */
/*
 * kshim_sync_hook, when a test sets it, runs before every acquire/release
 * access: the test runs another context's step there (test_ring_reset
 * interleaves a ring reset at every point of a CONSUME and back).
 */
extern void (*kshim_sync_hook)(const volatile void *p);
static inline void kshim_sync(const volatile void *p)
{
	if (kshim_sync_hook)
		kshim_sync_hook(p);
}

#define smp_load_acquire(p)	(kshim_sync(p), __atomic_load_n((p), __ATOMIC_ACQUIRE))
#define smp_store_release(p, v)	(kshim_sync(p), __atomic_store_n((p), (v), __ATOMIC_RELEASE))
#define min_t(t, a, b)		((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define clamp_t(t, v, lo, hi)	((t)(v) < (t)(lo) ? (t)(lo) : (t)(v) > (t)(hi) ? (t)(hi) : (t)(v))
#define hweight64(x)		((unsigned int)__builtin_popcountll(x))

static inline u64 div64_u64(u64 a, u64 b)
{
	return a / b;
}

/* The NMI-safe clock; tests provide it (kcore_support.c) and can steer it. */
u64 pmu_clock_ns(void);

/* Nothing runs concurrently in the tests: a delay has nothing to wait for. */
static inline void pmu_udelay(unsigned long us)
{
	(void)us;
}

#endif /* PMIPROF_KSHIM_H */
