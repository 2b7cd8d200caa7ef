/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcore.h - user-space harness for the kernel PMU core (kernel/pmi_core.c,
 * the Intel/AMD drivers, the MSR model): one emulated CPU with its model,
 * a fake NMI-safe clock, and a record sink standing in for the ring.
 * Implemented in kcore_support.c, which compiles the kernel files in.
 */
#ifndef PMIPROF_KCORE_H
#define PMIPROF_KCORE_H

/* The kernel types and helpers the kernel files need: before any kernel header. */
#include "kshim.h"
#include "../../kernel/pmu.h"
#include "../../kernel/msr_model.h"

struct kcore {
	struct pmu_model probe_model;	/* what probe() talks to */
	struct pmu_model model;		/* the CPU's MSR file */
	struct pmu_hw hw;
	struct pmu_cpu pc;
	u64 ip;				/* ip reported by the next PMI */
	bool user;			/* mode of the next PMI */
	bool guest;			/* the next PMI comes from KVM guest mode */
	bool user_compat;		/* the interrupted task's user context is 32-bit */
	u64 pmis_taken;
};

/* Record sink (pmiprof_emit).  kcore_emit_fail: drop every record (ring full). */
extern struct pmiprof_sample_rec *kcore_recs;
extern size_t kcore_nrecs;
extern bool kcore_emit_fail;
void kcore_reset_recs(void);

/* Fake clock: pmu_clock_ns() returns kcore_now_ns unless kcore_real_clock. */
extern u64 kcore_now_ns;
extern bool kcore_real_clock;

/* Model + hw + CPU, probed with the driver for spec->vendor. Returns probe()'s result. */
int kcore_setup(struct kcore *k, const struct pmu_model_spec *spec);
/* PMI mode, trigger = events[trig], period. Returns pmiprof_pmu_configure()'s result. */
int kcore_configure(struct kcore *k, const struct pmiprof_event *evs, u32 n, int trig,
		    u64 period);
int kcore_start(struct kcore *k);
void kcore_stop(struct kcore *k);
struct pmi_ctx kcore_ctx(const struct kcore *k);
/* Take every pending PMI: calls handle_pmi until the model has none. */
void kcore_take_pmis(struct kcore *k);
/*
 * Retire @instructions in steps of 1..max_step (a fixed LCG sequence), each
 * step taking step + step/2 cycles, the clock at 1 ns per instruction, and
 * PMIs taken after every step (the step's tail is the skid).
 */
void kcore_run(struct kcore *k, u64 instructions, u32 max_step, u32 seed);

/*
 * 1.2 call stacks.  With hw.stack_mode set, records go through the real
 * ring arithmetic (kernel/ring_core.c) into kcore_ring instead of
 * kcore_recs; kcore_ring_init() sizes it (first use: 1 MiB, variable).
 * User memory is a fake address space: kcore_umem bytes at kcore_umem_base,
 * reads at or past kcore_umem_fault fault (bytes before it are copied, as
 * copy_from_user_nmi does); each read advances the fake clock by
 * kcore_read_ns.  kcore_uregs[] are the user registers (perf order);
 * kcore_no_user: a kernel thread.  kcore_kframes: kernel return addresses.
 */
#include "../../kernel/ring_core.h"
extern u32 kcore_stack_mode, kcore_stack_max, kcore_stack_dump;	/* kcore_configure() */
extern struct ring_core kcore_ring;
void kcore_ring_init(u32 data_bytes, bool varlen);
extern u8 *kcore_umem;
extern u64 kcore_umem_base, kcore_umem_len, kcore_umem_fault;
extern u64 kcore_uregs[PMU_UREG_MAX];
extern bool kcore_no_user;
extern u64 kcore_read_ns;
extern u64 kcore_kframes[64];
extern u32 kcore_nkframes;
extern const struct pmu_stack_ops kcore_stack_ops;

/* Convenience events. */
struct pmiprof_event kcore_ev(u16 event, u8 umask, bool trigger, u64 period);

#endif /* PMIPROF_KCORE_H */
