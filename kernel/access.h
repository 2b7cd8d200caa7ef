/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who may record what (docs/kernel-module.md, "Who may follow what"), as
 * pure decisions over facts the callers gather from the opener's
 * credentials (file->f_cred) and the target: chardev.c and task.c gather,
 * these decide, and tests/unit/test_access_rules.c checks every
 * combination against the documented table.  No kernel calls here.
 */
#ifndef PMIPROF_ACCESS_H
#define PMIPROF_ACCESS_H

#include <linux/types.h>

/* What a CONFIGURE asks for. */
struct pmiprof_access_req {
	bool task;		/* PMIPROF_CFG_TASK: per-task windows */
	bool kernel_ips;	/* PMIPROF_CFG_KERNEL_IPS: kernel RIPs and frames */
	bool kernel_count;	/* an event with PMIPROF_EV_KERNEL: ring-0 counts */
};

/* The opener's standing. */
struct pmiprof_access_opener {
	bool perfmon;		/* CAP_PERFMON or CAP_SYS_ADMIN (file_ns_capable) */
	bool locked_down;	/* security_locked_down(LOCKDOWN_PERF) refuses */
	bool group_kernel_count; /* module parameter group_kernel_count=1 (root, at load) */
};

/*
 * A session without per-task windows shows every user's code
 * (perf_allow_cpu()): CAP_PERFMON.  Refused: -EPERM.
 */
static inline bool pmiprof_access_session(const struct pmiprof_access_opener *o,
					  const struct pmiprof_access_req *req)
{
	return o->perfmon || req->task;
}

/*
 * Kernel RIPs reveal the KASLR slide (perf_allow_kernel()): CAP_PERFMON,
 * and refused under confidentiality lockdown, as perf's unsafe sampling.
 */
static inline bool pmiprof_access_kernel_ips(const struct pmiprof_access_opener *o,
					     const struct pmiprof_access_req *req)
{
	return !req->kernel_ips || (o->perfmon && !o->locked_down);
}

/*
 * Counting ring 0 times the kernel's work per syscall, the side channel
 * perf_event_paranoid=2 closes (perf_allow_kernel() for !exclude_kernel):
 * CAP_PERFMON, or the administrator's group_kernel_count=1, which gives
 * the device's group perf's paranoid <= 1 for counting (never kernel
 * RIPs).  Refused: -EACCES, as perf.
 */
static inline bool pmiprof_access_kernel_count(const struct pmiprof_access_opener *o,
					       const struct pmiprof_access_req *req)
{
	return !req->kernel_count || o->perfmon || o->group_kernel_count;
}

/* What ptrace_may_access(PTRACE_MODE_READ_REALCREDS) looks at. */
struct pmiprof_follow_facts {
	bool kthread;		/* PF_KTHREAD: never */
	bool creds_match;	/* opener's real uid/gid == every uid/gid of the target */
	bool cap_ptrace_task;	/* CAP_SYS_PTRACE in the target's user namespace */
	bool has_mm;		/* no mm (an exited leader): the credentials decide */
	bool dumpable;		/* get_dumpable(mm) == SUID_DUMP_USER */
	bool cap_ptrace_mm;	/* CAP_SYS_PTRACE over the mm's user namespace */
};

/*
 * May an opener without CAP_PERFMON follow the target?  (With it: any
 * process; the caller does not ask.)  cap_ptrace_task is read only when
 * the credentials differ, cap_ptrace_mm only for a non-dumpable mm: the
 * callers may leave them false otherwise (no needless capability audit).
 */
static inline bool pmiprof_access_follow(const struct pmiprof_follow_facts *f)
{
	if (f->kthread)
		return false;
	if (!f->creds_match && !f->cap_ptrace_task)
		return false;
	return !f->has_mm || f->dumpable || f->cap_ptrace_mm;
}

#endif /* PMIPROF_ACCESS_H */
