/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the daemon's recording loop shares with its HTTP threads: the
 * directory and open segment, the recorder's counts, the live metrics
 * (window_metrics.h, with a lock of its own: the recording thread's tap
 * takes only that one), and a worker thread that applies retention after
 * each segment closes, off the recording thread.  One mutex guards the rest.
 */
#ifndef PMIPROF_DAEMON_DAEMON_STATE_H
#define PMIPROF_DAEMON_DAEMON_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/backend.h"
#include "service/retention.h"

/* Past the Prometheus exporter port allocations in use (docs/daemon.md, "About the port"). */
#define DAEMON_DEFAULT_LISTEN	"127.0.0.1:10150"

struct daemon_state;
struct live_profile;
struct segment;

/* max_memory: --max-memory in bytes (0: none), passed to the profile builder. */
int daemon_state_new(struct daemon_state **out, const char *dir, const struct retention *ret,
		     const struct trace_header *h, uint32_t top_comms, uint64_t max_memory);
/* Stops the worker (it finishes the segment in hand), frees. */
void daemon_state_free(struct daemon_state *d);

/* From the recording loop (starting: before a segment is opened). */
void daemon_state_segment_starting(struct daemon_state *d);
void daemon_state_segment_started(struct daemon_state *d, const struct segment *sg);
void daemon_state_segment_closed(struct daemon_state *d, const struct segment *sg,
				 const struct record_session *s);
void daemon_state_update(struct daemon_state *d, const struct record_session *s);
/* SIGHUP: new retention limits and number of commands named in /metrics. */
void daemon_state_set_limits(struct daemon_state *d, const struct retention *ret,
			     uint32_t top_comms);
/* A segment could not be created (err: -errno; -ENOSPC makes room on disk). */
void daemon_state_note_error(struct daemon_state *d, int err);

/*
 * Flush requests: an HTTP thread that needs everything recorded so far on
 * disk calls daemon_state_flush() (waits up to timeout_ms: 0 or -errno);
 * the recording loop polls daemon_state_flush_fd(), and when it is
 * readable takes the request (flush_wanted() returns its generation, 0 for
 * none), drains, writes the open chunk and says flushed(gen).
 */
int daemon_state_flush(struct daemon_state *d, unsigned int timeout_ms);
int daemon_state_flush_fd(const struct daemon_state *d);
uint64_t daemon_state_flush_wanted(struct daemon_state *d);
void daemon_state_flushed(struct daemon_state *d, uint64_t gen);

/* From the HTTP threads.  0 or -errno. */
/* /metrics: text format 0.0.4, or OpenMetrics 1.0 when om. */
int daemon_state_write_metrics(struct daemon_state *d, FILE *f, bool om);
const char *daemon_state_dir(const struct daemon_state *d);
/* The live metrics' tap, for every segment's writer (window_metrics.h). */
const struct trace_writer_tap *daemon_state_tap(struct daemon_state *d);
/* The profiles built as samples come (live_profile.h); NULL without stacks. */
struct live_profile *daemon_state_live(struct daemon_state *d);
/* A profile is being taken: the loop drains often, so little is left when it ends. */
bool daemon_state_profiling(struct daemon_state *d);
/* Recorded with call stacks (profiles need them). */
bool daemon_state_has_stacks(const struct daemon_state *d);
/* Recording is running and the last segment write worked. */
int daemon_state_healthy(struct daemon_state *d, char *why, size_t len);

#endif /* PMIPROF_DAEMON_DAEMON_STATE_H */
