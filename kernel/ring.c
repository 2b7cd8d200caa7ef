// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU sample rings: allocation, the NMI-safe producer, the
 * consumer ioctl, mmap (read-only) and poll().
 *
 * Producer (the owning CPU, NMI or hard-irq):
 *	tail = smp_load_acquire(&hdr->tail);	pairs with the release in CONSUME
 *	if (head + rec - tail > size) drop, hdr->lost++;
 *	copy the record to data[head % size] (wrapping at the end of the area)
 *	smp_store_release(&hdr->head, head + rec);	publishes the record
 * Consumer (user space): load-acquire head, read [tail, head), then
 * CONSUME(new tail); the module clamps it to [tail, head] and store-releases
 * it, so the producer never overwrites bytes the consumer may still read.
 *
 * With call stacks (ABI 1.2) records are variable-length: the producer
 * reserves the largest record the session can make, the PMU core writes
 * the stack part straight into the ring (no NMI-stack buffer), and the
 * commit publishes what was written; hdr->record_size is then 0.  The
 * arithmetic is ring_core.c, shared with the user-space tests.
 *
 * Readiness is edge-like, as in perf: the producer marks its ring ready
 * when it is a quarter full or RING_WAKE_NS after the last mark, and wakes
 * poll() through irq_work (never wake_up() from NMI); CONSUME clears the
 * mark.  A level "not empty" test would make a consumer spin on a ring that
 * gains a record every tick.  After STOP every non-empty ring is ready.
 */
#include <linux/cpumask.h>
#include <linux/irq_work.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>

#include "compat.h"
#include "pmu.h"
#include "ring.h"
#include "ring_core.h"

#define RING_REC_BYTES	((u32)sizeof(struct pmiprof_sample_rec))
#define RING_WAKE_NS	(100 * NSEC_PER_MSEC)
#define RING_WAKE_FILL(r)	((r)->size / 4)

struct pmiprof_ring {
	struct pmiprof_ring_header *hdr;	/* start of the vmalloc_user area */
	struct ring_core core;			/* hdr, data, size, record size */
	u32 size;				/* data bytes, power of two */
	unsigned int nest;			/* producer re-entry guard (NMI in hard-irq) */
	u64 last_wake_ns;
	bool ready;				/* poll() reports it readable */
	struct irq_work wake;
};

static struct pmiprof_ring **rings;	/* [nr_cpu_ids], possible CPUs only */
static bool rings_flushing;		/* stopped: any unread record is ready */
static u32 ring_bytes;
static DECLARE_WAIT_QUEUE_HEAD(ring_wq);
static DEFINE_MUTEX(ring_consume_lock);	/* CONSUME read-modify-write of tail, and reset */

static void ring_wake_fn(struct irq_work *work)
{
	wake_up_interruptible(&ring_wq);
}

static struct pmiprof_ring *ring_alloc(unsigned int cpu, u32 data_bytes)
{
	struct pmiprof_ring *r = kzalloc(sizeof(*r), GFP_KERNEL);

	if (!r)
		return NULL;
	/* vmalloc_user: zeroed, and flagged so remap_vmalloc_range() accepts it. */
	r->hdr = vmalloc_user(PMIPROF_RING_HEADER_BYTES + data_bytes);
	if (!r->hdr) {
		kfree(r);
		return NULL;
	}
	r->core.hdr = r->hdr;
	r->core.data = (u8 *)r->hdr + PMIPROF_RING_HEADER_BYTES;
	r->core.size = data_bytes;
	r->core.rec_size = RING_REC_BYTES;
	r->size = data_bytes;
	r->hdr->cpu = cpu;
	r->hdr->record_size = RING_REC_BYTES;
	r->hdr->data_bytes = data_bytes;
	init_irq_work(&r->wake, ring_wake_fn);
	return r;
}

static void ring_destroy(struct pmiprof_ring *r)
{
	if (!r)
		return;
	irq_work_sync(&r->wake);
	vfree(r->hdr);
	kfree(r);
}

int pmiprof_ring_set_size(u32 data_bytes)
{
	if (!is_power_of_2(data_bytes) || data_bytes < PAGE_SIZE)
		return -EINVAL;
	ring_bytes = data_bytes;
	return 0;
}

int pmiprof_ring_init_all(void)
{
	unsigned int cpu;

	if (WARN_ON_ONCE(rings))
		return -EBUSY;
	rings = kcalloc(nr_cpu_ids, sizeof(*rings), GFP_KERNEL);
	if (!rings)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		rings[cpu] = ring_alloc(cpu, ring_bytes);
		if (!rings[cpu]) {
			pmiprof_ring_free_all();
			return -ENOMEM;
		}
	}
	return 0;
}

void pmiprof_ring_free_all(void)
{
	unsigned int cpu;

	if (!rings)
		return;
	for_each_possible_cpu(cpu)
		ring_destroy(rings[cpu]);
	kfree(rings);
	rings = NULL;
}

void pmiprof_ring_reset_all(bool varlen)
{
	unsigned int cpu;

	/*
	 * A CONSUME racing with the reset (another thread on the same
	 * descriptor) could store its old tail after the reset, leaving
	 * tail > head: every later record would be dropped.
	 */
	mutex_lock(&ring_consume_lock);
	for_each_possible_cpu(cpu) {
		struct pmiprof_ring *r = rings[cpu];

		/* Sampling is stopped. */
		pmiprof_ring_core_reset(&r->core, varlen ? 0 : RING_REC_BYTES);
		r->last_wake_ns = 0;
		WRITE_ONCE(r->ready, false);
	}
	WRITE_ONCE(rings_flushing, false);
	mutex_unlock(&ring_consume_lock);
}

/* Mark and wake once per transition; a marked ring stays readable until CONSUME. */
static void ring_mark(struct pmiprof_ring *r, u64 head, u64 tail, u64 now)
{
	if (!READ_ONCE(r->ready) &&
	    (head - tail >= RING_WAKE_FILL(r) || now - r->last_wake_ns >= RING_WAKE_NS)) {
		r->last_wake_ns = now;
		/* Set before the wake-up; poll() re-checks after poll_wait(). */
		WRITE_ONCE(r->ready, true);
		irq_work_queue(&r->wake);
	}
}

NOKPROBE_SYMBOL(ring_mark);

/*
 * Reserve @max bytes on @cpu's ring for one record; the nesting guard stays
 * taken until pmiprof_ring_commit().  -ENOSPC: dropped and counted.
 */
static int ring_begin(unsigned int cpu, u32 max, struct pmu_out *o)
{
	struct pmiprof_ring *r = rings[cpu];
	u64 tail;

	o->ring = r;
	o->max = max;
	if (r->nest++) {
		/* An NMI landed inside a hard-irq producer on this CPU. */
		WRITE_ONCE(r->hdr->lost, r->hdr->lost + 1);
		r->nest--;
		return -ENOSPC;
	}
	barrier();
	if (pmiprof_ring_core_reserve(&r->core, max, &o->head, &tail)) {
		ring_mark(r, o->head, tail, local_clock());
		barrier();
		r->nest--;
		return -ENOSPC;
	}
	o->tail = tail;
	return 0;
}

NOKPROBE_SYMBOL(ring_begin);

static void ring_commit(struct pmu_out *o, u32 len, u64 now)
{
	struct pmiprof_ring *r = o->ring;

	if (len) {
		pmiprof_ring_core_publish(&r->core, o->head + len);
		o->head += len;
	}
	ring_mark(r, o->head, o->tail, now);
	barrier();
	r->nest--;
}

NOKPROBE_SYMBOL(ring_commit);

int pmiprof_ring_write(unsigned int cpu, const struct pmiprof_sample_rec *rec)
{
	struct pmu_out o;
	struct pmiprof_ring *r;

	if (ring_begin(cpu, RING_REC_BYTES, &o))
		return -ENOSPC;
	r = o.ring;
	pmiprof_ring_core_put(&r->core, o.head, rec, RING_REC_BYTES);
	/*
	 * A variable-length ring (call stacks) steps by each record's size:
	 * records without a stack part (per-task PARTIAL windows, counting
	 * totals) say they are the base size.
	 */
	if (!r->core.rec_size) {
		u32 sz = RING_REC_BYTES;

		pmiprof_ring_core_put(&r->core, o.head + offsetof(struct pmiprof_sample_rec, size),
				      &sz, sizeof(sz));
	}
	ring_commit(&o, RING_REC_BYTES, rec->time_ns);
	return 0;
}

NOKPROBE_SYMBOL(pmiprof_ring_write);

/* The PMU core's output sinks (pmu.h). */
int pmiprof_emit(struct pmu_cpu *pc, const struct pmiprof_sample_rec *rec)
{
	return pmiprof_ring_write(pc->cpu, rec);
}

NOKPROBE_SYMBOL(pmiprof_emit);

int pmiprof_out_begin(struct pmu_cpu *pc, u32 max, struct pmu_out *o)
{
	return ring_begin(pc->cpu, max, o);
}

NOKPROBE_SYMBOL(pmiprof_out_begin);

u8 *pmiprof_out_ptr(struct pmu_out *o, u32 off, u32 *contig)
{
	struct pmiprof_ring *r = o->ring;

	return pmiprof_ring_core_ptr(&r->core, o->head + off, contig);
}

NOKPROBE_SYMBOL(pmiprof_out_ptr);

void pmiprof_out_commit(struct pmu_out *o, u32 len, u64 now)
{
	ring_commit(o, len, now);
}

NOKPROBE_SYMBOL(pmiprof_out_commit);

int pmiprof_ring_consume(unsigned int cpu, u64 tail)
{
	struct pmiprof_ring *r;
	int ret;

	if (cpu >= nr_cpu_ids || !rings[cpu])
		return -EINVAL;
	r = rings[cpu];
	mutex_lock(&ring_consume_lock);
	/* Clamped to [tail, head] and on a record boundary, else -EINVAL and unchanged. */
	ret = pmiprof_ring_core_consume(&r->core, tail);
	/* Re-arm readiness; a mark the producer set meanwhile may be lost, so re-test fill. */
	if (!ret) {
		/* Pairs with the producer's release of head. */
		u64 head = smp_load_acquire(&r->hdr->head);

		WRITE_ONCE(r->ready, head - r->hdr->tail >= RING_WAKE_FILL(r));
	}
	mutex_unlock(&ring_consume_lock);
	return ret;
}

u64 pmiprof_ring_lost(unsigned int cpu)
{
	return READ_ONCE(rings[cpu]->hdr->lost);
}

u32 pmiprof_ring_data_bytes(void)
{
	return ring_bytes;
}

int pmiprof_ring_mmap(struct vm_area_struct *vma)
{
	unsigned long map_pages = (PMIPROF_RING_HEADER_BYTES + ring_bytes) >> PAGE_SHIFT;
	unsigned long size = vma->vm_end - vma->vm_start;
	unsigned long cpu;

	/* Sample pages are read-only to user space, now and after mprotect(). */
	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EACCES;
	if (vma->vm_pgoff % map_pages || size > (map_pages << PAGE_SHIFT))
		return -EINVAL;
	cpu = vma->vm_pgoff / map_pages;
	if (cpu >= nr_cpu_ids || !rings[cpu])
		return -ENXIO;
	/*
	 * Not inherited: a child's copy would keep the session (sampling, the
	 * device EBUSY) after the opener closed and exited.  VM_DONTCOPY alone
	 * is undone by MADV_DOFORK; VM_IO makes madvise() refuse it (EINVAL),
	 * and keeps the pages out of get_user_pages() and core dumps as well.
	 */
	pmiprof_vm_flags_mod(vma, VM_DONTCOPY | VM_IO, VM_MAYWRITE | VM_MAYEXEC);
	return remap_vmalloc_range(vma, rings[cpu]->hdr, 0);
}

static bool ring_any_readable(void)
{
	bool flushing = READ_ONCE(rings_flushing);
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct pmiprof_ring_header *hdr = rings[cpu]->hdr;

		if (READ_ONCE(rings[cpu]->ready))
			return true;
		/* Acquire: a reader woken by this sees the records too. */
		if (flushing && smp_load_acquire(&hdr->head) != READ_ONCE(hdr->tail))
			return true;
	}
	return false;
}

__poll_t pmiprof_ring_poll(struct file *file, poll_table *wait)
{
	poll_wait(file, &ring_wq, wait);
	return ring_any_readable() ? EPOLLIN | EPOLLRDNORM : 0;
}

void pmiprof_ring_wake_readers(void)
{
	WRITE_ONCE(rings_flushing, true);
	wake_up_interruptible(&ring_wq);
}
