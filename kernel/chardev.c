// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/pmiprof: a misc device, mode 0600 (kernel/60-pmiprof.rules makes it
 * 0660 group pmiprof), one opener at a time.  Who may open it is the
 * device node's permission; what an opener may record is decided here, as
 * perf_event_paranoid=1 does for perf: CAP_PERFMON (or CAP_SYS_ADMIN) of
 * the opener for system-wide sessions and kernel RIPs, otherwise per-task
 * sessions of the caller's own processes only.  ioctls (include/pmiprof/abi.h,
 * docs/abi.md) take each struct at the size it starts with, from its ABI 1.0
 * size up (copy_struct_from_user(), so the ABI grows by appending), and
 * reject reserved fields that are not zero; mmap maps one CPU's ring read-only; poll()
 * reports ready rings.  The rings live from open to release; closing the
 * device (and unmapping) stops sampling and frees them.
 */
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/security.h>
#include <linux/uaccess.h>
#include <linux/user_namespace.h>

#include "access.h"
#include "glue.h"
#include "ring.h"

static atomic_t pmiprof_open_count = ATOMIC_INIT(0);

/*
 * The administrator's choice, at load (root: insmod, modprobe.d): openers
 * without CAP_PERFMON may count kernel mode too, as perf allows at
 * perf_event_paranoid <= 1.  Kernel RIPs and system-wide sessions still
 * need CAP_PERFMON.  docs/kernel-module.md, "Who may follow what".
 */
static bool group_kernel_count;
module_param(group_kernel_count, bool, 0444);
MODULE_PARM_DESC(group_kernel_count, "openers without CAP_PERFMON may count kernel mode (perf_event_paranoid <= 1)");

static int pmiprof_open(struct inode *inode, struct file *file)
{
	int ret;

	/* What a session may record is checked at CONFIGURE (pmiprof_ioctl_configure()). */
	if (atomic_cmpxchg(&pmiprof_open_count, 0, 1))
		return -EBUSY;
	ret = nonseekable_open(inode, file);
	if (!ret)
		ret = pmiprof_ring_init_all();
	if (ret)
		atomic_set(&pmiprof_open_count, 0);
	return ret;
}

/* Last reference, mappings included: nothing can reach the rings any more. */
static int pmiprof_release(struct inode *inode, struct file *file)
{
	pmiprof_session_release();
	pmiprof_ring_free_all();	/* after every CPU stopped; syncs pending irq_work */
	atomic_set(&pmiprof_open_count, 0);
	return 0;
}

/* ABI 1.0 sizes: the smallest struct each ioctl accepts. */
#define PMIPROF_INFO_SIZE_VER0		152
#define PMIPROF_CONFIG_SIZE_VER0	192
#define PMIPROF_STATS_REQ_SIZE_VER0	16

/*
 * Every ioctl struct begins with its __u32 size.  A user built against an
 * older ABI passes a shorter struct (the rest reads as zero); a newer one a
 * longer struct, accepted when what this module does not know is zero
 * (-E2BIG otherwise, and for any size above PAGE_SIZE).  *@usize is the
 * user's size, for copying results back.
 */
static int pmiprof_get_sized(void *dst, size_t size, const void __user *src, size_t min,
			     u32 *usize)
{
	int ret;

	if (get_user(*usize, (const u32 __user *)src))
		return -EFAULT;
	if (*usize < min)
		return -EINVAL;
	/* As openat2/sched_setattr/perf: a size past a page is refused, not scanned for zeros. */
	if (*usize > PAGE_SIZE)
		return -E2BIG;
	ret = copy_struct_from_user(dst, size, src, *usize);
	if (ret)
		return ret;
	*(u32 *)dst = size;	/* the size field is the module's from here on */
	return 0;
}

static long pmiprof_ioctl_get_info(void __user *uarg)
{
	struct pmiprof_info info;
	u32 usize;
	int ret = pmiprof_get_sized(&info, sizeof(info), uarg, PMIPROF_INFO_SIZE_VER0, &usize);

	if (ret)
		return ret;
	pmiprof_session_get_info(&info);
	info.size = min_t(u32, usize, sizeof(info));
	return copy_to_user(uarg, &info, info.size) ? -EFAULT : 0;
}

static bool pmiprof_opener_perfmon(struct file *file)
{
	return file_ns_capable(file, &init_user_ns, CAP_PERFMON) ||
	       file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN);
}

/*
 * Kernel RIPs reveal the KASLR slide.  The right to them is the opener's
 * (file->f_cred), fixed at open, as for perf's event descriptors: checking
 * current would let a privileged process that is handed the descriptor
 * (a confused deputy) decide, and the descriptor's rights change with
 * whoever happens to call.  Confidentiality lockdown refuses them as it
 * refuses perf's unsafe sampling (LOCKDOWN_PERF).  security_perf_event_open()
 * is not exported to modules (6.1 Module.symvers; security/security.c has no
 * EXPORT_SYMBOL for it), so no LSM perf hook can be consulted here.
 */
static struct pmiprof_access_opener pmiprof_opener(struct file *file, bool kernel_ips)
{
	struct pmiprof_access_opener o = { .perfmon = pmiprof_opener_perfmon(file),
					   .group_kernel_count = group_kernel_count };

	/* Asked only when it can matter: a refusal is logged by the lockdown LSM. */
	if (o.perfmon && kernel_ips)
		o.locked_down = security_locked_down(LOCKDOWN_PERF) != 0;
	return o;
}

/*
 * System-wide windows show every user's code: perf_allow_cpu() level,
 * CAP_PERFMON of the opener.  Without it (a member of the device's group),
 * only per-task sessions of processes the opener may ptrace-read
 * (task.c decides, on file->f_cred, at CONFIGURE and at START), as
 * perf_event_paranoid <= 2 allows per-task events.
 */
static long pmiprof_ioctl_configure(struct file *file, void __user *uarg)
{
	struct pmiprof_config cfg;
	struct pmiprof_access_req req;
	struct pmiprof_access_opener o;
	u32 usize, i;
	int ret = pmiprof_get_sized(&cfg, sizeof(cfg), uarg, PMIPROF_CONFIG_SIZE_VER0, &usize);

	if (ret)
		return ret;
	req.task = cfg.flags & PMIPROF_CFG_TASK;
	req.kernel_ips = cfg.flags & PMIPROF_CFG_KERNEL_IPS;
	req.kernel_count = false;
	for (i = 0; i < cfg.nr_events && i < PMIPROF_ABI_MAX_EVENTS; i++)
		req.kernel_count |= cfg.events[i].flags & PMIPROF_EV_KERNEL;
	o = pmiprof_opener(file, req.kernel_ips);
	if (!pmiprof_access_session(&o, &req))
		return -EPERM;
	if (!pmiprof_access_kernel_count(&o, &req)) {
		pr_info("pmiprof: CONFIGURE rejected (%d): counting kernel mode (an event without :u) needs CAP_PERFMON or group_kernel_count=1\n",
			-EACCES);
		return -EACCES;
	}
	return pmiprof_session_configure(&cfg, pmiprof_access_kernel_ips(&o, &req),
					 o.perfmon ? NULL : file);
}

static long pmiprof_ioctl_get_stats(void __user *uarg)
{
	struct pmiprof_stats_req req;
	u32 usize;
	int ret = pmiprof_get_sized(&req, sizeof(req), uarg, PMIPROF_STATS_REQ_SIZE_VER0, &usize);

	if (ret)
		return ret;
	ret = pmiprof_session_get_stats(u64_to_user_ptr(req.buf), u64_to_user_ptr(req.stack_buf),
					&req.nr_cpus);
	if (ret)
		return ret;
	return put_user(req.nr_cpus, &((struct pmiprof_stats_req __user *)uarg)->nr_cpus);
}

static long pmiprof_ioctl_consume(void __user *uarg)
{
	struct pmiprof_consume c;

	if (copy_from_user(&c, uarg, sizeof(c)))
		return -EFAULT;
	if (c.reserved)
		return -EINVAL;
	return pmiprof_ring_consume(c.cpu, c.tail);
}

/* The size bits of an ioctl number: the struct's own size field decides instead. */
#define PMIPROF_IOC_NOSIZE(cmd)	((cmd) & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT))

static long pmiprof_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (PMIPROF_IOC_NOSIZE(cmd)) {
	case PMIPROF_IOC_NOSIZE(PMIPROF_IOC_GET_INFO):
		return pmiprof_ioctl_get_info(uarg);
	case PMIPROF_IOC_NOSIZE(PMIPROF_IOC_CONFIGURE):
		return pmiprof_ioctl_configure(file, uarg);
	case PMIPROF_IOC_NOSIZE(PMIPROF_IOC_START):
		return pmiprof_session_start();
	case PMIPROF_IOC_NOSIZE(PMIPROF_IOC_STOP):
		pmiprof_session_stop();
		return 0;
	case PMIPROF_IOC_NOSIZE(PMIPROF_IOC_GET_STATS):
		return pmiprof_ioctl_get_stats(uarg);
	case PMIPROF_IOC_NOSIZE(PMIPROF_IOC_CONSUME):
		return pmiprof_ioctl_consume(uarg);
	default:
		return -ENOTTY;
	}
}

static int pmiprof_mmap(struct file *file, struct vm_area_struct *vma)
{
	return pmiprof_ring_mmap(vma);
}

static __poll_t pmiprof_poll(struct file *file, poll_table *wait)
{
	return pmiprof_ring_poll(file, wait);
}

static const struct file_operations pmiprof_fops = {
	.owner		= THIS_MODULE,
	.open		= pmiprof_open,
	.release	= pmiprof_release,
	.unlocked_ioctl	= pmiprof_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.mmap		= pmiprof_mmap,
	.poll		= pmiprof_poll,
};

static struct miscdevice pmiprof_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= PMIPROF_DEVICE_NAME,
	.fops	= &pmiprof_fops,
	.mode	= 0600,
};

int pmiprof_chardev_register(void)
{
	return misc_register(&pmiprof_misc);
}

void pmiprof_chardev_unregister(void)
{
	misc_deregister(&pmiprof_misc);
}
