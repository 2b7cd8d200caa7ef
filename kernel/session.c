// SPDX-License-Identifier: GPL-2.0
/*
 * The sampling session: CONFIGURE, START, STOP and the per-CPU
 * start/stop that START/STOP run by IPI and CPU hotplug runs from its
 * callbacks.  One session at a time (the device has one opener).
 *
 * Locking: session_lock serialises the ioctls.  START and STOP change
 * `running` and program CPUs under cpus_read_lock(); the cpuhp callbacks run
 * with the hotplug lock held for writing, so they read `running` without
 * session_lock (taking it there would invert the lock order).
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/cpufeature.h>

#include "glue.h"
#include "ring.h"

static DEFINE_MUTEX(session_lock);
static bool running;
static bool suspended;	/* running, but stopped across system sleep */

/*
 * Test only (tests/vm/t198): the next restart after resume fails, as one
 * would on a CPU whose counters another agent took while the system slept.
 */
static bool fail_next_resume;
module_param(fail_next_resume, bool, 0600);
MODULE_PARM_DESC(fail_next_resume, "test only: fail the next restart after resume");

/* Validation is pmiprof_pmu_configure()'s alone; only the caller's right is checked here. */
int pmiprof_session_configure(const struct pmiprof_config *cfg, bool privileged,
			      struct file *restricted)
{
	struct pmu_hw *hw = &pmiprof_hw;
	int ret;

	/* Kernel RIPs reveal the KASLR slide: only for perfmon-capable callers. */
	if ((cfg->flags & PMIPROF_CFG_KERNEL_IPS) && !privileged)
		return -EACCES;

	mutex_lock(&session_lock);
	if (running || suspended) {
		ret = -EBUSY;
		goto out;
	}
	ret = pmiprof_pmu_configure(hw, cfg);
	/* A stack record may take at most a quarter of a ring (1.2). */
	if (!ret && hw->stack_rec_max > pmiprof_ring_data_bytes() / 4) {
		hw->reason = "stack records do not fit the ring (raise ring_kb)";
		ret = -ENOSPC;
	}
	/* perf refuses sample_max_stack above perf_event_max_stack (get_callchain_buffers()) */
	if (!ret && restricted && hw->stack_mode != PMIPROF_STACK_NONE &&
	    hw->stack_max > PMU_UNPRIV_MAX_STACK) {
		hw->reason = "stack_max above 127 frames needs CAP_PERFMON (perf_event_max_stack)";
		ret = -EOVERFLOW;
	}
	if (!ret)
		ret = pmiprof_task_configure(cfg, restricted);
	if (ret) {
		hw->configured = false;
		pr_info("pmiprof: CONFIGURE rejected (%d): %s\n", ret,
			hw->reason ? hw->reason : "invalid configuration");
		goto out;
	}
	hw->kernel_ips = cfg->flags & PMIPROF_CFG_KERNEL_IPS;
out:
	mutex_unlock(&session_lock);
	return ret;
}

/*
 * On the target CPU with IRQs off (IPI, or the cpuhp online callback), the
 * counters reserved: probe this CPU (pinned, so the write/read-back cannot
 * straddle two CPUs), then check and program it.
 */
static void session_start_cpu(void *arg)
{
	struct pmu_cpu *pc = this_cpu_ptr(&pmiprof_pcpu);
	const struct pmu_hw *hw = pc->hw;
	struct pmu_probe_res *res = arg;
	int ret = 0;

	pmiprof_pmu_cpu_reset_state(pc);
	pc->reason = NULL;
	pc->task_mode = pmiprof_task_mode();
	if (hw->drv) {
		/* pmu=emul: the per-CPU model is bound by its start_cpu() */
		if (!hw->emulated)
			ret = pmiprof_pmu_probe_cpu(pc, res);
		if (!ret)
			ret = hw->drv->check_free(pc);
		if (!ret)
			ret = hw->drv->start_cpu(pc);
		if (ret) {
			res->err = ret;
			return;
		}
	}
	if (hw->mode == PMIPROF_SAMPLING_TIMER)
		pmiprof_timer_start_cpu(pc, hw->timer_ns);
	pmiprof_task_cpu_start(pc);
	res->err = 0;
}

static void session_report_start(unsigned int cpu, const struct pmu_probe_res *res)
{
	/* Written on that CPU, read after its IPI or online callback returned. */
	const char *why = READ_ONCE(per_cpu_ptr(&pmiprof_pcpu, cpu)->reason);

	if (res->busy.msr || res->err == -ENODEV)
		pmiprof_coexist_report(cpu, res, false);
	else
		pr_warn("pmiprof: cannot start sampling on CPU %u (%d)%s%s\n", cpu, res->err,
			why ? ": " : "", why ? why : "");
}

/* On the target CPU with IRQs off; its timer was cancelled already. */
static void session_stop_cpu(void *arg)
{
	struct pmu_cpu *pc = this_cpu_ptr(&pmiprof_pcpu);
	const struct pmu_hw *hw = pc->hw;

	if (!hw->drv)
		return;
	/* Counting mode: one record per CPU carrying the totals. */
	if (hw->mode == PMIPROF_SAMPLING_COUNT && pc->armed) {
		struct pmi_ctx ctx;

		pmiprof_fill_ctx(pc, NULL, &ctx);
		pmiprof_pmu_sample_timer(pc, &ctx);
	}
	hw->drv->stop_cpu(pc);
}

static void session_stop_cpus(void)
{
	pmiprof_task_stop_cpus();	/* saves the running tasks' windows: timers still run */
	pmiprof_timer_cancel_all();
	on_each_cpu(session_stop_cpu, NULL, 1);
}

/* The reservation is what lets perf back in: dropped whenever no session runs. */
static void session_release_pmu(void)
{
	pmiprof_guest_detect_put();
	if (pmiprof_has_pmu())
		pmiprof_pmu_release(&pmiprof_hw);
}

/*
 * Reserve the counters, then start every online CPU and set running.  On
 * failure the CPUs started so far are stopped again (the driver's
 * stop_cpu() leaves alone a CPU it did not program: the one refused keeps
 * the other agent's counters, and those after it were never touched) and
 * the reservation is dropped.
 */
static int session_start_cpus(void)
{
	unsigned int cpu;
	int ret = 0;

	if (pmiprof_has_pmu()) {
		ret = pmiprof_coexist_reserve(&pmiprof_hw);
		if (ret)
			return ret;
	}
	pmiprof_guest_detect_get();
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct pmu_probe_res res = { .err = -EIO };

		smp_call_function_single(cpu, session_start_cpu, &res, 1);
		if (res.err) {
			session_report_start(cpu, &res);
			ret = res.err;
			break;
		}
	}
	if (ret)
		session_stop_cpus();
	else
		WRITE_ONCE(running, true);
	cpus_read_unlock();
	if (ret)
		session_release_pmu();
	return ret;
}

int pmiprof_session_start(void)
{
	unsigned int cpu;
	int ret = 0;

	mutex_lock(&session_lock);
	if (running || suspended) {
		ret = -EBUSY;
		goto out;
	}
	if (!pmiprof_hw.configured) {
		ret = -EINVAL;	/* CONFIGURE first */
		goto out;
	}
	pmiprof_ring_reset_all(pmiprof_hw.stack_mode != PMIPROF_STACK_NONE);
	/* Stats are per session, also for CPUs that come online later. */
	for_each_possible_cpu(cpu) {
		memset(&per_cpu_ptr(&pmiprof_pcpu, cpu)->stats, 0,
		       sizeof(struct pmiprof_cpu_stats));
		memset(&per_cpu_ptr(&pmiprof_pcpu, cpu)->stack_stats, 0,
		       sizeof(struct pmiprof_stack_stats));
	}
	ret = pmiprof_task_start();
	if (!ret) {
		ret = session_start_cpus();
		if (ret)
			pmiprof_task_stop();
	}
out:
	mutex_unlock(&session_lock);
	return ret;
}

/* The NMI time budget's effect on this session (pmi_core.c, account_time()). */
static void session_report_budget(void)
{
	u64 limited = 0, avg = 0;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		const struct pmu_cpu *pc = per_cpu_ptr(&pmiprof_pcpu, cpu);

		limited += pc->time_limited;
		avg = max(avg, pc->nmi_avg_ns);
	}
	if (limited)
		pr_info("pmiprof: NMI time budget (%d%% of a CPU): %llu windows stretched, handler mean up to %llu ns\n",
			PMU_NMI_CPU_PERCENT, limited, avg);
}

static void session_stop_locked(void)
{
	if (suspended) {
		suspended = false;	/* STOP while asleep: do not restart at resume */
		pmiprof_task_stop();
		session_release_pmu();
		pmiprof_ring_wake_readers();
		return;
	}
	if (!running)
		return;
	cpus_read_lock();
	session_stop_cpus();
	WRITE_ONCE(running, false);
	cpus_read_unlock();
	session_report_budget();
	pmiprof_task_stop();	/* the open windows, before readers see STOP */
	session_release_pmu();
	/* Readers blocked in poll() drain what is left and see STOP. */
	pmiprof_ring_wake_readers();
}

void pmiprof_session_stop(void)
{
	mutex_lock(&session_lock);
	session_stop_locked();
	mutex_unlock(&session_lock);
}

void pmiprof_session_release(void)
{
	mutex_lock(&session_lock);
	session_stop_locked();
	pmiprof_task_release();
	pmiprof_hw.configured = false;
	pmiprof_hw.kernel_ips = false;
	mutex_unlock(&session_lock);
}

/*
 * On @cpu: the cpuhp online callback (hotplug lock held for writing).  The
 * reservation is held while running, so the probe may write counter 0; a
 * CPU that fails it is not sampled.  Without a session nothing is touched.
 */
void pmiprof_session_cpu_online(unsigned int cpu)
{
	struct pmu_probe_res res = { .err = -EIO };
	unsigned long flags;

	if (!READ_ONCE(running))
		return;
	local_irq_save(flags);
	session_start_cpu(&res);
	local_irq_restore(flags);
	if (res.err) {
		session_report_start(cpu, &res);
		pr_warn("pmiprof: CPU %u came online but will not be sampled\n", cpu);
	}
}

/* On @cpu: the cpuhp offline callback. */
void pmiprof_session_cpu_offline(unsigned int cpu)
{
	unsigned long flags;

	if (!READ_ONCE(running))
		return;
	local_irq_save(flags);
	pmiprof_task_cpu_stop();
	local_irq_restore(flags);
	/* The pinned timer can only run on this CPU: cancelling cannot wait on it. */
	pmiprof_timer_cancel_cpu(cpu);
	local_irq_save(flags);
	session_stop_cpu(NULL);
	local_irq_restore(flags);
}

/*
 * System sleep loses the PMU MSRs.  Stop every CPU before (the hotplug
 * callbacks then have nothing to do for the non-boot CPUs) and restart all
 * of them afterwards; rings and stats carry on, and each CPU's first window
 * after resume is flagged FIRST.
 */
void pmiprof_session_suspend(void)
{
	mutex_lock(&session_lock);
	if (running) {
		cpus_read_lock();
		session_stop_cpus();
		WRITE_ONCE(running, false);
		cpus_read_unlock();
		suspended = true;
	}
	mutex_unlock(&session_lock);
}

void pmiprof_session_resume(void)
{
	mutex_lock(&session_lock);
	if (suspended) {
		suspended = false;
		session_release_pmu();	/* taken again by session_start_cpus() */
		if (fail_next_resume || session_start_cpus()) {
			fail_next_resume = false;
			/* Nothing unregisters the probes later: they would outlive rmmod. */
			pmiprof_task_stop();
			pr_warn("pmiprof: sampling could not restart after resume; the recording ends here\n");
			pmiprof_ring_wake_readers();
		}
	}
	mutex_unlock(&session_lock);
}

/*
 * Reboot and kexec (reboot notifier, process context, every CPU still
 * online): a session must not survive into the next kernel with counters
 * and LVTPC=NMI enabled.  Stop it for good; the recorder sees STOP.
 */
void pmiprof_session_shutdown(void)
{
	bool was_running;

	mutex_lock(&session_lock);
	was_running = running || suspended;
	session_stop_locked();
	mutex_unlock(&session_lock);
	if (was_running)
		pr_info("pmiprof: reboot: sampling stopped on every CPU\n");
}

void pmiprof_session_get_info(struct pmiprof_info *info)
{
	const struct pmu_hw *hw = &pmiprof_hw;

	memset(info, 0, sizeof(*info));
	if (pmiprof_has_pmu()) {
		pmiprof_pmu_fill_info(hw, info);
	} else {
		info->vendor = PMIPROF_VENDOR_NONE;
		strscpy(info->pmu_name, "none", sizeof(info->pmu_name));
	}
	info->size = sizeof(*info);
	info->abi_major = PMIPROF_ABI_MAJOR;
	info->abi_minor = PMIPROF_ABI_MINOR;
	info->caps |= PMIPROF_CAP_TIMER | PMIPROF_CAP_STACKS | PMIPROF_CAP_TASK;
	if (hw->emulated)
		info->flags |= PMIPROF_INFO_F_EMULATED;
	if (boot_cpu_has(X86_FEATURE_HYPERVISOR))
		info->flags |= PMIPROF_INFO_F_HYPERVISOR;
	info->nr_cpus = nr_cpu_ids;
	info->min_timer_ns = PMU_MIN_TIMER_NS;
	info->ring_bytes = pmiprof_ring_data_bytes();
	info->record_size = sizeof(struct pmiprof_sample_rec);
}

int pmiprof_session_get_stats(struct pmiprof_cpu_stats __user *buf,
			      struct pmiprof_stack_stats __user *sbuf, u32 *nr_cpus)
{
	u32 n = min_t(u32, *nr_cpus, nr_cpu_ids);
	unsigned int cpu;

	for (cpu = 0; cpu < n; cpu++) {
		struct pmiprof_cpu_stats s;

		memset(&s, 0, sizeof(s));
		if (cpu_possible(cpu)) {
			/* A racing handler may update it meanwhile: each u64 is read whole. */
			memcpy(&s, &per_cpu_ptr(&pmiprof_pcpu, cpu)->stats, sizeof(s));
			s.lost = max(s.lost, pmiprof_ring_lost(cpu));
			memset(s.reserved, 0, sizeof(s.reserved));
		}
		if (copy_to_user(&buf[cpu], &s, sizeof(s)))
			return -EFAULT;
	}
	/* 1.2: the stack walk's cost, when asked for */
	for (cpu = 0; sbuf && cpu < n; cpu++) {
		struct pmiprof_stack_stats ss;

		memset(&ss, 0, sizeof(ss));
		if (cpu_possible(cpu))
			memcpy(&ss, &per_cpu_ptr(&pmiprof_pcpu, cpu)->stack_stats,
			       offsetof(struct pmiprof_stack_stats, reserved));
		if (copy_to_user(&sbuf[cpu], &ss, sizeof(ss)))
			return -EFAULT;
	}
	*nr_cpus = n;
	return 0;
}
