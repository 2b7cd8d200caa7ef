/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kshim.h - the few kernel types and helpers that the kernel-independent
 * PMU core files (kernel/pmi_core.c, pmu_intel.c, pmu_amd.c, msr_model.c,
 * pmu_whitelist.c) use, so they compile unchanged in user space and are
 * tested against the MSR model without a kernel.  Included by kernel/pmu.h
 * when __KERNEL__ is not defined; nothing else should include it.
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
#define GENMASK_ULL(h, l)	((~0ull >> (63 - (h))) & (~0ull << (l)))
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#ifndef __always_inline
#define __always_inline		inline __attribute__((always_inline))
#endif
#define noinstr
#define NOKPROBE_SYMBOL(fn)
#define EXPORT_SYMBOL_GPL(sym)
#define static_assert(c, m)	_Static_assert(c, m)
#define fallthrough		__attribute__((fallthrough))

static inline unsigned int hweight64(u64 w)
{
	return (unsigned int)__builtin_popcountll(w);
}

static inline unsigned long __ffs64(u64 w)
{
	return (unsigned long)__builtin_ctzll(w);
}

static inline u64 div64_u64(u64 a, u64 b)
{
	return a / b;
}

static inline u64 div64_u64_rem(u64 a, u64 b, u64 *rem)
{
	*rem = a % b;
	return a / b;
}

/* Kernel log levels: tests keep quiet unless PMIPROF_KSHIM_LOG is set. */
void kshim_log(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define pr_info(...)		kshim_log("info", __VA_ARGS__)
#define pr_warn(...)		kshim_log("warn", __VA_ARGS__)
#define pr_err(...)		kshim_log("err", __VA_ARGS__)
#define pr_debug(...)		kshim_log("debug", __VA_ARGS__)

/* The NMI-safe clock; tests provide it (kcore_support.c) and can steer it. */
u64 pmu_clock_ns(void);

/* Nothing runs concurrently in the tests: a delay has nothing to wait for. */
static inline void pmu_udelay(unsigned long us)
{
	(void)us;
}

#define scnprintf		snprintf

#endif /* PMIPROF_KSHIM_H */
