/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One pass over a trace for report and plot: reads records through the
 * trace reader, keeps address spaces and thread names from the side-band
 * records, symbolizes each sample's IP (cached per distinct address and
 * address space), applies the filters, and hands every kept sample to a
 * callback.  Counts everything it could not use (lost, unreadable,
 * filtered) so the output can say so.
 */
#ifndef PMIPROF_REPORT_SESSION_H
#define PMIPROF_REPORT_SESSION_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#include <pmiprof/trace.h>

#include "symbols/archive.h"
#include "hashmap.h"
#include "input/maps.h"
#include "input/regions.h"
#include "strtab.h"
#include "symbols/symbols.h"

struct filters {
	uint32_t *pids, nr_pids;
	uint32_t *tids, nr_tids;
	char **comms;
	uint32_t nr_comms;
	char **dsos;
	uint32_t nr_dsos;
	char **symbols;
	uint32_t nr_symbols;
	bool have_time;
	uint64_t time_from, time_to;	/* ns since the start of the recording */
	bool have_window;
	uint64_t win_from, win_to;	/* window (sample) indexes, inclusive */
	const char *region;		/* --region: windows inside it (nested included) */
	uint64_t since_ns, until_ns;	/* --since/--until: wall clock, 0 = unbounded */
};

/*
 * Call stacks are resolved by the stacks stage (stacks/callstack.h), which
 * sits above the session: a pass that wants them sets session_opts.stacks to
 * that stage's hooks (callstack_hooks), and the session calls them for each
 * STACK record and each kept sample without knowing how stacks are resolved.
 * s->cs is the hooks' state, opaque here.
 */
#define SESSION_NO_STACK UINT32_MAX	/* s->stack of a sample without a stack */
struct session;
struct callstacks;
struct session_stack_hooks {
	int (*open)(struct callstacks **out, struct session *s, bool leaf_fixup);
	void (*close)(struct callstacks *c);
	int (*define)(struct callstacks *c, uint32_t chunk_seq, const struct trace_stack *st);
	int (*resolve)(struct callstacks *c, const struct trace_sample *smp, uint32_t chunk_seq,
		       uint32_t leaf_sym, const struct trace_ustack *us, uint32_t *id);
	void (*print_warnings)(const struct callstacks *c);
};

struct session_opts {
	const char *input;		/* default "pmiprof.data" */
	const char *archive;		/* --archive: a `pmiprof archive` tar to read files from */
	const char *buildid_dir;	/* --buildid-dir: default ~/.pmiprof/debug */
	struct symbolizer_opts sym;
	struct filters filt;
	/* resolve call stacks (NULL: not): s->cs, s->stack (see above) */
	const struct session_stack_hooks *stacks;
	bool no_leaf_fixup;		/* --no-leaf-fixup: fp chains as recorded */
	bool no_summaries;		/* --no-summaries: decode every sample (1.4 traces) */
};

/* Where samples were lost or sampling throttled, for plots (first LOST_MARKS only). */
#define SESSION_LOST_MARKS 4096
struct lost_mark {
	uint64_t time;			/* ns since start */
	uint64_t count;
	uint32_t reason;		/* PMIPROF_LOST_* */
};

struct session {
	struct session_opts opts;
	struct trace_reader *r;
	const struct trace_header *h;
	struct symbolizer *sy;
	/* Bumped when session_live_restart() replaces the symbolizer: sym ids of an
	 * older generation name nothing in the new one. */
	uint32_t sy_gen;
	struct maps maps;
	struct hashmap ipcache;		/* (ip, space or special tag) -> sym id */
	struct strtab comms;
	struct hashmap tid2comm;	/* tid -> comm id */
	/* The last sample's address space and comm, until the next side-band record */
	bool memo_valid;
	uint32_t memo_pid, memo_space, memo_tag, memo_tid, memo_comm;
	uint8_t *sym_pass;		/* per sym: 0 not yet decided, 1 kept, 2 filtered */
	uint32_t cap_sym_pass;
	int64_t hidden_sym;		/* "[kernel]" for withheld kernel IPs */
	double time_scale;		/* trace clock ticks -> ns */
	bool have_base;
	uint64_t base_time;		/* trace clock value of t = 0 */
	/* Reporting on another machine */
	char *archive_dir;		/* --archive extracted here, removed at close */
	char *buildid_dir;		/* the build-id cache in use, or NULL */
	char *kallsyms_path;		/* the kernel symbols chosen (archive, cache) */
	char *kernel_note;		/* why kernel addresses stay unresolved */
	struct archive_ids arch_ids;	/* path -> build-id of MMAPs that had none */
	/* Call stacks (opts.stacks and a trace with stacks, else NULL): opts.stacks' state */
	struct callstacks *cs;
	uint32_t stack;			/* report-wide stack id of the sample in the callback */

	/* statistics */
	uint64_t samples;		/* SAMPLE records read */
	uint64_t kept;			/* passed the filters */
	/* Of the kept windows: not comparable with the others (see window_in_stats()). */
	uint64_t throttled;		/* stretched by the module's storm throttling */
	uint64_t after_loss;		/* spanning lost/throttled periods on their CPU */
	uint64_t left_out;		/* either: left out of per-window statistics */
	uint64_t first_ns, last_ns;	/* of all samples, since start */
	uint64_t lost[8];		/* by PMIPROF_LOST_* reason (THROTTLE: see below) */
	uint64_t lost_total;		/* samples lost: every reason but THROTTLE */
	/* THROTTLE LOST records: events and ns (1.1), or 1.0's estimate of windows. */
	uint64_t throttle_events, throttled_ns, throttle_est_windows;
	uint64_t throttle_no_duration;	/* of throttle_events: duration 0 (unknown) */
	uint64_t cpu_offline_ns;	/* LOST cpu-offline: CPU time not recorded */
	uint32_t cpu_offline_stretches;
	bool read_all;			/* the pass reached the end of the trace */
	uint64_t mmaps, comm_records, forks, marks, unknown_records;
	uint64_t chunks_summarized;	/* chunks answered by their SUMMARY (parallel.c) */
	uint64_t summaries_bad;		/* damaged summaries: chunks decoded instead */
	bool have_finish;
	struct trace_finish finish;
	struct lost_mark *lost_marks;
	uint32_t nr_lost_marks;
	uint64_t kept_totals[PMIPROF_MAX_EVENTS];
	/* 1.4 code regions: open per thread as the pass goes (regions.h) */
	struct regions reg;
	uint32_t region;		/* innermost region of the sample in the callback */
	uint32_t region_filter;		/* --region's dense id, REGIONS_NONE until defined */
};

/* Called for each kept sample; a non-zero return stops the pass with it. */
typedef int (*session_sample_fn)(void *arg, const struct trace_sample *s, uint64_t index,
				 uint32_t sym, uint32_t comm);

/* Opens the trace (reader diagnostics go to stderr).  Returns 0 or -errno. */
int session_open(struct session *s, const struct session_opts *o);
/*
 * A session fed by its caller instead of a reader (the daemon's live
 * profiles): header h (the caller's, outliving s), side-band through
 * session_apply_sideband(), STACKs through opts.stacks->define(), samples
 * through session_sample().  session_live_restart() forgets the address
 * spaces, thread names and stacks (their ids start again), keeping the
 * symbolizer's loaded files unless new_symbolizer.  0 or -errno.
 */
int session_open_live(struct session *s, const struct session_opts *o,
		      const struct trace_header *h);
int session_live_restart(struct session *s, bool new_symbolizer);
/* One sample as session_run() takes it (us: its USTACK or NULL); fn's result, 0 or -errno. */
int session_sample(struct session *s, const struct trace_sample *smp, uint32_t chunk_seq,
		   const struct trace_ustack *us, session_sample_fn fn, void *arg);
/* One pass; returns 0, -errno, or the callback's non-zero value. */
int session_run(struct session *s, session_sample_fn fn, void *arg);
void session_close(struct session *s);
/*
 * Pieces of the pass, for passes that aggregate elsewhere (parallel.c):
 * apply an MMAP/COMM/FORK record; account a LOST record; resolve and
 * filter (pid, tid, dso, symbol, comm) one sample: 1 kept (sym and comm
 * set), 0 filtered out, -errno.  Time and window filters are the caller's.
 */
int session_apply_sideband(struct session *s, const struct trace_record *rec);
/*
 * The comm id (in s->comms) of a thread: its own COMM, else its process's,
 * else "swapper" for the idle task (no COMM record) or "[unknown]".
 */
uint32_t session_comm_of(const struct session *s, uint32_t pid, uint32_t tid);
/*
 * A REGION_DEF, REGION or REGION_ANOMALY record into the session's regions
 * (in file order: markers pair up per thread).
 */
int session_apply_region(struct session *s, const struct trace_record *rec);
int session_lost(struct session *s, const struct trace_lost *l);
int session_classify(struct session *s, const struct trace_sample *smp, uint32_t *sym,
		     uint32_t *comm);
/*
 * Where address ip of process pid lies at this place in the trace: 1 with
 * the file-backed DSO and the file offset, 0 for kernel, JIT and unmapped
 * addresses.
 */
int session_locate_ip(struct session *s, uint32_t pid, uint64_t ip, uint32_t *dso,
		      uint64_t *off);
/* Symbol id of address ip of process pid at this place in the trace (cached), or -errno. */
int64_t session_resolve_ip(struct session *s, uint32_t pid, uint64_t ip);
/* ns since the start of the recording of trace clock value t. */
static inline uint64_t session_time_ns(const struct session *s, uint64_t t)
{
	if (t <= s->base_time)
		return 0;
	if (s->time_scale == 1.0)
		return t - s->base_time;
	return (uint64_t)((double)(t - s->base_time) * s->time_scale);
}

/* Warnings about losses (lost samples, unreadable chunks, throttling, a
 * recording that did not finish), and about missing symbols unless quiet. */
void session_print_warnings(const struct session *s, bool quiet);
/* "pid 42" style names of what a sample belongs to. */
/*
 * A pid or tid as printed: the kernel reports -1 (u32 all ones) for samples
 * on a task's exit path in system-wide mode; perf prints it as -1.
 */
static inline long long session_task_id(uint32_t id)
{
	return id == UINT32_MAX ? -1 : (long long)id;
}

static inline const char *session_comm(const struct session *s, uint32_t comm)
{
	return strtab_str(&s->comms, comm);
}
double session_duration_s(const struct session *s);
/*
 * Windows whose counts span more than their own period (the recorder lost
 * samples or was throttled on their CPU, or storm throttling stretched
 * them): their IP is real, so flat profiles count them, but per-window
 * statistics (histograms, plot series, --windows marks) leave them out.
 */
#define WINDOW_F_NOT_IN_STATS (PMIPROF_SAMPLE_F_THROTTLED | PMIPROF_SAMPLE_F_AFTER_LOSS)
static inline bool window_in_stats(uint32_t sample_flags)
{
	return !(sample_flags & WINDOW_F_NOT_IN_STATS);
}
/*
 * A window after a loss absorbed every lost period: it counts as a sample
 * but its event counts go into no sum (function rows, totals).
 */
static inline bool window_counts_events(uint32_t sample_flags)
{
	return !(sample_flags & PMIPROF_SAMPLE_F_AFTER_LOSS);
}
/* Counts n kept windows with these flags in throttled/after_loss/left_out. */
static inline void session_count_window(struct session *s, uint32_t flags, uint64_t n)
{
	if (flags & PMIPROF_SAMPLE_F_THROTTLED)
		s->throttled += n;
	if (flags & PMIPROF_SAMPLE_F_AFTER_LOSS)
		s->after_loss += n;
	if (!window_in_stats(flags))
		s->left_out += n;
}
/* How the recording ended, for headers and warnings: NULL when it finished
 * normally (or the pass stopped early and cannot tell), else a short reason. */
const char *session_unfinished(const struct session *s);

/*
 * Options every report-side command shares (-i/--input, -q/--quiet and the
 * filters): long options with these codes, parsed by session_filter_option().
 */
enum {
	OPT_FILTER_PID = 0x1000, OPT_FILTER_TID, OPT_FILTER_COMM, OPT_FILTER_DSO,
	OPT_FILTER_SYMBOL, OPT_FILTER_TIME, OPT_FILTER_WINDOW, OPT_KALLSYMS, OPT_JIT_DIR,
	OPT_SYMFS, OPT_BUILDID_DIR, OPT_ARCHIVE, OPT_FILTER_REGION, OPT_FILTER_SINCE,
	OPT_FILTER_UNTIL,
};
#define SESSION_FILTER_OPTIONS \
	{ "input", required_argument, NULL, 'i' }, \
	{ "quiet", no_argument, NULL, 'q' }, \
	{ "pid", required_argument, NULL, OPT_FILTER_PID }, \
	{ "tid", required_argument, NULL, OPT_FILTER_TID }, \
	{ "comm", required_argument, NULL, OPT_FILTER_COMM }, \
	{ "dso", required_argument, NULL, OPT_FILTER_DSO }, \
	{ "symbol", required_argument, NULL, OPT_FILTER_SYMBOL }, \
	{ "time", required_argument, NULL, OPT_FILTER_TIME }, \
	{ "window", required_argument, NULL, OPT_FILTER_WINDOW }, \
	{ "region", required_argument, NULL, OPT_FILTER_REGION }, \
	{ "since", required_argument, NULL, OPT_FILTER_SINCE }, \
	{ "until", required_argument, NULL, OPT_FILTER_UNTIL }, \
	{ "kallsyms", required_argument, NULL, OPT_KALLSYMS }, \
	{ "jit-dir", required_argument, NULL, OPT_JIT_DIR }, \
	{ "symfs", required_argument, NULL, OPT_SYMFS }, \
	{ "buildid-dir", required_argument, NULL, OPT_BUILDID_DIR }, \
	{ "archive", required_argument, NULL, OPT_ARCHIVE }
/*
 * What the options above say, for --help texts (one line each, 4-space
 * indent, for commands that share them).
 */
#define SESSION_LOOKUP_HELP \
"    --kallsyms FILE               kernel symbols (default /proc/kallsyms, when\n" \
"                                  the trace is from this boot)\n" \
"    --jit-dir DIR                 where perf-PID.map files are (default /tmp)\n" \
"    --symfs DIR                   look binaries and debug files up as DIR + the\n" \
"                                  recorded path (a copy of the recording root)\n" \
"    --archive FILE                read binaries, debug files and kallsyms by\n" \
"                                  build-id from a 'pmiprof archive' tar(.gz)\n" \
"    --buildid-dir DIR             build-id cache: the one record fills, or an\n" \
"                                  extracted archive (default\n" \
"                                  $PMIPROF_BUILDID_DIR, else ~/.pmiprof/debug)\n"
/* Handles 'i', 'q' or one of the codes above: 0, or a usage error's exit status. */
int session_filter_option(struct session_opts *o, int code, const char *arg, const char *cmd);
void session_opts_free(struct session_opts *o);

#endif /* PMIPROF_REPORT_SESSION_H */
