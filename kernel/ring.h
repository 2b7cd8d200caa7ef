/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU sample rings shared read-only with user space.
 *
 * One ring per possible CPU, allocated when the device is opened and
 * freed when it is released (mappings pin the open file): a header page
 * (struct pmiprof_ring_header) followed by a power-of-two data area of
 * records (fixed-size, or variable-length with call stacks).  Only the CPU
 * that owns a ring writes into it, from NMI or hard-irq context; the
 * consumer position moves only through the CONSUME ioctl.  Protocol and
 * memory ordering: docs/abi.md.
 */
#ifndef PMIPROF_RING_H
#define PMIPROF_RING_H

#include <linux/types.h>
#include <linux/poll.h>
#include <pmiprof/abi.h>

struct file;
struct vm_area_struct;

/* Load time: data bytes per ring (a power of two, at least a page). */
int pmiprof_ring_set_size(u32 data_bytes);
/* Open: allocate every possible CPU's ring.  Release (sampling stopped): free them. */
int pmiprof_ring_init_all(void);
void pmiprof_ring_free_all(void);
/*
 * Empty every ring and clear its drop count; sampling must be stopped.
 * @varlen: the session records call stacks (variable-length records, 1.2).
 */
void pmiprof_ring_reset_all(bool varlen);

/*
 * Append one record to @cpu's ring; call on @cpu with interrupts off (NMI or
 * hard-irq).  Returns 0, or -ENOSPC when the record was dropped and counted.
 */
int pmiprof_ring_write(unsigned int cpu, const struct pmiprof_sample_rec *rec);

int pmiprof_ring_consume(unsigned int cpu, u64 tail);
u64 pmiprof_ring_lost(unsigned int cpu);
u32 pmiprof_ring_data_bytes(void);
int pmiprof_ring_mmap(struct vm_area_struct *vma);
__poll_t pmiprof_ring_poll(struct file *file, poll_table *wait);
/* Sampling stopped: every non-empty ring is readable from now on; wake poll(). */
void pmiprof_ring_wake_readers(void);

#endif /* PMIPROF_RING_H */
