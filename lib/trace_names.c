// SPDX-License-Identifier: GPL-2.0
/* Printable names of trace format constants, for dump and diagnostics. */
#include "pmiprof/trace.h"
#include "util.h"

static const char *pick(const char *const *names, size_t n, uint32_t v)
{
	return v < n && names[v] ? names[v] : "unknown";
}

const char *trace_record_name(uint32_t type)
{
	static const char *const names[] = {
		[PMIPROF_REC_SAMPLE] = "sample", [PMIPROF_REC_MMAP] = "mmap",
		[PMIPROF_REC_COMM] = "comm", [PMIPROF_REC_FORK] = "fork",
		[PMIPROF_REC_EXIT] = "exit", [PMIPROF_REC_LOST] = "lost",
		[PMIPROF_REC_MARK] = "mark", [PMIPROF_REC_CALLCHAIN] = "callchain",
		[PMIPROF_REC_FINISH] = "finish", [PMIPROF_REC_STACK] = "stack",
		[PMIPROF_REC_USTACK] = "ustack", [PMIPROF_REC_REGION_DEF] = "region_def",
		[PMIPROF_REC_REGION] = "region", [PMIPROF_REC_REGION_ANOMALY] = "region_anomaly",
	};

	return pick(names, ARRAY_SIZE(names), type);
}

const char *trace_lost_reason_name(uint32_t reason)
{
	static const char *const names[] = {
		[PMIPROF_LOST_RING_FULL] = "ring-full", [PMIPROF_LOST_THROTTLE] = "throttle",
		[PMIPROF_LOST_WRITE] = "write", [PMIPROF_LOST_UNREADABLE] = "unreadable",
		[PMIPROF_LOST_TRUNCATED] = "truncated",
		[PMIPROF_LOST_REGION_MARKERS] = "region-markers",
		[PMIPROF_LOST_CPU_OFFLINE] = "cpu-offline",
	};

	return pick(names, ARRAY_SIZE(names), reason);
}

const char *trace_mode_name(uint32_t mode)
{
	static const char *const names[] = {
		[PMIPROF_MODE_PERF] = "perf", [PMIPROF_MODE_PMI] = "pmi",
		[PMIPROF_MODE_TIMER] = "timer",
	};

	return pick(names, ARRAY_SIZE(names), mode);
}

const char *trace_call_graph_name(uint32_t mode)
{
	static const char *const names[] = {
		[PMIPROF_CALL_GRAPH_NONE] = "no", [PMIPROF_CALL_GRAPH_FP] = "fp",
		[PMIPROF_CALL_GRAPH_DWARF] = "dwarf",
	};

	return pick(names, ARRAY_SIZE(names), mode);
}

const char *trace_backend_name(uint32_t backend)
{
	static const char *const names[] = {
		[PMIPROF_BACKEND_PERF] = "perf", [PMIPROF_BACKEND_MODULE] = "module",
	};

	return pick(names, ARRAY_SIZE(names), backend);
}

const char *trace_region_anomaly_name(uint32_t what)
{
	static const char *const names[] = {
		[PMIPROF_REGION_AN_END_WITHOUT_BEGIN] = "end-without-begin",
		[PMIPROF_REGION_AN_MISMATCHED] = "mismatched-end",
		[PMIPROF_REGION_AN_TOO_DEEP] = "too-deep",
		[PMIPROF_REGION_AN_FORK_IN_REGION] = "fork-in-region",
		[PMIPROF_REGION_AN_TOO_MANY_NAMES] = "too-many-names",
		[PMIPROF_REGION_AN_TOO_MANY_THREADS] = "too-many-threads",
	};

	return pick(names, ARRAY_SIZE(names), what);
}
