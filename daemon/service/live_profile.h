/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /debug/pprof/profile built in the daemon as the samples come
 * (docs/daemon.md): a tap on each segment's writer queues the side-band
 * (MMAP, COMM, FORK) always and the samples with their stacks while a
 * profile is being taken; a worker thread applies them to a report session
 * fed by hand (session_open_live()) and writes each kept sample into every
 * profile whose seconds hold it, through the report's own pprof pass
 * (pprof_pass_*: the same symbols, stacks and values as `pmiprof report
 * -i DIR --since A --until B --format pprof`).  When a profile's seconds
 * end, only its tables are left to write.
 *
 * The session starts again at every segment (the segment re-synthesizes
 * the side-band of every process, as a report of that segment on its own
 * sees it), so its tables hold one segment's processes; the symbolizer
 * (loaded ELF and DWARF) lives on, and is dropped when a file it read
 * changed (dev, inode, mtime), it holds too many files, the daemon's RSS
 * nears --max-memory, or a whole segment passed without a profile asked for.
 */
#ifndef PMIPROF_DAEMON_LIVE_PROFILE_H
#define PMIPROF_DAEMON_LIVE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmiprof/trace.h"

struct live_profile;
struct live_scrape;

/* max_rss: --max-memory in bytes (0: none), a bound on what the symbols may keep. */
int live_profile_new(struct live_profile **out, const struct trace_header *h, uint64_t max_rss);
/* Stops the worker (profiles in progress fail), frees. */
void live_profile_free(struct live_profile *lp);
/* The tap's members to call (stack, ustack, mmap, comm, task; arg = lp). */
const struct trace_writer_tap *live_profile_tap(struct live_profile *lp);

/*
 * From the recording loop: a segment is about to be opened (before its
 * side-band is written), and once open its start times (the pair through
 * which report converts --since/--until).
 */
void live_profile_segment_starting(struct live_profile *lp);
void live_profile_segment_started(struct live_profile *lp, uint64_t start_ns,
				  uint64_t start_real_ns);

/*
 * A profile of [from_real_ns, to_real_ns] (wall clock, both included as in
 * report --since/--until), of samples of pid (0: any) whose command matches
 * one of the comma-separated patterns comm (NULL: any).  begin() registers
 * it (before from_real_ns); end(), once the recording loop has handed over
 * every sample up to to_real_ns, waits up to timeout_ms for the worker to
 * apply them and write the tables, and returns the gzip'd profile in *buf
 * (malloc'd) and in *dropped how many samples of its range were not queued
 * (the worker too far behind: the profile lacks them).  end() frees sc in
 * every case.  0 or -errno.
 */
int live_profile_begin(struct live_profile *lp, uint64_t from_real_ns, uint64_t to_real_ns,
		       const char *comm, uint32_t pid, struct live_scrape **out);
int live_profile_end(struct live_profile *lp, struct live_scrape *sc, unsigned int timeout_ms,
		     char **buf, size_t *len, uint64_t *dropped);

/* A profile is being taken (the recording loop then drains more often). */
bool live_profile_active(struct live_profile *lp);

struct live_profile_stats {
	uint64_t profiles;		/* served */
	uint64_t samples_dropped;	/* not queued: the worker was too far behind */
	uint64_t restarts;		/* session restarts (segments) */
	uint64_t symbol_reloads;	/* symbolizer dropped: a file changed, or too big */
	uint64_t queue_bytes;		/* waiting for the worker now */
};
void live_profile_stats(struct live_profile *lp, struct live_profile_stats *st);

#endif /* PMIPROF_DAEMON_LIVE_PROFILE_H */
