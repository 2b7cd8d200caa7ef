// SPDX-License-Identifier: GPL-2.0
/*
 * test_pmi_coexist.c - how the PMU core shares the PMU and picks what it may
 * count, against the MSR model: the probe writes no counter before the
 * counters are reserved, reservations are taken and dropped whole, Intel
 * model-specific events are gated by CPU model and by the CPU's core type
 * on hybrid parts, PMC3 stays unused under TSX_FORCE_ABORT microcode, a PMI
 * from KVM guest mode is flagged without an ip, and CONFIGURE has one
 * validation path, pmu=none included.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "kcore.h"

#define N 512000ull

static void spec_intel(struct pmu_model_spec *spec, u32 family, u32 model)
{
	pmiprof_pmu_model_spec_default(spec, PMIPROF_VENDOR_INTEL);
	spec->family = family;
	spec->model = model;
}

/* Item 4: drv->probe() is enumeration only; counter 0 is written reserved. */
static void probe_writes_no_counter_before_reserving(void **state)
{
	const u32 vendors[] = { PMIPROF_VENDOR_INTEL, PMIPROF_VENDOR_AMD };
	struct pmu_model_spec spec;
	struct pmu_probe_res res;
	struct kcore k;
	u32 v, idx = 99;

	(void)state;
	for (v = 0; v < ARRAY_SIZE(vendors); v++) {
		pmiprof_pmu_model_spec_default(&spec, vendors[v]);
		assert_int_equal(kcore_setup(&k, &spec), 0);
		assert_int_equal(k.probe_model.acc[PMU_ACC_CTR_WR], 0);
		assert_int_equal(k.probe_model.unreserved_wr, 0);

		assert_int_equal(pmiprof_pmu_reserve(&k.hw, &idx), 0);
		assert_int_equal(pmiprof_pmu_probe_cpu(&k.pc, &res), 0);
		assert_true(k.probe_model.acc[PMU_ACC_CTR_WR] >= 2);	/* probe value, restore */
		assert_int_equal(k.probe_model.unreserved_wr, 0);
		pmiprof_pmu_release(&k.hw);

		/* QEMU TCG: the counter does not hold the value; refused by the probe */
		k.probe_model.tcg = true;
		assert_int_equal(pmiprof_pmu_reserve(&k.hw, &idx), 0);
		assert_int_equal(pmiprof_pmu_probe_cpu(&k.pc, &res), -ENODEV);
		assert_int_equal(res.got, 0);
		assert_int_not_equal(res.wrote, 0);
		pmiprof_pmu_release(&k.hw);
	}
}

/* Item 5: every GP counter reserved together, dropped together, none left on -EBUSY. */
static void reservation_taken_and_dropped_whole(void **state)
{
	struct pmu_model_spec spec;
	struct pmiprof_info info;
	struct kcore k;
	u32 idx = 99;

	(void)state;
	pmiprof_pmu_model_spec_default(&spec, PMIPROF_VENDOR_AMD);
	assert_int_equal(kcore_setup(&k, &spec), 0);
	assert_int_equal(k.probe_model.reserved, 0);	/* loaded, no session: perf may use it */
	pmiprof_pmu_fill_info(&k.hw, &info);
	assert_false(info.flags & PMIPROF_INFO_F_RESERVED);

	assert_int_equal(pmiprof_pmu_reserve(&k.hw, &idx), 0);	/* START */
	assert_int_equal(k.probe_model.reserved, 0x3f);
	assert_int_equal(k.hw.nr_reserved, 6);
	pmiprof_pmu_fill_info(&k.hw, &info);
	assert_true(info.flags & PMIPROF_INFO_F_RESERVED);
	assert_int_equal(pmiprof_pmu_reserve(&k.hw, &idx), 0);	/* idempotent: no double count */
	assert_int_equal(k.probe_model.reservations, 6);
	pmiprof_pmu_release(&k.hw);				/* STOP */
	assert_int_equal(k.probe_model.reserved, 0);
	assert_int_equal(k.probe_model.releases, 6);
	pmiprof_pmu_fill_info(&k.hw, &info);
	assert_false(info.flags & PMIPROF_INFO_F_RESERVED);

	k.probe_model.perf_held = BIT(2);		/* perf has a hardware event */
	assert_int_equal(pmiprof_pmu_reserve(&k.hw, &idx), -EBUSY);
	assert_int_equal(idx, 2);
	assert_int_equal(k.probe_model.reserved, 0);
	assert_int_equal(k.hw.nr_reserved, 0);
}

static int config_start(struct kcore *k, const struct pmiprof_event *ev, u32 n)
{
	int err = kcore_configure(k, ev, n, 0, N);

	return err ? err : kcore_start(k);
}

/* Item 8: model-specific encodings only on the models that have them, never on E-cores. */
static void model_specific_events_gated_by_cpu_model_and_core_type(void **state)
{
	const struct {
		u32 family, model;
		bool atom, core;
		int uops, l3miss;	/* expected configure+start result */
	} cpus[] = {
		{ 6, 0x5e, false, false, 0, 0 },		/* Skylake */
		{ 6, 0x7e, false, false, 0, 0 },		/* Ice Lake client */
		{ 6, 0x8f, false, false, -EOPNOTSUPP, 0 },	/* Sapphire Rapids: uops moved */
		{ 6, 0x97, false, true, -EOPNOTSUPP, 0 },	/* Alder Lake P-core */
		{ 6, 0x97, true, false, -EOPNOTSUPP, -EOPNOTSUPP },	/* Alder Lake E-core */
		{ 6, 0x5c, false, false, -EOPNOTSUPP, -EOPNOTSUPP },	/* Goldmont */
		{ 6, 0x3c, false, false, -EOPNOTSUPP, -EOPNOTSUPP },	/* Haswell */
		{ 0x13, 0x01, false, false, -EOPNOTSUPP, -EOPNOTSUPP },	/* a future family */
	};
	struct pmiprof_event ins = kcore_ev(0xc0, 0, true, N);
	struct pmu_model_spec spec;
	struct kcore k;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cpus); i++) {
		struct pmiprof_event uops[2] = { ins, kcore_ev(0x0e, 0x01, false, 0) };
		struct pmiprof_event l3[2] = { ins, kcore_ev(0xd1, 0x20, false, 0) };
		int got;

		spec_intel(&spec, cpus[i].family, cpus[i].model);
		spec.hybrid_atom = cpus[i].atom;
		spec.hybrid_core = cpus[i].core;
		assert_int_equal(kcore_setup(&k, &spec), 0);
		got = config_start(&k, uops, 2);
		if (got != cpus[i].uops)
			fail_msg("model %#x atom %d: UOPS_ISSUED.ANY %d, want %d", cpus[i].model,
				 cpus[i].atom, got, cpus[i].uops);
		kcore_stop(&k);

		assert_int_equal(kcore_setup(&k, &spec), 0);
		got = config_start(&k, l3, 2);
		if (got != cpus[i].l3miss)
			fail_msg("model %#x atom %d: MEM_LOAD_RETIRED.L3_MISS %d, want %d",
				 cpus[i].model, cpus[i].atom, got, cpus[i].l3miss);
		if (got)	/* refused: nothing of ours was enabled on this CPU */
			assert_int_equal(k.model.global_ctrl | k.model.ctl[0] | k.model.fixed_ctrl, 0);
		kcore_stop(&k);

		/* architectural events everywhere, E-cores included */
		assert_int_equal(kcore_setup(&k, &spec), 0);
		l3[1] = kcore_ev(0xc4, 0x00, false, 0);
		assert_int_equal(config_start(&k, l3, 2), 0);
		kcore_stop(&k);
	}
}

/* Item 9: PMC3 never enabled while RTM_FORCE_ABORT would be needed for it. */
static void tsx_force_abort_keeps_pmc3_unused(void **state)
{
	struct pmiprof_event ev[5] = {
		kcore_ev(0xc0, 0, true, N), kcore_ev(0x2e, 0x4f, false, 0),
		kcore_ev(0x2e, 0x41, false, 0), kcore_ev(0xc4, 0, false, 0),
		kcore_ev(0xc5, 0, false, 0),
	};
	struct pmu_model_spec spec;
	struct kcore k;
	u32 i;

	(void)state;
	spec_intel(&spec, 6, 0x5e);		/* Skylake, 4 GP counters */
	spec.tsx_force_abort = true;
	assert_int_equal(kcore_setup(&k, &spec), 0);
	assert_int_equal(kcore_configure(&k, ev, 5, 0, N), -ENOSPC);	/* 4 GP events */
	assert_non_null(strstr(k.hw.reason, "TSX_FORCE_ABORT"));
	assert_int_equal(config_start(&k, ev, 4), 0);			/* 3 GP events */
	for (i = 1; i < 4; i++)
		assert_true(k.hw.slots[i].idx != 3);
	kcore_run(&k, 10000000, 4000, 7);
	assert_int_equal(k.model.pmc3_unsafe, 0);
	assert_true(kcore_nrecs > 0);
	kcore_stop(&k);

	/* without the microcode bit, or with TSX deprecated, PMC3 is used */
	spec.tsx_force_abort = false;
	assert_int_equal(kcore_setup(&k, &spec), 0);
	assert_int_equal(config_start(&k, ev, 5), 0);
	kcore_stop(&k);
	spec.tsx_force_abort = true;
	spec.rtm_always_abort = true;
	assert_int_equal(kcore_setup(&k, &spec), 0);
	assert_int_equal(config_start(&k, ev, 5), 0);
	assert_int_equal(k.model.pmc3_unsafe, 0);
	kcore_stop(&k);
}

/* Item 10: a PMI from guest mode closes its window, flagged GUEST, ip 0, counted. */
static void guest_mode_pmi_flagged_without_ip(void **state)
{
	struct pmiprof_event ev[1] = { kcore_ev(0xc0, 0, true, N) };
	struct pmu_model_spec spec;
	struct kcore k;
	size_t i, host;

	(void)state;
	pmiprof_pmu_model_spec_default(&spec, PMIPROF_VENDOR_INTEL);
	assert_int_equal(kcore_setup(&k, &spec), 0);
	assert_int_equal(config_start(&k, ev, 1), 0);
	kcore_run(&k, 10 * N, 4000, 3);
	host = kcore_nrecs;
	k.guest = true;
	k.user = false;
	k.ip = 0xffffffffc0a01234ull;	/* KVM's run loop */
	k.hw.kernel_ips = true;
	kcore_run(&k, 10 * N, 4000, 3);
	assert_in_range(kcore_nrecs - host, 9, 11);	/* 10 periods, up to a step of skid */
	assert_int_equal(k.pc.stats.guest, kcore_nrecs - host);
	for (i = host; i < kcore_nrecs; i++) {
		assert_int_equal(kcore_recs[i].ip, 0);
		assert_true(kcore_recs[i].flags & PMIPROF_REC_F_GUEST);
		assert_false(kcore_recs[i].flags &
			     (PMIPROF_REC_F_USER | PMIPROF_REC_F_KERNEL | PMIPROF_REC_F_IP_HIDDEN));
		assert_in_range(kcore_recs[i].counts[0], N - 4000, N + 4000);
	}
	for (i = 0; i < host; i++)
		assert_false(kcore_recs[i].flags & PMIPROF_REC_F_GUEST);
	kcore_stop(&k);
}

/* Item 13: pmiprof_pmu_configure() is the only validator, for pmu=none too. */
static void configure_validates_without_a_pmu(void **state)
{
	struct pmiprof_config cfg;
	struct pmu_hw hw;

	(void)state;
	memset(&hw, 0, sizeof(hw));	/* pmu=none: no driver */
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.mode = PMIPROF_SAMPLING_TIMER;
	cfg.timer_ns = 1000000;
	assert_int_equal(pmiprof_pmu_configure(&hw, &cfg), 0);
	assert_true(hw.configured);
	assert_int_equal(hw.trigger, -1);
	assert_int_equal(hw.max_rate, PMU_DEFAULT_MAX_RATE);

	cfg.timer_ns = 10;
	assert_int_equal(pmiprof_pmu_configure(&hw, &cfg), -EINVAL);
	assert_false(hw.configured);
	cfg.timer_ns = 1000000;
	cfg.reserved[3] = 1;
	assert_int_equal(pmiprof_pmu_configure(&hw, &cfg), -EINVAL);
	cfg.reserved[3] = 0;
	cfg.nr_events = 1;
	cfg.events[0] = kcore_ev(0xc0, 0, false, 0);
	assert_int_equal(pmiprof_pmu_configure(&hw, &cfg), -EOPNOTSUPP);
	cfg.nr_events = 0;
	cfg.mode = PMIPROF_SAMPLING_PMI;
	assert_int_equal(pmiprof_pmu_configure(&hw, &cfg), -EOPNOTSUPP);
	cfg.mode = 9;
	assert_int_equal(pmiprof_pmu_configure(&hw, &cfg), -EINVAL);
	cfg.mode = PMIPROF_SAMPLING_TIMER;
	cfg.max_rate = PMU_DEFAULT_MAX_RATE + 1;
	assert_int_equal(pmiprof_pmu_configure(&hw, &cfg), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(probe_writes_no_counter_before_reserving),
		cmocka_unit_test(reservation_taken_and_dropped_whole),
		cmocka_unit_test(model_specific_events_gated_by_cpu_model_and_core_type),
		cmocka_unit_test(tsx_force_abort_keeps_pmc3_unused),
		cmocka_unit_test(guest_mode_pmi_flagged_without_ip),
		cmocka_unit_test(configure_validates_without_a_pmu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
