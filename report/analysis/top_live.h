/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmiprof top's samples: a report session fed record by record from a
 * recorder's trace writer tap (session_open_live()) -- or by a daemon's
 * profiles (top_remote.h) -- and the kept samples of the last intervals,
 * each with its function, command, cgroup (--by cgroup) and call stack
 * (-g).  Every view (by process, function, a process's functions, a
 * function's lines) is aggregated from the same stored samples when it is
 * asked for, so a zoom shows the last seconds at once instead of waiting
 * for new samples.
 */
#ifndef PMIPROF_REPORT_TOP_LIVE_H
#define PMIPROF_REPORT_TOP_LIVE_H

#include <stdint.h>

#include <pmiprof/trace.h>

#include "hashmap.h"
#include "input/session.h"

/* slots for intervals: the window holds at most TOP_MAX_INTERVALS - 1 closed ones */
#define TOP_MAX_INTERVALS 64

struct top_sample {
	struct trace_sample s;
	uint32_t sym, comm;
	uint32_t n;			/* windows it stands for: 1 but from a profile */
	uint32_t cgroup;		/* its process's cgroup path (in s.comms), with cgroups */
	uint32_t stack;			/* report-wide stack id (s.cs), CS_NONE without -g */
	uint32_t line;			/* from a profile: "file:line" (in s.comms), or NONE */
};
#define TOP_NO_LINE UINT32_MAX

/* A sample with its call stack, held until its USTACK (fp leaf words) comes. */
struct top_pending {
	bool on;
	struct trace_sample s;
	uint64_t *ips;
	uint32_t nr, nr_kernel, cap;
};

struct top_interval {
	struct top_sample *v;
	uint32_t n, cap;
	uint64_t start_ns, end_ns;	/* CLOCK_MONOTONIC; end 0 while open */
	uint64_t seen;			/* SAMPLE records the recorder wrote */
	uint64_t lost;			/* samples lost (ring full) */
	uint64_t throttled;		/* throttle stretches */
};

struct top_live {
	struct trace_header h;		/* the recording's, copied (the session points here) */
	struct session s;
	struct trace_writer_tap tap;
	struct top_interval iv[TOP_MAX_INTERVALS];
	uint32_t keep;			/* intervals in the window (--decay / -d) */
	uint32_t cur;			/* the open one */
	uint32_t closed;		/* closed ones held (at most keep) */
	uint32_t seq;			/* intervals opened so far (the open one's number) */
	struct hashmap exited;		/* pid -> seq of the interval it exited in */
	uint64_t total_seen, total_lost;
	bool remote;			/* fed from a daemon's profiles: no addresses */
	bool cgroups;			/* each sample's cgroup is looked up */
	bool wait_ustack;		/* -g with leaf words: a USTACK follows each stack */
	bool skip_samples;		/* the sample the stack tap just took comes again */
	struct top_pending pend;
	uint32_t chunk_seq;		/* one per sample with a stack: its STACK's scope */
	struct hashmap cg_of_pid;	/* pid -> cgroup string, this interval's reads */
	int err;			/* first error in the tap (-errno), 0 */
};

/*
 * Opens the session for header h (copied); keep: intervals in the window,
 * 1..63; stacks: resolve the call stacks the recorder writes (-g), so a
 * function without lines shows its callers (top_view.h).
 */
int top_live_open(struct top_live *t, const struct trace_header *h, uint32_t keep, bool stacks);
void top_live_close(struct top_live *t);
/* The tap to set on the recorder's writer (arg = t). */
const struct trace_writer_tap *top_live_tap(struct top_live *t);
/* Close the open interval at now_ns and open the next: 0, or the tap's first error. */
int top_live_rotate(struct top_live *t, uint64_t now_ns);

/*
 * Look each sample's process's cgroup up (/proc/PID/cgroup, once per
 * process and interval, so a process that moves is seen moved): --by
 * cgroup.  0 or -ENOMEM.
 */
int top_live_want_cgroups(struct top_live *t);
/*
 * n windows (summed in *smp) of function sym, command comm, call stack
 * stack (a report-wide id of s.cs, CS_NONE) into the open interval.
 */
int top_live_store(struct top_live *t, const struct trace_sample *smp, uint32_t sym,
		   uint32_t comm, uint32_t n, uint32_t stack);

/* The closed intervals in the window, oldest first: index i < t->closed. */
const struct top_interval *top_live_interval(const struct top_live *t, uint32_t i);
/* Seconds the window spans, and its SAMPLE/lost counts. */
double top_live_seconds(const struct top_live *t);
void top_live_counts(const struct top_live *t, uint64_t *seen, uint64_t *lost,
		     uint64_t *throttled);
/* Whether pid exited during the window. */
bool top_live_exited(const struct top_live *t, uint32_t pid);

#endif /* PMIPROF_REPORT_TOP_LIVE_H */
