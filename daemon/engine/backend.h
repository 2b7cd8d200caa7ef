/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recorder's backend interface.  A backend turns a parsed recording
 * request (struct record_opts) into running counters and drains what they
 * produce into the trace writer.  Two implement it: perf (perf_event_open,
 * daemon/perf/backend_perf.c, the default) and module (/dev/pmiprof,
 * daemon/module/backend_module.c).  Everything else about recording -- option
 * parsing, fork/exec handshake, signals, the poll loop, progress and the
 * summary -- is backend-independent and lives in daemon/engine/record_loop.c.
 *
 * Life cycle, driven by record_loop.c (every call returns 0 or -errno and,
 * on failure, has already printed ONE specific message with pm_err()):
 *
 *   probe(opts, why)      may this backend run here with these options?
 *                         no side effects; on failure fills why[] with the
 *                         reason ("no /dev/pmiprof: module not loaded ...").
 *   open(s)               create counters for s->opts' targets.  When
 *                         s->child > 0 the workload is forked but blocked
 *                         before exec(): counters must start counting at its
 *                         exec (perf: enable_on_exec) so nothing is missed.
 *                         open() completes the trace header s->hdr: pmu,
 *                         events (name/type/config/flags), trigger, sampling
 *                         mode/backend, TIME_BASED/INHERIT/NO_INHERIT_READ/
 *                         SYSTEM_WIDE flags, and the note explaining any
 *                         fallback.  The recorder fills host, clock, cmdline
 *                         and recorder fields before open() and writes the
 *                         header after it.  A fallback is announced by the
 *                         backend with one pm_info() line.
 *   synthesize(s, w)      optional (may be NULL): write MMAP/COMM records for
 *                         tasks that already run (-p, -a) before enable().
 *   enable(s)             start counting for targets that are already
 *                         running (-p, -a); with a forked child it may be a
 *                         no-op (enable_on_exec does it).
 *   poll_fds(s, fds, max) fill up to max pollfds (POLLIN) that become
 *                         readable when there is data to drain; returns how
 *                         many.  The recorder sleeps in poll() on them plus
 *                         its own signal/child fds: no busy loop.
 *   drain(s, w)           copy everything available out of the rings into
 *                         the writer (SAMPLE with per-window deltas, MMAP,
 *                         COMM, FORK, EXIT, LOST), updating s->stats.
 *                         Returns the number of records written or -errno
 *                         (a writer error is returned as is).
 *   disable(s)            stop counting; the recorder then drains once more.
 *   close(s)              release everything; safe after a failed open().
 *
 * Backends keep their private state in s->priv (owned by the backend, freed
 * by close()).
 */
#ifndef PMIPROF_DAEMON_BACKEND_H
#define PMIPROF_DAEMON_BACKEND_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "events.h"
#include "pmiprof/trace.h"

#define RECORD_MAX_PIDS		64

/* What the user asked for (filled by cmd_record.c / cmd_stat.c). */
struct record_opts {
	struct pm_event_list events;	/* parsed -e; events.trigger = trigger index */
	bool events_given;		/* -e was given (no silent fallback then) */
	uint64_t period;		/* -c: trigger events per window, or 0 */
	uint64_t freq_hz;		/* -F: samples per second, or 0 */
	bool period_given;		/* -c or -F was given explicitly */
	uint64_t fallback_freq_hz;	/* cpu-clock rate of the no-PMU fallback, 0: 10 kHz */
	bool system_wide;		/* -a */
	pid_t pids[RECORD_MAX_PIDS];	/* -p */
	unsigned int nr_pids;
	char **argv;			/* workload command (after --), or NULL */
	const char *output;		/* -o */
	const char *backend;		/* --backend: "auto", "perf", "module" */
	unsigned int mmap_pages;	/* ring data pages per CPU (power of two) */
	bool quiet;			/* -q */
	int compression_level;		/* -z: zlib level 0..9, -1 = writer default */
	bool counting;			/* stat: count only, no samples */
	uint32_t call_graph;		/* -g/--call-graph: PMIPROF_CALL_GRAPH_* */
	uint32_t call_graph_dump_size;	/* dwarf: user stack bytes per sample */
	uint32_t max_stack;		/* --max-stack: frames per stack */
	bool max_stack_given;
	/* A command's other way round a permission error ("; or ..."), or NULL. */
	const char *no_permission_hint;
	/* Debug knob: behave as on a kernel < 6.12 (PMIPROF_FORCE_NO_INHERIT_READ=1). */
	bool force_no_inherit_read;
	/* record only: fill the build-id cache at the end (--no-buildid-cache: off) */
	bool buildid_cache;
	uint64_t buildid_cache_limit;	/* --buildid-cache-size, 0: the env or default */
};

struct record_stats {
	uint64_t samples;		/* SAMPLE records written */
	uint64_t lost;			/* samples lost (ring full), as LOST records */
	uint64_t throttled;		/* THROTTLE events, as LOST records */
	uint64_t throttled_ns;		/* time spent throttled (perf backend) */
	uint64_t after_loss;		/* windows flagged AFTER_LOSS */
	uint64_t filtered;		/* samples of other processes dropped (fallback) */
	uint64_t side_band;		/* MMAP/COMM/FORK/EXIT records written */
	uint64_t wakeups;		/* drain() calls that found data */
	uint64_t stacks;		/* samples written with a call stack or user stack */
	uint64_t ustack_trimmed;	/* dwarf stack bytes above exec's argc, not stored */
	/* -a, perf backend (0 when the backend does not say): CPU hotplug */
	uint32_t cpus_online;		/* online at the last check */
	uint32_t cpus_recorded;		/* of those, with a working group */
	uint64_t cpu_unrecorded_ns;	/* CPU time a CPU of ours was not recorded (offline) */
};

struct record_session {
	const struct record_opts *opts;
	struct trace_header hdr;	/* completed by backend open() */
	pid_t child;			/* forked workload (blocked before exec), or 0 */
	struct record_stats stats;
	void *priv;			/* backend state */
	/*
	 * Code-region markers (record_regions.h), or NULL: a backend that
	 * writes records in time order calls record_regions_flush() with each
	 * record's time before writing it, so markers precede the samples
	 * they come before.
	 */
	struct record_regions *regions;
	/*
	 * The next drain takes every record the rings hold, not only those
	 * older than the publish slack: a daemon segment ends, and what it
	 * recorded must not open the next one, whose side-band is that of the
	 * processes alive when it starts.
	 */
	bool drain_all;
};

struct trace_writer;

struct backend_ops {
	const char *name;		/* "perf", "module" */
	uint32_t id;			/* PMIPROF_BACKEND_* */
	int (*probe)(const struct record_opts *o, char *why, size_t why_len);
	int (*open)(struct record_session *s);
	int (*synthesize)(struct record_session *s, struct trace_writer *w);
	int (*enable)(struct record_session *s);
	int (*poll_fds)(struct record_session *s, struct pollfd *fds, int max);
	int (*drain)(struct record_session *s, struct trace_writer *w);
	int (*disable)(struct record_session *s);
	void (*close)(struct record_session *s);
};

extern const struct backend_ops backend_perf_ops;
/* Defined by daemon/module/backend_module.c. */
extern const struct backend_ops backend_module_ops;

/*
 * Pick the backend for name ("auto", "perf", "module").  auto = module when
 * /dev/pmiprof exists and its probe succeeds, else perf.  Returns NULL after
 * printing why (unknown name, or the named backend's probe failed).
 */
const struct backend_ops *backend_select(const char *name, const struct record_opts *o);
/* By exact name, no probing (doctor); NULL when unknown or not built in. */
const struct backend_ops *backend_find(const char *name);

#endif /* PMIPROF_DAEMON_BACKEND_H */
