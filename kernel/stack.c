// SPDX-License-Identifier: GPL-2.0
/*
 * Call stacks in the PMI record (ABI 1.2): the user frame-pointer walk,
 * the leaf words and the dwarf-mode register + stack copy, written
 * straight into the reserved ring record (the NMI stack is too small for a
 * 1024-frame or 64 KiB buffer).  User memory and the kernel unwinder are
 * reached through hw->stack_ops only, so this file also compiles in user
 * space, where the tests give it a fake address space (kcore_support.c).
 *
 * Bounds per PMI (docs/kernel-pmu-core.md, "Call stacks"): stack_max frames
 * (kernel + user, as perf's max_stack), PMU_STACK_MAX_READS user reads and
 * PMU_STACK_BUDGET_NS of walking.  A read that faults ends the chain.
 */
#ifdef __KERNEL__
#include <linux/bitops.h>
#endif
#include "pmu.h"

#define STACK_BASE	((u32)(sizeof(struct pmiprof_sample_rec) + \
			       sizeof(struct pmiprof_stack_rec)))

static u32 stack_nr_regs(u32 mode)
{
	u64 mask = mode == PMIPROF_STACK_DWARF ? PMIPROF_STACK_DWARF_REGS : PMIPROF_STACK_FP_REGS;

	return (u32)hweight64(mask);
}

int pmiprof_pmu_stack_configure(struct pmu_hw *hw, const struct pmiprof_config *cfg)
{
	hw->stack_mode = PMIPROF_STACK_NONE;
	hw->stack_rec_max = 0;
	if (cfg->stack_reserved)
		return -EINVAL;
	if (cfg->stack_mode == PMIPROF_STACK_NONE) {
		if (cfg->stack_max || cfg->stack_dump)
			return -EINVAL;
		return 0;
	}
	if (cfg->stack_mode != PMIPROF_STACK_FP && cfg->stack_mode != PMIPROF_STACK_DWARF)
		return -EINVAL;
	if (cfg->mode == PMIPROF_SAMPLING_COUNT)
		return -EINVAL;		/* counting writes no samples */
	if (!hw->stack_ops)
		return -EOPNOTSUPP;
	if (!cfg->stack_max || cfg->stack_max > PMIPROF_STACK_MAX_FRAMES)
		return -EINVAL;
	if (cfg->stack_mode == PMIPROF_STACK_DWARF ?
	    !cfg->stack_dump || cfg->stack_dump % 8 || cfg->stack_dump > PMIPROF_STACK_MAX_DUMP :
	    cfg->stack_dump != 0)
		return -EINVAL;
	hw->stack_mode = cfg->stack_mode;
	hw->stack_max = cfg->stack_max;
	hw->stack_dump = cfg->stack_mode == PMIPROF_STACK_DWARF ? cfg->stack_dump :
			 PMIPROF_STACK_LEAF_BYTES;
	hw->stack_rec_max = STACK_BASE + 8 * (hw->stack_max + stack_nr_regs(hw->stack_mode)) +
			    hw->stack_dump;
	return 0;
}

/* Where the stack part is being written. */
struct stack_wr {
	struct pmu_out *o;
	u32 off;		/* next free byte of the record */
	u32 nr;			/* frames written */
};

static void out_put(struct pmu_out *o, u32 off, const void *src, u32 len)
{
	u32 contig, len2;
	u8 *p;

	if (!len)
		return;
	p = pmiprof_out_ptr(o, off, &contig);
	if (contig >= len) {
		memcpy(p, src, len);
		return;
	}
	memcpy(p, src, contig);
	/* the rest from the start of the data area */
	memcpy(pmiprof_out_ptr(o, off + contig, &len2), (const u8 *)src + contig, len - contig);
}

NOKPROBE_SYMBOL(out_put);

static void put_ip(void *arg, u64 ip)
{
	struct stack_wr *w = arg;

	out_put(w->o, w->off, &ip, sizeof(ip));
	w->off += sizeof(ip);
	w->nr++;
}

NOKPROBE_SYMBOL(put_ip);

/*
 * Copy @n user bytes from @src into the record at @off, in at most two
 * reads (the ring may wrap).  Returns the bytes copied: a fault ends the
 * copy at the first byte not copied.
 */
static u32 out_user(const struct pmu_hw *hw, struct pmu_out *o, u32 off, u64 src, u32 n,
		    struct pmiprof_stack_rec *sr)
{
	u32 done = 0;

	while (done < n) {
		u32 contig, want;
		u8 *p = pmiprof_out_ptr(o, off + done, &contig);
		unsigned long left;

		want = min_t(u32, contig, n - done);
		sr->reads++;
		left = hw->stack_ops->read(p, src + done, want);
		done += want - (u32)left;
		if (left)
			break;
	}
	return done;
}

NOKPROBE_SYMBOL(out_user);

/* The budget is spent: the read count, or the clock every few reads. */
static bool over_budget(const struct pmiprof_stack_rec *sr, u64 t0)
{
	if (sr->reads >= PMU_STACK_MAX_READS)
		return true;
	return sr->reads && !(sr->reads % PMU_STACK_CLOCK_EVERY) &&
	       pmu_clock_ns() - t0 > PMU_STACK_BUDGET_NS;
}

NOKPROBE_SYMBOL(over_budget);

/*
 * The frame-pointer chain from @fp: each frame is {saved fp, return
 * address}, one 16-byte read.  Frames must lie above the user SP and go up
 * the stack (x86 stacks grow down), which also ends any loop.
 */
static void walk_fp(const struct pmu_hw *hw, struct stack_wr *w, u64 fp, u64 sp, u32 max,
		    struct pmiprof_stack_rec *sr, u64 t0)
{
	while (fp) {
		u64 frame[2];

		if (w->nr >= max) {
			sr->flags |= PMIPROF_STACK_F_DEPTH;
			return;
		}
		if ((fp & 7) || fp < sp) {
			sr->flags |= PMIPROF_STACK_F_BAD_FP;
			return;
		}
		if (over_budget(sr, t0)) {
			sr->flags |= PMIPROF_STACK_F_BUDGET;
			return;
		}
		sr->reads++;
		if (hw->stack_ops->read(frame, fp, sizeof(frame))) {
			sr->flags |= PMIPROF_STACK_F_FAULT;
			return;
		}
		if (!frame[1])
			return;
		put_ip(w, frame[1]);
		if (frame[0] && frame[0] <= fp) {
			sr->flags |= PMIPROF_STACK_F_BAD_FP;
			return;
		}
		sp = fp + sizeof(frame);
		fp = frame[0];
	}
}

NOKPROBE_SYMBOL(walk_fp);

/*
 * Is there a user stack this walk can describe?  Not in guest mode or a
 * hidden context, and not for a 32-bit (compat) user context: its frames
 * are {u32 fp, u32 ret}, its registers 32-bit, and the record's register
 * set is perf's 64-bit ABI only.  Walking it with 64-bit frames would
 * write pairs of return addresses as one bogus frame (perf walks it with
 * perf_callchain_user32(); not done here: the ip alone is recorded).
 */
static bool stack_user_walkable(const struct pmi_ctx *ctx)
{
	return !ctx->guest && !ctx->no_context && !ctx->user_compat;
}

NOKPROBE_SYMBOL(stack_user_walkable);

int pmiprof_pmu_stack_emit(struct pmu_cpu *pc, const struct pmi_ctx *ctx,
			   struct pmiprof_sample_rec *rec)
{
	const struct pmu_hw *hw = pc->hw;
	struct pmiprof_stack_rec sr;
	u64 regs[PMU_UREG_MAX], mask, t0 = pmu_clock_ns();
	struct stack_wr w;
	struct pmu_out o;
	bool user;
	u32 dump = 0, pad;
	u64 zero = 0;

	if (pmiprof_out_begin(pc, hw->stack_rec_max, &o))
		return -ENOSPC;
	memset(&sr, 0, sizeof(sr));
	w.o = &o;
	w.off = STACK_BASE;
	w.nr = 0;
	mask = hw->stack_mode == PMIPROF_STACK_DWARF ? PMIPROF_STACK_DWARF_REGS :
	       PMIPROF_STACK_FP_REGS;

	/* Kernel frames only for readers allowed kernel addresses (KASLR). */
	if (!ctx->user && !ctx->guest && !ctx->no_context && ctx->kernel_ip_ok &&
	    hw->stack_ops->kernel_stack)
		hw->stack_ops->kernel_stack(ctx, hw->stack_max, put_ip, &w);
	sr.nr_kernel = w.nr;

	user = stack_user_walkable(ctx) && hw->stack_ops->user_regs(ctx, mask, regs);
	if (!user) {
		sr.flags |= PMIPROF_STACK_F_NO_USER;
		mask = 0;
	}
	if (user && hw->stack_mode == PMIPROF_STACK_FP) {
		/* perf's order: regs[] holds bp, sp, ip for mask 0x1c0 */
		u64 bp = regs[0], sp = regs[1], ip = regs[2];

		/* A kernel-mode sample's user part starts at the user ip (not a return address). */
		if (!ctx->user && w.nr < hw->stack_max)
			put_ip(&w, ip);
		walk_fp(hw, &w, bp, sp, hw->stack_max, &sr, t0);
	}
	sr.nr = w.nr;
	if (mask) {
		sr.regs_mask = mask;
		sr.nr_regs = (u16)hweight64(mask);
		out_put(&o, w.off, regs, 8u * sr.nr_regs);
		w.off += 8u * sr.nr_regs;
		/* Leaf words (fp) or the dwarf dump: from the user SP up. */
		if (!over_budget(&sr, t0) || hw->stack_mode == PMIPROF_STACK_DWARF) {
			/* regs[] is packed: SP's index is the mask bits below it */
			u64 sp = regs[hweight64(mask & (BIT_ULL(PMU_UREG_SP) - 1))];

			/* Short near the top of the stack, as perf's dyn_size: not a fault. */
			dump = out_user(hw, &o, w.off, sp, hw->stack_dump, &sr);
		} else {
			sr.flags |= PMIPROF_STACK_F_BUDGET;
		}
		sr.dump_size = dump;
		w.off += dump;
	}
	/* Zero padding to 8 bytes: no stale ring bytes reach the reader. */
	pad = (8 - (w.off & 7)) & 7;
	out_put(&o, w.off, &zero, pad);
	w.off += pad;

	rec->flags |= PMIPROF_REC_F_STACK;
	rec->size = w.off;
	out_put(&o, 0, rec, sizeof(*rec));
	out_put(&o, sizeof(*rec), &sr, sizeof(sr));

	pc->stack_stats.walks++;
	pc->stack_stats.reads += sr.reads;
	if (sr.flags & (PMIPROF_STACK_F_DEPTH | PMIPROF_STACK_F_BUDGET))
		pc->stack_stats.truncated++;
	if (sr.flags & PMIPROF_STACK_F_FAULT)
		pc->stack_stats.faults++;
	pc->stack_stats.ns_total += pmu_clock_ns() - t0;
	pmiprof_out_commit(&o, w.off, rec->time_ns);
	return 0;
}

NOKPROBE_SYMBOL(pmiprof_pmu_stack_emit);
