/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event names -> perf_event_attr encodings, shared by the recorder (record,
 * stat, list) and the report (which shows names and may re-resolve them).
 *
 * Accepted syntax, as perf spells it (comma-separated list):
 *   generic hardware  instructions, cycles, ref-cycles, cache-misses, ...
 *   hardware cache    LLC-load-misses, L1-dcache-loads, dTLB-load-misses, ...
 *   software          cpu-clock, task-clock, page-faults, context-switches, ...
 *   raw               rNNNN (hex config, PERF_TYPE_RAW)
 *   libpfm4           any name libpfm4 knows for this machine's PMU, e.g.
 *                     INST_RETIRED:ANY_P or skl::BR_MISP_RETIRED:ALL_BRANCHES
 *   topdown           the events of this CPU's top-down level-1 formula
 *                     (lib/topdown.c), no modifiers
 * Modifiers after a colon: u (user only), k (kernel only), h (hypervisor
 * only), any combination ("uk"), and T: this event is the trigger (the one
 * whose period closes windows).  Without T the first event is the trigger.
 * libpfm4 names take libpfm4's own modifiers (:u, :k, :c=2, :e, :t=1 ...);
 * the trailing :T is ours and is stripped before libpfm4 sees the name.
 */
#ifndef PMIPROF_EVENTS_H
#define PMIPROF_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmiprof/trace.h"

struct pm_event {
	char name[128];			/* as typed, without the :T marker */
	uint32_t type;			/* PERF_TYPE_* (or a dynamic PMU type) */
	uint64_t config;
	uint64_t config1;
	uint64_t config2;
	bool exclude_user;
	bool exclude_kernel;
	bool exclude_hv;
	bool software;			/* PERF_TYPE_SOFTWARE */
	bool time_based;		/* cpu-clock / task-clock: period is in ns */
	bool from_pfm;			/* encoded by libpfm4 */
	bool topdown;			/* one of the events "-e topdown" expanded to */
	bool group_lead;		/* must lead its group, not sampling (slots) */
};

struct pm_event_list {
	unsigned int nr;
	unsigned int trigger;		/* index of the trigger event */
	bool trigger_marked;		/* :T was given */
	struct pm_event ev[PMIPROF_MAX_EVENTS];
};

/*
 * Parse one event (no commas) into ev; *trigger set when :T was given.  The
 * comma-separated lists users type (with the topdown group) are parsed by
 * pm_events_parse() in event_list.h, above this file and topdown.h.
 */
int pm_event_parse_one(const char *spec, struct pm_event *ev, bool *trigger,
		       char *err, size_t err_len);

/*
 * Up to max (at most 3) closest known names to name (generic + libpfm4), best
 * first.  The strings stay valid until the next call (static storage).
 */
unsigned int pm_events_suggest(const char *name, const char **out, unsigned int max);

/* PMIPROF_EVENT_F_* flags of ev for the trace header (trigger set by caller). */
uint32_t pm_event_trace_flags(const struct pm_event *ev);
/* Fill a trace header event description from ev. */
void pm_event_to_desc(const struct pm_event *ev, bool trigger, struct trace_event_desc *d);

/* Iterate the built-in generic names: kind is "hardware", "cache", "software". */
struct pm_generic_event {
	const char *name;
	const char *alias;		/* or NULL */
	const char *kind;
	uint32_t type;
	uint64_t config;
	const char *desc;
};
size_t pm_generic_events_count(void);
const struct pm_generic_event *pm_generic_event_at(size_t i);

/*
 * libpfm4, loaded with dlopen() and initialised on first use: only record,
 * stat and list name events, and a report should not pay for relocating
 * libpfm's tables at every start (1.8 ms of CPU, ~290 page faults).
 * 0 or -errno (-ENOSYS: library missing or failed).  After 0, pm_pfm holds
 * the library's functions.
 */
int pm_pfm_init(void);
struct pm_pfm_api {
	int (*get_pmu_info)(int pmu, void *info);
	int (*get_event_next)(int idx);
	int (*get_event_info)(int idx, int os, void *info);
	int (*get_os_event_encoding)(const char *str, int dfl_plm, int os, void *arg);
};
extern struct pm_pfm_api pm_pfm;
/* Call fn for every event of every PMU libpfm4 reports as present. */
typedef void (*pm_pfm_event_fn)(void *arg, const char *pmu, const char *name,
				const char *desc);
int pm_pfm_for_each_event(pm_pfm_event_fn fn, void *arg);

#endif /* PMIPROF_EVENTS_H */
