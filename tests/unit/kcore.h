/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcore.h - user-space harness for the kernel PMU core (kernel/pmi_core.c,
 * the Intel/AMD drivers, the MSR model): one emulated CPU with its model,
 * a fake NMI-safe clock, and a record sink standing in for the ring.
 * Implemented in kcore_support.c, which compiles the kernel files in.
 */
#ifndef PMIPROF_KCORE_H
#define PMIPROF_KCORE_H

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
/* PMI mode, trigger = events[trig], period. Returns pmu_configure()'s result. */
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

/* Convenience events. */
struct pmiprof_event kcore_ev(u16 event, u8 umask, bool trigger, u64 period);

#endif /* PMIPROF_KCORE_H */
