// SPDX-License-Identifier: GPL-2.0
/*
 * The perf backend's group layout without a PMU (daemon/perf/perf_group.c): the
 * ordinary layout (the trigger leads and samples) is bit for bit what the
 * backend built before the PERF_METRICS layout existed, for several event
 * lists and options; the PERF_METRICS layout (slots leads without sampling,
 * the metric events count, the trigger samples as a member with
 * PERF_SAMPLE_READ|PERF_FORMAT_GROUP, the other events follow) with its
 * read order; the trigger picked for "-e topdown" there; and a synthetic
 * group-read sample in that read order decoded into header-order counts.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "perf/perf_decode.h"
#include "perf/perf_group.h"
#include "events.h"
#include "event_list.h"
#include "pmiprof/trace.h"

/* ---- the backend's attr building before perf_group.c, verbatim ---- */

struct old_state {
	bool exclude_kernel, build_id;
	uint64_t period, freq;
	uint32_t call_graph, dump_size, max_stack;
	unsigned int pages;
	size_t page_size;
};

#define DWARF_REGS_MASK		0xff0fffull
#define LEAF_REGS_MASK		((1ull << 6) | (1ull << 7) | (1ull << 8))

static void old_build_attr(const struct old_state *ps, const struct pm_event *ev, bool leader,
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
	a->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			 PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (ps->freq) {
		a->freq = 1;
		a->sample_freq = ps->freq;
	} else {
		a->sample_period = ps->period;
	}
	if (ps->call_graph) {
		a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
				  PERF_SAMPLE_STACK_USER;
		a->sample_max_stack = (uint16_t)ps->max_stack;
		a->sample_stack_user = ps->dump_size;
		a->exclude_callchain_kernel = ps->exclude_kernel;
		if (ps->call_graph == PMIPROF_CALL_GRAPH_DWARF) {
			a->sample_regs_user = DWARF_REGS_MASK;
			a->exclude_callchain_user = 1;
		} else {
			a->sample_regs_user = LEAF_REGS_MASK;
		}
	}
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(ps->pages * ps->page_size / 4);
	if (side_band) {
		a->mmap = 1;
		a->mmap2 = 1;
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1;
		a->build_id = ps->build_id;
	}
}

static void parse(const char *spec, struct pm_event_list *l)
{
	char err[256] = "";
	int ret = pm_events_parse(spec, l, err, sizeof(err));

	if (ret)
		fail_msg("'%s': %s", spec, err);
}

static void ordinary_layout_is_unchanged_bit_for_bit(void **state)
{
	static const char *const lists[] = {
		"cycles,instructions,cache-misses,branch-misses",
		"cpu-clock,task-clock,page-faults,context-switches",
		"instructions,cycles:T,cache-misses",
		"task-clock:u,page-faults:k,cpu-clock:T",
		"r003c,r00c0:T,LLC-load-misses",
		"cpu-clock",
	};
	static const struct old_state states[] = {
		{ .period = 512000, .pages = 256, .page_size = 4096, .build_id = true },
		{ .freq = 10000, .pages = 128, .page_size = 4096, .exclude_kernel = true },
		{ .period = 100, .pages = 2048, .page_size = 4096, .build_id = true,
		  .call_graph = PMIPROF_CALL_GRAPH_DWARF, .dump_size = 8192, .max_stack = 127 },
		{ .period = 1000000, .pages = 256, .page_size = 4096, .exclude_kernel = true,
		  .call_graph = PMIPROF_CALL_GRAPH_FP, .dump_size = 64, .max_stack = 64 },
	};
	size_t li, si;
	unsigned int flags;

	(void)state;
	for (li = 0; li < sizeof(lists) / sizeof(lists[0]); li++) {
		struct pm_event_list l;

		parse(lists[li], &l);
		for (si = 0; si < sizeof(states) / sizeof(states[0]); si++) {
			const struct old_state *ps = &states[si];

			for (flags = 0; flags < 8; flags++) {
				struct perf_group_opts o = {
					.period = ps->period, .freq = ps->freq,
					.inherit = flags & 1, .enable_on_exec = flags & 2,
					.side_band = flags & 4, .build_id = ps->build_id,
					.exclude_kernel = ps->exclude_kernel,
					.call_graph = ps->call_graph, .max_stack = ps->max_stack,
					.dump_size = ps->dump_size,
					.wakeup_watermark = (uint32_t)(ps->pages * ps->page_size / 4),
				};
				unsigned int old_order[PMIPROF_MAX_EVENTS], g, i, n = 1;
				struct perf_group grp;

				/* the old group_to_ev: trigger first, the rest in list order */
				old_order[0] = l.trigger;
				for (i = 0; i < l.nr; i++)
					if (i != l.trigger)
						old_order[n++] = i;
				assert_int_equal(perf_group_build(l.ev, l.nr, l.trigger, &o, &grp), 0);
				assert_false(grp.lead_group);
				assert_int_equal(grp.nr, l.nr);
				assert_int_equal(grp.sampler, 0);
				assert_int_equal(grp.side_band, 0);
				for (g = 0; g < l.nr; g++) {
					struct perf_event_attr want;

					assert_int_equal(grp.to_ev[g], old_order[g]);
					assert_int_equal(grp.leader[g], g ? 0 : -1);
					old_build_attr(ps, &l.ev[old_order[g]], g == 0, o.inherit,
						       o.enable_on_exec, o.side_band, &want);
					if (memcmp(&want, &grp.attr[g], sizeof(want)))
						fail_msg("'%s' state %zu flags %u: attr %u differs",
							 lists[li], si, flags, g);
				}
			}
		}
	}
}

/* ---- the PERF_METRICS layout ---- */

/* What td_expand gives on Ice Lake (lib/topdown.c's PERF_METRICS row). */
static void add_icl_topdown(struct pm_event_list *l)
{
	static const struct { const char *name; uint64_t config; } ev[] = {
		{ "slots", 0x0400 }, { "topdown-retiring", 0x8000 },
		{ "topdown-bad-spec", 0x8100 }, { "topdown-fe-bound", 0x8200 },
		{ "topdown-be-bound", 0x8300 },
	};
	size_t k;

	for (k = 0; k < 5; k++) {
		struct pm_event *e = &l->ev[l->nr++];

		memset(e, 0, sizeof(*e));
		snprintf(e->name, sizeof(e->name), "%s", ev[k].name);
		e->type = PERF_TYPE_RAW;
		e->config = ev[k].config;
		e->topdown = true;
		e->group_lead = k == 0;
	}
}

/* "cache-misses,topdown,instructions:T" on Ice Lake */
static void icl_list(struct pm_event_list *l)
{
	struct pm_event_list tail;

	parse("cache-misses", l);
	add_icl_topdown(l);
	parse("instructions:T", &tail);
	l->ev[l->nr] = tail.ev[0];
	l->trigger = l->nr++;
	l->trigger_marked = true;
}

static const struct perf_group_opts icl_opts = {
	.period = 2000003, .inherit = true, .enable_on_exec = true, .side_band = true,
	.build_id = true, .call_graph = PMIPROF_CALL_GRAPH_FP, .max_stack = 127,
	.dump_size = 64, .wakeup_watermark = 262144,
};

static void metrics_layout_slots_leads_without_sampling_trigger_samples(void **state)
{
	static const unsigned int want_order[] = { 1, 2, 3, 4, 5, 6, 0 };
	const uint64_t times = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	struct pm_event_list l;
	struct perf_group g;
	unsigned int i;

	(void)state;
	icl_list(&l);
	assert_int_equal(l.nr, 7);
	assert_true(perf_group_has_lead(l.ev, l.nr));
	assert_int_equal(perf_group_build(l.ev, l.nr, l.trigger, &icl_opts, &g), 0);
	assert_true(g.lead_group);
	assert_int_equal(g.nr, 7);
	assert_int_equal(g.sampler, 5);
	assert_int_equal(g.side_band, 0);
	for (i = 0; i < 7; i++) {
		const struct perf_event_attr *a = &g.attr[i];
		const struct pm_event *e = &l.ev[want_order[i]];
		bool side = i == 0;

		assert_int_equal(g.to_ev[i], want_order[i]);
		assert_int_equal(g.leader[i], i ? 0 : -1);
		assert_int_equal(a->type, e->type);
		assert_int_equal(a->config, e->config);
		assert_int_equal(a->inherit, 1);
		/* perf: the leader starts disabled (enabled at exec), members enabled */
		assert_int_equal(a->disabled, i == 0);
		assert_int_equal(a->enable_on_exec, i == 0);
		assert_int_equal(a->mmap2, side);
		assert_int_equal(a->comm, side);
		assert_int_equal(a->task, side);
		assert_int_equal(a->build_id, side);
		if (i == 5) {
			assert_true(a->sample_type & PERF_SAMPLE_READ);
			assert_true(a->sample_type & PERF_SAMPLE_CALLCHAIN);
			assert_int_equal(a->read_format, PERF_FORMAT_GROUP | times);
			assert_int_equal(a->sample_period, 2000003);
			assert_int_equal(a->watermark, 1);
			assert_int_equal(a->wakeup_watermark, 262144);
			continue;
		}
		/* nothing else samples: slots must not, metric events cannot */
		assert_int_equal(a->sample_period, 0);
		assert_int_equal(a->freq, 0);
		assert_false(a->sample_type & (PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN));
		/* PERF_FORMAT_GROUP on slots and each metric event, times only on the sampler */
		assert_int_equal(a->read_format, i < 5 ? PERF_FORMAT_GROUP : 0);
	}
	/* with frequency instead of period, still only the sampler has it */
	{
		struct perf_group_opts o = icl_opts;

		o.freq = 4000;
		assert_int_equal(perf_group_build(l.ev, l.nr, l.trigger, &o, &g), 0);
		for (i = 0; i < 7; i++) {
			assert_int_equal(g.attr[i].freq, i == 5);
			assert_int_equal(g.attr[i].sample_freq, i == 5 ? 4000 : 0);
		}
	}
	/* the trigger cannot be slots or a metric event */
	assert_int_equal(perf_group_build(l.ev, l.nr, 1, &icl_opts, &g), -EINVAL);
	assert_int_equal(perf_group_build(l.ev, l.nr, 3, &icl_opts, &g), -EINVAL);
}

static void topdown_alone_on_icl_gets_cycles_as_trigger(void **state)
{
	struct pm_event_list l, cyc;
	char err[256];

	(void)state;
	memset(&l, 0, sizeof(l));
	add_icl_topdown(&l);
	assert_int_equal(l.trigger, 0);		/* the default rule: slots */
	assert_int_equal(perf_group_pick_trigger(&l, err, sizeof(err)), 0);
	assert_int_equal(l.nr, 6);
	assert_int_equal(l.trigger, 5);
	parse("cycles", &cyc);
	assert_string_equal(l.ev[5].name, "cycles");
	assert_int_equal(l.ev[5].type, cyc.ev[0].type);
	assert_int_equal(l.ev[5].config, cyc.ev[0].config);
}

static void topdown_then_other_events_first_other_is_trigger(void **state)
{
	struct pm_event_list l, tail;
	char err[256];

	(void)state;
	memset(&l, 0, sizeof(l));
	add_icl_topdown(&l);
	parse("instructions,cache-misses", &tail);
	l.ev[l.nr++] = tail.ev[0];
	l.ev[l.nr++] = tail.ev[1];
	assert_int_equal(perf_group_pick_trigger(&l, err, sizeof(err)), 0);
	assert_int_equal(l.nr, 7);
	assert_int_equal(l.trigger, 5);		/* instructions, nothing appended */
	/* a :T trigger stays */
	icl_list(&l);
	assert_int_equal(perf_group_pick_trigger(&l, err, sizeof(err)), 0);
	assert_int_equal(l.trigger, 6);
	assert_int_equal(l.nr, 7);
}

static void lists_without_slots_leader_keep_their_trigger(void **state)
{
	struct pm_event_list l;
	char err[256];
	unsigned int i;

	(void)state;
	/* Skylake's topdown events carry no group_lead: the ordinary layout */
	parse("cycles,instructions", &l);
	for (i = 0; i < l.nr; i++)
		l.ev[i].topdown = true;
	assert_int_equal(perf_group_pick_trigger(&l, err, sizeof(err)), 0);
	assert_int_equal(l.trigger, 0);
	assert_int_equal(l.nr, 2);
	assert_false(perf_group_has_lead(l.ev, l.nr));
}

static void no_room_for_cycles_and_topdown_twice_refused(void **state)
{
	struct pm_event_list l;
	char err[256] = "";
	struct perf_group g;

	(void)state;
	memset(&l, 0, sizeof(l));
	add_icl_topdown(&l);
	add_icl_topdown(&l);
	add_icl_topdown(&l);
	assert_int_equal(perf_group_pick_trigger(&l, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "more than once"));
	assert_int_equal(perf_group_build(l.ev, l.nr, 0, &icl_opts, &g), -EINVAL);
	/* 16 events, all in the lead group: no room for cycles */
	memset(&l, 0, sizeof(l));
	add_icl_topdown(&l);
	while (l.nr < PMIPROF_MAX_EVENTS) {
		l.ev[l.nr] = l.ev[1];
		l.nr++;
	}
	assert_int_equal(perf_group_pick_trigger(&l, err, sizeof(err)), -E2BIG);
	assert_non_null(strstr(err, "cycles"));
}

/* ---- decoding a group read in the PERF_METRICS order ---- */

struct rec_buf {
	uint64_t w[32];
};

/* SAMPLE with IP, TID, TIME, CPU, READ{nr, enabled, running, values in group order}. */
static struct perf_event_header *group_sample(struct rec_buf *b, uint32_t tid, uint64_t time,
					       const uint64_t *values, unsigned int nr)
{
	struct perf_event_header *h = (void *)b->w;
	uint64_t *p = (uint64_t *)(h + 1);
	unsigned int i;

	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_USER;
	p[0] = 0x401000;
	p[1] = ((uint64_t)tid << 32) | tid;
	p[2] = time;
	p[3] = 0;
	p[4] = nr;
	p[5] = time;
	p[6] = time;
	for (i = 0; i < nr; i++)
		p[7 + i] = values[i];
	h->size = (uint16_t)(sizeof(*h) + (7 + nr) * 8);
	return h;
}

static void group_read_in_metrics_order_decodes_to_header_order(void **state)
{
	/* header order: cache-misses, slots, retiring, bad-spec, fe-bound, be-bound, instructions */
	static const uint64_t first_hdr[] = { 70, 1000, 400, 100, 200, 300, 500 };
	static const uint64_t second_hdr[] = { 170, 3000, 1400, 300, 500, 800, 1700 };
	uint64_t read1[7], read2[7];
	struct pm_event_list l;
	struct perf_group g;
	struct perf_decoder d;
	struct record_stats stats;
	struct trace_header h;
	struct trace_writer *w;
	struct trace_reader *r;
	struct trace_record rec;
	struct rec_buf b;
	char path[] = "/tmp/pmiprof-group.XXXXXX";
	unsigned int i, n = 0;
	int fd;

	(void)state;
	icl_list(&l);
	assert_int_equal(perf_group_build(l.ev, l.nr, l.trigger, &icl_opts, &g), 0);
	/* what the kernel puts in the sample: leader first, members in group order */
	for (i = 0; i < g.nr; i++) {
		read1[i] = first_hdr[g.to_ev[i]];
		read2[i] = second_hdr[g.to_ev[i]];
	}
	assert_int_equal(read1[0], 1000);	/* slots leads the read */
	assert_int_equal(read1[5], 500);	/* the trigger after the metrics */
	assert_int_equal(read1[6], 70);

	memset(&h, 0, sizeof(h));
	memset(&stats, 0, sizeof(stats));
	h.nr_events = l.nr;
	for (i = 0; i < l.nr; i++)
		pm_event_to_desc(&l.ev[i], i == l.trigger, &h.events[i]);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(trace_writer_fdopen(&w, fd, &h, NULL), 0);
	assert_int_equal(perf_decoder_init(&d, l.nr, 4, &stats), 0);
	memcpy(d.group_to_ev, g.to_ev, sizeof(g.to_ev));
	d.per_task = true;
	d.trigger = l.trigger;
	d.tops.no_proc = true;
	assert_int_equal(perf_decode_record(&d, 0, w, group_sample(&b, 10, 100, read1, 7)), 0);
	assert_int_equal(perf_decode_record(&d, 0, w, group_sample(&b, 10, 200, read2, 7)), 0);
	assert_int_equal(trace_writer_close(w), 0);
	perf_decoder_free(&d);

	assert_int_equal(trace_reader_open(&r, path, NULL, NULL), 0);
	while (trace_reader_next(r, &rec) == 1) {
		if (rec.type != PMIPROF_REC_SAMPLE)
			continue;
		assert_int_equal(rec.sample.nr, 7);
		for (i = 0; i < 7; i++)
			assert_int_equal(rec.sample.counts[i],
					 n ? second_hdr[i] - first_hdr[i] : first_hdr[i]);
		assert_int_equal(!!(rec.sample.flags & PMIPROF_SAMPLE_F_FIRST), n == 0);
		n++;
	}
	trace_reader_close(r);
	unlink(path);
	assert_int_equal(n, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ordinary_layout_is_unchanged_bit_for_bit),
		cmocka_unit_test(metrics_layout_slots_leads_without_sampling_trigger_samples),
		cmocka_unit_test(topdown_alone_on_icl_gets_cycles_as_trigger),
		cmocka_unit_test(topdown_then_other_events_first_other_is_trigger),
		cmocka_unit_test(lists_without_slots_leader_keep_their_trigger),
		cmocka_unit_test(no_room_for_cycles_and_topdown_twice_refused),
		cmocka_unit_test(group_read_in_metrics_order_decodes_to_header_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
