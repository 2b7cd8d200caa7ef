// SPDX-License-Identifier: GPL-2.0
/*
 * Which events user space may ask for, and how their
 * control words are built (docs/kernel-pmu-core.md, "Events").  User space names an
 * event by code/umask/cmask/flags; it never supplies an MSR number or a raw
 * control word.  Only event, umask, cmask, EDGE, INV, USR, OS come from the
 * request; INT and EN are forced by the driver; PC, AnyThread and every bit
 * from 32 up (TSX filters, adaptive PEBS, EQ, UMASK2, AMD Host/GuestOnly)
 * are never set.  Events that need an extra MSR (OFFCORE_RESPONSE 0xb7/0xbb,
 * load latency 0xcd) are refused.  Intel events outside the architectural
 * set are model-specific encodings: each is accepted only on the CPU models
 * whose SDM event tables list it (family 6 big cores), and a configuration
 * holding one refuses to start on a hybrid part's Atom (E-core) CPUs, where
 * the same code counts something else.
 */
#include "pmu.h"

struct wl_event {
	u16 event;
	u8 umask;
	s8 arch_bit;	/* Intel CPUID.0AH EBX bit (set = absent); -1: not architectural */
	u32 uarch;	/* Intel: PMU_UARCH_* the encoding needs; 0: any CPU of the vendor */
};

/* Intel architectural events, then a short curated list of big-core encodings. */
static const struct wl_event intel_events[] = {
	{ 0x3c, 0x00, 0, 0 },	/* UNHALTED_CORE_CYCLES */
	{ 0xc0, 0x00, 1, 0 },	/* INST_RETIRED.ANY_P */
	{ 0x3c, 0x01, 2, 0 },	/* UNHALTED_REFERENCE_CYCLES */
	{ 0x2e, 0x4f, 3, 0 },	/* LLC references */
	{ 0x2e, 0x41, 4, 0 },	/* LLC misses */
	{ 0xc4, 0x00, 5, 0 },	/* BR_INST_RETIRED.ALL_BRANCHES */
	{ 0xc5, 0x00, 6, 0 },	/* BR_MISP_RETIRED.ALL_BRANCHES */
	{ 0x00, 0x03, -1, 0 },	/* ref-cycles pseudo-encoding: fixed counter 2 only */
	/* Golden Cove moved UOPS_ISSUED.ANY to 0xae/0x01: Skylake .. Tiger/Rocket Lake only */
	{ 0x0e, 0x01, -1, PMU_UARCH_SKL_ICL },	/* UOPS_ISSUED.ANY */
	{ 0xd1, 0x01, -1, PMU_UARCH_SKL_GLC },	/* MEM_LOAD_RETIRED.L1_HIT */
	{ 0xd1, 0x02, -1, PMU_UARCH_SKL_GLC },	/* MEM_LOAD_RETIRED.L2_HIT */
	{ 0xd1, 0x04, -1, PMU_UARCH_SKL_GLC },	/* MEM_LOAD_RETIRED.L3_HIT */
	{ 0xd1, 0x08, -1, PMU_UARCH_SKL_GLC },	/* MEM_LOAD_RETIRED.L1_MISS */
	{ 0xd1, 0x10, -1, PMU_UARCH_SKL_GLC },	/* MEM_LOAD_RETIRED.L2_MISS */
	{ 0xd1, 0x20, -1, PMU_UARCH_SKL_GLC },	/* MEM_LOAD_RETIRED.L3_MISS */
};

/*
 * Family 6 big-core models (arch/x86/include/asm/intel-family.h names) and
 * the encoding classes their event tables share.  Atom-only parts, Xeon
 * Phi, pre-Skylake cores and models not listed get architectural events only.
 */
#define PMU_UARCH_SKL_BOTH	(PMU_UARCH_SKL_ICL | PMU_UARCH_SKL_GLC)

static const struct {
	u8 model;
	u32 uarch;
} intel_models[] = {
	{ 0x4e, PMU_UARCH_SKL_BOTH },	/* SKYLAKE_L */
	{ 0x5e, PMU_UARCH_SKL_BOTH },	/* SKYLAKE */
	{ 0x55, PMU_UARCH_SKL_BOTH },	/* SKYLAKE_X (Cascade/Cooper Lake) */
	{ 0x8e, PMU_UARCH_SKL_BOTH },	/* KABYLAKE_L */
	{ 0x9e, PMU_UARCH_SKL_BOTH },	/* KABYLAKE (Coffee Lake) */
	{ 0xa5, PMU_UARCH_SKL_BOTH },	/* COMETLAKE */
	{ 0xa6, PMU_UARCH_SKL_BOTH },	/* COMETLAKE_L */
	{ 0x66, PMU_UARCH_SKL_BOTH },	/* CANNONLAKE_L */
	{ 0x7d, PMU_UARCH_SKL_BOTH },	/* ICELAKE */
	{ 0x7e, PMU_UARCH_SKL_BOTH },	/* ICELAKE_L */
	{ 0x6a, PMU_UARCH_SKL_BOTH },	/* ICELAKE_X */
	{ 0x6c, PMU_UARCH_SKL_BOTH },	/* ICELAKE_D */
	{ 0x8c, PMU_UARCH_SKL_BOTH },	/* TIGERLAKE_L */
	{ 0x8d, PMU_UARCH_SKL_BOTH },	/* TIGERLAKE */
	{ 0xa7, PMU_UARCH_SKL_BOTH },	/* ROCKETLAKE */
	{ 0x97, PMU_UARCH_SKL_GLC },	/* ALDERLAKE (hybrid) */
	{ 0x9a, PMU_UARCH_SKL_GLC },	/* ALDERLAKE_L (hybrid) */
	{ 0xb7, PMU_UARCH_SKL_GLC },	/* RAPTORLAKE (hybrid) */
	{ 0xba, PMU_UARCH_SKL_GLC },	/* RAPTORLAKE_P (hybrid) */
	{ 0xbf, PMU_UARCH_SKL_GLC },	/* RAPTORLAKE_S (hybrid) */
	{ 0xaa, PMU_UARCH_SKL_GLC },	/* METEORLAKE (hybrid) */
	{ 0xac, PMU_UARCH_SKL_GLC },	/* METEORLAKE_L (hybrid) */
	{ 0x8f, PMU_UARCH_SKL_GLC },	/* SAPPHIRERAPIDS_X */
	{ 0xcf, PMU_UARCH_SKL_GLC },	/* EMERALDRAPIDS_X */
};

u32 pmiprof_pmu_intel_uarch(u32 family, u32 model)
{
	size_t i;

	if (family != 6)
		return 0;
	for (i = 0; i < ARRAY_SIZE(intel_models); i++)
		if (intel_models[i].model == model)
			return intel_models[i].uarch;
	return 0;
}

/* On the CPU concerned: 0 unless CPUID.07H EDX[15] (hybrid) and leaf 1AH exists. */
u32 pmiprof_pmu_intel_core_type(struct pmu_hw *hw)
{
	u32 a, b, c, d, max;

	hw->ops->cpuid(hw, 0, 0, &max, &b, &c, &d);
	if (max < 0x1a)
		return 0;
	hw->ops->cpuid(hw, 7, 0, &a, &b, &c, &d);
	if (!(d & BIT(15)))
		return 0;
	hw->ops->cpuid(hw, 0x1a, 0, &a, &b, &c, &d);
	return a >> 24;
}

/* AMD Zen core events (PPR "Core Performance Monitor Counters"). */
static const struct wl_event amd_events[] = {
	{ 0x76, 0x00, -1 },	/* Cycles not in halt */
	{ 0xc0, 0x00, -1 },	/* Retired instructions */
	{ 0xc1, 0x00, -1 },	/* Retired ops */
	{ 0xc2, 0x00, -1 },	/* Retired branch instructions */
	{ 0xc3, 0x00, -1 },	/* Retired branch instructions mispredicted */
	{ 0xc4, 0x00, -1 },	/* Retired taken branch instructions */
	{ 0x40, 0x00, -1 },	/* Data cache accesses */
	{ 0x41, 0x00, -1 },	/* Data cache misses (MAB allocations) */
	/* perf's cache-references/cache-misses encodings, which the daemon uses */
	{ 0x60, 0xff, -1 },	/* Zen: L2 cache requests, all */
	{ 0x64, 0x09, -1 },	/* Zen: L2 cache misses from DC misses */
	{ 0x7d, 0x07, -1 },	/* pre-Zen: L2 cache requests */
	{ 0x7e, 0x07, -1 },	/* pre-Zen: L2 cache misses */
};

/* 0: allowed; 1: allowed, but only on big (Core) cores; or a negative errno. */
int pmiprof_pmu_whitelist_check(const struct pmu_hw *hw, const struct pmiprof_event *ev,
				const char **why)
{
	const u32 known = PMIPROF_EV_USER | PMIPROF_EV_KERNEL | PMIPROF_EV_EDGE |
			  PMIPROF_EV_INV | PMIPROF_EV_TRIGGER;
	const struct wl_event *tab;
	size_t i, n;

	if (ev->flags & ~known) {
		*why = "unknown event flags";
		return -EINVAL;
	}
	if (!(ev->flags & (PMIPROF_EV_USER | PMIPROF_EV_KERNEL))) {
		*why = "event counts in neither user nor kernel mode";
		return -EINVAL;
	}
	if (hw->vendor == PMIPROF_VENDOR_INTEL && (ev->event == 0xb7 || ev->event == 0xbb ||
						   ev->event == 0xcd)) {
		*why = "event needs an extra MSR (offcore response / load latency)";
		return -EOPNOTSUPP;
	}
	if (hw->vendor == PMIPROF_VENDOR_INTEL) {
		tab = intel_events;
		n = ARRAY_SIZE(intel_events);
	} else if (hw->vendor == PMIPROF_VENDOR_AMD) {
		tab = amd_events;
		n = ARRAY_SIZE(amd_events);
	} else {
		*why = "no PMU";
		return -ENODEV;
	}
	for (i = 0; i < n; i++) {
		if (tab[i].event != ev->event || tab[i].umask != ev->umask)
			continue;
		if (tab[i].arch_bit >= 0 && (hw->arch_events_missing & BIT(tab[i].arch_bit))) {
			*why = "architectural event not available on this CPU (CPUID.0AH EBX)";
			return -EOPNOTSUPP;
		}
		if (tab[i].uarch && !(hw->uarch & tab[i].uarch)) {
			*why = "model-specific event encoding not valid on this CPU model";
			return -EOPNOTSUPP;
		}
		return tab[i].uarch ? 1 : 0;
	}
	*why = "event/umask not in the whitelist";
	return -EINVAL;
}

u64 pmiprof_pmu_build_evtsel(const struct pmu_hw *hw, const struct pmiprof_event *ev, bool pmi)
{
	u64 v = (ev->event & 0xffull) | ((u64)ev->umask << 8) | ((u64)ev->cmask << 24);

	if (hw->vendor == PMIPROF_VENDOR_AMD)
		v |= (u64)((ev->event >> 8) & 0xf) << 32;	/* EventSelect[11:8] */
	if (ev->flags & PMIPROF_EV_USER)
		v |= PMU_EVTSEL_USR;
	if (ev->flags & PMIPROF_EV_KERNEL)
		v |= PMU_EVTSEL_OS;
	if (ev->flags & PMIPROF_EV_EDGE)
		v |= PMU_EVTSEL_EDGE;
	if (ev->flags & PMIPROF_EV_INV)
		v |= PMU_EVTSEL_INV;
	if (pmi)
		v |= PMU_EVTSEL_INT;
	return v | PMU_EVTSEL_EN;
}

u64 pmiprof_pmu_build_fixed_nibble(const struct pmiprof_event *ev, bool pmi)
{
	u64 v = 0;

	if (ev->flags & PMIPROF_EV_KERNEL)
		v |= PMU_FIXED_OS;
	if (ev->flags & PMIPROF_EV_USER)
		v |= PMU_FIXED_USR;
	if (pmi)
		v |= PMU_FIXED_PMI;
	return v;	/* never AnyThread (0x4) */
}

/* Intel fixed counters: 0 instructions, 1 core cycles, 2 reference cycles. */
int pmiprof_pmu_intel_fixed_index(const struct pmiprof_event *ev)
{
	if (ev->cmask || (ev->flags & (PMIPROF_EV_EDGE | PMIPROF_EV_INV)))
		return -1;	/* fixed counters have no filters */
	if (ev->event == 0xc0 && ev->umask == 0x00)
		return 0;
	if (ev->event == 0x3c && ev->umask == 0x00)
		return 1;
	if (ev->event == 0x00 && ev->umask == 0x03)
		return 2;
	return -1;
}

bool pmiprof_pmu_intel_fixed_only(const struct pmiprof_event *ev)
{
	return ev->event == 0x00 && ev->umask == 0x03;
}
