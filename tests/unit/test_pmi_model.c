// SPDX-License-Identifier: GPL-2.0
/*
 * test_pmi_model.c - the MSR model has the hardware's semantics, checked
 * register by register (the handler tests rely on them): counter width and
 * wrap, legacy sign-extended vs full-width writes, GLOBAL_STATUS read-only,
 * write-1-to-clear acks, EVENTSEL.EN and GLOBAL_CTRL both gating, USR/OS
 * ring filters, fixed-counter nibbles, LVTPC masking on Intel only, the v2/v3
 * and v4 freeze-on-PMI, AMD K7 aliases, AMD writes without sign extension,
 * PerfMonV2 registers, CPUID enumeration, and GET_INFO built from a probe.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "kcore.h"

static void intel_model(struct pmu_model *m, u32 version, bool full_width)
{
	struct pmu_model_spec spec;

	pmiprof_pmu_model_spec_default(&spec, PMIPROF_VENDOR_INTEL);
	spec.version = version;
	spec.full_width = full_width;
	pmiprof_pmu_model_init(m, &spec);
	m->lvtpc = PMU_APIC_DM_NMI;
}

static void intel_counter_width_wrap_and_status(void **state)
{
	struct pmu_model m;

	(void)state;
	intel_model(&m, 4, true);
	pmiprof_pmu_model_wrmsr(&m, PMU_MSR_IA32_A_PMC0, m.mask - 4);
	pmiprof_pmu_model_wrmsr(&m, PMU_MSR_IA32_PERFEVTSEL0, 0xc0 | PMU_EVTSEL_USR | PMU_EVTSEL_EN);
	pmiprof_pmu_model_advance(&m, 5, 0);
	assert_int_equal(m.gp[0], m.mask - 4);	/* GLOBAL_CTRL bit clear: no count */
	pmiprof_pmu_model_wrmsr(&m, PMU_MSR_IA32_GLOBAL_CTRL, 1);
	pmiprof_pmu_model_advance(&m, 8, 0);
	assert_int_equal(pmiprof_pmu_model_rdmsr(&m, PMU_MSR_IA32_A_PMC0), 3);	/* wrapped at 2^48 */
	assert_int_equal(pmiprof_pmu_model_rdmsr(&m, PMU_MSR_IA32_GLOBAL_STATUS), 1);
	assert_int_equal(m.pmi_pending, 0);	/* no INT bit: status only */

	pmiprof_pmu_model_wrmsr(&m, PMU_MSR_IA32_GLOBAL_STATUS, 0);	/* read-only: #GP */
	assert_int_equal(m.faults, 1);
	assert_int_equal(m.last_fault_msr, PMU_MSR_IA32_GLOBAL_STATUS);
	pmiprof_pmu_model_set_status(&m, BIT_ULL(5));
	pmiprof_pmu_model_wrmsr(&m, PMU_MSR_IA32_GLOBAL_OVF_CTRL, 1);	/* W1C: only bit 0 */
	assert_int_equal(pmiprof_pmu_model_rdmsr(&m, PMU_MSR_IA32_GLOBAL_STATUS), BIT_ULL(5));

	/* EN clear: no count even with GLOBAL_CTRL set */
	pmiprof_pmu_model_wrmsr(&m, PMU_MSR_IA32_PERFEVTSEL0, 0xc0 | PMU_EVTSEL_USR);
	pmiprof_pmu_model_advance(&m, 100, 0);
	assert_int_equal(m.gp[0], 3);
	pmiprof_pmu_model_rdmsr(&m, 0x600);	/* IA32_DS_AREA: not modelled, #GP */
	assert_int_equal(m.faults, 2);
}

static void intel_writes_legacy_and_full_width(void **state)
{
	struct pmu_model m;

	(void)state;
	intel_model(&m, 4, false);
	pmiprof_pmu_model_wrmsr(&m, PMU_MSR_IA32_PMC0 + 1, 0x80000000ull);	/* bit 31 set */
	assert_int_equal(m.gp[1], 0xffff80000000ull);
	pmiprof_pmu_model_wrmsr(&m, PMU_MSR_IA32_PMC0 + 1, 0x1234567890ull);	/* bits 32+ dropped */
	assert_int_equal(m.gp[1], 0x34567890ull);
	pmiprof_pmu_model_wrmsr(&m, PMU_MSR_IA32_A_PMC0 + 1, 5);	/* no FW_WRITE */
	assert_int_equal(m.faults, 1);
	assert_int_equal(pmiprof_pmu_model_rdmsr(&m, PMU_MSR_IA32_PERF_CAPABILITIES), 0);

	intel_model(&m, 4, true);
	assert_int_equal(pmiprof_pmu_model_rdmsr(&m, PMU_MSR_IA32_PERF_CAPABILITIES),
			 PMU_PERF_CAP_FW_WRITE);
	pmiprof_pmu_model_wrmsr(&m, PMU_MSR_IA32_A_PMC0 + 1, 0x1234567890ull);
	assert_int_equal(m.gp[1], 0x1234567890ull);
	pmiprof_pmu_model_wrmsr(&m, PMU_MSR_IA32_A_PMC0 + 1, BIT_ULL(48));	/* beyond the width */
	assert_int_equal(m.faults, 1);
	/* fixed counters take the value as is (no sign extension) */
	pmiprof_pmu_model_wrmsr(&m, PMU_MSR_IA32_FIXED_CTR0, 0x7fffffffull);
	assert_int_equal(m.fixed[0], 0x7fffffffull);
}

static void intel_rings_fixed_nibbles_and_lvtpc(void **state)
{
	struct pmu_model m;

	(void)state;
	intel_model(&m, 4, true);
	/* fixed 0: user only, PMI; fixed 1: kernel only */
	pmiprof_pmu_model_wrmsr(&m, PMU_MSR_IA32_FIXED_CTR_CTRL, 0x0a | (0x1 << 4));
	pmiprof_pmu_model_wrmsr(&m, PMU_MSR_IA32_GLOBAL_CTRL, BIT_ULL(32) | BIT_ULL(33));
	m.user = true;
	pmiprof_pmu_model_advance(&m, 10, 20);
	m.user = false;
	pmiprof_pmu_model_advance(&m, 1, 7);
	assert_int_equal(m.fixed[0], 10);
	assert_int_equal(m.fixed[1], 7);

	pmiprof_pmu_model_wrmsr(&m, PMU_MSR_IA32_FIXED_CTR0, m.mask);
	m.user = true;
	pmiprof_pmu_model_advance(&m, 1, 0);
	assert_int_equal(m.pmi_pending, 1);
	assert_true(m.lvtpc & PMU_APIC_LVT_MASKED);	/* Intel masks on delivery */
	assert_int_equal(pmiprof_pmu_model_rdmsr(&m, PMU_MSR_IA32_GLOBAL_STATUS), BIT_ULL(32));
	pmiprof_pmu_model_wrmsr(&m, PMU_MSR_IA32_FIXED_CTR0, m.mask);
	pmiprof_pmu_model_advance(&m, 1, 0);
	assert_int_equal(m.pmi_pending, 1);	/* masked: this one is lost */
	assert_int_equal(m.pmis_masked, 1);
	pmiprof_pmu_model_lvtpc(&m);
	assert_int_equal(m.lvtpc, PMU_APIC_DM_NMI);
}

static void intel_freeze_on_pmi(void **state)
{
	struct pmu_model m;

	(void)state;
	/* v2/v3: the legacy freeze clears GLOBAL_CTRL */
	intel_model(&m, 3, false);
	m.debugctl = PMU_DEBUGCTL_FREEZE_ON_PMI;
	pmiprof_pmu_model_wrmsr(&m, PMU_MSR_IA32_FIXED_CTR_CTRL, 0xb);
	pmiprof_pmu_model_wrmsr(&m, PMU_MSR_IA32_GLOBAL_CTRL, BIT_ULL(32));
	pmiprof_pmu_model_wrmsr(&m, PMU_MSR_IA32_FIXED_CTR0, m.mask);
	pmiprof_pmu_model_advance(&m, 1, 0);
	assert_int_equal(m.pmi_pending, 1);
	assert_int_equal(m.global_ctrl, 0);
	pmiprof_pmu_model_advance(&m, 9, 0);
	assert_int_equal(m.fixed[0], 0);	/* frozen */

	/* v4: CTR_Frz in the status; counting resumes when it is acked */
	intel_model(&m, 4, true);
	m.debugctl = PMU_DEBUGCTL_FREEZE_ON_PMI;
	pmiprof_pmu_model_wrmsr(&m, PMU_MSR_IA32_FIXED_CTR_CTRL, 0xb);
	pmiprof_pmu_model_wrmsr(&m, PMU_MSR_IA32_GLOBAL_CTRL, BIT_ULL(32));
	pmiprof_pmu_model_wrmsr(&m, PMU_MSR_IA32_FIXED_CTR0, m.mask);
	pmiprof_pmu_model_advance(&m, 1, 0);
	assert_int_equal(pmiprof_pmu_model_rdmsr(&m, PMU_MSR_IA32_GLOBAL_STATUS),
			 BIT_ULL(32) | PMU_STATUS_CTR_FRZ);
	assert_int_equal(m.global_ctrl, BIT_ULL(32));
	pmiprof_pmu_model_advance(&m, 9, 0);
	assert_int_equal(m.fixed[0], 0);
	pmiprof_pmu_model_wrmsr(&m, PMU_MSR_IA32_GLOBAL_OVF_CTRL, BIT_ULL(32) | PMU_STATUS_CTR_FRZ);
	pmiprof_pmu_model_advance(&m, 9, 0);
	assert_int_equal(m.fixed[0], 9);
}

static void amd_core_and_perfmon_v2(void **state)
{
	struct pmu_model_spec spec;
	struct pmu_model m;

	(void)state;
	pmiprof_pmu_model_spec_default(&spec, PMIPROF_VENDOR_AMD);
	spec.version = 1;
	pmiprof_pmu_model_init(&m, &spec);
	m.lvtpc = PMU_APIC_DM_NMI;
	/* K7 aliases are counters 0-3 of the PerfCtrCore set */
	pmiprof_pmu_model_wrmsr(&m, PMU_MSR_K7_PERFCTR0 + 2, 0xfff0000000000123ull);	/* 48 bits kept */
	assert_int_equal(pmiprof_pmu_model_rdmsr(&m, PMU_MSR_F15H_PERF_CTR0 + 4), 0x123);
	pmiprof_pmu_model_wrmsr(&m, PMU_MSR_F15H_PERF_CTL0 + 4, 0x76 | PMU_EVTSEL_EN | PMU_EVTSEL_INT);
	assert_int_equal(pmiprof_pmu_model_rdmsr(&m, PMU_MSR_K7_EVNTSEL0 + 2), 0x76 | PMU_EVTSEL_EN |
			 PMU_EVTSEL_INT);
	/* no USR/OS bit on AMD: counts in both rings; no global gate on a v1 PMU */
	pmiprof_pmu_model_wrmsr(&m, PMU_MSR_F15H_PERF_CTR0 + 4, m.mask - 1);
	pmiprof_pmu_model_advance(&m, 1, 3);
	assert_int_equal(m.gp[2], 1);	/* wrapped: bit 47 clear */
	assert_int_equal(m.pmi_pending, 1);
	assert_int_equal(m.lvtpc, PMU_APIC_DM_NMI);	/* AMD does not mask it */
	pmiprof_pmu_model_rdmsr(&m, PMU_MSR_AMD_GLOBAL_STATUS);	/* no PerfMonV2 */
	assert_int_equal(m.faults, 1);
	pmiprof_pmu_model_rdmsr(&m, PMU_MSR_F15H_PERF_CTR0 + 12);	/* counter 6 does not exist */
	assert_int_equal(m.faults, 2);

	spec.version = 2;
	pmiprof_pmu_model_init(&m, &spec);
	m.lvtpc = PMU_APIC_DM_NMI;
	pmiprof_pmu_model_wrmsr(&m, PMU_MSR_F15H_PERF_CTL0, 0xc0 | PMU_EVTSEL_EN | PMU_EVTSEL_INT);
	pmiprof_pmu_model_wrmsr(&m, PMU_MSR_F15H_PERF_CTR0, m.mask);
	pmiprof_pmu_model_advance(&m, 1, 0);
	assert_int_equal(m.gp[0], m.mask);	/* GLOBAL_CTL gates PerfMonV2 counters */
	pmiprof_pmu_model_wrmsr(&m, PMU_MSR_AMD_GLOBAL_CTL, 1);
	pmiprof_pmu_model_advance(&m, 1, 0);
	assert_int_equal(pmiprof_pmu_model_rdmsr(&m, PMU_MSR_AMD_GLOBAL_STATUS), 1);
	pmiprof_pmu_model_wrmsr(&m, PMU_MSR_AMD_GLOBAL_STATUS_CLR, 1);
	assert_int_equal(pmiprof_pmu_model_rdmsr(&m, PMU_MSR_AMD_GLOBAL_STATUS), 0);
	assert_int_equal(m.faults, 0);
}

static void cpuid_and_info(void **state)
{
	struct pmiprof_info info;
	struct pmu_model_spec spec;
	struct kcore k;
	u32 a, b, c, d;

	(void)state;
	pmiprof_pmu_model_spec_default(&spec, PMIPROF_VENDOR_INTEL);
	assert_int_equal(kcore_setup(&k, &spec), 0);
	pmiprof_pmu_model_cpuid(&k.model, 0xa, 0, &a, &b, &c, &d);
	assert_int_equal(a & 0xff, 4);
	assert_int_equal((a >> 8) & 0xff, 4);
	assert_int_equal((a >> 16) & 0xff, 48);
	assert_int_equal(d & 0x1f, 3);
	assert_int_equal(pmiprof_pmu_cpuid_vendor(&k.hw), PMIPROF_VENDOR_INTEL);
	memset(&info, 0, sizeof(info));
	pmiprof_pmu_fill_info(&k.hw, &info);
	assert_string_equal(info.pmu_name, "emul-intel-v4");
	assert_true(info.flags & PMIPROF_INFO_F_EMULATED);
	assert_int_equal(info.vendor, PMIPROF_VENDOR_INTEL);
	assert_int_equal(info.nr_gp, 4);
	assert_int_equal(info.nr_fixed, 3);
	assert_int_equal(info.cpu_family, 6);
	assert_int_equal(info.cpu_model, 0x8f);
	assert_int_equal(info.min_period, PMU_MIN_PERIOD);
	assert_int_equal(info.max_period, BIT_ULL(47) - 1);
	assert_int_equal(info.record_size, sizeof(struct pmiprof_sample_rec));
	assert_true(info.caps & PMIPROF_CAP_FULL_WIDTH);

	pmiprof_pmu_model_spec_default(&spec, PMIPROF_VENDOR_AMD);
	assert_int_equal(kcore_setup(&k, &spec), 0);
	pmiprof_pmu_fill_info(&k.hw, &info);
	assert_string_equal(info.pmu_name, "emul-amd-v2");
	assert_int_equal(info.cpu_family, 0x19);
	assert_int_equal(info.cpu_model, 0x61);
	assert_int_equal(info.nr_gp, 6);
	assert_int_equal(k.hw.evntsel_msr[5], PMU_MSR_F15H_PERF_CTL0 + 10);
	assert_int_equal(k.hw.perfctr_msr[5], PMU_MSR_F15H_PERF_CTR0 + 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(intel_counter_width_wrap_and_status),
		cmocka_unit_test(intel_writes_legacy_and_full_width),
		cmocka_unit_test(intel_rings_fixed_nibbles_and_lvtpc),
		cmocka_unit_test(intel_freeze_on_pmi),
		cmocka_unit_test(amd_core_and_perfmon_v2),
		cmocka_unit_test(cpuid_and_info),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
