// SPDX-License-Identifier: GPL-2.0
/*
 * Per-task windows (CONFIGURE with PMIPROF_CFG_TASK): counters count only
 * while a followed task runs, and each task carries its own open window
 * across context switches and CPUs, as perf's per-task events do.
 *
 * Followed: the thread groups named in the config (every thread at START)
 * and every task a followed task creates afterwards (sched_process_fork,
 * which runs before the child can be scheduled).  State lives in a hash
 * keyed by task_struct pointer; the pointer is never dereferenced, and the
 * entry goes at the task's sched_process_exit, so a recycled pointer never
 * finds a stale entry.
 *
 * sched_switch (IRQs off, rq lock held): save the leaving task's window
 * (pmiprof_pmu_task_out), load the arriving one's (pmiprof_pmu_task_in).  Only the CPU a
 * task runs on touches its state: a task is switched out under its old
 * CPU's rq lock before any other CPU can switch it in, so migration needs
 * nothing more, and a task exiting runs its exit probe on its own CPU.
 * Timer mode: the tick is paused with the task and resumed with what was
 * left of its interval, so a window is timer_ns of that task's CPU time.
 *
 * The open windows reach the ring as PARTIAL records: at the task's exit,
 * and at STOP (or the last close) for those still alive, after every CPU
 * stopped and the probes are gone, on the ring of the CPU the task last
 * ran on.  Every state is freed there; allocations and frees are counted
 * (logged at STOP and at unload) so the tests can check nothing leaks.
 *
 * The tracepoints are found with for_each_kernel_tracepoint(): the sched
 * tracepoints are not exported to modules, tracepoint_probe_register() is.
 */
#include <linux/atomic.h>
#include <linux/cred.h>
#include <linux/hashtable.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "glue.h"

#define TASK_HASH_BITS	10

struct pmiprof_task {
	struct hlist_node node;
	const struct task_struct *key;
	struct rcu_head rcu;
	struct pmu_task_ctr ctr;
	u64 timer_left_ns;		/* timer mode: rest of the open interval */
	u64 clock_in;			/* instruction clock at switch-in (icount), 0: none */
	u32 pid, tid, cpu;
};

struct task_cpu {
	struct pmiprof_task *cur;	/* followed task running here, counters loaded */
	bool on;			/* this CPU is started in per-task mode */
	u64 switches_in, switches_out;
	u64 icount;			/* instructions on this CPU of followed tasks */
};

static DEFINE_PER_CPU(struct task_cpu, task_cpus);
static DEFINE_HASHTABLE(task_hash, TASK_HASH_BITS);
static DEFINE_RAW_SPINLOCK(task_hash_lock);	/* hash inserts and deletes */

static bool task_mode;			/* configured with PMIPROF_CFG_TASK */
static bool task_active;		/* probes registered, fork adds tasks */
static u32 task_nr_targets;
static pid_t task_targets[PMIPROF_ABI_MAX_TASKS];

static struct tracepoint *tp_switch, *tp_fork, *tp_exit;

/* Module lifetime and per session */
static atomic64_t task_allocs = ATOMIC64_INIT(0), task_frees = ATOMIC64_INIT(0);
static atomic64_t task_followed, task_nomem, task_partials, task_exits;

bool pmiprof_task_mode(void)
{
	return task_mode;
}

int pmiprof_task_configure(const struct pmiprof_config *cfg)
{
	u32 i;

	task_mode = false;
	pmiprof_hw.reason = "per-task: tasks[] given without PMIPROF_CFG_TASK, or reserved1 set";
	if (cfg->reserved1)
		return -EINVAL;
	if (!(cfg->flags & PMIPROF_CFG_TASK)) {
		if (cfg->nr_tasks)
			return -EINVAL;
		pmiprof_hw.reason = NULL;
		return 0;
	}
	pmiprof_hw.reason = "per-task: nr_tasks must be 1..PMIPROF_ABI_MAX_TASKS";
	if (!cfg->nr_tasks || cfg->nr_tasks > PMIPROF_ABI_MAX_TASKS)
		return -EINVAL;
	pmiprof_hw.reason = "per-task: counting mode keeps per-CPU totals only";
	if (cfg->mode == PMIPROF_SAMPLING_COUNT)
		return -EOPNOTSUPP;
	pmiprof_hw.reason = "per-task: a task id is 0 or above PID_MAX_LIMIT";
	for (i = 0; i < cfg->nr_tasks; i++) {
		if (!cfg->tasks[i] || cfg->tasks[i] > PID_MAX_LIMIT)
			return -EINVAL;
		task_targets[i] = cfg->tasks[i];
	}
	pmiprof_hw.reason = NULL;
	task_nr_targets = cfg->nr_tasks;
	task_mode = true;
	return 0;
}

/*
 * May the caller follow @nr without CAP_PERFMON?  The credential test of
 * ptrace's PTRACE_MODE_READ_REALCREDS (ptrace_may_access() is not exported
 * to modules): same real uid/gid as every uid/gid of the target, and a
 * dumpable target (not setuid, not PR_SET_DUMPABLE 0).
 */
int pmiprof_task_may_follow(u32 nr)
{
	const struct cred *me = current_cred(), *tc;
	struct task_struct *t;
	int ret = -ESRCH;

	rcu_read_lock();
	t = pid_task(find_pid_ns(nr, &init_pid_ns), PIDTYPE_PID);
	if (t) {
		tc = __task_cred(t);
		ret = uid_eq(me->uid, tc->euid) && uid_eq(me->uid, tc->suid) &&
		      uid_eq(me->uid, tc->uid) && gid_eq(me->gid, tc->egid) &&
		      gid_eq(me->gid, tc->sgid) && gid_eq(me->gid, tc->gid) ? 0 : -EACCES;
		if (!ret) {
			task_lock(t);
			if (!t->mm || get_dumpable(t->mm) != SUID_DUMP_USER)
				ret = -EACCES;
			task_unlock(t);
		}
	}
	rcu_read_unlock();
	return ret;
}

static struct pmiprof_task *task_lookup(const struct task_struct *t)
{
	struct pmiprof_task *st, *found = NULL;

	rcu_read_lock();
	hash_for_each_possible_rcu(task_hash, st, node, (unsigned long)t) {
		if (st->key == t) {
			found = st;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/* Any context; atomic allocation (the fork probe runs with preemption off). */
static void task_add(struct task_struct *t)
{
	struct pmiprof_task *st = kzalloc(sizeof(*st), GFP_ATOMIC | __GFP_NOWARN);
	unsigned long flags;

	if (!st) {
		atomic64_inc(&task_nomem);
		return;
	}
	atomic64_inc(&task_allocs);
	st->key = t;
	st->pid = t->tgid;
	st->tid = t->pid;
	st->cpu = task_cpu(t);
	if (pmiprof_has_pmu())
		pmiprof_pmu_task_init(&pmiprof_hw, &st->ctr);
	st->timer_left_ns = pmiprof_hw.timer_ns;
	raw_spin_lock_irqsave(&task_hash_lock, flags);
	if (task_lookup(t)) {
		raw_spin_unlock_irqrestore(&task_hash_lock, flags);
		kfree(st);
		atomic64_inc(&task_frees);
		return;
	}
	hash_add_rcu(task_hash, &st->node, (unsigned long)t);
	raw_spin_unlock_irqrestore(&task_hash_lock, flags);
	atomic64_inc(&task_followed);
}

/* On this CPU, IRQs off, @tc->cur running (current). */
static void task_out(struct task_cpu *tc)
{
	struct pmu_cpu *pc = this_cpu_ptr(&pmiprof_pcpu);
	struct pmiprof_task *st = tc->cur;
	const struct pmu_hw *hw = pc->hw;

	if (hw->drv) {
		struct pmi_ctx ctx;
		u64 clk = hw->drv->task_sync ? hw->drv->task_sync(pc) : 0;

		if (clk && st->clock_in)
			tc->icount += clk - st->clock_in;
		pmiprof_fill_ctx(pc, NULL, &ctx);
		pmiprof_pmu_task_out(pc, &st->ctr, &ctx);
	}
	if (hw->mode == PMIPROF_SAMPLING_TIMER)
		st->timer_left_ns = pmiprof_timer_pause_cpu();
	st->cpu = pc->cpu;
	tc->cur = NULL;
	tc->switches_out++;
}

static void task_in(struct task_cpu *tc, struct pmiprof_task *st)
{
	struct pmu_cpu *pc = this_cpu_ptr(&pmiprof_pcpu);
	const struct pmu_hw *hw = pc->hw;

	if (hw->drv) {
		pmiprof_pmu_task_in(pc, &st->ctr);
		st->clock_in = hw->drv->task_resume ? hw->drv->task_resume(pc) : 0;
	}
	if (hw->mode == PMIPROF_SAMPLING_TIMER)
		pmiprof_timer_resume_cpu(st->timer_left_ns);
	tc->cur = st;
	tc->switches_in++;
}

/* The open window as a PARTIAL record on @pc's ring; nothing when it is empty. */
static void task_emit_partial(struct pmu_cpu *pc, struct pmiprof_task *st)
{
	const struct pmu_hw *hw = &pmiprof_hw;
	struct pmiprof_sample_rec rec;
	bool any = false;
	u32 k;

	memset(&rec, 0, sizeof(rec));
	if (hw->drv) {
		pmiprof_pmu_task_partial(hw, &st->ctr, rec.counts);
		rec.nr = hw->nr_events;
		for (k = 0; k < rec.nr; k++)
			any |= rec.counts[k] != 0;
	}
	if (hw->mode == PMIPROF_SAMPLING_TIMER && st->timer_left_ns < hw->timer_ns) {
		rec.status = hw->timer_ns - st->timer_left_ns;
		any = true;
	}
	if (!any)
		return;
	rec.time_ns = pmu_clock_ns();
	rec.pid = st->pid;
	rec.tid = st->tid;
	rec.cpu = pc->cpu;
	rec.flags = PMIPROF_REC_F_PARTIAL | (hw->emulated ? PMIPROF_REC_F_EMULATED : 0) |
		    (hw->mode == PMIPROF_SAMPLING_TIMER ? PMIPROF_REC_F_TIMER : 0);
	if (pmiprof_emit(pc, &rec))
		pc->stats.lost++;
	else
		pc->stats.samples++;
	atomic64_inc(&task_partials);
}

static void task_free_rcu(struct rcu_head *head)
{
	kfree(container_of(head, struct pmiprof_task, rcu));
}

static void task_switch_probe(void *data, bool preempt, struct task_struct *prev,
			      struct task_struct *next, unsigned int prev_state)
{
	struct task_cpu *tc = this_cpu_ptr(&task_cpus);
	struct pmiprof_task *st;

	if (!tc->on)
		return;
	if (tc->cur)
		task_out(tc);
	st = task_lookup(next);
	if (st)
		task_in(tc, st);
}

static void task_fork_probe(void *data, struct task_struct *parent, struct task_struct *child)
{
	if (READ_ONCE(task_active) && task_lookup(parent))
		task_add(child);
}

/* @p is current.  A CPU not started (STOP under way) leaves the task to STOP. */
static void task_exit_probe(void *data, struct task_struct *p)
{
	struct task_cpu *tc;
	struct pmiprof_task *st;
	unsigned long flags;

	local_irq_save(flags);
	tc = this_cpu_ptr(&task_cpus);
	st = tc->on ? task_lookup(p) : NULL;
	if (st) {
		if (tc->cur == st)
			task_out(tc);
		task_emit_partial(this_cpu_ptr(&pmiprof_pcpu), st);
		raw_spin_lock(&task_hash_lock);
		hash_del_rcu(&st->node);
		raw_spin_unlock(&task_hash_lock);
		atomic64_inc(&task_frees);
		atomic64_inc(&task_exits);
		call_rcu(&st->rcu, task_free_rcu);
	}
	local_irq_restore(flags);
}

static void task_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_switch"))
		tp_switch = tp;
	else if (!strcmp(tp->name, "sched_process_fork"))
		tp_fork = tp;
	else if (!strcmp(tp->name, "sched_process_exit"))
		tp_exit = tp;
}

static void task_unregister(void)
{
	if (tp_switch)
		tracepoint_probe_unregister(tp_switch, task_switch_probe, NULL);
	if (tp_exit)
		tracepoint_probe_unregister(tp_exit, task_exit_probe, NULL);
	if (tp_fork)
		tracepoint_probe_unregister(tp_fork, task_fork_probe, NULL);
	tracepoint_synchronize_unregister();
}

/* Free every state; nothing may look them up any more. */
static void task_free_all(bool emit)
{
	struct pmiprof_task *st;
	struct hlist_node *tmp;
	unsigned long flags;
	int b;

	hash_for_each_safe(task_hash, b, tmp, st, node) {
		hash_del(&st->node);
		if (emit) {
			local_irq_save(flags);
			task_emit_partial(per_cpu_ptr(&pmiprof_pcpu, st->cpu), st);
			local_irq_restore(flags);
		}
		kfree(st);
		atomic64_inc(&task_frees);
	}
}

/*
 * START, process context, before any CPU starts: register the probes and
 * follow every thread of the targets.  The fork probe goes first, so a
 * thread created meanwhile is added by it, by the walk, or by both (once).
 */
int pmiprof_task_start(void)
{
	unsigned int cpu;
	int ret = 0;
	u32 i;

	if (!task_mode)
		return 0;
	if (!tp_switch || !tp_fork || !tp_exit) {
		for_each_kernel_tracepoint(task_find_tp, NULL);
		if (!tp_switch || !tp_fork || !tp_exit) {
			pr_err("pmiprof: per-task mode: sched tracepoints not found\n");
			return -EOPNOTSUPP;
		}
	}
	for_each_possible_cpu(cpu) {
		struct task_cpu *tc = per_cpu_ptr(&task_cpus, cpu);

		tc->switches_in = 0;
		tc->switches_out = 0;
		tc->icount = 0;
	}
	atomic64_set(&task_followed, 0);
	atomic64_set(&task_nomem, 0);
	atomic64_set(&task_partials, 0);
	atomic64_set(&task_exits, 0);
	WRITE_ONCE(task_active, true);
	ret = tracepoint_probe_register(tp_fork, task_fork_probe, NULL);
	if (!ret)
		ret = tracepoint_probe_register(tp_exit, task_exit_probe, NULL);
	for (i = 0; !ret && i < task_nr_targets; i++) {
		struct task_struct *leader, *t;

		rcu_read_lock();
		leader = pid_task(find_pid_ns(task_targets[i], &init_pid_ns), PIDTYPE_PID);
		if (leader) {
			for_each_thread(leader, t)
				task_add(t);
		} else {
			ret = -ESRCH;
		}
		rcu_read_unlock();
	}
	if (!ret)
		ret = tracepoint_probe_register(tp_switch, task_switch_probe, NULL);
	if (ret) {
		WRITE_ONCE(task_active, false);
		task_unregister();
		task_free_all(false);
	}
	return ret;
}

/*
 * On each CPU as it starts (IPI or cpuhp online, IRQs off), after the
 * driver armed its counters and the timer runs: nothing counts until a
 * followed task is switched in; current may be one already (-p).
 */
void pmiprof_task_cpu_start(struct pmu_cpu *pc)
{
	struct task_cpu *tc = this_cpu_ptr(&task_cpus);
	struct pmiprof_task *st;

	if (!task_mode || !READ_ONCE(task_active))
		return;
	if (pc->hw->drv) {
		if (pc->hw->drv->task_sync)
			pc->hw->drv->task_sync(pc);
		pmiprof_pmu_task_freeze(pc);
	}
	if (pc->hw->mode == PMIPROF_SAMPLING_TIMER)
		pmiprof_timer_pause_cpu();
	tc->cur = NULL;
	tc->on = true;
	st = task_lookup(current);
	if (st)
		task_in(tc, st);
}

/* On each CPU before it stops (STOP, suspend, cpuhp offline), IRQs off. */
void pmiprof_task_cpu_stop(void)
{
	struct task_cpu *tc = this_cpu_ptr(&task_cpus);

	if (!tc->on)
		return;
	if (tc->cur)
		task_out(tc);
	tc->on = false;
}

static void task_cpu_stop_ipi(void *unused)
{
	pmiprof_task_cpu_stop();
}

void pmiprof_task_stop_cpus(void)
{
	if (task_mode)
		on_each_cpu(task_cpu_stop_ipi, NULL, 1);
}

/*
 * STOP (or the last close), process context, every CPU stopped: remove the
 * probes, write the open windows of the tasks still alive, free them all.
 */
void pmiprof_task_stop(void)
{
	u64 in = 0, out = 0, icount = 0;
	unsigned int cpu;

	if (!READ_ONCE(task_active))
		return;
	WRITE_ONCE(task_active, false);
	task_unregister();
	task_free_all(true);
	for_each_possible_cpu(cpu) {
		struct task_cpu *tc = per_cpu_ptr(&task_cpus, cpu);

		in += tc->switches_in;
		out += tc->switches_out;
		icount += tc->icount;
	}
	pr_info("pmiprof: per-task: %lld tasks followed (%lld exited, %lld not followed: no memory), %llu switches in, %llu out, %lld partial windows, states allocated %lld freed %lld\n",
		atomic64_read(&task_followed), atomic64_read(&task_exits),
		atomic64_read(&task_nomem), in, out, atomic64_read(&task_partials),
		atomic64_read(&task_allocs), atomic64_read(&task_frees));
	if (icount)
		pr_info("pmiprof: per-task: %llu instructions of followed tasks on CPU (icount)\n",
			icount);
}

/* Unload: the session is gone; what was allocated must have been freed. */
void pmiprof_task_exit(void)
{
	rcu_barrier();	/* frees queued by exits */
	pr_info("pmiprof: unload: per-task states allocated %lld, freed %lld\n",
		atomic64_read(&task_allocs), atomic64_read(&task_frees));
}
