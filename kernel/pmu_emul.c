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
 *   emul_clock=tick|icount  tick (default): the above, synthetic in time.
 *                           icount: under QEMU -icount shift=0 the guest TSC
 *                           counts executed instructions exactly, so the
 *                           instructions counter (user + kernel) is fed from
 *                           it, idle (halted) time excluded, and each PMI is
 *                           a one-shot hard hrtimer armed for the exact
 *                           overflow instant, not the next tick.  Cycles are
 *                           instructions (IPC 1), other events stay fixed
 *                           fractions: synthetic.  Refused, with the reason,
 *                           when the TSC does not count instructions.
 *   emul_fault=none|skid|drop_pmi|leave_enabled|task_leak|no_throttle
 *                           icount only, default none: a deliberately broken
 *                           PMU for `pmiprof doctor --selftest` to catch (its
 *                           VM tests).  skid: each PMI fires EMUL_FAULT_SKID (5000)
 *                           instructions after the overflow; drop_pmi: the
 *                           5th PMI of a session is never handled; leave_enabled:
 *                           STOP leaves the counters counting and armed, so
 *                           an overflow after it reaches no handler (on
 *                           hardware: "NMI received for unknown reason");
 *                           task_leak: per task, the instructions retired
 *                           while a followed task was out (other tasks')
 *                           count for it when it comes back; no_throttle:
 *                           each PMI re-arms the trigger at one period,
 *                           undoing the throttle's stretched period.
 *
 * Why the TSC and not local_clock()/ktime_get(): under icount the TSC *is*
 * QEMU's virtual clock (icount_get(), 1 ns per instruction at shift=0) and
 * RDTSC is translated as an I/O instruction, so it is exact to the
 * instruction; local_clock() and ktime_get() are that TSC scaled by the
 * kernel's calibrated tsc_khz (999.993 MHz early, "1000.000" refined), a
 * few ppm off.  They are still what the hrtimer deadline is expressed in,
 * so a conversion error there is only timer skid, never a miscount.
 */
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/irqflags.h>
#include <linux/tracepoint.h>
#include <trace/events/power.h>
#include <asm/irq_regs.h>
#include <asm/tsc.h>

#include "compat.h"
#include "emul_icount.h"
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

static char *emul_clock = "tick";
module_param(emul_clock, charp, 0444);
MODULE_PARM_DESC(emul_clock,
		 "pmu=emul: tick (synthetic, default) or icount (QEMU -icount shift=0: instructions exact)");

static char *emul_fault = "none";
module_param(emul_fault, charp, 0444);
MODULE_PARM_DESC(emul_fault,
		 "pmu=emul icount: none (default), skid, drop_pmi, leave_enabled, task_leak or no_throttle: a broken PMU for tests");

static bool emul_icount;

#define EMUL_FAULT_SKID		5000	/* instructions: 2.5 x the self-test bound */

static bool emul_fault_is(const char *name)
{
	return emul_icount && !strcmp(emul_fault, name);
}

struct emul_cpu {
	struct hrtimer timer;
	struct pmu_cpu *pc;
	u64 last_ns;
	u64 last_tsc;
	/* emul_clock=icount */
	bool running;			/* between start_cpu and stop_cpu */
	u32 trig_msr;			/* trigger counter MSR, 0: no PMIs (timer/count mode) */
	struct emul_icount_clock clk;
	u64 deadline_tsc;		/* TSC at which the trigger overflows */
	u64 skid_sum, skid_min, skid_max, fires, early;
	u64 delivered;			/* PMIs of this session, for emul_fault=drop_pmi */
	bool task_out;			/* per-task mode: no followed task runs here */
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
		if (++d->ec->delivered == 5 && emul_fault_is("drop_pmi"))
			continue;
		pmiprof_fill_ctx(d->ec->pc, d->regs, &ctx);
		/* What the kernel's NMI handler says when no handler claims one. */
		if (!emul_inner->handle_pmi(d->ec->pc, &ctx))
			pr_warn_ratelimited("pmiprof: emulated PMI on cpu%u claimed by no handler (hardware: NMI received for unknown reason)\n",
					    d->ec->pc->cpu);
		else if (emul_fault_is("no_throttle"))
			pmiprof_pmu_model_wrmsr(m, d->ec->trig_msr,
						(0 - d->ec->pc->hw->period) & m->mask);
	}
}

/*
 * Bring the CPU's model up to now.  A late tick (TCG is slow) may cover
 * several periods: pmiprof_pmu_model_run() advances one period at a time so each
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
	if (is_idle_task(current) || ec->task_out)
		return;		/* unhalted events do not count in idle, nor for other tasks */
	if (period && di > EMUL_MAX_STEPS * period) {
		dc = mul_u64_u64_div_u64(dc, EMUL_MAX_STEPS * period, di);
		di = EMUL_MAX_STEPS * period;
	}
	m->user = regs && user_mode(regs);
	pmiprof_pmu_model_run(m, di, dc, period, EMUL_MAX_STEPS, deliver ? emul_deliver : NULL, &d);
}

static enum hrtimer_restart emul_tick(struct hrtimer *timer)
{
	struct emul_cpu *ec = container_of(timer, struct emul_cpu, timer);

	emul_advance(ec, get_irq_regs(), true);
	hrtimer_forward_now(timer, ns_to_ktime((u64)emul_tick_us * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

/* ---- emul_clock=icount ------------------------------------------------------ */

/*
 * Bring the model up to @tsc: every instruction retired since the last
 * take, cut at the trigger's overflow so the window closes on it exactly.
 * @regs (the interrupted context) is the sample's; NULL outside a timer.
 */
static void emul_icount_advance(struct emul_cpu *ec, struct pt_regs *regs, bool deliver, u64 tsc)
{
	struct emul_delivery d = { .ec = ec, .regs = regs };
	struct pmu_model *m = ec->pc->model;

	m->user = regs && user_mode(regs);
	emul_icount_run(m, emul_icount_take(&ec->clk, tsc), ec->trig_msr, EMUL_MAX_STEPS,
			deliver ? emul_deliver : NULL, &d);
}

/*
 * The deadline: the instant the trigger counter reaches the period, from
 * its value alone (see emul_icount.h), as CLOCK_MONOTONIC.  A PMI already
 * pending (raised while reading counters, or just before idle) fires now.
 */
static ktime_t emul_icount_deadline(struct emul_cpu *ec)
{
	struct pmu_model *m = ec->pc->model;
	u64 left = 0, tsc, ran;
	ktime_t now;

	if (!m->pmi_pending)
		left = emul_icount_events_left(pmiprof_pmu_model_rdmsr(m, ec->trig_msr), m->mask);
	ec->deadline_tsc = ec->clk.last + left;
	if (emul_fault_is("skid"))
		left += EMUL_FAULT_SKID;
	tsc = rdtsc();
	now = ktime_get();
	ran = tsc - ec->clk.last;	/* retired since the counter was brought up to date */
	left = left > ran ? left - ran : 0;
	return ktime_add_ns(now, emul_icount_events_to_ns(left, tsc_khz));
}

static enum hrtimer_restart emul_icount_fire(struct hrtimer *timer)
{
	struct emul_cpu *ec = container_of(timer, struct emul_cpu, timer);
	u64 tsc = rdtsc();

	if (!ec->running || ec->clk.frozen || !ec->trig_msr)
		return HRTIMER_NORESTART;
	/* Instructions from the overflow to here: interrupt entry, hrtimer core. */
	if ((s64)(tsc - ec->deadline_tsc) >= 0) {
		u64 skid = tsc - ec->deadline_tsc;

		ec->fires++;
		ec->skid_sum += skid;
		ec->skid_max = max(ec->skid_max, skid);
		ec->skid_min = min(ec->skid_min, skid);
	} else {
		ec->early++;	/* tsc_khz rounding: re-armed for the rest */
	}
	emul_icount_advance(ec, get_irq_regs(), true, tsc);
	hrtimer_set_expires(timer, emul_icount_deadline(ec));
	return HRTIMER_RESTART;
}

/* On the CPU, IRQs off. */
static void emul_icount_arm(struct emul_cpu *ec)
{
	if (ec->running && ec->trig_msr && !ec->clk.frozen)
		hrtimer_start(&ec->timer, emul_icount_deadline(ec), HRTIMER_MODE_ABS_PINNED_HARD);
}

/*
 * cpu_idle tracepoint: under sleep=off QEMU jumps the TSC over halted time,
 * when nothing retires, so the counter is frozen from idle entry to exit
 * (its value, hence the events left, is kept; the deadline is re-armed from
 * it at exit).  Instructions of interrupts taken while halted are not
 * counted.  The same freeze/thaw would serve per-task counters.
 */
static void emul_icount_idle(void *data, unsigned int state, unsigned int cpu)
{
	struct emul_cpu *ec;
	unsigned long flags;

	if (!emul_cpus)
		return;
	local_irq_save(flags);
	ec = this_cpu_ptr(emul_cpus);
	if (ec->running && !ec->task_out) {	/* task_out: frozen until a task comes in */
		if (state != (unsigned int)PWR_EVENT_EXIT && !ec->clk.frozen) {
			emul_icount_advance(ec, NULL, false, rdtsc());
			ec->clk.frozen = true;
			hrtimer_try_to_cancel(&ec->timer);
		} else if (state == (unsigned int)PWR_EVENT_EXIT && ec->clk.frozen) {
			emul_icount_thaw(&ec->clk, rdtsc());
			emul_icount_arm(ec);
		}
	}
	local_irq_restore(flags);
}

static noinline u64 emul_icount_probe_loop(unsigned long n)
{
	u64 t0 = rdtsc();

	asm volatile("1: dec %0; jnz 1b" : "+r"(n));
	return rdtsc() - t0;
}

/* Is the TSC exactly the instruction count (QEMU -icount shift=0)? */
static int emul_icount_check(void)
{
	u64 a = 0, b = 0;
	unsigned long flags;
	int i;

	if (num_possible_cpus() > 1) {
		pr_err("pmiprof: emul_clock=icount needs one CPU (QEMU's icount clock is shared by all vCPUs); this kernel has %u possible\n",
		       num_possible_cpus());
		return -EINVAL;
	}
	for (i = 0; i < 3; i++) {
		local_irq_save(flags);
		a = emul_icount_probe_loop(EMUL_ICOUNT_PROBE_SHORT);
		b = emul_icount_probe_loop(EMUL_ICOUNT_PROBE_LONG);
		local_irq_restore(flags);
		if (!emul_icount_probe_ok(a, b))
			break;
	}
	if (i < 3) {
		pr_err("pmiprof: emul_clock=icount: the TSC does not count instructions (%llu ticks for %u more, %u expected): boot QEMU with -icount shift=0,sleep=off\n",
		       b - a, 2 * (EMUL_ICOUNT_PROBE_LONG - EMUL_ICOUNT_PROBE_SHORT),
		       2 * (EMUL_ICOUNT_PROBE_LONG - EMUL_ICOUNT_PROBE_SHORT));
		return -ENODEV;
	}
	pr_info("pmiprof: emul_clock=icount: the TSC counts instructions exactly (tsc_khz %u)\n",
		tsc_khz);
	return 0;
}

/* icount counts user + kernel as one: a ring filter cannot be honoured. */
static int emul_configure(struct pmu_hw *hw, const struct pmiprof_config *cfg)
{
	u32 i;

	for (i = 0; emul_icount && i < cfg->nr_events; i++) {
		u32 f = cfg->events[i].flags & (PMIPROF_EV_USER | PMIPROF_EV_KERNEL);

		if (f != (PMIPROF_EV_USER | PMIPROF_EV_KERNEL)) {
			hw->reason = "emul_clock=icount counts user + kernel as one: no :u or :k";
			return -EOPNOTSUPP;
		}
	}
	return emul_inner->configure(hw, cfg);
}

static int emul_probe(struct pmu_hw *hw)
{
	int ret = emul_inner->probe(hw);

	if (!ret && emul_icount) {
		size_t l = strnlen(hw->name, sizeof(hw->name));

		scnprintf(hw->name + l, sizeof(hw->name) - l, "-icount");
		hw->info_flags |= PMIPROF_INFO_F_ICOUNT;
	}
	return ret;
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
	ec->task_out = false;
	if (emul_icount) {
		const struct pmu_hw *hw = pc->hw;

		ec->trig_msr = hw->mode == PMIPROF_SAMPLING_PMI && hw->trigger >= 0 ?
			       hw->slots[hw->trigger].ctr_msr : 0;
		ec->skid_sum = 0;
		ec->skid_max = 0;
		ec->skid_min = U64_MAX;
		ec->fires = 0;
		ec->early = 0;
		ec->delivered = 0;
		emul_icount_thaw(&ec->clk, rdtsc());
		ec->running = true;
		emul_icount_arm(ec);
		return 0;
	}
	ec->last_ns = local_clock();
	ec->last_tsc = rdtsc();
	hrtimer_start(&ec->timer, ns_to_ktime((u64)emul_tick_us * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
	return 0;
}

/*
 * On @pc's CPU with IRQs off: the pinned tick cannot be running here, so
 * try_to_cancel always succeeds; pmiprof_pmu_emul_teardown() waits for it anyway.
 */
static void emul_stop_cpu(struct pmu_cpu *pc)
{
	struct emul_cpu *ec;

	emul_bind(pc);
	ec = pc->emul;
	if (emul_icount && ec->fires)
		pr_info("pmiprof: cpu%u icount: %llu PMIs, overflow to handler %llu..%llu instructions (mean %llu), %llu early timer fires\n",
			pc->cpu, ec->fires, ec->skid_min, ec->skid_max,
			div64_u64(ec->skid_sum, ec->fires), ec->early);
	if (emul_fault_is("leave_enabled") && pc->hw->vendor == PMIPROF_VENDOR_INTEL) {
		u64 g = pmiprof_pmu_model_rdmsr(pc->model, PMU_MSR_IA32_GLOBAL_CTRL);
		u64 f = pmiprof_pmu_model_rdmsr(pc->model, PMU_MSR_IA32_FIXED_CTR_CTRL);

		emul_inner->stop_cpu(pc);	/* then undo it: the timer stays armed */
		pmiprof_pmu_model_wrmsr(pc->model, PMU_MSR_IA32_FIXED_CTR_CTRL, f);
		pmiprof_pmu_model_wrmsr(pc->model, PMU_MSR_IA32_GLOBAL_CTRL, g);
		return;
	}
	ec->running = false;
	hrtimer_try_to_cancel(&ec->timer);
	emul_inner->stop_cpu(pc);
}

/*
 * Per-task mode (task.c), IRQs off, on @pc's CPU: count up to now for the
 * task leaving, delivering the PMIs that are due (its windows), then count
 * nothing until emul_task_resume().  The TSC at both instants is the
 * instruction clock task.c sums per task under icount.
 */
static u64 emul_task_sync(struct pmu_cpu *pc)
{
	struct emul_cpu *ec;
	u64 tsc;

	emul_bind(pc);
	ec = pc->emul;
	if (!emul_icount) {
		emul_advance(ec, NULL, true);
		ec->task_out = true;
		return 0;
	}
	tsc = rdtsc();
	if (ec->running && !ec->clk.frozen)
		emul_icount_advance(ec, NULL, true, tsc);
	ec->clk.last = tsc;
	ec->clk.frozen = true;
	ec->task_out = true;
	hrtimer_try_to_cancel(&ec->timer);
	return tsc;
}

static u64 emul_task_resume(struct pmu_cpu *pc)
{
	struct emul_cpu *ec;
	u64 tsc;

	emul_bind(pc);
	ec = pc->emul;
	ec->task_out = false;
	if (!emul_icount) {
		ec->last_ns = local_clock();
		ec->last_tsc = rdtsc();
		return 0;
	}
	tsc = rdtsc();
	/* task_leak: from the switch-out on, what other tasks ran counts too */
	emul_icount_thaw(&ec->clk, emul_fault_is("task_leak") ? ec->clk.last : tsc);
	emul_icount_arm(ec);
	return tsc;
}

static int emul_handle_pmi(struct pmu_cpu *pc, const struct pmi_ctx *ctx)
{
	/* Only the tick raises emulated PMIs; a real NMI is never ours. */
	return 0;
}

/* Timer and counting modes: count up to this instant before reading. */
static void emul_read_counters(struct pmu_cpu *pc, u64 *out)
{
	struct emul_cpu *ec;

	emul_bind(pc);
	ec = pc->emul;
	if (pc == ec->pc) {
		if (!emul_icount)
			emul_advance(ec, get_irq_regs(), false);
		else if (ec->running)
			emul_icount_advance(ec, get_irq_regs(), false, rdtsc());
	}
	emul_inner->read_counters(pc, out);
}

int pmiprof_pmu_emul_setup(struct pmu_hw *hw, u32 vendor)
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
	if (!strcmp(emul_clock, "icount")) {
		int ret = emul_icount_check();

		if (ret)
			return ret;
		emul_icount = true;
		if (strcmp(emul_fault, "none") && strcmp(emul_fault, "skid") &&
		    strcmp(emul_fault, "drop_pmi") && strcmp(emul_fault, "leave_enabled") &&
		    strcmp(emul_fault, "task_leak") && strcmp(emul_fault, "no_throttle")) {
			pr_err("pmiprof: emul_fault=%s: expected none, skid, drop_pmi, leave_enabled, task_leak or no_throttle\n",
			       emul_fault);
			emul_icount = false;
			return -EINVAL;
		}
		if (strcmp(emul_fault, "none"))
			pr_warn("pmiprof: emul_fault=%s: the emulated PMU is broken on purpose\n",
				emul_fault);
	} else if (strcmp(emul_clock, "tick")) {
		pr_err("pmiprof: emul_clock=%s: expected tick or icount\n", emul_clock);
		return -EINVAL;
	}
	emul_inner = pmiprof_pmu_driver_for_vendor(vendor);
	if (!emul_inner)
		return -EINVAL;
	pmiprof_pmu_model_spec_default(&spec, vendor);
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
	pmiprof_pmu_model_init(&emul_probe_model, &spec);
	for_each_possible_cpu(cpu) {
		struct emul_cpu *ec = per_cpu_ptr(emul_cpus, cpu);

		pmiprof_pmu_model_init(per_cpu_ptr(emul_models, cpu), &spec);
		if (emul_icount)
			pmiprof_hrtimer_setup(&ec->timer, emul_icount_fire, CLOCK_MONOTONIC,
					      HRTIMER_MODE_ABS_PINNED_HARD);
		else
			pmiprof_hrtimer_setup(&ec->timer, emul_tick, CLOCK_MONOTONIC,
					      HRTIMER_MODE_REL_PINNED_HARD);
	}
	if (emul_icount) {
		int ret = register_trace_cpu_idle(emul_icount_idle, NULL);

		if (ret) {
			pr_err("pmiprof: emul_clock=icount: cannot hook the cpu_idle tracepoint (%d)\n",
			       ret);
			free_percpu(emul_models);
			free_percpu(emul_cpus);
			emul_models = NULL;
			emul_cpus = NULL;
			return ret;
		}
	}

	emul_driver = *emul_inner;
	emul_driver.name = vendor == PMIPROF_VENDOR_INTEL ? "emul-intel" : "emul-amd";
	emul_driver.probe = emul_probe;
	emul_driver.configure = emul_configure;
	emul_driver.check_free = emul_check_free;
	emul_driver.start_cpu = emul_start_cpu;
	emul_driver.stop_cpu = emul_stop_cpu;
	emul_driver.handle_pmi = emul_handle_pmi;
	emul_driver.read_counters = emul_read_counters;
	emul_driver.task_sync = emul_task_sync;
	emul_driver.task_resume = emul_task_resume;

	hw->ops = &pmiprof_pmu_model_msr_ops;
	hw->model_probe = &emul_probe_model;
	hw->emulated = true;
	hw->drv = &emul_driver;
	return 0;
}

void pmiprof_pmu_emul_teardown(struct pmu_hw *hw)
{
	unsigned int cpu;

	if (!emul_cpus)
		return;
	if (emul_icount) {
		unregister_trace_cpu_idle(emul_icount_idle, NULL);
		tracepoint_synchronize_unregister();
	}
	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(emul_cpus, cpu)->timer);
	emul_icount = false;
	free_percpu(emul_models);
	free_percpu(emul_cpus);
	emul_models = NULL;
	emul_cpus = NULL;
	hw->model_probe = NULL;
}
