// SPDX-License-Identifier: GPL-2.0
/*
 * Time-based sampling: a per-CPU hrtimer in hard-irq mode
 * (HRTIMER_MODE_REL_PINNED_HARD) closes a window every interval.  The
 * interrupted context comes from get_irq_regs(), which is only meaningful in
 * hard-irq context (as in perf's cpu-clock event).  When a PMU is present
 * the core reads its counters, so windows still carry counts; either way
 * records are flagged PMIPROF_REC_F_TIMER: time-based, the honest mode for
 * VMs without a PMU.  Caveat: a timer cannot sample IRQ-disabled regions.
 */
#include <linux/hrtimer.h>
#include <asm/irq_regs.h>
#include <linux/ktime.h>
#include <linux/percpu.h>

#include "compat.h"
#include "glue.h"

struct pmiprof_cpu_timer {
	struct hrtimer timer;
	ktime_t interval;
};

static DEFINE_PER_CPU(struct pmiprof_cpu_timer, pmiprof_timers);

static enum hrtimer_restart pmiprof_timer_fn(struct hrtimer *timer)
{
	struct pmiprof_cpu_timer *t = container_of(timer, struct pmiprof_cpu_timer, timer);
	struct pmu_cpu *pc = this_cpu_ptr(&pmiprof_pcpu);
	struct pmi_ctx ctx;

	pmiprof_fill_ctx(pc, get_irq_regs(), &ctx);
	pmiprof_pmu_sample_timer(pc, &ctx);
	hrtimer_forward_now(timer, t->interval);
	return HRTIMER_RESTART;
}

void pmiprof_timer_init(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct pmiprof_cpu_timer *t = per_cpu_ptr(&pmiprof_timers, cpu);

		pmiprof_hrtimer_setup(&t->timer, pmiprof_timer_fn, CLOCK_MONOTONIC,
				      HRTIMER_MODE_REL_PINNED_HARD);
	}
}

/* On @pc's CPU (pinned timer), IRQs off or in the cpuhp online callback. */
void pmiprof_timer_start_cpu(struct pmu_cpu *pc, u64 interval_ns)
{
	struct pmiprof_cpu_timer *t = this_cpu_ptr(&pmiprof_timers);

	t->interval = ns_to_ktime(interval_ns);
	hrtimer_start(&t->timer, t->interval, HRTIMER_MODE_REL_PINNED_HARD);
}

/* Process context; waits for a running callback.  Safe on idle timers. */
void pmiprof_timer_cancel_cpu(unsigned int cpu)
{
	hrtimer_cancel(&per_cpu_ptr(&pmiprof_timers, cpu)->timer);
}

/*
 * Per-task mode, on this CPU with IRQs off (so the pinned callback is not
 * running): stop the tick and return what was left of its interval.
 */
u64 pmiprof_timer_pause_cpu(void)
{
	struct pmiprof_cpu_timer *t = this_cpu_ptr(&pmiprof_timers);
	s64 left = ktime_to_ns(hrtimer_get_remaining(&t->timer));

	hrtimer_try_to_cancel(&t->timer);
	if (left < 1)
		left = 1;
	if (left > ktime_to_ns(t->interval))
		left = ktime_to_ns(t->interval);
	return left;
}

void pmiprof_timer_resume_cpu(u64 left_ns)
{
	struct pmiprof_cpu_timer *t = this_cpu_ptr(&pmiprof_timers);

	hrtimer_start(&t->timer, ns_to_ktime(left_ns), HRTIMER_MODE_REL_PINNED_HARD);
}

void pmiprof_timer_cancel_all(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		pmiprof_timer_cancel_cpu(cpu);
}
