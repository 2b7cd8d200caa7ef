// SPDX-License-Identifier: GPL-2.0
/*
 * Per-task windows (CONFIGURE with PMIPROF_CFG_TASK): counters count only
 * while a followed task runs, and each task carries its own open window
 * across context switches and CPUs, as perf's per-task events do.
 *
 * Followed: the thread groups named in the config (every thread at START)
 * and every task a followed task creates afterwards (sched_process_fork,
 * which runs before the child can be scheduled).  The fork probe is
 * registered before START's thread walk, and until the walk ends a
 * target's thread counts as followed though not yet in the hash, so a
 * child forked meanwhile by a thread not yet walked is followed too.  The targets are resolved
 * to struct pid references at CONFIGURE, so a pid reused before START
 * names nobody (-ESRCH) instead of another process.  State lives in a hash
 * keyed by task_struct pointer, and each entry holds a reference on its
 * task: the pointer cannot be recycled for another task while the entry
 * exists.  An entry goes at the task's sched_process_exit (whether or not
 * its CPU is started), at an exec that makes the task non-dumpable
 * (sched_process_exec, as perf_event_exit_task() from begin_new_exec()),
 * or at STOP.  A task already exiting is never added.
 *
 * Who may be followed without CAP_PERFMON: ptrace_may_access()'s
 * PTRACE_MODE_READ_REALCREDS rule, decided on the opener's credentials
 * (file->f_cred), at CONFIGURE, again at START and for each thread of
 * START's walk; the decision itself is access.h's (tested in user space),
 * docs/kernel-module.md gives the perf_event_paranoid level each rule
 * matches.  For such an opener the walk adds each thread first and checks
 * it after, and the exec and fork probes apply the rule again on the new
 * credentials (the child's, before it runs), so no interleaving with a
 * setuid exec leaves another user's task followed (tests/vm/t204).
 *
 * sched_switch (IRQs off, rq lock held): save the leaving task's window
 * (pmiprof_pmu_task_out), load the arriving one's (pmiprof_pmu_task_in).
 * Only the CPU a task runs on touches its state: a task is switched out
 * under its old CPU's rq lock before any other CPU can switch it in, so
 * migration needs nothing more, and a task exiting runs its exit probe on
 * its own CPU.
 * Timer mode: the tick is paused with the task and resumed with what was
 * left of its interval, so a window is timer_ns of that task's CPU time.
 *
 * The open windows that counted anything reach the ring as PARTIAL
 * records: at the task's exit or non-dumpable exec, and at STOP (or the
 * last close) for those still alive, after every CPU stopped and the
 * probes are gone, on the ring of the CPU the task last ran on.  Every
 * state is freed there; allocations and frees are counted
 * (logged at STOP and at unload) so the tests can check nothing leaks.
 *
 * The tracepoints are found with for_each_kernel_tracepoint(): the sched
 * tracepoints are not exported to modules, tracepoint_probe_register() is.
 * That call is untyped, so each probe is checked at build time against the
 * kernel's own declaration (compat.h): a prototype that changed (as
 * sched_process_exit's did) fails the build instead of being called with
 * the wrong arguments (a kCFI/FineIBT trap at best).
 */
#include <linux/atomic.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/moduleparam.h>
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
#include <linux/user_namespace.h>

#include "access.h"
#include "compat.h"
#include "glue.h"

#define TASK_HASH_BITS	10

struct pmiprof_task {
	struct hlist_node node;
	struct task_struct *task;	/* referenced while the entry exists */
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
static struct pid *task_targets[PMIPROF_ABI_MAX_TASKS];	/* referenced */
/*
 * The opener without CAP_PERFMON whose rights bound the session (NULL:
 * unrestricted).  Valid from CONFIGURE to the session's release, which
 * the device's release runs before the file goes.
 */
static struct file *task_opener;
static bool task_opener_ptrace;		/* its CAP_SYS_PTRACE in init_user_ns */

static struct tracepoint *tp_switch, *tp_fork, *tp_exit, *tp_exec;
/* START's thread walk is running: forks by the targets' threads are followed. */
static bool task_walking;

/*
 * Test only (tests/vm/t199): START waits this long between registering the
 * fork probe and walking the targets' threads, so forks land in between.
 */
static unsigned int start_walk_delay_ms;
module_param(start_walk_delay_ms, uint, 0600);
MODULE_PARM_DESC(start_walk_delay_ms, "test only: ms START waits before its thread walk");

/*
 * Test only (tests/vm/t204): for a restricted opener, START's walk waits
 * this long (busy, under RCU: at most 5 s) between adding each thread and
 * checking it again, so a target can exec a setuid program in between.
 */
static unsigned int start_walk_add_delay_ms;
module_param(start_walk_add_delay_ms, uint, 0600);
MODULE_PARM_DESC(start_walk_add_delay_ms, "test only: ms START's walk waits between adding a thread and checking it");

/*
 * The last START's walk in CLOCK_MONOTONIC ns (ktime_get_ns()), 0 until
 * known: begin when the fork probe is in place (every fork from then on
 * is seen), end when the walk is over.  tests/vm/t199 sorts the children
 * it forked by these, not by guesses of how long START takes under TCG.
 */
static unsigned long start_walk_begin_ns, start_walk_end_ns;
module_param(start_walk_begin_ns, ulong, 0400);
MODULE_PARM_DESC(start_walk_begin_ns, "last START: CLOCK_MONOTONIC ns forks are followed from");
module_param(start_walk_end_ns, ulong, 0400);
MODULE_PARM_DESC(start_walk_end_ns, "last START: CLOCK_MONOTONIC ns its thread walk ended");

/* Module lifetime and per session */
static atomic64_t task_allocs = ATOMIC64_INIT(0), task_frees = ATOMIC64_INIT(0);
static atomic64_t task_followed, task_nomem, task_partials, task_exits;
static atomic64_t task_execs, task_dead_at_stop;

bool pmiprof_task_mode(void)
{
	return task_mode;
}

/* ptrace's id rule: the opener's real uid/gid is every uid/gid of the target. */
static bool task_ids_match(const struct cred *me, const struct cred *tc)
{
	return uid_eq(me->uid, tc->euid) && uid_eq(me->uid, tc->suid) &&
	       uid_eq(me->uid, tc->uid) && gid_eq(me->gid, tc->egid) &&
	       gid_eq(me->gid, tc->sgid) && gid_eq(me->gid, tc->gid);
}

/*
 * May the opener of @file follow @t?  ptrace_may_access(t,
 * PTRACE_MODE_READ_REALCREDS) (not exported to modules) from the opener's
 * credentials instead of current's: the real uid/gid equal to every
 * uid/gid of the target, or CAP_SYS_PTRACE in the target's user namespace;
 * then a dumpable mm, or CAP_SYS_PTRACE over the mm's namespace.  The
 * capability tests go through the LSM (file_ns_capable()); the LSM's own
 * ptrace hook (security_ptrace_access_check()) is not exported and is not
 * consulted.  Facts gathered here, decided by pmiprof_access_follow().
 * Process context, or a sched probe (preemption off): nothing here sleeps.
 */
static bool task_may_follow(struct file *file, struct task_struct *t)
{
	const struct cred *me = file->f_cred, *tc;
	struct pmiprof_follow_facts f = { .kthread = t->flags & PF_KTHREAD };
	struct user_namespace *mm_ns = NULL;

	if (f.kthread)
		return pmiprof_access_follow(&f);
	tc = get_task_cred(t);
	f.creds_match = task_ids_match(me, tc);
	if (!f.creds_match)
		f.cap_ptrace_task = file_ns_capable(file, tc->user_ns, CAP_SYS_PTRACE);
	put_cred(tc);
	task_lock(t);
	if (t->mm) {
		f.has_mm = true;
		f.dumpable = get_dumpable(t->mm) == SUID_DUMP_USER;
		mm_ns = get_user_ns(t->mm->user_ns);
	}
	task_unlock(t);
	if (mm_ns && !f.dumpable && (f.creds_match || f.cap_ptrace_task))
		f.cap_ptrace_mm = file_ns_capable(file, mm_ns, CAP_SYS_PTRACE);
	if (mm_ns)
		put_user_ns(mm_ns);
	return pmiprof_access_follow(&f);
}

/* The targets' processes, each followable by a restricted opener; 0, -ESRCH or -EPERM. */
static int task_check_targets(void)
{
	struct task_struct *t;
	int ret = 0;
	u32 i;

	for (i = 0; !ret && i < task_nr_targets; i++) {
		t = get_pid_task(task_targets[i], PIDTYPE_PID);
		if (!t) {
			ret = -ESRCH;
			break;
		}
		if (task_opener && !task_may_follow(task_opener, t))
			ret = -EPERM;
		put_task_struct(t);
	}
	return ret;
}

/* The configured targets are dropped: a new CONFIGURE, or the session's release. */
void pmiprof_task_release(void)
{
	u32 i;

	for (i = 0; i < task_nr_targets; i++)
		put_pid(task_targets[i]);
	task_nr_targets = 0;
	task_opener = NULL;
	task_opener_ptrace = false;
	task_mode = false;
}

/*
 * CONFIGURE, no session running.  @restricted: the opener lacks
 * CAP_PERFMON and may follow only what ptrace would let it read.
 */
int pmiprof_task_configure(const struct pmiprof_config *cfg, struct file *restricted)
{
	int ret;
	u32 i;

	pmiprof_task_release();
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
	for (i = 0; i < cfg->nr_tasks; i++)
		if (!cfg->tasks[i] || cfg->tasks[i] > PID_MAX_LIMIT)
			return -EINVAL;
	/* The processes named now: a pid number reused later names nobody. */
	rcu_read_lock();
	for (i = 0; i < cfg->nr_tasks; i++)
		task_targets[i] = get_pid(find_pid_ns(cfg->tasks[i], &init_pid_ns));
	rcu_read_unlock();
	task_nr_targets = cfg->nr_tasks;
	task_opener = restricted;
	task_opener_ptrace = restricted &&
			     file_ns_capable(restricted, &init_user_ns, CAP_SYS_PTRACE);
	ret = task_check_targets();
	if (ret) {
		pmiprof_hw.reason = ret == -ESRCH ? "per-task: no such process" :
				    "per-task: may not follow that process (ptrace read access)";
		pmiprof_task_release();
		return ret;
	}
	pmiprof_hw.reason = NULL;
	task_mode = true;
	return 0;
}

/*
 * NMI: the interrupted task's registers and stack may not reach a
 * restricted opener's ring once the task is non-dumpable (a setuid exec,
 * between its set_dumpable() and the sched_process_exec probe) or its ids
 * (objective and subjective) are no longer the opener's, unless the
 * opener has CAP_SYS_PTRACE over every namespace (task_opener_ptrace:
 * a capability in a child namespace only is not honoured here, hidden).
 */
bool pmiprof_task_hide_current(void)
{
	struct file *opener = READ_ONCE(task_opener);
	struct mm_struct *mm;

	if (!opener)
		return false;
	mm = current->mm;
	if (mm && get_dumpable(mm) != SUID_DUMP_USER)
		return true;
	if (task_opener_ptrace)
		return false;
	/* Freed after a grace period, and an NMI is a read-side section. */
	return !task_ids_match(opener->f_cred, rcu_dereference_raw(current->real_cred)) ||
	       !task_ids_match(opener->f_cred, rcu_dereference_raw(current->cred));
}

NOKPROBE_SYMBOL(pmiprof_task_hide_current);

static struct pmiprof_task *task_lookup(const struct task_struct *t)
{
	struct pmiprof_task *st, *found = NULL;

	rcu_read_lock();
	hash_for_each_possible_rcu(task_hash, st, node, (unsigned long)t) {
		if (st->task == t) {
			found = st;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

static void task_free(struct pmiprof_task *st)
{
	put_task_struct(st->task);
	kfree(st);
	atomic64_inc(&task_frees);
}

static void task_free_rcu(struct rcu_head *head)
{
	task_free(container_of(head, struct pmiprof_task, rcu));
}

/*
 * Any context; atomic allocation (the fork probe runs with preemption off).
 * A task already exiting (PF_EXITING is set before its exit probe runs) is
 * not added: tested under the hash lock, which the exit probe takes too,
 * so either the exit probe finds the entry or the entry is never made.
 */
static bool task_add(struct task_struct *t)
{
	struct pmiprof_task *st = kzalloc(sizeof(*st), GFP_ATOMIC | __GFP_NOWARN);
	unsigned long flags;
	bool present;

	if (!st) {
		atomic64_inc(&task_nomem);
		return false;
	}
	atomic64_inc(&task_allocs);
	st->pid = t->tgid;
	st->tid = t->pid;
	st->cpu = task_cpu(t);
	if (pmiprof_has_pmu())
		pmiprof_pmu_task_init(&pmiprof_hw, &st->ctr);
	st->ctr.pid = st->pid;
	st->ctr.tid = st->tid;
	st->timer_left_ns = pmiprof_hw.timer_ns;
	raw_spin_lock_irqsave(&task_hash_lock, flags);
	if ((READ_ONCE(t->flags) & PF_EXITING) || task_lookup(t)) {
		present = task_lookup(t);
		raw_spin_unlock_irqrestore(&task_hash_lock, flags);
		kfree(st);
		atomic64_inc(&task_frees);
		return present;
	}
	st->task = t;
	get_task_struct(t);
	hash_add_rcu(task_hash, &st->node, (unsigned long)t);
	raw_spin_unlock_irqrestore(&task_hash_lock, flags);
	atomic64_inc(&task_followed);
	return true;
}

/*
 * START's walk only, before any CPU starts (no CPU has @t loaded and no
 * window counted anything): the entry goes without a PARTIAL record.
 */
static void task_unadd(struct task_struct *t)
{
	struct pmiprof_task *st;
	unsigned long flags;

	raw_spin_lock_irqsave(&task_hash_lock, flags);
	st = task_lookup(t);
	if (st)
		hash_del_rcu(&st->node);
	raw_spin_unlock_irqrestore(&task_hash_lock, flags);
	if (st) {
		atomic64_dec(&task_followed);
		call_rcu(&st->rcu, task_free_rcu);
	}
}

/*
 * One thread of START's walk (RCU held).  A restricted opener's thread is
 * added first and checked after: checked first, a setuid exec between the
 * check and the add left root's task followed (its exec probe found no
 * entry to drop), and once it became root entirely and exec'd again (sudo,
 * su) the new program is dumpable (6.1 decides on the old ids), so nothing
 * dropped it.  The exec probe runs after commit_creds() and takes the hash
 * lock to drop an entry: either it finds this one, or the check below
 * (after this add's lock) sees the new credentials.
 */
static void task_walk_add(struct task_struct *t)
{
	if (!task_add(t) || !task_opener)
		return;
	if (start_walk_add_delay_ms)
		mdelay(min(start_walk_add_delay_ms, 5000u));
	if (!task_may_follow(task_opener, t))
		task_unadd(t);
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

/*
 * @t (current, forking) belongs to a target's thread group, and a
 * restricted opener may still read it (a setuid exec since START's
 * check left it non-dumpable).
 */
static bool task_of_target(struct task_struct *t)
{
	struct pid *tgid = task_tgid(t);
	u32 i;

	for (i = 0; i < task_nr_targets; i++)
		if (task_targets[i] == tgid)
			return !READ_ONCE(task_opener) ||
			       (t->mm && get_dumpable(t->mm) == SUID_DUMP_USER);
	return false;
}

/*
 * A child of a followed task is followed.  During START's thread walk a
 * target's thread not yet walked is not in the hash: its children (and
 * new threads) would be missed, so the walk's targets count as followed
 * parents until the walk is over (then each walked thread is in the hash;
 * one made non-dumpable by an exec since is not, and stays unfollowed).
 */
static void task_fork_probe(void *data, struct task_struct *parent, struct task_struct *child)
{
	bool walking;

	if (!READ_ONCE(task_active))
		return;
	/*
	 * The flag before the hash: once the walk is seen over, the entries
	 * it made are seen too (pairs with the release at the walk's end).
	 */
	walking = smp_load_acquire(&task_walking);
	if (!task_lookup(parent) && !(walking && task_of_target(parent)))
		return;
	/* A restricted opener's rule, on the child before it runs (it cannot change yet). */
	if (READ_ONCE(task_opener) && !task_may_follow(READ_ONCE(task_opener), child))
		return;
	task_add(child);
}

/*
 * Stop following @p (current, on its CPU): its open window out as a
 * PARTIAL record, the entry gone, whether or not this CPU is started
 * (between START's walk and its IPI, suspend, a CPU that failed to start):
 * an entry left behind would outlive its task.
 */
static bool task_forget(struct task_struct *p)
{
	struct task_cpu *tc;
	struct pmiprof_task *st;
	unsigned long flags;

	local_irq_save(flags);
	tc = this_cpu_ptr(&task_cpus);
	raw_spin_lock(&task_hash_lock);
	st = task_lookup(p);
	if (st)
		hash_del_rcu(&st->node);
	raw_spin_unlock(&task_hash_lock);
	if (st) {
		if (tc->cur == st)
			task_out(tc);
		task_emit_partial(this_cpu_ptr(&pmiprof_pcpu), st);
		call_rcu(&st->rcu, task_free_rcu);
	}
	local_irq_restore(flags);
	return st;
}

static void task_exit_probe(void *data, struct task_struct *p)
{
	if (task_forget(p))
		atomic64_inc(&task_exits);
}

/* Kernels whose sched_process_exit also passes group_dead (compat.h). */
static void __maybe_unused task_exit_probe_gd(void *data, struct task_struct *p, bool group_dead)
{
	task_exit_probe(data, p);
}

#define task_exit_probe_typed \
	__builtin_choose_expr(PMIPROF_TP_EXIT_GROUP_DEAD, task_exit_probe_gd, task_exit_probe)

/*
 * After an exec (@p is current, its new credentials committed): a task
 * that became non-dumpable (setuid, setgid, file capabilities, an
 * unreadable binary) is no longer followed, nor are the children it
 * creates from now on, as perf_event_exit_task() at begin_new_exec().
 * For a restricted opener, neither is one it may no longer ptrace-read.
 * The drop takes the hash lock after commit_creds(): START's walk relies
 * on that (task_walk_add()).
 */
static void task_exec_probe(void *data, struct task_struct *p, pid_t old_pid,
			    struct linux_binprm *bprm)
{
	struct file *opener = READ_ONCE(task_opener);
	struct pmiprof_task *st;

	/*
	 * A restricted opener's rule is checked again on the new credentials
	 * too: a root task that exec'd after setuid(0) is dumpable on 6.1.
	 */
	if ((p->mm && get_dumpable(p->mm) != SUID_DUMP_USER) ||
	    (opener && !task_may_follow(opener, p))) {
		if (task_forget(p))
			atomic64_inc(&task_execs);
		return;
	}
	/* A non-leader thread's exec takes the leader's pid (de_thread()). */
	st = task_lookup(p);
	if (st && st->tid != p->pid) {
		unsigned long flags;

		local_irq_save(flags);
		st->tid = p->pid;
		st->ctr.tid = p->pid;
		if (this_cpu_ptr(&task_cpus)->cur == st)
			WRITE_ONCE(this_cpu_ptr(&pmiprof_pcpu)->task_tid, p->pid);
		local_irq_restore(flags);
	}
}

/* Each probe against the kernel's declaration of its tracepoint (compat.h). */
PMIPROF_TP_CHECK(sched_switch, task_switch_probe);
PMIPROF_TP_CHECK(sched_process_fork, task_fork_probe);
PMIPROF_TP_CHECK(sched_process_exit, task_exit_probe_typed);
PMIPROF_TP_CHECK(sched_process_exec, task_exec_probe);

static void task_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_switch"))
		tp_switch = tp;
	else if (!strcmp(tp->name, "sched_process_fork"))
		tp_fork = tp;
	else if (!strcmp(tp->name, "sched_process_exit"))
		tp_exit = tp;
	else if (!strcmp(tp->name, "sched_process_exec"))
		tp_exec = tp;
}

static void task_unregister(void)
{
	/* Fork first: START's order reversed (no new entry once exit is gone). */
	if (tp_fork)
		tracepoint_probe_unregister(tp_fork, task_fork_probe, NULL);
	if (tp_switch)
		tracepoint_probe_unregister(tp_switch, task_switch_probe, NULL);
	if (tp_exec)
		tracepoint_probe_unregister(tp_exec, task_exec_probe, NULL);
	if (tp_exit)
		tracepoint_probe_unregister(tp_exit, task_exit_probe_typed, NULL);
	tracepoint_synchronize_unregister();
}

/*
 * With the probes still registered: a task past exit_notify() ran its
 * exit probe, which removes its entry.  An entry of such a task means an
 * exit went unseen (and, without the task reference, a recycled
 * task_struct would inherit it): should never happen, counted and logged.
 */
static void task_count_unseen_exits(void)
{
	struct pmiprof_task *st;
	int b;

	rcu_read_lock();
	hash_for_each_rcu(task_hash, b, st, node)
		if (READ_ONCE(st->task->exit_state))
			atomic64_inc(&task_dead_at_stop);
	rcu_read_unlock();
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
		task_free(st);
	}
}

/*
 * START, process context, before any CPU starts: register the probes and
 * follow every thread of the targets.  The exit and exec probes go first:
 * every entry made from then on (by the fork probe or the walk) is removed
 * at its task's exit.  Then the fork probe, before the walk, so a thread
 * or child created meanwhile is added by it, by the walk, or by both (once).
 */
int pmiprof_task_start(void)
{
	unsigned int cpu;
	int ret = 0;
	u32 i;

	if (!task_mode)
		return 0;
	if (!tp_switch || !tp_fork || !tp_exit || !tp_exec) {
		for_each_kernel_tracepoint(task_find_tp, NULL);
		if (!tp_switch || !tp_fork || !tp_exit || !tp_exec) {
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
	atomic64_set(&task_execs, 0);
	atomic64_set(&task_dead_at_stop, 0);
	WRITE_ONCE(start_walk_begin_ns, 0);
	WRITE_ONCE(start_walk_end_ns, 0);
	/* Credentials change between CONFIGURE and START (a setuid exec). */
	ret = task_check_targets();
	if (ret)
		return ret;
	WRITE_ONCE(task_active, true);
	ret = tracepoint_probe_register(tp_exit, task_exit_probe_typed, NULL);
	if (!ret)
		ret = tracepoint_probe_register(tp_exec, task_exec_probe, NULL);
	WRITE_ONCE(task_walking, true);
	if (!ret)
		ret = tracepoint_probe_register(tp_fork, task_fork_probe, NULL);
	if (!ret)
		WRITE_ONCE(start_walk_begin_ns, ktime_get_ns());
	if (!ret && start_walk_delay_ms)
		msleep(start_walk_delay_ms);
	for (i = 0; !ret && i < task_nr_targets; i++) {
		struct task_struct *leader, *t;

		rcu_read_lock();
		leader = pid_task(task_targets[i], PIDTYPE_PID);
		if (leader) {
			for_each_thread(leader, t)
				task_walk_add(t);
		} else {
			ret = -ESRCH;
		}
		rcu_read_unlock();
	}
	/* Every thread of the targets is walked: the hash alone decides from here. */
	smp_store_release(&task_walking, false);
	if (!ret) {
		WRITE_ONCE(start_walk_end_ns, ktime_get_ns());
		ret = tracepoint_probe_register(tp_switch, task_switch_probe, NULL);
	}
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
	u64 in = 0, out = 0, icount = 0, orphans = 0;
	unsigned int cpu;

	if (!READ_ONCE(task_active))
		return;
	WRITE_ONCE(task_active, false);
	task_count_unseen_exits();
	task_unregister();
	task_free_all(true);
	for_each_possible_cpu(cpu) {
		struct task_cpu *tc = per_cpu_ptr(&task_cpus, cpu);

		in += tc->switches_in;
		out += tc->switches_out;
		icount += tc->icount;
		orphans += per_cpu_ptr(&pmiprof_pcpu, cpu)->task_orphans;
	}
	pr_info("pmiprof: per-task: %lld tasks followed (%lld exited, %lld not followed: no memory), %llu switches in, %llu out, %lld partial windows, states allocated %lld freed %lld\n",
		atomic64_read(&task_followed), atomic64_read(&task_exits),
		atomic64_read(&task_nomem), in, out, atomic64_read(&task_partials),
		atomic64_read(&task_allocs), atomic64_read(&task_frees));
	pr_info("pmiprof: per-task: %lld no longer followed after a setuid exec, %lld exits unseen, %llu windows of no followed task dropped\n",
		atomic64_read(&task_execs), atomic64_read(&task_dead_at_stop), orphans);
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
