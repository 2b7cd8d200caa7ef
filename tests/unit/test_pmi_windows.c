// SPDX-License-Identifier: GPL-2.0
/*
 * test_pmi_windows.c - the handler core against the MSR model, end to end:
 * 10^9 emulated instructions with N = 512,000 give exactly floor(10^9/N)
 * windows whose per-window deltas (plus the open window at the end) sum to
 * the model's totals for every counter; re-arm values carry the overshoot
 * so overflows stay on multiples of N.  Intel (fixed and GP triggers,
 * full-width and legacy writes), AMD PerfMonV2 and AMD sign-bit paths.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "kcore.h"

#define TOTAL		1000000000ull
#define PERIOD		512000ull

struct variant {
	u32 vendor;
	u32 version;
	bool full_width;
	bool gp_trigger;	/* Intel: trigger on GP instructions (0xc0) instead of fixed 0 */
};

/*
 * Runs TOTAL instructions and checks the window count and the sums.
 * Events: Intel: instructions, cycles, branches, branch-misses (+ LLC refs);
 * AMD: instructions, cycles, branches, branch-misses.
 */
static void run_windows(const struct variant *v)
{
	struct pmu_model_spec spec;
	struct pmiprof_event ev[5];
	struct kcore k;
	u64 sum[PMU_MAX_EVENTS] = { 0 }, tail[PMU_MAX_EVENTS], expect[5];
	u32 n, i, j;

	pmiprof_pmu_model_spec_default(&spec, v->vendor);
	spec.version = v->version;
	spec.full_width = v->full_width;
	if (v->vendor == PMIPROF_VENDOR_AMD && v->version < 2)
		spec.perfctr_core = true;
	assert_int_equal(kcore_setup(&k, &spec), 0);

	if (v->vendor == PMIPROF_VENDOR_INTEL) {
		ev[0] = kcore_ev(0xc0, 0, true, PERIOD);
		ev[1] = kcore_ev(0x3c, 0, false, 0);
		ev[2] = kcore_ev(0xc4, 0, false, 0);
		ev[3] = kcore_ev(0xc5, 0, false, 0);
		ev[4] = kcore_ev(0x2e, 0x4f, false, 0);
		n = 5;
		if (v->gp_trigger) {	/* fixed 0 is busy with a plain instruction count */
			ev[4] = ev[0];
			ev[0] = kcore_ev(0xc0, 0, false, 0);
		}
	} else {
		ev[0] = kcore_ev(0xc0, 0, true, PERIOD);
		ev[1] = kcore_ev(0x76, 0, false, 0);
		ev[2] = kcore_ev(0xc2, 0, false, 0);
		ev[3] = kcore_ev(0xc3, 0, false, 0);
		n = 4;
	}
	int trig = v->gp_trigger ? 4 : 0;

	assert_int_equal(kcore_configure(&k, ev, n, trig, PERIOD), 0);
	if (v->gp_trigger)
		assert_int_equal(k.hw.slots[4].kind, PMU_SLOT_GP);
	else if (v->vendor == PMIPROF_VENDOR_INTEL)
		assert_int_equal(k.hw.slots[0].kind, PMU_SLOT_FIXED);
	assert_int_equal(kcore_start(&k), 0);

	kcore_run(&k, TOTAL, 4096, 7);

	assert_int_equal(kcore_nrecs, TOTAL / PERIOD);	/* exactly floor(10^9 / N) */
	assert_int_equal(k.pc.stats.samples, TOTAL / PERIOD);
	assert_int_equal(k.pc.stats.lost, 0);
	assert_int_equal(k.pc.stats.spurious, 0);
	assert_int_equal(k.pc.stats.stuck, 0);
	assert_int_equal(k.pc.stats.throttles, 0);
	assert_int_equal(k.model.pmis_masked, 0);
	assert_int_equal(k.model.faults, 0);
	for (i = 0; i < kcore_nrecs; i++) {
		const struct pmiprof_sample_rec *r = &kcore_recs[i];

		assert_int_equal(r->nr, n);
		assert_true(r->flags & PMIPROF_REC_F_EMULATED);
		assert_int_equal(!!(r->flags & PMIPROF_REC_F_FIRST), i == 0);
		for (j = 0; j < n; j++)
			sum[j] += r->counts[j];
	}
	/* The open window: what the counters hold beyond the last record. */
	k.hw.drv->read_counters(&k.pc, tail);
	if (v->vendor == PMIPROF_VENDOR_INTEL) {
		expect[0] = TOTAL;
		expect[1] = k.model.cycles;
		expect[2] = TOTAL / 5;
		expect[3] = TOTAL / 97;
		expect[4] = v->gp_trigger ? TOTAL : TOTAL / 31;
	} else {
		expect[0] = TOTAL;
		expect[1] = k.model.cycles;
		expect[2] = TOTAL / 5;
		expect[3] = TOTAL / 97;
	}
	for (j = 0; j < n; j++)
		assert_int_equal(sum[j] + tail[j], expect[j]);
	/* The trigger's windows average N exactly: the last one ends on a multiple of N. */
	assert_true(sum[trig] >= (TOTAL / PERIOD) * PERIOD);
	assert_true(sum[trig] < (TOTAL / PERIOD) * PERIOD + 4096);
	kcore_stop(&k);
}

static void intel_fixed_full_width(void **state)
{
	const struct variant v = { PMIPROF_VENDOR_INTEL, 4, true, false };

	(void)state;
	run_windows(&v);
}

static void intel_gp_trigger_legacy_writes(void **state)
{
	const struct variant v = { PMIPROF_VENDOR_INTEL, 2, false, true };

	(void)state;
	run_windows(&v);
}

static void intel_gp_trigger_full_width(void **state)
{
	const struct variant v = { PMIPROF_VENDOR_INTEL, 4, true, true };

	(void)state;
	run_windows(&v);
}

static void amd_perfmon_v2(void **state)
{
	const struct variant v = { PMIPROF_VENDOR_AMD, 2, false, false };

	(void)state;
	run_windows(&v);
}

static void amd_sign_bit(void **state)
{
	const struct variant v = { PMIPROF_VENDOR_AMD, 1, false, false };

	(void)state;
	run_windows(&v);
}

/*
 * Overshoot: the PMI is taken 123 events after the overflow.  The record
 * says N + 123, the counter is re-armed to -(N - 123), and the next
 * overflow happens exactly at 2N retired instructions.
 */
static void rearm_carries_overshoot(void **state)
{
	struct pmu_model_spec spec;
	struct pmiprof_event ev[2];
	struct kcore k;

	(void)state;
	pmiprof_pmu_model_spec_default(&spec, PMIPROF_VENDOR_INTEL);
	assert_int_equal(kcore_setup(&k, &spec), 0);
	ev[0] = kcore_ev(0xc0, 0, true, PERIOD);
	ev[1] = kcore_ev(0x3c, 0, false, 0);
	assert_int_equal(kcore_configure(&k, ev, 2, 0, PERIOD), 0);
	assert_int_equal(kcore_start(&k), 0);
	assert_int_equal(k.model.fixed[0], (0 - PERIOD) & k.model.mask);

	pmiprof_pmu_model_advance(&k.model, PERIOD - 1, 10);
	assert_int_equal(k.model.pmi_pending, 0);
	pmiprof_pmu_model_advance(&k.model, 124, 10);		/* overflow + 123 of skid */
	assert_int_equal(k.model.pmi_pending, 1);
	kcore_take_pmis(&k);
	assert_int_equal(kcore_nrecs, 1);
	assert_int_equal(kcore_recs[0].counts[0], PERIOD + 123);
	assert_int_equal(kcore_recs[0].counts[1], 20);
	assert_int_equal(kcore_recs[0].status, BIT_ULL(32));
	assert_int_equal(k.model.fixed[0], (0 - (PERIOD - 123)) & k.model.mask);
	assert_int_equal(k.pc.left, PERIOD - 123);

	/* 2N - (N + 123) - 1 more: still no overflow; one more: overflow at exactly 2N. */
	pmiprof_pmu_model_advance(&k.model, PERIOD - 123 - 1, 0);
	assert_int_equal(k.model.pmi_pending, 0);
	pmiprof_pmu_model_advance(&k.model, 1, 0);
	assert_int_equal(k.model.pmi_pending, 1);
	assert_int_equal(k.model.instructions, 2 * PERIOD);
	kcore_take_pmis(&k);
	assert_int_equal(kcore_recs[1].counts[0], PERIOD - 123);
	assert_int_equal(pmiprof_pmu_rearm_left(PERIOD, 0), PERIOD);
	assert_int_equal(pmiprof_pmu_rearm_left(PERIOD, PERIOD + 5), PERIOD - 5);	/* merged window */
	assert_int_equal(pmiprof_pmu_rearm_left(10, 9), 2);	/* never below 2 */
}

static void take(void *arg)
{
	kcore_take_pmis(arg);
}

/*
 * pmu=emul's late tick: 10.5 periods arrive in one tick.  Advancing one
 * period at a time gives every overflow its own PMI and window; in one
 * piece they would merge into a single window.
 */
static void late_tick_gets_one_pmi_per_period(void **state)
{
	struct pmu_model_spec spec;
	struct pmiprof_event ev[2] = {
		kcore_ev(0xc0, 0, true, PERIOD), kcore_ev(0x3c, 0, false, 0)
	};
	struct kcore k;
	u64 sum = 0, cyc = 0;
	size_t i;

	(void)state;
	pmiprof_pmu_model_spec_default(&spec, PMIPROF_VENDOR_INTEL);
	assert_int_equal(kcore_setup(&k, &spec), 0);
	assert_int_equal(kcore_configure(&k, ev, 2, 0, PERIOD), 0);
	assert_int_equal(kcore_start(&k), 0);
	pmiprof_pmu_model_run(&k.model, 10 * PERIOD + PERIOD / 2, 21 * PERIOD, PERIOD, 64, take, &k);
	assert_int_equal(kcore_nrecs, 10);
	for (i = 0; i < kcore_nrecs; i++) {
		assert_int_equal(kcore_recs[i].counts[0], PERIOD);
		assert_int_equal(kcore_recs[i].counts[1], 2 * PERIOD);	/* cycles in proportion */
		sum += kcore_recs[i].counts[0];
		cyc += kcore_recs[i].counts[1];
	}
	assert_int_equal(sum, 10 * PERIOD);
	assert_int_equal(cyc + 2 * (PERIOD / 2), k.model.cycles);

	/* Capped at 4 steps: the last step carries the rest, one merged window. */
	kcore_reset_recs();
	pmiprof_pmu_model_run(&k.model, 10 * PERIOD, 0, PERIOD, 4, take, &k);
	assert_int_equal(kcore_nrecs, 4);
	assert_int_equal(kcore_recs[3].counts[0], 7 * PERIOD);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(intel_fixed_full_width),
		cmocka_unit_test(intel_gp_trigger_legacy_writes),
		cmocka_unit_test(intel_gp_trigger_full_width),
		cmocka_unit_test(amd_perfmon_v2),
		cmocka_unit_test(amd_sign_bit),
		cmocka_unit_test(rearm_carries_overshoot),
		cmocka_unit_test(late_tick_gets_one_pmi_per_period),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
