/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The perf backend's event group as perf_event_attr values, built without
 * opening anything (so unit tests check it on machines without a PMU):
 * which event leads, which one samples, and in which order a sample's
 * PERF_SAMPLE_READ|PERF_FORMAT_GROUP read returns the counts.
 *
 * Ordinary layout: the trigger leads and samples, reading the group; the
 * other events follow in list order, counting.
 *
 * Lead-group layout (PERF_METRICS: Intel "slots" + topdown-* metric events
 * from "-e topdown" on Ice Lake and later): the kernel takes the metric
 * events only in a group led by slots, and only when slots does not sample
 * (arch/x86/events/intel/core.c, intel_pmu_hw_config).  So slots leads,
 * counting, the metric events follow, counting, then the trigger as the one
 * sampling member, then the other events.  A member's PERF_SAMPLE_READ with
 * PERF_FORMAT_GROUP reads the whole group, leader first (kernel
 * perf_output_read_group), so samples carry the same counts as in the
 * ordinary layout, only in another order: to_ev[] maps it back.  As perf
 * does, the leader starts disabled and rules the group, the members
 * (the sampler too) are created enabled; the leader carries the side-band.
 */
#ifndef PMIPROF_DAEMON_PERF_GROUP_H
#define PMIPROF_DAEMON_PERF_GROUP_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events.h"

/*
 * perf's user register set for --call-graph dwarf on x86-64 (PERF_REGS_MASK
 * in tools/perf/arch/x86/include/perf_regs.h): every PERF_REG_X86_* below
 * PERF_REG_X86_64_MAX except the segment registers ds, es, fs, gs.
 */
#define PERF_GROUP_DWARF_REGS	0xff0fffull
/* fp leaf fix-up: bp, sp, ip */
#define PERF_GROUP_LEAF_REGS	((1ull << 6) | (1ull << 7) | (1ull << 8))

struct perf_group_opts {
	uint64_t period, freq;		/* the trigger's; freq used when non-zero */
	bool inherit;
	bool enable_on_exec;
	bool side_band;			/* MMAP2/COMM/TASK records (see side_band below) */
	bool build_id;			/* in MMAP2 (kernel >= 5.12) */
	bool exclude_kernel;		/* user-only fallback, for every event */
	uint32_t call_graph;		/* PMIPROF_CALL_GRAPH_* */
	uint32_t max_stack, dump_size;
	uint32_t wakeup_watermark;	/* ring bytes before the recorder is woken */
};

struct perf_group {
	unsigned int nr;
	bool lead_group;		/* a non-sampling leader (PERF_METRICS) */
	unsigned int sampler;		/* group position of the sampling event */
	unsigned int side_band;		/* position carrying the side-band bits */
	unsigned int to_ev[PMIPROF_MAX_EVENTS];	/* group (read) position -> list index */
	int leader[PMIPROF_MAX_EVENTS];		/* position of the group fd to pass, or -1 */
	struct perf_event_attr attr[PMIPROF_MAX_EVENTS];	/* in group position order */
};

/*
 * Whether ev[0..nr) holds a lead group: an event with group_lead (slots)
 * and the topdown events expanded with it.
 */
bool perf_group_has_lead(const struct pm_event *ev, unsigned int nr);
/* Whether ev[i] belongs to the lead group of such a list (cannot sample). */
bool perf_group_in_lead(const struct pm_event *ev, unsigned int nr, unsigned int i);

/*
 * The group of ev[0..nr) with ev[trigger] sampling.  0, or -EINVAL when the
 * trigger is in the lead group or there is more than one lead group.
 */
int perf_group_build(const struct pm_event *ev, unsigned int nr, unsigned int trigger,
		     const struct perf_group_opts *o, struct perf_group *g);

/* The attr of a sampling event alone (the side-band dummy starts from it). */
void perf_group_sampler_attr(const struct pm_event *ev, const struct perf_group_opts *o,
			     struct perf_event_attr *a);

/*
 * A list with a lead group but no trigger allowed to sample (the default
 * rule takes the first event, slots): the trigger becomes the first event
 * outside the lead group, else "cycles", appended.  Lists without a lead
 * group are left alone.  0, or -E2BIG/-EINVAL with a message in err.
 */
int perf_group_pick_trigger(struct pm_event_list *l, char *err, size_t err_len);

#endif /* PMIPROF_DAEMON_PERF_GROUP_H */
