// SPDX-License-Identifier: GPL-2.0
/*
 * What the call-stack code (stack.c) needs from the kernel, in NMI or
 * hard-irq context: the interrupted task's user registers, NMI-safe user
 * reads and the kernel frames.
 *
 * User reads: copy_from_user_nmi() (exported, GPL, in 6.1 and 6.12): it
 * checks the range, refuses when the loaded CR3 is not current->mm's
 * (nmi_uaccess_okay(), e.g. inside a switch_mm), and copies with page
 * faults disabled, so a missing page ends the copy instead of sleeping.
 *
 * User registers: perf_get_regs_user()'s rules (not exported): a user-mode
 * sample's own regs; otherwise task_pt_regs(current), refused when the NMI
 * hit the entry code while those regs were being saved.
 *
 * Kernel frames: the ORC unwinder through __unwind_start(),
 * unwind_next_frame() and unwind_get_return_address(), exported in 6.1 and
 * 6.12 and the loop perf_callchain_kernel() runs in NMI.  ORC is safe there
 * by design: its tables are read-only after boot (module tables are found
 * through RCU-protected lookups, which NMIs may use), it takes no locks,
 * allocates nothing, and reads stack words only after get_stack_info()
 * placed them on a known stack of this task or CPU (NMI/IRQ/exception
 * stacks included), with READ_ONCE_NOCHECK; a corrupt or unknown frame
 * ends the walk (state->error) instead of faulting.
 */
#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>
#include <asm/ptrace.h>
#include <asm/unwind.h>

#include "glue.h"

/* perf's x86-64 register numbers (PERF_REG_X86_*) -> pt_regs offsets; -1: none (DS..GS). */
static const short pmiprof_preg_off[PMU_UREG_MAX] = {
	offsetof(struct pt_regs, ax), offsetof(struct pt_regs, bx),
	offsetof(struct pt_regs, cx), offsetof(struct pt_regs, dx),
	offsetof(struct pt_regs, si), offsetof(struct pt_regs, di),
	offsetof(struct pt_regs, bp), offsetof(struct pt_regs, sp),
	offsetof(struct pt_regs, ip), offsetof(struct pt_regs, flags),
	offsetof(struct pt_regs, cs), offsetof(struct pt_regs, ss),
	-1, -1, -1, -1,
	offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),
	offsetof(struct pt_regs, r10), offsetof(struct pt_regs, r11),
	offsetof(struct pt_regs, r12), offsetof(struct pt_regs, r13),
	offsetof(struct pt_regs, r14), offsetof(struct pt_regs, r15),
};

static bool pmiprof_user_regs(const struct pmi_ctx *ctx, u64 mask, u64 *out)
{
	struct pt_regs *regs = (struct pt_regs *)ctx->regs;
	struct pt_regs *u;
	u32 i, n = 0;

	if (!regs || !current->mm || (current->flags & PF_KTHREAD))
		return false;
	if (user_mode(regs)) {
		u = regs;
	} else {
		u = task_pt_regs(current);
		/* The NMI interrupted the entry code that was saving these regs. */
		if (regs->sp > (unsigned long)&u->r11 && regs->sp <= (unsigned long)(u + 1))
			return false;
	}
	for (i = 0; i < PMU_UREG_MAX; i++) {
		if (!(mask & BIT_ULL(i)))
			continue;
		out[n++] = pmiprof_preg_off[i] < 0 ? 0 :
			   *(unsigned long *)((u8 *)u + pmiprof_preg_off[i]);
	}
	return true;
}

NOKPROBE_SYMBOL(pmiprof_user_regs);

static unsigned long pmiprof_user_read(void *dst, u64 src, unsigned long n)
{
	return copy_from_user_nmi(dst, (const void __user *)(unsigned long)src, n);
}

NOKPROBE_SYMBOL(pmiprof_user_read);

static u32 pmiprof_kernel_stack(const struct pmi_ctx *ctx, u32 max,
				void (*put)(void *arg, u64 ip), void *arg)
{
	struct pt_regs *regs = (struct pt_regs *)ctx->regs;
	struct unwind_state state;
	u32 n = 0;

	if (!regs || user_mode(regs))
		return 0;
	/* Starting from regs skips the regs frame: the sampled ip is not repeated. */
	for (unwind_start(&state, current, regs, NULL); !unwind_done(&state) && n < max;
	     unwind_next_frame(&state)) {
		unsigned long addr = unwind_get_return_address(&state);

		if (!addr)
			break;
		put(arg, addr);
		n++;
	}
	return n;
}

NOKPROBE_SYMBOL(pmiprof_kernel_stack);

const struct pmu_stack_ops pmiprof_stack_native_ops = {
	.user_regs	= pmiprof_user_regs,
	.read		= pmiprof_user_read,
	.kernel_stack	= pmiprof_kernel_stack,
};
