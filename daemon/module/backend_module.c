// SPDX-License-Identifier: GPL-2.0
/*
 * The module backend (--backend module, and auto when /dev/pmiprof exists):
 * pmiprof.ko samples system-wide into per-CPU rings that we map read-only
 * and drain on poll().
 *
 *   open     GET_INFO + ABI check, events -> event/umask codes, CONFIGURE,
 *            mmap every CPU's ring, side-band (module_sideband.c), header
 *   enable   START.  Per-task (-- CMD, -p; docs/kernel-module.md "Per-task
 *            windows"): the module counts only the workload's tasks (its
 *            threads and, as perf's inherit, their descendants), each with
 *            its own window, and writes each task's open window as a
 *            PARTIAL record at its exit or at STOP.  -a: system-wide, every
 *            record carries pid/tid and report --pid selects.
 *   drain    side-band first (so a process's MMAPs precede its samples),
 *            then each ring: records -> SAMPLE, ring lost counter -> LOST,
 *            CONSUME with the new tail; after STOP, GET_STATS throttles ->
 *            LOST(THROTTLE)
 *
 * Modes: PMI when the module found (or emulates) a PMU, every N events of
 * the trigger; timer when it has none or the trigger is cpu-clock/task-clock
 * (hrtimer, windows are time-based: event 0 of the trace is the window
 * length in ns, computed here from consecutive records of a CPU, followed by
 * the counters the module reads if it can).  Emulated PMUs are flagged in
 * the header, its PMU string and every sample.
 *
 * Call stacks (-g, --call-graph fp|dwarf, ABI 1.2): CONFIGURE asks the
 * module for them, its rings then hold variable-length records (the PMI
 * handler's fp walk or dwarf register + stack copy), decoded here into
 * STACK (trace_write_sample_stack) and USTACK records, as the perf backend
 * writes them.  A module older than 1.2 is refused with a message.
 *
 * Times: the module stamps records with local_clock(); the trace clock is
 * CLOCK_MONOTONIC.  The offset between them is measured once at open (a perf
 * COMM record bracketed by clock_gettime, see module_clock_offset()) and
 * added to every record; the side-band events use CLOCK_MONOTONIC directly.
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
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "engine/host_info.h"
#include "module/module_dev.h"
#include "module/module_ring.h"
#include "module/module_sideband.h"
#include "engine/record.h"
#include "util.h"

#define MODULE_DEFAULT_PERIOD	512000ull	/* events per window without -c (as perf's) */
#define MODULE_DEFAULT_TIMER_NS	1000000ull	/* 1 kHz without -c/-F */

struct module_state {
	int fd;
	struct pmiprof_info info;
	struct pmiprof_config cfg;
	size_t map_size;
	void **maps;			/* [info.nr_cpus], NULL when not mapped */
	struct module_ring *rings;	/* [info.nr_cpus] */
	uint64_t *last_time;		/* timer mode: previous record time per CPU */
	bool timer;
	bool minimal_defaults;		/* default events: instructions,cycles only */
	unsigned int first_counter;	/* 1 in timer mode (event 0 = window ns) */
	unsigned int nr_trace_events;
	int64_t clock_offset;		/* CLOCK_MONOTONIC - local_clock */
	bool started, stopped, stats_done;
	bool per_task;			/* CFG_TASK: only the workload's tasks count */
	struct sideband sb;
	struct pmiprof_cpu_stats *stats;
	struct pmiprof_stack_stats *stack_stats;	/* 1.2, with call stacks */
	uint64_t *recbuf;			/* one variable-length record (8-aligned) */
	bool varlen;				/* call stacks: variable-length rings */
};

static const char *ev_base_name(const struct pm_event *e, char *buf, size_t len)
{
	size_t n = strcspn(e->name, ":");

	if (n >= len)
		n = len - 1;
	memcpy(buf, e->name, n);
	buf[n] = '\0';
	return buf;
}

static bool ev_is_clock(const struct pm_event *e)
{
	return e->type == PERF_TYPE_SOFTWARE &&
	       (e->config == PERF_COUNT_SW_CPU_CLOCK || e->config == PERF_COUNT_SW_TASK_CLOCK);
}

/* ABI 1.2: the module walks stacks in its PMI handler. */
static bool module_has_stacks(const struct pmiprof_info *info)
{
	return info->abi_minor >= 2 && (info->caps & PMIPROF_CAP_STACKS);
}

static int module_probe(const struct record_opts *o, char *why, size_t why_len)
{
	struct pmiprof_info info;
	int fd;

	if (o->counting) {
		snprintf(why, why_len,
			 "counting (pmiprof stat) is not supported by pmiprof.ko yet");
		return -EOPNOTSUPP;
	}
	fd = module_dev_open(NULL, &info, why, why_len);
	if (fd < 0)
		return fd;
	close(fd);
	if (o->call_graph && !module_has_stacks(&info)) {
		snprintf(why, why_len, "call stacks (-g/--call-graph) need pmiprof.ko ABI 1.2 or "
			 "later (loaded: %u.%u): load the module built with this pmiprof, or use "
			 "--backend perf", info.abi_major, info.abi_minor);
		return -EOPNOTSUPP;
	}
	return 0;
}

/*
 * Measure CLOCK_MONOTONIC - local_clock(): a perf dummy event on ourselves
 * with default clock (local_clock) stamps the COMM record prctl() causes;
 * the closest bracket of three tries wins.  -errno when perf is refused.
 */
static int module_clock_offset(int64_t *off)
{
	struct perf_event_attr a;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint64_t best = UINT64_MAX;
	char name[17] = "";
	void *base;
	int fd, i, ret = -ENODATA;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.comm = 1;
	a.sample_id_all = 1;
	a.sample_type = PERF_SAMPLE_TIME;
	a.exclude_kernel = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	base = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		ret = -errno;
		close(fd);
		return ret;
	}
	prctl(PR_GET_NAME, name);
	for (i = 0; i < 3; i++) {
		struct perf_event_mmap_page *pg = base;
		const unsigned char *data = (const unsigned char *)base + page;
		struct timespec t0, t1;
		uint64_t head, tail = pg->data_tail, m0, m1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		prctl(PR_SET_NAME, name);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
		m0 = (uint64_t)t0.tv_sec * 1000000000ull + (uint64_t)t0.tv_nsec;
		m1 = (uint64_t)t1.tv_sec * 1000000000ull + (uint64_t)t1.tv_nsec;
		while (tail + sizeof(struct perf_event_header) <= head) {
			struct perf_event_header h;
			uint64_t t;

			memcpy(&h, data + (tail & (page - 1)), sizeof(h));
			/* One page, records of a few dozen bytes: never wraps mid-record here. */
			if (h.size < sizeof(h) + 8 || (tail & (page - 1)) + h.size > page)
				break;
			if (h.type == PERF_RECORD_COMM && m1 - m0 < best) {
				memcpy(&t, data + (tail & (page - 1)) + h.size - 8, 8);
				best = m1 - m0;
				*off = (int64_t)(m0 + (m1 - m0) / 2) - (int64_t)t;
				ret = 0;
			}
			tail += h.size;
		}
		__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
	}
	munmap(base, 2 * page);
	close(fd);
	return ret;
}

/* Add one event to the trace header. */
static void hdr_add_event(struct trace_header *h, const char *name, uint32_t type,
			  uint64_t config, uint32_t flags)
{
	struct trace_event_desc *d = &h->events[h->nr_events++];

	memset(d, 0, sizeof(*d));
	pm_strlcpy(d->name, name, sizeof(d->name));
	d->type = type;
	d->config = config;
	d->flags = flags;
}

/*
 * Build the CONFIGURE request and the header's event list from the user's
 * events.  Returns 0 or -errno after one pm_err().
 */
static int module_build_config(struct record_session *s, struct module_state *m)
{
	const struct record_opts *o = s->opts;
	struct pmiprof_config *c = &m->cfg;
	struct trace_header *h = &s->hdr;
	bool pmi = module_has_pmi(&m->info), emul = m->info.flags & PMIPROF_INFO_F_EMULATED;
	const struct pm_event_list *el = &o->events;
	struct pm_event_list defaults;
	unsigned int i, trig;
	char base[64];

	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->flags = PMIPROF_CFG_KERNEL_IPS;
	h->nr_events = 0;

	if (!o->events_given) {
		/* Our own defaults: the perf backend's may name software events. */
		memset(&defaults, 0, sizeof(defaults));
		if (pmi) {
			/* record's defaults; the minimal set if the PMU refused them. */
			static const char *const full[] = { "instructions", "cycles",
							    "cache-misses", "branch-misses" };
			struct module_event_code code;
			unsigned int k, nr = m->minimal_defaults ? 2 : ARRAY_SIZE(full);

			for (k = 0; k < nr; k++) {
				if (module_event_lookup(&m->info, full[k], &code))
					continue;
				pm_strlcpy(defaults.ev[defaults.nr].name, full[k],
					   sizeof(defaults.ev[0].name));
				defaults.ev[defaults.nr++].type = PERF_TYPE_HARDWARE;
			}
		} else {
			defaults.nr = 1;
			pm_strlcpy(defaults.ev[0].name, "cpu-clock", sizeof(defaults.ev[0].name));
			defaults.ev[0].type = PERF_TYPE_SOFTWARE;
			defaults.ev[0].config = PERF_COUNT_SW_CPU_CLOCK;
			defaults.ev[0].time_based = defaults.ev[0].software = true;
		}
		el = &defaults;
	}
	trig = el->trigger < el->nr ? el->trigger : 0;
	m->timer = ev_is_clock(&el->ev[trig]);
	/* Names first: an unknown event is the error to report, not its period. */
	for (i = 0; i < el->nr; i++) {
		struct module_event_code code;

		if ((m->timer && i == trig) ||
		    !module_event_lookup(&m->info, ev_base_name(&el->ev[i], base, sizeof(base)),
					 &code))
			continue;
		pm_err("event '%s' is not available with the module backend (it knows: %s%s); "
		       "use --backend perf for other events", el->ev[i].name,
		       module_event_names(), i == trig ? "; cpu-clock as trigger for timer "
		       "sampling" : "");
		return -ENOENT;
	}
	if (!m->timer && !pmi) {
		char desc[256];

		module_describe_pmu(&m->info, desc, sizeof(desc));
		pm_err("%s: cannot sample on '%s' overflow; use -e cpu-clock (timer windows) or "
		       "load the module with pmu=emul to test the PMI path", desc,
		       el->ev[trig].name);
		return -EOPNOTSUPP;
	}

	if (m->timer) {
		uint64_t ns = MODULE_DEFAULT_TIMER_NS;

		c->mode = PMIPROF_SAMPLING_TIMER;
		if (o->period_given && o->period)
			ns = o->period;			/* cpu-clock periods are ns */
		else if (o->freq_hz)
			ns = 1000000000ull / o->freq_hz;
		if (ns < m->info.min_timer_ns) {
			pm_err("timer interval %llu ns is below pmiprof.ko's minimum of %llu ns "
			       "(at most %llu samples/s per CPU)", (unsigned long long)ns,
			       (unsigned long long)m->info.min_timer_ns,
			       1000000000ull / (m->info.min_timer_ns ? m->info.min_timer_ns : 1));
			return -EINVAL;
		}
		c->timer_ns = ns;
		m->first_counter = 1;
		hdr_add_event(h, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
			      PMIPROF_EVENT_F_TRIGGER | PMIPROF_EVENT_F_SOFTWARE);
		h->trigger_index = 0;
		h->period = ns;
		h->mode = PMIPROF_MODE_TIMER;
		h->flags |= PMIPROF_TRACE_F_TIME_BASED;
	} else {
		uint64_t period = MODULE_DEFAULT_PERIOD;

		c->mode = PMIPROF_SAMPLING_PMI;
		if (o->period_given && o->freq_hz && !o->period) {
			pm_err("-F (frequency) is not supported with pmiprof.ko's overflow "
			       "sampling; give a period with -c N (events per window)");
			return -EINVAL;
		}
		if (o->period)
			period = o->period;
		else if (period < m->info.min_period)
			period = m->info.min_period;
		if (period < m->info.min_period ||
		    (m->info.max_period && period > m->info.max_period)) {
			pm_err("period %llu is outside what pmiprof.ko accepts on this PMU: "
			       "%llu..%llu events", (unsigned long long)period,
			       (unsigned long long)m->info.min_period,
			       (unsigned long long)m->info.max_period);
			return -EINVAL;
		}
		h->period = period;
		h->mode = PMIPROF_MODE_PMI;
	}

	/* Counters: everything but the clock trigger of timer mode. */
	for (i = 0; i < el->nr; i++) {
		const struct pm_event *e = &el->ev[i];
		struct pmiprof_event *pe;
		struct module_event_code code;
		uint32_t tflags = 0;

		if (m->timer && i == trig)
			continue;
		if (m->timer && !(m->info.caps & PMIPROF_CAP_READ_COUNTERS)) {
			pm_err("pmiprof.ko cannot read counters in timer mode here (no PMU): "
			       "drop '%s' from -e", e->name);
			return -EOPNOTSUPP;
		}
		if (module_event_lookup(&m->info, ev_base_name(e, base, sizeof(base)), &code))
			return -ENOENT;		/* refused with a message above */
		if (c->nr_events >= PMIPROF_ABI_MAX_EVENTS) {
			pm_err("too many events for pmiprof.ko (at most %d)",
			       PMIPROF_ABI_MAX_EVENTS);
			return -E2BIG;
		}
		pe = &c->events[c->nr_events++];
		pe->event = code.event;
		pe->umask = code.umask;
		pe->flags = (e->exclude_user ? 0 : PMIPROF_EV_USER) |
			    (e->exclude_kernel ? 0 : PMIPROF_EV_KERNEL);
		if (!(pe->flags & (PMIPROF_EV_USER | PMIPROF_EV_KERNEL))) {
			pm_err("event '%s' excludes both user and kernel mode: it would count "
			       "nothing", e->name);
			return -EINVAL;
		}
		if (!m->timer && i == trig) {
			pe->flags |= PMIPROF_EV_TRIGGER;
			pe->period = h->period;
			tflags |= PMIPROF_EVENT_F_TRIGGER;
			h->trigger_index = h->nr_events;
		}
		if (e->exclude_user)
			tflags |= PMIPROF_EVENT_F_EXCL_USER;
		if (e->exclude_kernel)
			tflags |= PMIPROF_EVENT_F_EXCL_KERNEL;
		hdr_add_event(h, e->name, PMIPROF_EVTYPE_MODULE,
			      code.event | (uint64_t)code.umask << 8, tflags);
	}
	m->nr_trace_events = h->nr_events;
	if (o->call_graph) {
		c->stack_mode = o->call_graph == PMIPROF_CALL_GRAPH_DWARF ? PMIPROF_STACK_DWARF :
								     PMIPROF_STACK_FP;
		c->stack_max = o->max_stack ? o->max_stack : RECORD_DEFAULT_MAX_STACK;
		if (c->stack_max > PMIPROF_STACK_MAX_FRAMES)
			c->stack_max = PMIPROF_STACK_MAX_FRAMES;
		c->stack_dump = c->stack_mode == PMIPROF_STACK_DWARF ? o->call_graph_dump_size : 0;
		m->varlen = true;
		/* As the perf backend's header: kernel frames (we ask for kernel IPs), leaf words */
		h->call_graph = o->call_graph;
		h->call_graph_max_stack = c->stack_max;
		h->call_graph_dump_size = c->stack_dump;
		h->call_graph_flags = PMIPROF_CALL_GRAPH_F_KERNEL;
		if (c->stack_mode == PMIPROF_STACK_FP)
			h->call_graph_flags |= PMIPROF_CALL_GRAPH_F_LEAF_WORDS;
	}
	h->trigger_flags = 0;
	h->freq_hz = 0;
	h->backend = PMIPROF_BACKEND_MODULE;
	h->flags |= PMIPROF_TRACE_F_KERNEL_IPS;
	if (m->per_task) {
		c->flags |= PMIPROF_CFG_TASK;
		if (s->child > 0) {
			c->tasks[c->nr_tasks++] = (uint32_t)s->child;
		} else {
			for (i = 0; i < o->nr_pids; i++) {
				if (c->nr_tasks >= PMIPROF_ABI_MAX_TASKS) {
					pm_err("pmiprof.ko follows at most %d processes per recording",
					       PMIPROF_ABI_MAX_TASKS);
					return -E2BIG;
				}
				c->tasks[c->nr_tasks++] = (uint32_t)o->pids[i];
			}
		}
		h->flags |= PMIPROF_TRACE_F_INHERIT;
	} else {
		h->flags |= PMIPROF_TRACE_F_SYSTEM_WIDE;
	}
	if (emul)
		h->flags |= PMIPROF_TRACE_F_EMULATED;
	return 0;
}

static int module_configure(struct module_state *m)
{
	if (ioctl(m->fd, PMIPROF_IOC_CONFIGURE, &m->cfg) == 0)
		return 0;
	if (errno == ENOSPC && m->cfg.stack_mode) {
		pm_err("pmiprof.ko: a call-stack record (up to %u frames and %u bytes of stack) "
		       "does not fit a quarter of its ring: load it with a larger ring_kb= or "
		       "lower --max-stack / the dwarf size", m->cfg.stack_max,
		       m->cfg.stack_dump ? m->cfg.stack_dump : PMIPROF_STACK_LEAF_BYTES);
		return -ENOSPC;
	}
	switch (errno) {
	case EBUSY:
		pm_err("pmiprof.ko: the PMU is in use (NMI watchdog or perf?): run "
		       "'sysctl kernel.nmi_watchdog=0' and stop other profilers; see dmesg");
		break;
	case EACCES:
		pm_err("pmiprof.ko: kernel instruction pointers and kernel-mode counting need "
		       "CAP_PERFMON or CAP_SYS_ADMIN (run as root)");
		break;
	case EOPNOTSUPP:
	case ENODEV:
	case EINVAL:
		pm_err("pmiprof.ko rejected the configuration (mode %s, %u events, %s %llu): "
		       "see dmesg for the field it refused",
		       m->cfg.mode == PMIPROF_SAMPLING_TIMER ? "timer" : "pmi", m->cfg.nr_events,
		       m->cfg.mode == PMIPROF_SAMPLING_TIMER ? "interval ns" : "period",
		       (unsigned long long)(m->cfg.mode == PMIPROF_SAMPLING_TIMER ?
			m->cfg.timer_ns : m->cfg.events[0].period));
		break;
	default:
		pm_err("pmiprof.ko CONFIGURE failed: %s", strerror(errno));
	}
	return -errno;
}

static void module_close(struct record_session *s);

static int module_map_rings(struct module_state *m)
{
	unsigned int cpu, mapped = 0;

	m->map_size = PMIPROF_RING_MAP_SIZE(&m->info);
	m->maps = calloc(m->info.nr_cpus, sizeof(*m->maps));
	m->rings = calloc(m->info.nr_cpus, sizeof(*m->rings));
	m->last_time = calloc(m->info.nr_cpus, sizeof(*m->last_time));
	if (!m->maps || !m->rings || !m->last_time) {
		pm_err("out of memory for %u rings", m->info.nr_cpus);
		return -ENOMEM;
	}
	for (cpu = 0; cpu < m->info.nr_cpus; cpu++) {
		void *p = mmap(NULL, m->map_size, PROT_READ, MAP_SHARED, m->fd,
			       (off_t)cpu * (off_t)m->map_size);

		if (p == MAP_FAILED) {
			if (errno == ENXIO)	/* not a possible CPU: no ring */
				continue;
			pm_err("cannot map pmiprof.ko's ring of CPU %u: %s", cpu, strerror(errno));
			return -errno;
		}
		m->maps[cpu] = p;
		module_ring_init(&m->rings[cpu], p, m->info.ring_bytes, cpu);
		mapped++;
	}
	if (!mapped) {
		pm_err("pmiprof.ko exposes no ring to map");
		return -ENXIO;
	}
	return 0;
}

static int module_open(struct record_session *s)
{
	const struct record_opts *o = s->opts;
	struct module_state *m;
	char why[512], desc[256];
	int ret;

	m = calloc(1, sizeof(*m));
	if (!m) {
		pm_err("out of memory");
		return -ENOMEM;
	}
	m->fd = -1;
	s->priv = m;
	m->fd = module_dev_open(NULL, &m->info, why, sizeof(why));
	if (m->fd < 0) {
		pm_err("%s", why);
		ret = m->fd;
		goto fail;
	}
	/* perf's semantics: -- CMD and -p follow the workload; -a (or nothing) is system-wide. */
	m->per_task = !o->system_wide && (s->child > 0 || o->nr_pids);
	if (m->per_task && !(m->info.caps & PMIPROF_CAP_TASK)) {
		pm_warn("this pmiprof.ko has no per-task mode: recording system-wide "
			"(report --pid selects the workload); load a newer pmiprof.ko");
		m->per_task = false;
	}
	ret = module_build_config(s, m);
	if (ret)
		goto fail;
	if (!o->events_given && module_has_pmi(&m->info) &&
	    ioctl(m->fd, PMIPROF_IOC_CONFIGURE, &m->cfg) < 0 &&
	    (errno == EINVAL || errno == EOPNOTSUPP)) {
		/* This PMU has fewer counters or events: the minimal default set. */
		pm_info("pmiprof.ko refused the default events (%s); using instructions,cycles",
			strerror(errno));
		m->minimal_defaults = true;
		ret = module_build_config(s, m);
		if (ret)
			goto fail;
	}
	ret = module_configure(m);
	if (ret)
		goto fail;
	ret = module_map_rings(m);
	if (ret)
		goto fail;
	if (m->varlen) {
		m->recbuf = malloc(MODULE_REC_MAX);
		if (!m->recbuf) {
			pm_err("out of memory");
			ret = -ENOMEM;
			goto fail;
		}
		if (o->call_graph == PMIPROF_CALL_GRAPH_DWARF)
			pm_info("pmiprof.ko: call stacks: dwarf, %u bytes of user stack per sample",
				m->cfg.stack_dump);
		else
			pm_info("pmiprof.ko: call stacks: fp (user walk in the PMI handler, "
				"at most %u frames, and kernel frames)", m->cfg.stack_max);
	}

	ret = sideband_open(&m->sb, s->child, o->pids, o->nr_pids, o->system_wide || (!s->child &&
			    !o->nr_pids), m->info.nr_cpus, why, sizeof(why));
	if (ret < 0) {
		pm_err("side-band: %s", why);
		goto fail;
	}
	if (ret == 1) {
		pm_info("%s; side-band synthesized from /proc (mappings made and unmapped between "
			"two drains are missed)", why);
		host_note_append(&s->hdr, "module backend: side-band synthesized from /proc");
	}
	if (module_clock_offset(&m->clock_offset) < 0) {
		m->clock_offset = 0;
		host_note_append(&s->hdr, "module backend: sample times are local_clock(), "
				 "offset to CLOCK_MONOTONIC unknown");
	}

	module_describe_pmu(&m->info, desc, sizeof(desc));
	pm_strlcpy(s->hdr.pmu, desc, sizeof(s->hdr.pmu));
	if (m->info.nr_cpus > s->hdr.nr_cpus)
		s->hdr.nr_cpus = m->info.nr_cpus;
	if (m->timer) {
		host_note_append(&s->hdr, "module timer mode: windows are time-based "
				 "(event 0 = window length in ns)");
		pm_info("pmiprof.ko: %s timer sampling every %llu ns "
			"(time-based windows)%s", m->per_task ? "per-task" : "system-wide",
			(unsigned long long)m->cfg.timer_ns,
			(m->info.flags & PMIPROF_INFO_F_EMULATED) ? ", EMULATED PMU" : "");
	} else {
		pm_info("pmiprof.ko: %s sampling every %llu %s%s",
			m->per_task ? "per-task" : "system-wide", (unsigned long long)s->hdr.period, s->hdr.events[s->hdr.trigger_index].name,
			(m->info.flags & PMIPROF_INFO_F_EMULATED) ?
				module_emulation_text(&m->info) : "");
	}
	if (m->info.flags & PMIPROF_INFO_F_ICOUNT)
		host_note_append(&s->hdr, "EMULATED PMU (icount: instructions exact): pmiprof.ko "
				 "pmu=emul emul_clock=icount under QEMU -icount; other events synthetic");
	else if (m->info.flags & PMIPROF_INFO_F_EMULATED)
		host_note_append(&s->hdr,
				 "EMULATED PMU (pmiprof.ko pmu=emul): counts are synthetic");
	if (m->per_task)
		host_note_append(&s->hdr, "module backend per-task: only the workload's tasks "
				 "count; a task's last window is PARTIAL");
	else if (!o->system_wide)
		host_note_append(&s->hdr, "module backend records system-wide; "
				 "report --pid selects the workload");
	return 0;
fail:
	module_close(s);
	return ret;
}

static int module_enable(struct record_session *s)
{
	struct module_state *m = s->priv;
	unsigned int cpu;
	int ret;

	if (ioctl(m->fd, PMIPROF_IOC_START) < 0) {
		ret = -errno;
		pm_err("pmiprof.ko START failed: %s%s", strerror(errno),
		       errno == EBUSY ? " (PMU in use: sysctl kernel.nmi_watchdog=0?)" : "");
		return ret;
	}
	m->started = true;
	/* START resets the rings: take the fresh positions. */
	for (cpu = 0; cpu < m->info.nr_cpus; cpu++) {
		if (!m->maps[cpu])
			continue;
		module_ring_sync(&m->rings[cpu]);
		/* With stacks the module marks its rings variable-length (record_size 0). */
		if (m->varlen != !m->rings[cpu].record_size) {
			pm_err("pmiprof.ko ring of CPU %u has record size %u, expected %s",
			       cpu, m->rings[cpu].record_size,
			       m->varlen ? "variable-length records" : "fixed-size records");
			return -EPROTO;
		}
	}
	ret = sideband_enable(&m->sb);
	if (ret)
		pm_err("cannot enable the side-band events: %s", strerror(-ret));
	return ret;
}

static int module_poll_fds(struct record_session *s, struct pollfd *fds, int max)
{
	struct module_state *m = s->priv;
	int n = 0;

	if (max < 1)
		return 0;
	fds[0].fd = m->fd;
	fds[0].events = POLLIN;
	fds[0].revents = 0;
	n = 1;
	return n + sideband_poll_fds(&m->sb, fds + 1, max - 1);
}

/* A 1.2 sample with its stack part: STACK (interned) and USTACK, as the perf backend writes them. */
static int module_write_stack_sample(struct record_session *s, struct trace_writer *w,
				     const struct trace_sample *ts, const struct module_stack *st)
{
	struct trace_ustack u;
	int ret = trace_write_sample_stack(w, ts, st->ips, st->nr, st->nr_kernel);

	if (ret)
		return ret;
	if (st->nr || st->nr_regs || st->dump_size)
		s->stats.stacks++;
	if (!st->nr_regs && !st->dump_size)
		return 0;		/* a kernel thread: no user state */
	memset(&u, 0, sizeof(u));
	u.abi = st->nr_regs ? PERF_SAMPLE_REGS_ABI_64 : 0;
	u.nr_regs = st->nr_regs;
	u.regs_mask = st->regs_mask;
	u.regs = st->nr_regs ? st->regs : NULL;
	u.size = st->dump_size;
	u.data = st->dump;
	return trace_write_ustack(w, &u);
}

/*
 * The next record of @r: fixed-size (1.1 layout), or with stacks a
 * variable-length one split into *rec and *st.  1, 0 (none), -EPROTO.
 */
static int module_next(struct module_state *m, struct module_ring *r, uint64_t head,
		       struct pmiprof_sample_rec *rec, struct module_stack *st)
{
	uint32_t len;
	int ret;

	memset(st, 0, sizeof(*st));
	if (!m->varlen)
		return module_ring_next(r, head, rec);
	ret = module_ring_next_var(r, head, m->recbuf, MODULE_REC_MAX, &len);
	if (ret <= 0)
		return ret;
	if (module_rec_split(m->recbuf, len, rec, st) < 0) {
		/* sizes held, so the ring stays in step: only this record is lost */
		r->skipped++;
		memset(st, 0, sizeof(*st));
		rec->flags &= ~PMIPROF_REC_F_STACK;
	}
	return 1;
}

/*
 * A ring's samples go to the writer in batches (trace_write_samples: no
 * call a sample); each batch is written before any other record of this
 * ring, so the trace keeps the ring's order.
 */
#define DRAIN_BATCH	64

static int write_batch(struct record_session *s, struct trace_writer *w,
		       const struct trace_sample *batch, unsigned int *nb)
{
	int ret = *nb ? trace_write_samples(w, batch, *nb) : 0;

	if (!ret)
		s->stats.samples += *nb;
	*nb = 0;
	return ret;
}

static int module_drain_ring(struct record_session *s, struct module_state *m,
			     struct module_ring *r, struct trace_writer *w)
{
	struct pmiprof_sample_rec rec;
	struct module_stack st;
	struct trace_sample batch[DRAIN_BATCH], *ts;
	uint64_t head = module_ring_head(r), start = r->tail, lost, last = 0;
	unsigned int nb = 0;
	int n = 0, ret;

	while ((ret = module_next(m, r, head, &rec, &st)) != 0) {
		if (ret < 0) {
			pm_warn("pmiprof.ko ring of CPU %u: inconsistent head/tail, %llu "
				"records skipped (counted as lost)", r->cpu,
				(unsigned long long)r->skipped);
			break;
		}
		rec.time_ns += (uint64_t)m->clock_offset;
		ts = &batch[nb];
		module_rec_to_sample(&rec, m->first_counter, m->nr_trace_events, ts);
		if (m->timer && m->per_task) {
			/* The tick follows the task: a window is timer_ns of its CPU time. */
			ts->counts[0] = rec.flags & PMIPROF_REC_F_PARTIAL ? rec.status :
									   m->cfg.timer_ns;
			ts->flags |= PMIPROF_SAMPLE_F_TIME_BASED;
		} else if (m->timer) {
			uint64_t prev = m->last_time[r->cpu];

			ts->counts[0] = prev && rec.time_ns > prev ? rec.time_ns - prev :
									 m->cfg.timer_ns;
			m->last_time[r->cpu] = rec.time_ns;
			ts->flags |= PMIPROF_SAMPLE_F_TIME_BASED;
		}
		last = ts->time;
		if (m->varlen) {
			/* the batch before it, then the sample with its stack */
			ret = write_batch(s, w, batch, &nb);
			if (!ret)
				ret = module_write_stack_sample(s, w, ts, &st);
			if (!ret)
				s->stats.samples++;
		} else {
			ret = ++nb == DRAIN_BATCH ? write_batch(s, w, batch, &nb) : 0;
		}
		if (ret)
			return ret;
		n++;
	}
	ret = write_batch(s, w, batch, &nb);
	if (ret)
		return ret;
	if (r->skipped) {
		struct trace_lost l = { .time = last, .cpu = r->cpu,
					.reason = PMIPROF_LOST_UNREADABLE, .count = r->skipped };

		r->skipped = 0;		/* reported */
		s->stats.lost += l.count;
		ret = trace_write_lost(w, &l);
		if (ret)
			return ret;
	}
	lost = module_ring_take_lost(r);
	if (lost) {
		struct trace_lost l = { .time = last, .cpu = r->cpu,
					.reason = PMIPROF_LOST_RING_FULL, .count = lost };

		s->stats.lost += lost;
		ret = trace_write_lost(w, &l);
		if (ret)
			return ret;
	}
	if (r->tail != start) {
		struct pmiprof_consume cons = { .cpu = r->cpu, .tail = r->tail };

		if (ioctl(m->fd, PMIPROF_IOC_CONSUME, &cons) < 0) {
			pm_err("pmiprof.ko CONSUME (CPU %u) failed: %s", r->cpu, strerror(errno));
			return -errno;
		}
	}
	return n;
}

/* After STOP: throttles become LOST(THROTTLE) records, once. */
static int module_final_stats(struct record_session *s, struct module_state *m,
			      struct trace_writer *w)
{
	struct pmiprof_stats_req req;
	unsigned int cpu;
	int ret;

	m->stats_done = true;
	m->stats = calloc(m->info.nr_cpus, sizeof(*m->stats));
	if (!m->stats)
		return -ENOMEM;
	req.size = sizeof(req);
	req.nr_cpus = m->info.nr_cpus;
	req.buf = (uint64_t)(uintptr_t)m->stats;
	req.stack_buf = 0;
	if (m->varlen) {
		/* 1.2 only: a 1.1 module refuses a non-zero stack_buf (E2BIG) */
		m->stack_stats = calloc(m->info.nr_cpus, sizeof(*m->stack_stats));
		if (!m->stack_stats)
			return -ENOMEM;
		req.stack_buf = (uint64_t)(uintptr_t)m->stack_stats;
	}
	if (ioctl(m->fd, PMIPROF_IOC_GET_STATS, &req) < 0) {
		pm_warn("pmiprof.ko GET_STATS failed: %s (throttle counts unknown)",
			strerror(errno));
		free(m->stats);
		m->stats = NULL;
		return 0;
	}
	for (cpu = 0; cpu < req.nr_cpus && cpu < m->info.nr_cpus; cpu++) {
		struct trace_lost l = { .cpu = cpu, .reason = PMIPROF_LOST_THROTTLE,
					.count = m->stats[cpu].throttles };

		if (!l.count)
			continue;
		s->stats.throttled += l.count;
		ret = trace_write_lost(w, &l);
		if (ret)
			return ret;
	}
	return 0;
}

static int module_drain(struct record_session *s, struct trace_writer *w)
{
	struct module_state *m = s->priv;
	unsigned int cpu;
	int n, total = 0, ret;

	n = sideband_drain(&m->sb, w, &s->stats);
	if (n < 0)
		return n;
	total += n;
	for (cpu = 0; cpu < m->info.nr_cpus; cpu++) {
		if (!m->maps[cpu])
			continue;
		n = module_drain_ring(s, m, &m->rings[cpu], w);
		if (n < 0)
			return n;
		total += n;
	}
	if (m->stopped && !m->stats_done) {
		ret = module_final_stats(s, m, w);
		if (ret)
			return ret;
	}
	if (total)
		s->stats.wakeups++;
	return total;
}

static int module_synthesize(struct record_session *s, struct trace_writer *w)
{
	struct module_state *m = s->priv;
	unsigned int i;
	int ret;

	/* Records are system-wide: name the idle task (pid 0) as perf does. */
	{
		struct trace_comm c = { .time = pm_now_ns(), .pid = 0, .tid = 0,
					.comm = "swapper" };

		ret = trace_write_comm(w, &c);
		if (ret)
			return ret;
		s->stats.side_band++;
	}
	/* -p targets already run: their current mappings. */
	for (i = 0; i < s->opts->nr_pids; i++) {
		ret = sideband_synthesize_pid(&m->sb, s->opts->pids[i], w, &s->stats);
		if (ret)
			return ret;
	}
	/* -a: every process that runs already (the dummy events see new ones). */
	if (s->opts->system_wide) {
		struct dirent *de;
		DIR *d = opendir("/proc");

		if (!d) {
			pm_warn("cannot list /proc (%s): processes running before the recording "
				"will not be symbolized", strerror(errno));
			return 0;
		}
		while ((de = readdir(d))) {
			pid_t pid = (pid_t)atoi(de->d_name);

			if (pid <= 0)
				continue;
			ret = sideband_synthesize_pid(&m->sb, pid, w, &s->stats);
			if (ret) {
				closedir(d);
				return ret;
			}
		}
		closedir(d);
	}
	return 0;
}

static int module_disable(struct record_session *s)
{
	struct module_state *m = s->priv;
	int ret = 0;

	if (m->started && ioctl(m->fd, PMIPROF_IOC_STOP) < 0) {
		ret = -errno;
		pm_err("pmiprof.ko STOP failed: %s", strerror(errno));
	}
	m->started = false;
	m->stopped = true;
	sideband_disable(&m->sb);
	return ret;
}

/* One summary line of the module's own counters (handler time is the guest's). */
static void module_print_stats(const struct module_state *m)
{
	uint64_t pmis = 0, spurious = 0, ns = 0, stuck = 0, hist[PMIPROF_HIST_BUCKETS] = { 0 };
	bool emul = m->info.flags & PMIPROF_INFO_F_EMULATED;
	char line[1024];
	size_t off = 0;
	unsigned int cpu, b;

	if (!m->stats)
		return;
	for (cpu = 0; cpu < m->info.nr_cpus; cpu++) {
		pmis += m->stats[cpu].pmis;
		spurious += m->stats[cpu].spurious;
		stuck += m->stats[cpu].stuck;
		ns += m->stats[cpu].handler_ns_total;
		for (b = 0; b < PMIPROF_HIST_BUCKETS; b++)
			hist[b] += m->stats[cpu].handler_ns_hist[b];
	}
	pm_info("pmiprof.ko: %llu %s handled, %llu spurious NMIs, %llu stuck loops, "
		"handler mean %llu ns%s", (unsigned long long)pmis,
		m->timer ? "timer ticks" : "PMIs", (unsigned long long)spurious,
		(unsigned long long)stuck, (unsigned long long)(pmis ? ns / pmis : 0),
		emul ? " (emulated PMU)" : "");
	/* Bucket b holds handler times below 128 << b ns; the last one the rest. */
	line[0] = '\0';
	for (b = 0; b < PMIPROF_HIST_BUCKETS && off < sizeof(line); b++) {
		if (!hist[b])
			continue;
		if (b == PMIPROF_HIST_BUCKETS - 1)
			off += (size_t)snprintf(line + off, sizeof(line) - off, " >=%lluns:%llu",
						64ull << b, (unsigned long long)hist[b]);
		else
			off += (size_t)snprintf(line + off, sizeof(line) - off, " <%lluns:%llu",
						128ull << b, (unsigned long long)hist[b]);
	}
	if (line[0])
		pm_info("pmiprof.ko: handler time histogram%s:%s",
			emul ? " (EMULATION, in a VM: not a bare-metal figure)" : "", line);
	if (m->stack_stats) {
		struct pmiprof_stack_stats t = { 0 };

		for (cpu = 0; cpu < m->info.nr_cpus; cpu++) {
			t.walks += m->stack_stats[cpu].walks;
			t.reads += m->stack_stats[cpu].reads;
			t.ns_total += m->stack_stats[cpu].ns_total;
			t.truncated += m->stack_stats[cpu].truncated;
			t.faults += m->stack_stats[cpu].faults;
		}
		pm_info("pmiprof.ko: stack walk per %s: %.1f user reads, %llu ns mean; %llu of %llu "
			"walks cut by --max-stack or the per-PMI budget, %llu ended by a fault%s",
			m->timer ? "tick" : "PMI", t.walks ? (double)t.reads / (double)t.walks : 0.0,
			(unsigned long long)(t.walks ? t.ns_total / t.walks : 0),
			(unsigned long long)t.truncated, (unsigned long long)t.walks,
			(unsigned long long)t.faults, emul ? " (emulated PMU)" : "");
	}
}

static void module_close(struct record_session *s)
{
	struct module_state *m = s->priv;
	unsigned int cpu;

	if (!m)
		return;
	if (m->started)
		ioctl(m->fd, PMIPROF_IOC_STOP);
	module_print_stats(m);
	sideband_close(&m->sb);
	if (m->maps)
		for (cpu = 0; cpu < m->info.nr_cpus; cpu++)
			if (m->maps[cpu])
				munmap(m->maps[cpu], m->map_size);
	if (m->fd >= 0)
		close(m->fd);
	free(m->maps);
	free(m->rings);
	free(m->last_time);
	free(m->stats);
	free(m->stack_stats);
	free(m->recbuf);
	free(m);
	s->priv = NULL;
}

const struct backend_ops backend_module_ops = {
	.name = "module",
	.id = PMIPROF_BACKEND_MODULE,
	.probe = module_probe,
	.open = module_open,
	.synthesize = module_synthesize,
	.enable = module_enable,
	.poll_fds = module_poll_fds,
	.drain = module_drain,
	.disable = module_disable,
	.close = module_close,
};
