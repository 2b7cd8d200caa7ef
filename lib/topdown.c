// SPDX-License-Identifier: GPL-2.0
/*
 * Top-down level 1: the one table of CPU -> events + formula, the "-e
 * topdown" expansion through libpfm4, and the formulas (see topdown.h and
 * docs/topdown.md).
 */
#include "topdown.h"

#include <ctype.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h"

/*
 * Sources, one per formula (checked against these files, see
 * docs/topdown.md for the exact expressions quoted):
 *
 * [SKL]  Intel TMA level 1 as in Linux tools/perf/pmu-events/arch/x86/
 *        skylake/skl-metrics.json (tma_frontend_bound, tma_bad_speculation,
 *        tma_retiring, tma_backend_bound; tma_info_thread_slots =
 *        4 * CPU_CLK_UNHALTED.THREAD), the SMT-off variant: with SMT on,
 *        Intel uses INT_MISC.RECOVERY_CYCLES_ANY / 2 and per-core clocks.
 *        Event encodings: libpfm4's skl table (= perf's skylake
 *        pipeline.json/frontend.json).
 * [ICL]  Linux arch/x86/events/intel/core.c: "slots" = event 0x00 umask
 *        0x04 (fixed counter 3, TOPDOWN.SLOTS), topdown-retiring /
 *        -bad-spec / -fe-bound / -be-bound = event 0x00 umask 0x80..0x83,
 *        read from PERF_METRICS; intel_pmu_hw_config(): metric events need
 *        the slots event as group leader, and that leader must not sample.
 *        Fractions as perf's icelake icl-metrics.json level 1: each
 *        topdown-X / (sum of the four); perf also subtracts
 *        INT_MISC.UOP_DROPPING / slots from frontend (a fifth event, left
 *        out here: level 1 then still sums to 1).
 * [ZEN4] Linux tools/perf/pmu-events/arch/x86/amdzen4/pipeline.json
 *        (total_dispatch_slots = 6 * ls_not_halted_cyc; frontend_bound,
 *        bad_speculation, backend_bound, smt_contention, retiring) with the
 *        events of amdzen4/core.json and other.json (de_no_dispatch_per_slot
 *        = PMC 0x1A0 umasks 0x01 / 0x1E / 0x60, de_src_op_disp.all = 0xAA
 *        umask 0x07, ex_ret_ops = 0xC1, ls_not_halted_cyc = 0x76); AMD PPR
 *        for family 19h model 11h lists the same PMCx1A0.  amdzen5's
 *        pipeline.json is the same with 8 * ls_not_halted_cyc.
 * [ZEN3] perf has no amdzen3/pipeline.json and Zen 3's PPR has no PMCx1A0:
 *        no per-slot dispatch events, so no level 1.
 */
/* Skylake's four-slot level 1: cycles, then the uop counts the formula needs */
#define SKL_UOPS_EVENTS \
	{ "CPU_CLK_UNHALTED:THREAD_P", "cpu_clk_unhalted.thread", 0 }, \
	{ "IDQ_UOPS_NOT_DELIVERED:CORE", "idq_uops_not_delivered.core", 0 }, \
	{ "UOPS_ISSUED:ANY", "uops_issued.any", 0 }, \
	{ "UOPS_RETIRED:RETIRE_SLOTS", "uops_retired.retire_slots", 0 }, \
	{ "INT_MISC:RECOVERY_CYCLES", "int_misc.recovery_cycles", 0 }
static const struct td_model models[] = {
	{ .pmu = "skl", .cpu = "Intel Skylake", .formula = TD_INTEL_UOPS, .width = 4, .nr = 5,
	  .ev = { SKL_UOPS_EVENTS }, .source = "SKL" },
	{ .pmu = "skx", .cpu = "Intel Skylake-X", .formula = TD_INTEL_UOPS, .width = 4, .nr = 5,
	  .ev = { SKL_UOPS_EVENTS }, .source = "SKL (same core)" },
	{ .pmu = "clx", .cpu = "Intel Cascade Lake-X", .formula = TD_INTEL_UOPS, .width = 4,
	  .nr = 5,
	  .ev = { SKL_UOPS_EVENTS }, .source = "SKL (same core)" },
#define PERF_METRICS_EVENTS \
	{ "TOPDOWN:SLOTS", "slots", 0 }, \
	{ NULL, "topdown-retiring", 0x8000 }, \
	{ NULL, "topdown-bad-spec", 0x8100 }, \
	{ NULL, "topdown-fe-bound", 0x8200 }, \
	{ NULL, "topdown-be-bound", 0x8300 }
	{ .pmu = "icl", .cpu = "Intel Ice Lake", .formula = TD_INTEL_PERF_METRICS, .width = 5,
	  .nr = 5, .ev = { PERF_METRICS_EVENTS }, .source = "ICL" },
	{ .pmu = "icx", .cpu = "Intel Ice Lake-X", .formula = TD_INTEL_PERF_METRICS, .width = 5,
	  .nr = 5, .ev = { PERF_METRICS_EVENTS }, .source = "ICL" },
	{ .pmu = "spr", .cpu = "Intel Sapphire Rapids", .formula = TD_INTEL_PERF_METRICS,
	  .width = 6, .nr = 5, .ev = { PERF_METRICS_EVENTS }, .source = "ICL" },
#define ZEN4_EVENTS \
	{ "CYCLES_NOT_IN_HALT", "ls_not_halted_cyc", 0 }, \
	{ "DISPATCH_STALLS_1:FE_NO_OPS", "de_no_dispatch_per_slot.no_ops_from_frontend", 0 }, \
	{ "DISPATCH_STALLS_1:BE_STALLS", "de_no_dispatch_per_slot.backend_stalls", 0 }, \
	{ "DISPATCH_STALLS_1:SMT_CONTENTION", "de_no_dispatch_per_slot.smt_contention", 0 }, \
	{ "RETIRED_OPS", "ex_ret_ops", 0 }, \
	{ "OPS_SOURCE_DISPATCHED_FROM_DECODER:DECODER:OPCACHE:LOOP_BUFFER", \
	  "de_src_op_disp.all", 0 }
	{ .pmu = "amd64_fam19h_zen4", .cpu = "AMD Zen 4", .formula = TD_AMD_ZEN4, .width = 6,
	  .nr = 6, .ev = { ZEN4_EVENTS }, .source = "ZEN4" },
	{ .pmu = "amd64_fam1ah_zen5", .cpu = "AMD Zen 5", .formula = TD_AMD_ZEN4, .width = 8,
	  .nr = 6, .ev = { ZEN4_EVENTS }, .source = "ZEN4 (amdzen5: 8 slots)" },
#define NO_PER_SLOT "has no per-slot dispatch events (de_no_dispatch_per_slot, PMCx1A0, " \
	"Zen 4 and later), so no top-down level 1"
	{ .pmu = "amd64_fam19h_zen3", .cpu = "AMD Zen 3", .refuse = NO_PER_SLOT, .source = "ZEN3" },
	{ .pmu = "amd64_fam17h_zen2", .cpu = "AMD Zen 2", .refuse = NO_PER_SLOT, .source = "ZEN3" },
	{ .pmu = "amd64_fam17h_zen1", .cpu = "AMD Zen 1", .refuse = NO_PER_SLOT, .source = "ZEN3" },
};

static const char *const part_names[TD_NR_PARTS] = {
	[TD_FRONTEND] = "frontend",
	[TD_BAD_SPEC] = "bad-spec",
	[TD_RETIRING] = "retiring",
	[TD_BACKEND] = "backend",
	[TD_SMT] = "smt",
};

const struct td_model *td_model_of_pmu(const char *pmu)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(models); i++)
		if (!strcmp(models[i].pmu, pmu))
			return &models[i];
	return NULL;
}

const struct td_model *td_model_at(size_t i)
{
	return i < ARRAY_SIZE(models) ? &models[i] : NULL;
}

const char *td_part_name(enum td_part p)
{
	return p < TD_NR_PARTS ? part_names[p] : "?";
}

bool td_formula_has(enum td_formula f, enum td_part p)
{
	return p != TD_SMT || f == TD_AMD_ZEN4;
}

/* The first core PMU libpfm4 detects on this machine (or is forced to). */
static const char *detected_core_pmu(void)
{
	pfm_pmu_t p;

	if (pm_pfm_init())
		return NULL;
	for (p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++) {
		pfm_pmu_info_t info;

		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pm_pfm.get_pmu_info(p, &info) != PFM_SUCCESS || !info.is_present)
			continue;
		if (info.type == PFM_PMU_TYPE_CORE && strcmp(info.name, "ix86arch") &&
		    strcmp(info.name, "perf") && strcmp(info.name, "perf_raw"))
			return info.name;
	}
	return NULL;
}

/* The sysfs event-source directory (tests point it at a fake one). */
static const char *sysfs_event_source(void)
{
	const char *env = getenv("PMIPROF_SYSFS_EVENT_SOURCE");

	return env && *env ? env : "/sys/bus/event_source/devices";
}

int td_expand(struct pm_event_list *out, char *err, size_t err_len)
{
	const char *pmu = detected_core_pmu();
	const struct td_model *m = pmu ? td_model_of_pmu(pmu) : NULL;
	char why[384] = "";
	unsigned int k;

	if (!pmu)
		snprintf(why, sizeof(why), "libpfm4 detects no core PMU on this CPU, so no "
			 "top-down events are known for it");
	else if (!m)
		snprintf(why, sizeof(why), "no level-1 formula for this CPU (libpfm4 PMU '%s'); "
			 "known: Intel Skylake family, Ice Lake and later, AMD Zen 4 and later "
			 "(see docs/topdown.md)", pmu);
	else if (m->refuse)
		snprintf(why, sizeof(why), "%s (libpfm4 PMU '%s') %s", m->cpu, pmu, m->refuse);
	/*
	 * No PMU at all (most VMs) is said first, whatever the CPU model: that
	 * is what stops the recording here.  What the model itself lacks (it
	 * matters on that CPU with a PMU) comes after, in the same message.
	 * A model with a formula is refused later, naming its events
	 * (td_check_pmu()).
	 */
	if (why[0] && !td_hw_pmu_present(sysfs_event_source()))
		return pm_set_err(err, err_len, -ENODEV, "topdown: no hardware PMU (the kernel "
			       "exposes no core PMU in /sys/bus/event_source/devices, as in most "
			       "VMs), so no level-1 events can be counted here; with a PMU too: %s",
			       why);
	/* the machine lacks what the events need: not a usage error (exit 1) */
	if (why[0])
		return pm_set_err(err, err_len, -ENODEV, "topdown: %s", why);
	if (out->nr + m->nr > PMIPROF_MAX_EVENTS)
		return pm_set_err(err, err_len, -E2BIG, "too many events: topdown adds %u, at most "
			       "%d per recording", m->nr, PMIPROF_MAX_EVENTS);
	for (k = 0; k < m->nr; k++) {
		struct pm_event *ev = &out->ev[out->nr + k];
		char spec[160];
		bool trig;
		int ret;

		if (m->ev[k].pfm) {
			snprintf(spec, sizeof(spec), "%s::%s", pmu, m->ev[k].pfm);
			ret = pm_event_parse_one(spec, ev, &trig, err, err_len);
			if (ret)
				return pm_set_err(err, err_len, ret, "topdown: libpfm4 cannot encode "
					       "'%s' for %s", spec, m->cpu);
		} else {
			memset(ev, 0, sizeof(*ev));
			ev->type = PERF_TYPE_RAW;
			ev->config = m->ev[k].raw;
		}
		/* perf's spelling in the trace: what the report and people look for */
		pm_strlcpy(ev->name, m->ev[k].perf, sizeof(ev->name));
		ev->topdown = true;
		/* PERF_METRICS: the kernel wants slots as a non-sampling leader */
		ev->group_lead = m->formula == TD_INTEL_PERF_METRICS && k == 0;
	}
	out->nr += m->nr;
	return 0;
}

/* Lower case, "pmu::" dropped, libpfm4's ':' between event and umask as '.'. */
static void normalise(const char *in, char *out, size_t size)
{
	const char *p = strstr(in, "::");
	size_t o = 0;

	if (p)
		in = p + 2;
	for (; *in && o + 1 < size; in++)
		out[o++] = *in == ':' ? '.' : (char)tolower((unsigned char)*in);
	out[o] = 0;
}

static bool same_event(const char *name, const struct td_event *e)
{
	char a[160], b[160];

	normalise(name, a, sizeof(a));
	if (!strcmp(a, e->perf))
		return true;
	if (!e->pfm)
		return false;
	normalise(e->pfm, b, sizeof(b));
	return !strcmp(a, b);
}

const struct td_model *td_match(const char *const *names, unsigned int nr,
				int idx[TD_MAX_EVENTS])
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(models); i++) {
		const struct td_model *m = &models[i];
		unsigned int k, j;

		if (m->refuse)
			continue;
		for (k = 0; k < m->nr; k++) {
			idx[k] = -1;
			for (j = 0; j < nr && idx[k] < 0; j++)
				if (same_event(names[j], &m->ev[k]))
					idx[k] = (int)j;
			if (idx[k] < 0)
				break;
		}
		if (k == m->nr)
			return m;
	}
	return NULL;
}

bool td_fractions(const struct td_model *m, const uint64_t c[TD_MAX_EVENTS],
		  double out[TD_NR_PARTS])
{
	double slots;
	unsigned int p;

	for (p = 0; p < TD_NR_PARTS; p++)
		out[p] = 0;
	switch (m->formula) {
	case TD_INTEL_UOPS:
		slots = (double)m->width * (double)c[0];
		if (slots <= 0)
			return false;
		out[TD_FRONTEND] = (double)c[1] / slots;
		out[TD_BAD_SPEC] = ((double)c[2] - (double)c[3] + (double)m->width * (double)c[4]) /
				   slots;
		out[TD_RETIRING] = (double)c[3] / slots;
		out[TD_BACKEND] = 1.0 - out[TD_FRONTEND] - out[TD_BAD_SPEC] - out[TD_RETIRING];
		return true;
	case TD_INTEL_PERF_METRICS:
		slots = (double)c[1] + (double)c[2] + (double)c[3] + (double)c[4];
		if (slots <= 0)
			return false;
		out[TD_RETIRING] = (double)c[1] / slots;
		out[TD_BAD_SPEC] = (double)c[2] / slots;
		out[TD_FRONTEND] = (double)c[3] / slots;
		out[TD_BACKEND] = (double)c[4] / slots;
		return true;
	case TD_AMD_ZEN4:
		slots = (double)m->width * (double)c[0];
		if (slots <= 0)
			return false;
		out[TD_FRONTEND] = (double)c[1] / slots;
		out[TD_BACKEND] = (double)c[2] / slots;
		out[TD_SMT] = (double)c[3] / slots;
		out[TD_RETIRING] = (double)c[4] / slots;
		out[TD_BAD_SPEC] = ((double)c[5] - (double)c[4]) / slots;
		return true;
	}
	return false;
}

bool td_hw_pmu_present(const char *sysfs_devices)
{
	static const char *const names[] = { "cpu", "cpu_core" };
	char path[512];
	struct stat st;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "%s/%s", sysfs_devices, names[i]);
		if (!stat(path, &st))
			return true;
	}
	return false;
}

int td_check_pmu(const struct pm_event_list *l, const char *sysfs_devices, char *err,
		 size_t err_len)
{
	char names[512] = "";
	size_t n = 0;
	unsigned int i;

	for (i = 0; i < l->nr; i++) {
		if (!l->ev[i].topdown)
			continue;
		n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", n ? ", " : "",
				      l->ev[i].name);
		if (n >= sizeof(names))
			n = sizeof(names) - 1;
	}
	if (!n || td_hw_pmu_present(sysfs_devices ? sysfs_devices : sysfs_event_source()))
		return 0;
	return pm_set_err(err, err_len, -ENODEV, "topdown: no hardware PMU (the kernel exposes no "
		       "core PMU in /sys/bus/event_source/devices, as in most VMs), so this "
		       "CPU's level-1 events cannot be counted: %s", names);
}
