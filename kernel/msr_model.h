/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An in-memory model of the Intel architectural perfmon and
 * AMD core/PerfMonV2 MSR files, with their real semantics: width-limited
 * counters that wrap, legacy IA32_PMCx writes sign-extended from bit 31,
 * full-width writes only with PERF_CAPABILITIES[13] (else #GP), overflow
 * sets the GLOBAL_STATUS bit, write-1-to-clear OVF_CTRL / STATUS_CLR,
 * EVENTSEL.EN and GLOBAL_CTRL both gate counting, the PMI on overflow when
 * INT (or the fixed nibble's PMI bit) is set, Intel masking LVTPC when it
 * delivers one, and the v4 freeze-on-PMI.  It also answers CPUID.
 *
 * Events advance deterministically: the caller feeds instructions and
 * cycles (pmiprof_pmu_model_advance), other events are fixed fractions of the
 * instruction count.  Every access is counted by class so tests and the
 * benchmark can check the handler's MSR/APIC budget.  Pure C: compiled into
 * the module (pmu=emul) and into the user-space tests.
 */
#ifndef PMIPROF_MSR_MODEL_H
#define PMIPROF_MSR_MODEL_H

#include "pmu.h"

/* Access classes counted per model. */
enum pmu_model_acc {
	PMU_ACC_STATUS_RD,	/* GLOBAL_STATUS reads */
	PMU_ACC_CTR_RD,		/* counter reads */
	PMU_ACC_CTR_WR,		/* counter writes (re-arm) */
	PMU_ACC_ACK_WR,		/* OVF_CTRL / STATUS_CLR writes */
	PMU_ACC_GCTRL_WR,	/* GLOBAL_CTRL / GLOBAL_CTL writes */
	PMU_ACC_LVTPC_WR,	/* APIC LVTPC writes */
	PMU_ACC_CTL_WR,		/* EVENTSEL / PerfCtl / FIXED_CTR_CTRL writes */
	PMU_ACC_OTHER,		/* anything else (setup reads, GLOBAL_CTRL reads...) */
	PMU_ACC_NR
};

struct pmu_model_spec {
	u32 vendor;		/* PMIPROF_VENDOR_INTEL / _AMD */
	u32 version;		/* Intel arch perfmon version; AMD 1 = core, 2 = PerfMonV2 */
	u32 nr_gp;
	u32 nr_fixed;		/* Intel */
	u32 width;		/* counter bits, 48 */
	bool full_width;	/* Intel PERF_CAPABILITIES[13] */
	bool perfctr_core;	/* AMD: 6 counters at 0xc0010200 */
	bool hybrid_atom;	/* Intel: a hybrid part's E-core (CPUID.07H EDX[15], 1AH = Atom) */
	bool hybrid_core;	/* Intel: a hybrid part's P-core (CPUID.07H EDX[15], 1AH = Core) */
	bool tsx_force_abort;	/* Intel: CPUID.07H EDX[13], the TSX_FORCE_ABORT microcode */
	bool rtm_always_abort;	/* Intel: CPUID.07H EDX[11], TSX deprecated: PMC3 is safe */
	u32 family, model;
};

struct pmu_model {
	struct pmu_model_spec spec;
	u64 mask;

	u64 gp[PMU_MAX_GP];
	u64 ctl[PMU_MAX_GP];		/* EVENTSEL / PerfCtl */
	u64 fixed[PMU_MAX_FIXED];
	u64 fixed_ctrl;
	u64 global_ctrl;
	u64 global_status;
	u64 debugctl;
	u64 perf_caps;
	u32 lvtpc;

	bool user;			/* mode the workload runs in while advancing */
	u64 instructions, cycles;	/* totals fed so far */

	u32 pmi_pending;		/* PMIs raised, not yet taken by the caller */
	u64 pmis_raised;
	u64 pmis_masked;		/* overflows with INT set while LVTPC was masked */

	/* Fault injection, for the handler's defensive paths. */
	u64 stuck_bits;			/* status bits an ack does not clear */
	u32 status_lag;			/* status reads that miss a new overflow bit */
	u32 lag_left;
	u64 lagging_bits;
	bool tcg;			/* QEMU TCG: MSRs read 0, writes dropped, no #GP */

	/*
	 * perf's counter reservations (the model's reserve/release ops act on
	 * hw->model_probe).  @resv: the model whose reservations govern this
	 * CPU's GP registers (NULL: not checked); a write to a GP counter or
	 * control while its counter is not reserved counts in unreserved_wr.
	 */
	u32 reserved;			/* counters reserved by us */
	u32 perf_held;			/* counters perf holds: reserving them fails */
	u64 reservations, releases;	/* successful reserve / release calls */
	const struct pmu_model *resv;
	u64 unreserved_wr;
	u64 tfa;			/* MSR_TSX_FORCE_ABORT */
	u64 pmc3_unsafe;		/* PMC3 on under TSX_FORCE_ABORT, RTM_FORCE_ABORT clear */

	u64 acc[PMU_ACC_NR];
	u8 order[32];			/* classes of the first accesses since reset_acc */
	u32 norder;
	u64 faults;			/* #GP a real CPU would raise */
	u32 last_fault_msr;
};

void pmiprof_pmu_model_init(struct pmu_model *m, const struct pmu_model_spec *spec);
void pmiprof_pmu_model_spec_default(struct pmu_model_spec *spec, u32 vendor);
/* Retire @instructions taking @cycles; raises pmi_pending on overflow. */
void pmiprof_pmu_model_advance(struct pmu_model *m, u64 instructions, u64 cycles);
/*
 * Advance by a late tick's worth, at most @step instructions at a time
 * (cycles shared out in proportion), calling @deliver after each step that
 * left a PMI pending, so every overflow gets its own PMI as on hardware.
 * After @max_steps steps the rest goes in one (a merged window).
 */
void pmiprof_pmu_model_run(struct pmu_model *m, u64 instructions, u64 cycles, u64 step,
			   u32 max_steps, void (*deliver)(void *arg), void *arg);
u64 pmiprof_pmu_model_rdmsr(struct pmu_model *m, u32 msr);
void pmiprof_pmu_model_wrmsr(struct pmu_model *m, u32 msr, u64 val);
void pmiprof_pmu_model_lvtpc(struct pmu_model *m);
void pmiprof_pmu_model_cpuid(const struct pmu_model *m, u32 leaf, u32 sub,
			     u32 *a, u32 *b, u32 *c, u32 *d);
void pmiprof_pmu_model_reset_acc(struct pmu_model *m);
u64 pmiprof_pmu_model_acc_total(const struct pmu_model *m);
/* Status bits set by a foreign agent (an overflow that is not ours). */
void pmiprof_pmu_model_set_status(struct pmu_model *m, u64 bits);

#endif /* PMIPROF_MSR_MODEL_H */
