/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shared memory between libpmiprof-region (in the workload) and the
 * pmiprof command that started it (today `pmiprof stat --regions`; later
 * `pmiprof record`, which drains the same rings into the trace).
 *
 * pmiprof creates a memfd of this layout, fills the header (events, mode),
 * and passes its descriptor number to the workload in PMIPROF_REGIONS_FD.
 * The library maps it in a constructor; without the variable, or with a
 * mapping whose magic/version/size do not match, every call is one branch.
 *
 * One slot per workload thread (claimed by an atomic increment, so threads
 * of forked children share the table).  Each slot holds its thread's stack
 * of open regions (so a region still open when the thread or process dies
 * is visible to pmiprof afterwards) and a single-producer single-consumer
 * ring of records: the thread writes at head (release), pmiprof reads at
 * tail.  A full ring drops the record and counts it: the workload never
 * waits for pmiprof, which may have been killed.
 *
 * Mode STAT writes one CALL record per completed region with the counter
 * deltas; mode MARKERS (pmiprof record) writes a BEGIN and an END record per
 * region with a CLOCK_MONOTONIC timestamp (the trace clock, from the TSC
 * where usable: region_clock.h) and the raw
 * values of the counters that user space reads without a system call
 * (rdpmc); the others are not opened.
 */
#ifndef PMIPROF_REGION_SHM_H
#define PMIPROF_REGION_SHM_H

#include <stdint.h>

#define PMR_MAGIC		0x31524d50u	/* "PMR1" */
#define PMR_VERSION		2
#define PMR_ENV			"PMIPROF_REGIONS_FD"
#define PMR_MAX_EVENTS		8
#define PMR_MAX_NAMES		1024
#define PMR_NAME_LEN		64		/* longer names are truncated */
#define PMR_MAX_THREADS		256
#define PMR_MAX_DEPTH		32
#define PMR_RING_RECS		16384		/* power of two */
#define PMR_CALIB_PAIRS		101		/* empty pairs timed per thread */

enum pmr_mode {
	PMR_MODE_STAT = 1,		/* CALL records with deltas */
	PMR_MODE_MARKERS = 2,		/* BEGIN/END records (pmiprof record) */
};

/* How the library reads counters (header.read_mode, set by pmiprof). */
enum pmr_read_mode {
	PMR_READ_AUTO = 0,		/* rdpmc where the mmap page allows, else read() */
	PMR_READ_CLOCK = 1,		/* no perf counters: CLOCK_MONOTONIC (vDSO) only */
	PMR_READ_OUTER = 2,		/* counters at outermost regions, clock inside */
	PMR_READ_SAMPLED = 3,		/* counters at 1 call in 2^sample_shift, at random */
};

/* What a thread's CALL records hold in wall_ns (pmr_thread.clock). */
enum pmr_clock {
	PMR_CLOCK_MONO = 0,		/* ns of clock_gettime(CLOCK_MONOTONIC) */
	PMR_CLOCK_TSC = 1,		/* TSC ticks: pmiprof converts (region_clock.h) */
};

/* Per event of a thread (pmr_thread.path[]). */
enum pmr_path {
	PMR_PATH_NONE = 0,		/* not opened (yet) */
	PMR_PATH_RDPMC = 1,		/* user-space rdpmc through the mmap page */
	PMR_PATH_READ = 2,		/* read() of the group leader (a syscall) */
	PMR_PATH_FAILED = 3,		/* perf_event_open failed: errno in err[] */
	PMR_PATH_NO_RDPMC = 4,		/* MARKERS: no rdpmc for it, so not read at all */
};

enum pmr_rec_kind {
	PMR_REC_CALL = 1,
	PMR_REC_BEGIN = 2,		/* MARKERS mode */
	PMR_REC_END = 3,
	PMR_REC_CALL_WALL = 4,		/* a CALL measured by the clock only (read mode OUTER) */
};

/* The per-thread anomaly counters (pmr_thread.anom[]). */
enum pmr_anomaly {
	PMR_AN_END_WITHOUT_BEGIN,	/* end of a region that is not open */
	PMR_AN_MISMATCHED,		/* end of an outer region while inner ones were open */
	PMR_AN_TOO_DEEP,		/* nesting beyond PMR_MAX_DEPTH: not measured */
	PMR_AN_FORK_IN_REGION,		/* a child process inherited open regions */
	PMR_AN_TOO_MANY_NAMES,		/* names beyond PMR_MAX_NAMES: not measured */
	PMR_AN_NR
};

struct pmr_event {
	uint32_t type;
	uint32_t flags;			/* PMR_EV_* */
	uint64_t config, config1, config2;
	char name[64];
};
#define PMR_EV_EXCLUDE_USER	1u
#define PMR_EV_EXCLUDE_KERNEL	2u
#define PMR_EV_EXCLUDE_HV	4u
#define PMR_EV_TIME_BASED	8u

struct pmr_name {
	uint32_t ready;			/* 1 once name[] is complete (release) */
	uint32_t pad;
	char name[PMR_NAME_LEN];
};

/*
 * One record: 16 bytes + 8 per event.  val[] holds the deltas (CALL) or
 * raw values (BEGIN/END) of the header's events in order; wall_ns is the
 * CLOCK_MONOTONIC delta (CALL: ns or ticks, pmr_thread.clock) or timestamp
 * in ns (BEGIN/END).  BEGIN/END: bits
 * 8..15 of kind flag events whose rdpmc read failed this time (counter not
 * scheduled): their val[] is 0 and means nothing; depth is the regions
 * open before the BEGIN / after the END.
 */
#define PMR_REC_KIND(k)		((k) & 0xffu)
#define PMR_REC_MISSING(k)	((unsigned int)(k) >> 8)
struct pmr_rec {
	uint32_t region;		/* index into names[] */
	uint16_t kind;			/* pmr_rec_kind */
	uint16_t depth;			/* 0 = outermost */
	uint64_t wall_ns;
	uint64_t val[PMR_MAX_EVENTS];
};

struct pmr_thread {
	uint32_t state;			/* PMR_SLOT_* */
	int32_t pid, tid;
	uint32_t depth;			/* regions open now (may exceed MAX_DEPTH) */
	uint32_t open[PMR_MAX_DEPTH];	/* their name ids, outermost first */
	uint32_t clock;			/* pmr_clock of its CALL records' wall_ns */
	uint32_t pad;
	uint64_t head;			/* records written (workload, release) */
	uint64_t tail;			/* records consumed (pmiprof) */
	uint64_t lost;			/* records dropped: ring full */
	uint64_t anom[PMR_AN_NR];
	uint32_t path[PMR_MAX_EVENTS];	/* pmr_path per event */
	int32_t err[PMR_MAX_EVENTS];	/* errno of a failed open */
	struct pmr_rec ring[PMR_RING_RECS];
};
#define PMR_SLOT_FREE		0
#define PMR_SLOT_LIVE		1
#define PMR_SLOT_EXITED		2	/* thread ended (key destructor ran) */

struct pmr_shm {
	uint32_t magic, version;
	uint64_t size;			/* of the whole mapping */
	uint32_t mode;			/* pmr_mode */
	uint32_t read_mode;		/* pmr_read_mode */
	uint32_t nr_events;
	uint32_t nr_names;		/* names[] handed out (atomic) */
	uint32_t nr_threads;		/* slots claimed (atomic) */
	uint32_t threads_overflow;	/* threads that found no slot */
	uint32_t names_overflow;	/* registrations refused: table full */
	uint32_t sample_shift;		/* PMR_READ_SAMPLED: 1 call in 2^this */
	struct pmr_event ev[PMR_MAX_EVENTS];
	struct pmr_name names[PMR_MAX_NAMES];
	struct pmr_thread threads[PMR_MAX_THREADS];
};

#define PMR_SHM_SIZE	sizeof(struct pmr_shm)

#endif /* PMIPROF_REGION_SHM_H */
