/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The interface between the PMU core (PMI handler, Intel/AMD drivers,
 * MSR model, emulation, whitelist: pmi_core.c pmu_intel.c pmu_amd.c
 * msr_model.c pmu_emul.c pmu_whitelist.c) and the module glue (main.c,
 * chardev.c, ring.c, nmi.c, timer_mode.c, hotplug.c, coexist.c).
 *
 * Everything but pmu_emul.c also compiles in user space, so the handler is
 * tested against the MSR model without a kernel: the test build includes
 * its own shim of the few kernel types and helpers used (and
 * pmu_clock_ns()/pmu_udelay()) before this header; nothing here names it.
 * This header only grows: fields and functions are appended.
 *
 * Life cycle, as the glue drives it:
 *
 *   hw.ops = &pmiprof_pmu_native_msr_ops;
 *   hw.drv = pmiprof_pmu_driver_for_vendor(pmiprof_pmu_cpuid_vendor(&hw));
 *     (pmu=emul: pmiprof_pmu_emul_setup(&hw, vendor) sets both, on the MSR model)
 *   hw.drv->probe(&hw)                  once: CPUID and read-only MSRs, no writes
 *   pmiprof_pmu_reserve(&hw), then pmiprof_pmu_probe_cpu(pc)
 *                                       load (then pmiprof_pmu_release) and START, pinned
 *   pmiprof_pmu_configure(&hw, &cfg)    CONFIGURE ioctl: the only validation path
 *   drv->check_free(pc)                 per CPU: -EBUSY when EN bits are already set
 *   drv->start_cpu(pc)                  per CPU, IRQs off (on_each_cpu / cpuhp online)
 *   drv->handle_pmi(pc, &ctx)           NMI: returns how many PMIs it handled (0: not ours)
 *   pmiprof_pmu_sample_timer(pc, &ctx)  timer mode tick (hard irq)
 *   drv->stop_cpu(pc)                   per CPU, IRQs off (STOP / cpuhp offline / unload);
 *                                       a no-op on a CPU start_cpu() did not program
 *   pmiprof_pmu_release(&hw)            STOP / close: perf may use the PMU again
 *
 * The core never executes RDPMC: counters are read with RDMSR through ops->rd.
 */
#ifndef PMIPROF_PMU_H
#define PMIPROF_PMU_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/sched/clock.h>
#include <linux/string.h>
#include <linux/math64.h>
#include <linux/delay.h>
#include <linux/kprobes.h>

/* Monotonic ns clock usable in NMI context.  User-space tests provide their own. */
static inline u64 pmu_clock_ns(void)
{
	return local_clock();
}

/* Busy-wait (IRQs off, NMIs still delivered): AMD's wait for an in-flight PMI. */
static inline void pmu_udelay(unsigned long us)
{
	udelay(us);
}
#endif

#include <pmiprof/abi.h>

#define PMU_MAX_GP		8	/* GP counters the core drives */
#define PMU_MAX_FIXED		4	/* Intel fixed counters */
#define PMU_MAX_EVENTS		PMIPROF_ABI_MAX_EVENTS

/* Handler bounds and policy (docs/kernel-pmu-core.md, "The handler") */
#define PMU_MAX_LOOPS		8	/* status re-reads per PMI before "stuck" */
#define PMU_MIN_PERIOD		10000ull	/* floor against NMI storms */
#define PMU_DEFAULT_MAX_RATE	100000u	/* samples per second per CPU */
#define PMU_THROTTLE_SLICE_NS	10000000ull	/* rate is measured per slice of <= 10 ms */
#define PMU_AMD_NMI_WINDOW_NS	100000000ull	/* perf's perf_nmi_window: 100 ms */
#define PMU_NMI_CPU_PERCENT	25	/* handler share of CPU time: perf_cpu_time_max_percent */
#define PMU_UNPRIV_MAX_STACK	127	/* frames without CAP_PERFMON: perf_event_max_stack */
#define PMU_BUSY_REASON		"a PMU counter is already enabled by another user (NMI watchdog?)"
#define PMU_MIN_TIMER_NS	100000ull	/* timer mode: at most 10 kHz */
#define PMU_MAX_TIMER_NS	10000000000ull
#define PMU_AMD_OVERFLOW_WAIT	50	/* us: amd_pmu_wait_on_overflow() */
#define PMU_STOP_OVERFLOW_WAIT	PMU_AMD_OVERFLOW_WAIT	/* us: stop waits for an in-flight PMI */

/*
 * Architectural MSR numbers and bits (Intel SDM vol. 3B ch. 20, AMD PPR
 * "Performance Monitor Counters"; docs/kernel-pmu-core.md).  Own names so
 * the same code builds in user space, where <asm/msr-index.h> is absent.
 */
#define PMU_MSR_IA32_PMC0		0x0c1	/* legacy alias: 32-bit sign-extended writes */
#define PMU_MSR_IA32_A_PMC0		0x4c1	/* full width, needs PERF_CAPABILITIES[13] */
#define PMU_MSR_IA32_PERFEVTSEL0	0x186
#define PMU_MSR_IA32_FIXED_CTR0		0x309
#define PMU_MSR_IA32_PERF_CAPABILITIES	0x345
#define PMU_MSR_IA32_FIXED_CTR_CTRL	0x38d
#define PMU_MSR_IA32_GLOBAL_STATUS	0x38e
#define PMU_MSR_IA32_GLOBAL_CTRL	0x38f
#define PMU_MSR_IA32_GLOBAL_OVF_CTRL	0x390	/* a.k.a. GLOBAL_STATUS_RESET, W1C */
#define PMU_MSR_IA32_DEBUGCTL		0x1d9
#define PMU_MSR_TSX_FORCE_ABORT		0x10f	/* never written: PMC3 is avoided instead */
#define PMU_MSR_K7_EVNTSEL0		0xc0010000u
#define PMU_MSR_K7_PERFCTR0		0xc0010004u
#define PMU_MSR_F15H_PERF_CTL0		0xc0010200u	/* + 2i */
#define PMU_MSR_F15H_PERF_CTR0		0xc0010201u	/* + 2i */
#define PMU_MSR_AMD_GLOBAL_STATUS	0xc0000300u
#define PMU_MSR_AMD_GLOBAL_CTL		0xc0000301u
#define PMU_MSR_AMD_GLOBAL_STATUS_CLR	0xc0000302u
#define PMU_MSR_AMD_GLOBAL_STATUS_SET	0xc0000303u

#define PMU_EVTSEL_USR			BIT_ULL(16)
#define PMU_EVTSEL_OS			BIT_ULL(17)
#define PMU_EVTSEL_EDGE			BIT_ULL(18)
#define PMU_EVTSEL_PC			BIT_ULL(19)
#define PMU_EVTSEL_INT			BIT_ULL(20)
#define PMU_EVTSEL_ANY			BIT_ULL(21)
#define PMU_EVTSEL_EN			BIT_ULL(22)
#define PMU_EVTSEL_INV			BIT_ULL(23)
#define PMU_FIXED_OS			0x1ull
#define PMU_FIXED_USR			0x2ull
#define PMU_FIXED_ANY			0x4ull
#define PMU_FIXED_PMI			0x8ull
#define PMU_PERF_CAP_FW_WRITE		BIT_ULL(13)
#define PMU_DEBUGCTL_FREEZE_ON_PMI	BIT_ULL(12)
#define PMU_STATUS_CTR_FRZ		BIT_ULL(59)	/* v4 streamlined freeze */
#define PMU_APIC_DM_NMI			0x400u
#define PMU_APIC_LVT_MASKED		0x10000u

struct pmu_cpu;
struct pmu_hw;
struct pmi_ctx;

/*
 * MSR, APIC and CPUID indirection.  The native ops (real RDMSR/WRMSR,
 * apic->write, cpuid_count) are provided by the glue; the model ops by
 * msr_model.c.  rd/wr/lvtpc are used in NMI context and must not fault on
 * a probed PMU; rd_safe/wr_safe are for probing in process context and
 * return 0 or -EIO, and like cpuid they take the hw (model ops then use
 * hw->model_probe).  @pc is the CPU an access is for (always the current
 * CPU); native ops ignore it, model ops use pc->model.
 */
struct pmu_msr_ops {
	const char *name;
	u64 (*rd)(struct pmu_cpu *pc, u32 msr);
	void (*wr)(struct pmu_cpu *pc, u32 msr, u64 val);
	void (*lvtpc)(struct pmu_cpu *pc);	/* APIC_LVTPC = APIC_DM_NMI */
	int (*rd_safe)(struct pmu_hw *hw, u32 msr, u64 *val);
	int (*wr_safe)(struct pmu_hw *hw, u32 msr, u64 val);
	void (*cpuid)(struct pmu_hw *hw, u32 leaf, u32 sub, u32 *a, u32 *b, u32 *c, u32 *d);
	/*
	 * Counter @idx's reservation against perf (native: reserve_evntsel_nmi()
	 * and reserve_perfctr_nmi() on hw->evntsel_msr/perfctr_msr[idx]; the
	 * model counts them).  Process context.  0 or -EBUSY.
	 */
	int (*reserve)(struct pmu_hw *hw, u32 idx);
	void (*release)(struct pmu_hw *hw, u32 idx);
};

/* Where an event was placed. */
#define PMU_SLOT_GP		1
#define PMU_SLOT_FIXED		2

struct pmu_slot {
	u32 kind;		/* PMU_SLOT_* */
	u32 idx;		/* GP or fixed counter number */
	u32 ctr_msr;		/* counter MSR (read, and written on re-arm) */
	u32 ctl_msr;		/* EVENTSEL/PerfCtl (GP); FIXED_CTR_CTRL (fixed) */
	u64 ctl;		/* GP: whole control word; fixed: this counter's nibble, shifted */
	u64 status_bit;		/* its bit in GLOBAL_STATUS / GLOBAL_CTRL (0: no global regs) */
	u32 event;		/* as configured (for info/debug) */
	u32 flags;		/* PMIPROF_EV_* */
	u64 mask;		/* counter width mask */
	u64 top;		/* counter sign bit: clear after an armed counter wrapped */
};

/*
 * Probed PMU description + the validated configuration.  One per module
 * (the glue owns it); read-only for the handler once started.
 */
struct pmu_hw {
	const struct pmu_driver *drv;
	const struct pmu_msr_ops *ops;
	void *model_probe;		/* msr_model: the model used for probing */

	/* probe() results */
	u32 vendor;			/* PMIPROF_VENDOR_* */
	u32 version;			/* Intel arch perfmon; AMD: 1 core, 2 PerfMonV2 */
	u32 nr_gp, gp_width, nr_fixed, fixed_width;
	u32 family, model;
	u64 caps;			/* PMIPROF_CAP_* */
	u32 info_flags;			/* PMIPROF_INFO_F_* */
	bool emulated;
	bool full_width;		/* Intel PERF_CAPABILITIES[13]: write A_PMCx */
	bool global_regs;		/* Intel v2+ / AMD PerfMonV2 */
	bool perfctr_core;		/* AMD: 6 counters at 0xc0010200 */
	u32 arch_events_missing;	/* Intel CPUID.0AH EBX: bit set = event absent */
	u32 cpuid_a_eax, cpuid_a_edx;	/* Intel: compared on every CPU at start */
	u64 gp_mask, fixed_mask;	/* (1 << width) - 1 */
	u64 min_period, max_period;
	u32 evntsel_msr[PMU_MAX_GP];	/* legacy addresses for reserve_evntsel_nmi() */
	u32 perfctr_msr[PMU_MAX_GP];	/* legacy addresses for reserve_perfctr_nmi() */
	char name[32];			/* "intel-v4", "amd-v2", "emul-intel-v4"... */

	/* pmiprof_pmu_configure() results */
	bool configured;
	u32 mode;			/* PMIPROF_SAMPLING_* */
	u32 nr_events;
	int trigger;			/* index into slots[] of the trigger; -1 in timer mode */
	u64 period;
	u64 max_stretch;		/* throttle: max_period / period, set at configure */
	u64 timer_ns;
	u32 max_rate;			/* samples/s/CPU */
	bool kernel_ips;		/* caller was allowed PMIPROF_CFG_KERNEL_IPS */
	u64 own_mask;			/* GLOBAL_STATUS/CTRL bits of our counters */
	u64 fixed_ctrl;			/* Intel FIXED_CTR_CTRL value */
	struct pmu_slot slots[PMU_MAX_EVENTS];
	const char *reason;		/* why configure/probe failed, for the log */

	u32 nr_reserved;		/* counters reserved now (pmiprof_pmu_reserve()); 0: none */
	u32 probe_msr;			/* counter 0 for the write/read-back probe */
	u32 gp_avoid;			/* GP counters never used (PMC3 under TSX_FORCE_ABORT) */
	u32 uarch;			/* PMU_UARCH_*: which model-specific encodings apply */
	bool bigcore_events;		/* configured events exist only on big (Core) cores */

	/* 1.2 call stacks (stack.c): pmiprof_pmu_configure() results and the user-memory hooks */
	u32 stack_mode;			/* PMIPROF_STACK_*; NONE: fixed-size records */
	u32 stack_max;			/* frames per record, kernel + user */
	u32 stack_dump;			/* DWARF: user stack bytes per record */
	u32 stack_rec_max;		/* largest record the session can write */
	const struct pmu_stack_ops *stack_ops;	/* glue (stack_native.c) or a test double */
};

/* Intel model-specific event classes (pmu_whitelist.c); architectural events need none. */
#define PMU_UARCH_SKL_ICL	BIT(0)	/* Skylake .. Ice/Tiger/Rocket Lake big cores */
#define PMU_UARCH_SKL_GLC	BIT(1)	/* the above, plus Golden/Raptor/Redwood Cove */

/* Per-CPU state.  The glue allocates it (per-CPU data) and sets cpu/hw/ring. */
struct pmu_cpu {
	struct pmu_hw *hw;
	u32 cpu;
	void *ring;			/* glue-private (ring.c) */
	void *model;			/* struct pmu_model * when emulated */
	void *emul;			/* pmu_emul.c per-CPU state */

	bool armed;			/* counters programmed, PMIs expected */
	bool first;			/* next record is the first on this CPU */
	bool throttled;			/* the current window was stretched */
	u64 gctrl;			/* GLOBAL_CTRL value while running */
	u64 debugctl;			/* DEBUGCTL seen at start (bit 12 = freeze on PMI) */
	u64 ack_extra;			/* status bits we also ack (59 when frozen on PMI) */
	u64 prev[PMU_MAX_EVENTS];	/* counter values at the last window close */
	u64 left;			/* trigger: events left in the current period at arm */
	u64 slice_start_ns;
	u32 slice_samples;
	u64 last_handled_ns;		/* AMD NMI window */
	u64 stale;			/* status bits seen without a counter wrap */

	struct pmiprof_cpu_stats stats;

	u32 lvtpc_when;			/* PMU_LVTPC_*: when the handler unmasks LVTPC */
	/*
	 * start_cpu() programmed this CPU and stop_cpu() has not undone it yet.
	 * stop_cpu() touches nothing without it: a CPU refused by check_free()
	 * or never started keeps another agent's counters.  Not reset by
	 * pmiprof_pmu_cpu_reset_state(); only start_cpu/stop_cpu change it.
	 */
	bool started;
	u64 stretch;			/* throttle: period multiplier, carried across slices */
	struct pmiprof_stack_stats stack_stats;	/* 1.2: zeroed at START with stats */
	/*
	 * Per-task mode (pmu_task.c): a task's counters are being saved or
	 * restored on this CPU.  A PMI arriving meanwhile only acks; the
	 * switch code closes a wrapped trigger's window itself.
	 */
	bool switching;
	/*
	 * Per-task mode: the task whose counters are loaded here (init pid
	 * namespace ids; 0: none).  sched_switch loads the next task's counters
	 * before switch_to(), so for a moment `current` is still the task
	 * leaving: a window closed then is the loaded task's, but the
	 * interrupted registers and stack are not (see emit() in pmi_core.c).
	 */
	u32 task_pid, task_tid;
	/*
	 * NMI time budget (perf_sample_event_took()): a running mean of the
	 * handler's time (stack copies included) and the window rate that
	 * keeps it under PMU_NMI_CPU_PERCENT of the CPU (0: no limit yet);
	 * throttle() takes the lower of it and max_rate.  time_limited counts
	 * the windows stretched while that limit was the lower one.
	 */
	u64 nmi_avg_ns;
	u32 time_rate;
	u64 time_limited;
	/*
	 * Per-task mode on this CPU (set by the glue before start_cpu()).  A
	 * PMI window closed with no task loaded (between start_cpu() arming
	 * the counters and the per-task freeze) belongs to no followed task:
	 * dropped, counted in task_orphans.  Not cleared by
	 * pmiprof_pmu_cpu_reset_state(), which the drivers' start_cpu() runs.
	 */
	bool task_mode;
	u64 task_orphans;
	/*
	 * Why this CPU's START (check_free/start_cpu, on the CPU itself) failed:
	 * per CPU, as START's IPIs and CPU onlining run on several CPUs, never
	 * written to the shared hw->reason; the glue logs it with the CPU.
	 */
	const char *reason;
};

/*
 * When the PMI handler rewrites LVTPC (docs/kernel-pmu-core.md, "LVTPC
 * timing"): late, after the
 * re-enable (Haswell+ big cores, Tremont: avoids spurious PMIs); early, at
 * entry (older cores, AMD: generic x86 order); mid, after the ack and before
 * the re-enable (Gracemont E-cores).  Always exactly once, on every path.
 */
#define PMU_LVTPC_LATE		0
#define PMU_LVTPC_EARLY		1
#define PMU_LVTPC_MID		2

/*
 * PMI context, built by the caller (nmi.c / timer_mode.c / pmu_emul.c from
 * regs and current; tests synthesize it).  kernel_ip_ok: the reader may see
 * kernel RIPs (hw->kernel_ips); otherwise kernel IPs are zeroed and flagged.
 */
struct pmi_ctx {
	u64 ip;
	u64 time_ns;
	u32 pid, tid, cpu;
	bool user;
	bool kernel_ip_ok;
	bool guest;		/* the PMI came from guest mode (KVM): no ip, flagged GUEST */
	const void *regs;	/* 1.2: the interrupted struct pt_regs (NULL: none), for stacks */
	/*
	 * The interrupted context may not be shown: per-task mode, and either
	 * `current` is not the task whose counters run (pc->task_tid; the core
	 * decides) or the task became non-dumpable (a setuid exec; the glue
	 * decides).  The window is recorded with ip 0 and no registers or stack.
	 */
	bool no_context;
	/*
	 * The interrupted task's user context is 32-bit (compat: 4-byte
	 * frames, 32-bit registers): its user stack is not walked or copied.
	 */
	bool user_compat;
};

struct pmu_driver {
	const char *name;
	u32 vendor;
	int (*probe)(struct pmu_hw *hw);
	/* validates slots against the whitelist and assigns counters */
	int (*configure)(struct pmu_hw *hw, const struct pmiprof_config *cfg);
	int (*check_free)(struct pmu_cpu *pc);
	int (*start_cpu)(struct pmu_cpu *pc);
	void (*stop_cpu)(struct pmu_cpu *pc);
	int (*handle_pmi)(struct pmu_cpu *pc, const struct pmi_ctx *ctx);
	/* per-window deltas since the previous call (or start) into out[nr_events] */
	void (*read_counters)(struct pmu_cpu *pc, u64 *out);
	/*
	 * Per-task mode, optional (the emulation): bring the counters up to
	 * now (delivering due PMIs) before pmiprof_pmu_task_out() freezes them, and
	 * restart counting after pmiprof_pmu_task_in().  Return the instruction clock
	 * at that instant when one exists (emul_clock=icount: the TSC), else 0.
	 */
	u64 (*task_sync)(struct pmu_cpu *pc);
	u64 (*task_resume)(struct pmu_cpu *pc);
};

extern const struct pmu_driver pmiprof_pmu_intel_driver;
extern const struct pmu_driver pmiprof_pmu_amd_driver;
extern const struct pmu_msr_ops pmiprof_pmu_model_msr_ops;	/* msr_model.c */
extern const struct pmu_msr_ops pmiprof_pmu_native_msr_ops;	/* glue (main.c / compat.h) */

/* pmi_core.c */
const struct pmu_driver *pmiprof_pmu_driver_for_vendor(u32 vendor);
u32 pmiprof_pmu_cpuid_vendor(struct pmu_hw *hw);	/* PMIPROF_VENDOR_* from CPUID leaf 0 */
int pmiprof_pmu_configure(struct pmu_hw *hw, const struct pmiprof_config *cfg);
void pmiprof_pmu_fill_info(const struct pmu_hw *hw, struct pmiprof_info *info);
void pmiprof_pmu_cpu_reset_state(struct pmu_cpu *pc);	/* before start_cpu */
int pmiprof_pmu_sample_timer(struct pmu_cpu *pc, const struct pmi_ctx *ctx);
u64 pmiprof_pmu_rearm_left(u64 period, u64 overshoot);

/*
 * Output sink.  The glue implements it (ring.c); user-space tests collect
 * records.  Returns 0, or -ENOSPC when the record was dropped (the core
 * counts stats.lost; the ring counts its own header->lost).  NMI-safe.
 */
int pmiprof_emit(struct pmu_cpu *pc, const struct pmiprof_sample_rec *rec);

/*
 * Helpers the drivers share (pmi_core.c).  pmiprof_pmu_handle_global: the PMI
 * handler for PMUs with GLOBAL_STATUS/CTRL/ack registers (Intel v2+, AMD
 * PerfMonV2); pmiprof_pmu_handle_signbit: for PMUs without (AMD core/K7).
 */
struct pmu_gregs {
	u32 status, ctrl, ack;
};

int pmiprof_pmu_handle_global(struct pmu_cpu *pc, const struct pmi_ctx *ctx,
			      const struct pmu_gregs *g);
int pmiprof_pmu_handle_signbit(struct pmu_cpu *pc, const struct pmi_ctx *ctx);
void pmiprof_pmu_read_deltas(struct pmu_cpu *pc, u64 *out);
/* write initial counter values, set prev[] */
void pmiprof_pmu_arm_counters(struct pmu_cpu *pc);

/*
 * Load, START and CPU online, through pmiprof_pmu_probe_cpu() (perf's
 * check_hw_exists()): every counter of the PMU, not only the configured
 * ones, must have its enable bits clear (GP
 * EVENTSEL.EN, Intel FIXED_CTR_CTRL OS/USR bits).  perf's own counters are
 * excluded by the reservation before this runs, so a set bit belongs to
 * firmware, a hypervisor or a raw MSR user.  -EBUSY with @busy filled.
 */
struct pmu_busy {
	bool fixed;		/* fixed counter @idx, else GP counter @idx */
	u32 idx;
	u32 msr;		/* the control MSR found enabled */
	u64 val;		/* its value */
};

int pmiprof_pmu_check_idle(struct pmu_cpu *pc, struct pmu_busy *busy);

/*
 * Counter reservation, held only while a session runs (or for the length of
 * the load-time probe): perf's hardware events, KVM's vPMU and the
 * hard-lockup detector work while the module is merely loaded.  Every GP
 * counter is reserved; on -EBUSY *@idx names the one perf holds.
 */
int pmiprof_pmu_reserve(struct pmu_hw *hw, u32 *idx);
void pmiprof_pmu_release(struct pmu_hw *hw);

/*
 * On the CPU being probed (pinned: IPI or cpuhp callback), with the counters
 * reserved: every counter idle (pmiprof_pmu_check_idle()), then a write/read-back
 * of counter 0, as perf's check_hw_exists() (a hypervisor without a vPMU
 * reads 0 and drops writes).  0, -EBUSY (@res->busy), -ENODEV (read back
 * @res->got after writing @res->wrote), or -EIO (the MSR faults).
 */
struct pmu_probe_res {
	int err;
	u32 msr;
	u64 wrote, got;
	struct pmu_busy busy;
};

int pmiprof_pmu_probe_cpu(struct pmu_cpu *pc, struct pmu_probe_res *res);

/* Intel core type of the calling CPU (CPUID.1AH EAX[31:24]); 0 on non-hybrid parts. */
#define PMU_CORE_TYPE_ATOM	0x20
#define PMU_CORE_TYPE_CORE	0x40
u32 pmiprof_pmu_intel_core_type(struct pmu_hw *hw);
u32 pmiprof_pmu_intel_uarch(u32 family, u32 model);

/*
 * pmu_whitelist.c (docs/kernel-pmu-core.md, "Events").  0: allowed; 1:
 * allowed on big (Core) cores only; < 0: refused, @why says why.
 */
int pmiprof_pmu_whitelist_check(const struct pmu_hw *hw, const struct pmiprof_event *ev,
				const char **why);
u64 pmiprof_pmu_build_evtsel(const struct pmu_hw *hw, const struct pmiprof_event *ev, bool pmi);
u64 pmiprof_pmu_build_fixed_nibble(const struct pmiprof_event *ev, bool pmi);
int pmiprof_pmu_intel_fixed_index(const struct pmiprof_event *ev);	/* -1: GP only */
bool pmiprof_pmu_intel_fixed_only(const struct pmiprof_event *ev);

/*
 * pmu_emul.c (kernel only): pmu=emul.  pmiprof_pmu_emul_setup() allocates one MSR
 * model per possible CPU, sets hw->ops = &pmiprof_pmu_model_msr_ops and
 * hw->drv = the emulation wrapper around the Intel (or AMD) driver; the
 * glue then calls hw->drv->probe() etc. exactly as for real hardware.  The
 * wrapper's start_cpu/stop_cpu also start/stop the per-CPU hard-irq hrtimer
 * that advances the model and calls handle_pmi() when it raises a PMI.
 * pmiprof_pmu_emul_teardown() after stop_cpu ran on every CPU.
 * vendor: PMIPROF_VENDOR_INTEL or PMIPROF_VENDOR_AMD (0: module param emul_vendor).
 */
int pmiprof_pmu_emul_setup(struct pmu_hw *hw, u32 vendor);
void pmiprof_pmu_emul_teardown(struct pmu_hw *hw);

/*
 * 1.2: call stacks (stack.c, docs/kernel-pmu-core.md "Call stacks").
 * Records become variable-length: the sink reserves the largest record the
 * session can write, the core writes the stack part in place and commits
 * what it used.  The glue implements the sink on the ring (ring.c); the
 * tests on an in-memory ring.  NMI-safe.
 */
struct pmu_out {
	void *ring;		/* sink-private */
	u64 head;		/* stream position of the record */
	u64 tail;		/* consumer position seen at begin */
	u32 max;		/* bytes reserved */
};

/* 0, or -ENOSPC: no room for @max bytes (counted by the sink). */
int pmiprof_out_begin(struct pmu_cpu *pc, u32 max, struct pmu_out *o);
/* Pointer to byte @off of the reserved record and the bytes contiguous from there. */
u8 *pmiprof_out_ptr(struct pmu_out *o, u32 off, u32 *contig);
/* Publish @len bytes (0: nothing) and end the record begun. */
void pmiprof_out_commit(struct pmu_out *o, u32 len, u64 now_ns);

/* perf's x86-64 user register numbering (PERF_REG_X86_*), as the trace stores it */
#define PMU_UREG_BP		6
#define PMU_UREG_SP		7
#define PMU_UREG_IP		8
#define PMU_UREG_MAX		24

/*
 * Per-PMI bound of the user-memory walk (docs/kernel-pmu-core.md): at most
 * PMU_STACK_MAX_READS reads, and no new read once PMU_STACK_BUDGET_NS have
 * passed since the walk began (tested every PMU_STACK_CLOCK_EVERY reads).
 */
#define PMU_STACK_MAX_READS	128
#define PMU_STACK_BUDGET_NS	20000ull
#define PMU_STACK_CLOCK_EVERY	8

/*
 * How the core reaches user memory and the kernel stack.  Kernel:
 * stack_native.c (copy_from_user_nmi, task_pt_regs, the ORC unwinder);
 * tests: a fake address space.  All three run in NMI or hard-irq context.
 */
struct pmu_stack_ops {
	/*
	 * The interrupted task's user registers (perf order): out[i] for each
	 * bit i of @mask, in increasing i.  false: no user context (a kernel
	 * thread, or an NMI inside the kernel entry before pt_regs is saved).
	 */
	bool (*user_regs)(const struct pmi_ctx *ctx, u64 mask, u64 *out);
	/* Copy @n bytes from user address @src; returns the bytes NOT copied. */
	unsigned long (*read)(void *dst, u64 src, unsigned long n);
	/*
	 * Kernel return addresses of the interrupted kernel context, leaf
	 * first, the sampled ip excluded; @put is called once per frame, at
	 * most @max times.  NULL: kernel frames are not recorded.
	 */
	u32 (*kernel_stack)(const struct pmi_ctx *ctx, u32 max,
			    void (*put)(void *arg, u64 ip), void *arg);
};

/* pmiprof_pmu_configure()'s part for the 1.2 stack fields: 0 or -EINVAL (hw->reason). */
int pmiprof_pmu_stack_configure(struct pmu_hw *hw, const struct pmiprof_config *cfg);
/* The record with its stack part: 0 or -ENOSPC (dropped, counted by the sink). */
int pmiprof_pmu_stack_emit(struct pmu_cpu *pc, const struct pmi_ctx *ctx,
			   struct pmiprof_sample_rec *rec);

/*
 * pmu_task.c: per-task counters (docs/kernel-module.md, "Per-task
 * windows").  A task's counters are its own open window: the raw counter
 * values when it was switched out and the values its window started at
 * (so events left to the trigger's overflow = -ctr[trigger]).  On the
 * task's CPU with IRQs off (sched_switch, task exit, the START/STOP IPI):
 *
 *   pmiprof_pmu_task_init(hw, t)            fresh window: trigger at -period
 *   pmiprof_pmu_task_in(pc, t)              load t, unfreeze our counters
 *   pmiprof_pmu_task_out(pc, t, ctx)        freeze, close a window whose trigger
 *                                   wrapped (attributed to @ctx), save
 *   pmiprof_pmu_task_freeze(pc)             freeze with nothing loaded (START)
 *   pmiprof_pmu_task_partial(hw, t, counts) the open window's counts
 *
 * MSR accesses per switch: out 1 + n reads, in n + 1 writes (n events),
 * without global control registers n more (EVENTSEL enables).
 */
struct pmu_task_ctr {
	u64 ctr[PMU_MAX_EVENTS];	/* counter values at switch-out */
	u64 prev[PMU_MAX_EVENTS];	/* counter values at the window start */
	u64 left;			/* events in the current trigger period at its arm */
	u32 pid, tid;			/* the task's ids (glue), loaded into pc->task_pid/tid */
};

void pmiprof_pmu_task_init(const struct pmu_hw *hw, struct pmu_task_ctr *t);
void pmiprof_pmu_task_freeze(struct pmu_cpu *pc);
void pmiprof_pmu_task_in(struct pmu_cpu *pc, const struct pmu_task_ctr *t);
void pmiprof_pmu_task_out(struct pmu_cpu *pc, struct pmu_task_ctr *t, const struct pmi_ctx *ctx);
void pmiprof_pmu_task_partial(const struct pmu_hw *hw, const struct pmu_task_ctr *t, u64 *counts);
/* pmi_core.c: close the window of a trigger read wrapped (@vt) with counters frozen */
void pmiprof_pmu_close_overflow(struct pmu_cpu *pc, const struct pmi_ctx *ctx, u64 vt);

#endif /* PMIPROF_PMU_H */
