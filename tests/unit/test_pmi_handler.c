// SPDX-License-Identifier: GPL-2.0
/*
 * test_pmi_handler.c - the PMI handler's defensive paths against the MSR
 * model: only its own status bits are acked (foreign bits survive), LVTPC
 * is re-armed on every path (overflow, status 0, stale bit, stuck loop,
 * AMD), the bounded status re-read loop and what happens when it runs out,
 * the 2^31 legacy-write limit, the AMD sign-bit path and NMI window,
 * DEBUGCTL freeze-on-PMI, storm throttling, kernel-IP hiding, drops, and
 * configuration/probe refusals.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "kcore.h"

#define N 512000ull

static void setup_intel(struct kcore *k, u32 version, bool full_width)
{
	struct pmu_model_spec spec;

	pmiprof_pmu_model_spec_default(&spec, PMIPROF_VENDOR_INTEL);
	spec.version = version;
	spec.full_width = full_width;
	assert_int_equal(kcore_setup(k, &spec), 0);
}

static void start_instr_cycles(struct kcore *k, u64 period)
{
	struct pmiprof_event ev[2] = {
		kcore_ev(0xc0, 0, true, period), kcore_ev(0x3c, 0, false, 0)
	};

	assert_int_equal(kcore_configure(k, ev, 2, 0, period), 0);
	assert_int_equal(kcore_start(k), 0);
}

static int nmi(struct kcore *k)
{
	struct pmi_ctx ctx = kcore_ctx(k);

	if (k->model.pmi_pending)
		k->model.pmi_pending--;
	return k->hw.drv->handle_pmi(&k->pc, &ctx);
}

static bool lvtpc_armed(const struct kcore *k)
{
	return k->model.lvtpc == PMU_APIC_DM_NMI;
}

static void own_bits_acked_foreign_bits_survive(void **state)
{
	/* GP counter 3, OvfBuffer, fixed counter 2: none of them ours */
	const u64 foreign = BIT_ULL(3) | BIT_ULL(62) | BIT_ULL(34);
	struct kcore k;

	(void)state;
	setup_intel(&k, 4, true);
	start_instr_cycles(&k, N);
	pmiprof_pmu_model_set_status(&k.model, foreign);
	pmiprof_pmu_model_advance(&k.model, N + 10, 0);
	assert_int_equal(k.model.pmi_pending, 1);
	assert_int_equal(nmi(&k), 1);
	assert_int_equal(kcore_nrecs, 1);
	assert_int_equal(kcore_recs[0].status, BIT_ULL(32));	/* own bit only */
	assert_int_equal(k.model.global_status, foreign);	/* ours cleared, theirs kept */

	/* An NMI that is not ours: nothing acked, not claimed, foreign bits intact. */
	pmiprof_pmu_model_reset_acc(&k.model);
	assert_int_equal(nmi(&k), 0);
	assert_int_equal(k.model.acc[PMU_ACC_ACK_WR], 0);
	assert_int_equal(k.model.global_status, foreign);
	assert_int_equal(k.pc.stats.spurious, 1);
	assert_int_equal(k.pc.stats.pmis, 1);
}

static void lvtpc_rearmed_on_every_path(void **state)
{
	struct kcore k;

	(void)state;
	setup_intel(&k, 4, true);
	start_instr_cycles(&k, N);
	assert_true(lvtpc_armed(&k));

	/* 1. overflow: the model masks LVTPC on delivery, the handler unmasks it */
	pmiprof_pmu_model_advance(&k.model, N, 0);
	assert_false(lvtpc_armed(&k));
	assert_int_equal(nmi(&k), 1);
	assert_true(lvtpc_armed(&k));

	/* 2. status 0 (someone else's NMI, or our bit eaten by another agent) */
	k.model.lvtpc |= PMU_APIC_LVT_MASKED;
	pmiprof_pmu_model_reset_acc(&k.model);
	assert_int_equal(nmi(&k), 0);
	assert_true(lvtpc_armed(&k));
	assert_int_equal(k.model.acc[PMU_ACC_LVTPC_WR], 1);

	/* 3. stale own status bit without a counter wrap: acked, no window */
	k.model.lvtpc |= PMU_APIC_LVT_MASKED;
	pmiprof_pmu_model_set_status(&k.model, BIT_ULL(32));
	assert_int_equal(nmi(&k), 1);
	assert_true(lvtpc_armed(&k));
	assert_int_equal(kcore_nrecs, 1);
	assert_int_equal(k.model.global_status, 0);

	/* 4. the stuck path (status never shows the wrapped counter's bit) */
	k.model.status_lag = PMU_MAX_LOOPS + 5;
	pmiprof_pmu_model_advance(&k.model, N, 0);
	assert_int_equal(nmi(&k), 1);
	assert_int_equal(k.pc.stats.stuck, 1);
	assert_true(lvtpc_armed(&k));

	/* Why it matters: with LVTPC left masked, the next overflow raises no PMI. */
	setup_intel(&k, 4, true);
	start_instr_cycles(&k, N);
	k.model.lvtpc |= PMU_APIC_LVT_MASKED;
	pmiprof_pmu_model_advance(&k.model, N, 0);
	assert_int_equal(k.model.pmi_pending, 0);
	assert_int_equal(k.model.pmis_masked, 1);
}

/* Position of the LVTPC write among the handler's accesses, and of the re-enable. */
static void lvtpc_position(const struct kcore *k, int *lvtpc, int *reenable, int *ack)
{
	u32 i;

	*lvtpc = *reenable = *ack = -1;
	for (i = 0; i < k->model.norder; i++) {
		if (k->model.order[i] == PMU_ACC_LVTPC_WR)
			*lvtpc = i;
		if (k->model.order[i] == PMU_ACC_GCTRL_WR)
			*reenable = i;	/* the last one re-enables */
		if (k->model.order[i] == PMU_ACC_ACK_WR)
			*ack = i;
	}
}

static void lvtpc_unmask_timing_per_core_type(void **state)
{
	struct pmu_model_spec spec;
	struct kcore k;
	int lv, re, ack;

	(void)state;
	/* Sapphire Rapids big core: late, after the re-enable (Haswell+ spurious-PMI fix) */
	setup_intel(&k, 4, true);
	start_instr_cycles(&k, N);
	assert_int_equal(k.pc.lvtpc_when, PMU_LVTPC_LATE);
	pmiprof_pmu_model_advance(&k.model, N, 0);
	pmiprof_pmu_model_reset_acc(&k.model);
	assert_int_equal(nmi(&k), 1);
	lvtpc_position(&k, &lv, &re, &ack);
	assert_int_equal(lv, k.model.norder - 1);
	assert_true(lv > re);

	/* Hybrid E-core (Gracemont): mid, after the ack and before the re-enable */
	pmiprof_pmu_model_spec_default(&spec, PMIPROF_VENDOR_INTEL);
	spec.model = 0x97;	/* Alder Lake */
	spec.hybrid_atom = true;
	assert_int_equal(kcore_setup(&k, &spec), 0);
	start_instr_cycles(&k, N);
	assert_int_equal(k.pc.lvtpc_when, PMU_LVTPC_MID);
	pmiprof_pmu_model_advance(&k.model, N, 0);
	pmiprof_pmu_model_reset_acc(&k.model);
	assert_int_equal(nmi(&k), 1);
	lvtpc_position(&k, &lv, &re, &ack);
	assert_true(ack < lv && lv < re);
	assert_int_equal(k.model.acc[PMU_ACC_LVTPC_WR], 1);

	/* Ivy Bridge: early, first thing */
	pmiprof_pmu_model_spec_default(&spec, PMIPROF_VENDOR_INTEL);
	spec.version = 3;
	spec.full_width = false;
	spec.model = 0x3a;
	assert_int_equal(kcore_setup(&k, &spec), 0);
	start_instr_cycles(&k, N);
	assert_int_equal(k.pc.lvtpc_when, PMU_LVTPC_EARLY);
	pmiprof_pmu_model_advance(&k.model, N, 0);
	pmiprof_pmu_model_reset_acc(&k.model);
	assert_int_equal(nmi(&k), 1);
	assert_int_equal(k.model.order[0], PMU_ACC_LVTPC_WR);
	assert_int_equal(k.model.acc[PMU_ACC_LVTPC_WR], 1);
	assert_true(lvtpc_armed(&k));

	/* ... and on the status-0 path too, once */
	k.model.lvtpc |= PMU_APIC_LVT_MASKED;
	pmiprof_pmu_model_reset_acc(&k.model);
	assert_int_equal(nmi(&k), 0);
	assert_int_equal(k.model.acc[PMU_ACC_LVTPC_WR], 1);
	assert_true(lvtpc_armed(&k));
}

static void status_reread_is_bounded(void **state)
{
	struct kcore k;
	u64 gctrl_own;

	(void)state;
	/* A status update that lags the counter by PMU_MAX_LOOPS reads is still handled. */
	setup_intel(&k, 4, true);
	start_instr_cycles(&k, N);
	k.model.status_lag = PMU_MAX_LOOPS;
	pmiprof_pmu_model_advance(&k.model, N + 7, 0);
	pmiprof_pmu_model_reset_acc(&k.model);
	assert_int_equal(nmi(&k), 1);
	assert_int_equal(k.model.acc[PMU_ACC_STATUS_RD], 1 + PMU_MAX_LOOPS);
	assert_int_equal(k.pc.stats.stuck, 0);
	assert_int_equal(kcore_recs[0].status, BIT_ULL(32));
	assert_int_equal(k.model.global_status, 0);

	/* One more and the loop gives up: the sign bit is trusted, the CPU stays armed. */
	setup_intel(&k, 4, true);
	start_instr_cycles(&k, N);
	k.model.status_lag = PMU_MAX_LOOPS + 1;
	pmiprof_pmu_model_advance(&k.model, N + 7, 0);
	pmiprof_pmu_model_reset_acc(&k.model);
	assert_int_equal(nmi(&k), 1);
	assert_int_equal(k.model.acc[PMU_ACC_STATUS_RD], 1 + PMU_MAX_LOOPS);
	assert_int_equal(k.model.acc[PMU_ACC_GCTRL_WR], 2);	/* frozen, re-enabled */
	assert_int_equal(k.pc.stats.stuck, 1);
	assert_true(k.pc.armed);
	assert_int_equal(kcore_nrecs, 1);	/* the window the counter proves is kept */
	gctrl_own = k.model.global_ctrl & k.hw.own_mask;
	assert_int_equal(gctrl_own, k.hw.own_mask);
}

/*
 * Another agent acks our overflow bit before our handler reads it (status
 * shows nothing, the counter wrapped).  That used to disarm the CPU for
 * good; the sign bit is proof enough: record, re-arm, keep sampling.
 */
static void wrapped_without_status_bit_rearms(void **state)
{
	struct kcore k;

	(void)state;
	setup_intel(&k, 4, true);
	start_instr_cycles(&k, N);
	pmiprof_pmu_model_advance(&k.model, N + 7, 0);
	k.model.global_status &= ~BIT_ULL(32);		/* eaten by someone else */
	assert_int_equal(nmi(&k), 1);
	assert_int_equal(kcore_nrecs, 1);
	assert_int_equal(kcore_recs[0].counts[0], N + 7);
	assert_int_equal(k.pc.stats.stuck, 1);
	assert_true(k.pc.armed);
	assert_true(lvtpc_armed(&k));
	/* sampling goes on: three more periods, three more windows */
	kcore_run(&k, 3 * N, 1000, 4);
	assert_int_equal(kcore_nrecs, 4);
	assert_int_equal(k.model.pmis_masked, 0);

	/* AMD PerfMonV2: the same */
	{
		struct pmiprof_event ev[2] = { kcore_ev(0xc0, 0, true, N), kcore_ev(0x76, 0, false, 0) };
		struct pmu_model_spec spec;

		pmiprof_pmu_model_spec_default(&spec, PMIPROF_VENDOR_AMD);
		assert_int_equal(kcore_setup(&k, &spec), 0);
		assert_int_equal(kcore_configure(&k, ev, 2, 0, N), 0);
		assert_int_equal(kcore_start(&k), 0);
		pmiprof_pmu_model_advance(&k.model, N + 7, 0);
		k.model.global_status = 0;
		assert_int_equal(nmi(&k), 1);
		assert_true(k.pc.armed);
		kcore_run(&k, 3 * N, 1000, 4);
		assert_int_equal(kcore_nrecs, 4);
	}
}

static void legacy_write_limit(void **state)
{
	struct pmiprof_event ev = kcore_ev(0xc4, 0, true, 0);	/* GP: branches */
	struct kcore k;
	u64 big = BIT_ULL(31) + 5;

	(void)state;
	setup_intel(&k, 2, false);
	assert_int_equal(k.hw.max_period, BIT_ULL(31) - 1);
	assert_false(k.hw.caps & PMIPROF_CAP_FULL_WIDTH);

	/* The hardware semantics the limit comes from. */
	pmiprof_pmu_model_wrmsr(&k.model, PMU_MSR_IA32_PMC0, (0 - (BIT_ULL(31) - 1)) & k.model.mask);
	assert_int_equal(pmiprof_pmu_model_rdmsr(&k.model, PMU_MSR_IA32_PMC0),
			 (0 - (BIT_ULL(31) - 1)) & k.model.mask);
	pmiprof_pmu_model_wrmsr(&k.model, PMU_MSR_IA32_PMC0, (0 - big) & k.model.mask);
	assert_int_equal(pmiprof_pmu_model_rdmsr(&k.model, PMU_MSR_IA32_PMC0), BIT_ULL(31) - 5);
	pmiprof_pmu_model_wrmsr(&k.model, PMU_MSR_IA32_A_PMC0, 1);	/* no FW_WRITE: #GP */
	assert_int_equal(k.model.faults, 1);

	assert_int_equal(kcore_configure(&k, &ev, 1, 0, BIT_ULL(31)), -EINVAL);
	assert_int_equal(kcore_configure(&k, &ev, 1, 0, BIT_ULL(31) - 1), 0);
	assert_int_equal(k.hw.slots[0].ctr_msr, PMU_MSR_IA32_PMC0);

	/* With PERF_CAPABILITIES[13] the A_PMCx alias takes the full value. */
	setup_intel(&k, 4, true);
	assert_int_equal(k.hw.max_period, BIT_ULL(47) - 1);
	ev = kcore_ev(0xc0, 0, true, 0);
	{
		struct pmiprof_event evs[2] = { kcore_ev(0xc0, 0, false, 0), ev };

		assert_int_equal(kcore_configure(&k, evs, 2, 1, big), 0);
	}
	assert_int_equal(k.hw.slots[1].ctr_msr, PMU_MSR_IA32_A_PMC0);
	assert_int_equal(kcore_start(&k), 0);
	assert_int_equal(k.model.gp[0], (0 - big) & k.model.mask);
	pmiprof_pmu_model_advance(&k.model, big - 1, 0);
	assert_int_equal(k.model.pmi_pending, 0);
	pmiprof_pmu_model_advance(&k.model, 1, 0);
	assert_int_equal(k.model.pmi_pending, 1);
	assert_int_equal(nmi(&k), 1);
	assert_int_equal(kcore_recs[0].counts[1], big);
	assert_int_equal(k.model.faults, 0);
}

static void amd_sign_bit_and_nmi_window(void **state)
{
	struct pmiprof_event ev[2] = { kcore_ev(0xc0, 0, true, N), kcore_ev(0x76, 0, false, 0) };
	struct pmu_model_spec spec;
	struct kcore k;

	(void)state;
	pmiprof_pmu_model_spec_default(&spec, PMIPROF_VENDOR_AMD);
	spec.version = 1;
	assert_int_equal(kcore_setup(&k, &spec), 0);
	assert_false(k.hw.global_regs);
	assert_int_equal(k.hw.max_period, BIT_ULL(47) - 1);
	assert_int_equal(kcore_configure(&k, ev, 2, 0, N), 0);
	assert_int_equal(k.hw.slots[0].ctr_msr, PMU_MSR_F15H_PERF_CTR0);
	assert_int_equal(kcore_start(&k), 0);
	assert_true(k.model.gp[0] & BIT_ULL(47));	/* armed: sign bit set */

	/* Not overflowed yet: sign bit still set, not ours. */
	pmiprof_pmu_model_advance(&k.model, N - 1, 5);
	assert_int_equal(nmi(&k), 0);
	assert_int_equal(kcore_nrecs, 0);

	pmiprof_pmu_model_advance(&k.model, 3, 5);
	assert_false(k.model.gp[0] & BIT_ULL(47));
	assert_int_equal(k.model.pmi_pending, 1);
	pmiprof_pmu_model_reset_acc(&k.model);
	assert_int_equal(nmi(&k), 1);
	assert_int_equal(k.model.acc[PMU_ACC_STATUS_RD], 0);	/* no status register */
	assert_int_equal(k.model.faults, 0);
	assert_int_equal(kcore_recs[0].counts[0], N + 2);
	assert_int_equal(kcore_recs[0].counts[1], 10);
	assert_int_equal(k.model.gp[0], (0 - (N - 2)) & k.model.mask);
	assert_true(lvtpc_armed(&k));

	/* perf's NMI window: unclaimed NMIs within 100 ms of a handled one are ours. */
	kcore_now_ns += 50000000;
	assert_int_equal(nmi(&k), 1);
	kcore_now_ns += 60000000;
	assert_int_equal(nmi(&k), 0);
	assert_int_equal(kcore_nrecs, 1);

	/*
	 * Stopping with an overflow whose NMI has not arrived yet: stop waits
	 * (50 x 1 us, reading the counter) for the handler to re-arm it before
	 * disarming, as amd_pmu_wait_on_overflow() does.  Nothing re-arms it
	 * here, so all 50 reads happen.
	 */
	pmiprof_pmu_model_advance(&k.model, N, 0);
	assert_false(k.model.gp[0] & BIT_ULL(47));
	pmiprof_pmu_model_reset_acc(&k.model);
	kcore_stop(&k);
	assert_int_equal(k.model.acc[PMU_ACC_CTR_RD], PMU_AMD_OVERFLOW_WAIT);
	assert_false(k.pc.armed);
	assert_int_equal(k.model.ctl[0] & PMU_EVTSEL_EN, 0);
	/* Without a pending overflow, one read shows the sign bit: no wait. */
	assert_int_equal(kcore_start(&k), 0);
	pmiprof_pmu_model_reset_acc(&k.model);
	kcore_stop(&k);
	assert_int_equal(k.model.acc[PMU_ACC_CTR_RD], 1);
}

static void debugctl_freeze_on_pmi(void **state)
{
	struct kcore k;
	u32 i;

	(void)state;
	setup_intel(&k, 4, true);
	k.model.debugctl = PMU_DEBUGCTL_FREEZE_ON_PMI;	/* left set by BIOS / another tool */
	start_instr_cycles(&k, N);
	assert_int_equal(k.pc.ack_extra, PMU_STATUS_CTR_FRZ);
	assert_int_equal(k.model.debugctl, PMU_DEBUGCTL_FREEZE_ON_PMI);	/* never written */
	for (i = 0; i < 10; i++) {
		pmiprof_pmu_model_advance(&k.model, N, 0);
		assert_true(k.model.global_status & PMU_STATUS_CTR_FRZ);
		assert_int_equal(nmi(&k), 1);
		/* acked: counting again */
		assert_false(k.model.global_status & PMU_STATUS_CTR_FRZ);
	}
	assert_int_equal(kcore_nrecs, 10);
	for (i = 0; i < 10; i++)
		assert_int_equal(kcore_recs[i].counts[0], N);
}

static void storm_throttling(void **state)
{
	struct pmiprof_event ev[2] = { kcore_ev(0xc0, 0, true, 0), kcore_ev(0x3c, 0, false, 0) };
	struct pmiprof_config cfg;
	struct kcore k;
	u64 sum = 0, tail[PMU_MAX_EVENTS];
	size_t i, stretched = 0;

	(void)state;
	setup_intel(&k, 4, true);
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.mode = PMIPROF_SAMPLING_PMI;
	cfg.nr_events = 2;
	cfg.max_rate = 1000;		/* 10 windows per 10 ms slice */
	cfg.events[0] = ev[0];
	cfg.events[0].period = 10000;	/* 1 ns per instruction: 100k windows/s asked */
	cfg.events[1] = ev[1];
	assert_int_equal(pmiprof_pmu_configure(&k.hw, &cfg), 0);
	assert_int_equal(kcore_start(&k), 0);
	kcore_run(&k, 100000000, 512, 3);	/* 100 ms */
	assert_true(k.pc.stats.throttles > 0);
	assert_true(kcore_nrecs < 100000000 / 10000 / 4);
	for (i = 0; i < kcore_nrecs; i++) {
		bool big = kcore_recs[i].counts[0] >= 16 * 10000 - 512;

		sum += kcore_recs[i].counts[0];
		if (big)
			stretched++;
		/* the flag marks exactly the records closing a stretched window */
		assert_int_equal(!!(kcore_recs[i].flags & PMIPROF_REC_F_THROTTLED), big);
	}
	assert_int_equal(stretched, k.pc.stats.throttles - (k.pc.throttled ? 1 : 0));
	k.hw.drv->read_counters(&k.pc, tail);
	assert_int_equal(sum + tail[0], 100000000);	/* nothing lost, windows just longer */
}

/*
 * The throttle is a cap: an event counting 8 per cycle (3 GHz: 24 events
 * per ns) at period 10,000 asks for 2.4M windows/s; with the default
 * max_rate (100,000/s) it must get at most that, over the whole run and
 * in its second half, not max_rate plus whatever 16x-stretched windows fit
 * in the rest of each 10 ms slice (~2.4x max_rate before).  Counts stay
 * exact: the windows only grow.
 */
static void throttle_caps_rate_of_8_per_cycle_event(void **state)
{
	const u64 period = 10000, run_ns = 200000000, cycles_per_step = 333;
	struct pmiprof_event ev[2] = { kcore_ev(0xc0, 0, true, 0), kcore_ev(0x3c, 0, false, 0) };
	struct pmiprof_config cfg;
	struct kcore k;
	u64 t0, sum = 0, tail[PMU_MAX_EVENTS], half = 0, instr = 0;
	size_t i;

	(void)state;
	setup_intel(&k, 4, true);
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.mode = PMIPROF_SAMPLING_PMI;
	cfg.nr_events = 2;
	cfg.events[0] = ev[0];
	cfg.events[0].period = period;
	cfg.events[1] = ev[1];
	assert_int_equal(pmiprof_pmu_configure(&k.hw, &cfg), 0);
	assert_int_equal(k.hw.max_rate, PMU_DEFAULT_MAX_RATE);
	assert_int_equal(kcore_start(&k), 0);
	t0 = kcore_now_ns;
	while (kcore_now_ns - t0 < run_ns) {
		/* 333 cycles = 111 ns at 3 GHz, 8 events per cycle */
		pmiprof_pmu_model_advance(&k.model, 8 * cycles_per_step, cycles_per_step);
		instr += 8 * cycles_per_step;
		kcore_now_ns += cycles_per_step / 3;
		kcore_take_pmis(&k);
	}
	for (i = 0; i < kcore_nrecs; i++) {
		sum += kcore_recs[i].counts[0];
		if (kcore_recs[i].time_ns - t0 >= run_ns / 2)
			half++;
	}
	k.hw.drv->read_counters(&k.pc, tail);
	assert_int_equal(sum + tail[0], instr);
	print_message("8/cycle at period %llu: %zu windows in %llu ms (%llu/s; cap %u/s), "
		      "second half %llu/s, %llu throttled\n", (unsigned long long)period,
		      kcore_nrecs, (unsigned long long)(run_ns / 1000000),
		      (unsigned long long)(kcore_nrecs * 1000000000ull / run_ns), k.hw.max_rate,
		      (unsigned long long)(half * 2000000000ull / run_ns),
		      (unsigned long long)k.pc.stats.throttles);
	assert_true(k.pc.stats.throttles > 0);
	/* whole run, the first slice's budget included: at most 10 % above the cap */
	assert_true(kcore_nrecs * 1000000000ull / run_ns <= k.hw.max_rate * 11 / 10);
	/* steady state: under the cap */
	assert_true(half * 2000000000ull / run_ns <= k.hw.max_rate);
	/* and not throttled into uselessness: at least a quarter of the cap */
	assert_true(half * 2000000000ull / run_ns >= k.hw.max_rate / 4);
}

/*
 * Throttling stepped by hand, one period at a time.  At 100x the cap
 * (max_rate 1000/s: 10 windows per 10 ms slice; a period every 10 us) the
 * 11th window passes the budget and stretches the next period by the
 * measured excess (100, rounded up to 128).  The stretch carries on; the
 * record closing each stretched window, and only those, carries
 * REC_F_THROTTLED, and its count is whole periods.  When the event slows
 * to half the cap, the stretch halves back to 1 and records are plain
 * periods again.
 */
static void throttled_flag_on_records_closing_stretched_windows(void **state)
{
	const u64 period = 10000;
	struct pmiprof_event ev[2] = { kcore_ev(0xc0, 0, true, 0), kcore_ev(0x3c, 0, false, 0) };
	struct pmiprof_config cfg;
	struct kcore k;
	u64 sum = 0, fed = 0, tail[PMU_MAX_EVENTS];
	size_t i, stretched = 0, last_stretched = 0;

	(void)state;
	setup_intel(&k, 4, true);
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.mode = PMIPROF_SAMPLING_PMI;
	cfg.nr_events = 2;
	cfg.max_rate = 1000;		/* 10 windows per 10 ms slice */
	cfg.events[0] = ev[0];
	cfg.events[0].period = period;
	cfg.events[1] = ev[1];
	assert_int_equal(pmiprof_pmu_configure(&k.hw, &cfg), 0);
	assert_int_equal(kcore_start(&k), 0);

	/* 11 windows in 110 us: the 11th exceeds the budget */
	for (i = 0; i < 11; i++) {
		pmiprof_pmu_model_advance(&k.model, period, period);
		fed += period;
		kcore_now_ns += period;
		assert_int_equal(nmi(&k), 1);
	}
	assert_int_equal(k.pc.stats.throttles, 1);
	assert_true(k.pc.throttled);
	assert_int_equal(k.pc.stretch, 128);
	assert_int_equal(kcore_nrecs, 11);
	for (i = 0; i < 11; i++)
		assert_false(kcore_recs[i].flags & PMIPROF_REC_F_THROTTLED);

	/* One ordinary period is not enough to close the stretched window. */
	pmiprof_pmu_model_advance(&k.model, period, period);
	fed += period;
	kcore_now_ns += period;
	assert_int_equal(k.model.pmi_pending, 0);
	assert_int_equal(kcore_nrecs, 11);

	/* Still 100x too fast for 1 s: the stretch holds, the rate stays capped. */
	for (i = 0; i < 100000; i++) {
		pmiprof_pmu_model_advance(&k.model, period, period);
		fed += period;
		kcore_now_ns += 10000;
		kcore_take_pmis(&k);
	}
	assert_true(kcore_nrecs - 11 <= 1000);		/* 1 s at 1000/s */
	assert_true(k.pc.throttled);

	/* Half the cap (a period every 2 ms) for 1 s: back to plain windows. */
	for (i = 0; i < 500; i++) {
		pmiprof_pmu_model_advance(&k.model, period, period);
		fed += period;
		kcore_now_ns += 2000000;
		kcore_take_pmis(&k);
	}
	assert_false(k.pc.throttled);
	assert_int_equal(k.pc.stretch, 1);

	for (i = 0; i < kcore_nrecs; i++) {
		bool flagged = kcore_recs[i].flags & PMIPROF_REC_F_THROTTLED;

		sum += kcore_recs[i].counts[0];
		assert_int_equal(kcore_recs[i].counts[0] % period, 0);
		assert_int_equal(flagged, kcore_recs[i].counts[0] > period);
		if (flagged) {
			stretched++;
			last_stretched = i;
		}
	}
	/* the last stretched window is followed by plain windows only (~370) */
	assert_true(last_stretched < kcore_nrecs - 300);
	assert_int_equal(k.pc.stats.throttles, stretched);
	k.hw.drv->read_counters(&k.pc, tail);
	assert_int_equal(sum + tail[0], fed);

	/* A restart forgets a pending stretch: no stale flag on the next record. */
	kcore_now_ns += PMU_THROTTLE_SLICE_NS;
	for (i = 0; i < 12; i++) {	/* the first closes the old slice */
		pmiprof_pmu_model_advance(&k.model, period, period);
		kcore_now_ns += period;
		assert_int_equal(nmi(&k), 1);
	}
	assert_true(k.pc.throttled);
	kcore_stop(&k);
	assert_int_equal(kcore_start(&k), 0);
	assert_false(k.pc.throttled);
	kcore_now_ns += PMU_THROTTLE_SLICE_NS;
	pmiprof_pmu_model_advance(&k.model, period, period);
	kcore_now_ns += period;
	assert_int_equal(nmi(&k), 1);
	assert_false(kcore_recs[kcore_nrecs - 1].flags & PMIPROF_REC_F_THROTTLED);
}

static void kernel_ips_hidden_unless_allowed(void **state)
{
	struct kcore k;

	(void)state;
	setup_intel(&k, 4, true);
	start_instr_cycles(&k, N);
	k.user = false;
	k.ip = 0xffffffff81000000ull;
	pmiprof_pmu_model_advance(&k.model, N, 0);
	assert_int_equal(nmi(&k), 1);
	assert_int_equal(kcore_recs[0].ip, 0);
	assert_true(kcore_recs[0].flags & PMIPROF_REC_F_IP_HIDDEN);
	assert_true(kcore_recs[0].flags & PMIPROF_REC_F_KERNEL);

	k.hw.kernel_ips = true;		/* PMIPROF_CFG_KERNEL_IPS from a privileged reader */
	pmiprof_pmu_model_advance(&k.model, N, 0);
	assert_int_equal(nmi(&k), 1);
	assert_int_equal(kcore_recs[1].ip, 0xffffffff81000000ull);
	assert_false(kcore_recs[1].flags & PMIPROF_REC_F_IP_HIDDEN);

	k.user = true;
	k.ip = 0x401234;
	pmiprof_pmu_model_advance(&k.model, N, 0);
	assert_int_equal(nmi(&k), 1);
	assert_int_equal(kcore_recs[2].ip, 0x401234);
	assert_true(kcore_recs[2].flags & PMIPROF_REC_F_USER);
	assert_int_equal(kcore_recs[2].pid, 4242);
	assert_int_equal(kcore_recs[2].tid, 4243);
}

static void drops_are_counted(void **state)
{
	struct kcore k;

	(void)state;
	setup_intel(&k, 4, true);
	start_instr_cycles(&k, N);
	kcore_emit_fail = true;
	kcore_run(&k, 10 * N, 1000, 5);
	assert_int_equal(k.pc.stats.lost, 10);
	assert_int_equal(k.pc.stats.samples, 0);
	kcore_emit_fail = false;
	kcore_run(&k, 10 * N, 1000, 5);
	assert_int_equal(k.pc.stats.samples, 10);
	assert_int_equal(k.pc.stats.pmis, 20);
}

static int cfg_err(struct kcore *k, void (*edit)(struct pmiprof_config *))
{
	struct pmiprof_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.mode = PMIPROF_SAMPLING_PMI;
	cfg.nr_events = 2;
	cfg.events[0] = kcore_ev(0xc0, 0, true, N);
	cfg.events[1] = kcore_ev(0x3c, 0, false, 0);
	edit(&cfg);
	return pmiprof_pmu_configure(&k->hw, &cfg);
}

static void e_none(struct pmiprof_config *c) { (void)c; }
static void e_period0(struct pmiprof_config *c) { c->events[0].period = 0; }
static void e_below_min(struct pmiprof_config *c) { c->events[0].period = PMU_MIN_PERIOD - 1; }
static void e_huge(struct pmiprof_config *c) { c->events[0].period = ~0ull; }
static void e_no_trigger(struct pmiprof_config *c) { c->events[0].flags &= ~PMIPROF_EV_TRIGGER; }
static void e_two_triggers(struct pmiprof_config *c) { c->events[1] = c->events[0]; }
static void e_unknown_event(struct pmiprof_config *c) { c->events[1].event = 0x99; }
static void e_offcore(struct pmiprof_config *c) { c->events[1].event = 0xb7; }
static void e_no_ring(struct pmiprof_config *c) { c->events[1].flags = 0; }
static void e_bad_flags(struct pmiprof_config *c) { c->events[1].flags |= 1u << 20; }
static void e_cfg_flags(struct pmiprof_config *c) { c->flags = 1u << 7; }
static void e_reserved(struct pmiprof_config *c) { c->reserved[2] = 1; }
static void e_size(struct pmiprof_config *c) { c->size = 8; }
static void e_mode(struct pmiprof_config *c) { c->mode = 9; }
static void e_nr(struct pmiprof_config *c) { c->nr_events = PMIPROF_ABI_MAX_EVENTS + 1; }
static void e_period_other(struct pmiprof_config *c) { c->events[1].period = 5; }
static void e_rate(struct pmiprof_config *c) { c->max_rate = PMU_DEFAULT_MAX_RATE + 1; }
static void e_timer_fast(struct pmiprof_config *c)
{
	c->mode = PMIPROF_SAMPLING_TIMER;
	c->events[0].flags &= ~PMIPROF_EV_TRIGGER;
	c->events[0].period = 0;
	c->timer_ns = PMU_MIN_TIMER_NS - 1;
}

static void e_eight(struct pmiprof_config *c)
{
	u32 i;

	c->nr_events = 8;	/* 4 GP + 3 fixed on the model */
	for (i = 2; i < 8; i++)
		c->events[i] = kcore_ev(0xc4, 0, false, 0);
}

static void configure_refusals(void **state)
{
	struct kcore k;

	(void)state;
	setup_intel(&k, 4, true);
	assert_int_equal(cfg_err(&k, e_none), 0);
	assert_int_equal(cfg_err(&k, e_period0), -EINVAL);
	assert_int_equal(cfg_err(&k, e_below_min), -EINVAL);
	assert_int_equal(cfg_err(&k, e_huge), -EINVAL);
	assert_int_equal(cfg_err(&k, e_no_trigger), -EINVAL);
	assert_int_equal(cfg_err(&k, e_two_triggers), -EINVAL);
	assert_int_equal(cfg_err(&k, e_unknown_event), -EINVAL);
	assert_non_null(k.hw.reason);
	assert_false(k.hw.configured);
	assert_int_equal(cfg_err(&k, e_offcore), -EOPNOTSUPP);
	assert_int_equal(cfg_err(&k, e_no_ring), -EINVAL);
	assert_int_equal(cfg_err(&k, e_bad_flags), -EINVAL);
	assert_int_equal(cfg_err(&k, e_cfg_flags), -EINVAL);
	assert_int_equal(cfg_err(&k, e_reserved), -EINVAL);
	assert_int_equal(cfg_err(&k, e_size), -EINVAL);
	assert_int_equal(cfg_err(&k, e_mode), -EINVAL);
	assert_int_equal(cfg_err(&k, e_nr), -EINVAL);
	assert_int_equal(cfg_err(&k, e_period_other), -EINVAL);
	assert_int_equal(cfg_err(&k, e_rate), -EINVAL);
	assert_int_equal(cfg_err(&k, e_timer_fast), -EINVAL);
	assert_int_equal(cfg_err(&k, e_eight), -ENOSPC);
}

/* Every control word the whitelist builds stays inside the allowed bits. */
static void control_words_never_carry_denied_bits(void **state)
{
	const u64 allowed = 0xffff | PMU_EVTSEL_USR | PMU_EVTSEL_OS | PMU_EVTSEL_EDGE |
			    PMU_EVTSEL_INT | PMU_EVTSEL_EN | PMU_EVTSEL_INV | (0xffull << 24);
	struct pmiprof_event ev;
	struct kcore k;
	u32 e, u, ok = 0;
	const char *why;

	(void)state;
	setup_intel(&k, 4, true);
	for (e = 0; e < 256; e++) {
		for (u = 0; u < 256; u++) {
			ev = kcore_ev(e, u, false, 0);
			ev.flags |= PMIPROF_EV_EDGE | PMIPROF_EV_INV;
			ev.cmask = 0xff;
			if (pmiprof_pmu_whitelist_check(&k.hw, &ev, &why) < 0)
				continue;
			ok++;
			assert_int_equal(pmiprof_pmu_build_evtsel(&k.hw, &ev, true) & ~allowed, 0);
			assert_int_equal(pmiprof_pmu_build_fixed_nibble(&ev, true) & PMU_FIXED_ANY, 0);
		}
	}
	assert_true(ok >= 7);	/* the architectural events at least */
}

static void probe_refuses_missing_pmu(void **state)
{
	struct pmu_model_spec spec;
	struct kcore k;

	(void)state;
	/* QEMU TCG: CPUID may claim a PMU, but MSRs read 0 and drop writes. */
	pmiprof_pmu_model_spec_default(&spec, PMIPROF_VENDOR_INTEL);
	pmiprof_pmu_model_init(&k.probe_model, &spec);
	assert_int_equal(kcore_setup(&k, &spec), 0);
	memset(&k.hw, 0, sizeof(k.hw));
	k.hw.ops = &pmiprof_pmu_model_msr_ops;
	k.hw.model_probe = &k.probe_model;
	k.probe_model.tcg = true;
	/* probe() only enumerates; the write/read-back is pmiprof_pmu_probe_cpu()'s, reserved */
	assert_int_equal(pmiprof_pmu_intel_driver.probe(&k.hw), 0);
	{
		struct pmu_probe_res res;
		u32 idx;

		k.probe_model.resv = &k.probe_model;
		assert_int_equal(pmiprof_pmu_reserve(&k.hw, &idx), 0);
		assert_int_equal(pmiprof_pmu_probe_cpu(&k.pc, &res), -ENODEV);
		assert_int_equal(k.probe_model.unreserved_wr, 0);
		pmiprof_pmu_release(&k.hw);
	}

	spec.version = 0;	/* TCG's real answer: CPUID.0AH = 0 */
	assert_int_equal(kcore_setup(&k, &spec), -ENODEV);
	assert_non_null(strstr(k.hw.reason, "version 0"));
	spec.version = 1;
	assert_int_equal(kcore_setup(&k, &spec), -ENODEV);

	pmiprof_pmu_model_spec_default(&spec, PMIPROF_VENDOR_AMD);
	assert_int_equal(kcore_setup(&k, &spec), 0);
	memset(&k.hw, 0, sizeof(k.hw));
	k.hw.ops = &pmiprof_pmu_model_msr_ops;
	k.hw.model_probe = &k.probe_model;
	assert_int_equal(pmiprof_pmu_intel_driver.probe(&k.hw), -ENODEV);	/* wrong vendor */
	k.probe_model.tcg = true;
	assert_int_equal(pmiprof_pmu_amd_driver.probe(&k.hw), 0);
	{
		struct pmu_probe_res res;
		u32 idx;

		assert_int_equal(pmiprof_pmu_reserve(&k.hw, &idx), 0);
		assert_int_equal(pmiprof_pmu_probe_cpu(&k.pc, &res), -ENODEV);
		pmiprof_pmu_release(&k.hw);
	}
}

static void busy_counters_and_hybrid_cpus_refused(void **state)
{
	struct pmiprof_event ev[2] = { kcore_ev(0xc0, 0, true, N), kcore_ev(0x3c, 0, false, 0) };
	struct kcore k;

	(void)state;
	setup_intel(&k, 4, true);
	assert_int_equal(kcore_configure(&k, ev, 2, 0, N), 0);
	k.model.fixed_ctrl = 0xb0;	/* NMI watchdog on fixed counter 1 */
	assert_int_equal(kcore_start(&k), -EBUSY);
	/* the CPU's own reason; the shared hw->reason is the configure's, untouched */
	assert_non_null(k.pc.reason);
	assert_non_null(strstr(k.pc.reason, "already enabled"));
	assert_null(k.hw.reason);

	setup_intel(&k, 4, true);
	ev[1] = kcore_ev(0xc4, 0, false, 0);
	assert_int_equal(kcore_configure(&k, ev, 2, 0, N), 0);
	k.model.ctl[0] = PMU_EVTSEL_EN | 0x3c;	/* BIOS uses GP0 */
	assert_int_equal(kcore_start(&k), -EBUSY);
	assert_non_null(k.pc.reason);
	assert_null(k.hw.reason);

	/* A CPU enumerating a different PMU (hybrid E-core) is not started. */
	setup_intel(&k, 4, true);
	assert_int_equal(kcore_configure(&k, ev, 2, 0, N), 0);
	k.probe_model.spec.nr_gp = 6;
	assert_int_equal(kcore_start(&k), -ENODEV);
}

static void stop_and_restart(void **state)
{
	struct kcore k;

	(void)state;
	setup_intel(&k, 4, true);
	start_instr_cycles(&k, N);
	kcore_run(&k, 3 * N, 1000, 9);
	assert_int_equal(kcore_nrecs, 3);
	kcore_stop(&k);
	assert_int_equal(k.model.global_ctrl & k.hw.own_mask, 0);
	assert_int_equal(k.model.fixed_ctrl, 0);
	pmiprof_pmu_model_advance(&k.model, 5 * N, 0);
	assert_int_equal(k.model.pmi_pending, 0);
	assert_int_equal(nmi(&k), 0);

	assert_int_equal(kcore_start(&k), 0);
	kcore_run(&k, 2 * N, 1000, 9);
	assert_int_equal(kcore_nrecs, 5);
	assert_true(kcore_recs[3].flags & PMIPROF_REC_F_FIRST);
	assert_int_equal(k.model.faults, 0);
}

static void timer_mode_reads_counters(void **state)
{
	struct pmiprof_config cfg;
	struct pmi_ctx ctx;
	struct kcore k;

	(void)state;
	setup_intel(&k, 4, true);
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.mode = PMIPROF_SAMPLING_TIMER;
	cfg.timer_ns = 1000000;
	cfg.nr_events = 2;
	cfg.events[0] = kcore_ev(0xc0, 0, false, 0);
	cfg.events[1] = kcore_ev(0x3c, 0, false, 0);
	assert_int_equal(pmiprof_pmu_configure(&k.hw, &cfg), 0);
	assert_int_equal(kcore_start(&k), 0);
	pmiprof_pmu_model_advance(&k.model, 1000, 1500);
	assert_int_equal(k.model.pmi_pending, 0);	/* no INT bit in timer mode */
	ctx = kcore_ctx(&k);
	assert_int_equal(pmiprof_pmu_sample_timer(&k.pc, &ctx), 1);
	pmiprof_pmu_model_advance(&k.model, 30, 40);
	assert_int_equal(pmiprof_pmu_sample_timer(&k.pc, &ctx), 1);
	assert_int_equal(kcore_nrecs, 2);
	assert_true(kcore_recs[0].flags & PMIPROF_REC_F_TIMER);
	assert_int_equal(kcore_recs[0].counts[0], 1000);
	assert_int_equal(kcore_recs[0].counts[1], 1500);
	assert_int_equal(kcore_recs[1].counts[0], 30);
	assert_int_equal(kcore_recs[1].counts[1], 40);
	assert_int_equal(nmi(&k), 0);	/* an NMI in timer mode is not ours */
}

/* pmu=none: the timer still closes windows, with no counters; counting mode totals. */
static void timer_without_pmu_and_counting_mode(void **state)
{
	struct pmiprof_config cfg;
	struct pmi_ctx ctx;
	struct pmu_hw none;
	struct pmu_cpu pc;
	struct kcore k;

	(void)state;
	memset(&none, 0, sizeof(none));
	memset(&pc, 0, sizeof(pc));
	pc.hw = &none;
	pc.cpu = 1;
	kcore_reset_recs();
	memset(&ctx, 0, sizeof(ctx));
	ctx.ip = 0xffffffff81234567ull;	/* a kernel ip, no privilege to see it */
	ctx.cpu = 1;
	assert_int_equal(pmiprof_pmu_sample_timer(&pc, &ctx), 1);
	assert_int_equal(kcore_nrecs, 1);
	assert_int_equal(kcore_recs[0].nr, 0);
	assert_true(kcore_recs[0].flags & PMIPROF_REC_F_TIMER);
	assert_true(kcore_recs[0].flags & PMIPROF_REC_F_IP_HIDDEN);
	assert_int_equal(kcore_recs[0].ip, 0);
	assert_false(kcore_recs[0].flags & PMIPROF_REC_F_EMULATED);
	assert_int_equal(pc.stats.samples, 1);

	setup_intel(&k, 4, true);
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.mode = PMIPROF_SAMPLING_COUNT;
	cfg.nr_events = 3;
	cfg.events[0] = kcore_ev(0xc0, 0, false, 0);
	cfg.events[1] = kcore_ev(0xc4, 0, false, 0);
	cfg.events[2] = kcore_ev(0x3c, 0, false, 0);
	assert_int_equal(pmiprof_pmu_configure(&k.hw, &cfg), 0);
	assert_int_equal(k.hw.trigger, -1);
	assert_int_equal(kcore_start(&k), 0);
	pmiprof_pmu_model_advance(&k.model, 5000000, 7000000);
	assert_int_equal(k.model.pmi_pending, 0);
	ctx = kcore_ctx(&k);
	assert_int_equal(pmiprof_pmu_sample_timer(&k.pc, &ctx), 1);	/* what stop does */
	assert_int_equal(kcore_recs[0].nr, 3);
	assert_int_equal(kcore_recs[0].counts[0], 5000000);
	assert_int_equal(kcore_recs[0].counts[1], 1000000);
	assert_int_equal(kcore_recs[0].counts[2], 7000000);
	kcore_stop(&k);
	assert_int_equal(k.model.faults, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(own_bits_acked_foreign_bits_survive),
		cmocka_unit_test(lvtpc_rearmed_on_every_path),
		cmocka_unit_test(lvtpc_unmask_timing_per_core_type),
		cmocka_unit_test(status_reread_is_bounded),
		cmocka_unit_test(wrapped_without_status_bit_rearms),
		cmocka_unit_test(legacy_write_limit),
		cmocka_unit_test(amd_sign_bit_and_nmi_window),
		cmocka_unit_test(debugctl_freeze_on_pmi),
		cmocka_unit_test(storm_throttling),
		cmocka_unit_test(throttle_caps_rate_of_8_per_cycle_event),
		cmocka_unit_test(throttled_flag_on_records_closing_stretched_windows),
		cmocka_unit_test(kernel_ips_hidden_unless_allowed),
		cmocka_unit_test(drops_are_counted),
		cmocka_unit_test(configure_refusals),
		cmocka_unit_test(control_words_never_carry_denied_bits),
		cmocka_unit_test(probe_refuses_missing_pmu),
		cmocka_unit_test(busy_counters_and_hybrid_cpus_refused),
		cmocka_unit_test(stop_and_restart),
		cmocka_unit_test(timer_mode_reads_counters),
		cmocka_unit_test(timer_without_pmu_and_counting_mode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
