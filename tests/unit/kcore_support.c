// SPDX-License-Identifier: GPL-2.0
/*
 * kcore_support.c - builds the kernel-independent PMU core files into the
 * user-space tests (through tests/unit/kshim.h) and provides what the
 * module glue provides in the kernel: pmiprof_emit() (a growing array
 * instead of the ring), pmu_clock_ns(), and the kcore harness.
 */
#include <stdlib.h>
#include <time.h>

#include "kcore.h"

#include "../../kernel/msr_model.c"
#include "../../kernel/pmi_core.c"
#include "../../kernel/pmu_amd.c"
#include "../../kernel/pmu_intel.c"
#include "../../kernel/pmu_task.c"
#include "../../kernel/pmu_whitelist.c"
#include "../../kernel/ring_core.c"
#include "../../kernel/stack.c"

struct pmiprof_sample_rec *kcore_recs;
size_t kcore_nrecs;
bool kcore_emit_fail;
u64 kcore_now_ns;
bool kcore_real_clock;
static size_t kcore_cap;

u64 pmu_clock_ns(void)
{
	struct timespec ts;

	if (!kcore_real_clock)
		return kcore_now_ns;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
}

int pmiprof_emit(struct pmu_cpu *pc, const struct pmiprof_sample_rec *rec)
{
	(void)pc;
	if (kcore_emit_fail)
		return -ENOSPC;
	if (kcore_nrecs == kcore_cap) {
		size_t cap = kcore_cap ? 2 * kcore_cap : 4096;
		struct pmiprof_sample_rec *n = realloc(kcore_recs, cap * sizeof(*n));

		if (!n)
			return -ENOSPC;
		kcore_recs = n;
		kcore_cap = cap;
	}
	kcore_recs[kcore_nrecs++] = *rec;
	return 0;
}

u32 kcore_stack_mode, kcore_stack_max, kcore_stack_dump;
struct ring_core kcore_ring;
void (*kshim_sync_hook)(const volatile void *p);
static void *kcore_ring_mem;
u8 *kcore_umem;
u64 kcore_umem_base, kcore_umem_len, kcore_umem_fault = UINT64_MAX;
u64 kcore_uregs[PMU_UREG_MAX];
bool kcore_no_user;
u64 kcore_read_ns;
u64 kcore_kframes[64];
u32 kcore_nkframes;

void kcore_ring_init(u32 data_bytes, bool varlen)
{
	free(kcore_ring_mem);
	kcore_ring_mem = calloc(1, PMIPROF_RING_HEADER_BYTES + data_bytes);
	kcore_ring.hdr = kcore_ring_mem;
	kcore_ring.data = (u8 *)kcore_ring_mem + PMIPROF_RING_HEADER_BYTES;
	kcore_ring.size = data_bytes;
	kcore_ring.rec_size = varlen ? 0 : sizeof(struct pmiprof_sample_rec);
	kcore_ring.hdr->record_size = kcore_ring.rec_size;
	kcore_ring.hdr->data_bytes = data_bytes;
}

int pmiprof_out_begin(struct pmu_cpu *pc, u32 max, struct pmu_out *o)
{
	(void)pc;
	if (!kcore_ring.hdr)
		kcore_ring_init(1u << 20, true);
	o->ring = &kcore_ring;
	o->max = max;
	if (kcore_emit_fail)
		return -ENOSPC;
	return pmiprof_ring_core_reserve(&kcore_ring, max, &o->head, &o->tail);
}

u8 *pmiprof_out_ptr(struct pmu_out *o, u32 off, u32 *contig)
{
	/* Writing past the reservation would be a producer bug: fail loudly. */
	if (off >= o->max) {
		fprintf(stderr, "pmiprof_out_ptr: offset %u beyond the %u reserved\n", off, o->max);
		abort();
	}
	return pmiprof_ring_core_ptr(o->ring, o->head + off, contig);
}

void pmiprof_out_commit(struct pmu_out *o, u32 len, u64 now)
{
	(void)now;
	if (len > o->max)
		abort();
	if (len)
		pmiprof_ring_core_publish(o->ring, o->head + len);
}

static bool kcore_user_regs(const struct pmi_ctx *ctx, u64 mask, u64 *out)
{
	u32 i, n = 0;

	(void)ctx;
	if (kcore_no_user)
		return false;
	for (i = 0; i < PMU_UREG_MAX; i++)
		if (mask & BIT_ULL(i))
			out[n++] = kcore_uregs[i];
	return true;
}

static unsigned long kcore_user_read(void *dst, u64 src, unsigned long n)
{
	unsigned long ok = 0;

	kcore_now_ns += kcore_read_ns;
	while (ok < n && src + ok >= kcore_umem_base && src + ok < kcore_umem_base + kcore_umem_len &&
	       src + ok < kcore_umem_fault) {
		((u8 *)dst)[ok] = kcore_umem[src + ok - kcore_umem_base];
		ok++;
	}
	return n - ok;
}

static u32 kcore_kernel_stack(const struct pmi_ctx *ctx, u32 max,
			      void (*put)(void *arg, u64 ip), void *arg)
{
	u32 i;

	(void)ctx;
	for (i = 0; i < kcore_nkframes && i < max; i++)
		put(arg, kcore_kframes[i]);
	return i;
}

const struct pmu_stack_ops kcore_stack_ops = {
	.user_regs = kcore_user_regs,
	.read = kcore_user_read,
	.kernel_stack = kcore_kernel_stack,
};

void kcore_reset_recs(void)
{
	kcore_nrecs = 0;
	kcore_emit_fail = false;
}

int kcore_setup(struct kcore *k, const struct pmu_model_spec *spec)
{
	memset(k, 0, sizeof(*k));
	pmiprof_pmu_model_init(&k->probe_model, spec);
	pmiprof_pmu_model_init(&k->model, spec);
	/* one reservation bitmap, as perf's, governs the CPU's GP registers */
	k->probe_model.resv = &k->probe_model;
	k->model.resv = &k->probe_model;
	k->hw.ops = &pmiprof_pmu_model_msr_ops;
	k->hw.model_probe = &k->probe_model;
	k->hw.emulated = true;
	k->hw.drv = pmiprof_pmu_driver_for_vendor(spec->vendor);
	k->hw.stack_ops = &kcore_stack_ops;
	k->pc.hw = &k->hw;
	k->pc.model = &k->model;
	k->user = true;
	k->ip = 0x401000;
	kcore_now_ns = 1000;
	kcore_reset_recs();
	return k->hw.drv ? k->hw.drv->probe(&k->hw) : -ENODEV;
}

struct pmiprof_event kcore_ev(u16 event, u8 umask, bool trigger, u64 period)
{
	struct pmiprof_event ev = {
		.event = event,
		.umask = umask,
		.flags = PMIPROF_EV_USER | PMIPROF_EV_KERNEL | (trigger ? PMIPROF_EV_TRIGGER : 0),
		.period = trigger ? period : 0,
	};
	return ev;
}

int kcore_configure(struct kcore *k, const struct pmiprof_event *evs, u32 n, int trig,
		    u64 period)
{
	struct pmiprof_config cfg;
	u32 i;

	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.mode = PMIPROF_SAMPLING_PMI;
	cfg.nr_events = n;
	cfg.stack_mode = kcore_stack_mode;
	cfg.stack_max = kcore_stack_max;
	cfg.stack_dump = kcore_stack_dump;
	for (i = 0; i < n; i++) {
		cfg.events[i] = evs[i];
		cfg.events[i].flags &= ~PMIPROF_EV_TRIGGER;
		cfg.events[i].period = 0;
		if ((int)i == trig) {
			cfg.events[i].flags |= PMIPROF_EV_TRIGGER;
			cfg.events[i].period = period;
		}
	}
	return pmiprof_pmu_configure(&k->hw, &cfg);
}

int kcore_start(struct kcore *k)
{
	int err = k->hw.drv->check_free(&k->pc);

	return err ? err : k->hw.drv->start_cpu(&k->pc);
}

void kcore_stop(struct kcore *k)
{
	k->hw.drv->stop_cpu(&k->pc);
}

struct pmi_ctx kcore_ctx(const struct kcore *k)
{
	struct pmi_ctx ctx = {
		.ip = k->ip,
		.time_ns = pmu_clock_ns(),
		.pid = 4242,
		.tid = 4243,
		.cpu = k->pc.cpu,
		.user = k->user,
		.kernel_ip_ok = k->hw.kernel_ips,
		.guest = k->guest,
		.user_compat = k->user_compat,
	};
	return ctx;
}

void kcore_take_pmis(struct kcore *k)
{
	while (k->model.pmi_pending) {
		struct pmi_ctx ctx = kcore_ctx(k);

		k->model.pmi_pending--;
		k->hw.drv->handle_pmi(&k->pc, &ctx);
		k->pmis_taken++;
	}
}

void kcore_run(struct kcore *k, u64 instructions, u32 max_step, u32 seed)
{
	u32 x = seed ? seed : 1;

	while (instructions) {
		u64 step;

		x = x * 1103515245u + 12345u;
		step = 1 + (x >> 8) % max_step;
		if (step > instructions)
			step = instructions;
		pmiprof_pmu_model_advance(&k->model, step, step + step / 2);
		kcore_now_ns += step;
		instructions -= step;
		kcore_take_pmis(k);
	}
}
