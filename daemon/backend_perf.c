// SPDX-License-Identifier: GPL-2.0
/*
 * The perf_event_open backend (the default): one event group per CPU, the
 * trigger as sampling leader with PERF_SAMPLE_READ|PERF_FORMAT_GROUP so every
 * sample carries all counters, side-band (MMAP2 with build-id, COMM, FORK,
 * EXIT) from the leader, one mmap ring per CPU drained into the trace.
 *
 * Three layouts of the same groups:
 *   per-task   (command or -p, kernel >= 6.12): pid = task, cpu = N, inherit.
 *              Totals are per thread and CPU; windows are deltas per (tid, cpu).
 *   system-wide (-a): pid = -1, cpu = N.  Windows are deltas per CPU.
 *   fallback   (command or -p, kernel < 6.12, which rejects inherit together
 *              with PERF_SAMPLE_READ): the system-wide groups, samples kept
 *              only for the workload's processes (tracked from FORK records of
 *              an inherited side-band dummy event), windows per CPU.  Marked
 *              NO_INHERIT_READ in the header, explained in its note, and said
 *              at run time.  PMIPROF_FORCE_NO_INHERIT_READ=1 forces it.
 * No hardware PMU (ours): default events fall back to cpu-clock as trigger
 * at 10 kHz with task-clock, page-faults and context-switches.
 */
#include "backend.h"

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

#include "host_info.h"
#include "record.h"
#include "util.h"
#include "window_deltas.h"
#include "workload.h"

#ifndef PERF_RECORD_MISC_MMAP_BUILD_ID
#define PERF_RECORD_MISC_MMAP_BUILD_ID	(1 << 14)
#endif
#ifndef PERF_RECORD_MISC_COMM_EXEC
#define PERF_RECORD_MISC_COMM_EXEC	(1 << 13)
#endif

#define FALLBACK_FREQ_HZ	10000
#define DEFAULT_MMAP_PAGES	256	/* 1 MiB per CPU */
#define USER_MMAP_PAGES		128	/* unprivileged: fits perf_event_mlock_kb (516) per CPU */
#define PID_SET_MAX		4096

struct perf_ring {
	int cpu;
	int fd;				/* fd the ring is mmapped on (a leader) */
	void *base;
	struct perf_event_mmap_page *meta;
	char *data;
	uint64_t data_size;
	uint64_t throttle_time;		/* start of a throttled stretch, or 0 */
	/* drain cursor: records in [tail, head) are pending, the next one at next_time */
	uint64_t tail, head;
	uint64_t next_time;
};

struct perf_state {
	struct perf_ring *rings;
	unsigned int nr_rings;
	int *fds;			/* every fd opened, for enable/disable/close */
	unsigned int nr_fds, cap_fds;
	unsigned int nr_ev;
	unsigned int group_to_ev[PMIPROF_MAX_EVENTS];	/* group position -> header index */
	struct pm_event ev[PMIPROF_MAX_EVENTS];		/* effective events, header order */
	unsigned int trigger;
	unsigned int failed;		/* header index of the event that failed to open */
	uint64_t period, freq;
	bool time_based;
	bool per_task;			/* inherit groups, deltas per (tid, cpu) */
	bool filter;			/* fallback: keep only the workload's pids */
	bool exclude_kernel;		/* fell back to user-only */
	bool build_id;			/* kernel supports attr.build_id */
	struct window_deltas deltas;
	pid_t pids[PID_SET_MAX];	/* filter: the workload's processes */
	unsigned int nr_pids;
	char *copybuf;			/* records that wrap around the ring */
	bool *live;			/* per ring: a record is pending (drain merge) */
	size_t page_size;
	unsigned int pages;		/* ring data pages per CPU */
};

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

static void explain_open_error(int err, const struct pm_event *ev, bool cpu_wide)
{
	int paranoid = 2;

	read_int_file("/proc/sys/kernel/perf_event_paranoid", &paranoid);
	switch (err) {
	case -EACCES:
	case -EPERM:
		pm_err("not permitted to open '%s'%s: kernel.perf_event_paranoid is %d; "
		       "run as root, give pmiprof CAP_PERFMON (setcap cap_perfmon+ep), or "
		       "'sysctl kernel.perf_event_paranoid=%d'", ev->name,
		       cpu_wide ? " on every CPU" : "", paranoid, cpu_wide ? 0 : 1);
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

/* ---- attribute building ---- */

static void build_attr(const struct perf_state *ps, const struct pm_event *ev, bool leader,
		       bool inherit, bool enable_on_exec, bool side_band,
		       struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = ev->type;
	a->config = ev->config;
	a->config1 = ev->config1;
	a->config2 = ev->config2;
	a->exclude_user = ev->exclude_user;
	a->exclude_kernel = ev->exclude_kernel || ps->exclude_kernel;
	a->exclude_hv = ev->exclude_hv || ps->exclude_kernel;
	a->inherit = inherit;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->sample_id_all = 1;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	if (!leader)
		return;
	a->disabled = 1;
	a->enable_on_exec = enable_on_exec;
	a->sample_type |= PERF_SAMPLE_READ;
	a->read_format = PERF_FORMAT_GROUP;
	if (ps->freq) {
		a->freq = 1;
		a->sample_freq = ps->freq;
	} else {
		a->sample_period = ps->period;
	}
	/* Wake the recorder when a quarter of the ring is used: few wakeups. */
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(ps->pages * ps->page_size / 4);
	if (side_band) {
		a->mmap = 1;		/* the kernel counts mmap listeners by this bit */
		a->mmap2 = 1;
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1;
		a->build_id = ps->build_id;
	}
}

static void build_side_band_attr(const struct perf_state *ps, bool enable_on_exec,
				 struct perf_event_attr *a)
{
	struct pm_event dummy = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_DUMMY };

	build_attr(ps, &dummy, true, true, enable_on_exec, true, a);
	a->sample_type &= ~(uint64_t)PERF_SAMPLE_READ;
	a->read_format = 0;
	a->freq = 0;
	a->sample_period = 0;
}

/* ---- rings ---- */

static int ring_map(struct perf_state *ps, struct perf_ring *r, int fd, int cpu,
		    unsigned int pages)
{
	size_t len = (1 + (size_t)pages) * ps->page_size;

	r->base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->base == MAP_FAILED) {
		int e = -errno;

		r->base = NULL;
		pm_err("cannot map the perf ring of CPU %d (%u KiB): %s%s", cpu,
		       (unsigned int)(pages * ps->page_size / 1024), strerror(-e),
		       e == -EPERM ? "; raise kernel.perf_event_mlock_kb or use -m" : "");
		return e;
	}
	r->fd = fd;
	r->cpu = cpu;
	r->meta = r->base;
	r->data = (char *)r->base + ps->page_size;
	r->data_size = (uint64_t)pages * ps->page_size;
	return 0;
}

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
	ret = ring_map(ps, r, fd, cpu, pages);
	if (ret)
		return ret;
	ps->nr_rings++;
	return 0;
}

/* ---- opening groups ---- */

/* One group (trigger leader + siblings) for pid on cpu.  Returns leader fd. */
static int open_group(struct perf_state *ps, pid_t pid, int cpu, bool inherit,
		      bool enable_on_exec, bool side_band)
{
	struct perf_event_attr a;
	unsigned int g;
	int leader = -1, ret;

	for (g = 0; g < ps->nr_ev; g++) {
		const struct pm_event *ev = &ps->ev[ps->group_to_ev[g]];
		int fd;

		build_attr(ps, ev, g == 0, inherit, enable_on_exec, side_band, &a);
		fd = sys_perf_event_open(&a, pid, cpu, g == 0 ? -1 : leader,
					 PERF_FLAG_FD_CLOEXEC);
		if (fd == -EINVAL && side_band && a.build_id && g == 0) {
			/* kernel < 5.12: no build-id in MMAP2; the report reads it from files */
			ps->build_id = false;
			a.build_id = 0;
			fd = sys_perf_event_open(&a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		}
		if (fd < 0) {
			ps->failed = ps->group_to_ev[g];
			return fd;
		}
		ret = add_fd(ps, fd);
		if (ret) {
			close(fd);
			return ret;
		}
		if (g == 0)
			leader = fd;
	}
	return leader;
}

static bool pid_tracked(const struct perf_state *ps, uint32_t pid)
{
	unsigned int i;

	for (i = 0; i < ps->nr_pids; i++)
		if ((uint32_t)ps->pids[i] == pid)
			return true;
	return false;
}

static void pid_track(struct perf_state *ps, uint32_t pid)
{
	if (!pid_tracked(ps, pid) && ps->nr_pids < PID_SET_MAX)
		ps->pids[ps->nr_pids++] = (pid_t)pid;
}

/*
 * Per-task groups: the workload (blocked before exec) or each thread of the
 * -p processes, on every CPU, inherited.  Returns -EINVAL when the kernel
 * refuses inherit with PERF_SAMPLE_READ (< 6.12) before anything is mapped.
 */
static int open_per_task(struct record_session *s, struct perf_state *ps, unsigned int pages)
{
	const struct record_opts *o = s->opts;
	pid_t tids[1024];
	unsigned int t, p, nr_targets = 0;
	pid_t *targets;
	int cpu, ret = 0;

	targets = calloc(o->nr_pids ? o->nr_pids * 1024 : 1, sizeof(*targets));
	if (!targets)
		return -ENOMEM;
	if (s->child > 0) {
		targets[nr_targets++] = s->child;
	} else {
		for (p = 0; p < o->nr_pids; p++) {
			int n = workload_list_threads(o->pids[p], tids, 1024);

			if (n < 0) {
				pm_err("no such process: %d", (int)o->pids[p]);
				free(targets);
				return -ESRCH;
			}
			for (t = 0; t < (unsigned int)n; t++)
				targets[nr_targets++] = tids[t];
		}
	}
	for (cpu = 0; cpu < (int)s->nr_cpus && !ret; cpu++) {
		for (t = 0; t < nr_targets; t++) {
			int leader = open_group(ps, targets[t], cpu, true, s->child > 0, true);

			if (leader < 0) {
				ret = leader;
				if (ret == -ESRCH && s->child <= 0) {
					ret = 0;	/* a thread exited meanwhile */
					continue;
				}
				if (ret != -EINVAL || cpu || t)
					explain_open_error(ret, &ps->ev[ps->failed], false);
				break;
			}
			ret = attach_ring(ps, leader, cpu, pages);
			if (ret)
				break;
		}
	}
	free(targets);
	return ret;
}

/* System-wide groups (-a, and the fallback), plus the fallback's side-band dummies. */
static int open_cpu_wide(struct record_session *s, struct perf_state *ps, unsigned int pages)
{
	const struct record_opts *o = s->opts;
	struct perf_event_attr a;
	unsigned int p;
	int cpu, ret;

	for (cpu = 0; cpu < (int)s->nr_cpus; cpu++) {
		int leader = open_group(ps, -1, cpu, false, false, o->system_wide);

		if (leader < 0) {
			explain_open_error(leader, &ps->ev[ps->failed], true);
			return leader;
		}
		ret = attach_ring(ps, leader, cpu, pages);
		if (ret)
			return ret;
		if (o->system_wide)
			continue;
		/* Side-band of the workload only: an inherited dummy per target and CPU. */
		build_side_band_attr(ps, s->child > 0, &a);
		for (p = 0; p < (s->child > 0 ? 1 : o->nr_pids); p++) {
			pid_t pid = s->child > 0 ? s->child : o->pids[p];
			int fd = sys_perf_event_open(&a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);

			if (fd == -EINVAL && a.build_id) {
				ps->build_id = false;
				a.build_id = 0;
				fd = sys_perf_event_open(&a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
			}
			if (fd < 0) {
				explain_open_error(fd, &ps->ev[ps->trigger], false);
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
	}
	return 0;
}

static void close_all(struct perf_state *ps)
{
	unsigned int i;

	for (i = 0; i < ps->nr_rings; i++)
		if (ps->rings[i].base)
			munmap(ps->rings[i].base, ps->page_size + ps->rings[i].data_size);
	ps->nr_rings = 0;
	for (i = 0; i < ps->nr_fds; i++)
		close(ps->fds[i]);
	ps->nr_fds = 0;
}

/* ---- choosing events: the no-PMU fallback ---- */

static const char *const fallback_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches",
};

static int choose_events(struct record_session *s, struct perf_state *ps)
{
	const struct record_opts *o = s->opts;
	const struct pm_event_list *l = &o->events;
	unsigned int i, g = 1;

	ps->nr_ev = l->nr;
	memcpy(ps->ev, l->ev, sizeof(ps->ev));
	ps->trigger = l->trigger;
	ps->period = o->period;
	ps->freq = o->freq_hz;

	if (!ps->ev[ps->trigger].software && !hw_event_works(&ps->ev[ps->trigger])) {
		char note[256];

		if (o->events_given) {
			explain_open_error(-ENOENT, &ps->ev[ps->trigger], false);
			return -ENOENT;
		}
		ps->nr_ev = ARRAY_SIZE(fallback_names);
		for (i = 0; i < ps->nr_ev; i++) {
			bool trig;
			char err[64];

			pm_event_parse_one(fallback_names[i], &ps->ev[i], &trig, err, sizeof(err));
		}
		ps->trigger = 0;
		if (!o->period_given || !o->freq_hz) {
			/* 10 kHz, unless the kernel lowered its rate limit below that */
			ps->freq = FALLBACK_FREQ_HZ;
			if (record_max_sample_rate() < ps->freq)
				ps->freq = record_max_sample_rate();
			ps->period = 0;
		}
		snprintf(note, sizeof(note),
			 "no hardware PMU (event '%s' not supported): windows are time-based, "
			 "cpu-clock at %llu Hz with task-clock, page-faults, context-switches",
			 l->ev[l->trigger].name, (unsigned long long)ps->freq);
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
	ps->group_to_ev[0] = ps->trigger;
	for (i = 0; i < ps->nr_ev; i++)
		if (i != ps->trigger)
			ps->group_to_ev[g++] = i;
	return 0;
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
	ps->pages = pages;
	ps->build_id = true;
	ps->rings = calloc(s->nr_cpus, sizeof(*ps->rings));
	ps->live = calloc(s->nr_cpus, sizeof(*ps->live));
	ps->copybuf = malloc(65536);
	if (!ps->rings || !ps->live || !ps->copybuf)
		return -ENOMEM;
	ret = choose_events(s, ps);
	if (ret)
		return ret;
	ret = window_deltas_init(&ps->deltas, ps->nr_ev);
	if (ret)
		return ret;

	ps->per_task = !o->system_wide && !o->force_no_inherit_read;
	if (ps->per_task) {
		ret = open_per_task(s, ps, pages);
		if ((ret == -EACCES || ret == -EPERM) && !ps->exclude_kernel) {
			/* Unprivileged: record user space only, as perf does. */
			close_all(ps);
			ps->exclude_kernel = true;
			ret = open_per_task(s, ps, pages);
			if (!ret) {
				host_note_append(&s->hdr, "kernel excluded (not permitted)");
				pm_info("notice: kernel not permitted, recording user space only");
			}
		}
		if (ret == -EINVAL && kver >= 6012) {
			/* Supported combination, so something else is wrong: say what. */
			explain_open_error(ret, &ps->ev[ps->failed], false);
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
			pm_info("notice: %s", note);
		} else if (ret) {
			return ret;
		}
	} else if (o->force_no_inherit_read && !o->system_wide) {
		host_note_append(&s->hdr, "PMIPROF_FORCE_NO_INHERIT_READ: per-CPU groups "
				 "filtered to the workload, windows per CPU (kernel < 6.12 mode)");
		pm_info("notice: forced kernel < 6.12 mode: per-CPU groups filtered to the "
			"workload, windows per CPU");
	}
	if (!ps->per_task) {
		ps->filter = !o->system_wide;
		if (ps->filter) {
			unsigned int p;

			if (s->child > 0)
				pid_track(ps, (uint32_t)s->child);
			for (p = 0; p < o->nr_pids; p++)
				pid_track(ps, (uint32_t)o->pids[p]);
		}
		ret = open_cpu_wide(s, ps, pages);
		if (ret)
			return ret;
	}
	fill_header(s, ps);
	return 0;
}

/* ---- enable / disable ---- */

static int ioctl_leaders(struct perf_state *ps, unsigned long req)
{
	unsigned int i;

	/* PERF_IOC_FLAG_GROUP is not needed: the ioctl on a leader acts on its group. */
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
			ioctl(ps->rings[i].fd, PERF_EVENT_IOC_ENABLE, 0);
		return 0;
	}
	return ioctl_leaders(ps, PERF_EVENT_IOC_ENABLE);
}

static int perf_disable(struct record_session *s)
{
	return ioctl_leaders(s->priv, PERF_EVENT_IOC_DISABLE);
}

static int perf_poll_fds(struct record_session *s, struct pollfd *fds, int max)
{
	struct perf_state *ps = s->priv;
	int i;

	for (i = 0; i < (int)ps->nr_rings && i < max; i++) {
		fds[i].fd = ps->rings[i].fd;
		fds[i].events = POLLIN;
		fds[i].revents = 0;
	}
	return i;
}

/* ---- side-band for already running tasks (-p, -a) ---- */

static int synth_task(struct record_session *s, struct trace_writer *w, pid_t pid)
{
	char path[64], line[4096 + 256], comm[64] = "";
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
	c.time = s->hdr.start_time;
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
		unsigned long long start, end, off;
		char perms[8], file[4096];
		struct trace_mmap m;

		file[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &start, &end, perms,
			   &off, file) < 4)
			continue;
		if (perms[2] != 'x' || !file[0])
			continue;
		memset(&m, 0, sizeof(m));
		m.time = s->hdr.start_time;
		m.pid = m.tid = (uint32_t)pid;
		m.start = start;
		m.len = end - start;
		m.pgoff = off;
		m.prot = PROT_READ | PROT_EXEC;
		m.flags = perms[3] == 'p' ? MAP_PRIVATE : MAP_SHARED;
		m.path = file;
		ret = trace_write_mmap(w, &m);
		if (ret)
			break;
		s->stats.side_band++;
	}
	fclose(f);
	return ret;
}

static int perf_synthesize(struct record_session *s, struct trace_writer *w)
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
				ret = synth_task(s, w, (pid_t)atoi(de->d_name));
		closedir(d);
		return ret;
	}
	for (p = 0; p < o->nr_pids && !ret; p++)
		ret = synth_task(s, w, o->pids[p]);
	return ret;
}

/* ---- draining ---- */

struct sample_id {			/* sample_id_all trailer: TID, TIME, CPU */
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
};

static void trailer(const struct perf_event_header *h, struct sample_id *id)
{
	if (h->size >= sizeof(*h) + sizeof(*id))
		memcpy(id, (const char *)h + h->size - sizeof(*id), sizeof(*id));
	else
		memset(id, 0, sizeof(*id));
}

static int do_sample(struct record_session *s, struct perf_state *ps, struct trace_writer *w,
		     const struct perf_event_header *h)
{
	const uint64_t *p = (const uint64_t *)(h + 1);
	struct trace_sample ts;
	uint64_t totals[PMIPROF_MAX_EVENTS], deltas[PMIPROF_MAX_EVENTS], nr;
	uint64_t key;
	unsigned int g;
	int first, ret;

	/* IP, (pid,tid), TIME, (cpu,res), READ{nr, values[nr]} */
	if (h->size < sizeof(*h) + 5 * 8)
		return 0;
	memset(&ts, 0, sizeof(ts));
	ts.ip = p[0];
	ts.pid = (uint32_t)p[1];
	ts.tid = (uint32_t)(p[1] >> 32);
	ts.time = p[2];
	ts.cpu = (uint32_t)p[3];
	nr = p[4];
	if (nr != ps->nr_ev || h->size < sizeof(*h) + (5 + nr) * 8)
		return 0;
	for (g = 0; g < nr; g++)
		totals[ps->group_to_ev[g]] = p[5 + g];

	key = ps->per_task ? window_key_task(ts.tid, ts.cpu) : window_key_cpu(ts.cpu);
	first = window_deltas_update(&ps->deltas, key, totals, deltas);
	if (first < 0)
		return first;
	if (ps->filter && !pid_tracked(ps, ts.pid)) {
		s->stats.filtered++;
		return 0;
	}
	ts.nr = ps->nr_ev;
	memcpy(ts.counts, deltas, ps->nr_ev * sizeof(deltas[0]));
	switch (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) {
	case PERF_RECORD_MISC_KERNEL:
	case PERF_RECORD_MISC_GUEST_KERNEL:
		ts.flags |= PMIPROF_SAMPLE_F_KERNEL;
		break;
	default:
		ts.flags |= PMIPROF_SAMPLE_F_USER;
	}
	if (ps->time_based)
		ts.flags |= PMIPROF_SAMPLE_F_TIME_BASED;
	if (first)
		ts.flags |= PMIPROF_SAMPLE_F_FIRST;
	ret = trace_write_sample(w, &ts);
	if (!ret)
		s->stats.samples++;
	return ret;
}

static int do_record(struct record_session *s, struct perf_state *ps, struct perf_ring *r,
		     struct trace_writer *w, const struct perf_event_header *h)
{
	struct sample_id id;
	const char *body = (const char *)(h + 1);
	int ret = 0;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		return do_sample(s, ps, w, h);
	case PERF_RECORD_MMAP2: {
		struct trace_mmap m;
		uint32_t v32[2];
		uint64_t v64[3];

		if (h->size < sizeof(*h) + 64 + sizeof(id))
			return 0;
		trailer(h, &id);
		memset(&m, 0, sizeof(m));
		memcpy(v32, body, 8);
		memcpy(v64, body + 8, 24);
		m.time = id.time;
		m.pid = v32[0];
		m.tid = v32[1];
		m.start = v64[0];
		m.len = v64[1];
		m.pgoff = v64[2];
		if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			uint8_t n = (uint8_t)body[32];

			m.build_id_len = n > 20 ? 20 : n;
			memcpy(m.build_id, body + 36, m.build_id_len);
		}
		memcpy(&m.prot, body + 56, 4);
		memcpy(&m.flags, body + 60, 4);
		m.path = body + 64;
		if (!memchr(m.path, '\0', h->size - sizeof(*h) - 64))
			return 0;
		ret = trace_write_mmap(w, &m);
		break;
	}
	case PERF_RECORD_COMM: {
		struct trace_comm c;
		uint32_t v32[2];

		trailer(h, &id);
		memset(&c, 0, sizeof(c));
		memcpy(v32, body, 8);
		c.pid = v32[0];
		c.tid = v32[1];
		c.time = id.time;
		c.comm = body + 8;
		if (h->size < sizeof(*h) + 8 + sizeof(id) ||
		    !memchr(c.comm, '\0', h->size - sizeof(*h) - 8))
			return 0;
		if (h->misc & PERF_RECORD_MISC_COMM_EXEC)
			c.flags |= PMIPROF_COMM_F_EXEC;
		ret = trace_write_comm(w, &c);
		break;
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		struct trace_task t;
		uint32_t v32[4];

		if (h->size < sizeof(*h) + 24)
			return 0;
		memcpy(v32, body, 16);
		memset(&t, 0, sizeof(t));
		t.pid = v32[0];
		t.ppid = v32[1];
		t.tid = v32[2];
		t.ptid = v32[3];
		memcpy(&t.time, body + 16, 8);
		if (h->type == PERF_RECORD_FORK) {
			if (ps->filter && pid_tracked(ps, t.ppid))
				pid_track(ps, t.pid);
			/* A fresh thread: a reused tid must not inherit old totals. */
			for (unsigned int c = 0; ps->per_task && c < s->nr_cpus; c++)
				window_deltas_forget(&ps->deltas, window_key_task(t.tid, c));
			ret = trace_write_fork(w, &t);
		} else {
			ret = trace_write_exit(w, &t);
		}
		break;
	}
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES: {
		struct trace_lost l;
		uint64_t v[2];

		trailer(h, &id);
		memset(&l, 0, sizeof(l));
		if (h->type == PERF_RECORD_LOST) {
			memcpy(v, body, 16);	/* id, lost */
			l.count = v[1];
		} else {
			memcpy(&l.count, body, 8);
		}
		l.time = id.time;
		l.cpu = (uint32_t)r->cpu;
		l.reason = PMIPROF_LOST_RING_FULL;
		s->stats.lost += l.count;
		return trace_write_lost(w, &l);
	}
	case PERF_RECORD_THROTTLE: {
		memcpy(&r->throttle_time, body, 8);
		return 0;
	}
	case PERF_RECORD_UNTHROTTLE: {
		struct trace_lost l;
		uint64_t now, per;

		memcpy(&now, body, 8);
		memset(&l, 0, sizeof(l));
		l.time = now;
		l.cpu = (uint32_t)r->cpu;
		l.reason = PMIPROF_LOST_THROTTLE;
		/* Windows the throttled stretch would have closed, at least one. */
		per = ps->freq ? 1000000000ull / ps->freq : ps->time_based ? ps->period : 0;
		l.count = 1;
		if (per && r->throttle_time && now > r->throttle_time &&
		    (now - r->throttle_time) / per > 1)
			l.count = (now - r->throttle_time) / per;
		r->throttle_time = 0;
		s->stats.throttled += l.count;
		return trace_write_lost(w, &l);
	}
	default:
		return 0;		/* ITRACE, AUX, KSYMBOL ...: not requested */
	}
	if (!ret)
		s->stats.side_band++;
	return ret;
}

/* Copy len bytes at ring position pos, across the end of the data area. */
static void ring_copy(const struct perf_ring *r, uint64_t pos, void *dst, size_t len)
{
	uint64_t off = pos & (r->data_size - 1);
	size_t part = len;

	if (off + len > r->data_size)
		part = (size_t)(r->data_size - off);
	memcpy(dst, r->data + off, part);
	memcpy((char *)dst + part, r->data, len - part);
}

/*
 * Time of the record at the cursor: SAMPLE has it after IP and TID, every
 * other record in its sample_id_all trailer (TID, TIME, CPU).  Returns false
 * when no complete record is pending (end of the snapshot, or a torn size).
 */
static bool ring_peek(struct perf_ring *r)
{
	struct perf_event_header hh;
	uint64_t t = 0;

	if (r->tail >= r->head)
		return false;
	ring_copy(r, r->tail, &hh, sizeof(hh));
	if (hh.size < sizeof(hh) || hh.size > r->head - r->tail)
		return false;
	if (hh.type == PERF_RECORD_SAMPLE && hh.size >= sizeof(hh) + 24)
		ring_copy(r, r->tail + sizeof(hh) + 16, &t, sizeof(t));
	else if (hh.type != PERF_RECORD_SAMPLE && hh.size >= sizeof(hh) + sizeof(struct sample_id))
		ring_copy(r, r->tail + hh.size - 16, &t, sizeof(t));
	r->next_time = t;
	return true;
}

/* Process the record at the cursor and advance past it. */
static int ring_take(struct record_session *s, struct perf_state *ps, struct perf_ring *r,
		     struct trace_writer *w)
{
	const struct perf_event_header *h;
	struct perf_event_header hh;
	uint64_t off = r->tail & (r->data_size - 1);
	int ret;

	memcpy(&hh, r->data + off, sizeof(hh));	/* 8-aligned: never split */
	if (off + hh.size > r->data_size) {
		ring_copy(r, r->tail, ps->copybuf, hh.size);
		h = (const struct perf_event_header *)ps->copybuf;
	} else {
		h = (const struct perf_event_header *)(r->data + off);
	}
	ret = do_record(s, ps, r, w, h);
	if (!ret)
		r->tail += hh.size;
	return ret;
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
			uint64_t tail = r->meta->data_tail, mask = r->data_size - 1;

			while (tail < head) {
				struct perf_event_header hh;
				uint32_t v32[2];
				uint64_t off = tail & mask;

				memcpy(&hh, r->data + off, sizeof(hh));
				if (hh.size < sizeof(hh) || hh.size > head - tail)
					break;
				if (hh.type == PERF_RECORD_FORK && off + 16 <= r->data_size) {
					memcpy(v32, r->data + off + sizeof(hh), 8);
					if (pid_tracked(ps, v32[1]))
						pid_track(ps, v32[0]);
				}
				tail += hh.size;
			}
		}
	}
}

static int perf_drain(struct record_session *s, struct trace_writer *w)
{
	struct perf_state *ps = s->priv;
	bool *live = ps->live;
	unsigned int i;
	int total = 0, ret = 0;

	if (ps->filter)
		prescan_forks(ps);

	/*
	 * Each ring is in time order, but a process's MMAP/COMM can sit in
	 * another CPU's ring than its first samples: merge the rings by time
	 * so side-band always precedes the samples it explains.
	 */
	for (i = 0; i < ps->nr_rings; i++) {
		struct perf_ring *r = &ps->rings[i];

		r->head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
		r->tail = r->meta->data_tail;
		live[i] = ring_peek(r);
	}
	for (;;) {
		struct perf_ring *best = NULL;
		unsigned int bi = 0;

		for (i = 0; i < ps->nr_rings; i++)
			if (live[i] && (!best || ps->rings[i].next_time < best->next_time))
				best = &ps->rings[i], bi = i;
		if (!best)
			break;
		ret = ring_take(s, ps, best, w);
		if (ret)
			break;
		live[bi] = ring_peek(best);
		total++;
	}
	for (i = 0; i < ps->nr_rings; i++)
		__atomic_store_n(&ps->rings[i].meta->data_tail, ps->rings[i].tail,
				 __ATOMIC_RELEASE);
	if (ret)
		return ret;
	if (total)
		s->stats.wakeups++;
	return total;
}

static void perf_close(struct record_session *s)
{
	struct perf_state *ps = s->priv;

	if (!ps)
		return;
	close_all(ps);
	window_deltas_free(&ps->deltas);
	free(ps->rings);
	free(ps->fds);
	free(ps->copybuf);
	free(ps->live);
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
