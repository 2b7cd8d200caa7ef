// SPDX-License-Identifier: GPL-2.0
/*
 * test_pmu_task.c - per-task save/restore (kernel/pmu_task.c) against the
 * MSR model: tasks switched in and out at random points, a competitor
 * running in between with nothing loaded, and a PMI (NMI) delivered before
 * any MSR access of a switch.  What must hold: each task's windows plus
 * its open (partial) window are exactly the events it ran, the competitor
 * is counted nowhere, every window is closed once, and a switch costs
 * 1 + n MSR accesses out and n + 1 in (n events) with global controls.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "kcore.h"

#define N 100000ull
#define NTASKS 3

/*
 * MSR ops wrapper: counts accesses, delivers the pending PMI before access
 * number inj_at, or after access number inj_post.  With inj_adv the CPU
 * first runs that many instructions there (as between two instructions of
 * the switch code), credited to w_task when our counters count them.
 */
struct task;
static struct kcore *w_k;
static int inj_at = -1, inj_post = -1, w_count;
static u64 inj_adv;
static struct task *w_task;
static bool w_busy;
static u64 w_pmis;
static void w_credit(struct task *t, u64 ins, u64 cyc);

static void w_deliver(struct pmu_cpu *pc)
{
	const struct pmu_hw *hw = pc->hw;
	struct pmi_ctx ctx;

	w_busy = true;
	if (inj_adv) {
		u32 c0 = hw->slots[0].ctr_msr, c1 = hw->slots[1].ctr_msr;
		u64 a0 = pmiprof_pmu_model_msr_ops.rd(pc, c0), a1 = pmiprof_pmu_model_msr_ops.rd(pc, c1);

		pmiprof_pmu_model_advance(&w_k->model, inj_adv, inj_adv + inj_adv / 2);
		w_credit(w_task, (pmiprof_pmu_model_msr_ops.rd(pc, c0) - a0) & hw->slots[0].mask,
			 (pmiprof_pmu_model_msr_ops.rd(pc, c1) - a1) & hw->slots[1].mask);
	}
	while (w_k->model.pmi_pending) {
		w_k->model.pmi_pending--;
		ctx = kcore_ctx(w_k);
		/* 0 for a second PMI of the same overflow (the model raised two) */
		w_pmis += pc->hw->drv->handle_pmi(pc, &ctx);
	}
	w_busy = false;
}

static void w_inject(struct pmu_cpu *pc)
{
	if (w_busy)
		return;
	if (inj_at >= 0 && w_count == inj_at && (inj_adv || w_k->model.pmi_pending))
		w_deliver(pc);
	w_count++;
}

static void w_inject_post(struct pmu_cpu *pc)
{
	if (!w_busy && inj_post >= 0 && w_count - 1 == inj_post)
		w_deliver(pc);
}

static u64 w_rd(struct pmu_cpu *pc, u32 msr)
{
	u64 v;

	w_inject(pc);
	v = pmiprof_pmu_model_msr_ops.rd(pc, msr);
	w_inject_post(pc);
	return v;
}

static void w_wr(struct pmu_cpu *pc, u32 msr, u64 val)
{
	w_inject(pc);
	pmiprof_pmu_model_msr_ops.wr(pc, msr, val);
	w_inject_post(pc);
}

static void w_lvtpc(struct pmu_cpu *pc)
{
	pmiprof_pmu_model_msr_ops.lvtpc(pc);
}

static struct pmu_msr_ops w_ops;

struct task {
	struct pmu_task_ctr ctr;
	u64 ran_ins, ran_cyc;		/* what it executed */
	u64 rec_ins, rec_cyc;		/* its closed windows */
	u64 windows;
};

static void w_credit(struct task *t, u64 ins, u64 cyc)
{
	if (!t)
		return;
	t->ran_ins += ins;
	t->ran_cyc += cyc;
}

static void setup(struct kcore *k, u32 vendor, u32 version)
{
	struct pmu_model_spec spec;
	struct pmiprof_event ev[2];

	pmiprof_pmu_model_spec_default(&spec, vendor);
	if (version)
		spec.version = version;
	assert_int_equal(kcore_setup(k, &spec), 0);
	ev[0] = kcore_ev(0xc0, 0, true, N);
	ev[1] = kcore_ev(vendor == PMIPROF_VENDOR_AMD ? 0x76 : 0x3c, 0, false, 0);
	assert_int_equal(kcore_configure(k, ev, 2, 0, N), 0);
	assert_int_equal(kcore_start(k), 0);
	w_ops = pmiprof_pmu_model_msr_ops;
	w_ops.rd = w_rd;
	w_ops.wr = w_wr;
	w_ops.lvtpc = w_lvtpc;
	k->hw.ops = &w_ops;
	w_k = k;
	inj_at = -1;
	inj_post = -1;
	inj_adv = 0;
	w_task = NULL;
	w_busy = false;
	pmiprof_pmu_task_freeze(&k->pc);	/* as at START: nothing counts until a task comes in */
}

/* Closed windows since @from go to @t. */
static void credit(struct task *t, size_t from)
{
	size_t i;

	for (i = from; i < kcore_nrecs; i++) {
		assert_int_equal(kcore_recs[i].nr, 2);
		/* a window closed twice (handler and switch) leaves an empty second one */
		assert_true(kcore_recs[i].counts[0] > 0);
		t->rec_ins += kcore_recs[i].counts[0];
		t->rec_cyc += kcore_recs[i].counts[1];
		t->windows++;
	}
}

/* Run @ins instructions in steps (PMIs taken after each, unless @hold). */
static void run(struct kcore *k, struct task *t, u64 ins, u32 *x, bool hold)
{
	while (ins) {
		u64 step;

		*x = *x * 1103515245u + 12345u;
		step = 1 + (*x >> 8) % (N / 3);
		if (step > ins)
			step = ins;
		pmiprof_pmu_model_advance(&k->model, step, step + step / 2);
		if (t) {
			t->ran_ins += step;
			t->ran_cyc += step + step / 2;
		}
		ins -= step;
		if (!hold)
			kcore_take_pmis(k);
	}
}

static void check_tasks(struct kcore *k, struct task *ts, u32 n)
{
	u64 part[PMU_MAX_EVENTS];
	u32 i;

	for (i = 0; i < n; i++) {
		pmiprof_pmu_task_partial(&k->hw, &ts[i].ctr, part);
		assert_true(part[0] < N || ts[i].ran_ins == 0);
		assert_int_equal(ts[i].rec_ins + part[0], ts[i].ran_ins);
		assert_int_equal(ts[i].rec_cyc + part[1], ts[i].ran_cyc);
		/* overflows stay on multiples of N of the task's events (missed ones merge) */
		assert_true(ts[i].windows <= ts[i].ran_ins / N);
	}
}

/*
 * Random schedule of three tasks and a competitor; the switch-out
 * sometimes comes with an overflow whose PMI was not taken yet, and the
 * PMI lands before MSR access number @inj of the switch.
 */
static void scenario(u32 vendor, u32 version, int inj, u32 seed)
{
	struct kcore k;
	struct task ts[NTASKS];
	u32 x = seed, i;
	int cur = -1;

	memset(ts, 0, sizeof(ts));
	setup(&k, vendor, version);
	for (i = 0; i < NTASKS; i++)
		pmiprof_pmu_task_init(&k.hw, &ts[i].ctr);
	for (i = 0; i < 300; i++) {
		struct pmi_ctx ctx = kcore_ctx(&k);
		size_t from = kcore_nrecs;
		int next;

		x = x * 1103515245u + 12345u;
		next = (int)((x >> 8) % (NTASKS + 1)) - 1;	/* -1: the competitor */
		if (cur >= 0) {
			/* half the time an overflow is pending, its PMI not taken */
			bool hold = (x >> 20) & 1;

			run(&k, &ts[cur], 1 + (x >> 4) % (2 * N), &x, hold);
			credit(&ts[cur], from);
			from = kcore_nrecs;
			inj_at = inj;
			w_count = 0;
			pmiprof_pmu_task_out(&k.pc, &ts[cur].ctr, &ctx);
			inj_at = -1;
			credit(&ts[cur], from);
			/* a PMI still pending after the switch is stale: acked, no window */
			from = kcore_nrecs;
			kcore_take_pmis(&k);
			assert_int_equal(kcore_nrecs, from);
		} else {
			/* the competitor: nothing loaded, nothing counts, no PMI */
			run(&k, NULL, 1 + (x >> 4) % (3 * N), &x, false);
			assert_int_equal(kcore_nrecs, from);
		}
		if (next >= 0)
			pmiprof_pmu_task_in(&k.pc, &ts[next].ctr);
		cur = next;
	}
	if (cur >= 0) {
		struct pmi_ctx ctx = kcore_ctx(&k);
		size_t from = kcore_nrecs;

		pmiprof_pmu_task_out(&k.pc, &ts[cur].ctr, &ctx);
		credit(&ts[cur], from);
	}
	check_tasks(&k, ts, NTASKS);
	for (i = 0; i < NTASKS; i++)
		assert_true(ts[i].windows > 10);
	k.hw.ops = &pmiprof_pmu_model_msr_ops;
	kcore_stop(&k);
}

static void task_windows_exact_across_switches_intel(void **state)
{
	(void)state;
	scenario(PMIPROF_VENDOR_INTEL, 0, -1, 7);
	scenario(PMIPROF_VENDOR_INTEL, 2, -1, 8);
}

static void task_windows_exact_across_switches_amd(void **state)
{
	(void)state;
	scenario(PMIPROF_VENDOR_AMD, 2, -1, 9);
	scenario(PMIPROF_VENDOR_AMD, 1, -1, 10);	/* no global control: EVENTSEL freeze */
}

/* The NMI before each access of the switch-out, in turn. */
static void task_windows_exact_with_pmi_mid_switch(void **state)
{
	int inj;

	(void)state;
	w_pmis = 0;
	for (inj = 0; inj < 8; inj++) {
		scenario(PMIPROF_VENDOR_INTEL, 0, inj, 100 + (u32)inj);
		scenario(PMIPROF_VENDOR_AMD, 2, inj, 200 + (u32)inj);
		scenario(PMIPROF_VENDOR_AMD, 1, inj, 300 + (u32)inj);
	}
	assert_true(w_pmis > 0);	/* some landed on a wrapped trigger mid-switch */
}

/*
 * A PMI at every step of a switch, in and out: before and after each MSR
 * access, with the CPU running 20 instructions there, the task's trigger
 * 10 events from its overflow.  Whichever access it follows, the window
 * closes once, the task keeps getting windows afterwards (one per N), and
 * windows + the open one are exactly what it ran.  Before the fix, a PMI
 * right after task_in's unfreeze was only acked: 0 windows over 5 periods.
 */
static void one_step(u32 vendor, u32 version, bool in, bool post, int at, u32 *x)
{
	struct kcore k;
	struct task a;
	struct pmi_ctx ctx;
	size_t from;

	memset(&a, 0, sizeof(a));
	setup(&k, vendor, version);
	pmiprof_pmu_task_init(&k.hw, &a.ctr);
	ctx = kcore_ctx(&k);
	/* the trigger 10 events from its overflow */
	pmiprof_pmu_task_in(&k.pc, &a.ctr);
	pmiprof_pmu_model_advance(&k.model, N - 10, N - 10 + (N - 10) / 2);
	a.ran_ins = N - 10;
	a.ran_cyc = N - 10 + (N - 10) / 2;
	pmiprof_pmu_task_out(&k.pc, &a.ctr, &ctx);
	assert_int_equal(kcore_nrecs, 0);
	w_task = &a;
	inj_adv = 20;
	w_count = 0;
	from = kcore_nrecs;
	if (in) {
		*(post ? &inj_post : &inj_at) = at;
		pmiprof_pmu_task_in(&k.pc, &a.ctr);
	} else {
		pmiprof_pmu_task_in(&k.pc, &a.ctr);
		w_count = 0;
		*(post ? &inj_post : &inj_at) = at;
		pmiprof_pmu_task_out(&k.pc, &a.ctr, &ctx);
		credit(&a, from);
		from = kcore_nrecs;
		pmiprof_pmu_task_in(&k.pc, &a.ctr);
	}
	inj_at = inj_post = -1;
	inj_adv = 0;
	w_task = NULL;
	assert_true(w_count > at);		/* the access exists */
	run(&k, &a, 5 * N, x, false);
	pmiprof_pmu_task_out(&k.pc, &a.ctr, &ctx);
	credit(&a, from);
	check_tasks(&k, &a, 1);
	/* 5 N + the 20 run at the injection, from 10 before an overflow */
	if (a.windows < 5)
		fail_msg("%s v%u: PMI %s access %d of task_%s: %llu windows over %llu events",
			 vendor == PMIPROF_VENDOR_AMD ? "amd" : "intel", k.hw.version,
			 post ? "after" : "before", at, in ? "in" : "out",
			 (unsigned long long)a.windows, (unsigned long long)a.ran_ins);
	k.hw.ops = &pmiprof_pmu_model_msr_ops;
	kcore_stop(&k);
}

static void task_pmi_at_every_step_of_both_switches(void **state)
{
	static const struct {
		u32 vendor, version;
	} c[] = {
		{ PMIPROF_VENDOR_INTEL, 0 }, { PMIPROF_VENDOR_INTEL, 2 },
		{ PMIPROF_VENDOR_AMD, 2 }, { PMIPROF_VENDOR_AMD, 1 },
	};
	u32 i, x = 77, steps = 0;
	int at, dir, post;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		for (dir = 0; dir < 2; dir++)
			for (post = 0; post < 2; post++)
				/* at most 2 + 2 EVENTSEL accesses per switch here */
				for (at = 0; at < 4; at++) {
					struct kcore probe;
					struct pmu_task_ctr t;
					struct pmi_ctx ctx;
					int n;

					setup(&probe, c[i].vendor, c[i].version);
					pmiprof_pmu_task_init(&probe.hw, &t);
					ctx = kcore_ctx(&probe);
					w_count = 0;
					pmiprof_pmu_task_in(&probe.pc, &t);
					n = w_count;
					if (!dir) {
						w_count = 0;
						pmiprof_pmu_task_out(&probe.pc, &t, &ctx);
						n = w_count;
					}
					probe.hw.ops = &pmiprof_pmu_model_msr_ops;
					kcore_stop(&probe);
					if (at >= n)
						continue;
					one_step(c[i].vendor, c[i].version, dir, post, at, &x);
					steps++;
				}
	print_message("%u injection points\n", steps);
	assert_true(steps >= 40);
}

/*
 * START arms the counters (start_cpu) before the per-task freeze: a PMI in
 * between closes a window of whatever ran, no followed task's.  Dropped
 * and counted, never attributed to the interrupted task.
 */
static void task_window_before_the_freeze_is_dropped(void **state)
{
	struct kcore k;
	struct pmu_task_ctr t;
	struct pmi_ctx ctx;

	(void)state;
	setup(&k, PMIPROF_VENDOR_INTEL, 0);
	k.pc.task_mode = true;
	/* undo setup()'s freeze: the counters run as start_cpu() left them */
	pmiprof_pmu_model_msr_ops.wr(&k.pc, PMU_MSR_IA32_GLOBAL_CTRL, k.hw.own_mask);
	k.pc.gctrl = k.hw.own_mask;
	pmiprof_pmu_model_advance(&k.model, N + 10, N);
	kcore_take_pmis(&k);
	assert_int_equal(kcore_nrecs, 0);
	assert_int_equal(k.pc.task_orphans, 1);
	/* a loaded task's windows are recorded */
	pmiprof_pmu_task_freeze(&k.pc);
	pmiprof_pmu_task_init(&k.hw, &t);
	t.pid = 4242;
	t.tid = 4243;
	pmiprof_pmu_task_in(&k.pc, &t);
	pmiprof_pmu_model_advance(&k.model, N, N);
	kcore_take_pmis(&k);
	assert_int_equal(kcore_nrecs, 1);
	ctx = kcore_ctx(&k);
	pmiprof_pmu_task_out(&k.pc, &t, &ctx);
	k.hw.ops = &pmiprof_pmu_model_msr_ops;
	kcore_stop(&k);
}

/* A window spanning switches closes after exactly N events of its task. */
static void task_window_spans_switches_exactly(void **state)
{
	struct kcore k;
	struct task a, b;
	struct pmi_ctx ctx;
	u32 x = 1;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	setup(&k, PMIPROF_VENDOR_INTEL, 0);
	pmiprof_pmu_task_init(&k.hw, &a.ctr);
	pmiprof_pmu_task_init(&k.hw, &b.ctr);
	ctx = kcore_ctx(&k);
	/* a runs 0.4 N, b 0.9 N, a 0.6 N: a's first window closes now, exactly */
	pmiprof_pmu_task_in(&k.pc, &a.ctr);
	pmiprof_pmu_model_advance(&k.model, 4 * N / 10, 1);
	pmiprof_pmu_task_out(&k.pc, &a.ctr, &ctx);
	pmiprof_pmu_task_in(&k.pc, &b.ctr);
	pmiprof_pmu_model_advance(&k.model, 9 * N / 10, 1);
	pmiprof_pmu_task_out(&k.pc, &b.ctr, &ctx);
	assert_int_equal(kcore_nrecs, 0);
	pmiprof_pmu_task_in(&k.pc, &a.ctr);
	pmiprof_pmu_model_advance(&k.model, 6 * N / 10, 1);
	kcore_take_pmis(&k);
	assert_int_equal(kcore_nrecs, 1);
	assert_int_equal(kcore_recs[0].counts[0], N);
	(void)x;
	k.hw.ops = &pmiprof_pmu_model_msr_ops;
	kcore_stop(&k);
}

/* MSR accesses per switch: the figure docs/kernel-module.md compares with perf. */
static void task_switch_msr_accesses(void **state)
{
	static const struct {
		u32 vendor, version, out, in;
	} c[] = {
		{ PMIPROF_VENDOR_INTEL, 0, 1 + 2, 2 + 1 },
		{ PMIPROF_VENDOR_AMD, 2, 1 + 2, 2 + 1 },
		{ PMIPROF_VENDOR_AMD, 1, 1 + 2, 2 + 1 },	/* n EVENTSEL writes, here n = 2 */
	};
	u32 i;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct kcore k;
		struct pmu_task_ctr t;
		struct pmi_ctx ctx;
		u32 nr_gp_slots = 0, s;

		setup(&k, c[i].vendor, c[i].version);
		for (s = 0; s < k.hw.nr_events; s++)
			nr_gp_slots += k.hw.slots[s].kind == PMU_SLOT_GP;
		pmiprof_pmu_task_init(&k.hw, &t);
		ctx = kcore_ctx(&k);
		w_count = 0;
		pmiprof_pmu_task_in(&k.pc, &t);
		assert_int_equal(w_count, k.hw.global_regs ? c[i].in : 2 + nr_gp_slots);
		pmiprof_pmu_model_advance(&k.model, 1000, 1500);
		w_count = 0;
		pmiprof_pmu_task_out(&k.pc, &t, &ctx);
		assert_int_equal(w_count, k.hw.global_regs ? c[i].out : 2 + nr_gp_slots);
		print_message("%s v%u: %d MSR accesses in, %d out (2 events)\n",
			      c[i].vendor == PMIPROF_VENDOR_AMD ? "amd" : "intel", k.hw.version,
			      k.hw.global_regs ? (int)c[i].in : 2 + (int)nr_gp_slots, w_count);
		k.hw.ops = &pmiprof_pmu_model_msr_ops;
		kcore_stop(&k);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(task_windows_exact_across_switches_intel),
		cmocka_unit_test(task_windows_exact_across_switches_amd),
		cmocka_unit_test(task_windows_exact_with_pmi_mid_switch),
		cmocka_unit_test(task_pmi_at_every_step_of_both_switches),
		cmocka_unit_test(task_window_before_the_freeze_is_dropped),
		cmocka_unit_test(task_window_spans_switches_exactly),
		cmocka_unit_test(task_switch_msr_accesses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
