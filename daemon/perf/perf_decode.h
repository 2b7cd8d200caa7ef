/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf ring records -> trace records.  SAMPLE (PERF_SAMPLE_READ group
 * totals) becomes a window of per-event deltas, with its call stack (STACK,
 * USTACK) when call graphs are recorded; MMAP2/COMM/FORK/EXIT become
 * side-band; LOST, LOST_SAMPLES and THROTTLE/UNTHROTTLE become LOST records
 * and bump the loss generation of their CPU, so the next window of every
 * thread/CPU instance on it is flagged AFTER_LOSS (its delta spans periods
 * whose samples were never recorded).
 */
#ifndef PMIPROF_DAEMON_PERF_DECODE_H
#define PMIPROF_DAEMON_PERF_DECODE_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/backend.h"
#include "engine/pid_set.h"
#include "engine/stack_tops.h"
#include "engine/window_deltas.h"

struct perf_cpu_loss {
	uint64_t gen;			/* bumped at every loss or throttle on the CPU */
	uint64_t throttle_start;	/* time of an open THROTTLE, or 0 */
};

/*
 * Address ranges of executable user mappings seen (MMAP2 with PROT_EXEC,
 * synthesized maps), all processes merged, sorted and coalesced; never
 * shrunk (munmap is not reported).  Only a filter for fp leaf words: an
 * address of another process's code passing it is harmless.
 */
struct exec_ranges {
	struct exec_range {
		uint64_t start, end;	/* [start, end) */
	} *v;
	size_t nr, cap;
};

/* fp leaf words filtered per sample, at most (RECORD_LEAF_WORDS_SIZE) */
#define PERF_DECODE_LEAF_WORDS_MAX	64

struct perf_decoder {
	unsigned int nr_ev;		/* counters per sample (group order) */
	unsigned int group_to_ev[PMIPROF_MAX_EVENTS];	/* group position -> header index */
	bool per_task;			/* windows per (tid, cpu); else per cpu */
	bool filter;			/* keep only samples of pids (fallback) */
	bool time_based;
	unsigned int trigger;		/* header index of the sampling event */
	uint64_t trigger_period;	/* its events per window when fixed, else 0 */
	uint32_t call_graph;		/* PMIPROF_CALL_GRAPH_*: samples carry CALLCHAIN,
					 * REGS_USER and STACK_USER */
	uint64_t regs_mask;		/* sample_regs_user */
	struct exec_ranges exec;	/* fp: which leaf words may be return addresses */
	struct stack_tops tops;		/* dwarf: where main threads' frames end */
	struct window_deltas deltas;
	struct pid_set pids;		/* filter: the workload's processes */
	struct perf_cpu_loss *cpus;	/* indexed by CPU number */
	unsigned int nr_cpu_slots;
	struct record_stats *stats;
};

/* nr_cpu_slots = highest possible CPU number + 1.  0 or -ENOMEM. */
int perf_decoder_init(struct perf_decoder *d, unsigned int nr_ev, unsigned int nr_cpu_slots,
		      struct record_stats *stats);
void perf_decoder_free(struct perf_decoder *d);

/*
 * Decode one record of the ring of ring_cpu and write what it means.
 * Returns 0 (also for records that are malformed or not ours: skipped) or
 * the writer's -errno.
 */
int perf_decode_record(struct perf_decoder *d, int ring_cpu, struct trace_writer *w,
		       const struct perf_event_header *h);

/*
 * perf's callchain of a sample (PERF_CONTEXT_* markers and all) -> the STACK
 * contract: kernel frames then user frames into out (at most max), the
 * first entry dropped when it is the sampled ip.  Returns the frame count;
 * *nr_kernel the kernel part.
 */
uint32_t perf_callchain_split(const uint64_t *chain, uint64_t nr, uint64_t ip, uint64_t *out,
			      uint32_t max, uint32_t *nr_kernel);

/*
 * An executable mapping [start, start + len) of some traced process (the
 * recorder's synthesized maps; MMAP2 records are noted by the decoder).
 * 0 or -ENOMEM.
 */
int perf_decode_note_exec(struct perf_decoder *d, uint64_t start, uint64_t len);
/* Whether addr lies in a noted executable mapping. */
bool perf_decode_is_exec(const struct perf_decoder *d, uint64_t addr);

/* A FORK seen ahead of its turn (fallback pre-scan): follow pid if ppid is followed. */
void perf_decode_learn_fork(struct perf_decoder *d, uint32_t pid, uint32_t ppid);

/*
 * End of recording: a CPU still throttled gets its LOST record, its stretch
 * ending at end_time.
 */
int perf_decode_finish(struct perf_decoder *d, struct trace_writer *w, uint64_t end_time);

#endif /* PMIPROF_DAEMON_PERF_DECODE_H */
