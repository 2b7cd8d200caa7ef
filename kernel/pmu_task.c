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
 * the way in it is cleared before the counters run again.  pc->gctrl
 * loses our enable bits before GLOBAL_CTRL does, so a handler re-enabling
 * on its way out cannot undo the freeze (as in the drivers' stop_cpu()).
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

static u32 task_ctrl_msr(const struct pmu_hw *hw)
{
	return hw->vendor == PMIPROF_VENDOR_AMD ? PMU_MSR_AMD_GLOBAL_CTL :
						  PMU_MSR_IA32_GLOBAL_CTRL;
}

/* Our counters stop; everything else in the PMU is left as it is. */
void pmiprof_pmu_task_freeze(struct pmu_cpu *pc)
{
	struct pmu_hw *hw = pc->hw;
	u32 k;

	if (hw->global_regs) {
		WRITE_ONCE(pc->gctrl, pc->gctrl & ~hw->own_mask);
		hw->ops->wr(pc, task_ctrl_msr(hw), READ_ONCE(pc->gctrl));
		return;
	}
	for (k = 0; k < hw->nr_events; k++)
		if (hw->slots[k].kind == PMU_SLOT_GP)
			hw->ops->wr(pc, hw->slots[k].ctl_msr, hw->slots[k].ctl & ~PMU_EVTSEL_EN);
}

NOKPROBE_SYMBOL(pmiprof_pmu_task_freeze);

static void task_unfreeze(struct pmu_cpu *pc)
{
	struct pmu_hw *hw = pc->hw;
	u32 k;

	if (hw->global_regs) {
		WRITE_ONCE(pc->gctrl, pc->gctrl | hw->own_mask);
		hw->ops->wr(pc, task_ctrl_msr(hw), READ_ONCE(pc->gctrl));
		return;
	}
	for (k = 0; k < hw->nr_events; k++)
		if (hw->slots[k].kind == PMU_SLOT_GP)
			hw->ops->wr(pc, hw->slots[k].ctl_msr, hw->slots[k].ctl);
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
