// SPDX-License-Identifier: GPL-2.0
/*
 * The perf_event_open backend (the default): one event group per CPU, the
 * trigger as sampling event with PERF_SAMPLE_READ|PERF_FORMAT_GROUP so every
 * sample carries all counters, side-band (MMAP2 with build-id, COMM, FORK,
 * EXIT) from the trigger, one mmap ring per CPU drained into the trace.  The
 * trigger leads the group, except with Intel's PERF_METRICS (-e topdown on
 * Ice Lake and later), where slots leads without sampling and carries the
 * side-band, and the trigger samples as a member (perf_group.c builds both
 * layouts).
 *
 * Three layouts of the same groups:
 *   per-task   (command or -p, kernel >= 6.12): pid = task, cpu = N, inherit.
 *              Totals are per thread and CPU; windows are deltas per (tid, cpu).
 *   system-wide (-a): pid = -1, cpu = N.  Windows are deltas per CPU.
 *   fallback   (command or -p, kernel < 6.12, which rejects inherit together
 *              with PERF_SAMPLE_READ): the system-wide groups, samples kept
 *              only for the workload's processes (tracked from FORK records of
 *              an inherited side-band dummy event on the command or on every
 *              thread of the -p processes), windows per CPU, so their counts
 *              include whatever else ran on the CPU.  Marked NO_INHERIT_READ
 *              in the header, explained in its note, and said at run time.
 *              PMIPROF_FORCE_NO_INHERIT_READ=1 forces it.
 * "CPU N" is every online CPU at open (daemon/engine/cpu_set.c); tables indexed by
 * CPU id are sized for every possible CPU.
 * No hardware PMU (ours): default events fall back to cpu-clock as trigger
 * at 10 kHz with task-clock, page-faults and context-switches.
 */
#include "engine/backend.h"

#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "engine/cpu_set.h"
#include "engine/host_info.h"
#include "engine/mapped_build_id.h"
#include "perf/perf_decode.h"
#include "perf/perf_group.h"
#include "engine/perf_ring.h"
#include "engine/record_regions.h"
#include "engine/proc_tasks.h"
#include "engine/record.h"
#include "util.h"

#define FALLBACK_FREQ_HZ	10000
#define FALLBACK_PERIOD_MIN_NS	10000ull	/* perf's hrtimer events never fire faster */
#define DEFAULT_MMAP_PAGES	256	/* 1 MiB per CPU */
#define USER_MMAP_PAGES		128	/* unprivileged: fits perf_event_mlock_kb (516) per CPU */
/*
 * The fallback's windows are per CPU: a window's deltas include the other
 * tasks and the idle time that ran on the CPU between two of the
 * workload's samples, unlike the per-task windows the report defines.
 */
#define FALLBACK_COUNTS_NOTE	"event columns count everything that ran on the CPU during " \
				"each window, not only the workload"

struct perf_state {
	struct perf_ring *rings;	/* [nr_slots]: at most one per CPU */
	unsigned int nr_rings;
	struct cpu_set cpus;		/* CPUs with groups (online at open, or added) */
	unsigned int nr_slots;		/* highest possible CPU id + 1 */
	struct cpu_set late;		/* CPUs that came online later, not counted */
	uint64_t hotplug_checked;	/* CLOCK_MONOTONIC ns of the last online check */
	/*
	 * -a: a CPU's group in fds[first, first + nr) (CPU-wide groups only),
	 * so that a CPU that went offline (the kernel detaches its events for
	 * good) gets its group closed and a new one opened when it is back.
	 */
	struct cpu_fds { unsigned int first, nr; } *cpu_fds;	/* [nr_slots] */
	struct cpu_set gone;		/* CPUs with groups that went offline */
	uint64_t *gone_since;		/* [nr_slots]: when the loss began */
	uint64_t unrecorded_ns;		/* ended stretches of CPUs not recorded */
	struct trace_lost *pending_lost;	/* [nr_slots]: cpu-offline LOSTs to write */
	unsigned int nr_pending_lost;
	bool resynth;			/* a CPU came back: side-band from /proc again */
	int *fds;			/* every fd opened, for enable/disable/close */
	unsigned int nr_fds, cap_fds;
	unsigned int nr_ev;
	struct perf_group grp;		/* layout: read position -> header index, attrs */
	struct pm_event ev[PMIPROF_MAX_EVENTS];		/* effective events, header order */
	unsigned int trigger;
	unsigned int failed;		/* header index of the event that failed to open */
	uint64_t period, freq;
	bool time_based;
	bool per_task;			/* inherit groups, deltas per (tid, cpu) */
	bool filter;			/* fallback: keep only the workload's pids */
	bool exclude_kernel;		/* fell back to user-only */
	bool build_id;			/* kernel supports attr.build_id */
	struct perf_decoder dec;	/* ring records -> trace records */
	char *copybuf;			/* records that wrap around the ring */
	bool final;			/* disabled: the next drain takes everything */
	size_t page_size;
	unsigned int pages;		/* ring data pages per CPU */
	uint32_t call_graph;		/* PMIPROF_CALL_GRAPH_* */
	uint32_t dump_size;		/* user stack bytes per sample (dwarf; fp: leaf words) */
	uint32_t max_stack;
	struct mapped_build_ids build_ids;	/* of files in synthesized MMAPs */
};

_Static_assert(RECORD_LEAF_WORDS_SIZE <= PERF_DECODE_LEAF_WORDS_MAX,
	       "the decoder filters every leaf word");

static int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group,
			       unsigned long flags)
{
	int fd = (int)syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);

	return fd < 0 ? -errno : fd;
}

static int read_int_file(const char *path, int *out)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%d", out) == 1;
	fclose(f);
	return ok ? 0 : -EINVAL;
}

static int add_fd(struct perf_state *ps, int fd)
{
	if (ps->nr_fds == ps->cap_fds) {
		unsigned int cap = ps->cap_fds ? ps->cap_fds * 2 : 32;
		int *n = realloc(ps->fds, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		ps->fds = n;
		ps->cap_fds = cap;
	}
	ps->fds[ps->nr_fds++] = fd;
	return 0;
}

/* ---- errors with the fix named ---- */

static void explain_open_error(const struct record_opts *o, int err, const struct pm_event *ev,
			       bool cpu_wide)
{
	char why[1024];
	int paranoid = 2;

	read_int_file("/proc/sys/kernel/perf_event_paranoid", &paranoid);
	switch (err) {
	case -EACCES:
	case -EPERM:
		/* -p on another user's process: ownership, not paranoid, is the cause. */
		if (!cpu_wide && record_targets_denied(o, why, sizeof(why))) {
			pm_err("%s", why);
			break;
		}
		pm_err("not permitted to open '%s'%s: kernel.perf_event_paranoid is %d; "
		       "run as root, give pmiprof CAP_PERFMON (setcap cap_perfmon+ep), or "
		       "'sysctl kernel.perf_event_paranoid=%d'%s", ev->name,
		       cpu_wide ? " on every CPU" : "", paranoid, cpu_wide ? 0 : 1,
		       o->no_permission_hint ? o->no_permission_hint : "");
		break;
	case -ENOENT:
	case -EOPNOTSUPP:
	case -ENODEV:
		pm_err("event '%s' is not supported on this machine%s (see 'pmiprof list')",
		       ev->name, ev->software ? "" :
		       "; no hardware PMU? try -e cpu-clock,task-clock,page-faults");
		break;
	case -EMFILE:
	case -ENFILE:
		pm_err("too many open files opening '%s': raise 'ulimit -n'", ev->name);
		break;
	case -ESRCH:
		pm_err("target process vanished while opening '%s'", ev->name);
		break;
	default:
		pm_err("perf_event_open('%s'): %s", ev->name, strerror(-err));
	}
}

/* ---- probing ---- */

static int perf_probe(const struct record_opts *o, char *why, size_t len)
{
	struct perf_event_attr a;
	int fd;

	(void)o;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.disabled = 1;
	a.exclude_kernel = 1;
	fd = sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		snprintf(why, len, "perf_event_open: %s%s", strerror(-fd),
			 fd == -ENOSYS ? " (kernel built without perf events)" : "");
		return fd;
	}
	close(fd);
	return 0;
}

/* Can we open a hardware event at all?  No PMU: -ENOENT/-EOPNOTSUPP. */
static bool hw_event_works(const struct pm_event *ev)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = ev->type;
	a.config = ev->config;
	a.config1 = ev->config1;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return fd == -EACCES || fd == -EPERM;	/* exists; permission checked later */
	close(fd);
	return true;
}

/* ---- attribute building (perf_group.c) ---- */

static void group_opts(const struct perf_state *ps, bool inherit, bool enable_on_exec,
		       bool side_band, struct perf_group_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->period = ps->period;
	o->freq = ps->freq;
	o->inherit = inherit;
	o->enable_on_exec = enable_on_exec;
	o->side_band = side_band;
	o->build_id = ps->build_id;
	o->exclude_kernel = ps->exclude_kernel;
	o->call_graph = ps->call_graph;
	o->max_stack = ps->max_stack;
	o->dump_size = ps->dump_size;
	o->wakeup_watermark = (uint32_t)(ps->pages * ps->page_size / 4);
}

static void build_side_band_attr(const struct perf_state *ps, bool enable_on_exec,
				 struct perf_event_attr *a)
{
	struct pm_event dummy = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_DUMMY };
	struct perf_group_opts o;

	group_opts(ps, true, enable_on_exec, true, &o);
	perf_group_sampler_attr(&dummy, &o, a);
	a->sample_type &= ~(uint64_t)(PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN |
				      PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
	a->sample_regs_user = 0;
	a->sample_stack_user = 0;
	a->sample_max_stack = 0;
	a->exclude_callchain_user = 0;
	a->exclude_callchain_kernel = 0;
	a->read_format = 0;
	a->freq = 0;
	a->sample_period = 0;
}

/* ---- rings ---- */

static struct perf_ring *ring_of_cpu(struct perf_state *ps, int cpu)
{
	unsigned int i;

	for (i = 0; i < ps->nr_rings; i++)
		if (ps->rings[i].cpu == cpu)
			return &ps->rings[i];
	return NULL;
}

/* Route fd's records into the ring of cpu, mapping a ring there on first use. */
static int attach_ring(struct perf_state *ps, int fd, int cpu, unsigned int pages)
{
	struct perf_ring *r = ring_of_cpu(ps, cpu);
	int ret;

	if (r) {
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd)) {
			int e = -errno;

			pm_err("cannot redirect perf events to the CPU %d ring: %s", cpu,
			       strerror(-e));
			return e;
		}
		return 0;
	}
	r = &ps->rings[ps->nr_rings];
	ret = perf_ring_map(r, fd, cpu, pages, ps->page_size);
	if (ret)
		return ret;
	ps->nr_rings++;
	return 0;
}

/* ---- opening groups ---- */

/*
 * One group for pid on cpu (perf_group.h: the trigger leads, or slots leads
 * and the trigger samples as a member).  Returns the sampling event's fd,
 * the one the CPU's ring is mapped on; *side_fd is the fd carrying the
 * side-band (the same, or the lead group's leader), also routed to the ring.
 */
static int open_group(struct perf_state *ps, pid_t pid, int cpu, bool inherit,
		      bool enable_on_exec, bool side_band, int *side_fd)
{
	struct perf_group_opts o;
	struct perf_group *grp = &ps->grp;
	int fds[PMIPROF_MAX_EVENTS];
	unsigned int g;
	int ret;

	group_opts(ps, inherit, enable_on_exec, side_band, &o);
	ret = perf_group_build(ps->ev, ps->nr_ev, ps->trigger, &o, grp);
	if (ret) {
		ps->failed = ps->trigger;
		return ret;
	}
	for (g = 0; g < grp->nr; g++) {
		struct perf_event_attr *a = &grp->attr[g];
		int group_fd = grp->leader[g] < 0 ? -1 : fds[grp->leader[g]];
		int fd = sys_perf_event_open(a, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);

		if (fd == -EINVAL && side_band && a->build_id) {
			/* kernel < 5.12: no build-id in MMAP2; the report reads it from files */
			ps->build_id = false;
			a->build_id = 0;
			fd = sys_perf_event_open(a, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
		}
		if (fd < 0) {
			ps->failed = grp->to_ev[g];
			return fd;
		}
		ret = add_fd(ps, fd);
		if (ret) {
			close(fd);
			return ret;
		}
		fds[g] = fd;
	}
	*side_fd = fds[grp->side_band];
	return fds[grp->sampler];
}

/* The ring of cpu takes the sampler's records, and the side-band fd's. */
static int attach_group(struct perf_state *ps, int sampler, int side_fd, int cpu,
			unsigned int pages)
{
	int ret = attach_ring(ps, sampler, cpu, pages);

	if (!ret && side_fd != sampler)
		ret = attach_ring(ps, side_fd, cpu, pages);
	return ret;
}

/*
 * Enable a CPU's group through its ring's fd, the sampler: a member in the
 * lead-group layout, so the ioctl goes to the whole group.
 */
static void enable_ring_group(const struct perf_state *ps, const struct perf_ring *r)
{
	ioctl(r->fd, PERF_EVENT_IOC_ENABLE, ps->grp.lead_group ? PERF_IOC_FLAG_GROUP : 0);
}

/* ---- targets ---- */

/*
 * The tasks to open per-task events on: the forked workload (blocked before
 * exec, so it has one thread), else every thread of the -p processes, as
 * listed now.  -ESRCH when a -p process is gone.
 */
static int list_targets(struct record_session *s, pid_t **tids, unsigned int *nr,
			unsigned int *cap)
{
	const struct record_opts *o = s->opts;
	unsigned int p;

	*nr = 0;
	if (s->child > 0) {
		if (!*cap) {
			*tids = malloc(sizeof(**tids));
			if (!*tids)
				return -ENOMEM;
			*cap = 1;
		}
		(*tids)[(*nr)++] = s->child;
		return 0;
	}
	for (p = 0; p < o->nr_pids; p++) {
		int n = proc_task_threads(o->pids[p], tids, nr, cap);

		if (n == -ENOMEM)
			return n;
		if (n < 0) {
			pm_err("no such process: %d", (int)o->pids[p]);
			return -ESRCH;
		}
	}
	return 0;
}

/*
 * Call open_fn for every target thread not opened yet, until a listing finds
 * no new thread: a thread started by one that had no inherited event yet
 * would otherwise be missed.  A forked child is listed once (it cannot start
 * threads before its exec).
 */
typedef int (*open_task_fn)(struct record_session *s, struct perf_state *ps, pid_t tid,
			    unsigned int pages, bool retry_perm);

static int open_each_thread(struct record_session *s, struct perf_state *ps, unsigned int pages,
			    bool retry_perm, open_task_fn open_fn)
{
	struct pid_set opened = { 0 };
	pid_t *tids = NULL;
	unsigned int nr = 0, cap = 0, t, round;
	int ret = 0;

	for (round = 0; round < 100 && !ret; round++) {
		unsigned int fresh = 0;

		ret = list_targets(s, &tids, &nr, &cap);
		for (t = 0; t < nr && !ret; t++) {
			if (pid_set_contains(&opened, (uint32_t)tids[t]))
				continue;
			ret = pid_set_add(&opened, (uint32_t)tids[t]);
			if (!ret)
				ret = open_fn(s, ps, tids[t], pages, retry_perm);
			fresh++;
		}
		if (!fresh || s->child > 0)
			break;
	}
	pid_set_free(&opened);
	free(tids);
	return ret;
}

/* ---- opening groups ---- */

/*
 * Per-task groups of one thread (or the blocked workload), on every CPU,
 * inherited.  A first open refused with -EINVAL is left unexplained: the
 * caller takes it for a kernel < 6.12 refusing inherit with
 * PERF_SAMPLE_READ.  With retry_perm, -EACCES/-EPERM are left unexplained
 * too: the caller retries without the kernel.
 */
static int open_task_groups(struct record_session *s, struct perf_state *ps, pid_t tid,
			    unsigned int pages, bool retry_perm)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ps->cpus.nr; i++) {
		int cpu = ps->cpus.cpus[i];
		bool first = ps->nr_fds == 0;
		int side_fd;
		int sampler = open_group(ps, tid, cpu, true, s->child > 0, true, &side_fd);

		if (sampler == -ESRCH && s->child <= 0)
			return 0;	/* the thread exited meanwhile */
		if (sampler < 0) {
			bool perm = sampler == -EACCES || sampler == -EPERM;

			if (!(sampler == -EINVAL && first) && !(perm && retry_perm))
				explain_open_error(s->opts, sampler, &ps->ev[ps->failed], false);
			return sampler;
		}
		ret = attach_group(ps, sampler, side_fd, cpu, pages);
		if (ret)
			return ret;
	}
	return 0;
}

static int open_per_task(struct record_session *s, struct perf_state *ps, unsigned int pages,
			 bool retry_perm)
{
	return open_each_thread(s, ps, pages, retry_perm, open_task_groups);
}

/* The fallback's side-band of one thread: an inherited dummy on every CPU. */
static int open_side_band(struct record_session *s, struct perf_state *ps, pid_t tid,
			  unsigned int pages, bool retry_perm)
{
	struct perf_event_attr a;
	unsigned int i;
	int ret;

	(void)retry_perm;
	build_side_band_attr(ps, s->child > 0, &a);
	for (i = 0; i < ps->cpus.nr; i++) {
		int cpu = ps->cpus.cpus[i];
		int fd = sys_perf_event_open(&a, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);

		if (fd == -EINVAL && a.build_id) {
			ps->build_id = false;
			a.build_id = 0;
			fd = sys_perf_event_open(&a, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		}
		if (fd == -ESRCH && s->child <= 0)
			return 0;	/* the thread exited meanwhile */
		if (fd < 0) {
			explain_open_error(s->opts, fd, &ps->ev[ps->trigger], false);
			return fd;
		}
		ret = add_fd(ps, fd);
		if (ret) {
			close(fd);
			return ret;
		}
		ret = attach_ring(ps, fd, cpu, pages);
		if (ret)
			return ret;
	}
	return 0;
}

/* The system-wide group of one CPU (-a, and the fallback). */
static int open_cpu_group(struct record_session *s, struct perf_state *ps, int cpu,
			  unsigned int pages)
{
	int side_fd;
	unsigned int first = ps->nr_fds;
	int sampler = open_group(ps, -1, cpu, false, false, s->opts->system_wide, &side_fd);

	if (ps->cpu_fds && (unsigned int)cpu < ps->nr_slots)
		ps->cpu_fds[cpu] = (struct cpu_fds){ first, ps->nr_fds - first };
	if (sampler < 0) {
		explain_open_error(s->opts, sampler, &ps->ev[ps->failed], true);
		return sampler;
	}
	return attach_group(ps, sampler, side_fd, cpu, pages);
}

/*
 * System-wide groups (-a, and the fallback), plus the fallback's side-band:
 * an inherited dummy on every thread of the workload.  One on the -p
 * process's main thread alone would miss what its other threads map (and
 * the processes they fork): side-band follows the task it was opened on
 * and its descendants only.
 */
static int open_cpu_wide(struct record_session *s, struct perf_state *ps, unsigned int pages)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ps->cpus.nr; i++) {
		ret = open_cpu_group(s, ps, ps->cpus.cpus[i], pages);
		if (ret)
			return ret;
	}
	if (s->opts->system_wide)
		return 0;
	return open_each_thread(s, ps, pages, false, open_side_band);
}

/*
 * CPU hotplug.  Groups exist only on the CPUs online at open.  A CPU that
 * comes online later gets a system-wide group when recording -a (that group
 * sees everything that runs there from now on).  The per-task groups cannot
 * follow it: inherited events are copied into a task when it forks, so no
 * event can be added to the workload's already running threads and
 * children, and the fallback's side-band has the same limit.  Those CPUs
 * are remembered and reported as not counted.
 *
 * A CPU that goes offline takes its events with it: the kernel detaches
 * them from the CPU's context for good (they stay open, and are never
 * scheduled again when the CPU is back).  With -a its group is closed and a
 * new one opened once it is back (after its ring is drained, so no record
 * of the old group is left behind), and the time from the check that saw
 * it offline to the reopening is a loss with a reason: a LOST record
 * (cpu-offline, count 0, duration) and stats.cpu_unrecorded_ns.  What was
 * exec'd on it meanwhile has no COMM/MMAP in the trace, so every process's
 * side-band is read from /proc again.
 */
#define HOTPLUG_CHECK_NS	200000000ull	/* reading sysfs costs a few us */

static bool ring_empty(const struct perf_ring *r)
{
	return __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE) == r->meta->data_tail;
}

/* Close cpu's group and its ring; the other CPUs' fd ranges move down. */
static void close_cpu_group(struct perf_state *ps, int cpu)
{
	struct cpu_fds g = ps->cpu_fds[cpu];
	struct perf_ring *r = ring_of_cpu(ps, cpu);
	unsigned int i;

	if (r) {
		perf_ring_unmap(r, ps->page_size);
		*r = ps->rings[--ps->nr_rings];
	}
	for (i = g.first; i < g.first + g.nr; i++)
		close(ps->fds[i]);
	memmove(ps->fds + g.first, ps->fds + g.first + g.nr,
		(ps->nr_fds - g.first - g.nr) * sizeof(*ps->fds));
	ps->nr_fds -= g.nr;
	for (i = 0; i < ps->nr_slots; i++)
		if (ps->cpu_fds[i].first > g.first)
			ps->cpu_fds[i].first -= g.nr;
	ps->cpu_fds[cpu] = (struct cpu_fds){ 0, 0 };
}

static void queue_offline_loss(struct perf_state *ps, int cpu, uint64_t t)
{
	uint64_t d = t - ps->gone_since[cpu];

	ps->unrecorded_ns += d;
	if (ps->nr_pending_lost < ps->nr_slots)
		ps->pending_lost[ps->nr_pending_lost++] = (struct trace_lost){
			.time = ps->gone_since[cpu], .cpu = (uint32_t)cpu,
			.reason = PMIPROF_LOST_CPU_OFFLINE, .count = 0, .duration = d };
}

/* A CPU of ours is back: a fresh group once its ring is drained.  0: done. */
static int reopen_cpu(struct record_session *s, struct perf_state *ps, int cpu, uint64_t t)
{
	struct perf_ring *r = ring_of_cpu(ps, cpu);
	unsigned int n;
	int ret;

	if (r && !ring_empty(r))
		return -EAGAIN;		/* the next drain takes the old group's records */
	close_cpu_group(ps, cpu);
	n = ps->nr_rings;
	ret = open_cpu_group(s, ps, cpu, ps->pages);
	if (ret) {
		/* what it opened is in its range: closed, tried again at the next check */
		close_cpu_group(ps, cpu);
		return ret;
	}
	enable_ring_group(ps, &ps->rings[n]);
	/* the new group counts from zero: its first sample is a first window */
	window_deltas_forget(&ps->dec.deltas, window_key_cpu((uint32_t)cpu));
	queue_offline_loss(ps, cpu, t);
	pm_info("notice: CPU %d is online again: recording it again (not recorded for %.3f s)",
		cpu, (double)(t - ps->gone_since[cpu]) / 1e9);
	cpu_set_remove(&ps->gone, cpu);
	ps->resynth = true;
	return 0;
}

/* -a: CPUs of ours that went offline, and those back online. */
static void follow_offline(struct record_session *s, struct perf_state *ps,
			   const struct cpu_set *now, uint64_t t, bool final)
{
	unsigned int i;

	for (i = 0; i < ps->cpus.nr; i++) {
		int cpu = ps->cpus.cpus[i];

		if (cpu_set_has(&ps->gone, cpu) || cpu_set_has(now, cpu))
			continue;
		if (cpu_set_add(&ps->gone, cpu))
			return;
		ps->gone_since[cpu] = t;
		pm_warn("CPU %d went offline: not recorded until it is back (counted as lost "
			"time, reason cpu-offline)", cpu);
	}
	for (i = 0; i < ps->gone.nr; ) {
		int cpu = ps->gone.cpus[i];

		if (final) {
			queue_offline_loss(ps, cpu, t);
			ps->gone_since[cpu] = t;
		} else if (cpu_set_has(now, cpu) && !reopen_cpu(s, ps, cpu, t)) {
			continue;	/* removed from gone: the next one is at i */
		}
		i++;
	}
}

/* CPUs online now that are recorded: every online one but those not reopened yet. */
static void count_recorded(struct record_session *s, struct perf_state *ps,
			   const struct cpu_set *now, uint64_t t)
{
	unsigned int i, rec = 0;
	uint64_t open = 0;

	for (i = 0; i < now->nr; i++)
		rec += cpu_set_has(&ps->cpus, now->cpus[i]) && !cpu_set_has(&ps->gone,
									  now->cpus[i]);
	for (i = 0; i < ps->gone.nr; i++)
		open += t - ps->gone_since[ps->gone.cpus[i]];
	s->stats.cpus_online = now->nr;
	s->stats.cpus_recorded = rec;
	s->stats.cpu_unrecorded_ns = ps->unrecorded_ns + open;
}

static void check_hotplug(struct record_session *s, struct perf_state *ps, bool final)
{
	struct cpu_set now = { 0 };
	uint64_t t = pm_now_ns();
	unsigned int i;

	if (!final && t - ps->hotplug_checked < HOTPLUG_CHECK_NS)
		return;
	ps->hotplug_checked = t;
	if (cpu_set_online(&now))
		goto out;
	if (s->opts->system_wide && ps->cpu_fds)
		follow_offline(s, ps, &now, t, final);
	for (i = 0; i < now.nr; i++) {
		int cpu = now.cpus[i];

		if (cpu_set_has(&ps->cpus, cpu) || cpu_set_has(&ps->late, cpu))
			continue;
		if (s->opts->system_wide && !final && (unsigned int)cpu < ps->nr_slots &&
		    !cpu_set_add(&ps->cpus, cpu)) {
			unsigned int r = ps->nr_rings;

			if (!open_cpu_group(s, ps, cpu, ps->pages)) {
				enable_ring_group(ps, &ps->rings[r]);
				pm_info("notice: CPU %d came online: recording it from now on", cpu);
				continue;
			}
			cpu_set_remove(&ps->cpus, cpu);
		}
		if (cpu_set_add(&ps->late, cpu))
			break;
		pm_info("notice: CPU %d came online during the recording: not counted", cpu);
	}
	if (s->opts->system_wide)
		count_recorded(s, ps, &now, t);
out:
	cpu_set_free(&now);
	if (final && ps->late.nr) {
		char list[256] = "";
		size_t n = 0;

		for (i = 0; i < ps->late.nr && n + 12 < sizeof(list); i++)
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%d", i ? "," : "",
					      ps->late.cpus[i]);
		pm_warn("CPU%s %s came online during the recording and %s not counted: the "
			"recording covers only the %u CPUs online at its start%s",
			ps->late.nr > 1 ? "s" : "", list, ps->late.nr > 1 ? "were" : "was",
			s->hdr.nr_cpus, s->opts->system_wide ? "" :
			" (a running task's inherited events cannot be added on a new CPU)");
	}
}

static void close_all(struct perf_state *ps)
{
	unsigned int i;

	for (i = 0; i < ps->nr_rings; i++)
		perf_ring_unmap(&ps->rings[i], ps->page_size);
	ps->nr_rings = 0;
	for (i = 0; i < ps->nr_fds; i++)
		close(ps->fds[i]);
	ps->nr_fds = 0;
	if (ps->cpu_fds)
		memset(ps->cpu_fds, 0, ps->nr_slots * sizeof(*ps->cpu_fds));
}

/* ---- choosing events: the no-PMU fallback ---- */

static const char *const fallback_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches",
};

/*
 * The fallback's cpu-clock rate: -F as given; -c as a cpu-clock period in
 * ns where it can be one (perf's hrtimer floor), else refused with the
 * reason; neither: the command's default (record 10 kHz, daemon 99 Hz),
 * unless the kernel lowered its rate limit.
 */
static int fallback_rate(const struct record_opts *o, struct perf_state *ps)
{
	if (o->freq_hz) {
		ps->freq = o->freq_hz;
		ps->period = 0;
		return 0;
	}
	if (o->period_given) {
		if (o->period < FALLBACK_PERIOD_MIN_NS) {
			pm_err("-c %llu cannot be honoured: there is no hardware PMU, so the trigger "
			       "is cpu-clock, whose period is in nanoseconds and at least %llu ns; "
			       "give -c %llu or more (ns) or -F HZ", (unsigned long long)o->period,
			       FALLBACK_PERIOD_MIN_NS, FALLBACK_PERIOD_MIN_NS);
			return -EINVAL;
		}
		ps->freq = 0;
		ps->period = o->period;
		return 0;
	}
	ps->freq = o->fallback_freq_hz ? o->fallback_freq_hz : FALLBACK_FREQ_HZ;
	if (record_max_sample_rate() < ps->freq)
		ps->freq = record_max_sample_rate();
	ps->period = 0;
	return 0;
}

static int choose_events(struct record_session *s, struct perf_state *ps)
{
	const struct record_opts *o = s->opts;
	const struct pm_event_list *l = &o->events;
	struct perf_group_opts go;
	unsigned int i;
	int ret;

	ps->nr_ev = l->nr;
	memcpy(ps->ev, l->ev, sizeof(ps->ev));
	ps->trigger = l->trigger;
	ps->period = o->period;
	ps->freq = o->freq_hz;

	if (!ps->ev[ps->trigger].software && !hw_event_works(&ps->ev[ps->trigger])) {
		char note[320], rate[96];

		if (o->events_given) {
			explain_open_error(s->opts, -ENOENT, &ps->ev[ps->trigger], false);
			return -ENOENT;
		}
		ps->nr_ev = ARRAY_SIZE(fallback_names);
		for (i = 0; i < ps->nr_ev; i++) {
			bool trig;
			char err[64];

			pm_event_parse_one(fallback_names[i], &ps->ev[i], &trig, err, sizeof(err));
		}
		ps->trigger = 0;
		ret = fallback_rate(o, ps);
		if (ret)
			return ret;
		if (ps->freq)
			snprintf(rate, sizeof(rate), "at %llu Hz%s", (unsigned long long)ps->freq,
				 o->freq_hz ? " (-F)" : "");
		else
			snprintf(rate, sizeof(rate), "every %llu ns (-c %llu taken as nanoseconds)",
				 (unsigned long long)ps->period, (unsigned long long)o->period);
		snprintf(note, sizeof(note),
			 "no hardware PMU (event '%s' not supported): windows are time-based, "
			 "cpu-clock %s with task-clock, page-faults, context-switches",
			 l->ev[l->trigger].name, rate);
		host_note_append(&s->hdr, note);
		pm_info("notice: %s", note);
	}
	if (!o->events_given) {
		/* A partial PMU (some VMs): keep the default events that exist. */
		char dropped[160] = "", note[256];
		unsigned int k = 0;

		for (i = 0; i < ps->nr_ev; i++) {
			if (i != ps->trigger && !ps->ev[i].software && !hw_event_works(&ps->ev[i])) {
				size_t n = strlen(dropped);

				snprintf(dropped + n, sizeof(dropped) - n, "%s%s", n ? ", " : "",
					 ps->ev[i].name);
				continue;
			}
			if (i == ps->trigger)
				ps->trigger = k;
			ps->ev[k++] = ps->ev[i];
		}
		ps->nr_ev = k;
		if (dropped[0]) {
			snprintf(note, sizeof(note), "default events not supported here, left out: %s",
				 dropped);
			host_note_append(&s->hdr, note);
			pm_info("notice: %s", note);
		}
	}
	ps->time_based = ps->ev[ps->trigger].time_based;
	group_opts(ps, false, false, false, &go);
	ret = perf_group_build(ps->ev, ps->nr_ev, ps->trigger, &go, &ps->grp);
	if (ret)
		pm_err("'%s' cannot be the trigger: it belongs to the non-sampling group of "
		       "topdown events", ps->ev[ps->trigger].name);
	return ret;
}

static void fill_header(struct record_session *s, struct perf_state *ps)
{
	struct trace_header *h = &s->hdr;
	unsigned int i;
	bool hw = false;

	for (i = 0; i < ps->nr_ev; i++) {
		pm_event_to_desc(&ps->ev[i], i == ps->trigger, &h->events[i]);
		if (ps->exclude_kernel)
			h->events[i].flags |= PMIPROF_EVENT_F_EXCL_KERNEL;
		hw |= !ps->ev[i].software;
	}
	h->nr_events = ps->nr_ev;
	h->nr_cpus = ps->cpus.nr;	/* the CPUs with groups: online at open */
	h->trigger_index = ps->trigger;
	h->period = ps->freq ? 0 : ps->period;
	h->freq_hz = ps->freq;
	h->trigger_flags = ps->freq ? PMIPROF_TRIGGER_F_FREQ : 0;
	h->mode = PMIPROF_MODE_PERF;
	h->backend = PMIPROF_BACKEND_PERF;
	if (ps->time_based)
		h->flags |= PMIPROF_TRACE_F_TIME_BASED;
	if (ps->per_task)
		h->flags |= PMIPROF_TRACE_F_INHERIT;
	if (s->opts->system_wide)
		h->flags |= PMIPROF_TRACE_F_SYSTEM_WIDE;
	if (ps->filter)
		h->flags |= PMIPROF_TRACE_F_NO_INHERIT_READ;
	if (!ps->exclude_kernel)
		h->flags |= PMIPROF_TRACE_F_KERNEL_IPS;
	h->call_graph = ps->call_graph;
	if (ps->call_graph) {
		h->call_graph_max_stack = ps->max_stack;
		h->call_graph_dump_size = ps->call_graph == PMIPROF_CALL_GRAPH_DWARF ?
					  ps->dump_size : 0;
		h->call_graph_flags = ps->exclude_kernel ? 0 : PMIPROF_CALL_GRAPH_F_KERNEL;
		if (ps->call_graph == PMIPROF_CALL_GRAPH_FP)
			h->call_graph_flags |= PMIPROF_CALL_GRAPH_F_LEAF_WORDS;
	}
	if (hw) {
		char name[64] = "";
		FILE *f = fopen("/sys/bus/event_source/devices/cpu/caps/pmu_name", "r");

		if (f) {
			if (fgets(name, sizeof(name), f))
				name[strcspn(name, "\n")] = '\0';
			fclose(f);
		}
		snprintf(h->pmu, sizeof(h->pmu), "perf_event_open: hardware PMU%s%s",
			 name[0] ? " " : "", name);
	} else {
		snprintf(h->pmu, sizeof(h->pmu),
			 "perf_event_open: software events only (no hardware PMU in use)");
	}
}

/*
 * The CPUs to open groups on (online now) and the size of the tables
 * indexed by CPU id (every possible CPU, so one coming online fits).
 */
static int open_cpus(struct perf_state *ps)
{
	struct cpu_set possible = { 0 };
	int ret = cpu_set_online(&ps->cpus);

	if (ret) {
		pm_err("cannot list the online CPUs (/sys/devices/system/cpu/online): %s",
		       strerror(-ret));
		return ret;
	}
	ps->nr_slots = cpu_set_slots(&ps->cpus);
	if (!cpu_set_possible(&possible) && cpu_set_slots(&possible) > ps->nr_slots)
		ps->nr_slots = cpu_set_slots(&possible);
	cpu_set_free(&possible);
	return 0;
}

/*
 * Call-graph settings: --max-stack within kernel.perf_event_max_stack (which
 * perf_event_open enforces with EOVERFLOW), and a ring big enough for dwarf
 * samples of SIZE bytes each when -m was not given.
 */
static int setup_call_graph(struct record_session *s, struct perf_state *ps,
			    unsigned int *pages)
{
	const struct record_opts *o = s->opts;
	int kmax = RECORD_DEFAULT_MAX_STACK;

	ps->call_graph = o->call_graph;
	if (!ps->call_graph)
		return 0;
	ps->max_stack = o->max_stack;
	if (!read_int_file("/proc/sys/kernel/perf_event_max_stack", &kmax) && kmax > 0 &&
	    ps->max_stack > (uint32_t)kmax) {
		if (o->max_stack_given) {
			pm_err("--max-stack %u exceeds kernel.perf_event_max_stack (%d): lower it or "
			       "'sysctl kernel.perf_event_max_stack=%u'", ps->max_stack, kmax,
			       ps->max_stack);
			return -EINVAL;
		}
		ps->max_stack = (uint32_t)kmax;
	}
	ps->dump_size = ps->call_graph == PMIPROF_CALL_GRAPH_DWARF ? o->call_graph_dump_size :
			RECORD_LEAF_WORDS_SIZE;
	/* 8 KiB per sample fills a 1 MiB ring in ~100 samples: give dwarf 8 MiB */
	if (ps->call_graph == PMIPROF_CALL_GRAPH_DWARF && !o->mmap_pages && !geteuid())
		*pages = 2048;
	return 0;
}

static int perf_open(struct record_session *s)
{
	const struct record_opts *o = s->opts;
	struct perf_state *ps;
	unsigned int pages = o->mmap_pages ? o->mmap_pages :
			     geteuid() ? USER_MMAP_PAGES : DEFAULT_MMAP_PAGES;
	unsigned int kver = host_kernel_version();
	int ret;

	ps = calloc(1, sizeof(*ps));
	if (!ps)
		return -ENOMEM;
	s->priv = ps;
	ps->page_size = (size_t)sysconf(_SC_PAGESIZE);
	ret = setup_call_graph(s, ps, &pages);
	if (ret)
		return ret;
	ps->pages = pages;
	ps->build_id = true;
	ret = open_cpus(ps);
	if (ret)
		return ret;
	ps->rings = calloc(ps->nr_slots, sizeof(*ps->rings));
	ps->copybuf = malloc(PERF_RING_COPYBUF);
	if (!ps->rings || !ps->copybuf)
		return -ENOMEM;
	if (o->system_wide) {
		ps->cpu_fds = calloc(ps->nr_slots, sizeof(*ps->cpu_fds));
		ps->gone_since = calloc(ps->nr_slots, sizeof(*ps->gone_since));
		ps->pending_lost = calloc(ps->nr_slots, sizeof(*ps->pending_lost));
		if (!ps->cpu_fds || !ps->gone_since || !ps->pending_lost)
			return -ENOMEM;
	}
	ret = choose_events(s, ps);
	if (ret)
		return ret;
	ret = perf_decoder_init(&ps->dec, ps->nr_ev, ps->nr_slots, &s->stats);
	if (ret)
		return ret;

	ps->per_task = !o->system_wide && !o->force_no_inherit_read;
	if (ps->per_task) {
		ret = open_per_task(s, ps, pages, true);
		if ((ret == -EACCES || ret == -EPERM) && !ps->exclude_kernel) {
			/*
			 * Unprivileged: record user space only, as perf does.  The
			 * first refusal was not explained: only the retry's is.
			 */
			close_all(ps);
			ps->exclude_kernel = true;
			ret = open_per_task(s, ps, pages, false);
			if (!ret) {
				host_note_append(&s->hdr, "kernel excluded (not permitted)");
				pm_info("notice: kernel not permitted, recording user space only");
			}
		}
		if (ret == -EINVAL && kver >= 6012) {
			/* Supported combination, so something else is wrong: say what. */
			explain_open_error(s->opts, ret, &ps->ev[ps->failed], false);
			return ret;
		}
		if (ret == -EINVAL) {
			char note[200];

			close_all(ps);
			ps->per_task = false;
			snprintf(note, sizeof(note),
				 "kernel %u.%u rejects PERF_SAMPLE_READ with inherit (needs 6.12): "
				 "per-CPU groups filtered to the workload, windows per CPU",
				 kver / 1000, kver % 1000);
			host_note_append(&s->hdr, note);
			host_note_append(&s->hdr, FALLBACK_COUNTS_NOTE);
			pm_info("notice: %s", note);
		} else if (ret) {
			return ret;
		}
	} else if (o->force_no_inherit_read && !o->system_wide) {
		host_note_append(&s->hdr, "PMIPROF_FORCE_NO_INHERIT_READ: per-CPU groups "
				 "filtered to the workload, windows per CPU (kernel < 6.12 mode)");
		host_note_append(&s->hdr, FALLBACK_COUNTS_NOTE);
		pm_info("notice: forced kernel < 6.12 mode: per-CPU groups filtered to the "
			"workload, windows per CPU");
	}
	if (!ps->per_task) {
		ps->filter = !o->system_wide;
		if (ps->filter) {
			unsigned int p;

			ret = 0;	/* not the per-task attempt's -EINVAL */
			if (s->child > 0)
				ret = pid_set_add_pinned(&ps->dec.pids, (uint32_t)s->child);
			for (p = 0; p < o->nr_pids && !ret; p++)
				ret = pid_set_add_pinned(&ps->dec.pids, (uint32_t)o->pids[p]);
			if (ret)
				return ret;
		}
		ret = open_cpu_wide(s, ps, pages);
		if (ret)
			return ret;
	}
	ps->dec.per_task = ps->per_task;
	ps->dec.filter = ps->filter;
	ps->dec.time_based = ps->time_based;
	ps->dec.trigger = ps->trigger;
	ps->dec.call_graph = ps->call_graph;
	ps->dec.regs_mask = !ps->call_graph ? 0 :
			    ps->call_graph == PMIPROF_CALL_GRAPH_DWARF ? PERF_GROUP_DWARF_REGS :
			    PERF_GROUP_LEAF_REGS;
	/* cpu-clock at F Hz is an hrtimer with a fixed period of 1e9/F ns */
	ps->dec.trigger_period = !ps->freq ? ps->period :
				 ps->time_based ? 1000000000ull / ps->freq : 0;
	memcpy(ps->dec.group_to_ev, ps->grp.to_ev, sizeof(ps->grp.to_ev));
	fill_header(s, ps);
	return 0;
}

/* ---- enable / disable ---- */

static int ioctl_leaders(struct perf_state *ps, unsigned long req)
{
	unsigned int i;

	/*
	 * Every fd: a leader's ioctl acts on its group, and the lead-group
	 * layout's sampler starts disabled too.
	 */
	for (i = 0; i < ps->nr_fds; i++)
		ioctl(ps->fds[i], req, 0);
	return 0;
}

static int perf_enable(struct record_session *s)
{
	struct perf_state *ps = s->priv;

	/* A forked child is enabled by its exec (enable_on_exec). */
	if (s->child > 0 && ps->per_task)
		return 0;
	if (s->child > 0) {
		/* fallback: CPU-wide groups start now; side-band dummies at exec */
		unsigned int i;

		for (i = 0; i < ps->nr_rings; i++)
			enable_ring_group(ps, &ps->rings[i]);
		return 0;
	}
	return ioctl_leaders(ps, PERF_EVENT_IOC_ENABLE);
}

/*
 * Say when the counters did not count all the time they were enabled: a
 * group that never ran (its events could not be scheduled) or one that was
 * multiplexed with other perf users.  Windows hold real counts either way;
 * they just cover only the time the group ran.
 */
static void check_group_times(struct perf_state *ps)
{
	uint64_t buf[3 + PMIPROF_MAX_EVENTS], enabled = 0, running = 0;
	unsigned int i, never = 0, leaders = 0;

	for (i = 0; i < ps->nr_fds; i++) {
		ssize_t n = read(ps->fds[i], buf, sizeof(buf));

		if (n != (ssize_t)((3 + ps->nr_ev) * sizeof(buf[0])) || buf[0] != ps->nr_ev)
			continue;	/* a sibling or a side-band dummy */
		leaders++;
		enabled += buf[1];
		running += buf[2];
		if (buf[1] && !buf[2])
			never++;
	}
	/*
	 * A per-task group exists once per CPU and accrues enabled time on all
	 * of them while its task runs on one: compare with one CPU's share.
	 */
	if (ps->per_task && ps->nr_rings)
		enabled /= ps->nr_rings;
	if (leaders && enabled && !running)
		pm_warn("the counters never ran (<not counted>): no event group could be "
			"scheduled on the PMU; is another tool holding it?");
	else if (never && !ps->per_task)
		pm_info("notice: the event group did not run on %u of %u CPUs", never, leaders);
	else if (running && running < enabled - enabled / 100)
		pm_warn("counters ran %.1f%% of the time they were enabled (multiplexed with "
			"other perf users): windows cover only the time they ran",
			100.0 * (double)running / (double)enabled);
}

static int perf_disable(struct record_session *s)
{
	struct perf_state *ps = s->priv;
	int ret;

	check_hotplug(s, ps, true);
	ps->final = true;	/* nothing more is coming: the next drain takes all */
	ret = ioctl_leaders(ps, PERF_EVENT_IOC_DISABLE);
	check_group_times(ps);
	return ret;
}

static int perf_poll_fds(struct record_session *s, struct pollfd *fds, int max)
{
	struct perf_state *ps = s->priv;
	int i;

	int n = 0;

	check_hotplug(s, ps, false);
	/* an offline CPU's ring is still drained, but it wakes nobody */
	for (i = 0; i < (int)ps->nr_rings && n < max; i++) {
		if (cpu_set_has(&ps->gone, ps->rings[i].cpu))
			continue;
		fds[n].fd = ps->rings[i].fd;
		fds[n].events = POLLIN;
		fds[n].revents = 0;
		n++;
	}
	return n;
}

/* ---- side-band for already running tasks (-p, -a) ---- */

static int synth_task(struct record_session *s, struct trace_writer *w, pid_t pid,
		      uint64_t time)
{
	char path[64], line[4096 + 256], comm[64] = "";
	struct perf_state *ps = s->priv;
	struct trace_comm c;
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;		/* exited meanwhile */
	if (fgets(comm, sizeof(comm), f))
		comm[strcspn(comm, "\n")] = '\0';
	fclose(f);
	memset(&c, 0, sizeof(c));
	c.time = time;
	c.pid = c.tid = (uint32_t)pid;
	c.comm = comm;
	ret = trace_write_comm(w, &c);
	if (ret)
		return ret;
	s->stats.side_band++;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off, ino;
		unsigned int maj, min;
		char perms[8], file[4096];
		struct trace_mmap m;
		int n;

		file[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]", &start, &end, perms,
			   &off, &maj, &min, &ino, file) < 7)
			continue;
		if (perms[2] != 'x')
			continue;
		/* fp leaf words: code addresses of mappings made before we started */
		if (ps->call_graph == PMIPROF_CALL_GRAPH_FP) {
			ret = perf_decode_note_exec(&ps->dec, start, end - start);
			if (ret)
				break;
		}
		if (!file[0])
			continue;
		memset(&m, 0, sizeof(m));
		m.time = time;
		m.pid = m.tid = (uint32_t)pid;
		m.start = start;
		m.len = end - start;
		m.pgoff = off;
		m.prot = PROT_READ | PROT_EXEC;
		m.flags = perms[3] == 'p' ? MAP_PRIVATE : MAP_SHARED;
		m.path = file;
		n = mapped_build_id(&ps->build_ids, pid, file, maj, min, ino, m.build_id);
		if (n < 0) {
			ret = n;
			break;
		}
		m.build_id_len = (uint32_t)n;
		ret = trace_write_mmap(w, &m);
		if (ret)
			break;
		s->stats.side_band++;
	}
	fclose(f);
	return ret;
}

static int synthesize_at(struct record_session *s, struct trace_writer *w, uint64_t time)
{
	const struct record_opts *o = s->opts;
	unsigned int p;
	int ret = 0;

	if (s->child > 0 && !o->system_wide)
		return 0;	/* exec produces its own COMM and MMAP2 records */
	if (o->system_wide) {
		DIR *d = opendir("/proc");
		struct dirent *de;

		if (!d)
			return -errno;
		while (!ret && (de = readdir(d)))
			if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
				ret = synth_task(s, w, (pid_t)atoi(de->d_name), time);
		closedir(d);
		return ret;
	}
	for (p = 0; p < o->nr_pids && !ret; p++)
		ret = synth_task(s, w, o->pids[p], time);
	return ret;
}

static int perf_synthesize(struct record_session *s, struct trace_writer *w)
{
	return synthesize_at(s, w, s->hdr.start_time);
}

/*
 * After the drain: the cpu-offline losses of CPUs reopened (or still
 * offline at the end), and /proc's side-band again once a CPU is back
 * (stamped now: after every record the drain took).
 */
static int write_hotplug(struct record_session *s, struct perf_state *ps,
			 struct trace_writer *w)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ps->nr_pending_lost; i++) {
		ret = trace_write_lost(w, &ps->pending_lost[i]);
		if (ret)
			return ret;
	}
	ps->nr_pending_lost = 0;
	if (!ps->resynth || ps->final)
		return 0;
	ps->resynth = false;
	return synthesize_at(s, w, pm_now_ns());
}

/* ---- draining ---- */

static int take_record(void *arg, struct perf_ring *r, const struct perf_event_header *h)
{
	void **a = arg;
	struct record_session *s = a[2];

	/* region markers up to this record's time go first: one time order */
	if (s->regions) {
		int ret = record_regions_flush(s->regions, a[1], r->next_time);

		if (ret)
			return ret;
	}
	return perf_decode_record(a[0], r->cpu, a[1], h);
}

/*
 * Fallback filter: a child's samples can sit in one CPU's ring while the
 * FORK that makes it ours sits unread in another's.  Learn every FORK first.
 */
static void prescan_forks(struct perf_state *ps)
{
	unsigned int i, pass;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < ps->nr_rings; i++) {
			struct perf_ring *r = &ps->rings[i];
			uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
			uint64_t tail = r->meta->data_tail;

			while (tail < head) {
				struct perf_event_header hh;
				uint32_t v32[2];	/* pid, ppid */

				perf_ring_copy(r, tail, &hh, sizeof(hh));
				if (hh.size < sizeof(hh) || hh.size > head - tail)
					break;
				if (hh.type == PERF_RECORD_FORK && hh.size >= sizeof(hh) + 8) {
					perf_ring_copy(r, tail + sizeof(hh), v32, sizeof(v32));
					perf_decode_learn_fork(&ps->dec, v32[0], v32[1]);
				}
				tail += hh.size;
			}
		}
	}
}

static int perf_drain(struct record_session *s, struct trace_writer *w)
{
	struct perf_state *ps = s->priv;
	void *arg[3] = { &ps->dec, w, s };
	uint64_t now;
	int ret;

	if (ps->dec.filter)
		prescan_forks(ps);
	now = pm_now_ns();	/* read before the heads: the watermark's base */
	ret = perf_rings_drain(ps->rings, ps->nr_rings, ps->final || s->drain_all ? UINT64_MAX : now,
			       ps->copybuf, take_record, arg);
	if (ret > 0)
		s->stats.wakeups++;
	if (ret >= 0) {
		int e = write_hotplug(s, ps, w);

		if (e)
			return e;
	}
	if (ret >= 0 && ps->final) {
		int e = perf_decode_finish(&ps->dec, w, now);

		if (e)
			return e;
	}
	return ret;
}

static void perf_close(struct record_session *s)
{
	struct perf_state *ps = s->priv;

	if (!ps)
		return;
	close_all(ps);
	perf_decoder_free(&ps->dec);
	cpu_set_free(&ps->cpus);
	cpu_set_free(&ps->late);
	cpu_set_free(&ps->gone);
	free(ps->cpu_fds);
	free(ps->gone_since);
	free(ps->pending_lost);
	free(ps->rings);
	free(ps->fds);
	free(ps->copybuf);
	mapped_build_id_free(&ps->build_ids);
	free(ps);
	s->priv = NULL;
}

const struct backend_ops backend_perf_ops = {
	.name = "perf",
	.id = PMIPROF_BACKEND_PERF,
	.probe = perf_probe,
	.open = perf_open,
	.synthesize = perf_synthesize,
	.enable = perf_enable,
	.poll_fds = perf_poll_fds,
	.drain = perf_drain,
	.disable = perf_disable,
	.close = perf_close,
};
