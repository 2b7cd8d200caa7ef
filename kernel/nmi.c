// SPDX-License-Identifier: GPL-2.0
/*
 * The PMI entry point: an NMI_LOCAL handler registered first in
 * the chain (NMI_FLAG_FIRST), so it sees GLOBAL_STATUS before any handler
 * that acks every bit, and the sample context every path builds alike.
 *
 * The driver's handle_pmi() reads the status, keeps only our bits, records,
 * acks, re-arms and rewrites LVTPC on every path; this file only decides
 * whether the CPU is armed and turns its return value into NMI_HANDLED.
 *
 * A PMI (or timer tick) that arrives while a KVM vCPU runs in guest mode is
 * handled after the VM exit, with the host RIP of KVM's run loop in @regs.
 * perf asks KVM through perf_guest_state(), which is not exported to
 * modules (absent from the 6.1 and 6.12 Module.symvers); the same test is
 * made here with what is exported: kvm_get_running_vcpu() (looked up with
 * symbol_get() at START, or when kvm.ko is loaded during a session, seen
 * by a module notifier; kvm.ko is neither required nor pinned while no
 * session runs) and kvm_arch_pmi_in_guest() from KVM's header, which is
 * what KVM's own perf callback returns.  No exported, stable interface
 * exists on 6.1: perf_guest_state() is an inline static_call whose key
 * (__SCK____perf_guest_state) is not exported, perf_guest_cbs is not
 * exported, and perf_register_guest_info_callbacks() takes one registrant,
 * KVM itself (a second one WARNs and is ignored).  Such a window is flagged GUEST with
 * ip 0: the guest RIP needs a VMREAD that only KVM can make.
 */
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/string.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <asm/nmi.h>
#include <asm/ptrace.h>
#if IS_ENABLED(CONFIG_KVM)
#include <linux/kvm_host.h>
#endif

#include "glue.h"

#define PMIPROF_NMI_NAME	"pmiprof"

#if IS_ENABLED(CONFIG_KVM)
static struct kvm_vcpu *(*pmiprof_running_vcpu)(void) __read_mostly;
static DEFINE_MUTEX(pmiprof_guest_lock);	/* the hook, the notifier, wanted */
static bool pmiprof_guest_wanted;		/* from START to STOP */

/* Lock held.  kvm.ko is pinned from here until pmiprof_guest_detect_put(). */
static void pmiprof_guest_take(void)
{
	if (!pmiprof_running_vcpu)
		WRITE_ONCE(pmiprof_running_vcpu, symbol_get(kvm_get_running_vcpu));
}

/* kvm.ko loaded while a session runs: take its hook now, not at the next START. */
static int pmiprof_guest_module_event(struct notifier_block *nb, unsigned long state,
				      void *data)
{
	struct module *mod = data;

	if (state != MODULE_STATE_LIVE || strcmp(mod->name, "kvm"))
		return NOTIFY_DONE;
	mutex_lock(&pmiprof_guest_lock);
	if (pmiprof_guest_wanted && !pmiprof_running_vcpu) {
		pmiprof_guest_take();
		if (pmiprof_running_vcpu)
			pr_info("pmiprof: kvm loaded during the session: guest-mode samples are flagged from now on\n");
	}
	mutex_unlock(&pmiprof_guest_lock);
	return NOTIFY_DONE;
}

static struct notifier_block pmiprof_guest_nb = {
	.notifier_call = pmiprof_guest_module_event,
};

void pmiprof_guest_detect_get(void)
{
	mutex_lock(&pmiprof_guest_lock);
	if (!pmiprof_guest_wanted) {
		pmiprof_guest_wanted = true;
		/* A failure leaves detection to START-time lookups, as before. */
		if (register_module_notifier(&pmiprof_guest_nb))
			pr_warn("pmiprof: no module notifier: kvm loaded during a session is not seen\n");
	}
	pmiprof_guest_take();
	mutex_unlock(&pmiprof_guest_lock);
}

/* After every CPU stopped: no handler can be inside the hook any more. */
void pmiprof_guest_detect_put(void)
{
	bool was;

	mutex_lock(&pmiprof_guest_lock);
	was = pmiprof_guest_wanted;
	pmiprof_guest_wanted = false;
	if (pmiprof_running_vcpu) {
		WRITE_ONCE(pmiprof_running_vcpu, NULL);
		symbol_put(kvm_get_running_vcpu);
	}
	mutex_unlock(&pmiprof_guest_lock);
	/* Outside the lock: unregistering waits for a running callback, which takes it. */
	if (was)
		unregister_module_notifier(&pmiprof_guest_nb);
}

static bool pmiprof_in_guest(void)
{
	struct kvm_vcpu *vcpu = NULL;

	if (READ_ONCE(pmiprof_running_vcpu))
		vcpu = pmiprof_running_vcpu();
	return kvm_arch_pmi_in_guest(vcpu);
}
#else
void pmiprof_guest_detect_get(void)
{
}

void pmiprof_guest_detect_put(void)
{
}

static bool pmiprof_in_guest(void)
{
	return false;
}
#endif
NOKPROBE_SYMBOL(pmiprof_in_guest);

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
	ctx->guest = regs && !ctx->user && pmiprof_in_guest();
	ctx->regs = regs;
	ctx->no_context = pmiprof_task_hide_current();
	/* The user context's width, as perf_callchain_user32() decides it. */
	ctx->user_compat = regs && t->mm && !(t->flags & PF_KTHREAD) &&
			   !user_64bit_mode(user_mode(regs) ? regs : task_pt_regs(t));
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
