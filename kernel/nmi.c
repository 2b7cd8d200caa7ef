// SPDX-License-Identifier: GPL-2.0
/*
 * The PMI entry point: an NMI_LOCAL handler registered first in
 * the chain (NMI_FLAG_FIRST), so it sees GLOBAL_STATUS before any handler
 * that acks every bit, and the sample context every path builds alike.
 *
 * The driver's handle_pmi() reads the status, keeps only our bits, records,
 * acks, re-arms and rewrites LVTPC on every path; this file only decides
 * whether the CPU is armed and turns its return value into NMI_HANDLED.
 */
#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <asm/nmi.h>
#include <asm/ptrace.h>

#include "glue.h"

#define PMIPROF_NMI_NAME	"pmiprof"

/*
 * Fill the fields every sample needs from the interrupted context.  Runs in
 * NMI or hard-irq context: current->pid/tgid are plain fields (init pid
 * namespace values; the daemon translates for containers).  @regs may be
 * NULL (an hrtimer fired outside an interrupt frame): ip 0, kernel.
 */
void pmiprof_fill_ctx(struct pmu_cpu *pc, struct pt_regs *regs, struct pmi_ctx *ctx)
{
	struct task_struct *t = current;

	ctx->time_ns = pmu_clock_ns();
	ctx->ip = regs ? instruction_pointer(regs) : 0;
	ctx->user = regs && user_mode(regs);
	ctx->pid = t->tgid;
	ctx->tid = t->pid;
	ctx->cpu = pc->cpu;
	ctx->kernel_ip_ok = pc->hw->kernel_ips;
}
NOKPROBE_SYMBOL(pmiprof_fill_ctx);

static int pmiprof_nmi_handler(unsigned int type, struct pt_regs *regs)
{
	struct pmu_cpu *pc = this_cpu_ptr(&pmiprof_pcpu);
	struct pmi_ctx ctx;

	/*
	 * Not armed: not ours (counters stopped, status acked in stop_cpu).
	 * Armed: the driver handles every path, including status 0, where it
	 * still rewrites LVTPC and returns 0 so other handlers get the NMI.
	 */
	if (!READ_ONCE(pc->armed))
		return NMI_DONE;
	pmiprof_fill_ctx(pc, regs, &ctx);
	return pc->hw->drv->handle_pmi(pc, &ctx);
}
NOKPROBE_SYMBOL(pmiprof_nmi_handler);

int pmiprof_nmi_register(void)
{
	return register_nmi_handler(NMI_LOCAL, pmiprof_nmi_handler, NMI_FLAG_FIRST,
				    PMIPROF_NMI_NAME);
}

/* Waits (synchronize_rcu) until no CPU is still inside the handler. */
void pmiprof_nmi_unregister(void)
{
	unregister_nmi_handler(NMI_LOCAL, PMIPROF_NMI_NAME);
}
