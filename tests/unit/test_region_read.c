// SPDX-License-Identifier: GPL-2.0
/*
 * The perf mmap-page read protocol of libpmiprof-region (lib/region/
 * region_read.h) against a simulated page: the machines here have no PMU
 * that allows rdpmc, so the page and the rdpmc instruction are played by
 * the test.  Checks: offset + sign-extended pmc_width-bit counter; a
 * sequence number that changes during the read makes it retry with the new
 * values; a page that never settles gives up (-EAGAIN, caller uses read());
 * cap_user_rdpmc clear or index 0 -> -EOPNOTSUPP; the counter index given
 * to rdpmc is index - 1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "region/region_read.h"

struct sim {
	struct perf_event_mmap_page *pg;
	uint64_t pmc;			/* raw value returned */
	unsigned int calls;
	unsigned int bump_until;	/* change lock (and counter) during the first N reads */
	uint32_t last_counter;
};

static uint64_t sim_rdpmc(uint32_t counter, void *arg)
{
	struct sim *s = arg;
	uint64_t v = s->pmc;

	s->last_counter = counter;
	if (s->calls++ < s->bump_until) {
		/* the kernel updated the page meanwhile (a context switch) */
		s->pg->lock += 2;
		s->pg->offset += 1000;
		s->pmc = 5;
	}
	return v;
}

static void page(struct perf_event_mmap_page *pg, uint32_t index, int64_t offset, uint16_t width)
{
	memset(pg, 0, sizeof(*pg));
	pg->cap_user_rdpmc = 1;
	pg->index = index;
	pg->offset = offset;
	pg->pmc_width = width;
	pg->lock = 4;
}

static void offset_plus_counter(void **state)
{
	struct perf_event_mmap_page pg;
	struct sim s = { .pg = &pg, .pmc = 123456 };
	uint64_t v = 0;

	(void)state;
	page(&pg, 3, 1000000, 48);
	assert_int_equal(pmr_mmap_read(&pg, sim_rdpmc, &s, &v), 0);
	assert_int_equal(v, 1000000 + 123456);
	assert_int_equal(s.last_counter, 2);	/* rdpmc takes index - 1 */
	assert_int_equal(s.calls, 1);
}

static void width_sign_extension(void **state)
{
	struct perf_event_mmap_page pg;
	/* a 48-bit counter started at -16 (the kernel arms counters at -period) */
	struct sim s = { .pg = &pg, .pmc = 0xfffffffffff0ull };
	uint64_t v = 0;

	(void)state;
	page(&pg, 1, 1000, 48);
	assert_int_equal(pmr_mmap_read(&pg, sim_rdpmc, &s, &v), 0);
	assert_int_equal(v, 1000 - 16);
	/* the bits above the width are garbage to be discarded, not sign */
	s.pmc = 0xabcd000000000010ull;
	assert_int_equal(pmr_mmap_read(&pg, sim_rdpmc, &s, &v), 0);
	assert_int_equal(v, 1000 + 16);
	/* 40 bits, top bit set */
	page(&pg, 1, 0, 40);
	s.pmc = 0x8000000000ull;
	assert_int_equal(pmr_mmap_read(&pg, sim_rdpmc, &s, &v), 0);
	assert_int_equal((int64_t)v, -(int64_t)0x8000000000ll);
	assert_int_equal(pmr_sign_extend(0x7fffffffffffull, 48), 0x7fffffffffffll);
	assert_int_equal(pmr_sign_extend(0x800000000000ull, 48), -0x800000000000ll);
	assert_int_equal(pmr_sign_extend(0xffffffffffffffffull, 64), -1);
}

static void seqcount_change_retries(void **state)
{
	struct perf_event_mmap_page pg;
	struct sim s = { .pg = &pg, .pmc = 77, .bump_until = 3 };
	uint64_t v = 0;

	(void)state;
	page(&pg, 2, 100, 48);
	assert_int_equal(pmr_mmap_read(&pg, sim_rdpmc, &s, &v), 0);
	/* 3 torn reads retried; the 4th sees the settled page: offset + 3000, pmc 5 */
	assert_int_equal(s.calls, 4);
	assert_int_equal(v, 100 + 3000 + 5);
}

static void page_never_settles_gives_up(void **state)
{
	struct perf_event_mmap_page pg;
	struct sim s = { .pg = &pg, .pmc = 1, .bump_until = UINT32_MAX };
	uint64_t v = 42;

	(void)state;
	page(&pg, 2, 0, 48);
	assert_int_equal(pmr_mmap_read(&pg, sim_rdpmc, &s, &v), -EAGAIN);
	assert_int_equal(s.calls, PMR_READ_MAX_TRIES);
	assert_int_equal(v, 42);
}

static void no_rdpmc_falls_back(void **state)
{
	struct perf_event_mmap_page pg;
	struct sim s = { .pg = &pg, .pmc = 1 };
	uint64_t v = 42;

	(void)state;
	page(&pg, 0, 5, 48);		/* software event / not on the PMU now */
	assert_int_equal(pmr_mmap_read(&pg, sim_rdpmc, &s, &v), -EOPNOTSUPP);
	page(&pg, 1, 5, 48);
	pg.cap_user_rdpmc = 0;		/* rdpmc not allowed (sysfs rdpmc=0) */
	assert_int_equal(pmr_mmap_read(&pg, sim_rdpmc, &s, &v), -EOPNOTSUPP);
	assert_int_equal(s.calls, 0);
	assert_int_equal(v, 42);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(offset_plus_counter),
		cmocka_unit_test(width_sign_extension),
		cmocka_unit_test(seqcount_change_retries),
		cmocka_unit_test(page_never_settles_gives_up),
		cmocka_unit_test(no_rdpmc_falls_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
