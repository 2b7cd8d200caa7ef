/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One perf SAMPLE body, and the sample_id trailer of the other records,
 * decoded field by field as the attr's sample_type, read_format and
 * branch_sample_type lay them out (<linux/perf_event.h>).  Pure functions
 * over a byte range: the perf.data reader and its unit test share them.
 */
#ifndef PMIPROF_PERF_SAMPLE_H
#define PMIPROF_PERF_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

/* What decoding needs of an attr. */
struct perf_sample_layout {
	uint64_t sample_type;		/* PERF_SAMPLE_* */
	uint64_t read_format;		/* PERF_FORMAT_* */
	uint64_t branch_sample_type;	/* PERF_SAMPLE_BRANCH_* */
	uint64_t regs_user_mask;	/* sample_regs_user */
	uint64_t regs_intr_mask;	/* sample_regs_intr */
};

/* One counter of a PERF_SAMPLE_READ. */
struct perf_read_value {
	uint64_t value;
	uint64_t id;			/* 0 without PERF_FORMAT_ID */
	uint64_t lost;			/* 0 without PERF_FORMAT_LOST */
};

#define PERF_SAMPLE_MAX_READ 64		/* group members in one READ */

/*
 * A decoded sample; a field is meaningful when its sample_type bit is set.
 * Pointers point into the decoded bytes (unaligned: read with memcpy).
 */
struct perf_sample {
	uint64_t id, ip, time, addr, stream_id, period;
	uint32_t pid, tid, cpu;
	uint64_t time_enabled, time_running;
	uint32_t nr_read;		/* values in read[] (1 for a single read) */
	struct perf_read_value read[PERF_SAMPLE_MAX_READ];
	uint64_t callchain_nr;
	const uint8_t *callchain;	/* callchain_nr u64 */
	uint32_t raw_size;
	const uint8_t *raw;
	uint64_t branch_nr;
	uint64_t branch_hw_idx;		/* with PERF_SAMPLE_BRANCH_HW_INDEX, else 0 */
	const uint8_t *branches;	/* branch_nr x { from, to, flags } u64 */
	const uint8_t *branch_counters;	/* branch_nr u64 with BRANCH_COUNTERS, else NULL */
	uint64_t user_abi;		/* 0: no user registers */
	uint32_t user_nr_regs;
	const uint8_t *user_regs;	/* user_nr_regs u64 */
	uint64_t stack_size;		/* bytes copied */
	uint64_t stack_dyn_size;	/* bytes of them that are valid */
	const uint8_t *stack;
	uint64_t weight;		/* WEIGHT or WEIGHT_STRUCT (the union as u64) */
	uint64_t data_src, transaction, phys_addr, cgroup;
	uint64_t data_page_size, code_page_size;
	uint64_t intr_abi;
	uint32_t intr_nr_regs;
	const uint8_t *intr_regs;
	uint64_t aux_size;
	const uint8_t *aux;
};

/*
 * Decode a SAMPLE body (the bytes after the 8-byte record header).  NULL,
 * or why it does not fit its size (the field named).
 */
const char *perf_sample_decode(const struct perf_sample_layout *l, const uint8_t *p, size_t len,
			       struct perf_sample *s);

/*
 * Decode the sample_id trailer at the end of a non-sample record's body of
 * len bytes (attr.sample_id_all): TID, TIME, ID, STREAM_ID, CPU,
 * IDENTIFIER as sample_type has them.  *trailer gets its size.  NULL or why.
 */
const char *perf_sample_id_decode(uint64_t sample_type, const uint8_t *p, size_t len,
				  struct perf_sample *s, size_t *trailer);

/* Bytes of the sample_id trailer for sample_type. */
size_t perf_sample_id_size(uint64_t sample_type);

/*
 * Where the event id is, so that a record can be matched to its attr before
 * it is decoded: u64 index from the start of a SAMPLE body, or from the end
 * of a trailer (1 = the last u64); -1 when sample_type has no id.
 */
int perf_sample_id_pos(uint64_t sample_type);
int perf_sample_id_pos_from_end(uint64_t sample_type);

#endif /* PMIPROF_PERF_SAMPLE_H */
