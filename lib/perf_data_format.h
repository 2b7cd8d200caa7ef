/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf.data on-disk layout: what tools/perf/Documentation/perf.data-file-format.txt
 * describes and <linux/perf_event.h> does not (the file and pipe headers, feature
 * numbers, the record types perf itself writes, 64 and up).  Fixed-width
 * little-endian fields; the reader copies them out with memcpy, never casts.
 */
#ifndef PMIPROF_PERF_DATA_FORMAT_H
#define PMIPROF_PERF_DATA_FORMAT_H

#include <stdint.h>

/* "PERFILE2" as a little-endian u64; a big-endian writer's file starts "2ELIFREP". */
#define PERF_DATA_MAGIC		0x32454c4946524550ULL

struct perf_file_section {
	uint64_t offset;
	uint64_t size;
};
_Static_assert(sizeof(struct perf_file_section) == 16, "perf_file_section size");

/* File mode: 104 bytes at offset 0 (header.size says so; later perfs may append). */
struct perf_file_header {
	uint64_t magic;
	uint64_t size;			/* of this header */
	uint64_t attr_size;		/* of one attr entry: perf_event_attr + section */
	struct perf_file_section attrs;
	struct perf_file_section data;
	struct perf_file_section event_types;	/* obsolete, ignored */
	uint64_t features[4];		/* HEADER_* bits: one section each, in bit order */
};
_Static_assert(sizeof(struct perf_file_header) == 104, "perf_file_header size");

/* Pipe mode: 16 bytes, then records only. */
struct perf_pipe_header {
	uint64_t magic;
	uint64_t size;			/* 16 */
};
_Static_assert(sizeof(struct perf_pipe_header) == 16, "perf_pipe_header size");

/* Feature sections (bit numbers of perf_file_header.features). */
enum {
	PERF_FEAT_TRACING_DATA = 1,
	PERF_FEAT_BUILD_ID = 2,
	PERF_FEAT_HOSTNAME = 3,
	PERF_FEAT_OSRELEASE = 4,
	PERF_FEAT_VERSION = 5,
	PERF_FEAT_ARCH = 6,
	PERF_FEAT_NRCPUS = 7,
	PERF_FEAT_CPUDESC = 8,
	PERF_FEAT_CPUID = 9,
	PERF_FEAT_TOTAL_MEM = 10,
	PERF_FEAT_CMDLINE = 11,
	PERF_FEAT_EVENT_DESC = 12,
	PERF_FEAT_CPU_TOPOLOGY = 13,
	PERF_FEAT_NUMA_TOPOLOGY = 14,
	PERF_FEAT_BRANCH_STACK = 15,
	PERF_FEAT_PMU_MAPPINGS = 16,
	PERF_FEAT_GROUP_DESC = 17,
	PERF_FEAT_AUXTRACE = 18,
	PERF_FEAT_STAT = 19,
	PERF_FEAT_CACHE = 20,
	PERF_FEAT_SAMPLE_TIME = 21,
	PERF_FEAT_MEM_TOPOLOGY = 22,
	PERF_FEAT_CLOCKID = 23,
	PERF_FEAT_DIR_FORMAT = 24,
	PERF_FEAT_BPF_PROG_INFO = 25,
	PERF_FEAT_BPF_BTF = 26,
	PERF_FEAT_COMPRESSED = 27,
	PERF_FEAT_CPU_PMU_CAPS = 28,
	PERF_FEAT_CLOCK_DATA = 29,
	PERF_FEAT_HYBRID_TOPOLOGY = 30,
	PERF_FEAT_PMU_CAPS = 31,
	PERF_FEAT_BITS = 256,
};

/* Records perf writes itself (user types, after the kernel's). */
enum {
	PERF_UREC_HEADER_ATTR = 64,
	PERF_UREC_HEADER_EVENT_TYPE = 65,	/* obsolete */
	PERF_UREC_HEADER_TRACING_DATA = 66,	/* u32 size; size bytes (8-aligned) follow */
	PERF_UREC_HEADER_BUILD_ID = 67,
	PERF_UREC_FINISHED_ROUND = 68,
	PERF_UREC_ID_INDEX = 69,
	PERF_UREC_AUXTRACE_INFO = 70,
	PERF_UREC_AUXTRACE = 71,		/* u64 size ...; size bytes follow */
	PERF_UREC_AUXTRACE_ERROR = 72,
	PERF_UREC_THREAD_MAP = 73,
	PERF_UREC_CPU_MAP = 74,
	PERF_UREC_STAT_CONFIG = 75,
	PERF_UREC_STAT = 76,
	PERF_UREC_STAT_ROUND = 77,
	PERF_UREC_EVENT_UPDATE = 78,
	PERF_UREC_TIME_CONV = 79,
	PERF_UREC_HEADER_FEATURE = 80,
	PERF_UREC_COMPRESSED = 81,		/* zstd data after the 8-byte header */
	PERF_UREC_FINISHED_INIT = 82,
	PERF_UREC_COMPRESSED2 = 83,		/* u64 data_size, then zstd data, padded */
	PERF_UREC_MAX = 84,
};

/* header.misc bits perf's headers name (the kernel's are in <linux/perf_event.h>) */
#define PERF_MISC_BUILD_ID_SIZE		(1u << 15)	/* build_id_event.size is valid */

/* Callchain context markers: ips at or above PERF_CONTEXT_MAX_ are not addresses. */
#define PERF_CONTEXT_MAX_		((uint64_t)-4095)

/* Branch sample bits newer than some distributions' uapi headers. */
#define PERF_BRANCH_HW_INDEX_BIT	(1ull << 17)
#define PERF_BRANCH_COUNTERS_BIT	(1ull << 19)

#endif /* PMIPROF_PERF_DATA_FORMAT_H */
