// SPDX-License-Identifier: GPL-2.0
/*
 * test_emul_icount.c - the arithmetic of pmu=emul emul_clock=icount
 * (kernel/emul_icount.h) and its windows on the real handler and MSR model:
 * events left to overflow -> nanoseconds (rounded up, no overflow), the
 * frozen instruction clock, the load-time probe's test, and, with the
 * deadline fired as the kernel fires it (events left + a random skid),
 * windows of exactly N instructions however late the timer comes, the
 * skid counted into the next window, and a counter frozen and restored
 * (idle, later per task) overflowing after exactly the events it had left.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "kcore.h"
#include "../../kernel/emul_icount.h"

#define PERIOD		512000ull
#define MASK48		((1ull << 48) - 1)

static void events_left_is_minus_counter(void **state)
{
	(void)state;
	assert_int_equal(emul_icount_events_left((0 - PERIOD) & MASK48, MASK48), PERIOD);
	assert_int_equal(emul_icount_events_left(MASK48, MASK48), 1);
	assert_int_equal(emul_icount_events_left(1, MASK48), MASK48);
	/* just wrapped: a whole turn to go, never 0 (a timer armed for now forever) */
	assert_true(emul_icount_events_left(0, MASK48) == MASK48 + 1);
}

static void events_to_ns_rounds_up_without_overflow(void **state)
{
	static const u32 khz[] = { 1000000, 999993, 1000007, 2100000, 1 };
	static const u64 ev[] = { 0, 1, 2, 999, PERIOD, 123456789, MASK48 + 1, 1ull << 60 };
	size_t i, j;

	(void)state;
	/* icount shift=0 after the refined calibration: 1 ns per instruction */
	assert_int_equal(emul_icount_events_to_ns(PERIOD, 1000000), PERIOD);
	assert_int_equal(emul_icount_events_to_ns(PERIOD, 0), PERIOD);
	for (i = 0; i < ARRAY_SIZE(khz); i++)
		for (j = 0; j < ARRAY_SIZE(ev); j++) {
			unsigned __int128 exact = (unsigned __int128)ev[j] * 1000000u;
			unsigned __int128 ns = emul_icount_events_to_ns(ev[j], khz[i]);

			if (exact / khz[i] >= (unsigned __int128)~0ull - 1000000u) {
				assert_true(ns == ~0ull);	/* beyond 2^64 ns: saturated */
				continue;
			}
			/* never before the overflow, and at most 1 ns after it */
			assert_true(ns * khz[i] >= exact);
			assert_true((ns - 1) * khz[i] < exact || ns == 0);
		}
}

static void clock_counts_nothing_while_frozen(void **state)
{
	struct emul_icount_clock c = { 0 };

	(void)state;
	emul_icount_thaw(&c, 1000);
	assert_int_equal(emul_icount_take(&c, 1500), 500);
	assert_int_equal(emul_icount_freeze(&c, 1700), 200);
	/* halted: QEMU's sleep=off jumps the TSC, nothing retired */
	assert_int_equal(emul_icount_take(&c, 9000000), 0);
	emul_icount_thaw(&c, 9000100);
	assert_int_equal(emul_icount_take(&c, 9000130), 30);
	/* a TSC that went backwards (never under icount) counts nothing */
	assert_int_equal(emul_icount_take(&c, 9000000), 0);
}

static void probe_accepts_only_one_tick_per_instruction(void **state)
{
	u64 d = 2ull * (EMUL_ICOUNT_PROBE_LONG - EMUL_ICOUNT_PROBE_SHORT);

	(void)state;
	assert_true(emul_icount_probe_ok(20004, 20004 + d));
	assert_false(emul_icount_probe_ok(20004, 20004 + d + 1));
	assert_false(emul_icount_probe_ok(20004, 20004 + d - 1));
	/* a host-clock TSC at ~2.5 ticks per instruction */
	assert_false(emul_icount_probe_ok(50010, 50010 + d * 5 / 2));
}

static struct kcore k;

static void take(void *arg)
{
	kcore_take_pmis(arg);
}

static u32 trig_msr(void)
{
	return k.hw.slots[k.hw.trigger].ctr_msr;
}

static void setup_intel(void)
{
	struct pmu_model_spec spec;
	struct pmiprof_event ev[2];

	pmiprof_pmu_model_spec_default(&spec, PMIPROF_VENDOR_INTEL);
	assert_int_equal(kcore_setup(&k, &spec), 0);
	ev[0] = kcore_ev(0xc0, 0, true, PERIOD);
	ev[1] = kcore_ev(0x3c, 0, false, 0);
	assert_int_equal(kcore_configure(&k, ev, 2, 0, PERIOD), 0);
	assert_int_equal(kcore_start(&k), 0);
}

/* What the deadline timer does when it fires @skid instructions late. */
static void fire(u64 left_then, u64 skid)
{
	emul_icount_run(&k.model, left_then + skid, trig_msr(), 64, take, &k);
	kcore_now_ns += left_then + skid;
}

static void windows_are_exactly_n_whatever_the_skid(void **state)
{
	u64 total = 0, sum = 0;
	u32 x = 7, i;

	(void)state;
	setup_intel();
	for (i = 0; i < 2000; i++) {
		u64 left = emul_icount_events_left(pmiprof_pmu_model_rdmsr(&k.model, trig_msr()), k.model.mask);
		u64 skid;

		x = x * 1103515245u + 12345u;
		skid = 400 + (x >> 8) % 5000;
		if (i % 97 == 5)
			skid += 3 * PERIOD + 17;	/* a very late timer: 3 more overflows */
		fire(left, skid);
		total += left + skid;
	}
	assert_true(kcore_nrecs >= 2000);
	for (i = 0; i < kcore_nrecs; i++) {
		assert_int_equal(kcore_recs[i].counts[0], PERIOD);
		assert_false(kcore_recs[i].flags & PMIPROF_REC_F_THROTTLED);
		sum += kcore_recs[i].counts[0];
	}
	/* every instruction fed is in a window or in the open one */
	assert_int_equal(sum + (pmiprof_pmu_model_rdmsr(&k.model, trig_msr()) - (0 - PERIOD)) % (MASK48 + 1),
			 total);
	assert_int_equal(kcore_nrecs, total / PERIOD);
	kcore_stop(&k);
}

static void frozen_counter_overflows_after_the_events_it_had_left(void **state)
{
	struct emul_icount_clock c = { 0 };
	u64 saved, left;

	(void)state;
	setup_intel();
	emul_icount_thaw(&c, 0);
	/* run 200,000 instructions of the window, then freeze (idle / switch-out) */
	emul_icount_run(&k.model, emul_icount_freeze(&c, 200000), trig_msr(), 64, take, &k);
	saved = pmiprof_pmu_model_rdmsr(&k.model, trig_msr());
	left = emul_icount_events_left(saved, k.model.mask);
	assert_int_equal(left, PERIOD - 200000);
	/* a long frozen span: the TSC jumps, nothing is fed */
	emul_icount_run(&k.model, emul_icount_take(&c, 50000000), trig_msr(), 64, take, &k);
	assert_int_equal(pmiprof_pmu_model_rdmsr(&k.model, trig_msr()), saved);
	/* restored: the deadline is exactly the events left, from the counter alone */
	emul_icount_thaw(&c, 50000000);
	assert_int_equal(emul_icount_events_left(pmiprof_pmu_model_rdmsr(&k.model, trig_msr()),
						 k.model.mask), left);
	emul_icount_run(&k.model, emul_icount_take(&c, 50000000 + left - 1), trig_msr(), 64,
			take, &k);
	assert_int_equal(kcore_nrecs, 0);
	emul_icount_run(&k.model, emul_icount_take(&c, 50000000 + left), trig_msr(), 64, take, &k);
	assert_int_equal(kcore_nrecs, 1);
	assert_int_equal(kcore_recs[0].counts[0], PERIOD);
	kcore_stop(&k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(events_left_is_minus_counter),
		cmocka_unit_test(events_to_ns_rounds_up_without_overflow),
		cmocka_unit_test(clock_counts_nothing_while_frozen),
		cmocka_unit_test(probe_accepts_only_one_tick_per_instruction),
		cmocka_unit_test(windows_are_exactly_n_whatever_the_skid),
		cmocka_unit_test(frozen_counter_overflows_after_the_events_it_had_left),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
