// SPDX-License-Identifier: GPL-2.0
/*
 * pmu=emul: the Intel (or AMD) driver running unchanged on the
 * in-memory MSR model (msr_model.c), one model per CPU.  A per-CPU hrtimer in
 * hard-irq context (HRTIMER_MODE_REL_PINNED_HARD) stands in for the PMU: each
 * tick advances the CPU's model by the elapsed time (instructions at
 * emul_mips per microsecond, cycles from the TSC, nothing while the CPU is
 * idle, as unhalted counters do), and when the model raises a PMI the tick
 * calls the driver's handle_pmi() with the interrupted registers, exactly
 * as the NMI handler does on hardware.  Everything it produces is flagged as
 * emulated (GET_INFO, each record, the trace header).
 *
 *   emul_vendor=intel|amd   which MSR file to model (default intel: arch
 *                           perfmon v4, 4 GP + 3 fixed, full-width writes;
 *                           amd: Zen 4 with PerfMonV2, 6 counters)
 *   emul_version=N          Intel arch perfmon version 2-4, or AMD 1 (core
 *                           counters, sign-bit overflow) / 2 (PerfMonV2);
 *                           0 = the default above
 *   emul_full_width=0|1     Intel: PERF_CAPABILITIES[13] (default 1); with 0,
 *                           periods are limited to 2^31-1 (legacy writes)
 *   emul_mips=N             emulated instructions per microsecond (default 1000)
 *   emul_tick_us=N          model tick, i.e. the PMI granularity (default 50)
 */
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <asm/irq_regs.h>
#include <asm/tsc.h>

#include "compat.h"
#include "glue.h"
#include "msr_model.h"
#include "pmu.h"

static char *emul_vendor = "intel";
module_param(emul_vendor, charp, 0444);
MODULE_PARM_DESC(emul_vendor, "pmu=emul: MSR file to model, intel or amd (default intel)");

static unsigned int emul_version;
module_param(emul_version, uint, 0444);
MODULE_PARM_DESC(emul_version, "pmu=emul: Intel perfmon version 2-4, AMD 1 or 2 (0: default)");

static bool emul_full_width = true;
module_param(emul_full_width, bool, 0444);
MODULE_PARM_DESC(emul_full_width, "pmu=emul: Intel full-width counter writes (default 1)");

static unsigned int emul_mips = 1000;
module_param(emul_mips, uint, 0444);
MODULE_PARM_DESC(emul_mips, "pmu=emul: emulated instructions per microsecond (default 1000)");

static unsigned int emul_tick_us = 50;
module_param(emul_tick_us, uint, 0444);
MODULE_PARM_DESC(emul_tick_us, "pmu=emul: model tick in microseconds (default 50)");

struct emul_cpu {
	struct hrtimer timer;
	struct pmu_cpu *pc;
	u64 last_ns;
	u64 last_tsc;
};

static struct pmu_model __percpu *emul_models;
static struct emul_cpu __percpu *emul_cpus;
static struct pmu_model emul_probe_model;
static const struct pmu_driver *emul_inner;
static struct pmu_driver emul_driver;

static void emul_bind(struct pmu_cpu *pc)
{
	pc->model = per_cpu_ptr(emul_models, pc->cpu);
	pc->emul = per_cpu_ptr(emul_cpus, pc->cpu);
}

/* Deliver the PMIs the model raised: what the NMI handler does on hardware. */
struct emul_delivery {
	struct emul_cpu *ec;
	struct pt_regs *regs;
};

static void emul_deliver(void *arg)
{
	struct emul_delivery *d = arg;
	struct pmu_model *m = d->ec->pc->model;

	while (m->pmi_pending) {
		struct pmi_ctx ctx;

		m->pmi_pending--;
		pmiprof_fill_ctx(d->ec->pc, d->regs, &ctx);
		emul_inner->handle_pmi(d->ec->pc, &ctx);
	}
}

/*
 * Bring the CPU's model up to now.  A late tick (TCG is slow) may cover
 * several periods: pmu_model_run() advances one period at a time so each
 * overflow gets its own PMI, as the counter would on hardware.  A tick that
 * comes very late (a TCG stall) credits at most EMUL_MAX_STEPS periods, the
 * emulated CPU simply ran slower, so no window is ever merged; its cycles
 * are scaled alike.  With @deliver false (reading counters) PMIs stay
 * pending for the next tick.
 */
#define EMUL_MAX_STEPS	64

static void emul_advance(struct emul_cpu *ec, struct pt_regs *regs, bool deliver)
{
	struct emul_delivery d = { .ec = ec, .regs = regs };
	struct pmu_model *m = ec->pc->model;
	u64 now = local_clock(), tsc = rdtsc();
	u64 di = div_u64((now - ec->last_ns) * emul_mips, 1000), dc = tsc - ec->last_tsc;
	u64 period = deliver ? ec->pc->hw->period : 0;

	ec->last_ns = now;
	ec->last_tsc = tsc;
	if (is_idle_task(current))
		return;		/* unhalted events do not count in idle */
	if (period && di > EMUL_MAX_STEPS * period) {
		dc = mul_u64_u64_div_u64(dc, EMUL_MAX_STEPS * period, di);
		di = EMUL_MAX_STEPS * period;
	}
	m->user = regs && user_mode(regs);
	pmu_model_run(m, di, dc, period, EMUL_MAX_STEPS, deliver ? emul_deliver : NULL, &d);
}

static enum hrtimer_restart emul_tick(struct hrtimer *timer)
{
	struct emul_cpu *ec = container_of(timer, struct emul_cpu, timer);

	emul_advance(ec, get_irq_regs(), true);
	hrtimer_forward_now(timer, ns_to_ktime((u64)emul_tick_us * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static int emul_check_free(struct pmu_cpu *pc)
{
	emul_bind(pc);
	return emul_inner->check_free(pc);
}

/* On @pc's CPU with IRQs off (IPI or cpuhp online callback). */
static int emul_start_cpu(struct pmu_cpu *pc)
{
	struct emul_cpu *ec;
	int ret;

	emul_bind(pc);
	ec = pc->emul;
	ret = emul_inner->start_cpu(pc);
	if (ret)
		return ret;
	ec->pc = pc;
	ec->last_ns = local_clock();
	ec->last_tsc = rdtsc();
	hrtimer_start(&ec->timer, ns_to_ktime((u64)emul_tick_us * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
	return 0;
}

/*
 * On @pc's CPU with IRQs off: the pinned tick cannot be running here, so
 * try_to_cancel always succeeds; pmu_emul_teardown() waits for it anyway.
 */
static void emul_stop_cpu(struct pmu_cpu *pc)
{
	struct emul_cpu *ec;

	emul_bind(pc);
	ec = pc->emul;
	hrtimer_try_to_cancel(&ec->timer);
	emul_inner->stop_cpu(pc);
}

static int emul_handle_pmi(struct pmu_cpu *pc, const struct pmi_ctx *ctx)
{
	/* Only the tick raises emulated PMIs; a real NMI is never ours. */
	return 0;
}

/* Timer and counting modes: count up to this instant before reading. */
static void emul_read_counters(struct pmu_cpu *pc, u64 *out)
{
	emul_bind(pc);
	if (pc == ((struct emul_cpu *)pc->emul)->pc)
		emul_advance(pc->emul, get_irq_regs(), false);
	emul_inner->read_counters(pc, out);
}

int pmu_emul_setup(struct pmu_hw *hw, u32 vendor)
{
	struct pmu_model_spec spec;
	unsigned int cpu;

	if (!vendor) {
		if (!strcmp(emul_vendor, "intel"))
			vendor = PMIPROF_VENDOR_INTEL;
		else if (!strcmp(emul_vendor, "amd"))
			vendor = PMIPROF_VENDOR_AMD;
		else
			return -EINVAL;
	}
	if (!emul_mips || emul_mips > 100000 || emul_tick_us < 10 || emul_tick_us > 100000)
		return -EINVAL;
	emul_inner = pmu_driver_for_vendor(vendor);
	if (!emul_inner)
		return -EINVAL;
	pmu_model_spec_default(&spec, vendor);
	if (emul_version) {
		if (vendor == PMIPROF_VENDOR_INTEL ? emul_version < 2 || emul_version > 4 :
		    emul_version > 2)
			return -EINVAL;
		spec.version = emul_version;
	}
	if (vendor == PMIPROF_VENDOR_INTEL)
		spec.full_width = emul_full_width;

	emul_models = alloc_percpu(struct pmu_model);
	emul_cpus = alloc_percpu(struct emul_cpu);
	if (!emul_models || !emul_cpus) {
		free_percpu(emul_models);
		free_percpu(emul_cpus);
		emul_models = NULL;
		emul_cpus = NULL;
		return -ENOMEM;
	}
	pmu_model_init(&emul_probe_model, &spec);
	for_each_possible_cpu(cpu) {
		struct emul_cpu *ec = per_cpu_ptr(emul_cpus, cpu);

		pmu_model_init(per_cpu_ptr(emul_models, cpu), &spec);
		pmiprof_hrtimer_setup(&ec->timer, emul_tick, CLOCK_MONOTONIC,
				      HRTIMER_MODE_REL_PINNED_HARD);
	}

	emul_driver = *emul_inner;
	emul_driver.name = vendor == PMIPROF_VENDOR_INTEL ? "emul-intel" : "emul-amd";
	emul_driver.check_free = emul_check_free;
	emul_driver.start_cpu = emul_start_cpu;
	emul_driver.stop_cpu = emul_stop_cpu;
	emul_driver.handle_pmi = emul_handle_pmi;
	emul_driver.read_counters = emul_read_counters;

	hw->ops = &pmu_model_msr_ops;
	hw->model_probe = &emul_probe_model;
	hw->emulated = true;
	hw->drv = &emul_driver;
	return 0;
}

void pmu_emul_teardown(struct pmu_hw *hw)
{
	unsigned int cpu;

	if (!emul_cpus)
		return;
	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(emul_cpus, cpu)->timer);
	free_percpu(emul_models);
	free_percpu(emul_cpus);
	emul_models = NULL;
	emul_cpus = NULL;
	hw->model_probe = NULL;
}
