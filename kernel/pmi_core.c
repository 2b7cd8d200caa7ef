// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel-independent heart of the PMI path: configuration
 * validation, the overflow handler shared by the Intel and AMD drivers,
 * window records, re-arm with overshoot, storm throttling and statistics.
 * It touches the PMU only through hw->ops, so the same code runs on real
 * MSRs, on the emulated PMU (pmu=emul) and in the user-space tests.
 *
 * MSR budget per PMI (common case, checked by tests/unit/test_pmi_budget.c):
 * 1 GLOBAL_CTRL write (freeze own counters), 1 status read, 1 read per
 * enabled counter, 1 re-arm write, 1 ack, 1 GLOBAL_CTRL write (re-enable),
 * 1 LVTPC write.  The status is re-read only when the counters contradict it
 * (an armed counter wrapped but its bit is not yet visible), at most
 * PMU_MAX_LOOPS times (then the sign bit is trusted): our counters are
 * frozen while we run, so no new overflow of ours can appear behind our
 * back and no blind re-read is needed.
 */
#include "pmu.h"

const struct pmu_driver *pmiprof_pmu_driver_for_vendor(u32 vendor)
{
	if (vendor == PMIPROF_VENDOR_INTEL)
		return &pmiprof_pmu_intel_driver;
	if (vendor == PMIPROF_VENDOR_AMD)
		return &pmiprof_pmu_amd_driver;
	return NULL;
}

u32 pmiprof_pmu_cpuid_vendor(struct pmu_hw *hw)
{
	u32 a, b, c, d;

	hw->ops->cpuid(hw, 0, 0, &a, &b, &c, &d);
	if (b == 0x756e6547u && d == 0x49656e69u && c == 0x6c65746eu)
		return PMIPROF_VENDOR_INTEL;	/* GenuineIntel */
	if (b == 0x68747541u && d == 0x69746e65u && c == 0x444d4163u)
		return PMIPROF_VENDOR_AMD;	/* AuthenticAMD */
	return PMIPROF_VENDOR_NONE;
}

static int cfg_fail(struct pmu_hw *hw, int err, const char *why)
{
	hw->reason = why;
	return err;
}

/*
 * The one validation path of CONFIGURE, for every PMU including none
 * (pmu=none: drv == NULL, timer mode without events).  The glue only adds
 * the caller's right to kernel IPs.
 */
int pmiprof_pmu_configure(struct pmu_hw *hw, const struct pmiprof_config *cfg)
{
	u32 i, triggers = 0;
	int err;

	hw->configured = false;
	hw->reason = NULL;
	if (cfg->size != sizeof(*cfg))
		return cfg_fail(hw, -EINVAL, "config size mismatch");
	if (cfg->flags & ~(PMIPROF_CFG_KERNEL_IPS | PMIPROF_CFG_TASK))
		return cfg_fail(hw, -EINVAL, "unknown config flags");
	if (cfg->reserved0)
		return cfg_fail(hw, -EINVAL, "reserved config fields must be zero");
	for (i = 0; i < ARRAY_SIZE(cfg->reserved); i++)
		if (cfg->reserved[i])
			return cfg_fail(hw, -EINVAL, "reserved config fields must be zero");
	if (cfg->mode < PMIPROF_SAMPLING_PMI || cfg->mode > PMIPROF_SAMPLING_COUNT)
		return cfg_fail(hw, -EINVAL, "unknown sampling mode");
	if (cfg->nr_events > PMU_MAX_EVENTS)
		return cfg_fail(hw, -EINVAL, "too many events");
	if (cfg->max_rate > PMU_DEFAULT_MAX_RATE)
		return cfg_fail(hw, -EINVAL, "max_rate above the module limit");
	if (cfg->mode == PMIPROF_SAMPLING_TIMER &&
	    (cfg->timer_ns < PMU_MIN_TIMER_NS || cfg->timer_ns > PMU_MAX_TIMER_NS))
		return cfg_fail(hw, -EINVAL, "timer interval out of range");
	if (!hw->drv) {
		if (cfg->mode != PMIPROF_SAMPLING_TIMER)
			return cfg_fail(hw, -EOPNOTSUPP,
					"no PMU (pmu=none): only timer mode is available");
		if (cfg->nr_events)
			return cfg_fail(hw, -EOPNOTSUPP,
					"no PMU (pmu=none): timer mode cannot count events");
	} else if (cfg->nr_events > hw->nr_gp + hw->nr_fixed) {
		return cfg_fail(hw, -ENOSPC, "more events than counters");
	}

	for (i = 0; i < cfg->nr_events; i++) {
		const struct pmiprof_event *ev = &cfg->events[i];

		if (ev->flags & PMIPROF_EV_TRIGGER) {
			triggers++;
			if (ev->period < hw->min_period)
				return cfg_fail(hw, -EINVAL, "period below the minimum");
			if (ev->period > hw->max_period)
				return cfg_fail(hw, -EINVAL,
						"period above the maximum (2^31-1 without full-width writes)");
		} else if (ev->period) {
			return cfg_fail(hw, -EINVAL, "period given for a non-trigger event");
		}
	}

	switch (cfg->mode) {
	case PMIPROF_SAMPLING_PMI:
		if (!(hw->caps & PMIPROF_CAP_PMI))
			return cfg_fail(hw, -EOPNOTSUPP, "PMU cannot interrupt on overflow");
		if (triggers != 1)
			return cfg_fail(hw, -EINVAL, "PMI mode needs exactly one trigger event");
		break;
	case PMIPROF_SAMPLING_TIMER:
		if (cfg->timer_ns < PMU_MIN_TIMER_NS || cfg->timer_ns > PMU_MAX_TIMER_NS)
			return cfg_fail(hw, -EINVAL, "timer interval out of range");
		fallthrough;
	case PMIPROF_SAMPLING_COUNT:
		if (triggers)
			return cfg_fail(hw, -EINVAL, "trigger events need PMI mode");
		break;
	}
	err = pmiprof_pmu_stack_configure(hw, cfg);
	if (err)
		return cfg_fail(hw, err, "invalid call-stack settings (stack_mode/max/dump)");

	hw->mode = cfg->mode;
	hw->nr_events = cfg->nr_events;
	hw->timer_ns = cfg->timer_ns;
	hw->max_rate = cfg->max_rate ? cfg->max_rate : PMU_DEFAULT_MAX_RATE;
	hw->kernel_ips = cfg->flags & PMIPROF_CFG_KERNEL_IPS;
	hw->trigger = -1;
	hw->period = 0;
	hw->own_mask = 0;
	hw->fixed_ctrl = 0;
	hw->bigcore_events = false;
	memset(hw->slots, 0, sizeof(hw->slots));
	if (!hw->drv) {
		hw->configured = true;
		return 0;
	}
	/* Every driver takes only whitelisted events; it then picks the counters. */
	for (i = 0; i < cfg->nr_events; i++) {
		const struct pmiprof_event *ev = &cfg->events[i];
		const char *why = NULL;

		err = pmiprof_pmu_whitelist_check(hw, ev, &why);
		if (err < 0)
			return cfg_fail(hw, err, why);
		if (err)
			hw->bigcore_events = true;
		hw->slots[i].event = ev->event | (u32)ev->umask << 16;
		hw->slots[i].flags = ev->flags;
		if (ev->flags & PMIPROF_EV_TRIGGER) {
			hw->trigger = i;
			hw->period = ev->period;
		}
	}
	err = hw->drv->configure(hw, cfg);
	if (err)
		return err;
	/* once here, not a division on every PMI in throttle() */
	hw->max_stretch = hw->period ? div64_u64(hw->max_period, hw->period) : 1;
	hw->configured = true;
	return 0;
}

static int busy(struct pmu_cpu *pc, struct pmu_busy *b, bool fixed, u32 idx, u32 msr, u64 val)
{
	b->fixed = fixed;
	b->idx = idx;
	b->msr = msr;
	b->val = val;
	pc->reason = PMU_BUSY_REASON;
	return -EBUSY;
}

int pmiprof_pmu_check_idle(struct pmu_cpu *pc, struct pmu_busy *b)
{
	struct pmu_hw *hw = pc->hw;
	u32 i;
	u64 v;

	for (i = 0; i < hw->nr_gp && i < PMU_MAX_GP; i++) {
		v = hw->ops->rd(pc, hw->evntsel_msr[i]);
		if (v & PMU_EVTSEL_EN)
			return busy(pc, b, false, i, hw->evntsel_msr[i], v);
	}
	if (hw->vendor == PMIPROF_VENDOR_INTEL && hw->nr_fixed) {
		v = hw->ops->rd(pc, PMU_MSR_IA32_FIXED_CTR_CTRL);
		for (i = 0; i < hw->nr_fixed; i++)
			if (v & ((PMU_FIXED_OS | PMU_FIXED_USR) << (4 * i)))
				return busy(pc, b, true, i, PMU_MSR_IA32_FIXED_CTR_CTRL, v);
	}
	return 0;
}

int pmiprof_pmu_reserve(struct pmu_hw *hw, u32 *idx)
{
	u32 i;

	if (hw->nr_reserved)
		return 0;
	for (i = 0; i < hw->nr_gp && i < PMU_MAX_GP; i++) {
		if (hw->ops->reserve(hw, i)) {
			*idx = i;
			while (i--)
				hw->ops->release(hw, i);
			return -EBUSY;
		}
	}
	hw->nr_reserved = i;
	return 0;
}

void pmiprof_pmu_release(struct pmu_hw *hw)
{
	while (hw->nr_reserved)
		hw->ops->release(hw, --hw->nr_reserved);
}

int pmiprof_pmu_probe_cpu(struct pmu_cpu *pc, struct pmu_probe_res *res)
{
	struct pmu_hw *hw = pc->hw;
	u32 msr = hw->probe_msr;
	u64 old = 0;

	memset(res, 0, sizeof(*res));
	res->msr = msr;
	res->err = pmiprof_pmu_check_idle(pc, &res->busy);
	if (res->err)
		return res->err;
	/* Low 16 bits flipped: the value differs from anything a TCG read returns. */
	res->err = -EIO;
	if (hw->ops->rd_safe(hw, msr, &old))
		return res->err;
	res->wrote = (old ^ 0xffff) & 0xffff;
	if (hw->ops->wr_safe(hw, msr, (old & ~0xffffull) | res->wrote) ||
	    hw->ops->rd_safe(hw, msr, &res->got))
		return res->err;
	hw->ops->wr_safe(hw, msr, old);
	res->got &= 0xffff;
	res->err = res->got == res->wrote ? 0 : -ENODEV;
	return res->err;
}

void pmiprof_pmu_fill_info(const struct pmu_hw *hw, struct pmiprof_info *info)
{
	info->vendor = hw->vendor;
	info->pmu_version = hw->version;
	info->nr_gp = hw->nr_gp;
	info->gp_width = hw->gp_width;
	info->nr_fixed = hw->nr_fixed;
	info->fixed_width = hw->fixed_width;
	info->caps = hw->caps;
	info->flags = hw->info_flags | (hw->emulated ? PMIPROF_INFO_F_EMULATED : 0) |
		      (hw->nr_reserved ? PMIPROF_INFO_F_RESERVED : 0);
	info->cpu_family = hw->family;
	info->cpu_model = hw->model;
	info->min_period = hw->min_period;
	info->max_period = hw->max_period;
	info->min_timer_ns = PMU_MIN_TIMER_NS;
	info->record_size = sizeof(struct pmiprof_sample_rec);
	memset(info->pmu_name, 0, sizeof(info->pmu_name));
	memcpy(info->pmu_name, hw->name, sizeof(hw->name) < sizeof(info->pmu_name) ?
	       sizeof(hw->name) - 1 : sizeof(info->pmu_name) - 1);
}

void pmiprof_pmu_cpu_reset_state(struct pmu_cpu *pc)
{
	WRITE_ONCE(pc->armed, false);
	pc->first = true;
	pc->throttled = false;
	WRITE_ONCE(pc->gctrl, 0);
	pc->debugctl = 0;
	pc->ack_extra = 0;
	memset(pc->prev, 0, sizeof(pc->prev));
	pc->left = 0;
	pc->slice_start_ns = 0;
	pc->slice_samples = 0;
	pc->stretch = 1;
	pc->last_handled_ns = 0;
	pc->stale = 0;
	pc->lvtpc_when = PMU_LVTPC_LATE;
	pc->nmi_avg_ns = 0;
	pc->time_rate = 0;
	pc->time_limited = 0;
	pc->task_orphans = 0;	/* task_mode is the glue's: drivers reset the rest again */
	WRITE_ONCE(pc->switching, false);
	WRITE_ONCE(pc->task_pid, 0);
	WRITE_ONCE(pc->task_tid, 0);
}

/*
 * Events left until the next overflow so that overflows stay on multiples
 * of the period: the counter ran @overshoot events past zero before the
 * handler froze it (perf's period_left).  Whole periods missed are merged
 * into this window.  Never less than 2 (x86_perf_event_set_period).
 */
u64 pmiprof_pmu_rearm_left(u64 period, u64 overshoot)
{
	u64 left;

	if (overshoot >= period)
		overshoot %= period;
	left = period - overshoot;
	return left < 2 ? 2 : left;
}

NOKPROBE_SYMBOL(pmiprof_pmu_rearm_left);

/* Initial counter values: the trigger gets -period, the others 0. */
void pmiprof_pmu_arm_counters(struct pmu_cpu *pc)
{
	struct pmu_hw *hw = pc->hw;
	u32 k;

	for (k = 0; k < hw->nr_events; k++) {
		const struct pmu_slot *s = &hw->slots[k];
		u64 v = (int)k == hw->trigger ? (0 - hw->period) & s->mask : 0;

		hw->ops->wr(pc, s->ctr_msr, v);
		pc->prev[k] = v;
	}
	pc->left = hw->period;
}

void pmiprof_pmu_read_deltas(struct pmu_cpu *pc, u64 *out)
{
	struct pmu_hw *hw = pc->hw;
	u32 k;

	for (k = 0; k < hw->nr_events; k++) {
		const struct pmu_slot *s = &hw->slots[k];
		u64 v = hw->ops->rd(pc, s->ctr_msr);

		out[k] = (v - pc->prev[k]) & s->mask;
		pc->prev[k] = v;
	}
}

/*
 * The handler's time, and the rate that keeps it under PMU_NMI_CPU_PERCENT
 * of the CPU, as perf_sample_event_took() lowers perf_event_max_sample_rate:
 * a mean over about 8 PMIs times the rate must stay within the share.
 */
static void account_time(struct pmu_cpu *pc, u64 start_ns)
{
	u64 dt = pmu_clock_ns() - start_ns, avg, rate;
	u32 b = 0;

	if ((s64)dt < 0)
		dt = 0;
	while (b < PMIPROF_HIST_BUCKETS - 1 && dt >= (128ull << b))
		b++;
	pc->stats.handler_ns_hist[b]++;
	pc->stats.handler_ns_total += dt;
	/* pmu=emul: the handler's time is TCG's, and exact windows are what it checks. */
	if (pc->hw->emulated)
		return;
	avg = pc->nmi_avg_ns ? pc->nmi_avg_ns - (pc->nmi_avg_ns >> 3) + (dt >> 3) : dt;
	pc->nmi_avg_ns = avg;
	rate = avg ? div64_u64(1000000000ull / 100 * PMU_NMI_CPU_PERCENT, avg) : 0;
	pc->time_rate = rate && rate < pc->hw->max_rate ? (u32)rate : 0;
}

NOKPROBE_SYMBOL(account_time);

/*
 * Per-task mode: counters loaded for one task while another is current
 * (sched_switch loads the next task before switch_to()), or a context the
 * glue hides.  The window is the loaded task's; the interrupted ip,
 * registers and stack are not, and may be another user's.
 */
static const struct pmi_ctx *task_ctx(const struct pmu_cpu *pc, const struct pmi_ctx *ctx,
				      struct pmi_ctx *tmp)
{
	u32 tid = READ_ONCE(pc->task_tid);

	if (!ctx->no_context && (!tid || ctx->tid == tid))
		return ctx;
	*tmp = *ctx;
	tmp->no_context = true;
	tmp->ip = 0;
	tmp->user = false;
	tmp->kernel_ip_ok = false;
	tmp->regs = NULL;
	if (tid) {
		tmp->pid = READ_ONCE(pc->task_pid);
		tmp->tid = tid;
	}
	return tmp;
}

NOKPROBE_SYMBOL(task_ctx);

static void emit(struct pmu_cpu *pc, const struct pmi_ctx *ctx, u64 status, u32 flags,
		 const u64 *counts, u32 nr)
{
	struct pmu_hw *hw = pc->hw;
	struct pmiprof_sample_rec rec;
	struct pmi_ctx tmp;
	u32 k;

	ctx = task_ctx(pc, ctx, &tmp);

	memset(&rec, 0, sizeof(rec));
	rec.time_ns = ctx->time_ns;
	rec.ip = ctx->ip;
	rec.status = status;
	rec.pid = ctx->pid;
	rec.tid = ctx->tid;
	rec.cpu = ctx->cpu;
	if (ctx->guest) {
		/* The host RIP is KVM's run loop, and the guest's is not readable here. */
		rec.ip = 0;
		rec.flags = flags | PMIPROF_REC_F_GUEST;
		pc->stats.guest++;
	} else {
		rec.flags = flags | (ctx->user ? PMIPROF_REC_F_USER : PMIPROF_REC_F_KERNEL);
	}
	if (!ctx->guest && !ctx->user && !ctx->kernel_ip_ok) {
		rec.ip = 0;	/* no KASLR leak to unprivileged readers */
		rec.flags |= PMIPROF_REC_F_IP_HIDDEN;
	}
	if (hw->emulated)
		rec.flags |= PMIPROF_REC_F_EMULATED;
	if (pc->first) {
		rec.flags |= PMIPROF_REC_F_FIRST;
		pc->first = false;
	}
	rec.nr = nr;
	for (k = 0; k < nr; k++)
		rec.counts[k] = counts[k];
	/* 1.2: with call stacks the record is variable-length (stack.c). */
	if (hw->stack_mode ? pmiprof_pmu_stack_emit(pc, ctx, &rec) : pmiprof_emit(pc, &rec))
		pc->stats.lost++;
	else
		pc->stats.samples++;
}

NOKPROBE_SYMBOL(emit);

/*
 * Storm throttling, a cap of max_rate windows per second per CPU.  The rate
 * is measured per slice of at most 10 ms at a constant stretch (the period
 * multiplier).  A slice that passes its budget (max_rate / 100 windows)
 * ends there and multiplies the stretch by what its measured rate asks for
 * (rounded up to a power of two, at least 2); the stretch carries into the
 * following slices, so the cap holds instead of resetting every 10 ms.  A
 * slice that used at most half its budget halves the stretch (once per
 * halving that still keeps the projected rate within half the budget).
 * Stretched periods add whole periods, so overflows stay on multiples of
 * the period; the records stay exact, they just cover more events.  Each
 * stretched window counts one stats.throttles, and the record closing it
 * carries PMIPROF_REC_F_THROTTLED (see close_window()).  The cap is the
 * lower of max_rate and the NMI time budget's rate (account_time()).
 */
static u64 throttle(struct pmu_cpu *pc, u64 now, u64 left)
{
	struct pmu_hw *hw = pc->hw;
	u32 rate = pc->time_rate ? pc->time_rate : hw->max_rate;
	u64 budget = rate / (1000000000ull / PMU_THROTTLE_SLICE_NS);
	u64 max_stretch = hw->max_stretch;
	u64 elapsed = now - pc->slice_start_ns;

	if (!budget)
		budget = 1;
	if (!pc->stretch)
		pc->stretch = 1;
	if ((s64)elapsed < 0)
		elapsed = 0;
	if (elapsed >= PMU_THROTTLE_SLICE_NS) {
		/* this window closes the slice: n windows in @slices slices */
		u64 slices = div64_u64(elapsed, PMU_THROTTLE_SLICE_NS);
		u64 n = (u64)pc->slice_samples + 1;

		while (pc->stretch > 1 && n * 2 <= budget * slices) {
			pc->stretch >>= 1;
			n *= 2;
		}
		pc->slice_start_ns = now;
		pc->slice_samples = 0;
	} else if (++pc->slice_samples > budget) {
		/* windows per slice at this rate, over the budget */
		u64 want = div64_u64((u64)pc->slice_samples * PMU_THROTTLE_SLICE_NS,
				     (elapsed ? elapsed : 1) * budget);
		u64 f = 2;

		while (f < want && f < BIT_ULL(20))
			f <<= 1;
		pc->stretch = pc->stretch * f > max_stretch ? max_stretch : pc->stretch * f;
		pc->slice_start_ns = now;
		pc->slice_samples = 0;
	}
	pc->throttled = pc->stretch > 1;
	if (!pc->throttled)
		return left;
	pc->stats.throttles++;
	if (pc->time_rate)
		pc->time_limited++;
	left += (pc->stretch - 1) * hw->period;
	return left > hw->max_period ? hw->max_period : left;
}

NOKPROBE_SYMBOL(throttle);

/*
 * Close the window: read every other counter, re-arm the trigger carrying
 * its overshoot (@vt: trigger value read after the wrap), emit the record.
 */
static void close_window(struct pmu_cpu *pc, const struct pmi_ctx *ctx, u64 vt, u64 status)
{
	struct pmu_hw *hw = pc->hw;
	const struct pmu_slot *ts = &hw->slots[hw->trigger];
	u64 counts[PMU_MAX_EVENTS];
	u64 left, next;
	/* pc->throttled still describes the window being closed */
	u32 flags = pc->throttled ? PMIPROF_REC_F_THROTTLED : 0;
	u32 k;

	for (k = 0; k < hw->nr_events; k++) {
		const struct pmu_slot *s = &hw->slots[k];
		u64 v = (int)k == hw->trigger ? vt : hw->ops->rd(pc, s->ctr_msr);

		counts[k] = (v - pc->prev[k]) & s->mask;
		pc->prev[k] = v;
	}
	left = throttle(pc, ctx->time_ns, pmiprof_pmu_rearm_left(hw->period, vt));
	next = (0 - left) & ts->mask;
	hw->ops->wr(pc, ts->ctr_msr, next);
	pc->prev[hw->trigger] = next;
	pc->left = left;
	if (pc->task_mode && !READ_ONCE(pc->task_tid)) {
		pc->task_orphans++;	/* no followed task's events */
		return;
	}
	emit(pc, ctx, status, flags, counts, hw->nr_events);
}

NOKPROBE_SYMBOL(close_window);

void pmiprof_pmu_close_overflow(struct pmu_cpu *pc, const struct pmi_ctx *ctx, u64 vt)
{
	close_window(pc, ctx, vt, 0);
}

NOKPROBE_SYMBOL(pmiprof_pmu_close_overflow);

int pmiprof_pmu_handle_global(struct pmu_cpu *pc, const struct pmi_ctx *ctx,
			      const struct pmu_gregs *g)
{
	struct pmu_hw *hw = pc->hw;
	const struct pmu_msr_ops *ops = hw->ops;
	const struct pmu_slot *ts;
	u64 own, mine, vt, tbit;
	bool wrapped;
	int loops = 0, handled = 0;

	if (!READ_ONCE(pc->armed) || hw->trigger < 0)
		return 0;
	ts = &hw->slots[hw->trigger];
	own = hw->own_mask | pc->ack_extra;
	tbit = ts->status_bit;

	if (pc->lvtpc_when == PMU_LVTPC_EARLY)
		ops->lvtpc(pc);
	ops->wr(pc, g->ctrl, READ_ONCE(pc->gctrl) & ~hw->own_mask);	/* freeze own counters */
	mine = ops->rd(pc, g->status) & own;			/* foreign bits stay untouched */
	vt = ops->rd(pc, ts->ctr_msr);
	wrapped = !(vt & ts->top);

	/*
	 * The counter wrapped but its status bit is not visible yet: bounded
	 * re-read.  When it never shows (another agent acked our bit), the sign
	 * bit is trusted: the window is closed and the trigger re-armed as usual.
	 * Disarming here would end sampling on this CPU for good over a bit
	 * someone else ate.
	 */
	while (wrapped && !(mine & tbit)) {
		if (++loops > PMU_MAX_LOOPS) {
			pc->stats.stuck++;
			break;
		}
		mine |= ops->rd(pc, g->status) & own;
	}

	if (wrapped && READ_ONCE(pc->switching)) {
		/* pmiprof_pmu_task_out() closes it, attributed to the task leaving */
		handled = 1;
	} else if (wrapped) {
		close_window(pc, ctx, vt, mine & hw->own_mask);
		handled = 1;
	} else if (mine & tbit) {
		pc->stale |= mine & tbit;	/* status bit without a wrap: ack, no window */
	}
	if (mine) {
		ops->wr(pc, g->ack, mine);	/* ack ONLY our own bits */
		handled = 1;
	}
	if (pc->lvtpc_when == PMU_LVTPC_MID)
		ops->lvtpc(pc);

	/* pc->gctrl: stop_cpu() clears our bits there first, so we never re-enable after it. */
	ops->wr(pc, g->ctrl, READ_ONCE(pc->gctrl));		/* re-enable */
	/* LVTPC unmasked on every path: Intel masked it when it delivered the PMI. */
	if (pc->lvtpc_when == PMU_LVTPC_LATE)
		ops->lvtpc(pc);

	if (!handled) {
		pc->stats.spurious++;
		return 0;
	}
	pc->stats.pmis++;
	account_time(pc, ctx->time_ns);
	return handled;
}

NOKPROBE_SYMBOL(pmiprof_pmu_handle_global);

int pmiprof_pmu_handle_signbit(struct pmu_cpu *pc, const struct pmi_ctx *ctx)
{
	struct pmu_hw *hw = pc->hw;
	const struct pmu_slot *ts;
	u64 vt;

	if (!READ_ONCE(pc->armed) || hw->trigger < 0)
		return 0;
	ts = &hw->slots[hw->trigger];
	/* Generic x86 order: unmask first (AMD never masks it; harmless). */
	hw->ops->lvtpc(pc);
	vt = hw->ops->rd(pc, ts->ctr_msr);
	if (vt & ts->top) {		/* sign bit still set: not overflowed */
		pc->stats.spurious++;
		return 0;
	}
	if (!READ_ONCE(pc->switching))	/* else pmiprof_pmu_task_out() closes it */
		close_window(pc, ctx, vt, 0);
	pc->stats.pmis++;
	account_time(pc, ctx->time_ns);
	return 1;
}

NOKPROBE_SYMBOL(pmiprof_pmu_handle_signbit);

/*
 * Timer mode tick (hard irq): one time-based window; counters are read
 * through the driver when a configured PMU runs, else the record has none.
 * pc->hw must be set (with drv == NULL when there is no PMU).
 */
int pmiprof_pmu_sample_timer(struct pmu_cpu *pc, const struct pmi_ctx *ctx)
{
	struct pmu_hw *hw = pc->hw;
	u64 counts[PMU_MAX_EVENTS];
	u32 nr = 0;

	memset(counts, 0, sizeof(counts));
	if (hw->drv && hw->configured && pc->armed && hw->nr_events) {
		hw->drv->read_counters(pc, counts);
		nr = hw->nr_events;
	}
	emit(pc, ctx, 0, PMIPROF_REC_F_TIMER, counts, nr);
	pc->stats.pmis++;
	account_time(pc, ctx->time_ns);
	return 1;
}
