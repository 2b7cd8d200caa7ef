/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every kernel API difference between 6.1 and 6.18 that pmiprof
 * touches, in one place.  The .c files call only the pmiprof_* wrappers
 * below and never test the kernel version themselves.
 *
 *   - MSR accessors: rdmsrl/wrmsrl and the *_safe variants were renamed
 *     rdmsrq/wrmsrq in 6.16; 6.18 keeps compat macros for the plain ones
 *     only, so the _safe ones must be picked by version.
 *   - RDPMC: rdpmc()/rdpmcl() changed shape in 6.18 and native_read_pmc()
 *     is being renamed; pmiprof reads counters with RDMSR only, so there
 *     is no wrapper (RDPMC also raises #UD under QEMU TCG).
 *   - LVTPC: apic_write() is a static_call from 6.6 whose trampoline is
 *     not exported to modules; apic->write() works on every version.
 *   - hrtimer_init() is gone by 6.18; hrtimer_setup() appeared in 6.13.
 *   - vm_flags became read-only for drivers in 6.3 (vm_flags_clear()).
 *   - syscore callbacks changed signature (struct syscore, 6.19, and
 *     backported to Debian's 6.12.y): suspend uses PM notifiers instead.
 *   - cpuid_count() moved from <asm/processor.h> to <asm/cpuid/api.h>
 *     (6.16 CPUID header split); picked by __has_include.
 *   - sched tracepoint probes (task.c) are registered untyped; each is
 *     type-checked here against the kernel's declaration, and
 *     sched_process_exit's (p) vs (p, group_dead) is picked by that type.
 */
#ifndef PMIPROF_COMPAT_H
#define PMIPROF_COMPAT_H

/*
 * The target kernel's version, from kbuild's own VERSION and PATCHLEVEL
 * (Kbuild passes them): the same numbers as <linux/version.h>, for the
 * three API changes below that have no feature macro to test.
 */
#define PMIPROF_KERNEL_AT_LEAST(major, minor) \
	(PMIPROF_KV_MAJOR * 256 + PMIPROF_KV_MINOR >= (major) * 256 + (minor))

#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <asm/apic.h>
#include <asm/msr.h>
#if __has_include("asm/cpuid/api.h")
#include <asm/cpuid/api.h>
#else
#include <asm/processor.h>
#endif

#if PMIPROF_KERNEL_AT_LEAST(6, 16)
#define pmiprof_native_rdmsr(msr, val)		rdmsrq((msr), (val))
#define pmiprof_native_wrmsr(msr, val)		wrmsrq((msr), (val))
#define pmiprof_native_rdmsr_safe(msr, p)	rdmsrq_safe((msr), (p))
#define pmiprof_native_wrmsr_safe(msr, val)	wrmsrq_safe((msr), (val))
#else
#define pmiprof_native_rdmsr(msr, val)		rdmsrl((msr), (val))
#define pmiprof_native_wrmsr(msr, val)		wrmsrl((msr), (val))
#define pmiprof_native_rdmsr_safe(msr, p)	rdmsrl_safe((msr), (p))
#define pmiprof_native_wrmsr_safe(msr, val)	wrmsrl_safe((msr), (val))
#endif

static __always_inline u64 pmiprof_rdmsr(u32 msr)
{
	u64 val;

	pmiprof_native_rdmsr(msr, val);
	return val;
}

static __always_inline void pmiprof_wrmsr(u32 msr, u64 val)
{
	pmiprof_native_wrmsr(msr, val);
}

/* Returns 0 or -EIO; *val is 0 on failure.  Setup/probe time only. */
static inline int pmiprof_rdmsr_safe(u32 msr, u64 *val)
{
	unsigned long long v = 0;
	int err = pmiprof_native_rdmsr_safe(msr, &v);

	*val = err ? 0 : v;
	return err ? -EIO : 0;
}

static inline int pmiprof_wrmsr_safe(u32 msr, u64 val)
{
	return pmiprof_native_wrmsr_safe(msr, val) ? -EIO : 0;
}

/* Rewrite the whole LVT performance-counter entry: NMI delivery, unmasked. */
static __always_inline void pmiprof_lvtpc_nmi(void)
{
	apic->write(APIC_LVTPC, APIC_DM_NMI);
}

#if PMIPROF_KERNEL_AT_LEAST(6, 13)
static inline void pmiprof_hrtimer_setup(struct hrtimer *timer,
					 enum hrtimer_restart (*fn)(struct hrtimer *),
					 clockid_t clock, enum hrtimer_mode mode)
{
	hrtimer_setup(timer, fn, clock, mode);
}
#else
static inline void pmiprof_hrtimer_setup(struct hrtimer *timer,
					 enum hrtimer_restart (*fn)(struct hrtimer *),
					 clockid_t clock, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
}
#endif

#if PMIPROF_KERNEL_AT_LEAST(6, 3)
static inline void pmiprof_vm_flags_mod(struct vm_area_struct *vma, vm_flags_t set,
					vm_flags_t clear)
{
	vm_flags_mod(vma, set, clear);
}
#else
static inline void pmiprof_vm_flags_mod(struct vm_area_struct *vma, vm_flags_t set,
					vm_flags_t clear)
{
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
}
#endif

/*
 * The sched tracepoints are not exported, so task.c finds them with
 * for_each_kernel_tracepoint() and calls tracepoint_probe_register(),
 * which takes any pointer.  register_trace_<name>() in <trace/events/sched.h>
 * carries the probe's exact type: naming it inside sizeof type-checks a
 * probe without referencing the unexported tracepoint.  A prototype this
 * code does not know (-Werror=incompatible-pointer-types, kbuild's
 * default) fails the build: the module never calls a probe with the wrong
 * arguments, which kCFI/FineIBT would trap.
 */
#include <trace/events/sched.h>

#define PMIPROF_TP_CHECK(tp, probe) \
	static_assert(sizeof(register_trace_##tp((probe), NULL)) == sizeof(int))

/* sched_process_exit(p) up to 6.15, (p, group_dead) on newer kernels. */
#define PMIPROF_TP_EXIT_GROUP_DEAD \
	__builtin_types_compatible_p(typeof(register_trace_sched_process_exit), \
				     int(void (*)(void *, struct task_struct *, bool), void *))

#endif /* PMIPROF_COMPAT_H */
