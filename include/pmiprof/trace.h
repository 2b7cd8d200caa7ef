/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmiprof trace file format: on-disk constants and the reader/writer API.
 *
 * The byte-level layout is documented in docs/trace-format.md; this header
 * is its single source of truth in code.  On-disk structs use fixed-width
 * little-endian fields with explicit padding and a size assert each.  The
 * decoded in-memory records (struct trace_*) are never written as-is.
 *
 * Every component (recorder backends, report, dump, tests, fuzzer) reads
 * and writes traces only through lib/trace_reader.c and lib/trace_writer.c.
 */
#ifndef PMIPROF_TRACE_H
#define PMIPROF_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "PMIPROF1" stored little-endian; read back byte-swapped = big-endian writer. */
#define PMIPROF_TRACE_MAGIC		0x31464f5250494d50ULL
#define PMIPROF_TRACE_MAGIC_SWAPPED	0x504d4950524f4631ULL /* big-endian writer */

/* The reader accepts major == CUR and any minor (minors only append). */
#define PMIPROF_TRACE_VERSION_MAJOR	1
#define PMIPROF_TRACE_VERSION_MINOR	4
#define PMIPROF_TRACE_VERSION_MAJOR_MIN	1

#define PMIPROF_MAX_EVENTS		16
#define PMIPROF_MAX_HEADER_SIZE		(1u << 20)	/* TLV section bound */
#define PMIPROF_MAX_CHUNK_SIZE		(16u << 20)	/* per chunk, both sizes */
#define PMIPROF_CHUNK_MAGIC		0x4b4e4843u		/* "CHNK" */
/*
 * Body bytes of one record (writer limit).  1.3: 128 KiB, was 64 KiB, so
 * that a USTACK with PMIPROF_MAX_USTACK stack bytes plus its registers fits.
 */
#define PMIPROF_MAX_RECORD_SIZE		(1u << 17)
#define PMIPROF_MAX_STRING		4096		/* path/comm/label bytes, no NUL */
#define PMIPROF_MAX_CALLCHAIN		1024		/* ips in one CALLCHAIN record */
#define PMIPROF_MAX_STACK		1024		/* frames in one STACK record (1.3) */
#define PMIPROF_MAX_USTACK		65528		/* user stack bytes in one USTACK (1.3) */
#define PMIPROF_MAX_UREGS		32		/* registers in one USTACK (1.3) */

/* File prologue: 32 bytes at offset 0, followed by header_size TLV bytes. */
struct pmiprof_file_prologue {
	uint64_t magic;
	uint16_t version_major;
	uint16_t version_minor;
	uint32_t header_size;		/* bytes of TLV section that follows */
	uint32_t header_crc;		/* crc32 (zlib) of the TLV section */
	uint32_t flags;			/* PMIPROF_TRACE_F_* */
	uint64_t reserved;		/* zero */
};
_Static_assert(sizeof(struct pmiprof_file_prologue) == 32, "prologue size");

/* Header flags (also in struct trace_header.flags). */
#define PMIPROF_TRACE_F_TIME_BASED	(1u << 0)	/* windows are time, not event, based */
#define PMIPROF_TRACE_F_EMULATED	(1u << 1)	/* counts come from an emulated PMU */
#define PMIPROF_TRACE_F_SYSTEM_WIDE	(1u << 2)	/* per-CPU windows (-a, module backend) */
#define PMIPROF_TRACE_F_INHERIT		(1u << 3)	/* children/threads followed */
#define PMIPROF_TRACE_F_NO_INHERIT_READ	(1u << 4)	/* kernel < 6.12: per-CPU groups fallback */
#define PMIPROF_TRACE_F_KERNEL_IPS	(1u << 5)	/* kernel IPs recorded (privileged) */
#define PMIPROF_TRACE_F_REGIONS		(1u << 6)	/* 1.4: region markers were collected */

/* One TLV item of the header section: 8-byte head, value padded to 4 bytes. */
struct pmiprof_tlv {
	uint32_t tag;			/* PMIPROF_TAG_* */
	uint32_t len;			/* value length, excluding padding */
};
_Static_assert(sizeof(struct pmiprof_tlv) == 8, "tlv size");

enum {
	PMIPROF_TAG_HOSTNAME = 1,	/* string */
	PMIPROF_TAG_KERNEL_RELEASE = 2,	/* string */
	PMIPROF_TAG_CPU_VENDOR = 3,	/* string, e.g. "GenuineIntel" */
	PMIPROF_TAG_CPU_SIG = 4,	/* struct pmiprof_tlv_cpu_sig */
	PMIPROF_TAG_CPU_MODEL_NAME = 5,	/* string */
	PMIPROF_TAG_PMU = 6,		/* string: human description of the PMU */
	PMIPROF_TAG_EVENT = 7,		/* struct pmiprof_tlv_event + name; repeated */
	PMIPROF_TAG_TRIGGER = 8,	/* struct pmiprof_tlv_trigger */
	PMIPROF_TAG_SAMPLING = 9,	/* struct pmiprof_tlv_sampling */
	PMIPROF_TAG_CLOCK = 10,		/* struct pmiprof_tlv_clock + name */
	PMIPROF_TAG_CMDLINE = 11,	/* argv, each NUL-terminated */
	PMIPROF_TAG_NR_CPUS = 12,	/* uint32_t */
	PMIPROF_TAG_RECORDER = 13,	/* string: "pmiprof X.Y.Z" */
	PMIPROF_TAG_NOTE = 14,		/* string: free text (fallback explanations) */
	/* 1.2: which kernel ran, so a report elsewhere never uses another's symbols */
	PMIPROF_TAG_BOOT_ID = 15,	/* string: /proc/sys/kernel/random/boot_id */
	PMIPROF_TAG_KERNEL_BUILD_ID = 16, /* bytes: GNU build-id note of /sys/kernel/notes */
	/* 1.3 */
	PMIPROF_TAG_CALL_GRAPH = 17,	/* struct pmiprof_tlv_call_graph */
	/* 1.4: u32 PMIPROF_PREDICT_* per event, for SAMPLE counts in RECORDS2-4 chunks */
	PMIPROF_TAG_PREDICT = 18,
	/* 1.4: u64 nominal time step of a sample in clock ticks, for RECORDS4 chunks */
	PMIPROF_TAG_TIME_STEP = 19,
};

/*
 * 1.4 count predictors (header tag PREDICT, RECORDS2 chunks only): a SAMPLE
 * stores count - prediction.  EVENT + j (j below the event's own index):
 * this sample's count of event j, e.g. task-clock from cpu-clock.
 */
#define PMIPROF_PREDICT_PREV		0	/* the previous sample's count (1.0..1.3 rule) */
#define PMIPROF_PREDICT_TIME		1	/* this sample's time step (time-based windows) */
#define PMIPROF_PREDICT_EVENT		2	/* + j: this sample's count of event j < i */

struct pmiprof_tlv_cpu_sig {
	uint32_t family;
	uint32_t model;
	uint32_t stepping;
	uint32_t reserved;
};
_Static_assert(sizeof(struct pmiprof_tlv_cpu_sig) == 16, "cpu_sig size");

struct pmiprof_tlv_event {
	uint32_t type;			/* perf_event_attr.type or PMIPROF_EVTYPE_MODULE */
	uint32_t flags;			/* PMIPROF_EVENT_F_* */
	uint64_t config;		/* perf config, or module event|umask<<8|cmask<<24 */
	uint64_t config1;
	/* followed by the NUL-terminated event name (as the user wrote it) */
};
_Static_assert(sizeof(struct pmiprof_tlv_event) == 24, "tlv_event size");

#define PMIPROF_EVTYPE_MODULE		0x10000u
#define PMIPROF_EVENT_F_TRIGGER		(1u << 0)
#define PMIPROF_EVENT_F_EXCL_USER	(1u << 1)
#define PMIPROF_EVENT_F_EXCL_KERNEL	(1u << 2)
#define PMIPROF_EVENT_F_SOFTWARE	(1u << 3)

struct pmiprof_tlv_trigger {
	uint32_t event_index;		/* index into the events */
	uint32_t flags;			/* PMIPROF_TRIGGER_F_* */
	uint64_t period;		/* events per window (0 in frequency mode) */
	uint64_t freq_hz;		/* target samples/s in frequency mode, else 0 */
};
_Static_assert(sizeof(struct pmiprof_tlv_trigger) == 24, "tlv_trigger size");
#define PMIPROF_TRIGGER_F_FREQ		(1u << 0)

struct pmiprof_tlv_call_graph {		/* 1.3 */
	uint32_t mode;			/* PMIPROF_CALL_GRAPH_* */
	uint32_t dump_size;		/* DWARF: user stack bytes per sample */
	uint32_t max_stack;		/* frames asked for (--max-stack) */
	uint32_t flags;			/* PMIPROF_CALL_GRAPH_F_* */
};
_Static_assert(sizeof(struct pmiprof_tlv_call_graph) == 16, "tlv_call_graph size");

struct pmiprof_tlv_sampling {
	uint32_t mode;			/* PMIPROF_MODE_* */
	uint32_t backend;		/* PMIPROF_BACKEND_* */
};
_Static_assert(sizeof(struct pmiprof_tlv_sampling) == 8, "tlv_sampling size");

#define PMIPROF_MODE_PERF		1	/* perf_event_open leader sampling */
#define PMIPROF_MODE_PMI		2	/* module, counter overflow interrupt */
#define PMIPROF_MODE_TIMER		3	/* module, hrtimer */
#define PMIPROF_BACKEND_PERF		1
#define PMIPROF_BACKEND_MODULE		2

struct pmiprof_tlv_clock {
	uint32_t clock_id;		/* CLOCK_MONOTONIC etc., as in <time.h> */
	uint32_t reserved;
	uint64_t freq_hz;		/* ticks per second of SAMPLE.time (1e9: ns) */
	uint64_t start_time;		/* clock value when recording started */
	uint64_t start_realtime_ns;	/* CLOCK_REALTIME at the same moment */
	/* followed by NUL-terminated clock name, e.g. "monotonic" */
};
_Static_assert(sizeof(struct pmiprof_tlv_clock) == 32, "tlv_clock size");

/* Chunk header: 32 bytes, then csize payload bytes. */
struct pmiprof_chunk_header {
	uint32_t magic;			/* PMIPROF_CHUNK_MAGIC, for resync */
	uint16_t type;			/* PMIPROF_CHUNK_RECORDS */
	uint16_t flags;			/* PMIPROF_CHUNK_F_* */
	uint32_t seq;			/* 0, 1, 2, ... */
	uint32_t nr_records;		/* records in the payload */
	uint32_t usize;			/* uncompressed payload size */
	uint32_t csize;			/* stored payload size */
	uint32_t payload_crc;		/* crc32 of the stored payload */
	uint32_t header_crc;		/* crc32 of the 28 bytes before it */
};
_Static_assert(sizeof(struct pmiprof_chunk_header) == 32, "chunk header size");

#define PMIPROF_CHUNK_RECORDS		1
/* 1.4: the flat-profile summary of the RECORDS chunk just before it (docs/trace-format.md) */
#define PMIPROF_CHUNK_SUMMARY		2
/*
 * 1.4: RECORDS whose SAMPLEs are packed (no size; counts predicted as the
 * header's PREDICT says); written on request (opts.records2).  A new type
 * rather than a flag, so that readers before it skip these chunks instead
 * of misreading.
 */
#define PMIPROF_CHUNK_RECORDS2		3
/*
 * 1.4: RECORDS2 whose SAMPLEs name one of 4 per-thread contexts and may
 * name an entry of an ip table; written on request (opts.records3).
 */
#define PMIPROF_CHUNK_RECORDS3		4
/*
 * 1.4: RECORDS3 stored as columns: the samples' time steps, ips and each
 * event's counts in streams of their own after the records, so that the
 * compressor sees homogeneous bytes; what the writer writes (RECORDS3 or
 * RECORDS2 on request, trace_writer_opts.records3 / records2).
 */
#define PMIPROF_CHUNK_RECORDS4		5
#define PMIPROF_CHUNK_F_DEFLATE		(1u << 0)
#define PMIPROF_CHUNK_F_ZSTD		(1u << 1)	/* 1.4: payload is one zstd frame */
#define PMIPROF_CHUNK_F_KNOWN		0x3u

/*
 * Record types.  Every record in a chunk payload is
 *   u8 type, varint size, size bytes of body
 * and the body is varint/zigzag encoded with per-chunk delta state
 * (see docs/trace-format.md).  Numbers are never reused.
 */
enum {
	PMIPROF_REC_SAMPLE = 1,
	PMIPROF_REC_MMAP = 2,
	PMIPROF_REC_COMM = 3,
	PMIPROF_REC_FORK = 4,
	PMIPROF_REC_EXIT = 5,
	PMIPROF_REC_LOST = 6,
	PMIPROF_REC_MARK = 7,
	PMIPROF_REC_CALLCHAIN = 8,
	PMIPROF_REC_FINISH = 9,
	PMIPROF_REC_STACK = 10,		/* 1.3: defines a chunk-local stack id */
	PMIPROF_REC_USTACK = 11,	/* 1.3: user registers + stack bytes of the SAMPLE before it */
	PMIPROF_REC_REGION_DEF = 12,	/* 1.4: code region id -> name */
	PMIPROF_REC_REGION = 13,	/* 1.4: a region begins or ends on a thread */
	PMIPROF_REC_REGION_ANOMALY = 14, /* 1.4: misuse of the region API, counted */
	PMIPROF_REC_MAX /* non-ABI */
};

/* SAMPLE flags */
#define PMIPROF_SAMPLE_F_USER		(1u << 0)	/* interrupted in user mode */
#define PMIPROF_SAMPLE_F_KERNEL		(1u << 1)	/* interrupted in kernel mode */
#define PMIPROF_SAMPLE_F_IP_HIDDEN	(1u << 2)	/* kernel ip withheld (unprivileged) */
#define PMIPROF_SAMPLE_F_EMULATED	(1u << 3)	/* counts from the emulated PMU */
#define PMIPROF_SAMPLE_F_TIME_BASED	(1u << 4)	/* window closed by a timer */
#define PMIPROF_SAMPLE_F_FIRST		(1u << 5)	/* first window of its thread/cpu */
#define PMIPROF_SAMPLE_F_THROTTLED	(1u << 6)	/* window stretched by storm throttling */
#define PMIPROF_SAMPLE_F_AFTER_LOSS	(1u << 7)	/* window spans lost/throttled periods */
#define PMIPROF_SAMPLE_F_GUEST		(1u << 8)	/* PMI in KVM guest mode: ip 0 */
#define PMIPROF_SAMPLE_F_PARTIAL	(1u << 9)	/* a task's open window at exit/stop: ip 0 */

/* LOST.cpu of losses that belong to no CPU (e.g. synthesized by the reader) */
#define PMIPROF_CPU_NONE		0xffffffffu

/* LOST reasons */
#define PMIPROF_LOST_RING_FULL		1	/* kernel/perf ring overflowed */
#define PMIPROF_LOST_THROTTLE		2	/* kernel throttled the sampler */
#define PMIPROF_LOST_WRITE		3	/* recorder could not write */
#define PMIPROF_LOST_UNREADABLE		4	/* synthesized by the reader: bad chunk */
#define PMIPROF_LOST_TRUNCATED		5	/* synthesized by the reader: cut file */
#define PMIPROF_LOST_REGION_MARKERS	6	/* 1.4: region markers the workload dropped */

/* COMM flags */
#define PMIPROF_COMM_F_EXEC		(1u << 0)

/* FINISH flags */
#define PMIPROF_FINISH_F_SIGNALED	(1u << 0)	/* workload died of a signal */
#define PMIPROF_FINISH_F_ERROR		(1u << 1)	/* recording stopped on an error */
#define PMIPROF_FINISH_F_INTERRUPTED	(1u << 2)	/* stopped by SIGINT/SIGTERM */

/* ---- decoded, in-memory view (never written as-is) ---- */

struct trace_event_desc {
	char name[128];
	uint32_t type;
	uint32_t flags;
	uint64_t config;
	uint64_t config1;
};

struct trace_header {
	uint16_t version_major;
	uint16_t version_minor;
	uint32_t flags;			/* PMIPROF_TRACE_F_* */
	char hostname[256];
	char kernel_release[128];
	char cpu_vendor[32];
	char cpu_model_name[128];
	uint32_t cpu_family, cpu_model, cpu_stepping;
	char pmu[256];
	uint32_t nr_events;
	struct trace_event_desc events[PMIPROF_MAX_EVENTS];
	uint32_t trigger_index;
	uint32_t trigger_flags;
	uint64_t period;
	uint64_t freq_hz;
	uint32_t mode;
	uint32_t backend;
	uint32_t clock_id;
	uint64_t clock_freq_hz;
	uint64_t start_time;
	uint64_t start_realtime_ns;
	char clock_name[32];
	uint32_t nr_cpus;
	char recorder[64];
	char note[512];
	char boot_id[40];		/* "" when unknown (files before 1.2) */
	uint8_t kernel_build_id[20];
	uint32_t kernel_build_id_len;	/* 0 when unknown */
	uint32_t cmdline_argc;
	char cmdline[4096];		/* argv joined with single spaces */
	/* 1.3: PMIPROF_CALL_GRAPH_*; absent tag = NONE */
	uint32_t call_graph;
	uint32_t call_graph_dump_size;	/* DWARF: user stack bytes per sample */
	uint32_t call_graph_max_stack;	/* --max-stack */
	uint32_t call_graph_flags;	/* PMIPROF_CALL_GRAPH_F_* */
	/*
	 * 1.4: PMIPROF_PREDICT_* per event (tag PREDICT; absent = all PREV).
	 * The writer fills it from the events when the caller leaves it zero.
	 */
	uint32_t predict[PMIPROF_MAX_EVENTS];
	/*
	 * 1.4: the nominal time between two samples of a thread, in clock
	 * ticks (tag TIME_STEP; 0 = none): RECORDS4 chunks store each time
	 * step against it.  The writer derives it from a time-based trigger's
	 * frequency or period when the caller leaves it zero.
	 */
	uint64_t time_step;
	/*
	 * Not in the file: what the input was (PMIPROF_INPUT_*), set by the
	 * reader, so that a report can search perf's build-id cache for perf's
	 * files.
	 */
	uint32_t input;
};

#define PMIPROF_INPUT_TRACE		0	/* a pmiprof trace */
#define PMIPROF_INPUT_PERF_DATA		1	/* perf's perf.data (docs/perf-data.md) */

#define PMIPROF_CALL_GRAPH_F_KERNEL	(1u << 0)	/* kernel frames recorded */
#define PMIPROF_CALL_GRAPH_F_LEAF_WORDS	(1u << 1)	/* fp: USTACK words for leaf fix-up */

struct trace_sample {
	uint64_t time;
	uint64_t ip;
	uint32_t cpu;
	uint32_t pid;
	uint32_t tid;
	uint32_t flags;			/* PMIPROF_SAMPLE_F_* */
	uint32_t nr;			/* == header nr_events */
	uint64_t counts[PMIPROF_MAX_EVENTS]; /* per-window deltas */
	/*
	 * 1.3: chunk-local STACK id + 1 of this sample's call stack; 0 = none.
	 * The STACK record precedes its first use in the chunk.
	 */
	uint32_t stack;
};

struct trace_mmap {
	uint64_t time;
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t prot, flags;
	uint32_t build_id_len;		/* 0 when unknown */
	uint8_t build_id[20];
	const char *path;		/* valid until the next trace_reader_next() */
};

struct trace_comm {
	uint64_t time;
	uint32_t pid, tid;
	uint32_t flags;			/* PMIPROF_COMM_F_* */
	const char *comm;
};

struct trace_task {			/* FORK and EXIT */
	uint64_t time;
	uint32_t pid, ppid, tid, ptid;
};

struct trace_lost {
	uint64_t time;
	uint32_t cpu;			/* PMIPROF_CPU_NONE when not per-CPU */
	uint32_t reason;		/* PMIPROF_LOST_* */
	uint64_t count;			/* samples lost; THROTTLE: throttle events */
	uint64_t duration;		/* ns the loss lasted, 0 = unknown (v1.1) */
};

struct trace_mark {
	uint64_t time;
	uint32_t cpu, pid, tid;
	uint64_t id;
	const char *label;
};

struct trace_callchain {		/* belongs to the SAMPLE just before it */
	uint32_t nr;
	const uint64_t *ips;
};

/*
 * STACK (1.3): the call stack `id` (dense from 0 within each chunk, so chunks
 * stay independently decodable) -> frames.  ips[0..nr_kernel) are kernel
 * frames, then ips[nr_kernel..nr) user frames; each part leaf first.  The
 * sampled ip itself is not included: every frame is a return address except
 * the first user frame of a sample taken in kernel mode (the user ip at kernel
 * entry), which is exact.
 */
struct trace_stack {
	uint32_t id;
	uint32_t nr;
	uint32_t nr_kernel;
	const uint64_t *ips;		/* valid until the next trace_reader_next() */
};

/*
 * USTACK (1.3): belongs to the SAMPLE just before it.  User registers in
 * perf's x86-64 order (PERF_REG_X86_*; bit i of regs_mask set = register i
 * present, values in increasing i) and `size` bytes of user stack copied from
 * the sampled SP upward.  --call-graph dwarf stores SIZE bytes; fp mode a few
 * words for the leaf fix-up, those that are not code addresses zeroed by the
 * recorder (docs/trace-format.md).
 */
struct trace_ustack {
	uint32_t abi;			/* PERF_SAMPLE_REGS_ABI_*; 0 = no user regs */
	uint32_t nr_regs;		/* == popcount(regs_mask) */
	uint64_t regs_mask;
	const uint64_t *regs;
	uint32_t size;			/* stack bytes */
	const uint8_t *data;		/* valid until the next trace_reader_next() */
};

/* Header: how stacks were recorded (tag PMIPROF_TAG_CALL_GRAPH, 1.3). */
#define PMIPROF_CALL_GRAPH_NONE		0
#define PMIPROF_CALL_GRAPH_FP		1
#define PMIPROF_CALL_GRAPH_DWARF	2

/* REGION kinds (1.4) */
#define PMIPROF_REGION_BEGIN		1
#define PMIPROF_REGION_END		2

/* REGION_ANOMALY kinds (1.4): what the workload did wrong, see docs/regions.md */
#define PMIPROF_REGION_AN_END_WITHOUT_BEGIN	1	/* end of a region that is not open */
#define PMIPROF_REGION_AN_MISMATCHED		2	/* end of an outer region, inner ones open */
#define PMIPROF_REGION_AN_TOO_DEEP		3	/* nesting beyond the library's depth */
#define PMIPROF_REGION_AN_FORK_IN_REGION	4	/* a child inherited open regions */
#define PMIPROF_REGION_AN_TOO_MANY_NAMES	5	/* names beyond the table: not marked */
#define PMIPROF_REGION_AN_TOO_MANY_THREADS	6	/* threads that found no ring */
#define PMIPROF_REGION_AN_MAX			7	/* non-ABI */

/* REGION_DEF (1.4): region `id` (unique in the file) is called `name`. */
struct trace_region_def {
	uint32_t id;
	const char *name;		/* valid until the next trace_reader_next() */
};

/*
 * REGION (1.4): thread tid of process pid began or ended region `id` at
 * `time` (the trace clock).  depth: regions open on the thread before a
 * BEGIN / after an END.  values[i] is the raw value of header event i on the
 * thread's own counter (present when bit i of evmask is set: read without
 * a system call, rdpmc), so END - BEGIN is the region's count on the thread.
 */
struct trace_region {
	uint64_t time;
	uint32_t kind;			/* PMIPROF_REGION_BEGIN / _END */
	uint32_t pid, tid;
	uint32_t id;
	uint32_t depth;
	uint32_t evmask;		/* bit i: values[i] present */
	uint64_t values[PMIPROF_MAX_EVENTS];	/* 0 where the bit is clear */
};

/* REGION_ANOMALY (1.4): `count` misuses of kind `what` on one thread. */
struct trace_region_anomaly {
	uint64_t time;
	uint32_t pid, tid;		/* 0, 0: not tied to a thread */
	uint32_t what;			/* PMIPROF_REGION_AN_* */
	uint64_t count;
};

struct trace_finish {
	uint64_t time;
	uint32_t flags;			/* PMIPROF_FINISH_F_* */
	int32_t exit_code;		/* exit status, or signal number if SIGNALED */
	uint64_t samples;
	uint64_t lost;
};

struct trace_record {
	uint32_t type;			/* PMIPROF_REC_* */
	uint32_t chunk_seq;		/* chunk it came from */
	union {
		struct trace_sample sample;
		struct trace_mmap mmap;
		struct trace_comm comm;
		struct trace_task task;
		struct trace_lost lost;
		struct trace_mark mark;
		struct trace_callchain callchain;
		struct trace_finish finish;
		struct trace_stack stack;
		struct trace_ustack ustack;
		struct trace_region_def region_def;
		struct trace_region region;
		struct trace_region_anomaly region_anomaly;
	};
};

/* ---- writer ---- */

struct trace_writer;

struct trace_writer_opts {
	int level;			/* zlib level 0..9; -1 = library default (1) */
	uint32_t chunk_size;		/* uncompressed bytes per chunk; 0 = 256 KiB */
	int strategy;			/* PMIPROF_TRACE_STRATEGY_*; 0 = default */
	int codec;			/* PMIPROF_TRACE_CODEC_*; 0 = default (zstd) */
	bool no_summary;		/* 1.4: no SUMMARY chunks */
	bool records2;			/* 1.4: RECORDS2 chunks (no thread contexts), for tests */
	bool records3;			/* 1.4: RECORDS3 chunks (not columnar), for tests */
};
/* Chunk compression (level > 0); why zstd is the default: docs/trace-format.md. */
#define PMIPROF_TRACE_CODEC_DEFAULT	0	/* = ZSTD */
#define PMIPROF_TRACE_CODEC_ZSTD	1	/* zstd, level = zstd level */
#define PMIPROF_TRACE_CODEC_DEFLATE	2	/* raw deflate, level = zlib level, strategy */
/* Deflate strategies; why Huffman-only is the default: docs/trace-format.md. */
#define PMIPROF_TRACE_STRATEGY_DEFAULT	0	/* = HUFFMAN */
#define PMIPROF_TRACE_STRATEGY_HUFFMAN	1	/* zlib Z_HUFFMAN_ONLY */
#define PMIPROF_TRACE_STRATEGY_LZ77	2	/* zlib Z_DEFAULT_STRATEGY */
#define PMIPROF_TRACE_STRATEGY_RLE	3	/* zlib Z_RLE */

/*
 * All writer calls return 0 or -errno.  Errors are sticky: after the first
 * failure every call returns it again, and close() reports it.
 * open() creates/truncates path; fdopen() takes ownership of fd (it is
 * closed on failure too).  Invalid records (SAMPLE.nr above the header's
 * nr_events, strings over PMIPROF_MAX_STRING, build-ids over 20 bytes,
 * callchains over PMIPROF_MAX_CALLCHAIN) are refused with -EINVAL or
 * -ENAMETOOLONG without harming the trace; only I/O errors are sticky.  After
 * a failed chunk write the file is truncated back to its last complete chunk.
 */
int trace_writer_open(struct trace_writer **wp, const char *path,
		      const struct trace_header *h, const struct trace_writer_opts *opts);
int trace_writer_fdopen(struct trace_writer **wp, int fd,
			const struct trace_header *h, const struct trace_writer_opts *opts);
int trace_write_sample(struct trace_writer *w, const struct trace_sample *s);
/*
 * s[0 .. n) in order, as n trace_write_sample() calls but without a call
 * each (a recorder draining its ring hands over runs of samples).  Returns
 * 0, or the first sample's error: the samples before it are written, the
 * ones after it are not.
 */
int trace_write_samples(struct trace_writer *w, const struct trace_sample *s, size_t n);
int trace_write_mmap(struct trace_writer *w, const struct trace_mmap *m);
int trace_write_comm(struct trace_writer *w, const struct trace_comm *c);
int trace_write_fork(struct trace_writer *w, const struct trace_task *t);
int trace_write_exit(struct trace_writer *w, const struct trace_task *t);
int trace_write_lost(struct trace_writer *w, const struct trace_lost *l);
int trace_write_mark(struct trace_writer *w, const struct trace_mark *m);
int trace_write_callchain(struct trace_writer *w, const struct trace_callchain *c);
/*
 * 1.3: a SAMPLE with its call stack (ips[0..nr_kernel) kernel frames, then
 * user frames, each part leaf first, the sampled ip not included; see struct
 * trace_stack).  The writer interns stacks per chunk: a STACK record is
 * written on the stack's first use in the open chunk, and s->stack is
 * ignored (set from the interned id).  nr == 0 writes a SAMPLE without a
 * stack.  A USTACK for this sample may follow (trace_write_ustack): the
 * chunk is not closed between the two.  -EINVAL for nr over
 * PMIPROF_MAX_STACK or nr_kernel > nr.
 */
int trace_write_sample_stack(struct trace_writer *w, const struct trace_sample *s,
			     const uint64_t *ips, uint32_t nr, uint32_t nr_kernel);
/*
 * 1.3: user registers and stack bytes of the sample just written, which
 * must have been written by trace_write_sample_stack() (-EINVAL otherwise,
 * and for nr_regs != popcount(regs_mask), over PMIPROF_MAX_UREGS registers
 * or PMIPROF_MAX_USTACK bytes).
 */
int trace_write_ustack(struct trace_writer *w, const struct trace_ustack *u);
int trace_write_finish(struct trace_writer *w, const struct trace_finish *f);
/*
 * Header flags known only at the end (PMIPROF_TRACE_F_REGIONS: were markers
 * recorded?): rewritten in the prologue at close when the output is a
 * regular file.
 */
int trace_writer_set_flags(struct trace_writer *w, uint32_t flags);
/*
 * 1.4: code regions.  -EINVAL for a REGION with an unknown kind or evmask
 * bits at or above the header's nr_events, an anomaly of unknown kind;
 * -ENAMETOOLONG for a name over PMIPROF_MAX_STRING.
 */
int trace_write_region_def(struct trace_writer *w, const struct trace_region_def *d);
int trace_write_region(struct trace_writer *w, const struct trace_region *r);
int trace_write_region_anomaly(struct trace_writer *w, const struct trace_region_anomaly *a);
/*
 * Raw record of a type this library does not know (tests, forward
 * compatibility); known types are refused with -EINVAL.
 */
int trace_write_raw(struct trace_writer *w, uint8_t type, const void *body, size_t len);
/*
 * An observer of what is written (the daemon's live metrics): each record
 * the writer accepts is handed to the callback of its kind (NULL members
 * are not called), samples after they are written, side-band before.  The
 * callbacks must not call the writer; tap stays the caller's and must
 * outlive the writer or be replaced.  NULL removes it.
 */
struct trace_writer_tap {
	void (*samples)(void *arg, const struct trace_sample *s, size_t n);
	void (*comm)(void *arg, const struct trace_comm *c);
	void (*task)(void *arg, uint8_t type, const struct trace_task *t);	/* FORK, EXIT */
	void (*lost)(void *arg, const struct trace_lost *l);
	/* a sample with its call stack (trace_write_sample_stack), before samples() */
	void (*stack)(void *arg, const struct trace_sample *s, const uint64_t *ips, uint32_t nr,
		      uint32_t nr_kernel);
	void (*ustack)(void *arg, const struct trace_ustack *u);
	void (*mmap)(void *arg, const struct trace_mmap *m);
	void *arg;
};
void trace_writer_set_tap(struct trace_writer *w, const struct trace_writer_tap *tap);
/* End the current chunk and write it out (fsync is the caller's choice). */
int trace_writer_flush(struct trace_writer *w);
/* Bytes written to the file so far (prologue, header and flushed chunks). */
uint64_t trace_writer_bytes(const struct trace_writer *w);
/* What a reader of the file would get now: complete chunks only. */
struct trace_writer_stats {
	uint64_t bytes;			/* = trace_writer_bytes() */
	uint64_t chunks;		/* complete record chunks */
	uint64_t samples;		/* SAMPLE records in them */
	uint64_t last_time;		/* latest SAMPLE time in them, 0 if none */
	uint64_t pending_samples;	/* SAMPLE records in the open chunk */
	/* RECORDS4 with zstd: non-empty streams of the complete chunks, by form */
	uint64_t streams_lz;		/* zstd level 1 */
	uint64_t streams_huf;		/* literals only (Huffman, no matches) */
	uint64_t streams_raw;		/* raw blocks */
};
void trace_writer_stats(const struct trace_writer *w, struct trace_writer_stats *st);
/*
 * After an I/O error: drop the records of the open chunk (they never reached
 * the file, the file ends at its last complete chunk) and accept records
 * again, so a recorder can try to end the trace with a small chunk (LOST
 * reason WRITE, FINISH flag ERROR) in the room the truncation gave back.
 * Returns the first error (0: there was none, nothing done); close() still
 * returns it.
 */
int trace_writer_recover(struct trace_writer *w);
/*
 * End a trace whose writes failed: trace_writer_recover(), then a LOST
 * (reason WRITE) for the samples that never reached the file and a FINISH
 * with the ERROR flag.  fin->samples on entry: the samples the recorder
 * took; on return fin holds what the FINISH says (samples written, losses
 * with the write loss added).  0 when both records were accepted (the
 * caller still flushes and syncs), else -errno.
 */
int trace_writer_end_failed(struct trace_writer *w, struct trace_finish *fin);
/* Flush, close the file, free.  Returns the sticky error, if any. */
int trace_writer_close(struct trace_writer *w);

/* ---- reader ---- */

struct trace_reader;

/* Receives one complete message: "FILE: offset N: what was wrong". */
typedef void (*trace_diag_fn)(void *arg, const char *msg);

struct trace_read_stats {
	uint64_t chunks_ok;
	uint64_t chunks_bad;		/* CRC/inflate/decode errors */
	uint64_t records;		/* records decoded (synthesized LOST not counted) */
	uint64_t records_lost;		/* records in bad chunks (from their headers) */
	uint64_t bytes_skipped;		/* file bytes not decoded */
	bool truncated;			/* file ends inside a chunk */
	/* additions since the first version */
	uint64_t records_unknown;	/* records of unknown type, skipped */
	bool finished;			/* a FINISH record was read */
	/* 1.4 */
	uint64_t chunks_summarized;	/* RECORDS chunks answered by their SUMMARY, not decoded */
	uint64_t summaries_bad;		/* damaged summaries: their chunks were decoded instead */
	/* a second trace appended (cat a b): reading stopped at its prologue */
	uint64_t second_trace_at;	/* its file offset, 0 = none */
	uint64_t second_trace_bytes;	/* bytes from there on, not read */
};

/*
 * 1.4: the flat-profile summary of one RECORDS chunk (every record in it is
 * a SAMPLE or belongs to one): per (pid, tid, ip, flags), the samples and
 * the sums of each event's counts (modulo 2^64), exactly what decoding the
 * chunk's samples and adding them up gives.
 */
struct trace_summary_entry {
	uint64_t ip;
	uint32_t pid, tid, flags;
	uint64_t samples;
	const uint64_t *counts;		/* nr_events sums */
};

struct trace_chunk_summary {
	uint32_t chunk_seq;
	uint32_t nr_records;		/* of the RECORDS chunk */
	uint64_t samples;
	uint64_t time_min, time_max;	/* of its samples */
	uint32_t nr_events;		/* the header's */
	uint32_t nr_entries;
	const struct trace_summary_entry *entries;	/* valid during the callback */
};

/*
 * Called when the reader reaches a RECORDS chunk followed by a valid
 * SUMMARY of it.  Return true to take the summary instead of the chunk's
 * records (the reader then skips the chunk without decoding it), false to
 * have the records decoded as usual.
 */
typedef bool (*trace_summary_fn)(void *arg, const struct trace_chunk_summary *sum);

/*
 * open() reads and validates the prologue and header.  On failure returns
 * -errno (-EBADMSG bad magic/CRC, -EPROTONOSUPPORT version, -ENOENT ...) and
 * has already passed one specific message to diag.  diag NULL = stderr.
 * Regular files are mapped read-only (do not truncate a trace while it is
 * being read); pipes are read into memory.  An input that starts with perf's
 * "PERFILE2" is read as a trace too: its records come out as the ones below
 * (lib/perf_data.c, docs/perf-data.md).
 */
int trace_reader_open(struct trace_reader **rp, const char *path,
		      trace_diag_fn diag, void *diag_arg);
/* Same over a memory buffer (fuzzing, tests); buf must outlive the reader. */
int trace_reader_open_mem(struct trace_reader **rp, const void *buf, size_t len,
			  const char *name, trace_diag_fn diag, void *diag_arg);
const struct trace_header *trace_reader_header(const struct trace_reader *r);
/*
 * Next record: 1 = rec filled, 0 = end of file, <0 = -errno (I/O error).
 * Damaged chunks are reported through diag and skipped; reading resumes at
 * the next chunk (resync on the chunk magic); their loss is returned to the
 * caller as a synthesized LOST record (reason UNREADABLE/TRUNCATED, cpu
 * PMIPROF_CPU_NONE, time of the last record before it, count = records in
 * the damaged chunk, 0 when unknown).  SAMPLE.counts[i] is 0 for i >= nr.
 * Strings and callchain ips stay valid until the next call.
 */
int trace_reader_next(struct trace_reader *r, struct trace_record *rec);
const struct trace_read_stats *trace_reader_stats(const struct trace_reader *r);
/* 1.4: offer chunk summaries to fn (NULL = decode every chunk, the default). */
void trace_reader_set_summary_fn(struct trace_reader *r, trace_summary_fn fn, void *arg);
/*
 * The descriptor of the mapped regular file (owned by the reader, open until
 * trace_reader_close()), or -1 when the input was read into memory (a pipe).
 */
int trace_reader_fd(const struct trace_reader *r);
void trace_reader_close(struct trace_reader *r);

/* Names for dump/diagnostics ("sample", "mmap", ...; "unknown" otherwise). */
const char *trace_record_name(uint32_t type);
const char *trace_lost_reason_name(uint32_t reason);
const char *trace_mode_name(uint32_t mode);
const char *trace_backend_name(uint32_t backend);
const char *trace_call_graph_name(uint32_t mode);	/* "no", "fp", "dwarf" */
const char *trace_region_anomaly_name(uint32_t what);	/* "end-without-begin", ... */

#endif /* PMIPROF_TRACE_H */
