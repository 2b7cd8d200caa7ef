/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the module-glue files (main.c, session.c, chardev.c,
 * nmi.c, timer_mode.c, hotplug.c, coexist.c, msr_native.c) share with each
 * other.  The PMU core's interface is pmu.h; this header is glue-internal.
 */
#ifndef PMIPROF_GLUE_H
#define PMIPROF_GLUE_H

#include <linux/percpu.h>
#include <linux/types.h>

#include "pmu.h"

struct pt_regs;

/* main.c: the probed PMU (drv == NULL for pmu=none) and the per-CPU state. */
extern struct pmu_hw pmiprof_hw;
DECLARE_PER_CPU(struct pmu_cpu, pmiprof_pcpu);

static inline bool pmiprof_has_pmu(void)
{
	return pmiprof_hw.drv;
}

/* nmi.c: the NMI entry, and the context every sampling path builds the same way. */
void pmiprof_fill_ctx(struct pmu_cpu *pc, struct pt_regs *regs, struct pmi_ctx *ctx);
int pmiprof_nmi_register(void);
void pmiprof_nmi_unregister(void);
void pmiprof_guest_detect_get(void);	/* START: look up KVM's running-vCPU hook */
void pmiprof_guest_detect_put(void);	/* STOP */

/* stack_native.c: user memory and the kernel unwinder for call stacks (1.2). */
extern const struct pmu_stack_ops pmiprof_stack_native_ops;

/* timer_mode.c: per-CPU hard-irq hrtimer sampling. */
void pmiprof_timer_init(void);
void pmiprof_timer_start_cpu(struct pmu_cpu *pc, u64 interval_ns);
void pmiprof_timer_cancel_all(void);
void pmiprof_timer_cancel_cpu(unsigned int cpu);
u64 pmiprof_timer_pause_cpu(void);		/* per-task: stop, return ns left */
void pmiprof_timer_resume_cpu(u64 left_ns);

/* coexist.c: the reservation against perf and the per-CPU hardware probe. */
int pmiprof_coexist_reserve(struct pmu_hw *hw);	/* pmiprof_pmu_reserve() + the message */
int pmiprof_coexist_probe_all(struct pmu_hw *hw);	/* load: reserve, probe, release */
void pmiprof_coexist_report(unsigned int cpu, const struct pmu_probe_res *res, bool load);

/* session.c: the CONFIGURE/START/STOP state machine. */
struct file;
/* @restricted: the opener, when it lacks CAP_PERFMON (per-task of its own processes only) */
int pmiprof_session_configure(const struct pmiprof_config *cfg, bool privileged,
			      struct file *restricted);
int pmiprof_session_start(void);
void pmiprof_session_stop(void);
void pmiprof_session_release(void);	/* last close: stop and forget the config */
void pmiprof_session_cpu_online(unsigned int cpu);
void pmiprof_session_cpu_offline(unsigned int cpu);
void pmiprof_session_suspend(void);	/* PM notifier: stop every CPU, remember */
void pmiprof_session_resume(void);	/* PM notifier: restart what suspend stopped */
void pmiprof_session_shutdown(void);	/* reboot notifier: stop for good */
void pmiprof_session_get_info(struct pmiprof_info *info);
int pmiprof_session_get_stats(struct pmiprof_cpu_stats __user *buf,
			      struct pmiprof_stack_stats __user *sbuf, u32 *nr_cpus);

/* task.c: per-task windows (PMIPROF_CFG_TASK). */
bool pmiprof_task_mode(void);
int pmiprof_task_configure(const struct pmiprof_config *cfg, struct file *restricted);
void pmiprof_task_release(void);	/* drop the configured targets */
bool pmiprof_task_hide_current(void);	/* NMI: current's context not for this reader */
int pmiprof_task_start(void);		/* START, before the CPUs */
void pmiprof_task_cpu_start(struct pmu_cpu *pc);	/* on the CPU, IRQs off */
void pmiprof_task_cpu_stop(void);	/* on the CPU, IRQs off */
void pmiprof_task_stop_cpus(void);	/* every CPU, by IPI */
void pmiprof_task_stop(void);		/* after the CPUs: partial windows, free */
void pmiprof_task_exit(void);		/* unload */

/* hotplug.c */
int pmiprof_hotplug_init(void);
void pmiprof_hotplug_exit(void);

/* chardev.c */
int pmiprof_chardev_register(void);
void pmiprof_chardev_unregister(void);

#endif /* PMIPROF_GLUE_H */
