// SPDX-License-Identifier: GPL-2.0
/*
 * Call stacks in pmiprof.ko's PMI records (ABI 1.2), on the MSR model:
 * the user frame-pointer walk and its bounds (stack_max, the per-PMI read
 * and time budget, a faulting read), kernel frames, dwarf register + stack
 * copies, and the variable-length ring: records wrapping at the end of the
 * data area as the daemon's consumer (daemon/module/module_ring.c) reads them,
 * CONSUME's record-boundary rule, and a 1.1 consumer refusing the ring.
 * The user address space is kcore's fake one (kcore_support.c).
 *
 * PMIPROF_BUDGET_TIMING=1 prints the walk's cost per PMI (reads, ns on the
 * model) for tests/bench/b40_pmi_msr.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "kcore.h"
#include "module/module_ring.h"

#define PERIOD		10000ull
#define UBASE		0x7ffd0000ull
#define ULEN		0x10000ull
#define USP		(UBASE + 0x80)
#define UIP		0x400500ull
#define FRAME(i)	(UBASE + 0x200 + (u64)(i) * 0x30)
#define RET(i)		(0x401000ull + (u64)(i) * 0x10)

static u8 umem[ULEN];
static u64 recbuf[(MODULE_REC_MAX + 7) / 8];

/* A chain of @n frames from FRAME(0) (the sampled function's) up. */
static void build_chain(u32 n)
{
	u32 i;

	for (i = 0; i < ULEN; i++)
		umem[i] = (u8)(i * 7 + 1);
	for (i = 0; i < n; i++) {
		u64 next = i + 1 < n ? FRAME(i + 1) : 0, ra = RET(i);

		memcpy(&umem[FRAME(i) - UBASE], &next, 8);
		memcpy(&umem[FRAME(i) - UBASE + 8], &ra, 8);
	}
	kcore_umem = umem;
	kcore_umem_base = UBASE;
	kcore_umem_len = ULEN;
	kcore_umem_fault = UINT64_MAX;
	kcore_read_ns = 0;
	kcore_no_user = false;
	kcore_nkframes = 0;
	memset(kcore_uregs, 0, sizeof(kcore_uregs));
	for (i = 0; i < PMU_UREG_MAX; i++)
		kcore_uregs[i] = 0x1000 + i;
	kcore_uregs[PMU_UREG_BP] = FRAME(0);
	kcore_uregs[PMU_UREG_SP] = USP;
	kcore_uregs[PMU_UREG_IP] = UIP;
}

static void setup(struct kcore *k, u32 mode, u32 max, u32 dump, u32 ring_bytes)
{
	struct pmu_model_spec spec;
	struct pmiprof_event ev = kcore_ev(0xc0, 0, true, PERIOD);

	pmiprof_pmu_model_spec_default(&spec, PMIPROF_VENDOR_INTEL);
	assert_int_equal(kcore_setup(k, &spec), 0);
	kcore_ring_init(ring_bytes, mode != PMIPROF_STACK_NONE);
	kcore_stack_mode = mode;
	kcore_stack_max = max;
	kcore_stack_dump = dump;
	assert_int_equal(kcore_configure(k, &ev, 1, 0, PERIOD), 0);
	kcore_stack_mode = kcore_stack_max = kcore_stack_dump = 0;
	assert_int_equal(kcore_start(k), 0);
}

/* Exactly one window: one step per instruction, so no skid merges two. */
static void one_pmi(struct kcore *k)
{
	u64 before = k->pmis_taken;

	kcore_run(k, PERIOD, 1, 1);
	assert_int_equal(k->pmis_taken, before + 1);
}

static struct module_ring mr;

static void consumer_init(void)
{
	module_ring_init(&mr, kcore_ring.hdr, kcore_ring.size, 0);
}

/* The next record as the daemon reads it; the stack part is asserted present. */
static void next_rec(struct pmiprof_sample_rec *rec, struct module_stack *st)
{
	uint32_t len = 0;

	assert_int_equal(module_ring_next_var(&mr, module_ring_head(&mr), recbuf, sizeof(recbuf),
					      &len), 1);
	assert_int_equal(len % 8, 0);
	assert_int_equal(module_rec_split(recbuf, len, rec, st), 1);
	assert_int_equal(rec->size, len);
}

static void fp_walk_records_return_addresses_and_leaf_words(void **state)
{
	struct pmiprof_sample_rec rec;
	struct module_stack st;
	struct kcore k;
	u32 i;

	(void)state;
	build_chain(6);
	setup(&k, PMIPROF_STACK_FP, 127, 0, 1 << 16);
	consumer_init();
	one_pmi(&k);
	next_rec(&rec, &st);
	assert_true(rec.flags & PMIPROF_REC_F_STACK);
	assert_int_equal(st.nr, 6);
	assert_int_equal(st.nr_kernel, 0);
	for (i = 0; i < 6; i++)
		assert_int_equal(st.ips[i], RET(i));
	assert_int_equal(st.flags, 0);		/* ended by a zero frame pointer */
	assert_int_equal(st.regs_mask, PMIPROF_STACK_FP_REGS);
	assert_int_equal(st.regs[0], FRAME(0));
	assert_int_equal(st.regs[1], USP);
	assert_int_equal(st.regs[2], UIP);
	assert_int_equal(st.dump_size, PMIPROF_STACK_LEAF_BYTES);
	assert_memory_equal(st.dump, &umem[USP - UBASE], PMIPROF_STACK_LEAF_BYTES);
	assert_int_equal(st.reads, 7);		/* 6 frames + 1 leaf read */
	assert_int_equal(k.pc.stack_stats.walks, 1);
	assert_int_equal(k.pc.stack_stats.reads, 7);
	assert_int_equal(k.pc.stats.samples, 1);
}

static void fp_walk_stops_at_stack_max(void **state)
{
	struct pmiprof_sample_rec rec;
	struct module_stack st;
	struct kcore k;
	u32 i;

	(void)state;
	build_chain(40);
	setup(&k, PMIPROF_STACK_FP, 10, 0, 1 << 16);
	consumer_init();
	one_pmi(&k);
	next_rec(&rec, &st);
	assert_int_equal(st.nr, 10);
	for (i = 0; i < 10; i++)
		assert_int_equal(st.ips[i], RET(i));
	assert_true(st.flags & PMIPROF_STACK_F_DEPTH);
	assert_int_equal(st.reads, 11);
	assert_int_equal(k.pc.stack_stats.truncated, 1);
}

static void fp_walk_stops_at_read_budget(void **state)
{
	struct pmiprof_sample_rec rec;
	struct module_stack st;
	struct kcore k;

	(void)state;
	build_chain(300);
	setup(&k, PMIPROF_STACK_FP, PMIPROF_STACK_MAX_FRAMES, 0, 1 << 16);
	consumer_init();
	one_pmi(&k);
	next_rec(&rec, &st);
	assert_int_equal(st.nr, PMU_STACK_MAX_READS);
	assert_int_equal(st.reads, PMU_STACK_MAX_READS);
	assert_true(st.flags & PMIPROF_STACK_F_BUDGET);
	assert_false(st.flags & PMIPROF_STACK_F_DEPTH);
	assert_int_equal(st.dump_size, 0);	/* no read left for the leaf words */
	assert_int_equal(st.ips[PMU_STACK_MAX_READS - 1], RET(PMU_STACK_MAX_READS - 1));
	assert_int_equal(k.pc.stack_stats.truncated, 1);
}

static void fp_walk_stops_at_time_budget(void **state)
{
	struct pmiprof_sample_rec rec;
	struct module_stack st;
	struct kcore k;

	(void)state;
	build_chain(100);
	setup(&k, PMIPROF_STACK_FP, 127, 0, 1 << 16);
	kcore_read_ns = PMU_STACK_BUDGET_NS / 4;	/* slow reads: a few fit the budget */
	consumer_init();
	one_pmi(&k);
	next_rec(&rec, &st);
	/* the clock is looked at every PMU_STACK_CLOCK_EVERY reads */
	assert_int_equal(st.nr, PMU_STACK_CLOCK_EVERY);
	assert_true(st.flags & PMIPROF_STACK_F_BUDGET);
	assert_true(k.pc.stack_stats.ns_total >= PMU_STACK_BUDGET_NS);
}

static void faulting_read_ends_the_chain(void **state)
{
	struct pmiprof_sample_rec rec;
	struct module_stack st;
	struct kcore k;

	(void)state;
	build_chain(20);
	setup(&k, PMIPROF_STACK_FP, 127, 0, 1 << 16);
	kcore_umem_fault = FRAME(5) + 8;	/* frame 5's return address is not mapped */
	consumer_init();
	one_pmi(&k);
	next_rec(&rec, &st);
	assert_int_equal(st.nr, 5);
	assert_int_equal(st.ips[4], RET(4));
	assert_true(st.flags & PMIPROF_STACK_F_FAULT);
	assert_int_equal(k.pc.stack_stats.faults, 1);
	/* the leaf words lie below the fault: still copied */
	assert_int_equal(st.dump_size, PMIPROF_STACK_LEAF_BYTES);
}

static void frame_pointer_going_down_ends_the_chain(void **state)
{
	struct pmiprof_sample_rec rec;
	struct module_stack st;
	struct kcore k;
	u64 back = FRAME(1);

	(void)state;
	build_chain(10);
	memcpy(&umem[FRAME(3) - UBASE], &back, 8);	/* a loop: frame 3 points back to 1 */
	setup(&k, PMIPROF_STACK_FP, 127, 0, 1 << 16);
	consumer_init();
	one_pmi(&k);
	next_rec(&rec, &st);
	assert_int_equal(st.nr, 4);
	assert_true(st.flags & PMIPROF_STACK_F_BAD_FP);
}

static void kernel_sample_has_kernel_frames_then_user_ip(void **state)
{
	struct pmiprof_sample_rec rec;
	struct module_stack st;
	struct kcore k;

	(void)state;
	build_chain(3);
	setup(&k, PMIPROF_STACK_FP, 127, 0, 1 << 16);
	k.hw.kernel_ips = true;
	k.user = false;
	kcore_kframes[0] = 0xffffffff81000100ull;
	kcore_kframes[1] = 0xffffffff81000200ull;
	kcore_nkframes = 2;
	consumer_init();
	one_pmi(&k);
	next_rec(&rec, &st);
	assert_int_equal(st.nr_kernel, 2);
	assert_int_equal(st.nr, 2 + 1 + 3);
	assert_int_equal(st.ips[0], kcore_kframes[0]);
	assert_int_equal(st.ips[1], kcore_kframes[1]);
	assert_int_equal(st.ips[2], UIP);	/* first user frame: the user ip */
	assert_int_equal(st.ips[3], RET(0));

	/* without the right to kernel addresses: no kernel frames */
	k.hw.kernel_ips = false;
	one_pmi(&k);
	next_rec(&rec, &st);
	assert_true(rec.flags & PMIPROF_REC_F_IP_HIDDEN);
	assert_int_equal(st.nr_kernel, 0);
	assert_int_equal(st.ips[0], UIP);
}

static void kernel_thread_has_no_user_part(void **state)
{
	struct pmiprof_sample_rec rec;
	struct module_stack st;
	struct kcore k;

	(void)state;
	build_chain(3);
	setup(&k, PMIPROF_STACK_DWARF, 127, 512, 1 << 16);
	k.user = false;
	kcore_no_user = true;
	consumer_init();
	one_pmi(&k);
	next_rec(&rec, &st);
	assert_true(st.flags & PMIPROF_STACK_F_NO_USER);
	assert_int_equal(st.nr, 0);
	assert_int_equal(st.nr_regs, 0);
	assert_int_equal(st.dump_size, 0);
	assert_int_equal(st.reads, 0);
}

/*
 * A 32-bit (compat) task: its frames are {u32 fp, u32 ret}.  The 64-bit
 * walk would read two return addresses as one frame; its regs are not the
 * 64-bit set.  No user part is written, nothing of its memory is read, in
 * fp and dwarf mode, user- and kernel-mode samples alike; the ip stays.
 * The same 64-bit task is walked (the control).
 */
static void compat_task_has_no_user_part(void **state)
{
	static const u32 modes[] = { PMIPROF_STACK_FP, PMIPROF_STACK_DWARF };
	struct pmiprof_sample_rec rec;
	struct module_stack st;
	struct kcore k;

	(void)state;
	for (u32 m = 0; m < 2; m++) {
		for (int user = 0; user < 2; user++) {
			build_chain(3);
			setup(&k, modes[m], 127, modes[m] == PMIPROF_STACK_DWARF ? 512 : 0,
			      1 << 16);
			k.user = user;
			k.ip = user ? UIP : 0xffffffff81000000ull;
			consumer_init();
			k.user_compat = false;
			one_pmi(&k);
			next_rec(&rec, &st);
			assert_false(st.flags & PMIPROF_STACK_F_NO_USER);
			assert_true(st.nr_regs > 0 && st.reads > 0);

			k.user_compat = true;
			one_pmi(&k);
			next_rec(&rec, &st);
			print_message("# %s %s-mode sample of a 32-bit task: flags %#x frames %u regs %u dump %u reads %u\n",
				      m ? "dwarf" : "fp", user ? "user" : "kernel", st.flags, st.nr,
				      st.nr_regs, st.dump_size, st.reads);
			assert_true(st.flags & PMIPROF_STACK_F_NO_USER);
			assert_int_equal(st.nr - st.nr_kernel, 0);
			assert_int_equal(st.nr_regs, 0);
			assert_int_equal(st.dump_size, 0);
			assert_int_equal(st.reads, 0);
			if (user)
				assert_int_equal(rec.ip, UIP);
		}
	}
}

static void dwarf_copies_user_regs_and_stack(void **state)
{
	struct pmiprof_sample_rec rec;
	struct module_stack st;
	struct kcore k;
	u32 i, n = 0;

	(void)state;
	build_chain(3);
	setup(&k, PMIPROF_STACK_DWARF, 127, 1024, 1 << 16);
	consumer_init();
	one_pmi(&k);
	next_rec(&rec, &st);
	assert_int_equal(st.nr, 0);		/* no user frames: unwound offline */
	assert_int_equal(st.regs_mask, PMIPROF_STACK_DWARF_REGS);
	assert_int_equal(st.nr_regs, 20);
	for (i = 0; i < PMU_UREG_MAX; i++)
		if (PMIPROF_STACK_DWARF_REGS & (1ull << i))
			assert_int_equal(st.regs[n++], kcore_uregs[i]);
	assert_int_equal(st.dump_size, 1024);
	assert_memory_equal(st.dump, &umem[USP - UBASE], 1024);

	/* near the top of the stack the copy is short, as perf's dyn_size */
	kcore_uregs[PMU_UREG_SP] = UBASE + ULEN - 40;
	one_pmi(&k);
	next_rec(&rec, &st);
	assert_int_equal(st.dump_size, 40);
	assert_int_equal(rec.size % 8, 0);
	assert_memory_equal(st.dump, &umem[ULEN - 40], 40);
}

/*
 * Per-task mode: sched_switch loads the next task's counters before
 * switch_to(), so a PMI can close the loaded task's window while `current`
 * (the pmi_ctx: tid 4243) is still the task leaving, maybe another user's.
 * The window is the loaded task's; no ip, registers or stack of the
 * interrupted one are written.  Once current is the loaded task, they are.
 */
static void pmi_before_the_switch_has_no_regs_or_stack(void **state)
{
	struct pmiprof_sample_rec rec;
	struct module_stack st;
	struct pmu_task_ctr t;
	struct kcore k;

	(void)state;
	build_chain(3);
	k.user = true;
	setup(&k, PMIPROF_STACK_DWARF, 127, 1024, 1 << 16);
	k.user = true;
	k.ip = UIP;
	consumer_init();
	pmiprof_pmu_task_freeze(&k.pc);
	pmiprof_pmu_task_init(&k.hw, &t);
	t.pid = 500;
	t.tid = 501;
	pmiprof_pmu_task_in(&k.pc, &t);
	one_pmi(&k);
	next_rec(&rec, &st);
	assert_int_equal(rec.pid, 500);
	assert_int_equal(rec.tid, 501);
	assert_int_equal(rec.ip, 0);
	assert_true(rec.flags & PMIPROF_REC_F_IP_HIDDEN);
	assert_false(rec.flags & PMIPROF_REC_F_USER);
	assert_int_equal(rec.counts[0], PERIOD);	/* the window itself is kept */
	assert_true(st.flags & PMIPROF_STACK_F_NO_USER);
	assert_int_equal(st.regs_mask, 0);
	assert_int_equal(st.nr_regs, 0);
	assert_int_equal(st.dump_size, 0);
	assert_int_equal(st.reads, 0);

	/* after switch_to(): current is the loaded task */
	pmiprof_pmu_task_out(&k.pc, &t, &(struct pmi_ctx){ .tid = 501 });
	t.pid = 4242;
	t.tid = 4243;
	pmiprof_pmu_task_in(&k.pc, &t);
	one_pmi(&k);
	next_rec(&rec, &st);
	assert_int_equal(rec.tid, 4243);
	assert_int_equal(rec.ip, UIP);
	assert_true(rec.flags & PMIPROF_REC_F_USER);
	assert_int_equal(st.regs_mask, PMIPROF_STACK_DWARF_REGS);
	assert_int_equal(st.dump_size, 1024);

	/* the glue's verdict (a task that became non-dumpable) hides it too */
	pmiprof_pmu_task_out(&k.pc, &t, &(struct pmi_ctx){ .tid = 4243 });
	pmiprof_pmu_task_in(&k.pc, &t);
	{
		u64 before = k.pmis_taken;
		struct pmi_ctx ctx;

		pmiprof_pmu_model_advance(&k.model, PERIOD, PERIOD);
		assert_int_equal(k.model.pmi_pending, 1);
		k.model.pmi_pending--;
		ctx = kcore_ctx(&k);
		ctx.no_context = true;
		k.hw.drv->handle_pmi(&k.pc, &ctx);
		k.pmis_taken++;
		assert_int_equal(k.pmis_taken, before + 1);
	}
	next_rec(&rec, &st);
	assert_int_equal(rec.ip, 0);
	assert_int_equal(st.dump_size, 0);
	assert_int_equal(st.regs_mask, 0);
}

/*
 * NMI time budget (perf_sample_event_took()): each PMI copies a 64 KiB
 * dwarf dump costing 40 us, windows come every 10 us of the task, and
 * max_rate (100000/s) alone would let the handler take ~80 % of the CPU.
 * The rate is lowered until the handler's share stays near
 * PMU_NMI_CPU_PERCENT; the stretched windows are counted and flagged, and
 * their counts stay exact (every instruction in some window).
 */
static void nmi_time_stays_within_the_cpu_share(void **state)
{
	struct pmiprof_sample_rec rec;
	struct module_stack st;
	struct kcore k;
	u64 t0, ran = 100000000, sum = 0, flagged = 0;
	uint32_t n = 0;
	double share;

	(void)state;
	build_chain(3);
	setup(&k, PMIPROF_STACK_DWARF, 127, 1024, 1 << 22);
	k.hw.emulated = false;	/* the model stands for hardware: pmu=emul is not budgeted */
	consumer_init();
	kcore_read_ns = 40000;
	t0 = kcore_now_ns;
	kcore_run(&k, ran, 50, 3);
	kcore_read_ns = 0;
	share = (double)k.pc.stats.handler_ns_total / (double)(kcore_now_ns - t0);
	print_message("handler share %.1f %% of %llu ns, %llu windows, %llu stretched by the time budget, mean %llu ns\n",
		      100 * share, (unsigned long long)(kcore_now_ns - t0),
		      (unsigned long long)k.pc.stats.samples,
		      (unsigned long long)k.pc.time_limited, (unsigned long long)k.pc.nmi_avg_ns);
	assert_true(share < (PMU_NMI_CPU_PERCENT + 5) / 100.0);
	assert_true(k.pc.time_limited > 0);
	assert_true(k.pc.stats.throttles >= k.pc.time_limited);
	while (module_ring_next_var(&mr, module_ring_head(&mr), recbuf, sizeof(recbuf), &n) == 1) {
		assert_int_equal(module_rec_split(recbuf, n, &rec, &st), 1);
		sum += rec.counts[0];
		flagged += !!(rec.flags & PMIPROF_REC_F_THROTTLED);
	}
	assert_true(flagged > 0);
	assert_true(sum <= ran && ran - sum < 2 * PERIOD * 64);	/* the open window is the rest */
}

static void stack_config_is_validated(void **state)
{
	static const struct { u32 mode, max, dump; } bad[] = {
		{ 3, 127, 0 },				/* unknown mode */
		{ PMIPROF_STACK_FP, 0, 0 },		/* no frames */
		{ PMIPROF_STACK_FP, PMIPROF_STACK_MAX_FRAMES + 1, 0 },
		{ PMIPROF_STACK_FP, 127, 64 },		/* fp takes no dump size */
		{ PMIPROF_STACK_DWARF, 127, 0 },
		{ PMIPROF_STACK_DWARF, 127, 12 },	/* not a multiple of 8 */
		{ PMIPROF_STACK_DWARF, 127, PMIPROF_STACK_MAX_DUMP + 8 },
		{ PMIPROF_STACK_NONE, 127, 0 },		/* settings without a mode */
	};
	struct pmiprof_event ev = kcore_ev(0xc0, 0, true, PERIOD);
	struct pmu_model_spec spec;
	struct pmiprof_config cfg;
	struct kcore k;
	u32 i;

	(void)state;
	pmiprof_pmu_model_spec_default(&spec, PMIPROF_VENDOR_INTEL);
	assert_int_equal(kcore_setup(&k, &spec), 0);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		kcore_stack_mode = bad[i].mode;
		kcore_stack_max = bad[i].max;
		kcore_stack_dump = bad[i].dump;
		assert_int_equal(kcore_configure(&k, &ev, 1, 0, PERIOD), -EINVAL);
		assert_false(k.hw.configured);
	}
	kcore_stack_mode = kcore_stack_max = kcore_stack_dump = 0;
	/* counting mode writes no samples: no stacks */
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.mode = PMIPROF_SAMPLING_COUNT;
	cfg.nr_events = 1;
	cfg.events[0] = kcore_ev(0xc0, 0, false, 0);
	cfg.stack_mode = PMIPROF_STACK_FP;
	cfg.stack_max = 127;
	assert_int_equal(pmiprof_pmu_configure(&k.hw, &cfg), -EINVAL);
	cfg.stack_mode = PMIPROF_STACK_NONE;
	cfg.stack_max = 0;
	cfg.stack_reserved = 1;
	assert_int_equal(pmiprof_pmu_configure(&k.hw, &cfg), -EINVAL);
	/* the largest record is known at CONFIGURE (the glue checks it against the ring) */
	kcore_stack_mode = PMIPROF_STACK_DWARF;
	kcore_stack_max = 127;
	kcore_stack_dump = 8192;
	assert_int_equal(kcore_configure(&k, &ev, 1, 0, PERIOD), 0);
	assert_int_equal(k.hw.stack_rec_max, 112 + 24 + 8 * 127 + 8 * 20 + 8192);
	kcore_stack_mode = kcore_stack_max = kcore_stack_dump = 0;
}

/*
 * Records of changing length through a small ring, drained a few at a time
 * by the daemon's consumer with CONSUME after each batch: every record
 * reads back whole and in order, and some of them wrap at the end.
 */
static void variable_records_wrap_in_the_ring(void **state)
{
	struct pmiprof_sample_rec rec;
	struct module_stack st;
	struct kcore k;
	u32 i, wraps = 0, got = 0, want[400];

	(void)state;
	build_chain(32);
	setup(&k, PMIPROF_STACK_FP, 24, 0, 8192);
	consumer_init();
	for (i = 0; i < 400; i++) {
		u32 depth = 1 + (i * 7) % 24;
		u64 zero = 0;

		build_chain(32);
		memcpy(&umem[FRAME(depth - 1) - UBASE], &zero, 8);	/* chain ends after depth */
		want[i] = depth;
		one_pmi(&k);
		if (i % 5 == 4 || i == 399) {
			while (mr.tail != module_ring_head(&mr)) {
				u64 start = mr.tail;

				next_rec(&rec, &st);
				if ((start & (kcore_ring.size - 1)) + rec.size > kcore_ring.size)
					wraps++;
				assert_int_equal(st.nr, want[got]);
				assert_int_equal(st.ips[st.nr - 1], RET(st.nr - 1));
				got++;
			}
			assert_int_equal(pmiprof_ring_core_consume(&kcore_ring, mr.tail), 0);
			assert_int_equal(kcore_ring.hdr->tail, mr.tail);
		}
	}
	assert_int_equal(got, 400);
	assert_int_equal(kcore_ring.hdr->lost, 0);
	assert_true(wraps > 0);
	assert_true(kcore_ring.hdr->head > 4 * kcore_ring.size);
}

static void full_ring_drops_and_counts(void **state)
{
	struct kcore k;
	u32 i;

	(void)state;
	build_chain(8);
	setup(&k, PMIPROF_STACK_DWARF, 16, 1024, 8192);
	for (i = 0; i < 20; i++)
		one_pmi(&k);
	/* nothing consumed: a record goes in only while the largest one would fit */
	assert_true(kcore_ring.hdr->lost > 0);
	assert_int_equal(k.pc.stats.lost, kcore_ring.hdr->lost);
	assert_int_equal(k.pc.stats.samples + k.pc.stats.lost, 20);
	assert_true(kcore_ring.hdr->head <= kcore_ring.size);
}

static void consume_tail_must_be_a_record_boundary(void **state)
{
	struct pmiprof_sample_rec rec;
	struct module_stack st;
	struct ring_core fixed;
	struct kcore k;
	u64 first, head;
	u8 buf[112] = { 0 };

	(void)state;
	build_chain(3);
	setup(&k, PMIPROF_STACK_FP, 16, 0, 8192);
	consumer_init();
	one_pmi(&k);
	build_chain(9);
	one_pmi(&k);
	next_rec(&rec, &st);
	first = mr.tail;
	head = kcore_ring.hdr->head;
	assert_true(first != 112 && first % 112 != 0 && head - first != first);
	/* inside the first record, inside the second: refused, tail unchanged */
	assert_int_equal(pmiprof_ring_core_consume(&kcore_ring, 8), -EINVAL);
	assert_int_equal(pmiprof_ring_core_consume(&kcore_ring, 112), -EINVAL);
	assert_int_equal(pmiprof_ring_core_consume(&kcore_ring, first + 8), -EINVAL);
	assert_int_equal(kcore_ring.hdr->tail, 0);
	assert_int_equal(pmiprof_ring_core_consume(&kcore_ring, first), 0);
	assert_int_equal(kcore_ring.hdr->tail, first);
	/* beyond head clamps to head, a boundary */
	assert_int_equal(pmiprof_ring_core_consume(&kcore_ring, head + 1000), 0);
	assert_int_equal(kcore_ring.hdr->tail, head);

	/* fixed-size rings keep the 1.1 rule: multiples of 112 */
	kcore_ring_init(8192, false);
	fixed = kcore_ring;
	for (first = 0; first < 3 * 112; first += 112) {
		u64 h, t;

		assert_int_equal(pmiprof_ring_core_reserve(&fixed, 112, &h, &t), 0);
		pmiprof_ring_core_put(&fixed, h, buf, 112);
		pmiprof_ring_core_publish(&fixed, h + 112);
	}
	assert_int_equal(pmiprof_ring_core_consume(&fixed, 100), -EINVAL);
	assert_int_equal(pmiprof_ring_core_consume(&fixed, 224), 0);
	assert_int_equal(fixed.hdr->tail, 224);
}

/* A 1.1 consumer reads record_size 0 and stops: it never misparses a 1.2 ring. */
static void fixed_size_consumer_refuses_variable_ring(void **state)
{
	struct pmiprof_sample_rec rec;
	struct kcore k;

	(void)state;
	build_chain(3);
	setup(&k, PMIPROF_STACK_FP, 16, 0, 8192);
	assert_int_equal(kcore_ring.hdr->record_size, 0);
	consumer_init();
	one_pmi(&k);
	assert_int_equal(module_ring_next(&mr, module_ring_head(&mr), &rec), -EPROTO);

	/* without stacks the ring is the 1.1 one: fixed 112-byte records, size 0 */
	kcore_reset_recs();
	setup(&k, PMIPROF_STACK_NONE, 0, 0, 8192);
	one_pmi(&k);
	assert_int_equal(kcore_nrecs, 1);
	assert_int_equal(kcore_recs[0].size, 0);
	assert_false(kcore_recs[0].flags & PMIPROF_REC_F_STACK);
}

/* b40: the walk's cost per PMI on the model (reads, ns), 16-deep chain. */
static void walk_cost_per_pmi(void **state)
{
	struct kcore k;
	u32 i, n = 2000;
	bool timed;

	(void)state;
	/*
	 * The suite runs a short loop on the model clock, where the 20 us
	 * budget never cuts a walk (a preempted walk on the real clock would):
	 * the counts are exact.  b40 sets the env for timing.
	 */
	timed = getenv("PMIPROF_BUDGET_TIMING") != NULL;
	if (!timed)
		n = 50;
	build_chain(16);
	setup(&k, PMIPROF_STACK_FP, 127, 0, 1 << 22);
	kcore_real_clock = timed;
	for (i = 0; i < n; i++) {
		one_pmi(&k);
		if (kcore_ring.hdr->head - kcore_ring.hdr->tail > kcore_ring.size / 2)
			assert_int_equal(pmiprof_ring_core_consume(&kcore_ring, kcore_ring.hdr->head), 0);
	}
	kcore_real_clock = false;
	/* 16 frames + the leaf words: 17 reads per walk */
	assert_int_equal(k.pc.stack_stats.walks, n);
	if (!timed)
		assert_int_equal(k.pc.stack_stats.reads, 17ull * n);
	printf("# stack walk, fp, 16 frames: %.1f user reads per PMI, %.0f ns per PMI "
	       "(model in user space: reads are memcpy, not copy_from_user_nmi)\n",
	       (double)k.pc.stack_stats.reads / n, (double)k.pc.stack_stats.ns_total / n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fp_walk_records_return_addresses_and_leaf_words),
		cmocka_unit_test(fp_walk_stops_at_stack_max),
		cmocka_unit_test(fp_walk_stops_at_read_budget),
		cmocka_unit_test(fp_walk_stops_at_time_budget),
		cmocka_unit_test(faulting_read_ends_the_chain),
		cmocka_unit_test(frame_pointer_going_down_ends_the_chain),
		cmocka_unit_test(kernel_sample_has_kernel_frames_then_user_ip),
		cmocka_unit_test(kernel_thread_has_no_user_part),
		cmocka_unit_test(compat_task_has_no_user_part),
		cmocka_unit_test(dwarf_copies_user_regs_and_stack),
		cmocka_unit_test(pmi_before_the_switch_has_no_regs_or_stack),
		cmocka_unit_test(nmi_time_stays_within_the_cpu_share),
		cmocka_unit_test(stack_config_is_validated),
		cmocka_unit_test(variable_records_wrap_in_the_ring),
		cmocka_unit_test(full_ring_drops_and_counts),
		cmocka_unit_test(consume_tail_must_be_a_record_boundary),
		cmocka_unit_test(fixed_size_consumer_refuses_variable_ring),
		cmocka_unit_test(walk_cost_per_pmi),
	};

	return cmocka_run_group_tests_name("pmi_stack", tests, NULL, NULL);
}
