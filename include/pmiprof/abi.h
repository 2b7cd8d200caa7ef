/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * pmiprof kernel <-> user ABI: /dev/pmiprof ioctls, the per-CPU ring layout
 * and the sample record the module writes.  Shared verbatim by kernel/ and
 * the daemon's module backend; documented in docs/abi.md.
 *
 * Rules: fixed-width types only, explicit reserved fields, no bitfields,
 * no enums or pointers in structs (user pointers travel as __u64), a size
 * assert per struct.  Structs passed by ioctl start with their own size so
 * they can grow by appending: the module takes any size from the 1.0 size
 * up (copy_struct_from_user(): a shorter struct reads as zero-extended, a
 * longer one must have zeros past what the module knows) and matches ioctl
 * numbers without their size bits.
 */
#ifndef PMIPROF_ABI_H
#define PMIPROF_ABI_H

#include <linux/ioctl.h>
#include <linux/types.h>

#ifdef __KERNEL__
#define PMIPROF_STATIC_ASSERT(c, m) static_assert(c, m)
#else
#define PMIPROF_STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif

/* Major changes break compatibility; minor ones only append. */
#define PMIPROF_ABI_MAJOR		1
#define PMIPROF_ABI_MINOR		2	/* 1.1: INFO_F_RESERVED, REC_F_GUEST, stats.guest */
						/* 1.2: call stacks, variable-length records */

#define PMIPROF_DEVICE_NAME		"pmiprof"
#define PMIPROF_DEVICE_PATH		"/dev/pmiprof"

#define PMIPROF_ABI_MAX_EVENTS		8	/* counters per sample record */

/* GET_INFO: vendor */
#define PMIPROF_VENDOR_NONE		0
#define PMIPROF_VENDOR_INTEL		1
#define PMIPROF_VENDOR_AMD		2

/* GET_INFO: capabilities */
#define PMIPROF_CAP_PMI			(1ull << 0)	/* overflow-interrupt sampling */
#define PMIPROF_CAP_TIMER		(1ull << 1)	/* hrtimer sampling */
#define PMIPROF_CAP_FULL_WIDTH		(1ull << 2)	/* Intel PERF_CAPABILITIES[13] */
#define PMIPROF_CAP_GLOBAL_CTRL		(1ull << 3)	/* Intel v2+ / AMD PerfMonV2 */
#define PMIPROF_CAP_FIXED		(1ull << 4)	/* fixed counters */
#define PMIPROF_CAP_READ_COUNTERS	(1ull << 5)	/* counters readable in timer mode */
#define PMIPROF_CAP_STACKS		(1ull << 6)	/* 1.2: config.stack_mode fp and dwarf */
#define PMIPROF_CAP_TASK		(1ull << 7)	/* per-task windows: PMIPROF_CFG_TASK */

/* GET_INFO: flags */
#define PMIPROF_INFO_F_EMULATED		(1u << 0)	/* pmu=emul: in-memory MSR model */
#define PMIPROF_INFO_F_HYPERVISOR	(1u << 1)	/* running in a VM */
#define PMIPROF_INFO_F_ICOUNT		(1u << 2)	/* emul_clock=icount: instructions exact */
#define PMIPROF_INFO_F_RESERVED		(1u << 3)	/* counters reserved from perf now (a session runs) */

struct pmiprof_info {
	__u32 size;			/* in: sizeof(struct pmiprof_info) */
	__u16 abi_major;
	__u16 abi_minor;
	__u32 vendor;			/* PMIPROF_VENDOR_* */
	__u32 pmu_version;		/* Intel arch perfmon version; AMD: 1 core, 2 PerfMonV2 */
	__u32 nr_gp;
	__u32 gp_width;			/* bits */
	__u32 nr_fixed;
	__u32 fixed_width;
	__u64 caps;			/* PMIPROF_CAP_* */
	__u32 flags;			/* PMIPROF_INFO_F_* */
	__u32 nr_cpus;			/* possible CPUs: ring index range */
	__u32 cpu_family;
	__u32 cpu_model;
	__u64 min_period;		/* smallest accepted period (events) */
	__u64 max_period;		/* largest accepted period (events) */
	__u64 min_timer_ns;		/* smallest timer-mode interval */
	__u32 ring_bytes;		/* data bytes per CPU ring (power of two) */
	__u32 record_size;		/* sizeof(struct pmiprof_sample_rec) */
	char pmu_name[32];		/* e.g. "intel-v4", "amd-v2", "emul-intel", "none" */
	__u64 reserved[4];
};
PMIPROF_STATIC_ASSERT(sizeof(struct pmiprof_info) == 152, "pmiprof_info size");

/* Sampling modes */
#define PMIPROF_SAMPLING_PMI		1	/* counter overflow interrupt */
#define PMIPROF_SAMPLING_TIMER		2	/* hrtimer, counters read if present */
#define PMIPROF_SAMPLING_COUNT		3	/* counting only, no samples */

/* Event flags (struct pmiprof_event.flags) */
#define PMIPROF_EV_USER			(1u << 0)	/* count in ring 3 */
#define PMIPROF_EV_KERNEL		(1u << 1)	/* count in ring 0 */
#define PMIPROF_EV_EDGE			(1u << 2)
#define PMIPROF_EV_INV			(1u << 3)
#define PMIPROF_EV_TRIGGER		(1u << 4)	/* this event's overflow closes windows */

/*
 * One event, as the architecture names it: event code + unit mask (+ cmask),
 * never an MSR number or a raw control word.  The module builds the control
 * value from a whitelist and picks the counter.  Intel architectural events
 * (instructions 0xc0/0x00, cycles 0x3c/0x00, ref-cycles 0x00/0x03) go to
 * fixed counters when present.
 */
struct pmiprof_event {
	__u16 event;			/* event select (12 bits on AMD) */
	__u8 umask;
	__u8 cmask;
	__u32 flags;			/* PMIPROF_EV_* */
	__u64 period;			/* trigger only: events per window */
};
PMIPROF_STATIC_ASSERT(sizeof(struct pmiprof_event) == 16, "pmiprof_event size");

/* Config flags */
#define PMIPROF_CFG_KERNEL_IPS		(1u << 0)	/* request kernel RIPs (privileged) */
#define PMIPROF_CFG_TASK		(1u << 1)	/* per-task: count only tasks[], threads, descendants */

#define PMIPROF_ABI_MAX_TASKS		14	/* config.tasks[] */

struct pmiprof_config {
	__u32 size;			/* sizeof(struct pmiprof_config) */
	__u32 mode;			/* PMIPROF_SAMPLING_* */
	__u32 nr_events;		/* 0..PMIPROF_ABI_MAX_EVENTS */
	__u32 flags;			/* PMIPROF_CFG_* */
	__u64 timer_ns;			/* timer mode interval */
	__u32 max_rate;			/* per-CPU samples/s cap; 0 = module default */
	__u32 reserved0;
	__u64 reserved[4];
	struct pmiprof_event events[PMIPROF_ABI_MAX_EVENTS];
	/*
	 * 1.2: call stacks.  A 192-byte (1.1) config reads these as 0: no
	 * stacks, fixed-size records as in 1.1; a 1.1 module refuses a config
	 * that sets them with E2BIG.  Anything but PMIPROF_STACK_NONE makes
	 * the session's rings variable-length.
	 */
	__u32 stack_mode;		/* PMIPROF_STACK_* */
	__u32 stack_max;		/* frames per record, kernel + user: 1..PMIPROF_STACK_MAX_FRAMES */
	__u32 stack_dump;		/* DWARF: user stack bytes, multiple of 8, <= PMIPROF_STACK_MAX_DUMP */
	__u32 stack_reserved;		/* must be 0 */
	/*
	 * 1.2: PMIPROF_CFG_TASK (GET_INFO cap TASK): the processes followed, by
	 * thread-group id in the init pid namespace; their threads and every
	 * task they create later are followed too (perf's inherit).  Counters
	 * count only while a followed task runs; each task has its own open
	 * window.  Zero without the flag.
	 */
	__u32 nr_tasks;			/* 1..PMIPROF_ABI_MAX_TASKS */
	__u32 reserved1;
	__u32 tasks[PMIPROF_ABI_MAX_TASKS];
};
PMIPROF_STATIC_ASSERT(sizeof(struct pmiprof_config) == 272, "pmiprof_config size");

/* Handler-time histogram buckets: [0] < 128 ns, [i] < 128 << i ns, last = rest */
#define PMIPROF_HIST_BUCKETS		16

struct pmiprof_cpu_stats {
	__u64 samples;			/* records written */
	__u64 lost;			/* records dropped: ring full */
	__u64 pmis;			/* NMIs/timer ticks handled as ours */
	__u64 spurious;			/* NMIs with none of our status bits */
	__u64 throttles;		/* storm-throttle activations */
	__u64 stuck;			/* bounded re-read loop exhausted */
	__u64 handler_ns_total;
	__u64 handler_ns_hist[PMIPROF_HIST_BUCKETS];
	__u64 guest;			/* 1.1: windows closed by a PMI in guest mode */
	__u64 reserved[1];
};
PMIPROF_STATIC_ASSERT(sizeof(struct pmiprof_cpu_stats) == 200, "pmiprof_cpu_stats size");

/* 1.2: the cost of the stack walk, per CPU (GET_STATS with stack_buf) */
struct pmiprof_stack_stats {
	__u64 walks;			/* records with a stack part */
	__u64 reads;			/* user-memory reads (copy_from_user_nmi calls) */
	__u64 ns_total;			/* time spent walking and copying stacks */
	__u64 truncated;		/* walks ended by the depth or the per-PMI budget */
	__u64 faults;			/* walks ended by a user read that faulted */
	__u64 reserved[3];
};
PMIPROF_STATIC_ASSERT(sizeof(struct pmiprof_stack_stats) == 64, "pmiprof_stack_stats size");

struct pmiprof_stats_req {
	__u32 size;			/* sizeof(struct pmiprof_stats_req) */
	__u32 nr_cpus;			/* in: entries in buf; out: entries filled */
	__u64 buf;			/* user pointer to struct pmiprof_cpu_stats[nr_cpus] */
	__u64 stack_buf;		/* 1.2: struct pmiprof_stack_stats[nr_cpus]; 0: not wanted */
};
PMIPROF_STATIC_ASSERT(sizeof(struct pmiprof_stats_req) == 24, "pmiprof_stats_req size");

struct pmiprof_consume {
	__u32 cpu;
	__u32 reserved;
	__u64 tail;			/* new consumer position (bytes, monotonic) */
};
PMIPROF_STATIC_ASSERT(sizeof(struct pmiprof_consume) == 16, "pmiprof_consume size");

#define PMIPROF_IOC_MAGIC		0xB7
#define PMIPROF_IOC_GET_INFO		_IOWR(PMIPROF_IOC_MAGIC, 0x01, struct pmiprof_info)
#define PMIPROF_IOC_CONFIGURE		_IOW(PMIPROF_IOC_MAGIC, 0x02, struct pmiprof_config)
#define PMIPROF_IOC_START		_IO(PMIPROF_IOC_MAGIC, 0x03)
#define PMIPROF_IOC_STOP		_IO(PMIPROF_IOC_MAGIC, 0x04)
#define PMIPROF_IOC_GET_STATS		_IOWR(PMIPROF_IOC_MAGIC, 0x05, struct pmiprof_stats_req)
#define PMIPROF_IOC_CONSUME		_IOW(PMIPROF_IOC_MAGIC, 0x06, struct pmiprof_consume)

/*
 * Per-CPU ring, mapped read-only at offset cpu * PMIPROF_RING_MAP_SIZE(info):
 * one header page, then info.ring_bytes of data holding the records.
 * Without stacks (config.stack_mode 0) every record has record_size bytes.
 * With stacks (1.2) hdr->record_size is 0 and each record is
 * pmiprof_sample_rec.size bytes (a multiple of 8): a client that does not
 * know this reads record_size 0 and stops instead of misparsing.
 *
 * Producer (PMI/timer handler on that CPU): writes the record at
 * head % ring_bytes (a record may wrap around the end of the data area),
 * then smp_store_release(&hdr->head, head + its size).
 * A record is dropped (and hdr->lost incremented) when head - tail would
 * exceed ring_bytes; with stacks, when the largest record the session can
 * produce would not fit.
 * Consumer (daemon): head = load-acquire(hdr->head); reads records in
 * [tail, head); then PMIPROF_IOC_CONSUME with the new tail.  The module
 * clamps the tail to [old tail, head], checks it is a record boundary and
 * mirrors it into hdr->tail.
 */
struct pmiprof_ring_header {
	__u64 head;			/* bytes produced, monotonic (kernel writes) */
	__u64 tail;			/* bytes consumed, monotonic (kernel mirrors) */
	__u64 lost;			/* records dropped: ring full */
	__u32 cpu;
	__u32 record_size;
	__u32 data_bytes;		/* == info.ring_bytes */
	__u32 reserved0;
	__u64 reserved[3];
};
PMIPROF_STATIC_ASSERT(sizeof(struct pmiprof_ring_header) == 64, "ring header size");

#define PMIPROF_RING_HEADER_BYTES	4096u
#define PMIPROF_RING_MAP_SIZE(info)	(PMIPROF_RING_HEADER_BYTES + (info)->ring_bytes)

/* Sample record flags */
#define PMIPROF_REC_F_USER		(1u << 0)
#define PMIPROF_REC_F_KERNEL		(1u << 1)
#define PMIPROF_REC_F_IP_HIDDEN		(1u << 2)	/* kernel ip zeroed */
#define PMIPROF_REC_F_EMULATED		(1u << 3)
#define PMIPROF_REC_F_TIMER		(1u << 4)	/* timer-closed window */
#define PMIPROF_REC_F_FIRST		(1u << 5)	/* first window on this CPU */
#define PMIPROF_REC_F_THROTTLED		(1u << 6)	/* spans a throttled stretch: > 1 period */
#define PMIPROF_REC_F_GUEST		(1u << 7)	/* 1.1: PMI in KVM guest mode: ip 0, no USER/KERNEL */
#define PMIPROF_REC_F_STACK		(1u << 8)	/* 1.2: a struct pmiprof_stack_rec follows */
/*
 * CFG_TASK: a task's open window at its exit (written on the CPU it exits
 * on) or at STOP (on the ring of the CPU it last ran on): counts are the
 * events since its last window closed, fewer than the period; ip 0, no
 * USER/KERNEL.  Not a sample: the sum of a task's windows and its PARTIAL
 * record is everything it counted.  Timer mode: status = the window's
 * on-CPU nanoseconds so far.
 */
#define PMIPROF_REC_F_PARTIAL		(1u << 9)

struct pmiprof_sample_rec {
	__u64 time_ns;			/* local_clock() */
	__u64 ip;
	__u64 status;			/* own overflow bits seen */
	__u32 pid;			/* tgid, init namespace */
	__u32 tid;
	__u32 cpu;
	__u32 flags;			/* PMIPROF_REC_F_* */
	__u16 nr;			/* counts[] used */
	__u16 reserved0;
	__u32 size;			/* 1.2 (was reserved1): record bytes with its stack part; */
					/* 0 in a fixed-size ring (hdr->record_size) */
	__u64 counts[PMIPROF_ABI_MAX_EVENTS]; /* per-window deltas, config order */
};
PMIPROF_STATIC_ASSERT(sizeof(struct pmiprof_sample_rec) == 112, "sample record size");

/* 1.2: config.stack_mode */
#define PMIPROF_STACK_NONE		0
#define PMIPROF_STACK_FP		1	/* user frame-pointer walk + leaf words */
#define PMIPROF_STACK_DWARF		2	/* user registers + stack_dump bytes of stack */

#define PMIPROF_STACK_MAX_FRAMES	1024
#define PMIPROF_STACK_MAX_DUMP		65528
#define PMIPROF_STACK_LEAF_BYTES	64	/* fp: user stack bytes from SP (leaf fix-up) */
#define PMIPROF_STACK_FP_REGS		0x1c0ull	/* fp: PERF_REG_X86_BP, SP, IP */
#define PMIPROF_STACK_DWARF_REGS	0xff0fffull	/* dwarf: all but DS, ES, FS, GS */

/* struct pmiprof_stack_rec.flags: why the user part ended (none: a frame pointer of 0) */
#define PMIPROF_STACK_F_DEPTH		(1u << 0)	/* stack_max frames reached */
#define PMIPROF_STACK_F_BUDGET		(1u << 1)	/* per-PMI read/time budget spent */
#define PMIPROF_STACK_F_FAULT		(1u << 2)	/* a user read faulted */
#define PMIPROF_STACK_F_NO_USER		(1u << 3)	/* no user context (kthread, entry, 32-bit) */
#define PMIPROF_STACK_F_BAD_FP		(1u << 4)	/* a frame pointer did not go up the stack */

/*
 * 1.2: the stack part after a record flagged REC_F_STACK, then
 * __u64 ips[nr] (kernel frames first, then user frames, each leaf first,
 * the sampled ip not included; each a return address except the first user
 * frame of a kernel-mode sample), __u64 regs[nr_regs] (perf's x86-64
 * order, increasing bit of regs_mask), dump_size bytes of user stack from
 * the user SP up, and zero padding to the record's size.
 */
struct pmiprof_stack_rec {
	__u16 nr;
	__u16 nr_kernel;
	__u16 nr_regs;			/* popcount(regs_mask); 0: no user registers */
	__u16 flags;			/* PMIPROF_STACK_F_* */
	__u64 regs_mask;		/* PERF_REG_X86_* bits */
	__u32 dump_size;		/* user stack bytes copied */
	__u32 reads;			/* user-memory reads this record cost */
};
PMIPROF_STATIC_ASSERT(sizeof(struct pmiprof_stack_rec) == 24, "stack record size");

#endif /* PMIPROF_ABI_H */
