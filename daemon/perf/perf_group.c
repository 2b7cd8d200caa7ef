// SPDX-License-Identifier: GPL-2.0
/*
 * The perf backend's event group: perf_event_attr values, group leaders and
 * the read order, for the ordinary layout (trigger leads and samples) and
 * the PERF_METRICS one (slots leads without sampling, the trigger samples as
 * a member).  See perf_group.h.
 *
 * perf does the same for "perf record -e '{slots,...}:S'": with a slots
 * leader of a topdown group (tools/perf/arch/x86/util/topdown.c,
 * arch_topdown_sample_read(); topdown_sys_has_perf_metrics()), the group's
 * sampler is a member, not the leader (tools/perf/util/record.c,
 * evsel__read_sampler()), and slots then the topdown events come first in
 * the group (tools/perf/arch/x86/util/evlist.c, arch_evlist__leader(), now
 * arch_evlist__cmp()).  perf's tools/perf/Documentation/topdown.txt ("Limits
 * on Ice Lake"): metric events in a group led by slots, PERF_FORMAT_GROUP on
 * each metric event, slots and the metric events as counting members of a
 * sampling read group.
 */
#include "perf/perf_group.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "pmiprof/trace.h"
#include "util.h"

static unsigned int nr_leads(const struct pm_event *ev, unsigned int nr)
{
	unsigned int i, n = 0;

	for (i = 0; i < nr; i++)
		n += ev[i].group_lead;
	return n;
}

bool perf_group_has_lead(const struct pm_event *ev, unsigned int nr)
{
	return nr_leads(ev, nr) > 0;
}

bool perf_group_in_lead(const struct pm_event *ev, unsigned int nr, unsigned int i)
{
	return i < nr && perf_group_has_lead(ev, nr) && (ev[i].group_lead || ev[i].topdown);
}

/* Every event: counting, no sampling, the group's clock and privilege filter. */
static void counter_attr(const struct pm_event *ev, const struct perf_group_opts *o,
			 struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = ev->type;
	a->config = ev->config;
	a->config1 = ev->config1;
	a->config2 = ev->config2;
	a->exclude_user = ev->exclude_user;
	a->exclude_kernel = ev->exclude_kernel || o->exclude_kernel;
	a->exclude_hv = ev->exclude_hv || o->exclude_kernel;
	a->inherit = o->inherit;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->sample_id_all = 1;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
}

/* Created disabled, enabled by exec or by the recorder: the group starts as one. */
static void starts_disabled(const struct perf_group_opts *o, struct perf_event_attr *a)
{
	a->disabled = 1;
	a->enable_on_exec = o->enable_on_exec;
}

/* Sampling with the group's counts in every sample (PERF_SAMPLE_READ). */
static void sampling_attr(const struct perf_group_opts *o, struct perf_event_attr *a)
{
	a->sample_type |= PERF_SAMPLE_READ;
	/* the times tell whether the group was ever scheduled, or multiplexed */
	a->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			 PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (o->freq) {
		a->freq = 1;
		a->sample_freq = o->freq;
	} else {
		a->sample_period = o->period;
	}
	/*
	 * Call stacks as perf sets them (evsel__config_callchain): the kernel's
	 * callchain with sample_max_stack; fp adds the user regs and top words
	 * of the user stack for the leaf fix-up, dwarf the full user register
	 * set and SIZE stack bytes with the user part of the callchain off.
	 */
	if (o->call_graph) {
		a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
				  PERF_SAMPLE_STACK_USER;
		a->sample_max_stack = (uint16_t)o->max_stack;
		a->sample_stack_user = o->dump_size;
		a->exclude_callchain_kernel = o->exclude_kernel;
		if (o->call_graph == PMIPROF_CALL_GRAPH_DWARF) {
			a->sample_regs_user = PERF_GROUP_DWARF_REGS;
			a->exclude_callchain_user = 1;
		} else {
			a->sample_regs_user = PERF_GROUP_LEAF_REGS;
		}
	}
	/* Wake the recorder when a quarter of the ring is used: few wakeups. */
	a->watermark = 1;
	a->wakeup_watermark = o->wakeup_watermark;
}

/*
 * MMAP2/COMM/FORK/EXIT from an event that starts disabled (a leader), so
 * they begin with the counting, not at open.
 */
static void side_band_attr(const struct perf_group_opts *o, struct perf_event_attr *a)
{
	if (!o->side_band)
		return;
	a->mmap = 1;		/* the kernel counts mmap listeners by this bit */
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->build_id = o->build_id;
}

void perf_group_sampler_attr(const struct pm_event *ev, const struct perf_group_opts *o,
			     struct perf_event_attr *a)
{
	counter_attr(ev, o, a);
	starts_disabled(o, a);
	sampling_attr(o, a);
	side_band_attr(o, a);
}

int perf_group_build(const struct pm_event *ev, unsigned int nr, unsigned int trigger,
		     const struct perf_group_opts *o, struct perf_group *g)
{
	unsigned int i, n = 0, lead = 0;

	memset(g, 0, sizeof(*g));
	if (!nr || nr > PMIPROF_MAX_EVENTS || trigger >= nr || nr_leads(ev, nr) > 1)
		return -EINVAL;
	g->lead_group = perf_group_has_lead(ev, nr);
	if (g->lead_group && perf_group_in_lead(ev, nr, trigger))
		return -EINVAL;
	if (g->lead_group) {
		for (i = 0; i < nr; i++)
			if (ev[i].group_lead)
				lead = i;
		g->to_ev[n++] = lead;
		for (i = 0; i < nr; i++)
			if (i != lead && perf_group_in_lead(ev, nr, i))
				g->to_ev[n++] = i;
	}
	g->sampler = n;
	g->to_ev[n++] = trigger;
	for (i = 0; i < nr; i++)
		if (i != trigger && !perf_group_in_lead(ev, nr, i))
			g->to_ev[n++] = i;
	g->nr = n;
	for (i = 0; i < n; i++) {
		struct perf_event_attr *a = &g->attr[i];

		g->leader[i] = i ? 0 : -1;
		if (!g->lead_group) {
			if (i == g->sampler)
				perf_group_sampler_attr(&ev[g->to_ev[i]], o, a);
			else
				counter_attr(&ev[g->to_ev[i]], o, a);
			continue;
		}
		/*
		 * perf's rule (evsel__config): the leader starts disabled and
		 * rules the group, members are created enabled; a member created
		 * disabled and enabled later may never sample (a cpu-clock
		 * sampler here did not).  The side-band goes on the leader, so
		 * it starts with the counting; the ring takes its records too.
		 */
		counter_attr(&ev[g->to_ev[i]], o, a);
		if (i == g->sampler) {
			sampling_attr(o, a);
			continue;
		}
		if (i > g->sampler)
			continue;
		/*
		 * slots and the metric events: PERF_FORMAT_GROUP on each (perf's
		 * topdown.txt), no sampling.  No times, so that only the
		 * sampler's read has them.
		 */
		a->read_format = PERF_FORMAT_GROUP;
		if (!i) {
			starts_disabled(o, a);
			side_band_attr(o, a);
		}
	}
	g->side_band = g->lead_group ? 0 : g->sampler;
	return 0;
}

int perf_group_pick_trigger(struct pm_event_list *l, char *err, size_t err_len)
{
	struct pm_event *ev;
	unsigned int i;
	bool trig;
	int ret;

	if (!perf_group_has_lead(l->ev, l->nr))
		return 0;
	if (nr_leads(l->ev, l->nr) > 1)
		return pm_set_err(err, err_len, -EINVAL, "topdown given more than once: its events "
			       "form one group");
	if (!perf_group_in_lead(l->ev, l->nr, l->trigger))
		return 0;
	for (i = 0; i < l->nr; i++) {
		if (!perf_group_in_lead(l->ev, l->nr, i)) {
			l->trigger = i;
			return 0;
		}
	}
	if (l->nr == PMIPROF_MAX_EVENTS)
		return pm_set_err(err, err_len, -E2BIG, "too many events: topdown here also needs "
			       "'cycles' as trigger, at most %d per recording", PMIPROF_MAX_EVENTS);
	ev = &l->ev[l->nr];
	ret = pm_event_parse_one("cycles", ev, &trig, err, err_len);
	if (ret)
		return ret;
	l->trigger = l->nr++;
	return 0;
}
