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

#define RING_REC_BYTES	((u32)sizeof(struct pmiprof_sample_rec))
#define RING_WAKE_NS	(100 * NSEC_PER_MSEC)
#define RING_WAKE_FILL(r)	((r)->size / 4)

struct pmiprof_ring {
	struct pmiprof_ring_header *hdr;	/* start of the vmalloc_user area */
	u8 *data;
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
	r->data = (u8 *)r->hdr + PMIPROF_RING_HEADER_BYTES;
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

void pmiprof_ring_reset_all(void)
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

		WRITE_ONCE(r->hdr->lost, 0);
		/* Sampling is stopped; release orders the reset against the consumer. */
		smp_store_release(&r->hdr->tail, 0);
		/* As above: a consumer that sees head 0 also sees tail 0. */
		smp_store_release(&r->hdr->head, 0);
		r->last_wake_ns = 0;
		WRITE_ONCE(r->ready, false);
	}
	WRITE_ONCE(rings_flushing, false);
	mutex_unlock(&ring_consume_lock);
}

static void ring_copy_in(struct pmiprof_ring *r, u64 head, const void *src)
{
	u32 off = head & (r->size - 1);
	u32 first = min(RING_REC_BYTES, r->size - off);

	memcpy(r->data + off, src, first);
	if (first < RING_REC_BYTES)
		memcpy(r->data, (const u8 *)src + first, RING_REC_BYTES - first);
}

int pmiprof_ring_write(unsigned int cpu, const struct pmiprof_sample_rec *rec)
{
	struct pmiprof_ring *r = rings[cpu];
	struct pmiprof_ring_header *hdr = r->hdr;
	int ret = 0;
	u64 head, tail;

	if (r->nest++) {
		/* An NMI landed inside a hard-irq producer on this CPU. */
		WRITE_ONCE(hdr->lost, hdr->lost + 1);
		ret = -ENOSPC;
		goto out;
	}
	barrier();
	head = hdr->head;	/* only this CPU writes head */
	/* Pairs with the release in pmiprof_ring_consume(): bytes below tail are consumed. */
	tail = smp_load_acquire(&hdr->tail);
	if (head + RING_REC_BYTES - tail > r->size) {
		WRITE_ONCE(hdr->lost, hdr->lost + 1);
		ret = -ENOSPC;
		goto wake;
	}
	ring_copy_in(r, head, rec);
	/* Publish: the record is visible before the new head (consumer acquires head). */
	smp_store_release(&hdr->head, head + RING_REC_BYTES);
	head += RING_REC_BYTES;
wake:
	/* Mark and wake once per transition; a marked ring stays readable until CONSUME. */
	if (!READ_ONCE(r->ready) &&
	    (head - tail >= RING_WAKE_FILL(r) || rec->time_ns - r->last_wake_ns >= RING_WAKE_NS)) {
		r->last_wake_ns = rec->time_ns;
		/* Set before the wake-up; poll() re-checks after poll_wait(). */
		WRITE_ONCE(r->ready, true);
		irq_work_queue(&r->wake);
	}
out:
	barrier();
	r->nest--;
	return ret;
}

NOKPROBE_SYMBOL(pmiprof_ring_write);

/* The PMU core's output sink (pmu.h). */
int pmiprof_emit(struct pmu_cpu *pc, const struct pmiprof_sample_rec *rec)
{
	return pmiprof_ring_write(pc->cpu, rec);
}

NOKPROBE_SYMBOL(pmiprof_emit);

int pmiprof_ring_consume(unsigned int cpu, u64 tail)
{
	struct pmiprof_ring_header *hdr;
	u64 head, old;

	if (cpu >= nr_cpu_ids || !rings[cpu])
		return -EINVAL;
	hdr = rings[cpu]->hdr;
	mutex_lock(&ring_consume_lock);
	/* Pairs with the producer's release of head. */
	head = smp_load_acquire(&hdr->head);
	old = hdr->tail;
	/* The tail comes from user space: clamp, never trust it as an index. */
	tail = clamp(tail, old, head);
	/* Records start on multiples of the record size from 0: no tail in between. */
	if (tail % RING_REC_BYTES) {
		mutex_unlock(&ring_consume_lock);
		return -EINVAL;
	}
	/* The consumer finished reading below tail (it made this syscall): publish. */
	smp_store_release(&hdr->tail, tail);
	/* Re-arm readiness; a mark the producer set meanwhile may be lost, so re-test fill. */
	WRITE_ONCE(rings[cpu]->ready, head - tail >= RING_WAKE_FILL(rings[cpu]));
	mutex_unlock(&ring_consume_lock);
	return 0;
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
	pmiprof_vm_flags_mod(vma, VM_DONTCOPY, VM_MAYWRITE | VM_MAYEXEC);
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
