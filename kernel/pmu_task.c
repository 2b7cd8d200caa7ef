// SPDX-License-Identifier: GPL-2.0
/*
 * Per-task counters: saving a task's open window when it is switched out
 * and loading it back when it is switched in (perf's per-task contexts,
 * reduced to what windows need).  Kernel-independent like pmi_core.c, so
 * the unit test test_pmu_task (tests/unit/) runs it against the MSR model with a PMI
 * injected between any two MSR accesses.
 *
 * Why raw counter values are saved: the trigger counter armed at -left
 * holds "events left to the overflow" by itself, so a window that spans
 * any number of switches and CPUs closes after exactly period events of
 * the task, and every other counter's window delta stays ctr - prev.  On
 * load, non-trigger counters are written 0 and their window start shifted
 * by the same amount: a legacy (32-bit sign-extended) counter write could
 * not hold an arbitrary saved value, 0 it can.
 *
 * The PMI (an NMI) can land anywhere in here.  pc->switching tells the
 * handler to only ack: a trigger that wrapped before the freeze is closed
 * by pmiprof_pmu_task_out() itself, with the leaving task's context; on
 * the way in it is cleared before the counters run again.  The freeze
 * is in our counters' own enables (EVENTSEL.EN, FIXED_CTR_CTRL), which no
 * handler writes (AMD PerfMonV2: pc->gctrl loses our bits before
 * GLOBAL_CTL does, so the handler re-enabling on its way out cannot undo
 * it, as in the drivers' stop_cpu()).
 */
#include "pmu.h"

void pmiprof_pmu_task_init(const struct pmu_hw *hw, struct pmu_task_ctr *t)
{
	u32 k;

	memset(t, 0, sizeof(*t));
	for (k = 0; k < hw->nr_events; k++) {
		const struct pmu_slot *s = &hw->slots[k];

		t->ctr[k] = (int)k == hw->trigger ? (0 - hw->period) & s->mask : 0;
		t->prev[k] = t->ctr[k];
	}
	t->left = hw->period;
}

/*
 * Our counters' own enables: EVENTSEL.EN of each GP counter and, on Intel,
 * our FIXED_CTR_CTRL nibbles (one write for every fixed counter; the other
 * nibbles as start_cpu() found them).
 */
static void task_enables(struct pmu_cpu *pc, bool on)
{
	struct pmu_hw *hw = pc->hw;
	bool fixed = false;
	u32 k;

	for (k = 0; k < hw->nr_events; k++) {
		const struct pmu_slot *s = &hw->slots[k];

		if (s->kind == PMU_SLOT_GP)
			hw->ops->wr(pc, s->ctl_msr, on ? s->ctl : s->ctl & ~PMU_EVTSEL_EN);
		else
			fixed = true;
	}
	if (fixed)
		hw->ops->wr(pc, PMU_MSR_IA32_FIXED_CTR_CTRL,
			    pc->fctl_other | (on ? hw->fixed_ctrl : 0));
}

NOKPROBE_SYMBOL(task_enables);

/*
 * Only AMD PerfMonV2 freezes through the global control.  On Intel,
 * GLOBAL_CTRL keeps our bits for the whole session and the freeze is in
 * the counters' own enables: while any x86 perf event is active, even one
 * that holds no counter (an Intel PT event: x86_add_exclusive() raises
 * active_events and reserves nothing, so our reservation does not keep it
 * out), perf's NMI handler runs on every NMI, writes GLOBAL_CTRL = 0, acks
 * every status bit and writes back its mask of all counters
 * (intel_pmu_handle_irq(), __intel_pmu_enable_all()).  A GLOBAL_CTRL freeze
 * was undone by the next NMI: our counters ran during unfollowed tasks.
 * perf writes no EVENTSEL or FIXED_CTR_CTRL it has no event on.  PT is
 * Intel's; on AMD every perf hardware user reserves the counters first.
 */
static bool task_freeze_global(const struct pmu_hw *hw)
{
	return hw->global_regs && hw->vendor == PMIPROF_VENDOR_AMD;
}

/* Our counters stop; everything else in the PMU is left as it is. */
void pmiprof_pmu_task_freeze(struct pmu_cpu *pc)
{
	struct pmu_hw *hw = pc->hw;

	if (task_freeze_global(hw)) {
		WRITE_ONCE(pc->gctrl, pc->gctrl & ~hw->own_mask);
		hw->ops->wr(pc, PMU_MSR_AMD_GLOBAL_CTL, READ_ONCE(pc->gctrl));
		return;
	}
	task_enables(pc, false);
}

NOKPROBE_SYMBOL(pmiprof_pmu_task_freeze);

static void task_unfreeze(struct pmu_cpu *pc)
{
	struct pmu_hw *hw = pc->hw;

	if (task_freeze_global(hw)) {
		WRITE_ONCE(pc->gctrl, pc->gctrl | hw->own_mask);
		hw->ops->wr(pc, PMU_MSR_AMD_GLOBAL_CTL, READ_ONCE(pc->gctrl));
		return;
	}
	task_enables(pc, true);
}

void pmiprof_pmu_task_in(struct pmu_cpu *pc, const struct pmu_task_ctr *t)
{
	struct pmu_hw *hw = pc->hw;
	u32 k;

	WRITE_ONCE(pc->switching, true);
	barrier();
	for (k = 0; k < hw->nr_events; k++) {
		const struct pmu_slot *s = &hw->slots[k];

		if ((int)k == hw->trigger) {
			hw->ops->wr(pc, s->ctr_msr, t->ctr[k]);
			pc->prev[k] = t->prev[k];
		} else {
			hw->ops->wr(pc, s->ctr_msr, 0);
			pc->prev[k] = (t->prev[k] - t->ctr[k]) & s->mask;
		}
	}
	pc->left = t->left;
	WRITE_ONCE(pc->task_pid, t->pid);
	WRITE_ONCE(pc->task_tid, t->tid);
	/*
	 * Cleared before the unfreeze: from there on a PMI is the loaded
	 * task's and the handler must close its window.  While frozen nothing
	 * of ours can wrap (the saved trigger never is), so a PMI landing
	 * before this point only acks.  Cleared after the unfreeze, a PMI in
	 * between was acked and its window never closed: no more PMIs for
	 * the task until it was switched out again.
	 */
	barrier();
	WRITE_ONCE(pc->switching, false);
	barrier();
	task_unfreeze(pc);
}

NOKPROBE_SYMBOL(pmiprof_pmu_task_in);

void pmiprof_pmu_task_out(struct pmu_cpu *pc, struct pmu_task_ctr *t, const struct pmi_ctx *ctx)
{
	struct pmu_hw *hw = pc->hw;
	int trig = hw->mode == PMIPROF_SAMPLING_PMI ? hw->trigger : -1;
	u32 k;

	WRITE_ONCE(pc->switching, true);
	barrier();
	pmiprof_pmu_task_freeze(pc);
	if (trig >= 0) {
		const struct pmu_slot *ts = &hw->slots[trig];
		u64 vt = hw->ops->rd(pc, ts->ctr_msr);

		/* Wrapped before the freeze: its PMI is in flight or was only acked. */
		if (!(vt & ts->top)) {
			pmiprof_pmu_close_overflow(pc, ctx, vt);
			vt = pc->prev[trig];	/* the re-armed value close wrote */
		}
		t->ctr[trig] = vt;
	}
	for (k = 0; k < hw->nr_events; k++) {
		if ((int)k != trig)
			t->ctr[k] = hw->ops->rd(pc, hw->slots[k].ctr_msr);
		t->prev[k] = pc->prev[k];
	}
	t->left = pc->left;
	WRITE_ONCE(pc->task_pid, 0);
	WRITE_ONCE(pc->task_tid, 0);
	barrier();
	WRITE_ONCE(pc->switching, false);
}

NOKPROBE_SYMBOL(pmiprof_pmu_task_out);

void pmiprof_pmu_task_partial(const struct pmu_hw *hw, const struct pmu_task_ctr *t, u64 *counts)
{
	u32 k;

	for (k = 0; k < hw->nr_events; k++)
		counts[k] = (t->ctr[k] - t->prev[k]) & hw->slots[k].mask;
}
