// SPDX-License-Identifier: GPL-2.0
/*
 * The user-space half of the module backend without a module: the ring
 * consumer against a producer that follows kernel/ring.c's protocol
 * (records wrap at the end of the data area), lost-counter deltas,
 * protocol-violation handling, record -> SAMPLE conversion, the event-name
 * tables per vendor, and /dev/pmiprof open errors.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "module/module_dev.h"
#include "module/module_ring.h"

#define DATA_BYTES	1024u	/* not a multiple of 112: records wrap */

struct fake_ring {
	unsigned char *map;	/* header page + data */
	struct pmiprof_ring_header *hdr;
	unsigned char *data;
};

static void fake_init(struct fake_ring *f)
{
	f->map = calloc(1, PMIPROF_RING_HEADER_BYTES + DATA_BYTES);
	assert_non_null(f->map);
	f->hdr = (struct pmiprof_ring_header *)f->map;
	f->data = f->map + PMIPROF_RING_HEADER_BYTES;
	f->hdr->record_size = sizeof(struct pmiprof_sample_rec);
	f->hdr->data_bytes = DATA_BYTES;
}

/* kernel/ring.c's producer: drop when full, copy with wrap, publish head. */
static int fake_produce(struct fake_ring *f, uint64_t seq)
{
	struct pmiprof_sample_rec rec;
	uint32_t rs = sizeof(rec), off, first;
	uint64_t head = f->hdr->head;

	if (head + rs - f->hdr->tail > DATA_BYTES) {
		f->hdr->lost++;
		return -ENOSPC;
	}
	memset(&rec, 0, sizeof(rec));
	rec.time_ns = 1000 + seq;
	rec.ip = 0x400000 + seq;
	rec.pid = 42;
	rec.tid = 43;
	rec.cpu = 1;
	rec.nr = 2;
	rec.counts[0] = seq;
	rec.counts[1] = 2 * seq;
	off = head & (DATA_BYTES - 1);
	first = DATA_BYTES - off < rs ? DATA_BYTES - off : rs;
	memcpy(f->data + off, &rec, first);
	memcpy(f->data, (unsigned char *)&rec + first, rs - first);
	__atomic_store_n(&f->hdr->head, head + rs, __ATOMIC_RELEASE);
	return 0;
}

/* What CONSUME does: the module mirrors the (clamped) tail. */
static void fake_consume(struct fake_ring *f, uint64_t tail)
{
	f->hdr->tail = tail;
}

static void ring_reads_every_record_in_order_across_wraps(void **state)
{
	struct fake_ring f;
	struct module_ring r;
	struct pmiprof_sample_rec rec;
	uint64_t produced = 0, consumed = 0;
	int round, ret;

	(void)state;
	fake_init(&f);
	module_ring_init(&r, f.map, DATA_BYTES, 1);
	/* 50 rounds of up to 5 records: many wraps of a 1 KiB ring. */
	for (round = 0; round < 50; round++) {
		int i;

		for (i = 0; i < 1 + round % 5; i++)
			assert_int_equal(fake_produce(&f, produced++), 0);
		while ((ret = module_ring_next(&r, module_ring_head(&r), &rec)) == 1) {
			assert_int_equal(rec.counts[0], consumed);
			assert_int_equal(rec.counts[1], 2 * consumed);
			assert_int_equal(rec.ip, 0x400000 + consumed);
			consumed++;
		}
		assert_int_equal(ret, 0);
		fake_consume(&f, r.tail);
	}
	assert_int_equal(consumed, produced);
	assert_true(produced * sizeof(rec) > 10 * DATA_BYTES);
	assert_int_equal(module_ring_take_lost(&r), 0);
	free(f.map);
}

static void ring_full_drops_are_reported_once_as_deltas(void **state)
{
	struct fake_ring f;
	struct module_ring r;
	struct pmiprof_sample_rec rec;
	unsigned int fit = DATA_BYTES / sizeof(rec), i, got = 0;

	(void)state;
	fake_init(&f);
	module_ring_init(&r, f.map, DATA_BYTES, 0);
	for (i = 0; i < fit + 5; i++)
		fake_produce(&f, i);
	assert_int_equal(module_ring_take_lost(&r), 5);
	assert_int_equal(module_ring_take_lost(&r), 0);
	while (module_ring_next(&r, module_ring_head(&r), &rec) == 1)
		got++;
	assert_int_equal(got, fit);
	fake_consume(&f, r.tail);
	f.hdr->lost += 2;
	assert_int_equal(module_ring_take_lost(&r), 2);
	free(f.map);
}

static void ring_sync_starts_at_the_producer_position(void **state)
{
	struct fake_ring f;
	struct module_ring r;
	struct pmiprof_sample_rec rec;

	(void)state;
	fake_init(&f);
	f.hdr->head = f.hdr->tail = 7 * sizeof(rec);
	f.hdr->lost = 3;
	module_ring_init(&r, f.map, DATA_BYTES, 0);
	assert_int_equal(r.tail, 7 * sizeof(rec));
	assert_int_equal(module_ring_take_lost(&r), 0);
	assert_int_equal(module_ring_next(&r, module_ring_head(&r), &rec), 0);
	free(f.map);
}

static void ring_protocol_violations_skip_to_head(void **state)
{
	struct fake_ring f;
	struct module_ring r;
	struct pmiprof_sample_rec rec;
	uint64_t rs = sizeof(rec);

	(void)state;
	fake_init(&f);
	module_ring_init(&r, f.map, DATA_BYTES, 0);
	/* Head more than one ring ahead of the tail. */
	assert_int_equal(module_ring_next(&r, 20 * rs, &rec), -EPROTO);
	assert_int_equal(r.tail, 20 * rs);
	assert_int_equal(r.skipped, 20);
	/* Head behind the tail. */
	assert_int_equal(module_ring_next(&r, 3 * rs, &rec), -EPROTO);
	assert_int_equal(r.tail, 3 * rs);
	/* A partial record. */
	assert_int_equal(module_ring_next(&r, 3 * rs + 8, &rec), -EPROTO);
	assert_int_equal(r.tail, 3 * rs + 8);
	free(f.map);
}

static void records_become_samples_with_trace_flags(void **state)
{
	struct pmiprof_sample_rec rec;
	struct trace_sample s;

	(void)state;
	memset(&rec, 0, sizeof(rec));
	rec.time_ns = 123;
	rec.ip = 0xdead;
	rec.pid = 10;
	rec.tid = 11;
	rec.cpu = 3;
	rec.flags = PMIPROF_REC_F_USER | PMIPROF_REC_F_EMULATED | PMIPROF_REC_F_FIRST;
	rec.nr = 3;
	rec.counts[0] = 500;
	rec.counts[1] = 700;
	rec.counts[2] = 900;
	module_rec_to_sample(&rec, 0, 3, &s);
	assert_int_equal(s.time, 123);
	assert_int_equal(s.ip, 0xdead);
	assert_int_equal(s.pid, 10);
	assert_int_equal(s.tid, 11);
	assert_int_equal(s.cpu, 3);
	assert_int_equal(s.nr, 3);
	assert_int_equal(s.flags, PMIPROF_SAMPLE_F_USER | PMIPROF_SAMPLE_F_EMULATED |
				  PMIPROF_SAMPLE_F_FIRST);
	assert_int_equal(s.counts[0], 500);
	assert_int_equal(s.counts[2], 900);

	/* Timer mode: counters shift behind event 0 (window ns); extra ones are cut. */
	module_rec_to_sample(&rec, 1, 3, &s);
	assert_int_equal(s.counts[0], 0);
	assert_int_equal(s.counts[1], 500);
	assert_int_equal(s.counts[2], 700);
	assert_int_equal(s.counts[3], 0);

	assert_int_equal(module_rec_flags_to_trace(PMIPROF_REC_F_KERNEL | PMIPROF_REC_F_IP_HIDDEN |
						   PMIPROF_REC_F_TIMER),
			 PMIPROF_SAMPLE_F_KERNEL | PMIPROF_SAMPLE_F_IP_HIDDEN |
			 PMIPROF_SAMPLE_F_TIME_BASED);
}

/* REC_F_THROTTLED (ABI 1.x, additive) becomes SAMPLE_F_THROTTLED; unknown bits drop. */
static void throttled_record_flag_maps_to_sample_flag(void **state)
{
	struct pmiprof_sample_rec rec;
	struct trace_sample s;

	(void)state;
	assert_int_equal(module_rec_flags_to_trace(PMIPROF_REC_F_THROTTLED),
			 PMIPROF_SAMPLE_F_THROTTLED);
	assert_int_equal(module_rec_flags_to_trace(PMIPROF_REC_F_USER), PMIPROF_SAMPLE_F_USER);
	assert_int_equal(module_rec_flags_to_trace(PMIPROF_REC_F_THROTTLED | (1u << 30) |
						   (1u << 31)),
			 PMIPROF_SAMPLE_F_THROTTLED);
	/* ABI 1.1: a guest-mode window keeps its label */
	assert_int_equal(module_rec_flags_to_trace(PMIPROF_REC_F_GUEST), PMIPROF_SAMPLE_F_GUEST);

	memset(&rec, 0, sizeof(rec));
	rec.time_ns = 77;
	rec.cpu = 1;
	rec.flags = PMIPROF_REC_F_KERNEL | PMIPROF_REC_F_IP_HIDDEN | PMIPROF_REC_F_THROTTLED;
	rec.nr = 2;
	rec.counts[0] = 160000;
	rec.counts[1] = 240000;
	module_rec_to_sample(&rec, 0, 2, &s);
	assert_int_equal(s.flags, PMIPROF_SAMPLE_F_KERNEL | PMIPROF_SAMPLE_F_IP_HIDDEN |
				  PMIPROF_SAMPLE_F_THROTTLED);
	assert_int_equal(s.counts[0], 160000);
	assert_int_equal(s.counts[1], 240000);

	rec.flags &= ~PMIPROF_REC_F_THROTTLED;
	module_rec_to_sample(&rec, 0, 2, &s);
	assert_false(s.flags & PMIPROF_SAMPLE_F_THROTTLED);
}

static void event_names_map_to_vendor_codes(void **state)
{
	struct pmiprof_info intel = { .vendor = PMIPROF_VENDOR_INTEL, .cpu_family = 6 };
	struct pmiprof_info zen = { .vendor = PMIPROF_VENDOR_AMD, .cpu_family = 0x19 };
	struct pmiprof_info k10 = { .vendor = PMIPROF_VENDOR_AMD, .cpu_family = 0x10 };
	struct module_event_code c;

	(void)state;
	assert_int_equal(module_event_lookup(&intel, "instructions", &c), 0);
	assert_int_equal(c.event, 0xc0);
	assert_int_equal(c.umask, 0x00);
	assert_int_equal(module_event_lookup(&intel, "cycles", &c), 0);
	assert_int_equal(c.event, 0x3c);
	assert_int_equal(module_event_lookup(&intel, "ref-cycles", &c), 0);
	assert_int_equal(c.event, 0x00);
	assert_int_equal(c.umask, 0x03);
	assert_int_equal(module_event_lookup(&intel, "cache-misses", &c), 0);
	assert_int_equal(c.event, 0x2e);
	assert_int_equal(c.umask, 0x41);
	assert_int_equal(module_event_lookup(&intel, "cache-references:u", &c), 0);
	assert_int_equal(c.umask, 0x4f);
	assert_int_equal(module_event_lookup(&intel, "branch-instructions", &c), 0);
	assert_int_equal(c.event, 0xc4);
	assert_int_equal(module_event_lookup(&intel, "branch-misses", &c), 0);
	assert_int_equal(c.event, 0xc5);

	assert_int_equal(module_event_lookup(&zen, "cpu-cycles", &c), 0);
	assert_int_equal(c.event, 0x76);
	assert_int_equal(module_event_lookup(&zen, "cache-misses", &c), 0);
	assert_int_equal(c.event, 0x64);
	assert_int_equal(c.umask, 0x09);
	assert_int_equal(module_event_lookup(&k10, "cache-misses", &c), 0);
	assert_int_equal(c.event, 0x7e);
	assert_int_equal(module_event_lookup(&zen, "branches", &c), 0);
	assert_int_equal(c.event, 0xc2);
	assert_int_equal(module_event_lookup(&zen, "ref-cycles", &c), -ENOENT);

	assert_int_equal(module_event_lookup(&intel, "page-faults", &c), -ENOENT);
	assert_int_equal(module_event_lookup(&intel, "instrucions", &c), -ENOENT);
}

static void pmu_description_says_emulated_and_timer_only(void **state)
{
	struct pmiprof_info emul = {
		.vendor = PMIPROF_VENDOR_INTEL, .pmu_version = 2, .nr_gp = 4, .gp_width = 48,
		.nr_fixed = 3, .fixed_width = 48, .caps = PMIPROF_CAP_PMI,
		.flags = PMIPROF_INFO_F_EMULATED, .pmu_name = "emul-intel",
	};
	struct pmiprof_info none = { .caps = PMIPROF_CAP_TIMER, .pmu_name = "none",
				     .flags = PMIPROF_INFO_F_HYPERVISOR };
	char buf[256];

	(void)state;
	assert_true(module_has_pmi(&emul));
	module_describe_pmu(&emul, buf, sizeof(buf));
	assert_non_null(strstr(buf, "emul-intel"));
	assert_non_null(strstr(buf, "EMULATED"));
	assert_non_null(strstr(buf, "4 GP x 48 bit"));
	assert_false(module_has_pmi(&none));
	module_describe_pmu(&none, buf, sizeof(buf));
	assert_non_null(strstr(buf, "timer sampling only"));
	assert_non_null(strstr(buf, "virtual machine"));
}

static void device_open_errors_say_what_to_do(void **state)
{
	struct pmiprof_info info;
	char why[512];
	int ret;

	(void)state;
	ret = module_dev_open("/nonexistent/pmiprof", &info, why, sizeof(why));
	assert_int_equal(ret, -ENOENT);
	assert_non_null(strstr(why, "insmod"));
	/* A device that is not ours: GET_INFO fails with a clear message. */
	ret = module_dev_open("/dev/null", &info, why, sizeof(why));
	assert_true(ret < 0);
	assert_non_null(strstr(why, "GET_INFO"));
}

static void abi_major_mismatch_is_refused_with_the_fix(void **state)
{
	struct pmiprof_info info = {
		.abi_major = PMIPROF_ABI_MAJOR, .abi_minor = PMIPROF_ABI_MINOR + 3,
		.nr_cpus = 2, .ring_bytes = 1u << 20,
		.record_size = sizeof(struct pmiprof_sample_rec),
	};
	char why[512];

	(void)state;
	/* A newer minor only appends: accepted. */
	assert_int_equal(module_info_check(&info, why, sizeof(why)), 0);
	info.abi_major = PMIPROF_ABI_MAJOR + 1;
	assert_int_equal(module_info_check(&info, why, sizeof(why)), -EPROTO);
	assert_non_null(strstr(why, "ABI 2."));
	assert_non_null(strstr(why, "make module"));
	info.abi_major = PMIPROF_ABI_MAJOR;
	info.ring_bytes = 3000;		/* not a power of two */
	assert_int_equal(module_info_check(&info, why, sizeof(why)), -EPROTO);
	info.ring_bytes = 1u << 20;
	info.record_size = 16;		/* cannot hold a record */
	assert_int_equal(module_info_check(&info, why, sizeof(why)), -EPROTO);
	info.record_size = sizeof(struct pmiprof_sample_rec);
	info.nr_cpus = 0;
	assert_int_equal(module_info_check(&info, why, sizeof(why)), -EPROTO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ring_reads_every_record_in_order_across_wraps),
		cmocka_unit_test(ring_full_drops_are_reported_once_as_deltas),
		cmocka_unit_test(ring_sync_starts_at_the_producer_position),
		cmocka_unit_test(ring_protocol_violations_skip_to_head),
		cmocka_unit_test(records_become_samples_with_trace_flags),
		cmocka_unit_test(throttled_record_flag_maps_to_sample_flag),
		cmocka_unit_test(event_names_map_to_vendor_codes),
		cmocka_unit_test(pmu_description_says_emulated_and_timer_only),
		cmocka_unit_test(device_open_errors_say_what_to_do),
		cmocka_unit_test(abi_major_mismatch_is_refused_with_the_fix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
