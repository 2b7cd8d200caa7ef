// SPDX-License-Identifier: GPL-2.0
/*
 * The in-memory Intel/AMD PMU MSR file (see msr_model.h), and
 * pmiprof_pmu_model_msr_ops, the MSR indirection that runs the real drivers on it.
 * Pure C, no kernel calls: the module's pmu=emul and the user-space tests
 * share this one implementation.
 */
#include "msr_model.h"

#define CPUID_INTEL_EBX		0x756e6547u	/* "Genu" */
#define CPUID_INTEL_EDX		0x49656e69u	/* "ineI" */
#define CPUID_INTEL_ECX		0x6c65746eu	/* "ntel" */
#define CPUID_AMD_EBX		0x68747541u	/* "Auth" */
#define CPUID_AMD_EDX		0x69746e65u	/* "enti" */
#define CPUID_AMD_ECX		0x444d4163u	/* "cAMD" */

/* Derived events: fixed fractions of retired instructions (deterministic). */
#define EV_INSTR		1
#define EV_CYCLES		2
#define EV_SLOTS		3
#define EV_DERIVED		4	/* instructions / divisor */

struct ev_rate {
	u32 kind;
	u32 divisor;
};

static bool is_intel(const struct pmu_model *m)
{
	return m->spec.vendor == PMIPROF_VENDOR_INTEL;
}

/* Count an access and remember the order of the first ones. */
static void acc(struct pmu_model *m, enum pmu_model_acc cls)
{
	m->acc[cls]++;
	if (m->norder < ARRAY_SIZE(m->order))
		m->order[m->norder++] = cls;
}

void pmiprof_pmu_model_spec_default(struct pmu_model_spec *spec, u32 vendor)
{
	memset(spec, 0, sizeof(*spec));
	spec->vendor = vendor;
	spec->width = 48;
	if (vendor == PMIPROF_VENDOR_AMD) {
		spec->version = 2;	/* Zen 4: PerfMonV2 */
		spec->nr_gp = 6;
		spec->perfctr_core = true;
		spec->family = 0x19;
		spec->model = 0x61;
	} else {
		spec->version = 4;
		spec->nr_gp = 4;
		spec->nr_fixed = 3;
		spec->full_width = true;
		spec->family = 6;
		spec->model = 0x8f;	/* Sapphire Rapids */
	}
}

void pmiprof_pmu_model_init(struct pmu_model *m, const struct pmu_model_spec *spec)
{
	memset(m, 0, sizeof(*m));
	m->spec = *spec;
	if (m->spec.nr_gp > PMU_MAX_GP)
		m->spec.nr_gp = PMU_MAX_GP;
	if (m->spec.nr_fixed > PMU_MAX_FIXED)
		m->spec.nr_fixed = PMU_MAX_FIXED;
	if (!m->spec.width || m->spec.width > 63)
		m->spec.width = 48;
	m->mask = BIT_ULL(m->spec.width) - 1;
	m->perf_caps = m->spec.full_width ? PMU_PERF_CAP_FW_WRITE : 0;
	/* Reset state as firmware leaves it: LVTPC masked until the OS sets it up. */
	m->lvtpc = PMU_APIC_DM_NMI | PMU_APIC_LVT_MASKED;
	m->user = true;
}

static struct ev_rate intel_gp_event(u64 ctl)
{
	u32 ev = ctl & 0xff, umask = (ctl >> 8) & 0xff;
	struct ev_rate r = { 0, 0 };

	if (ev == 0xc0)
		r.kind = EV_INSTR;
	else if (ev == 0x3c)
		r.kind = EV_CYCLES;			/* umask 0: core, 1: reference */
	else if (ev == 0xc4)
		r = (struct ev_rate){ EV_DERIVED, 5 };	/* branches */
	else if (ev == 0xc5)
		r = (struct ev_rate){ EV_DERIVED, 97 };	/* branch misses */
	else if (ev == 0x2e && umask == 0x4f)
		r = (struct ev_rate){ EV_DERIVED, 31 };	/* LLC references */
	else if (ev == 0x2e && umask == 0x41)
		r = (struct ev_rate){ EV_DERIVED, 257 };	/* LLC misses */
	return r;
}

static struct ev_rate amd_event(u64 ctl)
{
	u32 ev = (ctl & 0xff) | ((ctl >> 24) & 0xf00);
	struct ev_rate r = { 0, 0 };

	if (ev == 0xc0)
		r.kind = EV_INSTR;
	else if (ev == 0x76)
		r.kind = EV_CYCLES;
	else if (ev == 0xc2)
		r = (struct ev_rate){ EV_DERIVED, 5 };
	else if (ev == 0xc3)
		r = (struct ev_rate){ EV_DERIVED, 97 };
	else if (ev == 0x40)
		r = (struct ev_rate){ EV_DERIVED, 3 };	/* data cache accesses */
	else if (ev == 0x41)
		r = (struct ev_rate){ EV_DERIVED, 61 };	/* data cache misses */
	return r;
}

static u64 ev_increment(const struct pmu_model *m, struct ev_rate r, u64 di, u64 dc)
{
	switch (r.kind) {
	case EV_INSTR:
		return di;
	case EV_CYCLES:
		return dc;
	case EV_SLOTS:
		return 4 * dc;
	case EV_DERIVED:
		/* floor(total / d) differences: exact however the steps are cut */
		return (m->instructions + di) / r.divisor - m->instructions / r.divisor;
	}
	return 0;
}

static bool ring_counts(bool user, bool usr_bit, bool os_bit, bool amd)
{
	if (amd && !usr_bit && !os_bit)
		return true;	/* AMD: neither bit means both rings */
	return user ? usr_bit : os_bit;
}

static void set_overflow(struct pmu_model *m, u64 bit, bool *pmi, bool irq)
{
	if (bit) {
		if (m->status_lag) {
			m->lagging_bits |= bit;
			m->lag_left = m->status_lag;
		} else {
			m->global_status |= bit;
		}
	}
	if (irq)
		*pmi = true;
}

/* Adds @inc to *ctr; true when it wrapped past the counter width. */
static bool bump(struct pmu_model *m, u64 *ctr, u64 inc)
{
	u64 sum = (*ctr & m->mask) + (inc & m->mask);

	*ctr = sum & m->mask;
	return sum > m->mask;
}

static void raise_pmi(struct pmu_model *m)
{
	if (m->lvtpc & PMU_APIC_LVT_MASKED) {
		m->pmis_masked++;
		return;
	}
	m->pmi_pending++;
	m->pmis_raised++;
	if (is_intel(m)) {
		/* Intel masks LVTPC when it delivers a PMI (SDM 3B 11.5.1; "LVTPC timing"). */
		m->lvtpc |= PMU_APIC_LVT_MASKED;
		if (m->debugctl & PMU_DEBUGCTL_FREEZE_ON_PMI) {
			if (m->spec.version >= 4)
				m->global_status |= PMU_STATUS_CTR_FRZ;
			else
				m->global_ctrl = 0;	/* legacy freeze clears the enables */
		}
	}
}

static void advance_intel(struct pmu_model *m, u64 di, u64 dc, bool *pmi)
{
	bool global = m->spec.version >= 2;
	u32 i;

	if (m->global_status & PMU_STATUS_CTR_FRZ)
		return;
	for (i = 0; i < m->spec.nr_gp; i++) {
		u64 ctl = m->ctl[i];

		if (!(ctl & PMU_EVTSEL_EN) || (global && !(m->global_ctrl & BIT_ULL(i))))
			continue;
		if (!ring_counts(m->user, ctl & PMU_EVTSEL_USR, ctl & PMU_EVTSEL_OS, false))
			continue;
		if (bump(m, &m->gp[i], ev_increment(m, intel_gp_event(ctl), di, dc)))
			set_overflow(m, global ? BIT_ULL(i) : 0, pmi, ctl & PMU_EVTSEL_INT);
	}
	for (i = 0; global && i < m->spec.nr_fixed; i++) {
		u64 nib = (m->fixed_ctrl >> (4 * i)) & 0xf;
		struct ev_rate r = { i == 0 ? EV_INSTR : i == 3 ? EV_SLOTS : EV_CYCLES, 0 };

		if (!(m->global_ctrl & BIT_ULL(32 + i)))
			continue;
		if (!ring_counts(m->user, nib & PMU_FIXED_USR, nib & PMU_FIXED_OS, false))
			continue;
		if (bump(m, &m->fixed[i], ev_increment(m, r, di, dc)))
			set_overflow(m, BIT_ULL(32 + i), pmi, nib & PMU_FIXED_PMI);
	}
}

static void advance_amd(struct pmu_model *m, u64 di, u64 dc, bool *pmi)
{
	bool global = m->spec.version >= 2;
	u32 i;

	for (i = 0; i < m->spec.nr_gp; i++) {
		u64 ctl = m->ctl[i];

		if (!(ctl & PMU_EVTSEL_EN) || (global && !(m->global_ctrl & BIT_ULL(i))))
			continue;
		if (!ring_counts(m->user, ctl & PMU_EVTSEL_USR, ctl & PMU_EVTSEL_OS, true))
			continue;
		if (bump(m, &m->gp[i], ev_increment(m, amd_event(ctl), di, dc)))
			set_overflow(m, global ? BIT_ULL(i) : 0, pmi, ctl & PMU_EVTSEL_INT);
	}
}

void pmiprof_pmu_model_advance(struct pmu_model *m, u64 instructions, u64 cycles)
{
	bool pmi = false;

	if (is_intel(m))
		advance_intel(m, instructions, cycles, &pmi);
	else
		advance_amd(m, instructions, cycles, &pmi);
	m->instructions += instructions;
	m->cycles += cycles;
	/* Several overflows in one step are one interrupt, as on hardware. */
	if (pmi)
		raise_pmi(m);
}

void pmiprof_pmu_model_run(struct pmu_model *m, u64 instructions, u64 cycles, u64 step,
			   u32 max_steps, void (*deliver)(void *arg), void *arg)
{
	u32 n = 0;

	if (!step)
		step = instructions;
	while (instructions) {
		u64 i = ++n >= max_steps || step > instructions ? instructions : step;
		u64 c = i == instructions ? cycles : div64_u64(cycles * i, instructions);

		pmiprof_pmu_model_advance(m, i, c);
		instructions -= i;
		cycles -= c;
		if (m->pmi_pending && deliver)
			deliver(arg);
	}
}

static int fault(struct pmu_model *m, u32 msr)
{
	m->faults++;
	m->last_fault_msr = msr;
	return -EIO;
}

static u64 read_status(struct pmu_model *m)
{
	if (m->lagging_bits) {
		if (m->lag_left) {
			m->lag_left--;
		} else {
			m->global_status |= m->lagging_bits;
			m->lagging_bits = 0;
		}
	}
	return m->global_status;
}

static int intel_access(struct pmu_model *m, u32 msr, bool wr, u64 *val)
{
	bool global = m->spec.version >= 2;
	u32 n_gp = m->spec.nr_gp, n_fx = global ? m->spec.nr_fixed : 0;

	if (msr >= PMU_MSR_IA32_PMC0 && msr < PMU_MSR_IA32_PMC0 + n_gp) {
		u64 *c = &m->gp[msr - PMU_MSR_IA32_PMC0];

		acc(m, wr ? PMU_ACC_CTR_WR : PMU_ACC_CTR_RD);
		if (wr)	/* legacy alias: bits 31:0, bit 31 sign-extended */
			*c = (u64)(s64)(s32)(u32)*val & m->mask;
		else
			*val = *c;
		return 0;
	}
	if (msr >= PMU_MSR_IA32_A_PMC0 && msr < PMU_MSR_IA32_A_PMC0 + n_gp) {
		u64 *c = &m->gp[msr - PMU_MSR_IA32_A_PMC0];

		acc(m, wr ? PMU_ACC_CTR_WR : PMU_ACC_CTR_RD);
		if (!m->spec.full_width || (wr && (*val & ~m->mask)))
			return fault(m, msr);
		if (wr)
			*c = *val;
		else
			*val = *c;
		return 0;
	}
	if (msr >= PMU_MSR_IA32_PERFEVTSEL0 && msr < PMU_MSR_IA32_PERFEVTSEL0 + n_gp) {
		u64 *c = &m->ctl[msr - PMU_MSR_IA32_PERFEVTSEL0];

		acc(m, wr ? PMU_ACC_CTL_WR : PMU_ACC_OTHER);
		if (wr && (*val & PMU_EVTSEL_ANY) && m->spec.version < 3)
			return fault(m, msr);
		if (wr)
			*c = *val;
		else
			*val = *c;
		return 0;
	}
	if (msr >= PMU_MSR_IA32_FIXED_CTR0 && msr < PMU_MSR_IA32_FIXED_CTR0 + n_fx) {
		u64 *c = &m->fixed[msr - PMU_MSR_IA32_FIXED_CTR0];

		acc(m, wr ? PMU_ACC_CTR_WR : PMU_ACC_CTR_RD);
		if (wr)
			*c = *val & m->mask;
		else
			*val = *c;
		return 0;
	}
	switch (global ? msr : 0) {
	case PMU_MSR_IA32_FIXED_CTR_CTRL:
		acc(m, wr ? PMU_ACC_CTL_WR : PMU_ACC_OTHER);
		if (wr)
			m->fixed_ctrl = *val;
		else
			*val = m->fixed_ctrl;
		return 0;
	case PMU_MSR_IA32_GLOBAL_STATUS:
		if (wr)
			return fault(m, msr);	/* read-only */
		acc(m, PMU_ACC_STATUS_RD);
		*val = read_status(m);
		return 0;
	case PMU_MSR_IA32_GLOBAL_CTRL:
		acc(m, wr ? PMU_ACC_GCTRL_WR : PMU_ACC_OTHER);
		if (wr)
			m->global_ctrl = *val;
		else
			*val = m->global_ctrl;
		return 0;
	case PMU_MSR_IA32_GLOBAL_OVF_CTRL:
		acc(m, wr ? PMU_ACC_ACK_WR : PMU_ACC_OTHER);
		if (wr)
			m->global_status &= ~(*val & ~m->stuck_bits);
		else
			*val = 0;
		return 0;
	case PMU_MSR_IA32_PERF_CAPABILITIES:
		acc(m, PMU_ACC_OTHER);
		if (wr)
			return fault(m, msr);
		*val = m->perf_caps;
		return 0;
	case PMU_MSR_IA32_DEBUGCTL:
		acc(m, PMU_ACC_OTHER);
		if (wr)
			m->debugctl = *val;
		else
			*val = m->debugctl;
		return 0;
	}
	return fault(m, msr);
}

/* AMD counter index for a control (is_ctl) or counter MSR, or -1. */
static int amd_index(const struct pmu_model *m, u32 msr, bool *is_ctl)
{
	u32 n = m->spec.nr_gp < 4 ? m->spec.nr_gp : 4;	/* K7 aliases cover counters 0-3 */

	if (msr >= PMU_MSR_K7_EVNTSEL0 && msr < PMU_MSR_K7_EVNTSEL0 + n) {
		*is_ctl = true;
		return msr - PMU_MSR_K7_EVNTSEL0;
	}
	if (msr >= PMU_MSR_K7_PERFCTR0 && msr < PMU_MSR_K7_PERFCTR0 + n) {
		*is_ctl = false;
		return msr - PMU_MSR_K7_PERFCTR0;
	}
	n = m->spec.nr_gp;
	if (m->spec.perfctr_core && msr >= PMU_MSR_F15H_PERF_CTL0 &&
	    msr < PMU_MSR_F15H_PERF_CTL0 + 2 * n) {
		*is_ctl = !((msr - PMU_MSR_F15H_PERF_CTL0) & 1);
		return (msr - PMU_MSR_F15H_PERF_CTL0) / 2;
	}
	return -1;
}

static int amd_access(struct pmu_model *m, u32 msr, bool wr, u64 *val)
{
	bool is_ctl = false;
	int i = amd_index(m, msr, &is_ctl);

	if (i >= 0) {
		u64 *c = is_ctl ? &m->ctl[i] : &m->gp[i];

		if (is_ctl)
			acc(m, wr ? PMU_ACC_CTL_WR : PMU_ACC_OTHER);
		else
			acc(m, wr ? PMU_ACC_CTR_WR : PMU_ACC_CTR_RD);
		if (wr)
			*c = is_ctl ? *val : *val & m->mask;	/* no sign extension on AMD */
		else
			*val = *c;
		return 0;
	}
	switch (m->spec.version >= 2 ? msr : 0) {
	case PMU_MSR_AMD_GLOBAL_STATUS:
		if (wr)
			return fault(m, msr);
		acc(m, PMU_ACC_STATUS_RD);
		*val = read_status(m);
		return 0;
	case PMU_MSR_AMD_GLOBAL_CTL:
		acc(m, wr ? PMU_ACC_GCTRL_WR : PMU_ACC_OTHER);
		if (wr)
			m->global_ctrl = *val;
		else
			*val = m->global_ctrl;
		return 0;
	case PMU_MSR_AMD_GLOBAL_STATUS_CLR:
		acc(m, wr ? PMU_ACC_ACK_WR : PMU_ACC_OTHER);
		if (wr)
			m->global_status &= ~(*val & ~m->stuck_bits);
		else
			*val = 0;
		return 0;
	case PMU_MSR_AMD_GLOBAL_STATUS_SET:
		acc(m, PMU_ACC_OTHER);
		if (wr)
			m->global_status |= *val;
		else
			*val = 0;
		return 0;
	}
	return fault(m, msr);
}

/* GP counter index of a counter or control MSR (either vendor's aliases), or -1. */
static int gp_index(const struct pmu_model *m, u32 msr, bool *is_ctl)
{
	u32 n = m->spec.nr_gp;

	if (!is_intel(m))
		return amd_index(m, msr, is_ctl);
	*is_ctl = msr >= PMU_MSR_IA32_PERFEVTSEL0 && msr < PMU_MSR_IA32_PERFEVTSEL0 + n;
	if (*is_ctl)
		return msr - PMU_MSR_IA32_PERFEVTSEL0;
	if (msr >= PMU_MSR_IA32_PMC0 && msr < PMU_MSR_IA32_PMC0 + n)
		return msr - PMU_MSR_IA32_PMC0;
	if (msr >= PMU_MSR_IA32_A_PMC0 && msr < PMU_MSR_IA32_A_PMC0 + n)
		return msr - PMU_MSR_IA32_A_PMC0;
	return -1;
}

/* Reservation and TSX_FORCE_ABORT bookkeeping of a write (no effect on the registers). */
static void check_write(struct pmu_model *m, u32 msr, u64 val)
{
	bool is_ctl = false;
	int i = gp_index(m, msr, &is_ctl);

	if (i < 0)
		return;
	if (m->resv && !(m->resv->reserved & BIT(i)))
		m->unreserved_wr++;
	if (is_intel(m) && is_ctl && i == 3 && (val & PMU_EVTSEL_EN) &&
	    m->spec.tsx_force_abort && !m->spec.rtm_always_abort && !(m->tfa & 1))
		m->pmc3_unsafe++;
}

static int model_access(struct pmu_model *m, u32 msr, bool wr, u64 *val)
{
	int err;

	if (wr)
		check_write(m, msr, *val);

	if (m->tcg) {
		/* QEMU target/i386/tcg/sysemu/misc_helper.c: unknown MSRs read 0, writes ignored */
		acc(m, PMU_ACC_OTHER);
		if (!wr)
			*val = 0;
		return 0;
	}
	err = is_intel(m) ? intel_access(m, msr, wr, val) : amd_access(m, msr, wr, val);

	if (err && !wr)
		*val = 0;
	return err;
}

u64 pmiprof_pmu_model_rdmsr(struct pmu_model *m, u32 msr)
{
	u64 v = 0;

	model_access(m, msr, false, &v);
	return v;
}

void pmiprof_pmu_model_wrmsr(struct pmu_model *m, u32 msr, u64 val)
{
	model_access(m, msr, true, &val);
}

void pmiprof_pmu_model_lvtpc(struct pmu_model *m)
{
	acc(m, PMU_ACC_LVTPC_WR);
	m->lvtpc = PMU_APIC_DM_NMI;
}

void pmiprof_pmu_model_set_status(struct pmu_model *m, u64 bits)
{
	m->global_status |= bits;
}

void pmiprof_pmu_model_reset_acc(struct pmu_model *m)
{
	memset(m->acc, 0, sizeof(m->acc));
	m->norder = 0;
}

u64 pmiprof_pmu_model_acc_total(const struct pmu_model *m)
{
	u64 t = 0;
	int i;

	for (i = 0; i < PMU_ACC_NR; i++)
		t += m->acc[i];
	return t;
}

static u32 cpuid_signature(u32 family, u32 model)
{
	u32 fam = family > 0xf ? 0xf : family;
	u32 ext = family > 0xf ? family - 0xf : 0;

	return ((model & 0xf) << 4) | (fam << 8) | (((model >> 4) & 0xf) << 16) | (ext << 20);
}

void pmiprof_pmu_model_cpuid(const struct pmu_model *m, u32 leaf, u32 sub,
			     u32 *a, u32 *b, u32 *c, u32 *d)
{
	const struct pmu_model_spec *s = &m->spec;
	bool intel = s->vendor == PMIPROF_VENDOR_INTEL;

	(void)sub;
	*a = *b = *c = *d = 0;
	switch (leaf) {
	case 0:
		*a = intel ? 0x1a : 0x10;
		*b = intel ? CPUID_INTEL_EBX : CPUID_AMD_EBX;
		*d = intel ? CPUID_INTEL_EDX : CPUID_AMD_EDX;
		*c = intel ? CPUID_INTEL_ECX : CPUID_AMD_ECX;
		break;
	case 1:
		*a = cpuid_signature(s->family, s->model);
		if (intel && s->version >= 2)
			*c = BIT(15);	/* PDCM: PERF_CAPABILITIES exists */
		break;
	case 0x7:
		if (intel && (s->hybrid_atom || s->hybrid_core))
			*d |= BIT(15);	/* hybrid part */
		if (intel && s->tsx_force_abort)
			*d |= BIT(13);
		if (intel && s->rtm_always_abort)
			*d |= BIT(11);
		break;
	case 0x1a:
		if (intel && s->hybrid_atom)
			*a = (u32)PMU_CORE_TYPE_ATOM << 24;
		else if (intel && s->hybrid_core)
			*a = (u32)PMU_CORE_TYPE_CORE << 24;
		break;
	case 0xa:
		if (!intel)
			break;
		*a = s->version | (s->nr_gp << 8) | (s->width << 16) | (7u << 24);
		*d = s->version >= 2 ? s->nr_fixed | (s->width << 5) : 0;
		break;
	case 0x80000000:
		*a = intel ? 0x80000008 : 0x80000022;
		break;
	case 0x80000001:
		if (!intel && s->perfctr_core)
			*c = BIT(23);
		break;
	case 0x80000022:
		if (!intel && s->version >= 2) {
			*a = 1;
			*b = s->nr_gp & 0xf;
		}
		break;
	}
}

/* The MSR indirection over the model: pc->model at run time, hw->model_probe when probing. */
static u64 model_ops_rd(struct pmu_cpu *pc, u32 msr)
{
	return pmiprof_pmu_model_rdmsr(pc->model, msr);
}

static void model_ops_wr(struct pmu_cpu *pc, u32 msr, u64 val)
{
	pmiprof_pmu_model_wrmsr(pc->model, msr, val);
}

static void model_ops_lvtpc(struct pmu_cpu *pc)
{
	pmiprof_pmu_model_lvtpc(pc->model);
}

static int model_ops_rd_safe(struct pmu_hw *hw, u32 msr, u64 *val)
{
	return model_access(hw->model_probe, msr, false, val);
}

static int model_ops_wr_safe(struct pmu_hw *hw, u32 msr, u64 val)
{
	return model_access(hw->model_probe, msr, true, &val);
}

static void model_ops_cpuid(struct pmu_hw *hw, u32 leaf, u32 sub, u32 *a, u32 *b, u32 *c, u32 *d)
{
	pmiprof_pmu_model_cpuid(hw->model_probe, leaf, sub, a, b, c, d);
}

static int model_ops_reserve(struct pmu_hw *hw, u32 idx)
{
	struct pmu_model *m = hw->model_probe;

	if (m->perf_held & BIT(idx))
		return -EBUSY;
	m->reserved |= BIT(idx);
	m->reservations++;
	return 0;
}

static void model_ops_release(struct pmu_hw *hw, u32 idx)
{
	struct pmu_model *m = hw->model_probe;

	m->reserved &= ~BIT(idx);
	m->releases++;
}

const struct pmu_msr_ops pmiprof_pmu_model_msr_ops = {
	.name = "model",
	.rd = model_ops_rd,
	.wr = model_ops_wr,
	.lvtpc = model_ops_lvtpc,
	.rd_safe = model_ops_rd_safe,
	.wr_safe = model_ops_wr_safe,
	.cpuid = model_ops_cpuid,
	.reserve = model_ops_reserve,
	.release = model_ops_release,
};
