/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Recording entry points shared by record and stat: option defaults and
 * validation (daemon/engine/record_opts.c) and the session loop (record_loop.c).
 */
#ifndef PMIPROF_DAEMON_RECORD_H
#define PMIPROF_DAEMON_RECORD_H

#include "engine/backend.h"

#define RECORD_DEFAULT_EVENTS	"instructions,cycles,cache-misses,branch-misses"
#define RECORD_DEFAULT_PERIOD	512000
#define RECORD_DEFAULT_OUTPUT	"pmiprof.data"

/*
 * What -e, -c and -F default to.  record samples densely (a run is short and
 * watched); the daemon runs forever on production machines, so its rates
 * are about a hundred times lower (docs/daemon.md, "Default rate").
 */
struct record_defaults {
	const char *events;
	uint64_t time_hz;	/* -F for cpu-clock/task-clock triggers */
	uint64_t hw_period;	/* -c for hardware triggers */
	uint64_t sw_period;	/* -c for counting software triggers */
};

extern const struct record_defaults record_defaults_record;
extern const struct record_defaults record_defaults_daemon;

/*
 * Check -c/-F against the trigger event: period in [1, limit] where limit is
 * 2^47-1 for hardware counters, 2^63-1 otherwise (time-based triggers: at
 * least 10000 ns, the kernel's hrtimer floor); frequency in
 * [1, kernel.perf_event_max_sample_rate].  Returns 0 or -ERANGE with a
 * message in err naming the valid range.
 */
int record_check_rate(const struct record_opts *o, char *err, size_t err_len);
/* kernel.perf_event_max_sample_rate (the kernel may lower it at run time). */
uint64_t record_max_sample_rate(void);
/*
 * Parse "PID[,PID...]" into o->pids: processes, each once; a thread id is
 * replaced by its process's id (a notice says so).  0 or -EINVAL/-E2BIG
 * (message in err).
 */
int record_parse_pids(struct record_opts *o, const char *list, char *err, size_t err_len);
/*
 * Why the kernel refuses to count on process pid when perf_event_paranoid
 * is not the reason: perf_event_open on a task makes the ptrace access
 * check (read mode, real credentials), which only the process's owner (all
 * its uids and gids equal to ours), root or CAP_SYS_PTRACE pass, and never
 * for a non-dumpable process (setuid programs).  1 with the reason in why,
 * 0 when none is found (then paranoid is the likely cause).
 */
int record_target_denied(pid_t pid, char *why, size_t len);
/* The first of o->pids record_target_denied() explains, as "-p PID: ..."; 0 if none. */
int record_targets_denied(const struct record_opts *o, char *why, size_t len);

/* perf's defaults and limits for -g/--call-graph/--max-stack */
#define RECORD_DEFAULT_DUMP_SIZE	8192	/* --call-graph dwarf */
#define RECORD_MAX_DUMP_SIZE		65528	/* round_down(USHRT_MAX, 8) */
#define RECORD_DEFAULT_MAX_STACK	127	/* kernel.perf_event_max_stack default */
/*
 * fp mode: user stack bytes copied at SP with every sample, so the report can
 * restore the caller of a leaf function that has no frame (docs/record.md).
 */
#define RECORD_LEAF_WORDS_SIZE		64

/*
 * Parse a --call-graph value as perf does: "fp[,MAX_STACK]", "dwarf[,SIZE]"
 * (SIZE rounded up to a multiple of 8, 8..65528, default 8192) or "no".
 * 0 or -EINVAL with perf's message in err.
 */
int record_parse_call_graph(struct record_opts *o, const char *arg, char *err, size_t err_len);

/*
 * Parse record's options (stat shares them).  Returns 0, -1 for -h/--help,
 * or the usage exit status after printing the error.
 */
int record_parse_common(const char *cmd, int argc, char **argv, struct record_opts *o,
			const struct record_defaults *d);

/* Run a recording session; returns the exit status for pmiprof record. */
int record_run(const struct record_opts *o, int argc, char **argv);

/*
 * A recording watched as it goes (pmiprof top): the loop is record_run()'s,
 * and these calls let the watcher see every record written and act between
 * drains.  Every member may be NULL (fd < 0: none).  A non-zero return of
 * any call stops the recording (a workload still running gets SIGTERM) and
 * is kept in *stopped_by.
 *
 *   open(arg, hdr, backend, &tap)  once the trace is created, before the
 *                         side-band of running tasks is written: the header
 *                         as the backend completed it; *tap (may stay NULL)
 *                         is set on the writer and sees every record.
 *   tick(arg, stats)      every tick_ns, right after a drain.
 *   input(arg)            fd became readable (a terminal's keys).
 */
struct record_hooks {
	int (*open)(void *arg, const struct trace_header *h, const char *backend,
		    const struct trace_writer_tap **tap);
	int (*tick)(void *arg, const struct record_stats *st);
	int (*input)(void *arg);
	uint64_t tick_ns;
	int fd;
	void *arg;
	int stopped_by;		/* out: the non-zero return that stopped it, or 0 */
};
int record_run_hooked(const struct record_opts *o, int argc, char **argv,
		      struct record_hooks *hk);

#endif /* PMIPROF_DAEMON_RECORD_H */
